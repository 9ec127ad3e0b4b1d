//! Results to packets: kiln-sql's `Outcome`/`ColumnInfo`/`Value` mapped onto the
//! protocol's OK packets, column definitions and text or binary rows.

use bytes::BufMut;
use kiln_mysql::consts::{ColumnType, cap, charset, colflag, status};
use kiln_mysql::response::{OkPacket, SessionChanges, put_eof, put_err, put_ok};
use kiln_mysql::resultset::{
    BinaryValue, Column, put_binary_row, put_column_count, put_column_definition, put_text_row,
};
use kiln_sql::result::{ColumnInfo, ColumnKind, Rows};
use kiln_sql::value::Value;

use super::io::PacketIo;

pub fn column_type(kind: ColumnKind) -> ColumnType {
    match kind {
        ColumnKind::Null => ColumnType::Null,
        ColumnKind::Tiny => ColumnType::Tiny,
        ColumnKind::Short => ColumnType::Short,
        ColumnKind::Int24 => ColumnType::Int24,
        ColumnKind::LongLong => ColumnType::LongLong,
        ColumnKind::Long => ColumnType::Long,
        ColumnKind::Float => ColumnType::Float,
        ColumnKind::Double => ColumnType::Double,
        ColumnKind::NewDecimal => ColumnType::NewDecimal,
        ColumnKind::Bit => ColumnType::Bit,
        ColumnKind::Date => ColumnType::Date,
        ColumnKind::DateTime => ColumnType::DateTime,
        ColumnKind::Timestamp => ColumnType::Timestamp,
        ColumnKind::Time => ColumnType::Time,
        ColumnKind::Year => ColumnType::Year,
        ColumnKind::String => ColumnType::String,
        ColumnKind::VarString => ColumnType::VarString,
        ColumnKind::Blob => ColumnType::Blob,
        ColumnKind::Json => ColumnType::Json,
    }
}

pub fn column(c: &ColumnInfo) -> Column {
    let numeric = matches!(
        c.kind,
        ColumnKind::Tiny
            | ColumnKind::Short
            | ColumnKind::Int24
            | ColumnKind::LongLong
            | ColumnKind::Long
            | ColumnKind::Float
            | ColumnKind::Double
            | ColumnKind::NewDecimal
            | ColumnKind::Year
    );
    let mut flags = 0u16;
    if c.not_null {
        flags |= colflag::NOT_NULL;
    }
    if c.unsigned {
        flags |= colflag::UNSIGNED;
    }
    if c.binary {
        flags |= colflag::BINARY;
    }
    if numeric {
        flags |= colflag::NUM;
    }
    if c.kind == ColumnKind::Blob {
        flags |= colflag::BLOB;
    }
    let k = &c.key;
    for (on, bit) in [
        (k.primary, colflag::PRI_KEY),
        (k.unique, colflag::UNIQUE_KEY),
        (k.multiple, colflag::MULTIPLE_KEY),
        (k.auto_increment, colflag::AUTO_INCREMENT),
        (k.zerofill, colflag::ZEROFILL),
        (k.no_default, colflag::NO_DEFAULT_VALUE),
        (k.on_update_now, colflag::ON_UPDATE_NOW),
        (k.is_enum, colflag::ENUM),
        (k.is_set, colflag::SET),
    ] {
        if on {
            flags |= bit;
        }
    }
    let (collation_id, length) = if c.binary || c.kind == ColumnKind::Null {
        (charset::BINARY, c.length_chars)
    } else {
        // The column's collation; results are sent in utf8mb4 (4 bytes a character).
        let id = kiln_sql::charset::COLLATIONS
            .iter()
            .find(|x| x.name == c.collation)
            .map_or(charset::UTF8MB4_0900_AI_CI, |x| x.id as u16);
        (id, c.length_chars.saturating_mul(4))
    };
    Column {
        schema: c.schema.clone(),
        table: c.table.clone(),
        org_table: c.table.clone(),
        name: c.name.clone(),
        org_name: c.org_name.clone(),
        collation_id,
        length,
        column_type: column_type(c.kind),
        flags,
        decimals: c.decimals,
    }
}

pub fn write_ok(io: &mut PacketIo, caps: u32, ok: &OkPacket<'_>) {
    let s = io.begin();
    put_ok(&mut io.wbuf, ok, 0x00, caps);
    io.finish(s);
}

pub fn write_err(io: &mut PacketIo, code: u16, sqlstate: &[u8; 5], message: &str) {
    let s = io.begin();
    put_err(&mut io.wbuf, code, sqlstate, message);
    io.finish(s);
}

/// The packet ending a result set (or column list): EOF, or OK with header 0xFE when
/// the client negotiated CLIENT_DEPRECATE_EOF.
pub fn write_end(
    io: &mut PacketIo,
    caps: u32,
    warnings: u16,
    status_flags: u16,
    changes: Option<&SessionChanges>,
) {
    let s = io.begin();
    if caps & cap::DEPRECATE_EOF != 0 {
        let ok = OkPacket {
            status: status_flags,
            warnings,
            changes,
            ..Default::default()
        };
        put_ok(&mut io.wbuf, &ok, 0xFE, caps);
    } else {
        put_eof(&mut io.wbuf, warnings, status_flags);
    }
    io.finish(s);
}

/// Column definitions plus, without DEPRECATE_EOF, their closing EOF.
pub fn write_columns(io: &mut PacketIo, caps: u32, columns: &[ColumnInfo], status_flags: u16) {
    for c in columns {
        let s = io.begin();
        put_column_definition(&mut io.wbuf, &column(c));
        io.finish(s);
    }
    if caps & cap::DEPRECATE_EOF == 0 {
        let s = io.begin();
        put_eof(&mut io.wbuf, 0, status_flags);
        io.finish(s);
    }
}

/// A whole result set. `binary` selects the binary row format (COM_STMT_EXECUTE).
pub fn write_rows(
    io: &mut PacketIo,
    caps: u32,
    rows: &Rows,
    binary: bool,
    warnings: u16,
    status_flags: u16,
) -> std::io::Result<()> {
    let s = io.begin();
    put_column_count(&mut io.wbuf, rows.columns.len());
    io.finish(s);
    write_columns(io, caps, &rows.columns, status_flags);
    let types: Vec<ColumnType> = rows.columns.iter().map(|c| column_type(c.kind)).collect();
    let mut scratch = String::new();
    let mut bins: Vec<BinaryValue> = Vec::with_capacity(rows.columns.len());
    for row in &rows.rows {
        let s = io.begin();
        if binary {
            bins.clear();
            bins.extend(row.iter().zip(&types).map(|(v, t)| binary_value(v, *t)));
            put_binary_row(&mut io.wbuf, &types, &bins);
        } else {
            // Strings go out from the value itself; only numbers are formatted (into
            // one reused buffer): no allocation per cell.
            for (v, t) in row.iter().zip(&types) {
                match v {
                    Value::Double(d) if *t == ColumnType::Float => {
                        let f = kiln_sql::value::format_float(*d);
                        put_text_row(&mut io.wbuf, [Some(f.as_bytes())]);
                    }
                    Value::Null => put_text_row(&mut io.wbuf, [None]),
                    Value::Str(s) => put_text_row(&mut io.wbuf, [Some(s.as_bytes())]),
                    Value::Bytes(b) => put_text_row(&mut io.wbuf, [Some(b.as_slice())]),
                    Value::Decimal(d) => put_text_row(&mut io.wbuf, [Some(d.as_bytes())]),
                    Value::Int(i) => {
                        use std::fmt::Write;
                        scratch.clear();
                        let _ = write!(scratch, "{i}");
                        put_text_row(&mut io.wbuf, [Some(scratch.as_bytes())]);
                    }
                    Value::UInt(u) => {
                        use std::fmt::Write;
                        scratch.clear();
                        // YEAR prints four digits: the zero year is 0000.
                        let _ = if *t == ColumnType::Year {
                            write!(scratch, "{u:04}")
                        } else {
                            write!(scratch, "{u}")
                        };
                        put_text_row(&mut io.wbuf, [Some(scratch.as_bytes())]);
                    }
                    other => {
                        let t = other.to_text();
                        put_text_row(&mut io.wbuf, [t.as_deref()]);
                    }
                }
            }
        }
        io.finish(s);
        io.flush_if_large()?;
    }
    write_end(io, caps, warnings, status_flags, None);
    Ok(())
}

fn binary_value(v: &Value, t: ColumnType) -> BinaryValue {
    use ColumnType as T;
    match (v, t) {
        (Value::Null, _) => BinaryValue::Null,
        (v, T::Tiny | T::Short | T::Int24 | T::Year) => match v {
            Value::UInt(u) => BinaryValue::UInt(*u),
            other => BinaryValue::Int(other.to_i64().unwrap_or(0)),
        },
        (v, T::Float) => BinaryValue::Float(v.to_f64().unwrap_or(0.0) as f32),
        (Value::Str(s), T::Date | T::DateTime | T::Timestamp) => datetime_value(s),
        (Value::Str(s), T::Time) => time_value(s),
        (Value::Int(i), ColumnType::LongLong | ColumnType::Long) => BinaryValue::Int(*i),
        (Value::UInt(u), ColumnType::LongLong | ColumnType::Long) => BinaryValue::UInt(*u),
        (v, ColumnType::LongLong | ColumnType::Long) => BinaryValue::Int(v.to_i64().unwrap_or(0)),
        (v, ColumnType::Double) => BinaryValue::Double(v.to_f64().unwrap_or(0.0)),
        (v, _) => BinaryValue::Bytes(v.to_text().unwrap_or_default()),
    }
}

/// 'YYYY-MM-DD[ HH:MM:SS[.ffffff]]' as a binary DATE/DATETIME cell.
fn datetime_value(s: &str) -> BinaryValue {
    let n = |r: std::ops::Range<usize>| s.get(r).and_then(|x| x.parse::<u32>().ok()).unwrap_or(0);
    let micros = s.get(20..).map_or(0, |f| {
        let digits: String = f.chars().take(6).collect();
        format!("{digits:0<6}").parse().unwrap_or(0)
    });
    BinaryValue::DateTime {
        year: n(0..4) as u16,
        month: n(5..7) as u8,
        day: n(8..10) as u8,
        hour: n(11..13) as u8,
        minute: n(14..16) as u8,
        second: n(17..19) as u8,
        micros,
    }
}

/// '[-]HHH:MM:SS[.ffffff]' as a binary TIME cell.
fn time_value(s: &str) -> BinaryValue {
    let (negative, rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (hms, frac) = rest.split_once('.').unwrap_or((rest, ""));
    let mut it = hms.split(':').map(|x| x.parse::<u32>().unwrap_or(0));
    let (h, m, sec) = (
        it.next().unwrap_or(0),
        it.next().unwrap_or(0),
        it.next().unwrap_or(0),
    );
    let digits: String = frac.chars().take(6).collect();
    BinaryValue::Time {
        negative,
        days: h / 24,
        hours: (h % 24) as u8,
        minutes: m as u8,
        seconds: sec as u8,
        micros: format!("{digits:0<6}").parse().unwrap_or(0),
    }
}

/// A binary-protocol parameter as a SQL value.
pub fn param_value(b: BinaryValue) -> Value {
    match b {
        BinaryValue::Null => Value::Null,
        BinaryValue::Int(i) => Value::Int(i),
        BinaryValue::UInt(u) => Value::UInt(u),
        BinaryValue::Float(f) => Value::Double(f as f64),
        BinaryValue::Double(d) => Value::Double(d),
        BinaryValue::Bytes(b) => match String::from_utf8(b) {
            Ok(s) => Value::Str(s),
            Err(e) => Value::Bytes(e.into_bytes()),
        },
        BinaryValue::DateTime {
            year,
            month,
            day,
            hour,
            minute,
            second,
            micros,
        } => {
            let mut s = format!("{year:04}-{month:02}-{day:02}");
            if hour != 0 || minute != 0 || second != 0 || micros != 0 {
                s.push_str(&format!(" {hour:02}:{minute:02}:{second:02}"));
            }
            if micros != 0 {
                s.push_str(&format!(".{micros:06}"));
            }
            Value::Str(s)
        }
        BinaryValue::Time {
            negative,
            days,
            hours,
            minutes,
            seconds,
            micros,
        } => {
            let h = days as u64 * 24 + hours as u64;
            let mut s = format!(
                "{}{h:02}:{minutes:02}:{seconds:02}",
                if negative { "-" } else { "" }
            );
            if micros != 0 {
                s.push_str(&format!(".{micros:06}"));
            }
            Value::Str(s)
        }
    }
}

/// COM_STATISTICS' answer: a bare string packet.
pub fn write_raw(io: &mut PacketIo, text: &str) {
    let s = io.begin();
    io.wbuf.put_slice(text.as_bytes());
    io.finish(s);
}

/// Status flags for the session's transaction state.
pub fn status_flags(in_trans: bool, autocommit: bool, read_only: bool) -> u16 {
    let mut s = 0;
    if in_trans {
        s |= status::IN_TRANS;
        if read_only {
            s |= status::IN_TRANS_READONLY;
        }
    }
    if autocommit {
        s |= status::AUTOCOMMIT;
    }
    s
}
