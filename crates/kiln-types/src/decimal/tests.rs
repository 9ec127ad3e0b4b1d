//! DECIMAL tests: MySQL-documented results, cases checked against a real server, and
//! property tests against i128 arithmetic and `kiln_common::key::decimal_bin`.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use proptest::prelude::*;

use super::wide::BASE;
use super::*;

fn d(s: &str) -> Decimal {
    match Decimal::parse(s) {
        Ok(v) => v,
        Err(e) => panic!("parse {s:?}: {e:?}"),
    }
}

/// A result as text, errors by name, for compact expectations.
fn show(r: Result<Decimal, DecimalError>) -> String {
    match r {
        Ok(v) => {
            check(&v);
            v.to_string()
        }
        Err(e) => format!("{e:?}"),
    }
}

/// The representation invariants of the module header.
fn check(v: &Decimal) {
    let w = v.wide();
    assert!(v.coef.iter().all(|&l| l < BASE), "{:?}", v.coef);
    assert!(w.digits() <= PRECISION_MAX, "{v}");
    assert!(v.int_digits() + v.scale() <= PRECISION_MAX, "{v}");
    assert!(!(v.negative && w.is_zero()), "negative zero");
}

fn hash_of(v: &Decimal) -> u64 {
    let mut h = DefaultHasher::new();
    v.hash(&mut h);
    h.finish()
}

/// `coef × 10^-scale` spelled as MySQL prints it.
fn text_of(coef: i128, scale: u32) -> String {
    let digits = coef.unsigned_abs().to_string();
    let padded = format!("{digits:0>width$}", width = scale as usize + 1);
    let (int, frac) = padded.split_at(padded.len() - scale as usize);
    let sign = if coef < 0 { "-" } else { "" };
    match scale {
        0 => format!("{sign}{int}"),
        _ => format!("{sign}{int}.{frac}"),
    }
}

fn nines(n: usize) -> String {
    "9".repeat(n)
}

#[test]
fn mysql_documented_results() {
    // MySQL manual, "Precision Math Examples".
    assert_eq!(show(d("0.1").add(&d("0.2"))), "0.3");
    assert_eq!(d("0.1").add(&d("0.2")).unwrap(), d("0.3"));
    assert_eq!(show(d(".0001").mul(&d(".0001"))), "0.00000001");
    assert_eq!(show(d("1").div(&d("3"), 4)), "0.3333");
    assert_eq!(show(d("10.5").rem(&d("3"))), "1.5");
    assert_eq!(show(d("2.5").round(0)), "3");
    assert_eq!(show(d("-2.5").round(0)), "-3");
    assert_eq!(show(d("1.298").round(1)), "1.3");
    assert_eq!(show(d("23.298").round(-1)), "20");
    assert_eq!(d("1.223").truncate(1).to_string(), "1.2");
    assert_eq!(d("1.999").truncate(0).to_string(), "1");
    assert_eq!(d("122").truncate(-2).to_string(), "100");
    let mut sum = Decimal::zero();
    for _ in 0..10 {
        sum = sum.add(&d("0.0001")).unwrap();
    }
    assert_eq!(sum, d(".001"));
}

/// Checked against MariaDB 10.11.14 (`mariadb -e "select …"`), whose DECIMAL code
/// matches MySQL 8.0's except that its scale limit is 38 (we stay below 30 here).
/// Besides these, ~60,000 random expressions (+ - * / %, ROUND, TRUNCATE, FLOOR, CEIL,
/// CASTs of numbers and strings, quotients inside expressions) were compared with it
/// by a throwaway generator, with no difference.
#[test]
fn mariadb_checked_arithmetic() {
    let cases: &[(&str, Result<Decimal, DecimalError>)] = &[
        ("0.3", d("0.1").add(&d("0.2"))),
        ("0.6667", d("2").div(&d("3"), 4)),
        ("-1.5", d("-10.5").rem(&d("3"))),
        ("1.5", d("10.5").rem(&d("-3"))),
        ("-1.25", d("-5.25").rem(&d("2"))),
        ("0.000656789", d("123456789.123456789").rem(&d("0.0007"))),
        ("1.875", d("1.25").mul(&d("1.5"))),
        (
            "-1219326311370217952261850327336229233322.374638011112635269",
            d("12345678901234567890.123456789").mul(&d("-98765432109876543210.987654321")),
        ),
        ("-3.00000", d("-7.5").div(&d("2.5"), 4)),
        ("0.1429", d("1").div(&d("7"), 4)),
        ("-3.1429", d("-22").div(&d("7.00"), 4)),
        ("3.5000000", d("7.000").div(&d("2"), 4)),
        ("0.00003333", d("0.0001").div(&d("3"), 4)),
        ("0.3333333333333", d("1.000000000").div(&d("3"), 4)),
        (
            "176366841446208112716049382700176366841.50000",
            d("1234567890123456789012345678901234567890.5").div(&d("7"), 4),
        ),
        // div_precision_increment = 9: a 9-digit quotient is truncated, not rounded.
        ("0.666666666", d("2").div(&d("3"), 9)),
        ("0.333333333", d("1").div(&d("3"), 9)),
        ("0.6666666667", d("2.0").div(&d("3"), 9)),
        ("0.0666666667", d("0.2").div(&d("3"), 9)),
        // No word-padding left for the increment: truncated (150.8555/2156906 is
        // 0.0000699406…).
        ("0.000069940", d("150.85550").div(&d("2156906"), 4)),
        // div_precision_increment = 0.
        ("0", d("1").div(&d("3"), 0)),
        ("2", d("5").div(&d("2"), 0)),
        ("3", d("7").div(&d("2"), 0)),
        ("-3", d("-7").div(&d("2"), 0)),
        ("1.8", d("3.5").div(&d("2"), 0)),
        // div_precision_increment = 30.
        ("0.142857142857142857142857142857", d("1").div(&d("7"), 30)),
        ("3.333333333333333333333333333333", d("10").div(&d("3"), 30)),
        (
            "99999999999999999999999999999999999999999999999999999999999999998",
            d(&nines(65)).sub(&d("1")),
        ),
        ("0.000", d("-0.000").add(&d("0"))),
        ("0.000", d("0.000").mul(&d("-1"))),
        ("1.500", d("1.5").round(3)),
        ("1200", d("1234.5").round(-2)),
        ("-1.5", d("-1.45").round(1)),
        ("1.4", d("1.44999").round(1)),
        ("0", d("0.5").round(-1)),
        ("10", d("5").round(-1)),
        ("-10", d("-5").round(-1)),
        ("0", d("123.456").round(-5)),
    ];
    for (want, got) in cases {
        assert_eq!(&show(*got), want);
    }
    assert_eq!(d("1.5").truncate(3).to_string(), "1.500");
    assert_eq!(d("-1299").truncate(-2).to_string(), "-1200");
    assert_eq!(d("0.9999").truncate(2).to_string(), "0.99");
    assert_eq!(d("-0.9999").truncate(0).to_string(), "0");
    assert_eq!(d("-1.5").floor().to_string(), "-2");
    assert_eq!(d("-0.5").ceil().to_string(), "0");
    assert_eq!(d("-0.0").to_string(), "0.0");
    // CAST(x AS SIGNED / UNSIGNED).
    assert_eq!(d("1.5").to_i64(), Some(2));
    assert_eq!(d("-1.5").to_i64(), Some(-2));
    assert_eq!(d("2.4").to_i64(), Some(2));
    assert_eq!(d("-0.4").to_u64(), Some(0));
    assert_eq!(d("18446744073709551615.4").to_u64(), Some(u64::MAX));
    // CREATE TABLE … AS SELECT 0.5, 0.001, 123.45, 0.00: decimal(2,1), (4,3), (5,2), (3,2).
    let precisions: Vec<u32> = ["0.5", "0.001", "123.45", "0.00", "-0.5"]
        .iter()
        .map(|s| d(s).precision())
        .collect();
    assert_eq!(precisions, [2, 4, 5, 3, 2]);
}

/// Checked against MariaDB 10.11.14: CAST('…' AS DECIMAL(p,s)).
#[test]
fn mariadb_checked_casts() {
    let cases = [
        ("  -1.5e2 ", 10, 2, "-150.00"),
        (".5", 10, 2, "0.50"),
        ("5.", 10, 2, "5.00"),
        ("12345", 5, 2, "999.99"),
        ("123.456", 5, 2, "123.46"),
        ("-999.995", 5, 2, "-999.99"),
        ("1e-2", 10, 4, "0.0100"),
        ("123e-1", 10, 4, "12.3000"),
        ("-0", 5, 2, "0.00"),
        ("0.0005", 5, 3, "0.001"),
        ("-0.0005", 5, 3, "-0.001"),
        ("-0.0004", 5, 3, "0.000"),
        // More than 30 fraction digits are rounded once, from the digits as written.
        (
            "0.1234567890123456789012345678905",
            65,
            30,
            "0.123456789012345678901234567891",
        ),
        ("0.49999999999999999999999999999999999", 10, 0, "0"),
    ];
    for (text, p, s, want) in cases {
        let (v, _) = d(text).fit(p, s);
        check(&v);
        assert_eq!(v.to_string(), want, "CAST({text:?} AS DECIMAL({p},{s}))");
    }
    // '1.5e' reads 1.5 and leaves "e" (a truncation warning).
    assert_eq!(Decimal::parse_prefix(b"1.5e"), (Some(d("1.5")), 3));
}

/// MySQL keeps the working digits of a quotient inside an expression and rounds only
/// the final value to the expression's scale (MariaDB 10.11.14).
#[test]
fn mariadb_checked_unrounded_quotients() {
    let third = d("1").div_unrounded(&d("3"), 4).unwrap();
    assert_eq!(third.to_string(), "0.333333333");
    let sum = third.add(&third).unwrap().add(&third).unwrap();
    assert_eq!(show(sum.round(4)), "1.0000"); // 1/3 + 1/3 + 1/3
    assert_eq!(show(third.mul(&d("3")).unwrap().round(4)), "1.0000"); // 1/3*3
    let ninth = third.div_unrounded(&d("3"), 4).unwrap();
    assert_eq!(show(ninth.round(8)), "0.11111111"); // 1/3/3: scale 4 + 4
    assert_eq!(show(third.round(9)), "0.333333333"); // ROUND(1/3, 9)
    let q = d("0.5").div_unrounded(&d("3"), 4).unwrap();
    assert_eq!(show(q.mul(&d("3")).unwrap().round(5)), "0.50000"); // 0.5/3*3
    let q = d("12345.6789").div_unrounded(&d("7"), 4).unwrap();
    assert_eq!(show(q.mul(&d("7")).unwrap().round(8)), "12345.67890000");
    let q = d("1.000000000").div_unrounded(&d("3"), 4).unwrap();
    assert_eq!(show(q.mul(&d("3")).unwrap().round(13)), "1.0000000000000");
    let q = d("5").div_unrounded(&d("2"), 0).unwrap(); // increment 0: 5/2*2 = 4
    assert_eq!(show(q.mul(&d("2"))), "4");
    assert_eq!(
        show(d("1.5").div_unrounded(&d("1.5"), 0).unwrap().round(1)),
        "1.0"
    );
    assert_eq!(show(d("1").div_unrounded(&d("0"), 4)), "DivisionByZero");
    // Working digits ceil9(36 + 0 + (30 - 6)) = 63: a tiny quotient keeps them.
    let tiny = d("0.000000000000000000000000000001")
        .div_unrounded(&d(&format!("1{}", "0".repeat(30))), 30);
    assert_eq!(
        show(tiny),
        format!("0.{}1{}", "0".repeat(59), "0".repeat(3))
    );
}

#[test]
fn sixty_five_digits() {
    let big = format!("{}.{}", nines(35), nines(30)); // DECIMAL(65,30)'s max
    let ulp = format!("0.{}1", "0".repeat(29));
    assert_eq!(
        show(d(&big).sub(&d(&ulp))),
        format!("{}.{}8", nines(35), nines(29))
    );
    // 10^35 needs 36 integer digits: one fraction digit gives way.
    assert_eq!(
        show(d(&big).add(&d(&ulp))),
        format!("1{}.{}", "0".repeat(35), "0".repeat(29))
    );
    let a = "12345678901234567890123456789012345678901234567890123456789012345";
    let b = "87654321098765432109876543210987654321098765432109876543210987654";
    assert_eq!(show(d(a).add(&d(b))), nines(65));
    assert_eq!(
        show(d(&nines(65)).sub(&d(b))),
        "12345678901234567890123456789012345678901234567890123456789012345"
    );
    // 66 integer digits: overflow.
    assert_eq!(show(d(&nines(65)).add(&d("1"))), "Overflow");
    assert_eq!(show(d(&nines(65)).add(&d("0.5"))), "Overflow");
    assert_eq!(show(d(&format!("-{}", nines(65))).sub(&d("1"))), "Overflow");
    assert_eq!(
        show(d(&format!("1{}", "0".repeat(33))).mul(&d(&format!("1{}", "0".repeat(32))))),
        "Overflow"
    );
    assert_eq!(
        show(d(&format!("1{}", "0".repeat(32))).mul(&d(&format!("1{}", "0".repeat(32))))).len(),
        65
    );
    assert_eq!(show(d(&nines(65)).div(&d("0.1"), 4)), "Overflow");
    assert_eq!(show(d(&nines(65)).round(-1)), "Overflow");
    assert_eq!(show(d(&nines(65)).round(-66)), "0");
    // 36 integer + 30 fraction digits need 66: the fraction gives way, rounded.
    // 2·big = 1{35 nines}.{29 nines}8: the dropped 8 rounds up and carries through.
    assert_eq!(
        show(d(&big).add(&d(&big))),
        format!("2{}.{}", "0".repeat(35), "0".repeat(29))
    );
    let half = format!("5{}.{}2", "0".repeat(34), "0".repeat(29));
    assert_eq!(
        show(d(&half).add(&d(&half))),
        format!("1{}.{}", "0".repeat(35), "0".repeat(29))
    );
    // 40 integer digits leave 25 for the fraction: rounded once, at the 26th digit
    // (a 4), not first at 30 (…49999|9 → …50000) and then at 25.
    let long = format!("0.{}4{}", "0".repeat(25), nines(9));
    let sum = d(&format!("1{}", "0".repeat(39))).add(&d(&long));
    assert_eq!(show(sum), format!("1{}.{}", "0".repeat(39), "0".repeat(25)));
    assert_eq!(show(d(&nines(65)).mul(&d("2"))), "Overflow");
    assert_eq!(d(&nines(64)).mul(&d("9")).unwrap().int_digits(), 65);
    assert_eq!(
        d(&format!("{}.5", nines(64))).ceil().to_string(),
        format!("1{}", "0".repeat(64))
    );
}

#[test]
fn parse_and_display() {
    let cases = [
        ("  -1.5e2 ", "-150"),
        ("1.50e1", "15.0"),
        ("1.5e-3", "0.0015"),
        ("+.5", "0.5"),
        ("-.5", "-0.5"),
        ("000012.50", "12.50"),
        ("-0.00", "0.00"),
        ("0e99999999999999999999", "0"),
        ("\t\n7\r\n", "7"),
        ("1E+2", "100"),
        ("1e64", &format!("1{}", "0".repeat(64))),
        (&format!("{}1", "0".repeat(200)), "1"),
        (
            &format!("0.{}1", "0".repeat(63)),
            &format!("0.{}1", "0".repeat(63)),
        ),
        // 66 fraction digits: the 66th rounds the 65th.
        (
            &format!("0.{}15", "0".repeat(64)),
            &format!("0.{}2", "0".repeat(64)),
        ),
        (
            &format!("0.{}5", "0".repeat(65)),
            &format!("0.{}1", "0".repeat(64)),
        ),
        (
            &format!("0.{}4", "0".repeat(65)),
            &format!("0.{}", "0".repeat(65)),
        ),
        // 60 integer digits leave room for 5 fraction digits, rounded half up.
        (
            &format!("{}.{}", "1".repeat(60), "9".repeat(10)),
            &format!("{}2.00000", "1".repeat(59)),
        ),
        (&format!("{}.5", nines(64)), &format!("{}.5", nines(64))),
    ];
    for (text, want) in cases {
        let v = d(text);
        check(&v);
        assert_eq!(v.to_string(), want, "parse {text:?}");
        assert_eq!(d(want), v);
    }
    for bad in [
        "", " ", ".", "-", "+", "e5", "1.5e", "1.5e+", "1 2", "abc", "--1", "1..2", "+.e1", "0x10",
        "1.5 x", "- 1", "１",
    ] {
        assert_eq!(Decimal::parse(bad), Err(DecimalError::Syntax), "{bad:?}");
    }
    assert_eq!(Decimal::parse(&"9".repeat(66)), Err(DecimalError::Overflow));
    assert_eq!(Decimal::parse("1e65"), Err(DecimalError::Overflow));
    assert_eq!(
        Decimal::parse(&format!("{}.5", nines(65))),
        Err(DecimalError::Overflow)
    );
    assert_eq!(Decimal::parse_prefix(b"12abc"), (Some(d("12")), 2));
    assert_eq!(Decimal::parse_prefix(b"  7  x"), (Some(d("7")), 5));
    assert_eq!(Decimal::parse_prefix(b"1e+x"), (Some(d("1")), 1));
    assert_eq!(Decimal::parse_prefix(b""), (None, 0));
    assert_eq!(Decimal::parse_prefix(b" x"), (None, 0));
    assert_eq!(
        Decimal::parse_prefix(format!("-{} ", nines(70)).as_bytes()),
        (None, 72)
    );
    assert_eq!(format!("[{:>6}]", d("-1.5")), "[  -1.5]");
    assert_eq!(format!("{:?}", d("2.50")), "Decimal(2.50)");
}

#[test]
fn fit_into_columns() {
    let cases = [
        ("123.456", 5, 2, "123.46", Fit::Rounded),
        ("12345", 5, 2, "999.99", Fit::OutOfRange),
        ("-12345", 5, 2, "-999.99", Fit::OutOfRange),
        ("999.995", 5, 2, "999.99", Fit::OutOfRange),
        ("999.994", 5, 2, "999.99", Fit::Rounded),
        ("1.5", 5, 2, "1.50", Fit::Exact),
        ("1.500", 5, 2, "1.50", Fit::Exact),
        ("-0.001", 5, 2, "0.00", Fit::Rounded),
        ("0.5", 5, 5, "0.50000", Fit::Exact),
        ("1", 5, 5, "0.99999", Fit::OutOfRange),
        ("7", 0, 0, "7", Fit::Exact),         // precision clamped to 1
        ("77", 1, 9, "0.9", Fit::OutOfRange), // DECIMAL(1,9) clamped to DECIMAL(1,1)
    ];
    for (text, p, s, want, how) in cases {
        let (v, fit) = d(text).fit(p, s);
        check(&v);
        assert_eq!(
            (v.to_string(), fit),
            (want.to_string(), how),
            "{text} into ({p},{s})"
        );
    }
    let (max, fit) = d(&nines(65)).fit(65, 30);
    assert_eq!(
        (max.to_string(), fit),
        (format!("{}.{}", nines(35), nines(30)), Fit::OutOfRange)
    );
}

#[test]
fn rounding_functions() {
    let cases = [
        ("0.5", 0, "1"),
        ("-0.5", 0, "-1"),
        ("0.49", 0, "0"),
        ("9.95", 1, "10.0"),
        ("-9.95", 1, "-10.0"),
        ("15", -1, "20"),
        ("14.99", -1, "10"),
        ("1.5", 40, "1.500000000000000000000000000000"),
        ("1.5", i32::MAX, "1.500000000000000000000000000000"),
        ("12345", i32::MIN, "0"),
    ];
    for (text, scale, want) in cases {
        assert_eq!(show(d(text).round(scale)), want, "ROUND({text}, {scale})");
    }
    assert_eq!(d("-9.99").truncate(1).to_string(), "-9.9");
    assert_eq!(d("-9.99").truncate(-1).to_string(), "0");
    assert_eq!(d("12345").truncate(i32::MIN).to_string(), "0");
    assert_eq!(d("1.001").ceil().to_string(), "2");
    assert_eq!(d("-1.001").ceil().to_string(), "-1");
    assert_eq!(d("-1.001").floor().to_string(), "-2");
    assert_eq!(d("1.999").floor().to_string(), "1");
    assert_eq!(d("-7").floor().to_string(), "-7");
    assert_eq!(d("0.000").floor().to_string(), "0");
}

#[test]
fn conversions() {
    assert_eq!(d("9223372036854775807.4").to_i64(), Some(i64::MAX));
    assert_eq!(d("9223372036854775807.5").to_i64(), None);
    assert_eq!(d("-9223372036854775808.4").to_i64(), Some(i64::MIN));
    assert_eq!(d("-9223372036854775808.5").to_i64(), None);
    assert_eq!(d("18446744073709551615.5").to_u64(), None);
    assert_eq!(d("-0.5").to_u64(), None);
    assert_eq!(d(&nines(65)).to_i64(), None);
    assert_eq!(
        Decimal::from_i64(i64::MIN).to_string(),
        "-9223372036854775808"
    );
    assert_eq!(
        Decimal::from_u64(u64::MAX).to_string(),
        "18446744073709551615"
    );
    assert_eq!(Decimal::from_i64(i64::MIN).to_i64(), Some(i64::MIN));
    assert!(Decimal::from_i64(0).neg().to_string() == "0" && !Decimal::zero().neg().is_negative());
    let from = |v: f64| Decimal::from_f64(v).map(|d| d.to_string());
    assert_eq!(from(0.1).as_deref(), Some("0.1"));
    assert_eq!(from(1500.0).as_deref(), Some("1500"));
    assert_eq!(from(-123.456).as_deref(), Some("-123.456"));
    assert_eq!(from(1e-7).as_deref(), Some("0.0000001"));
    assert_eq!(from(-0.0).as_deref(), Some("0"));
    assert_eq!(from(1e65), None);
    assert_eq!(from(f64::NAN), None);
    assert_eq!(from(f64::INFINITY), None);
    assert!(from(1e64).is_some());
    assert!(Decimal::from_f64(5e-324).is_some_and(|v| v.is_zero()));
    assert_eq!(d("0.1").to_f64(), 0.1);
    assert_eq!(d("-1.5").to_f64(), -1.5);
    assert_eq!(d("1e-60").to_f64(), 1e-60);
    assert_eq!(d(&nines(65)).to_f64(), 1e65);
}

#[test]
fn equality_order_and_hash() {
    assert_eq!(d("1.50"), d("1.5"));
    assert_eq!(hash_of(&d("1.50")), hash_of(&d("1.5")));
    assert_eq!(d("100"), d("1e2"));
    assert_eq!(hash_of(&d("100")), hash_of(&d("1.00e2")));
    assert_eq!(d("-0.00"), d("0"));
    assert_eq!(hash_of(&d("-0.00")), hash_of(&d("0")));
    assert_ne!(hash_of(&d("-1")), hash_of(&d("1")));
    let sorted = [
        "-100", "-99.99", "-1", "-0.5", "-0.05", "0", "0.001", "0.01", "0.1", "1", "9.9", "10",
    ];
    let vals: Vec<Decimal> = sorted.iter().map(|s| d(s)).collect();
    assert!(vals.windows(2).all(|p| p[0] < p[1]), "{vals:?}");
}

#[test]
fn binary_layout() {
    // MySQL manual / key.rs: DECIMAL(14,4) 1234567890.1234 is 81 0D FB 38 D2 04 D2.
    assert_eq!(
        d("1234567890.1234").to_bin(14, 4),
        [0x81, 0x0D, 0xFB, 0x38, 0xD2, 0x04, 0xD2]
    );
    assert_eq!(
        d("-1234567890.1234").to_bin(14, 4),
        [0x7E, 0xF2, 0x04, 0xC7, 0x2D, 0xFB, 0x2D]
    );
    assert_eq!(Decimal::bin_size(14, 4), 7);
    assert_eq!(Decimal::bin_size(65, 30), 30);
    assert_eq!(Decimal::bin_size(10, 0), 5);
    assert_eq!(Decimal::bin_size(9, 9), 4);
    for (p, s) in [
        (1, 0),
        (1, 1),
        (5, 2),
        (9, 0),
        (10, 1),
        (18, 9),
        (30, 30),
        (65, 0),
        (65, 30),
    ] {
        for text in [
            "0",
            "1",
            "-1",
            "0.5",
            "-0.5",
            "123456789.987654321",
            "-3.14159",
        ] {
            let (v, _) = d(text).fit(p, s);
            let bin = v.to_bin(p, s);
            assert_eq!(bin.len(), Decimal::bin_size(p, s));
            let key = kiln_common::key::decimal_bin(&v.to_string(), p, s).unwrap();
            assert_eq!(bin, key, "{v} as DECIMAL({p},{s})");
            let (back, used) = Decimal::from_bin(&bin, p, s).unwrap();
            assert_eq!((back.to_string(), used), (v.to_string(), bin.len()));
        }
    }
    // Out-of-range values are clamped first.
    assert_eq!(d("12345").to_bin(5, 2), d("999.99").to_bin(5, 2));
    // Invalid bytes: too short, a group beyond its digits.
    assert_eq!(Decimal::from_bin(&[0x80, 0], 5, 2), None);
    assert_eq!(Decimal::from_bin(&[0x80 | 0x0F, 0xFF, 0x00], 5, 2), None);
    assert_eq!(
        Decimal::from_bin(&[0x80, 0x00, 0x00, 0xFF], 5, 2).map(|(v, n)| (v.to_string(), n)),
        Some(("0.00".into(), 3))
    );
    // Negative zero (all bytes of +0 inverted) reads as zero.
    assert_eq!(
        Decimal::from_bin(&[0x7F, 0xFF, 0xFF], 5, 2).map(|(v, _)| v.is_negative()),
        Some(false)
    );
}

/// The bytes of number-shaped text, weighted toward 9s and 0s (carries, zeros).
const NUMBER_BYTES: &[u8] = b"0123456789999000+-.eE ";

/// (coefficient, scale) pairs for values that fit comfortably in i128.
fn small(coef_max: i128, scale_max: u32) -> impl Strategy<Value = (i128, u32)> {
    (-coef_max..=coef_max, 0..=scale_max)
}

proptest! {
    #[test]
    fn add_sub_mul_cmp_match_i128(
        (a, sa) in small(10i128.pow(18), 9),
        (b, sb) in small(10i128.pow(18), 9),
    ) {
        let (x, y) = (d(&text_of(a, sa)), d(&text_of(b, sb)));
        let s = sa.max(sb);
        let (a_s, b_s) = (a * 10i128.pow(s - sa), b * 10i128.pow(s - sb));
        prop_assert_eq!(show(x.add(&y)), text_of(a_s + b_s, s));
        prop_assert_eq!(show(x.sub(&y)), text_of(a_s - b_s, s));
        prop_assert_eq!(show(x.mul(&y)), text_of(a * b, sa + sb));
        prop_assert_eq!(x.cmp(&y), a_s.cmp(&b_s));
        if x == y {
            prop_assert_eq!(hash_of(&x), hash_of(&y));
        }
        prop_assert_eq!(x.to_string(), text_of(a, sa));
        prop_assert_eq!(d(&x.to_string()).to_string(), x.to_string());
        prop_assert_eq!(x.neg().to_string(), text_of(-a, sa));
    }

    #[test]
    fn bin_preserves_order_and_matches_key(
        (a, sa) in small(10i128.pow(18), 9),
        (b, sb) in small(10i128.pow(18), 9),
    ) {
        // Values with ≤ 18 integer digits and ≤ 9 fraction digits fit DECIMAL(30,9).
        let (x, y) = (d(&text_of(a, sa)), d(&text_of(b, sb)));
        let (bx, by) = (x.to_bin(30, 9), y.to_bin(30, 9));
        prop_assert_eq!(bx.cmp(&by), x.cmp(&y));
        let key = kiln_common::key::decimal_bin(&x.to_string(), 30, 9).unwrap();
        prop_assert_eq!(&bx, &key);
        let (back, used) = Decimal::from_bin(&bx, 30, 9).unwrap();
        prop_assert_eq!((back, used), (x, bx.len()));
    }

    #[test]
    fn div_rem_round_match_i128(
        (a, sa) in small(10i128.pow(12), 6),
        (b, sb) in small(10i128.pow(12), 6),
        increment in 0u32..=12,
        places in -8i32..=12,
    ) {
        let (x, y) = (d(&text_of(a, sa)), d(&text_of(b, sb)));
        if b == 0 {
            prop_assert_eq!(x.div(&y, increment), Err(DecimalError::DivisionByZero));
            prop_assert_eq!(x.rem(&y), Err(DecimalError::DivisionByZero));
        } else {
            // MySQL: truncate to its working digits, round half up to the scale (a no-op
            // when no digit is left beyond it).
            let scale = sa + increment;
            let padding = (ceil9(sa) - sa) + (ceil9(sb) - sb);
            let computed = ceil9(ceil9(sa) + ceil9(sb) + increment.saturating_sub(padding));
            let computed = computed.min(scale + 1);
            let q = a.abs() * 10i128.pow(sb + computed) / (b.abs() * 10i128.pow(sa));
            let q = if computed > scale { (q + 5) / 10 } else { q };
            let q = if (a < 0) != (b < 0) { -q } else { q };
            prop_assert_eq!(show(x.div(&y, increment)), text_of(q, scale));
            let s = sa.max(sb);
            let r = a * 10i128.pow(s - sa) % (b * 10i128.pow(s - sb));
            prop_assert_eq!(show(x.rem(&y)), text_of(r, s));
        }
        // ROUND / TRUNCATE at `places`.
        let target = places.clamp(0, 30) as u32;
        let drop = sa as i32 - places;
        let (rounded, truncated) = if drop <= 0 {
            let up = 10i128.pow(target - sa);
            (a * up, a * up)
        } else {
            let p = 10i128.pow(drop as u32);
            let half = a.abs() % p * 2 >= p;
            let t = a.abs() / p;
            let r = if half { t + 1 } else { t };
            let back = 10i128.pow((-places).max(0) as u32);
            (a.signum() * r * back, a.signum() * t * back)
        };
        prop_assert_eq!(show(x.round(places)), text_of(rounded, target));
        prop_assert_eq!(x.truncate(places).to_string(), text_of(truncated, target));
        let floor = a.div_euclid(10i128.pow(sa));
        prop_assert_eq!(x.floor().to_string(), floor.to_string());
        prop_assert_eq!(x.ceil().to_string(), (-(-a).div_euclid(10i128.pow(sa))).to_string());
        let one = 10i128.pow(sa);
        let nearest = a / one + if a.abs() % one * 2 >= one { a.signum() } else { 0 };
        prop_assert_eq!(x.to_i64(), i64::try_from(nearest).ok());
    }

    #[test]
    fn parse_never_panics(s in "\\PC{0,80}") {
        if let Ok(v) = Decimal::parse(&s) {
            check(&v);
        }
        let (v, used) = Decimal::parse_prefix(s.as_bytes());
        prop_assert!(used <= s.len());
        if let Some(v) = v {
            check(&v);
        }
    }

    #[test]
    fn number_shaped_text_round_trips(
        bytes in prop::collection::vec(prop::sample::select(NUMBER_BYTES.to_vec()), 0..120),
    ) {
        let (v, used) = Decimal::parse_prefix(&bytes);
        prop_assert!(used <= bytes.len());
        if let Some(v) = v {
            check(&v);
            let text = v.to_string();
            prop_assert_eq!(d(&text).to_string(), text);
            prop_assert_eq!(Decimal::parse(std::str::from_utf8(&bytes[..used]).unwrap()), Ok(v));
        }
    }

    #[test]
    fn from_bin_never_panics(
        bytes in prop::collection::vec(any::<u8>(), 0..40),
        p in 0u32..70,
        s in 0u32..35,
    ) {
        if let Some((v, used)) = Decimal::from_bin(&bytes, p, s) {
            check(&v);
            prop_assert_eq!(used, Decimal::bin_size(p, s));
            prop_assert!(v.to_bin(p, s) == bytes[..used] || v.is_zero());
        }
    }

    #[test]
    fn big_values_keep_invariants(
        a in "-?[0-9]{0,40}(\\.[0-9]{0,40})?",
        b in "-?[0-9]{1,40}(\\.[0-9]{0,40})?",
        increment in 0u32..=40,
        places in -70i32..70,
    ) {
        let (Ok(x), Ok(y)) = (Decimal::parse(&a), Decimal::parse(&b)) else {
            return Ok(());
        };
        check(&x);
        check(&y);
        let results = [
            x.add(&y), x.sub(&y), x.mul(&y), x.div(&y, increment), x.rem(&y), x.round(places),
        ];
        for v in results.into_iter().flatten() {
            check(&v);
            prop_assert!(v.scale() <= SCALE_MAX);
        }
        for v in [x.truncate(places), x.floor(), x.ceil(), x.fit(65, 30).0, x.fit(20, 10).0] {
            check(&v);
            prop_assert!(v.scale() <= SCALE_MAX);
        }
        prop_assert_eq!(x.add(&y), y.add(&x));
        prop_assert_eq!(x.mul(&y), y.mul(&x));
        prop_assert!(x.sub(&x).is_ok_and(|z| z.is_zero()));
        // Big-number division: for integers, div with increment 0 truncates (MySQL's
        // 0 working digits), so x = q·y + x % y exactly.
        let (xi, yi) = (x.truncate(0), y.truncate(0));
        if !yi.is_zero() {
            let q = xi.div(&yi, 0).unwrap();
            let r = xi.rem(&yi).unwrap();
            prop_assert!(r.abs() < yi.abs());
            prop_assert_eq!(q.mul(&yi).unwrap().add(&r).unwrap(), xi);
        }
        // Numeric equality ignores the scale; hashes agree.
        let (f, _) = x.fit(65, 30);
        if x.scale() <= 30 && x.int_digits() <= 35 {
            prop_assert_eq!(f, x);
            prop_assert_eq!(hash_of(&f), hash_of(&x));
        }
        // A non-zero difference (it may round to zero at 30 digits) has the order's sign.
        if let Ok(z) = x.sub(&y)
            && !z.is_zero()
        {
            prop_assert_eq!(z.is_negative(), x < y);
        }
    }
}
