//! What running a statement produces: an OK (affected rows, insert id, info) or a
//! result set (column metadata + rows), independent of the wire protocol.

use crate::value::Value;

/// Logical column types, mapped to MySQL wire types by the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    Null,
    Tiny,
    Short,
    Int24,
    Long,
    LongLong,
    Float,
    Double,
    NewDecimal,
    Bit,
    Date,
    DateTime,
    Timestamp,
    Time,
    Year,
    /// CHAR / BINARY / ENUM / SET.
    String,
    VarString,
    Blob,
    Json,
}

/// Metadata of a result column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnInfo {
    pub name: String,
    pub kind: ColumnKind,
    /// Display length in characters (MySQL multiplies by the charset's max bytes).
    pub length_chars: u32,
    pub decimals: u8,
    pub unsigned: bool,
    /// Binary data (charset `binary`) rather than utf8mb4 text.
    pub binary: bool,
    pub not_null: bool,
    pub schema: String,
    pub table: String,
    pub org_name: String,
    /// Collation of a text column (empty: utf8mb4_0900_ai_ci, or binary for `binary`).
    pub collation: String,
    /// A table column's key membership and attributes (result metadata flags).
    pub key: ColumnKey,
}

/// What result metadata says about a table column beyond its type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ColumnKey {
    /// Part of the primary key.
    pub primary: bool,
    /// The only column of a unique index.
    pub unique: bool,
    /// The first column of a non-unique index.
    pub multiple: bool,
    pub auto_increment: bool,
    pub zerofill: bool,
    pub no_default: bool,
    pub on_update_now: bool,
    pub is_enum: bool,
    pub is_set: bool,
}

impl ColumnInfo {
    pub fn new(name: impl Into<String>, kind: ColumnKind) -> ColumnInfo {
        ColumnInfo {
            name: name.into(),
            kind,
            length_chars: 0,
            decimals: 0,
            unsigned: false,
            binary: !matches!(
                kind,
                ColumnKind::VarString | ColumnKind::Blob | ColumnKind::String | ColumnKind::Json
            ),
            not_null: false,
            schema: String::new(),
            table: String::new(),
            org_name: String::new(),
            collation: String::new(),
            key: ColumnKey::default(),
        }
    }

    /// A text column as SHOW statements return them.
    pub fn text(name: &str, length_chars: u32) -> ColumnInfo {
        ColumnInfo {
            length_chars,
            ..ColumnInfo::new(name, ColumnKind::VarString)
        }
    }

    /// Derives metadata for an expression column from the values it produced.
    pub fn from_values<'a>(name: &str, values: impl Iterator<Item = &'a Value>) -> ColumnInfo {
        let mut c = ColumnInfo::new(name, ColumnKind::Null);
        let mut any_null = false;
        let mut len = 0usize;
        let values: Vec<&Value> = values.collect();
        let any_bytes = values.iter().any(|v| matches!(v, Value::Bytes(_)));
        for v in values {
            let (kind, unsigned, binary, decimals) = match v {
                Value::Null => {
                    any_null = true;
                    continue;
                }
                Value::Int(_) => (ColumnKind::LongLong, false, true, 0),
                Value::UInt(_) => (ColumnKind::LongLong, true, true, 0),
                Value::Double(_) => (ColumnKind::Double, false, true, 31),
                Value::Decimal(s) => {
                    let d = s.split_once('.').map_or(0, |(_, f)| f.len()) as u8;
                    (ColumnKind::NewDecimal, false, true, d)
                }
                Value::Str(_) => (ColumnKind::VarString, false, false, 31),
                Value::Bytes(_) => (ColumnKind::VarString, false, true, 31),
            };
            len = len.max(match v {
                Value::Str(s) => s.chars().count(),
                other => other.to_text().map_or(0, |t| t.len()),
            });
            if c.kind == ColumnKind::Null || c.kind == kind {
                c.kind = kind;
                c.unsigned = unsigned;
                c.binary = binary;
                c.decimals = c.decimals.max(decimals);
            } else {
                // Mixed kinds: report as text, as MySQL does for mixed CASE branches
                // (binary text if a binary string is among them).
                c.kind = ColumnKind::VarString;
                c.binary = any_bytes;
                c.unsigned = false;
                c.decimals = 31;
            }
        }
        c.not_null = !any_null && c.kind != ColumnKind::Null;
        c.length_chars = len.max(1) as u32;
        c
    }
}

/// A complete result set. The column metadata is shared (`Arc`): a cached plan (a
/// point select's, exec/point.rs) hands the same metadata to every execution instead of
/// copying its strings each time; `Arc::make_mut` gives a private copy to change.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Rows {
    pub columns: std::sync::Arc<Vec<ColumnInfo>>,
    pub rows: Vec<Vec<Value>>,
}

/// Outcome of one statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Ok {
        affected_rows: u64,
        last_insert_id: u64,
        info: String,
    },
    Rows(Rows),
}

impl Outcome {
    pub fn ok() -> Outcome {
        Outcome::Ok {
            affected_rows: 0,
            last_insert_id: 0,
            info: String::new(),
        }
    }
}
