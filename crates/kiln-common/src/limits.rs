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
/// Operators chained in one top-level expression (`1+1+…`, `a=1 OR a=2 OR …`, the
/// predicates applied to an operand) before error 1436. The parser builds such chains
/// in a loop, but they are left-deep trees that the binder, the type rules and the
/// evaluator walk recursively: with the nesting depth this bounds a tree's height, and
/// the SQL threads' stacks (`SQL_THREAD_STACK_BYTES`) are sized for that height.
pub const EXPRESSION_OPERATORS_MAX: usize = 4096;
/// Stack of every thread that parses or runs SQL (connection threads, pool workers):
/// an expression of `EXPRESSION_OPERATORS_MAX` chained operators inside
/// `EXPRESSION_DEPTH_MAX` nested levels needs a few MiB in the recursive passes (a
/// 2,000-term `+` chain overflowed 2 MiB). Only the touched part is backed by memory.
pub const SQL_THREAD_STACK_BYTES: usize = 16 << 20;
