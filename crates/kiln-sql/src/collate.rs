//! The collation rules the executor applies to text, resolved once per column
//! (`Coll::of`) and then used per row without lookups: comparison, equality, hashing,
//! LIKE and the weight strings index keys, GROUP BY and DISTINCT are built from. The
//! rules themselves live in kiln-types (`kiln_types::collation`).
//!
//! Character values are held in memory as UTF-8 whatever their column's charset (a
//! latin1 column's 'Ä' is the two bytes C3 84 in a `Value::Str`), so every method here
//! takes that in-memory text: for an 8-bit charset (latin1, ascii) it converts to the
//! charset's bytes first, so that latin1_swedish_ci orders 'Ä' as the byte C4. Binary
//! strings (`Value::Bytes`) are taken as they are.

use std::cmp::Ordering;
use std::hash::Hasher;

use kiln_types::collation::{self, Charset, Collation};

/// A resolved collation.
#[derive(Debug, Clone, Copy)]
pub struct Coll(&'static Collation);

impl PartialEq for Coll {
    fn eq(&self, other: &Coll) -> bool {
        self.0.id == other.0.id
    }
}

impl Eq for Coll {}

impl Coll {
    pub const BINARY: Coll = Coll(collation::BINARY);
    /// utf8mb4_0900_ai_ci, the server default.
    pub const DEFAULT: Coll = Coll(collation::UTF8MB4_0900_AI_CI);

    /// The collation named `name` (unknown names, which DDL refuses, fall back to the
    /// default).
    pub fn of(name: &str) -> Coll {
        Coll(collation::by_name(name).unwrap_or(collation::UTF8MB4_0900_AI_CI))
    }

    /// The collation named `name`, if kiln has it.
    pub fn by_name(name: &str) -> Option<Coll> {
        collation::by_name(name).map(Coll)
    }

    /// The default collation of the charset named `charset`.
    pub fn default_for(charset: &str) -> Option<Coll> {
        let cs = Charset::by_name(charset)?;
        collation::default_for_charset(cs.name()).map(Coll)
    }

    pub fn rules(&self) -> &'static Collation {
        self.0
    }

    pub fn name(&self) -> &'static str {
        self.0.name
    }

    pub fn charset(&self) -> Charset {
        self.0.charset_kind()
    }

    /// Whether the collation is the charset's binary one (`_bin`, `binary`).
    pub fn is_bin(&self) -> bool {
        self.0.name == "binary" || self.0.name.ends_with("_bin")
    }

    /// Whether the charset is Unicode (utf8mb3 / utf8mb4).
    pub fn is_unicode(&self) -> bool {
        matches!(self.charset(), Charset::Utf8mb3 | Charset::Utf8mb4)
    }

    /// In-memory text in this collation's charset: None when no conversion is needed.
    fn narrowed(&self, s: &[u8]) -> Option<Vec<u8>> {
        match self.charset() {
            Charset::Latin1 | Charset::Ascii if !s.is_ascii() => {
                Some(collation::convert(Charset::Utf8mb4, self.charset(), s).0)
            }
            _ => None,
        }
    }

    /// `s` (in-memory text) encoded in this collation's charset, as LENGTH() and HEX()
    /// see it.
    pub fn encode<'a>(&self, s: &'a [u8]) -> std::borrow::Cow<'a, [u8]> {
        match self.narrowed(s) {
            Some(v) => std::borrow::Cow::Owned(v),
            None => std::borrow::Cow::Borrowed(s),
        }
    }

    pub fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        match (self.narrowed(a), self.narrowed(b)) {
            (None, None) => self.0.compare(a, b),
            (x, y) => self
                .0
                .compare(x.as_deref().unwrap_or(a), y.as_deref().unwrap_or(b)),
        }
    }

    pub fn eq(&self, a: &[u8], b: &[u8]) -> bool {
        match (self.narrowed(a), self.narrowed(b)) {
            (None, None) => self.0.eq(a, b),
            (x, y) => self
                .0
                .eq(x.as_deref().unwrap_or(a), y.as_deref().unwrap_or(b)),
        }
    }

    /// Hashes `s` consistently with `eq`.
    pub fn hash<H: Hasher>(&self, s: &[u8], state: &mut H) {
        match self.narrowed(s) {
            Some(v) => self.0.hash(&v, state),
            None => self.0.hash(s, state),
        }
    }

    /// Appends the weight string of `s`: memcmp order of weight strings is `compare`.
    pub fn weights(&self, s: &[u8], out: &mut Vec<u8>) {
        match self.narrowed(s) {
            Some(v) => self.0.weights(&v, out),
            None => self.0.weights(s, out),
        }
    }

    /// `s LIKE pattern` under this collation (`escape` None: no escape character).
    pub fn like(&self, s: &[u8], pattern: &[u8], escape: Option<char>) -> bool {
        let (x, y) = (self.narrowed(s), self.narrowed(pattern));
        let (s, p) = (x.as_deref().unwrap_or(s), y.as_deref().unwrap_or(pattern));
        match escape {
            Some(e) => self.0.like(s, p, Some(e)),
            None => self.0.like_no_escape(s, p),
        }
    }
}

/// Text a column of collation `coll` cannot hold as it is (see `unrepresentable`).
pub struct Unrepresentable {
    /// The bytes from the first such character on, as MySQL's 1366 shows them
    /// (`\xE6\x97\xA5...`: six bytes at most).
    pub shown: String,
    /// The text with each such character replaced by '?'.
    pub replaced: String,
}

/// Whether `s` (UTF-8) has characters `coll`'s charset lacks (non-Latin-1 ones in
/// latin1, non-ASCII ones in ascii, supplementary ones in utf8mb3); None if not.
pub fn unrepresentable(coll: Coll, s: &str) -> Option<Unrepresentable> {
    let cs = coll.charset();
    if matches!(cs, Charset::Utf8mb4 | Charset::Binary) {
        return None;
    }
    let (narrow, lossy) = collation::convert(Charset::Utf8mb4, cs, s.as_bytes());
    if !lossy {
        return None;
    }
    let fits = |c: char| {
        let mut b = [0u8; 4];
        !collation::convert(Charset::Utf8mb4, cs, c.encode_utf8(&mut b).as_bytes()).1
    };
    let at = s
        .char_indices()
        .find(|&(_, c)| !fits(c))
        .map_or(0, |(i, _)| i);
    let rest = &s.as_bytes()[at..];
    let mut shown: String = rest.iter().take(6).map(|b| format!("\\x{b:02X}")).collect();
    if rest.len() > 6 {
        shown.push_str("...");
    }
    let replaced =
        String::from_utf8(collation::convert(cs, Charset::Utf8mb4, &narrow).0).unwrap_or_default();
    Some(Unrepresentable { shown, replaced })
}

/// ASCII case-insensitive equality (ENUM/SET member names, identifiers).
pub fn eq_ci(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}
