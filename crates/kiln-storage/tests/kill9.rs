//! Crash test with real processes and real files: `kiln-crashtest run` applies a
//! stream of operations, acknowledging durable ones on stdout; we SIGKILL it at a
//! random moment (sometimes while it is still recovering from the previous kill),
//! then `kiln-crashtest verify` recovers and checks that every acknowledged operation
//! is present and the state is an exact prefix of the stream.
//!
//! Cycles: `KILN_KILL9_CYCLES` (default 100).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_kiln-crashtest");

#[test]
fn sigkill_cycles_keep_every_acknowledged_commit() {
    let cycles: u64 = std::env::var("KILN_KILL9_CYCLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let dir = std::env::temp_dir().join(format!("kiln-kill9-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut x = 0x9e37_79b9_u64 ^ std::process::id() as u64;
    let mut rand = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let t0 = Instant::now();
    let mut total_acked = 0;
    for cycle in 0..cycles {
        let seed = rand();
        let mut child = Command::new(BIN)
            .args(["run", dir.to_str().unwrap(), &seed.to_string()])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut acked = 0u64;
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(n) = line.strip_prefix("ACK ") {
                    acked = n.parse().unwrap();
                }
            }
            acked
        });
        // One cycle in eight is killed early: during start-up, recovery, or (in the
        // first cycle) the creation of the data directory itself.
        let ms = if rand() % 8 == 0 {
            rand() % 40
        } else {
            40 + rand() % 300
        };
        std::thread::sleep(Duration::from_millis(ms));
        child.kill().unwrap(); // SIGKILL
        let status = child.wait().unwrap();
        assert!(!status.success(), "child exited by itself: {status}");
        let acked = reader.join().unwrap();
        total_acked += acked;
        let mut verify = Command::new(BIN);
        verify.args([
            "verify",
            dir.to_str().unwrap(),
            &seed.to_string(),
            &acked.to_string(),
        ]);
        if cycle % 2 == 0 {
            verify.arg("--clean");
        }
        let out = verify.output().unwrap();
        assert!(
            out.status.success(),
            "cycle {cycle} (seed {seed}, killed after {ms} ms, {acked} acked): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if cycle % 10 == 0 {
            eprintln!(
                "cycle {cycle}: {}",
                String::from_utf8_lossy(&out.stdout).trim()
            );
        }
    }
    eprintln!(
        "{cycles} kill cycles, {total_acked} acknowledged operations verified, {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
