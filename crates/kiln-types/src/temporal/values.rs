//! The value types — Date, DateTime, Time, Year — with validity checks, packed integers,
//! fractional-second rounding and their canonical text forms.

use super::{
    EPOCH_DAY_NUMBER, Flags, MAX_DAY_NUMBER, MAX_FSP, MIN_DAY_NUMBER, TIME_MAX_HOURS,
    TIME_MAX_MICROS, TemporalError, date_from_day_number, day_number_lenient, days_in_month,
};
use std::cmp::Ordering;
use std::fmt;

const MICROS_PER_SEC: i64 = 1_000_000;
const MICROS_PER_DAY: i64 = 86_400 * MICROS_PER_SEC;

/// A DATE: see the module header for the ranges and what zero parts mean.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

impl Date {
    /// `0000-00-00`.
    pub const ZERO: Date = Date {
        year: 0,
        month: 0,
        day: 0,
    };
    /// `9999-12-31`.
    pub const MAX: Date = Date {
        year: 9999,
        month: 12,
        day: 31,
    };

    /// A real calendar date (year 0..=9999, month 1..=12, day within the month).
    pub fn new(year: u32, month: u32, day: u32) -> Option<Date> {
        (year <= 9999 && day >= 1 && day <= days_in_month(year, month)).then_some(Date {
            year: year as u16,
            month: month as u8,
            day: day as u8,
        })
    }

    /// Fields within the representable ranges (year ≤ 9999, month ≤ 12, day ≤ 31),
    /// whatever the flags; the parsers never produce anything else.
    pub fn in_range(&self) -> bool {
        self.year <= 9999 && self.month <= 12 && self.day <= 31
    }

    pub fn is_zero(&self) -> bool {
        *self == Date::ZERO
    }

    /// A month or day of 0 in a date that is not the zero date.
    pub fn has_zero_part(&self) -> bool {
        !self.is_zero() && (self.month == 0 || self.day == 0)
    }

    /// A real calendar date: month and day non-zero and the day within the month.
    pub fn is_valid(&self) -> bool {
        Date::new(self.year.into(), self.month.into(), self.day.into()).is_some()
    }

    /// Whether sql_mode `flags` accept this date (MySQL's check: zero date, then zero
    /// parts, then the day against the month unless ALLOW_INVALID_DATES).
    pub fn check(&self, flags: Flags) -> Result<(), TemporalError> {
        if !self.in_range() {
            return Err(TemporalError::Invalid);
        }
        if self.is_zero() {
            return if flags.no_zero_date {
                Err(TemporalError::ZeroDate)
            } else {
                Ok(())
            };
        }
        if self.month == 0 || self.day == 0 {
            return if flags.no_zero_in_date {
                Err(TemporalError::ZeroInDate)
            } else {
                Ok(())
            };
        }
        if !flags.allow_invalid_dates
            && u32::from(self.day) > days_in_month(self.year.into(), self.month.into())
        {
            return Err(TemporalError::Invalid);
        }
        Ok(())
    }

    /// MySQL's day number (TO_DAYS): 0000-01-01 is 1. `None` for a zero month or day.
    /// An invalid day (`02-30`, allowed by ALLOW_INVALID_DATES) counts on into the next
    /// month, as MySQL does.
    pub fn day_number(&self) -> Option<i64> {
        if self.day == 0 || !self.in_range() {
            return None;
        }
        day_number_lenient(self.year.into(), self.month.into(), self.day.into())
    }

    /// The date of a day number (1 ..= 3652424, i.e. 0000-01-01 ..= 9999-12-31).
    pub fn from_day_number(n: i64) -> Option<Date> {
        date_from_day_number(n)
    }

    /// Days since 1970-01-01 (negative before).
    pub fn to_epoch_days(&self) -> Option<i64> {
        self.day_number().map(|n| n - EPOCH_DAY_NUMBER)
    }

    /// The date `days` after 1970-01-01, within 0000-01-01 ..= 9999-12-31.
    pub fn from_epoch_days(days: i64) -> Option<Date> {
        date_from_day_number(days.checked_add(EPOCH_DAY_NUMBER)?)
    }

    /// `(year·16 + month)·32 + day`: the 3-byte DATE key of `kiln_common::key`.
    pub fn packed(&self) -> u32 {
        (u32::from(self.year) * 16 + u32::from(self.month)) * 32 + u32::from(self.day)
    }

    /// Inverse of [`Date::packed`]; `None` unless the fields are in range (month ≤ 12,
    /// day ≤ 31, year ≤ 9999).
    pub fn from_packed(v: u32) -> Option<Date> {
        let d = Date {
            year: u16::try_from(v / 512).ok()?,
            month: (v / 32 % 16) as u8,
            day: (v % 32) as u8,
        };
        d.in_range().then_some(d)
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// A DATETIME (and a TIMESTAMP in the session time zone).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DateTime {
    pub date: Date,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    pub micros: u32,
}

impl DateTime {
    /// `0000-00-00 00:00:00`.
    pub const ZERO: DateTime = DateTime {
        date: Date::ZERO,
        hour: 0,
        minute: 0,
        second: 0,
        micros: 0,
    };

    /// A datetime with time fields in range (the date is taken as given; check it with
    /// [`DateTime::check`]).
    pub fn new(date: Date, hour: u32, minute: u32, second: u32, micros: u32) -> Option<DateTime> {
        (date.in_range() && hour < 24 && minute < 60 && second < 60 && micros < 1_000_000)
            .then_some(DateTime {
                date,
                hour: hour as u8,
                minute: minute as u8,
                second: second as u8,
                micros,
            })
    }

    /// Midnight of `date`.
    pub fn from_date(date: Date) -> DateTime {
        DateTime {
            date,
            ..DateTime::ZERO
        }
    }

    /// `date` at midnight plus a TIME (negative or beyond 24 hours allowed), as MySQL
    /// turns a TIME into a DATETIME on CURRENT_DATE (and TIMESTAMP(date, time) adds
    /// them); `None` outside 0001-01-01 ..= 9999-12-31 or for a zero month/day.
    pub fn from_date_and_time(date: Date, time: Time) -> Option<DateTime> {
        DateTime::from_date(date).add_micros(time.total_micros())
    }

    pub fn is_zero(&self) -> bool {
        *self == DateTime::ZERO
    }

    /// Time fields in range and the date in range.
    pub fn in_range(&self) -> bool {
        self.date.in_range()
            && self.hour < 24
            && self.minute < 60
            && self.second < 60
            && self.micros < 1_000_000
    }

    /// The date under sql_mode `flags`, plus the time fields' ranges.
    pub fn check(&self, flags: Flags) -> Result<(), TemporalError> {
        if !self.in_range() {
            return Err(TemporalError::Invalid);
        }
        self.date.check(flags)
    }

    /// The time of day as a TIME (what CAST(datetime AS TIME) keeps).
    pub fn time(&self) -> Time {
        Time {
            negative: false,
            hours: self.hour.into(),
            minute: self.minute,
            second: self.second,
            micros: self.micros,
        }
    }

    /// Microseconds since the day began.
    fn micros_of_day(&self) -> i64 {
        ((i64::from(self.hour) * 60 + i64::from(self.minute)) * 60 + i64::from(self.second))
            * MICROS_PER_SEC
            + i64::from(self.micros)
    }

    /// Microseconds since 1970-01-01 00:00:00 reading the fields as UTC (for a
    /// time-zone-less count; [`super::TimeZone`] applies offsets). `None` for a zero
    /// month or day.
    pub fn to_epoch_micros(&self) -> Option<i64> {
        if !self.in_range() {
            return None;
        }
        let days = self.date.day_number()? - EPOCH_DAY_NUMBER;
        Some(days * MICROS_PER_DAY + self.micros_of_day())
    }

    /// Inverse of [`DateTime::to_epoch_micros`], within 0000-01-01 ..= 9999-12-31.
    pub fn from_epoch_micros(us: i64) -> Option<DateTime> {
        let days = us.div_euclid(MICROS_PER_DAY);
        let rest = us.rem_euclid(MICROS_PER_DAY);
        let date = Date::from_epoch_days(days)?;
        let secs = rest / MICROS_PER_SEC;
        Some(DateTime {
            date,
            hour: (secs / 3600) as u8,
            minute: (secs / 60 % 60) as u8,
            second: (secs % 60) as u8,
            micros: (rest % MICROS_PER_SEC) as u32,
        })
    }

    /// `self` plus `delta` microseconds; `None` if the result leaves 0001-01-01 ..=
    /// 9999-12-31 (MySQL's day-based arithmetic produces nothing in year 0) or `self`
    /// has a zero month/day.
    pub fn add_micros(&self, delta: i64) -> Option<DateTime> {
        let us = self.to_epoch_micros()?.checked_add(delta)?;
        let lo = (MIN_DAY_NUMBER - EPOCH_DAY_NUMBER) * MICROS_PER_DAY;
        let hi = (MAX_DAY_NUMBER + 1 - EPOCH_DAY_NUMBER) * MICROS_PER_DAY;
        if !(lo..hi).contains(&us) {
            return None;
        }
        DateTime::from_epoch_micros(us)
    }

    /// Rounded half up to `fsp` (0..=6) fractional digits, carrying into seconds,
    /// minutes, hours and days (MySQL 8's default when storing into DATETIME(fsp)).
    /// `None` if the carry passes 9999-12-31 or meets a zero month/day.
    pub fn round_to_fsp(&self, fsp: u8) -> Option<DateTime> {
        self.round_nanos_to_fsp(0, fsp)
    }

    /// Truncated to `fsp` digits (sql_mode TIME_TRUNCATE_FRACTIONAL).
    pub fn truncate_to_fsp(&self, fsp: u8) -> DateTime {
        DateTime {
            micros: truncate_micros(self.micros, fsp),
            ..*self
        }
    }

    /// Rounds `micros·1000 + nanos` to `fsp` digits.
    pub(crate) fn round_nanos_to_fsp(&self, nanos: u16, fsp: u8) -> Option<DateTime> {
        if !self.in_range() {
            return None;
        }
        let (micros, carry) = round_fraction(self.micros, nanos, fsp);
        let rounded = DateTime { micros, ..*self };
        if !carry {
            return Some(rounded);
        }
        // Carry through seconds, minutes and hours without the calendar, so that it
        // also works for year-0 dates and dates with zero parts; only a carry into the
        // next day needs a real date.
        let sod = self.micros_of_day() / MICROS_PER_SEC + 1;
        if sod < 86_400 {
            return Some(DateTime {
                hour: (sod / 3600) as u8,
                minute: (sod / 60 % 60) as u8,
                second: (sod % 60) as u8,
                ..rounded
            });
        }
        let date = Date::from_day_number(self.date.day_number()? + 1)?;
        Some(DateTime::from_date(date))
    }

    /// `((((y·13 + mo)·32 + d)·24 + h)·60 + mi)·60 + s)·10⁶ + µs`: the 8-byte DATETIME key
    /// of `kiln_common::key`. Monotonic in the fields (mo < 13, d < 32, …), so packed
    /// values order as the datetimes do.
    pub fn packed(&self) -> i64 {
        let ymd = (i64::from(self.date.year) * 13 + i64::from(self.date.month)) * 32
            + i64::from(self.date.day);
        let hms = ((ymd * 24 + i64::from(self.hour)) * 60 + i64::from(self.minute)) * 60
            + i64::from(self.second);
        hms * MICROS_PER_SEC + i64::from(self.micros)
    }

    /// Inverse of [`DateTime::packed`]; `None` unless every field is in range.
    pub fn from_packed(v: i64) -> Option<DateTime> {
        if v < 0 {
            return None;
        }
        let micros = (v % MICROS_PER_SEC) as u32;
        let mut r = v / MICROS_PER_SEC;
        let second = (r % 60) as u32;
        r /= 60;
        let minute = (r % 60) as u32;
        r /= 60;
        let hour = (r % 24) as u32;
        r /= 24;
        let day = (r % 32) as u8;
        r /= 32;
        let month = (r % 13) as u8;
        let year = u16::try_from(r / 13).ok()?;
        DateTime::new(Date { year, month, day }, hour, minute, second, micros)
    }

    /// `YYYY-MM-DD HH:MM:SS` plus `.` and `fsp` fractional digits when fsp > 0 (digits
    /// beyond fsp are cut, not rounded: round first).
    pub fn format_datetime(&self, fsp: u8) -> String {
        let mut s = format!(
            "{} {:02}:{:02}:{:02}",
            self.date, self.hour, self.minute, self.second
        );
        push_fraction(&mut s, self.micros, fsp);
        s
    }
}

impl fmt::Display for DateTime {
    /// Six fractional digits when there are microseconds, none otherwise.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fsp = if self.micros == 0 { 0 } else { MAX_FSP };
        f.write_str(&self.format_datetime(fsp))
    }
}

/// A TIME: a signed duration within ±838:59:59.000000.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Time {
    /// Never set for 00:00:00.000000 (constructors normalize negative zero).
    pub negative: bool,
    pub hours: u16,
    pub minute: u8,
    pub second: u8,
    pub micros: u32,
}

impl Time {
    pub const ZERO: Time = Time {
        negative: false,
        hours: 0,
        minute: 0,
        second: 0,
        micros: 0,
    };
    /// `838:59:59`.
    pub const MAX: Time = Time {
        negative: false,
        hours: TIME_MAX_HOURS,
        minute: 59,
        second: 59,
        micros: 0,
    };
    /// `-838:59:59`.
    pub const MIN: Time = Time {
        negative: true,
        ..Time::MAX
    };

    /// A TIME from fields in range; `None` if minute/second ≥ 60 or the magnitude
    /// exceeds 838:59:59.
    pub fn new(negative: bool, hours: u32, minute: u32, second: u32, micros: u32) -> Option<Time> {
        if minute >= 60 || second >= 60 || micros >= 1_000_000 || hours > TIME_MAX_HOURS.into() {
            return None;
        }
        let t = Time {
            negative,
            hours: hours as u16,
            minute: minute as u8,
            second: second as u8,
            micros,
        };
        (t.magnitude_micros() <= TIME_MAX_MICROS).then(|| t.normalized())
    }

    /// The TIME of a signed microsecond count, clamped to ±838:59:59; the flag says it
    /// was clamped (MySQL: warning "Truncated incorrect time value").
    pub fn from_micros(us: i64) -> (Time, bool) {
        let mag = us.unsigned_abs();
        if mag > TIME_MAX_MICROS as u64 {
            return (if us < 0 { Time::MIN } else { Time::MAX }, true);
        }
        let mag = mag as i64;
        let secs = mag / MICROS_PER_SEC;
        let t = Time {
            negative: us < 0,
            hours: (secs / 3600) as u16,
            minute: (secs / 60 % 60) as u8,
            second: (secs % 60) as u8,
            micros: (mag % MICROS_PER_SEC) as u32,
        };
        (t.normalized(), false)
    }

    fn magnitude_micros(&self) -> i64 {
        ((i64::from(self.hours) * 60 + i64::from(self.minute)) * 60 + i64::from(self.second))
            * MICROS_PER_SEC
            + i64::from(self.micros)
    }

    /// The signed duration in microseconds.
    pub fn total_micros(&self) -> i64 {
        let m = self.magnitude_micros();
        if self.negative { -m } else { m }
    }

    fn normalized(self) -> Time {
        Time {
            negative: self.negative && self.magnitude_micros() != 0,
            ..self
        }
    }

    /// Within ±838:59:59.000000 with minute/second/micros fields in range.
    pub fn in_range(&self) -> bool {
        self.minute < 60
            && self.second < 60
            && self.micros < 1_000_000
            && self.magnitude_micros() <= TIME_MAX_MICROS
    }

    /// `-(((h·60 + mi)·60 + s)·10⁶ + µs)` when negative: `kiln_common::key`'s
    /// DATETIME-style packing with year = month = day = 0.
    pub fn packed(&self) -> i64 {
        self.total_micros()
    }

    /// Inverse of [`Time::packed`]; `None` beyond ±838:59:59.
    pub fn from_packed(v: i64) -> Option<Time> {
        match Time::from_micros(v) {
            (t, false) => Some(t),
            (_, true) => None,
        }
    }

    /// Rounded half up (away from zero) to `fsp` digits with carry; the flag is set if
    /// the result had to be clamped to ±838:59:59.
    pub fn round_to_fsp(&self, fsp: u8) -> (Time, bool) {
        self.round_nanos_to_fsp(0, fsp)
    }

    /// Truncated to `fsp` digits (sql_mode TIME_TRUNCATE_FRACTIONAL).
    pub fn truncate_to_fsp(&self, fsp: u8) -> Time {
        Time {
            micros: truncate_micros(self.micros, fsp),
            ..*self
        }
        .normalized()
    }

    pub(crate) fn round_nanos_to_fsp(&self, nanos: u16, fsp: u8) -> (Time, bool) {
        let (micros, carry) = round_fraction(self.micros, nanos, fsp);
        let mag =
            Time { micros, ..*self }.magnitude_micros() + if carry { MICROS_PER_SEC } else { 0 };
        let (t, clamped) = Time::from_micros(mag);
        let t = Time {
            negative: self.negative,
            ..t
        }
        .normalized();
        (t, clamped || !self.in_range())
    }

    /// `[-]HH:MM:SS` (hours at least two digits) plus `fsp` fractional digits.
    pub fn format_time(&self, fsp: u8) -> String {
        let mut s = format!(
            "{}{:02}:{:02}:{:02}",
            if self.negative { "-" } else { "" },
            self.hours,
            self.minute,
            self.second
        );
        push_fraction(&mut s, self.micros, fsp);
        s
    }
}

impl Ord for Time {
    fn cmp(&self, other: &Time) -> Ordering {
        self.total_micros().cmp(&other.total_micros())
    }
}

impl PartialOrd for Time {
    fn partial_cmp(&self, other: &Time) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Time {
    /// Six fractional digits when there are microseconds, none otherwise.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fsp = if self.micros == 0 { 0 } else { MAX_FSP };
        f.write_str(&self.format_time(fsp))
    }
}

/// A YEAR value: 0 (displayed `0000`) or 1901..=2155.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Year(pub u16);

impl Year {
    /// Whether `y` is a storable YEAR.
    pub fn is_valid(y: i64) -> bool {
        y == 0 || (1901..=2155).contains(&y)
    }
}

impl fmt::Display for Year {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}", self.0)
    }
}

/// `micros` cut to `fsp` digits.
fn truncate_micros(micros: u32, fsp: u8) -> u32 {
    let unit = 10u32.pow(u32::from(MAX_FSP.saturating_sub(fsp.min(MAX_FSP))));
    micros.min(999_999) / unit * unit
}

/// Rounds the fraction `micros·1000 + nanos` nanoseconds half up to `fsp` digits:
/// the new microseconds and whether it carried into the next second.
fn round_fraction(micros: u32, nanos: u16, fsp: u8) -> (u32, bool) {
    let fsp = fsp.min(MAX_FSP);
    let total = u64::from(micros.min(999_999)) * 1000 + u64::from(nanos.min(999));
    let unit = 10u64.pow(9 - u32::from(fsp));
    let rounded = (total + unit / 2) / unit * unit;
    debug_assert!(rounded <= 1_000_000_000);
    if rounded >= 1_000_000_000 {
        (0, true)
    } else {
        ((rounded / 1000) as u32, false)
    }
}

/// Appends `.` and the first `fsp` digits of `micros` when fsp > 0.
fn push_fraction(s: &mut String, micros: u32, fsp: u8) {
    let fsp = usize::from(fsp.min(MAX_FSP));
    if fsp > 0 {
        let digits = format!("{:06}", micros.min(999_999));
        s.push('.');
        s.push_str(&digits[..fsp]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: u32, m: u32, dd: u32) -> Date {
        Date {
            year: y as u16,
            month: m as u8,
            day: dd as u8,
        }
    }

    #[test]
    fn validity_under_flags() {
        let strict = Flags::MYSQL8_DEFAULT;
        let lax = Flags::LENIENT;
        let invalid_ok = Flags {
            allow_invalid_dates: true,
            ..lax
        };
        assert_eq!(d(2023, 2, 30).check(lax), Err(TemporalError::Invalid));
        assert_eq!(d(2023, 2, 30).check(invalid_ok), Ok(()));
        assert_eq!(
            d(2023, 2, 32).check(invalid_ok),
            Err(TemporalError::Invalid)
        );
        assert_eq!(d(2024, 2, 29).check(strict), Ok(()));
        assert_eq!(d(2023, 2, 29).check(lax), Err(TemporalError::Invalid));
        assert_eq!(d(1900, 2, 29).check(lax), Err(TemporalError::Invalid));
        assert_eq!(d(2000, 2, 29).check(lax), Ok(()));
        assert_eq!(d(0, 2, 29).check(lax), Err(TemporalError::Invalid));
        assert_eq!(Date::ZERO.check(lax), Ok(()));
        assert_eq!(Date::ZERO.check(strict), Err(TemporalError::ZeroDate));
        assert_eq!(d(2024, 0, 1).check(lax), Ok(()));
        assert_eq!(d(2024, 1, 0).check(strict), Err(TemporalError::ZeroInDate));
        assert_eq!(
            d(0, 1, 1).check(strict),
            Ok(()),
            "year 0 is an ordinary year"
        );
        assert!(Date::new(2024, 13, 1).is_none() && Date::new(2024, 4, 31).is_none());
    }

    #[test]
    fn day_numbers_match_to_days() {
        // MySQL manual: TO_DAYS('2007-10-07') = 733321; FROM_DAYS(730669) = 2000-07-03.
        assert_eq!(d(2007, 10, 7).day_number(), Some(733_321));
        assert_eq!(Date::from_day_number(730_669), Some(d(2000, 7, 3)));
        // MariaDB 10.11: TO_DAYS('0000-01-01') = 1, TO_DAYS('0000-03-01') = 60.
        assert_eq!(d(0, 1, 1).day_number(), Some(1));
        assert_eq!(d(0, 2, 28).day_number(), Some(59));
        assert_eq!(d(0, 3, 1).day_number(), Some(60));
        assert_eq!(d(1970, 1, 1).day_number(), Some(719_528));
        assert_eq!(Date::MAX.day_number(), Some(MAX_DAY_NUMBER));
        for n in (1..=MAX_DAY_NUMBER)
            .step_by(997)
            .chain([1, 59, 60, 365, 366])
        {
            let date = Date::from_day_number(n).unwrap();
            assert!(date.is_valid(), "{n} -> {date}");
            assert_eq!(date.day_number(), Some(n));
        }
        assert_eq!(Date::from_day_number(0), None);
        assert_eq!(Date::from_day_number(MAX_DAY_NUMBER + 1), None);
        assert_eq!(d(2024, 0, 1).day_number(), None);
        assert_eq!(Date::from_epoch_days(0), Some(d(1970, 1, 1)));
        assert_eq!(d(2024, 2, 29).to_epoch_days(), Some(19_782));
    }

    #[test]
    fn packing_matches_key_encoding() {
        let date = d(2024, 2, 29);
        assert_eq!(date.packed(), (2024 * 16 + 2) * 32 + 29);
        assert_eq!(Date::from_packed(date.packed()), Some(date));
        assert_eq!(Date::from_packed(Date::ZERO.packed()), Some(Date::ZERO));
        assert_eq!(Date::from_packed((2024 * 16 + 13) * 32), None);
        let dt = DateTime::new(date, 13, 14, 15, 161_718).unwrap();
        let want = (((((2024i64 * 13 + 2) * 32 + 29) * 24 + 13) * 60 + 14) * 60 + 15) * 1_000_000
            + 161_718;
        assert_eq!(dt.packed(), want);
        assert_eq!(DateTime::from_packed(want), Some(dt));
        assert_eq!(DateTime::from_packed(-1), None);
        let t = Time::new(true, 838, 59, 59, 0).unwrap();
        assert_eq!(t.packed(), -TIME_MAX_MICROS);
        assert_eq!(Time::from_packed(t.packed()), Some(t));
        assert_eq!(Time::from_packed(TIME_MAX_MICROS + 1), None);
    }

    #[test]
    fn rounding_carries() {
        let dt = |date, h, mi, s, us| DateTime::new(date, h, mi, s, us).unwrap();
        // 23:59:59.9999995 at fsp 6 -> next day (the 7th digit is the parse's nanos).
        let v = dt(d(2023, 12, 31), 23, 59, 59, 999_999);
        assert_eq!(
            v.round_nanos_to_fsp(500, 6),
            Some(DateTime::from_date(d(2024, 1, 1)))
        );
        assert_eq!(v.round_nanos_to_fsp(499, 6), Some(v));
        assert_eq!(
            dt(d(2024, 2, 28), 23, 59, 59, 500_000).round_to_fsp(0),
            Some(DateTime::from_date(d(2024, 2, 29)))
        );
        assert_eq!(
            dt(d(2024, 1, 1), 0, 0, 0, 123_456).round_to_fsp(3),
            Some(dt(d(2024, 1, 1), 0, 0, 0, 123_000))
        );
        assert_eq!(
            dt(d(2024, 1, 1), 0, 0, 0, 123_456).truncate_to_fsp(2),
            dt(d(2024, 1, 1), 0, 0, 0, 120_000)
        );
        assert_eq!(
            dt(d(2024, 1, 1), 0, 0, 0, 125_000).round_to_fsp(2),
            Some(dt(d(2024, 1, 1), 0, 0, 0, 130_000))
        );
        assert_eq!(dt(Date::MAX, 23, 59, 59, 500_000).round_to_fsp(0), None);
        // Carry inside the minute works even for a zero date.
        assert_eq!(
            dt(Date::ZERO, 0, 0, 1, 600_000).round_to_fsp(0),
            Some(dt(Date::ZERO, 0, 0, 2, 0))
        );
        assert_eq!(dt(Date::ZERO, 23, 59, 59, 600_000).round_to_fsp(0), None);

        let t = |neg, h, m, s, us| Time::new(neg, h, m, s, us).unwrap();
        assert_eq!(
            t(false, 23, 59, 59, 999_999).round_nanos_to_fsp(500, 6),
            (t(false, 24, 0, 0, 0), false)
        );
        assert_eq!(
            t(true, 0, 0, 1, 500_000).round_to_fsp(0),
            (t(true, 0, 0, 2, 0), false)
        );
        assert_eq!(
            t(true, 0, 0, 0, 400_000).round_to_fsp(0),
            (Time::ZERO, false)
        );
        assert_eq!(
            t(false, 838, 59, 58, 500_000).round_to_fsp(0),
            (Time::MAX, false)
        );
        let over = Time {
            micros: 500_000,
            ..Time::MAX
        };
        assert_eq!(over.round_to_fsp(0), (Time::MAX, true));
        assert_eq!(over.round_to_fsp(6), (Time::MAX, true));
    }

    #[test]
    fn display_forms() {
        let dt = DateTime::new(d(7, 1, 2), 3, 4, 5, 60).unwrap();
        assert_eq!(dt.to_string(), "0007-01-02 03:04:05.000060");
        assert_eq!(dt.format_datetime(0), "0007-01-02 03:04:05");
        assert_eq!(dt.format_datetime(5), "0007-01-02 03:04:05.00006");
        assert_eq!(
            DateTime::from_date(d(2024, 5, 6)).to_string(),
            "2024-05-06 00:00:00"
        );
        let t = Time::new(true, 123, 4, 5, 500_000).unwrap();
        assert_eq!(t.to_string(), "-123:04:05.500000");
        assert_eq!(t.format_time(1), "-123:04:05.5");
        assert_eq!(Time::ZERO.format_time(2), "00:00:00.00");
        assert_eq!(Year(0).to_string(), "0000");
        assert_eq!(Date::ZERO.to_string(), "0000-00-00");
    }

    #[test]
    fn time_construction_and_order() {
        assert_eq!(
            Time::new(true, 0, 0, 0, 0),
            Some(Time::ZERO),
            "no negative zero"
        );
        assert!(Time::new(false, 838, 59, 59, 1).is_none());
        assert!(Time::new(false, 1, 60, 0, 0).is_none());
        assert_eq!(Time::from_micros(-TIME_MAX_MICROS - 1), (Time::MIN, true));
        assert_eq!(Time::from_micros(i64::MIN), (Time::MIN, true));
        assert!(Time::MIN < Time::new(true, 1, 0, 0, 0).unwrap());
        assert!(Time::new(true, 1, 0, 0, 0).unwrap() < Time::ZERO);
        assert!(Time::new(false, 0, 0, 0, 1).unwrap() < Time::new(false, 1, 0, 0, 0).unwrap());
    }

    #[test]
    fn epoch_micros_and_add() {
        let dt = DateTime::new(d(1969, 12, 31), 23, 59, 59, 999_999).unwrap();
        assert_eq!(dt.to_epoch_micros(), Some(-1));
        assert_eq!(DateTime::from_epoch_micros(-1), Some(dt));
        assert_eq!(dt.add_micros(1), Some(DateTime::from_date(d(1970, 1, 1))));
        assert_eq!(DateTime::from_date(d(1, 1, 1)).add_micros(-1), None);
        assert_eq!(
            DateTime::new(Date::MAX, 23, 59, 59, 999_999)
                .unwrap()
                .add_micros(1),
            None
        );
        assert_eq!(DateTime::from_date(d(2024, 0, 1)).add_micros(1), None);
        let t = Time::new(true, 25, 0, 0, 0).unwrap();
        assert_eq!(
            DateTime::from_date_and_time(d(2024, 3, 1), t),
            Some(DateTime::new(d(2024, 2, 28), 23, 0, 0, 0).unwrap())
        );
        assert_eq!(
            DateTime::from_date(d(2024, 1, 1)).add_micros(i64::MAX),
            None
        );
    }
}
