//! A redo log whose ring (from the checkpoint on) and, sometimes, checkpoint slots hold
//! arbitrary bytes: opening and scanning it ends in groups or a clean end/error, never
//! a panic or an unbounded allocation.
#![no_main]
use std::path::Path;

use kiln_storage::io::Vfs;
use kiln_storage::io::mem::MemVfs;
use kiln_storage::log::{CAPACITY_MIN, LSN_START, Log, Scanner};
use libfuzzer_sys::fuzz_target;

/// Where the ring starts in the file (after the header block and two checkpoint slots).
const RING_OFF: u64 = 12288;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let vfs = MemVfs::new();
    let f = vfs.open(Path::new("/redo"), true).unwrap();
    drop(Log::create(f.clone(), CAPACITY_MIN).unwrap());
    if mode & 1 == 1 && rest.len() >= 64 {
        // Mangle the checkpoint slots with the first bytes.
        f.write_at(&rest[..32], 4096).unwrap();
        f.write_at(&rest[32..64], 8192).unwrap();
    }
    // The rest lands in the ring at the checkpoint (wrapping like the ring does).
    let pos = LSN_START % CAPACITY_MIN;
    let first = rest.len().min((CAPACITY_MIN - pos) as usize);
    f.write_at(&rest[..first], RING_OFF + pos).unwrap();
    if first < rest.len() {
        f.write_at(&rest[first..], RING_OFF).unwrap();
    }
    let Ok((capacity, ckpt)) = Log::open(f.clone()) else {
        return;
    };
    let mut s = Scanner::new(f, capacity, ckpt);
    for _ in 0..1000 {
        match s.next_group() {
            Ok(Some(g)) => {
                let _ = kiln_storage::log::record::decode(&g.payload);
            }
            _ => break,
        }
    }
});
