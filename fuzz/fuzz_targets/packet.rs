//! Packet framing: any byte stream, fed in arbitrary chunks, decodes to packets or a
//! clean error, never a panic, and never buffers beyond max_allowed_packet.
#![no_main]
use bytes::BytesMut;
use kiln_mysql::packet::PacketDecoder;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.is_empty() {
        return;
    }
    let chunk = (data[0] as usize % 64) + 1;
    let mut d = PacketDecoder::new(1 << 16);
    let mut buf = BytesMut::new();
    for c in data[1..].chunks(chunk) {
        buf.extend_from_slice(c);
        loop {
            match d.decode(&mut buf) {
                Ok(Some(p)) => assert!(p.payload.len() <= 1 << 16),
                Ok(None) => break,
                Err(_) => return,
            }
        }
    }
});
