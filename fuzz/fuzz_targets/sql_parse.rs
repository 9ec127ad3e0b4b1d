//! The SQL lexer and parser: any bytes a client sends (raw bytes kept in string
//! literals by `sql_text`) parse or fail with a MySQL error — never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let s = kiln_sql::lexer::sql_text(data);
    let _ = kiln_sql::parse::parse_multi(&s, false);
    let _ = kiln_sql::parse::parse_multi(&s, true);
});
