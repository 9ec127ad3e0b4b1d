//! Numeric functions whose exactness matters: ROUND / TRUNCATE (DECIMAL exactly via
//! kiln-types' `Decimal`, half away from zero; DOUBLE to nearest even as MySQL's
//! rint; integers with negative places), FLOOR / CEILING, GREATEST / LEAST with
//! MySQL's result type (DOUBLE if any argument is, else DECIMAL at the widest scale),
//! and PI() (shown with six decimals, as MySQL prints it).

use kiln_common::Result;
use kiln_types::decimal::Decimal;

use crate::eval::{Env, compare};
use crate::numeric::to_decimal;
use crate::value::Value;

fn pow10(n: u32) -> i128 {
    10i128.pow(n.min(38))
}

/// ROUND / TRUNCATE of an integer at `d` places (only negative `d` changes it).
fn round_int(x: i128, d: i64, truncate: bool) -> i128 {
    if d >= 0 {
        return x;
    }
    let m = pow10(d.unsigned_abs().min(38) as u32);
    if m > u64::MAX as i128 * 10 {
        return 0;
    }
    let q = x / m;
    let r = x % m;
    let q = if !truncate && r.abs() * 2 >= m {
        q + x.signum()
    } else {
        q
    };
    q * m
}

fn round_double(f: f64, d: i64, truncate: bool) -> f64 {
    let op = |x: f64| {
        if truncate {
            x.trunc()
        } else {
            x.round_ties_even()
        }
    };
    if d >= 0 {
        let m = 10f64.powi(d.min(308) as i32);
        let t = f * m;
        if !t.is_finite() {
            return f;
        }
        op(t) / m
    } else {
        let m = 10f64.powi((-d).min(308) as i32);
        op(f / m) * m
    }
}

fn int_value(r: i128, unsigned: bool) -> Value {
    if unsigned && r >= 0 && r <= u64::MAX as i128 {
        Value::UInt(r as u64)
    } else if r >= i64::MIN as i128 && r <= i64::MAX as i128 {
        Value::Int(r as i64)
    } else {
        Value::Decimal(r.to_string())
    }
}

fn scale_of(v: &Value) -> u32 {
    match v {
        Value::Decimal(s) => s.split_once('.').map_or(0, |(_, f)| f.len() as u32),
        _ => 0,
    }
}

pub fn call(name: &str, v: &[Value], env: &mut dyn Env) -> Result<Option<Value>> {
    let _ = &env;
    let argc = v.len();
    let arity = match name {
        "round" => (1, 2),
        "truncate" => (2, 2),
        "floor" | "ceil" | "ceiling" => (1, 1),
        "pi" => (0, 0),
        "greatest" | "least" => (2, usize::MAX),
        _ => return Ok(None),
    };
    super::check_arity(name, argc, arity.0, arity.1)?;
    if v.iter().any(Value::is_null) {
        return Ok(Some(Value::Null));
    }
    Ok(Some(match name {
        "pi" => Value::Decimal("3.141593".into()),
        "round" | "truncate" => {
            let truncate = name == "truncate";
            let d = if argc == 2 {
                v[1].to_i64().unwrap_or(0).clamp(-100, 100)
            } else {
                0
            };
            match &v[0] {
                Value::Int(i) => int_value(round_int(i128::from(*i), d, truncate), false),
                Value::UInt(u) => int_value(round_int(i128::from(*u), d, truncate), true),
                Value::Decimal(_) => {
                    let x = to_decimal(&v[0]);
                    let r = if truncate {
                        x.truncate(d as i32)
                    } else {
                        x.round(d as i32).unwrap_or(x)
                    };
                    Value::Decimal(r.to_string())
                }
                other => Value::Double(round_double(other.to_f64().unwrap_or(0.0), d, truncate)),
            }
        }
        "floor" | "ceil" | "ceiling" => match &v[0] {
            Value::Int(_) | Value::UInt(_) => v[0].clone(),
            Value::Decimal(_) => {
                let x = to_decimal(&v[0]);
                let r: Decimal = if name == "floor" { x.floor() } else { x.ceil() };
                match r.to_i64() {
                    Some(i) => Value::Int(i),
                    None => Value::Decimal(r.to_string()),
                }
            }
            other => {
                let f = other.to_f64().unwrap_or(0.0);
                Value::Double(if name == "floor" { f.floor() } else { f.ceil() })
            }
        },
        "greatest" | "least" => {
            let mut best = &v[0];
            for x in &v[1..] {
                let o = compare(x, best);
                let better = if name == "greatest" {
                    o == Some(std::cmp::Ordering::Greater)
                } else {
                    o == Some(std::cmp::Ordering::Less)
                };
                if better {
                    best = x;
                }
            }
            let any = |f: fn(&Value) -> bool| v.iter().any(f);
            if any(|x| matches!(x, Value::Str(_) | Value::Bytes(_))) {
                best.clone()
            } else if any(|x| matches!(x, Value::Double(_))) {
                Value::Double(best.to_f64().unwrap_or(0.0))
            } else if any(|x| matches!(x, Value::Decimal(_))) {
                let scale = v.iter().map(scale_of).max().unwrap_or(0);
                let d = to_decimal(best);
                let digits = d.to_string().trim_start_matches('-').len() as u32;
                Value::Decimal(d.fit((digits + scale).min(65), scale).0.to_string())
            } else {
                best.clone()
            }
        }
        _ => return Ok(None),
    }))
}

#[cfg(test)]
mod tests {
    use super::super::testenv::q;

    #[test]
    fn branch_types_and_truth_warnings() {
        use super::super::testenv::q_warn;
        let (v, w) = q_warn(
            "SELECT IF(0, 1.5, 2), IFNULL(2, 1.5), IF('abc', 1, 0), 'a' IS TRUE, CAST(2.5e0 AS SIGNED)",
        );
        assert_eq!(v, ["2.0", "2.0", "0", "0", "2"]);
        assert_eq!(w, [1292, 1292]);
    }

    #[test]
    fn rounding() {
        assert_eq!(
            q(
                "SELECT ROUND(2.5), ROUND(-2.5), ROUND(2.45, 1), ROUND(1.005, 2), ROUND(-1.005, 2), \
               ROUND(2.5e0), ROUND(3.5e0), ROUND(-2.5e0), ROUND(1.25e0, 1), TRUNCATE(1.99e0, 1), \
               ROUND(1250, -2), ROUND(-1250, -2), TRUNCATE(1999, -2), ROUND(1234.5678, -2), PI()"
            ),
            [
                "3", "-3", "2.5", "1.01", "-1.01", "2", "4", "-2", "1.2", "1.9", "1300", "-1300",
                "1900", "1200", "3.141593"
            ]
        );
        assert_eq!(
            q(
                "SELECT LEAST(3.5, 1, 2), GREATEST(3, 1, 2), FLOOR(-0.5), CEIL(-0.5), GREATEST(1, 2e0)"
            ),
            ["1.0", "3", "-1", "0", "2"]
        );
    }
}
