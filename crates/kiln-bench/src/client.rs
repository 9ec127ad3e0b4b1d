//! The seam between the load loop and a wire protocol: the operations the loop issues
//! (`Op`), how a response is classified (`Reply`), the `Client` trait each protocol
//! implements, and opening the TCP connection they share.

use std::io::{self, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::os::fd::{AsRawFd, RawFd};
use std::time::{Duration, Instant};

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
///
/// The load loop drives many connections per thread: after `nonblocking`, a
/// `read_reply` whose response has not fully arrived fails with
/// `FatalError::Pending`, and `rewind` makes the next `read_reply` start that
/// response over.
pub trait Client: Send {
    /// Appends the request for `op` to the send buffer (no I/O).
    fn push(&mut self, op: Op);
    /// Sends everything pushed since the last flush.
    fn flush(&mut self) -> Result<(), FatalError>;
    /// Reads and classifies the response to the oldest unanswered request, `op`.
    fn read_reply(&mut self, op: Op) -> Result<Reply, FatalError>;
    /// The response line of the last `Reply::Error` (until the next read).
    fn error_line(&self) -> &[u8];
    /// Makes reads non-blocking; returns the descriptor to wait on for responses
    /// (None: an in-process client whose responses are always there).
    fn nonblocking(&mut self) -> Result<Option<RawFd>, FatalError>;
    /// Undoes what a `read_reply` that failed with `Pending` consumed.
    fn rewind(&mut self);
}

/// Makes `stream` (and every clone of it: the flag belongs to the socket) non-blocking
/// and returns its descriptor.
pub fn set_nonblocking(stream: &TcpStream, timeout: Duration) -> Result<RawFd, FatalError> {
    stream
        .set_nonblocking(true)
        .map_err(|e| FatalError::from_io(e, timeout))?;
    Ok(stream.as_raw_fd())
}

/// Writes all of `buf` to a blocking or non-blocking stream, waiting for room up to
/// `timeout` whenever the socket's send buffer is full.
pub fn write_all(
    stream: &mut TcpStream,
    mut buf: &[u8],
    timeout: Duration,
) -> Result<(), FatalError> {
    while !buf.is_empty() {
        match stream.write(buf) {
            Ok(0) => return Err(FatalError::Closed("write returned 0".into())),
            Ok(n) => buf = &buf[n..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                wait_writable(stream.as_raw_fd(), timeout)?;
            }
            Err(e) => return Err(FatalError::from_io(e, timeout)),
        }
    }
    Ok(())
}

/// Waits until `fd` can take more bytes, up to `timeout`.
fn wait_writable(fd: RawFd, timeout: Duration) -> Result<(), FatalError> {
    let deadline = Instant::now() + timeout;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(FatalError::Timeout(timeout));
        }
        let mut p = libc::pollfd {
            fd,
            events: libc::POLLOUT,
            revents: 0,
        };
        let ms = i32::try_from(left.as_millis().max(1)).unwrap_or(i32::MAX);
        // SAFETY: `p` is a valid pollfd for the duration of the call; nfds is 1.
        let n = unsafe { libc::poll(&mut p, 1, ms) };
        if n > 0 {
            return Ok(());
        }
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(FatalError::Io(e));
            }
        }
    }
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
