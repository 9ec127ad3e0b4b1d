//! The statement parser: recursive descent over [`crate::lexer`] tokens for the
//! statements kiln runs, with a precedence-climbing expression parser that follows
//! MySQL's operator precedence table (OR < XOR < AND < NOT < comparison < | < & <
//! shifts < + - < * / DIV MOD < ^ < unary - ~ < !).
//!
//! Errors are MySQL's 1064 with the text from the failing token, cut at 80 bytes:
//! "You have an error in your SQL syntax; ... near '<rest>' at line N".

use kiln_common::limits::EXPRESSION_DEPTH_MAX;
use kiln_common::{ErrorKind, KilnError, Result};

use crate::ast::*;
use crate::lexer::{Tok, Token, tokenize};
use crate::value::Value;

const SYNTAX_PREFIX: &str = "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use";

/// Error 1064 pointing at byte offset `at` of `sql`.
pub fn syntax_error_at(sql: &str, at: usize) -> KilnError {
    let at = at.min(sql.len());
    let mut end = (at + 80).min(sql.len());
    while !sql.is_char_boundary(end) {
        end -= 1;
    }
    let mut start = at;
    while !sql.is_char_boundary(start) {
        start -= 1;
    }
    let line = sql[..start].matches('\n').count() + 1;
    KilnError::new(
        ErrorKind::ER_PARSE_ERROR,
        &[&SYNTAX_PREFIX, &&sql[start..end], &line],
    )
}

/// A parsed statement plus the number of `?` placeholders it contains.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    pub stmt: Stmt,
    pub param_count: usize,
}

/// Parses the statements of a COM_QUERY (several with multi-statements). Returns each
/// statement with its source text. Empty statements between `;` are skipped; a query
/// with no statement at all is error 1065.
pub fn parse_multi(sql: &str, no_backslash_escapes: bool) -> Result<Vec<(Parsed, &str)>> {
    let toks = tokenize(sql, no_backslash_escapes)?;
    let mut p = Parser {
        sql,
        toks,
        pos: 0,
        params: 0,
        depth: 0,
    };
    let mut out = Vec::new();
    loop {
        while p.eat_op(";") {}
        if p.at_eof() {
            break;
        }
        let start = p.peek().start;
        p.params = 0;
        let stmt = p.statement()?;
        let end = p.toks[p.pos.saturating_sub(1)].end.max(start);
        if !p.at_eof() && !p.is_op(";") {
            return Err(p.error());
        }
        out.push((
            Parsed {
                stmt,
                param_count: p.params,
            },
            &sql[start..end],
        ));
    }
    if out.is_empty() {
        return Err(ErrorKind::ER_EMPTY_QUERY.into());
    }
    Ok(out)
}

/// Parses exactly one statement (prepared statements).
pub fn parse_one(sql: &str, no_backslash_escapes: bool) -> Result<Parsed> {
    let mut all = parse_multi(sql, no_backslash_escapes)?;
    if all.len() > 1 {
        // MySQL reports the second statement as a syntax error in a prepare.
        let second = all[1].1;
        let at = second.as_ptr() as usize - sql.as_ptr() as usize;
        return Err(syntax_error_at(sql, at.saturating_sub(1)));
    }
    Ok(all.remove(0).0)
}

struct Parser<'a> {
    sql: &'a str,
    toks: Vec<Token<'a>>,
    pos: usize,
    params: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> &Token<'a> {
        &self.toks[self.pos.min(self.toks.len() - 1)]
    }

    fn peek_at(&self, n: usize) -> &Tok<'a> {
        &self.toks[(self.pos + n).min(self.toks.len() - 1)].tok
    }

    fn bump(&mut self) -> Token<'a> {
        let t = self.peek().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn at_eof(&self) -> bool {
        matches!(self.peek().tok, Tok::Eof)
    }

    fn error(&self) -> KilnError {
        syntax_error_at(self.sql, self.peek().start)
    }

    fn is_kw(&self, kw: &str) -> bool {
        matches!(self.peek().tok, Tok::Word(w) if w.eq_ignore_ascii_case(kw))
    }

    fn is_kw_at(&self, n: usize, kw: &str) -> bool {
        matches!(self.peek_at(n), Tok::Word(w) if w.eq_ignore_ascii_case(kw))
    }

    fn eat_kw(&mut self, kw: &str) -> bool {
        if self.is_kw(kw) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect_kw(&mut self, kw: &str) -> Result<()> {
        if self.eat_kw(kw) {
            Ok(())
        } else {
            Err(self.error())
        }
    }

    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek().tok, Tok::Op(o) if o == op)
    }

    fn eat_op(&mut self, op: &str) -> bool {
        if self.is_op(op) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect_op(&mut self, op: &str) -> Result<()> {
        if self.eat_op(op) {
            Ok(())
        } else {
            Err(self.error())
        }
    }

    /// An identifier: a non-reserved word or a quoted identifier.
    fn ident(&mut self) -> Result<String> {
        match &self.peek().tok {
            Tok::Word(w) if !is_reserved(w) => {
                let s = w.to_string();
                self.bump();
                Ok(s)
            }
            Tok::QuotedIdent(s) => {
                let s = s.to_string();
                self.bump();
                Ok(s)
            }
            _ => Err(self.error()),
        }
    }

    /// An identifier or a string literal (user names, charset names, LIKE patterns).
    fn ident_or_string(&mut self) -> Result<String> {
        if let Tok::Str(s) = &self.peek().tok {
            let s = String::from_utf8_lossy(s).into_owned();
            self.bump();
            return Ok(s);
        }
        match &self.peek().tok {
            Tok::Word(w) => {
                let s = w.to_string();
                self.bump();
                Ok(s)
            }
            _ => self.ident(),
        }
    }

    fn string(&mut self) -> Result<String> {
        match &self.peek().tok {
            Tok::Str(s) => {
                let s = String::from_utf8_lossy(s).into_owned();
                self.bump();
                Ok(s)
            }
            _ => Err(self.error()),
        }
    }

    fn statement(&mut self) -> Result<Stmt> {
        let Tok::Word(w) = self.peek().tok else {
            if self.is_op("(") {
                return self.select().map(Stmt::Select);
            }
            return Err(self.error());
        };
        let w = w.to_ascii_uppercase();
        match w.as_str() {
            "SELECT" => self.select().map(Stmt::Select),
            "DO" => {
                self.bump();
                Ok(Stmt::Do(self.expr_list()?))
            }
            "SET" => self.set(),
            "SHOW" => self.show(),
            "USE" => {
                self.bump();
                Ok(Stmt::Use(self.ident()?))
            }
            "KILL" => {
                self.bump();
                let query_only = if self.eat_kw("QUERY") {
                    true
                } else {
                    self.eat_kw("CONNECTION");
                    false
                };
                Ok(Stmt::Kill {
                    id: self.expr()?,
                    query_only,
                })
            }
            "SHUTDOWN" => {
                self.bump();
                Ok(Stmt::Shutdown)
            }
            "BEGIN" => {
                self.bump();
                self.eat_kw("WORK");
                Ok(Stmt::Begin {
                    consistent_snapshot: false,
                    access: None,
                })
            }
            "START" => {
                self.bump();
                self.expect_kw("TRANSACTION")?;
                let mut consistent_snapshot = false;
                let mut access = None;
                loop {
                    if self.eat_kw("WITH") {
                        self.expect_kw("CONSISTENT")?;
                        self.expect_kw("SNAPSHOT")?;
                        consistent_snapshot = true;
                    } else if self.eat_kw("READ") {
                        access = Some(if self.eat_kw("ONLY") {
                            TxAccess::ReadOnly
                        } else {
                            self.expect_kw("WRITE")?;
                            TxAccess::ReadWrite
                        });
                    } else {
                        break;
                    }
                    if !self.eat_op(",") {
                        break;
                    }
                }
                Ok(Stmt::Begin {
                    consistent_snapshot,
                    access,
                })
            }
            "COMMIT" | "ROLLBACK" => {
                self.bump();
                self.eat_kw("WORK");
                if self.eat_kw("AND") {
                    self.eat_kw("NO");
                    self.expect_kw("CHAIN")?;
                }
                if self.eat_kw("NO") {
                    self.expect_kw("RELEASE")?;
                } else {
                    self.eat_kw("RELEASE");
                }
                Ok(if w == "COMMIT" {
                    Stmt::Commit
                } else {
                    Stmt::Rollback
                })
            }
            "CREATE" if self.is_kw_at(1, "USER") => {
                self.bump();
                self.bump();
                let if_not_exists = self.if_not_exists()?;
                Ok(Stmt::CreateUser {
                    if_not_exists,
                    users: self.user_auth_list()?,
                })
            }
            "ALTER" if self.is_kw_at(1, "USER") => {
                self.bump();
                self.bump();
                let if_exists = self.if_exists()?;
                Ok(Stmt::AlterUser {
                    if_exists,
                    users: self.user_auth_list()?,
                })
            }
            "DROP" if self.is_kw_at(1, "USER") => {
                self.bump();
                self.bump();
                let if_exists = self.if_exists()?;
                let mut users = vec![self.user_spec()?];
                while self.eat_op(",") {
                    users.push(self.user_spec()?);
                }
                Ok(Stmt::DropUser { if_exists, users })
            }
            "FLUSH" => {
                self.bump();
                while !self.at_eof() && !self.is_op(";") {
                    self.bump();
                }
                Ok(Stmt::NoOp("flush"))
            }
            _ => Err(self.error()),
        }
    }

    fn if_not_exists(&mut self) -> Result<bool> {
        if self.eat_kw("IF") {
            self.expect_kw("NOT")?;
            self.expect_kw("EXISTS")?;
            return Ok(true);
        }
        Ok(false)
    }

    fn if_exists(&mut self) -> Result<bool> {
        if self.eat_kw("IF") {
            self.expect_kw("EXISTS")?;
            return Ok(true);
        }
        Ok(false)
    }

    fn user_spec(&mut self) -> Result<UserSpec> {
        if self.eat_kw("CURRENT_USER") {
            if self.eat_op("(") {
                self.expect_op(")")?;
            }
            return Ok(UserSpec {
                user: String::new(),
                host: "%current%".into(),
            });
        }
        let user = self.ident_or_string()?;
        // 'u'@'h' lexes as Str + UserVar("h") when the host is unquoted or quoted.
        let host = match &self.peek().tok {
            Tok::UserVar(h) => {
                let h = h.to_string();
                self.bump();
                h
            }
            _ => "%".to_string(),
        };
        Ok(UserSpec { user, host })
    }

    fn user_auth_list(&mut self) -> Result<Vec<(UserSpec, AuthSpec)>> {
        let mut out = Vec::new();
        loop {
            let u = self.user_spec()?;
            let mut auth = AuthSpec {
                plugin: None,
                password: None,
            };
            if self.eat_kw("IDENTIFIED") {
                if self.eat_kw("WITH") {
                    auth.plugin = Some(self.ident_or_string()?.to_ascii_lowercase());
                }
                if self.eat_kw("BY") {
                    self.eat_kw("RANDOM"); // not supported: falls through to string() error
                    auth.password = Some(self.string()?);
                } else if self.eat_kw("AS") {
                    return Err(KilnError::new(
                        ErrorKind::ER_NOT_SUPPORTED_YET,
                        &[&"IDENTIFIED ... AS"],
                    ));
                }
            }
            // Account options (PASSWORD EXPIRE, ACCOUNT LOCK, WITH MAX_...) are not supported yet.
            out.push((u, auth));
            if !self.eat_op(",") {
                return Ok(out);
            }
        }
    }

    fn select(&mut self) -> Result<Select> {
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

    fn set(&mut self) -> Result<Stmt> {
        self.expect_kw("SET")?;
        if self.eat_kw("NAMES") {
            if self.eat_kw("DEFAULT") {
                return Ok(Stmt::SetNames {
                    charset: None,
                    collation: None,
                });
            }
            let charset = self.ident_or_string()?;
            let collation = if self.eat_kw("COLLATE") {
                Some(self.ident_or_string()?)
            } else {
                None
            };
            return Ok(Stmt::SetNames {
                charset: Some(charset),
                collation,
            });
        }
        if self.is_kw("CHARSET") || (self.is_kw("CHARACTER") && self.is_kw_at(1, "SET")) {
            if !self.eat_kw("CHARSET") {
                self.bump();
                self.bump();
            }
            if self.eat_kw("DEFAULT") {
                return Ok(Stmt::SetCharset(None));
            }
            return Ok(Stmt::SetCharset(Some(self.ident_or_string()?)));
        }
        if self.eat_kw("PASSWORD") {
            let user = if self.eat_kw("FOR") {
                Some(self.user_spec()?)
            } else {
                None
            };
            self.expect_op("=")?;
            let password = self.string()?;
            return Ok(Stmt::SetPassword { user, password });
        }
        let mut assignments = Vec::new();
        let mut default_scope = VarScope::Session;
        let mut first = true;
        loop {
            let mut scope = default_scope;
            if self.eat_kw("GLOBAL") || self.eat_kw("PERSIST") {
                scope = VarScope::Global;
            } else if self.eat_kw("SESSION") || self.eat_kw("LOCAL") {
                scope = VarScope::Session;
            }
            if first && self.is_kw("TRANSACTION") {
                self.bump();
                return self.set_transaction(if scope == VarScope::Global {
                    VarScope::Global
                } else if default_scope == scope
                    && !matches!(self.toks[self.pos - 2].tok, Tok::Word(_))
                {
                    VarScope::Default
                } else {
                    scope
                });
            }
            first = false;
            default_scope = scope;
            let target = match &self.peek().tok {
                Tok::UserVar(n) => {
                    let n = n.to_string();
                    self.bump();
                    SetTarget::User(n)
                }
                Tok::AtAt => {
                    self.bump();
                    let (s, name) = self.sysvar_name()?;
                    SetTarget::System {
                        scope: if s == VarScope::Default {
                            VarScope::Session
                        } else {
                            s
                        },
                        name,
                    }
                }
                _ => {
                    let name = self.ident_or_keyword()?;
                    SetTarget::System { scope, name }
                }
            };
            if !self.eat_op("=") && !self.eat_op(":=") {
                return Err(self.error());
            }
            let value = if self.is_kw("DEFAULT")
                && matches!(self.peek_at(1), Tok::Eof | Tok::Op(";") | Tok::Op(","))
            {
                self.bump();
                SetValue::Default
            } else if matches!(self.peek().tok, Tok::Word(w) if matches!(w.to_ascii_uppercase().as_str(), "ON" | "OFF" | "ALL" | "BINARY"))
                && matches!(self.peek_at(1), Tok::Eof | Tok::Op(";") | Tok::Op(","))
            {
                let Tok::Word(w) = self.bump().tok else {
                    unreachable!()
                };
                SetValue::Expr(Expr::Literal(Value::Str(w.to_string())))
            } else {
                SetValue::Expr(self.expr()?)
            };
            assignments.push((target, value));
            if !self.eat_op(",") {
                break;
            }
        }
        Ok(Stmt::Set(assignments))
    }

    fn set_transaction(&mut self, scope: VarScope) -> Result<Stmt> {
        let mut isolation = None;
        let mut access = None;
        loop {
            if self.eat_kw("ISOLATION") {
                self.expect_kw("LEVEL")?;
                let level = if self.eat_kw("READ") {
                    if self.eat_kw("COMMITTED") {
                        "READ-COMMITTED"
                    } else {
                        self.expect_kw("UNCOMMITTED")?;
                        "READ-UNCOMMITTED"
                    }
                } else if self.eat_kw("REPEATABLE") {
                    self.expect_kw("READ")?;
                    "REPEATABLE-READ"
                } else {
                    self.expect_kw("SERIALIZABLE")?;
                    "SERIALIZABLE"
                };
                isolation = Some(level.to_string());
            } else if self.eat_kw("READ") {
                access = Some(if self.eat_kw("ONLY") {
                    TxAccess::ReadOnly
                } else {
                    self.expect_kw("WRITE")?;
                    TxAccess::ReadWrite
                });
            } else {
                return Err(self.error());
            }
            if !self.eat_op(",") {
                break;
            }
        }
        Ok(Stmt::SetTransaction {
            scope,
            isolation,
            access,
        })
    }

    /// After `@@`: `[global.|session.|local.]name`.
    fn sysvar_name(&mut self) -> Result<(VarScope, String)> {
        let first = self.ident_or_keyword()?;
        if self.is_op(".") {
            let scope = match first.to_ascii_lowercase().as_str() {
                "global" => VarScope::Global,
                "session" | "local" => VarScope::Session,
                _ => {
                    // @@component.var names are not supported; treat as a whole name.
                    self.bump();
                    let rest = self.ident_or_keyword()?;
                    return Ok((VarScope::Default, format!("{first}.{rest}")));
                }
            };
            self.bump();
            return Ok((scope, self.ident_or_keyword()?));
        }
        Ok((VarScope::Default, first))
    }

    fn ident_or_keyword(&mut self) -> Result<String> {
        match &self.peek().tok {
            Tok::Word(w) => {
                let s = w.to_string();
                self.bump();
                Ok(s)
            }
            Tok::QuotedIdent(s) => {
                let s = s.to_string();
                self.bump();
                Ok(s)
            }
            _ => Err(self.error()),
        }
    }

    fn show(&mut self) -> Result<Stmt> {
        self.expect_kw("SHOW")?;
        let mut scope = VarScope::Session;
        if self.eat_kw("GLOBAL") {
            scope = VarScope::Global;
        } else if self.eat_kw("SESSION") || self.eat_kw("LOCAL") {
            scope = VarScope::Session;
        }
        let full = self.eat_kw("FULL");
        let kind = if self.eat_kw("VARIABLES") {
            ShowKind::Variables
        } else if self.eat_kw("STATUS") {
            ShowKind::Status
        } else if self.eat_kw("WARNINGS") {
            ShowKind::Warnings
        } else if self.eat_kw("ERRORS") {
            ShowKind::Errors
        } else if self.is_kw("COUNT") {
            self.bump();
            self.expect_op("(")?;
            self.expect_op("*")?;
            self.expect_op(")")?;
            if self.eat_kw("WARNINGS") {
                ShowKind::CountWarnings
            } else {
                self.expect_kw("ERRORS")?;
                ShowKind::CountErrors
            }
        } else if self.eat_kw("DATABASES") || self.eat_kw("SCHEMAS") {
            ShowKind::Databases
        } else if self.eat_kw("PROCESSLIST") {
            ShowKind::Processlist { full }
        } else if self.eat_kw("ENGINES") || (self.eat_kw("STORAGE") && self.eat_kw("ENGINES")) {
            ShowKind::Engines
        } else if self.eat_kw("CHARSET")
            || (self.is_kw("CHARACTER") && {
                self.bump();
                self.eat_kw("SET")
            })
        {
            ShowKind::Charset
        } else if self.eat_kw("COLLATION") {
            ShowKind::Collation
        } else if self.eat_kw("GRANTS") {
            let user = if self.eat_kw("FOR") {
                Some(self.user_spec()?)
            } else {
                None
            };
            ShowKind::Grants(user)
        } else {
            return Err(self.error());
        };
        let filter = if self.eat_kw("LIKE") {
            Some(ShowFilter::Like(self.string()?))
        } else if self.eat_kw("WHERE") {
            Some(ShowFilter::Where(self.expr()?))
        } else {
            None
        };
        let mut limit = None;
        if self.eat_kw("LIMIT") {
            let a = self.u64_literal()?;
            limit = Some(if self.eat_op(",") {
                self.u64_literal()?
            } else {
                a
            });
        }
        Ok(Stmt::Show {
            kind,
            scope,
            filter,
            limit,
        })
    }

    fn u64_literal(&mut self) -> Result<u64> {
        match self.peek().tok {
            Tok::Int(s) => {
                let v = s.parse().map_err(|_| self.error())?;
                self.bump();
                Ok(v)
            }
            _ => Err(self.error()),
        }
    }

    fn expr_list(&mut self) -> Result<Vec<Expr>> {
        let mut v = vec![self.expr()?];
        while self.eat_op(",") {
            v.push(self.expr()?);
        }
        Ok(v)
    }

    pub fn expr(&mut self) -> Result<Expr> {
        self.depth += 1;
        if self.depth > EXPRESSION_DEPTH_MAX {
            return Err(KilnError::new(
                ErrorKind::ER_STACK_OVERRUN_NEED_MORE,
                &[&0, &0, &0],
            ));
        }
        let r = self.binary(0);
        self.depth -= 1;
        r
    }

    fn binary(&mut self, min_prec: u8) -> Result<Expr> {
        let mut left = self.prefix()?;
        while let Some((prec, op)) = self.infix_op() {
            if prec < min_prec {
                break;
            }
            left = match op {
                Infix::Bin(op, n) => {
                    for _ in 0..n {
                        self.bump();
                    }
                    let right = self.binary(prec + 1)?;
                    Expr::Binary {
                        op,
                        left: Box::new(left),
                        right: Box::new(right),
                    }
                }
                Infix::Predicate => self.predicate(left)?,
            };
        }
        Ok(left)
    }

    fn infix_op(&self) -> Option<(u8, Infix)> {
        use BinaryOp::*;
        Some(match &self.peek().tok {
            Tok::Op(o) => match *o {
                "||" => (1, Infix::Bin(Or, 1)),
                "&&" => (3, Infix::Bin(And, 1)),
                "=" => (5, Infix::Bin(Eq, 1)),
                "<=>" => (5, Infix::Bin(NullSafeEq, 1)),
                "!=" | "<>" => (5, Infix::Bin(Ne, 1)),
                "<" => (5, Infix::Bin(Lt, 1)),
                "<=" => (5, Infix::Bin(Le, 1)),
                ">" => (5, Infix::Bin(Gt, 1)),
                ">=" => (5, Infix::Bin(Ge, 1)),
                "|" => (6, Infix::Bin(BitOr, 1)),
                "&" => (7, Infix::Bin(BitAnd, 1)),
                "<<" => (8, Infix::Bin(Shl, 1)),
                ">>" => (8, Infix::Bin(Shr, 1)),
                "+" => (9, Infix::Bin(Add, 1)),
                "-" => (9, Infix::Bin(Sub, 1)),
                "*" => (10, Infix::Bin(Mul, 1)),
                "/" => (10, Infix::Bin(Div, 1)),
                "%" => (10, Infix::Bin(Mod, 1)),
                "^" => (11, Infix::Bin(BitXor, 1)),
                _ => return None,
            },
            Tok::Word(w) => match w.to_ascii_uppercase().as_str() {
                "OR" => (1, Infix::Bin(Or, 1)),
                "XOR" => (2, Infix::Bin(Xor, 1)),
                "AND" => (3, Infix::Bin(And, 1)),
                "DIV" => (10, Infix::Bin(IntDiv, 1)),
                "MOD" => (10, Infix::Bin(Mod, 1)),
                "IS" | "LIKE" | "IN" | "BETWEEN" => (5, Infix::Predicate),
                "NOT"
                    if self.is_kw_at(1, "LIKE")
                        || self.is_kw_at(1, "IN")
                        || self.is_kw_at(1, "BETWEEN") =>
                {
                    (5, Infix::Predicate)
                }
                _ => return None,
            },
            _ => return None,
        })
    }

    fn predicate(&mut self, left: Expr) -> Result<Expr> {
        let left = Box::new(left);
        if self.eat_kw("IS") {
            let negated = self.eat_kw("NOT");
            if self.eat_kw("NULL") {
                return Ok(Expr::IsNull {
                    expr: left,
                    negated,
                });
            }
            let value = if self.eat_kw("TRUE") {
                Some(true)
            } else if self.eat_kw("FALSE") {
                Some(false)
            } else {
                self.expect_kw("UNKNOWN")?;
                None
            };
            return Ok(Expr::IsBool {
                expr: left,
                value,
                negated,
            });
        }
        let negated = self.eat_kw("NOT");
        if self.eat_kw("LIKE") {
            let pattern = Box::new(self.binary(6)?);
            let escape = if self.eat_kw("ESCAPE") {
                Some(Box::new(self.binary(6)?))
            } else {
                None
            };
            return Ok(Expr::Like {
                expr: left,
                pattern,
                escape,
                negated,
            });
        }
        if self.eat_kw("IN") {
            self.expect_op("(")?;
            let list = self.expr_list()?;
            self.expect_op(")")?;
            return Ok(Expr::InList {
                expr: left,
                list,
                negated,
            });
        }
        self.expect_kw("BETWEEN")?;
        let low = Box::new(self.binary(6)?);
        self.expect_kw("AND")?;
        let high = Box::new(self.binary(6)?);
        Ok(Expr::Between {
            expr: left,
            low,
            high,
            negated,
        })
    }

    fn prefix(&mut self) -> Result<Expr> {
        let t = self.peek().clone();
        match t.tok {
            Tok::Op("-") => {
                self.bump();
                let e = self.binary(12)?;
                // Fold negative numeric literals so -9223372036854775808 is a BIGINT.
                if let Expr::Literal(v) = &e {
                    match v {
                        Value::Int(i) => return Ok(Expr::Literal(Value::Int(-i))),
                        Value::UInt(u) if *u == 1u64 << 63 => {
                            return Ok(Expr::Literal(Value::Int(i64::MIN)));
                        }
                        _ => {}
                    }
                }
                Ok(Expr::Unary {
                    op: UnaryOp::Neg,
                    expr: Box::new(e),
                })
            }
            Tok::Op("+") => {
                self.bump();
                let e = self.binary(12)?;
                Ok(Expr::Unary {
                    op: UnaryOp::Plus,
                    expr: Box::new(e),
                })
            }
            Tok::Op("~") => {
                self.bump();
                Ok(Expr::Unary {
                    op: UnaryOp::BitNot,
                    expr: Box::new(self.binary(12)?),
                })
            }
            Tok::Op("!") => {
                self.bump();
                Ok(Expr::Unary {
                    op: UnaryOp::Not,
                    expr: Box::new(self.binary(13)?),
                })
            }
            Tok::Word(w) if w.eq_ignore_ascii_case("NOT") => {
                self.bump();
                Ok(Expr::Unary {
                    op: UnaryOp::Not,
                    expr: Box::new(self.binary(4)?),
                })
            }
            _ => self.primary(),
        }
    }

    fn primary(&mut self) -> Result<Expr> {
        let t = self.bump();
        let e = match t.tok {
            Tok::Int(s) => Expr::Literal(match s.parse::<i64>() {
                Ok(i) => Value::Int(i),
                Err(_) => match s.parse::<u64>() {
                    Ok(u) => Value::UInt(u),
                    Err(_) => Value::Decimal(s.trim_start_matches('0').to_string()),
                },
            }),
            Tok::Decimal(s) => Expr::Literal(Value::Decimal(normalize_decimal_literal(s))),
            Tok::Float(s) => Expr::Literal(Value::Double(s.parse().unwrap_or(0.0))),
            Tok::Str(s) => {
                let mut v = s.into_owned();
                // Adjacent string literals concatenate: 'a' 'b' = 'ab'.
                while let Tok::Str(next) = &self.peek().tok {
                    v.extend_from_slice(next);
                    self.bump();
                }
                Expr::Literal(match String::from_utf8(v) {
                    Ok(s) => Value::Str(s),
                    Err(e) => Value::Bytes(e.into_bytes()),
                })
            }
            Tok::Hex(v) | Tok::Bits(v) => Expr::Literal(Value::Bytes(v)),
            Tok::Placeholder => {
                self.params += 1;
                if self.params > kiln_common::limits::PREPARED_PARAMS_MAX {
                    return Err(ErrorKind::ER_PS_MANY_PARAM.into());
                }
                Expr::Param(self.params - 1)
            }
            Tok::UserVar(n) => {
                let name = n.to_string();
                if self.eat_op(":=") {
                    return Ok(Expr::Assign {
                        name,
                        expr: Box::new(self.expr()?),
                    });
                }
                Expr::UserVar(name)
            }
            Tok::AtAt => {
                let (scope, name) = self.sysvar_name()?;
                Expr::SysVar { scope, name }
            }
            Tok::Op("(") => {
                let e = self.expr()?;
                if self.is_op(",") {
                    return Err(KilnError::new(
                        ErrorKind::ER_NOT_SUPPORTED_YET,
                        &[&"row constructors"],
                    ));
                }
                self.expect_op(")")?;
                e
            }
            Tok::QuotedIdent(s) => self.column_or_call(s.into_owned(), true)?,
            Tok::Word(w) => {
                let u = w.to_ascii_uppercase();
                match u.as_str() {
                    "NULL" => Expr::Literal(Value::Null),
                    "TRUE" => Expr::Literal(Value::Int(1)),
                    "FALSE" => Expr::Literal(Value::Int(0)),
                    "CASE" => return self.case(),
                    "CAST" if self.is_op("(") => return self.cast(),
                    "CONVERT" if self.is_op("(") => return self.convert(),
                    "INTERVAL" if !self.is_op("(") => return Err(self.error_at(t.start)),
                    "BINARY" if !self.is_op("(") => {
                        let e = self.binary(13)?;
                        Expr::Cast {
                            expr: Box::new(e),
                            to: CastType::Binary,
                        }
                    }
                    "CURRENT_TIMESTAMP" | "CURRENT_DATE" | "CURRENT_TIME" | "LOCALTIME"
                    | "LOCALTIMESTAMP" | "CURRENT_USER" | "UTC_TIMESTAMP" | "UTC_DATE"
                    | "UTC_TIME"
                        if !self.is_op("(") =>
                    {
                        Expr::Func {
                            name: u.to_ascii_lowercase(),
                            args: vec![],
                        }
                    }
                    "DATE" | "TIME" | "TIMESTAMP" if matches!(self.peek().tok, Tok::Str(_)) => {
                        let Tok::Str(s) = self.bump().tok else {
                            unreachable!()
                        };
                        Expr::Func {
                            name: u.to_ascii_lowercase(),
                            args: vec![Expr::Literal(Value::Str(
                                String::from_utf8_lossy(&s).into_owned(),
                            ))],
                        }
                    }
                    _ if is_reserved(w) && !self.is_op("(") => return Err(self.error_at(t.start)),
                    _ => self.column_or_call(w.to_string(), false)?,
                }
            }
            _ => return Err(self.error_at(t.start)),
        };
        if self.eat_kw("COLLATE") {
            let _collation = self.ident_or_string()?;
        }
        Ok(e)
    }

    fn error_at(&self, at: usize) -> KilnError {
        syntax_error_at(self.sql, at)
    }

    fn column_or_call(&mut self, first: String, quoted: bool) -> Result<Expr> {
        if !quoted && self.is_op("(") && self.peek().start == self.toks[self.pos - 1].end {
            self.bump();
            let name = first.to_ascii_lowercase();
            let mut args = Vec::new();
            if name == "count" && self.eat_op("*") {
                self.expect_op(")")?;
                return Ok(Expr::Func {
                    name,
                    args: vec![Expr::Literal(Value::Int(1))],
                });
            }
            if !self.eat_op(")") {
                self.eat_kw("DISTINCT");
                args = self.expr_list()?;
                if name == "trim" || name == "position" {
                    // Not supported forms (TRIM(LEADING ..), POSITION(a IN b)) stay syntax errors.
                }
                self.expect_op(")")?;
            }
            return Ok(Expr::Func { name, args });
        }
        if !quoted && self.is_op("(") {
            // MySQL without IGNORE_SPACE: "f (x)" is still a call for built-ins; treat alike.
            return self.column_or_call_spaced(first);
        }
        if self.eat_op(".") {
            let name = self.ident_or_keyword()?;
            if self.eat_op(".") {
                let col = self.ident_or_keyword()?;
                return Ok(Expr::Column {
                    qualifier: Some(format!("{first}.{name}")),
                    name: col,
                });
            }
            return Ok(Expr::Column {
                qualifier: Some(first),
                name,
            });
        }
        Ok(Expr::Column {
            qualifier: None,
            name: first,
        })
    }

    fn column_or_call_spaced(&mut self, first: String) -> Result<Expr> {
        self.bump();
        let name = first.to_ascii_lowercase();
        let args = if self.eat_op(")") {
            Vec::new()
        } else {
            let a = self.expr_list()?;
            self.expect_op(")")?;
            a
        };
        Ok(Expr::Func { name, args })
    }

    fn case(&mut self) -> Result<Expr> {
        let operand = if self.is_kw("WHEN") {
            None
        } else {
            Some(Box::new(self.expr()?))
        };
        let mut whens = Vec::new();
        while self.eat_kw("WHEN") {
            let w = self.expr()?;
            self.expect_kw("THEN")?;
            whens.push((w, self.expr()?));
        }
        if whens.is_empty() {
            return Err(self.error());
        }
        let otherwise = if self.eat_kw("ELSE") {
            Some(Box::new(self.expr()?))
        } else {
            None
        };
        self.expect_kw("END")?;
        Ok(Expr::Case {
            operand,
            whens,
            otherwise,
        })
    }

    fn cast_type(&mut self) -> Result<CastType> {
        let t = match &self.peek().tok {
            Tok::Word(w) => w.to_ascii_uppercase(),
            _ => return Err(self.error()),
        };
        self.bump();
        let ty = match t.as_str() {
            "SIGNED" => {
                let _ = self.eat_kw("INTEGER") || self.eat_kw("INT");
                CastType::Signed
            }
            "UNSIGNED" => {
                let _ = self.eat_kw("INTEGER") || self.eat_kw("INT");
                CastType::Unsigned
            }
            "CHAR" | "NCHAR" | "VARCHAR" => CastType::Char,
            "BINARY" => CastType::Binary,
            "DECIMAL" => CastType::Decimal,
            "DOUBLE" | "FLOAT" | "REAL" => CastType::Double,
            _ => return Err(self.error_at(self.toks[self.pos - 1].start)),
        };
        if self.eat_op("(") {
            while !self.eat_op(")") {
                if self.at_eof() {
                    return Err(self.error());
                }
                self.bump();
            }
        }
        while self.eat_kw("CHARACTER") || self.eat_kw("CHARSET") || self.eat_kw("COLLATE") {
            self.eat_kw("SET");
            self.ident_or_string()?;
        }
        Ok(ty)
    }

    fn cast(&mut self) -> Result<Expr> {
        self.expect_op("(")?;
        let e = self.expr()?;
        self.expect_kw("AS")?;
        let to = self.cast_type()?;
        self.expect_op(")")?;
        Ok(Expr::Cast {
            expr: Box::new(e),
            to,
        })
    }

    fn convert(&mut self) -> Result<Expr> {
        self.expect_op("(")?;
        let e = self.expr()?;
        let to = if self.eat_kw("USING") {
            self.ident_or_string()?;
            CastType::Char
        } else {
            self.expect_op(",")?;
            self.cast_type()?
        };
        self.expect_op(")")?;
        Ok(Expr::Cast {
            expr: Box::new(e),
            to,
        })
    }
}

enum Infix {
    Bin(BinaryOp, usize),
    Predicate,
}

fn normalize_decimal_literal(s: &str) -> String {
    let s = if s.starts_with('.') {
        format!("0{s}")
    } else {
        s.to_string()
    };
    let trimmed = s.trim_start_matches('0');
    if trimmed.starts_with('.') || trimmed.is_empty() {
        format!("0{trimmed}")
    } else {
        trimmed.to_string()
    }
}

/// Words that cannot be used as bare identifiers or column names (a subset of MySQL's
/// reserved words: enough that misplaced keywords are syntax errors, as in MySQL).
pub fn is_reserved(w: &str) -> bool {
    const RESERVED: &[&str] = &[
        "ADD", "ALL", "ALTER", "AND", "AS", "ASC", "BETWEEN", "BY", "CASE", "CREATE", "DELETE",
        "DESC", "DISTINCT", "DROP", "ELSE", "END", "EXISTS", "FOR", "FROM", "GROUP", "HAVING",
        "IN", "INSERT", "INTO", "IS", "JOIN", "LIKE", "LIMIT", "NOT", "NULL", "ON", "OR", "ORDER",
        "SELECT", "SET", "TABLE", "THEN", "UNION", "UPDATE", "USING", "VALUES", "WHEN", "WHERE",
        "XOR", "DIV", "MOD", "INTERVAL", "LEFT", "RIGHT", "INNER", "OUTER", "CROSS", "WITH",
        "DEFAULT", "KEY", "PRIMARY", "INDEX", "ESCAPE", "COLLATE",
    ];
    RESERVED.iter().any(|r| r.eq_ignore_ascii_case(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(sql: &str) -> Stmt {
        parse_one(sql, false).unwrap().stmt
    }

    #[test]
    fn select_items_named_by_source_text() {
        let Stmt::Select(s) = one("SELECT 1+1, @@version, 'abc', 2 AS two, CONNECTION_ID()") else {
            panic!()
        };
        let names: Vec<_> = s.items.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["1+1", "@@version", "abc", "two", "CONNECTION_ID()"]);
    }

    #[test]
    fn precedence() {
        let Stmt::Select(s) = one("SELECT 1 + 2 * 3 = 7 AND NOT 0") else {
            panic!()
        };
        let Expr::Binary {
            op: BinaryOp::And,
            left,
            ..
        } = &s.items[0].expr
        else {
            panic!("{:?}", s.items[0].expr)
        };
        assert!(matches!(
            **left,
            Expr::Binary {
                op: BinaryOp::Eq,
                ..
            }
        ));
    }

    #[test]
    fn set_forms() {
        assert!(matches!(one("SET NAMES utf8mb4"), Stmt::SetNames { .. }));
        assert!(matches!(
            one("SET character_set_results = NULL"),
            Stmt::Set(_)
        ));
        let Stmt::Set(v) = one("SET @@session.autocommit = 1, GLOBAL max_connections = 10, @a = 5")
        else {
            panic!()
        };
        assert_eq!(v.len(), 3);
        assert_eq!(
            v[1].0,
            SetTarget::System {
                scope: VarScope::Global,
                name: "max_connections".into()
            }
        );
        assert!(matches!(
            one("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"),
            Stmt::SetTransaction { .. }
        ));
        assert!(matches!(one("SET autocommit = ON"), Stmt::Set(_)));
    }

    #[test]
    fn syntax_error_message() {
        let e = parse_one("SELEC 1", false).unwrap_err();
        assert_eq!(e.code, 1064);
        assert!(
            e.message.ends_with("near 'SELEC 1' at line 1"),
            "{}",
            e.message
        );
        let e = parse_one("SELECT 1 +", false).unwrap_err();
        assert!(e.message.ends_with("near '' at line 1"), "{}", e.message);
        let e = parse_one("SELECT 1,\n2 3", false).unwrap_err();
        assert!(e.message.ends_with("near '3' at line 2"), "{}", e.message);
    }

    #[test]
    fn multi_statements_and_empty() {
        assert_eq!(parse_multi("SELECT 1; SELECT 2;", false).unwrap().len(), 2);
        assert_eq!(parse_multi(" ; ", false).unwrap_err().code, 1065);
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let sql = format!("SELECT {}1{}", "(".repeat(5000), ")".repeat(5000));
        assert!(parse_one(&sql, false).is_err());
    }

    #[test]
    fn users() {
        let Stmt::CreateUser { users, .. } =
            one("CREATE USER 'bob'@'%' IDENTIFIED WITH mysql_native_password BY 'pw'")
        else {
            panic!()
        };
        assert_eq!(
            users[0].0,
            UserSpec {
                user: "bob".into(),
                host: "%".into()
            }
        );
        assert_eq!(users[0].1.password.as_deref(), Some("pw"));
    }
}
