//! LOAD DATA [LOCAL] INFILE: reads a text file into a table, streaming — each chunk
//! of the file goes through the splitter (`crate::loadsplit`) and every complete
//! record is converted and inserted at once (`dml::RowInserter`, INSERT's own path),
//! so memory holds one partial record, never the file.
//!
//! The bytes come from the client (LOCAL: the connection implements [`LocalInfile`]
//! and speaks the 0xFB exchange; this crate never touches a socket) or from a file on
//! the server, allowed by `secure_file_priv` and the FILE privilege.
//!
//! MySQL 8.0's rules, as implemented:
//! - LOCAL without REPLACE implies IGNORE: duplicates are skipped (warning 1062) and
//!   data errors are warnings whatever sql_mode says. Without IGNORE or LOCAL, strict
//!   mode makes bad values (1366, 1264, …), missing fields (1261), extra fields (1262)
//!   and NULL for a NOT NULL column (1263) errors, and a duplicate key is 1062.
//! - A field `\N` (or unenclosed `NULL` with ENCLOSED BY) is NULL; into a NOT NULL
//!   column it becomes the type's zero value with warning 1263. A missing field
//!   leaves the column NULL when its default is NULL, else the type's zero value
//!   (MySQL's `Field::reset`), with warning 1261 per missing field.
//! - Columns not listed take their DEFAULT; `@var` targets set user variables, which
//!   `SET col = expr` can use. Fields are stored as an INSERT of that string would.
//! - OK: affected rows = inserted + deleted; info "Records: N  Deleted: D  Skipped: S
//!   Warnings: W" (S = records not inserted).
//! - The whole load is one statement of the session's transaction: a failure undoes
//!   it, autocommit commits once at the end.

use std::io::Read;
use std::sync::Arc;

use kiln_common::{ErrorKind, KilnError, Result};

use super::bind::Scope;
use super::dml::{
    OnDup, RowInserter, Wrote, bind_assignment, default_of, eval_assignment, store_column,
};
use super::select::resolve_table_for_write;
use crate::ast::{Expr, LoadData, LoadTarget, TriggerEvent, VarScope};
use crate::dict::{ColumnDefault, TableHandle};
use crate::eval::{Env, Level};
use crate::loadsplit::{Field, Splitter};
use crate::result::Outcome;
use crate::session::Session;
use crate::value::Value;

/// Bytes read from a server-side file at a time.
const FILE_CHUNK_BYTES: usize = 64 * 1024;

/// The client's side of LOAD DATA LOCAL, as the connection provides it.
pub trait LocalInfile {
    /// Whether the client may send files (it announced CLIENT_LOCAL_FILES).
    fn enabled(&self) -> bool;
    /// Asks the client for `file_name` (MySQL's 0xFB LOCAL INFILE request).
    fn request(&mut self, file_name: &str) -> Result<()>;
    /// The file's next bytes; None after the last (the client's empty packet).
    fn read(&mut self) -> Result<Option<Vec<u8>>>;
}

/// For sessions without a client connection that can send files.
pub struct NoLocalInfile;

impl LocalInfile for NoLocalInfile {
    fn enabled(&self) -> bool {
        false
    }
    fn request(&mut self, _file_name: &str) -> Result<()> {
        Err(ErrorKind::ER_CLIENT_LOCAL_FILES_DISABLED.into())
    }
    fn read(&mut self) -> Result<Option<Vec<u8>>> {
        Ok(None)
    }
}

/// Where an input field goes.
enum Target {
    Column(usize),
    Var(String),
}

/// How field bytes become text.
#[derive(Clone, Copy)]
enum Decode {
    Utf8,
    Latin1,
}

fn decode(d: Decode, bytes: Vec<u8>) -> Value {
    match d {
        Decode::Latin1 if !bytes.is_ascii() => {
            Value::Str(bytes.iter().map(|&b| b as char).collect())
        }
        _ => match String::from_utf8(bytes) {
            Ok(s) => Value::Str(s),
            Err(e) => Value::Bytes(e.into_bytes()),
        },
    }
}

/// The bytes' source.
enum Source<'a> {
    Client(&'a mut dyn LocalInfile),
    File(std::fs::File),
}

impl Source<'_> {
    fn read(&mut self, path: &str) -> Result<Option<Vec<u8>>> {
        match self {
            Source::Client(c) => c.read(),
            Source::File(f) => {
                let mut buf = vec![0u8; FILE_CHUNK_BYTES];
                loop {
                    match f.read(&mut buf) {
                        Ok(0) => return Ok(None),
                        Ok(n) => {
                            buf.truncate(n);
                            return Ok(Some(buf));
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(file_error(path, &e)),
                    }
                }
            }
        }
    }
}

/// MySQL's error 29 for a file that cannot be read.
fn file_error(path: &str, e: &std::io::Error) -> KilnError {
    let errno = e.raw_os_error().unwrap_or(0);
    let text = std::io::Error::from_raw_os_error(errno).to_string();
    let text = text.split(" (os error").next().unwrap_or("").to_string();
    KilnError::new(ErrorKind::EE_FILENOTFOUND, &[&path, &errno, &text])
}

/// A row-numbered condition that strict mode turns into an error.
fn condition(sess: &mut Session, strict: bool, e: KilnError) -> Result<()> {
    if strict {
        return Err(e);
    }
    sess.warn(Level::Warning, e.code, e.message);
    Ok(())
}

pub fn load_data(
    sess: &mut Session,
    ld: &LoadData,
    infile: &mut dyn LocalInfile,
) -> Result<Outcome> {
    if ld.wrong_terminators {
        return Err(ErrorKind::ER_WRONG_FIELD_TERMINATORS.into());
    }
    if ld.format.field_term.is_empty() && ld.format.enclosed.is_none() {
        return Err(KilnError::new(
            ErrorKind::ER_NOT_SUPPORTED_YET,
            &[&"LOAD DATA with fixed-size rows (FIELDS TERMINATED BY '' ENCLOSED BY '')"],
        ));
    }
    let h = resolve_table_for_write(sess, &ld.table)?;
    let ncol = h.def.columns.len();
    let mut listed = vec![false; ncol];
    let mut targets = Vec::new();
    if ld.targets.is_empty() {
        for (i, c) in h.def.columns.iter().enumerate() {
            if !c.invisible {
                targets.push(Target::Column(i));
                listed[i] = true;
            }
        }
    }
    for t in &ld.targets {
        match t {
            LoadTarget::Var(v) => targets.push(Target::Var(v.clone())),
            LoadTarget::Column(c) => {
                let i = column(&h, c)?;
                if listed[i] {
                    return Err(KilnError::new(ErrorKind::ER_FIELD_SPECIFIED_TWICE, &[&c]));
                }
                listed[i] = true;
                targets.push(Target::Column(i));
            }
        }
    }
    let scope = Scope {
        columns: super::select::table_scope(&h, &h.def.name),
    };
    let mut sets: Vec<(usize, Option<Expr>)> = Vec::with_capacity(ld.sets.len());
    for (c, e) in &ld.sets {
        let i = column(&h, c)?;
        if listed[i] {
            return Err(KilnError::new(ErrorKind::ER_FIELD_SPECIFIED_TWICE, &[&c]));
        }
        listed[i] = true;
        sets.push((i, bind_assignment(sess, &h, &scope, e.as_ref())?));
    }
    let charset = match &ld.charset {
        Some(c) => c.clone(),
        None => sess
            .vars
            .display("character_set_database")
            .unwrap_or_else(|| "utf8mb4".into()),
    };
    let decoding = match crate::charset::charset(&charset) {
        Some(cs) if cs.name == "latin1" => Decode::Latin1,
        Some(_) => Decode::Utf8,
        None => {
            return Err(KilnError::new(
                ErrorKind::ER_UNKNOWN_CHARACTER_SET,
                &[&charset],
            ));
        }
    };
    // LOCAL implies IGNORE unless REPLACE is given; IGNORE turns strict errors into
    // warnings.
    let ignore = ld.ignore || (ld.local && !ld.replace);
    let strict = sess.strict_mode() && !ignore;
    let on_dup = if ld.replace {
        OnDup::Replace
    } else if ignore {
        OnDup::Ignore
    } else {
        OnDup::Error
    };
    let max_record_bytes = sess
        .vars
        .get(VarScope::Session, "max_allowed_packet")
        .ok()
        .and_then(|v| v.to_i64())
        .unwrap_or(kiln_common::limits::MAX_ALLOWED_PACKET_BYTES_DEFAULT as i64)
        .max(1024) as usize;
    let mut source = if ld.local {
        let server_allows = sess
            .vars
            .get(VarScope::Global, "local_infile")
            .ok()
            .and_then(|v| v.to_i64())
            .unwrap_or(0)
            != 0;
        if !server_allows || !infile.enabled() {
            return Err(ErrorKind::ER_CLIENT_LOCAL_FILES_DISABLED.into());
        }
        infile.request(&ld.file)?;
        Source::Client(infile)
    } else {
        Source::File(open_server_file(sess, &ld.file)?)
    };
    // Defaults of the columns no field or SET assigns, computed once (expression
    // defaults per row).
    let mut fixed_defaults: Vec<Option<Value>> = vec![None; ncol];
    for i in 0..ncol {
        if !listed[i] && !matches!(h.def.columns[i].default, Some(ColumnDefault::Expr(_))) {
            fixed_defaults[i] = Some(default_of(sess, &h, i, strict)?);
        }
    }
    let ctx = LoadCtx {
        h: h.clone(),
        targets,
        sets,
        listed,
        fixed_defaults,
        strict,
        decoding,
    };
    let mut splitter = Splitter::new(
        ld.format.clone(),
        ctx.targets.len(),
        ld.ignore_lines,
        max_record_bytes,
    );
    // INSERT triggers fire per row (REPLACE's DELETE triggers do not: see docs).
    let trig = super::trigger::of(sess, &h)?.filter(|t| t.has(TriggerEvent::Insert));
    let mut writer = RowInserter::new(sess, h, strict, on_dup);
    sess.with_statement(|sess| {
        let mut stats = Stats::default();
        loop {
            let chunk = source.read(&ld.file)?;
            match &chunk {
                Some(bytes) => splitter.push(bytes),
                None => splitter.finish(),
            }
            while let Some(rec) = splitter.next_record().map_err(|_| too_long())? {
                stats.records += 1;
                let row_no = stats.records;
                let mut row = ctx.row(sess, rec.fields, row_no)?;
                if let Some(t) = &trig {
                    super::dml::before_insert(sess, t, &ctx.h, &mut row, strict, row_no)?;
                }
                let wrote =
                    sess.with_trx(|sess, trx| writer.write(sess, trx, &mut row, row_no, false))?;
                let written = match wrote {
                    Wrote::Inserted => true,
                    Wrote::Replaced { deleted } => {
                        stats.deleted += deleted;
                        true
                    }
                    Wrote::Ignored | Wrote::Conflict { .. } => false,
                };
                if written {
                    stats.copied += 1;
                }
                if written && let Some(t) = &trig {
                    super::trigger::after_insert(sess, Some(t), &ctx.h, &mut row)?;
                }
                if rec.cut {
                    condition(
                        sess,
                        strict,
                        KilnError::new(ErrorKind::ER_WARN_TOO_MANY_RECORDS, &[&row_no]),
                    )?;
                }
            }
            if chunk.is_none() {
                break;
            }
            if sess.is_interrupted() {
                return Err(ErrorKind::ER_QUERY_INTERRUPTED.into());
            }
        }
        let last_insert_id = writer.finish(sess)?;
        sess.rows_changed(&ctx.h, "inserted", stats.copied);
        Ok(Outcome::Ok {
            affected_rows: stats.copied + stats.deleted,
            last_insert_id,
            info: format!(
                "Records: {}  Deleted: {}  Skipped: {}  Warnings: {}",
                stats.records,
                stats.deleted,
                stats.records - stats.copied,
                sess.warning_count()
            ),
        })
    })
}

#[derive(Default)]
struct Stats {
    records: u64,
    copied: u64,
    deleted: u64,
}

/// A record longer than max_allowed_packet.
fn too_long() -> KilnError {
    ErrorKind::ER_NET_PACKET_TOO_LARGE.into()
}

fn column(h: &TableHandle, name: &str) -> Result<usize> {
    h.def
        .column_index(name)
        .ok_or_else(|| KilnError::new(ErrorKind::ER_BAD_FIELD_ERROR, &[&name, &"field list"]))
}

/// The statement's fixed parts, for building each row.
struct LoadCtx {
    h: Arc<TableHandle>,
    targets: Vec<Target>,
    sets: Vec<(usize, Option<Expr>)>,
    listed: Vec<bool>,
    fixed_defaults: Vec<Option<Value>>,
    strict: bool,
    decoding: Decode,
}

impl LoadCtx {
    /// One record's row: fields stored into their columns (or variables) as they come,
    /// missing fields reset, unlisted columns defaulted, then SET.
    fn row(&self, sess: &mut Session, fields: Vec<Field>, row_no: u64) -> Result<Vec<Value>> {
        let h = &*self.h;
        let mut row = vec![Value::Null; h.def.columns.len()];
        let mut fields = fields.into_iter();
        for t in &self.targets {
            let field = fields.next();
            match (t, field) {
                (Target::Var(v), Some(Field::Bytes(b))) => {
                    sess.set_user_var(v, decode(self.decoding, b));
                }
                (Target::Var(v), _) => sess.set_user_var(v, Value::Null),
                (Target::Column(c), Some(Field::Bytes(b))) => {
                    // Stored now: conversion warnings come in field order, as in MySQL.
                    let v = decode(self.decoding, b);
                    row[*c] = store_column(sess, h, *c, &v, self.strict, row_no)?;
                }
                (Target::Column(c), Some(Field::Null)) => {
                    let col = &h.def.columns[*c];
                    if !col.nullable && !col.auto_increment {
                        condition(
                            sess,
                            self.strict,
                            KilnError::new(
                                ErrorKind::ER_WARN_NULL_TO_NOTNULL,
                                &[&col.name, &row_no],
                            ),
                        )?;
                        row[*c] = super::dml::implicit_default(h, *c);
                    }
                }
                (Target::Column(c), None) => {
                    let col = &h.def.columns[*c];
                    let default_null = col.nullable
                        && matches!(col.default, None | Some(ColumnDefault::Value(Value::Null)));
                    if !default_null {
                        row[*c] = super::dml::implicit_default(h, *c);
                    }
                    condition(
                        sess,
                        self.strict,
                        KilnError::new(ErrorKind::ER_WARN_TOO_FEW_RECORDS, &[&row_no]),
                    )?;
                }
            }
        }
        for (i, v) in row.iter_mut().enumerate() {
            if !self.listed[i] {
                *v = match &self.fixed_defaults[i] {
                    Some(d) => d.clone(),
                    None => default_of(sess, h, i, self.strict)?,
                };
            }
        }
        for (c, e) in &self.sets {
            row[*c] = eval_assignment(sess, h, &row, *c, e.as_ref(), self.strict)?;
        }
        Ok(row)
    }
}

/// Opens a server-side file if `secure_file_priv` allows it: NULL (kiln's default)
/// refuses every file (1290), '' allows any, a directory allows the files under it.
/// A relative name is taken under that directory.
fn open_server_file(sess: &mut Session, name: &str) -> Result<std::fs::File> {
    let denied = || {
        KilnError::new(
            ErrorKind::ER_OPTION_PREVENTS_STATEMENT,
            &[&"--secure-file-priv"],
        )
    };
    let dir = match sess.vars.get(VarScope::Global, "secure_file_priv") {
        Ok(Value::Null) | Err(_) => return Err(denied()),
        Ok(v) => v.to_string_lossy().unwrap_or_default(),
    };
    if dir.eq_ignore_ascii_case("NULL") {
        return Err(denied());
    }
    let path = std::path::Path::new(name);
    let path = if path.is_relative() && !dir.is_empty() {
        std::path::Path::new(&dir).join(path)
    } else {
        path.to_path_buf()
    };
    let shown = path.to_string_lossy().into_owned();
    let real = std::fs::canonicalize(&path).map_err(|e| file_error(&shown, &e))?;
    if !dir.is_empty() {
        let base = std::fs::canonicalize(&dir).map_err(|_| denied())?;
        if !real.starts_with(&base) {
            return Err(denied());
        }
    }
    if real.is_dir() {
        return Err(file_error(&shown, &std::io::Error::from_raw_os_error(21)));
    }
    std::fs::File::open(&real).map_err(|e| file_error(&shown, &e))
}
