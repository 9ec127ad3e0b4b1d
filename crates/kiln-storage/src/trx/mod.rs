//! Transactions on top of the storage core: the transaction system (ids, commit
//! sequence numbers, read views), undo logs in rollback segments, MVCC version
//! reads, row locks and purge. Design and invariants: `docs/transactions.md`.
//!
//! - `sys.rs`: transaction ids, commits, read views (no global mutex for readers);
//! - `undo.rs`: undo record and roll pointer formats;
//! - `lock.rs`: row locks, waits, deadlock detection;
//! - `manager.rs`: `TrxEngine` — rollback segments, crash rollback, purge;
//! - `txn.rs`: `Session` and `Trx` — reads, writes, commit, rollback;
//! - `table.rs`: tables with secondary indexes (unique checks, MVCC through the row).

pub mod lock;
pub mod manager;
pub mod sys;
pub mod table;
pub mod txn;
pub mod undo;

pub use lock::{DeadlockReport, DeadlockTrx, LockError, Mode, Wait};
pub use manager::{PurgeHook, TrxConfig, TrxEngine, TrxRow};
pub use table::{KeyOf, SecKey, SecRead, Secondary, Table, bulk_secondary_entry};
pub use txn::{Isolation, ReadMode, Session, Trx, TrxOptions};

use crate::btree::TreeError;
use crate::engine::StorageError;

/// Errors of transactional operations. `mysql_errno` maps them to MySQL's codes.
#[derive(Debug)]
pub enum TrxError {
    Storage(StorageError),
    Tree(TreeError),
    /// Deadlock (the transaction has been rolled back), lock wait timeout (only the
    /// statement failed), or NOWAIT.
    Lock(LockError),
    DuplicateKey,
    /// A write in a READ ONLY transaction.
    ReadOnly,
    TooManyReaders,
    Corrupt(String),
}

pub type TrxResult<T> = std::result::Result<T, TrxError>;

impl TrxError {
    /// MySQL's error number for this error.
    pub fn mysql_errno(&self) -> u16 {
        match self {
            TrxError::Lock(LockError::Deadlock) => 1213,
            TrxError::Lock(LockError::Timeout) => 1205,
            TrxError::Lock(LockError::NoWait) => 3572,
            TrxError::DuplicateKey => 1062,
            TrxError::ReadOnly => 1792,
            TrxError::TooManyReaders => 1040,
            TrxError::Storage(_) | TrxError::Tree(_) | TrxError::Corrupt(_) => 1030,
        }
    }
}

impl std::fmt::Display for TrxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TrxError::Storage(e) => write!(f, "{e}"),
            TrxError::Tree(e) => write!(f, "{e}"),
            TrxError::Lock(LockError::Deadlock) => {
                write!(
                    f,
                    "Deadlock found when trying to get lock; try restarting transaction"
                )
            }
            TrxError::Lock(LockError::Timeout) => {
                write!(f, "Lock wait timeout exceeded; try restarting transaction")
            }
            TrxError::Lock(LockError::NoWait) => write!(
                f,
                "Statement aborted because lock(s) could not be acquired immediately and NOWAIT is set."
            ),
            TrxError::DuplicateKey => write!(f, "duplicate key"),
            TrxError::ReadOnly => write!(f, "Cannot execute statement in a READ ONLY transaction."),
            TrxError::TooManyReaders => write!(f, "Too many connections"),
            TrxError::Corrupt(s) => write!(f, "transaction system is corrupt: {s}"),
        }
    }
}

impl std::error::Error for TrxError {}

impl From<StorageError> for TrxError {
    fn from(e: StorageError) -> Self {
        TrxError::Storage(e)
    }
}

impl From<TreeError> for TrxError {
    fn from(e: TreeError) -> Self {
        match e {
            TreeError::DuplicateKey => TrxError::DuplicateKey,
            e => TrxError::Tree(e),
        }
    }
}

impl From<sys::TrxSysError> for TrxError {
    fn from(_: sys::TrxSysError) -> Self {
        TrxError::TooManyReaders
    }
}
