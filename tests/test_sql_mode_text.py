"""sql_mode flags that change how statement text is read (lexer.rs `LexMode`):
ANSI_QUOTES (`"x"` is an identifier), PIPES_AS_CONCAT (`||` is CONCAT, binding
tighter than `^`), REAL_AS_FLOAT, HIGH_NOT_PRECEDENCE and NO_BACKSLASH_ESCAPES, and the combination mode
ANSI that sets the first three.

The differential test runs the same scripted sessions on kiln and a private MariaDB
10.11 (which reads these modes as MySQL 8.0 does) and compares rows and error numbers.
The others check what must hold whatever the mode is now: a view or trigger means
what it meant under the sql_mode it was created in (also after a restart), the
text-statement and point-select caches never serve a statement parsed under another
mode, and SHOW CREATE TABLE quotes with `"` under ANSI_QUOTES so its text reads back.
"""

import pymysql
import pytest

from mariadb_server import start_private_mariadb

DB = "lexmode"

SETUP = [
    f"CREATE DATABASE {DB}",
    f"USE {DB}",
    "CREATE TABLE t (id INT PRIMARY KEY, a INT, s VARCHAR(10))",
    "INSERT INTO t VALUES (1, 10, 'x'), (2, 20, NULL), (3, 30, 'zz')",
]

# (sql_mode, statement): each statement runs after SET sql_mode.
SCRIPT = [
    ("ANSI_QUOTES", 'SELECT "a", "s" FROM "t" ORDER BY "id"'),
    ("ANSI_QUOTES", "SELECT \"a\" + 1 AS \"x y\" FROM t WHERE \"id\" = 2"),
    ("ANSI_QUOTES", 'SELECT "nope" FROM t'),
    ("ANSI_QUOTES", "SELECT 'str', \"a\" FROM t WHERE id = 3"),
    ("ANSI_QUOTES", 'CREATE TABLE "q""t" ("c""d" INT)'),
    ("ANSI_QUOTES", 'INSERT INTO "q""t" ("c""d") VALUES (7)'),
    ("", 'SELECT `c"d` FROM `q"t`'),
    ("", 'SELECT "a" FROM t WHERE id = 1'),
    ("", "SELECT 'a' || 'b', 1 || 0, 0 || 0"),
    ("PIPES_AS_CONCAT", "SELECT 'a' || 'b', 1 || 0, 0 || 0, NULL || 'x'"),
    ("PIPES_AS_CONCAT", "SELECT 1 + 2 || 3, 2 * 3 || 4, - 1 || 2, 6 ^ 1 || 2"),
    ("PIPES_AS_CONCAT", "SELECT 'a' || 'b' || 'c', 'x' || 'y' = 'xy', 1 || 2 OR 0"),
    ("PIPES_AS_CONCAT", "SELECT s || '!' FROM t ORDER BY id"),
    ("PIPES_AS_CONCAT", "SELECT 1 FROM t WHERE s || '' = 'zz'"),
    ("PIPES_AS_CONCAT", "SELECT 1 && 0, 1 AND 1"),
    ("ANSI", "SELECT \"s\" || '-' || \"a\" FROM \"t\" ORDER BY \"id\""),
    ("ANSI", "SELECT @@sql_mode"),
    ("REAL_AS_FLOAT", "CREATE TABLE r1 (x REAL)"),
    ("", "CREATE TABLE r2 (x REAL)"),
    (
        "",
        "SELECT TABLE_NAME, DATA_TYPE FROM information_schema.COLUMNS "
        f"WHERE TABLE_SCHEMA = '{DB}' AND TABLE_NAME IN ('r1', 'r2') ORDER BY 1",
    ),
    ("NO_BACKSLASH_ESCAPES", "SELECT 'a\\nb', LENGTH('\\\\'), 'x\\'"),
    ("NO_BACKSLASH_ESCAPES,ANSI_QUOTES", 'SELECT \'\\t\', "a" FROM t WHERE id = 1'),
    ("", "SELECT 'a\\nb', LENGTH('\\\\')"),
    ("HIGH_NOT_PRECEDENCE", "SELECT NOT 1 BETWEEN -5 AND 5, NOT 0 = 1, NOT 1 + 1, NOT a > 15 FROM t"),
    ("", "SELECT NOT 1 BETWEEN -5 AND 5, NOT 0 = 1, NOT 1 + 1, NOT a > 15 FROM t"),
]


def outcome(c, mode, sql):
    with c.cursor() as cur:
        cur.execute("SET sql_mode = %s", (mode,))
        try:
            cur.execute(sql)
            rows = cur.fetchall()
        except pymysql.MySQLError as e:
            return ("error", e.args[0])
        return ("rows", [tuple(str(v) if v is not None else None for v in r) for r in rows])


def test_text_modes_match_mariadb(kiln):
    m = start_private_mariadb(prefix="kiln-lexmode-")
    try:
        k = kiln.connect()
        mc = m.connect()
        for c in (k, mc):
            for sql in SETUP:
                c.cursor().execute(sql)
        diffs = []
        for mode, sql in SCRIPT:
            a = outcome(k, mode, sql)
            b = outcome(mc, mode, sql)
            if mode == "ANSI" and sql == "SELECT @@sql_mode":
                # MariaDB's ANSI also holds NO_FIELD_OPTIONS etc.; MySQL 8.0's is these.
                assert a == (
                    "rows",
                    [("REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ONLY_FULL_GROUP_BY,ANSI",)],
                ), a
                continue
            if a != b:
                diffs.append((mode, sql, a, b))
        assert not diffs, "\n".join(map(repr, diffs))
    finally:
        m.stop()


def q(c, sql, mode=None):
    with c.cursor() as cur:
        if mode is not None:
            cur.execute("SET sql_mode = %s", (mode,))
        cur.execute(sql)
        return cur.fetchall()


def test_views_and_triggers_keep_their_creation_mode(kiln_factory):
    srv = kiln_factory()
    c = srv.connect()
    for sql in SETUP:
        q(c, sql)
    q(c, "CREATE TABLE log (m VARCHAR(40))")
    q(c, "CREATE VIEW v AS SELECT \"s\" || '-' || \"a\" AS j, 'b\\c' AS k FROM \"t\"",
      mode="ANSI,NO_BACKSLASH_ESCAPES")
    q(c, "CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW "
         "INSERT INTO log VALUES (NEW.\"s\" || '+' || NEW.\"a\")", mode="ANSI")
    want_v = ((None,), ("x-10",), ("zz-30",))

    def check(conn):
        for mode in ("", "ANSI", "NO_BACKSLASH_ESCAPES", "PIPES_AS_CONCAT"):
            assert q(conn, "SELECT j FROM v ORDER BY j", mode=mode) == want_v, mode
            # 'b\c' under NO_BACKSLASH_ESCAPES is three characters.
            assert q(conn, "SELECT DISTINCT k, LENGTH(k) FROM v", mode=mode) == (("b\\c", 3),)
        # SHOW CREATE VIEW's text reads the same in the default mode: `"` became `.
        text = q(conn, "SHOW CREATE VIEW v", mode="")[0][1]
        assert '"s"' not in text and "`s`" in text, text

    check(c)
    q(c, "INSERT INTO t VALUES (4, 40, 'w')", mode="")
    q(c, "INSERT INTO t VALUES (5, 50, 'v')", mode="NO_BACKSLASH_ESCAPES")
    assert q(c, "SELECT m FROM log ORDER BY m", mode="") == (("v+50",), ("w+40",))
    srv.stop()
    srv.start()
    c = srv.connect(database=DB)
    q(c, "DELETE FROM t WHERE id >= 4")
    check(c)
    q(c, "INSERT INTO t VALUES (6, 60, 'u')", mode="")
    assert q(c, "SELECT m FROM log WHERE m LIKE 'u%'") == (("u+60",),)


def test_caches_never_cross_modes(kiln):
    c = kiln.connect()
    for sql in SETUP:
        q(c, sql)
    # The same text, alternating modes, several times: the first run of each text
    # fills the text-statement cache and the point-select digests.
    point = 'SELECT "a" FROM t WHERE id = 1'
    pipes = "SELECT a || 0 FROM t WHERE id = 2"
    multi = "SELECT \"s\" FROM t WHERE id IN (1, 3) ORDER BY id"
    for _ in range(3):
        assert q(c, point, mode="") == (("a",),)
        assert q(c, point, mode="ANSI_QUOTES") == ((10,),)
        assert q(c, pipes, mode="") == ((1,),)
        assert q(c, pipes, mode="PIPES_AS_CONCAT") == (("200",),)
        assert q(c, multi, mode="") == (("s",), ("s",))
        assert q(c, multi, mode="ANSI_QUOTES") == (("x",), ("zz",))
    # Prepared statements are read under the mode at PREPARE.
    q(c, "SET sql_mode = 'ANSI_QUOTES'")
    q(c, "PREPARE p FROM 'SELECT \"a\" FROM t WHERE id = ?'")
    q(c, "SET sql_mode = ''")
    q(c, "SET @i = 3")
    assert q(c, "EXECUTE p USING @i") == ((30,),)


def test_show_create_table_quotes_for_ansi_quotes(kiln):
    c = kiln.connect()
    q(c, f"CREATE DATABASE {DB}")
    q(c, f"USE {DB}")
    q(c, "CREATE TABLE `we\"ird` (`c\"1` INT PRIMARY KEY, `k` VARCHAR(5), KEY `i\"x` (`k`))")
    plain = q(c, 'SHOW CREATE TABLE `we"ird`', mode="")[0][1]
    assert plain.startswith('CREATE TABLE `we"ird` (\n  `c"1` int'), plain
    ansi = q(c, 'SHOW CREATE TABLE "we""ird"', mode="ANSI_QUOTES")[0][1]
    assert ansi.startswith('CREATE TABLE "we""ird" (\n  "c""1" int'), ansi
    assert 'KEY "i""x" ("k")' in ansi, ansi
    # The ANSI text creates the same table under ANSI_QUOTES.
    q(c, 'DROP TABLE "we""ird"', mode="ANSI_QUOTES")
    q(c, ansi, mode="ANSI_QUOTES")
    assert q(c, 'SHOW CREATE TABLE `we"ird`', mode="")[0][1] == plain
