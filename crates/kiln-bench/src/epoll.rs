//! The `mysql` mode's view of epoll: readiness reports as (token, events) values over
//! kiln-common's wrapper (the one the HandlerSocket load runner uses too), plus the
//! process's CPU time (getrusage), which the mode reports as the client's own cost.

use std::io;
use std::os::fd::RawFd;
use std::time::Duration;

pub const IN: u32 = libc::EPOLLIN as u32;
pub const OUT: u32 = libc::EPOLLOUT as u32;
pub const HUP: u32 = (libc::EPOLLHUP | libc::EPOLLRDHUP) as u32;
pub const ERR: u32 = libc::EPOLLERR as u32;

/// A level-triggered epoll set.
pub struct Epoll(kiln_common::epoll::Epoll);

/// One readiness report: the token given at registration and the event bits.
#[derive(Clone, Copy, Debug)]
pub struct Event {
    pub token: u64,
    pub events: u32,
}

impl Epoll {
    pub fn new() -> io::Result<Epoll> {
        Ok(Epoll(kiln_common::epoll::Epoll::new()?))
    }

    pub fn add(&self, fd: RawFd, token: u64, events: u32) -> io::Result<()> {
        self.0.add(fd, events, token)
    }

    pub fn modify(&self, fd: RawFd, token: u64, events: u32) -> io::Result<()> {
        self.0.modify(fd, events, token)
    }

    /// Waits up to `timeout` and fills `out` (cleared first) with the ready events. A
    /// failed wait reports nothing: the caller's loop checks its clock and retries.
    pub fn wait(&self, buf: &mut Vec<libc::epoll_event>, timeout: Duration, out: &mut Vec<Event>) {
        out.clear();
        if buf.capacity() == 0 {
            buf.reserve(64);
        }
        let ms = timeout.as_millis().min(i32::MAX as u128) as i32;
        if self.0.wait(buf, ms).is_err() {
            return;
        }
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
    use std::os::fd::AsRawFd;
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
