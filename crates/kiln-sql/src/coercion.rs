//! Collation derivation, as MySQL 8.0 defines it: which collation an expression's
//! string value carries and how strongly (its coercibility: an explicit COLLATE beats a
//! column, which beats a literal), how the operands of a comparison combine into the
//! one collation it runs under (or clash: error 1267), and the binder pass that writes
//! the outcome into the bound tree once per statement, so evaluation does no lookups:
//!
//! * a comparison, BETWEEN, IN, LIKE, CASE, or collation-sensitive function whose
//!   operands settle on a collation is wrapped in `Expr::InColl`; one whose operands
//!   are only literals is left alone and runs under the connection collation
//!   (`collation_connection`, what MySQL gives literals);
//! * an ENUM/SET column used as a number (`e + 0`, `e = 1`, `st & 1`) is wrapped in
//!   `Expr::EnumIndex` (its member number / bit mask).
//!
//! ORDER BY, GROUP BY, DISTINCT and the aggregates ask `coll_of` for the collation of
//! each key. Values themselves carry no collation.

use std::sync::Arc;

use kiln_common::{ErrorKind, KilnError, Result};

use crate::ast::{BinaryOp, CastType, Expr, UnaryOp};
use crate::collate::Coll;
use crate::exec::bind::{self, Scope};
use crate::types::SqlType;
use crate::value::Value;

/// The character type of a column, as expressions see it.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnText {
    pub coll: Coll,
    /// ENUM (set = false) or SET (set = true) members.
    pub members: Option<Arc<[String]>>,
    pub set: bool,
}

impl ColumnText {
    /// The character type of a column of type `ty` (None: not a character type).
    pub fn of(ty: &SqlType) -> Option<ColumnText> {
        let coll = Coll::of(ty.collation()?);
        let (members, set) = match ty {
            SqlType::Enum { members, .. } => (Some(Arc::from(members.as_slice())), false),
            SqlType::Set { members, .. } => (Some(Arc::from(members.as_slice())), true),
            _ => (None, false),
        };
        Some(ColumnText { coll, members, set })
    }

    /// The character type of a derived table's column: the collation its result
    /// metadata names (None for numbers, binary strings and expressions' results).
    pub fn of_result(c: &crate::result::ColumnInfo) -> Option<ColumnText> {
        if c.binary || c.collation.is_empty() {
            return None;
        }
        Some(ColumnText {
            coll: Coll::by_name(&c.collation)?,
            members: None,
            set: false,
        })
    }
}

/// MySQL's coercibility, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Coercibility {
    Explicit,
    Implicit,
    Coercible,
    Ignorable,
}

impl Coercibility {
    fn name(self) -> &'static str {
        match self {
            Coercibility::Explicit => "EXPLICIT",
            Coercibility::Implicit => "IMPLICIT",
            Coercibility::Coercible => "COERCIBLE",
            Coercibility::Ignorable => "IGNORABLE",
        }
    }
}

/// The collation of a string-valued expression. `coll` None: the connection
/// collation (literals, parameters), settled at run time.
#[derive(Debug, Clone, Copy)]
pub struct Derivation {
    pub coll: Option<Coll>,
    pub coer: Coercibility,
}

impl Derivation {
    const LITERAL: Derivation = Derivation {
        coll: None,
        coer: Coercibility::Coercible,
    };
}

/// The derivation of `e` (bound to `scope`); None for numbers, temporals and
/// expressions whose type is unknown before they run.
pub fn derive(e: &Expr, scope: &Scope) -> Option<Derivation> {
    match e {
        Expr::Literal(Value::Str(_)) | Expr::Param(_) | Expr::UserVar(_) => {
            Some(Derivation::LITERAL)
        }
        Expr::Literal(Value::Bytes(_)) => Some(Derivation {
            coll: Some(Coll::BINARY),
            coer: Coercibility::Coercible,
        }),
        Expr::Literal(Value::Null) => Some(Derivation {
            coll: None,
            coer: Coercibility::Ignorable,
        }),
        Expr::Slot(i) => scope
            .columns
            .get(*i)
            .and_then(|c| c.text.as_ref())
            .map(|t| Derivation {
                coll: Some(t.coll),
                coer: Coercibility::Implicit,
            }),
        Expr::Collate { coll, .. } => Some(Derivation {
            coll: Some(*coll),
            coer: Coercibility::Explicit,
        }),
        Expr::InColl { expr, .. } => derive(expr, scope),
        Expr::Cast { to, .. } => match to {
            CastType::Char(_) => Some(Derivation {
                coll: None,
                coer: Coercibility::Implicit,
            }),
            CastType::Binary(_) => Some(Derivation {
                coll: Some(Coll::BINARY),
                coer: Coercibility::Implicit,
            }),
            _ => None,
        },
        Expr::Case {
            whens, otherwise, ..
        } => combine_all(
            whens
                .iter()
                .map(|(_, t)| t)
                .chain(otherwise.as_deref())
                .filter_map(|x| derive(x, scope)),
        ),
        Expr::Func { name, args } => derive_call(name, args, scope),
        // Window functions that return one of their rows' values keep its collation.
        Expr::Window(w)
            if matches!(
                w.name.as_str(),
                "lag" | "lead" | "first_value" | "last_value" | "nth_value" | "min" | "max"
            ) =>
        {
            derive(w.args.first()?, scope)
        }
        _ => None,
    }
}

fn derive_call(name: &str, args: &[Expr], scope: &Scope) -> Option<Derivation> {
    let base = name.strip_suffix(" distinct").unwrap_or(name);
    let of = |xs: &[Expr]| combine_all(xs.iter().filter_map(|x| derive(x, scope)));
    match base {
        "convert_using" => match args.get(1) {
            Some(Expr::Literal(Value::Str(cs))) => Some(Derivation {
                coll: Some(Coll::default_for(cs)?),
                coer: Coercibility::Implicit,
            }),
            _ => None,
        },
        "concat" | "concat_ws" | "upper" | "lower" | "ucase" | "lcase" | "trim" | "ltrim"
        | "rtrim" | "trim_leading" | "trim_trailing" | "trim_both" | "reverse" | "repeat"
        | "lpad" | "rpad" | "replace" | "insert" => of(args),
        "substring" | "substr" | "mid" | "left" | "right" | "substring_index" | "min" | "max"
        | "any_value" | "nullif" => of(&args[..args.len().min(1)]),
        "ifnull" | "coalesce" | "greatest" | "least" => of(args),
        "if" => of(args.get(1..).unwrap_or_default()),
        "elt" => of(args.get(1..).unwrap_or_default()),
        "group_concat" => of(&args[..args.len().saturating_sub(1)]),
        _ => None,
    }
}

/// Combines derivations leniently (functions): a clash keeps the first.
fn combine_all(ds: impl Iterator<Item = Derivation>) -> Option<Derivation> {
    ds.reduce(|a, b| combine(a, b).unwrap_or(a))
}

/// MySQL's rules for two operands: the lower coercibility wins; at equal coercibility
/// the same collation, a side with no fixed collation (literals) yields, a Unicode
/// side beats a non-Unicode one, and `_bin` beats the same charset's other
/// collations; otherwise the operands clash (Err with both sides).
fn combine(
    a: Derivation,
    b: Derivation,
) -> std::result::Result<Derivation, (Derivation, Derivation)> {
    if a.coer != b.coer {
        return Ok(if a.coer < b.coer { a } else { b });
    }
    match (a.coll, b.coll) {
        (None, _) => Ok(b),
        (_, None) => Ok(a),
        (Some(x), Some(y)) if x == y => Ok(a),
        // Two different explicit collations always clash.
        _ if a.coer == Coercibility::Explicit => Err((a, b)),
        (Some(x), Some(y)) if x.charset() == y.charset() && (x.is_bin() || y.is_bin()) => {
            Ok(if x.is_bin() { a } else { b })
        }
        (Some(x), Some(y)) if x.is_unicode() != y.is_unicode() => {
            Ok(if x.is_unicode() { a } else { b })
        }
        _ => Err((a, b)),
    }
}

/// The collation for comparing `operands`: Ok(None) when only literals take part (the
/// connection collation applies at run time) or no operand is a string.
fn settle(operands: &[&Expr], scope: &Scope, op: &str) -> Result<Option<Coll>> {
    let mut acc: Option<Derivation> = None;
    for x in operands {
        let Some(d) = derive(x, scope) else {
            // A number among the operands: MySQL compares numerically.
            if !matches!(x, Expr::Literal(Value::Null)) && is_number(x, scope) {
                return Ok(None);
            }
            continue;
        };
        acc = Some(match acc {
            None => d,
            Some(a) => combine(a, d).map_err(|(a, b)| clash(a, b, op))?,
        });
    }
    Ok(acc.and_then(|d| d.coll))
}

fn clash(a: Derivation, b: Derivation, op: &str) -> KilnError {
    let name = |d: Derivation| d.coll.map_or("utf8mb4_0900_ai_ci", |c| c.name());
    KilnError::new(
        ErrorKind::ER_CANT_AGGREGATE_2COLLATIONS,
        &[&name(a), &a.coer.name(), &name(b), &b.coer.name(), &op],
    )
}

/// Whether `e` is certainly a number (so a comparison with it is numeric).
fn is_number(e: &Expr, scope: &Scope) -> bool {
    match e {
        Expr::Literal(v) => matches!(
            v,
            Value::Int(_) | Value::UInt(_) | Value::Double(_) | Value::Decimal(_)
        ),
        Expr::EnumIndex { .. } => true,
        Expr::Binary { op, .. } => !matches!(op, BinaryOp::And | BinaryOp::Or | BinaryOp::Xor),
        Expr::Unary { op, expr } => *op != UnaryOp::Plus || is_number(expr, scope),
        Expr::Slot(i) => scope.columns.get(*i).is_some_and(|c| c.text.is_none()),
        _ => false,
    }
}

/// The collation ORDER BY / GROUP BY / DISTINCT / an aggregate uses for `e`: its
/// derived one, else `conn` (the connection collation).
pub fn coll_of(e: &Expr, scope: &Scope, conn: Coll) -> Coll {
    derive(e, scope).and_then(|d| d.coll).unwrap_or(conn)
}

/// The ENUM/SET members of the column `e` is, if it is one.
fn enum_of(e: &Expr, scope: &Scope) -> Option<(Arc<[String]>, bool)> {
    match e {
        Expr::Slot(i) => {
            let t = scope.columns.get(*i)?.text.as_ref()?;
            Some((t.members.clone()?, t.set))
        }
        _ => None,
    }
}

/// `e` as a number where it is an ENUM/SET column (else `e` unchanged).
pub fn numeric_use(e: Expr, scope: &Scope) -> Expr {
    match enum_of(&e, scope) {
        Some((members, set)) => Expr::EnumIndex {
            expr: Box::new(e),
            members,
            set,
        },
        None => e,
    }
}

fn wrap(node: Expr, coll: Option<Coll>) -> Expr {
    match coll {
        Some(coll) => Expr::InColl {
            expr: Box::new(node),
            coll,
        },
        None => node,
    }
}

/// Aggregates that read their argument as a number (SUM, AVG, BIT_*, STD ...).
fn numeric_aggregate(name: &str) -> bool {
    bind::is_aggregate(name)
        && !matches!(
            name.strip_suffix(" distinct").unwrap_or(name),
            "count"
                | "min"
                | "max"
                | "group_concat"
                | "any_value"
                | "json_arrayagg"
                | "json_objectagg"
        )
}

/// Functions whose result depends on their arguments' collation or charset.
fn collation_sensitive(name: &str) -> bool {
    matches!(
        name,
        "locate"
            | "instr"
            | "strcmp"
            | "field"
            | "find_in_set"
            | "nullif"
            | "greatest"
            | "least"
            | "length"
            | "octet_length"
            | "char_length"
            | "character_length"
            | "hex"
    )
}

fn op_name(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Eq => "=",
        BinaryOp::NullSafeEq => "<=>",
        BinaryOp::Ne => "<>",
        BinaryOp::Lt => "<",
        BinaryOp::Le => "<=",
        BinaryOp::Gt => ">",
        _ => ">=",
    }
}

/// Annotates a bound expression (see the module comment).
pub fn annotate(e: &Expr, scope: &Scope) -> Result<Expr> {
    bind::rewrite(e, &mut |x| node(x, scope))
}

/// Whether `annotate` could change `e`: only a character column, a COLLATE, a CAST or
/// CONVERT gives an operand a collation of its own (literals alone keep the
/// connection's), or a use of an ENUM/SET column a number. Checked without
/// allocating, so that `id = ?` binds without a second copy of its tree.
pub fn may_annotate(e: &Expr, scope: &Scope) -> bool {
    let mut found = false;
    bind::visit(e, &mut |x| match x {
        Expr::Slot(i) if scope.columns.get(*i).is_some_and(|c| c.text.is_some()) => found = true,
        Expr::Collate { .. } | Expr::Cast { .. } => found = true,
        Expr::Func { name, .. } if name == "convert_using" => found = true,
        _ => {}
    });
    found
}

fn node(x: &Expr, scope: &Scope) -> Result<Option<Expr>> {
    use BinaryOp::*;
    let op = match x {
        Expr::Collate { expr, coll } => {
            check_charset(expr, *coll, scope)?;
            return Ok(None);
        }
        Expr::Binary { op, .. } if matches!(op, Eq | NullSafeEq | Ne | Lt | Le | Gt | Ge) => {
            op_name(*op)
        }
        Expr::Binary { op, .. } if !matches!(op, And | Or | Xor) => {
            // Arithmetic and bit operators: ENUM/SET operands as numbers.
            let mut e = with_children_annotated(x, scope)?;
            if let Expr::Binary { left, right, .. } = &mut e {
                as_number(left, scope);
                as_number(right, scope);
            }
            return Ok(Some(e));
        }
        Expr::Unary {
            op: UnaryOp::Neg | UnaryOp::BitNot,
            ..
        } => {
            let mut e = with_children_annotated(x, scope)?;
            if let Expr::Unary { expr, .. } = &mut e {
                as_number(expr, scope);
            }
            return Ok(Some(e));
        }
        Expr::Func { name, args }
            if numeric_aggregate(name) && args.iter().any(|a| enum_of(a, scope).is_some()) =>
        {
            // Numeric aggregates of ENUM/SET: of the numbers.
            let mut e = with_children_annotated(x, scope)?;
            if let Expr::Func { args, .. } = &mut e {
                for a in args.iter_mut() {
                    let inner = std::mem::replace(a, Expr::Literal(Value::Null));
                    *a = numeric_use(inner, scope);
                }
            }
            return Ok(Some(e));
        }
        Expr::Between { .. } => "between",
        Expr::InList { .. } => "in",
        Expr::Like { .. } => "like",
        Expr::Case {
            operand: Some(_), ..
        } => "case",
        Expr::Func { name, .. } if collation_sensitive(name) => name.as_str(),
        _ => return Ok(None),
    };
    let mut e = with_children_annotated(x, scope)?;
    // ENUM/SET compared with a number: by member number / mask.
    if compared(&e).iter().any(|x| is_number(x, scope)) {
        match &mut e {
            Expr::Binary { left, right, .. } => {
                as_number(left, scope);
                as_number(right, scope);
            }
            Expr::Between {
                expr, low, high, ..
            } => {
                as_number(expr, scope);
                as_number(low, scope);
                as_number(high, scope);
            }
            Expr::InList { expr, .. } => as_number(expr, scope),
            _ => {}
        }
    }
    let coll = match &e {
        Expr::Func { args, .. } => {
            settle(&args.iter().collect::<Vec<_>>(), scope, op).unwrap_or(None)
        }
        other => settle(&compared(other), scope, op)?,
    };
    Ok(Some(wrap(e, coll)))
}

/// `expr COLLATE coll` needs `coll` to belong to the charset of `expr` (1253); a
/// literal is in the connection charset, which is a Unicode one here.
fn check_charset(expr: &Expr, coll: Coll, scope: &Scope) -> Result<()> {
    let ok = match derive(expr, scope) {
        Some(Derivation { coll: Some(c), .. }) => c.charset() == coll.charset(),
        Some(Derivation { coll: None, .. }) => coll.is_unicode(),
        None => true,
    };
    if ok {
        return Ok(());
    }
    let charset = derive(expr, scope)
        .and_then(|d| d.coll)
        .map_or("utf8mb4", |c| c.rules().charset);
    Err(KilnError::new(
        ErrorKind::ER_COLLATION_CHARSET_MISMATCH,
        &[&coll.name(), &charset],
    ))
}

/// `x` with each child annotated (x itself as it is).
fn with_children_annotated(x: &Expr, scope: &Scope) -> Result<Expr> {
    bind::rewrite(x, &mut |y| {
        if std::ptr::eq(y, x) {
            Ok(None)
        } else {
            annotate(y, scope).map(Some)
        }
    })
}

/// Replaces `e` by its numeric use (see `numeric_use`).
fn as_number(e: &mut Box<Expr>, scope: &Scope) {
    let inner = std::mem::replace(e.as_mut(), Expr::Literal(Value::Null));
    **e = numeric_use(inner, scope);
}

/// The operands a comparison-like node compares with each other.
fn compared(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::Binary { left, right, .. } => vec![left, right],
        Expr::Between {
            expr, low, high, ..
        } => vec![expr, low, high],
        Expr::InList { expr, list, .. } => std::iter::once(&**expr).chain(list).collect(),
        Expr::Like { expr, pattern, .. } => vec![expr, pattern],
        Expr::Case {
            operand: Some(o),
            whens,
            ..
        } => std::iter::once(&**o)
            .chain(whens.iter().map(|(w, _)| w))
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::bind::ScopeColumn;

    fn scope() -> Scope {
        let col = |name: &str, coll: &str| ScopeColumn {
            table: "t".into(),
            name: name.into(),
            hidden: false,
            text: Some(ColumnText {
                coll: Coll::of(coll),
                members: None,
                set: false,
            }),
            merged: false,
        };
        Scope {
            columns: vec![
                col("ci", "utf8mb4_general_ci"),
                col("bin", "utf8mb4_bin"),
                col("l1", "latin1_swedish_ci"),
                col("uni", "utf8mb4_unicode_ci"),
            ],
        }
    }

    fn lit(s: &str) -> Expr {
        Expr::Literal(Value::Str(s.into()))
    }

    #[test]
    fn coercibility_picks_the_collation() {
        let s = scope();
        let pick = |a: &Expr, b: &Expr| settle(&[a, b], &s, "=");
        // column beats literal
        assert_eq!(
            pick(&Expr::Slot(1), &lit("x")).unwrap(),
            Some(Coll::of("utf8mb4_bin"))
        );
        // literals alone: the connection's, at run time
        assert_eq!(pick(&lit("a"), &lit("b")).unwrap(), None);
        // explicit beats column
        let explicit = Expr::Collate {
            expr: Box::new(lit("x")),
            coll: Coll::of("utf8mb4_unicode_ci"),
        };
        assert_eq!(
            pick(&Expr::Slot(1), &explicit).unwrap(),
            Some(Coll::of("utf8mb4_unicode_ci"))
        );
        // _bin beats _ci of the same charset; Unicode beats latin1
        assert_eq!(
            pick(&Expr::Slot(0), &Expr::Slot(1)).unwrap(),
            Some(Coll::of("utf8mb4_bin"))
        );
        assert_eq!(
            pick(&Expr::Slot(2), &Expr::Slot(0)).unwrap(),
            Some(Coll::of("utf8mb4_general_ci"))
        );
        // two different Unicode collations, both implicit: 1267
        let e = pick(&Expr::Slot(0), &Expr::Slot(3)).unwrap_err();
        assert_eq!(e.code, 1267);
        // two different explicit collations clash, even _bin and _ci
        let bin = Expr::Collate {
            expr: Box::new(lit("a")),
            coll: Coll::of("utf8mb4_bin"),
        };
        assert_eq!(pick(&bin, &explicit).unwrap_err().code, 1267);
        // a number makes the comparison numeric
        assert_eq!(
            pick(&Expr::Slot(0), &Expr::Literal(Value::Int(1))).unwrap(),
            None
        );
    }
}
