//! Blocking-wait notification: code about to block (a row-lock wait, the redo log's
//! fsync, a page read from disk, `SLEEP()`, a client that is slow to send) tells the
//! connection scheduler first, so a thread pool can hand the CPU to another worker
//! while this one sleeps, and take it back when the wait ends.
//!
//! A scheduler installs an observer on each of its worker threads
//! (`set_thread_observer`). Everywhere else — one-thread-per-connection threads,
//! background threads, tests — `begin` finds no observer and costs one thread-local
//! read. Nested waits (a disk read inside a lock wait's deadlock check) report only
//! the outermost one: the thread is either waiting or not.
//!
//! The storage engine knows no scheduler: it only calls `begin(kind)` and drops the
//! guard when the wait is over.

use std::cell::{Cell, RefCell};
use std::sync::Arc;

/// Why a thread blocks. The names are those of MariaDB's
/// `information_schema.THREAD_POOL_WAITS.REASON`, so the two servers' tables compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum WaitKind {
    /// A row lock held by another transaction.
    RowLock = 0,
    /// The redo log's write and fsync at commit (group commit leader or follower).
    GroupCommit = 1,
    /// A page read from a data file.
    DiskIo = 2,
    /// `SLEEP()`, or a delay the engine imposes (purge lag).
    Sleep = 3,
    /// The network: a client slow to send the rest of a packet, or to read results.
    Net = 4,
    /// Anything else.
    Other = 5,
    /// A table's metadata lock held by another session (kiln-sql's mdl.rs).
    MetaDataLock = 6,
}

/// Number of `WaitKind` values (array sizes for per-kind counters).
pub const WAIT_KINDS: usize = 7;

impl WaitKind {
    pub const ALL: [WaitKind; WAIT_KINDS] = [
        WaitKind::RowLock,
        WaitKind::GroupCommit,
        WaitKind::DiskIo,
        WaitKind::Sleep,
        WaitKind::Net,
        WaitKind::Other,
        WaitKind::MetaDataLock,
    ];

    pub fn name(self) -> &'static str {
        match self {
            WaitKind::RowLock => "ROW_LOCK",
            WaitKind::GroupCommit => "GROUP_COMMIT",
            WaitKind::DiskIo => "DISKIO",
            WaitKind::Sleep => "SLEEP",
            WaitKind::Net => "NET",
            WaitKind::Other => "UNKNOWN",
            WaitKind::MetaDataLock => "META_DATA_LOCK",
        }
    }
}

/// What a scheduler does when one of its threads starts and ends a wait.
pub trait WaitObserver: Send + Sync {
    fn wait_begin(&self, kind: WaitKind);
    fn wait_end(&self);
}

thread_local! {
    static OBSERVER: RefCell<Option<Arc<dyn WaitObserver>>> = const { RefCell::new(None) };
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Installs (or with None removes) the calling thread's observer.
pub fn set_thread_observer(observer: Option<Arc<dyn WaitObserver>>) {
    OBSERVER.with(|o| *o.borrow_mut() = observer);
}

/// Announces a wait that lasts until the guard drops.
#[must_use = "the wait ends when the guard is dropped"]
pub fn begin(kind: WaitKind) -> WaitGuard {
    let depth = DEPTH.with(|d| {
        let n = d.get();
        d.set(n + 1);
        n
    });
    let observer = if depth == 0 {
        OBSERVER.with(|o| o.borrow().clone())
    } else {
        None
    };
    if let Some(o) = &observer {
        o.wait_begin(kind);
    }
    WaitGuard { observer }
}

/// Ends the wait on drop.
pub struct WaitGuard {
    observer: Option<Arc<dyn WaitObserver>>,
}

impl Drop for WaitGuard {
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
        if let Some(o) = self.observer.take() {
            o.wait_end();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Log(Mutex<Vec<String>>);

    impl WaitObserver for Log {
        fn wait_begin(&self, kind: WaitKind) {
            self.0
                .lock()
                .unwrap()
                .push(format!("begin {}", kind.name()));
        }
        fn wait_end(&self) {
            self.0.lock().unwrap().push("end".into());
        }
    }

    #[test]
    fn without_an_observer_nothing_happens() {
        let g = begin(WaitKind::Sleep);
        drop(g);
    }

    #[test]
    fn only_the_outermost_wait_is_reported() {
        let log = Arc::new(Log::default());
        set_thread_observer(Some(log.clone()));
        {
            let _a = begin(WaitKind::RowLock);
            let _b = begin(WaitKind::DiskIo);
        }
        {
            let _c = begin(WaitKind::GroupCommit);
        }
        set_thread_observer(None);
        {
            let _d = begin(WaitKind::Sleep);
        }
        assert_eq!(
            *log.0.lock().unwrap(),
            vec!["begin ROW_LOCK", "end", "begin GROUP_COMMIT", "end"]
        );
    }

    #[test]
    fn observers_are_per_thread() {
        let log = Arc::new(Log::default());
        set_thread_observer(Some(log.clone()));
        std::thread::spawn(|| {
            let _g = begin(WaitKind::Net);
        })
        .join()
        .unwrap();
        set_thread_observer(None);
        assert!(log.0.lock().unwrap().is_empty());
    }
}
