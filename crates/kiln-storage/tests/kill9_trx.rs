//! Crash test of transactions with real processes and files: `kiln-trxcrash run`
//! makes concurrent transfers (with deadlocks and deliberate rollbacks),
//! acknowledging durable commits on stdout; we SIGKILL it at a random moment, then
//! `kiln-trxcrash verify` recovers, rolls back what was active, and checks that the
//! accounts' total is intact and every acknowledged commit is present. One cycle in
//! three skips the verification, so the next run starts with transactions to roll back
//! in the background while it already serves new ones.
//!
//! Cycles: `KILN_TRX_KILL9_CYCLES` (default 50).

#[path = "support/killer.rs"]
mod killer;

use std::io::Write;
use std::process::Command;
use std::time::Instant;

const BIN: &str = env!("CARGO_BIN_EXE_kiln-trxcrash");

#[test]
fn sigkill_during_transactions_keeps_commits_and_rolls_back_the_rest() {
    let cycles: u64 = std::env::var("KILN_TRX_KILL9_CYCLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let dir = std::env::temp_dir().join(format!("kiln-trxkill9-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let acks = dir.with_extension("acks");
    let mut ack_file = std::fs::File::create(&acks).unwrap();
    let mut rand = killer::rand_source(0x51ed_270b);
    let t0 = Instant::now();
    let (mut total_acked, mut verified) = (0, 0);
    for cycle in 0..cycles {
        let seed = rand();
        let ms = killer::kill_delay_ms(&mut rand, 50, 400);
        let seed_s = seed.to_string();
        let acked = killer::run_and_kill(BIN, &["run", dir.to_str().unwrap(), &seed_s], ms);
        total_acked += acked.len();
        for k in &acked {
            writeln!(ack_file, "{k}").unwrap();
        }
        ack_file.flush().unwrap();
        if cycle % 3 == 1 && cycle + 1 != cycles {
            continue; // the next run rolls back in the background
        }
        let out = Command::new(BIN)
            .args(["verify", dir.to_str().unwrap(), acks.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "cycle {cycle} (seed {seed}, killed after {ms} ms, {} acked): {}{}",
            acked.len(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        verified += 1;
        if cycle % 10 == 0 {
            eprintln!(
                "cycle {cycle}: {}",
                String::from_utf8_lossy(&out.stdout).trim()
            );
        }
    }
    eprintln!(
        "{cycles} kill cycles ({verified} verified), {total_acked} acknowledged commits, {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    std::fs::remove_dir_all(&dir).unwrap();
    let _ = std::fs::remove_file(&acks);
}
