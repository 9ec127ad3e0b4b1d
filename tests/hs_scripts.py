"""HandlerSocket transcripts run against kiln and MariaDB 10.11's handlersocket.so.

Each `S(id, text, ...)` is one script: a fresh database (FIXTURES below, plus the
script's `setup` SQL) and a sequence of steps. The text is line based, in the
`hsclient.show` notation (`\\t` TAB, `\\n` LF, `\\r` CR, `\\xNN` any byte, `\\\\` a
backslash; NULL is `\\x00`, and `{db}` is replaced by the script's database):

    rd> REQUEST        send REQUEST + LF on connection "rd" (the read-only port);
                       `wr>` uses the read-write port; `rd2>`, `wr2>` ... are further
                       connections. A REQUEST containing `\\n` sends several lines in
                       one write (pipelining) and expects one answer line for each.
    rd~> REQUEST       the same, but kiln's answer is not compared: MariaDB's answer
                       is a quirk of its parser or an unspecified corner (recorded only)
    sql> SELECT ...    run through SQL on the script's database; rows follow as `<`
                       lines, columns TAB-separated, values escaped as HandlerSocket
                       would send them (NULL = \\x00); `< (empty)` for no rows
    < RESPONSE         MariaDB's answer (recorded by `python3 test_handlersocket.py
                       --record`); kiln must answer the same unless a `k<` follows
    k< RESPONSE        kiln's intended answer where it deliberately differs from
                       MariaDB (spec "Known faults" / quirks worth fixing)
    < <closed>         the server closed the connection instead of answering
    ## NOTE            (at the end of a request line) a remark for the report

`server="auth"` scripts run against servers started with
--handlersocket-plain-secret=rsecret --handlersocket-plain-secret-wr=wsecret.
"""

import re
import textwrap
from dataclasses import dataclass, field

RD_SECRET = "rsecret"
WR_SECRET = "wsecret"

# Tables every script's database starts with (identical on both servers).
FIXTURES = [
    # sysbench's table
    "CREATE TABLE sbtest1 (id INT UNSIGNED NOT NULL AUTO_INCREMENT,"
    " k INT UNSIGNED NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '',"
    " pad CHAR(60) NOT NULL DEFAULT '', PRIMARY KEY (id), KEY k_1 (k)) ENGINE=InnoDB",
    "INSERT INTO sbtest1 (id, k, c, pad) VALUES (1,10,'c1','p1'), (2,20,'c2','p2'),"
    " (3,20,'c3','p3'), (4,30,'c4','p4'), (5,40,'c5','p5'), (6,50,'c6','p6')",
    # many types, a two-column secondary index, a unique index
    "CREATE TABLE tv (id INT NOT NULL PRIMARY KEY, i INT NULL DEFAULT NULL,"
    " u INT UNSIGNED NULL DEFAULT NULL, b BIGINT NULL DEFAULT NULL,"
    " d DECIMAL(10,2) NULL DEFAULT NULL, f FLOAT NULL DEFAULT NULL,"
    " dbl DOUBLE NULL DEFAULT NULL,"
    " v VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL DEFAULT NULL,"
    " ch CHAR(5) NULL DEFAULT NULL, vb VARBINARY(32) NULL DEFAULT NULL,"
    " bl BLOB NULL DEFAULT NULL, dt DATE NULL DEFAULT NULL,"
    " dtm DATETIME NULL DEFAULT NULL, e ENUM('a','b','c') NULL DEFAULT NULL,"
    " nn VARCHAR(10) NOT NULL, KEY i_v (i, v), UNIQUE KEY uq_b (b)) ENGINE=InnoDB",
    "INSERT INTO tv VALUES"
    " (1, 10, 100, 1000, 1.50, 1.5, 2.25, 'apple', 'ab', 0x0001, 'blob1', '2024-01-02',"
    "  '2024-01-02 03:04:05', 'a', 'n1'),"
    " (2, 10, 200, 2000, -3.25, 0.5, 1e20, 'Banana', 'cd', '', '', '2023-12-31',"
    "  '2023-12-31 23:59:59', 'b', 'n2'),"
    " (3, 20, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ''),"
    " (4, 20, 4294967295, -9223372036854775808, 12345678.99, -2.5, -0.000001, 'cherry',"
    "  'e', 0xff00, 'blob4', '1999-09-09', '1999-09-09 09:09:09', 'c', 'n4'),"
    " (5, NULL, 0, 9223372036854775807, 0.00, 0, 0, '', '', NULL, NULL, '2000-02-29',"
    "  '2000-02-29 00:00:00', 'a', 'n5')",
    # auto-increment and column defaults
    "CREATE TABLE aut (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
    " v VARCHAR(10) NOT NULL DEFAULT 'dv', n INT NULL DEFAULT NULL,"
    " z INT NOT NULL DEFAULT 7, ts TIMESTAMP NULL DEFAULT CURRENT_TIMESTAMP) ENGINE=InnoDB",
    "INSERT INTO aut (v, ts) VALUES ('a1', '2024-01-01 00:00:00')",
    # counters for U / + / -
    "CREATE TABLE cnt (id INT NOT NULL PRIMARY KEY, a INT NULL, bu INT UNSIGNED NULL,"
    " s VARCHAR(10) NULL, dd DECIMAL(6,2) NULL) ENGINE=InnoDB",
    "INSERT INTO cnt VALUES (1, 3, 3, 'x', 1.5), (2, 5, 5, 'y', 2.5), (3, -4, 0, 'z', 0),"
    " (4, NULL, NULL, NULL, NULL), (5, 0, 10, '12', 3.0)",
    # binary round trips
    "CREATE TABLE bin (id INT NOT NULL PRIMARY KEY, vb VARBINARY(300) NULL DEFAULT NULL,"
    " bl BLOB NULL DEFAULT NULL,"
    " v VARCHAR(300) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL DEFAULT NULL)"
    " ENGINE=InnoDB",
    # value formatting
    "CREATE TABLE fmt (id INT NOT NULL PRIMARY KEY, f FLOAT NULL, d DOUBLE NULL,"
    " dm DECIMAL(20,6) NULL, dt3 DATETIME(3) NULL, t TIME NULL, y YEAR NULL,"
    " ti TINYINT NULL, bi BIGINT UNSIGNED NULL) ENGINE=InnoDB",
    "INSERT INTO fmt VALUES (1, 3.4e38, 1.7976931348623157e308, 123456789.123456,"
    " '2024-01-02 03:04:05.678', '-838:59:59', 2024, -128, 18446744073709551615),"
    " (2, 0.25, 0.1, -0.000001, '2024-01-02 03:04:05', '12:00:00', 1999, 127, 0),"
    " (3, 1e15, 1e15, 0, NULL, NULL, NULL, 0, NULL),"
    " (4, 1.5, 123456789012345678, 1, NULL, NULL, NULL, 0, NULL)",
]


@dataclass
class Step:
    conn: str  # "rd", "wr2", ... or "sql"
    req: str  # show() notation ({db} not yet replaced)
    nocompare: bool = False
    expect: list = field(default_factory=list)  # MariaDB's answer lines (show notation)
    kiln: list = None  # kiln's intended answer lines, where it deliberately differs
    note: str = ""

    @property
    def is_sql(self):
        return self.conn == "sql"


@dataclass
class Script:
    id: str
    steps: list
    setup: tuple = ()
    server: str = "main"
    note: str = ""
    text: str = ""

    def needs_recording(self):
        return any(not s.expect for s in self.steps)


_REQ = re.compile(r"^([a-z]+[0-9]*)(~?)> ?(.*)$")


def parse(text):
    steps = []
    for raw in textwrap.dedent(text).splitlines():
        line = raw.strip()  # show() writes a trailing space as \\x20
        if not line or line.startswith("#"):
            continue
        if line.startswith("k<"):
            if not steps:
                raise ValueError(f"k< before any request: {raw!r}")
            if steps[-1].kiln is None:
                steps[-1].kiln = []
            steps[-1].kiln.append(_answer(line[2:]))
            continue
        if line.startswith("<"):
            if not steps:
                raise ValueError(f"< before any request: {raw!r}")
            steps[-1].expect.append(_answer(line[1:]))
            continue
        m = _REQ.match(line)
        if not m:
            raise ValueError(f"cannot parse script line {raw!r}")
        conn, tilde, req = m.groups()
        note = ""
        if " ## " in req:
            req, note = req.split(" ## ", 1)
        steps.append(Step(conn=conn, req=req.rstrip(), nocompare=bool(tilde), note=note.strip()))
    return steps


def _answer(rest):
    return rest[1:] if rest.startswith(" ") else rest


def render(steps):
    out = []
    for s in steps:
        line = f"{s.conn}{'~' if s.nocompare else ''}> {s.req}"
        if s.note:
            line += f"  ## {s.note}"
        out.append(line)
        for e in s.expect:
            out.append(f"< {e}")
        for k in s.kiln or ():
            out.append(f"k< {k}")
    return "\n".join(out)


SCRIPTS = []


def S(id, text, setup=(), server="main", note=""):
    SCRIPTS.append(Script(id=id, steps=parse(text), setup=tuple(setup), server=server, note=note, text=text))


# The scripts. `python3 test_handlersocket.py --record` runs them against a private
# MariaDB and rewrites everything between the two marker lines with the answers filled
# in (existing `<` lines are replaced; `k<` lines, `~` markers and notes are kept).
# ---- BEGIN SCRIPTS ----
S('open_index_ok', r"""
rd> P\t1\t{db}\tsbtest1\tPRIMARY\tid,k,c,pad
< 0\t1
rd> 1\t=\t1\t1
< 0\t4\t1\t10\tc1\tp1
rd> P\t2\t{db}\tsbtest1\t\tid  ## an empty index name is PRIMARY
< 0\t1
rd> 2\t=\t1\t2
< 0\t1\t2
rd> P\t3\t{db}\tsbtest1\tk_1\tid,k\tk,c
< 0\t1
rd> 3\t=\t1\t20\t10\t0
< 0\t2\t2\t20\t3\t20
rd> P\t4\t{db}\tsbtest1\tk_1\t  ## no columns at all
< 0\t1
rd> 4\t=\t1\t20\t10\t0
< 0\t0
rd> P\t5\t{db}\tsbtest1\tPRIMARY\tid,id,k  ## a column twice
< 0\t1
rd> 5\t=\t1\t3
< 0\t3\t3\t3\t20
rd> P\t0\t{db}\tsbtest1\tPRIMARY\tpad  ## indexid 0
< 0\t1
rd> 0\t=\t1\t4
< 0\t1\tp4
wr> P\t1\t{db}\tsbtest1\tPRIMARY\tid,k,c,pad
< 0\t1
wr> 1\t=\t1\t1
< 0\t4\t1\t10\tc1\tp1
""")

S('open_index_errors', r"""
rd> P\t1\t{db}\tnosuch\tPRIMARY\tid  ## no such table
< 1\t1\topen_table
rd> P\t1\tnosuchdb\tsbtest1\tPRIMARY\tid  ## no such database
< 1\t1\topen_table
rd> P\t1\t{db}\tsbtest1\tnosuch\tid  ## no such index
< 2\t1\tidxnum
rd> P\t1\t{db}\tsbtest1\tPRIMARY\tid,nosuch  ## unknown column
< 2\t1\tfld
rd> P\t1\t{db}\tsbtest1\tPRIMARY\tid\tk,nosuch  ## unknown filter column
< 2\t1\tfld
rd> 1\t=\t1\t1  ## nothing was bound
< 2\t1\tstmtnum
rd~> P\t1\t{db}\tsbtest1\tPRIMARY\tid,  ## trailing comma
< 2\t1\tfld
rd~> P\t1\t{db}\tsbtest1\tPRIMARY\tID  ## names are matched case-sensitively
< 2\t1\tfld
rd~> P\t1\t{db}\tsbtest1\tprimary\tid
< 2\t1\tidxnum
rd~> P\t1\t{db}\tSBTEST1\tPRIMARY\tid
< 1\t1\topen_table
rd~> P\t1\t{db}\tsbtest1\t7\tid  ## a numeric index name is an index number
< 2\t1\tidxnum
rd~> P\t1\t{db}\tsbtest1\t1\tid
< 0\t1
rd~> P  ## no arguments at all
< 1\t1\topen_table
""")

S('open_index_rebind', r"""
rd> P\t1\t{db}\tsbtest1\tPRIMARY\tid,k
< 0\t1
rd> 1\t=\t1\t2
< 0\t2\t2\t20
rd> P\t1\t{db}\ttv\tPRIMARY\tid,v  ## re-using an indexid replaces the binding
< 0\t1
rd> 1\t=\t1\t2
< 0\t2\t2\tBanana
rd> P\t1\t{db}\tnosuch\tPRIMARY\tid  ## a failed open keeps the old binding
< 1\t1\topen_table
rd> 1\t=\t1\t2
< 0\t2\t2\tBanana
rd> P\t1\t{db}\ttv\tPRIMARY\tnosuch
< 2\t1\tfld
rd> 1\t=\t1\t2
< 0\t2\t2\tBanana
rd2> 1\t=\t1\t2  ## index ids belong to one connection
< 2\t1\tstmtnum
""")

S('find_pk', r"""
rd> P\t1\t{db}\tsbtest1\tPRIMARY\tid,k,c,pad
< 0\t1
rd> 1\t=\t1\t1
< 0\t4\t1\t10\tc1\tp1
rd> 1\t=\t1\t99  ## no match
< 0\t4
rd> 1\t>\t1\t2\t10\t0
< 0\t4\t3\t20\tc3\tp3\t4\t30\tc4\tp4\t5\t40\tc5\tp5\t6\t50\tc6\tp6
rd> 1\t>=\t1\t2\t3\t0
< 0\t4\t2\t20\tc2\tp2\t3\t20\tc3\tp3\t4\t30\tc4\tp4
rd> 1\t<\t1\t4\t10\t0  ## descending
< 0\t4\t3\t20\tc3\tp3\t2\t20\tc2\tp2\t1\t10\tc1\tp1
rd> 1\t<=\t1\t4\t2\t0
< 0\t4\t4\t30\tc4\tp4\t3\t20\tc3\tp3
rd> 1\t<=\t1\t4\t2\t3  ## offset
< 0\t4\t1\t10\tc1\tp1
rd> 1\t>\t1\t4\t2\t1
< 0\t4\t6\t50\tc6\tp6
rd> 1\t>=\t1\t1\t100\t0  ## limit larger than the matches
< 0\t4\t1\t10\tc1\tp1\t2\t20\tc2\tp2\t3\t20\tc3\tp3\t4\t30\tc4\tp4\t5\t40\tc5\tp5\t6\t50\tc6\tp6
rd> 1\t>=\t1\t2\t2\t100  ## offset past the end
< 0\t4
rd> 1\t>\t1\t6\t10\t0
< 0\t4
rd> 1\t<\t1\t1\t10\t0
< 0\t4
rd> 1\t>=\t1\t1\t5  ## limit without offset
< 0\t4\t1\t10\tc1\tp1\t2\t20\tc2\tp2\t3\t20\tc3\tp3\t4\t30\tc4\tp4\t5\t40\tc5\tp5
rd> 1\t>=\t1\t1\t0\t0  ## limit 0 counts as 1
< 0\t4\t1\t10\tc1\tp1
rd> 1\t>=\t1\t1\t0\t2
< 0\t4\t3\t20\tc3\tp3
rd> 1\t=\t1\t\x00  ## NULL key on a NOT NULL column
< 0\t4
rd> 1\t>=\t1\t\x00\t3\t0  ## NULL sorts first
< 0\t4\t1\t10\tc1\tp1\t2\t20\tc2\tp2\t3\t20\tc3\tp3
rd> 01\t=\t1\t3  ## leading zeros
< 0\t4\t3\t20\tc3\tp3
rd> 1\t=\t01\t3
< 0\t4\t3\t20\tc3\tp3
rd~> 1\t=\t1\t  ## empty key ('' as INT is 0)
< 0\t4
rd~> 1\t>\t1\tabc\t2\t0
< 0\t4\t1\t10\tc1\tp1\t2\t20\tc2\tp2
""")

S('find_secondary', r"""
rd> P\t1\t{db}\tsbtest1\tk_1\tid,k,c
< 0\t1
rd> 1\t=\t1\t20  ## default limit 1
< 0\t3\t2\t20\tc2
rd> 1\t=\t1\t20\t10\t0  ## duplicates in primary key order
< 0\t3\t2\t20\tc2\t3\t20\tc3
rd> 1\t=\t1\t20\t10\t1
< 0\t3\t3\t20\tc3
rd> 1\t>\t1\t20\t10\t0
< 0\t3\t4\t30\tc4\t5\t40\tc5\t6\t50\tc6
rd> 1\t>=\t1\t20\t2\t0
< 0\t3\t2\t20\tc2\t3\t20\tc3
rd> 1\t<\t1\t30\t10\t0
< 0\t3\t3\t20\tc3\t2\t20\tc2\t1\t10\tc1
rd> 1\t<=\t1\t20\t10\t0  ## descending: duplicates in reverse order
< 0\t3\t3\t20\tc3\t2\t20\tc2\t1\t10\tc1
rd> P\t2\t{db}\ttv\ti_v\tid,i,v
< 0\t1
rd> 2\t=\t1\t10\t10\t0  ## prefix: vlen 1 of 2
< 0\t3\t1\t10\tapple\t2\t10\tBanana
rd> 2\t=\t2\t10\tapple\t10\t0
< 0\t3\t1\t10\tapple
rd> 2\t=\t2\t10\tAPPLE\t10\t0  ## utf8mb4_general_ci
< 0\t3\t1\t10\tapple
rd> 2\t=\t2\t10\tbanana\t10\t0
< 0\t3\t2\t10\tBanana
rd> 2\t=\t3\t10\tapple\ta\t10\t0  ## vlen > key parts
< 2\t1\tkpnum
rd> 2\t=\t1\t\x00\t10\t0  ## a NULL key part matches NULL
< 0\t3\t5\t\x00\t
rd> 2\t>=\t1\t\x00\t10\t0  ## NULL sorts first
< 0\t3\t5\t\x00\t\t1\t10\tapple\t2\t10\tBanana\t3\t20\t\x00\t4\t20\tcherry
rd> 2\t<\t1\t20\t10\t0
< 0\t3\t2\t10\tBanana\t1\t10\tapple\t5\t\x00\t
rd> 2\t<=\t2\t20\tb\t10\t0
< 0\t3\t3\t20\t\x00\t2\t10\tBanana\t1\t10\tapple\t5\t\x00\t
rd> 2\t>\t2\t10\tapple\t10\t0
< 0\t3\t2\t10\tBanana\t3\t20\t\x00\t4\t20\tcherry
rd> P\t3\t{db}\ttv\tuq_b\tid,b
< 0\t1
rd> 3\t=\t1\t2000
< 0\t2\t2\t2000
rd> 3\t>=\t1\t-9223372036854775808\t10\t0
< 0\t2\t4\t-9223372036854775808\t1\t1000\t2\t2000\t5\t9223372036854775807
rd> 3\t=\t1\t\x00\t10\t0
< 0\t2\t3\t\x00
""")

S('find_errors', r"""
rd> P\t1\t{db}\tsbtest1\tPRIMARY\tid,k
< 0\t1
rd> 1\t=\t0  ## vlen 0
< 2\t1\tklen
rd> 1\t>=\t0\t10\t0
< 2\t1\tklen
rd> 1\t=\t2\t1\t2  ## more key values than key parts
< 2\t1\tkpnum
rd> 1\t?\t1\t1  ## unknown op
< 2\t1\top
rd> 1\t==\t1\t1
< 2\t1\top
rd> 1\t=>\t1\t1
< 2\t1\top
rd> 1\t<>\t1\t1
< 2\t1\top
rd> 1\t\t1\t1  ## empty op
< 2\t1\top
rd> 1  ## indexid only
< 2\t1\top
rd> 9\t=\t1\t1  ## never opened
< 2\t1\tstmtnum
rd> P\t3\t{db}\tsbtest1\tPRIMARY\tid
< 0\t1
rd> 2\t=\t1\t1  ## below an opened id, never opened itself
< 2\t1\tstmtnum
rd> 1\tS\t1\tx  ## the original's unfinished SQL op
< 2\t1\tnotimpl
rd> 1\tS\t0
< 2\t1\tklen
rd> 1\t=\t1\t1  ## the connection is still usable
< 0\t2\t1\t10
""")

S('find_types', r"""
rd> P\t1\t{db}\ttv\tPRIMARY\tid,i,u,b,d,v,ch,vb,bl,dt,dtm,e,nn
< 0\t1
rd> 1\t>=\t1\t1\t10\t0
< 0\t13\t1\t10\t100\t1000\t1.50\tapple\tab\t\x01@\x01A\tblob1\t2024-01-02\t2024-01-02 03:04:05\ta\tn1\t2\t10\t200\t2000\t-3.25\tBanana\tcd\t\t\t2023-12-31\t2023-12-31 23:59:59\tb\tn2\t3\t20\t\x00\t\x00\t\x00\t\x00\t\x00\t\x00\t\x00\t\x00\t\x00\t\x00\t\t4\t20\t4294967295\t-9223372036854775808\t12345678.99\tcherry\te\t\xff\x01@\tblob4\t1999-09-09\t1999-09-09 09:09:09\tc\tn4\t5\t\x00\t0\t9223372036854775807\t0.00\t\t\t\x00\t\x00\t2000-02-29\t2000-02-29 00:00:00\ta\tn5
rd> P\t2\t{db}\ttv\tPRIMARY\tid,f,dbl  ## FLOAT / DOUBLE
< 0\t1
rd> 2\t>=\t1\t1\t10\t0
< 0\t3\t1\t1.5\t2.25\t2\t0.5\t1e20\t3\t\x00\t\x00\t4\t-2.5\t-0.000001\t5\t0\t0
""")

S('fmt_numbers', r"""
rd> P\t1\t{db}\tfmt\tPRIMARY\tid,dm,y,ti,bi
< 0\t1
rd> 1\t>=\t1\t1\t10\t0
< 0\t5\t1\t123456789.123456\t2024\t-128\t18446744073709551615\t2\t-0.000001\t1999\t127\t0\t3\t0.000000\t\x00\t0\t\x00\t4\t1.000000\t\x00\t0\t\x00
""")

S('fmt_float', r"""
rd> P\t1\t{db}\tfmt\tPRIMARY\tid,f,d
< 0\t1
rd> 1\t>=\t1\t1\t10\t0
< 0\t3\t1\t3.4e38\t1.7976931348623157e308\t2\t0.25\t0.1\t3\t1e15\t1e15\t4\t1.5\t1.2345678901234568e17
""")

S('fmt_temporal', r"""
rd> P\t1\t{db}\tfmt\tPRIMARY\tid,dt3,t
< 0\t1
rd> 1\t>=\t1\t1\t10\t0
< 0\t3\t1\t2024-01-02 03:04:05.678\t-838:59:59\t2\t2024-01-02 03:04:05.000\t12:00:00\t3\t\x00\t\x00\t4\t\x00\t\x00
""")

S('in_pk', r"""
rd> P\t1\t{db}\tsbtest1\tPRIMARY\tid,k\tk
< 0\t1
rd> 1\t=\t1\t1\t10\t0\t@\t0\t3\t2\t4\t99  ## one read per IN value, replacing key part 0
< 0\t2\t2\t20\t4\t30
rd> 1\t=\t1\t1\t10\t0\t@\t0\t4\t6\t5\t6\t1  ## answer order = IN order, repeats kept
< 0\t2\t6\t50\t5\t40\t6\t50\t1\t10
rd> 1\t=\t1\t1\t2\t0\t@\t0\t3\t2\t4\t5  ## limit counts rows
< 0\t2\t2\t20\t4\t30
rd> 1\t=\t1\t1\t10\t1\t@\t0\t3\t2\t4\t5  ## offset
< 0\t2\t4\t30\t5\t40
rd> 1\t=\t1\t1\t10\t0\t@\t0\t0  ## ivlen 0
< 2\t1\tinvalueslen
rd> 1\t=\t1\t1\t10\t0\t@\t0\t1\t\x00
< 0\t2
rd> 1\t=\t1\t1\t10\t0\t@\t0\t3\t1\t2\t3\tF\t=\t0\t20  ## IN and a filter
< 0\t2\t2\t20\t3\t20
""")

S('in_icol_out_of_range', r"""
rd> P\t1\t{db}\tsbtest1\tPRIMARY\tid,k
< 0\t1
rd> 1\t=\t1\t1\t10\t0\t@\t1\t3\t2\t4\t5  ## icol >= vlen: MariaDB ignores the values and repeats the key's row; kiln: the IN column is not among the key parts given
< 0\t2\t1\t10\t1\t10\t1\t10
k< 2\t1\tkpnum
rd> 1\t=\t1\t2\t10\t0\t@\t5\t3\t2\t4\t5
< 0\t2\t2\t20\t2\t20\t2\t20
k< 2\t1\tkpnum
rd> 1\t=\t1\t2  ## still usable
< 0\t2\t2\t20
""")

S('in_secondary', r"""
rd> P\t1\t{db}\tsbtest1\tk_1\tid,k
< 0\t1
rd> 1\t=\t1\t20\t10\t0\t@\t0\t3\t10\t20\t30  ## MariaDB: at most one row per IN value
< 0\t2\t1\t10\t2\t20\t4\t30
k< 0\t2\t1\t10\t2\t20\t3\t20\t4\t30
rd~> 1\t>=\t1\t1\t10\t0\t@\t0\t2\t15\t35  ## IN with a range op: one row per value
< 0\t2\t2\t20\t5\t40
""")

S('filter_ops', r"""
rd> P\t1\t{db}\tsbtest1\tk_1\tid,k\tk,c,id
< 0\t1
rd> 1\t>=\t1\t10\t10\t0\tF\t=\t0\t20
< 0\t2\t2\t20\t3\t20
rd> 1\t>=\t1\t10\t10\t0\tF\t!=\t0\t20
< 0\t2\t1\t10\t4\t30\t5\t40\t6\t50
rd> 1\t>=\t1\t10\t10\t0\tF\t<\t0\t30
< 0\t2\t1\t10\t2\t20\t3\t20
rd> 1\t>=\t1\t10\t10\t0\tF\t<=\t0\t30
< 0\t2\t1\t10\t2\t20\t3\t20\t4\t30
rd> 1\t>=\t1\t10\t10\t0\tF\t>\t0\t20
< 0\t2\t4\t30\t5\t40\t6\t50
rd> 1\t>=\t1\t10\t10\t0\tF\t>=\t0\t20
< 0\t2\t2\t20\t3\t20\t4\t30\t5\t40\t6\t50
rd> 1\t>=\t1\t10\t10\t0\tW\t<\t0\t30  ## W stops at the first failing row
< 0\t2\t1\t10\t2\t20\t3\t20
rd> 1\t>=\t1\t10\t10\t0\tW\t=\t0\t20  ## ... even the first one
< 0\t2
rd> 1\t>=\t1\t10\t10\t0\tF\t>\t1\tc3\tF\t<\t2\t6  ## filters AND together
< 0\t2\t4\t30\t5\t40
rd> 1\t>=\t1\t10\t10\t0\tF\t=\t1\tC3  ## CHAR, case-insensitive collation
< 0\t2\t3\t20
rd> 1\t>=\t1\t10\t2\t1\tF\t>\t0\t10  ## filtered rows do not count toward limit/offset
< 0\t2\t3\t20\t4\t30
rd> 1\t>=\t1\t10\t10\t0\tF\t=\t0\t20\tW\t<\t2\t3
< 0\t2\t2\t20
rd> 1\t>=\t1\t10\t10\t0\tF\t=\t0\t\x00  ## NULL filter value, NOT NULL column
< 0\t2
rd> 1\t>=\t1\t10\t10\t0\tF\t!=\t0\t\x00
< 0\t2\t1\t10\t2\t20\t3\t20\t4\t30\t5\t40\t6\t50
rd> 1\t<=\t1\t50\t10\t0\tF\t<\t0\t40  ## descending scan
< 0\t2\t4\t30\t3\t20\t2\t20\t1\t10
""")

S('filter_null_and_types', r"""
rd> P\t1\t{db}\ttv\tPRIMARY\tid,i\ti,v,d,dtm,vb,e
< 0\t1
rd> 1\t>=\t1\t1\t10\t0\tF\t=\t0\t\x00  ## NULL equals NULL
< 0\t2\t5\t\x00
rd> 1\t>=\t1\t1\t10\t0\tF\t!=\t0\t\x00
< 0\t2\t1\t10\t2\t10\t3\t20\t4\t20
rd> 1\t>=\t1\t1\t10\t0\tF\t<\t0\t\x00
< 0\t2
rd> 1\t>=\t1\t1\t10\t0\tF\t<=\t0\t\x00
< 0\t2\t5\t\x00
rd> 1\t>=\t1\t1\t10\t0\tF\t>\t0\t\x00  ## NULL sorts below everything
< 0\t2\t1\t10\t2\t10\t3\t20\t4\t20
rd> 1\t>=\t1\t1\t10\t0\tF\t<\t0\t15
< 0\t2\t1\t10\t2\t10\t5\t\x00
rd> 1\t>=\t1\t1\t10\t0\tF\t>=\t0\t15
< 0\t2\t3\t20\t4\t20
rd> 1\t>=\t1\t1\t10\t0\tW\t!=\t0\t\x00
< 0\t2\t1\t10\t2\t10\t3\t20\t4\t20
rd> 1\t>=\t1\t1\t10\t0\tF\t=\t1\tAPPLE
< 0\t2\t1\t10
rd> 1\t>=\t1\t1\t10\t0\tF\t<\t1\tb
< 0\t2\t1\t10\t3\t20\t5\t\x00
rd> 1\t>=\t1\t1\t10\t0\tF\t=\t1\t  ## the empty string is not NULL
< 0\t2\t5\t\x00
rd> 1\t>=\t1\t1\t10\t0\tF\t>\t2\t1.5  ## DECIMAL
< 0\t2\t4\t20
rd> 1\t>=\t1\t1\t10\t0\tF\t>\t2\t1.49
< 0\t2\t1\t10\t4\t20
rd> 1\t>=\t1\t1\t10\t0\tF\t>=\t3\t2024-01-01  ## DATETIME
< 0\t2\t1\t10
rd> 1\t>=\t1\t1\t10\t0\tF\t=\t4\t  ## VARBINARY
< 0\t2\t2\t10
rd> 1\t>=\t1\t1\t10\t0\tF\t=\t5\tb  ## ENUM
< 0\t2\t2\t10
rd> 1\t>=\t1\t1\t10\t0\tF\t>\t5\ta
< 0\t2\t2\t10\t4\t20
""")

S('filter_errors', r"""
rd> P\t1\t{db}\ttv\tPRIMARY\tid,i\ti,v,bl
< 0\t1
rd> 1\t>=\t1\t1\t10\t0\tF\t=\t3\tx  ## fcol past the fcolumns
< 2\t1\tfilterfld
rd> 1\t>=\t1\t1\t10\t0\tF\t=\t2\tblob1  ## BLOB column
< 2\t1\tfilterblob
rd> 1\t>=\t1\t1\t10\t0\tF\t=\t2\t\x00  ## a NULL value on a BLOB column is allowed
< 0\t2\t3\t20\t5\t\x00
rd> 1\t>=\t1\t1\t10\t0\tFF\t=\t0\t10
< 2\t1\tfiltertype
rd> 1\t>=\t1\t1\t10\t0\tWF\t=\t0\t10
< 2\t1\tfiltertype
rd> P\t2\t{db}\ttv\tPRIMARY\tid
< 0\t1
rd> 2\t>=\t1\t1\t10\t0\tF\t=\t0\t1  ## no fcolumns opened
< 2\t1\tfilterfld
rd> 1\t>=\t1\t1\t2\t0  ## still usable
< 0\t2\t1\t10\t2\t10
rd~> 1\t>=\t1\t1\t10\t0\tF\t==\t0\t10  ## unknown filter op: no row passes
< 0\t2
rd~> 1\t>=\t1\t1\t10\t0\tF\t<>\t0\t10  ## unknown two-character op: every row passes
< 0\t2\t1\t10\t2\t10\t3\t20\t4\t20\t5\t\x00
rd~> 1\t>=\t1\t1\t10\t0\tX\t=\t0\t10  ## not F/W: read as a modify op
< 2\t1\treadonly
""")

S('mod_update', r"""
wr> P\t1\t{db}\tcnt\tPRIMARY\tid,a,bu,s,dd
< 0\t1
wr> 1\t=\t1\t1\t1\t0\tU\t1\t30\t31\tu1\t1.25
< 0\t1\t1
wr> 1\t=\t1\t1
< 0\t5\t1\t30\t31\tu1\t1.25
wr> 1\t=\t1\t1\t1\t0\tU\t1\t30\t31\tu1\t1.25  ## identical values: still counted
< 0\t1\t1
wr> 1\t=\t1\t1\t1\t0\tU?\t1\t40\t41\tu2\t2.5  ## U? answers the rows as they were
< 0\t5\t1\t30\t31\tu1\t1.25
wr> 1\t=\t1\t1
< 0\t5\t1\t40\t41\tu2\t2.50
wr> 1\t=\t1\t99\t1\t0\tU\t99\t1\t1\tx\t1  ## no match
< 0\t1\t0
wr> 1\t=\t1\t99\t1\t0\tU?\t99\t1\t1\tx\t1
< 0\t5
wr> 1\t=\t1\t2\t1\t0\tU\t2\t\x00\t\x00\t\x00\t\x00  ## NULLs
< 0\t1\t1
wr> 1\t=\t1\t2
< 0\t5\t2\t\x00\t\x00\t\x00\t\x00
wr> 1\t=\t1\t2\t1\t0\tU\t2\t0\t0\t\t0  ## the empty string is not NULL
< 0\t1\t1
wr> 1\t=\t1\t2
< 0\t5\t2\t0\t0\t\t0.00
wr> P\t2\t{db}\tcnt\tPRIMARY\ta,s
< 0\t1
wr> 2\t>=\t1\t3\t10\t0\tU\t9\tm  ## several rows
< 0\t1\t3
wr> 2\t>=\t1\t1\t2\t1\tU?\t8\tn  ## limit/offset count matched rows
< 0\t2\t0\t\t9\tm
wr> 1\t>=\t1\t1\t10\t0
< 0\t5\t1\t40\t41\tu2\t2.50\t2\t8\t0\tn\t0.00\t3\t8\t0\tn\t0.00\t4\t9\t\x00\tm\t\x00\t5\t9\t10\tm\t3.00
sql> SELECT id, a, bu, s, dd FROM cnt ORDER BY id
< 1\t40\t41\tu2\t2.50
< 2\t8\t0\tn\t0.00
< 3\t8\t0\tn\t0.00
< 4\t9\t\x00\tm\t\x00
< 5\t9\t10\tm\t3.00
""")

S('mod_update_dup', r"""
wr> P\t1\t{db}\tcnt\tPRIMARY\tid,a
< 0\t1
wr> 1\t=\t1\t2\t1\t0\tU\t1\t5  ## primary key changed to an existing one
< 1\t1\t121
wr> 1\t=\t1\t2
< 0\t2\t2\t5
wr> 1\t>=\t1\t1\t10\t0\tU\t9\t9  ## several rows to one key: fails at the second row
< 1\t1\t121
wr~> 1\t>=\t1\t1\t10\t0  ## MariaDB keeps the first row's change (no statement rollback)
< 0\t2\t2\t5\t3\t-4\t4\t\x00\t5\t0\t9\t9
""")

S('mod_delete', r"""
wr> P\t1\t{db}\tcnt\tPRIMARY\tid,a,bu,s,dd
< 0\t1
wr> 1\t>=\t1\t2\t2\t1\tD?  ## offset 1, limit 2
< 0\t5\t3\t-4\t0\tz\t0.00\t4\t\x00\t\x00\t\x00\t\x00
wr> 1\t>=\t1\t1\t10\t0
< 0\t5\t1\t3\t3\tx\t1.50\t2\t5\t5\ty\t2.50\t5\t0\t10\t12\t3.00
wr> 1\t>\t1\t0\t1\t0\tD
< 0\t1\t1
wr> 1\t=\t1\t99\t1\t0\tD  ## no match
< 0\t1\t0
wr> 1\t=\t1\t99\t1\t0\tD?
< 0\t5
wr> 1\t>=\t1\t1\t10\t0\tD
< 0\t1\t2
wr> 1\t>=\t1\t1\t10\t0
< 0\t5
sql> SELECT COUNT(*) FROM cnt
< 0
""")

S('mod_incr', r"""
wr> P\t1\t{db}\tcnt\tPRIMARY\tid,a,bu
< 0\t1
wr> P\t2\t{db}\tcnt\tPRIMARY\ta,bu
< 0\t1
wr> 2\t=\t1\t1\t1\t0\t+\t2\t2
< 0\t1\t1
wr> 1\t=\t1\t1
< 0\t3\t1\t5\t5
wr> 2\t=\t1\t1\t1\t0\t+?\t-1\t1  ## +? answers the row as it was
< 0\t2\t5\t5
wr> 1\t=\t1\t1
< 0\t3\t1\t4\t6
wr> 2\t=\t1\t1\t1\t0\t-\t1\t0
< 0\t1\t1
wr> 1\t=\t1\t1
< 0\t3\t1\t3\t6
wr> 2\t=\t1\t1\t1\t0\t-?\t1\t1
< 0\t2\t3\t6
wr> 1\t=\t1\t1
< 0\t3\t1\t2\t5
wr> 2\t=\t1\t4\t1\t0\t+\t1\t1  ## NULL columns stay NULL, the row still counts
< 0\t1\t1
wr> 1\t=\t1\t4
< 0\t3\t4\t\x00\t\x00
wr> 2\t=\t1\t2\t1\t0\t+\t\x00\t5  ## a NULL value leaves that column alone
< 0\t1\t1
wr> 1\t=\t1\t2
< 0\t3\t2\t5\t10
wr> 2\t>=\t1\t1\t10\t0\t+\t1\t1  ## every matched row counts
< 0\t1\t5
wr> 1\t>=\t1\t1\t10\t0
< 0\t3\t1\t3\t6\t2\t6\t11\t3\t-3\t1\t4\t\x00\t\x00\t5\t1\t11
wr> 2\t=\t1\t5\t1\t0\t+\t-10\t0  ## + may cross zero
< 0\t1\t1
wr> 1\t=\t1\t5
< 0\t3\t5\t-9\t11
""")

S('mod_decr_sign', r"""
wr> P\t1\t{db}\tcnt\tPRIMARY\tid,a,bu
< 0\t1
wr> P\t2\t{db}\tcnt\tPRIMARY\ta
< 0\t1
wr> P\t3\t{db}\tcnt\tPRIMARY\ta,bu
< 0\t1
wr> 2\t=\t1\t1\t1\t0\t-\t5  ## 3 - 5 would cross zero: row unchanged, count 0
< 0\t1\t0
wr> 1\t=\t1\t1
< 0\t3\t1\t3\t3
wr> 2\t=\t1\t2\t1\t0\t-\t5  ## 5 - 5 = 0 is allowed
< 0\t1\t1
wr> 1\t=\t1\t2
< 0\t3\t2\t0\t5
wr> 2\t=\t1\t2\t1\t0\t-\t5  ## from 0 any result is allowed
< 0\t1\t1
wr> 1\t=\t1\t2
< 0\t3\t2\t-5\t5
wr> 2\t=\t1\t3\t1\t0\t-\t-5  ## -4 - -5 = 1 crosses zero
< 0\t1\t0
wr> 1\t=\t1\t3
< 0\t3\t3\t-4\t0
wr> 2\t=\t1\t3\t1\t0\t-\t-4  ## -4 - -4 = 0
< 0\t1\t1
wr> 1\t=\t1\t3
< 0\t3\t3\t0\t0
wr> 3\t=\t1\t1\t1\t0\t-\t1\t5  ## one column would cross: the whole row is unchanged
< 0\t1\t0
wr> 1\t=\t1\t1
< 0\t3\t1\t3\t3
wr> 2\t>=\t1\t1\t10\t0\t-\t3  ## count = rows changed
< 0\t1\t5
wr> 1\t>=\t1\t1\t10\t0
< 0\t3\t1\t0\t3\t2\t-8\t5\t3\t-3\t0\t4\t\x00\t\x00\t5\t-3\t10
wr> 2\t=\t1\t5\t1\t0\t-?\t-5  ## -? answers the row even when it is left unchanged (-3 - -5 crosses zero)
< 0\t1\t-3
wr> 1\t=\t1\t5
< 0\t3\t5\t-3\t10
""")

S('mod_incr_quirks', r"""
wr> P\t1\t{db}\tcnt\tPRIMARY\tid,a,bu,s,dd
< 0\t1
wr> P\t2\t{db}\tcnt\tPRIMARY\ts,dd
< 0\t1
wr> P\t3\t{db}\tcnt\tPRIMARY\ta,bu
< 0\t1
wr~> 2\t=\t1\t1\t1\t0\t+\t1\t1  ## + on VARCHAR / DECIMAL: val_int() + n stored back
< 0\t1\t1
wr~> 1\t=\t1\t1
< 0\t5\t1\t3\t3\t1\t3.00
wr~> 3\t=\t1\t3\t1\t0\t-\t1\t5  ## unsigned 0 - 5: MariaDB clamps to 0
< 0\t1\t1
wr~> 1\t=\t1\t3
< 0\t5\t3\t-5\t0\tz\t0.00
wr~> 3\t=\t1\t5\t1\t0\t+\t9223372036854775807\t0  ## past the INT range: clamped
< 0\t1\t1
wr~> 1\t=\t1\t5
< 0\t5\t5\t2147483647\t10\t12\t3.00
wr~> 3\t=\t1\t2\t1\t0\t+\t1.9\t0  ## the number is read like atoll()
< 0\t1\t1
wr~> 1\t=\t1\t2
< 0\t5\t2\t6\t5\ty\t2.50
wr~> 3\t=\t1\t2\t1\t0\t+\tabc\t0
< 0\t1\t1
wr~> 1\t=\t1\t2
< 0\t5\t2\t6\t5\ty\t2.50
""")

S('mod_errors', r"""
wr> P\t1\t{db}\tcnt\tPRIMARY\tid,a
< 0\t1
wr> 1\t=\t1\t1\t1\t0\t*\t1\t1  ## unknown modify op
< 2\t1\tmodop
wr> 1\t=\t1\t1\t1\t0\tX
< 2\t1\tmodop
wr> 1\t=\t1\t1\t1\t0\t?
< 2\t1\tmodop
wr> 1\t=\t1\t1  ## nothing changed
< 0\t2\t1\t3
rd> P\t1\t{db}\tcnt\tPRIMARY\tid,a
< 0\t1
rd> 1\t=\t1\t1\t1\t0\tU\t1\t9  ## the read-only port
< 2\t1\treadonly
rd> 1\t=\t1\t1\t1\t0\tU?\t1\t9
< 2\t1\treadonly
rd> 1\t=\t1\t1\t1\t0\tD
< 2\t1\treadonly
rd> 1\t=\t1\t1\t1\t0\tD?
< 2\t1\treadonly
rd> 1\t=\t1\t1\t1\t0\t+\t1\t1
< 2\t1\treadonly
rd> 1\t=\t1\t1\t1\t0\t-?\t1\t1
< 2\t1\treadonly
rd~> 1\t=\t1\t1\t1\t0\tZ\t1\t1  ## even an unknown mop answers readonly here
< 2\t1\treadonly
rd> 1\t+\t2\t50\t1  ## insert
< 2\t1\treadonly
rd> 1\t>=\t1\t1\t10\t0  ## nothing changed
< 0\t2\t1\t3\t2\t5\t3\t-4\t4\t\x00\t5\t0
wr~> 1\t=\t1\t1\t1\t0\tUU\t1\t7  ## only the first character counts
< 0\t1\t1
wr~> 1\t=\t1\t1\t1\t0\tU\t1  ## too few values: the rest become ''
< 0\t1\t1
wr~> 1\t=\t1\t1
< 0\t2\t1\t0
wr~> 1\t=\t1\t1\t1\t0\tDx
< 0\t1\t1
wr~> 1\t=\t1\t1
< 0\t2
""")

S('ins_basic', r"""
wr> P\t1\t{db}\tcnt\tPRIMARY\tid,a,bu,s,dd
< 0\t1
wr> 1\t+\t5\t10\t1\t2\ta\t1.5
< 0\t1
wr> 1\t=\t1\t10
< 0\t5\t10\t1\t2\ta\t1.50
wr> 1\t+\t5\t10\t9\t9\tb\t9  ## duplicate primary key
< 1\t1\t121
wr> 1\t=\t1\t10  ## unchanged; the connection still works
< 0\t5\t10\t1\t2\ta\t1.50
wr> 1\t+\t5\t11\t\x00\t\x00\t\x00\t\x00
< 0\t1
wr> 1\t=\t1\t11
< 0\t5\t11\t\x00\t\x00\t\x00\t\x00
wr> 1\t+\t5\t12\t-7\t7\t\t0
< 0\t1
wr> 1\t=\t1\t12
< 0\t5\t12\t-7\t7\t\t0.00
wr> 1\t+\t0  ## no values
< 2\t1\tklen
wr> P\t2\t{db}\ttv\tPRIMARY\tid,b,nn
< 0\t1
wr> 2\t+\t3\t10\t5000\tn10
< 0\t1
wr> 2\t+\t3\t11\t5000\tn11  ## duplicate in a unique secondary index
< 1\t1\t121
wr> 2\t>=\t1\t10\t10\t0
< 0\t3\t10\t5000\tn10
rd> P\t1\t{db}\tcnt\tPRIMARY\tid,a,bu,s,dd
< 0\t1
rd> 1\t+\t5\t13\t1\t1\tx\t1  ## the read-only port
< 2\t1\treadonly
rd> 1\t>=\t1\t10\t10\t0
< 0\t5\t10\t1\t2\ta\t1.50\t11\t\x00\t\x00\t\x00\t\x00\t12\t-7\t7\t\t0.00
sql> SELECT id, a, bu, s, dd FROM cnt WHERE id >= 10 ORDER BY id
< 10\t1\t2\ta\t1.50
< 11\t\x00\t\x00\t\x00\t\x00
< 12\t-7\t7\t\t0.00
""")

S('ins_defaults', r"""
wr> P\t1\t{db}\tcnt\tPRIMARY\tid
< 0\t1
wr> 1\t+\t1\t20  ## columns not given take their defaults
< 0\t1
wr> P\t2\t{db}\tcnt\tPRIMARY\tid,a,bu,s,dd
< 0\t1
wr> 2\t=\t1\t20  ## MariaDB stores 0 / '' instead of DEFAULT NULL
< 0\t5\t20\t0\t0\t\t0.00
k< 0\t5\t20\t\x00\t\x00\t\x00\t\x00
wr> 2\t+\t2\t21\t5  ## fewer values than opened columns
< 0\t1
wr> 2\t=\t1\t21
< 0\t5\t21\t5\t0\t\t0.00
k< 0\t5\t21\t5\t\x00\t\x00\t\x00
sql> SELECT id, a, bu, s, dd FROM cnt WHERE id >= 20 ORDER BY id
< 20\t0\t0\t\t0.00
< 21\t5\t0\t\t0.00
k< 20\t\x00\t\x00\t\x00\t\x00
k< 21\t5\t\x00\t\x00\t\x00
wr~> 2\t+\t6\t22\t1\t2\tx\t1\textra  ## more values than opened columns: the rest is ignored
< 0\t1
""")

S('ins_autoinc', r"""
wr> P\t1\t{db}\taut\tPRIMARY\tv
< 0\t1
wr> 1\t+\t1\tx  ## answers the generated id
< 0\t1\t2
wr> 1\t+\t1\ty
< 0\t1\t3
wr> P\t2\t{db}\taut\tPRIMARY\tid,v
< 0\t1
wr> 2\t+\t2\t100\tz  ## explicit id: no id generated, MariaDB answers 0
< 0\t1\t0
wr> 1\t+\t1\tw  ## continues after the explicit one
< 0\t1\t101
wr> 2\t+\t2\t0\tq  ## 0 generates
< 0\t1\t102
wr> 2\t+\t2\t\x00\tr  ## NULL generates
< 0\t1\t103
wr> 2\t+\t2\t100\tdup
< 1\t1\t121
wr> 1\t+\t1\tafter  ## a failed insert uses no id
< 0\t1\t104
wr> P\t3\t{db}\taut\tPRIMARY\tid,v,n,z
< 0\t1
wr> 3\t>=\t1\t0\t20\t0  ## n is DEFAULT NULL: MariaDB stores 0
< 0\t4\t1\ta1\t\x00\t7\t2\tx\t0\t7\t3\ty\t0\t7\t100\tz\t0\t7\t101\tw\t0\t7\t102\tq\t0\t7\t103\tr\t0\t7\t104\tafter\t0\t7
k< 0\t4\t1\ta1\t\x00\t7\t2\tx\t\x00\t7\t3\ty\t\x00\t7\t100\tz\t\x00\t7\t101\tw\t\x00\t7\t102\tq\t\x00\t7\t103\tr\t\x00\t7\t104\tafter\t\x00\t7
wr> P\t4\t{db}\taut\tPRIMARY\tn
< 0\t1
wr> 4\t+\t1\t5  ## only a non-key column
< 0\t1\t105
wr> 3\t=\t1\t105
< 0\t4\t105\tdv\t5\t7
wr> P\t5\t{db}\tsbtest1\tPRIMARY\tk,c
< 0\t1
wr> 5\t+\t2\t7\tcc
< 0\t1\t7
wr> P\t6\t{db}\tsbtest1\tPRIMARY\tid,k,c,pad
< 0\t1
wr> 6\t=\t1\t7
< 0\t4\t7\t7\tcc\t
""")

S('ins_strict', r"""
wr> P\t1\t{db}\tcnt\tPRIMARY\tid,a,bu,s,dd
< 0\t1
wr> 1\t+\t5\t30\tabc\t1\tx\t1  ## 'abc' into INT
< 0\t1
k< 1\t1\t1366
wr> 1\t+\t5\t31\t1\t-1\tx\t1  ## -1 into INT UNSIGNED
< 0\t1
k< 1\t1\t1264
wr> 1\t+\t5\t32\t1\t1\tabcdefghijklmnop\t1  ## too long for VARCHAR(10)
< 0\t1
k< 1\t1\t1406
wr> 1\t+\t5\t33\t1\t1\tx\t123456.789  ## out of range for DECIMAL(6,2)
< 0\t1
k< 1\t1\t1264
wr> 1\t+\t5\t\x00\t1\t1\tx\t1  ## NULL into the NOT NULL primary key
< 0\t1
k< 1\t1\t1048
wr> 1\t>=\t1\t30\t10\t0
< 0\t5\t30\t0\t1\tx\t1.00\t31\t1\t0\tx\t1.00\t32\t1\t1\tabcdefghij\t1.00\t33\t1\t1\tx\t9999.99
k< 0\t5
wr> 1\t=\t1\t0
< 0\t5\t0\t1\t1\tx\t1.00
k< 0\t5
wr> P\t2\t{db}\ttv\tPRIMARY\tid,b,nn
< 0\t1
wr> 2\t+\t3\t40\t4000\t\x00  ## NULL into NOT NULL
< 0\t1
k< 1\t1\t1048
wr> P\t3\t{db}\ttv\tPRIMARY\tid,b
< 0\t1
wr> 3\t+\t2\t41\t4100  ## a NOT NULL column without default not given
< 0\t1
k< 1\t1\t1364
wr> P\t4\t{db}\ttv\tPRIMARY\tid,b,nn,dt
< 0\t1
wr> 4\t+\t4\t42\t4200\tx\t2024-13-45  ## invalid DATE
< 0\t1
k< 1\t1\t1292
wr> P\t5\t{db}\ttv\tPRIMARY\tid,b,nn,e
< 0\t1
wr> 5\t+\t4\t43\t4300\tx\tzz  ## not an ENUM member
< 0\t1
k< 1\t1\t1265
wr> P\t6\t{db}\ttv\tPRIMARY\tid,b,nn,dt,e
< 0\t1
wr> 6\t>=\t1\t40\t10\t0
< 0\t5\t40\t4000\t\t0000-00-00\t\t41\t4100\t\t0000-00-00\t\t42\t4200\tx\t0000-00-00\t\t43\t4300\tx\t0000-00-00\t
k< 0\t5
wr> 1\t=\t1\t1\t1\t0\tU\t1\tabc\t1\tx\t1  ## U: 'abc' into INT
< 0\t1\t1
k< 1\t1\t1366
wr> 1\t=\t1\t1
< 0\t5\t1\t0\t1\tx\t1.00
k< 0\t5\t1\t3\t3\tx\t1.50
wr> 1\t=\t1\t1\t1\t0\tU\t1\t1\t1\t\x00\t1  ## U: NULL into a nullable column is fine
< 0\t1\t1
wr> 1\t=\t1\t1
< 0\t5\t1\t1\t1\t\x00\t1.00
wr> 2\t=\t1\t1\t1\t0\tU\t1\t1000\t\x00  ## U: NULL into NOT NULL
< 0\t1\t1
k< 1\t1\t1048
wr> 2\t=\t1\t1
< 0\t3\t1\t1000\tn1
""")

S('ins_binary', r"""
wr> P\t1\t{db}\tbin\tPRIMARY\tid,vb,bl,v
< 0\t1
wr> 1\t+\t4\t1\t\x01@\x01A\x01O\x10\x7f\x80\xff\t\x01@\tx\x01Jy  ## escaped 0x00 0x01 0x0f, raw 0x10-0xff
< 0\t1
wr> 1\t=\t1\t1
< 0\t4\t1\t\x01@\x01A\x01O\x10\x7f\x80\xff\t\x01@\tx\x01Jy
wr> 1\t+\t4\t2\t\t\t  ## empty strings
< 0\t1
wr> 1\t+\t4\t3\t\x00\t\x00\t\x00  ## NULLs
< 0\t1
wr> 1\t>=\t1\t2\t10\t0
< 0\t4\t2\t\t\t\t3\t\x00\t\x00\t\x00
wr> 1\t+\t4\t4\tab\x00cd\t\t\xc3\xa9\xe2\x82\xac  ## an unescaped 0x00 inside a token is kept; UTF-8 text
< 0\t1
wr> 1\t=\t1\t4
< 0\t4\t4\tab\x01@cd\t\t\xc3\xa9\xe2\x82\xac
sql> SELECT id, HEX(vb), HEX(bl), HEX(v), vb IS NULL, v IS NULL FROM bin ORDER BY id
< 1\t00010F107F80FF\t00\t780A79\t0\t0
< 2\t\t\t\t0\t0
< 3\t\x00\t\x00\t\x00\t1\t1
< 4\t6162006364\t\tC3A9E282AC\t0\t0
rd> P\t1\t{db}\tbin\tPRIMARY\tid,vb\tvb,v
< 0\t1
rd> 1\t>=\t1\t1\t10\t0\tF\t=\t0\t  ## '' matches only the empty value
< 0\t2\t2\t
rd> 1\t>=\t1\t1\t10\t0\tF\t=\t0\t\x01@\x01A\x01O\x10\x7f\x80\xff
< 0\t2\t1\t\x01@\x01A\x01O\x10\x7f\x80\xff
rd> 1\t>=\t1\t1\t10\t0\tF\t=\t1\t\xc3\x89\xe2\x82\xac  ## case-insensitive UTF-8
< 0\t2\t4\tab\x01@cd
wr~> 1\t+\t4\t5\tab\x01  ## a lone 0x01 at the end is dropped
< 0\t1
wr~> 1\t+\t4\t6\ta\x010b  ## 0x01 then a byte below 0x40: MariaDB cuts the value there
< 0\t1
wr~> 1\t>=\t1\t5\t10\t0
< 0\t4\t5\tab\t\t\t6\ta\t\t
""")

S('proto_lines', r"""
rd> P\t1\t{db}\tsbtest1\tPRIMARY\tid,k
< 0\t1
rd>   ## empty line
< 2\t1\tcmd
rd> \r  ## CR only
< 2\t1\tcmd
rd> 1\t=\t1\t1\r  ## CRLF
< 0\t2\t1\t10
rd> Z  ## unknown command letter
< 2\t1\tcmd
rd> PP\t1
< 2\t1\tcmd
rd> x\t=\t1\t1  ## not a digit, not P or A
< 2\t1\tcmd
rd> p\t1\t{db}\tsbtest1\tPRIMARY\tid
< 2\t1\tcmd
rd> 1\n1\t=\t1\t2\n\n1\t>=\t1\t1\t3\t0  ## pipelined: one answer per line, in order
< 2\t1\top
< 0\t2\t2\t20
< 2\t1\tcmd
< 0\t2\t1\t10\t2\t20\t3\t20
rd> 1\t=\t1\t3\r\n1\t=\t1\t4\r  ## pipelined with CRLF
< 0\t2\t3\t20
< 0\t2\t4\t30
rd~> 1\t=\t1\t1\r\r  ## only one CR is dropped
< 0\t2\t1\t10
rd~> 1\t=\t1\t1\tx\t0  ## a non-numeric limit reads as 0
< 0\t2\t1\t10
rd~> 1\t>=\t1\t1\t3x\t0
< 0\t2\t1\t10\t2\t20\t3\t20
rd~> 1\t=\t1x\t1
< 0\t2\t1\t10
rd~> 1\t>=\t1\t1\t3\t0\textra  ## junk after the offset: read as a modify op
< 2\t1\treadonly
""")

S('proto_pipeline_wr', r"""
wr> P\t1\t{db}\tcnt\tPRIMARY\tid,a
< 0\t1
wr> 1\t=\t1\t1\t1\t0\tU\t1\t77\n1\t=\t1\t1\n1\t+\t2\t60\t6\n1\t=\t1\t60\n1\t=\t1\t60\t1\t0\tD\n1\t=\t1\t60  ## writes are visible to later lines of the same batch
< 0\t1\t1
< 0\t2\t1\t77
< 0\t1
< 0\t2\t60\t6
< 0\t1\t1
< 0\t2
wr> 1\t+\t2\t70\t1\n1\t+\t2\t70\t2\n1\t=\t1\t70  ## a failed write does not undo the batch
< 0\t1
< 1\t1\t121
< 0\t2\t70\t1
wr> 1\t=\t1\t2\t1\t0\tU\t1\t5\n1\t=\t1\t2\n1\t=\t1\t1  ## a failed update, then reads
< 1\t1\t121
< 0\t2\t2\t5
< 0\t2\t1\t77
rd> P\t1\t{db}\tcnt\tPRIMARY\tid,a
< 0\t1
rd> 1\t=\t1\t1\n1\t=\t1\t60\n1\t=\t1\t70  ## another connection sees the committed state
< 0\t2\t1\t77
< 0\t2
< 0\t2\t70\t1
sql> SELECT id, a FROM cnt ORDER BY id
< 1\t77
< 2\t5
< 3\t-4
< 4\t\x00
< 5\t0
< 70\t1
""")

S('auth_rd', r"""
rd> P\t1\t{db}\tcnt\tPRIMARY\tid,a
< 3\t1\tunauth
rd> 1\t=\t1\t1
< 3\t1\tunauth
rd>   ## commands other than P, A and indexids need no auth
< 2\t1\tcmd
rd> Z
< 2\t1\tcmd
rd> A\t1\twrong
< 3\t1\tunauth
rd> A\t2\trsecret  ## the type must be 1
< 3\t1\tauthtype
rd> A\t1\twsecret  ## the other port's secret
< 3\t1\tunauth
rd> A\t1\trsecret
< 0\t1
rd> P\t1\t{db}\tcnt\tPRIMARY\tid,a
< 0\t1
rd> 1\t=\t1\t1
< 0\t2\t1\t3
rd> A\t1\twrong  ## a failed auth de-authorizes
< 3\t1\tunauth
rd> 1\t=\t1\t1
< 3\t1\tunauth
rd> P\t2\t{db}\tcnt\tPRIMARY\tid,a
< 3\t1\tunauth
rd> A\t1\trsecret
< 0\t1
rd> 1\t=\t1\t1  ## the index opened before is still bound
< 0\t2\t1\t3
rd> A\t11\trsecret  ## a bad type leaves the state alone
< 3\t1\tauthtype
rd> 1\t=\t1\t1
< 0\t2\t1\t3
rd2> 1\t=\t1\t1  ## auth belongs to one connection
< 3\t1\tunauth
rd~> A  ## no arguments
< 3\t1\tauthtype
rd~> A\t1  ## no secret
< 3\t1\tunauth
""", server='auth')

S('auth_wr', r"""
wr> P\t1\t{db}\tcnt\tPRIMARY\tid,a
< 3\t1\tunauth
wr> 1\t+\t2\t50\t1
< 3\t1\tunauth
wr> A\t1\trsecret  ## the other port's secret
< 3\t1\tunauth
wr> A\t1\twsecret
< 0\t1
wr> P\t1\t{db}\tcnt\tPRIMARY\tid,a
< 0\t1
wr> 1\t+\t2\t50\t1
< 0\t1
wr> 1\t=\t1\t50
< 0\t2\t50\t1
wr2> 1\t+\t2\t51\t1
< 3\t1\tunauth
wr2> A\t1\twsecret\n1\t+\t2\t51\t1  ## auth and a request in one batch
< 0\t1
< 2\t1\tstmtnum
""", server='auth')
# ---- END SCRIPTS ----
