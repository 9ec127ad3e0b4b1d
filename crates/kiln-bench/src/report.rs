//! Presenting a run: the result block on stdout (or one JSON object with `--json`),
//! with throughput, error and miss counts, and latency percentiles in microseconds.

use std::fmt::Write;

use crate::runner::RunResult;

/// The run's parameters, echoed with its results.
#[derive(Clone, Debug)]
pub struct RunInfo {
    /// `hs` or `memcached`.
    pub mode: &'static str,
    pub host: String,
    pub port: u16,
    pub connections: usize,
    /// Client threads driving the connections.
    pub threads: usize,
    pub pipeline: usize,
    pub keys: u64,
    /// `uniform` or `zipfian`.
    pub dist: &'static str,
    pub write_ratio: f64,
    pub warmup_secs: u64,
    pub seed: u64,
}

/// The percentiles reported, with their JSON names.
const PERCENTILES: [(f64, &str); 4] =
    [(50.0, "p50"), (90.0, "p90"), (99.0, "p99"), (99.9, "p99_9")];

pub(crate) fn us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

fn ops_per_sec(r: &RunResult) -> f64 {
    let secs = r.elapsed.as_secs_f64();
    if secs > 0.0 { r.ops as f64 / secs } else { 0.0 }
}

/// What one latency sample covers.
fn latency_unit(info: &RunInfo) -> String {
    if info.pipeline == 1 {
        "request".to_string()
    } else {
        format!("batch of {}", info.pipeline)
    }
}

/// The human-readable block.
pub fn text(info: &RunInfo, r: &RunResult) -> String {
    let mut s = String::new();
    let h = &r.latency;
    let _ = writeln!(
        s,
        "kiln-bench {} {}:{}  connections {} (threads {})  pipeline {}  keys {} ({})  write-ratio {}  seed {}",
        info.mode,
        info.host,
        info.port,
        info.connections,
        info.threads,
        info.pipeline,
        info.keys,
        info.dist,
        info.write_ratio,
        info.seed
    );
    let _ = writeln!(
        s,
        "measured     {:.2} s (after {} s warmup)",
        r.elapsed.as_secs_f64(),
        info.warmup_secs
    );
    let _ = writeln!(
        s,
        "ops          {} (reads {}, writes {})",
        r.ops, r.reads, r.writes
    );
    let _ = writeln!(s, "ops/s        {:.0}", ops_per_sec(r));
    let _ = writeln!(s, "errors       {}", r.errors);
    let _ = writeln!(s, "misses       {}", r.misses);
    let _ = write!(
        s,
        "latency µs   (per {}, {} samples)",
        latency_unit(info),
        h.count()
    );
    for (p, _) in PERCENTILES {
        let _ = write!(s, "  p{p} {:.1}", us(h.percentile(p)));
    }
    let _ = writeln!(s, "  max {:.1}  mean {:.1}", us(h.max()), h.mean() / 1000.0);
    s
}

/// One JSON object (single line).
pub fn json(info: &RunInfo, r: &RunResult) -> String {
    let h = &r.latency;
    let mut s = String::from("{");
    let _ = write!(
        s,
        "\"mode\":{},\"host\":{},\"port\":{},\"connections\":{},\"threads\":{},\"pipeline\":{},\"keys\":{},\
         \"dist\":{},\"write_ratio\":{},\"seed\":{},\"warmup_s\":{},\"duration_s\":{:.3},\
         \"ops\":{},\"reads\":{},\"writes\":{},\"ops_per_sec\":{:.1},\"errors\":{},\
         \"misses\":{},\"latency_unit\":{},\"latency_samples\":{},\"latency_us\":{{",
        json_str(info.mode),
        json_str(&info.host),
        info.port,
        info.connections,
        info.threads,
        info.pipeline,
        info.keys,
        json_str(info.dist),
        json_num(info.write_ratio),
        info.seed,
        info.warmup_secs,
        r.elapsed.as_secs_f64(),
        r.ops,
        r.reads,
        r.writes,
        ops_per_sec(r),
        r.errors,
        r.misses,
        json_str(if info.pipeline == 1 {
            "request"
        } else {
            "batch"
        }),
        h.count(),
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

/// A JSON string literal.
pub(crate) fn json_str(v: &str) -> String {
    let mut s = String::with_capacity(v.len() + 2);
    s.push('"');
    for c in v.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(s, "\\u{:04x}", c as u32);
            }
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

/// A finite JSON number (`null` otherwise).
fn json_num(v: f64) -> String {
    if v.is_finite() {
        format!("{v}")
    } else {
        "null".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn sample() -> (RunInfo, RunResult) {
        let info = RunInfo {
            mode: "memcached",
            host: "127.0.0.1".into(),
            port: 11211,
            connections: 2,
            threads: 2,
            pipeline: 4,
            keys: 1000,
            dist: "zipfian",
            write_ratio: 0.5,
            warmup_secs: 2,
            seed: 42,
        };
        let mut r = RunResult {
            ops: 4000,
            reads: 2000,
            writes: 2000,
            errors: 1,
            misses: 2,
            elapsed: Duration::from_secs(2),
            ..RunResult::default()
        };
        for us in 1..=1000u64 {
            r.latency.record(us * 1000);
        }
        (info, r)
    }

    #[test]
    fn text_block() {
        let (info, r) = sample();
        let t = text(&info, &r);
        assert!(t.contains("ops/s        2000\n"), "{t}");
        assert!(t.contains("per batch of 4, 1000 samples"), "{t}");
        assert!(t.contains("max 1000.0"), "{t}");
    }

    #[test]
    fn json_object() {
        let (info, r) = sample();
        let j = json(&info, &r);
        assert!(
            j.starts_with("{\"mode\":\"memcached\",\"host\":\"127.0.0.1\""),
            "{j}"
        );
        assert!(j.contains("\"ops\":4000,"), "{j}");
        assert!(j.contains("\"ops_per_sec\":2000.0,"), "{j}");
        assert!(j.contains("\"write_ratio\":0.5,"), "{j}");
        assert!(j.contains("\"latency_unit\":\"batch\""), "{j}");
        assert!(j.contains("\"max\":1000.0,\"mean\":500.5}}"), "{j}");
        assert!(j.ends_with("}}"));
        assert_eq!(j.matches('{').count(), j.matches('}').count());
    }

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(json_str("a\"b\\c\n\u{1}"), "\"a\\\"b\\\\c\\n\\u0001\"");
        assert_eq!(json_num(f64::NAN), "null");
    }
}
