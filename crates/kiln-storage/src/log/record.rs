//! Redo records: what a mini-transaction did to one page, and how to do it again.
//!
//! Every change to a page goes through `apply` — at run time (`Mtr::apply` applies the
//! op and appends its encoding) and in crash recovery (the decoded op is applied to
//! the page read from disk). One function for both means recovery cannot drift from
//! what the engine did. Ops are physiological: addressed to a page, and the node ops
//! (`Insert`, `Remove`, `Truncate`, `Overwrite`, `RemoveRange`) are deterministic
//! functions of the page bytes, so replaying them on the page as of the previous LSN
//! reproduces the page exactly.
//!
//! Encoding (little-endian), one record:
//!
//! ```text
//! op u8 | space u32 | page_no u32 | payload
//!   1 Write      off u16 | len u16 | bytes
//!   2 InitPage   type u16                    fresh common header, rest zeroed
//!   3 InitNode   index_id u64 | level u16    empty B+tree node
//!   4 Insert     pos u16 | len u16 | record  node::insert_at
//!   5 Remove     pos u16                     node::remove_at
//!   6 Truncate   from u16                    node: remove slots [from, n)
//!   7 Overwrite  pos u16 | off u16 | len u16 | bytes
//!                                            node::overwrite_at: bytes [off, off+len)
//!                                            of slot pos's record, value part only
//!   8 RemoveRange from u16 | to u16          node: remove slots [from, to), last first
//!                                            (= Remove to-1, …, Remove from)
//!  16 FileCreate (space, page_no = 0) path_len u16 | path   (not a page op)
//!  17 FileDelete (space, page_no = 0) path_len u16 | path   (not a page op)
//! ```

use crate::btree::node;
use crate::page::{self, PAGE_SIZE, PageId, PageType};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op<'a> {
    Write {
        off: u16,
        bytes: &'a [u8],
    },
    InitPage {
        ty: PageType,
    },
    InitNode {
        index_id: u64,
        level: u16,
    },
    Insert {
        pos: u16,
        rec: &'a [u8],
    },
    Remove {
        pos: u16,
    },
    Truncate {
        from: u16,
    },
    /// Same-length change of record `pos` in place: its bytes [off, off + len) become
    /// `bytes`. Only the value part (a leaf's stored bytes, an internal record's child)
    /// may change, so the slot's key and prefix stay right.
    Overwrite {
        pos: u16,
        off: u16,
        bytes: &'a [u8],
    },
    /// Removes slots [from, to), from the last to the first.
    RemoveRange {
        from: u16,
        to: u16,
    },
}

const OP_WRITE: u8 = 1;
const OP_INIT_PAGE: u8 = 2;
const OP_INIT_NODE: u8 = 3;
const OP_INSERT: u8 = 4;
const OP_REMOVE: u8 = 5;
const OP_TRUNCATE: u8 = 6;
const OP_OVERWRITE: u8 = 7;
const OP_REMOVE_RANGE: u8 = 8;
const OP_FILE_CREATE: u8 = 16;
const OP_FILE_DELETE: u8 = 17;

/// A decoded record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record<'a> {
    Page(PageId, Op<'a>),
    /// A tablespace file was created at `path` (relative to the data directory).
    FileCreate {
        space: u32,
        path: &'a str,
    },
    /// The tablespace was dropped: its file is to be deleted and its records skipped.
    FileDelete {
        space: u32,
        path: &'a str,
    },
}

/// Applies `op` to page `id`. Run time and recovery both come here.
pub fn apply(p: &mut [u8], id: PageId, op: &Op<'_>) {
    debug_assert_eq!(p.len(), PAGE_SIZE);
    match *op {
        Op::Write { off, bytes } => {
            let off = off as usize;
            assert!(
                off >= page::OFF_TYPE && off + bytes.len() <= PAGE_SIZE,
                "write outside the page body"
            );
            p[off..off + bytes.len()].copy_from_slice(bytes);
        }
        Op::InitPage { ty } => {
            p.fill(0);
            page::init_header(p, id, ty);
        }
        Op::InitNode { index_id, level } => node::init(p, id, index_id, level),
        Op::Insert { pos, rec } => node::insert_at(p, pos as usize, rec),
        Op::Remove { pos } => node::remove_at(p, pos as usize),
        Op::Truncate { from } => node::remove_range(p, from as usize, node::n_slots(p)),
        Op::Overwrite { pos, off, bytes } => {
            node::overwrite_at(p, pos as usize, off as usize, bytes)
        }
        Op::RemoveRange { from, to } => node::remove_range(p, from as usize, to as usize),
    }
}

/// Whether `op` can be applied to `p` (recovery checks before `apply`, so a record
/// that passed its group checksum but does not fit the page is an error, not a panic).
pub fn check(p: &[u8], op: &Op<'_>) -> Result<(), &'static str> {
    let node_op = matches!(
        op,
        Op::Insert { .. }
            | Op::Remove { .. }
            | Op::Truncate { .. }
            | Op::Overwrite { .. }
            | Op::RemoveRange { .. }
    );
    if node_op && page::page_type(p) != Some(PageType::Index) {
        return Err("node op on a page that is not a B+tree node");
    }
    let n = if node_op { node::n_slots(p) } else { 0 };
    if let Op::Write { off, bytes } = *op {
        let (a, b) = (off as usize, off as usize + bytes.len());
        // Page types change only by Init ops; in a node, only the sibling links and
        // `leftmost` are written directly (the rest is the node ops' business).
        let overlaps = |lo: usize, hi: usize| a < hi && lo < b;
        if overlaps(page::OFF_TYPE, page::OFF_PREV) {
            return Err("write over the page type");
        }
        if page::page_type(p) == Some(PageType::Index)
            && !(b <= page::HEADER_SIZE || (a >= node::OFF_LEFTMOST && b <= node::OFF_LEFTMOST + 4))
        {
            return Err("write into a node's structure");
        }
    }
    match *op {
        Op::Insert { pos, rec } => {
            let want = if node::is_leaf(p) {
                rec.len() >= node::LEAF_HEADER && {
                    let stored = u32::from_le_bytes([rec[3], rec[4], rec[5], rec[6]]) as usize;
                    let flags = rec[2];
                    // Known flags only; an overflow reference has its fixed size.
                    flags & !node::FLAG_OVERFLOW == 0
                        && (flags & node::FLAG_OVERFLOW == 0 || stored == node::OVERFLOW_REF_LEN)
                        && node::LEAF_HEADER
                            + u16::from_le_bytes([rec[0], rec[1]]) as usize
                            + stored
                            == rec.len()
                }
            } else {
                rec.len() >= node::INTERNAL_HEADER
                    && node::INTERNAL_HEADER + u16::from_le_bytes([rec[0], rec[1]]) as usize
                        == rec.len()
            };
            if !want {
                return Err("malformed record");
            }
            if pos as usize > n || !node::has_room(p, rec.len()) {
                return Err("insert does not fit the page");
            }
        }
        Op::InitPage {
            ty: PageType::Index,
        } => return Err("B+tree nodes are formatted by InitNode"),
        Op::Remove { pos } if pos as usize >= n => return Err("remove past the last slot"),
        Op::Truncate { from } if from as usize > n => return Err("truncate past the last slot"),
        Op::RemoveRange { from, to } if from > to || to as usize > n => {
            return Err("remove range outside the slots");
        }
        Op::Overwrite { pos, .. } if pos as usize >= n => {
            return Err("overwrite past the last slot");
        }
        Op::Overwrite { pos, off, bytes } => {
            let (lo, hi) = node::value_span(p, pos as usize);
            let (a, b) = (off as usize, off as usize + bytes.len());
            if a < lo || b > hi {
                return Err("overwrite outside the record's value");
            }
        }
        _ => {}
    }
    Ok(())
}

fn head(out: &mut Vec<u8>, op: u8, id: PageId) {
    out.push(op);
    out.extend_from_slice(&id.space.to_le_bytes());
    out.extend_from_slice(&id.page_no.to_le_bytes());
}

pub fn encode(out: &mut Vec<u8>, id: PageId, op: &Op<'_>) {
    match *op {
        Op::Write { off, bytes } => {
            head(out, OP_WRITE, id);
            out.extend_from_slice(&off.to_le_bytes());
            out.extend_from_slice(&(bytes.len() as u16).to_le_bytes());
            out.extend_from_slice(bytes);
        }
        Op::InitPage { ty } => {
            head(out, OP_INIT_PAGE, id);
            out.extend_from_slice(&(ty as u16).to_le_bytes());
        }
        Op::InitNode { index_id, level } => {
            head(out, OP_INIT_NODE, id);
            out.extend_from_slice(&index_id.to_le_bytes());
            out.extend_from_slice(&level.to_le_bytes());
        }
        Op::Insert { pos, rec } => {
            head(out, OP_INSERT, id);
            out.extend_from_slice(&pos.to_le_bytes());
            out.extend_from_slice(&(rec.len() as u16).to_le_bytes());
            out.extend_from_slice(rec);
        }
        Op::Remove { pos } => {
            head(out, OP_REMOVE, id);
            out.extend_from_slice(&pos.to_le_bytes());
        }
        Op::Truncate { from } => {
            head(out, OP_TRUNCATE, id);
            out.extend_from_slice(&from.to_le_bytes());
        }
        Op::Overwrite { pos, off, bytes } => {
            head(out, OP_OVERWRITE, id);
            out.extend_from_slice(&pos.to_le_bytes());
            out.extend_from_slice(&off.to_le_bytes());
            out.extend_from_slice(&(bytes.len() as u16).to_le_bytes());
            out.extend_from_slice(bytes);
        }
        Op::RemoveRange { from, to } => {
            head(out, OP_REMOVE_RANGE, id);
            out.extend_from_slice(&from.to_le_bytes());
            out.extend_from_slice(&to.to_le_bytes());
        }
    }
}

pub fn encode_file_create(out: &mut Vec<u8>, space: u32, path: &str) {
    assert!(path.len() <= u16::MAX as usize);
    head(out, OP_FILE_CREATE, PageId::new(space, 0));
    out.extend_from_slice(&(path.len() as u16).to_le_bytes());
    out.extend_from_slice(path.as_bytes());
}

pub fn encode_file_delete(out: &mut Vec<u8>, space: u32, path: &str) {
    assert!(path.len() <= u16::MAX as usize);
    head(out, OP_FILE_DELETE, PageId::new(space, 0));
    out.extend_from_slice(&(path.len() as u16).to_le_bytes());
    out.extend_from_slice(path.as_bytes());
}

/// Why a log payload could not be decoded. A group whose checksum matched but whose
/// records do not parse means a bug or a foreign file: recovery stops and says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    pub offset: usize,
    pub what: &'static str,
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if self.b.len() - self.at < n {
            return Err(DecodeError {
                offset: self.at,
                what: "record runs past the group",
            });
        }
        let s = &self.b[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }
    fn u16(&mut self) -> Result<u16, DecodeError> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().unwrap()))
    }
    fn u32(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn u64(&mut self) -> Result<u64, DecodeError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
}

/// Decodes every record of one group's payload. Structural checks only: page ops
/// are checked against the page by `check` before recovery applies them.
pub fn decode(payload: &[u8]) -> Result<Vec<Record<'_>>, DecodeError> {
    let mut r = Reader { b: payload, at: 0 };
    let mut out = Vec::new();
    while r.at < payload.len() {
        let start = r.at;
        let op = r.take(1)?[0];
        let id = PageId::new(r.u32()?, r.u32()?);
        let bad = |what| DecodeError {
            offset: start,
            what,
        };
        let rec = match op {
            OP_WRITE => {
                let off = r.u16()?;
                let len = r.u16()? as usize;
                if (off as usize) < page::OFF_TYPE || off as usize + len > PAGE_SIZE {
                    return Err(bad("write outside the page body"));
                }
                Record::Page(
                    id,
                    Op::Write {
                        off,
                        bytes: r.take(len)?,
                    },
                )
            }
            OP_INIT_PAGE => {
                let ty = PageType::from_u16(r.u16()?).ok_or(bad("unknown page type"))?;
                Record::Page(id, Op::InitPage { ty })
            }
            OP_INIT_NODE => Record::Page(
                id,
                Op::InitNode {
                    index_id: r.u64()?,
                    level: r.u16()?,
                },
            ),
            OP_INSERT => {
                let pos = r.u16()?;
                let len = r.u16()? as usize;
                if len > node::RECORD_MAX {
                    return Err(bad("record longer than RECORD_MAX"));
                }
                Record::Page(
                    id,
                    Op::Insert {
                        pos,
                        rec: r.take(len)?,
                    },
                )
            }
            OP_REMOVE => Record::Page(id, Op::Remove { pos: r.u16()? }),
            OP_TRUNCATE => Record::Page(id, Op::Truncate { from: r.u16()? }),
            OP_OVERWRITE => {
                let pos = r.u16()?;
                let off = r.u16()?;
                let len = r.u16()? as usize;
                if off as usize + len > node::RECORD_MAX {
                    return Err(bad("overwrite past RECORD_MAX"));
                }
                Record::Page(
                    id,
                    Op::Overwrite {
                        pos,
                        off,
                        bytes: r.take(len)?,
                    },
                )
            }
            OP_REMOVE_RANGE => {
                let (from, to) = (r.u16()?, r.u16()?);
                if from > to {
                    return Err(bad("remove range ends before it starts"));
                }
                Record::Page(id, Op::RemoveRange { from, to })
            }
            OP_FILE_CREATE | OP_FILE_DELETE => {
                let len = r.u16()? as usize;
                let path =
                    std::str::from_utf8(r.take(len)?).map_err(|_| bad("file name is not UTF-8"))?;
                if op == OP_FILE_CREATE {
                    Record::FileCreate {
                        space: id.space,
                        path,
                    }
                } else {
                    Record::FileDelete {
                        space: id.space,
                        path,
                    }
                }
            }
            _ => return Err(bad("unknown op")),
        };
        out.push(rec);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_decode_round_trip() {
        let id = PageId::new(3, 9);
        let ops = [
            Op::Write {
                off: 40,
                bytes: b"abc",
            },
            Op::InitPage { ty: PageType::Free },
            Op::InitNode {
                index_id: 77,
                level: 2,
            },
            Op::Insert {
                pos: 3,
                rec: b"0123456789",
            },
            Op::Remove { pos: 1 },
            Op::Truncate { from: 5 },
            Op::Overwrite {
                pos: 4,
                off: 11,
                bytes: b"xyz",
            },
            Op::RemoveRange { from: 2, to: 6 },
        ];
        let mut b = Vec::new();
        for op in &ops {
            encode(&mut b, id, op);
        }
        encode_file_create(&mut b, 12, "db/t.ibd");
        encode_file_delete(&mut b, 12, "db/t.ibd");
        let recs = decode(&b).unwrap();
        assert_eq!(recs.len(), ops.len() + 2);
        for (r, op) in recs.iter().zip(ops.iter()) {
            assert_eq!(r, &Record::Page(id, op.clone()));
        }
        assert_eq!(
            recs[ops.len()],
            Record::FileCreate {
                space: 12,
                path: "db/t.ibd"
            }
        );
        assert_eq!(
            recs[ops.len() + 1],
            Record::FileDelete {
                space: 12,
                path: "db/t.ibd"
            }
        );
        for cut in 1..b.len() {
            let _ = decode(&b[..cut]); // never panics
        }
        assert!(decode(&[99, 0, 0, 0, 0, 0, 0, 0, 0]).is_err());
        let mut b = Vec::new();
        encode(&mut b, id, &Op::RemoveRange { from: 3, to: 2 });
        assert!(decode(&b).is_err(), "a range that ends before it starts");
    }

    /// Encoded sizes, as docs/redo-log.md gives them.
    #[test]
    fn encoded_sizes() {
        let id = PageId::new(1, 2);
        let len = |op: &Op<'_>| {
            let mut b = Vec::new();
            encode(&mut b, id, op);
            b.len()
        };
        assert_eq!(len(&Op::Remove { pos: 0 }), 11);
        assert_eq!(
            len(&Op::Insert {
                pos: 0,
                rec: &[0; 100]
            }),
            113
        );
        let bytes = &[0; 20];
        assert_eq!(
            len(&Op::Overwrite {
                pos: 0,
                off: 7,
                bytes
            }),
            35
        );
        assert_eq!(len(&Op::RemoveRange { from: 0, to: 9 }), 13);
    }

    /// A leaf (or internal node, for odd seeds) filled with random records, some
    /// removed again so that the heap has garbage and holes.
    fn random_node(seed: u64) -> Box<crate::page::PageBuf> {
        let mut rng = crate::rng::Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut p = crate::page::PageBuf::zeroed();
        let id = PageId::new(1, 2);
        node::init(&mut p.0, id, 1, (seed % 2) as u16);
        for _ in 0..400 {
            let key = format!("{:06}", rng.below(100_000)).into_bytes();
            let rec = if seed.is_multiple_of(2) {
                let v = vec![rng.below(256) as u8; rng.below(200) as usize];
                node::leaf_record(&key, node::Stored::Inline(&v))
            } else {
                node::internal_record(&key, rng.below(1000) as u32)
            };
            if let Err(i) = node::search(&p.0, &key)
                && node::has_room(&p.0, rec.len())
            {
                apply(
                    &mut p.0,
                    id,
                    &Op::Insert {
                        pos: i as u16,
                        rec: &rec,
                    },
                );
            }
            let n = node::n_slots(&p.0);
            if n > 0 && rng.below(4) == 0 {
                let pos = rng.below(n as u64) as u16;
                apply(&mut p.0, id, &Op::Remove { pos });
            }
        }
        p
    }

    fn copy(p: &crate::page::PageBuf) -> Box<crate::page::PageBuf> {
        let mut b = crate::page::PageBuf::zeroed();
        b.0.copy_from_slice(&p.0);
        b
    }

    /// `RemoveRange { from, to }` leaves the page byte for byte as the `Remove`s it
    /// replaces (`to - 1` down to `from`) do, on random pages and ranges, including
    /// empty ones, ranges at either end and the whole node.
    #[test]
    fn remove_range_is_byte_identical_to_single_removes() {
        let id = PageId::new(1, 2);
        for seed in 0..200u64 {
            let page = random_node(seed);
            let n = node::n_slots(&page.0);
            let mut rng = crate::rng::Rng(seed + 7);
            let mut ranges = vec![(0, n), (0, 0), (n, n)];
            for _ in 0..8 {
                let a = rng.below(n as u64 + 1) as usize;
                let b = a + rng.below((n - a) as u64 + 1) as usize;
                ranges.push((a, b));
            }
            for (from, to) in ranges {
                let (from, to) = (from as u16, to as u16);
                let mut one = copy(&page);
                let op = Op::RemoveRange { from, to };
                assert!(check(&one.0, &op).is_ok());
                apply(&mut one.0, id, &op);
                let mut many = copy(&page);
                for pos in (from..to).rev() {
                    let op = Op::Remove { pos };
                    assert!(check(&many.0, &op).is_ok());
                    apply(&mut many.0, id, &op);
                }
                assert!(one.0 == many.0, "seed {seed}: [{from}, {to}) of {n}");
                node::check(&one.0);
            }
            assert!(
                check(
                    &page.0,
                    &Op::RemoveRange {
                        from: 0,
                        to: n as u16 + 1
                    }
                )
                .is_err()
            );
        }
    }

    /// `replace_kind` + `Overwrite` give the page the new record where remove +
    /// insert would, without moving anything else; framing changes are refused.
    #[test]
    fn overwrite_changes_only_the_value_span() {
        let id = PageId::new(1, 2);
        for seed in 0..100u64 {
            let page = random_node(seed);
            let n = node::n_slots(&page.0);
            if n == 0 {
                continue;
            }
            let mut rng = crate::rng::Rng(seed + 11);
            let pos = rng.below(n as u64) as usize;
            let old = node::record(&page.0, pos).to_vec();
            let (lo, hi) = node::value_span(&page.0, pos);
            let mut new = old.clone();
            for _ in 0..rng.below(4) {
                if lo < hi {
                    let at = lo + rng.below((hi - lo) as u64) as usize;
                    new[at] ^= 1 + rng.below(255) as u8;
                }
            }
            let mut p = copy(&page);
            match node::replace_kind(&p.0, pos, &new) {
                node::Replace::Same => assert_eq!(new, old),
                node::Replace::InPlace { at, len } => {
                    assert!(lo <= at && at + len <= hi && len > 0);
                    assert_eq!(new[..at], old[..at]);
                    assert_eq!(new[at + len..], old[at + len..]);
                    let op = Op::Overwrite {
                        pos: pos as u16,
                        off: at as u16,
                        bytes: &new[at..at + len],
                    };
                    assert!(check(&p.0, &op).is_ok());
                    apply(&mut p.0, id, &op);
                    assert_eq!(node::record(&p.0, pos), &new[..]);
                    let changed = (0..PAGE_SIZE).filter(|&i| p.0[i] != page.0[i]).count();
                    assert!(changed <= len, "only the span changed");
                    node::check(&p.0);
                }
                node::Replace::Move => panic!("a value change is done in place"),
            }
            // The key, the header and a longer record are not overwritten in place.
            let mut key_changed = old.clone();
            key_changed[lo - 1] ^= 1;
            assert_eq!(
                node::replace_kind(&page.0, pos, &key_changed),
                node::Replace::Move
            );
            let mut longer = old.clone();
            longer.push(0);
            assert_eq!(
                node::replace_kind(&page.0, pos, &longer),
                node::Replace::Move
            );
            let op = Op::Overwrite {
                pos: pos as u16,
                off: (lo - 1) as u16,
                bytes: &[0],
            };
            assert!(check(&page.0, &op).is_err(), "overwrite of the key");
            let op = Op::Overwrite {
                pos: pos as u16,
                off: hi as u16,
                bytes: &[0],
            };
            assert!(check(&page.0, &op).is_err(), "overwrite past the record");
            let op = Op::Overwrite {
                pos: n as u16,
                off: lo as u16,
                bytes: &[],
            };
            assert!(check(&page.0, &op).is_err(), "overwrite past the slots");
        }
    }

    #[test]
    fn check_refuses_what_recovery_must_not_apply() {
        use crate::page::PageBuf;
        let id = PageId::new(1, 2);
        let mut p = PageBuf::zeroed();
        // Found by the redo_apply fuzzer: an Index page without a node body.
        assert!(
            check(
                &p.0,
                &Op::InitPage {
                    ty: PageType::Index
                }
            )
            .is_err()
        );
        assert!(
            check(
                &p.0,
                &Op::Insert {
                    pos: 0,
                    rec: b"\x01\x00\x00\x01\x00\x00\x00kv"
                }
            )
            .is_err(),
            "node op on a non-node"
        );
        node::init(&mut p.0, id, 1, 0);
        assert!(
            check(
                &p.0,
                &Op::Write {
                    off: 34,
                    bytes: &[9, 9]
                }
            )
            .is_err(),
            "n_slots is not written directly"
        );
        assert!(
            check(
                &p.0,
                &Op::Write {
                    off: 20,
                    bytes: &[0]
                }
            )
            .is_err(),
            "nor the page type"
        );
        assert!(
            check(
                &p.0,
                &Op::Write {
                    off: 28,
                    bytes: &[1, 2, 3, 4]
                }
            )
            .is_ok(),
            "next link"
        );
        assert!(
            check(
                &p.0,
                &Op::Write {
                    off: 48,
                    bytes: &[1, 2, 3, 4]
                }
            )
            .is_ok(),
            "leftmost"
        );
        assert!(check(&p.0, &Op::Remove { pos: 0 }).is_err());
        let rec = node::leaf_record(b"k", node::Stored::Inline(b"v"));
        assert!(
            check(&p.0, &Op::Insert { pos: 1, rec: &rec }).is_err(),
            "past the end"
        );
        assert!(
            check(
                &p.0,
                &Op::Insert {
                    pos: 0,
                    rec: &rec[..rec.len() - 1]
                }
            )
            .is_err(),
            "malformed"
        );
        assert!(check(&p.0, &Op::Insert { pos: 0, rec: &rec }).is_ok());
        // Found by the fuzzer: an overflow flag on a value that is not a reference.
        assert!(
            check(
                &p.0,
                &Op::Insert {
                    pos: 0,
                    rec: &[0, 0, 1, 0, 0, 0, 0]
                }
            )
            .is_err()
        );
        assert!(
            check(
                &p.0,
                &Op::Insert {
                    pos: 0,
                    rec: &[0, 0, 2, 0, 0, 0, 0]
                }
            )
            .is_err(),
            "unknown flag"
        );
    }
}
