//! INSERT, REPLACE, UPDATE and DELETE.

use super::*;

/// Rows one INSERT ... VALUES may carry (bounded by max_allowed_packet in practice;
/// this keeps a pathological statement from building an unbounded AST).
pub const INSERT_ROWS_MAX: usize = 1 << 20;

impl<'a> Parser<'a> {
    /// INSERT / REPLACE (the current word says which).
    pub(super) fn insert(&mut self) -> Result<Stmt> {
        let replace = self.eat_kw("REPLACE");
        if !replace {
            self.expect_kw("INSERT")?;
        }
        let mut ignore = false;
        loop {
            if self.eat_kw("LOW_PRIORITY") || self.eat_kw("DELAYED") || self.eat_kw("HIGH_PRIORITY")
            {
                continue;
            }
            if self.eat_kw("IGNORE") {
                ignore = true;
                continue;
            }
            break;
        }
        self.eat_kw("INTO");
        let table = self.table_name()?;
        let mut columns = Vec::new();
        if self.is_op("(") && !self.is_kw_at(1, "SELECT") {
            self.bump();
            if !self.eat_op(")") {
                loop {
                    columns.push(self.column_name()?);
                    if !self.eat_op(",") {
                        break;
                    }
                }
                self.expect_op(")")?;
            }
        }
        let source = if self.eat_kw("VALUES") || self.eat_kw("VALUE") {
            let mut rows = Vec::new();
            loop {
                self.eat_kw("ROW");
                self.expect_op("(")?;
                let mut row = Vec::new();
                if !self.eat_op(")") {
                    loop {
                        if self.bare_default() {
                            row.push(None);
                        } else {
                            row.push(Some(self.expr()?));
                        }
                        if !self.eat_op(",") {
                            break;
                        }
                    }
                    self.expect_op(")")?;
                }
                rows.push(row);
                if rows.len() > INSERT_ROWS_MAX {
                    return Err(self.error());
                }
                if !self.eat_op(",") {
                    break;
                }
            }
            InsertSource::Values(rows)
        } else if self.eat_kw("SET") {
            InsertSource::Set(self.assignments()?)
        } else if self.is_kw("SELECT") || self.is_op("(") {
            InsertSource::Select(Box::new(self.select()?))
        } else {
            return Err(self.error());
        };
        let row_alias = if self.eat_kw("AS") {
            let a = self.ident()?;
            if self.eat_op("(") {
                // Column aliases of the row alias: accepted, columns keep their names.
                while !self.eat_op(")") {
                    if self.at_eof() {
                        return Err(self.error());
                    }
                    self.bump();
                }
            }
            Some(a)
        } else {
            None
        };
        let mut on_duplicate = Vec::new();
        if self.eat_kw("ON") {
            self.expect_kw("DUPLICATE")?;
            self.expect_kw("KEY")?;
            self.expect_kw("UPDATE")?;
            loop {
                let c = self.column_name()?;
                self.expect_op("=")?;
                on_duplicate.push((c, self.expr()?));
                if !self.eat_op(",") {
                    break;
                }
            }
        }
        Ok(Stmt::Insert(Insert {
            table,
            columns,
            source,
            ignore,
            replace,
            on_duplicate,
            row_alias,
        }))
    }

    /// `DEFAULT` as a value (not the function `DEFAULT(col)`): consumed if present.
    /// LOAD DATA (docs/sql.md, exec/load.rs).
    pub(super) fn load_data(&mut self) -> Result<Stmt> {
        self.expect_kw("LOAD")?;
        self.expect_kw("DATA")?;
        let _ = self.eat_kw("LOW_PRIORITY") || self.eat_kw("CONCURRENT");
        let local = self.eat_kw("LOCAL");
        self.expect_kw("INFILE")?;
        let file = self.string()?;
        let replace = self.eat_kw("REPLACE");
        let ignore = !replace && self.eat_kw("IGNORE");
        self.expect_kw("INTO")?;
        self.expect_kw("TABLE")?;
        let table = self.table_name()?;
        let mut charset = None;
        if self.eat_kw("CHARACTER") {
            self.expect_kw("SET")?;
            charset = Some(self.ident_or_string()?);
        } else if self.eat_kw("CHARSET") {
            charset = Some(self.ident_or_string()?);
        }
        let mut format = crate::loadsplit::Format::default();
        let mut wrong_terminators = false;
        if self.eat_kw("FIELDS") || self.eat_kw("COLUMNS") {
            let mut any = false;
            loop {
                if self.eat_kw("TERMINATED") {
                    self.expect_kw("BY")?;
                    format.field_term = self.string_bytes()?;
                } else if self.is_kw("OPTIONALLY") || self.is_kw("ENCLOSED") {
                    self.eat_kw("OPTIONALLY");
                    self.expect_kw("ENCLOSED")?;
                    self.expect_kw("BY")?;
                    let s = self.string_bytes()?;
                    wrong_terminators |= s.len() > 1;
                    format.enclosed = s.first().copied();
                } else if self.eat_kw("ESCAPED") {
                    self.expect_kw("BY")?;
                    let s = self.string_bytes()?;
                    wrong_terminators |= s.len() > 1;
                    format.escaped = s.first().copied();
                } else if any {
                    break;
                } else {
                    return Err(self.error());
                }
                any = true;
            }
        }
        if self.eat_kw("LINES") {
            let mut any = false;
            loop {
                if self.eat_kw("TERMINATED") {
                    self.expect_kw("BY")?;
                    format.line_term = self.string_bytes()?;
                } else if self.eat_kw("STARTING") {
                    self.expect_kw("BY")?;
                    format.line_start = self.string_bytes()?;
                } else if any {
                    break;
                } else {
                    return Err(self.error());
                }
                any = true;
            }
        }
        let mut ignore_lines = 0;
        if self.eat_kw("IGNORE") {
            ignore_lines = self.u64_literal()?;
            if !self.eat_kw("LINES") {
                self.expect_kw("ROWS")?;
            }
        }
        let mut targets = Vec::new();
        if self.eat_op("(") && !self.eat_op(")") {
            loop {
                if let Tok::UserVar(v) = &self.peek().tok {
                    let v = v.to_string();
                    self.bump();
                    targets.push(LoadTarget::Var(v));
                } else {
                    targets.push(LoadTarget::Column(self.column_name()?));
                }
                if !self.eat_op(",") {
                    break;
                }
            }
            self.expect_op(")")?;
        }
        let sets = if self.eat_kw("SET") {
            self.assignments()?
        } else {
            Vec::new()
        };
        Ok(Stmt::LoadData(Box::new(LoadData {
            local,
            file,
            replace,
            ignore,
            table,
            charset,
            format,
            wrong_terminators,
            ignore_lines,
            targets,
            sets,
        })))
    }

    /// A string literal's bytes as written (escapes resolved, no charset applied).
    fn string_bytes(&mut self) -> Result<Vec<u8>> {
        match &self.peek().tok {
            Tok::Str(s) => {
                let s = s.to_vec();
                self.bump();
                Ok(s)
            }
            _ => Err(self.error()),
        }
    }

    /// `col = expr | DEFAULT, ...` (INSERT ... SET, LOAD DATA ... SET).
    fn assignments(&mut self) -> Result<Vec<(String, Option<Expr>)>> {
        let mut sets = Vec::new();
        loop {
            let c = self.column_name()?;
            self.expect_op("=")?;
            let v = if self.bare_default() {
                None
            } else {
                Some(self.expr()?)
            };
            sets.push((c, v));
            if !self.eat_op(",") {
                return Ok(sets);
            }
        }
    }

    fn bare_default(&mut self) -> bool {
        if self.is_kw("DEFAULT") && !matches!(self.peek_at(1), Tok::Op("(")) {
            self.bump();
            return true;
        }
        false
    }

    /// A column name, optionally qualified (`t.c`, `db.t.c`): the qualifier is dropped
    /// (single-table statements).
    fn column_name(&mut self) -> Result<String> {
        let mut name = self.word(true)?;
        while self.eat_op(".") {
            name = self.word(true)?;
        }
        Ok(name)
    }

    pub(super) fn update(&mut self) -> Result<Stmt> {
        self.expect_kw("UPDATE")?;
        self.eat_kw("LOW_PRIORITY");
        let ignore = self.eat_kw("IGNORE");
        let tables = self.table_refs()?;
        self.expect_kw("SET")?;
        let mut sets = Vec::new();
        loop {
            let first = self.word(true)?;
            let (q, c) = if self.eat_op(".") {
                let second = self.word(true)?;
                if self.eat_op(".") {
                    (Some(second), self.word(true)?)
                } else {
                    (Some(first), second)
                }
            } else {
                (None, first)
            };
            self.expect_op("=")?;
            let v = if self.bare_default() {
                None
            } else {
                Some(self.expr()?)
            };
            sets.push((q, c, v));
            if !self.eat_op(",") {
                break;
            }
        }
        let (filter, order_by, limit) = self.where_order_limit()?;
        Ok(Stmt::Update(Update {
            tables,
            sets,
            filter,
            order_by,
            limit,
            ignore,
        }))
    }

    pub(super) fn delete(&mut self) -> Result<Stmt> {
        self.expect_kw("DELETE")?;
        let mut ignore = false;
        loop {
            if self.eat_kw("LOW_PRIORITY") || self.eat_kw("QUICK") {
                continue;
            }
            if self.eat_kw("IGNORE") {
                ignore = true;
                continue;
            }
            break;
        }
        // Multi-table: DELETE t1, t2 FROM ... / DELETE FROM t1, t2 USING ...
        if !self.is_kw("FROM") {
            let mut targets = vec![self.delete_target()?];
            while self.eat_op(",") {
                targets.push(self.delete_target()?);
            }
            self.expect_kw("FROM")?;
            return self.multi_delete(targets, ignore);
        }
        self.expect_kw("FROM")?;
        let first = self.delete_target()?;
        if self.is_op(",") || self.is_kw("USING") {
            let mut targets = vec![first];
            while self.eat_op(",") {
                targets.push(self.delete_target()?);
            }
            self.expect_kw("USING")?;
            return self.multi_delete(targets, ignore);
        }
        let alias = if self.eat_kw("AS")
            || matches!(self.peek().tok, Tok::Word(w) if !is_reserved(w))
            || matches!(self.peek().tok, Tok::QuotedIdent(_))
        {
            Some(self.ident()?)
        } else {
            None
        };
        let (filter, order_by, limit) = self.where_order_limit()?;
        Ok(Stmt::Delete(Delete {
            targets: vec![first.clone()],
            from: vec![FromItem::Table { name: first, alias }],
            filter,
            order_by,
            limit,
            ignore,
            multi: false,
        }))
    }

    /// `[WHERE expr] [ORDER BY ...] [LIMIT n]` of a single-table UPDATE or DELETE.
    #[allow(clippy::type_complexity)]
    fn where_order_limit(&mut self) -> Result<(Option<Expr>, Vec<OrderItem>, Option<Expr>)> {
        let filter = if self.eat_kw("WHERE") {
            Some(self.expr()?)
        } else {
            None
        };
        let order_by = if self.eat_kw("ORDER") {
            self.expect_kw("BY")?;
            self.order_list()?
        } else {
            Vec::new()
        };
        let limit = if self.eat_kw("LIMIT") {
            Some(self.limit_clause()?.0)
        } else {
            None
        };
        Ok((filter, order_by, limit))
    }

    /// The rest of a multi-table DELETE after FROM/USING: table references, WHERE.
    fn multi_delete(&mut self, targets: Vec<TableName>, ignore: bool) -> Result<Stmt> {
        let from = self.table_refs()?;
        let filter = if self.eat_kw("WHERE") {
            Some(self.expr()?)
        } else {
            None
        };
        Ok(Stmt::Delete(Delete {
            targets,
            from,
            filter,
            order_by: Vec::new(),
            limit: None,
            ignore,
            multi: true,
        }))
    }

    /// `t`, `db.t` or `t.*` in a multi-table DELETE's target list.
    fn delete_target(&mut self) -> Result<TableName> {
        let first = self.ident()?;
        let mut t = TableName {
            schema: None,
            name: first,
        };
        if self.eat_op(".") {
            if self.eat_op("*") {
                return Ok(t);
            }
            t = TableName {
                schema: Some(t.name),
                name: self.word(true)?,
            };
            if self.eat_op(".") {
                self.expect_op("*")?;
            }
        }
        Ok(t)
    }
}
