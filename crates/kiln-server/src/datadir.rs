//! The data directory: first-start initialization (like `mysqld --initialize-insecure`),
//! the format-version check that refuses foreign or newer datadirs, the exclusive lock
//! that keeps a second server off, and the pid file.
//!
//! Layout (so far):
//!
//! | path                   | what                                               |
//! |------------------------|----------------------------------------------------|
//! | `kiln_format`          | `kiln-datadir-format <N>` — version of this layout |
//! | `kiln.lock`            | flock()ed by the running server                    |
//! | `mysql/accounts`       | user accounts (see `accounts.rs`)                  |
//! | `*.pem`                | TLS and RSA key material (see `tls.rs`)            |
//! | `kiln.sock`, `*.pid`   | default socket and pid file                        |

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// Version of the datadir layout this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
const FORMAT_FILE: &str = "kiln_format";
const LOCK_FILE: &str = "kiln.lock";

/// Holds the datadir lock for the life of the server.
pub struct DatadirLock {
    _file: File,
    pub path: PathBuf,
}

/// Whether `dir` needs initializing: it is missing or holds nothing but hidden files,
/// `lost+found` and the files in `ignore` (the error log, which is opened before the
/// datadir is looked at and commonly lives inside it).
pub fn needs_init(dir: &Path, ignore: &[PathBuf]) -> Result<bool, String> {
    let ignored = |e: &fs::DirEntry| {
        let name = e.file_name();
        let name = name.to_string_lossy();
        name.starts_with('.')
            || name == "lost+found"
            || ignore.iter().any(|p| {
                p.file_name() == Some(&e.file_name())
                    && p.parent().and_then(|d| d.canonicalize().ok()) == dir.canonicalize().ok()
            })
    };
    match fs::read_dir(dir) {
        Ok(it) => Ok(it.filter_map(|e| e.ok()).all(|e| ignored(&e))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(true),
        Err(e) => Err(format!(
            "cannot read data directory '{}': {e}",
            dir.display()
        )),
    }
}

/// Creates the directory (if needed) and writes the format marker.
pub fn create(dir: &Path) -> Result<(), String> {
    fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create data directory '{}': {e}", dir.display()))?;
    fs::create_dir_all(dir.join("mysql"))
        .map_err(|e| format!("cannot create '{}/mysql': {e}", dir.display()))?;
    write_atomic(
        &dir.join(FORMAT_FILE),
        format!("kiln-datadir-format {FORMAT_VERSION}\n").as_bytes(),
    )
}

/// Checks that `dir` is a kiln datadir of a format this build understands.
pub fn check_format(dir: &Path) -> Result<(), String> {
    let p = dir.join(FORMAT_FILE);
    let text = match fs::read_to_string(&p) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!(
                "data directory '{}' is not empty and has no {FORMAT_FILE} file: it is not a kiln data directory (refusing to touch it)",
                dir.display()
            ));
        }
        Err(e) => return Err(format!("cannot read '{}': {e}", p.display())),
    };
    let version = text
        .trim()
        .strip_prefix("kiln-datadir-format ")
        .and_then(|v| v.parse::<u32>().ok())
        .ok_or_else(|| format!("'{}' is corrupt: {:?}", p.display(), text.trim()))?;
    if version != FORMAT_VERSION {
        return Err(format!(
            "data directory '{}' has format version {version}, this kiln reads version {FORMAT_VERSION}; refusing to start (the datadir was left untouched)",
            dir.display()
        ));
    }
    Ok(())
}

/// Takes the exclusive lock, or explains who holds it.
pub fn lock(dir: &Path) -> Result<DatadirLock, String> {
    let path = dir.join(LOCK_FILE);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|e| format!("cannot open lock file '{}': {e}", path.display()))?;
    // SAFETY: flock on a valid, owned file descriptor has no memory-safety requirements.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if rc != 0 {
        let holder = fs::read_to_string(&path).unwrap_or_default();
        return Err(format!(
            "Unable to lock '{}': another kiln server (pid {}) is already using data directory '{}'",
            path.display(),
            holder.trim(),
            dir.display()
        ));
    }
    let mut f = &file;
    let _ = file.set_len(0);
    let _ = writeln!(f, "{}", std::process::id());
    Ok(DatadirLock { _file: file, path })
}

pub fn write_pid_file(path: &Path) -> Result<(), String> {
    fs::write(path, format!("{}\n", std::process::id()))
        .map_err(|e| format!("cannot write pid file '{}': {e}", path.display()))
}

/// Writes a file by write-to-temp + fsync + rename + fsync(dir), so a crash leaves the
/// old or the new contents, never a torn mix.
pub fn write_atomic(path: &Path, data: &[u8]) -> Result<(), String> {
    write_atomic_mode(path, data, 0o644)
}

/// `write_atomic` creating the file with permission bits `mode` (0600 for keys), so
/// a secret is never readable by others, not even for a moment.
pub fn write_atomic_mode(path: &Path, data: &[u8], mode: u32) -> Result<(), String> {
    use std::os::unix::fs::OpenOptionsExt;
    let tmp = path.with_extension("tmp");
    let _ = fs::remove_file(&tmp);
    let res = (|| -> std::io::Result<()> {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&tmp)?;
        f.write_all(data)?;
        f.sync_all()?;
        fs::rename(&tmp, path)?;
        if let Some(parent) = path.parent() {
            File::open(parent)?.sync_all()?;
        }
        Ok(())
    })();
    res.map_err(|e| format!("cannot write '{}': {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tempdir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("kiln-datadir-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn init_check_and_lock() {
        let d = tempdir("a");
        assert!(needs_init(&d, &[]).unwrap());
        // An error log (and hidden files) inside an otherwise empty datadir are fine.
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("error.log"), "x").unwrap();
        fs::write(d.join(".keep"), "").unwrap();
        assert!(needs_init(&d, &[d.join("error.log")]).unwrap());
        assert!(!needs_init(&d, &[]).unwrap());
        create(&d).unwrap();
        assert!(!needs_init(&d, &[d.join("error.log")]).unwrap());
        check_format(&d).unwrap();
        let l = lock(&d).unwrap();
        let e = lock(&d).err().unwrap();
        assert!(e.contains("already using"), "{e}");
        drop(l);
        lock(&d).unwrap();
        fs::write(d.join(FORMAT_FILE), "kiln-datadir-format 99\n").unwrap();
        assert!(check_format(&d).unwrap_err().contains("version 99"));
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn foreign_directory_refused() {
        let d = tempdir("b");
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("ibdata1"), b"x").unwrap();
        assert!(
            check_format(&d)
                .unwrap_err()
                .contains("not a kiln data directory")
        );
        fs::remove_dir_all(&d).unwrap();
    }
}
