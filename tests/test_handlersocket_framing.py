"""HandlerSocket on kiln: how request lines are cut out of the byte stream and how
answers are written, where the worker's fast paths could go wrong (the rest of the
protocol is tests/test_handlersocket.py):

  * pipelined streams much larger than one socket read (64 KiB), so batches start and
    end in the middle of lines, answered in order;
  * a request trickled in byte by byte (CR LF split too), and many connections each
    holding a partial line at once, completed in another order;
  * values holding a byte below 0x10 at every position of a word (the escape scan
    works eight bytes at a time), integers at the ends of their ranges (written
    without fmt), and the request/row counters (added once per batch) exact.

Each answer is checked against the same row read through SQL."""

import random
import socket
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conftest import KilnFactory, _teardown  # noqa: E402
from hsclient import HSClient, build_line, escape  # noqa: E402
from test_handlersocket import HS_TIMEOUT, _start_kiln  # noqa: E402

K = {1: b"10", 2: b"20", 3: b"20", 4: b"30", 5: b"40", 6: b"50"}


@pytest.fixture(scope="module")
def hs(tmp_path_factory):
    f = KilnFactory(tmp_path_factory.mktemp("hsframe"))
    srv, _ = _start_kiln(f)
    yield srv
    _teardown(f.servers)


def _want(key):
    return b"0\t2\t%d\t%s" % (key, K[key]) if key in K else b"0\t2"


def _status(srv, name):
    rows = srv.sql(f"SHOW GLOBAL STATUS LIKE '{name}'")
    return int(rows[0][1])


def test_pipeline_larger_than_a_read(hs):
    """30,000 lookups in one send (~400 KB: lines straddle every read boundary), with
    lines of varying length and CR LF on some; 30,000 answers in order."""
    db = hs.new_db("bigpipe")
    rng = random.Random(7)
    with HSClient("127.0.0.1", hs.rd_port, timeout=HS_TIMEOUT) as c:
        assert c.open_index(1, db, "sbtest1", "PRIMARY", "id,k") == [b"0", b"1"]
        keys = [rng.randrange(0, 9) for _ in range(30_000)]
        lines = []
        for i, key in enumerate(keys):
            # Padded keys ("0003") convert to the same number: lengths vary.
            tok = str(key).rjust(1 + i % 7, "0").encode()
            lines.append(b"1\t=\t1\t" + tok + (b"\r\n" if i % 3 == 0 else b"\n"))
        c.raw(b"".join(lines))
        for i, key in enumerate(keys):
            got = c.readline()
            assert got == _want(key), (i, key, got)


def test_request_trickled_byte_by_byte(hs):
    """A request arriving one byte per packet (CR and LF apart) is answered once, when
    its LF arrives; the next request, sent whole, follows in order."""
    db = hs.new_db("trickle")
    with HSClient("127.0.0.1", hs.rd_port, timeout=HS_TIMEOUT) as c:
        c.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        assert c.open_index(1, db, "sbtest1", "PRIMARY", "id,k") == [b"0", b"1"]
        c.sock.settimeout(0.05)
        for b in b"1\t=\t1\t4\r":
            c.raw(bytes([b]))
            time.sleep(0.01)
            # Nothing is answered before the line is complete.
            with pytest.raises(socket.timeout):
                c.sock.recv(100)
        c.sock.settimeout(HS_TIMEOUT)
        c.raw(b"\n1\t=\t1\t5\n")
        assert c.readline() == _want(4)
        assert c.readline() == _want(5)


def test_many_connections_with_partial_lines(hs):
    """40 connections each send the first part of a request (some also a whole one
    before it); then the rest is sent in a shuffled order. Each connection gets its
    own answers, in order, and nothing extra."""
    db = hs.new_db("partial")
    rng = random.Random(11)
    conns = [HSClient("127.0.0.1", hs.rd_port, timeout=HS_TIMEOUT) for _ in range(40)]
    try:
        for c in conns:
            c.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            assert c.open_index(1, db, "sbtest1", "PRIMARY", "id,k") == [b"0", b"1"]
        plan = []
        for i, c in enumerate(conns):
            whole = 1 + i % 6
            key = 1 + (i * 5) % 8
            line = b"1\t=\t1\t%d\n" % key
            cut = 1 + i % (len(line) - 1)
            first = (b"1\t=\t1\t%d\n" % whole if i % 2 else b"") + line[:cut]
            c.raw(first)
            plan.append((c, whole if i % 2 else None, key, line[cut:]))
        time.sleep(0.2)
        # The whole requests are answered while the partial ones wait.
        for c, whole, _, _ in plan:
            if whole is not None:
                assert c.readline() == _want(whole)
        rng.shuffle(plan)
        for c, _, _, rest in plan:
            c.raw(rest)
        for c, _, key, _ in plan:
            assert c.readline() == _want(key)
        for c in conns:
            c.sock.settimeout(0.2)
            with pytest.raises(socket.timeout):
                c.sock.recv(100)
    finally:
        for c in conns:
            c.close()


LOW = [0x00, 0x01, 0x09, 0x0A, 0x0D, 0x0F]


def test_escapes_at_every_position_and_integer_ends(hs):
    """Values of length 1..24 with one byte below 0x10 at each position, and integers
    at the ends of their types, read through HandlerSocket: the same bytes as SQL."""
    db = hs.new_db("esc", [
        "CREATE TABLE e (id INT NOT NULL PRIMARY KEY, v VARBINARY(64) NOT NULL,"
        " a BIGINT NULL, b BIGINT UNSIGNED NULL, t TINYINT NULL) ENGINE=InnoDB",
    ])
    rows = []
    rid = 0
    for n in range(1, 25):
        for pos in range(n):
            rid += 1
            v = bytearray(b"x" * n)
            v[pos] = LOW[rid % len(LOW)]
            rows.append((rid, bytes(v)))
    conn = hs.connect(database=db)
    try:
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO e (id, v) VALUES (%s, %s)", rows)
            cur.execute("INSERT INTO e VALUES (100000, 'p', -9223372036854775808,"
                        " 18446744073709551615, -128), (100001, 'q', 9223372036854775807, 0, 127),"
                        " (100002, 'r', -1, 1, 0), (100003, '', NULL, NULL, NULL)")
        conn.commit()
    finally:
        conn.close()
    # The text SQL sends (bytes for the VARBINARY column), keyed by id.
    sql = {int(r[0]): r for r in hs.text_rows("SELECT id, v, a, b, t FROM e", db)}
    with HSClient("127.0.0.1", hs.rd_port, timeout=HS_TIMEOUT) as c:
        assert c.open_index(1, db, "e", "PRIMARY", "id,v,a,b,t") == [b"0", b"1"]
        ids = [r[0] for r in rows] + [100000, 100001, 100002, 100003]
        got = c.pipeline([[1, "=", 1, i] for i in ids])
    for i, line in zip(ids, got):
        want = [b"0", b"5"] + [escape(x) for x in sql[i]]
        assert line == b"\t".join(want), (i, line, sql[i])


def test_request_and_row_counters_exact(hs):
    """Hs_requests, Hs_rows_read and Innodb_rows_read grow by exactly what was asked
    (they are added once per batch, before its answers are sent)."""
    db = hs.new_db("count")
    with HSClient("127.0.0.1", hs.rd_port, timeout=HS_TIMEOUT) as c:
        assert c.open_index(1, db, "sbtest1", "PRIMARY", "id,k") == [b"0", b"1"]
        before = [_status(hs, n) for n in ("Hs_requests", "Hs_rows_read", "Innodb_rows_read")]
        # 300 lookups: keys 0..9, of which 1..6 exist (180 rows); and 20 bad requests.
        got = c.pipeline([[1, "=", 1, i % 10] for i in range(300)] + [[1, "~", 1, 1]] * 20)
        assert got[-1] == b"2\t1\top"
        after = [_status(hs, n) for n in ("Hs_requests", "Hs_rows_read", "Innodb_rows_read")]
    assert after[0] - before[0] == 320
    assert after[1] - before[1] == 180
    assert after[2] - before[2] >= 180


def test_integer_keys_convert_as_text(hs):
    """Key tokens for integer columns: padded, signed, beyond the column's range
    (clamped to its ends, as the text would be) and not plain digits, on a signed
    and an unsigned key."""
    db = hs.new_db("intkey", [
        "CREATE TABLE s (id INT NOT NULL PRIMARY KEY, v CHAR(4)) ENGINE=InnoDB",
        "INSERT INTO s VALUES (-2147483648, 'min'), (2147483647, 'max'), (0, 'zero'),"
        " (-5, 'neg'), (12, 'tw')",
        "CREATE TABLE u (id TINYINT UNSIGNED NOT NULL PRIMARY KEY, v CHAR(4)) ENGINE=InnoDB",
        "INSERT INTO u VALUES (0, 'zero'), (255, 'max'), (7, 'sev')",
    ])
    cases = {
        "s": [("-5", b"neg"), ("-05", b"neg"), ("0012", b"tw"), ("-0", b"zero"),
              ("99999999999", b"max"), ("-99999999999", b"min"),
              ("999999999999999999", b"max"), ("9999999999999999999999", b"max"),
              ("12abc", b"tw"), ("+12", b"tw"), ("1e1", None), ("", b"zero")],
        "u": [("7", b"sev"), ("300", b"max"), ("-1", b"zero"), ("-300", b"zero"),
              ("0007", b"sev")],
    }
    for table, keys in cases.items():
        with HSClient("127.0.0.1", hs.rd_port, timeout=HS_TIMEOUT) as c:
            assert c.open_index(1, db, table, "PRIMARY", "v") == [b"0", b"1"]
            got = c.pipeline([b"1\t=\t1\t" + k.encode() + b"\n" for k, _ in keys])
        for (k, want), line in zip(keys, got):
            assert line == (b"0\t1\t" + want if want is not None else b"0\t1"), (table, k, line)
