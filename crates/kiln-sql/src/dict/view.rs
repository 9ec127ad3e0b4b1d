//! Views in the data dictionary: the definition record (`ViewDef`), its byte
//! encoding, and the DDL that writes it (CREATE [OR REPLACE] / ALTER / DROP VIEW).
//!
//! A view is a record `'V' 0x00 schema 0x00 name → ViewDef` in the dictionary tree,
//! written in the same kind of transaction as a table's record, so CREATE and DROP
//! VIEW are crash-safe the same way (the commit is the DDL; the log is synced before
//! the statement returns). A view has no tablespace. Views and tables share one
//! namespace per database: the catalog refuses a view named like a table and the
//! reverse (1050).
//!
//! The definition is kept as the SELECT's text as the client wrote it (plus the
//! database unqualified names resolve in, `body_db`); every statement that uses the
//! view parses and binds it again (exec/view.rs), so a view sees the current columns
//! of its tables, and a table dropped under it makes the view invalid (1356) rather
//! than the dictionary inconsistent.

use std::sync::Arc;

use kiln_common::{ErrorKind, KilnError, Result};

use super::codec::{Reader, Writer};
use super::{Catalog, Dictionary, storage_error};

/// `WITH [CASCADED | LOCAL] CHECK OPTION`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckOption {
    None,
    Cascaded,
    Local,
}

impl CheckOption {
    /// information_schema.VIEWS.CHECK_OPTION.
    pub fn name(self) -> &'static str {
        match self {
            CheckOption::None => "NONE",
            CheckOption::Cascaded => "CASCADED",
            CheckOption::Local => "LOCAL",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ViewDef {
    pub schema: String,
    pub name: String,
    /// The column list written after the name (empty: the SELECT's own names).
    pub columns: Vec<String>,
    /// The SELECT as written (from SELECT to its end, WITH CHECK OPTION excluded).
    pub select_text: String,
    /// The database unqualified table names in `select_text` resolve in (the default
    /// database at CREATE time, as MySQL does).
    pub body_db: String,
    /// UNDEFINED, MERGE or TEMPTABLE.
    pub algorithm: String,
    pub definer_user: String,
    pub definer_host: String,
    /// SQL SECURITY INVOKER (else DEFINER).
    pub invoker: bool,
    pub check: CheckOption,
    /// MERGE-able over one base table: INSERT/UPDATE/DELETE may go through it.
    pub updatable: bool,
    pub charset_client: String,
    pub collation_connection: String,
    /// How `select_text` is read: the sql_mode flags (ANSI_QUOTES, PIPES_AS_CONCAT,
    /// NO_BACKSLASH_ESCAPES, REAL_AS_FLOAT) of the session that created the view, so
    /// the view means the same under any later sql_mode.
    pub lex_mode: crate::lexer::LexMode,
}

impl ViewDef {
    /// `DEFINER` as information_schema shows it: user@host, unquoted.
    pub fn definer(&self) -> String {
        format!("{}@{}", self.definer_user, self.definer_host)
    }
}

/// Record versions: 1 had no lex-mode byte (read as the default mode); 2 appends it.
const VERSION: u8 = 2;

pub(super) fn view_key(schema: &str, name: &str) -> Vec<u8> {
    let mut k = b"V\0".to_vec();
    k.extend_from_slice(schema.as_bytes());
    k.push(0);
    k.extend_from_slice(name.as_bytes());
    k
}

pub fn encode_view(v: &ViewDef) -> Vec<u8> {
    let mut w = Writer::default();
    w.buf.push(VERSION);
    w.s(&v.schema);
    w.s(&v.name);
    w.strs(&v.columns);
    w.s(&v.select_text);
    w.s(&v.body_db);
    w.s(&v.algorithm);
    w.s(&v.definer_user);
    w.s(&v.definer_host);
    w.b(v.invoker);
    w.u(match v.check {
        CheckOption::None => 0,
        CheckOption::Cascaded => 1,
        CheckOption::Local => 2,
    });
    w.b(v.updatable);
    w.s(&v.charset_client);
    w.s(&v.collation_connection);
    w.u(v.lex_mode.bits() as u64);
    w.buf
}

pub fn decode_view(b: &[u8]) -> std::result::Result<ViewDef, String> {
    let version = b.first().copied();
    if !matches!(version, Some(1 | VERSION)) {
        return Err("unknown view record version".into());
    }
    let mut r = Reader::new(b);
    r.skip(1);
    Ok(ViewDef {
        schema: r.s()?,
        name: r.s()?,
        columns: r.strs()?,
        select_text: r.s()?,
        body_db: r.s()?,
        algorithm: r.s()?,
        definer_user: r.s()?,
        definer_host: r.s()?,
        invoker: r.b()?,
        check: match r.u()? {
            0 => CheckOption::None,
            1 => CheckOption::Cascaded,
            2 => CheckOption::Local,
            _ => return Err("bad check option".into()),
        },
        updatable: r.b()?,
        charset_client: r.s()?,
        collation_connection: r.s()?,
        lex_mode: if version == Some(1) {
            crate::lexer::LexMode::default()
        } else {
            match r.u()? {
                b @ 0..32 => crate::lexer::LexMode::from_bits(b as u8),
                _ => return Err("bad lex mode".into()),
            }
        },
    })
}

impl Catalog {
    pub fn view(&self, schema: &str, name: &str) -> Option<&Arc<ViewDef>> {
        self.views.get(&(schema.to_string(), name.to_string()))
    }

    /// Views of a database, sorted by name.
    pub fn views_of(&self, schema: &str) -> Vec<&Arc<ViewDef>> {
        let mut v: Vec<_> = self
            .views
            .iter()
            .filter(|((s, _), _)| s == schema)
            .map(|(_, v)| v)
            .collect();
        v.sort_by(|a, b| a.name.cmp(&b.name));
        v
    }
}

impl Dictionary {
    /// CREATE VIEW (`replace`: OR REPLACE, or ALTER VIEW with `must_exist`).
    pub fn create_view(&self, def: ViewDef, replace: bool, must_exist: bool) -> Result<()> {
        self.ddl(|trx, cat| {
            if !cat.databases.contains_key(&def.schema) {
                return Err(KilnError::new(ErrorKind::ER_BAD_DB_ERROR, &[&def.schema]));
            }
            if cat.table(&def.schema, &def.name).is_some() {
                if replace {
                    return Err(KilnError::new(
                        ErrorKind::ER_WRONG_OBJECT,
                        &[&def.schema, &def.name, &"VIEW"],
                    ));
                }
                return Err(KilnError::new(
                    ErrorKind::ER_TABLE_EXISTS_ERROR,
                    &[&def.name],
                ));
            }
            let key = view_key(&def.schema, &def.name);
            let exists = cat.view(&def.schema, &def.name).is_some();
            if exists && !replace {
                return Err(KilnError::new(
                    ErrorKind::ER_TABLE_EXISTS_ERROR,
                    &[&def.name],
                ));
            }
            if !exists && must_exist {
                return Err(KilnError::new(
                    ErrorKind::ER_NO_SUCH_TABLE,
                    &[&def.schema, &def.name],
                ));
            }
            if cat.tables.len() + cat.views.len() >= super::TABLES_MAX {
                return Err(KilnError::new(ErrorKind::ER_RECORD_FILE_FULL, &[&def.name]));
            }
            if exists {
                trx.update(&self.tree, &key, &encode_view(&def))
                    .map_err(storage_error)?;
            } else {
                trx.insert(&self.tree, &key, &encode_view(&def))
                    .map_err(storage_error)?;
            }
            cat.views
                .insert((def.schema.clone(), def.name.clone()), Arc::new(def));
            Ok(())
        })
    }

    /// RENAME TABLE of a view: within its database only (1450), to a free name (1050).
    pub fn rename_view(&self, schema: &str, from: &str, to_schema: &str, to: &str) -> Result<()> {
        self.ddl(|trx, cat| {
            let Some(old) = cat.view(schema, from).cloned() else {
                return Err(KilnError::new(
                    ErrorKind::ER_NO_SUCH_TABLE,
                    &[&schema, &from],
                ));
            };
            if to_schema != schema {
                return Err(KilnError::new(
                    ErrorKind::ER_FORBID_SCHEMA_CHANGE,
                    &[&schema, &to_schema],
                ));
            }
            if cat.table(schema, to).is_some() || cat.view(schema, to).is_some() {
                return Err(KilnError::new(ErrorKind::ER_TABLE_EXISTS_ERROR, &[&to]));
            }
            let mut def = (*old).clone();
            def.name = to.to_string();
            trx.delete(&self.tree, &view_key(schema, from))
                .map_err(storage_error)?;
            trx.insert(&self.tree, &view_key(schema, to), &encode_view(&def))
                .map_err(storage_error)?;
            cat.views.remove(&(schema.to_string(), from.to_string()));
            cat.views
                .insert((schema.to_string(), to.to_string()), Arc::new(def));
            Ok(())
        })
    }

    /// DROP VIEW of several views; every name is checked first (1051 naming all
    /// the missing ones unless `if_exists`, 1347 for a table). Returns the missing.
    pub fn drop_views(&self, names: &[(String, String)], if_exists: bool) -> Result<Vec<String>> {
        self.ddl(|trx, cat| {
            let mut missing = Vec::new();
            for (s, n) in names {
                if cat.view(s, n).is_some() {
                    continue;
                }
                if cat.table(s, n).is_some() {
                    return Err(KilnError::new(ErrorKind::ER_WRONG_OBJECT, &[s, n, &"VIEW"]));
                }
                missing.push(format!("{s}.{n}"));
            }
            if !missing.is_empty() && !if_exists {
                return Err(KilnError::new(
                    ErrorKind::ER_BAD_TABLE_ERROR,
                    &[&missing.join(",")],
                ));
            }
            for (s, n) in names {
                if cat.views.remove(&(s.clone(), n.clone())).is_some() {
                    trx.delete(&self.tree, &view_key(s, n))
                        .map_err(storage_error)?;
                }
            }
            Ok(missing)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_record_round_trips_and_rejects_damage() {
        let v = ViewDef {
            schema: "db".into(),
            name: "v".into(),
            columns: vec!["x".into(), "y".into()],
            select_text: "SELECT a, b FROM t WHERE a > 1".into(),
            body_db: "db".into(),
            algorithm: "UNDEFINED".into(),
            definer_user: "root".into(),
            definer_host: "localhost".into(),
            invoker: false,
            check: CheckOption::Cascaded,
            updatable: true,
            charset_client: "utf8mb4".into(),
            collation_connection: "utf8mb4_0900_ai_ci".into(),
            lex_mode: crate::lexer::LexMode {
                ansi_quotes: true,
                pipes_as_concat: true,
                ..Default::default()
            },
        };
        let b = encode_view(&v);
        assert_eq!(decode_view(&b).unwrap(), v);
        for cut in 0..b.len() {
            assert!(decode_view(&b[..cut]).is_err());
        }
    }
}
