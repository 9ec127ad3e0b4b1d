//! SQL values as the executor computes them. (The storage engine sees only encoded
//! bytes; the protocol layer sees only text or binary cells produced from these.)

use std::fmt;

/// A runtime value. Strings are byte strings with a flag for binary (no charset);
/// text is UTF-8 (utf8mb4) unless produced from binary data.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    UInt(u64),
    Double(f64),
    /// An exact decimal in canonical text form (e.g. "-12.50").
    Decimal(String),
    /// Character string (utf8mb4).
    Str(String),
    /// Binary string (VARBINARY / BLOB / hex literals).
    Bytes(Vec<u8>),
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// MySQL's text rendering (what the text protocol sends).
    pub fn to_text(&self) -> Option<Vec<u8>> {
        Some(match self {
            Value::Null => return None,
            Value::Int(i) => i.to_string().into_bytes(),
            Value::UInt(u) => u.to_string().into_bytes(),
            Value::Double(d) => format_double(*d).into_bytes(),
            Value::Decimal(s) => s.clone().into_bytes(),
            Value::Str(s) => s.clone().into_bytes(),
            Value::Bytes(b) => b.clone(),
        })
    }

    /// Numeric interpretation as a double (strings parsed by MySQL's leading-number rule).
    pub fn to_f64(&self) -> Option<f64> {
        match self {
            Value::Null => None,
            Value::Int(i) => Some(*i as f64),
            Value::UInt(u) => Some(*u as f64),
            Value::Double(d) => Some(*d),
            Value::Decimal(s) => Some(s.parse().unwrap_or(0.0)),
            Value::Str(s) => Some(leading_f64(s.as_bytes())),
            Value::Bytes(b) => Some(leading_f64(b)),
        }
    }

    /// Integer interpretation (doubles rounded half away from zero, strings by prefix).
    pub fn to_i64(&self) -> Option<i64> {
        match self {
            Value::Null => None,
            Value::Int(i) => Some(*i),
            Value::UInt(u) => Some(i64::try_from(*u).unwrap_or(i64::MAX)),
            Value::Double(d) => Some(d.round() as i64),
            Value::Decimal(s) => Some(s.parse::<f64>().unwrap_or(0.0).round() as i64),
            Value::Str(_) | Value::Bytes(_) => Some(self.to_f64().unwrap_or(0.0).round() as i64),
        }
    }

    /// SQL truth value: NULL → None, else non-zero.
    pub fn to_bool(&self) -> Option<bool> {
        match self {
            Value::Null => None,
            Value::Int(i) => Some(*i != 0),
            Value::UInt(u) => Some(*u != 0),
            other => Some(other.to_f64().unwrap_or(0.0) != 0.0),
        }
    }

    /// String interpretation (numbers formatted as MySQL prints them).
    pub fn to_string_lossy(&self) -> Option<String> {
        match self {
            Value::Str(s) => Some(s.clone()),
            other => other
                .to_text()
                .map(|b| String::from_utf8_lossy(&b).into_owned()),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_string_lossy() {
            None => f.write_str("NULL"),
            Some(s) => f.write_str(&s),
        }
    }
}

/// Parses the longest numeric prefix of a string, as MySQL does when a string is used
/// in numeric context ("12abc" → 12, "abc" → 0). Leading spaces are skipped.
pub fn leading_f64(b: &[u8]) -> f64 {
    let s = std::str::from_utf8(b).unwrap_or("");
    let t = s.trim_start();
    let bytes = t.as_bytes();
    let mut end = 0;
    if end < bytes.len() && (bytes[end] == b'+' || bytes[end] == b'-') {
        end += 1;
    }
    let digits_start = end;
    while end < bytes.len() && bytes[end].is_ascii_digit() {
        end += 1;
    }
    if end < bytes.len() && bytes[end] == b'.' {
        end += 1;
        while end < bytes.len() && bytes[end].is_ascii_digit() {
            end += 1;
        }
    }
    if end == digits_start {
        return 0.0;
    }
    if end < bytes.len() && (bytes[end] == b'e' || bytes[end] == b'E') {
        let mut e = end + 1;
        if e < bytes.len() && (bytes[e] == b'+' || bytes[e] == b'-') {
            e += 1;
        }
        if e < bytes.len() && bytes[e].is_ascii_digit() {
            while e < bytes.len() && bytes[e].is_ascii_digit() {
                e += 1;
            }
            end = e;
        }
    }
    // Beyond DOUBLE's range a string reads as the largest double ('1e400' + 0).
    let f: f64 = t[..end].parse().unwrap_or(0.0);
    if f.is_infinite() {
        f64::MAX.copysign(f)
    } else {
        f
    }
}

/// Largest decimal-point position MySQL's my_gcvt still prints in fixed notation
/// (its MAX_DECPT_FOR_F_FORMAT, DBL_DIG).
const FIXED_DECPT_MAX: i32 = 15;

/// Formats a DOUBLE as MySQL does (my_gcvt): shortest round-trip digits, no trailing
/// ".0"; fixed notation when 1e-15 <= |d| and the integer part has at most 15 digits
/// (or digits after the point), else scientific ("1e20", "1.5e-16").
pub fn format_double(d: f64) -> String {
    if d.is_nan() || d.is_infinite() {
        return "NULL".into();
    }
    if d == 0.0 {
        return "0".into();
    }
    let sci = format!("{d:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits = mantissa.trim_start_matches('-').replace('.', "").len() as i32;
    // d = 0.DIGITS × 10^decpt
    let decpt = exp.parse::<i32>().unwrap_or(0) + 1;
    if decpt > -FIXED_DECPT_MAX && (decpt <= FIXED_DECPT_MAX || digits > decpt) {
        format!("{d}")
    } else {
        sci
    }
}

/// A FLOAT (single-precision) column's value as MySQL prints it: rounded to 6
/// significant digits (FLT_DIG), in `format_double`'s notation — a FLOAT holding 1.1
/// prints `1.1` (not the double 1.100000023841858), one holding 123456789 prints
/// `123457000`.
pub fn format_float(d: f64) -> String {
    if !d.is_finite() {
        return format_double(d);
    }
    let rounded: f64 = format!("{:.5e}", d as f32).parse().unwrap_or(d);
    format_double(rounded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leading_numbers() {
        assert_eq!(leading_f64(b"12abc"), 12.0);
        assert_eq!(leading_f64(b"  -1.5e2x"), -150.0);
        assert_eq!(leading_f64(b"abc"), 0.0);
        assert_eq!(leading_f64(b"1e"), 1.0);
    }

    #[test]
    fn float_format() {
        assert_eq!(format_float(1.1f32 as f64), "1.1");
        assert_eq!(format_float(3.4e38f32 as f64), "3.4e38");
        assert_eq!(format_float(0.1f32 as f64), "0.1");
        assert_eq!(format_float(1e15f32 as f64), "1e15");
        assert_eq!(format_float(-2.5), "-2.5");
        assert_eq!(format_float(123456789.0), "123457000");
        assert_eq!(format_float(16777217.0), "16777200");
        assert_eq!(format_float(1234.5678), "1234.57");
        assert_eq!(format_float(0.0001234567), "0.000123457");
        assert_eq!(format_float(0.0), "0");
    }

    #[test]
    fn double_format() {
        assert_eq!(format_double(0.5), "0.5");
        assert_eq!(format_double(3.0), "3");
        assert_eq!(format_double(1e20), "1e20");
        assert_eq!(format_double(-2.5e-7), "-0.00000025");
        assert_eq!(format_double(1.5e-15), "0.0000000000000015");
        assert_eq!(format_double(1.5e-16), "1.5e-16");
        assert_eq!(format_double(1e15), "1e15");
        assert_eq!(format_double(999999999999999.0), "999999999999999");
        assert_eq!(format_double(1.2345e16), "1.2345e16");
    }
}
