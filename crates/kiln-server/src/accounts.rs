//! User accounts and their privileges: `user@host` with an authentication plugin and
//! its stored credential, resource limits, and grants at the global (`*.*`), database
//! (`db.*`) and table (`db.t`) levels, persisted in `<datadir>/mysql/accounts`.
//!
//! # File format (version 2)
//!
//! UTF-8 text, one record per line, fields separated by one TAB (0x09), lines ended by
//! LF (0x0A). User and host never contain TAB, CR or LF (checked at CREATE/RENAME
//! USER); database and table names may contain anything, so they are written as
//! lower-case hex of their UTF-8 bytes. Privilege sets are decimal `u32`s of
//! `kiln_sql::privilege` bits (MySQL's `*_ACL` bit order, GRANT OPTION = bit 10; bit
//! 31 is never set).
//!
//! ```text
//! line 1   kiln-accounts \t 2
//! account  account \t user \t host \t plugin \t hex(auth_string) \t global_privs
//!                  \t max_queries_per_hour \t max_updates_per_hour
//!                  \t max_connections_per_hour \t max_user_connections
//! db       db \t user \t host \t hex(db_pattern) \t privs
//! table    table \t user \t host \t hex(db) \t hex(table) \t privs
//! ```
//!
//! Every `db` and `table` record names an `account` record that precedes it; a
//! privilege set is never 0 (a grant revoked to nothing is removed). Limits are
//! decimal, 0 = none. Any line that does not parse, a record of an unknown kind, or a
//! grant of an unknown account makes the file corrupt and the server refuses to start.
//!
//! Version 1 (before privileges) had no header line and one account per line,
//! `user \t host \t plugin \t hex(auth_string)`. It still loads: accounts named `root`
//! get ALL PRIVILEGES ON *.* WITH GRANT OPTION (they were the administrators), every
//! other account USAGE; the next change rewrites the file as version 2.
//!
//! # Crash safety and concurrency
//!
//! The whole file is rewritten on every change with `datadir::write_atomic` (temporary
//! file, fsync, rename, fsync of the directory): a crash leaves the old or the new
//! file, never a mix, so an account and its grants always change together. Changes are
//! serialized by `write_lock`; each one works on a copy of the state, writes it, and
//! only then publishes it (a failed write changes nothing) and bumps `generation`,
//! which sessions compare to drop their cached privileges.
//!
//! This file is an interim home: accounts move into the transactional data dictionary
//! when it exists. Matching follows MySQL: the most specific host wins (literal hosts
//! before patterns, longer literal prefixes first), named users before the anonymous
//! user.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use kiln_common::{ErrorKind, KilnError, Result};
use kiln_mysql::auth::{caching_sha2, native};
use kiln_sql::ast::{ResourceLimits, UserSpec};
use kiln_sql::privilege::{GLOBAL_ALL, GRANT_OPTION, GrantObject, PrivSet, Privileges};
use parking_lot::{Mutex, RwLock};

use crate::datadir::write_atomic;

pub const NATIVE: &str = "mysql_native_password";
pub const CACHING_SHA2: &str = "caching_sha2_password";

/// The first line of a version-2 accounts file.
const HEADER_V2: &str = "kiln-accounts\t2";

/// Per-account resource limits (0 = no limit). Stored and shown; the connection code
/// enforces `max_user_connections` through `Accounts::max_user_connections`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Limits {
    pub max_queries_per_hour: u64,
    pub max_updates_per_hour: u64,
    pub max_connections_per_hour: u64,
    pub max_user_connections: u64,
}

impl Limits {
    /// These limits with the ones a statement names applied.
    fn with(mut self, l: &ResourceLimits) -> Limits {
        let set = |slot: &mut u64, v: Option<u64>| {
            if let Some(v) = v {
                *slot = v;
            }
        };
        set(&mut self.max_queries_per_hour, l.max_queries_per_hour);
        set(&mut self.max_updates_per_hour, l.max_updates_per_hour);
        set(
            &mut self.max_connections_per_hour,
            l.max_connections_per_hour,
        );
        set(&mut self.max_user_connections, l.max_user_connections);
        self
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    pub user: String,
    pub host: String,
    pub plugin: String,
    /// Plugin-specific stored credential; empty = no password.
    pub auth_string: String,
    /// Privileges on `*.*` (GRANT OPTION included).
    pub global: PrivSet,
    pub limits: Limits,
}

impl Account {
    fn is(&self, user: &str, host: &str) -> bool {
        self.user == user && self.host.eq_ignore_ascii_case(host)
    }
}

/// A `db.*` grant.
#[derive(Debug, Clone, PartialEq, Eq)]
struct DbGrant {
    user: String,
    host: String,
    /// The database name as granted (a LIKE pattern, as in MySQL).
    db: String,
    privs: PrivSet,
}

/// A `db.table` grant.
#[derive(Debug, Clone, PartialEq, Eq)]
struct TableGrant {
    user: String,
    host: String,
    db: String,
    table: String,
    privs: PrivSet,
}

/// Everything the file holds. Accounts are kept sorted for matching (`sort`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct State {
    accounts: Vec<Account>,
    dbs: Vec<DbGrant>,
    tables: Vec<TableGrant>,
}

impl State {
    fn account(&self, user: &str, host: &str) -> Option<&Account> {
        self.accounts.iter().find(|a| a.is(user, host))
    }

    fn account_mut(&mut self, user: &str, host: &str) -> Option<&mut Account> {
        self.accounts.iter_mut().find(|a| a.is(user, host))
    }

    fn sort(&mut self) {
        self.accounts
            .sort_by_key(|a| (host_rank(&a.host), a.user.is_empty()));
    }

    /// Drops every grant of `user@host`.
    fn remove_grants(&mut self, user: &str, host: &str) {
        let mine = |u: &str, h: &str| u == user && h.eq_ignore_ascii_case(host);
        self.dbs.retain(|g| !mine(&g.user, &g.host));
        self.tables.retain(|g| !mine(&g.user, &g.host));
    }

    fn privileges(&self, a: &Account) -> Privileges {
        let mine = |u: &str, h: &str| a.is(u, h);
        Privileges {
            user: a.user.clone(),
            host: a.host.clone(),
            global: a.global,
            dbs: self
                .dbs
                .iter()
                .filter(|g| mine(&g.user, &g.host))
                .map(|g| (g.db.clone(), g.privs))
                .collect(),
            tables: self
                .tables
                .iter()
                .filter(|g| mine(&g.user, &g.host))
                .map(|g| (g.db.clone(), g.table.clone(), g.privs))
                .collect(),
            has_password: !a.auth_string.is_empty(),
        }
    }

    /// The file's bytes (format at the top of this file).
    fn encode(&self) -> String {
        let mut out = String::from(HEADER_V2);
        out.push('\n');
        for a in &self.accounts {
            let l = &a.limits;
            out.push_str(&format!(
                "account\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                a.user,
                a.host,
                a.plugin,
                encode_hex(&a.auth_string),
                a.global,
                l.max_queries_per_hour,
                l.max_updates_per_hour,
                l.max_connections_per_hour,
                l.max_user_connections
            ));
        }
        for g in &self.dbs {
            out.push_str(&format!(
                "db\t{}\t{}\t{}\t{}\n",
                g.user,
                g.host,
                encode_hex(&g.db),
                g.privs
            ));
        }
        for g in &self.tables {
            out.push_str(&format!(
                "table\t{}\t{}\t{}\t{}\t{}\n",
                g.user,
                g.host,
                encode_hex(&g.db),
                encode_hex(&g.table),
                g.privs
            ));
        }
        out
    }

    /// Parses a version-1 or version-2 file; Err(line number) where it is corrupt.
    fn decode(text: &str) -> std::result::Result<State, usize> {
        let mut st = State::default();
        let mut lines = text.lines().enumerate().peekable();
        let v2 = lines.peek().is_some_and(|(_, l)| *l == HEADER_V2);
        if v2 {
            lines.next();
        }
        for (n, line) in lines {
            if line.is_empty() {
                continue;
            }
            let f: Vec<&str> = line.split('\t').collect();
            let ok = if v2 {
                st.decode_v2(&f)
            } else {
                st.decode_v1(&f)
            };
            if ok.is_none() {
                return Err(n + 1);
            }
        }
        st.sort();
        Ok(st)
    }

    fn decode_v1(&mut self, f: &[&str]) -> Option<()> {
        let [user, host, plugin, auth] = f else {
            return None;
        };
        self.accounts.push(Account {
            user: user.to_string(),
            host: host.to_string(),
            plugin: plugin.to_string(),
            auth_string: decode_hex(auth)?,
            // Version 1 had one administrator: every account named root.
            global: if *user == "root" {
                GLOBAL_ALL | GRANT_OPTION
            } else {
                0
            },
            limits: Limits::default(),
        });
        Some(())
    }

    fn decode_v2(&mut self, f: &[&str]) -> Option<()> {
        match f {
            ["account", user, host, plugin, auth, global, mq, mu, mc, muc] => {
                let n = |s: &str| s.parse::<u64>().ok();
                self.accounts.push(Account {
                    user: user.to_string(),
                    host: host.to_string(),
                    plugin: plugin.to_string(),
                    auth_string: decode_hex(auth)?,
                    global: privs(global)?,
                    limits: Limits {
                        max_queries_per_hour: n(mq)?,
                        max_updates_per_hour: n(mu)?,
                        max_connections_per_hour: n(mc)?,
                        max_user_connections: n(muc)?,
                    },
                });
            }
            ["db", user, host, db, set] => {
                self.account(user, host)?;
                self.dbs.push(DbGrant {
                    user: user.to_string(),
                    host: host.to_string(),
                    db: decode_hex(db)?,
                    privs: nonzero(privs(set)?)?,
                });
            }
            ["table", user, host, db, table, set] => {
                self.account(user, host)?;
                self.tables.push(TableGrant {
                    user: user.to_string(),
                    host: host.to_string(),
                    db: decode_hex(db)?,
                    table: decode_hex(table)?,
                    privs: nonzero(privs(set)?)?,
                });
            }
            _ => return None,
        }
        Some(())
    }
}

fn privs(s: &str) -> Option<PrivSet> {
    s.parse::<u32>().ok().filter(|p| p >> 31 == 0)
}

fn nonzero(p: PrivSet) -> Option<PrivSet> {
    (p != 0).then_some(p)
}

pub struct Accounts {
    path: PathBuf,
    state: RwLock<State>,
    /// Serializes changes (copy, write the file, publish).
    write_lock: Mutex<()>,
    /// Bumped after every published change (sessions' privilege caches compare it).
    generation: AtomicU64,
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

fn cannot_user(op: &str, who: &str) -> KilnError {
    KilnError::new(ErrorKind::ER_CANNOT_USER, &[&op, &who])
}

fn quoted(user: &str, host: &str) -> String {
    format!("'{user}'@'{host}'")
}

impl Accounts {
    fn with_state(path: PathBuf, state: State) -> Accounts {
        Accounts {
            path,
            state: RwLock::new(state),
            write_lock: Mutex::new(()),
            generation: AtomicU64::new(1),
            sha2_cache: Mutex::new(HashMap::new()),
        }
    }

    /// Loads the accounts file; a missing file is an error (the datadir is damaged).
    pub fn load(datadir: &Path) -> std::result::Result<Accounts, String> {
        let path = datadir.join("mysql").join("accounts");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read accounts file '{}': {e}", path.display()))?;
        let state = State::decode(&text)
            .map_err(|n| format!("accounts file '{}' is corrupt at line {n}", path.display()))?;
        Ok(Accounts::with_state(path, state))
    }

    /// Writes the initial accounts file: `root@localhost` with an empty password and
    /// ALL PRIVILEGES ON *.* WITH GRANT OPTION.
    pub fn initialize(datadir: &Path, root_plugin: &str) -> std::result::Result<(), String> {
        let state = State {
            accounts: vec![Account {
                user: "root".into(),
                host: "localhost".into(),
                plugin: root_plugin.into(),
                auth_string: String::new(),
                global: GLOBAL_ALL | GRANT_OPTION,
                limits: Limits::default(),
            }],
            ..State::default()
        };
        write_atomic(
            &datadir.join("mysql").join("accounts"),
            state.encode().as_bytes(),
        )
    }

    /// Applies `f` to a copy of the state, writes it, then publishes it. An error
    /// from `f` or from the write leaves everything as it was.
    fn update<T>(&self, f: impl FnOnce(&mut State) -> Result<T>) -> Result<T> {
        let _serial = self.write_lock.lock();
        let mut next = self.state.read().clone();
        let out = f(&mut next)?;
        next.sort();
        write_atomic(&self.path, next.encode().as_bytes()).map_err(KilnError::internal)?;
        *self.state.write() = next;
        self.generation.fetch_add(1, Ordering::Release);
        Ok(out)
    }

    /// Changes with every published change of accounts or grants.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// The account a client `user` connecting from `host` authenticates as.
    pub fn find(&self, user: &str, client_host: &str, client_ip: Option<&str>) -> Option<Account> {
        self.state
            .read()
            .accounts
            .iter()
            .find(|a| {
                (a.user.is_empty() || a.user == user)
                    && (host_matches(&a.host, client_host)
                        || client_ip.is_some_and(|ip| host_matches(&a.host, ip)))
            })
            .cloned()
    }

    pub fn exists(&self, user: &str, host: &str) -> bool {
        self.state.read().account(user, host).is_some()
    }

    /// The privileges of exactly the account `user@host`.
    pub fn privileges(&self, user: &str, host: &str) -> Option<Privileges> {
        let st = self.state.read();
        st.account(user, host).map(|a| st.privileges(a))
    }

    /// The resource limits of exactly the account `user@host`.
    pub fn limits(&self, user: &str, host: &str) -> Option<Limits> {
        self.state.read().account(user, host).map(|a| a.limits)
    }

    /// MAX_USER_CONNECTIONS of the account `user@host` (the matched account, as
    /// `Session::account` holds it): 0 = no limit (also for an unknown account). For the
    /// connection code to enforce at registration.
    pub fn max_user_connections(&self, user: &str, host: &str) -> u64 {
        self.limits(user, host)
            .map_or(0, |l| l.max_user_connections)
    }

    /// Whether `user@host` holds every privilege of `need` on `*.*`.
    pub fn has_global(&self, user: &str, host: &str, need: PrivSet) -> bool {
        self.state
            .read()
            .account(user, host)
            .is_some_and(|a| a.global & need == need)
    }

    pub fn create(
        &self,
        user: &str,
        host: &str,
        plugin: &str,
        password: &str,
        limits: &ResourceLimits,
    ) -> Result<()> {
        validate_name(user, host)?;
        let auth_string = hash_password(plugin, password)?;
        self.update(|st| {
            if st.account(user, host).is_some() {
                return Err(cannot_user("CREATE USER", &quoted(user, host)));
            }
            // Grants left by a crash-free DROP USER cannot exist; none are inherited.
            st.remove_grants(user, host);
            st.accounts.push(Account {
                user: user.into(),
                host: host.into(),
                plugin: plugin.into(),
                auth_string,
                global: 0,
                limits: Limits::default().with(limits),
            });
            Ok(())
        })
    }

    pub fn alter(
        &self,
        user: &str,
        host: &str,
        plugin: Option<&str>,
        password: Option<&str>,
        limits: &ResourceLimits,
    ) -> Result<()> {
        self.update(|st| {
            let Some(a) = st.account_mut(user, host) else {
                return Err(cannot_user("ALTER USER", &quoted(user, host)));
            };
            if let Some(p) = plugin {
                a.plugin = p.to_string();
            }
            if let Some(pw) = password {
                a.auth_string = hash_password(&a.plugin, pw)?;
            } else if plugin.is_some() {
                a.auth_string.clear();
            }
            a.limits = a.limits.with(limits);
            Ok(())
        })?;
        self.sha2_cache
            .lock()
            .remove(&(user.to_string(), host.to_string()));
        Ok(())
    }

    /// DROP USER: the account and every grant it holds.
    pub fn drop_account(&self, user: &str, host: &str) -> Result<()> {
        self.update(|st| {
            let before = st.accounts.len();
            st.accounts.retain(|a| !a.is(user, host));
            if st.accounts.len() == before {
                return Err(cannot_user("DROP USER", &quoted(user, host)));
            }
            st.remove_grants(user, host);
            Ok(())
        })?;
        self.sha2_cache
            .lock()
            .remove(&(user.to_string(), host.to_string()));
        Ok(())
    }

    /// RENAME USER: credentials, limits and grants move to the new names. The pairs
    /// apply in order; 1396 names every pair that failed (source missing or target
    /// taken), and then nothing changes.
    pub fn rename(&self, pairs: &[(UserSpec, UserSpec)]) -> Result<()> {
        for (_, to) in pairs {
            validate_name(&to.user, &to.host)?;
        }
        self.update(|st| {
            let mut failed = Vec::new();
            for (from, to) in pairs {
                if st.account(&from.user, &from.host).is_none()
                    || st.account(&to.user, &to.host).is_some()
                {
                    failed.push(quoted(&from.user, &from.host));
                    continue;
                }
                let moves = |u: &mut String, h: &mut String| {
                    if *u == from.user && h.eq_ignore_ascii_case(&from.host) {
                        *u = to.user.clone();
                        *h = to.host.clone();
                    }
                };
                for a in &mut st.accounts {
                    moves(&mut a.user, &mut a.host);
                }
                for g in &mut st.dbs {
                    moves(&mut g.user, &mut g.host);
                }
                for g in &mut st.tables {
                    moves(&mut g.user, &mut g.host);
                }
            }
            if failed.is_empty() {
                Ok(())
            } else {
                Err(cannot_user("RENAME USER", &failed.join(",")))
            }
        })?;
        self.sha2_cache.lock().clear();
        Ok(())
    }

    /// GRANT `privs` at `object` to every user; 1410 if one does not exist.
    pub fn grant(&self, users: &[UserSpec], object: &GrantObject, privs: PrivSet) -> Result<()> {
        self.update(|st| {
            for u in users {
                if st.account(&u.user, &u.host).is_none() {
                    return Err(KilnError::new(
                        ErrorKind::ER_CANT_CREATE_USER_WITH_GRANT,
                        &[],
                    ));
                }
                let host = st.account(&u.user, &u.host).expect("checked").host.clone();
                match object {
                    GrantObject::Global => {
                        st.account_mut(&u.user, &u.host).expect("checked").global |= privs;
                    }
                    GrantObject::Db(db) => {
                        match st
                            .dbs
                            .iter_mut()
                            .find(|g| g.user == u.user && g.host == host && g.db == *db)
                        {
                            Some(g) => g.privs |= privs,
                            None if privs != 0 => st.dbs.push(DbGrant {
                                user: u.user.clone(),
                                host,
                                db: db.clone(),
                                privs,
                            }),
                            None => {}
                        }
                    }
                    GrantObject::Table(db, table) => {
                        match st.tables.iter_mut().find(|g| {
                            g.user == u.user && g.host == host && g.db == *db && g.table == *table
                        }) {
                            Some(g) => g.privs |= privs,
                            None if privs != 0 => st.tables.push(TableGrant {
                                user: u.user.clone(),
                                host,
                                db: db.clone(),
                                table: table.clone(),
                                privs,
                            }),
                            None => {}
                        }
                    }
                }
            }
            Ok(())
        })
    }

    /// REVOKE `privs` at `object` from every user: 1141 (no such account, or no grant
    /// on that database) / 1147 (no grant on that table), and then nothing changes.
    pub fn revoke(&self, users: &[UserSpec], object: &GrantObject, privs: PrivSet) -> Result<()> {
        self.update(|st| {
            for u in users {
                let no_grant = || match object {
                    GrantObject::Table(_, t) => KilnError::new(
                        ErrorKind::ER_NONEXISTING_TABLE_GRANT,
                        &[&u.user, &u.host, t],
                    ),
                    _ => KilnError::new(ErrorKind::ER_NONEXISTING_GRANT, &[&u.user, &u.host]),
                };
                let Some(a) = st.account_mut(&u.user, &u.host) else {
                    return Err(no_grant());
                };
                let host = a.host.clone();
                match object {
                    GrantObject::Global => a.global &= !privs,
                    GrantObject::Db(db) => {
                        let g = st
                            .dbs
                            .iter_mut()
                            .find(|g| g.user == u.user && g.host == host && g.db == *db)
                            .ok_or_else(no_grant)?;
                        g.privs &= !privs;
                        st.dbs.retain(|g| g.privs != 0);
                    }
                    GrantObject::Table(db, table) => {
                        let g = st
                            .tables
                            .iter_mut()
                            .find(|g| {
                                g.user == u.user
                                    && g.host == host
                                    && g.db == *db
                                    && g.table == *table
                            })
                            .ok_or_else(no_grant)?;
                        g.privs &= !privs;
                        st.tables.retain(|g| g.privs != 0);
                    }
                }
            }
            Ok(())
        })
    }

    /// REVOKE ALL PRIVILEGES, GRANT OPTION: every grant of every user; 1269 when one
    /// of them does not exist (and then nothing changes).
    pub fn revoke_all(&self, users: &[UserSpec]) -> Result<()> {
        self.update(|st| {
            for u in users {
                let Some(a) = st.account_mut(&u.user, &u.host) else {
                    return Err(ErrorKind::ER_REVOKE_GRANTS.into());
                };
                a.global = 0;
                st.remove_grants(&u.user, &u.host);
            }
            Ok(())
        })
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

fn validate_name(user: &str, host: &str) -> Result<()> {
    let too_long = |what: &str, s: &str, max: usize| {
        let mut e = KilnError::with_message(
            ErrorKind::ER_WRONG_ARGUMENTS,
            format!("String '{s}' is too long for {what} (should be no longer than {max})"),
        );
        e.code = 1470;
        e.sqlstate = *b"HY000";
        e
    };
    if user.len() > kiln_common::limits::USER_NAME_LEN_MAX {
        return Err(too_long("user name", user, 32));
    }
    if host.len() > 255 {
        return Err(too_long("host name", host, 255));
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
        .map(|i| u8::from_str_radix(h.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_sql::privilege::{DB_ALL, INSERT, SELECT, UPDATE};

    fn temp_datadir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("kiln-accounts-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("mysql")).unwrap();
        d
    }

    fn u(user: &str, host: &str) -> UserSpec {
        UserSpec {
            user: user.into(),
            host: host.into(),
        }
    }

    const NO_LIMITS: ResourceLimits = ResourceLimits {
        max_queries_per_hour: None,
        max_updates_per_hour: None,
        max_connections_per_hour: None,
        max_user_connections: None,
    };

    #[test]
    fn host_specificity_and_persistence() {
        let d = temp_datadir("hosts");
        Accounts::initialize(&d, CACHING_SHA2).unwrap();
        let a = Accounts::load(&d).unwrap();
        a.create("bob", "%", NATIVE, "pw", &NO_LIMITS).unwrap();
        a.create("bob", "localhost", CACHING_SHA2, "pw2", &NO_LIMITS)
            .unwrap();
        assert_eq!(
            a.find("bob", "localhost", Some("127.0.0.1")).unwrap().host,
            "localhost"
        );
        assert_eq!(a.find("bob", "10.0.0.1", None).unwrap().host, "%");
        assert!(a.find("alice", "localhost", None).is_none());
        assert_eq!(
            a.create("bob", "%", NATIVE, "x", &NO_LIMITS)
                .unwrap_err()
                .code,
            1396
        );
        let b = Accounts::load(&d).unwrap();
        assert_eq!(b.find("bob", "x", None).unwrap().plugin, NATIVE);
        b.drop_account("bob", "%").unwrap();
        assert!(Accounts::load(&d).unwrap().find("bob", "x", None).is_none());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn initialized_root_has_all_privileges() {
        let d = temp_datadir("root");
        Accounts::initialize(&d, NATIVE).unwrap();
        let text = std::fs::read_to_string(d.join("mysql/accounts")).unwrap();
        assert_eq!(
            text,
            format!(
                "kiln-accounts\t2\naccount\troot\tlocalhost\t{NATIVE}\t\t{}\t0\t0\t0\t0\n",
                GLOBAL_ALL | GRANT_OPTION
            )
        );
        let a = Accounts::load(&d).unwrap();
        assert_eq!(
            a.privileges("root", "localhost").unwrap().global,
            GLOBAL_ALL | GRANT_OPTION
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn version_1_file_loads_with_root_as_administrator() {
        let d = temp_datadir("v1");
        std::fs::write(
            d.join("mysql/accounts"),
            format!(
                "root\tlocalhost\t{CACHING_SHA2}\t\nbob\t%\t{NATIVE}\t{}\n",
                encode_hex("*AB")
            ),
        )
        .unwrap();
        let a = Accounts::load(&d).unwrap();
        assert_eq!(
            a.privileges("root", "localhost").unwrap().global,
            GLOBAL_ALL | GRANT_OPTION
        );
        let bob = a.privileges("bob", "%").unwrap();
        assert_eq!((bob.global, bob.dbs.len(), bob.tables.len()), (0, 0, 0));
        assert_eq!(a.find("bob", "h", None).unwrap().auth_string, "*AB");
        // The next change writes version 2, which loads the same.
        a.grant(&[u("bob", "%")], &GrantObject::Db("x".into()), SELECT)
            .unwrap();
        let text = std::fs::read_to_string(d.join("mysql/accounts")).unwrap();
        assert!(text.starts_with("kiln-accounts\t2\n"));
        let b = Accounts::load(&d).unwrap();
        assert_eq!(
            b.privileges("bob", "%").unwrap().dbs,
            vec![("x".into(), SELECT)]
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn grants_round_trip_and_follow_the_account() {
        let d = temp_datadir("grants");
        Accounts::initialize(&d, NATIVE).unwrap();
        let a = Accounts::load(&d).unwrap();
        let limits = ResourceLimits {
            max_user_connections: Some(3),
            max_queries_per_hour: Some(100),
            ..NO_LIMITS
        };
        a.create("u", "%", NATIVE, "pw", &limits).unwrap();
        let g0 = a.generation();
        let odd_db = "we\tird\n`db";
        a.grant(&[u("u", "%")], &GrantObject::Global, UPDATE)
            .unwrap();
        a.grant(
            &[u("u", "%")],
            &GrantObject::Db(odd_db.into()),
            DB_ALL | GRANT_OPTION,
        )
        .unwrap();
        a.grant(
            &[u("u", "%")],
            &GrantObject::Table("shop".into(), "t é".into()),
            SELECT | INSERT,
        )
        .unwrap();
        assert!(a.generation() > g0);
        assert_eq!(
            a.grant(&[u("nobody", "%")], &GrantObject::Global, SELECT)
                .unwrap_err()
                .code,
            1410
        );
        let b = Accounts::load(&d).unwrap();
        let p = b.privileges("u", "%").unwrap();
        assert_eq!(p.global, UPDATE);
        assert_eq!(p.dbs, vec![(odd_db.to_string(), DB_ALL | GRANT_OPTION)]);
        assert_eq!(
            p.tables,
            vec![("shop".to_string(), "t é".to_string(), SELECT | INSERT)]
        );
        assert!(p.has_password);
        assert_eq!(b.max_user_connections("u", "%"), 3);
        assert_eq!(b.limits("u", "%").unwrap().max_queries_per_hour, 100);
        assert_eq!(b.max_user_connections("root", "localhost"), 0);
        // ALTER USER changes only the limits it names.
        b.alter(
            "u",
            "%",
            None,
            None,
            &ResourceLimits {
                max_user_connections: Some(7),
                ..NO_LIMITS
            },
        )
        .unwrap();
        assert_eq!(b.limits("u", "%").unwrap().max_queries_per_hour, 100);
        assert_eq!(b.max_user_connections("u", "%"), 7);

        // REVOKE: partial, then to nothing (the record goes); missing grants are errors.
        let t = GrantObject::Table("shop".into(), "t é".into());
        b.revoke(&[u("u", "%")], &t, INSERT).unwrap();
        b.revoke(&[u("u", "%")], &t, SELECT).unwrap();
        assert_eq!(b.revoke(&[u("u", "%")], &t, SELECT).unwrap_err().code, 1147);
        assert_eq!(
            b.revoke(&[u("u", "%")], &GrantObject::Db("zz".into()), SELECT)
                .unwrap_err()
                .code,
            1141
        );
        // RENAME moves the grants; DROP removes them with the account.
        b.rename(&[(u("u", "%"), u("v", "h"))]).unwrap();
        let c = Accounts::load(&d).unwrap();
        assert!(c.privileges("u", "%").is_none());
        assert_eq!(c.privileges("v", "h").unwrap().dbs.len(), 1);
        assert_eq!(
            c.rename(&[(u("nope", "%"), u("w", "%"))])
                .unwrap_err()
                .message,
            "Operation RENAME USER failed for 'nope'@'%'"
        );
        c.drop_account("v", "h").unwrap();
        c.create("v", "h", NATIVE, "", &NO_LIMITS).unwrap();
        let p = Accounts::load(&d).unwrap().privileges("v", "h").unwrap();
        assert_eq!((p.global, p.dbs.len(), p.tables.len()), (0, 0, 0));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn corrupt_files_are_refused() {
        let d = temp_datadir("corrupt");
        for bad in [
            "kiln-accounts\t2\naccount\troot\tlocalhost\tp\t\t1\t0\t0\t0\n",
            "kiln-accounts\t2\ndb\tghost\t%\t78\t1\n",
            "kiln-accounts\t2\naccount\tr\th\tp\t\t1\t0\t0\t0\t0\ndb\tr\th\t78\t0\n",
            "kiln-accounts\t2\naccount\tr\th\tp\t\t4294967295\t0\t0\t0\t0\n",
            "kiln-accounts\t2\nrole\tr\n",
            "root\tlocalhost\tp\tzz\n",
        ] {
            std::fs::write(d.join("mysql/accounts"), bad).unwrap();
            let e = Accounts::load(&d).err().expect(bad);
            assert!(e.contains("is corrupt at line"), "{e}");
        }
        std::fs::remove_dir_all(&d).unwrap();
    }
}
