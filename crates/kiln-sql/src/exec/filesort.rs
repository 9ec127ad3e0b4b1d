//! ORDER BY's sort ("filesort"): rows are pushed one by one into a `Sorter`, which
//! keeps at most `sort_buffer_size` bytes of them in memory. Past that, the buffer is
//! sorted and written out as a run to a temporary file in `tmpdir`; at the end the
//! runs are merged, `FANIN` at a time (each merge is one of MySQL's
//! Sort_merge_passes; while more than `FANIN` runs remain, merges write new runs).
//! Under a LIMIT of at most `TOP_N_MAX` rows (LIMIT + OFFSET) only the first rows are
//! kept instead (top-N: the buffer is cut back to them whenever it doubles), in memory.
//!
//! The sort is stable — rows with equal keys keep their input order — in every mode:
//! each run is a stable sort of consecutive input rows, and the merge takes the
//! earlier run on ties. So a spilled sort returns exactly what the in-memory sort did.
//!
//! Temporary files are removed from the directory as soon as they are created (kept
//! open, as MySQL does): none is left behind on completion, on an error, on KILL, or
//! if the server dies. Run format: per row, `u32` count + values of the output row,
//! `u32` count + values of the keys; a value is a tag byte and its payload
//! (little-endian numbers, `u32` length + bytes for text).

use std::cmp::Ordering;
use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64};

use kiln_common::{ErrorKind, KilnError, Result};

use crate::ast::VarScope;
use crate::collate::Coll;
use crate::session::Session;
use crate::value::Value;

/// Runs merged at once (each open as a file).
pub const FANIN: usize = 16;
/// Inputs this small sort in memory whatever sort_buffer_size says (sysbench's
/// 100-row ORDER BY ranges pay no variable lookups).
pub const SMALL_SORT_ROWS: usize = 1024;
/// The largest LIMIT + OFFSET the top-N mode keeps in memory.
pub const TOP_N_MAX: u64 = 10_000;
/// Values in one sorted row (output + keys) a run may hold: a bound on what a
/// damaged file can make the reader allocate.
const VALUES_MAX: u32 = 1 << 16;
/// Bytes of one value read back from a run, at most.
const VALUE_BYTES_MAX: u32 = 1 << 30;

/// One row being sorted: (output values, ORDER BY keys).
pub type Item = (Vec<Value>, Vec<Value>);

/// How rows compare: per key, descending or not and its collation.
pub struct SortSpec {
    pub desc: Vec<bool>,
    pub colls: Vec<Coll>,
}

impl SortSpec {
    fn cmp(&self, a: &Item, b: &Item) -> Ordering {
        super::select::cmp_keys(&a.1, &b.1, &self.desc, &self.colls)
    }
}

/// What one sort did (for Sort_rows / Sort_merge_passes).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SortStats {
    pub rows: u64,
    pub merge_passes: u64,
}

static FILE_SEQ: AtomicU64 = AtomicU64::new(0);

/// A run on disk: an unlinked temporary file, positioned at its start.
struct Run {
    file: File,
}

fn write_error(path: &Path, e: &std::io::Error) -> KilnError {
    KilnError::new(
        ErrorKind::ER_IO_ERROR,
        &[&path.display(), &e.raw_os_error().unwrap_or(0), &e],
    )
}

fn read_error(path: &Path, e: &std::io::Error) -> KilnError {
    KilnError::new(
        ErrorKind::ER_ERROR_ON_READ,
        &[&path.display(), &e.raw_os_error().unwrap_or(0), &e],
    )
}

/// A new temporary file in `dir`, already removed from it.
fn temp_file(dir: &Path) -> Result<File> {
    let seq = FILE_SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = dir.join(format!("kiln-sort-{}-{seq}.tmp", std::process::id()));
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| write_error(&path, &e))?;
    std::fs::remove_file(&path).map_err(|e| write_error(&path, &e))?;
    Ok(file)
}

fn put_value(w: &mut Vec<u8>, v: &Value) {
    let text = |w: &mut Vec<u8>, tag: u8, b: &[u8]| {
        w.push(tag);
        w.extend_from_slice(&(b.len() as u32).to_le_bytes());
        w.extend_from_slice(b);
    };
    match v {
        Value::Null => w.push(0),
        Value::Int(i) => {
            w.push(1);
            w.extend_from_slice(&i.to_le_bytes());
        }
        Value::UInt(u) => {
            w.push(2);
            w.extend_from_slice(&u.to_le_bytes());
        }
        Value::Double(d) => {
            w.push(3);
            w.extend_from_slice(&d.to_bits().to_le_bytes());
        }
        Value::Decimal(s) => text(w, 4, s.as_bytes()),
        Value::Str(s) => text(w, 5, s.as_bytes()),
        Value::Bytes(b) => text(w, 6, b),
    }
}

/// Appends one row's encoding to `w`.
fn encode_item(w: &mut Vec<u8>, item: &Item) {
    for part in [&item.0, &item.1] {
        w.extend_from_slice(&(part.len() as u32).to_le_bytes());
        for v in part {
            put_value(w, v);
        }
    }
}

/// Reads exactly `buf.len()` bytes; Ok(false) at a clean end of file before any.
fn read_exact_or_eof(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<bool> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) if got == 0 => return Ok(false),
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

fn bad_run() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, "damaged sort run")
}

fn get_u32(r: &mut impl Read) -> std::io::Result<u32> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

fn get_value(r: &mut impl Read) -> std::io::Result<Value> {
    let mut tag = [0u8; 1];
    r.read_exact(&mut tag)?;
    let mut n8 = [0u8; 8];
    let text = |r: &mut dyn Read| -> std::io::Result<Vec<u8>> {
        let mut b = [0u8; 4];
        r.read_exact(&mut b)?;
        let len = u32::from_le_bytes(b);
        if len > VALUE_BYTES_MAX {
            return Err(bad_run());
        }
        let mut v = vec![0u8; len as usize];
        r.read_exact(&mut v)?;
        Ok(v)
    };
    Ok(match tag[0] {
        0 => Value::Null,
        1 => {
            r.read_exact(&mut n8)?;
            Value::Int(i64::from_le_bytes(n8))
        }
        2 => {
            r.read_exact(&mut n8)?;
            Value::UInt(u64::from_le_bytes(n8))
        }
        3 => {
            r.read_exact(&mut n8)?;
            Value::Double(f64::from_bits(u64::from_le_bytes(n8)))
        }
        4 => Value::Decimal(String::from_utf8(text(r)?).map_err(|_| bad_run())?),
        5 => Value::Str(String::from_utf8(text(r)?).map_err(|_| bad_run())?),
        6 => Value::Bytes(text(r)?),
        _ => return Err(bad_run()),
    })
}

/// Reads the next row of a run (None at its end).
fn decode_item(r: &mut impl Read) -> std::io::Result<Option<Item>> {
    let mut b = [0u8; 4];
    if !read_exact_or_eof(r, &mut b)? {
        return Ok(None);
    }
    let mut parts = [Vec::new(), Vec::new()];
    for (i, part) in parts.iter_mut().enumerate() {
        let n = if i == 0 {
            u32::from_le_bytes(b)
        } else {
            get_u32(r)?
        };
        if n > VALUES_MAX {
            return Err(bad_run());
        }
        part.reserve(n as usize);
        for _ in 0..n {
            part.push(get_value(r)?);
        }
    }
    let [vals, keys] = parts;
    Ok(Some((vals, keys)))
}

/// Roughly the bytes a row takes in memory.
fn item_bytes(item: &Item) -> usize {
    let v = |x: &Value| {
        std::mem::size_of::<Value>()
            + match x {
                Value::Decimal(s) | Value::Str(s) => s.len(),
                Value::Bytes(b) => b.len(),
                _ => 0,
            }
    };
    48 + item.0.iter().map(v).sum::<usize>() + item.1.iter().map(v).sum::<usize>()
}

/// Sorts rows pushed into it (module comment).
pub struct Sorter {
    spec: SortSpec,
    buf: Vec<Item>,
    buf_bytes: usize,
    budget: usize,
    top: Option<usize>,
    runs: Vec<Run>,
    dir: PathBuf,
    stats: SortStats,
    interrupt: Arc<AtomicU8>,
}

fn check(interrupt: &AtomicU8) -> Result<()> {
    if interrupt.load(std::sync::atomic::Ordering::Relaxed) != 0 {
        return Err(ErrorKind::ER_QUERY_INTERRUPTED.into());
    }
    Ok(())
}

impl Sorter {
    /// `budget`: sort_buffer_size in bytes; `top`: only the first this many rows are
    /// wanted (LIMIT + OFFSET); `dir`: where runs go.
    pub fn new(
        spec: SortSpec,
        budget: usize,
        top: Option<u64>,
        dir: PathBuf,
        interrupt: Arc<AtomicU8>,
    ) -> Sorter {
        Sorter {
            spec,
            buf: Vec::new(),
            buf_bytes: 0,
            budget: budget.max(1),
            top: top.filter(|n| *n <= TOP_N_MAX).map(|n| n as usize),
            runs: Vec::new(),
            dir,
            stats: SortStats::default(),
            interrupt,
        }
    }

    pub fn push(&mut self, item: Item) -> Result<()> {
        self.stats.rows += 1;
        if self.stats.rows.is_multiple_of(4096) {
            check(&self.interrupt)?;
        }
        if let Some(n) = self.top {
            self.buf.push(item);
            if self.buf.len() >= (2 * n).max(64) {
                self.buf.sort_by(|a, b| self.spec.cmp(a, b));
                self.buf.truncate(n);
            }
            return Ok(());
        }
        if self.budget != usize::MAX {
            self.buf_bytes += item_bytes(&item);
        }
        self.buf.push(item);
        if self.buf_bytes > self.budget {
            self.spill()?;
        }
        Ok(())
    }

    /// Sorts the buffer and writes it out as a run.
    fn spill(&mut self) -> Result<()> {
        let mut rows = std::mem::take(&mut self.buf);
        self.buf_bytes = 0;
        rows.sort_by(|a, b| self.spec.cmp(a, b));
        let run = self.write_run(rows.into_iter().map(Ok))?;
        self.runs.push(run);
        Ok(())
    }

    fn write_run(&self, rows: impl Iterator<Item = Result<Item>>) -> Result<Run> {
        let file = temp_file(&self.dir)?;
        let mut w = BufWriter::with_capacity(64 * 1024, file);
        let mut bytes = Vec::new();
        let mut n = 0u64;
        for item in rows {
            let item = item?;
            n += 1;
            if n.is_multiple_of(4096) {
                check(&self.interrupt)?;
            }
            bytes.clear();
            encode_item(&mut bytes, &item);
            w.write_all(&bytes)
                .map_err(|e| write_error(&self.dir, &e))?;
        }
        let mut file = w
            .into_inner()
            .map_err(|e| write_error(&self.dir, e.error()))?;
        file.seek(SeekFrom::Start(0))
            .map_err(|e| read_error(&self.dir, &e))?;
        Ok(Run { file })
    }

    /// The rows in order, and what the sort did.
    pub fn finish(mut self) -> Result<(Sorted, SortStats)> {
        if self.runs.is_empty() {
            let mut rows = std::mem::take(&mut self.buf);
            rows.sort_by(|a, b| self.spec.cmp(a, b));
            if let Some(n) = self.top {
                rows.truncate(n);
            }
            return Ok((Sorted::Memory(rows.into_iter()), self.stats));
        }
        if !self.buf.is_empty() {
            self.spill()?;
        }
        // Merge passes that write new runs, until one merge can take them all.
        while self.runs.len() > FANIN {
            let runs = std::mem::take(&mut self.runs);
            let mut next = Vec::with_capacity(runs.len().div_ceil(FANIN));
            let mut it = runs.into_iter();
            loop {
                let group: Vec<Run> = it.by_ref().take(FANIN).collect();
                if group.is_empty() {
                    break;
                }
                self.stats.merge_passes += 1;
                let merger = Merger::new(group, &self.spec, &self.dir, self.interrupt.clone())?;
                next.push(self.write_run(merger)?);
            }
            self.runs = next;
        }
        self.stats.merge_passes += 1;
        let runs = std::mem::take(&mut self.runs);
        let merger = Merger::new(runs, &self.spec, &self.dir, self.interrupt.clone())?;
        Ok((Sorted::Merge(Box::new(merger)), self.stats))
    }
}

/// Merges sorted runs, the earlier run first on equal keys.
pub struct Merger {
    readers: Vec<BufReader<File>>,
    heads: Vec<Option<Item>>,
    spec: SortSpec,
    dir: PathBuf,
    interrupt: Arc<AtomicU8>,
    emitted: u64,
}

impl Merger {
    fn new(
        runs: Vec<Run>,
        spec: &SortSpec,
        dir: &Path,
        interrupt: Arc<AtomicU8>,
    ) -> Result<Merger> {
        let mut readers = Vec::with_capacity(runs.len());
        let mut heads = Vec::with_capacity(runs.len());
        for run in runs {
            let mut r = BufReader::with_capacity(32 * 1024, run.file);
            heads.push(decode_item(&mut r).map_err(|e| read_error(dir, &e))?);
            readers.push(r);
        }
        Ok(Merger {
            readers,
            heads,
            spec: SortSpec {
                desc: spec.desc.clone(),
                colls: spec.colls.clone(),
            },
            dir: dir.to_path_buf(),
            interrupt,
            emitted: 0,
        })
    }

    fn next_item(&mut self) -> Result<Option<Item>> {
        let mut best: Option<usize> = None;
        for (i, h) in self.heads.iter().enumerate() {
            let Some(h) = h else { continue };
            match best {
                Some(b)
                    if self.spec.cmp(h, self.heads[b].as_ref().expect("a head"))
                        != Ordering::Less => {}
                _ => best = Some(i),
            }
        }
        let Some(i) = best else {
            return Ok(None);
        };
        self.emitted += 1;
        if self.emitted.is_multiple_of(4096) {
            check(&self.interrupt)?;
        }
        let next = decode_item(&mut self.readers[i]).map_err(|e| read_error(&self.dir, &e))?;
        Ok(std::mem::replace(&mut self.heads[i], next))
    }
}

impl Iterator for Merger {
    type Item = Result<Item>;

    fn next(&mut self) -> Option<Result<Item>> {
        self.next_item().transpose()
    }
}

/// Sorted rows: from memory, or merged from runs on disk.
pub enum Sorted {
    Memory(std::vec::IntoIter<Item>),
    Merge(Box<Merger>),
}

impl Iterator for Sorted {
    type Item = Result<Item>;

    fn next(&mut self) -> Option<Result<Item>> {
        match self {
            Sorted::Memory(it) => it.next().map(Ok),
            Sorted::Merge(m) => m.next(),
        }
    }
}

/// A Sorter for this session: its `sort_buffer_size`, runs in `tmpdir` (else the
/// system's temporary directory). An input of at most `SMALL_SORT_ROWS` rows (already
/// in memory) is sorted in memory without looking at either.
pub fn sorter_for(
    sess: &mut Session,
    spec: SortSpec,
    top: Option<u64>,
    input_rows: usize,
) -> Result<Sorter> {
    if input_rows <= SMALL_SORT_ROWS {
        return Ok(Sorter::new(
            spec,
            usize::MAX,
            top,
            PathBuf::new(),
            sess.interrupt.clone(),
        ));
    }
    let budget = match sess.vars.get(VarScope::Session, "sort_buffer_size")? {
        Value::UInt(u) => u,
        Value::Int(i) => i.max(0) as u64,
        _ => 262_144,
    };
    let dir = match sess.vars.get(VarScope::Global, "tmpdir") {
        Ok(Value::Str(d)) if !d.is_empty() => PathBuf::from(d),
        _ => std::env::temp_dir(),
    };
    Ok(Sorter::new(
        spec,
        budget.min(usize::MAX as u64) as usize,
        top,
        dir,
        sess.interrupt.clone(),
    ))
}

/// Where projected rows go: a sort, or kept in order.
pub enum RowSink {
    Sort(Sorter),
    Keep(Vec<Item>),
}

impl RowSink {
    pub fn push(&mut self, item: Item) -> Result<()> {
        match self {
            RowSink::Sort(s) => s.push(item),
            RowSink::Keep(v) => {
                v.push(item);
                Ok(())
            }
        }
    }

    /// The rows in order; a sort counts itself in Sort_rows, Sort_merge_passes and
    /// Sort_range (the rows came through a key range) or Sort_scan.
    pub fn finish(self, sess: &mut Session) -> Result<Sorted> {
        match self {
            RowSink::Keep(v) => Ok(Sorted::Memory(v.into_iter())),
            RowSink::Sort(s) => {
                let (sorted, stats) = s.finish()?;
                let how = if sess.counters.last_read_by_key { 1 } else { 3 };
                for (i, n) in [(0, stats.merge_passes), (2, stats.rows), (how, 1)] {
                    crate::status::add_sort(i, n);
                    sess.counters.sort[i] += n;
                }
                Ok(sorted)
            }
        }
    }
}

/// OFFSET and LIMIT over sorted rows, dropping a row equal to the one before it
/// under `dedup`'s collations first (DISTINCT done by the sort).
pub fn cut(
    sorted: Sorted,
    dedup: Option<&[Coll]>,
    offset: u64,
    limit: u64,
) -> Result<Vec<Vec<Value>>> {
    let mut out: Vec<Vec<Value>> = Vec::new();
    // The last row kept while OFFSET skips (then the last one in `out`).
    let mut skipped_last: Option<Vec<Value>> = None;
    let mut skipped = 0u64;
    for item in sorted {
        if out.len() as u64 >= limit {
            break;
        }
        let (vals, _) = item?;
        if let Some(colls) = dedup
            && out
                .last()
                .or(skipped_last.as_ref())
                .is_some_and(|p| super::group::values_eq(p, &vals, colls))
        {
            continue;
        }
        if skipped < offset {
            skipped += 1;
            if dedup.is_some() {
                skipped_last = Some(vals);
            }
            continue;
        }
        out.push(vals);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(desc: bool) -> SortSpec {
        SortSpec {
            desc: vec![desc],
            colls: vec![Coll::DEFAULT],
        }
    }

    fn sorter(budget: usize, top: Option<u64>, desc: bool) -> Sorter {
        Sorter::new(
            spec(desc),
            budget,
            top,
            std::env::temp_dir(),
            Arc::new(AtomicU8::new(0)),
        )
    }

    /// Rows with many equal keys: (seq, key) so stability shows.
    fn rows(n: u64) -> Vec<Item> {
        let mut x = 12345u64;
        (0..n)
            .map(|i| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // One type per key (and NULLs), as a column gives.
                let key = match x >> 60 {
                    0 => Value::Null,
                    _ => Value::Int((x >> 40) as i64 % 50),
                };
                (
                    vec![Value::UInt(i), Value::Double(0.5), Value::Bytes(vec![0, 1])],
                    vec![key],
                )
            })
            .collect()
    }

    fn run_sort(mut s: Sorter, input: &[Item]) -> (Vec<Item>, SortStats) {
        for r in input {
            s.push(r.clone()).unwrap();
        }
        let (sorted, stats) = s.finish().unwrap();
        (sorted.map(Result::unwrap).collect(), stats)
    }

    fn stable_sorted(input: &[Item], desc: bool) -> Vec<Item> {
        let mut v = input.to_vec();
        let sp = spec(desc);
        v.sort_by(|a, b| sp.cmp(a, b));
        v
    }

    #[test]
    fn spilled_merge_equals_the_stable_in_memory_sort() {
        let input = rows(20_000);
        for desc in [false, true] {
            let want = stable_sorted(&input, desc);
            // Tiny buffer: hundreds of runs, several passes.
            let (got, stats) = run_sort(sorter(4096, None, desc), &input);
            assert_eq!(got, want);
            assert_eq!(stats.rows, 20_000);
            assert!(stats.merge_passes > 1, "{stats:?}");
            // A buffer that holds everything: no passes.
            let (got, stats) = run_sort(sorter(1 << 30, None, desc), &input);
            assert_eq!(got, want);
            assert_eq!(stats.merge_passes, 0);
        }
    }

    #[test]
    fn fewer_runs_than_fanin_merge_once() {
        let input = rows(3_000);
        let (got, stats) = run_sort(sorter(64 * 1024, None, false), &input);
        assert_eq!(got, stable_sorted(&input, false));
        assert_eq!(stats.merge_passes, 1);
    }

    #[test]
    fn top_n_keeps_the_first_rows() {
        let input = rows(10_000);
        for n in [0u64, 1, 7, 100, 5000] {
            let (got, _) = run_sort(sorter(4096, Some(n), true), &input);
            let want: Vec<Item> = stable_sorted(&input, true)
                .into_iter()
                .take(n as usize)
                .collect();
            assert_eq!(got, want, "n = {n}");
        }
    }

    #[test]
    fn values_round_trip_and_damage_is_an_error() {
        let item: Item = (
            vec![
                Value::Null,
                Value::Int(-3),
                Value::UInt(u64::MAX),
                Value::Double(-0.25),
                Value::Decimal("-1.50".into()),
                Value::Str("héllo".into()),
                Value::Bytes(vec![0, 255]),
            ],
            vec![Value::Str(String::new())],
        );
        let mut b = Vec::new();
        encode_item(&mut b, &item);
        let mut r = &b[..];
        assert_eq!(decode_item(&mut r).unwrap(), Some(item));
        assert_eq!(decode_item(&mut r).unwrap(), None);
        assert!(decode_item(&mut &b[..b.len() - 1]).is_err());
        let mut bad = b.clone();
        bad[4] = 99; // an unknown tag
        assert!(decode_item(&mut &bad[..]).is_err());
    }

    #[test]
    fn cut_dedups_across_the_offset() {
        let v = |i: i64| (vec![Value::Int(i)], vec![Value::Int(i)]);
        let rows = vec![v(1), v(1), v(2), v(2), v(2), v(3), v(4), v(4)];
        let colls = [Coll::DEFAULT];
        let got = cut(Sorted::Memory(rows.clone().into_iter()), Some(&colls), 1, 2).unwrap();
        assert_eq!(got, vec![vec![Value::Int(2)], vec![Value::Int(3)]]);
        let got = cut(Sorted::Memory(rows.into_iter()), None, 3, 3).unwrap();
        assert_eq!(
            got,
            vec![vec![Value::Int(2)]; 2]
                .into_iter()
                .chain([vec![Value::Int(3)]])
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_kill_stops_the_sort() {
        let flag = Arc::new(AtomicU8::new(1));
        let mut s = Sorter::new(spec(false), 4096, None, std::env::temp_dir(), flag);
        let mut failed = None;
        for r in rows(10_000) {
            if let Err(e) = s.push(r) {
                failed = Some(e);
                break;
            }
        }
        assert_eq!(failed.map(|e| e.code), Some(1317));
    }
}
