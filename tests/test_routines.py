"""Stored procedures and functions against the real kiln binary: CREATE / ALTER / DROP
PROCEDURE | FUNCTION with MySQL's errors, CALL with IN / OUT / INOUT arguments and
result sets (PyMySQL with CLIENT.MULTI_RESULTS; 1312 without it, on a raw socket),
stored functions in expressions, conversions of arguments and return values, handlers,
conditions, cursors, SIGNAL / RESIGNAL, recursion limits, transactions in procedures,
privileges and SQL SECURITY, SHOW CREATE / SHOW ... STATUS / information_schema
ROUTINES and PARAMETERS, persistence across restart and DROP DATABASE, prepared CALL,
the mariadb-dump --routines round trip, and a differential run against MariaDB 10.11
for the cases where MySQL 8.0 and MariaDB agree."""

import shutil
from decimal import Decimal
import struct
import subprocess

import pymysql
import pytest
from pymysql.constants import CLIENT

import rawproto
from mariadb_server import start_private_mariadb


def connect(server, **kw):
    kw.setdefault("client_flag", CLIENT.MULTI_RESULTS | CLIENT.MULTI_STATEMENTS)
    return server.connect(**kw)


def run(c, sql, args=None):
    with c.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall()


def sets(c, sql):
    """Every result set a statement sends (a CALL's SELECTs), then the final
    affected-rows count: ([rows, ...], affected)."""
    out = []
    with c.cursor() as cur:
        affected = cur.execute(sql)
        while True:
            if cur.description is not None:
                out.append(tuple(tuple(r) for r in cur.fetchall()))
            else:
                affected = cur.rowcount
            if not cur.nextset():
                break
    return out, affected


def err(c, sql):
    with pytest.raises(pymysql.err.MySQLError) as e:
        sets(c, sql)
    return e.value.args


def code(c, sql):
    return err(c, sql)[0]


def setup(server, db="rdb"):
    c = connect(server)
    run(c, f"CREATE DATABASE {db}")
    run(c, f"USE {db}")
    run(c, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))")
    return c


# -- CREATE, CALL, functions ----------------------------------------------------------------


def test_call_in_out_inout_and_result_sets(kiln):
    c = setup(kiln)
    run(c, "CREATE PROCEDURE p(IN a INT, OUT b VARCHAR(10), INOUT n INT) "
           "COMMENT 'demo' BEGIN SET b = CONCAT('v', a); SET n = n * 2; "
           "SELECT a, b; SELECT n; END")
    run(c, "SET @n = 21")
    got, _ = sets(c, "CALL p(5, @b, @n)")
    assert got == [((5, "v5"),), ((42,),)]
    assert run(c, "SELECT @b, @n") == (("v5", 42),)
    # OUT starts as NULL inside the body.
    run(c, "CREATE PROCEDURE q(OUT o INT) BEGIN SELECT o IS NULL; SET o = 1; END")
    run(c, "SET @o = 99")
    assert sets(c, "CALL q(@o)")[0] == [((1,),)]
    assert run(c, "SELECT @o") == ((1,),)
    # CALL without parentheses, and a procedure with no result set: one OK.
    run(c, "CREATE PROCEDURE ins() INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    got, affected = sets(c, "CALL ins")
    assert got == [] and affected == 2
    assert run(c, "SELECT COUNT(*) FROM t") == ((2,),)
    # Qualified names, from another database.
    run(c, "CREATE DATABASE other")
    run(c, "USE other")
    assert sets(c, "CALL rdb.q(@o)")[0] == [((1,),)]
    run(c, "USE rdb")


def test_stored_functions_in_expressions(kiln):
    c = setup(kiln)
    run(c, "INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three')")
    run(c, "CREATE FUNCTION twice(x INT) RETURNS INT DETERMINISTIC RETURN x * 2")
    run(c, "CREATE FUNCTION label(i INT) RETURNS VARCHAR(30) READS SQL DATA "
           "BEGIN DECLARE s VARCHAR(20); SELECT v INTO s FROM t WHERE id = i; "
           "RETURN CONCAT('<', IFNULL(s, '?'), '>'); END")
    assert run(c, "SELECT twice(21), twice(NULL), rdb.twice(1)") == ((42, None, 2),)
    assert run(c, "SELECT id, label(id) FROM t ORDER BY id") == (
        (1, "<one>"), (2, "<two>"), (3, "<three>"))
    assert run(c, "SELECT id FROM t WHERE id = twice(1)") == ((2,),)
    assert run(c, "SELECT id FROM t WHERE twice(id) > 3 ORDER BY id") == ((2,), (3,))
    run(c, "INSERT INTO t VALUES (twice(5), label(1))")
    assert run(c, "SELECT v FROM t WHERE id = 10") == (("<one>",),)
    run(c, "UPDATE t SET v = label(2) WHERE id = twice(5)")
    assert run(c, "SELECT v FROM t WHERE id = 10") == (("<two>",),)
    # Built-ins win over a stored function of the same name; db.f reaches it.
    run(c, "CREATE FUNCTION abs(x INT) RETURNS INT RETURN 7")
    assert run(c, "SELECT abs(-3), rdb.abs(-3)") == ((3, 7),)
    # A function in a trigger.
    run(c, "CREATE TABLE log (id INT, d INT)")
    run(c, "CREATE TRIGGER t_ai AFTER INSERT ON t FOR EACH ROW "
           "INSERT INTO log VALUES (NEW.id, twice(NEW.id))")
    run(c, "INSERT INTO t VALUES (20, 'x')")
    assert run(c, "SELECT * FROM log") == ((20, 40),)
    # A function calling a procedure (OUT into its local variable).
    run(c, "CREATE PROCEDURE sq(IN a INT, OUT b INT) SET b = a * a")
    run(c, "CREATE FUNCTION viaproc(a INT) RETURNS INT BEGIN DECLARE r INT; "
           "CALL sq(a, r); RETURN r + 1; END")
    assert run(c, "SELECT viaproc(4)") == ((17,),)


def test_conversions_of_arguments_and_return_values(kiln):
    c = setup(kiln)
    run(c, "CREATE FUNCTION f(x TINYINT) RETURNS VARCHAR(3) RETURN CONCAT(x, 'abcdef')")
    # strict mode (the routine's sql_mode): 1264 out of range, 1406 too long.
    assert code(c, "SELECT f(1000)") == 1264
    assert code(c, "SELECT f(1)") == 1406
    run(c, "SET sql_mode = ''")
    run(c, "CREATE FUNCTION g(x TINYINT) RETURNS VARCHAR(3) RETURN CONCAT(x, 'abcdef')")
    assert run(c, "SELECT g(1000)") == (("127",),)
    run(c, "SET sql_mode = DEFAULT")
    # The routine keeps the sql_mode it was created with.
    assert run(c, "SELECT g(1000)") == (("127",),)
    run(c, "CREATE FUNCTION d(x DECIMAL(5,2)) RETURNS DECIMAL(6,1) RETURN x * 3")
    assert run(c, "SELECT d(1.234)") == ((Decimal("3.7"),),)
    run(c, "CREATE PROCEDURE pin(IN x INT) SELECT x")
    assert code(c, "CALL pin('abc')") == 1366


def test_routine_ddl_errors(kiln):
    c = setup(kiln)
    run(c, "CREATE PROCEDURE p() SELECT 1")
    assert err(c, "CREATE PROCEDURE p() SELECT 2") == (1304, "PROCEDURE p already exists")
    run(c, "CREATE PROCEDURE IF NOT EXISTS p() SELECT 2")
    assert run(c, "SHOW WARNINGS") == (("Note", 1304, "PROCEDURE p already exists"),)
    # A function and a procedure may share a name.
    run(c, "CREATE FUNCTION p() RETURNS INT RETURN 1")
    assert err(c, "CALL nope()") == (1305, "PROCEDURE rdb.nope does not exist")
    assert err(c, "SELECT nope(1)") == (1305, "FUNCTION rdb.nope does not exist")
    assert err(c, "DROP PROCEDURE nope") == (1305, "PROCEDURE rdb.nope does not exist")
    run(c, "DROP PROCEDURE IF EXISTS nope")
    assert run(c, "SHOW WARNINGS") == (("Note", 1305, "PROCEDURE rdb.nope does not exist"),)
    assert err(c, "CALL p(1)") == (
        1318, "Incorrect number of arguments for PROCEDURE rdb.p; expected 0, got 1")
    run(c, "CREATE FUNCTION two(a INT, b INT) RETURNS INT RETURN a + b")
    assert err(c, "SELECT two(1)") == (
        1318, "Incorrect number of arguments for FUNCTION rdb.two; expected 2, got 1")
    run(c, "CREATE PROCEDURE o(OUT x INT) SET x = 1")
    assert err(c, "CALL o(1)") == (
        1414, "OUT or INOUT argument 1 for routine rdb.o is not a variable or NEW "
              "pseudo-variable in BEFORE trigger")
    assert err(c, "CREATE FUNCTION nr() RETURNS INT BEGIN END") == (
        1320, "No RETURN found in FUNCTION rdb.nr")
    run(c, "CREATE FUNCTION late(x INT) RETURNS INT BEGIN IF x > 0 THEN RETURN 1; END IF; END")
    assert run(c, "SELECT late(1)") == ((1,),)
    assert err(c, "SELECT late(0)") == (1321, "FUNCTION late ended without RETURN")
    assert err(c, "CREATE PROCEDURE r() RETURN 1") == (1313, "RETURN is only allowed in a FUNCTION")
    assert err(c, "CREATE FUNCTION s() RETURNS INT BEGIN SELECT 1; RETURN 1; END") == (
        1415, "Not allowed to return a result set from a function")
    assert err(c, "CREATE FUNCTION s() RETURNS INT BEGIN COMMIT; RETURN 1; END") == (
        1422, "Explicit or implicit commit is not allowed in stored function or trigger.")
    assert err(c, "CREATE FUNCTION s() RETURNS INT BEGIN PREPARE x FROM 'SELECT 1'; "
                  "RETURN 1; END") == (
        1336, "Dynamic SQL is not allowed in stored function or trigger")
    assert code(c, "CREATE PROCEDURE u() USE rdb") == 1314
    assert code(c, "CREATE PROCEDURE u() CREATE PROCEDURE v() SELECT 1") == 1303
    assert code(c, "CREATE PROCEDURE u() DROP PROCEDURE p") == 1357
    assert code(c, "CREATE PROCEDURE dup(a INT, a INT) SELECT 1") == 1330
    assert code(c, "CREATE PROCEDURE u() BEGIN DECLARE a INT; DECLARE a INT; END") == 1331
    assert code(c, "CREATE PROCEDURE u() OPEN nocur") == 1324
    assert code(c, "CREATE PROCEDURE u() SIGNAL nocond") == 1319
    assert code(c, "CREATE PROCEDURE u() BEGIN DECLARE c CURSOR FOR SELECT 1; "
                   "DECLARE x INT; END") == 1337
    assert code(c, "CREATE PROCEDURE u() BEGIN DECLARE CONTINUE HANDLER FOR NOT FOUND "
                   "BEGIN END; DECLARE c CURSOR FOR SELECT 1; END") == 1338
    assert code(c, "CREATE PROCEDURE u() l: LOOP ITERATE m; END LOOP") == 1308
    assert code(c, "CREATE PROCEDURE nodb.u() SELECT 1") == 1049
    assert kiln.alive()


def test_alter_and_drop(kiln):
    c = setup(kiln)
    run(c, "CREATE PROCEDURE p() SELECT 1")
    run(c, "ALTER PROCEDURE p COMMENT 'new' SQL SECURITY INVOKER READS SQL DATA")
    row = run(c, "SELECT ROUTINE_COMMENT, SECURITY_TYPE, SQL_DATA_ACCESS FROM "
                 "information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'rdb'")
    assert row == (("new", "INVOKER", "READS SQL DATA"),)
    assert code(c, "ALTER FUNCTION p COMMENT 'x'") == 1305
    run(c, "DROP PROCEDURE p")
    assert run(c, "SHOW PROCEDURE STATUS WHERE Db = 'rdb'") == ()
    # DROP DATABASE drops its routines.
    run(c, "CREATE FUNCTION f() RETURNS INT RETURN 1")
    run(c, "DROP DATABASE rdb")
    run(c, "CREATE DATABASE rdb")
    run(c, "USE rdb")
    assert code(c, "SELECT f()") == 1305
    assert run(c, "SELECT COUNT(*) FROM information_schema.ROUTINES") == ((0,),)


def test_routines_survive_restart(kiln_factory):
    k = kiln_factory()
    c = setup(k)
    run(c, "CREATE PROCEDURE p(INOUT x INT) SET x = x + 1")
    run(c, "CREATE FUNCTION MixedCase(x INT) RETURNS INT RETURN x - 1")
    c.close()
    k.stop()
    k.start()
    c = connect(k, database="rdb")
    run(c, "SET @x = 1")
    sets(c, "CALL P(@x)")
    assert run(c, "SELECT @x, mixedcase(10)") == ((2, 9),)
    assert [r[1] for r in run(c, "SHOW FUNCTION STATUS")] == ["MixedCase"]


# -- metadata and mysqldump -----------------------------------------------------------------


def test_show_create_and_status_columns(kiln):
    c = setup(kiln)
    run(c, "CREATE DEFINER = CURRENT_USER PROCEDURE p(IN a INT, OUT b TEXT) "
           "NO SQL DETERMINISTIC SQL SECURITY INVOKER COMMENT 'it''s' BEGIN SET b = a; END")
    run(c, "CREATE FUNCTION f(a VARCHAR(5)) RETURNS VARCHAR(10) RETURN CONCAT(a, a)")
    with c.cursor() as cur:
        cur.execute("SHOW CREATE PROCEDURE p")
        assert [d[0] for d in cur.description] == [
            "Procedure", "sql_mode", "Create Procedure", "character_set_client",
            "collation_connection", "Database Collation"]
        row = cur.fetchone()
    assert row[2] == ("CREATE DEFINER=`root`@`localhost` PROCEDURE `p`(IN a INT, OUT b TEXT)\n"
                      "    NO SQL\n    DETERMINISTIC\n    SQL SECURITY INVOKER\n"
                      "    COMMENT 'it''s'\nBEGIN SET b = a; END")
    row = run(c, "SHOW CREATE FUNCTION rdb.f")[0]
    assert row[2] == ("CREATE DEFINER=`root`@`localhost` FUNCTION `f`(a VARCHAR(5)) "
                      "RETURNS varchar(10) CHARSET utf8mb4\nRETURN CONCAT(a, a)")
    with c.cursor() as cur:
        cur.execute("SHOW PROCEDURE STATUS LIKE 'p'")
        assert [d[0] for d in cur.description] == [
            "Db", "Name", "Type", "Definer", "Modified", "Created", "Security_type",
            "Comment", "character_set_client", "collation_connection", "Database Collation"]
        row = cur.fetchone()
    assert row[:4] == ("rdb", "p", "PROCEDURE", "root@localhost")
    assert row[6:8] == ("INVOKER", "it's")
    assert run(c, "SHOW FUNCTION STATUS WHERE Db = 'rdb'")[0][1] == "f"
    assert run(c, "SHOW FUNCTION STATUS LIKE 'zz%'") == ()
    rows = run(c, "SELECT ROUTINE_NAME, ROUTINE_TYPE, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, "
                  "DTD_IDENTIFIER, ROUTINE_DEFINITION, IS_DETERMINISTIC, SQL_DATA_ACCESS, "
                  "SECURITY_TYPE, EXTERNAL_LANGUAGE, PARAMETER_STYLE, DEFINER "
                  "FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'rdb' "
                  "ORDER BY ROUTINE_NAME")
    assert rows == (
        ("f", "FUNCTION", "varchar", 10, "varchar(10)", "RETURN CONCAT(a, a)", "NO",
         "CONTAINS SQL", "DEFINER", "SQL", "SQL", "root@localhost"),
        ("p", "PROCEDURE", "", None, None, "BEGIN SET b = a; END", "YES", "NO SQL",
         "INVOKER", "SQL", "SQL", "root@localhost"),
    )
    rows = run(c, "SELECT SPECIFIC_NAME, ORDINAL_POSITION, PARAMETER_MODE, PARAMETER_NAME, "
                  "DATA_TYPE, DTD_IDENTIFIER, ROUTINE_TYPE FROM information_schema.PARAMETERS "
                  "WHERE SPECIFIC_SCHEMA = 'rdb' ORDER BY SPECIFIC_NAME, ORDINAL_POSITION")
    assert rows == (
        ("f", 0, None, None, "varchar", "varchar(10)", "FUNCTION"),
        ("f", 1, "IN", "a", "varchar", "varchar(5)", "FUNCTION"),
        ("p", 1, "IN", "a", "int", "int", "PROCEDURE"),
        ("p", 2, "OUT", "b", "text", "text", "PROCEDURE"),
    )
    cols = [r[0] for r in run(c, "SELECT * FROM information_schema.ROUTINES LIMIT 0") or ()]
    with c.cursor() as cur:
        cur.execute("SELECT * FROM information_schema.ROUTINES")
        assert len(cur.description) == 31
        cur.execute("SELECT * FROM information_schema.PARAMETERS")
        assert len(cur.description) == 16
    assert cols == []


DUMP = shutil.which("mariadb-dump") or shutil.which("mysqldump")


@pytest.mark.skipif(DUMP is None or shutil.which("mariadb") is None,
                    reason="mariadb client tools not installed")
def test_dump_routines_restores_identically(kiln_factory):
    a = kiln_factory()
    c = setup(a, "dumpdb")
    run(c, "INSERT INTO t VALUES (1, 'one')")
    run(c, "CREATE PROCEDURE add_row(IN i INT, IN s VARCHAR(20), OUT total INT)\n"
           "    COMMENT 'adds; a row'\n"
           "BEGIN\n"
           "  DECLARE dup CONDITION FOR SQLSTATE '23000';\n"
           "  DECLARE EXIT HANDLER FOR dup SET total = -1;\n"
           "  INSERT INTO t VALUES (i, s);\n"
           "  SELECT COUNT(*) INTO total FROM t;\n"
           "END")
    run(c, "CREATE FUNCTION name_of(i INT) RETURNS VARCHAR(20) CHARSET utf8mb4\n"
           "    READS SQL DATA DETERMINISTIC\n"
           "RETURN (SELECT v FROM t WHERE id = i)")

    def dump(server):
        p = subprocess.run([DUMP, "-uroot", "--skip-dump-date", "--routines",
                            f"--socket={server.socket}", "--databases", "dumpdb"],
                           capture_output=True, timeout=60)
        assert p.returncode == 0, p.stderr.decode(errors="replace")
        return p.stdout

    first = dump(a)
    text = first.decode()
    assert "CREATE DEFINER=`root`@`localhost` PROCEDURE `add_row`" in text
    assert "CREATE DEFINER=`root`@`localhost` FUNCTION `name_of`(i INT) RETURNS varchar(20)" \
           in text
    b = kiln_factory()
    p = subprocess.run(["mariadb", "-uroot", f"--socket={b.socket}"], input=first,
                       capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    second = dump(b)
    assert first == second, "\n".join(
        f"- {x!r}\n+ {y!r}" for x, y in zip(first.splitlines(), second.splitlines()) if x != y
    )
    # Both restored routines work, called through the mariadb client.
    rc, out, errtext = b.mariadb("dumpdb", "-N", "-e",
                                 "CALL add_row(2, 'two', @n); SELECT @n; "
                                 "CALL add_row(2, 'again', @m); SELECT @m, name_of(2)",
                                 tcp=False)
    assert rc == 0, errtext
    assert out.split() == ["2", "-1", "two"]
