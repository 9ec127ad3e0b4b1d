//! Joining two FROM-clause relations (`a JOIN b ON …`, LEFT / RIGHT, CROSS, comma,
//! USING / NATURAL): binding the condition over the joined row, then picking how the
//! pairs are found, in this order:
//!
//! 1. index nested loop (join_index.rs): the inner side is a base table not yet read
//!    and some index of it has leading columns equated to expressions over the outer
//!    side; per outer row the inner rows come from a key read;
//! 2. hash join (join_hash.rs): an equality between the two sides whose values hash
//!    consistently with the comparison; a hash table bounded by `join_buffer_size`;
//! 3. nested loop: every pair.
//!
//! Every strategy re-checks the whole condition on each candidate pair, so the faster
//! ones only have to find a superset of the matching pairs. The output is the nested
//! loop's: per outer (preserved) row in order, its matches, then a NULL-extended row
//! for an outer join's unmatched row. A RIGHT JOIN runs as a LEFT JOIN with the sides
//! swapped; its row keeps the written order unless USING / NATURAL merges columns
//! (join_using.rs: then the preserved side comes first, as in MySQL).

use std::ops::Range;
use std::sync::Arc;

use kiln_common::{ErrorKind, KilnError, Result};

use super::RowEnv;
use super::access::Lock;
use super::bind::{self, Scope, bind};
use super::select::{ROWS_IN_MEMORY_MAX, Relation, SourceTable, read_table, run_subqueries};
use super::{join_hash, join_index, join_using};
use crate::ast::*;
use crate::dict::TableHandle;
use crate::eval::eval;
use crate::session::Session;
use crate::value::Value;

/// One side of a join: rows already read, or a base table read only as the join
/// needs it (its relation holds the scope and table, no rows yet).
pub(crate) enum Side {
    Rows(Relation),
    Table {
        rel: Relation,
        lock: Lock,
        /// WHERE conjuncts on this table alone (join_push.rs), bound to its slots.
        filter: Option<Expr>,
    },
}

impl Side {
    /// A base table not read yet.
    pub(crate) fn table(
        h: Arc<TableHandle>,
        alias: String,
        lock: Lock,
        filter: Option<Expr>,
    ) -> Side {
        Side::Table {
            rel: Relation {
                scope: Scope {
                    columns: super::select::table_scope(&h, &alias),
                },
                tables: vec![SourceTable {
                    handle: h,
                    alias,
                    offset: 0,
                }],
                rows: Vec::new(),
                keys: Vec::new(),
            },
            lock,
            filter,
        }
    }

    fn relation(&self) -> &Relation {
        match self {
            Side::Rows(r) | Side::Table { rel: r, .. } => r,
        }
    }

    /// The side's rows, reading the whole table if it is not read yet.
    pub(crate) fn read(self, sess: &mut Session) -> Result<Relation> {
        match self {
            Side::Rows(r) => Ok(r),
            Side::Table {
                mut rel,
                lock,
                filter,
            } => {
                let h = rel.tables[0].handle.clone();
                let (keys, rows) = read_table(
                    sess,
                    &h,
                    Some(&rel.scope),
                    filter.as_ref(),
                    lock,
                    false,
                    None,
                    None,
                )?;
                rel.rows = rows;
                rel.keys = keys;
                Ok(rel)
            }
        }
    }
}

/// The bound join: its row layout and condition.
pub(crate) struct Ctx {
    /// The joined row's scope (layout: [second, first] if `flip`, else [first,
    /// second]).
    pub scope: Scope,
    pub cond: Option<Expr>,
    pub flip: bool,
    /// Widths of the first (preserved / outer) and second (inner) sides.
    pub fw: usize,
    pub sw: usize,
    /// LEFT / RIGHT: unmatched first rows are NULL-extended.
    pub outer: bool,
    /// Condition evaluations (Kiln_join_pairs_checked).
    pub checked: u64,
}

impl Ctx {
    pub fn pair_row(&self, f: &[Value], s: &[Value]) -> Vec<Value> {
        if self.flip {
            [s, f].concat()
        } else {
            [f, s].concat()
        }
    }

    /// Slots of the first side in the joined row.
    pub fn first_range(&self) -> Range<usize> {
        if self.flip {
            self.sw..self.sw + self.fw
        } else {
            0..self.fw
        }
    }

    /// Slots of the second side in the joined row.
    pub fn second_range(&self) -> Range<usize> {
        if self.flip {
            0..self.sw
        } else {
            self.fw..self.fw + self.sw
        }
    }

    /// Whether the condition holds for a joined row.
    pub fn check(&mut self, sess: &mut Session, row: &[Value]) -> Result<bool> {
        self.checked += 1;
        match &self.cond {
            None => Ok(true),
            Some(c) => {
                let mut re = RowEnv {
                    inner: sess,
                    row,
                    scope: Some(&self.scope),
                };
                Ok(eval(c, &mut re)?.to_bool() == Some(true))
            }
        }
    }

    /// The row of an unmatched first row of an outer join.
    pub fn null_extended(&self, f: &[Value]) -> Vec<Value> {
        self.pair_row(f, &vec![Value::Null; self.sw])
    }
}

/// Appends a joined row, refusing more than the rows a query may hold.
pub(crate) fn push_row(rows: &mut Vec<Vec<Value>>, row: Vec<Value>) -> Result<()> {
    rows.push(row);
    if rows.len() > ROWS_IN_MEMORY_MAX {
        return Err(too_many_rows());
    }
    Ok(())
}

/// A join holding more rows than a query may.
pub(crate) fn too_many_rows() -> KilnError {
    KilnError::with_message(
        ErrorKind::ER_OUT_OF_RESOURCES,
        "Out of memory: the join has too many rows",
    )
}

/// Joins two relations already read (multi-table DML, comma lists, derived tables).
pub(crate) fn join(
    sess: &mut Session,
    left: Relation,
    right: Relation,
    kind: JoinKind,
    on: Option<&Expr>,
    using: &[String],
    natural: bool,
) -> Result<Relation> {
    join_sides(
        sess,
        Side::Rows(left),
        Side::Rows(right),
        kind,
        on,
        using,
        natural,
    )
}

/// Joins two sides given in written order. The preserved side is read first; the
/// other, if a base table not read yet, is read through an index per outer row where
/// the condition allows (join_index.rs), else whole.
pub(crate) fn join_sides(
    sess: &mut Session,
    left: Side,
    right: Side,
    kind: JoinKind,
    on: Option<&Expr>,
    using: &[String],
    natural: bool,
) -> Result<Relation> {
    let (first, second, swapped) = if kind == JoinKind::Right {
        (right, left, true)
    } else {
        (left, right, false)
    };
    let first = first.read(sess)?;
    let second_rel = second.relation();
    let pairs = join_using::shared_columns(&first.scope, &second_rel.scope, using, natural)?;
    // The row as built from the two sides: [second, first] keeps a RIGHT JOIN's
    // written order; with shared columns it is [first, second].
    let flip = swapped && !natural && using.is_empty();
    let fw = first.scope.columns.len();
    let sw = second_rel.scope.columns.len();
    let (a, b) = if flip {
        (&second_rel.scope, &first.scope)
    } else {
        (&first.scope, &second_rel.scope)
    };
    let mut scope = Scope::default();
    scope.columns.extend(a.columns.iter().cloned());
    scope.columns.extend(b.columns.iter().cloned());
    let cond = match on {
        Some(e) => Some(bind(&run_subqueries(sess, e)?, &scope, "on clause")?),
        // USING's equalities compare under the columns' collations, as ON would.
        None => match join_using::condition(&pairs, fw) {
            Some(c) if crate::coercion::may_annotate(&c, &scope) => {
                Some(crate::coercion::annotate(&c, &scope)?)
            }
            c => c,
        },
    };
    let mut ctx = Ctx {
        scope,
        cond,
        flip,
        fw,
        sw,
        outer: matches!(kind, JoinKind::Left | JoinKind::Right),
        checked: 0,
    };
    let (second, rows) = match second {
        Side::Table { rel, lock, filter } => {
            let first_off = ctx.first_range().start;
            let outer_type = |slot: usize| outer_column_type(&first, first_off, slot);
            let plan = join_index::choose(
                &rel.tables[0].handle,
                &ctx.scope,
                ctx.second_range(),
                ctx.cond.as_ref(),
                &outer_type,
            );
            match plan {
                Some(p) => {
                    let rows = join_index::run(
                        sess,
                        &mut ctx,
                        &first.rows,
                        &rel,
                        lock,
                        filter.as_ref(),
                        &p,
                    )?;
                    (rel, rows)
                }
                None => {
                    let rel = Side::Table { rel, lock, filter }.read(sess)?;
                    let rows = rows_join(sess, &mut ctx, &first, &rel)?;
                    (rel, rows)
                }
            }
        }
        Side::Rows(rel) => {
            let rows = rows_join(sess, &mut ctx, &first, &rel)?;
            (rel, rows)
        }
    };
    crate::status::add("Kiln_join_pairs_checked", ctx.checked);
    let mut rows = rows;
    let (a, b) = if flip {
        (&second, &first)
    } else {
        (&first, &second)
    };
    let mut tables = Vec::new();
    let aw = a.scope.columns.len();
    tables.extend(a.tables.iter().cloned());
    tables.extend(b.tables.iter().cloned().map(|mut t| {
        t.offset += aw;
        t
    }));
    let mut scope = ctx.scope;
    if !pairs.is_empty() {
        scope = join_using::merged_scope(&first.scope, &second.scope, &pairs);
        rows = rows
            .into_iter()
            .map(|r| join_using::merged_row(&pairs, fw, r))
            .collect();
        for t in &mut tables {
            t.offset += pairs.len();
        }
    }
    Ok(Relation {
        scope,
        tables,
        rows,
        keys: Vec::new(),
    })
}

/// The SQL type of joined-row slot `slot` if it is a column of one of the first
/// side's base tables (`first_off`: where the first side starts in the joined row).
fn outer_column_type(
    first: &Relation,
    first_off: usize,
    slot: usize,
) -> Option<crate::types::SqlType> {
    let s = slot.checked_sub(first_off)?;
    first.tables.iter().find_map(|t| {
        let i = s.checked_sub(t.offset)?;
        t.handle.def.columns.get(i).map(|c| c.ty.clone())
    })
}

/// Joins two read relations: a hash join where the condition has an equality the
/// values allow hashing on, else the nested loop.
fn rows_join(
    sess: &mut Session,
    ctx: &mut Ctx,
    first: &Relation,
    second: &Relation,
) -> Result<Vec<Vec<Value>>> {
    if let Some(rows) = join_hash::run(sess, ctx, first, second)? {
        return Ok(rows);
    }
    let mut rows = Vec::new();
    for l in &first.rows {
        let mut matched = false;
        for r in &second.rows {
            let row = ctx.pair_row(l, r);
            if ctx.check(sess, &row)? {
                matched = true;
                push_row(&mut rows, row)?;
            }
        }
        if ctx.outer && !matched {
            push_row(&mut rows, ctx.null_extended(l))?;
        }
    }
    Ok(rows)
}

/// Whether `e` gives the same value however often it is evaluated, with no effect
/// (no subqueries, variables assignments, RAND(), SLEEP() ...): it may be evaluated
/// apart from the condition it comes from.
pub(crate) fn deterministic(e: &Expr) -> bool {
    let mut ok = true;
    bind::visit(e, &mut |x| match x {
        Expr::Subquery(_)
        | Expr::Exists(_)
        | Expr::InSubquery { .. }
        | Expr::Quantified(_)
        | Expr::Assign { .. }
        | Expr::Window(_) => ok = false,
        Expr::Func { name, .. }
            if bind::is_aggregate(name)
                || matches!(
                    name.as_str(),
                    "rand" | "uuid" | "uuid_short" | "sleep" | "values" | "last_insert_id"
                )
                || crate::functions::has_side_effects(name) =>
        {
            ok = false
        }
        _ => {}
    });
    ok
}

/// Whether every slot `e` reads is in `range`, and whether it reads any.
pub(crate) fn slots_within(e: &Expr, range: &Range<usize>) -> (bool, bool) {
    let (mut inside, mut any) = (true, false);
    bind::visit(e, &mut |x| {
        if let Expr::Slot(i) = x {
            any = true;
            inside &= range.contains(i);
        }
    });
    (inside, any)
}

/// `e` with its slots moved down by `by` (a joined row's slots → one side's).
pub(crate) fn shift_slots(e: &Expr, by: usize) -> Result<Expr> {
    bind::rewrite(e, &mut |x| match x {
        Expr::Slot(i) => Ok(Some(Expr::Slot(i.saturating_sub(by)))),
        _ => Ok(None),
    })
}

/// An equality conjunct `l = r` of a bound condition, with the collation it compares
/// strings under (None: the connection's).
pub(crate) fn equality(e: &Expr) -> Option<(&Expr, &Expr, Option<crate::collate::Coll>)> {
    let (e, coll) = match e {
        Expr::InColl { expr, coll } => (&**expr, Some(*coll)),
        e => (e, None),
    };
    match e {
        Expr::Binary {
            op: BinaryOp::Eq,
            left,
            right,
        } if !matches!(**left, Expr::Row(_)) && !matches!(**right, Expr::Row(_)) => {
            Some((left, right, coll))
        }
        _ => None,
    }
}
