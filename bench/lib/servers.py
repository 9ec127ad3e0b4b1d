"""The servers under test: kiln, MariaDB (Debian's mariadbd, optionally with its bundled
handlersocket.so) and memcached, each on a private datadir, Unix socket and free
loopback ports, started with the same settings; SIGTERM/SIGKILL/restart, SQL and
status access (PyMySQL), the process's CPU time, and a description of every setting
for the results (the command line and the variables the server reports).

Settings are MySQL variable names. Both SQL servers get `common` the same way; the
redo size is one value, passed as kiln's innodb_redo_log_capacity and MariaDB's
innodb_log_file_size. `knobs` are experiment-specific variables passed as
`--loose-<name>`: a server that lacks one starts anyway, and `unsupported` lists it
(read back from SHOW GLOBAL VARIABLES) so the experiment can say so."""

import os
import shlex
import shutil
import signal
import socket
import subprocess
import time

import pymysql

from . import progress

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLK_TCK = os.sysconf("SC_CLK_TCK")
PLUGIN_DIRS = ("/usr/lib/mysql/plugin", "/usr/lib/x86_64-linux-gnu/mariadb19/plugin",
               "/usr/local/mysql/lib/plugin")


def _target_dir():
    return os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target")


def kiln_bin():
    return os.environ.get("KILN_BIN") or os.path.join(_target_dir(), "release", "kiln")


def kiln_bench_bin():
    env = os.environ.get("KILN_BENCH_BIN")
    if env:
        return env
    # Beside KILN_BIN first (a debug kiln comes with a debug kiln-bench).
    if os.environ.get("KILN_BIN"):
        cand = os.path.join(os.path.dirname(os.environ["KILN_BIN"]), "kiln-bench")
        if os.access(cand, os.X_OK):
            return cand
    return os.path.join(_target_dir(), "release", "kiln-bench")


def find_program(prog):
    """The program on PATH or in the sbin directories (mariadbd lives in /usr/sbin)."""
    return shutil.which(prog, path=os.pathsep.join(
        [os.environ.get("PATH", ""), "/usr/sbin", "/usr/local/sbin"]))


def find_hs_plugin():
    for d in PLUGIN_DIRS:
        if os.path.exists(os.path.join(d, "handlersocket.so")):
            return os.path.join(d, "handlersocket.so")
    return None


def free_ports(n):
    """n distinct TCP ports of 127.0.0.1 that were free a moment ago."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def common(pool="1G", redo="512M", flush=1, max_connections=2000, **more):
    """The settings every SQL server of an experiment gets (same values for both)."""
    s = {
        "innodb_buffer_pool_size": pool,
        "innodb_flush_log_at_trx_commit": str(flush),
        "redo_log_size": redo,
        "innodb_doublewrite": "ON",
        "max_connections": str(max_connections),
        # sysbench prepares ~5 statements per thread: thousands of threads need more
        # than the default 16,382.
        "max_prepared_stmt_count": "1048576",
    }
    s.update({k: str(v) for k, v in more.items()})
    return s


# Where Unix sockets go when set (a short directory: socket paths must stay under 108
# bytes, and datadirs may live in a long path).
SOCKET_DIR = None


def set_socket_dir(path):
    global SOCKET_DIR
    SOCKET_DIR = path


class ServerError(Exception):
    pass


class Server:
    """One server process. kind: 'kiln', 'mariadb' or 'memcached'."""

    _count = 0

    def __init__(self, kind, label, base, settings=None, knobs=None, hs=False, hs_threads=2,
                 memcached_threads=2, memcached_mb=1024, datadir=None):
        self.kind, self.label = kind, label
        # Short file names: Unix socket paths must stay under 108 bytes.
        Server._count += 1
        self.name = f"{kind}{Server._count}"
        self.base = base
        self.settings = dict(settings or {})
        self.knobs = dict(knobs or {})
        self.hs, self.hs_threads = hs, hs_threads
        self.memcached_threads, self.memcached_mb = memcached_threads, memcached_mb
        self.datadir = datadir or os.path.join(base, self.name)
        self.socket = os.path.join(SOCKET_DIR or base, self.name + ".sock")
        self.log_path = os.path.join(base, self.name + ".err")
        self.port = self.hs_port = self.hs_port_wr = None
        self.proc = None
        self.cmd = []
        self.ready_s = None
        self.effective = []
        self.unsupported = []
        self._installed = kind != "mariadb"

    # --- command lines ---------------------------------------------------------------

    def _command(self):
        s = dict(self.settings)
        redo = s.pop("redo_log_size", None)
        if self.kind == "memcached":
            (self.port,) = free_ports(1)
            cmd = [find_program("memcached"), "-l", "127.0.0.1", "-p", str(self.port), "-U", "0",
                   "-t", str(self.memcached_threads), "-m", str(self.memcached_mb), "-c", "8192"]
            if os.geteuid() == 0:
                cmd += ["-u", "root"]
            return cmd
        self.port, self.hs_port, self.hs_port_wr = free_ports(3)
        opts = [f"--datadir={self.datadir}", f"--socket={self.socket}",
                f"--port={self.port}", "--bind-address=127.0.0.1"]
        opts += [f"--{k.replace('_', '-')}={v}" for k, v in s.items()]
        opts += [f"--loose-{k.replace('_', '-')}={v}" for k, v in self.knobs.items()]
        if self.kind == "kiln":
            cmd = [kiln_bin(), "--no-defaults", *opts]
            if redo:
                cmd.append(f"--innodb-redo-log-capacity={redo}")
            if self.hs:
                cmd += ["--handlersocket-address=127.0.0.1",
                        f"--handlersocket-port={self.hs_port}",
                        f"--handlersocket-port-wr={self.hs_port_wr}",
                        f"--handlersocket-threads={self.hs_threads}",
                        f"--handlersocket-threads-wr={self.hs_threads}"]
            return cmd
        cmd = [find_program("mariadbd"), "--no-defaults", *self._user(), "--skip-log-bin",
               f"--log-error={self.log_path}",
               f"--pid-file={os.path.join(self.base, self.name + '.pid')}",
               f"--open-files-limit={int(self.settings.get('max_connections', 2000)) * 2 + 2000}",
               *opts]
        if redo:
            cmd.append(f"--innodb-log-file-size={redo}")
        if self.hs:
            cmd += ["--plugin-maturity=beta", "--plugin-load-add=handlersocket.so",
                    "--handlersocket-address=127.0.0.1",
                    f"--handlersocket-port={self.hs_port}",
                    f"--handlersocket-port-wr={self.hs_port_wr}",
                    "--handlersocket-plain-secret=", "--handlersocket-plain-secret-wr=",
                    f"--handlersocket-threads={self.hs_threads}",
                    f"--handlersocket-threads-wr={self.hs_threads}"]
        return cmd

    @staticmethod
    def _user():
        return ["--user=root"] if os.geteuid() == 0 else []

    def _install(self):
        if self._installed or os.path.isdir(os.path.join(self.datadir, "mysql")):
            self._installed = True
            return
        p = subprocess.run([find_program("mariadb-install-db"), "--no-defaults",
                            f"--datadir={self.datadir}", *self._user(),
                            "--auth-root-authentication-method=normal"],
                           capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            raise ServerError(f"mariadb-install-db failed:\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
        self._installed = True

    # --- life cycle ------------------------------------------------------------------

    def start(self, timeout=900):
        """Starts the server and waits until it answers; sets ready_s (seconds from
        spawn to the first answered query) and reads back the settings."""
        self._install()
        self.cmd = self._command()
        out = open(self.log_path if self.kind != "mariadb" else self.log_path + ".out", "ab")
        t0 = time.monotonic()
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL, stdout=out,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        out.close()
        deadline = t0 + timeout
        while True:
            if self.proc.poll() is not None:
                raise ServerError(f"{self.label} exited during start-up "
                                  f"({self.proc.returncode}):\n{self.log_tail()}")
            if self._answers():
                break
            if time.monotonic() > deadline:
                raise ServerError(f"{self.label} did not answer within {timeout} s:\n"
                                  f"{self.log_tail()}")
            time.sleep(0.05)
        self.spawned_at = t0
        self.ready_s = time.monotonic() - t0
        if self.hs:
            self._wait_tcp([self.hs_port, self.hs_port_wr], deadline)
        if self.kind != "memcached":
            self._read_settings()
        return self

    def _answers(self):
        if self.kind == "memcached":
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return True
            except OSError:
                return False
        if not os.path.exists(self.socket):
            return False
        try:
            c = self.connect(timeout=2)
            c.cursor().execute("SELECT 1")
            c.close()
            return True
        except pymysql.MySQLError:
            return False

    def _wait_tcp(self, ports, deadline):
        for port in ports:
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or self.proc.poll() is not None:
                        raise ServerError(f"{self.label}: port {port} not listening:\n"
                                          f"{self.log_tail()}")
                    time.sleep(0.1)

    def _read_settings(self):
        names = [k for k in self.settings if k != "redo_log_size"] + list(self.knobs)
        names += ["version", "innodb_redo_log_capacity", "innodb_log_file_size",
                  "thread_handling", "thread_pool_size", "innodb_buffer_pool_instances",
                  "innodb_use_native_aio", "innodb_flush_method", "innodb_change_buffering",
                  "innodb_io_capacity"]
        if self.hs:
            names += ["handlersocket_threads", "handlersocket_threads_wr"]
        have = dict(self.query("SHOW GLOBAL VARIABLES"))
        seen = []
        self.effective = []
        for n in names:
            if n in seen:
                continue
            seen.append(n)
            if n in have:
                self.effective.append((n, have[n]))
        self.unsupported = [k for k in self.knobs if k not in have]

    def stop(self, timeout=300):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                progress.log(f"{self.label} did not stop in {timeout} s after SIGTERM; killing it")
                self.proc.kill()
                self.proc.wait()

    def kill(self):
        """SIGKILL: a crash, nothing flushed."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def clone(self, label, settings=None, knobs=None):
        """A server of the same kind on a copy of this (stopped) server's datadir."""
        assert not self.alive(), "clone a stopped server"
        other = Server(self.kind, label, self.base, settings or self.settings,
                       knobs if knobs is not None else self.knobs, hs=self.hs,
                       hs_threads=self.hs_threads)
        if os.path.exists(self.datadir):
            shutil.copytree(self.datadir, other.datadir, symlinks=True,
                            ignore=shutil.ignore_patterns("*.sock", "*.pid", "*.lock"))
        other._installed = True
        return other

    # --- access ----------------------------------------------------------------------

    def connect(self, db=None, timeout=30):
        return pymysql.connect(unix_socket=self.socket, user="root", database=db,
                               connect_timeout=timeout, autocommit=True)

    def query(self, stmt, db=None):
        c = self.connect(db)
        try:
            cur = c.cursor()
            cur.execute(stmt)
            return cur.fetchall()
        finally:
            c.close()

    def status(self):
        """SHOW GLOBAL STATUS as {name: value-string}."""
        return dict(self.query("SHOW GLOBAL STATUS"))

    def cpu_seconds(self):
        """utime + stime of the server process (all threads), in seconds."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            data = f.read()
        fields = data[data.rindex(")") + 2:].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    def version(self):
        if self.kind == "memcached":
            p = subprocess.run([find_program("memcached"), "-V"], capture_output=True, text=True)
            return p.stdout.strip()
        try:
            return self.query("SELECT VERSION()")[0][0]
        except pymysql.MySQLError:
            return "?"

    def describe(self):
        """For the report: label, version, command line, effective settings."""
        return {"label": self.label, "version": self.version(),
                "command": shlex.join(self.cmd).replace(self.base, "$TMP").replace(
                    os.path.dirname(self.socket), "$SOCKETS"),
                "settings": self.effective}

    def log_tail(self, n=3000):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()[-n:]
        except OSError:
            return ""


def sql_label(kind, pool=False):
    """The label of an SQL server in tables and plots."""
    name = "kiln" if kind == "kiln" else "MariaDB"
    return name + (" pool" if pool else "")


def make_sql_servers(base, systems, settings, knobs=None, hs=False, hs_threads=2):
    """Server objects (not started) for systems among 'kiln', 'kiln pool', 'MariaDB',
    'MariaDB pool'; the pool ones get thread_handling=pool-of-threads."""
    out = []
    for s in systems:
        kind = "kiln" if s.startswith("kiln") else "mariadb"
        st = dict(settings)
        if s.endswith("pool"):
            st["thread_handling"] = "pool-of-threads"
        out.append(Server(kind, s, base, st, knobs, hs=hs, hs_threads=hs_threads))
    return out
