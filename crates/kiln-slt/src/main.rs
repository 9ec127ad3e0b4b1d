//! `kiln-slt`: runs sqllogictest files against a MySQL-protocol server (kiln, or a
//! reference server) the way SQLite's reference runner would, and reports per-record
//! pass rates. See `args::USAGE` for the command line.
//!
//! Exit status: 0 when every file was run (whatever the pass rate), 1 when a file could
//! not be read, parsed or given a database, or the JSON report could not be written,
//! 2 on a usage error.

mod args;
mod conn;
mod db;
mod file_run;
mod format;
mod outcome;
mod report;
mod script;
mod side;
mod validate;

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let args = match args::parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(2);
        }
    };

    let mut results = Vec::with_capacity(args.files.len());
    let mut status = ExitCode::SUCCESS;
    for path in &args.files {
        let started = Instant::now();
        let outcome = file_run::run_file(path, &args.target, &args.limits, args.loose_types);
        let secs = started.elapsed().as_secs_f64();
        let name = path.display().to_string();
        println!("{}", report::summary_line(&name, &outcome));
        // Progress matters on long runs; stdout may be a pipe.
        let _ = std::io::stdout().flush();
        if outcome.fatal.is_some() {
            status = ExitCode::from(1);
        }
        results.push((name, outcome, secs));
    }
    println!("{}", report::total_line(&results));

    if let Some(out) = &args.json
        && let Err(e) = report::write_json(out, &results)
    {
        eprintln!("kiln-slt: cannot write {}: {e}", out.display());
        status = ExitCode::from(1);
    }
    status
}
