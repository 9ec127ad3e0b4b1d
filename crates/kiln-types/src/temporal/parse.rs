//! String and number → DATE / DATETIME / TIME / YEAR, following the forms the MySQL
//! 8.0 manual documents ("Date and Time Literals", "The YEAR Type", "Conversion
//! Between Date and Time Types"). Where the manual is silent the behaviour follows
//! MariaDB 10.11, which shares MySQL's parser lineage (noted at each such rule).
//!
//! Strings, after leading whitespace:
//! * delimited: `Y…-M…-D…[sep h…:m…:s…[.f…]]` — any single ASCII punctuation character
//!   between date parts and between time parts; `sep` is whitespace, `T` or one
//!   punctuation character; each part is a run of digits of any length (`2024-1-2`);
//!   a year of exactly two digits follows the 70/69 rule; the fraction follows only
//!   `.` after the seconds; hour/minute/second may be omitted from the right.
//! * compact: digits only (an optional `T` inside), then an optional `.fraction`: 8 or
//!   ≥ 14 digits start with a 4-digit year, other lengths with a 2-digit year; parts are
//!   read left to right two digits at a time (`240102123` is 2024-01-02 12:03:00).
//! * TIME: `[-][D ]h…[:m…[:s…]][.f…]` or compact `[h…h]mmss` from the right; strings of
//!   at least 12 characters are first tried as a DATETIME whose time part is taken
//!   (MySQL's str_to_time does this), so '2024-01-02 12:34:56' is 12:34:56.
//! * Trailing whitespace is ignored; other trailing characters set `truncated`.

use super::{Date, DateTime, Flags, Parsed, TIME_MAX_MICROS, TemporalError, Time, Year};

/// MySQL's two-digit year rule: 0–69 → 2000–2069, 70–99 → 1970–1999; larger values are
/// returned unchanged.
pub fn two_digit_year(y: u32) -> u32 {
    match y {
        0..=69 => y + 2000,
        70..=99 => y + 1900,
        _ => y,
    }
}

/// MySQL's isspace for the latin1 range.
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn skip_spaces(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_space(b[i]) {
        i += 1;
    }
    i
}

/// A run of digits at `i`: (value saturated at u64::MAX, digit count, end).
fn digit_run(b: &[u8], i: usize) -> (u64, usize, usize) {
    let mut v = 0u64;
    let mut j = i;
    while j < b.len() && b[j].is_ascii_digit() {
        v = v.saturating_mul(10).saturating_add(u64::from(b[j] - b'0'));
        j += 1;
    }
    (v, j - i, j)
}

/// The fractional digits after a `.`: microseconds (first six digits, right-padded),
/// the next three digits as nanoseconds; further digits are ignored, as MySQL does.
fn fraction(digits: &[u8]) -> (u32, u16) {
    let digit = |k: usize| digits.get(k).map_or(0, |c| u32::from(c - b'0'));
    let micros = (0..6).fold(0, |a, k| a * 10 + digit(k));
    let nanos = (6..9).fold(0, |a, k| a * 10 + digit(k));
    (micros, nanos as u16)
}

/// Reads `.digits` at `i` if present: (micros, nanos, end).
fn opt_fraction(b: &[u8], i: usize) -> (u32, u16, usize) {
    if i < b.len() && b[i] == b'.' {
        let (_, n, end) = digit_run(b, i + 1);
        let (us, ns) = fraction(&b[i + 1..end]);
        debug_assert!(n == end - i - 1);
        (us, ns, end)
    } else {
        (0, 0, i)
    }
}

/// Whether only whitespace remains from `i`.
fn rest_is_blank(b: &[u8], i: usize) -> bool {
    b.get(i..).is_none_or(|r| r.iter().all(|c| is_space(*c)))
}

/// Raw datetime fields before range checks.
struct Fields {
    year: u64,
    year_digits: usize,
    month: u64,
    day: u64,
    hour: u64,
    minute: u64,
    second: u64,
    micros: u32,
    nanos: u16,
    truncated: bool,
}

impl Fields {
    /// Applies the two-digit-year rule and the field ranges (MySQL rejects month > 12,
    /// day > 31, hour > 23, minute/second > 59 whatever the sql_mode).
    fn finish(self) -> Result<Parsed<DateTime>, TemporalError> {
        let all_zero = self.year == 0
            && self.month == 0
            && self.day == 0
            && self.hour == 0
            && self.minute == 0
            && self.second == 0
            && self.micros == 0;
        // '00-00-00' stays the zero date rather than becoming 2000-00-00.
        let year = if self.year_digits == 2 && !all_zero {
            u64::from(two_digit_year(self.year as u32))
        } else {
            self.year
        };
        if year > 9999 || self.month > 12 || self.day > 31 {
            return Err(TemporalError::Invalid);
        }
        let date = Date {
            year: year as u16,
            month: self.month as u8,
            day: self.day as u8,
        };
        let dt = DateTime::new(
            date,
            u32::try_from(self.hour).unwrap_or(u32::MAX),
            u32::try_from(self.minute).unwrap_or(u32::MAX),
            u32::try_from(self.second).unwrap_or(u32::MAX),
            self.micros,
        )
        .ok_or(TemporalError::Invalid)?;
        Ok(Parsed {
            value: dt,
            truncated: self.truncated,
            out_of_range: false,
            nanos: self.nanos,
        })
    }
}

/// Parses a DATETIME string and checks the date under `flags`.
pub fn parse_datetime(s: &str, flags: Flags) -> Result<Parsed<DateTime>, TemporalError> {
    let (p, _) = scan_datetime(s.as_bytes())?;
    p.value.check(flags)?;
    Ok(p)
}

/// Parses a DATE string (a DATETIME string's time part is validated and dropped, as
/// CAST(… AS DATE) does) and checks it under `flags`.
pub fn parse_date(s: &str, flags: Flags) -> Result<Parsed<Date>, TemporalError> {
    let (p, _) = scan_datetime(s.as_bytes())?;
    p.value.date.check(flags)?;
    Ok(Parsed {
        nanos: 0,
        ..p.map(|dt| dt.date)
    })
}

/// How a datetime string was written, for [`parse_time`]'s datetime attempt.
#[derive(Debug, Clone, Copy)]
struct Shape {
    /// A time of day followed the date.
    has_time: bool,
    /// Date and time were separated by a punctuation character (not space or 'T').
    punct_separator: bool,
}

/// Datetime fields of a string, with field ranges checked but not the calendar.
fn scan_datetime(b: &[u8]) -> Result<(Parsed<DateTime>, Shape), TemporalError> {
    let start = skip_spaces(b, 0);
    let b = &b[start..];
    if b.first().is_none_or(|c| !c.is_ascii_digit()) {
        return Err(TemporalError::Invalid);
    }
    // Compact when the leading run of digits (with at most one 'T' inside, as in
    // '20240102T123456' — accepted by MariaDB 10.11) ends the string or meets '.'.
    let mut digits = Vec::new();
    let mut seen_t = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            c if c.is_ascii_digit() => digits.push(c),
            // Only where a time could start (after YYMMDD or YYYYMMDD).
            b'T' if !seen_t && matches!(digits.len(), 6 | 8) => seen_t = true,
            _ => break,
        }
        i += 1;
    }
    if i == b.len() {
        return scan_compact(&digits, b, i);
    }
    if b[i] == b'.' {
        // '20240102.5' is compact with a fraction, but '2024.1.2' uses '.' as the date
        // delimiter (MariaDB 10.11 accepts both): fall back to the delimited form.
        if let Ok(p) = scan_compact(&digits, b, i) {
            return Ok(p);
        }
    }
    scan_delimited(b)
}

fn scan_compact(
    digits: &[u8],
    b: &[u8],
    end: usize,
) -> Result<(Parsed<DateTime>, Shape), TemporalError> {
    let n = digits.len();
    let year_len = if n == 4 || n == 8 || n >= 14 { 4 } else { 2 };
    let mut f = [0u64; 6];
    let mut pos = 0;
    let mut parts = 0;
    for (k, w) in [year_len, 2, 2, 2, 2, 2].into_iter().enumerate() {
        if pos >= n {
            break;
        }
        let take = w.min(n - pos);
        f[k] = digits[pos..pos + take]
            .iter()
            .fold(0, |a, c| a * 10 + u64::from(c - b'0'));
        pos += take;
        parts += 1;
    }
    if parts < 3 {
        return Err(TemporalError::Invalid);
    }
    // Digits past the seconds are ignored with a warning (MariaDB: "Truncated
    // incorrect datetime value: '2024010212345678'").
    let mut truncated = pos < n;
    let (mut micros, mut nanos, after) = opt_fraction(b, end);
    if after > end && parts < 6 {
        // A fraction after a date-only number is dropped (MariaDB: a note for DATE;
        // it rejects it for DATETIME, we keep the date).
        truncated = true;
        micros = 0;
        nanos = 0;
    }
    Fields {
        year: f[0],
        year_digits: year_len,
        month: f[1],
        day: f[2],
        hour: f[3],
        minute: f[4],
        second: f[5],
        micros,
        nanos,
        truncated: truncated || !rest_is_blank(b, after),
    }
    .finish()
    .map(|p| {
        let shape = Shape {
            has_time: parts > 3,
            punct_separator: false,
        };
        (p, shape)
    })
}

fn scan_delimited(b: &[u8]) -> Result<(Parsed<DateTime>, Shape), TemporalError> {
    let (year, year_digits, mut i) = digit_run(b, 0);
    let mut date = [0u64; 2];
    for part in &mut date {
        // Exactly one punctuation character between date parts: MariaDB 10.11 rejects
        // '2024--01-02' and '2024 01 02'.
        if i + 1 < b.len() && b[i].is_ascii_punctuation() && b[i + 1].is_ascii_digit() {
            let (v, _, end) = digit_run(b, i + 1);
            *part = v;
            i = end;
        } else {
            return Err(TemporalError::Invalid);
        }
    }
    let mut f = Fields {
        year,
        year_digits,
        month: date[0],
        day: date[1],
        hour: 0,
        minute: 0,
        second: 0,
        micros: 0,
        nanos: 0,
        truncated: false,
    };
    // Separator between date and time: whitespace, 'T' or one punctuation character.
    let mut j = i;
    let mut shape = Shape {
        has_time: false,
        punct_separator: false,
    };
    if j < b.len() && is_space(b[j]) {
        j = skip_spaces(b, j);
    } else if j < b.len() && (b[j] == b'T' || b[j].is_ascii_punctuation()) {
        shape.punct_separator = b[j] != b'T';
        j += 1;
    }
    if j < b.len() && b[j].is_ascii_digit() {
        shape.has_time = true;
        let (h, _, end) = digit_run(b, j);
        f.hour = h;
        i = end;
        let mut parts = 1;
        for part in [&mut f.minute, &mut f.second] {
            if i + 1 < b.len() && b[i].is_ascii_punctuation() && b[i + 1].is_ascii_digit() {
                let (v, _, end) = digit_run(b, i + 1);
                *part = v;
                i = end;
                parts += 1;
            } else {
                break;
            }
        }
        if parts == 3 {
            let (us, ns, end) = opt_fraction(b, i);
            f.micros = us;
            f.nanos = ns;
            i = end;
        }
    } else if rest_is_blank(b, j) {
        // '2024-01-02 ' and '2024-01-02T' are plain dates (no warning on MariaDB).
        i = b.len();
    }
    f.truncated = !rest_is_blank(b, i);
    f.finish().map(|p| (p, shape))
}

/// Parses a TIME string, clamping to ±838:59:59 (`out_of_range`).
pub fn parse_time(s: &str) -> Result<Parsed<Time>, TemporalError> {
    let b = s.as_bytes();
    let b = &b[skip_spaces(b, 0)..];
    // Trailing whitespace is not part of the value (it matters for the days rule).
    let b = &b[..b.len() - b.iter().rev().take_while(|c| is_space(**c)).count()];
    // A full datetime (date and time, split by space or 'T' — MariaDB 10.11 reads
    // '748:12:23.000' as a TIME but '10:11:12 13:14' as a datetime) gives its time; a
    // run of 12+ digits that is no valid datetime is invalid rather than a huge number
    // of hours (MariaDB 10.11: '029719191904' is NULL).
    if b.len() >= 12 && b[0].is_ascii_digit() {
        match scan_datetime(b) {
            Ok((p, shape)) if shape.has_time && !shape.punct_separator => {
                return Ok(p.map(|dt| dt.time()));
            }
            _ if digit_run(b, 0).1 >= 12 => return Err(TemporalError::Invalid),
            _ => {}
        }
    }
    let mut i = 0;
    let negative = b.first() == Some(&b'-');
    if negative || b.first() == Some(&b'+') {
        // MariaDB 10.11 accepts '- 12:00' and '+12:00'.
        i = skip_spaces(b, 1);
    }
    let (v1, n1, end) = digit_run(b, i);
    if n1 == 0 {
        return Err(TemporalError::Invalid);
    }
    i = end;
    let (mut minutes, mut seconds) = (0u64, 0u64);
    // Days: 'D h…' needs a digit and at least one more character after the space
    // (MariaDB 10.11: '1 9' is 1 second with trailing garbage; '1 09', '1 9:00' and
    // '1 2 294' are days and hours).
    let j = skip_spaces(b, i);
    let (days, hours) = if j > i && j + 1 < b.len() && b[j].is_ascii_digit() {
        // 'D h[:m[:s]]'
        let (h, _, end) = digit_run(b, j);
        i = colon_parts(b, end, &mut [&mut minutes, &mut seconds]);
        (v1, h)
    } else if i + 1 < b.len() && b[i] == b':' && b[i + 1].is_ascii_digit() {
        // 'h:m[:s]' — only ':' delimits TIME parts (MariaDB takes '12-34-56' as 12s).
        i = colon_parts(b, i, &mut [&mut minutes, &mut seconds]);
        (0, v1)
    } else {
        // Compact '[h…]mmss', read from the right.
        seconds = v1 % 100;
        minutes = v1 / 100 % 100;
        (0, v1 / 10_000)
    };
    let (micros, nanos, end) = opt_fraction(b, i);
    i = end;
    if minutes > 59 || seconds > 59 {
        return Err(TemporalError::Invalid);
    }
    let total = days
        .saturating_mul(24)
        .saturating_add(hours)
        .saturating_mul(3600)
        .saturating_add(minutes * 60 + seconds)
        .saturating_mul(1_000_000)
        .saturating_add(u64::from(micros));
    let truncated = !rest_is_blank(b, i);
    Ok(clamp_time(negative, total, nanos, truncated))
}

/// Reads up to two more `:`-separated parts into `parts`; returns the end.
fn colon_parts(b: &[u8], mut i: usize, parts: &mut [&mut u64; 2]) -> usize {
    for part in parts.iter_mut() {
        if i + 1 < b.len() && b[i] == b':' && b[i + 1].is_ascii_digit() {
            let (v, _, end) = digit_run(b, i + 1);
            **part = v;
            i = end;
        } else {
            break;
        }
    }
    i
}

/// A TIME from a magnitude in microseconds, clamped to 838:59:59 (MySQL 8's limit has
/// no fraction: '838:59:59.5' clamps, unlike MariaDB which keeps it).
fn clamp_time(negative: bool, mag_micros: u64, nanos: u16, truncated: bool) -> Parsed<Time> {
    if mag_micros > TIME_MAX_MICROS as u64 {
        let value = if negative { Time::MIN } else { Time::MAX };
        return Parsed {
            value,
            truncated,
            out_of_range: true,
            nanos: 0,
        };
    }
    let signed = mag_micros as i64;
    let (value, clamped) = Time::from_micros(if negative { -signed } else { signed });
    debug_assert!(!clamped);
    Parsed {
        value,
        truncated,
        out_of_range: false,
        // Sub-microsecond digits past the limit would only round back down to it.
        nanos: if value == Time::MAX || value == Time::MIN {
            0
        } else {
            nanos
        },
    }
}

/// Datetime fields of a non-negative integer per MySQL's documented number forms:
/// YYMMDD, YYYYMMDD, YYMMDDhhmmss, YYYYMMDDhhmmss, shorter numbers padded with leading
/// zeros to the next of those lengths; the gaps between the forms are invalid.
fn number_fields(n: u64) -> Result<DateTime, TemporalError> {
    if n == 0 {
        return Ok(DateTime::ZERO);
    }
    let n = match n {
        0..=100 => return Err(TemporalError::Invalid),
        101..=691_231 => n + 20_000_000,
        691_232..=700_100 => return Err(TemporalError::Invalid),
        700_101..=991_231 => n + 19_000_000,
        991_232..=10_000_100 => return Err(TemporalError::Invalid),
        10_000_101..=99_991_231 => n,
        99_991_232..=100_999_999 => return Err(TemporalError::Invalid),
        101_000_000..=691_231_235_959 => n + 20_000_000_000_000,
        691_231_235_960..=700_100_999_999 => return Err(TemporalError::Invalid),
        700_101_000_000..=991_231_235_959 => n + 19_000_000_000_000,
        991_231_235_960..=999_999_999_999 => return Err(TemporalError::Invalid),
        // 13 digits pad to a 4-digit year below 1000 (MariaDB 10.11: 9361031193513 is
        // 0936-10-31 19:35:13), unlike 7-digit dates, which are invalid.
        1_000_000_000_000..=99_991_231_235_959 => n,
        _ => return Err(TemporalError::Invalid),
    };
    let (ymd, hms) = if n <= 99_991_231 {
        (n, 0)
    } else {
        (n / 1_000_000, n % 1_000_000)
    };
    let (month, day) = (ymd / 100 % 100, ymd % 100);
    if month > 12 || day > 31 {
        return Err(TemporalError::Invalid);
    }
    let date = Date {
        year: (ymd / 10_000) as u16,
        month: month as u8,
        day: day as u8,
    };
    DateTime::new(
        date,
        (hms / 10_000) as u32,
        (hms / 100 % 100) as u32,
        (hms % 100) as u32,
        0,
    )
    .ok_or(TemporalError::Invalid)
}

/// An integer as a DATETIME (20240102 → 2024-01-02 00:00:00, 20240102123456 →
/// 2024-01-02 12:34:56, 240102 → 2024-01-02), checked under `flags`.
pub fn datetime_from_int(n: i64, flags: Flags) -> Result<Parsed<DateTime>, TemporalError> {
    let n = u64::try_from(n).map_err(|_| TemporalError::Invalid)?;
    let dt = number_fields(n)?;
    dt.check(flags)?;
    Ok(Parsed::exact(dt))
}

/// Splits a finite non-negative double into its integer part and the fraction in
/// nanoseconds (rounded to the nearest nanosecond, never carrying).
fn split_f64(x: f64) -> Option<(u64, u32)> {
    if !x.is_finite() || !(0.0..1e19).contains(&x) {
        return None;
    }
    let int = x.trunc();
    let nanos = ((x - int) * 1e9).round().min(999_999_999.0) as u32;
    Some((int as u64, nanos))
}

/// A double as a DATETIME: the integer part as in [`datetime_from_int`], the fraction
/// as fractional seconds of a datetime number (dropped, with `truncated`, for a
/// date-only number, as MariaDB 10.11 does).
pub fn datetime_from_f64(x: f64, flags: Flags) -> Result<Parsed<DateTime>, TemporalError> {
    let (int, nanos) = split_f64(x).ok_or(TemporalError::Invalid)?;
    let mut dt = number_fields(int)?;
    dt.check(flags)?;
    if int <= 99_991_231 {
        return Ok(Parsed {
            truncated: nanos != 0,
            ..Parsed::exact(dt)
        });
    }
    dt.micros = nanos / 1000;
    Ok(Parsed {
        nanos: (nanos % 1000) as u16,
        ..Parsed::exact(dt)
    })
}

/// Integers of eleven or more digits are DATETIME numbers whose time part is taken.
const TIME_DATETIME_NUMBER: u64 = 10_000_000_000;
/// 838:59:59 as a number.
const TIME_MAX_NUMBER: u64 = 8_385_959;

/// The TIME of a magnitude `hhmmss` (+ nanoseconds), `negative` applying to it.
///
/// Beyond ±8385959 the value clamps whatever its minute/second digits (MySQL's
/// number_to_time; MariaDB 10.11 agrees for 7-digit numbers but returns NULL from
/// 10000000 on), after trying 11+ digit positive numbers as datetimes.
fn time_number(negative: bool, a: u64, nanos: u32) -> Result<Parsed<Time>, TemporalError> {
    if a > TIME_MAX_NUMBER {
        if !negative
            && a >= TIME_DATETIME_NUMBER
            && let Ok(dt) = number_fields(a)
        {
            let mut t = dt.time();
            t.micros = nanos / 1000;
            return Ok(Parsed {
                nanos: (nanos % 1000) as u16,
                ..Parsed::exact(t)
            });
        }
        return Ok(clamp_time(negative, u64::MAX, 0, false));
    }
    let (h, m, s) = (a / 10_000, a / 100 % 100, a % 100);
    if m > 59 || s > 59 {
        return Err(TemporalError::Invalid);
    }
    let mag = ((h * 60 + m) * 60 + s) * 1_000_000 + u64::from(nanos / 1000);
    Ok(clamp_time(negative, mag, (nanos % 1000) as u16, false))
}

/// An integer as a TIME: 123456 → 12:34:56, -1 → -00:00:01, clamped beyond
/// ±8385959 (`out_of_range`); 11+ digit numbers are datetimes and give their time.
pub fn time_from_int(n: i64) -> Result<Parsed<Time>, TemporalError> {
    time_number(n < 0, n.unsigned_abs(), 0)
}

/// A double as a TIME, its fraction as fractional seconds.
pub fn time_from_f64(x: f64) -> Result<Parsed<Time>, TemporalError> {
    let (int, nanos) = split_f64(x.abs()).ok_or(TemporalError::Invalid)?;
    time_number(x < 0.0, int, nanos)
}

impl Year {
    /// A numeric YEAR: 0 stays 0 (displayed 0000), 1–69 → 2001–2069, 70–99 →
    /// 1970–1999, 1901..=2155 as is; anything else is out of range.
    pub fn from_int(n: i64) -> Result<Year, TemporalError> {
        match n {
            0 => Ok(Year(0)),
            1..=99 => Ok(Year(two_digit_year(n as u32) as u16)),
            1901..=2155 => Ok(Year(n as u16)),
            _ => Err(TemporalError::OutOfRange),
        }
    }

    /// A double YEAR, rounded to the nearest integer first (2024.6 → 2025).
    pub fn from_f64(x: f64) -> Result<Year, TemporalError> {
        if !x.is_finite() {
            return Err(TemporalError::Invalid);
        }
        if x.abs() > 1e9 {
            return Err(TemporalError::OutOfRange);
        }
        Year::from_int(x.round() as i64)
    }

    /// A string YEAR: the number is rounded ('1999.5' → 2000); a 1–3 digit value below
    /// 100 follows the two-digit rule with '0'/'00'/'000' → 2000 (unlike the number 0),
    /// while '0000' is year 0. Trailing garbage sets `truncated`.
    pub fn parse(s: &str) -> Result<Parsed<Year>, TemporalError> {
        let b = s.as_bytes();
        let mut i = skip_spaces(b, 0);
        let negative = b.get(i) == Some(&b'-');
        if negative || b.get(i) == Some(&b'+') {
            i += 1;
        }
        let (v, n, mut end) = digit_run(b, i);
        if n == 0 {
            return Err(TemporalError::Invalid);
        }
        let mut v = v;
        if end < b.len() && b[end] == b'.' {
            let (_, fd, fend) = digit_run(b, end + 1);
            if fd > 0 && b[end + 1] >= b'5' {
                v = v.saturating_add(1);
            }
            end = fend;
        }
        if negative && v != 0 {
            return Err(TemporalError::OutOfRange);
        }
        let year = match v {
            0 if n == 4 => Year(0),
            0..=99 => Year(two_digit_year(v as u32) as u16),
            1901..=2155 => Year(v as u16),
            _ => return Err(TemporalError::OutOfRange),
        };
        Ok(Parsed {
            truncated: !rest_is_blank(b, end),
            ..Parsed::exact(year)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAX: Flags = Flags::LENIENT;

    fn dt(s: &str) -> String {
        match parse_datetime(s, LAX) {
            Ok(p) => format!(
                "{}{}",
                p.value,
                if p.truncated { " (truncated)" } else { "" }
            ),
            Err(e) => format!("{e:?}"),
        }
    }

    fn date(s: &str) -> String {
        match parse_date(s, LAX) {
            Ok(p) => format!(
                "{}{}",
                p.value,
                if p.truncated { " (truncated)" } else { "" }
            ),
            Err(e) => format!("{e:?}"),
        }
    }

    fn time(s: &str) -> String {
        match parse_time(s) {
            Ok(p) => format!(
                "{}{}{}",
                p.value,
                if p.truncated { " (truncated)" } else { "" },
                if p.out_of_range { " (clamped)" } else { "" }
            ),
            Err(e) => format!("{e:?}"),
        }
    }

    #[test]
    fn date_string_forms() {
        // Each confirmed with CAST(… AS DATE) on MariaDB 10.11 (sql_mode='').
        for (s, want) in [
            ("2024-01-02", "2024-01-02"),
            ("24-01-02", "2024-01-02"),
            ("2024/1/2", "2024-01-02"),
            ("2024.1.2", "2024-01-02"),
            ("2024^12^31", "2024-12-31"),
            ("20240102", "2024-01-02"),
            ("240102", "2024-01-02"),
            ("124-01-02", "0124-01-02"),
            ("1-01-02", "0001-01-02"),
            ("2024-001-02", "2024-01-02"),
            ("24010", "2024-01-00"),
            ("2401021", "2024-01-02"),
            (" 2024-01-02", "2024-01-02"),
            ("2024-01-02 ", "2024-01-02"),
            ("70-01-01", "1970-01-01"),
            ("69-12-31", "2069-12-31"),
            ("0069-12-31", "0069-12-31"),
            ("00-00-00", "0000-00-00"),
            ("000000", "0000-00-00"),
            ("0000-01-01", "0000-01-01"),
            ("2024-00-00", "2024-00-00"),
            ("2024-01-02 abc", "2024-01-02 (truncated)"),
            ("2024-01-02x", "2024-01-02 (truncated)"),
            ("20240102.5", "2024-01-02 (truncated)"),
        ] {
            assert_eq!(date(s), want, "{s:?}");
        }
        for s in [
            "",
            "abc",
            "-2024-01-02",
            "2024--01-02",
            "2024 01 02",
            "2024-01",
            "2024",
            "9903",
            "2024-13-01",
            "2024-01-32",
            "2023-02-30",
            "0000-02-29",
            "1900-02-29",
            "2024010212",
            "99999999-01-01",
            "2024-01-02 24:00:00",
        ] {
            assert_eq!(date(s), "Invalid", "{s:?}");
        }
    }

    #[test]
    fn datetime_string_forms() {
        for (s, want) in [
            ("2024-01-02 12:34:56.789", "2024-01-02 12:34:56.789000"),
            ("2024-01-02T12:34:56", "2024-01-02 12:34:56"),
            ("20240102123456", "2024-01-02 12:34:56"),
            ("20240102T123456", "2024-01-02 12:34:56"),
            ("240102123456", "2024-01-02 12:34:56"),
            ("240102123", "2024-01-02 12:03:00"),
            ("20240102123456.5", "2024-01-02 12:34:56.500000"),
            ("2024010212345678", "2024-01-02 12:34:56 (truncated)"),
            ("2024-01-02 12", "2024-01-02 12:00:00"),
            ("2024-01-02 12:34", "2024-01-02 12:34:00"),
            ("2024-1-2 1:2:3", "2024-01-02 01:02:03"),
            ("2024-01-02  12:34:56", "2024-01-02 12:34:56"),
            ("2024-01-02@12@34@56", "2024-01-02 12:34:56"),
            ("2012^12^31 11+30+45", "2012-12-31 11:30:45"),
            ("2024-01-02T", "2024-01-02 00:00:00"),
            ("2024-01-02 12:34:56.", "2024-01-02 12:34:56"),
            ("2024-01-02 12:34.5", "2024-01-02 12:34:05"),
            ("2024-01-02 12:34:56xyz", "2024-01-02 12:34:56 (truncated)"),
            (
                "2024-01-02 12:34:56.5x",
                "2024-01-02 12:34:56.500000 (truncated)",
            ),
            ("2024-01-02 12:34:56 .5", "2024-01-02 12:34:56 (truncated)"),
            ("2024-01-02 12:34:56 ", "2024-01-02 12:34:56"),
            ("2024-01-02 12:34:56.1234567", "2024-01-02 12:34:56.123456"),
        ] {
            assert_eq!(dt(s), want, "{s:?}");
        }
        for s in [
            "2024-01-02 24:00:00",
            "2024-01-02 12:60:00",
            "2024-01-02 12:00:60",
            "2024-01-0212:34:56",
            "2024-01-02 12:3456",
            "2024-01-02 123456",
            "20240102 123456",
            "071122129015",
        ] {
            assert_eq!(dt(s), "Invalid", "{s:?}");
        }
        // The 7th–9th fractional digits are kept for rounding.
        let p = parse_datetime("2024-01-02 23:59:59.9999995", LAX).unwrap();
        assert_eq!((p.value.micros, p.nanos), (999_999, 500));
        assert_eq!(
            p.round_to_fsp(6).unwrap().to_string(),
            "2024-01-03 00:00:00"
        );
        assert_eq!(
            p.round_to_fsp(3).unwrap().to_string(),
            "2024-01-03 00:00:00"
        );
        let p = parse_datetime("2024-01-02 10:00:00.123456789", LAX).unwrap();
        assert_eq!(
            p.round_to_fsp(6).unwrap().to_string(),
            "2024-01-02 10:00:00.123457"
        );
        let p = parse_datetime("2024-01-02 23:59:59.5", LAX).unwrap();
        assert_eq!(
            p.round_to_fsp(0).unwrap().to_string(),
            "2024-01-03 00:00:00"
        );
        let p = parse_datetime("9999-12-31 23:59:59.9999999", LAX).unwrap();
        assert_eq!(p.round_to_fsp(6), None);
    }

    #[test]
    fn flags_decide_zero_and_invalid_dates() {
        let strict = Flags::MYSQL8_DEFAULT;
        assert_eq!(
            parse_date("0000-00-00", strict),
            Err(TemporalError::ZeroDate)
        );
        assert_eq!(
            parse_date("2024-00-10", strict),
            Err(TemporalError::ZeroInDate)
        );
        assert_eq!(
            parse_date("2024-10-00", strict),
            Err(TemporalError::ZeroInDate)
        );
        assert!(parse_date("2024-02-29", strict).is_ok());
        let invalid_ok = Flags {
            allow_invalid_dates: true,
            ..strict
        };
        assert_eq!(
            parse_date("2004-04-31", invalid_ok)
                .unwrap()
                .value
                .to_string(),
            "2004-04-31"
        );
        assert_eq!(
            parse_date("2004-04-31", strict),
            Err(TemporalError::Invalid)
        );
        assert_eq!(
            parse_date("2004-04-32", invalid_ok),
            Err(TemporalError::Invalid)
        );
        assert_eq!(datetime_from_int(0, strict), Err(TemporalError::ZeroDate));
    }

    #[test]
    fn time_string_forms() {
        // Confirmed with CAST(… AS TIME) on MariaDB 10.11, except where noted.
        for (s, want) in [
            ("12:34:56", "12:34:56"),
            ("1 12:34:56", "36:34:56"),
            ("12:34", "12:34:00"),
            ("12", "00:00:12"),
            ("123456", "12:34:56"),
            ("3456", "00:34:56"),
            ("1112", "00:11:12"),
            ("-12:34:56", "-12:34:56"),
            ("34 22:00:00", "838:00:00"),
            ("1 12", "36:00:00"),
            ("1 09", "33:00:00"),
            ("1 9:00", "33:00:00"),
            ("1 9", "00:00:01 (truncated)"),
            ("0 12", "12:00:00"),
            ("1 1:2", "25:02:00"),
            ("1 123", "147:00:00"),
            ("1 12:30", "36:30:00"),
            ("12:34:56.789", "12:34:56.789000"),
            ("2024-01-02 12:34:56", "12:34:56"),
            ("748:12:23.000", "748:12:23"),
            ("01:02:03.123456", "01:02:03.123456"),
            ("10:11:12 13:14", "13:14:00"),
            ("10-11-12 13:14:15", "13:14:15"),
            ("2024-01-02T12:13", "12:13:00"),
            ("2024-01-02 12", "12:00:00"),
            ("20240102123456", "12:34:56"),
            ("12:34:56abc", "12:34:56 (truncated)"),
            ("1:2:3", "01:02:03"),
            ("1:2", "01:02:00"),
            ("123:45", "123:45:00"),
            ("12.5", "00:00:12.500000"),
            ("-0:00:00", "00:00:00"),
            ("12:34.5", "12:34:00.500000"),
            ("1 12.5", "36:00:00.500000"),
            ("1234.5", "00:12:34.500000"),
            ("- 12:00", "-12:00:00"),
            ("+12:00", "12:00:00"),
            ("12-34-56", "00:00:12 (truncated)"),
            ("2024-01-02", "00:20:24 (truncated)"),
            ("12:34:", "12:34:00 (truncated)"),
            ("12:34:56:78", "12:34:56 (truncated)"),
            ("1 x", "00:00:01 (truncated)"),
            ("850:00:00", "838:59:59 (clamped)"),
            ("-850:00:00", "-838:59:59 (clamped)"),
            ("35 00:00:00", "838:59:59 (clamped)"),
            ("8395959", "838:59:59 (clamped)"),
            ("8385959", "838:59:59"),
            // MySQL 8: the range ends at 838:59:59.000000 (MariaDB keeps .5).
            ("838:59:59.5", "838:59:59 (clamped)"),
            ("4294967295:00", "838:59:59 (clamped)"),
            ("06061185142", "838:59:59 (clamped)"),
            ("1 2 294", "26:00:00 (truncated)"),
            ("1 9 ", "00:00:01 (truncated)"),
            ("12345.678901", "01:23:45.678901"),
            ("10-11-12@13:14:15", "00:00:10 (truncated)"),
        ] {
            assert_eq!(time(s), want, "{s:?}");
        }
        for s in [
            "109712",
            "12:60:00",
            "abc",
            "",
            "--12:00",
            ".5",
            "12:345",
            "12345678",
            "-",
            "105746193647",
            "029719191904",
            "027390000954.83694",
            "99999999999999999999:00",
        ] {
            assert_eq!(time(s), "Invalid", "{s:?}");
        }
        let p = parse_time("23:59:59.9999995").unwrap();
        assert_eq!(
            p.round_to_fsp(6),
            (Time::new(false, 24, 0, 0, 0).unwrap(), false)
        );
        let p = parse_time("-0:0:0.0000004").unwrap();
        assert_eq!(p.round_to_fsp(6), (Time::ZERO, false));
        let p = parse_time("838:59:58.9999999").unwrap();
        assert_eq!(p.round_to_fsp(6), (Time::MAX, false));
        let p = parse_time("838:59:59.0000001").unwrap();
        assert_eq!(p.round_to_fsp(6), (Time::MAX, false));
    }

    #[test]
    fn numbers() {
        let n = |v: i64| match datetime_from_int(v, LAX) {
            Ok(p) => p.value.to_string(),
            Err(e) => format!("{e:?}"),
        };
        // MariaDB 10.11 CAST(number AS DATE/DATETIME).
        assert_eq!(n(20240102), "2024-01-02 00:00:00");
        assert_eq!(n(20240102123456), "2024-01-02 12:34:56");
        assert_eq!(n(1231), "2000-12-31 00:00:00");
        assert_eq!(n(101), "2000-01-01 00:00:00");
        assert_eq!(n(100), "Invalid");
        assert_eq!(n(691231), "2069-12-31 00:00:00");
        assert_eq!(n(700101), "1970-01-01 00:00:00");
        assert_eq!(n(1000101), "Invalid");
        assert_eq!(n(99991231), "9999-12-31 00:00:00");
        assert_eq!(n(100000000), "Invalid");
        assert_eq!(n(101000000), "2000-01-01 00:00:00");
        assert_eq!(n(240102123456), "2024-01-02 12:34:56");
        assert_eq!(n(99991231235959), "9999-12-31 23:59:59");
        assert_eq!(n(99991231235960), "Invalid");
        assert_eq!(n(9361031193513), "0936-10-31 19:35:13");
        assert_eq!(n(1000101000000), "0100-01-01 00:00:00");
        assert_eq!(n(999999999999), "Invalid");
        assert_eq!(n(100101000000), "2010-01-01 00:00:00");
        assert_eq!(n(2024), "Invalid");
        assert_eq!(n(0), "0000-00-00 00:00:00");
        assert_eq!(n(-20240102), "Invalid");
        assert_eq!(n(i64::MAX), "Invalid");

        let p = datetime_from_f64(20240102123456.5, LAX).unwrap();
        assert_eq!(p.value.to_string(), "2024-01-02 12:34:56.500000");
        let p = datetime_from_f64(20240102.5, LAX).unwrap();
        assert_eq!(
            (p.value.to_string().as_str(), p.truncated),
            ("2024-01-02 00:00:00", true)
        );
        assert_eq!(datetime_from_f64(2024.5, LAX), Err(TemporalError::Invalid));
        assert_eq!(datetime_from_f64(1e20, LAX), Err(TemporalError::Invalid));
        assert_eq!(
            datetime_from_f64(f64::NAN, LAX),
            Err(TemporalError::Invalid)
        );

        let t = |v: i64| match time_from_int(v) {
            Ok(p) => format!(
                "{}{}",
                p.value,
                if p.out_of_range { " (clamped)" } else { "" }
            ),
            Err(e) => format!("{e:?}"),
        };
        assert_eq!(t(123456), "12:34:56");
        assert_eq!(t(-123456), "-12:34:56");
        assert_eq!(t(123), "00:01:23");
        assert_eq!(t(8385960), "838:59:59 (clamped)");
        assert_eq!(t(-8395959), "-838:59:59 (clamped)");
        // MariaDB 10.11 clamps 9999999 too but returns NULL for 12345678.
        assert_eq!(t(9999999), "838:59:59 (clamped)");
        assert_eq!(t(12345678), "838:59:59 (clamped)");
        assert_eq!(t(-20240102123456), "-838:59:59 (clamped)");
        assert_eq!(t(99999999999), "838:59:59 (clamped)");
        assert_eq!(t(1260), "Invalid");
        assert_eq!(t(20240102123456), "12:34:56");
        assert_eq!(t(100000000000), "00:00:00");
        assert_eq!(t(i64::MIN), "-838:59:59 (clamped)");
        let p = time_from_f64(123456.7).unwrap();
        assert_eq!(p.value.to_string(), "12:34:56.700000");
        let p = time_from_f64(-1.5).unwrap();
        assert_eq!(p.value.to_string(), "-00:00:01.500000");
        assert!(time_from_f64(8385959.5).unwrap().out_of_range);
        assert_eq!(time_from_f64(f64::INFINITY), Err(TemporalError::Invalid));
    }

    #[test]
    fn years() {
        // MariaDB 10.11 INSERT into a YEAR column (sql_mode='').
        for (v, want) in [
            (0, 0),
            (1, 2001),
            (69, 2069),
            (70, 1970),
            (99, 1999),
            (1901, 1901),
            (2155, 2155),
        ] {
            assert_eq!(Year::from_int(v), Ok(Year(want)), "{v}");
        }
        for v in [2156, 1900, 100, -1] {
            assert_eq!(Year::from_int(v), Err(TemporalError::OutOfRange), "{v}");
        }
        assert_eq!(Year::from_f64(2024.6), Ok(Year(2025)));
        for (s, want, trunc) in [
            ("0", 2000, false),
            ("00", 2000, false),
            ("000", 2000, false),
            ("0000", 0, false),
            ("1", 2001, false),
            ("99", 1999, false),
            ("2024abc", 2024, true),
            (" 24", 2024, false),
            ("1999.5", 2000, false),
            ("2155", 2155, false),
        ] {
            let p = Year::parse(s).unwrap();
            assert_eq!((p.value, p.truncated), (Year(want), trunc), "{s:?}");
        }
        assert_eq!(Year::parse("abc"), Err(TemporalError::Invalid));
        assert_eq!(Year::parse("2156"), Err(TemporalError::OutOfRange));
        assert_eq!(Year::parse("1900"), Err(TemporalError::OutOfRange));
        assert_eq!(two_digit_year(5), 2005);
        assert_eq!(two_digit_year(75), 1975);
    }
}
