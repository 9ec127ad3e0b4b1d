//! Bounded reading of a response stream: LF-terminated lines (a CR right before the LF
//! is dropped) and fixed-size blocks (memcached data), served from one reusable buffer
//! that grows on demand but never past the cap (16 MiB per line by default), so a
//! misbehaving server cannot make the client allocate without bound.
//!
//! Non-blocking use (the event loop of `runner`): `begin` marks where a response
//! starts; a read that would block fails with `FatalError::Pending`, and `rewind`
//! then puts back what the incomplete response consumed, so reading it can start over
//! when more bytes have arrived. The buffer keeps the bytes from the mark on.

use std::io::{self, Read};
use std::ops::Range;
use std::time::Duration;

use crate::error::FatalError;

/// The longest response line (without its line end) accepted by default.
pub const MAX_LINE: usize = 16 << 20;

const INITIAL_BUFFER: usize = 64 << 10;

pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    /// Unconsumed bytes are `buf[start..end]`.
    start: usize,
    end: usize,
    max_line: usize,
    /// The last line returned, valid until the next read.
    last: Range<usize>,
    /// Where the response being read starts (see `begin`).
    mark: Option<usize>,
    /// The stream is non-blocking: a read that would block is `Pending`, not a timeout.
    nonblocking: bool,
    /// Only used to word timeout errors.
    timeout: Duration,
}

impl<R: Read> LineReader<R> {
    pub fn new(inner: R, timeout: Duration) -> LineReader<R> {
        LineReader::with_limit(inner, MAX_LINE, timeout)
    }

    pub fn with_limit(inner: R, max_line: usize, timeout: Duration) -> LineReader<R> {
        LineReader {
            inner,
            buf: vec![0; INITIAL_BUFFER.min(max_line + 2)],
            start: 0,
            end: 0,
            max_line,
            last: 0..0,
            mark: None,
            nonblocking: false,
            timeout,
        }
    }

    /// Whether a read that would block means `Pending` (a non-blocking stream) rather
    /// than a timeout (a blocking stream with a read timeout).
    pub fn set_nonblocking(&mut self, on: bool) {
        self.nonblocking = on;
    }

    /// Marks the start of a response: `rewind` returns here.
    pub fn begin(&mut self) {
        self.mark = Some(self.start);
    }

    /// Gives back everything consumed since `begin` (the response was incomplete).
    pub fn rewind(&mut self) {
        if let Some(m) = self.mark {
            self.start = m;
        }
    }

    /// The next line, without its LF (and without a CR right before it).
    pub fn read_line(&mut self) -> Result<&[u8], FatalError> {
        let mut scanned = 0; // bytes after `start` known to hold no LF
        loop {
            let window = &self.buf[self.start + scanned..self.end];
            // memchr: a response line is a few hundred bytes (a whole sbtest row), and
            // a byte-at-a-time scan of it was a tenth of the client's CPU.
            if let Some(i) = memchr::memchr(b'\n', window) {
                let nl = self.start + scanned + i;
                let mut line_end = nl;
                if line_end > self.start && self.buf[line_end - 1] == b'\r' {
                    line_end -= 1;
                }
                if line_end - self.start > self.max_line {
                    return Err(FatalError::TooLong(self.max_line));
                }
                self.last = self.start..line_end;
                self.start = nl + 1;
                return Ok(&self.buf[self.last.clone()]);
            }
            scanned = self.end - self.start;
            // A line may end in CR LF: allow max_line + 1 bytes before the LF.
            if scanned > self.max_line + 1 {
                return Err(FatalError::TooLong(self.max_line));
            }
            self.fill()?;
        }
    }

    /// The last line returned by `read_line` (until the next read).
    pub fn last_line(&self) -> &[u8] {
        &self.buf[self.last.clone()]
    }

    /// Exactly `n` bytes (`n` ≤ the line cap + 2).
    pub fn read_block(&mut self, n: usize) -> Result<&[u8], FatalError> {
        if n > self.max_line + 2 {
            return Err(FatalError::TooLong(self.max_line));
        }
        while self.end - self.start < n {
            self.fill()?;
        }
        let block = self.start..self.start + n;
        self.start += n;
        Ok(&self.buf[block])
    }

    /// Reads more bytes, making room first (compacting, then doubling up to the cap).
    fn fill(&mut self) -> Result<(), FatalError> {
        // Bytes from the mark on are kept (a rewind may need them).
        let keep = self.mark.map_or(self.start, |m| m.min(self.start));
        if keep == self.end {
            self.start = 0;
            self.end = 0;
            self.mark = self.mark.map(|_| 0);
            self.last = 0..0;
        }
        if self.end == self.buf.len() {
            if keep > 0 {
                self.buf.copy_within(keep..self.end, 0);
                self.end -= keep;
                self.start -= keep;
                self.mark = self.mark.map(|m| m - keep);
                self.last = if self.last.start >= keep {
                    self.last.start - keep..self.last.end - keep
                } else {
                    0..0
                };
            } else {
                // A line, plus what the response being read consumed before it.
                let cap = self.max_line + 2 + (self.start - keep);
                if self.buf.len() >= cap {
                    return Err(FatalError::TooLong(self.max_line));
                }
                let new_len = (self.buf.len() * 2).min(cap);
                self.buf.resize(new_len, 0);
            }
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => return Err(FatalError::Closed("end of stream".into())),
                Ok(n) => {
                    self.end += n;
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock && self.nonblocking => {
                    return Err(FatalError::Pending);
                }
                Err(e) => return Err(FatalError::from_io(e, self.timeout)),
            }
        }
    }
}

/// Renders a response line for a message: tabs as `\t`, other control and non-ASCII
/// bytes as `\xNN`, cut after 200 bytes.
pub fn printable(line: &[u8]) -> String {
    let mut s = String::new();
    for &b in line.iter().take(200) {
        match b {
            b'\t' => s.push_str("\\t"),
            b'\\' => s.push_str("\\\\"),
            0x20..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    if line.len() > 200 {
        s.push_str(&format!("... ({} bytes)", line.len()));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hands out its data in chunks of at most `chunk` bytes.
    struct Chunked {
        data: Vec<u8>,
        pos: usize,
        chunk: usize,
    }

    impl Read for Chunked {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.chunk.min(out.len()).min(self.data.len() - self.pos);
            out[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
            self.pos += n;
            Ok(n)
        }
    }

    fn reader(data: &[u8], chunk: usize, max: usize) -> LineReader<Chunked> {
        let src = Chunked {
            data: data.to_vec(),
            pos: 0,
            chunk,
        };
        LineReader::with_limit(src, max, Duration::from_secs(1))
    }

    #[test]
    fn lines_blocks_and_crlf() {
        for chunk in [1, 3, 1000] {
            let mut r = reader(b"0\t1\nEND\r\nVALUE k 0 3\r\nabc\r\nEND\r\n", chunk, 64);
            assert_eq!(r.read_line().unwrap(), b"0\t1");
            assert_eq!(r.read_line().unwrap(), b"END");
            assert_eq!(r.read_line().unwrap(), b"VALUE k 0 3");
            assert_eq!(r.last_line(), b"VALUE k 0 3");
            assert_eq!(r.read_block(5).unwrap(), b"abc\r\n");
            assert_eq!(r.read_line().unwrap(), b"END");
            assert!(matches!(r.read_line(), Err(FatalError::Closed(_))));
        }
    }

    #[test]
    fn long_lines_grow_the_buffer_up_to_the_cap() {
        let long = vec![b'x'; 300];
        let mut data = long.clone();
        data.extend_from_slice(b"\r\nok\n");
        let mut r = reader(&data, 7, 300);
        assert_eq!(r.read_line().unwrap(), &long[..]);
        assert_eq!(r.read_line().unwrap(), b"ok");

        let mut data = vec![b'y'; 301];
        data.push(b'\n');
        let mut r = reader(&data, 64, 300);
        assert!(matches!(r.read_line(), Err(FatalError::TooLong(300))));

        // No line end at all: stops at the cap instead of reading forever.
        let mut r = reader(&vec![b'z'; 10_000], 64, 300);
        assert!(matches!(r.read_line(), Err(FatalError::TooLong(300))));
    }

    /// Hands out its data in the given pieces, answering WouldBlock between them.
    struct Trickle {
        pieces: Vec<Vec<u8>>,
        next: usize,
        blocked: bool,
    }

    impl Read for Trickle {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            if self.blocked {
                self.blocked = false;
                return Err(io::ErrorKind::WouldBlock.into());
            }
            let Some(p) = self.pieces.get_mut(self.next) else {
                return Ok(0);
            };
            let n = p.len().min(out.len());
            out[..n].copy_from_slice(&p[..n]);
            p.drain(..n);
            if p.is_empty() {
                self.next += 1;
                self.blocked = true;
            }
            Ok(n)
        }
    }

    #[test]
    fn pending_responses_rewind_and_resume() {
        // Two-line responses split at every place, across a small buffer that must
        // compact while a response is half read.
        let data = b"VALUE 1\nabc\nVALUE 2\nde\nVALUE 3\nfghij\n".to_vec();
        for cut in 1..data.len() {
            let src = Trickle {
                pieces: vec![data[..cut].to_vec(), data[cut..].to_vec()],
                next: 0,
                blocked: false,
            };
            let mut r = LineReader::with_limit(src, 14, Duration::from_secs(1));
            r.set_nonblocking(true);
            let mut got = Vec::new();
            let mut pendings = 0;
            while got.len() < 3 {
                r.begin();
                let res = r.read_line().map(|l| l.to_vec()).and_then(|head| {
                    let body = r.read_line()?.to_vec();
                    Ok((head, body))
                });
                match res {
                    Ok(pair) => got.push(pair),
                    Err(FatalError::Pending) => {
                        pendings += 1;
                        assert!(pendings < 10, "no progress at cut {cut}");
                        r.rewind();
                    }
                    Err(e) => panic!("cut {cut}: {e}"),
                }
            }
            assert_eq!(got[0], (b"VALUE 1".to_vec(), b"abc".to_vec()), "cut {cut}");
            assert_eq!(got[1], (b"VALUE 2".to_vec(), b"de".to_vec()), "cut {cut}");
            assert_eq!(
                got[2],
                (b"VALUE 3".to_vec(), b"fghij".to_vec()),
                "cut {cut}"
            );
        }
    }

    #[test]
    fn closed_mid_line() {
        let mut r = reader(b"0\t1\n0\t", 2, 64);
        assert_eq!(r.read_line().unwrap(), b"0\t1");
        assert!(matches!(r.read_line(), Err(FatalError::Closed(_))));
    }

    #[test]
    fn printable_escapes() {
        assert_eq!(printable(b"2\t1\top\x00\xff"), "2\\t1\\top\\x00\\xff");
    }
}
