"""Installs what an experiment needs when it is missing: Debian packages (sysbench,
mariadb-server with handlersocket.so, memcached) with apt-get, matplotlib and PyMySQL
(apt, else pip), and the kiln binaries (`cargo build --release -p kiln-server -p
kiln-bench` when $KILN_BIN / target/release/kiln is missing)."""

import importlib.util
import os
import subprocess
import sys

from . import progress

PACKAGES = {  # program -> Debian package
    "sysbench": "sysbench",
    "mariadbd": "mariadb-server",
    "mariadb-install-db": "mariadb-server",
    "mariadb": "mariadb-client",
    "memcached": "memcached",
}
PY_PACKAGES = {"matplotlib": "python3-matplotlib", "pymysql": "python3-pymysql"}


def _sudo():
    return [] if os.geteuid() == 0 else ["sudo", "-n"]


def _apt(packages):
    progress.log(f"installing {' '.join(packages)} with apt-get")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run([*_sudo(), "apt-get", "update", "-q"], env=env, check=False)
    p = subprocess.run([*_sudo(), "apt-get", "install", "-y", "-q", *packages], env=env)
    return p.returncode == 0


def ensure_python(modules=("matplotlib", "pymysql")):
    """The Python modules the harness imports (bench/run calls this before importing
    the experiments)."""
    for mod in modules:
        if importlib.util.find_spec(mod) is None:
            if not _apt([PY_PACKAGES[mod]]) or importlib.util.find_spec(mod) is None:
                progress.log(f"installing {mod} with pip")
                pip = [sys.executable, "-m", "pip", "install", "-q", mod]
                if subprocess.run(pip).returncode != 0:
                    subprocess.run(pip + ["--break-system-packages"])
                importlib.invalidate_caches()
            if importlib.util.find_spec(mod) is None:
                raise SystemExit(f"bench: python module {mod} missing (pip install {mod})")


def ensure(programs=(), python=("matplotlib",), kiln=False, kiln_bench=False, hs_plugin=False):
    """Installs what is missing; raises SystemExit naming what could not be had."""
    from .servers import ROOT, find_hs_plugin, find_program, kiln_bench_bin, kiln_bin

    missing = sorted({PACKAGES[p] for p in programs if not find_program(p)})
    if hs_plugin and not find_hs_plugin():
        missing = sorted(set(missing) | {"mariadb-server"})
    if missing and not _apt(missing):
        raise SystemExit(f"bench: could not install {' '.join(missing)}")
    still = [p for p in programs if not find_program(p)]
    if still:
        raise SystemExit(f"bench: {', '.join(still)} still missing after apt-get")
    if hs_plugin and not find_hs_plugin():
        raise SystemExit("bench: handlersocket.so not found (Debian mariadb-server has it)")
    ensure_python(python)
    crates = []
    if kiln and not os.access(kiln_bin(), os.X_OK):
        if os.environ.get("KILN_BIN"):
            raise SystemExit(f"bench: KILN_BIN={kiln_bin()} is not an executable")
        crates += ["-p", "kiln-server"]
    if kiln_bench and not os.access(kiln_bench_bin(), os.X_OK):
        if os.environ.get("KILN_BENCH_BIN"):
            raise SystemExit(f"bench: KILN_BENCH_BIN={kiln_bench_bin()} is not an executable")
        crates += ["-p", "kiln-bench"]
    if crates:
        cmd = ["cargo", "build", "--release", *crates]
        progress.log(f"building kiln: {' '.join(cmd)}")
        if subprocess.run(cmd, cwd=ROOT).returncode != 0:
            raise SystemExit("bench: cargo build failed")


def ensure_sql(labels, programs=(), **kw):
    """ensure() for an experiment on the SQL systems `labels` (kiln..., MariaDB...):
    sysbench always, MariaDB's binaries and kiln only when one of them is compared."""
    progs = ["sysbench", *programs]
    if any(s.startswith("MariaDB") for s in labels):
        progs += ["mariadbd", "mariadb-install-db"]
    ensure(programs=progs, python=("matplotlib", "pymysql"),
           kiln=any(s.startswith("kiln") for s in labels), **kw)
