//! SQL-level prepared statements: `PREPARE name FROM 'text' | @var`,
//! `EXECUTE name [USING @var, ...]` (DEALLOCATE / DROP PREPARE is in stmt.rs's
//! dispatch). Executed by prepared_sql.rs.

use super::*;

impl<'a> Parser<'a> {
    pub(super) fn prepare_stmt(&mut self) -> Result<Stmt> {
        self.bump();
        let name = self.ident()?;
        self.expect_kw("FROM")?;
        let source = match self.peek().tok.clone() {
            Tok::UserVar(v) => {
                self.bump();
                PrepareSource::UserVar(v.to_string())
            }
            Tok::Str(_) => PrepareSource::Text(self.string()?),
            _ => return Err(self.error()),
        };
        Ok(Stmt::Prepare { name, source })
    }

    pub(super) fn execute_stmt(&mut self) -> Result<Stmt> {
        self.bump();
        let name = self.ident()?;
        let mut using = Vec::new();
        if self.eat_kw("USING") {
            loop {
                let Tok::UserVar(v) = self.peek().tok.clone() else {
                    return Err(self.error());
                };
                self.bump();
                using.push(v.to_string());
                if !self.eat_op(",") {
                    break;
                }
            }
        }
        Ok(Stmt::Execute { name, using })
    }
}
