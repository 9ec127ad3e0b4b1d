//! kiln-sql: from statement text to results — lexer, parser, expression evaluation,
//! system variables and the session that runs statements.
//!
//! Path of a statement: `lexer` → `parse` (→ `ast`) → `session::Session::execute`
//! → `eval`/`functions` for expressions, `show` for SHOW → `result::Outcome`.
pub mod ast;
pub mod charset;
pub mod coercion;
pub mod collate;
pub mod dict;
pub mod digest;
pub mod eval;
pub mod exec;
pub mod functions;
pub mod grl;
pub mod infer;
pub mod json;
pub mod lexer;
pub mod loadsplit;
pub mod mdl;
pub mod numeric;
pub mod parse;
mod prepared_sql;
mod privcheck;
pub mod privilege;
pub mod result;
pub mod routine;
pub mod rowapi;
pub mod rowfmt;
pub mod session;
mod session_acl;
mod session_com;
mod session_lock;
mod session_mdl;
mod session_point;
mod session_prelock;
mod session_routine;
mod session_set;
mod session_trx;
pub mod show;
pub mod status;
pub mod stmt_cache;
pub mod sysvar;
pub mod temp_tables;
pub mod temporal_store;
pub mod timestamp_zone;
pub mod types;
pub mod userlock;
pub mod value;
