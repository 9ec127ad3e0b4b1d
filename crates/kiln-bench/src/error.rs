//! Fatal errors: whatever ends a run (cannot connect, the server closed the connection,
//! a response that breaks the protocol, a handshake the server refused). An error
//! *response* to a request (HandlerSocket code ≠ 0, memcached `SERVER_ERROR`) is not
//! one of these: it is counted and the run goes on.

use std::fmt;
use std::io;
use std::time::Duration;

#[derive(Debug)]
pub enum FatalError {
    /// Could not open a TCP connection to `addr`.
    Connect { addr: String, source: io::Error },
    /// The server closed the connection (end of stream, reset, broken pipe).
    Closed(String),
    /// No response (or no progress sending) within the socket timeout.
    Timeout(Duration),
    /// Any other socket failure.
    Io(io::Error),
    /// A response line (or memcached data block) longer than the cap, in bytes.
    TooLong(usize),
    /// A response that breaks the protocol, or a refused handshake.
    Protocol(String),
    /// Not a failure: on a non-blocking connection, the response has not fully
    /// arrived yet (the event loop rewinds and waits for more).
    Pending,
}

impl FatalError {
    /// Classifies a socket error; `timeout` is the configured socket timeout.
    pub fn from_io(e: io::Error, timeout: Duration) -> FatalError {
        use io::ErrorKind::*;
        match e.kind() {
            WouldBlock | TimedOut => FatalError::Timeout(timeout),
            UnexpectedEof | ConnectionReset | ConnectionAborted | BrokenPipe => {
                FatalError::Closed(e.to_string())
            }
            _ => FatalError::Io(e),
        }
    }
}

impl fmt::Display for FatalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FatalError::Connect { addr, source } => write!(f, "cannot connect to {addr}: {source}"),
            FatalError::Closed(why) => write!(f, "the server closed the connection ({why})"),
            FatalError::Timeout(t) => {
                write!(
                    f,
                    "no response from the server within {} s (--timeout)",
                    t.as_secs_f64()
                )
            }
            FatalError::Io(e) => write!(f, "socket error: {e}"),
            FatalError::TooLong(cap) => {
                write!(
                    f,
                    "response line longer than {cap} bytes: refusing to buffer it"
                )
            }
            FatalError::Protocol(msg) => write!(f, "{msg}"),
            FatalError::Pending => write!(f, "response not complete yet"),
        }
    }
}

impl std::error::Error for FatalError {}

/// A fatal error on one connection of a run.
#[derive(Debug)]
pub struct ConnError {
    pub conn: usize,
    pub error: FatalError,
}

impl fmt::Display for ConnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "connection {}: {}", self.conn, self.error)
    }
}

impl std::error::Error for ConnError {}
