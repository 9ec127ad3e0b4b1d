//! kiln-sql: from statement text to results — lexer, parser, expression evaluation,
//! system variables and the session that runs statements.
pub mod ast;
pub mod lexer;
pub mod parse;
pub mod value;
