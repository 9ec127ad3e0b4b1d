//! Writing result rows into a response: straight from a stored row's bytes (the hot
//! path of a lookup) or from decoded values (`find_modify`'s `?` forms).

use kiln_sql::dict::TableHandle;
use kiln_sql::rowfmt::{Cell, decode_cells};
use kiln_sql::types::SqlType;
use kiln_sql::value::Value;

use super::{Fail, Res};
use crate::codec::Reply;

/// `0 TAB ncols` and the opened columns of each stored row, written straight from
/// the row's bytes (no values built: the hot path of a lookup). `spare` lends its
/// memory for the row's cells (kept by the executor, so a lookup allocates none).
pub(super) fn write_stored_rows<'r>(
    reply: &mut Reply<'_>,
    h: &TableHandle,
    cols: &[usize],
    rows: impl Iterator<Item = &'r Vec<u8>>,
    spare: &mut Vec<Cell<'static>>,
) -> Res<()> {
    reply.rows_header(cols.len());
    let mut cells = relabel(std::mem::take(spare));
    // Only a DOUBLE/FLOAT or added column goes through text: no allocation otherwise.
    let mut buf = Vec::new();
    for row in rows {
        if let Err(e) = decode_cells(&h.shape.stored, row, &mut cells) {
            *spare = relabel(cells);
            return Err(Fail::Sql(kiln_sql::dict::storage_error(e.0)));
        }
        for &c in cols {
            let ty = &h.def.columns[c].ty;
            buf.clear();
            match cells[c] {
                Cell::Null => {
                    reply.cell(None);
                    continue;
                }
                Cell::Bytes(b) => {
                    reply.cell(Some(b));
                    continue;
                }
                // As text_of writes them, without the detour through a buffer.
                Cell::Int(i) => {
                    reply.cell_i64(i);
                    continue;
                }
                Cell::UInt(u) => {
                    reply.cell_u64(u);
                    continue;
                }
                Cell::Double(d) => text_of(ty, &Value::Double(d), &mut buf),
                Cell::Missing => match &h.shape.missing[c] {
                    Value::Null => {
                        reply.cell(None);
                        continue;
                    }
                    v => text_of(ty, v, &mut buf),
                },
            }
            reply.cell(Some(&buf));
        }
    }
    *spare = relabel(cells);
    reply.end();
    Ok(())
}

/// An empty vector of cells of another lifetime, in the same memory (`collect` from
/// a vector's own iterator into an element of the same size reuses its buffer).
fn relabel<'b>(mut cells: Vec<Cell<'_>>) -> Vec<Cell<'b>> {
    cells.clear();
    cells.into_iter().map(|_| Cell::Null).collect()
}

/// `0 TAB ncols` and the opened columns of each row of values.
pub(super) fn write_rows<'r>(
    reply: &mut Reply<'_>,
    h: &TableHandle,
    cols: &[usize],
    rows: impl Iterator<Item = &'r Vec<Value>>,
) {
    reply.rows_header(cols.len());
    let mut buf = Vec::new();
    for row in rows {
        for &c in cols {
            match &row[c] {
                Value::Null => reply.cell(None),
                Value::Str(s) => reply.cell(Some(s.as_bytes())),
                Value::Bytes(b) => reply.cell(Some(b)),
                v => {
                    buf.clear();
                    text_of(&h.def.columns[c].ty, v, &mut buf);
                    reply.cell(Some(&buf));
                }
            }
        }
    }
    reply.end();
}

/// A column value as text, as SELECT shows it.
fn text_of(ty: &SqlType, v: &Value, out: &mut Vec<u8>) {
    use std::io::Write;
    match (ty, v) {
        (_, Value::Int(i)) => {
            let _ = write!(out, "{i}");
        }
        (_, Value::UInt(u)) => {
            let _ = write!(out, "{u}");
        }
        (SqlType::Float { .. }, Value::Double(d)) => {
            out.extend_from_slice(kiln_sql::value::format_float(*d).as_bytes());
        }
        (_, Value::Double(d)) => {
            out.extend_from_slice(kiln_sql::value::format_double(*d).as_bytes());
        }
        (_, Value::Str(s)) => out.extend_from_slice(s.as_bytes()),
        (_, Value::Bytes(b)) => out.extend_from_slice(b),
        (_, v) => out.extend_from_slice(&v.to_text().unwrap_or_default()),
    }
}
