//! Table-lock statements: `LOCK TABLE[S] t [[AS] a] {READ [LOCAL] | [LOW_PRIORITY]
//! WRITE} [, ...]`, `UNLOCK TABLE[S]`, and FLUSH (`FLUSH [NO_WRITE_TO_BINLOG | LOCAL]
//! TABLES [t, ...] WITH READ LOCK` is kept; every other FLUSH is a no-op).
//! Executed by session_lock.rs.

use super::*;

/// Tables one LOCK TABLES / FLUSH TABLES statement may name.
pub const LOCK_LIST_MAX: usize = 10_000;

impl<'a> Parser<'a> {
    pub(super) fn lock_tables_stmt(&mut self) -> Result<Stmt> {
        self.bump();
        if !self.eat_kw("TABLES") {
            self.expect_kw("TABLE")?;
        }
        let mut items = Vec::new();
        loop {
            if items.len() >= LOCK_LIST_MAX {
                return Err(self.error());
            }
            let table = self.table_name()?;
            let alias = if self.eat_kw("AS") {
                Some(self.ident()?)
            } else if ["READ", "WRITE", "LOW_PRIORITY"]
                .iter()
                .any(|k| self.is_kw(k))
            {
                None
            } else {
                Some(self.ident()?)
            };
            let write = if self.eat_kw("READ") {
                self.eat_kw("LOCAL");
                false
            } else {
                self.eat_kw("LOW_PRIORITY");
                self.expect_kw("WRITE")?;
                true
            };
            items.push(LockItem {
                table,
                alias,
                write,
            });
            if !self.eat_op(",") {
                break;
            }
        }
        Ok(Stmt::LockTables(items))
    }

    pub(super) fn unlock_tables_stmt(&mut self) -> Result<Stmt> {
        self.bump();
        if !self.eat_kw("TABLES") {
            self.expect_kw("TABLE")?;
        }
        Ok(Stmt::UnlockTables)
    }

    pub(super) fn flush_stmt(&mut self) -> Result<Stmt> {
        self.bump();
        let _ = self.eat_kw("NO_WRITE_TO_BINLOG") || self.eat_kw("LOCAL");
        if self.is_kw("TABLES") || self.is_kw("TABLE") {
            let start = self.pos;
            self.bump();
            let mut tables = Vec::new();
            if !self.is_kw("WITH") && !self.at_eof() && !self.is_op(";") {
                loop {
                    if tables.len() >= LOCK_LIST_MAX {
                        return Err(self.error());
                    }
                    match self.table_name() {
                        Ok(t) => tables.push(t),
                        Err(_) => break,
                    }
                    if !self.eat_op(",") {
                        break;
                    }
                }
            }
            if self.eat_kw("WITH") {
                self.expect_kw("READ")?;
                self.expect_kw("LOCK")?;
                return Ok(Stmt::FlushTablesWithReadLock(tables));
            }
            self.pos = start;
        }
        while !self.at_eof() && !self.is_op(";") {
            self.bump();
        }
        Ok(Stmt::NoOp("flush"))
    }
}

#[cfg(test)]
mod tests {
    use crate::ast::*;
    use crate::parse::parse_one;

    fn stmt(sql: &str) -> Stmt {
        parse_one(sql, crate::lexer::LexMode::default())
            .unwrap()
            .stmt
    }

    #[test]
    fn lock_lists_keep_names_aliases_and_modes() {
        let Stmt::LockTables(items) =
            stmt("LOCK TABLES d.t READ LOCAL, u AS a LOW_PRIORITY WRITE, v b READ")
        else {
            panic!("not LOCK TABLES");
        };
        let got: Vec<_> = items
            .iter()
            .map(|i| {
                (
                    i.table.schema.clone(),
                    i.table.name.clone(),
                    i.alias.clone(),
                    i.write,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (Some("d".into()), "t".into(), None, false),
                (None, "u".into(), Some("a".into()), true),
                (None, "v".into(), Some("b".into()), false),
            ]
        );
        assert_eq!(stmt("UNLOCK TABLE"), Stmt::UnlockTables);
        assert_eq!(
            stmt("FLUSH TABLES WITH READ LOCK"),
            Stmt::FlushTablesWithReadLock(vec![])
        );
        assert!(matches!(
            stmt("FLUSH LOCAL TABLES t1, d.t2 WITH READ LOCK"),
            Stmt::FlushTablesWithReadLock(t) if t.len() == 2
        ));
        assert_eq!(stmt("FLUSH TABLES"), Stmt::NoOp("flush"));
        assert_eq!(stmt("FLUSH PRIVILEGES"), Stmt::NoOp("flush"));
        for bad in [
            "LOCK TABLES",
            "LOCK TABLES t",
            "LOCK TABLES t READ,",
            "FLUSH TABLES WITH",
        ] {
            assert!(
                parse_one(bad, crate::lexer::LexMode::default()).is_err(),
                "{bad}"
            );
        }
    }
}
