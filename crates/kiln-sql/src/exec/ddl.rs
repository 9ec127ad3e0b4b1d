//! DDL: CREATE/DROP DATABASE, CREATE TABLE (columns, indexes, LIKE, AS SELECT),
//! DROP/TRUNCATE/RENAME TABLE, CREATE/DROP INDEX and ALTER TABLE. Definitions are
//! checked here with MySQL's errors; the dictionary makes them durable and atomic.
//!
//! ALTER TABLE rebuilds the table (new tablespace, rows copied and converted, then an
//! atomic switch) unless it only renames or changes metadata, or adds a column at the
//! end with a constant default (rows written before read it as that default).

use kiln_common::limits::IDENTIFIER_LEN_MAX;
use kiln_common::{ErrorKind, KilnError, Result};

use crate::ast::*;
use crate::dict::{
    ColumnDef, ColumnDefault, DatabaseDef, ForeignKeyDef, IndexDef, IndexKindDef, IndexPart,
    TableDef,
};
use crate::eval::eval;
use crate::result::Outcome;
use crate::session::Session;
use crate::types::{SqlType, StoreMode, store};
use crate::value::Value;

/// Longest index key in bytes (InnoDB's limit with DYNAMIC rows).
pub const INDEX_KEY_BYTES_MAX: u64 = 3072;
/// Largest row, not counting BLOB/TEXT (MySQL's 65,535-byte limit).
pub const ROW_BYTES_MAX: u64 = 65_535;

fn check_name(name: &str, kind: ErrorKind) -> Result<()> {
    if name.is_empty() || name.ends_with(' ') {
        return Err(KilnError::new(kind, &[&name]));
    }
    if name.chars().count() > IDENTIFIER_LEN_MAX {
        return Err(KilnError::new(ErrorKind::ER_TOO_LONG_IDENT, &[&name]));
    }
    Ok(())
}

fn charset_of_collation(c: &str) -> &str {
    c.split('_').next().unwrap_or("utf8mb4")
}

fn default_collation(charset: &str) -> Result<String> {
    crate::charset::CHARSETS
        .iter()
        .find(|c| c.name.eq_ignore_ascii_case(charset))
        .map(|c| c.default_collation.to_string())
        .ok_or_else(|| KilnError::new(ErrorKind::ER_UNKNOWN_CHARACTER_SET, &[&charset]))
}

fn check_collation(c: &str) -> Result<()> {
    if crate::charset::COLLATIONS
        .iter()
        .any(|x| x.name.eq_ignore_ascii_case(c))
    {
        Ok(())
    } else {
        Err(KilnError::new(ErrorKind::ER_UNKNOWN_COLLATION, &[&c]))
    }
}

/// (charset, collation) from what was written, falling back to `inherit`.
pub(crate) fn resolve_charset(
    charset: Option<&str>,
    collation: Option<&str>,
    inherit: (&str, &str),
) -> Result<(String, String)> {
    match (charset, collation) {
        (None, None) => Ok((inherit.0.to_string(), inherit.1.to_string())),
        (Some(cs), None) => {
            let cs = if cs == "utf8" { "utf8mb3" } else { cs };
            Ok((cs.to_string(), default_collation(cs)?))
        }
        (cs, Some(co)) => {
            let cs = cs.unwrap_or_else(|| charset_of_collation(co));
            let cs = if cs == "utf8" { "utf8mb3" } else { cs };
            let co = if co == "%bin" {
                format!("{cs}_bin")
            } else {
                co.replace("utf8_", "utf8mb3_")
            };
            check_collation(&co)?;
            if !co.starts_with(&format!("{cs}_")) && co != "binary" {
                return Err(KilnError::new(
                    ErrorKind::ER_COLLATION_CHARSET_MISMATCH,
                    &[&co, &cs],
                ));
            }
            Ok((cs.to_string(), co))
        }
    }
}

pub fn create_database(
    sess: &mut Session,
    name: &str,
    if_not_exists: bool,
    charset: Option<&str>,
    collation: Option<&str>,
) -> Result<Outcome> {
    check_name(name, ErrorKind::ER_WRONG_DB_NAME)?;
    let (charset, collation) =
        resolve_charset(charset, collation, ("utf8mb4", "utf8mb4_0900_ai_ci"))?;
    let created = sess.dict()?.create_database(
        DatabaseDef {
            name: name.to_string(),
            charset,
            collation,
        },
        if_not_exists,
    )?;
    if !created {
        let e = KilnError::new(ErrorKind::ER_DB_CREATE_EXISTS, &[&name]);
        sess.note(e.code, e.message);
        return Ok(Outcome::ok());
    }
    Ok(Outcome::Ok {
        affected_rows: 1,
        last_insert_id: 0,
        info: String::new(),
    })
}

pub fn drop_database(sess: &mut Session, name: &str, if_exists: bool) -> Result<Outcome> {
    if crate::dict::VIRTUAL_DATABASES.contains(&name.to_ascii_lowercase().as_str())
        || name == "mysql"
    {
        return Err(KilnError::new(
            ErrorKind::ER_DBACCESS_DENIED_ERROR,
            &[&sess.account.0, &sess.account.1, &name],
        ));
    }
    match sess.dict()?.drop_database(name, if_exists)? {
        Some(n) => {
            if sess.database.as_deref() == Some(name) {
                sess.database = None;
            }
            Ok(Outcome::Ok {
                affected_rows: n as u64,
                last_insert_id: 0,
                info: String::new(),
            })
        }
        None => {
            let e = KilnError::new(ErrorKind::ER_DB_DROP_EXISTS, &[&name]);
            sess.note(e.code, e.message);
            Ok(Outcome::ok())
        }
    }
}

pub(crate) fn schema_of(sess: &Session, t: &TableName) -> Result<String> {
    match (&t.schema, &sess.database) {
        (Some(s), _) => Ok(s.clone()),
        (None, Some(d)) => Ok(d.clone()),
        (None, None) => Err(ErrorKind::ER_NO_DB_ERROR.into()),
    }
}

/// A column definition from its spec, with the table's charset/collation as default.
pub(crate) fn column_def(
    sess: &mut Session,
    spec: &ColumnSpec,
    table_cs: (&str, &str),
) -> Result<ColumnDef> {
    check_name(&spec.name, ErrorKind::ER_WRONG_COLUMN_NAME)?;
    let mut ty = spec.ty.clone();
    let name = spec.name.as_str();
    // Character types get a collation.
    if ty.collation().is_some() {
        let (_, co) =
            resolve_charset(spec.charset.as_deref(), spec.collation.as_deref(), table_cs)?;
        if let Some(c) = ty.collation_mut() {
            *c = co;
        }
    }
    let mbmax = |t: &SqlType| -> u32 {
        match t.collation() {
            Some(c) if c.starts_with("utf8mb4") => 4,
            Some(c) if c.starts_with("utf8") => 3,
            _ => 1,
        }
    };
    match &ty {
        SqlType::Char { len, .. } if *len > crate::types::CHAR_LEN_MAX => {
            return Err(KilnError::new(
                ErrorKind::ER_TOO_BIG_FIELDLENGTH,
                &[&name, &255],
            ));
        }
        SqlType::Binary(len) if *len > crate::types::CHAR_LEN_MAX => {
            return Err(KilnError::new(
                ErrorKind::ER_TOO_BIG_FIELDLENGTH,
                &[&name, &255],
            ));
        }
        SqlType::VarChar { len, .. } if *len > 65_535 / mbmax(&ty) => {
            return Err(KilnError::new(
                ErrorKind::ER_TOO_BIG_FIELDLENGTH,
                &[&name, &(65_535 / mbmax(&ty))],
            ));
        }
        SqlType::VarBinary(len) if *len > 65_535 => {
            return Err(KilnError::new(
                ErrorKind::ER_TOO_BIG_FIELDLENGTH,
                &[&name, &65_535],
            ));
        }
        SqlType::Decimal {
            precision, scale, ..
        } => {
            if *precision > crate::types::DECIMAL_PRECISION_MAX {
                return Err(KilnError::new(
                    ErrorKind::ER_TOO_BIG_PRECISION,
                    &[precision, &name, &65],
                ));
            }
            if *scale > crate::types::DECIMAL_SCALE_MAX {
                return Err(KilnError::new(
                    ErrorKind::ER_TOO_BIG_SCALE,
                    &[scale, &name, &30],
                ));
            }
            if scale > precision {
                return Err(KilnError::new(ErrorKind::ER_M_BIGGER_THAN_D, &[&name]));
            }
        }
        SqlType::DateTime(f) | SqlType::Timestamp(f) | SqlType::Time(f)
            if *f > crate::types::FSP_MAX =>
        {
            return Err(KilnError::new(
                ErrorKind::ER_TOO_BIG_PRECISION,
                &[f, &name, &6],
            ));
        }
        SqlType::Bit(n) if *n > 64 || *n == 0 => {
            return Err(KilnError::new(
                ErrorKind::ER_TOO_BIG_FIELDLENGTH,
                &[&name, &64],
            ));
        }
        SqlType::Enum { members, .. } | SqlType::Set { members, .. } => {
            for (i, m) in members.iter().enumerate() {
                if members[..i].iter().any(|x| x.eq_ignore_ascii_case(m)) {
                    return Err(KilnError::new(
                        ErrorKind::ER_DUPLICATED_VALUE_IN_TYPE,
                        &[
                            &name,
                            &m,
                            &if matches!(ty, SqlType::Enum { .. }) {
                                "ENUM"
                            } else {
                                "SET"
                            },
                        ],
                    ));
                }
            }
            if matches!(ty, SqlType::Set { .. }) && members.len() > crate::types::SET_MEMBERS_MAX {
                return Err(KilnError::new(
                    ErrorKind::ER_TOO_BIG_FIELDLENGTH,
                    &[&name, &64],
                ));
            }
        }
        _ => {}
    }
    if spec.auto_increment
        && !matches!(
            ty,
            SqlType::Int { .. } | SqlType::Float { .. } | SqlType::Double { .. }
        )
    {
        return Err(KilnError::new(ErrorKind::ER_WRONG_FIELD_SPEC, &[&name]));
    }
    let nullable = match spec.nullable {
        Some(n) => n,
        None => !spec.primary,
    };
    if spec.primary && spec.nullable == Some(true) {
        return Err(ErrorKind::ER_PRIMARY_CANT_HAVE_NULL.into());
    }
    let default = match &spec.default {
        None => None,
        Some(DefaultSpec::CurrentTimestamp) => {
            if !matches!(ty, SqlType::DateTime(_) | SqlType::Timestamp(_)) {
                return Err(KilnError::new(ErrorKind::ER_INVALID_DEFAULT, &[&name]));
            }
            Some(ColumnDefault::CurrentTimestamp)
        }
        Some(DefaultSpec::Expr(e)) => {
            let v = eval(e, sess)?;
            if v.is_null() {
                if !nullable {
                    return Err(KilnError::new(ErrorKind::ER_INVALID_DEFAULT, &[&name]));
                }
                Some(ColumnDefault::Value(Value::Null))
            } else {
                if spec.auto_increment || (ty.is_lob() && matches!(e, Expr::Literal(_))) {
                    return Err(KilnError::new(ErrorKind::ER_INVALID_DEFAULT, &[&name]));
                }
                let mut w = Vec::new();
                let stored = store(
                    &ty,
                    name,
                    &v,
                    StoreMode {
                        strict: true,
                        row: 1,
                    },
                    &mut w,
                )
                .map_err(|_| KilnError::new(ErrorKind::ER_INVALID_DEFAULT, &[&name]))?;
                Some(ColumnDefault::Value(stored))
            }
        }
    };
    if spec.on_update_now && !matches!(ty, SqlType::DateTime(_) | SqlType::Timestamp(_)) {
        return Err(KilnError::new(ErrorKind::ER_INVALID_DEFAULT, &[&name]));
    }
    Ok(ColumnDef {
        name: spec.name.clone(),
        ty,
        nullable,
        default,
        auto_increment: spec.auto_increment,
        on_update_now: spec.on_update_now,
        comment: spec.comment.clone(),
        invisible: spec.invisible,
    })
}

/// An index definition from its spec (columns resolved, MySQL's checks applied).
pub(crate) fn index_def(
    columns: &mut [ColumnDef],
    spec: &IndexSpec,
    name: String,
) -> Result<IndexDef> {
    let mut parts = Vec::with_capacity(spec.parts.len());
    let mut key_bytes = 0u64;
    for p in &spec.parts {
        let col = columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(&p.column))
            .ok_or_else(|| KilnError::new(ErrorKind::ER_KEY_COLUMN_DOES_NOT_EXITS, &[&p.column]))?;
        let c = &mut columns[col];
        let is_text = c.ty.is_string() || matches!(c.ty, SqlType::Json);
        if p.prefix.is_some() && !is_text {
            return Err(ErrorKind::ER_WRONG_SUB_KEY.into());
        }
        if c.ty.is_lob() && p.prefix.is_none() && spec.kind != IndexKind::Fulltext {
            return Err(KilnError::new(
                ErrorKind::ER_BLOB_KEY_WITHOUT_LENGTH,
                &[&c.name],
            ));
        }
        let mb = match c.ty.collation() {
            Some(co) if co.starts_with("utf8mb4") => 4,
            Some(co) if co.starts_with("utf8") => 3,
            _ => 1,
        };
        let chars = match &c.ty {
            SqlType::Char { len, .. } | SqlType::VarChar { len, .. } => Some(*len as u64),
            SqlType::Binary(n) | SqlType::VarBinary(n) => Some(*n as u64),
            _ => None,
        };
        if let (Some(pre), Some(len)) = (p.prefix, chars)
            && pre as u64 > len
        {
            return Err(ErrorKind::ER_WRONG_SUB_KEY.into());
        }
        key_bytes += match (p.prefix, chars) {
            (Some(pre), _) => pre as u64 * mb,
            (None, Some(len)) => len * mb,
            _ => 8,
        };
        if spec.kind == IndexKind::Primary {
            c.nullable = false;
        }
        // A full-length "prefix" is no prefix.
        let prefix_chars = match (p.prefix, chars) {
            (Some(pre), Some(len)) if pre as u64 == len => None,
            (pre, _) => pre,
        };
        parts.push(IndexPart {
            column: col,
            prefix_chars,
            desc: p.desc,
        });
    }
    if key_bytes > INDEX_KEY_BYTES_MAX && spec.kind != IndexKind::Fulltext {
        return Err(KilnError::new(
            ErrorKind::ER_TOO_LONG_KEY,
            &[&INDEX_KEY_BYTES_MAX],
        ));
    }
    Ok(IndexDef {
        name,
        id: 0,
        kind: match spec.kind {
            IndexKind::Primary => IndexKindDef::Primary,
            IndexKind::Unique => IndexKindDef::Unique,
            IndexKind::Key | IndexKind::Spatial => IndexKindDef::Key,
            IndexKind::Fulltext => IndexKindDef::Fulltext,
        },
        parts,
        invisible: spec.invisible,
        comment: spec.comment.clone(),
    })
}

/// Sorts indexes as MySQL lists them (PRIMARY, unique, others, fulltext) and adds the
/// hidden row-id index when there is no primary key. Checks the auto-increment rule.
pub(crate) fn finish_indexes(
    columns: &[ColumnDef],
    mut indexes: Vec<IndexDef>,
) -> Result<Vec<IndexDef>> {
    let rank = |k: IndexKindDef| match k {
        IndexKindDef::RowId | IndexKindDef::Primary => 0,
        IndexKindDef::Unique => 1,
        IndexKindDef::Key => 2,
        IndexKindDef::Fulltext => 3,
    };
    // The hidden row-id index keeps its tree id while there is no primary key.
    let row_id = indexes
        .iter()
        .position(|i| i.kind == IndexKindDef::RowId)
        .map(|i| indexes.remove(i));
    indexes.sort_by_key(|i| rank(i.kind));
    if indexes
        .iter()
        .filter(|i| i.kind == IndexKindDef::Primary)
        .count()
        > 1
    {
        return Err(ErrorKind::ER_MULTIPLE_PRI_KEY.into());
    }
    if indexes
        .first()
        .is_none_or(|i| i.kind != IndexKindDef::Primary)
    {
        indexes.insert(
            0,
            row_id.unwrap_or(IndexDef {
                name: "GEN_CLUST_INDEX".into(),
                id: 0,
                kind: IndexKindDef::RowId,
                parts: Vec::new(),
                invisible: false,
                comment: None,
            }),
        );
    }
    let autos: Vec<usize> = (0..columns.len())
        .filter(|&i| columns[i].auto_increment)
        .collect();
    if autos.len() > 1
        || autos.first().is_some_and(|&a| {
            !indexes
                .iter()
                .any(|ix| ix.parts.first().is_some_and(|p| p.column == a))
        })
    {
        return Err(ErrorKind::ER_WRONG_AUTO_KEY.into());
    }
    if indexes.len() > 64 + 1 {
        return Err(KilnError::new(ErrorKind::ER_TOO_MANY_KEYS, &[&64]));
    }
    Ok(indexes)
}

fn unique_index_name(indexes: &[IndexDef], base: &str) -> String {
    if !indexes.iter().any(|i| i.name.eq_ignore_ascii_case(base)) {
        return base.to_string();
    }
    (2..)
        .map(|n| format!("{base}_{n}"))
        .find(|n| !indexes.iter().any(|i| i.name.eq_ignore_ascii_case(n)))
        .expect("some suffix is free")
}

pub(crate) fn add_index(
    columns: &mut [ColumnDef],
    indexes: &mut Vec<IndexDef>,
    spec: &IndexSpec,
) -> Result<()> {
    let name = match (&spec.kind, &spec.name) {
        (IndexKind::Primary, _) => "PRIMARY".to_string(),
        (_, Some(n)) => {
            if n.eq_ignore_ascii_case("PRIMARY") {
                return Err(KilnError::new(ErrorKind::ER_WRONG_NAME_FOR_INDEX, &[&n]));
            }
            if indexes.iter().any(|i| i.name.eq_ignore_ascii_case(n)) {
                return Err(KilnError::new(ErrorKind::ER_DUP_KEYNAME, &[&n]));
            }
            n.clone()
        }
        (_, None) => unique_index_name(indexes, &spec.parts[0].column),
    };
    if spec.kind == IndexKind::Primary && indexes.iter().any(|i| i.kind == IndexKindDef::Primary) {
        return Err(ErrorKind::ER_MULTIPLE_PRI_KEY.into());
    }
    let ix = index_def(columns, spec, name)?;
    indexes.push(ix);
    Ok(())
}

pub fn create_table(sess: &mut Session, ct: &CreateTable) -> Result<Outcome> {
    let schema = schema_of(sess, &ct.name)?;
    check_name(&ct.name.name, ErrorKind::ER_WRONG_TABLE_NAME)?;
    if let Some(e) = &ct.options.engine
        && !["innodb", "kiln", "memory", "myisam"].contains(&e.to_ascii_lowercase().as_str())
    {
        return Err(KilnError::new(ErrorKind::ER_UNKNOWN_STORAGE_ENGINE, &[&e]));
    }
    let cat = sess.catalog()?;
    let db = cat
        .database(&schema)
        .cloned()
        .ok_or_else(|| KilnError::new(ErrorKind::ER_BAD_DB_ERROR, &[&schema]))?;
    // A temporary table may take a base table's name (and shadows it); a base table
    // may take a temporary table's.
    let exists = if ct.temporary {
        sess.temp.get(&schema, &ct.name.name).is_some()
    } else {
        cat.table(&schema, &ct.name.name).is_some()
    };
    if exists {
        if ct.if_not_exists {
            let e = KilnError::new(ErrorKind::ER_TABLE_EXISTS_ERROR, &[&ct.name.name]);
            sess.note(e.code, e.message);
            return Ok(Outcome::ok());
        }
        return Err(KilnError::new(
            ErrorKind::ER_TABLE_EXISTS_ERROR,
            &[&ct.name.name],
        ));
    }
    if let Some(like) = &ct.like {
        if like.name == ct.name.name && schema_of(sess, like)? == schema {
            return Err(KilnError::new(ErrorKind::ER_NONUNIQ_TABLE, &[&like.name]));
        }
        let src = super::select::resolve_table(sess, like)?;
        let mut def = src.def.clone();
        def.schema = schema;
        def.name = ct.name.name.clone();
        def.auto_increment_start = 0;
        store_new_table(sess, ct, def)?;
        return Ok(Outcome::ok());
    }
    let (charset, collation) = resolve_charset(
        ct.options.charset.as_deref(),
        ct.options.collation.as_deref(),
        (&db.charset, &db.collation),
    )?;
    let mut columns: Vec<ColumnDef> = Vec::with_capacity(ct.columns.len());
    for spec in &ct.columns {
        if columns
            .iter()
            .any(|c| c.name.eq_ignore_ascii_case(&spec.name))
        {
            return Err(KilnError::new(ErrorKind::ER_DUP_FIELDNAME, &[&spec.name]));
        }
        columns.push(column_def(sess, spec, (&charset, &collation))?);
    }
    let select_rows = match &ct.as_select {
        Some(sel) => {
            let rows = super::select::run(sess, sel)?;
            for c in rows.columns.iter() {
                if columns.iter().any(|x| x.name.eq_ignore_ascii_case(&c.name)) {
                    continue;
                }
                columns.push(ColumnDef {
                    name: c.name.clone(),
                    ty: type_from_result(c, &collation),
                    nullable: !c.not_null,
                    default: None,
                    auto_increment: false,
                    on_update_now: false,
                    comment: None,
                    invisible: false,
                });
            }
            Some(rows)
        }
        None => None,
    };
    if columns.is_empty() {
        return Err(ErrorKind::ER_TABLE_MUST_HAVE_COLUMNS.into());
    }
    let mut indexes: Vec<IndexDef> = Vec::new();
    for spec in &ct.columns {
        if spec.primary {
            add_index(
                &mut columns,
                &mut indexes,
                &IndexSpec {
                    name: None,
                    kind: IndexKind::Primary,
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
    for spec in &ct.indexes {
        if spec.kind == IndexKind::Primary {
            // A column declared NULL cannot be part of the primary key (1171).
            for p in &spec.parts {
                if ct
                    .columns
                    .iter()
                    .any(|c| c.name.eq_ignore_ascii_case(&p.column) && c.nullable == Some(true))
                {
                    return Err(ErrorKind::ER_PRIMARY_CANT_HAVE_NULL.into());
                }
            }
        }
        add_index(&mut columns, &mut indexes, spec)?;
    }
    for spec in &ct.columns {
        if spec.unique {
            add_index(
                &mut columns,
                &mut indexes,
                &IndexSpec {
                    name: None,
                    kind: IndexKind::Unique,
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
    let indexes = finish_indexes(&columns, indexes)?;
    let foreign_keys = ct
        .foreign_keys
        .iter()
        .enumerate()
        .map(|(i, f)| ForeignKeyDef {
            name: f
                .name
                .clone()
                .unwrap_or_else(|| format!("{}_ibfk_{}", ct.name.name, i + 1)),
            columns: f.columns.clone(),
            ref_schema: f.ref_table.schema.clone().unwrap_or_else(|| schema.clone()),
            ref_table: f.ref_table.name.clone(),
            ref_columns: f.ref_columns.clone(),
            actions: f.actions.clone(),
        })
        .collect();
    let def = TableDef {
        id: 0,
        schema: schema.clone(),
        name: ct.name.name.clone(),
        space_id: 0,
        columns,
        indexes,
        foreign_keys,
        engine: "InnoDB".into(),
        charset,
        collation,
        comment: ct.options.comment.clone().unwrap_or_default(),
        row_format: ct.options.row_format.clone(),
        next_index_id: 0,
        created_unix_secs: (kiln_common::time::unix_micros_now() / 1_000_000) as u64,
        auto_increment_start: ct.options.auto_increment.unwrap_or(0),
    };
    store_new_table(sess, ct, def)?;
    if let Some(rows) = select_rows {
        let n = rows.rows.len();
        let names: Vec<String> = rows.columns.iter().map(|c| c.name.clone()).collect();
        let ins = Insert {
            table: TableName {
                schema: Some(schema),
                name: ct.name.name.clone(),
            },
            columns: names,
            source: InsertSource::Values(
                rows.rows
                    .into_iter()
                    .map(|r| r.into_iter().map(|v| Some(Expr::Literal(v))).collect())
                    .collect(),
            ),
            ignore: false,
            replace: false,
            on_duplicate: Vec::new(),
            row_alias: None,
        };
        if n > 0
            && let Err(e) = super::dml::insert(sess, &ins)
        {
            // A temporary table is not left behind half filled (MySQL 8.0's CREATE
            // ... SELECT is atomic).
            if ct.temporary {
                let schema = ins.table.schema.as_deref().unwrap_or("");
                sess.drop_temp_table(schema, &ct.name.name);
            }
            return Err(e);
        }
        return Ok(Outcome::Ok {
            affected_rows: n as u64,
            last_insert_id: 0,
            info: format!("Records: {n}  Duplicates: 0  Warnings: 0"),
        });
    }
    Ok(Outcome::ok())
}

/// Creates the checked definition: a session temporary table, or a dictionary table.
fn store_new_table(sess: &mut Session, ct: &CreateTable, def: TableDef) -> Result<()> {
    if ct.temporary {
        sess.create_temp_table(def)
    } else {
        sess.dict()?.create_table(def, ct.if_not_exists).map(|_| ())
    }
}

pub(crate) fn type_from_result(c: &crate::result::ColumnInfo, collation: &str) -> SqlType {
    use crate::result::ColumnKind as K;
    match c.kind {
        K::Tiny | K::Short | K::Int24 | K::Long | K::LongLong => SqlType::Int {
            kind: crate::types::IntKind::Big,
            unsigned: c.unsigned,
            zerofill: false,
            width: None,
        },
        K::Float | K::Double => SqlType::Double { unsigned: false },
        K::NewDecimal => SqlType::Decimal {
            precision: c.length_chars.clamp(1, 65),
            scale: (c.decimals as u32).min(30),
            unsigned: false,
        },
        K::Date => SqlType::Date,
        K::DateTime => SqlType::DateTime(0),
        K::Timestamp => SqlType::Timestamp(0),
        K::Time => SqlType::Time(0),
        K::Year => SqlType::Year,
        K::Json => SqlType::Json,
        K::Blob if c.binary => SqlType::Blob(crate::types::LobSize::Long),
        K::Blob => SqlType::Text {
            size: crate::types::LobSize::Long,
            collation: collation.to_string(),
        },
        _ if c.binary => SqlType::VarBinary(c.length_chars.clamp(1, 65_535)),
        _ => SqlType::VarChar {
            len: c.length_chars.clamp(1, 16_383),
            collation: collation.to_string(),
        },
    }
}

/// DROP [TEMPORARY] TABLE: a name the session has a temporary table of drops that;
/// the other names are base tables (none with TEMPORARY). Every name is checked before
/// anything is dropped (1051 naming the missing ones; notes with IF EXISTS).
pub fn drop_tables(
    sess: &mut Session,
    names: &[TableName],
    if_exists: bool,
    temporary: bool,
) -> Result<Outcome> {
    let mut temps = Vec::new();
    let mut bases = Vec::with_capacity(names.len());
    for n in names {
        let key = (schema_of(sess, n)?, n.name.clone());
        if sess.temp.get(&key.0, &key.1).is_some() {
            if !temps.contains(&key) {
                temps.push(key);
            }
        } else {
            bases.push(key);
        }
    }
    let missing: Vec<String> = if temporary {
        std::mem::take(&mut bases)
            .iter()
            .map(|(s, n)| format!("{s}.{n}"))
            .collect()
    } else {
        let cat = sess.catalog()?;
        bases
            .iter()
            .filter(|(s, n)| cat.table(s, n).is_none())
            .map(|(s, n)| format!("{s}.{n}"))
            .collect()
    };
    if !missing.is_empty() && !if_exists {
        return Err(KilnError::new(
            ErrorKind::ER_BAD_TABLE_ERROR,
            &[&missing.join(",")],
        ));
    }
    for (s, n) in &temps {
        sess.drop_temp_table(s, n);
    }
    let mut missing = missing;
    if !bases.is_empty() {
        missing = sess.dict()?.drop_tables(&bases, if_exists)?;
    }
    for m in missing {
        let e = KilnError::new(ErrorKind::ER_BAD_TABLE_ERROR, &[&m]);
        sess.note(e.code, e.message);
    }
    Ok(Outcome::ok())
}

pub fn truncate(sess: &mut Session, name: &TableName) -> Result<Outcome> {
    let schema = schema_of(sess, name)?;
    sess.replace_table(
        &schema,
        &name.name,
        true,
        |old| Ok(old.def.clone()),
        |_, _, _| Ok(()),
    )?;
    Ok(Outcome::ok())
}

pub fn rename(sess: &mut Session, pairs: &[(TableName, TableName)]) -> Result<Outcome> {
    for (from, to) in pairs {
        let fs = schema_of(sess, from)?;
        let ts = schema_of(sess, to)?;
        check_name(&to.name, ErrorKind::ER_WRONG_TABLE_NAME)?;
        if sess.catalog()?.view(&fs, &from.name).is_some() {
            // A view renames within its database (exec/view.rs).
            sess.dict()?.rename_view(&fs, &from.name, &ts, &to.name)?;
            continue;
        }
        let to_name = to.name.clone();
        sess.dict()?.replace_table(
            &fs,
            &from.name,
            false,
            |old| {
                let mut d = old.def.clone();
                d.schema = ts.clone();
                d.name = to_name.clone();
                Ok(d)
            },
            |_, _, _| Ok(()),
        )?;
    }
    Ok(Outcome::ok())
}
