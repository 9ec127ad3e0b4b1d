//! Column types: what `CREATE TABLE` declares (`SqlType`), how a type is shown
//! (SHOW CREATE TABLE, information_schema, result-set metadata), and how a value is
//! stored into a column of the type (`store`: range checks, truncation, rounding —
//! errors in strict mode, warnings and adjusted values otherwise, as MySQL 8.0).

use kiln_common::{ErrorKind, KilnError, Result};

use crate::result::{ColumnInfo, ColumnKind};
use crate::value::Value;

/// Largest CHAR length (characters).
pub const CHAR_LEN_MAX: u32 = 255;
/// Largest VARCHAR/VARBINARY length MySQL accepts in a definition (bytes/characters
/// bounded by the 65,535-byte row limit, checked separately).
pub const VARCHAR_LEN_MAX: u32 = 65_535;
/// Largest DECIMAL precision and scale.
pub const DECIMAL_PRECISION_MAX: u32 = 65;
pub const DECIMAL_SCALE_MAX: u32 = 30;
/// Largest fractional-seconds precision.
pub const FSP_MAX: u32 = 6;
/// ENUM/SET members.
pub const ENUM_MEMBERS_MAX: usize = 65_535;
pub const SET_MEMBERS_MAX: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntKind {
    Tiny,
    Small,
    Medium,
    Int,
    Big,
}

impl IntKind {
    pub fn bytes(self) -> usize {
        match self {
            IntKind::Tiny => 1,
            IntKind::Small => 2,
            IntKind::Medium => 3,
            IntKind::Int => 4,
            IntKind::Big => 8,
        }
    }

    /// (min, max) of the signed or unsigned range, as i128 so both fit.
    pub fn range(self, unsigned: bool) -> (i128, i128) {
        let bits = self.bytes() as u32 * 8;
        if unsigned {
            (0, (1i128 << bits) - 1)
        } else {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        }
    }

    fn name(self) -> &'static str {
        match self {
            IntKind::Tiny => "tinyint",
            IntKind::Small => "smallint",
            IntKind::Medium => "mediumint",
            IntKind::Int => "int",
            IntKind::Big => "bigint",
        }
    }
}

/// Size class of TEXT/BLOB types: the largest length in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LobSize {
    Tiny,
    Normal,
    Medium,
    Long,
}

impl LobSize {
    pub fn max_bytes(self) -> u64 {
        match self {
            LobSize::Tiny => 255,
            LobSize::Normal => 65_535,
            LobSize::Medium => 16_777_215,
            LobSize::Long => 4_294_967_295,
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            LobSize::Tiny => "tiny",
            LobSize::Normal => "",
            LobSize::Medium => "medium",
            LobSize::Long => "long",
        }
    }
}

/// A column type as declared. String types carry their collation (resolved at CREATE
/// TABLE from the column, table, database or server default).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SqlType {
    Int {
        kind: IntKind,
        unsigned: bool,
        zerofill: bool,
        /// Display width as written (deprecated in MySQL 8; kept for SHOW CREATE TABLE).
        width: Option<u32>,
    },
    Decimal {
        precision: u32,
        scale: u32,
        unsigned: bool,
    },
    Float {
        unsigned: bool,
    },
    Double {
        unsigned: bool,
    },
    Bit(u32),
    Char {
        len: u32,
        collation: String,
    },
    VarChar {
        len: u32,
        collation: String,
    },
    Binary(u32),
    VarBinary(u32),
    Text {
        size: LobSize,
        collation: String,
    },
    Blob(LobSize),
    Enum {
        members: Vec<String>,
        collation: String,
    },
    Set {
        members: Vec<String>,
        collation: String,
    },
    Date,
    DateTime(u32),
    Timestamp(u32),
    Time(u32),
    Year,
    Json,
}

impl SqlType {
    /// The collation of a character type (None for numbers, binary strings, temporal).
    pub fn collation(&self) -> Option<&str> {
        match self {
            SqlType::Char { collation, .. }
            | SqlType::VarChar { collation, .. }
            | SqlType::Text { collation, .. }
            | SqlType::Enum { collation, .. }
            | SqlType::Set { collation, .. } => Some(collation),
            _ => None,
        }
    }

    pub fn collation_mut(&mut self) -> Option<&mut String> {
        match self {
            SqlType::Char { collation, .. }
            | SqlType::VarChar { collation, .. }
            | SqlType::Text { collation, .. }
            | SqlType::Enum { collation, .. }
            | SqlType::Set { collation, .. } => Some(collation),
            _ => None,
        }
    }

    pub fn is_string(&self) -> bool {
        matches!(
            self,
            SqlType::Char { .. }
                | SqlType::VarChar { .. }
                | SqlType::Binary(_)
                | SqlType::VarBinary(_)
                | SqlType::Text { .. }
                | SqlType::Blob(_)
        )
    }

    pub fn is_lob(&self) -> bool {
        matches!(
            self,
            SqlType::Text { .. } | SqlType::Blob(_) | SqlType::Json
        )
    }

    pub fn is_integer(&self) -> bool {
        matches!(self, SqlType::Int { .. })
    }

    /// The type as SHOW CREATE TABLE / information_schema.COLUMNS.COLUMN_TYPE show it.
    pub fn column_type(&self) -> String {
        let uns = |u: bool| if u { " unsigned" } else { "" };
        match self {
            SqlType::Int {
                kind,
                unsigned,
                zerofill,
                width,
            } => {
                // MySQL 8 shows a display width only with ZEROFILL (and tinyint(1)).
                let w = match (width, zerofill, kind) {
                    (Some(w), true, _) => format!("({w})"),
                    (Some(1), false, IntKind::Tiny) => "(1)".into(),
                    _ => String::new(),
                };
                format!(
                    "{}{w}{}{}",
                    kind.name(),
                    uns(*unsigned),
                    if *zerofill { " zerofill" } else { "" }
                )
            }
            SqlType::Decimal {
                precision,
                scale,
                unsigned,
            } => format!("decimal({precision},{scale}){}", uns(*unsigned)),
            SqlType::Float { unsigned } => format!("float{}", uns(*unsigned)),
            SqlType::Double { unsigned } => format!("double{}", uns(*unsigned)),
            SqlType::Bit(n) => format!("bit({n})"),
            SqlType::Char { len, .. } => format!("char({len})"),
            SqlType::VarChar { len, .. } => format!("varchar({len})"),
            SqlType::Binary(n) => format!("binary({n})"),
            SqlType::VarBinary(n) => format!("varbinary({n})"),
            SqlType::Text { size, .. } => format!("{}text", size.prefix()),
            SqlType::Blob(size) => format!("{}blob", size.prefix()),
            SqlType::Enum { members, .. } => format!("enum({})", quoted_list(members)),
            SqlType::Set { members, .. } => format!("set({})", quoted_list(members)),
            SqlType::Date => "date".into(),
            SqlType::DateTime(f) => with_fsp("datetime", *f),
            SqlType::Timestamp(f) => with_fsp("timestamp", *f),
            SqlType::Time(f) => with_fsp("time", *f),
            SqlType::Year => "year".into(),
            SqlType::Json => "json".into(),
        }
    }

    /// information_schema.COLUMNS.DATA_TYPE.
    pub fn data_type(&self) -> String {
        let t = self.column_type();
        t.split(['(', ' ']).next().unwrap_or("").to_string()
    }

    /// Result-set metadata for a column of this type.
    pub fn column_info(&self, name: &str) -> ColumnInfo {
        let (kind, len, decimals, unsigned) = match self {
            SqlType::Int { kind, unsigned, .. } => {
                let (k, len) = match kind {
                    IntKind::Tiny => (ColumnKind::Tiny, 4),
                    IntKind::Small => (ColumnKind::Short, 6),
                    IntKind::Medium => (ColumnKind::Int24, 9),
                    IntKind::Int => (ColumnKind::Long, 11),
                    IntKind::Big => (ColumnKind::LongLong, 20),
                };
                (
                    k,
                    len - u32::from(*unsigned && *kind != IntKind::Big),
                    0,
                    *unsigned,
                )
            }
            SqlType::Decimal {
                precision,
                scale,
                unsigned,
            } => (
                ColumnKind::NewDecimal,
                precision + u32::from(*scale > 0) + u32::from(!unsigned),
                *scale as u8,
                *unsigned,
            ),
            SqlType::Float { unsigned } => (ColumnKind::Float, 12, 31, *unsigned),
            SqlType::Double { unsigned } => (ColumnKind::Double, 22, 31, *unsigned),
            SqlType::Bit(n) => (ColumnKind::Bit, *n, 0, true),
            SqlType::Char { len, .. } => (ColumnKind::String, *len, 0, false),
            SqlType::VarChar { len, .. } => (ColumnKind::VarString, *len, 0, false),
            SqlType::Binary(n) => (ColumnKind::String, *n, 0, false),
            SqlType::VarBinary(n) => (ColumnKind::VarString, *n, 0, false),
            SqlType::Text { size, .. } => (
                ColumnKind::Blob,
                (size.max_bytes().min(u32::MAX as u64) / 4) as u32,
                0,
                false,
            ),
            SqlType::Blob(size) => (
                ColumnKind::Blob,
                size.max_bytes().min(u32::MAX as u64) as u32,
                0,
                false,
            ),
            SqlType::Enum { members, .. } | SqlType::Set { members, .. } => {
                let len = if matches!(self, SqlType::Enum { .. }) {
                    members.iter().map(|m| m.chars().count()).max().unwrap_or(0)
                } else {
                    members.iter().map(|m| m.chars().count() + 1).sum::<usize>()
                };
                (ColumnKind::String, len.max(1) as u32, 0, false)
            }
            SqlType::Date => (ColumnKind::Date, 10, 0, false),
            SqlType::DateTime(f) => (ColumnKind::DateTime, 19 + fsp_len(*f), *f as u8, false),
            SqlType::Timestamp(f) => (ColumnKind::Timestamp, 19 + fsp_len(*f), *f as u8, false),
            SqlType::Time(f) => (ColumnKind::Time, 10 + fsp_len(*f), *f as u8, false),
            SqlType::Year => (ColumnKind::Year, 4, 0, true),
            SqlType::Json => (ColumnKind::Json, u32::MAX / 4, 0, false),
        };
        let mut c = ColumnInfo::new(name, kind);
        c.length_chars = len;
        c.decimals = decimals;
        c.unsigned = unsigned;
        c.binary = !matches!(
            self,
            SqlType::Char { .. }
                | SqlType::VarChar { .. }
                | SqlType::Text { .. }
                | SqlType::Enum { .. }
                | SqlType::Set { .. }
                | SqlType::Json
        );
        if let Some(coll) = self.collation() {
            c.collation = coll.to_string();
        }
        c.org_name = name.to_string();
        c
    }
}

fn fsp_len(fsp: u32) -> u32 {
    if fsp > 0 { fsp + 1 } else { 0 }
}

fn with_fsp(name: &str, fsp: u32) -> String {
    if fsp > 0 {
        format!("{name}({fsp})")
    } else {
        name.to_string()
    }
}

fn quoted_list(members: &[String]) -> String {
    members
        .iter()
        .map(|m| format!("'{}'", m.replace('\'', "''")))
        .collect::<Vec<_>>()
        .join(",")
}

/// How a value that does not fit is handled: strict mode (STRICT_TRANS_TABLES or
/// STRICT_ALL_TABLES, with the statement not IGNOREd) turns the warning into an error.
#[derive(Debug, Clone, Copy)]
pub struct StoreMode {
    pub strict: bool,
    /// 1-based row number for messages.
    pub row: u64,
}

/// A condition raised while storing a value (the caller records warnings).
#[derive(Debug, Clone)]
pub struct StoreWarning {
    /// A Note (the value was adjusted as MySQL always does: DECIMAL digits rounded
    /// away, a DATE given a time of day), else a Warning.
    pub note: bool,
    pub code: u16,
    pub message: String,
}

/// Converts `v` to the value a column of type `ty` stores. In strict mode a value that
/// does not fit is an error; otherwise it is adjusted (clamped, truncated) and a
/// warning is returned — MySQL's rules for INSERT/UPDATE.
pub fn store(
    ty: &SqlType,
    column: &str,
    v: &Value,
    mode: StoreMode,
    warnings: &mut Vec<StoreWarning>,
) -> Result<Value> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    let mut problem = |kind: ErrorKind, args: &[&dyn std::fmt::Display]| -> Result<()> {
        let e = KilnError::new(kind, args);
        if mode.strict {
            return Err(e);
        }
        warnings.push(StoreWarning {
            note: false,
            code: e.code,
            message: e.message,
        });
        Ok(())
    };
    // Notes never fail the statement, strict or not (MySQL's Note 1265).
    let mut notes: Vec<StoreWarning> = Vec::new();
    let out = store_adjusted(ty, column, v, mode, &mut problem, &mut notes);
    warnings.extend(notes);
    out
}

/// Note 1265 ("Data truncated for column ... at row ...") for a value adjusted the way
/// MySQL notes rather than warns about.
pub(crate) fn truncation_note(column: &str, row: u64) -> StoreWarning {
    let e = KilnError::new(ErrorKind::ER_WARN_DATA_TRUNCATED, &[&column, &row]);
    StoreWarning {
        note: true,
        code: e.code,
        message: e.message,
    }
}

/// `store` once strict-mode problems have a reporter: `problem` gives the errors or
/// warnings, `notes` collects the notes.
fn store_adjusted(
    ty: &SqlType,
    column: &str,
    v: &Value,
    mode: StoreMode,
    problem: &mut crate::temporal_store::Problem<'_>,
    notes: &mut Vec<StoreWarning>,
) -> Result<Value> {
    match ty {
        SqlType::Int { kind, unsigned, .. } => {
            let (lo, hi) = kind.range(*unsigned);
            let (n, exact) = to_integer(v);
            if !exact {
                match v {
                    Value::Str(s) if !has_numeric_prefix(s.as_bytes()) => problem(
                        ErrorKind::ER_TRUNCATED_WRONG_VALUE_FOR_FIELD,
                        &[&"integer", &s, &column, &mode.row],
                    )?,
                    Value::Str(_) | Value::Bytes(_) => {
                        problem(ErrorKind::ER_WARN_DATA_TRUNCATED, &[&column, &mode.row])?
                    }
                    _ => {}
                }
            }
            if n < lo || n > hi {
                problem(ErrorKind::ER_WARN_DATA_OUT_OF_RANGE, &[&column, &mode.row])?;
            }
            let n = n.clamp(lo, hi);
            Ok(if *unsigned {
                Value::UInt(n as u64)
            } else {
                Value::Int(n as i64)
            })
        }
        SqlType::Float { unsigned } | SqlType::Double { unsigned } => {
            let mut d = v.to_f64().unwrap_or(0.0);
            if let Value::Str(s) = v
                && !looks_numeric(s.as_bytes())
            {
                problem(
                    ErrorKind::ER_TRUNCATED_WRONG_VALUE_FOR_FIELD,
                    &[&"double", &s, &column, &mode.row],
                )?;
            }
            if matches!(ty, SqlType::Float { .. }) {
                if d.abs() > f32::MAX as f64 && d.is_finite() {
                    problem(ErrorKind::ER_WARN_DATA_OUT_OF_RANGE, &[&column, &mode.row])?;
                    d = d.signum() * f32::MAX as f64;
                }
                d = d as f32 as f64;
            }
            if *unsigned && d < 0.0 {
                problem(ErrorKind::ER_WARN_DATA_OUT_OF_RANGE, &[&column, &mode.row])?;
                d = 0.0;
            }
            Ok(Value::Double(d))
        }
        SqlType::Decimal {
            precision,
            scale,
            unsigned,
        } => {
            if let Value::Str(s) = v
                && !looks_numeric(s.as_bytes())
            {
                problem(
                    ErrorKind::ER_TRUNCATED_WRONG_VALUE_FOR_FIELD,
                    &[&"decimal", &s, &column, &mode.row],
                )?;
            }
            let (text, out_of_range) =
                crate::numeric::fit_decimal(v, *precision, *scale, *unsigned);
            if out_of_range {
                problem(ErrorKind::ER_WARN_DATA_OUT_OF_RANGE, &[&column, &mode.row])?;
            } else if crate::numeric::to_decimal(v)
                != crate::numeric::to_decimal(&Value::Decimal(text.clone()))
            {
                notes.push(truncation_note(column, mode.row));
            }
            Ok(Value::Decimal(text))
        }
        SqlType::Char { .. } | SqlType::VarChar { .. } | SqlType::Text { .. } => {
            let mut s = v.to_string_lossy().unwrap_or_default();
            if !s.is_ascii()
                && let Some(bad) = ty
                    .collation()
                    .and_then(crate::collate::Coll::by_name)
                    .and_then(|c| crate::collate::unrepresentable(c, &s))
            {
                // A character the column's charset lacks (a CJK one in latin1): 1366,
                // and '?' in its place when not strict.
                problem(
                    ErrorKind::ER_TRUNCATED_WRONG_VALUE_FOR_FIELD,
                    &[&"string", &bad.shown, &column, &mode.row],
                )?;
                s = bad.replaced;
            }
            let limit = match ty {
                SqlType::Text { size, .. } => Some(size.max_bytes()),
                SqlType::Char { len, .. } | SqlType::VarChar { len, .. } => Some(*len as u64),
                _ => None,
            };
            let (count, too_long) = match ty {
                SqlType::Text { .. } => (s.len() as u64, s.len() as u64 > limit.unwrap_or(0)),
                _ => {
                    let c = s.chars().count() as u64;
                    (c, c > limit.unwrap_or(0))
                }
            };
            if too_long {
                let cut_to = limit.unwrap_or(0) as usize;
                let rest_is_spaces = match ty {
                    SqlType::Text { .. } => false,
                    _ => s.chars().skip(cut_to).all(|c| c == ' '),
                };
                if !rest_is_spaces {
                    // Strict: 1406; otherwise MySQL warns 1265 "Data truncated".
                    let kind = if mode.strict {
                        ErrorKind::ER_DATA_TOO_LONG
                    } else {
                        ErrorKind::ER_WARN_DATA_TRUNCATED
                    };
                    problem(kind, &[&column, &mode.row])?;
                }
                s = match ty {
                    SqlType::Text { .. } => {
                        let mut end = cut_to.min(s.len());
                        while !s.is_char_boundary(end) {
                            end -= 1;
                        }
                        s[..end].to_string()
                    }
                    _ => s.chars().take(cut_to).collect(),
                };
            }
            let _ = count;
            if matches!(ty, SqlType::Char { .. }) {
                // CHAR values are stored without trailing spaces (and read back so).
                s.truncate(s.trim_end_matches(' ').len());
            }
            Ok(Value::Str(s))
        }
        SqlType::Binary(n) | SqlType::VarBinary(n) => {
            let mut b = v.to_text().unwrap_or_default();
            if b.len() > *n as usize {
                problem(ErrorKind::ER_DATA_TOO_LONG, &[&column, &mode.row])?;
                b.truncate(*n as usize);
            }
            if matches!(ty, SqlType::Binary(_)) {
                b.resize(*n as usize, 0);
            }
            Ok(Value::Bytes(b))
        }
        SqlType::Blob(size) => {
            let mut b = v.to_text().unwrap_or_default();
            if b.len() as u64 > size.max_bytes() {
                problem(ErrorKind::ER_DATA_TOO_LONG, &[&column, &mode.row])?;
                b.truncate(size.max_bytes() as usize);
            }
            Ok(Value::Bytes(b))
        }
        SqlType::Bit(n) => {
            let bits = match v {
                Value::Bytes(b) => b.iter().fold(0u128, |a, x| (a << 8) | *x as u128),
                // A string literal is its bytes (b'..' and mysqldump's '\n\xaa').
                Value::Str(s) => s.bytes().fold(0u128, |a, x| (a << 8) | x as u128),
                other => other.to_i64().unwrap_or(0) as u64 as u128,
            };
            let max = if *n >= 64 {
                u64::MAX as u128
            } else {
                (1u128 << n) - 1
            };
            let bits = if bits > max {
                problem(ErrorKind::ER_DATA_TOO_LONG, &[&column, &mode.row])?;
                max
            } else {
                bits
            };
            let nbytes = (*n as usize).div_ceil(8).max(1);
            Ok(Value::Bytes(bits.to_be_bytes()[16 - nbytes..].to_vec()))
        }
        SqlType::Enum { members, .. } => {
            let found = match v {
                Value::Int(_) | Value::UInt(_) => {
                    let i = v.to_i64().unwrap_or(0);
                    (i >= 1 && (i as usize) <= members.len())
                        .then(|| members[i as usize - 1].clone())
                }
                other => {
                    let s = other.to_string_lossy().unwrap_or_default();
                    let t = s.trim_end_matches(' ');
                    members
                        .iter()
                        .find(|m| crate::collate::eq_ci(m, t))
                        .cloned()
                }
            };
            match found {
                Some(m) => Ok(Value::Str(m)),
                None => {
                    problem(ErrorKind::ER_WARN_DATA_TRUNCATED, &[&column, &mode.row])?;
                    Ok(Value::Str(String::new()))
                }
            }
        }
        SqlType::Set { members, .. } => {
            let s = v.to_string_lossy().unwrap_or_default();
            let mut mask = 0u64;
            let mut bad = false;
            if let Value::Int(_) | Value::UInt(_) = v {
                mask = v.to_i64().unwrap_or(0) as u64;
                if members.len() < 64 && mask >> members.len() != 0 {
                    bad = true;
                    mask &= (1u64 << members.len()) - 1;
                }
            } else if !s.is_empty() {
                for part in s.split(',') {
                    match members.iter().position(|m| crate::collate::eq_ci(m, part)) {
                        Some(i) => mask |= 1 << i,
                        None => bad = true,
                    }
                }
            }
            if bad {
                problem(ErrorKind::ER_WARN_DATA_TRUNCATED, &[&column, &mode.row])?;
            }
            let parts: Vec<&str> = members
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, m)| m.as_str())
                .collect();
            Ok(Value::Str(parts.join(",")))
        }
        SqlType::Date
        | SqlType::DateTime(_)
        | SqlType::Timestamp(_)
        | SqlType::Time(_)
        | SqlType::Year => crate::temporal_store::store(ty, column, v, mode, problem, notes),
        SqlType::Json => {
            let s = v.to_string_lossy().unwrap_or_default();
            if let Err(pos) = crate::json::validate(s.as_bytes()) {
                return Err(KilnError::new(
                    ErrorKind::ER_INVALID_JSON_TEXT,
                    &[&"Invalid value.", &pos, &column],
                ));
            }
            Ok(Value::Str(s))
        }
    }
}

/// Integer value of `v` by MySQL's assignment rules (round half away from zero for
/// fractional values, leading-number prefix for strings), and whether it was exact
/// (false: the string had junk or was not a number).
fn to_integer(v: &Value) -> (i128, bool) {
    match v {
        Value::Int(i) => (*i as i128, true),
        Value::UInt(u) => (*u as i128, true),
        Value::Double(d) => (clamp_f64(d.round()), true),
        Value::Decimal(s) => (clamp_f64(s.parse::<f64>().unwrap_or(0.0).round()), true),
        Value::Str(s) => str_to_integer(s.as_bytes()),
        Value::Bytes(b) => str_to_integer(b),
        Value::Null => (0, true),
    }
}

fn clamp_f64(d: f64) -> i128 {
    if d.is_nan() {
        0
    } else {
        d.clamp(-1e30, 1e30) as i128
    }
}

fn str_to_integer(b: &[u8]) -> (i128, bool) {
    let t = trim_ascii(b);
    // Plain integers exactly (no f64 rounding for 19-20 digit values).
    let (neg, digits) = match t.first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if !digits.is_empty() && digits.len() <= 30 && digits.iter().all(u8::is_ascii_digit) {
        let mut n: i128 = 0;
        for d in digits {
            n = n * 10 + (d - b'0') as i128;
        }
        return (if neg { -n } else { n }, true);
    }
    let d = crate::value::leading_f64(t);
    (clamp_f64(d.round()), looks_numeric(t))
}

fn trim_ascii(b: &[u8]) -> &[u8] {
    let start = b
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len());
    let end = b
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &b[start..end.max(start)]
}

/// Whether the string starts (after spaces) with a number: '12abc' is a truncated
/// number (1265), 'abc' is not a number at all (1366).
fn has_numeric_prefix(b: &[u8]) -> bool {
    let t = trim_ascii(b);
    let t = t
        .strip_prefix(b"-")
        .or_else(|| t.strip_prefix(b"+"))
        .unwrap_or(t);
    t.first().is_some_and(|c| c.is_ascii_digit())
        || (t.first() == Some(&b'.') && t.get(1).is_some_and(|c| c.is_ascii_digit()))
}

/// Whether the whole string (spaces aside) is a number MySQL would read without
/// truncation.
pub fn looks_numeric(b: &[u8]) -> bool {
    let t = trim_ascii(b);
    let mut i = 0;
    if matches!(t.first(), Some(b'-' | b'+')) {
        i += 1;
    }
    let digits_start = i;
    while i < t.len() && t[i].is_ascii_digit() {
        i += 1;
    }
    let mut any = i > digits_start;
    if i < t.len() && t[i] == b'.' {
        i += 1;
        let f = i;
        while i < t.len() && t[i].is_ascii_digit() {
            i += 1;
        }
        any |= i > f;
    }
    if any && i < t.len() && (t[i] == b'e' || t[i] == b'E') {
        let mut j = i + 1;
        if matches!(t.get(j), Some(b'-' | b'+')) {
            j += 1;
        }
        let e = j;
        while j < t.len() && t[j].is_ascii_digit() {
            j += 1;
        }
        if j > e {
            i = j;
        }
    }
    any && i == t.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int() -> SqlType {
        SqlType::Int {
            kind: IntKind::Int,
            unsigned: false,
            zerofill: false,
            width: None,
        }
    }

    #[test]
    fn strict_and_lax_integers() {
        let strict = StoreMode {
            strict: true,
            row: 1,
        };
        let lax = StoreMode {
            strict: false,
            row: 1,
        };
        let mut w = Vec::new();
        assert_eq!(
            store(&int(), "c", &Value::Str("42".into()), strict, &mut w).unwrap(),
            Value::Int(42)
        );
        let e = store(&int(), "c", &Value::Int(1 << 40), strict, &mut w).unwrap_err();
        assert_eq!(e.code, 1264);
        assert_eq!(
            store(&int(), "c", &Value::Int(1 << 40), lax, &mut w).unwrap(),
            Value::Int(i32::MAX as i64)
        );
        assert_eq!(w.len(), 1);
        let e = store(&int(), "c", &Value::Str("abc".into()), strict, &mut w).unwrap_err();
        assert_eq!(e.code, 1366);
        let e = store(&int(), "c", &Value::Str("12abc".into()), strict, &mut w).unwrap_err();
        assert_eq!(e.code, 1265);
        assert_eq!(
            store(&int(), "c", &Value::Double(2.5), strict, &mut w).unwrap(),
            Value::Int(3)
        );
    }

    #[test]
    fn strings() {
        let strict = StoreMode {
            strict: true,
            row: 3,
        };
        let mut w = Vec::new();
        let ty = SqlType::Char {
            len: 3,
            collation: "utf8mb4_0900_ai_ci".into(),
        };
        assert_eq!(
            store(&ty, "c", &Value::Str("ab ".into()), strict, &mut w).unwrap(),
            Value::Str("ab".into())
        );
        assert_eq!(
            store(&ty, "c", &Value::Str("abc   ".into()), strict, &mut w).unwrap(),
            Value::Str("abc".into())
        );
        let e = store(&ty, "c", &Value::Str("abcd".into()), strict, &mut w).unwrap_err();
        assert_eq!(e.message, "Data too long for column 'c' at row 3");
        assert_eq!(
            store(&ty, "c", &Value::Int(7), strict, &mut w).unwrap(),
            Value::Str("7".into())
        );
    }

    #[test]
    fn numeric_text() {
        assert!(looks_numeric(b" -1.5e3 "));
        assert!(looks_numeric(b".5"));
        assert!(!looks_numeric(b"1.5x"));
        assert!(!looks_numeric(b""));
        assert!(!looks_numeric(b"-"));
    }
}
