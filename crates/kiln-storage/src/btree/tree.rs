//! A B+tree over byte-string keys: lookups, inserts, upserts, deletes (one key, or a
//! range: tree/range_delete.rs), range cursors.
//!
//! The root page never moves (its number is registered in the tablespace header); a
//! root split copies the root's records into two new children and the root grows a
//! level. Keys are unique, compared as bytes (callers encode them memcomparably).
//!
//! Concurrency without a tree-wide lock (design note: `docs/btree.md`):
//! - Readers descend with S latches, coupling (child latched before the parent is
//!   released). They never hold two pages of one level.
//! - Writers first try optimistically: S-couple down to the leaf's parent, X-latch the
//!   leaf, change it if it has room. Most inserts and deletes end there.
//! - Otherwise (a split, unlinking an emptied leaf, merging a sparse one) they restart
//!   pessimistically:
//!   X-latch from the root down, releasing the ancestors above any node that cannot
//!   be changed by the operation ("safe"), all in one mini-transaction.
//! - Latch order: top-down, and left-to-right within a level. The right-to-left
//!   latches (the left neighbour of an emptied leaf, or of a sparse one to merge into)
//!   are only tried, never waited for.
//! - Cursors do not hold latches between calls: they copy a leaf's records and come
//!   back by key, using the fence keys met on the way down, so they never follow
//!   sibling pointers and cannot land on a page that was freed meanwhile.

use std::collections::VecDeque;
use std::ops::Bound;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use super::blob;
use super::node::{self, NodeBytes, OptValue, Stored};
use crate::buf::optimistic::OptPage;
use crate::buf::{BufError, BufferPool, Optimistic, PageRead};
use crate::log::Log;
use crate::log::record::Op;
use crate::mtr::{Mtr, Slot};
use crate::page::{self, FIL_NULL, OFF_NEXT, OFF_PREV, PageId, PageType, get_u32};
use crate::space::Space;

mod estimate;
mod merge;
mod opt;
mod prefetch;
mod range_delete;
pub use estimate::SizeEstimate;
pub use prefetch::LeafPrefetch;

#[derive(Debug)]
pub enum TreeError {
    Buf(BufError),
    DuplicateKey,
    /// `create` of an index id that the tablespace already has (or a full registry).
    IndexExists(u64),
    KeyTooLong(usize),
    ValueTooLong(u64),
    /// A page that should belong to this tree does not (wrong type, index or level).
    Corrupt(PageId, &'static str),
}

impl std::fmt::Display for TreeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TreeError::Buf(e) => write!(f, "{e}"),
            TreeError::DuplicateKey => write!(f, "duplicate key"),
            TreeError::IndexExists(id) => write!(
                f,
                "index {id} exists already (or the tablespace holds the most trees it can)"
            ),
            TreeError::KeyTooLong(n) => {
                write!(f, "key of {n} bytes exceeds {} bytes", node::KEY_MAX)
            }
            TreeError::ValueTooLong(n) => {
                write!(f, "value of {n} bytes exceeds {} bytes", blob::VALUE_MAX)
            }
            TreeError::Corrupt(id, what) => write!(f, "B+tree page {id} is corrupt: {what}"),
        }
    }
}

impl std::error::Error for TreeError {}

impl From<BufError> for TreeError {
    fn from(e: BufError) -> Self {
        TreeError::Buf(e)
    }
}

pub type Result<T> = std::result::Result<T, TreeError>;

/// A condition on a stored value (`delete_if`).
type ValuePred<'a> = &'a dyn Fn(&[u8]) -> bool;

/// A leaf for a cursor: S-latched, with its fences (lo ≤ keys < hi).
type ScanLeaf = (PageRead, Option<Vec<u8>>, Option<Vec<u8>>);

/// An open B+tree.
pub struct BTree {
    pool: Arc<BufferPool>,
    log: Arc<Log>,
    space: Arc<Space>,
    index_id: u64,
    root: u32,
    /// The page number of the rightmost leaf as the last write found it (FIL_NULL:
    /// none known). A hint only, checked under the leaf's X latch before use
    /// (`append_leaf`): keys at or past that leaf's first key go there without a
    /// descent — appends by an ascending key (auto-increment rows, undo records).
    append_hint: AtomicU32,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Insert,
    Upsert,
}

/// What `check` found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct TreeStats {
    pub height: usize,
    pub leaves: usize,
    pub internal: usize,
    pub records: usize,
}

/// A non-root leaf using fewer bytes than this (records and slots) after a delete is
/// merged with a sibling if possible.
const MERGE_BELOW: usize = (crate::page::PAGE_SIZE - node::SLOTS_START) / 4;
/// Two leaves merge only if the result uses at most this much (room left for inserts).
const MERGE_INTO: usize = (crate::page::PAGE_SIZE - node::SLOTS_START) * 3 / 4;

/// Outcome of a latch-free attempt.
enum Opt<T> {
    Done(T),
    /// A page changed under the reader: try again.
    Retry,
    /// Not possible latch-free (a page not cached, an overflow value, ...): take the
    /// latched path.
    Fallback,
}

/// Latch-free attempts before an operation takes the latched path.
const OPTIMISTIC_TRIES: usize = 4;
/// Deepest tree a descent walks (bounds a loop over possibly torn reads).
const HEIGHT_MAX: usize = 32;

/// The child to visit for a cursor at `start` in internal node `p`, and that child's
/// fences as far as `p` knows them (lo ≤ keys < hi; None: inherited from above).
fn scan_child<P: NodeBytes + ?Sized>(
    p: &P,
    start: &Bound<Vec<u8>>,
    descending: bool,
) -> (u32, Option<Vec<u8>>, Option<Vec<u8>>) {
    let n = p.node_slots();
    // Ascending wants the subtree holding `start`; descending the one holding the
    // largest key below (or at) `start`.
    let idx: isize = match (start, descending) {
        (Bound::Unbounded, false) => -1,
        (Bound::Unbounded, true) => n as isize - 1,
        (Bound::Included(k) | Bound::Excluded(k), false) | (Bound::Included(k), true) => {
            match node::search(p, k) {
                Ok(i) => i as isize,
                Err(i) => i as isize - 1,
            }
        }
        (Bound::Excluded(k), true) => match node::search(p, k) {
            Ok(i) | Err(i) => i as isize - 1,
        },
    };
    let lo = (idx >= 0).then(|| p.node_key(idx as usize));
    let hi = (((idx + 1) as usize) < n).then(|| p.node_key((idx + 1) as usize));
    let child = if idx < 0 {
        p.node_leftmost()
    } else {
        p.node_child(idx as usize)
    };
    (child, lo, hi)
}

/// The shortest key `s` with `left < s <= right` (suffix truncation of separators).
fn separator(left: &[u8], right: &[u8]) -> Vec<u8> {
    debug_assert!(left < right);
    let common = left.iter().zip(right).take_while(|(a, b)| a == b).count();
    right[..(common + 1).min(right.len())].to_vec()
}

/// What `BTree::probe` found for a key about to be inserted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// An entry is stored under the key.
    Exists,
    /// No entry; the key of the next one, None if none follows.
    Next(Option<Vec<u8>>),
}

impl BTree {
    /// Creates an empty tree (one leaf, the root) in `space` and registers it.
    pub fn create(
        pool: &Arc<BufferPool>,
        log: &Arc<Log>,
        space: &Arc<Space>,
        index_id: u64,
    ) -> Result<BTree> {
        log.free_check();
        let mut mtr = Mtr::new(pool, log);
        if !space.can_register(&mut mtr, index_id)? {
            return Err(TreeError::IndexExists(index_id));
        }
        let s = space.allocate(&mut mtr)?;
        mtr.apply(s, Op::InitNode { index_id, level: 0 });
        let root = mtr.id(s).page_no;
        space.register_root(&mut mtr, index_id, root)?;
        mtr.commit();
        Ok(BTree {
            pool: pool.clone(),
            log: log.clone(),
            space: space.clone(),
            index_id,
            root,
            append_hint: AtomicU32::new(FIL_NULL),
        })
    }

    /// Opens the tree registered for `index_id`, if any.
    pub fn open(
        pool: &Arc<BufferPool>,
        log: &Arc<Log>,
        space: &Arc<Space>,
        index_id: u64,
    ) -> Result<Option<BTree>> {
        let Some(root) = space.root_of(index_id)? else {
            return Ok(None);
        };
        Ok(Some(BTree {
            pool: pool.clone(),
            log: log.clone(),
            space: space.clone(),
            index_id,
            root,
            append_hint: AtomicU32::new(FIL_NULL),
        }))
    }

    pub fn index_id(&self) -> u64 {
        self.index_id
    }

    /// The tablespace the tree is in.
    pub fn space_id(&self) -> u32 {
        self.space.id
    }

    fn page_id(&self, page_no: u32) -> PageId {
        PageId::new(self.space.id, page_no)
    }

    fn validate(&self, p: &[u8], id: PageId, level: Option<u16>) -> Result<()> {
        if page::page_type(p) != Some(PageType::Index) {
            return Err(TreeError::Corrupt(id, "not an index page"));
        }
        if node::index_id(p) != self.index_id {
            return Err(TreeError::Corrupt(id, "page of another index"));
        }
        if level.is_some_and(|l| node::level(p) != l) {
            return Err(TreeError::Corrupt(id, "unexpected level"));
        }
        Ok(())
    }

    fn fetch_child(&self, parent: &[u8], child: u32) -> Result<PageRead> {
        let id = self.page_id(child);
        let p = self.pool.fetch_read(id)?;
        self.validate(&p, id, Some(node::level(parent) - 1))?;
        Ok(p)
    }

    /// S-latched leaf whose key range holds `key`.
    fn leaf_for_read(&self, key: &[u8]) -> Result<PageRead> {
        let id = self.page_id(self.root);
        let mut p = self.pool.fetch_read(id)?;
        self.validate(&p, id, None)?;
        while !node::is_leaf(&p) {
            let c = node::child_for(&p[..], key);
            p = self.fetch_child(&p, c)?;
        }
        Ok(p)
    }

    /// The page number of the leaf whose key range holds `key`, found through the
    /// internal levels (S-latched one at a time, read from disk if need be) without
    /// reading the leaf itself: what a batch reads ahead (`prefetch_leaves`). None if
    /// the root is the leaf.
    pub fn leaf_page_no(&self, key: &[u8]) -> Result<Option<u32>> {
        let id = self.page_id(self.root);
        let mut p = self.pool.fetch_read(id)?;
        self.validate(&p, id, None)?;
        if node::is_leaf(&p) {
            return Ok(None);
        }
        loop {
            let c = node::child_for(&p[..], key);
            if node::level(&p) == 1 {
                return Ok(Some(c));
            }
            p = self.fetch_child(&p, c)?;
        }
    }

    /// Reads the leaves of `keys` that are not cached in one batch (io_uring or the
    /// I/O threads) instead of one synchronous read per key when each is used.
    /// Best effort: a failure here is left to the real read to report. Returns the
    /// pages read.
    pub fn prefetch_leaves<K: AsRef<[u8]>>(&self, keys: &[K]) -> usize {
        let mut pages: Vec<u32> = keys
            .iter()
            .filter_map(|k| self.leaf_page_no(k.as_ref()).ok().flatten())
            .collect();
        pages.sort_unstable();
        pages.dedup();
        self.pool.prefetch_pages(self.space.id, &pages).unwrap_or(0)
    }

    /// The rightmost leaf, X-latched in `mtr`, if the append hint names it and `key`
    /// belongs there. The rightmost leaf holds every key from its lower fence on, and
    /// its first key is at or above that fence, so a key at or past its first key is
    /// its key. Everything is checked under the latch: a page that was split (it has a
    /// right sibling now), merged away and freed (no longer an index page), or reused
    /// by another index fails the check, and the caller descends instead.
    fn append_leaf(&self, mtr: &mut Mtr, key: &[u8]) -> Option<Slot> {
        let hint = self.append_hint.load(Ordering::Relaxed);
        if hint == FIL_NULL {
            return None;
        }
        let s = mtr.x_latch(self.page_id(hint)).ok()?;
        if self.is_rightmost_leaf_for(mtr.page(s), hint, key) {
            return Some(s);
        }
        mtr.release(s);
        self.forget_hint(hint);
        None
    }

    /// A hint that did not fit is dropped, so that writes at random keys (which set
    /// none: `note_leaf`) do not pay a wasted latch each.
    fn forget_hint(&self, hint: u32) {
        let _ =
            self.append_hint
                .compare_exchange(hint, FIL_NULL, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// `append_leaf` for a read: the rightmost leaf, S-latched, if the hint names it
    /// and `key` belongs there.
    fn append_leaf_read(&self, key: &[u8]) -> Option<PageRead> {
        let hint = self.append_hint.load(Ordering::Relaxed);
        if hint == FIL_NULL {
            return None;
        }
        let p = self.pool.fetch_read(self.page_id(hint)).ok()?;
        if self.is_rightmost_leaf_for(&p, hint, key) {
            return Some(p);
        }
        self.forget_hint(hint);
        None
    }

    /// Whether latched page `p` (page number `page_no`) is this tree's rightmost leaf
    /// and `key` belongs there.
    fn is_rightmost_leaf_for(&self, p: &[u8], page_no: u32, key: &[u8]) -> bool {
        self.validate(p, self.page_id(page_no), Some(0)).is_ok()
            && get_u32(p, OFF_NEXT) == FIL_NULL
            && node::n_slots(p) > 0
            && key >= node::key(p, 0)
    }

    /// Remembers leaf `s` for `append_leaf` if it is the rightmost and `key` goes past
    /// its last entry: an append, likely followed by more.
    fn note_leaf(&self, mtr: &Mtr, s: Slot, key: &[u8]) {
        let p = mtr.page(s);
        let n = node::n_slots(p);
        if get_u32(p, OFF_NEXT) == FIL_NULL && (n == 0 || key > node::key(p, n - 1)) {
            self.append_hint.store(mtr.id(s).page_no, Ordering::Relaxed);
        }
    }

    /// The leaf for `key`, X-latched in `mtr` (which holds nothing else yet): the
    /// rightmost leaf directly when the append hint fits, else `descend_for_write`.
    fn leaf_for_write(&self, mtr: &mut Mtr, key: &[u8]) -> Result<Slot> {
        if let Some(s) = self.append_leaf(mtr, key) {
            return Ok(s);
        }
        let s = self.descend_for_write(mtr, key)?;
        self.note_leaf(mtr, s, key);
        Ok(s)
    }

    /// Optimistic write path: the leaf for `key`, X-latched in `mtr`, reached with S
    /// latches above it.
    fn descend_for_write(&self, mtr: &mut Mtr, key: &[u8]) -> Result<Slot> {
        for _ in 0..OPTIMISTIC_TRIES {
            let parent = match self.descend_opt(|p| node::child_for(p, key)) {
                Opt::Done(p) => p,
                Opt::Retry => continue,
                Opt::Fallback => break,
            };
            let pp = parent.page();
            if pp.node_level() == 0 {
                break; // the root is the leaf: the latched path below
            }
            let c = node::child_for(&pp, key);
            if !parent.validate() {
                continue;
            }
            // Latch the leaf, then check that the parent still routes `key` to it:
            // moving keys out of a leaf (split, merge) changes its parent.
            let s = mtr.x_latch(self.page_id(c));
            if !parent.validate() {
                if let Ok(s) = s {
                    mtr.release(s);
                }
                continue;
            }
            let s = s?;
            let id = mtr.id(s);
            self.validate(mtr.page(s), id, Some(0))?;
            return Ok(s);
        }
        let root_id = self.page_id(self.root);
        loop {
            let root = self.pool.fetch_read(root_id)?;
            self.validate(&root, root_id, None)?;
            if node::is_leaf(&root) {
                drop(root);
                let s = mtr.x_latch(root_id)?;
                if node::is_leaf(mtr.page(s)) {
                    return Ok(s);
                }
                mtr.release(s); // the root split while we switched latches
                continue;
            }
            let mut p = root;
            loop {
                let c = node::child_for(&p[..], key);
                if node::level(&p) == 1 {
                    let s = mtr.x_latch(self.page_id(c))?;
                    let id = mtr.id(s);
                    self.validate(mtr.page(s), id, Some(0))?;
                    return Ok(s);
                }
                p = self.fetch_child(&p, c)?;
            }
        }
    }

    /// For an insert of `key`: whether an entry (delete-marked ones included) is
    /// stored under it, and if not, the key of the first entry after it (None: no
    /// entry follows; the supremum). One latched descent where `get` followed by a
    /// `range` cursor cost two descents and a leaf batch copy; the answer is a
    /// snapshot that the caller re-checks under its locks, as with `get`.
    pub fn probe(&self, key: &[u8]) -> Result<Probe> {
        {
            let leaf = match self.append_leaf_read(key) {
                Some(leaf) => leaf,
                None => self.leaf_for_read(key)?,
            };
            match node::search(&leaf[..], key) {
                Ok(_) => return Ok(Probe::Exists),
                Err(i) if i < node::n_slots(&leaf) => {
                    return Ok(Probe::Next(Some(node::key(&leaf, i).to_vec())));
                }
                // Past the rightmost leaf's last entry (an append: auto-increment
                // keys): nothing follows, without a second descent.
                Err(_) if get_u32(&leaf, OFF_NEXT) == FIL_NULL => {
                    return Ok(Probe::Next(None));
                }
                Err(_) => {} // past this leaf's last entry: the next leaf decides
            }
        }
        let next = self
            .range(Bound::Excluded(key), Bound::Unbounded, false)
            .next()
            .transpose()?;
        Ok(Probe::Next(next.map(|(k, _)| k)))
    }

    /// The value stored for `key`.
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        for _ in 0..OPTIMISTIC_TRIES {
            match self.get_opt(key)? {
                Opt::Done(v) => return Ok(v),
                Opt::Retry => continue,
                Opt::Fallback => break,
            }
        }
        let leaf = self.leaf_for_read(key)?;
        match node::search(&leaf[..], key) {
            Ok(i) => Ok(Some(self.materialize(node::leaf_value(&leaf, i))?)),
            Err(_) => Ok(None),
        }
    }

    fn materialize(&self, v: Stored<'_>) -> Result<Vec<u8>> {
        match v {
            Stored::Inline(b) => Ok(b.to_vec()),
            Stored::Overflow {
                first_page,
                total_len,
            } => Ok(blob::read(
                &self.pool,
                self.space.id,
                first_page,
                total_len,
            )?),
        }
    }

    fn leaf_record_for(&self, key: &[u8], value: &[u8]) -> Result<(Vec<u8>, Option<u32>)> {
        if key.len() > node::KEY_MAX {
            return Err(TreeError::KeyTooLong(key.len()));
        }
        if value.len() as u64 > blob::VALUE_MAX {
            return Err(TreeError::ValueTooLong(value.len() as u64));
        }
        if node::fits_inline(key.len(), value.len()) {
            return Ok((node::leaf_record(key, Stored::Inline(value)), None));
        }
        let first = blob::write(&self.pool, &self.log, &self.space, value)?;
        let rec = node::leaf_record(
            key,
            Stored::Overflow {
                first_page: first,
                total_len: value.len() as u64,
            },
        );
        Ok((rec, Some(first)))
    }

    /// Inserts a new key; `DuplicateKey` if it exists. Returns the commit LSN.
    pub fn insert(&self, key: &[u8], value: &[u8]) -> Result<u64> {
        self.put(key, value, Mode::Insert)
    }

    /// Inserts or replaces. Returns the commit LSN.
    pub fn upsert(&self, key: &[u8], value: &[u8]) -> Result<u64> {
        self.put(key, value, Mode::Upsert)
    }

    fn put(&self, key: &[u8], value: &[u8], mode: Mode) -> Result<u64> {
        let (rec, chain) = self.leaf_record_for(key, value)?;
        let res = self.put_record(key, &rec, mode);
        if let (Err(_), Some(first)) = (&res, chain) {
            blob::free(&self.pool, &self.log, &self.space, first)?;
        }
        res
    }

    fn put_record(&self, key: &[u8], rec: &[u8], mode: Mode) -> Result<u64> {
        loop {
            self.log.free_check();
            let mut mtr = Mtr::new(&self.pool, &self.log);
            let s = self.leaf_for_write(&mut mtr, key)?;
            match node::search(mtr.page(s), key) {
                Ok(_) if mode == Mode::Insert => return Err(TreeError::DuplicateKey),
                Ok(i) => {
                    let p = mtr.page(s);
                    let old = node::leaf_value(p, i);
                    let old_chain = match old {
                        Stored::Overflow { first_page, .. } => Some(first_page),
                        Stored::Inline(_) => None,
                    };
                    let pos = i as u16;
                    let replace = node::replace_kind(p, i, rec);
                    if replace == node::Replace::Same {
                        // Nothing changes, nothing is logged; an overflow chain it
                        // references is the one it keeps.
                        return Ok(mtr.commit());
                    }
                    if node::free_bytes(p) + node::record(p, i).len() >= rec.len() {
                        if let node::Replace::InPlace { at, len } = replace {
                            // Same length, only the value changed: overwrite in place
                            // and log just the changed bytes (an UPDATE of a few
                            // columns logs those, the trx id and the roll pointer).
                            let bytes = &rec[at..at + len];
                            let at = at as u16;
                            mtr.apply(
                                s,
                                Op::Overwrite {
                                    pos,
                                    off: at,
                                    bytes,
                                },
                            );
                        } else {
                            mtr.apply(s, Op::Remove { pos });
                            mtr.apply(s, Op::Insert { pos, rec });
                        }
                        let lsn = mtr.commit();
                        if let Some(first) = old_chain {
                            blob::free(&self.pool, &self.log, &self.space, first)?;
                        }
                        return Ok(lsn);
                    }
                }
                Err(i) => {
                    if node::has_room(mtr.page(s), rec.len()) {
                        mtr.apply(s, Op::Insert { pos: i as u16, rec });
                        return Ok(mtr.commit());
                    }
                }
            }
            drop(mtr);
            self.make_room(key, rec.len())?;
        }
    }

    /// Pessimistic descent: X-latches the path from the root to the leaf for `key`.
    /// When an internal node is `safe` (the operation cannot change anything above
    /// it), the latches above it are released; the path keeps that node and below.
    fn descend_x(
        &self,
        mtr: &mut Mtr,
        key: &[u8],
        safe: impl Fn(&[u8]) -> bool,
    ) -> Result<Vec<Slot>> {
        self.descend_x_to(mtr, key, 0, safe)
    }

    /// `descend_x` stopping at the node of level `stop` on `key`'s path (or at the root,
    /// if the tree is lower): `safe` is asked of the nodes above `stop`.
    fn descend_x_to(
        &self,
        mtr: &mut Mtr,
        key: &[u8],
        stop: u16,
        safe: impl Fn(&[u8]) -> bool,
    ) -> Result<Vec<Slot>> {
        let root_id = self.page_id(self.root);
        let mut path = vec![mtr.x_latch(root_id)?];
        self.validate(mtr.page(path[0]), root_id, None)?;
        loop {
            let top = *path.last().expect("path holds the root at least");
            if node::level(mtr.page(top)) <= stop {
                return Ok(path);
            }
            let c = node::child_for(mtr.page(top), key);
            let level = node::level(mtr.page(top)) - 1;
            let s = mtr.x_latch(self.page_id(c))?;
            let id = mtr.id(s);
            self.validate(mtr.page(s), id, Some(level))?;
            if level > stop && safe(mtr.page(s)) {
                for a in path.drain(..) {
                    mtr.release(a);
                }
            }
            path.push(s);
        }
    }

    /// Pessimistic path: splits the leaf for `key` (and its ancestors as needed) so
    /// that a record of `need` bytes fits. The caller retries its change.
    fn make_room(&self, key: &[u8], need: usize) -> Result<()> {
        self.log.free_check();
        let mut mtr = Mtr::new(&self.pool, &self.log);
        // An internal node with room for one more separator absorbs a split below.
        let path = self.descend_x(&mut mtr, key, |p| node::has_room(p, node::INTERNAL_MAX))?;
        let leaf = *path.last().unwrap();
        if node::has_room(mtr.page(leaf), need) {
            return Ok(()); // someone else split it meanwhile
        }
        // Take every latch and all the room the splits need before changing anything:
        // the right neighbour of the leaf (left-to-right), then the tablespace header
        // with one page per node on the path plus one for a root split.
        if mtr.id(leaf).page_no != self.root {
            let next = get_u32(mtr.page(leaf), OFF_NEXT);
            if next != FIL_NULL {
                mtr.x_latch(self.page_id(next))?;
            }
        }
        self.space.reserve(&mut mtr, path.len() as u32 + 1)?;
        // Split bottom-up. `pending` is the separator and new right page to insert
        // into the next level up.
        let mut idx = path.len() - 1;
        let mut pending: Option<(Vec<u8>, u32)> = None;
        loop {
            let s = path[idx];
            if let Some((sep, right)) = pending.take() {
                let rec = node::internal_record(&sep, right);
                if node::has_room(mtr.page(s), rec.len()) {
                    let pos =
                        node::search(mtr.page(s), &sep).expect_err("separator already present");
                    mtr.apply(
                        s,
                        Op::Insert {
                            pos: pos as u16,
                            rec: &rec,
                        },
                    );
                    break;
                }
                // This node must split too, then take the separator in one half.
                let (up, left, new) = self.split(&mut mtr, s, &sep)?;
                let target = if sep < up { left } else { new };
                let pos =
                    node::search(mtr.page(target), &sep).expect_err("separator already present");
                mtr.apply(
                    target,
                    Op::Insert {
                        pos: pos as u16,
                        rec: &rec,
                    },
                );
                if mtr.id(s).page_no == self.root {
                    break; // the root grew a level and holds `up` already
                }
                pending = Some((up, mtr.id(new).page_no));
            } else {
                let (up, _, new) = self.split(&mut mtr, s, key)?;
                if mtr.id(s).page_no == self.root {
                    break;
                }
                pending = Some((up, mtr.id(new).page_no));
            }
            assert!(idx > 0, "split needs a parent that the descent released");
            idx -= 1;
        }
        mtr.commit();
        Ok(())
    }

    /// Splits the node in slot `s`, choosing the split point for an insert of
    /// `hint`. Returns (separator for the parent, left slot, right slot). For the root
    /// both halves are new pages and the root becomes their parent (already holding
    /// the separator); otherwise left is `s` itself and right a new page.
    fn split(&self, mtr: &mut Mtr, s: Slot, hint: &[u8]) -> Result<(Vec<u8>, Slot, Slot)> {
        let p = mtr.page(s);
        let n = node::n_slots(p);
        let leaf = node::is_leaf(p);
        let level = node::level(p);
        assert!(n >= 2, "splitting a node of {n} records");
        // Ascending inserts (auto-increment keys) split at the end, so pages fill up
        // instead of staying half empty.
        let at = if hint > node::key(p, n - 1) {
            n - 1
        } else {
            node::split_point(p)
        };
        let records: Vec<Vec<u8>> = (0..n).map(|i| node::record(p, i).to_vec()).collect();
        let keys: Vec<Vec<u8>> = (0..n).map(|i| node::key(p, i).to_vec()).collect();
        let children: Vec<u32> = if leaf {
            Vec::new()
        } else {
            (0..n).map(|i| node::child(p, i)).collect()
        };
        let leftmost = node::leftmost(p);
        let is_root = mtr.id(s).page_no == self.root;

        // Internal nodes hand key(at) up and keep no copy of it; leaves copy a
        // (truncated) separator up and keep every record.
        let (up, right_from) = if leaf {
            (separator(&keys[at - 1], &keys[at]), at)
        } else {
            (keys[at].clone(), at + 1)
        };

        // The right neighbour was latched by `make_room`, before the header.
        let old_next = if leaf && !is_root {
            get_u32(p, OFF_NEXT)
        } else {
            FIL_NULL
        };
        let next_slot = if old_next != FIL_NULL {
            Some(
                mtr.find(self.page_id(old_next))
                    .expect("right neighbour latched before the split"),
            )
        } else {
            None
        };
        let right = self.space.allocate(mtr)?;
        mtr.apply(
            right,
            Op::InitNode {
                index_id: self.index_id,
                level,
            },
        );
        for (j, r) in records[right_from..].iter().enumerate() {
            mtr.apply(
                right,
                Op::Insert {
                    pos: j as u16,
                    rec: r,
                },
            );
        }
        if !leaf {
            mtr.write_u32(right, node::OFF_LEFTMOST, children[at]);
        }
        let left = if is_root {
            let l = self.space.allocate(mtr)?;
            mtr.apply(
                l,
                Op::InitNode {
                    index_id: self.index_id,
                    level,
                },
            );
            for (j, r) in records[..at].iter().enumerate() {
                mtr.apply(
                    l,
                    Op::Insert {
                        pos: j as u16,
                        rec: r,
                    },
                );
            }
            if !leaf {
                mtr.write_u32(l, node::OFF_LEFTMOST, leftmost);
            }
            let (lno, rno) = (mtr.id(l).page_no, mtr.id(right).page_no);
            if leaf {
                mtr.write_u32(l, OFF_NEXT, rno);
                mtr.write_u32(right, OFF_PREV, lno);
            }
            mtr.apply(
                s,
                Op::InitNode {
                    index_id: self.index_id,
                    level: level + 1,
                },
            );
            mtr.write_u32(s, node::OFF_LEFTMOST, lno);
            mtr.apply(
                s,
                Op::Insert {
                    pos: 0,
                    rec: &node::internal_record(&up, rno),
                },
            );
            l
        } else {
            mtr.apply(s, Op::Truncate { from: at as u16 });
            if leaf {
                let rno = mtr.id(right).page_no;
                mtr.write_u32(right, OFF_PREV, mtr.id(s).page_no);
                mtr.write_u32(right, OFF_NEXT, old_next);
                mtr.write_u32(s, OFF_NEXT, rno);
                if let Some(nx) = next_slot {
                    mtr.write_u32(nx, OFF_PREV, rno);
                }
            }
            s
        };
        Ok((up, left, right))
    }

    /// Deletes `key`. Returns the commit LSN if it existed.
    pub fn delete(&self, key: &[u8]) -> Result<Option<u64>> {
        self.delete_where(key, None)
    }

    /// Deletes `key` only if `keep` returns true for its current value, decided under
    /// the leaf's X latch (so no change can slip in between the check and the delete;
    /// purge removes a delete-marked entry only if it is still the same version).
    /// Returns the commit LSN if it deleted.
    pub fn delete_if(&self, key: &[u8], pred: impl Fn(&[u8]) -> bool) -> Result<Option<u64>> {
        self.delete_where(key, Some(&pred))
    }

    fn delete_where(&self, key: &[u8], pred: Option<ValuePred<'_>>) -> Result<Option<u64>> {
        self.log.free_check();
        let mut mtr = Mtr::new(&self.pool, &self.log);
        let s = self.leaf_for_write(&mut mtr, key)?;
        let Ok(i) = node::search(mtr.page(s), key) else {
            return Ok(None);
        };
        // An overflow value is read with the leaf still X-latched (latch order: leaf
        // before its overflow pages).
        if let Some(pred) = pred
            && !pred(&self.materialize(node::leaf_value(mtr.page(s), i))?)
        {
            return Ok(None);
        }
        let chain = match node::leaf_value(mtr.page(s), i) {
            Stored::Overflow { first_page, .. } => Some(first_page),
            Stored::Inline(_) => None,
        };
        let used_before = node::used_bytes(mtr.page(s));
        mtr.apply(s, Op::Remove { pos: i as u16 });
        let (emptied, sparse) = self.leaf_shrunk(&mtr, s, used_before);
        let lsn = mtr.commit();
        if let Some(first) = chain {
            blob::free(&self.pool, &self.log, &self.space, first)?;
        }
        self.tidy_after_delete(key, emptied, sparse);
        Ok(Some(lsn))
    }

    /// What a delete from leaf `s` (which used `used_before` bytes) left to tidy:
    /// (emptied, sparse). Merging is tried when a delete takes the leaf below the
    /// threshold, not on every delete in a leaf that is already sparse: one that could
    /// not merge then (full neighbours) would otherwise pay a pessimistic descent per
    /// delete. It is tried again when the leaf empties (unlink) or refills and drops.
    fn leaf_shrunk(&self, mtr: &Mtr, s: Slot, used_before: usize) -> (bool, bool) {
        let not_root = mtr.id(s).page_no != self.root;
        let emptied = node::n_slots(mtr.page(s)) == 0 && not_root;
        let sparse = !emptied
            && not_root
            && used_before >= MERGE_BELOW
            && node::used_bytes(mtr.page(s)) < MERGE_BELOW;
        (emptied, sparse)
    }

    /// After a committed delete from the leaf covering `key`: unlinks it if `emptied`,
    /// merges it if it became `sparse`, and merges sparse parents up the tree. Best
    /// effort: a failure is not the delete's (the next delete in this leaf tries again).
    fn tidy_after_delete(&self, key: &[u8], emptied: bool, sparse: bool) {
        let tidy = if emptied {
            self.unlink_empty_leaf(key)
        } else if sparse {
            self.merge_leaf(key)
        } else {
            Ok(None)
        };
        let tidy = tidy.and_then(|mut sparse_level| {
            // Merges may cascade up: each one takes an entry out of the parent.
            for _ in 0..HEIGHT_MAX {
                let Some(level) = sparse_level else { break };
                sparse_level = self.merge_internal(key, level)?;
            }
            Ok(())
        });
        if let Err(e) = tidy {
            tracing::warn!(
                "B+tree {}: merging sparse pages after a delete failed: {e}",
                self.index_id
            );
        }
    }

    /// A cursor over keys in `range`, ascending or descending.
    pub fn range(&self, from: Bound<&[u8]>, to: Bound<&[u8]>, descending: bool) -> Cursor<'_> {
        let own = |b: Bound<&[u8]>| match b {
            Bound::Included(k) => Bound::Included(k.to_vec()),
            Bound::Excluded(k) => Bound::Excluded(k.to_vec()),
            Bound::Unbounded => Bound::Unbounded,
        };
        let (start, end) = if descending {
            (own(to), own(from))
        } else {
            (own(from), own(to))
        };
        Cursor {
            tree: self,
            next: Some(start),
            end,
            descending,
            batch: VecDeque::new(),
            batch_max: 8,
        }
    }

    /// Reads one batch for a cursor: records from the leaf where `start` lies, and
    /// where to continue (the leaf's fence in the scan direction).
    fn read_batch(
        &self,
        start: &Bound<Vec<u8>>,
        end: &Bound<Vec<u8>>,
        descending: bool,
        max: usize,
        out: &mut VecDeque<(Vec<u8>, Vec<u8>)>,
    ) -> Result<Option<Bound<Vec<u8>>>> {
        let (p, lo, hi) = self.scan_leaf(start, descending)?;
        let n = node::n_slots(&p);
        let in_start = |k: &[u8]| match start {
            Bound::Unbounded => true,
            Bound::Included(s) => {
                if descending {
                    k <= &s[..]
                } else {
                    k >= &s[..]
                }
            }
            Bound::Excluded(s) => {
                if descending {
                    k < &s[..]
                } else {
                    k > &s[..]
                }
            }
        };
        let in_end = |k: &[u8]| match end {
            Bound::Unbounded => true,
            Bound::Included(e) => {
                if descending {
                    k >= &e[..]
                } else {
                    k <= &e[..]
                }
            }
            Bound::Excluded(e) => {
                if descending {
                    k > &e[..]
                } else {
                    k < &e[..]
                }
            }
        };
        let order: Box<dyn Iterator<Item = usize>> = if descending {
            Box::new((0..n).rev())
        } else {
            Box::new(0..n)
        };
        let mut taken = 0;
        for i in order {
            let k = node::key(&p, i);
            if !in_start(k) {
                continue;
            }
            if !in_end(k) {
                return Ok(None);
            }
            if taken == max {
                // Leaf not finished: continue after the last key returned.
                let last = out.back().map(|(k, _)| k.clone()).expect("max > 0");
                return Ok(Some(Bound::Excluded(last)));
            }
            out.push_back((k.to_vec(), self.materialize(node::leaf_value(&p, i))?));
            taken += 1;
        }
        // Leaf done: the next leaf starts at the fence.
        Ok(if descending {
            lo.map(Bound::Excluded)
        } else {
            hi.map(Bound::Included)
        })
    }

    /// The S-latched leaf a cursor at `start` reads next, with its fences (lo ≤ keys <
    /// hi), reached latch-free above the leaf when possible.
    fn scan_leaf(&self, start: &Bound<Vec<u8>>, descending: bool) -> Result<ScanLeaf> {
        for _ in 0..OPTIMISTIC_TRIES {
            match self.scan_leaf_opt(start, descending)? {
                Opt::Done(r) => return Ok(r),
                Opt::Retry => continue,
                Opt::Fallback => break,
            }
        }
        // Latched: S-coupled from the root.
        let root_id = self.page_id(self.root);
        let mut p = self.pool.fetch_read(root_id)?;
        self.validate(&p, root_id, None)?;
        let (mut lo, mut hi) = (None, None);
        while !node::is_leaf(&p) {
            let (c, l, h) = scan_child(&p[..], start, descending);
            lo = l.or(lo);
            hi = h.or(hi);
            p = self.fetch_child(&p, c)?;
        }
        Ok((p, lo, hi))
    }

    /// Verifies the whole tree: node invariants, levels, key fences, the leaf chain.
    pub fn check(&self) -> Result<TreeStats> {
        let mut st = TreeStats::default();
        let mut leaves: Vec<u32> = Vec::new();
        let root = self.pool.fetch_read(self.page_id(self.root))?;
        st.height = node::level(&root) as usize + 1;
        drop(root);
        self.check_node(self.root, None, None, None, &mut st, &mut leaves)?;
        for (i, &l) in leaves.iter().enumerate() {
            let p = self.pool.fetch_read(self.page_id(l))?;
            let want_prev = if i == 0 { FIL_NULL } else { leaves[i - 1] };
            let want_next = leaves.get(i + 1).copied().unwrap_or(FIL_NULL);
            if get_u32(&p, OFF_PREV) != want_prev || get_u32(&p, OFF_NEXT) != want_next {
                return Err(TreeError::Corrupt(self.page_id(l), "leaf chain broken"));
            }
        }
        Ok(st)
    }

    fn check_node(
        &self,
        page_no: u32,
        level: Option<u16>,
        lo: Option<&[u8]>,
        hi: Option<&[u8]>,
        st: &mut TreeStats,
        leaves: &mut Vec<u32>,
    ) -> Result<()> {
        let id = self.page_id(page_no);
        let p = self.pool.fetch_read(id)?;
        self.validate(&p, id, level)?;
        node::check(&p);
        let n = node::n_slots(&p);
        for i in 0..n {
            let k = node::key(&p, i);
            if lo.is_some_and(|lo| k < lo) || hi.is_some_and(|hi| k >= hi) {
                return Err(TreeError::Corrupt(id, "key outside the node's fences"));
            }
        }
        if node::is_leaf(&p) {
            st.leaves += 1;
            st.records += n;
            leaves.push(page_no);
            return Ok(());
        }
        st.internal += 1;
        let lvl = node::level(&p);
        let keys: Vec<Vec<u8>> = (0..n).map(|i| node::key(&p, i).to_vec()).collect();
        let children: Vec<u32> = std::iter::once(node::leftmost(&p))
            .chain((0..n).map(|i| node::child(&p, i)))
            .collect();
        drop(p);
        for (j, c) in children.iter().enumerate() {
            let clo = if j == 0 { lo } else { Some(&keys[j - 1][..]) };
            let chi = if j < n { Some(&keys[j][..]) } else { hi };
            self.check_node(*c, Some(lvl - 1), clo, chi, st, leaves)?;
        }
        Ok(())
    }
}

/// Iterates a key range in batches: each batch is copied from one leaf under its S
/// latch, and no latch is held between calls.
pub struct Cursor<'t> {
    tree: &'t BTree,
    next: Option<Bound<Vec<u8>>>,
    end: Bound<Vec<u8>>,
    descending: bool,
    batch: VecDeque<(Vec<u8>, Vec<u8>)>,
    batch_max: usize,
}

impl Iterator for Cursor<'_> {
    type Item = Result<(Vec<u8>, Vec<u8>)>;

    fn next(&mut self) -> Option<Self::Item> {
        while self.batch.is_empty() {
            let start = self.next.take()?;
            match self.tree.read_batch(
                &start,
                &self.end,
                self.descending,
                self.batch_max,
                &mut self.batch,
            ) {
                Ok(next) => self.next = next,
                Err(e) => return Some(Err(e)),
            }
            // Short scans (LIMIT 1, a secondary-index probe) copy little; long ones
            // settle at whole leaves.
            self.batch_max = (self.batch_max * 2).min(512);
        }
        self.batch.pop_front().map(Ok)
    }
}
