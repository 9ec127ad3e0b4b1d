//! B+tree node: a slotted page of records in key order.
//!
//! ```text
//! offset size  field
//!      0   32  common page header (page.rs), type Index; prev/next link leaves
//!     32    2  level        0 for leaves
//!     34    2  n_slots      number of records
//!     36    2  heap_top     lowest byte of the record heap (records grow down)
//!     38    2  garbage      bytes of removed records still inside the heap
//!     40    8  index_id     the tree this page belongs to
//!     48    4  leftmost     internal nodes: child for keys below record 0; else FIL_NULL
//!     52    4  (reserved)
//!     56       slot array   n_slots × 10 bytes, in key order:
//!                           offset u16 (the record) | prefix u64 (the key's first
//!                           8 bytes, big-endian, zero-padded)
//!              free space
//! heap_top     record heap  (any order)
//!  PAGE_SIZE
//! ```
//!
//! Records:
//!
//! ```text
//! leaf:      key_len u16 | flags u8 | stored_len u32 | key | stored
//!            flags bit 0: the value is in overflow pages and `stored` is
//!            first_page u32 | total_len u64
//! internal:  key_len u16 | child u32 | key        (child holds keys ≥ key)
//! ```
//!
//! The prefix lets a binary search compare mostly within the contiguous slot array
//! (one or two cache lines per step) and touch a record only when prefixes tie.
//!
//! Invariants (checked by `check`): slots are sorted by key with no duplicates; each
//! slot's prefix is its key's; every
//! record lies inside [heap_top, PAGE_SIZE); records do not overlap; the bytes of live
//! records plus `garbage` equal PAGE_SIZE − heap_top.
//!
//! Limits: a key is at most `KEY_MAX` bytes and a record at most `RECORD_MAX`, so a
//! page always holds at least four records and a split always makes room.

use std::cmp::Ordering;

use crate::buf::optimistic::OptPage;
use crate::page::{
    self, FIL_NULL, HEADER_SIZE, PAGE_SIZE, PageId, PageType, get_u16, get_u32, get_u64, put_u16,
    put_u32, put_u64,
};

const OFF_LEVEL: usize = HEADER_SIZE;
const OFF_N_SLOTS: usize = HEADER_SIZE + 2;
const OFF_HEAP_TOP: usize = HEADER_SIZE + 4;
const OFF_GARBAGE: usize = HEADER_SIZE + 6;
const OFF_INDEX_ID: usize = HEADER_SIZE + 8;
pub const OFF_LEFTMOST: usize = HEADER_SIZE + 16;
/// First byte of the slot array.
pub const SLOTS_START: usize = HEADER_SIZE + 24;

/// Longest key in bytes (InnoDB's limit for 16 KiB pages is 3072).
pub const KEY_MAX: usize = 3072;
/// Largest record; values that would exceed it go to overflow pages.
pub const RECORD_MAX: usize = (PAGE_SIZE - SLOTS_START) / 4 - SLOT;
/// Bytes per slot: record offset u16 + key prefix u64 (8 bytes: a BIGINT key, whose
/// leading bytes are the same for every small value, is decided by the prefix alone).
pub const SLOT: usize = 10;

pub const LEAF_HEADER: usize = 7;
pub const INTERNAL_HEADER: usize = 6;
/// Largest internal record (a separator of `KEY_MAX` bytes).
pub const INTERNAL_MAX: usize = INTERNAL_HEADER + KEY_MAX;
pub const FLAG_OVERFLOW: u8 = 1;
/// Size of an overflow reference stored in a leaf record.
pub const OVERFLOW_REF_LEN: usize = 12;

pub fn init(p: &mut [u8], id: PageId, index_id: u64, level: u16) {
    page::init_header(p, id, PageType::Index);
    p[HEADER_SIZE..].fill(0);
    put_u16(p, OFF_LEVEL, level);
    put_u16(p, OFF_N_SLOTS, 0);
    put_u16(p, OFF_HEAP_TOP, PAGE_SIZE as u16);
    put_u16(p, OFF_GARBAGE, 0);
    put_u64(p, OFF_INDEX_ID, index_id);
    put_u32(p, OFF_LEFTMOST, FIL_NULL);
}

fn heap_top(p: &[u8]) -> usize {
    get_u16(p, OFF_HEAP_TOP) as usize
}

fn set_heap_top(p: &mut [u8], v: usize) {
    debug_assert!(v <= PAGE_SIZE);
    put_u16(p, OFF_HEAP_TOP, v as u16);
}

pub fn level(p: &[u8]) -> u16 {
    get_u16(p, OFF_LEVEL)
}
pub fn is_leaf(p: &[u8]) -> bool {
    level(p) == 0
}
pub fn n_slots(p: &[u8]) -> usize {
    get_u16(p, OFF_N_SLOTS) as usize
}
pub fn index_id(p: &[u8]) -> u64 {
    get_u64(p, OFF_INDEX_ID)
}
pub fn leftmost(p: &[u8]) -> u32 {
    get_u32(p, OFF_LEFTMOST)
}
pub fn set_leftmost(p: &mut [u8], child: u32) {
    put_u32(p, OFF_LEFTMOST, child)
}
fn garbage(p: &[u8]) -> usize {
    get_u16(p, OFF_GARBAGE) as usize
}

fn slot(p: &[u8], i: usize) -> usize {
    get_u16(p, SLOTS_START + SLOT * i) as usize
}

fn slot_prefix(p: &[u8], i: usize) -> u64 {
    get_u64(p, SLOTS_START + SLOT * i + 2)
}

/// The first eight bytes of `key` as a big-endian number (zero-padded): prefixes
/// compare like the keys whenever they differ.
fn key_prefix(key: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = key.len().min(8);
    b[..n].copy_from_slice(&key[..n]);
    u64::from_be_bytes(b)
}

/// Size of the record at byte offset `off`.
fn record_len_at(p: &[u8], off: usize) -> usize {
    let key_len = get_u16(p, off) as usize;
    if is_leaf(p) {
        LEAF_HEADER + key_len + get_u32(p, off + 3) as usize
    } else {
        INTERNAL_HEADER + key_len
    }
}

pub fn record(p: &[u8], i: usize) -> &[u8] {
    let off = slot(p, i);
    &p[off..off + record_len_at(p, off)]
}

pub fn key(p: &[u8], i: usize) -> &[u8] {
    let off = slot(p, i);
    let key_len = get_u16(p, off) as usize;
    let h = if is_leaf(p) {
        LEAF_HEADER
    } else {
        INTERNAL_HEADER
    };
    &p[off + h..off + h + key_len]
}

/// A leaf record's value: inline bytes or a reference to overflow pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored<'a> {
    Inline(&'a [u8]),
    Overflow { first_page: u32, total_len: u64 },
}

pub fn leaf_value(p: &[u8], i: usize) -> Stored<'_> {
    debug_assert!(is_leaf(p));
    let off = slot(p, i);
    let key_len = get_u16(p, off) as usize;
    let flags = p[off + 2];
    let len = get_u32(p, off + 3) as usize;
    let v = &p[off + LEAF_HEADER + key_len..off + LEAF_HEADER + key_len + len];
    if flags & FLAG_OVERFLOW != 0 {
        Stored::Overflow {
            first_page: get_u32(v, 0),
            total_len: get_u64(v, 4),
        }
    } else {
        Stored::Inline(v)
    }
}

/// Internal node: child for slot `i` (keys ≥ key(i)).
pub fn child(p: &[u8], i: usize) -> u32 {
    debug_assert!(!is_leaf(p));
    get_u32(p, slot(p, i) + 2)
}

/// The child to follow for `key` in an internal node.
pub fn child_for<P: NodeBytes + ?Sized>(p: &P, key: &[u8]) -> u32 {
    match search(p, key) {
        Ok(i) => p.node_child(i),
        Err(0) => p.node_leftmost(),
        Err(i) => p.node_child(i - 1),
    }
}

/// What a latch-free leaf lookup found (valid only if the page version validates).
pub enum OptValue {
    Absent,
    Inline(Vec<u8>),
    /// The value is in overflow pages: read it with latches.
    Overflow,
}

/// Looks `key` up in a leaf read without a latch, copying an inline value out.
pub fn leaf_get_opt(p: &OptPage<'_>, key: &[u8]) -> OptValue {
    let Ok(i) = search(p, key) else {
        return OptValue::Absent;
    };
    let off = p.u16(SLOTS_START + SLOT * i) as usize;
    if p.u8(off + 2) & FLAG_OVERFLOW != 0 {
        return OptValue::Overflow;
    }
    let key_len = p.u16(off) as usize;
    let len = (p.u32(off + 3) as usize).min(PAGE_SIZE);
    let mut v = Vec::new();
    p.copy_to(off + LEAF_HEADER + key_len, len, &mut v);
    OptValue::Inline(v)
}

/// Whether a page read without a latch looks like a node of `index_id` (at `level`,
/// if given): the checks `BTree::validate` makes on latched pages.
pub fn is_node_opt(p: &OptPage<'_>, index_id: u64, level: Option<u16>) -> bool {
    p.u16(page::OFF_TYPE) == PageType::Index as u16
        && p.u64(OFF_INDEX_ID) == index_id
        && level.is_none_or(|l| p.u16(OFF_LEVEL) == l)
}

/// Read access to a node's bytes: a latched page (`[u8]`) or a latch-free one
/// (`OptPage`, whose reads may be torn and are bounds-checked), so that the binary
/// search exists once for both.
pub trait NodeBytes {
    fn u16_at(&self, off: usize) -> u16;
    fn u32_at(&self, off: usize) -> u32;
    fn u64_at(&self, off: usize) -> u64;
    /// Compares the bytes [off, off + len) with `other`.
    fn cmp_at(&self, off: usize, len: usize, other: &[u8]) -> Ordering;
    /// Appends the bytes [off, off + len) to `out`.
    fn copy_at(&self, off: usize, len: usize, out: &mut Vec<u8>);

    fn node_level(&self) -> u16 {
        self.u16_at(OFF_LEVEL)
    }
    /// Number of records (bounded by what a page can hold).
    fn node_slots(&self) -> usize {
        (self.u16_at(OFF_N_SLOTS) as usize).min(SLOTS_MAX)
    }
    /// Internal node: child for slot `i`.
    fn node_child(&self, i: usize) -> u32 {
        self.u32_at(self.u16_at(SLOTS_START + SLOT * i) as usize + 2)
    }
    fn node_leftmost(&self) -> u32 {
        self.u32_at(OFF_LEFTMOST)
    }
    /// Record i's key, copied.
    fn node_key(&self, i: usize) -> Vec<u8> {
        let off = self.u16_at(SLOTS_START + SLOT * i) as usize;
        let h = if self.node_level() == 0 {
            LEAF_HEADER
        } else {
            INTERNAL_HEADER
        };
        let mut k = Vec::new();
        self.copy_at(off + h, self.u16_at(off) as usize, &mut k);
        k
    }
}

impl NodeBytes for [u8] {
    fn u16_at(&self, off: usize) -> u16 {
        get_u16(self, off)
    }
    fn u32_at(&self, off: usize) -> u32 {
        get_u32(self, off)
    }
    fn u64_at(&self, off: usize) -> u64 {
        get_u64(self, off)
    }
    fn cmp_at(&self, off: usize, len: usize, other: &[u8]) -> Ordering {
        self[off..off + len].cmp(other)
    }
    fn copy_at(&self, off: usize, len: usize, out: &mut Vec<u8>) {
        out.extend_from_slice(&self[off..off + len]);
    }
}

impl NodeBytes for [u8; PAGE_SIZE] {
    fn u16_at(&self, off: usize) -> u16 {
        self[..].u16_at(off)
    }
    fn u32_at(&self, off: usize) -> u32 {
        self[..].u32_at(off)
    }
    fn u64_at(&self, off: usize) -> u64 {
        self[..].u64_at(off)
    }
    fn cmp_at(&self, off: usize, len: usize, other: &[u8]) -> Ordering {
        self[..].cmp_at(off, len, other)
    }
    fn copy_at(&self, off: usize, len: usize, out: &mut Vec<u8>) {
        self[..].copy_at(off, len, out)
    }
}

impl NodeBytes for OptPage<'_> {
    fn u16_at(&self, off: usize) -> u16 {
        self.u16(off)
    }
    fn u32_at(&self, off: usize) -> u32 {
        self.u32(off)
    }
    fn u64_at(&self, off: usize) -> u64 {
        self.u64(off)
    }
    fn cmp_at(&self, off: usize, len: usize, other: &[u8]) -> Ordering {
        self.cmp_bytes(off, len, other)
    }
    fn copy_at(&self, off: usize, len: usize, out: &mut Vec<u8>) {
        self.copy_to(off, len, out)
    }
}

/// Most slots a page can hold (bounds loops over a torn `n_slots`).
const SLOTS_MAX: usize = (PAGE_SIZE - SLOTS_START) / SLOT;

/// Compares record i's key with `target`.
fn cmp_key<P: NodeBytes + ?Sized>(p: &P, i: usize, target: &[u8]) -> Ordering {
    let off = p.u16_at(SLOTS_START + SLOT * i) as usize;
    let key_len = p.u16_at(off) as usize;
    let h = if p.node_level() == 0 {
        LEAF_HEADER
    } else {
        INTERNAL_HEADER
    };
    p.cmp_at(off + h, key_len, target)
}

/// Slots below which `search` goes straight to bisection.
const INTERPOLATE_MIN: usize = 16;
/// Interpolation probes before `search` falls back to bisection.
const INTERPOLATE_ROUNDS: usize = 2;

/// Search: `Ok(i)` if record i has `key`, else `Err(i)` where it would go.
///
/// The first probes interpolate on the slots' key prefixes (the key's first 8 bytes
/// as a number): keys spread evenly over their range — an auto-increment or dense
/// integer primary key — are found at the first probe, so a point read of a cold leaf
/// misses the cache on about 3 lines (the last slot, the probed slot, the record)
/// instead of one per bisection step. After `INTERPOLATE_ROUNDS` probes, or when the
/// prefixes cannot place the key, it bisects what remains. Every probe keeps the
/// invariant that slots below `lo` are less than `target` and slots from `hi` on are
/// greater, so the probe position affects only the cost, never the answer; the
/// arithmetic is saturating and clamped, as a page read without a latch may be torn.
pub fn search<P: NodeBytes + ?Sized>(p: &P, target: &[u8]) -> Result<usize, usize> {
    let n = p.node_slots();
    let tp = key_prefix(target);
    let prefix = |i: usize| p.u64_at(SLOTS_START + SLOT * i + 2);
    // Compares slot i with the target, by prefix first.
    let probe = |i: usize, pi: u64| match pi.cmp(&tp) {
        Ordering::Equal => cmp_key(p, i, target),
        ne => ne,
    };
    let (mut lo, mut hi) = (0usize, n);
    if n >= INTERPOLATE_MIN {
        let (first, last) = (prefix(0), prefix(n - 1));
        if first < tp && tp < last {
            // Slot lo − 1 has prefix lo_p ≤ tp, slot hi has prefix hi_p ≥ tp.
            (lo, hi) = (1, n - 1);
            let (mut lo_p, mut hi_p) = (first, last);
            for _ in 0..INTERPOLATE_ROUNDS {
                let Some(mid) = interpolate(lo, hi, lo_p, hi_p, tp) else {
                    break;
                };
                let mp = prefix(mid);
                match probe(mid, mp) {
                    Ordering::Less => (lo, lo_p) = (mid + 1, mp),
                    Ordering::Greater => (hi, hi_p) = (mid, mp),
                    Ordering::Equal => return Ok(mid),
                }
            }
        }
    }
    while lo < hi {
        let mid = (lo + hi) / 2;
        match probe(mid, prefix(mid)) {
            Ordering::Less => lo = mid + 1,
            Ordering::Greater => hi = mid,
            Ordering::Equal => return Ok(mid),
        }
    }
    Err(lo)
}

/// The slot in [lo, hi) where `tp` lies if prefixes grow linearly from `lo_p` (slot
/// lo − 1) to `hi_p` (slot hi); None when the range is empty or flat.
fn interpolate(lo: usize, hi: usize, lo_p: u64, hi_p: u64, tp: u64) -> Option<usize> {
    let width = hi_p.saturating_sub(lo_p);
    if lo == 0 || lo >= hi || width == 0 {
        return None;
    }
    // In 64-bit arithmetic (a 128-bit division was a visible cost): both distances
    // scaled down to at most 32 significant bits, times a span of at most a page's
    // slots, cannot overflow.
    let shift = (64 - width.leading_zeros()).saturating_sub(32);
    let (num, den) = (tp.saturating_sub(lo_p) >> shift, width >> shift);
    let span = (hi - lo + 1).min(SLOTS_MAX) as u64;
    let step = num.min(den).saturating_mul(span) / den.max(1);
    let guess = (lo - 1).saturating_add(usize::try_from(step).unwrap_or(usize::MAX));
    Some(guess.clamp(lo, hi - 1))
}

/// The slot `search` probes first after the first and last ones (for prefetching: a
/// hint, computed from possibly torn bytes); None if it would bisect from the start.
pub fn first_probe<P: NodeBytes + ?Sized>(p: &P, target: &[u8]) -> Option<usize> {
    let n = p.node_slots();
    if n < INTERPOLATE_MIN {
        return None;
    }
    let tp = key_prefix(target);
    let (first, last) = (
        p.u64_at(SLOTS_START + 2),
        p.u64_at(SLOTS_START + SLOT * (n - 1) + 2),
    );
    if !(first < tp && tp < last) {
        return None;
    }
    interpolate(1, n - 1, first, last, tp)
}

pub fn leaf_record(key: &[u8], stored: Stored<'_>) -> Vec<u8> {
    assert!(key.len() <= KEY_MAX);
    let (flags, bytes): (u8, Vec<u8>) = match stored {
        Stored::Inline(v) => (0, v.to_vec()),
        Stored::Overflow {
            first_page,
            total_len,
        } => {
            let mut b = first_page.to_le_bytes().to_vec();
            b.extend_from_slice(&total_len.to_le_bytes());
            (FLAG_OVERFLOW, b)
        }
    };
    let mut r = Vec::with_capacity(LEAF_HEADER + key.len() + bytes.len());
    r.extend_from_slice(&(key.len() as u16).to_le_bytes());
    r.push(flags);
    r.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    r.extend_from_slice(key);
    r.extend_from_slice(&bytes);
    r
}

pub fn internal_record(key: &[u8], child: u32) -> Vec<u8> {
    assert!(key.len() <= KEY_MAX);
    let mut r = Vec::with_capacity(INTERNAL_HEADER + key.len());
    r.extend_from_slice(&(key.len() as u16).to_le_bytes());
    r.extend_from_slice(&child.to_le_bytes());
    r.extend_from_slice(key);
    r
}

/// Whether a leaf record of this key and inline value size fits the record limit.
pub fn fits_inline(key_len: usize, value_len: usize) -> bool {
    LEAF_HEADER + key_len + value_len <= RECORD_MAX
}

/// Bytes available for records and slots, counting garbage (reclaimable).
pub fn free_bytes(p: &[u8]) -> usize {
    heap_top(p) - (SLOTS_START + SLOT * n_slots(p)) + garbage(p)
}

/// Bytes used by records and slots.
pub fn used_bytes(p: &[u8]) -> usize {
    PAGE_SIZE - SLOTS_START - free_bytes(p)
}

/// Whether a record of `len` bytes can be inserted (possibly after compaction).
pub fn has_room(p: &[u8], len: usize) -> bool {
    free_bytes(p) >= len + SLOT
}

/// Rewrites the heap without garbage, keeping slot order: record i goes right below
/// record i - 1, from the end of the page down. The records are read from a copy of
/// the page on the stack (16 KiB; every thread that changes pages has at least the
/// default 2 MiB stack), not gathered into one heap allocation per record as before:
/// an update that changes a record's length is logged as remove + insert and compacts
/// often (same-length updates are overwritten in place since), and those allocations
/// were a visible share of a write transaction's CPU. The layout is the same as before.
fn compact(p: &mut [u8]) {
    assert_eq!(p.len(), PAGE_SIZE, "compact of a partial page");
    let n = n_slots(p);
    let mut copy = [0u8; PAGE_SIZE];
    copy.copy_from_slice(p);
    let mut top = PAGE_SIZE;
    for i in 0..n {
        let r = record(&copy, i);
        top -= r.len();
        p[top..top + r.len()].copy_from_slice(r);
        put_u16(p, SLOTS_START + SLOT * i, top as u16);
    }
    set_heap_top(p, top);
    put_u16(p, OFF_GARBAGE, 0);
}

/// Inserts `rec` as slot `pos`. The caller checked `has_room`.
pub fn insert_at(p: &mut [u8], pos: usize, rec: &[u8]) {
    let n = n_slots(p);
    assert!(pos <= n && has_room(p, rec.len()), "insert_at without room");
    if heap_top(p) - (SLOTS_START + SLOT * n) < rec.len() + SLOT {
        compact(p);
    }
    let top = heap_top(p) - rec.len();
    p[top..top + rec.len()].copy_from_slice(rec);
    set_heap_top(p, top);
    let s = SLOTS_START + SLOT * pos;
    p.copy_within(s..SLOTS_START + SLOT * n, s + SLOT);
    put_u16(p, s, top as u16);
    let h = if is_leaf(p) {
        LEAF_HEADER
    } else {
        INTERNAL_HEADER
    };
    let key_len = u16::from_le_bytes([rec[0], rec[1]]) as usize;
    put_u64(p, s + 2, key_prefix(&rec[h..h + key_len]));
    put_u16(p, OFF_N_SLOTS, (n + 1) as u16);
}

/// Removes slot `pos`; its bytes become garbage.
pub fn remove_at(p: &mut [u8], pos: usize) {
    let n = n_slots(p);
    assert!(pos < n);
    let len = record(p, pos).len();
    let off = slot(p, pos);
    let s = SLOTS_START + SLOT * pos;
    p.copy_within(s + SLOT..SLOTS_START + SLOT * n, s);
    put_u16(p, OFF_N_SLOTS, (n - 1) as u16);
    if off == heap_top(p) {
        set_heap_top(p, off + len);
    } else {
        put_u16(p, OFF_GARBAGE, (garbage(p) + len) as u16);
    }
}

/// Removes slots [from, to), the last first: exactly `remove_at(to - 1)`, …,
/// `remove_at(from)` (the redo ops `RemoveRange` and `Truncate`).
pub fn remove_range(p: &mut [u8], from: usize, to: usize) {
    assert!(
        from <= to && to <= n_slots(p),
        "remove_range outside the slots"
    );
    for i in (from..to).rev() {
        remove_at(p, i);
    }
}

/// The part of record `pos` that `overwrite_at` may change, as offsets in the record:
/// a leaf record's stored bytes, an internal record's child. The rest (lengths, flags,
/// key) frames the record and feeds the slot's prefix, so it never changes in place.
pub fn value_span(p: &[u8], pos: usize) -> (usize, usize) {
    let off = slot(p, pos);
    if is_leaf(p) {
        (
            LEAF_HEADER + get_u16(p, off) as usize,
            record_len_at(p, off),
        )
    } else {
        (2, INTERNAL_HEADER)
    }
}

/// Overwrites bytes [at, at + bytes.len()) of record `pos` in place (same length: the
/// heap and the slots do not move). The span must lie in `value_span`.
pub fn overwrite_at(p: &mut [u8], pos: usize, at: usize, bytes: &[u8]) {
    assert!(pos < n_slots(p), "overwrite_at past the last slot");
    let (lo, hi) = value_span(p, pos);
    assert!(
        lo <= at && at + bytes.len() <= hi,
        "overwrite_at outside the record's value"
    );
    let off = slot(p, pos) + at;
    p[off..off + bytes.len()].copy_from_slice(bytes);
}

/// How replacing record `pos` by `rec` (same key) can be done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replace {
    /// `rec` is the record already there: nothing to do.
    Same,
    /// Only bytes [at, at + len) of the record differ, all inside its value:
    /// `overwrite_at` with `rec[at..at + len]`.
    InPlace { at: usize, len: usize },
    /// Different length or framing: remove and insert.
    Move,
}

/// Compares record `pos` with its replacement `rec`; the changed span is the smallest
/// one covering every differing byte (one span: a deterministic choice that costs the
/// unchanged bytes between two changes, never more than the whole value).
pub fn replace_kind(p: &[u8], pos: usize, rec: &[u8]) -> Replace {
    let old = record(p, pos);
    if old.len() != rec.len() {
        return Replace::Move;
    }
    let Some(first) = old.iter().zip(rec).position(|(a, b)| a != b) else {
        return Replace::Same;
    };
    let last = old.len()
        - old
            .iter()
            .rev()
            .zip(rec.iter().rev())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
    let (lo, hi) = value_span(p, pos);
    if first < lo || last > hi {
        return Replace::Move;
    }
    Replace::InPlace {
        at: first,
        len: last - first,
    }
}

/// Moves records [from, n) of `src` to the empty node `dst` (same level).
pub fn move_tail(src: &mut [u8], from: usize, dst: &mut [u8]) {
    assert_eq!(n_slots(dst), 0);
    let n = n_slots(src);
    for i in from..n {
        let r = record(src, i).to_vec();
        insert_at(dst, i - from, &r);
    }
    for i in (from..n).rev() {
        remove_at(src, i);
    }
}

/// The slot at which to split so both halves hold about half the bytes.
pub fn split_point(p: &[u8]) -> usize {
    let n = n_slots(p);
    assert!(n >= 2, "splitting a node with fewer than two records");
    let total: usize = (0..n).map(|i| record(p, i).len() + SLOT).sum();
    let mut acc = 0;
    for i in 0..n {
        acc += record(p, i).len() + SLOT;
        if acc >= total / 2 {
            return (i + 1).clamp(1, n - 1);
        }
    }
    n / 2
}

/// Checks, without panicking, that the node's structure is usable: the slot array
/// and every record lie inside the page, records do not overlap, and the heap
/// accounting adds up. (Key order is `check`'s business: an unordered page cannot
/// make the node functions go out of bounds.) Recovery runs this on every node page it
/// reads from disk before applying redo to it.
pub fn validate(p: &[u8]) -> Result<(), &'static str> {
    if p.len() != PAGE_SIZE {
        return Err("not a page");
    }
    let n = n_slots(p);
    let top = heap_top(p);
    if top > PAGE_SIZE || SLOTS_START + SLOT * n > top {
        return Err("slot array overlaps the heap");
    }
    let header = if is_leaf(p) {
        LEAF_HEADER
    } else {
        INTERNAL_HEADER
    };
    let mut spans: Vec<(usize, usize)> = Vec::with_capacity(n);
    for i in 0..n {
        let off = slot(p, i);
        if off < top || off + header > PAGE_SIZE {
            return Err("record outside the heap");
        }
        let key_len = get_u16(p, off) as usize;
        let len = if is_leaf(p) {
            let stored = get_u32(p, off + 3) as usize;
            if p[off + 2] & FLAG_OVERFLOW != 0 && stored != OVERFLOW_REF_LEN {
                return Err("bad overflow reference");
            }
            header
                .checked_add(key_len)
                .and_then(|x| x.checked_add(stored))
        } else {
            Some(header + key_len)
        };
        match len {
            Some(len) if off + len <= PAGE_SIZE => spans.push((off, len)),
            _ => return Err("record runs past the page"),
        }
    }
    spans.sort_unstable();
    if spans.windows(2).any(|w| w[0].0 + w[0].1 > w[1].0) {
        return Err("records overlap");
    }
    let live: usize = spans.iter().map(|s| s.1).sum();
    if live + garbage(p) != PAGE_SIZE - top {
        return Err("heap accounting does not add up");
    }
    Ok(())
}

/// Verifies the invariants in the module comment. Panics with a description.
pub fn check(p: &[u8]) {
    if let Err(what) = validate(p) {
        panic!("{what}");
    }
    let n = n_slots(p);
    let top = heap_top(p);
    assert!(
        SLOTS_START + SLOT * n <= top,
        "slot array overlaps the heap"
    );
    for i in 0..n {
        assert_eq!(
            slot_prefix(p, i),
            key_prefix(key(p, i)),
            "slot {i}: prefix is not its key's"
        );
    }
    let mut spans: Vec<(usize, usize)> = Vec::with_capacity(n);
    for i in 0..n {
        let off = slot(p, i);
        let len = record_len_at(p, off);
        assert!(
            off >= top && off + len <= PAGE_SIZE,
            "record {i} outside the heap"
        );
        spans.push((off, len));
        if i > 0 {
            assert!(key(p, i - 1) < key(p, i), "keys out of order at slot {i}");
        }
    }
    spans.sort();
    for w in spans.windows(2) {
        assert!(w[0].0 + w[0].1 <= w[1].0, "records overlap");
    }
    let live: usize = spans.iter().map(|s| s.1).sum();
    assert_eq!(live + garbage(p), PAGE_SIZE - top, "heap accounting");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::PageBuf;
    use std::collections::BTreeMap;

    fn leaf() -> Box<PageBuf> {
        let mut b = PageBuf::zeroed();
        init(&mut b.0, PageId::new(1, 5), 9, 0);
        b
    }

    /// `search` (interpolation, then bisection) answers as a linear scan does, for key
    /// sets that interpolate well (dense integers), badly (skewed, shared prefixes,
    /// prefixes that tie) and for targets between, below and above every key.
    #[test]
    fn search_agrees_with_a_linear_scan() {
        let sets: Vec<Vec<Vec<u8>>> = vec![
            (1..=200u32).map(|i| i.to_be_bytes().to_vec()).collect(),
            (0..150u64)
                .map(|i| (i * i * i).to_be_bytes().to_vec())
                .collect(),
            (0..120u32)
                .map(|i| format!("user:{:06}", i * 7).into_bytes())
                .collect(),
            (0..100u32)
                .map(|i| [&b"samepref"[..], &i.to_be_bytes()].concat())
                .collect(),
            (0..64u32)
                .map(|i| vec![i as u8; 1 + (i as usize % 5)])
                .collect(),
            (0..16u32)
                .map(|i| (i * 1000).to_be_bytes().to_vec())
                .collect(),
        ];
        for keys in sets {
            let mut keys = keys;
            keys.sort();
            keys.dedup();
            let mut b = leaf();
            for (i, k) in keys.iter().enumerate() {
                insert_at(&mut b.0, i, &leaf_record(k, Stored::Inline(b"v")));
            }
            check(&b.0);
            let mut targets: Vec<Vec<u8>> = keys.clone();
            for k in &keys {
                let mut up = k.clone();
                up.push(0);
                targets.push(up);
                let mut down = k.clone();
                if let Some(l) = down.last_mut() {
                    *l = l.wrapping_sub(1);
                }
                targets.push(down);
            }
            targets.extend([vec![], vec![0xff; 12], vec![0x00]]);
            for t in &targets {
                let want = keys.binary_search(t);
                assert_eq!(search(&b.0, t), want, "target {t:?}");
                assert_eq!(
                    search(&OptPage::of(&b), t),
                    want,
                    "latch-free, target {t:?}"
                );
            }
        }
    }

    #[test]
    fn insert_remove_compact_against_a_model() {
        let mut b = leaf();
        let p = &mut b.0;
        let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        let mut x = 12345u64;
        for step in 0..20000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let k = format!("k{:05}", x % 500).into_bytes();
            let vlen = (x >> 20) as usize % 300;
            match search(p, &k) {
                Ok(i) => {
                    remove_at(p, i);
                    model.remove(&k);
                }
                Err(i) => {
                    let v = vec![(step % 251) as u8; vlen];
                    let r = leaf_record(&k, Stored::Inline(&v));
                    if has_room(p, r.len()) {
                        insert_at(p, i, &r);
                        model.insert(k, v);
                    }
                }
            }
            if step % 97 == 0 {
                check(p);
            }
        }
        check(p);
        assert_eq!(n_slots(p), model.len());
        for (i, (k, v)) in model.iter().enumerate() {
            assert_eq!(key(p, i), &k[..]);
            assert_eq!(leaf_value(p, i), Stored::Inline(v));
        }
    }

    /// Compaction stacks the records from the end of the page down in slot order and
    /// leaves no garbage; the records' bytes and their order are kept.
    #[test]
    fn compact_layout_is_slot_order_from_the_page_end() {
        let mut b = leaf();
        let p = &mut b.0;
        for i in 0..60u32 {
            let k = format!("{i:04}").into_bytes();
            let r = leaf_record(&k, Stored::Inline(&vec![i as u8; (i as usize * 7) % 90]));
            insert_at(p, i as usize, &r);
        }
        for i in (0..60).step_by(3).rev() {
            remove_at(p, i);
        }
        assert!(get_u16(p, OFF_GARBAGE) > 0);
        let before: Vec<Vec<u8>> = (0..n_slots(p)).map(|i| record(p, i).to_vec()).collect();
        compact(p);
        check(p);
        assert_eq!(get_u16(p, OFF_GARBAGE), 0);
        let mut top = PAGE_SIZE;
        for (i, r) in before.iter().enumerate() {
            top -= r.len();
            assert_eq!(slot(p, i), top, "slot {i}");
            assert_eq!(record(p, i), &r[..]);
        }
        assert_eq!(heap_top(p), top);
        assert_eq!(n_slots(p), before.len());
    }

    #[test]
    fn split_moves_half_and_internal_routing() {
        let mut b = leaf();
        let p = &mut b.0;
        let mut i = 0u32;
        loop {
            let k = format!("{i:08}").into_bytes();
            let r = leaf_record(&k, Stored::Inline(&[7u8; 100]));
            if !has_room(p, r.len()) {
                break;
            }
            let n = n_slots(p);
            insert_at(p, n, &r);
            i += 1;
        }
        let n = n_slots(p);
        let at = split_point(p);
        let mut right = leaf();
        move_tail(p, at, &mut right.0);
        check(p);
        check(&right.0);
        assert_eq!(n_slots(p) + n_slots(&right.0), n);
        assert!(n_slots(p).abs_diff(n_slots(&right.0)) <= 1);

        let mut node = PageBuf::zeroed();
        init(&mut node.0, PageId::new(1, 6), 9, 1);
        set_leftmost(&mut node.0, 10);
        insert_at(&mut node.0, 0, &internal_record(b"m", 11));
        insert_at(&mut node.0, 1, &internal_record(b"t", 12));
        assert_eq!(child_for(&node.0, b"a"), 10);
        assert_eq!(child_for(&node.0, b"m"), 11);
        assert_eq!(child_for(&node.0, b"p"), 11);
        assert_eq!(child_for(&node.0, b"z"), 12);
        check(&node.0);
    }

    #[test]
    fn limits_guarantee_four_records_per_page() {
        let mut b = leaf();
        let big = vec![1u8; RECORD_MAX - LEAF_HEADER - 4];
        for i in 0..4u32 {
            let r = leaf_record(&i.to_be_bytes(), Stored::Inline(&big));
            assert_eq!(r.len(), RECORD_MAX);
            assert!(has_room(&b.0, r.len()), "record {i}");
            insert_at(&mut b.0, i as usize, &r);
        }
        check(&b.0);
        assert!(fits_inline(10, 100));
        assert!(!fits_inline(10, RECORD_MAX));
    }
}
