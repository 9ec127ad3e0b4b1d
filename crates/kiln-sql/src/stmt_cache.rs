//! The text-statement cache (issue 5's fast path): COM_QUERY statements whose text
//! differs only in literals are parsed once per session.
//!
//! `digest::normalize` turns a SELECT / INSERT / REPLACE / UPDATE / DELETE text into
//! a template (the text with each integer and plain string literal replaced by `?`,
//! everything else byte for byte) and the literals; the key is the template plus one
//! letter per literal for its kind. The first text of a key is parsed as usual; its
//! template is parsed too, and kept only if putting the text's literals in place of
//! the template's parameters gives exactly the text's own parse (`Stmt` equality).
//! Later texts of the key skip the parser: the template is cloned and their literals
//! put in, as `Expr::Literal`s, never as parameters, so typing, coercibility and
//! result metadata are those of the literal.
//!
//! Why a checked first text stands for all of its key: the parser turns a literal
//! token into a value without looking at the value, except
//! - select-list names: an unaliased expression is named by its source text, which
//!   holds `?` in the template and the literal in a text, so they never match; a bare
//!   string literal is named by its value, so a select item that is a bare parameter
//!   is never cached;
//! - a minus before an integer folds into the literal for i64 values and 2^63 but not
//!   for other u64 values: the kind letters keep those apart (and a folded literal
//!   never matches the template's negation, so such a text is not cached);
//! - an integer in a window's PARTITION / ORDER BY is an error (any text of that kind
//!   fails to parse, so the key never gets a template);
//! - places that read the token itself (lengths, JSON paths, `DATE '…'`, aliases,
//!   charset introducers, `'a' 'b'`): `normalize` leaves those literals in the
//!   template, or the template fails to parse there.
//!
//! The parse depends on the text and sql_mode's reading flags (`LexMode`: ANSI_QUOTES,
//! PIPES_AS_CONCAT, NO_BACKSLASH_ESCAPES, REAL_AS_FLOAT), so the cache starts over when
//! the dictionary version, the current database or sql_mode change,
//! and on COM_RESET_CONNECTION. Limits: `digest::TEXT_BYTES_MAX` bytes of text, 64
//! literals, `TEMPLATES_MAX` entries and `KEY_BYTES_MAX` bytes of keys (the cache
//! starts over when full).

use std::collections::HashMap;
use std::sync::Arc;

use crate::ast::*;
use crate::lexer::LexMode;
use crate::parse::parse_one;
use crate::value::Value;

/// Templates a session remembers.
const TEMPLATES_MAX: usize = 256;
/// Bytes of keys a session remembers (the templates' trees are of the same order).
const KEY_BYTES_MAX: usize = 256 * 1024;

/// What the session knows of a key.
#[derive(Clone)]
pub enum Entry {
    /// The statement with parameters for the literals.
    Template(Arc<Stmt>),
    /// Texts of this key are parsed.
    Not,
}

/// What the entries were made under.
struct Stamp {
    version: u64,
    database: Option<String>,
    sql_mode: String,
}

/// The session's templates.
#[derive(Default)]
pub struct StmtCache {
    map: HashMap<String, Entry>,
    /// Sum of the keys' lengths.
    key_bytes: usize,
    stamp: Option<Stamp>,
}

impl StmtCache {
    /// Empties the cache unless its entries were made under this dictionary version,
    /// current database and sql_mode.
    pub fn validate(&mut self, version: u64, database: Option<&str>, sql_mode: &str) {
        let same = self.stamp.as_ref().is_some_and(|s| {
            s.version == version && s.database.as_deref() == database && s.sql_mode == sql_mode
        });
        if !same {
            self.map.clear();
            self.key_bytes = 0;
            self.stamp = Some(Stamp {
                version,
                database: database.map(str::to_string),
                sql_mode: sql_mode.to_string(),
            });
        }
    }

    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.map.get(key)
    }

    pub fn insert(&mut self, key: String, e: Entry) {
        if self.map.len() >= TEMPLATES_MAX || self.key_bytes + key.len() > KEY_BYTES_MAX {
            self.map.clear();
            self.key_bytes = 0;
        }
        // Only missing keys are inserted: no length is counted twice.
        self.key_bytes += key.len();
        self.map.insert(key, e);
    }

    pub fn clear(&mut self) {
        self.map.clear();
        self.key_bytes = 0;
        self.stamp = None;
    }
}

/// The entry a key gets from its first text: `text` is the text's parse, `template`
/// and `literals` its normalized form.
pub fn examine(text: &Stmt, template: &str, literals: &[Value], mode: LexMode) -> Entry {
    if !matches!(
        text,
        Stmt::Select(_) | Stmt::Insert(_) | Stmt::Update(_) | Stmt::Delete(_)
    ) {
        return Entry::Not;
    }
    let Ok(p) = parse_one(template, mode) else {
        return Entry::Not;
    };
    if p.param_count != literals.len() {
        return Entry::Not;
    }
    match instantiate(&p.stmt, literals) {
        Some(s) if s == *text => Entry::Template(Arc::new(p.stmt)),
        _ => Entry::Not,
    }
}

/// The template with `literals` in place of its parameters. None: a parameter the
/// literals do not cover, or a select item that is a bare parameter.
pub fn instantiate(template: &Stmt, literals: &[Value]) -> Option<Stmt> {
    let mut s = template.clone();
    let mut sub = Sub {
        lits: literals,
        ok: true,
    };
    match &mut s {
        Stmt::Select(sel) => sub.select(sel),
        Stmt::Insert(i) => {
            match &mut i.source {
                InsertSource::Values(rows) => {
                    for e in rows.iter_mut().flatten().flatten() {
                        sub.expr(e);
                    }
                }
                InsertSource::Select(sel) => sub.select(sel),
                InsertSource::Set(sets) => {
                    for e in sets.iter_mut().filter_map(|(_, e)| e.as_mut()) {
                        sub.expr(e);
                    }
                }
            }
            for (_, e) in &mut i.on_duplicate {
                sub.expr(e);
            }
        }
        Stmt::Update(u) => {
            u.tables.iter_mut().for_each(|f| sub.from(f));
            for e in u.sets.iter_mut().filter_map(|(_, _, e)| e.as_mut()) {
                sub.expr(e);
            }
            sub.opt(&mut u.filter);
            sub.order(&mut u.order_by);
            sub.opt(&mut u.limit);
        }
        Stmt::Delete(d) => {
            d.from.iter_mut().for_each(|f| sub.from(f));
            sub.opt(&mut d.filter);
            sub.order(&mut d.order_by);
            sub.opt(&mut d.limit);
        }
        _ => return None,
    }
    sub.ok.then_some(s)
}

/// The substitution walk: every expression of a statement, subqueries included.
struct Sub<'a> {
    lits: &'a [Value],
    ok: bool,
}

impl Sub<'_> {
    fn select(&mut self, s: &mut Select) {
        for item in &mut s.items {
            if matches!(item.expr, Expr::Param(_)) {
                self.ok = false;
            }
            self.expr(&mut item.expr);
        }
        s.from.iter_mut().for_each(|f| self.from(f));
        self.opt(&mut s.filter);
        s.group_by.iter_mut().for_each(|e| self.expr(e));
        self.opt(&mut s.having);
        self.order(&mut s.order_by);
        self.opt(&mut s.limit);
        self.opt(&mut s.offset);
        if let Some((_, next)) = &mut s.union {
            self.select(next);
        }
        self.order(&mut s.union_order);
        self.opt(&mut s.union_limit);
        self.opt(&mut s.union_offset);
        s.windows.iter_mut().for_each(|w| self.window(w));
    }

    fn window(&mut self, w: &mut WindowSpec) {
        w.partition_by.iter_mut().for_each(|e| self.expr(e));
        self.order(&mut w.order_by);
        if let Some(f) = &mut w.frame {
            for b in [&mut f.start, &mut f.end] {
                if let FrameBound::Preceding(e, _) | FrameBound::Following(e, _) = b {
                    self.expr(e);
                }
            }
        }
    }

    fn from(&mut self, f: &mut FromItem) {
        match f {
            FromItem::Table { .. } => {}
            FromItem::Derived { select, .. } => self.select(select),
            FromItem::Join {
                left, right, on, ..
            } => {
                self.from(left);
                self.from(right);
                self.opt(on);
            }
        }
    }

    fn order(&mut self, o: &mut [OrderItem]) {
        o.iter_mut().for_each(|i| self.expr(&mut i.expr));
    }

    fn opt(&mut self, e: &mut Option<Expr>) {
        if let Some(e) = e {
            self.expr(e);
        }
    }

    fn expr(&mut self, e: &mut Expr) {
        match e {
            Expr::Param(i) => match self.lits.get(*i) {
                Some(v) => *e = Expr::Literal(v.clone()),
                None => self.ok = false,
            },
            Expr::Literal(_)
            | Expr::SysVar { .. }
            | Expr::UserVar(_)
            | Expr::Column { .. }
            | Expr::Slot(_) => {}
            Expr::Unary { expr, .. }
            | Expr::IsNull { expr, .. }
            | Expr::IsBool { expr, .. }
            | Expr::Cast { expr, .. }
            | Expr::Assign { expr, .. }
            | Expr::Collate { expr, .. }
            | Expr::InColl { expr, .. }
            | Expr::EnumIndex { expr, .. } => self.expr(expr),
            Expr::Binary { left, right, .. } => {
                self.expr(left);
                self.expr(right);
            }
            Expr::Between {
                expr, low, high, ..
            } => {
                self.expr(expr);
                self.expr(low);
                self.expr(high);
            }
            Expr::InList { expr, list, .. } => {
                self.expr(expr);
                list.iter_mut().for_each(|x| self.expr(x));
            }
            Expr::Like {
                expr,
                pattern,
                escape,
                ..
            } => {
                self.expr(expr);
                self.expr(pattern);
                if let Some(x) = escape {
                    self.expr(x);
                }
            }
            Expr::Case {
                operand,
                whens,
                otherwise,
            } => {
                if let Some(o) = operand {
                    self.expr(o);
                }
                for (w, t) in whens {
                    self.expr(w);
                    self.expr(t);
                }
                if let Some(o) = otherwise {
                    self.expr(o);
                }
            }
            Expr::Func { args, .. } | Expr::Row(args) => {
                args.iter_mut().for_each(|x| self.expr(x));
            }
            Expr::Subquery(s) | Expr::Exists(s) => self.select(s),
            Expr::InSubquery { expr, select, .. } => {
                self.expr(expr);
                self.select(select);
            }
            Expr::Quantified(q) => {
                self.expr(&mut q.expr);
                self.select(&mut q.select);
            }
            Expr::Window(w) => {
                w.args.iter_mut().for_each(|x| self.expr(x));
                self.window(&mut w.over);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::normalize;

    /// The cached statement of `second`, after `first` made the template.
    fn cached(first: &str, second: &str) -> Option<Stmt> {
        let a = normalize(first, LexMode::default())?;
        let b = normalize(second, LexMode::default())?;
        assert_eq!(a.key, b.key, "{first} / {second}");
        let text = parse_one(first, LexMode::default()).ok()?.stmt;
        match examine(&text, a.template(), &a.literals, LexMode::default()) {
            Entry::Template(t) => instantiate(&t, &b.literals),
            Entry::Not => None,
        }
    }

    #[test]
    fn cached_equals_parsed() {
        for (a, b) in [
            (
                "SELECT c FROM t WHERE id BETWEEN 1 AND 100 ORDER BY c",
                "SELECT c FROM t WHERE id BETWEEN 77 AND 9 ORDER BY c",
            ),
            (
                "SELECT SUM(k) FROM t WHERE id BETWEEN 1 AND 5",
                "SELECT SUM(k) FROM t WHERE id BETWEEN 3 AND 4",
            ),
            (
                "INSERT INTO t (id, k, c) VALUES (1, 2, 'x'), (3, 4, 'y')",
                "INSERT INTO t (id, k, c) VALUES (5, 6, 'zz'), (7, 8, '')",
            ),
            (
                "UPDATE t SET k=k+1, c='a' WHERE id=5 ORDER BY id LIMIT 3",
                "UPDATE t SET k=k+1, c='bb' WHERE id=6 ORDER BY id LIMIT 4",
            ),
            (
                "DELETE FROM t WHERE id IN (1, 2) AND c LIKE 'a%'",
                "DELETE FROM t WHERE id IN (3, 4) AND c LIKE 'b%'",
            ),
            (
                "SELECT a FROM t ORDER BY 1 LIMIT 2, 3",
                "SELECT a FROM t ORDER BY 2 LIMIT 0, 1",
            ),
            (
                "SELECT a AS x FROM t WHERE a = (SELECT MAX(b) FROM u WHERE c = 'k')",
                "SELECT a AS x FROM t WHERE a = (SELECT MAX(b) FROM u WHERE c = 'm')",
            ),
        ] {
            let got = cached(a, b).unwrap_or_else(|| panic!("not cached: {a}"));
            assert_eq!(got, parse_one(b, LexMode::default()).unwrap().stmt, "{b}");
        }
    }

    #[test]
    fn not_cached() {
        for (a, b) in [
            // Names from the text or the value.
            ("SELECT a+1 FROM t", "SELECT a+2 FROM t"),
            ("SELECT 1", "SELECT 2"),
            ("SELECT a, 'x' FROM t", "SELECT a, 'y' FROM t"),
            ("SELECT 5 AS n", "SELECT 6 AS n"),
            // A folded minus.
            (
                "SELECT a FROM t WHERE a = -5",
                "SELECT a FROM t WHERE a = -6",
            ),
        ] {
            assert!(cached(a, b).is_none(), "{a}");
        }
        // Kinds apart: an integer and a string literal never share a key.
        let i = normalize("SELECT a FROM t LIMIT 5", LexMode::default()).unwrap();
        let s = normalize("SELECT a FROM t LIMIT '5'", LexMode::default()).unwrap();
        assert_ne!(i.key, s.key);
        let u = normalize(
            "SELECT a FROM t WHERE a = -9223372036854775808",
            LexMode::default(),
        )
        .unwrap();
        let v = normalize(
            "SELECT a FROM t WHERE a = -9223372036854775809",
            LexMode::default(),
        )
        .unwrap();
        assert_ne!(u.key, v.key);
    }

    #[test]
    fn template_keeps_the_text() {
        let n = normalize(
            "  UPDATE t SET c = 'x''y' , k=k+7 /* c */ WHERE id=3;",
            LexMode::default(),
        )
        .unwrap();
        assert_eq!(
            n.template(),
            "UPDATE t SET c = ? , k=k+? /* c */ WHERE id=?"
        );
        assert_eq!(
            n.literals,
            vec![Value::Str("x'y".into()), Value::Int(7), Value::Int(3)]
        );
        assert!(n.key.ends_with("\0sii"));
        assert!(n.digest.is_none());
        assert!(normalize("CREATE TABLE t (a INT)", LexMode::default()).is_none());
    }
}
