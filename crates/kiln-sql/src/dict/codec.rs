//! Byte encoding of dictionary records (the values of the dictionary tree).
//!
//! A record is a version byte followed by fields in a fixed order: integers as LEB128
//! varints, strings as varint length + UTF-8 bytes, options as a 0/1 byte then the
//! value, lists as a varint count then the items. Decoding checks every length against
//! the bytes left, so a damaged record is an error, never a panic.

use super::{
    ColumnDef, ColumnDefault, DatabaseDef, ForeignKeyDef, IndexDef, IndexKindDef, IndexPart,
    TableDef,
};
use crate::types::{IntKind, LobSize, SqlType};
use crate::value::Value;

const VERSION: u8 = 1;
/// Longest string a record may hold (comments, defaults, names).
const STRING_LEN_MAX: u64 = 1 << 20;
/// Most items in one list (columns, members, parts).
const LIST_LEN_MAX: u64 = 1 << 16;

#[derive(Default)]
pub struct Writer {
    pub buf: Vec<u8>,
}

impl Writer {
    pub(crate) fn u(&mut self, mut v: u64) {
        loop {
            let b = (v & 0x7F) as u8;
            v >>= 7;
            if v == 0 {
                self.buf.push(b);
                return;
            }
            self.buf.push(b | 0x80);
        }
    }
    pub(crate) fn b(&mut self, v: bool) {
        self.buf.push(v as u8);
    }
    pub(crate) fn s(&mut self, v: &str) {
        self.u(v.len() as u64);
        self.buf.extend_from_slice(v.as_bytes());
    }
    pub(crate) fn bytes(&mut self, v: &[u8]) {
        self.u(v.len() as u64);
        self.buf.extend_from_slice(v);
    }
    pub(crate) fn os(&mut self, v: &Option<String>) {
        self.b(v.is_some());
        if let Some(s) = v {
            self.s(s);
        }
    }
    pub(crate) fn strs(&mut self, v: &[String]) {
        self.u(v.len() as u64);
        for s in v {
            self.s(s);
        }
    }
}

pub struct Reader<'a> {
    b: &'a [u8],
    i: usize,
}

type R<T> = Result<T, String>;

impl<'a> Reader<'a> {
    pub fn new(b: &'a [u8]) -> Reader<'a> {
        Reader { b, i: 0 }
    }
    pub(crate) fn skip(&mut self, n: usize) {
        self.i = (self.i + n).min(self.b.len());
    }
    pub(crate) fn u(&mut self) -> R<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *self.b.get(self.i).ok_or("truncated varint")?;
            self.i += 1;
            v |= ((byte & 0x7F) as u64) << shift;
            if byte & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("varint too long".into())
    }
    pub(crate) fn u32(&mut self) -> R<u32> {
        u32::try_from(self.u()?).map_err(|_| "value out of range".to_string())
    }
    pub(crate) fn byte(&mut self) -> R<u8> {
        let v = *self.b.get(self.i).ok_or("truncated record")?;
        self.i += 1;
        Ok(v)
    }
    pub(crate) fn b(&mut self) -> R<bool> {
        let v = *self.b.get(self.i).ok_or("truncated")?;
        self.i += 1;
        Ok(v != 0)
    }
    pub(crate) fn raw(&mut self) -> R<&'a [u8]> {
        let n = self.u()?;
        if n > STRING_LEN_MAX || n as usize > self.b.len() - self.i {
            return Err("bad length".into());
        }
        let s = &self.b[self.i..self.i + n as usize];
        self.i += n as usize;
        Ok(s)
    }
    pub(crate) fn s(&mut self) -> R<String> {
        String::from_utf8(self.raw()?.to_vec()).map_err(|_| "bad UTF-8".to_string())
    }
    pub(crate) fn os(&mut self) -> R<Option<String>> {
        Ok(if self.b()? { Some(self.s()?) } else { None })
    }
    pub(crate) fn count(&mut self) -> R<usize> {
        let n = self.u()?;
        if n > LIST_LEN_MAX {
            return Err("list too long".into());
        }
        Ok(n as usize)
    }
    pub(crate) fn strs(&mut self) -> R<Vec<String>> {
        let n = self.count()?;
        (0..n).map(|_| self.s()).collect()
    }
}

fn put_type(w: &mut Writer, t: &SqlType) {
    let lob = |s: &LobSize| match s {
        LobSize::Tiny => 0,
        LobSize::Normal => 1,
        LobSize::Medium => 2,
        LobSize::Long => 3,
    };
    match t {
        SqlType::Int {
            kind,
            unsigned,
            zerofill,
            width,
        } => {
            w.u(1);
            w.u(kind.bytes() as u64);
            w.b(*unsigned);
            w.b(*zerofill);
            w.u(width.map_or(0, |x| x as u64 + 1));
        }
        SqlType::Decimal {
            precision,
            scale,
            unsigned,
        } => {
            w.u(2);
            w.u(*precision as u64);
            w.u(*scale as u64);
            w.b(*unsigned);
        }
        SqlType::Float { unsigned } => {
            w.u(3);
            w.b(*unsigned);
        }
        SqlType::Double { unsigned } => {
            w.u(4);
            w.b(*unsigned);
        }
        SqlType::Bit(n) => {
            w.u(5);
            w.u(*n as u64);
        }
        SqlType::Char { len, collation } => {
            w.u(6);
            w.u(*len as u64);
            w.s(collation);
        }
        SqlType::VarChar { len, collation } => {
            w.u(7);
            w.u(*len as u64);
            w.s(collation);
        }
        SqlType::Binary(n) => {
            w.u(8);
            w.u(*n as u64);
        }
        SqlType::VarBinary(n) => {
            w.u(9);
            w.u(*n as u64);
        }
        SqlType::Text { size, collation } => {
            w.u(10);
            w.u(lob(size));
            w.s(collation);
        }
        SqlType::Blob(size) => {
            w.u(11);
            w.u(lob(size));
        }
        SqlType::Enum { members, collation } => {
            w.u(12);
            w.strs(members);
            w.s(collation);
        }
        SqlType::Set { members, collation } => {
            w.u(13);
            w.strs(members);
            w.s(collation);
        }
        SqlType::Date => w.u(14),
        SqlType::DateTime(f) => {
            w.u(15);
            w.u(*f as u64);
        }
        SqlType::Timestamp(f) => {
            w.u(16);
            w.u(*f as u64);
        }
        SqlType::Time(f) => {
            w.u(17);
            w.u(*f as u64);
        }
        SqlType::Year => w.u(18),
        SqlType::Json => w.u(19),
    }
}

fn get_type(r: &mut Reader) -> R<SqlType> {
    let lob = |v: u64| -> R<LobSize> {
        Ok(match v {
            0 => LobSize::Tiny,
            1 => LobSize::Normal,
            2 => LobSize::Medium,
            3 => LobSize::Long,
            _ => return Err("bad lob size".into()),
        })
    };
    Ok(match r.u()? {
        1 => {
            let kind = match r.u()? {
                1 => IntKind::Tiny,
                2 => IntKind::Small,
                3 => IntKind::Medium,
                4 => IntKind::Int,
                8 => IntKind::Big,
                _ => return Err("bad int kind".into()),
            };
            let unsigned = r.b()?;
            let zerofill = r.b()?;
            let width = match r.u32()? {
                0 => None,
                x => Some(x - 1),
            };
            SqlType::Int {
                kind,
                unsigned,
                zerofill,
                width,
            }
        }
        2 => SqlType::Decimal {
            precision: r.u32()?,
            scale: r.u32()?,
            unsigned: r.b()?,
        },
        3 => SqlType::Float { unsigned: r.b()? },
        4 => SqlType::Double { unsigned: r.b()? },
        5 => SqlType::Bit(r.u32()?),
        6 => SqlType::Char {
            len: r.u32()?,
            collation: r.s()?,
        },
        7 => SqlType::VarChar {
            len: r.u32()?,
            collation: r.s()?,
        },
        8 => SqlType::Binary(r.u32()?),
        9 => SqlType::VarBinary(r.u32()?),
        10 => SqlType::Text {
            size: lob(r.u()?)?,
            collation: r.s()?,
        },
        11 => SqlType::Blob(lob(r.u()?)?),
        12 => SqlType::Enum {
            members: r.strs()?,
            collation: r.s()?,
        },
        13 => SqlType::Set {
            members: r.strs()?,
            collation: r.s()?,
        },
        14 => SqlType::Date,
        15 => SqlType::DateTime(r.u32()?),
        16 => SqlType::Timestamp(r.u32()?),
        17 => SqlType::Time(r.u32()?),
        18 => SqlType::Year,
        19 => SqlType::Json,
        _ => return Err("bad type tag".into()),
    })
}

fn put_value(w: &mut Writer, v: &Value) {
    match v {
        Value::Null => w.u(0),
        Value::Int(i) => {
            w.u(1);
            w.u(*i as u64);
        }
        Value::UInt(u) => {
            w.u(2);
            w.u(*u);
        }
        Value::Double(d) => {
            w.u(3);
            w.u(d.to_bits());
        }
        Value::Decimal(s) => {
            w.u(4);
            w.s(s);
        }
        Value::Str(s) => {
            w.u(5);
            w.s(s);
        }
        Value::Bytes(b) => {
            w.u(6);
            w.bytes(b);
        }
    }
}

fn get_value(r: &mut Reader) -> R<Value> {
    Ok(match r.u()? {
        0 => Value::Null,
        1 => Value::Int(r.u()? as i64),
        2 => Value::UInt(r.u()?),
        3 => Value::Double(f64::from_bits(r.u()?)),
        4 => Value::Decimal(r.s()?),
        5 => Value::Str(r.s()?),
        6 => Value::Bytes(r.raw()?.to_vec()),
        _ => return Err("bad value tag".into()),
    })
}

pub fn encode_database(d: &DatabaseDef) -> Vec<u8> {
    let mut w = Writer::default();
    w.buf.push(VERSION);
    w.s(&d.name);
    w.s(&d.charset);
    w.s(&d.collation);
    w.buf
}

pub fn decode_database(b: &[u8]) -> R<DatabaseDef> {
    let mut r = version(b)?;
    Ok(DatabaseDef {
        name: r.s()?,
        charset: r.s()?,
        collation: r.s()?,
    })
}

fn version(b: &[u8]) -> R<Reader<'_>> {
    match b.first() {
        Some(&VERSION) => Ok(Reader { b, i: 1 }),
        _ => Err("unknown dictionary record version".into()),
    }
}

pub fn encode_table(t: &TableDef) -> Vec<u8> {
    let mut w = Writer::default();
    w.buf.push(VERSION);
    w.u(t.id);
    w.s(&t.schema);
    w.s(&t.name);
    w.u(t.space_id as u64);
    w.u(t.columns.len() as u64);
    for c in &t.columns {
        w.s(&c.name);
        put_type(&mut w, &c.ty);
        w.b(c.nullable);
        match &c.default {
            None => w.u(0),
            Some(ColumnDefault::Value(v)) => {
                w.u(1);
                put_value(&mut w, v);
            }
            Some(ColumnDefault::CurrentTimestamp) => w.u(2),
            Some(ColumnDefault::Expr(s)) => {
                w.u(3);
                w.s(s);
            }
        }
        w.b(c.auto_increment);
        w.b(c.on_update_now);
        w.os(&c.comment);
        w.b(c.invisible);
    }
    w.u(t.indexes.len() as u64);
    for ix in &t.indexes {
        w.s(&ix.name);
        w.u(ix.id);
        w.u(match ix.kind {
            IndexKindDef::Primary => 0,
            IndexKindDef::Unique => 1,
            IndexKindDef::Key => 2,
            IndexKindDef::Fulltext => 3,
            IndexKindDef::RowId => 4,
        });
        w.u(ix.parts.len() as u64);
        for p in &ix.parts {
            w.u(p.column as u64);
            w.u(p.prefix_chars.map_or(0, |x| x as u64 + 1));
            w.b(p.desc);
        }
        w.b(ix.invisible);
        w.os(&ix.comment);
    }
    w.u(t.foreign_keys.len() as u64);
    for f in &t.foreign_keys {
        w.s(&f.name);
        w.strs(&f.columns);
        w.s(&f.ref_schema);
        w.s(&f.ref_table);
        w.strs(&f.ref_columns);
        w.s(&f.actions);
    }
    w.s(&t.engine);
    w.s(&t.charset);
    w.s(&t.collation);
    w.s(&t.comment);
    w.os(&t.row_format);
    w.u(t.next_index_id);
    w.u(t.created_unix_secs);
    w.u(t.auto_increment_start);
    w.buf
}

pub fn decode_table(b: &[u8]) -> R<TableDef> {
    let mut r = version(b)?;
    let id = r.u()?;
    let schema = r.s()?;
    let name = r.s()?;
    let space_id = r.u32()?;
    let n = r.count()?;
    let mut columns = Vec::with_capacity(n);
    for _ in 0..n {
        let name = r.s()?;
        let ty = get_type(&mut r)?;
        let nullable = r.b()?;
        let default = match r.u()? {
            0 => None,
            1 => Some(ColumnDefault::Value(get_value(&mut r)?)),
            2 => Some(ColumnDefault::CurrentTimestamp),
            3 => Some(ColumnDefault::Expr(r.s()?)),
            _ => return Err("bad default tag".into()),
        };
        columns.push(ColumnDef {
            name,
            ty,
            nullable,
            default,
            auto_increment: r.b()?,
            on_update_now: r.b()?,
            comment: r.os()?,
            invisible: r.b()?,
        });
    }
    let n = r.count()?;
    let mut indexes = Vec::with_capacity(n);
    for _ in 0..n {
        let name = r.s()?;
        let id = r.u()?;
        let kind = match r.u()? {
            0 => IndexKindDef::Primary,
            1 => IndexKindDef::Unique,
            2 => IndexKindDef::Key,
            3 => IndexKindDef::Fulltext,
            4 => IndexKindDef::RowId,
            _ => return Err("bad index kind".into()),
        };
        let np = r.count()?;
        let mut parts = Vec::with_capacity(np);
        for _ in 0..np {
            let column = r.u()? as usize;
            if column >= columns.len() {
                return Err("index part names a missing column".into());
            }
            let prefix_chars = match r.u32()? {
                0 => None,
                x => Some(x - 1),
            };
            parts.push(IndexPart {
                column,
                prefix_chars,
                desc: r.b()?,
            });
        }
        indexes.push(IndexDef {
            name,
            id,
            kind,
            parts,
            invisible: r.b()?,
            comment: r.os()?,
        });
    }
    let n = r.count()?;
    let mut foreign_keys = Vec::with_capacity(n);
    for _ in 0..n {
        foreign_keys.push(ForeignKeyDef {
            name: r.s()?,
            columns: r.strs()?,
            ref_schema: r.s()?,
            ref_table: r.s()?,
            ref_columns: r.strs()?,
            actions: r.s()?,
        });
    }
    Ok(TableDef {
        id,
        schema,
        name,
        space_id,
        columns,
        indexes,
        foreign_keys,
        engine: r.s()?,
        charset: r.s()?,
        collation: r.s()?,
        comment: r.s()?,
        row_format: r.os()?,
        next_index_id: r.u()?,
        created_unix_secs: r.u()?,
        auto_increment_start: r.u()?,
    })
}
