//! A client session: its state (user, default database, variables, diagnostics,
//! transaction flags) and the dispatcher that runs one parsed statement.
//!
//! The session talks to the rest of the server through two traits so this crate stays
//! below the server: [`SystemVariables`] (the registry, per session) and [`ServerHooks`]
//! (connection registry, accounts, shutdown, server-level status).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use kiln_common::{ErrorKind, KilnError, Result};

use crate::ast::*;
use crate::eval::{Env, Level, eval};
use crate::parse::{Parsed, parse_multi, parse_one};
use crate::privilege::{GrantObject, PrivSet, Privileges};
use crate::result::{ColumnInfo, Outcome, Rows};
use crate::value::Value;

/// Diagnostics kept for SHOW WARNINGS (MySQL's max_error_count default).
pub const DIAGNOSTICS_MAX: usize = 1024;
/// User variables one session may define.
pub const USER_VARIABLES_MAX: usize = 10_000;

/// Interrupt states of a session (set by KILL from another connection).
pub const INTERRUPT_NONE: u8 = 0;
pub const INTERRUPT_QUERY: u8 = 1;
pub const INTERRUPT_CONNECTION: u8 = 2;

/// One SHOW WARNINGS row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub level: Level,
    pub code: u16,
    pub message: String,
}

/// Per-session view of the system-variable registry.
pub trait SystemVariables: Send {
    /// `@@[scope.]name` as SELECT sees it.
    fn get(&self, scope: VarScope, name: &str) -> Result<Value>;
    /// `SET [scope] name = value`; `None` is `= DEFAULT`. Returns warnings (e.g. clamped values).
    fn set(
        &mut self,
        scope: VarScope,
        name: &str,
        value: Option<&Value>,
    ) -> Result<Vec<Diagnostic>>;
    /// (name, display value) for SHOW [GLOBAL|SESSION] VARIABLES, sorted by name.
    fn list(&self, global: bool) -> Vec<(String, String)>;
    /// Session values back to the globals (COM_RESET_CONNECTION, COM_CHANGE_USER).
    fn reset(&mut self);
    /// Display form of a session variable (what session tracking reports).
    fn display(&self, name: &str) -> Option<String>;
}

/// A row of SHOW PROCESSLIST.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessInfo {
    pub id: u64,
    pub user: String,
    pub host: String,
    pub db: Option<String>,
    pub command: String,
    pub time_secs: u64,
    pub state: String,
    pub info: Option<String>,
}

/// What the session needs from the server around it.
pub trait ServerHooks: Send + Sync {
    fn server_version(&self) -> String;
    /// KILL [QUERY] `target` issued by session `by` (user `by_user`).
    fn kill(&self, by: u64, by_user: &str, target: u64, query_only: bool) -> Result<()>;
    /// SHUTDOWN issued by `user`.
    fn shutdown(&self, user: &str) -> Result<()>;
    /// Server-level status variables (Connections, Threads_*, Uptime, Bytes_* ...).
    /// `session` is the asking session's id, for session-scoped values.
    fn status(&self, global: bool, session: u64) -> Vec<(String, String)>;
    fn processlist(&self) -> Vec<ProcessInfo>;
    fn databases(&self) -> Vec<String>;
    fn create_user(
        &self,
        user: &UserSpec,
        auth: &AuthSpec,
        limits: &ResourceLimits,
        if_not_exists: bool,
    ) -> Result<Option<Diagnostic>>;
    /// ALTER USER / SET PASSWORD: `auth` and the limits named change, the rest stays.
    fn alter_user(
        &self,
        user: &UserSpec,
        auth: &AuthSpec,
        limits: &ResourceLimits,
        if_exists: bool,
    ) -> Result<Option<Diagnostic>>;
    /// DROP USER: the account and all its grants.
    fn drop_user(&self, user: &UserSpec, if_exists: bool) -> Result<Option<Diagnostic>>;
    /// Whether `user@host` (an account) holds the global SHUTDOWN privilege (kept for
    /// COM_SHUTDOWN; statements check `account_privileges` through the session).
    fn is_admin(&self, user: &str, host: &str) -> bool;
    /// Rows of information_schema.THREAD_POOL_GROUPS, _QUEUES, _STATS or _WAITS
    /// (columns as `exec::infoschema` lists them); none without a thread pool.
    fn thread_pool_rows(&self, table: &str) -> Vec<Vec<crate::value::Value>>;

    /// The privileges of exactly the account `user@host` (None: no such account).
    /// The default, for servers without accounts, is every privilege.
    fn account_privileges(&self, user: &str, host: &str) -> Option<Arc<Privileges>> {
        Some(Arc::new(Privileges {
            user: user.to_string(),
            host: host.to_string(),
            ..Privileges::all()
        }))
    }
    /// A number that changes whenever any account or grant changes: sessions re-read
    /// their cached privileges when it moves (one atomic load per statement).
    fn privilege_generation(&self) -> u64 {
        0
    }
    /// GRANT: adds `privs` at `object` for every user (the session has checked that
    /// they exist and that the grantor may grant them). All or nothing.
    fn grant(&self, _users: &[UserSpec], _object: &GrantObject, _privs: PrivSet) -> Result<()> {
        Err(KilnError::new(ErrorKind::ER_NOT_SUPPORTED_YET, &[&"GRANT"]))
    }
    /// REVOKE: removes `privs` at `object` from every user; 1141 / 1147 when a user
    /// has no grant at that database / table. All or nothing.
    fn revoke(&self, _users: &[UserSpec], _object: &GrantObject, _privs: PrivSet) -> Result<()> {
        Err(KilnError::new(
            ErrorKind::ER_NOT_SUPPORTED_YET,
            &[&"REVOKE"],
        ))
    }
    /// REVOKE ALL PRIVILEGES, GRANT OPTION: every grant of every user; 1269 when one
    /// of them does not exist. All or nothing.
    fn revoke_all(&self, _users: &[UserSpec]) -> Result<()> {
        Err(KilnError::new(
            ErrorKind::ER_NOT_SUPPORTED_YET,
            &[&"REVOKE"],
        ))
    }
    /// RENAME USER: each account keeps its credentials, limits and grants under the
    /// new name; 1396 naming the pairs that failed. All or nothing.
    fn rename_user(&self, _pairs: &[(UserSpec, UserSpec)]) -> Result<()> {
        Err(KilnError::new(
            ErrorKind::ER_NOT_SUPPORTED_YET,
            &[&"RENAME USER"],
        ))
    }
}

/// Changes to report in the next OK packet's session-state block.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct TrackedChanges {
    pub schema: Option<String>,
    pub system_variables: Vec<(String, String)>,
    pub state_changed: bool,
}

pub struct Session {
    pub connection_id: u64,
    /// User name as the client sent it.
    pub user: String,
    /// Client host as MySQL shows it ("localhost" for loopback and the Unix socket).
    pub host: String,
    /// The matched account (user, host pattern).
    pub account: (String, String),
    pub database: Option<String>,
    pub vars: Box<dyn SystemVariables>,
    pub server: Arc<dyn ServerHooks>,
    /// Set by KILL from another thread.
    pub interrupt: Arc<AtomicU8>,
    pub in_transaction: bool,
    pub tx_read_only: bool,
    pub counters: SessionCounters,
    pub(crate) user_vars: HashMap<String, Value>,
    diagnostics: Vec<Diagnostic>,
    diagnostics_total: usize,
    last_insert_id: u64,
    pub(crate) row_count: i64,
    found_rows: u64,
    pub(crate) params: Vec<Value>,
    statement_time_micros: i64,
    pub(crate) changes: TrackedChanges,
    /// The client asked for CLIENT_FOUND_ROWS (UPDATE reports matched rows).
    pub client_found_rows: bool,
    /// Tables and transactions (None: a server without storage, as in protocol tests).
    pub(crate) dict: Option<Arc<crate::dict::Dictionary>>,
    pub(crate) catalog_cache: Option<Arc<crate::dict::Catalog>>,
    pub(crate) trx_session: Option<kiln_storage::trx::Session>,
    pub(crate) trx: Option<kiln_storage::trx::Trx>,
    /// BEGIN / START TRANSACTION was issued (the transaction ends at COMMIT/ROLLBACK).
    pub(crate) explicit_trx: bool,
    pub(crate) consistent_snapshot: bool,
    pub(crate) savepoints: Vec<(String, u64)>,
    /// SET TRANSACTION without a scope: for the next transaction only.
    pub(crate) next_trx_isolation: Option<kiln_storage::trx::Isolation>,
    pub(crate) next_trx_read_only: Option<bool>,
    /// A statement began: the next data access marks a statement boundary in the
    /// transaction (READ COMMITTED takes a fresh view).
    pub(crate) statement_pending: bool,
    /// The transaction is lent to a running read (a nested read must not begin another).
    pub(crate) trx_lent: bool,
    /// Tables of the statements whose triggers are running, innermost last: a
    /// trigger's statement may not write them (1442; exec/trigger.rs).
    pub(crate) trigger_tables: Vec<(String, String)>,
    /// Tables of the statements running that may call stored functions, innermost
    /// last: a function's statement may not write them either (1442; only kept
    /// while stored functions exist, session_routine.rs).
    pub(crate) statement_tables: Vec<(String, String)>,
    /// The stored routines running, innermost last (routine/call.rs).
    pub(crate) routine_stack: Vec<crate::routine::call::Running>,
    /// Result sets a CALL's procedures produced, for the client before the CALL's
    /// OK (session_routine.rs).
    pub(crate) results: Vec<Rows>,
    /// The client can take several result sets for one statement
    /// (CLIENT_MULTI_RESULTS; a CALL of a procedure that has SELECTs needs it).
    pub client_multi_results: bool,
    /// Session variables every statement consults, read once (dropped by any SET).
    pub(crate) var_cache: Option<VarCache>,
    /// The account's privileges as of `privs_generation` (see `Session::privileges`).
    pub(crate) privs: Option<Arc<Privileges>>,
    /// The server's own start-up statements (`run_bootstrap`): no privilege checks.
    pub(crate) bootstrap: bool,
    pub(crate) privs_generation: u64,
    /// The session's TEMPORARY tables (temp_tables.rs).
    pub(crate) temp: crate::temp_tables::TempTables,
    /// Text statements' digests and their point plans (digest.rs).
    pub(crate) digests: crate::digest::DigestCache,
    /// Text statements' templates (stmt_cache.rs).
    pub(crate) stmt_cache: crate::stmt_cache::StmtCache,
    /// PREPARE'd statements by lower-cased name (prepared_sql.rs).
    pub(crate) sql_prepared: HashMap<String, Arc<Parsed>>,
    /// The metadata locks the session holds (mdl.rs, session_mdl.rs).
    pub(crate) mdl: crate::mdl::MdlContext,
    /// A SHOW statement runs: its locks are high-priority ones.
    pub(crate) mdl_high_prio: bool,
    /// The tables LOCK TABLES holds (session_lock.rs); None on the hot path.
    pub(crate) locked: Option<Box<crate::session_lock::LockedTables>>,
    /// The global read lock's gate for this session's writes (grl.rs).
    pub(crate) gate: crate::grl::WriteGate,
    /// The global read lock this session holds (FLUSH TABLES WITH READ LOCK).
    pub(crate) grl: Option<crate::grl::GlobalReadLock>,
    /// The open transaction ran a statement that passed the write gate (so its
    /// COMMIT passes it too; one that changed only temporary tables did not).
    pub(crate) trx_gated: bool,
}

/// Session variables the statement path reads, parsed once.
#[derive(Debug, Clone)]
pub struct VarCache {
    pub autocommit: bool,
    /// sql_mode, upper-cased, comma-separated.
    pub sql_mode: String,
    pub isolation: String,
    pub lock_wait_timeout_secs: Option<u64>,
    /// lock_wait_timeout (metadata-lock waits).
    pub mdl_wait_timeout_secs: u64,
    pub div_precision_increment: u32,
    /// sql_mode's flags for reading statement text.
    pub lex_mode: crate::lexer::LexMode,
    /// session_track_state_change.
    pub track_state_change: bool,
    pub wait_timeout_secs: u64,
    /// thread_pool_priority: Some(true) high, Some(false) low, None auto.
    pub pool_priority_high: Option<bool>,
    /// collation_connection.
    pub conn_coll: crate::collate::Coll,
    /// time_zone as an offset east of UTC (timestamp_zone.rs).
    pub zone_offset_secs: i32,
}

impl Session {
    pub fn new(
        connection_id: u64,
        vars: Box<dyn SystemVariables>,
        server: Arc<dyn ServerHooks>,
        interrupt: Arc<AtomicU8>,
    ) -> Session {
        Session {
            connection_id,
            user: String::new(),
            host: String::new(),
            account: (String::new(), String::new()),
            database: None,
            vars,
            server,
            interrupt,
            in_transaction: false,
            tx_read_only: false,
            counters: SessionCounters::default(),
            user_vars: HashMap::new(),
            diagnostics: Vec::new(),
            diagnostics_total: 0,
            last_insert_id: 0,
            row_count: -1,
            found_rows: 0,
            params: Vec::new(),
            statement_time_micros: 0,
            changes: TrackedChanges::default(),
            client_found_rows: false,
            dict: None,
            bootstrap: false,
            catalog_cache: None,
            trx_session: None,
            trx: None,
            explicit_trx: false,
            consistent_snapshot: false,
            savepoints: Vec::new(),
            next_trx_isolation: None,
            next_trx_read_only: None,
            statement_pending: false,
            trx_lent: false,
            trigger_tables: Vec::new(),
            statement_tables: Vec::new(),
            routine_stack: Vec::new(),
            results: Vec::new(),
            client_multi_results: true,
            var_cache: None,
            privs: None,
            privs_generation: 0,
            temp: Default::default(),
            digests: Default::default(),
            stmt_cache: Default::default(),
            sql_prepared: HashMap::new(),
            mdl: crate::mdl::MdlContext::new(connection_id),
            mdl_high_prio: false,
            locked: None,
            gate: crate::grl::WriteGate::new(connection_id),
            grl: None,
            trx_gated: false,
        }
    }

    /// Connects the session to the data dictionary (and so to tables).
    pub fn set_dictionary(&mut self, dict: Arc<crate::dict::Dictionary>) {
        self.dict = Some(dict);
    }

    /// Back to a fresh session state (COM_RESET_CONNECTION; COM_CHANGE_USER also
    /// changes the user). Keeps the identity and database.
    pub fn reset(&mut self) {
        self.vars.reset();
        self.var_cache = None;
        self.user_vars.clear();
        self.digests.clear();
        self.stmt_cache.clear();
        self.sql_prepared.clear();
        self.diagnostics.clear();
        self.diagnostics_total = 0;
        self.last_insert_id = 0;
        self.end_transaction(false);
        self.release_locked_tables();
        self.grl = None;
        // Temporary tables go, as MySQL's mysql_reset_connection / COM_CHANGE_USER
        // drop them (after the transaction, whose undo may name them).
        self.drop_temp_tables();
        self.row_count = -1;
        // mysql_reset_connection releases GET_LOCK locks too.
        crate::userlock::locks().release_all(self.connection_id);
    }

    /// How statement text is read under the session's sql_mode.
    pub fn lex_mode(&self) -> crate::lexer::LexMode {
        if let Some(c) = &self.var_cache {
            return c.lex_mode;
        }
        self.vars
            .display("sql_mode")
            .map_or_else(Default::default, |m| {
                crate::lexer::LexMode::from_sql_mode(&m)
            })
    }

    /// Runs the server's own start-up statements (system tables it creates when
    /// missing), without privilege checks: no account may be able to run them, and
    /// they must run whatever accounts exist. Never reachable from a client.
    pub fn run_bootstrap(&mut self, sql: &str) -> Result<()> {
        self.bootstrap = true;
        let r = (|| {
            for (stmt, _) in self.parse(sql)? {
                self.execute(&stmt, Vec::new())?;
            }
            Ok(())
        })();
        self.bootstrap = false;
        r
    }

    /// Parses a COM_QUERY's statements.
    pub fn parse<'s>(&self, sql: &'s str) -> Result<Vec<(Parsed, &'s str)>> {
        parse_multi(sql, self.lex_mode())
    }

    /// Parses one statement for COM_STMT_PREPARE and describes its result columns.
    pub fn prepare(&mut self, sql: &str) -> Result<(Parsed, Vec<ColumnInfo>)> {
        let r = self.prepare_inner(sql);
        // Describing the result opened tables: their locks last as long as a
        // statement's would (MySQL: no transaction open, none kept).
        self.release_mdl_if_idle();
        r
    }

    fn prepare_inner(&mut self, sql: &str) -> Result<(Parsed, Vec<ColumnInfo>)> {
        self.begin_statement(false);
        let parsed = parse_one(sql, self.lex_mode())?;
        let columns = self.describe_prepared(&parsed)?;
        parsed.plan.enable();
        Ok((parsed, columns))
    }

    /// Parses one statement to prepare (COM_STMT_PREPARE, PREPARE) and checks that its
    /// tables and columns exist.
    pub(crate) fn prepare_text(&mut self, sql: &str) -> Result<Parsed> {
        let parsed = parse_one(sql, self.lex_mode())?;
        self.describe_prepared(&parsed)?;
        parsed.plan.enable();
        Ok(parsed)
    }

    fn describe_prepared(&mut self, parsed: &Parsed) -> Result<Vec<ColumnInfo>> {
        if matches!(
            parsed.stmt,
            Stmt::LoadData(_)
                | Stmt::Prepare { .. }
                | Stmt::Execute { .. }
                | Stmt::DeallocatePrepare(_)
        ) {
            return Err(ErrorKind::ER_UNSUPPORTED_PS.into());
        }
        // A SELECT over views is described over the views' SELECTs.
        let expanded = match &parsed.stmt {
            Stmt::Select(_) => crate::exec::view::expand(self, &parsed.stmt)?,
            _ => None,
        };
        let columns = match expanded.as_ref().unwrap_or(&parsed.stmt) {
            Stmt::Select(s) if !s.from.is_empty() => crate::exec::columns::describe(self, s)?,
            Stmt::Select(s) => s
                .items
                .iter()
                .map(|i| crate::infer::column_for(&i.name, &i.expr))
                .collect(),
            Stmt::Show { .. } => Vec::new(),
            Stmt::Explain { .. } => crate::exec::explain::columns(),
            _ => Vec::new(),
        };
        Ok(columns)
    }

    /// Diagnostics count for OK/EOF packets.
    pub fn warning_count(&self) -> u16 {
        self.diagnostics_total.min(u16::MAX as usize) as u16
    }

    /// Records an error so SHOW WARNINGS / SHOW ERRORS list it. ROW_COUNT() after a
    /// failed statement (a syntax error too) is -1, as in MySQL.
    pub fn record_error(&mut self, e: &KilnError) {
        self.row_count = -1;
        self.diagnostics.clear();
        self.diagnostics_total = 0;
        self.push_diagnostic(Level::Error, e.code, e.message.clone());
    }

    /// Drops diagnostic `i` (a condition a stored program's handler took).
    pub(crate) fn remove_diagnostic(&mut self, i: usize) {
        if i < self.diagnostics.len() {
            self.diagnostics.remove(i);
            self.diagnostics_total = self.diagnostics_total.saturating_sub(1);
        }
    }

    pub(crate) fn push_diagnostic(&mut self, level: Level, code: u16, message: String) {
        self.diagnostics_total += 1;
        if self.diagnostics.len() < DIAGNOSTICS_MAX {
            self.diagnostics.push(Diagnostic {
                level,
                code,
                message,
            });
        }
    }

    /// Takes the session-state changes accumulated since the last OK packet.
    pub fn take_changes(&mut self) -> TrackedChanges {
        std::mem::take(&mut self.changes)
    }

    /// Sets the default database (COM_INIT_DB, USE). Unknown → 1049.
    pub fn use_database(&mut self, db: &str) -> Result<()> {
        // Access first, as MySQL: a database the account may not see is 1044 whether
        // it exists or not.
        self.check_db_access(db)?;
        let names = if self.dict.is_some() {
            self.database_names()
        } else {
            self.server.databases()
        };
        if !names
            .iter()
            .any(|d| d == db || (d == "information_schema" && db.eq_ignore_ascii_case(d)))
        {
            return Err(KilnError::new(ErrorKind::ER_BAD_DB_ERROR, &[&db]));
        }
        self.database = Some(db.to_string());
        self.changes.schema = Some(db.to_string());
        self.changes.state_changed = true;
        Ok(())
    }

    /// The start of a row-API batch: NOW() is fixed, the last batch's warnings go.
    pub(crate) fn begin_row_batch(&mut self) {
        self.diagnostics.clear();
        self.diagnostics_total = 0;
        self.statement_time_micros = kiln_common::time::unix_micros_now();
        let _ = self.cached_vars();
    }

    fn begin_statement(&mut self, keeps_diagnostics: bool) {
        if !keeps_diagnostics {
            self.diagnostics.clear();
            self.diagnostics_total = 0;
        }
        self.statement_time_micros = kiln_common::time::unix_micros_now();
        self.statement_pending = true;
        self.results.clear();
        let _ = self.cached_vars();
        if self.interrupt.load(Ordering::Relaxed) == INTERRUPT_QUERY {
            self.interrupt.store(INTERRUPT_NONE, Ordering::Relaxed);
        }
    }

    /// Runs one parsed statement with bound parameters.
    pub fn execute(&mut self, parsed: &Parsed, params: Vec<Value>) -> Result<Outcome> {
        self.execute_with_infile(parsed, params, &mut crate::exec::load::NoLocalInfile)
    }

    /// `execute`, with the client connection's side of LOAD DATA LOCAL.
    pub fn execute_with_infile(
        &mut self,
        parsed: &Parsed,
        params: Vec<Value>,
        infile: &mut dyn crate::exec::load::LocalInfile,
    ) -> Result<Outcome> {
        let keeps = matches!(
            parsed.stmt,
            Stmt::Show {
                kind: ShowKind::Warnings
                    | ShowKind::Errors
                    | ShowKind::CountWarnings
                    | ShowKind::CountErrors,
                ..
            }
        );
        self.begin_statement(keeps);
        if params.len() != parsed.param_count {
            return Err(KilnError::new(
                ErrorKind::ER_WRONG_ARGUMENTS,
                &[&"mysqld_stmt_execute"],
            ));
        }
        self.params = params;
        self.counters.questions += 1;
        let com = com_name(&parsed.stmt);
        if let Some(i) = crate::status::record(com) {
            self.counters.com[i] += 1;
        }
        // TIMESTAMP values cross the session time zone in the row codec.
        let zone = crate::timestamp_zone::enter_offset(self.cached_vars().zone_offset_secs);
        let r = self.dispatch_parsed(parsed, infile);
        drop(zone);
        let r = self.end_statement(r);
        self.release_mdl_if_idle();
        self.params.clear();
        match &r {
            Ok(Outcome::Ok { affected_rows, .. }) => self.row_count = *affected_rows as i64,
            Ok(Outcome::Rows(rows)) => {
                self.row_count = -1;
                self.found_rows = rows.rows.len() as u64;
            }
            Err(e) => self.record_error(e),
        }
        r
    }

    pub(crate) fn dispatch(
        &mut self,
        stmt: &Stmt,
        infile: &mut dyn crate::exec::load::LocalInfile,
    ) -> Result<Outcome> {
        self.dispatch_with(stmt, infile, None)
    }

    /// `dispatch` of a prepared statement whose plan cache is `slot`
    /// (exec/prepared_plan.rs).
    pub(crate) fn dispatch_with(
        &mut self,
        stmt: &Stmt,
        infile: &mut dyn crate::exec::load::LocalInfile,
        slot: Option<&crate::exec::prepared_plan::StmtSlot>,
    ) -> Result<Outcome> {
        crate::privcheck::check(self, stmt)?;
        if self.locked.is_some() {
            self.check_locked(stmt)?;
        }
        let gated = self.gated(stmt) && self.enter_gate(stmt)?;
        let mark = self.note_statement_tables(stmt);
        let r = self.dispatch_checked(stmt, infile, slot);
        self.statement_tables.truncate(mark);
        if gated {
            self.gate.exit();
            // Its COMMIT will pass the gate too (`commit_gated`).
            self.trx_gated |= self.trx.is_some();
        }
        r
    }

    fn dispatch_checked(
        &mut self,
        stmt: &Stmt,
        infile: &mut dyn crate::exec::load::LocalInfile,
        slot: Option<&crate::exec::prepared_plan::StmtSlot>,
    ) -> Result<Outcome> {
        self.check_reopen(stmt)?;
        // Views become derived tables (and DML through a view goes to its table).
        let expanded = crate::exec::view::expand(self, stmt)?;
        if expanded.is_none()
            && let Some(slot) = slot
            && let Some(r) = crate::exec::prepared_plan::execute(self, slot, stmt)
        {
            return r;
        }
        let stmt = expanded.as_ref().unwrap_or(stmt);
        if is_implicit_commit(stmt) {
            self.commit_current()?;
            self.lock_for_ddl(stmt)?;
        }
        if let Some(r) = self.account_statement(stmt) {
            return r;
        }
        match stmt {
            Stmt::Select(s) => crate::exec::select::run(self, s).map(Outcome::Rows),
            Stmt::Insert(i) => crate::exec::dml::insert(self, i),
            Stmt::LoadData(ld) => crate::exec::load::load_data(self, ld, infile),
            Stmt::Update(u) => crate::exec::dml::update(self, u),
            Stmt::Delete(d) => crate::exec::dml::delete(self, d),
            Stmt::CreateDatabase {
                name,
                if_not_exists,
                charset,
                collation,
            } => crate::exec::ddl::create_database(
                self,
                name,
                *if_not_exists,
                charset.as_deref(),
                collation.as_deref(),
            ),
            Stmt::DropDatabase { name, if_exists } => {
                crate::exec::ddl::drop_database(self, name, *if_exists)
            }
            Stmt::CreateTable(ct) => crate::exec::ddl::create_table(self, ct),
            Stmt::DropTable {
                names,
                if_exists,
                temporary,
            } => crate::exec::ddl::drop_tables(self, names, *if_exists, *temporary),
            Stmt::TruncateTable(t) => crate::exec::ddl::truncate(self, t),
            Stmt::CreateView(cv) => crate::exec::view::create_view(self, cv),
            Stmt::DropView { names, if_exists } => {
                crate::exec::view::drop_views(self, names, *if_exists)
            }
            Stmt::RenameTable(pairs) => crate::exec::ddl::rename(self, pairs),
            Stmt::CreateTrigger(ct) => crate::exec::trigger::create_trigger(self, ct),
            Stmt::DropTrigger { name, if_exists } => {
                crate::exec::trigger::drop_trigger(self, name, *if_exists)
            }
            Stmt::CreateIndex { table, spec } => {
                crate::exec::alter::create_index(self, table, spec)
            }
            Stmt::DropIndex { table, name } => crate::exec::alter::drop_index(self, table, name),
            Stmt::AlterTable { table, ops } => crate::exec::alter::alter(self, table, ops),
            Stmt::TableMaintenance { op, tables } => {
                crate::exec::maintenance::run(self, *op, tables)
            }
            Stmt::Savepoint(name) => self.savepoint(name),
            Stmt::RollbackTo(name) => self.rollback_to_savepoint(name),
            Stmt::ReleaseSavepoint(name) => self.release_savepoint(name),
            Stmt::LockTables(items) => self.lock_tables(items),
            Stmt::UnlockTables => self.unlock_tables(),
            Stmt::FlushTablesWithReadLock(tables) => self.flush_with_read_lock(tables),
            Stmt::Do(exprs) => {
                for e in exprs {
                    eval(e, self)?;
                }
                Ok(Outcome::ok())
            }
            Stmt::Set(assignments) => self.set(assignments),
            Stmt::SetNames { charset, collation } => {
                self.set_names(charset.as_deref(), collation.as_deref())
            }
            Stmt::SetCharset(cs) => self.set_charset(cs.as_deref()),
            Stmt::SetTransaction {
                scope,
                isolation,
                access,
            } => self.set_transaction(*scope, isolation.as_deref(), access.as_ref()),
            Stmt::Show {
                kind,
                scope,
                filter,
                limit,
            } => {
                // SHOW takes high-priority locks, for itself only (as MySQL).
                let sp = self.mdl.savepoint();
                self.mdl_high_prio = true;
                let r = crate::show::show(self, kind, *scope, filter.as_ref(), *limit);
                self.mdl_high_prio = false;
                self.mdl.release_to(sp);
                r
            }
            Stmt::Use(db) => {
                self.use_database(db)?;
                Ok(Outcome::ok())
            }
            Stmt::Kill { id, query_only } => {
                let v = eval(id, self)?;
                let target = v.to_i64().unwrap_or(-1);
                if target < 0 {
                    return Err(KilnError::new(
                        ErrorKind::ER_NO_SUCH_THREAD,
                        &[&v.to_string()],
                    ));
                }
                let user = self.account.0.clone();
                self.server
                    .kill(self.connection_id, &user, target as u64, *query_only)?;
                Ok(Outcome::ok())
            }
            Stmt::Shutdown => {
                let user = self.user.clone();
                self.server.shutdown(&user)?;
                Ok(Outcome::ok())
            }
            Stmt::Begin {
                access,
                consistent_snapshot,
            } => self.begin(
                matches!(access, Some(TxAccess::ReadOnly)),
                *consistent_snapshot,
            ),
            Stmt::Commit => {
                self.commit_current()?;
                Ok(Outcome::ok())
            }
            Stmt::Rollback => {
                self.rollback_current()?;
                Ok(Outcome::ok())
            }
            Stmt::NoOp(_) => Ok(Outcome::ok()),
            Stmt::Prepare { name, source } => self.sql_prepare(name, source),
            Stmt::Execute { name, using } => self.sql_execute(name, using, infile),
            Stmt::DeallocatePrepare(name) => self.sql_deallocate(name),
            Stmt::CreateRoutine(cr) => crate::exec::routine::create_routine(self, cr),
            Stmt::DropRoutine {
                kind,
                name,
                if_exists,
            } => crate::exec::routine::drop_routine(self, *kind, name, *if_exists),
            Stmt::AlterRoutine { kind, name, chars } => {
                crate::exec::routine::alter_routine(self, *kind, name, chars)
            }
            Stmt::Call { name, args } => crate::routine::call::call_statement(self, name, args),
            Stmt::Explain {
                format,
                analyze,
                stmt,
            } => crate::exec::explain::explain(self, *format, *analyze, stmt),
            _ => {
                debug_assert!(is_account_statement(stmt));
                unreachable!("account statements run in account_statement")
            }
        }
    }

    /// A SELECT with no FROM clause.
    pub(crate) fn select_without_tables(&mut self, s: &Select) -> Result<Rows> {
        if s.items
            .iter()
            .any(|i| matches!(&i.expr, Expr::Column { name, .. } if name == "*"))
        {
            return Err(ErrorKind::ER_NO_TABLES_USED.into());
        }
        let mut row = Vec::with_capacity(s.items.len());
        let no_columns = crate::exec::bind::Scope::default();
        for item in &s.items {
            let e = crate::exec::select::run_subqueries(self, &item.expr)?;
            if crate::coercion::may_annotate(&e, &no_columns) {
                let e = crate::coercion::annotate(&e, &no_columns)?;
                row.push(eval(&e, self)?);
            } else {
                row.push(eval(&e, self)?);
            }
        }
        let mut keep = true;
        if let Some(f) = &s.filter {
            let f = crate::exec::select::run_subqueries(self, f)?;
            let f = crate::coercion::annotate(&f, &no_columns)?;
            keep = eval(&f, self)?.to_bool() == Some(true);
        }
        if let Some(l) = &s.limit
            && eval(l, self)?.to_i64().unwrap_or(0) <= 0
        {
            keep = false;
        }
        let rows = if keep { vec![row] } else { Vec::new() };
        let columns = s
            .items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                if rows.is_empty() {
                    crate::infer::column_for(&item.name, &item.expr)
                } else {
                    crate::infer::column_for_values(
                        &item.name,
                        &item.expr,
                        rows.iter().map(|r| &r[i]),
                        &|_| None,
                    )
                }
            })
            .collect::<Vec<_>>();
        Ok(Rows {
            columns: columns.into(),
            rows,
        })
    }

    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    pub fn diagnostics_total(&self) -> usize {
        self.diagnostics_total
    }
}

pub use crate::session_com::{SessionCounters, com_name};
pub(crate) use crate::session_com::{is_account_statement, is_implicit_commit};

impl Env for Session {
    /// A subquery outside any row (SET @@sql_mode = (SELECT …), DO (SELECT …)).
    fn subquery(&mut self, sel: &Select) -> Result<Rows> {
        crate::exec::select::run(self, sel)
    }

    fn stored_function(&mut self, name: &str, args: Vec<Value>) -> Option<Result<Value>> {
        crate::routine::call::function(self, name, args)
    }

    fn param(&self, index: usize) -> Result<Value> {
        self.params
            .get(index)
            .cloned()
            .ok_or_else(|| KilnError::new(ErrorKind::ER_WRONG_ARGUMENTS, &[&"EXECUTE"]))
    }

    fn sysvar(&self, scope: VarScope, name: &str) -> Result<Value> {
        match name.to_ascii_lowercase().as_str() {
            "warning_count" => return Ok(Value::UInt(self.diagnostics_total as u64)),
            "error_count" => {
                return Ok(Value::UInt(
                    self.diagnostics
                        .iter()
                        .filter(|d| d.level == Level::Error)
                        .count() as u64,
                ));
            }
            "last_insert_id" | "identity" => return Ok(Value::UInt(self.last_insert_id)),
            _ => {}
        }
        self.vars.get(scope, name)
    }

    fn user_var(&self, name: &str) -> Value {
        self.user_vars
            .get(&name.to_lowercase())
            .cloned()
            .unwrap_or(Value::Null)
    }

    fn set_user_var(&mut self, name: &str, value: Value) {
        if self.user_vars.len() < USER_VARIABLES_MAX
            || self.user_vars.contains_key(&name.to_lowercase())
        {
            self.user_vars.insert(name.to_lowercase(), value);
        }
    }

    fn warn(&mut self, level: Level, code: u16, message: String) {
        self.push_diagnostic(level, code, message);
    }

    fn connection_id(&self) -> u64 {
        self.connection_id
    }

    fn database(&self) -> Option<String> {
        self.database.clone()
    }

    fn user(&self) -> String {
        format!("{}@{}", self.user, self.host)
    }

    fn current_user(&self) -> String {
        format!("{}@{}", self.account.0, self.account.1)
    }

    fn last_insert_id(&self) -> u64 {
        self.last_insert_id
    }

    fn set_last_insert_id(&mut self, id: u64) {
        self.last_insert_id = id;
    }

    fn row_count(&self) -> i64 {
        self.row_count
    }

    fn found_rows(&self) -> u64 {
        self.found_rows
    }

    fn server_version(&self) -> String {
        self.server.server_version()
    }

    fn statement_time_micros(&self) -> i64 {
        self.statement_time_micros
    }

    fn sleep_interruptible(&mut self, seconds: f64) -> bool {
        let _wait = kiln_common::wait::begin(kiln_common::wait::WaitKind::Sleep);
        let deadline =
            std::time::Instant::now() + std::time::Duration::from_secs_f64(seconds.min(1e7));
        loop {
            if self.interrupt.load(Ordering::Relaxed) != INTERRUPT_NONE {
                return true;
            }
            let now = std::time::Instant::now();
            if now >= deadline {
                return false;
            }
            std::thread::sleep((deadline - now).min(std::time::Duration::from_millis(10)));
        }
    }

    fn is_interrupted(&self) -> bool {
        self.interrupt.load(Ordering::Relaxed) != INTERRUPT_NONE
    }

    fn collation_connection(&self) -> crate::collate::Coll {
        match &self.var_cache {
            Some(c) => c.conn_coll,
            None => conn_coll(&*self.vars),
        }
    }

    fn div_precision_increment(&self) -> u32 {
        self.var_cache.as_ref().map_or_else(
            || {
                self.vars
                    .get(VarScope::Session, "div_precision_increment")
                    .ok()
                    .and_then(|v| v.to_i64())
                    .unwrap_or(4)
                    .clamp(0, 30) as u32
            },
            |c| c.div_precision_increment,
        )
    }
}

/// A session's end (the connection closed, killed or lost) releases its user-level
/// locks (GET_LOCK) and drops its temporary tables, as in MySQL: the open transaction
/// is rolled back first (its undo may name the temporary tables).
impl Drop for Session {
    fn drop(&mut self) {
        crate::userlock::locks().release_all(self.connection_id);
        self.end_transaction(false);
        self.drop_temp_tables();
    }
}

/// The session's collation_connection.
pub(crate) fn conn_coll(vars: &dyn SystemVariables) -> crate::collate::Coll {
    vars.display("collation_connection")
        .and_then(|n| crate::collate::Coll::by_name(&n))
        .unwrap_or(crate::collate::Coll::DEFAULT)
}
