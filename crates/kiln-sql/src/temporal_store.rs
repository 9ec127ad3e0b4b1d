//! Storing values into DATE, DATETIME, TIMESTAMP, TIME and YEAR columns.

use kiln_common::{ErrorKind, Result};

use crate::types::{SqlType, StoreMode};
use crate::value::Value;

/// Reports a value that does not fit: an error in strict mode, else a warning.
pub type Problem<'a> = dyn FnMut(ErrorKind, &[&dyn std::fmt::Display]) -> Result<()> + 'a;

pub fn store(
    ty: &SqlType,
    column: &str,
    v: &Value,
    mode: StoreMode,
    problem: &mut Problem<'_>,
) -> Result<Value> {
    let s = v.to_string_lossy().unwrap_or_default();
    match ty {
        SqlType::Year => {
            let y = v.to_i64().unwrap_or(0);
            let y = match y {
                0 => 0,
                1..=69 => 2000 + y,
                70..=99 => 1900 + y,
                1901..=2155 => y,
                _ => {
                    problem(ErrorKind::ER_WARN_DATA_OUT_OF_RANGE, &[&column, &mode.row])?;
                    0
                }
            };
            Ok(Value::UInt(y as u64))
        }
        _ => Ok(Value::Str(s)),
    }
}
