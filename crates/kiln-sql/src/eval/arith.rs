//! Arithmetic operators (+ - * / DIV % MOD) with MySQL's type rules: integers in
//! BIGINT / BIGINT UNSIGNED with overflow error 1690; exact DECIMAL through kiln-types'
//! `Decimal` (scale max(sa, sb) for + and -, sa + sb for *, sa +
//! div_precision_increment for /); DOUBLE when an operand is a double or a string.
//! Strings that are not wholly numbers warn 1292 "Truncated incorrect DOUBLE value".
//! Division by zero is NULL with warning 1365.

use kiln_common::Result;
use kiln_types::decimal::{Decimal, DecimalError};

use super::{Env, Level, out_of_range};
use crate::ast::{BinaryOp, Expr, UnaryOp};
use crate::numeric::to_decimal;
use crate::value::Value;

/// Whether a value takes part in arithmetic as an approximate (DOUBLE) number.
pub(crate) fn is_approx(v: &Value) -> bool {
    matches!(v, Value::Double(_) | Value::Str(_) | Value::Bytes(_))
}

fn as_i128(v: &Value) -> i128 {
    match v {
        Value::Int(i) => *i as i128,
        Value::UInt(u) => *u as i128,
        _ => 0,
    }
}

fn is_int(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::UInt(_))
}

/// Warns about a string operand that is not wholly a number ('12abc', '', 'x').
pub(crate) fn warn_string_number(v: &Value, env: &mut dyn Env) {
    if let Value::Str(_) | Value::Bytes(_) = v {
        let s = v.to_string_lossy().unwrap_or_default();
        if !crate::functions::cast::is_whole_number(&s) {
            env.warn(
                Level::Warning,
                1292,
                format!("Truncated incorrect DOUBLE value: '{s}'"),
            );
        }
    }
}

fn int_result(r: i128, unsigned: bool, text: &dyn Fn() -> String) -> Result<Value> {
    if unsigned {
        if r < 0 || r > u64::MAX as i128 {
            return Err(out_of_range("BIGINT UNSIGNED", &text()));
        }
        Ok(Value::UInt(r as u64))
    } else {
        if r < i64::MIN as i128 || r > i64::MAX as i128 {
            return Err(out_of_range("BIGINT", &text()));
        }
        Ok(Value::Int(r as i64))
    }
}

fn decimal_result(
    r: std::result::Result<Decimal, DecimalError>,
    text: &dyn Fn() -> String,
) -> Result<Value> {
    match r {
        Ok(d) => Ok(Value::Decimal(d.to_string())),
        Err(_) => Err(out_of_range("DECIMAL", &text())),
    }
}

fn division_by_zero(env: &mut dyn Env) -> Result<Value> {
    env.warn(Level::Warning, 1365, "Division by 0".into());
    Ok(Value::Null)
}

/// `a op b` for two non-NULL values.
pub(super) fn numeric(
    op: BinaryOp,
    a: &Value,
    b: &Value,
    env: &mut dyn Env,
    text: &dyn Fn() -> String,
) -> Result<Value> {
    use BinaryOp::*;
    warn_string_number(a, env);
    warn_string_number(b, env);
    let approx = is_approx(a) || is_approx(b);
    if matches!(op, Div | IntDiv | Mod) && b.to_f64().unwrap_or(0.0) == 0.0 {
        let zero = if approx {
            true
        } else {
            to_decimal(b).is_zero()
        };
        if zero {
            return division_by_zero(env);
        }
    }
    if approx {
        let x = a.to_f64().unwrap_or(0.0);
        let y = b.to_f64().unwrap_or(0.0);
        let r = match op {
            Add => x + y,
            Sub => x - y,
            Mul => x * y,
            Div => x / y,
            Mod => x % y,
            _ => {
                let q = (x / y).trunc();
                if q.abs() >= 9.223_372_036_854_776e18 {
                    return Err(out_of_range("BIGINT", &text()));
                }
                return Ok(Value::Int(q as i64));
            }
        };
        if !r.is_finite() {
            return Err(out_of_range("DOUBLE", &text()));
        }
        return Ok(Value::Double(r));
    }
    let unsigned = matches!(a, Value::UInt(_)) || matches!(b, Value::UInt(_));
    if is_int(a) && is_int(b) && op != Div {
        // Integer arithmetic: signed unless an operand is unsigned (then the result is
        // unsigned and must not go negative), as MySQL does.
        let (x, y) = (as_i128(a), as_i128(b));
        let r = match op {
            Add => x + y,
            Sub => x - y,
            Mul => x.checked_mul(y).unwrap_or(i128::MAX),
            IntDiv => x / y,
            _ => {
                // MOD: the sign of the dividend; unsigned only when the dividend is.
                return int_result(x % y, matches!(a, Value::UInt(_)) && x % y >= 0, text);
            }
        };
        return int_result(r, unsigned, text);
    }
    let (x, y) = (to_decimal(a), to_decimal(b));
    match op {
        Add => decimal_result(x.add(&y), text),
        Sub => decimal_result(x.sub(&y), text),
        Mul => decimal_result(x.mul(&y), text),
        Div => match x.div(&y, env.div_precision_increment()) {
            Err(DecimalError::DivisionByZero) => division_by_zero(env),
            r => decimal_result(r, text),
        },
        Mod => match x.rem(&y) {
            Err(DecimalError::DivisionByZero) => division_by_zero(env),
            r => decimal_result(r, text),
        },
        _ => {
            let q = match x.div_unrounded(&y, 0) {
                Err(DecimalError::DivisionByZero) => return division_by_zero(env),
                Err(_) => return Err(out_of_range("BIGINT", &text())),
                Ok(q) => q.truncate(0),
            };
            let r: i128 = q.to_string().parse().unwrap_or(i128::MAX);
            int_result(r, unsigned && r >= 0, text)
        }
    }
}

/// Whether `e` is a tree of + - * / and negation over number literals and columns
/// (so its leaves can be evaluated again without side effects), and whether it
/// contains a division.
fn pure_arith(e: &Expr) -> Option<bool> {
    match e {
        Expr::Binary {
            op: op @ (BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div),
            left,
            right,
        } => Some(pure_arith(left)? | pure_arith(right)? | (*op == BinaryOp::Div)),
        Expr::Unary {
            op: UnaryOp::Neg | UnaryOp::Plus,
            expr,
        } => pure_arith(expr),
        Expr::Literal(Value::Int(_) | Value::UInt(_) | Value::Decimal(_))
        | Expr::Slot(_)
        | Expr::Column { .. } => Some(false),
        _ => None,
    }
}

/// A DECIMAL subtree computed exactly (quotients unrounded), with the scale MySQL
/// gives its result. None when a leaf is not an exact number or a divisor is zero
/// (the ordinary path then produces the result and its warnings); Some(None) for NULL.
fn exact(e: &Expr, env: &mut dyn Env) -> Result<Option<Option<(Decimal, u32)>>> {
    Ok(Some(match e {
        Expr::Binary { op, left, right } => return exact_binary(*op, left, right, env),
        Expr::Unary { op, expr } => match exact(expr, env)? {
            Some(Some((d, s))) if *op == UnaryOp::Neg => Some((d.neg(), s)),
            other => return Ok(other),
        },
        leaf => match super::eval(leaf, env)? {
            Value::Null => None,
            v @ (Value::Int(_) | Value::UInt(_) | Value::Decimal(_)) => {
                let d = to_decimal(&v);
                Some((d, d.scale()))
            }
            _ => return Ok(None),
        },
    }))
}

fn exact_binary(
    op: BinaryOp,
    left: &Expr,
    right: &Expr,
    env: &mut dyn Env,
) -> Result<Option<Option<(Decimal, u32)>>> {
    let Some(a) = exact(left, env)? else {
        return Ok(None);
    };
    let Some(b) = exact(right, env)? else {
        return Ok(None);
    };
    let (Some((a, sa)), Some((b, sb))) = (a, b) else {
        return Ok(Some(None));
    };
    let r = match op {
        BinaryOp::Add => a.add(&b).map(|d| (d, sa.max(sb))),
        BinaryOp::Sub => a.sub(&b).map(|d| (d, sa.max(sb))),
        BinaryOp::Mul => a.mul(&b).map(|d| (d, (sa + sb).min(30))),
        _ => {
            if b.is_zero() {
                return Ok(None);
            }
            let inc = env.div_precision_increment();
            a.div_unrounded(&b, inc).map(|d| (d, (sa + inc).min(30)))
        }
    };
    Ok(r.ok().map(Some))
}

/// MySQL carries a quotient into an enclosing DECIMAL expression unrounded and
/// rounds only the final value to the expression's scale: 10 / 3 * 3 is 10.0000.
/// Applies to + - * / trees over exact numbers with a division below the top.
pub(super) fn division_chain(
    op: BinaryOp,
    left: &Expr,
    right: &Expr,
    env: &mut dyn Env,
) -> Result<Option<Value>> {
    if !matches!(
        op,
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div
    ) {
        return Ok(None);
    }
    let (Some(dl), Some(dr)) = (pure_arith(left), pure_arith(right)) else {
        return Ok(None);
    };
    if !(dl || dr) {
        return Ok(None);
    }
    Ok(match exact_binary(op, left, right, env)? {
        None => None,
        Some(None) => Some(Value::Null),
        Some(Some((d, scale))) => match d.round(scale as i32) {
            Ok(r) => Some(Value::Decimal(r.to_string())),
            Err(_) => None,
        },
    })
}

#[cfg(test)]
mod tests {
    use crate::functions::testenv::{q, q_warn};

    #[test]
    fn exact_decimals() {
        assert_eq!(
            q(
                "SELECT 12345678901234567890.123456789 * 1000, 0.000000001 * 0.000000001, \
               9223372036854775807 + 1.0, 18446744073709551615 + 0.5, 1 / 3, 10.5 % 3, \
               18446744073709551615 DIV 3, 7 DIV 2, -7 DIV 2, 7.5 DIV 2"
            ),
            [
                "12345678901234567890123.456789000",
                "0.000000000000000001",
                "9223372036854775808.0",
                "18446744073709551615.5",
                "0.3333",
                "1.5",
                "6148914691236517205",
                "3",
                "-3",
                "3"
            ]
        );
    }

    #[test]
    fn negating_negative_constants_is_decimal() {
        use crate::ast::Stmt;
        use crate::value::Value;
        let p = crate::parse::parse_one(
            "SELECT - - 98, - 98, - CAST(- 42 AS SIGNED)",
            crate::lexer::LexMode::default(),
        )
        .unwrap();
        let Stmt::Select(s) = p.stmt else { panic!() };
        let mut env = crate::functions::testenv::TestEnv::default();
        let v: Vec<Value> = s
            .items
            .iter()
            .map(|i| crate::eval::eval(&i.expr, &mut env).unwrap())
            .collect();
        assert_eq!(
            v,
            [
                Value::Decimal("98".into()),
                Value::Int(-98),
                Value::Decimal("42".into())
            ]
        );
    }

    #[test]
    fn quotients_carry_unrounded() {
        assert_eq!(
            q(
                "SELECT 10 / 3 * 3, 1 / 3 + 1 / 3 + 1 / 3, (1 + 2) / 4 * 2, 10 / 0 * 2, NULL / 2 * 1"
            ),
            ["10.0000", "1.0000", "1.5000", "NULL", "NULL"]
        );
    }

    #[test]
    fn string_operands_warn() {
        let (v, w) = q_warn("SELECT '12abc' + 0, '  12' + 0, 'abc' + 0, 1 / 0");
        assert_eq!(v, ["12", "12", "0", "NULL"]);
        assert_eq!(w, [1292, 1292, 1365]);
    }
}
