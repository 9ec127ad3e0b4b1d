//! Property: for random values, comparing encoded keys as bytes gives the same order
//! as comparing the values (ascending and descending, single and composite parts).

use std::cmp::Ordering;

use kiln_common::key::{KeyReader, KeyWriter, decimal_bin};
use proptest::prelude::*;

fn enc(f: impl FnOnce(&mut KeyWriter)) -> Vec<u8> {
    let mut w = KeyWriter::new();
    f(&mut w);
    w.finish()
}

/// A DECIMAL(12,3) value as text, and its exact value in thousandths.
fn decimal() -> impl Strategy<Value = (String, i64)> {
    (-999_999_999_999i64..=999_999_999_999).prop_map(|m| {
        let a = m.unsigned_abs();
        (
            format!(
                "{}{}.{:03}",
                if m < 0 { "-" } else { "" },
                a / 1000,
                a % 1000
            ),
            m,
        )
    })
}

proptest! {
    #[test]
    fn ints(a: i64, b: i64, desc: bool) {
        let (ka, kb) = (enc(|k| k.int(a, 8, true, desc)), enc(|k| k.int(b, 8, true, desc)));
        let want = if desc { b.cmp(&a) } else { a.cmp(&b) };
        prop_assert_eq!(ka.cmp(&kb), want);
    }

    #[test]
    fn doubles(a in proptest::num::f64::NORMAL | proptest::num::f64::ZERO | proptest::num::f64::SUBNORMAL,
               b in proptest::num::f64::NORMAL | proptest::num::f64::ZERO) {
        let (ka, kb) = (enc(|k| k.double(a, false, false)), enc(|k| k.double(b, false, false)));
        prop_assert_eq!(ka.cmp(&kb), a.partial_cmp(&b).unwrap());
        prop_assert_eq!(KeyReader::new(&ka).double(false).unwrap(), if a == 0.0 { 0.0 } else { a });
    }

    #[test]
    fn decimals((ta, a) in decimal(), (tb, b) in decimal()) {
        let (ka, kb) = (decimal_bin(&ta, 12, 3).unwrap(), decimal_bin(&tb, 12, 3).unwrap());
        prop_assert_eq!(ka.cmp(&kb), a.cmp(&b), "{} vs {}", ta, tb);
    }

    #[test]
    fn composite_strings_and_ints(a in proptest::collection::vec(0u8..4, 0..6), x in 0i64..3,
                                  b in proptest::collection::vec(0u8..4, 0..6), y in 0i64..3, desc: bool) {
        // (string part [desc?], int part): lexicographic over parts.
        let key = |s: &[u8], n: i64| enc(|k| { k.weights(s, false, desc); k.int(n, 4, false, false); });
        let first = if desc { b.cmp(&a) } else { a.cmp(&b) };
        let want = match first { Ordering::Equal => x.cmp(&y), o => o };
        prop_assert_eq!(key(&a, x).cmp(&key(&b, y)), want);
    }
}
