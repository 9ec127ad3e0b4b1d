//! The pool's timer thread: every `thread_pool_stall_limit` ms it refreshes the
//! pool's settings, checks each group for stalls (`Group::tick`), and closes
//! connections idle past their `wait_timeout` (`Group::expire_idle`).
//!
//! It sleeps in slices of at most `SLICE_MS`, so a stop (shutdown) or a new
//! `thread_pool_stall_limit` takes effect within a slice, not after a whole period.
//! Every slice it also gives a worker to groups with queued work and no active
//! worker (`Group::unstarve`): their last creation may have been throttled.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::ThreadPool;

const SLICE_MS: u64 = 50;

pub fn run(pool: &ThreadPool) {
    let mut last_tick = Instant::now();
    loop {
        let period_ms = pool
            .shared
            .knobs
            .stall_limit_ms
            .load(Ordering::Relaxed)
            .max(1);
        let due = last_tick + Duration::from_millis(period_ms);
        let now = Instant::now();
        if now < due {
            pool.wait_stop(Duration::from_millis(SLICE_MS).min(due - now));
            if pool.is_stopping() {
                return;
            }
            pool.shared.knobs.refresh(pool.shared.server);
            for g in &pool.groups {
                g.unstarve();
            }
            continue;
        }
        last_tick = now;
        pool.shared.knobs.refresh(pool.shared.server);
        let kickup_ms = pool.shared.knobs.prio_kickup_ms.load(Ordering::Relaxed);
        let now_ms = pool.shared.now_ms();
        for g in &pool.groups {
            g.tick(kickup_ms);
            g.expire_idle(now_ms);
        }
    }
}
