//! The operating system's files: `pread`/`pwrite` at offsets, optional `O_DIRECT`.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::sync::Arc;

use super::{DataFile, Vfs};

pub struct OsVfs {
    /// Open data files with O_DIRECT (innodb_flush_method=O_DIRECT).
    pub direct: bool,
}

struct OsFile {
    file: File,
}

impl DataFile for OsFile {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.file.read_exact_at(buf, offset)
    }
    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        self.file.write_all_at(buf, offset)
    }
    fn sync(&self) -> io::Result<()> {
        self.file.sync_data()
    }
    fn len(&self) -> io::Result<u64> {
        Ok(self.file.metadata()?.len())
    }
    fn set_len(&self, len: u64) -> io::Result<()> {
        self.file.set_len(len)
    }
    fn raw_fd(&self) -> Option<std::os::fd::RawFd> {
        use std::os::fd::AsRawFd;
        Some(self.file.as_raw_fd())
    }
}

impl OsVfs {
    fn open_with(&self, path: &Path, create: bool, direct: bool) -> io::Result<File> {
        let mut o = OpenOptions::new();
        o.read(true).write(true);
        if create {
            o.create_new(true);
        }
        if direct {
            o.custom_flags(libc::O_DIRECT);
        }
        o.open(path)
    }
}

impl Vfs for OsVfs {
    fn open(&self, path: &Path, create: bool) -> io::Result<Arc<dyn DataFile>> {
        let file = match self.open_with(path, create, self.direct) {
            // File systems without O_DIRECT (tmpfs) refuse it with EINVAL.
            Err(e) if self.direct && e.raw_os_error() == Some(libc::EINVAL) => {
                if create {
                    let _ = std::fs::remove_file(path);
                }
                tracing::warn!(
                    "{}: the file system refuses O_DIRECT; using buffered I/O",
                    path.display()
                );
                self.open_with(path, create, false)?
            }
            other => other?,
        };
        Ok(Arc::new(OsFile { file }))
    }
    fn open_buffered(&self, path: &Path, create: bool) -> io::Result<Arc<dyn DataFile>> {
        Ok(Arc::new(OsFile {
            file: self.open_with(path, create, false)?,
        }))
    }
    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }
    fn remove(&self, path: &Path) -> io::Result<()> {
        std::fs::remove_file(path)
    }
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        std::fs::create_dir_all(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        std::fs::rename(from, to)
    }
    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        File::open(dir)?.sync_all()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::{PAGE_SIZE, PageBuf};

    #[test]
    fn aligned_direct_round_trip() {
        let dir = std::env::temp_dir().join(format!("kiln-osvfs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("t.ibd");
        let _ = std::fs::remove_file(&p);
        let vfs = OsVfs { direct: true };
        let f = vfs.open(&p, true).unwrap();
        let mut b = PageBuf::zeroed();
        b.0[7] = 9;
        f.write_at(&b.0, PAGE_SIZE as u64).unwrap();
        f.sync().unwrap();
        assert_eq!(f.len().unwrap(), 2 * PAGE_SIZE as u64);
        let mut r = PageBuf::zeroed();
        f.read_at(&mut r.0, PAGE_SIZE as u64).unwrap();
        assert_eq!(r.0[7], 9);
        assert!(f.read_at(&mut r.0, 4 * PAGE_SIZE as u64).is_err());
        assert!(
            vfs.open(&p, true).is_err(),
            "create fails on an existing file"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
