//! Access paths planned once for a prepared statement (prepared_plan.rs): the planner
//! (access.rs, covering.rs, index_order.rs) run with a `Trace` records what its
//! choice depended on, and an `AccessShape` replays that choice for other parameter
//! values without planning again.
//!
//! What the planner's choice depends on, given the table and the bound WHERE: the
//! structure of the conjuncts (fixed for a prepared statement) and, for each constant
//! it looks at, whether the constant converts losslessly to the key column it is
//! compared with (`access::key_value`: a NULL or a lossy value drops the conjunct
//! from the key); for each key build, whether any range is left (a `>` bound past
//! the last key leaves none); and whether a constant conjunct is false. Every other
//! decision (the scores, which index, which parts are equalities, index order,
//! covering) is a function of those outcomes and of counts the structure fixes.
//!
//! So a trace is kept as a shape only if every probed constant is a parameter or a
//! literal (evaluating it cannot fail, warn or act), every probe converted, every
//! build left ranges and no conjunct was constant. A replay evaluates the same
//! probes for this execution's parameters: if every one converts, the planner would
//! take the same path, so the shape's choice stands and only the key ranges are built
//! again, from the new values, by the planner's own `access::build`; a build that
//! comes out empty, or a probe that does not convert, declines (the caller plans).

use std::ops::Bound;

use kiln_common::Result;

use super::access::{Access, KeyVal, Plan, ValueRange, build, key_value};
use crate::ast::Expr;
use crate::dict::TableHandle;
use crate::eval::{Env, eval};
use crate::value::Value;

/// `KeyVal::probe` of a value made without a trace.
pub const NO_PROBE: u32 = u32::MAX;

/// What one planning depended on (see the module comment). `Trace::off()` records
/// nothing and costs nothing.
#[derive(Default)]
pub struct Trace {
    on: bool,
    probes: Vec<Probe>,
    builds: Vec<KeyBuild>,
    /// A value made a decision a replay cannot check (a probe that did not convert, an
    /// empty build): a trace at another execution may still give a shape.
    value_dependent: bool,
    /// The statement's structure rules a shape out (a probed constant that is not a
    /// parameter or literal, a constant conjunct): no trace will give one.
    fixed: bool,
}

/// A constant the planner converted to a key column.
struct Probe {
    /// The expression's address in the conjuncts planned (one probe per constant and
    /// column, however often the planner looks at it).
    addr: usize,
    col: usize,
    expr: Expr,
}

/// One key build: the values of each equality part and of the range, as probe
/// numbers.
#[derive(Debug, Clone)]
struct KeyBuild {
    index: usize,
    eqs: Vec<Vec<u32>>,
    range: Option<Vec<(Bound<u32>, Bound<u32>)>>,
}

impl Trace {
    pub fn off() -> Trace {
        Trace::default()
    }

    pub fn on() -> Trace {
        Trace {
            on: true,
            ..Trace::default()
        }
    }

    /// The planner met a decision no replay can check (a constant conjunct).
    pub fn no_shape(&mut self) {
        self.fixed |= self.on;
    }

    /// Whether a trace of another execution could give a shape where this one did not.
    pub fn may_shape_later(&self) -> bool {
        !self.fixed
    }

    /// Evaluates the constant `e` and converts it to column `col`'s key value:
    /// (whether it is NULL, the key value if the conversion is lossless).
    pub fn probe(
        &mut self,
        t: &TableHandle,
        col: usize,
        e: &Expr,
        env: &mut dyn Env,
    ) -> Result<(bool, Option<KeyVal>)> {
        let v = eval(e, env)?;
        let null = v.is_null();
        let k = key_value(t, col, &v);
        if !self.on {
            return Ok((null, k.map(|v| KeyVal { v, probe: NO_PROBE })));
        }
        if !matches!(e, Expr::Param(_) | Expr::Literal(_)) {
            self.fixed = true;
        }
        if k.is_none() {
            self.value_dependent = true;
        }
        let addr = e as *const Expr as usize;
        let id = match self
            .probes
            .iter()
            .position(|p| p.addr == addr && p.col == col)
        {
            Some(i) => i,
            None => {
                self.probes.push(Probe {
                    addr,
                    col,
                    expr: e.clone(),
                });
                self.probes.len() - 1
            }
        };
        Ok((
            null,
            k.map(|v| KeyVal {
                v,
                probe: id as u32,
            }),
        ))
    }

    /// Records a key build of index `index` that gave `access`: its number.
    pub fn built(
        &mut self,
        index: usize,
        eqs: &[Vec<KeyVal>],
        range: Option<&[ValueRange]>,
        access: &Access,
    ) -> Option<usize> {
        if !self.on {
            return None;
        }
        if matches!(access, Access::Empty) {
            self.value_dependent = true;
        }
        let bound = |b: &Bound<KeyVal>| b.as_ref().map(|k| k.probe);
        self.builds.push(KeyBuild {
            index,
            eqs: eqs
                .iter()
                .map(|vs| vs.iter().map(|k| k.probe).collect())
                .collect(),
            range: range.map(|r| r.iter().map(|(lo, hi)| (bound(lo), bound(hi))).collect()),
        });
        Some(self.builds.len() - 1)
    }

    /// The shape of the choice `plan` (read in index order if `ordered`), if a replay
    /// can stand for planning (module comment).
    pub fn shape(self, plan: &Plan, ordered: Option<bool>) -> Option<AccessShape> {
        if !self.on
            || self.value_dependent
            || self.fixed
            || self
                .builds
                .iter()
                .flat_map(|b| b.eqs.iter().flatten())
                .any(|p| *p == NO_PROBE)
        {
            return None;
        }
        let mut plan = plan.clone();
        if plan.built.is_some() {
            // Built again at each replay.
            plan.access = Access::Empty;
        }
        // What EXPLAIN shows, not what the read needs: no copy per replay.
        plan.candidates = Vec::new();
        Some(AccessShape {
            probes: self.probes.into_iter().map(|p| (p.expr, p.col)).collect(),
            builds: self.builds,
            plan,
            ordered,
        })
    }
}

/// A planning's choice, for other values of its parameters.
#[derive(Debug, Clone)]
pub struct AccessShape {
    /// The constants probed (parameters and literals) and their key columns.
    probes: Vec<(Expr, usize)>,
    builds: Vec<KeyBuild>,
    plan: Plan,
    ordered: Option<bool>,
}

impl AccessShape {
    /// The plan (and index order) the planner chooses for this execution's values,
    /// or None: a value that does not fit the shape (the caller plans).
    pub fn replay(
        &self,
        t: &TableHandle,
        env: &mut dyn Env,
    ) -> Result<Option<(Plan, Option<bool>)>> {
        let mut values: Vec<Value> = Vec::with_capacity(self.probes.len());
        for (e, col) in &self.probes {
            let v = eval(e, env)?;
            match key_value(t, *col, &v) {
                Some(k) => values.push(k),
                None => return Ok(None),
            }
        }
        let mut plan = self.plan.clone();
        for (n, b) in self.builds.iter().enumerate() {
            let get = |p: &u32| KeyVal {
                v: values[*p as usize].clone(),
                probe: *p,
            };
            let eqs: Vec<Vec<KeyVal>> = b
                .eqs
                .iter()
                .map(|ps| ps.iter().map(get).collect())
                .collect();
            let range: Option<Vec<ValueRange>> = b.range.as_ref().map(|r| {
                r.iter()
                    .map(|(lo, hi)| (lo.as_ref().map(get), hi.as_ref().map(get)))
                    .collect()
            });
            let mut out = Plan::scan();
            build(t, b.index, &eqs, range.as_deref(), &mut out);
            if matches!(out.access, Access::Empty) {
                return Ok(None);
            }
            if plan.built == Some(n) {
                plan.access = out.access;
            }
        }
        Ok(Some((plan, self.ordered)))
    }
}
