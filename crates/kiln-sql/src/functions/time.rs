//! Date and time functions: part extraction (YEAR … MICROSECOND, EXTRACT), calendar
//! functions (WEEK, YEARWEEK, DAYNAME, LAST_DAY, TO_DAYS …), DATE_FORMAT /
//! TIME_FORMAT / STR_TO_DATE, interval arithmetic (DATE_ADD and the `+ INTERVAL`
//! operators, which the parser turns into `date_add_interval(d, n, 'UNIT')`),
//! differences (DATEDIFF, TIMEDIFF, TIMESTAMPDIFF), Unix time conversions in the
//! session time zone, and the temporal CASTs. The calendar rules are kiln-types'
//! (`kiln_types::temporal`); this module maps SQL values in and out and reports
//! invalid input as NULL plus warning 1292, as MySQL does.
//!
//! Temporal values travel as their canonical text (`YYYY-MM-DD`, `YYYY-MM-DD
//! HH:MM:SS[.ffffff]`, `[-]HH:MM:SS[.ffffff]`); a string's shape decides whether it is
//! a DATE or a DATETIME.

use kiln_common::Result;
use kiln_types::temporal::{
    self, Date, DateTime, Flags, Interval, IntervalUnit, Parsed, StrToDateKind, Time, TimeZone,
    UnixTime,
};
use kiln_types::temporal::{DAY_NAMES, MONTH_NAMES};

use crate::ast::VarScope;
use crate::eval::{Env, Level};
use crate::value::Value;

/// What a temporal argument was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Date,
    DateTime,
}

/// A date/datetime argument with its kind and fractional precision.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Dt {
    pub dt: DateTime,
    pub kind: Kind,
    pub fsp: u8,
}

/// Digits after the '.' in a value's text (its fractional precision), up to 6.
fn frac_digits(s: &str) -> u8 {
    match s.trim_end().rsplit_once('.') {
        Some((_, f)) if !f.is_empty() => {
            f.bytes().take_while(u8::is_ascii_digit).count().min(6) as u8
        }
        _ => 0,
    }
}

fn text_of(v: &Value) -> String {
    v.to_string_lossy().unwrap_or_default()
}

pub(crate) fn warn_incorrect(env: &mut dyn Env, kind: &str, v: &Value) {
    env.warn(
        Level::Warning,
        1292,
        format!("Incorrect {kind} value: '{}'", text_of(v)),
    );
}

fn warn_truncated(env: &mut dyn Env, kind: &str, v: &Value) {
    env.warn(
        Level::Warning,
        1292,
        format!("Truncated incorrect {kind} value: '{}'", text_of(v)),
    );
}

/// The date flags of the session's sql_mode.
pub(crate) fn session_flags(env: &dyn Env) -> Flags {
    let mode = env
        .sysvar(VarScope::Session, "sql_mode")
        .ok()
        .and_then(|v| v.to_string_lossy())
        .unwrap_or_default()
        .to_ascii_uppercase();
    Flags {
        no_zero_date: mode.contains("NO_ZERO_DATE"),
        no_zero_in_date: mode.contains("NO_ZERO_IN_DATE"),
        allow_invalid_dates: mode.contains("ALLOW_INVALID_DATES"),
    }
}

/// Whether a datetime string carries a time of day.
fn string_has_time(s: &str) -> bool {
    let t = s.trim();
    t.contains(':') || (t.len() > 8 && t.bytes().all(|c| c.is_ascii_digit()))
}

/// `v` as a DATE or DATETIME; NULL input is None silently, invalid input None with
/// warning 1292.
pub(crate) fn dt_arg(v: &Value, env: &mut dyn Env) -> Option<Dt> {
    dt_arg_flags(v, env, Flags::LENIENT)
}

pub(crate) fn dt_arg_flags(v: &Value, env: &mut dyn Env, flags: Flags) -> Option<Dt> {
    let (parsed, kind, fsp) = match v {
        Value::Null => return None,
        Value::Str(_) | Value::Bytes(_) => {
            let s = text_of(v);
            let p = temporal::parse_datetime(&s, flags);
            let kind = if string_has_time(&s) {
                Kind::DateTime
            } else {
                Kind::Date
            };
            (p, kind, frac_digits(&s))
        }
        Value::Int(_) | Value::UInt(_) => {
            let n = v.to_i64().unwrap_or(0);
            let kind = if n.unsigned_abs() >= 100_000_000 {
                Kind::DateTime
            } else {
                Kind::Date
            };
            (temporal::datetime_from_int(n, flags), kind, 0)
        }
        Value::Double(_) | Value::Decimal(_) => {
            let f = v.to_f64().unwrap_or(0.0);
            let kind = if f.abs() >= 1e8 {
                Kind::DateTime
            } else {
                Kind::Date
            };
            let fsp = match v {
                Value::Decimal(s) => frac_digits(s),
                _ => 6,
            };
            (temporal::datetime_from_f64(f, flags), kind, fsp)
        }
    };
    match parsed {
        Ok(p) => {
            if p.truncated {
                warn_truncated(env, "datetime", v);
            }
            Some(Dt {
                dt: p.value,
                kind,
                fsp,
            })
        }
        Err(_) => {
            warn_incorrect(env, "datetime", v);
            None
        }
    }
}

/// Whether a string starts like a date (digits then a date separator), so that a
/// TIME context reads it as a datetime and takes its time of day.
fn looks_like_date(s: &str) -> bool {
    let t = s.trim_start().as_bytes();
    let n = t.iter().take_while(|c| c.is_ascii_digit()).count();
    n > 0 && n < t.len() && matches!(t[n], b'-' | b'/') && !t[..n].is_empty()
}

/// `v` as a TIME (a datetime gives its time of day), with its fractional precision.
pub(crate) fn time_arg(v: &Value, env: &mut dyn Env) -> Option<(Time, u8)> {
    let parsed: std::result::Result<Parsed<Time>, _> = match v {
        Value::Null => return None,
        Value::Str(_) | Value::Bytes(_) => {
            let s = text_of(v);
            if looks_like_date(&s) {
                return dt_arg(v, env).map(|d| (d.dt.time(), d.fsp));
            }
            temporal::parse_time(&s)
        }
        Value::Int(_) | Value::UInt(_) => temporal::time_from_int(v.to_i64().unwrap_or(0)),
        Value::Double(_) | Value::Decimal(_) => temporal::time_from_f64(v.to_f64().unwrap_or(0.0)),
    };
    match parsed {
        Ok(p) => {
            if p.truncated || p.out_of_range {
                warn_truncated(env, "time", v);
            }
            Some((p.value, frac_digits(&text_of(v))))
        }
        Err(_) => {
            warn_incorrect(env, "time", v);
            None
        }
    }
}

/// Renders a date/datetime result: a DATE stays a date, a DATETIME shows its fsp (six
/// digits when a fraction appeared where the input had none).
fn show(dt: &DateTime, kind: Kind, fsp: u8) -> Value {
    Value::Str(match kind {
        Kind::Date => dt.date.to_string(),
        // A string-typed result shows six fraction digits once it has any.
        Kind::DateTime => dt.format_datetime(if dt.micros != 0 || fsp > 0 { 6 } else { 0 }),
    })
}

fn show_time(t: &Time, fsp: u8) -> Value {
    let fsp = if t.micros != 0 || fsp > 0 { 6 } else { 0 };
    Value::Str(t.format_time(fsp))
}

/// The session time zone (`@@time_zone`).
pub(crate) fn session_tz(env: &dyn Env) -> TimeZone {
    let name = env
        .sysvar(VarScope::Session, "time_zone")
        .ok()
        .and_then(|v| v.to_string_lossy())
        .unwrap_or_else(|| "SYSTEM".into());
    TimeZone::parse(&name)
        .or_else(|| temporal::Zone::load(&name).map(|z| TimeZone::Zone(std::sync::Arc::new(z))))
        .unwrap_or(TimeZone::System)
}

/// An interval unit passed as the parser's string literal.
fn unit_of(v: &Value) -> IntervalUnit {
    IntervalUnit::from_name(&text_of(v)).unwrap_or(IntervalUnit::Day)
}

/// The INTERVAL value `n unit`.
fn interval_of(n: &Value, unit: IntervalUnit, env: &mut dyn Env) -> Option<Interval> {
    Some(match n {
        Value::Null => return None,
        Value::Int(i) => Interval::from_int(*i, unit),
        Value::UInt(u) => Interval::from_int(i64::try_from(*u).unwrap_or(i64::MAX), unit),
        Value::Str(_) | Value::Bytes(_) => {
            let s = text_of(n);
            match Interval::parse(&s, unit) {
                Ok(p) => {
                    if p.truncated {
                        warn_truncated(env, "INTEGER", n);
                    }
                    p.value
                }
                Err(_) => return None,
            }
        }
        Value::Double(_) | Value::Decimal(_) => {
            let f = n.to_f64().unwrap_or(0.0);
            if unit == IntervalUnit::Second {
                let us = (f.abs() * 1e6).round();
                Interval::from_seconds(f < 0.0, (us / 1e6).trunc() as u64, (us % 1e6) as u32)
            } else if unit.is_simple() {
                Interval::from_int(n.to_i64().unwrap_or(0), unit)
            } else {
                Interval::parse(&text_of(n), unit).ok()?.value
            }
        }
    })
}

fn date_only_unit(u: IntervalUnit) -> bool {
    use IntervalUnit::*;
    matches!(u, Year | Quarter | Month | Week | Day | YearMonth)
}

/// DATE_ADD / DATE_SUB / `± INTERVAL`.
fn add_interval(v: &[Value], subtract: bool, env: &mut dyn Env) -> Value {
    let unit = unit_of(&v[2]);
    let Some(d) = dt_arg(&v[0], env) else {
        return Value::Null;
    };
    let Some(mut iv) = interval_of(&v[1], unit, env) else {
        return Value::Null;
    };
    if subtract {
        iv = iv.negated();
    }
    match temporal::add_interval(d.dt, iv) {
        Some(r) => {
            let kind = if d.kind == Kind::Date && date_only_unit(unit) {
                Kind::Date
            } else {
                Kind::DateTime
            };
            show(&r, kind, d.fsp)
        }
        None => {
            env.warn(
                Level::Warning,
                1441,
                "Datetime function: datetime field overflow".into(),
            );
            Value::Null
        }
    }
}

/// EXTRACT(unit FROM x): the unit's fields written side by side (YEAR_MONTH 202002,
/// DAY_MINUTE 291345), negative for negative times.
fn extract(unit: IntervalUnit, x: &Value, env: &mut dyn Env) -> Value {
    use IntervalUnit::*;
    let date_based = matches!(
        unit,
        Year | Quarter
            | Month
            | Week
            | Day
            | YearMonth
            | DayHour
            | DayMinute
            | DaySecond
            | DayMicrosecond
    );
    let (dt, neg, hours) = if date_based {
        match dt_arg(x, env) {
            Some(d) => (d.dt, false, u32::from(d.dt.hour)),
            None => return Value::Null,
        }
    } else {
        match time_arg(x, env) {
            Some((t, _)) => {
                let dt = DateTime {
                    date: Date::ZERO,
                    hour: 0,
                    minute: t.minute,
                    second: t.second,
                    micros: t.micros,
                };
                (dt, t.negative, u32::from(t.hours))
            }
            None => return Value::Null,
        }
    };
    let d = dt.date;
    let parts: Vec<(i64, u32)> = {
        let (y, mo, dd) = (i64::from(d.year), i64::from(d.month), i64::from(d.day));
        let (h, mi, s, us) = (
            i64::from(hours),
            i64::from(dt.minute),
            i64::from(dt.second),
            i64::from(dt.micros),
        );
        match unit {
            Year => vec![(y, 0)],
            Quarter => vec![((mo + 2).div_euclid(3), 0)],
            Month => vec![(mo, 0)],
            Week => vec![(i64::from(temporal::week(d, 0).unwrap_or(0)), 0)],
            Day => vec![(dd, 0)],
            Hour => vec![(h, 0)],
            Minute => vec![(mi, 0)],
            Second => vec![(s, 0)],
            Microsecond => vec![(us, 0)],
            YearMonth => vec![(y, 0), (mo, 2)],
            DayHour => vec![(dd, 0), (h, 2)],
            DayMinute => vec![(dd, 0), (h, 2), (mi, 2)],
            DaySecond => vec![(dd, 0), (h, 2), (mi, 2), (s, 2)],
            DayMicrosecond => vec![(dd, 0), (h, 2), (mi, 2), (s, 2), (us, 6)],
            HourMinute => vec![(h, 0), (mi, 2)],
            HourSecond => vec![(h, 0), (mi, 2), (s, 2)],
            HourMicrosecond => vec![(h, 0), (mi, 2), (s, 2), (us, 6)],
            MinuteSecond => vec![(mi, 0), (s, 2)],
            MinuteMicrosecond => vec![(mi, 0), (s, 2), (us, 6)],
            SecondMicrosecond => vec![(s, 0), (us, 6)],
        }
    };
    let mut r: i64 = 0;
    for (v, digits) in parts {
        r = r * 10i64.pow(digits) + v;
    }
    Value::Int(if neg { -r } else { r })
}

/// UNIX_TIMESTAMP(x): an integer, or a decimal with the argument's fraction digits.
fn unix_timestamp(x: &Value, env: &mut dyn Env) -> Value {
    let Some(d) = dt_arg(x, env) else {
        return Value::Null;
    };
    let tz = session_tz(env);
    let u = temporal::unix_timestamp(&d.dt, &tz);
    if d.fsp == 0 {
        Value::Int(u.secs)
    } else {
        let frac = format!("{:06}", u.micros);
        Value::Decimal(format!("{}.{}", u.secs, &frac[..d.fsp as usize]))
    }
}

/// FROM_UNIXTIME(n[, format]).
fn from_unixtime(v: &[Value], env: &mut dyn Env) -> Value {
    let n = &v[0];
    let (t, fsp) = match n {
        Value::Int(_) | Value::UInt(_) => (
            UnixTime {
                secs: n.to_i64().unwrap_or(-1),
                micros: 0,
            },
            0,
        ),
        _ => {
            let fsp = match n {
                Value::Decimal(s) => frac_digits(s),
                _ => 6,
            };
            let f = n.to_f64().unwrap_or(-1.0);
            if f < 0.0 {
                return Value::Null;
            }
            let us = (f * 1e6).round() as i64;
            (
                UnixTime {
                    secs: us.div_euclid(1_000_000),
                    micros: us.rem_euclid(1_000_000) as u32,
                },
                fsp,
            )
        }
    };
    let tz = session_tz(env);
    let Some(dt) = temporal::from_unixtime(t, &tz) else {
        return Value::Null;
    };
    if v.len() == 2 {
        return temporal::date_format(&dt, &text_of(&v[1])).map_or(Value::Null, Value::Str);
    }
    Value::Str(dt.format_datetime(fsp))
}

/// STR_TO_DATE(s, format): DATE, TIME or DATETIME as the format decides; NULL and
/// warning 1411 when the string does not match.
fn str_to_date(v: &[Value], env: &mut dyn Env) -> Value {
    let s = text_of(&v[0]);
    let f = text_of(&v[1]);
    let flags = session_flags(env);
    match temporal::str_to_date(&s, &f, flags) {
        Ok(p) => {
            if p.truncated {
                warn_truncated(env, "datetime", &v[0]);
            }
            let (kind, fsp) = temporal::str_to_date_kind(&f);
            let dt = p.value;
            Value::Str(match kind {
                StrToDateKind::Date => dt.date.to_string(),
                StrToDateKind::Time => dt.time().format_time(fsp),
                StrToDateKind::DateTime => dt.format_datetime(fsp),
            })
        }
        Err(_) => {
            env.warn(
                Level::Warning,
                1411,
                format!("Incorrect datetime value: '{s}' for function str_to_date"),
            );
            Value::Null
        }
    }
}

/// ADDTIME / SUBTIME: a datetime or time plus a time.
fn add_time(v: &[Value], subtract: bool, env: &mut dyn Env) -> Value {
    let Some((b, bfsp)) = time_arg(&v[1], env) else {
        return Value::Null;
    };
    let delta = if subtract {
        -b.total_micros()
    } else {
        b.total_micros()
    };
    let a_text = text_of(&v[0]);
    if looks_like_date(&a_text) {
        let Some(d) = dt_arg(&v[0], env) else {
            return Value::Null;
        };
        return match d.dt.add_micros(delta) {
            Some(r) => show(&r, Kind::DateTime, d.fsp.max(bfsp)),
            None => Value::Null,
        };
    }
    let Some((a, afsp)) = time_arg(&v[0], env) else {
        return Value::Null;
    };
    let (t, _) = Time::from_micros(a.total_micros() + delta);
    show_time(&t, afsp.max(bfsp))
}

/// TIMEDIFF(a, b): both datetimes or both times; mixing is NULL.
fn timediff(v: &[Value], env: &mut dyn Env) -> Value {
    let (ta, tb) = (text_of(&v[0]), text_of(&v[1]));
    let fsp = frac_digits(&ta).max(frac_digits(&tb));
    match (looks_like_date(&ta), looks_like_date(&tb)) {
        (true, true) => {
            let (Some(a), Some(b)) = (dt_arg(&v[0], env), dt_arg(&v[1], env)) else {
                return Value::Null;
            };
            match temporal::timediff(a.dt, b.dt) {
                Some((t, _)) => show_time(&t, fsp),
                None => Value::Null,
            }
        }
        (false, false) => {
            let (Some((a, _)), Some((b, _))) = (time_arg(&v[0], env), time_arg(&v[1], env)) else {
                return Value::Null;
            };
            show_time(&temporal::timediff_times(a, b).0, fsp)
        }
        _ => Value::Null,
    }
}

/// A DATE / DATETIME / TIME column value in numeric context: its digits as a number
/// (2020-02-29 → 20200229, -01:30:00 → -13000), with the fraction when it has one.
fn temporal_number(text: &str) -> Value {
    let (neg, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (whole, frac) = match body.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (body, None),
    };
    let digits: String = whole.chars().filter(char::is_ascii_digit).collect();
    let digits = digits.trim_start_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let sign = if neg { "-" } else { "" };
    match frac {
        Some(f) => Value::Decimal(format!("{sign}{digits}.{f}")),
        None => match format!("{sign}{digits}").parse::<i64>() {
            Ok(n) => Value::Int(n),
            Err(_) => Value::Null,
        },
    }
}

/// CONVERT_TZ(dt, from, to): NULL for an unknown zone.
fn convert_tz(v: &[Value], env: &mut dyn Env) -> Value {
    let zone = |v: &Value| {
        let name = text_of(v);
        TimeZone::parse(&name)
            .or_else(|| temporal::Zone::load(&name).map(|z| TimeZone::Zone(std::sync::Arc::new(z))))
    };
    let (Some(from), Some(to)) = (zone(&v[1]), zone(&v[2])) else {
        return Value::Null;
    };
    let Some(d) = dt_arg(&v[0], env) else {
        return Value::Null;
    };
    match from.local_to_utc(&d.dt).and_then(|u| to.utc_to_local(u)) {
        Some(r) => show(&r, Kind::DateTime, d.fsp),
        None => Value::Null,
    }
}

/// Calls of the date and time functions; None when `name` is not one of them.
pub fn call(name: &str, v: &[Value], env: &mut dyn Env) -> Result<Option<Value>> {
    let argc = v.len();
    let arity: (usize, usize) = match name {
        "year" | "month" | "day" | "dayofmonth" | "hour" | "minute" | "second" | "microsecond"
        | "dayofweek" | "dayofyear" | "weekday" | "weekofyear" | "quarter" | "dayname"
        | "monthname" | "last_day" | "to_days" | "from_days" | "date" | "time" | "time_to_sec"
        | "sec_to_time" | "to_seconds" => (1, 1),
        "week" | "yearweek" | "timestamp" => (1, 2),
        "datediff" | "date_format" | "time_format" | "str_to_date" | "makedate" | "timediff"
        | "addtime" | "subtime" | "extract" => (2, 2),
        "from_unixtime" => (1, 2),
        "convert_tz" => (3, 3),
        "period_add" | "period_diff" => (2, 2),
        "maketime" | "date_add_interval" | "date_sub_interval" | "timestampdiff" => (3, 3),
        "temporal_number" => (1, 1),
        "unix_timestamp" if argc == 1 => (1, 1),
        _ => return Ok(None),
    };
    super::check_arity(name, argc, arity.0, arity.1)?;
    if v.iter().any(Value::is_null) {
        return Ok(Some(Value::Null));
    }
    let int = |x: Option<u32>| x.map_or(Value::Null, |n| Value::Int(i64::from(n)));
    let date = |env: &mut dyn Env, i: usize| dt_arg(&v[i], env).map(|d| d.dt.date);
    Ok(Some(match name {
        "year" => int(date(env, 0).map(|d| u32::from(d.year))),
        "month" => int(date(env, 0).map(|d| u32::from(d.month))),
        "day" | "dayofmonth" => int(date(env, 0).map(|d| u32::from(d.day))),
        "quarter" => int(date(env, 0).map(|d| u32::from(d.month).div_ceil(3))),
        "hour" => int(time_arg(&v[0], env).map(|(t, _)| u32::from(t.hours))),
        "minute" => int(time_arg(&v[0], env).map(|(t, _)| u32::from(t.minute))),
        "second" => int(time_arg(&v[0], env).map(|(t, _)| u32::from(t.second))),
        "microsecond" => int(time_arg(&v[0], env).map(|(t, _)| t.micros)),
        "dayofweek" => int(date(env, 0).and_then(temporal::day_of_week)),
        "weekday" => int(date(env, 0).and_then(temporal::weekday)),
        "dayofyear" => int(date(env, 0).and_then(temporal::day_of_year)),
        "dayname" => match date(env, 0).and_then(temporal::weekday) {
            Some(w) => Value::Str(DAY_NAMES[w as usize % 7].into()),
            None => Value::Null,
        },
        "monthname" => match date(env, 0) {
            Some(d) if (1..=12).contains(&d.month) => {
                Value::Str(MONTH_NAMES[d.month as usize - 1].into())
            }
            _ => Value::Null,
        },
        "week" | "yearweek" => {
            let mode = if argc == 2 {
                v[1].to_i64().unwrap_or(0).clamp(0, 7) as u32
            } else if name == "week" {
                env.sysvar(VarScope::Session, "default_week_format")
                    .ok()
                    .and_then(|x| x.to_i64())
                    .unwrap_or(0)
                    .clamp(0, 7) as u32
            } else {
                0
            };
            let d = date(env, 0);
            if name == "week" {
                int(d.and_then(|d| temporal::week(d, mode)))
            } else {
                int(d.and_then(|d| temporal::year_week(d, mode)))
            }
        }
        "weekofyear" => int(date(env, 0).and_then(|d| temporal::week(d, 3))),
        "last_day" => match date(env, 0).and_then(temporal::last_day) {
            Some(d) => Value::Str(d.to_string()),
            None => Value::Null,
        },
        "to_days" => match date(env, 0).and_then(temporal::to_days) {
            Some(n) => Value::Int(n),
            None => Value::Null,
        },
        "to_seconds" => match dt_arg(&v[0], env) {
            Some(d) => match temporal::to_days(d.dt.date) {
                Some(n) => Value::Int(
                    n * 86_400
                        + i64::from(d.dt.hour) * 3600
                        + i64::from(d.dt.minute) * 60
                        + i64::from(d.dt.second),
                ),
                None => Value::Null,
            },
            None => Value::Null,
        },
        "from_days" => {
            let n = v[0].to_i64().unwrap_or(0);
            let d = temporal::from_days(n);
            Value::Str(d.to_string())
        }
        "date" => match date(env, 0) {
            Some(d) => Value::Str(d.to_string()),
            None => Value::Null,
        },
        "time" => match time_arg(&v[0], env) {
            Some((t, fsp)) => Value::Str(t.format_time(fsp)),
            None => Value::Null,
        },
        "timestamp" => {
            let Some(d) = dt_arg(&v[0], env) else {
                return Ok(Some(Value::Null));
            };
            if argc == 2 {
                let mut w = v.to_vec();
                w[0] = Value::Str(d.dt.format_datetime(d.fsp));
                add_time(&w, false, env)
            } else {
                Value::Str(d.dt.format_datetime(d.fsp))
            }
        }
        "datediff" => match (date(env, 0), date(env, 1)) {
            (Some(a), Some(b)) => temporal::datediff(a, b).map_or(Value::Null, Value::Int),
            _ => Value::Null,
        },
        "date_format" => match dt_arg(&v[0], env) {
            Some(d) => {
                temporal::date_format(&d.dt, &text_of(&v[1])).map_or(Value::Null, Value::Str)
            }
            None => Value::Null,
        },
        "time_format" => match time_arg(&v[0], env) {
            Some((t, _)) => {
                temporal::time_format(&t, &text_of(&v[1])).map_or(Value::Null, Value::Str)
            }
            None => Value::Null,
        },
        "str_to_date" => str_to_date(v, env),
        "makedate" => {
            let (y, n) = (v[0].to_i64().unwrap_or(-1), v[1].to_i64().unwrap_or(0));
            temporal::make_date(y, n).map_or(Value::Null, |d| Value::Str(d.to_string()))
        }
        "maketime" => {
            let sec = v[2].to_f64().unwrap_or(0.0);
            let us = ((sec.fract()) * 1e6).round().abs() as u32;
            let fsp = match &v[2] {
                Value::Decimal(s) => frac_digits(s),
                Value::Double(_) => 6,
                _ => 0,
            };
            match temporal::make_time(
                v[0].to_i64().unwrap_or(0),
                v[1].to_i64().unwrap_or(0),
                sec.trunc() as i64,
                us,
            ) {
                Some((t, clamped)) => {
                    if clamped {
                        warn_truncated(env, "time", &v[0]);
                    }
                    Value::Str(t.format_time(fsp))
                }
                None => Value::Null,
            }
        }
        "time_to_sec" => match time_arg(&v[0], env) {
            Some((t, _)) => Value::Int(temporal::time_to_sec(t)),
            None => Value::Null,
        },
        "sec_to_time" => {
            let f = v[0].to_f64().unwrap_or(0.0);
            let us = (f.abs() * 1e6).round();
            let fsp = match &v[0] {
                Value::Decimal(s) => frac_digits(s),
                Value::Int(_) | Value::UInt(_) => 0,
                _ => 6,
            };
            let (t, clamped) =
                temporal::sec_to_time(f < 0.0, (us / 1e6).trunc() as u64, (us % 1e6) as u32);
            if clamped {
                warn_truncated(env, "time", &v[0]);
            }
            Value::Str(t.format_time(fsp))
        }
        "timediff" => timediff(v, env),
        "addtime" => add_time(v, false, env),
        "subtime" => add_time(v, true, env),
        "extract" => extract(unit_of(&v[0]), &v[1], env),
        "date_add_interval" => add_interval(v, false, env),
        "date_sub_interval" => add_interval(v, true, env),
        "timestampdiff" => {
            let unit = unit_of(&v[0]);
            match (dt_arg(&v[1], env), dt_arg(&v[2], env)) {
                (Some(a), Some(b)) => {
                    temporal::timestampdiff(unit, a.dt, b.dt).map_or(Value::Null, Value::Int)
                }
                _ => Value::Null,
            }
        }
        "unix_timestamp" => unix_timestamp(&v[0], env),
        "convert_tz" => convert_tz(v, env),
        "period_add" | "period_diff" => {
            let to_months = |p: i64| {
                let (y, m) = (p / 100, p % 100);
                let y = if p < 10000 && y < 70 {
                    y + 2000
                } else if p < 10000 {
                    y + 1900
                } else {
                    y
                };
                y * 12 + m - 1
            };
            let (a, b) = (v[0].to_i64().unwrap_or(0), v[1].to_i64().unwrap_or(0));
            if name == "period_diff" {
                Value::Int(to_months(a) - to_months(b))
            } else if a == 0 {
                Value::Int(0)
            } else {
                let m = to_months(a) + b;
                Value::Int(m.div_euclid(12) * 100 + m.rem_euclid(12) + 1)
            }
        }
        "temporal_number" => temporal_number(&text_of(&v[0])),
        "from_unixtime" => from_unixtime(v, env),
        _ => return Ok(None),
    }))
}

/// Whether `s` is a canonical DATE or DATETIME text (`YYYY-MM-DD[ HH:MM:SS[.f…]]`).
pub fn canonical_temporal(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if b.len() < 10
        || !digits(0..4)
        || b[4] != b'-'
        || !digits(5..7)
        || b[7] != b'-'
        || !digits(8..10)
    {
        return false;
    }
    b.len() == 10
        || (b.len() >= 19
            && b[10] == b' '
            && digits(11..13)
            && b[13] == b':'
            && digits(14..16)
            && b[16] == b':'
            && digits(17..19)
            && (b.len() == 19 || (b[19] == b'.' && digits(20..b.len()))))
}

/// A DATE compared with a DATETIME (both canonical texts of different shapes)
/// compares as datetimes, as MySQL compares a temporal column with a date string
/// ('2021-01-03 00:00:00' = '2021-01-03'). None when the rule does not apply.
pub fn canonical_cmp(x: &str, y: &str) -> Option<std::cmp::Ordering> {
    if x.len() == y.len() || !canonical_temporal(x) || !canonical_temporal(y) {
        return None;
    }
    let a = temporal::parse_datetime(x, Flags::LENIENT).ok()?.value;
    let b = temporal::parse_datetime(y, Flags::LENIENT).ok()?.value;
    Some(a.cmp(&b))
}

/// CAST(x AS DATE / DATETIME(fsp) / TIME(fsp)).
pub fn cast_date(v: &Value, env: &mut dyn Env) -> Value {
    match dt_arg(v, env) {
        Some(d) => Value::Str(d.dt.date.to_string()),
        None => Value::Null,
    }
}

pub fn cast_datetime(v: &Value, fsp: u8, env: &mut dyn Env) -> Value {
    let Some(d) = dt_arg(v, env) else {
        return Value::Null;
    };
    match d.dt.round_to_fsp(fsp) {
        Some(r) => Value::Str(r.format_datetime(fsp)),
        None => Value::Null,
    }
}

pub fn cast_time(v: &Value, fsp: u8, env: &mut dyn Env) -> Value {
    match time_arg(v, env) {
        Some((t, _)) => Value::Str(t.round_to_fsp(fsp).0.format_time(fsp)),
        None => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testenv::{q, q_warn};

    #[test]
    fn parts_and_names() {
        assert_eq!(
            q(
                "SELECT YEAR('2020-02-29 13:45:10'), MONTH('2020-02-29'), DAY('2020-02-29'), \
               HOUR('2020-02-29 13:45:10'), MINUTE('10:11:12'), SECOND('10:11:12'), \
               MICROSECOND('10:00:00.000123'), QUARTER('2020-08-01'), DAYOFYEAR('2020-03-01')"
            ),
            ["2020", "2", "29", "13", "11", "12", "123", "3", "61"]
        );
        assert_eq!(
            q(
                "SELECT DAYNAME('2021-01-03'), MONTHNAME('2021-01-03'), DAYOFWEEK('2021-01-03'), \
               WEEKDAY('2021-01-03'), WEEK('2021-01-03', 1), YEARWEEK('2021-01-03')"
            ),
            ["Sunday", "January", "1", "6", "0", "202101"]
        );
    }

    #[test]
    fn intervals() {
        assert_eq!(
            q(
                "SELECT DATE_ADD('2020-01-31', INTERVAL 1 MONTH), '2020-03-01' - INTERVAL 1 DAY, \
               INTERVAL 1 DAY + DATE '2020-12-31', DATE_ADD('2020-01-01', INTERVAL 90 MINUTE), \
               ADDDATE('2020-01-01', 31), DATE_ADD('2020-01-01 00:00:00', INTERVAL '1.5' SECOND), \
               TIMESTAMPADD(MONTH, 1, '2020-01-31')"
            ),
            [
                "2020-02-29",
                "2020-02-29",
                "2021-01-01",
                "2020-01-01 01:30:00",
                "2020-02-01",
                "2020-01-01 00:00:01.500000",
                "2020-02-29"
            ]
        );
        assert_eq!(
            q("SELECT TIMESTAMPDIFF(MONTH, '2020-01-31', '2020-02-29'), \
               DATEDIFF('2020-03-01', '2020-02-01'), EXTRACT(YEAR_MONTH FROM '2020-02-29'), \
               EXTRACT(DAY_MINUTE FROM '2020-02-29 13:45:10')"),
            ["0", "29", "202002", "291345"]
        );
        let (v, w) = q_warn("SELECT DATE_ADD('2020-13-01', INTERVAL 1 DAY)");
        assert_eq!((v, w), (vec!["NULL".to_string()], vec![1292]));
    }

    #[test]
    fn temporal_columns_as_numbers() {
        use super::temporal_number;
        use crate::value::Value;
        assert_eq!(temporal_number("2020-02-29"), Value::Int(20200229));
        assert_eq!(
            temporal_number("2020-02-29 13:45:10"),
            Value::Int(20200229134510)
        );
        assert_eq!(temporal_number("-01:30:00"), Value::Int(-13000));
        assert_eq!(temporal_number("00:00:00"), Value::Int(0));
        assert_eq!(
            temporal_number("2020-02-29 13:45:10.123456"),
            Value::Decimal("20200229134510.123456".into())
        );
    }

    #[test]
    fn date_against_datetime() {
        use std::cmp::Ordering::*;
        assert_eq!(
            super::canonical_cmp("2021-01-03 00:00:00", "2021-01-03"),
            Some(Equal)
        );
        assert_eq!(
            super::canonical_cmp("2021-01-03 10:00:00", "2021-01-03"),
            Some(Greater)
        );
        assert_eq!(super::canonical_cmp("2021-01-03", "2021-01-03"), None);
        assert_eq!(super::canonical_cmp("abc", "2021-01-03"), None);
    }

    #[test]
    fn conversions() {
        assert_eq!(
            q(
                "SELECT UNIX_TIMESTAMP('2020-01-01 00:00:00'), FROM_UNIXTIME(1577836800), \
               TO_DAYS('2020-01-01'), FROM_DAYS(737790), MAKEDATE(2020, 60), \
               MAKETIME(12, 15, 30), SEC_TO_TIME(3725), TIME_TO_SEC('01:00:05'), \
               TIMEDIFF('2020-01-02 00:00:00', '2020-01-01 00:00:01'), ADDTIME('10:00:00', '01:30:00')"
            ),
            [
                "1577836800",
                "2020-01-01 00:00:00",
                "737790",
                "2020-01-01",
                "2020-02-29",
                "12:15:30",
                "01:02:05",
                "3605",
                "23:59:59",
                "11:30:00"
            ]
        );
        assert_eq!(
            q(
                "SELECT STR_TO_DATE('01,5,2013', '%d,%m,%Y'), DATE_FORMAT('2021-01-03', '%W %D'), \
               CAST('2020-1-5' AS DATE), CAST('10:11:12.345' AS TIME(2)), \
               CAST('2020-01-05 10:11:12.5' AS DATETIME), DATE '2020-02-29', TIME '10:11:12'"
            ),
            [
                "2013-05-01",
                "Sunday 3rd",
                "2020-01-05",
                "10:11:12.35",
                "2020-01-05 10:11:13",
                "2020-02-29",
                "10:11:12"
            ]
        );
        let e =
            crate::parse::parse_one("SELECT DATE '2020-02-30'", crate::lexer::LexMode::default())
                .unwrap_err();
        assert_eq!(e.code, 1525);
    }
}
