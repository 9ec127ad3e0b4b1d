//! The log flusher thread: makes the redo durable in the background.
//!
//! - Once a second it writes and fsyncs everything appended — what
//!   `innodb_flush_log_at_trx_commit` 0 and 2 promise (at most about a second of
//!   commits lost in a crash of the machine; with 2, none in a crash of kiln alone).
//! - On request (`request`), at once: callers that batch many changes and do not want
//!   to block per commit (the HandlerSocket port) ask for an LSN and later check
//!   `Log::flushed_lsn` — the non-blocking commit API.
//!
//! It calls `Log::flush_to` like any committer, so it joins the same group commit.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use super::Log;

pub struct Flusher {
    log: Arc<Log>,
    /// Highest LSN someone asked to be made durable.
    target: AtomicU64,
    wake: (Mutex<()>, Condvar),
    stop: AtomicBool,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl Flusher {
    pub fn spawn(log: Arc<Log>) -> std::io::Result<Arc<Flusher>> {
        let f = Arc::new(Flusher {
            log,
            target: AtomicU64::new(0),
            wake: (Mutex::new(()), Condvar::new()),
            stop: AtomicBool::new(false),
            thread: Mutex::new(None),
        });
        let me = f.clone();
        let h = std::thread::Builder::new()
            .name("kiln-log-flusher".into())
            .spawn(move || me.run())?;
        *f.thread.lock() = Some(h);
        Ok(f)
    }

    /// Asks for everything up to `lsn` to become durable soon; returns at once.
    pub fn request(&self, lsn: u64) {
        if self.log.flushed_lsn() >= lsn {
            return;
        }
        self.target.fetch_max(lsn, Ordering::AcqRel);
        let _g = self.wake.0.lock();
        self.wake.1.notify_one();
    }

    fn run(&self) {
        let mut reported = false;
        while !self.stop.load(Ordering::Acquire) {
            let timed_out = {
                let mut g = self.wake.0.lock();
                if self.target.load(Ordering::Acquire) <= self.log.flushed_lsn()
                    && !self.stop.load(Ordering::Acquire)
                {
                    self.wake
                        .1
                        .wait_for(&mut g, Duration::from_secs(1))
                        .timed_out()
                } else {
                    false
                }
            };
            let to = if timed_out {
                self.log.current_lsn()
            } else {
                self.target.load(Ordering::Acquire)
            };
            if let Err(e) = self.log.flush_to(to) {
                if !reported {
                    tracing::error!("log flusher: {e}");
                    reported = true;
                }
                // The log has stopped: what was asked cannot become durable. Idle
                // (no spinning) until stopped.
                let mut g = self.wake.0.lock();
                if !self.stop.load(Ordering::Acquire) {
                    self.wake.1.wait_for(&mut g, Duration::from_secs(1));
                }
            }
        }
    }

    /// Stops the thread (after one last flush attempt by the caller, if wanted).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Release);
        {
            let _g = self.wake.0.lock();
            self.wake.1.notify_one();
        }
        if let Some(h) = self.thread.lock().take() {
            let _ = h.join();
        }
    }
}
