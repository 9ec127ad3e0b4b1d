//! The collation rules the executor applies to text, resolved once per column
//! (`Coll::of`) and then used per row without lookups: comparison, equality and the
//! weight strings index keys, GROUP BY and DISTINCT are built from. The rules
//! themselves live in kiln-types (`kiln_types::collation`).

use std::cmp::Ordering;

use kiln_types::collation::{self, Collation};

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

    pub fn rules(&self) -> &'static Collation {
        self.0
    }

    pub fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        self.0.compare(a, b)
    }

    pub fn eq(&self, a: &[u8], b: &[u8]) -> bool {
        self.0.eq(a, b)
    }

    /// Appends the weight string of `s`: memcmp order of weight strings is `compare`.
    pub fn weights(&self, s: &[u8], out: &mut Vec<u8>) {
        self.0.weights(s, out)
    }
}

/// ASCII case-insensitive equality (ENUM/SET member names, identifiers).
pub fn eq_ci(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}
