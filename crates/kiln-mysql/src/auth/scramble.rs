//! The 20-byte nonce ("scramble", "auth-plugin-data") sent in Handshake v10 and in
//! AuthSwitchRequest. Both plugins mix it into the client's proof.

/// Length of the scramble in bytes, for both plugins.
pub const SCRAMBLE_LEN: usize = 20;

/// A fresh random scramble. Bytes are printable ASCII without `$` and never NUL:
/// the handshake carries the scramble as NUL-terminated strings, and some clients
/// treat it as text.
pub fn new_scramble() -> [u8; SCRAMBLE_LEN] {
    use rand::Rng as _;
    let mut rng = rand::rng();
    let mut out = [0u8; SCRAMBLE_LEN];
    for b in out.iter_mut() {
        loop {
            // 0x21..=0x7e: printable, no space.
            let c = 0x21 + (rng.next_u32() % 94) as u8;
            if c != b'$' {
                *b = c;
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scramble_is_printable_and_varies() {
        let a = new_scramble();
        let b = new_scramble();
        assert_ne!(a, b);
        for c in a.iter().chain(b.iter()) {
            assert!((0x21..=0x7e).contains(c) && *c != b'$', "byte {c:#x}");
        }
    }
}
