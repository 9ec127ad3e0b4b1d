//! Crash test with real processes and real files: `kiln-crashtest run` applies a
//! stream of operations, acknowledging durable ones on stdout; we SIGKILL it at a
//! random moment (sometimes while it is still recovering from the previous kill),
//! then `kiln-crashtest verify` recovers and checks that every acknowledged operation
//! is present and the state is an exact prefix of the stream.
//!
//! Cycles: `KILN_KILL9_CYCLES` (default 100).

#[path = "support/killer.rs"]
mod killer;

use std::process::Command;
use std::time::Instant;

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
    let mut rand = killer::rand_source(0x9e37_79b9);
    let t0 = Instant::now();
    let mut total_acked = 0;
    for cycle in 0..cycles {
        let seed = rand();
        let ms = killer::kill_delay_ms(&mut rand, 40, 300);
        let seed_s = seed.to_string();
        let acks = killer::run_and_kill(BIN, &["run", dir.to_str().unwrap(), &seed_s], ms);
        let acked: u64 = acks.last().map_or(0, |n| n.parse().unwrap());
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
