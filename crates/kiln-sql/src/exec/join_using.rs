//! JOIN ... USING (...) and NATURAL JOIN: the column pairs the two sides share, the
//! join condition they make, and the joined scope where each pair is replaced by one
//! coalesced column.
//!
//! MySQL's rules (kept here, used by the executor's join and by COM_STMT_PREPARE's
//! column description): the joined row starts with the coalesced columns, in the
//! order of the first side (the left table, or the right one of a RIGHT JOIN), then
//! has the first side's columns, then the second's. An unqualified name and `*` see
//! the coalesced column only; `t.c` and `t.*` still reach the table's own column. The
//! coalesced value is COALESCE(first.c, second.c). A USING name missing on a side is
//! 1054 (in 'from clause'); one a side has twice is 1052.

use kiln_common::Result;

use super::bind::{Scope, ScopeColumn};
use crate::ast::*;
use crate::value::Value;

/// The shared columns of a join as (slot in the first side, slot in the second side),
/// in the first side's column order. Empty for a join with ON (or nothing).
pub fn shared_columns(
    first: &Scope,
    second: &Scope,
    using: &[String],
    natural: bool,
) -> Result<Vec<(usize, usize)>> {
    let mut pairs = Vec::new();
    if natural {
        for (i, c) in first.columns.iter().enumerate() {
            if c.hidden || c.merged || !second.columns.iter().any(|s| same_visible(s, &c.name)) {
                continue;
            }
            // A name a side has twice is ambiguous (1052), as in MySQL.
            first.resolve(None, &c.name, "from clause")?;
            pairs.push((i, second.resolve(None, &c.name, "from clause")?));
        }
        return Ok(pairs);
    }
    for u in using {
        let a = first.resolve(None, u, "from clause")?;
        let b = second.resolve(None, u, "from clause")?;
        if !pairs.iter().any(|p: &(usize, usize)| p.0 == a) {
            pairs.push((a, b));
        }
    }
    pairs.sort_unstable();
    Ok(pairs)
}

fn same_visible(c: &ScopeColumn, name: &str) -> bool {
    !c.hidden && !c.merged && c.name.eq_ignore_ascii_case(name)
}

/// The condition `first.c = second.c AND ...` over the row [first, second], where the
/// second side starts at slot `first_width`.
pub fn condition(pairs: &[(usize, usize)], first_width: usize) -> Option<Expr> {
    pairs
        .iter()
        .map(|&(a, b)| Expr::Binary {
            op: BinaryOp::Eq,
            left: Box::new(Expr::Slot(a)),
            right: Box::new(Expr::Slot(first_width + b)),
        })
        .reduce(|acc, eq| Expr::Binary {
            op: BinaryOp::And,
            left: Box::new(acc),
            right: Box::new(eq),
        })
}

/// The scope of the joined row [coalesced..., first..., second...].
pub fn merged_scope(first: &Scope, second: &Scope, pairs: &[(usize, usize)]) -> Scope {
    let mut columns: Vec<ScopeColumn> = pairs
        .iter()
        .map(|&(a, _)| ScopeColumn {
            // No table: only an unqualified name reaches it.
            table: String::new(),
            name: first.columns[a].name.clone(),
            hidden: false,
            // The coalesced column compares under the first side's collation.
            text: first.columns[a].text.clone(),
            merged: false,
        })
        .collect();
    let mark = |side: &Scope, merged: &dyn Fn(usize) -> bool| {
        side.columns
            .iter()
            .enumerate()
            .map(|(i, c)| ScopeColumn {
                merged: c.merged || merged(i),
                ..c.clone()
            })
            .collect::<Vec<_>>()
    };
    columns.extend(mark(first, &|i| pairs.iter().any(|p| p.0 == i)));
    columns.extend(mark(second, &|i| pairs.iter().any(|p| p.1 == i)));
    Scope { columns }
}

/// The joined row: the coalesced values, then `pair_row` ([first, second], or a
/// NULL-extended one), the second side starting at slot `first_width`.
pub fn merged_row(
    pairs: &[(usize, usize)],
    first_width: usize,
    pair_row: Vec<Value>,
) -> Vec<Value> {
    let mut row = Vec::with_capacity(pairs.len() + pair_row.len());
    for &(a, b) in pairs {
        let v = &pair_row[a];
        row.push(if v.is_null() {
            pair_row[first_width + b].clone()
        } else {
            v.clone()
        });
    }
    row.extend(pair_row);
    row
}
