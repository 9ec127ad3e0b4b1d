//! The interpreter of compound statements: runs a `Body` in a `Frame` of local
//! variables, with (in a trigger) the OLD and NEW rows of `Rows`.
//!
//! Expressions are evaluated by substituting the current values of local variables
//! and NEW/OLD columns (subst.rs), then evaluating like any constant expression, so
//! every function and subquery kiln has works inside a body. Data statements run
//! through the same executor functions as top-level ones (exec/dml.rs ...), each as
//! its own statement inside the caller's (its own savepoint: an error undoes it, and
//! the error then fails the caller, whose savepoint undoes the rest).
//!
//! Flow: LEAVE and ITERATE unwind to their label as `Flow` values; an error (SIGNAL
//! included) unwinds as `Err`. There are no handlers yet (DECLARE ... HANDLER is 1235
//! at CREATE), so any error ends the body.

use kiln_common::{ErrorKind, KilnError, Result};

use super::{Body, LOOP_ITERATIONS_MAX, LoopKind, RStmt, Target, VARIABLES_MAX, subst};
use crate::ast::*;
use crate::dict::TableHandle;
use crate::eval::{Env, Level, eval};
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

/// Local variables: (name, type, value), innermost last.
#[derive(Default)]
pub struct Frame {
    vars: Vec<(String, SqlType, Value)>,
}

impl Frame {
    fn get(&self, name: &str) -> Option<usize> {
        self.vars
            .iter()
            .rposition(|(n, _, _)| n.eq_ignore_ascii_case(name))
    }
}

/// How a statement ended (LEAVE / ITERATE unwind to their label).
enum Flow {
    Next,
    Leave(String),
    Iterate(String),
}

/// Runs a body.
pub fn run(sess: &mut Session, body: &Body, rows: &mut Rows<'_>) -> Result<()> {
    let mut frame = Frame::default();
    let mut cx = Cx {
        sess,
        frame: &mut frame,
        rows,
    };
    match cx.stmt(&body.stmt)? {
        Flow::Next => Ok(()),
        Flow::Leave(l) | Flow::Iterate(l) => Err(KilnError::new(
            ErrorKind::ER_SP_LILABEL_MISMATCH,
            &[&"LEAVE", &l],
        )),
    }
}

struct Cx<'s, 'r, 'a> {
    sess: &'s mut Session,
    frame: &'s mut Frame,
    rows: &'r mut Rows<'a>,
}

fn unknown_column(q: &str, name: &str) -> KilnError {
    KilnError::new(ErrorKind::ER_BAD_FIELD_ERROR, &[&name, &q])
}

impl Cx<'_, '_, '_> {
    /// The value a name in an expression stands for (None: not a routine name).
    fn lookup(&self, q: Option<&str>, name: &str) -> Result<Option<Value>> {
        match q {
            None => Ok(self.frame.get(name).map(|i| self.frame.vars[i].2.clone())),
            Some(q) if q.eq_ignore_ascii_case("NEW") || q.eq_ignore_ascii_case("OLD") => {
                let new = q.eq_ignore_ascii_case("NEW");
                let Some(c) = self.rows.table.def.column_index(name) else {
                    return Err(unknown_column(&q.to_ascii_uppercase(), name));
                };
                let row: Option<&[Value]> = if new {
                    self.rows.new.as_deref().map(|v| v.as_slice())
                } else {
                    self.rows.old
                };
                match row {
                    Some(r) => Ok(Some(r.get(c).cloned().unwrap_or(Value::Null))),
                    None => Err(unknown_column(&q.to_ascii_uppercase(), name)),
                }
            }
            Some(_) => Ok(None),
        }
    }

    fn value(&mut self, e: &Expr) -> Result<Value> {
        let e = subst::expr(e, &|q, n| self.lookup(q, n))?;
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

    fn list(&mut self, body: &[RStmt]) -> Result<Flow> {
        for s in body {
            match self.stmt(s)? {
                Flow::Next => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Next)
    }

    fn stmt(&mut self, s: &RStmt) -> Result<Flow> {
        if self.sess.is_interrupted() {
            return Err(ErrorKind::ER_QUERY_INTERRUPTED.into());
        }
        match s {
            RStmt::Block { label, body } => {
                let mark = self.frame.vars.len();
                let r = self.list(body);
                self.frame.vars.truncate(mark);
                match r? {
                    Flow::Leave(l)
                        if label.as_deref().is_some_and(|x| x.eq_ignore_ascii_case(&l)) =>
                    {
                        Ok(Flow::Next)
                    }
                    other => Ok(other),
                }
            }
            RStmt::Declare { names, ty, default } => {
                let v = match default {
                    Some(e) => self.value(e)?,
                    None => Value::Null,
                };
                for n in names {
                    if self.frame.vars.len() >= VARIABLES_MAX {
                        return Err(KilnError::new(
                            ErrorKind::ER_NOT_SUPPORTED_YET,
                            &[&"more local variables"],
                        ));
                    }
                    let v = self.convert(ty, n, &v)?;
                    self.frame.vars.push((n.clone(), ty.clone(), v));
                }
                Ok(Flow::Next)
            }
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
            RStmt::Signal {
                sqlstate,
                message,
                errno,
            } => self.signal(sqlstate, message.as_ref(), errno.as_ref()),
            RStmt::SelectInto { select, targets } => {
                let sel = subst::select(select, &|q, n| self.lookup(q, n))?;
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
                let stmt = subst::stmt(stmt, &|q, n| self.lookup(q, n))?;
                run_sql(self.sess, &stmt)?;
                Ok(Flow::Next)
            }
        }
    }

    fn run_loop(
        &mut self,
        kind: LoopKind,
        label: Option<&str>,
        cond: Option<&Expr>,
        body: &[RStmt],
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
            let mark = self.frame.vars.len();
            let r = self.list(body);
            self.frame.vars.truncate(mark);
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

    fn convert(&mut self, ty: &SqlType, name: &str, v: &Value) -> Result<Value> {
        let mut warnings = Vec::new();
        let strict = self.sess.strict_mode();
        let out = store(ty, name, v, StoreMode { strict, row: 1 }, &mut warnings)?;
        for w in warnings {
            let level = if w.note { Level::Note } else { Level::Warning };
            self.sess.warn(level, w.code, w.message);
        }
        Ok(out)
    }

    fn assign(&mut self, t: &Target, v: Value) -> Result<()> {
        match t {
            Target::Local(name) => match self.frame.get(name) {
                Some(i) => {
                    let ty = self.frame.vars[i].1.clone();
                    self.frame.vars[i].2 = self.convert(&ty, name, &v)?;
                    Ok(())
                }
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
                if !self.rows.new_writable {
                    return Err(KilnError::new(
                        ErrorKind::ER_TRG_CANT_CHANGE_ROW,
                        &[&"NEW", &"after "],
                    ));
                }
                let h = self.rows.table;
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
                let Some(new) = self.rows.new.as_deref_mut() else {
                    return Err(unknown_column("NEW", col));
                };
                if let Some(slot) = new.get_mut(c) {
                    *slot = stored;
                }
                Ok(())
            }
        }
    }

    fn signal(
        &mut self,
        sqlstate: &str,
        message: Option<&Expr>,
        errno: Option<&Expr>,
    ) -> Result<Flow> {
        let class = &sqlstate[..2];
        let default = match class {
            "01" => ErrorKind::ER_SIGNAL_WARN,
            "02" => ErrorKind::ER_SIGNAL_NOT_FOUND,
            _ => ErrorKind::ER_SIGNAL_EXCEPTION,
        };
        let text = match message {
            Some(e) => self
                .value(e)?
                .to_string_lossy()
                .unwrap_or_default()
                .chars()
                .take(128)
                .collect(),
            None => KilnError::from(default).message,
        };
        let code = match errno {
            Some(e) => match self.value(e)?.to_i64() {
                Some(n) if (1..=65535).contains(&n) => n as u16,
                _ => {
                    return Err(KilnError::new(
                        ErrorKind::ER_WRONG_VALUE_FOR_VAR,
                        &[&"MYSQL_ERRNO", &"?"],
                    ));
                }
            },
            None => default.code(),
        };
        if class == "01" {
            self.sess.warn(Level::Warning, code, text);
            return Ok(Flow::Next);
        }
        let mut state = [b'0'; 5];
        state.copy_from_slice(&sqlstate.as_bytes()[..5]);
        Err(KilnError {
            code,
            sqlstate: state,
            message: text,
        })
    }
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

/// Runs one data statement of a body (privileges of the account it runs as checked,
/// views expanded, 1442 checked).
fn run_sql(sess: &mut Session, stmt: &Stmt) -> Result<()> {
    crate::privcheck::check(sess, stmt)?;
    let expanded = crate::exec::view::expand(sess, stmt)?;
    let stmt = expanded.as_ref().unwrap_or(stmt);
    for (s, t) in written_tables(sess, stmt) {
        if sess
            .trigger_tables
            .iter()
            .any(|(a, b)| *a == s && b.eq_ignore_ascii_case(&t))
        {
            return Err(KilnError::new(
                ErrorKind::ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG,
                &[&t],
            ));
        }
    }
    match stmt {
        Stmt::Insert(i) => crate::exec::dml::insert(sess, i).map(drop),
        Stmt::Update(u) => crate::exec::dml::update(sess, u).map(drop),
        Stmt::Delete(d) => crate::exec::dml::delete(sess, d).map(drop),
        Stmt::Do(exprs) => {
            for e in exprs {
                let e = crate::exec::select::run_subqueries(sess, e)?;
                eval(&e, sess)?;
            }
            Ok(())
        }
        _ => Err(KilnError::new(
            ErrorKind::ER_NOT_SUPPORTED_YET,
            &[&"this statement in a trigger"],
        )),
    }
}
