//! DDL: CREATE/DROP DATABASE, CREATE TABLE (columns, indexes, LIKE, AS SELECT),
//! DROP/TRUNCATE/RENAME TABLE, CREATE/DROP INDEX and ALTER TABLE. Definitions are
//! checked here with MySQL's errors; the dictionary makes them durable and atomic.
//!
//! ALTER TABLE rebuilds the table (new tablespace, rows copied and converted, then an
//! atomic switch) unless it only renames or changes metadata, or adds a column at the
//! end with a constant default (rows written before read it as that default).

use kiln_common::limits::IDENTIFIER_LEN_MAX;
use kiln_common::{ErrorKind, KilnError, Result};

use super::access::trx_error;
use crate::ast::*;
use crate::dict::{
    ColumnDef, ColumnDefault, DatabaseDef, ForeignKeyDef, IndexDef, IndexKindDef, IndexPart,
    TableDef, TableHandle,
};
use crate::eval::eval;
use crate::result::Outcome;
use crate::rowfmt;
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
fn resolve_charset(
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

fn schema_of(sess: &Session, t: &TableName) -> Result<String> {
    match (&t.schema, &sess.database) {
        (Some(s), _) => Ok(s.clone()),
        (None, Some(d)) => Ok(d.clone()),
        (None, None) => Err(ErrorKind::ER_NO_DB_ERROR.into()),
    }
}

/// A column definition from its spec, with the table's charset/collation as default.
fn column_def(sess: &mut Session, spec: &ColumnSpec, table_cs: (&str, &str)) -> Result<ColumnDef> {
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
fn index_def(columns: &mut [ColumnDef], spec: &IndexSpec, name: String) -> Result<IndexDef> {
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
fn finish_indexes(columns: &[ColumnDef], mut indexes: Vec<IndexDef>) -> Result<Vec<IndexDef>> {
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

fn add_index(
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
    if ct.temporary {
        return Err(KilnError::new(
            ErrorKind::ER_NOT_SUPPORTED_YET,
            &[&"TEMPORARY tables"],
        ));
    }
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
    if cat.table(&schema, &ct.name.name).is_some() {
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
        let src = super::select::resolve_table(sess, like)?;
        let mut def = src.def.clone();
        def.schema = schema;
        def.name = ct.name.name.clone();
        def.auto_increment_start = 0;
        sess.dict()?.create_table(def, ct.if_not_exists)?;
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
            for c in &rows.columns {
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
    sess.dict()?.create_table(def, ct.if_not_exists)?;
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
        if n > 0 {
            super::dml::insert(sess, &ins)?;
        }
        return Ok(Outcome::Ok {
            affected_rows: n as u64,
            last_insert_id: 0,
            info: format!("Records: {n}  Duplicates: 0  Warnings: 0"),
        });
    }
    Ok(Outcome::ok())
}

fn type_from_result(c: &crate::result::ColumnInfo, collation: &str) -> SqlType {
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

pub fn drop_tables(sess: &mut Session, names: &[TableName], if_exists: bool) -> Result<Outcome> {
    let mut full = Vec::with_capacity(names.len());
    for n in names {
        full.push((schema_of(sess, n)?, n.name.clone()));
    }
    let missing = sess.dict()?.drop_tables(&full, if_exists)?;
    for m in missing {
        let e = KilnError::new(ErrorKind::ER_BAD_TABLE_ERROR, &[&m]);
        sess.note(e.code, e.message);
    }
    Ok(Outcome::ok())
}

pub fn truncate(sess: &mut Session, name: &TableName) -> Result<Outcome> {
    let schema = schema_of(sess, name)?;
    sess.dict()?.replace_table(
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
    sess.dict()?.replace_table(
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
fn add_indexes_in_place(
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
    let dict = sess.dict()?;
    let engine = dict.engine.clone();
    let name = h.def.name.clone();
    dict.replace_table(
        schema,
        &name,
        false,
        |old| {
            let space = engine.space(old.def.space_id).ok_or_else(|| {
                crate::dict::storage_error(format!("tablespace of {name} is missing"))
            })?;
            for ix in def.indexes.iter().filter(|ix| new_ids.contains(&ix.id)) {
                if ix.kind == IndexKindDef::Fulltext {
                    continue;
                }
                let items = index_entries(old, ix)?;
                engine
                    .bulk_load_tree(&space, ix.id, items)
                    .map_err(crate::dict::storage_error)?;
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
fn index_entries(t: &TableHandle, ix: &IndexDef) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    let mut entries: Vec<(Vec<u8>, Vec<u8>, usize)> = Vec::new();
    let mut rows = Vec::new();
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
        let values = t.shape.decode(e.row);
        let key = rowfmt::index_key(&t.def.columns, &t.shape.colls, ix, &values);
        let has_null = ix.parts.iter().any(|p| values[p.column].is_null());
        let (k, val) = kiln_storage::trx::bulk_secondary_entry(&key, &pk);
        let key_len = if has_null { usize::MAX } else { key.len() };
        entries.push((k, val, key_len));
        rows.push(values);
        if entries.len() > crate::exec::select::ROWS_IN_MEMORY_MAX {
            return Err(KilnError::with_message(
                ErrorKind::ER_OUT_OF_RESOURCES,
                "Out of memory: too many rows to build the index in memory",
            ));
        }
    }
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by(|a, b| entries[*a].0.cmp(&entries[*b].0));
    if ix.kind == IndexKindDef::Unique {
        for w in order.windows(2) {
            let (a, b) = (&entries[w[0]], &entries[w[1]]);
            if a.2 != usize::MAX && a.2 == b.2 && a.0[..a.2] == b.0[..b.2] {
                let row = &rows[w[1]];
                let val: Vec<String> = ix
                    .parts
                    .iter()
                    .map(|p| row[p.column].to_string_lossy().unwrap_or_default())
                    .collect();
                return Err(KilnError::new(
                    ErrorKind::ER_DUP_ENTRY,
                    &[&val.join("-"), &format!("{}.{}", t.def.name, ix.name)],
                ));
            }
        }
    }
    Ok(order
        .into_iter()
        .map(|i| {
            let (k, v, _) = std::mem::take(&mut entries[i]);
            (k, v)
        })
        .collect())
}

fn moved(col: usize, from: usize, to: usize) -> usize {
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

fn position_of(def: &TableDef, position: &Option<Option<String>>) -> Result<usize> {
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
fn shift_parts(def: &mut TableDef, at: usize, delta: isize) {
    for ix in &mut def.indexes {
        for p in &mut ix.parts {
            if p.column >= at {
                p.column = (p.column as isize + delta) as usize;
            }
        }
    }
}

/// Copies every row of `old` into `new`, converting columns (ALTER TABLE rebuild).
fn copy_rows(
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
    new.rows_estimate
        .store(rows.len() as i64, std::sync::atomic::Ordering::Relaxed);
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
