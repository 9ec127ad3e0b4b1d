//! How a MySQL result column becomes a sqllogictest column: its type letter (`I`, `R`,
//! `T`) from the wire column type, and each value's text the way SQLite's reference
//! runner prints it (`%d`, `%.3f`, `NULL`, `(empty)`, unprintable bytes as `@`).

use mysql::consts::ColumnType as My;
use sqllogictest::DefaultColumnType as Slt;

/// The sqllogictest type of a result column: integer types and BIT are `I`, exact and
/// approximate numerics are `R`, everything else (strings, temporals, NULL) is `T`.
pub fn column_kind(t: My) -> Slt {
    match t {
        My::MYSQL_TYPE_TINY
        | My::MYSQL_TYPE_SHORT
        | My::MYSQL_TYPE_INT24
        | My::MYSQL_TYPE_LONG
        | My::MYSQL_TYPE_LONGLONG
        | My::MYSQL_TYPE_BIT => Slt::Integer,
        My::MYSQL_TYPE_DECIMAL
        | My::MYSQL_TYPE_NEWDECIMAL
        | My::MYSQL_TYPE_FLOAT
        | My::MYSQL_TYPE_DOUBLE => Slt::FloatingPoint,
        _ => Slt::Text,
    }
}

/// Formats one text-protocol value (`None` is SQL NULL) of wire type `t` as sqllogictest
/// type `kind`. Normally `kind` is `column_kind(t)`; with `--loose-types` it is the letter
/// the file expects, which is how SQLite's reference runner formats (it never looks at
/// the engine's types).
pub fn format_as(kind: Slt, t: My, value: Option<&[u8]>) -> String {
    let Some(bytes) = value else {
        return "NULL".to_string();
    };
    match kind {
        Slt::Integer if t == My::MYSQL_TYPE_BIT => bit_value(bytes),
        Slt::Integer => integer(bytes),
        Slt::FloatingPoint if t == My::MYSQL_TYPE_BIT => real(bit_value(bytes).as_bytes()),
        Slt::FloatingPoint => real(bytes),
        _ => text(bytes),
    }
}

/// `%d`: the server already sends integers in decimal. A non-integer number (only seen
/// with `--loose-types`) is truncated like C's conversion to long long; anything else is
/// shown as text so that it fails the comparison visibly instead of being "fixed" here.
fn integer(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    let t = s.trim();
    if t.parse::<i128>().is_ok() {
        return t.to_string();
    }
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() && v.abs() < 9.2e18 => format!("{}", v.trunc() as i64),
        _ => text(bytes),
    }
}

/// BIT values arrive as big-endian raw bytes in the text protocol.
fn bit_value(bytes: &[u8]) -> String {
    if bytes.len() > 8 {
        return text(bytes);
    }
    let v = bytes.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b));
    v.to_string()
}

/// `%.3f` of the value read as a C double (Rust's `{:.3}` rounds the exact binary value
/// the same way glibc's printf does).
fn real(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => format!("{v:.3}"),
        _ => text(bytes),
    }
}

/// Text as the reference runner prints it: the empty string is `(empty)` and every byte
/// outside printable ASCII becomes `@` (per byte, so a UTF-8 character gives several).
fn text(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "(empty)".to_string();
    }
    bytes
        .iter()
        .map(|&b| {
            if (b' '..=b'~').contains(&b) {
                b as char
            } else {
                '@'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format_value(t: My, value: Option<&[u8]>) -> String {
        format_as(column_kind(t), t, value)
    }

    fn f(t: My, v: &str) -> String {
        format_value(t, Some(v.as_bytes()))
    }

    #[test]
    fn kinds() {
        assert_eq!(column_kind(My::MYSQL_TYPE_LONGLONG), Slt::Integer);
        assert_eq!(column_kind(My::MYSQL_TYPE_BIT), Slt::Integer);
        assert_eq!(column_kind(My::MYSQL_TYPE_NEWDECIMAL), Slt::FloatingPoint);
        assert_eq!(column_kind(My::MYSQL_TYPE_DOUBLE), Slt::FloatingPoint);
        assert_eq!(column_kind(My::MYSQL_TYPE_VAR_STRING), Slt::Text);
        assert_eq!(column_kind(My::MYSQL_TYPE_NULL), Slt::Text);
    }

    #[test]
    fn values() {
        assert_eq!(format_value(My::MYSQL_TYPE_LONG, None), "NULL");
        assert_eq!(f(My::MYSQL_TYPE_LONGLONG, "-42"), "-42");
        assert_eq!(f(My::MYSQL_TYPE_NEWDECIMAL, "12.3456"), "12.346");
        assert_eq!(f(My::MYSQL_TYPE_NEWDECIMAL, "-0.0004"), "-0.000");
        assert_eq!(
            f(My::MYSQL_TYPE_DOUBLE, "1e20"),
            "100000000000000000000.000"
        );
        assert_eq!(f(My::MYSQL_TYPE_DOUBLE, "0.0625"), "0.062");
        assert_eq!(f(My::MYSQL_TYPE_VAR_STRING, ""), "(empty)");
        assert_eq!(f(My::MYSQL_TYPE_VAR_STRING, "a\tb"), "a@b");
        assert_eq!(f(My::MYSQL_TYPE_VAR_STRING, "é"), "@@");
        assert_eq!(format_value(My::MYSQL_TYPE_BIT, Some(&[1, 2])), "258");
    }

    #[test]
    fn loose_types_format_as_expected() {
        let v = Some("56".as_bytes());
        assert_eq!(
            format_as(Slt::FloatingPoint, My::MYSQL_TYPE_LONGLONG, v),
            "56.000"
        );
        let d = Some("-7.8".as_bytes());
        assert_eq!(format_as(Slt::Integer, My::MYSQL_TYPE_NEWDECIMAL, d), "-7");
        assert_eq!(format_as(Slt::Text, My::MYSQL_TYPE_NEWDECIMAL, d), "-7.8");
    }
}
