//! Result sets: column definitions (ColumnDefinition41), text-protocol rows
//! (COM_QUERY) and binary-protocol rows (COM_STMT_EXECUTE).
//!
//! A result set on the wire: column count (lenenc) · one ColumnDefinition41 per column
//! · [EOF unless DEPRECATE_EOF] · rows · EOF, or OK with header 0xFE under DEPRECATE_EOF.

use bytes::{BufMut, BytesMut};

use crate::consts::ColumnType;
use crate::wire::{put_lenenc_bytes, put_lenenc_int};

/// Metadata of one result column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub schema: String,
    pub table: String,
    pub org_table: String,
    pub name: String,
    pub org_name: String,
    pub collation_id: u16,
    /// Maximum display length in bytes, as MySQL reports it.
    pub length: u32,
    pub column_type: ColumnType,
    pub flags: u16,
    pub decimals: u8,
}

impl Column {
    /// A column of an expression with no table (e.g. `SELECT 1`).
    pub fn expr(
        name: impl Into<String>,
        column_type: ColumnType,
        collation_id: u16,
        length: u32,
    ) -> Column {
        Column {
            schema: String::new(),
            table: String::new(),
            org_table: String::new(),
            name: name.into(),
            org_name: String::new(),
            collation_id,
            length,
            column_type,
            flags: 0,
            decimals: 0,
        }
    }
}

/// Appends a ColumnDefinition41 payload.
pub fn put_column_definition(out: &mut BytesMut, c: &Column) {
    put_lenenc_bytes(out, b"def");
    put_lenenc_bytes(out, c.schema.as_bytes());
    put_lenenc_bytes(out, c.table.as_bytes());
    put_lenenc_bytes(out, c.org_table.as_bytes());
    put_lenenc_bytes(out, c.name.as_bytes());
    put_lenenc_bytes(out, c.org_name.as_bytes());
    out.put_u8(0x0c);
    out.put_u16_le(c.collation_id);
    out.put_u32_le(c.length);
    out.put_u8(c.column_type as u8);
    out.put_u16_le(c.flags);
    out.put_u8(c.decimals);
    out.put_u16_le(0);
}

/// Appends a text-protocol row: each value as a length-encoded string, NULL as 0xFB.
pub fn put_text_row<'a>(out: &mut BytesMut, values: impl IntoIterator<Item = Option<&'a [u8]>>) {
    for v in values {
        match v {
            None => out.put_u8(0xFB),
            Some(b) => put_lenenc_bytes(out, b),
        }
    }
}

/// A value in the binary protocol (parameters of COM_STMT_EXECUTE, cells of binary rows).
#[derive(Debug, Clone, PartialEq)]
pub enum BinaryValue {
    Null,
    Int(i64),
    UInt(u64),
    Float(f32),
    Double(f64),
    /// Strings, decimals, JSON, BIT, ENUM/SET, blobs: sent as length-encoded bytes.
    Bytes(Vec<u8>),
    /// DATE / DATETIME / TIMESTAMP.
    DateTime {
        year: u16,
        month: u8,
        day: u8,
        hour: u8,
        minute: u8,
        second: u8,
        micros: u32,
    },
    /// TIME: sign, days, hours (0..23), minutes, seconds, microseconds.
    Time {
        negative: bool,
        days: u32,
        hours: u8,
        minutes: u8,
        seconds: u8,
        micros: u32,
    },
}

/// Appends a binary-protocol row. `types` gives each column's wire type, which decides
/// the width of integers. Values must match their column (checked by debug asserts).
pub fn put_binary_row(out: &mut BytesMut, types: &[ColumnType], values: &[BinaryValue]) {
    debug_assert_eq!(types.len(), values.len());
    out.put_u8(0x00);
    let bitmap_len = (values.len() + 7 + 2) / 8;
    let bitmap_at = out.len();
    out.put_bytes(0, bitmap_len);
    for (i, (t, v)) in types.iter().zip(values).enumerate() {
        if matches!(v, BinaryValue::Null) {
            let bit = i + 2;
            out[bitmap_at + bit / 8] |= 1 << (bit % 8);
            continue;
        }
        put_binary_value(out, *t, v);
    }
}

fn put_binary_value(out: &mut BytesMut, t: ColumnType, v: &BinaryValue) {
    use ColumnType as T;
    let as_i64 = |v: &BinaryValue| -> i64 {
        match *v {
            BinaryValue::Int(i) => i,
            BinaryValue::UInt(u) => u as i64,
            BinaryValue::Float(f) => f as i64,
            BinaryValue::Double(d) => d as i64,
            _ => 0,
        }
    };
    match (t, v) {
        (T::Tiny, _) => out.put_u8(as_i64(v) as u8),
        (T::Short | T::Year, _) => out.put_u16_le(as_i64(v) as u16),
        (T::Long | T::Int24, _) => out.put_u32_le(as_i64(v) as u32),
        (T::LongLong, _) => out.put_u64_le(as_i64(v) as u64),
        (T::Float, BinaryValue::Float(f)) => out.put_f32_le(*f),
        (T::Float, BinaryValue::Double(d)) => out.put_f32_le(*d as f32),
        (T::Double, BinaryValue::Double(d)) => out.put_f64_le(*d),
        (T::Double, BinaryValue::Float(f)) => out.put_f64_le(*f as f64),
        (
            _,
            BinaryValue::DateTime {
                year,
                month,
                day,
                hour,
                minute,
                second,
                micros,
            },
        ) => {
            let len: u8 = if *micros != 0 {
                11
            } else if *hour != 0 || *minute != 0 || *second != 0 {
                7
            } else if *year != 0 || *month != 0 || *day != 0 {
                4
            } else {
                0
            };
            out.put_u8(len);
            if len >= 4 {
                out.put_u16_le(*year);
                out.put_u8(*month);
                out.put_u8(*day);
            }
            if len >= 7 {
                out.put_u8(*hour);
                out.put_u8(*minute);
                out.put_u8(*second);
            }
            if len == 11 {
                out.put_u32_le(*micros);
            }
        }
        (
            _,
            BinaryValue::Time {
                negative,
                days,
                hours,
                minutes,
                seconds,
                micros,
            },
        ) => {
            if *days == 0 && *hours == 0 && *minutes == 0 && *seconds == 0 && *micros == 0 {
                out.put_u8(0);
                return;
            }
            out.put_u8(if *micros != 0 { 12 } else { 8 });
            out.put_u8(*negative as u8);
            out.put_u32_le(*days);
            out.put_u8(*hours);
            out.put_u8(*minutes);
            out.put_u8(*seconds);
            if *micros != 0 {
                out.put_u32_le(*micros);
            }
        }
        (_, BinaryValue::Bytes(b)) => put_lenenc_bytes(out, b),
        (_, BinaryValue::Int(i)) => put_lenenc_bytes(out, i.to_string().as_bytes()),
        (_, BinaryValue::UInt(u)) => put_lenenc_bytes(out, u.to_string().as_bytes()),
        (_, BinaryValue::Double(d)) => put_lenenc_bytes(out, d.to_string().as_bytes()),
        (_, BinaryValue::Float(f)) => put_lenenc_bytes(out, f.to_string().as_bytes()),
        (_, BinaryValue::Null) => unreachable!("NULL handled by the bitmap"),
    }
}

/// Appends the column-count packet payload.
pub fn put_column_count(out: &mut BytesMut, n: usize) {
    put_lenenc_int(out, n as u64);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Reader;

    #[test]
    fn text_row_with_null() {
        let mut b = BytesMut::new();
        put_text_row(&mut b, [Some(&b"1"[..]), None, Some(&b""[..])]);
        assert_eq!(&b[..], b"\x011\xfb\x00");
    }

    #[test]
    fn binary_row_null_bitmap_offset_two() {
        let mut b = BytesMut::new();
        put_binary_row(
            &mut b,
            &[ColumnType::LongLong, ColumnType::VarString],
            &[BinaryValue::Null, BinaryValue::Bytes(b"ab".to_vec())],
        );
        assert_eq!(&b[..], b"\x00\x04\x02ab");
    }

    #[test]
    fn binary_datetime_lengths() {
        let mut b = BytesMut::new();
        let dt = BinaryValue::DateTime {
            year: 2024,
            month: 2,
            day: 29,
            hour: 0,
            minute: 0,
            second: 0,
            micros: 0,
        };
        put_binary_row(&mut b, &[ColumnType::Date], &[dt]);
        assert_eq!(&b[2..], b"\x04\xe8\x07\x02\x1d");
        let mut b = BytesMut::new();
        let dt = BinaryValue::DateTime {
            year: 2024,
            month: 2,
            day: 29,
            hour: 1,
            minute: 2,
            second: 3,
            micros: 0,
        };
        put_binary_row(&mut b, &[ColumnType::DateTime], &[dt]);
        assert_eq!(&b[2..], b"\x07\xe8\x07\x02\x1d\x01\x02\x03");
    }

    #[test]
    fn column_definition_fields() {
        let mut b = BytesMut::new();
        put_column_definition(&mut b, &Column::expr("1", ColumnType::LongLong, 63, 1));
        let mut r = Reader::new(&b);
        assert_eq!(r.lenenc_bytes().unwrap(), b"def");
        for _ in 0..3 {
            assert_eq!(r.lenenc_bytes().unwrap(), b"");
        }
        assert_eq!(r.lenenc_bytes().unwrap(), b"1");
        assert_eq!(r.lenenc_bytes().unwrap(), b"");
        assert_eq!(r.u8().unwrap(), 0x0c);
        assert_eq!(r.u16().unwrap(), 63);
        assert_eq!(r.u32().unwrap(), 1);
        assert_eq!(r.u8().unwrap(), 8);
    }
}
