//! Row and key formats: how a table row is laid out in the clustered index value the
//! engine stores, and how index keys are built from column values.
//!
//! Row (the engine's "row" bytes, after its own system fields):
//!
//! ```text
//! offset  size          field
//!      0  2             n: number of columns written (little-endian)
//!      2  ceil(n/8)     null bitmap: bit i set = column i is NULL
//!      .  ...           the non-NULL columns in order:
//!                         integers, YEAR     8 bytes little-endian (i64 / u64)
//!                         FLOAT, DOUBLE      8 bytes, f64 bits little-endian
//!                         everything else    varint length + bytes (text forms for
//!                                            DECIMAL and temporal types, the bytes
//!                                            for strings, binary strings, BIT, JSON)
//! ```
//!
//! A row with fewer columns than the table (written before `ALTER TABLE ... ADD
//! COLUMN`) reads the missing ones as their defaults, so adding a column at the end
//! rewrites nothing.
//!
//! Keys use kiln-common's memcomparable encoding, one part per index column, with the
//! column's collation weights for text; ENUM sorts by member number and SET by its bit
//! mask, as in MySQL.

use kiln_common::key::KeyWriter;

use crate::collate::Coll;
use crate::dict::{ColumnDef, IndexDef};
use crate::types::SqlType;
use crate::value::Value;

/// Why a row's bytes could not be read.
#[derive(Debug)]
pub struct RowError(pub &'static str);

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7F) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn get_varint(b: &[u8], i: &mut usize) -> Result<u64, RowError> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *b.get(*i).ok_or(RowError("truncated length"))?;
        *i += 1;
        v |= ((byte & 0x7F) as u64) << shift;
        if byte & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(RowError("length too long"))
}

/// Physical class of a column's stored value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    Signed,
    Unsigned,
    Double,
    /// DECIMAL as text.
    Decimal,
    /// Character data (valid UTF-8 as written).
    Text,
    /// TIMESTAMP text: UTC in the row, the statement's zone outside (timestamp_zone.rs).
    Timestamp,
    Bytes,
}

pub fn stored(ty: &SqlType) -> Stored {
    match ty {
        SqlType::Int {
            unsigned: false, ..
        } => Stored::Signed,
        SqlType::Int { unsigned: true, .. } | SqlType::Year => Stored::Unsigned,
        SqlType::Float { .. } | SqlType::Double { .. } => Stored::Double,
        SqlType::Decimal { .. } => Stored::Decimal,
        SqlType::Binary(_) | SqlType::VarBinary(_) | SqlType::Blob(_) | SqlType::Bit(_) => {
            Stored::Bytes
        }
        SqlType::Timestamp(_) => Stored::Timestamp,
        _ => Stored::Text,
    }
}

/// Encodes a row of values (already converted to the columns' types by `types::store`).
pub fn encode_row(columns: &[Stored], values: &[Value], out: &mut Vec<u8>) {
    assert_eq!(columns.len(), values.len(), "row width");
    let n = values.len();
    out.extend_from_slice(&(n as u16).to_le_bytes());
    let bitmap_at = out.len();
    out.resize(bitmap_at + n.div_ceil(8), 0);
    for (i, (c, v)) in columns.iter().zip(values).enumerate() {
        if v.is_null() {
            out[bitmap_at + i / 8] |= 1 << (i % 8);
            continue;
        }
        match c {
            Stored::Signed => out.extend_from_slice(&v.to_i64().unwrap_or(0).to_le_bytes()),
            Stored::Unsigned => {
                let u = match v {
                    Value::UInt(u) => *u,
                    other => other.to_i64().unwrap_or(0) as u64,
                };
                out.extend_from_slice(&u.to_le_bytes());
            }
            Stored::Double => {
                out.extend_from_slice(&v.to_f64().unwrap_or(0.0).to_bits().to_le_bytes())
            }
            Stored::Timestamp => {
                let local = v.to_string_lossy().unwrap_or_default();
                let t = crate::timestamp_zone::to_utc(&local);
                put_varint(out, t.len() as u64);
                out.extend_from_slice(t.as_bytes());
            }
            Stored::Decimal | Stored::Text | Stored::Bytes => {
                let t = value_bytes(v);
                put_varint(out, t.len() as u64);
                out.extend_from_slice(&t);
            }
        }
    }
}

fn value_bytes(v: &Value) -> std::borrow::Cow<'_, [u8]> {
    match v {
        Value::Str(s) => std::borrow::Cow::Borrowed(s.as_bytes()),
        Value::Bytes(b) => std::borrow::Cow::Borrowed(b),
        Value::Decimal(s) => std::borrow::Cow::Borrowed(s.as_bytes()),
        other => std::borrow::Cow::Owned(other.to_text().unwrap_or_default()),
    }
}

/// Decodes a row. Columns the row does not have (added later) come from `missing`.
pub fn decode_row(
    columns: &[Stored],
    b: &[u8],
    missing: &dyn Fn(usize) -> Value,
) -> Result<Vec<Value>, RowError> {
    let mut out = Vec::with_capacity(columns.len());
    decode_row_into(columns, b, missing, &mut out)?;
    Ok(out)
}

pub fn decode_row_into(
    columns: &[Stored],
    b: &[u8],
    missing: &dyn Fn(usize) -> Value,
    out: &mut Vec<Value>,
) -> Result<(), RowError> {
    decode_row_masked(columns, b, missing, None, out)
}

/// `decode_row_into`, building values only for the columns `needed` marks (the others
/// read as NULL without being copied: a query's projection).
pub fn decode_row_masked(
    columns: &[Stored],
    b: &[u8],
    missing: &dyn Fn(usize) -> Value,
    needed: Option<&[bool]>,
    out: &mut Vec<Value>,
) -> Result<(), RowError> {
    out.clear();
    for_each_cell(columns, b, |col, cell| {
        if needed.is_some_and(|m| !m[col]) && cell != Cell::Missing {
            out.push(Value::Null);
            return;
        }
        out.push(match cell {
            Cell::Null => Value::Null,
            Cell::Missing => missing(col),
            Cell::Int(i) => Value::Int(i),
            Cell::UInt(u) => Value::UInt(u),
            Cell::Double(d) => Value::Double(d),
            Cell::Bytes(bytes) => match columns[col] {
                Stored::Decimal => Value::Decimal(String::from_utf8_lossy(bytes).into_owned()),
                Stored::Timestamp => Value::Str(
                    crate::timestamp_zone::to_local(&String::from_utf8_lossy(bytes)).into_owned(),
                ),
                Stored::Text => match std::str::from_utf8(bytes) {
                    Ok(s) => Value::Str(s.to_string()),
                    Err(_) => Value::Bytes(bytes.to_vec()),
                },
                _ => Value::Bytes(bytes.to_vec()),
            },
        });
    })
}

/// A column of a stored row, borrowed from the row's bytes (no allocation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cell<'a> {
    Null,
    Int(i64),
    UInt(u64),
    Double(f64),
    /// DECIMAL text, character data, binary strings, temporal text, JSON.
    Bytes(&'a [u8]),
    /// The row predates an ADD COLUMN of this column: its default applies.
    Missing,
}

/// Splits a stored row into borrowed cells (`out` is cleared first).
pub fn decode_cells<'a>(
    columns: &[Stored],
    b: &'a [u8],
    out: &mut Vec<Cell<'a>>,
) -> Result<(), RowError> {
    out.clear();
    for_each_cell(columns, b, |_, cell| out.push(cell))
}

/// Walks a stored row, handing each column's cell to `f` in column order.
fn for_each_cell<'a>(
    columns: &[Stored],
    b: &'a [u8],
    mut f: impl FnMut(usize, Cell<'a>),
) -> Result<(), RowError> {
    if b.len() < 2 {
        return Err(RowError("row too short"));
    }
    let n = u16::from_le_bytes([b[0], b[1]]) as usize;
    let bitmap = b.get(2..2 + n.div_ceil(8)).ok_or(RowError("row bitmap"))?;
    let mut i = 2 + n.div_ceil(8);
    for (col, c) in columns.iter().enumerate() {
        if col >= n {
            f(col, Cell::Missing);
            continue;
        }
        if bitmap[col / 8] & (1 << (col % 8)) != 0 {
            f(col, Cell::Null);
            continue;
        }
        let cell = match c {
            Stored::Signed | Stored::Unsigned | Stored::Double => {
                let raw: [u8; 8] = b
                    .get(i..i + 8)
                    .ok_or(RowError("row ends in a number"))?
                    .try_into()
                    .expect("8 bytes");
                i += 8;
                match c {
                    Stored::Signed => Cell::Int(i64::from_le_bytes(raw)),
                    Stored::Unsigned => Cell::UInt(u64::from_le_bytes(raw)),
                    _ => Cell::Double(f64::from_bits(u64::from_le_bytes(raw))),
                }
            }
            _ => {
                let len = get_varint(b, &mut i)? as usize;
                let bytes = b
                    .get(i..i.checked_add(len).ok_or(RowError("length"))?)
                    .ok_or(RowError("row ends in a string"))?;
                i += len;
                Cell::Bytes(bytes)
            }
        };
        f(col, cell);
    }
    Ok(())
}

/// Appends one key part for `v` in column `c` (prefix: characters of a prefix index).
pub fn key_part(
    kw: &mut KeyWriter,
    c: &ColumnDef,
    coll: Coll,
    v: &Value,
    prefix_chars: Option<u32>,
    desc: bool,
) {
    let nullable = c.nullable;
    if v.is_null() {
        kw.null(desc);
        return;
    }
    match &c.ty {
        SqlType::Int { kind, unsigned, .. } => {
            let width = match kind.bytes() {
                3 => 4,
                w => w,
            };
            if *unsigned {
                let u = match v {
                    Value::UInt(u) => *u,
                    other => other.to_i64().unwrap_or(0).max(0) as u64,
                };
                kw.uint(u, width, nullable, desc)
            } else {
                kw.int(v.to_i64().unwrap_or(0), width, nullable, desc)
            }
        }
        SqlType::Year => kw.uint(v.to_i64().unwrap_or(0) as u64, 2, nullable, desc),
        SqlType::Float { .. } | SqlType::Double { .. } => {
            kw.double(v.to_f64().unwrap_or(0.0), nullable, desc)
        }
        SqlType::Decimal {
            precision, scale, ..
        } => {
            let text = match v {
                Value::Decimal(s) => s.clone(),
                other => crate::numeric::fit_decimal(other, *precision, *scale, false).0,
            };
            if kw
                .decimal(&text, *precision, *scale, nullable, desc)
                .is_err()
            {
                // A value that does not fit sorts as the clamped one; stored values
                // always fit (types::store), so only lookups by wider constants land here.
                let (t, _) = crate::numeric::fit_decimal(v, *precision, *scale, false);
                let _ = kw.decimal(&t, *precision, *scale, nullable, desc);
            }
        }
        SqlType::Date | SqlType::DateTime(_) | SqlType::Timestamp(_) => {
            let mut text = v.to_string_lossy().unwrap_or_default();
            if matches!(c.ty, SqlType::Timestamp(_)) {
                text = crate::timestamp_zone::to_utc(&text).into_owned();
            }
            let dt =
                kiln_types::temporal::parse_datetime(&text, kiln_types::temporal::Flags::LENIENT)
                    .map(|p| p.value)
                    .unwrap_or_default();
            if matches!(c.ty, SqlType::Date) {
                kw.date(
                    dt.date.year as u32,
                    dt.date.month as u32,
                    dt.date.day as u32,
                    nullable,
                    desc,
                )
            } else {
                kw.datetime(
                    false,
                    dt.date.year as u32,
                    dt.date.month as u32,
                    dt.date.day as u32,
                    dt.hour as u32,
                    dt.minute as u32,
                    dt.second as u32,
                    dt.micros,
                    nullable,
                    desc,
                )
            }
        }
        SqlType::Time(_) => {
            let text = v.to_string_lossy().unwrap_or_default();
            let t = kiln_types::temporal::parse_time(&text)
                .map(|p| p.value)
                .unwrap_or_default();
            kw.datetime(
                t.negative,
                0,
                0,
                0,
                t.hours as u32,
                t.minute as u32,
                t.second as u32,
                t.micros,
                nullable,
                desc,
            )
        }
        SqlType::Enum { members, .. } => {
            let s = v.to_string_lossy().unwrap_or_default();
            let n = members
                .iter()
                .position(|m| crate::collate::eq_ci(m, &s))
                .map_or(0, |i| i + 1);
            kw.uint(n as u64, 2, nullable, desc)
        }
        SqlType::Set { members, .. } => {
            let s = v.to_string_lossy().unwrap_or_default();
            let mut mask = 0u64;
            for p in s.split(',').filter(|p| !p.is_empty()) {
                if let Some(i) = members.iter().position(|m| crate::collate::eq_ci(m, p)) {
                    mask |= 1 << i;
                }
            }
            kw.uint(mask, 8, nullable, desc)
        }
        _ => {
            let bytes = value_bytes(v);
            let bytes: &[u8] = match prefix_chars {
                Some(n) if c.ty.collation().is_some() => {
                    let s = String::from_utf8_lossy(&bytes);
                    let end = s.char_indices().nth(n as usize).map_or(s.len(), |(i, _)| i);
                    let mut w = Vec::new();
                    coll.weights(&s.as_bytes()[..end], &mut w);
                    kw.weights(&w, nullable, desc);
                    return;
                }
                Some(n) => &bytes[..bytes.len().min(n as usize)],
                None => &bytes,
            };
            let mut w = Vec::with_capacity(bytes.len());
            coll.weights(bytes, &mut w);
            kw.weights(&w, nullable, desc)
        }
    }
}

/// The key of `index` for a row.
pub fn index_key(
    columns: &[ColumnDef],
    colls: &[Coll],
    index: &IndexDef,
    row: &[Value],
) -> Vec<u8> {
    let mut kw = KeyWriter::new();
    for p in &index.parts {
        key_part(
            &mut kw,
            &columns[p.column],
            colls[p.column],
            &row[p.column],
            p.prefix_chars,
            p.desc,
        );
    }
    kw.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_borrow_the_row() {
        let cols = [Stored::Signed, Stored::Text, Stored::Double, Stored::Bytes];
        let vals = [
            Value::Int(-7),
            Value::Str("héllo".into()),
            Value::Null,
            Value::Bytes(vec![0, 1, 255]),
        ];
        let mut b = Vec::new();
        encode_row(&cols, &vals, &mut b);
        let mut cells = Vec::new();
        decode_cells(
            &[cols.as_slice(), &[Stored::Unsigned]].concat(),
            &b,
            &mut cells,
        )
        .unwrap();
        assert_eq!(
            cells,
            vec![
                Cell::Int(-7),
                Cell::Bytes("héllo".as_bytes()),
                Cell::Null,
                Cell::Bytes(&[0, 1, 255]),
                Cell::Missing,
            ]
        );
        assert!(decode_cells(&cols, &b[..b.len() - 1], &mut cells).is_err());
    }

    #[test]
    fn row_round_trip_and_added_columns() {
        let cols = [
            Stored::Signed,
            Stored::Text,
            Stored::Double,
            Stored::Bytes,
            Stored::Unsigned,
        ];
        let vals = vec![
            Value::Int(-5),
            Value::Str("héllo".into()),
            Value::Null,
            Value::Bytes(vec![0, 1, 255]),
            Value::UInt(u64::MAX),
        ];
        let mut b = Vec::new();
        encode_row(&cols, &vals, &mut b);
        assert_eq!(decode_row(&cols, &b, &|_| Value::Null).unwrap(), vals);
        let mut wider = cols.to_vec();
        wider.push(Stored::Signed);
        let got = decode_row(&wider, &b, &|_| Value::Int(7)).unwrap();
        assert_eq!(got[5], Value::Int(7));
        assert!(decode_row(&cols, &b[..b.len() - 1], &|_| Value::Null).is_err());
    }
}
