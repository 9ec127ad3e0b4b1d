//! How many entries and pages a tree holds, roughly, without reading it
//! (`estimate_len`, `estimate_size`): the SQL layer's row estimate for a table it
//! opens (EXPLAIN's rows, join order) and SHOW TABLE STATUS's Data_length and
//! Index_length, where counting would read every leaf. InnoDB samples leaf pages the
//! same way.

use super::*;

/// Root-to-leaf paths sampled. Path p takes, at every level, the child at fraction
/// (p + 1/2) / PATHS of the node's children: the leftmost and rightmost edges, where
/// appends leave partly filled pages, are not sampled more than any other place.
const PATHS: usize = 8;

/// A tree's estimated size (`BTree::estimate_size`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizeEstimate {
    /// Entries in the leaves.
    pub entries: u64,
    /// Nodes at every level, the root included (overflow pages are not counted).
    pub pages: u64,
}

impl BTree {
    /// About how many keys the tree holds (`estimate_size`'s entries).
    pub fn estimate_len(&self) -> Result<u64> {
        Ok(self.estimate_size()?.entries)
    }

    /// About how many keys and pages the tree holds: the root's children times, at each level
    /// below it, the sampled nodes' mean fan-out, times the sampled leaves' mean
    /// entries. Reads at most `PATHS` pages per level, S-latched top-down (coupled, as
    /// a reader descends). A one-page tree is counted exactly; for larger ones, a
    /// third off is well within what the callers (row estimates) tolerate.
    /// The pages are the root plus, at each level below it, the nodes counted so far
    /// times the sampled fan-out of the level above.
    pub fn estimate_size(&self) -> Result<SizeEstimate> {
        let root_id = self.page_id(self.root);
        let root = self.pool.fetch_read(root_id)?;
        self.validate(&root, root_id, None)?;
        if node::is_leaf(&root) {
            return Ok(SizeEstimate {
                entries: node::n_slots(&root) as u64,
                pages: 1,
            });
        }
        let height = usize::from(node::level(&root));
        let root_children = node::n_slots(&root) + 1;
        // Not held while sampling: each path latches the root again (a second S latch
        // on a page this thread holds could wait behind a queued writer forever).
        drop(root);
        // Per level below the root (index 0: the root's children): children or
        // entries of each sampled node.
        let mut per_level: Vec<Vec<usize>> = vec![Vec::new(); height];
        for path in 0..PATHS {
            let mut page = self.pool.fetch_read(root_id)?;
            self.validate(&page, root_id, None)?;
            let mut depth = 0;
            while !node::is_leaf(&page) {
                let children = node::n_slots(&page) + 1;
                let pick = ((2 * path + 1) * children / (2 * PATHS)).min(children - 1);
                let child = match pick {
                    0 => node::leftmost(&page),
                    i => node::child(&page, i - 1),
                };
                let next = self.fetch_child(&page, child)?;
                page = next;
                let fill = if node::is_leaf(&page) {
                    node::n_slots(&page)
                } else {
                    node::n_slots(&page) + 1
                };
                if let Some(level) = per_level.get_mut(depth) {
                    level.push(fill);
                }
                depth += 1;
            }
        }
        // `nodes`: how many nodes the level being looked at holds; each level's mean
        // fill (children, or entries for the leaves) times it is the next one's.
        let mut nodes = root_children as f64;
        let mut pages = 1.0;
        for level in &per_level {
            pages += nodes;
            if level.is_empty() {
                continue;
            }
            nodes *= level.iter().sum::<usize>() as f64 / level.len() as f64;
        }
        Ok(SizeEstimate {
            entries: nodes.round() as u64,
            pages: pages.round() as u64,
        })
    }
}
