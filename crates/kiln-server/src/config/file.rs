//! Option files (`my.cnf`), as `mysqld` reads them:
//!
//! ```text
//! # comment            ; comment
//! [mysqld]             groups; kiln reads [mysqld], [server] and [kiln]
//! port = 3307          name = value (spaces around '=' are ignored)
//! skip-name-resolve    a name alone (a boolean switched on)
//! socket = "/tmp/a b"  quotes are stripped; \n \t \\ \s \" \' are escapes inside
//! !include /etc/x.cnf  another file (relative paths: from this file's directory)
//! !includedir conf.d   every *.cnf file of a directory, in name order
//! ```
//!
//! Limits: 1 MiB per file, 64 KiB per line, 16 levels of `!include`, 256 files.

use std::path::{Path, PathBuf};

/// Groups the server reads.
pub const SERVER_GROUPS: &[&str] = &["mysqld", "server", "kiln"];

const FILE_BYTES_MAX: u64 = 1 << 20;
const LINE_BYTES_MAX: usize = 64 << 10;
const INCLUDE_DEPTH_MAX: usize = 16;
const FILES_MAX: usize = 256;

/// One `name[=value]` line of a group the server reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileOption {
    /// As written (dashes and case kept), without the value.
    pub name: String,
    pub value: Option<String>,
    /// `path:line`, for messages.
    pub origin: String,
}

struct Reader {
    out: Vec<FileOption>,
    files_read: usize,
}

/// Reads `path` and what it includes; returns the options of the server's groups in
/// file order (later lines override earlier ones when applied).
pub fn read(path: &Path) -> Result<Vec<FileOption>, String> {
    let mut r = Reader {
        out: Vec::new(),
        files_read: 0,
    };
    r.read_file(path, 0)?;
    Ok(r.out)
}

fn unquote(v: &str) -> String {
    let b = v.as_bytes();
    if b.len() >= 2 && (b[0] == b'"' || b[0] == b'\'') && b[b.len() - 1] == b[0] {
        let inner = &v[1..v.len() - 1];
        let mut out = String::with_capacity(inner.len());
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('b') => out.push('\u{8}'),
                Some('s') => out.push(' '),
                Some(other) => out.push(other),
                None => out.push('\\'),
            }
        }
        return out;
    }
    v.to_string()
}

/// Strips a trailing `# comment` that is outside quotes and preceded by whitespace.
fn strip_comment(v: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut prev_space = true;
    for (i, c) in v.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '#' && prev_space => return v[..i].trim_end(),
            None => {}
        }
        prev_space = c.is_whitespace();
    }
    v
}

impl Reader {
    fn read_file(&mut self, path: &Path, depth: usize) -> Result<(), String> {
        if depth > INCLUDE_DEPTH_MAX {
            return Err(format!(
                "option file '{}' is nested more than {INCLUDE_DEPTH_MAX} !include levels deep",
                path.display()
            ));
        }
        self.files_read += 1;
        if self.files_read > FILES_MAX {
            return Err(format!(
                "more than {FILES_MAX} option files to read (at '{}')",
                path.display()
            ));
        }
        let meta = std::fs::metadata(path).map_err(|e| {
            format!(
                "Could not open required defaults file: {} ({e})",
                path.display()
            )
        })?;
        if meta.len() > FILE_BYTES_MAX {
            return Err(format!(
                "option file '{}' is larger than {FILE_BYTES_MAX} bytes",
                path.display()
            ));
        }
        let bytes = std::fs::read(path).map_err(|e| {
            format!(
                "Could not open required defaults file: {} ({e})",
                path.display()
            )
        })?;
        let text = String::from_utf8_lossy(&bytes);
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut in_server_group: Option<bool> = None;
        for (n, raw) in text.lines().enumerate() {
            let origin = format!("{}:{}", path.display(), n + 1);
            if raw.len() > LINE_BYTES_MAX {
                return Err(format!(
                    "line too long ({} bytes, limit {LINE_BYTES_MAX}) at {origin}",
                    raw.len()
                ));
            }
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
                continue;
            }
            if let Some(rest) = line.strip_prefix("!includedir") {
                let d = resolve(&dir, rest.trim());
                let mut files: Vec<PathBuf> = std::fs::read_dir(&d)
                    .map_err(|e| {
                        format!("cannot read !includedir '{}' at {origin}: {e}", d.display())
                    })?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "cnf") && p.is_file())
                    .collect();
                files.sort();
                for f in files {
                    self.read_file(&f, depth + 1)?;
                }
                continue;
            }
            if let Some(rest) = line.strip_prefix("!include") {
                self.read_file(&resolve(&dir, rest.trim()), depth + 1)?;
                continue;
            }
            if line.starts_with('!') {
                return Err(format!("unknown directive '{line}' at {origin}"));
            }
            if let Some(group) = line.strip_prefix('[') {
                let Some(group) = group.strip_suffix(']') else {
                    return Err(format!("wrong group definition '{line}' at {origin}"));
                };
                let g = group.trim().to_ascii_lowercase();
                in_server_group = Some(SERVER_GROUPS.contains(&g.as_str()));
                continue;
            }
            match in_server_group {
                None => {
                    return Err(format!(
                        "Found option without preceding group in config file {}: '{line}'",
                        origin
                    ));
                }
                Some(false) => continue,
                Some(true) => {}
            }
            let line = strip_comment(line);
            let (name, value) = match line.split_once('=') {
                Some((n, v)) => (n.trim(), Some(unquote(v.trim()))),
                None => (line.trim(), None),
            };
            if name.is_empty() {
                return Err(format!("option without a name at {origin}"));
            }
            self.out.push(FileOption {
                name: name.to_string(),
                value,
                origin,
            });
        }
        Ok(())
    }
}

fn resolve(dir: &Path, p: &str) -> PathBuf {
    let p = Path::new(p);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        dir.join(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("kiln-cnf-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn groups_comments_quotes_includes() {
        let d = tmp("a");
        std::fs::create_dir_all(d.join("conf.d")).unwrap();
        std::fs::write(d.join("conf.d/b.cnf"), "[kiln]\nwait_timeout=5\n").unwrap();
        std::fs::write(d.join("conf.d/a.cnf"), "[server]\nwait_timeout=4\n").unwrap();
        std::fs::write(d.join("conf.d/ignored.txt"), "[kiln]\nbogus\n").unwrap();
        std::fs::write(d.join("inc.cnf"), "[mysqld]\nmax_connections = 7\n").unwrap();
        std::fs::write(
            d.join("my.cnf"),
            "# top\n[client]\nuser=x\n[mysqld]\nport = 3307 # trailing\n; semi\nskip-name-resolve\nsocket=\"/tmp/a b#c\"\n!include inc.cnf\n!includedir conf.d\n[mysqldump]\nquick\n",
        )
        .unwrap();
        let opts = read(&d.join("my.cnf")).unwrap();
        let pairs: Vec<(&str, Option<&str>)> = opts
            .iter()
            .map(|o| (o.name.as_str(), o.value.as_deref()))
            .collect();
        assert_eq!(
            pairs,
            vec![
                ("port", Some("3307")),
                ("skip-name-resolve", None),
                ("socket", Some("/tmp/a b#c")),
                ("max_connections", Some("7")),
                ("wait_timeout", Some("4")),
                ("wait_timeout", Some("5")),
            ]
        );
        assert!(opts[0].origin.ends_with("my.cnf:5"));
    }

    #[test]
    fn errors_name_the_place() {
        let d = tmp("b");
        std::fs::write(d.join("a.cnf"), "port=1\n").unwrap();
        assert!(
            read(&d.join("a.cnf"))
                .unwrap_err()
                .contains("without preceding group")
        );
        std::fs::write(d.join("b.cnf"), "[mysqld\n").unwrap();
        assert!(read(&d.join("b.cnf")).unwrap_err().contains("b.cnf:1"));
        std::fs::write(d.join("c.cnf"), "!include c.cnf\n").unwrap();
        assert!(read(&d.join("c.cnf")).unwrap_err().contains("nested"));
        assert!(
            read(&d.join("missing.cnf"))
                .unwrap_err()
                .contains("Could not open")
        );
    }

    #[test]
    fn unquote_escapes() {
        assert_eq!(unquote("'a\\sb'"), "a b");
        assert_eq!(unquote("\"x\\\"y\""), "x\"y");
        assert_eq!(unquote("plain"), "plain");
    }
}
