//! A minimal level-triggered epoll set over libc (Linux), for the `mysql` mode's event
//! loops, plus the process's CPU time (getrusage). This file holds the crate's only
//! `unsafe`: four system calls, each with its SAFETY argument.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::Duration;

pub const IN: u32 = libc::EPOLLIN as u32;
pub const OUT: u32 = libc::EPOLLOUT as u32;
pub const HUP: u32 = (libc::EPOLLHUP | libc::EPOLLRDHUP) as u32;
pub const ERR: u32 = libc::EPOLLERR as u32;

pub struct Epoll {
    fd: OwnedFd,
}

/// One readiness report: the token given at registration and the event bits.
#[derive(Clone, Copy, Debug)]
pub struct Event {
    pub token: u64,
    pub events: u32,
}

impl Epoll {
    pub fn new() -> io::Result<Epoll> {
        // SAFETY: epoll_create1 takes no pointers; a non-negative result is a new file
        // descriptor that nothing else owns, so OwnedFd may take it.
        let fd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` was just returned by epoll_create1 and is owned by no one else.
        Ok(Epoll {
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
        })
    }

    fn ctl(&self, op: libc::c_int, fd: RawFd, token: u64, events: u32) -> io::Result<()> {
        let mut ev = libc::epoll_event { events, u64: token };
        // SAFETY: `ev` is a valid epoll_event for the duration of the call (the kernel
        // copies it); both descriptors are open (the caller owns `fd`).
        let r = unsafe { libc::epoll_ctl(self.fd.as_raw_fd(), op, fd, &mut ev) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    pub fn add(&self, fd: RawFd, token: u64, events: u32) -> io::Result<()> {
        self.ctl(libc::EPOLL_CTL_ADD, fd, token, events)
    }

    pub fn modify(&self, fd: RawFd, token: u64, events: u32) -> io::Result<()> {
        self.ctl(libc::EPOLL_CTL_MOD, fd, token, events)
    }

    /// Waits up to `timeout` and fills `out` (cleared first) with the ready events.
    pub fn wait(&self, buf: &mut Vec<libc::epoll_event>, timeout: Duration, out: &mut Vec<Event>) {
        out.clear();
        let cap = buf.capacity().clamp(1, 4096);
        buf.clear();
        let ms = timeout.as_millis().min(i32::MAX as u128) as libc::c_int;
        // SAFETY: `buf` has room for `cap` events (its capacity); the kernel writes at
        // most `cap` of them, and `set_len` below keeps only the `n` it wrote.
        let n = unsafe {
            libc::epoll_wait(
                self.fd.as_raw_fd(),
                buf.as_mut_ptr(),
                cap as libc::c_int,
                ms,
            )
        };
        if n <= 0 {
            return; // timeout, or EINTR: the caller loops anyway
        }
        // SAFETY: the kernel initialised the first `n` (≤ cap ≤ capacity) entries.
        unsafe { buf.set_len(n as usize) };
        out.extend(buf.iter().map(|e| Event {
            token: e.u64,
            events: e.events,
        }));
    }
}

/// User + system CPU time of the whole process so far.
pub fn process_cpu() -> Duration {
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `ru` points to writable memory of the right size; getrusage fills it and
    // cannot fail for RUSAGE_SELF with a valid pointer (a zeroed struct is valid too).
    let ru = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, ru.as_mut_ptr());
        ru.assume_init()
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::net::UnixStream;

    #[test]
    fn reports_readable_sockets_by_token() {
        let ep = Epoll::new().unwrap();
        let (mut a, b) = UnixStream::pair().unwrap();
        ep.add(b.as_raw_fd(), 77, IN).unwrap();
        let mut buf = Vec::with_capacity(8);
        let mut out = Vec::new();
        ep.wait(&mut buf, Duration::from_millis(0), &mut out);
        assert!(out.is_empty());
        a.write_all(b"x").unwrap();
        ep.wait(&mut buf, Duration::from_millis(1000), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].token, 77);
        assert!(out[0].events & IN != 0);
        ep.modify(b.as_raw_fd(), 78, OUT).unwrap();
        ep.wait(&mut buf, Duration::from_millis(1000), &mut out);
        assert_eq!(out[0].token, 78);
        assert!(out[0].events & OUT != 0);
        assert!(process_cpu() > Duration::ZERO);
    }
}
