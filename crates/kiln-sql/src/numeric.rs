//! Numeric conversions for storing into DECIMAL columns.

use crate::value::Value;

/// `v` as DECIMAL(precision, scale) text, rounded half away from zero; true if it
/// was out of range (the text is then the clamped extreme).
pub fn fit_decimal(v: &Value, precision: u32, scale: u32, unsigned: bool) -> (String, bool) {
    let d = v.to_f64().unwrap_or(0.0);
    let int_digits = precision.saturating_sub(scale) as i32;
    let max = 10f64.powi(int_digits) - 10f64.powi(-(scale as i32));
    let (d, out) = if d > max {
        (max, true)
    } else if d < -max {
        (-max, true)
    } else if unsigned && d < 0.0 {
        (0.0, true)
    } else {
        (d, false)
    };
    let s = format!("{:.*}", scale as usize, d);
    let s = if s.starts_with('-') && s[1..].bytes().all(|c| c == b'0' || c == b'.') {
        s[1..].to_string()
    } else {
        s
    };
    (s, out)
}
