//! Prefetching the leaf of a point read, for a batch of lookups (the HandlerSocket
//! worker's batch of `=` finds): `prefetch_start` for every key of the batch, then
//! `prefetch_step` over all of them, round after round, until none has a stage left.
//! Each stage reads what the previous one brought into the cache and prefetches the
//! next link of the lookup's chain of dependent loads — the buffer pool's hint slot,
//! the frame, the page header, the last slot, the slot `search` probes first, the
//! record — so a batch pays about one memory latency per stage instead of one per
//! link per lookup. Then the lookups themselves run (`get`) and find their lines
//! cached.
//!
//! Nothing here is validated or trusted: the reads are the latch-free ones of the
//! optimistic path (bounded, racy), a page changed meanwhile only wastes a prefetch,
//! and no shared memory is written (see buf/prefetch.rs).

use super::*;

/// A leaf being prefetched for one key.
pub struct LeafPrefetch {
    leaf: Option<PageId>,
    stage: u8,
    /// The slot `search` will probe first (set by stage 4).
    probe: Option<usize>,
}

impl LeafPrefetch {
    /// Whether stages remain.
    pub fn pending(&self) -> bool {
        self.leaf.is_some()
    }
}

/// Bytes of a record prefetched (its header, key and the start of the value).
const RECORD_PREFETCH_BYTES: usize = 256;

impl BTree {
    /// Descends latch-free to the leaf's parent (upper levels are normally cached)
    /// and prefetches the buffer pool's hint slot of the leaf.
    pub fn prefetch_start(&self, key: &[u8]) -> LeafPrefetch {
        let mut p = LeafPrefetch {
            leaf: None,
            stage: 0,
            probe: None,
        };
        if let Opt::Done(parent) = self.descend_opt(|pp| node::child_for(pp, key)) {
            let pp = parent.page();
            if pp.node_level() == 1 {
                let id = self.page_id(node::child_for(&pp, key));
                self.pool.prefetch_hint(id);
                p.leaf = Some(id);
            }
        }
        p
    }

    /// Runs the next stage of `p` (a no-op once none is left).
    pub fn prefetch_step(&self, p: &mut LeafPrefetch, key: &[u8]) {
        let Some(id) = p.leaf else {
            return;
        };
        p.stage += 1;
        let done = match p.stage {
            1 => !self.pool.prefetch_frame(id),
            _ => match self.pool.prefetch_view(id) {
                None => true,
                Some(v) => match p.stage {
                    2 => {
                        v.prefetch(0, node::SLOTS_START + node::SLOT);
                        false
                    }
                    3 => {
                        let n = v.node_slots();
                        v.prefetch(node::SLOTS_START + node::SLOT * n.saturating_sub(1), 10);
                        false
                    }
                    4 => {
                        p.probe = node::first_probe(&v, key);
                        if let Some(i) = p.probe {
                            v.prefetch(node::SLOTS_START + node::SLOT * i, node::SLOT);
                        }
                        p.probe.is_none()
                    }
                    _ => {
                        if let Some(i) = p.probe {
                            let off = v.u16(node::SLOTS_START + node::SLOT * i) as usize;
                            v.prefetch(off, RECORD_PREFETCH_BYTES);
                        }
                        true
                    }
                },
            },
        };
        if done {
            p.leaf = None;
        }
    }
}
