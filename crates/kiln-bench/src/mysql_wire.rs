//! The MySQL client/server protocol as the `mysql` load mode speaks it (client side
//! only, written from the protocol's published description): packet framing over a
//! byte buffer that fills in pieces, length-encoded integers and strings, the
//! Handshake v10 greeting and the HandshakeResponse41 answer, OK/ERR packets,
//! COM_STMT_PREPARE / COM_STMT_EXECUTE requests, and a response parser that walks a
//! binary result set packet by packet (column definitions, then rows it skips and
//! counts) so one connection's state survives reads that end mid-packet.
//!
//! Limits: a payload of 16 MiB − 1 or more (a multi-packet payload) is refused; the
//! load never asks for one.

use std::fmt;
use std::ops::Range;

/// Capability flags used here.
pub mod cap {
    pub const LONG_PASSWORD: u32 = 1;
    pub const LONG_FLAG: u32 = 1 << 2;
    pub const CONNECT_WITH_DB: u32 = 1 << 3;
    pub const PROTOCOL_41: u32 = 1 << 9;
    pub const TRANSACTIONS: u32 = 1 << 13;
    pub const SECURE_CONNECTION: u32 = 1 << 15;
    pub const MULTI_RESULTS: u32 = 1 << 17;
    pub const PS_MULTI_RESULTS: u32 = 1 << 18;
    pub const PLUGIN_AUTH: u32 = 1 << 19;
    pub const PLUGIN_AUTH_LENENC_CLIENT_DATA: u32 = 1 << 21;
    pub const DEPRECATE_EOF: u32 = 1 << 24;
}

/// Largest payload of one packet; a header saying this much starts a multi-packet
/// payload, which this client refuses.
pub const MAX_PAYLOAD: usize = 0xff_ffff;

/// utf8mb4_general_ci: known to MySQL 8.0, MariaDB and kiln alike.
const CHARSET_UTF8MB4: u8 = 45;

const COM_STMT_PREPARE: u8 = 0x16;
const COM_STMT_EXECUTE: u8 = 0x17;

/// Column / parameter types that matter for the binary protocol.
pub mod ty {
    pub const TINY: u8 = 0x01;
    pub const SHORT: u8 = 0x02;
    pub const LONG: u8 = 0x03;
    pub const FLOAT: u8 = 0x04;
    pub const DOUBLE: u8 = 0x05;
    pub const NULL: u8 = 0x06;
    pub const TIMESTAMP: u8 = 0x07;
    pub const LONGLONG: u8 = 0x08;
    pub const INT24: u8 = 0x09;
    pub const DATE: u8 = 0x0a;
    pub const TIME: u8 = 0x0b;
    pub const DATETIME: u8 = 0x0c;
    pub const YEAR: u8 = 0x0d;
    pub const NEWDATE: u8 = 0x0e;
    pub const TIMESTAMP2: u8 = 0x11;
    pub const DATETIME2: u8 = 0x12;
    pub const TIME2: u8 = 0x13;
    pub const STRING: u8 = 0xfe;
}

/// A response that breaks the protocol (the stream cannot be trusted afterwards).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError(pub String);

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed MySQL packet: {}", self.0)
    }
}

fn bad<T>(what: &str) -> Result<T, WireError> {
    Err(WireError(what.to_string()))
}

/// An ERR packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerError {
    pub code: u16,
    pub state: String,
    pub message: String,
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ERROR {} ({}): {}", self.code, self.state, self.message)
    }
}

// ---- framing ----------------------------------------------------------------------

/// Received bytes not yet consumed, as complete packets are taken off the front.
///
/// `buf` is storage zeroed once when it grows; the received bytes are
/// `buf[start..end]`. Reading into `spare` touches only the bytes the socket writes:
/// zeroing the whole 64 KiB read room per read (what `Vec::resize` did) was 40 % of the
/// client's CPU at 1,024 connections, and swept 64 MiB of buffers through the caches
/// the server shares.
#[derive(Default)]
pub struct PacketBuf {
    buf: Vec<u8>,
    start: usize,
    end: usize,
}

/// One complete packet inside a `PacketBuf`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub seq: u8,
    pub payload: Range<usize>,
}

impl PacketBuf {
    pub fn new() -> PacketBuf {
        PacketBuf::default()
    }

    /// Room to read at least `min` more bytes into; call `filled(n)` after reading.
    pub fn spare(&mut self, min: usize) -> &mut [u8] {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        } else if self.start > self.buf.len() / 2 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.buf.len() < self.end + min {
            self.buf.resize(self.end + min, 0);
        }
        &mut self.buf[self.end..self.end + min]
    }

    /// Keeps `n` of the `room` bytes just offered by `spare`.
    pub fn filled(&mut self, room: usize, n: usize) {
        self.end += n.min(room);
    }

    /// Appends bytes.
    #[cfg(test)]
    pub fn extend(&mut self, data: &[u8]) {
        let n = data.len();
        self.spare(n).copy_from_slice(data);
        self.filled(n, n);
    }

    /// The next complete packet, if one has fully arrived; its payload stays valid
    /// (via `payload`) until the next `spare`/`extend`.
    pub fn next(&mut self) -> Result<Option<Frame>, WireError> {
        let avail = &self.buf[self.start..self.end];
        if avail.len() < 4 {
            return Ok(None);
        }
        let len = usize::from(avail[0]) | usize::from(avail[1]) << 8 | usize::from(avail[2]) << 16;
        if len == MAX_PAYLOAD {
            return bad("a payload of 16 MiB or more (multi-packet) is not supported");
        }
        if avail.len() < 4 + len {
            return Ok(None);
        }
        let s = self.start + 4;
        self.start = s + len;
        Ok(Some(Frame {
            seq: avail[3],
            payload: s..s + len,
        }))
    }

    pub fn payload(&self, f: &Frame) -> &[u8] {
        &self.buf[f.payload.clone()]
    }

    /// Bytes received but not yet taken as packets.
    pub fn pending(&self) -> usize {
        self.end - self.start
    }
}

/// Starts a packet in `out`: reserves its header; `end_packet` fills it in.
pub fn begin_packet(out: &mut Vec<u8>) -> usize {
    let at = out.len();
    out.extend_from_slice(&[0, 0, 0, 0]);
    at
}

/// Writes the header of the packet begun at `at` with sequence id `seq`.
pub fn end_packet(out: &mut [u8], at: usize, seq: u8) {
    let len = out.len() - at - 4;
    debug_assert!(len < MAX_PAYLOAD, "request packets are small");
    out[at..at + 3].copy_from_slice(&(len as u32).to_le_bytes()[..3]);
    out[at + 3] = seq;
}

// ---- primitives -------------------------------------------------------------------

/// A bounds-checked cursor over a payload.
pub struct Cur<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Cur<'a> {
    pub fn new(b: &'a [u8]) -> Cur<'a> {
        Cur { b, pos: 0 }
    }

    pub fn done(&self) -> bool {
        self.pos == self.b.len()
    }

    pub fn rest(&self) -> &'a [u8] {
        &self.b[self.pos..]
    }

    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], WireError> {
        if self.b.len() - self.pos < n {
            return bad("truncated");
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub fn u8(&mut self) -> Result<u8, WireError> {
        Ok(self.bytes(1)?[0])
    }

    pub fn u16(&mut self) -> Result<u16, WireError> {
        let b = self.bytes(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    pub fn u32(&mut self) -> Result<u32, WireError> {
        let b = self.bytes(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A length-encoded integer (0xFB, NULL, and 0xFF are not integers).
    pub fn lenenc(&mut self) -> Result<u64, WireError> {
        let n = match self.u8()? {
            b @ 0..=0xfa => return Ok(u64::from(b)),
            0xfc => 2,
            0xfd => 3,
            0xfe => 8,
            _ => return bad("not a length-encoded integer"),
        };
        let b = self.bytes(n)?;
        Ok(b.iter().rev().fold(0u64, |v, &x| v << 8 | u64::from(x)))
    }

    /// A length-encoded string.
    pub fn lenenc_str(&mut self) -> Result<&'a [u8], WireError> {
        let n = self.lenenc()?;
        let n = usize::try_from(n).map_err(|_| WireError("string too long".into()))?;
        self.bytes(n)
    }

    /// A NUL-terminated string (without the NUL).
    pub fn nul_str(&mut self) -> Result<&'a [u8], WireError> {
        let rest = self.rest();
        let Some(end) = rest.iter().position(|&b| b == 0) else {
            return bad("unterminated string");
        };
        self.pos += end + 1;
        Ok(&rest[..end])
    }
}

pub fn put_lenenc(out: &mut Vec<u8>, v: u64) {
    match v {
        0..=0xfa => out.push(v as u8),
        0xfb..=0xffff => {
            out.push(0xfc);
            out.extend_from_slice(&(v as u16).to_le_bytes());
        }
        0x1_0000..=0xff_ffff => {
            out.push(0xfd);
            out.extend_from_slice(&(v as u32).to_le_bytes()[..3]);
        }
        _ => {
            out.push(0xfe);
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
}

pub fn put_lenenc_str(out: &mut Vec<u8>, s: &[u8]) {
    put_lenenc(out, s.len() as u64);
    out.extend_from_slice(s);
}

// ---- connection phase ---------------------------------------------------------------

/// The server's Handshake v10.
#[derive(Debug, Clone)]
pub struct Greeting {
    pub server_version: String,
    pub caps: u32,
    /// The 20-byte nonce.
    pub scramble: Vec<u8>,
    /// Default authentication plugin (empty when the server names none).
    pub plugin: String,
}

pub fn parse_greeting(p: &[u8]) -> Result<Greeting, ServerOrWire> {
    if p.first() == Some(&0xff) {
        return Err(ServerOrWire::Server(parse_err(p)?));
    }
    let mut c = Cur::new(p);
    if c.u8()? != 10 {
        return Err(WireError("not a Handshake v10 greeting".into()).into());
    }
    let server_version = String::from_utf8_lossy(c.nul_str()?).into_owned();
    let _conn_id = c.u32()?;
    let mut scramble = c.bytes(8)?.to_vec();
    c.u8()?;
    let mut caps = u32::from(c.u16()?);
    let mut plugin = String::new();
    if !c.done() {
        let _charset = c.u8()?;
        let _status = c.u16()?;
        caps |= u32::from(c.u16()?) << 16;
        let data_len = usize::from(c.u8()?);
        c.bytes(10)?;
        if caps & cap::SECURE_CONNECTION != 0 {
            let n = data_len.saturating_sub(8).max(13);
            let part2 = c.bytes(n.min(c.rest().len()))?;
            // The part ends in a NUL that is not part of the nonce.
            let part2 = part2.strip_suffix(&[0]).unwrap_or(part2);
            scramble.extend_from_slice(part2);
        }
        if caps & cap::PLUGIN_AUTH != 0 && !c.done() {
            let rest = c.rest();
            let name = rest.strip_suffix(&[0]).unwrap_or(rest);
            plugin = String::from_utf8_lossy(name).into_owned();
        }
    }
    if caps & cap::PROTOCOL_41 == 0 {
        return Err(WireError("the server does not speak protocol 4.1".into()).into());
    }
    Ok(Greeting {
        server_version,
        caps,
        scramble,
        plugin,
    })
}

/// The capabilities this client asks for, given the server's.
pub fn client_caps(server: u32, with_db: bool) -> u32 {
    let want = cap::LONG_PASSWORD
        | cap::LONG_FLAG
        | cap::PROTOCOL_41
        | cap::TRANSACTIONS
        | cap::SECURE_CONNECTION
        | cap::MULTI_RESULTS
        | cap::PS_MULTI_RESULTS
        | cap::PLUGIN_AUTH
        | cap::PLUGIN_AUTH_LENENC_CLIENT_DATA
        | cap::DEPRECATE_EOF
        | if with_db { cap::CONNECT_WITH_DB } else { 0 };
    want & server
}

/// HandshakeResponse41 (sequence id 1).
pub fn encode_login(out: &mut Vec<u8>, caps: u32, user: &str, auth: &[u8], db: &str, plugin: &str) {
    let at = begin_packet(out);
    out.extend_from_slice(&caps.to_le_bytes());
    out.extend_from_slice(&(MAX_PAYLOAD as u32).to_le_bytes());
    out.push(CHARSET_UTF8MB4);
    out.extend_from_slice(&[0; 23]);
    out.extend_from_slice(user.as_bytes());
    out.push(0);
    if caps & cap::PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 {
        put_lenenc_str(out, auth);
    } else {
        out.push(auth.len().min(255) as u8);
        out.extend_from_slice(&auth[..auth.len().min(255)]);
    }
    if caps & cap::CONNECT_WITH_DB != 0 {
        out.extend_from_slice(db.as_bytes());
        out.push(0);
    }
    if caps & cap::PLUGIN_AUTH != 0 {
        out.extend_from_slice(plugin.as_bytes());
        out.push(0);
    }
    end_packet(out, at, 1);
}

/// A packet of raw bytes (auth data after a switch or a more-data request).
pub fn encode_raw(out: &mut Vec<u8>, seq: u8, data: &[u8]) {
    let at = begin_packet(out);
    out.extend_from_slice(data);
    end_packet(out, at, seq);
}

/// Either an ERR packet or a broken one.
#[derive(Debug)]
pub enum ServerOrWire {
    Server(ServerError),
    Wire(WireError),
}

impl From<WireError> for ServerOrWire {
    fn from(e: WireError) -> Self {
        ServerOrWire::Wire(e)
    }
}

pub fn parse_err(p: &[u8]) -> Result<ServerError, WireError> {
    let mut c = Cur::new(p);
    if c.u8()? != 0xff {
        return bad("not an ERR packet");
    }
    let code = c.u16()?;
    let mut state = String::from("HY000");
    if c.rest().first() == Some(&b'#') {
        c.u8()?;
        state = String::from_utf8_lossy(c.bytes(5)?).into_owned();
    }
    Ok(ServerError {
        code,
        state,
        message: String::from_utf8_lossy(c.rest()).into_owned(),
    })
}

/// Affected rows of an OK packet (header 0x00, or 0xFE ending a result set).
pub fn parse_ok(p: &[u8]) -> Result<u64, WireError> {
    let mut c = Cur::new(p);
    c.u8()?;
    c.lenenc()
}

// ---- commands -----------------------------------------------------------------------

pub fn encode_prepare(out: &mut Vec<u8>, sql: &str) {
    let at = begin_packet(out);
    out.push(COM_STMT_PREPARE);
    out.extend_from_slice(sql.as_bytes());
    end_packet(out, at, 0);
}

/// COM_STMT_PREPARE_OK: (statement id, columns, parameters).
pub fn parse_prepare_ok(p: &[u8]) -> Result<(u32, u16, u16), WireError> {
    let mut c = Cur::new(p);
    if c.u8()? != 0 {
        return bad("not a COM_STMT_PREPARE_OK");
    }
    let id = c.u32()?;
    let cols = c.u16()?;
    let params = c.u16()?;
    Ok((id, cols, params))
}

/// A parameter value of COM_STMT_EXECUTE.
#[derive(Clone, Copy, Debug)]
pub enum Param<'a> {
    Int(i64),
    Str(&'a [u8]),
}

/// COM_STMT_EXECUTE of `stmt` with `params` (types sent every time, no cursor).
pub fn encode_execute(out: &mut Vec<u8>, stmt: u32, params: &[Param<'_>]) {
    let at = begin_packet(out);
    out.push(COM_STMT_EXECUTE);
    out.extend_from_slice(&stmt.to_le_bytes());
    out.push(0);
    out.extend_from_slice(&1u32.to_le_bytes());
    if !params.is_empty() {
        out.extend(std::iter::repeat_n(0u8, params.len().div_ceil(8)));
        out.push(1);
        for p in params {
            let t = match p {
                Param::Int(_) => ty::LONGLONG,
                Param::Str(_) => ty::STRING,
            };
            out.extend_from_slice(&[t, 0]);
        }
        for p in params {
            match p {
                Param::Int(v) => out.extend_from_slice(&v.to_le_bytes()),
                Param::Str(s) => put_lenenc_str(out, s),
            }
        }
    }
    end_packet(out, at, 0);
}

// ---- responses ----------------------------------------------------------------------

/// The type of a ColumnDefinition41.
pub fn column_type(p: &[u8]) -> Result<u8, WireError> {
    let mut c = Cur::new(p);
    for _ in 0..6 {
        c.lenenc_str()?;
    }
    if c.lenenc()? < 10 {
        return bad("short column definition");
    }
    c.u16()?;
    c.u32()?;
    c.u8()
}

/// Checks a binary-protocol row against the column `types` and skips it whole.
pub fn skip_binary_row(p: &[u8], types: &[u8]) -> Result<(), WireError> {
    let mut c = Cur::new(p);
    if c.u8()? != 0 {
        return bad("binary row without its 0x00 header");
    }
    let bitmap = c.bytes((types.len() + 7 + 2) / 8)?;
    for (i, &t) in types.iter().enumerate() {
        let bit = i + 2;
        if bitmap[bit / 8] & (1 << (bit % 8)) != 0 {
            continue;
        }
        match t {
            ty::NULL => {}
            ty::TINY => drop(c.bytes(1)?),
            ty::SHORT | ty::YEAR => drop(c.bytes(2)?),
            ty::LONG | ty::INT24 | ty::FLOAT => drop(c.bytes(4)?),
            ty::LONGLONG | ty::DOUBLE => drop(c.bytes(8)?),
            ty::TIMESTAMP
            | ty::DATE
            | ty::TIME
            | ty::DATETIME
            | ty::NEWDATE
            | ty::TIMESTAMP2
            | ty::DATETIME2
            | ty::TIME2 => {
                let n = c.u8()?;
                c.bytes(usize::from(n))?;
            }
            _ => drop(c.lenenc_str()?),
        }
    }
    if !c.done() {
        return bad("bytes left after the last column of a binary row");
    }
    Ok(())
}

/// How a complete response ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// OK: affected rows.
    Ok(u64),
    /// A result set of this many rows.
    Rows(u64),
    Err(ServerError),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RState {
    First,
    Columns(u64),
    ColumnsEof,
    Rows,
}

/// Walks the response to one COM_STMT_EXECUTE (or COM_QUERY with no rows) packet by
/// packet. Column types are kept between responses, so a result set allocates nothing.
pub struct Response {
    state: RState,
    deprecate_eof: bool,
    types: Vec<u8>,
    rows: u64,
}

/// The column count a result set may announce, at most.
const MAX_COLUMNS: u64 = 4096;

impl Response {
    pub fn new(deprecate_eof: bool) -> Response {
        Response {
            state: RState::First,
            deprecate_eof,
            types: Vec::new(),
            rows: 0,
        }
    }

    /// Takes the next packet of the response; `Some` when it was the last one.
    pub fn feed(&mut self, p: &[u8]) -> Result<Option<Outcome>, WireError> {
        let head = *p.first().ok_or_else(|| WireError("empty packet".into()))?;
        if head == 0xff {
            self.state = RState::First;
            return Ok(Some(Outcome::Err(parse_err(p)?)));
        }
        match self.state {
            RState::First => {
                if head == 0x00 {
                    return Ok(Some(Outcome::Ok(parse_ok(p)?)));
                }
                if head == 0xfb {
                    return bad("LOCAL INFILE request");
                }
                let mut c = Cur::new(p);
                let n = c.lenenc()?;
                if n == 0 || n > MAX_COLUMNS || !c.done() {
                    return bad("bad column count");
                }
                self.types.clear();
                self.rows = 0;
                self.state = RState::Columns(n);
            }
            RState::Columns(left) => {
                self.types.push(column_type(p)?);
                self.state = match (left - 1, self.deprecate_eof) {
                    (0, true) => RState::Rows,
                    (0, false) => RState::ColumnsEof,
                    (n, _) => RState::Columns(n),
                };
            }
            RState::ColumnsEof => {
                if head != 0xfe || p.len() >= 9 {
                    return bad("no EOF after the column definitions");
                }
                self.state = RState::Rows;
            }
            RState::Rows => {
                if head == 0xfe && p.len() < MAX_PAYLOAD {
                    self.state = RState::First;
                    return Ok(Some(Outcome::Rows(self.rows)));
                }
                skip_binary_row(p, &self.types)?;
                self.rows += 1;
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet(seq: u8, payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        encode_raw(&mut out, seq, payload);
        out
    }

    #[test]
    fn framing_across_reads() {
        let mut wire = packet(1, b"hello");
        wire.extend(packet(2, &[7u8; 300]));
        wire.extend(packet(3, b""));
        // Feed one byte at a time: packets appear exactly when complete.
        let mut buf = PacketBuf::new();
        let mut got = Vec::new();
        for &b in &wire {
            buf.extend(&[b]);
            while let Some(f) = buf.next().unwrap() {
                got.push((f.seq, buf.payload(&f).to_vec()));
            }
        }
        assert_eq!(got.len(), 3);
        assert_eq!(got[0], (1, b"hello".to_vec()));
        assert_eq!(got[1], (2, vec![7u8; 300]));
        assert_eq!(got[2], (3, vec![]));
        assert_eq!(buf.pending(), 0);
    }

    #[test]
    fn spare_and_filled_keep_partial_packets() {
        let wire = packet(0, &[1, 2, 3, 4, 5, 6]);
        let mut buf = PacketBuf::new();
        let room = buf.spare(64);
        room[..5].copy_from_slice(&wire[..5]);
        buf.filled(64, 5);
        assert_eq!(buf.next().unwrap(), None);
        let room = buf.spare(64);
        room[..wire.len() - 5].copy_from_slice(&wire[5..]);
        buf.filled(64, wire.len() - 5);
        let f = buf.next().unwrap().unwrap();
        assert_eq!(buf.payload(&f), &[1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn room_is_reused_and_a_partial_tail_survives_compaction() {
        let mut buf = PacketBuf::new();
        let a = packet(0, &[9u8; 40]);
        let b = packet(1, &[8u8; 30]);
        // One read: a whole packet and the first 10 bytes of the next.
        let mut first = a.clone();
        first.extend_from_slice(&b[..10]);
        let room = buf.spare(64);
        room[..first.len()].copy_from_slice(&first);
        buf.filled(64, first.len());
        let f = buf.next().unwrap().unwrap();
        assert_eq!(buf.payload(&f), &[9u8; 40][..]);
        assert_eq!(buf.next().unwrap(), None);
        assert_eq!(buf.pending(), 10);
        // The consumed front (44 bytes) is over half the storage: compacted first.
        let room = buf.spare(64);
        room[..b.len() - 10].copy_from_slice(&b[10..]);
        buf.filled(64, b.len() - 10);
        let f = buf.next().unwrap().unwrap();
        assert_eq!((f.seq, buf.payload(&f)), (1, &[8u8; 30][..]));
        assert_eq!(buf.pending(), 0);
        // Many reads later the storage has not grown: fully read room is reused.
        for i in 0..1000u32 {
            let p = packet(2, &i.to_le_bytes());
            let room = buf.spare(64);
            room[..p.len()].copy_from_slice(&p);
            buf.filled(64, p.len());
            let f = buf.next().unwrap().unwrap();
            assert_eq!(buf.payload(&f), &i.to_le_bytes());
        }
        assert!(buf.buf.len() <= 128, "storage grew to {}", buf.buf.len());
    }

    #[test]
    fn multi_packet_payloads_are_refused() {
        let mut buf = PacketBuf::new();
        buf.extend(&[0xff, 0xff, 0xff, 0]);
        assert!(buf.next().is_err());
    }

    #[test]
    fn lenenc_round_trip_and_bounds() {
        for v in [
            0u64,
            250,
            251,
            0xffff,
            0x1_0000,
            0xff_ffff,
            0x100_0000,
            u64::MAX,
        ] {
            let mut out = Vec::new();
            put_lenenc(&mut out, v);
            let mut c = Cur::new(&out);
            assert_eq!(c.lenenc().unwrap(), v);
            assert!(c.done());
        }
        assert_eq!(Cur::new(&[0xfc, 0x34, 0x12]).lenenc().unwrap(), 0x1234);
        assert_eq!(Cur::new(&[0xfd, 1, 2, 3]).lenenc().unwrap(), 0x030201);
        assert!(Cur::new(&[0xfb]).lenenc().is_err());
        assert!(Cur::new(&[0xff]).lenenc().is_err());
        assert!(Cur::new(&[0xfe, 1, 2]).lenenc().is_err());
        assert!(Cur::new(&[5, b'a']).lenenc_str().is_err());
    }

    fn coldef(t: u8) -> Vec<u8> {
        let mut p = Vec::new();
        for s in [&b"def"[..], b"sbtest", b"sbtest1", b"sbtest1", b"c", b"c"] {
            put_lenenc_str(&mut p, s);
        }
        p.push(0x0c);
        p.extend_from_slice(&45u16.to_le_bytes());
        p.extend_from_slice(&480u32.to_le_bytes());
        p.push(t);
        p.extend_from_slice(&[0, 0, 0, 0, 0]);
        p
    }

    #[test]
    fn binary_rows_are_skipped_exactly() {
        let types = [ty::LONGLONG, ty::STRING, ty::DATETIME, ty::LONG, 0xf6];
        // NULL in column 3 (bit 3 + 2 = 5).
        let mut row = vec![0x00, 1 << 5];
        row.extend_from_slice(&42i64.to_le_bytes());
        put_lenenc_str(&mut row, &[b'x'; 300]);
        row.extend_from_slice(&[4, 0xe8, 0x07, 1, 2]);
        put_lenenc_str(&mut row, b"12.50");
        skip_binary_row(&row, &types).unwrap();
        // One byte short, one byte too many, bad header.
        assert!(skip_binary_row(&row[..row.len() - 1], &types).is_err());
        let mut long = row.clone();
        long.push(0);
        assert!(skip_binary_row(&long, &types).is_err());
        row[0] = 1;
        assert!(skip_binary_row(&row, &types).is_err());
    }

    #[test]
    fn response_result_set_ok_and_err() {
        for deprecate_eof in [true, false] {
            let mut r = Response::new(deprecate_eof);
            assert_eq!(r.feed(&[2]).unwrap(), None);
            assert_eq!(r.feed(&coldef(ty::LONGLONG)).unwrap(), None);
            assert_eq!(r.feed(&coldef(ty::STRING)).unwrap(), None);
            if !deprecate_eof {
                assert_eq!(r.feed(&[0xfe, 0, 0, 2, 0]).unwrap(), None);
            }
            for id in 0..3i64 {
                let mut row = vec![0, 0];
                row.extend_from_slice(&id.to_le_bytes());
                put_lenenc_str(&mut row, b"abc");
                assert_eq!(r.feed(&row).unwrap(), None);
            }
            let end: &[u8] = if deprecate_eof {
                &[0xfe, 0, 0, 2, 0, 0, 0]
            } else {
                &[0xfe, 0, 0, 2, 0]
            };
            assert_eq!(r.feed(end).unwrap(), Some(Outcome::Rows(3)));
            // Next response: an OK, then an ERR.
            assert_eq!(
                r.feed(&[0, 1, 0, 2, 0, 0, 0]).unwrap(),
                Some(Outcome::Ok(1))
            );
            let err = b"\xff\xbd\x04#40001Deadlock found";
            let Some(Outcome::Err(e)) = r.feed(err).unwrap() else {
                panic!()
            };
            assert_eq!((e.code, e.state.as_str()), (1213, "40001"));
            assert_eq!(e.to_string(), "ERROR 1213 (40001): Deadlock found");
        }
        let mut r = Response::new(true);
        assert!(r.feed(&[0]).is_err(), "an OK without affected rows");
        assert!(Response::new(true).feed(&[0xfc, 0xff, 0xff]).is_err());
    }

    #[test]
    fn greeting_and_login() {
        let mut g = vec![10];
        g.extend_from_slice(b"8.0.40-kiln\0");
        g.extend_from_slice(&7u32.to_le_bytes());
        g.extend_from_slice(b"abcdefgh\0");
        let caps: u32 = 0xffff_f7ff;
        g.extend_from_slice(&(caps as u16).to_le_bytes());
        g.push(255);
        g.extend_from_slice(&2u16.to_le_bytes());
        g.extend_from_slice(&((caps >> 16) as u16).to_le_bytes());
        g.push(21);
        g.extend_from_slice(&[0; 10]);
        g.extend_from_slice(b"ijklmnopqrst\0");
        g.extend_from_slice(b"caching_sha2_password\0");
        let gr = parse_greeting(&g).unwrap();
        assert_eq!(gr.server_version, "8.0.40-kiln");
        assert_eq!(gr.scramble, b"abcdefghijklmnopqrst");
        assert_eq!(gr.plugin, "caching_sha2_password");
        let c = client_caps(gr.caps, true);
        assert!(c & cap::CONNECT_WITH_DB != 0 && c & cap::DEPRECATE_EOF != 0);

        let mut out = Vec::new();
        encode_login(
            &mut out,
            c,
            "root",
            &[1, 2],
            "sbtest",
            "mysql_native_password",
        );
        assert_eq!(out[3], 1);
        assert_eq!(usize::from(out[0]), out.len() - 4);
        assert!(out.ends_with(b"root\0\x02\x01\x02sbtest\0mysql_native_password\0"));

        let e = b"\xff\x10\x04Too many connections";
        let Err(ServerOrWire::Server(e)) = parse_greeting(e) else {
            panic!()
        };
        assert_eq!(e.code, 1040);
        assert_eq!(e.state, "HY000");
    }

    #[test]
    fn execute_encoding() {
        let mut out = Vec::new();
        encode_execute(&mut out, 9, &[Param::Int(5), Param::Str(b"ab")]);
        let p = &out[4..];
        assert_eq!(p[0], COM_STMT_EXECUTE);
        assert_eq!(&p[1..5], &9u32.to_le_bytes());
        assert_eq!(&p[5..10], &[0, 1, 0, 0, 0]);
        assert_eq!(&p[10..12], &[0, 1], "null bitmap, new-params-bound");
        assert_eq!(&p[12..16], &[ty::LONGLONG, 0, ty::STRING, 0]);
        assert_eq!(&p[16..24], &5i64.to_le_bytes());
        assert_eq!(&p[24..], b"\x02ab");
        let mut out = Vec::new();
        encode_execute(&mut out, 1, &[]);
        assert_eq!(out.len(), 4 + 10);
    }
}
