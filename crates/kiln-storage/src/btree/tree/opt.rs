//! Latch-free reads (optimistic lock coupling over the buffer pool's page versions):
//! the descent to level 1, a point lookup, and a cursor's way to its next leaf. Each
//! returns `Opt::Retry` when a page changed under it and `Opt::Fallback` when the
//! latched path must be taken. Design: `docs/btree.md`, "Optimistic (latch-free)
//! reads".

use super::*;

impl BTree {
    /// Latch-free descent (optimistic lock coupling, as in Leis et al., "Optimistic
    /// Lock Coupling", 2019) from the root to the level-1 node on the way to a leaf
    /// (the root itself if it is a leaf), choosing each child with `pick`. A child's
    /// version is taken before its parent is validated, so the node returned was on
    /// the right path at that moment; the caller reads it and validates it in turn.
    pub(super) fn descend_opt(
        &self,
        mut pick: impl FnMut(&OptPage<'_>) -> u32,
    ) -> Opt<Optimistic<'_>> {
        let Some(mut cur) = self.pool.optimistic(self.page_id(self.root)) else {
            return Opt::Fallback;
        };
        let mut expect = None;
        for _ in 0..HEIGHT_MAX {
            let p = cur.page();
            if !node::is_node_opt(&p, self.index_id, expect) {
                // Torn by a writer, or really not ours: the latched path decides.
                return if cur.validate() {
                    Opt::Fallback
                } else {
                    Opt::Retry
                };
            }
            let level = p.node_level();
            if level <= 1 {
                return Opt::Done(cur);
            }
            let next = self.pool.optimistic(self.page_id(pick(&p)));
            if !cur.validate() {
                return Opt::Retry;
            }
            let Some(next) = next else {
                return Opt::Fallback;
            };
            cur = next;
            expect = Some(level - 1);
        }
        Opt::Fallback
    }

    /// `get` without latches above the leaf, and without any latch when the leaf is
    /// cached and young: a hot point lookup writes no shared cache line.
    pub(super) fn get_opt(&self, key: &[u8]) -> Result<Opt<Option<Vec<u8>>>> {
        let found = |r: OptValue| match r {
            OptValue::Absent => Opt::Done(None),
            OptValue::Inline(v) => Opt::Done(Some(v)),
            OptValue::Overflow => Opt::Fallback,
        };
        let parent = match self.descend_opt(|p| node::child_for(p, key)) {
            Opt::Done(p) => p,
            Opt::Retry => return Ok(Opt::Retry),
            Opt::Fallback => return Ok(Opt::Fallback),
        };
        let pp = parent.page();
        if pp.node_level() == 0 {
            let r = node::leaf_get_opt(&pp, key);
            return Ok(if parent.validate() {
                found(r)
            } else {
                Opt::Retry
            });
        }
        let leaf_id = self.page_id(node::child_for(&pp, key));
        if let Some(leaf) = self.pool.optimistic(leaf_id) {
            if !parent.validate() {
                return Ok(Opt::Retry);
            }
            let lp = leaf.page();
            let ours = node::is_node_opt(&lp, self.index_id, Some(0));
            let r = node::leaf_get_opt(&lp, key);
            return Ok(match (leaf.validate(), ours) {
                (false, _) => Opt::Retry,
                (true, false) => Opt::Fallback,
                (true, true) => found(r),
            });
        }
        // The leaf is not cached, or old in the LRU: latch it (reading it from disk
        // if need be), then check that the parent still routes `key` to it.
        let leaf = self.pool.fetch_read(leaf_id);
        if !parent.validate() {
            return Ok(Opt::Retry);
        }
        let leaf = leaf?;
        self.validate(&leaf, leaf_id, Some(0))?;
        Ok(Opt::Done(match node::search(&leaf[..], key) {
            Ok(i) => Some(self.materialize(node::leaf_value(&leaf, i))?),
            Err(_) => None,
        }))
    }

    pub(super) fn scan_leaf_opt(
        &self,
        start: &Bound<Vec<u8>>,
        descending: bool,
    ) -> Result<Opt<ScanLeaf>> {
        let (mut lo, mut hi) = (None, None);
        let mut fences = |(c, l, h): (u32, Option<Vec<u8>>, Option<Vec<u8>>)| {
            lo = l.or(lo.take());
            hi = h.or(hi.take());
            c
        };
        let parent = match self.descend_opt(|p| fences(scan_child(p, start, descending))) {
            Opt::Done(p) => p,
            Opt::Retry => return Ok(Opt::Retry),
            Opt::Fallback => return Ok(Opt::Fallback),
        };
        let pp = parent.page();
        if pp.node_level() == 0 {
            return Ok(Opt::Fallback); // a one-page tree: latch the root
        }
        let leaf_id = self.page_id(fences(scan_child(&pp, start, descending)));
        let leaf = self.pool.fetch_read(leaf_id);
        if !parent.validate() {
            return Ok(Opt::Retry);
        }
        let leaf = leaf?;
        self.validate(&leaf, leaf_id, Some(0))?;
        Ok(Opt::Done((leaf, lo, hi)))
    }
}
