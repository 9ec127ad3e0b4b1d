//! System-variable values: the global values (one slot per entry of the registry
//! `kiln_sql::sysvar::VARS`) and each session's copy. The registry says what a
//! variable is and how a value is checked; this module says where values live and
//! implements MySQL's scope rules for reads and SETs.
//!
//! Sessions copy all values at connect (and on COM_RESET_CONNECTION /
//! COM_CHANGE_USER); `SET GLOBAL` changes what later sessions start with, never a
//! running session's own value — as in MySQL.

use std::sync::Arc;

use kiln_common::{ErrorKind, KilnError, Result};
use kiln_sql::ast::VarScope;
use kiln_sql::session::{Diagnostic, SystemVariables};
use kiln_sql::sysvar::{self, SysVar, VARS};
use kiln_sql::value::Value;
use parking_lot::RwLock;

/// The server's global values.
#[derive(Clone)]
pub struct Globals {
    values: Arc<RwLock<Vec<Value>>>,
    /// Told of every successful `SET GLOBAL` (the storage engine follows
    /// innodb_flush_log_at_trx_commit this way).
    observers: Arc<RwLock<Vec<Observer>>>,
}

type Observer = Arc<dyn Fn(&'static SysVar, &Value) + Send + Sync>;

impl Default for Globals {
    fn default() -> Self {
        Self::new()
    }
}

impl Globals {
    /// All variables at their compiled defaults.
    pub fn new() -> Globals {
        Globals {
            values: Arc::new(RwLock::new(
                VARS.iter().map(sysvar::default_value).collect(),
            )),
            observers: Arc::new(RwLock::new(Vec::new())),
        }
    }

    /// Sets a value from an option (command line or option file), checked like SET
    /// but allowed for read-only variables. Returns warnings to log.
    pub fn apply_option(&self, var: &'static SysVar, value: &Value) -> Result<Vec<Diagnostic>> {
        let (v, warnings) = sysvar::check(var, value)?;
        let mut g = self.values.write();
        if let Some((other, ov)) = sysvar::linked(var, &v) {
            g[sysvar::index_of(other)] = ov;
        }
        g[sysvar::index_of(var)] = v;
        Ok(warnings)
    }

    /// Registers `f` to be called after each successful `SET GLOBAL`.
    pub fn observe(&self, f: impl Fn(&'static SysVar, &Value) + Send + Sync + 'static) {
        self.observers.write().push(Arc::new(f));
    }

    /// Sets a value the server owns (port, socket, have_ssl, ...). Panics on a name
    /// that is not registered: that is a bug, not input.
    pub fn set_internal(&self, name: &str, value: Value) {
        let var =
            sysvar::lookup(name).unwrap_or_else(|| panic!("unregistered system variable {name}"));
        self.values.write()[sysvar::index_of(var)] = value;
    }

    pub fn get(&self, name: &str) -> Option<Value> {
        let var = sysvar::lookup(name)?;
        Some(self.values.read()[sysvar::index_of(var)].clone())
    }

    pub fn u64(&self, name: &str) -> Option<u64> {
        match self.get(name)? {
            Value::UInt(u) => Some(u),
            v => v.to_i64().map(|i| i.max(0) as u64),
        }
    }

    pub fn string(&self, name: &str) -> Option<String> {
        match self.get(name)? {
            Value::Null => None,
            v => v.to_string_lossy(),
        }
    }

    /// A session's value as an unsigned integer (timeouts, limits).
    pub fn u64_session(&self, vars: &dyn SystemVariables, name: &str) -> Option<u64> {
        vars.get(VarScope::Default, name)
            .ok()
            .and_then(|v| v.to_i64())
            .map(|i| i.max(0) as u64)
    }

    pub fn bool(&self, name: &str) -> Option<bool> {
        self.get(name).map(|v| v.to_i64().unwrap_or(0) != 0)
    }

    /// (name, SHOW VARIABLES value) of every global variable, sorted by name.
    pub fn list(&self) -> Vec<(&'static str, String)> {
        let g = self.values.read();
        VARS.iter()
            .zip(g.iter())
            .filter(|(v, _)| v.has_global())
            .map(|(v, val)| (v.name, sysvar::display(v, val)))
            .collect()
    }

    pub fn new_session(&self) -> Box<dyn SystemVariables> {
        Box::new(SessionVars {
            globals: self.clone(),
            local: self.values.read().clone(),
        })
    }
}

/// One session's values: a full copy, of which only session-scoped slots are used.
struct SessionVars {
    globals: Globals,
    local: Vec<Value>,
}

fn find(name: &str) -> Result<&'static SysVar> {
    sysvar::lookup(name).ok_or_else(|| sysvar::unknown(name))
}

impl SessionVars {
    fn stored(&self, scope: VarScope, var: &'static SysVar) -> Result<Value> {
        let i = sysvar::index_of(var);
        match scope {
            VarScope::Global if !var.has_global() => Err(sysvar::wrong_scope_read(var)),
            VarScope::Global => Ok(self.globals.values.read()[i].clone()),
            VarScope::Session if !var.has_session() => Err(sysvar::wrong_scope_read(var)),
            _ if var.has_session() => Ok(self.local[i].clone()),
            _ => Ok(self.globals.values.read()[i].clone()),
        }
    }
}

impl SystemVariables for SessionVars {
    fn get(&self, scope: VarScope, name: &str) -> Result<Value> {
        let var = find(name)?;
        let v = self.stored(scope, var)?;
        if var.name == "timestamp" && v.to_f64() == Some(0.0) {
            // 0 means "the clock".
            let micros = kiln_common::time::unix_micros_now();
            return Ok(Value::Decimal(format!(
                "{}.{:06}",
                micros / 1_000_000,
                micros % 1_000_000
            )));
        }
        Ok(sysvar::select_value(var, &v))
    }

    fn set(
        &mut self,
        scope: VarScope,
        name: &str,
        value: Option<&Value>,
    ) -> Result<Vec<Diagnostic>> {
        let var = find(name)?;
        if var.read_only() {
            return Err(sysvar::read_only_error(var));
        }
        let global = scope == VarScope::Global;
        if global && !var.has_global() {
            return Err(KilnError::new(ErrorKind::ER_LOCAL_VARIABLE, &[&var.name]));
        }
        if !global && !var.has_session() {
            return Err(KilnError::new(ErrorKind::ER_GLOBAL_VARIABLE, &[&var.name]));
        }
        let i = sysvar::index_of(var);
        let (v, warnings) = match value {
            Some(v) => sysvar::check(var, v)?,
            None if global || !var.has_global() => (sysvar::default_value(var), Vec::new()),
            None => (self.globals.values.read()[i].clone(), Vec::new()),
        };
        let link = sysvar::linked(var, &v);
        if global {
            {
                let mut g = self.globals.values.write();
                if let Some((other, ov)) = link {
                    g[sysvar::index_of(other)] = ov;
                }
                g[i] = v.clone();
            }
            let observers = self.globals.observers.read().clone();
            for o in observers {
                o(var, &v);
            }
        } else {
            if let Some((other, ov)) = link {
                self.local[sysvar::index_of(other)] = ov;
            }
            self.local[i] = v;
        }
        Ok(warnings)
    }

    fn list(&self, global: bool) -> Vec<(String, String)> {
        if global {
            return self
                .globals
                .list()
                .into_iter()
                .map(|(n, v)| (n.to_string(), v))
                .collect();
        }
        let g = self.globals.values.read();
        VARS.iter()
            .enumerate()
            .map(|(i, var)| {
                let v = if var.has_session() {
                    &self.local[i]
                } else {
                    &g[i]
                };
                (var.name.to_string(), sysvar::display(var, v))
            })
            .collect()
    }

    fn reset(&mut self) {
        self.local = self.globals.values.read().clone();
    }

    fn display(&self, name: &str) -> Option<String> {
        let var = sysvar::lookup(name)?;
        let v = self.stored(VarScope::Default, var).ok()?;
        Some(sysvar::display(var, &v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sess() -> (Globals, Box<dyn SystemVariables>) {
        let g = Globals::new();
        let s = g.new_session();
        (g, s)
    }

    #[test]
    fn scope_rules() {
        let (_g, mut s) = sess();
        assert_eq!(
            s.get(VarScope::Session, "max_connections")
                .unwrap_err()
                .code,
            1238
        );
        assert_eq!(
            s.get(VarScope::Default, "max_connections").unwrap(),
            Value::Int(151)
        );
        assert_eq!(
            s.get(VarScope::Global, "pseudo_thread_id")
                .unwrap_err()
                .code,
            1238
        );
        assert_eq!(
            s.set(VarScope::Session, "max_connections", Some(&Value::Int(5)))
                .unwrap_err()
                .code,
            1229
        );
        assert_eq!(
            s.set(VarScope::Global, "sql_log_bin", Some(&Value::Int(0)))
                .unwrap_err()
                .code,
            1228
        );
        let e = s
            .set(VarScope::Global, "port", Some(&Value::Int(1)))
            .unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (1238, "Variable 'port' is a read only variable")
        );
        assert_eq!(s.get(VarScope::Default, "nosuch").unwrap_err().code, 1193);
    }

    #[test]
    fn global_set_affects_new_sessions_only() {
        let (g, mut s) = sess();
        s.set(VarScope::Global, "wait_timeout", Some(&Value::Int(100)))
            .unwrap();
        assert_eq!(
            s.get(VarScope::Default, "wait_timeout").unwrap(),
            Value::Int(28800)
        );
        assert_eq!(
            s.get(VarScope::Global, "wait_timeout").unwrap(),
            Value::Int(100)
        );
        let s2 = g.new_session();
        assert_eq!(
            s2.get(VarScope::Default, "wait_timeout").unwrap(),
            Value::Int(100)
        );
        // SESSION = DEFAULT takes the global value; GLOBAL = DEFAULT the compiled one.
        s.set(VarScope::Session, "wait_timeout", None).unwrap();
        assert_eq!(
            s.get(VarScope::Default, "wait_timeout").unwrap(),
            Value::Int(100)
        );
        s.set(VarScope::Global, "wait_timeout", None).unwrap();
        assert_eq!(g.u64("wait_timeout"), Some(28800));
    }

    #[test]
    fn linked_charset_and_collation() {
        let (_g, mut s) = sess();
        s.set(
            VarScope::Session,
            "collation_connection",
            Some(&Value::Str("latin1_swedish_ci".into())),
        )
        .unwrap();
        assert_eq!(
            s.get(VarScope::Default, "character_set_connection")
                .unwrap(),
            Value::Str("latin1".into())
        );
        s.set(
            VarScope::Session,
            "character_set_connection",
            Some(&Value::Str("utf8mb4".into())),
        )
        .unwrap();
        assert_eq!(
            s.display("collation_connection").unwrap(),
            "utf8mb4_0900_ai_ci"
        );
    }

    #[test]
    fn show_forms() {
        let (g, s) = sess();
        assert_eq!(s.display("autocommit").unwrap(), "ON");
        let list = s.list(false);
        assert!(list.iter().any(|(n, v)| n == "autocommit" && v == "ON"));
        assert!(list.iter().any(|(n, _)| n == "pseudo_thread_id"));
        assert!(!g.list().iter().any(|(n, _)| *n == "pseudo_thread_id"));
        assert!(list.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
