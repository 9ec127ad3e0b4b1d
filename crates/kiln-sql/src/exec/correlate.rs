//! Correlated subqueries: a subquery that names columns of the enclosing query runs
//! once per outer row, with those references replaced by the row's values.
//!
//! A reference is outer when it does not name a column of the subquery's own FROM
//! tables (qualified: its qualifier is not one of their aliases) and does name one of
//! the outer scope. Nested subqueries inside are rewritten with the same rule, their
//! own tables added to the inner names.

use kiln_common::Result;

use super::bind::{Scope, rewrite};
use crate::ast::*;
use crate::session::Session;
use crate::value::Value;

/// The subquery's own tables: (alias, column names).
type Inner = [(String, Vec<String>)];
/// Rewrites one expression of the subquery.
type Fixer<'a> = dyn Fn(&mut Session, &Expr, &Inner) -> Result<Expr> + 'a;

/// Aliases and column names of a FROM clause's tables (derived tables: aliases only).
pub(crate) fn inner_names(
    sess: &mut Session,
    from: &[FromItem],
    out: &mut Vec<(String, Vec<String>)>,
) {
    for item in from {
        match item {
            FromItem::Table { name, alias } => {
                let cols = super::select::resolve_table(sess, name)
                    .map(|h| h.def.columns.iter().map(|c| c.name.clone()).collect())
                    .unwrap_or_default();
                out.push((alias.clone().unwrap_or_else(|| name.name.clone()), cols));
            }
            FromItem::Derived { alias, select, .. } => {
                let cols = select.items.iter().map(|i| i.name.clone()).collect();
                out.push((alias.clone(), cols));
            }
            FromItem::Join { left, right, .. } => {
                inner_names(sess, std::slice::from_ref(left), out);
                inner_names(sess, std::slice::from_ref(right), out);
            }
        }
    }
}

/// `sel` with its references to the outer row replaced by the row's values.
pub fn substitute(
    sess: &mut Session,
    sel: &Select,
    outer: &Scope,
    row: &[Value],
) -> Result<Select> {
    let mut inner = Vec::new();
    inner_names(sess, &sel.from, &mut inner);
    let mut out = sel.clone();
    let fix = |sess: &mut Session, e: &Expr, inner: &[(String, Vec<String>)]| -> Result<Expr> {
        fix_expr(sess, e, outer, row, inner)
    };
    for item in &mut out.items {
        item.expr = fix(sess, &item.expr, &inner)?;
    }
    if let Some(f) = &out.filter {
        out.filter = Some(fix(sess, f, &inner)?);
    }
    if let Some(h) = &out.having {
        out.having = Some(fix(sess, h, &inner)?);
    }
    for g in &mut out.group_by {
        *g = fix(sess, g, &inner)?;
    }
    for o in &mut out.order_by {
        o.expr = fix(sess, &o.expr, &inner)?;
    }
    fn fix_joins(
        sess: &mut Session,
        item: &mut FromItem,
        fix: &Fixer<'_>,
        inner: &Inner,
    ) -> Result<()> {
        if let FromItem::Join {
            left, right, on, ..
        } = item
        {
            fix_joins(sess, left, fix, inner)?;
            fix_joins(sess, right, fix, inner)?;
            if let Some(c) = on {
                *on = Some(fix(sess, c, inner)?);
            }
        }
        Ok(())
    }
    for item in &mut out.from {
        fix_joins(sess, item, &fix, &inner)?;
    }
    if let Some((all, next)) = &sel.union {
        out.union = Some((*all, Box::new(substitute(sess, next, outer, row)?)));
    }
    Ok(out)
}

/// One expression of a subquery with the outer row's columns replaced by its values
/// (`inner`: the subquery's own tables, whose names shadow the outer row's).
fn fix_expr(
    sess: &mut Session,
    e: &Expr,
    outer: &Scope,
    row: &[Value],
    inner: &[(String, Vec<String>)],
) -> Result<Expr> {
    rewrite(e, &mut |x| match x {
        Expr::Column { qualifier, name } if name != "*" => {
            let is_inner = match qualifier {
                Some(q) => inner.iter().any(|(a, _)| a == q),
                None => inner
                    .iter()
                    .any(|(_, cols)| cols.iter().any(|c| c.eq_ignore_ascii_case(name))),
            };
            if is_inner {
                return Ok(None);
            }
            match outer.resolve(qualifier.as_deref(), name, "where clause") {
                Ok(slot) => Ok(Some(Expr::Literal(row[slot].clone()))),
                Err(_) => Ok(None),
            }
        }
        Expr::Subquery(s) => Ok(Some(Expr::Subquery(Box::new(nested(
            sess, s, outer, row, inner,
        )?)))),
        Expr::Exists(s) => Ok(Some(Expr::Exists(Box::new(nested(
            sess, s, outer, row, inner,
        )?)))),
        Expr::InSubquery {
            expr,
            select,
            negated,
        } => Ok(Some(Expr::InSubquery {
            expr: Box::new(fix_expr(sess, expr, outer, row, inner)?),
            select: Box::new(nested(sess, select, outer, row, inner)?),
            negated: *negated,
        })),
        Expr::Quantified(q) => Ok(Some(Expr::Quantified(Box::new(Quantified {
            expr: fix_expr(sess, &q.expr, outer, row, inner)?,
            select: nested(sess, &q.select, outer, row, inner)?,
            ..(**q).clone()
        })))),
        _ => Ok(None),
    })
}

/// A subquery nested in a correlated one: its own tables count as inner too.
fn nested(
    sess: &mut Session,
    sel: &Select,
    outer: &Scope,
    row: &[Value],
    inner: &[(String, Vec<String>)],
) -> Result<Select> {
    // Names of the enclosing subquery shadow the outer row: hide them from `outer`.
    let visible = Scope {
        columns: outer
            .columns
            .iter()
            .filter(|c| {
                !inner.iter().any(|(a, cols)| {
                    *a == c.table || cols.iter().any(|x| x.eq_ignore_ascii_case(&c.name))
                })
            })
            .cloned()
            .collect(),
    };
    if visible.columns.len() == outer.columns.len() {
        return substitute(sess, sel, outer, row);
    }
    // Slots change with the filtered scope: map names back to the row's values.
    let values: Vec<Value> = outer
        .columns
        .iter()
        .zip(row)
        .filter(|(c, _)| {
            visible
                .columns
                .iter()
                .any(|v| v.table == c.table && v.name == c.name)
        })
        .map(|(_, v)| v.clone())
        .collect();
    substitute(sess, sel, &visible, &values)
}
