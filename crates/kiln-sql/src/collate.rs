//! The collation rules the executor applies to text: comparison, equality, and the
//! weight strings that index keys, GROUP BY and DISTINCT are built from. A column's
//! collation is resolved once (`Coll::of`) and then used per row without lookups.

use std::cmp::Ordering;

/// A resolved collation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Coll {
    /// Case- (and accent-) insensitive.
    ci: bool,
    /// Trailing spaces ignored in comparisons.
    pad_space: bool,
}

impl Coll {
    pub const BINARY: Coll = Coll {
        ci: false,
        pad_space: false,
    };
    /// utf8mb4_0900_ai_ci, the server default.
    pub const DEFAULT: Coll = Coll {
        ci: true,
        pad_space: false,
    };

    pub fn of(name: &str) -> Coll {
        let n = name.to_ascii_lowercase();
        let ci = n.ends_with("_ci");
        let pad_space = !(n.contains("0900") || n == "binary");
        Coll { ci, pad_space }
    }

    fn trim<'a>(&self, s: &'a [u8]) -> &'a [u8] {
        if self.pad_space {
            let end = s.iter().rposition(|&c| c != b' ').map_or(0, |e| e + 1);
            &s[..end]
        } else {
            s
        }
    }

    pub fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        let (a, b) = (self.trim(a), self.trim(b));
        if !self.ci {
            return a.cmp(b);
        }
        let fold = |c: &u8| c.to_ascii_uppercase();
        a.iter().map(fold).cmp(b.iter().map(fold))
    }

    pub fn eq(&self, a: &[u8], b: &[u8]) -> bool {
        self.compare(a, b) == Ordering::Equal
    }

    /// Appends the weight string of `s`: memcmp order of weight strings is `compare`.
    pub fn weights(&self, s: &[u8], out: &mut Vec<u8>) {
        let s = self.trim(s);
        if self.ci {
            out.extend(s.iter().map(u8::to_ascii_uppercase));
        } else {
            out.extend_from_slice(s);
        }
    }
}

/// ASCII case-insensitive equality (ENUM/SET member names, identifiers).
pub fn eq_ci(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}
