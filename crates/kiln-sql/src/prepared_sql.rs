//! SQL-level prepared statements (PREPARE / EXECUTE / DEALLOCATE PREPARE), MySQL
//! 8.0's rules: names are per session and case-insensitive; preparing a name that
//! exists drops the old statement first (so a failed PREPARE leaves none); EXECUTE
//! takes its parameters from user variables only, one per `?` (1210 otherwise); an
//! unknown name is 1243; PREPARE, EXECUTE and DEALLOCATE cannot themselves be
//! prepared (1295, as LOAD DATA). The statement is parsed and checked once, at PREPARE, and keeps
//! its point plan (exec/point.rs) or its binding and access-path shape
//! (exec/prepared_plan.rs) across executions, like a protocol-level one.

use std::sync::Arc;

use kiln_common::{ErrorKind, KilnError, Result};

use crate::ast::PrepareSource;
use crate::eval::Env;
use crate::result::Outcome;
use crate::session::Session;

impl Session {
    pub(crate) fn sql_prepare(&mut self, name: &str, source: &PrepareSource) -> Result<Outcome> {
        let key = name.to_lowercase();
        self.sql_prepared.remove(&key);
        let text = match source {
            PrepareSource::Text(t) => t.clone(),
            PrepareSource::UserVar(v) => {
                let value = self.user_var(v);
                if value.is_null() {
                    "NULL".to_string()
                } else {
                    value.to_string_lossy().unwrap_or_default()
                }
            }
        };
        let parsed = self.prepare_text(&text)?;
        let max = kiln_common::limits::PREPARED_STMTS_PER_SESSION_MAX;
        if self.sql_prepared.len() >= max {
            return Err(KilnError::new(
                ErrorKind::ER_MAX_PREPARED_STMT_COUNT_REACHED,
                &[&max],
            ));
        }
        self.sql_prepared.insert(key, Arc::new(parsed));
        Ok(Outcome::Ok {
            affected_rows: 0,
            last_insert_id: 0,
            info: "Statement prepared".into(),
        })
    }

    pub(crate) fn sql_execute(
        &mut self,
        name: &str,
        using: &[String],
        infile: &mut dyn crate::exec::load::LocalInfile,
    ) -> Result<Outcome> {
        let Some(parsed) = self.sql_prepared.get(&name.to_lowercase()).cloned() else {
            return Err(unknown(name, "EXECUTE"));
        };
        if using.len() != parsed.param_count {
            return Err(KilnError::new(ErrorKind::ER_WRONG_ARGUMENTS, &[&"EXECUTE"]));
        }
        let values = using.iter().map(|v| self.user_var(v)).collect();
        let outer = std::mem::replace(&mut self.params, values);
        let r = self.dispatch_parsed(&parsed, infile);
        self.params = outer;
        r
    }

    pub(crate) fn sql_deallocate(&mut self, name: &str) -> Result<Outcome> {
        match self.sql_prepared.remove(&name.to_lowercase()) {
            Some(_) => Ok(Outcome::ok()),
            None => Err(unknown(name, "DEALLOCATE PREPARE")),
        }
    }
}

fn unknown(name: &str, what: &str) -> KilnError {
    KilnError::new(ErrorKind::ER_UNKNOWN_STMT_HANDLER, &[&name, &what])
}
