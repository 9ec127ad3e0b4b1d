//! Tests: documented MySQL facts, orders observed from a real server (MariaDB 10.11),
//! invariants (compare == memcmp of weights, eq => equal hashes) and LIKE.

use super::*;
#[rustfmt::skip]
mod observed;
use observed::*;
use proptest::prelude::*;
use std::hash::{DefaultHasher, Hash};
use std::time::{Duration, Instant};

fn c(name: &str) -> &'static Collation {
    by_name(name).unwrap_or_else(|| panic!("no collation {name}"))
}

fn w(coll: &Collation, s: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    coll.weights(s, &mut out);
    out
}

fn h(coll: &Collation, s: &[u8]) -> u64 {
    let mut st = DefaultHasher::new();
    coll.hash(s, &mut st);
    st.finish()
}

/// compare(a, b) and memcmp of the weight strings agree, and both are antisymmetric.
fn check_pair(coll: &Collation, a: &[u8], b: &[u8]) -> Ordering {
    let o = coll.compare(a, b);
    assert_eq!(
        o,
        w(coll, a).cmp(&w(coll, b)),
        "{} {:?} {:?}",
        coll.name,
        a,
        b
    );
    assert_eq!(
        o.reverse(),
        coll.compare(b, a),
        "{} {:?} {:?}",
        coll.name,
        a,
        b
    );
    if o == Ordering::Equal {
        assert!(coll.eq(a, b));
        assert_eq!(h(coll, a), h(coll, b), "{} {:?} {:?}", coll.name, a, b);
    }
    o
}

fn cmp_str(coll: &Collation, a: &str, b: &str) -> Ordering {
    check_pair(coll, a.as_bytes(), b.as_bytes())
}

/// Encodes a Rust string in the collation's charset (tests use latin1-safe text there).
fn enc(coll: &Collation, s: &str) -> Vec<u8> {
    let (v, lossy) = convert(Charset::Utf8mb4, coll.charset_kind(), s.as_bytes());
    assert!(!lossy || coll.charset_kind() == Charset::Binary, "{s:?}");
    if coll.charset_kind() == Charset::Binary {
        s.as_bytes().to_vec()
    } else {
        v
    }
}

#[test]
fn registry() {
    assert_eq!(by_name("UTF8MB4_0900_AI_CI").map(|c| c.id), Some(255));
    assert_eq!(by_name("utf8_general_ci").map(|c| c.id), Some(33));
    assert_eq!(by_name("utf8_bin").map(|c| c.name), Some("utf8mb3_bin"));
    assert!(by_name("klingon_ci").is_none());
    for coll in all() {
        assert_eq!(by_id(coll.id).map(|c| c.name), Some(coll.name));
        assert_eq!(by_name(coll.name).map(|c| c.id), Some(coll.id));
        assert_eq!(Charset::by_name(coll.charset), Some(coll.charset_kind()));
        assert!(coll.pad_unit() > MARK_ABOVE);
    }
    assert_eq!(
        default_for_charset("utf8mb4").map(|c| c.name),
        Some("utf8mb4_0900_ai_ci")
    );
    assert_eq!(
        default_for_charset("latin1").map(|c| c.name),
        Some("latin1_swedish_ci")
    );
    assert_eq!(
        default_for_charset("utf8").map(|c| c.name),
        Some("utf8mb3_general_ci")
    );
    assert_eq!(default_for_charset("binary").map(|c| c.id), Some(63));
    assert!(!UTF8MB4_0900_AI_CI.pad_space && !BINARY.pad_space && !UTF8MB4_0900_BIN.pad_space);
    assert!(UTF8MB4_GENERAL_CI.pad_space && LATIN1_SWEDISH_CI.pad_space && UTF8MB4_BIN.pad_space);
}

#[test]
fn case_and_accent_insensitivity() {
    for name in [
        "utf8mb4_0900_ai_ci",
        "utf8mb4_general_ci",
        "utf8mb4_unicode_ci",
        "utf8mb3_general_ci",
    ] {
        let coll = c(name);
        assert_eq!(cmp_str(coll, "a", "A"), Ordering::Equal, "{name}");
        assert_eq!(cmp_str(coll, "a", "á"), Ordering::Equal, "{name}");
        assert_eq!(cmp_str(coll, "résumé", "RESUME"), Ordering::Equal, "{name}");
        assert_eq!(cmp_str(coll, "a", "b"), Ordering::Less, "{name}");
    }
    // general_ci: 'é' = 'E' (upper-cased, accent removed)
    assert_eq!(cmp_str(UTF8MB4_GENERAL_CI, "é", "E"), Ordering::Equal);
    for name in [
        "utf8mb4_bin",
        "utf8mb4_0900_bin",
        "binary",
        "latin1_bin",
        "ascii_bin",
    ] {
        assert_ne!(c(name).compare(b"a", b"A"), Ordering::Equal, "{name}");
    }
    assert_eq!(cmp_str(UTF8MB4_BIN, "A", "a"), Ordering::Less);
}

#[test]
fn pad_space_and_no_pad() {
    for coll in all() {
        let pad = coll.compare(b"a", b"a  ");
        if coll.pad_space {
            assert_eq!(pad, Ordering::Equal, "{}", coll.name);
            assert_eq!(w(coll, b"a"), w(coll, b"a   "), "{}", coll.name);
            // the shorter side is padded with spaces: a tab (below space) sorts lower
            assert_eq!(
                check_pair(coll, b"a\t", b"a"),
                Ordering::Less,
                "{}",
                coll.name
            );
            assert_eq!(
                check_pair(coll, b"a \t", b"a"),
                Ordering::Less,
                "{}",
                coll.name
            );
            assert_eq!(
                check_pair(coll, b"a  b", b"a b"),
                Ordering::Less,
                "{}",
                coll.name
            );
            assert_eq!(
                check_pair(coll, b"", b"   "),
                Ordering::Equal,
                "{}",
                coll.name
            );
        } else {
            assert_eq!(
                check_pair(coll, b"a", b"a "),
                Ordering::Less,
                "{}",
                coll.name
            );
        }
    }
}

#[test]
fn expansions_and_sharp_s() {
    let ai = UTF8MB4_0900_AI_CI;
    assert_eq!(cmp_str(ai, "ß", "ss"), Ordering::Equal);
    assert_eq!(cmp_str(ai, "straße", "STRASSE"), Ordering::Equal);
    // DUCET gives æ the primaries of "ae" (it differs at the secondary level only)
    assert_eq!(cmp_str(ai, "æ", "ae"), Ordering::Equal);
    assert_eq!(cmp_str(ai, "æ", "a"), Ordering::Greater);
    assert_eq!(cmp_str(UTF8MB4_UNICODE_CI, "ß", "ss"), Ordering::Equal);
    assert_eq!(cmp_str(UTF8MB4_GENERAL_CI, "ß", "s"), Ordering::Equal);
    assert_ne!(cmp_str(UTF8MB4_GENERAL_CI, "ß", "ss"), Ordering::Equal);
}

#[test]
fn digits_before_letters_and_punctuation_first() {
    for coll in all() {
        let (d, l, p) = (enc(coll, "9"), enc(coll, "a"), enc(coll, "!"));
        assert_eq!(check_pair(coll, &d, &l), Ordering::Less, "{}", coll.name);
        assert_eq!(check_pair(coll, &p, &d), Ordering::Less, "{}", coll.name);
    }
    // UCA puts all punctuation and symbols before digits; general_ci keeps code order
    assert_eq!(cmp_str(UTF8MB4_0900_AI_CI, "~", "0"), Ordering::Less);
    assert_eq!(cmp_str(UTF8MB4_GENERAL_CI, "~", "0"), Ordering::Greater);
}

/// Checks that `groups` (each a set of equal characters) are in strictly increasing
/// order under `coll`, every member equal to its group's first.
fn check_order(coll: &Collation, groups: &[&str]) {
    let mut prev: Option<Vec<u8>> = None;
    for g in groups {
        let first = enc(coll, &g.chars().next().unwrap().to_string());
        for ch in g.chars() {
            let b = enc(coll, &ch.to_string());
            assert_eq!(
                check_pair(coll, &first, &b),
                Ordering::Equal,
                "{} {g:?} {ch:?}",
                coll.name
            );
        }
        if let Some(p) = &prev {
            assert_eq!(
                check_pair(coll, p, &first),
                Ordering::Less,
                "{} before {g:?}",
                coll.name
            );
        }
        prev = Some(first);
    }
}

#[test]
fn orders_observed_from_mariadb() {
    // 0900_ai_ci over ASCII, Latin-1 and Latin Extended-A, against MariaDB's
    // utf8mb4_uca1400_nopad_ai_ci (DUCET 14.0; no character here moved since 9.0)
    check_order(UTF8MB4_0900_AI_CI, &UCA1400_ORDER);
    check_order(UTF8MB4_GENERAL_CI, &GENERAL_ORDER);
    check_order(UTF8MB3_GENERAL_CI, &GENERAL_ORDER);
    check_order(UTF8MB4_UNICODE_CI, &UNICODE_ORDER);
    check_order(LATIN1_SWEDISH_CI, &SWEDISH_ORDER);
}

#[test]
fn latin1_swedish() {
    let sw = LATIN1_SWEDISH_CI;
    let b = |s: &str| enc(sw, s);
    assert_eq!(check_pair(sw, &b("Å"), &b("Z")), Ordering::Greater);
    assert_eq!(check_pair(sw, &b("Ä"), &b("Å")), Ordering::Greater);
    assert_eq!(check_pair(sw, &b("Ö"), &b("Ä")), Ordering::Greater);
    assert_eq!(check_pair(sw, &b("ü"), &b("y")), Ordering::Equal);
    assert_eq!(check_pair(sw, &b("é"), &b("E")), Ordering::Equal);
    assert_eq!(check_pair(sw, &b("å"), &b("Å")), Ordering::Equal);
    assert_eq!(check_pair(sw, b"abc", b"ABC  "), Ordering::Equal);
}

#[test]
fn contractions_and_hangul() {
    let ai = UTF8MB4_0900_AI_CI;
    assert_eq!(cmp_str(ai, "l\u{b7}", "l"), Ordering::Equal);
    assert_eq!(cmp_str(ai, "L\u{b7}a", "la"), Ordering::Equal);
    assert_eq!(cmp_str(ai, "\u{418}\u{306}", "\u{419}"), Ordering::Equal);
    assert_eq!(cmp_str(ai, "\u{418}", "\u{419}"), Ordering::Less);
    // a contraction starter not followed by its partner weighs as itself
    assert_eq!(cmp_str(ai, "l", "L"), Ordering::Equal);
    assert_eq!(cmp_str(ai, "hello", "HELLO"), Ordering::Equal);
    assert_eq!(cmp_str(ai, "hel\u{b7}lo", "HELLO"), Ordering::Equal);
    assert_eq!(cmp_str(ai, "hel\u{b7}o", "helo"), Ordering::Equal);
    assert_eq!(cmp_str(ai, "hel\u{b7}", "hel!"), Ordering::Less);
    assert_eq!(cmp_str(ai, "l\u{b7}", "l\u{387}"), Ordering::Equal);
    // Hangul syllables weigh as their jamo
    assert_eq!(cmp_str(ai, "\u{AC00}", "\u{1100}\u{1161}"), Ordering::Equal);
    assert_eq!(cmp_str(ai, "가", "나"), Ordering::Less);
    assert_eq!(cmp_str(ai, "각", "간"), Ordering::Less);
    // Han: implicit weights in code point order, after every letter
    assert_eq!(cmp_str(ai, "一", "丁"), Ordering::Less);
    assert_eq!(cmp_str(ai, "z", "一"), Ordering::Less);
}

#[test]
fn supplementary_and_invalid() {
    // general_ci and unicode_ci: everything above U+FFFF weighs 0xFFFD, which in
    // general_ci is also U+FFFD's weight (in unicode_ci U+FFFD weighs 0x0DC6)
    for coll in [UTF8MB4_GENERAL_CI, UTF8MB4_UNICODE_CI] {
        assert_eq!(cmp_str(coll, "😀", "🙂"), Ordering::Equal, "{}", coll.name);
    }
    assert_eq!(
        cmp_str(UTF8MB4_GENERAL_CI, "😀", "\u{FFFD}"),
        Ordering::Equal
    );
    assert_ne!(
        cmp_str(UTF8MB4_UNICODE_CI, "😀", "\u{FFFD}"),
        Ordering::Equal
    );
    assert_ne!(cmp_str(UTF8MB4_0900_AI_CI, "😀", "🙂"), Ordering::Equal);
    assert_eq!(cmp_str(UTF8MB4_BIN, "\u{FFFF}", "😀"), Ordering::Less);
    // invalid bytes: never panic, each is one character after every valid one
    let bad: [&[u8]; 8] = [
        b"\xff",
        b"\xc3",
        b"\xed\xa0\x80",
        b"\xf4\x90\x80\x80",
        b"\xe0\x80",
        b"a\x80b",
        b"\xc0\xaf",
        b"\xf0\x9f\x98",
    ];
    for coll in all() {
        for x in bad {
            for y in bad {
                check_pair(coll, x, y);
            }
            let _ = coll.to_upper(x);
            let _ = coll.char_len(x);
            let _ = coll.like(x, b"%_%", None);
            if matches!(coll.charset_kind(), Charset::Utf8mb3 | Charset::Utf8mb4) {
                assert_eq!(
                    check_pair(coll, "\u{10FFFF}".as_bytes(), b"\xff"),
                    Ordering::Less
                );
                assert_eq!(
                    check_pair(coll, "\u{FFFD}".as_bytes(), b"\x80"),
                    Ordering::Less
                );
            }
        }
        assert_eq!(
            check_pair(coll, b"\x80", b"\x81"),
            Ordering::Less,
            "{}",
            coll.name
        );
    }
    // utf8mb3 has no 4-byte characters: each byte of one is a bad character
    assert_eq!(UTF8MB3_GENERAL_CI.char_len("😀".as_bytes()), 4);
    assert_eq!(UTF8MB4_GENERAL_CI.char_len("😀".as_bytes()), 1);
    assert_eq!(
        UTF8MB4_GENERAL_CI.char_len(b"a\xed\xa0\x80"),
        4,
        "surrogates are invalid"
    );
}

#[test]
fn lengths() {
    let s = "aé😀z".as_bytes();
    let u = UTF8MB4_0900_AI_CI;
    assert_eq!(u.max_bytes_per_char(), 4);
    assert_eq!(UTF8MB3_BIN.max_bytes_per_char(), 3);
    assert_eq!(LATIN1_BIN.max_bytes_per_char(), 1);
    assert_eq!(u.char_len(s), 4);
    assert_eq!(u.prefix_bytes(s, 0), 0);
    assert_eq!(u.prefix_bytes(s, 2), 3);
    assert_eq!(u.prefix_bytes(s, 3), 7);
    assert_eq!(u.prefix_bytes(s, 99), s.len());
    assert_eq!(LATIN1_SWEDISH_CI.prefix_bytes(b"abc", 2), 2);
    assert_eq!(u.prefix_bytes(b"\xffab", 2), 2);
}

#[test]
fn case_mapping() {
    let u = UTF8MB4_0900_AI_CI;
    assert_eq!(u.to_upper("straße é".as_bytes()), "STRAßE É".as_bytes());
    assert_eq!(u.to_lower("ÀÉÎ İ".as_bytes()), "àéî i".as_bytes());
    assert_eq!(u.to_upper("𐐨".as_bytes()), "𐐀".as_bytes());
    assert_eq!(UTF8MB4_GENERAL_CI.to_upper("𐐨".as_bytes()), "𐐨".as_bytes());
    assert_eq!(u.to_upper(b"a\xffb"), b"A\xffB");
    // latin1 (observed): é -> É, ÿ stays (Ÿ is not in ISO latin1), š (0x9A) stays
    assert_eq!(
        LATIN1_SWEDISH_CI.to_upper(b"a\xe9\xff\x9a"),
        b"A\xc9\xff\x9a"
    );
    assert_eq!(LATIN1_SWEDISH_CI.to_lower(b"A\xc9"), b"a\xe9");
    assert_eq!(BINARY.to_upper(b"abc"), b"abc");
    assert_eq!(ASCII_GENERAL_CI.to_upper(b"ab\xe9"), b"AB\xe9");
}

#[test]
fn conversion() {
    use Charset::*;
    assert_eq!(
        convert(Latin1, Utf8mb4, b"\x80\xe9\x81"),
        ("€é\u{81}".as_bytes().to_vec(), false)
    );
    assert_eq!(
        convert(Utf8mb4, Latin1, "€é\u{81}".as_bytes()),
        (b"\x80\xe9\x81".to_vec(), false)
    );
    assert_eq!(
        convert(Utf8mb4, Latin1, "a😀ā".as_bytes()),
        (b"a??".to_vec(), true)
    );
    assert_eq!(
        convert(Utf8mb4, Utf8mb3, "a😀".as_bytes()),
        (b"a?".to_vec(), true)
    );
    assert_eq!(convert(Utf8mb4, Latin1, b"a\xff"), (b"a?".to_vec(), true));
    assert_eq!(
        convert(Utf8mb4, Ascii, "aé".as_bytes()),
        (b"a?".to_vec(), true)
    );
    assert_eq!(convert(Binary, Latin1, b"\xff"), (b"\xff".to_vec(), false));
    // every latin1 byte round-trips through utf8mb4
    for b in 0..=255u8 {
        let (u, lossy) = convert(Latin1, Utf8mb4, &[b]);
        assert!(!lossy);
        assert_eq!(convert(Utf8mb4, Latin1, &u), (vec![b], false));
        let cp = charset::latin1_to_unicode(b);
        if !(0x80..0xA0).contains(&b) {
            assert_eq!(cp, u32::from(b), "identity range used by unicode_to_latin1");
        }
    }
}

#[test]
fn like_basics() {
    let ai = UTF8MB4_0900_AI_CI;
    assert!(ai.like(b"abc", b"abc", None));
    assert!(ai.like(b"abc", b"a%", None));
    assert!(ai.like(b"abc", b"%c", None));
    assert!(ai.like(b"abc", b"a_c", None));
    assert!(!ai.like(b"abc", b"a_", None));
    assert!(ai.like(b"", b"%", None));
    assert!(!ai.like(b"", b"_", None));
    assert!(ai.like(b"ABC", b"a%c", None), "case-insensitive");
    assert!(
        ai.like("Ábc".as_bytes(), b"ab%", None),
        "accent-insensitive"
    );
    assert!(!UTF8MB4_BIN.like(b"ABC", b"a%", None));
    assert!(!ai.like(b"abc ", b"abc", None), "LIKE does not pad");
    // '_' is one character, even a multibyte one
    assert!(ai.like("é".as_bytes(), b"_", None));
    assert!(ai.like("😀x".as_bytes(), b"_x", None));
    assert!(!ai.like("😀x".as_bytes(), b"__x", None));
    assert!(UTF8MB4_GENERAL_CI.like("日本".as_bytes(), b"__", None));
    // escapes
    assert!(ai.like(b"50%", b"50\\%", None));
    assert!(!ai.like(b"500", b"50\\%", None));
    assert!(ai.like(b"a_b", b"a\\_b", None));
    assert!(!ai.like(b"axb", b"a\\_b", None));
    assert!(ai.like(b"50%", b"50!%", Some('!')));
    assert!(!ai.like(b"50\\", b"50!%", Some('!')));
    assert!(ai.like(b"a\\", b"a\\", None), "trailing escape is literal");
    assert!(ai.like_no_escape(b"a\\b", b"a\\_"));
    assert!(ai.like(b"a\\b", b"a\\\\b", None));
    // LIKE is per character: no expansions
    assert!(!ai.like("ß".as_bytes(), b"ss", None));
    assert!(UTF8MB4_GENERAL_CI.like("ß".as_bytes(), b"s", None));
    // latin1
    let sw = LATIN1_SWEDISH_CI;
    assert!(sw.like(b"\xc5ngstr\xf6m", b"\xe5%M", None));
    assert!(sw.like(b"50%", b"50\xa7%", Some('§')));
    // invalid bytes are single characters
    assert!(ai.like(b"a\xffb", b"a_b", None));
    assert!(!ai.like(b"a\xffb", b"a\xfeb", None));
}

#[test]
fn like_pathological_patterns_are_fast() {
    let s = vec![b'a'; 100_000];
    let start = Instant::now();
    for coll in [
        UTF8MB4_0900_AI_CI,
        UTF8MB4_GENERAL_CI,
        LATIN1_SWEDISH_CI,
        BINARY,
    ] {
        assert!(!coll.like(&s, b"%a%a%a%a%a%b", None));
        assert!(coll.like(&s, b"%a%a%a%a%a%", None));
        assert!(!coll.like(&s, b"%_%_%_%_b", None));
    }
    let mut t = s.clone();
    t.push(b'b');
    assert!(UTF8MB4_0900_AI_CI.like(&t, b"%a%a%a%a%a%b", None));
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "took {:?}",
        start.elapsed()
    );
}

#[test]
fn every_code_point_fits() {
    // No character (or contraction) has more units than CharUnits holds, and weights
    // never exceed their unit width.
    let mut buf = uca::CharUnits::EMPTY;
    for coll in [UTF8MB4_0900_AI_CI, UTF8MB4_UNICODE_CI, UTF8MB4_GENERAL_CI] {
        for cp in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let mut b = [0u8; 4];
            let s = cp.encode_utf8(&mut b).as_bytes();
            let used = coll.char_units(s, true, &mut buf);
            assert_eq!(used, s.len());
            assert!(
                buf.n < uca::MAX_UNITS,
                "{} U+{:X}",
                coll.name,
                u32::from(cp)
            );
            assert!(buf.as_slice().iter().all(|&u| u <= 0xFFFF));
            if coll.pad_space {
                assert!(
                    buf.as_slice()
                        .iter()
                        .all(|&u| u > MARK_ABOVE || u == 0 || coll.rules == Rules::General)
                );
            }
        }
    }
    for (k, units) in tables::UCA900_CONTRACTIONS.iter() {
        assert!(units.len() < uca::MAX_UNITS, "{k:?}");
    }
}

#[test]
fn weights_escape_friendly_and_hash_terminated() {
    // weights may contain 0x00 (the key encoding escapes it); just check they are
    // deterministic and that distinct collations differ where they should
    assert_eq!(w(BINARY, b"a\x00b"), b"a\x00b");
    assert_ne!(h(UTF8MB4_0900_AI_CI, b"ab"), h(UTF8MB4_0900_AI_CI, b"a"));
    assert_eq!(
        h(UTF8MB4_0900_AI_CI, "Straße".as_bytes()),
        h(UTF8MB4_0900_AI_CI, b"STRASSE")
    );
    let mut a = DefaultHasher::new();
    "x".hash(&mut a);
    let _ = a.finish();
}

fn interesting() -> impl Strategy<Value = Vec<u8>> {
    let pieces: Vec<&'static [u8]> = vec![
        b"a",
        b"A",
        b"b",
        b"s",
        b"S",
        b"z",
        b"0",
        b"9",
        b" ",
        b" ",
        b" ",
        b"\t",
        b"\n",
        b"!",
        b"~",
        b"_",
        b"%",
        b"l",
        b"L",
        "á".as_bytes(),
        "É".as_bytes(),
        "ß".as_bytes(),
        "ss".as_bytes(),
        "·".as_bytes(),
        "\u{306}".as_bytes(),
        "И".as_bytes(),
        "Й".as_bytes(),
        "æ".as_bytes(),
        "€".as_bytes(),
        "😀".as_bytes(),
        "🙂".as_bytes(),
        "가".as_bytes(),
        "ᄀ".as_bytes(),
        "一".as_bytes(),
        "\u{FFFD}".as_bytes(),
        "\u{AD}".as_bytes(),
        "\u{0}".as_bytes(),
        b"\xff",
        b"\x80",
        b"\xc3",
        b"\xe5",
        b"\xc5",
        b"\x9a",
    ];
    prop::collection::vec(prop::sample::select(pieces), 0..8).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn compare_matches_weights_and_hash(a in interesting(), b in interesting(), i in 0usize..13) {
        let coll = all()[i];
        let o = coll.compare(&a, &b);
        prop_assert_eq!(o, w(coll, &a).cmp(&w(coll, &b)));
        prop_assert_eq!(o.reverse(), coll.compare(&b, &a));
        prop_assert_eq!(coll.eq(&a, &b), o == Ordering::Equal);
        if o == Ordering::Equal {
            prop_assert_eq!(h(coll, &a), h(coll, &b));
        }
        // PAD SPACE: trailing spaces never matter
        if coll.pad_space {
            let mut a2 = a.clone();
            a2.extend_from_slice(b"   ");
            prop_assert!(coll.eq(&a, &a2));
            prop_assert_eq!(h(coll, &a), h(coll, &a2));
        }
        // a string LIKE itself with % and _ escaped
        let mut pat = Vec::new();
        for &x in &a {
            if x == b'%' || x == b'_' || x == b'\\' { pat.push(b'\\'); }
            pat.push(x);
        }
        prop_assert!(coll.like(&a, &pat, None));
    }

    #[test]
    fn compare_is_transitive(a in interesting(), b in interesting(), d in interesting(), i in 0usize..13) {
        let coll = all()[i];
        let (ab, bd) = (coll.compare(&a, &b), coll.compare(&b, &d));
        if ab != Ordering::Greater && bd != Ordering::Greater {
            prop_assert_ne!(coll.compare(&a, &d), Ordering::Greater);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(a in prop::collection::vec(any::<u8>(), 0..24), b in prop::collection::vec(any::<u8>(), 0..24), i in 0usize..13) {
        let coll = all()[i];
        prop_assert_eq!(coll.compare(&a, &b), w(coll, &a).cmp(&w(coll, &b)));
        let _ = coll.like(&a, &b, None);
        let _ = coll.to_lower(&a);
        prop_assert!(coll.prefix_bytes(&a, 3) <= a.len());
        prop_assert!(coll.char_len(&a) <= a.len());
    }
}
