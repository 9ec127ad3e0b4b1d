//! kiln-sql: from statement text to results — lexer, parser, expression evaluation,
//! system variables and the session that runs statements.
//!
//! Path of a statement: `lexer` → `parse` (→ `ast`) → `session::Session::execute`
//! → `eval`/`functions` for expressions, `show` for SHOW → `result::Outcome`.
pub mod ast;
pub mod charset;
pub mod eval;
pub mod functions;
pub mod infer;
pub mod lexer;
pub mod parse;
pub mod result;
pub mod session;
pub mod show;
pub mod status;
pub mod sysvar;
pub mod value;
