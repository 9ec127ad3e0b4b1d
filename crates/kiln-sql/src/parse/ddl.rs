//! DDL: CREATE/DROP DATABASE, CREATE/DROP/TRUNCATE/RENAME/ALTER TABLE, CREATE/DROP
//! INDEX, and column data types.

use super::*;
use crate::types::{IntKind, LobSize, SqlType};
use crate::value::Value;

/// Columns and indexes one CREATE TABLE may declare (MySQL: 4096 columns, 64 indexes).
pub const COLUMNS_MAX: usize = 4096;
pub const INDEXES_MAX: usize = 64;

impl<'a> Parser<'a> {
    /// After `CREATE`: DATABASE/SCHEMA, [TEMPORARY] TABLE, [UNIQUE|FULLTEXT] INDEX.
    pub(super) fn create(&mut self) -> Result<Stmt> {
        self.expect_kw("CREATE")?;
        if self.eat_kw("DATABASE") || self.eat_kw("SCHEMA") {
            let if_not_exists = self.if_not_exists()?;
            let name = self.ident()?;
            let (mut charset, mut collation) = (None, None);
            self.charset_options(&mut charset, &mut collation)?;
            return Ok(Stmt::CreateDatabase {
                name,
                if_not_exists,
                charset,
                collation,
            });
        }
        if self.is_kw("OR") && self.is_kw_at(1, "REPLACE") {
            self.bump();
            self.bump();
            return self.view_definition(true, false);
        }
        if self.is_kw("TRIGGER") {
            return self.trigger_definition(None);
        }
        if self.is_kw("PROCEDURE") || self.is_kw("FUNCTION") {
            return self.routine_definition(None);
        }
        if self.starts_view(0) {
            return self.view_definition(false, false);
        }
        let temporary = self.eat_kw("TEMPORARY");
        if self.eat_kw("TABLE") {
            return self.create_table(temporary);
        }
        let kind = if self.eat_kw("UNIQUE") {
            IndexKind::Unique
        } else if self.eat_kw("FULLTEXT") {
            IndexKind::Fulltext
        } else if self.eat_kw("SPATIAL") {
            IndexKind::Spatial
        } else {
            IndexKind::Key
        };
        if !temporary && self.eat_kw("INDEX") {
            let name = self.ident()?;
            self.index_type_clause()?;
            self.expect_kw("ON")?;
            let table = self.table_name()?;
            let parts = self.index_parts()?;
            let (invisible, comment) = self.index_options()?;
            return Ok(Stmt::CreateIndex {
                table,
                spec: IndexSpec {
                    name: Some(name),
                    kind,
                    parts,
                    invisible,
                    comment,
                },
            });
        }
        Err(self.error())
    }

    /// `[DEFAULT] CHARACTER SET [=] x` / `CHARSET x` / `COLLATE [=] y`, repeated.
    fn charset_options(
        &mut self,
        charset: &mut Option<String>,
        collation: &mut Option<String>,
    ) -> Result<()> {
        loop {
            self.eat_kw("DEFAULT");
            if self.eat_kw("CHARSET") || (self.eat_kw("CHARACTER") && self.expect_set()?) {
                self.eat_op("=");
                *charset = Some(self.ident_or_string()?.to_ascii_lowercase());
            } else if self.eat_kw("COLLATE") {
                self.eat_op("=");
                *collation = Some(self.ident_or_string()?.to_ascii_lowercase());
            } else if self.eat_kw("ENCRYPTION") {
                self.eat_op("=");
                self.string()?;
            } else {
                return Ok(());
            }
        }
    }

    fn expect_set(&mut self) -> Result<bool> {
        self.expect_kw("SET")?;
        Ok(true)
    }

    fn create_table(&mut self, temporary: bool) -> Result<Stmt> {
        let if_not_exists = self.if_not_exists()?;
        let name = self.table_name()?;
        let mut ct = CreateTable {
            name,
            if_not_exists,
            temporary,
            columns: Vec::new(),
            indexes: Vec::new(),
            foreign_keys: Vec::new(),
            options: TableOptions::default(),
            like: None,
            as_select: None,
        };
        if self.eat_kw("LIKE") {
            ct.like = Some(self.table_name()?);
            return Ok(Stmt::CreateTable(Box::new(ct)));
        }
        if self.is_op("(") && self.is_kw_at(1, "LIKE") {
            self.bump();
            self.bump();
            ct.like = Some(self.table_name()?);
            self.expect_op(")")?;
            return Ok(Stmt::CreateTable(Box::new(ct)));
        }
        if self.is_op("(") && !self.is_kw_at(1, "SELECT") {
            self.bump();
            loop {
                self.table_element(&mut ct)?;
                if ct.columns.len() > COLUMNS_MAX {
                    return Err(ErrorKind::ER_TOO_MANY_FIELDS.into());
                }
                if !self.eat_op(",") {
                    break;
                }
            }
            self.expect_op(")")?;
        }
        ct.options = self.table_options()?;
        // Partitioning is not supported: refuse rather than silently ignore.
        if self.is_kw("PARTITION") {
            return Err(KilnError::new(
                ErrorKind::ER_NOT_SUPPORTED_YET,
                &[&"partitioned tables"],
            ));
        }
        self.eat_kw("IGNORE");
        self.eat_kw("REPLACE");
        self.eat_kw("AS");
        if self.is_kw("SELECT") || self.is_op("(") {
            ct.as_select = Some(Box::new(self.select()?));
        }
        if ct.columns.is_empty() && ct.as_select.is_none() {
            return Err(ErrorKind::ER_TABLE_MUST_HAVE_COLUMNS.into());
        }
        Ok(Stmt::CreateTable(Box::new(ct)))
    }

    fn table_element(&mut self, ct: &mut CreateTable) -> Result<()> {
        let constraint_name = if self.eat_kw("CONSTRAINT") {
            if self.is_kw("PRIMARY")
                || self.is_kw("UNIQUE")
                || self.is_kw("FOREIGN")
                || self.is_kw("CHECK")
            {
                None
            } else {
                Some(self.ident()?)
            }
        } else {
            None
        };
        if self.eat_kw("PRIMARY") {
            self.expect_kw("KEY")?;
            self.index_type_clause()?;
            let parts = self.index_parts()?;
            let (invisible, comment) = self.index_options()?;
            ct.indexes.push(IndexSpec {
                name: Some("PRIMARY".into()),
                kind: IndexKind::Primary,
                parts,
                invisible,
                comment,
            });
            return Ok(());
        }
        if self.is_kw("UNIQUE")
            || self.is_kw("KEY")
            || self.is_kw("INDEX")
            || self.is_kw("FULLTEXT")
            || self.is_kw("SPATIAL")
        {
            let spec = self.index_definition(constraint_name)?;
            ct.indexes.push(spec);
            if ct.indexes.len() > INDEXES_MAX {
                return Err(KilnError::new(ErrorKind::ER_TOO_MANY_KEYS, &[&INDEXES_MAX]));
            }
            return Ok(());
        }
        if self.eat_kw("FOREIGN") {
            ct.foreign_keys.push(self.foreign_key(constraint_name)?);
            return Ok(());
        }
        if self.eat_kw("CHECK") {
            self.skip_parenthesized()?;
            self.eat_kw("NOT");
            self.eat_kw("ENFORCED");
            return Ok(());
        }
        let col = self.column_spec()?;
        ct.columns.push(col);
        Ok(())
    }

    /// `[UNIQUE|FULLTEXT|SPATIAL] {KEY|INDEX} [name] [USING ..] (parts) [options]`.
    pub(super) fn index_definition(&mut self, name: Option<String>) -> Result<IndexSpec> {
        let kind = if self.eat_kw("UNIQUE") {
            IndexKind::Unique
        } else if self.eat_kw("FULLTEXT") {
            IndexKind::Fulltext
        } else if self.eat_kw("SPATIAL") {
            IndexKind::Spatial
        } else {
            IndexKind::Key
        };
        if !self.eat_kw("KEY") {
            self.eat_kw("INDEX");
        }
        let mut name = name;
        if !self.is_op("(") && !self.is_kw("USING") {
            name = Some(self.ident()?);
        }
        self.index_type_clause()?;
        let parts = self.index_parts()?;
        let (invisible, comment) = self.index_options()?;
        Ok(IndexSpec {
            name,
            kind,
            parts,
            invisible,
            comment,
        })
    }

    fn index_type_clause(&mut self) -> Result<()> {
        if self.eat_kw("USING") {
            self.ident()?; // BTREE / HASH
        }
        Ok(())
    }

    pub(super) fn index_parts(&mut self) -> Result<Vec<IndexPartSpec>> {
        self.expect_op("(")?;
        let mut parts = Vec::new();
        loop {
            if self.is_op("(") {
                return Err(KilnError::new(
                    ErrorKind::ER_NOT_SUPPORTED_YET,
                    &[&"functional index parts"],
                ));
            }
            let column = self.ident()?;
            let prefix = if self.eat_op("(") {
                let n = self.u64_literal()?;
                self.expect_op(")")?;
                Some(n.min(u32::MAX as u64) as u32)
            } else {
                None
            };
            let desc = if self.eat_kw("DESC") {
                true
            } else {
                self.eat_kw("ASC");
                false
            };
            parts.push(IndexPartSpec {
                column,
                prefix,
                desc,
            });
            if parts.len() > 16 {
                return Err(KilnError::new(ErrorKind::ER_TOO_MANY_KEY_PARTS, &[&16]));
            }
            if !self.eat_op(",") {
                break;
            }
        }
        self.expect_op(")")?;
        Ok(parts)
    }

    /// Index options: VISIBLE/INVISIBLE, COMMENT, KEY_BLOCK_SIZE, USING, WITH PARSER.
    fn index_options(&mut self) -> Result<(bool, Option<String>)> {
        let (mut invisible, mut comment) = (false, None);
        loop {
            if self.eat_kw("INVISIBLE") {
                invisible = true;
            } else if self.eat_kw("VISIBLE") {
                invisible = false;
            } else if self.eat_kw("COMMENT") {
                comment = Some(self.string()?);
            } else if self.eat_kw("KEY_BLOCK_SIZE") {
                self.eat_op("=");
                self.u64_literal()?;
            } else if self.eat_kw("USING") {
                self.ident()?;
            } else if self.eat_kw("WITH") {
                self.expect_kw("PARSER")?;
                self.ident()?;
            } else {
                return Ok((invisible, comment));
            }
        }
    }

    fn foreign_key(&mut self, name: Option<String>) -> Result<ForeignKeySpec> {
        self.expect_kw("KEY")?;
        let name = if !self.is_op("(") {
            Some(self.ident()?)
        } else {
            name
        };
        let columns = self.ident_list()?;
        self.expect_kw("REFERENCES")?;
        let ref_table = self.table_name()?;
        let ref_columns = self.ident_list()?;
        let start = self.peek().start;
        let mut end = start;
        while self.is_kw("ON") || self.is_kw("MATCH") {
            if self.eat_kw("MATCH") {
                self.ident()?;
            } else {
                self.bump();
                if !(self.eat_kw("DELETE") || self.eat_kw("UPDATE")) {
                    return Err(self.error());
                }
                if self.eat_kw("SET") {
                    if !(self.eat_kw("NULL") || self.eat_kw("DEFAULT")) {
                        return Err(self.error());
                    }
                } else if self.eat_kw("NO") {
                    self.expect_kw("ACTION")?;
                } else if !(self.eat_kw("CASCADE") || self.eat_kw("RESTRICT")) {
                    return Err(self.error());
                }
            }
            end = self.toks[self.pos - 1].end;
        }
        Ok(ForeignKeySpec {
            name,
            columns,
            ref_table,
            ref_columns,
            actions: self.sql[start..end].to_string(),
        })
    }

    fn ident_list(&mut self) -> Result<Vec<String>> {
        self.expect_op("(")?;
        let mut v = vec![self.ident()?];
        while self.eat_op(",") {
            v.push(self.ident()?);
        }
        self.expect_op(")")?;
        Ok(v)
    }

    fn skip_parenthesized(&mut self) -> Result<()> {
        self.expect_op("(")?;
        let mut depth = 1usize;
        while depth > 0 {
            if self.at_eof() {
                return Err(self.error());
            }
            if self.is_op("(") {
                depth += 1;
            } else if self.is_op(")") {
                depth -= 1;
            }
            self.bump();
        }
        Ok(())
    }

    pub(super) fn column_spec(&mut self) -> Result<ColumnSpec> {
        let name = self.ident()?;
        let (ty, charset, collation) = self.data_type()?;
        let mut c = ColumnSpec {
            name,
            ty,
            charset,
            collation,
            nullable: None,
            default: None,
            on_update_now: false,
            auto_increment: false,
            primary: false,
            unique: false,
            comment: None,
            invisible: false,
        };
        loop {
            if self.eat_kw("NOT") {
                self.expect_kw("NULL")?;
                c.nullable = Some(false);
            } else if self.eat_kw("NULL") {
                c.nullable = Some(true);
            } else if self.eat_kw("DEFAULT") {
                c.default = Some(self.default_value()?);
            } else if self.eat_kw("AUTO_INCREMENT") {
                c.auto_increment = true;
            } else if self.eat_kw("PRIMARY") {
                self.expect_kw("KEY")?;
                c.primary = true;
            } else if self.eat_kw("UNIQUE") {
                self.eat_kw("KEY");
                c.unique = true;
            } else if self.eat_kw("KEY") {
                c.primary = true;
            } else if self.eat_kw("COMMENT") {
                c.comment = Some(self.string()?);
            } else if self.eat_kw("COLLATE") {
                c.collation = Some(self.ident_or_string()?.to_ascii_lowercase());
            } else if self.eat_kw("ON") {
                self.expect_kw("UPDATE")?;
                self.now_function()?;
                c.on_update_now = true;
            } else if self.eat_kw("INVISIBLE") {
                c.invisible = true;
            } else if self.eat_kw("VISIBLE") {
                c.invisible = false;
            } else if self.eat_kw("COLUMN_FORMAT") || self.eat_kw("STORAGE") {
                self.ident()?;
            } else if self.eat_kw("SRID") {
                self.u64_literal()?;
            } else if self.eat_kw("CHECK") {
                self.skip_parenthesized()?;
            } else if self.eat_kw("REFERENCES") {
                self.table_name()?;
                self.ident_list()?;
            } else if self.eat_kw("GENERATED") || self.eat_kw("AS") {
                return Err(KilnError::new(
                    ErrorKind::ER_NOT_SUPPORTED_YET,
                    &[&"generated columns"],
                ));
            } else {
                return Ok(c);
            }
        }
    }

    /// `CURRENT_TIMESTAMP[(n)]`, `NOW([n])`, `LOCALTIMESTAMP` ...
    fn now_function(&mut self) -> Result<()> {
        let w = self.word(true)?.to_ascii_uppercase();
        if !matches!(
            w.as_str(),
            "CURRENT_TIMESTAMP" | "NOW" | "LOCALTIME" | "LOCALTIMESTAMP"
        ) {
            return Err(self.error());
        }
        if self.eat_op("(") && !self.eat_op(")") {
            self.u64_literal()?;
            self.expect_op(")")?;
        }
        Ok(())
    }

    fn default_value(&mut self) -> Result<DefaultSpec> {
        if self.is_kw("CURRENT_TIMESTAMP")
            || self.is_kw("NOW")
            || self.is_kw("LOCALTIME")
            || self.is_kw("LOCALTIMESTAMP")
        {
            self.now_function()?;
            return Ok(DefaultSpec::CurrentTimestamp);
        }
        if self.eat_op("(") {
            let e = self.expr()?;
            self.expect_op(")")?;
            return Ok(DefaultSpec::Expr(e));
        }
        // A literal, possibly signed.
        let neg = self.eat_op("-");
        if !neg {
            self.eat_op("+");
        }
        let e = match self.peek().tok {
            Tok::Int(_)
            | Tok::Decimal(_)
            | Tok::Float(_)
            | Tok::Str(_)
            | Tok::Hex(_)
            | Tok::Bits(_) => self.primary()?,
            Tok::Word(w)
                if w.eq_ignore_ascii_case("NULL")
                    || w.eq_ignore_ascii_case("TRUE")
                    || w.eq_ignore_ascii_case("FALSE") =>
            {
                self.primary()?
            }
            _ => return Err(self.error()),
        };
        Ok(DefaultSpec::Expr(if neg {
            match e {
                Expr::Literal(Value::Int(i)) => Expr::Literal(Value::Int(-i)),
                other => Expr::Unary {
                    op: UnaryOp::Neg,
                    expr: Box::new(other),
                },
            }
        } else {
            e
        }))
    }

    /// A data type with its attributes; returns the charset/collation written on it.
    pub(super) fn data_type(&mut self) -> Result<(SqlType, Option<String>, Option<String>)> {
        let w = self.word(true)?.to_ascii_uppercase();
        let int = |kind| SqlType::Int {
            kind,
            unsigned: false,
            zerofill: false,
            width: None,
        };
        let text = |size| SqlType::Text {
            size,
            collation: String::new(),
        };
        let mut ty = match w.as_str() {
            "TINYINT" | "INT1" => int(IntKind::Tiny),
            "BOOL" | "BOOLEAN" => SqlType::Int {
                kind: IntKind::Tiny,
                unsigned: false,
                zerofill: false,
                width: Some(1),
            },
            "SMALLINT" | "INT2" => int(IntKind::Small),
            "MEDIUMINT" | "INT3" | "MIDDLEINT" => int(IntKind::Medium),
            "INT" | "INTEGER" | "INT4" => int(IntKind::Int),
            "BIGINT" | "INT8" => int(IntKind::Big),
            "SERIAL" => {
                return Ok((
                    SqlType::Int {
                        kind: IntKind::Big,
                        unsigned: true,
                        zerofill: false,
                        width: None,
                    },
                    None,
                    None,
                ));
            }
            "DECIMAL" | "DEC" | "NUMERIC" | "FIXED" => SqlType::Decimal {
                precision: 10,
                scale: 0,
                unsigned: false,
            },
            "FLOAT" | "FLOAT4" => SqlType::Float { unsigned: false },
            "REAL" if self.mode.real_as_float => SqlType::Float { unsigned: false },
            "DOUBLE" | "FLOAT8" | "REAL" => {
                self.eat_kw("PRECISION");
                SqlType::Double { unsigned: false }
            }
            "BIT" => SqlType::Bit(1),
            "CHAR" | "CHARACTER" | "NCHAR" => {
                if self.eat_kw("VARYING") {
                    SqlType::VarChar {
                        len: 0,
                        collation: String::new(),
                    }
                } else {
                    SqlType::Char {
                        len: 1,
                        collation: String::new(),
                    }
                }
            }
            "NATIONAL" => {
                let inner = self.word(true)?.to_ascii_uppercase();
                match inner.as_str() {
                    "CHAR" | "CHARACTER" if !self.eat_kw("VARYING") => SqlType::Char {
                        len: 1,
                        collation: String::new(),
                    },
                    "CHAR" | "CHARACTER" | "VARCHAR" => SqlType::VarChar {
                        len: 0,
                        collation: String::new(),
                    },
                    _ => return Err(self.error()),
                }
            }
            "VARCHAR" | "NVARCHAR" | "VARCHARACTER" => SqlType::VarChar {
                len: 0,
                collation: String::new(),
            },
            "BINARY" => SqlType::Binary(1),
            "VARBINARY" => SqlType::VarBinary(0),
            "TINYTEXT" => text(LobSize::Tiny),
            "TEXT" => text(LobSize::Normal),
            "MEDIUMTEXT" | "LONG" => {
                if w == "LONG" {
                    self.eat_kw("VARCHAR");
                }
                text(LobSize::Medium)
            }
            "LONGTEXT" => text(LobSize::Long),
            "TINYBLOB" => SqlType::Blob(LobSize::Tiny),
            "BLOB" => SqlType::Blob(LobSize::Normal),
            "MEDIUMBLOB" => SqlType::Blob(LobSize::Medium),
            "LONGBLOB" => SqlType::Blob(LobSize::Long),
            "ENUM" | "SET" => {
                let members = self.member_list()?;
                if w == "ENUM" {
                    SqlType::Enum {
                        members,
                        collation: String::new(),
                    }
                } else {
                    SqlType::Set {
                        members,
                        collation: String::new(),
                    }
                }
            }
            "DATE" => SqlType::Date,
            "DATETIME" => SqlType::DateTime(0),
            "TIMESTAMP" => SqlType::Timestamp(0),
            "TIME" => SqlType::Time(0),
            "YEAR" => SqlType::Year,
            "JSON" => SqlType::Json,
            _ => return Err(self.error_at(self.toks[self.pos - 1].start)),
        };
        // (length) or (precision, scale)
        if !matches!(ty, SqlType::Enum { .. } | SqlType::Set { .. }) && self.eat_op("(") {
            let a = self.u64_literal()?.min(u32::MAX as u64) as u32;
            let b = if self.eat_op(",") {
                Some(self.u64_literal()?.min(u32::MAX as u64) as u32)
            } else {
                None
            };
            self.expect_op(")")?;
            ty = match ty {
                SqlType::Int {
                    kind,
                    unsigned,
                    zerofill,
                    ..
                } if b.is_none() => SqlType::Int {
                    kind,
                    unsigned,
                    zerofill,
                    width: Some(a),
                },
                SqlType::Decimal { unsigned, .. } => SqlType::Decimal {
                    precision: a,
                    scale: b.unwrap_or(0),
                    unsigned,
                },
                // FLOAT(p): p > 24 makes it DOUBLE; FLOAT(M,D)/DOUBLE(M,D) are kept as
                // plain FLOAT/DOUBLE (deprecated forms).
                SqlType::Float { unsigned } if b.is_none() && a > 24 => {
                    SqlType::Double { unsigned }
                }
                t @ (SqlType::Float { .. } | SqlType::Double { .. }) => t,
                SqlType::Bit(_) if b.is_none() => SqlType::Bit(a),
                SqlType::Char { collation, .. } if b.is_none() => {
                    SqlType::Char { len: a, collation }
                }
                SqlType::VarChar { collation, .. } if b.is_none() => {
                    SqlType::VarChar { len: a, collation }
                }
                SqlType::Binary(_) if b.is_none() => SqlType::Binary(a),
                SqlType::VarBinary(_) if b.is_none() => SqlType::VarBinary(a),
                // TEXT(n)/BLOB(n): the smallest type that holds n bytes.
                SqlType::Text { collation, .. } if b.is_none() => SqlType::Text {
                    size: lob_for(a as u64),
                    collation,
                },
                SqlType::Blob(_) if b.is_none() => SqlType::Blob(lob_for(a as u64)),
                SqlType::DateTime(_) if b.is_none() => SqlType::DateTime(a),
                SqlType::Timestamp(_) if b.is_none() => SqlType::Timestamp(a),
                SqlType::Time(_) if b.is_none() => SqlType::Time(a),
                SqlType::Year if b.is_none() && a == 4 => SqlType::Year,
                _ => return Err(self.error_at(self.toks[self.pos - 1].start)),
            };
        } else if matches!(ty, SqlType::VarChar { .. } | SqlType::VarBinary(_)) {
            // VARCHAR needs a length.
            return Err(self.error());
        }
        let (mut charset, mut collation) = (None, None);
        loop {
            if self.eat_kw("UNSIGNED") {
                set_unsigned(&mut ty);
            } else if self.eat_kw("SIGNED") {
            } else if self.eat_kw("ZEROFILL") {
                set_unsigned(&mut ty);
                if let SqlType::Int { zerofill, .. } = &mut ty {
                    *zerofill = true;
                }
            } else if self.eat_kw("CHARSET")
                || (self.is_kw("CHARACTER") && self.is_kw_at(1, "SET") && {
                    self.bump();
                    self.bump();
                    true
                })
            {
                charset = Some(self.ident_or_string()?.to_ascii_lowercase());
            } else if self.eat_kw("ASCII") {
                charset = Some("latin1".into());
            } else if self.eat_kw("UNICODE") {
                charset = Some("ucs2".into());
            } else if self.is_kw("BINARY") && ty.collation().is_some() {
                // CHAR(n) BINARY: the charset's _bin collation.
                self.bump();
                collation = Some("%bin".into());
            } else if self.eat_kw("COLLATE") {
                collation = Some(self.ident_or_string()?.to_ascii_lowercase());
            } else {
                break;
            }
        }
        if w.starts_with('N') && matches!(w.as_str(), "NCHAR" | "NVARCHAR") || w == "NATIONAL" {
            charset = Some("utf8mb3".into());
        }
        Ok((ty, charset, collation))
    }

    fn member_list(&mut self) -> Result<Vec<String>> {
        self.expect_op("(")?;
        let mut v = vec![self.string()?];
        while self.eat_op(",") {
            v.push(self.string()?);
            if v.len() > crate::types::ENUM_MEMBERS_MAX {
                return Err(self.error());
            }
        }
        self.expect_op(")")?;
        Ok(v)
    }

    pub(super) fn table_options(&mut self) -> Result<TableOptions> {
        let mut o = TableOptions::default();
        loop {
            self.eat_op(",");
            if self.eat_kw("ENGINE") || self.eat_kw("TYPE") {
                self.eat_op("=");
                o.engine = Some(self.ident_or_string()?);
            } else if self.is_kw("DEFAULT")
                || self.is_kw("CHARSET")
                || self.is_kw("CHARACTER")
                || self.is_kw("COLLATE")
            {
                let (mut cs, mut co) = (None, None);
                self.charset_options(&mut cs, &mut co)?;
                if cs.is_none() && co.is_none() {
                    return Err(self.error());
                }
                o.charset = cs.or(o.charset.take());
                o.collation = co.or(o.collation.take());
            } else if self.eat_kw("COMMENT") {
                self.eat_op("=");
                o.comment = Some(self.string()?);
            } else if self.eat_kw("AUTO_INCREMENT") {
                self.eat_op("=");
                o.auto_increment = Some(self.u64_literal()?);
            } else if self.eat_kw("ROW_FORMAT") {
                self.eat_op("=");
                o.row_format = Some(self.word(true)?.to_ascii_uppercase());
            } else if [
                "KEY_BLOCK_SIZE",
                "AVG_ROW_LENGTH",
                "MAX_ROWS",
                "MIN_ROWS",
                "CHECKSUM",
                "DELAY_KEY_WRITE",
                "STATS_PERSISTENT",
                "STATS_AUTO_RECALC",
                "STATS_SAMPLE_PAGES",
                "PACK_KEYS",
            ]
            .iter()
            .any(|k| self.is_kw(k))
            {
                self.bump();
                self.eat_op("=");
                self.bump();
            } else if self.eat_kw("COMPRESSION")
                || self.eat_kw("ENCRYPTION")
                || self.eat_kw("CONNECTION")
                || self.eat_kw("PASSWORD")
            {
                self.eat_op("=");
                self.string()?;
            } else if self.eat_kw("TABLESPACE") {
                self.eat_op("=");
                self.ident()?;
            } else {
                return Ok(o);
            }
        }
    }

    pub(super) fn drop(&mut self) -> Result<Stmt> {
        self.expect_kw("DROP")?;
        if self.eat_kw("DATABASE") || self.eat_kw("SCHEMA") {
            let if_exists = self.if_exists()?;
            let name = self.ident()?;
            return Ok(Stmt::DropDatabase { name, if_exists });
        }
        if self.eat_kw("VIEW") {
            return self.drop_view();
        }
        if self.is_kw("TRIGGER") {
            return self.drop_trigger();
        }
        if self.is_kw("PROCEDURE") || self.is_kw("FUNCTION") {
            return self.drop_routine();
        }
        let temporary = self.eat_kw("TEMPORARY");
        if self.eat_kw("TABLE") || self.eat_kw("TABLES") {
            let (if_exists, names) = self.drop_names()?;
            return Ok(Stmt::DropTable {
                names,
                if_exists,
                temporary,
            });
        }
        if !temporary && self.eat_kw("INDEX") {
            let name = self.ident()?;
            self.expect_kw("ON")?;
            let table = self.table_name()?;
            return Ok(Stmt::DropIndex { table, name });
        }
        Err(self.error())
    }

    pub(super) fn alter_table(&mut self) -> Result<Stmt> {
        self.expect_kw("ALTER")?;
        self.expect_kw("TABLE")?;
        let table = self.table_name()?;
        let mut ops = Vec::new();
        loop {
            if self.at_eof() || self.is_op(";") {
                break;
            }
            ops.push(self.alter_op()?);
            if !self.eat_op(",") {
                break;
            }
        }
        Ok(Stmt::AlterTable { table, ops })
    }

    fn column_position(&mut self) -> Result<Option<Option<String>>> {
        if self.eat_kw("FIRST") {
            return Ok(Some(None));
        }
        if self.eat_kw("AFTER") {
            return Ok(Some(Some(self.ident()?)));
        }
        Ok(None)
    }

    fn alter_op(&mut self) -> Result<AlterOp> {
        if self.eat_kw("ADD") {
            let name = if self.eat_kw("CONSTRAINT") {
                if self.is_kw("PRIMARY") || self.is_kw("UNIQUE") || self.is_kw("FOREIGN") {
                    None
                } else {
                    Some(self.ident()?)
                }
            } else {
                None
            };
            if self.eat_kw("PRIMARY") {
                self.expect_kw("KEY")?;
                self.index_type_clause()?;
                let parts = self.index_parts()?;
                let (invisible, comment) = self.index_options()?;
                return Ok(AlterOp::AddIndex(IndexSpec {
                    name: Some("PRIMARY".into()),
                    kind: IndexKind::Primary,
                    parts,
                    invisible,
                    comment,
                }));
            }
            if self.eat_kw("FOREIGN") {
                return Ok(AlterOp::AddForeignKey(self.foreign_key(name)?));
            }
            if self.is_kw("UNIQUE")
                || self.is_kw("KEY")
                || self.is_kw("INDEX")
                || self.is_kw("FULLTEXT")
                || self.is_kw("SPATIAL")
            {
                return Ok(AlterOp::AddIndex(self.index_definition(name)?));
            }
            self.eat_kw("COLUMN");
            if self.is_op("(") {
                return Err(KilnError::new(
                    ErrorKind::ER_NOT_SUPPORTED_YET,
                    &[&"ADD COLUMN (list)"],
                ));
            }
            let spec = self.column_spec()?;
            let position = self.column_position()?;
            return Ok(AlterOp::AddColumn { spec, position });
        }
        if self.eat_kw("DROP") {
            if self.eat_kw("PRIMARY") {
                self.expect_kw("KEY")?;
                return Ok(AlterOp::DropPrimaryKey);
            }
            if self.eat_kw("INDEX") || self.eat_kw("KEY") {
                return Ok(AlterOp::DropIndex(self.ident()?));
            }
            if self.eat_kw("FOREIGN") {
                self.expect_kw("KEY")?;
                return Ok(AlterOp::DropForeignKey(self.ident()?));
            }
            self.eat_kw("COLUMN");
            return Ok(AlterOp::DropColumn(self.ident()?));
        }
        if self.eat_kw("MODIFY") {
            self.eat_kw("COLUMN");
            let spec = self.column_spec()?;
            let position = self.column_position()?;
            return Ok(AlterOp::ChangeColumn {
                old: spec.name.clone(),
                spec,
                position,
            });
        }
        if self.eat_kw("CHANGE") {
            self.eat_kw("COLUMN");
            let old = self.ident()?;
            let spec = self.column_spec()?;
            let position = self.column_position()?;
            return Ok(AlterOp::ChangeColumn {
                old,
                spec,
                position,
            });
        }
        if self.eat_kw("ALTER") {
            self.eat_kw("COLUMN");
            let column = self.ident()?;
            if self.eat_kw("SET") {
                self.expect_kw("DEFAULT")?;
                let d = match self.default_value()? {
                    DefaultSpec::Expr(e) => e,
                    DefaultSpec::CurrentTimestamp => Expr::Func {
                        name: "current_timestamp".into(),
                        args: vec![],
                    },
                };
                return Ok(AlterOp::AlterDefault {
                    column,
                    default: Some(d),
                });
            }
            self.expect_kw("DROP")?;
            self.expect_kw("DEFAULT")?;
            return Ok(AlterOp::AlterDefault {
                column,
                default: None,
            });
        }
        if self.eat_kw("RENAME") {
            if self.eat_kw("COLUMN") {
                let old = self.ident()?;
                self.expect_kw("TO")?;
                let new = self.ident()?;
                return Ok(AlterOp::RenameColumn { old, new });
            }
            if self.eat_kw("INDEX") || self.eat_kw("KEY") {
                let old = self.ident()?;
                self.expect_kw("TO")?;
                let new = self.ident()?;
                return Ok(AlterOp::RenameIndex { old, new });
            }
            if !self.eat_kw("TO") {
                self.eat_kw("AS");
            }
            return Ok(AlterOp::RenameTable(self.table_name()?));
        }
        if self.eat_kw("CONVERT") {
            self.expect_kw("TO")?;
            let (mut cs, mut co) = (None, None);
            self.charset_options(&mut cs, &mut co)?;
            return Ok(AlterOp::Options(TableOptions {
                charset: cs,
                collation: co,
                ..Default::default()
            }));
        }
        if self.eat_kw("ALGORITHM") || self.eat_kw("LOCK") {
            self.eat_op("=");
            self.word(true)?;
            return Ok(AlterOp::Options(TableOptions::default()));
        }
        if self.eat_kw("FORCE") {
            return Ok(AlterOp::Force);
        }
        // DISABLE/ENABLE KEYS (mysqldump writes them): nothing to do for InnoDB tables.
        if self.is_kw("DISABLE") || self.is_kw("ENABLE") {
            self.bump();
            self.expect_kw("KEYS")?;
            return Ok(AlterOp::Options(TableOptions::default()));
        }
        let o = self.table_options()?;
        if o == TableOptions::default() {
            return Err(self.error());
        }
        Ok(AlterOp::Options(o))
    }

    pub(super) fn rename_table(&mut self) -> Result<Stmt> {
        self.expect_kw("RENAME")?;
        if !self.eat_kw("TABLE") {
            self.expect_kw("TABLES")?;
        }
        let mut pairs = Vec::new();
        loop {
            let from = self.table_name()?;
            self.expect_kw("TO")?;
            let to = self.table_name()?;
            pairs.push((from, to));
            if !self.eat_op(",") {
                return Ok(Stmt::RenameTable(pairs));
            }
        }
    }
}

fn set_unsigned(ty: &mut SqlType) {
    match ty {
        SqlType::Int { unsigned, .. }
        | SqlType::Decimal { unsigned, .. }
        | SqlType::Float { unsigned }
        | SqlType::Double { unsigned } => *unsigned = true,
        _ => {}
    }
}

fn lob_for(n: u64) -> LobSize {
    if n <= 255 {
        LobSize::Tiny
    } else if n <= 65_535 {
        LobSize::Normal
    } else if n <= 16_777_215 {
        LobSize::Medium
    } else {
        LobSize::Long
    }
}
