//! kiln-storage: the storage engine — files, pages, the buffer pool, B+trees (and, as
//! they land, the redo log, recovery, undo, transactions and locks). It knows nothing
//! of SQL: keys are memcomparable byte strings, values are byte strings.
//!
//! Layering inside the crate (uses point downward):
//!
//! ```text
//! btree    B+tree nodes (slotted pages) and trees: search, insert, delete, cursors
//! buf      buffer pool: instances, page hash, LRU with midpoint insertion, flushing
//! space    tablespaces: files of pages, page allocation
//! page     the 16 KiB page format: header, checksum
//! io       files: the OS (pread/pwrite, O_DIRECT) or an in-memory VFS for fault tests
//! ```
//!
//! The on-disk format is specified in `docs/storage-format.md`.

pub mod buf;
pub mod io;
pub mod page;
