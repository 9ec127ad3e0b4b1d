//! What the `mysql` mode runs: sysbench's statements (oltp_common.lua's text, one
//! prepared statement per kind and table) and the plan of one transaction —
//! `point_select`: one `SELECT c FROM sbtest<t> WHERE id=?`; `read_write`: BEGIN, ten
//! point selects, the simple / sum / order / distinct ranges, an index update, a
//! non-index update, DELETE and INSERT of one id, COMMIT — each statement on a table
//! drawn at random, as sysbench does. Keys are uniform in 1..=table-size (sysbench's
//! default `--rand-type` is `special`; see docs/kiln-bench.md).

use crate::mysql_wire::Param;
use crate::rng::Rng;

/// Which transaction a connection runs in a closed loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    PointSelect,
    ReadWrite,
}

/// A kind of statement; one prepared statement per kind (and per table for the
/// statements that name a table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Begin,
    Commit,
    Rollback,
    Point,
    SimpleRange,
    SumRange,
    OrderRange,
    DistinctRange,
    IndexUpdate,
    NonIndexUpdate,
    Delete,
    Insert,
}

const ALL: [Kind; 12] = [
    Kind::Begin,
    Kind::Commit,
    Kind::Rollback,
    Kind::Point,
    Kind::SimpleRange,
    Kind::SumRange,
    Kind::OrderRange,
    Kind::DistinctRange,
    Kind::IndexUpdate,
    Kind::NonIndexUpdate,
    Kind::Delete,
    Kind::Insert,
];

impl Kind {
    fn per_table(self) -> bool {
        !matches!(self, Kind::Begin | Kind::Commit | Kind::Rollback)
    }

    /// The statement text for table `sbtest<t>`.
    pub fn sql(self, t: u32) -> String {
        match self {
            Kind::Begin => "BEGIN".into(),
            Kind::Commit => "COMMIT".into(),
            Kind::Rollback => "ROLLBACK".into(),
            Kind::Point => format!("SELECT c FROM sbtest{t} WHERE id=?"),
            Kind::SimpleRange => format!("SELECT c FROM sbtest{t} WHERE id BETWEEN ? AND ?"),
            Kind::SumRange => format!("SELECT SUM(k) FROM sbtest{t} WHERE id BETWEEN ? AND ?"),
            Kind::OrderRange => {
                format!("SELECT c FROM sbtest{t} WHERE id BETWEEN ? AND ? ORDER BY c")
            }
            Kind::DistinctRange => {
                format!("SELECT DISTINCT c FROM sbtest{t} WHERE id BETWEEN ? AND ? ORDER BY c")
            }
            Kind::IndexUpdate => format!("UPDATE sbtest{t} SET k=k+1 WHERE id=?"),
            Kind::NonIndexUpdate => format!("UPDATE sbtest{t} SET c=? WHERE id=?"),
            Kind::Delete => format!("DELETE FROM sbtest{t} WHERE id=?"),
            Kind::Insert => format!("INSERT INTO sbtest{t} (id, k, c, pad) VALUES (?, ?, ?, ?)"),
        }
    }
}

impl Workload {
    /// The kinds a connection prepares.
    pub fn kinds(self) -> &'static [Kind] {
        match self {
            Workload::PointSelect => &[Kind::Point],
            Workload::ReadWrite => &ALL,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Workload::PointSelect => "point_select",
            Workload::ReadWrite => "read_write",
        }
    }
}

/// One statement of a planned transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub kind: Kind,
    pub table: u32,
    /// The id (point statements, updates, delete/insert) or the range's first id.
    pub id: u64,
    /// Insert: the new row's `k`.
    pub k: u64,
}

/// Sizes of the data and the ranges.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub tables: u32,
    pub table_size: u64,
    pub range_size: u64,
}

/// Statements of sysbench's oltp_read_write per transaction: 10 point selects.
const POINT_SELECTS: usize = 10;

/// Appends the statements of one transaction of `w` to `plan` (cleared first).
pub fn plan(w: Workload, s: &Shape, rng: &mut Rng, plan: &mut Vec<Step>) {
    plan.clear();
    let step = |kind: Kind, rng: &mut Rng| {
        let table = if kind.per_table() {
            1 + rng.below(u64::from(s.tables)) as u32
        } else {
            0
        };
        let span = if matches!(
            kind,
            Kind::SimpleRange | Kind::SumRange | Kind::OrderRange | Kind::DistinctRange
        ) {
            s.range_size.min(s.table_size)
        } else {
            1
        };
        let id = 1 + rng.below(s.table_size - span + 1);
        let k = 1 + rng.below(s.table_size);
        Step { kind, table, id, k }
    };
    match w {
        Workload::PointSelect => plan.push(step(Kind::Point, rng)),
        Workload::ReadWrite => {
            plan.push(step(Kind::Begin, rng));
            for _ in 0..POINT_SELECTS {
                plan.push(step(Kind::Point, rng));
            }
            for kind in [
                Kind::SimpleRange,
                Kind::SumRange,
                Kind::OrderRange,
                Kind::DistinctRange,
                Kind::IndexUpdate,
                Kind::NonIndexUpdate,
            ] {
                plan.push(step(kind, rng));
            }
            let del = step(Kind::Delete, rng);
            plan.push(del);
            plan.push(Step {
                kind: Kind::Insert,
                ..del
            });
            plan.push(step(Kind::Commit, rng));
        }
    }
}

/// Prepared statement ids of one connection: one per kind and table.
pub struct Prepared {
    tables: u32,
    /// Indexed by `slot`.
    ids: Vec<u32>,
}

impl Prepared {
    /// The (kind, table) pairs to prepare for `w`, in slot order.
    pub fn wanted(w: Workload, tables: u32) -> Vec<(Kind, u32)> {
        let mut v = Vec::new();
        for &k in w.kinds() {
            if k.per_table() {
                v.extend((1..=tables).map(|t| (k, t)));
            } else {
                v.push((k, 0));
            }
        }
        v
    }

    /// `ids` in the order of `wanted`.
    pub fn new(w: Workload, tables: u32, ids: Vec<u32>) -> Prepared {
        debug_assert_eq!(ids.len(), Self::wanted(w, tables).len());
        Prepared { tables, ids }
    }

    /// Nothing prepared yet.
    pub fn none() -> Prepared {
        Prepared {
            tables: 0,
            ids: Vec::new(),
        }
    }

    /// The statement id of `kind` on `table` (0 for table-less kinds).
    pub fn id(&self, w: Workload, kind: Kind, table: u32) -> u32 {
        let mut slot = 0usize;
        for &k in w.kinds() {
            if k == kind {
                return self.ids[slot + if k.per_table() { table as usize - 1 } else { 0 }];
            }
            slot += if k.per_table() {
                self.tables as usize
            } else {
                1
            };
        }
        unreachable!("{kind:?} is not prepared for {w:?}")
    }
}

/// At most four parameters (INSERT's), without allocating.
pub struct Params<'a> {
    items: [Param<'a>; 4],
    len: usize,
}

impl<'a> Params<'a> {
    fn of(list: &[Param<'a>]) -> Params<'a> {
        let mut items = [Param::Int(0); 4];
        items[..list.len()].copy_from_slice(list);
        Params {
            items,
            len: list.len(),
        }
    }

    pub fn as_slice(&self) -> &[Param<'a>] {
        &self.items[..self.len]
    }
}

/// The parameters of `step`; `c` and `pad` are scratch space for the random strings.
pub fn params<'a>(
    step: &Step,
    rng: &mut Rng,
    s: &Shape,
    c: &'a mut Vec<u8>,
    pad: &'a mut Vec<u8>,
) -> Params<'a> {
    let id = step.id as i64;
    match step.kind {
        Kind::Begin | Kind::Commit | Kind::Rollback => Params::of(&[]),
        Kind::Point | Kind::IndexUpdate | Kind::Delete => Params::of(&[Param::Int(id)]),
        Kind::SimpleRange | Kind::SumRange | Kind::OrderRange | Kind::DistinctRange => {
            let last = step.id + s.range_size.min(s.table_size) - 1;
            Params::of(&[Param::Int(id), Param::Int(last as i64)])
        }
        Kind::NonIndexUpdate => {
            c.clear();
            crate::row::digit_groups(c, rng, 10);
            Params::of(&[Param::Str(c), Param::Int(id)])
        }
        Kind::Insert => {
            c.clear();
            pad.clear();
            crate::row::digit_groups(c, rng, 10);
            crate::row::digit_groups(pad, rng, 5);
            Params::of(&[
                Param::Int(id),
                Param::Int(step.k as i64),
                Param::Str(c),
                Param::Str(pad),
            ])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHAPE: Shape = Shape {
        tables: 3,
        table_size: 1000,
        range_size: 100,
    };

    #[test]
    fn read_write_plan_is_sysbench_shaped() {
        let mut rng = Rng::new(1, 2);
        let mut p = Vec::new();
        for _ in 0..200 {
            plan(Workload::ReadWrite, &SHAPE, &mut rng, &mut p);
            assert_eq!(p.len(), 1 + 10 + 4 + 2 + 2 + 1);
            assert_eq!(p[0].kind, Kind::Begin);
            assert_eq!(p[p.len() - 1].kind, Kind::Commit);
            let (del, ins) = (p[17], p[18]);
            assert_eq!((del.kind, ins.kind), (Kind::Delete, Kind::Insert));
            assert_eq!((del.id, del.table), (ins.id, ins.table));
            for s in &p[1..p.len() - 1] {
                assert!((1..=3).contains(&s.table), "{s:?}");
                assert!(s.id >= 1 && s.id <= 1000);
                if s.kind == Kind::SumRange {
                    assert!(s.id + 99 <= 1000);
                }
            }
        }
        plan(Workload::PointSelect, &SHAPE, &mut rng, &mut p);
        assert_eq!(p.len(), 1);
    }

    #[test]
    fn prepared_ids_by_kind_and_table() {
        let wanted = Prepared::wanted(Workload::ReadWrite, 3);
        assert_eq!(wanted.len(), 3 + 9 * 3);
        let ids: Vec<u32> = (100..100 + wanted.len() as u32).collect();
        let p = Prepared::new(Workload::ReadWrite, 3, ids);
        for (i, &(k, t)) in wanted.iter().enumerate() {
            assert_eq!(p.id(Workload::ReadWrite, k, t), 100 + i as u32);
        }
        let p = Prepared::new(Workload::PointSelect, 2, vec![7, 8]);
        assert_eq!(p.id(Workload::PointSelect, Kind::Point, 2), 8);
    }

    #[test]
    fn params_match_placeholders() {
        let mut rng = Rng::new(3, 4);
        let (mut c, mut pad) = (Vec::new(), Vec::new());
        for &k in Workload::ReadWrite.kinds() {
            let step = Step {
                kind: k,
                table: 1,
                id: 5,
                k: 9,
            };
            let p = params(&step, &mut rng, &SHAPE, &mut c, &mut pad);
            let out = p.as_slice();
            assert_eq!(out.len(), k.sql(1).matches('?').count(), "{k:?}");
            if k == Kind::Insert {
                assert!(matches!(out[2], Param::Str(s) if s.len() == 119));
                assert!(matches!(out[3], Param::Str(s) if s.len() == 59));
            }
        }
    }
}
