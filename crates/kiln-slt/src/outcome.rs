//! The result of running one file: record counts and the failing records kept for the
//! report, each described as (SQL, what was expected, what happened).

use sqllogictest::{ColumnType, QueryExpect, Record, StatementExpect, TestError, TestErrorKind};

use crate::script::Rec;
use crate::side::Shape;

#[derive(Debug, Default)]
pub struct FileOutcome {
    /// Statements and queries that ran (or were due to run) on this engine.
    pub executed: u64,
    pub ok: u64,
    /// Statements and queries excluded by `skipif`/`onlyif`/`halt`.
    pub skipped: u64,
    /// The first failing records, up to the configured limit.
    pub failures: Vec<Failure>,
    /// A problem with the file as a whole (unreadable, unparsable, no scratch database).
    pub fatal: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Failure {
    pub line: u32,
    pub sql: String,
    /// What the file expects, in its own notation (result lines, `ok`, `error`).
    pub expected: String,
    /// What the server gave: result lines, `ok`, or `None` when it failed instead.
    pub got: Option<String>,
    /// The server's (or the connection's) error, when there was one.
    pub error: Option<String>,
}

impl FileOutcome {
    pub fn record_failure(&mut self, failure: Failure, keep: usize) {
        if self.failures.len() < keep {
            self.failures.push(failure);
        }
    }

    pub fn pct(&self) -> f64 {
        if self.executed == 0 {
            100.0
        } else {
            self.ok as f64 * 100.0 / self.executed as f64
        }
    }
}

/// What the record expects, rendered for humans.
pub fn expectation(rec: &Rec) -> (u32, String, String) {
    match rec {
        Record::Statement {
            loc, sql, expected, ..
        } => {
            let e = match expected {
                StatementExpect::Ok => "ok".to_string(),
                StatementExpect::Count(n) => format!("ok, {n} rows affected"),
                StatementExpect::Error(_) => "error".to_string(),
            };
            (loc.line(), sql.clone(), e)
        }
        Record::Query {
            loc, sql, expected, ..
        } => {
            let e = match expected {
                QueryExpect::Results { types, results, .. } => {
                    let letters: String = types.iter().map(|t| t.to_char()).collect();
                    format!("[{letters}]\n{}", results.join("\n"))
                }
                QueryExpect::Error(_) => "error".to_string(),
            };
            (loc.line(), sql.clone(), e)
        }
        _ => (0, String::new(), String::new()),
    }
}

/// Describes a failed record from the runner's error, the record's expectation and the
/// shape of the result the server returned (if it returned one).
pub fn describe(
    err: &TestError,
    line: u32,
    sql: String,
    expected: String,
    shape: Option<&Shape>,
) -> Failure {
    let mut f = Failure {
        line,
        sql,
        expected,
        got: None,
        error: None,
    };
    match err.kind() {
        TestErrorKind::Ok { .. } => f.got = Some("ok".into()),
        TestErrorKind::Fail { err, .. } | TestErrorKind::ErrorMismatch { err, .. } => {
            f.error = Some(err.to_string())
        }
        TestErrorKind::StatementResultMismatch { actual, .. } => f.got = Some(actual),
        TestErrorKind::QueryResultMismatch { actual, .. } => f.got = Some(actual),
        TestErrorKind::QueryResultColumnsMismatch { actual, .. } => {
            let detail = shape.map(Shape::describe).unwrap_or_default();
            f.got = Some(format!("[{actual}] (column types differ) {detail}"))
        }
        other => f.error = Some(other.to_string()),
    }
    f
}
