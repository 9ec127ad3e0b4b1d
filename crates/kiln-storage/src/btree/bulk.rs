//! Bulk loading: a new tree built bottom-up from sorted input (CREATE INDEX, large
//! loads), instead of one root-to-leaf insert per entry.
//!
//! Leaves are filled left to right to `FILL` of the page (15/16, InnoDB's
//! `innodb_fill_factor=100` also keeps 1/16 free), one mini-transaction per record
//! (the one that starts a leaf also links it to the previous leaf). Then each level above is built the same
//! way from the (separator, page) pairs of the level below, until one node remains.
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
    };
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
        append(pool, log, space, index_id, &mut leaves, &rec)?;
        leaves.last_key = Some(key);
    }
    // Levels above, until one node holds everything.
    let mut below = leaves;
    loop {
        if let Some((page, _)) = below.current.take() {
            // The smallest key under the node: a leaf's first record; for an internal
            // node, the first key of its leftmost subtree (kept in `last_key`).
            let first = if below.level == 0 {
                first_key_of(pool, space, page)?
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

fn first_key_of(pool: &Arc<BufferPool>, space: &Space, page: u32) -> Result<Vec<u8>> {
    let p = pool.fetch_read(PageId::new(space.id, page))?;
    if node::n_slots(&p) == 0 {
        return Ok(Vec::new()); // only an empty tree's single leaf
    }
    Ok(node::key(&p, 0).to_vec())
}

/// Adds a leaf record, starting a new leaf (linked after the previous) when full.
fn append(
    pool: &Arc<BufferPool>,
    log: &Arc<Log>,
    space: &Space,
    index_id: u64,
    lv: &mut Level,
    rec: &[u8],
) -> Result<()> {
    log.free_check();
    let mut mtr = Mtr::new(pool, log);
    let cur = match lv.current {
        Some((page, used)) if used + rec.len() + node::SLOT <= FILL => Some((page, used)),
        _ => None,
    };
    let (slot, used) = match cur {
        Some((page, used)) => (mtr.x_latch(PageId::new(space.id, page))?, used),
        None => {
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
                lv.done.push((first_key_of_held(&mtr, ps), p));
            }
            lv.current = Some((page, 0));
            (s, 0)
        }
    };
    let pos = node::n_slots(mtr.page(slot));
    mtr.apply(
        slot,
        Op::Insert {
            pos: pos as u16,
            rec,
        },
    );
    lv.current = Some((mtr.id(slot).page_no, used + rec.len() + node::SLOT));
    mtr.commit();
    Ok(())
}

fn first_key_of_held(mtr: &Mtr, s: crate::mtr::Slot) -> Vec<u8> {
    node::key(mtr.page(s), 0).to_vec()
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
