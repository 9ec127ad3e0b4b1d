//! The types of a UNION's result columns. MySQL aggregates the parts' column types:
//! integers widen to the largest integer type, integers and DECIMALs make a DECIMAL
//! with the largest scale, a FLOAT / DOUBLE among numbers makes DOUBLE, and any other
//! mix is text. Every part's values are then converted to the column's type, so
//! `SELECT 1 UNION SELECT 2.25` gives 1.00 and 2.25, and UNION DISTINCT sees 1 and
//! 1.0 as one row.

use crate::numeric::to_decimal;
use crate::result::{ColumnInfo, ColumnKind};
use crate::value::Value;

/// Rank of an integer kind (None: not an integer).
fn int_rank(k: ColumnKind) -> Option<u8> {
    use ColumnKind::*;
    Some(match k {
        Tiny => 1,
        Short => 2,
        Int24 => 3,
        Long => 4,
        LongLong => 5,
        _ => return None,
    })
}

fn is_float(k: ColumnKind) -> bool {
    matches!(k, ColumnKind::Float | ColumnKind::Double)
}

fn is_number(k: ColumnKind) -> bool {
    int_rank(k).is_some() || is_float(k) || k == ColumnKind::NewDecimal
}

/// Folds the next part's column `m` into the result column `c`.
pub fn merge(c: &mut ColumnInfo, m: &ColumnInfo) {
    use ColumnKind::*;
    c.length_chars = c.length_chars.max(m.length_chars);
    c.not_null &= m.not_null;
    if m.kind == Null {
        return;
    }
    if c.kind == Null {
        c.kind = m.kind;
        c.binary = m.binary;
        c.decimals = m.decimals;
        c.unsigned = m.unsigned;
        return;
    }
    if c.kind == m.kind {
        if c.kind == NewDecimal {
            c.decimals = c.decimals.max(m.decimals);
        }
        c.unsigned &= m.unsigned;
        return;
    }
    if is_number(c.kind) && is_number(m.kind) {
        c.unsigned &= m.unsigned;
        if let (Some(a), Some(b)) = (int_rank(c.kind), int_rank(m.kind)) {
            if b > a {
                c.kind = m.kind;
            }
        } else if is_float(c.kind) || is_float(m.kind) {
            c.kind = Double;
            c.decimals = 31;
        } else {
            c.kind = NewDecimal;
            c.decimals = c.decimals.max(m.decimals);
        }
        return;
    }
    c.kind = VarString;
    c.binary = c.binary && m.binary;
    c.decimals = 31;
    c.unsigned = false;
}

/// Converts the values of DECIMAL and DOUBLE result columns to the column's type.
pub fn convert(columns: &[ColumnInfo], rows: &mut [Vec<Value>]) {
    for (i, c) in columns.iter().enumerate() {
        let to: fn(&Value, u8) -> Value = match c.kind {
            ColumnKind::NewDecimal => |v, scale| match to_decimal(v).round(i32::from(scale)) {
                Ok(d) => Value::Decimal(d.to_string()),
                Err(_) => v.clone(),
            },
            ColumnKind::Double => |v, _| match v {
                Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => {
                    Value::Double(v.to_f64().unwrap_or(0.0))
                }
                other => other.clone(),
            },
            _ => continue,
        };
        for r in rows.iter_mut() {
            if !r[i].is_null() {
                r[i] = to(&r[i], c.decimals);
            }
        }
    }
}
