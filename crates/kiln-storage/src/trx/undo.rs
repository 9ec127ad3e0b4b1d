//! Undo records and roll pointers.
//!
//! Undo logs live in rollback segments, each a B+tree in an undo tablespace (see
//! `docs/transactions.md` for why a tree rather than InnoDB's page chains). A
//! transaction's records are keyed by its id and a per-transaction undo number, so
//! they sort in the order they were written:
//!
//! ```text
//! undo key:  trx_id u48 BE | undo_no u64 BE              (14 bytes)
//! rseg of a transaction: trx_id % number of rollback segments
//! ```
//!
//! The clustered record's roll pointer (7 bytes, `row.rs`) points at the undo record
//! of the change that produced it, in the rollback segment of the record's `trx_id`:
//!
//! ```text
//! bit 55       insert flag: the record was inserted (no older version exists)
//! bits 0..=54  undo_no
//! ```
//!
//! Undo record (the tree value):
//!
//! ```text
//! offset size  field
//!      0    1  kind       1 insert, 2 update, 3 delete-mark, 4 secondary insert,
//!                         5 secondary value change (delete-mark or unmark)
//!      1    4  space id   of the index changed
//!      5    8  index id
//!     13    2  key_len
//!     15    k  key        the entry's key (primary key; secondary: the whole entry key)
//!   15+k       before     update / delete-mark: the clustered value before the change
//!                         (trx_id, roll_ptr, info, row: `row.rs`); secondary value
//!                         change: the entry's value before it; inserts: nothing
//! ```
//!
//! The commit of a transaction is recorded in the same tree under undo_no
//! `COMMIT_NO`, so that recovery tells committed transactions (whose undo awaits purge)
//! from the ones to roll back.

/// Undo number of a transaction's commit record.
pub const COMMIT_NO: u64 = u64::MAX;
/// Undo numbers above this do not fit a roll pointer.
pub const UNDO_NO_MAX: u64 = (1 << 55) - 1;
const INSERT_FLAG: u64 = 1 << 55;
pub const KEY_LEN: usize = 14;
const HEADER: usize = 15;

/// What a change did, and what undoing it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A clustered entry was inserted: undo deletes it.
    Insert = 1,
    /// A clustered entry was changed: undo restores the before image.
    Update = 2,
    /// A clustered entry was delete-marked: undo restores the before image; purge
    /// removes the entry once no view needs it.
    DeleteMark = 3,
    /// A secondary entry was inserted: undo removes it.
    SecInsert = 4,
    /// A secondary entry's value changed (delete-marked, or the mark cleared): undo
    /// restores the before value; purge removes the entry if this transaction's mark
    /// is still on it.
    SecUpdate = 5,
}

impl Kind {
    pub(crate) fn from_u8(b: u8) -> Option<Kind> {
        Some(match b {
            1 => Kind::Insert,
            2 => Kind::Update,
            3 => Kind::DeleteMark,
            4 => Kind::SecInsert,
            5 => Kind::SecUpdate,
            _ => return None,
        })
    }
}

/// A decoded undo record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoRec {
    pub kind: Kind,
    pub space: u32,
    pub index: u64,
    pub key: Vec<u8>,
    /// The clustered value before the change (Update, DeleteMark).
    pub before: Vec<u8>,
}

impl UndoRec {
    pub fn encode(&self) -> Vec<u8> {
        assert!(self.key.len() <= u16::MAX as usize);
        let mut v = Vec::with_capacity(HEADER + self.key.len() + self.before.len());
        v.push(self.kind as u8);
        v.extend_from_slice(&self.space.to_be_bytes());
        v.extend_from_slice(&self.index.to_be_bytes());
        v.extend_from_slice(&(self.key.len() as u16).to_be_bytes());
        v.extend_from_slice(&self.key);
        v.extend_from_slice(&self.before);
        v
    }

    /// None: not an undo record (corrupt or of a newer format).
    pub fn decode(v: &[u8]) -> Option<UndoRec> {
        if v.len() < HEADER {
            return None;
        }
        let kind = Kind::from_u8(v[0])?;
        let space = u32::from_be_bytes(v[1..5].try_into().ok()?);
        let index = u64::from_be_bytes(v[5..13].try_into().ok()?);
        let key_len = u16::from_be_bytes(v[13..15].try_into().ok()?) as usize;
        let key = v.get(HEADER..HEADER + key_len)?.to_vec();
        let before = v[HEADER + key_len..].to_vec();
        let needs_before = matches!(kind, Kind::Update | Kind::DeleteMark | Kind::SecUpdate);
        if needs_before == before.is_empty() {
            return None;
        }
        Some(UndoRec {
            kind,
            space,
            index,
            key,
            before,
        })
    }
}

/// The undo tree key of record `undo_no` of transaction `trx_id`.
pub fn undo_key(trx_id: u64, undo_no: u64) -> [u8; KEY_LEN] {
    let mut k = [0u8; KEY_LEN];
    k[..6].copy_from_slice(&trx_id.to_be_bytes()[2..]);
    k[6..].copy_from_slice(&undo_no.to_be_bytes());
    k
}

/// (trx_id, undo_no) of an undo tree key.
pub fn parse_undo_key(k: &[u8]) -> Option<(u64, u64)> {
    if k.len() != KEY_LEN {
        return None;
    }
    let mut t = [0u8; 8];
    t[2..].copy_from_slice(&k[..6]);
    Some((
        u64::from_be_bytes(t),
        u64::from_be_bytes(k[6..].try_into().ok()?),
    ))
}

/// A roll pointer: the undo record `undo_no` of the record's transaction.
pub fn roll_ptr(undo_no: u64, insert: bool) -> u64 {
    assert!(undo_no <= UNDO_NO_MAX, "undo number {undo_no} too large");
    undo_no | if insert { INSERT_FLAG } else { 0 }
}

/// (undo_no, insert flag) of a roll pointer.
pub fn parse_roll_ptr(p: u64) -> (u64, bool) {
    (p & UNDO_NO_MAX, p & INSERT_FLAG != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_bad_ones_are_refused() {
        let r = UndoRec {
            kind: Kind::Update,
            space: 7,
            index: 9,
            key: b"pk".to_vec(),
            before: vec![1; 20],
        };
        assert_eq!(UndoRec::decode(&r.encode()), Some(r.clone()));
        let ins = UndoRec {
            kind: Kind::Insert,
            before: Vec::new(),
            ..r.clone()
        };
        assert_eq!(UndoRec::decode(&ins.encode()), Some(ins));
        let mut bad = r.encode();
        bad[0] = 9;
        assert_eq!(UndoRec::decode(&bad), None, "unknown kind");
        assert_eq!(UndoRec::decode(&r.encode()[..14]), None, "short");
        let no_before = UndoRec {
            before: Vec::new(),
            ..r
        };
        assert_eq!(
            UndoRec::decode(&no_before.encode()),
            None,
            "update without image"
        );
    }

    #[test]
    fn keys_sort_by_trx_then_undo_no_and_pointers_round_trip() {
        assert!(undo_key(5, u64::MAX) < undo_key(6, 0));
        assert!(undo_key(5, 1) < undo_key(5, 2));
        assert_eq!(
            parse_undo_key(&undo_key(0xABCDEF, 42)),
            Some((0xABCDEF, 42))
        );
        assert_eq!(parse_roll_ptr(roll_ptr(77, true)), (77, true));
        assert_eq!(
            parse_roll_ptr(roll_ptr(UNDO_NO_MAX, false)),
            (UNDO_NO_MAX, false)
        );
        assert!(roll_ptr(UNDO_NO_MAX, true) <= crate::row::ROLL_PTR_MAX);
    }
}
