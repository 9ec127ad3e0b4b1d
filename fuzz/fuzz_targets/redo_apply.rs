//! Redo records as recovery meets them: any bytes decode to records or a clean error;
//! a record that `check` accepts applies without panicking and leaves a node page
//! structurally valid (what recovery relies on between ops). A `RemoveRange` must
//! also leave the page exactly as the single `Remove`s it stands for.
#![no_main]
use kiln_storage::btree::node;
use kiln_storage::log::record::{self, Op, Record};
use kiln_storage::page::{PageBuf, PageId, PageType, page_type};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&start, rest)) = data.split_first() else {
        return;
    };
    let id = PageId::new(1, 7);
    let mut p = PageBuf::zeroed();
    // Blank, an empty leaf or internal node, or one holding a few records already
    // (so that ops on existing slots, like Overwrite and RemoveRange, are reached
    // without the input having to insert first).
    match start % 5 {
        0 => {}
        1 => node::init(&mut p.0, id, 5, 0),
        2 => node::init(&mut p.0, id, 5, 1),
        level => {
            let leaf = level == 3;
            node::init(&mut p.0, id, 5, u16::from(!leaf));
            for i in 0..(start / 5) % 24 {
                let key = [b'k', i];
                let value = vec![i; usize::from(i) * 3];
                let rec = if leaf {
                    node::leaf_record(&key, node::Stored::Inline(&value))
                } else {
                    node::internal_record(&key, u32::from(i))
                };
                node::insert_at(&mut p.0, usize::from(i), &rec);
            }
        }
    }
    let Ok(recs) = record::decode(rest) else {
        return;
    };
    for r in recs {
        let Record::Page(_, op) = r else { continue };
        if record::check(&p.0, &op).is_ok() {
            let before = (*p).0;
            record::apply(&mut p.0, id, &op);
            if let Op::RemoveRange { from, to } = op {
                let mut single = PageBuf::zeroed();
                single.0 = before;
                for pos in (from..to).rev() {
                    record::apply(&mut single.0, id, &Op::Remove { pos });
                }
                assert!(single.0 == p.0, "{op:?} differs from single removes");
            }
            if page_type(&p.0) == Some(PageType::Index) {
                if let Err(what) = node::validate(&p.0) {
                    panic!("{op:?} left the node invalid: {what}");
                }
            }
        }
    }
});
