//! `kiln-bench`: a load generator for key lookups and writes over the HandlerSocket
//! protocol (kiln's listener, MariaDB's `handlersocket.so`) and the memcached text
//! protocol, so one client measures all three; and (`mysql`) for sysbench's SQL over
//! the MySQL protocol with thousands of connections on a few event-loop threads. This file parses the command line,
//! opens the connections, runs the load and prints the result; see `cli` for the
//! options and docs/kiln-bench.md for usage.
//!
//! Exit status: 0 after a completed run (error responses are counted, not fatal),
//! 1 when a connection could not be opened or set up or broke during the run,
//! 2 on a usage error (clap).

mod cli;
mod client;
mod epoll;
mod error;
mod histogram;
mod hs;
mod hs_wire;
mod keys;
mod lineio;
mod load;
mod memcached;
mod mysql_auth;
mod mysql_conn;
mod mysql_load;
mod mysql_report;
mod mysql_wire;
mod mysql_workload;
mod report;
mod rng;
mod row;
mod runner;

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;

use crate::cli::{Cli, Command, Dist, HsArgs, LoadArgs, McArgs, McLoadArgs, MyWorkload, MysqlArgs};
use crate::client::Client;
use crate::error::{ConnError, FatalError};
use crate::hs::{HsClient, HsTarget};
use crate::keys::{Distribution, Zipfian};
use crate::memcached::{McClient, McTarget};
use crate::report::RunInfo;
use crate::runner::LoadSpec;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Hs(a) => run_hs(a),
        Command::Memcached(a) => run_memcached(a),
        Command::MemcachedLoad(a) => run_memcached_load(a),
        Command::Mysql(a) => run_mysql(a),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("kiln-bench: error: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn run_hs(a: HsArgs) -> Result<(), String> {
    let target = HsTarget {
        host: a.load.host.clone(),
        port: a.port,
        db: a.db,
        table: a.table,
        index: a.index,
        columns: a.columns,
        write_column: a.write_column,
        secret: a.secret,
        timeout: Duration::from_secs(a.load.timeout),
    };
    let writes = a.load.write_ratio > 0.0;
    let clients = connect_all(&a.load, a.port, |_| HsClient::connect(&target, writes))?;
    measure("hs", &a.load, a.port, clients)
}

fn run_memcached(a: McArgs) -> Result<(), String> {
    let target = McTarget {
        host: a.load.host.clone(),
        port: a.port,
        prefix: a.key_prefix,
        keys: a.load.keys,
        seed: a.load.seed,
        timeout: Duration::from_secs(a.load.timeout),
    };
    let clients = connect_all(&a.load, a.port, |i| McClient::connect(&target, i as u64))?;
    measure("memcached", &a.load, a.port, clients)
}

fn run_memcached_load(a: McLoadArgs) -> Result<(), String> {
    let target = McTarget {
        host: a.host.clone(),
        port: a.port,
        prefix: a.key_prefix,
        keys: a.keys,
        seed: a.seed,
        timeout: Duration::from_secs(a.timeout),
    };
    let elapsed = load::load(&target, a.connections as usize, a.pipeline as usize)
        .map_err(|e| e.to_string())?;
    let secs = elapsed.as_secs_f64();
    println!(
        "loaded {} keys ({}1..{}{}) into {}:{} in {:.2} s ({:.0} sets/s)",
        a.keys,
        target.prefix,
        target.prefix,
        a.keys,
        a.host,
        a.port,
        secs,
        a.keys as f64 / secs.max(1e-9)
    );
    Ok(())
}

fn run_mysql(a: MysqlArgs) -> Result<(), String> {
    let timeout = Duration::from_secs(a.timeout);
    let target = mysql_conn::Target {
        socket: a.socket.clone(),
        host: a.host.clone(),
        port: a.port,
        user: a.user.clone(),
        password: a.password.clone(),
        db: a.db.clone(),
        timeout,
    };
    let workload = match a.workload {
        MyWorkload::PointSelect => mysql_workload::Workload::PointSelect,
        MyWorkload::ReadWrite => mysql_workload::Workload::ReadWrite,
    };
    let spec = mysql_load::MySpec {
        workload,
        shape: mysql_workload::Shape {
            tables: a.tables,
            table_size: a.table_size,
            range_size: a.range_size,
        },
        connections: a.connections as usize,
        threads: a.threads as usize,
        warmup_secs: a.warmup,
        duration_secs: a.duration,
        seed: a.seed,
    };
    let result = mysql_load::run(&target, &spec, timeout).map_err(|e| e.to_string())?;
    let info = mysql_report::MyInfo {
        target: target.addr(),
        workload: workload.name(),
        connections: spec.connections,
        threads: spec.threads.min(spec.connections),
        tables: a.tables,
        table_size: a.table_size,
        warmup_secs: a.warmup,
        seed: a.seed,
    };
    if a.json {
        println!("{}", mysql_report::json(&info, &result));
    } else {
        print!("{}", mysql_report::text(&info, &result));
    }
    Ok(())
}

/// Opens `--connections` connections (sequentially, so a refused one is reported
/// before any load starts).
fn connect_all<C>(
    load: &LoadArgs,
    port: u16,
    open: impl Fn(usize) -> Result<C, FatalError>,
) -> Result<Vec<C>, String> {
    let clients = (0..load.connections as usize)
        .map(|i| open(i).map_err(|error| ConnError { conn: i, error }.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    eprintln!(
        "kiln-bench: {} connections to {}:{} ready; warmup {} s, measuring {} s",
        clients.len(),
        load.host,
        port,
        load.warmup,
        load.duration
    );
    Ok(clients)
}

/// `--threads`, with 0 meaning one per CPU, and never more than the connections.
fn client_threads(load: &LoadArgs) -> usize {
    let n = match load.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        t => t as usize,
    };
    n.clamp(1, load.connections.max(1) as usize)
}

/// Runs the load over `clients` and prints the result.
fn measure<C: Client>(
    mode: &'static str,
    load: &LoadArgs,
    port: u16,
    clients: Vec<C>,
) -> Result<(), String> {
    let spec = LoadSpec {
        warmup_secs: load.warmup,
        duration_secs: load.duration,
        pipeline: load.pipeline as usize,
        write_ratio: load.write_ratio,
        keys: load.keys,
        dist: match load.dist {
            Dist::Uniform => Distribution::Uniform,
            Dist::Zipfian => Distribution::Zipfian(Zipfian::new(load.keys, load.theta)),
        },
        seed: load.seed,
        threads: client_threads(load),
        timeout: Duration::from_secs(load.timeout),
        batch_sched: !load.no_batch_sched,
    };
    let result = runner::run(clients, &spec).map_err(|e| e.to_string())?;
    let info = RunInfo {
        mode,
        host: load.host.clone(),
        port,
        connections: load.connections as usize,
        threads: spec.threads,
        pipeline: load.pipeline as usize,
        keys: load.keys,
        dist: load.dist.name(),
        write_ratio: load.write_ratio,
        warmup_secs: load.warmup,
        seed: load.seed,
    };
    if load.json {
        println!("{}", report::json(&info, &result));
    } else {
        print!("{}", report::text(&info, &result));
    }
    Ok(())
}
