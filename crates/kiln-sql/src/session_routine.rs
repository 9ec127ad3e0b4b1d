//! The session's side of stored routines: the result sets a CALL produces (taken by
//! the server and sent before the CALL's OK, each flagged "more results"), ROW_COUNT
//! inside bodies, and whether a trigger or stored function is running (the "atomic"
//! context of routine/exec.rs).

use kiln_common::{ErrorKind, KilnError, Result};

use crate::result::Rows;
use crate::routine::RoutineKind;
use crate::session::Session;

/// Result sets one statement may produce (a procedure's SELECTs in a loop).
pub const RESULT_SETS_MAX: usize = 10_000;
/// Rows those result sets may hold together.
pub const RESULT_ROWS_MAX: usize = 1_000_000;

impl Session {
    /// Takes the result sets the last statement produced before its own outcome
    /// (a CALL's procedures' SELECTs), in order.
    pub fn take_results(&mut self) -> Vec<Rows> {
        std::mem::take(&mut self.results)
    }

    /// Queues a result set of a procedure for the client.
    pub(crate) fn push_result(&mut self, rows: Rows) -> Result<()> {
        let held: usize = self.results.iter().map(|r| r.rows.len()).sum();
        if self.results.len() >= RESULT_SETS_MAX || held + rows.rows.len() > RESULT_ROWS_MAX {
            return Err(KilnError::new(
                ErrorKind::ER_NOT_SUPPORTED_YET,
                &[&"more than 10000 result sets or 1000000 rows from one CALL"],
            ));
        }
        self.results.push(rows);
        Ok(())
    }

    /// While stored functions exist: pushes the tables `stmt` uses (a function it
    /// calls may not write them, 1442). Returns the mark to truncate back to.
    pub(crate) fn note_statement_tables(&mut self, stmt: &crate::ast::Stmt) -> usize {
        use crate::ast::Stmt;
        let mark = self.statement_tables.len();
        if crate::routine::names::any()
            && matches!(
                stmt,
                Stmt::Select(_)
                    | Stmt::Insert(_)
                    | Stmt::Update(_)
                    | Stmt::Delete(_)
                    | Stmt::Do(_)
                    | Stmt::Set(_)
            )
            && let Ok(uses) = crate::privcheck::table_uses(self, stmt)
        {
            self.statement_tables
                .extend(uses.into_iter().map(|u| (u.db, u.table)));
        }
        mark
    }

    /// Whether table `schema.name` is used by a statement (or a trigger's table) that
    /// a running stored function or trigger was invoked by.
    pub(crate) fn used_by_invoker(&self, schema: &str, name: &str) -> bool {
        self.trigger_tables
            .iter()
            .chain(self.statement_tables.iter())
            .any(|(a, b)| a == schema && b.eq_ignore_ascii_case(name))
    }

    /// ROW_COUNT() as a body's statement left it.
    pub(crate) fn set_row_count(&mut self, n: i64) {
        self.row_count = n;
    }

    /// A trigger or stored function is running: the statements of bodies run inside
    /// the statement that fired or called them.
    pub(crate) fn in_atomic_routine(&self) -> bool {
        !self.trigger_tables.is_empty()
            || self
                .routine_stack
                .iter()
                .any(|r| r.kind == RoutineKind::Function)
    }

    /// "function" or "trigger", as MySQL's 1415 / 1422 name the context.
    pub(crate) fn atomic_kind(&self) -> &'static str {
        if self
            .routine_stack
            .iter()
            .any(|r| r.kind == RoutineKind::Function)
        {
            "function"
        } else {
            "trigger"
        }
    }
}
