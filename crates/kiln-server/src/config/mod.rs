//! Startup options, as MySQL users write them.
//!
//! Sources, in the order they apply (later wins):
//! 1. option files: `--defaults-file=F` alone, else `/etc/kiln/my.cnf` and
//!    `~/.kiln.cnf` if they exist, plus `--defaults-extra-file=F`; none with
//!    `--no-defaults`. These three must come first on the command line.
//! 2. the command line: `--name=value`, `--name value`, `-P 3306`.
//!
//! Names: dashes and underscores are the same; `loose-` makes an unknown option a
//! warning instead of an error; `skip-X` / `disable-X` turn a boolean off and
//! `enable-X` (or `X` alone) on; integers take K, M, G and T suffixes. Every option
//! is a system variable of the registry (`kiln_sql::sysvar`) unless it is one of
//! the few listed in `SPECIAL`.

pub mod file;

use std::path::PathBuf;

use kiln_sql::sysvar::{self, SysVar, Type, VARS};
use kiln_sql::value::Value;

/// Options that are not system variables.
const SPECIAL: &[(&str, &str)] = &[
    (
        "defaults_extra_file",
        "Read this option file after the global files (must come first)",
    ),
    (
        "defaults_file",
        "Read only this option file (must come first)",
    ),
    (
        "help",
        "Display this help and exit (with --verbose: every option and its value)",
    ),
    (
        "initialize_insecure",
        "Accepted for compatibility: a new data directory is always initialized this way",
    ),
    ("no_defaults", "Read no option files (must come first)"),
    ("verbose", "With --help, list every option"),
    ("version", "Print the version and exit"),
];

/// Limit on command-line arguments, to bound work on hostile input.
const ARGS_MAX: usize = 4096;

/// One option to apply, in order.
#[derive(Debug, Clone)]
pub struct Setting {
    pub var: &'static SysVar,
    pub value: Value,
    /// `--name=value` or `path:line`, for messages.
    pub origin: String,
}

#[derive(Debug, Default)]
pub struct Options {
    pub settings: Vec<Setting>,
    pub help: bool,
    pub verbose: bool,
    pub version: bool,
    /// Startup warnings (loose unknown options, ignored options) to log.
    pub warnings: Vec<String>,
    /// Option files read, for the log.
    pub files: Vec<PathBuf>,
}

/// Default option files (read when they exist, unless --no-defaults/--defaults-file).
/// kiln does not read /etc/mysql/my.cnf: on a machine with MySQL or MariaDB installed,
/// their [mysqld] options are for them.
pub fn default_files() -> Vec<PathBuf> {
    let mut v = vec![PathBuf::from("/etc/kiln/my.cnf")];
    if let Some(home) = std::env::var_os("HOME") {
        v.push(PathBuf::from(home).join(".kiln.cnf"));
    }
    v
}

fn canonical(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c == '-' {
                '_'
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect()
}

enum Resolved {
    Var(&'static SysVar, Value),
    Special(&'static str),
    Ignored,
}

/// Resolves one `name[=value]`. `cli` selects MySQL's wording for unknown options.
fn resolve(
    name_as_written: &str,
    value: Option<&str>,
    cli: bool,
    warnings: &mut Vec<String>,
) -> Result<Resolved, String> {
    let shown = match value {
        Some(v) => format!("{name_as_written}={v}"),
        None => name_as_written.to_string(),
    };
    let unknown = || {
        if cli {
            format!("unknown option '--{shown}'.")
        } else {
            format!("unknown variable '{shown}'.")
        }
    };
    let mut name = canonical(name_as_written);
    let loose = name.starts_with("loose_");
    if loose {
        name = name["loose_".len()..].to_string();
    }
    if let Some((special, _)) = SPECIAL.iter().find(|(s, _)| *s == name) {
        if *special == "initialize_insecure" {
            warnings.push("--initialize-insecure is implied: a new data directory gets root@localhost with an empty password".into());
            return Ok(Resolved::Ignored);
        }
        return Ok(Resolved::Special(special));
    }
    // The name itself first (skip_name_resolve is a variable), then the prefixes.
    let (var, forced): (Option<&'static SysVar>, Option<bool>) =
        match sysvar::lookup(&name).filter(|v| v.is_option()) {
            Some(v) => (Some(v), None),
            None => {
                let prefixed = [("skip_", false), ("disable_", false), ("enable_", true)]
                    .iter()
                    .find_map(|(p, on)| name.strip_prefix(p).map(|rest| (rest.to_string(), *on)));
                match prefixed {
                    Some((rest, on)) => (sysvar::lookup(&rest).filter(|v| v.is_option()), Some(on)),
                    None => (None, None),
                }
            }
        };
    let Some(var) = var else {
        if loose {
            warnings.push(unknown());
            return Ok(Resolved::Ignored);
        }
        return Err(unknown());
    };
    if let Some(on) = forced {
        if var.ty != Type::Bool {
            return Err(format!(
                "option '--{name_as_written}' is not a boolean option; the prefix can only be used with booleans."
            ));
        }
        if value.is_some() {
            return Err(format!(
                "option '--{name_as_written}' cannot take an argument."
            ));
        }
        return Ok(Resolved::Var(var, Value::Int(on as i64)));
    }
    let value = match value {
        Some(v) => v,
        None if var.ty == Type::Bool => "ON",
        None => {
            return Err(format!(
                "option '--{}' requires an argument.",
                name_as_written
            ));
        }
    };
    let v = sysvar::parse_option(var, value)?;
    Ok(Resolved::Var(var, v))
}

/// Short options mysqld has (`-P 3306`, `-h /data`, ...).
fn short_option(c: char) -> Option<&'static str> {
    Some(match c {
        'P' => "port",
        'h' => "datadir",
        'V' => "version",
        '?' => "help",
        'v' => "verbose",
        _ => return None,
    })
}

fn takes_value(name: &str) -> bool {
    let n = canonical(name);
    let n = n.strip_prefix("loose_").unwrap_or(&n);
    match sysvar::lookup(n) {
        Some(v) => v.ty != Type::Bool,
        None => matches!(n, "defaults_file" | "defaults_extra_file"),
    }
}

/// Parses the command line (without the program name) and the option files it names.
pub fn parse(args: &[String]) -> Result<Options, String> {
    parse_with_defaults(args, &default_files())
}

/// `parse` with the list of default option files given (tests).
pub fn parse_with_defaults(args: &[String], defaults: &[PathBuf]) -> Result<Options, String> {
    if args.len() > ARGS_MAX {
        return Err(format!(
            "too many arguments ({}, limit {ARGS_MAX})",
            args.len()
        ));
    }
    let mut o = Options::default();
    // Leading file options.
    let mut no_defaults = false;
    let mut defaults_file: Option<PathBuf> = None;
    let mut extra_file: Option<PathBuf> = None;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a == "--no-defaults" {
            no_defaults = true;
        } else if let Some(f) = a.strip_prefix("--defaults-file=") {
            defaults_file = Some(PathBuf::from(f));
        } else if let Some(f) = a.strip_prefix("--defaults-extra-file=") {
            extra_file = Some(PathBuf::from(f));
        } else {
            break;
        }
        i += 1;
    }
    let mut files: Vec<PathBuf> = Vec::new();
    if let Some(f) = defaults_file {
        files.push(f);
    } else if !no_defaults {
        files.extend(defaults.iter().filter(|p| p.exists()).cloned());
    }
    if let Some(f) = extra_file
        && !no_defaults
    {
        files.push(f);
    }
    for f in &files {
        for fo in file::read(f)? {
            match resolve(&fo.name, fo.value.as_deref(), false, &mut o.warnings)
                .map_err(|e| format!("{e} (at {})", fo.origin))?
            {
                Resolved::Var(var, value) => o.settings.push(Setting {
                    var,
                    value,
                    origin: fo.origin,
                }),
                Resolved::Special(s) => {
                    return Err(format!(
                        "option '{s}' is not allowed in an option file (at {})",
                        fo.origin
                    ));
                }
                Resolved::Ignored => {}
            }
        }
    }
    o.files = files;
    // The command line.
    while i < args.len() {
        let a = &args[i];
        i += 1;
        let (name, value): (String, Option<String>) = if let Some(body) = a.strip_prefix("--") {
            match body.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None if takes_value(body) && i < args.len() && !args[i].starts_with('-') => {
                    i += 1;
                    (body.to_string(), Some(args[i - 1].clone()))
                }
                None => (body.to_string(), None),
            }
        } else if let Some(rest) = a.strip_prefix('-')
            && let Some(c) = rest.chars().next()
        {
            let Some(long) = short_option(c) else {
                return Err(format!("unknown option '-{c}'."));
            };
            let attached = &rest[c.len_utf8()..];
            let value = if !attached.is_empty() {
                Some(attached.to_string())
            } else if takes_value(long) && i < args.len() {
                i += 1;
                Some(args[i - 1].clone())
            } else {
                None
            };
            (long.to_string(), value)
        } else {
            return Err(format!("Too many arguments (first extra is '{a}')."));
        };
        if matches!(
            canonical(&name).as_str(),
            "no_defaults" | "defaults_file" | "defaults_extra_file"
        ) {
            return Err(format!("--{name} must be given as the first option."));
        }
        match resolve(&name, value.as_deref(), true, &mut o.warnings)? {
            Resolved::Var(var, value) => o.settings.push(Setting {
                var,
                value,
                origin: a.clone(),
            }),
            Resolved::Special("help") => o.help = true,
            Resolved::Special("verbose") => o.verbose = true,
            Resolved::Special("version") => o.version = true,
            Resolved::Special(s) => return Err(format!("option '--{s}' cannot be used here.")),
            Resolved::Ignored => {}
        }
    }
    Ok(o)
}

/// `--help` without `--verbose`.
pub fn short_help(program_version: &str) -> String {
    format!(
        "kiln  Ver {program_version} for Linux on {arch}\n\
         A MySQL-compatible transactional database server.\n\n\
         Usage: kiln [OPTIONS]\n\n\
         Default options are read from the following files in the given order:\n  {files}\n\
         The following groups are read: {groups}\n\
         The following options may be given as the first argument:\n  \
         --no-defaults           Don't read default options from any option file.\n  \
         --defaults-file=#       Only read default options from the given file #.\n  \
         --defaults-extra-file=# Read this file after the global files are read.\n\n\
         For more help options (several pages), use kiln --verbose --help.\n",
        arch = std::env::consts::ARCH,
        files = default_files()
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" "),
        groups = file::SERVER_GROUPS.join(" "),
    )
}

fn type_hint(var: &SysVar) -> String {
    match var.ty {
        Type::Bool => String::new(),
        Type::UInt { min, max, .. } => format!("=# ({min}..{max})"),
        Type::Int { min, max } => format!("=# ({min}..{max})"),
        Type::Float { .. } => "=#".into(),
        Type::Enum(names) => format!("=name ({})", names.join(", ")),
        Type::Set(_) => "=list".into(),
        Type::Charset => "=charset".into(),
        Type::Collation => "=collation".into(),
        Type::Str => "=name".into(),
    }
}

/// `--verbose --help`: every option with its description, then every variable
/// with the value it has after reading the options.
pub fn verbose_help(program_version: &str, values: &[(&'static str, String)]) -> String {
    let mut out = short_help(program_version);
    out.push('\n');
    let mut rows: Vec<(String, String)> = SPECIAL
        .iter()
        .map(|(n, h)| (format!("--{}", n.replace('_', "-")), h.to_string()))
        .collect();
    for var in VARS.iter().filter(|v| v.is_option()) {
        let mut help = var.help.to_string();
        if var.ty == Type::Bool {
            help.push_str(&format!(
                " (Defaults to {}; use --skip-{} to disable.)",
                var.default,
                var.name.replace('_', "-")
            ));
        }
        if var.read_only() {
            help.push_str(" [startup only]");
        }
        rows.push((
            format!("--{}{}", var.name.replace('_', "-"), type_hint(var)),
            help,
        ));
    }
    rows.sort();
    for (flag, help) in &rows {
        if flag.len() < 40 {
            out.push_str(&format!("  {flag:<40} {help}\n"));
        } else {
            out.push_str(&format!("  {flag}\n  {:<40} {help}\n", ""));
        }
    }
    out.push_str("\nVariables (--variable-name=value)\nand boolean options {FALSE|TRUE}          Value (after reading options)\n");
    out.push_str("----------------------------------------- --------------------------------\n");
    for (name, value) in values {
        let var = sysvar::lookup(name).expect("listed variables are registered");
        if !var.is_option() {
            continue;
        }
        let shown = if value.is_empty() {
            "(No default value)"
        } else {
            value.as_str()
        };
        out.push_str(&format!("{:<41} {shown}\n", name.replace('_', "-")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    fn p(a: &[&str]) -> Result<Options, String> {
        parse_with_defaults(&args(a), &[])
    }

    fn value_of(o: &Options, name: &str) -> Option<Value> {
        o.settings
            .iter()
            .rev()
            .find(|s| s.var.name == name)
            .map(|s| s.value.clone())
    }

    #[test]
    fn command_line_forms() {
        let o = p(&[
            "--port=3307",
            "--max-allowed-packet=2M",
            "--bind_address",
            "0.0.0.0",
            "-P",
            "4000",
            "--skip-name-resolve",
            "--disable-autocommit",
        ])
        .unwrap();
        assert_eq!(value_of(&o, "port"), Some(Value::Int(4000)));
        assert_eq!(
            value_of(&o, "max_allowed_packet"),
            Some(Value::Int(2 << 20))
        );
        assert_eq!(
            value_of(&o, "bind_address"),
            Some(Value::Str("0.0.0.0".into()))
        );
        assert_eq!(value_of(&o, "skip_name_resolve"), Some(Value::Int(1)));
        assert_eq!(value_of(&o, "autocommit"), Some(Value::Int(0)));
        let o = p(&[
            "--skip-networking",
            "--enable-local-infile",
            "-h/tmp/d",
            "--verbose",
            "--help",
        ])
        .unwrap();
        assert_eq!(value_of(&o, "skip_networking"), Some(Value::Int(1)));
        assert_eq!(value_of(&o, "local_infile"), Some(Value::Int(1)));
        assert_eq!(value_of(&o, "datadir"), Some(Value::Str("/tmp/d".into())));
        assert!(o.help && o.verbose);
    }

    #[test]
    fn unknown_and_loose() {
        let e = p(&["--no-such-option=1"]).unwrap_err();
        assert_eq!(e, "unknown option '--no-such-option=1'.");
        let o = p(&["--loose-no-such-option=1"]).unwrap();
        assert_eq!(
            o.warnings,
            vec!["unknown option '--loose-no-such-option=1'."]
        );
        assert!(p(&["--port"]).unwrap_err().contains("requires an argument"));
        assert!(
            p(&["--port=abc"])
                .unwrap_err()
                .contains("Unknown suffix 'a'")
        );
        assert!(p(&["--skip-port"]).unwrap_err().contains("not a boolean"));
        assert!(
            p(&["--version-comment=x"]).is_err(),
            "server-set variables are not options"
        );
        assert!(
            p(&["--port=1", "--no-defaults"])
                .unwrap_err()
                .contains("first option")
        );
        assert!(p(&["stray"]).unwrap_err().contains("Too many arguments"));
    }

    #[test]
    fn defaults_file_then_command_line() {
        let d = std::env::temp_dir().join(format!("kiln-cfg-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let f = d.join("my.cnf");
        std::fs::write(&f, "[mysqld]\nport=1111\nwait-timeout=5\nwait_timeout=6\nloose-bogus=1\n[kiln]\nmax_connections=9\n").unwrap();
        let a = format!("--defaults-file={}", f.display());
        let o = p(&[&a, "--port=2222"]).unwrap();
        assert_eq!(value_of(&o, "port"), Some(Value::Int(2222)));
        assert_eq!(value_of(&o, "wait_timeout"), Some(Value::Int(6)));
        assert_eq!(value_of(&o, "max_connections"), Some(Value::Int(9)));
        assert_eq!(o.warnings, vec!["unknown variable 'loose-bogus=1'."]);
        std::fs::write(&f, "[mysqld]\nbogus=1\n").unwrap();
        let e = p(&[&a]).unwrap_err();
        assert!(
            e.starts_with("unknown variable 'bogus=1'.") && e.contains("my.cnf:2"),
            "{e}"
        );
        // Default files are skipped with --no-defaults.
        std::fs::write(&f, "[mysqld]\nport=1111\n").unwrap();
        let o = parse_with_defaults(&args(&["--no-defaults"]), std::slice::from_ref(&f)).unwrap();
        assert!(o.settings.is_empty());
        let o = parse_with_defaults(&args(&[]), &[f]).unwrap();
        assert_eq!(value_of(&o, "port"), Some(Value::Int(1111)));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn verbose_help_lists_every_option_with_value() {
        let g = crate::vars::Globals::new();
        let h = verbose_help("8.0.40-kiln", &g.list());
        for var in VARS.iter().filter(|v| v.is_option()) {
            assert!(
                h.contains(&format!("--{}", var.name.replace('_', "-"))),
                "{}",
                var.name
            );
        }
        assert!(
            h.lines()
                .any(|l| l.starts_with("port ") && l.trim_end().ends_with("3306"))
        );
        assert!(h.lines().any(|l| l.starts_with("max-allowed-packet ") && l.trim_end().ends_with("67108864")));
    }
}
