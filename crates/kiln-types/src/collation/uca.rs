//! Weight lookup for the table-driven Unicode collations (0900_ai_ci, unicode_ci,
//! general_ci): the range tables generated into `tables.rs`, UCA implicit weights,
//! Hangul syllable decomposition and DUCET contractions.
//!
//! Range-table layout (per table `X`): `X_STARTS[i]` is the first code point of range i,
//! which runs up to `X_STARTS[i+1]` (the last range to U+10FFFF). `X_DATA[i]` says how
//! to weigh a code point `cp` in it, by its top two bits:
//!   0  the collation's default (UCA implicit weight; general_ci's U+FFFD rank)
//!   1  one unit: `(data & 0xFFFF) + (cp - start) * ((data >> 16) & 1)`
//!   2  a list: `X_UNITS[X_OFFS[k]..X_OFFS[k+1]]` with `k = (data & 0x3FFF_FFFF) + cp - start`
//!   3  ignorable: no units at all
//! Units are primary weights (UCA) or ranks (general_ci), compared numerically.

use super::tables;

/// The most units one character (or contraction) can have. Checked over every code
/// point by a test, and the writer below never stores past it.
pub(super) const MAX_UNITS: usize = 16;

/// The units of one character.
#[derive(Clone, Copy)]
pub(super) struct CharUnits {
    pub n: usize,
    pub u: [u32; MAX_UNITS],
}

impl CharUnits {
    pub const EMPTY: CharUnits = CharUnits {
        n: 0,
        u: [0; MAX_UNITS],
    };

    #[inline]
    pub fn push(&mut self, u: u32) {
        // A truncated expansion would still compare deterministically; the test over
        // all code points guarantees it never happens.
        debug_assert!(self.n < MAX_UNITS);
        if self.n < MAX_UNITS {
            self.u[self.n] = u;
            self.n += 1;
        }
    }

    pub fn as_slice(&self) -> &[u32] {
        &self.u[..self.n]
    }
}

/// One generated range table.
pub(super) struct Table {
    pub starts: &'static [u32],
    pub data: &'static [u32],
    pub offs: &'static [u32],
    pub units: &'static [u16],
}

pub(super) const UCA900: Table = Table {
    starts: &tables::UCA900_STARTS,
    data: &tables::UCA900_DATA,
    offs: &tables::UCA900_OFFS,
    units: &tables::UCA900_UNITS,
};
pub(super) const UCA400: Table = Table {
    starts: &tables::UCA400_STARTS,
    data: &tables::UCA400_DATA,
    offs: &tables::UCA400_OFFS,
    units: &tables::UCA400_UNITS,
};
pub(super) const GENERAL: Table = Table {
    starts: &tables::GENERAL_STARTS,
    data: &tables::GENERAL_DATA,
    offs: &tables::GENERAL_OFFS,
    units: &tables::GENERAL_UNITS,
};

impl Table {
    /// Appends the units of `cp` to `out`; false means "use the default".
    pub fn lookup(&self, cp: u32, out: &mut CharUnits) -> bool {
        // starts[0] == 0, so the partition point is >= 1
        let i = self.starts.partition_point(|&s| s <= cp).saturating_sub(1);
        let (Some(&start), Some(&data)) = (self.starts.get(i), self.data.get(i)) else {
            return false;
        };
        let off = cp - start;
        match data >> 30 {
            1 => out.push((data & 0xFFFF) + off * ((data >> 16) & 1)),
            2 => {
                let k = ((data & 0x3FFF_FFFF) + off) as usize;
                let (Some(&a), Some(&b)) = (self.offs.get(k), self.offs.get(k + 1)) else {
                    return false;
                };
                for &u in self.units.get(a as usize..b as usize).unwrap_or(&[]) {
                    out.push(u32::from(u));
                }
            }
            3 => {}
            _ => return false,
        }
        true
    }
}

/// CJK compatibility ideographs that are unified ideographs (weighed as core Han).
const COMPAT_HAN: [u32; 12] = [
    0xFA0E, 0xFA0F, 0xFA11, 0xFA13, 0xFA14, 0xFA1F, 0xFA21, 0xFA23, 0xFA24, 0xFA27, 0xFA28, 0xFA29,
];

/// UCA 9.0.0 implicit weights (UTS #10 §10.1.3 with the Unicode 9.0 ideograph and
/// Tangut ranges): used for Han and for every code point DUCET 9.0 does not list.
pub(super) fn implicit_900(cp: u32, out: &mut CharUnits) {
    let base = if (0x4E00..=0x9FD5).contains(&cp) || COMPAT_HAN.contains(&cp) {
        0xFB40
    } else if (0x3400..=0x4DB5).contains(&cp)
        || (0x20000..=0x2A6D6).contains(&cp)
        || (0x2A700..=0x2B734).contains(&cp)
        || (0x2B740..=0x2B81D).contains(&cp)
        || (0x2B820..=0x2CEA1).contains(&cp)
    {
        0xFB80
    } else if (0x17000..=0x187EC).contains(&cp) || (0x18800..=0x18AF2).contains(&cp) {
        out.push(0xFB00);
        out.push((cp - 0x17000) | 0x8000);
        return;
    } else {
        0xFBC0
    };
    out.push(base + (cp >> 15));
    out.push((cp & 0x7FFF) | 0x8000);
}

/// UCA 4.0.0 implicit weights (the Han ranges of Unicode 4.0).
pub(super) fn implicit_400(cp: u32, out: &mut CharUnits) {
    let base = if (0x4E00..=0x9FA5).contains(&cp) || COMPAT_HAN.contains(&cp) {
        0xFB40
    } else if (0x3400..=0x4DB5).contains(&cp) {
        0xFB80
    } else {
        0xFBC0
    };
    out.push(base + (cp >> 15));
    out.push((cp & 0x7FFF) | 0x8000);
}

/// Units of `cp` under the 0900 table, without contractions.
pub(super) fn units_900(cp: u32, out: &mut CharUnits) {
    if (0xAC00..=0xD7A3).contains(&cp) {
        // UCA: a Hangul syllable weighs as its conjoining jamo L V (T) (Unicode §3.12)
        let s = cp - 0xAC00;
        let (l, v, t) = (0x1100 + s / 588, 0x1161 + (s % 588) / 28, s % 28);
        for j in [l, v] {
            if !UCA900.lookup(j, out) {
                implicit_900(j, out);
            }
        }
        if t != 0 && !UCA900.lookup(0x11A7 + t, out) {
            implicit_900(0x11A7 + t, out);
        }
        return;
    }
    if !UCA900.lookup(cp, out) {
        implicit_900(cp, out);
    }
}

/// Whether `cp` begins some DUCET contraction (e.g. 'l' + U+00B7, Cyrillic и + breve,
/// Thai prevowel + consonant).
pub(super) fn starts_contraction(cp: u32) -> bool {
    let t = &tables::UCA900_CONTRACTIONS;
    let i = t.partition_point(|(k, _)| k[0] < cp);
    t.get(i).is_some_and(|(k, _)| k[0] == cp)
}

/// The longest contraction made of `first` followed by the code points `next` yields
/// (which must hold the characters after `first`, `None` where there is none or it is
/// invalid): its units and how many of `next` it consumes.
pub(super) fn contraction(first: u32, next: [Option<u32>; 2]) -> Option<(&'static [u16], usize)> {
    let t = &tables::UCA900_CONTRACTIONS;
    let lo = t.partition_point(|(k, _)| k[0] < first);
    let hi = t.partition_point(|(k, _)| k[0] <= first);
    let mut best: Option<(&'static [u16], usize)> = None;
    for (k, w) in t.get(lo..hi).unwrap_or(&[]) {
        let len = if k[2] != 0 { 3 } else { 2 };
        let matches = (1..len).all(|j| next[j - 1] == Some(k[j]));
        if matches && best.is_none_or(|(_, n)| n < len - 1) {
            best = Some((w, len - 1));
        }
    }
    best
}
