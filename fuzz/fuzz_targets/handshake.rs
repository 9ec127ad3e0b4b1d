//! Handshake responses and COM_CHANGE_USER bodies: arbitrary bytes parse or error.
#![no_main]
use kiln_mysql::handshake::{parse_change_user, parse_client_hello};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = parse_client_hello(data);
    if data.len() >= 4 {
        let caps = u32::from_le_bytes([data[0], data[1], data[2], data[3]]);
        let _ = parse_change_user(&data[4..], caps);
    }
});
