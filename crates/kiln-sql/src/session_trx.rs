//! The session's side of data access: its catalog snapshot, its transaction
//! (autocommit, BEGIN/COMMIT/ROLLBACK, savepoints, implicit commits, statement
//! rollback), sql_mode checks and the row counters.
//!
//! Transactions start lazily: a statement that reads or writes a table begins one
//! (`with_trx`). Without BEGIN and with autocommit on, the statement's transaction
//! commits when the statement ends (rolls back if it failed); with BEGIN, or with
//! autocommit off, it stays open until COMMIT/ROLLBACK or an implicit commit. A failed
//! statement inside a transaction is undone to the savepoint taken at its start; a
//! deadlock rolls the whole transaction back (the engine already has).

use std::sync::Arc;

use kiln_common::{ErrorKind, KilnError, Result};
use kiln_storage::trx::{Isolation, Trx, TrxOptions};

use crate::ast::VarScope;
use crate::dict::{Catalog, Dictionary, TableHandle};
use crate::eval::Level;
use crate::exec::access::trx_error;
use crate::result::Outcome;
use crate::session::Session;
use crate::types::SqlType;
use crate::value::Value;

impl Session {
    pub(crate) fn dict(&self) -> Result<Arc<Dictionary>> {
        self.dict.clone().ok_or_else(|| {
            KilnError::new(ErrorKind::ER_NOT_SUPPORTED_YET, &[&"tables on this server"])
        })
    }

    /// The catalog as of the latest DDL (refreshed with one atomic load when current).
    pub(crate) fn catalog(&mut self) -> Result<Arc<Catalog>> {
        let dict = self.dict()?;
        let v = dict.version();
        match &self.catalog_cache {
            Some(c) if c.version == v => Ok(c.clone()),
            _ => {
                let c = dict.catalog();
                self.catalog_cache = Some(c.clone());
                Ok(c)
            }
        }
    }

    /// Names of the databases (SHOW DATABASES, USE checks).
    pub fn database_names(&mut self) -> Vec<String> {
        let mut v: Vec<String> = crate::dict::VIRTUAL_DATABASES
            .iter()
            .map(|s| s.to_string())
            .collect();
        if let Ok(c) = self.catalog() {
            v.extend(c.databases.keys().cloned());
        }
        v.sort();
        v
    }

    /// The session variables statements (and the connection code, per command)
    /// consult: read once, until the next SET or reset.
    pub fn cached_vars(&mut self) -> &crate::session::VarCache {
        if self.var_cache.is_none() {
            let get_i = |name: &str| {
                self.vars
                    .get(VarScope::Session, name)
                    .ok()
                    .and_then(|v| v.to_i64())
            };
            let sql_mode = self
                .vars
                .display("sql_mode")
                .unwrap_or_default()
                .to_ascii_uppercase();
            let c = crate::session::VarCache {
                autocommit: get_i("autocommit").is_none_or(|v| v != 0),
                lex_mode: crate::lexer::LexMode::from_sql_mode(&sql_mode),
                sql_mode,
                track_state_change: get_i("session_track_state_change").is_some_and(|v| v != 0),
                wait_timeout_secs: get_i("wait_timeout").unwrap_or(28_800).max(1) as u64,
                pool_priority_high: match self.vars.display("thread_pool_priority").as_deref() {
                    Some("high") => Some(true),
                    Some("low") => Some(false),
                    _ => None,
                },
                conn_coll: crate::session::conn_coll(&*self.vars),
                zone_offset_secs: crate::timestamp_zone::session_offset_secs(&*self),
                isolation: self
                    .vars
                    .display("transaction_isolation")
                    .unwrap_or_default()
                    .to_ascii_uppercase(),
                lock_wait_timeout_secs: get_i("innodb_lock_wait_timeout").map(|s| s.max(1) as u64),
                mdl_wait_timeout_secs: get_i("lock_wait_timeout").unwrap_or(31_536_000).max(1)
                    as u64,
                div_precision_increment: get_i("div_precision_increment").unwrap_or(4).clamp(0, 30)
                    as u32,
            };
            self.var_cache = Some(c);
        }
        self.var_cache.as_ref().expect("filled above")
    }

    pub(crate) fn sql_mode_has(&self, flag: &str) -> bool {
        match &self.var_cache {
            Some(c) => c.sql_mode.split(',').any(|x| x.eq_ignore_ascii_case(flag)),
            None => self
                .vars
                .display("sql_mode")
                .is_some_and(|m| m.split(',').any(|x| x.eq_ignore_ascii_case(flag))),
        }
    }

    /// STRICT_TRANS_TABLES or STRICT_ALL_TABLES.
    pub(crate) fn strict_mode(&self) -> bool {
        self.sql_mode_has("STRICT_TRANS_TABLES") || self.sql_mode_has("STRICT_ALL_TABLES")
    }

    fn autocommit(&mut self) -> bool {
        self.cached_vars().autocommit
    }

    fn isolation(&mut self) -> Isolation {
        match self.cached_vars().isolation.as_str() {
            "READ-UNCOMMITTED" => Isolation::ReadUncommitted,
            "READ-COMMITTED" => Isolation::ReadCommitted,
            "SERIALIZABLE" => Isolation::Serializable,
            _ => Isolation::RepeatableRead,
        }
    }

    fn lock_wait_timeout(&mut self) -> Option<std::time::Duration> {
        self.cached_vars()
            .lock_wait_timeout_secs
            .map(std::time::Duration::from_secs)
    }

    fn begin_trx(&mut self) -> Result<Trx> {
        let dict = self.dict()?;
        if self.trx_session.is_none() {
            self.trx_session = Some(dict.te.session().map_err(trx_error)?);
        }
        let autocommit_stmt = !self.explicit_trx && self.autocommit();
        let isolation = self
            .next_trx_isolation
            .take()
            .unwrap_or_else(|| self.isolation());
        let read_only = self.next_trx_read_only.take().unwrap_or(false) || self.tx_read_only;
        let opts = TrxOptions {
            isolation,
            read_only,
            autocommit: autocommit_stmt,
            consistent_snapshot: self.consistent_snapshot,
            lock_wait_timeout: self.lock_wait_timeout(),
        };
        self.consistent_snapshot = false;
        // Nothing has passed the write gate in the new transaction yet.
        self.trx_gated = false;
        if !autocommit_stmt {
            self.in_transaction = true;
        }
        Ok(self
            .trx_session
            .as_mut()
            .expect("created above")
            .begin(opts))
    }

    /// The session's handle on the transaction system (made on first use).
    pub(crate) fn storage_session(&mut self) -> Result<&mut kiln_storage::trx::Session> {
        if self.trx_session.is_none() {
            let dict = self.dict()?;
            self.trx_session = Some(dict.te.session().map_err(trx_error)?);
        }
        Ok(self.trx_session.as_mut().expect("created above"))
    }

    /// A warning raised through the row API.
    pub(crate) fn warn_row_api(&mut self, code: u16, message: String) {
        crate::eval::Env::warn(self, Level::Warning, code, message);
    }

    /// Runs `f` with the session's transaction (begun if there is none).
    pub(crate) fn with_trx<T>(
        &mut self,
        f: impl FnOnce(&mut Session, &mut Trx) -> Result<T>,
    ) -> Result<T> {
        if self.trx_lent {
            return Err(KilnError::new(
                ErrorKind::ER_NOT_SUPPORTED_YET,
                &[&"a subquery that reads tables while an outer scan is running"],
            ));
        }
        let mut trx = match self.trx.take() {
            Some(t) => t,
            None => {
                self.statement_pending = false;
                self.begin_trx()?
            }
        };
        if self.statement_pending {
            self.statement_pending = false;
            trx.statement_start();
        }
        self.trx_lent = true;
        let r = f(self, &mut trx);
        self.trx_lent = false;
        if trx.is_done() {
            // Rolled back by a deadlock (or a timeout with rollback_on_timeout).
            self.in_transaction = false;
            self.explicit_trx = false;
            self.savepoints.clear();
        } else {
            self.trx = Some(trx);
        }
        r
    }

    /// Runs one data-changing statement: on an error, what it did is undone (to the
    /// savepoint taken before it) and the transaction stays open.
    pub(crate) fn with_statement<T>(
        &mut self,
        f: impl FnOnce(&mut Session) -> Result<T>,
    ) -> Result<T> {
        if self.tx_read_only && self.in_transaction {
            return Err(ErrorKind::ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION.into());
        }
        let sp = self.with_trx(|_, trx| Ok(trx.savepoint()))?;
        let r = f(self);
        if r.is_err()
            && let Some(trx) = &mut self.trx
            && !trx.is_done()
        {
            trx.rollback_to(sp).map_err(trx_error)?;
        }
        r
    }

    /// After each statement: an autocommit statement's transaction ends.
    pub(crate) fn end_statement(&mut self, r: Result<Outcome>) -> Result<Outcome> {
        if self.explicit_trx || self.trx.is_none() {
            return r;
        }
        if !self.autocommit() {
            return r;
        }
        let trx = self.trx.take().expect("checked");
        self.in_transaction = false;
        match r {
            Ok(o) => {
                trx.commit().map_err(trx_error)?;
                Ok(o)
            }
            Err(e) => {
                let _ = trx.rollback();
                Err(e)
            }
        }
    }

    /// Ends the transaction state (COMMIT/ROLLBACK done, or the connection reset).
    pub(crate) fn end_transaction(&mut self, commit: bool) {
        if let Some(t) = self.trx.take() {
            if commit {
                let _ = t.commit();
            } else {
                let _ = t.rollback();
            }
        }
        self.in_transaction = false;
        self.explicit_trx = false;
        self.tx_read_only = false;
        self.savepoints.clear();
        // The transaction's metadata locks go with it.
        self.mdl.release_all();
    }

    pub(crate) fn commit_current(&mut self) -> Result<()> {
        let r = match self.trx.take() {
            Some(t) => t.commit().map_err(trx_error),
            None => Ok(()),
        };
        self.end_transaction(true);
        r
    }

    pub(crate) fn rollback_current(&mut self) -> Result<()> {
        let r = match self.trx.take() {
            Some(t) => {
                let r = t.rollback().map_err(trx_error);
                // Auto-increment values the transaction took are in the redo log:
                // make them durable, so a crash now cannot hand them out again.
                if let Ok(d) = self.dict() {
                    let lsn = d.engine.log().current_lsn();
                    d.engine.sync_to(lsn).map_err(crate::dict::storage_error)?;
                }
                r
            }
            None => Ok(()),
        };
        self.end_transaction(false);
        r
    }

    pub(crate) fn begin(&mut self, read_only: bool, consistent_snapshot: bool) -> Result<Outcome> {
        self.commit_current()?;
        // START TRANSACTION / BEGIN lets go of LOCK TABLES' locks (MySQL).
        self.release_locked_tables();
        self.explicit_trx = true;
        self.in_transaction = true;
        self.tx_read_only = read_only;
        if consistent_snapshot && self.dict.is_some() {
            self.consistent_snapshot = true;
            self.with_trx(|_, _| Ok(()))?;
        }
        Ok(Outcome::ok())
    }

    pub(crate) fn savepoint(&mut self, name: &str) -> Result<Outcome> {
        if self.dict.is_none() || (!self.in_transaction && self.autocommit()) {
            return Ok(Outcome::ok());
        }
        let sp = self.with_trx(|_, trx| Ok(trx.savepoint()))?;
        self.savepoints
            .retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.savepoints.push((name.to_string(), sp));
        Ok(Outcome::ok())
    }

    pub(crate) fn rollback_to_savepoint(&mut self, name: &str) -> Result<Outcome> {
        let Some(pos) = self
            .savepoints
            .iter()
            .position(|(n, _)| n.eq_ignore_ascii_case(name))
        else {
            return Err(KilnError::new(
                ErrorKind::ER_SP_DOES_NOT_EXIST_SAVEPOINT,
                &[&name],
            ));
        };
        let sp = self.savepoints[pos].1;
        // Later savepoints go; this one stays.
        self.savepoints.truncate(pos + 1);
        if let Some(t) = &mut self.trx {
            t.rollback_to(sp).map_err(trx_error)?;
        }
        Ok(Outcome::ok())
    }

    pub(crate) fn release_savepoint(&mut self, name: &str) -> Result<Outcome> {
        let Some(pos) = self
            .savepoints
            .iter()
            .position(|(n, _)| n.eq_ignore_ascii_case(name))
        else {
            return Err(KilnError::new(
                ErrorKind::ER_SP_DOES_NOT_EXIST_SAVEPOINT,
                &[&name],
            ));
        };
        self.savepoints.truncate(pos);
        Ok(Outcome::ok())
    }

    /// In strict mode with ERROR_FOR_DIVISION_BY_ZERO, a division by zero while
    /// computing values to store (diagnostics after `since`) is error 1365.
    pub(crate) fn check_division_by_zero(&self, since: usize, strict: bool) -> Result<()> {
        if strict
            && self.sql_mode_has("ERROR_FOR_DIVISION_BY_ZERO")
            && self
                .diagnostics()
                .iter()
                .skip(since)
                .any(|d| d.code == 1365)
        {
            return Err(ErrorKind::ER_DIVISION_BY_ZERO.into());
        }
        Ok(())
    }

    pub(crate) fn persist_auto_inc(&self, h: &TableHandle, next: u64) -> Result<()> {
        if h.temporary {
            // Nothing of a temporary table outlives the server.
            return Ok(());
        }
        self.dict()?.persist_auto_inc(h.def.id, next)
    }

    /// NOW() as a value for a column of type `ty` (its fractional precision).
    pub(crate) fn now_value(&self, ty: &SqlType) -> Value {
        let t = kiln_common::time::CivilTime::from_unix_micros(self.statement_time_micros());
        let s = t.datetime_string();
        match ty {
            SqlType::Date => Value::Str(s[..10].to_string()),
            _ => Value::Str(s[..19].to_string()),
        }
    }

    /// ON DUPLICATE KEY UPDATE of a row with an AUTO_INCREMENT column: LAST_INSERT_ID()
    /// becomes that row's id, as in MySQL.
    pub(crate) fn set_last_insert_id_for_dup(&mut self, id: u64) {
        crate::eval::Env::set_last_insert_id(self, id);
    }

    pub(crate) fn note(&mut self, code: u16, message: String) {
        crate::eval::Env::warn(self, Level::Note, code, message);
    }

    pub(crate) fn note_access(&mut self, access: &crate::exec::access::Access) {
        self.counters.last_read_by_key = matches!(
            access,
            crate::exec::access::Access::Index { ranges, .. }
                if ranges.iter().any(|r| r != &(std::ops::Bound::Unbounded, std::ops::Bound::Unbounded))
        );
    }

    pub(crate) fn rows_read(&mut self, _h: &TableHandle, n: u64) {
        crate::status::add("Innodb_rows_read", n);
    }

    pub(crate) fn rows_changed(&mut self, _h: &TableHandle, what: &str, n: u64) {
        match what {
            "updated" => crate::status::add("Innodb_rows_updated", n),
            "deleted" => crate::status::add("Innodb_rows_deleted", n),
            _ => crate::status::add("Innodb_rows_inserted", n),
        }
    }

    fn statement_time_micros(&self) -> i64 {
        crate::eval::Env::statement_time_micros(self)
    }
}
