//! Name resolution: column references become row slots (`Expr::Slot`), so that
//! evaluation per row does no lookups; aggregates are pulled out of expressions; and
//! uncorrelated subqueries are run once, before the rows, and replaced by their result.

use kiln_common::{ErrorKind, KilnError, Result};

use crate::ast::*;
use crate::value::Value;

/// One column visible in a scope.
#[derive(Debug, Clone)]
pub struct ScopeColumn {
    /// The table's alias (or name) in this query.
    pub table: String,
    pub name: String,
    /// Hidden from `*` (INVISIBLE columns).
    pub hidden: bool,
    /// The column's character type, when it has one (collation, ENUM/SET members).
    pub text: Option<crate::coercion::ColumnText>,
    /// A column of a JOIN ... USING / NATURAL JOIN pair: replaced by the pair's
    /// coalesced column for unqualified names and `*`, reachable as `table.name`.
    pub merged: bool,
}

impl ScopeColumn {
    /// Whether `*` (qualifier None) or `qualifier.*` lists this column.
    pub fn in_star(&self, qualifier: Option<&str>) -> bool {
        match qualifier {
            _ if self.hidden => false,
            None => !self.merged,
            Some(q) => self.table == q,
        }
    }
}

/// The columns of the row being evaluated, in slot order.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    pub columns: Vec<ScopeColumn>,
}

impl Scope {
    /// The slot of `qualifier.name`: 1054 if none, 1052 if ambiguous.
    pub fn resolve(&self, qualifier: Option<&str>, name: &str, clause: &str) -> Result<usize> {
        let q = qualifier.map(|q| q.rsplit('.').next().unwrap_or(q));
        let mut found = None;
        for (i, c) in self.columns.iter().enumerate() {
            if !c.name.eq_ignore_ascii_case(name) || (c.merged && q.is_none()) {
                continue;
            }
            if let Some(q) = q
                && c.table != q
            {
                continue;
            }
            if found.is_some() {
                return Err(KilnError::new(
                    ErrorKind::ER_NON_UNIQ_ERROR,
                    &[&name, &clause],
                ));
            }
            found = Some(i);
        }
        found.ok_or_else(|| {
            let full = match qualifier {
                Some(q) => format!("{q}.{name}"),
                None => name.to_string(),
            };
            KilnError::new(ErrorKind::ER_BAD_FIELD_ERROR, &[&full, &clause])
        })
    }
}

/// Names of aggregate functions (as the parser writes them; `x distinct` for
/// `x(DISTINCT ...)`).
pub fn is_aggregate(name: &str) -> bool {
    let base = name.strip_suffix(" distinct").unwrap_or(name);
    matches!(
        base,
        "count"
            | "sum"
            | "avg"
            | "min"
            | "max"
            | "group_concat"
            | "bit_and"
            | "bit_or"
            | "bit_xor"
            | "std"
            | "stddev"
            | "stddev_pop"
            | "stddev_samp"
            | "variance"
            | "var_pop"
            | "var_samp"
            | "any_value"
            | "json_arrayagg"
            | "json_objectagg"
    )
}

/// The name of the first window function in `e` (None: it has none).
pub fn window_in(e: &Expr) -> Option<String> {
    let mut found = None;
    visit(e, &mut |x| {
        if let Expr::Window(w) = x
            && found.is_none()
        {
            found = Some(w.name.clone());
        }
    });
    found
}

pub fn contains_aggregate(e: &Expr) -> bool {
    let mut found = false;
    visit(e, &mut |x| {
        if let Expr::Func { name, .. } = x
            && is_aggregate(name)
        {
            found = true;
        }
    });
    found
}

/// Calls `f` on `e` and every subexpression (not into subqueries).
pub fn visit(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match e {
        Expr::Unary { expr, .. }
        | Expr::IsNull { expr, .. }
        | Expr::IsBool { expr, .. }
        | Expr::Cast { expr, .. }
        | Expr::Assign { expr, .. }
        | Expr::Collate { expr, .. }
        | Expr::InColl { expr, .. }
        | Expr::EnumIndex { expr, .. } => visit(expr, f),
        Expr::Binary { left, right, .. } => {
            visit(left, f);
            visit(right, f);
        }
        Expr::Between {
            expr, low, high, ..
        } => {
            visit(expr, f);
            visit(low, f);
            visit(high, f);
        }
        Expr::InList { expr, list, .. } => {
            visit(expr, f);
            list.iter().for_each(|x| visit(x, f));
        }
        Expr::Like {
            expr,
            pattern,
            escape,
            ..
        } => {
            visit(expr, f);
            visit(pattern, f);
            if let Some(x) = escape {
                visit(x, f);
            }
        }
        Expr::Case {
            operand,
            whens,
            otherwise,
        } => {
            if let Some(o) = operand {
                visit(o, f);
            }
            for (w, t) in whens {
                visit(w, f);
                visit(t, f);
            }
            if let Some(o) = otherwise {
                visit(o, f);
            }
        }
        Expr::Func { args, .. } => args.iter().for_each(|x| visit(x, f)),
        Expr::InSubquery { expr, .. } => visit(expr, f),
        Expr::Quantified(q) => visit(&q.expr, f),
        Expr::Row(items) => items.iter().for_each(|x| visit(x, f)),
        Expr::Window(w) => {
            w.args.iter().for_each(|x| visit(x, f));
            w.over.partition_by.iter().for_each(|x| visit(x, f));
            w.over.order_by.iter().for_each(|o| visit(&o.expr, f));
        }
        Expr::Literal(_)
        | Expr::Param(_)
        | Expr::SysVar { .. }
        | Expr::UserVar(_)
        | Expr::Column { .. }
        | Expr::Slot(_)
        | Expr::Subquery(_)
        | Expr::Exists(_) => {}
    }
}

/// Rewrites `e` bottom-up: `f` returns Some(replacement) to replace a node (its
/// children are then not visited), None to descend.
pub fn rewrite(e: &Expr, f: &mut dyn FnMut(&Expr) -> Result<Option<Expr>>) -> Result<Expr> {
    if let Some(r) = f(e)? {
        return Ok(r);
    }
    fn b(x: &Expr, f: &mut dyn FnMut(&Expr) -> Result<Option<Expr>>) -> Result<Box<Expr>> {
        rewrite(x, f).map(Box::new)
    }
    Ok(match e {
        Expr::Unary { op, expr } => Expr::Unary {
            op: *op,
            expr: b(expr, f)?,
        },
        Expr::Binary { op, left, right } => Expr::Binary {
            op: *op,
            left: b(left, f)?,
            right: b(right, f)?,
        },
        Expr::IsNull { expr, negated } => Expr::IsNull {
            expr: b(expr, f)?,
            negated: *negated,
        },
        Expr::IsBool {
            expr,
            value,
            negated,
        } => Expr::IsBool {
            expr: b(expr, f)?,
            value: *value,
            negated: *negated,
        },
        Expr::Cast { expr, to } => Expr::Cast {
            expr: b(expr, f)?,
            to: *to,
        },
        Expr::Assign { name, expr } => Expr::Assign {
            name: name.clone(),
            expr: b(expr, f)?,
        },
        Expr::Collate { expr, coll } => Expr::Collate {
            expr: b(expr, f)?,
            coll: *coll,
        },
        Expr::InColl { expr, coll } => Expr::InColl {
            expr: b(expr, f)?,
            coll: *coll,
        },
        Expr::EnumIndex { expr, members, set } => Expr::EnumIndex {
            expr: b(expr, f)?,
            members: members.clone(),
            set: *set,
        },
        Expr::Between {
            expr,
            low,
            high,
            negated,
        } => Expr::Between {
            expr: b(expr, f)?,
            low: b(low, f)?,
            high: b(high, f)?,
            negated: *negated,
        },
        Expr::InList {
            expr,
            list,
            negated,
        } => Expr::InList {
            expr: b(expr, f)?,
            list: list.iter().map(|x| rewrite(x, f)).collect::<Result<_>>()?,
            negated: *negated,
        },
        Expr::Like {
            expr,
            pattern,
            escape,
            negated,
        } => Expr::Like {
            expr: b(expr, f)?,
            pattern: b(pattern, f)?,
            escape: match escape {
                Some(x) => Some(b(x, f)?),
                None => None,
            },
            negated: *negated,
        },
        Expr::Case {
            operand,
            whens,
            otherwise,
        } => Expr::Case {
            operand: match operand {
                Some(x) => Some(b(x, f)?),
                None => None,
            },
            whens: whens
                .iter()
                .map(|(w, t)| Ok((rewrite(w, f)?, rewrite(t, f)?)))
                .collect::<Result<_>>()?,
            otherwise: match otherwise {
                Some(x) => Some(b(x, f)?),
                None => None,
            },
        },
        Expr::Func { name, args } => Expr::Func {
            name: name.clone(),
            args: args.iter().map(|x| rewrite(x, f)).collect::<Result<_>>()?,
        },
        Expr::InSubquery {
            expr,
            select,
            negated,
        } => Expr::InSubquery {
            expr: b(expr, f)?,
            select: select.clone(),
            negated: *negated,
        },
        Expr::Quantified(q) => Expr::Quantified(Box::new(Quantified {
            expr: rewrite(&q.expr, f)?,
            ..(**q).clone()
        })),
        Expr::Row(items) => Expr::Row(items.iter().map(|x| rewrite(x, f)).collect::<Result<_>>()?),
        Expr::Window(w) => {
            let mut over = w.over.clone();
            over.partition_by = over
                .partition_by
                .iter()
                .map(|x| rewrite(x, f))
                .collect::<Result<_>>()?;
            for o in &mut over.order_by {
                o.expr = rewrite(&o.expr, f)?;
            }
            Expr::Window(Box::new(WindowFunc {
                name: w.name.clone(),
                args: w
                    .args
                    .iter()
                    .map(|x| rewrite(x, f))
                    .collect::<Result<_>>()?,
                over,
            }))
        }
        other => other.clone(),
    })
}

/// Binds column references of `e` to slots of `scope`, then settles the collation of
/// each comparison and the numeric use of ENUM/SET columns (`coercion::annotate`).
pub fn bind(e: &Expr, scope: &Scope, clause: &str) -> Result<Expr> {
    let bound = rewrite(e, &mut |x| match x {
        Expr::Column { qualifier, name } => Ok(Some(Expr::Slot(scope.resolve(
            qualifier.as_deref(),
            name,
            clause,
        )?))),
        _ => Ok(None),
    })?;
    if crate::coercion::may_annotate(&bound, scope) {
        crate::coercion::annotate(&bound, scope)
    } else {
        Ok(bound)
    }
}

/// Whether `e` depends on no row (literals, parameters, variables, functions of them):
/// it can be evaluated once, before the rows.
pub fn is_constant(e: &Expr) -> bool {
    let mut constant = true;
    visit(e, &mut |x| match x {
        Expr::Column { .. } | Expr::Slot(_) | Expr::Subquery(_) | Expr::Exists(_) => {
            constant = false
        }
        Expr::InSubquery { .. } | Expr::Quantified(_) | Expr::Assign { .. } | Expr::Window(_) => {
            constant = false
        }
        Expr::Func { name, .. }
            if is_aggregate(name)
                || matches!(
                    name.as_str(),
                    "rand" | "uuid" | "sleep" | "values" | "last_insert_id"
                )
                || crate::functions::has_side_effects(name) =>
        {
            constant = false
        }
        _ => {}
    });
    constant
}

/// Splits a WHERE condition into its AND-ed conjuncts.
pub fn conjuncts(e: &Expr) -> Vec<&Expr> {
    let mut out = Vec::new();
    fn walk<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
        match e {
            Expr::Binary {
                op: BinaryOp::And,
                left,
                right,
            } => {
                walk(left, out);
                walk(right, out);
            }
            other => out.push(other),
        }
    }
    walk(e, &mut out);
    out
}

/// A literal standing for a subquery's result.
pub fn literal(v: Value) -> Expr {
    Expr::Literal(v)
}
