//! The SQL lexer, parser and digest normalizer: any bytes a client sends (raw bytes
//! kept in string literals by `sql_text`) parse or fail with a MySQL error — never a
//! panic. A digest has one literal per placeholder when it parses.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let s = kiln_sql::lexer::sql_text(data);
    let _ = kiln_sql::parse::parse_multi(&s, false);
    let _ = kiln_sql::parse::parse_multi(&s, true);
    for nbe in [false, true] {
        if let Some((digest, literals)) = kiln_sql::digest::normalize(&s, nbe)
            && let Ok(p) = kiln_sql::parse::parse_one(&digest, nbe)
        {
            assert_eq!(p.param_count, literals.len(), "{digest}");
        }
    }
});
