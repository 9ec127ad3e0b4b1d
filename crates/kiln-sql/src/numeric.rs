//! Numeric conversions for storing into DECIMAL columns (exact, with kiln-types'
//! `Decimal`).

use kiln_types::decimal::{Decimal, Fit};

use crate::value::Value;

/// `v` as an exact decimal (strings by MySQL's leading-number rule).
pub fn to_decimal(v: &Value) -> Decimal {
    match v {
        Value::Int(i) => Decimal::from_i64(*i),
        Value::UInt(u) => Decimal::from_u64(*u),
        Value::Double(d) => Decimal::from_f64(*d).unwrap_or_else(Decimal::zero),
        Value::Decimal(s) | Value::Str(s) => Decimal::parse_prefix(s.as_bytes())
            .0
            .unwrap_or_else(Decimal::zero),
        Value::Bytes(b) => Decimal::parse_prefix(b).0.unwrap_or_else(Decimal::zero),
        Value::Null => Decimal::zero(),
    }
}

/// `v` as DECIMAL(precision, scale) text, rounded half away from zero; true if it
/// was out of range (the text is then the clamped extreme).
pub fn fit_decimal(v: &Value, precision: u32, scale: u32, unsigned: bool) -> (String, bool) {
    let d = to_decimal(v);
    if unsigned && d.is_negative() && !d.is_zero() {
        return (Decimal::zero().fit(precision, scale).0.to_string(), true);
    }
    let (fitted, how) = d.fit(precision, scale);
    (fitted.to_string(), how == Fit::OutOfRange)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_exactly() {
        let f = |v: Value| fit_decimal(&v, 5, 2, false);
        assert_eq!(f(Value::Str("123.456".into())), ("123.46".into(), false));
        assert_eq!(f(Value::Int(12345)), ("999.99".into(), true));
        assert_eq!(f(Value::Int(-12345)), ("-999.99".into(), true));
        assert_eq!(f(Value::Decimal("0.005".into())), ("0.01".into(), false));
        assert_eq!(
            fit_decimal(
                &Value::Str("12345678901234567890.123456789".into()),
                30,
                9,
                false
            ),
            ("12345678901234567890.123456789".into(), false)
        );
        assert_eq!(
            fit_decimal(&Value::Int(-1), 5, 2, true),
            ("0.00".into(), true)
        );
    }
}
