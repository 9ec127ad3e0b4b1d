//! EXPLAIN: owns MySQL 8.0's traditional tabular plan (id, select_type, table,
//! partitions, type, possible_keys, key, key_len, ref, rows, filtered, Extra) for
//! SELECT, INSERT / REPLACE, UPDATE and DELETE, built from the decisions the executor
//! itself makes, without running the statement.
//!
//! What each row says, and why it is true of kiln:
//! - A single-table SELECT, UPDATE or DELETE reads through `access::plan_detail`, the
//!   planner select.rs and dml.rs call: its access path gives type (`const` for a
//!   point read of a whole unique key, `ref` for one equality prefix, `range` for
//!   several prefixes or a range, `ALL` for a full scan), key, key_len (MySQL's
//!   byte count of the key parts used, `key_len::key_part_len`) and possible_keys (every
//!   index some conjunct constrains). A single-table UPDATE / DELETE says `range`
//!   where a SELECT says const / ref, as MySQL does.
//! - rows: the entries the access path reads, counted through the engine up to
//!   `DIVE_ROWS_MAX` (MySQL's index dives); a full scan's is the table's row estimate.
//!   filtered is 100.00: kiln keeps no selectivity statistics.
//! - A const read is done, as MySQL's optimizer does: a missing row is "no matching
//!   row in const table", a row the rest of WHERE rejects is "Impossible WHERE
//!   noticed after reading const tables". A WHERE with a constant false conjunct is
//!   "Impossible WHERE" (access.rs then reads nothing).
//! - Joins are listed in the order the executor reads the tables (join_order.rs; a
//!   RIGHT JOIN's right side first) and each joined table says what join.rs does
//!   (explain_join.rs): `eq_ref` / `ref` for an index nested loop, "Using join buffer
//!   (hash join)" or "(Block Nested Loop)" for a table read whole; a table WHERE
//!   conjuncts are pushed to (join_push.rs) shows its access path. A table whose ON
//!   condition (or, on the last table, the WHERE) is evaluated as it is joined is
//!   "Using where". Derived tables are materialized: `<derivedN>` plus DERIVED rows.
//! - "Using where" on a single table when a conjunct is re-checked on the rows read
//!   (not for the equalities a const / ref key read already guarantees); "Using
//!   temporary" for GROUP BY and DISTINCT (hash tables, group.rs); "Using filesort"
//!   for ORDER BY (select.rs always sorts); UNION DISTINCT is a UNION RESULT row with
//!   "Using temporary". kiln has no covering-index reads, no index condition pushdown
//!   and no sort-avoiding index order, so "Using index condition" never appears.
//! - "Using index" when the chosen index holds every column the query uses and the
//!   read takes them from it (covering.rs `plan_read`, the executor's own choice);
//!   type `index` when such an index is read whole for want of a key range (its
//!   rows: the table's estimate, or the LIMIT when read in ORDER BY order).
//! - No "Using filesort" when the rows are read in ORDER BY order (index_order.rs,
//!   the executor's own choice); "Backward index scan" when that read runs backwards.
//! - Subqueries are not run. An uncorrelated one (SUBQUERY) stands for a value of its
//!   result type while the enclosing block is planned, as the executor replaces it by
//!   its value; a correlated one (DEPENDENT SUBQUERY) is planned with the outer
//!   columns replaced by values of their types, as correlate.rs does per outer row.
//!   Plans that depend on such stand-ins report estimated rows and do no const read.
//!
//! Ids number the SELECTs in textual order (MySQL's select numbers); a block's rows
//! come first, then its subqueries' and derived tables' units.

use kiln_common::{ErrorKind, KilnError, Result};

mod dml;
mod stand_in;

pub(super) use stand_in::stand_in_subqueries;
use stand_in::{constant_true, correlated, outer_of};

use super::RowEnv;
use super::access::{self, Access, Lock};
use super::bind::{self, Scope, ScopeColumn, bind, conjuncts, is_constant};
use super::explain_join::{
    Leaf, LeafSource, comma_leaves, index_row, inner_plan, join_leaves, order_leaves,
};
use super::key_len::key_part_len;
use super::select::{
    check_unique_aliases, has_subquery, is_info_schema, resolve_table, table_scope,
};
use crate::ast::*;
use crate::dict::TableHandle;
use crate::eval::eval;
use crate::result::{ColumnInfo, ColumnKind, Outcome, Rows};
use crate::session::Session;
use crate::types::SqlType;
use crate::value::Value;

/// Index entries one EXPLAIN counts for `rows` before it settles for the estimate.
pub const DIVE_ROWS_MAX: u64 = 10_000;

/// The Extra text of a table joined by kiln's nested loop over a buffered input.
const JOIN_BUFFER: &str = "Using join buffer (Block Nested Loop)";

/// The Extra text of a table joined by a hash join (join_hash.rs).
const HASH_JOIN: &str = "Using join buffer (hash join)";

/// The Extra text of an index read backwards for ORDER BY ... DESC (MySQL 8.0's).
const BACKWARD: &str = "Backward index scan";

/// One row of the traditional output.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Row {
    pub id: Option<u64>,
    pub select_type: String,
    pub table: Option<String>,
    pub access: Option<&'static str>,
    pub possible_keys: Option<String>,
    pub key: Option<String>,
    pub key_len: Option<String>,
    pub reference: Option<String>,
    pub rows: Option<u64>,
    /// Percent of the rows read that the conditions keep (Some(100.0) for tables).
    pub filtered: Option<f64>,
    pub extra: Vec<String>,
}

impl Row {
    fn new(id: u64, select_type: &str) -> Row {
        Row {
            id: Some(id),
            select_type: select_type.to_string(),
            ..Row::default()
        }
    }

    /// A row about the block rather than a table ("No tables used", "Impossible
    /// WHERE"): every table column NULL.
    fn message(id: u64, select_type: &str, text: &str) -> Row {
        Row {
            extra: vec![text.to_string()],
            ..Row::new(id, select_type)
        }
    }

    fn values(self) -> Vec<Value> {
        let s = |o: Option<String>| o.map_or(Value::Null, Value::Str);
        vec![
            self.id.map_or(Value::Null, Value::UInt),
            Value::Str(self.select_type),
            s(self.table),
            Value::Null,
            s(self.access.map(str::to_string)),
            s(self.possible_keys),
            s(self.key),
            s(self.key_len),
            s(self.reference),
            self.rows.map_or(Value::Null, Value::UInt),
            self.filtered
                .map_or(Value::Null, |f| Value::Decimal(format!("{f:.2}"))),
            if self.extra.is_empty() {
                Value::Null
            } else {
                Value::Str(self.extra.join("; "))
            },
        ]
    }
}

/// The result columns, with MySQL 8.0's names, types, lengths and flags
/// (THD::send_explain_fields: id and rows BIGINT UNSIGNED of display width 3 and 10,
/// filtered DOUBLE(4,2), the rest VARCHAR of names' lengths).
pub fn columns() -> Vec<ColumnInfo> {
    let text = |name: &str, chars: u32, nullable: bool| ColumnInfo {
        not_null: !nullable,
        ..ColumnInfo::text(name, chars)
    };
    let int = |name: &str, width: u32, nullable: bool| ColumnInfo {
        length_chars: width,
        unsigned: true,
        not_null: !nullable,
        ..ColumnInfo::new(name, ColumnKind::LongLong)
    };
    const NAME_CHARS: u32 = 64;
    vec![
        int("id", 3, false),
        text("select_type", 19, false),
        text("table", NAME_CHARS, true),
        text("partitions", 8192 * 256, true),
        text("type", 10, true),
        text("possible_keys", NAME_CHARS * 64, true),
        text("key", NAME_CHARS, true),
        text("key_len", NAME_CHARS * 64, true),
        text("ref", NAME_CHARS * 16, true),
        int("rows", 10, true),
        ColumnInfo {
            length_chars: 4,
            decimals: 2,
            ..ColumnInfo::new("filtered", ColumnKind::Double)
        },
        text("Extra", 255, false),
    ]
}

/// Runs EXPLAIN: the plan of `stmt` as a result set. JSON, TREE and ANALYZE are
/// 1235.
pub fn explain(
    sess: &mut Session,
    format: ExplainFormat,
    analyze: bool,
    stmt: &Stmt,
) -> Result<Outcome> {
    let unsupported = if analyze {
        Some("EXPLAIN ANALYZE")
    } else {
        match format {
            ExplainFormat::Traditional => None,
            ExplainFormat::Json => Some("EXPLAIN FORMAT=JSON"),
            ExplainFormat::Tree => Some("EXPLAIN FORMAT=TREE"),
        }
    };
    if let Some(what) = unsupported {
        return Err(KilnError::new(ErrorKind::ER_NOT_SUPPORTED_YET, &[&what]));
    }
    let rows = plan_rows(sess, stmt)?;
    Ok(Outcome::Rows(Rows {
        columns: columns().into(),
        rows: rows.into_iter().map(Row::values).collect(),
    }))
}

/// The plan rows of an explainable statement.
pub fn plan_rows(sess: &mut Session, stmt: &Stmt) -> Result<Vec<Row>> {
    let param_base = sess.params.len();
    let mut x = Explainer {
        sess,
        rows: Vec::new(),
        param_base,
        outer_labels: Vec::new(),
        ordered: false,
    };
    let r = match stmt {
        Stmt::Select(s) => x.unit(s, 1, Unit::Top, false).map(|_| ()),
        Stmt::Insert(i) => x.insert(i),
        Stmt::Update(u) => x.update(u),
        Stmt::Delete(d) => x.delete(d),
        _ => Err(KilnError::internal(
            "EXPLAIN of a statement it cannot explain",
        )),
    };
    // Outer columns' stand-ins were lent to the session as parameters.
    x.sess.params.truncate(param_base);
    r.map(|()| x.rows)
}

/// The bytes that mark an outer column's stand-in in a substituted subquery (then
/// `Expr::Param` of that number): no statement writes a literal like it.
const OUTER_MARK: &[u8] = b"\xffkiln explain outer column\xff";

fn outer_mark(param: usize) -> Value {
    let mut b = OUTER_MARK.to_vec();
    b.extend_from_slice(param.to_string().as_bytes());
    Value::Bytes(b)
}

fn outer_mark_param(b: &[u8]) -> Option<usize> {
    b.strip_prefix(OUTER_MARK)
        .and_then(|n| std::str::from_utf8(n).ok())
        .and_then(|n| n.parse().ok())
}

/// Where a query expression stands, which names its SELECTs' select_type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Top,
    Subquery { dependent: bool },
    Derived,
}

fn select_type(unit: Unit, part: usize, simple: bool) -> &'static str {
    match (unit, part) {
        (Unit::Top, 0) if simple => "SIMPLE",
        (Unit::Top, 0) => "PRIMARY",
        (Unit::Subquery { dependent: false }, 0) => "SUBQUERY",
        (Unit::Subquery { dependent: true }, 0) => "DEPENDENT SUBQUERY",
        (Unit::Derived, 0) => "DERIVED",
        (Unit::Subquery { dependent: true }, _) => "DEPENDENT UNION",
        _ => "UNION",
    }
}

/// A query expression nested in a SELECT: a subquery, or a derived table (alias).
struct Nested {
    select: Select,
    derived: Option<String>,
}

/// The subqueries of `e`, outermost first, left to right.
fn subqueries_of(e: &Expr, out: &mut Vec<Nested>) {
    bind::visit(e, &mut |x| {
        let s: &Select = match x {
            Expr::Subquery(s) | Expr::Exists(s) => s,
            Expr::InSubquery { select, .. } => select,
            Expr::Quantified(q) => &q.select,
            _ => return,
        };
        out.push(Nested {
            select: s.clone(),
            derived: None,
        });
    });
}

/// The query expressions nested in one SELECT, in textual order (select list, FROM,
/// WHERE, GROUP BY, HAVING, ORDER BY): the order MySQL numbers them in.
fn nested_units(s: &Select) -> Vec<Nested> {
    fn from(f: &FromItem, out: &mut Vec<Nested>) {
        match f {
            FromItem::Table { .. } => {}
            FromItem::Derived { select, alias, .. } => out.push(Nested {
                select: (**select).clone(),
                derived: Some(alias.clone()),
            }),
            FromItem::Join {
                left, right, on, ..
            } => {
                from(left, out);
                from(right, out);
                if let Some(on) = on {
                    subqueries_of(on, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    for i in &s.items {
        subqueries_of(&i.expr, &mut out);
    }
    for f in &s.from {
        from(f, &mut out);
    }
    for e in s
        .filter
        .iter()
        .chain(&s.group_by)
        .chain(s.having.iter())
        .chain(s.order_by.iter().map(|o| &o.expr))
    {
        subqueries_of(e, &mut out);
    }
    out
}

/// How many SELECTs a query expression holds, nested ones included (the ids it uses).
fn unit_size(first: &Select) -> u64 {
    let mut n = 0;
    let mut part = Some(first);
    while let Some(p) = part {
        n += 1 + nested_units(p)
            .iter()
            .map(|u| unit_size(&u.select))
            .sum::<u64>();
        part = p.union.as_ref().map(|(_, next)| &**next);
    }
    n
}

/// Numbers nested units from `first`: (each unit's first number, (alias, number) of
/// each derived table, the next free number).
fn number(nested: &[Nested], first: u64) -> (Vec<u64>, Vec<(String, u64)>, u64) {
    let mut ids = Vec::with_capacity(nested.len());
    let mut derived = Vec::new();
    let mut next_id = first;
    for u in nested {
        ids.push(next_id);
        if let Some(a) = &u.derived {
            derived.push((a.clone(), next_id));
        }
        next_id += unit_size(&u.select);
    }
    (ids, derived, next_id)
}

/// The outer block's columns with a stand-in value and a `ref` label
/// (`schema.table.column`) for each, for planning its correlated subqueries.
struct Outer {
    scope: Scope,
    row: Vec<Value>,
    labels: Vec<String>,
}

struct Explainer<'s> {
    sess: &'s mut Session,
    rows: Vec<Row>,
    /// Parameters from here on stand for outer columns (`outer_labels`).
    param_base: usize,
    /// (parameter, label) of each outer column lent as a parameter.
    outer_labels: Vec<(usize, String)>,
    /// The last `table_row` reads in ORDER BY order (index_order.rs).
    ordered: bool,
}

impl Explainer<'_> {
    /// Explains a query expression (a SELECT and the ones UNIONed to it) whose first
    /// SELECT has number `id`. `guessed`: its outer references were replaced by
    /// stand-in values. Returns the next free number.
    fn unit(&mut self, first: &Select, id: u64, unit: Unit, guessed: bool) -> Result<u64> {
        let simple = unit == Unit::Top && first.union.is_none() && nested_units(first).is_empty();
        let mut ids = Vec::new();
        let mut next_id = id;
        let mut dedupe = false;
        let mut part = Some(first);
        while let Some(p) = part {
            ids.push(next_id);
            let st = select_type(unit, ids.len() - 1, simple);
            next_id = self.part(p, next_id, st, guessed)?;
            part = p.union.as_ref().map(|(all, next)| {
                dedupe |= !all;
                &**next
            });
        }
        if ids.len() > 1 && (dedupe || !first.union_order.is_empty()) {
            let names: Vec<String> = ids.iter().map(u64::to_string).collect();
            let mut row = Row {
                table: Some(format!("<union{}>", names.join(","))),
                access: Some("ALL"),
                ..Row::new(0, "UNION RESULT")
            };
            row.id = None;
            if dedupe {
                row.extra.push("Using temporary".into());
            }
            if !first.union_order.is_empty() {
                row.extra.push("Using filesort".into());
            }
            self.rows.push(row);
        }
        Ok(next_id)
    }

    /// One SELECT of a query expression: its own rows, then its nested units.
    fn part(&mut self, s: &Select, id: u64, st: &str, guessed: bool) -> Result<u64> {
        let nested = nested_units(s);
        let (ids, derived, next_id) = number(&nested, id + 1);
        let outer = self.block(s, id, st, &derived, guessed)?;
        for (u, uid) in nested.iter().zip(ids) {
            if u.derived.is_some() {
                self.unit(&u.select, uid, Unit::Derived, guessed)?;
            } else if correlated(self.sess, &u.select) {
                // Outer columns become parameters holding stand-ins, so the plan can
                // name them in `ref` (correlate.rs substitutes, marks become Params).
                let mut marks = Vec::with_capacity(outer.row.len());
                for (v, label) in outer.row.iter().zip(&outer.labels) {
                    let i = self.sess.params.len();
                    self.sess.params.push(v.clone());
                    self.outer_labels.push((i, label.clone()));
                    marks.push(outer_mark(i));
                }
                let sub = super::correlate::substitute(self.sess, &u.select, &outer.scope, &marks)?;
                self.unit(&sub, uid, Unit::Subquery { dependent: true }, true)?;
            } else {
                self.unit(&u.select, uid, Unit::Subquery { dependent: false }, guessed)?;
            }
        }
        Ok(next_id)
    }

    /// The rows of one SELECT's own tables. Returns its scope for correlated
    /// subqueries.
    fn block(
        &mut self,
        s: &Select,
        id: u64,
        st: &str,
        derived: &[(String, u64)],
        guessed: bool,
    ) -> Result<Outer> {
        let (filter, stand_ins) = match &s.filter {
            Some(f) => {
                let (e, g) = stand_in_subqueries(self.sess, f)?;
                (Some(e), g)
            }
            None => (None, false),
        };
        let guessed = guessed || stand_ins;
        if s.from.is_empty() {
            let no_columns = Scope::default();
            let impossible = match &filter {
                Some(f) if is_constant(f) => {
                    let f = crate::coercion::annotate(f, &no_columns)?;
                    eval(&f, self.sess)?.to_bool() != Some(true)
                }
                _ => false,
            };
            let text = if impossible {
                "Impossible WHERE"
            } else {
                "No tables used"
            };
            self.rows.push(Row::message(id, st, text));
            return Ok(Outer {
                scope: no_columns,
                row: Vec::new(),
                labels: Vec::new(),
            });
        }
        check_unique_aliases(&s.from)?;
        // MIN / MAX read from index ends (minmax.rs), as MySQL's "Select tables
        // optimized away" (kiln reads those rows when executing, not while planning).
        if !stand_ins
            && super::minmax::plan(self.sess, s, filter.as_ref(), super::access::Lock::None)?
                .is_some()
        {
            self.rows
                .push(Row::message(id, st, "Select tables optimized away"));
            return Ok(Outer {
                scope: Scope::default(),
                row: Vec::new(),
                labels: Vec::new(),
            });
        }
        // What runs over the block's rows after FROM and WHERE (select.rs run_one).
        let mut after = Vec::new();
        if !s.group_by.is_empty() || s.distinct {
            after.push("Using temporary".to_string());
        }
        if !s.order_by.is_empty() {
            after.push("Using filesort".to_string());
        }
        if let [FromItem::Table { name, alias }] = s.from.as_slice()
            && !is_info_schema(self.sess, name)
        {
            let h = resolve_table(self.sess, name)?;
            let alias = alias.clone().unwrap_or_else(|| h.def.name.clone());
            let scope = Scope {
                columns: table_scope(&h, &alias),
            };
            for item in &s.items {
                if !matches!(&item.expr, Expr::Column { name, .. } if name == "*") {
                    let (e, _) = stand_in_subqueries(self.sess, &item.expr)?;
                    bind(&e, &scope, "field list")?;
                }
            }
            let bound = match &filter {
                Some(f) => Some(bind(f, &scope, "where clause")?),
                None => None,
            };
            let table = TableRead {
                h: &h,
                alias: &alias,
                scope: &scope,
                filter: bound.as_ref(),
                dml: false,
                guessed,
                // Locking reads take the row from the clustered index.
                needed: match s.lock {
                    None => super::select::needed_columns(Some(s), &h),
                    Some(_) => None,
                },
                order: match s.lock {
                    None => super::index_order::request(self.sess, s, &h, &scope),
                    Some(_) => None,
                },
            };
            self.ordered = false;
            if let Some(mut row) = self.table_row(&table, id, st)? {
                if self.ordered {
                    // Read in ORDER BY order (index_order.rs): no sort.
                    after.retain(|x| x != "Using filesort");
                }
                if row.access != Some("const") {
                    row.extra.extend(after);
                }
                self.rows.push(row);
            }
            return Ok(outer_of(scope, &[(&h, 0)]));
        }
        // Joins, derived and information_schema tables: nested loops over inputs
        // read whole (select.rs relation_of / join), WHERE on the joined rows.
        let push = match &filter {
            Some(f) => super::join_push::Pushdown::new(self.sess, &s.from, f)?,
            None => super::join_push::Pushdown::default(),
        };
        let leaves = match super::join_order::plan(self.sess, &s.from, s.straight_join, &push)? {
            Some(order) => order_leaves(&order),
            None => comma_leaves(self.sess, &s.from, &push)?,
        };
        let where_filters = filter
            .as_ref()
            .is_some_and(|f| !constant_true(self.sess, f));
        let outer = self.join_rows(
            &leaves,
            id,
            |_| st.to_string(),
            derived,
            where_filters,
            after,
            Some(&push),
        )?;
        Ok(outer)
    }

    /// Rows for tables joined by nested loops, in loop order; `select_type` names each
    /// table's (UPDATE / DELETE targets differ in multi-table statements). `push`: a
    /// SELECT's WHERE conjuncts by table (join_push.rs); a SELECT also reads an inner
    /// base table through an index where join_index.rs chooses one (not multi-table
    /// DML, which reads every table whole).
    #[allow(clippy::too_many_arguments)]
    fn join_rows(
        &mut self,
        leaves: &[Leaf],
        id: u64,
        select_type: impl Fn(&Leaf) -> String,
        derived: &[(String, u64)],
        where_filters: bool,
        after: Vec<String>,
        push: Option<&super::join_push::Pushdown>,
    ) -> Result<Outer> {
        let mut scope = Scope::default();
        let mut tables: Vec<(&TableHandle, usize)> = Vec::new();
        let mut starts = Vec::with_capacity(leaves.len());
        let block_start = self.rows.len();
        let last = leaves.len().saturating_sub(1);
        for (i, leaf) in leaves.iter().enumerate() {
            let mut row = Row::new(id, &select_type(leaf));
            row.access = Some("ALL");
            row.filtered = Some(100.0);
            starts.push(scope.columns.len());
            let mut joined = (None, None, false);
            let mut leaf_scope = Scope::default();
            match &leaf.source {
                LeafSource::Base(h) => {
                    row.table = Some(leaf.alias.clone());
                    row.rows = Some(table_rows(h));
                    leaf_scope.columns = table_scope(h, &leaf.alias);
                    let pushed = push
                        .filter(|_| leaf.eligible)
                        .and_then(|p| p.filter_for(&leaf.alias, &leaf_scope));
                    if let Some(info) = &leaf.inner_of {
                        let from = starts[info.outer_start];
                        let base = push.is_some().then_some(&**h);
                        joined =
                            inner_plan(self.sess, &leaf_scope, info, &scope, from, &tables, base)?;
                        if let (cond, Some(ij), _) = &joined {
                            index_row(
                                &mut row,
                                h,
                                ij,
                                cond.as_ref(),
                                &scope,
                                from,
                                &tables,
                                pushed.is_some(),
                            );
                        }
                    }
                    if let (Some(f), None) = (&pushed, &joined.1) {
                        let t = TableRead {
                            h,
                            alias: &leaf.alias,
                            scope: &leaf_scope,
                            filter: Some(f),
                            dml: false,
                            guessed: false,
                            needed: None,
                            order: None,
                        };
                        match self.table_row(&t, id, &select_type(leaf))? {
                            Some(r) => row = r,
                            None => {
                                // No row can match: the block's one row says why.
                                let why = self.rows.pop();
                                self.rows.truncate(block_start);
                                self.rows.extend(why);
                                scope.columns.extend(leaf_scope.columns);
                                return Ok(outer_of(scope, &tables));
                            }
                        }
                    }
                    tables.push((h, scope.columns.len()));
                    scope.columns.extend(leaf_scope.columns.iter().cloned());
                }
                LeafSource::Derived(cols) => {
                    let n = derived
                        .iter()
                        .find(|(a, _)| *a == leaf.alias)
                        .map_or(0, |(_, n)| *n);
                    row.table = Some(format!("<derived{n}>"));
                    scope.columns.extend(cols.iter().map(|c| ScopeColumn {
                        table: leaf.alias.clone(),
                        name: c.clone(),
                        hidden: false,
                        text: None,
                        merged: false,
                    }));
                }
                LeafSource::InfoSchema(name) => {
                    row.table = Some(leaf.alias.clone());
                    if let Ok(Some(v)) = super::infoschema::table(self.sess, name) {
                        scope.columns.extend(v.columns.iter().map(|c| ScopeColumn {
                            table: leaf.alias.clone(),
                            name: c.to_string(),
                            hidden: false,
                            text: None,
                            merged: false,
                        }));
                    }
                }
            }
            if let (None, Some(info)) = (&joined.1, &leaf.inner_of)
                && !matches!(leaf.source, LeafSource::Base(_))
            {
                leaf_scope.columns = scope.columns[starts[i]..].to_vec();
                let from = starts[info.outer_start];
                let outer = Scope {
                    columns: scope.columns[..starts[i]].to_vec(),
                };
                joined = inner_plan(self.sess, &leaf_scope, info, &outer, from, &tables, None)?;
            }
            let using_where = "Using where".to_string();
            if (leaf.condition && joined.1.is_none() || (i == last && where_filters))
                && !row.extra.contains(&using_where)
            {
                row.extra.push(using_where);
            }
            if i > 0 && joined.1.is_none() {
                row.extra
                    .push(if joined.2 { HASH_JOIN } else { JOIN_BUFFER }.into());
            }
            if i == 0 {
                row.extra.extend(after.iter().cloned());
            }
            self.rows.push(row);
        }
        Ok(outer_of(scope, &tables))
    }

    /// The row of a table read through access.rs (None when the plan found that no
    /// row can match: the "Impossible WHERE" row is pushed instead).
    fn table_row(&mut self, t: &TableRead<'_>, id: u64, st: &str) -> Result<Option<Row>> {
        let conj: Vec<&Expr> = t.filter.map(conjuncts).unwrap_or_default();
        // A condition on outer columns alone is settled per outer row, not here.
        let planned: Vec<&Expr> = conj
            .iter()
            .copied()
            .filter(|e| !is_constant(e) || self.outer_params(e).is_empty())
            .collect();
        let (plan, ordered) = super::index_order::plan_ordered(
            t.h,
            &planned,
            self.sess,
            t.needed.as_deref(),
            t.order.as_ref(),
        )?;
        self.ordered = ordered.is_some();
        let def = &t.h.def;
        let mut row = Row::new(id, st);
        row.table = Some(t.alias.to_string());
        row.filtered = Some(100.0);
        if !plan.candidates.is_empty() {
            let names: Vec<&str> = plan
                .candidates
                .iter()
                .map(|i| def.indexes[*i].name.as_str())
                .collect();
            row.possible_keys = Some(names.join(","));
        }
        let (index, ranges, point) = match &plan.access {
            Access::Empty => {
                self.rows.push(Row::message(id, st, "Impossible WHERE"));
                return Ok(None);
            }
            Access::Full => {
                row.access = Some("ALL");
                row.rows = Some(table_rows(t.h));
                if conj.iter().any(|e| !constant_true(self.sess, e)) {
                    row.extra.push("Using where".into());
                }
                return Ok(Some(row));
            }
            Access::Index {
                index,
                ranges,
                point,
            } => (*index, ranges, *point),
        };
        let ix = &def.indexes[index];
        if plan.full_index {
            // The whole covering index, in place of the table (MySQL's `index`).
            let key_len: u32 = ix
                .parts
                .iter()
                .map(|p| key_part_len(&def.columns[p.column], p))
                .sum();
            row.access = Some("index");
            row.key = Some(ix.name.clone());
            row.key_len = Some(key_len.to_string());
            // Read in order under a LIMIT: about that many entries.
            let limit = t
                .order
                .as_ref()
                .and_then(|o| o.limit)
                .filter(|_| ordered.is_some());
            row.rows = Some(match limit {
                Some(l) => table_rows(t.h).min(l).max(1),
                None => table_rows(t.h),
            });
            if conj.iter().any(|e| !constant_true(self.sess, e)) {
                row.extra.push("Using where".into());
            }
            if ordered == Some(true) {
                row.extra.push(BACKWARD.into());
            }
            if plan.covering {
                row.extra.push("Using index".into());
            }
            return Ok(Some(row));
        }
        let used = plan.eq_parts + usize::from(plan.range_part);
        let key_len: u32 = ix.parts[..used.min(ix.parts.len())]
            .iter()
            .map(|p| key_part_len(&def.columns[p.column], p))
            .sum();
        row.key = Some(ix.name.clone());
        row.key_len = Some(key_len.to_string());
        let one_prefix = plan.eq_single && !plan.range_part && plan.eq_parts > 0;
        let is_const = !t.dml && point && ranges.len() == 1;
        row.access = Some(if is_const {
            "const"
        } else if one_prefix && !t.dml {
            "ref"
        } else {
            "range"
        });
        let mut from_outer = false;
        if one_prefix {
            // Each part's value: a constant, an outer column, or an expression.
            let mut refs = Vec::with_capacity(plan.eq_parts);
            for p in &ix.parts[..plan.eq_parts] {
                let mut label = "const".to_string();
                for e in &conj {
                    if access::single_equality(t.h, p.column, e, self.sess)? {
                        label = self.ref_label(e);
                        break;
                    }
                }
                from_outer |= label != "const";
                refs.push(label);
            }
            row.reference = Some(refs.join(","));
        }
        if from_outer && is_const {
            // A unique key read per outer row: MySQL's eq_ref.
            row.access = Some("eq_ref");
        }
        // Conjuncts the key read does not settle are re-checked on each row.
        let key_columns: Vec<usize> = ix.parts[..plan.eq_parts]
            .iter()
            .filter(|p| p.prefix_chars.is_none())
            .map(|p| p.column)
            .collect();
        let mut residual = false;
        for e in &conj {
            let mut settled = constant_true(self.sess, e);
            for c in &key_columns {
                settled = settled || access::single_equality(t.h, *c, e, self.sess)?;
            }
            residual |= !settled;
        }
        let uses_where = if t.dml {
            !conj.is_empty()
        } else if is_const {
            false
        } else {
            plan.range_part || !one_prefix || residual
        };
        if uses_where {
            row.extra.push("Using where".into());
        }
        if ordered == Some(true) && !is_const {
            row.extra.push(BACKWARD.into());
        }
        if plan.covering {
            row.extra.push("Using index".into());
        }
        if t.guessed {
            // Stand-in key values: estimate instead of reading.
            let n = table_rows(t.h);
            row.rows = Some(if point {
                ranges.len() as u64
            } else {
                (n / 10).max(1)
            });
            return Ok(Some(row));
        }
        if is_const {
            return self.const_row(t, &plan.access, row, id, st);
        }
        debug_assert!(!from_outer, "outer columns make the plan guessed");
        let mask = vec![false; def.columns.len()];
        let mut n = 0u64;
        self.sess.with_trx(|_, trx| {
            access::fetch(
                trx,
                t.h,
                &plan.access,
                Lock::None,
                false,
                Some(&mask),
                // (not covering: SERIALIZABLE would lock what the dive counts)
                false,
                &mut |_, _| {
                    n += 1;
                    Ok(n < DIVE_ROWS_MAX)
                },
            )
        })?;
        row.rows = Some(if n >= DIVE_ROWS_MAX {
            table_rows(t.h).max(n)
        } else {
            n.max(1)
        });
        Ok(Some(row))
    }

    /// The parameters of `e` that stand for outer columns.
    fn outer_params(&self, e: &Expr) -> Vec<usize> {
        let mut out = Vec::new();
        bind::visit(e, &mut |x| {
            if let Expr::Param(i) = x
                && *i >= self.param_base
            {
                out.push(*i);
            }
        });
        out
    }

    /// EXPLAIN's `ref` for the value an equality `e` gives a key part: `const`, the
    /// outer column it names (`schema.table.column`), or `func` for an expression
    /// over outer columns.
    fn ref_label(&self, e: &Expr) -> String {
        let params = self.outer_params(e);
        if params.is_empty() {
            return "const".into();
        }
        let e = match e {
            Expr::InColl { expr, .. } => expr,
            e => e,
        };
        let lone = match e {
            Expr::Binary { left, right, .. } => match (&**left, &**right) {
                (Expr::Param(i), _) | (_, Expr::Param(i)) => Some(*i),
                _ => None,
            },
            _ => None,
        };
        match lone.and_then(|i| self.outer_labels.iter().find(|(p, _)| *p == i)) {
            Some((_, label)) if params.len() == 1 => label.clone(),
            _ => "func".into(),
        }
    }

    /// A const table is read while planning, as MySQL's optimizer reads it.
    fn const_row(
        &mut self,
        t: &TableRead<'_>,
        acc: &Access,
        mut row: Row,
        id: u64,
        st: &str,
    ) -> Result<Option<Row>> {
        let mut found = None;
        self.sess.with_trx(|_, trx| {
            access::fetch(
                trx,
                t.h,
                acc,
                Lock::None,
                false,
                None,
                false,
                &mut |_, r| {
                    found = Some(r);
                    Ok(false)
                },
            )
        })?;
        let Some(values) = found else {
            self.rows
                .push(Row::message(id, st, "no matching row in const table"));
            return Ok(None);
        };
        if let Some(f) = t.filter
            && !has_subquery(f)
        {
            let mut env = RowEnv {
                inner: &mut *self.sess,
                row: &values,
                scope: Some(t.scope),
            };
            if eval(f, &mut env)?.to_bool() != Some(true) {
                self.rows.push(Row::message(
                    id,
                    st,
                    "Impossible WHERE noticed after reading const tables",
                ));
                return Ok(None);
            }
        }
        row.rows = Some(1);
        Ok(Some(row))
    }
}

/// A base table read through access.rs.
struct TableRead<'a> {
    h: &'a TableHandle,
    alias: &'a str,
    scope: &'a Scope,
    filter: Option<&'a Expr>,
    /// UPDATE / DELETE (MySQL shows their key reads as `range`, with no const read).
    dml: bool,
    /// Key values come from stand-ins for subqueries or outer columns.
    guessed: bool,
    /// The columns the query uses (select.rs `needed_columns`; None: all).
    needed: Option<Vec<bool>>,
    /// The ORDER BY an index may serve (index_order.rs).
    order: Option<super::index_order::OrderReq>,
}

/// The table's row estimate (at least 1, as MySQL's optimizer counts a table).
fn table_rows(h: &TableHandle) -> u64 {
    h.rows_estimate().max(1)
}
