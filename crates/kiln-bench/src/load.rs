//! `memcached-load`: fills memcached with the rows of keys `1..=N` (sysbench-shaped
//! values, see `row`), split into contiguous ranges over several connections, each
//! pipelining batches of `set`s and requiring `STORED` for every one.

use std::ops::RangeInclusive;
use std::thread;
use std::time::{Duration, Instant};

use crate::client::{Client, Op, Reply};
use crate::error::{ConnError, FatalError};
use crate::lineio::printable;
use crate::memcached::{McClient, McTarget};
use crate::row;

/// Fills `1..=target.keys` over `connections` connections, `batch` sets in flight per
/// connection; returns the wall time.
pub fn load(target: &McTarget, connections: usize, batch: usize) -> Result<Duration, ConnError> {
    let keys = target.keys;
    let connections = (connections.max(1) as u64).min(keys) as usize;
    let clients = (0..connections)
        .map(|i| McClient::connect(target, i as u64).map_err(|error| ConnError { conn: i, error }))
        .collect::<Result<Vec<_>, _>>()?;
    let per = keys.div_ceil(connections as u64);
    let start = Instant::now();
    thread::scope(|s| {
        let loaders: Vec<_> = clients
            .into_iter()
            .enumerate()
            .map(|(i, mut c)| {
                let lo = 1 + i as u64 * per;
                let hi = keys.min((i as u64 + 1) * per);
                s.spawn(move || {
                    fill(&mut c, lo..=hi, batch.max(1) as u64, target)
                        .map_err(|error| ConnError { conn: i, error })
                })
            })
            .collect();
        let mut failure = None;
        for l in loaders {
            if let Err(e) = l.join().expect("a loader thread panicked") {
                failure.get_or_insert(e);
            }
        }
        failure.map_or(Ok(()), Err)
    })?;
    Ok(start.elapsed())
}

fn fill(
    c: &mut McClient,
    range: RangeInclusive<u64>,
    batch: u64,
    target: &McTarget,
) -> Result<(), FatalError> {
    let (mut next, end) = (*range.start(), *range.end());
    while next <= end {
        let last = end.min(next + batch - 1);
        for key in next..=last {
            c.push_set(key, row::initial_k(key, target.keys, target.seed));
        }
        c.flush()?;
        for key in next..=last {
            if c.read_reply(Op::Write(key))? != Reply::Hit {
                return Err(FatalError::Protocol(format!(
                    "set of key {}{key} failed: {}",
                    target.prefix,
                    printable(c.error_line())
                )));
            }
        }
        next = last + 1;
    }
    Ok(())
}
