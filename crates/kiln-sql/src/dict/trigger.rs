//! Triggers in the data dictionary: the record (`TriggerDef`), its encoding, the
//! catalog's per-table lists, and the DDL that writes them (CREATE / DROP TRIGGER,
//! and the triggers' part of DROP TABLE / DROP DATABASE / RENAME TABLE).
//!
//! A trigger is a record `'G' 0x00 schema 0x00 name → TriggerDef` in the dictionary
//! tree, written in the DDL transaction of the statement that changes it, so a
//! trigger is created, dropped with its table and renamed with it atomically and
//! crash-safely like the table record itself. Trigger names are unique per database.
//!
//! In memory, `Catalog::triggers` maps schema → table → `TableTriggers` (the table's
//! triggers sorted by event, timing and ACTION_ORDER). A statement on a table looks
//! its triggers up only when the catalog has any trigger at all (`has_triggers`, one
//! bool), so tables without triggers pay nothing. The parsed body is cached per
//! trigger (`Trigger::body`), parsed from the stored text at first use.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use kiln_common::{ErrorKind, KilnError, Result};

use super::codec::{Reader, Writer};
use super::{Catalog, Dictionary, storage_error};
use crate::ast::{TriggerEvent, TriggerTiming};

/// Triggers per table (MySQL has no fixed limit; this bounds the catalog).
pub const TRIGGERS_PER_TABLE_MAX: usize = 256;

#[derive(Debug, Clone, PartialEq)]
pub struct TriggerDef {
    pub schema: String,
    pub name: String,
    pub table: String,
    pub timing: TriggerTiming,
    pub event: TriggerEvent,
    /// ACTION_ORDER: 1-based position among the table's triggers of the same timing
    /// and event.
    pub order: u32,
    /// The body as written (one statement or BEGIN ... END).
    pub body_text: String,
    pub definer_user: String,
    pub definer_host: String,
    /// The sql_mode at CREATE (the body runs under it).
    pub sql_mode: String,
    pub charset_client: String,
    pub collation_connection: String,
    pub db_collation: String,
    /// CREATED, microseconds since the Unix epoch.
    pub created_micros: i64,
}

impl TriggerDef {
    /// `user@host`, as information_schema.TRIGGERS.DEFINER shows it.
    pub fn definer(&self) -> String {
        format!("{}@{}", self.definer_user, self.definer_host)
    }
}

/// A trigger of the catalog: its record and its parsed body (parsed once).
#[derive(Debug)]
pub struct Trigger {
    pub def: TriggerDef,
    pub body: OnceLock<std::result::Result<Arc<crate::routine::Body>, KilnError>>,
}

impl Trigger {
    fn new(def: TriggerDef) -> Arc<Trigger> {
        Arc::new(Trigger {
            def,
            body: OnceLock::new(),
        })
    }

    /// The parsed body.
    pub fn body(&self) -> Result<Arc<crate::routine::Body>> {
        self.body
            .get_or_init(|| {
                let mode = crate::lexer::LexMode::from_sql_mode(&self.def.sql_mode);
                crate::parse::parse_body(&self.def.body_text, mode).map(Arc::new)
            })
            .clone()
    }
}

/// One table's triggers, sorted by (event, timing, order).
#[derive(Debug, Default)]
pub struct TableTriggers {
    pub list: Vec<Arc<Trigger>>,
}

impl TableTriggers {
    /// The triggers to fire for `event` at `timing`, in order.
    pub fn of(
        &self,
        event: TriggerEvent,
        timing: TriggerTiming,
    ) -> impl Iterator<Item = &Arc<Trigger>> {
        self.list
            .iter()
            .filter(move |t| t.def.event == event && t.def.timing == timing)
    }

    pub fn has(&self, event: TriggerEvent) -> bool {
        self.list.iter().any(|t| t.def.event == event)
    }
}

const VERSION: u8 = 1;

pub(super) fn trigger_key(schema: &str, name: &str) -> Vec<u8> {
    let mut k = b"G\0".to_vec();
    k.extend_from_slice(schema.as_bytes());
    k.push(0);
    k.extend_from_slice(name.as_bytes());
    k
}

pub fn encode_trigger(t: &TriggerDef) -> Vec<u8> {
    let mut w = Writer::default();
    w.buf.push(VERSION);
    w.s(&t.schema);
    w.s(&t.name);
    w.s(&t.table);
    w.u(match t.timing {
        TriggerTiming::Before => 0,
        TriggerTiming::After => 1,
    });
    w.u(match t.event {
        TriggerEvent::Insert => 0,
        TriggerEvent::Update => 1,
        TriggerEvent::Delete => 2,
    });
    w.u(t.order as u64);
    w.s(&t.body_text);
    w.s(&t.definer_user);
    w.s(&t.definer_host);
    w.s(&t.sql_mode);
    w.s(&t.charset_client);
    w.s(&t.collation_connection);
    w.s(&t.db_collation);
    w.u(t.created_micros.max(0) as u64);
    w.buf
}

pub fn decode_trigger(b: &[u8]) -> std::result::Result<TriggerDef, String> {
    if b.first() != Some(&VERSION) {
        return Err("unknown trigger record version".into());
    }
    let mut r = Reader::new(b);
    r.skip(1);
    Ok(TriggerDef {
        schema: r.s()?,
        name: r.s()?,
        table: r.s()?,
        timing: match r.u()? {
            0 => TriggerTiming::Before,
            1 => TriggerTiming::After,
            _ => return Err("bad trigger timing".into()),
        },
        event: match r.u()? {
            0 => TriggerEvent::Insert,
            1 => TriggerEvent::Update,
            2 => TriggerEvent::Delete,
            _ => return Err("bad trigger event".into()),
        },
        order: u32::try_from(r.u()?).map_err(|_| "bad trigger order".to_string())?,
        body_text: r.s()?,
        definer_user: r.s()?,
        definer_host: r.s()?,
        sql_mode: r.s()?,
        charset_client: r.s()?,
        collation_connection: r.s()?,
        db_collation: r.s()?,
        created_micros: i64::try_from(r.u()?).map_err(|_| "bad trigger time".to_string())?,
    })
}

/// schema → table → triggers.
pub type TriggerMap = HashMap<String, HashMap<String, Arc<TableTriggers>>>;

impl Catalog {
    /// Whether any trigger exists (the one check a statement on a table without
    /// triggers pays).
    pub fn has_triggers(&self) -> bool {
        !self.triggers.is_empty()
    }

    pub fn table_triggers(&self, schema: &str, table: &str) -> Option<&Arc<TableTriggers>> {
        self.triggers.get(schema)?.get(table)
    }

    /// Trigger `name` of database `schema`.
    pub fn trigger(&self, schema: &str, name: &str) -> Option<&Arc<Trigger>> {
        self.triggers
            .get(schema)?
            .values()
            .flat_map(|t| t.list.iter())
            .find(|t| t.def.name.eq_ignore_ascii_case(name))
    }

    /// The triggers of a database, by table, event, timing and order.
    pub fn triggers_of(&self, schema: &str) -> Vec<&Arc<Trigger>> {
        let mut v: Vec<&Arc<Trigger>> = self
            .triggers
            .get(schema)
            .map(|m| m.values().flat_map(|t| t.list.iter()).collect())
            .unwrap_or_default();
        v.sort_by(|a, b| {
            (&a.def.table, a.def.event, a.def.timing, a.def.order).cmp(&(
                &b.def.table,
                b.def.event,
                b.def.timing,
                b.def.order,
            ))
        });
        v
    }

    /// Every schema that has triggers.
    pub fn trigger_schemas(&self) -> Vec<String> {
        let mut v: Vec<String> = self.triggers.keys().cloned().collect();
        v.sort();
        v
    }

    /// Installs a trigger read from its record (load).
    pub(super) fn load_trigger(&mut self, def: TriggerDef) {
        let mut list: Vec<Arc<Trigger>> = self
            .table_triggers(&def.schema, &def.table)
            .map(|t| t.list.clone())
            .unwrap_or_default();
        let (s, t) = (def.schema.clone(), def.table.clone());
        list.push(Trigger::new(def));
        self.set_table_triggers(&s, &t, list);
    }

    fn set_table_triggers(&mut self, schema: &str, table: &str, mut list: Vec<Arc<Trigger>>) {
        list.sort_by_key(|t| (t.def.event, t.def.timing, t.def.order));
        let m = self.triggers.entry(schema.to_string()).or_default();
        if list.is_empty() {
            m.remove(table);
            if m.is_empty() {
                self.triggers.remove(schema);
            }
        } else {
            m.insert(table.to_string(), Arc::new(TableTriggers { list }));
        }
    }
}

impl Dictionary {
    /// Rewrites the triggers of one table: `defs` in their intended order per
    /// (event, timing); ACTION_ORDER is renumbered 1.. and the records follow
    /// (`write_records`).
    fn write_table_triggers(
        &self,
        trx: &mut kiln_storage::trx::Trx,
        cat: &mut Catalog,
        schema: &str,
        table: &str,
        old: &[TriggerDef],
        mut defs: Vec<TriggerDef>,
    ) -> Result<()> {
        let mut counters: HashMap<(TriggerEvent, TriggerTiming), u32> = HashMap::new();
        for d in &mut defs {
            let n = counters.entry((d.event, d.timing)).or_insert(0);
            *n += 1;
            d.order = *n;
        }
        self.write_records(trx, old, &defs)?;
        let mut list = Vec::with_capacity(defs.len());
        for d in defs {
            // Keep the parsed body of an unchanged trigger.
            let kept = cat
                .table_triggers(schema, table)
                .and_then(|t| t.list.iter().find(|x| x.def == d).cloned());
            list.push(kept.unwrap_or_else(|| Trigger::new(d)));
        }
        cat.set_table_triggers(schema, table, list);
        Ok(())
    }

    /// Makes the records of `old` become those of `new` (matched by name): deletes,
    /// updates and inserts.
    fn write_records(
        &self,
        trx: &mut kiln_storage::trx::Trx,
        old: &[TriggerDef],
        new: &[TriggerDef],
    ) -> Result<()> {
        for o in old {
            if !new.iter().any(|d| d.name == o.name) {
                trx.delete(&self.tree, &trigger_key(&o.schema, &o.name))
                    .map_err(storage_error)?;
            }
        }
        for d in new {
            let key = trigger_key(&d.schema, &d.name);
            match old.iter().find(|o| o.name == d.name) {
                Some(o) if o == d => {}
                Some(_) => {
                    trx.update(&self.tree, &key, &encode_trigger(d))
                        .map_err(storage_error)?;
                }
                None => {
                    trx.insert(&self.tree, &key, &encode_trigger(d))
                        .map_err(storage_error)?;
                }
            }
        }
        Ok(())
    }

    /// CREATE TRIGGER: `order` is FOLLOWS (false) / PRECEDES (true) another trigger.
    /// Returns false when it exists and `if_not_exists`.
    pub fn create_trigger(
        &self,
        def: TriggerDef,
        order: Option<(bool, String)>,
        if_not_exists: bool,
    ) -> Result<bool> {
        self.ddl(|trx, cat| {
            if cat.trigger(&def.schema, &def.name).is_some() {
                if if_not_exists {
                    return Ok(false);
                }
                return Err(ErrorKind::ER_TRG_ALREADY_EXISTS.into());
            }
            if cat.table(&def.schema, &def.table).is_none() {
                return Err(KilnError::new(
                    ErrorKind::ER_NO_SUCH_TABLE,
                    &[&def.schema, &def.table],
                ));
            }
            let old: Vec<TriggerDef> = cat
                .table_triggers(&def.schema, &def.table)
                .map(|t| t.list.iter().map(|x| x.def.clone()).collect())
                .unwrap_or_default();
            if old.len() >= TRIGGERS_PER_TABLE_MAX {
                return Err(KilnError::new(
                    ErrorKind::ER_NOT_SUPPORTED_YET,
                    &[&"more triggers on one table"],
                ));
            }
            let mut defs = old.clone();
            defs.sort_by_key(|d| (d.event, d.timing, d.order));
            let at = match &order {
                None => defs
                    .iter()
                    .rposition(|d| d.event == def.event && d.timing == def.timing)
                    .map_or(defs.len(), |i| i + 1),
                Some((precedes, other)) => {
                    let i = defs
                        .iter()
                        .position(|d| {
                            d.name.eq_ignore_ascii_case(other)
                                && d.event == def.event
                                && d.timing == def.timing
                        })
                        .ok_or_else(|| {
                            KilnError::new(ErrorKind::ER_REFERENCED_TRG_DOES_NOT_EXIST, &[other])
                        })?;
                    if *precedes { i } else { i + 1 }
                }
            };
            let (schema, table) = (def.schema.clone(), def.table.clone());
            defs.insert(at, def);
            self.write_table_triggers(trx, cat, &schema, &table, &old, defs)?;
            Ok(true)
        })
    }

    /// DROP TRIGGER: false when it does not exist.
    pub fn drop_trigger(&self, schema: &str, name: &str) -> Result<bool> {
        self.ddl(|trx, cat| {
            let Some(t) = cat.trigger(schema, name).cloned() else {
                return Ok(false);
            };
            let table = t.def.table.clone();
            let old: Vec<TriggerDef> = cat
                .table_triggers(schema, &table)
                .map(|t| t.list.iter().map(|x| x.def.clone()).collect())
                .unwrap_or_default();
            let defs: Vec<TriggerDef> = old.iter().filter(|d| **d != t.def).cloned().collect();
            self.write_table_triggers(trx, cat, schema, &table, &old, defs)?;
            Ok(true)
        })
    }

    /// DROP TABLE / DROP DATABASE: the table's triggers go with it.
    pub(super) fn drop_table_triggers(
        &self,
        trx: &mut kiln_storage::trx::Trx,
        cat: &mut Catalog,
        schema: &str,
        table: &str,
    ) -> Result<()> {
        let old: Vec<TriggerDef> = match cat.table_triggers(schema, table) {
            Some(t) => t.list.iter().map(|x| x.def.clone()).collect(),
            None => return Ok(()),
        };
        self.write_table_triggers(trx, cat, schema, table, &old, Vec::new())
    }

    /// RENAME TABLE / ALTER TABLE ... RENAME: the triggers follow the table, within
    /// its database only (1435 otherwise, as MySQL).
    pub(super) fn rename_table_triggers(
        &self,
        trx: &mut kiln_storage::trx::Trx,
        cat: &mut Catalog,
        from: (&str, &str),
        to: (&str, &str),
    ) -> Result<()> {
        let old: Vec<TriggerDef> = match cat.table_triggers(from.0, from.1) {
            Some(t) => t.list.iter().map(|x| x.def.clone()).collect(),
            None => return Ok(()),
        };
        if from.0 != to.0 {
            return Err(ErrorKind::ER_TRG_IN_WRONG_SCHEMA.into());
        }
        let moved: Vec<TriggerDef> = old
            .iter()
            .map(|d| TriggerDef {
                table: to.1.to_string(),
                ..d.clone()
            })
            .collect();
        self.write_records(trx, &old, &moved)?;
        let list = moved.into_iter().map(Trigger::new).collect();
        cat.set_table_triggers(from.0, from.1, Vec::new());
        cat.set_table_triggers(to.0, to.1, list);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trigger_record_round_trips_and_rejects_damage() {
        let t = TriggerDef {
            schema: "db".into(),
            name: "trg".into(),
            table: "t".into(),
            timing: TriggerTiming::Before,
            event: TriggerEvent::Update,
            order: 2,
            body_text: "SET NEW.a = NEW.a + 1".into(),
            definer_user: "root".into(),
            definer_host: "localhost".into(),
            sql_mode: "STRICT_TRANS_TABLES".into(),
            charset_client: "utf8mb4".into(),
            collation_connection: "utf8mb4_0900_ai_ci".into(),
            db_collation: "utf8mb4_0900_ai_ci".into(),
            created_micros: 1_700_000_000_000_000,
        };
        let b = encode_trigger(&t);
        assert_eq!(decode_trigger(&b).unwrap(), t);
        for cut in 0..b.len() {
            assert!(decode_trigger(&b[..cut]).is_err());
        }
    }
}
