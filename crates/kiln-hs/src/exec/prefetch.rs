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
//! of the connection, and any line it does not understand (another request, an
//! escaped or NULL key, a binding not resolved at the current dictionary version) is
//! skipped — `execute` still answers every line itself. What it keeps is the encoded
//! key of each line it prefetched, so that `execute` does not convert it again
//! (lookup.rs checks the line and the binding before it uses one).

use std::ops::Range;

use kiln_common::key::KeyWriter;
use kiln_sql::rowapi;
use kiln_storage::btree::{BTree, LeafPrefetch};

use super::lookup::{Lookup, convert_key, point_binding, split_lookup};
use super::{ConnState, Executor};

/// Lookups prefetched per batch, at most (the rest run without).
pub const PREFETCH_MAX: usize = 256;
/// Lookups a batch needs for the prefetch to run.
const PREFETCH_MIN: usize = 4;
/// Stages of `BTree::prefetch_step` after `prefetch_start`.
const STAGES: usize = 5;

impl Executor {
    /// Prefetches the leaves of the primary-key finds among `lines` (call after
    /// `begin_batch`, which brings the dictionary version up to date), and records
    /// each one's encoded key for `execute` (lookup.rs).
    pub fn prefetch<'a>(&mut self, lines: impl Iterator<Item = (&'a ConnState, &'a [u8])>) {
        let mut keys = std::mem::take(&mut self.prefetch_keys);
        let mut lookups = std::mem::take(&mut self.lookups);
        keys.clear();
        lookups.clear();
        self.lookup_next = 0;
        for (conn, line) in lines {
            if lookups.len() >= PREFETCH_MAX {
                break;
            }
            let Some((id, token, more)) = split_lookup(line) else {
                continue;
            };
            let Some(r) = point_binding(conn, id, self.version) else {
                continue;
            };
            let Some(v) = convert_key(r, token) else {
                continue;
            };
            let start = keys.len();
            let mut kw = KeyWriter::append_to(keys);
            rowapi::encode_key_part(&r.table, 0, 0, &v, &mut kw);
            keys = kw.finish();
            lookups.push(Lookup::new(line, id, !more, r.clone(), start..keys.len()));
        }
        // A batch of a few lookups (a closed-loop client) has no misses to overlap.
        if lookups.len() >= PREFETCH_MIN {
            let mut work: Vec<(&BTree, Range<usize>, LeafPrefetch)> = lookups
                .iter()
                .map(|l| {
                    let (tree, k) = (l.tree(), l.key_range());
                    (tree, k.clone(), tree.prefetch_start(&keys[k]))
                })
                .filter(|w| w.2.pending())
                .collect();
            for _ in 0..STAGES {
                for (tree, k, pf) in work.iter_mut() {
                    tree.prefetch_step(pf, &keys[k.clone()]);
                }
            }
        }
        self.prefetch_keys = keys;
        self.lookups = lookups;
    }
}
