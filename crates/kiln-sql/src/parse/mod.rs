//! The statement parser: recursive descent over [`crate::lexer`] tokens for the
//! statements kiln runs, with a precedence-climbing expression parser that follows
//! MySQL's operator precedence table (OR < XOR < AND < NOT < comparison < | < & <
//! shifts < + - < * / DIV MOD < ^ < unary - ~ < !).
//!
//! Files: `mod.rs` (entry points, the token cursor, errors), `stmt.rs` (statement
//! dispatch, DDL-ish and account statements, SHOW), `grant.rs` (GRANT, REVOKE, RENAME
//! USER, account resource options), `select.rs` (SELECT), `window.rs` (OVER and
//! WINDOW clauses), `set.rs`
//! (SET and SET TRANSACTION), `expr.rs` (expressions).
//!
//! Errors are MySQL's 1064 with the text from the failing token, cut at 80 bytes:
//! "You have an error in your SQL syntax; ... near '<rest>' at line N".

use kiln_common::limits::{EXPRESSION_DEPTH_MAX, EXPRESSION_OPERATORS_MAX};
use kiln_common::{ErrorKind, KilnError, Result};

use crate::ast::*;
pub use crate::lexer::LexMode;
use crate::lexer::{Tok, Token, tokenize};

mod ddl;
mod dml;
mod expr;
mod grant;
mod lock;
mod prepare;
mod routine;
mod routine_decl;
mod routine_def;
mod select;
mod set;
mod special;
mod stmt;
mod view;
mod window;

pub use routine::parse_body;
pub use routine_def::parse_routine;

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
    /// The point-select plan of a prepared statement, made at its first execution
    /// (exec/point.rs).
    pub point: crate::exec::point::PlanSlot,
    /// A prepared statement's plan of other shapes (exec/prepared_plan.rs); off for
    /// statements run once.
    pub plan: crate::exec::prepared_plan::StmtSlot,
}

/// Parses the statements of a COM_QUERY (several with multi-statements). Returns each
/// statement with its source text. Empty statements between `;` are skipped; a query
/// with no statement at all is error 1065.
pub fn parse_multi(sql: &str, mode: LexMode) -> Result<Vec<(Parsed, &str)>> {
    let toks = tokenize(sql, mode)?;
    let mut p = Parser {
        sql,
        toks,
        mode,
        pos: 0,
        params: 0,
        depth: 0,
        operators: 0,
        straight_join: false,
        in_body: false,
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
                point: Default::default(),
                plan: Default::default(),
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
pub fn parse_one(sql: &str, mode: LexMode) -> Result<Parsed> {
    let mut all = parse_multi(sql, mode)?;
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
    /// sql_mode's PIPES_AS_CONCAT and REAL_AS_FLOAT are read here (the lexer has
    /// applied the rest).
    mode: LexMode,
    pos: usize,
    params: usize,
    depth: usize,
    /// Operators chained so far in the current top-level expression
    /// (`EXPRESSION_OPERATORS_MAX`).
    operators: usize,
    /// A `STRAIGHT_JOIN` operator was read in the FROM clause being parsed.
    straight_join: bool,
    /// A routine or trigger body is being read (LIMIT may name a local variable).
    in_body: bool,
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
        self.word(false)
    }

    /// A word (reserved ones too, with `reserved_ok`) or a quoted identifier.
    fn word(&mut self, reserved_ok: bool) -> Result<String> {
        let s = match &self.peek().tok {
            Tok::Word(w) if reserved_ok || !is_reserved(w) => w.to_string(),
            Tok::QuotedIdent(s) => s.to_string(),
            _ => return Err(self.error()),
        };
        self.bump();
        Ok(s)
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

    fn ident_or_keyword(&mut self) -> Result<String> {
        self.word(true)
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
    use crate::value::Value;

    fn one(sql: &str) -> Stmt {
        parse_one(sql, LexMode::default()).unwrap().stmt
    }

    #[test]
    fn pipes_as_concat_binds_between_xor_and_unary_operators() {
        let pipes = LexMode {
            pipes_as_concat: true,
            ..Default::default()
        };
        let exprs = |sql: &str, m: LexMode| -> Vec<Expr> {
            match parse_one(sql, m).unwrap().stmt {
                Stmt::Select(s) => s.items.into_iter().map(|i| i.expr).collect(),
                _ => panic!(),
            }
        };
        let got = exprs(
            "SELECT 1 + 2 || 3, -a || b, a ^ b || c, a || b || c, a || b OR c",
            pipes,
        );
        let want = exprs(
            "SELECT 1 + CONCAT(2, 3), CONCAT(-a, b), a ^ CONCAT(b, c), \
             CONCAT(CONCAT(a, b), c), CONCAT(a, b) OR c",
            LexMode::default(),
        );
        assert_eq!(got, want);
        // Without the mode `||` is OR.
        assert_eq!(
            exprs("SELECT a || b", LexMode::default()),
            exprs("SELECT a OR b", LexMode::default())
        );
    }

    #[test]
    fn high_not_precedence() {
        let exprs = |sql: &str, m: LexMode| -> Vec<Expr> {
            match parse_one(sql, m).unwrap().stmt {
                Stmt::Select(s) => s.items.into_iter().map(|i| i.expr).collect(),
                _ => panic!(),
            }
        };
        let high = LexMode {
            high_not_precedence: true,
            ..Default::default()
        };
        let sql = "SELECT NOT 1 BETWEEN -5 AND 5, NOT a = b, NOT a AND b";
        assert_eq!(
            exprs(sql, high),
            exprs(
                "SELECT (NOT 1) BETWEEN -5 AND 5, (NOT a) = b, (NOT a) AND b",
                LexMode::default()
            )
        );
        assert_eq!(
            exprs(sql, LexMode::default()),
            exprs(
                "SELECT NOT (1 BETWEEN -5 AND 5), NOT (a = b), (NOT a) AND b",
                LexMode::default()
            )
        );
    }

    #[test]
    fn real_as_float() {
        let ty = |m: LexMode| match parse_one("CREATE TABLE t (r REAL)", m).unwrap().stmt {
            Stmt::CreateTable(ct) => ct.columns[0].ty.clone(),
            _ => panic!(),
        };
        let float = LexMode {
            real_as_float: true,
            ..Default::default()
        };
        assert!(matches!(ty(float), crate::types::SqlType::Float { .. }));
        assert!(matches!(
            ty(LexMode::default()),
            crate::types::SqlType::Double { .. }
        ));
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
    fn introducers_collate_and_convert() {
        let items = |sql: &str| -> Vec<Expr> {
            let Stmt::Select(s) = one(sql) else { panic!() };
            s.items.into_iter().map(|i| i.expr).collect()
        };
        let e = items("SELECT _binary'ab', _utf8mb4'ab', _latin1'x', CONVERT('a' USING latin1)");
        assert_eq!(e[0], Expr::Literal(Value::Bytes(b"ab".to_vec())));
        assert_eq!(e[1], Expr::Literal(Value::Str("ab".into())));
        assert!(matches!(&e[2], Expr::Func { name, .. } if name == "convert_using"));
        assert!(matches!(&e[3], Expr::Func { name, .. } if name == "convert_using"));
        let e = items("SELECT 'a' COLLATE utf8mb4_bin");
        assert!(matches!(&e[0], Expr::Collate { coll, .. } if coll.name() == "utf8mb4_bin"));
        assert_eq!(
            parse_one("SELECT 'a' COLLATE nope", LexMode::default())
                .unwrap_err()
                .code,
            1273
        );
        assert_eq!(
            parse_one("SELECT CONVERT('a' USING nope)", LexMode::default())
                .unwrap_err()
                .code,
            1115
        );
        // GROUP_CONCAT's ORDER BY travels after the separator
        let e = items("SELECT GROUP_CONCAT(a ORDER BY b DESC SEPARATOR '|')");
        let Expr::Func { args, .. } = &e[0] else {
            panic!()
        };
        assert!(
            matches!(&args[2], Expr::Func { name, args } if name == GROUP_CONCAT_ORDER
            && args[1] == Expr::Literal(Value::Int(1)))
        );
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
        let e = parse_one("SELEC 1", LexMode::default()).unwrap_err();
        assert_eq!(e.code, 1064);
        assert!(
            e.message.ends_with("near 'SELEC 1' at line 1"),
            "{}",
            e.message
        );
        let e = parse_one("SELECT 1 +", LexMode::default()).unwrap_err();
        assert!(e.message.ends_with("near '' at line 1"), "{}", e.message);
        let e = parse_one("SELECT 1,\n2 3", LexMode::default()).unwrap_err();
        assert!(e.message.ends_with("near '3' at line 2"), "{}", e.message);
    }

    #[test]
    fn multi_statements_and_empty() {
        assert_eq!(
            parse_multi("SELECT 1; SELECT 2;", LexMode::default())
                .unwrap()
                .len(),
            2
        );
        assert_eq!(
            parse_multi(" ; ", LexMode::default()).unwrap_err().code,
            1065
        );
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let sql = format!("SELECT {}1{}", "(".repeat(5000), ")".repeat(5000));
        assert!(parse_one(&sql, LexMode::default()).is_err());
    }

    /// A run of prefix operators nests like parentheses and is bounded the same way:
    /// `SELECT ` and 4,000 `-` overflowed the sql_parse fuzzer's stack, and far fewer
    /// the 2 MiB of a connection thread. Parsed here on such a thread.
    #[test]
    fn prefix_operator_runs_are_bounded() {
        let run = || {
            for op in ["-", "+", "~", "!", "NOT ", "BINARY ", "INTERVAL 1 DAY + "] {
                let deep = format!("SELECT {}1", op.repeat(20_000));
                let e = parse_one(&deep, LexMode::default()).unwrap_err();
                assert_eq!(e.code, 1436, "{op:?}: ER_STACK_OVERRUN_NEED_MORE");
                let fine = format!("SELECT {}1", op.repeat(100));
                assert!(parse_one(&fine, LexMode::default()).is_ok(), "{op:?}");
            }
            let parens = format!("SELECT {}1{}", "(".repeat(200), ")".repeat(200));
            assert!(parse_one(&parens, LexMode::default()).is_ok());
        };
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(run)
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn chained_operators_per_expression_are_bounded() {
        let chain = |n: usize, op: &str| vec!["1"; n].join(op);
        let max = EXPRESSION_OPERATORS_MAX;
        assert!(
            parse_one(
                &format!("SELECT {}", chain(max + 1, "+")),
                LexMode::default()
            )
            .is_ok()
        );
        let e = parse_one(
            &format!("SELECT {}", chain(max + 2, "+")),
            LexMode::default(),
        )
        .unwrap_err();
        assert_eq!(e.code, 1436);
        // predicates applied to an operand count too
        let preds = format!("SELECT 1{}", " IS NOT NULL".repeat(max + 1));
        assert_eq!(
            parse_one(&preds, LexMode::default()).unwrap_err().code,
            1436
        );
        // the budget is per top-level expression, not per statement
        let two = format!("SELECT {0}, {0} FROM t WHERE {0}", chain(max, "+"));
        assert!(parse_one(&two, LexMode::default()).is_ok());
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
