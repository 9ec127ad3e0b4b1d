//! CAST(x AS type) and CONVERT(x, type): integers (strings read up to the first
//! non-digit, warning 1292), exact DECIMAL(p, s) via kiln-types' `Decimal::fit`
//! (rounded half away from zero, clipped with warning 1264), DOUBLE, CHAR(n) /
//! BINARY(n) (truncated with warning 1292; BINARY(n) pads with 0x00), and the
//! temporal types (in `time`).

use kiln_common::Result;
use kiln_types::decimal::{Decimal, Fit};

use crate::ast::CastType;
use crate::eval::{Env, Level};
use crate::value::{Value, leading_f64};

/// Length of the integer prefix of `s` (after leading spaces, with a sign) and whether
/// anything but trailing spaces follows it. `None` when there are no digits.
pub(crate) fn int_prefix(s: &str) -> (Option<&str>, bool) {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r']);
    let b = t.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i = 1;
    }
    let start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let rest_junk = !t[i..].trim_end_matches(' ').is_empty();
    if i == start {
        return (None, true);
    }
    (Some(&t[..i]), rest_junk)
}

/// Whether a string is wholly a number (leading/trailing spaces allowed), as MySQL
/// decides whether to warn "Truncated incorrect DOUBLE value".
pub(crate) fn is_whole_number(s: &str) -> bool {
    let t = s.trim_matches([' ', '\t', '\n', '\r']);
    if t.is_empty() {
        return false;
    }
    let b = t.as_bytes();
    let mut i = 0;
    if matches!(b[0], b'+' | b'-') {
        i = 1;
    }
    let d0 = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i - d0;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let f0 = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        digits += i - f0;
    }
    if digits == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && matches!(b[j], b'+' | b'-') {
            j += 1;
        }
        let e0 = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > e0 {
            i = j;
        }
    }
    i == b.len()
}

fn truncated(env: &mut dyn Env, kind: &str, s: &str) {
    env.warn(
        Level::Warning,
        1292,
        format!("Truncated incorrect {kind} value: '{s}'"),
    );
}

/// A string as a signed integer, MySQL's way: the integer prefix, clamped, with a
/// warning when anything was dropped.
fn str_to_int(s: &str, unsigned: bool, env: &mut dyn Env) -> Value {
    let (prefix, junk) = int_prefix(s);
    if junk {
        truncated(env, "INTEGER", s);
    }
    let Some(p) = prefix else {
        return if unsigned {
            Value::UInt(0)
        } else {
            Value::Int(0)
        };
    };
    let neg = p.starts_with('-');
    let digits = p.trim_start_matches(['+', '-']);
    match digits.parse::<u64>() {
        Ok(u) => {
            if neg {
                if unsigned {
                    Value::UInt((u as i64).wrapping_neg() as u64)
                } else if u > 1 << 63 {
                    Value::Int(i64::MIN)
                } else {
                    Value::Int((u as i64).wrapping_neg())
                }
            } else if unsigned {
                Value::UInt(u)
            } else {
                Value::Int(u as i64)
            }
        }
        Err(_) => {
            if !junk {
                truncated(env, "INTEGER", s);
            }
            // An overflowing string reads as the largest BIGINT UNSIGNED (so -1 as
            // SIGNED), or the smallest BIGINT when negative.
            if neg {
                if unsigned {
                    Value::UInt(1 << 63)
                } else {
                    Value::Int(i64::MIN)
                }
            } else if unsigned {
                Value::UInt(u64::MAX)
            } else {
                Value::Int(-1)
            }
        }
    }
}

/// A decimal or double rounded half away from zero to an integer.
fn round_to_int(v: &Value) -> i128 {
    match v {
        Value::Decimal(s) => {
            let d = Decimal::parse(s).unwrap_or_else(|_| Decimal::zero());
            let r = d.round(0).unwrap_or(d);
            r.to_string().parse::<i128>().unwrap_or(0)
        }
        other => {
            // Doubles round to nearest even, as MySQL's rint (CAST(2.5e0 AS SIGNED) = 2).
            let f = other.to_f64().unwrap_or(0.0).round_ties_even();
            f.clamp(-1.8e19, 1.8e19) as i128
        }
    }
}

pub fn cast(v: Value, to: CastType, env: &mut dyn Env) -> Result<Value> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    Ok(match to {
        CastType::Signed => match &v {
            Value::Int(_) => v,
            Value::UInt(u) => Value::Int(*u as i64),
            Value::Str(_) | Value::Bytes(_) => {
                let s = v.to_string_lossy().unwrap_or_default();
                str_to_int(&s, false, env)
            }
            other => {
                let r = round_to_int(other);
                Value::Int(r.clamp(i64::MIN as i128, u64::MAX as i128) as i64)
            }
        },
        CastType::Unsigned => match &v {
            Value::UInt(_) => v,
            Value::Int(i) => Value::UInt(*i as u64),
            Value::Str(_) | Value::Bytes(_) => {
                let s = v.to_string_lossy().unwrap_or_default();
                str_to_int(&s, true, env)
            }
            other => {
                let r = round_to_int(other);
                if r < 0 {
                    Value::UInt(r.max(i64::MIN as i128) as i64 as u64)
                } else {
                    Value::UInt(r.min(u64::MAX as i128) as u64)
                }
            }
        },
        CastType::Char(n) => {
            let s = v.to_string_lossy().unwrap_or_default();
            match n {
                Some(n) if s.chars().count() > n as usize => {
                    truncated(env, &format!("CHAR({n})"), &s);
                    Value::Str(s.chars().take(n as usize).collect())
                }
                _ => Value::Str(s),
            }
        }
        CastType::Binary(n) => {
            let mut b = v.to_text().unwrap_or_default();
            if let Some(n) = n {
                let n = n as usize;
                if b.len() > n {
                    truncated(env, &format!("BINARY({n})"), &String::from_utf8_lossy(&b));
                    b.truncate(n);
                } else {
                    b.resize(n, 0);
                }
            }
            Value::Bytes(b)
        }
        CastType::Double => match &v {
            Value::Str(_) | Value::Bytes(_) => {
                let s = v.to_string_lossy().unwrap_or_default();
                if !is_whole_number(&s) {
                    truncated(env, "DOUBLE", &s);
                }
                Value::Double(leading_f64(s.as_bytes()))
            }
            other => Value::Double(other.to_f64().unwrap_or(0.0)),
        },
        CastType::Decimal(p, s) => {
            if let Value::Str(_) | Value::Bytes(_) = &v {
                let text = v.to_string_lossy().unwrap_or_default();
                if !is_whole_number(&text) {
                    truncated(env, "DECIMAL", &text);
                }
            }
            let d = crate::numeric::to_decimal(&v);
            let (fitted, how) = d.fit(p, s);
            if how == Fit::OutOfRange {
                env.warn(
                    Level::Warning,
                    1264,
                    "Out of range value for column 'cast' at row 1".into(),
                );
            }
            Value::Decimal(fitted.to_string())
        }
        CastType::Date => super::time::cast_date(&v, env),
        CastType::DateTime(fsp) => super::time::cast_datetime(&v, fsp, env),
        CastType::Time(fsp) => super::time::cast_time(&v, fsp, env),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_prefixes() {
        assert_eq!(int_prefix(" 12"), (Some("12"), false));
        assert_eq!(int_prefix("1.9"), (Some("1"), true));
        assert_eq!(int_prefix("-0"), (Some("-0"), false));
        assert_eq!(int_prefix("abc"), (None, true));
    }

    #[test]
    fn whole_numbers() {
        assert!(is_whole_number(" 1.5e3 "));
        assert!(!is_whole_number("12abc"));
        assert!(!is_whole_number(""));
        assert!(is_whole_number(".5"));
    }
}

#[cfg(test)]
mod sql_tests {
    use super::super::testenv::q_warn;

    #[test]
    fn casts() {
        let (v, w) = q_warn(
            "SELECT CAST('1.9' AS SIGNED), CAST(-2.5 AS SIGNED), CAST('1.995' AS DECIMAL(4,2)), \
             CAST(12345 AS DECIMAL(4,2)), CAST('abcdef' AS CHAR(2)), CAST(1e3 AS DECIMAL(6,1))",
        );
        assert_eq!(v, ["1", "-3", "2.00", "99.99", "ab", "1000.0"]);
        assert_eq!(w, [1292, 1264, 1292]);
    }
}
