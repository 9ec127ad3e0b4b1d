//! Opening MySQL-protocol connections to the server under test, and the two things done
//! on a side connection: giving each file an empty scratch database, and killing a
//! session whose record ran past its limits.

use std::time::Duration;

use mysql::prelude::Queryable;
use mysql::{Conn, OptsBuilder};

use crate::args::Target;

/// Connects to `target`, in `database` if given. Socket reads and writes time out after
/// `io_timeout`, so a server that stops answering cannot hang the runner.
pub fn connect(
    target: &Target,
    database: Option<&str>,
    io_timeout: Duration,
) -> mysql::Result<Conn> {
    let mut opts = OptsBuilder::new()
        .user(Some(&target.user))
        .pass(Some(&target.password))
        .db_name(database)
        .read_timeout(Some(io_timeout))
        .write_timeout(Some(io_timeout))
        .tcp_connect_timeout(Some(Duration::from_secs(10)))
        // The crate would otherwise ask the server for @@socket and silently switch
        // transports; connect exactly where we were told.
        .prefer_socket(false);
    opts = match &target.socket {
        Some(path) => opts.socket(Some(path)),
        None => opts
            .ip_or_hostname(Some(&target.host))
            .tcp_port(target.port),
    };
    Conn::new(opts)
}

/// Drops and recreates the scratch database so the file starts from nothing, whatever the
/// previous file (or a previous run) left behind: tables, views, triggers, indexes.
pub fn fresh_database(target: &Target, io_timeout: Duration) -> mysql::Result<()> {
    let mut c = connect(target, None, io_timeout)?;
    let db = &target.database; // validated as [A-Za-z0-9_]+ by the argument parser
    c.query_drop(format!("DROP DATABASE IF EXISTS `{db}`"))?;
    c.query_drop(format!("CREATE DATABASE `{db}`"))?;
    Ok(())
}

/// Best effort: ends session `id` on the server so a runaway query stops using CPU and
/// stops sending rows. Failures are ignored; the caller drops its end of the connection
/// anyway.
pub fn kill_session(target: &Target, id: u32) {
    if let Ok(mut c) = connect(target, None, Duration::from_secs(5)) {
        let _ = c.query_drop(format!("KILL {id}"));
    }
}
