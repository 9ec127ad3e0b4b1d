//! Character sets and collations kiln knows by name and id: what SHOW CHARACTER SET /
//! SHOW COLLATION list and what `character_set_*` / `collation_*` variables accept.
//! (Comparison rules live with the types; this is the catalogue.)

/// A character set: name, description, default collation, maximum bytes per character.
pub struct Charset {
    pub name: &'static str,
    pub description: &'static str,
    pub default_collation: &'static str,
    pub max_len_bytes: u64,
}

/// A collation: name, its character set, id (the number on the wire), whether it is
/// the character set's default, and whether it pads with spaces (PAD SPACE).
pub struct Collation {
    pub name: &'static str,
    pub charset: &'static str,
    pub id: u64,
    pub is_default: bool,
    pub pad_space: bool,
}

const fn cs(
    name: &'static str,
    description: &'static str,
    default_collation: &'static str,
    max_len_bytes: u64,
) -> Charset {
    Charset {
        name,
        description,
        default_collation,
        max_len_bytes,
    }
}

const fn co(
    name: &'static str,
    charset: &'static str,
    id: u64,
    is_default: bool,
    pad_space: bool,
) -> Collation {
    Collation {
        name,
        charset,
        id,
        is_default,
        pad_space,
    }
}

/// Sorted by name.
pub const CHARSETS: &[Charset] = &[
    cs("ascii", "US ASCII", "ascii_general_ci", 1),
    cs("binary", "Binary pseudo charset", "binary", 1),
    cs("latin1", "cp1252 West European", "latin1_swedish_ci", 1),
    cs("utf8mb3", "UTF-8 Unicode", "utf8mb3_general_ci", 3),
    cs("utf8mb4", "UTF-8 Unicode", "utf8mb4_0900_ai_ci", 4),
];

/// Sorted by name.
pub const COLLATIONS: &[Collation] = &[
    co("ascii_bin", "ascii", 65, false, true),
    co("ascii_general_ci", "ascii", 11, true, true),
    co("binary", "binary", 63, true, false),
    co("latin1_bin", "latin1", 47, false, true),
    co("latin1_general_ci", "latin1", 48, false, true),
    co("latin1_swedish_ci", "latin1", 8, true, true),
    co("utf8mb3_bin", "utf8mb3", 83, false, true),
    co("utf8mb3_general_ci", "utf8mb3", 33, true, true),
    co("utf8mb3_unicode_ci", "utf8mb3", 192, false, true),
    co("utf8mb4_0900_ai_ci", "utf8mb4", 255, true, false),
    co("utf8mb4_0900_as_cs", "utf8mb4", 278, false, false),
    co("utf8mb4_0900_bin", "utf8mb4", 309, false, false),
    co("utf8mb4_bin", "utf8mb4", 46, false, true),
    co("utf8mb4_general_ci", "utf8mb4", 45, false, true),
    co("utf8mb4_unicode_ci", "utf8mb4", 224, false, true),
];

/// A character set by name, case-insensitively; `utf8` is MySQL 8.0's alias of `utf8mb3`.
pub fn charset(name: &str) -> Option<&'static Charset> {
    let name = if name.eq_ignore_ascii_case("utf8") {
        "utf8mb3"
    } else {
        name
    };
    CHARSETS.iter().find(|c| c.name.eq_ignore_ascii_case(name))
}

/// A collation by name, case-insensitively (`utf8_…` names mean `utf8mb3_…`).
pub fn collation(name: &str) -> Option<&'static Collation> {
    let lower = name.to_ascii_lowercase();
    let name = match lower.strip_prefix("utf8_") {
        Some(rest) => format!("utf8mb3_{rest}"),
        None => lower,
    };
    COLLATIONS.iter().find(|c| c.name == name)
}

pub fn collation_by_id(id: u64) -> Option<&'static Collation> {
    COLLATIONS.iter().find(|c| c.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted_and_consistent() {
        assert!(CHARSETS.windows(2).all(|w| w[0].name < w[1].name));
        assert!(COLLATIONS.windows(2).all(|w| w[0].name < w[1].name));
        for c in CHARSETS {
            let d = collation(c.default_collation).unwrap();
            assert!(d.is_default && d.charset == c.name, "{}", c.name);
        }
        for co in COLLATIONS {
            assert!(charset(co.charset).is_some());
            assert!(co.name.starts_with(co.charset));
        }
    }

    #[test]
    fn lookups() {
        assert_eq!(charset("UTF8").unwrap().name, "utf8mb3");
        assert_eq!(
            collation("UTF8_GENERAL_CI").unwrap().name,
            "utf8mb3_general_ci"
        );
        assert_eq!(collation_by_id(255).unwrap().name, "utf8mb4_0900_ai_ci");
        assert!(charset("klingon").is_none());
    }
}
