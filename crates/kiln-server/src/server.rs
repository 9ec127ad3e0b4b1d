//! The running server's shared state: settings, system variables, accounts, TLS
//! material, the registry of live connections (for KILL, PROCESSLIST, shutdown) and
//! server-level status counters. Implements kiln-sql's `ServerHooks`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::time::Instant;

use kiln_common::counter::ShardedCounter;
use kiln_common::{ErrorKind, KilnError, Result};
use kiln_sql::ast::{AuthSpec, ResourceLimits, UserSpec};
use kiln_sql::eval::Level;
use kiln_sql::privilege::{self, GrantObject, PrivSet, Privileges};
use kiln_sql::session::{
    Diagnostic, INTERRUPT_CONNECTION, INTERRUPT_QUERY, ProcessInfo, ServerHooks,
};
use parking_lot::{Condvar, Mutex};

use crate::accounts::Accounts;
use crate::conn::io::Closer;
use crate::errlog;
use crate::vars::Globals;

/// Settings fixed at startup.
#[derive(Debug, Clone)]
pub struct Settings {
    pub datadir: PathBuf,
    pub port: u16,
    pub bind_address: String,
    pub socket: PathBuf,
    pub pid_file: PathBuf,
    pub skip_networking: bool,
    pub version: String,
}

/// What PROCESSLIST shows of a connection; updated by its own thread per command.
#[derive(Debug, Clone)]
pub struct ProcState {
    pub user: String,
    pub host: String,
    pub db: Option<String>,
    pub command: &'static str,
    pub since: Instant,
    pub info: Option<String>,
    /// (Ssl_version, Ssl_cipher) when the connection runs over TLS.
    pub tls: Option<(String, String)>,
}

/// A live connection as other threads see it.
pub struct ConnShared {
    pub id: u64,
    pub interrupt: Arc<AtomicU8>,
    pub closer: Closer,
    /// Came in on `extra_port`: counted against `extra_max_connections`.
    pub extra: bool,
    /// The account (user, host pattern) it is counted under for
    /// `max_user_connections`, once authenticated.
    pub account: Mutex<Option<(String, String)>>,
    pub state: Mutex<ProcState>,
}

/// Server-level status counters (SHOW STATUS names in comments).
#[derive(Default)]
pub struct ServerStats {
    pub connections: ShardedCounter,      // Connections
    pub aborted_connects: ShardedCounter, // Aborted_connects
    pub aborted_clients: ShardedCounter,  // Aborted_clients
    pub bytes_received: ShardedCounter,   // Bytes_received
    pub bytes_sent: ShardedCounter,       // Bytes_sent
    pub threads_running: ShardedCounter,  // Threads_running (gauge)
    pub max_used_connections: AtomicU64,  // Max_used_connections
    pub ssl_accepts: ShardedCounter,      // Ssl_accepts
    pub extra_threads: ShardedCounter,    // part of Threads_created (extra_port)
    /// Authenticated connections running on a thread of their own (one thread per
    /// connection, and `extra_port`): whether an idle one may spin (`conn::command::run`).
    pub own_thread_conns: std::sync::atomic::AtomicUsize,
}

pub struct Server {
    pub settings: Settings,
    pub globals: Globals,
    pub accounts: Accounts,
    pub tls: Option<crate::tls::TlsMaterial>,
    pub engine: Option<std::sync::Arc<kiln_storage::engine::Engine>>,
    pub trx: Option<std::sync::Arc<kiln_storage::trx::TrxEngine>>,
    /// The data dictionary (tables); None only when storage is not opened.
    pub dict: Option<std::sync::Arc<kiln_sql::dict::Dictionary>>,
    pub stats: ServerStats,
    /// The HandlerSocket listener, when configured.
    pub hs: Mutex<Option<kiln_hs::server::HsServer>>,
    conns: Mutex<HashMap<u64, Arc<ConnShared>>>,
    /// Live connections that came in on `extra_port` (part of `conns`).
    extra_conns: AtomicU64,
    /// Prepared statements of all sessions (Prepared_stmt_count).
    prepared_stmts: AtomicU64,
    /// Live connections per account, for `max_user_connections`.
    account_conns: Mutex<HashMap<(String, String), u64>>,
    /// The thread pool, when `thread_handling=pool-of-threads`.
    pub pool: std::sync::OnceLock<Arc<crate::pool::ThreadPool>>,
    next_id: AtomicU64,
    started: Instant,
    shutting_down: AtomicBool,
    shutdown_wait: (Mutex<bool>, Condvar),
}

impl Server {
    pub fn new(
        settings: Settings,
        globals: Globals,
        accounts: Accounts,
        tls: Option<crate::tls::TlsMaterial>,
        engine: Option<std::sync::Arc<kiln_storage::engine::Engine>>,
        trx: Option<std::sync::Arc<kiln_storage::trx::TrxEngine>>,
        dict: Option<std::sync::Arc<kiln_sql::dict::Dictionary>>,
    ) -> Server {
        Server {
            settings,
            globals,
            accounts,
            tls,
            engine,
            trx,
            dict,
            stats: ServerStats::default(),
            hs: Mutex::new(None),
            conns: Mutex::new(HashMap::new()),
            extra_conns: AtomicU64::new(0),
            prepared_stmts: AtomicU64::new(0),
            account_conns: Mutex::new(HashMap::new()),
            pool: std::sync::OnceLock::new(),
            next_id: AtomicU64::new(1),
            started: Instant::now(),
            shutting_down: AtomicBool::new(false),
            shutdown_wait: (Mutex::new(false), Condvar::new()),
        }
    }

    pub fn next_connection_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// Adds a connection; refuses when `max_connections` (+1 reserved for an admin,
    /// as MySQL reserves one for SUPER) is reached — or, for a connection on
    /// `extra_port`, when `extra_max_connections` are open there.
    pub fn register(&self, c: Arc<ConnShared>) -> bool {
        let mut m = self.conns.lock();
        let extra = self.extra_conns.load(Ordering::Relaxed);
        if c.extra {
            let max = self.globals.u64("extra_max_connections").unwrap_or(1);
            if extra >= max {
                return false;
            }
            self.extra_conns.fetch_add(1, Ordering::Relaxed);
        } else {
            let max = self.globals.u64("max_connections").unwrap_or(151);
            if m.len() as u64 - extra > max {
                return false;
            }
        }
        m.insert(c.id, c);
        let n = m.len() as u64;
        self.stats
            .max_used_connections
            .fetch_max(n, Ordering::Relaxed);
        true
    }

    pub fn unregister(&self, c: &ConnShared) {
        if self.conns.lock().remove(&c.id).is_some() && c.extra {
            self.extra_conns.fetch_sub(1, Ordering::Relaxed);
        }
        if let Some(account) = c.account.lock().take() {
            let mut m = self.account_conns.lock();
            if let Some(n) = m.get_mut(&account) {
                *n -= 1;
                if *n == 0 {
                    m.remove(&account);
                }
            }
        }
    }

    /// Reserves one prepared statement under `max_prepared_stmt_count` (error 1461
    /// when all are taken).
    pub fn take_prepared(&self) -> Result<()> {
        let max = self
            .globals
            .u64("max_prepared_stmt_count")
            .unwrap_or(16_382);
        let r = self
            .prepared_stmts
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            });
        r.map(|_| ())
            .map_err(|_| KilnError::new(ErrorKind::ER_MAX_PREPARED_STMT_COUNT_REACHED, &[&max]))
    }

    /// Releases `n` prepared statements (closed, reset, or their session ended).
    pub fn drop_prepared(&self, n: usize) {
        if n > 0 {
            self.prepared_stmts.fetch_sub(n as u64, Ordering::AcqRel);
        }
    }

    /// Counts an authenticated connection under its account (replacing the one it
    /// was counted under, after COM_CHANGE_USER), refusing it when the account is at
    /// its limit: the account's own MAX_USER_CONNECTIONS when not 0 (error 1226),
    /// else the global `max_user_connections` (error 1203), as MySQL does.
    pub fn admit_account(&self, c: &ConnShared, account: &(String, String)) -> Result<()> {
        let own = self.accounts.max_user_connections(&account.0, &account.1);
        let global = self.globals.u64("max_user_connections").unwrap_or(0);
        let mut slot = c.account.lock();
        let mut m = self.account_conns.lock();
        if slot.as_ref() == Some(account) {
            return Ok(());
        }
        let n = m.get(account).copied().unwrap_or(0);
        if own > 0 && n >= own {
            return Err(KilnError::new(
                ErrorKind::ER_USER_LIMIT_REACHED,
                &[&account.0, &"max_user_connections", &own],
            ));
        }
        if own == 0 && global > 0 && n >= global {
            return Err(KilnError::new(
                ErrorKind::ER_TOO_MANY_USER_CONNECTIONS,
                &[&account.0],
            ));
        }
        *m.entry(account.clone()).or_insert(0) += 1;
        if let Some(old) = slot.replace(account.clone())
            && let Some(k) = m.get_mut(&old)
        {
            *k -= 1;
            if *k == 0 {
                m.remove(&old);
            }
        }
        Ok(())
    }

    pub fn connection_count(&self) -> usize {
        self.conns.lock().len()
    }

    pub fn is_shutting_down(&self) -> bool {
        self.shutting_down.load(Ordering::Acquire)
    }

    /// Starts shutdown: stop accepting, wake every connection. Idempotent.
    pub fn begin_shutdown(&self, why: &str) {
        if self.shutting_down.swap(true, Ordering::AcqRel) {
            return;
        }
        errlog::system(&format!("Received {why}. Shutting down."));
        // HandlerSocket first: its writes waiting for a SQL session's lock fail
        // (1317) instead of going through as those sessions end.
        if let Some(hs) = self.hs.lock().as_ref() {
            hs.interrupt();
        }
        for c in self.conns.lock().values() {
            c.interrupt.store(INTERRUPT_CONNECTION, Ordering::Relaxed);
            c.closer.close();
        }
        let (m, cv) = &self.shutdown_wait;
        *m.lock() = true;
        cv.notify_all();
    }

    /// Blocks until shutdown begins.
    pub fn wait_for_shutdown(&self) {
        let (m, cv) = &self.shutdown_wait;
        let mut g = m.lock();
        while !*g {
            cv.wait(&mut g);
        }
    }

    /// Waits up to `timeout` for connection threads to leave.
    pub fn drain(&self, timeout: std::time::Duration) -> usize {
        let deadline = Instant::now() + timeout;
        loop {
            let n = self.connection_count();
            if n == 0 || Instant::now() >= deadline {
                return n;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }

    pub fn uptime_secs(&self) -> u64 {
        self.started.elapsed().as_secs()
    }

    fn get_conn(&self, id: u64) -> Option<Arc<ConnShared>> {
        self.conns.lock().get(&id).cloned()
    }
}

fn cannot_user(op: &str, u: &UserSpec) -> KilnError {
    KilnError::new(
        ErrorKind::ER_CANNOT_USER,
        &[&op, &format!("'{}'@'{}'", u.user, u.host)],
    )
}

fn note(code: u16, message: String) -> Option<Diagnostic> {
    Some(Diagnostic {
        level: Level::Note,
        code,
        message,
    })
}

impl ServerHooks for Server {
    fn server_version(&self) -> String {
        self.settings.version.clone()
    }

    fn kill(&self, by: u64, by_user: &str, target: u64, query_only: bool) -> Result<()> {
        let Some(c) = self.get_conn(target) else {
            return Err(KilnError::new(ErrorKind::ER_NO_SUCH_THREAD, &[&target]));
        };
        let owner = c.state.lock().user.clone();
        // Another user's thread needs SUPER (MySQL 8.0: or CONNECTION_ADMIN) of the
        // killer's account, as the connection registry recorded it at login.
        if owner != by_user {
            let killer = self.get_conn(by).and_then(|k| k.account.lock().clone());
            let allowed = killer.is_some_and(|(user, host)| {
                self.accounts.has_global(&user, &host, privilege::SUPER)
            });
            if !allowed {
                return Err(KilnError::new(ErrorKind::ER_KILL_DENIED_ERROR, &[&target]));
            }
        }
        if query_only {
            c.interrupt.store(INTERRUPT_QUERY, Ordering::Relaxed);
        } else {
            c.interrupt.store(INTERRUPT_CONNECTION, Ordering::Relaxed);
            c.closer.close();
        }
        Ok(())
    }

    fn shutdown(&self, user: &str) -> Result<()> {
        errlog::note(&format!("SHUTDOWN statement from user {user}"));
        // The statement's OK is sent first; shutdown starts right after on another thread.
        let me: &'static Server = crate::global_server();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            me.begin_shutdown("SHUTDOWN");
        });
        Ok(())
    }

    fn status(&self, global: bool, session: u64) -> Vec<(String, String)> {
        let mut v = vec![
            (
                "Aborted_clients".to_string(),
                self.stats.aborted_clients.get().to_string(),
            ),
            (
                "Aborted_connects".to_string(),
                self.stats.aborted_connects.get().to_string(),
            ),
            (
                "Connections".to_string(),
                self.stats.connections.get().to_string(),
            ),
            (
                "Max_used_connections".to_string(),
                self.stats
                    .max_used_connections
                    .load(Ordering::Relaxed)
                    .to_string(),
            ),
            (
                "Threads_connected".to_string(),
                self.connection_count().to_string(),
            ),
            (
                "Threads_running".to_string(),
                self.stats.threads_running.get().to_string(),
            ),
            (
                "Threads_created".to_string(),
                // Dedicated threads: one per connection; in the pool, the workers
                // created (plus the dedicated threads of extra_port).
                match self.pool.get() {
                    Some(p) => p.threads_created() + self.stats.extra_threads.get(),
                    None => self.stats.connections.get(),
                }
                .to_string(),
            ),
            ("Threads_cached".to_string(), "0".to_string()),
            ("Uptime".to_string(), self.uptime_secs().to_string()),
            (
                "Uptime_since_flush_status".to_string(),
                self.uptime_secs().to_string(),
            ),
            (
                "Ssl_accepts".to_string(),
                self.stats.ssl_accepts.get().to_string(),
            ),
            ("Slow_queries".to_string(), "0".to_string()),
            (
                "Prepared_stmt_count".to_string(),
                self.prepared_stmts.load(Ordering::Relaxed).to_string(),
            ),
            ("Opened_tables".to_string(), "0".to_string()),
            ("Open_tables".to_string(), "0".to_string()),
        ];
        match self.pool.get() {
            Some(p) => v.extend(p.status()),
            None => {
                v.push(("Threadpool_idle_threads".into(), "0".into()));
                v.push(("Threadpool_threads".into(), "0".into()));
            }
        }
        if let Some(hs) = self.hs.lock().as_ref() {
            for (name, n) in hs.stats.values() {
                v.push((name.to_string(), n.to_string()));
            }
        }
        if global {
            v.push((
                "Bytes_received".into(),
                self.stats.bytes_received.get().to_string(),
            ));
            v.push(("Bytes_sent".into(), self.stats.bytes_sent.get().to_string()));
            if let Some(t) = &self.trx {
                v.extend(crate::storage::trx_status(t));
            }
            if let Some(e) = &self.engine {
                v.extend(crate::storage::status(e));
            }
        }
        let tls = if global {
            None
        } else {
            self.conns
                .lock()
                .get(&session)
                .and_then(|c| c.state.lock().tls.clone())
        };
        let (version, cipher) = tls.unwrap_or_default();
        v.push(("Ssl_cipher".into(), cipher));
        v.push(("Ssl_version".into(), version));
        v
    }

    fn processlist(&self) -> Vec<ProcessInfo> {
        let conns: Vec<Arc<ConnShared>> = self.conns.lock().values().cloned().collect();
        let mut out: Vec<ProcessInfo> = conns
            .iter()
            .map(|c| {
                let s = c.state.lock();
                ProcessInfo {
                    id: c.id,
                    user: s.user.clone(),
                    host: s.host.clone(),
                    db: s.db.clone(),
                    command: s.command.to_string(),
                    time_secs: s.since.elapsed().as_secs(),
                    state: if let Some(w) = kiln_sql::mdl::wait_state(c.id) {
                        w.into()
                    } else if s.command == "Query" {
                        "executing".into()
                    } else {
                        String::new()
                    },
                    info: s.info.clone(),
                }
            })
            .collect();
        if let Some(hs) = self.hs.lock().as_ref() {
            out.extend(hs.workers().into_iter().map(|w| ProcessInfo {
                id: w.id,
                user: "system user".into(),
                host: String::new(),
                db: None,
                command: "Daemon".into(),
                time_secs: 0,
                state: kiln_sql::mdl::wait_state(w.id).map_or(w.state, str::to_string),
                info: None,
            }));
        }
        out.sort_by_key(|p| p.id);
        out
    }

    fn databases(&self) -> Vec<String> {
        vec![
            "information_schema".into(),
            "mysql".into(),
            "performance_schema".into(),
            "sys".into(),
        ]
    }

    fn create_user(
        &self,
        user: &UserSpec,
        auth: &AuthSpec,
        limits: &ResourceLimits,
        if_not_exists: bool,
    ) -> Result<Option<Diagnostic>> {
        if self.accounts.exists(&user.user, &user.host) {
            if if_not_exists {
                return Ok(note(
                    3163,
                    format!(
                        "Authorization ID '{}'@'{}' already exists.",
                        user.user, user.host
                    ),
                ));
            }
            return Err(cannot_user("CREATE USER", user));
        }
        let plugin = auth.plugin.clone().unwrap_or_else(|| {
            self.globals
                .string("default_authentication_plugin")
                .unwrap_or_else(|| crate::accounts::CACHING_SHA2.into())
        });
        self.accounts.create(
            &user.user,
            &user.host,
            &plugin,
            auth.password.as_deref().unwrap_or(""),
            limits,
        )?;
        Ok(None)
    }

    fn alter_user(
        &self,
        user: &UserSpec,
        auth: &AuthSpec,
        limits: &ResourceLimits,
        if_exists: bool,
    ) -> Result<Option<Diagnostic>> {
        if !self.accounts.exists(&user.user, &user.host) {
            return missing_user("ALTER USER", user, if_exists);
        }
        self.accounts.alter(
            &user.user,
            &user.host,
            auth.plugin.as_deref(),
            auth.password.as_deref(),
            limits,
        )?;
        Ok(None)
    }

    fn drop_user(&self, user: &UserSpec, if_exists: bool) -> Result<Option<Diagnostic>> {
        if !self.accounts.exists(&user.user, &user.host) {
            return missing_user("DROP USER", user, if_exists);
        }
        self.accounts.drop_account(&user.user, &user.host)?;
        Ok(None)
    }

    fn thread_pool_rows(&self, table: &str) -> Vec<Vec<kiln_sql::value::Value>> {
        self.pool
            .get()
            .map_or_else(Vec::new, |p| p.table_rows(table))
    }

    fn is_admin(&self, user: &str, host: &str) -> bool {
        self.accounts.has_global(user, host, privilege::SHUTDOWN)
    }

    fn account_privileges(&self, user: &str, host: &str) -> Option<Arc<Privileges>> {
        self.accounts.privileges(user, host).map(Arc::new)
    }

    fn privilege_generation(&self) -> u64 {
        self.accounts.generation()
    }

    fn grant(&self, users: &[UserSpec], object: &GrantObject, privs: PrivSet) -> Result<()> {
        self.accounts.grant(users, object, privs)
    }

    fn revoke(&self, users: &[UserSpec], object: &GrantObject, privs: PrivSet) -> Result<()> {
        self.accounts.revoke(users, object, privs)
    }

    fn revoke_all(&self, users: &[UserSpec]) -> Result<()> {
        self.accounts.revoke_all(users)
    }

    fn rename_user(&self, pairs: &[(UserSpec, UserSpec)]) -> Result<()> {
        self.accounts.rename(pairs)
    }
}

/// ALTER/DROP USER on an account that does not exist: a note 3162 with IF EXISTS,
/// else error 1396.
fn missing_user(op: &str, user: &UserSpec, if_exists: bool) -> Result<Option<Diagnostic>> {
    if if_exists {
        return Ok(note(
            3162,
            format!(
                "Authorization ID '{}'@'{}' does not exist.",
                user.user, user.host
            ),
        ));
    }
    Err(cannot_user(op, user))
}
