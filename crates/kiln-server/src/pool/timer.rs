//! The pool's timer thread: every `thread_pool_stall_limit` ms it refreshes the
//! pool's settings, checks each group for stalls (`Group::tick`), and closes
//! connections idle past their `wait_timeout` (`Group::expire_idle`).

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::ThreadPool;

pub fn run(pool: &ThreadPool) {
    loop {
        let ms = pool.shared.knobs.stall_limit_ms.load(Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(ms.clamp(1, 60_000)));
        if pool.is_stopping() {
            return;
        }
        pool.shared.knobs.refresh(pool.shared.server);
        let kickup_ms = pool.shared.knobs.prio_kickup_ms.load(Ordering::Relaxed);
        let now_ms = pool.shared.now_ms();
        for g in &pool.groups {
            g.tick(kickup_ms);
            g.expire_idle(now_ms);
        }
    }
}
