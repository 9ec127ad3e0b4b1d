//! B+trees: `node` (the slotted page of one node), `tree` (search, insert, delete,
//! cursors, splits and concurrency), `blob` (overflow pages for long values).
//! Design note with invariants and lock order: `docs/btree.md`.

pub mod blob;
pub mod node;
pub mod tree;

pub use tree::{BTree, Cursor, TreeError, TreeStats};
