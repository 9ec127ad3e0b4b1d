//! Presenting results: one summary line per file and a total on stdout, and the JSON
//! report (`--json`) with counts and the kept failing records of every file.

use std::path::Path;

use serde_json::{Value, json};

use crate::outcome::{Failure, FileOutcome};

/// `<file> <ok>/<executed> (<pct>%) skipped=<n>`, plus the file-level problem if any.
pub fn summary_line(name: &str, o: &FileOutcome) -> String {
    let mut s = format!(
        "{name} {}/{} ({:.2}%) skipped={}",
        o.ok,
        o.executed,
        o.pct(),
        o.skipped
    );
    if let Some(fatal) = &o.fatal {
        s.push_str(&format!(" FATAL: {fatal}"));
    }
    s
}

/// The same line for the sum over all files.
pub fn total_line(files: &[(String, FileOutcome, f64)]) -> String {
    summary_line("TOTAL", &total(files))
}

fn total(files: &[(String, FileOutcome, f64)]) -> FileOutcome {
    let mut t = FileOutcome::default();
    for (_, o, _) in files {
        t.ok += o.ok;
        t.executed += o.executed;
        t.skipped += o.skipped;
    }
    t
}

fn failure_json(f: &Failure) -> Value {
    json!({
        "line": f.line,
        "sql": f.sql,
        "expected": f.expected,
        "got": f.got,
        "error": f.error,
    })
}

/// `{"files": {name: {ok, executed, skipped, seconds, fatal, failures}}, "total": {...}}`.
pub fn to_json(files: &[(String, FileOutcome, f64)]) -> Value {
    let mut per_file = serde_json::Map::new();
    for (name, o, secs) in files {
        per_file.insert(
            name.clone(),
            json!({
                "ok": o.ok,
                "executed": o.executed,
                "skipped": o.skipped,
                "seconds": (secs * 1000.0).round() / 1000.0,
                "fatal": o.fatal,
                "failures": o.failures.iter().map(failure_json).collect::<Vec<_>>(),
            }),
        );
    }
    let t = total(files);
    json!({
        "files": per_file,
        "total": {"ok": t.ok, "executed": t.executed, "skipped": t.skipped},
    })
}

pub fn write_json(path: &Path, files: &[(String, FileOutcome, f64)]) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(&to_json(files))?;
    std::fs::write(path, text + "\n")
}
