"""A private MariaDB 10.11 server for tests that compare kiln against the real thing.

`MariaDB(base, mariadbd, install_db, extra_args=())` makes a datadir under `base` with
mariadb-install-db, starts mariadbd on a private Unix socket with no TCP listener
(`--skip-networking`; plugins such as HandlerSocket still open their own ports) and
stops it with SIGTERM. `extra_args` are appended to mariadbd's command line.

`find_mariadb()` returns (mariadbd, mariadb-install-db) paths or (None, None);
`start_private_mariadb(prefix, extra_args)` is the usual fixture body: it skips the
test when the binaries are missing, fails it when the server will not start, and
returns the started server (call `.cleanup()` at teardown).

This module installs nothing: the binaries come from Debian's `mariadb-server`.
"""

import os
import shutil
import signal
import subprocess
import tempfile
import time

import pymysql
import pytest

from conftest import run_command


def find_program(prog):
    p = shutil.which(prog)
    if p:
        return p
    for d in ("/usr/sbin", "/usr/local/sbin", "/usr/bin", "/usr/local/bin"):
        cand = os.path.join(d, prog)
        if os.access(cand, os.X_OK):
            return cand
    return None


def find_mariadb():
    mariadbd, install_db = find_program("mariadbd"), find_program("mariadb-install-db")
    if not mariadbd or not install_db:
        return None, None
    return mariadbd, install_db


class MariaDB:
    """One mariadbd on a temporary datadir and a private Unix socket."""

    def __init__(self, base, mariadbd, install_db, extra_args=()):
        self.base = base
        self.datadir = os.path.join(base, "data")
        self.socket = os.path.join(base, "m.sock")
        self.log_path = os.path.join(base, "mariadb.err")
        self.mariadbd = mariadbd
        self.install_db = install_db
        self.extra_args = list(extra_args)
        self.user = "root" if os.geteuid() == 0 else None
        self.proc = None

    def _user(self):
        return [f"--user={self.user}"] if self.user else []

    def diagnostics(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()[-4000:]
        except OSError:
            return ""

    def start(self, timeout=60):
        rc, out, err = run_command(
            [
                self.install_db,
                "--no-defaults",
                f"--datadir={self.datadir}",
                *self._user(),
                "--auth-root-authentication-method=normal",
            ],
            timeout=120,
        )
        if rc != 0:
            raise RuntimeError(f"mariadb-install-db failed ({rc}):\n{out[-2000:]}\n{err[-2000:]}")
        self._out = open(os.path.join(self.base, "mariadbd.out"), "ab")
        self.proc = subprocess.Popen(
            [
                self.mariadbd,
                "--no-defaults",
                f"--datadir={self.datadir}",
                f"--socket={self.socket}",
                "--skip-networking",
                *self._user(),
                "--skip-log-bin",
                f"--log-error={self.log_path}",
                f"--pid-file={os.path.join(self.base, 'mariadbd.pid')}",
                *self.extra_args,
            ],
            stdin=subprocess.DEVNULL,
            stdout=self._out,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"mariadbd exited with {self.proc.returncode} during start-up\n"
                    f"{self.diagnostics()}"
                )
            try:
                self.connect(connect_timeout=2).close()
                return self
            except Exception as e:  # not up yet
                last = e
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"mariadbd did not come up in {timeout}s ({last!r})\n{self.diagnostics()}")

    def connect(self, **kw):
        args = dict(
            unix_socket=self.socket,
            user="root",
            password="",
            autocommit=True,
            connect_timeout=10,
            read_timeout=60,
            write_timeout=60,
        )
        args.update(kw)
        return pymysql.connect(**args)

    def query(self, sql, **kw):
        """Runs one statement on a new root connection; returns all rows."""
        c = self.connect(**kw)
        try:
            with c.cursor() as cur:
                cur.execute(sql)
                return cur.fetchall()
        finally:
            c.close()

    def stop(self, timeout=60):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        out = getattr(self, "_out", None)
        if out is not None and not out.closed:
            out.close()

    def cleanup(self):
        """Stops the server and removes its directory."""
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)


def start_private_mariadb(prefix="kiln-maria-", extra_args=(), require=()):
    """Starts a MariaDB for a fixture. Skips when mariadbd/mariadb-install-db (or any
    file in `require`, e.g. a plugin .so) is missing; fails when it will not start."""
    mariadbd, install_db = find_mariadb()
    if not mariadbd or not install_db:
        pytest.skip("MariaDB server (mariadbd, mariadb-install-db) is not installed")
    for f in require:
        if not os.path.exists(f):
            pytest.skip(f"{f} is not installed (Debian package mariadb-server)")
    # A short private directory: a Unix socket path must stay under 108 bytes.
    base = tempfile.mkdtemp(prefix=prefix)
    m = MariaDB(base, mariadbd, install_db, extra_args=extra_args)
    try:
        m.start()
    except Exception as e:
        m.stop()
        pytest.fail(f"could not start MariaDB: {e}", pytrace=False)
    return m
