//! CREATE / ALTER / DROP PROCEDURE and FUNCTION: checks, then dict/routine.rs (the
//! routines' introspection is exec/routine_show.rs, running them routine/call.rs).
//!
//! Privileges (MySQL's): CREATE ROUTINE on the database to create (1044); ALTER
//! ROUTINE on it to alter or drop (1370). A DEFINER naming another account needs
//! SUPER (1227). With automatic_sp_privileges ON (the default) the creating account
//! may execute, alter and drop its routine without those privileges, as MySQL's
//! automatic routine-level grants allow (kiln keeps no routine-level grants: the
//! creator is recorded with the routine and goes with it).

use kiln_common::{ErrorKind, KilnError, Result};

use crate::ast::*;
use crate::dict::RoutineDef;
use crate::eval::{Env, Level};
use crate::result::Outcome;
use crate::routine::check::{Context, check};
use crate::routine::{CreateRoutine, RoutineKind};
use crate::session::Session;

/// Longest routine name (MySQL's NAME_CHAR_LEN).
const NAME_CHARS_MAX: usize = 64;

fn check_name(name: &str) -> Result<()> {
    if name.is_empty() || name.ends_with(' ') {
        return Err(KilnError::new(ErrorKind::ER_SP_WRONG_NAME, &[&name]));
    }
    if name.chars().count() > NAME_CHARS_MAX {
        return Err(KilnError::new(ErrorKind::ER_TOO_LONG_IDENT, &[&name]));
    }
    Ok(())
}

/// A function's RETURNS type as SHOW CREATE FUNCTION shows it: MySQL 8.0's
/// lower-case type, with the character set of a character type (and its collation
/// when not the character set's default).
fn returns_text(ty: &crate::types::SqlType) -> String {
    let mut t = ty.column_type();
    if let Some(co) = ty.collation()
        && !co.is_empty()
        && co != "binary"
    {
        let cs = co.split('_').next().unwrap_or(co);
        t.push_str(&format!(" CHARSET {cs}"));
        let default = crate::charset::CHARSETS
            .iter()
            .find(|c| c.name == cs)
            .map(|c| c.default_collation);
        if default != Some(co) {
            t.push_str(&format!(" COLLATE {co}"));
        }
    }
    t
}

/// (definer user, definer host): DEFINER as written (another account needs SUPER:
/// 1227), else the session's account.
pub(crate) fn definer_of(sess: &mut Session, d: Option<&UserSpec>) -> Result<(String, String)> {
    match d {
        None => Ok(sess.account.clone()),
        Some(u) if u.host == "%current%" => Ok(sess.account.clone()),
        Some(u) => {
            let me = u.user == sess.account.0 && u.host == sess.account.1;
            if !me && !sess.privileges().global_has(crate::privilege::SUPER) {
                return Err(KilnError::new(
                    ErrorKind::ER_SPECIFIC_ACCESS_DENIED_ERROR,
                    &[&"SUPER or SET_USER_ID"],
                ));
            }
            Ok((u.user.clone(), u.host.clone()))
        }
    }
}

/// CREATE PROCEDURE / FUNCTION.
pub fn create_routine(sess: &mut Session, cr: &CreateRoutine) -> Result<Outcome> {
    let schema = super::ddl::schema_of(sess, &cr.name)?;
    check_name(&cr.name.name)?;
    let p = sess.privileges();
    if p.on_db(&schema) & crate::privilege::CREATE_ROUTINE == 0 {
        return Err(crate::privcheck::db_denied(sess, &schema));
    }
    let cat = sess.catalog()?;
    let Some(db) = cat.database(&schema).cloned() else {
        return Err(KilnError::new(ErrorKind::ER_BAD_DB_ERROR, &[&schema]));
    };
    let exists = || {
        KilnError::new(
            ErrorKind::ER_SP_ALREADY_EXISTS,
            &[&cr.kind.name(), &cr.name.name],
        )
    };
    if cat.routine(&schema, cr.kind, &cr.name.name).is_some() {
        if cr.if_not_exists {
            let e = exists();
            sess.warn(Level::Note, e.code, e.message);
            return Ok(Outcome::ok());
        }
        return Err(exists());
    }
    let ctx = match cr.kind {
        RoutineKind::Procedure => Context::Procedure,
        RoutineKind::Function => Context::Function,
    };
    check(&cr.body, ctx, &cr.params).map_err(|e| {
        if e.is(ErrorKind::ER_SP_NORETURN) {
            KilnError::new(
                ErrorKind::ER_SP_NORETURN,
                &[&format!("{schema}.{}", cr.name.name)],
            )
        } else {
            e
        }
    })?;
    // The types must be valid (character sets, collations) as declared.
    let dbcs = (db.charset.as_str(), db.collation.as_str());
    for prm in &cr.params {
        let mut ty = prm.ty.clone();
        crate::dict::routine::settle(
            &mut ty,
            prm.charset.as_deref(),
            prm.collation.as_deref(),
            dbcs,
        )?;
    }
    let returns_text = match &cr.returns {
        Some((ty, cs, co)) => {
            let mut ty = ty.clone();
            crate::dict::routine::settle(&mut ty, cs.as_deref(), co.as_deref(), dbcs)?;
            returns_text(&ty)
        }
        None => String::new(),
    };
    let definer = definer_of(sess, cr.definer.as_ref())?;
    let automatic = sess
        .sysvar(VarScope::Global, "automatic_sp_privileges")
        .ok()
        .and_then(|v| v.to_i64())
        .is_none_or(|v| v != 0);
    let var = |sess: &Session, n: &str, d: &str| sess.vars.display(n).unwrap_or_else(|| d.into());
    let now = kiln_common::time::unix_micros_now();
    let def = RoutineDef {
        schema: schema.clone(),
        name: cr.name.name.clone(),
        kind: cr.kind,
        params_text: cr.params_text.clone(),
        returns_text,
        body_text: cr.body_text.clone(),
        definer_user: definer.0,
        definer_host: definer.1,
        creator: automatic.then(|| sess.account.clone()),
        deterministic: cr.chars.deterministic.unwrap_or(false),
        access: cr.chars.access.unwrap_or_default(),
        invoker: cr.chars.invoker.unwrap_or(false),
        comment: cr.chars.comment.clone().unwrap_or_default(),
        sql_mode: var(sess, "sql_mode", ""),
        charset_client: var(sess, "character_set_client", "utf8mb4"),
        collation_connection: var(sess, "collation_connection", "utf8mb4_0900_ai_ci"),
        db_collation: db.collation.clone(),
        created_micros: now,
        modified_micros: now,
    };
    if !sess.dict()?.create_routine(def, cr.if_not_exists)? {
        let e = exists();
        sess.warn(Level::Note, e.code, e.message);
    }
    Ok(Outcome::ok())
}

/// The routine a DROP / ALTER names, with ALTER ROUTINE checked (1370); None when it
/// does not exist.
fn altered(
    sess: &mut Session,
    kind: RoutineKind,
    name: &TableName,
) -> Result<Option<(String, std::sync::Arc<crate::dict::Routine>)>> {
    let schema = super::ddl::schema_of(sess, name)?;
    let cat = sess.catalog()?;
    let Some(r) = cat.routine(&schema, kind, &name.name).cloned() else {
        return Ok(None);
    };
    crate::routine::call::check_routine_privilege(
        sess,
        &r,
        crate::privilege::ALTER_ROUTINE,
        "alter routine",
    )?;
    Ok(Some((schema, r)))
}

fn does_not_exist(sess: &Session, kind: RoutineKind, name: &TableName) -> KilnError {
    let schema = name
        .schema
        .clone()
        .or_else(|| sess.database.clone())
        .unwrap_or_default();
    KilnError::new(
        ErrorKind::ER_SP_DOES_NOT_EXIST,
        &[&kind.name(), &format!("{schema}.{}", name.name)],
    )
}

/// DROP PROCEDURE / FUNCTION.
pub fn drop_routine(
    sess: &mut Session,
    kind: RoutineKind,
    name: &TableName,
    if_exists: bool,
) -> Result<Outcome> {
    let Some((schema, r)) = altered(sess, kind, name)? else {
        let e = does_not_exist(sess, kind, name);
        if if_exists {
            sess.warn(Level::Note, e.code, e.message);
            return Ok(Outcome::ok());
        }
        return Err(e);
    };
    if !sess.dict()?.drop_routine(&schema, kind, &r.def.name)? && !if_exists {
        return Err(does_not_exist(sess, kind, name));
    }
    Ok(Outcome::ok())
}

/// ALTER PROCEDURE / FUNCTION: the characteristics written change, LAST_ALTERED too.
pub fn alter_routine(
    sess: &mut Session,
    kind: RoutineKind,
    name: &TableName,
    chars: &crate::routine::Characteristics,
) -> Result<Outcome> {
    let Some((schema, r)) = altered(sess, kind, name)? else {
        return Err(does_not_exist(sess, kind, name));
    };
    let now = kiln_common::time::unix_micros_now();
    let found = sess
        .dict()?
        .alter_routine(&schema, kind, &r.def.name, |d| {
            if let Some(c) = &chars.comment {
                d.comment = c.clone();
            }
            if let Some(x) = chars.deterministic {
                d.deterministic = x;
            }
            if let Some(a) = chars.access {
                d.access = a;
            }
            if let Some(i) = chars.invoker {
                d.invoker = i;
            }
            d.modified_micros = now;
        })?;
    if !found {
        return Err(does_not_exist(sess, kind, name));
    }
    Ok(Outcome::ok())
}
