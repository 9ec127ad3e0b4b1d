//! Bulk loading: a new tree built bottom-up from sorted input (CREATE INDEX, large
//! loads), instead of one root-to-leaf insert per entry.
//!
//! Leaves are filled left to right to `FILL` of the page (15/16, InnoDB's
//! `innodb_fill_factor=100` also keeps 1/16 free), one mini-transaction per leaf: it
//! allocates the page, links it after the previous leaf and logs its records. Then
//! each level above is built from the (separator, page) pairs of the level below, one
//! mini-transaction per record, until one node remains.
//! The last mini-transaction allocates the root, copies that node into it, frees the
//! node and registers the root: before it, a crash leaves only unreferenced pages
//! (leaked, never a half-visible tree); after it, the whole tree is there.

use std::sync::Arc;

use super::node::{self, Stored};
use super::tree::{BTree, Result, TreeError};
use crate::buf::BufferPool;
use crate::log::Log;
use crate::log::record::Op;
use crate::mtr::Mtr;
use crate::page::{FIL_NULL, OFF_NEXT, OFF_PREV, PAGE_SIZE, PageId};
use crate::space::Space;

/// Bytes of a node's body a bulk-loaded page is filled to.
const FILL: usize = (PAGE_SIZE - node::SLOTS_START) * 15 / 16;

/// One level being built: the node under construction and what the level above needs.
struct Level {
    level: u16,
    /// Page number of the node being filled, its records so far and their bytes.
    current: Option<(u32, usize)>,
    /// (first key, page) of every finished node, for the level above.
    done: Vec<(Vec<u8>, u32)>,
    /// Leaves: the last key placed (the sort check). Internal levels: the smallest key
    /// under the node being filled (its `leftmost` child's), for the level above.
    last_key: Option<Vec<u8>>,
    /// Leaves: the first key of the node being filled, for the level above.
    pending_first: Vec<u8>,
}

/// Builds tree `index_id` in `space` from `items`, which must be in strictly increasing
/// key order (`DuplicateKey` / `Corrupt` otherwise; the pages written so far leak).
pub fn bulk_load(
    pool: &Arc<BufferPool>,
    log: &Arc<Log>,
    space: &Arc<Space>,
    index_id: u64,
    items: impl IntoIterator<Item = (Vec<u8>, Vec<u8>)>,
) -> Result<BTree> {
    {
        let mut mtr = Mtr::new(pool, log);
        if !space.can_register(&mut mtr, index_id)? {
            return Err(TreeError::IndexExists(index_id));
        }
    }
    let mut leaves = Level {
        level: 0,
        current: None,
        done: Vec::new(),
        last_key: None,
        pending_first: Vec::new(),
    };
    let mut batch = LeafBatch::default();
    for (key, value) in items {
        if let Some(last) = &leaves.last_key {
            match key.as_slice().cmp(last) {
                std::cmp::Ordering::Equal => return Err(TreeError::DuplicateKey),
                std::cmp::Ordering::Less => {
                    return Err(TreeError::Corrupt(
                        PageId::new(space.id, FIL_NULL),
                        "bulk load input is not sorted",
                    ));
                }
                std::cmp::Ordering::Greater => {}
            }
        }
        if key.len() > node::KEY_MAX {
            return Err(TreeError::KeyTooLong(key.len()));
        }
        if value.len() as u64 > super::blob::VALUE_MAX {
            return Err(TreeError::ValueTooLong(value.len() as u64));
        }
        let rec = if node::fits_inline(key.len(), value.len()) {
            node::leaf_record(&key, Stored::Inline(&value))
        } else {
            let first = super::blob::write(pool, log, space, &value)?;
            node::leaf_record(
                &key,
                Stored::Overflow {
                    first_page: first,
                    total_len: value.len() as u64,
                },
            )
        };
        if batch.bytes + rec.len() + node::SLOT > FILL && !batch.recs.is_empty() {
            write_leaf(pool, log, space, index_id, &mut leaves, &mut batch)?;
        }
        if batch.recs.is_empty() {
            batch.first_key = key.clone();
        }
        batch.bytes += rec.len() + node::SLOT;
        batch.recs.push(rec);
        leaves.last_key = Some(key);
    }
    if !batch.recs.is_empty() {
        write_leaf(pool, log, space, index_id, &mut leaves, &mut batch)?;
    }
    // Levels above, until one node holds everything.
    let mut below = leaves;
    loop {
        if let Some((page, _)) = below.current.take() {
            // The smallest key under the node: a leaf's first record; for an internal
            // node, the first key of its leftmost subtree (kept in `last_key`).
            let first = if below.level == 0 {
                std::mem::take(&mut below.pending_first)
            } else {
                below.last_key.take().expect("node started with a key")
            };
            below.done.push((first, page));
        }
        if below.done.len() <= 1 {
            break;
        }
        let mut up = Level {
            level: below.level + 1,
            current: None,
            done: Vec::new(),
            last_key: None,
            pending_first: Vec::new(),
        };
        // Each child's first key separates it from the one before (all keys of the
        // previous child are smaller); a node's first child becomes its `leftmost`.
        for (first, page) in std::mem::take(&mut below.done) {
            append_child(pool, log, space, index_id, &mut up, &first, page)?;
        }
        below = up;
    }
    // The root: a copy of the single top node (or an empty leaf), then registered.
    log.free_check();
    let mut mtr = Mtr::new(pool, log);
    let top = below.done.first().map(|(_, p)| *p);
    let top_slot = match top {
        Some(p) => Some(mtr.x_latch(PageId::new(space.id, p))?),
        None => None,
    };
    // Checked again under the header latch this mini-transaction keeps to the end: a
    // concurrent create of the same id (or a full registry) fails the load cleanly.
    if !space.can_register(&mut mtr, index_id)? {
        return Err(TreeError::IndexExists(index_id));
    }
    space.reserve(&mut mtr, 1)?;
    let root = space.allocate(&mut mtr)?;
    let level = top_slot.map_or(0, |s| node::level(mtr.page(s)));
    mtr.apply(root, Op::InitNode { index_id, level });
    if let Some(s) = top_slot {
        let recs: Vec<Vec<u8>> = (0..node::n_slots(mtr.page(s)))
            .map(|i| node::record(mtr.page(s), i).to_vec())
            .collect();
        for (i, r) in recs.iter().enumerate() {
            mtr.apply(
                root,
                Op::Insert {
                    pos: i as u16,
                    rec: r,
                },
            );
        }
        if level > 0 {
            let lm = node::leftmost(mtr.page(s));
            mtr.write_u32(root, node::OFF_LEFTMOST, lm);
        }
        space.free(&mut mtr, s)?;
    }
    let root_no = mtr.id(root).page_no;
    space.register_root(&mut mtr, index_id, root_no)?;
    let lsn = mtr.commit();
    log.flush_to(lsn).map_err(|e| {
        TreeError::Buf(crate::buf::BufError::Io(
            PageId::new(space.id, root_no),
            std::io::Error::other(e.to_string()),
        ))
    })?;
    Ok(BTree::open(pool, log, space, index_id)?.expect("just registered"))
}

/// The records of the next leaf, gathered until the next one would overflow `FILL`.
#[derive(Default)]
struct LeafBatch {
    recs: Vec<Vec<u8>>,
    /// Bytes the records and their slots take in the node body.
    bytes: usize,
    /// The key of `recs[0]`: the leaf's separator in the level above.
    first_key: Vec<u8>,
}

/// Writes `batch` as a new leaf, linked after the previous one, in one
/// mini-transaction (one latch, one log append and one commit per page instead of per
/// record: CREATE INDEX spent half its time in per-record mini-transactions).
fn write_leaf(
    pool: &Arc<BufferPool>,
    log: &Arc<Log>,
    space: &Space,
    index_id: u64,
    lv: &mut Level,
    batch: &mut LeafBatch,
) -> Result<()> {
    debug_assert!(!batch.recs.is_empty());
    log.free_check();
    let mut mtr = Mtr::new(pool, log);
    let prev = lv.current.map(|(p, _)| p);
    let prev_slot = match prev {
        Some(p) => Some(mtr.x_latch(PageId::new(space.id, p))?),
        None => None,
    };
    space.reserve(&mut mtr, 1)?;
    let s = space.allocate(&mut mtr)?;
    mtr.apply(s, Op::InitNode { index_id, level: 0 });
    let page = mtr.id(s).page_no;
    if let (Some(ps), Some(p)) = (prev_slot, prev) {
        mtr.write_u32(ps, OFF_NEXT, page);
        mtr.write_u32(s, OFF_PREV, p);
    }
    for (pos, rec) in batch.recs.iter().enumerate() {
        mtr.apply(
            s,
            Op::Insert {
                pos: pos as u16,
                rec,
            },
        );
    }
    if let Some(p) = prev {
        lv.done.push((std::mem::take(&mut lv.pending_first), p));
    }
    lv.pending_first = std::mem::take(&mut batch.first_key);
    lv.current = Some((page, batch.bytes));
    batch.recs.clear();
    batch.bytes = 0;
    mtr.commit();
    Ok(())
}

/// Adds a child pointer to an internal level: the first child of a node becomes its
/// `leftmost`, the others records keyed by `sep`.
fn append_child(
    pool: &Arc<BufferPool>,
    log: &Arc<Log>,
    space: &Space,
    index_id: u64,
    lv: &mut Level,
    sep: &[u8],
    child: u32,
) -> Result<()> {
    log.free_check();
    let mut mtr = Mtr::new(pool, log);
    let rec = node::internal_record(sep, child);
    match lv.current {
        Some((page, used)) if used + rec.len() + node::SLOT <= FILL => {
            let s = mtr.x_latch(PageId::new(space.id, page))?;
            let pos = node::n_slots(mtr.page(s));
            mtr.apply(
                s,
                Op::Insert {
                    pos: pos as u16,
                    rec: &rec,
                },
            );
            lv.current = Some((page, used + rec.len() + node::SLOT));
        }
        _ => {
            if let Some((page, _)) = lv.current {
                // The finished node's first key is the key of its leftmost subtree.
                lv.done
                    .push((lv.last_key.take().expect("node started with a key"), page));
            }
            space.reserve(&mut mtr, 1)?;
            let s = space.allocate(&mut mtr)?;
            mtr.apply(
                s,
                Op::InitNode {
                    index_id,
                    level: lv.level,
                },
            );
            mtr.write_u32(s, node::OFF_LEFTMOST, child);
            lv.current = Some((mtr.id(s).page_no, 0));
            lv.last_key = Some(sep.to_vec());
        }
    }
    mtr.commit();
    Ok(())
}
