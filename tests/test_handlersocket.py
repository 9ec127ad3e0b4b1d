"""HandlerSocket: kiln's listener against MariaDB 10.11's handlersocket.so, and kiln's
own guarantees (spec: /work/shared/specs/handlersocket.md; MariaDB's observed answers:
tests/hs_mariadb_observed.md).

Parts:
  * transcripts (tests/hs_scripts.py): every script runs on a fresh database on
    - MariaDB, checked against the recorded answers (test_mariadb_transcript), and
    - kiln, compared line for line with MariaDB's live answers, or with the recording
      when no MariaDB is installed (test_kiln_transcript). Deliberate differences carry
      kiln's intended answer (`k<` lines); `~` steps are not compared;
  * both servers: HS text = SQL text for every column type, binary values, NULL vs '',
    long pipelines, many connections, and the published npm client node-handlersocket
    0.1.0 driven by tests/hs_node_client.js (test_both_*);
  * kiln only: the spec's limits (overlong lines, huge indexids), garbage input, auth on
    both ports, status counters, insert defaults, and durability of acknowledged writes
    across SIGKILL (test_kiln_*).

MariaDB runs privately (tests/mariadb_server.py) with
  --plugin-maturity=beta --plugin-load-add=handlersocket.so --handlersocket-address=...
and an empty --handlersocket-plain-secret (Debian's build otherwise picks a random one).
Its tests skip when mariadbd or handlersocket.so is missing. The only thing this file
installs is node-handlersocket, with npm into pytest's temporary directory (once per
module); that test skips when node/npm is missing or the npm registry is unreachable.

`python3 tests/test_handlersocket.py --record` re-records MariaDB's answers into
tests/hs_scripts.py and regenerates the table in tests/hs_mariadb_observed.md.
"""

import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pymysql
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conftest import KilnFactory, _teardown, free_port  # noqa: E402
from hs_scripts import FIXTURES, RD_SECRET, SCRIPTS, WR_SECRET, render  # noqa: E402
from hsclient import HSClient, HSClosed, build_line, decode_line, escape, rows_of, show, unshow  # noqa: E402
from mariadb_server import MariaDB, find_mariadb  # noqa: E402

PLUGIN_DIRS = ("/usr/lib/mysql/plugin", "/usr/lib/x86_64-linux-gnu/mariadb19/plugin", "/usr/local/mysql/lib/plugin")
HS_TIMEOUT = 10.0  # seconds a test waits for one answer line
PORT_WAIT = 30.0


def find_plugin():
    for d in PLUGIN_DIRS:
        p = os.path.join(d, "handlersocket.so")
        if os.path.exists(p):
            return p
    return None


def wait_ports(ports, alive, timeout=PORT_WAIT):
    """Waits until every port accepts a TCP connection; returns None or an error text."""
    deadline = time.monotonic() + timeout
    pending = list(ports)
    while pending and time.monotonic() < deadline:
        if not alive():
            return "the server exited"
        p = pending[0]
        try:
            socket.create_connection(("127.0.0.1", p), timeout=1).close()
            pending.pop(0)
        except OSError:
            time.sleep(0.1)
    return None if not pending else f"HandlerSocket ports {pending} not listening after {timeout}s"


def hs_args(rd, wr, rd_secret="", wr_secret="", extra=()):
    args = [
        "--handlersocket-address=127.0.0.1",
        f"--handlersocket-port={rd}",
        f"--handlersocket-port-wr={wr}",
    ]
    if rd_secret is not None:
        args.append(f"--handlersocket-plain-secret={rd_secret}")
    if wr_secret is not None:
        args.append(f"--handlersocket-plain-secret-wr={wr_secret}")
    return args + list(extra)


class HSServer:
    """A server under test: SQL through `connect(**kw)` (PyMySQL kwargs) and the two
    HandlerSocket ports."""

    def __init__(self, name, connect, rd_port, wr_port, alive):
        self.name = name
        self._connect = connect
        self.rd_port = rd_port
        self.wr_port = wr_port
        self.alive = alive
        self._ndb = 0

    def connect(self, **kw):
        return self._connect(**kw)

    def hs(self, port="rd", timeout=HS_TIMEOUT):
        return HSClient("127.0.0.1", self.rd_port if port.startswith("rd") else self.wr_port, timeout=timeout)

    def sql(self, stmt, db=None):
        c = self.connect(**({"database": db} if db else {}))
        try:
            with c.cursor() as cur:
                cur.execute(stmt)
                return cur.fetchall()
        finally:
            c.close()

    def text_rows(self, stmt, db):
        """Rows of a SELECT as the text the server sent (bytes for binary columns)."""
        c = self.connect(database=db, conv={})
        try:
            with c.cursor() as cur:
                cur.execute(stmt)
                return [tuple(r) for r in cur.fetchall()]
        finally:
            c.close()

    def new_db(self, label, setup=()):
        """A fresh database holding FIXTURES and `setup`; returns its name."""
        self._ndb += 1
        name = re.sub(r"[^a-z0-9_]", "_", f"h{self._ndb}_{label}".lower())[:60]
        c = self.connect()
        try:
            with c.cursor() as cur:
                cur.execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci")
                cur.execute(f"USE `{name}`")
                for stmt in list(FIXTURES) + list(setup):
                    cur.execute(stmt)
        finally:
            c.close()
        return name


# -- servers ---------------------------------------------------------------------------


def _start_maria(secret_rd, secret_wr):
    """Returns (HSServer, MariaDB) or (None, reason)."""
    mariadbd, install_db = find_mariadb()
    if not mariadbd:
        return None, "MariaDB server (mariadbd, mariadb-install-db) is not installed"
    if not find_plugin():
        return None, "handlersocket.so (Debian package mariadb-server) is not installed"
    base = tempfile.mkdtemp(prefix="kiln-hs-")
    rd, wr = free_port(), free_port()
    m = MariaDB(
        base,
        mariadbd,
        install_db,
        extra_args=[
            "--plugin-maturity=beta",
            "--plugin-load-add=handlersocket.so",
            *hs_args(rd, wr, secret_rd, secret_wr),
        ],
    )
    try:
        m.start()
    except Exception as e:
        m.cleanup()
        pytest.fail(f"could not start MariaDB with handlersocket: {e}", pytrace=False)
    err = wait_ports([rd, wr], lambda: m.proc.poll() is None)
    if err:
        diag = m.diagnostics()
        m.cleanup()
        pytest.fail(f"MariaDB: {err}\n{diag}", pytrace=False)
    return HSServer("MariaDB", m.connect, rd, wr, lambda: m.proc.poll() is None), m


@pytest.fixture(scope="module")
def maria_hs():
    """MariaDB with handlersocket, no secrets; a falsy _Missing (with .reason) when
    mariadbd or handlersocket.so is not installed."""
    srv, m = _start_maria("", "")
    yield srv if srv is not None else _Missing(m)
    if srv is not None:
        m.cleanup()


@pytest.fixture(scope="module")
def maria_hs_auth():
    srv, m = _start_maria(RD_SECRET, WR_SECRET)
    yield srv if srv is not None else _Missing(m)
    if srv is not None:
        m.cleanup()


class _Missing:
    def __init__(self, reason):
        self.reason = reason

    def __bool__(self):
        return False


def need(srv):
    if not srv:
        pytest.skip(srv.reason)
    return srv


def _start_kiln(factory, rd_secret=None, wr_secret=None, extra=(), datadir=None):
    rd, wr = free_port(), free_port()
    s = factory(extra_args=hs_args(rd, wr, rd_secret, wr_secret, extra), datadir=datadir)
    err = wait_ports([rd, wr], s.alive)
    if err:
        pytest.fail(f"kiln: {err}\n{s.diagnostics()}", pytrace=False)
    return HSServer("kiln", s.connect, rd, wr, s.alive), s


@pytest.fixture(scope="module")
def kiln_hs(tmp_path_factory):
    f = KilnFactory(tmp_path_factory.mktemp("hs"))
    srv, _ = _start_kiln(f)
    yield srv
    _teardown(f.servers)


@pytest.fixture(scope="module")
def kiln_hs_auth(tmp_path_factory):
    f = KilnFactory(tmp_path_factory.mktemp("hsauth"))
    srv, _ = _start_kiln(f, RD_SECRET, WR_SECRET)
    yield srv
    _teardown(f.servers)


# -- transcripts -----------------------------------------------------------------------


def _render_row(row):
    """An SQL row in the notation of the scripts: values escaped as HandlerSocket
    sends them, TAB-separated, written with show()."""
    return show(b"\t".join(escape(v) for v in row))


def run_script(srv, script, db=None):
    """Runs a script on a fresh database; returns one list of answer lines (show
    notation) per step."""
    db = db or srv.new_db(script.id, script.setup)
    conns = {}
    dead = set()
    results = []
    try:
        for step in script.steps:
            if step.is_sql:
                try:
                    rows = srv.text_rows(unshow(step.req).decode("utf-8"), db)
                    results.append([_render_row(r) for r in rows] or ["(empty)"])
                except pymysql.MySQLError as e:
                    results.append([f"(error {e.args[0]})"])
                continue
            data = unshow(step.req.replace("{db}", db)) + b"\n"
            n = data.count(b"\n")
            if step.conn in dead:
                results.append(["<closed>"])
                continue
            c = conns.get(step.conn)
            if c is None:
                c = conns[step.conn] = srv.hs(step.conn)
            out = []
            try:
                c.raw(data)
                for _ in range(n):
                    out.append(show(c.readline()))
            except (HSClosed, BrokenPipeError, ConnectionResetError):
                out.append("<closed>")
                dead.add(step.conn)
            except socket.timeout:
                out.append("<no answer>")
                dead.add(step.conn)
            results.append(out)
    finally:
        for c in conns.values():
            c.close()
    return results


def transcript(script, cols):
    """A readable side-by-side of a script's steps: cols = [(title, results)]."""
    lines = [f"script {script.id}"]
    for i, step in enumerate(script.steps):
        mark = " (not compared)" if step.nocompare else ""
        lines.append(f"[{i}] {step.conn}> {step.req}{mark}" + (f"   ## {step.note}" if step.note else ""))
        if step.kiln is not None:
            lines.append(f"      kiln intended: {' | '.join(step.kiln)}")
        for title, res in cols:
            r = res[i] if res is not None and i < len(res) else None
            lines.append(f"      {title:>9}: {' | '.join(r) if r is not None else '-'}")
    return "\n".join(lines)


def _ids(s):
    return s.id


@pytest.mark.parametrize("script", SCRIPTS, ids=_ids)
def test_mariadb_transcript(request, script):
    """MariaDB still answers what tests/hs_scripts.py recorded."""
    srv = need(request.getfixturevalue("maria_hs_auth" if script.server == "auth" else "maria_hs"))
    assert not script.needs_recording(), f"{script.id} has unrecorded steps: run with --record"
    got = run_script(srv, script)
    want = [s.expect for s in script.steps]
    assert got == want, transcript(script, [("recorded", want), ("MariaDB", got)])


@pytest.mark.parametrize("script", SCRIPTS, ids=_ids)
def test_kiln_transcript(request, script):
    """kiln answers as MariaDB does (live, or as recorded when MariaDB is missing),
    except where the script states kiln's intended answer."""
    auth = script.server == "auth"
    maria = request.getfixturevalue("maria_hs_auth" if auth else "maria_hs")
    kiln = request.getfixturevalue("kiln_hs_auth" if auth else "kiln_hs")
    ref = run_script(maria, script) if maria else [s.expect for s in script.steps]
    got = run_script(kiln, script)
    bad = []
    for i, step in enumerate(script.steps):
        if step.nocompare:
            continue
        want = step.kiln if step.kiln is not None else ref[i]
        if got[i] != want:
            bad.append(i)
    assert kiln.alive(), "kiln died\n" + transcript(script, [("MariaDB", ref), ("kiln", got)])
    assert not bad, f"steps {bad} differ\n" + transcript(
        script, [("MariaDB" if maria else "recorded", ref), ("kiln", got)]
    )


# -- both servers ----------------------------------------------------------------------

BOTH = ["mariadb", "kiln"]


def server(request, kind):
    if kind == "mariadb":
        return need(request.getfixturevalue("maria_hs"))
    return request.getfixturevalue("kiln_hs")


CONS_TABLE = (
    "CREATE TABLE cons (id INT NOT NULL PRIMARY KEY, ti TINYINT NULL, i INT NULL,"
    " u INT UNSIGNED NULL, b BIGINT NULL, bu BIGINT UNSIGNED NULL, d DECIMAL(12,3) NULL,"
    " f FLOAT NULL, dbl DOUBLE NULL,"
    " v VARCHAR(50) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL,"
    " ch CHAR(10) NULL, vb VARBINARY(300) NULL, bl BLOB NULL, tx TEXT NULL, dt DATE NULL,"
    " dtm DATETIME NULL, dtm6 DATETIME(6) NULL, tm TIME NULL, y YEAR NULL,"
    " e ENUM('x','y','z') NULL, nn VARCHAR(5) NOT NULL DEFAULT '') ENGINE=InnoDB"
)
CONS_COLS = "id,ti,i,u,b,bu,d,f,dbl,v,ch,vb,bl,tx,dt,dtm,dtm6,tm,y,e,nn"

# (values as sent through HS / an SQL literal, the canonical text both servers show)
CONS_ROWS = [
    (
        [1, -128, -2147483648, 4294967295, -9223372036854775808, 18446744073709551615, "-1.5",
         "1.5", "0.25", "héllo wörld", "abc", b"\x00\x01\xff", b"blob\x00data", "some text",
         "2024-02-29", "2024-02-29 23:59:59", "2024-02-29 23:59:59.123456", "-12:34:56",
         "2024", "y", "nn"],
        ["1", "-128", "-2147483648", "4294967295", "-9223372036854775808", "18446744073709551615",
         "-1.500", "1.5", "0.25", "héllo wörld", "abc", b"\x00\x01\xff", b"blob\x00data",
         "some text", "2024-02-29", "2024-02-29 23:59:59", "2024-02-29 23:59:59.123456",
         "-12:34:56", "2024", "y", "nn"],
    ),
    (
        [2, 127, 0, 0, 0, 0, "0", "-2", "1e20", "", "", b"", b"", "", "1000-01-01",
         "1000-01-01 00:00:00", "9999-12-31 23:59:59.999999", "838:59:59", "1901", "x", ""],
        ["2", "127", "0", "0", "0", "0", "0.000", "-2", "1e20", "", "", b"", b"", "",
         "1000-01-01", "1000-01-01 00:00:00", "9999-12-31 23:59:59.999999", "838:59:59",
         "1901", "x", ""],
    ),
    (
        [3] + [None] * 19 + ["z"],
        ["3"] + [None] * 19 + ["z"],
    ),
]


def _as_bytes(v):
    if v is None:
        return None
    if isinstance(v, (bytes, bytearray)):
        return bytes(v)
    return str(v).encode("utf-8")


def _sql_literal(v):
    if v is None:
        return "NULL"
    if isinstance(v, (bytes, bytearray)):
        return "X'" + bytes(v).hex() + "'" if v else "''"
    if isinstance(v, int):
        return str(v)
    return "'" + str(v).replace("\\", "\\\\").replace("'", "''") + "'"


def _cons_db(srv, label):
    db = srv.new_db(label, [CONS_TABLE])
    return db


@pytest.mark.parametrize("kind", BOTH)
def test_both_hs_writes_read_back_through_sql(request, kind):
    """Rows inserted through HS: SQL shows exactly the values, HS reads show the same
    text as SQL, for every column type; NULL and '' stay different."""
    srv = server(request, kind)
    db = _cons_db(srv, "cons_hs")
    with srv.hs("wr") as w:
        assert w.open_index(1, db, "cons", "PRIMARY", CONS_COLS) == [b"0", b"1"]
        for given, _ in CONS_ROWS:
            r = w.insert(1, given)
            assert r == [b"0", b"1"], (given, r)
    sql_rows = srv.text_rows(f"SELECT {CONS_COLS} FROM cons ORDER BY id", db)
    assert [tuple(_as_bytes(v) for v in r) for r in sql_rows] == [
        tuple(_as_bytes(v) for v in want) for _, want in CONS_ROWS
    ]
    with srv.hs("rd") as r:
        assert r.open_index(1, db, "cons", "PRIMARY", CONS_COLS) == [b"0", b"1"]
        hs_rows = rows_of(r.find(1, ">=", [1], limit=10))
    assert hs_rows == [tuple(_as_bytes(v) for v in row) for row in sql_rows]


@pytest.mark.parametrize("kind", BOTH)
def test_both_sql_writes_read_through_hs(request, kind):
    """Rows inserted through SQL read identically through HS; SQL UPDATEs are seen by
    the next HS request; HS updates are seen by SQL."""
    srv = server(request, kind)
    db = _cons_db(srv, "cons_sql")
    cols = CONS_COLS.split(",")
    for given, _ in CONS_ROWS:
        srv.sql(
            f"INSERT INTO cons ({', '.join(cols)}) VALUES ({', '.join(_sql_literal(v) for v in given)})",
            db,
        )
    sql_rows = srv.text_rows(f"SELECT {CONS_COLS} FROM cons ORDER BY id", db)
    with srv.hs("rd") as r, srv.hs("wr") as w:
        assert r.open_index(1, db, "cons", "PRIMARY", CONS_COLS) == [b"0", b"1"]
        assert rows_of(r.find(1, ">=", [1], limit=10)) == [tuple(_as_bytes(v) for v in row) for row in sql_rows]
        srv.sql("UPDATE cons SET v = 'changed', bl = NULL WHERE id = 1", db)
        got = rows_of(r.find(1, "=", [1]))[0]
        assert got[cols.index("v")] == b"changed" and got[cols.index("bl")] is None
        assert w.open_index(1, db, "cons", "PRIMARY", "v,tx") == [b"0", b"1"]
        assert w.find(1, "=", [2], mod=("U", ["", None])) == [b"0", b"1", b"1"]
    assert srv.text_rows("SELECT v, tx FROM cons WHERE id = 2", db) == [("", None)]


@pytest.mark.parametrize("kind", BOTH)
def test_both_binary_roundtrip(request, kind):
    """Every byte 0x00-0xff in VARBINARY and BLOB, through HS and through SQL."""
    srv = server(request, kind)
    db = srv.new_db("binrt")
    allb = bytes(range(256))
    with srv.hs("wr") as w:
        assert w.open_index(1, db, "bin", "PRIMARY", "id,vb,bl") == [b"0", b"1"]
        assert w.insert(1, [100, allb, allb[::-1]]) == [b"0", b"1"]
        for b in range(256):
            assert w.insert(1, [b + 1000, bytes([b]), bytes([b, b])]) == [b"0", b"1"], b
    srv.sql(f"INSERT INTO bin (id, vb, bl) VALUES (200, X'{allb.hex()}', X'{allb[::-1].hex()}')", db)
    rows = srv.sql("SELECT id, HEX(vb), HEX(bl) FROM bin ORDER BY id", db)
    by_id = {r[0]: (bytes.fromhex(r[1]), bytes.fromhex(r[2])) for r in rows}
    assert by_id[100] == (allb, allb[::-1])
    assert by_id[200] == (allb, allb[::-1])
    for b in range(256):
        assert by_id[b + 1000] == (bytes([b]), bytes([b, b])), b
    with srv.hs("rd") as r:
        assert r.open_index(1, db, "bin", "PRIMARY", "vb,bl") == [b"0", b"1"]
        assert r.find(1, "=", [100]) == [b"0", b"2", allb, allb[::-1]]
        assert r.find(1, "=", [200]) == [b"0", b"2", allb, allb[::-1]]
        raw = r.request_raw(1, "=", 1, 1000)
        assert raw == b"0\t2\t\x01@\t\x01@\x01@", show(raw)  # escaped on the wire too
        got = rows_of(r.find(1, ">=", [1000], limit=300))
        assert got == [(bytes([b]), bytes([b, b])) for b in range(256)]


@pytest.mark.parametrize("kind", BOTH)
def test_both_long_pipeline(request, kind):
    """500 requests in one send: 500 answers, in order."""
    srv = server(request, kind)
    db = srv.new_db("pipe")
    with srv.hs("rd") as r:
        assert r.open_index(1, db, "sbtest1", "PRIMARY", "id,k") == [b"0", b"1"]
        lines = [[1, "=", 1, (i % 8)] for i in range(500)]
        got = r.pipeline(lines)
    k = {1: b"10", 2: b"20", 3: b"20", 4: b"30", 5: b"40", 6: b"50"}
    for i, line in enumerate(got):
        key = i % 8
        want = b"0\t2\t%d\t%s" % (key, k[key]) if key in k else b"0\t2"
        assert line == want, (i, line)


PF_ROWS = 3000


def _pf_db(srv):
    """pf: 3,000 sysbench-like rows (a B+tree of many leaves) with a secondary index;
    spk: a VARCHAR primary key; cpk: a two-column primary key."""
    db = srv.new_db("pfetch", [
        "CREATE TABLE pf (id INT NOT NULL PRIMARY KEY, k INT NOT NULL, c CHAR(120) NOT NULL,"
        " pad CHAR(60) NOT NULL, KEY k_idx (k)) ENGINE=InnoDB",
        "CREATE TABLE spk (name VARCHAR(20) NOT NULL PRIMARY KEY, v INT) ENGINE=InnoDB",
        "CREATE TABLE cpk (a INT NOT NULL, b INT NOT NULL, v VARCHAR(10), PRIMARY KEY (a, b))"
        " ENGINE=InnoDB",
    ])
    for lo in range(1, PF_ROWS + 1, 500):
        vals = ", ".join(
            f"({i}, {i * 7 % 1000}, '{(('c%d-' % i) * 20)[:120]}', 'pad{i}')"
            for i in range(lo, min(lo + 500, PF_ROWS + 1))
        )
        srv.sql(f"INSERT INTO pf VALUES {vals}", db)
    srv.sql("INSERT INTO spk VALUES " + ", ".join(f"('name{i}', {i})" for i in range(200)), db)
    srv.sql("INSERT INTO cpk VALUES " + ", ".join(
        f"({a}, {b}, 'v{a}.{b}')" for a in range(20) for b in range(10)), db)
    return db


@pytest.mark.parametrize("kind", BOTH)
def test_both_pipelined_lookups_match_single_requests(request, kind):
    """One send of many primary-key lookups mixed with other requests (kiln prefetches
    the leaves of a batch's `=` finds before running it: docs/handlersocket.md) answers
    exactly as the same requests sent one at a time, and the rows found are the rows
    SQL shows. Keys: hits, misses, out-of-range and non-canonical numbers, escaped and
    NULL keys, string and two-part keys, scans, a secondary index, an unknown indexid."""
    srv = server(request, kind)
    db = _pf_db(srv)
    rng = random.Random(8)
    opens = [
        ["P", 1, db, "pf", "PRIMARY", "id,k,c,pad"],
        ["P", 2, db, "pf", "k_idx", "id,k"],
        ["P", 3, db, "spk", "PRIMARY", "name,v"],
        ["P", 4, db, "cpk", "PRIMARY", "a,b,v"],
    ]
    lines = []
    for n in range(400):
        lines.append([1, "=", 1, rng.randint(1, PF_ROWS)])
        if n % 10 == 0:
            lines.append([1, "=", 1, rng.choice(
                [0, PF_ROWS + 1, -5, 99999999999, "0012", "+12", " 12", "12.0", "12abc", "",
                 b"\x05", None])])
        if n % 25 == 0:
            lines += [
                [1, ">=", 1, rng.randint(1, PF_ROWS), 3, 0],
                [2, "=", 1, rng.randint(0, 999), 2, 0],
                [3, "=", 1, f"name{rng.randint(0, 250)}"],
                [4, "=", 2, rng.randint(0, 21), rng.randint(0, 11)],
                [4, "=", 1, rng.randint(0, 21), 3, 0],
                [9, "=", 1, 1],
            ]
    with srv.hs("rd") as batched, srv.hs("rd") as single:
        for o in opens:
            assert batched.request(*o) == [b"0", b"1"], o
            assert single.request(*o) == [b"0", b"1"], o
        got = batched.pipeline(lines)
        want = [single.request_raw(*l) for l in lines]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g == w, (i, lines[i], show(g), show(w))
    hits = [(l[3], g) for l, g in zip(lines, got) if l[:3] == [1, "=", 1] and isinstance(l[3], int)
            and 1 <= l[3] <= PF_ROWS]
    assert len(hits) >= 400
    sql = {int(r[0]): r for r in srv.text_rows(
        "SELECT id, k, c, pad FROM pf WHERE id IN (" + ",".join(str(k) for k, _ in hits) + ")", db)}
    for key, line in hits:
        assert decode_line(line) == [b"0", b"4", *[_as_bytes(v) for v in sql[key]]], key


@pytest.mark.parametrize("kind", BOTH)
def test_both_rebinding_inside_a_pipeline(request, kind):
    """An index id re-opened on another table (another key type) between lookups of
    one send: each lookup reads the table bound when it runs. (kiln converts a batch's
    lookup keys once, before the batch runs, for the binding of that moment: a lookup
    after a re-open must not use that key.) Also the lookup forms kiln answers on its
    fast path next to forms it does not (limit, filters, escaped and NULL keys)."""
    srv = server(request, kind)
    db = _pf_db(srv)
    spk, cpk = ["P", 1, db, "spk", "PRIMARY", "name,v"], ["P", 1, db, "cpk", "PRIMARY", "a,b,v"]
    pf = ["P", 1, db, "pf", "PRIMARY", "id,k,c,pad"]
    lines = []
    for n in range(1, 6):
        lines += [[1, "=", 1, n], [1, "=", 1, n + 10], spk, [1, "=", 1, n], [1, "=", 1, f"name{n}"],
                  cpk, [1, "=", 1, n], [1, "=", 2, n, 1], pf, [1, "=", 1, n + 20],
                  [1, "=", 1, n, 1, 0], [1, "=", 1, n, 1, 0, "F", "=", 0, n], [1, "=", 1, None],
                  [1, "=", 1, b"\x01"], [1, "=", 1, f"{n}\x00"], [1, "=", 1, f"00{n}"]]
    with srv.hs("rd") as batched, srv.hs("rd") as single:
        for c in (batched, single):
            assert c.request(*pf) == [b"0", b"1"]
            assert c.request("P", 2, db, "pf", "PRIMARY", "id", "k") == [b"0", b"1"]
        lines = [[2 if l[0] == 1 and "F" in l else l[0], *l[1:]] for l in lines]
        got = batched.pipeline(lines)
        want = [single.request_raw(*l) for l in lines]
    for i, (g, w) in enumerate(zip(got, want)):
        assert g == w, (i, lines[i], show(g), show(w))
    # After the re-open on spk (a VARCHAR key), `1 = 1 1` finds no row named '1'.
    assert got[3] == b"0\t2", show(got[3])
    assert decode_line(got[4]) == [b"0", b"2", b"name1", b"1"]
    assert decode_line(got[7]) == [b"0", b"3", b"1", b"1", b"v1.1"]
    assert decode_line(got[9])[:3] == [b"0", b"4", b"21"]


def test_kiln_deauth_inside_a_pipeline(kiln_hs_auth):
    """A wrong secret in the middle of a send de-authorizes the lookups after it, even
    though their keys were converted before the batch ran."""
    srv = kiln_hs_auth
    db = srv.new_db("deauth")
    with srv.hs("rd") as c:
        assert c.request("A", 1, RD_SECRET) == [b"0", b"1"]
        assert c.request("P", 1, db, "cnt", "PRIMARY", "id,a") == [b"0", b"1"]
        got = c.pipeline([[1, "=", 1, 1], [1, "=", 1, 2], ["A", 1, "nope"], [1, "=", 1, 1],
                          [1, "=", 1, 2], [1, "=", 1, 1, 1, 0], ["A", 1, RD_SECRET], [1, "=", 1, 2]])
    assert got == [b"0\t2\t1\t3", b"0\t2\t2\t5", b"3\t1\tunauth", b"3\t1\tunauth",
                   b"3\t1\tunauth", b"3\t1\tunauth", b"0\t1", b"0\t2\t2\t5"], [show(g) for g in got]


@pytest.mark.parametrize("kind", BOTH)
def test_both_many_connections(request, kind):
    """60 connections open at once on both ports, interleaved requests, each sees its
    own index bindings."""
    srv = server(request, kind)
    db = srv.new_db("conns")
    conns = [srv.hs("rd" if i % 2 else "wr") for i in range(60)]
    try:
        for i, c in enumerate(conns):
            cols = "id,k" if i % 3 else "id,c"
            assert c.open_index(7, db, "sbtest1", "PRIMARY", cols) == [b"0", b"1"]
        for rnd in range(3):
            for i, c in enumerate(conns):
                key = 1 + (i + rnd) % 6
                got = c.find(7, "=", [key])
                want_second = {1: b"10", 2: b"20", 3: b"20", 4: b"30", 5: b"40", 6: b"50"}[key]
                if i % 3 == 0:
                    want_second = b"c%d" % key
                assert got == [b"0", b"2", str(key).encode(), want_second], (i, got)
    finally:
        for c in conns:
            c.close()


# -- a published client: node-handlersocket 0.1.0 (npm, 2011) ------------------------

NODE_HS_PACKAGE = "node-handlersocket@0.1.0"
NODE_HS_SCRIPT = Path(__file__).resolve().parent / "hs_node_client.js"
NODE_HS_TABLE = (
    "CREATE TABLE nodehs (id INT NOT NULL PRIMARY KEY, k INT NULL,"
    " v VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL,"
    " n INT NOT NULL DEFAULT 0, KEY k_1 (k)) ENGINE=InnoDB"
)
# the string tests/hs_node_client.js stores: every byte 0x00-0x0f, non-ASCII
NODE_CTRL = "tab\there\nlf\rcr " + "".join(chr(i) for i in range(16)) + " h\u00e9llo \u2713 end"
_R1 = ["1", "10", "plain", "0"]
_R2 = ["2", "20", NODE_CTRL, "5"]
_R3 = ["3", None, None, "7"]
_R4 = ["4", "20", "", "0"]
_R5 = ["5", "30", "f\u00fcnf", "1"]
NODE_FINAL = [["1", "11", None, "0"], _R2, ["4", "40", "upd\tated", "2"], ["5", "30", "f\u00fcnf", "8"]]
# one JSON line per step of tests/hs_node_client.js, the same for kiln and MariaDB;
# inserts answer `0 1`, which the library's callback turns into NaN (JSON null)
NODE_EXPECTED = [
    {"step": "open_missing_table", "error": "1 open_table"},
    {"step": "insert_1", "result": None},
    {"step": "insert_2_ctrl", "result": None},
    {"step": "insert_3_null", "result": None},
    {"step": "insert_4_empty", "result": None},
    {"step": "insert_5", "result": None},
    {"step": "insert_dup", "error": "1 121"},
    {"step": "insert_auto_inc", "result": 7},
    {"step": "insert_on_rd_port", "error": "2 readonly"},
    {"step": "find_eq_2", "records": [_R2]},
    {"step": "find_eq_3_null", "records": [_R3]},
    {"step": "find_eq_missing", "records": []},
    {"step": "find_ge_2_limit_3", "records": [_R2, _R3, _R4]},
    {"step": "find_ge_1_limit_2_offset_3", "records": [_R4, _R5]},
    {"step": "find_lt_4", "records": [_R3, _R2, _R1]},
    {"step": "find_k_eq_20", "records": [_R2[:3], _R4[:3]]},
    {"step": "find_in", "records": [_R5, _R1, _R3]},
    {"step": "find_k_filter", "records": [_R2[:3], _R5[:3]]},
    {"step": "find_k_while", "records": [_R1[:3]]},
    {"step": "pipelined", "records": [[_R1], [_R5], [_R4, _R5]]},
    {"step": "update_4", "result": 1},
    {"step": "update_and_get_1", "records": [_R1]},
    {"step": "increment_5", "result": 1},
    {"step": "decrement_and_get_5", "records": [["11"]]},
    {"step": "delete_3", "result": 1},
    {"step": "delete_missing", "result": 0},
    {"step": "find_all_after", "records": NODE_FINAL},
    {"step": "find_k_eq_20_after", "records": [_R2[:3]]},
]


@pytest.fixture(scope="module")
def node_hs_path(tmp_path_factory):
    """NODE_PATH holding node-handlersocket 0.1.0, installed once per module with npm;
    a falsy _Missing (with .reason) when node or npm is missing or npm fails."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        yield _Missing("node and npm are needed for the node-handlersocket test (not installed)")
        return
    prefix = tmp_path_factory.mktemp("node-hs")
    try:
        p = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--no-save", "--prefix", str(prefix), NODE_HS_PACKAGE],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=300,
        )
        lines = [ln for ln in (p.stderr or p.stdout).splitlines() if ln.strip()]
        failed = None if p.returncode == 0 else f"exit {p.returncode}: " + "; ".join(lines[:4])
    except subprocess.TimeoutExpired:
        failed = "timed out after 300s"
    lib = prefix / "node_modules"
    if failed is None and not (lib / "node-handlersocket" / "package.json").exists():
        failed = "node_modules/node-handlersocket missing after install"
    yield _Missing(f"npm install {NODE_HS_PACKAGE} failed (registry unreachable?): {failed}") if failed else str(lib)


@pytest.mark.parametrize("kind", BOTH)
def test_both_node_handlersocket_client(request, kind, node_hs_path):
    """The published npm client node-handlersocket 0.1.0, unmodified, through
    tests/hs_node_client.js: open (and a failing open), insert (TAB, LF, every byte
    0x00-0x0f, non-ASCII, NULL vs ''), duplicate key, write on the read port, find by
    =, >=, < with limit/offset, a secondary index, IN, F and W filters, pipelined
    finds, update, U?, +, -?, delete. Every answer as the library decodes it equals
    the same expected list on both servers, and SQL shows the same rows."""
    node_path = need(node_hs_path)
    srv = server(request, kind)
    db = srv.new_db("nodehs", [NODE_HS_TABLE])
    p = subprocess.run(
        [shutil.which("node"), str(NODE_HS_SCRIPT), "127.0.0.1", str(srv.rd_port), str(srv.wr_port), db],
        env={**os.environ, "NODE_PATH": node_path},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    got = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
    report = "\n".join(json.dumps(g, ensure_ascii=False) for g in got) + f"\nstderr: {p.stderr}"
    assert p.returncode == 0, f"{srv.name}: hs_node_client.js exited {p.returncode}\n{report}"
    for i, (g, want) in enumerate(zip(got, NODE_EXPECTED)):
        assert g == want, f"{srv.name}: step {i} differs\n got: {g}\nwant: {want}\n{report}"
    assert len(got) == len(NODE_EXPECTED), f"{srv.name}: {len(got)} answers\n{report}"
    sql_rows = [list(r) for r in srv.text_rows("SELECT id, k, v, n FROM nodehs ORDER BY id", db)]
    assert sql_rows == NODE_FINAL
    assert srv.text_rows("SELECT id, k, c, pad FROM sbtest1 WHERE id = 7", db) == [("7", "70", "c7", "p7")]


def test_mariadb_status_counters(maria_hs):
    """MariaDB names the counters Handlersocket_hs_table_{open,close,lock,unlock}."""
    srv = need(maria_hs)
    _check_counters(srv, "Handlersocket_hs_table_", close_changes=True)


# -- kiln only -------------------------------------------------------------------------


def _status(srv, prefix):
    rows = srv.sql(f"SHOW GLOBAL STATUS LIKE '{prefix}%'")
    return {r[0].lower(): int(r[1]) for r in rows}


def _check_counters(srv, prefix, close_changes):
    names = [f"{prefix}{n}".lower() for n in ("open", "close", "lock", "unlock")]
    db = srv.new_db("counters")
    before = _status(srv, prefix)
    assert set(names) <= set(before), before
    with srv.hs("rd") as r:
        assert r.open_index(1, db, "sbtest1", "PRIMARY", "id,k") == [b"0", b"1"]
        assert r.find(1, "=", [1]) == [b"0", b"2", b"1", b"10"]
        assert r.find(1, "=", [2]) == [b"0", b"2", b"2", b"20"]
        mid = _status(srv, prefix)
    o, c, lk, ul = names
    assert mid[o] > before[o], (before, mid)
    assert mid[lk] > before[lk], (before, mid)
    assert mid[ul] > before[ul], (before, mid)
    assert mid[c] <= mid[o]
    if close_changes:
        # The listener closes a worker's tables once its last connection is gone;
        # that happens in the worker's own loop, so wait for it (bounded).
        deadline = time.monotonic() + 20
        after = _status(srv, prefix)
        while after[c] == mid[c] and time.monotonic() < deadline:
            time.sleep(0.2)
            after = _status(srv, prefix)
        assert after[c] > mid[c], (mid, after)


def test_kiln_status_counters(kiln_hs):
    """SHOW GLOBAL STATUS has Hs_table_open/close/lock/unlock and they move."""
    _check_counters(kiln_hs, "Hs_table_", close_changes=False)


def test_kiln_spec_error_lines(kiln_hs):
    """Each error of the spec, exactly; the connection stays usable after each."""
    srv = kiln_hs
    db = srv.new_db("errors")
    with srv.hs("rd") as r, srv.hs("wr") as w:
        assert r.request_raw("P", 1, db, "sbtest1", "PRIMARY", "id,k", "k,c") == b"0\t1"
        cases_rd = [
            (["P", 3, db, "nosuch", "PRIMARY", "id"], b"1\t1\topen_table"),
            (["P", 3, db, "sbtest1", "nosuch", "id"], b"2\t1\tidxnum"),
            (["P", 3, db, "sbtest1", "PRIMARY", "id,nosuch"], b"2\t1\tfld"),
            (["P", 3, db, "sbtest1", "PRIMARY", "id", "nosuch"], b"2\t1\tfld"),
            ([3, "=", 1, 1], b"2\t1\tstmtnum"),
            (["P", 2, db, "tv", "PRIMARY", "id", "i,bl"], b"0\t1"),
            ([1, "=", 0], b"2\t1\tklen"),
            ([1, "=", 2, 1, 2], b"2\t1\tkpnum"),
            ([1, "?", 1, 1], b"2\t1\top"),
            ([9, "=", 1, 1], b"2\t1\tstmtnum"),
            ([""], b"2\t1\tcmd"),
            (["Z"], b"2\t1\tcmd"),
            (["Q"], b"2\t1\tcmd"),  # the original shut the listener down
            ([1, "=", 1, 1, 1, 0, "@", 0, 0], b"2\t1\tinvalueslen"),
            ([1, "=", 1, 1, 1, 0, "@", 1, 2, 1, 2], b"2\t1\tkpnum"),  # icol >= vlen
            ([1, "=", 1, 1, 1, 0, "FF", "=", 0, 1], b"2\t1\tfiltertype"),
            ([1, "=", 1, 1, 1, 0, "F", "=", 5, 1], b"2\t1\tfilterfld"),
            ([2, ">=", 1, 1, 10, 0, "F", "=", 1, "x"], b"2\t1\tfilterblob"),
            ([1, "=", 1, 1, 1, 0, "U", 1, 2], b"2\t1\treadonly"),
            ([1, "=", 1, 1, 1, 0, "D"], b"2\t1\treadonly"),
            ([1, "+", 2, 100, 1], b"2\t1\treadonly"),
            (["A", 2, "x"], b"3\t1\tauthtype"),
            (["A", 1, ""], b"0\t1"),  # no secret configured
        ]
        wrong = []
        for toks, want in cases_rd:
            got = r.request_raw(*toks)
            if got != want:
                wrong.append((toks, show(want), show(got)))
            assert r.request_raw(1, "=", 1, 1) == b"0\t2\t1\t10", toks
        assert w.request_raw("P", 1, db, "cnt", "PRIMARY", "id,a") == b"0\t1"
        # starting from a = 3 in row 1, a = 0 in row 5
        for toks, want in [
            ([1, "=", 1, 1, 1, 0, "*", 1, 2], b"2\t1\tmodop"),
            ([1, "+", 2, 1, 9], b"1\t1\t121"),
            ([1, "=", 1, 1, 1, 0, "U", 1, 4], b"0\t1\t1"),
            ([1, "=", 1, 1, 1, 0, "U?", 1, 3], b"0\t2\t1\t4"),
            ([1, "+", 2, 50, 1], b"0\t1"),
            ([1, "=", 1, 50, 1, 0, "D"], b"0\t1\t1"),
        ]:
            got = w.request_raw(*toks)
            if got != want:
                wrong.append((toks, show(want), show(got)))
            assert w.request_raw(1, "=", 1, 5) == b"0\t2\t5\t0", toks
        assert w.request_raw(1, "=", 1, 1) == b"0\t2\t1\t3"
        assert not wrong, "(request, wanted, got):\n" + "\n".join(map(repr, wrong))
    # Q shut nothing down
    with srv.hs("rd") as r2, srv.hs("wr") as w2:
        assert r2.request_raw("Q") == b"2\t1\tcmd"
        assert w2.request_raw("Q") == b"2\t1\tcmd"
        assert r2.request("P", 1, db, "sbtest1", "PRIMARY", "id") == [b"0", b"1"]
        assert w2.request("P", 1, db, "sbtest1", "PRIMARY", "id") == [b"0", b"1"]


def test_kiln_insert_defaults(kiln_hs):
    """Columns not opened take their real defaults: DEFAULT NULL is NULL, DEFAULT 'dv'
    and DEFAULT 7 as declared, DEFAULT CURRENT_TIMESTAMP the time of the insert."""
    srv = kiln_hs
    db = srv.new_db("defaults")
    before = srv.sql("SELECT DATE_FORMAT(NOW(), '%Y-%m-%d %H:%i:%s')")[0][0]
    with srv.hs("wr") as w:
        assert w.open_index(1, db, "aut", "PRIMARY", "n") == [b"0", b"1"]
        assert w.insert(1, [5]) == [b"0", b"1", b"2"]
        assert w.open_index(2, db, "aut", "PRIMARY", "z") == [b"0", b"1"]
        assert w.insert(2, [8]) == [b"0", b"1", b"3"]
    after = srv.sql("SELECT DATE_FORMAT(NOW(), '%Y-%m-%d %H:%i:%s')")[0][0]
    rows = srv.text_rows("SELECT id, v, n, z, DATE_FORMAT(ts, '%Y-%m-%d %H:%i:%s') FROM aut WHERE id > 1 ORDER BY id", db)
    assert [r[:4] for r in rows] == [("2", "dv", "5", "7"), ("3", "dv", None, "8")], rows
    for r in rows:
        assert r[4] is not None and before <= r[4] <= after, (before, r, after)


def test_kiln_line_too_long(kiln_factory):
    """An overlong request line gets `2 1 linetoolong` and the connection closes; other
    connections are unaffected."""
    srv, _ = _start_kiln(kiln_factory, extra=["--handlersocket-max-line=4096"])
    db = srv.new_db("longline")
    with srv.hs("rd") as keep:
        assert keep.open_index(1, db, "sbtest1", "PRIMARY", "id,k") == [b"0", b"1"]
        # well under the limit (3,000 bytes): answered normally
        with srv.hs("rd") as ok:
            cols = ",".join(["id"] * 1000)
            assert ok.request_raw("P", 1, db, "sbtest1", "PRIMARY", cols) == b"0\t1"
            got = ok.request(1, "=", 1, 1)
            assert got[:2] == [b"0", b"1000"] and set(got[2:]) == {b"1"}
        for port in ("rd", "wr"):
            # a complete line over the limit
            c = srv.hs(port)
            c.raw(b"1\t=\t1\t" + b"x" * 5000 + b"\n")
            assert c.readline() == b"2\t1\tlinetoolong"
            assert c.closed_by_peer()
            c.close()
            # a line that never ends
            c = srv.hs(port)
            c.raw(b"P\t1\t" + b"y" * 10000)
            assert c.readline() == b"2\t1\tlinetoolong"
            assert c.closed_by_peer()
            c.close()
            # valid requests first, then the long line in the same send
            c = srv.hs(port)
            c.raw(build_line("P", 1, db, "sbtest1", "PRIMARY", "id") + b"z" * 8000 + b"\n")
            assert c.readline() == b"0\t1"
            assert c.readline() == b"2\t1\tlinetoolong"
            assert c.closed_by_peer()
            c.close()
        assert keep.find(1, "=", [2]) == [b"0", b"2", b"2", b"20"]
    with srv.hs("wr") as w:
        assert w.open_index(1, db, "sbtest1", "PRIMARY", "id,k") == [b"0", b"1"]
        assert w.find(1, "=", [3]) == [b"0", b"2", b"3", b"20"]


def test_kiln_huge_indexid(kiln_hs):
    """indexids above --handlersocket-max-indexid (default 1000) are refused without
    allocating; the connection keeps working."""
    srv = kiln_hs
    db = srv.new_db("bigid")
    with srv.hs("rd") as r:
        assert r.request_raw("P", 1000, db, "sbtest1", "PRIMARY", "id,k") == b"0\t1"
        for big in ("1001", "4294967295", "4294967296", "18446744073709551615"):
            assert r.request_raw("P", big, db, "sbtest1", "PRIMARY", "id,k") == b"2\t1\tstmtnum", big
            assert r.request_raw(big, "=", 1, 1) == b"2\t1\tstmtnum", big
            assert r.request_raw(1000, "=", 1, 1) == b"0\t2\t1\t10", big
        # past 64 bits: some bad-request error
        big = "99999999999999999999999"
        assert r.request_raw("P", big, db, "sbtest1", "PRIMARY", "id,k").startswith(b"2\t1\t")
        assert r.request_raw(big, "=", 1, 1).startswith(b"2\t1\t")
        assert r.request_raw(1000, "=", 1, 1) == b"0\t2\t1\t10"
        # huge counts inside a request are not allocation sizes either
        for toks in (
            [1000, "=", 4294967295, 1],
            [1000, "=", 1, 1, 1, 0, "@", 0, 4294967295, 1],
            [1000, "=", 1, 1, 4294967295, 4294967295],
            [1000, "=", 1, 1, 1, 0, "F", "=", 4294967295, 1],
        ):
            got = r.request_raw(*toks)
            assert re.match(rb"^[0-3]\t\d+", got), (toks, show(got))
            assert r.request_raw(1000, "=", 1, 2) == b"0\t2\t2\t20", toks


def test_kiln_max_indexid_option(kiln_factory):
    srv, _ = _start_kiln(kiln_factory, extra=["--handlersocket-max-indexid=10"])
    db = srv.new_db("maxid")
    with srv.hs("wr") as w:
        assert w.request_raw("P", 10, db, "sbtest1", "PRIMARY", "id") == b"0\t1"
        assert w.request_raw("P", 11, db, "sbtest1", "PRIMARY", "id") == b"2\t1\tstmtnum"
        assert w.request_raw(10, "=", 1, 4) == b"0\t1\t4"


GARBAGE_REQUESTS = [
    b"P\n",
    b"P\t1\n",
    b"P\t1\tdb\n",
    b"1\t=\n",
    b"1\t=\t3\t1\n",
    b"1\t=\t1\t1\t10\n",
    b"1\t=\t1\t1\t10\t0\t@\n",
    b"1\t=\t1\t1\t10\t0\t@\t0\n",
    b"1\t=\t1\t1\t10\t0\t@\t0\t5\t1\n",
    b"1\t=\t1\t1\t10\t0\tF\n",
    b"1\t=\t1\t1\t10\t0\tF\t=\n",
    b"1\t=\t1\t1\t10\t0\tF\t=\t0\n",
    b"1\t=\t1\t1\t1\t0\tU\n",
    b"1\t=\t1\t1\t1\t0\tU?\n",
    b"1\t+\n",
    b"1\t+\t5\t1\n",
    b"1\t+\t-1\t1\n",
    b"1\t=\t-1\t1\n",
    b"-1\t=\t1\t1\n",
    b"A\n",
    b"A\t1\n",
    b"\t\t\t\t\n",
    b"\x00\n",
    b"\x01\n",
    b"1\t=\t1\t\x01\n",
    b"\xff\xfe\xfd\n",
    b"/\n",
    b"Q\n",
    b"S\t1\n",
]


def _line_ok(line):
    return re.match(rb"^[0-3]\t\d+", line) is not None


def test_kiln_garbage_input(kiln_hs):
    """Malformed requests each get one answer line; random bytes and abrupt closes never
    take the server down or disturb other connections."""
    srv = kiln_hs
    db = srv.new_db("garbage")
    rng = random.Random(20240601)
    bystander = srv.hs("rd")
    bystander_w = srv.hs("wr")
    try:
        assert bystander.open_index(1, db, "sbtest1", "PRIMARY", "id,k") == [b"0", b"1"]
        assert bystander_w.open_index(1, db, "cnt", "PRIMARY", "id,a") == [b"0", b"1"]
        # structured garbage, with an index bound: one answer each, connection usable
        for port in ("rd", "wr"):
            with srv.hs(port) as c:
                assert c.open_index(1, db, "cnt", "PRIMARY", "id,a", "a") == [b"0", b"1"]
                for g in GARBAGE_REQUESTS:
                    c.raw(g)
                    line = c.readline()
                    assert _line_ok(line), (port, g, show(line))
                    assert c.request_raw(1, "=", 1, 2) == b"0\t2\t2\t5", (port, g)
                # all at once
                c.raw(b"".join(GARBAGE_REQUESTS))
                for g in GARBAGE_REQUESTS:
                    line = c.readline()
                    assert _line_ok(line), (port, g, show(line))
                assert c.request_raw(1, "=", 1, 2) == b"0\t2\t2\t5", port
        # random bytes: one answer per LF, then a valid request still works
        for i in range(60):
            port = "rd" if i % 2 else "wr"
            c = srv.hs(port)
            try:
                n = rng.randint(1, 3000)
                data = bytes(rng.randrange(256) for _ in range(n))
                data = data.replace(b"\n", b"")
                # cut into lines at random points
                parts, pos = [], 0
                while pos < len(data):
                    step = rng.randint(1, 200)
                    parts.append(data[pos : pos + step])
                    pos += step
                mode = i % 3
                if mode == 0:  # whole lines, answers read
                    c.raw(b"\n".join(parts) + b"\n")
                    for p in parts:
                        line = c.readline()
                        assert _line_ok(line), (i, show(p), show(line))
                    assert c.request_raw("P", 1, db, "sbtest1", "PRIMARY", "id") == b"0\t1", i
                elif mode == 1:  # a truncated line, then close
                    c.raw(b"\n".join(parts))
                else:  # lines sent, connection closed without reading
                    c.raw(b"\n".join(parts) + b"\n")
            except (BrokenPipeError, ConnectionResetError):
                pass
            finally:
                c.close()
        assert srv.alive()
        assert bystander.find(1, "=", [4]) == [b"0", b"2", b"4", b"30"]
        assert bystander_w.find(1, "=", [5]) == [b"0", b"2", b"5", b"0"]
        with srv.hs("rd") as fresh:
            assert fresh.open_index(3, db, "sbtest1", "PRIMARY", "id,k") == [b"0", b"1"]
            assert fresh.find(3, "=", [6]) == [b"0", b"2", b"6", b"50"]
        assert srv.sql("SELECT COUNT(*) FROM sbtest1", db)[0][0] == 6
    finally:
        bystander.close()
        bystander_w.close()


def test_kiln_auth_both_ports(kiln_factory):
    """Each port checks its own secret; before auth every P/find/insert answers
    `3 1 unauth`; a wrong secret de-authorizes."""
    srv, _ = _start_kiln(kiln_factory, rd_secret="r-pass", wr_secret="w-pass")
    db = srv.new_db("auth")
    for port, good, other in (("rd", "r-pass", "w-pass"), ("wr", "w-pass", "r-pass")):
        with srv.hs(port) as c:
            for toks in (["P", 1, db, "cnt", "PRIMARY", "id,a"], [1, "=", 1, 1], [1, "+", 2, 9, 9]):
                assert c.request_raw(*toks) == b"3\t1\tunauth", (port, toks)
            assert c.request_raw("A", 2, good) == b"3\t1\tauthtype"
            assert c.request_raw("A", 1, other) == b"3\t1\tunauth"
            assert c.request_raw("A", 1, good + "x") == b"3\t1\tunauth"
            assert c.request_raw("A", 1, good) == b"0\t1"
            assert c.request_raw("P", 1, db, "cnt", "PRIMARY", "id,a") == b"0\t1"
            assert c.request_raw(1, "=", 1, 1) == b"0\t2\t1\t3"
            assert c.request_raw("A", 1, "nope") == b"3\t1\tunauth"
            assert c.request_raw(1, "=", 1, 1) == b"3\t1\tunauth"
            assert c.request_raw("A", 1, good) == b"0\t1"
            assert c.request_raw(1, "=", 1, 1) == b"0\t2\t1\t3"
        with srv.hs(port) as c2:  # auth is per connection
            assert c2.request_raw("P", 1, db, "cnt", "PRIMARY", "id,a") == b"3\t1\tunauth"
            assert c2.pipeline([["A", 1, good], ["P", 1, db, "cnt", "PRIMARY", "id,a"], [1, "=", 1, 2]]) == [
                b"0\t1",
                b"0\t1",
                b"0\t2\t2\t5",
            ]
    with srv.hs("wr") as w:
        assert w.auth("w-pass") == [b"0", b"1"]
        assert w.open_index(1, db, "cnt", "PRIMARY", "id,a") == [b"0", b"1"]
        assert w.insert(1, [77, 7]) == [b"0", b"1"]
    assert srv.sql("SELECT a FROM cnt WHERE id = 77", db) == ((7,),)


def test_kiln_acknowledged_writes_survive_sigkill(kiln_factory):
    """Every insert/update/delete acknowledged on the write port is there after kill -9
    and a restart on the same datadir."""
    srv, s = _start_kiln(kiln_factory)
    srv.sql("CREATE DATABASE crash")
    srv.sql("CREATE TABLE crash.t (id BIGINT NOT NULL PRIMARY KEY, k INT NOT NULL, v VARCHAR(64) NULL, KEY kk (k))")
    srv.sql("CREATE TABLE crash.a (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, v VARCHAR(16) NOT NULL)")
    acked = {}
    auto_ids = {}
    with srv.hs("wr") as w:
        assert w.open_index(1, "crash", "t", "PRIMARY", "id,k,v") == [b"0", b"1"]
        assert w.open_index(2, "crash", "t", "PRIMARY", "k,v") == [b"0", b"1"]
        assert w.open_index(3, "crash", "a", "PRIMARY", "v") == [b"0", b"1"]
        n = 0
        for batch in range(30):
            lines = []
            for j in range(10):
                n += 1
                lines.append([1, "+", 3, n, n % 97, f"v{n}"])
            answers = w.pipeline(lines)
            for line, a in zip(lines, answers):
                assert a == b"0\t1", (line, a)
                acked[line[3]] = (line[4], line[5])
            # single requests: update, delete, auto-increment insert
            key = batch * 10 + 1
            assert w.find(2, "=", [key], mod=("U", [1000 + batch, f"u{batch}"])) == [b"0", b"1", b"1"]
            acked[key] = (1000 + batch, f"u{batch}")
            key = batch * 10 + 2
            assert w.find(2, "=", [key], mod=("D", [])) == [b"0", b"1", b"1"]
            del acked[key]
            r = w.insert(3, [f"a{batch}"])
            assert r[:2] == [b"0", b"1"] and len(r) == 3, r
            auto_ids[int(r[2])] = f"a{batch}"
    s.kill()  # SIGKILL
    kiln_factory.servers.remove(s)  # killed on purpose: not a failed exit
    srv2, _ = _start_kiln(kiln_factory, datadir=s.datadir)
    rows = {r[0]: (r[1], r[2]) for r in srv2.sql("SELECT id, k, v FROM crash.t")}
    assert rows == acked
    assert {r[0]: r[1] for r in srv2.sql("SELECT id, v FROM crash.a")} == auto_ids
    assert srv2.sql("SELECT COUNT(*) FROM crash.t WHERE k >= 0")[0][0] == len(acked)
    # and the HS listener works on the recovered data
    with srv2.hs("rd") as r:
        assert r.open_index(1, "crash", "t", "PRIMARY", "k,v") == [b"0", b"1"]
        assert r.find(1, "=", [3]) == [b"0", b"2", b"3", b"v3"]


# -- kiln: DDL, locks, processlist, sql_mode ------------------------------------------------


def test_kiln_ddl_not_blocked_by_open_connections(kiln_hs):
    """An idle connection with an open index holds names, not the table: ALTER, DROP
    and CREATE proceed at once, and the binding re-resolves at the next request."""
    srv = kiln_hs
    db = srv.new_db("ddl")
    with srv.hs("rd") as r, srv.hs("wr") as w:
        assert r.open_index(1, db, "sbtest1", "PRIMARY", "id,k") == [b"0", b"1"]
        assert w.open_index(1, db, "sbtest1", "PRIMARY", "k") == [b"0", b"1"]
        assert r.find(1, "=", [1]) == [b"0", b"2", b"1", b"10"]
        # ALTER moves column positions; the opened names still find their columns.
        srv.sql(f"ALTER TABLE `{db}`.sbtest1 ADD COLUMN extra INT NOT NULL DEFAULT 7 FIRST")
        assert r.find(1, "=", [1]) == [b"0", b"2", b"1", b"10"]
        assert w.find(1, "=", [1], mod=("+", [5])) == [b"0", b"1", b"1"]
        assert srv.sql(f"SELECT extra, k FROM `{db}`.sbtest1 WHERE id = 1") == ((7, 15),)
        # DROP while open: answered as an unknown table; CREATE again: found again.
        srv.sql(f"DROP TABLE `{db}`.sbtest1")
        assert r.find(1, "=", [1]) == [b"1", b"1", b"open_table"]
        srv.sql(f"CREATE TABLE `{db}`.sbtest1 (id INT PRIMARY KEY, k INT NOT NULL)")
        srv.sql(f"INSERT INTO `{db}`.sbtest1 VALUES (1, 99)")
        assert r.find(1, "=", [1]) == [b"0", b"2", b"1", b"99"]
        # A dropped column: the binding no longer resolves.
        srv.sql(f"ALTER TABLE `{db}`.sbtest1 DROP COLUMN k, ADD COLUMN z INT")
        assert r.find(1, "=", [1]) == [b"2", b"1", b"fld"]


def test_kiln_processlist_shows_workers(kiln_hs):
    srv = kiln_hs
    with srv.hs("rd"), srv.hs("wr"):
        time.sleep(0.3)
        rows = srv.sql("SHOW PROCESSLIST")
    states = [r[6] for r in rows if r[1] == "system user" and r[4] == "Daemon"]
    assert any(s.startswith("handlersocket: mode=rd") for s in states), rows
    assert any(s.startswith("handlersocket: mode=wr") for s in states), rows
    assert sum(int(s.split(", ")[1].split()[0]) for s in states) >= 2, states


def test_kiln_write_waits_for_sql_row_lock(kiln_hs):
    """HandlerSocket writes take row locks like SQL: a write to a row a SQL
    transaction holds waits for its commit and then applies on top of it; a write to
    another row does not wait (no global write lock)."""
    srv = kiln_hs
    db = srv.new_db("locks")
    c = srv.connect(database=db, autocommit=False)
    try:
        with c.cursor() as cur:
            cur.execute("UPDATE sbtest1 SET k = k + 100 WHERE id = 1")
        with srv.hs("wr") as w, srv.hs("wr") as w2:
            assert w.open_index(1, db, "sbtest1", "PRIMARY", "k") == [b"0", b"1"]
            assert w2.open_index(1, db, "sbtest1", "PRIMARY", "k") == [b"0", b"1"]
            w.raw(build_line(*HSClient.find_tokens(1, "=", [1], mod=("+", [1]))))
            time.sleep(0.5)
            # the waiting write is blocked on row 1 only: SQL reads go on
            assert srv.sql(f"SELECT k FROM `{db}`.sbtest1 WHERE id = 1") == ((10,),)
            c.commit()
            assert decode_line(w.readline()) == [b"0", b"1", b"1"]
            assert w2.find(1, "=", [2], mod=("+", [1])) == [b"0", b"1", b"1"]
        assert srv.sql(f"SELECT k FROM `{db}`.sbtest1 WHERE id IN (1, 2) ORDER BY id") == ((111,), (21,))
    finally:
        c.close()


def test_kiln_deadlock_with_sql_reruns_batch(kiln_hs):
    """A pipelined batch that deadlocks with a SQL transaction: whichever the engine
    picks as the victim, every HandlerSocket answer is the answer of a request that
    took effect (the batch runs again if it was the victim), and the data shows it.

    c1 holds row 1, c2 holds row 3. The batch +1 row 2 (granted), +1 row 3 (waits
    for c2), +1 row 1. c1 then updates row 2 (waits for the batch). c2 commits: the
    batch goes on to row 1, held by c1, which waits for the batch: a cycle."""
    import threading

    srv = kiln_hs
    db = srv.new_db("deadlock")
    c1 = srv.connect(database=db, autocommit=False)
    c2 = srv.connect(database=db, autocommit=False)
    c1_result = {}

    def c1_update_row2():
        try:
            with c1.cursor() as cur:
                cur.execute("UPDATE sbtest1 SET k = k + 100 WHERE id = 2")
            c1_result["ok"] = True
        except pymysql.MySQLError as e:
            c1_result["error"] = e.args[0]

    srv.sql(f"CREATE TABLE `{db}`.heavy (id INT PRIMARY KEY)")
    try:
        with c1.cursor() as cur:
            # Many undo records make c1 the heavier transaction: the engine rolls the
            # lighter one back, so the batch is the victim and must run again.
            cur.execute("INSERT INTO heavy VALUES " + ",".join(f"({i})" for i in range(200)))
            cur.execute("UPDATE sbtest1 SET k = k + 100 WHERE id = 1")
        with c2.cursor() as cur:
            cur.execute("UPDATE sbtest1 SET k = k + 100 WHERE id = 3")
        with srv.hs("wr") as w:
            assert w.open_index(1, db, "sbtest1", "PRIMARY", "k") == [b"0", b"1"]
            w.raw(b"".join(build_line(*HSClient.find_tokens(1, "=", [k], mod=("+", [1]))) for k in (2, 3, 1)))
            time.sleep(0.5)
            t = threading.Thread(target=c1_update_row2)
            t.start()
            time.sleep(0.5)
            c2.commit()
            t.join(timeout=60)
            assert not t.is_alive()
            if "ok" in c1_result:
                c1.commit()
            else:
                c1.rollback()
            answers = [decode_line(w.readline()) for _ in range(3)]
        assert answers == [[b"0", b"1", b"1"]] * 3, (answers, c1_result)
        ks = [r[0] for r in srv.sql(f"SELECT k FROM `{db}`.sbtest1 WHERE id IN (1, 2, 3) ORDER BY id")]
        assert c1_result == {"ok": True}  # the batch was the victim and ran again
        assert ks == [111, 121, 121], ks
        assert srv.sql(f"SELECT COUNT(*) FROM `{db}`.heavy") == ((200,),)
    finally:
        c1.close()
        c2.close()


def test_kiln_idle_timeout_closes_connections(kiln_factory):
    """handlersocket_timeout: an idle connection is closed after that many seconds; a
    busy one is not."""
    srv, _ = _start_kiln(kiln_factory, extra=["--handlersocket-timeout=1"])
    srv.sql("CREATE DATABASE idle")
    srv.sql("CREATE TABLE idle.t (id INT PRIMARY KEY)")
    with srv.hs("rd", timeout=10) as idle, srv.hs("rd", timeout=10) as busy:
        assert idle.open_index(1, "idle", "t", "PRIMARY", "id") == [b"0", b"1"]
        assert busy.open_index(1, "idle", "t", "PRIMARY", "id") == [b"0", b"1"]
        deadline = time.monotonic() + 3.5
        while time.monotonic() < deadline:
            assert busy.find(1, "=", [1]) == [b"0", b"1"]
            time.sleep(0.2)
        assert idle.closed_by_peer()
        assert busy.find(1, "=", [1]) == [b"0", b"1"]


def test_kiln_non_strict_mode_adjusts_values(kiln_factory):
    """Outside strict mode a value that does not fit is adjusted as INSERT would."""
    srv, _ = _start_kiln(kiln_factory, extra=["--sql-mode="])
    srv.sql("CREATE DATABASE ns")
    srv.sql("CREATE TABLE ns.t (id INT PRIMARY KEY, n TINYINT NOT NULL, v VARCHAR(3) NOT NULL)")
    with srv.hs("wr") as w:
        assert w.open_index(1, "ns", "t", "PRIMARY", "id,n,v") == [b"0", b"1"]
        assert w.insert(1, [1, 1000, "abcdef"]) == [b"0", b"1"]
        assert w.insert(1, [2, "x", "ok"]) == [b"0", b"1"]
    assert srv.sql("SELECT id, n, v FROM ns.t ORDER BY id") == ((1, 127, "abc"), (2, 0, "ok"))


# -- recording -------------------------------------------------------------------------

DOC = Path(__file__).resolve().parent / "hs_mariadb_observed.md"
SCRIPTS_FILE = Path(__file__).resolve().parent / "hs_scripts.py"
BEGIN, END = "# ---- BEGIN SCRIPTS ----\n", "# ---- END SCRIPTS ----\n"
DOC_BEGIN, DOC_END = "<!-- BEGIN GENERATED -->\n", "<!-- END GENERATED -->\n"


def _script_source(s):
    args = [repr(s.id), 'r"""\n' + render(s.steps) + '\n"""']
    if s.setup:
        args.append(f"setup={list(s.setup)!r}")
    if s.server != "main":
        args.append(f"server={s.server!r}")
    if s.note:
        args.append(f"note={s.note!r}")
    return "S(" + ", ".join(args) + ")\n"


def _md(text):
    return "`" + text.replace("|", "\\|").replace("`", "'") + "`" if text else ""


def _doc_section():
    out = []
    for s in SCRIPTS:
        out.append(f"\n### {s.id}" + (" (servers with secrets)" if s.server == "auth" else "") + "\n")
        if s.note:
            out.append(s.note + "\n")
        out.append("| # | conn | request | MariaDB answer | kiln | note |")
        out.append("|---|---|---|---|---|---|")
        for i, st in enumerate(s.steps):
            if st.nocompare:
                kiln = "not compared"
            elif st.kiln is not None:
                kiln = "<br>".join(_md(k) for k in st.kiln)
            else:
                kiln = "same"
            out.append(
                f"| {i} | {st.conn} | {_md(st.req)} | {'<br>'.join(_md(e) for e in st.expect)} | {kiln} | {st.note.replace('|', '/')} |"
            )
    return "\n".join(out) + "\n"


def record():
    """Runs every script on private MariaDB servers, rewrites hs_scripts.py with the
    answers and regenerates the table in hs_mariadb_observed.md."""

    servers = {}
    cleanup = []
    try:
        for kind, secrets in (("main", ("", "")), ("auth", (RD_SECRET, WR_SECRET))):
            srv, m = _start_maria(*secrets)
            if srv is None:
                raise SystemExit(m)
            servers[kind] = srv
            cleanup.append(m)
        for s in SCRIPTS:
            got = run_script(servers[s.server], s)
            for st, g in zip(s.steps, got):
                st.expect = g
            print(f"recorded {s.id}: {len(s.steps)} steps", file=sys.stderr)
    finally:
        for m in cleanup:
            m.cleanup()
    src = SCRIPTS_FILE.read_text()
    i, j = src.index(BEGIN) + len(BEGIN), src.index(END)
    body = "\n".join(_script_source(s) for s in SCRIPTS)
    SCRIPTS_FILE.write_text(src[:i] + body + src[j:])
    if DOC.exists():
        doc = DOC.read_text()
        i, j = doc.index(DOC_BEGIN) + len(DOC_BEGIN), doc.index(DOC_END)
        DOC.write_text(doc[:i] + _doc_section() + doc[j:])
    print(f"wrote {SCRIPTS_FILE} and {DOC}", file=sys.stderr)


if __name__ == "__main__":
    if sys.argv[1:] == ["--record"]:
        record()
    elif sys.argv[1:] == ["--doc"]:
        doc = DOC.read_text()
        i, j = doc.index(DOC_BEGIN) + len(DOC_BEGIN), doc.index(DOC_END)
        DOC.write_text(doc[:i] + _doc_section() + doc[j:])
    else:
        print("usage: python3 tests/test_handlersocket.py --record | --doc", file=sys.stderr)
        sys.exit(2)
