//! A HandlerSocket client connection for the load loop: connects, authenticates when a
//! secret is given, opens index id 1 (the read columns) and, when the workload writes,
//! index id 2 (the single column that writes increment); then turns `Op`s into find /
//! find_modify requests and classifies their responses.

use std::net::TcpStream;
use std::os::fd::RawFd;
use std::time::Duration;

use crate::client::{self, Client, Op, Reply};
use crate::error::FatalError;
use crate::hs_wire;
use crate::lineio::{LineReader, printable};

/// The index id bound to the read columns.
pub const READ_INDEX: u32 = 1;
/// The index id bound to the column writes increment.
pub const WRITE_INDEX: u32 = 2;

/// Where and what to open.
#[derive(Clone, Debug)]
pub struct HsTarget {
    pub host: String,
    pub port: u16,
    pub db: String,
    pub table: String,
    pub index: String,
    /// Comma-separated columns returned by reads.
    pub columns: String,
    /// The integer column writes add 1 to.
    pub write_column: String,
    pub secret: Option<String>,
    pub timeout: Duration,
}

pub struct HsClient {
    reader: LineReader<TcpStream>,
    writer: TcpStream,
    out: Vec<u8>,
    /// `<READ_INDEX> = 1 ` (a read request is this and the key's digits).
    read_prefix: Vec<u8>,
    timeout: Duration,
}

impl HsClient {
    /// Connects and opens the indexes (index 2 only when `writes`).
    pub fn connect(t: &HsTarget, writes: bool) -> Result<HsClient, FatalError> {
        let stream = client::connect(&t.host, t.port, t.timeout)?;
        let writer = stream
            .try_clone()
            .map_err(|e| FatalError::from_io(e, t.timeout))?;
        let mut c = HsClient {
            reader: LineReader::new(stream, t.timeout),
            writer,
            out: Vec::with_capacity(4096),
            read_prefix: Vec::new(),
            timeout: t.timeout,
        };
        hs_wire::find_eq_prefix(&mut c.read_prefix, READ_INDEX);
        if let Some(secret) = &t.secret {
            hs_wire::auth(&mut c.out, secret);
            c.expect_ok("auth")?;
        }
        hs_wire::open_index(
            &mut c.out, READ_INDEX, &t.db, &t.table, &t.index, &t.columns,
        );
        c.expect_ok(&format!(
            "open_index {}.{} {} ({})",
            t.db, t.table, t.index, t.columns
        ))?;
        if writes {
            hs_wire::open_index(
                &mut c.out,
                WRITE_INDEX,
                &t.db,
                &t.table,
                &t.index,
                &t.write_column,
            );
            c.expect_ok(&format!(
                "open_index {}.{} {} ({})",
                t.db, t.table, t.index, t.write_column
            ))?;
        }
        Ok(c)
    }

    /// Sends the queued handshake request and requires a `0` response.
    fn expect_ok(&mut self, what: &str) -> Result<(), FatalError> {
        self.flush()?;
        let line = self.reader.read_line()?;
        match hs_wire::header(line) {
            Some(h) if h.code == 0 => Ok(()),
            _ => Err(FatalError::Protocol(format!(
                "HandlerSocket {what} failed: {}{}",
                printable(line),
                hint(line)
            ))),
        }
    }
}

/// What a handshake error most likely means.
fn hint(line: &[u8]) -> &'static str {
    let Ok(response) = hs_wire::parse_response(line) else {
        return " (not a HandlerSocket response: is this the HandlerSocket port?)";
    };
    let msg = response
        .values
        .first()
        .cloned()
        .flatten()
        .unwrap_or_default();
    match msg.as_slice() {
        b"unauth" => " (the listener wants a secret: pass --secret)",
        b"authtype" => " (auth type must be 1)",
        b"open_table" => " (no such table: check --db and --table)",
        b"idxnum" => " (no such index: check --index)",
        b"fld" => " (unknown column: check --columns / --write-column)",
        _ => "",
    }
}

impl Client for HsClient {
    fn push(&mut self, op: Op) {
        match op {
            Op::Read(key) => {
                self.out.extend_from_slice(&self.read_prefix);
                hs_wire::find_eq_key(&mut self.out, key);
            }
            Op::Write(key) => hs_wire::increment(&mut self.out, WRITE_INDEX, key, 1),
        }
    }

    fn flush(&mut self) -> Result<(), FatalError> {
        let r = client::write_all(&mut self.writer, &self.out, self.timeout);
        self.out.clear();
        r
    }

    fn read_reply(&mut self, op: Op) -> Result<Reply, FatalError> {
        self.reader.begin();
        let line = self.reader.read_line()?;
        let Some(h) = hs_wire::header(line) else {
            return Err(FatalError::Protocol(format!(
                "malformed HandlerSocket response: {}",
                printable(line)
            )));
        };
        Ok(classify(op, &h))
    }

    fn error_line(&self) -> &[u8] {
        self.reader.last_line()
    }

    fn nonblocking(&mut self) -> Result<Option<RawFd>, FatalError> {
        let fd = client::set_nonblocking(&self.writer, self.timeout)?;
        self.reader.set_nonblocking(true);
        Ok(Some(fd))
    }

    fn rewind(&mut self) {
        self.reader.rewind();
    }
}

/// Success with no row (find) or zero rows changed (find_modify) is a miss.
fn classify(op: Op, h: &hs_wire::Header<'_>) -> Reply {
    if h.code != 0 {
        return Reply::Error;
    }
    match (op, h.rest) {
        (Op::Read(_), None) => Reply::Miss,
        (Op::Read(_), Some(_)) => Reply::Hit,
        (Op::Write(_), Some(b"0")) => Reply::Miss,
        (Op::Write(_), _) => Reply::Hit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hs_wire::header;

    #[test]
    fn classification() {
        let r = Op::Read(1);
        let w = Op::Write(1);
        let c = |op, line: &[u8]| classify(op, &header(line).unwrap());
        assert_eq!(c(r, b"0\t4\t1\t5\tccc\tppp"), Reply::Hit);
        assert_eq!(c(r, b"0\t4"), Reply::Miss);
        assert_eq!(c(r, b"2\t1\tstmtnum"), Reply::Error);
        assert_eq!(c(w, b"0\t1\t1"), Reply::Hit);
        assert_eq!(c(w, b"0\t1\t0"), Reply::Miss);
        assert_eq!(c(w, b"2\t1\treadonly"), Reply::Error);
        assert_eq!(c(w, b"1\t1\t1205"), Reply::Error);
    }

    #[test]
    fn hints() {
        assert!(hint(b"3\t1\tunauth").contains("--secret"));
        assert!(hint(b"1\t1\topen_table").contains("--table"));
        assert_eq!(hint(b"0\t1"), "");
        assert!(hint(b"HTTP/1.1 400 Bad Request").contains("port"));
    }
}
