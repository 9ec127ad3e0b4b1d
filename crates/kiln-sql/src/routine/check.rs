//! What a body may hold, checked at CREATE (TRIGGER, PROCEDURE, FUNCTION), as MySQL
//! checks when it parses a stored program:
//!
//! - statements the routine's kind does not allow: in a function or trigger a result
//!   set (1415), dynamic SQL (1336), statements that commit (1422), USE / LOAD DATA
//!   (1314); in any routine LOCK / UNLOCK TABLES and USE (1314), CREATE of a routine or
//!   trigger (1303), ALTER / DROP of a routine (1357);
//! - RETURN outside a function (1313), a function without RETURN (1320);
//! - declarations: variables and conditions before cursors before handlers in a block
//!   (1337, 1338); a name declared twice in one block (1331, 1332, 1333); duplicate
//!   parameters (1330);
//! - names used: undeclared cursors (1324) and conditions (1319), a SIGNAL of a
//!   condition defined by an error number (1646), LEAVE / ITERATE without a matching
//!   label (1308).

use kiln_common::{ErrorKind, KilnError, Result};

use super::{Body, CondValue, HandlerCond, Param, RStmt};
use crate::ast::Stmt;

/// What kind of routine a body belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    Trigger,
    Function,
    Procedure,
}

impl Context {
    fn name(self) -> &'static str {
        match self {
            Context::Trigger => "trigger",
            Context::Function => "function",
            Context::Procedure => "procedure",
        }
    }
}

/// Checks a body of `ctx` (and the parameter list of a routine).
pub fn check(body: &Body, ctx: Context, params: &[Param]) -> Result<()> {
    for (i, p) in params.iter().enumerate() {
        if params[..i]
            .iter()
            .any(|q| q.name.eq_ignore_ascii_case(&p.name))
        {
            return Err(KilnError::new(ErrorKind::ER_SP_DUP_PARAM, &[&p.name]));
        }
    }
    let mut c = Checker {
        ctx,
        conds: Vec::new(),
        cursors: Vec::new(),
        labels: Vec::new(),
        returns: false,
    };
    c.stmt(&body.stmt)?;
    if ctx == Context::Function && !c.returns {
        return Err(KilnError::new(ErrorKind::ER_SP_NORETURN, &[&""]));
    }
    Ok(())
}

/// Whether a body can send result sets to the client (MySQL's MULTI_RESULTS flag:
/// CALL of such a procedure needs CLIENT_MULTI_RESULTS, 1312).
pub fn sends_results(body: &Body) -> bool {
    let mut found = false;
    body.stmt.walk(&mut |s| {
        if let RStmt::Sql(stmt) = s
            && matches!(
                **stmt,
                Stmt::Select(_)
                    | Stmt::Show { .. }
                    | Stmt::Explain { .. }
                    | Stmt::Call { .. }
                    | Stmt::Execute { .. }
            )
        {
            found = true;
        }
    });
    found
}

/// None when a body of `ctx` may hold `stmt`; else MySQL's error for it.
pub fn statement_allowed(stmt: &Stmt, ctx: Context) -> Option<KilnError> {
    let bad = |what: &str| Some(KilnError::new(ErrorKind::ER_SP_BADSTATEMENT, &[&what]));
    match stmt {
        Stmt::Use(_) => return bad("USE"),
        Stmt::LoadData(_) => return bad("LOAD DATA"),
        Stmt::LockTables(_) => return bad("LOCK"),
        Stmt::UnlockTables => return bad("UNLOCK"),
        Stmt::CreateRoutine(cr) => {
            return Some(KilnError::new(
                ErrorKind::ER_SP_NO_RECURSIVE_CREATE,
                &[&cr.kind.name()],
            ));
        }
        Stmt::CreateTrigger(_) => {
            return Some(KilnError::new(
                ErrorKind::ER_SP_NO_RECURSIVE_CREATE,
                &[&"TRIGGER"],
            ));
        }
        Stmt::DropRoutine { kind, .. } | Stmt::AlterRoutine { kind, .. } => {
            return Some(KilnError::new(ErrorKind::ER_SP_NO_DROP_SP, &[&kind.name()]));
        }
        _ => {}
    }
    if ctx == Context::Procedure {
        return None;
    }
    match stmt {
        Stmt::Insert(_) | Stmt::Update(_) | Stmt::Delete(_) | Stmt::Do(_) | Stmt::Call { .. } => {
            None
        }
        Stmt::Select(_) | Stmt::Show { .. } | Stmt::Explain { .. } => {
            Some(KilnError::new(ErrorKind::ER_SP_NO_RETSET, &[&ctx.name()]))
        }
        Stmt::Prepare { .. } | Stmt::Execute { .. } | Stmt::DeallocatePrepare(_) => {
            Some(KilnError::new(
                ErrorKind::ER_STMT_NOT_ALLOWED_IN_SF_OR_TRG,
                &[&"Dynamic SQL"],
            ))
        }
        Stmt::Begin { .. } | Stmt::Commit | Stmt::Rollback | Stmt::FlushTablesWithReadLock(_) => {
            Some(ErrorKind::ER_COMMIT_NOT_ALLOWED_IN_SF_OR_TRG.into())
        }
        s if crate::session::is_implicit_commit(s) => {
            Some(ErrorKind::ER_COMMIT_NOT_ALLOWED_IN_SF_OR_TRG.into())
        }
        _ => Some(KilnError::new(
            ErrorKind::ER_NOT_SUPPORTED_YET,
            &[&format!("this statement in a stored {}", ctx.name())],
        )),
    }
}

struct Checker {
    ctx: Context,
    /// Conditions in scope: (name, defined by an error number), innermost last.
    conds: Vec<(String, bool)>,
    cursors: Vec<String>,
    /// Labels in scope: (label, of a loop).
    labels: Vec<(String, bool)>,
    returns: bool,
}

fn has(names: &[String], n: &str) -> bool {
    names.iter().any(|x| x.eq_ignore_ascii_case(n))
}

impl Checker {
    fn cond(&self, n: &str) -> Result<bool> {
        self.conds
            .iter()
            .rev()
            .find(|(c, _)| c.eq_ignore_ascii_case(n))
            .map(|(_, errno)| *errno)
            .ok_or_else(|| KilnError::new(ErrorKind::ER_SP_COND_MISMATCH, &[&n]))
    }

    fn cursor(&self, n: &str) -> Result<()> {
        if has(&self.cursors, n) {
            Ok(())
        } else {
            Err(KilnError::new(ErrorKind::ER_SP_CURSOR_MISMATCH, &[&n]))
        }
    }

    fn label(&self, l: &str, iterate: bool) -> Result<()> {
        let found = self
            .labels
            .iter()
            .rev()
            .find(|(x, _)| x.eq_ignore_ascii_case(l));
        match found {
            Some((_, is_loop)) if !iterate || *is_loop => Ok(()),
            _ => Err(KilnError::new(
                ErrorKind::ER_SP_LILABEL_MISMATCH,
                &[&if iterate { "ITERATE" } else { "LEAVE" }, &l],
            )),
        }
    }

    fn list(&mut self, body: &[RStmt]) -> Result<()> {
        for s in body {
            self.stmt(s)?;
        }
        Ok(())
    }

    /// A BEGIN ... END block: declarations in MySQL's order, each name once.
    fn block(&mut self, body: &[RStmt]) -> Result<()> {
        let marks = (self.conds.len(), self.cursors.len());
        // 0: variables / conditions, 1: cursors, 2: handlers.
        let mut phase = 0;
        let (mut vars, mut conds, mut curs): (Vec<String>, Vec<String>, Vec<String>) =
            Default::default();
        let mut handler_conds: Vec<String> = Vec::new();
        let r = (|| {
            for s in body {
                match s {
                    RStmt::Declare { .. } | RStmt::DeclareCondition { .. } if phase > 0 => {
                        return Err(ErrorKind::ER_SP_VARCOND_AFTER_CURSHNDLR.into());
                    }
                    RStmt::DeclareCursor { .. } if phase > 1 => {
                        return Err(ErrorKind::ER_SP_CURSOR_AFTER_HANDLER.into());
                    }
                    _ => {}
                }
                match s {
                    RStmt::Declare { .. } => {
                        for n in names_of(s) {
                            if has(&vars, n) {
                                return Err(KilnError::new(ErrorKind::ER_SP_DUP_VAR, &[&n]));
                            }
                            vars.push(n.to_string());
                        }
                    }
                    RStmt::DeclareCondition { name, value } => {
                        if has(&conds, name) {
                            return Err(KilnError::new(ErrorKind::ER_SP_DUP_COND, &[name]));
                        }
                        conds.push(name.clone());
                        self.conds
                            .push((name.clone(), matches!(value, CondValue::Errno(_))));
                    }
                    RStmt::DeclareCursor { name, .. } => {
                        phase = 1;
                        if has(&curs, name) {
                            return Err(KilnError::new(ErrorKind::ER_SP_DUP_CURS, &[name]));
                        }
                        curs.push(name.clone());
                        self.cursors.push(name.clone());
                    }
                    RStmt::DeclareHandler { conds: hc, .. } => {
                        phase = 2;
                        for c in hc {
                            let key = format!("{c:?}").to_ascii_lowercase();
                            if handler_conds.contains(&key) {
                                return Err(ErrorKind::ER_SP_DUP_HANDLER.into());
                            }
                            handler_conds.push(key);
                        }
                    }
                    _ => {}
                }
                self.stmt(s)?;
            }
            Ok(())
        })();
        self.conds.truncate(marks.0);
        self.cursors.truncate(marks.1);
        r
    }

    fn stmt(&mut self, s: &RStmt) -> Result<()> {
        match s {
            RStmt::Block { label, body } => {
                if let Some(l) = label {
                    self.labels.push((l.clone(), false));
                }
                let r = self.block(body);
                if label.is_some() {
                    self.labels.pop();
                }
                r
            }
            RStmt::Loop { label, body, .. } => {
                if let Some(l) = label {
                    self.labels.push((l.clone(), true));
                }
                let r = self.list(body);
                if label.is_some() {
                    self.labels.pop();
                }
                r
            }
            RStmt::If {
                branches,
                otherwise,
            } => {
                for (_, b) in branches {
                    self.list(b)?;
                }
                otherwise.as_ref().map_or(Ok(()), |b| self.list(b))
            }
            RStmt::Case {
                whens, otherwise, ..
            } => {
                for (_, b) in whens {
                    self.list(b)?;
                }
                otherwise.as_ref().map_or(Ok(()), |b| self.list(b))
            }
            RStmt::Leave(l) => self.label(l, false),
            RStmt::Iterate(l) => self.label(l, true),
            RStmt::Return(_) => {
                if self.ctx != Context::Function {
                    return Err(ErrorKind::ER_SP_BADRETURN.into());
                }
                self.returns = true;
                Ok(())
            }
            RStmt::DeclareHandler { conds, body, .. } => {
                for c in conds {
                    if let HandlerCond::Name(n) = c {
                        self.cond(n)?;
                    }
                }
                // A handler's body sees no labels of the blocks around it (MySQL).
                let labels = std::mem::take(&mut self.labels);
                let r = self.stmt(body);
                self.labels = labels;
                r
            }
            RStmt::Signal {
                condition: Some(n), ..
            } => {
                if self.cond(n)? {
                    return Err(ErrorKind::ER_SIGNAL_BAD_CONDITION_TYPE.into());
                }
                Ok(())
            }
            RStmt::Open(c) | RStmt::Close(c) | RStmt::Fetch { cursor: c, .. } => self.cursor(c),
            RStmt::Sql(stmt) => match statement_allowed(stmt, self.ctx) {
                Some(e) => Err(e),
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }
}

fn names_of(s: &RStmt) -> &[String] {
    match s {
        RStmt::Declare { names, .. } => names,
        _ => &[],
    }
}
