//! B+trees: `node` (the slotted page of one node), `tree` (search, insert, delete,
//! cursors, splits and concurrency), `blob` (overflow pages for long values), `bulk`
//! (building a tree bottom-up from sorted input).
//! Design note with invariants and lock order: `docs/btree.md`.

pub mod blob;
pub mod bulk;
pub mod node;
pub mod tree;

pub use tree::{BTree, Cursor, LeafPrefetch, Probe, SizeEstimate, TreeError, TreeStats};
