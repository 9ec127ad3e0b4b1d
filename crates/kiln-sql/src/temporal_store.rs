//! Storing values into DATE, DATETIME, TIMESTAMP, TIME and YEAR columns: parsing with
//! kiln-types' temporal rules, rounding to the column's fractional precision, and the
//! canonical text the row keeps. An invalid value is error 1292 in strict mode, else a
//! warning and the zero value, as MySQL 8.0; a DATE given a time of day keeps the date
//! with Note 1265 in any mode.
//!
//! TIMESTAMP text stays in the session time zone here (the row codec converts it to
//! UTC, timestamp_zone.rs); its range is checked in UTC.

use kiln_common::{ErrorKind, Result};
use kiln_types::temporal::{
    self, DateTime, Flags, Parsed, Time, datetime_from_f64, datetime_from_int, parse_datetime,
    parse_time, time_from_f64, time_from_int,
};

use crate::types::{SqlType, StoreMode, StoreWarning, truncation_note};
use crate::value::Value;

/// Reports a value that does not fit: an error in strict mode, else a warning.
pub type Problem<'a> = dyn FnMut(ErrorKind, &[&dyn std::fmt::Display]) -> Result<()> + 'a;

fn datetime_of(v: &Value, flags: Flags) -> Option<Parsed<DateTime>> {
    match v {
        Value::Int(i) => datetime_from_int(*i, flags).ok(),
        Value::UInt(u) => datetime_from_int(i64::try_from(*u).ok()?, flags).ok(),
        Value::Double(d) => datetime_from_f64(*d, flags).ok(),
        Value::Decimal(s) => datetime_from_f64(s.parse().ok()?, flags).ok(),
        Value::Str(s) => parse_datetime(s, flags).ok(),
        Value::Bytes(b) => parse_datetime(std::str::from_utf8(b).ok()?, flags).ok(),
        Value::Null => None,
    }
}

fn time_of(v: &Value) -> Option<Parsed<Time>> {
    match v {
        Value::Int(i) => time_from_int(*i).ok(),
        Value::UInt(u) => time_from_int(i64::try_from(*u).ok()?).ok(),
        Value::Double(d) => time_from_f64(*d).ok(),
        Value::Decimal(s) => time_from_f64(s.parse().ok()?).ok(),
        Value::Str(s) => parse_time(s).ok(),
        Value::Bytes(b) => parse_time(std::str::from_utf8(b).ok()?).ok(),
        Value::Null => None,
    }
}

/// 1970-01-01 00:00:01 .. 2038-01-19 03:14:07 UTC (TIMESTAMP's range; `dt` is in the
/// statement's zone).
fn timestamp_in_range(dt: &DateTime) -> bool {
    let local = dt.format_datetime(0);
    let text = crate::timestamp_zone::to_utc(&local);
    &*text >= "1970-01-01 00:00:01" && &*text <= "2038-01-19 03:14:07"
        || text == "0000-00-00 00:00:00"
}

pub fn store(
    ty: &SqlType,
    column: &str,
    v: &Value,
    mode: StoreMode,
    problem: &mut Problem<'_>,
    notes: &mut Vec<StoreWarning>,
) -> Result<Value> {
    let flags = if mode.strict {
        Flags::MYSQL8_DEFAULT
    } else {
        Flags::LENIENT
    };
    let shown = || v.to_string_lossy().unwrap_or_default();
    match ty {
        SqlType::Year => {
            let y = match v {
                Value::Str(s) => temporal::Year::parse(s).ok().map(|p| p.value.0 as i64),
                other => other.to_i64(),
            };
            let y = match y.unwrap_or(-1) {
                0 if matches!(v, Value::Str(s) if s.trim() == "0" || s.trim() == "00") => 2000,
                0 => 0,
                y @ 1..=69 if !matches!(v, Value::Str(s) if s.trim().len() == 4) => 2000 + y,
                y @ 70..=99 => 1900 + y,
                y @ 1901..=2155 => y,
                y if y > 0 && y < 70 => 2000 + y,
                _ => {
                    problem(ErrorKind::ER_WARN_DATA_OUT_OF_RANGE, &[&column, &mode.row])?;
                    0
                }
            };
            Ok(Value::UInt(y as u64))
        }
        SqlType::Date | SqlType::DateTime(_) | SqlType::Timestamp(_) => {
            let fsp = match ty {
                SqlType::DateTime(f) | SqlType::Timestamp(f) => *f as u8,
                _ => 0,
            };
            let kind = match ty {
                SqlType::Date => "date",
                SqlType::Timestamp(_) => "timestamp",
                _ => "datetime",
            };
            let parsed = datetime_of(v, flags);
            let value = parsed.as_ref().and_then(|p| p.round_to_fsp(fsp));
            let ok =
                value.filter(|dt| !matches!(ty, SqlType::Timestamp(_)) || timestamp_in_range(dt));
            match ok {
                Some(dt) => {
                    if parsed.is_some_and(|p| p.truncated) {
                        problem(ErrorKind::ER_WARN_DATA_TRUNCATED, &[&column, &mode.row])?;
                    } else if *ty == SqlType::Date
                        && (dt.hour, dt.minute, dt.second, dt.micros) != (0, 0, 0, 0)
                    {
                        // A DATE given a time of day keeps the date: a note.
                        notes.push(truncation_note(column, mode.row));
                    }
                    Ok(Value::Str(match ty {
                        SqlType::Date => dt.date.to_string(),
                        _ => dt.format_datetime(fsp),
                    }))
                }
                None => {
                    problem(
                        ErrorKind::ER_TRUNCATED_WRONG_VALUE_DATE,
                        &[&kind, &shown(), &column, &mode.row],
                    )?;
                    Ok(Value::Str(match ty {
                        SqlType::Date => "0000-00-00".into(),
                        _ => DateTime::default().format_datetime(fsp),
                    }))
                }
            }
        }
        SqlType::Time(f) => match time_of(v) {
            Some(p) => {
                let (t, clamped) = p.round_to_fsp(*f as u8);
                if clamped {
                    problem(ErrorKind::ER_WARN_DATA_OUT_OF_RANGE, &[&column, &mode.row])?;
                } else if p.truncated {
                    problem(ErrorKind::ER_WARN_DATA_TRUNCATED, &[&column, &mode.row])?;
                }
                Ok(Value::Str(t.format_time(*f as u8)))
            }
            None => {
                problem(
                    ErrorKind::ER_TRUNCATED_WRONG_VALUE_DATE,
                    &[&"time", &shown(), &column, &mode.row],
                )?;
                Ok(Value::Str(Time::default().format_time(*f as u8)))
            }
        },
        _ => Ok(v.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(ty: SqlType, v: Value, strict: bool) -> Result<Value> {
        let mut w = Vec::new();
        crate::types::store(&ty, "c", &v, StoreMode { strict, row: 1 }, &mut w)
    }

    #[test]
    fn dates_times_and_rounding() {
        let s = |x: &str| Value::Str(x.into());
        assert_eq!(
            put(SqlType::Date, s("2024-1-2"), true).unwrap(),
            s("2024-01-02")
        );
        assert_eq!(
            put(SqlType::Date, Value::Int(20240102), true).unwrap(),
            s("2024-01-02")
        );
        assert_eq!(
            put(SqlType::Date, s("2023-02-30"), true).unwrap_err().code,
            1292
        );
        assert_eq!(
            put(SqlType::Date, s("2023-02-30"), false).unwrap(),
            s("0000-00-00")
        );
        assert_eq!(
            put(SqlType::DateTime(2), s("2024-01-02 03:04:05.678"), true).unwrap(),
            s("2024-01-02 03:04:05.68")
        );
        assert_eq!(
            put(SqlType::DateTime(0), s("2024-12-31 23:59:59.5"), true).unwrap(),
            s("2025-01-01 00:00:00")
        );
        assert_eq!(
            put(SqlType::Time(0), s("-838:59:59"), true).unwrap(),
            s("-838:59:59")
        );
        assert_eq!(
            put(SqlType::Time(0), s("900:00:00"), true)
                .unwrap_err()
                .code,
            1264
        );
        assert_eq!(
            put(SqlType::Time(0), Value::Int(123456), true).unwrap(),
            s("12:34:56")
        );
        assert_eq!(
            put(SqlType::Timestamp(0), s("1969-12-31 00:00:00"), true)
                .unwrap_err()
                .code,
            1292
        );
        assert_eq!(
            put(SqlType::Year, Value::Int(24), true).unwrap(),
            Value::UInt(2024)
        );
        assert_eq!(
            put(SqlType::Year, Value::Int(1999), true).unwrap(),
            Value::UInt(1999)
        );
    }
}
