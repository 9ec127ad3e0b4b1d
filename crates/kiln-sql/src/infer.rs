//! Static result-type inference for expression columns, used where no values exist
//! yet: COM_STMT_PREPARE's column definitions and empty result sets.

use crate::ast::{BinaryOp, CastType, Expr};
use crate::result::{ColumnInfo, ColumnKind};
use crate::value::Value;

pub fn column_for(name: &str, e: &Expr) -> ColumnInfo {
    let kind = kind_of(e);
    let mut c = ColumnInfo::new(name, kind);
    c.length_chars = match kind {
        ColumnKind::LongLong => 21,
        ColumnKind::Double => 23,
        ColumnKind::NewDecimal => 67,
        ColumnKind::Null => 0,
        _ => 255,
    };
    c.decimals = match kind {
        ColumnKind::Double | ColumnKind::VarString => 31,
        _ => 0,
    };
    c
}

fn kind_of(e: &Expr) -> ColumnKind {
    kind_of_plain(e)
}

/// The kind of a result column of expression `e` whose slots have the kinds `slot`
/// gives; VarString when it cannot be known here (the caller then goes by the
/// values). MySQL derives a column's type from the expression, not from the values:
/// `SELECT 1 IN (NULL)` is BIGINT even though NULL.
pub fn kind_with(e: &Expr, slot: &dyn Fn(usize) -> Option<ColumnKind>) -> ColumnKind {
    kind_opt(e, slot).unwrap_or(ColumnKind::VarString)
}

/// A negative integer constant (MySQL types its negation as DECIMAL: it could
/// overflow BIGINT).
fn negative_int_constant(e: &Expr) -> bool {
    match e {
        Expr::Literal(Value::Int(i)) => *i < 0,
        Expr::Cast {
            expr,
            to: CastType::Signed,
        } => negative_int_constant(expr),
        Expr::Func { name, args } if name == "nullif" || name == "coalesce" || name == "ifnull" => {
            args.first().is_some_and(negative_int_constant)
        }
        _ => false,
    }
}

fn kind_opt(e: &Expr, slot: &dyn Fn(usize) -> Option<ColumnKind>) -> Option<ColumnKind> {
    let k = |x: &Expr| kind_opt(x, slot);
    let merge = |kinds: Vec<Option<ColumnKind>>| -> Option<ColumnKind> {
        let mut out = ColumnKind::Null;
        for kd in kinds {
            out = match (out, kd?) {
                (ColumnKind::Null, x) | (x, ColumnKind::Null) => x,
                (a, b) if a == b => a,
                (a, b) if is_int(a) && is_int(b) => ColumnKind::LongLong,
                (a, b) if is_exact(a) && is_exact(b) => ColumnKind::NewDecimal,
                (a, b) if is_numeric(a) && is_numeric(b) => ColumnKind::Double,
                _ => ColumnKind::VarString,
            };
        }
        Some(out)
    };
    Some(match e {
        Expr::Slot(i) => slot(*i)?,
        Expr::Literal(v) => match v {
            Value::Null => ColumnKind::Null,
            Value::Int(_) | Value::UInt(_) => ColumnKind::LongLong,
            Value::Double(_) => ColumnKind::Double,
            Value::Decimal(_) => ColumnKind::NewDecimal,
            Value::Str(_) | Value::Bytes(_) => ColumnKind::VarString,
        },
        Expr::IsNull { .. }
        | Expr::IsBool { .. }
        | Expr::Between { .. }
        | Expr::InList { .. }
        | Expr::InSubquery { .. }
        | Expr::Exists(_)
        | Expr::Like { .. } => ColumnKind::LongLong,
        Expr::Cast { to, .. } => match to {
            CastType::Signed | CastType::Unsigned => ColumnKind::LongLong,
            CastType::Decimal(..) => ColumnKind::NewDecimal,
            CastType::Double => ColumnKind::Double,
            CastType::Char(_) | CastType::Binary(_) => ColumnKind::VarString,
            CastType::Date => ColumnKind::Date,
            CastType::DateTime(_) => ColumnKind::DateTime,
            CastType::Time(_) => ColumnKind::Time,
        },
        Expr::Case {
            whens, otherwise, ..
        } => {
            let mut v: Vec<Option<ColumnKind>> = whens.iter().map(|(_, t)| k(t)).collect();
            v.push(match otherwise {
                Some(o) => k(o),
                None => Some(ColumnKind::Null),
            });
            merge(v)?
        }
        Expr::Func { name, args } => {
            let base = name.strip_suffix(" distinct").unwrap_or(name);
            match base {
                "coalesce" | "ifnull" | "greatest" | "least" => {
                    merge(args.iter().map(k).collect())?
                }
                "if" if args.len() == 3 => merge(vec![k(&args[1]), k(&args[2])])?,
                "nullif" if !args.is_empty() => k(&args[0])?,
                "count" | "bit_and" | "bit_or" | "bit_xor" => ColumnKind::LongLong,
                "sum" if !args.is_empty() => match k(&args[0])? {
                    x if is_exact(x) || x == ColumnKind::Null => ColumnKind::NewDecimal,
                    x if is_numeric(x) => ColumnKind::Double,
                    _ => ColumnKind::Double,
                },
                "avg" if !args.is_empty() => match k(&args[0])? {
                    x if is_exact(x) || x == ColumnKind::Null => ColumnKind::NewDecimal,
                    _ => ColumnKind::Double,
                },
                "min" | "max" | "any_value" if !args.is_empty() => k(&args[0])?,
                "std" | "stddev" | "stddev_pop" | "stddev_samp" | "variance" | "var_pop"
                | "var_samp" => ColumnKind::Double,
                "abs" if !args.is_empty() => match k(&args[0])? {
                    x if is_numeric(x) || x == ColumnKind::Null => x,
                    _ => return None,
                },
                _ => match kind_of_plain(e) {
                    ColumnKind::VarString => return None,
                    x => x,
                },
            }
        }
        Expr::Unary {
            op: crate::ast::UnaryOp::Neg,
            expr,
        } if negative_int_constant(expr) => ColumnKind::NewDecimal,
        Expr::Unary {
            op: crate::ast::UnaryOp::Not,
            ..
        } => ColumnKind::LongLong,
        Expr::Unary { expr, .. } => match k(expr)? {
            ColumnKind::Null => ColumnKind::Null,
            x if is_int(x) => ColumnKind::LongLong,
            x if is_numeric(x) => x,
            // -datetime, -'text': a number whose kind the values tell.
            _ => return None,
        },
        Expr::Binary { op, left, right } => match op {
            BinaryOp::Div => {
                let (a, b) = (k(left)?, k(right)?);
                if is_exact(a) && is_exact(b)
                    || (a == ColumnKind::Null && is_exact(b))
                    || (b == ColumnKind::Null && is_exact(a))
                    || (a == ColumnKind::Null && b == ColumnKind::Null)
                {
                    ColumnKind::NewDecimal
                } else {
                    ColumnKind::Double
                }
            }
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Mod => {
                let (a, b) = (k(left)?, k(right)?);
                let a = if a == ColumnKind::Null { b } else { a };
                let b = if b == ColumnKind::Null { a } else { b };
                if a == ColumnKind::Null {
                    ColumnKind::Null
                } else if is_int(a) && is_int(b) {
                    ColumnKind::LongLong
                } else if is_exact(a) && is_exact(b) {
                    ColumnKind::NewDecimal
                } else {
                    ColumnKind::Double
                }
            }
            _ => ColumnKind::LongLong,
        },
        _ => return None,
    })
}

fn is_int(k: ColumnKind) -> bool {
    matches!(
        k,
        ColumnKind::Tiny
            | ColumnKind::Short
            | ColumnKind::Int24
            | ColumnKind::Long
            | ColumnKind::LongLong
            | ColumnKind::Year
            | ColumnKind::Bit
    )
}

fn is_exact(k: ColumnKind) -> bool {
    is_int(k) || k == ColumnKind::NewDecimal
}

fn is_numeric(k: ColumnKind) -> bool {
    is_exact(k) || matches!(k, ColumnKind::Float | ColumnKind::Double)
}

fn kind_of_plain(e: &Expr) -> ColumnKind {
    match e {
        Expr::Literal(v) => match v {
            Value::Null => ColumnKind::Null,
            Value::Int(_) | Value::UInt(_) => ColumnKind::LongLong,
            Value::Double(_) => ColumnKind::Double,
            Value::Decimal(_) => ColumnKind::NewDecimal,
            Value::Str(_) | Value::Bytes(_) => ColumnKind::VarString,
        },
        Expr::IsNull { .. }
        | Expr::IsBool { .. }
        | Expr::Between { .. }
        | Expr::InList { .. }
        | Expr::Like { .. } => ColumnKind::LongLong,
        Expr::Binary { op, left, right } => match op {
            BinaryOp::Div => {
                if matches!(kind_of(left), ColumnKind::Double | ColumnKind::VarString)
                    || matches!(kind_of(right), ColumnKind::Double | ColumnKind::VarString)
                {
                    ColumnKind::Double
                } else {
                    ColumnKind::NewDecimal
                }
            }
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Mod => {
                match (kind_of(left), kind_of(right)) {
                    (ColumnKind::LongLong, ColumnKind::LongLong) => ColumnKind::LongLong,
                    (ColumnKind::Double | ColumnKind::VarString, _)
                    | (_, ColumnKind::Double | ColumnKind::VarString) => ColumnKind::Double,
                    _ => ColumnKind::NewDecimal,
                }
            }
            _ => ColumnKind::LongLong,
        },
        Expr::Unary { expr, .. } => kind_of(expr),
        Expr::Func { name, .. } => match name.as_str() {
            "connection_id" | "last_insert_id" | "row_count" | "found_rows" | "length"
            | "char_length" | "sleep" | "unix_timestamp" | "isnull" | "strcmp" | "sign" => {
                ColumnKind::LongLong
            }
            "rand" | "pi" | "sqrt" | "exp" | "ln" | "log" | "log10" | "log2" | "pow" | "power" => {
                ColumnKind::Double
            }
            _ => ColumnKind::VarString,
        },
        _ => ColumnKind::VarString,
    }
}
