//! Test support for the function modules: a minimal session (`TestEnv`) and `q`,
//! which parses `SELECT e1, e2, …` without tables and evaluates each item to its text
//! (NULL as "NULL"), collecting warning codes.

use kiln_common::Result;

use crate::ast::{Stmt, VarScope};
use crate::eval::{Env, Level, eval};
use crate::value::Value;

#[derive(Default)]
pub struct TestEnv {
    pub warnings: Vec<u16>,
    pub time_zone: String,
    /// The `?` parameters (missing ones are NULL).
    pub params: Vec<Value>,
    /// The current row: what `Expr::Slot(i)` reads.
    pub row: Vec<Value>,
}

impl Env for TestEnv {
    fn param(&self, i: usize) -> Result<Value> {
        Ok(self.params.get(i).cloned().unwrap_or(Value::Null))
    }
    fn slot(&self, i: usize) -> Result<Value> {
        self.row
            .get(i)
            .cloned()
            .ok_or_else(|| kiln_common::KilnError::internal(format!("no slot {i}")))
    }
    fn sysvar(&self, _: VarScope, name: &str) -> Result<Value> {
        Ok(match name {
            "time_zone" if !self.time_zone.is_empty() => Value::Str(self.time_zone.clone()),
            "time_zone" => Value::Str("+00:00".into()),
            "sql_mode" => Value::Str(
                "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE".into(),
            ),
            _ => Value::Null,
        })
    }
    fn user_var(&self, _: &str) -> Value {
        Value::Null
    }
    fn set_user_var(&mut self, _: &str, _: Value) {}
    fn warn(&mut self, _: Level, code: u16, _: String) {
        self.warnings.push(code);
    }
    fn connection_id(&self) -> u64 {
        1
    }
    fn database(&self) -> Option<String> {
        None
    }
    fn user(&self) -> String {
        "root@localhost".into()
    }
    fn current_user(&self) -> String {
        "root@localhost".into()
    }
    fn last_insert_id(&self) -> u64 {
        0
    }
    fn set_last_insert_id(&mut self, _: u64) {}
    fn row_count(&self) -> i64 {
        0
    }
    fn found_rows(&self) -> u64 {
        0
    }
    fn server_version(&self) -> String {
        "8.0.0".into()
    }
    fn statement_time_micros(&self) -> i64 {
        1_577_836_800_000_000
    }
    fn sleep_interruptible(&mut self, _: f64) -> bool {
        false
    }
    fn is_interrupted(&self) -> bool {
        false
    }
}

/// Evaluates the items of `sql` (a table-less SELECT): their texts and the warnings.
pub fn q_warn(sql: &str) -> (Vec<String>, Vec<u16>) {
    let parsed = crate::parse::parse_one(sql, crate::lexer::LexMode::default()).expect("parses");
    let Stmt::Select(sel) = parsed.stmt else {
        panic!("not a SELECT: {sql}");
    };
    let mut env = TestEnv::default();
    let out = sel
        .items
        .iter()
        .map(|it| match eval(&it.expr, &mut env) {
            Ok(v) => v.to_string(),
            Err(e) => format!("ERROR {}", e.code),
        })
        .collect();
    (out, env.warnings)
}

pub fn q(sql: &str) -> Vec<String> {
    q_warn(sql).0
}
