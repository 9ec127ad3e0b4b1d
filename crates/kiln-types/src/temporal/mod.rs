//! Temporal values with MySQL 8.0 semantics: DATE, DATETIME, TIMESTAMP, TIME and YEAR —
//! their representations, string/number parsing, validity under the date-related
//! sql_mode flags, fractional-second rounding, formatting, packed integers for keys,
//! calendar functions, interval arithmetic, DATE_FORMAT/STR_TO_DATE and time zones.
//! Nothing here knows SQL text, items or storage; kiln-sql maps the results (errors,
//! `truncated`/`out_of_range` flags) to MySQL's warnings and errors.
//!
//! # Representations
//!
//! * [`Date`] `{year 0..=9999, month 0..=12, day 0..=31}`. `0000-00-00` is the zero
//!   date; a month or day of 0 ("zero in date", e.g. `2024-00-00`) and day/month
//!   mismatches (`2023-02-30`) are representable because MySQL stores them under
//!   sql_mode without NO_ZERO_DATE / NO_ZERO_IN_DATE / with ALLOW_INVALID_DATES;
//!   [`Date::check`] decides with [`Flags`]. Fields are public; constructors
//!   ([`Date::new`], parsers) only produce values within the ranges above.
//! * [`DateTime`] `{date, hour 0..=23, minute, second 0..=59, micros 0..=999_999}`. Also
//!   the in-memory form of TIMESTAMP, which is stored as [`UnixTime`] (UTC) and shown
//!   in the session [`TimeZone`].
//! * [`Time`] `{negative, hours 0..=838, minute, second, micros}`: a signed duration
//!   in `-838:59:59.000000 ..= 838:59:59.000000` (MySQL 8's range; MariaDB allows
//!   `.999999`). Never negative zero; ordered by value.
//! * [`Year`]: 0 or 1901..=2155.
//! * Day numbers are MySQL's TO_DAYS numbering: 0000-01-01 is day 1 and year 0 is *not*
//!   a leap year (MySQL's calendar; 0000-02-29 is invalid), so day numbers agree with
//!   the proleptic Gregorian calendar from 0000-03-01 on. 1970-01-01 is day 719528.
//!
//! # API
//!
//! * Validity: [`Flags`] `{no_zero_date, no_zero_in_date, allow_invalid_dates}`
//!   (`LENIENT`, `MYSQL8_DEFAULT`), [`Date::check`], [`DateTime::check`],
//!   [`is_leap_year`], [`days_in_month`], [`Date::new`] / [`DateTime::new`] /
//!   [`Time::new`] for checked construction.
//! * Parsing (`parse`): [`parse_date`]`(s, flags)`, [`parse_datetime`]`(s, flags)`,
//!   [`parse_time`]`(s)`, [`datetime_from_int`], [`datetime_from_f64`],
//!   [`time_from_int`], [`time_from_f64`], [`Year::from_int`], [`Year::from_f64`],
//!   [`Year::parse`], [`two_digit_year`]. All return
//!   `Result<`[`Parsed`]`<T>, `[`TemporalError`]`>`: `Err` is invalid (NULL / "Incorrect
//!   … value"; `ZeroDate`/`ZeroInDate` name the sql_mode flag that refused it), and
//!   `Parsed` carries the value, `truncated` (ignored trailing characters: "Truncated
//!   incorrect … value" / "Data truncated"), `out_of_range` (TIME clamped to
//!   ±838:59:59) and the sub-microsecond `nanos` that [`Parsed::round_to_fsp`] uses;
//!   [`Parsed::status`] folds these into [`Status`] `Exact | Truncated`.
//! * Fractional seconds: [`Parsed::round_to_fsp`], [`DateTime::round_to_fsp`],
//!   [`Time::round_to_fsp`] (MySQL 8 rounds half up when storing into a column of fsp
//!   N, carrying into seconds … days: '23:59:59.9999995' at fsp 6 is the next day),
//!   `truncate_to_fsp` for sql_mode TIME_TRUNCATE_FRACTIONAL.
//! * Formatting: `Display` (`YYYY-MM-DD`, `YYYY-MM-DD HH:MM:SS[.ffffff]`,
//!   `[-]HH:MM:SS[.ffffff]`; six digits only when micros ≠ 0),
//!   [`DateTime::format_datetime`]`(fsp)`, [`Time::format_time`]`(fsp)`.
//! * Packed integers (the same integers `kiln_common::key` encodes, order-preserving):
//!   [`Date::packed`] `(year·16 + month)·32 + day` (3 bytes), [`DateTime::packed`]
//!   `((((y·13 + mo)·32 + d)·24 + h)·60 + mi)·60 + s)·10⁶ + µs`, [`Time::packed`] (the
//!   same with y = mo = d = 0, negated when negative), and `from_packed` inverses.
//! * Conversions: [`Date::day_number`] / [`Date::from_day_number`],
//!   [`Date::to_epoch_days`] / [`Date::from_epoch_days`] (days since 1970-01-01),
//!   [`DateTime::to_epoch_micros`] / [`DateTime::from_epoch_micros`],
//!   [`DateTime::add_micros`], [`DateTime::time`], [`DateTime::from_date_and_time`],
//!   [`Time::from_micros`] (clamping) / [`Time::total_micros`].
//! * Calendar (`calendar`): [`to_days`], [`from_days`], [`day_of_week`], [`weekday`],
//!   [`day_of_year`], [`week`]`(date, mode 0..=7)`, [`year_week`], [`last_day`],
//!   [`make_date`], [`make_time`], [`sec_to_time`], [`time_to_sec`].
//! * Intervals (`interval`): [`IntervalUnit`] (`from_name("DAY_HOUR")`), [`Interval`]
//!   (`parse("1 2", DayHour)`, `from_int`, `from_seconds`, `negated`),
//!   [`add_interval`]`(dt, iv) -> Option<DateTime>` (DATE_ADD; DATE_SUB adds the negated
//!   interval), [`datediff`], [`timediff`], [`timediff_times`], [`timestampdiff`].
//! * Formatting functions (`format`): [`date_format`], [`time_format`],
//!   [`str_to_date`]`(s, format, flags)`, [`str_to_date_kind`] (the DATE / TIME /
//!   DATETIME result type of a format).
//! * Time zones (`tz`): [`TimeZone`] (`parse("SYSTEM" | "UTC" | "+05:30")`, or a loaded
//!   [`Zone`]: TZif file or POSIX TZ rule), [`UnixTime`] `{secs, micros}`,
//!   [`timestamp_from_datetime`] / [`timestamp_to_datetime`] (TIMESTAMP storage, range
//!   1970-01-01 00:00:01 ..= 2038-01-19 03:14:07.999999 UTC), [`unix_timestamp`],
//!   [`from_unixtime`].
//!
//! Nothing panics on any input: malformed strings are errors, out-of-range arithmetic
//! is `None`. Where MySQL 8.0 and MariaDB 10.11 (the reference server we test against)
//! differ, we follow MySQL 8.0 and say so where it happens; where the MySQL manual is
//! silent (mostly malformed input) we follow MariaDB, whose parser shares MySQL's
//! lineage. DATE_FORMAT, WEEK/YEARWEEK (all modes), DATE_ADD, TIMESTAMPDIFF, DATEDIFF,
//! TIMEDIFF and STR_TO_DATE were compared with MariaDB 10.11 on thousands of random
//! inputs; the remaining differences are listed in the submodules.

mod calendar;
mod format;
mod interval;
mod parse;
mod tz;
mod values;

pub use calendar::{
    day_of_week, day_of_year, from_days, last_day, make_date, make_time, sec_to_time, time_to_sec,
    to_days, week, weekday, year_week,
};
pub use format::{
    DAY_NAMES, MONTH_NAMES, StrToDateKind, date_format, str_to_date, str_to_date_kind, time_format,
};
pub use interval::{
    Interval, IntervalUnit, add_interval, datediff, timediff, timediff_times, timestampdiff,
};
pub use parse::{
    datetime_from_f64, datetime_from_int, parse_date, parse_datetime, parse_time, time_from_f64,
    time_from_int, two_digit_year,
};
pub use tz::{
    FROM_UNIXTIME_MAX_SECS, TIMESTAMP_MAX_SECS, TIMESTAMP_MIN_SECS, TimeZone, UnixTime, Zone,
    from_unixtime, timestamp_from_datetime, timestamp_to_datetime, unix_timestamp,
};
pub use values::{Date, DateTime, Time, Year};

use std::fmt;

/// MySQL's day number (TO_DAYS) of 1970-01-01.
pub const EPOCH_DAY_NUMBER: i64 = 719_528;
/// Day number of 0001-01-01: FROM_DAYS and day-based arithmetic produce nothing earlier.
pub const MIN_DAY_NUMBER: i64 = 366;
/// Day number of 9999-12-31.
pub const MAX_DAY_NUMBER: i64 = 3_652_424;
/// Largest TIME hours value.
pub const TIME_MAX_HOURS: u16 = 838;
/// |TIME| limit in microseconds: 838:59:59.000000.
pub const TIME_MAX_MICROS: i64 = (838 * 3600 + 59 * 60 + 59) * 1_000_000;
/// Largest fractional-seconds precision.
pub const MAX_FSP: u8 = 6;

/// The sql_mode flags that decide which dates are valid.
///
/// MySQL applies NO_ZERO_DATE / NO_ZERO_IN_DATE fully only in strict mode; the caller
/// decides whether a failed check is an error or a warning plus the zero value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Flags {
    /// NO_ZERO_DATE: `0000-00-00` is rejected.
    pub no_zero_date: bool,
    /// NO_ZERO_IN_DATE: a month or day of 0 in an otherwise non-zero date is rejected.
    pub no_zero_in_date: bool,
    /// ALLOW_INVALID_DATES: only check month 1..=12 and day 1..=31, so `2004-04-31` is
    /// accepted.
    pub allow_invalid_dates: bool,
}

impl Flags {
    /// Everything MySQL can represent is accepted (sql_mode = '').
    pub const LENIENT: Flags = Flags {
        no_zero_date: false,
        no_zero_in_date: false,
        allow_invalid_dates: false,
    };
    /// MySQL 8.0's default sql_mode includes NO_ZERO_DATE and NO_ZERO_IN_DATE.
    pub const MYSQL8_DEFAULT: Flags = Flags {
        no_zero_date: true,
        no_zero_in_date: true,
        allow_invalid_dates: false,
    };
}

/// Why a value is not a valid temporal value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TemporalError {
    /// Not a value of the type at all, or a field out of range (month 13, 25:00:00,
    /// 2023-02-30): MySQL's "Incorrect datetime value" (1292).
    Invalid,
    /// The zero date under NO_ZERO_DATE.
    ZeroDate,
    /// A zero month or day under NO_ZERO_IN_DATE.
    ZeroInDate,
    /// A well-formed value outside the type's range (YEAR 2156, a TIMESTAMP outside
    /// 1970–2038, a month interval past 9999).
    OutOfRange,
}

impl fmt::Display for TemporalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TemporalError::Invalid => "incorrect temporal value",
            TemporalError::ZeroDate => "zero date not allowed (NO_ZERO_DATE)",
            TemporalError::ZeroInDate => "zero month or day not allowed (NO_ZERO_IN_DATE)",
            TemporalError::OutOfRange => "temporal value out of range",
        })
    }
}

impl std::error::Error for TemporalError {}

/// How a conversion went, for the caller's warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// The whole input was consumed.
    Exact,
    /// Trailing characters were ignored (or extra fractional digits beyond nanoseconds,
    /// or a TIME was clamped): MySQL warns "Truncated incorrect … value" / "Data
    /// truncated".
    Truncated,
}

/// A successfully converted value and what the conversion dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Parsed<T> {
    pub value: T,
    /// Characters after the value were ignored.
    pub truncated: bool,
    /// TIME only: the input was beyond ±838:59:59 and `value` is the clamped limit.
    pub out_of_range: bool,
    /// Fractional digits 7–9 (0..=999 ns) beyond `value`'s microseconds, kept so that
    /// storing into a column rounds from the full input ('…59.9999995' at fsp 6 rounds
    /// up). Zero for dates and years.
    pub nanos: u16,
}

impl<T> Parsed<T> {
    pub(crate) fn exact(value: T) -> Parsed<T> {
        Parsed {
            value,
            truncated: false,
            out_of_range: false,
            nanos: 0,
        }
    }

    /// Exact unless something was dropped or clamped.
    pub fn status(&self) -> Status {
        if self.truncated || self.out_of_range {
            Status::Truncated
        } else {
            Status::Exact
        }
    }

    pub(crate) fn map<U>(self, f: impl FnOnce(T) -> U) -> Parsed<U> {
        Parsed {
            value: f(self.value),
            truncated: self.truncated,
            out_of_range: self.out_of_range,
            nanos: self.nanos,
        }
    }
}

impl Parsed<DateTime> {
    /// The value rounded half up to `fsp` digits from the full parsed precision
    /// (MySQL 8 default when storing to DATETIME(fsp)/TIMESTAMP(fsp)). `None` when the
    /// carry leaves the DATETIME range or meets a zero month/day.
    pub fn round_to_fsp(&self, fsp: u8) -> Option<DateTime> {
        self.value.round_nanos_to_fsp(self.nanos, fsp)
    }
}

impl Parsed<Time> {
    /// The value rounded half up (away from zero) to `fsp` digits from the full parsed
    /// precision; the flag is set when the result had to be clamped to ±838:59:59.
    pub fn round_to_fsp(&self, fsp: u8) -> (Time, bool) {
        let (t, clamped) = self.value.round_nanos_to_fsp(self.nanos, fsp);
        (t, clamped || self.out_of_range)
    }
}

/// Gregorian leap years as MySQL counts them: year 0 is *not* a leap year (MySQL's
/// calendar functions treat 0000 as a common year, so `0000-02-29` is invalid —
/// confirmed on MariaDB 10.11: `CAST('0000-02-29' AS DATE)` is NULL).
pub fn is_leap_year(year: u32) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || (year.is_multiple_of(400) && year != 0))
}

/// Days in `month` (1..=12) of `year`; 0 for a month outside 1..=12.
pub fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap_year(year) => 29,
        2 => 28,
        _ => 0,
    }
}

/// Day number (TO_DAYS numbering) of year/month/day, computed linearly in the day so
/// that day 0 is the last day of the previous month and day 31 of a 30-day month is the
/// first of the next (MySQL's calc_daynr is linear in the same way; DATE_FORMAT of
/// `2006-06-00` relies on it). `None` for month 0 or outside 1..=12.
pub(crate) fn day_number_lenient(year: u32, month: u32, day: u32) -> Option<i64> {
    if !(1..=12).contains(&month) {
        return None;
    }
    let proleptic = kiln_common::time::days_from_civil(year as i32, month, day) + EPOCH_DAY_NUMBER;
    // The proleptic calendar has a 0000-02-29 that MySQL's does not: dates before it
    // are one day later in MySQL's numbering (0000-01-01 is day 1, not day 0).
    Some(if year == 0 && month <= 2 {
        proleptic + 1
    } else {
        proleptic
    })
}

/// The date of a day number; the inverse of `day_number_lenient` on valid dates, for
/// any day number ≥ 1 (year 0 included). `None` below day 1 or past 9999-12-31.
pub(crate) fn date_from_day_number(n: i64) -> Option<Date> {
    if !(1..=MAX_DAY_NUMBER).contains(&n) {
        return None;
    }
    // Days 1..=59 are 0000-01-01..0000-02-28; from day 60 (0000-03-01) MySQL's numbering
    // and the proleptic calendar agree.
    let proleptic = if n < 60 { n - 1 } else { n };
    let (y, m, d) = kiln_common::time::civil_from_days(proleptic - EPOCH_DAY_NUMBER);
    debug_assert!((0..=9999).contains(&y) && (1..=12).contains(&m) && (1..=31).contains(&d));
    Some(Date {
        year: y as u16,
        month: m as u8,
        day: d as u8,
    })
}

#[cfg(test)]
mod tests;
