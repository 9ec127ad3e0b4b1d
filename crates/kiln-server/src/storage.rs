//! The storage engine inside the server: opening it on the data directory with the
//! innodb_* options (recovering after a crash, and saying so in the error log), then
//! its transaction system (rolling back what the crash left active, in the
//! background), following `SET GLOBAL innodb_flush_log_at_trx_commit` and
//! `innodb_deadlock_detect`, its status counters, and its clean shutdown.

use std::path::Path;
use std::sync::Arc;

use kiln_storage::buf::PoolConfig;
use kiln_storage::engine::{Engine, EngineConfig};
use kiln_storage::io::os::OsVfs;
use kiln_storage::trx::{TrxConfig, TrxEngine};

use crate::errlog;
use crate::vars::Globals;

/// Opens (creating or recovering) the engine in `datadir`.
pub fn open(datadir: &Path, globals: &Globals) -> Result<Arc<Engine>, String> {
    let u = |name: &str, default: u64| globals.u64(name).unwrap_or(default);
    let config = EngineConfig {
        pool: PoolConfig {
            size_bytes: u("innodb_buffer_pool_size", 128 << 20) as usize,
            instances: u("innodb_buffer_pool_instances", 8) as usize,
            old_blocks_pct: u("innodb_old_blocks_pct", 37) as usize,
            old_blocks_time_ms: u("innodb_old_blocks_time", 1000),
            native_aio: globals.bool("innodb_use_native_aio").unwrap_or(true),
            io_threads: u("innodb_write_io_threads", 4).max(u("innodb_read_io_threads", 4))
                as usize,
            read_ahead: u("innodb_read_ahead_threshold", 56) > 0,
            huge_pages: globals.bool("large_pages").unwrap_or(false),
        },
        // The ring is a whole number of 4 KiB blocks.
        log_capacity: u("innodb_redo_log_capacity", 100 << 20) / 4096 * 4096,
        doublewrite: globals.bool("innodb_doublewrite").unwrap_or(true),
        max_dirty_pages_pct: u("innodb_max_dirty_pages_pct", 90) as f64,
        io_capacity: u("innodb_io_capacity", 200) as usize,
        page_cleaner: true,
        flush_log_at_trx_commit: u("innodb_flush_log_at_trx_commit", 1) as u8,
        progress: Some(errlog::system),
    };
    let method = globals
        .string("innodb_flush_method")
        .unwrap_or_else(|| "O_DIRECT".into());
    let direct = method.starts_with("O_DIRECT");
    let vfs = Arc::new(OsVfs { direct });
    let engine = Engine::open(vfs, datadir, config.clone())
        .map_err(|e| format!("kiln storage: cannot open the data directory: {e}"))?;
    let r = &engine.startup;
    if r.created {
        errlog::system(&format!(
            "kiln storage: created ibdata1 and a {} MB redo log (ib_redo0)",
            config.log_capacity >> 20
        ));
    } else if r.redo_groups > 0 {
        errlog::system(&format!(
            "kiln storage: crash recovery from checkpoint LSN {}: {:.1} MB of redo, {} mini-transactions, {} pages, {} records applied, {} pages restored from the doublewrite area, in {:.2} s",
            r.checkpoint_lsn,
            r.redo_bytes as f64 / (1 << 20) as f64,
            r.redo_groups,
            r.pages_recovered,
            r.records_applied,
            r.doublewrite_restored,
            r.elapsed.as_secs_f64()
        ));
    }
    let io = engine.pool().io();
    if !io.is_native() {
        globals.set_internal("innodb_use_native_aio", kiln_sql::value::Value::Int(0));
    }
    errlog::system(&format!(
        "kiln storage: buffer pool {} MB in {} instance(s), page I/O via {}, flush method {method}, log at LSN {}",
        config.pool.size_bytes >> 20,
        config.pool.instances,
        io.name(),
        r.end_lsn
    ));
    let weak = Arc::downgrade(&engine);
    globals.observe(move |var, value| {
        if var.name == "innodb_flush_log_at_trx_commit"
            && let (Some(e), Some(mode)) = (weak.upgrade(), value.to_i64())
        {
            e.set_flush_log_at_trx_commit(mode as u8);
        }
    });
    Ok(engine)
}

/// Opens the transaction system on `engine` with the innodb_* options.
pub fn open_trx(engine: &Arc<Engine>, globals: &Globals) -> Result<Arc<TrxEngine>, String> {
    let u = |name: &str, default: u64| globals.u64(name).unwrap_or(default);
    let config = TrxConfig {
        rollback_segments: u("innodb_rollback_segments", 128) as usize,
        undo_tablespaces: u("innodb_undo_tablespaces", 2) as usize,
        lock_wait_timeout: std::time::Duration::from_secs(u("innodb_lock_wait_timeout", 50)),
        purge_threads: u("innodb_purge_threads", 4) as usize,
        background_rollback: true,
        deadlock_detect: globals.bool("innodb_deadlock_detect").unwrap_or(true),
        rollback_on_timeout: globals.bool("innodb_rollback_on_timeout").unwrap_or(false),
        max_purge_lag: u("innodb_max_purge_lag", 0),
        max_purge_lag_delay_us: u("innodb_max_purge_lag_delay", 0),
    };
    let te = TrxEngine::open(engine.clone(), config)
        .map_err(|e| format!("kiln storage: cannot open the transaction system: {e}"))?;
    let recovering = te.recovering();
    if recovering > 0 {
        errlog::system(&format!(
            "kiln storage: rolling back {recovering} transaction(s) left active by the crash, in the background"
        ));
    }
    let weak = Arc::downgrade(&te);
    globals.observe(move |var, value| {
        if var.name == "innodb_deadlock_detect"
            && let (Some(te), Some(on)) = (weak.upgrade(), value.to_i64())
        {
            te.locks
                .detect_deadlocks
                .store(on != 0, std::sync::atomic::Ordering::Relaxed);
        }
    });
    Ok(te)
}

/// SHOW GLOBAL STATUS rows of the transaction system (MySQL's and MariaDB's names).
pub fn trx_status(te: &TrxEngine) -> Vec<(String, String)> {
    let relaxed = std::sync::atomic::Ordering::Relaxed;
    let l = &te.locks.stats;
    let waits = l.waits.load(relaxed);
    let wait_ms = l.wait_us.load(relaxed) / 1000;
    let current = te
        .transactions()
        .iter()
        .filter(|t| t.waiting_for.is_some())
        .count();
    vec![
        (
            "Innodb_deadlocks".into(),
            l.deadlocks.load(relaxed).to_string(),
        ),
        (
            "Innodb_history_list_length".into(),
            te.history_len().to_string(),
        ),
        ("Innodb_row_lock_current_waits".into(), current.to_string()),
        ("Innodb_row_lock_time".into(), wait_ms.to_string()),
        (
            "Innodb_row_lock_time_avg".into(),
            wait_ms.checked_div(waits).unwrap_or(0).to_string(),
        ),
        ("Innodb_row_lock_waits".into(), waits.to_string()),
    ]
}

/// SHOW GLOBAL STATUS rows of the engine (MySQL's names).
pub fn status(engine: &Engine) -> Vec<(String, String)> {
    let pool = engine.pool();
    let log = engine.log();
    let st = &pool.stats;
    let ls = &log.stats;
    let relaxed = std::sync::atomic::Ordering::Relaxed;
    vec![
        (
            "Innodb_buffer_pool_pages_dirty".into(),
            pool.dirty_pages().to_string(),
        ),
        (
            "Innodb_buffer_pool_pages_flushed".into(),
            st.pages_flushed.get().to_string(),
        ),
        (
            "Innodb_buffer_pool_pages_total".into(),
            pool.frames().to_string(),
        ),
        (
            // MariaDB's name: frames the page cleaner moved from the LRU tail to
            // the free list.
            "Innodb_buffer_pool_pages_LRU_freed".into(),
            st.lru_freed.get().to_string(),
        ),
        (
            "Innodb_buffer_pool_read_ahead".into(),
            st.read_ahead.get().to_string(),
        ),
        (
            "Innodb_buffer_pool_read_requests".into(),
            st.read_requests.get().to_string(),
        ),
        (
            "Innodb_buffer_pool_reads".into(),
            st.reads.get().to_string(),
        ),
        (
            "Innodb_buffer_pool_wait_free".into(),
            st.wait_free.get().to_string(),
        ),
        (
            "Innodb_log_writes".into(),
            ls.writes.load(relaxed).to_string(),
        ),
        (
            "Innodb_os_log_fsyncs".into(),
            ls.fsyncs.load(relaxed).to_string(),
        ),
        (
            "Innodb_os_log_written".into(),
            ls.bytes.load(relaxed).to_string(),
        ),
        (
            "Innodb_redo_log_checkpoint_lsn".into(),
            log.checkpoint_lsn().to_string(),
        ),
        (
            "Innodb_redo_log_current_lsn".into(),
            log.current_lsn().to_string(),
        ),
        (
            "Innodb_redo_log_flushed_to_disk_lsn".into(),
            log.flushed_lsn().to_string(),
        ),
    ]
}

/// Clean shutdown: purge and rollback threads stopped, every dirty page written,
/// checkpoint at the end of the log.
pub fn shutdown(engine: &Engine, te: &TrxEngine) {
    te.shutdown();
    match engine.shutdown() {
        Ok(()) => errlog::system(&format!(
            "kiln storage: shutdown complete at LSN {}",
            engine.log().current_lsn()
        )),
        Err(e) => errlog::error(&format!(
            "kiln storage: shutdown failed ({e}); the next start will recover"
        )),
    }
}
