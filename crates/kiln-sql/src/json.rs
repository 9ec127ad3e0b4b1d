//! JSON text validation for the JSON column type (values are stored and returned as
//! text; JSON_EXTRACT and friends parse on demand). Depth is bounded (MySQL: 100).

/// Deepest nesting of arrays/objects accepted (MySQL's JSON document depth limit).
pub const JSON_DEPTH_MAX: usize = 100;

/// Checks that `b` is one JSON value (surrounded by optional whitespace). Err holds
/// the byte position of the first problem, as MySQL reports it.
pub fn validate(b: &[u8]) -> Result<(), usize> {
    let mut p = Checker { b, i: 0 };
    p.ws();
    p.value(0)?;
    p.ws();
    if p.i != b.len() {
        return Err(p.i);
    }
    Ok(())
}

struct Checker<'a> {
    b: &'a [u8],
    i: usize,
}

impl Checker<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.b.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<(), usize> {
        if depth > JSON_DEPTH_MAX {
            return Err(self.i);
        }
        match self.b.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                self.ws();
                if self.eat(b'}') {
                    return Ok(());
                }
                loop {
                    self.ws();
                    self.string()?;
                    self.ws();
                    if !self.eat(b':') {
                        return Err(self.i);
                    }
                    self.ws();
                    self.value(depth + 1)?;
                    self.ws();
                    if self.eat(b'}') {
                        return Ok(());
                    }
                    if !self.eat(b',') {
                        return Err(self.i);
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                self.ws();
                if self.eat(b']') {
                    return Ok(());
                }
                loop {
                    self.ws();
                    self.value(depth + 1)?;
                    self.ws();
                    if self.eat(b']') {
                        return Ok(());
                    }
                    if !self.eat(b',') {
                        return Err(self.i);
                    }
                }
            }
            Some(b'"') => self.string(),
            Some(b't') => self.word(b"true"),
            Some(b'f') => self.word(b"false"),
            Some(b'n') => self.word(b"null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.i),
        }
    }

    fn word(&mut self, w: &[u8]) -> Result<(), usize> {
        if self.b[self.i..].starts_with(w) {
            self.i += w.len();
            Ok(())
        } else {
            Err(self.i)
        }
    }

    fn string(&mut self) -> Result<(), usize> {
        if !self.eat(b'"') {
            return Err(self.i);
        }
        while let Some(&c) = self.b.get(self.i) {
            self.i += 1;
            match c {
                b'"' => return Ok(()),
                b'\\' => match self.b.get(self.i) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.i += 1,
                    Some(b'u') => {
                        let hex = self.b.get(self.i + 1..self.i + 5).ok_or(self.i)?;
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return Err(self.i);
                        }
                        self.i += 5;
                    }
                    _ => return Err(self.i),
                },
                0..=0x1F => return Err(self.i - 1),
                _ => {}
            }
        }
        Err(self.i)
    }

    fn number(&mut self) -> Result<(), usize> {
        self.eat(b'-');
        let digits = |s: &mut Self| {
            let st = s.i;
            while s.b.get(s.i).is_some_and(u8::is_ascii_digit) {
                s.i += 1;
            }
            s.i > st
        };
        if !digits(self) {
            return Err(self.i);
        }
        if self.eat(b'.') && !digits(self) {
            return Err(self.i);
        }
        if self.eat(b'e') || self.eat(b'E') {
            if !self.eat(b'+') {
                self.eat(b'-');
            }
            if !digits(self) {
                return Err(self.i);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_and_rejects() {
        for ok in [
            "1",
            " {\"a\": [1, 2.5e3, true, null, \"x\\u00e9\"]} ",
            "[]",
            "\"s\"",
        ] {
            assert!(validate(ok.as_bytes()).is_ok(), "{ok}");
        }
        for bad in ["", "{", "[1,]", "01x", "{\"a\" 1}", "tru", "\"\u{1}\""] {
            assert!(validate(bad.as_bytes()).is_err(), "{bad}");
        }
        let deep = "[".repeat(1000) + &"]".repeat(1000);
        assert!(validate(deep.as_bytes()).is_err());
    }
}
