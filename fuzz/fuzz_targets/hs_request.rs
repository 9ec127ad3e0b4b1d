//! The HandlerSocket line decoder and request parser: any bytes a client sends split
//! into lines and tokens, and each line parses to a request or a protocol error —
//! never a panic, and every decoded value re-encodes to bytes that decode back to it.
#![no_main]
use libfuzzer_sys::fuzz_target;

use kiln_hs::codec::{escape_into, find_line, split_tokens, strip_eol, unescape, value};
use kiln_hs::request::parse;

fuzz_target!(|data: &[u8]| {
    let mut rest = data;
    let mut tokens = Vec::new();
    while let Some(eol) = find_line(rest) {
        let line = strip_eol(&rest[..eol]);
        split_tokens(line, &mut tokens);
        let _ = parse(&tokens);
        for t in &tokens {
            if let Some(v) = value(t) {
                let mut enc = Vec::new();
                escape_into(&mut enc, &v);
                assert!(!enc.contains(&b'\t') && !enc.contains(&b'\n'));
                assert_eq!(unescape(&enc).as_ref(), v.as_ref());
            }
        }
        rest = &rest[eol + 1..];
    }
    split_tokens(rest, &mut tokens);
    let _ = parse(&tokens);
});
