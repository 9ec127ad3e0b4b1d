//! Values shaped like a sysbench `sbtest` row, `<id> TAB <k> TAB <c> TAB <pad>`, where
//! `c` is 119 characters (ten 11-digit groups joined by `-`) and `pad` 59 (five groups),
//! as sysbench fills `CHAR(120)` / `CHAR(60)`. memcached is loaded with these so it
//! holds rows of the same size as the SQL tables. Digits are derived from the id and
//! the seed, so a row's content is reproducible.

use std::io::Write;

use crate::rng::Rng;

/// Stream ids of the generators behind a row, apart from the connections' streams.
const K_STREAM: u64 = 0x6b5f_7374_7265_616d;
const TEXT_STREAM: u64 = 0x7478_745f_7374_726d;

/// Appends the row of `id` with column `k` set to `k`.
pub fn write_row(out: &mut Vec<u8>, id: u64, k: u64, seed: u64) {
    write!(out, "{id}\t{k}\t").unwrap();
    let mut rng = Rng::new(seed ^ TEXT_STREAM, id);
    digit_groups(out, &mut rng, 10);
    out.push(b'\t');
    digit_groups(out, &mut rng, 5);
}

/// The `k` a freshly loaded row gets: uniform in `1..=keys`, as sysbench's prepare does.
pub fn initial_k(id: u64, keys: u64, seed: u64) -> u64 {
    1 + Rng::new(seed ^ K_STREAM, id).below(keys.max(1))
}

/// `groups` groups of 11 decimal digits joined by `-`.
pub(crate) fn digit_groups(out: &mut Vec<u8>, rng: &mut Rng, groups: usize) {
    for g in 0..groups {
        if g > 0 {
            out.push(b'-');
        }
        let mut x = rng.next_u64();
        for _ in 0..11 {
            out.push(b'0' + (x % 10) as u8);
            x /= 10;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const C_LEN: usize = 119;
    const PAD_LEN: usize = 59;

    #[test]
    fn row_shape() {
        let mut out = Vec::new();
        write_row(&mut out, 17, 4242, 1);
        let s = String::from_utf8(out.clone()).unwrap();
        let cols: Vec<&str> = s.split('\t').collect();
        assert_eq!(cols.len(), 4);
        assert_eq!(cols[0], "17");
        assert_eq!(cols[1], "4242");
        assert_eq!(cols[2].len(), C_LEN);
        assert_eq!(cols[3].len(), PAD_LEN);
        assert_eq!(cols[2].split('-').count(), 10);
        assert!(
            cols[2]
                .split('-')
                .all(|g| g.len() == 11 && g.bytes().all(|b| b.is_ascii_digit()))
        );
        // Reproducible, and different ids differ.
        let mut again = Vec::new();
        write_row(&mut again, 17, 4242, 1);
        assert_eq!(out, again);
        let mut other = Vec::new();
        write_row(&mut other, 18, 4242, 1);
        assert_ne!(out[3..], other[3..]);
    }

    #[test]
    fn initial_k_in_range() {
        for id in 1..1000 {
            assert!((1..=100).contains(&initial_k(id, 100, 9)));
        }
    }
}
