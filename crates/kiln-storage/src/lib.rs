//! kiln-storage: the storage engine — files, pages, the buffer pool, B+trees, the
//! redo log and recovery, and transactions (undo, MVCC, row locks, purge). It knows
//! nothing of SQL: keys are memcomparable byte strings, values are byte strings.
//!
//! Layering inside the crate (uses point downward):
//!
//! ```text
//! trx      transactions: ids and read views (sys), undo records, row locks, the
//!          transaction manager (rollback segments, purge, crash rollback), sessions
//!          and transactions, tables with secondary indexes (docs/transactions.md)
//! engine   the whole: data directory, system tablespace, open/create, checkpoints,
//!          page cleaner; `recovery` replays the redo log at startup
//! row      index conventions: clustered entries (trx_id, roll_ptr, delete mark, row),
//!          hidden row ids, secondary keys and unique checks
//! btree    B+tree nodes (slotted pages) and trees: search, insert, delete, cursors
//! space    tablespaces: files of pages, page allocation, root registry
//! mtr      mini-transactions: latched pages + their redo records, atomic at commit
//! log      the redo log: ring file, group commit, checkpoints; `record`: redo ops
//! dblwr    the doublewrite area: torn-page protection for page writes
//! buf      buffer pool: instances, page hash, LRU with midpoint insertion, flushing
//! page     the 16 KiB page format: header, checksum
//! io       files: the OS (pread/pwrite, O_DIRECT) or an in-memory VFS for fault tests
//! ```
//!
//! The on-disk format is specified in `docs/storage-format.md`.

pub mod btree;
pub mod buf;
pub mod dblwr;
pub mod engine;
pub mod io;
pub mod log;
pub mod mtr;
pub mod page;
pub mod recovery;
pub mod rng;
pub mod row;
pub mod space;
pub mod trx;
