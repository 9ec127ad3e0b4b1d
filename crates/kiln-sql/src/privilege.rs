//! Privileges: MySQL 8.0's static privileges as bits of a `u32`, the levels each may
//! be granted at, and a session's effective privileges (`Privileges`).
//!
//! Bit numbers are MySQL's `*_ACL` order (`sql/auth/auth_acls.h`), which is also the
//! order SHOW GRANTS lists privileges in. GRANT OPTION is bit 10 (`GRANT_ACL`), kept
//! in the same set as the others. The set is persisted by kiln-server as a number, so
//! a bit's meaning never changes.
//!
//! Levels (MySQL's `DB_ACLS` and `TABLE_ACLS`): a privilege outside the level's set is
//! error 1221 (db level) or 1144 (table level) at GRANT. Effective privileges on a
//! table are global | database | table (MySQL ORs the levels the same way).
//!
//! Database-level grants follow MySQL: the name is a LIKE pattern (`_` and `%` are
//! wildcards, `\_` a literal underscore), compared case-sensitively
//! (lower_case_table_names = 0).

/// A set of privileges (bits below).
pub type PrivSet = u32;

pub const SELECT: PrivSet = 1 << 0;
pub const INSERT: PrivSet = 1 << 1;
pub const UPDATE: PrivSet = 1 << 2;
pub const DELETE: PrivSet = 1 << 3;
pub const CREATE: PrivSet = 1 << 4;
pub const DROP: PrivSet = 1 << 5;
pub const RELOAD: PrivSet = 1 << 6;
pub const SHUTDOWN: PrivSet = 1 << 7;
pub const PROCESS: PrivSet = 1 << 8;
pub const FILE: PrivSet = 1 << 9;
pub const GRANT_OPTION: PrivSet = 1 << 10;
pub const REFERENCES: PrivSet = 1 << 11;
pub const INDEX: PrivSet = 1 << 12;
pub const ALTER: PrivSet = 1 << 13;
pub const SHOW_DATABASES: PrivSet = 1 << 14;
pub const SUPER: PrivSet = 1 << 15;
pub const CREATE_TEMPORARY_TABLES: PrivSet = 1 << 16;
pub const LOCK_TABLES: PrivSet = 1 << 17;
pub const EXECUTE: PrivSet = 1 << 18;
pub const REPLICATION_SLAVE: PrivSet = 1 << 19;
pub const REPLICATION_CLIENT: PrivSet = 1 << 20;
pub const CREATE_VIEW: PrivSet = 1 << 21;
pub const SHOW_VIEW: PrivSet = 1 << 22;
pub const CREATE_ROUTINE: PrivSet = 1 << 23;
pub const ALTER_ROUTINE: PrivSet = 1 << 24;
pub const CREATE_USER: PrivSet = 1 << 25;
pub const EVENT: PrivSet = 1 << 26;
pub const TRIGGER: PrivSet = 1 << 27;
pub const CREATE_TABLESPACE: PrivSet = 1 << 28;
pub const CREATE_ROLE: PrivSet = 1 << 29;
pub const DROP_ROLE: PrivSet = 1 << 30;

/// Every static privilege except GRANT OPTION: what `ALL` means at `*.*`.
pub const GLOBAL_ALL: PrivSet = ((1u32 << 31) - 1) & !GRANT_OPTION;
/// What `ALL` means at `db.table` (MySQL's TABLE_ACLS without GRANT).
pub const TABLE_ALL: PrivSet = SELECT
    | INSERT
    | UPDATE
    | DELETE
    | CREATE
    | DROP
    | REFERENCES
    | INDEX
    | ALTER
    | CREATE_VIEW
    | SHOW_VIEW
    | TRIGGER;
/// What `ALL` means at `db.*` (MySQL's DB_ACLS without GRANT): the table set and the
/// database-wide privileges.
pub const DB_ALL: PrivSet = TABLE_ALL
    | CREATE_TEMPORARY_TABLES
    | LOCK_TABLES
    | EXECUTE
    | CREATE_ROUTINE
    | ALTER_ROUTINE
    | EVENT;

/// Names in bit order, as GRANT accepts them and SHOW GRANTS prints them.
pub const NAMES: [&str; 31] = [
    "SELECT",
    "INSERT",
    "UPDATE",
    "DELETE",
    "CREATE",
    "DROP",
    "RELOAD",
    "SHUTDOWN",
    "PROCESS",
    "FILE",
    "GRANT OPTION",
    "REFERENCES",
    "INDEX",
    "ALTER",
    "SHOW DATABASES",
    "SUPER",
    "CREATE TEMPORARY TABLES",
    "LOCK TABLES",
    "EXECUTE",
    "REPLICATION SLAVE",
    "REPLICATION CLIENT",
    "CREATE VIEW",
    "SHOW VIEW",
    "CREATE ROUTINE",
    "ALTER ROUTINE",
    "CREATE USER",
    "EVENT",
    "TRIGGER",
    "CREATE TABLESPACE",
    "CREATE ROLE",
    "DROP ROLE",
];

/// The privilege a (space-normalized, upper-case) name denotes.
pub fn from_name(name: &str) -> Option<PrivSet> {
    let name = match name {
        "REPLICATION REPLICA" => "REPLICATION SLAVE",
        n => n,
    };
    NAMES.iter().position(|n| *n == name).map(|i| 1u32 << i)
}

/// The name of one privilege bit (for error messages).
pub fn name(bit: PrivSet) -> &'static str {
    debug_assert_eq!(bit.count_ones(), 1);
    NAMES[bit.trailing_zeros() as usize]
}

/// The privilege list of a SHOW GRANTS line (GRANT OPTION is not part of it: it is
/// written as `WITH GRANT OPTION`). `all` is the level's ALL set: a set covering it is
/// `ALL PRIVILEGES` at the database and table levels, while MySQL 8.0 lists global
/// privileges one by one.
pub fn list_text(set: PrivSet, all: PrivSet) -> String {
    let set = set & !GRANT_OPTION;
    if set == 0 {
        return "USAGE".into();
    }
    if all != GLOBAL_ALL && set & all == all {
        return "ALL PRIVILEGES".into();
    }
    let mut out = String::new();
    for (i, n) in NAMES.iter().enumerate() {
        if set & (1 << i) != 0 {
            if !out.is_empty() {
                out.push_str(", ");
            }
            out.push_str(n);
        }
    }
    out
}

/// Whether database `db` matches the database part of a grant (a LIKE pattern).
pub fn db_matches(pattern: &str, db: &str) -> bool {
    if !pattern.contains(['%', '_', '\\']) {
        return pattern == db;
    }
    crate::eval::like_match(db, pattern, '\\', false)
}

/// Where a GRANT/REVOKE applies, with the current database filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GrantObject {
    Global,
    Db(String),
    Table(String, String),
}

impl GrantObject {
    /// What `ALL [PRIVILEGES]` means here, and the privileges this level accepts.
    pub fn all(&self) -> PrivSet {
        match self {
            GrantObject::Global => GLOBAL_ALL,
            GrantObject::Db(_) => DB_ALL,
            GrantObject::Table(..) => TABLE_ALL,
        }
    }
}

/// An account's effective privileges, as a session caches them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Privileges {
    /// The account (user, host pattern) these are for.
    pub user: String,
    pub host: String,
    /// `*.*`
    pub global: PrivSet,
    /// `db.*`: (database name pattern, privileges).
    pub dbs: Vec<(String, PrivSet)>,
    /// `db.table`: (database, table, privileges).
    pub tables: Vec<(String, String, PrivSet)>,
    /// The account has a password (error 1045 says "using password: YES").
    pub has_password: bool,
}

impl Privileges {
    /// Every privilege everywhere: sessions of servers without accounts (tests, tools).
    pub fn all() -> Privileges {
        Privileges {
            global: GLOBAL_ALL | GRANT_OPTION,
            ..Privileges::default()
        }
    }

    /// Whether every privilege of `need` is held globally.
    #[inline]
    pub fn global_has(&self, need: PrivSet) -> bool {
        self.global & need == need
    }

    /// Privileges on database `db` (global | database level).
    pub fn on_db(&self, db: &str) -> PrivSet {
        let mut p = self.global;
        for (pat, set) in &self.dbs {
            if db_matches(pat, db) {
                p |= set;
            }
        }
        p
    }

    /// Privileges on table `db.table` (global | database | table level).
    pub fn on_table(&self, db: &str, table: &str) -> PrivSet {
        let mut p = self.on_db(db);
        for (d, t, set) in &self.tables {
            if d == db && t == table {
                p |= set;
            }
        }
        p
    }

    /// Whether the account holds `need` on `db.table`; the global test first, which
    /// settles it without a lookup for accounts with global privileges.
    #[inline]
    pub fn table_has(&self, db: &str, table: &str, need: PrivSet) -> bool {
        self.global_has(need) || self.on_table(db, table) & need == need
    }

    /// Whether the account may see database `db` (USE, SHOW DATABASES): some
    /// database-level privilege on it (global ones count), or any table privilege in it.
    /// information_schema and performance_schema are open to everyone, as in MySQL 8.0.
    pub fn sees_db(&self, db: &str) -> bool {
        if db.eq_ignore_ascii_case("information_schema")
            || db.eq_ignore_ascii_case("performance_schema")
        {
            return true;
        }
        self.on_db(db) & (DB_ALL | GRANT_OPTION) != 0
            || self.tables.iter().any(|(d, _, s)| d == db && *s != 0)
    }

    /// Whether the account may see table `db.table` (SHOW TABLES, SHOW COLUMNS): any
    /// privilege on it.
    pub fn sees_table(&self, db: &str, table: &str) -> bool {
        self.on_table(db, table) & (TABLE_ALL | GRANT_OPTION) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_bit_order() {
        for (i, n) in NAMES.iter().enumerate() {
            assert_eq!(from_name(n), Some(1 << i));
            assert_eq!(name(1 << i), *n);
        }
        assert_eq!(from_name("REPLICATION REPLICA"), Some(REPLICATION_SLAVE));
        assert_eq!(from_name("BOGUS"), None);
    }

    #[test]
    fn list_text_forms() {
        assert_eq!(list_text(0, DB_ALL), "USAGE");
        assert_eq!(list_text(GRANT_OPTION, DB_ALL), "USAGE");
        assert_eq!(list_text(INSERT | SELECT, DB_ALL), "SELECT, INSERT");
        assert_eq!(list_text(DB_ALL, DB_ALL), "ALL PRIVILEGES");
        assert_eq!(list_text(TABLE_ALL, TABLE_ALL), "ALL PRIVILEGES");
        let g = list_text(GLOBAL_ALL, GLOBAL_ALL);
        assert!(g.starts_with("SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, RELOAD"));
        assert!(g.ends_with("CREATE TABLESPACE, CREATE ROLE, DROP ROLE"));
        assert!(!g.contains("GRANT OPTION"));
    }

    #[test]
    fn levels_combine() {
        let p = Privileges {
            global: PROCESS,
            dbs: vec![("shop".into(), SELECT), ("my\\_%".into(), INSERT)],
            tables: vec![("other".into(), "t".into(), UPDATE)],
            ..Privileges::default()
        };
        assert_eq!(p.on_db("shop"), PROCESS | SELECT);
        assert!(p.table_has("shop", "x", SELECT));
        assert!(!p.table_has("shop", "x", INSERT));
        assert!(p.table_has("my_db", "x", INSERT));
        assert!(!p.table_has("myxdb", "x", INSERT));
        assert!(p.table_has("other", "t", UPDATE));
        assert!(!p.table_has("other", "u", UPDATE));
        assert!(p.sees_db("other") && p.sees_db("shop") && !p.sees_db("nope"));
        assert!(p.sees_db("information_schema"));
        assert!(p.sees_table("other", "t") && !p.sees_table("other", "u"));
        assert!(Privileges::all().table_has("a", "b", GLOBAL_ALL));
    }
}
