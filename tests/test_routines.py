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
    # A view's function calls resolve in the view's database, from anywhere.
    run(c, "CREATE VIEW vw AS SELECT id, twice(id) AS d FROM t WHERE id < 3")
    run(c, "CREATE DATABASE elsewhere")
    run(c, "USE elsewhere")
    assert run(c, "SELECT * FROM rdb.vw ORDER BY id") == ((1, 2), (2, 4))
    run(c, "USE rdb")
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
    assert err(c, "SELECT other.nope(1)") == (1305, "FUNCTION other.nope does not exist")
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


def test_routines_survive_restart_and_crash(kiln_factory):
    k = kiln_factory()
    c = setup(k)
    run(c, "CREATE PROCEDURE p(INOUT x INT) SET x = x + 1")
    run(c, "CREATE FUNCTION MixedCase(x INT) RETURNS INT RETURN x - 1")
    run(c, "CREATE FUNCTION gone() RETURNS INT RETURN 0")
    run(c, "DROP FUNCTION gone")
    run(c, "ALTER PROCEDURE p COMMENT 'altered'")
    c.close()
    assert k.stop() == 0, k.diagnostics()
    kiln_factory.servers.remove(k)
    k2 = kiln_factory(datadir=k.datadir)
    c = connect(k2, database="rdb")
    run(c, "SET @x = 1")
    sets(c, "CALL P(@x)")
    assert run(c, "SELECT @x, mixedcase(10)") == ((2, 9),)
    assert [r[1] for r in run(c, "SHOW FUNCTION STATUS")] == ["MixedCase"]
    assert run(c, "SHOW PROCEDURE STATUS")[0][7] == "altered"
    assert code(c, "SELECT gone()") == 1305
    # A crash right after CREATE returned: the routine is there.
    run(c, "CREATE PROCEDURE durable() INSERT INTO t VALUES (7, 'durable')")
    k2.kill()
    kiln_factory.servers.remove(k2)
    k3 = kiln_factory(datadir=k.datadir)
    c = connect(k3, database="rdb")
    sets(c, "CALL durable()")
    assert run(c, "SELECT v FROM t") == (("durable",),)


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


# -- compared with MariaDB 10.11 ----------------------------------------------------------

DIFF = [
    "CREATE DATABASE rdiff CHARACTER SET utf8mb4",
    "USE rdiff",
    "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20), n INT)",
    "INSERT INTO t VALUES (1, 'one', 10), (2, 'two', 20), (3, 'three', 30)",
    # IN / OUT / INOUT, result sets, a loop.
    "CREATE PROCEDURE p_sum(IN lim INT, OUT total INT, INOUT calls INT) BEGIN "
    "DECLARE i INT DEFAULT 0; SET total = 0; "
    "WHILE i < lim DO SET i = i + 1; SET total = total + i; END WHILE; "
    "SET calls = IFNULL(calls, 0) + 1; SELECT i, total; END",
    "SET @calls = NULL",
    "CALL p_sum(4, @tot, @calls)",
    "CALL p_sum(10, @tot, @calls)",
    "SELECT @tot, @calls",
    # Cursor with a NOT FOUND handler.
    "CREATE PROCEDURE p_cur(OUT s VARCHAR(200)) BEGIN "
    "DECLARE done INT DEFAULT 0; DECLARE a INT; DECLARE b VARCHAR(20); "
    "DECLARE c CURSOR FOR SELECT id, v FROM t ORDER BY id DESC; "
    "DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1; "
    "SET s = ''; OPEN c; "
    "rd: LOOP FETCH c INTO a, b; IF done THEN LEAVE rd; END IF; "
    "SET s = CONCAT(s, a, ':', b, ';'); END LOOP; CLOSE c; END",
    "CALL p_cur(@s)",
    "SELECT @s",
    # EXIT and CONTINUE handlers, by error number, SQLSTATE, condition name, class.
    "CREATE PROCEDURE p_ins(IN i INT, OUT r VARCHAR(40)) BEGIN "
    "DECLARE dup CONDITION FOR SQLSTATE '23000'; "
    "DECLARE EXIT HANDLER FOR dup SET r = 'duplicate'; "
    "DECLARE EXIT HANDLER FOR SQLEXCEPTION SET r = 'other'; "
    "INSERT INTO t VALUES (i, 'new', 0); SET r = 'inserted'; END",
    "CALL p_ins(1, @r)",
    "SELECT @r",
    "CALL p_ins(4, @r)",
    "SELECT @r",
    "CREATE PROCEDURE p_cont(OUT r VARCHAR(40)) BEGIN "
    "DECLARE CONTINUE HANDLER FOR 1062 SET r = CONCAT(IFNULL(r, ''), 'd'); "
    "DECLARE CONTINUE HANDLER FOR SQLSTATE '42S02' SET r = CONCAT(IFNULL(r, ''), 'm'); "
    "INSERT INTO t VALUES (1, 'x', 0); SET r = CONCAT(r, '1'); "
    "INSERT INTO missing VALUES (1); SET r = CONCAT(r, '2'); END",
    "CALL p_cont(@r)",
    "SELECT @r",
    # The most specific handler wins; an inner block's handler first.
    "CREATE PROCEDURE p_spec(OUT r VARCHAR(40)) BEGIN "
    "DECLARE CONTINUE HANDLER FOR SQLEXCEPTION SET r = 'generic'; "
    "DECLARE CONTINUE HANDLER FOR 1146 SET r = 'errno'; "
    "BEGIN DECLARE CONTINUE HANDLER FOR SQLSTATE '42S02' SET r = 'inner'; "
    "SELECT * FROM missing; END; END",
    "CALL p_spec(@r)",
    "SELECT @r",
    # SIGNAL and RESIGNAL.
    "CREATE PROCEDURE p_sig(IN k INT) BEGIN "
    "DECLARE custom CONDITION FOR SQLSTATE '45001'; "
    "IF k = 1 THEN SIGNAL custom SET MESSAGE_TEXT = 'custom one', MYSQL_ERRNO = 1701; END IF; "
    "IF k = 2 THEN SIGNAL SQLSTATE '45000'; END IF; END",
    "CALL p_sig(1)",
    "CALL p_sig(2)",
    "CALL p_sig(3)",
    "CREATE PROCEDURE p_resig() BEGIN "
    "DECLARE EXIT HANDLER FOR SQLEXCEPTION RESIGNAL SET MESSAGE_TEXT = 'wrapped'; "
    "INSERT INTO t VALUES (1, 'x', 0); END",
    "CALL p_resig()",
    "CREATE PROCEDURE p_resig2() BEGIN "
    "DECLARE EXIT HANDLER FOR SQLEXCEPTION RESIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = 1702; "
    "SELECT * FROM missing; END",
    "CALL p_resig2()",
    "CREATE PROCEDURE p_resig3() RESIGNAL",
    "CALL p_resig3()",
    # SELECT ... INTO of no row: a NOT FOUND warning a handler can take.
    "CREATE PROCEDURE p_nf(OUT r INT) BEGIN "
    "DECLARE CONTINUE HANDLER FOR NOT FOUND SET r = -1; "
    "SELECT n INTO r FROM t WHERE id = 999; END",
    "CALL p_nf(@r)",
    "SELECT @r",
    # FETCH past the end with no handler.
    "CREATE PROCEDURE p_fetch() BEGIN DECLARE a INT; "
    "DECLARE c CURSOR FOR SELECT id FROM t WHERE id = 1; "
    "OPEN c; FETCH c INTO a; FETCH c INTO a; END",
    "CALL p_fetch()",
    "CREATE PROCEDURE p_open2() BEGIN DECLARE c CURSOR FOR SELECT 1; OPEN c; OPEN c; END",
    "CALL p_open2()",
    "CREATE PROCEDURE p_close() BEGIN DECLARE c CURSOR FOR SELECT 1; CLOSE c; END",
    "CALL p_close()",
    "CREATE PROCEDURE p_nvars() BEGIN DECLARE a INT; DECLARE c CURSOR FOR SELECT 1, 2; "
    "OPEN c; FETCH c INTO a; END",
    "CALL p_nvars()",
    # Functions anywhere an expression is.
    "CREATE FUNCTION f_add(a INT, b INT) RETURNS INT DETERMINISTIC RETURN a + b",
    "CREATE FUNCTION f_name(i INT) RETURNS VARCHAR(30) READS SQL DATA BEGIN "
    "DECLARE s VARCHAR(20) DEFAULT NULL; SELECT v INTO s FROM t WHERE id = i; "
    "RETURN IFNULL(UPPER(s), 'none'); END",
    "SELECT f_add(1, 2), f_add(NULL, 1), f_name(2), f_name(99)",
    "SELECT id, f_name(id) FROM t WHERE f_add(id, 1) > 2 ORDER BY id",
    "SELECT id FROM t WHERE n = f_add(10, 10)",
    "INSERT INTO t VALUES (f_add(40, 2), f_name(3), f_add(1, 1))",
    "SELECT * FROM t WHERE id = 42",
    "UPDATE t SET n = f_add(n, 1) WHERE id = 42",
    "SELECT n FROM t WHERE id = 42",
    "SELECT COUNT(*), SUM(f_add(n, 0)) FROM t",
    # A function whose body calls a procedure with an OUT local variable.
    "CREATE PROCEDURE p_sq(IN a INT, OUT b INT) SET b = a * a",
    "CREATE FUNCTION f_via(a INT) RETURNS INT BEGIN DECLARE r INT; CALL p_sq(a, r); "
    "RETURN r; END",
    "SELECT f_via(7)",
    # A procedure calling another with local variables.
    "CREATE PROCEDURE p_outer(OUT r INT) BEGIN DECLARE x INT DEFAULT 3; DECLARE y INT; "
    "CALL p_sq(x, y); SET r = y + 1; END",
    "CALL p_outer(@r)",
    "SELECT @r",
    # Conversions (strict mode).
    "CREATE FUNCTION f_tiny(x TINYINT) RETURNS INT RETURN x",
    "SELECT f_tiny(127)",
    "SELECT f_tiny(128)",
    "CREATE FUNCTION f_short() RETURNS CHAR(2) RETURN 'abc'",
    "SELECT f_short()",
    "CREATE FUNCTION f_dec(x DECIMAL(4,1)) RETURNS DECIMAL(5,2) RETURN x / 3",
    "SELECT f_dec(10)",
    # Errors.
    "CREATE PROCEDURE p_sum() SELECT 1",
    "CREATE FUNCTION f_add(a INT) RETURNS INT RETURN a",
    "CALL nope()",
    "SELECT nope_f(1)",
    "CALL p_sq(1)",
    "SELECT f_add(1)",
    "CALL p_sq(1, 2)",
    "CREATE FUNCTION f_noret() RETURNS INT BEGIN END",
    "CREATE FUNCTION f_late(x INT) RETURNS INT BEGIN IF x > 0 THEN RETURN 1; END IF; END",
    "SELECT f_late(0)",
    "CREATE PROCEDURE p_ret() RETURN 1",
    "CREATE FUNCTION f_sel() RETURNS INT BEGIN SELECT 1; RETURN 1; END",
    "CREATE FUNCTION f_commit() RETURNS INT BEGIN COMMIT; RETURN 1; END",
    "CREATE FUNCTION f_rec(n INT) RETURNS INT BEGIN IF n = 0 THEN RETURN 0; END IF; "
    "RETURN f_rec(n - 1); END",
    "SELECT f_rec(3)",
    "CREATE PROCEDURE p_rec(IN n INT) BEGIN IF n > 0 THEN CALL p_rec(n - 1); END IF; END",
    "CALL p_rec(0)",
    "CALL p_rec(2)",
    "SET max_sp_recursion_depth = 5",
    "CALL p_rec(4)",
    "CALL p_rec(6)",
    "SET max_sp_recursion_depth = 0",
    "CREATE PROCEDURE p_dup(a INT, a INT) SELECT 1",
    "CREATE PROCEDURE p_undecl() OPEN nocur",
    "CREATE PROCEDURE p_nocond() SIGNAL nocond",
    "CREATE PROCEDURE p_order() BEGIN DECLARE c CURSOR FOR SELECT 1; DECLARE x INT; END",
    "CREATE PROCEDURE p_label() l: LOOP ITERATE m; END LOOP",
    "CREATE PROCEDURE p_use() USE rdiff",
    # A function may not write a table the statement that called it uses (1442).
    "CREATE TABLE wlog (x INT)",
    "CREATE FUNCTION f_w(x INT) RETURNS INT MODIFIES SQL DATA BEGIN "
    "INSERT INTO wlog VALUES (x); RETURN x; END",
    "CREATE FUNCTION f_self(x INT) RETURNS INT MODIFIES SQL DATA BEGIN "
    "UPDATE t SET n = n + 1 WHERE id = x; RETURN x; END",
    "CREATE FUNCTION f_nest(x INT) RETURNS INT MODIFIES SQL DATA BEGIN "
    "INSERT INTO wlog VALUES (f_w(x)); RETURN x; END",
    "SELECT f_w(id) FROM t ORDER BY id",
    "SELECT f_self(1)",
    "SELECT n FROM t WHERE id = 1",
    "UPDATE t SET n = f_self(id) WHERE id = 1",
    "INSERT INTO wlog SELECT f_w(id) FROM t",
    "SELECT f_self(id) FROM t",
    "SELECT f_nest(1)",
    "SELECT f_w(x) FROM wlog",
    "SELECT COUNT(*) FROM wlog",
    # Transactions in a procedure; each statement commits with autocommit.
    "CREATE TABLE tx (id INT PRIMARY KEY)",
    "CREATE PROCEDURE p_tx() BEGIN START TRANSACTION; INSERT INTO tx VALUES (1); ROLLBACK; "
    "INSERT INTO tx VALUES (2); START TRANSACTION; INSERT INTO tx VALUES (3); COMMIT; END",
    "CALL p_tx()",
    "SELECT * FROM tx ORDER BY id",
    "CREATE PROCEDURE p_half() BEGIN INSERT INTO tx VALUES (10); INSERT INTO tx VALUES (2); END",
    "CALL p_half()",
    "SELECT * FROM tx ORDER BY id",
    # DDL in a procedure.
    "CREATE PROCEDURE p_ddl() BEGIN CREATE TABLE made (x INT); INSERT INTO made VALUES (1); "
    "SELECT * FROM made; DROP TABLE made; END",
    "CALL p_ddl()",
    # Handler semantics, warnings, conversions and statements in bodies.
    'CREATE DATABASE rw CHARACTER SET utf8mb4',
    'USE rw',
    'CREATE TABLE t (id INT)',
    'CREATE PROCEDURE p_nf(OUT r INT) BEGIN DECLARE CONTINUE HANDLER FOR NOT FOUND SET r = -1; SELECT id INTO r FROM t WHERE id = 999; END',
    'CALL p_nf(@r)',
    'SHOW WARNINGS',
    'CREATE PROCEDURE p_nh(OUT r INT) BEGIN SELECT id INTO r FROM t WHERE id = 999; END',
    'CALL p_nh(@r)',
    'SHOW WARNINGS',
    "CREATE PROCEDURE p_outer() BEGIN DECLARE CONTINUE HANDLER FOR NOT FOUND SET @hit = 'outer'; SET @hit = 'none'; CALL p_nf(@r); END",
    'CALL p_outer()',
    'SELECT @hit',
    "CREATE PROCEDURE p_outer2() BEGIN DECLARE CONTINUE HANDLER FOR NOT FOUND SET @hit = 'outer2'; SET @hit = 'none'; CALL p_nh(@r); END",
    'CALL p_outer2()',
    'SELECT @hit',
    'CREATE PROCEDURE p_warn() BEGIN DECLARE x TINYINT; SET x = 1000; SELECT x; END',
    "SET sql_mode=''",
    "CREATE PROCEDURE p_warn2() BEGIN DECLARE x TINYINT; DECLARE CONTINUE HANDLER FOR SQLWARNING SET @w = 'caught'; SET @w = 'none'; SET x = 1000; SELECT x, @w; END",
    'CALL p_warn2()',
    'SHOW WARNINGS',
    'SET sql_mode=DEFAULT',
    'CALL p_warn()',
    'SELECT nope_fn()',
    "CREATE PROCEDURE p_exit_nested() BEGIN DECLARE EXIT HANDLER FOR SQLEXCEPTION SET @e = 'outer'; BEGIN DECLARE EXIT HANDLER FOR 1146 BEGIN SET @e = 'inner'; SELECT * FROM nosuch2; END; SELECT * FROM nosuch; END; SET @e = CONCAT(@e, '-after'); END",
    'CALL p_exit_nested()',
    'SELECT @e',
    'CREATE DATABASE rw2 CHARACTER SET utf8mb4',
    'USE rw2',
    'CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))',
    "INSERT INTO t VALUES (1,'a'),(2,'b'),(3,'c')",
    "CREATE PROCEDURE s_warn(OUT r VARCHAR(20)) BEGIN DECLARE CONTINUE HANDLER FOR SQLWARNING SET r = 'w'; SET r = 'none'; SIGNAL SQLSTATE '01234' SET MESSAGE_TEXT = 'careful'; SET r = CONCAT(r, '+'); END",
    'CALL s_warn(@r)',
    'SELECT @r',
    "CREATE PROCEDURE s_warn_unh() BEGIN SIGNAL SQLSTATE '01234' SET MESSAGE_TEXT = 'careful'; SELECT 'after'; END",
    'CALL s_warn_unh()',
    'SHOW WARNINGS',
    "CREATE PROCEDURE s_nf_unh() BEGIN SIGNAL SQLSTATE '02000'; SELECT 'after'; END",
    'CALL s_nf_unh()',
    "CREATE PROCEDURE if_err(OUT r VARCHAR(20)) BEGIN DECLARE CONTINUE HANDLER FOR SQLEXCEPTION SET r = CONCAT(r, 'h'); SET r = 's'; IF (SELECT v FROM nosuch) = 1 THEN SET r = CONCAT(r, 'then'); ELSE SET r = CONCAT(r, 'else'); END IF; SET r = CONCAT(r, 'e'); END",
    'CALL if_err(@r)',
    'SELECT @r',
    "CREATE PROCEDURE loop_exit(OUT r INT) BEGIN SET r = 0; b: BEGIN DECLARE EXIT HANDLER FOR SQLEXCEPTION SET r = r + 100; WHILE r < 10 DO SET r = r + 1; IF r = 3 THEN INSERT INTO t VALUES (1, 'dup'); END IF; END WHILE; END b; SET r = r + 1000; END",
    'CALL loop_exit(@r)',
    'SELECT @r',
    "CREATE FUNCTION f_h(i INT) RETURNS INT BEGIN DECLARE EXIT HANDLER FOR SQLEXCEPTION RETURN -1; INSERT INTO t VALUES (i, 'f'); RETURN i; END",
    'SELECT f_h(1), f_h(50)',
    'SELECT * FROM t WHERE id = 50',
    "CREATE PROCEDURE cur2(OUT s VARCHAR(100)) BEGIN DECLARE id INT DEFAULT 2; DECLARE done INT DEFAULT 0; DECLARE x VARCHAR(10); DECLARE c CURSOR FOR SELECT v FROM t WHERE t.id >= id ORDER BY t.id; DECLARE CONTINUE HANDLER FOR SQLSTATE '02000' SET done = 1; SET s = ''; OPEN c; FETCH c INTO x; SET s = CONCAT(s, x); CLOSE c; SET id = 3; OPEN c; FETCH c INTO x; SET s = CONCAT(s, x); FETCH c INTO x; FETCH c INTO x; SET s = CONCAT(s, done); CLOSE c; END",
    'CALL cur2(@s)',
    'SELECT @s',
    'CREATE PROCEDURE inparam(IN a INT, INOUT b INT) BEGIN SET a = a + 100; SET b = a + b; END',
    'SET @a = 1, @b = 2',
    'CALL inparam(@a, @b)',
    'SELECT @a, @b',
    'CALL inparam(1 + 2, @b)',
    'SELECT @b',
    'CREATE FUNCTION f_date(s VARCHAR(20)) RETURNS DATE RETURN s',
    "SELECT f_date('2024-02-29'), f_date('2024-02-30')",
    "CREATE FUNCTION f_dt() RETURNS DATETIME RETURN '2024-01-02 03:04:05'",
    'CREATE FUNCTION f_text(a TEXT) RETURNS TEXT RETURN REPEAT(a, 3)',
    "SELECT f_text('ab'), LENGTH(f_text(NULL))",
    "CREATE FUNCTION f_enum(a VARCHAR(5)) RETURNS ENUM('x','y') RETURN a",
    "SELECT f_enum('y'), f_enum('z')",
    'CREATE FUNCTION f_bool() RETURNS BOOLEAN RETURN 5',
    'SELECT f_bool()',
    'CREATE FUNCTION f_uns(x BIGINT UNSIGNED) RETURNS BIGINT UNSIGNED RETURN x',
    'SELECT f_uns(-1)',
    'SELECT f_uns(18446744073709551615)',
    "CREATE PROCEDURE nested_resig() BEGIN DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN DECLARE EXIT HANDLER FOR SQLEXCEPTION RESIGNAL SET MESSAGE_TEXT = 'inner resignal'; RESIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'first'; END; INSERT INTO t VALUES (1, 'x'); END",
    'CALL nested_resig()',
    "CREATE PROCEDURE case_nf(IN x INT) BEGIN CASE x WHEN 1 THEN SELECT 'one'; END CASE; END",
    'CALL case_nf(1)',
    'CALL case_nf(2)',
    "CREATE PROCEDURE case_nf_h(IN x INT, OUT r VARCHAR(10)) BEGIN DECLARE CONTINUE HANDLER FOR 1339 SET r = 'nocase'; CASE x WHEN 1 THEN SET r = 'one'; END CASE; END",
    'CALL case_nf_h(2, @r)',
    'SELECT @r',
    "CREATE PROCEDURE ro(OUT c INT) BEGIN INSERT INTO t VALUES (60, 'r'), (61, 's'); SET c = ROW_COUNT(); END",
    'CALL ro(@c)',
    'SELECT @c',
    'CREATE PROCEDURE lid(OUT c INT) BEGIN CREATE TABLE ai (id INT AUTO_INCREMENT PRIMARY KEY, x INT); INSERT INTO ai (x) VALUES (1); SET c = LAST_INSERT_ID(); END',
    'CALL lid(@c)',
    'SELECT @c, LAST_INSERT_ID()',
    'CREATE FUNCTION f_lid() RETURNS INT BEGIN INSERT INTO ai (x) VALUES (2); RETURN LAST_INSERT_ID(); END',
    'SELECT f_lid(), LAST_INSERT_ID()',
    'CREATE PROCEDURE showp() SHOW TABLES',
    'CALL showp()',
    "CREATE PROCEDURE dynsql() BEGIN SET @q = 'SELECT 40 + 2'; PREPARE s FROM @q; EXECUTE s; DEALLOCATE PREPARE s; END",
    'CALL dynsql()',
    "CREATE PROCEDURE multi_sets() BEGIN SELECT 1 AS a; SELECT 'x' AS b, 2 AS c; SELECT * FROM t WHERE id < 0; END",
    'CALL multi_sets()',
    "CREATE PROCEDURE rb() BEGIN DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; SET @rb = 'rolled'; END; START TRANSACTION; INSERT INTO t VALUES (70, 'x'); INSERT INTO t VALUES (70, 'y'); COMMIT; END",
    'CALL rb()',
    'SELECT @rb, (SELECT COUNT(*) FROM t WHERE id = 70)',
    "USE rdiff",
    # LIMIT with a local variable.
    "CREATE PROCEDURE p_lim(IN n INT) BEGIN SELECT id FROM t ORDER BY id LIMIT n; "
    "SELECT id FROM t ORDER BY id LIMIT 1 OFFSET n; END",
    "CALL p_lim(2)",
    # ALTER / DROP and metadata.
    "ALTER PROCEDURE p_sum COMMENT 'sums' SQL SECURITY INVOKER",
    "SELECT ROUTINE_NAME, ROUTINE_TYPE, IS_DETERMINISTIC, SQL_DATA_ACCESS, SECURITY_TYPE, "
    "ROUTINE_COMMENT FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'rdiff' "
    "AND ROUTINE_NAME IN ('p_sum', 'f_add', 'f_name') ORDER BY ROUTINE_NAME",
    "SELECT SPECIFIC_NAME, ORDINAL_POSITION, PARAMETER_MODE, PARAMETER_NAME, DATA_TYPE, "
    "CHARACTER_MAXIMUM_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE FROM "
    "information_schema.PARAMETERS WHERE SPECIFIC_SCHEMA = 'rdiff' "
    "AND SPECIFIC_NAME IN ('p_sum', 'f_name', 'f_dec') ORDER BY SPECIFIC_NAME, ORDINAL_POSITION",
    "SHOW PROCEDURE STATUS LIKE 'p_su%'",
    "SHOW FUNCTION STATUS WHERE Name = 'f_add'",
    "DROP PROCEDURE p_sum",
    "DROP PROCEDURE p_sum",
    "DROP FUNCTION IF EXISTS f_gone",
    "CALL p_sum(1, @a, @b)",
]


def outcome(c, sql):
    try:
        got, affected = sets(c, sql)
        return ("ok", tuple(got))
    except pymysql.err.MySQLError as e:
        return ("error", e.args[0])


def comparable(sql, o):
    """Drops what depends on the server rather than on the semantics: SHOW ... STATUS's
    dates, definer and character set columns."""
    if o[0] == "ok" and sql.startswith("SHOW") and o[1]:
        return ("ok", tuple(tuple(r[:3] + r[6:8] for r in s) for s in o[1]))
    return o


def test_routines_like_mariadb(kiln):
    m = start_private_mariadb(prefix="kiln-sp-")
    try:
        k = connect(kiln)
        mc = m.connect(client_flag=CLIENT.MULTI_RESULTS | CLIENT.MULTI_STATEMENTS)
        diffs = []
        for sql in DIFF:
            a, b = comparable(sql, outcome(k, sql)), comparable(sql, outcome(mc, sql))
            if a != b:
                diffs.append(f"{sql}\n  kiln:    {a}\n  mariadb: {b}")
        assert not diffs, "\n".join(diffs)
    finally:
        m.cleanup()


# -- protocol ---------------------------------------------------------------------------------


def query_raw(sock, sql):
    """Sends a COM_QUERY; returns the packets of its answer up to the last one (an OK /
    EOF without SERVER_MORE_RESULTS_EXISTS, or an ERR): [(kind, payload)]."""
    rawproto.write_packet(sock, 0, bytes([rawproto.COM_QUERY]) + sql.encode())
    out = []
    while True:
        _, p = rawproto.read_packet(sock)
        if p[0] == 0xFF:
            out.append(("err", rawproto.parse_err(p)))
            return out
        if p[0] == 0x00:
            status = struct.unpack_from("<H", p, 1 + lenenc_len(p, 1) + lenenc_len(p, 1 + lenenc_len(p, 1)))[0]
            out.append(("ok", status))
            if not status & 0x0008:
                return out
            continue
        # A result set: column count, definitions, EOF, rows, EOF.
        eofs = 0
        while eofs < 2:
            _, q = rawproto.read_packet(sock)
            if q[0] == 0xFE and len(q) < 9:
                eofs += 1
                if eofs == 2:
                    status = struct.unpack_from("<H", q, 3)[0]
                    out.append(("rows", status))
                    if not status & 0x0008:
                        return out


def lenenc_len(p, at):
    b = p[at]
    return 1 if b < 0xFB else {0xFC: 3, 0xFD: 4, 0xFE: 9}[b]


def test_multi_results_protocol_and_1312(kiln):
    c = setup(kiln)
    run(c, "CREATE PROCEDURE two() BEGIN SELECT 1; SELECT 2; END")
    run(c, "CREATE PROCEDURE quiet(OUT x INT) SET x = 5")
    caps = rawproto.LOGIN_CAPS | 0x20000  # CLIENT_MULTI_RESULTS
    s = rawproto.login_root(kiln.port, caps=caps)
    got = query_raw(s, "CALL rdb.two()")
    # Each result set ends flagged "more results"; the CALL's OK ends the answer.
    assert [k for k, _ in got] == ["rows", "rows", "ok"]
    assert all(st & 0x0008 for _, st in got[:2]) and not got[2][1] & 0x0008
    s.close()
    s = rawproto.login_root(kiln.port)  # no CLIENT_MULTI_RESULTS
    assert query_raw(s, "CALL rdb.two()") == [
        ("err", (1312, "0A000", "PROCEDURE rdb.two can't return a result set in the given context"))]
    # A procedure without result sets needs no CLIENT_MULTI_RESULTS.
    assert [k for k, _ in query_raw(s, "CALL rdb.quiet(@x)")] == ["ok"]
    s.close()
    # An error after a result set: the rows come first, then the ERR.
    run(c, "CREATE PROCEDURE half() BEGIN SELECT 1; SELECT * FROM missing; END")
    s = rawproto.login_root(kiln.port, caps=caps)
    got = query_raw(s, "CALL rdb.half()")
    assert got[0][0] == "rows" and got[1][0] == "err" and got[1][1][0] == 1146
    s.close()


def test_prepared_call(kiln):
    mysql_connector = pytest.importorskip("mysql.connector")
    c = setup(kiln)
    run(c, "CREATE PROCEDURE ins(IN a INT, IN b VARCHAR(20)) INSERT INTO t VALUES (a, b)")
    run(c, "CREATE PROCEDURE dbl(IN a INT) SELECT a * 2 AS d")
    run(c, "CREATE PROCEDURE out1(OUT a INT) SET a = 1")
    mc = mysql_connector.connect(host="127.0.0.1", port=kiln.port, user="root",
                                 database="rdb", autocommit=True)
    try:
        cur = mc.cursor(prepared=True)
        cur.execute("CALL ins(?, ?)", (5, "five"))
        cur.execute("CALL dbl(?)", (21,))
        assert cur.fetchall() == [(42,)]
        cur.nextset()  # the CALL's own OK
        # OUT parameters of a prepared CALL are not sent back (a documented gap):
        # `?` is not a variable.
        with pytest.raises(mysql_connector.Error) as e:
            cur.execute("CALL out1(?)", (1,))
        assert e.value.errno == 1414
    finally:
        mc.close()
    assert run(c, "SELECT v FROM t WHERE id = 5") == (("five",),)
    # PREPARE / EXECUTE in SQL, with OUT through a user variable.
    run(c, "PREPARE s FROM 'CALL out1(@o)'")
    run(c, "EXECUTE s")
    assert run(c, "SELECT @o") == ((1,),)


# -- privileges -----------------------------------------------------------------------------


def test_privileges_and_sql_security(kiln):
    c = setup(kiln)
    run(c, "CREATE TABLE secret (x INT)")
    run(c, "INSERT INTO secret VALUES (42)")
    run(c, "CREATE PROCEDURE peek() SELECT x FROM secret")
    run(c, "CREATE PROCEDURE peek_inv() SQL SECURITY INVOKER SELECT x FROM secret")
    run(c, "CREATE FUNCTION who() RETURNS VARCHAR(80) RETURN CURRENT_USER()")
    run(c, "CREATE FUNCTION who_inv() RETURNS VARCHAR(80) SQL SECURITY INVOKER "
           "RETURN CURRENT_USER()")
    run(c, "CREATE USER maker@'%', caller@'%'")
    run(c, "GRANT SELECT ON rdb.t TO maker@'%'")
    m = connect(kiln, user="maker", database="rdb")
    assert err(m, "CREATE PROCEDURE mine() SELECT 1") == (
        1044, "Access denied for user 'maker'@'%' to database 'rdb'")
    run(c, "GRANT CREATE ROUTINE ON rdb.* TO maker@'%'")
    run(m, "CREATE PROCEDURE mine() SELECT CURRENT_USER()")
    # The creator may run, alter and drop its routine (automatic_sp_privileges).
    assert sets(m, "CALL mine()")[0] == [(("maker@%",),)]
    run(m, "ALTER PROCEDURE mine COMMENT 'mine'")
    # ... others need EXECUTE / ALTER ROUTINE.
    k = connect(kiln, user="caller")
    assert err(k, "CALL rdb.mine()") == (
        1370, "execute command denied to user 'caller'@'localhost' for routine 'rdb.mine'")
    assert err(k, "SELECT rdb.who()") == (
        1370, "execute command denied to user 'caller'@'localhost' for routine 'rdb.who'")
    assert code(m, "CALL peek()") == 1370
    assert code(m, "DROP PROCEDURE peek") == 1370
    run(c, "GRANT EXECUTE ON rdb.* TO caller@'%'")
    # SQL SECURITY DEFINER runs as the definer; INVOKER as the caller.
    assert sets(k, "CALL rdb.peek()")[0] == [((42,),)]
    assert code(k, "CALL rdb.peek_inv()") == 1142
    assert run(k, "SELECT rdb.who(), rdb.who_inv()") == (("root@localhost", "caller@%"),)
    # Who sees what: SHOW CREATE's text only for the definer (NULL otherwise).
    assert run(k, "SHOW CREATE PROCEDURE rdb.peek")[0][2] is None
    assert run(m, "SHOW CREATE PROCEDURE mine")[0][2].startswith("CREATE DEFINER=`maker`@`%`")
    names = [r[3] for r in run(k, "SELECT * FROM information_schema.ROUTINES "
                                  "ORDER BY ROUTINE_NAME")]
    assert names == ["mine", "peek", "peek_inv", "who", "who_inv"]
    assert run(m, "SHOW CREATE FUNCTION rdb.who")[0][2] is None
    # No privilege at all on the routine: it does not exist for the account.
    run(c, "CREATE USER nobody@'%'")
    assert err(connect(kiln, user="nobody"), "SHOW CREATE PROCEDURE rdb.peek") == (
        1305, "PROCEDURE peek does not exist")
    assert run(connect(kiln, user="nobody"), "SHOW PROCEDURE STATUS") == ()
    run(m, "DROP PROCEDURE mine")
    # DEFINER naming another account needs SUPER.
    assert code(m, "CREATE DEFINER = root@localhost PROCEDURE x() SELECT 1") == 1227
    # A definer that no longer exists: 1449.
    run(c, "CREATE DEFINER = maker@'%' PROCEDURE orphan() SELECT 1")
    run(c, "DROP USER maker@'%'")
    assert code(c, "CALL orphan()") == 1449
    # With automatic_sp_privileges OFF the creator gets nothing.
    run(c, "SET GLOBAL automatic_sp_privileges = OFF")
    run(c, "CREATE USER mk2@'%'")
    run(c, "GRANT CREATE ROUTINE ON rdb.* TO mk2@'%'")
    m2 = connect(kiln, user="mk2", database="rdb")
    run(m2, "CREATE PROCEDURE nogrant() SELECT 1")
    assert code(m2, "CALL nogrant()") == 1370
    run(c, "SET GLOBAL automatic_sp_privileges = ON")


def test_kill_query_stops_a_running_procedure(kiln):
    import threading

    c = setup(kiln)
    run(c, "CREATE PROCEDURE spin() BEGIN DECLARE i INT DEFAULT 0; "
           "WHILE i < 1000000 DO DO SLEEP(0.01); SET i = i + 1; END WHILE; END")
    victim = connect(kiln, database="rdb")
    vid = run(victim, "SELECT CONNECTION_ID()")[0][0]
    result = {}

    def call():
        try:
            sets(victim, "CALL spin()")
            result["r"] = "finished"
        except pymysql.err.MySQLError as e:
            result["r"] = e.args[0]

    t = threading.Thread(target=call)
    t.start()
    while not any(r[0] == vid and (r[7] or "").startswith("CALL spin")
                  for r in run(c, "SHOW FULL PROCESSLIST")):
        assert t.is_alive()
    run(c, f"KILL QUERY {vid}")
    t.join(60)
    assert not t.is_alive()
    assert result["r"] == 1317
    # The connection goes on.
    assert run(victim, "SELECT 1") == ((1,),)


def test_routines_and_transactions(kiln):
    c = setup(kiln)
    run(c, "CREATE TABLE log (x INT)")
    run(c, "CREATE PROCEDURE ins(IN i INT) INSERT INTO t VALUES (i, 'p')")
    run(c, "CREATE FUNCTION logged(x INT) RETURNS INT MODIFIES SQL DATA BEGIN "
           "INSERT INTO log VALUES (x); RETURN x; END")
    # Inside an explicit transaction a procedure's work is the transaction's.
    run(c, "BEGIN")
    sets(c, "CALL ins(1)")
    run(c, "ROLLBACK")
    assert run(c, "SELECT COUNT(*) FROM t") == ((0,),)
    run(c, "SET autocommit = 0")
    sets(c, "CALL ins(2)")
    run(c, "ROLLBACK")
    run(c, "SET autocommit = 1")
    assert run(c, "SELECT COUNT(*) FROM t") == ((0,),)
    # A function's writes belong to the statement that called it: a failing
    # statement undoes them.
    run(c, "INSERT INTO t VALUES (5, 'x')")
    assert code(c, "INSERT INTO t VALUES (logged(6), 'a'), (5, 'dup')") == 1062
    assert run(c, "SELECT COUNT(*) FROM log") == ((0,),)
    assert run(c, "SELECT id FROM t ORDER BY id") == ((5,),)
    run(c, "INSERT INTO t VALUES (logged(7), 'b')")
    assert run(c, "SELECT x FROM log") == ((7,),)
