//! Built-in functions: name → implementation, with MySQL's argument-count errors
//! (1582) and NULL propagation. Unknown names are error 1305 "FUNCTION db.f does not
//! exist", as MySQL reports a call to an undefined stored function.

use kiln_common::time::CivilTime;
use kiln_common::{ErrorKind, KilnError, Result};

use crate::ast::Expr;
use crate::collate::Coll;
use crate::eval::{Env, Level, compare_in, eval};
use crate::value::Value;

pub mod cast;
pub mod digest;
pub mod json;
pub mod locking;
pub mod math;
pub mod string;
#[cfg(test)]
pub(crate) mod testenv;
pub mod time;

/// Functions that act on the server or differ per call, beyond RAND-like ones: never
/// folded to a constant or evaluated once for all rows. Stored functions count
/// (routine/names.rs).
pub fn has_side_effects(name: &str) -> bool {
    matches!(
        name,
        "uuid"
            | "uuid_short"
            | "benchmark"
            | "get_lock"
            | "release_lock"
            | "release_all_locks"
            | "is_free_lock"
            | "is_used_lock"
    ) || crate::routine::names::may_be_stored(name)
}

/// Error 1582 unless `lo <= argc <= hi`.
pub(crate) fn check_arity(name: &str, argc: usize, lo: usize, hi: usize) -> Result<()> {
    if argc < lo || argc > hi {
        Err(KilnError::new(
            ErrorKind::ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT,
            &[&name.to_ascii_uppercase()],
        ))
    } else {
        Ok(())
    }
}

/// Longest string a function may build (REPEAT, LPAD, CONCAT ...): beyond it MySQL
/// returns NULL with a warning about max_allowed_packet.
const RESULT_BYTES_MAX: usize = 64 << 20;

pub fn call(name: &str, args: &[Expr], coll: Option<Coll>, env: &mut dyn Env) -> Result<Value> {
    let argc = args.len();
    let want = |lo: usize, hi: usize| -> Result<()> {
        if argc < lo || argc > hi {
            Err(KilnError::new(
                ErrorKind::ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT,
                &[&name.to_ascii_uppercase()],
            ))
        } else {
            Ok(())
        }
    };
    // Functions that must not evaluate all arguments eagerly.
    match name {
        "if" => {
            want(3, 3)?;
            let c = crate::eval::truth(eval(&args[0], env)?, env) == Some(true);
            let (pick, other) = if c { (1, 2) } else { (2, 1) };
            let r = eval(&args[pick], env)?;
            return Ok(unify(r, &args[other..=other]));
        }
        "ifnull" => {
            want(2, 2)?;
            let a = eval(&args[0], env)?;
            return if a.is_null() {
                eval(&args[1], env).map(|r| unify(r, &args[..1]))
            } else {
                Ok(unify(a, &args[1..]))
            };
        }
        "coalesce" => {
            want(1, usize::MAX)?;
            for (i, a) in args.iter().enumerate() {
                let v = eval(a, env)?;
                if !v.is_null() {
                    // Typed by all its arguments, as IFNULL: COALESCE(17, 1.5) is 17.0.
                    return Ok(if i + 1 < args.len() {
                        unify(v, &args[i + 1..])
                    } else {
                        v
                    });
                }
            }
            return Ok(Value::Null);
        }
        "benchmark" => return benchmark(args, env),
        _ => {}
    }
    let mut v = Vec::with_capacity(argc);
    for a in args {
        v.push(eval(a, env)?);
    }
    if name.contains('.') {
        // `db.f(...)`: only a stored function.
        return stored_or_unknown(name, v, env);
    }
    if let Some(r) = time::call(name, &v, env)? {
        return Ok(r);
    }
    if let Some(r) = string::call(name, &v, coll, env)? {
        return Ok(r);
    }
    if let Some(r) = json::call(name, args, &v, env)? {
        return Ok(r);
    }
    if let Some(r) = math::call(name, &v, env)? {
        return Ok(r);
    }
    if let Some(r) = digest::call(name, &v, env)? {
        return Ok(r);
    }
    if let Some(r) = locking::call(name, &v, env)? {
        return Ok(r);
    }
    let null_in = v.iter().any(Value::is_null);
    let s = |i: usize| v[i].to_string_lossy().unwrap_or_default();
    let now = || CivilTime::from_unix_micros(env_time(env));
    Ok(match name {
        "version" => {
            want(0, 0)?;
            Value::Str(env.server_version())
        }
        "database" | "schema" => {
            want(0, 0)?;
            env.database().map_or(Value::Null, Value::Str)
        }
        "user" | "session_user" | "system_user" => {
            want(0, 0)?;
            Value::Str(env.user())
        }
        "current_user" => {
            want(0, 0)?;
            Value::Str(env.current_user())
        }
        "connection_id" => {
            want(0, 0)?;
            Value::UInt(env.connection_id())
        }
        "last_insert_id" => {
            want(0, 1)?;
            if argc == 1 {
                let id = v[0].to_i64().unwrap_or(0) as u64;
                env.set_last_insert_id(id);
                if v[0].is_null() {
                    Value::Null
                } else {
                    Value::UInt(id)
                }
            } else {
                Value::UInt(env.last_insert_id())
            }
        }
        "row_count" => {
            want(0, 0)?;
            Value::Int(env.row_count())
        }
        "found_rows" => {
            want(0, 0)?;
            Value::UInt(env.found_rows())
        }
        "now" | "current_timestamp" | "localtime" | "localtimestamp" | "sysdate"
        | "utc_timestamp" => {
            want(0, 1)?;
            let t = if name == "sysdate" {
                CivilTime::now_utc()
            } else {
                now()
            };
            let fsp = if argc == 1 {
                v[0].to_i64().unwrap_or(0).clamp(0, 6) as usize
            } else {
                0
            };
            let mut out = t.datetime_string();
            if fsp > 0 {
                out.push_str(&format!(".{:06}", t.micros)[..fsp + 1]);
            }
            Value::Str(out)
        }
        "curdate" | "current_date" | "utc_date" => {
            want(0, 0)?;
            Value::Str(now().datetime_string()[..10].to_string())
        }
        "curtime" | "current_time" | "utc_time" => {
            want(0, 1)?;
            Value::Str(now().datetime_string()[11..].to_string())
        }
        "unix_timestamp" => {
            want(0, 1)?;
            if argc == 1 {
                return Err(KilnError::new(
                    ErrorKind::ER_NOT_SUPPORTED_YET,
                    &[&"UNIX_TIMESTAMP(expr)"],
                ));
            }
            Value::Int(env_time(env).div_euclid(1_000_000))
        }
        "sleep" => {
            want(1, 1)?;
            let secs = v[0].to_f64().unwrap_or(0.0);
            if null_in || secs < 0.0 {
                return Err(KilnError::new(ErrorKind::ER_WRONG_ARGUMENTS, &[&"sleep."]));
            }
            Value::Int(env.sleep_interruptible(secs) as i64)
        }
        // NULLIF(a, NULL) is a: the comparison is unknown, not true.
        _ if null_in
            && !matches!(
                name,
                "concat_ws" | "greatest" | "least" | "isnull" | "nullif"
            ) =>
        {
            if !KNOWN.contains(&name) {
                return stored_or_unknown(name, v, env);
            }
            Value::Null
        }
        "concat" => {
            want(1, usize::MAX)?;
            let total: usize = v.iter().map(|x| x.to_text().map_or(0, |t| t.len())).sum();
            if total > RESULT_BYTES_MAX {
                return too_big(env, name);
            }
            concat_values(&v)
        }
        "concat_ws" => {
            want(2, usize::MAX)?;
            if v[0].is_null() {
                return Ok(Value::Null);
            }
            let sep = s(0);
            let parts: Vec<String> = v[1..].iter().filter_map(Value::to_string_lossy).collect();
            Value::Str(parts.join(&sep))
        }
        "length" | "octet_length" => {
            want(1, 1)?;
            Value::Int(match (&v[0], coll) {
                // bytes in the argument's charset (a latin1 'é' is one)
                (Value::Str(t), Some(c)) => c.encode(t.as_bytes()).len(),
                (other, _) => other.to_text().map_or(0, |t| t.len()),
            } as i64)
        }
        "char_length" | "character_length" => {
            want(1, 1)?;
            Value::Int(match &v[0] {
                Value::Bytes(b) => b.len(),
                _ => s(0).chars().count(),
            } as i64)
        }
        "convert_using" => {
            want(2, 2)?;
            convert_using(&v[0], &s(1))
        }
        "reverse" => {
            want(1, 1)?;
            Value::Str(s(0).chars().rev().collect())
        }
        "repeat" => {
            want(2, 2)?;
            let n = v[1].to_i64().unwrap_or(0).max(0) as usize;
            let unit = s(0);
            if unit.len().saturating_mul(n) > RESULT_BYTES_MAX {
                return too_big(env, name);
            }
            Value::Str(unit.repeat(n))
        }
        "space" => {
            want(1, 1)?;
            let n = v[0].to_i64().unwrap_or(0).max(0) as usize;
            if n > RESULT_BYTES_MAX {
                return too_big(env, name);
            }
            Value::Str(" ".repeat(n))
        }
        "left" | "right" => {
            want(2, 2)?;
            let chars: Vec<char> = s(0).chars().collect();
            let n = (v[1].to_i64().unwrap_or(0).max(0) as usize).min(chars.len());
            Value::Str(if name == "left" {
                chars[..n].iter().collect()
            } else {
                chars[chars.len() - n..].iter().collect()
            })
        }
        "substring" | "substr" | "mid" => {
            want(2, 3)?;
            let chars: Vec<char> = s(0).chars().collect();
            let len = chars.len() as i64;
            let pos = v[1].to_i64().unwrap_or(0);
            let start = if pos > 0 {
                pos - 1
            } else if pos < 0 {
                len + pos
            } else {
                return Ok(Value::Str(String::new()));
            };
            if start < 0 || start >= len {
                return Ok(Value::Str(String::new()));
            }
            let count = if argc == 3 {
                v[2].to_i64().unwrap_or(0).max(0)
            } else {
                len
            };
            let end = (start + count).min(len);
            Value::Str(chars[start as usize..end as usize].iter().collect())
        }
        "replace" => {
            want(3, 3)?;
            let from = s(1);
            if from.is_empty() {
                v[0].clone()
            } else {
                Value::Str(s(0).replace(&from, &s(2)))
            }
        }
        "trim" | "ltrim" | "rtrim" => {
            want(1, 1)?;
            let x = s(0);
            Value::Str(match name {
                "trim" => x.trim_matches(' ').to_string(),
                "ltrim" => x.trim_start_matches(' ').to_string(),
                _ => x.trim_end_matches(' ').to_string(),
            })
        }
        "lpad" | "rpad" => {
            want(3, 3)?;
            let x: Vec<char> = s(0).chars().collect();
            let n = v[1].to_i64().unwrap_or(-1);
            if n < 0 {
                return Ok(Value::Null);
            }
            let n = n as usize;
            if n > RESULT_BYTES_MAX {
                return too_big(env, name);
            }
            let pad: Vec<char> = s(2).chars().collect();
            if n <= x.len() {
                return Ok(Value::Str(x[..n].iter().collect()));
            }
            if pad.is_empty() {
                return Ok(Value::Null);
            }
            let fill: String = pad.iter().cycle().take(n - x.len()).collect();
            let x: String = x.into_iter().collect();
            Value::Str(if name == "lpad" { fill + &x } else { x + &fill })
        }
        "hex" => {
            want(1, 1)?;
            Value::Str(match &v[0] {
                Value::Int(i) => format!("{:X}", *i as u64),
                Value::UInt(u) => format!("{u:X}"),
                Value::Double(_) | Value::Decimal(_) => {
                    format!("{:X}", v[0].to_i64().unwrap_or(0) as u64)
                }
                Value::Str(t) => hex_upper(&coll.map_or(Coll::DEFAULT, |c| c).encode(t.as_bytes())),
                other => hex_upper(&other.to_text().unwrap_or_default()),
            })
        }
        "strcmp" => {
            want(2, 2)?;
            let c = coll.unwrap_or_else(|| env.collation_connection());
            Value::Int(match compare_in(&Value::Str(s(0)), &Value::Str(s(1)), c) {
                Some(std::cmp::Ordering::Less) => -1,
                Some(std::cmp::Ordering::Equal) => 0,
                _ => 1,
            })
        }
        "isnull" => {
            want(1, 1)?;
            Value::Int(v[0].is_null() as i64)
        }
        "nullif" => {
            want(2, 2)?;
            if crate::eval::compare_env(&v[0], &v[1], coll, env) == Some(std::cmp::Ordering::Equal)
            {
                Value::Null
            } else {
                v[0].clone()
            }
        }
        "abs" => {
            want(1, 1)?;
            match &v[0] {
                Value::Int(i) => match i.checked_abs() {
                    Some(a) => Value::Int(a),
                    None => {
                        return Err(KilnError::new(
                            ErrorKind::ER_DATA_OUT_OF_RANGE,
                            &[&"BIGINT", &"abs(-9223372036854775808)"],
                        ));
                    }
                },
                Value::UInt(u) => Value::UInt(*u),
                Value::Decimal(d) => Value::Decimal(d.trim_start_matches('-').to_string()),
                other => Value::Double(other.to_f64().unwrap_or(0.0).abs()),
            }
        }
        "sign" => {
            want(1, 1)?;
            let f = v[0].to_f64().unwrap_or(0.0);
            Value::Int(if f > 0.0 {
                1
            } else if f < 0.0 {
                -1
            } else {
                0
            })
        }
        "mod" => {
            want(2, 2)?;
            let e = Expr::Binary {
                op: crate::ast::BinaryOp::Mod,
                left: Box::new(Expr::Literal(v[0].clone())),
                right: Box::new(Expr::Literal(v[1].clone())),
            };
            eval(&e, env)?
        }
        "sqrt" | "exp" | "ln" | "log10" | "log2" => {
            want(1, 1)?;
            let f = v[0].to_f64().unwrap_or(0.0);
            let r = match name {
                "sqrt" => f.sqrt(),
                "exp" => f.exp(),
                "ln" => f.ln(),
                "log10" => f.log10(),
                _ => f.log2(),
            };
            if r.is_finite() {
                Value::Double(r)
            } else {
                Value::Null
            }
        }
        "log" => {
            want(1, 2)?;
            let r = if argc == 1 {
                v[0].to_f64().unwrap_or(0.0).ln()
            } else {
                v[1].to_f64().unwrap_or(0.0).ln() / v[0].to_f64().unwrap_or(0.0).ln()
            };
            if r.is_finite() {
                Value::Double(r)
            } else {
                Value::Null
            }
        }
        "pow" | "power" => {
            want(2, 2)?;
            let r = v[0]
                .to_f64()
                .unwrap_or(0.0)
                .powf(v[1].to_f64().unwrap_or(0.0));
            if !r.is_finite() {
                return Err(KilnError::new(
                    ErrorKind::ER_DATA_OUT_OF_RANGE,
                    &[&"DOUBLE", &"pow"],
                ));
            }
            Value::Double(r)
        }
        "rand" => {
            want(0, 1)?;
            Value::Double(rand_f64())
        }
        _ => return stored_or_unknown(name, v, env),
    })
}

/// A call no built-in answers: a stored function's (routine/call.rs), else 1305.
fn stored_or_unknown(name: &str, args: Vec<Value>, env: &mut dyn Env) -> Result<Value> {
    match env.stored_function(name, args) {
        Some(r) => r,
        None => Err(unknown_function(name, env)),
    }
}

/// Most evaluations BENCHMARK runs (MySQL's count is a 64-bit integer; a server
/// should not spin for years on one call).
const BENCHMARK_COUNT_MAX: i64 = 1 << 40;

/// BENCHMARK(count, expr): evaluates `expr` `count` times and returns 0; NULL with
/// warning 1411 for a negative or NULL count, NULL if the statement is killed.
fn benchmark(args: &[Expr], env: &mut dyn Env) -> Result<Value> {
    check_arity("benchmark", args.len(), 2, 2)?;
    let count = eval(&args[0], env)?;
    let n = match count.to_i64() {
        Some(n) if (0..=BENCHMARK_COUNT_MAX).contains(&n) => n,
        _ => {
            let shown = count.to_string_lossy().unwrap_or_else(|| "NULL".into());
            env.warn(
                Level::Warning,
                1411,
                format!("Incorrect count value: '{shown}' for function benchmark"),
            );
            return Ok(Value::Null);
        }
    };
    for i in 0..n {
        if i % 1024 == 0 && env.is_interrupted() {
            return Ok(Value::Null);
        }
        eval(&args[1], env)?;
    }
    Ok(Value::Int(0))
}

/// Gives a result picked from one of several branches (IF, IFNULL) the type the
/// branches share where the other branches are literals: an integer next to a DECIMAL
/// literal shows that literal's scale (IF(0, 1.5, 2) is 2.0), next to a DOUBLE literal
/// it is a DOUBLE.
fn unify(r: Value, others: &[Expr]) -> Value {
    use crate::result::ColumnKind;
    let mut scale = 0usize;
    let mut double = false;
    let mut decimal = false;
    for e in others {
        match e {
            Expr::Literal(Value::Decimal(d)) => {
                scale = scale.max(d.split_once('.').map_or(0, |(_, f)| f.len()))
            }
            Expr::Literal(Value::Double(_)) => double = true,
            Expr::Literal(_) => {}
            // A numeric expression whose static kind is known (its scale is not:
            // it counts as 0). Unknown kinds (columns here) leave the value alone.
            _ => match crate::infer::kind_of_expr(e, &|_| None) {
                Some(ColumnKind::Double | ColumnKind::Float) => double = true,
                Some(ColumnKind::NewDecimal) => decimal = true,
                _ => {}
            },
        }
    }
    match r {
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) if double => {
            Value::Double(r.to_f64().unwrap_or(0.0))
        }
        Value::Int(i) if decimal && scale == 0 => Value::Decimal(i.to_string()),
        Value::UInt(u) if decimal && scale == 0 => Value::Decimal(u.to_string()),
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) if scale > 0 => {
            let d = crate::numeric::to_decimal(&r);
            let digits = d.to_string().trim_start_matches('-').len() + scale;
            Value::Decimal(d.fit(digits.min(65) as u32, scale as u32).0.to_string())
        }
        other => other,
    }
}

/// CONVERT(v USING cs): the value as a string of charset `cs` (held as UTF-8 like
/// every character value; characters `cs` lacks become '?'), or its bytes for
/// `binary`.
fn convert_using(v: &Value, cs: &str) -> Value {
    use kiln_types::collation::{Charset, convert};
    let bytes = match v {
        Value::Str(s) => std::borrow::Cow::Borrowed(s.as_bytes()),
        other => std::borrow::Cow::Owned(other.to_text().unwrap_or_default()),
    };
    let from = if matches!(v, Value::Bytes(_)) {
        Charset::Binary
    } else {
        Charset::Utf8mb4
    };
    match Charset::by_name(cs) {
        Some(Charset::Binary) => Value::Bytes(bytes.into_owned()),
        Some(to) if from == Charset::Utf8mb4 => {
            let (narrow, _) = convert(from, to, &bytes);
            let (wide, _) = convert(to, Charset::Utf8mb4, &narrow);
            Value::Str(String::from_utf8(wide).unwrap_or_default())
        }
        _ => match String::from_utf8(bytes.into_owned()) {
            Ok(s) => Value::Str(s),
            Err(e) => Value::Bytes(e.into_bytes()),
        },
    }
}

/// Upper-case hex digits of `b`.
fn hex_upper(b: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        let _ = write!(s, "{x:02X}");
    }
    s
}

fn env_time(env: &dyn Env) -> i64 {
    env.statement_time_micros()
}

fn too_big(env: &mut dyn Env, name: &str) -> Result<Value> {
    env.warn(
        Level::Warning,
        1301,
        format!("Result of {name}() was larger than max_allowed_packet (67108864) - truncated"),
    );
    Ok(Value::Null)
}

fn concat_values(v: &[Value]) -> Value {
    if v.iter().any(|x| matches!(x, Value::Bytes(_))) {
        let mut out = Vec::new();
        for x in v {
            out.extend(x.to_text().unwrap_or_default());
        }
        return Value::Bytes(out);
    }
    let mut out = String::new();
    for x in v {
        out.push_str(&x.to_string_lossy().unwrap_or_default());
    }
    Value::Str(out)
}

const KNOWN: &[&str] = &[
    "version",
    "database",
    "schema",
    "user",
    "session_user",
    "system_user",
    "current_user",
    "connection_id",
    "last_insert_id",
    "row_count",
    "found_rows",
    "now",
    "current_timestamp",
    "localtime",
    "localtimestamp",
    "sysdate",
    "utc_timestamp",
    "curdate",
    "current_date",
    "utc_date",
    "curtime",
    "current_time",
    "utc_time",
    "unix_timestamp",
    "sleep",
    "concat",
    "concat_ws",
    "length",
    "convert_using",
    "octet_length",
    "char_length",
    "character_length",
    "upper",
    "ucase",
    "lower",
    "lcase",
    "reverse",
    "repeat",
    "space",
    "left",
    "right",
    "substring",
    "substr",
    "mid",
    "replace",
    "trim",
    "ltrim",
    "rtrim",
    "lpad",
    "rpad",
    "hex",
    "strcmp",
    "isnull",
    "nullif",
    "greatest",
    "least",
    "abs",
    "sign",
    "floor",
    "ceil",
    "ceiling",
    "round",
    "truncate",
    "mod",
    "pi",
    "sqrt",
    "exp",
    "ln",
    "log10",
    "log2",
    "log",
    "pow",
    "power",
    "rand",
    "if",
    "ifnull",
    "coalesce",
];

fn unknown_function(name: &str, env: &dyn Env) -> KilnError {
    let qualified = match env.database() {
        Some(db) if !name.contains('.') => format!("{db}.{name}"),
        _ => name.to_string(),
    };
    KilnError::new(ErrorKind::ER_SP_DOES_NOT_EXIST, &[&"FUNCTION", &qualified])
}

fn rand_f64() -> f64 {
    use std::cell::Cell;
    thread_local! {
        static STATE: Cell<u64> = Cell::new(kiln_common::time::unix_micros_now() as u64 | 1);
    }
    STATE.with(|s| {
        // xorshift64*: good enough for RAND() without a seed.
        let mut x = s.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        s.set(x);
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    })
}
