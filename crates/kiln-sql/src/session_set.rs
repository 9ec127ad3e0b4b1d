//! SET statements on the session: user and system variables (SET [GLOBAL | SESSION]
//! x = v, @x = v), SET NAMES / CHARACTER SET, SET TRANSACTION, and the
//! session_track_* bookkeeping a change of them needs.

use kiln_common::{ErrorKind, Result};

use crate::ast::*;
use crate::eval::eval;
use crate::result::Outcome;
use crate::session::{Session, USER_VARIABLES_MAX};
use crate::value::Value;

impl Session {
    /// SET of variables from a routine body.
    pub(crate) fn set_vars(&mut self, assignments: &[(SetTarget, SetValue)]) -> Result<()> {
        self.set(assignments).map(drop)
    }

    pub(crate) fn set(&mut self, assignments: &[(SetTarget, SetValue)]) -> Result<Outcome> {
        // MySQL evaluates all right-hand sides, then assigns; an error leaves nothing set.
        let mut values = Vec::with_capacity(assignments.len());
        for (target, v) in assignments {
            values.push(match v {
                SetValue::Default => None,
                // A bare word names a value of a system variable (SET sql_mode = ANSI,
                // SET character_set_client = utf8mb4), as in MySQL.
                SetValue::Expr(Expr::Column {
                    qualifier: None,
                    name,
                }) if matches!(target, SetTarget::System { .. }) => Some(Value::Str(name.clone())),
                SetValue::Expr(e) => {
                    let e = crate::exec::select::run_subqueries(self, e)?;
                    Some(eval(&e, self)?)
                }
            });
        }
        for ((target, _), value) in assignments.iter().zip(values) {
            match target {
                SetTarget::User(name) => {
                    if self.user_vars.len() >= USER_VARIABLES_MAX
                        && !self.user_vars.contains_key(&name.to_lowercase())
                    {
                        return Err(ErrorKind::ER_OUT_OF_RESOURCES.into());
                    }
                    self.user_vars
                        .insert(name.to_lowercase(), value.unwrap_or(Value::Null));
                }
                SetTarget::System { scope, name } => {
                    self.set_system(*scope, name, value.as_ref())?
                }
            }
        }
        Ok(Outcome::ok())
    }

    /// Sets one system variable and records session tracking.
    pub fn set_system(&mut self, scope: VarScope, name: &str, value: Option<&Value>) -> Result<()> {
        let lname = name.to_ascii_lowercase();
        self.var_cache.take();
        if lname == "autocommit" && scope != VarScope::Global {
            // Turning autocommit on (from off) commits an open transaction.
            if let Some(v) = value
                && is_truthy_setting(v)
                && !self.cached_vars().autocommit
            {
                self.commit_current()?;
            }
        }
        if scope == VarScope::Global {
            self.require_global(crate::privilege::SUPER, "SUPER or SYSTEM_VARIABLES_ADMIN")?;
        }
        let warnings = self.vars.set(scope, &lname, value)?;
        self.var_cache = None;
        for w in warnings {
            self.push_diagnostic(w.level, w.code, w.message);
        }
        if scope != VarScope::Global {
            self.track(&lname);
        }
        Ok(())
    }

    pub(crate) fn track(&mut self, name: &str) {
        let tracked = self
            .vars
            .display("session_track_system_variables")
            .unwrap_or_default();
        let all = tracked.trim() == "*";
        if all
            || tracked
                .split(',')
                .any(|t| t.trim().eq_ignore_ascii_case(name))
        {
            let value = self.vars.display(name).unwrap_or_default();
            self.changes.system_variables.retain(|(n, _)| n != name);
            self.changes
                .system_variables
                .push((name.to_string(), value));
        }
        self.changes.state_changed = true;
    }

    pub(crate) fn set_names(
        &mut self,
        charset: Option<&str>,
        collation: Option<&str>,
    ) -> Result<Outcome> {
        let cs = match charset {
            Some(c) => Value::Str(c.to_string()),
            None => self.vars.get(VarScope::Global, "character_set_client")?,
        };
        for v in [
            "character_set_client",
            "character_set_results",
            "character_set_connection",
        ] {
            self.set_system(VarScope::Session, v, Some(&cs))?;
        }
        if let Some(c) = collation {
            self.set_system(
                VarScope::Session,
                "collation_connection",
                Some(&Value::Str(c.to_string())),
            )?;
        }
        Ok(Outcome::ok())
    }

    pub(crate) fn set_charset(&mut self, charset: Option<&str>) -> Result<Outcome> {
        let cs = match charset {
            Some(c) => Value::Str(c.to_string()),
            None => self.vars.get(VarScope::Global, "character_set_client")?,
        };
        self.set_system(VarScope::Session, "character_set_client", Some(&cs))?;
        self.set_system(VarScope::Session, "character_set_results", Some(&cs))?;
        let db_cs = self.vars.get(VarScope::Session, "character_set_database")?;
        self.set_system(VarScope::Session, "character_set_connection", Some(&db_cs))?;
        Ok(Outcome::ok())
    }

    pub(crate) fn set_transaction(
        &mut self,
        scope: VarScope,
        isolation: Option<&str>,
        access: Option<&TxAccess>,
    ) -> Result<Outcome> {
        if scope == VarScope::Default && self.in_transaction {
            return Err(ErrorKind::ER_CANT_CHANGE_TX_CHARACTERISTICS.into());
        }
        if scope == VarScope::Default {
            // Without a scope keyword MySQL applies the setting to the next
            // transaction only.
            if let Some(level) = isolation {
                let up = level.to_ascii_uppercase().replace(' ', "-");
                self.next_trx_isolation = Some(match up.as_str() {
                    "READ-UNCOMMITTED" => kiln_storage::trx::Isolation::ReadUncommitted,
                    "READ-COMMITTED" => kiln_storage::trx::Isolation::ReadCommitted,
                    "SERIALIZABLE" => kiln_storage::trx::Isolation::Serializable,
                    _ => kiln_storage::trx::Isolation::RepeatableRead,
                });
            }
            if let Some(a) = access {
                self.next_trx_read_only = Some(matches!(a, TxAccess::ReadOnly));
            }
            return Ok(Outcome::ok());
        }
        let scope = if scope == VarScope::Global {
            VarScope::Global
        } else {
            VarScope::Session
        };
        if let Some(level) = isolation {
            self.set_system(
                scope,
                "transaction_isolation",
                Some(&Value::Str(level.to_string())),
            )?;
        }
        if let Some(a) = access {
            let v = Value::Int(matches!(a, TxAccess::ReadOnly) as i64);
            self.set_system(scope, "transaction_read_only", Some(&v))?;
        }
        Ok(Outcome::ok())
    }
}

fn is_truthy_setting(v: &Value) -> bool {
    match v {
        Value::Str(s) => s.eq_ignore_ascii_case("on") || s.eq_ignore_ascii_case("true") || s == "1",
        other => other.to_bool() == Some(true),
    }
}
