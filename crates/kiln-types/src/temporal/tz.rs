//! Time zones and Unix time: the session `time_zone` ([`TimeZone`]), TIMESTAMP
//! storage (UTC seconds + microseconds, shown in the session zone), UNIX_TIMESTAMP and
//! FROM_UNIXTIME.
//!
//! * `SYSTEM` is the process's zone, loaded once: `TZ` (a TZif path, a zoneinfo name,
//!   or a POSIX TZ string like `EST5EDT,M3.2.0,M11.1.0`), else `/etc/localtime`, else
//!   UTC. TZif files (RFC 8536, v1–v4) give the transitions; their footer TZ string
//!   gives the rule after the last one. Leap-second records are ignored.
//! * A fixed offset `±[H]H:MM` within MySQL 8.0.19+'s range `-13:59 ..= +14:00`
//!   (MariaDB 10.11 only accepts `-12:59 ..= +13:00`), or `UTC`.
//! * Local → UTC across DST changes: a local time in a spring-forward gap maps to the
//!   instant the gap ends (the MySQL manual's UNIX_TIMESTAMP example maps both
//!   '2005-03-27 02:00:00' and '03:00:00' MET to 1111885200); an ambiguous local time
//!   in a fall-back overlap maps to its earlier instant.

use super::{DateTime, TemporalError};
use kiln_common::time::{civil_from_days, days_from_civil};
use std::io::Read;
use std::sync::{Arc, OnceLock};

/// TIMESTAMP's range: '1970-01-01 00:00:01' UTC ..= '2038-01-19 03:14:07.999999' UTC.
pub const TIMESTAMP_MIN_SECS: i64 = 1;
pub const TIMESTAMP_MAX_SECS: i64 = 2_147_483_647;
/// UNIX_TIMESTAMP / FROM_UNIXTIME's range on 64-bit platforms since MySQL 8.0.28:
/// up to '3001-01-18 23:59:59.999999' UTC (MariaDB 10.11 stops at 2038).
pub const FROM_UNIXTIME_MAX_SECS: i64 = 32_536_771_199;

/// An instant: seconds since 1970-01-01 00:00:00 UTC plus microseconds (0..=999_999).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UnixTime {
    pub secs: i64,
    pub micros: u32,
}

/// A day of a POSIX TZ rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RuleDay {
    /// `Jn`: day 1..=365, February 29 never counted.
    Julian1(u16),
    /// `n`: day 0..=365, February 29 counted.
    Julian0(u16),
    /// `Mm.w.d`: weekday d (0 = Sunday) of week w (5 = last) of month m.
    MonthWeekDay(u8, u8, u8),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DstRule {
    /// UTC offset (seconds east) during DST.
    offset: i32,
    /// Local date and time (seconds after midnight, standard time) DST starts.
    start: (RuleDay, i32),
    /// Local date and time (DST time) DST ends.
    end: (RuleDay, i32),
}

/// A POSIX TZ string: standard offset and an optional yearly DST rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PosixRule {
    std: i32,
    dst: Option<DstRule>,
}

/// A zone's UTC offsets over time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Zone {
    name: String,
    /// (UTC instant, offset from then on), ascending.
    transitions: Vec<(i64, i32)>,
    /// The offset before the first transition (RFC 8536: time type 0).
    initial: i32,
    /// The rule after the last transition (or throughout, with no transitions).
    rule: Option<PosixRule>,
}

/// Offsets are searched within this distance of a local time (more than any real
/// zone's offset).
const SEARCH: i64 = 26 * 3600;

impl Zone {
    pub fn utc() -> Zone {
        Zone {
            name: "UTC".into(),
            transitions: Vec::new(),
            initial: 0,
            rule: None,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// A zone from TZif bytes (RFC 8536); `None` if malformed.
    pub fn from_tzif(name: &str, b: &[u8]) -> Option<Zone> {
        let (transitions, initial, rule) = parse_tzif(b)?;
        Some(Zone {
            name: name.into(),
            transitions,
            initial,
            rule,
        })
    }

    /// A zone from a POSIX TZ string such as `CET-1CEST,M3.5.0,M10.5.0/3`.
    pub fn from_posix_tz(s: &str) -> Option<Zone> {
        let rule = parse_posix(s.as_bytes())?;
        Some(Zone {
            name: s.into(),
            transitions: Vec::new(),
            initial: rule.std,
            rule: Some(rule),
        })
    }

    /// The zoneinfo zone `name` (e.g. `Europe/Berlin`) from `$TZDIR` or
    /// `/usr/share/zoneinfo`; `None` for unsafe names or missing files.
    pub fn load(name: &str) -> Option<Zone> {
        let safe = !name.is_empty()
            && !name.starts_with('/')
            && name
                .split('/')
                .all(|p| !p.is_empty() && p != "." && p != "..")
            && name
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || b"/_-+".contains(&c));
        if !safe {
            return None;
        }
        let dir = std::env::var("TZDIR").unwrap_or_else(|_| "/usr/share/zoneinfo".into());
        Zone::from_tzif(name, &read_small(&format!("{dir}/{name}"))?)
    }

    /// The process's zone (see the module header), loaded on first use.
    pub fn system() -> &'static Zone {
        static SYSTEM: OnceLock<Zone> = OnceLock::new();
        SYSTEM.get_or_init(load_system)
    }

    /// The UTC offset in seconds at instant `utc`.
    pub fn offset_at(&self, utc: i64) -> i32 {
        let Some(first) = self.transitions.first() else {
            return self.rule.map_or(self.initial, |r| r.offset_at(utc));
        };
        if utc < first.0 {
            return self.initial;
        }
        let idx = self.transitions.partition_point(|(at, _)| *at <= utc) - 1;
        match self.rule {
            Some(r) if idx + 1 == self.transitions.len() => r.offset_at(utc),
            _ => self.transitions[idx].1,
        }
    }

    /// The UTC instant of local seconds `local` (gap → end of gap, overlap → earlier).
    pub fn local_to_utc(&self, local: i64) -> i64 {
        let before = self.offset_at(local.saturating_sub(SEARCH));
        let after = self.offset_at(local.saturating_add(SEARCH));
        let fits = |off: i32| {
            let u = local.saturating_sub(i64::from(off));
            (self.offset_at(u) == off).then_some(u)
        };
        match (fits(before), fits(after)) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => {
                // A gap: find the transition between the two offsets.
                let (mut lo, mut hi) = (local.saturating_sub(SEARCH), local.saturating_add(SEARCH));
                while hi - lo > 1 {
                    let mid = lo + (hi - lo) / 2;
                    if self.offset_at(mid) == before {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                hi
            }
        }
    }
}

fn read_small(path: &str) -> Option<Vec<u8>> {
    let mut buf = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(1 << 20)
        .read_to_end(&mut buf)
        .ok()?;
    Some(buf)
}

fn load_system() -> Zone {
    if let Ok(tz) = std::env::var("TZ")
        && !tz.is_empty()
    {
        let tz = tz.strip_prefix(':').unwrap_or(&tz);
        let zone = if tz.starts_with('/') {
            read_small(tz).and_then(|b| Zone::from_tzif(tz, &b))
        } else {
            Zone::load(tz).or_else(|| Zone::from_posix_tz(tz))
        };
        return zone.unwrap_or_else(Zone::utc);
    }
    let name = std::fs::read_link("/etc/localtime")
        .ok()
        .and_then(|p| {
            let s = p.to_string_lossy().into_owned();
            s.split_once("zoneinfo/").map(|(_, n)| n.to_string())
        })
        .unwrap_or_else(|| "SYSTEM".into());
    read_small("/etc/localtime")
        .and_then(|b| Zone::from_tzif(&name, &b))
        .unwrap_or_else(Zone::utc)
}

/// Big-endian integer of `n` bytes at `at`, sign-extended.
fn be(b: &[u8], at: usize, n: usize) -> Option<i64> {
    let s = b.get(at..at.checked_add(n)?)?;
    let v = s.iter().fold(0u64, |a, x| a << 8 | u64::from(*x));
    let shift = 64 - 8 * n as u32;
    Some(((v << shift) as i64) >> shift)
}

type TzifData = (Vec<(i64, i32)>, i32, Option<PosixRule>);

/// Parses TZif: the v1 block for version 1 files, else the 64-bit v2+ block and the
/// footer rule.
fn parse_tzif(b: &[u8]) -> Option<TzifData> {
    // Counts: isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt.
    let header = |at: usize| -> Option<[usize; 6]> {
        if b.get(at..at + 4)? != b"TZif" {
            return None;
        }
        let mut c = [0usize; 6];
        for (k, slot) in c.iter_mut().enumerate() {
            *slot = usize::try_from(be(b, at + 20 + 4 * k, 4)?).ok()?;
        }
        Some(c)
    };
    let block_len = |c: &[usize; 6], tsize: usize| -> Option<usize> {
        let [isut, isstd, leap, time, types, chars] = *c;
        let mut n = time.checked_mul(tsize + 1)?;
        n = n.checked_add(types.checked_mul(6)?)?;
        n = n.checked_add(chars)?;
        n = n.checked_add(leap.checked_mul(tsize + 4)?)?;
        n.checked_add(isstd)?.checked_add(isut)
    };
    let c1 = header(0)?;
    let version = *b.get(4)?;
    let (c, at, tsize) = if version >= b'2' {
        let v2 = 44usize.checked_add(block_len(&c1, 4)?)?;
        (header(v2)?, v2 + 44, 8)
    } else {
        (c1, 44, 4)
    };
    let [_, _, _, timecnt, typecnt, _] = c;
    if typecnt == 0 || typecnt > 256 {
        return None;
    }
    let types_at = at.checked_add(timecnt.checked_mul(tsize)?)?;
    let info_at = types_at.checked_add(timecnt)?;
    let end = at.checked_add(block_len(&c, tsize)?)?;
    if end > b.len() {
        return None;
    }
    let utoff = |t: usize| -> Option<i32> { i32::try_from(be(b, info_at + 6 * t, 4)?).ok() };
    let mut transitions = Vec::with_capacity(timecnt);
    for k in 0..timecnt {
        let when = be(b, at + k * tsize, tsize)?;
        let t = usize::from(*b.get(types_at + k)?);
        if t >= typecnt {
            return None;
        }
        transitions.push((when, utoff(t)?));
    }
    if transitions.windows(2).any(|w| w[0].0 >= w[1].0) {
        return None;
    }
    let initial = utoff(0)?;
    let rule = if tsize == 8 {
        // Footer: "\n" TZ-string "\n"; an empty string means no rule.
        let footer = b.get(end..)?;
        let inner = footer
            .strip_prefix(b"\n")
            .and_then(|f| f.split(|c| *c == b'\n').next());
        inner.filter(|s| !s.is_empty()).and_then(parse_posix)
    } else {
        None
    };
    Some((transitions, initial, rule))
}

/// Cursor over a POSIX TZ string.
struct Posix<'a> {
    b: &'a [u8],
    i: usize,
}

impl Posix<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        let hit = self.peek() == Some(c);
        if hit {
            self.i += 1;
        }
        hit
    }

    fn name(&mut self) -> Option<()> {
        if self.eat(b'<') {
            while self.peek()? != b'>' {
                self.i += 1;
            }
            self.i += 1;
        } else {
            // POSIX: an unquoted name is at least three letters.
            let start = self.i;
            while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
                self.i += 1;
            }
            if self.i - start < 3 {
                return None;
            }
        }
        Some(())
    }

    fn num(&mut self, max: u32) -> Option<u32> {
        let start = self.i;
        let mut v = 0u32;
        while let Some(c) = self.peek().filter(u8::is_ascii_digit) {
            v = v.checked_mul(10)?.checked_add(u32::from(c - b'0'))?;
            self.i += 1;
        }
        (self.i > start && v <= max).then_some(v)
    }

    /// `[+-]hh[:mm[:ss]]` in seconds (hours up to 167, as TZif v3 allows).
    fn time(&mut self) -> Option<i32> {
        let neg = self.eat(b'-');
        if !neg {
            self.eat(b'+');
        }
        let mut secs = self.num(167)? as i32 * 3600;
        if self.eat(b':') {
            secs += self.num(59)? as i32 * 60;
            if self.eat(b':') {
                secs += self.num(59)? as i32;
            }
        }
        Some(if neg { -secs } else { secs })
    }

    fn rule_day(&mut self) -> Option<(RuleDay, i32)> {
        let day = if self.eat(b'J') {
            RuleDay::Julian1(u16::try_from(self.num(365)?).ok().filter(|n| *n >= 1)?)
        } else if self.eat(b'M') {
            let m = self.num(12)?;
            self.eat(b'.').then_some(())?;
            let w = self.num(5)?;
            self.eat(b'.').then_some(())?;
            let d = self.num(6)?;
            (m >= 1 && w >= 1).then_some(())?;
            RuleDay::MonthWeekDay(m as u8, w as u8, d as u8)
        } else {
            RuleDay::Julian0(self.num(365)? as u16)
        };
        let time = if self.eat(b'/') { self.time()? } else { 7200 };
        Some((day, time))
    }
}

/// Parses `std offset [dst [offset] [,start[/time],end[/time]]]`. POSIX offsets are
/// west-positive ("EST5"); we store east-positive seconds.
fn parse_posix(b: &[u8]) -> Option<PosixRule> {
    let mut p = Posix { b, i: 0 };
    p.name()?;
    if p.peek().is_none() {
        // A bare name ("UTC"): glibc treats it as UTC.
        return Some(PosixRule { std: 0, dst: None });
    }
    let std = -p.time()?;
    if p.peek().is_none() {
        return Some(PosixRule { std, dst: None });
    }
    p.name()?;
    let offset = match p.peek() {
        Some(c) if c != b',' => -p.time()?,
        _ => std + 3600,
    };
    let (start, end) = if p.eat(b',') {
        let start = p.rule_day()?;
        p.eat(b',').then_some(())?;
        (start, p.rule_day()?)
    } else {
        // POSIX leaves the default to the implementation; the US rules are usual.
        (
            (RuleDay::MonthWeekDay(3, 2, 0), 7200),
            (RuleDay::MonthWeekDay(11, 1, 0), 7200),
        )
    };
    if p.peek().is_some() {
        return None;
    }
    Some(PosixRule {
        std,
        dst: Some(DstRule { offset, start, end }),
    })
}

fn is_gregorian_leap(y: i64) -> bool {
    y.rem_euclid(4) == 0 && (y.rem_euclid(100) != 0 || y.rem_euclid(400) == 0)
}

impl RuleDay {
    /// Days since 1970-01-01 of this rule day in `year`.
    fn epoch_day(self, year: i32) -> i64 {
        let jan1 = days_from_civil(year, 1, 1);
        match self {
            RuleDay::Julian1(n) => {
                let n = i64::from(n);
                jan1 + n - 1 + i64::from(is_gregorian_leap(year.into()) && n >= 60)
            }
            RuleDay::Julian0(n) => jan1 + i64::from(n),
            RuleDay::MonthWeekDay(m, w, d) => {
                let first = days_from_civil(year, m.into(), 1);
                let next = if m == 12 {
                    days_from_civil(year + 1, 1, 1)
                } else {
                    days_from_civil(year, u32::from(m) + 1, 1)
                };
                // 1970-01-01 was a Thursday (4, with Sunday = 0).
                let wd_first = (first + 4).rem_euclid(7);
                let mut day =
                    first + (i64::from(d) - wd_first).rem_euclid(7) + (i64::from(w) - 1) * 7;
                while day >= next {
                    day -= 7;
                }
                day
            }
        }
    }
}

impl PosixRule {
    fn offset_at(&self, utc: i64) -> i32 {
        let Some(dst) = self.dst else {
            return self.std;
        };
        // Years far outside any calendar we format are clamped; only the offset matters.
        let local = utc.clamp(-(1 << 40), 1 << 40) + i64::from(self.std);
        let (year, _, _) = civil_from_days(local.div_euclid(86_400));
        let start =
            dst.start.0.epoch_day(year) * 86_400 + i64::from(dst.start.1) - i64::from(self.std);
        let end = dst.end.0.epoch_day(year) * 86_400 + i64::from(dst.end.1) - i64::from(dst.offset);
        let utc = utc.clamp(-(1 << 40), 1 << 40);
        let in_dst = if start < end {
            start <= utc && utc < end
        } else {
            // Southern hemisphere: DST spans the new year.
            !(end <= utc && utc < start)
        };
        if in_dst { dst.offset } else { self.std }
    }
}

/// A session time zone (`@@time_zone`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimeZone {
    /// The process's zone ([`Zone::system`]).
    System,
    Utc,
    /// A fixed offset in seconds east of UTC.
    Offset(i32),
    /// A loaded zone (e.g. [`Zone::load`]).
    Zone(Arc<Zone>),
}

impl TimeZone {
    /// `SYSTEM`, `UTC` (case-insensitive) or `±[H]H:MM` within -13:59 ..= +14:00.
    pub fn parse(s: &str) -> Option<TimeZone> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("SYSTEM") {
            return Some(TimeZone::System);
        }
        if s.eq_ignore_ascii_case("UTC") {
            return Some(TimeZone::Utc);
        }
        let b = s.as_bytes();
        let neg = match b.first()? {
            b'+' => false,
            b'-' => true,
            _ => return None,
        };
        let (h, m) = s[1..].split_once(':')?;
        let digits = |t: &str| !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit());
        if !(1..=2).contains(&h.len()) || m.len() != 2 || !digits(h) || !digits(m) {
            return None;
        }
        let (h, m): (i32, i32) = (h.parse().ok()?, m.parse().ok()?);
        let secs = h * 3600 + m * 60;
        let ok = m < 60
            && if neg {
                secs <= 13 * 3600 + 59 * 60
            } else {
                secs <= 14 * 3600
            };
        ok.then_some(TimeZone::Offset(if neg { -secs } else { secs }))
    }

    /// The `@@time_zone` text: `SYSTEM`, `UTC`, `+05:30`, or the zone's name.
    pub fn name(&self) -> String {
        match self {
            TimeZone::System => "SYSTEM".into(),
            TimeZone::Utc => "UTC".into(),
            TimeZone::Offset(s) => {
                let a = s.unsigned_abs();
                format!(
                    "{}{:02}:{:02}",
                    if *s < 0 { '-' } else { '+' },
                    a / 3600,
                    a / 60 % 60
                )
            }
            TimeZone::Zone(z) => z.name().into(),
        }
    }

    /// The UTC offset at instant `utc` (seconds).
    pub fn offset_at(&self, utc: i64) -> i32 {
        match self {
            TimeZone::System => Zone::system().offset_at(utc),
            TimeZone::Utc => 0,
            TimeZone::Offset(s) => *s,
            TimeZone::Zone(z) => z.offset_at(utc),
        }
    }

    fn local_secs_to_utc(&self, local: i64) -> i64 {
        match self {
            TimeZone::System => Zone::system().local_to_utc(local),
            TimeZone::Utc => local,
            TimeZone::Offset(s) => local.saturating_sub(i64::from(*s)),
            TimeZone::Zone(z) => z.local_to_utc(local),
        }
    }

    /// The instant of a local datetime in this zone; `None` for dates with zero parts.
    pub fn local_to_utc(&self, dt: &DateTime) -> Option<UnixTime> {
        let us = dt.to_epoch_micros()?;
        let secs = self.local_secs_to_utc(us.div_euclid(1_000_000));
        Some(UnixTime {
            secs,
            micros: us.rem_euclid(1_000_000) as u32,
        })
    }

    /// The local datetime of an instant; `None` outside 0000-01-01 ..= 9999-12-31.
    pub fn utc_to_local(&self, t: UnixTime) -> Option<DateTime> {
        let local = t.secs.checked_add(i64::from(self.offset_at(t.secs)))?;
        let us = local
            .checked_mul(1_000_000)?
            .checked_add(i64::from(t.micros.min(999_999)))?;
        DateTime::from_epoch_micros(us)
    }
}

/// Storing a DATETIME value into a TIMESTAMP column in session zone `tz`. The zero
/// datetime is MySQL's zero TIMESTAMP (stored as 0); anything else must fall within
/// [`TIMESTAMP_MIN_SECS`]..=[`TIMESTAMP_MAX_SECS`] (else `OutOfRange`). Round to the
/// column's fsp first.
pub fn timestamp_from_datetime(dt: &DateTime, tz: &TimeZone) -> Result<UnixTime, TemporalError> {
    if dt.is_zero() {
        return Ok(UnixTime::default());
    }
    let u = tz.local_to_utc(dt).ok_or(TemporalError::Invalid)?;
    if !(TIMESTAMP_MIN_SECS..=TIMESTAMP_MAX_SECS).contains(&u.secs) {
        return Err(TemporalError::OutOfRange);
    }
    Ok(u)
}

/// A stored TIMESTAMP shown in session zone `tz` (0 is the zero datetime).
pub fn timestamp_to_datetime(t: UnixTime, tz: &TimeZone) -> DateTime {
    if t == UnixTime::default() {
        return DateTime::ZERO;
    }
    tz.utc_to_local(t).unwrap_or(DateTime::ZERO)
}

/// UNIX_TIMESTAMP(dt) with `dt` in session zone `tz`: 0 for anything outside
/// 1970-01-01 00:00:00 UTC ..= [`FROM_UNIXTIME_MAX_SECS`] (the manual: "If you pass an
/// out-of-range date to UNIX_TIMESTAMP(), it returns 0"; MariaDB returns NULL).
pub fn unix_timestamp(dt: &DateTime, tz: &TimeZone) -> UnixTime {
    match tz.local_to_utc(dt) {
        Some(u) if (0..=FROM_UNIXTIME_MAX_SECS).contains(&u.secs) => u,
        _ => UnixTime::default(),
    }
}

/// FROM_UNIXTIME(t) in session zone `tz`; `None` (NULL) for negative instants or
/// beyond [`FROM_UNIXTIME_MAX_SECS`].
pub fn from_unixtime(t: UnixTime, tz: &TimeZone) -> Option<DateTime> {
    if !(0..=FROM_UNIXTIME_MAX_SECS).contains(&t.secs) || t.micros > 999_999 {
        return None;
    }
    tz.utc_to_local(t)
}

#[cfg(test)]
mod tests {
    use super::super::{Flags, parse_datetime};
    use super::*;

    fn dt(s: &str) -> DateTime {
        parse_datetime(s, Flags::LENIENT).unwrap().value
    }

    fn ut(secs: i64) -> UnixTime {
        UnixTime { secs, micros: 0 }
    }

    #[test]
    fn parse_zone_names() {
        assert_eq!(TimeZone::parse("SYSTEM"), Some(TimeZone::System));
        assert_eq!(TimeZone::parse("utc"), Some(TimeZone::Utc));
        assert_eq!(TimeZone::parse("+05:30"), Some(TimeZone::Offset(19_800)));
        assert_eq!(TimeZone::parse("+5:30"), Some(TimeZone::Offset(19_800)));
        assert_eq!(TimeZone::parse("-6:00"), Some(TimeZone::Offset(-21_600)));
        assert_eq!(TimeZone::parse("+14:00"), Some(TimeZone::Offset(50_400)));
        assert_eq!(TimeZone::parse("-13:59"), Some(TimeZone::Offset(-50_340)));
        for bad in [
            "+14:01",
            "-14:00",
            "+5:60",
            "05:30",
            "+5",
            "+5:3",
            "+005:30",
            "+a:00",
            "",
            "Europe/Berlin",
        ] {
            assert_eq!(TimeZone::parse(bad), None, "{bad:?}");
        }
        // MariaDB 10.11: SET time_zone='+5:30'; SELECT @@time_zone → '+05:30'.
        assert_eq!(TimeZone::parse("+5:30").unwrap().name(), "+05:30");
        assert_eq!(TimeZone::Offset(-50_340).name(), "-13:59");
        assert_eq!(TimeZone::Utc.name(), "UTC");
    }

    #[test]
    fn fixed_offsets_and_ranges() {
        // MariaDB 10.11 with time_zone = '+05:30'.
        let tz = TimeZone::parse("+05:30").unwrap();
        assert_eq!(from_unixtime(ut(0), &tz), Some(dt("1970-01-01 05:30:00")));
        assert_eq!(unix_timestamp(&dt("1970-01-01 05:30:01"), &tz), ut(1));
        assert_eq!(unix_timestamp(&dt("1970-01-01 05:30:00"), &tz), ut(0));
        assert_eq!(
            unix_timestamp(&dt("2038-01-19 08:44:07"), &tz),
            ut(2_147_483_647)
        );
        assert_eq!(
            timestamp_from_datetime(&dt("2038-01-19 08:44:07.999999"), &tz),
            Ok(UnixTime {
                secs: 2_147_483_647,
                micros: 999_999
            })
        );
        assert_eq!(
            timestamp_from_datetime(&dt("2038-01-19 08:44:08"), &tz),
            Err(TemporalError::OutOfRange)
        );
        assert_eq!(
            timestamp_from_datetime(&dt("1970-01-01 05:30:00"), &tz),
            Err(TemporalError::OutOfRange)
        );
        assert_eq!(
            timestamp_from_datetime(&DateTime::ZERO, &tz),
            Ok(UnixTime::default())
        );
        assert_eq!(
            timestamp_to_datetime(UnixTime::default(), &tz),
            DateTime::ZERO
        );
        assert_eq!(
            timestamp_to_datetime(ut(1), &TimeZone::Utc),
            dt("1970-01-01 00:00:01")
        );
        assert_eq!(
            timestamp_from_datetime(&dt("2024-00-01 00:00:00"), &tz),
            Err(TemporalError::Invalid)
        );
        // MySQL 8.0.28+ 64-bit range for FROM_UNIXTIME / UNIX_TIMESTAMP.
        let utc = TimeZone::Utc;
        assert_eq!(
            from_unixtime(ut(FROM_UNIXTIME_MAX_SECS), &utc),
            Some(dt("3001-01-18 23:59:59"))
        );
        assert_eq!(from_unixtime(ut(FROM_UNIXTIME_MAX_SECS + 1), &utc), None);
        assert_eq!(from_unixtime(ut(-1), &utc), None);
        assert_eq!(
            from_unixtime(
                UnixTime {
                    secs: 1,
                    micros: 500_000
                },
                &utc
            ),
            Some(dt("1970-01-01 00:00:01.5"))
        );
        assert_eq!(unix_timestamp(&dt("3001-01-19 00:00:00"), &utc), ut(0));
        assert_eq!(unix_timestamp(&dt("1969-12-31 23:59:59"), &utc), ut(0));
        assert_eq!(
            unix_timestamp(&dt("2024-01-02 03:04:05.25"), &utc),
            UnixTime {
                secs: 1_704_164_645,
                micros: 250_000
            }
        );
        assert_eq!(from_unixtime(ut(i64::MAX), &utc), None);
        assert_eq!(TimeZone::Offset(50_400).utc_to_local(ut(i64::MAX)), None);
    }

    #[test]
    fn posix_rules_and_dst() {
        let ny = TimeZone::Zone(Arc::new(
            Zone::from_posix_tz("EST5EDT,M3.2.0,M11.1.0").unwrap(),
        ));
        // 2024: DST from 2024-03-10 07:00 UTC to 2024-11-03 06:00 UTC.
        assert_eq!(ny.offset_at(1_710_053_999), -5 * 3600);
        assert_eq!(ny.offset_at(1_710_054_000), -4 * 3600);
        assert_eq!(ny.offset_at(1_730_613_599), -4 * 3600);
        assert_eq!(ny.offset_at(1_730_613_600), -5 * 3600);
        // Gap: 02:00..03:00 local does not exist; both 02:30 and 03:00 map to the end.
        let u = |s: &str| ny.local_to_utc(&dt(s)).unwrap().secs;
        assert_eq!(u("2024-03-10 02:30:00"), 1_710_054_000);
        assert_eq!(u("2024-03-10 03:00:00"), 1_710_054_000);
        assert_eq!(u("2024-03-10 01:59:59"), 1_710_053_999);
        // Overlap: 01:30 happens twice; the earlier (EDT) instant wins.
        assert_eq!(u("2024-11-03 01:30:00"), 1_730_611_800);
        assert_eq!(u("2024-11-03 02:00:00"), 1_730_617_200);
        assert_eq!(
            ny.utc_to_local(ut(1_730_615_400)).unwrap(),
            dt("2024-11-03 01:30:00"),
            "the second 01:30 (EST)"
        );
        // Southern hemisphere, DST across the new year, explicit times and J-days.
        let syd = Zone::from_posix_tz("AEST-10AEDT,M10.1.0,M4.1.0/3").unwrap();
        assert_eq!(
            syd.offset_at(1_704_067_200),
            11 * 3600,
            "2024-01-01 is summer"
        );
        assert_eq!(
            syd.offset_at(1_719_792_000),
            10 * 3600,
            "2024-07-01 is winter"
        );
        let j = Zone::from_posix_tz("XST-1XDT,J60/0,300").unwrap();
        // J60 is March 1 even in leap years; day 300 (0-based) is Oct 27 in 2024.
        assert_eq!(j.offset_at(1_709_247_600 - 1), 3600);
        assert_eq!(j.offset_at(1_709_247_600), 7200);
        assert_eq!(Zone::from_posix_tz("UTC0").unwrap().offset_at(0), 0);
        assert_eq!(
            Zone::from_posix_tz("<+0330>-3:30").unwrap().offset_at(0),
            12_600
        );
        for bad in [
            "",
            "5",
            "EST5EDT,M13.1.0,M11.1.0",
            "EST5EDT,M3.2.0",
            "EST5x",
            "EST999",
        ] {
            assert_eq!(Zone::from_posix_tz(bad), None, "{bad:?}");
        }
    }

    /// A TZif v2 file: one transition at 1000 to +3600, footer "CET-1".
    fn tzif_sample(footer: &[u8]) -> Vec<u8> {
        let header = |timecnt: u32, typecnt: u32, charcnt: u32| {
            let mut h = b"TZif2".to_vec();
            h.extend_from_slice(&[0; 15]);
            for c in [0u32, 0, 0, timecnt, typecnt, charcnt] {
                h.extend_from_slice(&c.to_be_bytes());
            }
            h
        };
        let mut f = header(1, 2, 4);
        f.extend_from_slice(&1000i32.to_be_bytes());
        f.push(1);
        f.extend_from_slice(&0i32.to_be_bytes());
        f.extend_from_slice(&[0, 0]);
        f.extend_from_slice(&3600i32.to_be_bytes());
        f.extend_from_slice(&[0, 0]);
        f.extend_from_slice(b"LMT\0");
        f.extend_from_slice(&header(1, 2, 4));
        f.extend_from_slice(&1000i64.to_be_bytes());
        f.push(1);
        f.extend_from_slice(&0i32.to_be_bytes());
        f.extend_from_slice(&[0, 0]);
        f.extend_from_slice(&3600i32.to_be_bytes());
        f.extend_from_slice(&[0, 0]);
        f.extend_from_slice(b"LMT\0");
        f.extend_from_slice(footer);
        f
    }

    #[test]
    fn tzif_parsing() {
        let z = Zone::from_tzif("Test", &tzif_sample(b"\nCET-1CEST,M3.5.0,M10.5.0/3\n")).unwrap();
        assert_eq!(z.offset_at(999), 0);
        assert_eq!(z.offset_at(1000), 3600);
        // After the last transition the footer rule applies: 2024-07-01 is CEST.
        assert_eq!(z.offset_at(1_719_792_000), 7200);
        let z = Zone::from_tzif("Test", &tzif_sample(b"\n\n")).unwrap();
        assert_eq!(z.offset_at(1_719_792_000), 3600);
        let good = tzif_sample(b"\n\n");
        for cut in 0..good.len() - 2 {
            assert_eq!(Zone::from_tzif("T", &good[..cut]), None, "cut at {cut}");
        }
        let mut bad = good.clone();
        bad[0] = b'X';
        assert_eq!(Zone::from_tzif("T", &bad), None);
        assert_eq!(Zone::load("../etc/passwd"), None);
        assert_eq!(Zone::load("/etc/localtime"), None);
        // A real zone file when the system has one.
        if let Some(ny) = Zone::load("America/New_York") {
            assert_eq!(ny.offset_at(1_710_054_000), -4 * 3600);
            assert_eq!(ny.offset_at(1_700_000_000), -5 * 3600);
            assert_eq!(ny.offset_at(-2_000_000_000), -5 * 3600);
            assert_eq!(
                ny.offset_at(4_000_000_000),
                -4 * 3600,
                "2096-10-02 via the footer"
            );
        }
        if let Some(berlin) = Zone::load("Europe/Berlin") {
            // MySQL manual's MET example: '2005-03-27 02:00:00' and '03:00:00' → 1111885200.
            let tz = TimeZone::Zone(Arc::new(berlin));
            assert_eq!(
                unix_timestamp(&dt("2005-03-27 03:00:00"), &tz),
                ut(1_111_885_200)
            );
            assert_eq!(
                unix_timestamp(&dt("2005-03-27 02:00:00"), &tz),
                ut(1_111_885_200)
            );
            assert_eq!(
                from_unixtime(ut(1_111_885_200), &tz),
                Some(dt("2005-03-27 03:00:00"))
            );
            // MariaDB 10.11 with zoneinfo tables agrees on these and on 4800 random
            // UNIX_TIMESTAMP/FROM_UNIXTIME samples in 12 zones; an overlap hour maps to
            // its earlier (CEST) instant.
            let u = |s: &str| unix_timestamp(&dt(s), &tz);
            assert_eq!(u("2005-03-27 02:30:00"), ut(1_111_885_200));
            assert_eq!(u("2005-10-30 02:30:00"), ut(1_130_632_200));
        }
        // The system zone always resolves (UTC when nothing is configured).
        let _ = TimeZone::System.offset_at(0);
    }
}
