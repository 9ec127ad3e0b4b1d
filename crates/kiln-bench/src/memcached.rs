//! A memcached text-protocol client connection for the load loop and the loader:
//! reads are `get <prefix><key>` (answered `VALUE <key> <flags> <bytes>` + data + `END`,
//! or just `END` on a miss), writes are `set <prefix><key> 0 0 <len>` + a sysbench-shaped
//! row (answered `STORED`). Lines end in CR LF. A response that cannot belong to the
//! request (wrong key, bad framing) is fatal, since the stream is then out of step.

use std::io::Write;
use std::net::TcpStream;
use std::os::fd::RawFd;
use std::time::Duration;

use crate::client::{self, Client, Op, Reply};
use crate::error::FatalError;
use crate::lineio::{LineReader, MAX_LINE, printable};
use crate::rng::Rng;
use crate::row;

/// Where to connect and how keys and values look.
#[derive(Clone, Debug)]
pub struct McTarget {
    pub host: String,
    pub port: u16,
    /// Prepended to the decimal key: `<prefix><key>` is the memcached key.
    pub prefix: String,
    /// Size of the key space (the range of `k` in written rows).
    pub keys: u64,
    pub seed: u64,
    pub timeout: Duration,
}

pub struct McClient {
    reader: LineReader<TcpStream>,
    writer: TcpStream,
    out: Vec<u8>,
    prefix: Vec<u8>,
    /// Scratch: the value being set, then the key expected in a `VALUE` line.
    scratch: Vec<u8>,
    keys: u64,
    seed: u64,
    rng: Rng,
    timeout: Duration,
}

/// How the first line of a `get` response starts.
enum GetHead {
    End,
    Value(usize),
    Error,
    WrongKey,
    Bad,
}

impl McClient {
    /// Connects; `stream` seeds the choice of `k` in written rows.
    pub fn connect(t: &McTarget, stream: u64) -> Result<McClient, FatalError> {
        let s = client::connect(&t.host, t.port, t.timeout)?;
        let writer = s
            .try_clone()
            .map_err(|e| FatalError::from_io(e, t.timeout))?;
        Ok(McClient {
            reader: LineReader::new(s, t.timeout),
            writer,
            out: Vec::with_capacity(8192),
            prefix: t.prefix.as_bytes().to_vec(),
            scratch: Vec::with_capacity(256),
            keys: t.keys,
            seed: t.seed,
            rng: Rng::new(t.seed, stream ^ 0x6d63),
            timeout: t.timeout,
        })
    }

    pub fn push_get(&mut self, key: u64) {
        encode_get(&mut self.out, &self.prefix, key);
    }

    /// Queues a `set` of the row of `key` with column `k` = `k`.
    pub fn push_set(&mut self, key: u64, k: u64) {
        self.scratch.clear();
        row::write_row(&mut self.scratch, key, k, self.seed);
        encode_set(&mut self.out, &self.prefix, key, &self.scratch);
    }

    fn read_get(&mut self, key: u64) -> Result<Reply, FatalError> {
        self.scratch.clear();
        self.scratch.extend_from_slice(&self.prefix);
        write!(self.scratch, "{key}").unwrap();
        let head = get_head(self.reader.read_line()?, &self.scratch);
        match head {
            GetHead::End => Ok(Reply::Miss),
            GetHead::Error => Ok(Reply::Error),
            GetHead::WrongKey => Err(self.out_of_step("a VALUE for another key")),
            GetHead::Bad => Err(self.out_of_step("an unexpected line")),
            GetHead::Value(n) => {
                let block = self.reader.read_block(n + 2)?;
                if !block.ends_with(b"\r\n") {
                    return Err(FatalError::Protocol(
                        "memcached data block does not end in CR LF".into(),
                    ));
                }
                if self.reader.read_line()? != b"END" {
                    return Err(self.out_of_step("no END after the value"));
                }
                Ok(Reply::Hit)
            }
        }
    }

    fn read_set(&mut self) -> Result<Reply, FatalError> {
        let line = self.reader.read_line()?;
        if line == b"STORED" {
            Ok(Reply::Hit)
        } else if is_error(line) || line == b"NOT_STORED" {
            Ok(Reply::Error)
        } else {
            Err(self.out_of_step("an unexpected line"))
        }
    }

    fn out_of_step(&self, what: &str) -> FatalError {
        FatalError::Protocol(format!(
            "memcached response out of step ({what}): {}",
            printable(self.reader.last_line())
        ))
    }
}

/// `get <prefix><key>`.
pub fn encode_get(out: &mut Vec<u8>, prefix: &[u8], key: u64) {
    out.extend_from_slice(b"get ");
    out.extend_from_slice(prefix);
    write!(out, "{key}\r\n").unwrap();
}

/// `set <prefix><key> 0 0 <len>` and the value (flags 0, no expiry).
pub fn encode_set(out: &mut Vec<u8>, prefix: &[u8], key: u64, value: &[u8]) {
    out.extend_from_slice(b"set ");
    out.extend_from_slice(prefix);
    write!(out, "{key} 0 0 {}\r\n", value.len()).unwrap();
    out.extend_from_slice(value);
    out.extend_from_slice(b"\r\n");
}

/// Classifies the first line of a `get` response for `expected_key`.
fn get_head(line: &[u8], expected_key: &[u8]) -> GetHead {
    if line == b"END" {
        return GetHead::End;
    }
    if is_error(line) {
        return GetHead::Error;
    }
    let Some(rest) = line.strip_prefix(b"VALUE ") else {
        return GetHead::Bad;
    };
    // <key> <flags> <bytes> [<cas>]
    let mut tokens = rest.split(|&b| b == b' ');
    let (Some(key), Some(_flags), Some(bytes)) = (tokens.next(), tokens.next(), tokens.next())
    else {
        return GetHead::Bad;
    };
    if key != expected_key {
        return GetHead::WrongKey;
    }
    match std::str::from_utf8(bytes)
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
    {
        Some(n) if n <= MAX_LINE => GetHead::Value(n),
        _ => GetHead::Bad,
    }
}

fn is_error(line: &[u8]) -> bool {
    line == b"ERROR" || line.starts_with(b"CLIENT_ERROR") || line.starts_with(b"SERVER_ERROR")
}

impl Client for McClient {
    fn push(&mut self, op: Op) {
        match op {
            Op::Read(key) => self.push_get(key),
            Op::Write(key) => {
                let k = 1 + self.rng.below(self.keys.max(1));
                self.push_set(key, k);
            }
        }
    }

    fn flush(&mut self) -> Result<(), FatalError> {
        let r = client::write_all(&mut self.writer, &self.out, self.timeout);
        self.out.clear();
        r
    }

    fn read_reply(&mut self, op: Op) -> Result<Reply, FatalError> {
        self.reader.begin();
        match op {
            Op::Read(key) => self.read_get(key),
            Op::Write(_) => self.read_set(),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_encoding() {
        let mut out = Vec::new();
        encode_get(&mut out, b"sbtest1:", 42);
        encode_set(&mut out, b"sbtest1:", 7, b"7\t3\tc\tp");
        assert_eq!(
            out,
            b"get sbtest1:42\r\nset sbtest1:7 0 0 7\r\n7\t3\tc\tp\r\n"
        );
    }

    #[test]
    fn get_response_heads() {
        let k = b"sbtest1:42";
        assert!(matches!(get_head(b"END", k), GetHead::End));
        assert!(matches!(
            get_head(b"VALUE sbtest1:42 0 187", k),
            GetHead::Value(187)
        ));
        assert!(matches!(
            get_head(b"VALUE sbtest1:42 0 5 99", k),
            GetHead::Value(5)
        ));
        assert!(matches!(
            get_head(b"VALUE sbtest1:43 0 5", k),
            GetHead::WrongKey
        ));
        assert!(matches!(get_head(b"VALUE sbtest1:42 0", k), GetHead::Bad));
        assert!(matches!(get_head(b"VALUE sbtest1:42 0 x", k), GetHead::Bad));
        assert!(matches!(
            get_head(b"VALUE sbtest1:42 0 99999999999", k),
            GetHead::Bad
        ));
        assert!(matches!(
            get_head(b"SERVER_ERROR out of memory", k),
            GetHead::Error
        ));
        assert!(matches!(get_head(b"STORED", k), GetHead::Bad));
    }
}
