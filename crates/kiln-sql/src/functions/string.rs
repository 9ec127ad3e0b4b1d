//! String functions that search, pick or reshape text: LOCATE / INSTR / POSITION,
//! FIELD, FIND_IN_SET, ELT, ASCII, ORD, UNHEX, FORMAT, SUBSTRING_INDEX, the TRIM forms
//! (`trim_leading(s, r)` / `trim_trailing` / `trim_both` from the parser), and
//! UPPER / LOWER with the collation's one-to-one case mapping (UPPER('straße') is
//! 'STRAßE', as MySQL). Character strings compare under the connection collation
//! (`collation_connection`); binary strings byte by byte.

use kiln_common::Result;
use kiln_types::decimal::Decimal;

use crate::collate::Coll;
use crate::eval::Env;
use crate::value::Value;

/// The collation for comparing `vals`: binary if any is a binary string, else the
/// one the binder settled (`given`), else the connection collation.
fn coll_for(env: &dyn Env, given: Option<Coll>, vals: &[&Value]) -> Coll {
    if vals.iter().any(|v| matches!(v, Value::Bytes(_))) {
        return Coll::BINARY;
    }
    given.unwrap_or_else(|| env.collation_connection())
}

fn text(v: &Value) -> String {
    v.to_string_lossy().unwrap_or_default()
}

/// 1-based character position of `needle` in `hay` at or after character `from`
/// (1-based), 0 when absent.
fn locate(needle: &str, hay: &str, from: i64, coll: Coll) -> i64 {
    if from < 1 {
        return 0;
    }
    let hay_chars: Vec<(usize, char)> = hay.char_indices().collect();
    let n = needle.chars().count();
    let start = (from - 1) as usize;
    if start > hay_chars.len() {
        return 0;
    }
    if n == 0 {
        return from;
    }
    let binary = coll == Coll::BINARY;
    for i in start..hay_chars.len() {
        if i + n > hay_chars.len() {
            break;
        }
        let b = hay_chars[i].0;
        let e = hay_chars.get(i + n).map_or(hay.len(), |c| c.0);
        let window = &hay.as_bytes()[b..e];
        let hit = if binary {
            window == needle.as_bytes()
        } else {
            coll.eq(window, needle.as_bytes())
        };
        if hit {
            return i as i64 + 1;
        }
    }
    0
}

/// FORMAT(x, d[, locale]): rounded half away from zero to d decimals, thousands
/// grouped. The de_DE-style locales swap the separators.
fn format_number(x: &Value, d: i64, locale: Option<&str>) -> String {
    let d = d.clamp(0, 30) as i32;
    let dec = match x {
        Value::Double(f) => Decimal::from_f64(*f).unwrap_or_else(Decimal::zero),
        other => crate::numeric::to_decimal(other),
    };
    let r = dec.round(d).unwrap_or(dec);
    let s = r.to_string();
    let (neg, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest.to_string()),
        None => (false, s),
    };
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i.to_string(), f.to_string()),
        None => (s, String::new()),
    };
    let mut frac = frac;
    while (frac.len() as i32) < d {
        frac.push('0');
    }
    let (group, point) = match locale.map(|l| l.to_ascii_lowercase()) {
        Some(l)
            if l.starts_with("de_")
                || l.starts_with("es_")
                || l.starts_with("it_")
                || l.starts_with("nl_")
                || l.starts_with("pt_")
                || l.starts_with("id_") =>
        {
            ('.', ',')
        }
        _ => (',', '.'),
    };
    let mut out = String::new();
    let digits = int.as_bytes();
    for (i, c) in digits.iter().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(group);
        }
        out.push(*c as char);
    }
    if d > 0 {
        out.push(point);
        out.push_str(&frac);
    }
    let zero = out.bytes().all(|c| !c.is_ascii_digit() || c == b'0');
    if neg && !zero {
        out.insert(0, '-');
    }
    out
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let val = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(b.len().div_ceil(2));
    let mut i = 0;
    if b.len() % 2 == 1 {
        out.push(val(b[0])?);
        i = 1;
    }
    while i < b.len() {
        out.push(val(b[i])? << 4 | val(b[i + 1])?);
        i += 2;
    }
    Some(out)
}

fn substring_index(s: &str, delim: &str, count: i64) -> String {
    if delim.is_empty() || count == 0 {
        return String::new();
    }
    let positions: Vec<usize> = s.match_indices(delim).map(|(i, _)| i).collect();
    if count > 0 {
        match positions.get(count as usize - 1) {
            Some(&p) => s[..p].to_string(),
            None => s.to_string(),
        }
    } else {
        let k = count.unsigned_abs() as usize;
        if k > positions.len() {
            s.to_string()
        } else {
            s[positions[positions.len() - k] + delim.len()..].to_string()
        }
    }
}

fn trim_side(s: &str, r: &str, leading: bool, trailing: bool) -> String {
    if r.is_empty() {
        return s.to_string();
    }
    let mut t = s;
    if leading {
        while let Some(rest) = t.strip_prefix(r) {
            t = rest;
        }
    }
    if trailing {
        while let Some(rest) = t.strip_suffix(r) {
            t = rest;
        }
    }
    t.to_string()
}

/// Calls of the functions above; None when `name` is not one of them.
pub fn call(
    name: &str,
    v: &[Value],
    given: Option<Coll>,
    env: &mut dyn Env,
) -> Result<Option<Value>> {
    let argc = v.len();
    let arity = match name {
        "locate" => (2, 3),
        "instr" | "find_in_set" | "trim_leading" | "trim_trailing" | "trim_both" => (2, 2),
        "field" | "elt" => (2, usize::MAX),
        "ascii" | "ord" | "unhex" | "upper" | "ucase" | "lower" | "lcase" => (1, 1),
        "format" => (2, 3),
        "substring_index" => (3, 3),
        _ => return Ok(None),
    };
    super::check_arity(name, argc, arity.0, arity.1)?;
    // FIELD and ELT look at NULLs themselves.
    if name == "field" {
        if v[0].is_null() {
            return Ok(Some(Value::Int(0)));
        }
        let all_str = v
            .iter()
            .all(|x| matches!(x, Value::Str(_) | Value::Bytes(_)));
        let coll = coll_for(env, given, &v.iter().collect::<Vec<_>>());
        for (i, x) in v[1..].iter().enumerate() {
            let eq = if x.is_null() {
                false
            } else if all_str {
                let (a, b) = (
                    v[0].to_text().unwrap_or_default(),
                    x.to_text().unwrap_or_default(),
                );
                coll.eq(&a, &b)
            } else {
                let (a, b) = (v[0].to_f64(), x.to_f64());
                a == b
            };
            if eq {
                return Ok(Some(Value::Int(i as i64 + 1)));
            }
        }
        return Ok(Some(Value::Int(0)));
    }
    if name == "elt" {
        let n = match v[0].to_i64() {
            Some(n) => n,
            None => return Ok(Some(Value::Null)),
        };
        return Ok(Some(if n >= 1 && (n as usize) < v.len() {
            v[n as usize].clone()
        } else {
            Value::Null
        }));
    }
    if v.iter().any(Value::is_null) {
        return Ok(Some(Value::Null));
    }
    Ok(Some(match name {
        "locate" | "instr" => {
            let (needle, hay) = if name == "instr" {
                (&v[1], &v[0])
            } else {
                (&v[0], &v[1])
            };
            let from = if argc == 3 {
                v[2].to_i64().unwrap_or(0)
            } else {
                1
            };
            let coll = coll_for(env, given, &[needle, hay]);
            Value::Int(locate(&text(needle), &text(hay), from, coll))
        }
        "find_in_set" => {
            let coll = coll_for(env, given, &[&v[0], &v[1]]);
            let (needle, list) = (text(&v[0]), text(&v[1]));
            if needle.contains(',') {
                return Ok(Some(Value::Int(0)));
            }
            let pos = list
                .split(',')
                .position(|item| coll.eq(item.as_bytes(), needle.as_bytes()));
            Value::Int(pos.map_or(0, |p| p as i64 + 1))
        }
        "ascii" => Value::Int(
            v[0].to_text()
                .unwrap_or_default()
                .first()
                .map_or(0, |b| i64::from(*b)),
        ),
        "ord" => {
            let b = v[0].to_text().unwrap_or_default();
            let n = match (&v[0], std::str::from_utf8(&b)) {
                (Value::Str(_), Ok(s)) => s.chars().next().map_or(0, |c| c.len_utf8()),
                _ => b.len().min(1),
            };
            Value::Int(b[..n].iter().fold(0i64, |acc, x| acc * 256 + i64::from(*x)))
        }
        "unhex" => match unhex(&text(&v[0])) {
            Some(b) => Value::Bytes(b),
            None => Value::Null,
        },
        "upper" | "ucase" | "lower" | "lcase" => match &v[0] {
            Value::Bytes(b) => Value::Bytes(b.clone()),
            other => {
                let coll = coll_for(env, None, &[other]);
                let s = text(other);
                let out = if name.starts_with('u') {
                    coll.rules().to_upper(s.as_bytes())
                } else {
                    coll.rules().to_lower(s.as_bytes())
                };
                match String::from_utf8(out) {
                    Ok(s) => Value::Str(s),
                    Err(e) => Value::Bytes(e.into_bytes()),
                }
            }
        },
        "format" => {
            let locale = if argc == 3 { Some(text(&v[2])) } else { None };
            Value::Str(format_number(
                &v[0],
                v[1].to_i64().unwrap_or(0),
                locale.as_deref(),
            ))
        }
        "substring_index" => Value::Str(substring_index(
            &text(&v[0]),
            &text(&v[1]),
            v[2].to_i64().unwrap_or(0),
        )),
        "trim_leading" | "trim_trailing" | "trim_both" => Value::Str(trim_side(
            &text(&v[0]),
            &text(&v[1]),
            name != "trim_trailing",
            name != "trim_leading",
        )),
        _ => return Ok(None),
    }))
}

#[cfg(test)]
mod tests {
    use super::super::testenv::q;
    use super::*;

    #[test]
    fn helpers() {
        assert_eq!(substring_index("www.mysql.com", ".", 2), "www.mysql");
        assert_eq!(substring_index("www.mysql.com", ".", -2), "mysql.com");
        assert_eq!(
            format_number(&Value::Decimal("1234567.891".into()), 2, None),
            "1,234,567.89"
        );
        assert_eq!(
            format_number(&Value::Decimal("-1234.567".into()), 1, None),
            "-1,234.6"
        );
        assert_eq!(
            format_number(&Value::Decimal("1234567.891".into()), 2, Some("de_DE")),
            "1.234.567,89"
        );
        assert_eq!(format_number(&Value::Double(0.5), 0, None), "1");
        assert_eq!(unhex("616263"), Some(b"abc".to_vec()));
        assert_eq!(unhex("zz"), None);
        assert_eq!(trim_side("ababcab", "ab", true, true), "c");
    }

    #[test]
    fn calls() {
        assert_eq!(
            q(
                "SELECT LOCATE('bar', 'foobarbar', 5), INSTR('foobarbar', 'bar'), POSITION('b' IN 'abc'), \
               LOCATE('é', 'héllo'), LOCATE('', 'abc'), FIELD('b', 'a', 'b'), FIND_IN_SET('b', 'a,b,c'), \
               ELT(2, 'a', 'b'), ELT(5, 'a'), ASCII('A'), ORD('é'), SUBSTRING('abc' FROM 2 FOR 1), \
               TRIM(TRAILING 'xy' FROM 'axyxy'), UPPER('straße')"
            ),
            [
                "7", "4", "2", "2", "1", "2", "2", "b", "NULL", "65", "50089", "b", "a", "STRAßE"
            ]
        );
    }
}
