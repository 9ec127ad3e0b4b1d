//! Shrinking the tree after deletes, each step one mini-transaction: unlinking an
//! emptied leaf (`unlink_empty_leaf`), merging a sparse leaf or internal node into a
//! sibling under the same parent (`merge_leaf`, `merge_internal`), and lowering a root
//! left with one child (`lower_root`). Design: `docs/btree.md`, "Deletes and empty
//! leaves" and the two "Merges" sections.

use super::*;

impl BTree {
    /// Pessimistic delete, second kind: a leaf below `MERGE_BELOW` bytes is merged with
    /// a sibling under the same parent when both fit in `MERGE_INTO` bytes — the right
    /// one is appended to the left one, its separator leaves the parent and its page is
    /// freed, in one mini-transaction. Only the parent changes above the leaves, so
    /// every ancestor above it is released on the way down. The left neighbour, when it
    /// is the one to merge into, is only tried (latch order), as in `unlink_empty_leaf`.
    pub(super) fn merge_leaf(&self, key: &[u8]) -> Result<Option<u16>> {
        self.log.free_check();
        let mut mtr = Mtr::new(&self.pool, &self.log);
        let path = self.descend_x(&mut mtr, key, |_| true)?;
        if path.len() < 2 {
            return Ok(None); // the root is a leaf
        }
        let leaf = path[path.len() - 1];
        let parent = path[path.len() - 2];
        let lp = mtr.page(leaf);
        if node::n_slots(lp) == 0 || node::used_bytes(lp) >= MERGE_BELOW {
            return Ok(None); // refilled (or emptied: unlink's job) meanwhile
        }
        let fits = |mtr: &Mtr, left: Slot, right: Slot, _: usize| {
            node::used_bytes(mtr.page(left)) + node::used_bytes(mtr.page(right)) <= MERGE_INTO
        };
        let Some((left, right, right_pos)) = self.merge_partner(&mut mtr, parent, leaf, fits)?
        else {
            return Ok(None);
        };
        let next = get_u32(mtr.page(right), OFF_NEXT);
        let next_slot = if next != FIL_NULL {
            Some(mtr.x_latch(self.page_id(next))?)
        } else {
            None
        };
        self.space.reserve(&mut mtr, 0)?; // the header, for freeing: last latch
        // Changes start here; nothing below can fail.
        let left_no = mtr.id(left).page_no;
        mtr.write_u32(left, OFF_NEXT, next);
        if let Some(ns) = next_slot {
            mtr.write_u32(ns, OFF_PREV, left_no);
        }
        let records: Vec<Vec<u8>> = (0..node::n_slots(mtr.page(right)))
            .map(|i| node::record(mtr.page(right), i).to_vec())
            .collect();
        self.finish_merge(mtr, (left, right, right_pos), parent, &records)
    }

    /// The common end of a merge, once every latch is held: `records` are appended to
    /// `left`, `right`'s entry leaves `parent`, `right` is freed, and the
    /// mini-transaction commits. Returns the parent's level if it is sparse now.
    pub(super) fn finish_merge(
        &self,
        mut mtr: Mtr,
        (left, right, right_pos): (Slot, Slot, usize),
        parent: Slot,
        records: &[Vec<u8>],
    ) -> Result<Option<u16>> {
        let base = node::n_slots(mtr.page(left));
        for (j, r) in records.iter().enumerate() {
            mtr.apply(
                left,
                Op::Insert {
                    pos: (base + j) as u16,
                    rec: r,
                },
            );
        }
        mtr.apply(
            parent,
            Op::Remove {
                pos: right_pos as u16,
            },
        );
        self.space.free(&mut mtr, right)?;
        let sparse = self.sparse_level(&mtr, parent);
        mtr.commit();
        Ok(sparse)
    }

    /// Where `child` hangs in internal node `parent`: -1 for `leftmost`, else the slot.
    pub(super) fn child_pos(&self, mtr: &Mtr, parent: Slot, child: Slot) -> Result<isize> {
        let child_no = mtr.id(child).page_no;
        let pp = mtr.page(parent);
        if node::leftmost(pp) == child_no {
            return Ok(-1);
        }
        match (0..node::n_slots(pp)).find(|&i| node::child(pp, i) == child_no) {
            Some(i) => Ok(i as isize),
            None => Err(TreeError::Corrupt(
                mtr.id(parent),
                "child missing from parent",
            )),
        }
    }

    /// The sibling under the same parent to merge `node` with, X-latched: the right
    /// one, else the left one (only tried: right-to-left against the latch order), if
    /// `fits(left, right, right's slot in the parent)`. Returns (left, right, slot).
    pub(super) fn merge_partner(
        &self,
        mtr: &mut Mtr,
        parent: Slot,
        node: Slot,
        fits: impl Fn(&Mtr, Slot, Slot, usize) -> bool,
    ) -> Result<Option<(Slot, Slot, usize)>> {
        let idx = self.child_pos(mtr, parent, node)?;
        let level = node::level(mtr.page(node));
        let n = node::n_slots(mtr.page(parent)) as isize;
        if idx + 1 < n {
            let r = node::child(mtr.page(parent), (idx + 1) as usize);
            let rs = mtr.x_latch(self.page_id(r))?;
            let id = mtr.id(rs);
            self.validate(mtr.page(rs), id, Some(level))?;
            if fits(mtr, node, rs, (idx + 1) as usize) {
                return Ok(Some((node, rs, (idx + 1) as usize)));
            }
            mtr.release(rs);
        }
        if idx >= 0 {
            let pp = mtr.page(parent);
            let l = if idx == 0 {
                node::leftmost(pp)
            } else {
                node::child(pp, idx as usize - 1)
            };
            if let Some(ls) = mtr.try_x_latch(self.page_id(l))? {
                let id = mtr.id(ls);
                self.validate(mtr.page(ls), id, Some(level))?;
                if fits(mtr, ls, node, idx as usize) {
                    return Ok(Some((ls, node, idx as usize)));
                }
            }
        }
        Ok(None)
    }

    /// After `node` (internal) lost an entry: its level if it should now be merged
    /// (`merge_internal`): a non-root node below `MERGE_BELOW`, or a root left with a
    /// single child.
    pub(super) fn sparse_level(&self, mtr: &Mtr, node: Slot) -> Option<u16> {
        let p = mtr.page(node);
        let sparse = if mtr.id(node).page_no == self.root {
            node::n_slots(p) == 0
        } else {
            node::used_bytes(p) < MERGE_BELOW
        };
        sparse.then(|| node::level(p))
    }

    /// Merges the internal node at `level` on `key`'s path with a sibling under the
    /// same parent when it is below `MERGE_BELOW` bytes and both fit in `MERGE_INTO`:
    /// the right node's records, preceded by the separator pulled down from the parent
    /// (pointing at the right node's leftmost child), are appended to the left node,
    /// and the right node is freed. A root left with one child takes over that child's
    /// contents instead, and the tree is one level lower (the root never moves). One
    /// mini-transaction each; returns the parent's level if it is sparse in turn.
    pub(super) fn merge_internal(&self, key: &[u8], level: u16) -> Result<Option<u16>> {
        self.log.free_check();
        let mut mtr = Mtr::new(&self.pool, &self.log);
        let path = self.descend_x_to(&mut mtr, key, level, |_| true)?;
        let n_slot = *path.last().expect("the root at least");
        if node::level(mtr.page(n_slot)) != level || level == 0 {
            return Ok(None); // the tree changed meanwhile
        }
        if mtr.id(n_slot).page_no == self.root {
            if node::n_slots(mtr.page(n_slot)) == 0 {
                self.lower_root(&mut mtr, n_slot)?;
                mtr.commit();
            }
            return Ok(None);
        }
        if node::used_bytes(mtr.page(n_slot)) >= MERGE_BELOW {
            return Ok(None);
        }
        let parent = path[path.len() - 2];
        // Bytes the merged node uses: both nodes plus the pulled-down separator.
        let fits = |mtr: &Mtr, left: Slot, right: Slot, right_pos: usize| {
            let sep = node::key(mtr.page(parent), right_pos).len();
            node::used_bytes(mtr.page(left))
                + node::used_bytes(mtr.page(right))
                + node::INTERNAL_HEADER
                + sep
                + node::SLOT
                <= MERGE_INTO
        };
        let Some((left, right, right_pos)) = self.merge_partner(&mut mtr, parent, n_slot, fits)?
        else {
            return Ok(None);
        };
        self.space.reserve(&mut mtr, 0)?; // the header, for freeing: last latch
        // Changes start here; nothing below can fail.
        let rp = mtr.page(right);
        let mut records = vec![node::internal_record(
            node::key(mtr.page(parent), right_pos),
            node::leftmost(rp),
        )];
        records.extend((0..node::n_slots(rp)).map(|i| node::record(rp, i).to_vec()));
        self.finish_merge(mtr, (left, right, right_pos), parent, &records)
    }

    /// The root has no separator left, only its leftmost child: the child's records
    /// move into the root, which drops a level, and the child is freed.
    pub(super) fn lower_root(&self, mtr: &mut Mtr, root: Slot) -> Result<()> {
        let child_no = node::leftmost(mtr.page(root));
        let level = node::level(mtr.page(root));
        let child = mtr.x_latch(self.page_id(child_no))?;
        let id = mtr.id(child);
        self.validate(mtr.page(child), id, Some(level - 1))?;
        self.space.reserve(mtr, 0)?;
        let cp = mtr.page(child);
        let records: Vec<Vec<u8>> = (0..node::n_slots(cp))
            .map(|i| node::record(cp, i).to_vec())
            .collect();
        let leftmost = node::leftmost(cp);
        mtr.apply(
            root,
            Op::InitNode {
                index_id: self.index_id,
                level: level - 1,
            },
        );
        for (j, r) in records.iter().enumerate() {
            mtr.apply(
                root,
                Op::Insert {
                    pos: j as u16,
                    rec: r,
                },
            );
        }
        if level > 1 {
            mtr.write_u32(root, node::OFF_LEFTMOST, leftmost);
        }
        Ok(self.space.free(mtr, child)?)
    }

    /// Pessimistic delete: frees the (still) empty leaf covering `key`, removing it
    /// from its parent and the leaf chain, and parents left with no child. Gives up
    /// quietly when the left neighbour is busy: an empty leaf is a valid tree state.
    pub(super) fn unlink_empty_leaf(&self, key: &[u8]) -> Result<Option<u16>> {
        self.log.free_check();
        let mut mtr = Mtr::new(&self.pool, &self.log);
        // A node with two or more children survives losing one.
        let path = self.descend_x(&mut mtr, key, |p| node::n_slots(p) >= 1)?;
        let leaf = *path.last().unwrap();
        let lp = mtr.page(leaf);
        if node::n_slots(lp) != 0 || mtr.id(leaf).page_no == self.root {
            return Ok(None);
        }
        let (prev, next) = (get_u32(lp, OFF_PREV), get_u32(lp, OFF_NEXT));
        let prev_slot = if prev != FIL_NULL {
            match mtr.try_x_latch(self.page_id(prev))? {
                Some(p) => Some(p),
                None => return Ok(None),
            }
        } else {
            None
        };
        let next_slot = if next != FIL_NULL {
            Some(mtr.x_latch(self.page_id(next))?)
        } else {
            None
        };
        // The header (for freeing) after the tree pages, before any change.
        self.space.reserve(&mut mtr, 0)?;
        // Plan from the leaf up, reading only, so a corrupt parent is an error before
        // anything changed: which pages go, and what their surviving ancestor loses.
        enum Last {
            RootBecomesEmptyLeaf(Slot),
            DropLeftmost(Slot),
            RemoveSlot(Slot, usize),
        }
        let mut doomed = Vec::new();
        let mut idx = path.len() - 1;
        let last = loop {
            let child_no = mtr.id(path[idx]).page_no;
            let parent = path[idx - 1];
            doomed.push(path[idx]);
            let pp = mtr.page(parent);
            if node::leftmost(pp) == child_no {
                if node::n_slots(pp) > 0 {
                    break Last::DropLeftmost(parent);
                }
                if mtr.id(parent).page_no == self.root {
                    break Last::RootBecomesEmptyLeaf(parent);
                }
                idx -= 1; // the parent loses its only child: it goes too
                continue;
            }
            let n = node::n_slots(pp);
            match (0..n).find(|&i| node::child(pp, i) == child_no) {
                Some(pos) => break Last::RemoveSlot(parent, pos),
                None => {
                    return Err(TreeError::Corrupt(
                        mtr.id(parent),
                        "child missing from parent",
                    ));
                }
            }
        };
        if let Some(p) = prev_slot {
            mtr.write_u32(p, OFF_NEXT, next);
        }
        if let Some(n) = next_slot {
            mtr.write_u32(n, OFF_PREV, prev);
        }
        for d in doomed {
            self.space.free(&mut mtr, d)?;
        }
        let sparse = match last {
            Last::RootBecomesEmptyLeaf(root) => {
                mtr.apply(
                    root,
                    Op::InitNode {
                        index_id: self.index_id,
                        level: 0,
                    },
                );
                None
            }
            Last::DropLeftmost(parent) => {
                let first = node::child(mtr.page(parent), 0);
                mtr.write_u32(parent, node::OFF_LEFTMOST, first);
                mtr.apply(parent, Op::Remove { pos: 0 });
                self.sparse_level(&mtr, parent)
            }
            Last::RemoveSlot(parent, pos) => {
                mtr.apply(parent, Op::Remove { pos: pos as u16 });
                self.sparse_level(&mtr, parent)
            }
        };
        mtr.commit();
        Ok(sparse)
    }
}
