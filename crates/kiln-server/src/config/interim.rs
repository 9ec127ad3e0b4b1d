//! INTERIM option handling until the full parser lands: `--name=value` (dashes or
//! underscores), `--no-defaults`, `--version`. Unknown options are an error.

use kiln_sql::value::Value;

pub struct InterimOptions {
    pub version: bool,
    pub settings: Vec<(String, Value)>,
}

const KNOWN: &[&str] = &[
    "datadir",
    "port",
    "bind_address",
    "socket",
    "max_connections",
    "max_allowed_packet",
    "wait_timeout",
    "log_error",
    "pid_file",
    "character_set_server",
    "default_authentication_plugin",
    "ssl_cert",
    "ssl_key",
    "require_secure_transport",
    "skip_networking",
    "connect_timeout",
    "net_read_timeout",
    "net_write_timeout",
];

pub fn interim_parse(args: &[String]) -> Result<InterimOptions, String> {
    let mut o = InterimOptions {
        version: false,
        settings: Vec::new(),
    };
    for a in args {
        if a == "--version" || a == "-V" {
            o.version = true;
            continue;
        }
        if a == "--no-defaults" {
            continue;
        }
        let Some(body) = a.strip_prefix("--") else {
            return Err(format!("unknown option '{a}'"));
        };
        let (name, value) = body.split_once('=').unwrap_or((body, "1"));
        let name = name.replace('-', "_");
        if !KNOWN.contains(&name.as_str()) {
            return Err(format!("unknown variable '{a}'"));
        }
        let v = match value.parse::<i64>() {
            Ok(i) => Value::Int(i),
            Err(_) => match value.to_ascii_uppercase().as_str() {
                "ON" => Value::Int(1),
                "OFF" => Value::Int(0),
                _ => Value::Str(value.to_string()),
            },
        };
        o.settings.push((name, v));
    }
    Ok(o)
}
