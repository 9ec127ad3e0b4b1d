"""Views against the real kiln binary (PyMySQL): CREATE [OR REPLACE] / ALTER / DROP VIEW,
SELECT through views (joins, views on views, column lists, WHERE), SHOW CREATE VIEW /
TABLE, SHOW FULL TABLES, information_schema, DESCRIBE, MySQL's errors, updatable views
and WITH CHECK OPTION, privileges (SQL SECURITY DEFINER / INVOKER), views surviving a
restart and a crash, and results compared with a real MariaDB 10.11 where MySQL 8.0 and
MariaDB agree."""

from decimal import Decimal

import pymysql
import pytest

from mariadb_server import start_private_mariadb


def run(c, sql, args=None):
    with c.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall()


def err(c, sql):
    with pytest.raises(pymysql.err.MySQLError) as e:
        run(c, sql)
    return e.value.args


SCHEMA = [
    "CREATE DATABASE vdb",
    "CREATE TABLE vdb.t (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, price DECIMAL(6,2), "
    "cat INT DEFAULT 1)",
    "CREATE TABLE vdb.c (id INT PRIMARY KEY, label VARCHAR(10))",
    "INSERT INTO vdb.t VALUES (1, 'pen', 1.50, 1), (2, 'ink', 7.25, 1), (3, 'pad', 3.00, 2), "
    "(4, 'cap', NULL, 3)",
    "INSERT INTO vdb.c VALUES (1, 'office'), (2, 'paper')",
]


def setup(server):
    c = server.connect()
    for s in SCHEMA:
        run(c, s)
    run(c, "USE vdb")
    return c


def test_select_through_views(kiln):
    c = setup(kiln)
    run(c, "CREATE VIEW cheap AS SELECT id, name, price FROM t WHERE price < 5")
    assert run(c, "SELECT * FROM cheap ORDER BY id") == (
        (1, "pen", Decimal("1.50")), (3, "pad", Decimal("3.00")))
    assert run(c, "SELECT name FROM cheap WHERE price > 2") == (("pad",),)
    assert run(c, "SELECT cheap.name FROM vdb.cheap ORDER BY 1") == (("pad",), ("pen",))
    # A join of a view with a table, an alias, a view over a view, a column list.
    run(c, "CREATE VIEW named (item, category) AS SELECT t.name, c.label FROM t "
           "JOIN c ON t.cat = c.id")
    assert run(c, "SELECT item, category FROM named ORDER BY item") == (
        ("ink", "office"), ("pad", "paper"), ("pen", "office"))
    assert run(c, "SELECT x.name, n.category FROM cheap x JOIN named n ON n.item = x.name "
                  "ORDER BY 1") == (("pad", "paper"), ("pen", "office"))
    run(c, "CREATE VIEW cheapest AS SELECT name FROM cheap WHERE price < 2")
    assert run(c, "SELECT * FROM cheapest") == (("pen",),)
    run(c, "CREATE VIEW star (a, b, c, d) AS SELECT * FROM t")
    assert run(c, "SELECT b FROM star WHERE a = 2") == (("ink",),)
    # Aggregates, DISTINCT and UNION views; a view in a subquery.
    run(c, "CREATE VIEW per_cat AS SELECT cat, COUNT(*) AS n, SUM(price) AS total FROM t "
           "GROUP BY cat")
    assert run(c, "SELECT cat, n FROM per_cat ORDER BY cat") == ((1, 2), (2, 1), (3, 1))
    run(c, "CREATE VIEW names AS SELECT name FROM t UNION SELECT label FROM c")
    assert run(c, "SELECT COUNT(*) FROM names") == ((6,),)
    assert run(c, "SELECT id FROM t WHERE name IN (SELECT name FROM cheap) ORDER BY id") == (
        (1,), (3,))
    assert run(c, "SELECT (SELECT COUNT(*) FROM cheapest)") == ((1,),)
    # Views see the table's current rows.
    run(c, "INSERT INTO t VALUES (5, 'clip', 0.10, 2)")
    assert run(c, "SELECT COUNT(*) FROM cheap") == ((3,),)
    # Unqualified names resolve in the view's database, not the session's.
    run(c, "USE mysql")
    assert run(c, "SELECT COUNT(*) FROM vdb.cheap") == ((3,),)
    # CREATE OR REPLACE, ALTER VIEW.
    run(c, "CREATE OR REPLACE VIEW vdb.cheap AS SELECT id FROM vdb.t WHERE price < 2")
    assert run(c, "SELECT * FROM vdb.cheap ORDER BY id") == ((1,), (5,))
    run(c, "ALTER VIEW vdb.cheap AS SELECT id, name FROM vdb.t WHERE id = 3")
    assert run(c, "SELECT * FROM vdb.cheap") == ((3, "pad"),)
    # EXPLAIN of a statement over a view plans the derived table.
    assert run(c, "EXPLAIN SELECT * FROM vdb.cheap")


def test_prepared_statements_over_views(kiln):
    mysql_connector = pytest.importorskip("mysql.connector")
    c = setup(kiln)
    run(c, "CREATE VIEW cheap (k, label) AS SELECT id, name FROM t WHERE price < 5")
    m = mysql_connector.connect(host="127.0.0.1", port=kiln.port, user="root", password="",
                                database="vdb", autocommit=True, connection_timeout=10)
    try:
        cur = m.cursor(prepared=True)
        cur.execute("SELECT k, label FROM cheap WHERE k > ? ORDER BY k", (1,))
        assert [d[0] for d in cur.description] == ["k", "label"]
        assert [tuple(r) for r in cur.fetchall()] == [(3, "pad")]
        cur.execute("UPDATE cheap SET label = ? WHERE k = ?", ("PAD", 3))
        assert cur.rowcount == 1
    finally:
        m.close()
    assert run(c, "SELECT name FROM t WHERE id = 3") == (("PAD",),)


def test_show_and_information_schema(kiln):
    c = setup(kiln)
    run(c, "CREATE VIEW v AS SELECT id, name FROM t WHERE id > 1")
    run(c, "CREATE ALGORITHM=MERGE SQL SECURITY INVOKER VIEW w (k) AS SELECT id FROM t "
           "WITH LOCAL CHECK OPTION")
    with c.cursor() as cur:
        cur.execute("SHOW CREATE VIEW v")
        assert [d[0] for d in cur.description] == [
            "View", "Create View", "character_set_client", "collation_connection"]
        row = cur.fetchone()
    assert row[0] == "v"
    assert row[1] == ("CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY "
                      "DEFINER VIEW `v` AS SELECT id, name FROM t WHERE id > 1")
    assert row[2] == "utf8mb4" and row[3].startswith("utf8mb4")
    w = run(c, "SHOW CREATE VIEW w")[0][1]
    assert w == ("CREATE ALGORITHM=MERGE DEFINER=`root`@`localhost` SQL SECURITY INVOKER "
                 "VIEW `w` (`k`) AS SELECT id FROM t WITH LOCAL CHECK OPTION")
    # SHOW CREATE TABLE on a view answers with the view form.
    with c.cursor() as cur:
        cur.execute("SHOW CREATE TABLE v")
        assert cur.description[0][0] == "View"
        assert cur.fetchone()[1] == row[1]
    assert err(c, "SHOW CREATE VIEW t") == (1347, "'vdb.t' is not VIEW")
    assert err(c, "SHOW CREATE VIEW nope")[0] == 1146
    assert run(c, "SHOW FULL TABLES") == (
        ("c", "BASE TABLE"), ("t", "BASE TABLE"), ("v", "VIEW"), ("w", "VIEW"))
    assert run(c, "SHOW TABLES LIKE 'v%'") == (("v",),)
    status = {r[0]: r for r in run(c, "SHOW TABLE STATUS")}
    assert status["v"][1] is None and status["v"][17] == "VIEW"
    assert run(c, "SELECT TABLE_NAME, TABLE_TYPE, ENGINE, TABLE_COMMENT FROM "
                  "information_schema.TABLES WHERE TABLE_SCHEMA = 'vdb' ORDER BY 1") == (
        ("c", "BASE TABLE", "InnoDB", ""), ("t", "BASE TABLE", "InnoDB", ""),
        ("v", "VIEW", None, "VIEW"), ("w", "VIEW", None, "VIEW"))
    assert run(c, "SELECT TABLE_NAME, VIEW_DEFINITION, CHECK_OPTION, IS_UPDATABLE, DEFINER, "
                  "SECURITY_TYPE FROM information_schema.VIEWS WHERE TABLE_SCHEMA = 'vdb' "
                  "ORDER BY 1") == (
        ("v", "SELECT id, name FROM t WHERE id > 1", "NONE", "YES", "root@localhost",
         "DEFINER"),
        ("w", "SELECT id FROM t", "LOCAL", "YES", "root@localhost", "INVOKER"))
    # DESCRIBE: the base columns' types, nullability and defaults; expressions typed.
    run(c, "CREATE VIEW d AS SELECT name, cat, price * 2 AS twice, COUNT(*) AS n FROM t "
           "GROUP BY name, cat, price")
    desc = run(c, "DESCRIBE d")
    assert desc[0] == ("name", "varchar(20)", "NO", "", None, "")
    assert desc[1] == ("cat", "int", "YES", "", "1", "")
    assert [r[0] for r in desc] == ["name", "cat", "twice", "n"]
    assert run(c, "SHOW COLUMNS FROM w") == (("k", "int", "NO", "", None, ""),)
    assert run(c, "SELECT COLUMN_NAME, ORDINAL_POSITION, DATA_TYPE, IS_NULLABLE FROM "
                  "information_schema.COLUMNS WHERE TABLE_SCHEMA = 'vdb' AND TABLE_NAME = 'v' "
                  "ORDER BY 2") == (("id", 1, "int", "NO"), ("name", 2, "varchar", "NO"))


def test_errors(kiln):
    c = setup(kiln)
    run(c, "CREATE VIEW v AS SELECT id FROM t")
    assert err(c, "CREATE VIEW v AS SELECT 1") == (1050, "Table 'v' already exists")
    assert err(c, "CREATE VIEW t AS SELECT 1") == (1050, "Table 't' already exists")
    assert err(c, "CREATE TABLE v (a INT)") == (1050, "Table 'v' already exists")
    assert err(c, "CREATE OR REPLACE VIEW t AS SELECT 1") == (1347, "'vdb.t' is not VIEW")
    assert err(c, "DROP VIEW t") == (1347, "'vdb.t' is not VIEW")
    assert err(c, "DROP VIEW nope, v") == (1051, "Unknown table 'vdb.nope'")
    assert run(c, "SELECT COUNT(*) FROM v") == ((4,),)  # nothing dropped
    run(c, "DROP VIEW IF EXISTS nope")
    assert run(c, "SHOW WARNINGS") == (("Note", 1051, "Unknown table 'vdb.nope'"),)
    assert err(c, "DROP TABLE v") == (1051, "Unknown table 'vdb.v'")
    assert err(c, "ALTER VIEW nope AS SELECT 1")[0] == 1146
    assert err(c, "CREATE VIEW bad AS SELECT nope FROM t")[0] == 1054
    assert err(c, "CREATE VIEW bad AS SELECT * FROM missing") == (
        1146, "Table 'vdb.missing' doesn't exist")
    assert err(c, "CREATE VIEW bad (a, b) AS SELECT id FROM t")[0] == 1353
    assert err(c, "CREATE VIEW bad AS SELECT id, id FROM t") == (
        1060, "Duplicate column name 'id'")
    assert err(c, "CREATE VIEW bad AS SELECT @x")[0] == 1351
    assert err(c, "CREATE VIEW nodb.v AS SELECT 1") == (1049, "Unknown database 'nodb'")
    assert err(c, "CREATE VIEW bad AS SELECT COUNT(*) FROM t WITH CHECK OPTION") == (
        1368, "CHECK OPTION on non-updatable view 'vdb.bad'")
    run(c, "CREATE TEMPORARY TABLE tmp (a INT)")
    assert err(c, "CREATE VIEW bad AS SELECT a FROM tmp") == (
        1352, "View's SELECT refers to a temporary table 'tmp'")
    # The underlying table goes: the view stays and is invalid (1356).
    run(c, "CREATE TABLE gone (a INT)")
    run(c, "CREATE VIEW vg AS SELECT a FROM gone")
    run(c, "CREATE VIEW vvg AS SELECT a FROM vg")
    run(c, "DROP TABLE gone")
    msg = ("View 'vdb.{}' references invalid table(s) or column(s) or function(s) or "
           "definer/invoker of view lack rights to use them")
    assert err(c, "SELECT * FROM vg") == (1356, msg.format("vg"))
    # MySQL names the view the statement used, not the one under it.
    assert err(c, "SELECT * FROM vvg") == (1356, msg.format("vvg"))
    run(c, "CREATE TABLE gone (a INT)")
    assert run(c, "SELECT * FROM vvg") == ()
    # A column it reads goes: 1356 again (MySQL), not the inner 1054.
    run(c, "ALTER TABLE gone ADD COLUMN b INT")
    run(c, "ALTER TABLE gone DROP COLUMN a")
    assert err(c, "SELECT * FROM vg") == (1356, msg.format("vg"))
    assert err(c, "SELECT b FROM gone JOIN vvg") == (1356, msg.format("vvg"))
    assert err(c, "SELECT nope FROM gone")[0] == 1054  # the statement's own column
    # A view reaching itself through another: 1462.
    run(c, "CREATE VIEW r1 AS SELECT 1 AS x")
    run(c, "CREATE VIEW r2 AS SELECT x FROM r1")
    run(c, "CREATE OR REPLACE VIEW r1 AS SELECT x FROM r2")
    assert err(c, "SELECT * FROM r2")[0] == 1462
    # RENAME TABLE renames a view within its database.
    run(c, "RENAME TABLE vg TO vg2")
    assert err(c, "SELECT * FROM vg")[0] == 1146
    assert run(c, "SHOW FULL TABLES LIKE 'vg2'") == (("vg2", "VIEW"),)
    assert err(c, "RENAME TABLE vg2 TO t") == (1050, "Table 't' already exists")
    assert err(c, "RENAME TABLE vg2 TO mysql.vg2") == (
        1450, "Changing schema from 'vdb' to 'mysql' is not allowed.")
    assert err(c, "CREATE VIEW vg2 AS SELECT 1") == (1050, "Table 'vg2' already exists")
    # Dropping several views at once; DROP DATABASE drops views.
    run(c, "DROP VIEW r1, r2")
    assert err(c, "SELECT * FROM r1")[0] == 1146
    run(c, "DROP DATABASE vdb")
    run(c, "CREATE DATABASE vdb")
    assert run(c, "SELECT COUNT(*) FROM information_schema.VIEWS") == ((0,),)


def test_updatable_views_and_check_option(kiln):
    c = setup(kiln)
    run(c, "CREATE VIEW cat1 AS SELECT id, name AS item, price FROM t WHERE cat = 1")
    run(c, "UPDATE cat1 SET price = price + 1 WHERE item = 'pen'")
    assert run(c, "SELECT price FROM t WHERE id = 1") == ((Decimal("2.50"),),)
    with c.cursor() as cur:
        assert cur.execute("UPDATE cat1 SET price = 0") == 2  # only the view's rows
    assert run(c, "SELECT id FROM t WHERE price = 0 ORDER BY id") == ((1,), (2,))
    run(c, "INSERT INTO cat1 (id, item) VALUES (10, 'new')")
    assert run(c, "SELECT id, name, price, cat FROM t WHERE id = 10") == (
        (10, "new", None, 1),)
    with c.cursor() as cur:
        assert cur.execute("DELETE FROM cat1 WHERE item <> 'new'") == 2
    assert run(c, "SELECT id FROM t ORDER BY id") == ((3,), (4,), (10,))
    # Not updatable: aggregates, DISTINCT, joins, UNION; expression columns.
    run(c, "CREATE VIEW agg AS SELECT cat, COUNT(*) AS n FROM t GROUP BY cat")
    run(c, "CREATE VIEW j AS SELECT t.id, c.label FROM t JOIN c ON t.cat = c.id")
    assert err(c, "UPDATE agg SET cat = 1") == (
        1288, "The target table agg of the UPDATE is not updatable")
    assert err(c, "DELETE FROM agg") == (
        1288, "The target table agg of the DELETE is not updatable")
    assert err(c, "INSERT INTO agg VALUES (1, 1)") == (
        1471, "The target table agg of the INSERT is not insertable-into")
    assert err(c, "DELETE FROM j") == (1395, "Can not delete from join view 'vdb.j'")
    # A join view updates one of its tables at a time (1393 for two).
    run(c, "UPDATE j SET label = 'PAPER' WHERE id = 3")
    assert run(c, "SELECT label FROM c ORDER BY id") == (("office",), ("PAPER",))
    assert err(c, "UPDATE j SET id = 5, label = 'x'") == (
        1393, "Can not modify more than one base table through a join view 'vdb.j'")
    run(c, "CREATE VIEW expr AS SELECT id, price * 2 AS twice FROM t")
    assert err(c, "UPDATE expr SET twice = 1") == (1348, "Column 'twice' is not updatable")
    # WITH CHECK OPTION.
    run(c, "CREATE VIEW chk AS SELECT id, name, cat FROM t WHERE cat = 2 WITH CHECK OPTION")
    run(c, "INSERT INTO chk VALUES (20, 'ok', 2)")
    assert err(c, "INSERT INTO chk VALUES (21, 'bad', 3)") == (
        1369, "CHECK OPTION failed 'vdb.chk'")
    assert err(c, "UPDATE chk SET cat = 3 WHERE id = 20") == (
        1369, "CHECK OPTION failed 'vdb.chk'")
    run(c, "UPDATE chk SET name = 'fine' WHERE id = 20")
    assert run(c, "SELECT id, name, cat FROM t WHERE id >= 20") == ((20, "fine", 2),)
    # LOCAL checks only this view's condition; CASCADED the ones below too.
    run(c, "CREATE VIEW base_pos AS SELECT id, name, cat FROM t WHERE cat > 0")
    run(c, "CREATE VIEW loc AS SELECT id, name, cat FROM base_pos WHERE cat < 5 "
           "WITH LOCAL CHECK OPTION")
    run(c, "CREATE VIEW cas AS SELECT id, name, cat FROM base_pos WHERE cat < 5 "
           "WITH CASCADED CHECK OPTION")
    run(c, "INSERT INTO loc VALUES (30, 'neg', -1)")
    assert err(c, "INSERT INTO cas VALUES (31, 'neg', -1)")[0] == 1369
    assert err(c, "INSERT INTO loc VALUES (32, 'big', 9)")[0] == 1369
    assert run(c, "SELECT id FROM t WHERE id >= 30") == ((30,),)


def test_privileges(kiln):
    root = setup(kiln)
    run(root, "CREATE VIEW dv AS SELECT id, name FROM t")
    run(root, "CREATE SQL SECURITY INVOKER VIEW iv AS SELECT id, name FROM t")
    run(root, "CREATE USER 'vu'@'%' IDENTIFIED BY 'pw'")
    run(root, "GRANT SELECT ON vdb.dv TO 'vu'@'%'")
    run(root, "GRANT SELECT ON vdb.iv TO 'vu'@'%'")
    u = kiln.connect(user="vu", password="pw", database="vdb")
    # DEFINER: the view's table is checked against root; INVOKER: against vu.
    assert len(run(u, "SELECT * FROM dv")) == 4
    assert err(u, "SELECT * FROM iv")[0] == 1356
    assert err(u, "SELECT * FROM t")[0] == 1142
    assert err(u, "SHOW CREATE VIEW dv") == (
        1142, "SHOW VIEW command denied to user 'vu'@'localhost' for table 'dv'")
    assert err(u, "CREATE VIEW mine AS SELECT 1")[0] == 1142
    assert err(u, "DROP VIEW dv")[0] == 1142
    run(root, "GRANT CREATE VIEW, SHOW VIEW, DROP ON vdb.* TO 'vu'@'%'")
    grants = [r[0] for r in run(root, "SHOW GRANTS FOR 'vu'@'%'")]
    assert "GRANT DROP, CREATE VIEW, SHOW VIEW ON `vdb`.* TO `vu`@`%`" in grants
    u2 = kiln.connect(user="vu", password="pw", database="vdb")
    assert run(u2, "SHOW CREATE VIEW dv")[0][0] == "dv"
    # A view over what vu may not read cannot be created (SELECT on its sources).
    assert err(u2, "CREATE VIEW mine AS SELECT id FROM t")[0] == 1142
    run(u2, "CREATE VIEW mine AS SELECT id FROM dv")
    assert run(root, "SELECT DEFINER FROM information_schema.VIEWS WHERE TABLE_NAME = "
                     "'mine'") == (("vu@%",),)
    # Another account as DEFINER needs SUPER.
    assert err(u2, "CREATE DEFINER = root@localhost VIEW other AS SELECT 1")[0] == 1227
    run(u2, "DROP VIEW mine")
    # A definer that no longer exists: 1449.
    run(root, "CREATE DEFINER = 'vu'@'%' VIEW byvu AS SELECT 1 AS one")
    run(root, "DROP USER 'vu'@'%'")
    assert err(root, "SELECT * FROM byvu") == (
        1449, "The user specified as a definer ('vu'@'%') does not exist")


def test_views_survive_restart_and_crash(kiln_factory):
    s = kiln_factory()
    c = setup(s)
    run(c, "CREATE VIEW keep (a, b) AS SELECT id, name FROM t WHERE id < 3 "
           "WITH CASCADED CHECK OPTION")
    run(c, "CREATE VIEW gone AS SELECT 1")
    run(c, "DROP VIEW gone")
    before = run(c, "SHOW CREATE VIEW keep")
    c.close()
    assert s.stop() == 0, s.diagnostics()
    kiln_factory.servers.remove(s)
    s2 = kiln_factory(datadir=s.datadir)
    c2 = s2.connect(database="vdb")
    assert run(c2, "SHOW CREATE VIEW keep") == before
    assert run(c2, "SELECT * FROM keep ORDER BY a") == ((1, "pen"), (2, "ink"))
    assert err(c2, "SELECT * FROM gone")[0] == 1146
    # A crash right after CREATE VIEW returned: the view is there (DDL is durable).
    run(c2, "CREATE VIEW durable AS SELECT b FROM keep")
    s2.kill()
    kiln_factory.servers.remove(s2)
    s3 = kiln_factory(datadir=s.datadir)
    assert s3.query("SELECT * FROM vdb.durable ORDER BY 1") == (("ink",), ("pen",))


# -- compared with MariaDB 10.11 ----------------------------------------------------------

DIFF_SETUP = [
    "CREATE DATABASE vdiff",
    "USE vdiff",
    "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20) COLLATE utf8mb4_general_ci, "
    "qty INT) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci",
    "CREATE TABLE u (id INT PRIMARY KEY, t_id INT, note VARCHAR(10) COLLATE "
    "utf8mb4_general_ci) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci",
    "INSERT INTO t VALUES (1, 'a', 5), (2, 'b', NULL), (3, 'c', 7), (4, 'd', 0)",
    "INSERT INTO u VALUES (1, 1, 'x'), (2, 1, 'y'), (3, 3, 'z'), (4, 9, 'w')",
    "CREATE VIEW v1 AS SELECT id, name, qty FROM t WHERE qty IS NOT NULL",
    "CREATE VIEW v2 (k, n) AS SELECT id, name FROM v1 WHERE qty > 0",
    "CREATE VIEW v3 AS SELECT t_id, COUNT(*) AS cnt FROM u GROUP BY t_id",
    "CREATE VIEW v4 AS SELECT v1.name, u.note FROM v1 LEFT JOIN u ON u.t_id = v1.id",
    "CREATE VIEW v5 AS SELECT id, qty FROM t WHERE qty > 1 WITH CHECK OPTION",
    "CREATE VIEW v6 AS SELECT t.id, t.name, u.note FROM t JOIN u ON u.t_id = t.id",
]

DIFF_QUERIES = [
    "SELECT * FROM v1 ORDER BY id",
    "SELECT * FROM v2 ORDER BY k",
    "SELECT n FROM v2 WHERE k > 1 ORDER BY n",
    "SELECT * FROM v3 ORDER BY t_id",
    "SELECT * FROM v4 ORDER BY name, note",
    "SELECT v2.n, v3.cnt FROM v2 JOIN v3 ON v3.t_id = v2.k ORDER BY 1",
    "SELECT COUNT(*), SUM(qty) FROM v1",
    "SELECT name FROM t WHERE id IN (SELECT k FROM v2) ORDER BY 1",
    "SELECT * FROM v2 WHERE n LIKE 'c%'",
    "SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES "
    "WHERE TABLE_SCHEMA = 'vdiff' ORDER BY 1",
    "SELECT TABLE_NAME, CHECK_OPTION, IS_UPDATABLE, SECURITY_TYPE FROM "
    "information_schema.VIEWS WHERE TABLE_SCHEMA = 'vdiff' ORDER BY 1",
    "SELECT * FROM v2 ORDER BY k",
    "UPDATE v1 SET qty = qty + 1 WHERE id = 1",
    "SELECT * FROM t ORDER BY id",
    "INSERT INTO v5 VALUES (9, 0)",
    "INSERT INTO v5 VALUES (9, 3)",
    "UPDATE v5 SET qty = 1 WHERE id = 9",
    "UPDATE v6 SET note = 'q' WHERE id = 3",
    "UPDATE v6 SET note = CONCAT(note, name) WHERE note <> 'q'",
    "SELECT * FROM u ORDER BY id",
    "UPDATE v6 SET name = 'n', note = 'm'",
    "SELECT * FROM v6 ORDER BY id, note",
    "DELETE FROM v2 WHERE k = 3",
    "SELECT * FROM t ORDER BY id",
    "UPDATE v3 SET cnt = 1",
    # (DROP VIEW of a table or of a missing view: MySQL 8.0 says 1347 / 1051, MariaDB
    # 10.11 4092 for both; test_errors holds kiln to MySQL's.)
    "CREATE VIEW v1 AS SELECT 1",
    "DROP TABLE u",
    "SELECT * FROM v4",
]


def outcome(conn, sql):
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return ("rows", tuple(tuple(r) for r in cur.fetchall()))
    except pymysql.err.MySQLError as e:
        return ("error", e.args[0])


def test_views_like_mariadb(kiln):
    m = start_private_mariadb(prefix="kiln-view-")
    try:
        k = kiln.connect()
        mc = m.connect()
        for sql in DIFF_SETUP:
            run(k, sql)
            run(mc, sql)
        for sql in DIFF_QUERIES:
            assert outcome(k, sql) == outcome(mc, sql), sql
    finally:
        m.cleanup()


BAD_SYNTAX = [
    "CREATE VIEW v AS",
    "CREATE VIEW v (",
    "CREATE VIEW v () AS SELECT 1",
    "ALTER VIEW",
    "DROP VIEW",
    "SHOW CREATE VIEW",
    "CREATE ALGORITHM=FOO VIEW v AS SELECT 1",
    "CREATE DEFINER= VIEW v AS SELECT 1",
    "CREATE VIEW v AS SELECT 1 WITH LOCAL OPTION",
    "CREATE SQL SECURITY NOBODY VIEW v AS SELECT 1",
    "CREATE VIEW v AS SELECT 1 FROM",
]


def test_malformed_view_statements_are_errors(kiln):
    c = setup(kiln)
    for sql in BAD_SYNTAX:
        assert err(c, sql)[0] == 1064, sql
    assert err(c, "CREATE VIEW v AS SELECT 1 UNION SELECT 1, 2")[0] == 1222
    assert kiln.alive()
    assert run(c, "SELECT COUNT(*) FROM information_schema.VIEWS") == ((0,),)
