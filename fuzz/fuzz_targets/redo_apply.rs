//! Redo records as recovery meets them: any bytes decode to records or a clean error;
//! a record that `check` accepts applies without panicking and leaves a node page
//! structurally valid (what recovery relies on between ops).
#![no_main]
use kiln_storage::btree::node;
use kiln_storage::log::record::{self, Record};
use kiln_storage::page::{PageBuf, PageId, PageType, page_type};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&start, rest)) = data.split_first() else {
        return;
    };
    let id = PageId::new(1, 7);
    let mut p = PageBuf::zeroed();
    match start % 3 {
        0 => {}
        1 => node::init(&mut p.0, id, 5, 0),
        _ => node::init(&mut p.0, id, 5, 1),
    }
    let Ok(recs) = record::decode(rest) else {
        return;
    };
    for r in recs {
        let Record::Page(_, op) = r else { continue };
        if record::check(&p.0, &op).is_ok() {
            record::apply(&mut p.0, id, &op);
            if page_type(&p.0) == Some(PageType::Index) {
                if let Err(what) = node::validate(&p.0) {
                    panic!("{op:?} left the node invalid: {what}");
                }
            }
        }
    }
});
