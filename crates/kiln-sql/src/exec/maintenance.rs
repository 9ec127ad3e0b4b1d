//! ANALYZE / OPTIMIZE / CHECK / REPAIR TABLE: MySQL 8.0's result set (Table, Op,
//! Msg_type, Msg_text), one or more rows per named table, and what each does to an
//! InnoDB-style table:
//!
//! - ANALYZE: samples the clustered tree again for the row estimate EXPLAIN and the
//!   join order use (`BTree::estimate_len`).
//! - OPTIMIZE: "Table does not support optimize, doing recreate + analyze instead", as
//!   InnoDB: rebuilds the table (ALTER TABLE … FORCE: every row copied into a new
//!   tablespace, secondary indexes built anew, freed space returned) and re-estimates.
//! - CHECK: counts, in one consistent read, the rows of the clustered index and the
//!   rows reached through each secondary index; a difference is InnoDB's warning
//!   "Index 'k' contains N entries, should be M." and the status "Corrupt".
//! - REPAIR: InnoDB's note that the engine does not support it.
//!
//! A table that does not exist, or a view where a base table is needed, gives an
//! Error row and "Operation failed" and the statement goes on with the next table,
//! as MySQL does. The statements commit implicitly (session.rs).

use std::ops::Bound;

use kiln_common::{ErrorKind, KilnError, Result};

use super::access::{self, Access};
use super::ddl::schema_of;
use crate::ast::{AlterOp, MaintenanceOp, TableName};
use crate::dict::{IndexKindDef, TableHandle};
use crate::result::{ColumnInfo, Outcome, Rows};
use crate::session::Session;
use crate::value::Value;

pub fn run(sess: &mut Session, op: MaintenanceOp, tables: &[TableName]) -> Result<Outcome> {
    let mut rows = Vec::new();
    for name in tables {
        let schema = schema_of(sess, name)?;
        let full = format!("{schema}.{}", name.name);
        let mut row = |kind: &str, text: String| {
            rows.push(vec![
                Value::Str(full.clone()),
                Value::Str(op.name().into()),
                Value::Str(kind.into()),
                Value::Str(text),
            ])
        };
        match one_table(sess, op, name, &schema) {
            Ok(msgs) => {
                for (kind, text) in msgs {
                    row(kind, text);
                }
            }
            Err(e) => {
                // A KILL ends the statement, not just this table.
                if e.code == ErrorKind::ER_QUERY_INTERRUPTED.code() {
                    return Err(e);
                }
                row("Error", e.message.clone());
                row("status", "Operation failed".into());
            }
        }
    }
    Ok(Outcome::Rows(Rows {
        columns: vec![
            ColumnInfo::text("Table", 512),
            ColumnInfo::text("Op", 10),
            ColumnInfo::text("Msg_type", 10),
            ColumnInfo::text("Msg_text", 512),
        ]
        .into(),
        rows,
    }))
}

type Messages = Vec<(&'static str, String)>;

fn one_table(
    sess: &mut Session,
    op: MaintenanceOp,
    name: &TableName,
    schema: &str,
) -> Result<Messages> {
    let is_view = sess.temp.get(schema, &name.name).is_none()
        && sess.catalog()?.view(schema, &name.name).is_some();
    if is_view {
        if op == MaintenanceOp::Check {
            // The view's definition still resolves (its tables and columns exist).
            let v = super::view::lookup(sess, name)?.expect("a view");
            super::view::columns_of(sess, &v)?;
            return Ok(vec![("status", "OK".into())]);
        }
        return Err(KilnError::new(
            ErrorKind::ER_WRONG_OBJECT,
            &[&schema, &name.name, &"BASE TABLE"],
        ));
    }
    match op {
        MaintenanceOp::Analyze => {
            let h = super::select::resolve_table(sess, name)?;
            analyze(&h)?;
            Ok(vec![("status", "OK".into())])
        }
        MaintenanceOp::Optimize => {
            let h = super::select::resolve_table(sess, name)?;
            let note = (
                "note",
                "Table does not support optimize, doing recreate + analyze instead".into(),
            );
            if !h.temporary {
                drop(h);
                super::alter::alter(sess, name, &[AlterOp::Force])?;
                let h = super::select::resolve_table(sess, name)?;
                analyze(&h)?;
            }
            Ok(vec![note, ("status", "OK".into())])
        }
        MaintenanceOp::Check => {
            let h = super::select::resolve_table(sess, name)?;
            check(sess, &h)
        }
        MaintenanceOp::Repair => {
            super::select::resolve_table(sess, name)?;
            Ok(vec![(
                "note",
                "The storage engine for the table doesn't support repair".into(),
            )])
        }
    }
}

fn analyze(h: &TableHandle) -> Result<()> {
    let n = h
        .storage
        .clustered
        .estimate_len()
        .map_err(|e| KilnError::new(ErrorKind::ER_INTERNAL_ERROR, &[&e.to_string()]))?;
    h.set_rows_estimate(n);
    Ok(())
}

/// Rows of the clustered index against rows reached through each secondary index, in
/// the statement's one read view.
fn check(sess: &mut Session, h: &TableHandle) -> Result<Messages> {
    let rows = count(sess, h, 0)?;
    let mut msgs = Vec::new();
    for (i, ix) in h.def.indexes.iter().enumerate().skip(1) {
        if ix.kind == IndexKindDef::RowId || h.sec_pos.get(i).is_none_or(|p| p.is_none()) {
            continue;
        }
        let n = count(sess, h, i)?;
        if n != rows {
            msgs.push((
                "Warning",
                format!(
                    "InnoDB: Index '{}' contains {n} entries, should be {rows}.",
                    ix.name
                ),
            ));
        }
    }
    if msgs.is_empty() {
        msgs.push(("status", "OK".into()));
    } else {
        msgs.push(("error", "Corrupt".into()));
    }
    Ok(msgs)
}

/// Rows read through index `index` (0: clustered).
fn count(sess: &mut Session, h: &TableHandle, index: usize) -> Result<u64> {
    let acc = if index == 0 {
        Access::Full
    } else {
        Access::Index {
            index,
            ranges: vec![(Bound::Unbounded, Bound::Unbounded)],
            point: false,
        }
    };
    access::count(sess, h, &acc, u64::MAX)
}
