//! Fault injection: I/O errors on read/write/fsync, short writes, a full disk.
//! The rules: never acknowledge a commit that is not durable; never serve a page that
//! failed its read or checksum; never panic; after the fault clears and kiln restarts,
//! everything acknowledged is there.

mod common;

use common::*;
use kiln_storage::btree::TreeError;
use kiln_storage::buf::BufError;
use kiln_storage::engine::StorageError;
use kiln_storage::io::mem::{CrashMode, Faults, MemVfs};
use kiln_storage::log::LogError;

fn acked_then_fault(faults: Faults) {
    let vfs = MemVfs::new();
    let cfg = config(128, 2 << 20, false);
    let e = open(&vfs, &cfg);
    let s = e.create_space("f.ibd").unwrap();
    let t = e.create_tree(&s, 1).unwrap();
    let mut acked = Model::new();
    for i in 0..200u32 {
        let lsn = t.upsert(&i.to_be_bytes(), &[1u8; 80]).unwrap();
        e.sync_to(lsn).unwrap();
        acked.insert(i.to_be_bytes().to_vec(), vec![1u8; 80]);
    }
    vfs.set_faults(faults.clone());
    let lsn = t.upsert(b"zz-not-durable", b"v").unwrap();
    let err = e
        .sync_to(lsn)
        .expect_err("a commit whose log write failed is not acknowledged");
    assert!(matches!(err, StorageError::Log(LogError::Io(_))), "{err:?}");
    assert!(e.log().has_failed());
    // The fault clears, but the log stays stopped: the lost bytes may be a hole.
    vfs.set_faults(Faults::default());
    let lsn = t.upsert(b"zz-after", b"v").unwrap();
    assert!(matches!(
        e.sync_to(lsn),
        Err(StorageError::Log(LogError::Failed(_)))
    ));
    assert!(e.checkpoint().is_err(), "no checkpoint past a failed log");
    drop((t, s));
    let e = crash_and_reopen(&vfs, &cfg, e, CrashMode::DropUnsynced);
    let t = e.open_tree(&e.space(1).unwrap(), 1).unwrap().unwrap();
    let got = dump(&t);
    for (k, v) in &acked {
        assert_eq!(got.get(k), Some(v), "acknowledged key {k:?} lost");
    }
    t.check().unwrap();
}

#[test]
fn failed_log_write_stops_acknowledging() {
    acked_then_fault(Faults {
        fail_writes: true,
        ..Faults::default()
    });
}

#[test]
fn failed_log_fsync_stops_acknowledging() {
    acked_then_fault(Faults {
        fail_syncs: true,
        ..Faults::default()
    });
}

#[test]
fn short_log_write_stops_acknowledging() {
    acked_then_fault(Faults {
        short_write_bytes: Some(5),
        ..Faults::default()
    });
}

#[test]
fn read_errors_are_errors_not_pages() {
    let vfs = MemVfs::new();
    let cfg = config(32, 2 << 20, false); // small pool: lookups must read
    let e = open(&vfs, &cfg);
    let s = e.create_space("r.ibd").unwrap();
    let t = e.create_tree(&s, 1).unwrap();
    for i in 0..20_000u32 {
        t.insert(&i.to_be_bytes(), &[9u8; 100]).unwrap();
    }
    e.pool().flush_all(None).unwrap();
    // Push the tree out of the pool by reading another tablespace's pages.
    let s2 = e.create_space("r2.ibd").unwrap();
    let t2 = e.create_tree(&s2, 1).unwrap();
    for i in 0..20_000u32 {
        t2.insert(&i.to_be_bytes(), &[8u8; 100]).unwrap();
    }
    e.pool().flush_all(None).unwrap();
    vfs.set_faults(Faults {
        fail_reads: true,
        ..Faults::default()
    });
    let mut errors = 0;
    for i in (0..20_000u32).step_by(97) {
        match t.get(&i.to_be_bytes()) {
            Ok(v) => assert_eq!(v, Some(vec![9u8; 100])), // cached
            Err(TreeError::Buf(BufError::Io(..))) => errors += 1,
            Err(e) => panic!("{e}"),
        }
    }
    assert!(errors > 0, "some lookups needed the disk");
    vfs.set_faults(Faults::default());
    for i in (0..20_000u32).step_by(97) {
        assert_eq!(
            t.get(&i.to_be_bytes()).unwrap(),
            Some(vec![9u8; 100]),
            "a failed read left no bad frame behind"
        );
    }
    t.check().unwrap();
}

#[test]
fn failed_page_writes_keep_pages_dirty_and_commits_durable() {
    let vfs = MemVfs::new();
    let cfg = config(128, 4 << 20, false);
    let e = open(&vfs, &cfg);
    let s = e.create_space("w.ibd").unwrap();
    let t = e.create_tree(&s, 1).unwrap();
    let mut model = Model::new();
    for i in 0..500u32 {
        t.insert(&i.to_be_bytes(), &[2u8; 100]).unwrap();
        model.insert(i.to_be_bytes().to_vec(), vec![2u8; 100]);
    }
    e.sync_to(e.log().current_lsn()).unwrap();
    // Data-file fsyncs fail (the log is already durable, so it is not touched).
    vfs.set_faults(Faults {
        fail_syncs: true,
        ..Faults::default()
    });
    assert!(e.pool().flush_all(None).is_err());
    assert!(
        e.pool().dirty_pages() > 0,
        "pages whose write failed stay dirty"
    );
    vfs.set_faults(Faults::default());
    drop((t, s));
    let e = crash_and_reopen(&vfs, &cfg, e, CrashMode::DropUnsynced);
    let t = e.open_tree(&e.space(1).unwrap(), 1).unwrap().unwrap();
    assert_eq!(dump(&t), model);
}

#[test]
fn full_disk_fails_inserts_cleanly() {
    let vfs = MemVfs::new();
    let cfg = config(256, 2 << 20, false);
    let e = open(&vfs, &cfg);
    let s = e.create_space("full.ibd").unwrap();
    let t = e.create_tree(&s, 1).unwrap();
    // The disk is full right after what exists now.
    let used = vfs_used(&vfs);
    vfs.set_faults(Faults {
        capacity_bytes: Some(used),
        ..Faults::default()
    });
    let mut model = Model::new();
    let mut failed = 0;
    for i in 0..20_000u32 {
        let k = i.to_be_bytes();
        match t.insert(&k, &[5u8; 200]) {
            Ok(_) => {
                model.insert(k.to_vec(), vec![5u8; 200]);
            }
            Err(TreeError::Buf(BufError::Io(_, e))) => {
                assert_eq!(e.raw_os_error(), Some(libc::ENOSPC));
                failed += 1;
            }
            Err(e) => panic!("{e}"),
        }
        if failed > 50 {
            break;
        }
    }
    assert!(failed > 0, "the disk filled up");
    t.check().unwrap();
    assert_eq!(dump(&t), model, "a failed insert left nothing behind");
    // Space comes back: inserts work again.
    vfs.set_faults(Faults::default());
    t.insert(b"\xff\xff\xff\xff-after", b"ok").unwrap();
    t.check().unwrap();
}

fn vfs_used(vfs: &MemVfs) -> u64 {
    use kiln_storage::io::Vfs;
    let dir = std::path::Path::new(DIR);
    ["ibdata1", "ib_redo0", "full.ibd"]
        .iter()
        .map(|f| vfs.open(&dir.join(f), false).unwrap().len().unwrap())
        .sum()
}
