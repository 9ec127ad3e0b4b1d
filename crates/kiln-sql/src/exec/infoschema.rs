//! information_schema: views of the catalog (and of the server) built when a query
//! names them, with MySQL 8.0's table and column names. The rows are materialized
//! for the query; WHERE, ORDER BY and the rest then run on them like any table.
//! Tables MySQL has but kiln has nothing for (EVENTS, FILES, ...)
//! exist and are empty, so tools that query them (mysqldump) work.

use kiln_common::Result;

use crate::dict::{IndexKindDef, TableHandle};
use crate::session::Session;
use crate::types::SqlType;
use crate::value::Value;

pub const SCHEMA: &str = "information_schema";

/// A virtual table: column names and rows.
pub struct Virtual {
    pub columns: Vec<&'static str>,
    pub rows: Vec<Vec<Value>>,
}

fn s(v: impl Into<String>) -> Value {
    Value::Str(v.into())
}

fn u(v: u64) -> Value {
    Value::UInt(v)
}

fn opt_u(v: Option<u64>) -> Value {
    v.map_or(Value::Null, Value::UInt)
}

/// Every information_schema table kiln answers, in SHOW TABLES order.
pub const TABLES: &[&str] = &[
    "CHARACTER_SETS",
    "COLLATIONS",
    "COLUMNS",
    "ENGINES",
    "EVENTS",
    "FILES",
    "INNODB_TRX",
    "KEY_COLUMN_USAGE",
    "PARAMETERS",
    "PARTITIONS",
    "PROCESSLIST",
    "REFERENTIAL_CONSTRAINTS",
    "ROUTINES",
    "SCHEMATA",
    "STATISTICS",
    "TABLES",
    "TABLE_CONSTRAINTS",
    "THREAD_POOL_GROUPS",
    "THREAD_POOL_QUEUES",
    "THREAD_POOL_STATS",
    "THREAD_POOL_WAITS",
    "TRIGGERS",
    "VIEWS",
];

/// The thread pool's tables, with MariaDB's column names (rows from the server).
const THREAD_POOL_TABLES: &[(&str, &[&str])] = &[
    (
        "THREAD_POOL_GROUPS",
        &[
            "GROUP_ID",
            "CONNECTIONS",
            "THREADS",
            "ACTIVE_THREADS",
            "STANDBY_THREADS",
            "QUEUE_LENGTH",
            "HAS_LISTENER",
            "IS_STALLED",
        ],
    ),
    (
        "THREAD_POOL_QUEUES",
        &[
            "GROUP_ID",
            "POSITION",
            "PRIORITY",
            "CONNECTION_ID",
            "QUEUEING_TIME_MICROSECONDS",
        ],
    ),
    (
        "THREAD_POOL_STATS",
        &[
            "GROUP_ID",
            "THREAD_CREATIONS",
            "THREAD_CREATIONS_DUE_TO_STALL",
            "WAKES",
            "WAKES_DUE_TO_STALL",
            "THROTTLES",
            "STALLS",
            "POLLS_BY_LISTENER",
            "POLLS_BY_WORKER",
            "DEQUEUES_BY_LISTENER",
            "DEQUEUES_BY_WORKER",
        ],
    ),
    ("THREAD_POOL_WAITS", &["REASON", "COUNT"]),
];

/// The tables the session may see (any privilege on them), by schema and name.
fn tables(sess: &mut Session) -> Result<Vec<std::sync::Arc<TableHandle>>> {
    let cat = sess.catalog()?;
    let p = sess.privileges();
    let mut v: Vec<_> = cat
        .tables
        .values()
        .filter(|t| p.sees_table(&t.def.schema, &t.def.name))
        .cloned()
        .collect();
    v.sort_by(|a, b| (&a.def.schema, &a.def.name).cmp(&(&b.def.schema, &b.def.name)));
    Ok(v)
}

/// The views the session may see (any privilege on them), by schema and name.
fn views(sess: &mut Session) -> Result<Vec<std::sync::Arc<crate::dict::ViewDef>>> {
    let cat = sess.catalog()?;
    let p = sess.privileges();
    let mut v: Vec<_> = cat
        .views
        .values()
        .filter(|v| p.sees_table(&v.schema, &v.name))
        .cloned()
        .collect();
    v.sort_by(|a, b| (&a.schema, &a.name).cmp(&(&b.schema, &b.name)));
    Ok(v)
}

/// The rows of information_schema.`name` (None: no such table).
pub fn table(sess: &mut Session, name: &str) -> Result<Option<Virtual>> {
    let upper = name.to_ascii_uppercase();
    Ok(Some(match upper.as_str() {
        "SCHEMATA" => {
            let mut rows = Vec::new();
            rows.push(vec![
                s("def"),
                s(SCHEMA),
                s("utf8mb3"),
                s("utf8mb3_general_ci"),
                Value::Null,
                s("NO"),
            ]);
            let cat = sess.catalog()?;
            let p = sess.privileges();
            let all = p.global_has(crate::privilege::SHOW_DATABASES);
            for d in cat.databases.values().filter(|d| all || p.sees_db(&d.name)) {
                rows.push(vec![
                    s("def"),
                    s(d.name.clone()),
                    s(d.charset.clone()),
                    s(d.collation.clone()),
                    Value::Null,
                    s("NO"),
                ]);
            }
            rows.push(vec![
                s("def"),
                s("performance_schema"),
                s("utf8mb4"),
                s("utf8mb4_0900_ai_ci"),
                Value::Null,
                s("NO"),
            ]);
            Virtual {
                columns: vec![
                    "CATALOG_NAME",
                    "SCHEMA_NAME",
                    "DEFAULT_CHARACTER_SET_NAME",
                    "DEFAULT_COLLATION_NAME",
                    "SQL_PATH",
                    "DEFAULT_ENCRYPTION",
                ],
                rows,
            }
        }
        "TABLES" => {
            let mut rows = Vec::new();
            for t in tables(sess)? {
                let d = &t.def;
                let created = kiln_common::time::CivilTime::from_unix_micros(
                    d.created_unix_secs as i64 * 1_000_000,
                )
                .datetime_string();
                let table_rows = t.rows_estimate();
                let (data, index) = t.size_bytes();
                rows.push(vec![
                    s("def"),
                    s(d.schema.clone()),
                    s(d.name.clone()),
                    s("BASE TABLE"),
                    s("InnoDB"),
                    u(10),
                    s(d.row_format.clone().unwrap_or_else(|| "Dynamic".into())),
                    u(table_rows),
                    u(data.checked_div(table_rows).unwrap_or(0)),
                    u(data),
                    u(0),
                    u(index),
                    u(0),
                    match t.auto_increment_column() {
                        Some(_) => u(t.auto_inc_peek()),
                        None => Value::Null,
                    },
                    s(created[..19].to_string()),
                    Value::Null,
                    Value::Null,
                    s(d.collation.clone()),
                    Value::Null,
                    s(""),
                    s(d.comment.clone()),
                ]);
            }
            for v in views(sess)? {
                let mut r = vec![s("def"), s(v.schema.clone()), s(v.name.clone()), s("VIEW")];
                r.resize(20, Value::Null);
                r.push(s("VIEW"));
                rows.push(r);
            }
            for name in TABLES {
                rows.push(vec![
                    s("def"),
                    s(SCHEMA),
                    s(*name),
                    s("SYSTEM VIEW"),
                    Value::Null,
                    u(10),
                    Value::Null,
                    u(0),
                    u(0),
                    u(0),
                    u(0),
                    u(0),
                    u(0),
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    s(""),
                    s(""),
                ]);
            }
            Virtual {
                columns: vec![
                    "TABLE_CATALOG",
                    "TABLE_SCHEMA",
                    "TABLE_NAME",
                    "TABLE_TYPE",
                    "ENGINE",
                    "VERSION",
                    "ROW_FORMAT",
                    "TABLE_ROWS",
                    "AVG_ROW_LENGTH",
                    "DATA_LENGTH",
                    "MAX_DATA_LENGTH",
                    "INDEX_LENGTH",
                    "DATA_FREE",
                    "AUTO_INCREMENT",
                    "CREATE_TIME",
                    "UPDATE_TIME",
                    "CHECK_TIME",
                    "TABLE_COLLATION",
                    "CHECKSUM",
                    "CREATE_OPTIONS",
                    "TABLE_COMMENT",
                ],
                rows,
            }
        }
        "COLUMNS" => {
            let mut rows = Vec::new();
            for t in tables(sess)? {
                let d = &t.def;
                for (i, c) in d.columns.iter().enumerate() {
                    rows.push(column_row(
                        [&d.schema, &d.name],
                        i,
                        c,
                        super::show::key_flag(d, i),
                        super::show::extra(c),
                    ));
                }
            }
            // A view's columns (a view that no longer resolves shows none).
            for v in views(sess)? {
                let Ok(cols) = super::view::columns_of(sess, &v) else {
                    continue;
                };
                for (i, c) in cols.into_iter().enumerate() {
                    let def = crate::dict::ColumnDef {
                        name: c.name,
                        ty: c.ty,
                        nullable: c.nullable,
                        default: c.default,
                        auto_increment: false,
                        on_update_now: false,
                        comment: None,
                        invisible: false,
                    };
                    rows.push(column_row([&v.schema, &v.name], i, &def, "", String::new()));
                }
            }
            Virtual {
                columns: vec![
                    "TABLE_CATALOG",
                    "TABLE_SCHEMA",
                    "TABLE_NAME",
                    "COLUMN_NAME",
                    "ORDINAL_POSITION",
                    "COLUMN_DEFAULT",
                    "IS_NULLABLE",
                    TYPE_COLUMNS[0],
                    TYPE_COLUMNS[1],
                    TYPE_COLUMNS[2],
                    TYPE_COLUMNS[3],
                    TYPE_COLUMNS[4],
                    TYPE_COLUMNS[5],
                    TYPE_COLUMNS[6],
                    TYPE_COLUMNS[7],
                    "COLUMN_TYPE",
                    "COLUMN_KEY",
                    "EXTRA",
                    "PRIVILEGES",
                    "COLUMN_COMMENT",
                    "GENERATION_EXPRESSION",
                    "SRS_ID",
                ],
                rows,
            }
        }
        "STATISTICS" => {
            let mut rows = Vec::new();
            for t in tables(sess)? {
                let d = &t.def;
                for ix in &d.indexes {
                    if ix.kind == IndexKindDef::RowId {
                        continue;
                    }
                    for (n, p) in ix.parts.iter().enumerate() {
                        let c = &d.columns[p.column];
                        rows.push(vec![
                            s("def"),
                            s(d.schema.clone()),
                            s(d.name.clone()),
                            u(u64::from(!ix.is_unique())),
                            s(d.schema.clone()),
                            s(ix.name.clone()),
                            u(n as u64 + 1),
                            s(c.name.clone()),
                            s(if p.desc { "D" } else { "A" }),
                            u(0),
                            p.prefix_chars.map_or(Value::Null, |x| u(x as u64)),
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
            }
            Virtual {
                columns: vec![
                    "TABLE_CATALOG",
                    "TABLE_SCHEMA",
                    "TABLE_NAME",
                    "NON_UNIQUE",
                    "INDEX_SCHEMA",
                    "INDEX_NAME",
                    "SEQ_IN_INDEX",
                    "COLUMN_NAME",
                    "COLLATION",
                    "CARDINALITY",
                    "SUB_PART",
                    "PACKED",
                    "NULLABLE",
                    "INDEX_TYPE",
                    "COMMENT",
                    "INDEX_COMMENT",
                    "IS_VISIBLE",
                    "EXPRESSION",
                ],
                rows,
            }
        }
        "KEY_COLUMN_USAGE" => {
            let mut rows = Vec::new();
            for t in tables(sess)? {
                let d = &t.def;
                for ix in &d.indexes {
                    if !matches!(ix.kind, IndexKindDef::Primary | IndexKindDef::Unique) {
                        continue;
                    }
                    for (n, p) in ix.parts.iter().enumerate() {
                        rows.push(vec![
                            s("def"),
                            s(d.schema.clone()),
                            s(ix.name.clone()),
                            s("def"),
                            s(d.schema.clone()),
                            s(d.name.clone()),
                            s(d.columns[p.column].name.clone()),
                            u(n as u64 + 1),
                            Value::Null,
                            Value::Null,
                            Value::Null,
                            Value::Null,
                        ]);
                    }
                }
                for f in &d.foreign_keys {
                    for (n, (c, r)) in f.columns.iter().zip(&f.ref_columns).enumerate() {
                        rows.push(vec![
                            s("def"),
                            s(d.schema.clone()),
                            s(f.name.clone()),
                            s("def"),
                            s(d.schema.clone()),
                            s(d.name.clone()),
                            s(c.clone()),
                            u(n as u64 + 1),
                            u(n as u64 + 1),
                            s(f.ref_schema.clone()),
                            s(f.ref_table.clone()),
                            s(r.clone()),
                        ]);
                    }
                }
            }
            Virtual {
                columns: vec![
                    "CONSTRAINT_CATALOG",
                    "CONSTRAINT_SCHEMA",
                    "CONSTRAINT_NAME",
                    "TABLE_CATALOG",
                    "TABLE_SCHEMA",
                    "TABLE_NAME",
                    "COLUMN_NAME",
                    "ORDINAL_POSITION",
                    "POSITION_IN_UNIQUE_CONSTRAINT",
                    "REFERENCED_TABLE_SCHEMA",
                    "REFERENCED_TABLE_NAME",
                    "REFERENCED_COLUMN_NAME",
                ],
                rows,
            }
        }
        "TABLE_CONSTRAINTS" => {
            let mut rows = Vec::new();
            for t in tables(sess)? {
                let d = &t.def;
                for ix in &d.indexes {
                    let kind = match ix.kind {
                        IndexKindDef::Primary => "PRIMARY KEY",
                        IndexKindDef::Unique => "UNIQUE",
                        _ => continue,
                    };
                    rows.push(vec![
                        s("def"),
                        s(d.schema.clone()),
                        s(ix.name.clone()),
                        s(d.schema.clone()),
                        s(d.name.clone()),
                        s(kind),
                        s("YES"),
                    ]);
                }
                for f in &d.foreign_keys {
                    rows.push(vec![
                        s("def"),
                        s(d.schema.clone()),
                        s(f.name.clone()),
                        s(d.schema.clone()),
                        s(d.name.clone()),
                        s("FOREIGN KEY"),
                        s("YES"),
                    ]);
                }
            }
            Virtual {
                columns: vec![
                    "CONSTRAINT_CATALOG",
                    "CONSTRAINT_SCHEMA",
                    "CONSTRAINT_NAME",
                    "TABLE_SCHEMA",
                    "TABLE_NAME",
                    "CONSTRAINT_TYPE",
                    "ENFORCED",
                ],
                rows,
            }
        }
        "ENGINES" => Virtual {
            columns: vec![
                "ENGINE",
                "SUPPORT",
                "COMMENT",
                "TRANSACTIONS",
                "XA",
                "SAVEPOINTS",
            ],
            rows: vec![vec![
                s("InnoDB"),
                s("DEFAULT"),
                s("kiln: transactions, row-level locking, and foreign keys"),
                s("YES"),
                s("NO"),
                s("YES"),
            ]],
        },
        "CHARACTER_SETS" => Virtual {
            columns: vec![
                "CHARACTER_SET_NAME",
                "DEFAULT_COLLATE_NAME",
                "DESCRIPTION",
                "MAXLEN",
            ],
            rows: crate::charset::CHARSETS
                .iter()
                .map(|c| {
                    vec![
                        s(c.name),
                        s(c.default_collation),
                        s(c.description),
                        u(c.max_len_bytes),
                    ]
                })
                .collect(),
        },
        "COLLATIONS" => Virtual {
            columns: vec![
                "COLLATION_NAME",
                "CHARACTER_SET_NAME",
                "ID",
                "IS_DEFAULT",
                "IS_COMPILED",
                "SORTLEN",
                "PAD_ATTRIBUTE",
            ],
            rows: crate::charset::COLLATIONS
                .iter()
                .map(|c| {
                    vec![
                        s(c.name),
                        s(c.charset),
                        u(c.id),
                        s(if c.is_default { "Yes" } else { "" }),
                        s("Yes"),
                        u(if c.name.contains("0900") { 0 } else { 1 }),
                        s(if c.pad_space { "PAD SPACE" } else { "NO PAD" }),
                    ]
                })
                .collect(),
        },
        "PROCESSLIST" => Virtual {
            columns: vec![
                "ID", "USER", "HOST", "DB", "COMMAND", "TIME", "STATE", "INFO",
            ],
            rows: crate::show::visible_processes(sess)
                .into_iter()
                .map(|p| {
                    vec![
                        u(p.id),
                        s(p.user),
                        s(p.host),
                        p.db.map_or(Value::Null, s),
                        s(p.command),
                        u(p.time_secs),
                        s(p.state),
                        p.info.map_or(Value::Null, s),
                    ]
                })
                .collect(),
        },
        "INNODB_TRX" => {
            // MySQL: the InnoDB tables of information_schema need PROCESS.
            crate::privcheck::global(&sess.privileges(), crate::privilege::PROCESS, "PROCESS")?;
            let rows = match sess.dict() {
                Ok(d) => {
                    d.te.transactions()
                        .into_iter()
                        .map(|t| {
                            vec![
                                u(t.id),
                                s(if t.waiting_for.is_some() {
                                    "LOCK WAIT"
                                } else {
                                    "RUNNING"
                                }),
                                u(t.locks as u64),
                            ]
                        })
                        .collect()
                }
                Err(_) => Vec::new(),
            };
            Virtual {
                columns: vec!["trx_id", "trx_state", "trx_rows_locked"],
                rows,
            }
        }
        "VIEWS" => Virtual {
            columns: vec![
                "TABLE_CATALOG",
                "TABLE_SCHEMA",
                "TABLE_NAME",
                "VIEW_DEFINITION",
                "CHECK_OPTION",
                "IS_UPDATABLE",
                "DEFINER",
                "SECURITY_TYPE",
                "CHARACTER_SET_CLIENT",
                "COLLATION_CONNECTION",
            ],
            rows: views(sess)?
                .into_iter()
                .map(|v| {
                    vec![
                        s("def"),
                        s(v.schema.clone()),
                        s(v.name.clone()),
                        s(v.select_text.clone()),
                        s(v.check.name()),
                        s(if v.updatable { "YES" } else { "NO" }),
                        s(v.definer()),
                        s(if v.invoker { "INVOKER" } else { "DEFINER" }),
                        s(v.charset_client.clone()),
                        s(v.collation_connection.clone()),
                    ]
                })
                .collect(),
        },
        "ROUTINES" => {
            let (columns, rows) = super::routine_show::routines_rows(sess)?;
            Virtual { columns, rows }
        }
        "PARAMETERS" => {
            let (columns, rows) = super::routine_show::parameters_rows(sess)?;
            Virtual { columns, rows }
        }
        t if t.starts_with("THREAD_POOL_") => {
            let Some((name, columns)) = THREAD_POOL_TABLES.iter().find(|(n, _)| *n == t) else {
                return Ok(None);
            };
            Virtual {
                columns: columns.to_vec(),
                rows: sess.server.thread_pool_rows(name),
            }
        }
        "TRIGGERS" => {
            let (columns, rows) = super::trigger::infoschema_rows(sess)?;
            Virtual { columns, rows }
        }
        "EVENTS" => empty(&[
            "EVENT_CATALOG",
            "EVENT_SCHEMA",
            "EVENT_NAME",
            "DEFINER",
            "STATUS",
        ]),
        "FILES" => empty(&[
            "FILE_ID",
            "FILE_NAME",
            "FILE_TYPE",
            "TABLESPACE_NAME",
            "TABLE_SCHEMA",
            "TABLE_NAME",
            "LOGFILE_GROUP_NAME",
            "LOGFILE_GROUP_NUMBER",
            "ENGINE",
            "TOTAL_EXTENTS",
            "EXTENT_SIZE",
            "INITIAL_SIZE",
            "MAXIMUM_SIZE",
            "AUTOEXTEND_SIZE",
            "EXTRA",
        ]),
        "PARTITIONS" => empty(&[
            "TABLE_CATALOG",
            "TABLE_SCHEMA",
            "TABLE_NAME",
            "PARTITION_NAME",
            "SUBPARTITION_NAME",
            "PARTITION_ORDINAL_POSITION",
            "PARTITION_METHOD",
            "PARTITION_EXPRESSION",
            "TABLE_ROWS",
        ]),
        "REFERENTIAL_CONSTRAINTS" => {
            let mut rows = Vec::new();
            for t in tables(sess)? {
                for f in &t.def.foreign_keys {
                    rows.push(vec![
                        s("def"),
                        s(t.def.schema.clone()),
                        s(f.name.clone()),
                        s("def"),
                        s(f.ref_schema.clone()),
                        s("PRIMARY"),
                        s("NONE"),
                        s(action(&f.actions, "UPDATE")),
                        s(action(&f.actions, "DELETE")),
                        s(t.def.name.clone()),
                        s(f.ref_table.clone()),
                    ]);
                }
            }
            Virtual {
                columns: vec![
                    "CONSTRAINT_CATALOG",
                    "CONSTRAINT_SCHEMA",
                    "CONSTRAINT_NAME",
                    "UNIQUE_CONSTRAINT_CATALOG",
                    "UNIQUE_CONSTRAINT_SCHEMA",
                    "UNIQUE_CONSTRAINT_NAME",
                    "MATCH_OPTION",
                    "UPDATE_RULE",
                    "DELETE_RULE",
                    "TABLE_NAME",
                    "REFERENCED_TABLE_NAME",
                ],
                rows,
            }
        }
        _ => return Ok(None),
    }))
}

fn empty(columns: &[&'static str]) -> Virtual {
    Virtual {
        columns: columns.to_vec(),
        rows: Vec::new(),
    }
}

/// The rule of `ON UPDATE` / `ON DELETE` in a foreign key's action text.
fn action(actions: &str, on: &str) -> String {
    let up = actions.to_ascii_uppercase();
    let Some(at) = up.find(&format!("ON {on} ")) else {
        return "NO ACTION".into();
    };
    let rest = &up[at + 4 + on.len()..];
    for rule in [
        "SET NULL",
        "SET DEFAULT",
        "NO ACTION",
        "CASCADE",
        "RESTRICT",
    ] {
        if rest.trim_start().starts_with(rule) {
            return rule.into();
        }
    }
    "NO ACTION".into()
}

/// (CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH).
/// One row of information_schema.COLUMNS.
fn column_row(
    [schema, table]: [&str; 2],
    i: usize,
    c: &crate::dict::ColumnDef,
    key: &str,
    extra: String,
) -> Vec<Value> {
    let mut row = vec![
        s("def"),
        s(schema),
        s(table),
        s(c.name.clone()),
        u(i as u64 + 1),
        super::show::default_text(&c.default),
        s(if c.nullable { "YES" } else { "NO" }),
    ];
    row.extend(type_values(&c.ty));
    row.extend([
        s(c.ty.column_type()),
        s(key),
        s(extra),
        s("select,insert,update,references"),
        s(c.comment.clone().unwrap_or_default()),
        s(""),
        Value::Null,
    ]);
    row
}

/// The columns information_schema describes a type with (COLUMNS, ROUTINES,
/// PARAMETERS), in their order.
pub(crate) const TYPE_COLUMNS: [&str; 8] = [
    "DATA_TYPE",
    "CHARACTER_MAXIMUM_LENGTH",
    "CHARACTER_OCTET_LENGTH",
    "NUMERIC_PRECISION",
    "NUMERIC_SCALE",
    "DATETIME_PRECISION",
    "CHARACTER_SET_NAME",
    "COLLATION_NAME",
];

/// The values of `TYPE_COLUMNS` for a type.
pub(crate) fn type_values(ty: &SqlType) -> [Value; 8] {
    let (max_chars, octets) = char_lengths(ty);
    let (prec, scale) = numeric_precision(ty);
    let dt_prec = match ty {
        SqlType::DateTime(f) | SqlType::Timestamp(f) | SqlType::Time(f) => Some(*f as u64),
        _ => None,
    };
    let coll = ty.collation().filter(|c| !c.is_empty()).map(str::to_string);
    [
        s(ty.data_type()),
        opt_u(max_chars),
        opt_u(octets),
        opt_u(prec),
        opt_u(scale),
        opt_u(dt_prec),
        coll.as_ref()
            .map_or(Value::Null, |c| s(c.split('_').next().unwrap_or(""))),
        coll.map_or(Value::Null, s),
    ]
}

pub(crate) fn char_lengths(ty: &SqlType) -> (Option<u64>, Option<u64>) {
    let mb = match ty.collation() {
        Some(c) if c.starts_with("utf8mb4") => 4,
        Some(c) if c.starts_with("utf8") => 3,
        _ => 1,
    };
    match ty {
        SqlType::Char { len, .. } | SqlType::VarChar { len, .. } => {
            (Some(*len as u64), Some(*len as u64 * mb))
        }
        SqlType::Binary(n) | SqlType::VarBinary(n) => (Some(*n as u64), Some(*n as u64)),
        SqlType::Text { size, .. } => (Some(size.max_bytes() / mb), Some(size.max_bytes())),
        SqlType::Blob(size) => (Some(size.max_bytes()), Some(size.max_bytes())),
        SqlType::Enum { members, .. } => {
            let n = members.iter().map(|m| m.chars().count()).max().unwrap_or(0) as u64;
            (Some(n), Some(n * mb))
        }
        SqlType::Set { members, .. } => {
            let n = members
                .iter()
                .map(|m| m.chars().count() + 1)
                .sum::<usize>()
                .max(1) as u64
                - 1;
            (Some(n), Some(n * mb))
        }
        _ => (None, None),
    }
}

/// (NUMERIC_PRECISION, NUMERIC_SCALE).
pub(crate) fn numeric_precision(ty: &SqlType) -> (Option<u64>, Option<u64>) {
    use crate::types::IntKind;
    match ty {
        SqlType::Int { kind, unsigned, .. } => {
            let p = match (kind, unsigned) {
                (IntKind::Tiny, _) => 3,
                (IntKind::Small, _) => 5,
                (IntKind::Medium, _) => 7,
                (IntKind::Int, _) => 10,
                (IntKind::Big, false) => 19,
                (IntKind::Big, true) => 20,
            };
            (Some(p), Some(0))
        }
        SqlType::Decimal {
            precision, scale, ..
        } => (Some(*precision as u64), Some(*scale as u64)),
        SqlType::Float { .. } => (Some(12), None),
        SqlType::Double { .. } => (Some(22), None),
        SqlType::Bit(n) => (Some(*n as u64), None),
        _ => (None, None),
    }
}
