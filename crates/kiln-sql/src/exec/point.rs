//! Primary-key point selects, planned once (issue 5's fast path).
//!
//! `SELECT <columns> FROM t WHERE <every primary-key column> = <value> [LIMIT n]` is
//! the statement web back ends send most. The general path parses, binds names to
//! slots, plans the access path, reads, re-checks the WHERE and builds the select list
//! on every execution; here those steps run once, when the statement is first executed
//! through the general path, and leave a [`PointPlan`]: the table handle, where each
//! key part's value comes from, which stored columns the result takes, and the result
//! metadata the general path produced. Later executions only convert the key values,
//! read one row and project it.
//!
//! Two caches hold plans:
//! - a prepared statement's [`PlanSlot`], inside its `Parsed` (COM_STMT_EXECUTE and
//!   SQL-level EXECUTE);
//! - the session's digest cache for text statements (`Session::execute_text_cached`):
//!   the statement's tokens with integer and string literals replaced by `?` name a
//!   plan whose key values are the literals of the statement at hand. The literals
//!   are the statement's only variable part, so a plan built from one text serves
//!   every text with the same digest.
//!
//! A plan answers exactly what the general path would, or declines (`Ok(None)`) and
//! the general path runs: a key value that does not convert losslessly to its column
//! (`'5abc'`, `5.5`, NULL, a number against a string key), a LIMIT that is not a
//! plain integer, a TEMPORARY table of the same name, a changed current database, any
//! DDL since the plan was made (the dictionary version), views. The WHERE needs no
//! re-check because a lossless key value reads exactly the rows `pk = value` selects
//! (`access::single_equality`'s rule). Privileges are checked on every execution, as
//! on the general path.

use std::sync::Arc;

use kiln_common::Result;
use kiln_common::key::KeyWriter;
use kiln_storage::trx::ReadMode;

use crate::ast::{BinaryOp, Expr, FromItem, Select};
use crate::dict::{IndexKindDef, TableHandle};
use crate::exec::access::{self, trx_error};
use crate::exec::bind::{Scope, bind, conjuncts};
use crate::exec::select::{resolve_table, table_scope};
use crate::result::{ColumnInfo, Rows};
use crate::session::Session;
use crate::types::SqlType;
use crate::value::Value;

/// Where a key part's (or the LIMIT's) value comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// The statement's n-th parameter (a prepared statement's `?`, or a text
    /// statement's n-th normalized literal).
    Param(usize),
    Literal(Value),
}

/// One primary-key point select, ready to run again.
pub struct PointPlan {
    table: Arc<TableHandle>,
    /// The dictionary version the plan was made at: any DDL since makes it stale.
    catalog_version: u64,
    /// The current database the table name was resolved in (None: it was qualified).
    resolved_in: Option<String>,
    schema: String,
    /// Per primary-key part, in key order.
    key: Vec<Source>,
    limit: Option<Source>,
    /// The stored column behind each result column.
    out: Vec<usize>,
    /// No stored column appears twice in `out` (its value can then be moved).
    unique_out: bool,
    /// Columns to decode (the others are skipped).
    needed: Vec<bool>,
    columns: Arc<Vec<ColumnInfo>>,
}

/// A prepared statement's plan cache: decided at its first execution.
#[derive(Default)]
pub struct PlanSlot(parking_lot::Mutex<SlotState>);

#[derive(Default)]
enum SlotState {
    #[default]
    Unknown,
    /// Not a point select (or one whose plan went stale: re-planned at next run).
    Never,
    Plan(Arc<PointPlan>),
}

impl PlanSlot {
    pub fn get(&self) -> Option<Arc<PointPlan>> {
        match &*self.0.lock() {
            SlotState::Plan(p) => Some(p.clone()),
            _ => None,
        }
    }
    /// Whether the statement was not examined yet.
    pub fn undecided(&self) -> bool {
        matches!(&*self.0.lock(), SlotState::Unknown)
    }
    pub fn set(&self, plan: Option<Arc<PointPlan>>) {
        *self.0.lock() = match plan {
            Some(p) => SlotState::Plan(p),
            None => SlotState::Never,
        };
    }
    /// Forgets a stale plan so the next execution plans again.
    pub fn reset(&self) {
        *self.0.lock() = SlotState::Unknown;
    }
}

impl Clone for PlanSlot {
    /// A copy of a statement plans for itself.
    fn clone(&self) -> PlanSlot {
        PlanSlot::default()
    }
}

impl PartialEq for PlanSlot {
    /// The cache is not part of a statement's meaning.
    fn eq(&self, _: &PlanSlot) -> bool {
        true
    }
}

impl std::fmt::Debug for PlanSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PlanSlot")
    }
}

/// The value of `src` for this execution.
fn value<'a>(src: &'a Source, params: &'a [Value]) -> Option<&'a Value> {
    match src {
        Source::Param(i) => params.get(*i),
        Source::Literal(v) => Some(v),
    }
}

/// A plain value usable as a point-plan source: a parameter or a literal.
fn source(e: &Expr) -> Option<Source> {
    match e {
        Expr::Param(i) => Some(Source::Param(*i)),
        Expr::Literal(v) if !v.is_null() => Some(Source::Literal(v.clone())),
        _ => None,
    }
}

/// The shape test: a single base table, plain columns, the primary key bound by
/// equalities and nothing else. Syntax only; `plan` checks the table.
pub fn is_candidate(s: &Select) -> bool {
    s.union.is_none()
        && !s.distinct
        && s.lock.is_none()
        && s.group_by.is_empty()
        && s.having.is_none()
        && s.order_by.is_empty()
        && s.offset.is_none()
        && s.windows.is_empty()
        && s.union_order.is_empty()
        && s.union_limit.is_none()
        && s.from.len() == 1
        && matches!(s.from[0], FromItem::Table { .. })
        && s.filter.is_some()
        && s.limit.as_ref().is_none_or(|l| source(l).is_some())
        && !s.items.is_empty()
        && s.items
            .iter()
            .all(|i| matches!(i.expr, Expr::Column { .. }))
}

/// Makes the plan of a candidate whose general execution just returned `result`
/// (its metadata is reused as is). None: not a primary-key point select after all.
pub fn plan(sess: &mut Session, s: &Select, result: &Rows) -> Result<Option<Arc<PointPlan>>> {
    let Some(mut p) = analyze(sess, s)? else {
        return Ok(None);
    };
    if p.out.len() != result.columns.len() {
        return Ok(None);
    }
    p.columns = result.columns.clone();
    Ok(Some(Arc::new(p)))
}

/// The plan of `s` without its result metadata, if `s` is a primary-key point select
/// of a base table in the current catalog.
pub fn analyze(sess: &mut Session, s: &Select) -> Result<Option<PointPlan>> {
    if !is_candidate(s) {
        return Ok(None);
    }
    let FromItem::Table { name, alias } = &s.from[0] else {
        return Ok(None);
    };
    let schema = name.schema.clone().or_else(|| sess.database.clone());
    if crate::exec::select::is_info_schema(sess, name)
        || schema
            .as_deref()
            .is_none_or(|db| sess.temp_shadows(db, &name.name))
    {
        return Ok(None);
    }
    let Ok(h) = resolve_table(sess, name) else {
        return Ok(None);
    };
    if h.temporary {
        return Ok(None);
    }
    let Some(pk) = h
        .def
        .indexes
        .first()
        .filter(|i| i.kind == IndexKindDef::Primary)
    else {
        return Ok(None);
    };
    // Key types whose lossless key value reads exactly the rows `=` selects: not
    // FLOAT/DOUBLE (`f = 0.1` matches no FLOAT row), not BINARY(n) (stored padded,
    // compared unpadded), not CHAR (spaces stripped when stored, compared under NO
    // PAD), not temporal/ENUM/SET/BIT (other comparison rules).
    let exact = |ty: &SqlType| {
        matches!(
            ty,
            SqlType::Int { .. }
                | SqlType::Decimal { .. }
                | SqlType::VarChar { .. }
                | SqlType::VarBinary(_)
        )
    };
    if pk
        .parts
        .iter()
        .any(|p| p.prefix_chars.is_some() || !exact(&h.def.columns[p.column].ty))
    {
        return Ok(None);
    }
    let alias = alias.clone().unwrap_or_else(|| h.def.name.clone());
    let scope = Scope {
        columns: table_scope(&h, &alias),
    };
    // Result columns: each item must bind to a plain slot (`*` lists the visible ones).
    let mut out = Vec::new();
    for item in &s.items {
        match &item.expr {
            Expr::Column { qualifier, name } if name == "*" => {
                let before = out.len();
                out.extend(
                    (0..scope.columns.len())
                        .filter(|&i| scope.columns[i].in_star(qualifier.as_deref())),
                );
                if out.len() == before {
                    return Ok(None);
                }
            }
            e => match bind(e, &scope, "field list") {
                Ok(Expr::Slot(i)) => out.push(i),
                _ => return Ok(None),
            },
        }
    }
    // WHERE: exactly one `pk_part = value` per key part, nothing else.
    let Some(filter) = &s.filter else {
        return Ok(None);
    };
    let mut key: Vec<Option<Source>> = vec![None; pk.parts.len()];
    for c in conjuncts(filter) {
        let Expr::Binary {
            op: BinaryOp::Eq,
            left,
            right,
        } = c
        else {
            return Ok(None);
        };
        let (col, src) = match (source(left), source(right)) {
            (None, Some(src)) => (left, src),
            (Some(src), None) => (right, src),
            _ => return Ok(None),
        };
        let Ok(Expr::Slot(slot)) = bind(col, &scope, "where clause") else {
            return Ok(None);
        };
        let Some(part) = pk.parts.iter().position(|p| p.column == slot) else {
            return Ok(None);
        };
        if key[part].replace(src).is_some() {
            return Ok(None);
        }
    }
    let Some(key) = key.into_iter().collect::<Option<Vec<Source>>>() else {
        return Ok(None);
    };
    let mut needed = vec![false; h.def.columns.len()];
    for &c in &out {
        needed[c] = true;
    }
    Ok(Some(PointPlan {
        catalog_version: sess.dict()?.version(),
        resolved_in: if name.schema.is_none() {
            sess.database.clone()
        } else {
            None
        },
        schema: schema.unwrap_or_default(),
        unique_out: {
            let mut seen = vec![false; h.def.columns.len()];
            out.iter().all(|&c| !std::mem::replace(&mut seen[c], true))
        },
        table: h,
        key,
        limit: s.limit.as_ref().and_then(source),
        out,
        needed,
        columns: Arc::default(),
    }))
}

impl PointPlan {
    /// The name the plan's table is locked under (mdl.rs).
    pub fn lock_name(&self) -> (&str, &str) {
        (&self.schema, &self.table.def.name)
    }

    /// Whether the plan still describes what the statement names: no DDL since, the
    /// same current database for an unqualified name, no TEMPORARY table over it.
    pub fn current(&self, sess: &Session) -> bool {
        sess.dict()
            .is_ok_and(|d| d.version() == self.catalog_version)
            && (self.resolved_in.is_none() || self.resolved_in == sess.database)
            && !sess.temp_shadows(&self.schema, &self.table.def.name)
    }
}

/// Runs the plan with this execution's parameters. None: the values do not suit a
/// key read (see the module comment); the caller runs the general path.
pub fn execute(sess: &mut Session, plan: &PointPlan, params: &[Value]) -> Result<Option<Rows>> {
    let limit = match plan.limit.as_ref().map(|l| value(l, params)) {
        None => u64::MAX,
        Some(Some(Value::Int(n))) if *n >= 0 => *n as u64,
        Some(Some(Value::UInt(n))) => *n,
        Some(_) => return Ok(None),
    };
    let h = &plan.table;
    let mut kw = KeyWriter::new();
    for (part, src) in plan.key.iter().enumerate() {
        let col = h.def.indexes[0].parts[part].column;
        let Some(v) = value(src, params) else {
            return Ok(None);
        };
        let Some(kv) = access::key_value(h, col, v) else {
            return Ok(None);
        };
        crate::rowapi::encode_key_part(h, 0, part, &kv, &mut kw);
    }
    let key = kw.finish();
    let mut rows = Vec::new();
    if limit > 0 {
        let stored = sess.with_trx(|_, trx| {
            access::check_snapshot(trx, h)?;
            trx.read(&h.storage.clustered, &key, ReadMode::Consistent)
                .map_err(trx_error)
        })?;
        if let Some(stored) = stored {
            let mut values = Vec::with_capacity(h.def.columns.len());
            h.shape
                .decode_masked(&stored, Some(&plan.needed), &mut values)?;
            let row: Vec<Value> = plan
                .out
                .iter()
                .map(|&c| {
                    if plan.unique_out {
                        std::mem::replace(&mut values[c], Value::Null)
                    } else {
                        values[c].clone()
                    }
                })
                .collect();
            rows.push(row);
        }
    }
    sess.rows_read(h, rows.len() as u64);
    Ok(Some(Rows {
        columns: plan.columns.clone(),
        rows,
    }))
}
