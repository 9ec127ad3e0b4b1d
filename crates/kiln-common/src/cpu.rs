//! How many CPUs the process may run on, read once: `available_parallelism` reads the
//! affinity mask and cgroup files, too slow for every connection. The thread pool
//! sizes itself by it, and the idle spins of connection threads and HandlerSocket
//! workers spin only while there are more CPUs than busy threads.

use std::sync::OnceLock;

/// CPUs the process may run on (1 if unknown).
pub fn count() -> usize {
    static CPUS: OnceLock<usize> = OnceLock::new();
    *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
