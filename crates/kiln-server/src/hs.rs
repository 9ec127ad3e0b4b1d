//! The HandlerSocket listener's place in the server: its settings from the
//! `handlersocket_*` variables, the kiln-sql sessions its workers run in (one per
//! worker, visible in SHOW PROCESSLIST as "system user"), and its start and stop.

use std::sync::Arc;
use std::sync::atomic::AtomicU8;

use kiln_hs::server::{HsConfig, HsServer};
use kiln_sql::session::Session;

use crate::server::Server;
use crate::vars::Globals;

/// The listener's settings; None when both ports are 0 (off).
pub fn config(globals: &Globals) -> Option<HsConfig> {
    let u = |n: &str, d: u64| globals.u64(n).unwrap_or(d);
    let secret = |n: &str| {
        globals
            .string(n)
            .filter(|s| !s.is_empty())
            .map(String::into_bytes)
    };
    let c = HsConfig {
        address: globals.string("handlersocket_address").unwrap_or_default(),
        port: u("handlersocket_port", 0) as u16,
        port_wr: u("handlersocket_port_wr", 0) as u16,
        threads: u("handlersocket_threads", 16) as usize,
        threads_wr: u("handlersocket_threads_wr", 1) as usize,
        secret: secret("handlersocket_plain_secret"),
        // As the original: without its own secret the write port takes the read
        // port's (never a protected read port beside an open write port).
        secret_wr: secret("handlersocket_plain_secret_wr")
            .or_else(|| secret("handlersocket_plain_secret")),
        timeout_secs: u("handlersocket_timeout", 300),
        backlog: u("handlersocket_backlog", 32768).min(65535) as i32,
        max_line_bytes: u("handlersocket_max_line", 1 << 20) as usize,
        max_index_id: u("handlersocket_max_indexid", 1000),
    };
    (c.port != 0 || c.port_wr != 0).then_some(c)
}

/// Starts the listener's workers, each with its own session.
pub fn start(server: &'static Server, config: &HsConfig) -> Result<HsServer, String> {
    let sessions = Arc::new(move || -> Session {
        let id = server.next_connection_id();
        let vars = server.globals.new_session();
        let mut s = Session::new(
            id,
            vars,
            crate::global_hooks(server),
            Arc::new(AtomicU8::new(0)),
        );
        s.user = "system user".into();
        if let Some(d) = &server.dict {
            s.set_dictionary(d.clone());
        }
        s
    });
    HsServer::start(config, sessions)
}
