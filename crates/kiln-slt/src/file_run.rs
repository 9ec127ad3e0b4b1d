//! Running one test file against the server: a fresh scratch database, then every step
//! in order through the sqllogictest crate's runner (hash threshold 8, strict column
//! types, value-per-line comparison), counting each statement and query as ok, failed
//! or skipped. No record's failure stops the file.

use std::path::Path;
use std::time::Instant;

use sqllogictest::{DefaultColumnType, QueryExpect, Record, Runner, strict_column_validator};

use crate::args::{Limits, Target};
use crate::db::{DbError, MysqlDb};
use crate::outcome::{self, Failure, FileOutcome};
use crate::script::{self, Rec, Step};
use crate::{conn, side, validate};

/// The corpus's default: results with more than 8 values are compared by MD5.
const HASH_THRESHOLD: usize = 8;

/// Runs `path`. With `loose_types`, values are formatted by the type letters the file
/// expects (see `--loose-types`).
pub fn run_file(path: &Path, target: &Target, limits: &Limits, loose_types: bool) -> FileOutcome {
    let mut out = FileOutcome::default();
    let steps = match script::load(path) {
        Ok(s) => s,
        Err(e) => {
            out.fatal = Some(e);
            return out;
        }
    };
    if let Err(e) = conn::fresh_database(target, limits.record_timeout) {
        // Count the records anyway so totals stay comparable: none can pass.
        out.fatal = Some(format!("could not create the scratch database: {e}"));
        for s in &steps {
            match s {
                Step::Skip => out.skipped += 1,
                Step::Run(_) | Step::Unsupported(_) => out.executed += 1,
                Step::Control(_) => {}
            }
        }
        return out;
    }

    let channel = side::new_channel(loose_types);
    let (t, l, c) = (target.clone(), limits.clone(), channel.clone());
    let mut runner = Runner::new(move || {
        let db = MysqlDb::new(t.clone(), l.clone(), c.clone());
        async move { Ok::<_, DbError>(db) }
    });
    runner.with_hash_threshold(HASH_THRESHOLD);
    runner.with_validator(validate::values_match);
    runner.with_column_validator(strict_column_validator);

    let started = Instant::now();
    for step in steps {
        match step {
            Step::Skip => out.skipped += 1,
            Step::Control(rec) => {
                // Only runner state changes here; they cannot fail on the server.
                let _ = runner.run(*rec);
            }
            Step::Unsupported(rec) => {
                out.executed += 1;
                let f = Failure {
                    line: 0,
                    sql: format!("{rec}"),
                    expected: String::new(),
                    got: None,
                    error: Some("record kind not supported by kiln-slt".into()),
                };
                out.record_failure(f, limits.max_failures);
            }
            Step::Run(rec) => {
                out.executed += 1;
                let (line, sql, expected) = outcome::expectation(&rec);
                if started.elapsed() > limits.file_timeout {
                    let f = Failure {
                        line,
                        sql,
                        expected,
                        got: None,
                        error: Some(format!(
                            "not run: file time limit {:?} exceeded",
                            limits.file_timeout
                        )),
                    };
                    out.record_failure(f, limits.max_failures);
                    continue;
                }
                side::lock(&channel).expected = expected_letters(&rec);
                match runner.run(*rec) {
                    Ok(_) => out.ok += 1,
                    Err(e) => {
                        let shape = side::lock(&channel).last.clone();
                        let f = outcome::describe(&e, line, sql, expected, shape.as_ref());
                        out.record_failure(f, limits.max_failures);
                    }
                }
            }
        }
    }
    runner.shutdown();
    out
}

/// The type letters a query record expects (none for statements).
fn expected_letters(rec: &Rec) -> Vec<DefaultColumnType> {
    match rec {
        Record::Query {
            expected: QueryExpect::Results { types, .. },
            ..
        } => types.clone(),
        _ => Vec::new(),
    }
}
