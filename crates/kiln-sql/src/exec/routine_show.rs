//! Stored routines' metadata: SHOW CREATE PROCEDURE | FUNCTION, SHOW PROCEDURE |
//! FUNCTION STATUS, and information_schema.ROUTINES and PARAMETERS, with MySQL 8.0's
//! columns (what mysqldump --routines reads).
//!
//! Who sees what (MySQL's rules, without routine-level grants): a routine is listed
//! for its definer, its creator (automatic_sp_privileges), accounts holding CREATE
//! ROUTINE, ALTER ROUTINE or EXECUTE on its database, and global SELECT; its text
//! (SHOW CREATE's statement, ROUTINE_DEFINITION) only for the definer, the creator
//! and global SELECT, NULL for the others.

use std::sync::Arc;

use kiln_common::{ErrorKind, KilnError, Result};

use crate::ast::TableName;
use crate::dict::{Routine, RoutineDef};
use crate::privilege::{ALTER_ROUTINE, CREATE_ROUTINE, EXECUTE, Privileges, SELECT};
use crate::routine::RoutineKind;
use crate::session::Session;
use crate::types::SqlType;
use crate::value::Value;

fn s(v: impl Into<String>) -> Value {
    Value::Str(v.into())
}

fn own(p: &Privileges, d: &RoutineDef) -> bool {
    (p.user == d.definer_user && p.host == d.definer_host)
        || d.creator
            .as_ref()
            .is_some_and(|(u, h)| *u == p.user && *h == p.host)
        || p.global_has(SELECT)
}

fn sees(p: &Privileges, d: &RoutineDef) -> bool {
    own(p, d) || p.on_db(&d.schema) & (CREATE_ROUTINE | ALTER_ROUTINE | EXECUTE) != 0
}

/// A TIMESTAMP column's text.
fn time(micros: i64) -> Value {
    s(kiln_common::time::CivilTime::from_unix_micros(micros).datetime_string())
}

/// SHOW CREATE's statement, MySQL 8.0's way: the non-default characteristics each on
/// a line of its own (data access, DETERMINISTIC, SQL SECURITY INVOKER, COMMENT),
/// then the body as written.
pub fn create_statement(d: &RoutineDef) -> String {
    let q = |x: &str| format!("`{}`", x.replace('`', "``"));
    let mut out = format!(
        "CREATE DEFINER={}@{} {} {}({})",
        q(&d.definer_user),
        q(&d.definer_host),
        d.kind.name(),
        q(&d.name),
        d.params_text
    );
    if d.kind == RoutineKind::Function {
        out.push_str(" RETURNS ");
        out.push_str(&d.returns_text);
    }
    out.push('\n');
    if d.access != crate::routine::DataAccess::ContainsSql {
        out.push_str(&format!("    {}\n", d.access.name()));
    }
    if d.deterministic {
        out.push_str("    DETERMINISTIC\n");
    }
    if d.invoker {
        out.push_str("    SQL SECURITY INVOKER\n");
    }
    if !d.comment.is_empty() {
        out.push_str(&format!(
            "    COMMENT {}\n",
            super::show::quote_str(&d.comment)
        ));
    }
    out.push_str(&d.body_text);
    out
}

/// SHOW CREATE PROCEDURE | FUNCTION.
pub fn show_create(
    sess: &mut Session,
    kind: RoutineKind,
    name: &TableName,
) -> Result<super::show::Table> {
    let schema = super::ddl::schema_of(sess, name)?;
    let cat = sess.catalog()?;
    let p = sess.privileges();
    let Some(r) = cat
        .routine(&schema, kind, &name.name)
        .filter(|r| sees(&p, &r.def))
    else {
        return Err(KilnError::new(
            ErrorKind::ER_SP_DOES_NOT_EXIST,
            &[&kind.name(), &name.name],
        ));
    };
    let d = &r.def;
    let (title, create) = match kind {
        RoutineKind::Procedure => ("Procedure", "Create Procedure"),
        RoutineKind::Function => ("Function", "Create Function"),
    };
    let cols = super::show::text_columns(&[
        (title, 64),
        ("sql_mode", 512),
        (create, 1024),
        ("character_set_client", 32),
        ("collation_connection", 64),
        ("Database Collation", 64),
    ]);
    Ok((
        cols,
        vec![vec![
            s(d.name.clone()),
            s(d.sql_mode.clone()),
            if own(&p, d) {
                s(create_statement(d))
            } else {
                Value::Null
            },
            s(d.charset_client.clone()),
            s(d.collation_connection.clone()),
            s(d.db_collation.clone()),
        ]],
    ))
}

/// SHOW PROCEDURE | FUNCTION STATUS: every routine of the kind the session sees.
pub fn show_status(sess: &mut Session, kind: RoutineKind) -> Result<super::show::Table> {
    let cat = sess.catalog()?;
    let p = sess.privileges();
    let rows = cat
        .routines_sorted()
        .into_iter()
        .filter(|r| r.def.kind == kind && sees(&p, &r.def))
        .map(|r| {
            let d = &r.def;
            vec![
                s(d.schema.clone()),
                s(d.name.clone()),
                s(kind.name()),
                s(d.definer()),
                time(d.modified_micros),
                time(d.created_micros),
                s(if d.invoker { "INVOKER" } else { "DEFINER" }),
                s(d.comment.clone()),
                s(d.charset_client.clone()),
                s(d.collation_connection.clone()),
                s(d.db_collation.clone()),
            ]
        })
        .collect();
    let cols = super::show::text_columns(&[
        ("Db", 64),
        ("Name", 64),
        ("Type", 9),
        ("Definer", 288),
        ("Modified", 19),
        ("Created", 19),
        ("Security_type", 7),
        ("Comment", 1024),
        ("character_set_client", 32),
        ("collation_connection", 64),
        ("Database Collation", 64),
    ]);
    Ok((cols, rows))
}

/// A routine the session sees, with its parse.
type Visible = (Arc<Routine>, Option<Arc<crate::dict::ParsedRoutine>>);

/// The routines the session sees, with their parses (None if the text no longer
/// parses).
fn visible(sess: &mut Session) -> Result<Vec<Visible>> {
    let cat = sess.catalog()?;
    let p = sess.privileges();
    let mut out = Vec::new();
    for r in cat.routines_sorted() {
        if !sees(&p, &r.def) {
            continue;
        }
        let db = cat
            .database(&r.def.schema)
            .map(|d| (d.charset.clone(), d.collation.clone()))
            .unwrap_or_default();
        out.push((r.clone(), r.parsed((&db.0, &db.1)).ok()));
    }
    Ok(out)
}

/// DATA_TYPE through DTD_IDENTIFIER (9 columns) of a type, as information_schema
/// describes a parameter or return value (a procedure: '' and NULLs).
fn type_columns(ty: Option<&SqlType>) -> Vec<Value> {
    match ty {
        Some(ty) => {
            let mut v = super::infoschema::type_values(ty).to_vec();
            v.push(s(ty.column_type()));
            v
        }
        None => {
            let mut v = vec![s("")];
            v.resize(9, Value::Null);
            v
        }
    }
}

/// Column names: `head`, the type's, then `tail`.
fn with_type_columns(head: &[&'static str], tail: &[&'static str]) -> Vec<&'static str> {
    let mut v = head.to_vec();
    v.extend(super::infoschema::TYPE_COLUMNS);
    v.push("DTD_IDENTIFIER");
    v.extend(tail);
    v
}

/// information_schema.ROUTINES.
pub fn routines_rows(sess: &mut Session) -> Result<(Vec<&'static str>, Vec<Vec<Value>>)> {
    let p = sess.privileges();
    let mut rows = Vec::new();
    for (r, parsed) in visible(sess)? {
        let d = &r.def;
        let mut row = vec![
            s(d.name.clone()),
            s("def"),
            s(d.schema.clone()),
            s(d.name.clone()),
            s(d.kind.name()),
        ];
        let returns = parsed.as_ref().and_then(|x| x.returns.as_ref());
        row.extend(type_columns(returns));
        row.extend([
            s("SQL"),
            if own(&p, d) {
                s(d.body_text.clone())
            } else {
                Value::Null
            },
            Value::Null,
            s("SQL"),
            s("SQL"),
            s(if d.deterministic { "YES" } else { "NO" }),
            s(d.access.name()),
            Value::Null,
            s(if d.invoker { "INVOKER" } else { "DEFINER" }),
            time(d.created_micros),
            time(d.modified_micros),
            s(d.sql_mode.clone()),
            s(d.comment.clone()),
            s(d.definer()),
            s(d.charset_client.clone()),
            s(d.collation_connection.clone()),
            s(d.db_collation.clone()),
        ]);
        rows.push(row);
    }
    Ok((
        with_type_columns(
            &[
                "SPECIFIC_NAME",
                "ROUTINE_CATALOG",
                "ROUTINE_SCHEMA",
                "ROUTINE_NAME",
                "ROUTINE_TYPE",
            ],
            &[
                "ROUTINE_BODY",
                "ROUTINE_DEFINITION",
                "EXTERNAL_NAME",
                "EXTERNAL_LANGUAGE",
                "PARAMETER_STYLE",
                "IS_DETERMINISTIC",
                "SQL_DATA_ACCESS",
                "SQL_PATH",
                "SECURITY_TYPE",
                "CREATED",
                "LAST_ALTERED",
                "SQL_MODE",
                "ROUTINE_COMMENT",
                "DEFINER",
                "CHARACTER_SET_CLIENT",
                "COLLATION_CONNECTION",
                "DATABASE_COLLATION",
            ],
        ),
        rows,
    ))
}

/// information_schema.PARAMETERS: a function's return value is position 0.
pub fn parameters_rows(sess: &mut Session) -> Result<(Vec<&'static str>, Vec<Vec<Value>>)> {
    let mut rows = Vec::new();
    for (r, parsed) in visible(sess)? {
        let Some(parsed) = parsed else {
            continue;
        };
        let d = &r.def;
        let head = || vec![s("def"), s(d.schema.clone()), s(d.name.clone())];
        if let Some(ty) = &parsed.returns {
            let mut row = head();
            row.extend([Value::UInt(0), Value::Null, Value::Null]);
            row.extend(type_columns(Some(ty)));
            row.push(s(d.kind.name()));
            rows.push(row);
        }
        for (i, prm) in parsed.params.iter().enumerate() {
            let mut row = head();
            row.extend([
                Value::UInt(i as u64 + 1),
                s(prm.mode.name()),
                s(prm.name.clone()),
            ]);
            row.extend(type_columns(Some(&prm.ty)));
            row.push(s(d.kind.name()));
            rows.push(row);
        }
    }
    Ok((
        with_type_columns(
            &[
                "SPECIFIC_CATALOG",
                "SPECIFIC_SCHEMA",
                "SPECIFIC_NAME",
                "ORDINAL_POSITION",
                "PARAMETER_MODE",
                "PARAMETER_NAME",
            ],
            &["ROUTINE_TYPE"],
        ),
        rows,
    ))
}
