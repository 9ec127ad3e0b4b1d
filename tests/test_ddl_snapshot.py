"""A transaction whose read view predates a DDL that rebuilt a table (ALTER TABLE's
copy, TRUNCATE) gets 1412 "Table definition has changed, please retry transaction"
when it reads that table, as in MySQL/InnoDB, instead of an empty table (the copy's
rows carry the DDL's transaction id, which the old view cannot see). Compared with a
real MariaDB 10.11 (ALGORITHM=COPY forces the rebuild kiln always does)."""

import pymysql

from mariadb_server import start_private_mariadb


def outcome(c, sql):
    try:
        with c.cursor() as cur:
            cur.execute(sql)
            return ("ok", cur.fetchall())
    except pymysql.MySQLError as e:
        return ("err", e.args[0], e.args[1])


def scenario(connect, rebuild_sql, isolation="REPEATABLE READ"):
    """What an old-view transaction sees of t after another session rebuilt it."""
    adm = connect(autocommit=True)
    run = lambda sql: outcome(adm, sql)  # noqa: E731
    run("DROP DATABASE IF EXISTS ds")
    run("CREATE DATABASE ds")
    run("CREATE TABLE ds.t (id INT PRIMARY KEY, v INT, KEY (v))")
    run("CREATE TABLE ds.other (id INT PRIMARY KEY)")
    run("INSERT INTO ds.t VALUES (1, 10), (2, 20), (3, 30)")
    run("INSERT INTO ds.other VALUES (1)")
    old = connect(autocommit=True)
    out = []
    out.append(outcome(old, f"SET SESSION TRANSACTION ISOLATION LEVEL {isolation}"))
    out.append(outcome(old, "START TRANSACTION"))
    # The view is taken by the first consistent read, of another table: no metadata
    # lock on t, so the DDL does not wait.
    out.append(outcome(old, "SELECT * FROM ds.other"))
    out.append(run(rebuild_sql))
    for sql in [
        "SELECT COUNT(*) FROM ds.t",
        "SELECT v FROM ds.t WHERE id = 2",
        "SELECT id FROM ds.t WHERE v > 15 ORDER BY id",
        "SELECT id FROM ds.t WHERE id = 3 FOR UPDATE",
        "UPDATE ds.t SET v = v + 1 WHERE id = 1",
    ]:
        out.append((sql, outcome(old, sql)))
    out.append(outcome(old, "COMMIT"))
    # A new transaction reads the rebuilt table normally.
    out.append(outcome(old, "SELECT COUNT(*) FROM ds.t"))
    old.close()
    run("DROP DATABASE ds")
    adm.close()
    return out


CASES = [
    # kiln adds a column in place (rows written before it read its default), as
    # MariaDB's ALGORITHM=INSTANT: no rebuild, so the old view reads on.
    ("ALTER TABLE ds.t ADD COLUMN w INT", "ALTER TABLE ds.t ADD COLUMN w INT, ALGORITHM=INSTANT"),
    ("ALTER TABLE ds.t MODIFY v BIGINT", "ALTER TABLE ds.t MODIFY v BIGINT, ALGORITHM=COPY"),
    ("TRUNCATE TABLE ds.t", "TRUNCATE TABLE ds.t"),
]


def test_old_view_after_rebuild_like_mariadb(kiln):
    m = start_private_mariadb(prefix="kiln-ddlsnap-")
    try:
        for kiln_sql, maria_sql in CASES:
            for iso in ["REPEATABLE READ", "READ COMMITTED"]:
                got = scenario(kiln.connect, kiln_sql, iso)
                want = scenario(m.connect, maria_sql, iso)
                assert got == want, (kiln_sql, iso)
    finally:
        m.cleanup()


def test_old_view_gets_1412_not_an_empty_table(kiln):
    got = scenario(kiln.connect, "ALTER TABLE ds.t MODIFY v BIGINT")
    assert got[4] == (
        "SELECT COUNT(*) FROM ds.t",
        ("err", 1412, "Table definition has changed, please retry transaction"),
    )
    # After COMMIT the rows are all there.
    assert got[-1] == ("ok", ((3,),))
    # READ COMMITTED takes a view per statement: it reads the new copy.
    rc = scenario(kiln.connect, "ALTER TABLE ds.t MODIFY v BIGINT", "READ COMMITTED")
    assert rc[4] == ("SELECT COUNT(*) FROM ds.t", ("ok", ((3,),)))
