//! Limits shared by several layers. Every input kiln accepts is bounded; a limit
//! that is also a system variable has its default and hard maximum here.

/// Largest logical packet (after joining 16 MiB physical packets) the server will
/// ever accept, whatever `max_allowed_packet` says. MySQL's own hard cap is 1 GiB.
pub const MAX_ALLOWED_PACKET_BYTES_MAX: u64 = 1 << 30;
/// Default `max_allowed_packet` (MySQL 8.0: 64 MiB).
pub const MAX_ALLOWED_PACKET_BYTES_DEFAULT: u64 = 64 << 20;
/// Smallest `max_allowed_packet` MySQL allows.
pub const MAX_ALLOWED_PACKET_BYTES_MIN: u64 = 1024;
/// Longest user name MySQL 8.0 accepts.
pub const USER_NAME_LEN_MAX: usize = 32;
/// Longest identifier (database, table, column) MySQL accepts.
pub const IDENTIFIER_LEN_MAX: usize = 64;
/// Largest number of connections `max_connections` may be set to.
pub const MAX_CONNECTIONS_MAX: u64 = 100_000;
/// Largest number of placeholders in one prepared statement (MySQL: 65,535).
pub const PREPARED_PARAMS_MAX: usize = 65_535;
/// Prepared statements one session may hold open (`max_prepared_stmt_count` is global
/// in MySQL; this is the per-session bound that keeps one client from exhausting memory).
pub const PREPARED_STMTS_PER_SESSION_MAX: usize = 16_382;
/// Expression nesting depth before error 1436 style refusal.
pub const EXPRESSION_DEPTH_MAX: usize = 256;
