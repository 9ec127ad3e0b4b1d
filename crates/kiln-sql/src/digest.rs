//! Statement digests for text statements: the plan cache of COM_QUERY.
//!
//! A digest is the statement's tokens with integer and string literals replaced by
//! `?`, joined by single spaces (comments and spacing fall away, keyword case stays).
//! Texts that differ only in those literals share a digest, and the digest itself
//! parses as a statement with placeholders whose parameters are the literals. The
//! session keeps, per digest, that parsed statement: executing it with the text's
//! literals as parameters is executing the text, and its `PlanSlot` keeps the
//! primary-key point plan (exec/point.rs) across texts.
//!
//! Only point selects are served this way: a literal and a parameter are alike in a
//! `column = value` comparison (same coercibility, same key conversion), and a point
//! select has literals nowhere else but in its LIMIT. Every other statement takes the
//! ordinary parse. The literals left in place (so they never become parameters):
//! strings after a word (`_latin1'x'`, `DATE '…'`, `LIKE '…'`) or beside another
//! string (`'a' 'b'` concatenates), double-quoted strings (identifiers under
//! ANSI_QUOTES), hex/bit/decimal/float literals, numbers past 64 bits.

use std::collections::HashMap;
use std::sync::Arc;

use crate::lexer::{Tok, tokenize};
use crate::parse::{Parsed, parse_one};
use crate::value::Value;

/// Longest text considered (longer statements are not point selects).
const TEXT_BYTES_MAX: usize = 2048;
/// Literals one digest may replace.
const LITERALS_MAX: usize = 64;
/// Digests a session remembers (the cache starts over when full).
const DIGESTS_MAX: usize = 256;

/// A text statement as its digest and its literals, in order. None: the text cannot
/// be a point select, or has placeholders, several statements or a lexing error.
pub fn normalize(sql: &str, no_backslash_escapes: bool) -> Option<(String, Vec<Value>)> {
    if sql.len() > TEXT_BYTES_MAX {
        return None;
    }
    let head = sql.trim_start().get(..6)?;
    if !head.eq_ignore_ascii_case("SELECT") {
        return None;
    }
    let toks = tokenize(sql, no_backslash_escapes).ok()?;
    let mut end = toks.len();
    while end > 0 && matches!(toks[end - 1].tok, Tok::Eof | Tok::Op(";")) {
        end -= 1;
    }
    let toks = &toks[..end];
    let mut digest = String::with_capacity(sql.len());
    let mut literals = Vec::new();
    let bytes = sql.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80;
    for (i, t) in toks.iter().enumerate() {
        if matches!(t.tok, Tok::Placeholder | Tok::Op(";")) {
            return None;
        }
        // A charset introducer written against its string (`_latin1'x'`) is no token
        // of its own: the string's text starts where the introducer does.
        let mut start = t.start;
        if matches!(t.tok, Tok::Str(_)) {
            while start > 0 && ident(bytes[start - 1]) {
                start -= 1;
            }
        }
        let lit = match &t.tok {
            Tok::Int(s) => match s.parse::<i64>() {
                Ok(v) => Some(Value::Int(v)),
                Err(_) => s.parse::<u64>().ok().map(Value::UInt),
            },
            Tok::Str(b)
                if start == t.start
                    && bytes.get(t.start) == Some(&b'\'')
                    && (i == 0 || !matches!(toks[i - 1].tok, Tok::Word(_) | Tok::Str(_)))
                    && !matches!(toks.get(i + 1).map(|n| &n.tok), Some(Tok::Str(_))) =>
            {
                Some(match std::str::from_utf8(b) {
                    Ok(s) => Value::Str(s.to_string()),
                    Err(_) => Value::Bytes(b.to_vec()),
                })
            }
            _ => None,
        };
        if i > 0 {
            digest.push(' ');
        }
        match lit {
            Some(v) => {
                if literals.len() == LITERALS_MAX {
                    return None;
                }
                literals.push(v);
                digest.push('?');
            }
            None => digest.push_str(&sql[start..t.end]),
        }
    }
    Some((digest, literals))
}

/// What the session knows of a digest.
#[derive(Clone)]
pub enum Entry {
    /// A point select: its statement with placeholders.
    Point(Arc<Parsed>),
    /// Not one, as of this dictionary version and current database.
    Not {
        version: u64,
        database: Option<String>,
    },
}

/// The session's digests.
#[derive(Default)]
pub struct DigestCache {
    map: HashMap<String, Entry>,
}

impl DigestCache {
    pub fn get(&self, digest: &str) -> Option<&Entry> {
        self.map.get(digest)
    }

    pub fn insert(&mut self, digest: String, e: Entry) {
        if self.map.len() >= DIGESTS_MAX {
            self.map.clear();
        }
        self.map.insert(digest, e);
    }

    pub fn clear(&mut self) {
        self.map.clear();
    }
}

/// The digest's statement, if it parses as a point select of the current catalog.
pub fn examine(sess: &mut crate::session::Session, digest: &str, nbe: bool) -> Option<Arc<Parsed>> {
    let parsed = parse_one(digest, nbe).ok()?;
    let crate::ast::Stmt::Select(s) = &parsed.stmt else {
        return None;
    };
    crate::exec::point::analyze(sess, s).ok()??;
    Some(Arc::new(parsed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(sql: &str) -> Option<(String, Vec<Value>)> {
        normalize(sql, false)
    }

    #[test]
    fn literals_become_placeholders() {
        let (d, l) = n("SELECT c FROM sbtest1 WHERE id=42").unwrap();
        assert_eq!(d, "SELECT c FROM sbtest1 WHERE id = ?");
        assert_eq!(l, vec![Value::Int(42)]);
        let (d2, _) = n("select c  from sbtest1 where id = 7 /* x */ ;").unwrap();
        assert_eq!(d2, "select c from sbtest1 where id = ?");
        let (d, l) = n("SELECT a FROM t WHERE k = 'x''y' LIMIT 1").unwrap();
        assert_eq!(d, "SELECT a FROM t WHERE k = ? LIMIT ?");
        assert_eq!(l, vec![Value::Str("x'y".into()), Value::Int(1)]);
        let (_, l) = n("SELECT a FROM t WHERE k = 18446744073709551615").unwrap();
        assert_eq!(l, vec![Value::UInt(u64::MAX)]);
    }

    #[test]
    fn literals_that_stay() {
        for sql in [
            "SELECT a FROM t WHERE k = _latin1'x'",
            "SELECT a FROM t WHERE k = _binary 'x'",
            "SELECT a FROM t WHERE k = N'x'",
            "SELECT a FROM t WHERE k = 'a' 'b'",
            "SELECT a FROM t WHERE k = \"x\"",
            "SELECT a FROM t WHERE k = 0x41",
            "SELECT a FROM t WHERE k = 1.5",
            "SELECT a FROM t WHERE k = 99999999999999999999",
            "SELECT a FROM t WHERE d = DATE '2020-01-01'",
        ] {
            let (d, l) = n(sql).unwrap();
            assert!(l.is_empty(), "{sql}: {l:?}");
            assert!(d.contains("'x'") || !sql.contains("'x'"), "{sql}: {d}");
            assert!(
                d.contains("_latin1") || !sql.contains("_latin1"),
                "{sql}: {d}"
            );
            assert_eq!(
                parse_one(&d, false).is_ok(),
                parse_one(sql, false).is_ok(),
                "{sql}"
            );
        }
    }

    #[test]
    fn not_considered() {
        assert!(n("INSERT INTO t VALUES (1)").is_none());
        assert!(n("SELECT ? FROM t").is_none());
        assert!(n("SELECT 1; SELECT 2").is_none());
        assert!(n("SELECT 'unterminated").is_none());
        assert!(
            n(&format!(
                "SELECT a FROM t WHERE k IN ({})",
                vec!["1"; 65].join(",")
            ))
            .is_none()
        );
        assert!(n(&format!("SELECT {}", "a".repeat(TEXT_BYTES_MAX))).is_none());
    }

    #[test]
    fn digest_parses_as_the_text_with_parameters() {
        let sql = "SELECT c, pad FROM db.t AS x WHERE x.id = 5 AND k='a' LIMIT 3";
        let (d, l) = n(sql).unwrap();
        let p = parse_one(&d, false).unwrap();
        assert_eq!(p.param_count, l.len());
    }
}
