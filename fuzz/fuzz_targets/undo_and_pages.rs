//! Decoders that see bytes from disk or from a page being written under them:
//! undo records, undo keys and roll pointers (from the rollback segments), secondary
//! entry values, and the latch-free node search over a page of arbitrary (torn) bytes.
//! None may panic or loop; a decoded undo record re-encodes to the same bytes.
#![no_main]
use kiln_storage::btree::node;
use kiln_storage::buf::optimistic::OptPage;
use kiln_storage::page::{PAGE_SIZE, PageBuf};
use kiln_storage::trx::undo::{UndoRec, parse_roll_ptr, parse_undo_key, roll_ptr};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(rec) = UndoRec::decode(data) {
        assert_eq!(rec.encode(), data, "undo records round-trip");
    }
    let _ = parse_undo_key(data);
    if data.len() >= 8 {
        let p = u64::from_le_bytes(data[..8].try_into().unwrap());
        let (no, insert) = parse_roll_ptr(p);
        assert_eq!(parse_roll_ptr(roll_ptr(no, insert)), (no, insert));
    }
    // A page of these bytes, searched as if read without a latch mid-write.
    let mut page = PageBuf::zeroed();
    let n = data.len().min(PAGE_SIZE);
    page.0[..n].copy_from_slice(&data[..n]);
    let key: &[u8] = data.get(n.saturating_sub(16)..n).unwrap_or(&[]);
    let p = OptPage::of(&page);
    let _ = node::search(&p, key);
    let _ = node::child_for(&p, key);
    let _ = node::leaf_get_opt(&p, key);
    let _ = node::is_node_opt(&p, 1, Some(0));
});
