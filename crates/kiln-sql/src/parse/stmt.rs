//! Statement dispatch: which statement a token stream starts, and the statements
//! that are not SELECT, SET or expressions — accounts, SHOW, and the small ones.

use super::*;

impl<'a> Parser<'a> {
    pub(super) fn statement(&mut self) -> Result<Stmt> {
        let Tok::Word(w) = self.peek().tok else {
            if self.is_op("(") {
                return self.select().map(|s| Stmt::Select(Box::new(s)));
            }
            return Err(self.error());
        };
        let w = w.to_ascii_uppercase();
        match w.as_str() {
            "SELECT" => self.select().map(|s| Stmt::Select(Box::new(s))),
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
                        access = Some(self.read_only_or_write()?);
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
            "ROLLBACK"
                if self.is_kw_at(1, "TO")
                    || (self.is_kw_at(1, "WORK") && self.is_kw_at(2, "TO")) =>
            {
                self.bump();
                self.eat_kw("WORK");
                self.expect_kw("TO")?;
                self.eat_kw("SAVEPOINT");
                Ok(Stmt::RollbackTo(self.ident()?))
            }
            "SAVEPOINT" => {
                self.bump();
                Ok(Stmt::Savepoint(self.ident()?))
            }
            "RELEASE" => {
                self.bump();
                self.expect_kw("SAVEPOINT")?;
                Ok(Stmt::ReleaseSavepoint(self.ident()?))
            }
            "INSERT" | "REPLACE" => self.insert(),
            "LOAD" if self.is_kw_at(1, "DATA") => self.load_data(),
            "UPDATE" => self.update(),
            "DELETE" => self.delete(),
            "TRUNCATE" => {
                self.bump();
                self.eat_kw("TABLE");
                Ok(Stmt::TruncateTable(self.table_name()?))
            }
            "RENAME" if !self.is_kw_at(1, "USER") => self.rename_table(),
            "RENAME" => self.rename_user(),
            "GRANT" => self.grant(),
            "REVOKE" => self.revoke(),
            "ALTER" if self.is_kw_at(1, "TABLE") => self.alter_table(),
            "ALTER" if self.is_kw_at(1, "PROCEDURE") || self.is_kw_at(1, "FUNCTION") => {
                self.alter_routine()
            }
            "CALL" => self.call(),
            "ALTER" if self.starts_view(1) => {
                self.bump();
                self.view_definition(false, true)
            }
            "CREATE" if !self.is_kw_at(1, "USER") => self.create(),
            "PREPARE" => self.prepare_stmt(),
            "EXECUTE" => self.execute_stmt(),
            "DEALLOCATE" | "DROP" if self.is_kw_at(1, "PREPARE") => {
                self.bump();
                self.bump();
                Ok(Stmt::DeallocatePrepare(self.ident()?))
            }
            "DROP" if !self.is_kw_at(1, "USER") => self.drop(),
            "DESCRIBE" | "DESC" | "EXPLAIN" if self.explains_statement() => self.explain(),
            "DESCRIBE" | "DESC" | "EXPLAIN" => {
                self.bump();
                let table = self.table_name()?;
                let filter = if matches!(self.peek().tok, Tok::Str(_)) {
                    Some(ShowFilter::Like(self.string()?))
                } else if matches!(self.peek().tok, Tok::Word(_) | Tok::QuotedIdent(_)) {
                    Some(ShowFilter::Like(self.ident()?))
                } else {
                    None
                };
                Ok(Stmt::Show {
                    kind: ShowKind::Columns { table, full: false },
                    scope: VarScope::Session,
                    filter,
                    limit: None,
                })
            }
            "LOCK" => self.lock_tables_stmt(),
            "UNLOCK" => self.unlock_tables_stmt(),
            "ANALYZE" | "OPTIMIZE" | "CHECK" | "REPAIR" => self.table_maintenance(),
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
                let users = self.user_auth_list()?;
                Ok(Stmt::CreateUser {
                    if_not_exists,
                    users,
                    limits: self.account_options()?,
                })
            }
            "ALTER" if self.is_kw_at(1, "USER") => {
                self.bump();
                self.bump();
                let if_exists = self.if_exists()?;
                let users = self.user_auth_list()?;
                Ok(Stmt::AlterUser {
                    if_exists,
                    users,
                    limits: self.account_options()?,
                })
            }
            "DROP" if self.is_kw_at(1, "USER") => {
                self.bump();
                self.bump();
                let if_exists = self.if_exists()?;
                Ok(Stmt::DropUser {
                    if_exists,
                    users: self.user_list()?,
                })
            }
            "FLUSH" => self.flush_stmt(),
            _ => Err(self.error()),
        }
    }

    /// Whether the EXPLAIN / DESCRIBE at the cursor explains a statement (else it
    /// describes a table: `EXPLAIN t` is `SHOW COLUMNS FROM t`).
    fn explains_statement(&self) -> bool {
        matches!(self.peek_at(1), Tok::Op("("))
            || [
                "SELECT", "FORMAT", "ANALYZE", "UPDATE", "DELETE", "INSERT", "REPLACE", "FOR",
            ]
            .iter()
            .any(|kw| self.is_kw_at(1, kw))
    }

    /// `{EXPLAIN | DESCRIBE | DESC} [ANALYZE] [FORMAT = name] statement`. FOR
    /// CONNECTION is 1235; an unknown format name is 1791.
    fn explain(&mut self) -> Result<Stmt> {
        self.bump();
        let analyze = self.eat_kw("ANALYZE");
        let mut format = ExplainFormat::Traditional;
        if self.eat_kw("FORMAT") {
            self.expect_op("=")?;
            let name = self.ident_or_string()?;
            format = match name.to_ascii_uppercase().as_str() {
                "TRADITIONAL" => ExplainFormat::Traditional,
                "JSON" => ExplainFormat::Json,
                "TREE" => ExplainFormat::Tree,
                _ => {
                    return Err(KilnError::new(
                        ErrorKind::ER_UNKNOWN_EXPLAIN_FORMAT,
                        &[&name],
                    ));
                }
            };
        }
        if self.is_kw("FOR") && self.is_kw_at(1, "CONNECTION") {
            return Err(KilnError::new(
                ErrorKind::ER_NOT_SUPPORTED_YET,
                &[&"EXPLAIN FOR CONNECTION"],
            ));
        }
        let stmt = if self.is_op("(") || self.is_kw("SELECT") {
            Stmt::Select(Box::new(self.select()?))
        } else if self.is_kw("INSERT") || self.is_kw("REPLACE") {
            self.insert()?
        } else if self.is_kw("UPDATE") {
            self.update()?
        } else if self.is_kw("DELETE") {
            self.delete()?
        } else {
            return Err(self.error());
        };
        Ok(Stmt::Explain {
            format,
            analyze,
            stmt: Box::new(stmt),
        })
    }

    pub(super) fn if_not_exists(&mut self) -> Result<bool> {
        if self.eat_kw("IF") {
            self.expect_kw("NOT")?;
            self.expect_kw("EXISTS")?;
            return Ok(true);
        }
        Ok(false)
    }

    pub(super) fn if_exists(&mut self) -> Result<bool> {
        if self.eat_kw("IF") {
            self.expect_kw("EXISTS")?;
            return Ok(true);
        }
        Ok(false)
    }

    pub(super) fn user_spec(&mut self) -> Result<UserSpec> {
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

    pub(super) fn user_auth_list(&mut self) -> Result<Vec<(UserSpec, AuthSpec)>> {
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
            // Resource limits follow the list (account_options); PASSWORD EXPIRE and
            // ACCOUNT LOCK are not supported yet.
            out.push((u, auth));
            if !self.eat_op(",") {
                return Ok(out);
            }
        }
    }

    pub(super) fn show(&mut self) -> Result<Stmt> {
        self.expect_kw("SHOW")?;
        let mut scope = VarScope::Session;
        if self.eat_kw("GLOBAL") {
            scope = VarScope::Global;
        } else if self.eat_kw("SESSION") || self.eat_kw("LOCAL") {
            scope = VarScope::Session;
        }
        let full = self.eat_kw("FULL");
        let from_db = |p: &mut Self| -> Result<Option<String>> {
            if p.eat_kw("FROM") || p.eat_kw("IN") {
                Ok(Some(p.ident()?))
            } else {
                Ok(None)
            }
        };
        let kind = if self.eat_kw("TABLES") {
            ShowKind::Tables {
                full,
                db: from_db(self)?,
            }
        } else if self.eat_kw("COLUMNS") || self.eat_kw("FIELDS") {
            if !self.eat_kw("FROM") {
                self.expect_kw("IN")?;
            }
            let mut table = self.table_name()?;
            if let Some(db) = from_db(self)? {
                table.schema = Some(db);
            }
            ShowKind::Columns { table, full }
        } else if self.eat_kw("INDEX") || self.eat_kw("INDEXES") || self.eat_kw("KEYS") {
            if !self.eat_kw("FROM") {
                self.expect_kw("IN")?;
            }
            let mut table = self.table_name()?;
            if let Some(db) = from_db(self)? {
                table.schema = Some(db);
            }
            ShowKind::Index(table)
        } else if self.is_kw("CREATE") && self.is_kw_at(1, "VIEW") {
            self.bump();
            self.bump();
            ShowKind::CreateView(self.table_name()?)
        } else if self.is_kw("CREATE") && self.is_kw_at(1, "TRIGGER") {
            self.bump();
            self.bump();
            ShowKind::CreateTrigger(self.table_name()?)
        } else if self.is_kw("CREATE")
            && (self.is_kw_at(1, "PROCEDURE") || self.is_kw_at(1, "FUNCTION"))
        {
            self.bump();
            let kind = if self.eat_kw("PROCEDURE") {
                crate::routine::RoutineKind::Procedure
            } else {
                self.bump();
                crate::routine::RoutineKind::Function
            };
            ShowKind::CreateRoutine(kind, self.table_name()?)
        } else if (self.is_kw("PROCEDURE") || self.is_kw("FUNCTION")) && self.is_kw_at(1, "STATUS")
        {
            let kind = if self.eat_kw("PROCEDURE") {
                crate::routine::RoutineKind::Procedure
            } else {
                self.bump();
                crate::routine::RoutineKind::Function
            };
            self.bump();
            ShowKind::RoutineStatus(kind)
        } else if self.eat_kw("TRIGGERS") {
            ShowKind::Triggers { db: from_db(self)? }
        } else if self.is_kw("CREATE") && self.is_kw_at(1, "TABLE") {
            self.bump();
            self.bump();
            ShowKind::CreateTable(self.table_name()?)
        } else if self.is_kw("CREATE")
            && (self.is_kw_at(1, "DATABASE") || self.is_kw_at(1, "SCHEMA"))
        {
            self.bump();
            self.bump();
            let if_not_exists = self.if_not_exists()?;
            ShowKind::CreateDatabase {
                name: self.ident()?,
                if_not_exists,
            }
        } else if self.is_kw("TABLE") && self.is_kw_at(1, "STATUS") {
            self.bump();
            self.bump();
            ShowKind::TableStatus(from_db(self)?)
        } else if self.is_kw("ENGINE") {
            self.bump();
            self.word(true)?;
            self.expect_kw("STATUS")?;
            ShowKind::EngineStatus
        } else if self.eat_kw("VARIABLES") {
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

    /// `{ANALYZE | OPTIMIZE | REPAIR} [NO_WRITE_TO_BINLOG | LOCAL] TABLE[S] t, ...
    /// [options]` and `CHECK TABLE[S] t, ... [options]`.
    fn table_maintenance(&mut self) -> Result<Stmt> {
        let op = match self.word(true)?.to_ascii_uppercase().as_str() {
            "ANALYZE" => MaintenanceOp::Analyze,
            "OPTIMIZE" => MaintenanceOp::Optimize,
            "CHECK" => MaintenanceOp::Check,
            _ => MaintenanceOp::Repair,
        };
        if op != MaintenanceOp::Check && !self.eat_kw("NO_WRITE_TO_BINLOG") {
            self.eat_kw("LOCAL");
        }
        if !self.eat_kw("TABLE") {
            self.expect_kw("TABLES")?;
        }
        let mut tables = vec![self.table_name()?];
        while self.eat_op(",") {
            tables.push(self.table_name()?);
        }
        let options: &[&str] = match op {
            MaintenanceOp::Check => &["QUICK", "FAST", "MEDIUM", "EXTENDED", "CHANGED"],
            MaintenanceOp::Repair => &["QUICK", "EXTENDED", "USE_FRM"],
            _ => &[],
        };
        loop {
            if op == MaintenanceOp::Check && self.eat_kw("FOR") {
                self.expect_kw("UPGRADE")?;
            } else if !options.iter().any(|o| self.eat_kw(o)) {
                break;
            }
        }
        if op == MaintenanceOp::Analyze && (self.is_kw("UPDATE") || self.is_kw("DROP")) {
            return Err(KilnError::new(
                ErrorKind::ER_NOT_SUPPORTED_YET,
                &[&"histograms (ANALYZE TABLE ... UPDATE / DROP HISTOGRAM)"],
            ));
        }
        Ok(Stmt::TableMaintenance { op, tables })
    }
}
