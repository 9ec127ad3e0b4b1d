//! Invoking stored routines: CALL of a procedure (a statement, or a statement of a
//! body) and a stored function's call in an expression.
//!
//! An invocation looks the routine up (a qualified name's database, else the default
//! database), checks EXECUTE (1370), the argument count (1318) and recursion (a
//! function never, 1424; a procedure up to max_sp_recursion_depth, 1456; routines
//! nest at most `CALL_DEPTH_MAX` deep), then runs the body in the routine's context
//! (`enter` / `leave`, shared with triggers): its database as the default one, its
//! sql_mode, and with SQL SECURITY DEFINER its definer's account and privileges. IN
//! arguments are converted to the parameters' types as values are stored into
//! columns (strict mode: errors); OUT and INOUT arguments must be variables — user
//! variables, or a calling body's local variables (1414) — and get the parameters'
//! final values back. A function's RETURN value is converted to its RETURNS type.

use std::sync::Arc;

use kiln_common::{ErrorKind, KilnError, Result};

use super::check::Context;
use super::exec::{Cx, convert, run_routine};
use super::{CALL_DEPTH_MAX, ParamMode, RoutineKind};
use crate::ast::{Expr, TableName};
use crate::dict::Routine;
use crate::eval::{Env, eval};
use crate::result::Outcome;
use crate::session::Session;
use crate::value::Value;

/// A routine on the session's stack of running routines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Running {
    pub kind: RoutineKind,
    pub schema: String,
    /// Lower-case.
    pub name: String,
}

/// A session's account, privileges and their generation, while another runs.
type SavedAccount = (
    (String, String),
    Option<Arc<crate::privilege::Privileges>>,
    u64,
);

/// The session state a routine or trigger body runs in, kept to be restored.
pub(crate) struct Saved {
    account: Option<SavedAccount>,
    sql_mode: Option<String>,
    database: Option<String>,
}

/// Enters a body's context: `db` as the default database, `sql_mode`, and (Some) the
/// definer's account with its privileges (1449 if it no longer exists; the session's
/// own state is restored by `leave` either way).
pub(crate) fn enter(
    sess: &mut Session,
    definer: Option<(&str, &str)>,
    sql_mode: &str,
    db: &str,
) -> (Saved, Result<()>) {
    let mut check = Ok(());
    let account = match definer {
        Some((u, h)) if sess.account.0 != u || sess.account.1 != h => {
            let saved = (
                std::mem::replace(&mut sess.account, (u.to_string(), h.to_string())),
                sess.privs.take(),
                sess.privs_generation,
            );
            let generation = sess.server.privilege_generation();
            match sess.server.account_privileges(u, h) {
                Some(p) => {
                    sess.privs = Some(p);
                    sess.privs_generation = generation;
                }
                None => check = Err(KilnError::new(ErrorKind::ER_NO_SUCH_USER, &[&u, &h])),
            }
            Some(saved)
        }
        _ => None,
    };
    let _ = sess.cached_vars();
    let sql_mode = match &mut sess.var_cache {
        Some(c) if !c.sql_mode.eq_ignore_ascii_case(sql_mode) => Some(std::mem::replace(
            &mut c.sql_mode,
            sql_mode.to_ascii_uppercase(),
        )),
        _ => None,
    };
    let database = sess.database.replace(db.to_string());
    (
        Saved {
            account,
            sql_mode,
            database,
        },
        check,
    )
}

/// Leaves a body's context (see `enter`).
pub(crate) fn leave(sess: &mut Session, saved: Saved) {
    sess.database = saved.database;
    // (No cache: the body set a variable, and the cache is rebuilt from the session's.)
    if let Some(m) = saved.sql_mode
        && let Some(c) = &mut sess.var_cache
    {
        c.sql_mode = m;
    }
    if let Some((account, privs, generation)) = saved.account {
        sess.account = account;
        sess.privs = privs;
        sess.privs_generation = generation;
    }
}

/// Where the arguments of a CALL come from and OUT / INOUT values go.
pub(crate) trait Caller {
    fn session(&mut self) -> &mut Session;
    /// An IN argument's value.
    fn in_value(&mut self, e: &Expr) -> Result<Value>;
    /// The current value of the variable `e` names (None: `e` is not a variable).
    fn var_value(&mut self, e: &Expr) -> Result<Option<Value>>;
    fn set_var(&mut self, e: &Expr, v: Value) -> Result<()>;
}

/// A CALL statement from the client: user variables only.
struct TopLevel<'s>(&'s mut Session);

impl Caller for TopLevel<'_> {
    fn session(&mut self) -> &mut Session {
        self.0
    }
    fn in_value(&mut self, e: &Expr) -> Result<Value> {
        let e = crate::exec::select::run_subqueries(self.0, e)?;
        eval(&e, self.0)
    }
    fn var_value(&mut self, e: &Expr) -> Result<Option<Value>> {
        Ok(match e {
            Expr::UserVar(n) => Some(self.0.user_var(n)),
            _ => None,
        })
    }
    fn set_var(&mut self, e: &Expr, v: Value) -> Result<()> {
        if let Expr::UserVar(n) = e {
            self.0.set_user_var(n, v);
        }
        Ok(())
    }
}

/// A CALL in a body: local variables (and NEW.col in a BEFORE trigger) are
/// variables too.
impl Caller for Cx<'_, '_, '_, '_> {
    fn session(&mut self) -> &mut Session {
        self.sess
    }
    fn in_value(&mut self, e: &Expr) -> Result<Value> {
        self.value(e)
    }
    fn var_value(&mut self, e: &Expr) -> Result<Option<Value>> {
        match e {
            Expr::UserVar(n) => Ok(Some(self.sess.user_var(n))),
            Expr::Column {
                qualifier: None,
                name,
            } => Ok(self.local(name).map(|i| self.frame.vars[i].2.clone())),
            Expr::Column {
                qualifier: Some(q),
                name,
            } if q.eq_ignore_ascii_case("NEW") && self.new_writable() => self.lookup(Some(q), name),
            _ => Ok(None),
        }
    }
    fn set_var(&mut self, e: &Expr, v: Value) -> Result<()> {
        match e {
            Expr::UserVar(n) => {
                self.sess.set_user_var(n, v);
                Ok(())
            }
            Expr::Column {
                qualifier: None,
                name,
            } => match self.local(name) {
                Some(i) => self.set_local(i, v),
                None => Ok(()),
            },
            Expr::Column {
                qualifier: Some(_),
                name,
            } => self.assign(&super::Target::New(name.clone()), v),
            _ => Ok(()),
        }
    }
}

/// The CALL statement.
pub fn call_statement(sess: &mut Session, name: &TableName, args: &[Expr]) -> Result<Outcome> {
    procedure(&mut TopLevel(sess), name, args, true)
}

/// CALL of procedure `name` with `args`; `top`: from the client (1312 applies).
pub(crate) fn procedure(
    caller: &mut dyn Caller,
    name: &TableName,
    args: &[Expr],
    top: bool,
) -> Result<Outcome> {
    let sess = caller.session();
    let schema = match &name.schema {
        Some(s) => s.clone(),
        None => sess
            .database
            .clone()
            .ok_or_else(|| KilnError::from(ErrorKind::ER_NO_DB_ERROR))?,
    };
    let r = lookup(sess, &schema, RoutineKind::Procedure, &name.name)?.ok_or_else(|| {
        KilnError::new(
            ErrorKind::ER_SP_DOES_NOT_EXIST,
            &[&"PROCEDURE", &format!("{schema}.{}", name.name)],
        )
    })?;
    check_execute(sess, &r)?;
    let parsed = parsed(sess, &r)?;
    arg_count(&r, &parsed, args.len())?;
    if top && parsed.multi_results && !sess.client_multi_results {
        return Err(KilnError::new(
            ErrorKind::ER_SP_BADSELECT,
            &[&r.def.qualified()],
        ));
    }
    let mut values = Vec::with_capacity(args.len());
    for (i, (p, a)) in parsed.params.iter().zip(args).enumerate() {
        values.push(match p.mode {
            ParamMode::In => caller.in_value(a)?,
            ParamMode::Out | ParamMode::InOut => {
                let Some(v) = caller.var_value(a)? else {
                    return Err(KilnError::new(
                        ErrorKind::ER_SP_NOT_VAR_ARG,
                        &[&(i + 1), &r.def.qualified()],
                    ));
                };
                if p.mode == ParamMode::Out {
                    Value::Null
                } else {
                    v
                }
            }
        });
    }
    let done = invoke(caller.session(), &r, &parsed, values)?;
    for ((p, a), v) in parsed.params.iter().zip(args).zip(done.params) {
        if p.mode != ParamMode::In {
            caller.set_var(a, v)?;
        }
    }
    Ok(Outcome::Ok {
        affected_rows: done.affected,
        last_insert_id: 0,
        info: String::new(),
    })
}

/// A stored function's call: None when there is no such function (the caller then
/// reports 1305).
pub fn function(sess: &mut Session, name: &str, args: Vec<Value>) -> Option<Result<Value>> {
    let (schema, fname) = match name.split_once('.') {
        Some((db, f)) => (db.to_string(), f),
        // An unknown function with no default database: 1046, as MySQL.
        None => match sess.database.clone() {
            Some(db) => (db, name),
            None => return Some(Err(ErrorKind::ER_NO_DB_ERROR.into())),
        },
    };
    let r = match lookup(sess, &schema, RoutineKind::Function, fname) {
        Ok(Some(r)) => r,
        Ok(None) => return None,
        Err(e) => return Some(Err(e)),
    };
    Some(call_function(sess, &r, args))
}

fn call_function(sess: &mut Session, r: &Arc<Routine>, args: Vec<Value>) -> Result<Value> {
    check_execute(sess, r)?;
    let parsed = parsed(sess, r)?;
    arg_count(r, &parsed, args.len())?;
    // LAST_INSERT_ID() set inside a function is restored when it ends (MySQL).
    let saved_id = sess.last_insert_id();
    let r2 = invoke(sess, r, &parsed, args);
    sess.set_last_insert_id(saved_id);
    let done = r2?;
    done.returned
        .ok_or_else(|| KilnError::new(ErrorKind::ER_SP_NORETURNEND, &[&r.def.name]))
}

/// 1318 unless `n` arguments match the routine's parameters.
fn arg_count(r: &Routine, parsed: &crate::dict::ParsedRoutine, n: usize) -> Result<()> {
    if parsed.params.len() == n {
        return Ok(());
    }
    Err(KilnError::new(
        ErrorKind::ER_SP_WRONG_NO_OF_ARGS,
        &[
            &r.def.kind.name(),
            &r.def.qualified(),
            &parsed.params.len(),
            &n,
        ],
    ))
}

fn lookup(
    sess: &mut Session,
    schema: &str,
    kind: RoutineKind,
    name: &str,
) -> Result<Option<Arc<Routine>>> {
    if sess.dict.is_none() {
        return Ok(None);
    }
    let cat = sess.catalog()?;
    Ok(cat.routine(schema, kind, name).cloned())
}

fn parsed(sess: &mut Session, r: &Routine) -> Result<Arc<crate::dict::ParsedRoutine>> {
    let cat = sess.catalog()?;
    let db = cat
        .database(&r.def.schema)
        .map(|d| (d.charset.clone(), d.collation.clone()))
        .unwrap_or_else(|| ("utf8mb4".into(), "utf8mb4_0900_ai_ci".into()));
    r.parsed((&db.0, &db.1))
}

/// EXECUTE on the routine (1370): at the global or database level, or as its
/// creator under automatic_sp_privileges.
fn check_execute(sess: &mut Session, r: &Routine) -> Result<()> {
    check_routine_privilege(sess, r, crate::privilege::EXECUTE, "execute")
}

/// `need` (EXECUTE or ALTER ROUTINE) on routine `r`, else 1370 naming `what`.
pub(crate) fn check_routine_privilege(
    sess: &mut Session,
    r: &Routine,
    need: crate::privilege::PrivSet,
    what: &str,
) -> Result<()> {
    let p = sess.privileges();
    if p.on_db(&r.def.schema) & need == need {
        return Ok(());
    }
    if let Some((u, h)) = &r.def.creator
        && *u == sess.account.0
        && *h == sess.account.1
    {
        return Ok(());
    }
    Err(KilnError::new(
        ErrorKind::ER_PROCACCESS_DENIED_ERROR,
        &[&what, &sess.account.0, &sess.host, &r.def.qualified()],
    ))
}

/// Runs routine `r` with argument values (already in parameter order).
fn invoke(
    sess: &mut Session,
    r: &Routine,
    parsed: &crate::dict::ParsedRoutine,
    args: Vec<Value>,
) -> Result<super::exec::Finished> {
    let me = Running {
        kind: r.def.kind,
        schema: r.def.schema.clone(),
        name: r.def.name.to_lowercase(),
    };
    if sess.routine_stack.len() >= CALL_DEPTH_MAX {
        return Err(KilnError::new(
            ErrorKind::ER_NOT_SUPPORTED_YET,
            &[&"stored routines nested more than 64 deep"],
        ));
    }
    let again = sess.routine_stack.iter().filter(|x| **x == me).count();
    match r.def.kind {
        RoutineKind::Function if again > 0 => return Err(ErrorKind::ER_SP_NO_RECURSION.into()),
        RoutineKind::Procedure if again > 0 => {
            let limit = sess
                .sysvar(crate::ast::VarScope::Session, "max_sp_recursion_depth")
                .ok()
                .and_then(|v| v.to_i64())
                .unwrap_or(0)
                .max(0) as usize;
            if again > limit {
                return Err(KilnError::new(
                    ErrorKind::ER_SP_RECURSION_LIMIT,
                    &[&limit, &r.def.name],
                ));
            }
        }
        _ => {}
    }
    let definer =
        (!r.def.invoker).then_some((r.def.definer_user.as_str(), r.def.definer_host.as_str()));
    let (saved, entered) = enter(sess, definer, &r.def.sql_mode, &r.def.schema);
    sess.routine_stack.push(me);
    let ctx = match r.def.kind {
        RoutineKind::Procedure => Context::Procedure,
        RoutineKind::Function => Context::Function,
    };
    let out = entered.and_then(|()| {
        let mut params = Vec::with_capacity(args.len());
        for (p, v) in parsed.params.iter().zip(args) {
            let v = if p.mode == ParamMode::Out {
                Value::Null
            } else {
                convert(sess, &p.ty, &p.name, &v)?
            };
            params.push((p.name.clone(), p.ty.clone(), v));
        }
        let mut done = run_routine(sess, &parsed.body, params, ctx)?;
        if let (Some(ty), Some(v)) = (&parsed.returns, &done.returned) {
            done.returned = Some(convert(sess, ty, &r.def.name, v)?);
        }
        Ok(done)
    });
    sess.routine_stack.pop();
    leave(sess, saved);
    out
}
