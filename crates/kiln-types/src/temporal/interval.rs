//! INTERVAL values and date arithmetic: DATE_ADD/DATE_SUB (`add_interval`), DATEDIFF,
//! TIMEDIFF and TIMESTAMPDIFF.
//!
//! An interval is a sign plus unsigned fields (years … microseconds), as MySQL keeps
//! it. Units with a month or year part move the calendar month and clamp the day to
//! the new month's length (2024-01-31 + 1 MONTH = 2024-02-29); all other units are an
//! exact count of microseconds added to the datetime. Results outside the DATETIME
//! range are `None` (MySQL: NULL with a warning).

use super::{Date, DateTime, Parsed, TemporalError, Time, days_in_month};

/// An INTERVAL unit keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntervalUnit {
    Microsecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
    SecondMicrosecond,
    MinuteMicrosecond,
    MinuteSecond,
    HourMicrosecond,
    HourSecond,
    HourMinute,
    DayMicrosecond,
    DaySecond,
    DayMinute,
    DayHour,
    YearMonth,
}

/// One field of an interval value, for the compound units' `'1 2:3'` strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Micro,
}

const UNITS: [(IntervalUnit, &str); 20] = [
    (IntervalUnit::Microsecond, "MICROSECOND"),
    (IntervalUnit::Second, "SECOND"),
    (IntervalUnit::Minute, "MINUTE"),
    (IntervalUnit::Hour, "HOUR"),
    (IntervalUnit::Day, "DAY"),
    (IntervalUnit::Week, "WEEK"),
    (IntervalUnit::Month, "MONTH"),
    (IntervalUnit::Quarter, "QUARTER"),
    (IntervalUnit::Year, "YEAR"),
    (IntervalUnit::SecondMicrosecond, "SECOND_MICROSECOND"),
    (IntervalUnit::MinuteMicrosecond, "MINUTE_MICROSECOND"),
    (IntervalUnit::MinuteSecond, "MINUTE_SECOND"),
    (IntervalUnit::HourMicrosecond, "HOUR_MICROSECOND"),
    (IntervalUnit::HourSecond, "HOUR_SECOND"),
    (IntervalUnit::HourMinute, "HOUR_MINUTE"),
    (IntervalUnit::DayMicrosecond, "DAY_MICROSECOND"),
    (IntervalUnit::DaySecond, "DAY_SECOND"),
    (IntervalUnit::DayMinute, "DAY_MINUTE"),
    (IntervalUnit::DayHour, "DAY_HOUR"),
    (IntervalUnit::YearMonth, "YEAR_MONTH"),
];

impl IntervalUnit {
    /// The unit of a keyword, case-insensitively ("day_hour" → DayHour).
    pub fn from_name(name: &str) -> Option<IntervalUnit> {
        UNITS
            .iter()
            .find(|(_, n)| n.eq_ignore_ascii_case(name))
            .map(|(u, _)| *u)
    }

    pub fn name(self) -> &'static str {
        UNITS
            .iter()
            .find(|(u, _)| *u == self)
            .map_or("", |(_, n)| n)
    }

    /// A single-field unit (the ones TIMESTAMPDIFF and EXTRACT-style callers accept).
    pub fn is_simple(self) -> bool {
        !self.name().contains('_')
    }

    /// Whether the unit moves calendar months (and so clamps the day).
    pub fn is_month_based(self) -> bool {
        matches!(
            self,
            IntervalUnit::Month
                | IntervalUnit::Quarter
                | IntervalUnit::Year
                | IntervalUnit::YearMonth
        )
    }

    /// The fields a compound unit's string holds, left to right.
    fn fields(self) -> &'static [Field] {
        use Field::*;
        match self {
            IntervalUnit::Microsecond => &[Micro],
            IntervalUnit::Second => &[Second],
            IntervalUnit::Minute => &[Minute],
            IntervalUnit::Hour => &[Hour],
            IntervalUnit::Day | IntervalUnit::Week => &[Day],
            IntervalUnit::Month | IntervalUnit::Quarter => &[Month],
            IntervalUnit::Year => &[Year],
            IntervalUnit::SecondMicrosecond => &[Second, Micro],
            IntervalUnit::MinuteMicrosecond => &[Minute, Second, Micro],
            IntervalUnit::MinuteSecond => &[Minute, Second],
            IntervalUnit::HourMicrosecond => &[Hour, Minute, Second, Micro],
            IntervalUnit::HourSecond => &[Hour, Minute, Second],
            IntervalUnit::HourMinute => &[Hour, Minute],
            IntervalUnit::DayMicrosecond => &[Day, Hour, Minute, Second, Micro],
            IntervalUnit::DaySecond => &[Day, Hour, Minute, Second],
            IntervalUnit::DayMinute => &[Day, Hour, Minute],
            IntervalUnit::DayHour => &[Day, Hour],
            IntervalUnit::YearMonth => &[Year, Month],
        }
    }
}

/// An INTERVAL value: `negative` applies to every field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Interval {
    /// Decides month arithmetic (with day clamping) versus exact time arithmetic.
    pub unit: IntervalUnit,
    pub negative: bool,
    pub years: u64,
    pub months: u64,
    pub days: u64,
    pub hours: u64,
    pub minutes: u64,
    pub seconds: u64,
    pub micros: u64,
}

impl Interval {
    fn zero(unit: IntervalUnit) -> Interval {
        Interval {
            unit,
            negative: false,
            years: 0,
            months: 0,
            days: 0,
            hours: 0,
            minutes: 0,
            seconds: 0,
            micros: 0,
        }
    }

    fn set(&mut self, field: Field, v: u64) {
        match field {
            Field::Year => self.years = v,
            Field::Month => self.months = v,
            Field::Day => self.days = v,
            Field::Hour => self.hours = v,
            Field::Minute => self.minutes = v,
            Field::Second => self.seconds = v,
            Field::Micro => self.micros = v,
        }
    }

    /// Scales the single value of a simple unit into its field (WEEK = 7 days, QUARTER
    /// = 3 months); saturation makes an absurd value fail in `add_interval`.
    fn simple(unit: IntervalUnit, negative: bool, v: u64) -> Interval {
        let mut iv = Interval {
            negative,
            ..Interval::zero(unit)
        };
        let v = match unit {
            IntervalUnit::Week => v.saturating_mul(7),
            IntervalUnit::Quarter => v.saturating_mul(3),
            _ => v,
        };
        iv.set(unit.fields()[0], v);
        iv
    }

    /// `INTERVAL n unit` for an integer `n`. A compound unit reads the number as its
    /// string, so `INTERVAL 5 DAY_HOUR` is 5 hours (MariaDB 10.11).
    pub fn from_int(n: i64, unit: IntervalUnit) -> Interval {
        if unit.is_simple() {
            Interval::simple(unit, n < 0, n.unsigned_abs())
        } else {
            Interval::parse(&n.to_string(), unit)
                .map(|p| p.value)
                .unwrap_or(Interval::zero(unit))
        }
    }

    /// `INTERVAL s.micros SECOND` with a fractional number of seconds (MySQL keeps the
    /// fraction for SECOND; other simple units round the number to an integer first,
    /// which is the caller's job: `INTERVAL 1.5 DAY` is 2 days).
    pub fn from_seconds(negative: bool, seconds: u64, micros: u32) -> Interval {
        Interval {
            negative,
            seconds,
            micros: u64::from(micros.min(999_999)),
            ..Interval::zero(IntervalUnit::Second)
        }
    }

    /// `INTERVAL 'text' unit`.
    ///
    /// * Simple units read the string as a number the way MySQL converts strings to
    ///   integers — leading spaces, a sign, digits; anything after is dropped with
    ///   `truncated` (so `'1.5' DAY` is 1 day and `'x' DAY` is 0 days with a warning,
    ///   MariaDB 10.11). SECOND keeps a decimal fraction (`'1.5' SECOND`).
    /// * Compound units take a leading `-` for the whole interval, then runs of digits
    ///   separated by any non-digits (`'1 2:3:4'`, `'1::2'`). Missing leading parts
    ///   are zero (`'1:10' DAY_SECOND` is 1 minute 10 seconds); more parts than the
    ///   unit has is an error (NULL). A microsecond part is a fraction: `'1.5'
    ///   SECOND_MICROSECOND` is 1.5 s, digits past the sixth are dropped.
    pub fn parse(s: &str, unit: IntervalUnit) -> Result<Parsed<Interval>, TemporalError> {
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let negative = b.get(i) == Some(&b'-');
        if unit.is_simple() {
            if negative || b.get(i) == Some(&b'+') {
                i += 1;
            }
            let (v, n, end) = digits(b, i);
            let mut iv = Interval::simple(unit, negative && v > 0, v);
            let mut end = end;
            if unit == IntervalUnit::Second && n > 0 && b.get(end) == Some(&b'.') {
                let (_, fd, fend) = digits(b, end + 1);
                iv.micros = micro_digits(&b[end + 1..end + 1 + fd]);
                iv.negative = negative && (v > 0 || iv.micros > 0);
                end = fend;
            }
            let truncated = n == 0 || b[end..].iter().any(|c| !c.is_ascii_whitespace());
            return Ok(Parsed {
                truncated,
                ..Parsed::exact(iv)
            });
        }
        // Compound: collect the digit runs (value and the digits themselves).
        let mut runs: Vec<(u64, &[u8])> = Vec::new();
        while i < b.len() {
            if b[i].is_ascii_digit() {
                let (v, n, end) = digits(b, i);
                runs.push((v, &b[i..i + n]));
                i = end;
            } else {
                i += 1;
            }
        }
        let fields = unit.fields();
        if runs.len() > fields.len() {
            return Err(TemporalError::Invalid);
        }
        let mut iv = Interval {
            negative,
            ..Interval::zero(unit)
        };
        let skip = fields.len() - runs.len();
        for (field, (v, text)) in fields[skip..].iter().zip(&runs) {
            let v = if *field == Field::Micro {
                micro_digits(text)
            } else {
                *v
            };
            iv.set(*field, v);
        }
        Ok(Parsed::exact(iv))
    }

    /// The signed exact part (days … microseconds) in microseconds; `None` on overflow.
    fn signed_micros(&self) -> Option<i128> {
        let secs = (i128::from(self.days) * 24 + i128::from(self.hours)) * 3600
            + i128::from(self.minutes) * 60
            + i128::from(self.seconds);
        let us = secs.checked_mul(1_000_000)? + i128::from(self.micros);
        Some(if self.negative { -us } else { us })
    }

    /// The signed month part.
    fn signed_months(&self) -> i128 {
        let m = i128::from(self.years) * 12 + i128::from(self.months);
        if self.negative { -m } else { m }
    }

    /// The same interval with the sign flipped (DATE_SUB).
    pub fn negated(&self) -> Interval {
        Interval {
            negative: !self.negative,
            ..*self
        }
    }
}

/// Digit run at `i`: (value saturated, count, end).
fn digits(b: &[u8], i: usize) -> (u64, usize, usize) {
    let mut v = 0u64;
    let mut j = i;
    while j < b.len() && b[j].is_ascii_digit() {
        v = v.saturating_mul(10).saturating_add(u64::from(b[j] - b'0'));
        j += 1;
    }
    (v, j - i, j)
}

/// Fraction digits as microseconds: right-padded to six digits, cut after six.
fn micro_digits(text: &[u8]) -> u64 {
    (0..6).fold(0, |a, k| {
        a * 10
            + text
                .get(k)
                .map_or(0, |c| u64::from(c.wrapping_sub(b'0')).min(9))
    })
}

/// DATE_ADD(dt, INTERVAL …) (DATE_SUB is `add_interval(dt, iv.negated())`).
///
/// Month-based units need a non-zero month and day (MariaDB 10.11: '2024-01-00' +
/// 1 MONTH is NULL) and give `None` past 9999-12 or before 0000-01. Other units need
/// a real day number and give `None` outside 0001-01-01 ..= 9999-12-31 23:59:59.999999
/// (MariaDB 10.11 returns NULL for '0000-01-01' + 1 DAY; MySQL 8 yields 0000-00-00
/// there, which we do not reproduce).
pub fn add_interval(dt: DateTime, iv: Interval) -> Option<DateTime> {
    if !dt.in_range() {
        return None;
    }
    if iv.unit.is_month_based() {
        let d = dt.date;
        if d.month == 0 || d.day == 0 {
            return None;
        }
        let total = i128::from(d.year) * 12 + i128::from(d.month) - 1 + iv.signed_months();
        if !(0..120_000).contains(&total) {
            return None;
        }
        let (year, month) = ((total / 12) as u32, (total % 12) as u32 + 1);
        let day = u32::from(d.day).min(days_in_month(year, month));
        let date = Date {
            year: year as u16,
            month: month as u8,
            day: day as u8,
        };
        return Some(DateTime { date, ..dt });
    }
    let delta = i64::try_from(iv.signed_micros()?).ok()?;
    dt.add_micros(delta)
}

/// DATEDIFF(a, b): days from b to a (times ignored).
pub fn datediff(a: Date, b: Date) -> Option<i64> {
    Some(a.day_number()? - b.day_number()?)
}

/// TIMEDIFF(a, b) of two datetimes, clamped to ±838:59:59 (flag set when clamped).
pub fn timediff(a: DateTime, b: DateTime) -> Option<(Time, bool)> {
    Some(Time::from_micros(
        a.to_epoch_micros()? - b.to_epoch_micros()?,
    ))
}

/// TIMEDIFF(a, b) of two TIMEs, clamped to ±838:59:59.
pub fn timediff_times(a: Time, b: Time) -> (Time, bool) {
    Time::from_micros(a.total_micros() - b.total_micros())
}

/// TIMESTAMPDIFF(unit, a, b): `b - a` in whole units, truncated toward zero. MONTH,
/// QUARTER and YEAR count calendar months, not completed when the later value's
/// day-and-time is before the earlier one's (2024-01-31 → 2024-02-29 is 0 months).
/// `None` for compound units or dates with zero parts.
pub fn timestampdiff(unit: IntervalUnit, a: DateTime, b: DateTime) -> Option<i64> {
    let (ua, ub) = (a.to_epoch_micros()?, b.to_epoch_micros()?);
    let per = match unit {
        IntervalUnit::Month | IntervalUnit::Quarter | IntervalUnit::Year => {
            let (early, late, sign) = if ub >= ua { (a, b, 1) } else { (b, a, -1) };
            let mut months = (i64::from(late.date.year) - i64::from(early.date.year)) * 12
                + i64::from(late.date.month)
                - i64::from(early.date.month);
            let rest = |x: &DateTime| (x.date.day, x.hour, x.minute, x.second, x.micros);
            if rest(&late) < rest(&early) {
                months -= 1;
            }
            let div = match unit {
                IntervalUnit::Month => 1,
                IntervalUnit::Quarter => 3,
                _ => 12,
            };
            return Some(sign * (months / div));
        }
        IntervalUnit::Microsecond => 1,
        IntervalUnit::Second => 1_000_000,
        IntervalUnit::Minute => 60_000_000,
        IntervalUnit::Hour => 3_600_000_000,
        IntervalUnit::Day => 86_400_000_000,
        IntervalUnit::Week => 604_800_000_000,
        _ => return None,
    };
    // `/` truncates toward zero, as MySQL does for a negative partial unit.
    Some((ub - ua) / per)
}

#[cfg(test)]
mod tests {
    use super::super::{Flags, parse_datetime};
    use super::*;

    fn dt(s: &str) -> DateTime {
        parse_datetime(s, Flags::LENIENT).unwrap().value
    }

    fn add(s: &str, v: &str, unit: &str) -> String {
        let unit = IntervalUnit::from_name(unit).unwrap();
        match Interval::parse(v, unit) {
            Ok(iv) => add_interval(dt(s), iv.value).map_or("NULL".into(), |r| r.to_string()),
            Err(_) => "NULL".into(),
        }
    }

    fn add_int(s: &str, n: i64, unit: &str) -> String {
        let iv = Interval::from_int(n, IntervalUnit::from_name(unit).unwrap());
        add_interval(dt(s), iv).map_or("NULL".into(), |r| r.to_string())
    }

    #[test]
    fn manual_date_add_examples() {
        // MySQL 8.0 manual, DATE_ADD() / DATE_SUB().
        assert_eq!(add_int("2018-05-01", 1, "DAY"), "2018-05-02 00:00:00");
        assert_eq!(add_int("2018-05-01", -1, "YEAR"), "2017-05-01 00:00:00");
        assert_eq!(
            add_int("2020-12-31 23:59:59", 1, "SECOND"),
            "2021-01-01 00:00:00"
        );
        assert_eq!(
            add_int("2018-12-31 23:59:59", 1, "DAY"),
            "2019-01-01 23:59:59"
        );
        assert_eq!(
            add("2100-12-31 23:59:59", "1:1", "MINUTE_SECOND"),
            "2101-01-01 00:01:00"
        );
        let iv = Interval::parse("1 1:1:1", IntervalUnit::DaySecond)
            .unwrap()
            .value;
        assert_eq!(
            add_interval(dt("2025-01-01 00:00:00"), iv.negated())
                .unwrap()
                .to_string(),
            "2024-12-30 22:58:59"
        );
        assert_eq!(
            add("1900-01-01 00:00:00", "-1 10", "DAY_HOUR"),
            "1899-12-30 14:00:00"
        );
        assert_eq!(add_int("1998-01-02", -31, "DAY"), "1997-12-02 00:00:00");
        assert_eq!(
            add(
                "1992-12-31 23:59:59.000002",
                "1.999999",
                "SECOND_MICROSECOND"
            ),
            "1993-01-01 00:00:01.000001"
        );
        assert_eq!(add_int("2024-03-30", 1, "MONTH"), "2024-04-30 00:00:00");
        assert_eq!(add_int("2024-03-31", 1, "MONTH"), "2024-04-30 00:00:00");
        // "too short" values lose their leftmost parts.
        assert_eq!(
            add("2020-01-01", "1:10", "DAY_SECOND"),
            "2020-01-01 00:01:10"
        );
    }

    #[test]
    fn month_clamping_and_ranges() {
        assert_eq!(add_int("2024-01-31", 1, "MONTH"), "2024-02-29 00:00:00");
        assert_eq!(add_int("2023-01-31", 1, "MONTH"), "2023-02-28 00:00:00");
        assert_eq!(add_int("2024-02-29", 1, "YEAR"), "2025-02-28 00:00:00");
        assert_eq!(add_int("2024-02-29", 4, "YEAR"), "2028-02-29 00:00:00");
        assert_eq!(add_int("2024-05-31", -1, "QUARTER"), "2024-02-29 00:00:00");
        assert_eq!(add_int("2020-01-01", 1, "WEEK"), "2020-01-08 00:00:00");
        assert_eq!(add_int("2020-01-01", 1, "QUARTER"), "2020-04-01 00:00:00");
        assert_eq!(add_int("2020-01-01", 14, "MONTH"), "2021-03-01 00:00:00");
        assert_eq!(add_int("2020-01-01", -25, "MONTH"), "2017-12-01 00:00:00");
        // MariaDB 10.11: out of range and zero parts give NULL.
        assert_eq!(add_int("9999-12-31", 1, "DAY"), "NULL");
        assert_eq!(add_int("9999-12-31 23:59:59", 1, "SECOND"), "NULL");
        assert_eq!(add_int("9999-12-15", 1, "MONTH"), "NULL");
        assert_eq!(add_int("0000-01-01", 1, "DAY"), "NULL");
        assert_eq!(add_int("0001-01-01", -1, "DAY"), "NULL");
        assert_eq!(add_int("0001-01-15", -1, "MONTH"), "0000-12-15 00:00:00");
        assert_eq!(add_int("0001-01-15", -1, "YEAR"), "0000-01-15 00:00:00");
        assert_eq!(add_int("2024-00-00", 1, "DAY"), "NULL");
        assert_eq!(add_int("2024-01-00", 1, "MONTH"), "NULL");
        assert_eq!(add_int("2020-01-01", i64::MAX, "DAY"), "NULL");
        assert_eq!(add_int("2020-01-01", i64::MIN, "MICROSECOND"), "NULL");
        assert_eq!(add_int("2020-01-01", i64::MAX, "YEAR"), "NULL");
        assert_eq!(add("2020-01-01", "99999999999999999999", "SECOND"), "NULL");
    }

    #[test]
    fn interval_strings() {
        // MariaDB 10.11 DATE_ADD('2020-01-01 00:00:00', INTERVAL '…' unit).
        let base = "2020-01-01 00:00:00";
        for (v, unit, want) in [
            ("1.5", "DAY", "2020-01-02 00:00:00"),
            ("1 day", "DAY", "2020-01-02 00:00:00"),
            ("x", "DAY", "2020-01-01 00:00:00"),
            ("", "DAY", "2020-01-01 00:00:00"),
            ("1.5", "SECOND", "2020-01-01 00:00:01.500000"),
            ("-1.5", "SECOND", "2019-12-31 23:59:58.500000"),
            ("1.5", "MINUTE", "2020-01-01 00:01:00"),
            ("1.5", "SECOND_MICROSECOND", "2020-01-01 00:00:01.500000"),
            ("5", "SECOND_MICROSECOND", "2020-01-01 00:00:00.500000"),
            (
                "1.000005",
                "SECOND_MICROSECOND",
                "2020-01-01 00:00:01.000005",
            ),
            (
                "1.1234567",
                "SECOND_MICROSECOND",
                "2020-01-01 00:00:01.123456",
            ),
            ("1:2.3", "MINUTE_MICROSECOND", "2020-01-01 00:01:02.300000"),
            ("1 1:1:1.5", "DAY_MICROSECOND", "2020-01-02 01:01:01.500000"),
            ("abc 1:2", "MINUTE_SECOND", "2020-01-01 00:01:02"),
            ("1:2abc", "MINUTE_SECOND", "2020-01-01 00:01:02"),
            ("1::2", "MINUTE_SECOND", "2020-01-01 00:01:02"),
            ("- 1:2", "MINUTE_SECOND", "2019-12-31 23:58:58"),
            ("1:-2", "MINUTE_SECOND", "2020-01-01 00:01:02"),
            ("  -1:2", "HOUR_MINUTE", "2019-12-31 22:58:00"),
            ("100", "MINUTE_SECOND", "2020-01-01 00:01:40"),
            ("1-2", "YEAR_MONTH", "2021-03-01 00:00:00"),
            ("1.5", "YEAR_MONTH", "2021-06-01 00:00:00"),
            ("", "MINUTE_SECOND", "2020-01-01 00:00:00"),
            ("1 2 3 4 5", "DAY_SECOND", "NULL"),
            ("1:2:3", "HOUR_MINUTE", "NULL"),
        ] {
            assert_eq!(add(base, v, unit), want, "{v:?} {unit}");
        }
        let p = Interval::parse("1 day", IntervalUnit::Day).unwrap();
        assert!(p.truncated);
        assert!(!Interval::parse(" 7 ", IntervalUnit::Day).unwrap().truncated);
        // Numbers for compound units are read as strings (MariaDB 10.11).
        assert_eq!(add_int(base, 5, "DAY_HOUR"), "2020-01-01 05:00:00");
        let iv = Interval::from_seconds(true, 1, 500_000);
        assert_eq!(
            add_interval(dt(base), iv).unwrap().to_string(),
            "2019-12-31 23:59:58.500000"
        );
        assert_eq!(
            IntervalUnit::from_name("day_hour"),
            Some(IntervalUnit::DayHour)
        );
        assert_eq!(IntervalUnit::from_name("fortnight"), None);
        assert_eq!(IntervalUnit::YearMonth.name(), "YEAR_MONTH");
        assert!(IntervalUnit::Week.is_simple() && !IntervalUnit::DayHour.is_simple());
    }

    #[test]
    fn diffs() {
        let d = |s: &str| dt(s).date;
        // MySQL manual, DATEDIFF() / TIMEDIFF() / TIMESTAMPDIFF().
        assert_eq!(datediff(d("2007-12-31 23:59:59"), d("2007-12-30")), Some(1));
        assert_eq!(
            datediff(d("2010-11-30 23:59:59"), d("2010-12-31")),
            Some(-31)
        );
        let (t, _) = timediff(dt("2000-01-01 00:00:00"), dt("2000-01-01 00:00:00.000001")).unwrap();
        assert_eq!(t.to_string(), "-00:00:00.000001");
        let (t, _) = timediff(
            dt("2008-12-31 23:59:59.000001"),
            dt("2008-12-30 01:01:01.000002"),
        )
        .unwrap();
        assert_eq!(t.to_string(), "46:58:57.999999");
        let ts = |u, a, b| timestampdiff(IntervalUnit::from_name(u).unwrap(), dt(a), dt(b));
        assert_eq!(ts("MONTH", "2003-02-01", "2003-05-01"), Some(3));
        assert_eq!(ts("YEAR", "2002-05-01", "2001-01-01"), Some(-1));
        assert_eq!(
            ts("MINUTE", "2003-02-01", "2003-05-01 12:05:55"),
            Some(128_885)
        );
        // MariaDB 10.11.
        assert_eq!(ts("MONTH", "2024-01-31", "2024-02-29"), Some(0));
        assert_eq!(ts("MONTH", "2024-02-29", "2024-01-31"), Some(0));
        assert_eq!(
            ts("MONTH", "2024-01-31 10:00:00", "2024-02-29 11:00:00"),
            Some(0)
        );
        assert_eq!(ts("YEAR", "2000-02-29", "2001-02-28"), Some(0));
        assert_eq!(ts("MONTH", "2024-03-31", "2024-02-29"), Some(-1));
        assert_eq!(
            ts("MONTH", "2024-01-15 12:00:00", "2024-02-15 11:59:59"),
            Some(0)
        );
        assert_eq!(
            ts("MONTH", "2024-02-15 11:59:59", "2024-01-15 12:00:00"),
            Some(0)
        );
        assert_eq!(
            ts("SECOND", "2024-01-01 00:00:01", "2024-01-01 00:00:00.5"),
            Some(0)
        );
        assert_eq!(
            ts("MICROSECOND", "2024-01-01", "2024-01-02"),
            Some(86_400_000_000)
        );
        assert_eq!(ts("WEEK", "2024-01-01", "2024-01-14"), Some(1));
        assert_eq!(ts("QUARTER", "2024-01-01", "2024-12-31"), Some(3));
        assert_eq!(ts("DAY_HOUR", "2024-01-01", "2024-12-31"), None);
        assert_eq!(ts("DAY", "2024-00-01", "2024-12-31"), None);
        let (t, clamped) = timediff(dt("2024-01-01"), dt("2020-01-01")).unwrap();
        assert_eq!((t, clamped), (Time::MAX, true));
        let a = super::super::parse_time("-800:00:00").unwrap().value;
        let b = super::super::parse_time("100:00:00").unwrap().value;
        assert_eq!(timediff_times(a, b), (Time::MIN, true));
        assert_eq!(timediff_times(b, b), (Time::ZERO, false));
    }
}
