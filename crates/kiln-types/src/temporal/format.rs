//! DATE_FORMAT, TIME_FORMAT and STR_TO_DATE with English (en_US) names.
//!
//! Specifiers (MySQL manual, DATE_FORMAT()): %a %b %c %D %d %e %f %H %h %I %i %j %k %l
//! %M %m %p %r %S %s %T %U %u %V %v %W %w %X %x %Y %y %%; `%` before any other
//! character yields that character, and a lone trailing `%` is kept.

use super::calendar::{WeekMode, jan1, weekday_of};
use super::parse::two_digit_year;
use super::{
    Date, DateTime, Flags, MAX_DAY_NUMBER, MIN_DAY_NUMBER, Parsed, TemporalError, Time,
    date_from_day_number, day_number_lenient,
};
use std::fmt::Write;

/// English month names (DATE_FORMAT %M, MONTHNAME()).
pub const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const MONTH_ABBREVS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
/// Indexed by weekday, 0 = Monday.
/// English weekday names, Monday first (DATE_FORMAT %W, DAYNAME()).
pub const DAY_NAMES: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];
const DAY_ABBREVS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/// "1st", "2nd", "3rd", "4th" … "11th", "12th", "13th", "21st" …
fn ordinal_suffix(day: u32) -> &'static str {
    match (day % 100, day % 10) {
        (11..=13, _) => "th",
        (_, 1) => "st",
        (_, 2) => "nd",
        (_, 3) => "rd",
        _ => "th",
    }
}

/// 12-hour clock hour (1..=12) of a 24-hour hour (taken modulo 24, as TIME_FORMAT does).
fn hour12(hour: u32) -> u32 {
    (hour % 24 + 11) % 12 + 1
}

fn am_pm(hour: u32) -> &'static str {
    if hour % 24 < 12 { "AM" } else { "PM" }
}

/// DATE_FORMAT(dt, format). `None` (SQL NULL) when a specifier needs a calendar the
/// value does not have: month names of month 0, weekdays/weeks/day-of-year of month 0.
/// A day of 0 counts as the last day of the previous month for weekday and week
/// specifiers (MariaDB 10.11: DATE_FORMAT('2006-06-00', '%W %U') is 'Wednesday 22').
pub fn date_format(dt: &DateTime, format: &str) -> Option<String> {
    let d = dt.date;
    let (year, month, day) = (u32::from(d.year), u32::from(d.month), u32::from(d.day));
    let hour = u32::from(dt.hour);
    // Computed lazily: only weekday/week specifiers need the calendar.
    let daynr = || day_number_lenient(year, month, day);
    let week = |mode: u32| -> Option<(i64, u32)> {
        Some(WeekMode::of(mode).year_and_week(daynr()?, year.into()))
    };
    let mut out = String::with_capacity(format.len() + 16);
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(spec) = chars.next() else {
            out.push('%');
            break;
        };
        // `write!` to a String cannot fail.
        let _ = match spec {
            'a' => write!(out, "{}", DAY_ABBREVS[weekday_of(daynr()?) as usize]),
            'b' => write!(
                out,
                "{}",
                MONTH_ABBREVS.get(month.wrapping_sub(1) as usize)?
            ),
            'c' => write!(out, "{month}"),
            'D' => write!(out, "{day}{}", ordinal_suffix(day)),
            'd' => write!(out, "{day:02}"),
            'e' => write!(out, "{day}"),
            'f' => write!(out, "{:06}", dt.micros),
            'H' => write!(out, "{hour:02}"),
            'h' | 'I' => write!(out, "{:02}", hour12(hour)),
            'i' => write!(out, "{:02}", dt.minute),
            'j' => write!(out, "{:03}", daynr()? - jan1(year.into()) + 1),
            'k' => write!(out, "{hour}"),
            'l' => write!(out, "{}", hour12(hour)),
            'M' => write!(out, "{}", MONTH_NAMES.get(month.wrapping_sub(1) as usize)?),
            'm' => write!(out, "{month:02}"),
            'p' => write!(out, "{}", am_pm(hour)),
            'r' => write!(
                out,
                "{:02}:{:02}:{:02} {}",
                hour12(hour),
                dt.minute,
                dt.second,
                am_pm(hour)
            ),
            'S' | 's' => write!(out, "{:02}", dt.second),
            'T' => write!(out, "{hour:02}:{:02}:{:02}", dt.minute, dt.second),
            'U' => write!(out, "{:02}", week(0)?.1),
            'u' => write!(out, "{:02}", week(1)?.1),
            'V' => write!(out, "{:02}", week(2)?.1),
            'v' => write!(out, "{:02}", week(3)?.1),
            'W' => write!(out, "{}", DAY_NAMES[weekday_of(daynr()?) as usize]),
            'w' => write!(out, "{}", (weekday_of(daynr()?) + 1) % 7),
            'X' => write!(out, "{:04}", week(2)?.0),
            'x' => write!(out, "{:04}", week(3)?.0),
            'Y' => write!(out, "{year:04}"),
            'y' => write!(out, "{:02}", year % 100),
            other => write!(out, "{other}"),
        };
    }
    Some(out)
}

/// TIME_FORMAT(t, format): hour, minute, second and microsecond specifiers only; any
/// date specifier makes the result NULL (the manual: "Other specifiers produce a NULL
/// or 0"; MariaDB 10.11 gives NULL). A negative TIME gets one leading `-`; %H/%k show
/// hours beyond 23 (100:05:06 → '100'), the 12-hour forms use hours modulo 24.
pub fn time_format(t: &Time, format: &str) -> Option<String> {
    let hours = u32::from(t.hours);
    let mut out = String::with_capacity(format.len() + 16);
    if t.negative {
        out.push('-');
    }
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(spec) = chars.next() else {
            out.push('%');
            break;
        };
        let _ = match spec {
            'a' | 'b' | 'c' | 'D' | 'd' | 'e' | 'j' | 'M' | 'm' | 'U' | 'u' | 'V' | 'v' | 'W'
            | 'w' | 'X' | 'x' | 'Y' | 'y' => return None,
            'f' => write!(out, "{:06}", t.micros),
            'H' => write!(out, "{hours:02}"),
            'h' | 'I' => write!(out, "{:02}", hour12(hours)),
            'i' => write!(out, "{:02}", t.minute),
            'k' => write!(out, "{hours}"),
            'l' => write!(out, "{}", hour12(hours)),
            'p' => write!(out, "{}", am_pm(hours)),
            'r' => write!(
                out,
                "{:02}:{:02}:{:02} {}",
                hour12(hours),
                t.minute,
                t.second,
                am_pm(hours)
            ),
            'S' | 's' => write!(out, "{:02}", t.second),
            'T' => write!(out, "{hours:02}:{:02}:{:02}", t.minute, t.second),
            other => write!(out, "{other}"),
        };
    }
    Some(out)
}

/// The type STR_TO_DATE returns for a format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StrToDateKind {
    Date,
    Time,
    DateTime,
}

/// STR_TO_DATE's result type for `format` and its fractional precision (6 when %f
/// appears, else 0): DATETIME with date and time specifiers, TIME with only time
/// specifiers (%f %H %h %I %i %k %l %p %r %S %s %T), DATE otherwise.
pub fn str_to_date_kind(format: &str) -> (StrToDateKind, u8) {
    let (mut date, mut time, mut frac) = (false, false, false);
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            continue;
        }
        match chars.next() {
            Some(
                'a' | 'b' | 'c' | 'D' | 'd' | 'e' | 'j' | 'M' | 'm' | 'U' | 'u' | 'V' | 'v' | 'W'
                | 'w' | 'X' | 'x' | 'Y' | 'y',
            ) => date = true,
            Some('f') => {
                time = true;
                frac = true;
            }
            Some('H' | 'h' | 'I' | 'i' | 'k' | 'l' | 'p' | 'r' | 'S' | 's' | 'T') => time = true,
            _ => {}
        }
    }
    let kind = match (date, time) {
        (true, true) => StrToDateKind::DateTime,
        (false, true) => StrToDateKind::Time,
        _ => StrToDateKind::Date,
    };
    (kind, if frac { 6 } else { 0 })
}

/// Which specifier gave a week number (they pair with different years and modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WeekSpec {
    /// %U: Sunday first, mode 0, year from %Y.
    SundayU,
    /// %u: Monday first, mode 1, year from %Y.
    MondayU,
    /// %V: mode 2, year from %X.
    SundayV,
    /// %v: mode 3, year from %x.
    MondayV,
}

#[derive(Debug, Default)]
struct Extracted {
    year: u32,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    micros: u32,
    yearday: u32,
    /// 0 = Sunday … 6 = Saturday.
    weekday: Option<u32>,
    week: Option<(WeekSpec, u32)>,
    /// (%X → true / %x → false, year)
    week_year: Option<(bool, u32)>,
}

/// Up to `max` digits at `*j` (at least one), advancing `*j`: (value, digit count).
fn number(v: &[u8], j: &mut usize, max: usize) -> Result<(u32, usize), TemporalError> {
    let start = *j;
    let mut n = 0u32;
    while *j < v.len() && *j - start < max && v[*j].is_ascii_digit() {
        n = n * 10 + u32::from(v[*j] - b'0');
        *j += 1;
    }
    if *j == start {
        return Err(TemporalError::Invalid);
    }
    Ok((n, *j - start))
}

/// A week number of at most two digits: 0..=53, or 1..=53 for %V/%v.
fn week_number(v: &[u8], j: &mut usize, strict: bool) -> Result<u32, TemporalError> {
    let w = number(v, j, 2)?.0;
    if w > 53 || (strict && w == 0) {
        return Err(TemporalError::Invalid);
    }
    Ok(w)
}

/// The index of the name the alphabetic word at `*j` abbreviates: an exact match
/// (case-insensitive) or a unique prefix ('Sep' for %M is September; 'Ju' is neither).
fn name(v: &[u8], j: &mut usize, names: &[&str]) -> Result<usize, TemporalError> {
    let start = *j;
    while *j < v.len() && v[*j].is_ascii_alphabetic() {
        *j += 1;
    }
    let word = &v[start..*j];
    if word.is_empty() {
        return Err(TemporalError::Invalid);
    }
    let is_prefix =
        |n: &str| n.len() >= word.len() && n.as_bytes()[..word.len()].eq_ignore_ascii_case(word);
    if let Some(k) = names
        .iter()
        .position(|n| n.as_bytes().eq_ignore_ascii_case(word))
    {
        return Ok(k);
    }
    let mut hits = names.iter().enumerate().filter(|(_, n)| is_prefix(n));
    match (hits.next(), hits.next()) {
        (Some((k, _)), None) => Ok(k),
        _ => Err(TemporalError::Invalid),
    }
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// STR_TO_DATE(s, format), checked under `flags` for DATE/DATETIME formats (see
/// [`str_to_date_kind`]; a TIME format leaves the date zero and unchecked).
///
/// Whitespace in the format is skipped, and whitespace in the input is skipped before
/// each format element; other format characters must match literally. When the input
/// runs out the remaining format is ignored (unspecified parts are 0: STR_TO_DATE('9',
/// '%m') is 0000-09-00); input left over sets `truncated`. Day-of-month is only checked
/// against 1..=31, as the manual shows STR_TO_DATE('04/31/2004', '%m/%d/%Y') =
/// '2004-04-31'. %p must follow a 12-hour hour (%h %I %l); %r and %T are parsed as the
/// sub-formats `%I:%i:%S %p` and `%H:%i:%S` with their own AM/PM. %j sets the date
/// from the day of the year; a week (%U %u: 0..=53, %V %v: 1..=53) with a weekday (%a
/// %W %w) sets it from the week, %V/%v requiring %X/%x respectively; either must land
/// in 0001-01-01 ..= 9999-12-31. (Checked against MariaDB 10.11 with random formats.)
pub fn str_to_date(s: &str, format: &str, flags: Flags) -> Result<Parsed<DateTime>, TemporalError> {
    let v = s.as_bytes();
    let mut e = Extracted::default();
    let mut j = 0;
    extract(format.as_bytes(), v, &mut j, &mut e)?;
    let truncated = v[j.min(v.len())..].iter().any(|c| !is_space(*c));
    let dt = e.resolve()?;
    if str_to_date_kind(format).0 != StrToDateKind::Time {
        let d = dt.date;
        if d.is_zero() && flags.no_zero_date {
            return Err(TemporalError::ZeroDate);
        }
        if d.has_zero_part() && flags.no_zero_in_date {
            return Err(TemporalError::ZeroInDate);
        }
    }
    Ok(Parsed {
        truncated,
        ..Parsed::exact(dt)
    })
}

/// Matches format `f` against the input from `*j`, filling `e`. The 12-hour state is
/// local to one format level, so '%r' converts its own hour (MariaDB 10.11: '%k.%r%l'
/// on '18.06:34:58 PM6' gives 06:34:58).
fn extract(f: &[u8], v: &[u8], j: &mut usize, e: &mut Extracted) -> Result<(), TemporalError> {
    let mut twelve_hour = false;
    let mut pm = false;
    let mut i = 0;
    while i < f.len() {
        if is_space(f[i]) {
            i += 1;
            continue;
        }
        while *j < v.len() && is_space(v[*j]) {
            *j += 1;
        }
        if *j >= v.len() {
            break;
        }
        if f[i] != b'%' || i + 1 >= f.len() {
            if f[i] != v[*j] {
                return Err(TemporalError::Invalid);
            }
            i += 1;
            *j += 1;
            continue;
        }
        let spec = f[i + 1];
        i += 2;
        match spec {
            b'Y' => {
                let (y, n) = number(v, j, 4)?;
                e.year = if n <= 2 { two_digit_year(y) } else { y };
            }
            b'y' => e.year = two_digit_year(number(v, j, 2)?.0),
            b'm' | b'c' => e.month = number(v, j, 2)?.0,
            b'd' | b'e' => e.day = number(v, j, 2)?.0,
            b'D' => {
                e.day = number(v, j, 2)?.0;
                // The English suffix: "1st", "22nd".
                let mut k = 0;
                while k < 2 && *j < v.len() && v[*j].is_ascii_alphabetic() {
                    *j += 1;
                    k += 1;
                }
            }
            b'H' | b'k' => e.hour = number(v, j, 2)?.0,
            b'h' | b'I' | b'l' => {
                e.hour = number(v, j, 2)?.0;
                twelve_hour = true;
            }
            b'i' => e.minute = number(v, j, 2)?.0,
            b's' | b'S' => e.second = number(v, j, 2)?.0,
            b'f' => {
                let (us, n) = number(v, j, 6)?;
                e.micros = us * 10u32.pow(6 - n as u32);
            }
            b'p' => {
                let word = v.get(*j..*j + 2).ok_or(TemporalError::Invalid)?;
                if !twelve_hour {
                    // '%p %l' and '%H %p' are NULL on MariaDB 10.11.
                    return Err(TemporalError::Invalid);
                }
                pm = if word.eq_ignore_ascii_case(b"PM") {
                    true
                } else if word.eq_ignore_ascii_case(b"AM") {
                    false
                } else {
                    return Err(TemporalError::Invalid);
                };
                *j += 2;
            }
            b'r' => extract(b"%I:%i:%S %p", v, j, e)?,
            b'T' => extract(b"%H:%i:%S", v, j, e)?,
            b'M' => e.month = name(v, j, &MONTH_NAMES)? as u32 + 1,
            b'b' => e.month = name(v, j, &MONTH_ABBREVS)? as u32 + 1,
            // Names are indexed from Monday; `weekday` counts from Sunday.
            b'W' => e.weekday = Some((name(v, j, &DAY_NAMES)? as u32 + 1) % 7),
            b'a' => e.weekday = Some((name(v, j, &DAY_ABBREVS)? as u32 + 1) % 7),
            b'w' => {
                let w = number(v, j, 1)?.0;
                if w > 6 {
                    return Err(TemporalError::Invalid);
                }
                e.weekday = Some(w);
            }
            b'j' => e.yearday = number(v, j, 3)?.0,
            b'U' => e.week = Some((WeekSpec::SundayU, week_number(v, j, false)?)),
            b'u' => e.week = Some((WeekSpec::MondayU, week_number(v, j, false)?)),
            b'V' => e.week = Some((WeekSpec::SundayV, week_number(v, j, true)?)),
            b'v' => e.week = Some((WeekSpec::MondayV, week_number(v, j, true)?)),
            b'X' => e.week_year = Some((true, number(v, j, 4)?.0)),
            b'x' => e.week_year = Some((false, number(v, j, 4)?.0)),
            b'%' => {
                // MariaDB 10.11 returns NULL for any format with %%; we match the
                // literal '%' that DATE_FORMAT writes for it.
                if v[*j] != b'%' {
                    return Err(TemporalError::Invalid);
                }
                *j += 1;
            }
            _ => return Err(TemporalError::Invalid),
        }
    }
    if twelve_hour {
        if !(1..=12).contains(&e.hour) {
            return Err(TemporalError::Invalid);
        }
        e.hour = e.hour % 12 + if pm { 12 } else { 0 };
    }
    Ok(())
}

impl Extracted {
    /// Applies day-of-year and week+weekday, then the field ranges.
    fn resolve(self) -> Result<DateTime, TemporalError> {
        // Dates from a day number must be real ones from 0001-01-01 on (MySQL's
        // get_date_from_daynr gives nothing in year 0; MariaDB 10.11 returns NULL).
        let from_number = |n: i64| {
            (MIN_DAY_NUMBER..=MAX_DAY_NUMBER)
                .contains(&n)
                .then(|| date_from_day_number(n))
                .flatten()
                .ok_or(TemporalError::Invalid)
        };
        let mut date = None;
        if self.yearday > 0 {
            date = Some(from_number(
                jan1(self.year.into()) + i64::from(self.yearday) - 1,
            )?);
        }
        if let (Some((spec, week)), Some(weekday)) = (self.week, self.weekday) {
            let (mode, year) = match (spec, self.week_year) {
                (WeekSpec::SundayU, None) => (0, self.year),
                (WeekSpec::MondayU, None) => (1, self.year),
                (WeekSpec::SundayV, Some((true, y))) => (2, y),
                (WeekSpec::MondayV, Some((false, y))) => (3, y),
                _ => return Err(TemporalError::Invalid),
            };
            let wm = WeekMode::of(mode);
            let first_day = u32::from(wm.monday_first);
            let offset = (weekday + 7 - first_day) % 7;
            let n = wm.week1_start(year.into()) + (i64::from(week) - 1) * 7 + i64::from(offset);
            date = Some(from_number(n)?);
        }
        let date = match date {
            Some(d) => d,
            None => {
                if self.year > 9999 || self.month > 12 || self.day > 31 {
                    return Err(TemporalError::Invalid);
                }
                Date {
                    year: self.year as u16,
                    month: self.month as u8,
                    day: self.day as u8,
                }
            }
        };
        DateTime::new(date, self.hour, self.minute, self.second, self.micros)
            .ok_or(TemporalError::Invalid)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Flags, parse_datetime, parse_time};
    use super::*;

    fn fmt(s: &str, f: &str) -> Option<String> {
        date_format(&parse_datetime(s, Flags::LENIENT).unwrap().value, f)
    }

    fn tfmt(s: &str, f: &str) -> Option<String> {
        time_format(&parse_time(s).unwrap().value, f)
    }

    fn std(s: &str, f: &str) -> String {
        match str_to_date(s, f, Flags::LENIENT) {
            Ok(p) => {
                let v = match str_to_date_kind(f) {
                    (StrToDateKind::Date, _) => p.value.date.to_string(),
                    (StrToDateKind::Time, _) => p.value.time().to_string(),
                    (StrToDateKind::DateTime, _) => p.value.to_string(),
                };
                format!("{v}{}", if p.truncated { " (truncated)" } else { "" })
            }
            Err(_) => "NULL".into(),
        }
    }

    #[test]
    fn manual_date_format_examples() {
        // MySQL 8.0 manual, DATE_FORMAT().
        let s = |x: &str| Some(x.to_string());
        assert_eq!(
            fmt("2009-10-04 22:23:00", "%W %M %Y"),
            s("Sunday October 2009")
        );
        assert_eq!(fmt("2007-10-04 22:23:00", "%H:%i:%s"), s("22:23:00"));
        assert_eq!(
            fmt("1900-10-04 22:23:00", "%D %y %a %d %m %b %j"),
            s("4th 00 Thu 04 10 Oct 277")
        );
        assert_eq!(
            fmt("1997-10-04 22:23:00", "%H %k %I %r %T %S %w"),
            s("22 22 10 10:23:00 PM 22:23:00 00 6")
        );
        assert_eq!(fmt("1999-01-01", "%X %V"), s("1998 52"));
        assert_eq!(fmt("2006-06-00", "%d"), s("00"));
    }

    #[test]
    fn date_format_edges() {
        let s = |x: &str| Some(x.to_string());
        // MariaDB 10.11.
        assert_eq!(
            fmt("2006-06-00", "%d %e %D %j %W %a %w %U %M %b"),
            s("00 0 0th 151 Wednesday Wed 3 22 June Jun")
        );
        assert_eq!(
            fmt("2024-01-02 13:04:05.0123", "%h %I %l %p %r %T %f %k %%x %"),
            s("01 01 1 PM 01:04:05 PM 13:04:05 012300 13 %x %")
        );
        assert_eq!(
            fmt("2024-01-02 00:30:00", "%h %l %p %r"),
            s("12 12 AM 12:30:00 AM")
        );
        assert_eq!(fmt("0099-01-01", "%Y %y %X %x"), s("0099 99 0098 0099"));
        for (day, want) in [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th")] {
            assert_eq!(fmt(&format!("2024-01-{day:02}"), "%D"), s(want));
        }
        for (day, want) in [
            (12, "12th"),
            (13, "13th"),
            (21, "21st"),
            (22, "22nd"),
            (23, "23rd"),
            (31, "31st"),
        ] {
            assert_eq!(fmt(&format!("2024-01-{day:02}"), "%D"), s(want));
        }
        assert_eq!(fmt("2024-00-05", "%M"), None);
        assert_eq!(fmt("2024-00-05", "%W"), None);
        assert_eq!(fmt("0000-00-00", "%Y-%m-%d %H"), s("0000-00-00 00"));
        assert_eq!(fmt("2024-01-02", "%q%"), s("q%"));
        assert_eq!(fmt("2024-01-02", "Ünïcödé %Y"), s("Ünïcödé 2024"));
        assert_eq!(
            fmt("2024-12-31", "%U %u %V %v %X %x"),
            s("52 53 52 01 2024 2025")
        );
    }

    #[test]
    fn time_format_forms() {
        let s = |x: &str| Some(x.to_string());
        // MariaDB 10.11.
        assert_eq!(
            tfmt("100:05:06", "%H %k %h %I %l %p %r %T %S %f"),
            s("100 100 04 04 4 AM 04:05:06 AM 100:05:06 06 000000")
        );
        assert_eq!(tfmt("-01:02:03", "%H:%i:%s"), s("-01:02:03"));
        assert_eq!(tfmt("-100:00:00.5", "%r|%T"), s("-04:00:00 AM|100:00:00"));
        for f in ["%Y", "%m", "%d", "%j", "%M", "%a", "%U", "%w", "%X"] {
            assert_eq!(tfmt("12:00:00", f), None, "{f}");
        }
        // MySQL manual: TIME_FORMAT('100:00:00', '%H %k %h %I %l') = '100 100 04 04 4'.
        assert_eq!(tfmt("100:00:00", "%H %k %h %I %l"), s("100 100 04 04 4"));
    }

    #[test]
    fn manual_str_to_date_examples() {
        // MySQL 8.0 manual, STR_TO_DATE() (also confirmed on MariaDB 10.11).
        assert_eq!(std("01,5,2013", "%d,%m,%Y"), "2013-05-01");
        assert_eq!(std("May 1, 2013", "%M %d,%Y"), "2013-05-01");
        assert_eq!(std("a09:30:17", "a%h:%i:%s"), "09:30:17");
        assert_eq!(std("a09:30:17", "%h:%i:%s"), "NULL");
        assert_eq!(std("09:30:17a", "%h:%i:%s"), "09:30:17 (truncated)");
        assert_eq!(std("abc", "abc"), "0000-00-00");
        assert_eq!(std("9", "%m"), "0000-09-00");
        assert_eq!(std("9", "%s"), "00:00:09");
        assert_eq!(std("00/00/0000", "%m/%d/%Y"), "0000-00-00");
        assert_eq!(std("04/31/2004", "%m/%d/%Y"), "2004-04-31");
        assert_eq!(std("200442 Monday", "%X%V %W"), "2004-10-18");
        let strict = str_to_date("00/00/0000", "%m/%d/%Y", Flags::MYSQL8_DEFAULT);
        assert_eq!(strict, Err(TemporalError::ZeroDate));
        assert_eq!(
            str_to_date("2024-00-01", "%Y-%m-%d", Flags::MYSQL8_DEFAULT),
            Err(TemporalError::ZeroInDate)
        );
        assert!(
            str_to_date("9", "%s", Flags::MYSQL8_DEFAULT).is_ok(),
            "TIME: no date check"
        );
    }

    #[test]
    fn str_to_date_specifiers() {
        // MariaDB 10.11.
        for (s, f, want) in [
            ("Sep 1 2020", "%M %d %Y", "2020-09-01"),
            ("September 1 2020", "%b %d %Y", "NULL"),
            ("Ju 1 2020", "%b %d %Y", "NULL"),
            ("jan 1 2020", "%b %d %Y", "2020-01-01"),
            ("1st Jan 2020", "%D %b %Y", "2020-01-01"),
            ("2020 12", "%Y %j", "2020-01-12"),
            ("2020-366", "%Y-%j", "2020-12-31"),
            ("99 366", "%y %j", "2000-01-01"),
            ("2024 0", "%Y %j", "2024-00-00"),
            ("  2020-1-2", "%Y-%m-%d", "2020-01-02"),
            (
                "2020-01-02 1:02:03 pm",
                "%Y-%m-%d %h:%i:%s %p",
                "2020-01-02 13:02:03",
            ),
            ("12:00:00 AM", "%r", "00:00:00"),
            ("10:20:30 pm", "%r", "22:20:30"),
            ("10:20:30", "%T", "10:20:30"),
            ("2024-01-02 10:20", "%Y-%m-%d %r", "2024-01-02 10:20:00"),
            ("2020-01-02 10", "%Y-%m-%d %H:%i", "2020-01-02 10:00:00"),
            ("1.5", "%s.%f", "00:00:01.500000"),
            ("20", "%y", "2020-00-00"),
            ("20", "%Y", "2020-00-00"),
            ("24-1-2", "%Y-%m-%d", "2024-01-02"),
            ("2020-1-2", "%Y-%m-%d %H", "2020-01-02 00:00:00"),
            ("2020-01-02 25", "%Y-%m-%d %H", "NULL"),
            ("13:00 PM", "%h:%i %p", "NULL"),
            ("13:00 PM", "%H:%i %p", "NULL"),
            ("12:00 PM", "%h:%i %p", "12:00:00"),
            ("12:00 AM", "%h:%i %p", "00:00:00"),
            ("1:00", "%h:%i", "01:00:00"),
            ("0:00", "%h:%i", "NULL"),
            ("2024 1 Monday", "%Y %U %W", "2024-01-08"),
            ("2024 1 1", "%x %v %w", "2024-01-01"),
            ("2024 1 1", "%X %v %w", "NULL"),
            ("2024 1 1", "%Y %u %w", "2024-01-01"),
            ("2024/01/02", "%Y-%m-%d", "NULL"),
            (
                "2024-01-02 5:6:7.89",
                "%Y-%m-%d %H:%i:%s.%f",
                "2024-01-02 05:06:07.890000",
            ),
            ("Tuesday", "%W", "0000-00-00"),
            ("x", "%q", "NULL"),
            ("10 : 20", "%H:%i", "10:20:00"),
            ("1020", "%H%i", "10:20:00"),
            ("12345", "%Y%m", "1234-05-00"),
            ("2024-02-30 10", "%Y-%m-%d %H", "2024-02-30 10:00:00"),
            ("2024 13", "%Y %m", "NULL"),
            ("", "%Y", "0000-00-00"),
            ("2024", "", "0000-00-00 (truncated)"),
            ("5%", "%d%%", "0000-00-05"),
            ("PM 6", "%p %l", "NULL"),
            ("6 PM", "%l %p", "18:00:00"),
            ("2040 49", "%x %V", "0000-00-00"),
            ("2040 0 1", "%X %V %w", "NULL"),
            ("2040 54 1", "%Y %U %w", "NULL"),
            ("2040 53 1", "%Y %U %w", "2040-12-31"),
            ("2040 0 1", "%Y %U %w", "2039-12-26"),
            ("1", "%j", "NULL"),
            ("0001 1", "%Y %j", "0001-01-01"),
            ("18.06:34:58 PM6", "%k.%r%l", "06:34:58"),
            ("14:02:15:24 PM  14:15:24", "%k:%r  %T", "14:15:24"),
            ("12:48:27 PM/12", "%r/%h", "00:48:27"),
            ("50%", "%d%%", "NULL"),
        ] {
            assert_eq!(std(s, f), want, "{s:?} {f:?}");
        }
        assert_eq!(
            str_to_date_kind("%Y-%m-%d %H:%i:%s.%f"),
            (StrToDateKind::DateTime, 6)
        );
        assert_eq!(str_to_date_kind("%H:%i"), (StrToDateKind::Time, 0));
        assert_eq!(str_to_date_kind("abc"), (StrToDateKind::Date, 0));
    }
}
