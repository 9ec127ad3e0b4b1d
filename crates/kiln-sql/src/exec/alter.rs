//! ALTER TABLE (and CREATE/DROP INDEX, which are ALTERs): the new definition from the
//! old one and the operations, then either a metadata-only switch, an in-place build
//! of new secondary indexes with the bulk loader, or a rebuild that copies and
//! converts every row into a new tablespace — switched atomically by the dictionary.

use kiln_common::{ErrorKind, KilnError, Result};

use super::access::trx_error;
use super::ddl::{add_index, column_def, finish_indexes, resolve_charset, schema_of};
use crate::ast::*;
use crate::dict::{ColumnDefault, ForeignKeyDef, IndexDef, IndexKindDef, TableDef, TableHandle};
use crate::eval::eval;
use crate::result::Outcome;
use crate::rowfmt;
use crate::session::Session;
use crate::types::{StoreMode, store};
use crate::value::Value;

/// ALTER TABLE (and CREATE/DROP INDEX, which are ALTERs).
pub fn alter(sess: &mut Session, name: &TableName, ops: &[AlterOp]) -> Result<Outcome> {
    let schema = schema_of(sess, name)?;
    let h = super::select::resolve_table(sess, name)?;
    if !ops.is_empty()
        && ops.iter().all(|op| {
            matches!(op, AlterOp::AddIndex(spec) if matches!(spec.kind, IndexKind::Key | IndexKind::Unique | IndexKind::Fulltext))
        })
    {
        return add_indexes_in_place(sess, &schema, &h, ops);
    }
    let old = &h.def;
    let mut def = old.clone();
    // For each new column: the old column it comes from.
    let mut source: Vec<Option<usize>> = (0..def.columns.len()).map(Some).collect();
    let mut rebuild = false;
    let mut new_name = None;
    let table_cs = (old.charset.clone(), old.collation.clone());
    for op in ops {
        match op {
            AlterOp::AddColumn { spec, position } => {
                if def
                    .columns
                    .iter()
                    .any(|c| c.name.eq_ignore_ascii_case(&spec.name))
                {
                    return Err(KilnError::new(ErrorKind::ER_DUP_FIELDNAME, &[&spec.name]));
                }
                let c = column_def(sess, spec, (&table_cs.0, &table_cs.1))?;
                let at = position_of(&def, position)?;
                let instant = at == def.columns.len()
                    && !spec.primary
                    && !spec.unique
                    && !c.auto_increment
                    && !matches!(c.default, Some(ColumnDefault::CurrentTimestamp))
                    && (c.nullable || c.default.is_some());
                rebuild |= !instant;
                shift_parts(&mut def, at, 1);
                def.columns.insert(at, c);
                source.insert(at, None);
                if spec.primary || spec.unique {
                    add_index(
                        &mut def.columns,
                        &mut def.indexes,
                        &IndexSpec {
                            name: None,
                            kind: if spec.primary {
                                IndexKind::Primary
                            } else {
                                IndexKind::Unique
                            },
                            parts: vec![IndexPartSpec {
                                column: spec.name.clone(),
                                prefix: None,
                                desc: false,
                            }],
                            invisible: false,
                            comment: None,
                        },
                    )?;
                }
            }
            AlterOp::DropColumn(c) => {
                let i = def
                    .column_index(c)
                    .ok_or_else(|| KilnError::new(ErrorKind::ER_CANT_DROP_FIELD_OR_KEY, &[&c]))?;
                if def.columns.len() == 1 {
                    return Err(ErrorKind::ER_CANT_REMOVE_ALL_FIELDS.into());
                }
                def.columns.remove(i);
                source.remove(i);
                for ix in &mut def.indexes {
                    ix.parts.retain(|p| p.column != i);
                }
                def.indexes
                    .retain(|ix| ix.kind == IndexKindDef::RowId || !ix.parts.is_empty());
                shift_parts(&mut def, i + 1, -1);
                rebuild = true;
            }
            AlterOp::ChangeColumn {
                old: oldc,
                spec,
                position,
            } => {
                let i = def.column_index(oldc).ok_or_else(|| {
                    KilnError::new(ErrorKind::ER_BAD_FIELD_ERROR, &[&oldc, &old.name])
                })?;
                if !spec.name.eq_ignore_ascii_case(oldc) && def.column_index(&spec.name).is_some() {
                    return Err(KilnError::new(ErrorKind::ER_DUP_FIELDNAME, &[&spec.name]));
                }
                let mut c = column_def(sess, spec, (&table_cs.0, &table_cs.1))?;
                if def.indexes.iter().any(|ix| {
                    ix.kind == IndexKindDef::Primary && ix.parts.iter().any(|p| p.column == i)
                }) {
                    c.nullable = false;
                }
                let same_type = c.ty == def.columns[i].ty && c.nullable == def.columns[i].nullable;
                def.columns[i] = c;
                if let Some(pos) = position {
                    let col = def.columns.remove(i);
                    let src = source.remove(i);
                    let at = position_of(&def, &Some(pos.clone()))?;
                    def.columns.insert(at, col);
                    source.insert(at, src);
                    // Index parts follow the move.
                    for ix in &mut def.indexes {
                        for p in &mut ix.parts {
                            p.column = moved(p.column, i, at);
                        }
                    }
                    rebuild = true;
                }
                rebuild |= !same_type;
            }
            AlterOp::RenameColumn { old: o, new } => {
                let i = def.column_index(o).ok_or_else(|| {
                    KilnError::new(ErrorKind::ER_BAD_FIELD_ERROR, &[&o, &old.name])
                })?;
                if def.column_index(new).is_some() && !new.eq_ignore_ascii_case(o) {
                    return Err(KilnError::new(ErrorKind::ER_DUP_FIELDNAME, &[&new]));
                }
                def.columns[i].name = new.clone();
            }
            AlterOp::AlterDefault { column, default } => {
                let i = def.column_index(column).ok_or_else(|| {
                    KilnError::new(ErrorKind::ER_BAD_FIELD_ERROR, &[&column, &old.name])
                })?;
                def.columns[i].default = match default {
                    None => None,
                    Some(e) => {
                        let v = eval(e, sess)?;
                        let mut w = Vec::new();
                        let c = &def.columns[i];
                        Some(ColumnDefault::Value(if v.is_null() {
                            Value::Null
                        } else {
                            store(
                                &c.ty,
                                &c.name,
                                &v,
                                StoreMode {
                                    strict: true,
                                    row: 1,
                                },
                                &mut w,
                            )
                            .map_err(|_| {
                                KilnError::new(ErrorKind::ER_INVALID_DEFAULT, &[&c.name])
                            })?
                        }))
                    }
                };
                // Rows written before an instant ADD COLUMN read the default: rebuild
                // so they keep the old one.
                rebuild = true;
            }
            AlterOp::AddIndex(spec) => {
                let mut cols = std::mem::take(&mut def.columns);
                let r = add_index(&mut cols, &mut def.indexes, spec);
                def.columns = cols;
                r?;
                rebuild = true;
            }
            AlterOp::AddForeignKey(f) => {
                def.foreign_keys.push(ForeignKeyDef {
                    name: f.name.clone().unwrap_or_else(|| {
                        format!("{}_ibfk_{}", def.name, def.foreign_keys.len() + 1)
                    }),
                    columns: f.columns.clone(),
                    ref_schema: f.ref_table.schema.clone().unwrap_or_else(|| schema.clone()),
                    ref_table: f.ref_table.name.clone(),
                    ref_columns: f.ref_columns.clone(),
                    actions: f.actions.clone(),
                });
            }
            AlterOp::DropIndex(n) => {
                let i = def
                    .indexes
                    .iter()
                    .position(|ix| {
                        ix.name.eq_ignore_ascii_case(n) && ix.kind != IndexKindDef::RowId
                    })
                    .ok_or_else(|| KilnError::new(ErrorKind::ER_CANT_DROP_FIELD_OR_KEY, &[&n]))?;
                def.indexes.remove(i);
                rebuild = true;
            }
            AlterOp::DropPrimaryKey => {
                let i = def
                    .indexes
                    .iter()
                    .position(|ix| ix.kind == IndexKindDef::Primary)
                    .ok_or_else(|| {
                        KilnError::new(ErrorKind::ER_CANT_DROP_FIELD_OR_KEY, &[&"PRIMARY"])
                    })?;
                def.indexes.remove(i);
                rebuild = true;
            }
            AlterOp::DropForeignKey(n) => {
                let before = def.foreign_keys.len();
                def.foreign_keys.retain(|f| !f.name.eq_ignore_ascii_case(n));
                if def.foreign_keys.len() == before {
                    return Err(KilnError::new(ErrorKind::ER_CANT_DROP_FIELD_OR_KEY, &[&n]));
                }
            }
            AlterOp::RenameIndex { old: o, new } => {
                if def
                    .indexes
                    .iter()
                    .any(|ix| ix.name.eq_ignore_ascii_case(new))
                {
                    return Err(KilnError::new(ErrorKind::ER_DUP_KEYNAME, &[&new]));
                }
                let ix = def
                    .indexes
                    .iter_mut()
                    .find(|ix| ix.name.eq_ignore_ascii_case(o) && ix.kind != IndexKindDef::Primary)
                    .ok_or_else(|| {
                        KilnError::new(ErrorKind::ER_KEY_DOES_NOT_EXITS, &[&o, &old.name])
                    })?;
                ix.name = new.clone();
            }
            AlterOp::RenameTable(t) => {
                new_name = Some((schema_of(sess, t)?, t.name.clone()));
            }
            AlterOp::Force => rebuild = true,
            AlterOp::Options(o) => {
                if let Some(c) = &o.comment {
                    def.comment = c.clone();
                }
                if let Some(a) = o.auto_increment {
                    def.auto_increment_start = a;
                    h.auto_inc_at_least(a);
                    sess.persist_auto_inc(&h, h.auto_inc_peek())?;
                }
                if o.charset.is_some() || o.collation.is_some() {
                    let (cs, co) = resolve_charset(
                        o.charset.as_deref(),
                        o.collation.as_deref(),
                        (&def.charset, &def.collation),
                    )?;
                    def.charset = cs;
                    def.collation = co;
                }
                if let Some(r) = &o.row_format {
                    def.row_format = Some(r.clone());
                }
            }
        }
    }
    def.indexes = finish_indexes(&def.columns, def.indexes)?;
    if let Some((s, n)) = &new_name {
        def.schema = s.clone();
        def.name = n.clone();
    }
    let strict = sess.strict_mode();
    let auto_next = h.auto_inc_peek();
    let mut copied = 0u64;
    sess.replace_table(
        &schema,
        &name.name,
        rebuild,
        |_| Ok(def.clone()),
        |trx, oldh, newh| {
            copied = copy_rows(trx, oldh, newh, &source, strict, auto_next)?;
            Ok(())
        },
    )?;
    // Reported as MySQL 8.0 reports its in-place ALTERs: no records "copied".
    let _ = copied;
    Ok(Outcome::Ok {
        affected_rows: 0,
        last_insert_id: 0,
        info: format!(
            "Records: 0  Duplicates: 0  Warnings: {}",
            sess.warning_count()
        ),
    })
}

/// ADD INDEX / CREATE INDEX of secondary indexes: each new tree is built bottom-up
/// by the bulk loader from the table's rows (sorted entries, no per-row undo or
/// locks), then the definition switches. The table is not copied.
pub(crate) fn add_indexes_in_place(
    sess: &mut Session,
    schema: &str,
    h: &TableHandle,
    ops: &[AlterOp],
) -> Result<Outcome> {
    let mut def = h.def.clone();
    let first_new = def.indexes.len();
    for op in ops {
        if let AlterOp::AddIndex(spec) = op {
            let mut cols = std::mem::take(&mut def.columns);
            let r = add_index(&mut cols, &mut def.indexes, spec);
            def.columns = cols;
            r?;
        }
    }
    // New trees take fresh ids; the existing ones keep theirs.
    let mut next = def.next_index_id.max(def.indexes.len() as u64 + 1);
    let mut new_ids = Vec::new();
    for ix in &mut def.indexes[first_new..] {
        ix.id = next;
        new_ids.push(next);
        next += 1;
    }
    def.next_index_id = next;
    // A new index on a nullable column makes no column NOT NULL (only PRIMARY does);
    // the column definitions stay the old ones.
    def.columns = h.def.columns.clone();
    def.indexes = finish_indexes(&def.columns, def.indexes)?;
    // The trees are built before the dictionary's DDL lock is taken, so concurrent
    // CREATE INDEX on other tables (sysbench prepare's threads) build in parallel
    // instead of one after another. This table cannot change meanwhile: the statement
    // holds its exclusive metadata lock, which every reader and writer needs shared,
    // and index ids are the table's own (def.next_index_id).
    let engine = sess.dict()?.engine.clone();
    let trx_sys = sess.dict()?.te.sys.clone();
    let name = h.def.name.clone();
    let space = engine
        .space(h.def.space_id)
        .ok_or_else(|| crate::dict::storage_error(format!("tablespace of {name} is missing")))?;
    for ix in def.indexes.iter().filter(|ix| new_ids.contains(&ix.id)) {
        if ix.kind == IndexKindDef::Fulltext {
            continue;
        }
        let items = index_entries(h, ix)?;
        engine
            .bulk_load_tree(&space, ix.id, items)
            .map_err(crate::dict::storage_error)?;
        // Its entries carry trx id 0: views from before now must check rows.
        trx_sys.note_bulk_build();
    }
    sess.replace_table(
        schema,
        &name,
        false,
        |old| {
            if old.def.space_id != h.def.space_id {
                return Err(crate::dict::storage_error(format!(
                    "table {name} changed while its indexes were built"
                )));
            }
            Ok(def.clone())
        },
        |_, _, _| Ok(()),
    )?;
    Ok(Outcome::Ok {
        affected_rows: 0,
        last_insert_id: 0,
        info: "Records: 0  Duplicates: 0  Warnings: 0".into(),
    })
}

/// The sorted entries of secondary index `ix` over the table's current rows (1062 if
/// a unique index finds two rows with the same non-NULL key).
pub(crate) fn index_entries(t: &TableHandle, ix: &IndexDef) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    // Only the index's columns are decoded (a sysbench table's long `c` and `pad`
    // strings are skipped); a unique index keeps its rows' key values for 1062's text.
    let mut needed = vec![false; t.def.columns.len()];
    for p in &ix.parts {
        needed[p.column] = true;
    }
    let unique = ix.kind == IndexKindDef::Unique;
    // (entry key, entry value, length of the index key or usize::MAX if it has a
    // NULL, the row's place in `key_values`).
    let mut entries: Vec<(Vec<u8>, Vec<u8>, usize, usize)> = Vec::new();
    let mut key_values: Vec<Vec<Value>> = Vec::new();
    let mut values = Vec::new();
    for r in t.storage.clustered.range(
        std::ops::Bound::Unbounded,
        std::ops::Bound::Unbounded,
        false,
    ) {
        let (pk, v) = r.map_err(crate::dict::storage_error)?;
        let Some(e) = kiln_storage::row::decode_clustered(&v) else {
            continue;
        };
        if e.delete_marked {
            continue;
        }
        t.shape.decode_masked(e.row, Some(&needed), &mut values)?;
        let key = rowfmt::index_key(&t.def.columns, &t.shape.colls, ix, &values);
        let has_null = ix.parts.iter().any(|p| values[p.column].is_null());
        let (k, val) = kiln_storage::trx::bulk_secondary_entry(&key, &pk);
        let key_len = if has_null { usize::MAX } else { key.len() };
        entries.push((k, val, key_len, entries.len()));
        if unique {
            key_values.push(ix.parts.iter().map(|p| values[p.column].clone()).collect());
        }
        if entries.len() > crate::exec::select::ROWS_IN_MEMORY_MAX {
            return Err(KilnError::with_message(
                ErrorKind::ER_OUT_OF_RESOURCES,
                "Out of memory: too many rows to build the index in memory",
            ));
        }
    }
    // Sorted in place: entry keys end with the primary key, so they are distinct and
    // an unstable sort gives the one order (through an index vector, every compare
    // was two cache misses).
    entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    if unique {
        for w in entries.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            if a.2 != usize::MAX && a.2 == b.2 && a.0[..a.2] == b.0[..b.2] {
                let val: Vec<String> = key_values[b.3]
                    .iter()
                    .map(|v| v.to_string_lossy().unwrap_or_default())
                    .collect();
                return Err(KilnError::new(
                    ErrorKind::ER_DUP_ENTRY,
                    &[&val.join("-"), &format!("{}.{}", t.def.name, ix.name)],
                ));
            }
        }
    }
    Ok(entries.into_iter().map(|(k, v, _, _)| (k, v)).collect())
}

pub(crate) fn moved(col: usize, from: usize, to: usize) -> usize {
    if col == from {
        to
    } else {
        let mut c = col;
        if c > from {
            c -= 1;
        }
        if c >= to {
            c += 1;
        }
        c
    }
}

pub(crate) fn position_of(def: &TableDef, position: &Option<Option<String>>) -> Result<usize> {
    match position {
        None => Ok(def.columns.len()),
        Some(None) => Ok(0),
        Some(Some(after)) => def
            .column_index(after)
            .map(|i| i + 1)
            .ok_or_else(|| KilnError::new(ErrorKind::ER_BAD_FIELD_ERROR, &[&after, &def.name])),
    }
}

/// Index parts at or after column `at` move by `delta`.
pub(crate) fn shift_parts(def: &mut TableDef, at: usize, delta: isize) {
    for ix in &mut def.indexes {
        for p in &mut ix.parts {
            if p.column >= at {
                p.column = (p.column as isize + delta) as usize;
            }
        }
    }
}

/// Copies every row of `old` into `new`, converting columns (ALTER TABLE rebuild).
pub(crate) fn copy_rows(
    trx: &mut kiln_storage::trx::Trx,
    old: &TableHandle,
    new: &TableHandle,
    source: &[Option<usize>],
    strict: bool,
    auto_next: u64,
) -> Result<u64> {
    let rows: Vec<(Vec<u8>, Vec<u8>)> = trx
        .scan(
            &old.storage.clustered,
            std::ops::Bound::Unbounded,
            std::ops::Bound::Unbounded,
            false,
        )
        .collect::<std::result::Result<_, _>>()
        .map_err(trx_error)?;
    let mut warnings = Vec::new();
    for (n, (_, bytes)) in rows.iter().enumerate() {
        let oldrow = old.shape.decode(bytes);
        let mut row = Vec::with_capacity(new.def.columns.len());
        for (i, c) in new.def.columns.iter().enumerate() {
            let v = match source[i] {
                Some(o) => oldrow[o].clone(),
                None => match &c.default {
                    Some(ColumnDefault::Value(v)) => v.clone(),
                    _ if c.auto_increment => Value::UInt(new.auto_inc_take(1)),
                    _ => Value::Null,
                },
            };
            let v = if v.is_null() && !c.nullable {
                if strict {
                    return Err(KilnError::new(ErrorKind::ER_INVALID_USE_OF_NULL, &[]));
                }
                Value::Int(0)
            } else {
                v
            };
            row.push(store(
                &c.ty,
                &c.name,
                &v,
                StoreMode {
                    strict,
                    row: n as u64 + 1,
                },
                &mut warnings,
            )?);
        }
        let pk = match new.def.indexes[0].kind {
            IndexKindDef::RowId => new.next_row_id().expect("row-id table").to_vec(),
            _ => rowfmt::index_key(
                &new.def.columns,
                &new.shape.colls,
                &new.def.indexes[0],
                &row,
            ),
        };
        let mut b = Vec::new();
        rowfmt::encode_row(&new.shape.stored, &row, &mut b);
        match trx.table_insert(&new.storage, &pk, &b) {
            Ok(()) => {}
            Err(kiln_storage::trx::TrxError::DuplicateKey) => {
                return Err(super::dml::duplicate_error_for(trx, new, &row, &pk));
            }
            Err(e) => return Err(trx_error(e)),
        }
    }
    new.auto_inc_at_least(auto_next);
    new.set_rows_estimate(rows.len() as u64);
    Ok(rows.len() as u64)
}

pub fn create_index(sess: &mut Session, table: &TableName, spec: &IndexSpec) -> Result<Outcome> {
    alter(sess, table, &[AlterOp::AddIndex(spec.clone())])
}

pub fn drop_index(sess: &mut Session, table: &TableName, name: &str) -> Result<Outcome> {
    let op = if name.eq_ignore_ascii_case("PRIMARY") {
        AlterOp::DropPrimaryKey
    } else {
        AlterOp::DropIndex(name.to_string())
    };
    alter(sess, table, &[op])
}
