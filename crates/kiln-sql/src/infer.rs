//! Static result-type inference for expression columns, used where no values exist
//! yet: COM_STMT_PREPARE's column definitions and empty result sets.

use crate::ast::{BinaryOp, Expr};
use crate::result::{ColumnInfo, ColumnKind};
use crate::value::Value;

pub fn column_for(name: &str, e: &Expr) -> ColumnInfo {
    let kind = kind_of(e);
    let mut c = ColumnInfo::new(name, kind);
    c.length_chars = match kind {
        ColumnKind::LongLong => 21,
        ColumnKind::Double => 23,
        ColumnKind::NewDecimal => 67,
        ColumnKind::Null => 0,
        _ => 255,
    };
    c.decimals = match kind {
        ColumnKind::Double | ColumnKind::VarString => 31,
        _ => 0,
    };
    c
}

fn kind_of(e: &Expr) -> ColumnKind {
    match e {
        Expr::Literal(v) => match v {
            Value::Null => ColumnKind::Null,
            Value::Int(_) | Value::UInt(_) => ColumnKind::LongLong,
            Value::Double(_) => ColumnKind::Double,
            Value::Decimal(_) => ColumnKind::NewDecimal,
            Value::Str(_) | Value::Bytes(_) => ColumnKind::VarString,
        },
        Expr::IsNull { .. }
        | Expr::IsBool { .. }
        | Expr::Between { .. }
        | Expr::InList { .. }
        | Expr::Like { .. } => ColumnKind::LongLong,
        Expr::Binary { op, left, right } => match op {
            BinaryOp::Div => {
                if matches!(kind_of(left), ColumnKind::Double | ColumnKind::VarString)
                    || matches!(kind_of(right), ColumnKind::Double | ColumnKind::VarString)
                {
                    ColumnKind::Double
                } else {
                    ColumnKind::NewDecimal
                }
            }
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Mod => {
                match (kind_of(left), kind_of(right)) {
                    (ColumnKind::LongLong, ColumnKind::LongLong) => ColumnKind::LongLong,
                    (ColumnKind::Double | ColumnKind::VarString, _)
                    | (_, ColumnKind::Double | ColumnKind::VarString) => ColumnKind::Double,
                    _ => ColumnKind::NewDecimal,
                }
            }
            _ => ColumnKind::LongLong,
        },
        Expr::Unary { expr, .. } => kind_of(expr),
        Expr::Func { name, .. } => match name.as_str() {
            "connection_id" | "last_insert_id" | "row_count" | "found_rows" | "length"
            | "char_length" | "sleep" | "unix_timestamp" | "isnull" | "strcmp" | "sign" => {
                ColumnKind::LongLong
            }
            "rand" | "pi" | "sqrt" | "exp" | "ln" | "log" | "log10" | "log2" | "pow" | "power" => {
                ColumnKind::Double
            }
            _ => ColumnKind::VarString,
        },
        _ => ColumnKind::VarString,
    }
}
