//! Prepared statements bound and planned once (issue 5, item 10), beyond the
//! primary-key point selects of point.rs.
//!
//! A prepared statement (COM_STMT_PREPARE, SQL `PREPARE`) of one of these shapes
//! keeps a `StmtPlan` in its `Parsed` after an execution through the general path:
//! - a SELECT from one base table (no UNION, subquery, window, DEFAULT(), MIN / MAX
//!   only list): the table's scope, the bound WHERE, the columns read, the ORDER BY's
//!   index-order request, the bound select list / GROUP BY / HAVING / ORDER BY
//!   (select_stage.rs `Clauses`) and the shape of the access path;
//! - a single-table UPDATE / DELETE (same restrictions): the bound assignments, WHERE
//!   and ORDER BY and the access path's shape;
//! - an INSERT / REPLACE ... VALUES: the column of each value and the bound ON
//!   DUPLICATE KEY UPDATE.
//!
//! The general path records these as it runs (`Recorder`, filled by select.rs,
//! dml.rs, insert.rs); later executions take the table's metadata lock as
//! `resolve_table` would, check the plan is current, and run the same executor code
//! from the bound parts: parameters stay `Expr::Param` in the bound trees and are
//! evaluated per execution, and the access path is replayed for this execution's
//! values (access_shape.rs) or, where the shape does not fit them, planned again from
//! the bound WHERE. Everything else is as on the general path, which runs around
//! this: privileges, LOCK TABLES (a plan steps aside under it), the write gate,
//! view expansion, triggers, the result metadata (made from each execution's rows).
//!
//! A plan is current while the dictionary version (any DDL), the current database
//! (for an unqualified name), sql_mode and collation_connection are those it was
//! made under, and no TEMPORARY table of the name exists (then the general path runs
//! and no plan is made). A plan whose access-path shape does not fit this
//! execution's values (a value that does not convert losslessly to its key column,
//! NULL, an empty key range) plans the access path again; a LIMIT whose value is not
//! a count steps aside to the general path, which reports it.

use std::sync::Arc;

use kiln_common::Result;

use super::access::{Lock, Trace};
use super::access_shape::AccessShape;
use super::bind::{Scope, conjuncts, visit};
use super::dml::Selection;
use super::select::SourceTable;
use super::select_stage::Clauses;
use crate::ast::{Expr, FromItem, InsertSource, Select, Stmt, TableName};
use crate::collate::Coll;
use crate::dict::TableHandle;
use crate::result::Outcome;
use crate::session::Session;

/// A single-table SELECT's FROM clause, bound.
#[derive(Clone)]
pub(crate) struct TableRead {
    pub scope: Scope,
    /// The table under its alias (one).
    pub tables: Vec<SourceTable>,
    pub filter: Option<Expr>,
    pub needed: Option<Vec<bool>>,
    /// The ORDER BY keys `index_order::request` asks the read for (the LIMIT is each
    /// execution's).
    pub order_keys: Option<Vec<(usize, bool)>>,
    pub lock: Lock,
    pub shape: Option<AccessShape>,
    /// Without a shape: whether a later execution may trace one.
    pub retrace: bool,
}

/// An INSERT's column of each value and its bound ON DUPLICATE KEY UPDATE.
pub(crate) type InsertParts = (Vec<usize>, Vec<(usize, Expr)>);

/// What an execution through the general path (or a plan) leaves for the plan.
#[derive(Default)]
pub(crate) struct Recorder {
    pub read: Option<TableRead>,
    pub clauses: Option<Clauses>,
    /// UPDATE / DELETE: the table and its scope, the bound row selection.
    pub target: Option<(Arc<crate::dict::TableHandle>, Scope)>,
    pub selection: Option<Selection>,
    pub sets: Option<Vec<(usize, Option<Expr>)>>,
    /// INSERT: the column of each value, ON DUPLICATE KEY UPDATE bound.
    pub insert: Option<InsertParts>,
    /// From a plan without an access-path shape: the shape this execution traced.
    pub shape: Option<AccessShape>,
    /// From a plan: the access path was planned again.
    pub replanned: bool,
}

/// The bound parts of the statement.
#[derive(Clone)]
enum Body {
    Select {
        read: Box<TableRead>,
        clauses: Box<Clauses>,
    },
    /// UPDATE (and its assignments) or DELETE (none).
    Change {
        scope: Scope,
        sets: Vec<(usize, Option<Expr>)>,
        sel: Box<Selection>,
    },
    Insert {
        cols: Vec<usize>,
        on_dup: Vec<(usize, Expr)>,
    },
}

/// What a plan was made under.
#[derive(Clone)]
struct Stamp {
    version: u64,
    /// The current database an unqualified table name was resolved in.
    resolved_in: Option<String>,
    sql_mode: String,
    coll: Coll,
}

/// One prepared statement's plan.
#[derive(Clone)]
pub struct StmtPlan {
    table: Arc<TableHandle>,
    /// The name the statement gives the table (and its metadata lock's).
    schema: String,
    name: String,
    write: bool,
    stamp: Stamp,
    body: Body,
}

/// A prepared statement's plan cache. Off for statements run once (COM_QUERY); a
/// prepared statement's is enabled at PREPARE.
#[derive(Default)]
pub struct StmtSlot(parking_lot::Mutex<SlotState>);

#[derive(Default, Clone)]
enum SlotState {
    #[default]
    Off,
    /// Enabled, no plan yet.
    Unknown,
    /// Not of a shape this module plans.
    Never,
    Plan(Arc<StmtPlan>),
}

impl StmtSlot {
    /// Plans are kept for this statement (a prepared one).
    pub fn enable(&self) {
        let mut s = self.0.lock();
        if matches!(*s, SlotState::Off) {
            *s = SlotState::Unknown;
        }
    }

    fn state(&self) -> SlotState {
        self.0.lock().clone()
    }

    fn set(&self, s: SlotState) {
        *self.0.lock() = s;
    }
}

impl Clone for StmtSlot {
    /// A copy of a statement plans for itself, if enabled.
    fn clone(&self) -> StmtSlot {
        let s = StmtSlot::default();
        if !matches!(self.state(), SlotState::Off) {
            s.enable();
        }
        s
    }
}

impl PartialEq for StmtSlot {
    /// The cache is not part of a statement's meaning.
    fn eq(&self, _: &StmtSlot) -> bool {
        true
    }
}

impl std::fmt::Debug for StmtSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StmtSlot")
    }
}

/// Whether `e` binds the same for any parameter values and session state the stamp
/// does not cover: no subquery (run before binding), no DEFAULT(col) (replaced by
/// the default's value when bound), no window function.
fn plain(e: &Expr) -> bool {
    let mut ok = true;
    visit(e, &mut |x| match x {
        Expr::Subquery(_)
        | Expr::Exists(_)
        | Expr::InSubquery { .. }
        | Expr::Quantified(_)
        | Expr::Window(_) => ok = false,
        Expr::Func { name, .. } if name == "default" => ok = false,
        _ => {}
    });
    ok
}

fn all_plain<'a>(mut es: impl Iterator<Item = &'a Expr>) -> bool {
    es.all(plain)
}

/// The table of a SELECT this module plans (module comment), if `s` is one.
fn select_table(s: &Select) -> Option<&TableName> {
    let [FromItem::Table { name, .. }] = s.from.as_slice() else {
        return None;
    };
    // MIN / MAX lists read index ends (minmax.rs): planned each time.
    let extremes = s.items.iter().all(|i| {
        matches!(&i.expr, Expr::Func { name, .. }
            if matches!(name.strip_suffix(" distinct").unwrap_or(name), "min" | "max"))
    });
    let ok = s.union.is_none()
        && s.union_order.is_empty()
        && s.union_limit.is_none()
        && s.union_offset.is_none()
        && s.windows.is_empty()
        && !s.items.is_empty()
        && !extremes
        && all_plain(
            s.items
                .iter()
                .map(|i| &i.expr)
                .chain(s.filter.iter())
                .chain(s.group_by.iter())
                .chain(s.having.iter())
                .chain(s.order_by.iter().map(|o| &o.expr))
                .chain(s.limit.iter())
                .chain(s.offset.iter()),
        );
    ok.then_some(name)
}

/// The table a statement of a planned shape names, and whether it writes it.
fn candidate(stmt: &Stmt) -> Option<(&TableName, bool)> {
    match stmt {
        Stmt::Select(s) => select_table(s).map(|t| (t, false)),
        Stmt::Update(u) => {
            let [FromItem::Table { name, .. }] = u.tables.as_slice() else {
                return None;
            };
            all_plain(
                u.sets
                    .iter()
                    .filter_map(|(_, _, e)| e.as_ref())
                    .chain(u.filter.iter())
                    .chain(u.order_by.iter().map(|o| &o.expr))
                    .chain(u.limit.iter()),
            )
            .then_some((name, true))
        }
        Stmt::Delete(d) => {
            let [FromItem::Table { name, .. }] = d.from.as_slice() else {
                return None;
            };
            (!d.multi
                && all_plain(
                    d.filter
                        .iter()
                        .chain(d.order_by.iter().map(|o| &o.expr))
                        .chain(d.limit.iter()),
                ))
            .then_some((name, true))
        }
        Stmt::Insert(i) => {
            let InsertSource::Values(rows) = &i.source else {
                return None;
            };
            all_plain(
                rows.iter()
                    .flatten()
                    .flatten()
                    .chain(i.on_duplicate.iter().map(|(_, e)| e)),
            )
            .then_some((&i.table, true))
        }
        _ => None,
    }
}

/// Whether `stmt` assigns columns (an UPDATE's plan keeps its assignments).
fn write_sets(stmt: &Stmt) -> bool {
    matches!(stmt, Stmt::Update(_))
}

fn stamp(sess: &mut Session, name: &TableName) -> Option<Stamp> {
    Some(Stamp {
        version: sess.dict().ok()?.version(),
        resolved_in: match name.schema {
            Some(_) => None,
            None => sess.database.clone(),
        },
        sql_mode: sess.cached_vars().sql_mode.clone(),
        coll: crate::eval::Env::collation_connection(&*sess),
    })
}

impl StmtPlan {
    /// Whether the plan still describes what the statement names (module comment;
    /// the current database and TEMPORARY tables are looked at before).
    fn current(&self, sess: &mut Session) -> bool {
        let s = &self.stamp;
        sess.dict().is_ok_and(|d| d.version() == s.version)
            && sess.cached_vars().sql_mode == s.sql_mode
            && crate::eval::Env::collation_connection(&*sess) == s.coll
    }
}

/// What running a plan came to.
enum Ran {
    Done(Result<Outcome>),
    /// A value the plan does not take (before anything was done): the general path.
    Declined,
}

/// Runs `stmt` (a prepared statement's, whose plan cache is `slot`) through its plan,
/// or through the general path while recording a plan. None: not of a planned shape
/// (or under LOCK TABLES, or a TEMPORARY table of the name): the caller runs it.
pub(crate) fn execute(sess: &mut Session, slot: &StmtSlot, stmt: &Stmt) -> Option<Result<Outcome>> {
    let state = slot.state();
    if matches!(state, SlotState::Off | SlotState::Never) || sess.locked.is_some() {
        return None;
    }
    if let SlotState::Plan(plan) = state
        && (plan.stamp.resolved_in.is_none() || plan.stamp.resolved_in == sess.database)
    {
        if sess.temp_shadows(&plan.schema, &plan.name) {
            return None;
        }
        // The lock first, then the dictionary version, as resolve_table does.
        let mode = super::select::lock_mode(sess, plan.write);
        if let Err(e) = sess.lock_name(&plan.schema, &plan.name, mode) {
            return Some(Err(e));
        }
        if plan.current(sess) {
            let mut rec = Recorder::default();
            match run(sess, &plan, stmt, &mut rec) {
                Ran::Done(r) => {
                    crate::status::add("Kiln_prepared_plan_hits", 1);
                    if rec.replanned {
                        crate::status::add("Kiln_prepared_plan_replans", 1);
                    }
                    if let Some(shape) = rec.shape {
                        slot.set(SlotState::Plan(Arc::new(plan.with_shape(shape))));
                    }
                    return Some(r);
                }
                Ran::Declined => return None,
            }
        }
    }
    // No plan yet, or one gone stale.
    let Some((name, write)) = candidate(stmt) else {
        slot.set(SlotState::Never);
        return None;
    };
    let schema = name.schema.as_ref().or(sess.database.as_ref())?.clone();
    if sess.temp_shadows(&schema, &name.name) || super::select::is_info_schema(sess, name) {
        return None;
    }
    let before = stamp(sess, name)?;
    Some(record(sess, slot, stmt, name, schema, write, before))
}

/// The general path with a recorder; keeps the plan if the execution succeeded and
/// made every part of it.
fn record(
    sess: &mut Session,
    slot: &StmtSlot,
    stmt: &Stmt,
    name: &TableName,
    schema: String,
    write: bool,
    before: Stamp,
) -> Result<Outcome> {
    slot.set(SlotState::Unknown);
    let mut rec = Recorder::default();
    let r = match stmt {
        Stmt::Select(s) => {
            super::select::run_one_recorded(sess, s, Some(&mut rec)).map(Outcome::Rows)
        }
        Stmt::Update(u) => super::dml::update_single(sess, u, None, Some(&mut rec)),
        Stmt::Delete(d) => super::dml::delete_single(sess, d, None, Some(&mut rec)),
        Stmt::Insert(i) => super::insert::insert_with(sess, i, None, Some(&mut rec)),
        _ => {
            return Err(kiln_common::KilnError::internal(
                "no plan for this statement",
            ));
        }
    };
    if r.is_err() || sess.dict().map(|d| d.version()).ok() != Some(before.version) {
        return r;
    }
    let made = match stmt {
        Stmt::Select(_) => match (rec.read, rec.clauses) {
            (Some(read), Some(clauses)) => Some((
                read.tables[0].handle.clone(),
                Body::Select {
                    read: Box::new(read),
                    clauses: Box::new(clauses),
                },
            )),
            _ => None,
        },
        Stmt::Update(_) | Stmt::Delete(_) => match (rec.target, rec.sets, rec.selection) {
            (Some((h, scope)), sets, Some(sel)) if sets.is_some() == write_sets(stmt) => Some((
                h,
                Body::Change {
                    scope,
                    sets: sets.unwrap_or_default(),
                    sel: Box::new(sel),
                },
            )),
            _ => None,
        },
        Stmt::Insert(_) => match (rec.target, rec.insert) {
            (Some((h, _)), Some((cols, on_dup))) => Some((h, Body::Insert { cols, on_dup })),
            _ => None,
        },
        _ => None,
    };
    if let Some((table, body)) = made
        && !table.temporary
        && table.def.name.eq_ignore_ascii_case(&name.name)
    {
        crate::status::add("Kiln_prepared_plans", 1);
        slot.set(SlotState::Plan(Arc::new(StmtPlan {
            schema,
            name: name.name.clone(),
            table,
            write,
            stamp: before,
            body,
        })));
    }
    r
}

impl StmtPlan {
    /// The plan with an access-path shape traced at a later execution.
    fn with_shape(&self, shape: AccessShape) -> StmtPlan {
        let mut p = self.clone();
        match &mut p.body {
            Body::Select { read, .. } => read.shape = Some(shape),
            Body::Change { sel, .. } => sel.shape = Some(shape),
            Body::Insert { .. } => {}
        }
        p
    }
}

/// Runs `stmt` from `plan` (current, its table locked).
fn run(sess: &mut Session, plan: &StmtPlan, stmt: &Stmt, rec: &mut Recorder) -> Ran {
    match (&plan.body, stmt) {
        (Body::Select { read, clauses }, Stmt::Select(s)) => {
            match run_select(sess, s, read, clauses, rec) {
                Ok(Some(rows)) => Ran::Done(Ok(Outcome::Rows(rows))),
                Ok(None) => Ran::Declined,
                Err(e) => Ran::Done(Err(e)),
            }
        }
        (Body::Change { scope, sets, sel }, stmt) => {
            let pre = super::dml::PlanParts {
                h: &plan.table,
                scope,
                sets,
                sel,
            };
            match stmt {
                Stmt::Update(u) => {
                    Ran::Done(super::dml::update_single(sess, u, Some(pre), Some(rec)))
                }
                Stmt::Delete(d) => {
                    Ran::Done(super::dml::delete_single(sess, d, Some(pre), Some(rec)))
                }
                _ => Ran::Declined,
            }
        }
        (Body::Insert { cols, on_dup }, Stmt::Insert(i)) => {
            let pre = super::insert::InsertBound {
                h: &plan.table,
                cols,
                on_dup,
            };
            Ran::Done(super::insert::insert_with(sess, i, Some(pre), None))
        }
        _ => Ran::Declined,
    }
}

/// A single-table SELECT from its plan: the read (access path replayed, or planned
/// again from the bound WHERE), then the bound clauses over its rows. None: the
/// LIMIT / OFFSET is not a count (the general path reports it).
fn run_select(
    sess: &mut Session,
    s: &Select,
    read: &TableRead,
    clauses: &Clauses,
    rec: &mut Recorder,
) -> Result<Option<crate::result::Rows>> {
    let h = &read.tables[0].handle;
    let limit = match &read.order_keys {
        Some(_) => match super::index_order::request_limit(sess, s) {
            Some(l) => l,
            None => return Ok(None),
        },
        None => None,
    };
    let replayed = match &read.shape {
        Some(shape) => shape.replay(h, sess)?,
        None => None,
    };
    let (plan, ordered) = match replayed {
        Some(x) => x,
        None => {
            rec.replanned = true;
            let conj: Vec<&Expr> = read.filter.as_ref().map(conjuncts).unwrap_or_default();
            let order = read
                .order_keys
                .as_ref()
                .map(|keys| super::index_order::OrderReq {
                    keys: keys.clone(),
                    limit,
                });
            let mut tr = match read.shape {
                None if read.retrace => Trace::on(),
                _ => Trace::off(),
            };
            let chosen = super::select::choose_read(
                h,
                &conj,
                sess,
                read.lock,
                read.needed.as_deref(),
                order.as_ref(),
                &mut tr,
            )?;
            rec.shape = tr.shape(&chosen.0, chosen.1);
            chosen
        }
    };
    let scan = super::select::TableScan {
        h,
        scope: Some(&read.scope),
        filter: read.filter.as_ref(),
        lock: read.lock,
        needed: read.needed.as_deref(),
    };
    let ((_, rows), ordered) = super::select::read_chosen(sess, scan, plan, ordered, limit)?;
    super::select_stage::finish(
        sess,
        s,
        clauses,
        &read.scope,
        &read.tables,
        rows,
        ordered,
        false,
    )
    .map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexer::LexMode;

    fn shape(sql: &str) -> Option<(String, bool)> {
        let p = crate::parse::parse_one(sql, LexMode::default()).unwrap();
        candidate(&p.stmt).map(|(t, w)| (t.name.clone(), w))
    }

    #[test]
    fn planned_shapes() {
        let t = |w| Some(("t".to_string(), w));
        for sql in [
            "SELECT c FROM t WHERE id BETWEEN ? AND ?",
            "SELECT DISTINCT c FROM t WHERE id BETWEEN ? AND ? ORDER BY c",
            "SELECT SUM(k) FROM t WHERE id BETWEEN ? AND ?",
            "SELECT MAX(c), COUNT(*) FROM t WHERE k = ? GROUP BY id LIMIT ?",
            "SELECT * FROM t WHERE id = ? FOR UPDATE",
        ] {
            assert_eq!(shape(sql), t(false), "{sql}");
        }
        for sql in [
            "UPDATE t SET k=k+1 WHERE id=?",
            "UPDATE t SET c=? WHERE id=? ORDER BY id LIMIT ?",
            "DELETE FROM t WHERE id=?",
            "INSERT INTO t (id,k,c,pad) VALUES (?,?,?,?)",
            "INSERT INTO t VALUES (?, DEFAULT) ON DUPLICATE KEY UPDATE k = VALUES(k)",
            "REPLACE INTO t (id) VALUES (?)",
        ] {
            assert_eq!(shape(sql), t(true), "{sql}");
        }
        for sql in [
            "SELECT MIN(id), MAX(id) FROM t WHERE k = ?",
            "SELECT c FROM t WHERE id IN (SELECT id FROM u)",
            "SELECT c FROM t, u WHERE t.id = u.id",
            "SELECT c FROM t UNION SELECT c FROM u",
            "SELECT ROW_NUMBER() OVER () FROM t",
            "SELECT 1",
            "UPDATE t SET k = DEFAULT(k) WHERE id = ?",
            "UPDATE t, u SET t.k = u.k WHERE t.id = u.id",
            "DELETE t FROM t JOIN u ON t.id = u.id",
            "INSERT INTO t SELECT * FROM u",
            "INSERT INTO t SET id = ?",
            "INSERT INTO t VALUES ((SELECT 1))",
        ] {
            assert_eq!(shape(sql), None, "{sql}");
        }
    }
}
