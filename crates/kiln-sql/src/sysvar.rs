//! The system-variable registry: every `@@variable` kiln has, its type, scope,
//! default, range and whether it can change at run time — and the checks MySQL 8.0
//! applies when one is set, from SQL (`SET`) or from an option (`--name=value`).
//!
//! The table is data; the values live in the server (`kiln-server/src/vars.rs`),
//! which keeps the global values and hands each session its own copy.
//!
//! MySQL's rules, as implemented here:
//! - unknown name → 1193; SESSION of a GLOBAL-only variable → 1229 on SET and 1238
//!   on read; GLOBAL of a SESSION-only variable → 1228 on SET and 1238 on read;
//!   a read-only variable → 1238 "is a read only variable";
//! - integers out of range are clamped with warning 1292 ("Truncated incorrect …")
//!   and rounded down to the block size; a string or a fraction for an integer → 1232;
//! - booleans take ON/OFF/TRUE/FALSE/1/0, enums a name or an index, sets a comma list
//!   or a bitmask; anything else → 1231 naming the value;
//! - charsets → 1115, collations → 1273; setting one of a charset/collation pair
//!   also sets the other;
//! - `SET x = DEFAULT`: the compiled default for GLOBAL, the global value for SESSION.

use kiln_common::{ErrorKind, KilnError, Result};

use crate::charset;
use crate::eval::Level;
use crate::session::Diagnostic;
use crate::value::Value;

/// Where a variable exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Global,
    Session,
    Both,
}

/// What values a variable takes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Type {
    Bool,
    /// Unsigned integer; values are rounded down to a multiple of `block`.
    UInt {
        min: u64,
        max: u64,
        block: u64,
    },
    Int {
        min: i64,
        max: i64,
    },
    Float {
        min: f64,
        max: f64,
    },
    Str,
    Enum(&'static [&'static str]),
    Set(&'static [&'static str]),
    Charset,
    Collation,
}

/// Flags.
pub const READ_ONLY: u8 = 1;
/// Not settable as a command-line/config option (only from SQL, or set by the server).
pub const NOT_OPTION: u8 = 2;
/// May be NULL (character_set_results, init_connect-like strings).
pub const NULLABLE: u8 = 4;

#[derive(Debug)]
pub struct SysVar {
    pub name: &'static str,
    pub scope: Scope,
    pub ty: Type,
    pub default: &'static str,
    pub flags: u8,
    pub help: &'static str,
}

impl SysVar {
    pub fn read_only(&self) -> bool {
        self.flags & READ_ONLY != 0
    }
    pub fn is_option(&self) -> bool {
        self.flags & NOT_OPTION == 0
    }
    pub fn has_session(&self) -> bool {
        self.scope != Scope::Global
    }
    pub fn has_global(&self) -> bool {
        self.scope != Scope::Session
    }
}

const fn v(
    name: &'static str,
    scope: Scope,
    ty: Type,
    default: &'static str,
    flags: u8,
    help: &'static str,
) -> SysVar {
    SysVar {
        name,
        scope,
        ty,
        default,
        flags,
        help,
    }
}

const fn u(min: u64, max: u64) -> Type {
    Type::UInt { min, max, block: 1 }
}

use Scope::{Both, Global, Session};
use Type::{Bool, Charset, Collation, Str};

const U32_MAX: u64 = u32::MAX as u64;
const U64_MAX: u64 = u64::MAX;

pub const SQL_MODES: &[&str] = &[
    "REAL_AS_FLOAT",
    "PIPES_AS_CONCAT",
    "ANSI_QUOTES",
    "IGNORE_SPACE",
    "NOT_USED",
    "ONLY_FULL_GROUP_BY",
    "NO_UNSIGNED_SUBTRACTION",
    "NO_DIR_IN_CREATE",
    "NOT_USED_9",
    "NOT_USED_10",
    "NOT_USED_11",
    "NOT_USED_12",
    "NOT_USED_13",
    "NOT_USED_14",
    "NOT_USED_15",
    "NOT_USED_16",
    "NOT_USED_17",
    "NOT_USED_18",
    "ANSI",
    "NO_AUTO_VALUE_ON_ZERO",
    "NO_BACKSLASH_ESCAPES",
    "STRICT_TRANS_TABLES",
    "STRICT_ALL_TABLES",
    "NO_ZERO_IN_DATE",
    "NO_ZERO_DATE",
    "ALLOW_INVALID_DATES",
    "ERROR_FOR_DIVISION_BY_ZERO",
    "TRADITIONAL",
    "NOT_USED_29",
    "HIGH_NOT_PRECEDENCE",
    "NO_ENGINE_SUBSTITUTION",
    "PAD_CHAR_TO_FULL_LENGTH",
    "TIME_TRUNCATE_FRACTIONAL",
];

/// Combination modes and what they stand for (MySQL 8.0).
const SQL_MODE_COMBINATIONS: &[(&str, &[&str])] = &[
    (
        "ANSI",
        &[
            "REAL_AS_FLOAT",
            "PIPES_AS_CONCAT",
            "ANSI_QUOTES",
            "IGNORE_SPACE",
            "ONLY_FULL_GROUP_BY",
        ],
    ),
    (
        "TRADITIONAL",
        &[
            "STRICT_TRANS_TABLES",
            "STRICT_ALL_TABLES",
            "NO_ZERO_IN_DATE",
            "NO_ZERO_DATE",
            "ERROR_FOR_DIVISION_BY_ZERO",
            "NO_ENGINE_SUBSTITUTION",
        ],
    ),
];

const ISOLATION_LEVELS: &[&str] = &[
    "READ-UNCOMMITTED",
    "READ-COMMITTED",
    "REPEATABLE-READ",
    "SERIALIZABLE",
];
const AUTH_PLUGINS: &[&str] = &["mysql_native_password", "caching_sha2_password"];
const TRACK_TX_INFO: &[&str] = &["OFF", "STATE", "CHARACTERISTICS"];
const FLUSH_METHODS: &[&str] = &[
    "fsync",
    "O_DSYNC",
    "littlesync",
    "nosync",
    "O_DIRECT",
    "O_DIRECT_NO_FSYNC",
];
const SSL_FIPS: &[&str] = &["OFF", "ON", "STRICT"];

/// The registry, sorted by name (checked by a test; lookups are binary searches).
#[rustfmt::skip]
pub static VARS: &[SysVar] = &[
    v("auto_increment_increment", Both, u(1, 65535), "1", 0, "Auto-increment columns are incremented by this"),
    v("auto_increment_offset", Both, u(1, 65535), "1", 0, "Offset added to auto-increment columns"),
    v("autocommit", Both, Bool, "ON", 0, "Commit each statement on its own unless a transaction is started"),
    v("automatic_sp_privileges", Global, Bool, "ON", 0, "The creator of a stored routine may execute, alter and drop it"),
    v("back_log", Global, u(1, 65535), "151", READ_ONLY, "Outstanding connection requests the listener queues"),
    v("basedir", Global, Str, "", READ_ONLY, "Path to the installation directory"),
    v("big_tables", Both, Bool, "OFF", 0, "Store all temporary tables on disk"),
    v("bind_address", Global, Str, "127.0.0.1", READ_ONLY, "IP address to listen on for TCP connections"),
    v("block_encryption_mode", Both, Str, "aes-128-ecb", 0, "Block encryption mode for AES_ENCRYPT()"),
    v("bulk_insert_buffer_size", Both, u(0, U64_MAX), "8388608", 0, "Cache size for bulk inserts"),
    v("character_set_client", Both, Charset, "utf8mb4", NOT_OPTION, "Character set of statements from the client"),
    v("character_set_connection", Both, Charset, "utf8mb4", NOT_OPTION, "Character set of literals without an introducer"),
    v("character_set_database", Both, Charset, "utf8mb4", NOT_OPTION, "Character set of the default database"),
    v("character_set_filesystem", Both, Charset, "binary", 0, "Character set of file names"),
    v("character_set_results", Both, Charset, "utf8mb4", NOT_OPTION | NULLABLE, "Character set of results sent to the client"),
    v("character_set_server", Both, Charset, "utf8mb4", 0, "Default character set of the server"),
    v("character_set_system", Global, Charset, "utf8mb3", READ_ONLY | NOT_OPTION, "Character set of identifiers"),
    v("collation_connection", Both, Collation, "utf8mb4_0900_ai_ci", NOT_OPTION, "Collation of the connection character set"),
    v("collation_database", Both, Collation, "utf8mb4_0900_ai_ci", NOT_OPTION, "Collation of the default database"),
    v("collation_server", Both, Collation, "utf8mb4_0900_ai_ci", 0, "Default collation of the server"),
    v("completion_type", Both, Type::Enum(&["NO_CHAIN", "CHAIN", "RELEASE"]), "NO_CHAIN", 0, "What COMMIT and ROLLBACK do after ending the transaction"),
    v("connect_timeout", Global, u(2, 31536000), "10", 0, "Seconds to wait for a client's handshake"),
    v("core_file", Global, Bool, "OFF", READ_ONLY, "Write a core file on crashes"),
    v("datadir", Global, Str, "./kiln-data", READ_ONLY, "Path to the data directory"),
    v("default_authentication_plugin", Global, Type::Enum(AUTH_PLUGINS), "caching_sha2_password", READ_ONLY, "Authentication plugin of new accounts"),
    v("default_collation_for_utf8mb4", Both, Collation, "utf8mb4_0900_ai_ci", NOT_OPTION, "Default collation of utf8mb4"),
    v("default_password_lifetime", Global, u(0, 65535), "0", 0, "Days before passwords expire (0: never)"),
    v("default_storage_engine", Both, Str, "InnoDB", 0, "Storage engine of new tables"),
    v("default_tmp_storage_engine", Both, Str, "InnoDB", 0, "Storage engine of CREATE TEMPORARY TABLE"),
    v("default_week_format", Both, u(0, 7), "0", 0, "Default mode of WEEK()"),
    v("disconnect_on_expired_password", Global, Bool, "ON", READ_ONLY, "Disconnect clients whose password expired"),
    v("div_precision_increment", Both, u(0, 30), "4", 0, "Digits added to the scale of a division result"),
    v("end_markers_in_json", Both, Bool, "OFF", 0, "Repeat the opening key at JSON closing brackets in EXPLAIN"),
    v("eq_range_index_dive_limit", Both, u(0, U32_MAX), "200", 0, "Equality ranges above which index statistics replace index dives"),
    v("explicit_defaults_for_timestamp", Both, Bool, "ON", 0, "Standard TIMESTAMP defaults and NULL handling"),
    v("extra_max_connections", Global, u(1, 100000), "1", 0, "Connections allowed on extra_port"),
    v("extra_port", Global, u(0, 65535), "0", READ_ONLY, "Admin TCP port whose connections always get a dedicated thread (0: off)"),
    v("foreign_key_checks", Both, Bool, "ON", 0, "Check foreign key constraints"),
    v("group_concat_max_len", Both, u(4, U64_MAX), "1024", 0, "Maximum result length of GROUP_CONCAT()"),
    v("gtid_mode", Global, Type::Enum(&["OFF", "OFF_PERMISSIVE", "ON_PERMISSIVE", "ON"]), "OFF", READ_ONLY, "Global transaction identifiers (not supported: OFF)"),
    v("handlersocket_accept_balance", Global, u(0, 10000), "0", READ_ONLY, "Accepted for compatibility (kiln's workers share the listener without it)"),
    v("handlersocket_address", Global, Str, "", READ_ONLY, "IP address the HandlerSocket ports listen on (empty: all)"),
    v("handlersocket_backlog", Global, u(1, 65535), "32768", READ_ONLY, "Listen backlog of the HandlerSocket ports"),
    v("handlersocket_epoll", Global, u(0, 1), "1", READ_ONLY, "Accepted for compatibility (kiln always uses epoll)"),
    v("handlersocket_max_indexid", Global, u(0, 1048576), "1000", READ_ONLY, "Largest indexid a HandlerSocket connection may open"),
    v("handlersocket_max_line", Global, u(64, 1073741824), "1048576", READ_ONLY, "Longest HandlerSocket request line in bytes; a longer one gets an error and the connection closes"),
    v("handlersocket_plain_secret", Global, Str, "", READ_ONLY, "Secret of the read-only HandlerSocket port (empty: no auth)"),
    v("handlersocket_plain_secret_wr", Global, Str, "", READ_ONLY, "Secret of the read-write HandlerSocket port (empty: no auth)"),
    v("handlersocket_port", Global, u(0, 65535), "0", READ_ONLY, "Read-only HandlerSocket port (0: off)"),
    v("handlersocket_port_wr", Global, u(0, 65535), "0", READ_ONLY, "Read-write HandlerSocket port (0: off)"),
    v("handlersocket_rcvbuf", Global, u(0, 1073741824), "0", READ_ONLY, "Accepted for compatibility (no effect)"),
    v("handlersocket_readsize", Global, u(0, 1073741824), "0", READ_ONLY, "Accepted for compatibility (no effect)"),
    v("handlersocket_sndbuf", Global, u(0, 1073741824), "0", READ_ONLY, "Accepted for compatibility (no effect)"),
    v("handlersocket_threads", Global, u(1, 1024), "16", READ_ONLY, "Worker threads of the read-only HandlerSocket port"),
    v("handlersocket_threads_wr", Global, u(1, 1024), "1", READ_ONLY, "Worker threads of the read-write HandlerSocket port"),
    v("handlersocket_timeout", Global, u(0, 31536000), "300", READ_ONLY, "Seconds an idle HandlerSocket connection stays open (0: forever)"),
    v("handlersocket_verbose", Global, u(0, 10000), "10", READ_ONLY, "Accepted for compatibility (no effect)"),
    v("handlersocket_wrlock_timeout", Global, u(0, 3600), "12", READ_ONLY, "Accepted for compatibility (kiln has no global write lock)"),
    v("have_compress", Global, Str, "NO", READ_ONLY | NOT_OPTION, "Whether COMPRESS() is available"),
    v("have_openssl", Global, Str, "DISABLED", READ_ONLY | NOT_OPTION, "Alias of have_ssl"),
    v("have_query_cache", Global, Str, "NO", READ_ONLY | NOT_OPTION, "Query cache (removed in MySQL 8.0)"),
    v("have_ssl", Global, Str, "DISABLED", READ_ONLY | NOT_OPTION, "YES when TLS is available"),
    v("hostname", Global, Str, "localhost", READ_ONLY | NOT_OPTION, "The server's host name"),
    v("information_schema_stats_expiry", Both, u(0, 31536000), "86400", 0, "Seconds cached table statistics stay valid"),
    v("init_connect", Global, Str, "", 0, "Statements run for each new non-admin connection"),
    v("innodb_buffer_pool_instances", Global, u(1, 64), "8", READ_ONLY, "Buffer pool instances (pages partitioned by page id)"),
    v("innodb_buffer_pool_size", Global, u(5242880, 1 << 50), "134217728", READ_ONLY, "Bytes of page cache"),
    v("innodb_deadlock_detect", Global, Bool, "ON", 0, "Detect deadlocks when a lock wait starts (OFF: waits end only by innodb_lock_wait_timeout)"),
    v("innodb_doublewrite", Global, Bool, "ON", READ_ONLY, "Write pages to the doublewrite area first so torn pages can be repaired"),
    v("innodb_flush_log_at_trx_commit", Global, u(0, 2), "1", 0, "1: flush the redo log at each commit; 2: write only; 0: once a second"),
    v("innodb_flush_method", Global, Type::Enum(FLUSH_METHODS), "O_DIRECT", READ_ONLY, "How data and log files are flushed"),
    v("innodb_io_capacity", Global, u(100, 1 << 32), "200", READ_ONLY, "Pages per second the page cleaner writes in the background"),
    v("innodb_lock_wait_timeout", Both, u(1, 1073741824), "50", 0, "Seconds a transaction waits for a row lock"),
    v("innodb_max_dirty_pages_pct", Global, u(0, 99), "90", READ_ONLY, "Percent of dirty pages above which the page cleaner flushes harder"),
    v("innodb_max_purge_lag", Global, u(0, u32::MAX as u64), "0", READ_ONLY, "History list length above which writers are delayed (0: never)"),
    v("innodb_max_purge_lag_delay", Global, u(0, 10_000_000), "0", READ_ONLY, "Longest purge-lag delay of a writer, microseconds (0: no limit)"),
    v("innodb_old_blocks_pct", Global, u(5, 95), "37", READ_ONLY, "Percent of the LRU list kept for the old (probation) sublist"),
    v("innodb_old_blocks_time", Global, u(0, u32::MAX as u64), "1000", READ_ONLY, "Milliseconds a page stays old before a second access makes it young"),
    v("innodb_page_size", Global, u(16384, 16384), "16384", READ_ONLY, "Page size of tablespaces"),
    v("innodb_purge_threads", Global, u(1, 32), "4", READ_ONLY, "Background threads removing old row versions and undo"),
    v("innodb_read_ahead_threshold", Global, u(0, 64), "56", READ_ONLY, "0 turns linear read-ahead off (kiln starts it after 8 consecutive page misses)"),
    v("innodb_read_io_threads", Global, u(1, 64), "4", READ_ONLY, "Threads reading pages when io_uring is not used"),
    v("innodb_redo_log_capacity", Global, u(8388608, 137438953472), "104857600", READ_ONLY, "Bytes of redo log ring"),
    v("innodb_rollback_on_timeout", Global, Bool, "OFF", READ_ONLY, "A lock wait timeout rolls back the whole transaction, not only the statement"),
    v("innodb_rollback_segments", Global, u(1, 128), "128", READ_ONLY, "Rollback segments (fixed when the data directory is created)"),
    v("innodb_strict_mode", Both, Bool, "ON", 0, "Errors instead of warnings for invalid table options"),
    v("innodb_undo_tablespaces", Global, u(1, 127), "2", READ_ONLY, "Undo tablespaces undo_001.. (fixed when the data directory is created)"),
    v("innodb_use_native_aio", Global, Bool, "ON", READ_ONLY, "Page I/O through io_uring (OFF when it is unavailable)"),
    v("innodb_write_io_threads", Global, u(1, 64), "4", READ_ONLY, "Threads writing pages when io_uring is not used"),
    v("interactive_timeout", Both, u(1, 31536000), "28800", 0, "Idle seconds before an interactive client is disconnected"),
    v("join_buffer_size", Both, Type::UInt { min: 128, max: U64_MAX, block: 128, }, "262144", 0, "Buffer size of joins without indexes"),
    v("keep_files_on_create", Both, Bool, "OFF", 0, "Keep existing files on CREATE TABLE"),
    v("large_pages", Global, Bool, "OFF", READ_ONLY, "Back the buffer pool with transparent huge pages (madvise); see docs/buffer-pool.md"),
    v("lc_messages", Both, Str, "en_US", 0, "Locale of error messages"),
    v("lc_time_names", Both, Str, "en_US", 0, "Locale of day and month names"),
    v("license", Global, Str, "Apache-2.0", READ_ONLY | NOT_OPTION, "The server's license"),
    v("local_infile", Global, Bool, "OFF", 0, "Allow LOAD DATA LOCAL"),
    v("lock_wait_timeout", Both, u(1, 31536000), "31536000", 0, "Seconds to wait for a metadata lock"),
    v("log_bin", Global, Bool, "OFF", READ_ONLY | NOT_OPTION, "Binary logging (not supported: OFF)"),
    v("log_error", Global, Str, "stderr", READ_ONLY, "Error log file (stderr when empty)"),
    v("log_error_verbosity", Global, u(1, 3), "2", 0, "1: errors; 2: and warnings; 3: and notes"),
    v("long_query_time", Both, Type::Float { min: 0.0, max: 31536000.0, }, "10.000000", 0, "Seconds above which a query is slow"),
    v("low_priority_updates", Both, Bool, "OFF", 0, "Writes wait for reads"),
    v("lower_case_table_names", Global, u(0, 2), "0", READ_ONLY, "How table names are stored and compared"),
    v("max_allowed_packet", Both, Type::UInt { min: 1024, max: 1073741824, block: 1024, }, "67108864", 0, "Largest packet or generated string"),
    v("max_connect_errors", Global, u(1, U64_MAX), "100", 0, "Failed connects before a host is blocked"),
    v("max_connections", Global, u(1, 100000), "151", 0, "Simultaneous client connections (one more for an admin)"),
    v("max_error_count", Both, u(0, 65535), "1024", 0, "Diagnostics kept for SHOW WARNINGS"),
    v("max_execution_time", Both, u(0, U32_MAX), "0", 0, "Milliseconds a SELECT may run (0: no limit)"),
    v("max_heap_table_size", Both, Type::UInt { min: 16384, max: U64_MAX, block: 1024, }, "16777216", 0, "Largest in-memory table"),
    v("max_join_size", Both, u(1, U64_MAX), "18446744073709551615", 0, "Rows a join may examine"),
    v("max_length_for_sort_data", Both, u(4, 8388608), "4096", 0, "Largest row sorted with its payload"),
    v("max_prepared_stmt_count", Global, u(0, 4194304), "16382", 0, "Prepared statements across all sessions"),
    v("max_sort_length", Both, u(4, 8388608), "1024", 0, "Bytes of a value used for sorting"),
    v("max_sp_recursion_depth", Both, u(0, 255), "0", 0, "Recursion depth of stored procedures"),
    v("max_user_connections", Both, u(0, U32_MAX), "0", 0, "Connections per account (0: no limit)"),
    v("mysqlx", Global, Bool, "OFF", READ_ONLY | NOT_OPTION, "X protocol (not supported)"),
    v("net_buffer_length", Both, Type::UInt { min: 1024, max: 1048576, block: 1024, }, "16384", 0, "Initial size of connection buffers"),
    v("net_read_timeout", Both, u(1, 31536000), "30", 0, "Seconds to wait for more data from a client mid-packet"),
    v("net_retry_count", Both, u(1, U64_MAX), "10", 0, "Retries of an interrupted read"),
    v("net_write_timeout", Both, u(1, 31536000), "60", 0, "Seconds to wait for a block to be written to a client"),
    v("old_alter_table", Both, Bool, "OFF", 0, "Use the copying ALTER TABLE"),
    v("open_files_limit", Global, u(0, U64_MAX), "5000", READ_ONLY, "File descriptors the server may use"),
    v("optimizer_switch", Both, Str, "index_merge=on,index_merge_union=on,index_merge_sort_union=on,index_merge_intersection=on,engine_condition_pushdown=on,index_condition_pushdown=on,mrr=on,mrr_cost_based=on,block_nested_loop=on,batched_key_access=off,materialization=on,semijoin=on,loosescan=on,firstmatch=on,duplicateweedout=on,subquery_materialization_cost_based=on,use_index_extensions=on,condition_fanout_filter=on,derived_merge=on,use_invisible_indexes=off,skip_scan=on,hash_join=on,subquery_to_derived=off,prefer_ordering_index=on,hypergraph_optimizer=off,derived_condition_pushdown=on", 0, "Optimizer features"),
    v("performance_schema", Global, Bool, "OFF", READ_ONLY, "Performance schema (not supported: OFF)"),
    v("pid_file", Global, Str, "", READ_ONLY, "Process id file (default <datadir>/kiln.pid)"),
    v("port", Global, u(0, 65535), "3306", READ_ONLY, "TCP port (0: no TCP listener)"),
    v("protocol_version", Global, u(0, 255), "10", READ_ONLY | NOT_OPTION, "Client/server protocol version"),
    v("pseudo_thread_id", Session, u(0, U32_MAX), "0", NOT_OPTION, "Thread id used in the binary log"),
    v("query_alloc_block_size", Both, Type::UInt { min: 1024, max: U32_MAX, block: 1024, }, "8192", 0, "Allocation block for statement parsing"),
    v("query_prealloc_size", Both, Type::UInt { min: 8192, max: U64_MAX, block: 1024, }, "8192", 0, "Persistent buffer for statement parsing"),
    v("range_optimizer_max_mem_size", Both, u(0, U64_MAX), "8388608", 0, "Memory limit of the range optimizer"),
    v("read_buffer_size", Both, Type::UInt { min: 8192, max: 2147479552, block: 4096, }, "131072", 0, "Buffer for sequential scans"),
    v("read_only", Global, Bool, "OFF", 0, "Refuse writes from non-admin users"),
    v("read_rnd_buffer_size", Both, u(1, 2147483647), "262144", 0, "Buffer for reading rows in sorted order"),
    v("require_secure_transport", Global, Bool, "OFF", 0, "Refuse TCP connections without TLS"),
    v("secure_file_priv", Global, Str, "NULL", READ_ONLY | NULLABLE, "Directory LOAD DATA INFILE may read from ('': anywhere; NULL, the default: none)"),
    v("server_id", Global, u(0, U32_MAX), "1", 0, "Server id for replication"),
    v("session_track_gtids", Both, Type::Enum(&["OFF", "OWN_GTID", "ALL_GTIDS"]), "OFF", 0, "GTIDs reported in OK packets"),
    v("session_track_schema", Both, Bool, "ON", 0, "Report default-database changes in OK packets"),
    v("session_track_state_change", Both, Bool, "OFF", 0, "Report session state changes in OK packets"),
    v("session_track_system_variables", Both, Str, "time_zone,autocommit,character_set_client,character_set_results,character_set_connection", NULLABLE, "Variables whose changes are reported in OK packets"),
    v("session_track_transaction_info", Both, Type::Enum(TRACK_TX_INFO), "OFF", 0, "Transaction state reported in OK packets"),
    v("skip_external_locking", Global, Bool, "ON", READ_ONLY, "No external file locking"),
    v("skip_name_resolve", Global, Bool, "OFF", READ_ONLY, "Do not resolve host names of clients"),
    v("skip_networking", Global, Bool, "OFF", READ_ONLY, "No TCP listener (Unix socket only)"),
    v("skip_show_database", Global, Bool, "OFF", READ_ONLY, "SHOW DATABASES only for privileged users"),
    v("socket", Global, Str, "", READ_ONLY, "Unix socket path (default <datadir>/kiln.sock)"),
    v("sort_buffer_size", Both, u(32768, U64_MAX), "262144", 0, "Buffer for sorting"),
    v("sql_auto_is_null", Both, Bool, "OFF", 0, "WHERE auto_col IS NULL finds the last inserted row"),
    v("sql_big_selects", Both, Bool, "ON", 0, "Allow SELECTs above max_join_size"),
    v("sql_buffer_result", Both, Bool, "OFF", 0, "Buffer results in temporary tables"),
    v("sql_log_bin", Session, Bool, "ON", NOT_OPTION, "Binary logging of this session"),
    v("sql_log_off", Both, Bool, "OFF", 0, "No general-log entries for this session"),
    v("sql_mode", Both, Type::Set(SQL_MODES), "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION", 0, "SQL modes"),
    v("sql_notes", Both, Bool, "ON", 0, "Record Note-level diagnostics"),
    v("sql_quote_show_create", Both, Bool, "ON", 0, "Quote identifiers in SHOW CREATE"),
    v("sql_require_primary_key", Both, Bool, "OFF", 0, "Tables must have a primary key"),
    v("sql_safe_updates", Both, Bool, "OFF", 0, "Refuse UPDATE/DELETE without a key in WHERE or a LIMIT"),
    v("sql_select_limit", Both, u(0, U64_MAX), "18446744073709551615", 0, "Rows a SELECT returns at most"),
    v("sql_warnings", Both, Bool, "OFF", 0, "Warning counts for single-row INSERTs"),
    v("ssl_ca", Global, Str, "", READ_ONLY, "CA certificate file"),
    v("ssl_cert", Global, Str, "", READ_ONLY, "Server certificate (default <datadir>/server-cert.pem, generated)"),
    v("ssl_cipher", Global, Str, "", READ_ONLY, "Permitted TLS ciphers"),
    v("ssl_fips_mode", Global, Type::Enum(SSL_FIPS), "OFF", READ_ONLY, "FIPS mode"),
    v("ssl_key", Global, Str, "", READ_ONLY, "Server key (default <datadir>/server-key.pem, generated)"),
    v("ssl_session_cache_mode", Global, Bool, "ON", READ_ONLY, "TLS session cache"),
    v("system_time_zone", Global, Str, "UTC", READ_ONLY | NOT_OPTION, "Time zone of the server host"),
    v("table_definition_cache", Global, u(400, 524288), "2000", 0, "Table definitions kept in cache"),
    v("table_open_cache", Global, u(1, 524288), "4000", 0, "Open tables kept in cache"),
    v("thread_cache_size", Global, u(0, 16384), "9", 0, "Threads kept for reuse"),
    v("thread_handling", Global, Type::Enum(&["one-thread-per-connection", "pool-of-threads"]), "one-thread-per-connection", READ_ONLY, "How connections get threads: a thread each, or a pool of thread groups"),
    v("thread_pool_idle_timeout", Global, u(1, U32_MAX), "60", 0, "Seconds an idle pool thread waits for work before it exits"),
    v("thread_pool_max_threads", Global, u(1, 65536), "65536", 0, "Most threads the pool creates, all groups together"),
    v("thread_pool_oversubscribe", Global, u(1, 65536), "3", 0, "Extra active threads a group tolerates after waits end (group target: 1 + this)"),
    v("thread_pool_prio_kickup_timer", Global, u(0, U32_MAX), "1000", 0, "Milliseconds a low-priority request waits before it is moved to the high-priority queue"),
    v("thread_pool_priority", Both, Type::Enum(&["high", "low", "auto"]), "auto", 0, "Queue of a connection's requests (auto: high inside a transaction)"),
    v("thread_pool_size", Global, u(0, 1024), "0", READ_ONLY, "Thread groups (0 at startup: one per CPU)"),
    v("thread_pool_stall_limit", Global, u(1, U32_MAX), "500", 0, "Milliseconds after which a group whose queue made no progress is stalled and gets another thread"),
    v("thread_stack", Global, Type::UInt { min: 131072, max: U64_MAX, block: 1024, }, "16777216", READ_ONLY, "Stack size of connection threads and pool workers (kiln_common::limits::SQL_THREAD_STACK_BYTES)"),
    v("time_zone", Both, Str, "SYSTEM", 0, "Time zone of the session"),
    v("timestamp", Session, Type::Float { min: 0.0, max: 32536771199.999999, }, "0", NOT_OPTION, "Time of the session (0: the clock)"),
    v("tls_version", Global, Str, "TLSv1.2,TLSv1.3", READ_ONLY, "Permitted TLS versions"),
    v("tmp_table_size", Both, u(1024, U64_MAX), "16777216", 0, "Largest in-memory internal temporary table"),
    v("tmpdir", Global, Str, "/tmp", READ_ONLY, "Directory for temporary files"),
    v("transaction_alloc_block_size", Both, Type::UInt { min: 1024, max: 131072, block: 1024, }, "8192", 0, "Allocation block for transactions"),
    v("transaction_isolation", Both, Type::Enum(ISOLATION_LEVELS), "REPEATABLE-READ", 0, "Isolation level of transactions"),
    v("transaction_prealloc_size", Both, Type::UInt { min: 1024, max: 131072, block: 1024, }, "4096", 0, "Persistent buffer for transactions"),
    v("transaction_read_only", Both, Bool, "OFF", 0, "Transactions are read-only by default"),
    v("unique_checks", Both, Bool, "ON", 0, "Check unique secondary indexes"),
    v("updatable_views_with_limit", Both, Bool, "ON", 0, "UPDATE/DELETE of views with LIMIT"),
    v("version", Global, Str, "8.0.40-kiln", READ_ONLY | NOT_OPTION, "Server version"),
    v("version_comment", Global, Str, "kiln", READ_ONLY | NOT_OPTION, "Server description"),
    v("version_compile_machine", Global, Str, std::env::consts::ARCH, READ_ONLY | NOT_OPTION, "Machine the server was built for"),
    v("version_compile_os", Global, Str, "Linux", READ_ONLY | NOT_OPTION, "Operating system the server was built for"),
    v("wait_timeout", Both, u(1, 31536000), "28800", 0, "Idle seconds before a connection is closed"),
    v("windowing_use_high_precision", Both, Bool, "ON", 0, "Exact window functions over floats"),
];

/// A variable by name (case-insensitive; dashes count as underscores).
pub fn lookup(name: &str) -> Option<&'static SysVar> {
    let n: String = name
        .chars()
        .map(|c| {
            if c == '-' {
                '_'
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect();
    VARS.binary_search_by(|v| v.name.cmp(n.as_str()))
        .ok()
        .map(|i| &VARS[i])
}

/// Index of a variable in `VARS` (the slot number stores use).
pub fn index_of(var: &SysVar) -> usize {
    VARS.binary_search_by(|v| v.name.cmp(var.name))
        .expect("registered variable")
}

fn display_value(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        other => other.to_string_lossy().unwrap_or_default(),
    }
}

fn wrong_value(var: &SysVar, shown: &str) -> KilnError {
    KilnError::new(ErrorKind::ER_WRONG_VALUE_FOR_VAR, &[&var.name, &shown])
}

fn wrong_type(var: &SysVar) -> KilnError {
    KilnError::new(ErrorKind::ER_WRONG_TYPE_FOR_VAR, &[&var.name])
}

fn truncated(var: &SysVar, shown: &str) -> Diagnostic {
    Diagnostic {
        level: Level::Warning,
        code: 1292,
        message: format!("Truncated incorrect {} value: '{}'", var.name, shown),
    }
}

/// The typed value of a default or option string (no range checks: those come from
/// `check`). Used for the compiled defaults, which the tests check are all valid.
fn parse_literal(var: &SysVar, text: &str) -> Value {
    if var.flags & NULLABLE != 0 && text == "NULL" {
        return Value::Null;
    }
    match var.ty {
        Type::Bool => Value::Int(matches!(
            text.to_ascii_uppercase().as_str(),
            "ON" | "1" | "TRUE" | "YES"
        ) as i64),
        Type::UInt { .. } => match text.parse::<u64>() {
            Ok(n) if n > i64::MAX as u64 => Value::UInt(n),
            Ok(n) => Value::Int(n as i64),
            Err(_) => Value::Str(text.to_string()),
        },
        Type::Int { .. } => text
            .parse::<i64>()
            .map(Value::Int)
            .unwrap_or_else(|_| Value::Str(text.to_string())),
        Type::Float { .. } => text
            .parse::<f64>()
            .map(Value::Double)
            .unwrap_or_else(|_| Value::Str(text.to_string())),
        _ => Value::Str(text.to_string()),
    }
}

/// The compiled default as a typed value.
pub fn default_value(var: &SysVar) -> Value {
    parse_literal(var, var.default)
}

fn find_name(names: &[&str], s: &str) -> Option<usize> {
    names.iter().position(|n| n.eq_ignore_ascii_case(s))
}

/// Expands and normalizes a `sql_mode`-style set given as text.
fn set_from_text(var: &SysVar, names: &[&str], text: &str) -> Result<u64> {
    let mut bits = 0u64;
    for part in text.split(',') {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        if var.name == "sql_mode"
            && let Some((_, members)) = SQL_MODE_COMBINATIONS
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(part))
        {
            // MySQL keeps the combination's own bit too (it shows as ANSI / TRADITIONAL).
            bits |= 1 << find_name(names, part).expect("combination is a mode");
            for m in *members {
                bits |= 1 << find_name(names, m).expect("combination member is a mode");
            }
            continue;
        }
        match find_name(names, part) {
            Some(i) if !names[i].starts_with("NOT_USED") => bits |= 1 << i,
            _ => return Err(wrong_value(var, part)),
        }
    }
    Ok(bits)
}

fn set_to_text(names: &[&str], bits: u64) -> String {
    let mut out = String::new();
    for (i, n) in names.iter().enumerate() {
        if bits & (1 << i) != 0 {
            if !out.is_empty() {
                out.push(',');
            }
            out.push_str(n);
        }
    }
    out
}

/// Checks and normalizes a value for `var` (from SET or from an option), returning
/// the value to store and any warnings. `None` stands for NULL.
pub fn check(var: &SysVar, value: &Value) -> Result<(Value, Vec<Diagnostic>)> {
    let mut warnings = Vec::new();
    if matches!(value, Value::Null) {
        if var.flags & NULLABLE != 0 {
            return Ok((Value::Null, warnings));
        }
        return Err(match var.ty {
            Type::UInt { .. } | Type::Int { .. } | Type::Float { .. } => wrong_type(var),
            _ => wrong_value(var, "NULL"),
        });
    }
    let out = match var.ty {
        Type::Bool => match value {
            Value::Int(0) | Value::UInt(0) => Value::Int(0),
            Value::Int(1) | Value::UInt(1) => Value::Int(1),
            Value::Int(_) | Value::UInt(_) => return Err(wrong_value(var, &display_value(value))),
            Value::Str(s) => match s.to_ascii_uppercase().as_str() {
                "ON" | "TRUE" | "1" => Value::Int(1),
                "OFF" | "FALSE" | "0" => Value::Int(0),
                _ => return Err(wrong_value(var, s)),
            },
            _ => return Err(wrong_type(var)),
        },
        Type::UInt { min, max, block } => {
            let n: u64 = match value {
                Value::Int(i) if *i < 0 => {
                    warnings.push(truncated(var, &i.to_string()));
                    min
                }
                Value::Int(i) => *i as u64,
                Value::UInt(u) => *u,
                Value::Decimal(d) if !d.contains('.') => match d.parse::<u64>() {
                    Ok(u) => u,
                    Err(_) => {
                        warnings.push(truncated(var, d));
                        if d.starts_with('-') { min } else { max }
                    }
                },
                _ => return Err(wrong_type(var)),
            };
            let mut clamped = n.clamp(min, max);
            if block > 1 {
                clamped -= clamped % block;
                clamped = clamped.max(min);
            }
            if clamped != n && warnings.is_empty() {
                warnings.push(truncated(var, &n.to_string()));
            }
            if clamped > i64::MAX as u64 {
                Value::UInt(clamped)
            } else {
                Value::Int(clamped as i64)
            }
        }
        Type::Int { min, max } => {
            let n: i64 = match value {
                Value::Int(i) => *i,
                Value::UInt(u) => i64::try_from(*u).unwrap_or(i64::MAX),
                _ => return Err(wrong_type(var)),
            };
            let clamped = n.clamp(min, max);
            if clamped != n {
                warnings.push(truncated(var, &n.to_string()));
            }
            Value::Int(clamped)
        }
        Type::Float { min, max } => {
            let f = match value {
                Value::Int(i) => *i as f64,
                Value::UInt(u) => *u as f64,
                Value::Double(d) => *d,
                Value::Decimal(d) => d.parse::<f64>().map_err(|_| wrong_type(var))?,
                _ => return Err(wrong_type(var)),
            };
            let clamped = f.clamp(min, max);
            if clamped != f {
                warnings.push(truncated(var, &display_value(value)));
            }
            Value::Double(clamped)
        }
        Type::Str => match value {
            Value::Str(s) => Value::Str(s.clone()),
            Value::Bytes(b) => Value::Str(String::from_utf8_lossy(b).into_owned()),
            _ => return Err(wrong_type(var)),
        },
        Type::Enum(names) => match value {
            Value::Str(s) => match find_name(names, s) {
                Some(i) => Value::Str(names[i].to_string()),
                None => return Err(wrong_value(var, s)),
            },
            Value::Int(i) if *i >= 0 && (*i as usize) < names.len() => {
                Value::Str(names[*i as usize].to_string())
            }
            Value::UInt(u) if (*u as usize) < names.len() => {
                Value::Str(names[*u as usize].to_string())
            }
            Value::Int(_) | Value::UInt(_) => return Err(wrong_value(var, &display_value(value))),
            _ => return Err(wrong_type(var)),
        },
        Type::Set(names) => {
            let bits = match value {
                Value::Str(s) => set_from_text(var, names, s)?,
                Value::Int(i) if *i >= 0 && (*i as u64) < (1u64 << names.len()) => *i as u64,
                Value::UInt(u) if *u < (1u64 << names.len()) => *u,
                Value::Int(_) | Value::UInt(_) => {
                    return Err(wrong_value(var, &display_value(value)));
                }
                _ => return Err(wrong_type(var)),
            };
            for (i, n) in names.iter().enumerate() {
                if bits & (1 << i) != 0 && n.starts_with("NOT_USED") {
                    return Err(wrong_value(var, &display_value(value)));
                }
            }
            Value::Str(set_to_text(names, bits))
        }
        Type::Charset => match value {
            Value::Str(s) => match charset::charset(s) {
                Some(c) => Value::Str(c.name.to_string()),
                None => return Err(KilnError::new(ErrorKind::ER_UNKNOWN_CHARACTER_SET, &[s])),
            },
            Value::Int(_) | Value::UInt(_) => {
                let id = value.to_i64().unwrap_or(-1);
                match u64::try_from(id).ok().and_then(charset::collation_by_id) {
                    Some(c) => Value::Str(c.charset.to_string()),
                    None => {
                        return Err(KilnError::new(
                            ErrorKind::ER_UNKNOWN_CHARACTER_SET,
                            &[&id.to_string()],
                        ));
                    }
                }
            }
            _ => return Err(wrong_type(var)),
        },
        Type::Collation => match value {
            Value::Str(s) => match charset::collation(s) {
                Some(c) => Value::Str(c.name.to_string()),
                None => return Err(KilnError::new(ErrorKind::ER_UNKNOWN_COLLATION, &[s])),
            },
            Value::Int(_) | Value::UInt(_) => {
                let id = value.to_i64().unwrap_or(-1);
                match u64::try_from(id).ok().and_then(charset::collation_by_id) {
                    Some(c) => Value::Str(c.name.to_string()),
                    None => {
                        return Err(KilnError::new(
                            ErrorKind::ER_UNKNOWN_COLLATION,
                            &[&id.to_string()],
                        ));
                    }
                }
            }
            _ => return Err(wrong_type(var)),
        },
    };
    Ok((out, warnings))
}

/// Parses an option value as written on a command line or in an option file:
/// integers take K/M/G/T suffixes, booleans also take YES/NO and an empty value.
/// Errors are the startup messages `mysqld` prints.
pub fn parse_option(var: &SysVar, text: &str) -> std::result::Result<Value, String> {
    match var.ty {
        Type::UInt { .. } | Type::Int { .. } => {
            let t = text.trim();
            let (digits, mult) = match t.chars().last().map(|c| c.to_ascii_uppercase()) {
                Some('K') => (&t[..t.len() - 1], 1u64 << 10),
                Some('M') => (&t[..t.len() - 1], 1 << 20),
                Some('G') => (&t[..t.len() - 1], 1 << 30),
                Some('T') => (&t[..t.len() - 1], 1 << 40),
                _ => (t, 1),
            };
            let bad = || {
                let suffix = digits
                    .trim_start_matches(['-', '+'])
                    .chars()
                    .find(|c| !c.is_ascii_digit())
                    .unwrap_or(' ');
                format!(
                    "Unknown suffix '{suffix}' used for variable '{}' (value '{text}')",
                    var.name
                )
            };
            if let Some(neg) = digits.strip_prefix('-') {
                let n: i64 = neg.parse::<i64>().map_err(|_| bad())?;
                return Ok(Value::Int(-n.saturating_mul(mult as i64)));
            }
            let n: u64 = digits
                .strip_prefix('+')
                .unwrap_or(digits)
                .parse()
                .map_err(|_| bad())?;
            let n = n.saturating_mul(mult);
            Ok(if n > i64::MAX as u64 {
                Value::UInt(n)
            } else {
                Value::Int(n as i64)
            })
        }
        Type::Bool => match text.to_ascii_uppercase().as_str() {
            "" | "1" | "ON" | "TRUE" | "YES" | "ENABLE" => Ok(Value::Int(1)),
            "0" | "OFF" | "FALSE" | "NO" | "DISABLE" => Ok(Value::Int(0)),
            _ => Err(format!(
                "option '{}': boolean value '{text}' was not recognized. Set to OFF.",
                var.name
            )),
        },
        Type::Float { .. } => text
            .trim()
            .parse::<f64>()
            .map(Value::Double)
            .map_err(|_| format!("Invalid decimal value for option '{}'", var.name)),
        _ => Ok(Value::Str(text.to_string())),
    }
}

/// The other half of a charset/collation pair, for a value just set on `var`:
/// setting a character set sets its default collation and vice versa.
pub fn linked(var: &SysVar, value: &Value) -> Option<(&'static SysVar, Value)> {
    let Value::Str(s) = value else {
        return None;
    };
    let (other, v) = match var.name {
        "character_set_connection" | "character_set_database" | "character_set_server" => {
            let c = charset::charset(s)?;
            (
                var.name.replace("character_set_", "collation_"),
                c.default_collation,
            )
        }
        "collation_connection" | "collation_database" | "collation_server" => {
            let c = charset::collation(s)?;
            (var.name.replace("collation_", "character_set_"), c.charset)
        }
        _ => return None,
    };
    Some((lookup(&other)?, Value::Str(v.to_string())))
}

/// SHOW VARIABLES form of a stored value: booleans as ON/OFF, NULL as empty.
pub fn display(var: &SysVar, value: &Value) -> String {
    match (var.ty, value) {
        (_, Value::Null) => String::new(),
        (Type::Bool, v) => if v.to_i64() == Some(0) { "OFF" } else { "ON" }.to_string(),
        (Type::Float { .. }, Value::Double(d)) => format!("{d:.6}"),
        (_, v) => v.to_string_lossy().unwrap_or_default(),
    }
}

/// What `@@name` evaluates to: booleans are integers 0/1, as in MySQL.
pub fn select_value(var: &SysVar, value: &Value) -> Value {
    match (var.ty, value) {
        (Type::Float { .. }, Value::Double(d)) => Value::Decimal(format!("{d:.6}")),
        _ => value.clone(),
    }
}

/// Error for reading `@@session.x` of a global-only or `@@global.x` of a
/// session-only variable (1238).
pub fn wrong_scope_read(var: &SysVar) -> KilnError {
    let kind = if var.scope == Scope::Global {
        "GLOBAL"
    } else {
        "SESSION"
    };
    KilnError::new(
        ErrorKind::ER_INCORRECT_GLOBAL_LOCAL_VAR,
        &[&var.name, &kind],
    )
}

/// Error for SET of a read-only variable (1238, "read only").
pub fn read_only_error(var: &SysVar) -> KilnError {
    KilnError::new(
        ErrorKind::ER_INCORRECT_GLOBAL_LOCAL_VAR,
        &[&var.name, &"read only"],
    )
}

pub fn unknown(name: &str) -> KilnError {
    KilnError::new(ErrorKind::ER_UNKNOWN_SYSTEM_VARIABLE, &[&name])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_sorted_unique_and_defaults_valid() {
        assert!(
            VARS.windows(2).all(|w| w[0].name < w[1].name),
            "VARS must be sorted"
        );
        for var in VARS {
            let d = default_value(var);
            let (checked, warnings) =
                check(var, &d).unwrap_or_else(|e| panic!("{}: {}", var.name, e.message));
            assert!(warnings.is_empty(), "{} default out of range", var.name);
            assert_eq!(
                display(var, &checked),
                display(var, &d),
                "{} default not canonical",
                var.name
            );
        }
    }

    #[test]
    fn lookup_ignores_case_and_dashes() {
        assert_eq!(
            lookup("MAX-ALLOWED-PACKET").unwrap().name,
            "max_allowed_packet"
        );
        assert!(lookup("nosuch").is_none());
    }

    fn chk(name: &str, v: Value) -> Result<(Value, Vec<Diagnostic>)> {
        check(lookup(name).unwrap(), &v)
    }

    #[test]
    fn booleans() {
        assert_eq!(
            chk("autocommit", Value::Str("on".into())).unwrap().0,
            Value::Int(1)
        );
        assert_eq!(chk("autocommit", Value::Int(0)).unwrap().0, Value::Int(0));
        let e = chk("autocommit", Value::Str("foo".into())).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (
                1231,
                "Variable 'autocommit' can't be set to the value of 'foo'"
            )
        );
        assert_eq!(chk("autocommit", Value::Int(2)).unwrap_err().code, 1231);
        assert_eq!(
            chk("autocommit", Value::Double(0.5)).unwrap_err().code,
            1232
        );
        assert_eq!(
            chk("autocommit", Value::Null).unwrap_err().message,
            "Variable 'autocommit' can't be set to the value of 'NULL'"
        );
    }

    #[test]
    fn integers_clamp_with_warning_and_round_to_block() {
        let (v, w) = chk("max_connections", Value::Int(0)).unwrap();
        assert_eq!(v, Value::Int(1));
        assert_eq!(w[0].code, 1292);
        assert_eq!(
            w[0].message,
            "Truncated incorrect max_connections value: '0'"
        );
        let (v, w) = chk("max_allowed_packet", Value::Int(1025)).unwrap();
        assert_eq!((v, w.len()), (Value::Int(1024), 1));
        assert_eq!(
            chk("wait_timeout", Value::Str("abc".into()))
                .unwrap_err()
                .code,
            1232
        );
        assert_eq!(
            chk("wait_timeout", Value::Double(1.5)).unwrap_err().code,
            1232
        );
        let (v, _) = chk("sql_select_limit", Value::UInt(u64::MAX)).unwrap();
        assert_eq!(v, Value::UInt(u64::MAX));
    }

    #[test]
    fn enums_and_sets() {
        assert_eq!(
            chk("transaction_isolation", Value::Str("read-committed".into()))
                .unwrap()
                .0,
            Value::Str("READ-COMMITTED".into())
        );
        assert_eq!(
            chk("transaction_isolation", Value::Int(0)).unwrap().0,
            Value::Str("READ-UNCOMMITTED".into())
        );
        assert_eq!(
            chk("transaction_isolation", Value::Str("bogus".into()))
                .unwrap_err()
                .code,
            1231
        );
        let s = |t: &str| chk("sql_mode", Value::Str(t.into()));
        assert_eq!(
            s("no_zero_date,ansi_quotes").unwrap().0,
            Value::Str("ANSI_QUOTES,NO_ZERO_DATE".into())
        );
        assert_eq!(s("").unwrap().0, Value::Str("".into()));
        assert_eq!(
            s("ansi").unwrap().0,
            Value::Str(
                "REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ONLY_FULL_GROUP_BY,ANSI"
                    .into()
            )
        );
        assert_eq!(
            s("traditional").unwrap().0,
            Value::Str("STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,TRADITIONAL,NO_ENGINE_SUBSTITUTION".into())
        );
        let e = s("ansi_quotes,nonsense").unwrap_err();
        assert_eq!(
            e.message,
            "Variable 'sql_mode' can't be set to the value of 'nonsense'"
        );
        assert_eq!(s("not_used").unwrap_err().code, 1231);
        assert_eq!(
            chk("sql_mode", Value::Int(4)).unwrap().0,
            Value::Str("ANSI_QUOTES".into())
        );
    }

    #[test]
    fn charsets_and_collations() {
        assert_eq!(
            chk("character_set_client", Value::Str("LATIN1".into()))
                .unwrap()
                .0,
            Value::Str("latin1".into())
        );
        let e = chk("character_set_client", Value::Str("nope".into())).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (1115, "Unknown character set: 'nope'")
        );
        let e = chk("collation_connection", Value::Str("nope".into())).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (1273, "Unknown collation: 'nope'")
        );
        assert_eq!(
            chk("character_set_results", Value::Null).unwrap().0,
            Value::Null
        );
        let var = lookup("collation_connection").unwrap();
        let (other, v) = linked(var, &Value::Str("latin1_swedish_ci".into())).unwrap();
        assert_eq!(
            (other.name, v),
            ("character_set_connection", Value::Str("latin1".into()))
        );
        let var = lookup("character_set_server").unwrap();
        let (other, v) = linked(var, &Value::Str("utf8mb3".into())).unwrap();
        assert_eq!(
            (other.name, v),
            ("collation_server", Value::Str("utf8mb3_general_ci".into()))
        );
    }

    #[test]
    fn option_strings() {
        let p = |n: &str, t: &str| parse_option(lookup(n).unwrap(), t);
        assert_eq!(p("max_allowed_packet", "2M").unwrap(), Value::Int(2 << 20));
        assert_eq!(p("max_allowed_packet", "1g").unwrap(), Value::Int(1 << 30));
        assert_eq!(
            p("port", "abc").unwrap_err(),
            "Unknown suffix 'a' used for variable 'port' (value 'abc')"
        );
        assert_eq!(p("skip_name_resolve", "").unwrap(), Value::Int(1));
        assert!(p("skip_name_resolve", "maybe").is_err());
        assert_eq!(
            p("character_set_server", "latin1").unwrap(),
            Value::Str("latin1".into())
        );
    }

    #[test]
    fn scope_errors() {
        let e = wrong_scope_read(lookup("max_connections").unwrap());
        assert_eq!(
            (e.code, e.message.as_str()),
            (1238, "Variable 'max_connections' is a GLOBAL variable")
        );
        let e = read_only_error(lookup("port").unwrap());
        assert_eq!(e.message, "Variable 'port' is a read only variable");
    }
}
