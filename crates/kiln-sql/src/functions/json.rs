//! JSON functions over JSON text: JSON_EXTRACT (and the `->` / `->>` operators, which
//! the parser turns into json_extract / json_unquote calls), JSON_UNQUOTE, JSON_TYPE,
//! JSON_VALID, JSON_LENGTH, JSON_OBJECT, JSON_ARRAY, JSON_QUOTE, JSON_CONTAINS and
//! JSON_KEYS. Documents are parsed on demand into [`Json`] and printed as MySQL prints
//! JSON: `{"a": 1, "b": [1, 2]}`, object keys sorted by length then bytes (MySQL's
//! normalized order), the last of duplicate keys kept.

use kiln_common::{ErrorKind, KilnError, Result};

use crate::ast::Expr;
use crate::eval::Env;
use crate::value::Value;

/// A parsed JSON value. Numbers keep their text; `float` marks a fraction or exponent.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Num { text: String, float: bool },
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

struct P<'a> {
    b: &'a [u8],
    i: usize,
}

impl P<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Option<Json> {
        if depth > crate::json::JSON_DEPTH_MAX {
            return None;
        }
        self.ws();
        let c = *self.b.get(self.i)?;
        match c {
            b'{' => {
                self.i += 1;
                let mut members: Vec<(String, Json)> = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Some(Json::Obj(members));
                }
                loop {
                    self.ws();
                    let k = self.string()?;
                    self.ws();
                    if self.b.get(self.i) != Some(&b':') {
                        return None;
                    }
                    self.i += 1;
                    let v = self.value(depth + 1)?;
                    members.retain(|(key, _)| *key != k);
                    members.push((k, v));
                    self.ws();
                    match self.b.get(self.i)? {
                        b',' => self.i += 1,
                        b'}' => {
                            self.i += 1;
                            break;
                        }
                        _ => return None,
                    }
                }
                Some(Json::Obj(normalize(members)))
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Some(Json::Arr(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.ws();
                    match self.b.get(self.i)? {
                        b',' => self.i += 1,
                        b']' => {
                            self.i += 1;
                            break;
                        }
                        _ => return None,
                    }
                }
                Some(Json::Arr(items))
            }
            b'"' => self.string().map(Json::Str),
            b't' if self.b[self.i..].starts_with(b"true") => {
                self.i += 4;
                Some(Json::Bool(true))
            }
            b'f' if self.b[self.i..].starts_with(b"false") => {
                self.i += 5;
                Some(Json::Bool(false))
            }
            b'n' if self.b[self.i..].starts_with(b"null") => {
                self.i += 4;
                Some(Json::Null)
            }
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn number(&mut self) -> Option<Json> {
        let start = self.i;
        if self.b[self.i] == b'-' {
            self.i += 1;
        }
        let d0 = self.i;
        while self.i < self.b.len() && self.b[self.i].is_ascii_digit() {
            self.i += 1;
        }
        if self.i == d0 {
            return None;
        }
        let mut float = false;
        if self.b.get(self.i) == Some(&b'.') {
            float = true;
            self.i += 1;
            let f0 = self.i;
            while self.i < self.b.len() && self.b[self.i].is_ascii_digit() {
                self.i += 1;
            }
            if self.i == f0 {
                return None;
            }
        }
        if matches!(self.b.get(self.i), Some(b'e' | b'E')) {
            float = true;
            self.i += 1;
            if matches!(self.b.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            let e0 = self.i;
            while self.i < self.b.len() && self.b[self.i].is_ascii_digit() {
                self.i += 1;
            }
            if self.i == e0 {
                return None;
            }
        }
        let text = std::str::from_utf8(&self.b[start..self.i])
            .ok()?
            .to_string();
        Some(Json::Num { text, float })
    }

    fn string(&mut self) -> Option<String> {
        if self.b.get(self.i) != Some(&b'"') {
            return None;
        }
        self.i += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let c = *self.b.get(self.i)?;
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let e = *self.b.get(self.i)?;
                    self.i += 1;
                    match e {
                        b'"' | b'\\' | b'/' => out.push(e),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'u' => {
                            let mut cp = self.hex4()?;
                            if (0xD800..0xDC00).contains(&cp)
                                && self.b[self.i..].starts_with(b"\\u")
                            {
                                self.i += 2;
                                let lo = self.hex4()?;
                                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo.wrapping_sub(0xDC00));
                            }
                            let ch = char::from_u32(cp).unwrap_or('\u{FFFD}');
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        _ => return None,
                    }
                }
                c if c < 0x20 => return None,
                c => out.push(c),
            }
        }
        String::from_utf8(out).ok()
    }

    fn hex4(&mut self) -> Option<u32> {
        let h = self.b.get(self.i..self.i + 4)?;
        self.i += 4;
        u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
    }
}

/// MySQL's key order: shorter keys first, then bytewise.
fn normalize(mut members: Vec<(String, Json)>) -> Vec<(String, Json)> {
    members.sort_by(|a, b| a.0.len().cmp(&b.0.len()).then_with(|| a.0.cmp(&b.0)));
    members
}

pub fn parse(s: &str) -> Option<Json> {
    let mut p = P {
        b: s.as_bytes(),
        i: 0,
    };
    let v = p.value(0)?;
    p.ws();
    (p.i == p.b.len()).then_some(v)
}

pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn num_text(text: &str, float: bool) -> String {
    if !float {
        return text.to_string();
    }
    match text.parse::<f64>() {
        Ok(f) if f.is_finite() => {
            if f == f.trunc() && f.abs() < 1e15 {
                format!("{f:.1}")
            } else {
                crate::value::format_double(f)
            }
        }
        _ => text.to_string(),
    }
}

impl std::fmt::Display for Json {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Json::Null => f.write_str("null"),
            Json::Bool(b) => write!(f, "{b}"),
            Json::Num { text, float } => f.write_str(&num_text(text, *float)),
            Json::Str(s) => f.write_str(&quote(s)),
            Json::Arr(items) => {
                f.write_str("[")?;
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str("]")
            }
            Json::Obj(members) => {
                f.write_str("{")?;
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}: {v}", quote(k))?;
                }
                f.write_str("}")
            }
        }
    }
}

/// One step of a JSON path.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Key(String),
    AnyKey,
    Index(usize),
    Last,
    AnyIndex,
    AnyDepth,
}

fn parse_path(s: &str) -> Option<Vec<Step>> {
    let b = s.trim().as_bytes();
    if b.first() != Some(&b'$') {
        return None;
    }
    let mut i = 1;
    let mut steps = Vec::new();
    let skip_ws = |i: &mut usize| {
        while *i < b.len() && b[*i] == b' ' {
            *i += 1;
        }
    };
    loop {
        skip_ws(&mut i);
        if i >= b.len() {
            break;
        }
        match b[i] {
            b'.' => {
                i += 1;
                skip_ws(&mut i);
                if b.get(i) == Some(&b'*') {
                    i += 1;
                    steps.push(Step::AnyKey);
                } else if b.get(i) == Some(&b'"') {
                    let mut p = P { b, i };
                    steps.push(Step::Key(p.string()?));
                    i = p.i;
                } else {
                    let st = i;
                    while i < b.len()
                        && (b[i].is_ascii_alphanumeric()
                            || b[i] == b'_'
                            || b[i] == b'$'
                            || b[i] >= 0x80)
                    {
                        i += 1;
                    }
                    if i == st {
                        return None;
                    }
                    steps.push(Step::Key(std::str::from_utf8(&b[st..i]).ok()?.into()));
                }
            }
            b'[' => {
                i += 1;
                skip_ws(&mut i);
                if b.get(i) == Some(&b'*') {
                    i += 1;
                    steps.push(Step::AnyIndex);
                } else if b[i..].starts_with(b"last") {
                    i += 4;
                    steps.push(Step::Last);
                } else {
                    let st = i;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                    if i == st {
                        return None;
                    }
                    steps.push(Step::Index(
                        std::str::from_utf8(&b[st..i]).ok()?.parse().ok()?,
                    ));
                }
                skip_ws(&mut i);
                if b.get(i) != Some(&b']') {
                    return None;
                }
                i += 1;
            }
            b'*' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                steps.push(Step::AnyDepth);
            }
            _ => return None,
        }
    }
    if steps.last() == Some(&Step::AnyDepth) {
        return None;
    }
    Some(steps)
}

fn walk<'a>(v: &'a Json, steps: &[Step], out: &mut Vec<&'a Json>) {
    let Some((step, rest)) = steps.split_first() else {
        out.push(v);
        return;
    };
    match (step, v) {
        (Step::Key(k), Json::Obj(m)) => {
            if let Some((_, x)) = m.iter().find(|(key, _)| key == k) {
                walk(x, rest, out);
            }
        }
        (Step::AnyKey, Json::Obj(m)) => m.iter().for_each(|(_, x)| walk(x, rest, out)),
        (Step::Index(n), Json::Arr(a)) => {
            if let Some(x) = a.get(*n) {
                walk(x, rest, out);
            }
        }
        (Step::Last, Json::Arr(a)) => {
            if let Some(x) = a.last() {
                walk(x, rest, out);
            }
        }
        (Step::AnyIndex, Json::Arr(a)) => a.iter().for_each(|x| walk(x, rest, out)),
        // A scalar or object is an array of itself for [0] / [last].
        (Step::Index(0) | Step::Last, other) => walk(other, rest, out),
        (Step::AnyDepth, _) => {
            walk(v, rest, out);
            match v {
                Json::Arr(a) => a.iter().for_each(|x| walk(x, steps, out)),
                Json::Obj(m) => m.iter().for_each(|(_, x)| walk(x, steps, out)),
                _ => {}
            }
        }
        _ => {}
    }
}

fn has_wildcard(steps: &[Step]) -> bool {
    steps
        .iter()
        .any(|s| matches!(s, Step::AnyKey | Step::AnyIndex | Step::AnyDepth))
}

fn text(v: &Value) -> String {
    v.to_string_lossy().unwrap_or_default()
}

fn doc_arg(v: &Value, n: usize, fname: &str) -> Result<Json> {
    let s = text(v);
    parse(&s).ok_or_else(|| {
        KilnError::new(
            ErrorKind::ER_INVALID_JSON_TEXT_IN_PARAM,
            &[&n, &fname, &"Invalid value.", &0, &""],
        )
    })
}

fn path_arg(v: &Value) -> Result<Vec<Step>> {
    let s = text(v);
    parse_path(&s).ok_or_else(|| {
        KilnError::new(
            ErrorKind::ER_INVALID_JSON_PATH,
            &[&"Invalid path expression.", &0, &s],
        )
    })
}

/// Whether an argument expression yields JSON (so its string is nested, not quoted).
fn is_json_expr(e: &Expr) -> bool {
    matches!(e, Expr::Func { name, .. } if matches!(name.as_str(),
        "json_object" | "json_array" | "json_extract" | "json_keys"))
}

/// Whether an argument expression is a truth value (a comparison or logical
/// operator), which JSON takes as true/false.
fn is_bool_expr(e: &Expr) -> bool {
    use crate::ast::{BinaryOp::*, UnaryOp};
    match e {
        Expr::InColl { expr, .. } => is_bool_expr(expr),
        Expr::Binary { op, .. } => matches!(
            op,
            Eq | NullSafeEq | Ne | Lt | Le | Gt | Ge | And | Or | Xor
        ),
        Expr::Unary {
            op: UnaryOp::Not, ..
        } => true,
        Expr::IsNull { .. }
        | Expr::IsBool { .. }
        | Expr::Between { .. }
        | Expr::InList { .. }
        | Expr::InSubquery { .. }
        | Expr::Quantified(_)
        | Expr::Like { .. }
        | Expr::Exists(_) => true,
        _ => false,
    }
}

/// An SQL value as a JSON value.
fn to_json(v: &Value, e: Option<&Expr>) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Int(i) if e.is_some_and(is_bool_expr) => Json::Bool(*i != 0),
        Value::Int(i) => Json::Num {
            text: i.to_string(),
            float: false,
        },
        Value::UInt(u) => Json::Num {
            text: u.to_string(),
            float: false,
        },
        Value::Double(d) => Json::Num {
            text: crate::value::format_double(*d),
            float: true,
        },
        Value::Decimal(s) => Json::Num {
            text: s.clone(),
            float: false,
        },
        Value::Str(s) if e.is_some_and(is_json_expr) => {
            parse(s).unwrap_or_else(|| Json::Str(s.clone()))
        }
        other => Json::Str(text(other)),
    }
}

fn json_type(j: &Json) -> &'static str {
    match j {
        Json::Null => "NULL",
        Json::Bool(_) => "BOOLEAN",
        Json::Num { float: true, .. } => "DOUBLE",
        Json::Num { text, .. } if text.contains('.') => "DECIMAL",
        Json::Num { text, .. } if text.starts_with('-') || text.parse::<i64>().is_ok() => "INTEGER",
        Json::Num { .. } => "UNSIGNED INTEGER",
        Json::Str(_) => "STRING",
        Json::Arr(_) => "ARRAY",
        Json::Obj(_) => "OBJECT",
    }
}

fn num_eq(a: &str, b: &str) -> bool {
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// JSON_CONTAINS(target, candidate).
fn contains(t: &Json, c: &Json) -> bool {
    match (t, c) {
        (Json::Arr(ts), Json::Arr(cs)) => cs.iter().all(|x| ts.iter().any(|y| contains(y, x))),
        (Json::Arr(ts), scalar) => ts.iter().any(|y| contains(y, scalar)),
        (Json::Obj(tm), Json::Obj(cm)) => cm.iter().all(|(k, cv)| {
            tm.iter()
                .find(|(tk, _)| tk == k)
                .is_some_and(|(_, tv)| contains(tv, cv))
        }),
        (Json::Num { text: a, .. }, Json::Num { text: b, .. }) => num_eq(a, b),
        (a, b) => a == b,
    }
}

/// JSON_UNQUOTE: a JSON string literal decoded, anything else as is.
fn unquote(s: &str) -> String {
    let t = s.trim();
    if t.len() >= 2
        && t.starts_with('"')
        && t.ends_with('"')
        && let Some(Json::Str(x)) = parse(t)
    {
        return x;
    }
    s.to_string()
}

pub fn call(name: &str, args: &[Expr], v: &[Value], env: &mut dyn Env) -> Result<Option<Value>> {
    let _ = env;
    let argc = v.len();
    let arity = match name {
        "json_extract" => (2, usize::MAX),
        "json_unquote" | "json_type" | "json_valid" | "json_quote" => (1, 1),
        "json_length" | "json_keys" => (1, 2),
        "json_contains" => (2, 3),
        "json_object" | "json_array" => (0, usize::MAX),
        _ => return Ok(None),
    };
    super::check_arity(name, argc, arity.0, arity.1)?;
    let out = match name {
        "json_object" => {
            if argc % 2 == 1 {
                return Err(KilnError::new(
                    ErrorKind::ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT,
                    &[&"JSON_OBJECT"],
                ));
            }
            let mut members: Vec<(String, Json)> = Vec::new();
            for i in (0..argc).step_by(2) {
                if v[i].is_null() {
                    return Err(KilnError::new(ErrorKind::ER_JSON_DOCUMENT_NULL_KEY, &[]));
                }
                let k = text(&v[i]);
                members.retain(|(key, _)| *key != k);
                members.push((k, to_json(&v[i + 1], args.get(i + 1))));
            }
            Value::Str(Json::Obj(normalize(members)).to_string())
        }
        "json_array" => Value::Str(
            Json::Arr(
                v.iter()
                    .enumerate()
                    .map(|(i, x)| to_json(x, args.get(i)))
                    .collect(),
            )
            .to_string(),
        ),
        _ if v.iter().any(Value::is_null) => Value::Null,
        "json_valid" => Value::Int(parse(&text(&v[0])).is_some() as i64),
        "json_quote" => Value::Str(quote(&text(&v[0]))),
        "json_unquote" => Value::Str(unquote(&text(&v[0]))),
        "json_type" => Value::Str(json_type(&doc_arg(&v[0], 1, "json_type")?).into()),
        "json_extract" => {
            let doc = doc_arg(&v[0], 1, "json_extract")?;
            let mut found = Vec::new();
            let mut wrap = argc > 2;
            for p in &v[1..] {
                let steps = path_arg(p)?;
                wrap |= has_wildcard(&steps);
                walk(&doc, &steps, &mut found);
            }
            match found.len() {
                0 => Value::Null,
                1 if !wrap => Value::Str(found[0].to_string()),
                _ => Value::Str(Json::Arr(found.into_iter().cloned().collect()).to_string()),
            }
        }
        "json_length" | "json_keys" => {
            let doc = doc_arg(&v[0], 1, name)?;
            let mut found = vec![&doc];
            if argc == 2 {
                found.clear();
                walk(&doc, &path_arg(&v[1])?, &mut found);
            }
            match (name, found.first()) {
                (_, None) => Value::Null,
                ("json_length", Some(Json::Arr(a))) => Value::Int(a.len() as i64),
                ("json_length", Some(Json::Obj(m))) => Value::Int(m.len() as i64),
                ("json_length", Some(_)) => Value::Int(1),
                (_, Some(Json::Obj(m))) => Value::Str(
                    Json::Arr(m.iter().map(|(k, _)| Json::Str(k.clone())).collect()).to_string(),
                ),
                _ => Value::Null,
            }
        }
        "json_contains" => {
            let t = doc_arg(&v[0], 1, name)?;
            let c = doc_arg(&v[1], 2, name)?;
            let mut found = vec![&t];
            if argc == 3 {
                found.clear();
                walk(&t, &path_arg(&v[2])?, &mut found);
            }
            match found.first() {
                Some(x) => Value::Int(contains(x, &c) as i64),
                None => Value::Null,
            }
        }
        _ => return Ok(None),
    };
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::super::testenv::q;
    use super::*;

    #[test]
    fn parse_and_print() {
        let j = parse(r#" {"b": [1, 2.50, {"c": "x"}], "a": 1, "aa": null, "a": 2} "#).unwrap();
        assert_eq!(
            j.to_string(),
            r#"{"a": 2, "b": [1, 2.5, {"c": "x"}], "aa": null}"#
        );
        assert!(parse("{bad").is_none());
        assert_eq!(parse("1e2").unwrap().to_string(), "100.0");
        assert_eq!(parse(r#""x\ty""#).unwrap(), Json::Str("x\ty".into()));
    }

    #[test]
    fn paths() {
        assert_eq!(
            parse_path("$.a[2].\"b c\""),
            Some(vec![
                Step::Key("a".into()),
                Step::Index(2),
                Step::Key("b c".into())
            ])
        );
        assert!(parse_path("a.b").is_none());
    }

    #[test]
    fn calls() {
        assert_eq!(
            q(
                r#"SELECT JSON_EXTRACT('{"a": [10, 20]}', '$.a[1]'), JSON_EXTRACT('[1, [2, 3]]', '$[1][0]'),
                 JSON_OBJECT('a', 1, 'b', 'x'), JSON_ARRAY(1, 'a', NULL, 1.5), JSON_QUOTE('a"b'),
                 JSON_CONTAINS('[1, 2, 3]', '2'), JSON_KEYS('{"a": 1, "b": 2}'),
                 JSON_TYPE('[1]'), JSON_VALID('{'), JSON_LENGTH('{"a": 1}'),
                 JSON_UNQUOTE('"x\\ty"'), JSON_OBJECT('o', JSON_ARRAY(1, 2)),
                 JSON_EXTRACT('[1, 2, 3]', '$[*]'), JSON_ARRAY(1 = 1, 2 < 1)"#
            ),
            [
                "20",
                "2",
                r#"{"a": 1, "b": "x"}"#,
                r#"[1, "a", null, 1.5]"#,
                r#""a\"b""#,
                "1",
                r#"["a", "b"]"#,
                "ARRAY",
                "0",
                "1",
                "x\ty",
                r#"{"o": [1, 2]}"#,
                "[1, 2, 3]",
                "[true, false]"
            ]
        );
    }
}
