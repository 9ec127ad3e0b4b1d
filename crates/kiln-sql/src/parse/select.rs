//! SELECT: select list, FROM, WHERE, GROUP BY, HAVING, ORDER BY, LIMIT, locking clauses.

use super::*;
use crate::value::Value;

impl<'a> Parser<'a> {
    pub(super) fn select(&mut self) -> Result<Select> {
        if self.eat_op("(") {
            let s = self.select()?;
            self.expect_op(")")?;
            return Ok(s);
        }
        self.expect_kw("SELECT")?;
        while let Tok::Word(w) = self.peek().tok {
            let u = w.to_ascii_uppercase();
            if matches!(
                u.as_str(),
                "ALL"
                    | "SQL_NO_CACHE"
                    | "SQL_CACHE"
                    | "SQL_CALC_FOUND_ROWS"
                    | "HIGH_PRIORITY"
                    | "STRAIGHT_JOIN"
                    | "SQL_SMALL_RESULT"
                    | "SQL_BIG_RESULT"
                    | "SQL_BUFFER_RESULT"
                    | "DISTINCT"
                    | "DISTINCTROW"
            ) {
                self.bump();
            } else {
                break;
            }
        }
        let mut items = Vec::new();
        loop {
            let start = self.peek().start;
            if self.eat_op("*") {
                items.push(SelectItem {
                    expr: Expr::Column {
                        qualifier: None,
                        name: "*".into(),
                    },
                    name: "*".into(),
                });
                if !self.eat_op(",") {
                    break;
                }
                continue;
            }
            let expr = self.expr()?;
            let end = self.toks[self.pos - 1].end;
            let name = if self.eat_kw("AS")
                || matches!(self.peek().tok, Tok::QuotedIdent(_) | Tok::Str(_))
                || matches!(self.peek().tok, Tok::Word(w) if !is_reserved(w))
            {
                self.ident_or_string()?
            } else {
                match &expr {
                    Expr::Literal(Value::Str(s)) => s.clone(),
                    _ => self.sql[start..end].to_string(),
                }
            };
            items.push(SelectItem { expr, name });
            if !self.eat_op(",") {
                break;
            }
        }
        let mut from = None;
        if self.eat_kw("FROM") && !self.eat_kw("DUAL") {
            {
                let first = self.ident()?;
                from = Some(if self.eat_op(".") {
                    TableName {
                        schema: Some(first),
                        name: self.ident()?,
                    }
                } else {
                    TableName {
                        schema: None,
                        name: first,
                    }
                });
            }
        }
        if from.is_some() {
            // Table queries arrive with the SQL engine; until then every table is
            // unknown, so the rest of the statement only needs to be skipped.
            let mut depth = 0usize;
            while !self.at_eof() && !(depth == 0 && (self.is_op(";") || self.is_op(")"))) {
                if self.is_op("(") {
                    depth += 1;
                } else if self.is_op(")") {
                    depth -= 1;
                }
                self.bump();
            }
            return Ok(Select {
                items,
                from,
                filter: None,
                limit: None,
            });
        }
        let filter = if self.eat_kw("WHERE") {
            Some(self.expr()?)
        } else {
            None
        };
        let limit = if self.eat_kw("LIMIT") {
            Some(self.expr()?)
        } else {
            None
        };
        Ok(Select {
            items,
            from,
            filter,
            limit,
        })
    }
}
