//! One client connection from accept to close: handshake and authentication
//! (`auth`), then the command loop (`command`), over blocking packet I/O (`io`),
//! with results encoded by `encode`. One thread runs one connection
//! (`thread_handling=one-thread-per-connection`).

pub mod auth;
pub mod command;
pub mod encode;
pub mod infile;
pub mod io;

use std::sync::Arc;
use std::sync::atomic::AtomicU8;
use std::time::{Duration, Instant};

use kiln_common::ErrorKind;
use parking_lot::Mutex;

use crate::errlog;
use crate::server::{ConnShared, ProcState, Server};
use io::{PacketIo, Socket};

/// Largest packet accepted before authentication completes.
const HANDSHAKE_PACKET_BYTES_MAX: usize = 64 * 1024;

/// Where a client connected from.
#[derive(Debug, Clone)]
pub struct Peer {
    /// Host as MySQL shows and matches it: "localhost" for the Unix socket and loopback.
    pub host: String,
    /// The IP address for TCP clients.
    pub ip: Option<String>,
    /// `host:port` for PROCESSLIST.
    pub display: String,
}

/// An authenticated connection between commands: what a thread-per-connection
/// thread keeps on its stack, and what the thread pool parks while the client is
/// idle.
pub struct Open {
    pub io: PacketIo,
    pub conn: command::Conn,
    pub shared: Arc<ConnShared>,
}

/// Runs a connection to completion on the calling thread. Never panics the process:
/// a panic inside is caught by the thread boundary in `listener`, logged, and
/// counted as an aborted client.
pub fn serve(server: &'static Server, socket: Socket, peer: Peer, extra: bool) {
    if let Some(mut open) = open(server, socket, peer, extra, false) {
        command::run(server, &mut open.io, &mut open.conn);
        close(server, open);
    }
}

/// Accepts a connection: registration (max_connections), the handshake and
/// authentication, then the per-account limits. None when the connection ended
/// (refused, failed, or shut down); it is then already unregistered and counted.
pub fn open(
    server: &'static Server,
    socket: Socket,
    peer: Peer,
    extra: bool,
    pooled: bool,
) -> Option<Open> {
    let id = server.next_connection_id();
    server.stats.connections.inc();
    let closer = match socket.closer() {
        Ok(c) => c,
        Err(e) => {
            errlog::warning(&format!("connection {id}: cannot clone socket: {e}"));
            return None;
        }
    };
    let interrupt = Arc::new(AtomicU8::new(0));
    let shared = Arc::new(ConnShared {
        id,
        interrupt: interrupt.clone(),
        closer,
        extra,
        account: Mutex::new(None),
        state: Mutex::new(ProcState {
            user: "unauthenticated user".into(),
            host: peer.display.clone(),
            db: None,
            command: "Connect",
            since: Instant::now(),
            info: None,
            tls: None,
        }),
    });
    let max_packet = server.globals.u64("max_allowed_packet").unwrap_or(64 << 20) as usize;
    // Handshake packets are small; a peer announcing more is refused before it is
    // buffered. The real limit applies from the command phase on.
    let mut io = PacketIo::new(socket, HANDSHAKE_PACKET_BYTES_MAX);
    if pooled {
        io.set_pooled();
    }
    let connect_timeout =
        Duration::from_secs(server.globals.u64("connect_timeout").unwrap_or(10).max(1));
    let _ = io.socket().set_read_timeout(Some(connect_timeout));
    let _ = io.socket().set_write_timeout(Some(Duration::from_secs(
        server.globals.u64("net_write_timeout").unwrap_or(60).max(1),
    )));

    if server.is_shutting_down() {
        encode::write_err(&mut io, 1053, b"08S01", "Server shutdown in progress");
        let _ = io.flush();
        return None;
    }
    if !server.register(shared.clone()) {
        server.stats.aborted_connects.inc();
        let e = kiln_common::KilnError::from(ErrorKind::ER_CON_COUNT_ERROR);
        encode::write_err(&mut io, e.code, &e.sqlstate, &e.message);
        let _ = io.flush();
        return None;
    }
    let failure = match auth::handshake(server, &mut io, id, &peer, &shared) {
        Ok(mut conn) => {
            io.set_max_packet_bytes(max_packet);
            {
                let mut st = shared.state.lock();
                st.user = conn.session.user.clone();
                st.db = conn.session.database.clone();
                st.command = "Sleep";
                st.since = Instant::now();
                st.tls = io.tls_version().zip(io.tls_cipher());
            }
            conn.shared = Some(shared.clone());
            return Some(Open { io, conn, shared });
        }
        Err(why) => why,
    };
    server.stats.aborted_connects.inc();
    if let Some(why) = failure {
        errlog::log(
            errlog::Severity::Note,
            id,
            &format!(
                "Aborted connection {id} to db: 'unconnected' user: 'unauthenticated' host: '{}' ({why})",
                peer.host
            ),
        );
    }
    server.stats.bytes_received.add(io.bytes_received);
    server.stats.bytes_sent.add(io.bytes_sent);
    server.unregister(&shared);
    None
}

/// Ends a connection: its byte counts go to the server's, and it leaves the registry.
pub fn close(server: &'static Server, open: Open) {
    server.drop_prepared(open.conn.stmts.len());
    server.stats.bytes_received.add(open.io.bytes_received);
    server.stats.bytes_sent.add(open.io.bytes_sent);
    server.unregister(&open.shared);
}
