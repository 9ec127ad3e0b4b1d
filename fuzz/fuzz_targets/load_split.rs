//! LOAD DATA's field/line splitter: any bytes under any FIELDS/LINES options split
//! without a panic, records have 1..=n fields, and feeding the input in chunks gives
//! the same records as feeding it whole.
#![no_main]
use kiln_sql::loadsplit::{Format, split_all};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Header: [field_term len, line_term len, line_start len, enclosed, escaped, n, cut]
    // then those terminators, then the input.
    if data.len() < 7 {
        return;
    }
    let (h, rest) = data.split_at(7);
    let (lf, ll, ls) = ((h[0] % 4) as usize, (h[1] % 4) as usize, (h[2] % 3) as usize);
    if rest.len() < lf + ll + ls {
        return;
    }
    let (field_term, rest) = rest.split_at(lf);
    let (line_term, rest) = rest.split_at(ll);
    let (line_start, input) = rest.split_at(ls);
    let format = Format {
        field_term: field_term.to_vec(),
        enclosed: (h[3] & 0x80 != 0).then_some(h[3] & 0x7f),
        escaped: (h[4] & 0x80 != 0).then_some(h[4] & 0x7f),
        line_term: line_term.to_vec(),
        line_start: line_start.to_vec(),
    };
    let n = (h[5] % 5) as usize + 1;
    let whole = split_all(&format, n, u64::from(h[6] % 3), &[input], 1 << 20);
    let cut = (h[6] as usize).min(input.len());
    let (a, b) = input.split_at(cut);
    let parts = split_all(&format, n, u64::from(h[6] % 3), &[a, b], 1 << 20);
    assert_eq!(whole, parts);
    if let Ok(records) = whole {
        for r in records {
            assert!(!r.fields.is_empty() && r.fields.len() <= n);
        }
    }
});
