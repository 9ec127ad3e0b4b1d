//! GRANT, REVOKE, RENAME USER and the resource options of CREATE/ALTER USER.
//!
//! ```text
//! GRANT priv [, priv] ... ON [TABLE] level TO user [, user] ... [WITH GRANT OPTION]
//! REVOKE priv [, priv] ... ON [TABLE] level FROM user [, user] ...
//! REVOKE ALL [PRIVILEGES], GRANT OPTION FROM user [, user] ...
//! level: *.* | * | db.* | db.tbl | tbl
//! ```
//! Privilege names are MySQL 8.0's static privileges (`crate::privilege::NAMES`), plus
//! ALL [PRIVILEGES] and USAGE. Column lists (`SELECT (a)`) and dynamic privileges are
//! not supported (1235 / 1064). Whether a privilege fits the level (1221 / 1144) is
//! checked when the statement runs, where the level is resolved.

use super::*;
use crate::privilege::{self, GRANT_OPTION, PrivSet};

/// Privilege names of more than one word, longest first per first word.
const MULTI_WORD: &[&[&str]] = &[
    &["CREATE", "TEMPORARY", "TABLES"],
    &["CREATE", "VIEW"],
    &["CREATE", "ROUTINE"],
    &["CREATE", "USER"],
    &["CREATE", "TABLESPACE"],
    &["CREATE", "ROLE"],
    &["ALTER", "ROUTINE"],
    &["DROP", "ROLE"],
    &["LOCK", "TABLES"],
    &["SHOW", "DATABASES"],
    &["SHOW", "VIEW"],
    &["REPLICATION", "SLAVE"],
    &["REPLICATION", "REPLICA"],
    &["REPLICATION", "CLIENT"],
    &["GRANT", "OPTION"],
    &["ALL", "PRIVILEGES"],
];

/// One entry of a privilege list.
enum PrivWord {
    All,
    Usage,
    Priv(PrivSet),
}

impl<'a> Parser<'a> {
    /// `GRANT ...` (the GRANT keyword is next).
    pub(super) fn grant(&mut self) -> Result<Stmt> {
        self.expect_kw("GRANT")?;
        let (privs, all) = self.priv_list()?;
        let level = self.priv_level()?;
        self.expect_kw("TO")?;
        let users = self.user_list()?;
        let mut privs = privs;
        if self.eat_kw("WITH") {
            self.expect_kw("GRANT")?;
            self.expect_kw("OPTION")?;
            privs |= GRANT_OPTION;
        }
        Ok(Stmt::Grant(GrantStmt {
            privs,
            all,
            level,
            users,
        }))
    }

    /// `REVOKE ...` (the REVOKE keyword is next).
    pub(super) fn revoke(&mut self) -> Result<Stmt> {
        self.expect_kw("REVOKE")?;
        // REVOKE ALL [PRIVILEGES], GRANT OPTION FROM ...
        let save = self.pos;
        if self.eat_kw("ALL") {
            self.eat_kw("PRIVILEGES");
            if self.eat_op(",") && self.eat_kw("GRANT") && self.eat_kw("OPTION") {
                self.expect_kw("FROM")?;
                return Ok(Stmt::RevokeAll(self.user_list()?));
            }
            self.pos = save;
        }
        let (privs, all) = self.priv_list()?;
        let level = self.priv_level()?;
        self.expect_kw("FROM")?;
        Ok(Stmt::Revoke(GrantStmt {
            privs,
            all,
            level,
            users: self.user_list()?,
        }))
    }

    /// `RENAME USER a TO b [, c TO d] ...` (RENAME is next).
    pub(super) fn rename_user(&mut self) -> Result<Stmt> {
        self.expect_kw("RENAME")?;
        self.expect_kw("USER")?;
        let mut pairs = Vec::new();
        loop {
            let from = self.user_spec()?;
            self.expect_kw("TO")?;
            pairs.push((from, self.user_spec()?));
            if !self.eat_op(",") {
                return Ok(Stmt::RenameUser(pairs));
            }
        }
    }

    pub(super) fn user_list(&mut self) -> Result<Vec<UserSpec>> {
        let mut users = vec![self.user_spec()?];
        while self.eat_op(",") {
            users.push(self.user_spec()?);
        }
        Ok(users)
    }

    /// The options after the users of CREATE/ALTER USER that kiln keeps:
    /// `[REQUIRE NONE] [WITH resource_option ...]`.
    pub(super) fn account_options(&mut self) -> Result<ResourceLimits> {
        let mut limits = ResourceLimits::default();
        if self.eat_kw("REQUIRE") {
            self.expect_kw("NONE")?;
        }
        if self.eat_kw("WITH") {
            let mut any = false;
            loop {
                let slot = if self.eat_kw("MAX_QUERIES_PER_HOUR") {
                    &mut limits.max_queries_per_hour
                } else if self.eat_kw("MAX_UPDATES_PER_HOUR") {
                    &mut limits.max_updates_per_hour
                } else if self.eat_kw("MAX_CONNECTIONS_PER_HOUR") {
                    &mut limits.max_connections_per_hour
                } else if self.eat_kw("MAX_USER_CONNECTIONS") {
                    &mut limits.max_user_connections
                } else if any {
                    break;
                } else {
                    return Err(self.error());
                };
                any = true;
                let n = self.u64_literal()?;
                // MySQL keeps these as unsigned 32-bit counts.
                *slot = Some(n.min(u32::MAX as u64));
            }
        }
        Ok(limits)
    }

    /// `priv [, priv] ... ON`: the bits named and whether ALL was one of them.
    fn priv_list(&mut self) -> Result<(PrivSet, bool)> {
        let mut set = 0;
        let mut all = false;
        loop {
            match self.priv_word()? {
                PrivWord::All => all = true,
                PrivWord::Usage => {}
                PrivWord::Priv(p) => set |= p,
            }
            if self.is_op("(") {
                return Err(KilnError::new(
                    ErrorKind::ER_NOT_SUPPORTED_YET,
                    &[&"column privileges"],
                ));
            }
            if !self.eat_op(",") {
                break;
            }
        }
        self.expect_kw("ON")?;
        Ok((set, all))
    }

    fn priv_word(&mut self) -> Result<PrivWord> {
        for words in MULTI_WORD {
            if words.iter().enumerate().all(|(i, w)| self.is_kw_at(i, w)) {
                let text = words.join(" ");
                for _ in 0..words.len() {
                    self.bump();
                }
                if text == "ALL PRIVILEGES" {
                    return Ok(PrivWord::All);
                }
                let p = privilege::from_name(&text).expect("multi-word names are privileges");
                return Ok(PrivWord::Priv(p));
            }
        }
        let Tok::Word(w) = self.peek().tok else {
            return Err(self.error());
        };
        let up = w.to_ascii_uppercase();
        let word = match up.as_str() {
            "ALL" => PrivWord::All,
            "USAGE" => PrivWord::Usage,
            // GRANT OPTION is only a privilege in REVOKE's list (matched above).
            "GRANT" => return Err(self.error()),
            _ => match privilege::from_name(&up) {
                Some(p) => PrivWord::Priv(p),
                None => return Err(self.error()),
            },
        };
        self.bump();
        Ok(word)
    }

    /// `[TABLE] *.* | * | db.* | db.tbl | tbl`
    fn priv_level(&mut self) -> Result<PrivLevel> {
        self.eat_kw("TABLE");
        if self.eat_op("*") {
            if self.eat_op(".") {
                self.expect_op("*")?;
                return Ok(PrivLevel::Global);
            }
            return Ok(PrivLevel::Db(None));
        }
        let first = self.ident()?;
        if self.eat_op(".") {
            if self.eat_op("*") {
                return Ok(PrivLevel::Db(Some(first)));
            }
            return Ok(PrivLevel::Table(TableName {
                schema: Some(first),
                name: self.word(true)?,
            }));
        }
        Ok(PrivLevel::Table(TableName {
            schema: None,
            name: first,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privilege::*;

    fn one(sql: &str) -> Stmt {
        parse_one(sql, LexMode::default()).unwrap().stmt
    }

    fn u(user: &str, host: &str) -> UserSpec {
        UserSpec {
            user: user.into(),
            host: host.into(),
        }
    }

    #[test]
    fn grant_forms() {
        assert_eq!(
            one("GRANT SELECT, INSERT ON shop.* TO 'a'@'localhost', b WITH GRANT OPTION"),
            Stmt::Grant(GrantStmt {
                privs: SELECT | INSERT | GRANT_OPTION,
                all: false,
                level: PrivLevel::Db(Some("shop".into())),
                users: vec![u("a", "localhost"), u("b", "%")],
            })
        );
        let Stmt::Grant(g) = one("GRANT ALL PRIVILEGES ON *.* TO root") else {
            panic!()
        };
        assert!(g.all && g.level == PrivLevel::Global);
        let Stmt::Grant(g) =
            one("grant create temporary tables, lock tables, show view on `d`.`t` to x")
        else {
            panic!()
        };
        assert_eq!(g.privs, CREATE_TEMPORARY_TABLES | LOCK_TABLES | SHOW_VIEW);
        assert_eq!(
            g.level,
            PrivLevel::Table(TableName {
                schema: Some("d".into()),
                name: "t".into()
            })
        );
        let Stmt::Grant(g) = one("GRANT USAGE ON * TO x") else {
            panic!()
        };
        assert_eq!((g.privs, g.level), (0, PrivLevel::Db(None)));
        assert!(parse_one("GRANT BOGUS ON *.* TO x", LexMode::default()).is_err());
        assert!(parse_one("GRANT SELECT (a) ON t TO x", LexMode::default()).is_err());
    }

    #[test]
    fn revoke_forms() {
        let Stmt::Revoke(r) = one("REVOKE GRANT OPTION, UPDATE ON t FROM x") else {
            panic!()
        };
        assert_eq!(r.privs, GRANT_OPTION | UPDATE);
        assert_eq!(
            one("REVOKE ALL PRIVILEGES, GRANT OPTION FROM a, b@h"),
            Stmt::RevokeAll(vec![u("a", "%"), u("b", "h")])
        );
        let Stmt::Revoke(r) = one("REVOKE ALL ON db.* FROM a") else {
            panic!()
        };
        assert!(r.all);
    }

    #[test]
    fn rename_and_limits() {
        assert_eq!(
            one("RENAME USER a TO b, 'c'@'h' TO 'd'@'h'"),
            Stmt::RenameUser(vec![(u("a", "%"), u("b", "%")), (u("c", "h"), u("d", "h"))])
        );
        let Stmt::CreateUser { limits, .. } = one(
            "CREATE USER x IDENTIFIED BY 'p' WITH MAX_USER_CONNECTIONS 3 MAX_QUERIES_PER_HOUR 10",
        ) else {
            panic!()
        };
        assert_eq!(limits.max_user_connections, Some(3));
        assert_eq!(limits.max_queries_per_hour, Some(10));
        assert_eq!(limits.max_updates_per_hour, None);
        let Stmt::AlterUser { limits, .. } = one("ALTER USER x WITH MAX_CONNECTIONS_PER_HOUR 5")
        else {
            panic!()
        };
        assert_eq!(limits.max_connections_per_hour, Some(5));
    }
}
