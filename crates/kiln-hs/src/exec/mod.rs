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
//! rebuilding the table without them; a batch's first write enters the write gate of
//! FLUSH TABLES WITH READ LOCK (`rowapi::enter_write_gate`) until the batch ends, so
//! writes wait while a SQL session holds the global read lock. Both waits end after
//! min(lock_wait_timeout, handlersocket_timeout) with `1 1 146`, or at shutdown with
//! `1 1 1317`.
//!
//! Reads for a modification are locking: candidates are found with a consistent scan,
//! then each is X-locked and re-read at its latest version, and the filters are
//! checked again on it (a row changed meanwhile by another transaction is judged as
//! it is now).

use std::collections::HashMap;
use std::sync::Arc;

use kiln_common::KilnError;
use kiln_sql::dict::{IndexKindDef, TableHandle};
use kiln_sql::exec::access::trx_error;
use kiln_sql::rowapi;
use kiln_sql::session::Session;
use kiln_storage::trx::Trx;

use crate::codec::{Reply, Val};
use crate::request::{ProtoError, Request, err};
use crate::stats::HsStats;

mod find;
mod lookup;
mod modify;
mod output;
mod prefetch;

pub use prefetch::PREFETCH_MAX;

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
    /// Lock waits of writes end after this, when it is shorter than
    /// `lock_wait_timeout` (`handlersocket_timeout`; None: no cap).
    pub wait_cap: Option<std::time::Duration>,
}

pub struct Executor {
    sess: Session,
    config: ExecConfig,
    stats: Arc<HsStats>,
    version: u64,
    tables: HashMap<(String, String), Arc<TableHandle>>,
    trx: Option<Trx>,
    /// The batch entered the write gate of FLUSH TABLES WITH READ LOCK (its first
    /// write did; it leaves after the commit).
    gated: bool,
    /// Table ids locked by the current batch (for Hs_table_lock/unlock).
    locked: Vec<u64>,
    /// The batch's transaction was rolled back by the engine (deadlock): what the
    /// batch did before is gone and the caller must run it again.
    lost: bool,
    /// Requests and rows read in the current batch, added to the shared counters once
    /// at its end (before any of its responses is sent).
    batch_requests: u64,
    batch_rows_read: u64,
    /// The encoded keys of a batch's prefetch (memory kept between batches), the
    /// lines they belong to (this batch's only) and the next of those `execute` runs.
    prefetch_keys: Vec<u8>,
    lookups: Vec<lookup::Lookup>,
    lookup_next: usize,
    /// A row's cells while its answer is written (memory kept between requests).
    cells: Vec<kiln_sql::rowfmt::Cell<'static>>,
    /// A find's encoded key and matched rows (memory kept between requests).
    key_buf: Vec<u8>,
    matched: Vec<(Vec<u8>, Vec<u8>)>,
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
            gated: false,
            locked: Vec::new(),
            lost: false,
            batch_requests: 0,
            batch_rows_read: 0,
            prefetch_keys: Vec::new(),
            lookups: Vec::new(),
            lookup_next: 0,
            cells: Vec::new(),
            key_buf: Vec::new(),
            matched: Vec::new(),
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
        self.lookups.clear();
        let unlocked = self.locked.len() as u64;
        self.locked.clear();
        self.stats.table_unlock.add(unlocked);
        let r = match self.trx.take() {
            Some(t) if !t.is_done() => t.commit().map_err(trx_error),
            _ => Ok(()),
        };
        rowapi::release_locks(&mut self.sess);
        self.leave_gate();
        r
    }

    fn leave_gate(&mut self) {
        if self.gated {
            rowapi::exit_write_gate(&mut self.sess);
            self.gated = false;
        }
    }

    /// Abandons the batch (rolls its transaction back).
    pub fn abort_batch(&mut self) {
        self.flush_counts();
        self.lookups.clear();
        let unlocked = self.locked.len() as u64;
        self.locked.clear();
        self.stats.table_unlock.add(unlocked);
        if let Some(t) = self.trx.take()
            && !t.is_done()
        {
            let _ = t.rollback();
        }
        rowapi::release_locks(&mut self.sess);
        self.leave_gate();
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
        let mut reply = Reply::new(out);
        let mark = reply.mark();
        let r = match self.fast_lookup(conn, line, &mut reply) {
            Some(r) => r,
            None => self.parse_and_dispatch(conn, line, &mut reply),
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

    /// The general path of `execute`: any request.
    fn parse_and_dispatch(
        &mut self,
        conn: &mut ConnState,
        line: &[u8],
        reply: &mut Reply<'_>,
    ) -> Res<()> {
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
        match crate::request::parse(tokens) {
            Ok(req) => self.dispatch(conn, req, reply),
            Err(e) => Err(Fail::Proto(e)),
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

    /// The resolved binding of `index_id`, re-resolved after DDL. A write first
    /// enters the write gate (it waits while a SQL session holds FLUSH TABLES WITH
    /// READ LOCK), then takes a shared metadata lock on the table (it waits for a
    /// DDL or LOCK TABLES on it), both held until the batch ends, so no DDL changes
    /// the table under the batch's uncommitted writes and no global read lock is
    /// granted while they are uncommitted.
    fn binding(&mut self, conn: &mut ConnState, index_id: u64, write: bool) -> Res<Arc<Resolved>> {
        let b = usize::try_from(index_id)
            .ok()
            .and_then(|i| conn.bindings.get_mut(i))
            .and_then(|b| b.as_mut())
            .ok_or(err(2, "stmtnum"))?;
        if write && self.config.write {
            if !self.gated {
                rowapi::enter_write_gate(&mut self.sess, self.config.wait_cap)?;
                self.gated = true;
            }
            rowapi::lock_table(&mut self.sess, &b.db, &b.table, self.config.wait_cap)?;
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
