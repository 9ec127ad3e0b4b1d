//! Deleting every key of a range, a leaf per mini-transaction (`delete_range`): purge
//! drops a committed transaction's whole undo log this way. One descent and one redo
//! group per leaf instead of per key; the emptied or sparse leaves are tidied as a
//! single delete tidies them (merge.rs).

use super::*;

/// Rounds in a row that may find a key and remove nothing (the leaf it lay in split or
/// merged between the read and the write) before `delete_range` falls back to deleting
/// that key on its own. Bounds the loop: every other round removes at least one key.
const STALE_ROUNDS_MAX: usize = 8;

impl BTree {
    /// Deletes every key in `[from, to)`. Returns how many it deleted.
    ///
    /// Not atomic as a whole: each leaf's share is its own mini-transaction, so a crash
    /// can leave a suffix of the range. Callers (purge) repeat the whole call after
    /// recovery, which is why they must be idempotent. Keys inserted into the range
    /// meanwhile may or may not be deleted: callers use it on ranges no one writes.
    pub fn delete_range(&self, from: &[u8], to: &[u8]) -> Result<usize> {
        let mut deleted = 0usize;
        let mut stale_rounds = 0usize;
        loop {
            // The first key left in the range, found as a cursor finds it (across
            // empty leaves, by their fences); then its leaf is latched for writing.
            let Some(key) = self.first_key_in(from, to)? else {
                return Ok(deleted);
            };
            let n = self.delete_leaf_share(&key, to)?;
            if n > 0 {
                deleted += n;
                stale_rounds = 0;
                continue;
            }
            stale_rounds += 1;
            if stale_rounds >= STALE_ROUNDS_MAX {
                deleted += usize::from(self.delete(&key)?.is_some());
                stale_rounds = 0;
            }
        }
    }

    /// The smallest key in `[from, to)`, if any.
    fn first_key_in(&self, from: &[u8], to: &[u8]) -> Result<Option<Vec<u8>>> {
        let end = Bound::Excluded(to.to_vec());
        let mut start = Some(Bound::Included(from.to_vec()));
        let mut batch = VecDeque::new();
        while let Some(at) = start.take() {
            start = self.read_batch(&at, &end, false, 1, &mut batch)?;
            if let Some((key, _)) = batch.pop_front() {
                return Ok(Some(key));
            }
        }
        Ok(None)
    }

    /// Deletes, in one mini-transaction, the keys from `key` up to `to` (excluded) that
    /// lie in `key`'s leaf; then tidies the leaf. Returns how many it deleted.
    fn delete_leaf_share(&self, key: &[u8], to: &[u8]) -> Result<usize> {
        self.log.free_check();
        let mut mtr = Mtr::new(&self.pool, &self.log);
        let s = self.leaf_for_write(&mut mtr, key)?;
        let page = mtr.page(s);
        let n_slots = node::n_slots(page);
        let first = match node::search(page, key) {
            Ok(i) | Err(i) => i,
        };
        let mut end = first;
        while end < n_slots && node::key(page, end) < to {
            end += 1;
        }
        if end == first {
            return Ok(0);
        }
        let mut chains = Vec::new();
        for i in first..end {
            if let Stored::Overflow { first_page, .. } = node::leaf_value(page, i) {
                chains.push(first_page);
            }
        }
        let used_before = node::used_bytes(page);
        // One record for the consecutive slots (removed from the last to the first).
        mtr.apply(
            s,
            Op::RemoveRange {
                from: first as u16,
                to: end as u16,
            },
        );
        let (emptied, sparse) = self.leaf_shrunk(&mtr, s, used_before);
        mtr.commit();
        for first_page in chains {
            blob::free(&self.pool, &self.log, &self.space, first_page)?;
        }
        self.tidy_after_delete(key, emptied, sparse);
        Ok(end - first)
    }
}
