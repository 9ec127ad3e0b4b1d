//! The row API: reading and changing rows of a table with no SQL text — what the
//! HandlerSocket listener (crate kiln-hs) uses. It is the SQL executor's own code path
//! underneath (exec::dml): the same data dictionary, the same conversion of a value to
//! a column's type (a text value is stored exactly as an INSERT of that string literal
//! would store it, strict mode included), the same defaults (DEFAULT values,
//! CURRENT_TIMESTAMP, NULL, error 1364), the same auto-increment counter and the same
//! duplicate-key errors (1062 naming the index).
//!
//! A caller owns a kiln-sql `Session` (for its storage session, sql_mode, NOW() and
//! warnings) and runs its own transactions: `begin` one, read and change rows through
//! the functions here, commit it.
//!
//! No privilege is checked here: the caller is not an account's session (statements
//! are checked in `privcheck.rs`, on `Session::execute`'s path only). HandlerSocket's
//! access control is its own secret (docs/privileges.md).

use std::sync::Arc;
use std::time::Duration;

use kiln_common::key::KeyWriter;
use kiln_common::{ErrorKind, KilnError, Result};
use kiln_storage::trx::{Isolation, Trx, TrxError, TrxOptions};

use crate::dict::{Catalog, TableHandle};
use crate::exec::access::trx_error;
use crate::exec::dml;
use crate::rowfmt;
use crate::session::Session;
use crate::types::{SqlType, StoreMode, store};
use crate::value::Value;

/// The catalog as of the latest DDL.
pub fn catalog(sess: &mut Session) -> Result<Arc<Catalog>> {
    sess.catalog()
}

/// The dictionary's version: it changes with every DDL (cached handles are then stale).
pub fn catalog_version(sess: &Session) -> Result<u64> {
    Ok(sess.dict()?.version())
}

/// How long a row-API writer waits for a lock: `lock_wait_timeout`, or `cap` when
/// that is shorter.
fn wait_limit(sess: &mut Session, cap: Option<Duration>) -> Duration {
    let t = sess.mdl_timeout();
    cap.map_or(t, |c| t.min(c))
}

/// Takes a SHARED_WRITE metadata lock on `db.table` for the caller's write batch
/// (waiting for a DDL or a SQL session's LOCK TABLES ... READ or WRITE on it, as a
/// SQL writer waits, up to `wait_limit`: 1205 then, 1317 when the session is
/// interrupted); `release_locks` lets go of it.
pub fn lock_table(sess: &mut Session, db: &str, table: &str, cap: Option<Duration>) -> Result<()> {
    let timeout = wait_limit(sess, cap);
    sess.mdl.acquire(
        db,
        table,
        crate::mdl::Mode::SharedWrite,
        &crate::mdl::WaitLimits {
            timeout,
            interrupt: &sess.interrupt,
        },
    )
}

/// Enters the write gate of FLUSH TABLES WITH READ LOCK (grl.rs) for a batch of
/// writes, as a SQL writing statement does: while a SQL session holds the global read
/// lock it waits, up to `wait_limit` (1205), or until the session is interrupted
/// (1317: the server shuts down). Entered once per batch; `exit_write_gate` leaves it
/// after the batch's commit or rollback, so FLUSH TABLES WITH READ LOCK waits for a
/// batch in flight. Reads never enter it.
pub fn enter_write_gate(sess: &mut Session, cap: Option<Duration>) -> Result<()> {
    let timeout = wait_limit(sess, cap);
    sess.gate.enter(&crate::mdl::WaitLimits {
        timeout,
        interrupt: &sess.interrupt,
    })
}

/// Leaves the write gate `enter_write_gate` entered.
pub fn exit_write_gate(sess: &mut Session) {
    sess.gate.exit();
}

/// Releases the metadata locks `lock_table` took (the batch ended).
pub fn release_locks(sess: &mut Session) {
    sess.mdl.release_all();
}

/// Starts a batch: fixes NOW() for defaults and clears the warnings of the last one.
pub fn start_batch(sess: &mut Session) {
    sess.begin_row_batch();
}

/// Begins a transaction on the session's storage session: REPEATABLE READ, one
/// consistent view for everything it reads; `write` false makes it read-only (no
/// transaction id, no shared write).
pub fn begin(sess: &mut Session, write: bool) -> Result<Trx> {
    let lock_wait_timeout = sess
        .cached_vars()
        .lock_wait_timeout_secs
        .map(std::time::Duration::from_secs);
    let ts = sess.storage_session()?;
    Ok(ts.begin(TrxOptions {
        isolation: Isolation::RepeatableRead,
        read_only: !write,
        autocommit: true,
        consistent_snapshot: false,
        lock_wait_timeout,
    }))
}

/// Whether sql_mode makes conversion problems errors (STRICT_TRANS_TABLES /
/// STRICT_ALL_TABLES).
pub fn strict(sess: &mut Session) -> bool {
    let _ = sess.cached_vars();
    sess.strict_mode()
}

/// A value sent as bytes, as a string literal of the column's kind: binary columns
/// get bytes, the rest text (invalid UTF-8 is a string MySQL would reject as well;
/// `store` then sees it through a lossy conversion).
pub fn literal(ty: &SqlType, bytes: &[u8]) -> Value {
    let binary = matches!(
        ty,
        SqlType::Binary(_) | SqlType::VarBinary(_) | SqlType::Blob(_) | SqlType::Bit(_)
    );
    if binary {
        return Value::Bytes(bytes.to_vec());
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => Value::Str(s.to_string()),
        Err(_) => Value::Bytes(bytes.to_vec()),
    }
}

/// Converts a value for column `col` as INSERT would (strict: errors; otherwise the
/// adjusted value, with warnings recorded on the session).
pub fn convert(
    sess: &mut Session,
    h: &TableHandle,
    col: usize,
    v: Option<&[u8]>,
    strict: bool,
) -> Result<Value> {
    let c = &h.def.columns[col];
    let Some(bytes) = v else {
        if !c.nullable {
            return Err(KilnError::new(ErrorKind::ER_BAD_NULL_ERROR, &[&c.name]));
        }
        return Ok(Value::Null);
    };
    let mut warnings = Vec::new();
    let out = store(
        &c.ty,
        &c.name,
        &literal(&c.ty, bytes),
        StoreMode { strict, row: 1 },
        &mut warnings,
    )?;
    for w in warnings {
        sess.warn_row_api(w.code, w.message);
    }
    Ok(out)
}

/// Converts a value for comparing with column `col` (a key part or a filter): the
/// value the column would hold, never an error (a lookup of 'abc' in an INT column
/// looks up 0, as the storage-engine API did for the original HandlerSocket).
pub fn convert_for_compare(h: &TableHandle, col: usize, v: Option<&[u8]>) -> Value {
    let c = &h.def.columns[col];
    let Some(bytes) = v else { return Value::Null };
    let mut warnings = Vec::new();
    // The common key, a plain decimal number for an integer column, converts exactly
    // as its text would (the same range clamp): skip building the string.
    let given = match (&c.ty, plain_decimal(bytes)) {
        (SqlType::Int { .. }, Some(n)) => Value::Int(n),
        _ => literal(&c.ty, bytes),
    };
    store(
        &c.ty,
        &c.name,
        &given,
        StoreMode {
            strict: false,
            row: 1,
        },
        &mut warnings,
    )
    .unwrap_or(Value::Null)
}

/// `bytes` as a number if it is an optional '-' and 1 to 18 decimal digits (always in
/// i64's range), nothing else.
fn plain_decimal(bytes: &[u8]) -> Option<i64> {
    let (neg, digits) = match bytes.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, bytes),
    };
    if digits.is_empty() || digits.len() > 18 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = digits
        .iter()
        .fold(0i64, |n, &d| n * 10 + i64::from(d - b'0'));
    Some(if neg { -n } else { n })
}

/// Appends the encoding of key part `part` of index `index` holding `v`.
pub fn encode_key_part(h: &TableHandle, index: usize, part: usize, v: &Value, kw: &mut KeyWriter) {
    let p = &h.def.indexes[index].parts[part];
    rowfmt::key_part(
        kw,
        &h.def.columns[p.column],
        h.shape.colls[p.column],
        v,
        p.prefix_chars,
        p.desc,
    );
}

/// Compares a column's value with a converted value: NULL equals NULL and sorts below
/// everything; strings by the column's collation; numbers numerically.
pub fn compare_column(h: &TableHandle, col: usize, a: &Value, b: &Value) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a.is_null(), b.is_null()) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Less,
        (false, true) => return Ordering::Greater,
        _ => {}
    }
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => h.shape.colls[col].compare(x.as_bytes(), y.as_bytes()),
        (Value::Bytes(x), Value::Bytes(y)) => x.cmp(y),
        _ => crate::eval::compare(a, b).unwrap_or(Ordering::Equal),
    }
}

/// What an insert did.
pub struct Inserted {
    /// The AUTO_INCREMENT value generated for the row, if one was.
    pub auto_id: Option<u64>,
    /// The value of the table's AUTO_INCREMENT column (generated or given).
    pub auto_value: Option<u64>,
}

/// Inserts a row: `given` holds (column, value as sent; None = NULL) for the columns
/// given; every other column takes its default. Auto-increment as INSERT does (NULL
/// or 0 generates the next value). Errors are MySQL's (1062 names the index; 1048,
/// 1364, 1366, 1406 ... in strict mode). The caller rolls back to a savepoint taken
/// before when this fails.
pub fn insert_row(
    sess: &mut Session,
    trx: &mut Trx,
    h: &TableHandle,
    given: &[(usize, Option<&[u8]>)],
) -> Result<Inserted> {
    let strict = strict(sess);
    let ncol = h.def.columns.len();
    let mut row = vec![Value::Null; ncol];
    let mut set = vec![false; ncol];
    for &(c, v) in given {
        if let Some(bytes) = v {
            row[c] = literal(&h.def.columns[c].ty, bytes);
        }
        set[c] = true;
    }
    for c in 0..ncol {
        if !set[c] {
            row[c] = dml::default_of(sess, h, c, strict)?;
        }
    }
    let mut auto_id = None;
    let mut persist_next = 0u64;
    let auto_col = h.auto_increment_column();
    if let Some(ac) = auto_col {
        let v = &row[ac];
        let no_auto_on_zero = sess.sql_mode_has("NO_AUTO_VALUE_ON_ZERO");
        let zero = !no_auto_on_zero && !v.is_null() && v.to_i64() == Some(0);
        if v.is_null() || zero {
            let id = h.auto_inc_take(1);
            persist_next = id + 1;
            row[ac] = Value::UInt(id);
            auto_id = Some(id);
        }
    }
    dml::convert_row(sess, h, &mut row, strict, true, 1)?;
    let mut auto_value = auto_id;
    if let Some(ac) = auto_col {
        let (value, persist) = dml::settle_auto_value(h, &row, ac);
        persist_next = persist_next.max(persist);
        auto_value = Some(value);
    }
    let pk = dml::primary_key(h, &row);
    let bytes = dml::encode(h, &row);
    match trx.table_insert(&h.storage, &pk, &bytes) {
        Ok(()) => {}
        Err(TrxError::DuplicateKey) => {
            let index = match dml::find_conflict(trx, h, &row, &pk)? {
                Some((i, _, _)) => i,
                None => 0,
            };
            return Err(dml::duplicate_error(h, index, &row));
        }
        Err(e) => return Err(trx_error(e)),
    }
    h.add_rows(1);
    crate::status::add("Innodb_rows_inserted", 1);
    if persist_next > 0 {
        sess.persist_auto_inc(h, persist_next)?;
    }
    Ok(Inserted {
        auto_id,
        auto_value,
    })
}

/// Writes `newrow` (already converted) over row `pk`, moving it if its primary key
/// changes; 1062 if it collides with another row.
pub fn update_row(trx: &mut Trx, h: &TableHandle, pk: &[u8], newrow: &[Value]) -> Result<()> {
    dml::apply_update(trx, h, pk, newrow)?;
    crate::status::add("Innodb_rows_updated", 1);
    Ok(())
}

/// Deletes row `pk` (locked by the caller's locking read); false if it was gone.
pub fn delete_row(trx: &mut Trx, h: &TableHandle, pk: &[u8]) -> Result<bool> {
    let gone = trx.table_delete(&h.storage, pk).map_err(trx_error)?;
    if gone {
        h.add_rows(-1);
        crate::status::add("Innodb_rows_deleted", 1);
    }
    Ok(gone)
}

/// Counts rows read (Innodb_rows_read).
pub fn rows_read(n: u64) {
    crate::status::add("Innodb_rows_read", n);
}
