//! Index conventions on top of the B+tree: what clustered and secondary index entries
//! hold, so transactions (undo, MVCC, row locks) slot in without a format change.
//!
//! Clustered index (keyed by the primary key, or by a hidden 6-byte row id when a
//! table has none), value:
//!
//! ```text
//! offset size  field
//!      0    6  trx_id     transaction that last changed the row (big-endian)
//!      6    7  roll_ptr   where that change's undo record is (big-endian)
//!     13    1  info       bit 0: delete-marked (purge removes the entry later)
//!     14       row        the columns' bytes (the SQL layer's row format)
//! ```
//!
//! Secondary index: key = the index's key parts ++ the primary key (both memcomparable
//! and prefix-free, so the concatenation orders by index key, then primary key), value
//! empty. A unique secondary index refuses a second entry with the same key parts
//! (`unique_conflict`), except that NULL parts never conflict — the caller skips the
//! check when a part is NULL, as MySQL does.

use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::btree::{BTree, TreeError};

/// Bytes of system fields before the row in a clustered entry.
pub const SYS_LEN: usize = 14;
/// Largest transaction id (48 bits) and roll pointer (56 bits).
pub const TRX_ID_MAX: u64 = (1 << 48) - 1;
pub const ROLL_PTR_MAX: u64 = (1 << 56) - 1;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusteredEntry<'a> {
    pub trx_id: u64,
    pub roll_ptr: u64,
    pub delete_marked: bool,
    pub row: &'a [u8],
}

impl ClusteredEntry<'_> {
    pub fn encode(&self) -> Vec<u8> {
        assert!(self.trx_id <= TRX_ID_MAX && self.roll_ptr <= ROLL_PTR_MAX);
        let mut v = Vec::with_capacity(SYS_LEN + self.row.len());
        v.extend_from_slice(&self.trx_id.to_be_bytes()[2..]);
        v.extend_from_slice(&self.roll_ptr.to_be_bytes()[1..]);
        v.push(self.delete_marked as u8);
        v.extend_from_slice(self.row);
        v
    }
}

/// Decodes a clustered index value; None if it is too short to hold the system fields.
pub fn decode_clustered(v: &[u8]) -> Option<ClusteredEntry<'_>> {
    if v.len() < SYS_LEN {
        return None;
    }
    let mut t = [0u8; 8];
    t[2..].copy_from_slice(&v[0..6]);
    let mut r = [0u8; 8];
    r[1..].copy_from_slice(&v[6..13]);
    Some(ClusteredEntry {
        trx_id: u64::from_be_bytes(t),
        roll_ptr: u64::from_be_bytes(r),
        delete_marked: v[13] & 1 != 0,
        row: &v[SYS_LEN..],
    })
}

/// Hidden row ids for a table without a primary key: 6-byte big-endian keys, handed
/// out above the largest one in the tree. Nothing needs persisting: after a restart
/// the tree's largest key is the high-water mark (ids need only be unique per table).
pub struct RowIds {
    next: AtomicU64,
}

pub const ROW_ID_LEN: usize = 6;

impl RowIds {
    pub fn open(tree: &BTree) -> Result<RowIds, TreeError> {
        let last = tree
            .range(Bound::Unbounded, Bound::Unbounded, true)
            .next()
            .transpose()?;
        let next = match last {
            Some((k, _)) if k.len() == ROW_ID_LEN => {
                let mut b = [0u8; 8];
                b[2..].copy_from_slice(&k);
                u64::from_be_bytes(b) + 1
            }
            Some(_) => {
                return Err(TreeError::Corrupt(
                    crate::page::PageId::new(0, 0),
                    "hidden row id key of the wrong length",
                ));
            }
            None => 1,
        };
        Ok(RowIds {
            next: AtomicU64::new(next),
        })
    }

    /// The next row id as a clustered key.
    pub fn next_key(&self) -> [u8; ROW_ID_LEN] {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        assert!(id < 1 << 48, "hidden row ids exhausted");
        id.to_be_bytes()[2..].try_into().expect("6 bytes")
    }
}

/// A secondary index entry's key: the index key parts, then the primary key.
pub fn secondary_key(index_key: &[u8], primary_key: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(index_key.len() + primary_key.len());
    k.extend_from_slice(index_key);
    k.extend_from_slice(primary_key);
    k
}

/// For a unique secondary index: the primary key of an existing entry whose key parts
/// equal `index_key`, if any (`index_key` is the encoded parts, prefix-free).
pub fn unique_conflict(tree: &BTree, index_key: &[u8]) -> Result<Option<Vec<u8>>, TreeError> {
    match tree
        .range(Bound::Included(index_key), Bound::Unbounded, false)
        .next()
        .transpose()?
    {
        Some((k, _)) if k.starts_with(index_key) => Ok(Some(k[index_key.len()..].to_vec())),
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clustered_entry_round_trip_and_limits() {
        let e = ClusteredEntry {
            trx_id: TRX_ID_MAX,
            roll_ptr: 0x0123_4567_89AB_CDEF & ROLL_PTR_MAX,
            delete_marked: true,
            row: b"row bytes",
        };
        let v = e.encode();
        assert_eq!(v.len(), SYS_LEN + 9);
        assert_eq!(decode_clustered(&v), Some(e));
        let plain = ClusteredEntry {
            trx_id: 7,
            roll_ptr: 0,
            delete_marked: false,
            row: b"",
        };
        assert_eq!(decode_clustered(&plain.encode()), Some(plain));
        assert_eq!(decode_clustered(&[0u8; 13]), None);
    }
}
