//! kiln-server: the `kiln` binary's library — configuration, the data directory,
//! accounts, listeners, connections (handshake, auth, command loop) and the shared
//! server state. `main.rs` only wires these together.
//!
//! A query's path: `listener` accepts → `conn::serve` → `conn::auth::handshake` →
//! `conn::command::run` reads COM_QUERY → `kiln_sql::session::Session::execute` →
//! `conn::encode` writes the result.

pub mod accounts;
pub mod config;
pub mod conn;
pub mod datadir;
pub mod errlog;
pub mod hs;
pub mod listener;
pub mod pool;
pub mod server;
pub mod signals;
pub mod storage;
pub mod system_tables;
pub mod tls;
pub mod vars;

use std::sync::{Arc, OnceLock};

static SERVER: OnceLock<&'static server::Server> = OnceLock::new();
static HOOKS: OnceLock<Arc<dyn kiln_sql::session::ServerHooks>> = OnceLock::new();

/// Installs the process's server (once; it lives until the process exits).
pub fn install_server(s: server::Server) -> &'static server::Server {
    let s: &'static server::Server = Box::leak(Box::new(s));
    let _ = SERVER.set(s);
    s
}

/// The installed server. Panics if called before `install_server` (a startup-order bug).
pub fn global_server() -> &'static server::Server {
    SERVER.get().expect("server installed at startup")
}

/// The server as kiln-sql's hook object (shared by all sessions).
pub fn global_hooks(s: &'static server::Server) -> Arc<dyn kiln_sql::session::ServerHooks> {
    HOOKS.get_or_init(|| Arc::new(StaticHooks(s))).clone()
}

struct StaticHooks(&'static server::Server);

impl kiln_sql::session::ServerHooks for StaticHooks {
    fn server_version(&self) -> String {
        self.0.server_version()
    }
    fn kill(
        &self,
        by: u64,
        by_user: &str,
        target: u64,
        query_only: bool,
    ) -> kiln_common::Result<()> {
        self.0.kill(by, by_user, target, query_only)
    }
    fn shutdown(&self, user: &str) -> kiln_common::Result<()> {
        self.0.shutdown(user)
    }
    fn status(&self, global: bool, session: u64) -> Vec<(String, String)> {
        self.0.status(global, session)
    }
    fn processlist(&self) -> Vec<kiln_sql::session::ProcessInfo> {
        self.0.processlist()
    }
    fn databases(&self) -> Vec<String> {
        self.0.databases()
    }
    fn create_user(
        &self,
        user: &kiln_sql::ast::UserSpec,
        auth: &kiln_sql::ast::AuthSpec,
        limits: &kiln_sql::ast::ResourceLimits,
        if_not_exists: bool,
    ) -> kiln_common::Result<Option<kiln_sql::session::Diagnostic>> {
        self.0.create_user(user, auth, limits, if_not_exists)
    }
    fn alter_user(
        &self,
        user: &kiln_sql::ast::UserSpec,
        auth: &kiln_sql::ast::AuthSpec,
        limits: &kiln_sql::ast::ResourceLimits,
        if_exists: bool,
    ) -> kiln_common::Result<Option<kiln_sql::session::Diagnostic>> {
        self.0.alter_user(user, auth, limits, if_exists)
    }
    fn drop_user(
        &self,
        user: &kiln_sql::ast::UserSpec,
        if_exists: bool,
    ) -> kiln_common::Result<Option<kiln_sql::session::Diagnostic>> {
        self.0.drop_user(user, if_exists)
    }
    fn is_admin(&self, user: &str, host: &str) -> bool {
        self.0.is_admin(user, host)
    }
    fn thread_pool_rows(&self, table: &str) -> Vec<Vec<kiln_sql::value::Value>> {
        self.0.thread_pool_rows(table)
    }
    fn account_privileges(
        &self,
        user: &str,
        host: &str,
    ) -> Option<Arc<kiln_sql::privilege::Privileges>> {
        self.0.account_privileges(user, host)
    }
    fn privilege_generation(&self) -> u64 {
        self.0.privilege_generation()
    }
    fn grant(
        &self,
        users: &[kiln_sql::ast::UserSpec],
        object: &kiln_sql::privilege::GrantObject,
        privs: kiln_sql::privilege::PrivSet,
    ) -> kiln_common::Result<()> {
        self.0.grant(users, object, privs)
    }
    fn revoke(
        &self,
        users: &[kiln_sql::ast::UserSpec],
        object: &kiln_sql::privilege::GrantObject,
        privs: kiln_sql::privilege::PrivSet,
    ) -> kiln_common::Result<()> {
        self.0.revoke(users, object, privs)
    }
    fn revoke_all(&self, users: &[kiln_sql::ast::UserSpec]) -> kiln_common::Result<()> {
        self.0.revoke_all(users)
    }
    fn rename_user(
        &self,
        pairs: &[(kiln_sql::ast::UserSpec, kiln_sql::ast::UserSpec)],
    ) -> kiln_common::Result<()> {
        self.0.rename_user(pairs)
    }
}
