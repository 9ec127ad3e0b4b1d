//! Redo volume by record kind: `kiln-redo-stat DATADIR [--from LSN] [--to LSN]`.
//!
//! Reads `DATADIR/ib_redo0` read-only, as recovery does (`Log::open` for the header
//! and the newest checkpoint, then `Scanner` group by group), and prints per op kind
//! the number of records and their bytes, the group headers, and the bytes per
//! tablespace. By default it reads from the checkpoint LSN to the end of the log (what
//! a recovery would replay); `--from` starts at an earlier LSN, which must be the start
//! of a group still in the ring (e.g. `Innodb_redo_log_current_lsn` read before a run:
//! the current LSN is always a group boundary), and `--to` stops at the first group
//! that ends past it. Works on the log of a running server too: it stops at the last
//! group written so far.

use std::collections::BTreeMap;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use kiln_storage::engine::LOG_FILE;
use kiln_storage::io::DataFile;
use kiln_storage::log::record::{self, Op, Record};
use kiln_storage::log::{GROUP_HEADER, Log, Scanner};

/// The log file, opened read-only: every write is refused.
struct ReadOnly(File);

impl DataFile for ReadOnly {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.0.read_exact_at(buf, offset)
    }
    fn write_at(&self, _: &[u8], _: u64) -> io::Result<()> {
        Err(io::Error::other("kiln-redo-stat does not write"))
    }
    fn sync(&self) -> io::Result<()> {
        Ok(())
    }
    fn len(&self) -> io::Result<u64> {
        Ok(self.0.metadata()?.len())
    }
    fn set_len(&self, _: u64) -> io::Result<()> {
        Err(io::Error::other("kiln-redo-stat does not write"))
    }
}

fn op_name(op: &Op<'_>) -> &'static str {
    match op {
        Op::Write { .. } => "Write",
        Op::InitPage { .. } => "InitPage",
        Op::InitNode { .. } => "InitNode",
        Op::Insert { .. } => "Insert",
        Op::Remove { .. } => "Remove",
        Op::Truncate { .. } => "Truncate",
        Op::Overwrite { .. } => "Overwrite",
        Op::RemoveRange { .. } => "RemoveRange",
    }
}

/// Name, space and encoded size of one decoded record.
fn measure(r: &Record<'_>, scratch: &mut Vec<u8>) -> (&'static str, u32, u64) {
    match r {
        Record::Page(id, op) => {
            scratch.clear();
            record::encode(scratch, *id, op);
            (op_name(op), id.space, scratch.len() as u64)
        }
        // op u8 | space u32 | page_no u32 | path_len u16 | path
        Record::FileCreate { space, path } => ("FileCreate", *space, 11 + path.len() as u64),
        Record::FileDelete { space, path } => ("FileDelete", *space, 11 + path.len() as u64),
    }
}

fn parse_args() -> Result<(PathBuf, Option<u64>, u64), String> {
    let mut args = std::env::args().skip(1);
    let (mut dir, mut from, mut to) = (None, None, u64::MAX);
    while let Some(a) = args.next() {
        let mut lsn = |name: &str| {
            args.next()
                .and_then(|v| v.parse::<u64>().ok())
                .ok_or(format!("{name} needs an LSN"))
        };
        match a.as_str() {
            "--from" => from = Some(lsn("--from")?),
            "--to" => to = lsn("--to")?,
            _ if dir.is_none() && !a.starts_with('-') => dir = Some(PathBuf::from(a)),
            _ => return Err(format!("unexpected argument '{a}'")),
        }
    }
    Ok((dir.ok_or("no data directory")?, from, to))
}

fn run() -> Result<(), String> {
    let (dir, from, to) = parse_args()?;
    let path = dir.join(LOG_FILE);
    let file = File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file: Arc<dyn DataFile> = Arc::new(ReadOnly(file));
    let (capacity, ckpt) = Log::open(file.clone()).map_err(|e| e.to_string())?;
    let start = from.unwrap_or(ckpt.lsn);
    let mut scanner = Scanner::new(file, capacity, ckpt);
    scanner.lsn = start;
    let (mut groups, mut end) = (0u64, start);
    let mut by_op: BTreeMap<&'static str, (u64, u64)> = BTreeMap::new();
    let mut by_space: BTreeMap<u32, u64> = BTreeMap::new();
    let mut scratch = Vec::new();
    while let Some(g) = scanner.next_group().map_err(|e| e.to_string())? {
        if g.end_lsn > to {
            break;
        }
        let recs = record::decode(&g.payload)
            .map_err(|e| format!("group at LSN {}: {}", g.start_lsn, e.what))?;
        for r in &recs {
            let (name, space, bytes) = measure(r, &mut scratch);
            let e = by_op.entry(name).or_default();
            e.0 += 1;
            e.1 += bytes;
            *by_space.entry(space).or_default() += bytes;
        }
        groups += 1;
        end = g.end_lsn;
    }
    if groups == 0 && start != ckpt.lsn {
        eprintln!(
            "kiln-redo-stat: no group starts at LSN {start} (not a group boundary, or overwritten)"
        );
    }
    let total = end - start;
    let pct = |b: u64| b as f64 * 100.0 / total.max(1) as f64;
    println!(
        "redo LSN {start}..{end}: {total} bytes, {groups} groups (checkpoint {})",
        ckpt.lsn
    );
    println!("{:<14}{:>12}{:>14}{:>8}", "kind", "records", "bytes", "%");
    let headers = groups * GROUP_HEADER as u64;
    println!(
        "{:<14}{groups:>12}{headers:>14}{:>7.1}%",
        "group header",
        pct(headers)
    );
    let mut ops: Vec<_> = by_op.into_iter().collect();
    ops.sort_by_key(|(_, (_, bytes))| std::cmp::Reverse(*bytes));
    for (name, (n, bytes)) in ops {
        println!("{name:<14}{n:>12}{bytes:>14}{:>7.1}%", pct(bytes));
    }
    println!("{:<14}{:>26}{:>8}", "space", "bytes", "%");
    for (space, bytes) in by_space {
        println!("{space:<14}{bytes:>26}{:>7.1}%", pct(bytes));
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kiln-redo-stat: {e}");
            ExitCode::FAILURE
        }
    }
}
