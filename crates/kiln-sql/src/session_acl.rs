//! The session's side of accounts and privileges: its cached privileges, the account
//! statements (CREATE/ALTER/DROP/RENAME USER, SET PASSWORD, GRANT, REVOKE) and SHOW
//! GRANTS. The accounts themselves live behind `ServerHooks` (kiln-server's
//! accounts.rs); this file decides who may do what and with which MySQL error.
//!
//! Caching: `privileges()` keeps the account's `Privileges` with the server's
//! privilege generation it was read at; every statement compares the generation (one
//! atomic load in the server) and the account, and re-reads only when either moved.
//! So a GRANT or REVOKE reaches every connected session at its next statement (MySQL
//! applies table and database changes so; it keeps global privileges of a connected
//! session until it reconnects, which kiln does not copy: a revocation takes effect at
//! once).

use std::sync::Arc;

use kiln_common::{ErrorKind, KilnError, Result};

use crate::ast::*;
use crate::privcheck::{db_denied, global, table_denied};
use crate::privilege::*;
use crate::result::Outcome;
use crate::session::Session;

/// ER_CANT_CREATE_USER_WITH_GRANT.
fn cant_create_user_with_grant() -> KilnError {
    KilnError::new(ErrorKind::ER_CANT_CREATE_USER_WITH_GRANT, &[])
}

/// An identifier as SHOW GRANTS quotes it.
pub(crate) fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

impl Session {
    /// The session account's privileges (cached; see the module comment).
    pub fn privileges(&mut self) -> Arc<Privileges> {
        self.refresh_privileges();
        self.privs.clone().expect("refreshed")
    }

    /// Re-reads the cached privileges if the server's generation or the session's
    /// account moved since they were read. Leaves `self.privs` set.
    #[inline]
    pub(crate) fn refresh_privileges(&mut self) {
        let generation = self.server.privilege_generation();
        if let Some(p) = &self.privs
            && self.privs_generation == generation
            && p.user == self.account.0
            && p.host == self.account.1
        {
            return;
        }
        let p = self
            .server
            .account_privileges(&self.account.0, &self.account.1)
            .unwrap_or_else(|| {
                // A dropped account keeps its session with no privileges.
                Arc::new(Privileges {
                    user: self.account.0.clone(),
                    host: self.account.1.clone(),
                    ..Privileges::default()
                })
            });
        self.privs = Some(p);
        self.privs_generation = generation;
    }

    /// 1227 naming `name` unless the session holds `need` globally.
    pub(crate) fn require_global(&mut self, need: PrivSet, name: &str) -> Result<()> {
        let p = self.privileges();
        global(&p, need, name)
    }

    /// USE / COM_INIT_DB / the handshake's database: 1044 unless the account has some
    /// privilege in `db`.
    pub(crate) fn check_db_access(&mut self, db: &str) -> Result<()> {
        if self.privileges().sees_db(db) {
            Ok(())
        } else {
            Err(db_denied(self, db))
        }
    }

    /// `user` with CURRENT_USER resolved to the session's account.
    fn resolve_user(&self, u: &UserSpec) -> UserSpec {
        if u.host == "%current%" {
            UserSpec {
                user: self.account.0.clone(),
                host: self.account.1.clone(),
            }
        } else {
            u.clone()
        }
    }

    fn is_own_account(&self, u: &UserSpec) -> bool {
        u.host == "%current%" || (u.user == self.account.0 && u.host == self.account.1)
    }

    /// The account statements; None for any other statement.
    pub(crate) fn account_statement(&mut self, stmt: &Stmt) -> Option<Result<Outcome>> {
        Some(match stmt {
            Stmt::CreateUser {
                if_not_exists,
                users,
                limits,
            } => self.each_user(users.iter().map(|(u, a)| (u, Some(a))), |s, u, a| {
                s.server
                    .create_user(u, a.expect("auth"), limits, *if_not_exists)
            }),
            Stmt::AlterUser {
                if_exists,
                users,
                limits,
            } => {
                for (u, _) in users {
                    if (!self.is_own_account(u) || *limits != ResourceLimits::default())
                        && let Err(e) = self.require_global(CREATE_USER, "CREATE USER")
                    {
                        return Some(Err(e));
                    }
                }
                self.each_user(users.iter().map(|(u, a)| (u, Some(a))), |s, u, a| {
                    let u = s.resolve_user(u);
                    s.server
                        .alter_user(&u, a.expect("auth"), limits, *if_exists)
                })
            }
            Stmt::DropUser { if_exists, users } => self
                .each_user(users.iter().map(|u| (u, None)), |s, u, _| {
                    s.server.drop_user(u, *if_exists)
                }),
            Stmt::SetPassword { user, password } => (|| {
                if let Some(u) = user
                    && !self.is_own_account(u)
                {
                    self.require_global(CREATE_USER, "CREATE USER")?;
                }
                let target = self.resolve_user(user.as_ref().unwrap_or(&UserSpec {
                    user: String::new(),
                    host: "%current%".into(),
                }));
                let auth = AuthSpec {
                    plugin: None,
                    password: Some(password.clone()),
                };
                self.server
                    .alter_user(&target, &auth, &ResourceLimits::default(), false)?;
                Ok(Outcome::ok())
            })(),
            Stmt::RenameUser(pairs) => {
                let pairs: Vec<(UserSpec, UserSpec)> = pairs
                    .iter()
                    .map(|(a, b)| (self.resolve_user(a), self.resolve_user(b)))
                    .collect();
                self.server.rename_user(&pairs).map(|()| Outcome::ok())
            }
            Stmt::Grant(g) => self.grant(g, false),
            Stmt::Revoke(g) => self.grant(g, true),
            Stmt::RevokeAll(users) => (|| {
                self.require_global(CREATE_USER, "CREATE USER")?;
                let users: Vec<UserSpec> = users.iter().map(|u| self.resolve_user(u)).collect();
                self.server.revoke_all(&users)?;
                Ok(Outcome::ok())
            })(),
            _ => return None,
        })
    }

    /// Runs `f` per user, collecting the notes it returns (IF [NOT] EXISTS).
    fn each_user<'u>(
        &mut self,
        users: impl Iterator<Item = (&'u UserSpec, Option<&'u AuthSpec>)>,
        mut f: impl FnMut(
            &mut Session,
            &UserSpec,
            Option<&AuthSpec>,
        ) -> Result<Option<crate::session::Diagnostic>>,
    ) -> Result<Outcome> {
        for (u, a) in users {
            if let Some(d) = f(self, u, a)? {
                self.push_diagnostic(d.level, d.code, d.message);
            }
        }
        Ok(Outcome::ok())
    }

    /// GRANT (`revoke` false) or REVOKE of `g`.
    fn grant(&mut self, g: &GrantStmt, revoke: bool) -> Result<Outcome> {
        let object = match &g.level {
            PrivLevel::Global => GrantObject::Global,
            PrivLevel::Db(Some(d)) => GrantObject::Db(d.clone()),
            PrivLevel::Db(None) => GrantObject::Db(
                self.database
                    .clone()
                    .ok_or_else(|| KilnError::from(ErrorKind::ER_NO_DB_ERROR))?,
            ),
            PrivLevel::Table(t) => GrantObject::Table(
                t.schema
                    .clone()
                    .or_else(|| self.database.clone())
                    .ok_or_else(|| KilnError::from(ErrorKind::ER_NO_DB_ERROR))?,
                t.name.clone(),
            ),
        };
        let level_all = object.all();
        let named = g.privs & !GRANT_OPTION;
        if named & !level_all != 0 {
            return Err(match object {
                GrantObject::Table(..) => ErrorKind::ER_ILLEGAL_GRANT_FOR_TABLE.into(),
                _ => KilnError::new(
                    ErrorKind::ER_WRONG_USAGE,
                    &[&"DB GRANT", &"GLOBAL PRIVILEGES"],
                ),
            });
        }
        let privs = g.privs | if g.all { level_all } else { 0 };
        // The grantor needs GRANT OPTION and every privilege it grants, at the level.
        let p = self.privileges();
        let have = match &object {
            GrantObject::Global => p.global,
            GrantObject::Db(d) => p.on_db(d),
            GrantObject::Table(d, t) => p.on_table(d, t),
        };
        let need = privs | GRANT_OPTION;
        if have & need != need {
            return Err(match &object {
                GrantObject::Global => KilnError::new(
                    ErrorKind::ER_ACCESS_DENIED_ERROR,
                    &[
                        &self.account.0,
                        &self.account.1,
                        &if p.has_password { "YES" } else { "NO" },
                    ],
                ),
                GrantObject::Db(d) => db_denied(self, d),
                GrantObject::Table(_, t) => table_denied(self, need & !have, t),
            });
        }
        if !revoke
            && let GrantObject::Table(d, t) = &object
            && self.dict.is_some()
            && self.catalog()?.table(d, t).is_none()
            && self.catalog()?.view(d, t).is_none()
        {
            return Err(KilnError::new(ErrorKind::ER_NO_SUCH_TABLE, &[d, t]));
        }
        let users: Vec<UserSpec> = g.users.iter().map(|u| self.resolve_user(u)).collect();
        if revoke {
            self.server.revoke(&users, &object, privs)?;
        } else {
            if users
                .iter()
                .any(|u| self.server.account_privileges(&u.user, &u.host).is_none())
            {
                return Err(cant_create_user_with_grant());
            }
            self.server.grant(&users, &object, privs)?;
        }
        Ok(Outcome::ok())
    }

    /// SHOW GRANTS [FOR user]: the column name and MySQL 8.0's lines.
    pub(crate) fn show_grants(&mut self, user: Option<&UserSpec>) -> Result<(String, Vec<String>)> {
        let target = match user {
            Some(u) => self.resolve_user(u),
            None => UserSpec {
                user: self.account.0.clone(),
                host: self.account.1.clone(),
            },
        };
        if !self.is_own_account(&target) && self.privileges().on_db("mysql") & SELECT == 0 {
            return Err(db_denied(self, "mysql"));
        }
        let Some(p) = self.server.account_privileges(&target.user, &target.host) else {
            return Err(KilnError::new(
                ErrorKind::ER_NONEXISTING_GRANT,
                &[&target.user, &target.host],
            ));
        };
        Ok((
            format!("Grants for {}@{}", target.user, target.host),
            grant_lines(&p, &target.user, &target.host),
        ))
    }
}

/// The lines of SHOW GRANTS for privileges `p` of `user@host`: the global line, then
/// database lines by name, then table lines by (database, table).
pub fn grant_lines(p: &Privileges, user: &str, host: &str) -> Vec<String> {
    let to = format!("{}@{}", quote(user), quote(host));
    let wgo = |set: PrivSet| {
        if set & GRANT_OPTION != 0 {
            " WITH GRANT OPTION"
        } else {
            ""
        }
    };
    let mut out = vec![format!(
        "GRANT {} ON *.* TO {to}{}",
        list_text(p.global, GLOBAL_ALL),
        wgo(p.global)
    )];
    let mut dbs: Vec<&(String, PrivSet)> = p.dbs.iter().filter(|(_, s)| *s != 0).collect();
    dbs.sort();
    for (db, set) in dbs {
        out.push(format!(
            "GRANT {} ON {}.* TO {to}{}",
            list_text(*set, DB_ALL),
            quote(db),
            wgo(*set)
        ));
    }
    let mut tables: Vec<&(String, String, PrivSet)> =
        p.tables.iter().filter(|(_, _, s)| *s != 0).collect();
    tables.sort();
    for (db, t, set) in tables {
        out.push(format!(
            "GRANT {} ON {}.{} TO {to}{}",
            list_text(*set, TABLE_ALL),
            quote(db),
            quote(t),
            wgo(*set)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn show_grants_lines() {
        let p = Privileges {
            global: 0,
            dbs: vec![
                ("shop".into(), SELECT | INSERT),
                ("a`b".into(), DB_ALL | GRANT_OPTION),
            ],
            tables: vec![("shop".into(), "t".into(), UPDATE)],
            ..Privileges::default()
        };
        assert_eq!(
            grant_lines(&p, "u", "%"),
            vec![
                "GRANT USAGE ON *.* TO `u`@`%`",
                "GRANT ALL PRIVILEGES ON `a``b`.* TO `u`@`%` WITH GRANT OPTION",
                "GRANT SELECT, INSERT ON `shop`.* TO `u`@`%`",
                "GRANT UPDATE ON `shop`.`t` TO `u`@`%`",
            ]
        );
        let root = grant_lines(&Privileges::all(), "root", "localhost");
        assert_eq!(root.len(), 1);
        assert!(root[0].starts_with("GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, RELOAD"));
        assert!(root[0].ends_with(" ON *.* TO `root`@`localhost` WITH GRANT OPTION"));
    }
}
