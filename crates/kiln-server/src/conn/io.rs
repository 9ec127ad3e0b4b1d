//! Blocking packet I/O for one connection: the socket (TCP or Unix, optionally
//! wrapped in TLS), read/write buffers, the packet decoder and the sequence id.
//!
//! Writes are buffered and sent by `flush`, so a whole result set leaves in as few
//! syscalls as the socket allows.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;
use kiln_common::wait;
use kiln_mysql::packet::{self, Packet, PacketDecoder, PacketError, PacketStart};

/// Read buffer growth step.
const READ_CHUNK_BYTES: usize = 16 * 1024;

thread_local! {
    /// Where a connection thread (or pool worker) reads small chunks.
    static SCRATCH: std::cell::RefCell<Box<[u8; READ_CHUNK_BYTES]>> =
        std::cell::RefCell::new(Box::new([0; READ_CHUNK_BYTES]));
}
/// Flush the write buffer early once it holds this much (large result sets).
pub const WRITE_FLUSH_BYTES: usize = 256 * 1024;
/// After a command, a read or write buffer that grew beyond this (a large statement
/// or row) is given up for a fresh `READ_CHUNK_BYTES` one, as MySQL shrinks its net
/// buffer back to `net_buffer_length`: one big result does not pin megabytes to a
/// connection that then sits idle.
pub const BUFFER_KEEP_BYTES: usize = 4 * READ_CHUNK_BYTES;

thread_local! {
    /// A pool worker's read and write buffers, lent to the connection it runs for the
    /// length of one command (`borrow_thread_buffers`): parked connections hold no
    /// buffers, and every command of a worker uses the same, cache-warm memory.
    static LENT: std::cell::RefCell<(BytesMut, BytesMut)> = std::cell::RefCell::new((
        BytesMut::with_capacity(READ_CHUNK_BYTES),
        BytesMut::with_capacity(READ_CHUNK_BYTES),
    ));
}

/// A buffer to keep after a command: emptied, and fresh if it grew large.
fn recycled(mut b: BytesMut) -> BytesMut {
    if b.capacity() > BUFFER_KEEP_BYTES {
        return BytesMut::with_capacity(READ_CHUNK_BYTES);
    }
    b.clear();
    // Back to the start of the allocation (reads advance through it).
    b.reserve(READ_CHUNK_BYTES);
    b
}

pub enum Socket {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Socket {
    pub fn set_read_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        match self {
            Socket::Tcp(s) => s.set_read_timeout(t),
            Socket::Unix(s) => s.set_read_timeout(t),
        }
    }

    pub fn set_write_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        match self {
            Socket::Tcp(s) => s.set_write_timeout(t),
            Socket::Unix(s) => s.set_write_timeout(t),
        }
    }

    /// A second handle on the same socket, used by KILL and shutdown to wake a
    /// connection blocked in read().
    pub fn closer(&self) -> io::Result<Closer> {
        Ok(match self {
            Socket::Tcp(s) => Closer::Tcp(s.try_clone()?),
            Socket::Unix(s) => Closer::Unix(s.try_clone()?),
        })
    }

    pub fn is_unix(&self) -> bool {
        matches!(self, Socket::Unix(_))
    }

    pub fn raw_fd(&self) -> std::os::fd::RawFd {
        use std::os::fd::AsRawFd;
        match self {
            Socket::Tcp(s) => s.as_raw_fd(),
            Socket::Unix(s) => s.as_raw_fd(),
        }
    }

    /// One `recv` that never blocks (MSG_DONTWAIT): `WouldBlock` when nothing is
    /// pending. The socket itself stays blocking for everything else.
    fn read_nonblocking(&self, buf: &mut [u8]) -> io::Result<usize> {
        // SAFETY: `buf` is valid for writes of `buf.len()` bytes for the duration of
        // the call; the descriptor is owned by `self`.
        let n = unsafe {
            libc::recv(
                self.raw_fd(),
                buf.as_mut_ptr().cast(),
                buf.len(),
                libc::MSG_DONTWAIT,
            )
        };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(n as usize)
    }

    /// Whether a read would return at once (data, EOF or an error is pending).
    pub fn readable_now(&self) -> bool {
        let mut p = libc::pollfd {
            fd: self.raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: `p` is a valid pollfd for the duration of the call; nfds is 1 and
        // the timeout 0, so the call never blocks.
        let n = unsafe { libc::poll(&mut p, 1, 0) };
        n != 0
    }
}

impl Read for Socket {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Socket::Tcp(s) => s.read(buf),
            Socket::Unix(s) => s.read(buf),
        }
    }
}

impl Write for Socket {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Socket::Tcp(s) => s.write(buf),
            Socket::Unix(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

pub enum Closer {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Closer {
    pub fn close(&self) {
        let _ = match self {
            Closer::Tcp(s) => s.shutdown(Shutdown::Both),
            Closer::Unix(s) => s.shutdown(Shutdown::Both),
        };
    }
}

enum Stream {
    Plain(Socket),
    Tls(Box<rustls::StreamOwned<rustls::ServerConnection, Socket>>),
}

impl Stream {
    fn socket(&self) -> &Socket {
        match self {
            Stream::Plain(s) => s,
            Stream::Tls(t) => &t.sock,
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(s) => s.read(buf),
            Stream::Tls(t) => t.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(s) => s.write(buf),
            Stream::Tls(t) => t.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Stream::Plain(_) => Ok(()),
            Stream::Tls(t) => t.flush(),
        }
    }
}

/// Why reading a packet failed.
#[derive(Debug)]
pub enum ReadError {
    /// The peer closed the connection cleanly between packets.
    Closed,
    /// The peer closed or reset in the middle of a packet.
    Truncated,
    Timeout,
    /// `try_read` was set and nothing was pending: no command to run (the pool's
    /// event was stale; the connection goes back to waiting).
    NotReady,
    TooLarge,
    OutOfOrder,
    Io(io::Error),
}

pub struct PacketIo {
    stream: Stream,
    rbuf: BytesMut,
    pub wbuf: BytesMut,
    decoder: PacketDecoder,
    /// Sequence id of the next packet to read or write.
    pub seq: u8,
    pub bytes_received: u64,
    pub bytes_sent: u64,
    /// Run by the thread pool: socket reads and large writes that may block are
    /// announced to the scheduler (`kiln_common::wait`).
    pooled: bool,
    /// Set by the pool before a command: the first socket read of the next packet
    /// (with nothing buffered) must not block; nothing pending is `ReadError::NotReady`.
    pub try_read: bool,
    /// The last socket read filled the room it was given: more may be pending in the
    /// socket without a new edge-triggered event (`may_have_unread_input`).
    last_read_full: bool,
    /// The read / write buffer is the pool worker's (`borrow_thread_buffers`).
    lent_read: bool,
    lent_write: bool,
}

impl PacketIo {
    pub fn new(socket: Socket, max_packet_bytes: usize) -> PacketIo {
        PacketIo {
            stream: Stream::Plain(socket),
            rbuf: BytesMut::with_capacity(READ_CHUNK_BYTES),
            wbuf: BytesMut::with_capacity(READ_CHUNK_BYTES),
            decoder: PacketDecoder::new(max_packet_bytes),
            seq: 0,
            bytes_received: 0,
            bytes_sent: 0,
            pooled: false,
            try_read: false,
            last_read_full: false,
            lent_read: false,
            lent_write: false,
        }
    }

    /// Marks this connection as run by the thread pool (see `pooled`).
    pub fn set_pooled(&mut self) {
        self.pooled = true;
    }

    pub fn is_pooled(&self) -> bool {
        self.pooled
    }

    /// Announces a wait for the network if the next socket read could block.
    fn read_wait(&mut self) -> Option<wait::WaitGuard> {
        if !self.pooled {
            return None;
        }
        if self.stream.socket().readable_now() {
            return None;
        }
        Some(wait::begin(wait::WaitKind::Net))
    }

    pub fn socket(&self) -> &Socket {
        self.stream.socket()
    }

    pub fn is_tls(&self) -> bool {
        matches!(self.stream, Stream::Tls(_))
    }

    /// TLS cipher suite name, if TLS is on.
    pub fn tls_cipher(&self) -> Option<String> {
        match &self.stream {
            // OpenSSL spells TLS 1.3 suites TLS_AES_…; rustls says TLS13_AES_….
            Stream::Tls(t) => t
                .conn
                .negotiated_cipher_suite()
                .map(|s| format!("{:?}", s.suite()).replacen("TLS13_", "TLS_", 1)),
            Stream::Plain(_) => None,
        }
    }

    pub fn tls_version(&self) -> Option<String> {
        match &self.stream {
            Stream::Tls(t) => t.conn.protocol_version().map(|v| match v {
                rustls::ProtocolVersion::TLSv1_3 => "TLSv1.3".to_string(),
                rustls::ProtocolVersion::TLSv1_2 => "TLSv1.2".to_string(),
                other => format!("{other:?}"),
            }),
            Stream::Plain(_) => None,
        }
    }

    pub fn set_max_packet_bytes(&mut self, n: usize) {
        self.decoder.set_max_packet_bytes(n);
    }

    /// Reads one logical packet and checks its sequence id.
    pub fn read_packet(&mut self) -> Result<Packet, ReadError> {
        loop {
            match self.decoder.decode(&mut self.rbuf) {
                Ok(Some(p)) => {
                    if p.seq != self.seq {
                        return Err(ReadError::OutOfOrder);
                    }
                    self.seq = p.last_seq.wrapping_add(1);
                    return Ok(p);
                }
                Ok(None) => {}
                Err(PacketError::TooLarge) => {
                    // The ERR we answer with follows the offending packet's sequence id.
                    if self.rbuf.len() >= packet::HEADER_BYTES {
                        self.seq = self.rbuf[3].wrapping_add(1);
                    }
                    return Err(ReadError::TooLarge);
                }
                Err(PacketError::OutOfOrder) => return Err(ReadError::OutOfOrder),
            }
            // Check the sequence id as soon as a header is visible, so garbage (or a
            // peer speaking another protocol) is refused at once instead of waiting
            // for a payload its header only pretends to announce.
            if self.rbuf.len() >= packet::HEADER_BYTES
                && !self.decoder.in_progress()
                && self.rbuf[3] != self.seq
            {
                return Err(ReadError::OutOfOrder);
            }
            let was_empty = self.rbuf.is_empty();
            let want = self
                .decoder
                .needs_bytes(&self.rbuf)
                .clamp(1, READ_CHUNK_BYTES * 4);
            let start = self.rbuf.len();
            // The pool's first read for a command, with nothing buffered, never
            // blocks: the event that queued the connection may be stale (its input
            // was read by the previous command), and then there is nothing to run.
            let try_now =
                std::mem::take(&mut self.try_read) && was_empty && !self.decoder.in_progress();
            if try_now
                && self.is_tls()
                && !self.has_buffered_input()
                && !self.stream.socket().readable_now()
            {
                return Err(ReadError::NotReady);
            }
            let plain_try = try_now && !self.is_tls();
            let room = if want <= READ_CHUNK_BYTES {
                READ_CHUNK_BYTES
            } else {
                want
            };
            let r = {
                let _wait = if try_now { None } else { self.read_wait() };
                if want <= READ_CHUNK_BYTES {
                    // Small reads (almost all) land in the thread's scratch buffer and
                    // are copied: growing `rbuf` would zero 16 KiB per read.
                    SCRATCH.with_borrow_mut(|scratch| {
                        let r = match &mut self.stream {
                            Stream::Plain(s) if plain_try => s.read_nonblocking(&mut scratch[..]),
                            stream => stream.read(&mut scratch[..]),
                        };
                        if let Ok(n) = r {
                            self.rbuf.extend_from_slice(&scratch[..n]);
                        }
                        r
                    })
                } else {
                    self.rbuf.resize(start + want, 0);
                    let r = self.stream.read(&mut self.rbuf[start..]);
                    self.rbuf.truncate(start + *r.as_ref().unwrap_or(&0));
                    r
                }
            };
            match r {
                Ok(0) => {
                    return Err(if was_empty {
                        ReadError::Closed
                    } else {
                        ReadError::Truncated
                    });
                }
                Ok(n) => {
                    self.bytes_received += n as u64;
                    self.last_read_full = n == room;
                }
                Err(e) => {
                    return Err(match e.kind() {
                        io::ErrorKind::WouldBlock if plain_try => ReadError::NotReady,
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => ReadError::Timeout,
                        io::ErrorKind::Interrupted => continue,
                        io::ErrorKind::ConnectionReset
                        | io::ErrorKind::UnexpectedEof
                        | io::ErrorKind::BrokenPipe => {
                            if was_empty {
                                ReadError::Closed
                            } else {
                                ReadError::Truncated
                            }
                        }
                        _ => ReadError::Io(e),
                    });
                }
            }
        }
    }

    /// Polls the socket, without blocking, until input is pending or `budget`
    /// has passed; returns whether input is pending. A connection thread calls it
    /// before it would block in read() for the next command: a client that answers
    /// within the budget finds the thread still running, and neither side pays an
    /// idle CPU's wake-up (on this class of VM ~15 µs, more than a point select).
    pub fn spin_for_input(&mut self, budget: Duration) -> bool {
        /// Pause instructions between two polls: a poll is a syscall (~0.3 µs).
        const SPINS_PER_POLL: u32 = 64;
        if self.has_buffered_input() {
            return true;
        }
        let start = std::time::Instant::now();
        loop {
            if self.stream.socket().readable_now() {
                return true;
            }
            if start.elapsed() >= budget {
                return false;
            }
            for _ in 0..SPINS_PER_POLL {
                std::hint::spin_loop();
            }
        }
    }

    /// Whether unread bytes are buffered (a pipelining client), here or as TLS
    /// plaintext inside rustls: then the socket may never turn readable again for them.
    pub fn has_buffered_input(&mut self) -> bool {
        if !self.rbuf.is_empty() {
            return true;
        }
        match &mut self.stream {
            Stream::Plain(_) => false,
            Stream::Tls(t) => t
                .conn
                .process_new_packets()
                .map_or(true, |s| s.plaintext_bytes_to_read() > 0),
        }
    }

    /// Buffers of all sizes (the read buffer's share that is in use, and the capacity
    /// of both): what a connection holds between commands.
    pub fn buffer_bytes(&self) -> usize {
        self.rbuf.capacity() + self.wbuf.capacity()
    }

    /// After a command (both schedulers): a buffer that grew beyond
    /// `BUFFER_KEEP_BYTES` is replaced by a small one (the read buffer only when
    /// empty: a pipelining client's next command stays).
    pub fn shrink_buffers(&mut self) {
        if self.wbuf.is_empty() && self.wbuf.capacity() > BUFFER_KEEP_BYTES {
            self.wbuf = BytesMut::with_capacity(READ_CHUNK_BYTES);
        }
        if self.rbuf.is_empty() && self.rbuf.capacity() > BUFFER_KEEP_BYTES {
            self.rbuf = BytesMut::with_capacity(READ_CHUNK_BYTES);
        }
    }

    /// Pool, before a command: where the connection holds no buffer (always, but for
    /// a pipelining client's unread input), it uses the worker thread's.
    pub fn borrow_thread_buffers(&mut self) {
        LENT.with_borrow_mut(|(r, w)| {
            if self.rbuf.capacity() == 0 {
                std::mem::swap(&mut self.rbuf, r);
                self.lent_read = true;
            }
            if self.wbuf.capacity() == 0 {
                std::mem::swap(&mut self.wbuf, w);
                self.lent_write = true;
            }
        });
    }

    /// Pool, after a command (and after the handshake): the worker gets its buffers
    /// back; the connection keeps no buffer, only a copy of unread input (a
    /// pipelining client), sized to it.
    pub fn return_thread_buffers(&mut self) {
        LENT.with_borrow_mut(|(r, w)| {
            let mut rb = std::mem::take(&mut self.rbuf);
            if !rb.is_empty() {
                self.rbuf = if self.lent_read {
                    BytesMut::from(&rb[..])
                } else {
                    std::mem::take(&mut rb)
                };
            }
            if std::mem::take(&mut self.lent_read) {
                *r = recycled(rb);
            }
            let wb = std::mem::take(&mut self.wbuf);
            let lent = std::mem::take(&mut self.lent_write);
            if !wb.is_empty() {
                // Unsent output (a failed flush): the connection is closing anyway.
                self.wbuf = wb;
                if lent {
                    *w = BytesMut::with_capacity(READ_CHUNK_BYTES);
                }
            } else if lent {
                *w = recycled(wb);
            }
        });
    }

    /// Whether input may be pending in the socket that no new edge-triggered event
    /// will report: the last read filled its room (a pipelining client sent more), or
    /// TLS (rustls reads records in chunks of its own).
    pub fn may_have_unread_input(&self) -> bool {
        self.last_read_full || self.is_tls()
    }

    /// Queues one packet with the next sequence id.
    pub fn write_packet(&mut self, payload: &[u8]) {
        packet::write_packet(&mut self.wbuf, &mut self.seq, payload);
    }

    /// Starts an in-place packet in the write buffer.
    pub fn begin(&mut self) -> PacketStart {
        packet::begin_packet(&mut self.wbuf)
    }

    pub fn finish(&mut self, start: PacketStart) {
        packet::finish_packet(&mut self.wbuf, start, &mut self.seq);
    }

    /// Sends everything queued.
    pub fn flush(&mut self) -> io::Result<()> {
        if !self.wbuf.is_empty() {
            let n = self.wbuf.len();
            // A large answer may fill the socket buffer and wait for the client.
            let _wait =
                (self.pooled && n >= WRITE_FLUSH_BYTES).then(|| wait::begin(wait::WaitKind::Net));
            self.stream.write_all(&self.wbuf)?;
            self.bytes_sent += n as u64;
            self.wbuf.clear();
        }
        self.stream.flush()
    }

    /// Flushes if the write buffer grew large (inside big result sets).
    pub fn flush_if_large(&mut self) -> io::Result<()> {
        if self.wbuf.len() >= WRITE_FLUSH_BYTES {
            self.flush()
        } else {
            Ok(())
        }
    }

    /// Before closing on a fatal protocol error: stop sending, then read and discard
    /// what the peer is still sending (bounded by `max_bytes` and `timeout`), so the
    /// peer reads our ERR packet instead of a connection reset.
    pub fn discard_input(&mut self, max_bytes: usize, timeout: Duration) {
        let _ = self.flush();
        let sock = self.stream.socket();
        let _ = match sock {
            Socket::Tcp(s) => s.shutdown(Shutdown::Write),
            Socket::Unix(s) => s.shutdown(Shutdown::Write),
        };
        let _ = sock.set_read_timeout(Some(Duration::from_millis(50)));
        let deadline = std::time::Instant::now() + timeout;
        let mut buf = [0u8; 16 * 1024];
        let mut total = 0usize;
        while total < max_bytes && std::time::Instant::now() < deadline {
            match self.stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => total += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e)
                    if e.kind() == io::ErrorKind::WouldBlock
                        || e.kind() == io::ErrorKind::TimedOut => {}
                Err(_) => break,
            }
        }
    }

    /// Upgrades to TLS after an SSLRequest: runs the TLS handshake to completion.
    /// Bytes the client sent right after the SSLRequest (its TLS ClientHello, when
    /// it did not wait for our read) are already in `rbuf`; they go to rustls first.
    pub fn start_tls(&mut self, config: Arc<rustls::ServerConfig>) -> io::Result<()> {
        let early = self.rbuf.split();
        let placeholder = Stream::Plain(Socket::Unix(UnixStream::pair()?.0));
        let Stream::Plain(mut sock) = std::mem::replace(&mut self.stream, placeholder) else {
            return Err(io::Error::other("TLS already active"));
        };
        let mut conn = rustls::ServerConnection::new(config).map_err(io::Error::other)?;
        let mut early: &[u8] = &early;
        while !early.is_empty() {
            conn.read_tls(&mut early)?;
            conn.process_new_packets()
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        }
        while conn.is_handshaking() {
            let (rd, wr) = conn.complete_io(&mut sock)?;
            self.bytes_received += rd as u64;
            self.bytes_sent += wr as u64;
            if rd == 0 && wr == 0 && conn.is_handshaking() {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "TLS handshake aborted",
                ));
            }
        }
        self.stream = Stream::Tls(Box::new(rustls::StreamOwned::new(conn, sock)));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spin_for_input_sees_pending_input_and_gives_up_after_its_budget() {
        let (server, mut client) = UnixStream::pair().unwrap();
        let mut io = PacketIo::new(Socket::Unix(server), 1 << 20);

        let start = std::time::Instant::now();
        assert!(!io.spin_for_input(Duration::from_millis(5)));
        assert!(start.elapsed() >= Duration::from_millis(5));

        // COM_PING, sequence id 0.
        client.write_all(&[1, 0, 0, 0, 0x0e]).unwrap();
        assert!(io.spin_for_input(Duration::from_secs(60)));
        let p = io.read_packet().unwrap();
        assert_eq!(&p.payload[..], &[0x0e]);

        // A closed peer is input too: the next read reports it instead of blocking.
        drop(client);
        assert!(io.spin_for_input(Duration::from_secs(60)));
        io.seq = 0;
        assert!(matches!(io.read_packet(), Err(ReadError::Closed)));
    }
}
