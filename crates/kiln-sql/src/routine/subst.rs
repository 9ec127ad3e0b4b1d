//! Substitution of a routine's names by their current values: every expression of
//! a data statement (and of the subqueries in it) has its references to local
//! variables and to NEW.col / OLD.col replaced by literals before the statement runs,
//! so the executor sees an ordinary statement. A local variable shadows a column of
//! the same name, as in MySQL. The same walk qualifies a view's stored function calls
//! with the view's database (`Names::function`, exec/view.rs).

use kiln_common::Result;

use crate::ast::*;
use crate::exec::bind::rewrite;
use crate::value::Value;

/// What the names of a statement stand for.
pub trait Names {
    /// The value of column reference `q.name` (None: leave it to the statement).
    fn value(&self, q: Option<&str>, name: &str) -> Result<Option<Value>>;
    /// Another name for a call of function `name` (None: as it is).
    fn function(&self, _name: &str) -> Option<String> {
        None
    }
}

impl<F: Fn(Option<&str>, &str) -> Result<Option<Value>>> Names for F {
    fn value(&self, q: Option<&str>, name: &str) -> Result<Option<Value>> {
        self(q, name)
    }
}

/// What a name in a routine stands for.
pub type Lookup<'a> = dyn Names + 'a;

/// A closure as `Names` (gives it the signature for any lifetimes).
pub fn by<F: Fn(Option<&str>, &str) -> Result<Option<Value>>>(f: F) -> F {
    f
}

pub fn expr(e: &Expr, f: &Lookup<'_>) -> Result<Expr> {
    rewrite(e, &mut |x| match x {
        Expr::Column { qualifier, name } if name != "*" => {
            Ok(f.value(qualifier.as_deref(), name)?.map(Expr::Literal))
        }
        Expr::Func { name, args } => match f.function(name) {
            Some(name) => Ok(Some(Expr::Func {
                name,
                args: args.iter().map(|a| expr(a, f)).collect::<Result<_>>()?,
            })),
            None => Ok(None),
        },
        Expr::Subquery(s) => Ok(Some(Expr::Subquery(Box::new(select(s, f)?)))),
        Expr::Exists(s) => Ok(Some(Expr::Exists(Box::new(select(s, f)?)))),
        Expr::InSubquery {
            expr: inner,
            select: s,
            negated,
        } => Ok(Some(Expr::InSubquery {
            expr: Box::new(expr(inner, f)?),
            select: Box::new(select(s, f)?),
            negated: *negated,
        })),
        Expr::Quantified(q) => Ok(Some(Expr::Quantified(Box::new(Quantified {
            expr: expr(&q.expr, f)?,
            select: select(&q.select, f)?,
            ..(**q).clone()
        })))),
        _ => Ok(None),
    })
}

fn opt(e: &Option<Expr>, f: &Lookup<'_>) -> Result<Option<Expr>> {
    e.as_ref().map(|e| expr(e, f)).transpose()
}

fn order(o: &[OrderItem], f: &Lookup<'_>) -> Result<Vec<OrderItem>> {
    o.iter()
        .map(|i| {
            Ok(OrderItem {
                expr: expr(&i.expr, f)?,
                desc: i.desc,
            })
        })
        .collect()
}

fn from_item(item: &FromItem, f: &Lookup<'_>) -> Result<FromItem> {
    Ok(match item {
        FromItem::Table { .. } => item.clone(),
        FromItem::Derived {
            select: s,
            alias,
            view,
        } => FromItem::Derived {
            select: Box::new(select(s, f)?),
            alias: alias.clone(),
            view: view.clone(),
        },
        FromItem::Join {
            left,
            right,
            kind,
            on,
            using,
            natural,
        } => FromItem::Join {
            left: Box::new(from_item(left, f)?),
            right: Box::new(from_item(right, f)?),
            kind: *kind,
            on: opt(on, f)?,
            using: using.clone(),
            natural: *natural,
        },
    })
}

pub fn select(s: &Select, f: &Lookup<'_>) -> Result<Select> {
    let mut out = s.clone();
    for item in &mut out.items {
        item.expr = expr(&item.expr, f)?;
    }
    out.from = s
        .from
        .iter()
        .map(|i| from_item(i, f))
        .collect::<Result<_>>()?;
    out.filter = opt(&s.filter, f)?;
    out.having = opt(&s.having, f)?;
    out.group_by = s
        .group_by
        .iter()
        .map(|g| expr(g, f))
        .collect::<Result<_>>()?;
    out.order_by = order(&s.order_by, f)?;
    out.limit = opt(&s.limit, f)?;
    out.offset = opt(&s.offset, f)?;
    if let Some((all, next)) = &s.union {
        out.union = Some((*all, Box::new(select(next, f)?)));
    }
    out.union_order = order(&s.union_order, f)?;
    out.union_limit = opt(&s.union_limit, f)?;
    out.union_offset = opt(&s.union_offset, f)?;
    Ok(out)
}

/// A data statement of a routine with its names substituted.
pub fn stmt(s: &Stmt, f: &Lookup<'_>) -> Result<Stmt> {
    Ok(match s {
        Stmt::Insert(i) => {
            let source = match &i.source {
                InsertSource::Values(rows) => InsertSource::Values(
                    rows.iter()
                        .map(|r| r.iter().map(|e| opt(e, f)).collect::<Result<_>>())
                        .collect::<Result<_>>()?,
                ),
                InsertSource::Select(sel) => InsertSource::Select(Box::new(select(sel, f)?)),
                InsertSource::Set(sets) => InsertSource::Set(
                    sets.iter()
                        .map(|(c, e)| Ok((c.clone(), opt(e, f)?)))
                        .collect::<Result<_>>()?,
                ),
            };
            // ON DUPLICATE KEY UPDATE sees the target's columns: only NEW/OLD and
            // locals that no column of the statement shadows are replaced there.
            let on_duplicate = i
                .on_duplicate
                .iter()
                .map(|(c, e)| Ok((c.clone(), expr(e, f)?)))
                .collect::<Result<_>>()?;
            Stmt::Insert(Insert {
                source,
                on_duplicate,
                ..i.clone()
            })
        }
        Stmt::Update(u) => Stmt::Update(Update {
            tables: u
                .tables
                .iter()
                .map(|i| from_item(i, f))
                .collect::<Result<_>>()?,
            sets: u
                .sets
                .iter()
                .map(|(q, c, e)| Ok((q.clone(), c.clone(), opt(e, f)?)))
                .collect::<Result<_>>()?,
            filter: opt(&u.filter, f)?,
            order_by: order(&u.order_by, f)?,
            limit: opt(&u.limit, f)?,
            ignore: u.ignore,
        }),
        Stmt::Delete(d) => Stmt::Delete(Delete {
            from: d
                .from
                .iter()
                .map(|i| from_item(i, f))
                .collect::<Result<_>>()?,
            filter: opt(&d.filter, f)?,
            order_by: order(&d.order_by, f)?,
            limit: opt(&d.limit, f)?,
            ..d.clone()
        }),
        Stmt::Do(exprs) => Stmt::Do(exprs.iter().map(|e| expr(e, f)).collect::<Result<_>>()?),
        Stmt::Select(s) => Stmt::Select(Box::new(select(s, f)?)),
        other => other.clone(),
    })
}

/// Calls `f` on every expression of a data statement, subqueries included (CREATE
/// TRIGGER's checks of NEW and OLD).
pub fn visit_stmt(s: &Stmt, f: &mut dyn FnMut(&Expr)) {
    let mut collect = |e: &Expr| {
        crate::exec::bind::visit(e, &mut |x| f(x));
    };
    walk_stmt(s, &mut collect);
}

fn walk_select(s: &Select, f: &mut dyn FnMut(&Expr)) {
    for i in &s.items {
        walk_expr(&i.expr, f);
    }
    fn items(i: &FromItem, f: &mut dyn FnMut(&Expr)) {
        match i {
            FromItem::Table { .. } => {}
            FromItem::Derived { select, .. } => walk_select(select, f),
            FromItem::Join {
                left, right, on, ..
            } => {
                items(left, f);
                items(right, f);
                if let Some(e) = on {
                    walk_expr(e, f);
                }
            }
        }
    }
    for i in &s.from {
        items(i, f);
    }
    for e in s
        .filter
        .iter()
        .chain(s.having.iter())
        .chain(s.group_by.iter())
        .chain(s.order_by.iter().map(|o| &o.expr))
    {
        walk_expr(e, f);
    }
    if let Some((_, next)) = &s.union {
        walk_select(next, f);
    }
}

/// `f` on `e` and on the expressions of the subqueries inside it.
fn walk_expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    let mut subs: Vec<Select> = Vec::new();
    crate::exec::bind::visit(e, &mut |x| match x {
        Expr::Subquery(s) | Expr::Exists(s) | Expr::InSubquery { select: s, .. } => {
            subs.push((**s).clone())
        }
        Expr::Quantified(q) => subs.push(q.select.clone()),
        _ => {}
    });
    for s in &subs {
        walk_select(s, f);
    }
}

fn walk_stmt(s: &Stmt, f: &mut dyn FnMut(&Expr)) {
    match s {
        Stmt::Insert(i) => {
            match &i.source {
                InsertSource::Values(rows) => {
                    for e in rows.iter().flatten().flatten() {
                        walk_expr(e, f);
                    }
                }
                InsertSource::Select(sel) => walk_select(sel, f),
                InsertSource::Set(sets) => {
                    for e in sets.iter().filter_map(|(_, e)| e.as_ref()) {
                        walk_expr(e, f);
                    }
                }
            }
            for (_, e) in &i.on_duplicate {
                walk_expr(e, f);
            }
        }
        Stmt::Update(u) => {
            for e in u
                .sets
                .iter()
                .filter_map(|(_, _, e)| e.as_ref())
                .chain(u.filter.iter())
            {
                walk_expr(e, f);
            }
        }
        Stmt::Delete(d) => {
            for e in d.filter.iter() {
                walk_expr(e, f);
            }
        }
        Stmt::Do(exprs) => exprs.iter().for_each(|e| walk_expr(e, f)),
        Stmt::Select(s) => walk_select(s, f),
        _ => {}
    }
}

/// `f` on an expression of a routine statement and its subqueries' expressions.
pub fn visit_expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    walk_expr(e, &mut |x| crate::exec::bind::visit(x, &mut |y| f(y)));
}

/// `f` on a SELECT's expressions (SELECT ... INTO).
pub fn visit_select(s: &Select, f: &mut dyn FnMut(&Expr)) {
    walk_select(s, &mut |x| crate::exec::bind::visit(x, &mut |y| f(y)));
}
