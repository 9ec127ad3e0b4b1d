"""SQLite's sqllogictest corpus (the sample in ../shared/conformance/sqllogictest) against a
fresh kiln, through our own runner `kiln-slt` (crates/kiln-slt): every file from an empty
database, engine `mysql`, hash threshold 8, column types checked.

A ratchet, not a target: tests/slt_ratchet.json holds, per file, the lowest number of
records that must pass. A file passing fewer fails the test; passing more is fine.
`KILN_SLT_UPDATE=1` rewrites the ratchet with the current counts, never lowering one
(so run it after a fix to lock the gain in).

Locations: the corpus is `$KILN_SLT_DIR`, else ../shared/conformance/sqllogictest next
to the repository (skipped when absent); the runner is `$KILN_SLT_BIN`, else
target/debug/kiln-slt, built with cargo when missing or older than its sources.
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
RATCHET = Path(__file__).resolve().parent / "slt_ratchet.json"
CRATE = REPO / "crates" / "kiln-slt"

# Per-record and per-file limits handed to the runner. Records take milliseconds; the
# limits only bound a hung or runaway server so the test always ends.
RECORD_TIMEOUT_S = 10
FILE_TIMEOUT_S = 300
RUN_TIMEOUT_S = 1200


def corpus_dir():
    env = os.environ.get("KILN_SLT_DIR")
    if env:
        return Path(env)
    return REPO.parent / "shared" / "conformance" / "sqllogictest"


def corpus_files(root):
    """Test files as paths relative to `root`, in a stable order."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.test"))


def runner_binary():
    env = os.environ.get("KILN_SLT_BIN")
    if env:
        return Path(env)
    binary = REPO / "target" / "debug" / "kiln-slt"
    sources = [CRATE / "Cargo.toml", *(CRATE / "src").rglob("*.rs")]
    newest = max(p.stat().st_mtime for p in sources)
    if not binary.exists() or binary.stat().st_mtime < newest:
        cmd = ["cargo", "build", "-q", "-p", "kiln-slt"]
        # Engineers share this machine's cores: cargo runs are serialised by a lock.
        if shutil.which("flock"):
            cmd = ["flock", "/tmp/kiln-cargo.lock", *cmd]
        p = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=1800)
        assert p.returncode == 0, f"building kiln-slt failed:\n{p.stdout}\n{p.stderr}"
    return binary


def load_ratchet():
    if RATCHET.exists():
        return json.loads(RATCHET.read_text())
    return {}


def save_ratchet(old, files):
    new = dict(old)
    for name, r in files.items():
        new[name] = max(old.get(name, 0), r["ok"])
    RATCHET.write_text(json.dumps(dict(sorted(new.items())), indent=2) + "\n")
    return new


def describe_failures(result, limit=5):
    lines = []
    for f in result["failures"][:limit]:
        got = f["error"] if f["error"] is not None else f["got"]
        lines.append(
            f"    line {f['line']}: {f['sql'][:200]!r}\n"
            f"      expected {f['expected'][:120]!r}\n      got      {str(got)[:300]!r}"
        )
    return "\n".join(lines)


def test_sqllogictest_ratchet(kiln, tmp_path):
    root = corpus_dir()
    if not root.is_dir():
        pytest.skip(f"sqllogictest corpus not found at {root}")
    files = corpus_files(root)
    if not files:
        pytest.skip(f"no .test files under {root}")

    binary = runner_binary()
    report = tmp_path / "slt.json"
    cmd = [
        str(binary),
        f"--port={kiln.port}",
        "--host=127.0.0.1",
        "--user=root",
        "--database=slt",
        f"--timeout={RECORD_TIMEOUT_S}",
        f"--file-timeout={FILE_TIMEOUT_S}",
        f"--json={report}",
        *files,
    ]
    p = subprocess.run(
        cmd, cwd=root, capture_output=True, text=True, errors="replace", timeout=RUN_TIMEOUT_S
    )
    summary = p.stdout + p.stderr
    # 0: all files ran; 1: a file could not be run at all (reported per file below).
    assert p.returncode in (0, 1), f"kiln-slt failed ({p.returncode}):\n{summary}"
    assert kiln.alive(), f"kiln died during the run:\n{summary}\n{kiln.diagnostics()}"
    results = json.loads(report.read_text())["files"]
    assert sorted(results) == files, summary

    ratchet = load_ratchet()
    if os.environ.get("KILN_SLT_UPDATE") == "1":
        ratchet = save_ratchet(ratchet, results)

    below = []
    for name in files:
        r = results[name]
        want = ratchet.get(name, 0)
        if r["ok"] < want:
            fatal = f" FATAL: {r['fatal']}" if r["fatal"] else ""
            below.append(
                f"{name}: {r['ok']} passed, ratchet {want} "
                f"(executed {r['executed']}){fatal}\n{describe_failures(r)}"
            )
    assert not below, (
        "sqllogictest files passing fewer records than tests/slt_ratchet.json requires:\n"
        + "\n".join(below)
        + f"\n\nrunner output:\n{summary}"
    )
