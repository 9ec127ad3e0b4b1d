//! Comparing a query's formatted output with the file's expected lines, the way SQLite's
//! reference runner does: the corpus writes one value per line (rows are not kept
//! together), so the output is flattened to values in row order and compared line by
//! line, exactly — formatting already happened in `format`, nothing is normalised here.

use sqllogictest::Normalizer;

/// A `sqllogictest::Validator`: true when the values, in order, equal the expected lines.
/// A hashed result arrives as a single value (`N values hashing to H`) and compares the
/// same way. Trailing blanks on expected lines are not significant (editors add them).
pub fn values_match(_: Normalizer, actual: &[Vec<String>], expected: &[String]) -> bool {
    let mut values = actual.iter().flatten();
    for line in expected {
        match values.next() {
            Some(v) if v == line.trim_end() => {}
            _ => return false,
        }
    }
    values.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqllogictest::default_normalizer;

    fn rows(r: &[&[&str]]) -> Vec<Vec<String>> {
        r.iter()
            .map(|row| row.iter().map(|s| s.to_string()).collect())
            .collect()
    }

    fn lines(l: &[&str]) -> Vec<String> {
        l.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn one_value_per_line() {
        let a = rows(&[&["1", "x y"], &["2", "NULL"]]);
        assert!(values_match(
            default_normalizer,
            &a,
            &lines(&["1", "x y", "2", "NULL"])
        ));
        assert!(!values_match(
            default_normalizer,
            &a,
            &lines(&["1 x y", "2 NULL"])
        ));
        assert!(!values_match(
            default_normalizer,
            &a,
            &lines(&["1", "x y", "2"])
        ));
        assert!(!values_match(
            default_normalizer,
            &a,
            &lines(&["1", "x  y", "2", "NULL"])
        ));
    }

    #[test]
    fn empty_and_hashed() {
        assert!(values_match(default_normalizer, &[], &[]));
        assert!(!values_match(default_normalizer, &rows(&[&["1"]]), &[]));
        let h = rows(&[&["9 values hashing to abc"]]);
        assert!(values_match(
            default_normalizer,
            &h,
            &lines(&["9 values hashing to abc "])
        ));
    }
}
