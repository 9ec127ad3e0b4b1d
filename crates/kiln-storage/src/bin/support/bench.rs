//! What the benchmark binaries share: the report line and timed thread groups.

use std::sync::Arc;
use std::time::Instant;

/// One result line: operations per second and nanoseconds per operation.
pub fn report(what: &str, n: u64, secs: f64) {
    println!(
        "{what:<58} {:>12.0} ops/s {:>10.0} ns/op",
        n as f64 / secs,
        secs * 1e9 / n as f64
    );
}

/// Runs `f(0)`, ..., `f(n - 1)` on `n` threads; returns the seconds until all ended.
pub fn threads<F: Fn(usize) + Send + Sync + 'static>(n: usize, f: F) -> f64 {
    let f = Arc::new(f);
    let t0 = Instant::now();
    let hs: Vec<_> = (0..n)
        .map(|i| {
            let f = f.clone();
            std::thread::spawn(move || f(i))
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    t0.elapsed().as_secs_f64()
}
