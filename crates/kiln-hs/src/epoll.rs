//! A minimal level-triggered epoll wrapper (Linux): registration by token and a wait
//! that fills a reusable event buffer.

use std::io;
use std::os::fd::RawFd;

pub const READABLE: u32 = libc::EPOLLIN as u32 | libc::EPOLLRDHUP as u32;
pub const WRITABLE: u32 = libc::EPOLLOUT as u32;

pub struct Epoll {
    fd: RawFd,
}

impl Epoll {
    pub fn new() -> io::Result<Epoll> {
        // SAFETY: epoll_create1 takes no pointers; the result is checked.
        let fd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Epoll { fd })
    }

    fn ctl(&self, op: i32, fd: RawFd, events: u32, token: u64) -> io::Result<()> {
        let mut ev = libc::epoll_event { events, u64: token };
        // SAFETY: `ev` is a valid epoll_event for the duration of the call; `fd` is an
        // open descriptor owned by the caller.
        let r = unsafe { libc::epoll_ctl(self.fd, op, fd, &mut ev) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    pub fn add(&self, fd: RawFd, events: u32, token: u64) -> io::Result<()> {
        self.ctl(libc::EPOLL_CTL_ADD, fd, events, token)
    }

    pub fn modify(&self, fd: RawFd, events: u32, token: u64) -> io::Result<()> {
        self.ctl(libc::EPOLL_CTL_MOD, fd, events, token)
    }

    pub fn delete(&self, fd: RawFd) -> io::Result<()> {
        self.ctl(libc::EPOLL_CTL_DEL, fd, 0, 0)
    }

    /// Waits up to `timeout_ms` (-1: forever) and returns the ready (token, events).
    pub fn wait(&self, buf: &mut Vec<libc::epoll_event>, timeout_ms: i32) -> io::Result<usize> {
        let cap = buf.capacity().max(1);
        buf.clear();
        buf.reserve(cap);
        // SAFETY: the kernel writes at most `cap` events into the vector's spare
        // capacity, and we set the length to the count it reports.
        let n = unsafe { libc::epoll_wait(self.fd, buf.as_mut_ptr(), cap as i32, timeout_ms) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                return Ok(0);
            }
            return Err(e);
        }
        // SAFETY: epoll_wait initialized the first n entries (n <= cap).
        unsafe { buf.set_len(n as usize) };
        Ok(n as usize)
    }
}

impl Drop for Epoll {
    fn drop(&mut self) {
        // SAFETY: we own the descriptor and close it once.
        unsafe { libc::close(self.fd) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsRawFd;
    use std::os::unix::net::UnixStream;

    #[test]
    fn reports_readable_with_token() {
        let ep = Epoll::new().unwrap();
        let (mut a, b) = UnixStream::pair().unwrap();
        ep.add(b.as_raw_fd(), READABLE, 42).unwrap();
        let mut evs = Vec::with_capacity(8);
        assert_eq!(ep.wait(&mut evs, 0).unwrap(), 0);
        a.write_all(b"x").unwrap();
        assert_eq!(ep.wait(&mut evs, 1000).unwrap(), 1);
        let tok = evs[0].u64;
        assert_eq!(tok, 42);
        ep.delete(b.as_raw_fd()).unwrap();
    }
}
