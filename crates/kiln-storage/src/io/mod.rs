//! File access. Every byte the engine reads or writes goes through `Vfs` / `DataFile`
//! so tests can swap the operating system for `mem::MemVfs`, which keeps unsynced
//! writes apart (a simulated crash drops or tears them) and injects faults: I/O errors
//! on read/write/fsync, short and torn writes, a full disk.
//!
//! `os::OsVfs` is the real thing: positional `pread`/`pwrite`, `O_DIRECT` when asked
//! for and supported by the file system (tmpfs is not; kiln then falls back to buffered
//! I/O and says so).

pub mod batch;
pub mod mem;
pub mod os;

use std::io;
use std::path::Path;
use std::sync::Arc;

/// An open file.
pub trait DataFile: Send + Sync {
    /// Reads exactly `buf.len()` bytes at `offset`; reading past the end is an
    /// `UnexpectedEof` error.
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    /// Writes all of `buf` at `offset`, extending the file as needed.
    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()>;
    /// Makes every completed write durable.
    fn sync(&self) -> io::Result<()>;
    fn len(&self) -> io::Result<u64>;
    fn is_empty(&self) -> io::Result<bool> {
        Ok(self.len()? == 0)
    }
    fn set_len(&self, len: u64) -> io::Result<()>;
    /// The OS descriptor, for io_uring (None: not an OS file).
    fn raw_fd(&self) -> Option<std::os::fd::RawFd> {
        None
    }
}

/// A file system.
pub trait Vfs: Send + Sync {
    /// Opens `path`; with `create`, creates it (and fails if it exists).
    fn open(&self, path: &Path, create: bool) -> io::Result<Arc<dyn DataFile>>;
    /// Opens without `O_DIRECT` whatever the configuration: the redo log writes
    /// byte ranges that are not sector-aligned.
    fn open_buffered(&self, path: &Path, create: bool) -> io::Result<Arc<dyn DataFile>> {
        self.open(path, create)
    }
    fn exists(&self, path: &Path) -> bool;
    fn remove(&self, path: &Path) -> io::Result<()>;
    fn create_dir_all(&self, path: &Path) -> io::Result<()>;
    /// Renames a file (atomically, as POSIX rename does).
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// Makes the directory's entries (created and renamed files) durable.
    fn sync_dir(&self, _dir: &Path) -> io::Result<()> {
        Ok(())
    }
}
