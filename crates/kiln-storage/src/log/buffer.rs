//! The in-memory log buffer, which many threads append to at once without a mutex
//! (MySQL 8.0's design): a committing mini-transaction reserves its LSN range with one
//! atomic add, copies its group into the buffer in parallel with the others, and
//! publishes the copy in a link slot. The log writer, alone, follows the links to find
//! how far the buffer is contiguously filled (`ready`), writes that, and frees it.
//!
//! ```text
//!  LSN ─────────────────────────────────────────────────────────────────────▶
//!        written            ready                         reserved
//!  ───────┼──────────────────┼────────┬───────┬──────────────┼─────────────
//!  on disk│ filled, to write │ filled │ being │ filled        │ free
//!         │                  │        │copied │ (linked)      │
//! ```
//!
//! - `reserved`: next LSN to hand out (`fetch_add` by `reserve`).
//! - links: slot `start % LINKS` holds the length of the group starting at `start`
//!   once its copy is complete (0: not yet). `drain` walks them from `ready`.
//! - `written`: bytes below it have left the buffer; their space may be reused.
//!
//! Invariants: written ≤ ready ≤ reserved; a reservation [start, end) is copied only
//! when `end - written ≤ BUF_BYTES` (its bytes overwrite nothing unwritten) and
//! `end - ready ≤ LINKS` (its link slot is not still holding an unconsumed group of an
//! earlier lap). Each byte of the buffer between `written` and `reserved` belongs to
//! exactly one reservation, so concurrent copies never overlap, and `drain` reads only
//! [written, ready), which no one writes until `written` passes it.
//!
//! Waiting for room cannot deadlock: a reservation never waits once it may copy, so the
//! earliest incomplete group completes, `ready` passes it, and a drain frees its space.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use parking_lot::Mutex;

/// Size of the buffer (innodb_log_buffer_size's default in MySQL 8.0).
pub const BUF_BYTES: u64 = 16 << 20;
/// Link slots: at most this many bytes of log may be reserved beyond `ready`.
pub const LINKS: u64 = 1 << 20;

/// An LSN range handed out by `reserve`, to be filled by `copy` and closed by `close`.
/// Not `Clone`: only its owner writes its bytes.
pub struct Reservation {
    pub start: u64,
    pub end: u64,
}

/// Zeroed anonymous memory straight from mmap: untouched pages cost nothing, and an
/// engine opening (tests open hundreds) neither clears 20 MiB nor gets recycled heap
/// memory that calloc would have to clear.
struct AnonMem {
    ptr: *mut u8,
    len: usize,
}

impl AnonMem {
    fn new(len: usize) -> AnonMem {
        // SAFETY: an anonymous private mapping with no address hint has no
        // preconditions; the result is checked below.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert!(
            ptr != libc::MAP_FAILED,
            "cannot map {len} bytes for the log buffer: {}",
            std::io::Error::last_os_error()
        );
        AnonMem {
            ptr: ptr as *mut u8,
            len,
        }
    }
}

impl Drop for AnonMem {
    fn drop(&mut self) {
        // SAFETY: exactly the mapping made in `new`, unmapped once; nothing borrows it
        // past its owner.
        unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.len) };
    }
}

pub struct LogBuffer {
    /// `BUF_BYTES` bytes: the ring.
    mem: AnonMem,
    /// `LINKS` zero-initialised `AtomicU32`s.
    links: AnonMem,
    reserved: AtomicU64,
    ready: AtomicU64,
    written: AtomicU64,
    /// One drainer at a time (it owns `ready` and `written`).
    drain: Mutex<()>,
}

// SAFETY (Send): the mappings are owned by the buffer and freed by its drop, on
// whichever thread.
unsafe impl Send for LogBuffer {}

// SAFETY (Sync): `mem` is written only through `copy`, at disjoint ranges owned by distinct
// `Reservation`s that fit in the free part of the ring, and read only by `drain` in
// [written, ready), which no reservation may write (module comment). Everything else is
// atomics or behind the `drain` mutex.
unsafe impl Sync for LogBuffer {}

impl LogBuffer {
    /// An empty buffer whose next LSN is `lsn`.
    pub fn new(lsn: u64) -> LogBuffer {
        LogBuffer {
            mem: AnonMem::new(BUF_BYTES as usize),
            links: AnonMem::new(LINKS as usize * std::mem::size_of::<AtomicU32>()),
            reserved: AtomicU64::new(lsn),
            ready: AtomicU64::new(lsn),
            written: AtomicU64::new(lsn),
            drain: Mutex::new(()),
        }
    }

    /// The link slot for a group starting at `lsn`.
    fn link(&self, lsn: u64) -> &AtomicU32 {
        let i = (lsn % LINKS) as usize;
        // SAFETY: i < LINKS, so the slot lies inside the mapping, which is page-aligned
        // (so 4-aligned), zero-filled (a valid AtomicU32 0) and lives as long as self.
        // All access to it is atomic.
        unsafe { &*(self.links.ptr as *const AtomicU32).add(i) }
    }

    /// Next LSN to be handed out.
    pub fn reserved(&self) -> u64 {
        self.reserved.load(Ordering::Acquire)
    }

    /// Bytes below this LSN have been copied in, contiguously.
    pub fn ready(&self) -> u64 {
        self.ready.load(Ordering::Acquire)
    }

    /// Bytes below this LSN have been drained.
    pub fn written(&self) -> u64 {
        self.written.load(Ordering::Acquire)
    }

    /// Hands out `len` bytes of LSN space (one atomic add, no lock).
    pub fn reserve(&self, len: u64) -> Reservation {
        assert!(
            len > 0 && len < LINKS.min(BUF_BYTES) / 2,
            "group of {len} bytes"
        );
        let start = self.reserved.fetch_add(len, Ordering::AcqRel);
        Reservation {
            start,
            end: start + len,
        }
    }

    /// Whether `r` may be copied now; if not, someone must `drain`.
    pub fn has_room(&self, r: &Reservation) -> bool {
        r.end - self.written() <= BUF_BYTES && r.end - self.ready() <= LINKS
    }

    /// Copies `parts` (exactly `r`'s length in total) into `r`'s bytes, then publishes
    /// them for the drainer. The caller has seen `has_room(&r)`.
    pub fn fill(&self, r: Reservation, parts: &[&[u8]]) {
        assert!(self.has_room(&r), "copy into a reservation without room");
        let mut at = r.start;
        for p in parts {
            self.copy(at, p);
            at += p.len() as u64;
        }
        assert_eq!(at, r.end, "parts do not fill the reservation");
        let slot = self.link(r.start);
        debug_assert_eq!(slot.load(Ordering::Relaxed), 0, "link slot still in use");
        slot.store((r.end - r.start) as u32, Ordering::Release);
    }

    fn copy(&self, lsn: u64, bytes: &[u8]) {
        let base = self.mem.ptr;
        let mut done = 0;
        while done < bytes.len() {
            let pos = ((lsn + done as u64) % BUF_BYTES) as usize;
            let n = (BUF_BYTES as usize - pos).min(bytes.len() - done);
            // SAFETY: pos + n ≤ BUF_BYTES, inside the allocation. These bytes belong to
            // the caller's reservation (lsn.. within [start, end)), which has room: no
            // other reservation covers them and the drainer reads only below `ready`,
            // which cannot pass this reservation's start before its link is set.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr().add(done), base.add(pos), n) };
            done += n;
        }
    }

    /// The drainer: advances `ready` over every published group, hands the bytes
    /// [written, ready) to `out` (as up to two slices, the buffer being a ring, with
    /// the LSN of the first byte), and frees them if `out` succeeds. Returns the new
    /// `written`.
    pub fn drain<E>(&self, out: impl FnOnce(u64, &[u8], &[u8]) -> Result<(), E>) -> Result<u64, E> {
        let _one = self.drain.lock();
        let mut ready = self.ready.load(Ordering::Acquire);
        let reserved = self.reserved();
        while ready < reserved {
            let slot = self.link(ready);
            let len = slot.load(Ordering::Acquire);
            if len == 0 {
                break; // the next group is still being copied
            }
            slot.store(0, Ordering::Relaxed);
            ready += len as u64;
        }
        self.ready.store(ready, Ordering::Release);
        let from = self.written.load(Ordering::Acquire);
        if from == ready {
            return Ok(from);
        }
        let pos = (from % BUF_BYTES) as usize;
        let len = (ready - from) as usize;
        let first = (BUF_BYTES as usize - pos).min(len);
        let base = self.mem.ptr as *const u8;
        // SAFETY: [from, ready) is fully copied (links consumed above, Acquire pairs
        // with `fill`'s Release) and no reservation writes it until `written` passes it,
        // which only this drainer (holding `drain`) does, after `out` returns. Both
        // slices lie inside the allocation.
        let (a, b) = unsafe {
            (
                std::slice::from_raw_parts(base.add(pos), first),
                std::slice::from_raw_parts(base, len - first),
            )
        };
        out(from, a, b)?;
        self.written.store(ready, Ordering::Release);
        Ok(ready)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn drain_all(b: &LogBuffer, into: &mut Vec<u8>) -> u64 {
        b.drain(|_, x, y| {
            into.extend_from_slice(x);
            into.extend_from_slice(y);
            Ok::<(), ()>(())
        })
        .unwrap()
    }

    #[test]
    fn out_of_order_copies_drain_in_lsn_order() {
        let b = LogBuffer::new(100);
        let r1 = b.reserve(3);
        let r2 = b.reserve(2);
        assert_eq!((r1.start, r2.start, r2.end), (100, 103, 105));
        b.fill(r2, &[b"de"]);
        let mut out = Vec::new();
        assert_eq!(drain_all(&b, &mut out), 100, "r1 not copied: nothing ready");
        b.fill(r1, &[b"a", b"bc"]);
        assert_eq!(drain_all(&b, &mut out), 105);
        assert_eq!(out, b"abcde");
    }

    #[test]
    fn failed_drain_keeps_the_bytes() {
        let b = LogBuffer::new(0);
        let r = b.reserve(4);
        b.fill(r, &[b"wxyz"]);
        assert!(b.drain(|_, _, _| Err("disk full")).is_err());
        let mut out = Vec::new();
        assert_eq!(drain_all(&b, &mut out), 4);
        assert_eq!(out, b"wxyz");
    }

    #[test]
    fn wraps_around_the_ring() {
        let b = LogBuffer::new(BUF_BYTES - 5);
        let r = b.reserve(10);
        b.fill(r, &[b"0123456789"]);
        let mut from = 0;
        let mut parts = (Vec::new(), Vec::new());
        b.drain(|f, x, y| {
            from = f;
            parts = (x.to_vec(), y.to_vec());
            Ok::<(), ()>(())
        })
        .unwrap();
        assert_eq!(from, BUF_BYTES - 5);
        assert_eq!(parts, (b"01234".to_vec(), b"56789".to_vec()));
    }

    /// Many threads append numbered groups while one drains: the drained stream is
    /// exactly the groups in reservation order, each intact.
    #[test]
    fn concurrent_appenders_and_a_drainer() {
        let b = Arc::new(LogBuffer::new(7));
        let threads = 4u64;
        let per = 20_000u64;
        let hs: Vec<_> = (0..threads)
            .map(|t| {
                let b = b.clone();
                std::thread::spawn(move || {
                    let mut rng = crate::rng::Rng(t + 1);
                    for i in 0..per {
                        let len = 9 + rng.below(3000);
                        let r = b.reserve(len);
                        while !b.has_room(&r) {
                            std::thread::yield_now();
                        }
                        let mut g = vec![(i % 251) as u8; len as usize];
                        g[..8].copy_from_slice(&len.to_le_bytes());
                        b.fill(r, &[&g]);
                    }
                })
            })
            .collect();
        let mut stream = Vec::new();
        let mut pending = Vec::new();
        let mut groups = 0;
        while groups < threads * per {
            drain_all(&b, &mut pending);
            let mut at = 0;
            while pending.len() - at >= 8 {
                let len = u64::from_le_bytes(pending[at..at + 8].try_into().unwrap()) as usize;
                if pending.len() - at < len {
                    break;
                }
                let g = &pending[at..at + len];
                assert!(g[8..].iter().all(|&x| x == g[8]), "a torn group");
                at += len;
                groups += 1;
            }
            stream.extend_from_slice(&pending[..at]);
            pending.drain(..at);
        }
        for h in hs {
            h.join().unwrap();
        }
        assert!(pending.is_empty());
        assert_eq!(7 + stream.len() as u64, b.written());
        assert_eq!(b.written(), b.reserved());
    }
}
