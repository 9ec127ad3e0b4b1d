//! Listeners: TCP (`bind_address:port`), the Unix socket, and the admin port
//! (`extra_port`). An accepted connection gets its own thread
//! (`thread_handling=one-thread-per-connection`, and always on `extra_port`) or goes
//! to the thread pool (`pool-of-threads`). Accept loops poll with a short timeout so
//! shutdown stops them promptly.

use std::io;
use std::net::TcpListener;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixListener;
use std::path::Path;

use crate::conn::io::Socket;
use crate::conn::{self, Peer};
use crate::errlog;
use crate::server::Server;

/// Stack size of connection threads: sized for the tallest expression the parser lets
/// through (see `SQL_THREAD_STACK_BYTES`).
const CONNECTION_THREAD_STACK_BYTES: usize = kiln_common::limits::SQL_THREAD_STACK_BYTES;
const POLL_INTERVAL_MS: i32 = 100;

/// Sets the listen queue length (`back_log`; std binds with 128). The kernel silently
/// caps it at `net.core.somaxconn`.
pub fn set_backlog(fd: i32, backlog: u64) {
    let n = backlog.clamp(1, i32::MAX as u64) as i32;
    // SAFETY: listen() on a socket we own; calling it again on a listening socket
    // only changes its backlog.
    unsafe { libc::listen(fd, n) };
}

/// The kernel's cap on listen queues (`net.core.somaxconn`), if readable.
pub fn somaxconn() -> Option<u64> {
    std::fs::read_to_string("/proc/sys/net/core/somaxconn")
        .ok()?
        .trim()
        .parse()
        .ok()
}

pub fn bind_tcp(addr: &str, port: u16) -> io::Result<TcpListener> {
    let host = if addr == "*" || addr.is_empty() {
        "0.0.0.0"
    } else {
        addr
    };
    let l = if host.contains(':') {
        TcpListener::bind((host, port))
    } else {
        TcpListener::bind(format!("{host}:{port}"))
    }?;
    Ok(l)
}

/// Binds the Unix socket, removing a stale socket file left by a crashed server (but
/// never one a live server answers on).
pub fn bind_unix(path: &Path) -> io::Result<UnixListener> {
    if path.exists() {
        if std::os::unix::net::UnixStream::connect(path).is_ok() {
            return Err(io::Error::new(
                io::ErrorKind::AddrInUse,
                format!(
                    "another server is listening on unix socket file {}",
                    path.display()
                ),
            ));
        }
        std::fs::remove_file(path)?;
    }
    UnixListener::bind(path)
}

fn wait_readable(fd: i32) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: `p` is a valid pollfd for the duration of the call; nfds is 1.
    let n = unsafe { libc::poll(&mut p, 1, POLL_INTERVAL_MS) };
    n > 0
}

/// Where an accepted connection runs.
fn dispatch(server: &'static Server, socket: Socket, peer: Peer, extra: bool) {
    if !extra && let Some(pool) = server.pool.get() {
        pool.add(socket, peer);
    } else {
        spawn(server, socket, peer, extra);
    }
}

fn spawn(server: &'static Server, socket: Socket, peer: Peer, extra: bool) {
    server.stats.extra_threads.add(extra as u64);
    let r = std::thread::Builder::new()
        .name("kiln-conn".into())
        .stack_size(CONNECTION_THREAD_STACK_BYTES)
        .spawn(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                conn::serve(server, socket, peer, extra)
            }));
            if r.is_err() {
                server.stats.aborted_clients.inc();
                errlog::error(
                    "a connection thread panicked; the connection was closed (this is a bug)",
                );
            }
        });
    if let Err(e) = r {
        errlog::error(&format!("cannot create a connection thread: {e}"));
    }
}

/// Accepts on a TCP port; `extra`: the admin port (`extra_port`).
pub fn run_tcp(server: &'static Server, l: TcpListener, extra: bool) {
    let fd = l.as_raw_fd();
    while !server.is_shutting_down() {
        if !wait_readable(fd) {
            continue;
        }
        match l.accept() {
            Ok((s, addr)) => {
                let _ = s.set_nodelay(true);
                let ip = addr.ip();
                let host = if ip.is_loopback() {
                    "localhost".to_string()
                } else {
                    ip.to_string()
                };
                let peer = Peer {
                    host,
                    ip: Some(ip.to_string()),
                    display: format!(
                        "{}:{}",
                        if ip.is_loopback() {
                            "localhost".to_string()
                        } else {
                            ip.to_string()
                        },
                        addr.port()
                    ),
                };
                dispatch(server, Socket::Tcp(s), peer, extra);
            }
            Err(e)
                if e.kind() == io::ErrorKind::WouldBlock
                    || e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                errlog::warning(&format!("accept() on TCP failed: {e}"));
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        }
    }
}

pub fn run_unix(server: &'static Server, l: UnixListener) {
    let fd = l.as_raw_fd();
    while !server.is_shutting_down() {
        if !wait_readable(fd) {
            continue;
        }
        match l.accept() {
            Ok((s, _)) => {
                let peer = Peer {
                    host: "localhost".into(),
                    ip: None,
                    display: "localhost".into(),
                };
                dispatch(server, Socket::Unix(s), peer, false);
            }
            Err(e)
                if e.kind() == io::ErrorKind::WouldBlock
                    || e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                errlog::warning(&format!("accept() on the Unix socket failed: {e}"));
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        }
    }
}
