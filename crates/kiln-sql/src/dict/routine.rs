//! Stored procedures and functions in the data dictionary: the record (`RoutineDef`),
//! its encoding, the catalog's map, and the DDL that writes them (CREATE / ALTER /
//! DROP PROCEDURE | FUNCTION, and the routines' part of DROP DATABASE).
//!
//! A routine is a record `'R' 0x00 schema 0x00 kind 0x00 lower(name) → RoutineDef`
//! (kind `P` or `F`) in the dictionary tree, written in the DDL transaction of the
//! statement that changes it, so routines are created, altered and dropped (with
//! their database too) atomically and crash-safely like tables. Names are
//! case-insensitive per database and kind, as in MySQL.
//!
//! The record keeps the parameter list, the RETURNS type and the body as text; the
//! routine is parsed from them (under its sql_mode) at its first use after a catalog
//! change and the parse is cached (`Routine::parsed`).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use kiln_common::{ErrorKind, KilnError, Result};

use super::codec::{Reader, Writer};
use super::{Catalog, Dictionary, storage_error};
use crate::routine::{DataAccess, Param, RoutineKind};
use crate::types::SqlType;

/// Routines per server (bounds the catalog).
pub const ROUTINES_MAX: usize = 1 << 16;

#[derive(Debug, Clone, PartialEq)]
pub struct RoutineDef {
    pub schema: String,
    /// As written at CREATE.
    pub name: String,
    pub kind: RoutineKind,
    /// The parameter list as written.
    pub params_text: String,
    /// A function's return type as SHOW CREATE shows it (empty for procedures).
    pub returns_text: String,
    pub body_text: String,
    pub definer_user: String,
    pub definer_host: String,
    /// The account that created it when automatic_sp_privileges was ON: it holds
    /// EXECUTE and ALTER ROUTINE on the routine (MySQL's automatic grants).
    pub creator: Option<(String, String)>,
    pub deterministic: bool,
    pub access: DataAccess,
    /// SQL SECURITY INVOKER (else DEFINER).
    pub invoker: bool,
    pub comment: String,
    /// The sql_mode at CREATE (the body runs under it).
    pub sql_mode: String,
    pub charset_client: String,
    pub collation_connection: String,
    pub db_collation: String,
    /// Microseconds since the Unix epoch.
    pub created_micros: i64,
    pub modified_micros: i64,
}

impl RoutineDef {
    /// `user@host`, as information_schema.ROUTINES.DEFINER shows it.
    pub fn definer(&self) -> String {
        format!("{}@{}", self.definer_user, self.definer_host)
    }

    /// `db.name`, as errors name a routine.
    pub fn qualified(&self) -> String {
        format!("{}.{}", self.schema, self.name)
    }
}

/// A routine as its body runs: the parameters with settled types, the return type,
/// the body, and whether it can send result sets (a procedure with SELECT, SHOW or
/// CALL statements: CLIENT_MULTI_RESULTS is needed to CALL it, 1312).
#[derive(Debug)]
pub struct ParsedRoutine {
    pub params: Vec<Param>,
    pub returns: Option<SqlType>,
    pub body: crate::routine::Body,
    pub multi_results: bool,
}

/// A routine of the catalog: its record and its parse (made once).
#[derive(Debug)]
pub struct Routine {
    pub def: RoutineDef,
    parsed: OnceLock<std::result::Result<Arc<ParsedRoutine>, KilnError>>,
}

impl Routine {
    pub(super) fn new(def: RoutineDef) -> Arc<Routine> {
        Arc::new(Routine {
            def,
            parsed: OnceLock::new(),
        })
    }

    /// The parsed routine, parameter and return types settled with the database's
    /// default character set (what MySQL gives a parameter without one).
    pub fn parsed(&self, db: (&str, &str)) -> Result<Arc<ParsedRoutine>> {
        self.parsed
            .get_or_init(|| {
                let d = &self.def;
                let mode = crate::lexer::LexMode::from_sql_mode(&d.sql_mode);
                let cr = crate::parse::parse_routine(
                    d.kind,
                    &d.params_text,
                    &d.returns_text,
                    &d.body_text,
                    mode,
                )?;
                let mut params = cr.params;
                for p in &mut params {
                    settle(&mut p.ty, p.charset.as_deref(), p.collation.as_deref(), db)?;
                }
                let returns = match cr.returns {
                    Some((mut ty, cs, co)) => {
                        settle(&mut ty, cs.as_deref(), co.as_deref(), db)?;
                        Some(ty)
                    }
                    None => None,
                };
                let multi_results = crate::routine::check::sends_results(&cr.body);
                Ok(Arc::new(ParsedRoutine {
                    params,
                    returns,
                    body: cr.body,
                    multi_results,
                }))
            })
            .clone()
    }
}

/// Gives a character type its collation: as written, else the database's.
pub fn settle(
    ty: &mut SqlType,
    charset: Option<&str>,
    collation: Option<&str>,
    db: (&str, &str),
) -> Result<()> {
    if ty.collation().is_some() {
        let (_, co) = crate::exec::ddl::resolve_charset(charset, collation, db)?;
        if let Some(c) = ty.collation_mut() {
            *c = co;
        }
    }
    Ok(())
}

/// (schema, kind, lower-case name).
pub type RoutineKey = (String, RoutineKind, String);

const VERSION: u8 = 1;

fn kind_byte(k: RoutineKind) -> u8 {
    match k {
        RoutineKind::Procedure => b'P',
        RoutineKind::Function => b'F',
    }
}

pub(super) fn routine_key(schema: &str, kind: RoutineKind, name: &str) -> Vec<u8> {
    let mut k = b"R\0".to_vec();
    k.extend_from_slice(schema.as_bytes());
    k.push(0);
    k.push(kind_byte(kind));
    k.push(0);
    k.extend_from_slice(name.to_lowercase().as_bytes());
    k
}

fn access_code(a: DataAccess) -> u64 {
    match a {
        DataAccess::ContainsSql => 0,
        DataAccess::NoSql => 1,
        DataAccess::ReadsSqlData => 2,
        DataAccess::ModifiesSqlData => 3,
    }
}

pub fn encode_routine(r: &RoutineDef) -> Vec<u8> {
    let mut w = Writer::default();
    w.buf.push(VERSION);
    w.s(&r.schema);
    w.s(&r.name);
    w.buf.push(kind_byte(r.kind));
    w.s(&r.params_text);
    w.s(&r.returns_text);
    w.s(&r.body_text);
    w.s(&r.definer_user);
    w.s(&r.definer_host);
    w.b(r.creator.is_some());
    if let Some((u, h)) = &r.creator {
        w.s(u);
        w.s(h);
    }
    w.b(r.deterministic);
    w.u(access_code(r.access));
    w.b(r.invoker);
    w.s(&r.comment);
    w.s(&r.sql_mode);
    w.s(&r.charset_client);
    w.s(&r.collation_connection);
    w.s(&r.db_collation);
    w.u(r.created_micros.max(0) as u64);
    w.u(r.modified_micros.max(0) as u64);
    w.buf
}

pub fn decode_routine(b: &[u8]) -> std::result::Result<RoutineDef, String> {
    if b.first() != Some(&VERSION) {
        return Err("unknown routine record version".into());
    }
    let mut r = Reader::new(b);
    r.skip(1);
    let schema = r.s()?;
    let name = r.s()?;
    let kind = match r.byte()? {
        b'P' => RoutineKind::Procedure,
        b'F' => RoutineKind::Function,
        _ => return Err("bad routine kind".into()),
    };
    let time = |v: u64| i64::try_from(v).map_err(|_| "bad routine time".to_string());
    Ok(RoutineDef {
        schema,
        name,
        kind,
        params_text: r.s()?,
        returns_text: r.s()?,
        body_text: r.s()?,
        definer_user: r.s()?,
        definer_host: r.s()?,
        creator: if r.b()? { Some((r.s()?, r.s()?)) } else { None },
        deterministic: r.b()?,
        access: match r.u()? {
            0 => DataAccess::ContainsSql,
            1 => DataAccess::NoSql,
            2 => DataAccess::ReadsSqlData,
            3 => DataAccess::ModifiesSqlData,
            _ => return Err("bad routine data access".into()),
        },
        invoker: r.b()?,
        comment: r.s()?,
        sql_mode: r.s()?,
        charset_client: r.s()?,
        collation_connection: r.s()?,
        db_collation: r.s()?,
        created_micros: time(r.u()?)?,
        modified_micros: time(r.u()?)?,
    })
}

/// (schema, kind, lower-case name) → routine.
pub type RoutineMap = HashMap<RoutineKey, Arc<Routine>>;

fn key_of(schema: &str, kind: RoutineKind, name: &str) -> RoutineKey {
    (schema.to_string(), kind, name.to_lowercase())
}

impl Catalog {
    /// Routine `name` (any case) of `kind` in database `schema`.
    pub fn routine(&self, schema: &str, kind: RoutineKind, name: &str) -> Option<&Arc<Routine>> {
        self.routines.get(&key_of(schema, kind, name))
    }

    /// Every routine, by schema, kind and name (SHOW ... STATUS, information_schema).
    pub fn routines_sorted(&self) -> Vec<&Arc<Routine>> {
        let mut v: Vec<&Arc<Routine>> = self.routines.values().collect();
        v.sort_by(|a, b| {
            (&a.def.schema, a.def.kind, a.def.name.to_lowercase()).cmp(&(
                &b.def.schema,
                b.def.kind,
                b.def.name.to_lowercase(),
            ))
        });
        v
    }

    pub(super) fn load_routine(&mut self, def: RoutineDef) {
        if def.kind == RoutineKind::Function {
            crate::routine::names::note(&def.name);
        }
        self.routines
            .insert(key_of(&def.schema, def.kind, &def.name), Routine::new(def));
    }
}

impl Dictionary {
    /// CREATE PROCEDURE / FUNCTION: false when it exists and `if_not_exists`.
    pub fn create_routine(&self, def: RoutineDef, if_not_exists: bool) -> Result<bool> {
        self.ddl(|trx, cat| {
            if !cat.databases.contains_key(&def.schema) {
                return Err(KilnError::new(ErrorKind::ER_BAD_DB_ERROR, &[&def.schema]));
            }
            if cat.routine(&def.schema, def.kind, &def.name).is_some() {
                if if_not_exists {
                    return Ok(false);
                }
                return Err(KilnError::new(
                    ErrorKind::ER_SP_ALREADY_EXISTS,
                    &[&def.kind.name(), &def.name],
                ));
            }
            if cat.routines.len() >= ROUTINES_MAX {
                return Err(KilnError::new(
                    ErrorKind::ER_NOT_SUPPORTED_YET,
                    &[&"more stored routines"],
                ));
            }
            trx.insert(
                &self.tree,
                &routine_key(&def.schema, def.kind, &def.name),
                &encode_routine(&def),
            )
            .map_err(storage_error)?;
            cat.load_routine(def);
            Ok(true)
        })
    }

    /// ALTER PROCEDURE / FUNCTION: `change` edits the record (false: no such routine).
    pub fn alter_routine(
        &self,
        schema: &str,
        kind: RoutineKind,
        name: &str,
        change: impl FnOnce(&mut RoutineDef),
    ) -> Result<bool> {
        self.ddl(|trx, cat| {
            let Some(r) = cat.routine(schema, kind, name).cloned() else {
                return Ok(false);
            };
            let mut def = r.def.clone();
            change(&mut def);
            trx.update(
                &self.tree,
                &routine_key(schema, kind, &def.name),
                &encode_routine(&def),
            )
            .map_err(storage_error)?;
            cat.load_routine(def);
            Ok(true)
        })
    }

    /// DROP PROCEDURE / FUNCTION: false when it does not exist.
    pub fn drop_routine(&self, schema: &str, kind: RoutineKind, name: &str) -> Result<bool> {
        self.ddl(|trx, cat| {
            if cat.routines.remove(&key_of(schema, kind, name)).is_none() {
                return Ok(false);
            }
            trx.delete(&self.tree, &routine_key(schema, kind, name))
                .map_err(storage_error)?;
            Ok(true)
        })
    }

    /// DROP DATABASE: its routines go with it.
    pub(super) fn drop_schema_routines(
        &self,
        trx: &mut kiln_storage::trx::Trx,
        cat: &mut Catalog,
        schema: &str,
    ) -> Result<()> {
        let keys: Vec<RoutineKey> = cat
            .routines
            .keys()
            .filter(|(s, _, _)| s == schema)
            .cloned()
            .collect();
        for k in keys {
            trx.delete(&self.tree, &routine_key(&k.0, k.1, &k.2))
                .map_err(storage_error)?;
            cat.routines.remove(&k);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routine_record_round_trips_and_rejects_damage() {
        let r = RoutineDef {
            schema: "db".into(),
            name: "MyProc".into(),
            kind: RoutineKind::Procedure,
            params_text: "IN a INT, OUT b TEXT".into(),
            returns_text: String::new(),
            body_text: "BEGIN SET b = a; END".into(),
            definer_user: "root".into(),
            definer_host: "localhost".into(),
            creator: Some(("u".into(), "%".into())),
            deterministic: true,
            access: DataAccess::ReadsSqlData,
            invoker: true,
            comment: "c".into(),
            sql_mode: "STRICT_TRANS_TABLES".into(),
            charset_client: "utf8mb4".into(),
            collation_connection: "utf8mb4_0900_ai_ci".into(),
            db_collation: "utf8mb4_0900_ai_ci".into(),
            created_micros: 1_700_000_000_000_000,
            modified_micros: 1_700_000_000_000_001,
        };
        let b = encode_routine(&r);
        assert_eq!(decode_routine(&b).unwrap(), r);
        for cut in 0..b.len() {
            assert!(decode_routine(&b[..cut]).is_err());
        }
        assert_eq!(
            routine_key("db", RoutineKind::Procedure, "MyProc"),
            b"R\0db\0P\0myproc".to_vec()
        );
    }
}
