//! MySQL collations: how kiln compares, sorts, hashes, LIKE-matches and case-maps
//! strings, and the weight strings that index keys are built from. This module owns
//! every rule about string order; nothing else in kiln may compare string bytes
//! directly when a collation is in force.
//!
//! # API
//! ```text
//! pub struct Collation { pub name, pub id, pub charset, pub pad_space, pub is_default, .. }
//! pub fn by_name(name) -> Option<&'static Collation>     // case-insensitive; utf8_ = utf8mb3_
//! pub fn by_id(id) -> Option<&'static Collation>
//! pub fn default_for_charset(charset) -> Option<&'static Collation>
//! pub fn all() -> &'static [&'static Collation]
//! pub const UTF8MB4_0900_AI_CI, UTF8MB4_0900_BIN, UTF8MB4_GENERAL_CI, UTF8MB4_BIN,
//!           UTF8MB4_UNICODE_CI, UTF8MB3_GENERAL_CI, UTF8MB3_BIN, UTF8MB3_UNICODE_CI,
//!           LATIN1_SWEDISH_CI, LATIN1_BIN, ASCII_GENERAL_CI, ASCII_BIN, BINARY: &Collation
//! impl Collation {
//!   weights(s, out)            // append the weight string: memcmp order == compare()
//!   compare(a, b) -> Ordering  // allocation-free, ASCII fast path
//!   eq(a, b) -> bool; hash(s, state)          // hash is consistent with eq
//!   like(s, pattern, escape)   // escape None = '\' (MySQL's default); O(len*pattern)
//!   like_no_escape(s, pattern) // ESCAPE '' (no escape character)
//!   charset_kind() -> Charset; max_bytes_per_char(); char_len(s); prefix_bytes(s, n)
//!   to_upper(s) / to_lower(s)  // UPPER()/LOWER() in the collation's charset
//! }
//! pub enum Charset { Binary, Latin1, Ascii, Utf8mb3, Utf8mb4 } (+ by_name, name)
//! pub fn convert(from: Charset, to: Charset, bytes) -> (Vec<u8>, bool lossy)
//! ```
//! All inputs are raw bytes in the collation's charset. Nothing here panics on any
//! input: a byte that does not begin a valid character (invalid UTF-8, surrogates,
//! 4-byte sequences in utf8mb3) is one character of its own that sorts after every
//! valid character, bad bytes ordered by value.
//!
//! # Semantics (MySQL 8.0)
//! * `utf8mb4_0900_ai_ci` (255): UCA 9.0.0 DUCET primary weights only (accent- and
//!   case-insensitive), NO PAD ('a' < 'a '), expansions ('ß' = 'ss'), contractions
//!   (e.g. 'l' + U+00B7 = 'l'), Hangul syllables as jamo, implicit weights for Han and
//!   unassigned code points.
//! * `utf8mb4_unicode_ci` (224) / `utf8mb3_unicode_ci` (192): UCA 4.0.0 primary
//!   weights, PAD SPACE; characters above U+FFFF all weigh as U+FFFD.
//! * `utf8mb4_general_ci` (45) / `utf8mb3_general_ci` (33): one weight per character
//!   (upper-cased, Latin accents removed: 'é' = 'E', 'ß' = 's'), PAD SPACE, everything
//!   above U+FFFF equal to U+FFFD.
//! * `utf8mb4_bin` (46) / `utf8mb3_bin` (83): code point order, PAD SPACE;
//!   `utf8mb4_0900_bin` (309): code point order, NO PAD.
//! * `latin1_swedish_ci` (8): case-insensitive Swedish/Finnish byte weights (Å Ä Ö
//!   after Z, Ü = Y, É = E), PAD SPACE; `latin1_bin` (47) bytes, PAD SPACE.
//! * `ascii_general_ci` (11), `ascii_bin` (65): PAD SPACE; `binary` (63): bytes, NO PAD.
//!
//! PAD SPACE means two strings compare as if the shorter were padded with spaces, so
//! 'a' = 'a   ' and also 'a\t' < 'a' (tab weighs less than space) — MySQL's behaviour.
//!
//! # Weight strings
//! A weight string is a sequence of fixed-width big-endian *units* (1 byte for 8-bit
//! collations, 2 for UCA/general_ci, 3 for the code-point collations). NO PAD: the
//! units, nothing else. PAD SPACE: trailing spaces produce nothing; every other run of
//! k spaces (k >= 0) before a unit u is written so that memcmp gives the padded order:
//! u itself if k = 0 and u > space; else a marker unit 3 then `u32::MAX - k` then u when
//! u > space, or a marker unit 1 then k then u when u < space; and one final unit 2
//! marks the end (it sits between "something smaller than a space follows" and
//! "something larger follows"). Any byte may appear, including 0x00 (kiln-common's key
//! encoding escapes it). Equal strings give identical weight strings.
//!
//! For an index range scan of `LIKE 'p%'`, the weight string of p (less its final end
//! unit under PAD SPACE) is a prefix of the weight string of every string LIKE
//! matches — except when p ends in a 0900 contraction starter ('И%' matches 'И' +
//! U+0306, which weighs as 'Й'); callers must drop such a last character first.
//!
//! # What is exact and what is approximate
//! Weights are facts observed from a real server, MariaDB 10.11, recorded into
//! `tables.rs` by `gen_tables.py` (beside this file). To regenerate:
//! `apt-get install -y mariadb-server mariadb-client`, then
//! `mkdir /tmp/mdbc && mariadb-install-db --no-defaults --datadir=/tmp/mdbc --user=root`,
//! `mariadbd --no-defaults --datadir=/tmp/mdbc --socket=/tmp/mdbc.sock --port=3398
//! --user=root --skip-grant-tables &`, and `python3 gen_tables.py > tables.rs`.
//! * exact (MariaDB shares MySQL's implementation of these): utf8mb4/utf8mb3
//!   general_ci and unicode_ci weights for every code point, latin1_swedish_ci,
//!   ascii_general_ci, latin1 <-> Unicode mapping, latin1 UPPER()/LOWER(), and the
//!   binary/bin orders. A one-off differential run (6,000 random mixed-script string
//!   pairs; 3,000 latin1 pairs; 4,000 LIKE cases) agreed with the server in every case.
//! * utf8mb4_0900_ai_ci: primary weights observed from MariaDB's uca1400_ai_ci (DUCET
//!   14.0) for the code points that exist in Unicode 9.0 (per perl's Unicode::UCD
//!   ages); later additions get UCA 9.0 implicit weights, as they do in MySQL. The
//!   same differential run agreed on every pair made of Unicode 9.0 characters, and
//!   the tests pin the full order of ASCII, Latin-1 and Latin Extended-A. Known
//!   approximations: characters DUCET moved between 9.0 and 14.0 (rare) sort in their
//!   14.0 place; Hangul syllables are decomposed into jamo per UCA (MariaDB instead
//!   gives them implicit weights, so this part is unverified); the contraction list is
//!   DUCET 13.0's, restricted to Unicode 9.0 characters, with server-observed weights.
//! * UPPER()/LOWER() of utf8 strings use Rust's Unicode tables with simple
//!   (one-to-one) mappings; MySQL's general_ci tables are older (Unicode 3-5), so a few
//!   recently added case pairs differ.
//! * LIKE compares character by character (as MySQL does): no contractions or
//!   expansions across characters, so 'ß' LIKE 'ss' is false even where 'ß' = 'ss'.

mod charset;
#[rustfmt::skip]
mod tables;
#[cfg(test)]
mod tests;
mod uca;

use std::cmp::Ordering;
use std::hash::Hasher;

use charset::{Ch, decode};
pub use charset::{Charset, convert};
use uca::CharUnits;

/// Which weight rules a collation follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rules {
    /// Unit = byte (binary, latin1_bin, ascii_bin).
    Bytes,
    /// Unit = observed latin1_swedish_ci weight of the byte.
    Latin1Swedish,
    /// Unit = observed ascii_general_ci weight of the byte.
    AsciiGeneral,
    /// Unit = code point (utf8*_bin, utf8mb4_0900_bin).
    CodePoint,
    /// Unit = rank of the general_ci weight.
    General,
    /// UCA 4.0.0 primary weights (unicode_ci).
    Uca400,
    /// UCA 9.0.0 primary weights (0900_ai_ci).
    Uca900,
}

/// A MySQL collation: a charset plus the rules that order its strings.
#[derive(Debug)]
pub struct Collation {
    /// MySQL name, e.g. `utf8mb4_0900_ai_ci`.
    pub name: &'static str,
    /// MySQL collation id (as sent in the protocol's column definitions).
    pub id: u16,
    /// MySQL charset name (`utf8mb4`, `utf8mb3`, `latin1`, `ascii`, `binary`).
    pub charset: &'static str,
    /// PAD SPACE (true) or NO PAD (false).
    pub pad_space: bool,
    /// Whether this is the charset's default collation in MySQL 8.0.
    pub is_default: bool,
    cs: Charset,
    rules: Rules,
}

macro_rules! collation {
    ($name:expr, $id:expr, $cs:ident, $pad:expr, $default:expr, $rules:ident) => {
        &Collation {
            name: $name,
            id: $id,
            charset: Charset::$cs.name(),
            pad_space: $pad,
            is_default: $default,
            cs: Charset::$cs,
            rules: Rules::$rules,
        }
    };
}

pub const UTF8MB4_0900_AI_CI: &Collation =
    collation!("utf8mb4_0900_ai_ci", 255, Utf8mb4, false, true, Uca900);
pub const UTF8MB4_0900_BIN: &Collation =
    collation!("utf8mb4_0900_bin", 309, Utf8mb4, false, false, CodePoint);
pub const UTF8MB4_GENERAL_CI: &Collation =
    collation!("utf8mb4_general_ci", 45, Utf8mb4, true, false, General);
pub const UTF8MB4_BIN: &Collation = collation!("utf8mb4_bin", 46, Utf8mb4, true, false, CodePoint);
pub const UTF8MB4_UNICODE_CI: &Collation =
    collation!("utf8mb4_unicode_ci", 224, Utf8mb4, true, false, Uca400);
pub const UTF8MB3_GENERAL_CI: &Collation =
    collation!("utf8mb3_general_ci", 33, Utf8mb3, true, true, General);
pub const UTF8MB3_BIN: &Collation = collation!("utf8mb3_bin", 83, Utf8mb3, true, false, CodePoint);
pub const UTF8MB3_UNICODE_CI: &Collation =
    collation!("utf8mb3_unicode_ci", 192, Utf8mb3, true, false, Uca400);
pub const LATIN1_SWEDISH_CI: &Collation =
    collation!("latin1_swedish_ci", 8, Latin1, true, true, Latin1Swedish);
pub const LATIN1_BIN: &Collation = collation!("latin1_bin", 47, Latin1, true, false, Bytes);
pub const ASCII_GENERAL_CI: &Collation =
    collation!("ascii_general_ci", 11, Ascii, true, true, AsciiGeneral);
pub const ASCII_BIN: &Collation = collation!("ascii_bin", 65, Ascii, true, false, Bytes);
pub const BINARY: &Collation = collation!("binary", 63, Binary, false, true, Bytes);

static ALL: [&Collation; 13] = [
    UTF8MB4_0900_AI_CI,
    UTF8MB4_0900_BIN,
    UTF8MB4_GENERAL_CI,
    UTF8MB4_BIN,
    UTF8MB4_UNICODE_CI,
    UTF8MB3_GENERAL_CI,
    UTF8MB3_BIN,
    UTF8MB3_UNICODE_CI,
    LATIN1_SWEDISH_CI,
    LATIN1_BIN,
    ASCII_GENERAL_CI,
    ASCII_BIN,
    BINARY,
];

/// Every collation kiln supports.
pub fn all() -> &'static [&'static Collation] {
    &ALL
}

/// Looks a collation up by name, case-insensitively; `utf8_...` names mean
/// `utf8mb3_...`, as in MySQL 8.0.
pub fn by_name(name: &str) -> Option<&'static Collation> {
    let mut n = name.to_ascii_lowercase();
    if let Some(rest) = n.strip_prefix("utf8_") {
        n = format!("utf8mb3_{rest}");
    }
    ALL.iter().copied().find(|c| c.name == n)
}

/// Looks a collation up by its MySQL id.
pub fn by_id(id: u16) -> Option<&'static Collation> {
    ALL.iter().copied().find(|c| c.id == id)
}

/// The default collation of a charset (MySQL 8.0 defaults), by charset name.
pub fn default_for_charset(charset: &str) -> Option<&'static Collation> {
    let cs = Charset::by_name(charset)?;
    ALL.iter().copied().find(|c| c.cs == cs && c.is_default)
}

// PAD SPACE marker units (see "Weight strings" above). Every pad unit is larger than
// MARK_ABOVE, so a unit written directly (k = 0, u > space) sorts after all markers.
const MARK_BELOW: u32 = 1;
const MARK_END: u32 = 2;
const MARK_ABOVE: u32 = 3;

/// First unit of an invalid byte in the UCA collations: above every primary weight
/// (the largest, U+FFFD's, is 0xFFFD).
const UCA_BAD: u32 = 0xFFFE;

impl Collation {
    /// The charset as an enum.
    pub fn charset_kind(&self) -> Charset {
        self.cs
    }

    /// Longest encoding of one character in this collation's charset.
    pub fn max_bytes_per_char(&self) -> usize {
        self.cs.max_bytes_per_char()
    }

    /// Number of characters in `s` (each invalid byte counts as one).
    pub fn char_len(&self, s: &[u8]) -> usize {
        if self.cs.max_bytes_per_char() == 1 {
            return s.len();
        }
        let mut n = 0;
        let mut rest = s;
        while !rest.is_empty() {
            let (_, len) = decode(self.cs, rest);
            rest = &rest[len..];
            n += 1;
        }
        n
    }

    /// Byte length of the first `chars` characters of `s` (all of `s` if shorter), for
    /// CHAR(n) truncation and prefix indexes.
    pub fn prefix_bytes(&self, s: &[u8], chars: usize) -> usize {
        if self.cs.max_bytes_per_char() == 1 {
            return s.len().min(chars);
        }
        let mut pos = 0;
        for _ in 0..chars {
            if pos >= s.len() {
                break;
            }
            pos += decode(self.cs, &s[pos..]).1;
        }
        pos
    }

    /// UPPER(s) in this collation's charset.
    pub fn to_upper(&self, s: &[u8]) -> Vec<u8> {
        charset::change_case(self.cs, s, true, self.rules != Rules::Uca900)
    }

    /// LOWER(s) in this collation's charset.
    pub fn to_lower(&self, s: &[u8]) -> Vec<u8> {
        charset::change_case(self.cs, s, false, self.rules != Rules::Uca900)
    }

    /// Width of one weight unit in bytes.
    fn unit_width(&self) -> usize {
        match self.rules {
            Rules::Bytes | Rules::Latin1Swedish | Rules::AsciiGeneral => 1,
            Rules::General | Rules::Uca400 | Rules::Uca900 => 2,
            Rules::CodePoint => 3,
        }
    }

    /// The unit of a space: what PAD SPACE pads with.
    fn pad_unit(&self) -> u32 {
        let u = match self.rules {
            Rules::Bytes | Rules::CodePoint => 0x20,
            Rules::Latin1Swedish => u32::from(tables::LATIN1_SWEDISH_CI[0x20]),
            Rules::AsciiGeneral => u32::from(tables::ASCII_GENERAL_CI[0x20]),
            Rules::General => u32::from(tables::GENERAL_SPACE),
            Rules::Uca400 => u32::from(tables::UCA400_SPACE),
            Rules::Uca900 => u32::from(tables::UCA900_ASCII[0x20]),
        };
        debug_assert!(u > MARK_ABOVE, "markers must sort below the pad unit");
        u
    }

    /// The single unit of byte `b` when `b` alone is a character that has exactly one
    /// unit and starts no contraction; None sends the caller to the general path.
    #[inline]
    fn fast_unit(&self, b: u8) -> Option<u32> {
        let ascii = |t: &[u16; 128]| match t.get(usize::from(b)) {
            None | Some(0xFFFF) => None,
            Some(&u) => Some(u32::from(u)),
        };
        match self.rules {
            Rules::Bytes => Some(u32::from(b)),
            Rules::Latin1Swedish => Some(u32::from(tables::LATIN1_SWEDISH_CI[usize::from(b)])),
            Rules::AsciiGeneral => Some(u32::from(tables::ASCII_GENERAL_CI[usize::from(b)])),
            Rules::CodePoint => (b < 0x80).then_some(u32::from(b)),
            Rules::General => ascii(&tables::GENERAL_ASCII),
            Rules::Uca400 => ascii(&tables::UCA400_ASCII),
            Rules::Uca900 => ascii(&tables::UCA900_ASCII),
        }
    }

    /// `fast_unit` for the character at `s[i]`, also taking the 0900 contraction
    /// starters 'L' and 'l' when an ASCII byte or the end follows: contractions never
    /// continue with ASCII (asserted by gen_tables.py), so they stand alone there.
    #[inline]
    fn fast_unit_at(&self, s: &[u8], i: usize) -> Option<u32> {
        let b = *s.get(i)?;
        self.fast_unit(b).or_else(|| {
            let alone = b < 0x80 && s.get(i + 1).is_none_or(|&n| n < 0x80);
            if self.rules != Rules::Uca900 || !alone || !uca::starts_contraction(u32::from(b)) {
                return None;
            }
            let mut one = CharUnits::EMPTY;
            (uca::UCA900.lookup(u32::from(b), &mut one) && one.n == 1).then_some(one.u[0])
        })
    }

    /// Reads the first character of non-empty `s` into `out` (cleared first) and
    /// returns its byte length (>= 1). `contractions` lets a 0900 contraction consume
    /// the characters after the first (LIKE works per character and passes false).
    fn char_units(&self, s: &[u8], contractions: bool, out: &mut CharUnits) -> usize {
        *out = CharUnits::EMPTY;
        if let Some(u) = self.fast_unit_at(s, 0) {
            out.push(u);
            return 1;
        }
        if s.is_empty() {
            return 0;
        }
        let (ch, n) = decode(self.cs, s);
        let cp = match ch {
            Ch::Cp(cp) => cp,
            Ch::Bad(b) => {
                let b = u32::from(b);
                match self.rules {
                    Rules::CodePoint => out.push(0x11_0000 + b),
                    Rules::General => out.push(u32::from(tables::GENERAL_MAX) + 1 + b),
                    // single-byte rules never see bad bytes: decode accepts every byte
                    _ => {
                        out.push(UCA_BAD);
                        out.push(b);
                    }
                }
                return n;
            }
        };
        match self.rules {
            Rules::Bytes => out.push(cp),
            Rules::Latin1Swedish => {
                out.push(u32::from(tables::LATIN1_SWEDISH_CI[(cp & 0xFF) as usize]))
            }
            Rules::AsciiGeneral => {
                out.push(u32::from(tables::ASCII_GENERAL_CI[(cp & 0xFF) as usize]))
            }
            Rules::CodePoint => out.push(cp),
            Rules::General => {
                if cp > 0xFFFF || !uca::GENERAL.lookup(cp, out) {
                    out.push(u32::from(tables::GENERAL_SUPPLEMENTARY));
                }
            }
            Rules::Uca400 => {
                if cp > 0xFFFF {
                    out.push(0xFFFD);
                } else if !uca::UCA400.lookup(cp, out) {
                    uca::implicit_400(cp, out);
                }
            }
            Rules::Uca900 => {
                if contractions && uca::starts_contraction(cp) {
                    let mut next = [None, None];
                    let mut ends = [n, n];
                    let mut pos = n;
                    for j in 0..2 {
                        if pos >= s.len() {
                            break;
                        }
                        let (c, len) = decode(self.cs, &s[pos..]);
                        let Ch::Cp(c) = c else { break };
                        next[j] = Some(c);
                        pos += len;
                        ends[j] = pos;
                    }
                    if let Some((w, k)) = uca::contraction(cp, next) {
                        for &u in w {
                            out.push(u32::from(u));
                        }
                        return ends[k.clamp(1, 2) - 1];
                    }
                }
                uca::units_900(cp, out);
            }
        }
        n
    }

    fn units<'a>(&'a self, s: &'a [u8]) -> Units<'a> {
        Units {
            c: self,
            s,
            buf: CharUnits::EMPTY,
            bi: 0,
        }
    }

    /// Compares two strings of this collation's charset.
    pub fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        // Fast path: walk both strings while each side's next byte is a whole
        // character with a single unit (plain ASCII in the Unicode collations, every
        // byte in the 8-bit ones). Both sides then stay on character boundaries.
        let n = a.len().min(b.len());
        let mut i = 0;
        while i < n {
            match (self.fast_unit_at(a, i), self.fast_unit_at(b, i)) {
                (Some(x), Some(y)) if x == y => i += 1,
                // both are next in their unit streams: the first difference decides
                (Some(x), Some(y)) => return x.cmp(&y),
                _ => break,
            }
        }
        if i == a.len() && i == b.len() {
            return Ordering::Equal;
        }
        self.cmp_units(self.units(&a[i..]), self.units(&b[i..]))
    }

    fn cmp_units(&self, mut x: Units<'_>, mut y: Units<'_>) -> Ordering {
        loop {
            match (x.next(), y.next()) {
                (Some(p), Some(q)) if p == q => {}
                (Some(p), Some(q)) => return p.cmp(&q),
                (None, None) => return Ordering::Equal,
                (Some(_), None) if !self.pad_space => return Ordering::Greater,
                (None, Some(_)) if !self.pad_space => return Ordering::Less,
                // PAD SPACE: the shorter side continues as spaces; the first non-space
                // unit of the longer side decides.
                (Some(p), None) => return self.vs_padding(p, x),
                (None, Some(q)) => return self.vs_padding(q, y).reverse(),
            }
        }
    }

    /// Order of a string's tail (`first` then `rest`) against endless spaces.
    fn vs_padding(&self, first: u32, rest: Units<'_>) -> Ordering {
        let sp = self.pad_unit();
        std::iter::once(first)
            .chain(rest)
            .find(|&u| u != sp)
            .map_or(Ordering::Equal, |u| u.cmp(&sp))
    }

    /// Whether `a` and `b` are equal under this collation.
    pub fn eq(&self, a: &[u8], b: &[u8]) -> bool {
        a == b || self.compare(a, b) == Ordering::Equal
    }

    /// Appends the weight string of `s` to `out` (format in the module header):
    /// memcmp of two weight strings orders them exactly as `compare`.
    pub fn weights(&self, s: &[u8], out: &mut Vec<u8>) {
        self.encode(s, &mut |b| out.extend_from_slice(b));
    }

    /// Feeds `s` to `state` so that `eq(a, b)` implies equal hashes (used by GROUP BY,
    /// DISTINCT and hash joins). It hashes the weight string, written in the same
    /// pieces for equal strings, so even chunk-sensitive hashers agree.
    pub fn hash<H: Hasher>(&self, s: &[u8], state: &mut H) {
        // Units are 1-4 bytes: gather them and hand the hasher large slices (a hasher
        // call per unit cost more than the weights themselves).
        let mut buf = [0u8; 256];
        let mut len = 0;
        self.encode(s, &mut |b| {
            if len + b.len() > buf.len() {
                state.write(&buf[..len]);
                len = 0;
            }
            buf[len..len + b.len()].copy_from_slice(b);
            len += b.len();
        });
        state.write(&buf[..len]);
        // terminator, so (a, b) tuples hash differently from (a', b') regroupings
        state.write_u8(0xFF);
    }

    fn encode<F: FnMut(&[u8])>(&self, s: &[u8], sink: &mut F) {
        let w = self.unit_width();
        let put = |u: u32, sink: &mut F| {
            debug_assert!(w == 4 || u >> (8 * w) == 0, "unit wider than its width");
            sink(&u.to_be_bytes()[4 - w..]);
        };
        if !self.pad_space {
            // binary: the weight string is the bytes themselves
            if self.rules == Rules::Bytes {
                sink(s);
                return;
            }
            for u in self.units(s) {
                put(u, sink);
            }
            return;
        }
        let sp = self.pad_unit();
        let mut spaces: u32 = 0;
        for u in self.units(s) {
            if u == sp {
                spaces = spaces.saturating_add(1);
                continue;
            }
            if spaces == 0 && u > sp {
                put(u, sink);
            } else if u > sp {
                // more spaces before a larger unit = smaller
                put(MARK_ABOVE, sink);
                sink(&(u32::MAX - spaces).to_be_bytes());
                put(u, sink);
            } else {
                // more spaces before a smaller unit = larger
                put(MARK_BELOW, sink);
                sink(&spaces.to_be_bytes());
                put(u, sink);
            }
            spaces = 0;
        }
        put(MARK_END, sink);
    }

    /// `s LIKE pattern` under this collation, with `escape` (None = MySQL's default
    /// `\`). `%` matches any run of characters, `_` exactly one character; characters
    /// compare equal when their weights are equal. Runs in O(len(s) * len(pattern)).
    pub fn like(&self, s: &[u8], pattern: &[u8], escape: Option<char>) -> bool {
        self.like_impl(s, pattern, Some(escape.unwrap_or('\\')))
    }

    /// `s LIKE pattern ESCAPE ''`: no escape character.
    pub fn like_no_escape(&self, s: &[u8], pattern: &[u8]) -> bool {
        self.like_impl(s, pattern, None)
    }

    fn like_impl(&self, s: &[u8], pattern: &[u8], escape: Option<char>) -> bool {
        // the escape character as this charset encodes it
        let esc: Option<u32> = escape.and_then(|c| match self.cs {
            Charset::Latin1 => charset::unicode_to_latin1(u32::from(c)).map(u32::from),
            Charset::Binary | Charset::Ascii => u8::try_from(c).ok().map(u32::from),
            Charset::Utf8mb3 | Charset::Utf8mb4 => Some(u32::from(c)),
        });
        let (s_units, s_offs) = self.split_chars(s);
        // pattern tokens: ANY (%), ONE (_) or a literal's index into p_offs
        const ANY: usize = usize::MAX;
        const ONE: usize = usize::MAX - 1;
        let mut p_units = Vec::new();
        let mut p_offs = vec![0usize];
        let mut toks: Vec<usize> = Vec::new();
        let mut buf = CharUnits::EMPTY;
        let mut rest = pattern;
        while !rest.is_empty() {
            let (ch, n) = decode(self.cs, rest);
            let tok = match ch {
                Ch::Cp(0x25) => ANY,
                Ch::Cp(0x5F) => ONE,
                _ => {
                    let mut lit = rest;
                    if ch == Ch::Cp(esc.unwrap_or(u32::MAX)) && rest.len() > n {
                        // escaped: the next character is literal (a trailing escape
                        // character is itself literal, as in MySQL)
                        lit = &rest[n..];
                    }
                    let used = self.char_units(lit, false, &mut buf);
                    p_units.extend_from_slice(buf.as_slice());
                    p_offs.push(p_units.len());
                    rest = &lit[used..];
                    toks.push(p_offs.len() - 2);
                    continue;
                }
            };
            rest = &rest[n..];
            if !(tok == ANY && toks.last() == Some(&ANY)) {
                toks.push(tok);
            }
        }
        let s_char = |i: usize| &s_units[s_offs[i]..s_offs[i + 1]];
        let p_char = |k: usize| &p_units[p_offs[k]..p_offs[k + 1]];
        let n = s_offs.len() - 1;
        // Greedy matching that backtracks only to the latest '%': enough for % and _
        // patterns, and O(n * m) at worst, never exponential.
        let (mut si, mut pi) = (0usize, 0usize);
        let mut star: Option<(usize, usize)> = None;
        while si < n {
            match toks.get(pi) {
                Some(&ANY) => {
                    star = Some((pi, si));
                    pi += 1;
                    continue;
                }
                Some(&ONE) => {
                    si += 1;
                    pi += 1;
                    continue;
                }
                Some(&k) if p_char(k) == s_char(si) => {
                    si += 1;
                    pi += 1;
                    continue;
                }
                _ => {}
            }
            match star {
                Some((sp, ss)) => {
                    pi = sp + 1;
                    si = ss + 1;
                    star = Some((sp, ss + 1));
                }
                None => return false,
            }
        }
        toks[pi.min(toks.len())..].iter().all(|&t| t == ANY)
    }

    /// Units of each character of `s` (no contractions): flat units + offsets.
    fn split_chars(&self, s: &[u8]) -> (Vec<u32>, Vec<usize>) {
        let mut units = Vec::with_capacity(s.len());
        let mut offs = Vec::with_capacity(s.len() + 1);
        offs.push(0);
        let mut buf = CharUnits::EMPTY;
        let mut rest = s;
        while !rest.is_empty() {
            let used = self.char_units(rest, false, &mut buf);
            units.extend_from_slice(buf.as_slice());
            offs.push(units.len());
            rest = &rest[used.max(1)..];
        }
        (units, offs)
    }
}

/// The unit stream of a string.
struct Units<'a> {
    c: &'a Collation,
    s: &'a [u8],
    buf: CharUnits,
    bi: usize,
}

impl Iterator for Units<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        loop {
            if self.bi < self.buf.n {
                let u = self.buf.u[self.bi];
                self.bi += 1;
                return Some(u);
            }
            if self.s.is_empty() {
                return None;
            }
            // Fast path: a byte that is a whole single-unit character (plain ASCII in
            // the Unicode collations) needs no trip through the unit buffer.
            if let Some(u) = self.c.fast_unit_at(self.s, 0) {
                self.s = &self.s[1..];
                return Some(u);
            }
            let used = self.c.char_units(self.s, true, &mut self.buf);
            // char_units always consumes >= 1 byte of a non-empty string
            self.s = &self.s[used.clamp(1, self.s.len())..];
            self.bi = 0;
        }
    }
}
