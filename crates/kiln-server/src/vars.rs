//! The server's handle on system variables: typed reads of global values for the
//! server itself (ports, limits, timeouts) and per-session views for kiln-sql.
//!
//! INTERIM: a small built-in table until the full registry (kiln_sql::sysvar) lands.

use std::collections::HashMap;
use std::sync::Arc;

use kiln_common::{ErrorKind, KilnError, Result};
use kiln_sql::ast::VarScope;
use kiln_sql::session::{Diagnostic, SystemVariables};
use kiln_sql::value::Value;
use parking_lot::RwLock;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    Global,
    Both,
}

const DEFAULTS: &[(&str, &str, bool)] = &[
    ("autocommit", "1", true),
    ("auto_increment_increment", "1", true),
    ("auto_increment_offset", "1", true),
    ("character_set_client", "utf8mb4", true),
    ("character_set_connection", "utf8mb4", true),
    ("character_set_database", "utf8mb4", true),
    ("character_set_results", "utf8mb4", true),
    ("character_set_server", "utf8mb4", true),
    ("character_set_system", "utf8mb3", false),
    ("collation_connection", "utf8mb4_0900_ai_ci", true),
    ("collation_database", "utf8mb4_0900_ai_ci", true),
    ("collation_server", "utf8mb4_0900_ai_ci", true),
    ("connect_timeout", "10", false),
    (
        "default_authentication_plugin",
        "caching_sha2_password",
        false,
    ),
    ("div_precision_increment", "4", true),
    ("init_connect", "", false),
    ("interactive_timeout", "28800", true),
    ("license", "Apache-2.0", false),
    ("lower_case_table_names", "0", false),
    ("max_allowed_packet", "67108864", true),
    ("max_connections", "151", false),
    ("net_buffer_length", "16384", true),
    ("net_read_timeout", "30", true),
    ("net_write_timeout", "60", true),
    ("performance_schema", "0", false),
    ("query_cache_size", "0", false),
    ("query_cache_type", "OFF", true),
    ("require_secure_transport", "0", false),
    ("session_track_schema", "1", true),
    ("session_track_state_change", "0", true),
    (
        "session_track_system_variables",
        "time_zone,autocommit,character_set_client,character_set_results,character_set_connection",
        true,
    ),
    ("session_track_transaction_info", "OFF", true),
    (
        "sql_mode",
        "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION",
        true,
    ),
    ("system_time_zone", "UTC", false),
    ("time_zone", "SYSTEM", true),
    ("transaction_isolation", "REPEATABLE-READ", true),
    ("transaction_read_only", "0", true),
    ("tx_isolation", "REPEATABLE-READ", true),
    ("tx_read_only", "0", true),
    ("version_comment", "kiln", false),
    ("wait_timeout", "28800", true),
];

struct Var {
    value: Value,
    scope: Scope,
}

#[derive(Clone)]
pub struct Globals {
    vars: Arc<RwLock<HashMap<String, Var>>>,
}

impl Default for Globals {
    fn default() -> Self {
        Self::new()
    }
}

fn parse_default(s: &str) -> Value {
    match s.parse::<i64>() {
        Ok(i) => Value::Int(i),
        Err(_) => Value::Str(s.to_string()),
    }
}

impl Globals {
    pub fn new() -> Globals {
        let mut m = HashMap::new();
        for (n, d, session) in DEFAULTS {
            m.insert(
                n.to_string(),
                Var {
                    value: parse_default(d),
                    scope: if *session { Scope::Both } else { Scope::Global },
                },
            );
        }
        Globals {
            vars: Arc::new(RwLock::new(m)),
        }
    }

    /// Sets a value the server owns (port, socket, version, ...), creating it if needed.
    pub fn set_internal(&self, name: &str, value: Value) {
        let mut m = self.vars.write();
        match m.get_mut(name) {
            Some(v) => v.value = value,
            None => {
                m.insert(
                    name.to_string(),
                    Var {
                        value,
                        scope: Scope::Global,
                    },
                );
            }
        }
    }

    pub fn get(&self, name: &str) -> Option<Value> {
        self.vars.read().get(name).map(|v| v.value.clone())
    }

    pub fn u64(&self, name: &str) -> Option<u64> {
        self.get(name)
            .and_then(|v| v.to_i64())
            .map(|i| i.max(0) as u64)
    }

    pub fn u64_session(&self, vars: &dyn SystemVariables, name: &str) -> Option<u64> {
        vars.get(VarScope::Session, name)
            .ok()
            .and_then(|v| v.to_i64())
            .map(|i| i.max(0) as u64)
    }

    pub fn string(&self, name: &str) -> Option<String> {
        self.get(name).and_then(|v| v.to_string_lossy())
    }

    pub fn bool(&self, name: &str) -> Option<bool> {
        self.get(name).map(|v| match v {
            Value::Str(s) => s.eq_ignore_ascii_case("on") || s == "1",
            other => other.to_bool() == Some(true),
        })
    }

    pub fn new_session(&self) -> Box<dyn SystemVariables> {
        let m = self.vars.read();
        let local = m
            .iter()
            .filter(|(_, v)| v.scope == Scope::Both)
            .map(|(k, v)| (k.clone(), v.value.clone()))
            .collect();
        Box::new(SessionVars {
            globals: self.clone(),
            local,
        })
    }
}

struct SessionVars {
    globals: Globals,
    local: HashMap<String, Value>,
}

fn display(v: &Value) -> String {
    v.to_string_lossy().unwrap_or_default()
}

impl SystemVariables for SessionVars {
    fn get(&self, scope: VarScope, name: &str) -> Result<Value> {
        let n = name.to_ascii_lowercase();
        let g = self.globals.vars.read();
        let Some(var) = g.get(&n) else {
            return Err(KilnError::new(
                ErrorKind::ER_UNKNOWN_SYSTEM_VARIABLE,
                &[&name],
            ));
        };
        match scope {
            VarScope::Global => Ok(var.value.clone()),
            VarScope::Session if var.scope == Scope::Global => Err(KilnError::new(
                ErrorKind::ER_INCORRECT_GLOBAL_LOCAL_VAR,
                &[&n, &"GLOBAL"],
            )),
            _ => Ok(self
                .local
                .get(&n)
                .cloned()
                .unwrap_or_else(|| var.value.clone())),
        }
    }

    fn set(
        &mut self,
        scope: VarScope,
        name: &str,
        value: Option<&Value>,
    ) -> Result<Vec<Diagnostic>> {
        let n = name.to_ascii_lowercase();
        let mut g = self.globals.vars.write();
        let Some(var) = g.get_mut(&n) else {
            return Err(KilnError::new(
                ErrorKind::ER_UNKNOWN_SYSTEM_VARIABLE,
                &[&name],
            ));
        };
        let v = match value {
            Some(Value::Str(s)) if s.eq_ignore_ascii_case("on") => Value::Int(1),
            Some(Value::Str(s)) if s.eq_ignore_ascii_case("off") => Value::Int(0),
            Some(v) => v.clone(),
            None => var.value.clone(),
        };
        match scope {
            VarScope::Global => var.value = v,
            _ if var.scope == Scope::Global => {
                return Err(KilnError::new(ErrorKind::ER_GLOBAL_VARIABLE, &[&n]));
            }
            _ => {
                self.local.insert(n, v);
            }
        }
        Ok(Vec::new())
    }

    fn list(&self, global: bool) -> Vec<(String, String)> {
        let g = self.globals.vars.read();
        let mut out: Vec<(String, String)> = g
            .iter()
            .map(|(k, v)| {
                let val = if global {
                    &v.value
                } else {
                    self.local.get(k).unwrap_or(&v.value)
                };
                (k.clone(), display(val))
            })
            .collect();
        out.sort();
        out
    }

    fn reset(&mut self) {
        let g = self.globals.vars.read();
        self.local = g
            .iter()
            .filter(|(_, v)| v.scope == Scope::Both)
            .map(|(k, v)| (k.clone(), v.value.clone()))
            .collect();
    }

    fn display(&self, name: &str) -> Option<String> {
        let v = self.get(VarScope::Default, name).ok()?;
        Some(match (name, &v) {
            (
                "autocommit" | "session_track_schema" | "session_track_state_change",
                Value::Int(i),
            ) => {
                if *i != 0 {
                    "ON".into()
                } else {
                    "OFF".into()
                }
            }
            _ => display(&v),
        })
    }
}
