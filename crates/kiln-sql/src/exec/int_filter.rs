//! A WHERE made only of integer comparisons between a column and constants, checked
//! per row without the expression evaluator: sysbench's `id BETWEEN ? AND ?`, or
//! `k >= 10 AND k < 20`.
//!
//! A range read re-checks its WHERE on every row it returns (the key range may be
//! wider than the WHERE), and evaluating `id BETWEEN ? AND ?` through `eval` cloned
//! the column's value, evaluated both parameters again, and went through the generic
//! comparison for each of the 100 rows of each sysbench range query.
//!
//! Exactness: `IntFilter::of` accepts only a column slot compared with a literal or a
//! parameter whose value is an integer, combined by AND. For two integers `eval`
//! compares exactly (`compare_in`: i64/u64 widened to i128; the collation plays no
//! part), a NULL operand makes the comparison NULL, and AND is TRUE only if every
//! operand is TRUE; `check` computes the same. Evaluating such constants cannot fail
//! or warn, so computing them once per statement changes nothing. A row whose column
//! holds anything but an integer or NULL (the column is not an integer column, or a
//! FLOAT/DECIMAL) is left to `eval` (`check` returns None).

use crate::ast::{BinaryOp, Expr};
use crate::eval::{Env, ordering_holds};
use crate::value::Value;

/// Bounds checked against one slot: `slot op value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Test {
    slot: usize,
    op: BinaryOp,
    value: i128,
}

/// Leaves per filter: a bound for the work done once per statement.
const TESTS_MAX: usize = 8;

/// A WHERE of integer comparisons, with its constants evaluated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IntFilter {
    tests: Vec<Test>,
}

impl IntFilter {
    /// The filter `e` as integer tests, if it has that form and its constants are
    /// integers now (`env` gives this execution's parameters).
    pub(crate) fn of(e: &Expr, env: &dyn Env) -> Option<IntFilter> {
        let mut tests = Vec::new();
        collect(e, env, &mut tests)?;
        (!tests.is_empty()).then_some(IntFilter { tests })
    }

    /// Whether `row` passes: Some(true) / Some(false) as `eval` would decide it, None
    /// when a tested slot holds a value that is not an integer (ask `eval`).
    pub(crate) fn check(&self, row: &[Value]) -> Option<bool> {
        let mut pass = true;
        for t in &self.tests {
            let v = match row.get(t.slot)? {
                Value::Int(i) => *i as i128,
                Value::UInt(u) => *u as i128,
                // NULL compares as NULL: the conjunction is not TRUE. The other tests
                // still get their say on whether some slot needs `eval`.
                Value::Null => {
                    pass = false;
                    continue;
                }
                _ => return None,
            };
            pass &= ordering_holds(t.op, v.cmp(&t.value));
        }
        Some(pass)
    }
}

/// `op` with its operands swapped: `5 < id` is `id > 5`.
fn mirror(op: BinaryOp) -> BinaryOp {
    match op {
        BinaryOp::Lt => BinaryOp::Gt,
        BinaryOp::Le => BinaryOp::Ge,
        BinaryOp::Gt => BinaryOp::Lt,
        BinaryOp::Ge => BinaryOp::Le,
        other => other,
    }
}

/// An integer constant: a literal, or a parameter whose value is an integer.
fn constant(e: &Expr, env: &dyn Env) -> Option<i128> {
    let v = match e {
        Expr::Literal(v) => v.clone(),
        Expr::Param(i) => env.param(*i).ok()?,
        _ => return None,
    };
    match v {
        Value::Int(i) => Some(i as i128),
        Value::UInt(u) => Some(u as i128),
        _ => None,
    }
}

fn collect(e: &Expr, env: &dyn Env, out: &mut Vec<Test>) -> Option<()> {
    if out.len() >= TESTS_MAX {
        return None;
    }
    match e {
        // The collation of a comparison of two integers plays no part.
        Expr::InColl { expr, .. } => collect(expr, env, out),
        Expr::Between {
            expr,
            low,
            high,
            negated: false,
        } => {
            let Expr::Slot(slot) = **expr else {
                return None;
            };
            let (lo, hi) = (constant(low, env)?, constant(high, env)?);
            out.push(Test {
                slot,
                op: BinaryOp::Ge,
                value: lo,
            });
            out.push(Test {
                slot,
                op: BinaryOp::Le,
                value: hi,
            });
            Some(())
        }
        Expr::Binary {
            op: BinaryOp::And,
            left,
            right,
        } => {
            collect(left, env, out)?;
            collect(right, env, out)
        }
        Expr::Binary { op, left, right }
            if matches!(
                op,
                BinaryOp::Eq | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
            ) =>
        {
            let (slot, value, op) = match (&**left, &**right) {
                (Expr::Slot(s), c) => (*s, constant(c, env)?, *op),
                (c, Expr::Slot(s)) => (*s, constant(c, env)?, mirror(*op)),
                _ => return None,
            };
            out.push(Test { slot, op, value });
            Some(())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::eval;
    use crate::functions::testenv::TestEnv;

    fn slot(i: usize) -> Box<Expr> {
        Box::new(Expr::Slot(i))
    }

    fn param(i: usize) -> Box<Expr> {
        Box::new(Expr::Param(i))
    }

    fn lit(v: Value) -> Box<Expr> {
        Box::new(Expr::Literal(v))
    }

    fn cmp(op: BinaryOp, left: Box<Expr>, right: Box<Expr>) -> Expr {
        Expr::Binary { op, left, right }
    }

    fn between(e: Box<Expr>, lo: Box<Expr>, hi: Box<Expr>) -> Expr {
        Expr::Between {
            expr: e,
            low: lo,
            high: hi,
            negated: false,
        }
    }

    /// What the evaluator says of `e` on `row`: passes iff TRUE.
    fn by_eval(e: &Expr, env: &mut TestEnv, row: &[Value]) -> bool {
        env.row = row.to_vec();
        eval(e, env).expect("evaluates").to_bool() == Some(true)
    }

    fn values() -> Vec<Value> {
        vec![
            Value::Null,
            Value::Int(i64::MIN),
            Value::Int(-6),
            Value::Int(-1),
            Value::Int(0),
            Value::Int(4),
            Value::Int(5),
            Value::Int(6),
            Value::Int(10),
            Value::Int(11),
            Value::Int(i64::MAX),
            Value::UInt(5),
            Value::UInt(u64::MAX),
            Value::UInt(1 << 63),
        ]
    }

    #[test]
    fn agrees_with_the_evaluator_on_every_integer_row() {
        let ops = [
            BinaryOp::Eq,
            BinaryOp::Lt,
            BinaryOp::Le,
            BinaryOp::Gt,
            BinaryOp::Ge,
        ];
        let mut exprs = vec![
            between(slot(0), param(0), param(1)),
            between(slot(1), lit(Value::Int(-6)), lit(Value::UInt(u64::MAX))),
            Expr::InColl {
                expr: Box::new(between(slot(0), param(1), param(0))),
                coll: crate::collate::Coll::DEFAULT,
            },
        ];
        for op in ops {
            exprs.push(cmp(op, slot(0), param(0)));
            exprs.push(cmp(op, param(1), slot(1)));
            exprs.push(cmp(
                BinaryOp::And,
                Box::new(cmp(op, slot(0), lit(Value::Int(5)))),
                Box::new(between(slot(1), param(0), param(1))),
            ));
        }
        let mut env = TestEnv::default();
        let mut checked = 0;
        for p0 in values().into_iter().filter(|v| !v.is_null()) {
            for p1 in values().into_iter().filter(|v| !v.is_null()) {
                env.params = vec![p0.clone(), p1.clone()];
                for e in &exprs {
                    let f = IntFilter::of(e, &env).expect("integer filter");
                    for a in values() {
                        for b in values() {
                            let row = [a.clone(), b.clone()];
                            let want = by_eval(e, &mut env, &row);
                            assert_eq!(f.check(&row), Some(want), "{e:?} on {row:?}");
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 100_000);
    }

    #[test]
    fn declines_what_it_cannot_decide_exactly() {
        let mut env = TestEnv {
            params: vec![Value::Str("5".into()), Value::Int(7), Value::Double(1.5)],
            ..TestEnv::default()
        };
        // A string or double constant: the evaluator converts (and may warn).
        assert_eq!(
            IntFilter::of(&between(slot(0), param(0), param(1)), &env),
            None
        );
        assert_eq!(
            IntFilter::of(&cmp(BinaryOp::Lt, slot(0), param(2)), &env),
            None
        );
        // NOT BETWEEN, <>, OR, an expression of the column: not integer tests.
        let not_between = Expr::Between {
            expr: slot(0),
            low: param(1),
            high: param(1),
            negated: true,
        };
        assert_eq!(IntFilter::of(&not_between, &env), None);
        assert_eq!(
            IntFilter::of(&cmp(BinaryOp::Ne, slot(0), param(1)), &env),
            None
        );
        let or = cmp(
            BinaryOp::Or,
            Box::new(cmp(BinaryOp::Eq, slot(0), param(1))),
            Box::new(cmp(BinaryOp::Eq, slot(1), param(1))),
        );
        assert_eq!(IntFilter::of(&or, &env), None);
        let arith = cmp(
            BinaryOp::Eq,
            Box::new(cmp(BinaryOp::Add, slot(0), lit(Value::Int(1)))),
            param(1),
        );
        assert_eq!(IntFilter::of(&arith, &env), None);
        // A row value that is not an integer goes to the evaluator.
        env.params = vec![Value::Int(1), Value::Int(9)];
        let f = IntFilter::of(&between(slot(0), param(0), param(1)), &env).expect("ints");
        assert_eq!(f.check(&[Value::Double(2.0)]), None);
        assert_eq!(f.check(&[Value::Str("3".into())]), None);
        assert_eq!(f.check(&[Value::Int(3)]), Some(true));
        assert_eq!(f.check(&[Value::Null]), Some(false));
        assert_eq!(f.check(&[]), None, "a slot the row lacks");
    }
}
