//! kiln-types: MySQL value semantics that know no SQL text and no storage — exact
//! DECIMAL arithmetic (65 digits), collations (weight strings and comparison), and
//! temporal values (DATE, DATETIME, TIMESTAMP, TIME, YEAR: parsing, formatting,
//! arithmetic). kiln-sql builds its types, expressions and keys on these.
pub mod collation;
pub mod decimal;
pub mod temporal;
