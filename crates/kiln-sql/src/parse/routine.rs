//! CREATE / DROP TRIGGER and the compound statements of routine bodies
//! (crate::routine holds the tree and the interpreter).

use super::*;
use crate::routine::{Body, LoopKind, NESTING_MAX, RStmt, Target};

/// Words that end a statement list inside a compound statement.
const LIST_ENDS: &[&str] = &["END", "ELSE", "ELSEIF", "WHEN", "UNTIL"];

impl<'a> Parser<'a> {
    /// At TRIGGER (after CREATE [DEFINER = u]): the rest of CREATE TRIGGER.
    pub(super) fn trigger_definition(&mut self, definer: Option<UserSpec>) -> Result<Stmt> {
        self.expect_kw("TRIGGER")?;
        let if_not_exists = self.if_not_exists()?;
        let name = self.table_name()?;
        let timing = if self.eat_kw("BEFORE") {
            TriggerTiming::Before
        } else {
            self.expect_kw("AFTER")?;
            TriggerTiming::After
        };
        let event = if self.eat_kw("INSERT") {
            TriggerEvent::Insert
        } else if self.eat_kw("UPDATE") {
            TriggerEvent::Update
        } else {
            self.expect_kw("DELETE")?;
            TriggerEvent::Delete
        };
        self.expect_kw("ON")?;
        let table = self.table_name()?;
        self.expect_kw("FOR")?;
        self.expect_kw("EACH")?;
        self.expect_kw("ROW")?;
        let order = if self.eat_kw("FOLLOWS") {
            Some((false, self.ident()?))
        } else if self.eat_kw("PRECEDES") {
            Some((true, self.ident()?))
        } else {
            None
        };
        let (stmt, body_text) = self.stored_body()?;
        Ok(Stmt::CreateTrigger(Box::new(CreateTrigger {
            name,
            if_not_exists,
            definer,
            timing,
            event,
            table,
            order,
            body: Body { stmt },
            body_text,
        })))
    }

    /// The body of a CREATE TRIGGER / PROCEDURE / FUNCTION and its text as written
    /// (`?` is not allowed in it).
    pub(super) fn stored_body(&mut self) -> Result<(RStmt, String)> {
        let start = self.peek().start;
        let params_before = self.params;
        self.in_body = true;
        let stmt = self.routine_stmt(0);
        self.in_body = false;
        let stmt = stmt?;
        if self.params != params_before {
            return Err(self.error());
        }
        let end = self.toks[self.pos.saturating_sub(1)].end.max(start);
        Ok((stmt, self.sql[start..end].to_string()))
    }

    /// After DROP: `TRIGGER [IF EXISTS] [db.]name`.
    pub(super) fn drop_trigger(&mut self) -> Result<Stmt> {
        self.expect_kw("TRIGGER")?;
        let if_exists = self.if_exists()?;
        Ok(Stmt::DropTrigger {
            name: self.table_name()?,
            if_exists,
        })
    }

    /// Parses a whole routine body given as text (a stored trigger's).
    pub(super) fn routine_body(&mut self) -> Result<Body> {
        let stmt = self.routine_stmt(0)?;
        if !self.at_eof() {
            return Err(self.error());
        }
        Ok(Body { stmt })
    }

    /// One statement of a routine body.
    pub(super) fn routine_stmt(&mut self, depth: usize) -> Result<RStmt> {
        if depth > NESTING_MAX {
            return Err(ErrorKind::ER_TOO_HIGH_LEVEL_OF_NESTING_FOR_SELECT.into());
        }
        // `label:` before BEGIN / LOOP / WHILE / REPEAT.
        let mut label = None;
        if matches!(self.peek().tok, Tok::Word(_) | Tok::QuotedIdent(_))
            && matches!(self.peek_at(1), Tok::Op(":"))
        {
            label = Some(self.word(true)?);
            self.bump();
        }
        let w = match &self.peek().tok {
            Tok::Word(w) => w.to_ascii_uppercase(),
            _ if label.is_none() => return self.routine_sql(),
            _ => return Err(self.error()),
        };
        match w.as_str() {
            "BEGIN" => {
                self.bump();
                let body = self.routine_block_list(depth)?;
                self.expect_kw("END")?;
                self.end_label(&label)?;
                Ok(RStmt::Block { label, body })
            }
            "LOOP" => {
                self.bump();
                let body = self.routine_list(depth)?;
                self.expect_kw("END")?;
                self.expect_kw("LOOP")?;
                self.end_label(&label)?;
                Ok(RStmt::Loop {
                    kind: LoopKind::Loop,
                    label,
                    cond: None,
                    body,
                })
            }
            "WHILE" => {
                self.bump();
                let cond = self.expr()?;
                self.expect_kw("DO")?;
                let body = self.routine_list(depth)?;
                self.expect_kw("END")?;
                self.expect_kw("WHILE")?;
                self.end_label(&label)?;
                Ok(RStmt::Loop {
                    kind: LoopKind::While,
                    label,
                    cond: Some(cond),
                    body,
                })
            }
            "REPEAT" => {
                self.bump();
                let body = self.routine_list(depth)?;
                self.expect_kw("UNTIL")?;
                let cond = self.expr()?;
                self.expect_kw("END")?;
                self.expect_kw("REPEAT")?;
                self.end_label(&label)?;
                Ok(RStmt::Loop {
                    kind: LoopKind::Repeat,
                    label,
                    cond: Some(cond),
                    body,
                })
            }
            _ if label.is_some() => Err(self.error()),
            "IF" => {
                self.bump();
                let mut branches = Vec::new();
                let mut otherwise = None;
                loop {
                    let cond = self.expr()?;
                    self.expect_kw("THEN")?;
                    branches.push((cond, self.routine_list(depth)?));
                    if self.eat_kw("ELSEIF") {
                        continue;
                    }
                    if self.eat_kw("ELSE") {
                        otherwise = Some(self.routine_list(depth)?);
                    }
                    break;
                }
                self.expect_kw("END")?;
                self.expect_kw("IF")?;
                Ok(RStmt::If {
                    branches,
                    otherwise,
                })
            }
            "CASE" => {
                self.bump();
                let operand = if self.is_kw("WHEN") {
                    None
                } else {
                    Some(self.expr()?)
                };
                let mut whens = Vec::new();
                while self.eat_kw("WHEN") {
                    let e = self.expr()?;
                    self.expect_kw("THEN")?;
                    whens.push((e, self.routine_list(depth)?));
                }
                if whens.is_empty() {
                    return Err(self.error());
                }
                let otherwise = if self.eat_kw("ELSE") {
                    Some(self.routine_list(depth)?)
                } else {
                    None
                };
                self.expect_kw("END")?;
                self.expect_kw("CASE")?;
                Ok(RStmt::Case {
                    operand,
                    whens,
                    otherwise,
                })
            }
            "LEAVE" => {
                self.bump();
                Ok(RStmt::Leave(self.word(true)?))
            }
            "ITERATE" => {
                self.bump();
                Ok(RStmt::Iterate(self.word(true)?))
            }
            "DECLARE" => {
                self.bump();
                if ["CONTINUE", "EXIT", "UNDO"].iter().any(|k| self.is_kw(k))
                    && self.is_kw_at(1, "HANDLER")
                {
                    return self.declare_handler(depth);
                }
                let mut names = vec![self.ident()?];
                if self.is_kw("CONDITION") || self.is_kw("CURSOR") {
                    return self.declare_named(names.remove(0));
                }
                while self.eat_op(",") {
                    names.push(self.ident()?);
                }
                let (ty, _, _) = self.data_type()?;
                let default = if self.eat_kw("DEFAULT") {
                    Some(self.expr()?)
                } else {
                    None
                };
                Ok(RStmt::Declare { names, ty, default })
            }
            "SET" if !self.routine_set_is_plain() => self.routine_set(),
            "SIGNAL" | "RESIGNAL" => self.signal(),
            "RETURN" => {
                self.bump();
                Ok(RStmt::Return(self.expr()?))
            }
            "OPEN" | "CLOSE" | "FETCH" => self.cursor_stmt(&w),
            "SELECT" => self.select_into(),
            _ => self.routine_sql(),
        }
    }

    /// Statements up to one of `LIST_ENDS`, each ended by `;` (at least one).
    fn routine_list(&mut self, depth: usize) -> Result<Vec<RStmt>> {
        if LIST_ENDS.iter().any(|k| self.is_kw(k)) {
            return Err(self.error());
        }
        self.routine_block_list(depth)
    }

    /// A BEGIN ... END block's statements (none is fine).
    fn routine_block_list(&mut self, depth: usize) -> Result<Vec<RStmt>> {
        let mut out = Vec::new();
        loop {
            if LIST_ENDS.iter().any(|k| self.is_kw(k)) {
                return Ok(out);
            }
            out.push(self.routine_stmt(depth + 1)?);
            self.expect_op(";")?;
            while self.eat_op(";") {}
        }
    }

    /// `END label` must repeat the opening label (1310 otherwise in MySQL; a syntax
    /// error here).
    fn end_label(&mut self, label: &Option<String>) -> Result<()> {
        if let Some(l) = label
            && matches!(self.peek().tok, Tok::Word(w) if w.eq_ignore_ascii_case(l))
        {
            self.bump();
            return Ok(());
        }
        if let Tok::QuotedIdent(q) = &self.peek().tok
            && label.as_deref().is_some_and(|l| l.eq_ignore_ascii_case(q))
        {
            self.bump();
        }
        Ok(())
    }

    /// SET NAMES / CHARACTER SET / PASSWORD / TRANSACTION: the plain statement.
    fn routine_set_is_plain(&self) -> bool {
        ["NAMES", "CHARSET", "CHARACTER", "PASSWORD", "TRANSACTION"]
            .iter()
            .any(|k| self.is_kw_at(1, k))
    }

    /// `SET target = expr [, target = expr] ...` with local variables, NEW.col and
    /// OLD.col as targets too.
    fn routine_set(&mut self) -> Result<RStmt> {
        self.expect_kw("SET")?;
        let mut items = Vec::new();
        loop {
            let mut scope = None;
            if self.eat_kw("GLOBAL") || self.eat_kw("PERSIST") {
                scope = Some(VarScope::Global);
            } else if self.eat_kw("SESSION") || self.eat_kw("LOCAL") {
                scope = Some(VarScope::Session);
            }
            let target = match &self.peek().tok {
                Tok::UserVar(n) => {
                    let n = n.to_string();
                    self.bump();
                    Target::User(n)
                }
                Tok::AtAt => {
                    self.bump();
                    let (s, name) = self.sysvar_name()?;
                    let s = if s == VarScope::Default {
                        VarScope::Session
                    } else {
                        s
                    };
                    Target::System(s, name)
                }
                _ => {
                    let first = self.ident_or_keyword()?;
                    if scope.is_some() {
                        Target::System(scope.unwrap_or(VarScope::Session), first)
                    } else if self.eat_op(".") {
                        let col = self.ident_or_keyword()?;
                        if first.eq_ignore_ascii_case("NEW") {
                            Target::New(col)
                        } else if first.eq_ignore_ascii_case("OLD") {
                            Target::Old(col)
                        } else {
                            return Err(self.error());
                        }
                    } else {
                        Target::Local(first)
                    }
                }
            };
            if !self.eat_op("=") && !self.eat_op(":=") {
                return Err(self.error());
            }
            let value = if self.is_kw("DEFAULT")
                && matches!(self.peek_at(1), Tok::Eof | Tok::Op(";") | Tok::Op(","))
            {
                self.bump();
                Expr::Literal(crate::value::Value::Null)
            } else {
                self.expr()?
            };
            items.push((target, value));
            if !self.eat_op(",") {
                break;
            }
        }
        Ok(RStmt::Set(items))
    }

    /// `SELECT ... INTO target [, target] ...` (INTO after the select list or at the
    /// end): the INTO clause is taken out of the tokens, then the SELECT parsed.
    fn select_into(&mut self) -> Result<RStmt> {
        let mut depth = 0usize;
        let mut at = None;
        let mut i = self.pos;
        while i < self.toks.len() {
            match &self.toks[i].tok {
                Tok::Op("(") => depth += 1,
                Tok::Op(")") => depth = depth.saturating_sub(1),
                Tok::Op(";") | Tok::Eof if depth == 0 => break,
                Tok::Word(w) if depth == 0 && w.eq_ignore_ascii_case("INTO") => {
                    at = Some(i);
                    break;
                }
                _ => {}
            }
            i += 1;
        }
        let Some(at) = at else {
            return self.routine_sql();
        };
        let mut j = at + 1;
        let mut targets = Vec::new();
        loop {
            let t = match &self.toks.get(j).map(|t| &t.tok) {
                Some(Tok::UserVar(n)) => Target::User(n.to_string()),
                Some(Tok::Word(w)) if !is_reserved(w) => Target::Local(w.to_string()),
                Some(Tok::QuotedIdent(q)) => Target::Local(q.to_string()),
                _ => {
                    return Err(syntax_error_at(
                        self.sql,
                        self.toks[j.min(self.toks.len() - 1)].start,
                    ));
                }
            };
            targets.push(t);
            j += 1;
            if matches!(self.toks.get(j).map(|t| &t.tok), Some(Tok::Op(","))) {
                j += 1;
                continue;
            }
            break;
        }
        self.toks.drain(at..j);
        let select = self.select()?;
        Ok(RStmt::SelectInto {
            select: Box::new(select),
            targets,
        })
    }

    /// Any other statement (which ones a body may hold is checked at CREATE).
    fn routine_sql(&mut self) -> Result<RStmt> {
        Ok(RStmt::Sql(Box::new(self.statement()?)))
    }
}

/// Parses a stored routine body (`text` as `CreateTrigger::body_text` kept it).
pub fn parse_body(text: &str, mode: LexMode) -> Result<Body> {
    let toks = tokenize(text, mode)?;
    let mut p = Parser {
        sql: text,
        toks,
        mode,
        pos: 0,
        params: 0,
        depth: 0,
        operators: 0,
        straight_join: false,
        in_body: true,
    };
    p.routine_body()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trigger(sql: &str) -> CreateTrigger {
        match parse_one(sql, LexMode::default()).map(|p| p.stmt) {
            Ok(Stmt::CreateTrigger(ct)) => *ct,
            other => panic!("{sql}: {other:?}"),
        }
    }

    #[test]
    fn create_trigger_clauses_and_body_text() {
        let ct = trigger(
            "CREATE DEFINER=`u`@`h` TRIGGER IF NOT EXISTS db.t1 AFTER DELETE ON tbl FOR EACH \
             ROW PRECEDES t0 BEGIN DECLARE a, b INT DEFAULT 2; SET @x = OLD.id; END",
        );
        assert!(ct.if_not_exists);
        assert_eq!(ct.name.schema.as_deref(), Some("db"));
        assert_eq!(ct.definer.as_ref().map(|d| d.user.as_str()), Some("u"));
        assert_eq!(
            (ct.timing, ct.event),
            (TriggerTiming::After, TriggerEvent::Delete)
        );
        assert_eq!(ct.order, Some((true, "t0".to_string())));
        assert_eq!(
            ct.body_text,
            "BEGIN DECLARE a, b INT DEFAULT 2; SET @x = OLD.id; END"
        );
        let RStmt::Block { body, .. } = &ct.body.stmt else {
            panic!("{:?}", ct.body.stmt)
        };
        assert!(matches!(&body[0], RStmt::Declare { names, .. } if names.len() == 2));
        assert!(matches!(&body[1], RStmt::Set(items) if items[0].0 == Target::User("x".into())));
        // mysqldump's form: the clauses inside executable comments.
        let ct = trigger(
            "/*!50003 CREATE*/ /*!50017 DEFINER=`root`@`localhost`*/ /*!50003 TRIGGER `x` \
             BEFORE INSERT ON `t` FOR EACH ROW SET NEW.a = 1 */",
        );
        assert_eq!(ct.body_text, "SET NEW.a = 1");
        assert!(
            matches!(&ct.body.stmt, RStmt::Set(items) if items[0].0 == Target::New("a".into()))
        );
    }

    #[test]
    fn compound_statements_parse() {
        let body = parse_body(
            "lbl: BEGIN DECLARE i INT DEFAULT 0; \
             w: WHILE i < 3 DO SET i = i + 1; IF i = 2 THEN ITERATE w; END IF; END WHILE w; \
             REPEAT SET i = i - 1; UNTIL i = 0 END REPEAT; \
             l: LOOP LEAVE l; END LOOP l; \
             CASE i WHEN 0 THEN SET @z = 1; ELSE SET @z = 2; END CASE; \
             SELECT COUNT(*), MAX(id) INTO i, @m FROM t WHERE id > i; \
             SELECT 1 FROM t LIMIT 1 INTO @one; \
             SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no', MYSQL_ERRNO = 1001; \
             INSERT INTO t VALUES (1); END lbl",
            LexMode::default(),
        )
        .unwrap();
        let RStmt::Block { label, body } = &body.stmt else {
            panic!()
        };
        assert_eq!(label.as_deref(), Some("lbl"));
        assert_eq!(body.len(), 9);
        assert!(matches!(&body[5], RStmt::SelectInto { targets, .. } if targets.len() == 2));
        assert!(
            matches!(&body[6], RStmt::SelectInto { targets, .. } if targets[0] == Target::User("one".into()))
        );
        assert!(
            matches!(&body[7], RStmt::Signal { sqlstate, .. } if sqlstate.as_deref() == Some("45000"))
        );
        assert!(matches!(&body[8], RStmt::Sql(s) if matches!(**s, Stmt::Insert(_))));
    }

    #[test]
    fn malformed_bodies_are_errors_not_panics() {
        for text in [
            "BEGIN",
            "IF 1 THEN END IF",
            "WHILE 1 DO END WHILE",
            "SIGNAL SQLSTATE '00000'",
            "SIGNAL SQLSTATE '4500'",
            "SELECT 1 INTO",
            "SELECT 1 INTO 3",
            "CASE END CASE",
            "x: SET @a = 1",
            "DECLARE c CURSOR FOR",
            "DECLARE CONTINUE HANDLER FOR",
            "SIGNAL",
            "BEGIN END END",
        ] {
            assert!(parse_body(text, LexMode::default()).is_err(), "{text}");
        }
        let deep = format!("{}SET @a = 1;{}", "BEGIN ".repeat(100), " END;".repeat(100));
        assert!(parse_body(&deep, LexMode::default()).is_err());
    }
}
