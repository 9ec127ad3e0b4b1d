//! The HandlerSocket wire format, free of I/O: encoding the requests kiln-bench sends
//! (`A` auth, `P` open_index, `=` find, `=` find_modify with `+`) and decoding response
//! lines. Framing: one request/response per LF-terminated line, tokens separated by a
//! single TAB; a value byte 0x00–0x0f travels as 0x01 followed by the byte + 0x40; a
//! token made of the single byte 0x00 is NULL (distinct from the empty token).

use std::io::Write;

/// Appends `value` escaped for use as one token.
pub fn push_escaped(out: &mut Vec<u8>, value: &[u8]) {
    for &b in value {
        if b <= 0x0f {
            out.push(0x01);
            out.push(b + 0x40);
        } else {
            out.push(b);
        }
    }
}

/// `A 1 <secret>`: plain-text authentication.
pub fn auth(out: &mut Vec<u8>, secret: &str) {
    out.extend_from_slice(b"A\t1\t");
    push_escaped(out, secret.as_bytes());
    out.push(b'\n');
}

/// `P <id> <db> <table> <index> <columns>`: binds index id `id` on this connection.
pub fn open_index(out: &mut Vec<u8>, id: u32, db: &str, table: &str, index: &str, columns: &str) {
    write!(out, "P\t{id}\t").unwrap();
    for (i, token) in [db, table, index, columns].into_iter().enumerate() {
        if i > 0 {
            out.push(b'\t');
        }
        push_escaped(out, token.as_bytes());
    }
    out.push(b'\n');
}

/// `<id> = 1 <key>`: the row whose one-part key equals `key` (limit 1, offset 0).
/// (The load loop writes the prefix once and `find_eq_key` per request.)
#[cfg(test)]
pub fn find_eq(out: &mut Vec<u8>, id: u32, key: u64) {
    find_eq_prefix(out, id);
    find_eq_key(out, key);
}

/// The part of `find_eq` before the key, `<id> TAB = TAB 1 TAB` (computed once per
/// connection by the load loop).
pub fn find_eq_prefix(out: &mut Vec<u8>, id: u32) {
    push_u64(out, u64::from(id));
    out.extend_from_slice(b"\t=\t1\t");
}

/// The rest of `find_eq`: `<key> LF`. The hot path of every read: digits by hand,
/// not through fmt.
pub fn find_eq_key(out: &mut Vec<u8>, key: u64) {
    push_u64(out, key);
    out.push(b'\n');
}

/// Appends the decimal digits of `n`.
fn push_u64(out: &mut Vec<u8>, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

/// `<id> = 1 <key> 1 0 + <delta>`: adds `delta` to the (single) opened column of the
/// row whose key equals `key`.
pub fn increment(out: &mut Vec<u8>, id: u32, key: u64, delta: i64) {
    writeln!(out, "{id}\t=\t1\t{key}\t1\t0\t+\t{delta}").unwrap();
}

/// Decodes one token: `None` for NULL, otherwise the unescaped bytes. A trailing lone
/// 0x01 (malformed) is kept as is.
pub fn unescape(token: &[u8]) -> Option<Vec<u8>> {
    if token == [0x00] {
        return None;
    }
    let mut v = Vec::with_capacity(token.len());
    let mut i = 0;
    while i < token.len() {
        if token[i] == 0x01 && i + 1 < token.len() {
            v.push(token[i + 1].wrapping_sub(0x40));
            i += 2;
        } else {
            v.push(token[i]);
            i += 1;
        }
    }
    Some(v)
}

/// The first two tokens of a response and where the rest starts, without allocating:
/// what the load loop needs per request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header<'a> {
    /// 0 = success; 1 engine failure; 2 bad request; 3 authentication.
    pub code: u32,
    /// Number of columns (always 1 on an error response).
    pub ncols: u64,
    /// Everything after the second token's TAB, `None` when the line has two tokens.
    pub rest: Option<&'a [u8]>,
}

/// Splits off the code and column count; `None` when they are not decimal numbers.
pub fn header(line: &[u8]) -> Option<Header<'_>> {
    let mut parts = line.splitn(3, |&b| b == b'\t');
    let code = parse_decimal(parts.next()?)?;
    let ncols = parse_decimal(parts.next()?)?;
    Some(Header {
        code: u32::try_from(code).ok()?,
        ncols,
        rest: parts.next(),
    })
}

fn parse_decimal(token: &[u8]) -> Option<u64> {
    if token.is_empty() || token.len() > 19 || !token.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(token.iter().fold(0, |n, &d| n * 10 + u64::from(d - b'0')))
}

/// A fully decoded response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    pub code: u32,
    pub ncols: u64,
    /// Success: the values, rows flattened (`None` = NULL). Error: the message, if any.
    pub values: Vec<Option<Vec<u8>>>,
}

/// Decodes a whole response line.
pub fn parse_response(line: &[u8]) -> Result<Response, String> {
    let h = header(line)
        .ok_or_else(|| "response does not start with <code> TAB <ncols>".to_string())?;
    let values = match h.rest {
        None => Vec::new(),
        Some(rest) => rest.split(|&b| b == b'\t').map(unescape).collect(),
    };
    Ok(Response {
        code: h.code,
        ncols: h.ncols,
        values,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_encoding() {
        let mut out = Vec::new();
        auth(&mut out, "s3cret");
        open_index(&mut out, 1, "sbtest", "sbtest1", "PRIMARY", "id,k,c,pad");
        find_eq(&mut out, 1, 42);
        find_eq(&mut out, 10, 0);
        find_eq(&mut out, 1, u64::MAX);
        increment(&mut out, 2, 7, 1);
        assert_eq!(
            out,
            b"A\t1\ts3cret\nP\t1\tsbtest\tsbtest1\tPRIMARY\tid,k,c,pad\n1\t=\t1\t42\n\
              10\t=\t1\t0\n1\t=\t1\t18446744073709551615\n\
              2\t=\t1\t7\t1\t0\t+\t1\n"
        );
    }

    #[test]
    fn escaping_of_low_bytes() {
        let mut out = Vec::new();
        push_escaped(&mut out, b"a\tb\nc\x00\x0f\x10z");
        assert_eq!(out, b"a\x01\x49b\x01\x4ac\x01\x40\x01\x4f\x10z");
        // No escaped token contains a TAB, an LF or a NUL.
        assert!(!out.iter().any(|&b| b == b'\t' || b == b'\n' || b == 0));
        // A name with a TAB cannot split the open_index request.
        let mut out = Vec::new();
        open_index(&mut out, 3, "d\tb", "t", "", "");
        assert_eq!(out, b"P\t3\td\x01\x49b\tt\t\t\n");
    }

    #[test]
    fn escape_round_trips_every_byte() {
        let all: Vec<u8> = (0..=255).collect();
        let mut out = Vec::new();
        push_escaped(&mut out, &all);
        assert_eq!(unescape(&out).unwrap(), all);
    }

    #[test]
    fn null_empty_and_escaped_values() {
        let line = b"0\t4\t1\t\x00\t\tx\x01\x40y\x01\x49";
        let r = parse_response(line).unwrap();
        assert_eq!(r.code, 0);
        assert_eq!(r.ncols, 4);
        assert_eq!(
            r.values,
            vec![
                Some(b"1".to_vec()),
                None,
                Some(Vec::new()),
                Some(b"x\x00y\t".to_vec())
            ]
        );
        assert_eq!(unescape(b"\x00"), None);
        assert_eq!(unescape(b"\x01\x40"), Some(vec![0]));
        assert_eq!(unescape(b""), Some(Vec::new()));
    }

    #[test]
    fn headers() {
        // A find that matched nothing: no values.
        assert_eq!(
            header(b"0\t4"),
            Some(Header {
                code: 0,
                ncols: 4,
                rest: None
            })
        );
        // find_modify: rows changed.
        assert_eq!(header(b"0\t1\t1").unwrap().rest, Some(&b"1"[..]));
        // An empty single value is still a value.
        assert_eq!(header(b"0\t1\t").unwrap().rest, Some(&b""[..]));
        let e = parse_response(b"2\t1\tstmtnum").unwrap();
        assert_eq!(e.code, 2);
        assert_eq!(e.values, vec![Some(b"stmtnum".to_vec())]);
        assert_eq!(header(b"3\t1\tunauth").unwrap().code, 3);
        assert_eq!(header(b""), None);
        assert_eq!(header(b"0"), None);
        assert_eq!(header(b"x\t1"), None);
        assert_eq!(header(b"-1\t1"), None);
        assert!(parse_response(b"garbage").is_err());
    }

    #[test]
    fn multi_row_response() {
        let r = parse_response(b"0\t2\t1\ta\t2\tb").unwrap();
        let rows: Vec<_> = r.values.chunks(r.ncols as usize).collect();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1][1].as_deref(), Some(&b"b"[..]));
    }
}
