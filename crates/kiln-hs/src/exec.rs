//! Executing requests on the row API (kiln_sql::rowapi) — the same dictionary, type
//! conversions, collations, defaults and MVCC as SQL.
//!
//! A worker owns one `Executor`: a kiln-sql session (for its storage session, sql_mode
//! and NOW()), the tables it has open, and the transaction of the current batch. A
//! batch is every complete request line of every ready connection of the worker:
//! `begin_batch`, `execute` each, `end_batch` (one commit). The write worker's batch
//! is one read-write transaction; each request runs to a savepoint and a failed one is
//! undone alone. Pipelined requests in a batch see each other's writes. The read
//! worker's batch is a read-only transaction: one consistent snapshot, no transaction
//! id, no shared write.
//!
//! Open indexes hold names, not handles: a binding resolves its table through the
//! worker's table cache, which is emptied whenever the dictionary version changes
//! (any DDL), so an idle connection never keeps a dropped or altered table alive and
//! re-resolves transparently after DDL (the original held table locks instead). A
//! write request takes a shared metadata lock on its table (kiln-sql's mdl.rs) until
//! its batch ends, so a DDL waits for the batch's uncommitted writes instead of
//! rebuilding the table without them.
//!
//! Reads for a modification are locking: candidates are found with a consistent scan,
//! then each is X-locked and re-read at its latest version, and the filters are
//! checked again on it (a row changed meanwhile by another transaction is judged as
//! it is now).

use std::collections::HashMap;
use std::ops::Bound;
use std::sync::Arc;

use kiln_common::KilnError;
use kiln_common::key::KeyWriter;
use kiln_sql::dict::{IndexKindDef, TableHandle};
use kiln_sql::exec::access::{prefix_successor, trx_error};
use kiln_sql::rowapi;
use kiln_sql::session::Session;
use kiln_sql::types::SqlType;
use kiln_sql::value::Value;
use kiln_storage::trx::{ReadMode, Trx};

use crate::codec::{Reply, Val};
use crate::request::{Filter, FilterOp, Find, ModOp, Modify, Op, ProtoError, Request, err};
use crate::stats::HsStats;

/// Rows one request returns or changes, at most (a larger limit is capped).
pub const ROWS_PER_REQUEST_MAX: u64 = 1_000_000;

/// An index a connection opened with `P`.
pub struct Binding {
    db: String,
    table: String,
    index: String,
    columns: Vec<String>,
    fcolumns: Vec<String>,
    /// Shared, not cloned, per request: a lookup must not copy the column lists.
    resolved: Option<Arc<Resolved>>,
}

/// A binding resolved against one dictionary version.
struct Resolved {
    version: u64,
    table: Arc<TableHandle>,
    /// Position in def.indexes.
    index: usize,
    cols: Vec<usize>,
    fcols: Vec<usize>,
    /// The filter columns (what a read decodes to values for the filters).
    fmask: Vec<bool>,
}

/// A connection's protocol state.
pub struct ConnState {
    pub bindings: Vec<Option<Binding>>,
    pub authorized: bool,
}

impl ConnState {
    pub fn new(authorized: bool) -> ConnState {
        ConnState {
            bindings: Vec::new(),
            authorized,
        }
    }
}

/// Why a request failed: a protocol error, or a SQL/engine error (`1 TAB 1 TAB errno`).
enum Fail {
    Proto(ProtoError),
    Sql(KilnError),
}

impl From<ProtoError> for Fail {
    fn from(e: ProtoError) -> Fail {
        Fail::Proto(e)
    }
}

impl From<KilnError> for Fail {
    fn from(e: KilnError) -> Fail {
        Fail::Sql(e)
    }
}

type Res<T> = Result<T, Fail>;

/// Settings an executor applies.
#[derive(Clone)]
pub struct ExecConfig {
    /// Writes allowed (the read-write port).
    pub write: bool,
    /// The secret `A 1 <secret>` must present (None: no auth).
    pub secret: Option<Vec<u8>>,
    /// The largest indexid a connection may open.
    pub max_index_id: u64,
}

pub struct Executor {
    sess: Session,
    config: ExecConfig,
    stats: Arc<HsStats>,
    version: u64,
    tables: HashMap<(String, String), Arc<TableHandle>>,
    trx: Option<Trx>,
    /// Table ids locked by the current batch (for Hs_table_lock/unlock).
    locked: Vec<u64>,
    /// The batch's transaction was rolled back by the engine (deadlock): what the
    /// batch did before is gone and the caller must run it again.
    lost: bool,
    /// Requests and rows read in the current batch, added to the shared counters once
    /// at its end (before any of its responses is sent).
    batch_requests: u64,
    batch_rows_read: u64,
}

impl Executor {
    pub fn new(sess: Session, config: ExecConfig, stats: Arc<HsStats>) -> Executor {
        Executor {
            sess,
            config,
            stats,
            version: u64::MAX,
            tables: HashMap::new(),
            trx: None,
            locked: Vec::new(),
            lost: false,
            batch_requests: 0,
            batch_rows_read: 0,
        }
    }

    pub fn config(&self) -> &ExecConfig {
        &self.config
    }

    /// Drops open tables if any DDL happened since they were opened (called per batch
    /// and when idle, so a dropped table's space is released promptly).
    pub fn refresh(&mut self) {
        let v = rowapi::catalog_version(&self.sess).unwrap_or(0);
        if v != self.version {
            self.close_tables();
            self.version = v;
        }
    }

    /// Closes every open table (the worker stops).
    pub fn close_all(&mut self) {
        self.close_tables();
    }

    fn close_tables(&mut self) {
        let n = self.tables.len() as u64;
        self.tables.clear();
        self.stats.table_close.add(n);
    }

    pub fn begin_batch(&mut self) {
        self.refresh();
        rowapi::start_batch(&mut self.sess);
        self.lost = false;
        debug_assert!(self.trx.is_none());
    }

    /// Whether the batch's transaction was lost (see `lost`).
    pub fn batch_lost(&self) -> bool {
        self.lost
    }

    /// Adds the batch's request and row counts to the shared counters.
    fn flush_counts(&mut self) {
        if self.batch_requests > 0 {
            self.stats.requests.add(self.batch_requests);
            self.batch_requests = 0;
        }
        if self.batch_rows_read > 0 {
            self.stats.rows_read.add(self.batch_rows_read);
            rowapi::rows_read(self.batch_rows_read);
            self.batch_rows_read = 0;
        }
    }

    /// Commits the batch. An error means its writes are not durable.
    pub fn end_batch(&mut self) -> Result<(), KilnError> {
        self.flush_counts();
        let unlocked = self.locked.len() as u64;
        self.locked.clear();
        self.stats.table_unlock.add(unlocked);
        let r = match self.trx.take() {
            Some(t) if !t.is_done() => t.commit().map_err(trx_error),
            _ => Ok(()),
        };
        rowapi::release_locks(&mut self.sess);
        r
    }

    /// Abandons the batch (rolls its transaction back).
    pub fn abort_batch(&mut self) {
        self.flush_counts();
        let unlocked = self.locked.len() as u64;
        self.locked.clear();
        self.stats.table_unlock.add(unlocked);
        if let Some(t) = self.trx.take()
            && !t.is_done()
        {
            let _ = t.rollback();
        }
        rowapi::release_locks(&mut self.sess);
    }

    fn trx(&mut self) -> Res<&mut Trx> {
        if self.trx.is_none() {
            let t = rowapi::begin(&mut self.sess, self.config.write)?;
            self.trx = Some(t);
        }
        Ok(self.trx.as_mut().expect("begun above"))
    }

    /// Executes one request line, appending its response to `out`.
    pub fn execute(&mut self, conn: &mut ConnState, line: &[u8], out: &mut Vec<u8>) {
        self.batch_requests += 1;
        // Most requests have a few tokens: split them into an array on the stack.
        const INLINE_TOKENS: usize = 32;
        let mut inline: [&[u8]; INLINE_TOKENS] = [&[]; INLINE_TOKENS];
        let mut spilled: Vec<&[u8]> = Vec::new();
        let mut n = 0;
        for t in line.split(|&b| b == b'\t') {
            if n < INLINE_TOKENS {
                inline[n] = t;
            } else {
                if n == INLINE_TOKENS {
                    spilled.extend_from_slice(&inline);
                }
                spilled.push(t);
            }
            n += 1;
        }
        let tokens: &[&[u8]] = if n <= INLINE_TOKENS {
            &inline[..n]
        } else {
            &spilled
        };
        let mut reply = Reply::new(out);
        let mark = reply.mark();
        let r = match crate::request::parse(tokens) {
            Ok(req) => self.dispatch(conn, req, &mut reply),
            Err(e) => Err(Fail::Proto(e)),
        };
        match r {
            Ok(()) => {}
            Err(Fail::Proto(e)) => {
                self.stats.errors.inc();
                reply.truncate(mark);
                reply.error(e.code, e.message);
            }
            Err(Fail::Sql(e)) => {
                self.stats.errors.inc();
                reply.truncate(mark);
                if self.trx.as_ref().is_some_and(|t| t.is_done()) {
                    self.lost = true;
                    self.trx = None;
                }
                reply.error(1, &handler_errno(&e).to_string());
            }
        }
    }

    fn dispatch(
        &mut self,
        conn: &mut ConnState,
        req: Request<'_>,
        reply: &mut Reply<'_>,
    ) -> Res<()> {
        if let Request::Auth { kind, secret } = req {
            if kind != b"1" {
                return Err(err(3, "authtype").into());
            }
            match &self.config.secret {
                Some(s) if s.as_slice() != secret => {
                    conn.authorized = false;
                    return Err(err(3, "unauth").into());
                }
                _ => {}
            }
            conn.authorized = true;
            reply.ok();
            return Ok(());
        }
        if !conn.authorized {
            return Err(err(3, "unauth").into());
        }
        match req {
            Request::Auth { .. } => unreachable!("handled above"),
            Request::OpenIndex {
                index_id,
                db,
                table,
                index,
                columns,
                fcolumns,
            } => {
                if index_id > self.config.max_index_id {
                    return Err(err(2, "stmtnum").into());
                }
                let names = |b: &[u8]| -> Vec<String> {
                    if b.is_empty() {
                        return Vec::new();
                    }
                    b.split(|&c| c == b',')
                        .map(|s| String::from_utf8_lossy(s).into_owned())
                        .collect()
                };
                let mut binding = Binding {
                    db: String::from_utf8_lossy(db).into_owned(),
                    table: String::from_utf8_lossy(table).into_owned(),
                    index: String::from_utf8_lossy(index).into_owned(),
                    columns: names(columns),
                    fcolumns: names(fcolumns),
                    resolved: None,
                };
                self.resolve(&mut binding)?;
                let i = index_id as usize;
                if conn.bindings.len() <= i {
                    conn.bindings.resize_with(i + 1, || None);
                }
                conn.bindings[i] = Some(binding);
                reply.ok();
                Ok(())
            }
            Request::Insert { index_id, values } => {
                let b = self.binding(conn, index_id, true)?;
                if !self.config.write {
                    return Err(err(2, "readonly").into());
                }
                self.insert(&b, &values, reply)
            }
            Request::Find(f) => {
                let b = self.binding(conn, f.index_id, f.modify.is_some())?;
                if f.modify.is_some() && !self.config.write {
                    return Err(err(2, "readonly").into());
                }
                self.find(&b, &f, reply)
            }
        }
    }

    /// The resolved binding of `index_id`, re-resolved after DDL. A write first takes
    /// a shared metadata lock on the table, held until the batch ends, so no DDL
    /// changes the table under the batch's uncommitted writes.
    fn binding(&mut self, conn: &mut ConnState, index_id: u64, write: bool) -> Res<Arc<Resolved>> {
        let b = usize::try_from(index_id)
            .ok()
            .and_then(|i| conn.bindings.get_mut(i))
            .and_then(|b| b.as_mut())
            .ok_or(err(2, "stmtnum"))?;
        if write && self.config.write {
            rowapi::lock_table(&mut self.sess, &b.db, &b.table)?;
            // A DDL may have finished before the lock was granted.
            self.refresh();
        }
        match &b.resolved {
            Some(r) if r.version == self.version => {}
            _ => self.resolve(b)?,
        }
        let r = b.resolved.clone().expect("resolved above");
        self.note_lock(&r.table);
        Ok(r)
    }

    fn note_lock(&mut self, t: &TableHandle) {
        if !self.locked.contains(&t.def.id) {
            self.locked.push(t.def.id);
            self.stats.table_lock.add(1);
        }
    }

    fn open_table(&mut self, db: &str, table: &str) -> Res<Arc<TableHandle>> {
        let key = (db.to_string(), table.to_string());
        if let Some(t) = self.tables.get(&key) {
            return Ok(t.clone());
        }
        let cat = rowapi::catalog(&mut self.sess)?;
        let t = cat.table(db, table).cloned().ok_or(err(1, "open_table"))?;
        self.stats.table_open.add(1);
        self.tables.insert(key, t.clone());
        Ok(t)
    }

    fn resolve(&mut self, b: &mut Binding) -> Res<()> {
        b.resolved = None;
        let table = self.open_table(&b.db, &b.table)?;
        let def = &table.def;
        let index = if b.index.is_empty() || b.index.eq_ignore_ascii_case("PRIMARY") {
            if def.indexes[0].kind != IndexKindDef::Primary {
                return Err(err(2, "idxnum").into());
            }
            0
        } else {
            def.indexes
                .iter()
                .position(|ix| {
                    ix.name.eq_ignore_ascii_case(&b.index)
                        && !matches!(ix.kind, IndexKindDef::Fulltext | IndexKindDef::RowId)
                })
                .ok_or(err(2, "idxnum"))?
        };
        let find = |names: &[String]| -> Res<Vec<usize>> {
            names
                .iter()
                .map(|n| def.column_index(n).ok_or(Fail::Proto(err(2, "fld"))))
                .collect()
        };
        let cols = find(&b.columns)?;
        let fcols = find(&b.fcolumns)?;
        let mut fmask = vec![false; def.columns.len()];
        for &c in &fcols {
            fmask[c] = true;
        }
        b.resolved = Some(Arc::new(Resolved {
            version: self.version,
            table: table.clone(),
            index,
            cols,
            fcols,
            fmask,
        }));
        Ok(())
    }

    fn insert(&mut self, b: &Resolved, values: &[Val<'_>], reply: &mut Reply<'_>) -> Res<()> {
        if values.len() > b.cols.len() {
            return Err(err(2, "fld").into());
        }
        let h = b.table.clone();
        let given: Vec<(usize, Option<&[u8]>)> = b
            .cols
            .iter()
            .zip(values)
            .map(|(&c, v)| (c, v.as_deref()))
            .collect();
        self.trx()?;
        let mut trx = self.trx.take().expect("begun above");
        let sp = trx.savepoint();
        let r = rowapi::insert_row(&mut self.sess, &mut trx, &h, &given);
        if r.is_err() && !trx.is_done() {
            trx.rollback_to(sp).map_err(trx_error)?;
        }
        self.trx = Some(trx);
        let ins = r?;
        self.stats.rows_inserted.add(1);
        // As the original: the generated id, 0 when the row brought its own.
        match h.auto_increment_column() {
            Some(_) => reply.ok_count(ins.auto_id.unwrap_or(0)),
            None => reply.ok(),
        }
        Ok(())
    }

    fn find(&mut self, b: &Resolved, f: &Find<'_>, reply: &mut Reply<'_>) -> Res<()> {
        let h = b.table.clone();
        let ix = &h.def.indexes[b.index];
        if f.keys.len() > ix.parts.len() {
            return Err(err(2, "kpnum").into());
        }
        let part_col = |i: usize| ix.parts[i].column;
        let keys: Vec<Value> = f
            .keys
            .iter()
            .enumerate()
            .map(|(i, v)| rowapi::convert_for_compare(&h, part_col(i), v.as_deref()))
            .collect();
        let mut in_sets: Vec<Vec<Value>> = Vec::new();
        if let Some(inl) = &f.in_list {
            if inl.part >= f.keys.len() {
                return Err(err(2, "kpnum").into());
            }
            for v in &inl.values {
                let mut k = keys.clone();
                k[inl.part] = rowapi::convert_for_compare(&h, part_col(inl.part), v.as_deref());
                in_sets.push(k);
            }
        }
        let key_sets: &[Vec<Value>] = if f.in_list.is_some() {
            &in_sets
        } else {
            std::slice::from_ref(&keys)
        };
        let modifying = f.modify.is_some();
        let filters = self.prepare_filters(b, &f.filters)?;
        let limit = f.limit.min(ROWS_PER_REQUEST_MAX);
        let wanted = limit.saturating_add(f.offset.min(ROWS_PER_REQUEST_MAX));
        // Collect (pk, stored row) of the matched rows, in order (the pk only when
        // modifying: the answer of a read is written straight from the row bytes).
        let mut matched: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        let mut fvalues: Vec<Value> = Vec::new();
        let mut bad_row = false;
        let mut skip = f.offset;
        'keys: for key in key_sets {
            // NULL on a NOT NULL key part: nothing equals it and it sorts below every
            // value, so the key is cut there and the op adjusted (`=` finds nothing).
            let mut key: &[Value] = key;
            let mut op = f.op;
            if let Some(j) = key
                .iter()
                .enumerate()
                .position(|(i, v)| v.is_null() && !h.def.columns[part_col(i)].nullable)
            {
                op = match f.op {
                    Op::Eq => continue 'keys,
                    Op::Ge | Op::Gt => Op::Ge,
                    Op::Le | Op::Lt => Op::Lt,
                };
                key = &key[..j];
            }
            let mut kw = KeyWriter::new();
            for (i, v) in key.iter().enumerate() {
                rowapi::encode_key_part(&h, b.index, i, v, &mut kw);
            }
            let prefix = kw.finish();
            let full_unique = key.len() == ix.parts.len()
                && ix.is_unique()
                && ix.parts.iter().all(|p| p.prefix_chars.is_none())
                && !key.iter().any(Value::is_null);
            let mut stop = false;
            let mut sink = |pk: Vec<u8>, row: Vec<u8>| -> bool {
                if !filters.is_empty()
                    && h.shape
                        .decode_masked(&row, Some(&b.fmask), &mut fvalues)
                        .is_err()
                {
                    bad_row = true;
                    return false;
                }
                match check_filters(&h, &filters, &fvalues) {
                    FilterResult::Stop => {
                        stop = true;
                        return false;
                    }
                    FilterResult::Skip => return true,
                    FilterResult::Pass => {}
                }
                if skip > 0 {
                    skip -= 1;
                    return true;
                }
                matched.push((if modifying { pk } else { Vec::new() }, row));
                (matched.len() as u64) < limit
            };
            let trx = self.trx()?;
            if b.index == 0 && full_unique && op == Op::Eq {
                if let Some(row) = trx
                    .read(&h.storage.clustered, &prefix, ReadMode::Consistent)
                    .map_err(trx_error)?
                {
                    let pk = if modifying {
                        prefix.clone()
                    } else {
                        Vec::new()
                    };
                    sink(pk, row);
                }
            } else {
                scan(trx, &h, b.index, op, &prefix, wanted, &mut sink)?;
            }
            if bad_row {
                return Err(Fail::Sql(kiln_sql::dict::storage_error("damaged row")));
            }
            if stop || matched.len() as u64 >= limit {
                break 'keys;
            }
        }
        self.batch_rows_read += matched.len() as u64;
        match &f.modify {
            None => write_stored_rows(reply, &h, &b.cols, matched.iter().map(|(_, r)| r)),
            Some(m) => self.modify(b, &filters, m, matched, reply),
        }
    }

    fn prepare_filters(&self, b: &Resolved, filters: &[Filter<'_>]) -> Res<Vec<PreparedFilter>> {
        let h = &b.table;
        filters
            .iter()
            .map(|f| {
                let col = *b.fcols.get(f.column).ok_or(err(2, "filterfld"))?;
                if is_blob(&h.def.columns[col].ty) && f.value.is_some() {
                    return Err(err(2, "filterblob").into());
                }
                Ok(PreparedFilter {
                    stop: f.stop,
                    op: f.op,
                    col,
                    value: rowapi::convert_for_compare(h, col, f.value.as_deref()),
                })
            })
            .collect()
    }

    fn modify(
        &mut self,
        b: &Resolved,
        filters: &[PreparedFilter],
        m: &Modify<'_>,
        matched: Vec<(Vec<u8>, Vec<u8>)>,
        reply: &mut Reply<'_>,
    ) -> Res<()> {
        let h = b.table.clone();
        if m.values.len() > b.cols.len() {
            return Err(err(2, "modop").into());
        }
        let strict = rowapi::strict(&mut self.sess);
        // New values for U, converted once (strict conversion errors fail the request).
        let mut updates: Vec<(usize, Value)> = Vec::new();
        if m.op == ModOp::Update {
            for (&c, v) in b.cols.iter().zip(&m.values) {
                updates.push((
                    c,
                    rowapi::convert(&mut self.sess, &h, c, v.as_deref(), strict)?,
                ));
            }
        }
        let deltas: Vec<(usize, Option<i64>)> = b
            .cols
            .iter()
            .zip(&m.values)
            .map(|(&c, v)| (c, v.as_deref().map(parse_i64_prefix)))
            .collect();
        self.trx()?;
        let mut trx = self.trx.take().expect("begun above");
        let sp = trx.savepoint();
        let r = self.modify_rows(&mut trx, &h, filters, m, &updates, &deltas, matched, strict);
        if r.is_err() && !trx.is_done() {
            trx.rollback_to(sp).map_err(trx_error)?;
        }
        self.trx = Some(trx);
        let (count, before) = r?;
        if m.returning {
            write_rows(reply, &h, &b.cols, before.iter());
        } else {
            reply.ok_count(count);
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn modify_rows(
        &mut self,
        trx: &mut Trx,
        h: &TableHandle,
        filters: &[PreparedFilter],
        m: &Modify<'_>,
        updates: &[(usize, Value)],
        deltas: &[(usize, Option<i64>)],
        matched: Vec<(Vec<u8>, Vec<u8>)>,
        strict: bool,
    ) -> Res<(u64, Vec<Vec<Value>>)> {
        let mut count = 0u64;
        let mut before = Vec::new();
        for (pk, _) in matched {
            // Lock the row and judge it as it is now.
            let Some(bytes) = trx
                .read(&h.storage.clustered, &pk, ReadMode::Update(trx.wait()))
                .map_err(trx_error)?
            else {
                continue;
            };
            let row = decode(h, &bytes, None)?;
            if !matches!(check_filters(h, filters, &row), FilterResult::Pass) {
                continue;
            }
            match m.op {
                ModOp::Delete => {
                    if rowapi::delete_row(trx, h, &pk)? {
                        count += 1;
                        self.stats.rows_deleted.add(1);
                    }
                }
                ModOp::Update => {
                    let mut new = row.clone();
                    for (c, v) in updates {
                        new[*c] = v.clone();
                    }
                    rowapi::update_row(trx, h, &pk, &new)?;
                    count += 1;
                    self.stats.rows_updated.add(1);
                }
                ModOp::Increment | ModOp::Decrement => {
                    let mut new = row.clone();
                    let mut crossed = false;
                    for &(c, delta) in deltas {
                        let Some(d) = delta else { continue };
                        if row[c].is_null() {
                            continue;
                        }
                        let cur = row[c].to_i64().unwrap_or(0);
                        let next = if m.op == ModOp::Increment {
                            cur.saturating_add(d)
                        } else {
                            let n = cur.saturating_sub(d);
                            if (cur > 0 && n < 0) || (cur < 0 && n > 0) {
                                crossed = true;
                                break;
                            }
                            n
                        };
                        let text = next.to_string();
                        new[c] =
                            rowapi::convert(&mut self.sess, h, c, Some(text.as_bytes()), strict)?;
                    }
                    if crossed {
                        // The original's rule: a `-` that would change a column's sign
                        // leaves the whole row alone (and uncounted).
                        if m.returning {
                            before.push(row);
                        }
                        continue;
                    }
                    rowapi::update_row(trx, h, &pk, &new)?;
                    count += 1;
                    self.stats.rows_updated.add(1);
                }
            }
            if m.returning {
                before.push(row);
            }
        }
        Ok((count, before))
    }
}

struct PreparedFilter {
    stop: bool,
    op: FilterOp,
    col: usize,
    value: Value,
}

enum FilterResult {
    Pass,
    Skip,
    Stop,
}

fn check_filters(h: &TableHandle, filters: &[PreparedFilter], row: &[Value]) -> FilterResult {
    use std::cmp::Ordering as O;
    for f in filters {
        let c = rowapi::compare_column(h, f.col, &row[f.col], &f.value);
        let ok = match f.op {
            FilterOp::Eq => c == O::Equal,
            FilterOp::Ne => c != O::Equal,
            FilterOp::Lt => c == O::Less,
            FilterOp::Le => c != O::Greater,
            FilterOp::Gt => c == O::Greater,
            FilterOp::Ge => c != O::Less,
        };
        if !ok {
            return if f.stop {
                FilterResult::Stop
            } else {
                FilterResult::Skip
            };
        }
    }
    FilterResult::Pass
}

fn is_blob(ty: &SqlType) -> bool {
    matches!(ty, SqlType::Text { .. } | SqlType::Blob(_) | SqlType::Json)
}

/// The leading integer of a token (as atoll: optional sign, digits; else 0).
fn parse_i64_prefix(b: &[u8]) -> i64 {
    let s = b.iter().skip_while(|c| c.is_ascii_whitespace());
    let mut neg = false;
    let mut n: i64 = 0;
    for (i, &c) in s.enumerate() {
        if i == 0 && (c == b'-' || c == b'+') {
            neg = c == b'-';
            continue;
        }
        if !c.is_ascii_digit() {
            break;
        }
        n = n.saturating_mul(10).saturating_add(i64::from(c - b'0'));
    }
    if neg { -n } else { n }
}

/// Decodes a stored row; with `needed`, only the columns it marks (the rest NULL).
fn decode(h: &TableHandle, row: &[u8], needed: Option<&[bool]>) -> Res<Vec<Value>> {
    let mut v = Vec::with_capacity(h.def.columns.len());
    h.shape.decode_masked(row, needed, &mut v)?;
    Ok(v)
}

/// Reads rows of index `index` from the key `prefix` in the direction `op` gives,
/// handing (primary key, row) to `sink` until it returns false. `wanted` is how many
/// rows the caller may need before filters (a secondary scan reads in growing chunks).
#[allow(clippy::too_many_arguments)]
fn scan(
    trx: &mut Trx,
    h: &TableHandle,
    index: usize,
    op: Op,
    prefix: &[u8],
    wanted: u64,
    sink: &mut dyn FnMut(Vec<u8>, Vec<u8>) -> bool,
) -> Res<()> {
    let succ = prefix_successor(prefix);
    let excl_succ = || match &succ {
        Some(s) => Bound::Excluded(s.clone()),
        None => Bound::Unbounded,
    };
    let (lo, hi, descending): (Bound<Vec<u8>>, Bound<Vec<u8>>, bool) = match op {
        Op::Eq => (Bound::Included(prefix.to_vec()), excl_succ(), false),
        Op::Ge => (Bound::Included(prefix.to_vec()), Bound::Unbounded, false),
        Op::Gt => match &succ {
            Some(s) => (Bound::Included(s.clone()), Bound::Unbounded, false),
            None => return Ok(()),
        },
        Op::Le => (Bound::Unbounded, excl_succ(), true),
        Op::Lt => (Bound::Unbounded, Bound::Excluded(prefix.to_vec()), true),
    };
    if index == 0 {
        let it = trx.scan(&h.storage.clustered, as_ref(&lo), as_ref(&hi), descending);
        for r in it {
            let (k, row) = r.map_err(trx_error)?;
            if !sink(k, row) {
                break;
            }
        }
        return Ok(());
    }
    let pos = h.sec_pos[index].ok_or(err(2, "idxnum"))?;
    // Secondary reads return vectors: read a chunk, and a larger one from the start if
    // the filters dropped too many.
    let mut chunk = wanted.clamp(1, ROWS_PER_REQUEST_MAX) as usize;
    let mut delivered = 0usize;
    loop {
        let rows = trx
            .table_scan_secondary(&h.storage, pos, as_ref(&lo), as_ref(&hi), descending, chunk)
            .map_err(trx_error)?;
        let n = rows.len();
        for (pk, row) in rows.into_iter().skip(delivered) {
            delivered += 1;
            if !sink(pk, row) {
                return Ok(());
            }
        }
        if n < chunk || chunk >= ROWS_PER_REQUEST_MAX as usize * 4 {
            return Ok(());
        }
        chunk = chunk.saturating_mul(4);
    }
}

/// `0 TAB ncols` and the opened columns of each stored row, written straight from
/// the row's bytes (no values built: the hot path of a lookup).
fn write_stored_rows<'r>(
    reply: &mut Reply<'_>,
    h: &TableHandle,
    cols: &[usize],
    rows: impl Iterator<Item = &'r Vec<u8>>,
) -> Res<()> {
    use kiln_sql::rowfmt::{Cell, decode_cells};
    reply.rows_header(cols.len());
    let mut cells = Vec::with_capacity(h.def.columns.len());
    let mut buf = Vec::new();
    for row in rows {
        decode_cells(&h.shape.stored, row, &mut cells)
            .map_err(|e| Fail::Sql(kiln_sql::dict::storage_error(e.0)))?;
        for &c in cols {
            let ty = &h.def.columns[c].ty;
            buf.clear();
            match cells[c] {
                Cell::Null => {
                    reply.cell(None);
                    continue;
                }
                Cell::Bytes(b) => {
                    reply.cell(Some(b));
                    continue;
                }
                // As text_of writes them, without the detour through a buffer.
                Cell::Int(i) => {
                    reply.cell_i64(i);
                    continue;
                }
                Cell::UInt(u) => {
                    reply.cell_u64(u);
                    continue;
                }
                Cell::Double(d) => text_of(ty, &Value::Double(d), &mut buf),
                Cell::Missing => match &h.shape.missing[c] {
                    Value::Null => {
                        reply.cell(None);
                        continue;
                    }
                    v => text_of(ty, v, &mut buf),
                },
            }
            reply.cell(Some(&buf));
        }
    }
    reply.end();
    Ok(())
}

/// `0 TAB ncols` and the opened columns of each row of values.
fn write_rows<'r>(
    reply: &mut Reply<'_>,
    h: &TableHandle,
    cols: &[usize],
    rows: impl Iterator<Item = &'r Vec<Value>>,
) {
    reply.rows_header(cols.len());
    let mut buf = Vec::new();
    for row in rows {
        for &c in cols {
            match &row[c] {
                Value::Null => reply.cell(None),
                Value::Str(s) => reply.cell(Some(s.as_bytes())),
                Value::Bytes(b) => reply.cell(Some(b)),
                v => {
                    buf.clear();
                    text_of(&h.def.columns[c].ty, v, &mut buf);
                    reply.cell(Some(&buf));
                }
            }
        }
    }
    reply.end();
}

/// A column value as text, as SELECT shows it.
fn text_of(ty: &SqlType, v: &Value, out: &mut Vec<u8>) {
    use std::io::Write;
    match (ty, v) {
        (_, Value::Int(i)) => {
            let _ = write!(out, "{i}");
        }
        (_, Value::UInt(u)) => {
            let _ = write!(out, "{u}");
        }
        (SqlType::Float { .. }, Value::Double(d)) => {
            out.extend_from_slice(kiln_sql::value::format_float(*d).as_bytes());
        }
        (_, Value::Double(d)) => {
            out.extend_from_slice(kiln_sql::value::format_double(*d).as_bytes());
        }
        (_, Value::Str(s)) => out.extend_from_slice(s.as_bytes()),
        (_, Value::Bytes(b)) => out.extend_from_slice(b),
        (_, v) => out.extend_from_slice(&v.to_text().unwrap_or_default()),
    }
}

fn as_ref(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Included(v) => Bound::Included(v.as_slice()),
        Bound::Excluded(v) => Bound::Excluded(v.as_slice()),
        Bound::Unbounded => Bound::Unbounded,
    }
}

/// The number a failed request reports: the storage-engine (handler) error number
/// for the conditions the original reported that way — duplicate key 121, lock wait
/// timeout 146, deadlock 149 — and MySQL's error number for the rest (conversion
/// errors in strict mode, which the original never raised).
fn handler_errno(e: &KilnError) -> u16 {
    match e.code {
        1062 => 121,
        1205 => 146,
        1213 => 149,
        n => n,
    }
}
