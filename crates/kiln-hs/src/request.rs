//! Request lines as typed requests (see docs/handlersocket.md for the grammar), and
//! the protocol errors a malformed line gets. Parsing borrows from the line: values
//! without escapes are not copied.
//!
//! ```text
//! P  <indexid> <db> <table> <index> <columns> [<fcolumns>]           open_index
//! A  <type> <secret>                                                 auth
//! <indexid> + <vlen> <v1> ... <vn>                                   insert
//! <indexid> <op> <vlen> <v1> ... <vn> [<limit> [<offset>]]           find
//!           [@ <icol> <ivlen> <iv1> ... <ivn>]                       IN
//!           [<F|W> <fop> <fcol> <fval>] ...                          filters
//!           [<U|D|+|-|U?|D?|+?|-?> <m1> ... <mk>]                    find_modify
//! ```

use crate::codec::{Val, parse_u64, value};

/// Values in one request (key parts, IN values, modify values), at most.
pub const VALUES_MAX: usize = 10_000;
/// Filters in one request, at most.
pub const FILTERS_MAX: usize = 64;

/// A protocol-level error: `<code> TAB 1 TAB <message>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProtoError {
    pub code: u8,
    pub message: &'static str,
}

pub const fn err(code: u8, message: &'static str) -> ProtoError {
    ProtoError { code, message }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Gt,
    Ge,
    Lt,
    Le,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, PartialEq)]
pub struct Filter<'a> {
    /// `W`: stop the scan at the first row that fails (else `F`: skip it).
    pub stop: bool,
    pub op: FilterOp,
    /// Position in the index's fcolumns.
    pub column: usize,
    pub value: Val<'a>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModOp {
    Update,
    Delete,
    Increment,
    Decrement,
}

#[derive(Debug, PartialEq)]
pub struct Modify<'a> {
    pub op: ModOp,
    /// `?` form: answer with the matched rows as they were before the change.
    pub returning: bool,
    pub values: Vec<Val<'a>>,
}

#[derive(Debug, PartialEq)]
pub struct InList<'a> {
    /// The key part the IN values replace.
    pub part: usize,
    pub values: Vec<Val<'a>>,
}

#[derive(Debug, PartialEq)]
pub struct Find<'a> {
    pub index_id: u64,
    pub op: Op,
    pub keys: Vec<Val<'a>>,
    pub limit: u64,
    pub offset: u64,
    pub in_list: Option<InList<'a>>,
    pub filters: Vec<Filter<'a>>,
    pub modify: Option<Modify<'a>>,
}

#[derive(Debug, PartialEq)]
pub enum Request<'a> {
    OpenIndex {
        index_id: u64,
        db: &'a [u8],
        table: &'a [u8],
        index: &'a [u8],
        columns: &'a [u8],
        fcolumns: &'a [u8],
    },
    Auth {
        kind: &'a [u8],
        secret: &'a [u8],
    },
    Insert {
        index_id: u64,
        values: Vec<Val<'a>>,
    },
    Find(Find<'a>),
}

/// Reads tokens in order.
struct Tokens<'t, 'a> {
    t: &'t [&'a [u8]],
    i: usize,
}

impl<'a> Tokens<'_, 'a> {
    fn next(&mut self) -> Option<&'a [u8]> {
        let v = self.t.get(self.i).copied();
        if v.is_some() {
            self.i += 1;
        }
        v
    }

    fn peek(&self) -> Option<&'a [u8]> {
        self.t.get(self.i).copied()
    }

    fn done(&self) -> bool {
        self.i >= self.t.len()
    }

    fn remaining(&self) -> usize {
        self.t.len().saturating_sub(self.i)
    }

    fn number(&mut self) -> Result<u64, ProtoError> {
        self.next().and_then(parse_u64).ok_or(err(2, "syntax"))
    }

    fn values(&mut self, n: usize) -> Result<Vec<Val<'a>>, ProtoError> {
        if n > self.remaining() {
            return Err(err(2, "syntax"));
        }
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(value(self.next().expect("counted above")));
        }
        Ok(v)
    }
}

/// Parses the tokens of one request line.
pub fn parse<'a>(tokens: &[&'a [u8]]) -> Result<Request<'a>, ProtoError> {
    let mut t = Tokens { t: tokens, i: 0 };
    let cmd = t.next().unwrap_or(b"");
    match cmd {
        b"" => Err(err(2, "cmd")),
        b"P" => {
            let index_id = t.number()?;
            let db = t.next().ok_or(err(2, "syntax"))?;
            let table = t.next().ok_or(err(2, "syntax"))?;
            let index = t.next().ok_or(err(2, "syntax"))?;
            let columns = t.next().unwrap_or(b"");
            let fcolumns = t.next().unwrap_or(b"");
            Ok(Request::OpenIndex {
                index_id,
                db,
                table,
                index,
                columns,
                fcolumns,
            })
        }
        b"A" => {
            let kind = t.next().unwrap_or(b"");
            let secret = t.next().unwrap_or(b"");
            Ok(Request::Auth { kind, secret })
        }
        c if c[0].is_ascii_digit() => {
            let index_id = parse_u64(c).ok_or(err(2, "stmtnum"))?;
            parse_on_index(index_id, &mut t)
        }
        _ => Err(err(2, "cmd")),
    }
}

fn parse_on_index<'a>(index_id: u64, t: &mut Tokens<'_, 'a>) -> Result<Request<'a>, ProtoError> {
    let op = match t.next().unwrap_or(b"") {
        b"=" => Op::Eq,
        b">" => Op::Gt,
        b">=" => Op::Ge,
        b"<" => Op::Lt,
        b"<=" => Op::Le,
        // The original's unfinished SQL-like op (after the key-count check).
        b"S" => {
            return Err(match t.number() {
                Ok(0) => err(2, "klen"),
                _ => err(2, "notimpl"),
            });
        }
        b"+" => {
            let n = t.number()?;
            if n == 0 {
                return Err(err(2, "klen"));
            }
            if n as usize > VALUES_MAX {
                return Err(err(2, "fld"));
            }
            let values = t.values(n as usize)?;
            return Ok(Request::Insert { index_id, values });
        }
        _ => return Err(err(2, "op")),
    };
    let n = t.number()?;
    if n == 0 {
        return Err(err(2, "klen"));
    }
    if n as usize > VALUES_MAX {
        return Err(err(2, "kpnum"));
    }
    let keys = t.values(n as usize)?;
    let mut find = Find {
        index_id,
        op,
        keys,
        limit: 1,
        offset: 0,
        in_list: None,
        filters: Vec::new(),
        modify: None,
    };
    // limit and offset: positional numbers.
    if let Some(tok) = t.peek()
        && let Some(limit) = parse_u64(tok)
    {
        t.next();
        // A limit of 0 reads one row, as in the original.
        find.limit = limit.max(1);
        if let Some(tok) = t.peek()
            && let Some(offset) = parse_u64(tok)
        {
            t.next();
            find.offset = offset;
        }
    }
    if t.peek() == Some(b"@") {
        t.next();
        let part = t.number()? as usize;
        let n = t.number()?;
        if n == 0 || n as usize > VALUES_MAX {
            return Err(err(2, "invalueslen"));
        }
        let values = t.values(n as usize)?;
        find.in_list = Some(InList { part, values });
    }
    while let Some(tok) = t.peek() {
        let stop = match tok {
            b"F" => false,
            b"W" => true,
            [b'F' | b'W', ..] => return Err(err(2, "filtertype")),
            _ => break,
        };
        t.next();
        if find.filters.len() >= FILTERS_MAX {
            return Err(err(2, "filtertype"));
        }
        let op = match t.next().unwrap_or(b"") {
            b"=" => FilterOp::Eq,
            b"!=" => FilterOp::Ne,
            b"<" => FilterOp::Lt,
            b"<=" => FilterOp::Le,
            b">" => FilterOp::Gt,
            b">=" => FilterOp::Ge,
            _ => return Err(err(2, "filterop")),
        };
        let column = t.next().and_then(parse_u64).ok_or(err(2, "filterfld"))? as usize;
        let v = t.next().ok_or(err(2, "syntax"))?;
        find.filters.push(Filter {
            stop,
            op,
            column,
            value: value(v),
        });
    }
    if let Some(tok) = t.next() {
        let (op, returning) = match tok {
            b"U" => (ModOp::Update, false),
            b"D" => (ModOp::Delete, false),
            b"+" => (ModOp::Increment, false),
            b"-" => (ModOp::Decrement, false),
            b"U?" => (ModOp::Update, true),
            b"D?" => (ModOp::Delete, true),
            b"+?" => (ModOp::Increment, true),
            b"-?" => (ModOp::Decrement, true),
            _ => return Err(err(2, "modop")),
        };
        let n = t.remaining();
        if n > VALUES_MAX {
            return Err(err(2, "syntax"));
        }
        let values = t.values(n)?;
        find.modify = Some(Modify {
            op,
            returning,
            values,
        });
    }
    debug_assert!(t.done());
    Ok(Request::Find(find))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::split_tokens;
    use std::borrow::Cow;

    fn p(line: &[u8]) -> Result<Request<'_>, ProtoError> {
        let mut v = Vec::new();
        split_tokens(line, &mut v);
        parse(&v)
    }

    #[test]
    fn open_index() {
        assert_eq!(
            p(b"P\t1\tdb\tt\tPRIMARY\tid,c").unwrap(),
            Request::OpenIndex {
                index_id: 1,
                db: b"db",
                table: b"t",
                index: b"PRIMARY",
                columns: b"id,c",
                fcolumns: b"",
            }
        );
        assert_eq!(p(b"P\t1\tdb").unwrap_err(), err(2, "syntax"));
    }

    #[test]
    fn find_with_everything() {
        let r = p(b"1\t>=\t2\ta\t\x00\t10\t5\t@\t0\t2\tx\ty\tF\t!=\t1\tq\tW\t<\t0\t9\tU?\tn\t\x00")
            .unwrap();
        let Request::Find(f) = r else { panic!() };
        assert_eq!(f.op, Op::Ge);
        assert_eq!(f.keys, vec![Some(Cow::Borrowed(&b"a"[..])), None]);
        assert_eq!((f.limit, f.offset), (10, 5));
        assert_eq!(f.in_list.as_ref().unwrap().values.len(), 2);
        assert_eq!(f.filters.len(), 2);
        assert!(f.filters[1].stop);
        let m = f.modify.unwrap();
        assert_eq!((m.op, m.returning), (ModOp::Update, true));
        assert_eq!(m.values, vec![Some(Cow::Borrowed(&b"n"[..])), None]);
    }

    #[test]
    fn errors() {
        assert_eq!(p(b"").unwrap_err(), err(2, "cmd"));
        assert_eq!(p(b"Q").unwrap_err(), err(2, "cmd"));
        assert_eq!(p(b"1\t~\t1\ta").unwrap_err(), err(2, "op"));
        assert_eq!(p(b"1\t=\t0").unwrap_err(), err(2, "klen"));
        assert_eq!(p(b"1\t=\t3\ta").unwrap_err(), err(2, "syntax"));
        assert_eq!(p(b"1\t=\t1\ta\t1\t0\tX").unwrap_err(), err(2, "modop"));
        assert_eq!(
            p(b"1\t=\t1\ta\t1\t0\t@\t0\t0").unwrap_err(),
            err(2, "invalueslen")
        );
    }

    #[test]
    fn insert() {
        let Request::Insert { index_id, values } = p(b"3\t+\t2\tx\t").unwrap() else {
            panic!()
        };
        assert_eq!(index_id, 3);
        assert_eq!(values.len(), 2);
    }
}
