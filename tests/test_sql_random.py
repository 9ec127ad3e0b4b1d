"""Random SQL against a real kiln: statements assembled from fragments of every
feature (types, indexes, joins, subqueries, grouping, DML, DDL, transactions) must
each succeed or fail with a MySQL error — never drop the connection (a panic closes
it) or hang. Seeded, so a failure reproduces."""

import os
import random

import pymysql
import pytest

# KILN_RANDOM_SQL_SEED / _STATEMENTS explore further (a failure names its statement).
SEED = int(os.environ.get("KILN_RANDOM_SQL_SEED", "20261123"))
STATEMENTS = int(os.environ.get("KILN_RANDOM_SQL_STATEMENTS", "1500"))

COLS = ["id", "a", "b", "c", "d", "e"]
VALUES = ["NULL", "0", "1", "-1", "2.5", "'x'", "'X '", "''", "'é'", "18446744073709551615",
          "-9223372036854775808", "1e308", "'2024-02-29'", "'12:30:00'", "x'00ff'", "b'101'",
          "(SELECT MAX(a) FROM t1)", "@v", "NOW()", "'{\"k\": [1, 2]}'"]
EXPRS = ["{c}", "{c} + {v}", "{c} * {c}", "{c} / {v}", "{c} DIV {v}", "{c} % {v}",
         "CONCAT({c}, {v})", "COALESCE({c}, {v})", "CASE WHEN {c} > {v} THEN {c} ELSE {v} END",
         "IF({c} IS NULL, {v}, {c})", "NULLIF({c}, {v})", "-{c}", "CAST({c} AS SIGNED)",
         "CAST({c} AS DECIMAL(10,2))", "CAST({c} AS CHAR(3))", "LENGTH({c})", "UPPER({c})",
         "SUBSTRING({c}, 2)", "ROUND({c}, 1)", "ABS({c})", "{c} LIKE '%1%'", "{c} IN ({v}, {v})",
         "{c} BETWEEN {v} AND {v}", "({c}, {c}) = ({v}, {v})", "EXISTS (SELECT 1 FROM t2 WHERE t2.a = {c})",
         "{c} IN (SELECT b FROM t2)", "(SELECT COUNT(*) FROM t2 WHERE t2.b < {c})", "DATE_ADD({v}, INTERVAL 1 DAY)",
         "JSON_EXTRACT({v}, '$.k[1]')", "{c} = {v} COLLATE utf8mb4_bin"]
TYPES = ["INT", "BIGINT UNSIGNED", "DECIMAL(8,3)", "DOUBLE", "VARCHAR(10)", "CHAR(3)", "TEXT",
         "DATE", "DATETIME(2)", "TIME", "ENUM('x','y')", "SET('x','y')", "JSON", "BLOB", "BIT(8)", "YEAR"]


def expr(r, depth=0):
    e = r.choice(EXPRS)
    c = r.choice(COLS)
    v = r.choice(VALUES) if depth > 1 or r.random() < 0.7 else expr(r, depth + 1)
    return e.format(c=c, v=v)


def statement(r):
    k = r.randrange(20)
    t = r.choice(["t1", "t2"])
    if k < 6:
        parts = [f"SELECT {expr(r)}, {expr(r)} FROM {t}"]
        if r.random() < 0.5:
            parts.append(f"WHERE {expr(r)}")
        if r.random() < 0.3:
            parts.append(f"GROUP BY {r.choice(COLS)}")
        if r.random() < 0.3:
            parts.append(f"ORDER BY {r.randrange(1, 3)} {r.choice(['ASC', 'DESC'])}")
        if r.random() < 0.3:
            parts.append(f"LIMIT {r.randrange(5)}")
        return " ".join(parts)
    if k < 8:
        return (f"SELECT t1.a, COUNT(*), SUM(t2.b), GROUP_CONCAT(DISTINCT t1.c) FROM t1 "
                f"{r.choice(['JOIN', 'LEFT JOIN', 'RIGHT JOIN'])} t2 ON t1.a = t2.{r.choice(COLS)} "
                f"WHERE {expr(r)} GROUP BY t1.a HAVING COUNT(*) > {r.randrange(3)}")
    if k < 11:
        vals = ", ".join(
            "(" + ", ".join(r.choice(VALUES) for _ in COLS) + ")" for _ in range(r.randrange(1, 4))
        )
        verb = r.choice(["INSERT", "INSERT IGNORE", "REPLACE"])
        tail = " ON DUPLICATE KEY UPDATE a = a + 1" if verb == "INSERT" and r.random() < 0.4 else ""
        return f"{verb} INTO {t} VALUES {vals}{tail}"
    if k < 13:
        return f"UPDATE {t} SET {r.choice(COLS[1:])} = {expr(r)} WHERE {expr(r)} ORDER BY id LIMIT 3"
    if k < 14:
        return f"DELETE FROM {t} WHERE {expr(r)} LIMIT 2"
    if k < 16:
        return r.choice(["BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT s", "ROLLBACK TO s",
                         "SET autocommit = 0", "SET autocommit = 1", "SET @v = 7",
                         "SET sql_mode = ''", "SET sql_mode = DEFAULT",
                         "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
                         "SELECT * FROM t1 WHERE id = 1 FOR UPDATE NOWAIT"])
    if k < 18:
        col = r.choice(COLS[1:])
        return r.choice([
            f"ALTER TABLE {t} MODIFY {col} {r.choice(TYPES)}",
            f"ALTER TABLE {t} ADD INDEX i{r.randrange(9)} ({col})",
            f"ALTER TABLE {t} DROP INDEX i{r.randrange(9)}",
            f"CREATE INDEX j{r.randrange(9)} ON {t} ({col}(2))",
            f"ALTER TABLE {t} ADD COLUMN z{r.randrange(9)} {r.choice(TYPES)} DEFAULT NULL",
        ])
    return r.choice([
        f"SELECT * FROM {t} WHERE id IN (SELECT a FROM t2 WHERE t2.b = {t}.id)",
        "SELECT DISTINCT c FROM t1 UNION SELECT c FROM t2 ORDER BY 1 LIMIT 3",
        "SELECT * FROM (SELECT a, COUNT(*) AS n FROM t1 GROUP BY a) AS d WHERE n > 0",
        f"SHOW CREATE TABLE {t}", f"SHOW INDEX FROM {t}",
        "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'rnd'",
        f"TRUNCATE TABLE {t}",
    ])


def test_random_statements_never_break_the_connection(kiln_shared):
    r = random.Random(SEED)
    kiln_shared.query("CREATE DATABASE IF NOT EXISTS rnd")
    c = kiln_shared.connect(database="rnd", autocommit=True)
    with c.cursor() as cur:
        for t in ("t1", "t2"):
            cur.execute(f"CREATE TABLE {t} (id INT PRIMARY KEY, a INT, b BIGINT, c VARCHAR(20), "
                        "d DECIMAL(10,2), e DATETIME, KEY ka (a), UNIQUE KEY ub (b))")
        ok = errors = 0
        for n in range(STATEMENTS):
            sql = statement(r)
            try:
                cur.execute(sql)
                cur.fetchall()
                ok += 1
            except pymysql.err.OperationalError as e:
                code = e.args[0]
                assert not 2000 <= code < 3000, f"statement {n} dropped the connection: {sql!r}: {e}"
                errors += 1
            except pymysql.MySQLError as e:
                assert not 2000 <= e.args[0] < 3000, f"statement {n}: {sql!r}: {e}"
                errors += 1
            except (TypeError, ValueError) as e:
                # The client could not decode a value as the column's declared type.
                pytest.fail(f"statement {n}: {sql!r}: result metadata and values disagree: {e}")
        cur.execute("SELECT 1")
        assert cur.fetchall() == ((1,),)
    c.close()
    assert ok > STATEMENTS // 4, (ok, errors)
    assert "panicked" not in kiln_shared.log_text()
