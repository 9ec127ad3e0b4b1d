//! CREATE [OR REPLACE] / ALTER / DROP VIEW (the views themselves: exec/view.rs).

use super::*;

impl<'a> Parser<'a> {
    /// After CREATE [OR REPLACE] or ALTER: `[ALGORITHM = a] [DEFINER = u]
    /// [SQL SECURITY s] VIEW name [(cols)] AS select [WITH [CASCADED|LOCAL] CHECK
    /// OPTION]`.
    pub(super) fn view_definition(&mut self, or_replace: bool, alter: bool) -> Result<Stmt> {
        let mut algorithm = None;
        if self.eat_kw("ALGORITHM") {
            self.expect_op("=")?;
            let a = self.word(true)?.to_ascii_uppercase();
            if !matches!(a.as_str(), "UNDEFINED" | "MERGE" | "TEMPTABLE") {
                return Err(self.error());
            }
            algorithm = Some(a);
        }
        let mut definer = None;
        if self.eat_kw("DEFINER") {
            self.expect_op("=")?;
            definer = Some(self.user_spec()?);
            if self.is_kw("TRIGGER") && algorithm.is_none() && !or_replace && !alter {
                return self.trigger_definition(definer);
            }
            if (self.is_kw("PROCEDURE") || self.is_kw("FUNCTION"))
                && algorithm.is_none()
                && !or_replace
                && !alter
            {
                return self.routine_definition(definer);
            }
        }
        let mut invoker = None;
        if self.eat_kw("SQL") {
            self.expect_kw("SECURITY")?;
            if self.eat_kw("INVOKER") {
                invoker = Some(true);
            } else {
                self.expect_kw("DEFINER")?;
                invoker = Some(false);
            }
        }
        self.expect_kw("VIEW")?;
        let name = self.table_name()?;
        let mut columns = Vec::new();
        if self.eat_op("(") {
            loop {
                columns.push(self.ident()?);
                if !self.eat_op(",") {
                    break;
                }
            }
            self.expect_op(")")?;
        }
        self.expect_kw("AS")?;
        let start = self.peek().start;
        let params_before = self.params;
        let select = self.select()?;
        let end = self.toks[self.pos.saturating_sub(1)].end.max(start);
        if self.params != params_before {
            return Err(ErrorKind::ER_VIEW_SELECT_VARIABLE.into());
        }
        let select_text = self.sql[start..end].to_string();
        let mut check_local = None;
        if self.eat_kw("WITH") {
            check_local = Some(self.eat_kw("LOCAL"));
            if check_local == Some(false) {
                self.eat_kw("CASCADED");
            }
            self.expect_kw("CHECK")?;
            self.expect_kw("OPTION")?;
        }
        Ok(Stmt::CreateView(Box::new(CreateView {
            name,
            or_replace,
            alter,
            algorithm,
            definer,
            invoker,
            columns,
            select: Box::new(select),
            select_text,
            check_local,
        })))
    }

    /// After DROP VIEW: `[IF EXISTS] v [, v] ... [RESTRICT | CASCADE]`.
    pub(super) fn drop_view(&mut self) -> Result<Stmt> {
        let (if_exists, names) = self.drop_names()?;
        Ok(Stmt::DropView { names, if_exists })
    }

    /// DROP TABLE's and DROP VIEW's `[IF EXISTS] name [, name] ... [RESTRICT |
    /// CASCADE]` (RESTRICT and CASCADE do nothing, as in MySQL).
    pub(super) fn drop_names(&mut self) -> Result<(bool, Vec<TableName>)> {
        let if_exists = self.if_exists()?;
        let mut names = vec![self.table_name()?];
        while self.eat_op(",") {
            names.push(self.table_name()?);
        }
        if !self.eat_kw("RESTRICT") {
            self.eat_kw("CASCADE");
        }
        Ok((if_exists, names))
    }

    /// Whether the tokens after ALTER / CREATE [OR REPLACE] start a view definition.
    pub(super) fn starts_view(&self, at: usize) -> bool {
        ["VIEW", "ALGORITHM", "DEFINER", "SQL"]
            .iter()
            .any(|k| self.is_kw_at(at, k))
    }
}
