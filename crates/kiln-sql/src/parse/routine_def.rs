//! CREATE / ALTER / DROP PROCEDURE and FUNCTION, and CALL (the routines themselves:
//! exec/routine.rs and routine/call.rs; their bodies: parse/routine.rs).

use super::*;
use crate::routine::{
    Body, Characteristics, CreateRoutine, DataAccess, Param, ParamMode, RoutineKind,
};

/// Parameters one routine may declare (MySQL has no fixed limit).
pub const PARAMS_MAX: usize = 1024;

impl<'a> Parser<'a> {
    /// At PROCEDURE / FUNCTION (after CREATE [DEFINER = u]): the rest of the
    /// definition.
    pub(super) fn routine_definition(&mut self, definer: Option<UserSpec>) -> Result<Stmt> {
        let kind = self.routine_kind()?;
        let if_not_exists = self.if_not_exists()?;
        let name = self.table_name()?;
        self.expect_op("(")?;
        let params_start = self.peek().start;
        let mut params_end = params_start;
        let mut params = Vec::new();
        if !self.is_op(")") {
            loop {
                let mode = if kind == RoutineKind::Function {
                    ParamMode::In
                } else if self.eat_kw("INOUT") {
                    ParamMode::InOut
                } else if self.eat_kw("OUT") {
                    ParamMode::Out
                } else {
                    self.eat_kw("IN");
                    ParamMode::In
                };
                let pname = self.ident()?;
                let (ty, charset, collation) = self.data_type()?;
                params.push(Param {
                    mode,
                    name: pname,
                    ty,
                    charset,
                    collation,
                });
                if params.len() > PARAMS_MAX {
                    return Err(KilnError::new(
                        ErrorKind::ER_NOT_SUPPORTED_YET,
                        &[&"more routine parameters"],
                    ));
                }
                params_end = self.toks[self.pos.saturating_sub(1)].end;
                if !self.eat_op(",") {
                    break;
                }
            }
        }
        self.expect_op(")")?;
        let returns = if kind == RoutineKind::Function {
            self.expect_kw("RETURNS")?;
            Some(self.data_type()?)
        } else {
            None
        };
        let chars = self.characteristics()?;
        let (stmt, body_text) = self.stored_body()?;
        Ok(Stmt::CreateRoutine(Box::new(CreateRoutine {
            kind,
            name,
            if_not_exists,
            definer,
            params,
            params_text: self.sql[params_start..params_end.max(params_start)].to_string(),
            returns,
            chars,
            body: Body { stmt },
            body_text,
        })))
    }

    fn routine_kind(&mut self) -> Result<RoutineKind> {
        if self.eat_kw("PROCEDURE") {
            Ok(RoutineKind::Procedure)
        } else {
            self.expect_kw("FUNCTION")?;
            Ok(RoutineKind::Function)
        }
    }

    /// COMMENT 'x' | LANGUAGE SQL | [NOT] DETERMINISTIC | CONTAINS SQL | NO SQL |
    /// READS SQL DATA | MODIFIES SQL DATA | SQL SECURITY {DEFINER | INVOKER}, any
    /// number, any order (the last of a kind wins).
    fn characteristics(&mut self) -> Result<Characteristics> {
        let mut c = Characteristics::default();
        loop {
            if self.eat_kw("COMMENT") {
                c.comment = Some(self.string()?);
            } else if self.is_kw("LANGUAGE") && self.is_kw_at(1, "SQL") {
                self.bump();
                self.bump();
            } else if self.is_kw("NOT") && self.is_kw_at(1, "DETERMINISTIC") {
                self.bump();
                self.bump();
                c.deterministic = Some(false);
            } else if self.eat_kw("DETERMINISTIC") {
                c.deterministic = Some(true);
            } else if self.is_kw("CONTAINS") && self.is_kw_at(1, "SQL") {
                self.bump();
                self.bump();
                c.access = Some(DataAccess::ContainsSql);
            } else if self.is_kw("NO") && self.is_kw_at(1, "SQL") {
                self.bump();
                self.bump();
                c.access = Some(DataAccess::NoSql);
            } else if (self.is_kw("READS") || self.is_kw("MODIFIES"))
                && self.is_kw_at(1, "SQL")
                && self.is_kw_at(2, "DATA")
            {
                c.access = Some(if self.is_kw("READS") {
                    DataAccess::ReadsSqlData
                } else {
                    DataAccess::ModifiesSqlData
                });
                self.bump();
                self.bump();
                self.bump();
            } else if self.is_kw("SQL") && self.is_kw_at(1, "SECURITY") {
                self.bump();
                self.bump();
                if self.eat_kw("INVOKER") {
                    c.invoker = Some(true);
                } else {
                    self.expect_kw("DEFINER")?;
                    c.invoker = Some(false);
                }
            } else {
                return Ok(c);
            }
        }
    }

    /// After DROP: `{PROCEDURE | FUNCTION} [IF EXISTS] [db.]name`.
    pub(super) fn drop_routine(&mut self) -> Result<Stmt> {
        let kind = self.routine_kind()?;
        let if_exists = self.if_exists()?;
        Ok(Stmt::DropRoutine {
            kind,
            name: self.table_name()?,
            if_exists,
        })
    }

    /// `ALTER {PROCEDURE | FUNCTION} [db.]name characteristic ...` (LANGUAGE SQL too).
    pub(super) fn alter_routine(&mut self) -> Result<Stmt> {
        self.expect_kw("ALTER")?;
        let kind = self.routine_kind()?;
        let name = self.table_name()?;
        let chars = self.characteristics()?;
        Ok(Stmt::AlterRoutine { kind, name, chars })
    }

    /// `CALL [db.]name [([expr [, expr] ...])]`.
    pub(super) fn call(&mut self) -> Result<Stmt> {
        self.expect_kw("CALL")?;
        let name = self.table_name()?;
        let mut args = Vec::new();
        if self.eat_op("(") && !self.eat_op(")") {
            args = self.expr_list()?;
            self.expect_op(")")?;
        }
        Ok(Stmt::Call { name, args })
    }
}

/// Parses a stored routine back from its parts (what the dictionary keeps), under
/// the sql_mode it was created with.
pub fn parse_routine(
    kind: RoutineKind,
    params_text: &str,
    returns_text: &str,
    body_text: &str,
    mode: LexMode,
) -> Result<CreateRoutine> {
    let text = match kind {
        RoutineKind::Procedure => format!("CREATE PROCEDURE r({params_text}) {body_text}"),
        RoutineKind::Function => {
            format!("CREATE FUNCTION r({params_text}) RETURNS {returns_text} {body_text}")
        }
    };
    match parse_one(&text, mode)?.stmt {
        Stmt::CreateRoutine(cr) => Ok(*cr),
        _ => Err(KilnError::internal("stored routine text")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routine::{CondValue, HandlerAction, HandlerCond, RStmt, Target};

    fn routine(sql: &str) -> CreateRoutine {
        match parse_one(sql, LexMode::default()).map(|p| p.stmt) {
            Ok(Stmt::CreateRoutine(cr)) => *cr,
            other => panic!("{sql}: {other:?}"),
        }
    }

    #[test]
    fn create_procedure_parts_and_texts() {
        let cr = routine(
            "CREATE DEFINER=`u`@`h` PROCEDURE IF NOT EXISTS db.p(IN a INT, OUT b VARCHAR(10) \
             CHARSET latin1, INOUT c DECIMAL(5,2)) COMMENT 'x''y' SQL SECURITY INVOKER \
             MODIFIES SQL DATA NOT DETERMINISTIC LANGUAGE SQL BEGIN SELECT a; END",
        );
        assert_eq!(cr.kind, RoutineKind::Procedure);
        assert!(cr.if_not_exists);
        assert_eq!(cr.name.schema.as_deref(), Some("db"));
        assert_eq!(cr.definer.as_ref().map(|d| d.host.as_str()), Some("h"));
        let modes: Vec<_> = cr.params.iter().map(|p| p.mode).collect();
        assert_eq!(modes, [ParamMode::In, ParamMode::Out, ParamMode::InOut]);
        assert_eq!(cr.params[1].charset.as_deref(), Some("latin1"));
        assert_eq!(
            cr.params_text,
            "IN a INT, OUT b VARCHAR(10) CHARSET latin1, INOUT c DECIMAL(5,2)"
        );
        assert_eq!(cr.chars.comment.as_deref(), Some("x'y"));
        assert_eq!(cr.chars.invoker, Some(true));
        assert_eq!(cr.chars.access, Some(DataAccess::ModifiesSqlData));
        assert_eq!(cr.chars.deterministic, Some(false));
        assert_eq!(cr.body_text, "BEGIN SELECT a; END");
        let cr = routine("CREATE PROCEDURE p() SELECT 1");
        assert_eq!(cr.params_text, "");
        assert!(matches!(&cr.body.stmt, RStmt::Sql(s) if matches!(**s, Stmt::Select(_))));
    }

    #[test]
    fn create_function_returns_and_body() {
        let cr = routine(
            "CREATE FUNCTION f(x INT, y TEXT) RETURNS VARCHAR(20) CHARSET utf8mb4 \
             DETERMINISTIC NO SQL RETURN CONCAT(x, y)",
        );
        assert_eq!(cr.kind, RoutineKind::Function);
        assert!(cr.params.iter().all(|p| p.mode == ParamMode::In));
        let (ty, cs, _) = cr.returns.clone().unwrap();
        assert_eq!(ty.column_type(), "varchar(20)");
        assert_eq!(cs.as_deref(), Some("utf8mb4"));
        assert_eq!(cr.chars.deterministic, Some(true));
        assert!(matches!(cr.body.stmt, RStmt::Return(_)));
        // A function's parameters have no mode.
        assert!(
            parse_one(
                "CREATE FUNCTION f(IN x INT) RETURNS INT RETURN 1",
                LexMode::default()
            )
            .is_err()
        );
        // RETURNS is required.
        assert!(parse_one("CREATE FUNCTION f() RETURN 1", LexMode::default()).is_err());
        // Round trip through the stored parts.
        let back = parse_routine(
            RoutineKind::Function,
            "x INT, y TEXT",
            "varchar(20) CHARSET utf8mb4",
            "RETURN CONCAT(x, y)",
            LexMode::default(),
        )
        .unwrap();
        assert_eq!(back.params, cr.params);
        assert_eq!(back.body, cr.body);
    }

    #[test]
    fn handlers_cursors_conditions_parse() {
        let cr = routine(
            "CREATE PROCEDURE p() BEGIN \
             DECLARE done INT DEFAULT 0; \
             DECLARE dup CONDITION FOR SQLSTATE '23000'; \
             DECLARE e1 CONDITION FOR 1062; \
             DECLARE c CURSOR FOR SELECT a FROM t; \
             DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1; \
             DECLARE EXIT HANDLER FOR SQLEXCEPTION, SQLWARNING, dup, 1146, SQLSTATE VALUE '42S02' \
               BEGIN RESIGNAL SET MESSAGE_TEXT = 'x'; END; \
             OPEN c; FETCH NEXT FROM c INTO done; FETCH c INTO done, done; CLOSE c; \
             SIGNAL dup SET MYSQL_ERRNO = 5; RESIGNAL; CALL q(done, @v); END",
        );
        let RStmt::Block { body, .. } = &cr.body.stmt else {
            panic!()
        };
        assert!(
            matches!(&body[1], RStmt::DeclareCondition { value: CondValue::SqlState(s), .. } if s == "23000")
        );
        assert!(matches!(
            &body[2],
            RStmt::DeclareCondition {
                value: CondValue::Errno(1062),
                ..
            }
        ));
        assert!(matches!(&body[3], RStmt::DeclareCursor { name, .. } if name == "c"));
        assert!(
            matches!(&body[4], RStmt::DeclareHandler { action: HandlerAction::Continue, conds, .. } if conds == &[HandlerCond::NotFound])
        );
        let RStmt::DeclareHandler {
            action,
            conds,
            body: h,
        } = &body[5]
        else {
            panic!()
        };
        assert_eq!(*action, HandlerAction::Exit);
        assert_eq!(conds.len(), 5);
        assert_eq!(conds[2], HandlerCond::Name("dup".into()));
        assert_eq!(conds[3], HandlerCond::Value(CondValue::Errno(1146)));
        assert!(matches!(&**h, RStmt::Block { .. }));
        assert_eq!(body[6], RStmt::Open("c".into()));
        assert!(
            matches!(&body[7], RStmt::Fetch { targets, .. } if targets == &[Target::Local("done".into())])
        );
        assert!(matches!(&body[8], RStmt::Fetch { targets, .. } if targets.len() == 2));
        // FETCH takes local variables only.
        assert!(parse_one("CREATE PROCEDURE p() FETCH c INTO @u", LexMode::default()).is_err());
        assert_eq!(body[9], RStmt::Close("c".into()));
        assert!(
            matches!(&body[10], RStmt::Signal { resignal: false, condition: Some(c), .. } if c == "dup")
        );
        assert!(matches!(
            &body[11],
            RStmt::Signal {
                resignal: true,
                sqlstate: None,
                condition: None,
                ..
            }
        ));
        assert!(
            matches!(&body[12], RStmt::Sql(s) if matches!(&**s, Stmt::Call { args, .. } if args.len() == 2))
        );
    }

    #[test]
    fn drop_alter_call_show_forms() {
        let one = |sql: &str| parse_one(sql, LexMode::default()).unwrap().stmt;
        assert!(matches!(
            one("DROP PROCEDURE IF EXISTS db.p"),
            Stmt::DropRoutine {
                kind: RoutineKind::Procedure,
                if_exists: true,
                ..
            }
        ));
        assert!(matches!(
            one("DROP FUNCTION f"),
            Stmt::DropRoutine {
                kind: RoutineKind::Function,
                if_exists: false,
                ..
            }
        ));
        let Stmt::AlterRoutine { chars, .. } =
            one("ALTER PROCEDURE p COMMENT 'c' SQL SECURITY DEFINER READS SQL DATA")
        else {
            panic!()
        };
        assert_eq!(chars.invoker, Some(false));
        assert_eq!(chars.access, Some(DataAccess::ReadsSqlData));
        assert!(matches!(one("CALL p"), Stmt::Call { args, .. } if args.is_empty()));
        assert!(
            matches!(one("CALL db.p()"), Stmt::Call { name, .. } if name.schema.as_deref() == Some("db"))
        );
        assert!(matches!(one("CALL p(1, @x, ?)"), Stmt::Call { args, .. } if args.len() == 3));
        assert!(matches!(
            one("SHOW CREATE FUNCTION db.f"),
            Stmt::Show {
                kind: ShowKind::CreateRoutine(RoutineKind::Function, _),
                ..
            }
        ));
        assert!(matches!(
            one("SHOW PROCEDURE STATUS WHERE Db = 'x'"),
            Stmt::Show {
                kind: ShowKind::RoutineStatus(RoutineKind::Procedure),
                filter: Some(_),
                ..
            }
        ));
        // A qualified call of a stored function.
        let Stmt::Select(s) = one("SELECT Db1.F(1, 2), f()") else {
            panic!()
        };
        assert!(
            matches!(&s.items[0].expr, Expr::Func { name, args } if name == "Db1.f" && args.len() == 2)
        );
        // LIMIT may name a local variable in a body only.
        assert!(
            parse_one(
                "CREATE PROCEDURE p(n INT) SELECT 1 FROM t LIMIT n",
                LexMode::default()
            )
            .is_ok()
        );
        assert!(parse_one("SELECT 1 FROM t LIMIT n", LexMode::default()).is_err());
        // `?` is not allowed in a routine body.
        assert!(parse_one("CREATE PROCEDURE p() SELECT ?", LexMode::default()).is_err());
        assert!(parse_one("CREATE PROCEDURE p(a) SELECT 1", LexMode::default()).is_err());
    }
}
