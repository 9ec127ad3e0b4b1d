//! TIMESTAMP columns store UTC and show the session time zone, as in MySQL.
//!
//! The executor works with TIMESTAMP values as session-local datetime text (what
//! `types::store` produces, what expressions and clients see); the row codec
//! (`rowfmt`) converts them to UTC when it encodes a row or a key and back when it
//! decodes one. The zone is the running statement's, set per thread by
//! `Session::execute` through [`enter`] (a statement runs on one thread); code that
//! runs outside a statement (HandlerSocket, purge, ALTER's row copy) sees UTC, and a
//! decode/encode round trip within one statement is exact.
//!
//! Only fixed offsets (`+02:00`) convert: a zone with daylight-saving changes (a named
//! zone, or SYSTEM on such a host) has local times that name two instants, and rows
//! re-encoded by an UPDATE of another column could then move; such sessions still see
//! the stored UTC text (docs/sql.md lists this).

use std::borrow::Cow;
use std::cell::Cell;

use kiln_types::temporal::{Flags, TimeZone, UnixTime, parse_datetime};

thread_local! {
    /// The running statement's offset east of UTC, in seconds (0: no conversion).
    static OFFSET: Cell<i32> = const { Cell::new(0) };
}

/// Restores the previous zone when the statement ends.
pub struct ZoneGuard(i32);

impl Drop for ZoneGuard {
    fn drop(&mut self) {
        OFFSET.with(|o| o.set(self.0));
    }
}

/// Makes `tz` the zone of TIMESTAMP values on this thread until the guard drops.
pub fn enter(tz: &TimeZone) -> ZoneGuard {
    let offset = match tz {
        TimeZone::Offset(s) => *s,
        TimeZone::System | TimeZone::Utc | TimeZone::Zone(_) => 0,
    };
    ZoneGuard(OFFSET.with(|o| o.replace(offset)))
}

/// The offset `enter` uses for the session's `time_zone` (a named zone is not
/// loaded: it does not convert). Sessions keep it in their variable cache.
pub fn session_offset_secs(env: &dyn crate::eval::Env) -> i32 {
    let name = env
        .sysvar(crate::ast::VarScope::Session, "time_zone")
        .ok()
        .and_then(|v| v.to_string_lossy())
        .unwrap_or_default();
    match TimeZone::parse(&name) {
        Some(TimeZone::Offset(s)) => s,
        _ => 0,
    }
}

/// Makes `offset_secs` (east of UTC) the zone of TIMESTAMP values on this thread
/// until the guard drops.
pub fn enter_offset(offset_secs: i32) -> ZoneGuard {
    ZoneGuard(OFFSET.with(|o| o.replace(offset_secs)))
}

fn offset() -> i32 {
    OFFSET.with(Cell::get)
}

/// Session-local TIMESTAMP text as the UTC text to store.
pub fn to_utc(local: &str) -> Cow<'_, str> {
    shift(local, -i64::from(offset()))
}

/// Stored UTC TIMESTAMP text as the session's local text.
pub fn to_local(utc: &str) -> Cow<'_, str> {
    shift(utc, i64::from(offset()))
}

/// `text` moved by `secs` seconds, keeping its fraction digits; the zero timestamp and
/// text that is not a datetime stay as they are.
fn shift(text: &str, secs: i64) -> Cow<'_, str> {
    if secs == 0 {
        return Cow::Borrowed(text);
    }
    let Ok(p) = parse_datetime(text, Flags::LENIENT) else {
        return Cow::Borrowed(text);
    };
    if p.value.is_zero() {
        return Cow::Borrowed(text);
    }
    let fsp = text
        .rsplit_once('.')
        .map_or(0, |(_, f)| f.len().min(6) as u8);
    let utc = TimeZone::Utc;
    let moved = utc.local_to_utc(&p.value).and_then(|u| {
        utc.utc_to_local(UnixTime {
            secs: u.secs.checked_add(secs)?,
            micros: u.micros,
        })
    });
    match moved {
        Some(dt) => Cow::Owned(dt.format_datetime(fsp)),
        None => Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_with_the_statement_offset() {
        assert_eq!(to_utc("2020-02-29 13:45:10"), "2020-02-29 13:45:10");
        let _g = enter(&TimeZone::Offset(7200));
        assert_eq!(to_local("2020-02-29 13:45:10"), "2020-02-29 15:45:10");
        assert_eq!(to_utc("2000-01-01 01:59:59.5"), "1999-12-31 23:59:59.5");
        assert_eq!(to_utc("0000-00-00 00:00:00"), "0000-00-00 00:00:00");
        {
            let _inner = enter(&TimeZone::Utc);
            assert_eq!(to_local("2020-02-29 13:45:10"), "2020-02-29 13:45:10");
        }
        assert_eq!(to_local("2021-01-03 00:00:00"), "2021-01-03 02:00:00");
    }
}
