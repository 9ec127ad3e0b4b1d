//! The interpreter of compound statements: runs a `Body` in a `Frame` of local
//! variables (a routine's parameters first), conditions, handlers and cursors, with
//! (in a trigger) the OLD and NEW rows of `Rows`.
//!
//! Expressions are evaluated by substituting the current values of local variables
//! and NEW/OLD columns (subst.rs), then evaluating like any constant expression, so
//! every function and subquery kiln has works inside a body. Statements run in one
//! of two ways:
//! - inside a statement (a trigger, a stored function, and anything they call: the
//!   "atomic" context), data statements run through the executor functions directly
//!   (`run_sql`), each as its own statement inside the caller's: its own savepoint
//!   undoes it on error, and the caller's undoes the rest;
//! - in a procedure CALLed as a statement, each statement is dispatched like a
//!   client's (`Session::dispatch`: privileges, implicit commits, DDL), a SELECT's
//!   rows become a result set for the client (`Session::results`), and with
//!   autocommit each statement commits on its own, as in MySQL.
//!
//! Flow: LEAVE and ITERATE unwind to their label, RETURN to the function, an EXIT
//! handler to the block that declared it, all as `Flow` values; an error (SIGNAL
//! included) unwinds as `Err` until a handler takes it (handler.rs) or it leaves the
//! body.

use kiln_common::{ErrorKind, KilnError, Result};

use super::check::Context;
use super::handler::{ActiveHandler, Cond};
use super::{Body, CondValue, LOOP_ITERATIONS_MAX, LoopKind, RStmt, Target, VARIABLES_MAX, subst};
use crate::ast::*;
use crate::dict::TableHandle;
use crate::eval::{Env, Level, eval};
use crate::result::Outcome;
use crate::session::Session;
use crate::types::{SqlType, StoreMode, store};
use crate::value::Value;

/// The OLD and NEW rows a trigger body sees.
pub struct Rows<'a> {
    /// The trigger's table (NEW.col / OLD.col name its columns).
    pub table: &'a TableHandle,
    pub old: Option<&'a [Value]>,
    pub new: Option<&'a mut Vec<Value>>,
    /// SET NEW.col is allowed (a BEFORE trigger).
    pub new_writable: bool,
}

/// A cursor of a frame: its SELECT and, while open, the rows not fetched yet.
pub(super) struct Cursor<'b> {
    pub name: String,
    pub select: &'b Select,
    pub rows: Option<std::vec::IntoIter<Vec<Value>>>,
}

/// Local variables (name, type, value), conditions, handlers and cursors, innermost
/// last; a block's are dropped when it ends.
#[derive(Default)]
pub(super) struct Frame<'b> {
    pub vars: Vec<(String, SqlType, Value)>,
    pub conds: Vec<(String, CondValue)>,
    pub handlers: Vec<ActiveHandler<'b>>,
    pub cursors: Vec<Cursor<'b>>,
}

impl Frame<'_> {
    fn get(&self, name: &str) -> Option<usize> {
        self.vars
            .iter()
            .rposition(|(n, _, _)| n.eq_ignore_ascii_case(name))
    }

    fn marks(&self) -> [usize; 4] {
        [
            self.vars.len(),
            self.conds.len(),
            self.handlers.len(),
            self.cursors.len(),
        ]
    }

    fn truncate(&mut self, m: [usize; 4]) {
        self.vars.truncate(m[0]);
        self.conds.truncate(m[1]);
        self.handlers.truncate(m[2]);
        self.cursors.truncate(m[3]);
    }

    fn items(&self) -> usize {
        self.vars.len() + self.conds.len() + self.handlers.len() + self.cursors.len()
    }
}

/// How a statement ended.
pub(super) enum Flow {
    Next,
    Leave(String),
    Iterate(String),
    /// RETURN's value.
    Return(Value),
    /// An EXIT handler ran: leave the block at this nesting level.
    Exit(usize),
}

/// What a routine's body left: its parameters' final values (OUT / INOUT), a
/// function's RETURN value, and the rows the last data statement affected.
pub struct Finished {
    pub params: Vec<Value>,
    pub returned: Option<Value>,
    pub affected: u64,
}

/// Runs a trigger's body.
pub fn run(sess: &mut Session, body: &Body, rows: &mut Rows<'_>) -> Result<()> {
    run_body(sess, body, Some(rows), Vec::new(), Context::Trigger).map(drop)
}

/// Runs a procedure's or function's body with its parameters as the first local
/// variables.
pub fn run_routine(
    sess: &mut Session,
    body: &Body,
    params: Vec<(String, SqlType, Value)>,
    ctx: Context,
) -> Result<Finished> {
    run_body(sess, body, None, params, ctx)
}

fn run_body(
    sess: &mut Session,
    body: &Body,
    rows: Option<&mut Rows<'_>>,
    params: Vec<(String, SqlType, Value)>,
    ctx: Context,
) -> Result<Finished> {
    let n = params.len();
    let mut cx = Cx {
        sess,
        frame: Frame {
            vars: params,
            ..Default::default()
        },
        rows,
        ctx,
        level: 0,
        masked: Vec::new(),
        escape_mask: None,
        handling: Vec::new(),
        signal_states: Vec::new(),
        affected: 0,
    };
    let returned = match cx.stmt(&body.stmt)? {
        Flow::Next | Flow::Exit(_) => None,
        Flow::Return(v) => Some(v),
        Flow::Leave(l) | Flow::Iterate(l) => {
            return Err(KilnError::new(
                ErrorKind::ER_SP_LILABEL_MISMATCH,
                &[&"LEAVE", &l],
            ));
        }
    };
    Ok(Finished {
        params: cx.frame.vars.into_iter().take(n).map(|v| v.2).collect(),
        returned,
        affected: cx.affected,
    })
}

pub(super) struct Cx<'s, 'r, 'a, 'b> {
    pub sess: &'s mut Session,
    pub frame: Frame<'b>,
    pub rows: Option<&'r mut Rows<'a>>,
    pub ctx: Context,
    /// Nesting level of the block running (handlers remember theirs).
    pub level: usize,
    /// Ranges of `frame.handlers` not active while a handler of theirs runs.
    pub masked: Vec<std::ops::Range<usize>>,
    /// An error leaving a handler's body: handlers from this index on cannot take it.
    pub escape_mask: Option<usize>,
    /// The conditions of the handlers running, innermost last (RESIGNAL).
    pub handling: Vec<Cond>,
    /// SQLSTATEs of the warnings SIGNAL raised: (code, state).
    pub signal_states: Vec<(u16, [u8; 5])>,
    /// Rows the last data statement affected (a CALL's affected-rows count).
    pub affected: u64,
}

fn unknown_column(q: &str, name: &str) -> KilnError {
    KilnError::new(ErrorKind::ER_BAD_FIELD_ERROR, &[&name, &q])
}

/// Statements that contain others (their conditions' warnings are not checked for
/// handlers; the statements inside them are).
fn compound(s: &RStmt) -> bool {
    matches!(
        s,
        RStmt::Block { .. }
            | RStmt::If { .. }
            | RStmt::Case { .. }
            | RStmt::Loop { .. }
            | RStmt::DeclareHandler { .. }
    )
}

impl<'b> Cx<'_, '_, '_, 'b> {
    /// Inside a statement (a trigger or stored function is running): no result sets,
    /// no commits, data statements run directly.
    pub fn atomic(&self) -> bool {
        self.ctx != Context::Procedure || self.sess.in_atomic_routine()
    }

    /// The value a name in an expression stands for (None: not a routine name).
    pub fn lookup(&self, q: Option<&str>, name: &str) -> Result<Option<Value>> {
        match q {
            None => Ok(self.frame.get(name).map(|i| self.frame.vars[i].2.clone())),
            Some(q)
                if self.rows.is_some()
                    && (q.eq_ignore_ascii_case("NEW") || q.eq_ignore_ascii_case("OLD")) =>
            {
                let Some(rows) = self.rows.as_deref() else {
                    return Ok(None);
                };
                let new = q.eq_ignore_ascii_case("NEW");
                let Some(c) = rows.table.def.column_index(name) else {
                    return Err(unknown_column(&q.to_ascii_uppercase(), name));
                };
                let row: Option<&[Value]> = if new {
                    rows.new.as_deref().map(|v| v.as_slice())
                } else {
                    rows.old
                };
                match row {
                    Some(r) => Ok(Some(r.get(c).cloned().unwrap_or(Value::Null))),
                    None => Err(unknown_column(&q.to_ascii_uppercase(), name)),
                }
            }
            Some(_) => Ok(None),
        }
    }

    pub fn value(&mut self, e: &Expr) -> Result<Value> {
        let e = subst::expr(e, &subst::by(|q, n| self.lookup(q, n)))?;
        let mut reads = false;
        crate::exec::bind::visit(&e, &mut |x| {
            reads |= matches!(
                x,
                Expr::Subquery(_) | Expr::Exists(_) | Expr::InSubquery { .. } | Expr::Quantified(_)
            )
        });
        if reads {
            // The tables its subqueries read, for the account the body runs as.
            crate::privcheck::check(self.sess, &Stmt::Do(vec![e.clone()]))?;
        }
        let e = crate::exec::select::run_subqueries(self.sess, &e)?;
        eval(&e, self.sess)
    }

    fn truth(&mut self, e: &Expr) -> Result<bool> {
        Ok(self.value(e)?.to_bool() == Some(true))
    }

    /// A statement list: each statement's errors and warnings go to the handlers in
    /// scope (handler.rs); a CONTINUE handler resumes with the next statement.
    fn list(&mut self, body: &'b [RStmt]) -> Result<Flow> {
        for s in body {
            let simple = !compound(s);
            let mark = self.sess.diagnostics().len();
            if simple && !self.atomic() {
                self.sess.statement_pending = true;
            }
            let cond = match self.stmt(s) {
                Ok(Flow::Next) => {
                    if simple && !self.atomic() {
                        self.statement_done()?;
                    }
                    match self.warning_condition(mark) {
                        Some((c, at)) => {
                            self.sess.remove_diagnostic(at);
                            c
                        }
                        None => continue,
                    }
                }
                Ok(other) => return Ok(other),
                Err(e) if !super::handler::handleable(&e) => return Err(e),
                Err(e) => Cond::from_error(e),
            };
            match self.find_handler(&cond) {
                None if cond.error => return Err(cond.into_error()),
                None => {}
                Some(i) => match self.run_handler(i, cond)? {
                    Flow::Next => {}
                    other => return Ok(other),
                },
            }
        }
        Ok(Flow::Next)
    }

    /// After a statement of a procedure run as a statement: with autocommit its
    /// transaction commits (MySQL commits each statement of a procedure).
    fn statement_done(&mut self) -> Result<()> {
        self.sess.end_statement(Ok(Outcome::ok()))?;
        self.sess.release_mdl_if_idle();
        Ok(())
    }

    fn block(&mut self, label: Option<&str>, body: &'b [RStmt]) -> Result<Flow> {
        let mark = self.frame.marks();
        self.level += 1;
        let level = self.level;
        let r = self.list(body);
        self.level -= 1;
        self.frame.truncate(mark);
        if self.escape_mask.is_some_and(|m| m >= mark[2]) {
            self.escape_mask = None;
        }
        match r? {
            Flow::Leave(l) if label.is_some_and(|x| x.eq_ignore_ascii_case(&l)) => Ok(Flow::Next),
            Flow::Exit(l) if l == level => Ok(Flow::Next),
            other => Ok(other),
        }
    }

    fn room(&self) -> Result<()> {
        if self.frame.items() >= VARIABLES_MAX {
            return Err(KilnError::new(
                ErrorKind::ER_NOT_SUPPORTED_YET,
                &[&"more local variables, conditions, handlers and cursors"],
            ));
        }
        Ok(())
    }

    pub(super) fn stmt(&mut self, s: &'b RStmt) -> Result<Flow> {
        if self.sess.is_interrupted() {
            return Err(ErrorKind::ER_QUERY_INTERRUPTED.into());
        }
        match s {
            RStmt::Block { label, body } => self.block(label.as_deref(), body),
            RStmt::Declare { names, ty, default } => {
                let v = match default {
                    Some(e) => self.value(e)?,
                    None => Value::Null,
                };
                for n in names {
                    self.room()?;
                    let v = self.convert(ty, n, &v)?;
                    self.frame.vars.push((n.clone(), ty.clone(), v));
                }
                Ok(Flow::Next)
            }
            RStmt::DeclareCondition { name, value } => {
                self.room()?;
                self.frame.conds.push((name.clone(), value.clone()));
                Ok(Flow::Next)
            }
            RStmt::DeclareHandler {
                action,
                conds,
                body,
            } => {
                self.room()?;
                let h = self.declare_handler(*action, conds, body)?;
                self.frame.handlers.push(h);
                Ok(Flow::Next)
            }
            RStmt::DeclareCursor { name, select } => {
                self.room()?;
                self.frame.cursors.push(Cursor {
                    name: name.clone(),
                    select,
                    rows: None,
                });
                Ok(Flow::Next)
            }
            RStmt::Open(c) => self.open(c).map(|()| Flow::Next),
            RStmt::Close(c) => self.cursor(c)?.rows.take().map_or_else(
                || Err(ErrorKind::ER_SP_CURSOR_NOT_OPEN.into()),
                |_| Ok(Flow::Next),
            ),
            RStmt::Fetch { cursor, targets } => self.fetch(cursor, targets).map(|()| Flow::Next),
            RStmt::Set(items) => {
                for (t, e) in items {
                    let v = self.value(e)?;
                    self.assign(t, v)?;
                }
                Ok(Flow::Next)
            }
            RStmt::If {
                branches,
                otherwise,
            } => {
                for (cond, body) in branches {
                    if self.truth(cond)? {
                        return self.list(body);
                    }
                }
                match otherwise {
                    Some(b) => self.list(b),
                    None => Ok(Flow::Next),
                }
            }
            RStmt::Case {
                operand,
                whens,
                otherwise,
            } => {
                let op = match operand {
                    Some(e) => Some(self.value(e)?),
                    None => None,
                };
                for (w, body) in whens {
                    let hit = match &op {
                        Some(v) => {
                            let w = self.value(w)?;
                            crate::eval::compare(v, &w) == Some(std::cmp::Ordering::Equal)
                        }
                        None => self.truth(w)?,
                    };
                    if hit {
                        return self.list(body);
                    }
                }
                match otherwise {
                    Some(b) => self.list(b),
                    None => Err(ErrorKind::ER_SP_CASE_NOT_FOUND.into()),
                }
            }
            RStmt::Loop {
                kind,
                label,
                cond,
                body,
            } => self.run_loop(*kind, label.as_deref(), cond.as_ref(), body),
            RStmt::Leave(l) => Ok(Flow::Leave(l.clone())),
            RStmt::Iterate(l) => Ok(Flow::Iterate(l.clone())),
            RStmt::Return(e) => Ok(Flow::Return(self.value(e)?)),
            RStmt::Signal {
                resignal,
                sqlstate,
                condition,
                message,
                errno,
            } => self.signal(
                *resignal,
                sqlstate.as_deref(),
                condition.as_deref(),
                message.as_ref(),
                errno.as_ref(),
            ),
            RStmt::SelectInto { select, targets } => {
                let sel = subst::select(select, &subst::by(|q, n| self.lookup(q, n)))?;
                crate::privcheck::check(self.sess, &Stmt::Select(Box::new(sel.clone())))?;
                let rows = crate::exec::select::run(self.sess, &sel)?;
                if rows.columns.len() != targets.len() {
                    return Err(ErrorKind::ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT.into());
                }
                match rows.rows.len() {
                    0 => {
                        let e: KilnError = ErrorKind::ER_SP_FETCH_NO_DATA.into();
                        self.sess.warn(Level::Warning, e.code, e.message);
                    }
                    1 => {
                        let row = rows.rows.into_iter().next().unwrap_or_default();
                        for (t, v) in targets.iter().zip(row) {
                            self.assign(t, v)?;
                        }
                    }
                    _ => return Err(ErrorKind::ER_TOO_MANY_ROWS.into()),
                }
                Ok(Flow::Next)
            }
            RStmt::Sql(stmt) => {
                if let Stmt::Call { name, args } = &**stmt {
                    let o = super::call::procedure(self, name, args, false)?;
                    self.note_outcome(o)?;
                    return Ok(Flow::Next);
                }
                let stmt = subst::stmt(stmt, &subst::by(|q, n| self.lookup(q, n)))?;
                let o = if self.atomic() {
                    run_sql(self.sess, &stmt)?
                } else {
                    self.sess
                        .dispatch(&stmt, &mut crate::exec::load::NoLocalInfile)?
                };
                self.note_outcome(o)?;
                Ok(Flow::Next)
            }
        }
    }

    /// A statement's outcome: a result set goes to the client, affected rows are
    /// remembered (ROW_COUNT(), the CALL's count).
    fn note_outcome(&mut self, o: Outcome) -> Result<()> {
        match o {
            Outcome::Ok { affected_rows, .. } => {
                self.affected = affected_rows;
                self.sess.set_row_count(affected_rows as i64);
            }
            Outcome::Rows(rows) => {
                if self.atomic() {
                    return Err(KilnError::new(
                        ErrorKind::ER_SP_NO_RETSET,
                        &[&self.sess.atomic_kind()],
                    ));
                }
                self.affected = 0;
                self.sess.set_row_count(-1);
                self.sess.push_result(rows)?;
            }
        }
        Ok(())
    }

    fn run_loop(
        &mut self,
        kind: LoopKind,
        label: Option<&str>,
        cond: Option<&Expr>,
        body: &'b [RStmt],
    ) -> Result<Flow> {
        let mine = |l: &str| label.is_some_and(|x| x.eq_ignore_ascii_case(l));
        let mut n = 0u64;
        loop {
            n += 1;
            if n > LOOP_ITERATIONS_MAX {
                return Err(KilnError::new(
                    ErrorKind::ER_NOT_SUPPORTED_YET,
                    &[&"a loop of more than 1000000 iterations in one execution"],
                ));
            }
            if kind == LoopKind::While
                && let Some(c) = cond
                && !self.truth(c)?
            {
                return Ok(Flow::Next);
            }
            let mark = self.frame.marks();
            let r = self.list(body);
            self.frame.truncate(mark);
            match r? {
                Flow::Next => {}
                Flow::Leave(l) if mine(&l) => return Ok(Flow::Next),
                Flow::Iterate(l) if mine(&l) => continue,
                other => return Ok(other),
            }
            if kind == LoopKind::Repeat
                && let Some(c) = cond
                && self.truth(c)?
            {
                return Ok(Flow::Next);
            }
        }
    }

    pub fn convert(&mut self, ty: &SqlType, name: &str, v: &Value) -> Result<Value> {
        convert(self.sess, ty, name, v)
    }

    /// Index of local variable `name`.
    pub fn local(&self, name: &str) -> Option<usize> {
        self.frame.get(name)
    }

    /// Sets local variable `i` (converted to its type).
    pub fn set_local(&mut self, i: usize, v: Value) -> Result<()> {
        let (name, ty) = (self.frame.vars[i].0.clone(), self.frame.vars[i].1.clone());
        self.frame.vars[i].2 = self.convert(&ty, &name, &v)?;
        Ok(())
    }

    pub fn new_writable(&self) -> bool {
        self.rows.as_ref().is_some_and(|r| r.new_writable)
    }

    pub fn assign(&mut self, t: &Target, v: Value) -> Result<()> {
        match t {
            Target::Local(name) => match self.frame.get(name) {
                Some(i) => self.set_local(i, v),
                // Not a local: a system variable (SET sql_mode = ...), as MySQL.
                None => self.sess.set_vars(&[(
                    SetTarget::System {
                        scope: VarScope::Session,
                        name: name.clone(),
                    },
                    SetValue::Expr(Expr::Literal(v)),
                )]),
            },
            Target::User(name) => {
                self.sess.set_user_var(name, v);
                Ok(())
            }
            Target::System(scope, name) => self.sess.set_vars(&[(
                SetTarget::System {
                    scope: *scope,
                    name: name.clone(),
                },
                SetValue::Expr(Expr::Literal(v)),
            )]),
            Target::Old(_) => Err(KilnError::new(
                ErrorKind::ER_TRG_CANT_CHANGE_ROW,
                &[&"OLD", &""],
            )),
            Target::New(col) => {
                if !self.new_writable() {
                    return Err(KilnError::new(
                        ErrorKind::ER_TRG_CANT_CHANGE_ROW,
                        &[&"NEW", &"after "],
                    ));
                }
                let Some(rows) = self.rows.as_deref_mut() else {
                    return Err(unknown_column("NEW", col));
                };
                let h = rows.table;
                let c = h
                    .def
                    .column_index(col)
                    .ok_or_else(|| unknown_column("NEW", col))?;
                let strict = self.sess.strict_mode();
                let stored = if v.is_null() {
                    Value::Null
                } else {
                    crate::exec::dml::store_column(self.sess, h, c, &v, strict, 1)?
                };
                let Some(new) = rows.new.as_deref_mut() else {
                    return Err(unknown_column("NEW", col));
                };
                if let Some(slot) = new.get_mut(c) {
                    *slot = stored;
                }
                Ok(())
            }
        }
    }

    fn cursor(&mut self, name: &str) -> Result<&mut Cursor<'b>> {
        self.frame
            .cursors
            .iter_mut()
            .rev()
            .find(|c| c.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| KilnError::new(ErrorKind::ER_SP_CURSOR_MISMATCH, &[&name]))
    }

    /// OPEN: runs the cursor's SELECT with the variables' current values (the rows
    /// are read now, as MySQL materializes a cursor).
    fn open(&mut self, name: &str) -> Result<()> {
        let c = self.cursor(name)?;
        if c.rows.is_some() {
            return Err(ErrorKind::ER_SP_CURSOR_ALREADY_OPEN.into());
        }
        let select = c.select;
        let sel = subst::select(select, &subst::by(|q, n| self.lookup(q, n)))?;
        crate::privcheck::check(self.sess, &Stmt::Select(Box::new(sel.clone())))?;
        let rows = crate::exec::select::run(self.sess, &sel)?;
        self.cursor(name)?.rows = Some(rows.rows.into_iter());
        Ok(())
    }

    /// FETCH: the next row into the targets; none left is the NOT FOUND condition
    /// (1329, SQLSTATE 02000).
    fn fetch(&mut self, name: &str, targets: &[Target]) -> Result<()> {
        let c = self.cursor(name)?;
        let Some(rows) = c.rows.as_mut() else {
            return Err(ErrorKind::ER_SP_CURSOR_NOT_OPEN.into());
        };
        let Some(row) = rows.next() else {
            return Err(ErrorKind::ER_SP_FETCH_NO_DATA.into());
        };
        if row.len() != targets.len() {
            return Err(ErrorKind::ER_SP_WRONG_NO_OF_FETCH_ARGS.into());
        }
        for (t, v) in targets.iter().zip(row) {
            self.assign(t, v)?;
        }
        Ok(())
    }
}

/// `v` stored into a variable or parameter of type `ty` (MySQL's conversions: errors
/// in strict mode, warnings otherwise).
pub fn convert(sess: &mut Session, ty: &SqlType, name: &str, v: &Value) -> Result<Value> {
    let mut warnings = Vec::new();
    let strict = sess.strict_mode();
    let out = store(ty, name, v, StoreMode { strict, row: 1 }, &mut warnings)?;
    for w in warnings {
        let level = if w.note { Level::Note } else { Level::Warning };
        sess.warn(level, w.code, w.message);
    }
    Ok(out)
}

/// The tables a data statement writes (1442 checks), as (schema, name).
pub fn written_tables(sess: &Session, s: &Stmt) -> Vec<(String, String)> {
    let qualify = |t: &TableName| {
        (
            t.schema
                .clone()
                .or_else(|| sess.database.clone())
                .unwrap_or_default(),
            t.name.clone(),
        )
    };
    fn from_tables(f: &FromItem, out: &mut Vec<TableName>) {
        match f {
            FromItem::Table { name, .. } => out.push(name.clone()),
            FromItem::Derived { .. } => {}
            FromItem::Join { left, right, .. } => {
                from_tables(left, out);
                from_tables(right, out);
            }
        }
    }
    let mut names = Vec::new();
    match s {
        Stmt::Insert(i) => names.push(i.table.clone()),
        Stmt::Update(u) => u.tables.iter().for_each(|f| from_tables(f, &mut names)),
        Stmt::Delete(d) if d.multi => names.extend(d.targets.iter().cloned()),
        Stmt::Delete(d) => d.from.iter().for_each(|f| from_tables(f, &mut names)),
        _ => {}
    }
    names.iter().map(qualify).collect()
}

/// Runs one data statement of a body inside a statement (privileges of the account
/// it runs as checked, views expanded, 1442 checked).
fn run_sql(sess: &mut Session, stmt: &Stmt) -> Result<Outcome> {
    let ctx = if sess.atomic_kind() == "trigger" {
        Context::Trigger
    } else {
        Context::Function
    };
    if let Some(e) = super::check::statement_allowed(stmt, ctx) {
        return Err(e);
    }
    crate::privcheck::check(sess, stmt)?;
    let expanded = crate::exec::view::expand(sess, stmt)?;
    let stmt = expanded.as_ref().unwrap_or(stmt);
    for (s, t) in written_tables(sess, stmt) {
        if sess.used_by_invoker(&s, &t) {
            return Err(KilnError::new(
                ErrorKind::ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG,
                &[&t],
            ));
        }
    }
    let mark = sess.note_statement_tables(stmt);
    let r = run_data_statement(sess, stmt);
    sess.statement_tables.truncate(mark);
    r
}

fn run_data_statement(sess: &mut Session, stmt: &Stmt) -> Result<Outcome> {
    match stmt {
        Stmt::Insert(i) => crate::exec::dml::insert(sess, i),
        Stmt::Update(u) => crate::exec::dml::update(sess, u),
        Stmt::Delete(d) => crate::exec::dml::delete(sess, d),
        Stmt::Do(exprs) => {
            for e in exprs {
                let e = crate::exec::select::run_subqueries(sess, e)?;
                eval(&e, sess)?;
            }
            Ok(Outcome::ok())
        }
        _ => Err(KilnError::new(
            ErrorKind::ER_NOT_SUPPORTED_YET,
            &[&"this statement in a stored function or trigger"],
        )),
    }
}
