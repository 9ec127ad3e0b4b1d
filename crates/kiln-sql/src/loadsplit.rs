//! LOAD DATA's field and line splitter: bytes in, records (lists of fields) out,
//! streaming — the caller pushes the file chunk by chunk and takes each record as
//! soon as it is complete, so memory holds one partial record, never the file.
//!
//! The rules are MySQL 8.0's READ_INFO (sql_load.cc), byte for byte:
//! - a record starts after LINES STARTING BY's prefix (everything before the prefix
//!   is skipped, across line ends: a line without it is skipped whole);
//! - a field ends at FIELDS TERMINATED BY, the record at LINES TERMINATED BY; when both
//!   are the same string only the field terminator counts;
//! - a field whose first byte is the ENCLOSED BY character runs to the next enclosure
//!   character followed by a field terminator, a line terminator or the end of the
//!   file; a doubled enclosure character inside is one; a lone one is data; line
//!   terminators inside are data. A quoted field the file ends inside keeps its
//!   opening quote;
//! - ESCAPED BY c: `c0 cb cn cr ct cZ` are NUL, backspace, newline, CR, tab, ^Z;
//!   `cN` alone is NULL; c before any other byte is that byte; c at the end of the
//!   file is itself. When the escape and enclosure characters are the same, only a
//!   doubled one is an escape;
//! - an unenclosed field that is exactly `NULL` is NULL when ENCLOSED BY is set;
//! - after the fields the statement wants, the rest of the line is skipped (honouring
//!   escapes, not enclosures); a non-empty rest makes the record `cut` (warning 1262),
//!   unless the file ended in it;
//! - IGNORE n LINES skips lines by the same rule.
//!
//! Multi-byte characters are not looked at: terminators are matched on bytes, which
//! is exact for UTF-8, latin1 and binary data (no byte of a UTF-8 multi-byte
//! character is an ASCII byte).
//!
//! Parsing restarts from the record's first byte when a record is incomplete; to keep
//! that linear, an incomplete record is re-parsed only once the pending bytes have
//! doubled (or the file ended). Pending bytes are bounded by `max_record_bytes`.

/// FIELDS and LINES options, as bytes (each terminator may be several bytes; the
/// enclosure and escape are at most one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Format {
    pub field_term: Vec<u8>,
    pub enclosed: Option<u8>,
    pub escaped: Option<u8>,
    pub line_term: Vec<u8>,
    pub line_start: Vec<u8>,
}

impl Default for Format {
    /// MySQL's defaults: FIELDS TERMINATED BY '\t' ENCLOSED BY '' ESCAPED BY '\\'
    /// LINES TERMINATED BY '\n' STARTING BY ''.
    fn default() -> Format {
        Format {
            field_term: b"\t".to_vec(),
            enclosed: None,
            escaped: Some(b'\\'),
            line_term: b"\n".to_vec(),
            line_start: Vec::new(),
        }
    }
}

/// One field of a record: its bytes (escapes resolved) or NULL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Field {
    Null,
    Bytes(Vec<u8>),
}

/// One input line's fields: at most the number asked for; fewer when the line had
/// fewer. `cut`: the line had more.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub fields: Vec<Field>,
    pub cut: bool,
}

/// The pending bytes exceeded `max_record_bytes` with no record complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordTooLong;

/// More bytes are needed to finish the record being parsed.
struct Incomplete;

type Step<T> = Result<T, Incomplete>;

/// A read position over the pending bytes; `eof` says no more will come.
struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
    eof: bool,
}

impl Cursor<'_> {
    /// The next byte; None at the end of the file.
    fn get(&mut self) -> Step<Option<u8>> {
        match self.buf.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(Some(b))
            }
            None if self.eof => Ok(None),
            None => Err(Incomplete),
        }
    }

    /// Puts back the byte `get` returned last (only after it returned one).
    fn unget(&mut self) {
        debug_assert!(self.pos > 0);
        self.pos -= 1;
    }

    /// After `term[0]` was read: whether `term[1..]` follows; consumed if it does.
    fn rest_matches(&mut self, term: &[u8]) -> Step<bool> {
        let rest = &term[1..];
        let avail = &self.buf[self.pos..];
        if avail.len() >= rest.len() {
            if avail.starts_with(rest) {
                self.pos += rest.len();
                return Ok(true);
            }
            return Ok(false);
        }
        if rest.starts_with(avail) && !self.eof {
            return Err(Incomplete);
        }
        Ok(false)
    }
}

/// Per-record state (MySQL's READ_INFO flags).
#[derive(Default)]
struct LineState {
    start_of_line: bool,
    found_end_of_line: bool,
    eof: bool,
    line_cut: bool,
}

/// The streaming splitter.
#[derive(Debug)]
pub struct Splitter {
    format: Format,
    /// Fields a record is read for (the statement's column/variable list).
    fields_wanted: usize,
    /// Lines still to skip (IGNORE n LINES).
    skip_lines: u64,
    pending: Vec<u8>,
    /// Start of the unparsed bytes in `pending`.
    start: usize,
    /// Pending length at which an incomplete record is tried again.
    retry_at_bytes: usize,
    eof: bool,
    done: bool,
    max_record_bytes: usize,
}

impl Splitter {
    /// `fields_wanted` is at least 1 (0 reads one field). A line terminator equal to
    /// the field terminator is ignored, as in MySQL.
    pub fn new(
        mut format: Format,
        fields_wanted: usize,
        skip_lines: u64,
        max_record_bytes: usize,
    ) -> Splitter {
        if format.line_term == format.field_term {
            format.line_term.clear();
        }
        Splitter {
            format,
            fields_wanted: fields_wanted.max(1),
            skip_lines,
            pending: Vec::new(),
            start: 0,
            retry_at_bytes: 0,
            eof: false,
            done: false,
            max_record_bytes: max_record_bytes.max(1),
        }
    }

    /// Appends the file's next bytes.
    pub fn push(&mut self, data: &[u8]) {
        debug_assert!(!self.eof, "push after finish");
        if self.start > 0 && self.start * 2 >= self.pending.len() {
            self.pending.drain(..self.start);
            self.start = 0;
        }
        self.pending.extend_from_slice(data);
    }

    /// The file has ended.
    pub fn finish(&mut self) {
        self.eof = true;
    }

    /// Bytes held and not yet parsed.
    pub fn pending_bytes(&self) -> usize {
        self.pending.len() - self.start
    }

    /// The next complete record; None when more bytes are needed (or, after
    /// `finish`, at the end).
    pub fn next_record(&mut self) -> Result<Option<Record>, RecordTooLong> {
        loop {
            if self.done {
                return Ok(None);
            }
            let pending = self.pending_bytes();
            if !self.eof && pending < self.retry_at_bytes {
                return self.check_size();
            }
            let mut c = Cursor {
                buf: &self.pending[self.start..],
                pos: 0,
                eof: self.eof,
            };
            let step = if self.skip_lines > 0 && !self.format.line_term.is_empty() {
                self.skip_line(&mut c).map(|end| (None, end))
            } else {
                self.record(&mut c)
            };
            match step {
                Err(Incomplete) => {
                    self.retry_at_bytes = (pending * 2).max(pending + 1);
                    return self.check_size();
                }
                Ok((rec, end)) => {
                    self.start += c.pos;
                    self.retry_at_bytes = 0;
                    match rec {
                        None if self.skip_lines > 0 && !self.format.line_term.is_empty() => {
                            self.skip_lines -= 1;
                            if end {
                                self.done = true;
                            }
                        }
                        None => {
                            self.done = true;
                            return Ok(None);
                        }
                        Some(r) => {
                            if end {
                                self.done = true;
                            }
                            if self.skip_lines > 0 {
                                // No line terminator: IGNORE n counts records.
                                self.skip_lines -= 1;
                                continue;
                            }
                            return Ok(Some(r));
                        }
                    }
                }
            }
        }
    }

    fn check_size(&self) -> Result<Option<Record>, RecordTooLong> {
        if self.pending_bytes() > self.max_record_bytes {
            return Err(RecordTooLong);
        }
        Ok(None)
    }

    /// One record: (None at the end of the file, whether the file ended in it).
    fn record(&self, c: &mut Cursor<'_>) -> Step<(Option<Record>, bool)> {
        let mut st = LineState {
            start_of_line: !self.format.line_start.is_empty(),
            ..LineState::default()
        };
        let mut fields = Vec::with_capacity(self.fields_wanted);
        while fields.len() < self.fields_wanted {
            match self.read_field(c, &mut st)? {
                Some(f) => fields.push(f),
                None => break,
            }
        }
        if fields.is_empty() {
            // Only the end of the file stops the first field.
            return Ok((None, true));
        }
        let end = self.next_line(c, &mut st)?;
        Ok((
            Some(Record {
                fields,
                cut: !end && st.line_cut,
            }),
            end,
        ))
    }

    /// One IGNOREd line: whether the file ended in it.
    fn skip_line(&self, c: &mut Cursor<'_>) -> Step<bool> {
        let mut st = LineState::default();
        self.next_line(c, &mut st)
    }

    /// MySQL's `find_start_of_fields`: skips to just after the line prefix; false at
    /// the end of the file.
    fn find_line_start(&self, c: &mut Cursor<'_>) -> Step<bool> {
        let prefix = &self.format.line_start;
        loop {
            match c.get()? {
                None => return Ok(false),
                Some(b) if b == prefix[0] => {
                    let at = c.pos;
                    if c.rest_matches(prefix)? {
                        return Ok(true);
                    }
                    c.pos = at;
                }
                Some(_) => {}
            }
        }
    }

    /// MySQL's `read_field`: the next field, or None when the line (or file) ended.
    fn read_field(&self, c: &mut Cursor<'_>, st: &mut LineState) -> Step<Option<Field>> {
        let f = &self.format;
        if st.found_end_of_line {
            return Ok(None);
        }
        if st.start_of_line {
            st.start_of_line = false;
            if !self.find_line_start(c)? {
                st.found_end_of_line = true;
                st.eof = true;
                return Ok(None);
            }
        }
        let Some(first) = c.get()? else {
            st.found_end_of_line = true;
            st.eof = true;
            return Ok(None);
        };
        let quoted = Some(first) == f.enclosed;
        if !quoted {
            c.unget();
        }
        let mut out: Vec<u8> = Vec::new();
        let mut found_null = false;
        let field_term = f.field_term.first().copied();
        let line_term = f.line_term.first().copied();
        loop {
            let Some(mut chr) = c.get()? else {
                // The end of the file ends the field (an unclosed quote stays).
                st.found_end_of_line = true;
                st.eof = true;
                if quoted {
                    out.insert(0, first);
                }
                return Ok(Some(self.value(out, false, found_null)));
            };
            if Some(chr) == f.escaped {
                let Some(next) = c.get()? else {
                    out.push(chr);
                    st.found_end_of_line = true;
                    st.eof = true;
                    if quoted {
                        out.insert(0, first);
                    }
                    return Ok(Some(self.value(out, false, found_null)));
                };
                if f.escaped != f.enclosed || Some(next) == f.escaped {
                    out.push(unescape(next, &mut found_null));
                    continue;
                }
                // Escape = enclosure and not doubled: it is an enclosure character.
                c.unget();
            }
            if !quoted && Some(chr) == line_term && c.rest_matches(&f.line_term)? {
                st.found_end_of_line = true;
                return Ok(Some(self.value(out, false, found_null)));
            }
            if quoted && Some(chr) == f.enclosed {
                match c.get()? {
                    Some(n) if Some(n) == f.enclosed => {
                        out.push(n);
                        continue;
                    }
                    None => {
                        st.found_end_of_line = true;
                        return Ok(Some(self.value(out, true, found_null)));
                    }
                    Some(n) if Some(n) == line_term && c.rest_matches(&f.line_term)? => {
                        st.found_end_of_line = true;
                        return Ok(Some(self.value(out, true, found_null)));
                    }
                    Some(n) if Some(n) == field_term && c.rest_matches(&f.field_term)? => {
                        return Ok(Some(self.value(out, true, found_null)));
                    }
                    Some(_) => {
                        // A lone quote inside: data.
                        c.unget();
                        chr = f.enclosed.expect("quoted");
                    }
                }
            } else if !quoted && Some(chr) == field_term && c.rest_matches(&f.field_term)? {
                return Ok(Some(self.value(out, false, found_null)));
            }
            out.push(chr);
        }
    }

    /// A field's bytes as a value: `\N` alone, or unenclosed `NULL` when an enclosure
    /// is set, is NULL.
    fn value(&self, bytes: Vec<u8>, enclosed: bool, found_null: bool) -> Field {
        if (!enclosed && self.format.enclosed.is_some() && bytes == b"NULL")
            || (bytes.len() == 1 && found_null)
        {
            return Field::Null;
        }
        Field::Bytes(bytes)
    }

    /// MySQL's `next_line`: skips the rest of the line; true at the end of the file.
    fn next_line(&self, c: &mut Cursor<'_>, st: &mut LineState) -> Step<bool> {
        st.line_cut = false;
        if st.found_end_of_line || st.eof {
            st.found_end_of_line = false;
            return Ok(st.eof);
        }
        let f = &self.format;
        let Some(&line_term) = f.line_term.first() else {
            return Ok(false);
        };
        loop {
            let Some(chr) = c.get()? else {
                st.eof = true;
                return Ok(true);
            };
            if Some(chr) == f.escaped {
                st.line_cut = true;
                if c.get()?.is_none() {
                    return Ok(true);
                }
                continue;
            }
            if chr == line_term && c.rest_matches(&f.line_term)? {
                return Ok(false);
            }
            st.line_cut = true;
        }
    }
}

/// The byte an escape sequence stands for; `N` also marks a possible NULL.
fn unescape(b: u8, found_null: &mut bool) -> u8 {
    match b {
        b'n' => b'\n',
        b't' => b'\t',
        b'r' => b'\r',
        b'b' => 0x08,
        b'0' => 0,
        b'Z' => 0x1a,
        b'N' => {
            *found_null = true;
            b'N'
        }
        other => other,
    }
}

/// Splits a whole input at once (tests, fuzzing): the records, or the error.
pub fn split_all(
    format: &Format,
    fields_wanted: usize,
    skip_lines: u64,
    chunks: &[&[u8]],
    max_record_bytes: usize,
) -> Result<Vec<Record>, RecordTooLong> {
    let mut s = Splitter::new(format.clone(), fields_wanted, skip_lines, max_record_bytes);
    let mut out = Vec::new();
    for ch in chunks {
        s.push(ch);
        while let Some(r) = s.next_record()? {
            out.push(r);
        }
    }
    s.finish();
    while let Some(r) = s.next_record()? {
        out.push(r);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(s: &str) -> Field {
        Field::Bytes(s.as_bytes().to_vec())
    }

    fn rows(format: &Format, n: usize, skip: u64, input: &[u8]) -> Vec<(Vec<Field>, bool)> {
        split_all(format, n, skip, &[input], 1 << 20)
            .expect("fits")
            .into_iter()
            .map(|r| (r.fields, r.cut))
            .collect()
    }

    fn csv() -> Format {
        Format {
            field_term: b",".to_vec(),
            enclosed: Some(b'"'),
            escaped: Some(b'\\'),
            line_term: b"\r\n".to_vec(),
            line_start: Vec::new(),
        }
    }

    #[test]
    fn defaults_tabs_and_lines() {
        let f = Format::default();
        assert_eq!(
            rows(&f, 2, 0, b"1\tab\n2\n3\tc\tx\n"),
            vec![
                (vec![b("1"), b("ab")], false),
                (vec![b("2")], false),
                (vec![b("3"), b("c")], true),
            ]
        );
        // No final terminator; extra fields on the last line are no cut (MySQL).
        assert_eq!(
            rows(&f, 2, 0, b"1\t2\t3"),
            vec![(vec![b("1"), b("2")], false)]
        );
        // A trailing field terminator is no cut either.
        assert_eq!(
            rows(&f, 2, 0, b"1\t2\t\n"),
            vec![(vec![b("1"), b("2")], false)]
        );
        // An empty line is a record of one empty field.
        assert_eq!(rows(&f, 2, 0, b"\n"), vec![(vec![b("")], false)]);
        assert!(rows(&f, 2, 0, b"").is_empty());
    }

    #[test]
    fn escapes_and_null() {
        let f = Format::default();
        assert_eq!(
            rows(
                &f,
                2,
                0,
                b"a\\tb\\nc\\0d\\Ze\\\\f\\xg\t1\n\\N\t2\nh\\\tj\taN\\N\n"
            ),
            vec![
                (vec![b("a\tb\nc\0d\x1ae\\fxg"), b("1")], false),
                (vec![Field::Null, b("2")], false),
                (vec![b("h\tj"), b("aNN")], false),
            ]
        );
        // NULL as a word is data without an enclosure.
        assert_eq!(rows(&f, 1, 0, b"NULL\n"), vec![(vec![b("NULL")], false)]);
        // An escape at the end of the file is itself.
        assert_eq!(rows(&f, 1, 0, b"a\\"), vec![(vec![b("a\\")], false)]);
    }

    #[test]
    fn csv_with_quotes() {
        let f = csv();
        let input = b"id,name,score\r\n1,\"Smith, J\",3.5\r\n2,\"say \"\"hi\"\"\",\r\n3,NULL,\"NULL\"\r\n5,\"multi\r\nline\",1\r\n";
        assert_eq!(
            rows(&f, 3, 1, input),
            vec![
                (vec![b("1"), b("Smith, J"), b("3.5")], false),
                (vec![b("2"), b("say \"hi\""), b("")], false),
                (vec![b("3"), Field::Null, b("NULL")], false),
                (vec![b("5"), b("multi\r\nline"), b("1")], false),
            ]
        );
        // A lone quote inside is data; an unclosed quote keeps its opening quote.
        assert_eq!(
            rows(&f, 2, 0, b"\"a\"b\",c\r\n\"open"),
            vec![(vec![b("a\"b"), b("c")], false), (vec![b("\"open")], false)]
        );
    }

    #[test]
    fn escape_same_as_enclosure() {
        let mut f = csv();
        f.escaped = Some(b'"');
        assert_eq!(
            rows(&f, 2, 0, b"\"fie\"\"ld\",\"x\"\r\n"),
            vec![(vec![b("fie\"ld"), b("x")], false)]
        );
    }

    #[test]
    fn line_prefix_and_multibyte_terminators() {
        let f = Format {
            field_term: b"||".to_vec(),
            enclosed: None,
            escaped: None,
            line_term: b"<>".to_vec(),
            line_start: b"xxx".to_vec(),
        };
        assert_eq!(
            rows(&f, 2, 0, b"xxxa||b<>junk xxxc|d||e<>no prefix<>"),
            vec![
                (vec![b("a"), b("b")], false),
                (vec![b("c|d"), b("e")], false)
            ]
        );
    }

    #[test]
    fn chunking_never_changes_records() {
        let f = csv();
        let input: &[u8] = b"h1,h2\r\n1,\"a,\r\nb\"\r\n2,\"x\"\"y\"\r\n3,\\N,z\r\n";
        let whole = split_all(&f, 2, 1, &[input], 1 << 20).expect("fits");
        for size in 1..input.len() {
            let chunks: Vec<&[u8]> = input.chunks(size).collect();
            assert_eq!(split_all(&f, 2, 1, &chunks, 1 << 20).expect("fits"), whole);
        }
    }

    #[test]
    fn record_length_is_bounded() {
        let f = Format::default();
        let long = vec![b'a'; 10_000];
        let chunks: Vec<&[u8]> = long.chunks(100).collect();
        assert_eq!(split_all(&f, 1, 0, &chunks, 1000), Err(RecordTooLong));
        // Many short records in the same bytes pass.
        let many = b"ab\n".repeat(5000);
        let chunks: Vec<&[u8]> = many.chunks(100).collect();
        assert_eq!(
            split_all(&f, 1, 0, &chunks, 1000).expect("fits").len(),
            5000
        );
    }

    mod prop {
        use super::super::*;
        use proptest::prelude::*;

        fn format() -> impl Strategy<Value = Format> {
            let term = prop::collection::vec(prop::sample::select(b",;\t\n|ab".to_vec()), 0..3);
            (
                term.clone(),
                prop::option::of(prop::sample::select(b"\"'a".to_vec())),
                prop::option::of(prop::sample::select(b"\\\"a".to_vec())),
                term.clone(),
                term,
            )
                .prop_map(|(field_term, enclosed, escaped, line_term, line_start)| {
                    Format {
                        field_term,
                        enclosed,
                        escaped,
                        line_term,
                        line_start,
                    }
                })
        }

        proptest! {
            /// Any input, any format, any chunking: the same records as in one piece,
            /// and never a panic.
            #[test]
            fn chunking_is_invisible(
                f in format(),
                input in prop::collection::vec(prop::sample::select(b",;\t\n\r|ab\"'\\NUL".to_vec()), 0..200),
                cuts in prop::collection::vec(0usize..200, 0..8),
                n in 1usize..4,
                skip in 0u64..3,
            ) {
                let whole = split_all(&f, n, skip, &[&input], 1 << 20).expect("fits");
                let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(input.len())).collect();
                cuts.sort_unstable();
                let mut chunks = Vec::new();
                let mut at = 0;
                for c in cuts {
                    chunks.push(&input[at..c]);
                    at = c;
                }
                chunks.push(&input[at..]);
                prop_assert_eq!(split_all(&f, n, skip, &chunks, 1 << 20).expect("fits"), whole.clone());
                for r in &whole {
                    prop_assert!(!r.fields.is_empty() && r.fields.len() <= n);
                }
            }
        }
    }
}
