"""Harness for kiln's end-to-end tests: start real `kiln` processes on a temporary
datadir and a free port, talk to them with real MySQL clients, stop them cleanly.

The binary is `$KILN_BIN`, else `<repo>/target/debug/kiln`.

Fixtures:
  kiln          a fresh server for one test (teardown asserts it exits 0)
  kiln_shared   one server for a whole module, for tests that change no server state
  kiln_factory  start servers with extra args / a given datadir / an option file
"""

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pymysql
import pytest

REPO = Path(__file__).resolve().parent.parent
KILN_BIN = os.environ.get("KILN_BIN") or str(REPO / "target" / "debug" / "kiln")

START_TIMEOUT = 20.0
STOP_TIMEOUT = 15.0


def free_port():
    """A TCP port that was free a moment ago on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_command(cmd, timeout=20):
    """Runs a command to completion: returns (exit code, stdout, stderr)."""
    p = subprocess.run(
        cmd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=timeout,
    )
    return p.returncode, p.stdout, p.stderr


def run_kiln(args, timeout=20):
    """Runs the kiln binary to completion: returns (exit code, stdout, stderr)."""
    return run_command([KILN_BIN, *args], timeout)


class KilnStartError(Exception):
    pass


class KilnServer:
    """One kiln process.

    The command line is
      KILN_BIN (--defaults-file=F | --no-defaults) --datadir=D --port=P
               --socket=D/kiln.sock --log-error=D/error.log [extra args]
    `omit` drops some of the standard options (e.g. {"port"} when an option file
    sets the port; `port` must then still tell the harness where to connect).
    """

    def __init__(
        self,
        datadir,
        extra_args=(),
        port=None,
        defaults_file=None,
        no_defaults=True,
        omit=(),
        out_dir=None,
    ):
        self.datadir = Path(datadir)
        self.datadir.mkdir(parents=True, exist_ok=True)
        self.port = port if port is not None else free_port()
        self.socket = str(self.datadir / "kiln.sock")
        self.log_path = self.datadir / "error.log"
        out_dir = Path(out_dir) if out_dir else self.datadir.parent
        self.out_path = out_dir / f"kiln-{self.datadir.name}-{self.port}.out"
        args = []
        if defaults_file is not None:
            args.append(f"--defaults-file={defaults_file}")
        elif no_defaults:
            args.append("--no-defaults")
        std = {
            "datadir": f"--datadir={self.datadir}",
            "port": f"--port={self.port}",
            "socket": f"--socket={self.socket}",
            "log-error": f"--log-error={self.log_path}",
        }
        args += [v for k, v in std.items() if k not in omit]
        args += list(extra_args)
        self.args = args
        self.proc = None
        self.exit_code = None
        self.start_failed = False

    # -- process control ------------------------------------------------------

    def start(self, timeout=START_TIMEOUT):
        self._out = open(self.out_path, "ab")
        self.proc = subprocess.Popen(
            [KILN_BIN, *self.args],
            stdin=subprocess.DEVNULL,
            stdout=self._out,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            rc = self.proc.poll()
            if rc is not None:
                self.exit_code = rc
                self.start_failed = True
                raise KilnStartError(
                    f"kiln exited with {rc} during start-up\n"
                    f"args: {self.args}\n{self.diagnostics()}"
                )
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    pass
                c = self.connect(connect_timeout=2, read_timeout=5)
                c.close()
                return self
            except Exception as e:  # not up yet
                last = e
                time.sleep(0.05)
        self.kill()
        self.start_failed = True
        raise KilnStartError(
            f"kiln did not accept a root login within {timeout}s (last error: {last!r})\n"
            f"args: {self.args}\n{self.diagnostics()}"
        )

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def wait(self, timeout=STOP_TIMEOUT):
        """Waits for the process to exit by itself; returns its exit code."""
        try:
            self.exit_code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"kiln did not exit within {timeout}s\n{self.diagnostics()}")
        self._close_out()
        return self.exit_code

    def send_signal(self, sig):
        self.proc.send_signal(sig)

    def stop(self, sig=signal.SIGTERM, timeout=STOP_TIMEOUT):
        """Sends `sig` (SIGTERM) and waits; returns the exit code. SIGKILL as a last
        resort, which fails the test."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill()
                pytest.fail(
                    f"kiln did not exit within {timeout}s of signal {sig}; killed it\n"
                    f"{self.diagnostics()}"
                )
        self.exit_code = self.proc.returncode
        self._close_out()
        return self.exit_code

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.proc is not None:
            self.exit_code = self.proc.returncode
        self._close_out()

    def _close_out(self):
        out = getattr(self, "_out", None)
        if out is not None and not out.closed:
            out.close()

    # -- output ---------------------------------------------------------------

    def log_text(self):
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def output_text(self):
        try:
            return self.out_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def diagnostics(self):
        return (
            f"--- error log ({self.log_path}) ---\n{self.log_text()[-4000:]}\n"
            f"--- stdout/stderr ---\n{self.output_text()[-4000:]}"
        )

    # -- clients --------------------------------------------------------------

    def connect(self, **kw):
        """PyMySQL over TCP as root with an empty password, autocommit on."""
        args = dict(
            host="127.0.0.1",
            port=self.port,
            user="root",
            password="",
            autocommit=True,
            connect_timeout=10,
            read_timeout=60,
            write_timeout=60,
        )
        args.update(kw)
        return pymysql.connect(**args)

    def connect_unix(self, **kw):
        args = dict(unix_socket=self.socket)
        args.update(kw)
        return self.connect(**args)

    def query(self, sql, **kw):
        """Runs one statement on a new root connection; returns all rows."""
        c = self.connect(**kw)
        try:
            with c.cursor() as cur:
                cur.execute(sql)
                return cur.fetchall()
        finally:
            c.close()

    def mariadb(self, *args, user="root", password=None, timeout=30, tcp=True):
        """Runs the `mariadb` CLI against this server: (exit code, stdout, stderr)."""
        cmd = ["mariadb", "--no-defaults"]
        if tcp:
            cmd += ["-h127.0.0.1", f"-P{self.port}", "--protocol=TCP"]
        else:
            cmd += [f"--socket={self.socket}", "--protocol=SOCKET"]
        cmd += [f"-u{user}"]
        if password is not None:
            cmd += [f"-p{password}"]
        cmd += list(args)
        return run_command(cmd, timeout)


def _teardown(servers):
    problems = []
    for s in servers:
        if s.proc is None or s.start_failed:  # already reported by the test
            s.kill()
            continue
        rc = s.stop()
        if rc != 0:
            problems.append(f"kiln {s.args} exited with {rc}\n{s.diagnostics()}")
    if problems:
        pytest.fail("\n".join(problems))


class KilnFactory:
    """Starts servers for one test (or module) and stops them all at teardown."""

    def __init__(self, base_dir):
        self.base_dir = Path(base_dir)
        self.servers = []
        self._n = 0

    def new_datadir(self):
        self._n += 1
        d = self.base_dir / f"data{self._n}"
        d.mkdir(parents=True)
        return d

    def __call__(self, extra_args=(), datadir=None, start=True, **kw):
        if datadir is None:
            datadir = self.new_datadir()
        s = KilnServer(datadir, extra_args=extra_args, out_dir=self.base_dir, **kw)
        self.servers.append(s)
        if start:
            err = None
            try:
                s.start()
            except KilnStartError as e:
                err = str(e)
            if err is not None:
                pytest.fail(err, pytrace=False)
        return s


@pytest.fixture
def kiln_factory(tmp_path):
    f = KilnFactory(tmp_path)
    yield f
    _teardown(f.servers)


@pytest.fixture
def kiln(kiln_factory):
    """A fresh kiln server for this test."""
    return kiln_factory()


@pytest.fixture(scope="module")
def kiln_shared(tmp_path_factory):
    """One kiln server for the whole module: only for tests that change no state."""
    f = KilnFactory(tmp_path_factory.mktemp("shared"))
    yield f()
    _teardown(f.servers)
