//! Cross-cutting tests: packed-order and round-trip properties, no panics on arbitrary
//! input, text round trips, and results confirmed against MariaDB 10.11.

use super::*;
use proptest::prelude::*;

fn any_date() -> impl Strategy<Value = Date> {
    (0u16..=9999, 0u8..=12, 0u8..=31).prop_map(|(year, month, day)| Date { year, month, day })
}

fn any_datetime() -> impl Strategy<Value = DateTime> {
    (any_date(), 0u8..24, 0u8..60, 0u8..60, 0u32..1_000_000).prop_map(
        |(date, hour, minute, second, micros)| DateTime {
            date,
            hour,
            minute,
            second,
            micros,
        },
    )
}

fn valid_datetime() -> impl Strategy<Value = DateTime> {
    (MIN_DAY_NUMBER..=MAX_DAY_NUMBER, 0i64..86_400_000_000).prop_map(|(n, us)| {
        let date = Date::from_day_number(n).unwrap();
        DateTime::from_epoch_micros(date.to_epoch_days().unwrap() * 86_400_000_000 + us).unwrap()
    })
}

fn any_time() -> impl Strategy<Value = Time> {
    (-TIME_MAX_MICROS..=TIME_MAX_MICROS).prop_map(|us| Time::from_micros(us).0)
}

/// Strings biased toward temporal syntax so the parsers' deeper paths get exercised.
fn temporalish() -> impl Strategy<Value = String> {
    prop_oneof![
        "[0-9 :.\\-/T+]{0,30}",
        "[0-9]{1,20}(\\.[0-9]{0,12})?",
        "-?[0-9]{1,4}[-/.:][0-9]{1,3}[-/.:][0-9]{1,3}([ T][0-9]{1,3}(:[0-9]{1,3}){0,3}(\\.[0-9]{0,10})?)?[a-z ]{0,3}",
        any::<String>(),
    ]
}

proptest! {
    #[test]
    fn packed_datetime_orders_and_round_trips(a in any_datetime(), b in any_datetime()) {
        prop_assert_eq!(a.packed().cmp(&b.packed()), a.cmp(&b));
        prop_assert_eq!(DateTime::from_packed(a.packed()), Some(a));
        prop_assert!(a.packed() >= 0);
    }

    #[test]
    fn packed_date_orders_and_round_trips(a in any_date(), b in any_date()) {
        prop_assert_eq!(a.packed().cmp(&b.packed()), a.cmp(&b));
        prop_assert_eq!(Date::from_packed(a.packed()), Some(a));
        prop_assert!(a.packed() < 1 << 24, "fits the 3-byte key");
    }

    #[test]
    fn packed_time_orders_and_round_trips(a in any_time(), b in any_time()) {
        prop_assert_eq!(a.packed().cmp(&b.packed()), a.cmp(&b));
        prop_assert_eq!(Time::from_packed(a.packed()), Some(a));
        prop_assert!(a.in_range());
    }

    #[test]
    fn text_round_trips(dt in valid_datetime(), t in any_time(), fsp in 0u8..=6) {
        let p = parse_datetime(&dt.to_string(), Flags::MYSQL8_DEFAULT).unwrap();
        prop_assert_eq!(p.value, dt);
        prop_assert!(!p.truncated);
        let d = parse_date(&dt.date.to_string(), Flags::MYSQL8_DEFAULT).unwrap();
        prop_assert_eq!(d.value, dt.date);
        let pt = parse_time(&t.to_string()).unwrap();
        prop_assert_eq!(pt.value, t);
        // Formatting at fsp shows the truncated value.
        let shown = parse_datetime(&dt.format_datetime(fsp), Flags::LENIENT).unwrap().value;
        prop_assert_eq!(shown, dt.truncate_to_fsp(fsp));
        let shown = parse_time(&t.format_time(fsp)).unwrap().value;
        prop_assert_eq!(shown, t.truncate_to_fsp(fsp));
        prop_assert_eq!(
            date_format(&dt, "%Y-%m-%d %H:%i:%s.%f").unwrap(),
            dt.format_datetime(6)
        );
    }

    #[test]
    fn rounding_stays_close(dt in valid_datetime(), fsp in 0u8..=6, nanos in 0u16..1000) {
        if let Some(r) = dt.round_nanos_to_fsp(nanos, fsp) {
            let diff = r.to_epoch_micros().unwrap() - dt.to_epoch_micros().unwrap();
            let unit = 10i64.pow(6 - u32::from(fsp));
            prop_assert!(diff.abs() <= unit / 2 + 1, "{dt} -> {r}");
            prop_assert_eq!(i64::from(r.micros) % unit, 0);
        } else {
            prop_assert!(dt.date.year == 9999 && dt.date.month == 12 && dt.date.day == 31);
        }
    }

    #[test]
    fn day_and_month_arithmetic_invert(dt in valid_datetime(), n in -100_000i64..100_000) {
        let iv = Interval::from_int(n, IntervalUnit::Day);
        if let Some(r) = add_interval(dt, iv) {
            prop_assert_eq!(datediff(r.date, dt.date), Some(n));
            prop_assert_eq!(add_interval(r, iv.negated()), Some(dt));
        }
        let iv = Interval::from_int(n % 1200, IntervalUnit::Month);
        if let Some(r) = add_interval(dt, iv) {
            prop_assert!(r.date.is_valid() && r.date.day <= dt.date.day);
            let back = timestampdiff(IntervalUnit::Month, dt, r);
            // Clamping the day can only lose part of a month.
            if let Some(back) = back {
                prop_assert!((back - n % 1200).abs() <= 1);
            }
        }
    }

    #[test]
    fn weeks_are_consistent(dt in valid_datetime(), mode in 0u32..8) {
        let d = dt.date;
        let w = week(d, mode).unwrap();
        prop_assert!(w <= 53);
        if mode & 2 != 0 {
            prop_assert!(w >= 1);
        }
        let yw = year_week(d, mode).unwrap();
        prop_assert!((yw / 100).abs_diff(u32::from(d.year)) <= 1 && yw % 100 >= 1);
        prop_assert_eq!(day_of_week(d).unwrap() % 7, (weekday(d).unwrap() + 2) % 7);
    }

    #[test]
    fn parsers_never_panic(s in temporalish()) {
        for flags in [Flags::LENIENT, Flags::MYSQL8_DEFAULT] {
            if let Ok(p) = parse_datetime(&s, flags) {
                prop_assert!(p.value.in_range() && p.value.check(flags).is_ok());
                prop_assert!(p.nanos < 1000);
                let _ = p.round_to_fsp(0);
            }
            if let Ok(p) = parse_date(&s, flags) {
                prop_assert!(p.value.check(flags).is_ok());
            }
        }
        if let Ok(p) = parse_time(&s) {
            prop_assert!(p.value.in_range());
            prop_assert!(p.round_to_fsp(3).0.in_range());
        }
        let _ = Year::parse(&s);
        let _ = TimeZone::parse(&s);
        let _ = Zone::from_posix_tz(&s);
        for unit in ["DAY", "SECOND", "DAY_MICROSECOND", "YEAR_MONTH", "WEEK"] {
            let unit = IntervalUnit::from_name(unit).unwrap();
            if let Ok(iv) = Interval::parse(&s, unit) {
                let _ = add_interval(DateTime::from_date(Date::MAX), iv.value);
            }
        }
    }

    #[test]
    fn format_functions_never_panic(dt in any_datetime(), t in any_time(), f in temporalish(), s in temporalish()) {
        let _ = date_format(&dt, &f);
        let _ = date_format(&dt, &format!("%{f}%"));
        let _ = time_format(&t, &f);
        let _ = str_to_date(&s, &f, Flags::LENIENT);
        let _ = str_to_date_kind(&f);
        for spec in ["%Y-%m-%d %H:%i:%s.%f", "%M %D %Y %r", "%X %V %W", "%x %v %a", "%y%j"] {
            if let Ok(p) = str_to_date(&s, spec, Flags::MYSQL8_DEFAULT) {
                prop_assert!(p.value.in_range());
            }
        }
        let all = "%a %b %c %D %d %e %f %H %h %I %i %j %k %l %M %m %p %r %S %s %T %U %u %V %v %W %w %X %x %Y %y %%";
        let _ = date_format(&dt, all);
    }

    #[test]
    fn numbers_never_panic(n in any::<i64>(), x in any::<f64>()) {
        let _ = datetime_from_int(n, Flags::LENIENT);
        let _ = time_from_int(n);
        let _ = datetime_from_f64(x, Flags::LENIENT);
        if let Ok(p) = time_from_f64(x) {
            prop_assert!(p.value.in_range());
        }
        let _ = Year::from_int(n);
        let _ = Year::from_f64(x);
        let _ = from_days(n);
        let _ = Date::from_epoch_days(n);
        let _ = DateTime::from_epoch_micros(n);
        let _ = Time::from_packed(n);
        let _ = DateTime::from_packed(n);
        let _ = make_date(n, n);
        let _ = make_time(n, n % 60, n % 61, 0);
        let _ = sec_to_time(n < 0, n.unsigned_abs(), 0);
        let utc = UnixTime { secs: n, micros: 0 };
        for tz in [TimeZone::Utc, TimeZone::Offset(-50_340), TimeZone::System] {
            let _ = from_unixtime(utc, &tz);
            let _ = timestamp_to_datetime(utc, &tz);
            let _ = tz.utc_to_local(utc);
        }
    }

    #[test]
    fn tzif_bytes_never_panic(b in proptest::collection::vec(any::<u8>(), 0..200)) {
        let mut with_magic = b"TZif2".to_vec();
        with_magic.extend_from_slice(&b);
        let _ = Zone::from_tzif("x", &b);
        if let Some(z) = Zone::from_tzif("x", &with_magic) {
            let _ = z.offset_at(0);
            let _ = z.local_to_utc(0);
        }
    }

    #[test]
    fn timestamps_round_trip(secs in TIMESTAMP_MIN_SECS..=TIMESTAMP_MAX_SECS, micros in 0u32..1_000_000, off in -50_340i32..=50_400) {
        let u = UnixTime { secs, micros };
        for tz in [TimeZone::Utc, TimeZone::Offset(off)] {
            let local = timestamp_to_datetime(u, &tz);
            prop_assert_eq!(timestamp_from_datetime(&local, &tz), Ok(u));
        }
    }
}

#[test]
fn week_table_confirmed_on_mariadb() {
    let d = |s: &str| parse_date(s, Flags::LENIENT).unwrap().value;
    // SELECT WEEK('2024-12-31', m) for m in 0..8 and YEARWEEK(…) on MariaDB 10.11.
    let got: Vec<_> = (0..8).map(|m| week(d("2024-12-31"), m).unwrap()).collect();
    assert_eq!(got, [52, 53, 52, 1, 53, 53, 1, 53]);
    let yw: Vec<_> = [0, 1, 4, 5]
        .iter()
        .map(|m| year_week(d("2024-12-31"), *m).unwrap())
        .collect();
    assert_eq!(yw, [202_452, 202_501, 202_501, 202_453]);
    assert_eq!(year_week(d("2021-01-03"), 6), Some(202_101));
    assert_eq!(year_week(d("2021-01-03"), 7), Some(202_052));
    assert_eq!(week(d("0000-01-01"), 2), Some(1));
}

#[test]
fn mysql8_rounding_differs_from_mariadb_truncation() {
    // MariaDB 10.11 truncates: CAST('2024-01-02 23:59:59.9999995' AS DATETIME(6)) is
    // …23:59:59.999999 and '…23:59:59.5' AS DATETIME(0) is …23:59:59. MySQL 8 rounds
    // by default (sql_mode without TIME_TRUNCATE_FRACTIONAL), which we follow.
    let p = parse_datetime("2024-01-02 23:59:59.9999995", Flags::LENIENT).unwrap();
    assert_eq!(
        p.round_to_fsp(6).unwrap().to_string(),
        "2024-01-03 00:00:00"
    );
    assert_eq!(
        p.value.truncate_to_fsp(6).to_string(),
        "2024-01-02 23:59:59.999999"
    );
    let p = parse_datetime("2024-01-02 23:59:59.5", Flags::LENIENT).unwrap();
    assert_eq!(
        p.round_to_fsp(0).unwrap().to_string(),
        "2024-01-03 00:00:00"
    );
    assert_eq!(
        p.value.truncate_to_fsp(0).to_string(),
        "2024-01-02 23:59:59"
    );
    // Leap day carry.
    let p = parse_datetime("2024-02-28 23:59:59.999", Flags::LENIENT).unwrap();
    assert_eq!(
        p.round_to_fsp(2).unwrap().to_string(),
        "2024-02-29 00:00:00"
    );
    let p = parse_datetime("2023-02-28 23:59:59.999", Flags::LENIENT).unwrap();
    assert_eq!(
        p.round_to_fsp(2).unwrap().to_string(),
        "2023-03-01 00:00:00"
    );
    let p = parse_datetime("1999-12-31 23:59:59.9999999", Flags::LENIENT).unwrap();
    assert_eq!(
        p.round_to_fsp(6).unwrap().to_string(),
        "2000-01-01 00:00:00"
    );
}

#[test]
fn leap_years() {
    for (y, leap) in [
        (2024, true),
        (2023, false),
        (2000, true),
        (1900, false),
        (2100, false),
        (1600, true),
        (0, false),
        (4, true),
    ] {
        assert_eq!(is_leap_year(y), leap, "{y}");
        assert_eq!(days_in_month(y, 2), if leap { 29 } else { 28 });
    }
    assert_eq!(days_in_month(2024, 0), 0);
    assert_eq!(days_in_month(2024, 13), 0);
    assert_eq!(
        datediff(
            parse_date("2024-03-01", Flags::LENIENT).unwrap().value,
            parse_date("2024-02-28", Flags::LENIENT).unwrap().value
        ),
        Some(2)
    );
    // MariaDB 10.11: DATEDIFF('0000-03-01', '0000-02-28') = 1 (year 0 is not leap).
    assert_eq!(
        datediff(
            parse_date("0000-03-01", Flags::LENIENT).unwrap().value,
            parse_date("0000-02-28", Flags::LENIENT).unwrap().value
        ),
        Some(1)
    );
}
