//! COM_STMT_PREPARE's description of a SELECT's result columns, without running it
//! (the typing itself is coltype.rs).

use kiln_common::Result;

use super::bind::{Scope, ScopeColumn, bind};
use super::coltype::column_info;
use super::select::{
    SourceTable, info_schema_relation, is_info_schema, resolve_table, table_scope,
};
use crate::ast::*;
use crate::result::ColumnInfo;
use crate::session::Session;

/// Result columns of a SELECT with tables, without running it (COM_STMT_PREPARE).
/// Checks that the tables exist.
pub fn describe(sess: &mut Session, s: &Select) -> Result<Vec<ColumnInfo>> {
    let mut tables = Vec::new();
    let mut scope = Scope::default();
    fn collect(
        sess: &mut Session,
        item: &FromItem,
        tables: &mut Vec<SourceTable>,
        scope: &mut Scope,
    ) -> Result<()> {
        match item {
            FromItem::Table { name, alias } if is_info_schema(sess, name) => {
                let r = info_schema_relation(sess, name, alias)?;
                scope.columns.extend(r.scope.columns);
            }
            FromItem::Table { name, alias } => {
                let h = resolve_table(sess, name)?;
                let alias = alias.clone().unwrap_or_else(|| h.def.name.clone());
                let offset = scope.columns.len();
                scope.columns.extend(table_scope(&h, &alias));
                tables.push(SourceTable {
                    handle: h,
                    alias,
                    offset,
                });
            }
            FromItem::Derived { select, alias } => {
                for c in describe(sess, select)? {
                    scope.columns.push(ScopeColumn {
                        table: alias.clone(),
                        name: c.name,
                        hidden: false,
                        text: None,
                    });
                }
            }
            FromItem::Join { left, right, .. } => {
                collect(sess, left, tables, scope)?;
                collect(sess, right, tables, scope)?;
            }
        }
        Ok(())
    }
    for f in &s.from {
        collect(sess, f, &mut tables, &mut scope)?;
    }
    let mut out = Vec::new();
    for item in &s.items {
        match &item.expr {
            Expr::Column { qualifier, name } if name == "*" => {
                for (i, c) in scope.columns.iter().enumerate() {
                    if c.hidden || qualifier.as_ref().is_some_and(|q| *q != c.table) {
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
                let bound = bind(e, &scope, "field list").unwrap_or_else(|_| e.clone());
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
