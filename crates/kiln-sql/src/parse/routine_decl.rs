//! The compound statements stored procedures and functions add to trigger bodies
//! (parse/routine.rs has the rest): DECLARE ... CONDITION / HANDLER / CURSOR, OPEN /
//! FETCH / CLOSE, SIGNAL and RESIGNAL, RETURN.

use super::*;
use crate::routine::{CondValue, HandlerAction, HandlerCond, RStmt, Target};

impl<'a> Parser<'a> {
    /// After DECLARE: `{CONTINUE | EXIT | UNDO} HANDLER FOR cond [, cond] ... stmt`.
    pub(super) fn declare_handler(&mut self, depth: usize) -> Result<RStmt> {
        let action = if self.eat_kw("CONTINUE") {
            HandlerAction::Continue
        } else if self.eat_kw("EXIT") {
            HandlerAction::Exit
        } else {
            self.expect_kw("UNDO")?;
            return Err(KilnError::new(
                ErrorKind::ER_NOT_SUPPORTED_YET,
                &[&"UNDO handlers"],
            ));
        };
        self.expect_kw("HANDLER")?;
        self.expect_kw("FOR")?;
        let mut conds = Vec::new();
        loop {
            let c = if self.eat_kw("SQLWARNING") {
                HandlerCond::SqlWarning
            } else if self.eat_kw("SQLEXCEPTION") {
                HandlerCond::SqlException
            } else if self.is_kw("NOT") && self.is_kw_at(1, "FOUND") {
                self.bump();
                self.bump();
                HandlerCond::NotFound
            } else if self.is_kw("SQLSTATE") || matches!(self.peek().tok, Tok::Int(_)) {
                HandlerCond::Value(self.condition_value()?)
            } else {
                HandlerCond::Name(self.ident()?)
            };
            conds.push(c);
            if !self.eat_op(",") {
                break;
            }
        }
        let body = self.routine_stmt(depth + 1)?;
        Ok(RStmt::DeclareHandler {
            action,
            conds,
            body: Box::new(body),
        })
    }

    /// `SQLSTATE [VALUE] 'xxxxx'` (not class 00: 1407) or a MySQL error number (not 0:
    /// 1525).
    fn condition_value(&mut self) -> Result<CondValue> {
        if self.eat_kw("SQLSTATE") {
            self.eat_kw("VALUE");
            return Ok(CondValue::SqlState(self.sqlstate()?));
        }
        let n = self.u64_literal()?;
        if n == 0 || n > u64::from(u16::MAX) {
            return Err(KilnError::new(
                ErrorKind::ER_WRONG_VALUE,
                &[&"CONDITION", &n],
            ));
        }
        Ok(CondValue::Errno(n as u16))
    }

    /// A SQLSTATE string: five letters or digits, not of class 00 (1407).
    fn sqlstate(&mut self) -> Result<String> {
        let s = self.string()?;
        if s.len() != 5 || !s.bytes().all(|b| b.is_ascii_alphanumeric()) || s.starts_with("00") {
            return Err(KilnError::new(ErrorKind::ER_SP_BAD_SQLSTATE, &[&s]));
        }
        Ok(s)
    }

    /// After `DECLARE name`: `CONDITION FOR value` or `CURSOR FOR select`.
    pub(super) fn declare_named(&mut self, name: String) -> Result<RStmt> {
        if self.eat_kw("CONDITION") {
            self.expect_kw("FOR")?;
            return Ok(RStmt::DeclareCondition {
                name,
                value: self.condition_value()?,
            });
        }
        self.expect_kw("CURSOR")?;
        self.expect_kw("FOR")?;
        let select = self.select()?;
        Ok(RStmt::DeclareCursor {
            name,
            select: Box::new(select),
        })
    }

    /// `OPEN c`, `CLOSE c`, `FETCH [[NEXT] FROM] c INTO var [, var] ...` (local
    /// variables).
    pub(super) fn cursor_stmt(&mut self, w: &str) -> Result<RStmt> {
        self.bump();
        match w {
            "OPEN" => Ok(RStmt::Open(self.ident()?)),
            "CLOSE" => Ok(RStmt::Close(self.ident()?)),
            _ => {
                if self.eat_kw("NEXT") {
                    self.expect_kw("FROM")?;
                } else {
                    self.eat_kw("FROM");
                }
                let cursor = self.ident()?;
                self.expect_kw("INTO")?;
                // Local variables only (a user variable is a syntax error, as MySQL).
                let mut targets = vec![Target::Local(self.ident()?)];
                while self.eat_op(",") {
                    targets.push(Target::Local(self.ident()?));
                }
                Ok(RStmt::Fetch { cursor, targets })
            }
        }
    }

    /// `SIGNAL {SQLSTATE [VALUE] 'xxxxx' | condition} [SET item = expr [, ...]]` and
    /// `RESIGNAL [SQLSTATE ... | condition] [SET ...]`.
    pub(super) fn signal(&mut self) -> Result<RStmt> {
        let resignal = self.eat_kw("RESIGNAL");
        if !resignal {
            self.expect_kw("SIGNAL")?;
        }
        let (mut sqlstate, mut condition) = (None, None);
        if self.eat_kw("SQLSTATE") {
            self.eat_kw("VALUE");
            sqlstate = Some(self.sqlstate()?);
        } else if !self.is_kw("SET")
            && matches!(self.peek().tok, Tok::Word(_) | Tok::QuotedIdent(_))
        {
            condition = Some(self.ident()?);
        } else if !resignal {
            return Err(self.error());
        }
        let (mut message, mut errno) = (None, None);
        if self.eat_kw("SET") {
            loop {
                let item = self.word(true)?.to_ascii_uppercase();
                self.expect_op("=")?;
                let e = self.expr()?;
                match item.as_str() {
                    "MESSAGE_TEXT" => message = Some(e),
                    "MYSQL_ERRNO" => errno = Some(e),
                    "CLASS_ORIGIN" | "SUBCLASS_ORIGIN" | "CONSTRAINT_CATALOG"
                    | "CONSTRAINT_SCHEMA" | "CONSTRAINT_NAME" | "CATALOG_NAME" | "SCHEMA_NAME"
                    | "TABLE_NAME" | "COLUMN_NAME" | "CURSOR_NAME" => {}
                    _ => return Err(self.error()),
                }
                if !self.eat_op(",") {
                    break;
                }
            }
        }
        Ok(RStmt::Signal {
            resignal,
            sqlstate,
            condition,
            message,
            errno,
        })
    }
}
