//! Result-set metadata of SELECT columns: a table column keeps its type, names and
//! key flags; an expression gets the type MySQL derives from it (infer.rs), with
//! lengths from the values; and COM_STMT_PREPARE's description without running.

use kiln_common::Result;

use super::bind::{Scope, ScopeColumn, bind};
use super::select::{
    SourceTable, info_schema_relation, is_info_schema, resolve_table, table_scope,
};
use crate::ast::*;
use crate::result::{ColumnInfo, ColumnKind};
use crate::session::Session;
use crate::value::Value;

/// Result-metadata flags of a table column (MySQL's PRI_KEY, UNIQUE_KEY, MULTIPLE_KEY,
/// AUTO_INCREMENT ... bits).
pub(crate) fn column_key(def: &crate::dict::TableDef, col: usize) -> crate::result::ColumnKey {
    use crate::dict::IndexKindDef;
    let c = &def.columns[col];
    let mut k = crate::result::ColumnKey {
        auto_increment: c.auto_increment,
        zerofill: matches!(c.ty, crate::types::SqlType::Int { zerofill: true, .. }),
        no_default: c.default.is_none() && !c.nullable && !c.auto_increment,
        on_update_now: c.on_update_now,
        is_enum: matches!(c.ty, crate::types::SqlType::Enum { .. }),
        is_set: matches!(c.ty, crate::types::SqlType::Set { .. }),
        ..Default::default()
    };
    for ix in &def.indexes {
        match ix.kind {
            IndexKindDef::Primary if ix.parts.iter().any(|p| p.column == col) => k.primary = true,
            IndexKindDef::Unique if ix.parts.len() == 1 && ix.parts[0].column == col => {
                k.unique = true
            }
            IndexKindDef::Key | IndexKindDef::Unique | IndexKindDef::Fulltext
                if ix.parts.first().is_some_and(|p| p.column == col) =>
            {
                k.multiple = true
            }
            _ => {}
        }
    }
    k
}

/// Result metadata of a select-list item: a plain column of a table keeps the
/// column's type and names; anything else is derived from the values.
/// What result metadata of a select-list item is derived from.
pub(crate) struct ColumnContext<'a> {
    pub(crate) tables: &'a [SourceTable],
    pub(crate) scope: &'a Scope,
    pub(crate) grouped: bool,
    /// Aggregate calls behind slots `scope.columns.len()..` of grouped rows.
    pub(crate) aggs: &'a [Expr],
}

impl ColumnContext<'_> {
    /// The kind of a table column slot.
    fn base_kind(&self, slot: usize) -> Option<ColumnKind> {
        self.tables
            .iter()
            .rev()
            .find(|t| slot >= t.offset && slot < t.offset + t.handle.def.columns.len())
            .map(|t| {
                t.handle.def.columns[slot - t.offset]
                    .ty
                    .column_info("")
                    .kind
            })
    }

    fn slot_kind(&self, slot: usize) -> Option<ColumnKind> {
        let width = self.scope.columns.len();
        if slot < width {
            return self.base_kind(slot);
        }
        let agg = self.aggs.get(slot - width)?;
        Some(crate::infer::kind_with(agg, &|s| self.base_kind(s)))
    }
}

pub(crate) fn column_info(
    e: &Expr,
    name: &str,
    ctx: &ColumnContext<'_>,
    rows: &[Vec<Value>],
    i: usize,
) -> ColumnInfo {
    let (tables, scope, grouped) = (ctx.tables, ctx.scope, ctx.grouped);
    if let Expr::Slot(slot) = e
        && (!grouped || *slot < scope.columns.len())
        && let Some(t) = tables
            .iter()
            .rev()
            .find(|t| *slot >= t.offset && *slot < t.offset + t.handle.def.columns.len())
    {
        let col = *slot - t.offset;
        let def = &t.handle.def;
        let c = &def.columns[col];
        let mut info = c.ty.column_info(name);
        info.org_name = c.name.clone();
        info.table = t.alias.clone();
        info.schema = def.schema.clone();
        info.not_null = !c.nullable;
        info.key = column_key(def, col);
        return info;
    }
    let mut info = if rows.is_empty() {
        crate::infer::column_for(name, e)
    } else {
        ColumnInfo::from_values(name, rows.iter().map(|r| &r[i]))
    };
    // The type comes from the expression where it can be known (MySQL's rule); the
    // values only fill in lengths and scale.
    let inferred = crate::infer::kind_with(e, &|s| ctx.slot_kind(s));
    if inferred != ColumnKind::VarString && inferred != info.kind {
        info.kind = inferred;
        info.binary = !matches!(
            inferred,
            ColumnKind::VarString | ColumnKind::Blob | ColumnKind::String | ColumnKind::Json
        );
        if matches!(inferred, ColumnKind::Double | ColumnKind::Float) {
            info.decimals = 31;
        }
        info.length_chars = info.length_chars.max(1);
    }
    info
}

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
    let ctx = ColumnContext {
        tables: &tables,
        scope: &scope,
        grouped: false,
        aggs: &[],
    };
    for item in &s.items {
        match &item.expr {
            Expr::Column { qualifier, name } if name == "*" => {
                for (i, c) in scope.columns.iter().enumerate() {
                    if c.hidden || qualifier.as_ref().is_some_and(|q| *q != c.table) {
                        continue;
                    }
                    out.push(column_info(&Expr::Slot(i), &c.name, &ctx, &[], 0));
                }
            }
            e => {
                let bound = bind(e, &scope, "field list").unwrap_or_else(|_| e.clone());
                out.push(column_info(&bound, &item.name, &ctx, &[], 0));
            }
        }
    }
    Ok(out)
}
