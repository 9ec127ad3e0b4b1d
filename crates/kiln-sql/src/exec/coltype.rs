//! Result-column metadata of SELECTs over tables: a table column keeps its declared
//! type, names and key flags; expressions are typed from their values or, when every
//! value is NULL or there are no rows, statically (`crate::infer`), with column slots
//! and aggregate results typed from the table definitions. Also where temporal columns
//! turn into numbers in arithmetic (`numeric_temporals`).

use super::bind::Scope;
use super::select::SourceTable;
use crate::ast::*;
use crate::result::ColumnInfo;
use crate::types::SqlType;
use crate::value::Value;

/// Result-metadata flags of a table column (MySQL's PRI_KEY, UNIQUE_KEY, MULTIPLE_KEY,
/// AUTO_INCREMENT ... bits).
fn column_key(def: &crate::dict::TableDef, col: usize) -> crate::result::ColumnKey {
    use crate::dict::IndexKindDef;
    let c = &def.columns[col];
    let mut k = crate::result::ColumnKey {
        auto_increment: c.auto_increment,
        zerofill: matches!(c.ty, crate::types::SqlType::Int { zerofill: true, .. }),
        no_default: c.default.is_none() && !c.nullable && !c.auto_increment,
        on_update_now: c.on_update_now,
        is_enum: matches!(c.ty, crate::types::SqlType::Enum { .. }),
        is_set: matches!(c.ty, crate::types::SqlType::Set { .. }),
        ..Default::default()
    };
    for ix in &def.indexes {
        match ix.kind {
            IndexKindDef::Primary if ix.parts.iter().any(|p| p.column == col) => k.primary = true,
            IndexKindDef::Unique if ix.parts.len() == 1 && ix.parts[0].column == col => {
                k.unique = true
            }
            IndexKindDef::Key | IndexKindDef::Unique | IndexKindDef::Fulltext
                if ix.parts.first().is_some_and(|p| p.column == col) =>
            {
                k.multiple = true
            }
            _ => {}
        }
    }
    k
}

/// Temporal columns used as operands of arithmetic read as numbers (dt + 0 is
/// 20200229134510, t + 0 is 134510): such slots are wrapped in `temporal_number`. JSON
/// columns given to JSON_OBJECT / JSON_ARRAY are wrapped in JSON_EXTRACT(j, '$') so
/// they nest as JSON.
pub(super) fn numeric_temporals(e: &Expr, tables: &[SourceTable]) -> Expr {
    use crate::result::ColumnKind as K;
    let operand = |x: &Expr| -> Expr {
        if let Expr::Slot(i) = x
            && let Some(k) = table_slot_kind(tables, *i)
        {
            if matches!(k, K::Date | K::DateTime | K::Timestamp | K::Time) {
                return Expr::Func {
                    name: "temporal_number".into(),
                    args: vec![x.clone()],
                };
            }
            return x.clone();
        }
        numeric_temporals(x, tables)
    };
    match e {
        Expr::Binary { op, left, right } => {
            let arith = matches!(
                op,
                BinaryOp::Add
                    | BinaryOp::Sub
                    | BinaryOp::Mul
                    | BinaryOp::Div
                    | BinaryOp::IntDiv
                    | BinaryOp::Mod
            );
            let side = |x: &Expr| {
                if arith {
                    operand(x)
                } else {
                    numeric_temporals(x, tables)
                }
            };
            Expr::Binary {
                op: *op,
                left: Box::new(side(left)),
                right: Box::new(side(right)),
            }
        }
        Expr::Unary {
            op: op @ (UnaryOp::Neg | UnaryOp::Plus),
            expr,
        } => Expr::Unary {
            op: *op,
            expr: Box::new(operand(expr)),
        },
        // JSON columns inside JSON constructors nest as JSON, not as strings.
        Expr::Func { name, args } => {
            let json_ctor = matches!(name.as_str(), "json_object" | "json_array");
            let args = args
                .iter()
                .map(|a| match a {
                    Expr::Slot(i)
                        if json_ctor
                            && table_slot_kind(tables, *i)
                                == Some(crate::result::ColumnKind::Json) =>
                    {
                        Expr::Func {
                            name: "json_extract".into(),
                            args: vec![a.clone(), Expr::Literal(Value::Str("$".into()))],
                        }
                    }
                    other => numeric_temporals(other, tables),
                })
                .collect();
            Expr::Func {
                name: name.clone(),
                args,
            }
        }
        Expr::InColl { expr, coll } => Expr::InColl {
            expr: Box::new(numeric_temporals(expr, tables)),
            coll: *coll,
        },
        other => other.clone(),
    }
}

/// The declared kind of a bound column slot of one of `tables`.
pub(super) fn table_slot_kind(
    tables: &[SourceTable],
    slot: usize,
) -> Option<crate::result::ColumnKind> {
    let t = tables
        .iter()
        .rev()
        .find(|t| slot >= t.offset && slot < t.offset + t.handle.def.columns.len())?;
    Some(
        t.handle.def.columns[slot - t.offset]
            .ty
            .column_info("")
            .kind,
    )
}

/// MIN / MAX of a table column: the column's type, length and charset, as MySQL
/// describes it (nullable: no rows give NULL), whatever values the rows hold. ENUM and
/// SET become strings, as MySQL's MIN / MAX return them (left to the values).
fn min_max_of_column(
    name: &str,
    call: Option<&Expr>,
    tables: &[SourceTable],
) -> Option<ColumnInfo> {
    let Some(Expr::Func { name: f, args }) = call else {
        return None;
    };
    if !matches!(f.strip_suffix(" distinct").unwrap_or(f), "min" | "max") {
        return None;
    }
    let [Expr::Slot(slot)] = args.as_slice() else {
        return None;
    };
    let t = tables
        .iter()
        .rev()
        .find(|t| *slot >= t.offset && *slot < t.offset + t.handle.def.columns.len())?;
    let c = &t.handle.def.columns[*slot - t.offset];
    if matches!(c.ty, SqlType::Enum { .. } | SqlType::Set { .. }) {
        return None;
    }
    let mut info = c.ty.column_info(name);
    info.not_null = false;
    Some(info)
}

/// Result metadata of a select-list item: a plain column of a table keeps the
/// column's type and names; anything else is derived from the values, or (all NULL,
/// no rows) from the expression's static type.
#[allow(clippy::too_many_arguments)]
pub(super) fn column_info(
    e: &Expr,
    name: &str,
    tables: &[SourceTable],
    scope: &Scope,
    grouped: bool,
    agg_calls: &[Expr],
    rows: &[Vec<Value>],
    i: usize,
) -> ColumnInfo {
    if let Expr::Slot(slot) = e
        && (!grouped || *slot < scope.columns.len())
        && let Some(t) = tables
            .iter()
            .rev()
            .find(|t| *slot >= t.offset && *slot < t.offset + t.handle.def.columns.len())
    {
        let col = *slot - t.offset;
        let def = &t.handle.def;
        let c = &def.columns[col];
        let mut info = c.ty.column_info(name);
        info.org_name = c.name.clone();
        info.table = t.alias.clone();
        info.schema = def.schema.clone();
        info.not_null = !c.nullable;
        info.key = column_key(def, col);
        return info;
    }
    // Slots past the row are the grouped query's aggregate results.
    let width = scope.columns.len();
    if grouped
        && let Expr::Slot(slot) = e
        && let Some(info) = min_max_of_column(name, agg_calls.get(slot.wrapping_sub(width)), tables)
    {
        return info;
    }
    let slot_kind = |slot: usize| {
        if grouped && slot >= width {
            let call = agg_calls.get(slot - width)?;
            return crate::infer::kind_of_expr(call, &|s| table_slot_kind(tables, s));
        }
        table_slot_kind(tables, slot)
    };
    if rows.is_empty() {
        return crate::infer::column_for_slots(name, e, &slot_kind);
    }
    let mut info = crate::infer::column_for_values(name, e, rows.iter().map(|r| &r[i]), &slot_kind);
    // MIN / MAX of a FLOAT column stay FLOAT (printed with FLOAT's 6 digits).
    if let Expr::Slot(slot) = e
        && info.kind == crate::result::ColumnKind::Double
        && slot_kind(*slot) == Some(crate::result::ColumnKind::Float)
    {
        info.kind = crate::result::ColumnKind::Float;
    }
    info
}
