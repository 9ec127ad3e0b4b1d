//! Aggregate functions: one accumulator per aggregate call per group.

use kiln_common::{ErrorKind, KilnError, Result};

use crate::ast::Expr;
use crate::eval::{Env, compare, eval};
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
}

impl Accumulator {
    pub fn new(call: &Expr) -> Result<Accumulator> {
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
        } else {
            n == 1
        };
        if !ok {
            return Err(KilnError::new(
                ErrorKind::ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT,
                &[&base],
            ));
        }
        Ok(Accumulator {
            kind,
            distinct,
            seen: super::group::Distinct::default(),
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
        })
    }

    pub fn add(&mut self, call: &Expr, env: &mut dyn Env) -> Result<()> {
        let Expr::Func { args, .. } = call else {
            return Ok(());
        };
        let v = if self.kind == Kind::GroupConcat {
            let mut parts = Vec::new();
            for a in &args[..args.len() - 1] {
                let x = eval(a, env)?;
                if x.is_null() {
                    return Ok(());
                }
                parts.push(x);
            }
            if self.distinct && !self.seen.insert(&parts) {
                return Ok(());
            }
            let sep = eval(&args[args.len() - 1], env)?
                .to_text()
                .unwrap_or_default();
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
                let better = self.best.is_null()
                    || match compare(&v, &self.best) {
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
            Kind::Min | Kind::Max | Kind::AnyValue => self.best,
            Kind::BitAnd | Kind::BitOr | Kind::BitXor => Value::UInt(self.bits),
            Kind::GroupConcat => match String::from_utf8(self.text) {
                Ok(s) => Value::Str(s),
                Err(e) => Value::Bytes(e.into_bytes()),
            },
        }
    }
}
