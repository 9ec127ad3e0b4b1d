//! Triggers: CREATE / DROP TRIGGER (checks, then dict/trigger.rs), firing them from
//! the statements that write rows (exec/dml.rs, exec/dml_multi.rs, exec/load.rs),
//! SHOW TRIGGERS, SHOW CREATE TRIGGER and information_schema.TRIGGERS.
//!
//! Firing: `of` answers whether a table has triggers — with one bool of the cached
//! catalog when no trigger exists anywhere, so statements on tables without triggers
//! pay nothing more. `fire` runs a table's triggers for one event and timing, in
//! ACTION_ORDER, with the body interpreter (routine/exec.rs). While a trigger runs,
//! the default database is the trigger's and its table is on the session's
//! `trigger_tables` stack: a statement in the body that writes a table on the stack
//! fails with 1442 (so a trigger can modify neither its own table nor the table of
//! any statement that led to it, which also bounds the nesting). Errors propagate:
//! the firing statement fails and its savepoint undoes everything, the trigger's
//! own writes included.

use std::sync::Arc;

use kiln_common::{ErrorKind, KilnError, Result};

use crate::ast::*;
use crate::dict::{TableHandle, TableTriggers, Trigger, TriggerDef};
use crate::eval::{Env, Level};
use crate::result::Outcome;
use crate::routine::{RStmt, Target};
use crate::session::Session;
use crate::value::Value;

/// Nested trigger executions (a trigger's statement firing another table's
/// triggers) at most.
pub const NESTING_MAX: usize = 16;

/// The triggers of `h` (None: it has none, the common case, decided without
/// touching the catalog's reference count).
pub(crate) fn of(sess: &mut Session, h: &TableHandle) -> Result<Option<Arc<TableTriggers>>> {
    if h.temporary {
        return Ok(None);
    }
    if let (Some(c), Some(d)) = (&sess.catalog_cache, &sess.dict)
        && c.version == d.version()
        && !c.has_triggers()
    {
        return Ok(None);
    }
    let cat = sess.catalog()?;
    Ok(cat.table_triggers(&h.def.schema, &h.def.name).cloned())
}

/// Runs the triggers of `tt` for `event` at `timing` on one row.
pub(crate) fn fire(
    sess: &mut Session,
    tt: &TableTriggers,
    h: &TableHandle,
    event: TriggerEvent,
    timing: TriggerTiming,
    old: Option<&[Value]>,
    mut new: Option<&mut Vec<Value>>,
) -> Result<()> {
    for t in tt.of(event, timing) {
        run_one(sess, t, h, old, new.as_deref_mut())?;
    }
    Ok(())
}

/// `fire` when the table has triggers (`of` returned some).
pub(crate) fn fire_if(
    sess: &mut Session,
    tt: Option<&TableTriggers>,
    h: &TableHandle,
    event: TriggerEvent,
    timing: TriggerTiming,
    old: Option<&[Value]>,
    new: Option<&mut Vec<Value>>,
) -> Result<()> {
    match tt {
        Some(tt) => fire(sess, tt, h, event, timing, old, new),
        None => Ok(()),
    }
}

/// One-line forms of `fire_if` for the write paths.
pub(crate) fn on_update(
    sess: &mut Session,
    tt: Option<&TableTriggers>,
    h: &TableHandle,
    timing: TriggerTiming,
    old: &[Value],
    new: &mut Vec<Value>,
) -> Result<()> {
    fire_if(
        sess,
        tt,
        h,
        TriggerEvent::Update,
        timing,
        Some(old),
        Some(new),
    )
}

pub(crate) fn on_delete(
    sess: &mut Session,
    tt: Option<&TableTriggers>,
    h: &TableHandle,
    timing: TriggerTiming,
    old: &[Value],
) -> Result<()> {
    fire_if(sess, tt, h, TriggerEvent::Delete, timing, Some(old), None)
}

pub(crate) fn after_insert(
    sess: &mut Session,
    tt: Option<&TableTriggers>,
    h: &TableHandle,
    new: &mut Vec<Value>,
) -> Result<()> {
    fire_if(
        sess,
        tt,
        h,
        TriggerEvent::Insert,
        TriggerTiming::After,
        None,
        Some(new),
    )
}

fn run_one(
    sess: &mut Session,
    t: &Trigger,
    h: &TableHandle,
    old: Option<&[Value]>,
    new: Option<&mut Vec<Value>>,
) -> Result<()> {
    if sess.trigger_tables.len() >= NESTING_MAX {
        return Err(KilnError::new(
            ErrorKind::ER_NOT_SUPPORTED_YET,
            &[&"triggers nested more than 16 deep"],
        ));
    }
    let body = t.body()?;
    // SQL SECURITY DEFINER: the body runs as its definer (CURRENT_USER(), and the
    // privilege checks of its statements), who must still exist (1449) and hold
    // TRIGGER on the table (1142); under the sql_mode the trigger was created with,
    // in its database.
    let (saved, entered) = crate::routine::call::enter(
        sess,
        Some((&t.def.definer_user, &t.def.definer_host)),
        &t.def.sql_mode,
        &t.def.schema,
    );
    sess.trigger_tables
        .push((h.def.schema.clone(), h.def.name.clone()));
    // LAST_INSERT_ID() set by the body's statements is the body's own (MySQL).
    let saved_id = sess.last_insert_id();
    let r = entered
        .and_then(|()| check_trigger_privilege(sess, &h.def.schema, &h.def.name))
        .and_then(|()| {
            let mut rows = crate::routine::exec::Rows {
                table: h,
                old,
                new,
                new_writable: t.def.timing == TriggerTiming::Before,
            };
            crate::routine::exec::run(sess, &body, &mut rows)
        });
    sess.trigger_tables.pop();
    sess.set_last_insert_id(saved_id);
    crate::routine::call::leave(sess, saved);
    r
}

/// The statements a trigger body may hold, and MySQL's rules for NEW and OLD:
/// 1363 for OLD in an INSERT trigger / NEW in a DELETE trigger, 1362 for SET OLD.x and
/// SET NEW.x in an AFTER trigger, 1054 for an unknown column.
fn check_body(ct: &CreateTrigger, h: &TableHandle) -> Result<()> {
    crate::routine::check::check(&ct.body, crate::routine::check::Context::Trigger, &[])?;
    let mut err: Option<KilnError> = None;
    let event_text = format!("on {}", ct.event.name());
    let check_ref = |q: &str, col: &str, err: &mut Option<KilnError>| {
        if err.is_some() {
            return;
        }
        let is_new = q.eq_ignore_ascii_case("NEW");
        if !is_new && !q.eq_ignore_ascii_case("OLD") {
            return;
        }
        let which = if is_new { "NEW" } else { "OLD" };
        if (is_new && ct.event == TriggerEvent::Delete)
            || (!is_new && ct.event == TriggerEvent::Insert)
        {
            *err = Some(KilnError::new(
                ErrorKind::ER_TRG_NO_SUCH_ROW_IN_TRG,
                &[&which, &event_text],
            ));
        } else if h.def.column_index(col).is_none() {
            *err = Some(KilnError::new(
                ErrorKind::ER_BAD_FIELD_ERROR,
                &[&col, &which],
            ));
        }
    };
    let on_expr = |e: &Expr, err: &mut Option<KilnError>| {
        if let Expr::Column {
            qualifier: Some(q),
            name,
        } = e
        {
            check_ref(q, name, err);
        }
    };
    ct.body.stmt.walk(&mut |s| {
        if err.is_some() {
            return;
        }
        for e in s.exprs() {
            crate::routine::subst::visit_expr(e, &mut |x| on_expr(x, &mut err));
        }
        match s {
            RStmt::Sql(stmt) => {
                crate::routine::subst::visit_stmt(stmt, &mut |x| on_expr(x, &mut err));
            }
            RStmt::SelectInto { select, .. } => {
                crate::routine::subst::visit_select(select, &mut |x| on_expr(x, &mut err));
            }
            _ => {}
        }
        let targets: Vec<&Target> = match s {
            RStmt::Set(items) => items.iter().map(|(t, _)| t).collect(),
            RStmt::SelectInto { targets, .. } => targets.iter().collect(),
            _ => Vec::new(),
        };
        for t in targets {
            if err.is_some() {
                return;
            }
            match t {
                Target::Old(c) => {
                    if ct.event == TriggerEvent::Insert {
                        check_ref("OLD", c, &mut err);
                    } else {
                        err = Some(KilnError::new(
                            ErrorKind::ER_TRG_CANT_CHANGE_ROW,
                            &[&"OLD", &""],
                        ));
                    }
                }
                Target::New(c) => {
                    check_ref("NEW", c, &mut err);
                    if err.is_none() && ct.timing == TriggerTiming::After {
                        err = Some(KilnError::new(
                            ErrorKind::ER_TRG_CANT_CHANGE_ROW,
                            &[&"NEW", &"after "],
                        ));
                    }
                }
                _ => {}
            }
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// CREATE TRIGGER.
pub fn create_trigger(sess: &mut Session, ct: &CreateTrigger) -> Result<Outcome> {
    // The trigger lives in its table's database; a qualified trigger name must
    // agree with a qualified table name.
    let schema = match (&ct.name.schema, &ct.table.schema) {
        (Some(a), Some(b)) if a != b => return Err(ErrorKind::ER_TRG_IN_WRONG_SCHEMA.into()),
        (Some(a), _) | (None, Some(a)) => a.clone(),
        (None, None) => sess
            .database
            .clone()
            .ok_or_else(|| KilnError::from(ErrorKind::ER_NO_DB_ERROR))?,
    };
    if ct.name.name.is_empty() || ct.name.name.len() > 64 || ct.name.name.ends_with(' ') {
        return Err(KilnError::new(
            ErrorKind::ER_WRONG_TABLE_NAME,
            &[&ct.name.name],
        ));
    }
    check_trigger_privilege(sess, &schema, &ct.table.name)?;
    let table = TableName {
        schema: Some(schema.clone()),
        name: ct.table.name.clone(),
    };
    if sess.temp_table_of(&table).is_some() {
        return Err(KilnError::new(
            ErrorKind::ER_TRG_ON_VIEW_OR_TEMP_TABLE,
            &[&ct.table.name],
        ));
    }
    let cat = sess.catalog()?;
    if cat.database(&schema).is_none() {
        return Err(KilnError::new(ErrorKind::ER_BAD_DB_ERROR, &[&schema]));
    }
    if cat.view(&schema, &ct.table.name).is_some() {
        return Err(KilnError::new(
            ErrorKind::ER_WRONG_OBJECT,
            &[&schema, &ct.table.name, &"BASE TABLE"],
        ));
    }
    let Some(h) = cat.table(&schema, &ct.table.name).cloned() else {
        return Err(KilnError::new(
            ErrorKind::ER_NO_SUCH_TABLE,
            &[&schema, &ct.table.name],
        ));
    };
    if cat.trigger(&schema, &ct.name.name).is_some() {
        if ct.if_not_exists {
            let e: KilnError = ErrorKind::ER_TRG_ALREADY_EXISTS.into();
            sess.warn(Level::Note, e.code, e.message);
            return Ok(Outcome::ok());
        }
        return Err(ErrorKind::ER_TRG_ALREADY_EXISTS.into());
    }
    check_body(ct, &h)?;
    let definer = super::routine::definer_of(sess, ct.definer.as_ref())?;
    let var = |sess: &Session, n: &str, d: &str| sess.vars.display(n).unwrap_or_else(|| d.into());
    let db_collation = cat
        .database(&schema)
        .map(|d| d.collation.clone())
        .unwrap_or_else(|| "utf8mb4_0900_ai_ci".into());
    let def = TriggerDef {
        schema: schema.clone(),
        name: ct.name.name.clone(),
        table: h.def.name.clone(),
        timing: ct.timing,
        event: ct.event,
        order: 0,
        body_text: ct.body_text.clone(),
        definer_user: definer.0,
        definer_host: definer.1,
        sql_mode: var(sess, "sql_mode", ""),
        charset_client: var(sess, "character_set_client", "utf8mb4"),
        collation_connection: var(sess, "collation_connection", "utf8mb4_0900_ai_ci"),
        db_collation,
        created_micros: kiln_common::time::unix_micros_now(),
    };
    if !sess
        .dict()?
        .create_trigger(def, ct.order.clone(), ct.if_not_exists)?
    {
        let e: KilnError = ErrorKind::ER_TRG_ALREADY_EXISTS.into();
        sess.warn(Level::Note, e.code, e.message);
    }
    Ok(Outcome::ok())
}

/// 1142 unless the session holds TRIGGER on the table.
fn check_trigger_privilege(sess: &mut Session, schema: &str, table: &str) -> Result<()> {
    sess.refresh_privileges();
    let p = sess.privileges();
    if p.table_has(schema, table, crate::privilege::TRIGGER) {
        return Ok(());
    }
    Err(crate::privcheck::table_denied(
        sess,
        crate::privilege::TRIGGER,
        table,
    ))
}

/// DROP TRIGGER.
pub fn drop_trigger(sess: &mut Session, name: &TableName, if_exists: bool) -> Result<Outcome> {
    let schema = super::ddl::schema_of(sess, name)?;
    let cat = sess.catalog()?;
    if cat.database(&schema).is_none() && !if_exists {
        return Err(KilnError::new(ErrorKind::ER_BAD_DB_ERROR, &[&schema]));
    }
    let Some(t) = cat.trigger(&schema, &name.name).cloned() else {
        if if_exists {
            let e: KilnError = ErrorKind::ER_TRG_DOES_NOT_EXIST.into();
            sess.warn(Level::Note, e.code, e.message);
            return Ok(Outcome::ok());
        }
        return Err(ErrorKind::ER_TRG_DOES_NOT_EXIST.into());
    };
    check_trigger_privilege(sess, &schema, &t.def.table)?;
    if !sess.dict()?.drop_trigger(&schema, &t.def.name)? && !if_exists {
        return Err(ErrorKind::ER_TRG_DOES_NOT_EXIST.into());
    }
    Ok(Outcome::ok())
}

fn s(v: impl Into<String>) -> Value {
    Value::Str(v.into())
}

/// MySQL 8.0's CREATED: a TIMESTAMP(2) in the session's view.
fn created(t: &TriggerDef) -> Value {
    let c = kiln_common::time::CivilTime::from_unix_micros(t.created_micros);
    let mut text = c.datetime_string();
    text.push_str(&format!(
        ".{:02}",
        (t.created_micros.rem_euclid(1_000_000)) / 10_000
    ));
    s(text)
}

/// SHOW CREATE TRIGGER's statement, MySQL 8.0's way (names quoted, the body as
/// written).
pub fn create_statement(t: &TriggerDef) -> String {
    let q = |s: &str| format!("`{}`", s.replace('`', "``"));
    format!(
        "CREATE DEFINER={}@{} TRIGGER {} {} {} ON {} FOR EACH ROW {}",
        q(&t.definer_user),
        q(&t.definer_host),
        q(&t.name),
        t.timing.name(),
        t.event.name(),
        q(&t.table),
        t.body_text
    )
}

/// SHOW TRIGGERS [FROM db]: the triggers of tables the session may see.
pub fn show_triggers(sess: &mut Session, db: Option<&String>) -> Result<super::show::Table> {
    let schema = match (db, &sess.database) {
        (Some(d), _) | (None, Some(d)) => d.clone(),
        (None, None) => return Err(ErrorKind::ER_NO_DB_ERROR.into()),
    };
    let cat = sess.catalog()?;
    if cat.database(&schema).is_none() {
        return Err(KilnError::new(ErrorKind::ER_BAD_DB_ERROR, &[&schema]));
    }
    let p = sess.privileges();
    let rows = cat
        .triggers_of(&schema)
        .into_iter()
        .filter(|t| p.table_has(&schema, &t.def.table, crate::privilege::TRIGGER))
        .map(|t| {
            let d = &t.def;
            vec![
                s(d.name.clone()),
                s(d.event.name()),
                s(d.table.clone()),
                s(d.body_text.clone()),
                s(d.timing.name()),
                created(d),
                s(d.sql_mode.clone()),
                s(d.definer()),
                s(d.charset_client.clone()),
                s(d.collation_connection.clone()),
                s(d.db_collation.clone()),
            ]
        })
        .collect();
    let cols = super::show::text_columns(&[
        ("Trigger", 64),
        ("Event", 6),
        ("Table", 64),
        ("Statement", 1024),
        ("Timing", 6),
        ("Created", 22),
        ("sql_mode", 512),
        ("Definer", 288),
        ("character_set_client", 32),
        ("collation_connection", 64),
        ("Database Collation", 64),
    ]);
    Ok((cols, rows))
}

/// SHOW CREATE TRIGGER.
pub fn show_create_trigger(sess: &mut Session, name: &TableName) -> Result<super::show::Table> {
    let schema = super::ddl::schema_of(sess, name)?;
    let cat = sess.catalog()?;
    let Some(t) = cat.trigger(&schema, &name.name).cloned() else {
        return Err(ErrorKind::ER_TRG_DOES_NOT_EXIST.into());
    };
    check_trigger_privilege(sess, &schema, &t.def.table)?;
    let d = &t.def;
    let cols = super::show::text_columns(&[
        ("Trigger", 64),
        ("sql_mode", 512),
        ("SQL Original Statement", 1024),
        ("character_set_client", 32),
        ("collation_connection", 64),
        ("Database Collation", 64),
        ("Created", 22),
    ]);
    Ok((
        cols,
        vec![vec![
            s(d.name.clone()),
            s(d.sql_mode.clone()),
            s(create_statement(d)),
            s(d.charset_client.clone()),
            s(d.collation_connection.clone()),
            s(d.db_collation.clone()),
            created(d),
        ]],
    ))
}

/// information_schema.TRIGGERS: MySQL 8.0's columns, rows the session may see.
pub fn infoschema_rows(sess: &mut Session) -> Result<(Vec<&'static str>, Vec<Vec<Value>>)> {
    let cat = sess.catalog()?;
    let p = sess.privileges();
    let mut rows = Vec::new();
    for schema in cat.trigger_schemas() {
        for t in cat.triggers_of(&schema) {
            let d = &t.def;
            if !p.table_has(&schema, &d.table, crate::privilege::TRIGGER) {
                continue;
            }
            rows.push(vec![
                s("def"),
                s(d.schema.clone()),
                s(d.name.clone()),
                s(d.event.name()),
                s("def"),
                s(d.schema.clone()),
                s(d.table.clone()),
                Value::UInt(d.order as u64),
                Value::Null,
                s(d.body_text.clone()),
                s("ROW"),
                s(d.timing.name()),
                Value::Null,
                Value::Null,
                s("OLD"),
                s("NEW"),
                created(d),
                s(d.sql_mode.clone()),
                s(d.definer()),
                s(d.charset_client.clone()),
                s(d.collation_connection.clone()),
                s(d.db_collation.clone()),
            ]);
        }
    }
    Ok((
        vec![
            "TRIGGER_CATALOG",
            "TRIGGER_SCHEMA",
            "TRIGGER_NAME",
            "EVENT_MANIPULATION",
            "EVENT_OBJECT_CATALOG",
            "EVENT_OBJECT_SCHEMA",
            "EVENT_OBJECT_TABLE",
            "ACTION_ORDER",
            "ACTION_CONDITION",
            "ACTION_STATEMENT",
            "ACTION_ORIENTATION",
            "ACTION_TIMING",
            "ACTION_REFERENCE_OLD_TABLE",
            "ACTION_REFERENCE_NEW_TABLE",
            "ACTION_REFERENCE_OLD_ROW",
            "ACTION_REFERENCE_NEW_ROW",
            "CREATED",
            "SQL_MODE",
            "DEFINER",
            "CHARACTER_SET_CLIENT",
            "COLLATION_CONNECTION",
            "DATABASE_COLLATION",
        ],
        rows,
    ))
}
