//! SET: variables (user, system with scopes, NAMES/CHARACTER SET, PASSWORD) and SET
//! TRANSACTION.

use super::*;
use crate::value::Value;

impl<'a> Parser<'a> {
    pub(super) fn set(&mut self) -> Result<Stmt> {
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
            let mut explicit = true;
            if self.eat_kw("GLOBAL") || self.eat_kw("PERSIST") {
                scope = VarScope::Global;
            } else if self.eat_kw("SESSION") || self.eat_kw("LOCAL") {
                scope = VarScope::Session;
            } else {
                explicit = false;
            }
            if first && self.is_kw("TRANSACTION") {
                self.bump();
                // No scope keyword: the next transaction only.
                return self.set_transaction(if explicit { scope } else { VarScope::Default });
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

    pub(super) fn set_transaction(&mut self, scope: VarScope) -> Result<Stmt> {
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
                access = Some(self.read_only_or_write()?);
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
    pub(super) fn sysvar_name(&mut self) -> Result<(VarScope, String)> {
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

    /// After READ in a transaction characteristic: ONLY or WRITE.
    pub(super) fn read_only_or_write(&mut self) -> Result<TxAccess> {
        if self.eat_kw("ONLY") {
            return Ok(TxAccess::ReadOnly);
        }
        self.expect_kw("WRITE")?;
        Ok(TxAccess::ReadWrite)
    }
}
