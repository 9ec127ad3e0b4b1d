//! Multi-table UPDATE and DELETE (`UPDATE t1 JOIN t2 ON … SET t1.a = …, t2.b = …`,
//! `DELETE t1, t2 FROM …`, `DELETE FROM t1, t2 USING …`).
//!
//! The FROM clause is joined with the SELECT executor's machinery (`join::join`),
//! each base table read by a locking read — X locks on the tables the statement
//! changes, S locks on the ones it only reads (InnoDB's locking for the tables an
//! UPDATE/DELETE reads) — with its primary key carried in a hidden slot after its
//! columns. WHERE filters the joined rows. Then, per joined row and target table, the
//! target row (if not NULL-extended by an outer join and not met before: MySQL
//! changes each matching row once, the first joined row that matches wins) gets its
//! new values computed from the joined row as read: unlike a single-table UPDATE, an
//! assignment does not see the ones before it (MySQL documents no order for
//! multi-table assignments; MariaDB, and MySQL for every table it does not update
//! during the join, evaluate them all over the row as read). Only after
//! the join are the changes applied: each target row is re-read under its X lock and
//! the assigned columns written over it (so a table updated under two aliases gets
//! both aliases' columns), through the single-table path's conversion
//! (`convert_row`) and write (`apply_update`, 1062). The whole statement runs in
//! `with_statement`: a failure leaves nothing changed.

use std::collections::HashSet;
use std::sync::Arc;

use kiln_common::{ErrorKind, KilnError, Result};
use kiln_storage::trx::ReadMode;

use super::RowEnv;
use super::access::{Lock, LockWait, trx_error};
use super::bind::{Scope, ScopeColumn, bind, contains_aggregate};
use super::dml::{
    apply_update, check_target_not_in_subqueries, convert_row, default_functions, default_of,
    same_value,
};
use super::join::join;
use super::select::{
    Relation, SourceTable, check_unique_aliases, info_schema_relation, is_info_schema, read_table,
    relation_of, resolve_table, run_subqueries, table_scope,
};
use crate::ast::TriggerTiming as Tm;
use crate::ast::*;
use crate::dict::TableHandle;
use crate::eval::eval;
use crate::result::Outcome;
use crate::session::Session;
use crate::value::Value;

/// The name of the hidden slot holding a base table's primary key (no identifier a
/// statement can write).
const PK_SLOT: &str = "\u{0}pk";

/// Whether an UPDATE names more than one table (a join or a list).
pub fn is_multi_update(u: &Update) -> bool {
    !matches!(u.tables.as_slice(), [FromItem::Table { .. }])
}

/// A table of the FROM clause, before reading: its alias and, for a base table, its
/// handle (None for derived and information_schema tables).
struct FromTable {
    alias: String,
    handle: Option<Arc<TableHandle>>,
}

fn from_tables(sess: &mut Session, from: &[FromItem]) -> Result<Vec<FromTable>> {
    fn walk(sess: &mut Session, f: &FromItem, out: &mut Vec<FromTable>) -> Result<()> {
        match f {
            FromItem::Table { name, alias } => {
                let handle = if is_info_schema(sess, name) {
                    None
                } else {
                    Some(resolve_table(sess, name)?)
                };
                out.push(FromTable {
                    alias: alias.clone().unwrap_or_else(|| name.name.clone()),
                    handle,
                });
            }
            FromItem::Derived { alias, .. } => out.push(FromTable {
                alias: alias.clone(),
                handle: None,
            }),
            FromItem::Join { left, right, .. } => {
                walk(sess, left, out)?;
                walk(sess, right, out)?;
            }
        }
        Ok(())
    }
    check_unique_aliases(from)?;
    let mut out = Vec::new();
    for f in from {
        walk(sess, f, &mut out)?;
    }
    Ok(out)
}

/// One FROM item read for a multi-table statement: base tables by a locking read (X
/// when in `targets`), each row followed by its primary key in a hidden slot.
fn relation(sess: &mut Session, item: &FromItem, targets: &[String]) -> Result<Relation> {
    match item {
        FromItem::Table { name, alias } if is_info_schema(sess, name) => {
            info_schema_relation(sess, name, alias)
        }
        FromItem::Table { name, alias } => {
            let shown = alias.as_ref().unwrap_or(&name.name);
            let h = if targets.iter().any(|t| t == shown) {
                super::select::resolve_table_for_write(sess, name)?
            } else {
                resolve_table(sess, name)?
            };
            let alias = alias.clone().unwrap_or_else(|| h.def.name.clone());
            let lock = if targets.contains(&alias) {
                Lock::Exclusive(LockWait::Default)
            } else {
                Lock::Shared(LockWait::Default)
            };
            let (keys, mut rows) = read_table(sess, &h, None, None, lock, false, None, None)?;
            for (r, k) in rows.iter_mut().zip(keys) {
                r.push(Value::Bytes(k));
            }
            let mut columns = table_scope(&h, &alias);
            columns.push(ScopeColumn {
                table: alias.clone(),
                name: PK_SLOT.into(),
                hidden: true,
                text: None,
                merged: false,
            });
            Ok(Relation {
                scope: Scope { columns },
                tables: vec![SourceTable {
                    handle: h,
                    alias,
                    offset: 0,
                }],
                rows,
                keys: Vec::new(),
            })
        }
        FromItem::Join {
            left,
            right,
            kind,
            on,
            using,
            natural,
        } => {
            let l = relation(sess, left, targets)?;
            let r = relation(sess, right, targets)?;
            join(sess, l, r, *kind, on.as_ref(), using, *natural)
        }
        FromItem::Derived { .. } => relation_of(sess, item, Lock::None),
    }
}

/// The joined, filtered rows of the FROM clause.
fn joined_rows(
    sess: &mut Session,
    from: &[FromItem],
    filter: Option<&Expr>,
    targets: &[String],
) -> Result<Relation> {
    let filter = match filter {
        Some(f) => Some(run_subqueries(sess, f)?),
        None => None,
    };
    let mut rel: Option<Relation> = None;
    for item in from {
        let next = relation(sess, item, targets)?;
        rel = Some(match rel {
            None => next,
            Some(left) => join(sess, left, next, JoinKind::Cross, None, &[], false)?,
        });
    }
    let mut rel = rel.expect("a FROM clause has an item");
    if let Some(f) = &filter {
        let b = bind(f, &rel.scope, "where clause")?;
        if contains_aggregate(&b) {
            return Err(ErrorKind::ER_INVALID_GROUP_FUNC_USE.into());
        }
        let mut kept = Vec::with_capacity(rel.rows.len());
        for r in std::mem::take(&mut rel.rows) {
            let mut re = RowEnv {
                inner: sess,
                row: &r,
                scope: Some(&rel.scope),
            };
            if eval(&b, &mut re)?.to_bool() == Some(true) {
                kept.push(r);
            }
        }
        rel.rows = kept;
    }
    Ok(rel)
}

/// A target row to update: (target, primary key, assigned (column, value)s).
type Change = (usize, Vec<u8>, Vec<(usize, Value)>);

/// A target table in the joined row: its handle and primary-key slot.
struct Target {
    handle: Arc<TableHandle>,
    pk_slot: usize,
}

fn target_in(rel: &Relation, alias: &str) -> Result<Target> {
    let t = rel
        .tables
        .iter()
        .find(|t| t.alias == alias)
        .ok_or_else(|| KilnError::internal(format!("table {alias} not in the join")))?;
    Ok(Target {
        handle: t.handle.clone(),
        pk_slot: t.offset + t.handle.def.columns.len(),
    })
}

/// The primary key of a target's row in a joined row (None: NULL-extended).
fn pk_of(row: &[Value], t: &Target) -> Option<Vec<u8>> {
    match &row[t.pk_slot] {
        Value::Bytes(b) => Some(b.clone()),
        _ => None,
    }
}

pub fn update(sess: &mut Session, u: &Update) -> Result<Outcome> {
    if !u.order_by.is_empty() {
        return Err(KilnError::new(
            ErrorKind::ER_WRONG_USAGE,
            &[&"UPDATE", &"ORDER BY"],
        ));
    }
    if u.limit.is_some() {
        return Err(KilnError::new(
            ErrorKind::ER_WRONG_USAGE,
            &[&"UPDATE", &"LIMIT"],
        ));
    }
    let tables = from_tables(sess, &u.tables)?;
    // Each assignment's table (index in `tables`) and column.
    let mut sets: Vec<(usize, usize, Option<&Expr>)> = Vec::with_capacity(u.sets.len());
    for (q, c, e) in &u.sets {
        let mut found = None;
        for (i, t) in tables.iter().enumerate() {
            if q.as_ref().is_some_and(|q| *q != t.alias) {
                continue;
            }
            let col = match &t.handle {
                Some(h) => h.def.column_index(c),
                None if q.is_some() => {
                    return Err(KilnError::new(
                        ErrorKind::ER_NON_UPDATABLE_TABLE,
                        &[&t.alias, &"UPDATE"],
                    ));
                }
                None => None,
            };
            if let Some(col) = col {
                if found.is_some() {
                    return Err(KilnError::new(
                        ErrorKind::ER_NON_UNIQ_ERROR,
                        &[&c, &"field list"],
                    ));
                }
                found = Some((i, col));
            }
        }
        let (i, col) = found.ok_or_else(|| {
            let full = match q {
                Some(q) => format!("{q}.{c}"),
                None => c.clone(),
            };
            KilnError::new(ErrorKind::ER_BAD_FIELD_ERROR, &[&full, &"field list"])
        })?;
        sets.push((i, col, e.as_ref()));
    }
    // The target tables, in FROM order.
    let mut target_ix: Vec<usize> = sets.iter().map(|s| s.0).collect();
    target_ix.sort_unstable();
    target_ix.dedup();
    let mut exprs: Vec<Option<&Expr>> = vec![u.filter.as_ref()];
    exprs.extend(u.sets.iter().map(|(_, _, e)| e.as_ref()));
    for &i in &target_ix {
        let h = tables[i].handle.as_ref().expect("a target is a base table");
        check_target_not_in_subqueries(sess, h, &exprs)?;
    }
    let aliases: Vec<String> = target_ix.iter().map(|&i| tables[i].alias.clone()).collect();
    let strict = sess.strict_mode() && !u.ignore;
    let found_rows = sess.client_found_rows;
    sess.with_statement(|sess| {
        let rel = joined_rows(sess, &u.tables, u.filter.as_ref(), &aliases)?;
        // Per target: its place in the row and its assignments, bound to the join.
        let mut targets = Vec::with_capacity(target_ix.len());
        for (k, &i) in target_ix.iter().enumerate() {
            let t = target_in(&rel, &aliases[k])?;
            let mut assigns: Vec<(usize, Option<Expr>)> = Vec::new();
            for &(ti, col, e) in &sets {
                if ti != i {
                    continue;
                }
                let e = match e {
                    Some(e) => {
                        let e = run_subqueries(sess, e)?;
                        let e = default_functions(sess, &t.handle, &e)?;
                        Some(bind(&e, &rel.scope, "field list")?)
                    }
                    None => None,
                };
                assigns.push((col, e));
            }
            targets.push((t, assigns));
        }
        // Compute the new values of every matched target row, once per row.
        let mut seen: HashSet<(usize, Vec<u8>)> = HashSet::new();
        let mut changes: Vec<Change> = Vec::new();
        for row in &rel.rows {
            for (k, (t, assigns)) in targets.iter().enumerate() {
                let Some(pk) = pk_of(row, t) else { continue };
                if !seen.insert((k, pk.clone())) {
                    continue;
                }
                let mut vals = Vec::with_capacity(assigns.len());
                for (c, e) in assigns {
                    let v = match e {
                        Some(e) => {
                            let mut re = RowEnv {
                                inner: &mut *sess,
                                row,
                                scope: Some(&rel.scope),
                            };
                            eval(e, &mut re)?
                        }
                        None => default_of(sess, &t.handle, *c, strict)?,
                    };
                    vals.push((*c, v));
                }
                changes.push((k, pk, vals));
            }
        }
        sess.check_division_by_zero(0, strict)?;
        let matched = changes.len() as u64;
        let mut changed_per = vec![0u64; targets.len()];
        let mut trigs = Vec::with_capacity(targets.len());
        for (t, _) in &targets {
            trigs
                .push(super::trigger::of(sess, &t.handle)?.filter(|x| x.has(TriggerEvent::Update)));
        }
        for (n, (k, pk, vals)) in changes.into_iter().enumerate() {
            let h = &targets[k].0.handle;
            let trig = &trigs[k];
            let old = sess.with_trx(|_, trx| {
                trx.read(&h.storage.clustered, &pk, ReadMode::Update(trx.wait()))
                    .map_err(trx_error)
            })?;
            // Gone: its key was changed under another alias of the same table.
            let Some(old) = old else { continue };
            let old = h.shape.decode(&old);
            let mut new = old.clone();
            let mut assigned = vec![false; new.len()];
            for (c, v) in vals {
                new[c] = v;
                assigned[c] = true;
            }
            convert_row(sess, h, &mut new, strict, false, n as u64 + 1)?;
            if let Some(t) = trig {
                super::trigger::on_update(sess, Some(t), h, Tm::Before, &old, &mut new)?;
                convert_row(sess, h, &mut new, strict, false, n as u64 + 1)?;
            }
            if new.iter().zip(&old).all(|(a, b)| same_value(a, b)) {
                super::trigger::on_update(sess, trig.as_deref(), h, Tm::After, &old, &mut new)?;
                continue;
            }
            for (i, c) in h.def.columns.iter().enumerate() {
                if c.on_update_now && !assigned[i] {
                    new[i] = sess.now_value(&c.ty);
                }
            }
            sess.with_trx(|_, trx| apply_update(trx, h, &pk, &new))?;
            changed_per[k] += 1;
            super::trigger::on_update(sess, trig.as_deref(), h, Tm::After, &old, &mut new)?;
            if let Some(ac) = h.auto_increment_column()
                && let Some(v) = new[ac].to_i64()
                && v >= 0
                && v as u64 >= h.auto_inc_peek()
            {
                h.auto_inc_at_least(v as u64 + 1);
                sess.persist_auto_inc(h, v as u64 + 1)?;
            }
        }
        for (k, (t, _)) in targets.iter().enumerate() {
            sess.rows_changed(&t.handle, "updated", changed_per[k]);
        }
        let changed: u64 = changed_per.iter().sum();
        Ok(super::dml::update_outcome(
            sess, matched, changed, found_rows,
        ))
    })
}

pub fn delete(sess: &mut Session, d: &Delete) -> Result<Outcome> {
    if !d.order_by.is_empty() {
        return Err(KilnError::new(
            ErrorKind::ER_WRONG_USAGE,
            &[&"DELETE", &"ORDER BY"],
        ));
    }
    if d.limit.is_some() {
        return Err(KilnError::new(
            ErrorKind::ER_WRONG_USAGE,
            &[&"DELETE", &"LIMIT"],
        ));
    }
    let tables = from_tables(sess, &d.from)?;
    // The targets name FROM tables by alias (by name when not aliased); a schema in
    // the target must be the table's.
    let mut target_ix: Vec<usize> = Vec::new();
    for t in &d.targets {
        let i = tables
            .iter()
            .position(|f| {
                f.alias == t.name
                    && t.schema
                        .as_ref()
                        .is_none_or(|s| f.handle.as_ref().is_some_and(|h| h.def.schema == *s))
            })
            .ok_or_else(|| {
                KilnError::new(ErrorKind::ER_UNKNOWN_TABLE, &[&t.name, &"MULTI DELETE"])
            })?;
        if tables[i].handle.is_none() {
            return Err(KilnError::new(
                ErrorKind::ER_NON_UPDATABLE_TABLE,
                &[&tables[i].alias, &"DELETE"],
            ));
        }
        if !target_ix.contains(&i) {
            target_ix.push(i);
        }
    }
    target_ix.sort_unstable();
    for &i in &target_ix {
        let h = tables[i].handle.as_ref().expect("checked");
        check_target_not_in_subqueries(sess, h, &[d.filter.as_ref()])?;
    }
    let aliases: Vec<String> = target_ix.iter().map(|&i| tables[i].alias.clone()).collect();
    sess.with_statement(|sess| {
        let rel = joined_rows(sess, &d.from, d.filter.as_ref(), &aliases)?;
        let targets: Vec<Target> = aliases
            .iter()
            .map(|a| target_in(&rel, a))
            .collect::<Result<_>>()?;
        let mut seen: HashSet<(usize, Vec<u8>)> = HashSet::new();
        let mut doomed: Vec<(usize, Vec<u8>)> = Vec::new();
        for row in &rel.rows {
            for (k, t) in targets.iter().enumerate() {
                if let Some(pk) = pk_of(row, t)
                    && seen.insert((k, pk.clone()))
                {
                    doomed.push((k, pk));
                }
            }
        }
        let mut deleted = vec![0u64; targets.len()];
        let mut trigs = Vec::with_capacity(targets.len());
        for t in &targets {
            trigs
                .push(super::trigger::of(sess, &t.handle)?.filter(|x| x.has(TriggerEvent::Delete)));
        }
        for (k, pk) in doomed {
            let h = &targets[k].handle;
            let Some(t) = &trigs[k] else {
                if sess.with_trx(|_, trx| trx.table_delete(&h.storage, &pk).map_err(trx_error))? {
                    deleted[k] += 1;
                }
                continue;
            };
            // With DELETE triggers: the row's values first (OLD), then the delete.
            let old = sess.with_trx(|_, trx| {
                trx.read(&h.storage.clustered, &pk, ReadMode::Update(trx.wait()))
                    .map_err(trx_error)
            })?;
            let Some(old) = old else { continue };
            let old = h.shape.decode(&old);
            super::trigger::on_delete(sess, Some(t), h, Tm::Before, &old)?;
            if sess.with_trx(|_, trx| trx.table_delete(&h.storage, &pk).map_err(trx_error))? {
                deleted[k] += 1;
                super::trigger::on_delete(sess, Some(t), h, Tm::After, &old)?;
            }
        }
        for (k, t) in targets.iter().enumerate() {
            t.handle.add_rows(-(deleted[k] as i64));
            sess.rows_changed(&t.handle, "deleted", deleted[k]);
        }
        Ok(Outcome::Ok {
            affected_rows: deleted.iter().sum(),
            last_insert_id: 0,
            info: String::new(),
        })
    })
}
