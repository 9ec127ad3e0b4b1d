//! The sqllogictest `DB` for a MySQL-protocol server: runs one record's SQL on one
//! session over the text protocol, turns the result into typed, formatted values, and
//! enforces the per-record limits (time, rows, bytes).
//!
//! Session policy: one connection per file, kept for the whole file and never reset
//! between records — SQLite's reference runner does the same, and it is what an
//! application does. (The sqllogictest crate's pooled MySQL engine instead sends
//! COM_RESET_CONNECTION after every record.) The connection is replaced only when it
//! broke or a record blew a limit; only then is session state lost.

use std::fmt;
use std::time::Instant;

use mysql::Conn;
use mysql::consts::ColumnType as My;
use mysql::prelude::Queryable;
use sqllogictest::{DB, DBOutput, DefaultColumnType};

use crate::args::{Limits, Target};
use crate::side::{self, Shape, SideChannel};
use crate::{conn, format};

/// Why a record's SQL did not produce a result.
#[derive(Debug, Clone)]
pub enum DbError {
    /// The server answered with an error; the session is still usable.
    Server {
        code: u16,
        state: String,
        message: String,
    },
    /// The connection could not be opened or broke mid-record.
    Connection(String),
    /// The record ran past a limit and was abandoned.
    Limit(String),
}

impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DbError::Server {
                code,
                state,
                message,
            } => write!(f, "ERROR {code} ({state}): {message}"),
            DbError::Connection(m) => write!(f, "connection error: {m}"),
            DbError::Limit(m) => write!(f, "limit exceeded: {m}"),
        }
    }
}

impl std::error::Error for DbError {}

impl DbError {
    /// A server error leaves the session usable; anything else means the connection is
    /// in an unknown state and must be replaced.
    fn from_mysql(e: mysql::Error) -> DbError {
        match e {
            mysql::Error::MySqlError(me) => DbError::Server {
                code: me.code,
                state: me.state,
                message: me.message,
            },
            // The socket read/write timeout is the record timeout: the server sat on the
            // record for that long without a word.
            e if timed_out(&e) => {
                DbError::Limit(format!("no answer within the record timeout ({e})"))
            }
            other => DbError::Connection(other.to_string()),
        }
    }
}

/// True when `e` is a socket timeout: EAGAIN (SO_RCVTIMEO) or ETIMEDOUT, raised directly
/// or from inside the packet codec (which the crate does not expose as a source).
fn timed_out(e: &mysql::Error) -> bool {
    let io = match e {
        mysql::Error::IoError(io) => Some(io),
        mysql::Error::CodecError(ce) => {
            std::error::Error::source(ce).and_then(|s| s.downcast_ref::<std::io::Error>())
        }
        _ => None,
    };
    io.is_some_and(|io| {
        matches!(
            io.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        )
    })
}

pub struct MysqlDb {
    target: Target,
    limits: Limits,
    /// Shared with the file runner: expected letters in, last result shape out.
    side: SideChannel,
    /// `None` until the first record, and again after the session had to be abandoned.
    conn: Option<Conn>,
}

impl MysqlDb {
    /// A DB that connects lazily, on its first record, into the scratch database.
    pub fn new(target: Target, limits: Limits, side: SideChannel) -> Self {
        MysqlDb {
            target,
            limits,
            side,
            conn: None,
        }
    }

    fn session(&mut self) -> Result<&mut Conn, DbError> {
        if self.conn.is_none() {
            let c = conn::connect(
                &self.target,
                Some(&self.target.database),
                self.limits.record_timeout,
            )
            .map_err(|e| DbError::Connection(e.to_string()))?;
            self.conn = Some(c);
        }
        Ok(self.conn.as_mut().expect("connected above"))
    }
}

impl DB for MysqlDb {
    type Error = DbError;
    type ColumnType = DefaultColumnType;

    fn run(&mut self, sql: &str) -> Result<DBOutput<DefaultColumnType>, DbError> {
        let limits = self.limits.clone();
        let expected = {
            let mut s = side::lock(&self.side);
            s.last = None;
            s.loose.then(|| s.expected.clone())
        };
        let session = self.session()?;
        let id = session.connection_id();
        match execute(session, sql, &limits, expected.as_deref()) {
            Ok((out, shape)) => {
                side::lock(&self.side).last = shape;
                Ok(out)
            }
            Err(Failure::Kept(e)) => Err(e),
            Err(Failure::Abandoned(e)) => {
                // Stop the server's work before dropping our end; the next record gets
                // a fresh session.
                conn::kill_session(&self.target, id);
                self.conn = None;
                Err(e)
            }
        }
    }

    fn engine_name(&self) -> &str {
        "mysql"
    }

    fn error_sql_state(err: &DbError) -> Option<String> {
        match err {
            DbError::Server { state, .. } => Some(state.clone()),
            _ => None,
        }
    }
}

/// How `execute` failed: whether the session can carry on.
enum Failure {
    Kept(DbError),
    Abandoned(DbError),
}

/// Runs `sql`; `expected` (loose-types mode) overrides how columns are typed and formatted
/// when it has one letter per column.
fn execute(
    c: &mut Conn,
    sql: &str,
    limits: &Limits,
    expected: Option<&[DefaultColumnType]>,
) -> Result<(DBOutput<DefaultColumnType>, Option<Shape>), Failure> {
    let started = Instant::now();
    let mut result = c
        .query_iter(sql)
        .map_err(|e| match DbError::from_mysql(e) {
            e @ DbError::Server { .. } => Failure::Kept(e),
            e => Failure::Abandoned(e),
        })?;

    let types: Vec<My> = result
        .columns()
        .as_ref()
        .iter()
        .map(|c| c.column_type())
        .collect();
    if types.is_empty() {
        return Ok((DBOutput::StatementComplete(result.affected_rows()), None));
    }
    let kinds: Vec<DefaultColumnType> = match expected {
        Some(e) if e.len() == types.len() => e.to_vec(),
        _ => types.iter().map(|t| format::column_kind(*t)).collect(),
    };

    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut bytes = 0usize;
    let mut abandoned = None;
    if let Some(mut set) = result.iter() {
        loop {
            let row = match set.next() {
                None => break,
                Some(Ok(row)) => row,
                Some(Err(e)) => match DbError::from_mysql(e) {
                    // The server ended the result with an error: the session is fine.
                    e @ DbError::Server { .. } => return Err(Failure::Kept(e)),
                    e => {
                        // Dropping `set` would try to read the rest of a broken stream.
                        std::mem::forget(set);
                        abandoned = Some(e);
                        break;
                    }
                },
            };
            let values = row.unwrap_raw();
            let mut out = Vec::with_capacity(types.len());
            for (i, (t, k)) in types.iter().zip(&kinds).enumerate() {
                let v = match values.get(i) {
                    Some(Some(mysql::Value::Bytes(b))) => format::format_as(k.clone(), *t, Some(b)),
                    Some(Some(mysql::Value::NULL)) | Some(None) | None => {
                        format::format_as(k.clone(), *t, None)
                    }
                    // The text protocol only yields bytes or NULL; be explicit anyway.
                    Some(Some(other)) => {
                        format::format_as(k.clone(), *t, Some(other.as_sql(true).as_bytes()))
                    }
                };
                bytes += v.len();
                out.push(v);
            }
            rows.push(out);

            let over = if rows.len() > limits.max_rows {
                Some(format!("more than {} rows", limits.max_rows))
            } else if bytes > limits.max_bytes {
                Some(format!("more than {} bytes of values", limits.max_bytes))
            } else if started.elapsed() > limits.record_timeout {
                Some(format!("ran longer than {:?}", limits.record_timeout))
            } else {
                None
            };
            if let Some(why) = over {
                // Dropping `set` would read (and buffer nothing of) every remaining row:
                // exactly the unbounded work the limit exists to avoid.
                std::mem::forget(set);
                abandoned = Some(DbError::Limit(why));
                break;
            }
        }
    }
    if let Some(e) = abandoned {
        std::mem::forget(result);
        return Err(Failure::Abandoned(e));
    }
    let shape = Shape::new(types, &rows);
    Ok((DBOutput::Rows { types: kinds, rows }, Some(shape)))
}
