//! Calendar functions over MySQL day numbers (TO_DAYS numbering, see the module
//! header): TO_DAYS/FROM_DAYS, DAYOFWEEK/WEEKDAY/DAYOFYEAR, WEEK/YEARWEEK in modes
//! 0..=7, LAST_DAY, MAKEDATE, and the TIME constructors MAKETIME / SEC_TO_TIME /
//! TIME_TO_SEC.
//!
//! Functions taking a [`Date`] return `None` (SQL NULL) for a zero month or day, as
//! MariaDB 10.11 does for DAYOFWEEK('2006-06-00') and friends; LAST_DAY only needs the
//! month.

use super::{
    Date, MAX_DAY_NUMBER, MIN_DAY_NUMBER, Time, date_from_day_number, day_number_lenient,
    days_in_month, parse::two_digit_year,
};

/// TO_DAYS: days since year 0 (0000-01-01 is 1).
pub fn to_days(d: Date) -> Option<i64> {
    d.day_number()
}

/// FROM_DAYS: the date of a day number; the zero date below 0001-01-01 (day 366) and
/// past 9999-12-31, as MySQL/MariaDB return `0000-00-00` there.
pub fn from_days(n: i64) -> Date {
    if !(MIN_DAY_NUMBER..=MAX_DAY_NUMBER).contains(&n) {
        return Date::ZERO;
    }
    date_from_day_number(n).unwrap_or(Date::ZERO)
}

/// 0 = Monday … 6 = Sunday for a day number.
pub(crate) fn weekday_of(n: i64) -> u32 {
    (n + 5).rem_euclid(7) as u32
}

/// DAYOFWEEK: 1 = Sunday … 7 = Saturday (ODBC).
pub fn day_of_week(d: Date) -> Option<u32> {
    Some((weekday_of(d.day_number()?) + 1) % 7 + 1)
}

/// WEEKDAY: 0 = Monday … 6 = Sunday.
pub fn weekday(d: Date) -> Option<u32> {
    Some(weekday_of(d.day_number()?))
}

/// Day number of January 1st of `year`; years outside 0..=10000 (reached only from
/// the week functions' neighbouring-year look-ups) extend year 0 with 365-day years.
pub(crate) fn jan1(year: i64) -> i64 {
    match u32::try_from(year) {
        Ok(y) if y <= 10_000 => day_number_lenient(y, 1, 1).unwrap_or(1),
        _ => 1 + year * 365,
    }
}

/// DAYOFYEAR: 1..=366.
pub fn day_of_year(d: Date) -> Option<u32> {
    let n = d.day_number()?;
    u32::try_from(n - jan1(d.year.into()) + 1).ok()
}

/// The rules of a WEEK() mode (MySQL manual, WEEK()):
///
/// | mode | first day | range | week 1 is the first week …   |
/// |------|-----------|-------|------------------------------|
/// | 0    | Sunday    | 0-53  | with a Sunday in this year   |
/// | 1    | Monday    | 0-53  | with 4 or more days this year|
/// | 2    | Sunday    | 1-53  | with a Sunday in this year   |
/// | 3    | Monday    | 1-53  | with 4 or more days this year|
/// | 4    | Sunday    | 0-53  | with 4 or more days this year|
/// | 5    | Monday    | 0-53  | with a Monday in this year   |
/// | 6    | Sunday    | 1-53  | with 4 or more days this year|
/// | 7    | Monday    | 1-53  | with a Monday in this year   |
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WeekMode {
    pub monday_first: bool,
    /// 1-53: a date before week 1 belongs to the previous year's last week, and one on
    /// or after next year's week 1 to that week.
    pub year_relative: bool,
    /// Week 1 is the first with ≥ 4 days in the year (else: the first that starts on
    /// the first day of the week).
    pub four_days: bool,
}

impl WeekMode {
    pub fn of(mode: u32) -> WeekMode {
        let mode = mode & 7;
        WeekMode {
            monday_first: mode & 1 != 0,
            year_relative: mode & 2 != 0,
            four_days: matches!(mode, 1 | 3 | 4 | 6),
        }
    }

    /// Day number of the first day of week 1 of `year`.
    pub fn week1_start(&self, year: i64) -> i64 {
        let j = jan1(year);
        // Position of Jan 1 in its week, 0 = the mode's first day.
        let pos = (weekday_of(j) + u32::from(!self.monday_first)) % 7;
        let pos = i64::from(pos);
        if self.four_days {
            // The week holding Jan 1 has 7 - pos days in this year.
            if pos <= 3 { j - pos } else { j + 7 - pos }
        } else if pos == 0 {
            j
        } else {
            j + 7 - pos
        }
    }

    /// (year, week) of day number `n` falling in calendar year `year`.
    pub fn year_and_week(&self, n: i64, year: i64) -> (i64, u32) {
        let mut year = year;
        let mut start = self.week1_start(year);
        if n < start {
            if !self.year_relative {
                return (year, 0);
            }
            year -= 1;
            start = self.week1_start(year);
        } else if self.year_relative && n >= self.week1_start(year + 1) {
            return (year + 1, 1);
        }
        debug_assert!(n >= start);
        (year, ((n - start) / 7 + 1) as u32)
    }
}

/// WEEK(date, mode): the week number under `mode` (only its low 3 bits count, as in
/// MySQL; the default mode is @@default_week_format, normally 0).
pub fn week(d: Date, mode: u32) -> Option<u32> {
    let n = d.day_number()?;
    Some(WeekMode::of(mode).year_and_week(n, d.year.into()).1)
}

/// YEARWEEK(date, mode): year·100 + week, with the week counted 1-53 relative to the
/// year it belongs to (mode | 2), so 1987-01-01 is 198652.
pub fn year_week(d: Date, mode: u32) -> Option<u32> {
    let n = d.day_number()?;
    let (y, w) = WeekMode::of(mode | 2).year_and_week(n, d.year.into());
    u32::try_from(y * 100 + i64::from(w)).ok()
}

/// LAST_DAY: the last day of the date's month (`None` for month 0).
pub fn last_day(d: Date) -> Option<Date> {
    let dim = days_in_month(d.year.into(), d.month.into());
    (dim > 0 && d.year <= 9999).then_some(Date {
        day: dim as u8,
        ..d
    })
}

/// MAKEDATE(year, dayofyear): years below 100 follow the two-digit rule (0 → 2000);
/// days past the year's end continue into the following years. `None` for
/// dayofyear ≤ 0, a negative year, or a result past 9999-12-31.
pub fn make_date(year: i64, day_of_year: i64) -> Option<Date> {
    if day_of_year <= 0 || !(0..=9999).contains(&year) {
        return None;
    }
    let year = i64::from(two_digit_year(year as u32));
    let n = jan1(year).checked_add(day_of_year - 1)?;
    date_from_day_number(n)
}

/// MAKETIME(hour, minute, second[.micros]): `None` unless minute and second are 0..=59;
/// a negative hour gives a negative TIME; beyond ±838:59:59 clamps (flag set).
pub fn make_time(hour: i64, minute: i64, second: i64, micros: u32) -> Option<(Time, bool)> {
    if !(0..60).contains(&minute) || !(0..60).contains(&second) || micros >= 1_000_000 {
        return None;
    }
    let mag = (i128::from(hour.unsigned_abs()) * 3600 + i128::from(minute * 60 + second))
        * 1_000_000
        + i128::from(micros);
    let mag = i64::try_from(mag).unwrap_or(i64::MAX);
    Some(Time::from_micros(if hour < 0 { -mag } else { mag }))
}

/// SEC_TO_TIME: `seconds.micros` (negated when `negative`) as a TIME, clamped to
/// ±838:59:59 (flag set).
pub fn sec_to_time(negative: bool, seconds: u64, micros: u32) -> (Time, bool) {
    let mag = i128::from(seconds) * 1_000_000 + i128::from(micros.min(999_999));
    let mag = i64::try_from(mag).unwrap_or(i64::MAX);
    Time::from_micros(if negative { -mag } else { mag })
}

/// TIME_TO_SEC: whole seconds, truncated toward zero. MySQL 8 returns an integer;
/// MariaDB 10.11 returns the fraction too (TIME_TO_SEC('00:00:01.5') = 1.5) — use
/// [`Time::total_micros`] for that.
pub fn time_to_sec(t: Time) -> i64 {
    t.total_micros() / 1_000_000
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: u16, m: u8, dd: u8) -> Date {
        Date {
            year: y,
            month: m,
            day: dd,
        }
    }

    #[test]
    fn days_and_weekdays() {
        // MySQL manual examples.
        assert_eq!(to_days(d(1995, 5, 1)), Some(728_779)); // TO_DAYS(950501)
        assert_eq!(to_days(d(2007, 10, 7)), Some(733_321));
        assert_eq!(from_days(730_669), d(2000, 7, 3));
        assert_eq!(day_of_week(d(2007, 2, 3)), Some(7));
        assert_eq!(weekday(d(2008, 2, 3)), Some(6));
        assert_eq!(weekday(d(2007, 11, 6)), Some(1));
        assert_eq!(day_of_year(d(2007, 2, 3)), Some(34));
        // MariaDB 10.11.
        assert_eq!(from_days(366), d(1, 1, 1));
        assert_eq!(from_days(365), Date::ZERO);
        assert_eq!(from_days(MAX_DAY_NUMBER), Date::MAX);
        assert_eq!(from_days(MAX_DAY_NUMBER + 1), Date::ZERO);
        assert_eq!(from_days(i64::MIN), Date::ZERO);
        assert_eq!(day_of_week(d(0, 1, 1)), Some(1));
        assert_eq!(weekday(d(0, 1, 1)), Some(6));
        assert_eq!(day_of_year(d(0, 12, 31)), Some(365));
        assert_eq!(day_of_year(d(2024, 12, 31)), Some(366));
        assert_eq!(day_of_week(d(2006, 6, 0)), None);
        assert_eq!(to_days(d(2006, 0, 5)), None);
        assert_eq!(to_days(Date::ZERO), None);
        assert_eq!(weekday(d(1970, 1, 1)), Some(3), "a Thursday");
    }

    #[test]
    fn week_modes() {
        // MySQL manual, WEEK() and YEARWEEK().
        assert_eq!(week(d(2008, 2, 20), 0), Some(7));
        assert_eq!(week(d(2008, 2, 20), 1), Some(8));
        assert_eq!(week(d(2008, 12, 31), 1), Some(53));
        assert_eq!(week(d(2000, 1, 1), 0), Some(0));
        assert_eq!(week(d(2000, 1, 1), 2), Some(52));
        assert_eq!(year_week(d(1987, 1, 1), 0), Some(198_652));
        // ISO weeks (mode 3): 2008-12-29 is week 1 of 2009; 2010-01-03 is week 53 of 2009.
        assert_eq!(week(d(2008, 12, 29), 3), Some(1));
        assert_eq!(year_week(d(2008, 12, 29), 3), Some(200_901));
        assert_eq!(week(d(2010, 1, 3), 3), Some(53));
        assert_eq!(year_week(d(2010, 1, 3), 1), Some(200_953));
        // Mode 1 keeps the date in its own year: week 0 rather than last year's 53.
        assert_eq!(week(d(2010, 1, 3), 1), Some(0));
        // Modes 4-7 on 2024-01-01 (a Monday), checked on MariaDB 10.11.
        let got: Vec<_> = (0..8).map(|m| week(d(2024, 1, 1), m).unwrap()).collect();
        assert_eq!(got, [0, 1, 53, 1, 1, 1, 1, 1]);
        let got: Vec<_> = (0..8).map(|m| week(d(2022, 1, 1), m).unwrap()).collect();
        assert_eq!(got, [0, 0, 52, 52, 0, 0, 52, 52]);
        assert_eq!(week(d(2024, 0, 1), 0), None);
        assert_eq!(week(d(9999, 12, 31), 3), Some(52));
        assert_eq!(week(d(0, 1, 1), 2).map(|w| w > 0), Some(true));
        assert_eq!(week(d(2024, 6, 1), 15), week(d(2024, 6, 1), 7));
    }

    #[test]
    fn last_day_and_makedate() {
        // MySQL manual, LAST_DAY() and MAKEDATE().
        assert_eq!(last_day(d(2003, 2, 5)), Some(d(2003, 2, 28)));
        assert_eq!(last_day(d(2004, 2, 5)), Some(d(2004, 2, 29)));
        assert_eq!(last_day(d(2004, 1, 1)), Some(d(2004, 1, 31)));
        assert_eq!(last_day(d(0, 2, 5)), Some(d(0, 2, 28)));
        assert_eq!(last_day(d(2006, 6, 0)), Some(d(2006, 6, 30)));
        assert_eq!(last_day(d(2006, 0, 0)), None);
        assert_eq!(make_date(2011, 31), Some(d(2011, 1, 31)));
        assert_eq!(make_date(2011, 32), Some(d(2011, 2, 1)));
        assert_eq!(make_date(2011, 365), Some(d(2011, 12, 31)));
        assert_eq!(make_date(2014, 365), Some(d(2014, 12, 31)));
        assert_eq!(make_date(2011, 0), None);
        // MariaDB 10.11.
        assert_eq!(make_date(11, 1), Some(d(2011, 1, 1)));
        assert_eq!(make_date(2011, 400), Some(d(2012, 2, 4)));
        assert_eq!(make_date(9999, 366), None);
        assert_eq!(make_date(0, 1), Some(d(2000, 1, 1)));
        assert_eq!(make_date(99, 1), Some(d(1999, 1, 1)));
        assert_eq!(make_date(100, 1), Some(d(100, 1, 1)));
        assert_eq!(make_date(-1, 1), None);
        assert_eq!(make_date(2000, i64::MAX), None);
    }

    #[test]
    fn time_constructors() {
        let t = |s: &str| super::super::parse_time(s).unwrap().value;
        // MySQL manual: MAKETIME(12,15,30) = '12:15:30'; SEC_TO_TIME(2378) = '00:39:38';
        // TIME_TO_SEC('22:23:00') = 80580, TIME_TO_SEC('00:39:38') = 2378.
        assert_eq!(make_time(12, 15, 30, 0), Some((t("12:15:30"), false)));
        assert_eq!(sec_to_time(false, 2378, 0), (t("00:39:38"), false));
        assert_eq!(time_to_sec(t("22:23:00")), 80_580);
        assert_eq!(time_to_sec(t("00:39:38")), 2378);
        // MariaDB 10.11.
        assert_eq!(make_time(-1, 15, 30, 0), Some((t("-01:15:30"), false)));
        assert_eq!(make_time(839, 0, 0, 0), Some((Time::MAX, true)));
        assert_eq!(make_time(12, 60, 0, 0), None);
        assert_eq!(
            make_time(12, 0, 59, 999_900),
            Some((t("12:00:59.9999"), false))
        );
        assert_eq!(make_time(i64::MIN, 0, 0, 0), Some((Time::MIN, true)));
        assert_eq!(sec_to_time(true, 3_020_399, 0), (Time::MIN, false));
        assert_eq!(sec_to_time(false, 3_020_400, 0), (Time::MAX, true));
        assert_eq!(sec_to_time(false, 1, 500_000), (t("00:00:01.5"), false));
        assert_eq!(sec_to_time(false, u64::MAX, 0), (Time::MAX, true));
        assert_eq!(time_to_sec(t("-01:00:00")), -3600);
        assert_eq!(time_to_sec(t("-00:00:01.5")), -1);
    }
}
