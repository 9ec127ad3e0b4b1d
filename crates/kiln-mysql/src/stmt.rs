//! Prepared-statement packets: COM_STMT_PREPARE's OK response and decoding of
//! COM_STMT_EXECUTE's parameters (null bitmap, new-params-bound flag, types, values).
//!
//! COM_STMT_EXECUTE body after the statement id (we never offer QUERY_ATTRIBUTES):
//!
//! | bytes          | field                                                  |
//! |----------------|--------------------------------------------------------|
//! | 1              | cursor flags                                           |
//! | 4              | iteration count (always 1)                             |
//! | (n+7)/8        | NULL bitmap, bit i = parameter i is NULL (n > 0 only)  |
//! | 1              | new-params-bound flag                                  |
//! | 2·n            | parameter types (type byte, flag byte 0x80 = unsigned) |
//! | ...            | values of non-NULL parameters without long data        |

use bytes::{BufMut, BytesMut};

use crate::consts::ColumnType;
use crate::resultset::BinaryValue;
use crate::wire::{Reader, WireError};

/// Appends COM_STMT_PREPARE_OK's first packet.
pub fn put_prepare_ok(
    out: &mut BytesMut,
    statement_id: u32,
    columns: u16,
    params: u16,
    warnings: u16,
) {
    out.put_u8(0x00);
    out.put_u32_le(statement_id);
    out.put_u16_le(columns);
    out.put_u16_le(params);
    out.put_u8(0);
    out.put_u16_le(warnings);
}

/// Type of a bound parameter as the client declared it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamType {
    pub column_type: ColumnType,
    pub unsigned: bool,
}

/// Decodes the parameters of COM_STMT_EXECUTE. `types` holds the types bound by an
/// earlier execution (updated in place when the client sends new ones); `long_data[i]`
/// is true when parameter i's value arrived by COM_STMT_SEND_LONG_DATA (its value is
/// then absent here and reported as `None`).
pub fn parse_execute_params(
    body: &[u8],
    param_count: usize,
    types: &mut Vec<ParamType>,
    long_data: &[bool],
) -> Result<Vec<Option<BinaryValue>>, WireError> {
    let mut r = Reader::new(body);
    let _cursor_flags = r.u8()?;
    let _iterations = r.u32()?;
    if param_count == 0 {
        return Ok(Vec::new());
    }
    let bitmap = r.bytes(param_count.div_ceil(8))?;
    let new_bound = r.u8()?;
    if new_bound == 1 {
        types.clear();
        for _ in 0..param_count {
            let t = r.u8()?;
            let flags = r.u8()?;
            let column_type = ColumnType::from_u8(t).ok_or(WireError::Malformed)?;
            types.push(ParamType {
                column_type,
                unsigned: flags & 0x80 != 0,
            });
        }
    } else if types.len() != param_count {
        // Types were never bound: the client must send them on the first execution.
        return Err(WireError::Malformed);
    }
    let mut out = Vec::with_capacity(param_count);
    for i in 0..param_count {
        if bitmap[i / 8] & (1 << (i % 8)) != 0 {
            out.push(Some(BinaryValue::Null));
            continue;
        }
        if long_data.get(i).copied().unwrap_or(false) {
            out.push(None);
            continue;
        }
        out.push(Some(read_value(&mut r, types[i])?));
    }
    Ok(out)
}

fn read_value(r: &mut Reader<'_>, t: ParamType) -> Result<BinaryValue, WireError> {
    use ColumnType as T;
    let int = |v: i64, u: u64| {
        if t.unsigned {
            BinaryValue::UInt(u)
        } else {
            BinaryValue::Int(v)
        }
    };
    Ok(match t.column_type {
        T::Null => BinaryValue::Null,
        T::Tiny => {
            let b = r.u8()?;
            int(b as i8 as i64, b as u64)
        }
        T::Short | T::Year => {
            let v = r.u16()?;
            int(v as i16 as i64, v as u64)
        }
        T::Long | T::Int24 => {
            let v = r.u32()?;
            int(v as i32 as i64, v as u64)
        }
        T::LongLong => {
            let v = r.u64()?;
            int(v as i64, v)
        }
        T::Float => BinaryValue::Float(f32::from_bits(r.u32()?)),
        T::Double => BinaryValue::Double(f64::from_bits(r.u64()?)),
        T::Date | T::DateTime | T::Timestamp | T::NewDate => {
            let len = r.u8()?;
            let (mut year, mut month, mut day, mut hour, mut minute, mut second, mut micros) =
                (0, 0, 0, 0, 0, 0, 0);
            if !matches!(len, 0 | 4 | 7 | 11) {
                return Err(WireError::Malformed);
            }
            if len >= 4 {
                year = r.u16()?;
                month = r.u8()?;
                day = r.u8()?;
            }
            if len >= 7 {
                hour = r.u8()?;
                minute = r.u8()?;
                second = r.u8()?;
            }
            if len == 11 {
                micros = r.u32()?;
            }
            BinaryValue::DateTime {
                year,
                month,
                day,
                hour,
                minute,
                second,
                micros,
            }
        }
        T::Time => {
            let len = r.u8()?;
            if !matches!(len, 0 | 8 | 12) {
                return Err(WireError::Malformed);
            }
            let (mut negative, mut days, mut hours, mut minutes, mut seconds, mut micros) =
                (false, 0, 0, 0, 0, 0);
            if len >= 8 {
                negative = r.u8()? != 0;
                days = r.u32()?;
                hours = r.u8()?;
                minutes = r.u8()?;
                seconds = r.u8()?;
            }
            if len == 12 {
                micros = r.u32()?;
            }
            BinaryValue::Time {
                negative,
                days,
                hours,
                minutes,
                seconds,
                micros,
            }
        }
        _ => BinaryValue::Bytes(r.lenenc_bytes()?.to_vec()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_with_null_and_types() {
        // 3 params: LONGLONG 5, NULL, VAR_STRING "ab"
        let mut b = vec![0u8, 1, 0, 0, 0];
        b.push(0b010); // bitmap
        b.push(1); // new params bound
        b.extend_from_slice(&[8, 0, 8, 0, 253, 0]);
        b.extend_from_slice(&5i64.to_le_bytes());
        b.extend_from_slice(b"\x02ab");
        let mut types = Vec::new();
        let v = parse_execute_params(&b, 3, &mut types, &[]).unwrap();
        assert_eq!(
            v,
            vec![
                Some(BinaryValue::Int(5)),
                Some(BinaryValue::Null),
                Some(BinaryValue::Bytes(b"ab".to_vec()))
            ]
        );
        // Re-execute without re-binding types.
        let mut b2 = vec![0u8, 1, 0, 0, 0, 0b110, 0];
        b2.extend_from_slice(&7i64.to_le_bytes());
        let v = parse_execute_params(&b2, 3, &mut types, &[]).unwrap();
        assert_eq!(v[0], Some(BinaryValue::Int(7)));
    }

    #[test]
    fn unbound_types_are_malformed_and_truncation_never_panics() {
        let mut types = Vec::new();
        assert_eq!(
            parse_execute_params(&[0, 1, 0, 0, 0, 0, 0], 1, &mut types, &[]),
            Err(WireError::Malformed)
        );
        let full = [
            0u8, 1, 0, 0, 0, 0, 1, 12, 0, 11, 0xe8, 7, 1, 1, 0, 0, 0, 0, 0, 0, 0,
        ];
        for n in 0..full.len() {
            let mut t = Vec::new();
            let _ = parse_execute_params(&full[..n], 1, &mut t, &[]);
        }
    }
}
