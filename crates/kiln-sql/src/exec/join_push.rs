//! WHERE conjuncts of a multi-table SELECT pushed down to the base tables they
//! concern alone: `a JOIN b ON … WHERE a.id = 5` reads a through its primary key
//! instead of whole (and b, per a row, through join_index.rs).
//!
//! A conjunct is pushed to table T when every column it names is T's (qualified by
//! T's alias, or unqualified and a column of T and of no other table of the FROM
//! clause, which then has no derived or information_schema tables whose columns
//! could share the name), it names at least one, and it is deterministic (no
//! subqueries, RAND(), assignments: join.rs `deterministic`). Only tables whose rows
//! are never NULL-extended take conjuncts (not the inner side of a LEFT / RIGHT
//! JOIN: there WHERE sees the NULLs). The whole WHERE is still evaluated on the
//! joined rows, so a pushed conjunct only drops rows that WHERE would drop.

use kiln_common::Result;

use super::bind::{self, Scope, bind, conjuncts};
use super::join::deterministic;
use super::select::{is_info_schema, resolve_table};
use crate::ast::{BinaryOp, Expr, FromItem};
use crate::session::Session;

/// The WHERE conjuncts of a FROM clause by table alias.
#[derive(Default)]
pub(crate) struct Pushdown {
    /// Each usable conjunct with the tables it names.
    by_alias: Vec<(Vec<String>, Expr)>,
}

impl Pushdown {
    /// Sorts `filter`'s conjuncts out to the base tables of `from`.
    pub(crate) fn new(sess: &mut Session, from: &[FromItem], filter: &Expr) -> Result<Pushdown> {
        let mut tables: Vec<(String, Vec<String>)> = Vec::new();
        let mut opaque = false;
        for f in from {
            collect(sess, f, &mut tables, &mut opaque)?;
        }
        let mut by_alias = Vec::new();
        for c in conjuncts(filter) {
            if !deterministic(c) {
                continue;
            }
            if let Some(aliases) = owners(c, &tables, opaque) {
                by_alias.push((aliases, c.clone()));
            }
        }
        Ok(Pushdown { by_alias })
    }

    /// The conjuncts on table `alias` alone, bound to its `scope` (None: none, or
    /// they do not bind, and WHERE reports that later).
    pub(crate) fn filter_for(&self, alias: &str, scope: &Scope) -> Option<Expr> {
        let e = self
            .by_alias
            .iter()
            .filter(|(a, _)| a.len() == 1 && a[0] == alias)
            .map(|(_, e)| e.clone())
            .reduce(and)?;
        let b = bind(&e, scope, "where clause").ok()?;
        (!bind::contains_aggregate(&b)).then_some(b)
    }

    /// The conjuncts naming several tables, with their tables.
    pub(crate) fn multi_table(&self) -> impl Iterator<Item = (&[String], &Expr)> {
        self.by_alias
            .iter()
            .filter(|(a, _)| a.len() > 1)
            .map(|(a, e)| (a.as_slice(), e))
    }

    /// The conjuncts joining `next` (the aliases of a comma-list item) to the items
    /// before it (`done`): every table they name is in one of the two, some in each.
    /// An inner join's ON condition is its WHERE's, so they can join the item as ON
    /// does (the hash or index join); WHERE still checks them all on the result.
    pub(crate) fn join_condition(&self, done: &[String], next: &[String]) -> Option<Expr> {
        self.by_alias
            .iter()
            .filter(|(a, _)| {
                a.iter().all(|x| done.contains(x) || next.contains(x))
                    && a.iter().any(|x| done.contains(x))
                    && a.iter().any(|x| next.contains(x))
            })
            .map(|(_, e)| e.clone())
            .reduce(and)
            .filter(|e| !bind::contains_aggregate(e))
    }
}

fn and(a: Expr, b: Expr) -> Expr {
    Expr::Binary {
        op: BinaryOp::And,
        left: Box::new(a),
        right: Box::new(b),
    }
}

/// The base tables of a FROM item (alias, column names); `opaque` when it has tables
/// whose columns are not known before they are read.
fn collect(
    sess: &mut Session,
    item: &FromItem,
    out: &mut Vec<(String, Vec<String>)>,
    opaque: &mut bool,
) -> Result<()> {
    match item {
        FromItem::Table { name, .. } if is_info_schema(sess, name) => *opaque = true,
        FromItem::Table { name, alias } => {
            let h = resolve_table(sess, name)?;
            let alias = alias.clone().unwrap_or_else(|| h.def.name.clone());
            out.push((
                alias,
                h.def.columns.iter().map(|c| c.name.clone()).collect(),
            ));
        }
        FromItem::Derived { .. } => *opaque = true,
        FromItem::Join { left, right, .. } => {
            collect(sess, left, out, opaque)?;
            collect(sess, right, out, opaque)?;
        }
    }
    Ok(())
}

/// The tables the columns of `e` belong to (None: a column of no known table, or of
/// a table not known alone).
fn owners(e: &Expr, tables: &[(String, Vec<String>)], opaque: bool) -> Option<Vec<String>> {
    let mut found: Vec<String> = Vec::new();
    let mut ok = true;
    bind::visit(e, &mut |x| {
        let Expr::Column { qualifier, name } = x else {
            return;
        };
        let has = |cols: &[String]| cols.iter().any(|c| c.eq_ignore_ascii_case(name));
        let t = match qualifier {
            Some(q) => {
                let q = q.rsplit('.').next().unwrap_or(q);
                tables.iter().find(|(a, cols)| a == q && has(cols))
            }
            None if opaque => None,
            None => {
                let mut it = tables.iter().filter(|(_, cols)| has(cols));
                match (it.next(), it.next()) {
                    (Some(t), None) => Some(t),
                    _ => None,
                }
            }
        };
        match t {
            None => ok = false,
            Some((a, _)) if !found.contains(a) => found.push(a.clone()),
            Some(_) => {}
        }
    });
    (ok && !found.is_empty()).then_some(found)
}

/// The aliases of the base tables of a FROM item.
pub(crate) fn aliases_of(sess: &mut Session, item: &FromItem) -> Result<Vec<String>> {
    let (mut tables, mut opaque) = (Vec::new(), false);
    collect(sess, item, &mut tables, &mut opaque)?;
    Ok(tables.into_iter().map(|(a, _)| a).collect())
}
