//! key_len: the bytes MySQL's EXPLAIN reports for the key parts an access path uses
//! (`key_part_len`): each part at its size in MySQL's key format (integers and
//! temporals at their storage size, DECIMAL packed, strings at their maximum byte
//! length in the column's character set, plus 2 length bytes for variable-length ones),
//! plus one byte for a nullable column. Used by explain.rs.

use crate::dict::{ColumnDef, IndexPart};
use crate::types::{IntKind, SqlType};

/// Bytes of a collation's widest character (1 for binary strings).
fn mb_max_len(collation: &str) -> u32 {
    crate::charset::collation(collation)
        .and_then(|c| crate::charset::charset(c.charset))
        .map_or(4, |c| c.max_len_bytes as u32)
}

/// The key_len MySQL reports for one key part: the part's bytes in MySQL's key
/// format (integers and temporals at their storage size, DECIMAL packed, strings at
/// their maximum byte length with 2 length bytes for variable-length ones), plus one
/// for a nullable column.
pub fn key_part_len(col: &ColumnDef, part: &IndexPart) -> u32 {
    let fsp_bytes = |fsp: u32| fsp.div_ceil(2);
    let chars = |len: u32| part.prefix_chars.map_or(len, |p| p.min(len));
    let bytes = match &col.ty {
        SqlType::Int { kind, .. } => match kind {
            IntKind::Tiny => 1,
            IntKind::Small => 2,
            IntKind::Medium => 3,
            IntKind::Int => 4,
            IntKind::Big => 8,
        },
        SqlType::Decimal {
            precision, scale, ..
        } => decimal_bytes(*precision, *scale),
        SqlType::Float { .. } => 4,
        SqlType::Double { .. } => 8,
        SqlType::Bit(n) => n.div_ceil(8),
        SqlType::Char { len, collation } => chars(*len) * mb_max_len(collation),
        SqlType::VarChar { len, collation } => chars(*len) * mb_max_len(collation) + 2,
        SqlType::Binary(len) => chars(*len),
        SqlType::VarBinary(len) => chars(*len) + 2,
        SqlType::Text { collation, .. } => {
            part.prefix_chars.unwrap_or(0) * mb_max_len(collation) + 2
        }
        SqlType::Blob(_) | SqlType::Json => part.prefix_chars.unwrap_or(0) + 2,
        SqlType::Enum { members, .. } => {
            if members.len() < 256 {
                1
            } else {
                2
            }
        }
        SqlType::Set { members, .. } => match members.len().div_ceil(8) {
            n @ 0..=4 => n.max(1) as u32,
            _ => 8,
        },
        SqlType::Date => 3,
        SqlType::Time(fsp) => 3 + fsp_bytes(*fsp),
        SqlType::DateTime(fsp) => 5 + fsp_bytes(*fsp),
        SqlType::Timestamp(fsp) => 4 + fsp_bytes(*fsp),
        SqlType::Year => 1,
    };
    bytes + u32::from(col.nullable)
}

/// Bytes of MySQL's packed DECIMAL(precision, scale): 4 per 9 digits on each side of
/// the point, fewer for the leftover digits.
fn decimal_bytes(precision: u32, scale: u32) -> u32 {
    const LEFTOVER: [u32; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];
    let side = |digits: u32| digits / 9 * 4 + LEFTOVER[(digits % 9) as usize];
    side(precision.saturating_sub(scale)) + side(scale)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::LobSize;

    fn col(ty: SqlType, nullable: bool) -> ColumnDef {
        ColumnDef {
            name: "c".into(),
            ty,
            nullable,
            default: None,
            auto_increment: false,
            on_update_now: false,
            comment: None,
            invisible: false,
        }
    }

    fn part(prefix_chars: Option<u32>) -> IndexPart {
        IndexPart {
            column: 0,
            prefix_chars,
            desc: false,
        }
    }

    fn int(kind: IntKind) -> SqlType {
        SqlType::Int {
            kind,
            unsigned: false,
            zerofill: false,
            width: None,
        }
    }

    fn len(ty: SqlType, nullable: bool, prefix: Option<u32>) -> u32 {
        key_part_len(&col(ty, nullable), &part(prefix))
    }

    #[test]
    fn integers_and_nullability() {
        assert_eq!(len(int(IntKind::Tiny), false, None), 1);
        assert_eq!(len(int(IntKind::Small), false, None), 2);
        assert_eq!(len(int(IntKind::Medium), false, None), 3);
        assert_eq!(len(int(IntKind::Int), false, None), 4);
        assert_eq!(len(int(IntKind::Int), true, None), 5);
        assert_eq!(len(int(IntKind::Big), false, None), 8);
        assert_eq!(len(int(IntKind::Big), true, None), 9);
        assert_eq!(len(SqlType::Float { unsigned: false }, false, None), 4);
        assert_eq!(len(SqlType::Double { unsigned: false }, true, None), 9);
    }

    #[test]
    fn strings_by_charset() {
        let vc = |len, c: &str| SqlType::VarChar {
            len,
            collation: c.into(),
        };
        let ch = |len, c: &str| SqlType::Char {
            len,
            collation: c.into(),
        };
        // sysbench's c CHAR(120) / pad CHAR(60) in utf8mb4.
        assert_eq!(len(ch(120, "utf8mb4_0900_ai_ci"), false, None), 480);
        assert_eq!(len(ch(60, "utf8mb4_0900_ai_ci"), true, None), 241);
        assert_eq!(len(vc(40, "utf8mb4_0900_ai_ci"), false, None), 162);
        assert_eq!(len(vc(40, "utf8mb4_0900_ai_ci"), true, None), 163);
        assert_eq!(len(vc(40, "utf8mb3_general_ci"), false, None), 122);
        assert_eq!(len(vc(40, "latin1_swedish_ci"), false, None), 42);
        assert_eq!(len(vc(255, "utf8mb4_bin"), false, Some(10)), 42);
        assert_eq!(len(SqlType::Binary(16), false, None), 16);
        assert_eq!(len(SqlType::VarBinary(16), true, None), 19);
        let text = SqlType::Text {
            size: LobSize::Normal,
            collation: "utf8mb4_0900_ai_ci".into(),
        };
        assert_eq!(len(text, false, Some(10)), 42);
        assert_eq!(len(SqlType::Blob(LobSize::Normal), true, Some(8)), 11);
    }

    #[test]
    fn decimals_temporals_enums() {
        let dec = |precision, scale| SqlType::Decimal {
            precision,
            scale,
            unsigned: false,
        };
        assert_eq!(len(dec(10, 2), false, None), 5);
        assert_eq!(len(dec(10, 0), false, None), 5);
        assert_eq!(len(dec(18, 9), false, None), 8);
        assert_eq!(len(dec(65, 30), true, None), 31);
        assert_eq!(len(SqlType::Date, false, None), 3);
        assert_eq!(len(SqlType::Date, true, None), 4);
        assert_eq!(len(SqlType::DateTime(0), false, None), 5);
        assert_eq!(len(SqlType::DateTime(6), false, None), 8);
        assert_eq!(len(SqlType::Timestamp(0), false, None), 4);
        assert_eq!(len(SqlType::Timestamp(3), true, None), 7);
        assert_eq!(len(SqlType::Time(0), false, None), 3);
        assert_eq!(len(SqlType::Year, false, None), 1);
        let members = |n: usize| (0..n).map(|i| i.to_string()).collect::<Vec<_>>();
        let e = |n| SqlType::Enum {
            members: members(n),
            collation: "utf8mb4_0900_ai_ci".into(),
        };
        let s = |n| SqlType::Set {
            members: members(n),
            collation: "utf8mb4_0900_ai_ci".into(),
        };
        assert_eq!(len(e(3), false, None), 1);
        assert_eq!(len(e(300), false, None), 2);
        assert_eq!(len(s(3), false, None), 1);
        assert_eq!(len(s(9), false, None), 2);
        assert_eq!(len(s(40), false, None), 8);
        assert_eq!(len(SqlType::Bit(1), false, None), 1);
        assert_eq!(len(SqlType::Bit(9), false, None), 2);
    }
}
