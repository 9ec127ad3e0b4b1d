//! SIGTERM / SIGINT / SIGHUP handling without async-signal-unsafe code: the signals are
//! blocked in every thread (the mask is set before any thread is spawned and inherited)
//! and one thread takes them synchronously with sigwait().

/// Blocks the shutdown signals in the calling thread; call first thing in main().
pub fn block_shutdown_signals() {
    // SAFETY: sigset operations on a zeroed, stack-owned sigset_t; pthread_sigmask with a
    // valid set pointer and a null old-set pointer.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGHUP);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

/// Waits for SIGTERM or SIGINT (SIGHUP is accepted and ignored, as a log-reopen
/// request would be) and returns the signal's name.
pub fn wait_for_shutdown_signal() -> &'static str {
    loop {
        let mut sig: libc::c_int = 0;
        // SAFETY: as above; sigwait writes the received signal into `sig`.
        let rc = unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, libc::SIGTERM);
            libc::sigaddset(&mut set, libc::SIGINT);
            libc::sigaddset(&mut set, libc::SIGHUP);
            libc::sigwait(&set, &mut sig)
        };
        if rc != 0 {
            continue;
        }
        match sig {
            libc::SIGTERM => return "signal SIGTERM",
            libc::SIGINT => return "signal SIGINT",
            _ => {}
        }
    }
}
