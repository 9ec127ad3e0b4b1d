//! The INSERT / REPLACE / INSERT ... ON DUPLICATE KEY UPDATE statement: the rows
//! from VALUES, SET or SELECT, defaults, and per row the write (`dml::RowInserter`)
//! with the trigger events in MySQL's order — BEFORE INSERT; on a duplicate, BEFORE /
//! AFTER UPDATE (ON DUPLICATE KEY UPDATE) or BEFORE / AFTER DELETE (REPLACE on a table
//! with DELETE triggers); AFTER INSERT.

use std::borrow::Cow;
use std::sync::Arc;

use kiln_common::{ErrorKind, KilnError, Result};

use super::RowEnv;
use super::access::trx_error;
use super::bind::Scope;
use super::dml::{
    OnDup, RowInserter, Wrote, apply_update, convert_row, default_functions, default_of,
    duplicate_error, same_value, scope_of, store_column,
};
use super::prepared_plan::Recorder;
use super::select::{resolve_table_for_write, run_subqueries};
use crate::ast::TriggerTiming as Tm;
use crate::ast::*;
use crate::dict::TableHandle;
use crate::eval::eval;
use crate::result::Outcome;
use crate::session::Session;
use crate::value::Value;

pub fn insert(sess: &mut Session, ins: &Insert) -> Result<Outcome> {
    insert_with(sess, ins, None, None)
}

/// What a prepared statement's plan keeps of an INSERT ... VALUES (prepared_plan.rs):
/// the table, the column of each value, ON DUPLICATE KEY UPDATE bound.
pub(crate) struct InsertBound<'a> {
    pub h: &'a Arc<TableHandle>,
    pub cols: &'a [usize],
    pub on_dup: &'a [(usize, Expr)],
}

/// The table's columns an INSERT names (all visible ones if it names none).
fn insert_columns(h: &TableHandle, ins: &Insert) -> Result<Vec<usize>> {
    let ncol = h.def.columns.len();
    let mut cols: Vec<usize> = Vec::new();
    if ins.columns.is_empty() {
        if !matches!(ins.source, InsertSource::Set(_)) {
            cols = (0..ncol).filter(|&i| !h.def.columns[i].invisible).collect();
        }
    } else {
        for c in &ins.columns {
            let i = h.def.column_index(c).ok_or_else(|| {
                KilnError::new(ErrorKind::ER_BAD_FIELD_ERROR, &[&c, &"field list"])
            })?;
            if cols.contains(&i) {
                return Err(KilnError::new(ErrorKind::ER_FIELD_SPECIFIED_TWICE, &[&c]));
            }
            cols.push(i);
        }
    }
    Ok(cols)
}

/// `insert`, from a prepared plan's bound parts (`pre`: an INSERT ... VALUES without
/// subqueries or DEFAULT(col), whose values are then evaluated as written), or
/// keeping them in `rec`.
pub(crate) fn insert_with(
    sess: &mut Session,
    ins: &Insert,
    pre: Option<InsertBound<'_>>,
    rec: Option<&mut Recorder>,
) -> Result<Outcome> {
    let (h, mut cols) = match &pre {
        Some(p) => (p.h.clone(), p.cols.to_vec()),
        None => {
            let h = resolve_table_for_write(sess, &ins.table)?;
            let cols = insert_columns(&h, ins)?;
            (h, cols)
        }
    };
    let ncol = h.def.columns.len();
    // The rows, as expressions per column (None = DEFAULT).
    let diag_before = sess.diagnostics().len();
    let rows: Vec<Vec<Option<Value>>> = match &ins.source {
        InsertSource::Values(rows) => {
            let mut out = Vec::with_capacity(rows.len());
            for (n, r) in rows.iter().enumerate() {
                if r.is_empty() {
                    // `VALUES ()`: every column takes its default.
                    out.push(vec![None; cols.len()]);
                    continue;
                }
                if r.len() != cols.len() {
                    return Err(KilnError::new(
                        ErrorKind::ER_WRONG_VALUE_COUNT_ON_ROW,
                        &[&(n + 1)],
                    ));
                }
                let mut vals = Vec::with_capacity(r.len());
                for e in r {
                    vals.push(match e {
                        Some(e) if pre.is_some() => Some(eval(e, sess)?),
                        Some(e) => {
                            let e = run_subqueries(sess, e)?;
                            let e = default_functions(sess, &h, &e)?;
                            Some(eval(&e, sess)?)
                        }
                        None => None,
                    });
                }
                out.push(vals);
            }
            out
        }
        InsertSource::Set(sets) => {
            let mut vals = Vec::with_capacity(sets.len());
            for (c, e) in sets {
                let i = h.def.column_index(c).ok_or_else(|| {
                    KilnError::new(ErrorKind::ER_BAD_FIELD_ERROR, &[&c, &"field list"])
                })?;
                if cols.contains(&i) {
                    return Err(KilnError::new(ErrorKind::ER_FIELD_SPECIFIED_TWICE, &[&c]));
                }
                cols.push(i);
                vals.push(match e {
                    Some(e) => {
                        let e = default_functions(sess, &h, e)?;
                        Some(eval(&e, sess)?)
                    }
                    None => None,
                });
            }
            vec![vals]
        }
        InsertSource::Select(sel) => {
            let rows = super::select::run(sess, sel)?;
            if rows.columns.len() != cols.len() {
                return Err(KilnError::new(
                    ErrorKind::ER_WRONG_VALUE_COUNT_ON_ROW,
                    &[&1],
                ));
            }
            rows.rows
                .into_iter()
                .map(|r| r.into_iter().map(Some).collect())
                .collect()
        }
    };
    let multi = rows.len() > 1 || matches!(ins.source, InsertSource::Select(_));
    let single_row = !multi;
    let strict = sess.strict_mode() && !ins.ignore;
    if !matches!(ins.source, InsertSource::Select(_)) {
        sess.check_division_by_zero(diag_before, strict)?;
    }
    let on_dup: Cow<[(usize, Expr)]> = match &pre {
        Some(p) => Cow::Borrowed(p.on_dup),
        None => {
            let scope = scope_of(&h, &h.def.name);
            let on_dup: Vec<(usize, Expr)> = ins
                .on_duplicate
                .iter()
                .map(|(c, e)| {
                    let i = h.def.column_index(c).ok_or_else(|| {
                        KilnError::new(ErrorKind::ER_BAD_FIELD_ERROR, &[&c, &"field list"])
                    })?;
                    Ok((
                        i,
                        bind_on_dup(e, &scope, ncol, ins.row_alias.as_deref(), &h.def.name)?,
                    ))
                })
                .collect::<Result<_>>()?;
            if let Some(rec) = rec {
                rec.target = Some((h.clone(), scope));
                rec.insert = Some((cols.clone(), on_dup.clone()));
            }
            Cow::Owned(on_dup)
        }
    };
    let trig = super::trigger::of(sess, &h)?;
    // REPLACE on a table with DELETE triggers deletes each conflicting row itself
    // (firing them), as MySQL does.
    let replace_fires = ins.replace && trig.as_ref().is_some_and(|t| t.has(TriggerEvent::Delete));
    let dup_mode = if replace_fires {
        OnDup::Update
    } else if ins.replace {
        OnDup::Replace
    } else if !on_dup.is_empty() {
        OnDup::Update
    } else if ins.ignore {
        OnDup::Ignore
    } else {
        OnDup::Error
    };
    let mut writer = RowInserter::new(sess, h.clone(), strict, dup_mode);
    let auto_col = h.auto_increment_column();
    let found_rows = sess.client_found_rows;
    sess.with_statement(|sess| {
        {
            let (mut affected, mut dups) = (0u64, 0u64);
            let records = rows.len();
            for (n, given) in rows.into_iter().enumerate() {
                let row_no = n as u64 + 1;
                let mut row: Vec<Value> = vec![Value::Null; ncol];
                let mut set = vec![false; ncol];
                for (k, &c) in cols.iter().enumerate() {
                    match &given[k] {
                        Some(v) => {
                            row[c] = v.clone();
                            set[c] = true;
                        }
                        None => {
                            row[c] = default_of(sess, &h, c, strict)?;
                            set[c] = true;
                        }
                    }
                }
                for c in 0..ncol {
                    if !set[c] {
                        row[c] = default_of(sess, &h, c, strict)?;
                    }
                }
                if let Some(t) = &trig {
                    before_insert(sess, t, &h, &mut row, strict, row_no)?;
                }
                let mut deleted_here = 0u64;
                let wrote = loop {
                    let w = sess.with_trx(|sess, trx| {
                        writer.write(sess, trx, &mut row, row_no, single_row)
                    })?;
                    match (w, &trig) {
                        (Wrote::Conflict { opk, old }, Some(t)) if ins.replace => {
                            // REPLACE with DELETE triggers: delete, fire, retry.
                            deleted_here += 1;
                            if deleted_here > h.def.indexes.len() as u64 + 1 {
                                return Err(duplicate_error(&h, 0, &row));
                            }
                            let tt = &**t;
                            super::trigger::on_delete(sess, Some(tt), &h, Tm::Before, &old)?;
                            sess.with_trx(|_, trx| {
                                trx.table_delete(&h.storage, &opk).map_err(trx_error)
                            })?;
                            super::trigger::on_delete(sess, Some(tt), &h, Tm::After, &old)?;
                        }
                        (Wrote::Inserted, _) if deleted_here > 0 => {
                            break Wrote::Replaced {
                                deleted: deleted_here,
                            };
                        }
                        (w, _) => break w,
                    }
                };
                match wrote {
                    Wrote::Inserted | Wrote::Replaced { .. } => {
                        if let Wrote::Replaced { deleted } = wrote {
                            affected += deleted;
                            dups += 1;
                        }
                        affected += 1;
                        super::trigger::after_insert(sess, trig.as_deref(), &h, &mut row)?;
                    }
                    Wrote::Ignored => dups += 1,
                    Wrote::Conflict { opk, old } => {
                        dups += 1;
                        // ON DUPLICATE KEY UPDATE: the assignments over [old row ‖ new row].
                        let mut newrow = old.clone();
                        for (c, e) in on_dup.iter() {
                            let ctx: Vec<Value> =
                                newrow.iter().cloned().chain(row.iter().cloned()).collect();
                            let mut re = RowEnv {
                                inner: &mut *sess,
                                row: &ctx,
                                scope: None,
                            };
                            newrow[*c] = eval(e, &mut re)?;
                        }
                        convert_row(sess, &h, &mut newrow, strict, false, row_no)?;
                        if let Some(t) = &trig {
                            super::trigger::on_update(
                                sess,
                                Some(t),
                                &h,
                                Tm::Before,
                                &old,
                                &mut newrow,
                            )?;
                            convert_row(sess, &h, &mut newrow, strict, false, row_no)?;
                        }
                        let changed = newrow.iter().zip(&old).any(|(a, b)| !same_value(a, b));
                        if changed {
                            sess.with_trx(|_, trx| apply_update(trx, &h, &opk, &newrow))?;
                            affected += 2;
                            super::trigger::on_update(
                                sess,
                                trig.as_deref(),
                                &h,
                                Tm::After,
                                &old,
                                &mut newrow,
                            )?;
                        } else if found_rows {
                            affected += 1;
                        }
                        if let Some(ac) = auto_col
                            && let Some(id) = newrow[ac].to_i64()
                        {
                            sess.set_last_insert_id_for_dup(id as u64);
                        }
                    }
                }
            }
            let last_insert_id = writer.finish(sess)?;
            let info = if multi {
                format!(
                    "Records: {records}  Duplicates: {dups}  Warnings: {}",
                    sess.warning_count()
                )
            } else {
                String::new()
            };
            Ok(Outcome::Ok {
                affected_rows: affected,
                last_insert_id,
                info,
            })
        }
    })
}

/// BEFORE INSERT: the row's values converted to the column types first (NEW.col
/// reads them so; NULL stays NULL until the NOT NULL check after the triggers), then
/// the triggers, which may change NEW.
pub(crate) fn before_insert(
    sess: &mut Session,
    t: &crate::dict::TableTriggers,
    h: &TableHandle,
    row: &mut Vec<Value>,
    strict: bool,
    row_no: u64,
) -> Result<()> {
    if t.of(TriggerEvent::Insert, TriggerTiming::Before)
        .next()
        .is_none()
    {
        return Ok(());
    }
    for (c, v) in row.iter_mut().enumerate() {
        if !v.is_null() {
            *v = store_column(sess, h, c, v, strict, row_no)?;
        }
    }
    super::trigger::fire(
        sess,
        t,
        h,
        TriggerEvent::Insert,
        TriggerTiming::Before,
        None,
        Some(row),
    )
}

/// ON DUPLICATE KEY UPDATE expressions see the old row (slots 0..n) and, through
/// VALUES(col) or the row alias, the row that was to be inserted (slots n..2n).
fn bind_on_dup(
    e: &Expr,
    scope: &Scope,
    ncol: usize,
    alias: Option<&str>,
    table: &str,
) -> Result<Expr> {
    super::bind::rewrite(e, &mut |x| match x {
        Expr::Func { name, args } if name == "values" && args.len() == 1 => match &args[0] {
            Expr::Column { name, .. } => Ok(Some(Expr::Slot(
                ncol + scope.resolve(None, name, "field list")?,
            ))),
            _ => Ok(Some(Expr::Literal(Value::Null))),
        },
        Expr::Column {
            qualifier: Some(q),
            name,
        } if Some(q.as_str()) == alias => Ok(Some(Expr::Slot(
            ncol + scope.resolve(None, name, "field list")?,
        ))),
        Expr::Column { qualifier, name } => {
            let q = qualifier.as_deref().filter(|q| *q != table);
            if q.is_some() {
                return Err(KilnError::new(
                    ErrorKind::ER_BAD_FIELD_ERROR,
                    &[&format!("{}.{name}", q.unwrap_or_default()), &"field list"],
                ));
            }
            Ok(Some(Expr::Slot(scope.resolve(None, name, "field list")?)))
        }
        _ => Ok(None),
    })
}
