//! SELECT: select list, FROM (tables, joins, derived tables), WHERE, GROUP BY, HAVING,
//! ORDER BY, LIMIT, locking clauses, UNION.

use super::*;
use crate::value::Value;

/// Tables one FROM clause may join (MySQL's limit is 61).
pub const JOIN_TABLES_MAX: usize = 61;

impl<'a> Parser<'a> {
    pub(super) fn select(&mut self) -> Result<Select> {
        let (mut s, _) = self.select_core()?;
        if !self.is_kw("UNION") {
            return Ok(s);
        }
        let mut chain: Vec<(bool, Select, bool)> = Vec::new();
        while self.eat_kw("UNION") {
            let all = if self.eat_kw("ALL") {
                true
            } else {
                self.eat_kw("DISTINCT");
                false
            };
            let (next, parenthesized) = self.select_core()?;
            chain.push((all, next, parenthesized));
        }
        // A trailing ORDER BY / LIMIT belongs to the whole UNION: on a bare last
        // SELECT it was parsed into that SELECT; after a parenthesized one it follows.
        let last = chain.last_mut().expect("one UNION at least");
        if last.2 {
            if self.eat_kw("ORDER") {
                self.expect_kw("BY")?;
                s.union_order = self.order_list()?;
            }
            if self.eat_kw("LIMIT") {
                let (l, o) = self.limit_clause()?;
                s.union_limit = Some(l);
                s.union_offset = o;
            }
        } else {
            s.union_order = std::mem::take(&mut last.1.order_by);
            s.union_limit = last.1.limit.take();
            s.union_offset = last.1.offset.take();
        }
        let mut tail: Option<(bool, Box<Select>)> = None;
        for (all, mut sel, _) in chain.into_iter().rev() {
            sel.union = tail;
            tail = Some((all, Box::new(sel)));
        }
        s.union = tail;
        Ok(s)
    }

    /// One SELECT (or a parenthesized query expression: the flag says which).
    fn select_core(&mut self) -> Result<(Select, bool)> {
        if self.eat_op("(") {
            self.enter()?;
            let s = self.select()?;
            self.depth -= 1;
            self.expect_op(")")?;
            return Ok((s, true));
        }
        self.expect_kw("SELECT")?;
        let mut s = Select::empty();
        while let Tok::Word(w) = self.peek().tok {
            let u = w.to_ascii_uppercase();
            match u.as_str() {
                "STRAIGHT_JOIN" => {
                    s.straight_join = true;
                    self.bump();
                }
                "DISTINCT" | "DISTINCTROW" => {
                    s.distinct = true;
                    self.bump();
                }
                "ALL"
                | "SQL_NO_CACHE"
                | "SQL_CACHE"
                | "SQL_CALC_FOUND_ROWS"
                | "HIGH_PRIORITY"
                | "SQL_SMALL_RESULT"
                | "SQL_BIG_RESULT"
                | "SQL_BUFFER_RESULT" => {
                    self.bump();
                }
                _ => break,
            }
        }
        loop {
            let start = self.peek().start;
            if self.eat_op("*") {
                s.items.push(star(None));
                if !self.eat_op(",") {
                    break;
                }
                continue;
            }
            // t.* / db.t.*
            if matches!(self.peek().tok, Tok::Word(_) | Tok::QuotedIdent(_))
                && matches!(self.peek_at(1), Tok::Op("."))
                && matches!(self.peek_at(2), Tok::Op("*"))
            {
                let q = self.word(true)?;
                self.bump();
                self.bump();
                s.items.push(star(Some(q)));
                if !self.eat_op(",") {
                    break;
                }
                continue;
            }
            let expr = self.expr()?;
            let end = self.toks[self.pos - 1].end;
            let name = if self.eat_kw("AS")
                || matches!(self.peek().tok, Tok::QuotedIdent(_) | Tok::Str(_))
                || matches!(self.peek().tok, Tok::Word(w) if !is_reserved(w) && !is_clause_word(w))
            {
                self.ident_or_string()?
            } else {
                match &expr {
                    Expr::Literal(Value::Str(s)) => s.clone(),
                    Expr::Column { name, .. } => name.clone(),
                    _ => self.sql[start..end].to_string(),
                }
            };
            s.items.push(SelectItem { expr, name });
            if !self.eat_op(",") {
                break;
            }
        }
        if self.eat_kw("FROM") && !self.eat_kw("DUAL") {
            let outer = std::mem::take(&mut self.straight_join);
            s.from = self.table_refs()?;
            s.straight_join |= std::mem::replace(&mut self.straight_join, outer);
        }
        if self.eat_kw("WHERE") {
            s.filter = Some(self.expr()?);
        }
        if self.eat_kw("GROUP") {
            self.expect_kw("BY")?;
            s.group_by = self.expr_list()?;
            if self.eat_kw("WITH") {
                return Err(KilnError::new(
                    ErrorKind::ER_NOT_SUPPORTED_YET,
                    &[&"WITH ROLLUP"],
                ));
            }
        }
        if self.eat_kw("HAVING") {
            s.having = Some(self.expr()?);
        }
        if self.eat_kw("WINDOW") {
            s.windows = self.window_clause()?;
        }
        if self.eat_kw("ORDER") {
            self.expect_kw("BY")?;
            s.order_by = self.order_list()?;
        }
        if self.eat_kw("LIMIT") {
            let (limit, offset) = self.limit_clause()?;
            s.limit = Some(limit);
            s.offset = offset;
        }
        s.lock = self.lock_clause()?;
        Ok((s, false))
    }

    /// `LIMIT n`, `LIMIT off, n`, `LIMIT n OFFSET off` → (limit, offset).
    pub(super) fn limit_clause(&mut self) -> Result<(Expr, Option<Expr>)> {
        let a = self.limit_value()?;
        if self.eat_op(",") {
            let b = self.limit_value()?;
            return Ok((b, Some(a)));
        }
        if self.eat_kw("OFFSET") {
            let b = self.limit_value()?;
            return Ok((a, Some(b)));
        }
        Ok((a, None))
    }

    /// A LIMIT / OFFSET value: an integer, `?`, a user variable, or in a routine
    /// body a local variable (MySQL).
    fn limit_value(&mut self) -> Result<Expr> {
        match self.peek().tok {
            Tok::Int(_) | Tok::Placeholder | Tok::UserVar(_) => self.primary(),
            Tok::Word(w) if self.in_body && !is_reserved(w) => Ok(Expr::Column {
                qualifier: None,
                name: self.ident()?,
            }),
            Tok::QuotedIdent(_) if self.in_body => Ok(Expr::Column {
                qualifier: None,
                name: self.ident()?,
            }),
            _ => Err(self.error()),
        }
    }

    pub(super) fn order_list(&mut self) -> Result<Vec<OrderItem>> {
        let mut out = Vec::new();
        loop {
            let expr = self.expr()?;
            let desc = if self.eat_kw("DESC") {
                true
            } else {
                self.eat_kw("ASC");
                false
            };
            out.push(OrderItem { expr, desc });
            if !self.eat_op(",") {
                return Ok(out);
            }
        }
    }

    fn lock_clause(&mut self) -> Result<Option<LockClause>> {
        let exclusive = if self.is_kw("FOR") && self.is_kw_at(1, "UPDATE") {
            self.bump();
            self.bump();
            true
        } else if self.is_kw("FOR") && self.is_kw_at(1, "SHARE") {
            self.bump();
            self.bump();
            false
        } else if self.eat_kw("LOCK") {
            self.expect_kw("IN")?;
            self.expect_kw("SHARE")?;
            self.expect_kw("MODE")?;
            return Ok(Some(LockClause {
                exclusive: false,
                nowait: false,
                skip_locked: false,
            }));
        } else {
            return Ok(None);
        };
        if self.eat_kw("OF") {
            self.ident()?;
            while self.eat_op(",") {
                self.ident()?;
            }
        }
        let nowait = self.eat_kw("NOWAIT");
        let skip_locked = !nowait && self.eat_kw("SKIP") && {
            self.expect_kw("LOCKED")?;
            true
        };
        Ok(Some(LockClause {
            exclusive,
            nowait,
            skip_locked,
        }))
    }

    /// A FROM list: comma-separated table references (each possibly a join chain).
    pub(super) fn table_refs(&mut self) -> Result<Vec<FromItem>> {
        let mut out = vec![self.join_chain()?];
        while self.eat_op(",") {
            out.push(self.join_chain()?);
            if out.len() > JOIN_TABLES_MAX {
                return Err(KilnError::with_message(
                    ErrorKind::ER_TOO_BIG_SELECT,
                    format!(
                        "Too many tables; MySQL can only use {JOIN_TABLES_MAX} tables in a join"
                    ),
                ));
            }
        }
        Ok(out)
    }

    fn join_chain(&mut self) -> Result<FromItem> {
        let mut left = self.table_factor()?;
        let mut n = 1;
        loop {
            // NATURAL [INNER | {LEFT | RIGHT} [OUTER]] JOIN, with no ON / USING.
            let natural = self.eat_kw("NATURAL");
            if natural
                && !["JOIN", "INNER", "LEFT", "RIGHT"]
                    .iter()
                    .any(|k| self.is_kw(k))
            {
                return Err(self.error());
            }
            let kind = if self.eat_kw("JOIN") || (self.eat_kw("INNER") && self.expect_join()?) {
                JoinKind::Inner
            } else if self.eat_kw("CROSS") {
                self.expect_kw("JOIN")?;
                JoinKind::Cross
            } else if self.eat_kw("STRAIGHT_JOIN") {
                self.straight_join = true;
                JoinKind::Inner
            } else if self.eat_kw("LEFT") {
                self.eat_kw("OUTER");
                self.expect_kw("JOIN")?;
                JoinKind::Left
            } else if self.eat_kw("RIGHT") {
                self.eat_kw("OUTER");
                self.expect_kw("JOIN")?;
                JoinKind::Right
            } else {
                return Ok(left);
            };
            n += 1;
            if n > JOIN_TABLES_MAX {
                return Err(self.error());
            }
            let right = self.table_factor()?;
            let (mut on, mut using) = (None, Vec::new());
            if natural {
                // The join columns are found when the tables are known.
            } else if self.eat_kw("ON") {
                on = Some(self.expr()?);
            } else if self.eat_kw("USING") {
                self.expect_op("(")?;
                using.push(self.ident()?);
                while self.eat_op(",") {
                    using.push(self.ident()?);
                }
                self.expect_op(")")?;
            } else if matches!(kind, JoinKind::Left | JoinKind::Right) {
                return Err(self.error());
            }
            left = FromItem::Join {
                left: Box::new(left),
                right: Box::new(right),
                kind,
                on,
                using,
                natural,
            };
        }
    }

    fn expect_join(&mut self) -> Result<bool> {
        self.expect_kw("JOIN")?;
        Ok(true)
    }

    fn table_factor(&mut self) -> Result<FromItem> {
        if self.is_op("(")
            && (self.is_kw_at(1, "SELECT") || matches!(self.peek_at(1), Tok::Op("(")))
        {
            self.bump();
            self.enter()?;
            let select = self.select()?;
            self.depth -= 1;
            self.expect_op(")")?;
            self.eat_kw("AS");
            let alias = match self.peek().tok {
                Tok::Word(w) if !is_reserved(w) && !is_clause_word(w) => self.ident()?,
                Tok::QuotedIdent(_) => self.ident()?,
                _ => return Err(ErrorKind::ER_DERIVED_MUST_HAVE_ALIAS.into()),
            };
            return Ok(FromItem::Derived {
                select: Box::new(select),
                alias,
                view: None,
            });
        }
        if self.eat_op("(") {
            let inner = self.join_chain()?;
            self.expect_op(")")?;
            return Ok(inner);
        }
        let name = self.table_name()?;
        let alias = if self.eat_kw("AS") {
            Some(self.ident()?)
        } else {
            match self.peek().tok {
                Tok::Word(w) if !is_reserved(w) && !is_clause_word(w) => Some(self.ident()?),
                Tok::QuotedIdent(_) => Some(self.ident()?),
                _ => None,
            }
        };
        // Index hints: USE/FORCE/IGNORE INDEX|KEY [FOR ...] (list) — accepted, ignored.
        while (self.is_kw("USE") || self.is_kw("FORCE") || self.is_kw("IGNORE"))
            && (self.is_kw_at(1, "INDEX") || self.is_kw_at(1, "KEY"))
        {
            self.bump();
            self.bump();
            if self.eat_kw("FOR") {
                if self.eat_kw("ORDER") || self.eat_kw("GROUP") {
                    self.expect_kw("BY")?;
                } else {
                    self.expect_kw("JOIN")?;
                }
            }
            self.expect_op("(")?;
            while !self.eat_op(")") {
                if self.at_eof() {
                    return Err(self.error());
                }
                self.bump();
            }
        }
        Ok(FromItem::Table { name, alias })
    }

    /// `name` or `db.name`.
    pub(super) fn table_name(&mut self) -> Result<TableName> {
        let first = self.ident()?;
        if self.eat_op(".") {
            return Ok(TableName {
                schema: Some(first),
                name: self.word(true)?,
            });
        }
        Ok(TableName {
            schema: None,
            name: first,
        })
    }

    pub(super) fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > EXPRESSION_DEPTH_MAX {
            return Err(ErrorKind::ER_TOO_HIGH_LEVEL_OF_NESTING_FOR_SELECT.into());
        }
        Ok(())
    }
}

fn star(qualifier: Option<String>) -> SelectItem {
    SelectItem {
        expr: Expr::Column {
            qualifier,
            name: "*".into(),
        },
        name: "*".into(),
    }
}

/// Non-reserved words that start a clause and so cannot be an implicit alias.
fn is_clause_word(w: &str) -> bool {
    const WORDS: &[&str] = &[
        "LOCK",
        "OFFSET",
        "STRAIGHT_JOIN",
        "USE",
        "FORCE",
        "IGNORE",
        "NATURAL",
        "FETCH",
        "WINDOW",
        "INTO",
    ];
    WORDS.iter().any(|x| x.eq_ignore_ascii_case(w))
}
