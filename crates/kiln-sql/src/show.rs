//! SHOW statements that need no tables: VARIABLES, STATUS, WARNINGS/ERRORS,
//! DATABASES, PROCESSLIST, ENGINES, CHARACTER SET, COLLATION, GRANTS.

use kiln_common::{ErrorKind, KilnError, Result};

use crate::ast::{Expr, ShowFilter, ShowKind, VarScope};
use crate::charset::{CHARSETS, COLLATIONS};
use crate::eval::{Env, Level, eval, like_match};
use crate::result::{ColumnInfo, ColumnKind, Outcome, Rows};
use crate::session::Session;
use crate::value::Value;

pub fn show(
    s: &mut Session,
    kind: &ShowKind,
    scope: VarScope,
    filter: Option<&ShowFilter>,
    limit: Option<u64>,
) -> Result<Outcome> {
    let global = scope == VarScope::Global;
    let table_show = if s.dict.is_some() {
        let like = match filter {
            Some(ShowFilter::Like(p)) => Some(p.as_str()),
            _ => None,
        };
        crate::exec::show::show(s, kind, like)?
    } else {
        None
    };
    let (columns, rows): (Vec<ColumnInfo>, Vec<Vec<Value>>) = if let Some(t) = table_show {
        t
    } else {
        match kind {
            ShowKind::Variables => {
                let cols = vec![
                    ColumnInfo::text("Variable_name", 64),
                    ColumnInfo::text("Value", 1024),
                ];
                let rows = s
                    .vars
                    .list(global)
                    .into_iter()
                    .map(|(n, v)| vec![Value::Str(n), Value::Str(v)])
                    .collect();
                (cols, rows)
            }
            ShowKind::Status => {
                let cols = vec![
                    ColumnInfo::text("Variable_name", 64),
                    ColumnInfo::text("Value", 1024),
                ];
                (cols, status_rows(s, global))
            }
            ShowKind::Warnings | ShowKind::Errors => {
                let errors_only = matches!(kind, ShowKind::Errors);
                let mut code = ColumnInfo::new("Code", ColumnKind::Long);
                code.unsigned = true;
                code.length_chars = 4;
                let cols = vec![
                    ColumnInfo::text("Level", 7),
                    code,
                    ColumnInfo::text("Message", 512),
                ];
                let mut rows: Vec<Vec<Value>> = s
                    .diagnostics()
                    .iter()
                    .filter(|d| !errors_only || d.level == Level::Error)
                    .map(|d| {
                        vec![
                            Value::Str(d.level.as_str().into()),
                            Value::UInt(d.code as u64),
                            Value::Str(d.message.clone()),
                        ]
                    })
                    .collect();
                if let Some(l) = limit {
                    rows.truncate(l as usize);
                }
                return Ok(Outcome::Rows(Rows {
                    columns: cols.into(),
                    rows,
                }));
            }
            ShowKind::CountWarnings | ShowKind::CountErrors => {
                let (name, n) = if matches!(kind, ShowKind::CountWarnings) {
                    ("@@session.warning_count", s.diagnostics_total())
                } else {
                    (
                        "@@session.error_count",
                        s.diagnostics()
                            .iter()
                            .filter(|d| d.level == Level::Error)
                            .count(),
                    )
                };
                let mut c = ColumnInfo::new(name, ColumnKind::LongLong);
                c.unsigned = true;
                c.length_chars = 21;
                return Ok(Outcome::Rows(Rows {
                    columns: vec![c].into(),
                    rows: vec![vec![Value::UInt(n as u64)]],
                }));
            }
            ShowKind::Databases => {
                let cols = vec![ColumnInfo::text("Database", 64)];
                let mut dbs = s.server.databases();
                let p = s.privileges();
                if !p.global_has(crate::privilege::SHOW_DATABASES) {
                    dbs.retain(|d| p.sees_db(d));
                }
                dbs.sort();
                (cols, dbs.into_iter().map(|d| vec![Value::Str(d)]).collect())
            }
            ShowKind::Tables { .. }
            | ShowKind::Columns { .. }
            | ShowKind::Index(_)
            | ShowKind::CreateTable(_)
            | ShowKind::CreateView(_)
            | ShowKind::CreateTrigger(_)
            | ShowKind::Triggers { .. }
            | ShowKind::CreateRoutine(..)
            | ShowKind::RoutineStatus(_)
            | ShowKind::CreateDatabase { .. }
            | ShowKind::TableStatus(_)
            | ShowKind::EngineStatus => {
                return Err(KilnError::new(
                    ErrorKind::ER_NOT_SUPPORTED_YET,
                    &[&"tables on this server"],
                ));
            }
            ShowKind::Processlist { full } => {
                let mut id = ColumnInfo::new("Id", ColumnKind::LongLong);
                id.unsigned = true;
                let mut time = ColumnInfo::new("Time", ColumnKind::Long);
                time.length_chars = 7;
                let cols = vec![
                    id,
                    ColumnInfo::text("User", 32),
                    ColumnInfo::text("Host", 261),
                    ColumnInfo::text("db", 64),
                    ColumnInfo::text("Command", 16),
                    time,
                    ColumnInfo::text("State", 30),
                    ColumnInfo::text("Info", if *full { 65535 } else { 100 }),
                ];
                let rows = visible_processes(s)
                    .into_iter()
                    .map(|p| {
                        let info = p.info.map(|i| {
                            if *full {
                                i
                            } else {
                                i.chars().take(100).collect()
                            }
                        });
                        vec![
                            Value::UInt(p.id),
                            Value::Str(p.user),
                            Value::Str(p.host),
                            p.db.map_or(Value::Null, Value::Str),
                            Value::Str(p.command),
                            Value::Int(p.time_secs as i64),
                            Value::Str(p.state),
                            info.map_or(Value::Null, Value::Str),
                        ]
                    })
                    .collect();
                (cols, rows)
            }
            ShowKind::Engines => {
                let cols = [
                    "Engine",
                    "Support",
                    "Comment",
                    "Transactions",
                    "XA",
                    "Savepoints",
                ]
                .iter()
                .map(|n| ColumnInfo::text(n, 80))
                .collect();
                let row = [
                    "InnoDB",
                    "DEFAULT",
                    "Supports transactions, row-level locking, and foreign keys",
                    "YES",
                    "NO",
                    "YES",
                ]
                .iter()
                .map(|v| Value::Str(v.to_string()))
                .collect();
                (cols, vec![row])
            }
            ShowKind::Charset => {
                let mut maxlen = ColumnInfo::new("Maxlen", ColumnKind::Long);
                maxlen.unsigned = true;
                let cols = vec![
                    ColumnInfo::text("Charset", 64),
                    ColumnInfo::text("Description", 2048),
                    ColumnInfo::text("Default collation", 64),
                    maxlen,
                ];
                let rows = CHARSETS
                    .iter()
                    .map(|c| {
                        vec![
                            Value::Str(c.name.to_string()),
                            Value::Str(c.description.to_string()),
                            Value::Str(c.default_collation.to_string()),
                            Value::UInt(c.max_len_bytes),
                        ]
                    })
                    .collect();
                (cols, rows)
            }
            ShowKind::Collation => {
                let mut id = ColumnInfo::new("Id", ColumnKind::LongLong);
                id.unsigned = true;
                let mut sortlen = ColumnInfo::new("Sortlen", ColumnKind::Long);
                sortlen.unsigned = true;
                let cols = vec![
                    ColumnInfo::text("Collation", 64),
                    ColumnInfo::text("Charset", 64),
                    id,
                    ColumnInfo::text("Default", 3),
                    ColumnInfo::text("Compiled", 3),
                    sortlen,
                    ColumnInfo::text("Pad_attribute", 9),
                ];
                let rows = COLLATIONS
                    .iter()
                    .map(|c| {
                        vec![
                            Value::Str(c.name.to_string()),
                            Value::Str(c.charset.to_string()),
                            Value::UInt(c.id),
                            Value::Str(if c.is_default { "Yes" } else { "" }.into()),
                            Value::Str("Yes".into()),
                            Value::UInt(if c.pad_space { 1 } else { 0 }),
                            Value::Str(if c.pad_space { "PAD SPACE" } else { "NO PAD" }.into()),
                        ]
                    })
                    .collect();
                (cols, rows)
            }
            ShowKind::Grants(user) => {
                let (name, lines) = s.show_grants(user.as_ref())?;
                (
                    vec![ColumnInfo::text(&name, 1024)],
                    lines.into_iter().map(|l| vec![Value::Str(l)]).collect(),
                )
            }
        }
    };
    let names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
    let mut out = Vec::new();
    // SHOW TRIGGERS LIKE matches the table name.
    // SHOW TRIGGERS LIKE matches the table name, SHOW ... STATUS the routine's.
    let like_col = match kind {
        ShowKind::Triggers { .. } => 2,
        ShowKind::RoutineStatus(_) => 1,
        _ => 0,
    };
    for row in rows {
        let keep = match filter {
            None => true,
            Some(ShowFilter::Like(p)) => match &row[like_col] {
                Value::Str(n) => like_match(n, p, '\\', true),
                _ => false,
            },
            Some(ShowFilter::Where(e)) => where_matches(s, e, &names, &row)?,
        };
        if keep {
            out.push(row);
        }
    }
    Ok(Outcome::Rows(Rows {
        columns: columns.into(),
        rows: out,
    }))
}

/// PROCESSLIST rows the session may see: all with the PROCESS privilege, else its
/// user's own threads (MySQL compares the client user name).
pub(crate) fn visible_processes(s: &mut Session) -> Vec<crate::session::ProcessInfo> {
    let mut v = s.server.processlist();
    if !s.privileges().global_has(crate::privilege::PROCESS) {
        v.retain(|p| p.user == s.user);
    }
    v
}

fn status_rows(s: &mut Session, global: bool) -> Vec<Vec<Value>> {
    let mut vals: Vec<(String, String)> = s.server.status(global, s.connection_id);
    if global {
        let q = crate::status::QUESTIONS.get();
        vals.push(("Questions".into(), q.to_string()));
        vals.push(("Queries".into(), q.to_string()));
        for (n, v) in crate::status::com_values() {
            vals.push((n, v.to_string()));
        }
        for (n, v) in crate::status::sort_values() {
            vals.push((n, v.to_string()));
        }
    } else {
        for (n, v) in crate::status::SORT_COUNTERS.iter().zip(s.counters.sort) {
            vals.push((n.to_string(), v.to_string()));
        }
        vals.push(("Questions".into(), s.counters.questions.to_string()));
        vals.push(("Queries".into(), s.counters.questions.to_string()));
        for (n, v) in crate::status::COM_NAMES.iter().zip(s.counters.com.iter()) {
            vals.push((format!("Com_{n}"), v.to_string()));
        }
    }
    // Innodb_rows_* are server-wide in both scopes (as in MySQL).
    for (n, v) in crate::status::row_values() {
        vals.push((n, v.to_string()));
    }
    vals.sort_by_key(|a| a.0.to_ascii_lowercase());
    vals.dedup_by(|a, b| a.0 == b.0);
    vals.into_iter()
        .map(|(n, v)| vec![Value::Str(n), Value::Str(v)])
        .collect()
}

/// Evaluates a SHOW ... WHERE condition against one row, with the row's columns in scope.
fn where_matches(s: &mut Session, e: &Expr, names: &[String], row: &[Value]) -> Result<bool> {
    struct RowEnv<'a> {
        s: &'a mut Session,
        names: &'a [String],
        row: &'a [Value],
    }
    impl Env for RowEnv<'_> {
        fn param(&self, i: usize) -> Result<Value> {
            self.s.param(i)
        }
        fn sysvar(&self, scope: VarScope, name: &str) -> Result<Value> {
            self.s.sysvar(scope, name)
        }
        fn user_var(&self, name: &str) -> Value {
            self.s.user_var(name)
        }
        fn set_user_var(&mut self, name: &str, value: Value) {
            self.s.set_user_var(name, value)
        }
        fn warn(&mut self, level: Level, code: u16, message: String) {
            self.s.warn(level, code, message)
        }
        fn stored_function(&mut self, name: &str, args: Vec<Value>) -> Option<Result<Value>> {
            self.s.stored_function(name, args)
        }
        fn connection_id(&self) -> u64 {
            self.s.connection_id
        }
        fn database(&self) -> Option<String> {
            self.s.database.clone()
        }
        fn user(&self) -> String {
            self.s.user()
        }
        fn current_user(&self) -> String {
            self.s.current_user()
        }
        fn last_insert_id(&self) -> u64 {
            Env::last_insert_id(self.s)
        }
        fn set_last_insert_id(&mut self, id: u64) {
            self.s.set_last_insert_id(id)
        }
        fn row_count(&self) -> i64 {
            self.s.row_count()
        }
        fn found_rows(&self) -> u64 {
            self.s.found_rows()
        }
        fn server_version(&self) -> String {
            Env::server_version(self.s)
        }
        fn statement_time_micros(&self) -> i64 {
            self.s.statement_time_micros()
        }
        fn sleep_interruptible(&mut self, seconds: f64) -> bool {
            self.s.sleep_interruptible(seconds)
        }
        fn is_interrupted(&self) -> bool {
            self.s.is_interrupted()
        }
        fn column(&self, _q: Option<&str>, name: &str) -> Result<Value> {
            match self.names.iter().position(|n| n.eq_ignore_ascii_case(name)) {
                Some(i) => Ok(self.row[i].clone()),
                None => Err(KilnError::new(
                    ErrorKind::ER_BAD_FIELD_ERROR,
                    &[&name, &"where clause"],
                )),
            }
        }
    }
    let mut env = RowEnv { s, names, row };
    Ok(eval(e, &mut env)?.to_bool() == Some(true))
}
