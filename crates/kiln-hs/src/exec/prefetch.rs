//! Prefetching the leaves of a batch's primary-key lookups before the batch runs.
//!
//! A point read of a cold leaf is a chain of dependent cache misses (the buffer
//! pool's hint slot, the frame, the page header, slots, the record); run one lookup
//! after another, a batch pays every link of every chain in turn, and that was about
//! a third of the server's CPU per lookup in the pipelined benchmark. Before a batch
//! runs, the worker hands its request lines here: each `<id> = 1 <key>` find on an
//! open primary-key binding has its key converted and encoded as `find` does, and
//! the storage engine's leaf prefetch (kiln-storage btree/tree/prefetch.rs) advances
//! all of them one stage per round, so the misses of the batch overlap. Then the
//! batch runs as before and finds its lines cached.
//!
//! This is a hint and nothing else: it reads no row, takes no lock, changes no state
//! of the connection or the executor, and any line it does not understand (another
//! request, an escaped or NULL key, a binding not resolved at the current dictionary
//! version) is skipped — `execute` still parses and answers every line itself.

use kiln_common::key::KeyWriter;
use kiln_sql::dict::TableHandle;
use kiln_sql::rowapi;
use kiln_sql::value::Value;
use kiln_storage::btree::{BTree, LeafPrefetch};

use super::{ConnState, Executor};

/// Lookups prefetched per batch, at most (the rest run without).
pub const PREFETCH_MAX: usize = 256;
/// Lookups a batch needs for the prefetch to run.
const PREFETCH_MIN: usize = 4;
/// Stages of `BTree::prefetch_step` after `prefetch_start`.
const STAGES: usize = 5;

impl Executor {
    /// Prefetches the leaves of the primary-key finds among `lines` (call after
    /// `begin_batch`, which brings the dictionary version up to date).
    pub fn prefetch<'a>(&mut self, lines: impl Iterator<Item = (&'a ConnState, &'a [u8])>) {
        let mut keys = std::mem::take(&mut self.prefetch_keys);
        keys.clear();
        let mut found: Vec<(&'a BTree, usize, usize)> = Vec::new();
        for (conn, line) in lines {
            if found.len() >= PREFETCH_MAX {
                break;
            }
            let start = keys.len();
            let tree;
            (tree, keys) = self.lookup_key(conn, line, keys);
            match tree {
                Some(t) => found.push((t, start, keys.len())),
                None => keys.truncate(start),
            }
        }
        // A batch of a few lookups (a closed-loop client) has no misses to overlap.
        if found.len() < PREFETCH_MIN {
            self.prefetch_keys = keys;
            return;
        }
        let mut work: Vec<(&'a BTree, usize, usize, LeafPrefetch)> = found
            .into_iter()
            .map(|(tree, start, end)| (tree, start, end, tree.prefetch_start(&keys[start..end])))
            .filter(|w| w.3.pending())
            .collect();
        for _ in 0..STAGES {
            for (tree, start, end, pf) in work.iter_mut() {
                tree.prefetch_step(pf, &keys[*start..*end]);
            }
        }
        self.prefetch_keys = keys;
    }

    /// The clustered tree of a line `<id> = 1 <key> ...` whose binding is the primary
    /// key of one column, resolved at the current dictionary version, with the encoded
    /// key appended to `keys` (which is handed back either way).
    fn lookup_key<'a>(
        &self,
        conn: &'a ConnState,
        line: &[u8],
        keys: Vec<u8>,
    ) -> (Option<&'a BTree>, Vec<u8>) {
        let Some((h, v)) = self.lookup_value(conn, line) else {
            return (None, keys);
        };
        let mut kw = KeyWriter::append_to(keys);
        rowapi::encode_key_part(h, 0, 0, &v, &mut kw);
        (Some(&h.storage.clustered), kw.finish())
    }

    fn lookup_value<'a>(
        &self,
        conn: &'a ConnState,
        line: &[u8],
    ) -> Option<(&'a TableHandle, Value)> {
        let mut t = line.split(|&b| b == b'\t');
        let id = t.next()?;
        if t.next()? != b"=" || t.next()? != b"1" {
            return None;
        }
        let key = t.next()?;
        if key.iter().any(|&b| b < 0x10) {
            return None; // NULL or escaped: leave it to `execute`
        }
        let id: usize = std::str::from_utf8(id).ok()?.parse().ok()?;
        let r = conn.bindings.get(id)?.as_ref()?.resolved.as_ref()?;
        if r.version != self.version || r.index != 0 {
            return None;
        }
        let h = &r.table;
        let ix = &h.def.indexes[0];
        if ix.parts.len() != 1 || !ix.is_unique() || ix.parts[0].prefix_chars.is_some() {
            return None;
        }
        let v = rowapi::convert_for_compare(h, ix.parts[0].column, Some(key));
        (!v.is_null()).then_some((&**h, v))
    }
}
