//! The command phase: read a command packet, run it, answer, repeat — until
//! COM_QUIT, a KILL, the peer leaving, a protocol violation or `wait_timeout`.
//!
//! Protocol violations that leave the stream unusable (oversize packet, sequence
//! error) get an ERR packet and close the connection, as MySQL does; malformed
//! command bodies get an ERR and the connection goes on.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use kiln_common::{ErrorKind, KilnError};
use kiln_mysql::command::{Command, parse_command};
use kiln_mysql::consts::{cap, status};
use kiln_mysql::handshake::parse_change_user;
use kiln_mysql::response::{OkPacket, SessionChanges};
use kiln_mysql::stmt::{ParamType, parse_execute_params, put_prepare_ok};
use kiln_sql::parse::Parsed;
use kiln_sql::result::{ColumnInfo, Outcome};
use kiln_sql::session::{INTERRUPT_CONNECTION, Session};
use kiln_sql::value::Value;

use super::Peer;
use super::encode;
use super::infile::ClientInfile;
use super::io::{PacketIo, ReadError};
use crate::errlog;
use crate::server::{ConnShared, Server};

/// A prepared statement held by a connection.
pub struct Prepared {
    pub parsed: Arc<Parsed>,
    pub columns: Vec<ColumnInfo>,
    /// Parameter types bound by the last execution (reused when the client omits them).
    pub types: Vec<ParamType>,
    /// Data sent by COM_STMT_SEND_LONG_DATA, per parameter.
    pub long_data: Vec<Option<Vec<u8>>>,
    /// Some `long_data` is set: an execution without it (all but a few) neither reads
    /// `long_data` (a separate, cold allocation with thousands of connections) nor
    /// builds a per-execution list of flags from it.
    pub has_long_data: bool,
}

/// An authenticated connection's state.
pub struct Conn {
    pub session: Session,
    pub caps: u32,
    pub shared: Option<Arc<ConnShared>>,
    pub stmts: HashMap<u32, Prepared>,
    pub next_stmt_id: u32,
    pub scramble: [u8; 20],
    pub peer: Peer,
    pub secure: bool,
    /// The socket's current read timeout (set only when it changes).
    pub read_timeout_secs: u64,
}

/// Whether the connection goes on after a command.
pub enum Flow {
    Continue,
    Close,
    /// No command was pending (`PacketIo::try_read`, the pool only): nothing ran.
    Idle,
}

/// How long an idle connection thread polls for its client's next command before
/// it blocks in read() (`PacketIo::spin_for_input`). A closed-loop client on a
/// warm CPU answers in a few microseconds; past this budget the client is thinking,
/// and spinning on would only burn a core.
const IDLE_SPIN: Duration = Duration::from_micros(100);

/// The thread-per-connection loop: commands back to back until the connection ends.
///
/// While fewer connections have threads of their own than there are CPUs, a thread
/// spins briefly for the next command instead of sleeping at once: a single client
/// then never waits for an idle CPU to wake up. With as many connection threads as
/// CPUs, spinning would take a CPU from a thread with work, so they sleep.
pub fn run(server: &'static Server, io: &mut PacketIo, conn: &mut Conn) {
    let own = &server.stats.own_thread_conns;
    own.fetch_add(1, Ordering::Relaxed);
    let cpus = crate::pool::cpu_count();
    loop {
        if own.load(Ordering::Relaxed) < cpus {
            io.spin_for_input(IDLE_SPIN);
        }
        if let Flow::Close = step(server, io, conn) {
            break;
        }
    }
    own.fetch_sub(1, Ordering::Relaxed);
}

/// Reads one command, runs it and answers. The thread-per-connection loop calls it
/// back to back; the thread pool calls it each time the socket turns readable (or
/// still holds a pipelined command).
pub fn step(server: &'static Server, io: &mut PacketIo, conn: &mut Conn) -> Flow {
    if conn.session.interrupt.load(Ordering::Relaxed) == INTERRUPT_CONNECTION
        || server.is_shutting_down()
    {
        return Flow::Close;
    }
    if !io.is_pooled() {
        // The thread blocks in read() while the connection is idle: wait_timeout is
        // the socket's read timeout. (The pool enforces it with its timer instead,
        // and its sockets time out after net_read_timeout mid-packet.)
        let wait = conn.session.cached_vars().wait_timeout_secs;
        if conn.read_timeout_secs != wait {
            // One setsockopt only when the value changes: it was two per command
            // (idle and in-command timeouts), ~5% of a point select's CPU. Reads inside
            // a command use the same timeout (a deviation: MySQL's net_read_timeout
            // applies there).
            let _ = io
                .socket()
                .set_read_timeout(Some(Duration::from_secs(wait)));
            conn.read_timeout_secs = wait;
        }
    }
    io.seq = 0;
    let read = io.read_packet();
    // Only the command's first read may be non-blocking (not LOAD DATA's or a
    // re-authentication's inside it).
    io.try_read = false;
    let packet = match read {
        Ok(p) => p,
        Err(ReadError::NotReady) => return Flow::Idle,
        Err(ReadError::Closed) => {
            server.stats.aborted_clients.inc();
            return Flow::Close;
        }
        Err(ReadError::Timeout) => {
            server.stats.aborted_clients.inc();
            note(conn, "Got timeout reading communication packets");
            return Flow::Close;
        }
        Err(ReadError::TooLarge) => {
            send_error(io, conn, &ErrorKind::ER_NET_PACKET_TOO_LARGE.into());
            io.discard_input(1 << 30, Duration::from_secs(2));
            server.stats.aborted_clients.inc();
            note(conn, "Got a packet bigger than 'max_allowed_packet' bytes");
            return Flow::Close;
        }
        Err(ReadError::OutOfOrder) => {
            send_error(io, conn, &ErrorKind::ER_NET_PACKETS_OUT_OF_ORDER.into());
            let _ = io.flush();
            server.stats.aborted_clients.inc();
            note(conn, "Got packets out of order");
            return Flow::Close;
        }
        Err(ReadError::Truncated) | Err(ReadError::Io(_)) => {
            server.stats.aborted_clients.inc();
            if conn.session.interrupt.load(Ordering::Relaxed) != INTERRUPT_CONNECTION
                && !server.is_shutting_down()
            {
                note(conn, "Got an error reading communication packets");
            }
            return Flow::Close;
        }
    };
    server.stats.threads_running.inc();
    let flow = dispatch(server, io, conn, &packet.payload);
    server.stats.threads_running.sub(1);
    if io.flush().is_err() {
        server.stats.aborted_clients.inc();
        return Flow::Close;
    }
    io.shrink_buffers();
    set_state(conn, "Sleep", None);
    flow
}

/// Logs "Aborted connection ..." at note level, as MySQL does (log_error_verbosity 3).
pub fn note(conn: &Conn, what: &str) {
    errlog::log(
        errlog::Severity::Note,
        conn.session.connection_id,
        &format!(
            "Aborted connection {} to db: '{}' user: '{}' host: '{}' ({what}).",
            conn.session.connection_id,
            conn.session.database.as_deref().unwrap_or("unconnected"),
            conn.session.user,
            conn.peer.host
        ),
    );
}

fn set_state(conn: &Conn, command: &'static str, info: Option<&str>) {
    if let Some(s) = &conn.shared {
        let mut st = s.state.lock();
        st.command = command;
        st.since = Instant::now();
        // Twice per command (its start, then "Sleep"): reuse the strings' buffers
        // instead of allocating a copy each time.
        match info {
            Some(i) => {
                let text = match i.char_indices().nth(1024) {
                    Some((end, _)) => &i[..end],
                    None => i,
                };
                let buf = st.info.get_or_insert_with(String::new);
                buf.clear();
                buf.push_str(text);
            }
            None => st.info = None,
        }
        if st.db != conn.session.database {
            st.db.clone_from(&conn.session.database);
        }
    }
}

fn status_flags(conn: &mut Conn) -> u16 {
    let autocommit = conn.session.cached_vars().autocommit;
    encode::status_flags(
        conn.session.in_transaction,
        autocommit,
        conn.session.tx_read_only,
    )
}

fn send_error(io: &mut PacketIo, _conn: &Conn, e: &KilnError) {
    encode::write_err(io, e.code, &e.sqlstate, &e.message);
}

fn send_ok(
    io: &mut PacketIo,
    conn: &mut Conn,
    affected_rows: u64,
    last_insert_id: u64,
    info: &str,
    more: bool,
) {
    let tracked = conn.session.take_changes();
    let changes = SessionChanges {
        system_variables: tracked.system_variables,
        schema: tracked.schema,
        state_changed: tracked.state_changed && conn.session.cached_vars().track_state_change,
    };
    let mut st = status_flags(conn);
    if more {
        st |= status::MORE_RESULTS_EXISTS;
    }
    let ok = OkPacket {
        affected_rows,
        last_insert_id,
        status: st,
        warnings: conn.session.warning_count(),
        info,
        changes: Some(&changes),
    };
    encode::write_ok(io, conn.caps, &ok);
}

/// The result sets a statement produced before its own outcome (a CALL's
/// procedures' SELECTs), each flagged SERVER_MORE_RESULTS_EXISTS, as MySQL sends them.
fn send_results(io: &mut PacketIo, conn: &mut Conn, binary: bool) -> std::io::Result<()> {
    for rows in conn.session.take_results() {
        let st = status_flags(conn) | status::MORE_RESULTS_EXISTS;
        encode::write_rows(
            io,
            conn.caps,
            &rows,
            binary,
            conn.session.warning_count(),
            st,
        )?;
    }
    Ok(())
}

/// An error after the result sets the statement produced before it.
fn send_results_and_error(io: &mut PacketIo, conn: &mut Conn, e: &KilnError, binary: bool) {
    let _ = send_results(io, conn, binary);
    send_error(io, conn, e);
}

fn send_outcome(
    io: &mut PacketIo,
    conn: &mut Conn,
    outcome: &Outcome,
    binary: bool,
    more: bool,
) -> std::io::Result<()> {
    send_results(io, conn, binary)?;
    match outcome {
        Outcome::Ok {
            affected_rows,
            last_insert_id,
            info,
        } => {
            send_ok(io, conn, *affected_rows, *last_insert_id, info, more);
            Ok(())
        }
        Outcome::Rows(rows) => {
            let mut st = status_flags(conn);
            if more {
                st |= status::MORE_RESULTS_EXISTS;
            }
            encode::write_rows(
                io,
                conn.caps,
                rows,
                binary,
                conn.session.warning_count(),
                st,
            )
        }
    }
}

fn dispatch(server: &'static Server, io: &mut PacketIo, conn: &mut Conn, payload: &[u8]) -> Flow {
    let cmd = match parse_command(payload) {
        Ok(c) => c,
        Err(_) => {
            send_error(io, conn, &malformed());
            return Flow::Continue;
        }
    };
    match cmd {
        Command::Quit => return Flow::Close,
        Command::Ping => send_ok(io, conn, 0, 0, "", false),
        Command::Query(sql) => return query(server, io, conn, sql),
        Command::InitDb(db) => {
            let db = String::from_utf8_lossy(db).into_owned();
            set_state(conn, "Init DB", None);
            kiln_sql::status::record_com_only("change_db");
            match conn.session.use_database(&db) {
                Ok(()) => send_ok(io, conn, 0, 0, "", false),
                Err(e) => send_error(io, conn, &e),
            }
        }
        Command::FieldList { table, .. } => {
            let table = String::from_utf8_lossy(table).into_owned();
            let e = match &conn.session.database {
                None => KilnError::from(ErrorKind::ER_NO_DB_ERROR),
                Some(db) => KilnError::new(ErrorKind::ER_NO_SUCH_TABLE, &[db, &table]),
            };
            send_error(io, conn, &e);
        }
        Command::Statistics => {
            let s = format!(
                "Uptime: {}  Threads: {}  Questions: {}  Slow queries: 0  Opens: 0  Flush tables: 1  Open tables: 0  Queries per second avg: {:.3}",
                server.uptime_secs(),
                server.connection_count(),
                kiln_sql::status::QUESTIONS.get(),
                kiln_sql::status::QUESTIONS.get() as f64 / server.uptime_secs().max(1) as f64
            );
            encode::write_raw(io, &s);
        }
        Command::ProcessInfo => {
            let parsed = conn.session.parse("SHOW PROCESSLIST");
            match parsed.and_then(|p| conn.session.execute(&p[0].0, Vec::new())) {
                Ok(o) => {
                    let _ = send_outcome(io, conn, &o, false, false);
                }
                Err(e) => send_error(io, conn, &e),
            }
        }
        Command::ProcessKill(id) => {
            let by = conn.session.account.0.clone();
            match kiln_sql::session::ServerHooks::kill(
                server,
                conn.session.connection_id,
                &by,
                id as u64,
                false,
            ) {
                Ok(()) => send_ok(io, conn, 0, 0, "", false),
                Err(e) => send_error(io, conn, &e),
            }
            if id as u64 == conn.session.connection_id {
                return Flow::Close;
            }
        }
        Command::ChangeUser(body) => return change_user(server, io, conn, body),
        Command::ResetConnection => {
            conn.session.reset();
            server.drop_prepared(conn.stmts.len());
            conn.stmts.clear();
            send_ok(io, conn, 0, 0, "", false);
        }
        Command::SetOption(opt) => match opt {
            0 => {
                conn.caps |= cap::MULTI_STATEMENTS;
                encode::write_end(io, conn.caps, 0, status_flags(conn), None);
            }
            1 => {
                conn.caps &= !cap::MULTI_STATEMENTS;
                encode::write_end(io, conn.caps, 0, status_flags(conn), None);
            }
            _ => send_error(io, conn, &KilnError::from(ErrorKind::ER_UNKNOWN_COM_ERROR)),
        },
        Command::Debug => encode::write_end(io, conn.caps, 0, status_flags(conn), None),
        Command::Shutdown => {
            if kiln_sql::session::ServerHooks::is_admin(
                server,
                &conn.session.account.0,
                &conn.session.account.1,
            ) {
                let _ = kiln_sql::session::ServerHooks::shutdown(server, &conn.session.user);
                encode::write_end(io, conn.caps, 0, status_flags(conn), None);
            } else {
                send_error(
                    io,
                    conn,
                    &KilnError::new(ErrorKind::ER_SPECIFIC_ACCESS_DENIED_ERROR, &[&"SHUTDOWN"]),
                );
            }
        }
        Command::StmtPrepare(sql) => prepare(server, io, conn, sql),
        Command::StmtExecute { statement_id, body } => execute(io, conn, statement_id, body),
        Command::StmtSendLongData {
            statement_id,
            param_id,
            data,
        } => {
            kiln_sql::status::record_com_only("stmt_send_long_data");
            // No response, even on error (the error is reported at execute).
            let limit = server.globals.u64("max_allowed_packet").unwrap_or(64 << 20) as usize;
            if let Some(st) = conn.stmts.get_mut(&statement_id)
                && let Some(slot) = st.long_data.get_mut(param_id as usize)
            {
                let buf = slot.get_or_insert_with(Vec::new);
                if buf.len() + data.len() <= limit {
                    buf.extend_from_slice(data);
                }
                st.has_long_data = true;
            }
        }
        Command::StmtClose(id) => {
            kiln_sql::status::record_com_only("stmt_close");
            if conn.stmts.remove(&id).is_some() {
                server.drop_prepared(1);
            }
        }
        Command::StmtReset(id) => {
            kiln_sql::status::record_com_only("stmt_reset");
            match conn.stmts.get_mut(&id) {
                Some(st) => {
                    st.long_data.iter_mut().for_each(|d| *d = None);
                    st.has_long_data = false;
                    send_ok(io, conn, 0, 0, "", false);
                }
                None => send_error(io, conn, &unknown_stmt(id, "mysqld_stmt_reset")),
            }
        }
        Command::StmtFetch { statement_id, .. } => {
            kiln_sql::status::record_com_only("stmt_fetch");
            send_error(io, conn, &unknown_stmt(statement_id, "mysqld_stmt_fetch"));
        }
        Command::Unsupported(_) => {
            send_error(io, conn, &KilnError::from(ErrorKind::ER_UNKNOWN_COM_ERROR))
        }
    }
    Flow::Continue
}

fn malformed() -> KilnError {
    let mut e = KilnError::with_message(
        ErrorKind::ER_UNKNOWN_ERROR,
        "Malformed communication packet.",
    );
    e.code = 1835;
    e
}

fn unknown_stmt(id: u32, func: &str) -> KilnError {
    KilnError::new(ErrorKind::ER_UNKNOWN_STMT_HANDLER, &[&id, &func])
}

fn query(server: &'static Server, io: &mut PacketIo, conn: &mut Conn, sql: &[u8]) -> Flow {
    let text = kiln_sql::lexer::sql_text(sql).into_owned();
    set_state(conn, "Query", Some(&text));
    // Point selects run from their digest's plan, and statements of a cacheable
    // kind from their template (kiln_sql::stmt_cache), without a parse.
    if let Some(r) = conn.session.execute_text_cached(&text) {
        match r {
            Ok(outcome) => {
                if send_outcome(io, conn, &outcome, false, false).is_err() {
                    return Flow::Close;
                }
            }
            Err(e) => send_results_and_error(io, conn, &e, false),
        }
        if conn.session.interrupt.load(Ordering::Relaxed) == INTERRUPT_CONNECTION {
            return Flow::Close;
        }
        return Flow::Continue;
    }
    let statements = match conn.session.parse(&text) {
        Ok(s) => s,
        Err(e) => {
            kiln_sql::status::QUESTIONS.inc();
            conn.session.counters.questions += 1;
            conn.session.record_error(&e);
            send_error(io, conn, &e);
            return Flow::Continue;
        }
    };
    if statements.len() > 1 && conn.caps & cap::MULTI_STATEMENTS == 0 {
        // Without CLIENT_MULTI_STATEMENTS the text is one statement: the ';' is a syntax error.
        let second = statements[1].1;
        let at = second.as_ptr() as usize - text.as_ptr() as usize;
        let semicolon = text[..at].rfind(';').unwrap_or(at);
        let e = kiln_sql::parse::syntax_error_at(&text, semicolon);
        conn.session.record_error(&e);
        send_error(io, conn, &e);
        return Flow::Continue;
    }
    let n = statements.len();
    for (i, (parsed, _src)) in statements.iter().enumerate() {
        let more = i + 1 < n;
        // LOAD DATA LOCAL reads the file from the client inside the statement.
        let mut infile = ClientInfile::new(io, conn.caps & cap::LOCAL_FILES != 0);
        let r = conn
            .session
            .execute_with_infile(parsed, Vec::new(), &mut infile);
        if !infile.finish() {
            server.stats.aborted_clients.inc();
            note(conn, "Got an error reading communication packets");
            return Flow::Close;
        }
        match r {
            Ok(outcome) => {
                if send_outcome(io, conn, &outcome, false, more).is_err() {
                    return Flow::Close;
                }
            }
            Err(e) => {
                send_results_and_error(io, conn, &e, false);
                break;
            }
        }
        if conn.session.interrupt.load(Ordering::Relaxed) == INTERRUPT_CONNECTION {
            return Flow::Close;
        }
    }
    Flow::Continue
}

fn prepare(server: &'static Server, io: &mut PacketIo, conn: &mut Conn, sql: &[u8]) {
    kiln_sql::status::record_com_only("stmt_prepare");
    let text = kiln_sql::lexer::sql_text(sql).into_owned();
    set_state(conn, "Prepare", Some(&text));
    if conn.stmts.len() >= kiln_common::limits::PREPARED_STMTS_PER_SESSION_MAX {
        let e = KilnError::new(
            ErrorKind::ER_MAX_PREPARED_STMT_COUNT_REACHED,
            &[&kiln_common::limits::PREPARED_STMTS_PER_SESSION_MAX],
        );
        send_error(io, conn, &e);
        return;
    }
    // max_prepared_stmt_count bounds the statements of all sessions together.
    if let Err(e) = server.take_prepared() {
        send_error(io, conn, &e);
        return;
    }
    let (parsed, columns) = match conn.session.prepare(&text) {
        Ok(p) => p,
        Err(e) => {
            server.drop_prepared(1);
            conn.session.record_error(&e);
            send_error(io, conn, &e);
            return;
        }
    };
    let id = conn.next_stmt_id;
    conn.next_stmt_id = conn.next_stmt_id.wrapping_add(1).max(1);
    let params = parsed.param_count;
    let s = io.begin();
    put_prepare_ok(&mut io.wbuf, id, columns.len() as u16, params as u16, 0);
    io.finish(s);
    if params > 0 {
        let defs: Vec<ColumnInfo> = (0..params)
            .map(|_| ColumnInfo::new("?", kiln_sql::result::ColumnKind::VarString))
            .collect();
        encode::write_columns(io, conn.caps, &defs, status_flags(conn));
    }
    if !columns.is_empty() {
        encode::write_columns(io, conn.caps, &columns, status_flags(conn));
    }
    conn.stmts.insert(
        id,
        Prepared {
            parsed: Arc::new(parsed),
            columns,
            types: Vec::new(),
            long_data: vec![None; params],
            has_long_data: false,
        },
    );
}

fn execute(io: &mut PacketIo, conn: &mut Conn, id: u32, body: &[u8]) {
    kiln_sql::status::record_com_only("stmt_execute");
    let Some(st) = conn.stmts.get_mut(&id) else {
        send_error(io, conn, &unknown_stmt(id, "mysqld_stmt_execute"));
        return;
    };
    let long: Vec<bool> = if st.has_long_data {
        st.long_data.iter().map(Option::is_some).collect()
    } else {
        Vec::new()
    };
    let raw = match parse_execute_params(body, st.parsed.param_count, &mut st.types, &long) {
        Ok(v) => v,
        Err(_) => {
            send_error(io, conn, &malformed());
            return;
        }
    };
    let mut params = Vec::with_capacity(raw.len());
    for (i, p) in raw.into_iter().enumerate() {
        params.push(match p {
            Some(b) => encode::param_value(b),
            None => {
                let data = st.long_data[i].take().unwrap_or_default();
                match String::from_utf8(data) {
                    Ok(s) => Value::Str(s),
                    Err(e) => Value::Bytes(e.into_bytes()),
                }
            }
        });
    }
    // This execution took the long data.
    st.has_long_data = false;
    let parsed = st.parsed.clone();
    set_state(conn, "Execute", None);
    match conn.session.execute(&parsed, params) {
        Ok(outcome) => {
            let _ = send_outcome(io, conn, &outcome, true, false);
        }
        Err(e) => send_results_and_error(io, conn, &e, true),
    }
}

fn change_user(server: &'static Server, io: &mut PacketIo, conn: &mut Conn, body: &[u8]) -> Flow {
    let cu = match parse_change_user(body, conn.caps) {
        Ok(c) => c,
        Err(_) => {
            send_error(io, conn, &malformed());
            return Flow::Close;
        }
    };
    let user = String::from_utf8_lossy(&cu.user).into_owned();
    let client_plugin = cu
        .auth_plugin
        .clone()
        .unwrap_or_else(|| crate::accounts::NATIVE.to_string());
    let account = server
        .accounts
        .find(&user, &conn.peer.host, conn.peer.ip.as_deref());
    let used_password = !cu.auth_response.is_empty();
    let scramble = conn.scramble;
    let res = super::auth::authenticate(
        server,
        io,
        conn.caps,
        &scramble,
        account.as_ref(),
        &client_plugin,
        cu.auth_response.clone(),
        conn.secure,
    );
    match res {
        Ok(Some(acct)) => {
            if let Some(s) = &conn.shared
                && let Err(e) = server.admit_account(s, &(acct.user.clone(), acct.host.clone()))
            {
                send_error(io, conn, &e);
                return Flow::Close;
            }
            conn.session.reset();
            server.drop_prepared(conn.stmts.len());
            conn.stmts.clear();
            conn.session.user = user;
            conn.session.account = (acct.user, acct.host);
            conn.session.database = None;
            if let Some(c) = cu.collation_id {
                super::auth::apply_client_charset(&mut conn.session, c as u8);
            }
            if let Some(db) = cu.database {
                let db = String::from_utf8_lossy(&db).into_owned();
                if let Err(e) = conn.session.use_database(&db) {
                    send_error(io, conn, &e);
                    return Flow::Continue;
                }
            }
            if let Some(s) = &conn.shared {
                s.state.lock().user = conn.session.user.clone();
            }
            send_ok(io, conn, 0, 0, "", false);
            Flow::Continue
        }
        Ok(None) => {
            let e = KilnError::new(
                ErrorKind::ER_ACCESS_DENIED_ERROR,
                &[
                    &user,
                    &conn.peer.host,
                    &if used_password { "YES" } else { "NO" },
                ],
            );
            send_error(io, conn, &e);
            Flow::Close
        }
        Err(_) => Flow::Close,
    }
}
