//! Statement digests for text statements: the keys of COM_QUERY's point plans and
//! of its statement cache.
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
//! select has literals nowhere else but in its LIMIT. Other SELECT / INSERT / REPLACE /
//! UPDATE / DELETE texts go to the statement cache (stmt_cache.rs), keyed by the same
//! pass's template (the text itself with the literals as `?`). The literals left in
//! place (so they never become parameters): strings after a word other than an
//! operator word (`_latin1 'x'`, `DATE '…'`, `AS 'x'`; after `LIKE`, `AND`, `THEN` …
//! they are operands) or against an introducer (`_latin1'x'`, `N'x'`) or beside
//! another string (`'a' 'b'` concatenates), double-quoted strings (identifiers under
//! ANSI_QUOTES), hex/bit/decimal/float literals, numbers past 64 bits.

use std::collections::HashMap;
use std::sync::Arc;

use crate::lexer::{LexMode, Tok, tokenize};
use crate::parse::{Parsed, parse_one};
use crate::value::Value;

/// Longest text considered (longer statements are neither cached nor point selects).
pub const TEXT_BYTES_MAX: usize = 4096;
/// Literals one digest may replace.
const LITERALS_MAX: usize = 64;
/// Digests a session remembers (the cache starts over when full).
const DIGESTS_MAX: usize = 256;

/// A text statement taken apart (`normalize`).
#[derive(Debug)]
pub struct Normalized {
    /// The point-select digest: tokens joined by single spaces, literals as `?`
    /// (SELECT statements only).
    pub digest: Option<String>,
    /// The statement-cache key (stmt_cache.rs): the text itself with each literal's
    /// bytes replaced by `?` (spacing and comments kept, so select-list names taken
    /// from the text stay), then a NUL and one letter per literal for its kind.
    pub key: String,
    /// Length of the template text at the start of `key`.
    pub template_len: usize,
    /// The literals, in order, as the parser makes them.
    pub literals: Vec<Value>,
}

impl Normalized {
    /// The text with its literals replaced by `?`.
    pub fn template(&self) -> &str {
        &self.key[..self.template_len]
    }
}

/// The statement kinds taken apart: the cacheable ones.
const KINDS: &[&str] = &["SELECT", "INSERT", "REPLACE", "UPDATE", "DELETE"];

/// Whether a string literal after this token is a plain operand (else it is an
/// alias, a charset introducer's, a typed literal's or a concatenation's part, and
/// stays in the digest).
fn operand_after(prev: &Tok) -> bool {
    /// Operators written as words.
    const OPERATORS: &[&str] = &[
        "AND", "BETWEEN", "ELSE", "LIKE", "NOT", "OR", "REGEXP", "RLIKE", "THEN", "WHEN", "XOR",
    ];
    match prev {
        Tok::Str(_) => false,
        Tok::Word(w) => OPERATORS.iter().any(|o| o.eq_ignore_ascii_case(w)),
        _ => true,
    }
}

/// A text statement as its digest, template and literals. None: not a statement
/// kind the caches serve, or it has placeholders, several statements, a lexing
/// error, or is past the limits.
pub fn normalize(sql: &str, mode: LexMode) -> Option<Normalized> {
    if sql.len() > TEXT_BYTES_MAX {
        return None;
    }
    let body = sql.trim_start();
    let kind = KINDS.iter().find(|k| {
        body.get(..k.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(k))
    })?;
    let select = *kind == "SELECT";
    let toks = tokenize(sql, mode).ok()?;
    let mut end = toks.len();
    while end > 0 && matches!(toks[end - 1].tok, Tok::Eof | Tok::Op(";")) {
        end -= 1;
    }
    let toks = &toks[..end];
    let mut digest = String::with_capacity(if select { sql.len() } else { 0 });
    let mut key = String::with_capacity(sql.len() + 8);
    let mut kinds = String::new();
    let mut copied = toks.first().map_or(0, |t| t.start);
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
        // The kind letter tells apart literals the parser treats apart: a minus
        // folds into an i64 literal and into 2^63 but not into another u64.
        let lit = match &t.tok {
            Tok::Int(s) => match s.parse::<i64>() {
                Ok(v) => Some((Value::Int(v), 'i')),
                Err(_) => s
                    .parse::<u64>()
                    .ok()
                    .map(|u| (Value::UInt(u), if u == 1u64 << 63 { 'm' } else { 'u' })),
            },
            Tok::Str(b)
                if start == t.start
                    && bytes.get(t.start) == Some(&b'\'')
                    && (i == 0 || operand_after(&toks[i - 1].tok))
                    && !matches!(toks.get(i + 1).map(|n| &n.tok), Some(Tok::Str(_))) =>
            {
                Some(match std::str::from_utf8(b) {
                    Ok(s) => (Value::Str(s.to_string()), 's'),
                    Err(_) => (Value::Bytes(b.to_vec()), 'b'),
                })
            }
            _ => None,
        };
        if select && i > 0 {
            digest.push(' ');
        }
        match lit {
            Some((v, k)) => {
                if literals.len() == LITERALS_MAX {
                    return None;
                }
                literals.push(v);
                kinds.push(k);
                if select {
                    digest.push('?');
                }
                key.push_str(&sql[copied..t.start]);
                key.push('?');
                copied = t.end;
            }
            None if select => digest.push_str(&sql[start..t.end]),
            None => {}
        }
    }
    let last = toks.last().map_or(copied, |t| t.end).max(copied);
    key.push_str(&sql[copied..last]);
    let template_len = key.len();
    key.push('\0');
    key.push_str(&kinds);
    Some(Normalized {
        digest: select.then_some(digest),
        key,
        template_len,
        literals,
    })
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
    /// The sql_mode reading the entries were parsed under: a digest's text means
    /// something else under ANSI_QUOTES or PIPES_AS_CONCAT, so a change starts over.
    mode: LexMode,
}

impl DigestCache {
    /// Forgets every entry if they were made under another reading of the text.
    pub fn validate(&mut self, mode: LexMode) {
        if self.mode != mode {
            self.map.clear();
            self.mode = mode;
        }
    }

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
pub fn examine(
    sess: &mut crate::session::Session,
    digest: &str,
    mode: LexMode,
) -> Option<Arc<Parsed>> {
    let parsed = parse_one(digest, mode).ok()?;
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
        let x = normalize(sql, LexMode::default())?;
        Some((x.digest?, x.literals))
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
                parse_one(&d, LexMode::default()).is_ok(),
                parse_one(sql, LexMode::default()).is_ok(),
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
        let p = parse_one(&d, LexMode::default()).unwrap();
        assert_eq!(p.param_count, l.len());
    }
}
