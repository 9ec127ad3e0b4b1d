//! Presenting a `mysql` run: the text block on stdout (or one JSON object with
//! `--json`) with queries and transactions per second, errors and retried
//! transactions, rows read, latency percentiles per transaction in microseconds, and
//! the client's own CPU time during the measured phase, so a reader can tell whether
//! the client was the bottleneck.

use std::fmt::Write;

use crate::mysql_load::MyResult;
use crate::report::{json_str, us};

/// The run's parameters, echoed with its results.
#[derive(Clone, Debug)]
pub struct MyInfo {
    pub target: String,
    pub workload: &'static str,
    pub connections: usize,
    pub threads: usize,
    pub tables: u32,
    pub table_size: u64,
    pub warmup_secs: u64,
    pub seed: u64,
}

const PERCENTILES: [(f64, &str); 4] =
    [(50.0, "p50"), (95.0, "p95"), (99.0, "p99"), (99.9, "p99_9")];

fn per_sec(n: u64, r: &MyResult) -> f64 {
    let secs = r.elapsed.as_secs_f64();
    if secs > 0.0 { n as f64 / secs } else { 0.0 }
}

/// Client CPU as a percentage of one core over the measured phase.
fn cpu_pct(r: &MyResult) -> f64 {
    let secs = r.elapsed.as_secs_f64();
    if secs > 0.0 {
        100.0 * r.client_cpu.as_secs_f64() / secs
    } else {
        0.0
    }
}

pub fn text(i: &MyInfo, r: &MyResult) -> String {
    let mut s = String::new();
    let h = &r.latency;
    let _ = writeln!(
        s,
        "kiln-bench mysql {} {} ({})  connections {}  threads {}  tables {} x {} rows  seed {}",
        i.workload,
        i.target,
        r.server_version,
        i.connections,
        i.threads,
        i.tables,
        i.table_size,
        i.seed
    );
    let _ = writeln!(
        s,
        "measured     {:.2} s (after {} s warmup; set-up {:.2} s)",
        r.elapsed.as_secs_f64(),
        i.warmup_secs,
        r.setup.as_secs_f64()
    );
    let _ = writeln!(
        s,
        "transactions {} ({:.0}/s)",
        r.transactions,
        per_sec(r.transactions, r)
    );
    let _ = writeln!(
        s,
        "queries      {} ({:.0}/s)",
        r.queries,
        per_sec(r.queries, r)
    );
    let _ = writeln!(
        s,
        "errors       {}  retried {} (1213/1205/1020)  misses {}  rows {}",
        r.errors, r.retried, r.misses, r.rows
    );
    let _ = write!(s, "latency µs   (per transaction, {} samples)", h.count());
    for (p, _) in PERCENTILES {
        let _ = write!(s, "  p{p} {:.1}", us(h.percentile(p)));
    }
    let _ = writeln!(s, "  max {:.1}  mean {:.1}", us(h.max()), h.mean() / 1000.0);
    let _ = writeln!(
        s,
        "client CPU   {:.2} s ({:.0}% of one core)",
        r.client_cpu.as_secs_f64(),
        cpu_pct(r)
    );
    s
}

/// One JSON object (single line).
pub fn json(i: &MyInfo, r: &MyResult) -> String {
    let h = &r.latency;
    let mut s = String::from("{\"mode\":\"mysql\",");
    let _ = write!(
        s,
        "\"workload\":{},\"target\":{},\"server_version\":{},\"connections\":{},\"threads\":{},\
         \"tables\":{},\"table_size\":{},\"seed\":{},\"warmup_s\":{},\"duration_s\":{:.3},\
         \"setup_s\":{:.3},\
         \"transactions\":{},\"queries\":{},\"tps\":{:.1},\"qps\":{:.1},\"errors\":{},\
         \"retried\":{},\"misses\":{},\"rows\":{},\"client_cpu_s\":{:.3},\
         \"client_cpu_pct\":{:.1},\"latency_unit\":\"transaction\",\"latency_samples\":{},\
         \"latency_us\":{{",
        json_str(i.workload),
        json_str(&i.target),
        json_str(&r.server_version),
        i.connections,
        i.threads,
        i.tables,
        i.table_size,
        i.seed,
        i.warmup_secs,
        r.elapsed.as_secs_f64(),
        r.setup.as_secs_f64(),
        r.transactions,
        r.queries,
        per_sec(r.transactions, r),
        per_sec(r.queries, r),
        r.errors,
        r.retried,
        r.misses,
        r.rows,
        r.client_cpu.as_secs_f64(),
        cpu_pct(r),
        h.count()
    );
    for (p, name) in PERCENTILES {
        let _ = write!(s, "\"{name}\":{:.1},", us(h.percentile(p)));
    }
    let _ = write!(
        s,
        "\"max\":{:.1},\"mean\":{:.1}}}}}",
        us(h.max()),
        h.mean() / 1000.0
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn text_and_json() {
        let info = MyInfo {
            target: "/tmp/k.sock".into(),
            workload: "read_write",
            connections: 4000,
            threads: 2,
            tables: 8,
            table_size: 10_000,
            warmup_secs: 2,
            seed: 42,
        };
        let mut r = MyResult {
            transactions: 1000,
            queries: 18_000,
            errors: 1,
            retried: 3,
            rows: 12_345,
            elapsed: Duration::from_secs(2),
            client_cpu: Duration::from_millis(500),
            ..MyResult::default()
        };
        for us in 1..=100u64 {
            r.latency.record(us * 1000);
        }
        let t = text(&info, &r);
        assert!(t.contains("transactions 1000 (500/s)"), "{t}");
        assert!(t.contains("queries      18000 (9000/s)"), "{t}");
        assert!(t.contains("client CPU   0.50 s (25% of one core)"), "{t}");
        let j = json(&info, &r);
        assert!(
            j.starts_with("{\"mode\":\"mysql\",\"workload\":\"read_write\""),
            "{j}"
        );
        assert!(
            j.contains("\"qps\":9000.0,\"errors\":1,\"retried\":3,"),
            "{j}"
        );
        assert!(j.contains("\"client_cpu_pct\":25.0,"), "{j}");
        assert!(j.contains("\"p95\":95."), "{j}");
        assert_eq!(j.matches('{').count(), j.matches('}').count());
    }
}
