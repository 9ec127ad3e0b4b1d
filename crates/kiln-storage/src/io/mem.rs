//! An in-memory file system for tests: it remembers which writes were synced, so a
//! simulated crash can drop (or tear, sector by sector) everything that was not, and
//! it injects the faults the engine must survive.
//!
//! Each file keeps `durable` (what survives a crash) and `current` (what reads see).
//! `sync` copies current to durable. `crash` resets current to durable, or with
//! `CrashMode::Torn` keeps a pseudo-random subset of the 4 KiB sectors written since
//! the last sync — the torn page a power cut leaves behind.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;

use super::{DataFile, Vfs};

/// Sector size for torn writes.
pub const SECTOR: usize = 4096;

/// Faults to inject; each applies to every file of the VFS.
#[derive(Debug, Default, Clone)]
pub struct Faults {
    pub fail_reads: bool,
    pub fail_writes: bool,
    pub fail_syncs: bool,
    /// Writes that would grow the file system beyond this many bytes fail with ENOSPC.
    pub capacity_bytes: Option<u64>,
    /// The next write writes only this many bytes, then fails (a short write).
    pub short_write_bytes: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrashMode {
    /// Every unsynced write is lost.
    DropUnsynced,
    /// Unsynced writes survive sector by sector at random (seeded).
    Torn { seed: u64 },
}

#[derive(Default)]
struct FileData {
    durable: Vec<u8>,
    current: Vec<u8>,
    /// (offset, len) of writes since the last sync.
    unsynced: Vec<(u64, usize)>,
}

#[derive(Default)]
struct State {
    files: HashMap<PathBuf, Arc<Mutex<FileData>>>,
    dirs: Vec<PathBuf>,
    faults: Faults,
}

#[derive(Clone, Default)]
pub struct MemVfs {
    state: Arc<Mutex<State>>,
}

struct MemFile {
    data: Arc<Mutex<FileData>>,
    vfs: MemVfs,
}

fn injected(kind: io::ErrorKind, what: &str) -> io::Error {
    io::Error::new(kind, format!("injected fault: {what}"))
}

impl MemVfs {
    pub fn new() -> MemVfs {
        MemVfs::default()
    }

    pub fn set_faults(&self, f: Faults) {
        self.state.lock().faults = f;
    }

    pub fn faults(&self) -> Faults {
        self.state.lock().faults.clone()
    }

    fn used_bytes(&self) -> u64 {
        self.state
            .lock()
            .files
            .values()
            .map(|f| f.lock().current.len() as u64)
            .sum()
    }

    /// Simulates a power cut: what was not synced is lost or torn.
    pub fn crash(&self, mode: CrashMode) {
        let st = self.state.lock();
        let mut rng = match mode {
            CrashMode::Torn { seed } => seed | 1,
            CrashMode::DropUnsynced => 0,
        };
        let mut next = move || {
            // xorshift64: deterministic per seed.
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        for f in st.files.values() {
            let mut d = f.lock();
            let current = std::mem::take(&mut d.current);
            let mut durable = d.durable.clone();
            if let CrashMode::Torn { .. } = mode {
                for &(off, len) in &d.unsynced {
                    let mut s = off as usize / SECTOR * SECTOR;
                    while s < off as usize + len {
                        let e = (s + SECTOR).min(current.len());
                        if next() % 2 == 0 && s < e {
                            if durable.len() < e {
                                durable.resize(e, 0);
                            }
                            durable[s..e].copy_from_slice(&current[s..e]);
                        }
                        s += SECTOR;
                    }
                }
            }
            d.durable = durable.clone();
            d.current = durable;
            d.unsynced.clear();
        }
    }

    /// Overwrites bytes of a file directly (durably): corruption for tests.
    pub fn corrupt(&self, path: &Path, offset: usize, bytes: &[u8]) {
        let st = self.state.lock();
        let f = st.files.get(path).expect("file exists");
        let mut d = f.lock();
        d.current[offset..offset + bytes.len()].copy_from_slice(bytes);
        d.durable[offset..offset + bytes.len()].copy_from_slice(bytes);
    }
}

impl DataFile for MemFile {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        if self.vfs.state.lock().faults.fail_reads {
            return Err(injected(io::ErrorKind::Other, "read error"));
        }
        let d = self.data.lock();
        let off = offset as usize;
        if off + buf.len() > d.current.len() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "read past end of file",
            ));
        }
        buf.copy_from_slice(&d.current[off..off + buf.len()]);
        Ok(())
    }

    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        let mut faults = self.vfs.faults();
        if faults.fail_writes {
            return Err(injected(io::ErrorKind::Other, "write error"));
        }
        let off = offset as usize;
        let growth = {
            let d = self.data.lock();
            (off + buf.len()).saturating_sub(d.current.len()) as u64
        };
        if let Some(cap) = faults.capacity_bytes
            && self.vfs.used_bytes() + growth > cap
        {
            return Err(io::Error::from_raw_os_error(libc::ENOSPC));
        }
        let mut n = buf.len();
        let short = faults.short_write_bytes.take();
        if let Some(s) = short {
            n = s.min(n);
            self.vfs.set_faults(faults);
        }
        let mut d = self.data.lock();
        if d.current.len() < off + n {
            d.current.resize(off + n, 0);
        }
        d.current[off..off + n].copy_from_slice(&buf[..n]);
        d.unsynced.push((offset, n));
        if short.is_some() {
            return Err(injected(io::ErrorKind::WriteZero, "short write"));
        }
        Ok(())
    }

    fn sync(&self) -> io::Result<()> {
        if self.vfs.state.lock().faults.fail_syncs {
            return Err(injected(io::ErrorKind::Other, "fsync error"));
        }
        let mut d = self.data.lock();
        // Copy only what changed since the last sync (O(changes), not O(file)).
        let FileData {
            durable,
            current,
            unsynced,
        } = &mut *d;
        durable.resize(current.len(), 0);
        for &(off, len) in unsynced.iter() {
            let (a, b) = (off as usize, (off as usize + len).min(current.len()));
            if a < b {
                durable[a..b].copy_from_slice(&current[a..b]);
            }
        }
        unsynced.clear();
        Ok(())
    }

    fn len(&self) -> io::Result<u64> {
        Ok(self.data.lock().current.len() as u64)
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        // Growth is preallocation here: it counts against the disk's capacity.
        let growth = len.saturating_sub(self.data.lock().current.len() as u64);
        if let Some(cap) = self.vfs.faults().capacity_bytes
            && growth > 0
            && self.vfs.used_bytes() + growth > cap
        {
            return Err(io::Error::from_raw_os_error(libc::ENOSPC));
        }
        let mut d = self.data.lock();
        let old = d.current.len();
        d.current.resize(len as usize, 0);
        if len as usize > old {
            d.unsynced.push((old as u64, len as usize - old));
        }
        Ok(())
    }
}

impl Vfs for MemVfs {
    fn open(&self, path: &Path, create: bool) -> io::Result<Arc<dyn DataFile>> {
        let mut st = self.state.lock();
        let data = match (st.files.get(path), create) {
            (Some(_), true) => {
                return Err(io::Error::new(io::ErrorKind::AlreadyExists, "file exists"));
            }
            (Some(d), false) => d.clone(),
            (None, true) => {
                let d = Arc::new(Mutex::new(FileData::default()));
                st.files.insert(path.to_path_buf(), d.clone());
                d
            }
            (None, false) => {
                return Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!("{} not found", path.display()),
                ));
            }
        };
        Ok(Arc::new(MemFile {
            data,
            vfs: self.clone(),
        }))
    }
    fn exists(&self, path: &Path) -> bool {
        let st = self.state.lock();
        st.files.contains_key(path) || st.dirs.iter().any(|d| d == path)
    }
    fn remove(&self, path: &Path) -> io::Result<()> {
        self.state
            .lock()
            .files
            .remove(path)
            .map(|_| ())
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut st = self.state.lock();
        let f = st
            .files
            .remove(from)
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
        st.files.insert(to.to_path_buf(), f);
        Ok(())
    }
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        self.state.lock().dirs.push(path.to_path_buf());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(f: &Arc<dyn DataFile>) -> Vec<u8> {
        let mut b = vec![0u8; f.len().unwrap() as usize];
        f.read_at(&mut b, 0).unwrap();
        b
    }

    #[test]
    fn crash_drops_unsynced_and_torn_keeps_some_sectors() {
        let vfs = MemVfs::new();
        let p = Path::new("/a");
        let f = vfs.open(p, true).unwrap();
        f.write_at(&[1u8; 8192], 0).unwrap();
        f.sync().unwrap();
        f.write_at(&[2u8; 8192], 0).unwrap();
        vfs.crash(CrashMode::DropUnsynced);
        assert_eq!(read_all(&f), vec![1u8; 8192]);
        // Torn: over many seeds, both sector outcomes happen.
        let mut mixed = false;
        for seed in 1..20 {
            f.write_at(&[3u8; 8192], 0).unwrap();
            vfs.crash(CrashMode::Torn { seed });
            let b = read_all(&f);
            mixed |= b[0] != b[4096];
            f.write_at(&[1u8; 8192], 0).unwrap();
            f.sync().unwrap();
        }
        assert!(mixed, "some crash tore the two sectors apart");
    }

    #[test]
    fn faults() {
        let vfs = MemVfs::new();
        let f = vfs.open(Path::new("/b"), true).unwrap();
        vfs.set_faults(Faults {
            fail_syncs: true,
            ..Faults::default()
        });
        f.write_at(b"x", 0).unwrap();
        assert!(f.sync().is_err());
        vfs.set_faults(Faults {
            capacity_bytes: Some(100),
            ..Faults::default()
        });
        assert_eq!(
            f.write_at(&[0u8; 200], 0).unwrap_err().raw_os_error(),
            Some(libc::ENOSPC)
        );
        vfs.set_faults(Faults {
            short_write_bytes: Some(3),
            ..Faults::default()
        });
        assert!(f.write_at(b"abcdef", 0).is_err());
        assert!(f.write_at(b"abcdef", 0).is_ok(), "short write fires once");
        vfs.set_faults(Faults {
            fail_reads: true,
            ..Faults::default()
        });
        assert!(f.read_at(&mut [0u8; 1], 0).is_err());
        assert!(vfs.open(Path::new("/b"), true).is_err());
        assert!(vfs.open(Path::new("/c"), false).is_err());
    }
}
