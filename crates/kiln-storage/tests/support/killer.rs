//! What the SIGKILL tests share: a seeded random source, and running a child that
//! prints `ACK ...` lines until it is killed.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

/// A xorshift generator seeded from `salt` and the test's process id.
pub fn rand_source(salt: u64) -> impl FnMut() -> u64 {
    let mut x = salt ^ std::process::id() as u64;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

/// Milliseconds to let a child run: one time in eight early (start-up, recovery,
/// even the creation of the data directory), otherwise `base` to `base + spread`.
pub fn kill_delay_ms(rand: &mut impl FnMut() -> u64, base: u64, spread: u64) -> u64 {
    if rand().is_multiple_of(8) {
        rand() % base
    } else {
        base + rand() % spread
    }
}

/// Runs `bin args`, SIGKILLs it after `ms`, and returns what followed `ACK ` on each
/// of its stdout lines. Panics if it ended by itself (exit or panic) before the kill.
pub fn run_and_kill(bin: &str, args: &[&str], ms: u64) -> Vec<String> {
    let mut child = Command::new(bin)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .filter_map(|l| l.strip_prefix("ACK ").map(str::to_string))
            .collect::<Vec<_>>()
    });
    std::thread::sleep(Duration::from_millis(ms));
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    // Killed by us, not ended by itself (a panic, an error exit).
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(9), "child ended by itself: {status}");
    reader.join().unwrap()
}
