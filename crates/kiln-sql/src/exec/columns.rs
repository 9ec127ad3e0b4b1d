//! COM_STMT_PREPARE's description of a SELECT's result columns, without running it
//! (the typing itself is coltype.rs).

use kiln_common::Result;

use super::bind::{Scope, ScopeColumn, bind};
use super::coltype::column_info;
use super::join_using;
use super::select::{
    SourceTable, has_subquery, info_schema_relation, is_info_schema, resolve_table, table_scope,
};
use crate::ast::*;
use crate::result::ColumnInfo;
use crate::session::Session;

/// Result columns of a SELECT with tables, without running it (COM_STMT_PREPARE).
/// Checks that the tables exist.
pub fn describe(sess: &mut Session, s: &Select) -> Result<Vec<ColumnInfo>> {
    /// One FROM item's scope and tables (offsets relative to the item).
    fn collect(sess: &mut Session, item: &FromItem) -> Result<(Scope, Vec<SourceTable>)> {
        match item {
            FromItem::Table { name, alias } if is_info_schema(sess, name) => {
                let r = info_schema_relation(sess, name, alias)?;
                Ok((r.scope, Vec::new()))
            }
            FromItem::Table { name, alias } => {
                let h = resolve_table(sess, name)?;
                let alias = alias.clone().unwrap_or_else(|| h.def.name.clone());
                let scope = Scope {
                    columns: table_scope(&h, &alias),
                };
                let t = SourceTable {
                    handle: h,
                    alias,
                    offset: 0,
                };
                Ok((scope, vec![t]))
            }
            FromItem::Derived { select, alias, .. } => {
                let columns = describe(sess, select)?
                    .into_iter()
                    .map(|c| ScopeColumn {
                        table: alias.clone(),
                        name: c.name,
                        hidden: false,
                        text: None,
                        merged: false,
                    })
                    .collect();
                Ok((Scope { columns }, Vec::new()))
            }
            FromItem::Join {
                left,
                right,
                kind,
                using,
                natural,
                ..
            } => {
                let l = collect(sess, left)?;
                let r = collect(sess, right)?;
                // As the executor's join: a RIGHT JOIN's preserved side comes first
                // only when USING / NATURAL merges columns.
                let (first, second) = if *kind == JoinKind::Right {
                    (r, l)
                } else {
                    (l, r)
                };
                let pairs = join_using::shared_columns(&first.0, &second.0, using, *natural)?;
                let flip = *kind == JoinKind::Right && !natural && using.is_empty();
                let (a, b) = if flip {
                    (second, first)
                } else {
                    (first, second)
                };
                let shift = pairs.len();
                let mut tables: Vec<SourceTable> = a.1;
                let aw = a.0.columns.len();
                tables.extend(b.1.into_iter().map(|mut t| {
                    t.offset += aw;
                    t
                }));
                for t in &mut tables {
                    t.offset += shift;
                }
                let scope = if pairs.is_empty() {
                    Scope {
                        columns: [a.0.columns, b.0.columns].concat(),
                    }
                } else {
                    join_using::merged_scope(&a.0, &b.0, &pairs)
                };
                Ok((scope, tables))
            }
        }
    }
    let mut tables = Vec::new();
    let mut scope = Scope::default();
    for f in &s.from {
        let (sc, ts) = collect(sess, f)?;
        let offset = scope.columns.len();
        tables.extend(ts.into_iter().map(|mut t| {
            t.offset += offset;
            t
        }));
        scope.columns.extend(sc.columns);
    }
    // MySQL checks every column name at PREPARE: the select list's above, the
    // WHERE's here (select-list aliases are not visible in either).
    if let Some(f) = &s.filter
        && let Err(err) = bind(f, &scope, "where clause")
        && unknown_column(&err, f)
    {
        return Err(err);
    }
    let mut out = Vec::new();
    for item in &s.items {
        match &item.expr {
            Expr::Column { qualifier, name } if name == "*" => {
                for (i, c) in scope.columns.iter().enumerate() {
                    if !c.in_star(qualifier.as_deref()) {
                        continue;
                    }
                    out.push(column_info(
                        &Expr::Slot(i),
                        &c.name,
                        &tables,
                        &scope,
                        false,
                        &[],
                        &[],
                        0,
                    ));
                }
            }
            e => {
                let bound = match bind(e, &scope, "field list") {
                    Ok(b) => b,
                    Err(err) if unknown_column(&err, e) => return Err(err),
                    Err(_) => e.clone(),
                };
                out.push(column_info(
                    &bound,
                    &item.name,
                    &tables,
                    &scope,
                    false,
                    &[],
                    &[],
                    0,
                ));
            }
        }
    }
    Ok(out)
}

/// Whether binding `e` failed for an unknown column that the statement itself names
/// (1054), which PREPARE reports. Other failures are left to execution: expressions
/// with subqueries bind outer references only when run.
fn unknown_column(err: &kiln_common::KilnError, e: &Expr) -> bool {
    err.code == kiln_common::ErrorKind::ER_BAD_FIELD_ERROR.code() && !has_subquery(e)
}
