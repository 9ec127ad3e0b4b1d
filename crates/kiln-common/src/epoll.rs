//! A minimal epoll wrapper (Linux): registration by token, a wait that fills a
//! reusable event buffer, and an eventfd to wake a thread blocked in that wait.
//! Used by the HandlerSocket workers (level-triggered) and the thread pool's
//! listeners (edge-triggered: a connection is registered once and reported each time
//! new input arrives; the pool's per-connection state decides who runs it).

use std::io;
use std::os::fd::RawFd;

pub const READABLE: u32 = libc::EPOLLIN as u32 | libc::EPOLLRDHUP as u32;
pub const WRITABLE: u32 = libc::EPOLLOUT as u32;
/// Report the descriptor once, then disable it until `modify` re-arms it.
pub const ONESHOT: u32 = libc::EPOLLONESHOT as u32;
/// Edge-triggered: report the descriptor when it turns ready (new data arrives), not
/// while it stays ready.
pub const EDGE: u32 = libc::EPOLLET as u32;

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

/// A non-blocking eventfd: `signal` from any thread makes it readable (and wakes an
/// epoll wait it is registered in) until `drain`.
pub struct EventFd {
    fd: RawFd,
}

impl EventFd {
    pub fn new() -> io::Result<EventFd> {
        // SAFETY: eventfd takes no pointers; the result is checked.
        let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(EventFd { fd })
    }

    pub fn fd(&self) -> RawFd {
        self.fd
    }

    pub fn signal(&self) {
        let one: u64 = 1;
        // SAFETY: writes 8 bytes from a live u64 to our eventfd. A full counter
        // (2^64-2 signals pending) fails with EAGAIN, which is still "signalled".
        unsafe { libc::write(self.fd, (&one as *const u64).cast(), 8) };
    }

    pub fn drain(&self) {
        let mut n: u64 = 0;
        // SAFETY: reads 8 bytes into a live u64 from our non-blocking eventfd.
        unsafe { libc::read(self.fd, (&mut n as *mut u64).cast(), 8) };
    }
}

impl Drop for EventFd {
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

    #[test]
    fn oneshot_reports_once_until_rearmed() {
        let ep = Epoll::new().unwrap();
        let (mut a, b) = UnixStream::pair().unwrap();
        ep.add(b.as_raw_fd(), READABLE | ONESHOT, 7).unwrap();
        a.write_all(b"x").unwrap();
        let mut evs = Vec::with_capacity(8);
        assert_eq!(ep.wait(&mut evs, 1000).unwrap(), 1);
        // Still readable, but disabled until re-armed.
        assert_eq!(ep.wait(&mut evs, 0).unwrap(), 0);
        ep.modify(b.as_raw_fd(), READABLE | ONESHOT, 7).unwrap();
        assert_eq!(ep.wait(&mut evs, 1000).unwrap(), 1);
    }

    #[test]
    fn eventfd_wakes_a_wait_until_drained() {
        let ep = Epoll::new().unwrap();
        let efd = EventFd::new().unwrap();
        ep.add(efd.fd(), READABLE, 1).unwrap();
        let mut evs = Vec::with_capacity(8);
        assert_eq!(ep.wait(&mut evs, 0).unwrap(), 0);
        efd.signal();
        efd.signal();
        assert_eq!(ep.wait(&mut evs, 1000).unwrap(), 1);
        efd.drain();
        assert_eq!(ep.wait(&mut evs, 0).unwrap(), 0);
    }
}
