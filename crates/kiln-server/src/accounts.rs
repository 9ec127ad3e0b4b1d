//! User accounts: `user@host` with an authentication plugin and its stored credential,
//! persisted in `<datadir>/mysql/accounts` (atomic rewrite on every change).
//!
//! File format: one account per line, four tab-separated fields
//! `user \t host \t plugin \t hex(auth_string)`; user and host never contain tabs or
//! newlines (checked at CREATE USER). This file is an interim home: accounts move into
//! the transactional data dictionary when it exists.
//!
//! Matching follows MySQL: the most specific host wins (literal hosts before patterns,
//! longer literal prefixes first), named users before the anonymous user.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use kiln_common::{ErrorKind, KilnError, Result};
use kiln_mysql::auth::{caching_sha2, native};
use parking_lot::{Mutex, RwLock};

use crate::datadir::write_atomic;

pub const NATIVE: &str = "mysql_native_password";
pub const CACHING_SHA2: &str = "caching_sha2_password";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    pub user: String,
    pub host: String,
    pub plugin: String,
    /// Plugin-specific stored credential; empty = no password.
    pub auth_string: String,
}

pub struct Accounts {
    path: PathBuf,
    list: RwLock<Vec<Account>>,
    /// caching_sha2_password fast-auth cache: SHA256(SHA256(password)) per account,
    /// filled after a successful full authentication, dropped on password change.
    sha2_cache: Mutex<HashMap<(String, String), [u8; 32]>>,
}

/// Stored credential for `password` under `plugin`.
pub fn hash_password(plugin: &str, password: &str) -> Result<String> {
    if password.is_empty() {
        return Ok(String::new());
    }
    match plugin {
        NATIVE => Ok(native::stored_hex(&native::stored_hash(
            password.as_bytes(),
        ))),
        CACHING_SHA2 => Ok(caching_sha2::stored_hash(password.as_bytes())),
        other => Err(KilnError::with_message(
            ErrorKind::ER_UNKNOWN_ERROR,
            format!("Plugin '{other}' is not loaded"),
        )),
    }
}

impl Accounts {
    /// Loads the accounts file; a missing file is an error (the datadir is damaged).
    pub fn load(datadir: &Path) -> std::result::Result<Accounts, String> {
        let path = datadir.join("mysql").join("accounts");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read accounts file '{}': {e}", path.display()))?;
        let mut list = Vec::new();
        for (n, line) in text.lines().enumerate() {
            if line.is_empty() {
                continue;
            }
            let f: Vec<&str> = line.split('\t').collect();
            let auth = f.get(3).and_then(|h| decode_hex(h));
            match (f.len(), auth) {
                (4, Some(auth)) => list.push(Account {
                    user: f[0].to_string(),
                    host: f[1].to_string(),
                    plugin: f[2].to_string(),
                    auth_string: auth,
                }),
                _ => {
                    return Err(format!(
                        "accounts file '{}' is corrupt at line {}",
                        path.display(),
                        n + 1
                    ));
                }
            }
        }
        let a = Accounts {
            path,
            list: RwLock::new(list),
            sha2_cache: Mutex::new(HashMap::new()),
        };
        a.sort();
        Ok(a)
    }

    /// Writes the initial accounts file with `root@localhost` (empty password).
    pub fn initialize(datadir: &Path, root_plugin: &str) -> std::result::Result<(), String> {
        let a = Accounts {
            path: datadir.join("mysql").join("accounts"),
            list: RwLock::new(vec![Account {
                user: "root".into(),
                host: "localhost".into(),
                plugin: root_plugin.into(),
                auth_string: String::new(),
            }]),
            sha2_cache: Mutex::new(HashMap::new()),
        };
        a.save()
    }

    fn sort(&self) {
        self.list
            .write()
            .sort_by_key(|a| (host_rank(&a.host), a.user.is_empty()));
    }

    fn save(&self) -> std::result::Result<(), String> {
        let mut out = String::new();
        for a in self.list.read().iter() {
            out.push_str(&format!(
                "{}\t{}\t{}\t{}\n",
                a.user,
                a.host,
                a.plugin,
                encode_hex(&a.auth_string)
            ));
        }
        write_atomic(&self.path, out.as_bytes())
    }

    /// The account a client `user` connecting from `host` authenticates as.
    pub fn find(&self, user: &str, client_host: &str, client_ip: Option<&str>) -> Option<Account> {
        self.list
            .read()
            .iter()
            .find(|a| {
                (a.user.is_empty() || a.user == user)
                    && (host_matches(&a.host, client_host)
                        || client_ip.is_some_and(|ip| host_matches(&a.host, ip)))
            })
            .cloned()
    }

    pub fn exists(&self, user: &str, host: &str) -> bool {
        self.list
            .read()
            .iter()
            .any(|a| a.user == user && a.host.eq_ignore_ascii_case(host))
    }

    pub fn create(&self, user: &str, host: &str, plugin: &str, password: &str) -> Result<()> {
        validate_name(user, host)?;
        let auth_string = hash_password(plugin, password)?;
        {
            let mut l = self.list.write();
            if l.iter()
                .any(|a| a.user == user && a.host.eq_ignore_ascii_case(host))
            {
                return Err(KilnError::with_message(
                    ErrorKind::ER_UNKNOWN_ERROR,
                    format!("Operation CREATE USER failed for '{user}'@'{host}'"),
                )
                .recode(1396, b"HY000"));
            }
            l.push(Account {
                user: user.into(),
                host: host.into(),
                plugin: plugin.into(),
                auth_string,
            });
        }
        self.sort();
        self.save().map_err(KilnError::internal)
    }

    pub fn alter(
        &self,
        user: &str,
        host: &str,
        plugin: Option<&str>,
        password: Option<&str>,
    ) -> Result<()> {
        {
            let mut l = self.list.write();
            let Some(a) = l
                .iter_mut()
                .find(|a| a.user == user && a.host.eq_ignore_ascii_case(host))
            else {
                return Err(KilnError::with_message(
                    ErrorKind::ER_UNKNOWN_ERROR,
                    format!("Operation ALTER USER failed for '{user}'@'{host}'"),
                )
                .recode(1396, b"HY000"));
            };
            if let Some(p) = plugin {
                a.plugin = p.to_string();
            }
            if let Some(pw) = password {
                a.auth_string = hash_password(&a.plugin, pw)?;
            } else if plugin.is_some() {
                a.auth_string.clear();
            }
        }
        self.sha2_cache
            .lock()
            .remove(&(user.to_string(), host.to_string()));
        self.save().map_err(KilnError::internal)
    }

    pub fn drop_account(&self, user: &str, host: &str) -> Result<()> {
        {
            let mut l = self.list.write();
            let before = l.len();
            l.retain(|a| !(a.user == user && a.host.eq_ignore_ascii_case(host)));
            if l.len() == before {
                return Err(KilnError::with_message(
                    ErrorKind::ER_UNKNOWN_ERROR,
                    format!("Operation DROP USER failed for '{user}'@'{host}'"),
                )
                .recode(1396, b"HY000"));
            }
        }
        self.sha2_cache
            .lock()
            .remove(&(user.to_string(), host.to_string()));
        self.save().map_err(KilnError::internal)
    }

    pub fn cached_sha2(&self, a: &Account) -> Option<[u8; 32]> {
        self.sha2_cache
            .lock()
            .get(&(a.user.clone(), a.host.clone()))
            .copied()
    }

    pub fn cache_sha2(&self, a: &Account, digest: [u8; 32]) {
        self.sha2_cache
            .lock()
            .insert((a.user.clone(), a.host.clone()), digest);
    }
}

trait Recode {
    fn recode(self, code: u16, state: &[u8; 5]) -> KilnError;
}

impl Recode for KilnError {
    /// ER_CANNOT_USER (1396) is not in the shared table yet; give the error its number.
    fn recode(mut self, code: u16, state: &[u8; 5]) -> KilnError {
        self.code = code;
        self.sqlstate = *state;
        self
    }
}

fn validate_name(user: &str, host: &str) -> Result<()> {
    if user.len() > kiln_common::limits::USER_NAME_LEN_MAX {
        return Err(KilnError::with_message(
            ErrorKind::ER_WRONG_ARGUMENTS,
            format!("String '{user}' is too long for user name (should be no longer than 32)"),
        )
        .recode(1470, b"HY000"));
    }
    if host.len() > 255 {
        return Err(KilnError::with_message(
            ErrorKind::ER_WRONG_ARGUMENTS,
            format!("String '{host}' is too long for host name (should be no longer than 255)"),
        )
        .recode(1470, b"HY000"));
    }
    if user.contains(['\t', '\n', '\r']) || host.contains(['\t', '\n', '\r']) {
        return Err(KilnError::new(
            ErrorKind::ER_WRONG_ARGUMENTS,
            &[&"CREATE USER"],
        ));
    }
    Ok(())
}

/// Sort rank: literal hosts first (longer first), then patterns, `%` last.
fn host_rank(host: &str) -> (u8, std::cmp::Reverse<usize>) {
    if host == "%" || host.is_empty() {
        (2, std::cmp::Reverse(0))
    } else if host.contains(['%', '_']) {
        (1, std::cmp::Reverse(host.len()))
    } else {
        (0, std::cmp::Reverse(host.len()))
    }
}

fn host_matches(pattern: &str, host: &str) -> bool {
    if pattern.is_empty() {
        return true;
    }
    kiln_sql::eval::like_match(host, pattern, '\\', true)
}

fn encode_hex(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02x}")).collect()
}

fn decode_hex(h: &str) -> Option<String> {
    if !h.len().is_multiple_of(2) {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..h.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&h[i..i + 2], 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_specificity_and_persistence() {
        let d = std::env::temp_dir().join(format!("kiln-accounts-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("mysql")).unwrap();
        Accounts::initialize(&d, CACHING_SHA2).unwrap();
        let a = Accounts::load(&d).unwrap();
        a.create("bob", "%", NATIVE, "pw").unwrap();
        a.create("bob", "localhost", CACHING_SHA2, "pw2").unwrap();
        assert_eq!(
            a.find("bob", "localhost", Some("127.0.0.1")).unwrap().host,
            "localhost"
        );
        assert_eq!(a.find("bob", "10.0.0.1", None).unwrap().host, "%");
        assert!(a.find("alice", "localhost", None).is_none());
        assert_eq!(a.create("bob", "%", NATIVE, "x").unwrap_err().code, 1396);
        let b = Accounts::load(&d).unwrap();
        assert_eq!(b.find("bob", "x", None).unwrap().plugin, NATIVE);
        b.drop_account("bob", "%").unwrap();
        assert!(Accounts::load(&d).unwrap().find("bob", "x", None).is_none());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
