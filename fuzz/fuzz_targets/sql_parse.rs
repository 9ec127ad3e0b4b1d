//! The SQL lexer and parser: any text parses or fails with a MySQL error.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        let _ = kiln_sql::parse::parse_multi(s, false);
        let _ = kiln_sql::parse::parse_multi(s, true);
    }
});
