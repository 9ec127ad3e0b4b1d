//! The seam between the load loop and a wire protocol: the operations the loop issues
//! (`Op`), how a response is classified (`Reply`), the `Client` trait each protocol
//! implements, and opening the TCP connection they share.

use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use crate::error::FatalError;

/// One request of the workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Look the key up.
    Read(u64),
    /// Change the row (HandlerSocket: increment `k`; memcached: `set` the value).
    Write(u64),
}

/// What a response said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    /// The request succeeded and found its key.
    Hit,
    /// The request succeeded but the key is absent (no row / cache miss).
    Miss,
    /// An error response; `Client::error_line` shows it.
    Error,
}

/// One connection speaking one protocol. Requests are queued with `push`, sent with
/// `flush`, and their responses read back in order with `read_reply`.
pub trait Client: Send {
    /// Appends the request for `op` to the send buffer (no I/O).
    fn push(&mut self, op: Op);
    /// Sends everything pushed since the last flush.
    fn flush(&mut self) -> Result<(), FatalError>;
    /// Reads and classifies the response to the oldest unanswered request, `op`.
    fn read_reply(&mut self, op: Op) -> Result<Reply, FatalError>;
    /// The response line of the last `Reply::Error` (until the next read).
    fn error_line(&self) -> &[u8];
}

/// Opens a TCP connection with Nagle off and `timeout` on connect, reads and writes.
pub fn connect(host: &str, port: u16, timeout: Duration) -> Result<TcpStream, FatalError> {
    let addr = format!("{host}:{port}");
    let fail = |source| FatalError::Connect {
        addr: addr.clone(),
        source,
    };
    let mut last = None;
    for sa in (host, port).to_socket_addrs().map_err(fail)? {
        match TcpStream::connect_timeout(&sa, timeout) {
            Ok(s) => {
                let setup = s
                    .set_nodelay(true)
                    .and_then(|_| s.set_read_timeout(Some(timeout)))
                    .and_then(|_| s.set_write_timeout(Some(timeout)));
                setup.map_err(fail)?;
                return Ok(s);
            }
            Err(e) => last = Some(e),
        }
    }
    Err(fail(last.unwrap_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::NotFound, "host name has no address")
    })))
}
