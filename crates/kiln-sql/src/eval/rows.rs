//! Row constructors and quantified comparisons, with MySQL's NULL rules:
//!
//! * a row subquery `(SELECT x, y ...)` is a row constructor of its one row;
//! * `(a, b) = (x, y)` is true when every pair is equal, false when some pair differs,
//!   else NULL; `<>` is its negation; `<=>` compares pairs with `<=>`;
//! * `(a, b) < (x, y)` is lexicographic: the first pair that is not equal decides, a
//!   NULL met before that makes the result NULL (likewise `<=`, `>`, `>=`);
//! * `(a, b) IN ((x, y), ...)` / `IN (SELECT x, y ...)`: true if a row is equal, else
//!   NULL if a comparison was NULL, else false;
//! * `v op ANY (SELECT ...)`: true if a comparison is true, else NULL if one was NULL,
//!   else false (an empty subquery: false); `v op ALL (...)`: false if a comparison is
//!   false, else NULL if one was NULL, else true (an empty subquery: true).
//!
//! Operands whose column counts differ are 1241 ("Operand should contain N column(s)"),
//! as is a row used where one value is expected.

use kiln_common::{ErrorKind, KilnError, Result};

use super::{Env, bool_value, compare_env, eval, ordering_holds};
use crate::ast::{BinaryOp, Expr, Quantified, Select};
use crate::value::Value;

/// An evaluated operand: one value or a row of operands.
#[derive(Debug, Clone)]
enum Operand {
    One(Value),
    Row(Vec<Operand>),
}

impl Operand {
    fn width(&self) -> usize {
        match self {
            Operand::One(_) => 1,
            Operand::Row(r) => r.len(),
        }
    }

    /// A result row of a subquery as an operand of `width` columns.
    fn of_row(row: &[Value]) -> Operand {
        match row {
            [v] => Operand::One(v.clone()),
            _ => Operand::Row(row.iter().cloned().map(Operand::One).collect()),
        }
    }
}

/// Column count of an expression (a row constructor's items, else 1).
pub fn width(e: &Expr) -> usize {
    match e {
        Expr::Row(items) => items.len(),
        _ => 1,
    }
}

fn operand_columns(n: usize) -> KilnError {
    KilnError::new(ErrorKind::ER_OPERAND_COLUMNS, &[&n])
}

fn operand(e: &Expr, env: &mut dyn Env) -> Result<Operand> {
    match e {
        Expr::Row(items) => Ok(Operand::Row(
            items
                .iter()
                .map(|x| operand(x, env))
                .collect::<Result<_>>()?,
        )),
        // A correlated row subquery: its one row (NULLs when it has none).
        Expr::Subquery(sel) => {
            let rows = env.subquery(sel)?;
            if rows.rows.len() > 1 {
                return Err(ErrorKind::ER_SUBQUERY_NO_1_ROW.into());
            }
            let width = rows.columns.len();
            let row = rows
                .rows
                .into_iter()
                .next()
                .unwrap_or_else(|| vec![Value::Null; width]);
            Ok(Operand::of_row(&row))
        }
        _ => Ok(Operand::One(eval(e, env)?)),
    }
}

/// `a op b` where either side is a row constructor.
pub fn compare_rows(op: BinaryOp, left: &Expr, right: &Expr, env: &mut dyn Env) -> Result<Value> {
    let a = operand(left, env)?;
    let b = operand(right, env)?;
    Ok(truth_value(compare_operands(op, &a, &b, env)?))
}

fn truth_value(t: Option<bool>) -> Value {
    t.map_or(Value::Null, bool_value)
}

/// `a op b` for a comparison operator: Some(truth) or None for NULL.
fn compare_operands(op: BinaryOp, a: &Operand, b: &Operand, env: &dyn Env) -> Result<Option<bool>> {
    use BinaryOp::*;
    let (x, y) = match (a, b) {
        (Operand::One(x), Operand::One(y)) => return Ok(compare_values(op, x, y, env)),
        (Operand::Row(x), Operand::Row(y)) if x.len() == y.len() => (x, y),
        (Operand::Row(x), _) => return Err(operand_columns(x.len())),
        (_, Operand::Row(_)) => return Err(operand_columns(1)),
    };
    match op {
        Eq | Ne => {
            // Equal when every pair is; a differing pair decides even after a NULL.
            let mut saw_null = false;
            for (p, q) in x.iter().zip(y) {
                match compare_operands(Eq, p, q, env)? {
                    Some(false) => return Ok(Some(op == Ne)),
                    None => saw_null = true,
                    Some(true) => {}
                }
            }
            Ok(if saw_null { None } else { Some(op == Eq) })
        }
        NullSafeEq => {
            for (p, q) in x.iter().zip(y) {
                if compare_operands(NullSafeEq, p, q, env)? != Some(true) {
                    return Ok(Some(false));
                }
            }
            Ok(Some(true))
        }
        _ => {
            // Lexicographic: the first pair that is not equal decides.
            for (p, q) in x.iter().zip(y) {
                match compare_operands(Eq, p, q, env)? {
                    None => return Ok(None),
                    Some(true) => {}
                    Some(false) => return compare_operands(op, p, q, env),
                }
            }
            Ok(Some(matches!(op, Le | Ge)))
        }
    }
}

/// Compares two values as the scalar comparison does: strings under the connection
/// collation (a row constructor's items carry no column collation here).
fn compare_values(op: BinaryOp, x: &Value, y: &Value, env: &dyn Env) -> Option<bool> {
    use BinaryOp::*;
    if op == NullSafeEq {
        return Some(match (x.is_null(), y.is_null()) {
            (true, true) => true,
            (false, false) => compare_env(x, y, None, env) == Some(std::cmp::Ordering::Equal),
            _ => false,
        });
    }
    Some(ordering_holds(op, compare_env(x, y, None, env)?))
}

/// `expr [NOT] IN (list)` where the operand or an item is a row constructor.
pub fn in_list(expr: &Expr, list: &[Expr], negated: bool, env: &mut dyn Env) -> Result<Value> {
    let v = operand(expr, env)?;
    let mut items = Vec::with_capacity(list.len());
    for item in list {
        items.push(operand(item, env)?);
    }
    Ok(truth_value(
        any_equal(&v, &items, env)?.map(|t| t != negated),
    ))
}

/// Whether `v` equals one of `items`: Some(true), Some(false), or None (NULL).
fn any_equal(v: &Operand, items: &[Operand], env: &dyn Env) -> Result<Option<bool>> {
    let mut saw_null = false;
    for item in items {
        if item.width() != v.width() {
            return Err(operand_columns(v.width()));
        }
        match compare_operands(BinaryOp::Eq, v, item, env)? {
            Some(true) => return Ok(Some(true)),
            None => saw_null = true,
            Some(false) => {}
        }
    }
    Ok(if saw_null { None } else { Some(false) })
}

/// The rows of a subquery compared with an operand of `width` columns (1241 when the
/// subquery has another column count).
fn subquery_rows(sel: &Select, width: usize, env: &mut dyn Env) -> Result<Vec<Vec<Value>>> {
    let rows = env.subquery(sel)?;
    if rows.columns.len() != width {
        return Err(operand_columns(width));
    }
    Ok(rows.rows)
}

/// `(a, b) [NOT] IN (SELECT x, y ...)` run per row (correlated).
pub fn in_subquery(expr: &Expr, sel: &Select, negated: bool, env: &mut dyn Env) -> Result<Value> {
    let v = operand(expr, env)?;
    let rows = subquery_rows(sel, v.width(), env)?;
    if rows.is_empty() {
        return Ok(bool_value(negated));
    }
    let items: Vec<Operand> = rows.iter().map(|r| Operand::of_row(r)).collect();
    Ok(truth_value(
        any_equal(&v, &items, env)?.map(|t| t != negated),
    ))
}

/// `expr op ANY|ALL (subquery)`, over `q.rows` when the subquery has already run.
pub fn quantified(q: &Quantified, env: &mut dyn Env) -> Result<Value> {
    let (op, all) = (q.op, q.all);
    let v = operand(&q.expr, env)?;
    let owned;
    let rows = match &q.rows {
        Some(r) => r,
        None => {
            owned = subquery_rows(&q.select, v.width(), env)?;
            &owned
        }
    };
    // ALL looks for a false comparison, ANY for a true one.
    let decisive = !all;
    let mut saw_null = false;
    for r in rows {
        let item = Operand::of_row(r);
        if item.width() != v.width() {
            return Err(operand_columns(v.width()));
        }
        match compare_operands(op, &v, &item, env)? {
            Some(t) if t == decisive => return Ok(bool_value(decisive)),
            None => saw_null = true,
            Some(_) => {}
        }
    }
    Ok(if saw_null {
        Value::Null
    } else {
        bool_value(!decisive)
    })
}
