//! SHOW statements about tables: SHOW [FULL] TABLES, SHOW [FULL] COLUMNS, SHOW INDEX,
//! SHOW CREATE TABLE / DATABASE, SHOW TABLE STATUS — in MySQL 8.0's column layout.

use kiln_common::{ErrorKind, KilnError, Result};

use crate::ast::{ShowKind, TableName};
use crate::dict::{ColumnDefault, IndexKindDef, TableDef};
use crate::result::{ColumnInfo, ColumnKind};
use crate::session::Session;
use crate::types::SqlType;
use crate::value::Value;

pub(crate) type Table = (Vec<ColumnInfo>, Vec<Vec<Value>>);

/// Text columns of (name, length in characters), as SHOW statements return them.
pub(crate) fn text_columns(cols: &[(&str, u32)]) -> Vec<ColumnInfo> {
    cols.iter().map(|(n, l)| ColumnInfo::text(n, *l)).collect()
}

fn text(name: &str) -> ColumnInfo {
    ColumnInfo::text(name, 64)
}

fn num(name: &str) -> ColumnInfo {
    let mut c = ColumnInfo::new(name, ColumnKind::LongLong);
    c.unsigned = true;
    c.length_chars = 21;
    c
}

fn s(v: impl Into<String>) -> Value {
    Value::Str(v.into())
}

fn schema_or_current(sess: &Session, db: Option<&String>) -> Result<String> {
    match (db, &sess.database) {
        (Some(d), _) => Ok(d.clone()),
        (None, Some(d)) => Ok(d.clone()),
        (None, None) => Err(ErrorKind::ER_NO_DB_ERROR.into()),
    }
}

/// `like`: the LIKE pattern of SHOW TABLES (it appears in the column name).
pub fn show(sess: &mut Session, kind: &ShowKind, like: Option<&str>) -> Result<Option<Table>> {
    Ok(Some(match kind {
        ShowKind::Databases => {
            let mut names = sess.database_names();
            let p = sess.privileges();
            if !p.global_has(crate::privilege::SHOW_DATABASES) {
                names.retain(|d| p.sees_db(d));
            }
            (
                vec![text("Database")],
                names.into_iter().map(|d| vec![s(d)]).collect(),
            )
        }
        ShowKind::Tables { full, db } => {
            let schema = schema_or_current(sess, db.as_ref())?;
            let cat = sess.catalog()?;
            let virtual_db = schema.eq_ignore_ascii_case(super::infoschema::SCHEMA);
            if cat.database(&schema).is_none() && !virtual_db {
                return Err(KilnError::new(ErrorKind::ER_BAD_DB_ERROR, &[&schema]));
            }
            let mut cols = vec![text(&match like {
                Some(p) => format!("Tables_in_{schema} ({p})"),
                None => format!("Tables_in_{schema}"),
            })];
            if *full {
                cols.push(text("Table_type"));
            }
            let p = sess.privileges();
            let mut rows: Vec<Vec<Value>> = cat
                .tables_of(&schema)
                .into_iter()
                .filter(|t| p.sees_table(&schema, &t.def.name))
                .map(|t| {
                    let mut r = vec![s(t.def.name.clone())];
                    if *full {
                        r.push(s("BASE TABLE"));
                    }
                    r
                })
                .collect();
            for v in cat.views_of(&schema) {
                if !p.sees_table(&schema, &v.name) {
                    continue;
                }
                let mut r = vec![s(v.name.clone())];
                if *full {
                    r.push(s("VIEW"));
                }
                rows.push(r);
            }
            rows.sort_by(|a, b| a[0].to_string().cmp(&b[0].to_string()));
            if virtual_db {
                for n in super::infoschema::TABLES {
                    let mut r = vec![s(*n)];
                    if *full {
                        r.push(s("SYSTEM VIEW"));
                    }
                    rows.push(r);
                }
            }
            (cols, rows)
        }
        ShowKind::Columns { table, full } => columns(sess, table, *full)?,
        ShowKind::Triggers { db } => super::trigger::show_triggers(sess, db.as_ref())?,
        ShowKind::CreateTrigger(name) => super::trigger::show_create_trigger(sess, name)?,
        ShowKind::CreateRoutine(kind, name) => super::routine_show::show_create(sess, *kind, name)?,
        ShowKind::RoutineStatus(kind) => super::routine_show::show_status(sess, *kind)?,
        ShowKind::Index(table) => indexes(sess, table)?,
        ShowKind::CreateView(table) => match super::view::lookup(sess, table)? {
            Some(v) => super::view::show_create(&v),
            None => {
                let h = super::select::resolve_table(sess, table)?;
                return Err(KilnError::new(
                    ErrorKind::ER_WRONG_OBJECT,
                    &[&h.def.schema, &h.def.name, &"VIEW"],
                ));
            }
        },
        ShowKind::CreateTable(table) if super::view::lookup(sess, table)?.is_some() => {
            let v = super::view::lookup(sess, table)?.expect("checked");
            super::view::show_create(&v)
        }
        ShowKind::CreateTable(table) => {
            let h = super::select::resolve_table(sess, table)?;
            let mut ddl = create_table_text(&h.def, h.auto_inc_peek(), sess.lex_mode().ansi_quotes);
            if h.temporary {
                ddl.replace_range(.."CREATE TABLE".len(), "CREATE TEMPORARY TABLE");
            }
            (
                vec![text("Table"), ColumnInfo::text("Create Table", 1024)],
                vec![vec![s(h.def.name.clone()), s(ddl)]],
            )
        }
        ShowKind::CreateDatabase {
            name,
            if_not_exists,
        } => {
            let cat = sess.catalog()?;
            let db = cat
                .database(name)
                .ok_or_else(|| KilnError::new(ErrorKind::ER_BAD_DB_ERROR, &[&name]))?;
            (
                vec![text("Database"), ColumnInfo::text("Create Database", 1024)],
                vec![vec![
                    s(name.clone()),
                    s(format!(
                        "CREATE DATABASE {}`{}` /*!40100 DEFAULT CHARACTER SET {} COLLATE {} */ /*!80016 DEFAULT ENCRYPTION='N' */",
                        if *if_not_exists {
                            "/*!32312 IF NOT EXISTS*/ "
                        } else {
                            ""
                        },
                        name,
                        db.charset,
                        db.collation
                    )),
                ]],
            )
        }
        ShowKind::TableStatus(db) => {
            let schema = schema_or_current(sess, db.as_ref())?;
            let cat = sess.catalog()?;
            let cols = vec![
                text("Name"),
                text("Engine"),
                num("Version"),
                text("Row_format"),
                num("Rows"),
                num("Avg_row_length"),
                num("Data_length"),
                num("Max_data_length"),
                num("Index_length"),
                num("Data_free"),
                num("Auto_increment"),
                text("Create_time"),
                text("Update_time"),
                text("Check_time"),
                text("Collation"),
                num("Checksum"),
                text("Create_options"),
                text("Comment"),
            ];
            let p = sess.privileges();
            let mut rows: Vec<Vec<Value>> = cat
                .tables_of(&schema)
                .into_iter()
                .filter(|t| p.sees_table(&schema, &t.def.name))
                .map(|t| {
                    let created = kiln_common::time::CivilTime::from_unix_micros(
                        t.def.created_unix_secs as i64 * 1_000_000,
                    )
                    .datetime_string();
                    let rows = t.rows_estimate();
                    let (data, index) = t.size_bytes();
                    vec![
                        s(t.def.name.clone()),
                        s("InnoDB"),
                        Value::UInt(10),
                        s(t.def.row_format.clone().unwrap_or_else(|| "Dynamic".into())),
                        Value::UInt(rows),
                        Value::UInt(data.checked_div(rows).unwrap_or(0)),
                        Value::UInt(data),
                        Value::UInt(0),
                        Value::UInt(index),
                        Value::UInt(0),
                        match t.auto_increment_column() {
                            Some(_) => Value::UInt(t.auto_inc_peek()),
                            None => Value::Null,
                        },
                        s(created[..19].to_string()),
                        Value::Null,
                        Value::Null,
                        s(t.def.collation.clone()),
                        Value::Null,
                        s(""),
                        s(t.def.comment.clone()),
                    ]
                })
                .collect();
            for v in cat.views_of(&schema) {
                if !p.sees_table(&schema, &v.name) {
                    continue;
                }
                let mut r = vec![s(v.name.clone())];
                r.resize(17, Value::Null);
                r.push(s("VIEW"));
                rows.push(r);
            }
            rows.sort_by(|a, b| a[0].to_string().cmp(&b[0].to_string()));
            (cols, rows)
        }
        ShowKind::EngineStatus => (
            vec![text("Type"), text("Name"), ColumnInfo::text("Status", 1024)],
            vec![vec![s("InnoDB"), s(""), s(engine_status(sess)?)]],
        ),
        _ => return Ok(None),
    }))
}

fn engine_status(sess: &mut Session) -> Result<String> {
    let dict = sess.dict()?;
    let trx = dict.te.transactions();
    let mut out = String::from(
        "\n=====================================\nkiln INNODB MONITOR OUTPUT\n=====================================\n------------\nTRANSACTIONS\n------------\n",
    );
    if let Some(d) = dict.te.locks.latest_deadlock() {
        out = out.replace(
            "------------\nTRANSACTIONS",
            &format!(
                "{}------------\nTRANSACTIONS",
                deadlock_section(&d, &dict.catalog())
            ),
        );
    }
    out.push_str(&format!("History list length {}\n", dict.te.history_len()));
    for t in trx {
        out.push_str(&format!("---TRANSACTION {t:?}\n"));
    }
    Ok(out)
}

/// SHOW ENGINE INNODB STATUS's LATEST DETECTED DEADLOCK, in InnoDB's layout: each
/// transaction of the cycle with the lock it holds (that the previous one waits for)
/// and the lock it waits for, then the one rolled back.
fn deadlock_section(
    d: &kiln_storage::trx::DeadlockReport,
    catalog: &crate::dict::Catalog,
) -> String {
    use kiln_storage::trx::lock::{Kind as LockKind, LockRow, Mode as LockMode};
    let micros =
        d.at.duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |t| t.as_micros() as i64);
    let at = kiln_common::time::CivilTime::from_unix_micros(micros).datetime_string();
    let lock = |r: &LockRow| -> String {
        let (table, index) = catalog
            .tables
            .values()
            .find(|t| t.def.space_id == r.key.space)
            .map(|t| {
                let ix = t
                    .def
                    .indexes
                    .iter()
                    .find(|i| i.id == r.key.index)
                    .map_or_else(|| format!("#{}", r.key.index), |i| i.name.clone());
                (format!("`{}`.`{}`", t.def.schema, t.def.name), ix)
            })
            .unwrap_or_else(|| {
                (
                    format!("space {}", r.key.space),
                    format!("#{}", r.key.index),
                )
            });
        let mode = match r.mode {
            LockMode::S => "S",
            LockMode::X => "X",
        };
        let kind = match r.kind {
            LockKind::Record => " locks rec but not gap",
            LockKind::Gap => " locks gap before rec",
            LockKind::NextKey => "",
            LockKind::InsertIntention => " insert intention",
        };
        let rec = if r.key.sup {
            "supremum".to_string()
        } else {
            let hex: String = r.key.key.iter().map(|b| format!("{b:02x}")).collect();
            format!("hex {hex}")
        };
        format!(
            "RECORD LOCKS space id {} index {index} of table {table} trx id {} lock_mode {mode}{kind}{}\nRecord: {rec}\n",
            r.key.space,
            r.trx,
            if r.granted { "" } else { " waiting" }
        )
    };
    let mut out = format!(
        "------------------------\nLATEST DETECTED DEADLOCK\n------------------------\n{at}\n"
    );
    if d.too_deep {
        out.push_str("TOO DEEP OR LONG SEARCH IN THE LOCK TABLE WAITS-FOR GRAPH, WE WILL ROLL BACK FOLLOWING TRANSACTION\n");
    }
    for (i, t) in d.cycle.iter().enumerate() {
        let n = i + 1;
        out.push_str(&format!(
            "*** ({n}) TRANSACTION:\nTRANSACTION {}, ACTIVE, weight {}\n",
            t.trx, t.weight
        ));
        if !t.holds.is_empty() {
            out.push_str(&format!("*** ({n}) HOLDS THE LOCK(S):\n"));
            for r in &t.holds {
                out.push_str(&lock(r));
            }
        }
        if let Some(w) = &t.waits {
            out.push_str(&format!("*** ({n}) WAITING FOR THIS LOCK TO BE GRANTED:\n"));
            out.push_str(&lock(w));
        }
    }
    if let Some(n) = d.cycle.iter().position(|t| t.trx == d.victim) {
        out.push_str(&format!("*** WE ROLL BACK TRANSACTION ({})\n", n + 1));
    }
    out
}

fn columns(sess: &mut Session, table: &TableName, full: bool) -> Result<Table> {
    let mut cols = vec![text("Field"), text("Type")];
    if full {
        cols.push(text("Collation"));
    }
    cols.extend([text("Null"), text("Key"), text("Default"), text("Extra")]);
    if full {
        cols.extend([text("Privileges"), text("Comment")]);
    }
    if let Some(v) = super::view::lookup(sess, table)? {
        let mut rows = Vec::new();
        for c in super::view::columns_of(sess, &v)? {
            let mut r = vec![s(c.name), s(c.ty.column_type())];
            if full {
                r.push(c.ty.collation().map_or(Value::Null, |x| s(x.to_string())));
            }
            r.push(s(if c.nullable { "YES" } else { "NO" }));
            r.push(s(""));
            r.push(default_text(&c.default));
            r.push(s(""));
            if full {
                r.push(s("select,insert,update,references"));
                r.push(s(""));
            }
            rows.push(r);
        }
        return Ok((cols, rows));
    }
    let h = super::select::resolve_table(sess, table)?;
    let mut rows = Vec::new();
    for (i, c) in h.def.columns.iter().enumerate() {
        let key = key_flag(&h.def, i);
        let mut r = vec![s(c.name.clone()), s(c.ty.column_type())];
        if full {
            r.push(c.ty.collation().map_or(Value::Null, |x| s(x.to_string())));
        }
        r.push(s(if c.nullable { "YES" } else { "NO" }));
        r.push(s(key));
        r.push(default_text(&c.default));
        r.push(s(extra(c)));
        if full {
            r.push(s("select,insert,update,references"));
            r.push(s(c.comment.clone().unwrap_or_default()));
        }
        rows.push(r);
    }
    Ok((cols, rows))
}

/// SHOW COLUMNS' Default.
pub(crate) fn default_text(d: &Option<ColumnDefault>) -> Value {
    match d {
        Some(ColumnDefault::Value(Value::Null)) | None => Value::Null,
        Some(ColumnDefault::Value(v)) => s(v.to_string_lossy().unwrap_or_default()),
        Some(ColumnDefault::CurrentTimestamp) => s("CURRENT_TIMESTAMP"),
        Some(ColumnDefault::Expr(e)) => s(e.clone()),
    }
}

pub(crate) fn extra(c: &crate::dict::ColumnDef) -> String {
    let mut parts = Vec::new();
    if c.auto_increment {
        parts.push("auto_increment".to_string());
    }
    if matches!(c.default, Some(ColumnDefault::CurrentTimestamp)) {
        parts.push("DEFAULT_GENERATED".into());
    }
    if c.on_update_now {
        parts.push("on update CURRENT_TIMESTAMP".into());
    }
    if c.invisible {
        parts.push("INVISIBLE".into());
    }
    parts.join(" ")
}

/// SHOW COLUMNS' Key: PRI, UNI or MUL for the first column of an index.
pub(crate) fn key_flag(def: &TableDef, col: usize) -> &'static str {
    let mut flag = "";
    for ix in &def.indexes {
        if ix.parts.first().map(|p| p.column) != Some(col) {
            continue;
        }
        match ix.kind {
            IndexKindDef::Primary => return "PRI",
            IndexKindDef::Unique if ix.parts.len() == 1 && !def.columns[col].nullable => {
                if flag != "PRI" {
                    flag = "UNI";
                }
            }
            IndexKindDef::Unique if ix.parts.len() == 1 => {
                if flag.is_empty() {
                    flag = "UNI";
                }
            }
            IndexKindDef::RowId => {}
            _ => {
                if flag.is_empty() {
                    flag = "MUL";
                }
            }
        }
    }
    flag
}

fn indexes(sess: &mut Session, table: &TableName) -> Result<Table> {
    let h = super::select::resolve_table(sess, table)?;
    let cols = vec![
        text("Table"),
        num("Non_unique"),
        text("Key_name"),
        num("Seq_in_index"),
        text("Column_name"),
        text("Collation"),
        num("Cardinality"),
        num("Sub_part"),
        text("Packed"),
        text("Null"),
        text("Index_type"),
        text("Comment"),
        text("Index_comment"),
        text("Visible"),
        text("Expression"),
    ];
    let mut rows = Vec::new();
    for ix in &h.def.indexes {
        if ix.kind == IndexKindDef::RowId {
            continue;
        }
        for (n, p) in ix.parts.iter().enumerate() {
            let c = &h.def.columns[p.column];
            rows.push(vec![
                s(h.def.name.clone()),
                Value::UInt(u64::from(!ix.is_unique())),
                s(ix.name.clone()),
                Value::UInt(n as u64 + 1),
                s(c.name.clone()),
                s(if p.desc { "D" } else { "A" }),
                Value::UInt(0),
                p.prefix_chars
                    .map_or(Value::Null, |x| Value::UInt(x as u64)),
                Value::Null,
                s(if c.nullable { "YES" } else { "" }),
                s(if ix.kind == IndexKindDef::Fulltext {
                    "FULLTEXT"
                } else {
                    "BTREE"
                }),
                s(""),
                s(ix.comment.clone().unwrap_or_default()),
                s(if ix.invisible { "NO" } else { "YES" }),
                Value::Null,
            ]);
        }
    }
    Ok((cols, rows))
}

fn quote_ident(s: &str, ansi_quotes: bool) -> String {
    if ansi_quotes {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        format!("`{}`", s.replace('`', "``"))
    }
}

/// MySQL's append_unescaped: a quoted literal, quotes doubled, control characters
/// escaped.
pub(crate) fn quote_str(s: &str) -> String {
    let mut out = String::from("'");
    for c in s.chars() {
        match c {
            '\'' => out.push_str("''"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            '\u{1a}' => out.push_str("\\Z"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// SHOW CREATE TABLE's text, in MySQL 8.0's format.
/// `ansi_quotes`: identifiers in `"` (the session's sql_mode has ANSI_QUOTES), as
/// MySQL writes them then, so the text reads back under the same mode.
pub fn create_table_text(def: &TableDef, auto_next: u64, ansi_quotes: bool) -> String {
    let quote_ident = |s: &str| quote_ident(s, ansi_quotes);
    let mut lines = Vec::new();
    for c in &def.columns {
        let mut l = format!("  {} {}", quote_ident(&c.name), c.ty.column_type());
        if let Some(coll) = c.ty.collation()
            && coll != def.collation
        {
            let cs = coll.split('_').next().unwrap_or("");
            l.push_str(&format!(" CHARACTER SET {cs} COLLATE {coll}"));
        }
        if !c.nullable {
            l.push_str(" NOT NULL");
        } else if matches!(c.ty, SqlType::Timestamp(_)) {
            l.push_str(" NULL");
        }
        match &c.default {
            Some(ColumnDefault::Value(Value::Null)) if c.nullable && !c.ty.is_lob() => {
                l.push_str(" DEFAULT NULL")
            }
            Some(ColumnDefault::Value(Value::Null)) => {}
            Some(ColumnDefault::Value(v)) => {
                let t = match v {
                    Value::Bytes(b) => format!(
                        "0x{}",
                        b.iter().map(|x| format!("{x:02x}")).collect::<String>()
                    ),
                    other => quote_str(&other.to_string_lossy().unwrap_or_default()),
                };
                l.push_str(&format!(" DEFAULT {t}"));
            }
            Some(ColumnDefault::CurrentTimestamp) => l.push_str(" DEFAULT CURRENT_TIMESTAMP"),
            Some(ColumnDefault::Expr(e)) => l.push_str(&format!(" DEFAULT ({e})")),
            None if c.nullable && !c.ty.is_lob() && !c.auto_increment => {
                l.push_str(" DEFAULT NULL")
            }
            None => {}
        }
        if c.on_update_now {
            l.push_str(" ON UPDATE CURRENT_TIMESTAMP");
        }
        if c.auto_increment {
            l.push_str(" AUTO_INCREMENT");
        }
        if c.invisible {
            l.push_str(" /*!80023 INVISIBLE */");
        }
        if let Some(cm) = &c.comment {
            l.push_str(&format!(" COMMENT {}", quote_str(cm)));
        }
        lines.push(l);
    }
    for ix in &def.indexes {
        let parts: Vec<String> = ix
            .parts
            .iter()
            .map(|p| {
                let mut x = quote_ident(&def.columns[p.column].name);
                if let Some(n) = p.prefix_chars {
                    x.push_str(&format!("({n})"));
                }
                if p.desc {
                    x.push_str(" DESC");
                }
                x
            })
            .collect();
        let mut l = match ix.kind {
            IndexKindDef::RowId => continue,
            IndexKindDef::Primary => format!("  PRIMARY KEY ({})", parts.join(",")),
            IndexKindDef::Unique => format!(
                "  UNIQUE KEY {} ({})",
                quote_ident(&ix.name),
                parts.join(",")
            ),
            IndexKindDef::Key => format!("  KEY {} ({})", quote_ident(&ix.name), parts.join(",")),
            IndexKindDef::Fulltext => {
                format!(
                    "  FULLTEXT KEY {} ({})",
                    quote_ident(&ix.name),
                    parts.join(",")
                )
            }
        };
        if let Some(cm) = &ix.comment {
            l.push_str(&format!(" COMMENT {}", quote_str(cm)));
        }
        if ix.invisible {
            l.push_str(" /*!80000 INVISIBLE */");
        }
        lines.push(l);
    }
    for f in &def.foreign_keys {
        let cols: Vec<String> = f.columns.iter().map(|c| quote_ident(c)).collect();
        let refs: Vec<String> = f.ref_columns.iter().map(|c| quote_ident(c)).collect();
        let target = if f.ref_schema == def.schema {
            quote_ident(&f.ref_table)
        } else {
            format!(
                "{}.{}",
                quote_ident(&f.ref_schema),
                quote_ident(&f.ref_table)
            )
        };
        let mut l = format!(
            "  CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {} ({})",
            quote_ident(&f.name),
            cols.join(","),
            target,
            refs.join(",")
        );
        if !f.actions.is_empty() {
            l.push(' ');
            l.push_str(&f.actions);
        }
        lines.push(l);
    }
    let mut out = format!(
        "CREATE TABLE {} (\n{}\n) ENGINE=InnoDB",
        quote_ident(&def.name),
        lines.join(",\n")
    );
    if def.auto_increment_column().is_some() && auto_next > 1 {
        out.push_str(&format!(" AUTO_INCREMENT={auto_next}"));
    }
    let cs = def.collation.split('_').next().unwrap_or("utf8mb4");
    out.push_str(&format!(" DEFAULT CHARSET={cs} COLLATE={}", def.collation));
    if let Some(r) = &def.row_format {
        out.push_str(&format!(" ROW_FORMAT={r}"));
    }
    if !def.comment.is_empty() {
        out.push_str(&format!(" COMMENT={}", quote_str(&def.comment)));
    }
    out
}
