//! Writing rows of one table: the row writer INSERT / REPLACE / LOAD DATA share
//! (`RowInserter`; the INSERT statement itself is exec/insert.rs), UPDATE and DELETE;
//! INSERT / REPLACE / INSERT ... ON DUPLICATE KEY UPDATE, UPDATE and DELETE on one
//! table. Every statement runs between a savepoint and either its end or a rollback
//! to the savepoint (a failed statement leaves no partial effects). Affected-row
//! counts and info strings follow MySQL: INSERT multi-row "Records: N  Duplicates: D
//! Warnings: W"; UPDATE "Rows matched: M  Changed: C  Warnings: W"; an ON DUPLICATE KEY
//! UPDATE that changes a row counts 2, one that leaves it unchanged 0 (1 with
//! CLIENT_FOUND_ROWS); REPLACE counts the deleted rows too.

use std::ops::Bound;
use std::sync::Arc;

use kiln_common::{ErrorKind, KilnError, Result};
use kiln_storage::trx::table::PREFETCH_ROWS;
use kiln_storage::trx::{Mode, ReadMode, Trx, TrxError};

use super::RowEnv;
use super::access::{Lock, Trace, trx_error};
use super::bind::conjuncts;
use super::bind::{Scope, bind};
use super::prepared_plan::Recorder;
use super::select::{resolve_table_for_write, run_subqueries};
use crate::ast::TriggerTiming as Tm;
use crate::ast::*;
use crate::dict::{ColumnDefault, IndexKindDef, TableHandle};
use crate::eval::{Env, Level, compare, eval};
use crate::result::Outcome;
use crate::rowfmt;
use crate::session::Session;
use crate::types::{StoreMode, store};
use crate::value::Value;

pub(crate) use super::insert::before_insert;
pub use super::insert::insert;

pub(crate) fn scope_of(h: &TableHandle, alias: &str) -> Scope {
    Scope {
        columns: super::select::table_scope(h, alias),
    }
}

/// The implicit default of a NOT NULL column without DEFAULT (non-strict mode).
pub(crate) fn implicit_default(h: &TableHandle, col: usize) -> Value {
    use crate::types::SqlType as T;
    match &h.def.columns[col].ty {
        T::Int { .. } | T::Year => Value::Int(0),
        T::Float { .. } | T::Double { .. } => Value::Double(0.0),
        T::Decimal { .. } => Value::Decimal("0".into()),
        T::Date => Value::Str("0000-00-00".into()),
        T::DateTime(_) | T::Timestamp(_) => Value::Str("0000-00-00 00:00:00".into()),
        T::Time(_) => Value::Str("00:00:00".into()),
        T::Enum { members, .. } => Value::Str(members.first().cloned().unwrap_or_default()),
        T::Binary(_) | T::VarBinary(_) | T::Blob(_) | T::Bit(_) => Value::Bytes(Vec::new()),
        _ => Value::Str(String::new()),
    }
}

/// The DEFAULT of a column: its default value, NULL, or (none) error 1364 / warning.
pub(crate) fn default_of(
    sess: &mut Session,
    h: &TableHandle,
    col: usize,
    strict: bool,
) -> Result<Value> {
    let c = &h.def.columns[col];
    match &c.default {
        Some(ColumnDefault::Value(v)) => Ok(v.clone()),
        Some(ColumnDefault::CurrentTimestamp) => Ok(sess.now_value(&c.ty)),
        Some(ColumnDefault::Expr(text)) => {
            let parsed = crate::parse::parse_one(
                &format!("SELECT {text}"),
                crate::lexer::LexMode::default(),
            )?;
            match parsed.stmt {
                Stmt::Select(s) if s.items.len() == 1 => eval(&s.items[0].expr, sess),
                _ => Ok(Value::Null),
            }
        }
        None if c.nullable || c.auto_increment => Ok(Value::Null),
        None => {
            if strict {
                return Err(KilnError::new(
                    ErrorKind::ER_NO_DEFAULT_FOR_FIELD,
                    &[&c.name],
                ));
            }
            let e = KilnError::new(ErrorKind::ER_NO_DEFAULT_FOR_FIELD, &[&c.name]);
            sess.warn(Level::Warning, e.code, e.message);
            Ok(implicit_default(h, col))
        }
    }
}

/// Replaces `DEFAULT(col)` calls with the column's default value.
pub(crate) fn default_functions(sess: &mut Session, h: &TableHandle, e: &Expr) -> Result<Expr> {
    let strict = sess.strict_mode();
    super::bind::rewrite(e, &mut |x| match x {
        Expr::Func { name, args } if name == "default" => match args.as_slice() {
            [Expr::Column { name, .. }] => {
                let col = h.def.column_index(name).ok_or_else(|| {
                    KilnError::new(ErrorKind::ER_BAD_FIELD_ERROR, &[&name, &"field list"])
                })?;
                Ok(Some(Expr::Literal(default_of(sess, h, col, strict)?)))
            }
            _ => Err(KilnError::new(
                ErrorKind::ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT,
                &[&"DEFAULT"],
            )),
        },
        _ => Ok(None),
    })
}

/// The right side of `SET col = expr` (UPDATE, LOAD DATA) bound to the table's row:
/// subqueries run, DEFAULT(col) replaced; None stays None (`= DEFAULT`).
pub(crate) fn bind_assignment(
    sess: &mut Session,
    h: &TableHandle,
    scope: &Scope,
    e: Option<&Expr>,
) -> Result<Option<Expr>> {
    let Some(e) = e else { return Ok(None) };
    let e = run_subqueries(sess, e)?;
    let e = default_functions(sess, h, &e)?;
    Ok(Some(bind(&e, scope, "field list")?))
}

/// The value `SET col = e` gives column `c` of `row` (`= DEFAULT` when `e` is None).
pub(crate) fn eval_assignment(
    sess: &mut Session,
    h: &TableHandle,
    row: &[Value],
    c: usize,
    e: Option<&Expr>,
    strict: bool,
) -> Result<Value> {
    match e {
        Some(e) => eval(
            e,
            &mut RowEnv {
                inner: &mut *sess,
                row,
                scope: None,
            },
        ),
        None => default_of(sess, h, c, strict),
    }
}

/// Converts a full row of values to the columns' types and checks NOT NULL.
/// `null_is_error`: NULL into a NOT NULL column is error 1048 (strict mode, and a
/// single-row INSERT in any mode); otherwise it is warning 1048 and the column's
/// implicit default, as MySQL does for multi-row INSERTs and UPDATEs.
pub(crate) fn convert_row(
    sess: &mut Session,
    h: &TableHandle,
    row: &mut [Value],
    strict: bool,
    null_is_error: bool,
    row_no: u64,
) -> Result<()> {
    for (i, c) in h.def.columns.iter().enumerate() {
        if row[i].is_null() {
            if !c.nullable {
                let e = KilnError::new(ErrorKind::ER_BAD_NULL_ERROR, &[&c.name]);
                if strict || null_is_error {
                    return Err(e);
                }
                sess.warn(Level::Warning, e.code, e.message);
                row[i] = implicit_default(h, i);
            }
            continue;
        }
        row[i] = store_column(sess, h, i, &row[i], strict, row_no)?;
    }
    Ok(())
}

/// `v` stored into column `c` (`types::store`), its warnings and notes recorded.
pub(crate) fn store_column(
    sess: &mut Session,
    h: &TableHandle,
    c: usize,
    v: &Value,
    strict: bool,
    row_no: u64,
) -> Result<Value> {
    let col = &h.def.columns[c];
    let mut warnings = Vec::new();
    let stored = store(
        &col.ty,
        &col.name,
        v,
        StoreMode {
            strict,
            row: row_no,
        },
        &mut warnings,
    )?;
    for w in warnings {
        let level = if w.note { Level::Note } else { Level::Warning };
        sess.warn(level, w.code, w.message);
    }
    Ok(stored)
}

/// The stored value of AUTO_INCREMENT column `ac` of a converted row; the counter is
/// raised past it. Returns (value, next value to persist, or 0 when unchanged).
pub(crate) fn settle_auto_value(h: &TableHandle, row: &[Value], ac: usize) -> (u64, u64) {
    let v = match &row[ac] {
        Value::UInt(u) => *u,
        other => other.to_i64().unwrap_or(0).max(0) as u64,
    };
    if v >= h.auto_inc_peek() {
        h.auto_inc_at_least(v.saturating_add(1));
        return (v, v.saturating_add(1));
    }
    (v, 0)
}

pub(crate) fn encode(h: &TableHandle, row: &[Value]) -> Vec<u8> {
    let mut b = Vec::with_capacity(64);
    rowfmt::encode_row(&h.shape.stored, row, &mut b);
    b
}

pub(crate) fn primary_key(h: &TableHandle, row: &[Value]) -> Vec<u8> {
    match h.def.indexes[0].kind {
        IndexKindDef::RowId => h.next_row_id().expect("row-id table").to_vec(),
        _ => rowfmt::index_key(&h.def.columns, &h.shape.colls, &h.def.indexes[0], row),
    }
}

/// A conflicting row: (index position, its primary key, its values).
type Conflict = (usize, Vec<u8>, Vec<Value>);

/// The unique index a row conflicts with, and the conflicting row (locked X).
pub(crate) fn find_conflict(
    trx: &mut Trx,
    h: &TableHandle,
    row: &[Value],
    pk: &[u8],
) -> Result<Option<Conflict>> {
    find_conflict_except(trx, h, row, pk, None)
}

/// `find_conflict`, where the row `own` (the row an UPDATE changes) is no conflict.
fn find_conflict_except(
    trx: &mut Trx,
    h: &TableHandle,
    row: &[Value],
    pk: &[u8],
    own: Option<&[u8]>,
) -> Result<Option<Conflict>> {
    if h.def.indexes[0].kind == IndexKindDef::Primary
        && own != Some(pk)
        && let Some(existing) = trx
            .read(&h.storage.clustered, pk, ReadMode::Update(trx.wait()))
            .map_err(trx_error)?
    {
        return Ok(Some((0, pk.to_vec(), h.shape.decode(&existing))));
    }
    for (i, ix) in h.def.indexes.iter().enumerate().skip(1) {
        let Some(pos) = h.sec_pos[i] else { continue };
        if ix.kind != IndexKindDef::Unique || ix.parts.iter().any(|p| row[p.column].is_null()) {
            continue;
        }
        let key = rowfmt::index_key(&h.def.columns, &h.shape.colls, ix, row);
        let found = trx
            .table_lookup_locking(
                &h.storage,
                pos,
                Bound::Included(&key),
                Bound::Included(&key),
                Mode::X,
                trx.wait(),
            )
            .map_err(trx_error)?;
        if let Some((opk, orow)) = found
            .into_iter()
            .find(|(opk, _)| opk != pk && Some(opk.as_slice()) != own)
        {
            return Ok(Some((i, opk, h.shape.decode(&orow))));
        }
    }
    Ok(None)
}

/// The 1062 for a row whose insert failed as a duplicate: names the index it clashes
/// with (ALTER TABLE's copy).
pub(crate) fn duplicate_error_for(
    trx: &mut Trx,
    h: &TableHandle,
    row: &[Value],
    pk: &[u8],
) -> KilnError {
    let index = match find_conflict(trx, h, row, pk) {
        Ok(Some((i, _, _))) => i,
        _ => 0,
    };
    duplicate_error(h, index, row)
}

/// MySQL's 1062 for a row that duplicates index `index`.
pub(crate) fn duplicate_error(h: &TableHandle, index: usize, row: &[Value]) -> KilnError {
    let ix = &h.def.indexes[index];
    let val: Vec<String> = ix
        .parts
        .iter()
        .map(|p| {
            let s = row[p.column]
                .to_string_lossy()
                .unwrap_or_else(|| "NULL".into());
            match p.prefix_chars {
                Some(n) => s.chars().take(n as usize).collect(),
                None => s,
            }
        })
        .collect();
    KilnError::new(
        ErrorKind::ER_DUP_ENTRY,
        &[&val.join("-"), &format!("{}.{}", h.def.name, ix.name)],
    )
}

/// What a row with a duplicate key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OnDup {
    /// Error 1062 (the statement fails).
    Error,
    /// Skip the row with warning 1062 (INSERT IGNORE, LOAD DATA IGNORE / LOCAL).
    Ignore,
    /// Delete the conflicting rows, then insert (REPLACE).
    Replace,
    /// Hand the conflicting row back (ON DUPLICATE KEY UPDATE).
    Update,
}

/// What writing one row did.
pub(crate) enum Wrote {
    Inserted,
    /// REPLACE: `deleted` conflicting rows went first.
    Replaced {
        deleted: u64,
    },
    /// A duplicate skipped (warning 1062 given).
    Ignored,
    /// `OnDup::Update`: the conflicting row (its primary key, its values).
    Conflict {
        opk: Vec<u8>,
        old: Vec<Value>,
    },
}

/// Inserts full rows one at a time — AUTO_INCREMENT values, conversion to the column
/// types, the insert and the duplicate-key rule — for INSERT / REPLACE and LOAD DATA.
/// `finish` persists the auto-increment counter and sets LAST_INSERT_ID().
pub(crate) struct RowInserter {
    h: Arc<TableHandle>,
    auto_col: Option<usize>,
    no_auto_on_zero: bool,
    strict: bool,
    on_dup: OnDup,
    /// The auto-increment counter to log once the rows are in (before the commit, so
    /// a committed row never has an id above the persisted counter).
    persist_next: u64,
    /// The first generated id (LAST_INSERT_ID()).
    first_auto: Option<u64>,
    /// The id the OK packet reports when none was generated: the last explicit value
    /// stored into the AUTO_INCREMENT column (mysql_insert_id()).
    explicit_id: Option<u64>,
}

impl RowInserter {
    pub(crate) fn new(sess: &Session, h: Arc<TableHandle>, strict: bool, on_dup: OnDup) -> Self {
        RowInserter {
            auto_col: h.auto_increment_column(),
            no_auto_on_zero: sess.sql_mode_has("NO_AUTO_VALUE_ON_ZERO"),
            h,
            strict,
            on_dup,
            persist_next: 0,
            first_auto: None,
            explicit_id: None,
        }
    }

    /// Writes `row` (one value per column, defaults filled in): generates its
    /// AUTO_INCREMENT value, converts it (`convert_row`), inserts it and applies the
    /// duplicate-key rule. `row` is left converted.
    pub(crate) fn write(
        &mut self,
        sess: &mut Session,
        trx: &mut Trx,
        row: &mut [Value],
        row_no: u64,
        null_is_error: bool,
    ) -> Result<Wrote> {
        let h = &*self.h;
        if let Some(ac) = self.auto_col {
            let v = &row[ac];
            let zero = !self.no_auto_on_zero && v.to_i64() == Some(0) && !v.is_null();
            if v.is_null() || zero {
                let id = h.auto_inc_take(1);
                self.persist_next = self.persist_next.max(id + 1);
                row[ac] = Value::UInt(id);
                self.first_auto.get_or_insert(id);
            }
        }
        convert_row(sess, h, row, self.strict, null_is_error, row_no)?;
        if let Some(ac) = self.auto_col {
            let (explicit, persist) = settle_auto_value(h, row, ac);
            self.persist_next = self.persist_next.max(persist);
            if self.first_auto.is_none() {
                self.explicit_id = Some(explicit);
            }
        }
        let pk = primary_key(h, row);
        let bytes = encode(h, row);
        let sp = trx.savepoint();
        match trx.table_insert(&h.storage, &pk, &bytes) {
            Ok(()) => {
                h.add_rows(1);
                return Ok(Wrote::Inserted);
            }
            Err(TrxError::DuplicateKey) => {}
            Err(e) => return Err(trx_error(e)),
        }
        trx.rollback_to(sp).map_err(trx_error)?;
        let Some((index, opk, old)) = find_conflict(trx, h, row, &pk)? else {
            return Err(KilnError::new(ErrorKind::ER_DUP_ENTRY, &[&"", &"PRIMARY"]));
        };
        match self.on_dup {
            OnDup::Error => Err(duplicate_error(h, index, row)),
            OnDup::Ignore => {
                let e = duplicate_error(h, index, row);
                sess.warn(Level::Warning, e.code, e.message);
                Ok(Wrote::Ignored)
            }
            OnDup::Update => Ok(Wrote::Conflict { opk, old }),
            OnDup::Replace => {
                // MySQL updates the row in place when the clash is on the last unique
                // key; a row that stays the same then counts as neither deleted nor
                // changed.
                let last_unique = h.def.indexes[index + 1..]
                    .iter()
                    .all(|ix| !matches!(ix.kind, IndexKindDef::Unique | IndexKindDef::Primary));
                if last_unique
                    && old.len() == row.len()
                    && old.iter().zip(row.iter()).all(|(a, b)| same_value(a, b))
                {
                    return Ok(Wrote::Replaced { deleted: 0 });
                }
                // Delete the conflicting rows, then insert (more than one may conflict:
                // repeat).
                let mut deleted = 0u64;
                let mut conflict = Some(opk);
                while let Some(opk) = conflict {
                    trx.table_delete(&h.storage, &opk).map_err(trx_error)?;
                    deleted += 1;
                    if deleted > h.def.indexes.len() as u64 + 1 {
                        return Err(duplicate_error(h, index, row));
                    }
                    match trx.table_insert(&h.storage, &pk, &bytes) {
                        Ok(()) => conflict = None,
                        Err(TrxError::DuplicateKey) => {
                            conflict = find_conflict(trx, h, row, &pk)?.map(|(_, opk, _)| opk);
                            if conflict.is_none() {
                                return Err(duplicate_error(h, index, row));
                            }
                        }
                        Err(e) => return Err(trx_error(e)),
                    }
                }
                Ok(Wrote::Replaced { deleted })
            }
        }
    }

    /// After the last row: persists the auto-increment counter, sets LAST_INSERT_ID()
    /// when ids were generated, and returns the id the OK packet reports.
    pub(crate) fn finish(&mut self, sess: &mut Session) -> Result<u64> {
        if self.persist_next > 0 {
            sess.persist_auto_inc(&self.h, self.persist_next)?;
            self.persist_next = 0;
        }
        if let Some(id) = self.first_auto {
            sess.set_last_insert_id(id);
        }
        Ok(self.first_auto.or(self.explicit_id).unwrap_or(0))
    }
}

pub(crate) fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Bytes(x), Value::Bytes(y)) => x == y,
        _ => compare(a, b) == Some(std::cmp::Ordering::Equal) && a.is_null() == b.is_null(),
    }
}

/// Writes `newrow` over the row `pk` (moving it if its primary key changes).
pub(crate) fn apply_update(
    trx: &mut Trx,
    h: &TableHandle,
    pk: &[u8],
    newrow: &[Value],
) -> Result<()> {
    let bytes = encode(h, newrow);
    let newpk = match h.def.indexes[0].kind {
        IndexKindDef::RowId => pk.to_vec(),
        _ => rowfmt::index_key(&h.def.columns, &h.shape.colls, &h.def.indexes[0], newrow),
    };
    let res = if newpk == pk {
        trx.table_update(&h.storage, pk, &bytes).map(|_| ())
    } else {
        trx.table_delete(&h.storage, pk)
            .and_then(|_| trx.table_insert(&h.storage, &newpk, &bytes))
    };
    match res {
        Ok(()) => Ok(()),
        Err(TrxError::DuplicateKey) => {
            let index = match find_conflict_except(trx, h, newrow, &newpk, Some(pk))? {
                Some((i, _, _)) => i,
                None => 0,
            };
            Err(duplicate_error(h, index, newrow))
        }
        Err(e) => Err(trx_error(e)),
    }
}

/// The bound row selection of a single-table UPDATE / DELETE, as a prepared
/// statement's plan keeps it (prepared_plan.rs): WHERE and ORDER BY bound to the
/// table, and the shape of the access path (None: planned at each execution).
#[derive(Clone)]
pub(crate) struct Selection {
    pub filter: Option<Expr>,
    pub order: Vec<(Expr, bool)>,
    pub shape: Option<crate::exec::access_shape::AccessShape>,
    /// Without a shape: whether a later execution may trace one.
    pub retrace: bool,
}

/// Reads the rows a single-table UPDATE/DELETE changes: locked X, filtered, ordered,
/// limited. `pre`: the selection bound at an earlier execution (`filter` and
/// `order_by` are then not bound again); `rec`: where the bound selection (or, from
/// `pre` without a shape, a shape) is kept.
#[allow(clippy::too_many_arguments)]
fn target_rows(
    sess: &mut Session,
    h: &Arc<TableHandle>,
    scope: &Scope,
    filter: Option<&Expr>,
    order_by: &[OrderItem],
    limit: Option<&Expr>,
    pre: Option<&Selection>,
    mut rec: Option<&mut Recorder>,
) -> Result<Vec<(Vec<u8>, Vec<Value>)>> {
    let own;
    let bound = match pre {
        Some(p) => p.filter.as_ref(),
        None => {
            own = match filter {
                Some(f) => Some(bind(&run_subqueries(sess, f)?, scope, "where clause")?),
                None => None,
            };
            own.as_ref()
        }
    };
    let limit = match limit {
        Some(e) => Some(match eval(e, sess)? {
            Value::Int(i) if i >= 0 => i as usize,
            Value::UInt(u) => u.min(usize::MAX as u64) as usize,
            _ => return Err(KilnError::new(ErrorKind::ER_WRONG_ARGUMENTS, &[&"LIMIT"])),
        }),
        None => None,
    };
    let early = if order_by.is_empty() { limit } else { None };
    let lock = Lock::Exclusive(super::access::LockWait::Default);
    // The access path: the plan's shape for this execution's values, else planned
    // as `read_table` plans (traced when a shape is wanted).
    let replayed = match pre.and_then(|p| p.shape.as_ref()) {
        Some(shape) => shape.replay(h, sess)?,
        None => None,
    };
    let mut tr = match (&rec, pre) {
        (Some(_), None) => Trace::on(),
        (Some(_), Some(p)) if p.shape.is_none() && p.retrace => Trace::on(),
        _ => Trace::off(),
    };
    let plan = match replayed {
        Some((plan, _)) => plan,
        None => {
            if let (Some(rec), Some(_)) = (rec.as_deref_mut(), pre) {
                rec.replanned = true;
            }
            let conj: Vec<&Expr> = bound.map(conjuncts).unwrap_or_default();
            super::access::plan_among_traced(h, &conj, sess, None, &mut tr)?
        }
    };
    let retrace = tr.may_shape_later();
    let shape = tr.shape(&plan, None);
    let (keys, rows) =
        super::select::read_planned(sess, h, Some(scope), bound, lock, plan, false, early, None)?;
    let mut out: Vec<(Vec<u8>, Vec<Value>)> = keys.into_iter().zip(rows).collect();
    let own_order;
    let order: &[(Expr, bool)] = match pre {
        Some(p) => &p.order,
        None => {
            own_order = order_by
                .iter()
                .map(|o| Ok((bind(&o.expr, scope, "order clause")?, o.desc)))
                .collect::<Result<Vec<_>>>()?;
            &own_order
        }
    };
    if !order.is_empty() {
        let mut keyed = Vec::with_capacity(out.len());
        for (pk, row) in out {
            let mut re = RowEnv {
                inner: &mut *sess,
                row: &row,
                scope: None,
            };
            let mut k = Vec::with_capacity(order.len());
            for (e, _) in order {
                k.push(eval(e, &mut re)?);
            }
            keyed.push((k, pk, row));
        }
        let desc: Vec<bool> = order.iter().map(|(_, d)| *d).collect();
        let conn = crate::eval::Env::collation_connection(&*sess);
        let colls: Vec<crate::collate::Coll> = order
            .iter()
            .map(|(e, _)| crate::coercion::coll_of(e, scope, conn))
            .collect();
        keyed.sort_by(|a, b| super::select::cmp_keys(&a.0, &b.0, &desc, &colls));
        out = keyed.into_iter().map(|(_, pk, row)| (pk, row)).collect();
    }
    if let Some(l) = limit {
        out.truncate(l);
    }
    if let Some(rec) = rec {
        match pre {
            Some(_) => rec.shape = shape,
            None => {
                rec.selection = Some(Selection {
                    filter: bound.cloned(),
                    order: order.to_vec(),
                    shape,
                    retrace,
                })
            }
        }
    }
    Ok(out)
}

/// 1093: a subquery of an UPDATE/DELETE must not read the table being changed.
pub(crate) fn check_target_not_in_subqueries(
    sess: &Session,
    h: &TableHandle,
    exprs: &[Option<&Expr>],
) -> Result<()> {
    fn names(sel: &Select, out: &mut Vec<TableName>) {
        fn item(f: &FromItem, out: &mut Vec<TableName>) {
            match f {
                FromItem::Table { name, .. } => out.push(name.clone()),
                FromItem::Derived { select, .. } => names(select, out),
                FromItem::Join { left, right, .. } => {
                    item(left, out);
                    item(right, out);
                }
            }
        }
        for f in &sel.from {
            item(f, out);
        }
        if let Some((_, next)) = &sel.union {
            names(next, out);
        }
    }
    let mut tables = Vec::new();
    for e in exprs.iter().flatten() {
        super::bind::visit(e, &mut |x| match x {
            Expr::Subquery(s) | Expr::Exists(s) | Expr::InSubquery { select: s, .. } => {
                names(s, &mut tables)
            }
            Expr::Quantified(q) => names(&q.select, &mut tables),
            _ => {}
        });
    }
    for t in tables {
        let schema = t.schema.as_deref().or(sess.database.as_deref());
        if t.name == h.def.name && schema == Some(h.def.schema.as_str()) {
            return Err(KilnError::new(
                ErrorKind::ER_UPDATE_TABLE_USED,
                &[&h.def.name],
            ));
        }
    }
    Ok(())
}

fn single_table(from: &[FromItem]) -> Result<(&TableName, Option<&String>)> {
    match from {
        [FromItem::Table { name, alias }] => Ok((name, alias.as_ref())),
        _ => Err(KilnError::internal(
            "a single-table statement with several tables",
        )),
    }
}

pub fn update(sess: &mut Session, u: &Update) -> Result<Outcome> {
    if super::dml_multi::is_multi_update(u) {
        return super::dml_multi::update(sess, u);
    }
    update_single(sess, u, None, None)
}

/// What a prepared statement's plan keeps of a single-table UPDATE / DELETE
/// (prepared_plan.rs): the table, its scope, the bound assignments (UPDATE) and the
/// bound selection.
pub(crate) struct PlanParts<'a> {
    pub h: &'a Arc<TableHandle>,
    pub scope: &'a Scope,
    pub sets: &'a [(usize, Option<Expr>)],
    pub sel: &'a Selection,
}

/// Bound assignments: (column, value; None for DEFAULT).
type Sets = Vec<(usize, Option<Expr>)>;

/// Resolves a single-table UPDATE's table and binds its assignments.
fn bind_update(sess: &mut Session, u: &Update) -> Result<(Arc<TableHandle>, Scope, Sets)> {
    let (name, alias) = single_table(&u.tables)?;
    let h = resolve_table_for_write(sess, name)?;
    let alias = alias.cloned().unwrap_or_else(|| h.def.name.clone());
    let scope = scope_of(&h, &alias);
    let mut sets: Sets = Vec::with_capacity(u.sets.len());
    for (q, c, e) in &u.sets {
        if let Some(q) = q
            && *q != alias
            && *q != h.def.name
        {
            return Err(KilnError::new(
                ErrorKind::ER_BAD_FIELD_ERROR,
                &[&format!("{q}.{c}"), &"field list"],
            ));
        }
        let i = h
            .def
            .column_index(c)
            .ok_or_else(|| KilnError::new(ErrorKind::ER_BAD_FIELD_ERROR, &[&c, &"field list"]))?;
        sets.push((i, bind_assignment(sess, &h, &scope, e.as_ref())?));
    }
    let mut exprs: Vec<Option<&Expr>> = vec![u.filter.as_ref()];
    exprs.extend(u.sets.iter().map(|(_, _, e)| e.as_ref()));
    check_target_not_in_subqueries(sess, &h, &exprs)?;
    Ok((h, scope, sets))
}

/// A single-table UPDATE: bound here, or from `pre` (a prepared statement's plan);
/// `rec` keeps what the plan reuses.
pub(crate) fn update_single(
    sess: &mut Session,
    u: &Update,
    pre: Option<PlanParts<'_>>,
    mut rec: Option<&mut Recorder>,
) -> Result<Outcome> {
    let own;
    let (h, scope, sets) = match &pre {
        Some(p) => (p.h, p.scope, p.sets),
        None => {
            own = bind_update(sess, u)?;
            if let Some(rec) = rec.as_deref_mut() {
                rec.target = Some((own.0.clone(), own.1.clone()));
                rec.sets = Some(own.2.clone());
            }
            (&own.0, &own.1, own.2.as_slice())
        }
    };
    let strict = sess.strict_mode() && !u.ignore;
    let found_rows = sess.client_found_rows;
    let trig = super::trigger::of(sess, h)?.filter(|t| t.has(TriggerEvent::Update));
    sess.with_statement(|sess| {
        let rows = target_rows(
            sess,
            h,
            scope,
            u.filter.as_ref(),
            &u.order_by,
            u.limit.as_ref(),
            pre.as_ref().map(|p| p.sel),
            rec,
        )?;
        let (mut matched, mut changed) = (0u64, 0u64);
        for (n, (pk, old)) in rows.into_iter().enumerate() {
            matched += 1;
            let mut new = old.clone();
            let mut assigned = vec![false; new.len()];
            for (c, e) in sets {
                new[*c] = eval_assignment(sess, h, &new, *c, e.as_ref(), strict)?;
                assigned[*c] = true;
            }
            sess.check_division_by_zero(0, strict)?;
            convert_row(sess, h, &mut new, strict, false, n as u64 + 1)?;
            if let Some(t) = &trig {
                super::trigger::on_update(sess, Some(t), h, Tm::Before, &old, &mut new)?;
                convert_row(sess, h, &mut new, strict, false, n as u64 + 1)?;
            }
            if new.iter().zip(&old).all(|(a, b)| same_value(a, b)) {
                // MySQL fires AFTER UPDATE for every matched row, changed or not.
                super::trigger::on_update(sess, trig.as_deref(), h, Tm::After, &old, &mut new)?;
                continue;
            }
            for (i, c) in h.def.columns.iter().enumerate() {
                if c.on_update_now && !assigned[i] {
                    new[i] = sess.now_value(&c.ty);
                }
            }
            sess.with_trx(|_, trx| apply_update(trx, h, &pk, &new))?;
            changed += 1;
            super::trigger::on_update(sess, trig.as_deref(), h, Tm::After, &old, &mut new)?;
            if let Some(ac) = h.auto_increment_column()
                && let Some(v) = new[ac].to_i64()
                && v >= 0
                && v as u64 >= h.auto_inc_peek()
            {
                // MySQL 8: an UPDATE to a larger value moves the counter above it.
                h.auto_inc_at_least(v as u64 + 1);
                sess.persist_auto_inc(h, v as u64 + 1)?;
            }
        }
        sess.rows_changed(h, "updated", changed);
        Ok(update_outcome(sess, matched, changed, found_rows))
    })
}

/// An UPDATE's OK: affected rows are the changed ones (the matched ones with
/// CLIENT_FOUND_ROWS), info "Rows matched: M  Changed: C  Warnings: W".
pub(crate) fn update_outcome(
    sess: &Session,
    matched: u64,
    changed: u64,
    found_rows: bool,
) -> Outcome {
    Outcome::Ok {
        affected_rows: if found_rows { matched } else { changed },
        last_insert_id: 0,
        info: format!(
            "Rows matched: {matched}  Changed: {changed}  Warnings: {}",
            sess.warning_count()
        ),
    }
}

pub fn delete(sess: &mut Session, d: &Delete) -> Result<Outcome> {
    if d.multi {
        return super::dml_multi::delete(sess, d);
    }
    delete_single(sess, d, None, None)
}

/// A single-table DELETE: bound here, or from `pre` (a prepared statement's plan);
/// `rec` keeps what the plan reuses.
pub(crate) fn delete_single(
    sess: &mut Session,
    d: &Delete,
    pre: Option<PlanParts<'_>>,
    mut rec: Option<&mut Recorder>,
) -> Result<Outcome> {
    let own;
    let (h, scope) = match &pre {
        Some(p) => (p.h, p.scope),
        None => {
            let (name, alias) = single_table(&d.from)?;
            let h = resolve_table_for_write(sess, name)?;
            let alias = alias.cloned().unwrap_or_else(|| h.def.name.clone());
            let scope = scope_of(&h, &alias);
            check_target_not_in_subqueries(sess, &h, &[d.filter.as_ref()])?;
            if let Some(rec) = rec.as_deref_mut() {
                rec.target = Some((h.clone(), scope.clone()));
            }
            own = (h, scope);
            (&own.0, &own.1)
        }
    };
    let trig = super::trigger::of(sess, h)?.filter(|t| t.has(TriggerEvent::Delete));
    sess.with_statement(|sess| {
        let rows = target_rows(
            sess,
            h,
            scope,
            d.filter.as_ref(),
            &d.order_by,
            d.limit.as_ref(),
            pre.as_ref().map(|p| p.sel),
            rec,
        )?;
        let mut n = 0u64;
        let prefetch = rows.len() > 1 && !h.storage.secondaries.is_empty();
        for (i, (pk, old)) in rows.iter().enumerate() {
            if prefetch && i % PREFETCH_ROWS == 0 {
                let next: Vec<&[u8]> = rows[i..rows.len().min(i + PREFETCH_ROWS)]
                    .iter()
                    .map(|(pk, _)| pk.as_slice())
                    .collect();
                h.storage.prefetch_secondary_leaves(&next);
            }
            super::trigger::on_delete(sess, trig.as_deref(), h, Tm::Before, old)?;
            if sess.with_trx(|_, trx| trx.table_delete(&h.storage, pk).map_err(trx_error))? {
                n += 1;
                super::trigger::on_delete(sess, trig.as_deref(), h, Tm::After, old)?;
            }
        }
        h.add_rows(-(n as i64));
        sess.rows_changed(h, "deleted", n);
        Ok(Outcome::Ok {
            affected_rows: n,
            last_insert_id: 0,
            info: String::new(),
        })
    })
}
