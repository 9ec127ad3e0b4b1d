//! The executor: statements that touch tables. `select` (queries), `dml` (INSERT,
//! UPDATE, DELETE, REPLACE), `ddl` (CREATE/DROP/ALTER ...), `access` (access paths
//! and reading rows through the engine), `bind` (names to slots), `agg` (aggregates).
//!
//! A statement reaches here from `Session::dispatch`; the session owns the catalog
//! snapshot and the transaction (`Session::with_trx`).

pub mod access;
pub mod access_shape;
pub mod agg;
pub mod alter;
pub mod bind;
mod coltype;
pub mod columns;
pub mod correlate;
pub mod covering;
pub mod ddl;
pub mod dml;
pub mod dml_multi;
pub mod explain;
mod explain_join;
pub mod filesort;
pub mod group;
pub mod index_order;
pub mod infoschema;
pub mod insert;
mod int_filter;
pub mod join;
pub mod join_hash;
pub mod join_index;
pub mod join_order;
pub mod join_push;
pub mod join_using;
pub mod key_len;
pub mod load;
pub mod maintenance;
mod minmax;
pub mod point;
pub mod prepared_plan;
pub mod routine;
pub mod routine_show;
pub mod select;
pub(crate) mod select_stage;
pub mod show;
pub mod table_read;
pub mod trigger;
pub mod union_types;
pub mod view;
mod view_dml;
pub mod window;

use kiln_common::Result;

use crate::ast::VarScope;
use crate::eval::{Env, Level};
use crate::value::Value;

/// Evaluation environment for one row: slots come from `row`, everything else from
/// the session.
pub struct RowEnv<'a> {
    pub inner: &'a mut crate::session::Session,
    pub row: &'a [Value],
    /// Names of the row's slots, for correlated subqueries (None: none may appear).
    pub scope: Option<&'a bind::Scope>,
}

impl Env for RowEnv<'_> {
    fn slot(&self, i: usize) -> Result<Value> {
        self.row
            .get(i)
            .cloned()
            .ok_or_else(|| kiln_common::KilnError::internal(format!("slot {i} out of row")))
    }
    fn param(&self, index: usize) -> Result<Value> {
        self.inner.param(index)
    }
    fn sysvar(&self, scope: VarScope, name: &str) -> Result<Value> {
        self.inner.sysvar(scope, name)
    }
    fn user_var(&self, name: &str) -> Value {
        self.inner.user_var(name)
    }
    fn set_user_var(&mut self, name: &str, value: Value) {
        self.inner.set_user_var(name, value)
    }
    fn warn(&mut self, level: Level, code: u16, message: String) {
        self.inner.warn(level, code, message)
    }
    fn connection_id(&self) -> u64 {
        self.inner.connection_id()
    }
    fn database(&self) -> Option<String> {
        self.inner.database()
    }
    fn user(&self) -> String {
        self.inner.user()
    }
    fn current_user(&self) -> String {
        self.inner.current_user()
    }
    fn last_insert_id(&self) -> u64 {
        self.inner.last_insert_id()
    }
    fn set_last_insert_id(&mut self, id: u64) {
        self.inner.set_last_insert_id(id)
    }
    fn row_count(&self) -> i64 {
        self.inner.row_count()
    }
    fn found_rows(&self) -> u64 {
        self.inner.found_rows()
    }
    fn server_version(&self) -> String {
        self.inner.server_version()
    }
    fn statement_time_micros(&self) -> i64 {
        self.inner.statement_time_micros()
    }
    fn sleep_interruptible(&mut self, seconds: f64) -> bool {
        self.inner.sleep_interruptible(seconds)
    }
    fn is_interrupted(&self) -> bool {
        self.inner.is_interrupted()
    }
    fn div_precision_increment(&self) -> u32 {
        self.inner.div_precision_increment()
    }
    fn collation_connection(&self) -> crate::collate::Coll {
        self.inner.collation_connection()
    }
    fn stored_function(&mut self, name: &str, args: Vec<Value>) -> Option<Result<Value>> {
        self.inner.stored_function(name, args)
    }
    fn subquery(&mut self, sel: &crate::ast::Select) -> Result<crate::result::Rows> {
        let Some(scope) = self.scope else {
            return Err(kiln_common::KilnError::new(
                kiln_common::ErrorKind::ER_NOT_SUPPORTED_YET,
                &[&"correlated subqueries here"],
            ));
        };
        let bound = correlate::substitute(self.inner, sel, scope, self.row)?;
        select::run(self.inner, &bound)
    }
}
