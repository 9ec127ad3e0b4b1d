//! The command line (clap derive): the subcommands `hs`, `memcached`,
//! `memcached-load` and `mysql`, the workload options they share, and their validation.

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Parser, Debug)]
#[command(
    name = "kiln-bench",
    version,
    about = "Load generator for key lookups and writes over HandlerSocket and memcached",
    long_about = "Load generator for key lookups and writes over the HandlerSocket protocol \
                  (kiln, MariaDB's handlersocket.so) and the memcached text protocol.\n\
                  Progress goes to stderr every second; the result block (or --json) to stdout.\n\
                  Exit status: 0 after a completed run (error responses are counted, not fatal), \
                  1 when a connection could not be opened or set up, or broke during the run, \
                  2 on a usage error."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// PK lookups (`1 = 1 <key>`) and increments of one column over HandlerSocket.
    Hs(HsArgs),
    /// `get` / `set` of sysbench-shaped rows over the memcached text protocol.
    Memcached(McArgs),
    /// Fill memcached with the rows of keys 1..=N (run before `memcached`).
    MemcachedLoad(McLoadArgs),
    /// sysbench's point_select / read_write as prepared statements over the MySQL
    /// protocol, many connections per event-loop thread.
    Mysql(MysqlArgs),
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum MyWorkload {
    #[value(name = "point_select", alias = "point-select")]
    PointSelect,
    #[value(name = "read_write", alias = "read-write")]
    ReadWrite,
}

#[derive(Args, Debug, Clone)]
pub struct MysqlArgs {
    /// Unix socket of the server (instead of --host/--port).
    #[arg(long)]
    pub socket: Option<std::path::PathBuf>,
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    #[arg(long, default_value_t = 3306)]
    pub port: u16,
    #[arg(long, default_value = "root")]
    pub user: String,
    #[arg(long, default_value = "")]
    pub password: String,
    #[arg(long, default_value = "sbtest")]
    pub db: String,
    /// Connections, spread over the --threads event loops.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub connections: u32,
    /// Client threads, each multiplexing its share of the connections with epoll.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
    #[arg(long, value_enum, default_value_t = MyWorkload::PointSelect)]
    pub workload: MyWorkload,
    /// Tables sbtest1..sbtestN (as sysbench --tables).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub tables: u32,
    /// Rows per table: ids are drawn from 1..=N (as sysbench --table-size).
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000_000))]
    pub table_size: u64,
    /// Rows per range query (as sysbench --range_size).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub range_size: u64,
    /// Measured seconds.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub duration: u64,
    /// Seconds of load before measuring (not counted).
    #[arg(long, default_value_t = 2)]
    pub warmup: u64,
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Seconds to wait for connecting, a set-up answer or any one statement's answer.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
    /// Print the result as one JSON object instead of the text block.
    #[arg(long)]
    pub json: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dist {
    Uniform,
    Zipfian,
}

impl Dist {
    pub fn name(self) -> &'static str {
        match self {
            Dist::Uniform => "uniform",
            Dist::Zipfian => "zipfian",
        }
    }
}

/// Options of every load run.
#[derive(Args, Debug, Clone)]
pub struct LoadArgs {
    /// Server host name or address.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Connections (see --threads for the threads that drive them).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub connections: u32,
    /// Client threads driving the connections (each serves its share of them through
    /// epoll); 0: one per CPU. At most one per connection.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=10_000))]
    pub threads: u32,
    /// Keep the load threads under the normal scheduling policy (by default they run
    /// under SCHED_BATCH, so a thread woken by a response does not preempt the server
    /// thread that sent it).
    #[arg(long)]
    pub no_batch_sched: bool,
    /// Measured seconds.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub duration: u64,
    /// Seconds of load before measuring (not counted).
    #[arg(long, default_value_t = 2)]
    pub warmup: u64,
    /// Requests in flight per connection: 1 = closed loop; D > 1 sends D requests, then
    /// reads D responses.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub pipeline: u32,
    /// Key space 1..=N.
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub keys: u64,
    /// Key distribution.
    #[arg(long, value_enum, default_value_t = Dist::Uniform)]
    pub dist: Dist,
    /// Skew of --dist zipfian, in (0, 1).
    #[arg(long, default_value_t = crate::keys::DEFAULT_THETA, value_parser = parse_theta)]
    pub theta: f64,
    /// Fraction of requests that are writes, 0.0 to 1.0.
    #[arg(long, default_value_t = 0.0, value_parser = parse_ratio)]
    pub write_ratio: f64,
    /// Seed of the key and value choices (runs with the same seed repeat their keys).
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Seconds to wait for a connection, a response or a send before giving up.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
    /// Print the result as one JSON object instead of the text block.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug, Clone)]
pub struct HsArgs {
    #[command(flatten)]
    pub load: LoadArgs,
    /// HandlerSocket port (writes need the read-write port, conventionally 9999).
    #[arg(long, default_value_t = 9999)]
    pub port: u16,
    #[arg(long, default_value = "sbtest")]
    pub db: String,
    #[arg(long, default_value = "sbtest1")]
    pub table: String,
    /// Index to look keys up in (one-part key).
    #[arg(long, default_value = "PRIMARY")]
    pub index: String,
    /// Columns returned by reads (index id 1).
    #[arg(long, default_value = "id,k,c,pad")]
    pub columns: String,
    /// Integer column incremented by writes (index id 2, opened only when writing).
    #[arg(long, default_value = "k")]
    pub write_column: String,
    /// Plain secret: `A 1 <secret>` is sent first on every connection.
    #[arg(long)]
    pub secret: Option<String>,
}

#[derive(Args, Debug, Clone)]
pub struct McArgs {
    #[command(flatten)]
    pub load: LoadArgs,
    #[arg(long, default_value_t = 11211)]
    pub port: u16,
    /// memcached keys are `<prefix><key>`.
    #[arg(long, default_value = "sbtest1:", value_parser = parse_prefix)]
    pub key_prefix: String,
}

#[derive(Args, Debug, Clone)]
pub struct McLoadArgs {
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    #[arg(long, default_value_t = 11211)]
    pub port: u16,
    /// Keys 1..=N are stored.
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub keys: u64,
    #[arg(long, default_value = "sbtest1:", value_parser = parse_prefix)]
    pub key_prefix: String,
    /// Seed of the row contents (use the same with `memcached` writes).
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Loading connections.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub connections: u32,
    /// `set`s in flight per connection.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub pipeline: u32,
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
}

fn parse_ratio(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err("must be between 0.0 and 1.0".into())
    }
}

fn parse_theta(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if v > 0.0 && v < 1.0 {
        Ok(v)
    } else {
        Err("must be strictly between 0 and 1".into())
    }
}

/// memcached keys: at most 250 bytes, no spaces or control characters.
fn parse_prefix(s: &str) -> Result<String, String> {
    if s.len() > 230 {
        return Err("at most 230 bytes (memcached keys are at most 250)".into());
    }
    if s.bytes().any(|b| b <= b' ' || b == 0x7f) {
        return Err("no spaces or control characters in a memcached key".into());
    }
    Ok(s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn defaults_and_overrides() {
        let cli = Cli::try_parse_from(["kiln-bench", "hs"]).unwrap();
        let Command::Hs(a) = cli.command else {
            panic!()
        };
        assert_eq!(a.load.host, "127.0.0.1");
        assert_eq!(a.load.connections, 8);
        assert_eq!(
            (a.load.duration, a.load.warmup, a.load.pipeline),
            (10, 2, 1)
        );
        assert_eq!(a.load.keys, 100_000);
        assert_eq!(a.load.dist, Dist::Uniform);
        assert_eq!(
            (a.db.as_str(), a.table.as_str(), a.index.as_str()),
            ("sbtest", "sbtest1", "PRIMARY")
        );
        assert_eq!(a.columns, "id,k,c,pad");
        assert_eq!(a.secret, None);

        let cli = Cli::try_parse_from([
            "kiln-bench",
            "memcached",
            "--port",
            "1234",
            "--dist",
            "zipfian",
            "--write-ratio",
            "0.1",
            "--pipeline",
            "16",
            "--json",
        ])
        .unwrap();
        let Command::Memcached(a) = cli.command else {
            panic!()
        };
        assert_eq!(a.port, 1234);
        assert_eq!(a.key_prefix, "sbtest1:");
        assert_eq!(a.load.dist, Dist::Zipfian);
        assert_eq!(a.load.write_ratio, 0.1);
        assert_eq!(a.load.pipeline, 16);
        assert!(a.load.json);
    }

    #[test]
    fn mysql_options() {
        let cli = Cli::try_parse_from(["kiln-bench", "mysql"]).unwrap();
        let Command::Mysql(a) = cli.command else {
            panic!()
        };
        assert_eq!((a.connections, a.threads, a.tables), (8, 2, 1));
        assert_eq!((a.user.as_str(), a.db.as_str()), ("root", "sbtest"));
        assert_eq!(a.workload, MyWorkload::PointSelect);
        assert_eq!(a.socket, None);
        let cli = Cli::try_parse_from([
            "kiln-bench",
            "mysql",
            "--socket",
            "/tmp/s.sock",
            "--workload",
            "read_write",
            "--connections",
            "4000",
        ])
        .unwrap();
        let Command::Mysql(a) = cli.command else {
            panic!()
        };
        assert_eq!(a.workload, MyWorkload::ReadWrite);
        assert_eq!(a.connections, 4000);
        assert_eq!(a.socket.unwrap().to_str(), Some("/tmp/s.sock"));
    }

    #[test]
    fn rejects_bad_values() {
        for bad in [
            &["kiln-bench", "hs", "--write-ratio", "1.5"][..],
            &["kiln-bench", "hs", "--pipeline", "0"],
            &["kiln-bench", "hs", "--connections", "0"],
            &["kiln-bench", "hs", "--keys", "0"],
            &["kiln-bench", "hs", "--dist", "pareto"],
            &["kiln-bench", "memcached", "--key-prefix", "a b"],
            &["kiln-bench", "memcached-load", "--keys", "0"],
            &["kiln-bench", "mysql", "--threads", "0"],
            &["kiln-bench", "mysql", "--workload", "oltp_delete"],
            &["kiln-bench", "mysql", "--connections", "100001"],
        ] {
            assert!(Cli::try_parse_from(bad).is_err(), "{bad:?}");
        }
    }
}
