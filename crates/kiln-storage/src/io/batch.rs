//! Batched page I/O: many reads or writes in flight at once.
//!
//! `BatchIo::Uring` submits a whole batch to an io_uring in one system call and reaps
//! the completions (`innodb_use_native_aio=ON`). `BatchIo::Threads` is the fallback,
//! chosen automatically when io_uring cannot be set up (old kernel, seccomp, disabled
//! by `kernel.io_uring_disabled`) or is switched off: the batch is split over up to
//! `threads` scoped threads doing `pread`/`pwrite` (`innodb_read_io_threads` /
//! `innodb_write_io_threads`). Files without a descriptor (the in-memory VFS) always
//! take the thread path, through `DataFile`.
//!
//! A batch returns when every operation has completed; the first error wins. Short
//! transfers (a regular file returns them only at end of file or on a full disk) are
//! finished with ordinary positional calls, so callers see all-or-error.

use std::io;
use std::os::fd::RawFd;
use std::sync::Arc;

use parking_lot::Mutex;

use super::DataFile;

/// One write: `buf` to `file` at `offset`.
pub struct WriteOp<'a> {
    pub file: &'a Arc<dyn DataFile>,
    pub offset: u64,
    pub buf: &'a [u8],
}

/// One read into `buf` from `file` at `offset`.
pub struct ReadOp<'a> {
    pub file: &'a Arc<dyn DataFile>,
    pub offset: u64,
    pub buf: &'a mut [u8],
}

pub enum BatchIo {
    Uring {
        ring: Box<Mutex<io_uring::IoUring>>,
        depth: u32,
        threads: usize,
    },
    Threads {
        threads: usize,
    },
}

/// Entries in the ring: a batch larger than this is submitted in rounds.
const RING_DEPTH: u32 = 128;

impl BatchIo {
    /// io_uring if `native` and the kernel allows it, else the thread fallback.
    pub fn new(native: bool, threads: usize) -> BatchIo {
        let threads = threads.clamp(1, 64);
        if native {
            match io_uring::IoUring::new(RING_DEPTH) {
                Ok(ring) => {
                    return BatchIo::Uring {
                        ring: Box::new(Mutex::new(ring)),
                        depth: RING_DEPTH,
                        threads,
                    };
                }
                Err(e) => tracing::warn!("io_uring unavailable ({e}); using pread/pwrite threads"),
            }
        }
        BatchIo::Threads { threads }
    }

    /// What is in use, for the error log and `innodb_use_native_aio`.
    pub fn name(&self) -> &'static str {
        match self {
            BatchIo::Uring { .. } => "io_uring",
            BatchIo::Threads { .. } => "pread/pwrite threads",
        }
    }

    pub fn is_native(&self) -> bool {
        matches!(self, BatchIo::Uring { .. })
    }

    fn threads(&self) -> usize {
        match self {
            BatchIo::Uring { threads, .. } | BatchIo::Threads { threads } => *threads,
        }
    }

    pub fn write_all(&self, ops: &[WriteOp<'_>]) -> io::Result<()> {
        if let BatchIo::Uring { ring, depth, .. } = self
            && ops.iter().all(|o| o.file.raw_fd().is_some())
        {
            return uring_batch(
                ring,
                *depth,
                ops.len(),
                |i| {
                    let o = &ops[i];
                    let fd = o.file.raw_fd().expect("checked");
                    io_uring::opcode::Write::new(
                        io_uring::types::Fd(fd),
                        o.buf.as_ptr(),
                        o.buf.len() as u32,
                    )
                    .offset(o.offset)
                    .build()
                },
                |i, done| {
                    let o = &ops[i];
                    if done < o.buf.len() {
                        o.file.write_at(&o.buf[done..], o.offset + done as u64)?;
                    }
                    Ok(())
                },
            );
        }
        threaded(self.threads(), ops, |o| o.file.write_at(o.buf, o.offset))
    }

    pub fn read_all(&self, ops: &mut [ReadOp<'_>]) -> io::Result<()> {
        if let BatchIo::Uring { ring, depth, .. } = self
            && ops.iter().all(|o| o.file.raw_fd().is_some())
        {
            // Files and offsets first (copies of shared references), then raw pointers
            // to the buffers: after this, `ops` is not touched again.
            let meta: Vec<(&Arc<dyn DataFile>, u64)> =
                ops.iter().map(|o| (o.file, o.offset)).collect();
            let ptrs: Vec<(RawFd, *mut u8, usize, u64)> = ops
                .iter_mut()
                .map(|o| {
                    (
                        o.file.raw_fd().expect("checked"),
                        o.buf.as_mut_ptr(),
                        o.buf.len(),
                        o.offset,
                    )
                })
                .collect();
            return uring_batch(
                ring,
                *depth,
                ops.len(),
                |i| {
                    let (fd, p, len, off) = ptrs[i];
                    io_uring::opcode::Read::new(io_uring::types::Fd(fd), p, len as u32)
                        .offset(off)
                        .build()
                },
                |i, done| {
                    let (_, _, len, _) = ptrs[i];
                    if done < len {
                        let (file, offset) = meta[i];
                        // SAFETY: `ptrs[i]` points into `ops[i].buf`, which is borrowed
                        // mutably for this whole call and not otherwise used after `ptrs`
                        // was made; the ring has completed its operation on it, so this is
                        // the only access, within the buffer's bounds (done < len).
                        let rest = unsafe {
                            std::slice::from_raw_parts_mut(ptrs[i].1.add(done), len - done)
                        };
                        file.read_at(rest, offset + done as u64)?;
                    }
                    Ok(())
                },
            );
        }
        let n = ops.len().div_ceil(self.threads()).max(1);
        run_chunks(ops.chunks_mut(n), |c| {
            c.iter_mut()
                .try_for_each(|o| o.file.read_at(o.buf, o.offset))
        })
    }
}

fn threaded<T: Sync>(
    threads: usize,
    ops: &[T],
    f: impl Fn(&T) -> io::Result<()> + Sync,
) -> io::Result<()> {
    if ops.len() <= 1 || threads <= 1 {
        return ops.iter().try_for_each(&f);
    }
    run_chunks(ops.chunks(ops.len().div_ceil(threads)), |c| {
        c.iter().try_for_each(&f)
    })
}

/// Runs `f` on every chunk, one scoped thread per chunk; the first error wins.
fn run_chunks<C: Send>(
    chunks: impl Iterator<Item = C>,
    f: impl Fn(C) -> io::Result<()> + Sync,
) -> io::Result<()> {
    std::thread::scope(|s| {
        let f = &f;
        let handles: Vec<_> = chunks.map(|c| s.spawn(move || f(c))).collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(io::Error::other("I/O thread panicked")))
            })
            .collect::<io::Result<Vec<()>>>()
            .map(|_| ())
    })
}

/// Submits `n` operations built by `entry` in rounds of at most `depth`, waits for
/// all, and lets `finish` complete short transfers. `user_data` is the op's index.
fn uring_batch(
    ring: &Mutex<io_uring::IoUring>,
    depth: u32,
    n: usize,
    entry: impl Fn(usize) -> io_uring::squeue::Entry,
    finish: impl Fn(usize, usize) -> io::Result<()>,
) -> io::Result<()> {
    let mut ring = ring.lock();
    let mut first_err: Option<io::Error> = None;
    let mut short: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    while start < n {
        let end = (start + depth as usize).min(n);
        for i in start..end {
            let e = entry(i).user_data(i as u64);
            // SAFETY: the buffers and descriptors an entry refers to are borrowed by
            // the caller for the whole batch, and this function does not return before
            // every submitted entry has completed (submit_and_wait below, under the
            // ring's mutex), so the kernel never touches them after they are released.
            unsafe {
                ring.submission()
                    .push(&e)
                    .map_err(|_| io::Error::other("io_uring submission queue full"))?
            };
        }
        let want = end - start;
        let mut got = 0;
        while got < want {
            match ring.submit_and_wait(want - got) {
                Ok(_) => {}
                Err(e)
                    if matches!(
                        e.raw_os_error(),
                        Some(libc::EINTR | libc::EAGAIN | libc::EBUSY)
                    ) =>
                {
                    std::thread::yield_now();
                    continue;
                }
                // Entries may be in flight with pointers into the caller's buffers:
                // returning would let the kernel write into freed memory.
                Err(e) => panic!("io_uring_enter failed with operations in flight: {e}"),
            }
            for cqe in ring.completion() {
                got += 1;
                let i = cqe.user_data() as usize;
                let r = cqe.result();
                if r < 0 {
                    first_err.get_or_insert(io::Error::from_raw_os_error(-r));
                } else {
                    short.push((i, r as usize));
                }
            }
        }
        start = end;
    }
    drop(ring);
    if let Some(e) = first_err {
        return Err(e);
    }
    for (i, done) in short {
        finish(i, done)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::Vfs;
    use crate::io::mem::MemVfs;
    use crate::io::os::OsVfs;
    use crate::page::{PAGE_SIZE, PageBuf};

    fn round_trip(io: &BatchIo, files: &[Arc<dyn DataFile>]) {
        // 300 pages over the files, more than one ring's depth, out of order.
        let pages: Vec<Box<PageBuf>> = (0..300u32)
            .map(|i| {
                let mut b = PageBuf::zeroed();
                b.0.fill((i % 251) as u8);
                b.0[..4].copy_from_slice(&i.to_le_bytes());
                b
            })
            .collect();
        let slot = |i: usize| ((i * 7919) % 300) as u64 * PAGE_SIZE as u64;
        let ops: Vec<WriteOp<'_>> = pages
            .iter()
            .enumerate()
            .map(|(i, p)| WriteOp {
                file: &files[i % files.len()],
                offset: slot(i),
                buf: &p.0,
            })
            .collect();
        io.write_all(&ops).unwrap();
        let mut back: Vec<Box<PageBuf>> = (0..300).map(|_| PageBuf::zeroed()).collect();
        let mut rops: Vec<ReadOp<'_>> = back
            .iter_mut()
            .enumerate()
            .map(|(i, p)| ReadOp {
                file: &files[i % files.len()],
                offset: slot(i),
                buf: &mut p.0,
            })
            .collect();
        io.read_all(&mut rops).unwrap();
        for (a, b) in pages.iter().zip(back.iter()) {
            assert!(
                a.0 == b.0,
                "page {} read back",
                u32::from_le_bytes(a.0[..4].try_into().unwrap())
            );
        }
        // Reading past the end of a file is an error, never a short success.
        let mut one = PageBuf::zeroed();
        let mut bad = [ReadOp {
            file: &files[0],
            offset: 10_000 * PAGE_SIZE as u64,
            buf: &mut one.0,
        }];
        assert!(io.read_all(&mut bad).is_err());
    }

    #[test]
    fn io_uring_and_threads_round_trip_on_real_files() {
        let dir = std::env::temp_dir().join(format!("kiln-batchio-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let vfs = OsVfs { direct: true };
        for (n, io) in [BatchIo::new(true, 4), BatchIo::new(false, 4)]
            .into_iter()
            .enumerate()
        {
            let files: Vec<Arc<dyn DataFile>> = (0..3)
                .map(|f| {
                    let p = dir.join(format!("{n}-{f}.ibd"));
                    let _ = std::fs::remove_file(&p);
                    vfs.open(&p, true).unwrap()
                })
                .collect();
            round_trip(&io, &files);
            eprintln!("batch I/O engine {n}: {}", io.name());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn files_without_descriptors_take_the_thread_path() {
        let vfs = MemVfs::new();
        let files: Vec<Arc<dyn DataFile>> = (0..2)
            .map(|f| {
                vfs.open(std::path::Path::new(&format!("/m{f}")), true)
                    .unwrap()
            })
            .collect();
        round_trip(&BatchIo::new(true, 3), &files);
    }
}
