"""SQL-level prepared statements: PREPARE / EXECUTE / {DEALLOCATE | DROP} PREPARE
(crates/kiln-sql/src/prepared_sql.rs), with MySQL 8.0's rules and error texts."""

import pymysql
import pytest


def run(c, sql, args=None):
    with c.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall()


def err(c, sql):
    with pytest.raises(pymysql.MySQLError) as ei:
        run(c, sql)
    return ei.value.args[0], ei.value.args[1]


def com(c, name):
    return int(run(c, f"SHOW SESSION STATUS LIKE 'Com_{name}'")[0][1])


@pytest.fixture
def c(kiln):
    c = kiln.connect()
    run(c, "CREATE DATABASE ps")
    run(c, "USE ps")
    run(c, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))")
    run(c, "INSERT INTO t VALUES (1, 'one'), (2, 'two')")
    yield c
    c.close()


def test_prepare_execute_deallocate(c):
    with c.cursor() as cur:
        cur.execute("PREPARE s1 FROM 'SELECT v FROM t WHERE id > ? ORDER BY id'")
        # (PyMySQL keeps the info's length byte when session tracking is on.)
        assert cur._result.message.endswith(b"Statement prepared")
    run(c, "SET @a = 0")
    assert run(c, "EXECUTE s1 USING @a") == (("one",), ("two",))
    run(c, "SET @a = 1")
    assert run(c, "EXECUTE S1 USING @a") == (("two",),)  # names are case-insensitive
    # From a user variable, with several parameters.
    run(c, "SET @q = 'INSERT INTO t VALUES (?, ?)', @i = 3, @v = 'three'")
    run(c, "PREPARE ins FROM @q")
    with c.cursor() as cur:
        assert cur.execute("EXECUTE ins USING @i, @v") == 1
    assert run(c, "SELECT v FROM t WHERE id = 3") == (("three",),)
    run(c, "DEALLOCATE PREPARE s1")
    assert err(c, "EXECUTE s1 USING @a") == (
        1243,
        "Unknown prepared statement handler (s1) given to EXECUTE",
    )
    run(c, "DROP PREPARE ins")
    assert err(c, "DEALLOCATE PREPARE ins") == (
        1243,
        "Unknown prepared statement handler (ins) given to DEALLOCATE PREPARE",
    )


def test_execute_argument_count_and_sources(c):
    run(c, "PREPARE s FROM 'SELECT ? + ?'")
    run(c, "SET @x = 2")
    assert err(c, "EXECUTE s USING @x") == (1210, "Incorrect arguments to EXECUTE")
    assert err(c, "EXECUTE s") == (1210, "Incorrect arguments to EXECUTE")
    assert run(c, "EXECUTE s USING @x, @x") == ((4,),)
    # An unset variable is NULL.
    assert run(c, "EXECUTE s USING @x, @never_set") == ((None,),)
    # USING takes user variables only.
    assert err(c, "EXECUTE s USING 1, 2")[0] == 1064


def test_failed_prepare_drops_the_old_statement(c):
    run(c, "PREPARE s FROM 'SELECT 1'")
    assert run(c, "EXECUTE s") == ((1,),)
    assert err(c, "PREPARE s FROM 'SELEC 1'")[0] == 1064
    assert err(c, "EXECUTE s")[0] == 1243
    # Tables are checked at PREPARE (columns of the select list only at EXECUTE: a
    # gap, docs/sql.md).
    assert err(c, "PREPARE s FROM 'SELECT * FROM nope'")[0] == 1146
    # A NULL variable prepares the text NULL: a syntax error.
    assert err(c, "PREPARE s FROM @unset_variable")[0] == 1064


def test_not_preparable(c):
    for sql in ["PREPARE a FROM 'SELECT 1'", "EXECUTE a", "DEALLOCATE PREPARE a"]:
        text = sql.replace("'", "''")
        assert err(c, f"PREPARE p FROM '{text}'")[0] == 1295, sql


def test_counters_and_privileges(kiln, c):
    p, e, d = com(c, "prepare_sql"), com(c, "execute_sql"), com(c, "dealloc_sql")
    run(c, "PREPARE s FROM 'SELECT v FROM t WHERE id = ?'")
    run(c, "SET @k = 1")
    run(c, "EXECUTE s USING @k")
    run(c, "DEALLOCATE PREPARE s")
    assert (com(c, "prepare_sql"), com(c, "execute_sql"), com(c, "dealloc_sql")) == (
        p + 1,
        e + 1,
        d + 1,
    )
    # The prepared statement's privileges are checked at each EXECUTE.
    run(c, "CREATE USER 'psu'@'%' IDENTIFIED BY 'pw'")
    run(c, "GRANT SELECT ON ps.t TO 'psu'@'%'")
    u = kiln.connect(user="psu", password="pw", database="ps")
    run(u, "PREPARE s FROM 'SELECT v FROM t WHERE id = ?'")
    run(u, "SET @k = 2")
    assert run(u, "EXECUTE s USING @k") == (("two",),)
    assert run(u, "EXECUTE s USING @k") == (("two",),)
    run(c, "REVOKE SELECT ON ps.t FROM 'psu'@'%'")
    assert err(u, "EXECUTE s USING @k")[0] == 1142
    # Statements are per session.
    assert err(c, "EXECUTE s USING @k")[0] == 1243
    u.close()


def test_prepared_ddl_commits_and_runs(c):
    run(c, "PREPARE s FROM 'CREATE TABLE t2 (a INT PRIMARY KEY)'")
    run(c, "BEGIN")
    run(c, "INSERT INTO t VALUES (9, 'nine')")
    run(c, "EXECUTE s")  # implicit commit, as the DDL itself
    run(c, "ROLLBACK")
    assert run(c, "SELECT v FROM t WHERE id = 9") == (("nine",),)
    assert run(c, "SHOW TABLES LIKE 't2'") == (("t2",),)


def test_prepare_checks_column_names(c):
    # MySQL resolves every name at PREPARE: an unknown column is 1054 then, not at
    # the first EXECUTE, in the select list and in the WHERE.
    assert err(c, "PREPARE s FROM 'SELECT nosuch FROM t'") == (
        1054,
        "Unknown column 'nosuch' in 'field list'",
    )
    assert err(c, "PREPARE s FROM 'SELECT id, v + t.nope FROM t WHERE id = ?'") == (
        1054,
        "Unknown column 't.nope' in 'field list'",
    )
    assert err(c, "PREPARE s FROM 'SELECT v FROM t WHERE missing = ?'") == (
        1054,
        "Unknown column 'missing' in 'where clause'",
    )
    # A select-list alias is not visible in the WHERE.
    assert err(c, "PREPARE s FROM 'SELECT v AS w FROM t WHERE w = ?'") == (
        1054,
        "Unknown column 'w' in 'where clause'",
    )
    # Valid names, parameters, aggregates, subqueries and joins still prepare.
    for sql in [
        "SELECT v, id + ? FROM t WHERE id > ?",
        "SELECT COUNT(*), MAX(v) FROM t WHERE v LIKE ?",
        "SELECT (SELECT MAX(id) FROM t t2 WHERE t2.id < t.id) FROM t",
        "SELECT a.v FROM t a JOIN t b ON a.id = b.id WHERE b.v = ?",
        "SELECT v FROM t WHERE EXISTS (SELECT 1 FROM t t3 WHERE t3.id = t.id)",
    ]:
        run(c, "PREPARE ok FROM %s", (sql,))
    run(c, "SET @x = 1")
    assert run(c, "EXECUTE ok") == (("one",), ("two",))
