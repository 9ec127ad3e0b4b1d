//! Command-line parsing for `kiln-slt`: the server to talk to, the limits that bound
//! every record and file, and the test files to run. Nothing here touches the network.

use std::path::PathBuf;
use std::time::Duration;

/// Where the server is and how to log in.
#[derive(Clone, Debug)]
pub struct Target {
    pub host: String,
    pub port: u16,
    pub socket: Option<String>,
    pub user: String,
    pub password: String,
    /// The scratch database every file runs in; dropped and recreated per file.
    pub database: String,
}

/// Bounds on everything the runner waits for or buffers.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Wall-clock budget of one record (statement or query).
    pub record_timeout: Duration,
    /// Wall-clock budget of one file; records after it runs out are counted as failed.
    pub file_timeout: Duration,
    /// Rows read from one result set before the query is abandoned.
    pub max_rows: usize,
    /// Bytes of values read from one result set before the query is abandoned.
    pub max_bytes: usize,
    /// Failing records kept per file for the JSON report.
    pub max_failures: usize,
}

#[derive(Debug)]
pub struct Args {
    pub target: Target,
    pub limits: Limits,
    pub json: Option<PathBuf>,
    /// Format values by the file's type letters and skip the type check, as SQLite's
    /// reference runner does; for telling wrong types from wrong values.
    pub loose_types: bool,
    pub files: Vec<PathBuf>,
}

pub const USAGE: &str = "\
usage: kiln-slt [options] FILE...
  --host HOST          server host (default 127.0.0.1)
  --port PORT          server TCP port (default 3306)
  --socket PATH        connect through this Unix socket instead of TCP
  --user USER          user name (default root)
  --password PW        password (default empty)
  --database NAME      scratch database, dropped and recreated per file (default slt)
  --json OUT           write per-file results and failing records to OUT
  --timeout SECS       per-record time limit (default 30)
  --file-timeout SECS  per-file time limit (default 900)
  --max-rows N         rows read per result set before giving up (default 1000000)
  --max-bytes N        value bytes read per result set before giving up (default 268435456)
  --failures N         failing records kept per file in the JSON report (default 20)
  --loose-types        format values by the file's type letters instead of checking the
                       server's column types (SQLite's runner; a diagnostic, not the score)";

/// Databases a typo in `--database` must never drop.
const PROTECTED: [&str; 4] = ["mysql", "information_schema", "performance_schema", "sys"];

/// Parses `argv[1..]`. `Err` carries a message for the user (usage problems).
pub fn parse(argv: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut target = Target {
        host: "127.0.0.1".into(),
        port: 3306,
        socket: None,
        user: "root".into(),
        password: String::new(),
        database: "slt".into(),
    };
    let mut limits = Limits {
        record_timeout: Duration::from_secs(30),
        file_timeout: Duration::from_secs(900),
        max_rows: 1_000_000,
        max_bytes: 256 << 20,
        max_failures: 20,
    };
    let mut json = None;
    let mut loose_types = false;
    let mut files = Vec::new();

    let mut it = argv.into_iter();
    while let Some(arg) = it.next() {
        // Accept both `--opt value` and `--opt=value`.
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |what: &str| -> Result<String, String> {
            inline
                .clone()
                .or_else(|| it.next())
                .ok_or_else(|| format!("{what} needs a value"))
        };
        match name.as_str() {
            "--host" => target.host = value("--host")?,
            "--port" => target.port = number(&value("--port")?, "--port")?,
            "--socket" => target.socket = Some(value("--socket")?),
            "--user" => target.user = value("--user")?,
            "--password" => target.password = value("--password")?,
            "--database" => target.database = value("--database")?,
            "--json" => json = Some(PathBuf::from(value("--json")?)),
            "--timeout" => limits.record_timeout = seconds(&value("--timeout")?, "--timeout")?,
            "--file-timeout" => {
                limits.file_timeout = seconds(&value("--file-timeout")?, "--file-timeout")?
            }
            "--max-rows" => limits.max_rows = number(&value("--max-rows")?, "--max-rows")?,
            "--max-bytes" => limits.max_bytes = number(&value("--max-bytes")?, "--max-bytes")?,
            "--failures" => limits.max_failures = number(&value("--failures")?, "--failures")?,
            "--loose-types" => loose_types = true,
            "-h" | "--help" => return Err(USAGE.to_string()),
            s if s.starts_with("--") => return Err(format!("unknown option {s}\n{USAGE}")),
            _ => files.push(PathBuf::from(arg)),
        }
    }

    if files.is_empty() {
        return Err(format!("no test files given\n{USAGE}"));
    }
    let db = &target.database;
    if db.is_empty() || !db.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!("--database must be [A-Za-z0-9_]+, got {db:?}"));
    }
    if PROTECTED.contains(&db.to_ascii_lowercase().as_str()) {
        return Err(format!("refusing to drop system database {db:?}"));
    }
    Ok(Args {
        target,
        limits,
        json,
        loose_types,
        files,
    })
}

fn number<T: std::str::FromStr>(s: &str, opt: &str) -> Result<T, String> {
    s.parse()
        .map_err(|_| format!("{opt}: not a valid number: {s:?}"))
}

fn seconds(s: &str, opt: &str) -> Result<Duration, String> {
    let secs: f64 = number(s, opt)?;
    if !(secs > 0.0 && secs < 1e6) {
        return Err(format!("{opt}: must be between 0 and 1e6 seconds"));
    }
    Ok(Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Args, String> {
        parse(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn defaults_and_files() {
        let a = p(&["--port", "3601", "a.test", "b.test"]).unwrap();
        assert_eq!(a.target.port, 3601);
        assert_eq!(a.target.database, "slt");
        assert_eq!(a.files.len(), 2);
    }

    #[test]
    fn inline_values() {
        let a = p(&["--port=7", "--timeout=1.5", "x"]).unwrap();
        assert_eq!(a.target.port, 7);
        assert_eq!(a.limits.record_timeout, Duration::from_millis(1500));
    }

    #[test]
    fn rejects_bad_input() {
        assert!(p(&[]).is_err());
        assert!(p(&["--database", "mysql", "x"]).is_err());
        assert!(p(&["--database", "a;b", "x"]).is_err());
        assert!(p(&["--port", "x", "f"]).is_err());
        assert!(p(&["--bogus", "f"]).is_err());
    }
}
