//! Static result-type inference for expression columns, used where no values exist
//! yet (COM_STMT_PREPARE's column definitions, empty result sets) and where every
//! value is NULL (CAST(NULL AS SIGNED) is still a BIGINT column).

use crate::ast::{BinaryOp, CastType, Expr, UnaryOp};
use crate::result::{ColumnInfo, ColumnKind};
use crate::value::Value;

pub fn column_for(name: &str, e: &Expr) -> ColumnInfo {
    column_for_slots(name, e, &|_| None)
}

/// `column_for` with the kinds of bound column slots.
pub fn column_for_slots(name: &str, e: &Expr, sk: SlotKinds<'_>) -> ColumnInfo {
    let kind = kind_of(e, sk).unwrap_or(ColumnKind::VarString);
    let mut c = ColumnInfo::new(name, kind);
    c.length_chars = match kind {
        ColumnKind::LongLong => 21,
        ColumnKind::Double => 23,
        ColumnKind::NewDecimal => 67,
        ColumnKind::Null => 0,
        ColumnKind::Date => 10,
        ColumnKind::DateTime => 26,
        ColumnKind::Time => 17,
        _ => 255,
    };
    c.decimals = match kind {
        ColumnKind::Double | ColumnKind::VarString => 31,
        _ => 0,
    };
    c
}

/// Metadata from the values a column produced; when all are NULL, the static type
/// of the expression (when it has one).
pub fn column_for_values<'a>(
    name: &str,
    e: &Expr,
    values: impl Iterator<Item = &'a Value>,
    sk: SlotKinds<'_>,
) -> ColumnInfo {
    let c = ColumnInfo::from_values(name, values);
    if c.kind != ColumnKind::Null {
        return c;
    }
    match kind_of(e, sk) {
        Some(k) if k != ColumnKind::Null => {
            let mut s = column_for_slots(name, e, sk);
            s.not_null = false;
            s
        }
        _ => c,
    }
}

/// Numeric result of combining two operand kinds (None: unknown, takes the other).
fn numeric(a: Option<ColumnKind>, b: Option<ColumnKind>) -> Option<ColumnKind> {
    use ColumnKind::*;
    let norm = |k: Option<ColumnKind>| match k {
        Some(Null) | None => None,
        Some(LongLong | Long | Short | Tiny | Int24 | Year | Bit) => Some(LongLong),
        Some(NewDecimal) => Some(NewDecimal),
        Some(_) => Some(Double),
    };
    match (norm(a), norm(b)) {
        (None, None) => match (a, b) {
            (Some(Null), _) | (_, Some(Null)) => Some(Null),
            _ => None,
        },
        (Some(x), None) | (None, Some(x)) => Some(x),
        (Some(Double), _) | (_, Some(Double)) => Some(Double),
        (Some(NewDecimal), _) | (_, Some(NewDecimal)) => Some(NewDecimal),
        _ => Some(LongLong),
    }
}

/// The common kind of alternative results (CASE, IF, COALESCE): NULL branches and
/// unknown ones do not count.
fn union(kinds: impl Iterator<Item = Option<ColumnKind>>) -> Option<ColumnKind> {
    let mut out: Option<ColumnKind> = None;
    let mut saw_null = false;
    for k in kinds {
        match k {
            Some(ColumnKind::Null) => saw_null = true,
            None => {}
            Some(k) => {
                out = Some(match out {
                    None => k,
                    Some(o) if o == k => o,
                    Some(o) => match numeric(Some(o), Some(k)) {
                        Some(n)
                            if !matches!(o, ColumnKind::VarString)
                                && !matches!(k, ColumnKind::VarString) =>
                        {
                            n
                        }
                        _ => ColumnKind::VarString,
                    },
                })
            }
        }
    }
    out.or(saw_null.then_some(ColumnKind::Null))
}

/// Kinds of bound column slots, where the caller knows them.
pub type SlotKinds<'a> = &'a dyn Fn(usize) -> Option<ColumnKind>;

/// The static kind of `e` (None: unknown).
pub fn kind_of_expr(e: &Expr, sk: SlotKinds<'_>) -> Option<ColumnKind> {
    kind_of(e, sk)
}

fn kind_of(e: &Expr, sk: SlotKinds<'_>) -> Option<ColumnKind> {
    Some(match e {
        Expr::Literal(v) => match v {
            Value::Null => ColumnKind::Null,
            Value::Int(_) | Value::UInt(_) => ColumnKind::LongLong,
            Value::Double(_) => ColumnKind::Double,
            Value::Decimal(_) => ColumnKind::NewDecimal,
            Value::Str(_) | Value::Bytes(_) => ColumnKind::VarString,
        },
        Expr::Window(w) => match w.name.as_str() {
            "row_number" | "rank" | "dense_rank" | "ntile" | "count" => ColumnKind::LongLong,
            "percent_rank" | "cume_dist" => ColumnKind::Double,
            "lag" | "lead" | "first_value" | "last_value" | "nth_value" => {
                kind_of(w.args.first()?, sk)?
            }
            _ => kind_of(
                &Expr::Func {
                    name: w.name.clone(),
                    args: w.args.clone(),
                },
                sk,
            )?,
        },
        Expr::IsNull { .. }
        | Expr::IsBool { .. }
        | Expr::Between { .. }
        | Expr::InList { .. }
        | Expr::InSubquery { .. }
        | Expr::Quantified(_)
        | Expr::Exists(_)
        | Expr::Like { .. } => ColumnKind::LongLong,
        Expr::Cast { to, .. } => match to {
            CastType::Signed | CastType::Unsigned => ColumnKind::LongLong,
            CastType::Decimal(..) => ColumnKind::NewDecimal,
            CastType::Double => ColumnKind::Double,
            CastType::Char(_) | CastType::Binary(_) => ColumnKind::VarString,
            CastType::Date => ColumnKind::Date,
            CastType::DateTime(_) => ColumnKind::DateTime,
            CastType::Time(_) => ColumnKind::Time,
        },
        Expr::Binary { op, left, right } => match op {
            BinaryOp::Div => match numeric(kind_of(left, sk), kind_of(right, sk))? {
                ColumnKind::LongLong => ColumnKind::NewDecimal,
                k => k,
            },
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Mod => {
                numeric(kind_of(left, sk), kind_of(right, sk))?
            }
            _ => ColumnKind::LongLong,
        },
        Expr::Unary { op, expr } => match op {
            UnaryOp::Not | UnaryOp::BitNot => ColumnKind::LongLong,
            // Negating a negative constant integer is DECIMAL (see eval's unary).
            UnaryOp::Neg if matches!(**expr, Expr::Literal(Value::Int(i)) if i < 0) => {
                ColumnKind::NewDecimal
            }
            _ => kind_of(expr, sk)?,
        },
        Expr::Case {
            whens, otherwise, ..
        } => union(
            whens
                .iter()
                .map(|(_, t)| kind_of(t, sk))
                .chain(otherwise.iter().map(|o| kind_of(o, sk))),
        )
        .unwrap_or(ColumnKind::Null),
        Expr::Func { name, args } => {
            let base = name.strip_suffix(" distinct").unwrap_or(name);
            match base {
                "connection_id" | "last_insert_id" | "row_count" | "found_rows" | "length"
                | "char_length" | "sleep" | "unix_timestamp" | "isnull" | "strcmp" | "sign"
                | "count" | "locate" | "instr" | "field" | "find_in_set" | "ascii" | "ord"
                | "year" | "month" | "day" | "dayofmonth" | "hour" | "minute" | "second"
                | "datediff" | "timestampdiff" | "to_days" | "json_valid" | "json_length"
                | "crc32" | "inet_aton" | "is_ipv4" | "uuid_short" | "benchmark" | "get_lock"
                | "release_lock" | "release_all_locks" | "is_free_lock" | "is_used_lock" => {
                    ColumnKind::LongLong
                }
                "rand" | "sqrt" | "exp" | "ln" | "log" | "log10" | "log2" | "pow" | "power"
                | "std" | "stddev" | "stddev_pop" | "stddev_samp" | "variance" | "var_pop"
                | "var_samp" => ColumnKind::Double,
                "min" | "max" | "any_value" | "abs" | "round" | "truncate" => {
                    kind_of(args.first()?, sk)?
                }
                "floor" | "ceil" | "ceiling" => match kind_of(args.first()?, sk)? {
                    ColumnKind::NewDecimal => ColumnKind::LongLong,
                    k => k,
                },
                "sum" | "avg" => match numeric(kind_of(args.first()?, sk), None)? {
                    ColumnKind::LongLong => ColumnKind::NewDecimal,
                    k => k,
                },
                "if" => union(args.iter().skip(1).map(|a| kind_of(a, sk)))?,
                "ifnull" | "coalesce" | "nullif" | "greatest" | "least" => union(
                    args.iter()
                        .take(if base == "nullif" { 1 } else { usize::MAX })
                        .map(|a| kind_of(a, sk)),
                )?,
                "date" | "curdate" | "current_date" | "utc_date" | "last_day" | "from_days"
                | "makedate" => ColumnKind::Date,
                "time" | "curtime" | "current_time" | "utc_time" | "sec_to_time" | "maketime"
                | "timediff" => ColumnKind::Time,
                "now" | "current_timestamp" | "localtime" | "localtimestamp" | "sysdate"
                | "utc_timestamp" | "timestamp" => ColumnKind::DateTime,
                _ => ColumnKind::VarString,
            }
        }
        Expr::Slot(i) => return sk(*i),
        Expr::InColl { expr, .. } | Expr::Collate { expr, .. } => return kind_of(expr, sk),
        Expr::EnumIndex { .. } => ColumnKind::LongLong,
        Expr::Subquery(sel) => kind_of(&sel.items.first()?.expr, &|_| None)?,
        Expr::Column { .. } | Expr::Param(_) | Expr::UserVar(_) => return None,
        _ => ColumnKind::VarString,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::Stmt;

    fn kind(sql: &str) -> ColumnKind {
        let p = crate::parse::parse_one(sql, crate::lexer::LexMode::default()).unwrap();
        let Stmt::Select(s) = p.stmt else { panic!() };
        column_for("x", &s.items[0].expr).kind
    }

    #[test]
    fn kinds() {
        assert_eq!(
            kind("SELECT CAST(NULL AS SIGNED) * -85"),
            ColumnKind::LongLong
        );
        assert_eq!(
            kind("SELECT 37 / - CAST(NULL AS SIGNED)"),
            ColumnKind::NewDecimal
        );
        assert_eq!(
            kind("SELECT -CAST(NULL AS DECIMAL)"),
            ColumnKind::NewDecimal
        );
        assert_eq!(kind("SELECT 1 IN (2, NULL)"), ColumnKind::LongLong);
        assert_eq!(
            kind("SELECT MAX(CAST(NULL AS SIGNED))"),
            ColumnKind::LongLong
        );
        assert_eq!(kind("SELECT NULL"), ColumnKind::Null);
        assert_eq!(
            kind("SELECT CAST(NULL AS SIGNED) * - - 78"),
            ColumnKind::NewDecimal
        );
        assert_eq!(
            kind("SELECT (SELECT COUNT(*) FROM t)"),
            ColumnKind::LongLong
        );
        assert_eq!(
            kind("SELECT CASE WHEN 1 THEN NULL ELSE 2 END"),
            ColumnKind::LongLong
        );
    }
}
