//! Reading a test file into the steps to perform, with the corpus's conventions applied
//! where the sqllogictest crate's parser differs from SQLite's reference runner:
//!
//! * condition lines carry trailing comments (`onlyif mysql # aggregate syntax:`), which
//!   the crate's parser rejects; they are stripped before parsing;
//! * `skipif`/`onlyif` apply to the record that follows; the crate also lets conditions
//!   before a `halt` leak onto the next statement, and treats `halt` itself as
//!   unconditional. Here conditions are evaluated per record, for engine `mysql`, and a
//!   `halt` counts only if its conditions select this engine.

use std::path::Path;

use sqllogictest::{Condition, DefaultColumnType, Record};

/// The label this runner answers to in `skipif` / `onlyif`.
pub const ENGINE: &str = "mysql";

pub type Rec = Record<DefaultColumnType>;

/// What to do with one parsed record.
#[derive(Debug)]
pub enum Step {
    /// A statement or query to execute and count (its conditions already evaluated and
    /// cleared, so the crate's runner does not evaluate them again).
    Run(Box<Rec>),
    /// A statement or query not run on this engine (or after an applicable `halt`).
    Skip,
    /// Runner state (`hash-threshold`, `control ...`): applied, not counted.
    Control(Box<Rec>),
    /// A record kind this runner refuses to execute (`system`, `let`, ...): counted as a
    /// failure without running it. The corpus has none.
    Unsupported(Box<Rec>),
}

/// Largest test file read (the corpus's largest is about 10 MB).
const MAX_FILE_BYTES: u64 = 256 << 20;

/// Reads and parses `path`. `Err` is a message naming the file and line.
pub fn load(path: &Path) -> Result<Vec<Step>, String> {
    let size = std::fs::metadata(path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .len();
    if size > MAX_FILE_BYTES {
        return Err(format!(
            "{}: larger than {MAX_FILE_BYTES} bytes",
            path.display()
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let cleaned = strip_condition_comments(&text);
    let records =
        sqllogictest::parse_with_name::<DefaultColumnType>(&cleaned, path.display().to_string())
            .map_err(|e| format!("parse error: {e} at {}", e.location()))?;
    Ok(plan(records))
}

/// Removes `# ...` from condition / halt / hash-threshold lines at the start of a record.
/// SQL and result lines are left alone: a `#` there is data.
fn strip_condition_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at_record_start = true;
    for line in text.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        let is_control = matches!(first, "skipif" | "onlyif" | "halt" | "hash-threshold");
        if at_record_start && is_control {
            let kept = line.split_once('#').map_or(line, |(head, _)| head);
            out.push_str(kept.trim_end());
        } else {
            out.push_str(line);
        }
        out.push('\n');
        // A record's header lines (conditions) come right after a blank line or a
        // comment; once a command line is seen we are inside a record until a blank line.
        at_record_start = line.trim().is_empty()
            || line.starts_with('#')
            || (at_record_start && matches!(first, "skipif" | "onlyif" | "halt"));
    }
    out
}

/// True when `conditions` select this engine.
fn applies(conditions: &[Condition]) -> bool {
    conditions.iter().all(|c| match c {
        Condition::OnlyIf { label } => label == ENGINE,
        Condition::SkipIf { label } => label != ENGINE,
    })
}

/// Turns parsed records into steps, evaluating conditions the way the reference runner
/// does: the condition lines of a record apply to that record only.
fn plan(records: Vec<Rec>) -> Vec<Step> {
    let mut steps = Vec::with_capacity(records.len());
    let mut pending: Vec<Condition> = Vec::new();
    let mut halted = false;
    for mut rec in records {
        match &mut rec {
            Record::Condition(c) => {
                pending.push(c.clone());
                continue;
            }
            Record::Halt { .. } => {
                halted |= applies(&pending);
                pending.clear();
                continue;
            }
            Record::Statement { conditions, .. } | Record::Query { conditions, .. } => {
                let run = !halted && applies(&pending);
                pending.clear();
                conditions.clear();
                steps.push(if run {
                    Step::Run(Box::new(rec))
                } else {
                    Step::Skip
                });
                continue;
            }
            // A blank line ends a record: conditions never outlive it.
            Record::Newline => pending.clear(),
            Record::HashThreshold { .. } | Record::Control(_) => {
                steps.push(Step::Control(Box::new(rec)));
                pending.clear();
            }
            Record::Comment(_) => {}
            _ => {
                let run = !halted && applies(&pending);
                pending.clear();
                steps.push(if run {
                    Step::Unsupported(Box::new(rec))
                } else {
                    Step::Skip
                });
            }
        }
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(text: &str) -> Vec<&'static str> {
        let cleaned = strip_condition_comments(text);
        let recs = sqllogictest::parse::<DefaultColumnType>(&cleaned).unwrap();
        plan(recs)
            .iter()
            .map(|s| match s {
                Step::Run(_) => "run",
                Step::Skip => "skip",
                Step::Control(_) => "control",
                Step::Unsupported(_) => "unsupported",
            })
            .collect()
    }

    #[test]
    fn conditions_with_comments() {
        let t = "onlyif mysql # aggregate syntax:\nquery I nosort\nSELECT 1\n----\n1\n\n\
                 skipif mysql # not compatible\nquery I nosort\nSELECT 2\n----\n2\n\n\
                 onlyif sqlite\nstatement ok\nSELECT 3\n\nstatement ok\nSELECT 4\n";
        assert_eq!(steps(t), ["run", "skip", "skip", "run"]);
    }

    #[test]
    fn conditional_halt_does_not_leak() {
        let t = "onlyif mssql\nhalt\n\nonlyif oracle\nhalt\n\nstatement ok\nSELECT 1\n\n\
                 hash-threshold 8\n\nquery I nosort\nSELECT 1\n----\n1\n";
        assert_eq!(steps(t), ["run", "control", "run"]);
    }

    #[test]
    fn applicable_halt_skips_the_rest() {
        let t = "statement ok\nSELECT 1\n\nonlyif mysql\nhalt\n\nstatement ok\nSELECT 2\n";
        assert_eq!(steps(t), ["run", "skip"]);
    }

    #[test]
    fn hash_in_sql_is_kept() {
        let t = "statement ok\nSELECT '# x'\n";
        assert_eq!(strip_condition_comments(t), t);
    }
}
