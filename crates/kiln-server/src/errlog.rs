//! The error log: timestamped lines in MySQL 8's layout
//! `2026-11-23T03:19:06.123456Z <thread> [Note] [Server] message`, written to the
//! `log_error` file or to stderr. Logging never fails the caller: a write error is
//! reported once on stderr and later lines go to stderr.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use kiln_common::time::CivilTime;
use parking_lot::Mutex;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    Note,
    System,
}

impl Severity {
    fn label(self) -> &'static str {
        match self {
            Severity::Error => "ERROR",
            Severity::Warning => "Warning",
            Severity::Note => "Note",
            Severity::System => "System",
        }
    }
}

static SINK: Mutex<Option<File>> = Mutex::new(None);
/// Lines logged per severity (tests and SHOW STATUS use these).
static COUNTS: [AtomicU64; 4] = [const { AtomicU64::new(0) }; 4];

/// Sends the log to `path` (appending). Until called, lines go to stderr.
pub fn open(path: &Path) -> std::io::Result<()> {
    let f = OpenOptions::new().create(true).append(true).open(path)?;
    *SINK.lock() = Some(f);
    Ok(())
}

/// Whether the log goes to a file (else to stderr).
pub fn is_file() -> bool {
    SINK.lock().is_some()
}

pub fn log(sev: Severity, thread: u64, msg: &str) {
    COUNTS[sev as usize].fetch_add(1, Ordering::Relaxed);
    let line = format!(
        "{} {} [{}] [Server] {}\n",
        CivilTime::now_utc().log_string(),
        thread,
        sev.label(),
        msg
    );
    let mut sink = SINK.lock();
    if let Some(f) = sink.as_mut() {
        if f.write_all(line.as_bytes()).is_ok() {
            return;
        }
        *sink = None;
        eprintln!("kiln: cannot write the error log; logging to stderr from now on");
    }
    let _ = std::io::stderr().write_all(line.as_bytes());
}

pub fn count(sev: Severity) -> u64 {
    COUNTS[sev as usize].load(Ordering::Relaxed)
}

pub fn note(msg: &str) {
    log(Severity::Note, 0, msg);
}

pub fn system(msg: &str) {
    log(Severity::System, 0, msg);
}

pub fn warning(msg: &str) {
    log(Severity::Warning, 0, msg);
}

pub fn error(msg: &str) {
    log(Severity::Error, 0, msg);
}
