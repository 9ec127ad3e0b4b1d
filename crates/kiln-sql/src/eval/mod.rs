//! Expression evaluation over [`Value`]s with MySQL's semantics for NULL, numeric
//! contexts, integer overflow (error 1690), division (NULL + warning 1365 on zero;
//! `div_precision_increment` extra digits), comparisons and the built-in functions
//! kiln supports so far. Anything session-dependent comes through [`Env`].

use kiln_common::{ErrorKind, KilnError, Result};

use crate::ast::{BinaryOp, Expr, Select, UnaryOp, VarScope};
use crate::collate::Coll;
use crate::value::{Value, format_double};

mod arith;
mod rows;

pub use rows::width as row_width;

/// Severity of a diagnostic in SHOW WARNINGS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Note,
    Warning,
    Error,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Note => "Note",
            Level::Warning => "Warning",
            Level::Error => "Error",
        }
    }
}

/// What expressions may ask of the session running them.
pub trait Env {
    fn param(&self, index: usize) -> Result<Value>;
    fn sysvar(&self, scope: VarScope, name: &str) -> Result<Value>;
    fn user_var(&self, name: &str) -> Value;
    fn set_user_var(&mut self, name: &str, value: Value);
    fn warn(&mut self, level: Level, code: u16, message: String);
    fn connection_id(&self) -> u64;
    fn database(&self) -> Option<String>;
    /// `user@host` as the client connected (USER()).
    fn user(&self) -> String;
    /// `user@host` of the matched account (CURRENT_USER()).
    fn current_user(&self) -> String;
    fn last_insert_id(&self) -> u64;
    fn set_last_insert_id(&mut self, id: u64);
    fn row_count(&self) -> i64;
    fn found_rows(&self) -> u64;
    fn server_version(&self) -> String;
    /// Statement start time, microseconds since the Unix epoch (NOW() is constant
    /// within a statement).
    fn statement_time_micros(&self) -> i64;
    /// Sleeps up to `seconds`, returning early (true) if the statement was killed.
    fn sleep_interruptible(&mut self, seconds: f64) -> bool;
    /// Whether the statement or the connection was killed (long waits poll this).
    fn is_interrupted(&self) -> bool;
    fn div_precision_increment(&self) -> u32 {
        4
    }
    /// The connection collation (`collation_connection`): what comparisons of
    /// literals run under.
    fn collation_connection(&self) -> Coll {
        Coll::DEFAULT
    }
    /// Runs a subquery that refers to the current row (a correlated subquery).
    fn subquery(&mut self, _sel: &Select) -> Result<crate::result::Rows> {
        Err(KilnError::new(
            ErrorKind::ER_NOT_SUPPORTED_YET,
            &[&"subqueries in this context"],
        ))
    }
    /// Calls stored function `name` (lower-case; `db.f` when qualified) with
    /// evaluated arguments; None when there is no such function.
    fn stored_function(&mut self, _name: &str, _args: Vec<Value>) -> Option<Result<Value>> {
        None
    }
    /// Slot `i` of the current row (bound column references).
    fn slot(&self, i: usize) -> Result<Value> {
        Err(KilnError::internal(format!("no row for slot {i}")))
    }
    /// A column reference; with no tables in scope it is MySQL's 1054.
    fn column(&self, qualifier: Option<&str>, name: &str) -> Result<Value> {
        let full = match qualifier {
            Some(q) => format!("{q}.{name}"),
            None => name.to_string(),
        };
        Err(KilnError::new(
            ErrorKind::ER_BAD_FIELD_ERROR,
            &[&full, &"field list"],
        ))
    }
}

pub fn eval(e: &Expr, env: &mut dyn Env) -> Result<Value> {
    match e {
        Expr::Literal(v) => Ok(v.clone()),
        Expr::Param(i) => env.param(*i),
        Expr::SysVar { scope, name } => env.sysvar(*scope, name),
        Expr::UserVar(n) => Ok(env.user_var(n)),
        Expr::Assign { name, expr } => {
            let v = eval(expr, env)?;
            env.set_user_var(name, v.clone());
            Ok(v)
        }
        Expr::Column { qualifier, name } => env.column(qualifier.as_deref(), name),
        Expr::Slot(i) => env.slot(*i),
        Expr::Subquery(sel) => {
            let rows = env.subquery(sel)?;
            if rows.columns.len() != 1 {
                return Err(KilnError::new(ErrorKind::ER_OPERAND_COLUMNS, &[&1]));
            }
            if rows.rows.len() > 1 {
                return Err(ErrorKind::ER_SUBQUERY_NO_1_ROW.into());
            }
            Ok(rows
                .rows
                .into_iter()
                .next()
                .map_or(Value::Null, |mut r| r.remove(0)))
        }
        Expr::Exists(sel) => Ok(bool_value(!env.subquery(sel)?.rows.is_empty())),
        Expr::Row(_) => Err(KilnError::new(ErrorKind::ER_OPERAND_COLUMNS, &[&1])),
        // The select list and ORDER BY replace window functions by their results
        // (exec/window.rs); anywhere else one is MySQL's 3593.
        Expr::Window(w) => Err(KilnError::new(
            ErrorKind::ER_WINDOW_INVALID_WINDOW_FUNC_USE,
            &[&w.name],
        )),
        Expr::Quantified(q) => rows::quantified(q, env),
        Expr::InSubquery {
            expr,
            select,
            negated,
        } if matches!(**expr, Expr::Row(_)) => rows::in_subquery(expr, select, *negated, env),
        Expr::InSubquery {
            expr,
            select,
            negated,
        } => {
            let v = eval(expr, env)?;
            let rows = env.subquery(select)?;
            if rows.columns.len() != 1 {
                return Err(KilnError::new(ErrorKind::ER_OPERAND_COLUMNS, &[&1]));
            }
            if rows.rows.is_empty() {
                return Ok(bool_value(*negated));
            }
            if v.is_null() {
                return Ok(Value::Null);
            }
            let mut saw_null = false;
            for r in &rows.rows {
                match compare_env(&v, &r[0], None, env) {
                    Some(std::cmp::Ordering::Equal) => return Ok(bool_value(!*negated)),
                    None => saw_null = true,
                    _ => {}
                }
            }
            Ok(if saw_null {
                Value::Null
            } else {
                bool_value(*negated)
            })
        }
        Expr::Unary { op, expr } => unary(*op, eval(expr, env)?, expr, env),
        Expr::IsNull { expr, negated } => Ok(bool_value(eval(expr, env)?.is_null() != *negated)),
        Expr::IsBool {
            expr,
            value,
            negated,
        } => {
            let b = truth(eval(expr, env)?, env);
            Ok(bool_value((b == *value) != *negated))
        }
        Expr::Collate { expr, .. } => eval(expr, env),
        Expr::InColl { expr, coll } => eval_in(expr, Some(*coll), env),
        Expr::EnumIndex { expr, members, set } => Ok(enum_index(&eval(expr, env)?, members, *set)),
        Expr::Binary { .. }
        | Expr::Between { .. }
        | Expr::InList { .. }
        | Expr::Like { .. }
        | Expr::Case { .. }
        | Expr::Func { .. } => eval_in(e, None, env),
        Expr::Cast { expr, to } => crate::functions::cast::cast(eval(expr, env)?, *to, env),
    }
}

/// Evaluates a comparison, LIKE, CASE or function under `coll` (None: the connection
/// collation, for operands that are only literals); any other node as `eval`.
fn eval_in(e: &Expr, coll: Option<Coll>, env: &mut dyn Env) -> Result<Value> {
    match e {
        Expr::Binary { op, left, right } => binary(*op, left, right, coll, env),
        Expr::Between {
            expr,
            low,
            high,
            negated,
        } => {
            let v = eval(expr, env)?;
            let lo = eval(low, env)?;
            let hi = eval(high, env)?;
            let a = compare_env(&v, &lo, coll, env).map(|o| o.is_ge());
            let b = compare_env(&v, &hi, coll, env).map(|o| o.is_le());
            Ok(match and3(a, b) {
                None => Value::Null,
                Some(r) => bool_value(r != *negated),
            })
        }
        Expr::InList {
            expr,
            list,
            negated,
        } if matches!(**expr, Expr::Row(_)) || list.iter().any(|x| matches!(x, Expr::Row(_))) => {
            rows::in_list(expr, list, *negated, env)
        }
        Expr::InList {
            expr,
            list,
            negated,
        } => {
            let v = eval(expr, env)?;
            if v.is_null() {
                return Ok(Value::Null);
            }
            let mut saw_null = false;
            for item in list {
                let x = eval(item, env)?;
                match compare_env(&v, &x, coll, env) {
                    Some(std::cmp::Ordering::Equal) => return Ok(bool_value(!*negated)),
                    None => saw_null = true,
                    _ => {}
                }
            }
            Ok(if saw_null {
                Value::Null
            } else {
                bool_value(*negated)
            })
        }
        Expr::Like {
            expr,
            pattern,
            escape,
            negated,
        } => {
            let v = eval(expr, env)?;
            let p = eval(pattern, env)?;
            let esc = match escape {
                Some(e) => eval(e, env)?
                    .to_string_lossy()
                    .and_then(|s| s.chars().next())
                    .unwrap_or('\\'),
                None => '\\',
            };
            if v.is_null() || p.is_null() {
                return Ok(Value::Null);
            }
            let coll = match (&v, &p) {
                (Value::Bytes(_), _) | (_, Value::Bytes(_)) => Coll::BINARY,
                _ => coll.unwrap_or_else(|| env.collation_connection()),
            };
            let (s, p) = (like_text(&v), like_text(&p));
            Ok(bool_value(coll.like(&s, &p, Some(esc)) != *negated))
        }
        Expr::Case {
            operand,
            whens,
            otherwise,
        } => {
            let op = match operand {
                Some(o) => Some(eval(o, env)?),
                None => None,
            };
            for (w, then) in whens {
                let wv = eval(w, env)?;
                let hit = match &op {
                    Some(o) => compare_env(o, &wv, coll, env) == Some(std::cmp::Ordering::Equal),
                    None => truth(wv, env) == Some(true),
                };
                if hit {
                    return eval(then, env);
                }
            }
            match otherwise {
                Some(o) => eval(o, env),
                None => Ok(Value::Null),
            }
        }
        Expr::Func { name, args } => crate::functions::call(name, args, coll, env),
        other => eval(other, env),
    }
}

/// The bytes LIKE matches: the text of a string, a number's rendering.
fn like_text(v: &Value) -> std::borrow::Cow<'_, [u8]> {
    match v {
        Value::Str(s) => std::borrow::Cow::Borrowed(s.as_bytes()),
        Value::Bytes(b) => std::borrow::Cow::Borrowed(b),
        other => std::borrow::Cow::Owned(other.to_text().unwrap_or_default()),
    }
}

/// The member number (ENUM) or bit mask (SET) of `v`, a value of such a column.
pub fn enum_index(v: &Value, members: &[String], set: bool) -> Value {
    let s = match v {
        Value::Null => return Value::Null,
        Value::Str(s) => s.as_str(),
        other => return other.clone(),
    };
    let pos = |m: &str| {
        members
            .iter()
            .position(|x| crate::collate::eq_ci(x, m))
            .map_or(0, |i| i + 1)
    };
    if set {
        let mut mask = 0u64;
        for p in s.split(',').filter(|p| !p.is_empty()) {
            let i = pos(p);
            if i > 0 && i <= 64 {
                mask |= 1 << (i - 1);
            }
        }
        Value::UInt(mask)
    } else {
        Value::UInt(pos(s) as u64)
    }
}

/// SQL truth value of `v`, warning 1292 for a string that is not wholly a number
/// ('a' IS TRUE, IF('abc', …)).
pub fn truth(v: Value, env: &mut dyn Env) -> Option<bool> {
    arith::warn_string_number(&v, env);
    v.to_bool()
}

pub fn bool_value(b: bool) -> Value {
    Value::Int(b as i64)
}

fn and3(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

/// Whether an expression is constant for the statement (no column, parameter,
/// variable, subquery, aggregate or non-deterministic call), as MySQL's const_item.
pub fn is_const(e: &Expr) -> bool {
    match e {
        Expr::Literal(_) => true,
        Expr::Unary { expr, .. } | Expr::Cast { expr, .. } => is_const(expr),
        Expr::Binary { left, right, .. } => is_const(left) && is_const(right),
        Expr::IsNull { expr, .. } | Expr::IsBool { expr, .. } => is_const(expr),
        Expr::Between {
            expr, low, high, ..
        } => is_const(expr) && is_const(low) && is_const(high),
        Expr::InList { expr, list, .. } => is_const(expr) && list.iter().all(is_const),
        Expr::Case {
            operand,
            whens,
            otherwise,
        } => {
            operand.as_deref().is_none_or(is_const)
                && whens.iter().all(|(w, t)| is_const(w) && is_const(t))
                && otherwise.as_deref().is_none_or(is_const)
        }
        Expr::Func { name, args } => {
            !matches!(
                name.as_str(),
                "rand" | "now" | "sysdate" | "uuid" | "last_insert_id" | "row_count" | "sleep"
            ) && !crate::functions::has_side_effects(name)
                && !crate::exec::bind::is_aggregate(name)
                && args.iter().all(is_const)
        }
        _ => false,
    }
}

fn unary(op: UnaryOp, v: Value, src: &Expr, env: &mut dyn Env) -> Result<Value> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    Ok(match op {
        UnaryOp::Plus => v,
        UnaryOp::Not => bool_value(!truth(v, env).unwrap_or(false)),
        UnaryOp::BitNot => Value::UInt(!(v.to_i64().unwrap_or(0) as u64)),
        UnaryOp::Neg => match v {
            // MySQL types the negation of a negative constant integer as DECIMAL
            // (it could overflow BIGINT): - -98 is DECIMAL 98.
            Value::Int(i) if i < 0 && is_const(src) => Value::Decimal((-(i as i128)).to_string()),
            Value::Int(i) => match i.checked_neg() {
                Some(n) => Value::Int(n),
                None => return Err(out_of_range("BIGINT", &format!("-({})", expr_text(src)))),
            },
            Value::UInt(u) if u <= 1 << 63 => Value::Int((u as i64).wrapping_neg()),
            Value::UInt(u) => Value::Decimal(format!("-{u}")),
            Value::Decimal(s) => Value::Decimal(match s.strip_prefix('-') {
                Some(p) => p.to_string(),
                None if s.chars().all(|c| c == '0' || c == '.') => s,
                None => format!("-{s}"),
            }),
            other => {
                arith::warn_string_number(&other, env);
                Value::Double(-other.to_f64().unwrap_or(0.0))
            }
        },
    })
}

pub(crate) fn out_of_range(ty: &str, text: &str) -> KilnError {
    KilnError::new(ErrorKind::ER_DATA_OUT_OF_RANGE, &[&ty, &text])
}

/// A rough rendering of an expression for error messages (MySQL prints its own
/// normalized form, e.g. `(9223372036854775807 + 1)`).
pub fn expr_text(e: &Expr) -> String {
    match e {
        Expr::Literal(v) => match v {
            Value::Str(s) => format!("'{s}'"),
            other => other.to_string(),
        },
        Expr::Binary { op, left, right } => format!(
            "({} {} {})",
            expr_text(left),
            op_text(*op),
            expr_text(right)
        ),
        Expr::Unary {
            op: UnaryOp::Neg,
            expr,
        } => format!("-({})", expr_text(expr)),
        Expr::Param(_) => "?".into(),
        Expr::SysVar { name, .. } => format!("@@{name}"),
        Expr::UserVar(n) => format!("@{n}"),
        Expr::Column { name, .. } => format!("`{name}`"),
        Expr::Func { name, args } => {
            format!(
                "{name}({})",
                args.iter().map(expr_text).collect::<Vec<_>>().join(",")
            )
        }
        _ => "expression".into(),
    }
}

fn op_text(op: BinaryOp) -> &'static str {
    use BinaryOp::*;
    match op {
        Or => "or",
        Xor => "xor",
        And => "and",
        Eq => "=",
        NullSafeEq => "<=>",
        Ne => "<>",
        Lt => "<",
        Le => "<=",
        Gt => ">",
        Ge => ">=",
        BitOr => "|",
        BitAnd => "&",
        BitXor => "^",
        Shl => "<<",
        Shr => ">>",
        Add => "+",
        Sub => "-",
        Mul => "*",
        Div => "/",
        IntDiv => "DIV",
        Mod => "%",
    }
}

fn binary(
    op: BinaryOp,
    left: &Expr,
    right: &Expr,
    coll: Option<Coll>,
    env: &mut dyn Env,
) -> Result<Value> {
    use BinaryOp::*;
    if matches!(op, Eq | NullSafeEq | Ne | Lt | Le | Gt | Ge)
        && (matches!(left, Expr::Row(_)) || matches!(right, Expr::Row(_)))
    {
        return rows::compare_rows(op, left, right, env);
    }
    if let Some(v) = arith::division_chain(op, left, right, env)? {
        return Ok(v);
    }
    // Logical operators short-circuit as MySQL's do.
    match op {
        And => {
            let a = truth(eval(left, env)?, env);
            if a == Some(false) {
                return Ok(bool_value(false));
            }
            let b = truth(eval(right, env)?, env);
            return Ok(and3(a, b).map_or(Value::Null, bool_value));
        }
        Or => {
            let a = truth(eval(left, env)?, env);
            if a == Some(true) {
                return Ok(bool_value(true));
            }
            let b = truth(eval(right, env)?, env);
            return Ok(match (a, b) {
                (_, Some(true)) => bool_value(true),
                (Some(false), Some(false)) => bool_value(false),
                _ => Value::Null,
            });
        }
        _ => {}
    }
    let a = eval(left, env)?;
    let b = eval(right, env)?;
    if op == NullSafeEq {
        return Ok(bool_value(match (a.is_null(), b.is_null()) {
            (true, true) => true,
            (false, false) => compare_env(&a, &b, coll, env) == Some(std::cmp::Ordering::Equal),
            _ => false,
        }));
    }
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    let text = || format!("({} {} {})", expr_text(left), op_text(op), expr_text(right));
    Ok(match op {
        Xor => bool_value(truth(a, env).unwrap_or(false) != truth(b, env).unwrap_or(false)),
        Eq | Ne | Lt | Le | Gt | Ge => {
            // A string literal compared with a number is read as one: 1292 if it is not
            // wholly a number ('abc' = 0). (Temporal columns, also held as text,
            // compare with numbers as temporals, without the warning.)
            let number = |v: &Value| {
                matches!(
                    v,
                    Value::Int(_) | Value::UInt(_) | Value::Double(_) | Value::Decimal(_)
                )
            };
            // A parameter is a literal the client sent apart (and a text statement's
            // digest turns literals into parameters: digest.rs).
            let literal = |e: &Expr| matches!(e, Expr::Literal(Value::Str(_)) | Expr::Param(_));
            if literal(left) && number(&b) {
                arith::warn_string_number(&a, env);
            } else if literal(right) && number(&a) {
                arith::warn_string_number(&b, env);
            }
            compare_env(&a, &b, coll, env)
                .map_or(Value::Null, |o| bool_value(ordering_holds(op, o)))
        }
        BitOr | BitAnd | BitXor | Shl | Shr => {
            let x = to_u64_bits(&a);
            let y = to_u64_bits(&b);
            Value::UInt(match op {
                BitOr => x | y,
                BitAnd => x & y,
                BitXor => x ^ y,
                Shl => {
                    if y >= 64 {
                        0
                    } else {
                        x << y
                    }
                }
                _ => {
                    if y >= 64 {
                        0
                    } else {
                        x >> y
                    }
                }
            })
        }
        Add | Sub | Mul | Div | IntDiv | Mod => arith::numeric(op, &a, &b, env, &text)?,
        And | Or | NullSafeEq => unreachable!("handled above"),
    })
}

/// Whether comparison `op` (=, <>, <, <=, >, >=) holds for an ordering.
/// Whether ordering `o` of (left, right) satisfies comparison `op`.
pub(crate) fn ordering_holds(op: BinaryOp, o: std::cmp::Ordering) -> bool {
    use BinaryOp::*;
    match op {
        Eq => o.is_eq(),
        Ne => o.is_ne(),
        Lt => o.is_lt(),
        Le => o.is_le(),
        Gt => o.is_gt(),
        _ => o.is_ge(),
    }
}

fn to_u64_bits(v: &Value) -> u64 {
    match v {
        Value::UInt(u) => *u,
        Value::Int(i) => *i as u64,
        other => {
            let f = other.to_f64().unwrap_or(0.0).round();
            if f < 0.0 { f as i64 as u64 } else { f as u64 }
        }
    }
}

/// Compares two values under utf8mb4_0900_ai_ci (see `compare_in`).
pub fn compare(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    compare_in(a, b, Coll::DEFAULT)
}

/// `compare_in` under `coll`, or the connection collation when `coll` is None and
/// both are character strings (looked up only then).
pub fn compare_env(
    a: &Value,
    b: &Value,
    coll: Option<Coll>,
    env: &dyn Env,
) -> Option<std::cmp::Ordering> {
    match (a, b, coll) {
        (Value::Str(_), Value::Str(_), None) => compare_in(a, b, env.collation_connection()),
        (_, _, c) => compare_in(a, b, c.unwrap_or(Coll::DEFAULT)),
    }
}

/// Compares two non-NULL values: numerically when either is a number, otherwise
/// character strings under `coll` (a binary string makes it bytewise). Returns None
/// if either is NULL.
pub fn compare_in(a: &Value, b: &Value, coll: Coll) -> Option<std::cmp::Ordering> {
    use Value::*;
    match (a, b) {
        (Null, _) | (_, Null) => None,
        (Int(x), Int(y)) => Some(x.cmp(y)),
        (UInt(x), UInt(y)) => Some(x.cmp(y)),
        (Int(x), UInt(y)) => Some((*x as i128).cmp(&(*y as i128))),
        (UInt(x), Int(y)) => Some((*x as i128).cmp(&(*y as i128))),
        (Str(x), Str(y)) => crate::functions::time::canonical_cmp(x, y)
            .or_else(|| Some(coll.compare(x.as_bytes(), y.as_bytes()))),
        (Bytes(x), Bytes(y)) => Some(x.cmp(y)),
        (Bytes(x), Str(y)) => Some(x.as_slice().cmp(y.as_bytes())),
        (Str(x), Bytes(y)) => Some(x.as_bytes().cmp(y.as_slice())),
        _ => a.to_f64()?.partial_cmp(&b.to_f64()?),
    }
}

fn fold(s: &str) -> String {
    s.chars().flat_map(|c| c.to_lowercase()).collect()
}

/// SQL LIKE with `%`, `_` and an escape character; case-insensitive when `ci`.
pub fn like_match(s: &str, p: &str, escape: char, ci: bool) -> bool {
    let s: Vec<char> = if ci {
        fold(s).chars().collect()
    } else {
        s.chars().collect()
    };
    let p: Vec<char> = if ci {
        fold(p).chars().collect()
    } else {
        p.chars().collect()
    };
    // Iterative matcher with backtracking on the last '%' (linear in practice).
    let (mut si, mut pi) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if pi < p.len() {
            let c = p[pi];
            if c == '%' {
                star = Some((pi, si));
                pi += 1;
                continue;
            }
            if c == escape && pi + 1 < p.len() {
                if p[pi + 1] == s[si] {
                    pi += 2;
                    si += 1;
                    continue;
                }
            } else if c == '_' || c == s[si] {
                pi += 1;
                si += 1;
                continue;
            }
        }
        match star {
            Some((sp, ss)) => {
                pi = sp + 1;
                si = ss + 1;
                star = Some((sp, ss + 1));
            }
            None => return false,
        }
    }
    while pi < p.len() && p[pi] == '%' {
        pi += 1;
    }
    pi == p.len()
}

/// Renders a double for string contexts exactly as the text protocol would.
pub fn double_text(d: f64) -> String {
    format_double(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like() {
        assert!(like_match("version_comment", "version%", '\\', true));
        assert!(like_match("abc", "a_c", '\\', true));
        assert!(!like_match("abc", "a_", '\\', true));
        assert!(like_match("a%c", "a\\%c", '\\', true));
        assert!(!like_match("abc", "a\\%c", '\\', true));
        assert!(like_match("ABC", "%b%", '\\', true));
        assert!(like_match("", "%", '\\', true));
    }

    #[test]
    fn comparisons() {
        use std::cmp::Ordering::*;
        assert_eq!(
            compare(&Value::Str("a".into()), &Value::Str("A".into())),
            Some(Equal)
        );
        assert_eq!(compare(&Value::Int(-1), &Value::UInt(u64::MAX)), Some(Less));
        assert_eq!(
            compare(&Value::Str("10".into()), &Value::Int(9)),
            Some(Greater)
        );
        assert_eq!(compare(&Value::Null, &Value::Int(9)), None);
    }
}
