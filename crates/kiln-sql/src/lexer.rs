//! The SQL lexer: turns statement text into tokens with byte spans, MySQL's way —
//! backtick identifiers (and "..." ones under ANSI_QUOTES), '...' and "..." strings with
//! backslash escapes (none under NO_BACKSLASH_ESCAPES) and doubled
//! quotes, X'..'/0x.. hex literals, b'..'/0b.. bit literals, @user and @@system
//! variables, `?` placeholders, `-- `, `#` and `/* */` comments, and `/*! ... */`
//! executable comments whose body is lexed as code (sysbench sends `/*! ENGINE = innodb */`).
//!
//! The lexer allocates only for strings that contain escapes; everything else borrows.

use std::borrow::Cow;

use kiln_common::{ErrorKind, KilnError, Result};

/// Our version for `/*!NNNNN ... */` comments: bodies for versions above it are skipped.
const EXEC_COMMENT_VERSION: u32 = 80040;
/// Longest statement the lexer accepts (bounded again by max_allowed_packet).
pub const TOKENS_MAX: usize = 1 << 22;

#[derive(Debug, Clone, PartialEq)]
pub enum Tok<'a> {
    /// An unquoted word: keyword or identifier (callers compare case-insensitively).
    Word(&'a str),
    /// A `quoted` identifier (doubled backticks unescaped).
    QuotedIdent(Cow<'a, str>),
    /// A string literal (escapes processed). Bytes, since escapes may produce any byte.
    Str(Cow<'a, [u8]>),
    /// X'..' / 0x.. literal, already decoded.
    Hex(Vec<u8>),
    /// b'..' / 0b.. literal, already decoded to big-endian bytes.
    Bits(Vec<u8>),
    /// Digits only.
    Int(&'a str),
    /// Digits with a '.' (DECIMAL literal).
    Decimal(&'a str),
    /// A number with an exponent (DOUBLE literal).
    Float(&'a str),
    /// `@name` (name unquoted).
    UserVar(Cow<'a, str>),
    /// `@@` (the parser reads the optional scope and the name that follow).
    AtAt,
    /// `?`
    Placeholder,
    /// Punctuation and operators: ( ) , ; . = <=> < > <= >= != <> + - * / % & | ^ ~ ! << >> := && || ->> ->
    Op(&'static str),
    Eof,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Token<'a> {
    pub tok: Tok<'a>,
    /// Byte offset of the token's first character in the statement.
    pub start: usize,
    /// Byte offset just past the token.
    pub end: usize,
}

const OPS: &[&str] = &[
    "<=>", "->>", "<=", ">=", "!=", "<>", "<<", ">>", ":=", "&&", "||", "->", "(", ")", ",", ";",
    ".", "=", "<", ">", "+", "-", "*", "/", "%", "&", "|", "^", "~", "!", "{", "}", ":",
];

/// Tokenizes a whole statement (or several, separated by `;`).
/// First code point of the range that stands for raw bytes of a statement that is not
/// valid UTF-8 (binary data inside string literals, as mysqldump writes BLOBs): byte
/// b is carried as U+10FF00 + b, and string literals turn it back into b.
const RAW_BYTE_BASE: u32 = 0x10_FF00;

/// A statement's text from the bytes a client sent: borrowed if valid UTF-8; else
/// each byte that is not part of a valid UTF-8 sequence becomes U+10FF00 + byte, which
/// string literals decode back, so binary literals arrive intact.
pub fn sql_text(b: &[u8]) -> std::borrow::Cow<'_, str> {
    if let Ok(s) = std::str::from_utf8(b) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(b.len() + 16);
    let mut rest = b;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.push_str(s);
                break;
            }
            Err(e) => {
                let good = e.valid_up_to();
                out.push_str(std::str::from_utf8(&rest[..good]).expect("valid prefix"));
                let bad = e.error_len().unwrap_or(rest.len() - good);
                for &x in &rest[good..good + bad] {
                    out.push(char::from_u32(RAW_BYTE_BASE + x as u32).expect("valid scalar"));
                }
                rest = &rest[good + bad..];
            }
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Turns the stand-ins `sql_text` made back into raw bytes.
fn raw_bytes(v: &[u8]) -> Option<Vec<u8>> {
    if memchr::memchr(0xF4, v).is_none() || !v.windows(2).any(|w| w == [0xF4, 0x8F]) {
        return None;
    }
    let mut out = Vec::with_capacity(v.len());
    let mut i = 0;
    while i < v.len() {
        if v[i] == 0xF4
            && v.get(i + 1) == Some(&0x8F)
            && i + 3 < v.len()
            && (0xBC..=0xBF).contains(&v[i + 2])
        {
            let cp = 0x10_0000
                | ((0x0F_u32) << 12)
                | (((v[i + 2] & 0x3F) as u32) << 6)
                | (v[i + 3] & 0x3F) as u32;
            out.push((cp - RAW_BYTE_BASE) as u8);
            i += 4;
            continue;
        }
        out.push(v[i]);
        i += 1;
    }
    Some(out)
}

/// Tokens reserved up front for a statement of `len` bytes: about one per four bytes,
/// which few statements exceed (a multi-row INSERT of sysbench's rows has one per 25).
/// Growing the vector instead copied it at every doubling and faulted in fresh pages for
/// each copy: a tenth of the server's CPU while sysbench loads its tables. Capacity that
/// is never written costs no memory (the pages are never touched).
fn token_capacity(len: usize) -> usize {
    (len / 4 + 8).min(TOKENS_MAX)
}

/// The sql_mode flags that change how text is read: the lexer's (NO_BACKSLASH_ESCAPES,
/// ANSI_QUOTES) and the parser's (PIPES_AS_CONCAT, REAL_AS_FLOAT). Taken from the
/// session's sql_mode per statement, and from the sql_mode a view or trigger was
/// created under when its stored text is parsed again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct LexMode {
    /// Backslash is an ordinary character in string literals.
    pub no_backslash_escapes: bool,
    /// `"x"` is a quoted identifier (as `` `x` ``), not a string.
    pub ansi_quotes: bool,
    /// `||` is string concatenation (CONCAT), not logical OR.
    pub pipes_as_concat: bool,
    /// REAL is a synonym for FLOAT, not DOUBLE.
    pub real_as_float: bool,
    /// NOT binds as tightly as `!` (`NOT a BETWEEN b AND c` is `(NOT a) BETWEEN …`).
    pub high_not_precedence: bool,
}

impl LexMode {
    /// The flags of a sql_mode value (comma-separated names, any case; the combination
    /// modes such as ANSI are expanded when sql_mode is set, so they are not looked at).
    pub fn from_sql_mode(sql_mode: &str) -> LexMode {
        let mut m = LexMode::default();
        for name in sql_mode.split(',') {
            let name = name.trim();
            if name.eq_ignore_ascii_case("NO_BACKSLASH_ESCAPES") {
                m.no_backslash_escapes = true;
            } else if name.eq_ignore_ascii_case("ANSI_QUOTES") {
                m.ansi_quotes = true;
            } else if name.eq_ignore_ascii_case("PIPES_AS_CONCAT") {
                m.pipes_as_concat = true;
            } else if name.eq_ignore_ascii_case("REAL_AS_FLOAT") {
                m.real_as_float = true;
            } else if name.eq_ignore_ascii_case("HIGH_NOT_PRECEDENCE") {
                m.high_not_precedence = true;
            }
        }
        m
    }

    /// One byte for storage (view records): bit 0 NO_BACKSLASH_ESCAPES, 1 ANSI_QUOTES,
    /// 2 PIPES_AS_CONCAT, 3 REAL_AS_FLOAT, 4 HIGH_NOT_PRECEDENCE.
    pub fn bits(self) -> u8 {
        self.no_backslash_escapes as u8
            | (self.ansi_quotes as u8) << 1
            | (self.pipes_as_concat as u8) << 2
            | (self.real_as_float as u8) << 3
            | (self.high_not_precedence as u8) << 4
    }

    pub fn from_bits(b: u8) -> LexMode {
        LexMode {
            no_backslash_escapes: b & 1 != 0,
            ansi_quotes: b & 2 != 0,
            pipes_as_concat: b & 4 != 0,
            real_as_float: b & 8 != 0,
            high_not_precedence: b & 16 != 0,
        }
    }
}

pub fn tokenize(sql: &str, mode: LexMode) -> Result<Vec<Token<'_>>> {
    let mut lx = Lexer {
        s: sql,
        b: sql.as_bytes(),
        pos: 0,
        no_backslash_escapes: mode.no_backslash_escapes,
        ansi_quotes: mode.ansi_quotes,
        out: Vec::with_capacity(token_capacity(sql.len())),
        exec_comment_depth: 0,
    };
    lx.run()?;
    Ok(lx.out)
}

/// `sql` rewritten so that it reads the same with NO_BACKSLASH_ESCAPES and
/// ANSI_QUOTES off: `"x"` identifiers become `` `x` `` and, under NO_BACKSLASH_ESCAPES,
/// backslashes in string literals are doubled. Comments, spacing and every other
/// token are kept byte for byte. PIPES_AS_CONCAT and REAL_AS_FLOAT cannot be written
/// away at this level; they stay in the mode the caller keeps beside the text. None:
/// the text does not lex.
pub fn canonical_text(sql: &str, mode: LexMode) -> Option<String> {
    if !mode.ansi_quotes && !mode.no_backslash_escapes {
        return Some(sql.to_string());
    }
    let toks = tokenize(sql, mode).ok()?;
    let mut out = String::with_capacity(sql.len() + 16);
    let mut copied = 0;
    for t in &toks {
        let src = &sql[t.start..t.end];
        let rewritten = match &t.tok {
            Tok::QuotedIdent(name) if src.starts_with('"') => {
                Some(format!("`{}`", name.replace('`', "``")))
            }
            Tok::Str(_) if mode.no_backslash_escapes && src.contains('\\') => {
                // The token is [introducer or N] quote body quote (adjacent literals
                // are separate tokens): only the body's backslashes change meaning.
                let open = src.find(['\'', '"'])?;
                Some(format!(
                    "{}{}",
                    &src[..open],
                    src[open..].replace('\\', "\\\\")
                ))
            }
            _ => None,
        };
        if let Some(r) = rewritten {
            out.push_str(&sql[copied..t.start]);
            out.push_str(&r);
            copied = t.end;
        }
    }
    out.push_str(&sql[copied..]);
    Some(out)
}

struct Lexer<'a> {
    s: &'a str,
    b: &'a [u8],
    pos: usize,
    no_backslash_escapes: bool,
    ansi_quotes: bool,
    out: Vec<Token<'a>>,
    exec_comment_depth: u32,
}

fn syntax_error(sql: &str, at: usize) -> KilnError {
    crate::parse::syntax_error_at(sql, at)
}

impl<'a> Lexer<'a> {
    fn peek(&self, off: usize) -> u8 {
        *self.b.get(self.pos + off).unwrap_or(&0)
    }

    fn push(&mut self, tok: Tok<'a>, start: usize) -> Result<()> {
        if self.out.len() >= TOKENS_MAX {
            return Err(KilnError::new(ErrorKind::ER_TOO_LONG_STRING, &[]));
        }
        self.out.push(Token {
            tok,
            start,
            end: self.pos,
        });
        Ok(())
    }

    fn run(&mut self) -> Result<()> {
        loop {
            self.skip_space_and_comments()?;
            let start = self.pos;
            if self.pos >= self.b.len() {
                self.out.push(Token {
                    tok: Tok::Eof,
                    start,
                    end: start,
                });
                return Ok(());
            }
            let c = self.b[self.pos];
            match c {
                b'`' => self.quoted_ident(b'`', start)?,
                b'"' if self.ansi_quotes => self.quoted_ident(b'"', start)?,
                b'\'' | b'"' => {
                    let s = self.quoted(c, !self.no_backslash_escapes)?;
                    self.push(Tok::Str(s), start)?;
                }
                b'0'..=b'9' => self.number(start)?,
                b'.' if self.peek(1).is_ascii_digit() && !self.prev_is_ident() => {
                    self.number(start)?
                }
                b'?' => {
                    self.pos += 1;
                    self.push(Tok::Placeholder, start)?;
                }
                b'@' => {
                    if self.peek(1) == b'@' {
                        self.pos += 2;
                        self.push(Tok::AtAt, start)?;
                    } else {
                        self.pos += 1;
                        let name: Cow<'a, str> = match self.peek(0) {
                            q @ (b'`' | b'\'' | b'"') => {
                                let v = self.quoted(q, q != b'`')?;
                                Cow::Owned(String::from_utf8_lossy(&v).into_owned())
                            }
                            _ => {
                                let s = self.pos;
                                while is_ident_byte(self.peek(0))
                                    || self.peek(0) == b'.'
                                    || self.peek(0) == b'$'
                                {
                                    self.pos += 1;
                                }
                                Cow::Borrowed(&self.s[s..self.pos])
                            }
                        };
                        self.push(Tok::UserVar(name), start)?;
                    }
                }
                b'*' if self.exec_comment_depth > 0 && self.peek(1) == b'/' => {
                    self.pos += 2;
                    self.exec_comment_depth -= 1;
                }
                _ if (c == b'x' || c == b'X') && self.peek(1) == b'\'' => {
                    self.pos += 1;
                    let body = self.quoted(b'\'', false)?;
                    let v = decode_hex(&body).ok_or_else(|| syntax_error(self.s, start))?;
                    self.push(Tok::Hex(v), start)?;
                }
                _ if (c == b'b' || c == b'B') && self.peek(1) == b'\'' => {
                    self.pos += 1;
                    let body = self.quoted(b'\'', false)?;
                    let v = decode_bits(&body).ok_or_else(|| syntax_error(self.s, start))?;
                    self.push(Tok::Bits(v), start)?;
                }
                _ if (c == b'n' || c == b'N') && self.peek(1) == b'\'' => {
                    // National string literal: same as a plain string for utf8mb4.
                    self.pos += 1;
                    let s = self.quoted(b'\'', !self.no_backslash_escapes)?;
                    self.push(Tok::Str(s), start)?;
                }
                _ if is_ident_start(c) => {
                    while is_ident_byte(self.peek(0)) {
                        self.pos += 1;
                    }
                    let w = &self.s[start..self.pos];
                    // A charset introducer (_utf8mb4'..', _binary'..') applies to the next string.
                    if w.starts_with('_') && matches!(self.peek(0), b'\'' | b'"') {
                        continue;
                    }
                    self.push(Tok::Word(w), start)?;
                }
                // Punctuation no longer operator starts with: no scan of OPS (a
                // multi-row INSERT is mostly these).
                b'(' | b')' | b',' | b';' => {
                    self.pos += 1;
                    let op = match c {
                        b'(' => "(",
                        b')' => ")",
                        b',' => ",",
                        _ => ";",
                    };
                    self.push(Tok::Op(op), start)?;
                }
                _ => {
                    let rest = &self.s[self.pos..];
                    let op = OPS
                        .iter()
                        .find(|op| rest.starts_with(**op))
                        .ok_or_else(|| syntax_error(self.s, start))?;
                    self.pos += op.len();
                    self.push(Tok::Op(op), start)?;
                }
            }
        }
    }

    fn prev_is_ident(&self) -> bool {
        matches!(self.out.last(), Some(Token { tok: Tok::Word(_) | Tok::QuotedIdent(_), end, .. }) if *end == self.pos)
    }

    fn as_str(&self, b: &'a [u8]) -> &'a str {
        // The slice came from `self.s` between ASCII delimiters, so it is valid UTF-8.
        let start = b.as_ptr() as usize - self.b.as_ptr() as usize;
        &self.s[start..start + b.len()]
    }

    fn skip_space_and_comments(&mut self) -> Result<()> {
        loop {
            let c = self.peek(0);
            if c.is_ascii_whitespace() && self.pos < self.b.len() {
                self.pos += 1;
            } else if c == b'#'
                || (c == b'-'
                    && self.peek(1) == b'-'
                    && (self.peek(2).is_ascii_whitespace() || self.pos + 2 >= self.b.len()))
            {
                while self.pos < self.b.len() && self.b[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else if c == b'/' && self.peek(1) == b'*' {
                if self.peek(2) == b'!' || (self.peek(2) == b'+' && self.peek(3) != 0) {
                    // Executable comment: /*! body */ or /*!80000 body */ (optimizer hints /*+ */ are skipped).
                    if self.peek(2) == b'+' {
                        self.skip_block_comment()?;
                        continue;
                    }
                    self.pos += 3;
                    let vs = self.pos;
                    while self.peek(0).is_ascii_digit() && self.pos - vs < 6 {
                        self.pos += 1;
                    }
                    let version: u32 = self.s[vs..self.pos].parse().unwrap_or(0);
                    if version > EXEC_COMMENT_VERSION {
                        self.pos = vs;
                        self.skip_block_comment_from_body()?;
                    } else {
                        self.exec_comment_depth += 1;
                    }
                } else {
                    self.skip_block_comment()?;
                }
            } else {
                return Ok(());
            }
        }
    }

    fn skip_block_comment(&mut self) -> Result<()> {
        self.pos += 2;
        self.skip_block_comment_from_body()
    }

    fn skip_block_comment_from_body(&mut self) -> Result<()> {
        let start = self.pos;
        match self.s[self.pos..].find("*/") {
            Some(i) => {
                self.pos += i + 2;
                Ok(())
            }
            None => Err(syntax_error(self.s, start.saturating_sub(2))),
        }
    }

    /// A quoted identifier: `` `x` ``, or `"x"` under ANSI_QUOTES. Doubled quotes stand
    /// for one; backslash is an ordinary character.
    fn quoted_ident(&mut self, q: u8, start: usize) -> Result<()> {
        let ident = match self.quoted(q, false)? {
            Cow::Borrowed(b) => Cow::Borrowed(self.as_str(b)),
            Cow::Owned(v) => Cow::Owned(String::from_utf8_lossy(&v).into_owned()),
        };
        self.push(Tok::QuotedIdent(ident), start)
    }

    /// A quoted run starting at the opening quote. Doubled quotes stand for one; with
    /// `escapes`, backslash sequences are MySQL's (\0 \' \" \b \n \r \t \Z \\ \% \_).
    fn quoted(&mut self, q: u8, escapes: bool) -> Result<Cow<'a, [u8]>> {
        let open = self.pos;
        self.pos += 1;
        let body_start = self.pos;
        let mut owned: Option<Vec<u8>> = None;
        loop {
            if self.pos >= self.b.len() {
                return Err(syntax_error(self.s, open));
            }
            let c = self.b[self.pos];
            if c == q {
                if self.peek(1) == q {
                    let v = owned.get_or_insert_with(|| self.b[body_start..self.pos].to_vec());
                    v.push(q);
                    self.pos += 2;
                    continue;
                }
                let end = self.pos;
                self.pos += 1;
                let body = match owned {
                    Some(v) => Cow::Owned(v),
                    None => Cow::Borrowed(&self.b[body_start..end]),
                };
                return Ok(match raw_bytes(&body) {
                    Some(raw) => Cow::Owned(raw),
                    None => body,
                });
            }
            if c == b'\\' && escapes && self.pos + 1 < self.b.len() {
                let v = owned.get_or_insert_with(|| self.b[body_start..self.pos].to_vec());
                let e = self.b[self.pos + 1];
                match e {
                    b'0' => v.push(0),
                    b'b' => v.push(8),
                    b'n' => v.push(b'\n'),
                    b'r' => v.push(b'\r'),
                    b't' => v.push(b'\t'),
                    b'Z' => v.push(26),
                    b'%' | b'_' => {
                        v.push(b'\\');
                        v.push(e);
                    }
                    _ => v.push(e),
                }
                self.pos += 2;
                continue;
            }
            // Plain bytes: jump to the next quote (or backslash) in one search; a
            // sysbench INSERT is mostly 120-byte string literals.
            let rest = &self.b[self.pos..];
            let run = if escapes {
                memchr::memchr2(q, b'\\', rest)
            } else {
                memchr::memchr(q, rest)
            }
            .unwrap_or(rest.len())
            .max(1);
            if let Some(v) = owned.as_mut() {
                v.extend_from_slice(&rest[..run]);
            }
            self.pos += run;
        }
    }

    fn number(&mut self, start: usize) -> Result<()> {
        if self.peek(0) == b'0'
            && matches!(self.peek(1), b'x' | b'X')
            && self.peek(2).is_ascii_hexdigit()
        {
            self.pos += 2;
            let s = self.pos;
            while self.peek(0).is_ascii_hexdigit() {
                self.pos += 1;
            }
            if is_ident_byte(self.peek(0)) {
                return self.word_from(start);
            }
            let v = decode_hex(&self.b[s..self.pos]).ok_or_else(|| syntax_error(self.s, start))?;
            return self.push(Tok::Hex(v), start);
        }
        if self.peek(0) == b'0'
            && matches!(self.peek(1), b'b')
            && matches!(self.peek(2), b'0' | b'1')
        {
            self.pos += 2;
            let s = self.pos;
            while matches!(self.peek(0), b'0' | b'1') {
                self.pos += 1;
            }
            if is_ident_byte(self.peek(0)) {
                return self.word_from(start);
            }
            let v = decode_bits(&self.b[s..self.pos]).ok_or_else(|| syntax_error(self.s, start))?;
            return self.push(Tok::Bits(v), start);
        }
        while self.peek(0).is_ascii_digit() {
            self.pos += 1;
        }
        let mut kind = 0; // 0 int, 1 decimal, 2 float
        if self.peek(0) == b'.' {
            kind = 1;
            self.pos += 1;
            while self.peek(0).is_ascii_digit() {
                self.pos += 1;
            }
        }
        if matches!(self.peek(0), b'e' | b'E')
            && (self.peek(1).is_ascii_digit()
                || (matches!(self.peek(1), b'+' | b'-') && self.peek(2).is_ascii_digit()))
        {
            kind = 2;
            self.pos += 2;
            while self.peek(0).is_ascii_digit() {
                self.pos += 1;
            }
        }
        if kind == 0 && is_ident_start(self.peek(0)) {
            // MySQL allows identifiers that start with digits (e.g. 1abc).
            return self.word_from(start);
        }
        let text = &self.s[start..self.pos];
        let tok = match kind {
            0 => Tok::Int(text),
            1 => Tok::Decimal(text),
            _ => Tok::Float(text),
        };
        self.push(tok, start)
    }

    fn word_from(&mut self, start: usize) -> Result<()> {
        while is_ident_byte(self.peek(0)) {
            self.pos += 1;
        }
        let w = &self.s[start..self.pos];
        self.push(Tok::Word(w), start)
    }
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c >= 0x80
}

fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

fn decode_hex(b: &[u8]) -> Option<Vec<u8>> {
    let digits: Vec<u8> = if b.len() % 2 == 1 {
        std::iter::once(b'0').chain(b.iter().copied()).collect()
    } else {
        b.to_vec()
    };
    digits
        .chunks(2)
        .map(|p| {
            let h = (p[0] as char).to_digit(16)?;
            let l = (p[1] as char).to_digit(16)?;
            Some((h * 16 + l) as u8)
        })
        .collect()
}

fn decode_bits(b: &[u8]) -> Option<Vec<u8>> {
    if b.iter().any(|c| !matches!(c, b'0' | b'1')) {
        return None;
    }
    let mut out = vec![0u8; b.len().div_ceil(8)];
    let total = out.len() * 8;
    for (i, c) in b.iter().enumerate() {
        if *c == b'1' {
            let bit = total - b.len() + i;
            out[bit / 8] |= 0x80 >> (bit % 8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok<'_>> {
        tokenize(s, LexMode::default())
            .unwrap()
            .into_iter()
            .map(|t| t.tok)
            .collect()
    }

    #[test]
    fn ansi_quotes_make_double_quotes_identifiers() {
        let ansi = LexMode::from_sql_mode("REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES");
        assert!(ansi.ansi_quotes && ansi.pipes_as_concat && ansi.real_as_float);
        assert!(!ansi.no_backslash_escapes);
        assert_eq!(LexMode::from_bits(ansi.bits()), ansi);
        let t: Vec<Tok<'_>> = tokenize(r#"SELECT "a""b\c", 'x'"#, ansi)
            .unwrap()
            .into_iter()
            .map(|t| t.tok)
            .collect();
        assert_eq!(t[1], Tok::QuotedIdent(Cow::Owned(r#"a"b\c"#.into())));
        assert_eq!(t[3], Tok::Str(Cow::Borrowed(b"x")));
        assert_eq!(
            toks(r#"SELECT "a""b""#)[1],
            Tok::Str(Cow::Owned(br#"a"b"#.to_vec()))
        );
    }

    #[test]
    fn canonical_text_reads_the_same_in_the_default_mode() {
        let m = LexMode {
            ansi_quotes: true,
            no_backslash_escapes: true,
            ..Default::default()
        };
        let sql = r#"SELECT "c`d" /* "k" */, 'a\b', N'\', _latin1'x' FROM "t" WHERE `u` = "v""w""#;
        let c = canonical_text(sql, m).unwrap();
        assert_eq!(
            c,
            r#"SELECT `c``d` /* "k" */, 'a\\b', N'\\', _latin1'x' FROM `t` WHERE `u` = `v"w`"#
        );
        let strip = |s: &str, m| -> Vec<Tok<'static>> {
            tokenize(s, m)
                .unwrap()
                .into_iter()
                .map(|t| match t.tok {
                    Tok::QuotedIdent(i) => Tok::QuotedIdent(Cow::Owned(i.into_owned())),
                    Tok::Str(v) => Tok::Str(Cow::Owned(v.into_owned())),
                    Tok::Word(w) => Tok::QuotedIdent(Cow::Owned(format!("word:{w}"))),
                    Tok::Op(o) => Tok::Op(o),
                    Tok::Eof => Tok::Eof,
                    other => panic!("{other:?}"),
                })
                .collect()
        };
        assert_eq!(strip(sql, m), strip(&c, LexMode::default()));
        assert_eq!(
            canonical_text("SELECT 'a\\b'", LexMode::default()).unwrap(),
            "SELECT 'a\\b'"
        );
    }

    #[test]
    fn basic_tokens() {
        assert_eq!(
            toks("SELECT @@session.x, @v, 'a''b\\n', `c``d`, 1.5, 2e3, 0x41, ?"),
            vec![
                Tok::Word("SELECT"),
                Tok::AtAt,
                Tok::Word("session"),
                Tok::Op("."),
                Tok::Word("x"),
                Tok::Op(","),
                Tok::UserVar(Cow::Borrowed("v")),
                Tok::Op(","),
                Tok::Str(Cow::Owned(b"a'b\n".to_vec())),
                Tok::Op(","),
                Tok::QuotedIdent(Cow::Owned("c`d".into())),
                Tok::Op(","),
                Tok::Decimal("1.5"),
                Tok::Op(","),
                Tok::Float("2e3"),
                Tok::Op(","),
                Tok::Hex(vec![0x41]),
                Tok::Op(","),
                Tok::Placeholder,
                Tok::Eof,
            ]
        );
    }

    #[test]
    fn quoted_runs_between_escapes_are_kept_whole() {
        // long plain runs before, between and after quotes and escapes
        let run = "x".repeat(70);
        let sql = format!("'{run}\\t{run}''{run}\\'' \"{run}\\\"\" `{run}\\`");
        let want = format!("{run}\t{run}'{run}'");
        assert_eq!(
            toks(&sql),
            vec![
                Tok::Str(Cow::Owned(want.into_bytes())),
                Tok::Str(Cow::Owned(format!("{run}\"").into_bytes())),
                Tok::QuotedIdent(Cow::Owned(format!("{run}\\"))),
                Tok::Eof,
            ]
        );
        // without escapes a backslash is data, and a trailing one is data too
        let t = tokenize(
            "'a\\b' 'c\\'",
            LexMode {
                no_backslash_escapes: true,
                ..LexMode::default()
            },
        )
        .unwrap();
        assert_eq!(t[0].tok, Tok::Str(Cow::Borrowed(b"a\\b".as_slice())));
        assert_eq!(t[1].tok, Tok::Str(Cow::Borrowed(b"c\\".as_slice())));
        // an unterminated literal is a syntax error, plain run or not
        assert!(tokenize(&format!("SELECT '{run}"), LexMode::default()).is_err());
        assert!(tokenize("SELECT 'ab\\", LexMode::default()).is_err());
    }

    #[test]
    fn binary_bytes_in_literals_survive() {
        let sql = sql_text(b"SELECT '\x00\xff\x10\xaa', 'caf\xc3\xa9'");
        let t = tokenize(&sql, LexMode::default()).unwrap();
        assert_eq!(t[1].tok, Tok::Str(Cow::Owned(vec![0, 0xff, 0x10, 0xaa])));
        assert_eq!(t[3].tok, Tok::Str(Cow::Borrowed("café".as_bytes())));
    }

    #[test]
    fn comments_and_executable_comments() {
        assert_eq!(
            toks("SELECT 1 -- c\n # d\n /* e */ /*! ENGINE = innodb */ /*!99999 junk */"),
            vec![
                Tok::Word("SELECT"),
                Tok::Int("1"),
                Tok::Word("ENGINE"),
                Tok::Op("="),
                Tok::Word("innodb"),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn unterminated_string_is_a_1064() {
        let e = tokenize("SELECT 'abc", LexMode::default()).unwrap_err();
        assert_eq!(e.code, 1064);
    }

    #[test]
    fn bits_and_introducers() {
        assert_eq!(
            toks("b'101' _utf8mb4'x'"),
            vec![Tok::Bits(vec![5]), Tok::Str(Cow::Borrowed(b"x")), Tok::Eof]
        );
    }
}
