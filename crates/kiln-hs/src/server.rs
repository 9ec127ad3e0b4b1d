//! Starting and stopping the HandlerSocket listeners: a read-only port
//! (`handlersocket_port`, `handlersocket_threads` workers) and a read-write port
//! (`handlersocket_port_wr`, `handlersocket_threads_wr` workers). A port of 0 is off.
//! Each port has an acceptor thread that hands every new connection to the port's
//! worker with the fewest connections; a connection stays on that worker.

use std::net::TcpListener;
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use kiln_sql::session::Session;

use crate::exec::{ExecConfig, Executor};
use crate::stats::HsStats;
use crate::worker::{Inbox, Worker, WorkerSettings, WorkerShared};

/// Worker threads per port, at most.
pub const THREADS_MAX: usize = 1024;
/// The request line limit, at most (`handlersocket_max_line`).
pub const LINE_BYTES_MAX: usize = 1 << 30;

#[derive(Debug, Clone)]
pub struct HsConfig {
    pub address: String,
    /// Read-only port (0: off).
    pub port: u16,
    /// Read-write port (0: off).
    pub port_wr: u16,
    pub threads: usize,
    pub threads_wr: usize,
    pub secret: Option<Vec<u8>>,
    pub secret_wr: Option<Vec<u8>>,
    /// Idle connections close after this many seconds (0: never).
    pub timeout_secs: u64,
    pub backlog: i32,
    pub max_line_bytes: usize,
    pub max_index_id: u64,
}

/// Makes the kiln-sql session a worker runs its requests in.
pub type SessionFactory = Arc<dyn Fn() -> Session + Send + Sync>;

pub struct HsServer {
    pub stats: Arc<HsStats>,
    workers: Vec<Arc<WorkerShared>>,
    threads: Vec<JoinHandle<()>>,
    shutdown: Arc<AtomicBool>,
    /// The bound ports (read, write); 0 when off.
    pub ports: (u16, u16),
}

/// A worker as SHOW PROCESSLIST shows it.
pub struct WorkerInfo {
    pub id: u64,
    pub state: String,
}

impl HsServer {
    /// Binds the configured ports and starts the workers.
    pub fn start(config: &HsConfig, sessions: SessionFactory) -> Result<HsServer, String> {
        let stats = Arc::new(HsStats::default());
        let shutdown = Arc::new(AtomicBool::new(false));
        let mut server = HsServer {
            stats: stats.clone(),
            workers: Vec::new(),
            threads: Vec::new(),
            shutdown: shutdown.clone(),
            ports: (0, 0),
        };
        for write in [false, true] {
            let (port, threads, secret) = if write {
                (config.port_wr, config.threads_wr, config.secret_wr.clone())
            } else {
                (config.port, config.threads, config.secret.clone())
            };
            if port == 0 {
                continue;
            }
            let listener = bind(&config.address, port, config.backlog).map_err(|e| {
                format!(
                    "handlersocket: cannot listen on {}:{port}: {e}",
                    config.address
                )
            })?;
            let bound = listener.local_addr().map(|a| a.port()).unwrap_or(port);
            if write {
                server.ports.1 = bound;
            } else {
                server.ports.0 = bound;
            }
            let mut port_workers = Vec::new();
            for n in 0..threads.clamp(1, THREADS_MAX) {
                let sess = sessions();
                let id = kiln_sql::eval::Env::connection_id(&sess);
                let shared = Arc::new(WorkerShared {
                    id,
                    interrupt: sess.interrupt.clone(),
                    write,
                    conns: AtomicUsize::new(0),
                    active: AtomicUsize::new(0),
                    inbox: Inbox::new()
                        .map_err(|e| format!("handlersocket: cannot create an eventfd: {e}"))?,
                });
                let exec = Executor::new(
                    sess,
                    ExecConfig {
                        write,
                        secret: secret.clone(),
                        max_index_id: config.max_index_id,
                        wait_cap: (config.timeout_secs > 0)
                            .then(|| Duration::from_secs(config.timeout_secs)),
                    },
                    stats.clone(),
                );
                let settings = WorkerSettings {
                    max_line_bytes: config.max_line_bytes.clamp(64, LINE_BYTES_MAX),
                    timeout: (config.timeout_secs > 0)
                        .then(|| Duration::from_secs(config.timeout_secs)),
                    auth_required: secret.is_some(),
                };
                let worker = Worker::new(
                    exec,
                    settings,
                    stats.clone(),
                    shared.clone(),
                    shutdown.clone(),
                )
                .map_err(|e| format!("handlersocket: cannot create a worker: {e}"))?;
                let name = format!("kiln-hs-{}{n}", if write { "wr" } else { "rd" });
                let t = std::thread::Builder::new()
                    .name(name)
                    .spawn(move || worker.run())
                    .map_err(|e| format!("handlersocket: cannot start a worker thread: {e}"))?;
                port_workers.push(shared.clone());
                server.workers.push(shared);
                server.threads.push(t);
            }
            let stop = shutdown.clone();
            let name = format!("kiln-hs-accept-{}", if write { "wr" } else { "rd" });
            let t = std::thread::Builder::new()
                .name(name)
                .spawn(move || accept_loop(listener, port_workers, stop))
                .map_err(|e| format!("handlersocket: cannot start the acceptor: {e}"))?;
            server.threads.push(t);
        }
        Ok(server)
    }

    /// The workers for SHOW PROCESSLIST ("handlersocket: mode=rd, 3 conns, 1 active").
    pub fn workers(&self) -> Vec<WorkerInfo> {
        self.workers
            .iter()
            .map(|w| WorkerInfo {
                id: w.id,
                state: format!(
                    "handlersocket: mode={}, {} conns, {} active",
                    if w.write { "wr" } else { "rd" },
                    w.conns.load(Ordering::Relaxed),
                    w.active.load(Ordering::Relaxed)
                ),
            })
            .collect()
    }

    /// Tells the workers to stop: a request waiting for a lock (a write held back by
    /// FLUSH TABLES WITH READ LOCK or LOCK TABLES) ends with `1 1 1317`, and the
    /// workers close their connections after the batch they are in. Called first
    /// thing at server shutdown, so such a write fails rather than slipping in as the
    /// SQL sessions holding the locks go.
    pub fn interrupt(&self) {
        self.shutdown.store(true, Ordering::Release);
        for w in &self.workers {
            w.interrupt
                .store(kiln_sql::session::INTERRUPT_CONNECTION, Ordering::Release);
        }
    }

    /// Stops the workers (their connections close) and waits for them.
    pub fn stop(&mut self) {
        self.interrupt();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for HsServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Accepts connections and hands each to the worker with the fewest, until shutdown.
fn accept_loop(listener: TcpListener, workers: Vec<Arc<WorkerShared>>, stop: Arc<AtomicBool>) {
    const POLL_MS: i32 = 200;
    while !stop.load(Ordering::Acquire) {
        let mut p = libc::pollfd {
            fd: listener.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: `p` is a valid pollfd for the duration of the call; nfds is 1.
        let n = unsafe { libc::poll(&mut p, 1, POLL_MS) };
        if n <= 0 {
            continue;
        }
        while let Ok((s, _)) = listener.accept() {
            let w = workers
                .iter()
                .min_by_key(|w| w.conns.load(Ordering::Relaxed))
                .expect("a port has at least one worker");
            w.conns.fetch_add(1, Ordering::Relaxed);
            w.inbox.push(s);
        }
    }
}

/// Binds a non-blocking listening socket with the given backlog.
fn bind(address: &str, port: u16, backlog: i32) -> std::io::Result<TcpListener> {
    let host = if address.is_empty() || address == "*" {
        "0.0.0.0"
    } else {
        address
    };
    let l = if host.contains(':') {
        TcpListener::bind((host, port))?
    } else {
        TcpListener::bind(format!("{host}:{port}"))?
    };
    l.set_nonblocking(true)?;
    // Calling listen again on a listening socket sets its backlog (Linux).
    // SAFETY: the descriptor is a bound socket owned by `l`; no pointers are passed.
    unsafe { libc::listen(l.as_raw_fd(), backlog.clamp(1, 65535)) };
    Ok(l)
}
