//! Character sets: decoding bytes into characters the way MySQL accepts them, latin1 <->
//! Unicode conversion, and UPPER()/LOWER() per charset.
//!
//! MySQL's latin1 is Windows-1252 in 0x80..0x9F, with the five positions cp1252 leaves
//! undefined (0x81 0x8D 0x8F 0x90 0x9D) mapped to the C1 controls of the same value, so
//! every latin1 byte has exactly one Unicode character (observed from the server and
//! recorded in `tables::LATIN1_TO_UNICODE`).

use super::tables;

/// A character set kiln stores strings in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Charset {
    /// Bytes with no character meaning (`binary`, `VARBINARY`, `BLOB`).
    Binary,
    /// MySQL latin1 (cp1252 as described above), one byte per character.
    Latin1,
    /// 7-bit US-ASCII; bytes >= 0x80 are kept (MySQL stores them) but convert as `?`.
    Ascii,
    /// UTF-8 limited to the BMP (3 bytes at most); 4-byte sequences are invalid here.
    Utf8mb3,
    /// Full UTF-8.
    Utf8mb4,
}

impl Charset {
    /// Looks a charset up by its MySQL name, case-insensitively (`utf8` means utf8mb3, as
    /// in MySQL 8.0).
    pub fn by_name(name: &str) -> Option<Charset> {
        let n = name.to_ascii_lowercase();
        Some(match n.as_str() {
            "binary" => Charset::Binary,
            "latin1" => Charset::Latin1,
            "ascii" => Charset::Ascii,
            "utf8" | "utf8mb3" => Charset::Utf8mb3,
            "utf8mb4" => Charset::Utf8mb4,
            _ => return None,
        })
    }

    /// The MySQL name of the charset.
    pub const fn name(self) -> &'static str {
        match self {
            Charset::Binary => "binary",
            Charset::Latin1 => "latin1",
            Charset::Ascii => "ascii",
            Charset::Utf8mb3 => "utf8mb3",
            Charset::Utf8mb4 => "utf8mb4",
        }
    }

    /// Longest encoding of one character, in bytes.
    pub fn max_bytes_per_char(self) -> usize {
        match self {
            Charset::Binary | Charset::Latin1 | Charset::Ascii => 1,
            Charset::Utf8mb3 => 3,
            Charset::Utf8mb4 => 4,
        }
    }

    fn is_utf8(self) -> bool {
        matches!(self, Charset::Utf8mb3 | Charset::Utf8mb4)
    }
}

/// One decoded character: a code point, or a byte that does not start a valid
/// sequence in the charset (MySQL keeps such bytes in some paths; we must never panic
/// on them, and give each its own weight after every valid character).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ch {
    Cp(u32),
    Bad(u8),
}

/// Decodes the first character of non-empty `s`, returning it and its byte length
/// (always >= 1, so callers always make progress). For single-byte charsets the
/// "code point" is the byte itself, not its Unicode value.
#[inline]
pub(super) fn decode(cs: Charset, s: &[u8]) -> (Ch, usize) {
    debug_assert!(!s.is_empty());
    let b0 = s[0];
    if b0 < 0x80 || !cs.is_utf8() {
        return (Ch::Cp(u32::from(b0)), 1);
    }
    let cont = |i: usize, lo: u8, hi: u8| -> Option<u32> {
        match s.get(i) {
            Some(&b) if (lo..=hi).contains(&b) => Some(u32::from(b & 0x3F)),
            _ => None,
        }
    };
    let decoded = match b0 {
        0xC2..=0xDF => cont(1, 0x80, 0xBF).map(|c1| ((u32::from(b0 & 0x1F) << 6) | c1, 2)),
        0xE0..=0xEF => {
            // no overlongs (E0 needs A0..), no surrogates (ED needs ..9F)
            let (lo, hi) = match b0 {
                0xE0 => (0xA0, 0xBF),
                0xED => (0x80, 0x9F),
                _ => (0x80, 0xBF),
            };
            cont(1, lo, hi).and_then(|c1| {
                cont(2, 0x80, 0xBF).map(|c2| ((u32::from(b0 & 0x0F) << 12) | (c1 << 6) | c2, 3))
            })
        }
        0xF0..=0xF4 if cs == Charset::Utf8mb4 => {
            let (lo, hi) = match b0 {
                0xF0 => (0x90, 0xBF),
                0xF4 => (0x80, 0x8F),
                _ => (0x80, 0xBF),
            };
            cont(1, lo, hi).and_then(|c1| {
                cont(2, 0x80, 0xBF).and_then(|c2| {
                    cont(3, 0x80, 0xBF).map(|c3| {
                        (
                            (u32::from(b0 & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3,
                            4,
                        )
                    })
                })
            })
        }
        _ => None,
    };
    match decoded {
        Some((cp, n)) => (Ch::Cp(cp), n),
        None => (Ch::Bad(b0), 1),
    }
}

/// Appends the UTF-8 encoding of `cp` (a valid scalar value).
pub(super) fn push_utf8(out: &mut Vec<u8>, cp: u32) {
    let c = char::from_u32(cp).unwrap_or(char::REPLACEMENT_CHARACTER);
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

/// Unicode character of a latin1 byte.
pub(super) fn latin1_to_unicode(b: u8) -> u32 {
    u32::from(tables::LATIN1_TO_UNICODE[usize::from(b)])
}

/// latin1 byte of a Unicode character, if latin1 has it.
pub(super) fn unicode_to_latin1(cp: u32) -> Option<u8> {
    if cp < 0x80 || (0xA0..=0xFF).contains(&cp) {
        // the identity part of the table (asserted by a test)
        return u8::try_from(cp).ok();
    }
    tables::LATIN1_TO_UNICODE
        .iter()
        .position(|&u| u32::from(u) == cp)
        .and_then(|i| u8::try_from(i).ok())
}

/// Converts `bytes` from one charset to another, as MySQL's CONVERT(... USING ...) and
/// column assignment do: characters the target lacks (and invalid input sequences)
/// become `?`, and the flag says whether that happened. `binary` on either side copies
/// the bytes unchanged.
pub fn convert(from: Charset, to: Charset, bytes: &[u8]) -> (Vec<u8>, bool) {
    if from == Charset::Binary || to == Charset::Binary || from == to {
        return (bytes.to_vec(), false);
    }
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 2);
    let mut lossy = false;
    let mut rest = bytes;
    while !rest.is_empty() {
        let (ch, n) = decode(from, rest);
        rest = &rest[n..];
        let cp = match (from, ch) {
            (Charset::Latin1, Ch::Cp(b)) => Some(latin1_to_unicode(b as u8)),
            (Charset::Ascii, Ch::Cp(b)) if b >= 0x80 => None,
            (_, Ch::Cp(cp)) => Some(cp),
            (_, Ch::Bad(_)) => None,
        };
        let Some(cp) = cp else {
            lossy = true;
            out.push(b'?');
            continue;
        };
        match to {
            Charset::Latin1 => match unicode_to_latin1(cp) {
                Some(b) => out.push(b),
                None => {
                    lossy = true;
                    out.push(b'?');
                }
            },
            Charset::Ascii if cp >= 0x80 => {
                lossy = true;
                out.push(b'?');
            }
            Charset::Ascii => out.push(cp as u8),
            Charset::Utf8mb3 if cp > 0xFFFF => {
                lossy = true;
                out.push(b'?');
            }
            // (a binary target returned early above)
            Charset::Utf8mb3 | Charset::Utf8mb4 | Charset::Binary => push_utf8(&mut out, cp),
        }
    }
    (out, lossy)
}

/// Simple (one character to one character) case mapping, as MySQL's UPPER()/LOWER()
/// do: a character whose full mapping is several characters ('ß' -> "SS") keeps
/// itself, except U+0130 whose simple lowercase is 'i' in UnicodeData.
pub(super) fn simple_case(cp: u32, upper: bool) -> u32 {
    let Some(c) = char::from_u32(cp) else {
        return cp;
    };
    if !upper && c == '\u{130}' {
        return u32::from('i');
    }
    let mut it_u;
    let mut it_l;
    let it: &mut dyn Iterator<Item = char> = if upper {
        it_u = c.to_uppercase();
        &mut it_u
    } else {
        it_l = c.to_lowercase();
        &mut it_l
    };
    match (it.next(), it.next()) {
        (Some(m), None) => u32::from(m),
        _ => cp,
    }
}

/// UPPER()/LOWER() of `s` in charset `cs`. `bmp_only` keeps characters above U+FFFF
/// unchanged (MySQL's general_ci/unicode_ci/bin case tables cover the BMP only).
pub(super) fn change_case(cs: Charset, s: &[u8], upper: bool, bmp_only: bool) -> Vec<u8> {
    match cs {
        Charset::Binary => s.to_vec(),
        Charset::Ascii => s
            .iter()
            .map(|b| {
                if upper {
                    b.to_ascii_uppercase()
                } else {
                    b.to_ascii_lowercase()
                }
            })
            .collect(),
        Charset::Latin1 => {
            let t = if upper {
                &tables::LATIN1_UPPER
            } else {
                &tables::LATIN1_LOWER
            };
            s.iter().map(|&b| t[usize::from(b)]).collect()
        }
        Charset::Utf8mb3 | Charset::Utf8mb4 => {
            let mut out = Vec::with_capacity(s.len());
            let mut rest = s;
            while !rest.is_empty() {
                let (ch, n) = decode(cs, rest);
                match ch {
                    Ch::Cp(cp) if !(bmp_only && cp > 0xFFFF) => {
                        let m = simple_case(cp, upper);
                        // never let a mapping leave the charset's repertoire
                        let m = if cs == Charset::Utf8mb3 && m > 0xFFFF {
                            cp
                        } else {
                            m
                        };
                        push_utf8(&mut out, m);
                    }
                    // unchanged characters and invalid bytes are copied as they were
                    _ => out.extend_from_slice(&rest[..n]),
                }
                rest = &rest[n..];
            }
            out
        }
    }
}
