//! One MySQL connection of the `mysql` mode: opening it (blocking, with the socket
//! timeout: connect, handshake, authentication, COM_STMT_PREPARE of every statement
//! the workload uses), then, switched to non-blocking, sending one request at a time
//! and assembling its response from whatever each readiness event delivers.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::time::Duration;

use crate::error::FatalError;
use crate::mysql_auth as auth;
use crate::mysql_wire::{self as wire, Outcome, PacketBuf, Param, Response, ServerOrWire};
use crate::mysql_workload::{Prepared, Workload};

/// Where and as whom to connect.
#[derive(Clone, Debug)]
pub struct Target {
    /// Unix socket path; TCP to `host:port` when None.
    pub socket: Option<PathBuf>,
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: String,
    pub db: String,
    pub timeout: Duration,
}

impl Target {
    pub fn addr(&self) -> String {
        match &self.socket {
            Some(p) => p.display().to_string(),
            None => format!("{}:{}", self.host, self.port),
        }
    }
}

enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Stream {
    fn read(&mut self, b: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read(b),
            Stream::Unix(s) => s.read(b),
        }
    }

    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.write(b),
            Stream::Unix(s) => s.write(b),
        }
    }

    fn set_nonblocking(&self) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.set_nonblocking(true),
            Stream::Unix(s) => s.set_nonblocking(true),
        }
    }

    fn fd(&self) -> RawFd {
        match self {
            Stream::Tcp(s) => s.as_raw_fd(),
            Stream::Unix(s) => s.as_raw_fd(),
        }
    }
}

/// Authentication exchanges after the first answer, at most.
const MAX_AUTH_ROUNDS: usize = 8;
/// Bytes asked of one read.
const READ_CHUNK: usize = 64 * 1024;

pub struct MyConn {
    stream: Stream,
    rbuf: PacketBuf,
    wbuf: Vec<u8>,
    wpos: usize,
    resp: Response,
    /// Sequence id the next packet of the current response must carry.
    seq: u8,
    timeout: Duration,
    pub stmts: Prepared,
    /// As the greeting gave it.
    pub server_version: String,
}

fn server_err(e: wire::ServerError) -> FatalError {
    FatalError::Protocol(format!("the server refused: {e}"))
}

fn wire_err(e: wire::WireError) -> FatalError {
    FatalError::Protocol(e.to_string())
}

impl MyConn {
    /// Connects, logs in and prepares the statements of `w` on `tables` tables.
    pub fn open(t: &Target, w: Workload, tables: u32) -> Result<MyConn, FatalError> {
        let fail = |source| FatalError::Connect {
            addr: t.addr(),
            source,
        };
        let stream = match &t.socket {
            Some(path) => {
                let s = UnixStream::connect(path).map_err(fail)?;
                s.set_read_timeout(Some(t.timeout))
                    .and_then(|_| s.set_write_timeout(Some(t.timeout)))
                    .map_err(fail)?;
                Stream::Unix(s)
            }
            None => Stream::Tcp(crate::client::connect(&t.host, t.port, t.timeout)?),
        };
        let mut c = MyConn {
            stream,
            rbuf: PacketBuf::new(),
            wbuf: Vec::with_capacity(1024),
            wpos: 0,
            resp: Response::new(true),
            seq: 0,
            timeout: t.timeout,
            stmts: Prepared::none(),
            server_version: String::new(),
        };
        let deprecate_eof = c.login(t)?;
        c.resp = Response::new(deprecate_eof);
        let mut ids = Vec::new();
        for (kind, table) in Prepared::wanted(w, tables) {
            ids.push(c.prepare(&kind.sql(table), deprecate_eof)?);
        }
        c.stmts = Prepared::new(w, tables, ids);
        c.stream
            .set_nonblocking()
            .map_err(|e| FatalError::from_io(e, t.timeout))?;
        Ok(c)
    }

    pub fn fd(&self) -> RawFd {
        self.stream.fd()
    }

    // ---- blocking set-up ------------------------------------------------------------

    fn send_all(&mut self) -> Result<(), FatalError> {
        while self.wpos < self.wbuf.len() {
            match self.stream.write(&self.wbuf[self.wpos..]) {
                Ok(0) => return Err(FatalError::Closed("write returned 0".into())),
                Ok(n) => self.wpos += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(FatalError::from_io(e, self.timeout)),
            }
        }
        self.wbuf.clear();
        self.wpos = 0;
        Ok(())
    }

    /// The next packet's (sequence id, payload), blocking.
    fn read_packet(&mut self) -> Result<(u8, Vec<u8>), FatalError> {
        loop {
            if let Some(f) = self.rbuf.next().map_err(wire_err)? {
                return Ok((f.seq, self.rbuf.payload(&f).to_vec()));
            }
            self.fill()?;
        }
    }

    /// One read into the buffer; Ok(false) when it would block.
    fn fill(&mut self) -> Result<bool, FatalError> {
        let room = self.rbuf.spare(READ_CHUNK);
        match self.stream.read(room) {
            Ok(0) => {
                self.rbuf.filled(READ_CHUNK, 0);
                Err(FatalError::Closed("end of stream".into()))
            }
            Ok(n) => {
                self.rbuf.filled(READ_CHUNK, n);
                Ok(true)
            }
            Err(e) => {
                self.rbuf.filled(READ_CHUNK, 0);
                match e.kind() {
                    io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(false),
                    _ => Err(FatalError::from_io(e, self.timeout)),
                }
            }
        }
    }

    /// Handshake and authentication; returns whether DEPRECATE_EOF is on.
    fn login(&mut self, t: &Target) -> Result<bool, FatalError> {
        let (_, g) = self.read_packet()?;
        let g = wire::parse_greeting(&g).map_err(|e| match e {
            ServerOrWire::Server(e) => server_err(e),
            ServerOrWire::Wire(e) => wire_err(e),
        })?;
        self.server_version = g.server_version.clone();
        let caps = wire::client_caps(g.caps, true);
        let mut plugin = if auth::supported(&g.plugin) {
            g.plugin.clone()
        } else {
            auth::NATIVE.to_string()
        };
        let pw = t.password.as_bytes();
        let first = auth::response(&plugin, pw, &g.scramble).unwrap_or_default();
        wire::encode_login(&mut self.wbuf, caps, &t.user, &first, &t.db, &plugin);
        self.send_all()?;
        for _ in 0..MAX_AUTH_ROUNDS {
            let (seq, p) = self.read_packet()?;
            match p.first() {
                Some(0x00) => return Ok(caps & wire::cap::DEPRECATE_EOF != 0),
                Some(0xff) => return Err(server_err(wire::parse_err(&p).map_err(wire_err)?)),
                Some(0xfe) => {
                    // AuthSwitchRequest: plugin name, NUL, new nonce.
                    let mut c = wire::Cur::new(&p[1..]);
                    let name = c.nul_str().map_err(|_| {
                        FatalError::Protocol("old-style authentication is not supported".into())
                    })?;
                    plugin = String::from_utf8_lossy(name).into_owned();
                    let rest = c.rest();
                    let nonce = rest.strip_suffix(&[0]).unwrap_or(rest);
                    let Some(r) = auth::response(&plugin, pw, nonce) else {
                        return Err(FatalError::Protocol(format!(
                            "the account uses the {plugin} plugin, which kiln-bench does not \
                             implement (it speaks {} and {})",
                            auth::NATIVE,
                            auth::CACHING_SHA2
                        )));
                    };
                    wire::encode_raw(&mut self.wbuf, seq.wrapping_add(1), &r);
                    self.send_all()?;
                }
                Some(0x01) if plugin == auth::CACHING_SHA2 => match p.get(1) {
                    Some(3) => {} // fast authentication succeeded; the OK follows
                    Some(4) if t.socket.is_some() => {
                        let mut clear = pw.to_vec();
                        clear.push(0);
                        wire::encode_raw(&mut self.wbuf, seq.wrapping_add(1), &clear);
                        self.send_all()?;
                    }
                    Some(4) => {
                        return Err(FatalError::Protocol(
                            "caching_sha2_password needs full authentication, which over TCP \
                             requires TLS or RSA (not implemented by kiln-bench): connect with \
                             --socket, or log in once with a MySQL client so the server caches \
                             the password"
                                .into(),
                        ));
                    }
                    _ => return Err(FatalError::Protocol("unexpected auth data".into())),
                },
                _ => {
                    return Err(FatalError::Protocol(
                        "unexpected packet during authentication".into(),
                    ));
                }
            }
        }
        Err(FatalError::Protocol("authentication did not finish".into()))
    }

    /// COM_STMT_PREPARE; returns the statement id.
    fn prepare(&mut self, sql: &str, deprecate_eof: bool) -> Result<u32, FatalError> {
        wire::encode_prepare(&mut self.wbuf, sql);
        self.send_all()?;
        let (_, p) = self.read_packet()?;
        if p.first() == Some(&0xff) {
            let e = wire::parse_err(&p).map_err(wire_err)?;
            return Err(FatalError::Protocol(format!("preparing `{sql}`: {e}")));
        }
        let (id, cols, params) = wire::parse_prepare_ok(&p).map_err(wire_err)?;
        for n in [params, cols] {
            let eof = usize::from(n > 0 && !deprecate_eof);
            for _ in 0..usize::from(n) + eof {
                self.read_packet()?;
            }
        }
        Ok(id)
    }

    // ---- non-blocking run -----------------------------------------------------------

    /// Queues COM_STMT_EXECUTE and writes what the socket takes; true when all of it
    /// went out (else wait for writability and call `flush`).
    pub fn execute(&mut self, stmt: u32, params: &[Param<'_>]) -> Result<bool, FatalError> {
        self.wbuf.clear();
        self.wpos = 0;
        wire::encode_execute(&mut self.wbuf, stmt, params);
        self.seq = 1;
        self.flush()
    }

    /// Writes the rest of the request; true when nothing is left.
    pub fn flush(&mut self) -> Result<bool, FatalError> {
        while self.wpos < self.wbuf.len() {
            match self.stream.write(&self.wbuf[self.wpos..]) {
                Ok(0) => return Err(FatalError::Closed("write returned 0".into())),
                Ok(n) => self.wpos += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(FatalError::from_io(e, self.timeout)),
            }
        }
        Ok(true)
    }

    /// Reads what has arrived (one read) and walks the response; `Some` when it is
    /// complete. Bytes beyond the response (none in a closed loop) break the protocol.
    pub fn on_readable(&mut self) -> Result<Option<Outcome>, FatalError> {
        self.fill()?;
        while let Some(f) = self.rbuf.next().map_err(wire_err)? {
            if f.seq != self.seq {
                return Err(FatalError::Protocol(format!(
                    "packet out of order: sequence id {} where {} was due",
                    f.seq, self.seq
                )));
            }
            self.seq = self.seq.wrapping_add(1);
            if let Some(done) = self.resp.feed(self.rbuf.payload(&f)).map_err(wire_err)? {
                if self.rbuf.pending() != 0 {
                    return Err(FatalError::Protocol(
                        "bytes after the end of a response".into(),
                    ));
                }
                return Ok(Some(done));
            }
        }
        Ok(None)
    }
}
