//! Aggregate functions: one accumulator per aggregate call per group. Strings compare
//! (MIN/MAX, DISTINCT, GROUP_CONCAT's ORDER BY) under their argument's collation.

use kiln_common::{ErrorKind, KilnError, Result};

use crate::ast::{Expr, GROUP_CONCAT_ORDER};
use crate::collate::Coll;
use crate::eval::{Env, compare_in, eval};
use crate::value::Value;

/// GROUP_CONCAT's result limit (MySQL's group_concat_max_len default).
pub const GROUP_CONCAT_MAX_LEN: usize = 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Count,
    Sum,
    Avg,
    Min,
    Max,
    GroupConcat,
    BitAnd,
    BitOr,
    BitXor,
    Variance { sample: bool, sqrt: bool },
    AnyValue,
}

pub struct Accumulator {
    kind: Kind,
    distinct: bool,
    seen: super::group::Distinct,
    count: u64,
    /// Exact integer sum while every input is an integer.
    int_sum: i128,
    int_only: bool,
    float_sum: f64,
    /// Largest number of fraction digits among DECIMAL inputs (SUM/AVG of decimals).
    scale: usize,
    sum_sq: f64,
    best: Value,
    bits: u64,
    text: Vec<u8>,
    truncated: bool,
    /// The collation of each argument.
    colls: Vec<Coll>,
    /// GROUP_CONCAT ... ORDER BY: the rows (sort keys, text) until `finish`, the
    /// separator, and each key's collation and direction.
    ordered: Option<Ordered>,
}

#[derive(Clone)]
struct Ordered {
    rows: Vec<(Vec<Value>, Vec<u8>)>,
    sep: Vec<u8>,
    keys: Vec<(Coll, bool)>,
}

/// GROUP_CONCAT's arguments: the values, the separator, and the ORDER BY call if any.
fn concat_parts(args: &[Expr]) -> (&[Expr], Option<&Expr>, Option<&[Expr]>) {
    match args {
        [vals @ .., sep, Expr::Func { name, args: order }] if name == GROUP_CONCAT_ORDER => {
            (vals, Some(sep), Some(order))
        }
        [vals @ .., sep] => (vals, Some(sep), None),
        [] => (&[], None, None),
    }
}

impl Accumulator {
    /// An accumulator for `call`, whose arguments have collations `colls`.
    pub fn new(call: &Expr, colls: &[Coll]) -> Result<Accumulator> {
        let Expr::Func { name, args } = call else {
            return Err(KilnError::internal("not an aggregate"));
        };
        let distinct = name.ends_with(" distinct");
        let base = name.strip_suffix(" distinct").unwrap_or(name);
        let kind = match base {
            "count" => Kind::Count,
            "sum" => Kind::Sum,
            "avg" => Kind::Avg,
            "min" => Kind::Min,
            "max" => Kind::Max,
            "group_concat" => Kind::GroupConcat,
            "bit_and" => Kind::BitAnd,
            "bit_or" => Kind::BitOr,
            "bit_xor" => Kind::BitXor,
            "std" | "stddev" | "stddev_pop" => Kind::Variance {
                sample: false,
                sqrt: true,
            },
            "stddev_samp" => Kind::Variance {
                sample: true,
                sqrt: true,
            },
            "variance" | "var_pop" => Kind::Variance {
                sample: false,
                sqrt: false,
            },
            "var_samp" => Kind::Variance {
                sample: true,
                sqrt: false,
            },
            "any_value" => Kind::AnyValue,
            other => {
                return Err(KilnError::new(
                    ErrorKind::ER_NOT_SUPPORTED_YET,
                    &[&format!("aggregate {other}")],
                ));
            }
        };
        let n = args.len();
        let ok = if kind == Kind::GroupConcat {
            n >= 2
        } else if kind == Kind::Count && distinct {
            n >= 1
        } else {
            n == 1
        };
        if !ok {
            return Err(KilnError::new(
                ErrorKind::ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT,
                &[&base],
            ));
        }
        let colls = colls.to_vec();
        let ordered = match concat_parts(args) {
            (_, _, Some(order)) if kind == Kind::GroupConcat => Some(Ordered {
                rows: Vec::new(),
                sep: Vec::new(),
                keys: order
                    .chunks(2)
                    .map(|pair| {
                        let desc = matches!(pair.get(1), Some(Expr::Literal(Value::Int(1))));
                        (Coll::DEFAULT, desc)
                    })
                    .collect(),
            }),
            _ => None,
        };
        Ok(Accumulator {
            kind,
            distinct,
            seen: super::group::Distinct::with_colls(colls.clone()),
            count: 0,
            int_sum: 0,
            int_only: true,
            float_sum: 0.0,
            scale: 0,
            sum_sq: 0.0,
            best: Value::Null,
            bits: if kind == Kind::BitAnd { u64::MAX } else { 0 },
            text: Vec::new(),
            truncated: false,
            colls,
            ordered,
        })
    }

    /// Sets the collations of GROUP_CONCAT's ORDER BY keys.
    pub fn with_order_colls(mut self, colls: &[Coll]) -> Accumulator {
        if let Some(o) = &mut self.ordered {
            for (k, c) in o.keys.iter_mut().zip(colls) {
                k.0 = *c;
            }
        }
        self
    }

    pub fn add(&mut self, call: &Expr, env: &mut dyn Env) -> Result<()> {
        let Expr::Func { args, .. } = call else {
            return Ok(());
        };
        let v = if self.kind == Kind::GroupConcat {
            let (vals, sep, order) = concat_parts(args);
            let mut parts = Vec::new();
            for a in vals {
                let x = eval(a, env)?;
                if x.is_null() {
                    return Ok(());
                }
                parts.push(x);
            }
            if self.distinct && !self.seen.insert(&parts) {
                return Ok(());
            }
            let sep = match sep {
                Some(s) => eval(s, env)?.to_text().unwrap_or_default(),
                None => Vec::new(),
            };
            if let (Some(o), Some(order)) = (&mut self.ordered, order) {
                let mut keys = Vec::with_capacity(o.keys.len());
                for pair in order.chunks(2) {
                    keys.push(eval(&pair[0], env)?);
                }
                let mut text = Vec::new();
                for p in parts {
                    text.extend_from_slice(&p.to_text().unwrap_or_default());
                }
                o.sep = sep;
                o.rows.push((keys, text));
                self.count += 1;
                return Ok(());
            }
            if self.truncated {
                return Ok(());
            }
            if self.count > 0 {
                self.text.extend_from_slice(&sep);
            }
            for p in parts {
                self.text
                    .extend_from_slice(&p.to_text().unwrap_or_default());
            }
            self.count += 1;
            if self.text.len() > GROUP_CONCAT_MAX_LEN {
                self.text.truncate(GROUP_CONCAT_MAX_LEN);
                self.truncated = true;
            }
            return Ok(());
        } else if args.len() > 1 {
            // COUNT(DISTINCT a, b, ...): rows where none is NULL, distinct as tuples.
            let mut vals = Vec::with_capacity(args.len());
            for a in args {
                let x = eval(a, env)?;
                if x.is_null() {
                    return Ok(());
                }
                vals.push(x);
            }
            if self.seen.insert(&vals) {
                self.count += 1;
            }
            return Ok(());
        } else {
            eval(&args[0], env)?
        };
        if v.is_null() {
            return Ok(());
        }
        if self.distinct && !self.seen.insert(std::slice::from_ref(&v)) {
            return Ok(());
        }
        self.count += 1;
        match self.kind {
            Kind::Count => {}
            Kind::Sum | Kind::Avg | Kind::Variance { .. } => {
                match &v {
                    Value::Int(i) if self.int_only => self.int_sum += *i as i128,
                    Value::UInt(u) if self.int_only => self.int_sum += *u as i128,
                    Value::Decimal(s) => {
                        self.int_only = false;
                        self.scale = self
                            .scale
                            .max(s.split_once('.').map_or(0, |(_, f)| f.len()));
                    }
                    _ => self.int_only = false,
                }
                let d = v.to_f64().unwrap_or(0.0);
                self.float_sum += d;
                self.sum_sq += d * d;
                if !matches!(v, Value::Int(_) | Value::UInt(_) | Value::Decimal(_)) {
                    self.scale = usize::MAX;
                }
            }
            Kind::Min | Kind::Max => {
                let coll = self.colls.first().copied().unwrap_or(Coll::DEFAULT);
                let better = self.best.is_null()
                    || match compare_in(&v, &self.best, coll) {
                        Some(std::cmp::Ordering::Less) => self.kind == Kind::Min,
                        Some(std::cmp::Ordering::Greater) => self.kind == Kind::Max,
                        _ => false,
                    };
                if better {
                    self.best = v;
                }
            }
            Kind::BitAnd | Kind::BitOr | Kind::BitXor => {
                let b = match v {
                    Value::UInt(u) => u,
                    other => other.to_i64().unwrap_or(0) as u64,
                };
                match self.kind {
                    Kind::BitAnd => self.bits &= b,
                    Kind::BitOr => self.bits |= b,
                    _ => self.bits ^= b,
                }
            }
            Kind::AnyValue => {
                if self.count == 1 {
                    self.best = v;
                }
            }
            Kind::GroupConcat => {}
        }
        Ok(())
    }

    pub fn finish(self, div_precision_increment: u32) -> Value {
        self.value(div_precision_increment)
    }

    /// The aggregate's value over the rows added so far; more rows may follow (a
    /// window function's growing frame reads it after every row).
    pub fn value(&self, div_precision_increment: u32) -> Value {
        match self.kind {
            Kind::Count => Value::Int(self.count as i64),
            _ if self.count == 0
                && !matches!(self.kind, Kind::BitAnd | Kind::BitOr | Kind::BitXor) =>
            {
                Value::Null
            }
            Kind::Sum => {
                if self.int_only {
                    // SUM of integers is DECIMAL in MySQL.
                    Value::Decimal(self.int_sum.to_string())
                } else if self.scale != usize::MAX {
                    Value::Decimal(format!("{:.*}", self.scale.min(30), self.float_sum))
                } else {
                    Value::Double(self.float_sum)
                }
            }
            Kind::Avg => {
                if self.scale != usize::MAX {
                    let scale = if self.int_only { 0 } else { self.scale }
                        + div_precision_increment as usize;
                    let avg = if self.int_only {
                        self.int_sum as f64 / self.count as f64
                    } else {
                        self.float_sum / self.count as f64
                    };
                    Value::Decimal(format!("{:.*}", scale.min(30), avg))
                } else {
                    Value::Double(self.float_sum / self.count as f64)
                }
            }
            Kind::Variance { sample, sqrt } => {
                let n = self.count as f64;
                if sample && self.count < 2 {
                    return Value::Null;
                }
                let mean = self.float_sum / n;
                let var = (self.sum_sq / n - mean * mean).max(0.0)
                    * if sample { n / (n - 1.0) } else { 1.0 };
                Value::Double(if sqrt { var.sqrt() } else { var })
            }
            Kind::Min | Kind::Max | Kind::AnyValue => self.best.clone(),
            Kind::BitAnd | Kind::BitOr | Kind::BitXor => Value::UInt(self.bits),
            Kind::GroupConcat => {
                let text = match &self.ordered {
                    Some(o) => o.clone().concat(),
                    None => self.text.clone(),
                };
                match String::from_utf8(text) {
                    Ok(s) => Value::Str(s),
                    Err(e) => Value::Bytes(e.into_bytes()),
                }
            }
        }
    }
}

impl Ordered {
    /// The rows sorted by their keys (stable: ties keep their input order), joined by
    /// the separator and cut at GROUP_CONCAT_MAX_LEN.
    fn concat(mut self) -> Vec<u8> {
        let keys = &self.keys;
        self.rows.sort_by(|a, b| {
            for (i, (coll, desc)) in keys.iter().enumerate() {
                let o = match (a.0[i].is_null(), b.0[i].is_null()) {
                    (true, true) => std::cmp::Ordering::Equal,
                    (true, false) => std::cmp::Ordering::Less,
                    (false, true) => std::cmp::Ordering::Greater,
                    _ => compare_in(&a.0[i], &b.0[i], *coll).unwrap_or(std::cmp::Ordering::Equal),
                };
                let o = if *desc { o.reverse() } else { o };
                if o != std::cmp::Ordering::Equal {
                    return o;
                }
            }
            std::cmp::Ordering::Equal
        });
        let mut out = Vec::new();
        for (i, (_, t)) in self.rows.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(&self.sep);
            }
            out.extend_from_slice(t);
            if out.len() > GROUP_CONCAT_MAX_LEN {
                out.truncate(GROUP_CONCAT_MAX_LEN);
                break;
            }
        }
        out
    }
}
