"""Triggers against the real kiln binary (PyMySQL): CREATE / DROP TRIGGER, BEFORE and
AFTER triggers on INSERT / UPDATE / DELETE, NEW and OLD, compound bodies (DECLARE, SET,
IF, CASE, loops, SIGNAL, SELECT ... INTO), MySQL's errors, statement and transaction
rollback of trigger effects, ACTION_ORDER with FOLLOWS / PRECEDES, REPLACE and ON
DUPLICATE KEY UPDATE event order, LOAD DATA, multi-table statements and views,
SHOW TRIGGERS / SHOW CREATE TRIGGER / information_schema.TRIGGERS, privileges,
restart and crash persistence, RENAME / DROP TABLE, and the mariadb-dump round trip.
Results are compared with a real MariaDB 10.11 where MySQL 8.0 and MariaDB agree."""

import shutil
import subprocess

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


def outcome(c, sql):
    try:
        with c.cursor() as cur:
            cur.execute(sql)
            return ("rows", tuple(tuple(r) for r in cur.fetchall()))
    except pymysql.err.MySQLError as e:
        return ("error", e.args[0])


# -- compared with MariaDB 10.11 ----------------------------------------------------------

DIFF = [
    "CREATE DATABASE tdiff",
    "USE tdiff",
    "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(20))",
    "CREATE TABLE audit (n INT AUTO_INCREMENT PRIMARY KEY, op VARCHAR(10), "
    "old_a INT, new_a INT)",
    # BEFORE INSERT changes NEW; AFTER INSERT writes an audit table.
    "CREATE TRIGGER t_bi BEFORE INSERT ON t FOR EACH ROW "
    "SET NEW.a = NEW.a * 10, NEW.b = UPPER(NEW.b)",
    "CREATE TRIGGER t_ai AFTER INSERT ON t FOR EACH ROW "
    "INSERT INTO audit (op, new_a) VALUES ('ins', NEW.a)",
    "INSERT INTO t VALUES (1, 1, 'one'), (2, 2, 'two')",
    "INSERT INTO t (id, a) VALUES (3, NULL)",
    "SELECT * FROM t ORDER BY id",
    "SELECT op, old_a, new_a FROM audit ORDER BY n",
    # UPDATE with OLD and NEW, an IF in a BEGIN ... END body.
    "CREATE TRIGGER t_bu BEFORE UPDATE ON t FOR EACH ROW BEGIN "
    "IF NEW.a < 0 THEN SET NEW.a = 0; ELSEIF NEW.a > 1000 THEN SET NEW.a = 1000; "
    "END IF; END",
    "CREATE TRIGGER t_au AFTER UPDATE ON t FOR EACH ROW "
    "INSERT INTO audit (op, old_a, new_a) VALUES ('upd', OLD.a, NEW.a)",
    "UPDATE t SET a = -5 WHERE id = 1",
    "UPDATE t SET a = 5000 WHERE id = 2",
    "UPDATE t SET b = b WHERE id = 3",
    "SELECT * FROM t ORDER BY id",
    "SELECT op, old_a, new_a FROM audit ORDER BY n",
    # DELETE, and SIGNAL refusing one row.
    "CREATE TRIGGER t_bd BEFORE DELETE ON t FOR EACH ROW BEGIN "
    "IF OLD.id = 2 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'row 2 stays'; END IF; "
    "END",
    "CREATE TRIGGER t_ad AFTER DELETE ON t FOR EACH ROW "
    "INSERT INTO audit (op, old_a) VALUES ('del', OLD.a)",
    "DELETE FROM t WHERE id = 1",
    "DELETE FROM t",
    "SELECT id FROM t ORDER BY id",
    "SELECT op, old_a, new_a FROM audit ORDER BY n",
    # SIGNAL in the middle of a multi-row INSERT: nothing of it stays.
    "CREATE TABLE s (id INT PRIMARY KEY, v INT)",
    "CREATE TRIGGER s_bi BEFORE INSERT ON s FOR EACH ROW BEGIN "
    "INSERT INTO audit (op, new_a) VALUES ('s', NEW.v); "
    "IF NEW.v = 13 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'unlucky'; END IF; END",
    "INSERT INTO s VALUES (1, 11), (2, 12), (3, 13), (4, 14)",
    "SELECT COUNT(*) FROM s",
    "SELECT COUNT(*) FROM audit WHERE op = 's'",
    "INSERT INTO s VALUES (1, 11)",
    "SELECT COUNT(*) FROM audit WHERE op = 's'",
    # Locals, loops, CASE, SELECT ... INTO, user variables.
    "CREATE TABLE calc (id INT PRIMARY KEY, n INT, total INT, kind VARCHAR(10), "
    "seen INT)",
    "CREATE TRIGGER calc_bi BEFORE INSERT ON calc FOR EACH ROW BEGIN "
    "DECLARE i INT DEFAULT 1; DECLARE acc INT DEFAULT 0; DECLARE c INT; "
    "WHILE i <= NEW.n DO SET acc = acc + i; SET i = i + 1; END WHILE; "
    "SET NEW.total = acc; "
    "CASE WHEN NEW.n < 3 THEN SET NEW.kind = 'small'; WHEN NEW.n < 10 THEN "
    "SET NEW.kind = 'mid'; ELSE SET NEW.kind = 'big'; END CASE; "
    "SELECT COUNT(*) INTO c FROM audit; SET NEW.seen = c; "
    "lbl: LOOP SET @loops = IFNULL(@loops, 0) + 1; IF @loops >= 3 THEN LEAVE lbl; END IF; "
    "END LOOP lbl; "
    "REPEAT SET i = i - 1; UNTIL i <= 0 END REPEAT; SET @last_i = i; END",
    "INSERT INTO calc (id, n) VALUES (1, 2), (2, 4), (3, 20)",
    "SELECT * FROM calc ORDER BY id",
    "SELECT @loops, @last_i",
    # Rollback of a transaction undoes the trigger's writes too.
    "SET autocommit = 0",
    "INSERT INTO t VALUES (50, 5, 'x')",
    "SELECT COUNT(*) FROM audit",
    "ROLLBACK",
    "SET autocommit = 1",
    "SELECT COUNT(*) FROM audit",
    "SELECT COUNT(*) FROM t WHERE id = 50",
    # FOLLOWS / PRECEDES.
    "CREATE TABLE o (id INT PRIMARY KEY)",
    "CREATE TRIGGER o1 BEFORE INSERT ON o FOR EACH ROW SET @log = CONCAT(@log, '1')",
    "CREATE TRIGGER o3 BEFORE INSERT ON o FOR EACH ROW FOLLOWS o1 "
    "SET @log = CONCAT(@log, '3')",
    "CREATE TRIGGER o2 BEFORE INSERT ON o FOR EACH ROW PRECEDES o3 "
    "SET @log = CONCAT(@log, '2')",
    "CREATE TRIGGER o0 BEFORE INSERT ON o FOR EACH ROW PRECEDES o1 "
    "SET @log = CONCAT(@log, '0')",
    "SET @log = ''",
    "INSERT INTO o VALUES (1), (2)",
    "SELECT @log",
    "SELECT TRIGGER_NAME, ACTION_ORDER, EVENT_MANIPULATION, ACTION_TIMING, "
    "EVENT_OBJECT_TABLE FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = 'tdiff' "
    "ORDER BY EVENT_OBJECT_TABLE, EVENT_MANIPULATION, ACTION_TIMING, ACTION_ORDER",
    "DROP TRIGGER o1",
    "SELECT TRIGGER_NAME, ACTION_ORDER FROM information_schema.TRIGGERS "
    "WHERE EVENT_OBJECT_TABLE = 'o' ORDER BY ACTION_ORDER",
    # REPLACE and ON DUPLICATE KEY UPDATE: MySQL's order of trigger events.
    "CREATE TABLE r (id INT PRIMARY KEY, v INT)",
    "CREATE TABLE rlog (n INT AUTO_INCREMENT PRIMARY KEY, ev VARCHAR(20), o INT, nw INT)",
    "CREATE TRIGGER r_bi BEFORE INSERT ON r FOR EACH ROW "
    "INSERT INTO rlog (ev, nw) VALUES ('before insert', NEW.v)",
    "CREATE TRIGGER r_ai AFTER INSERT ON r FOR EACH ROW "
    "INSERT INTO rlog (ev, nw) VALUES ('after insert', NEW.v)",
    "CREATE TRIGGER r_bu BEFORE UPDATE ON r FOR EACH ROW BEGIN "
    "SET NEW.v = NEW.v + 1000; INSERT INTO rlog (ev, o, nw) VALUES ('before update', OLD.v, "
    "NEW.v); END",
    "CREATE TRIGGER r_au AFTER UPDATE ON r FOR EACH ROW "
    "INSERT INTO rlog (ev, o, nw) VALUES ('after update', OLD.v, NEW.v)",
    "CREATE TRIGGER r_bd BEFORE DELETE ON r FOR EACH ROW "
    "INSERT INTO rlog (ev, o) VALUES ('before delete', OLD.v)",
    "CREATE TRIGGER r_ad AFTER DELETE ON r FOR EACH ROW "
    "INSERT INTO rlog (ev, o) VALUES ('after delete', OLD.v)",
    "INSERT INTO r VALUES (1, 1)",
    "INSERT INTO r VALUES (1, 2) ON DUPLICATE KEY UPDATE v = VALUES(v) + 10",
    "REPLACE INTO r VALUES (1, 3)",
    "REPLACE INTO r VALUES (2, 4)",
    "SELECT * FROM r ORDER BY id",
    "SELECT ev, o, nw FROM rlog ORDER BY n",
    # Multi-table UPDATE and DELETE fire per row.
    "DELETE FROM rlog",
    "UPDATE r JOIN o ON o.id = r.id SET r.v = 7",
    "DELETE r FROM r JOIN o ON o.id = r.id WHERE r.id = 2",
    "SELECT * FROM r ORDER BY id",
    "SELECT ev, o, nw FROM rlog ORDER BY n",
    # Errors: 1359, 1360, 1363, 1362, 1442, 1644 (with MYSQL_ERRNO too).
    "CREATE TRIGGER t_bi BEFORE INSERT ON t FOR EACH ROW SET @x = 1",
    "CREATE TRIGGER IF NOT EXISTS t_bi BEFORE INSERT ON t FOR EACH ROW SET @x = 1",
    "DROP TRIGGER nosuch",
    "DROP TRIGGER IF EXISTS nosuch",
    "CREATE TRIGGER bad1 BEFORE INSERT ON t FOR EACH ROW SET @x = OLD.a",
    "CREATE TRIGGER bad2 AFTER DELETE ON t FOR EACH ROW SET @x = NEW.a",
    "CREATE TRIGGER bad3 BEFORE UPDATE ON t FOR EACH ROW SET OLD.a = 1",
    "CREATE TRIGGER bad4 AFTER UPDATE ON t FOR EACH ROW SET NEW.a = 1",
    "CREATE TRIGGER bad5 BEFORE INSERT ON t FOR EACH ROW SET NEW.nosuch = 1",
    "CREATE TRIGGER bad6 BEFORE INSERT ON nosuch FOR EACH ROW SET @x = 1",
    "CREATE TRIGGER bad7 BEFORE INSERT ON t FOR EACH ROW SELECT 1",
    "CREATE TRIGGER bad8 BEFORE INSERT ON t FOR EACH ROW COMMIT",
    "CREATE TABLE rec (id INT PRIMARY KEY)",
    "CREATE TRIGGER rec_ai AFTER INSERT ON rec FOR EACH ROW "
    "INSERT INTO rec VALUES (NEW.id + 100)",
    "INSERT INTO rec VALUES (1)",
    "SELECT COUNT(*) FROM rec",
    "CREATE TABLE sig (id INT PRIMARY KEY)",
    "CREATE TRIGGER sig_bi BEFORE INSERT ON sig FOR EACH ROW "
    "SIGNAL SQLSTATE 'HY000' SET MESSAGE_TEXT = 'custom', MYSQL_ERRNO = 1234",
    "INSERT INTO sig VALUES (1)",
    # LAST_INSERT_ID() after the statement is the statement's, not its trigger's.
    "CREATE TABLE ai (id INT AUTO_INCREMENT PRIMARY KEY, v INT)",
    "CREATE TABLE ai_log (n INT AUTO_INCREMENT PRIMARY KEY, v INT) AUTO_INCREMENT = 100",
    "CREATE TRIGGER ai_ai AFTER INSERT ON ai FOR EACH ROW BEGIN "
    "INSERT INTO ai_log (v) VALUES (NEW.id); SET @inner = LAST_INSERT_ID(); END",
    "INSERT INTO ai (v) VALUES (1)",
    "SELECT LAST_INSERT_ID(), @inner",
    "INSERT INTO ai (id, v) VALUES (10, 1)",
    "SELECT LAST_INSERT_ID(), @inner",
    "SELECT * FROM ai_log",
    # The body runs under the sql_mode of its CREATE.
    "CREATE TABLE m (id INT PRIMARY KEY, a INT)",
    "SET sql_mode = ''",
    "CREATE TRIGGER m_bi BEFORE INSERT ON m FOR EACH ROW SET NEW.a = 'abc'",
    "SET sql_mode = 'STRICT_TRANS_TABLES'",
    "INSERT INTO m (id, a) VALUES (1, 5)",
    "SELECT * FROM m",
    "SHOW WARNINGS",
    "INSERT INTO m (id, a) VALUES (2, 'x')",
    "SHOW TRIGGERS LIKE 'o'",
    "DROP TABLE o",
    "SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE EVENT_OBJECT_TABLE = 'o'",
]


def short(o):
    """SHOW TRIGGERS' rows without the columns that depend on the server's defaults."""
    if o[0] == "rows" and o[1] and len(o[1][0]) == 11:
        return ("rows", tuple(r[:5] for r in o[1]))
    return o


def test_triggers_like_mariadb(kiln):
    m = start_private_mariadb(prefix="kiln-trg-")
    try:
        k = kiln.connect()
        mc = m.connect()
        for sql in DIFF:
            assert short(outcome(k, sql)) == short(outcome(mc, sql)), sql
        # The messages a client sees for SIGNAL.
        assert err(k, "INSERT INTO tdiff.s VALUES (9, 13)") == (1644, "unlucky")
        assert err(k, "INSERT INTO tdiff.sig VALUES (2)") == (1234, "custom")
    finally:
        m.cleanup()


# -- kiln alone -----------------------------------------------------------------------------


def setup(server):
    c = server.connect()
    run(c, "CREATE DATABASE tdb")
    run(c, "USE tdb")
    run(c, "CREATE TABLE t (id INT PRIMARY KEY, a INT NOT NULL, b VARCHAR(20))")
    run(c, "CREATE TABLE log (n INT AUTO_INCREMENT PRIMARY KEY, msg VARCHAR(100))")
    return c


def test_mysql_error_texts(kiln):
    c = setup(kiln)
    run(c, "CREATE TRIGGER t1 BEFORE INSERT ON t FOR EACH ROW SET NEW.a = 1")
    assert err(c, "CREATE TRIGGER t1 BEFORE INSERT ON t FOR EACH ROW SET NEW.a = 1") == (
        1359, "Trigger already exists")
    assert err(c, "DROP TRIGGER nosuch") == (1360, "Trigger does not exist")
    assert err(c, "CREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW SET @v = OLD.a") == (
        1363, "There is no OLD row in on INSERT trigger")
    assert err(c, "CREATE TRIGGER x BEFORE DELETE ON t FOR EACH ROW SET @v = NEW.a") == (
        1363, "There is no NEW row in on DELETE trigger")
    assert err(c, "CREATE TRIGGER x AFTER UPDATE ON t FOR EACH ROW SET NEW.a = 1") == (
        1362, "Updating of NEW row is not allowed in after trigger")
    assert err(c, "CREATE TRIGGER x BEFORE UPDATE ON t FOR EACH ROW SET OLD.a = 1") == (
        1362, "Updating of OLD row is not allowed in trigger")
    assert err(c, "CREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW FOLLOWS t9 "
                  "SET @v = 1") == (
        3011, "Referenced trigger 't9' for the given action time and event type does not "
              "exist.")
    run(c, "CREATE TRIGGER self AFTER INSERT ON log FOR EACH ROW "
           "INSERT INTO log (msg) VALUES ('again')")
    assert err(c, "INSERT INTO log (msg) VALUES ('x')") == (
        1442, "Can't update table 'log' in stored function/trigger because it is already "
              "used by statement which invoked this stored function/trigger.")
    assert run(c, "SELECT COUNT(*) FROM log") == ((0,),)
    run(c, "CREATE VIEW v AS SELECT * FROM t")
    assert err(c, "CREATE TRIGGER x BEFORE INSERT ON v FOR EACH ROW SET @v = 1")[0] == 1347
    run(c, "CREATE TEMPORARY TABLE tmp (x INT)")
    assert err(c, "CREATE TRIGGER x BEFORE INSERT ON tmp FOR EACH ROW SET @v = 1") == (
        1361, "Trigger's 'tmp' is view or temporary table")
    # A BEFORE trigger may fill a NOT NULL column the statement left NULL.
    run(c, "INSERT INTO t (id, a) VALUES (1, NULL)")
    assert run(c, "SELECT a FROM t") == ((1,),)
    assert kiln.alive()


def test_show_create_and_information_schema(kiln):
    c = setup(kiln)
    body = "BEGIN\n  INSERT INTO log (msg) VALUES (CONCAT('new ', NEW.id));\nEND"
    run(c, f"CREATE TRIGGER t_ai AFTER INSERT ON t FOR EACH ROW {body}")
    row = run(c, "SHOW CREATE TRIGGER t_ai")[0]
    assert row[0] == "t_ai"
    assert row[2] == ("CREATE DEFINER=`root`@`localhost` TRIGGER `t_ai` AFTER INSERT ON `t` "
                      f"FOR EACH ROW {body}")
    assert row[3] == "utf8mb4" and row[5] == "utf8mb4_0900_ai_ci"
    shown = run(c, "SHOW TRIGGERS")
    assert [r[:5] for r in shown] == [("t_ai", "INSERT", "t", body, "AFTER")]
    assert run(c, "SHOW TRIGGERS LIKE 'nomatch'") == ()
    assert run(c, "SHOW TRIGGERS FROM tdb WHERE `Trigger` = 't_ai'")[0][0] == "t_ai"
    assert run(c, "SELECT ACTION_STATEMENT, DEFINER, ACTION_ORIENTATION FROM "
                  "information_schema.TRIGGERS WHERE TRIGGER_NAME = 't_ai'") == (
        (body, "root@localhost", "ROW"),)
    run(c, "INSERT INTO t VALUES (7, 1, 'x')")
    assert run(c, "SELECT msg FROM log") == (("new 7",),)
    # Statements written through a view fire the table's triggers; so does LOAD DATA.
    run(c, "CREATE VIEW tv AS SELECT id, a FROM t WHERE a > 0")
    run(c, "INSERT INTO tv VALUES (8, 2)")
    assert run(c, "SELECT msg FROM log ORDER BY n") == (("new 7",), ("new 8",))


def test_load_data_fires_insert_triggers(kiln, tmp_path):
    c = setup(kiln)
    run(c, "CREATE TRIGGER t_bi BEFORE INSERT ON t FOR EACH ROW SET NEW.b = CONCAT('<', "
           "NEW.b, '>')")
    run(c, "CREATE TRIGGER t_ai AFTER INSERT ON t FOR EACH ROW "
           "INSERT INTO log (msg) VALUES (NEW.b)")
    path = tmp_path / "rows.txt"
    path.write_text("1\t10\tx\n2\t20\ty\n")
    run(c, "SET GLOBAL local_infile = 1")
    lc = kiln.connect(database="tdb", local_infile=True)
    run(lc, f"LOAD DATA LOCAL INFILE '{path}' INTO TABLE t")
    assert run(c, "SELECT id, b FROM t ORDER BY id") == ((1, "<x>"), (2, "<y>"))
    assert run(c, "SELECT msg FROM log ORDER BY n") == (("<x>",), ("<y>",))


def test_rename_and_drop_table_take_triggers(kiln):
    c = setup(kiln)
    run(c, "CREATE TRIGGER t_bi BEFORE INSERT ON t FOR EACH ROW SET NEW.a = NEW.a + 1")
    run(c, "RENAME TABLE t TO t2")
    assert run(c, "SELECT EVENT_OBJECT_TABLE FROM information_schema.TRIGGERS") == (("t2",),)
    run(c, "INSERT INTO t2 VALUES (1, 1, NULL)")
    assert run(c, "SELECT a FROM t2") == ((2,),)
    run(c, "CREATE DATABASE other")
    assert err(c, "RENAME TABLE t2 TO other.t2") == (1435, "Trigger in wrong schema")
    run(c, "ALTER TABLE t2 ADD COLUMN c INT")
    run(c, "INSERT INTO t2 (id, a) VALUES (2, 1)")
    assert run(c, "SELECT a FROM t2 WHERE id = 2") == ((2,),)
    run(c, "DROP TABLE t2")
    assert run(c, "SELECT COUNT(*) FROM information_schema.TRIGGERS") == ((0,),)
    run(c, "CREATE TABLE t2 (id INT PRIMARY KEY, a INT)")
    run(c, "INSERT INTO t2 VALUES (1, 1)")
    assert run(c, "SELECT a FROM t2") == ((1,),)
    run(c, "CREATE TRIGGER again BEFORE INSERT ON t2 FOR EACH ROW SET NEW.a = 5")
    run(c, "DROP DATABASE tdb")
    assert run(c, "SELECT COUNT(*) FROM information_schema.TRIGGERS") == ((0,),)


def test_trigger_privilege(kiln):
    root = setup(kiln)
    run(root, "CREATE USER 'tu'@'%' IDENTIFIED BY 'pw'")
    run(root, "GRANT SELECT, INSERT ON tdb.* TO 'tu'@'%'")
    u = kiln.connect(user="tu", password="pw", database="tdb")
    e = err(u, "CREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW SET NEW.a = 1")
    assert e[0] == 1142 and "TRIGGER command denied" in e[1]
    run(root, "CREATE TRIGGER byroot BEFORE INSERT ON t FOR EACH ROW SET NEW.a = 9")
    assert err(u, "DROP TRIGGER byroot")[0] == 1142
    assert run(u, "SHOW TRIGGERS") == ()
    run(root, "GRANT TRIGGER ON tdb.t TO 'tu'@'%'")
    u2 = kiln.connect(user="tu", password="pw", database="tdb")
    run(u2, "CREATE TRIGGER mine AFTER INSERT ON t FOR EACH ROW SET @m = NEW.a")
    assert [r[0] for r in run(u2, "SHOW TRIGGERS")] == ["byroot", "mine"]
    assert err(u2, "CREATE DEFINER = root@localhost TRIGGER x BEFORE UPDATE ON t "
                   "FOR EACH ROW SET @v = 1")[0] == 1227
    run(u2, "INSERT INTO t VALUES (1, 1, NULL)")
    assert run(u2, "SELECT a, @m FROM t") == ((9, 9),)
    run(u2, "DROP TRIGGER byroot")
    # SQL SECURITY DEFINER: root's trigger writes `log`, which tu may not write; tu's
    # own trigger may not (1142 for its definer), and CURRENT_USER() is the definer.
    run(root, "REVOKE INSERT ON tdb.* FROM 'tu'@'%'")
    run(root, "GRANT INSERT ON tdb.t TO 'tu'@'%'")
    run(root, "CREATE TRIGGER audit_root AFTER INSERT ON t FOR EACH ROW "
              "INSERT INTO log (msg) VALUES (CONCAT(USER(), ' as ', CURRENT_USER()))")
    u3 = kiln.connect(user="tu", password="pw", database="tdb")
    assert err(u3, "INSERT INTO log (msg) VALUES ('direct')")[0] == 1142
    run(u3, "INSERT INTO t VALUES (2, 1, NULL)")
    assert run(root, "SELECT msg FROM log") == (("tu@localhost as root@localhost",),)
    run(u3, "CREATE TRIGGER audit_tu AFTER INSERT ON t FOR EACH ROW "
            "INSERT INTO log (msg) VALUES ('by tu')")
    e = err(u3, "INSERT INTO t VALUES (3, 1, NULL)")
    assert e[0] == 1142 and "INSERT command denied to user 'tu'" in e[1], e
    assert run(root, "SELECT COUNT(*) FROM t") == ((2,),)
    # A definer that no longer exists: 1449 when the trigger fires.
    run(root, "DROP TRIGGER audit_root")
    run(root, "DROP USER 'tu'@'%'")
    assert err(root, "INSERT INTO t VALUES (4, 1, NULL)") == (
        1449, "The user specified as a definer ('tu'@'%') does not exist")


def test_triggers_survive_restart_and_crash(kiln_factory):
    s = kiln_factory()
    c = setup(s)
    run(c, "CREATE TRIGGER t_bi BEFORE INSERT ON t FOR EACH ROW SET NEW.a = NEW.a * 2")
    run(c, "CREATE TRIGGER gone BEFORE INSERT ON t FOR EACH ROW SET @g = 1")
    run(c, "DROP TRIGGER gone")
    before = run(c, "SHOW CREATE TRIGGER t_bi")[0][:6]
    c.close()
    assert s.stop() == 0, s.diagnostics()
    kiln_factory.servers.remove(s)
    s2 = kiln_factory(datadir=s.datadir)
    c2 = s2.connect(database="tdb")
    assert run(c2, "SHOW CREATE TRIGGER t_bi")[0][:6] == before
    assert err(c2, "SHOW CREATE TRIGGER gone")[0] == 1360
    run(c2, "INSERT INTO t VALUES (1, 21, NULL)")
    assert run(c2, "SELECT a FROM t") == ((42,),)
    # A crash right after CREATE TRIGGER returned: the trigger is there.
    run(c2, "CREATE TRIGGER durable AFTER INSERT ON t FOR EACH ROW "
            "INSERT INTO log (msg) VALUES ('durable')")
    s2.kill()
    kiln_factory.servers.remove(s2)
    s3 = kiln_factory(datadir=s.datadir)
    s3.query("INSERT INTO tdb.t VALUES (2, 1, NULL)")
    assert s3.query("SELECT msg FROM tdb.log") == (("durable",),)


def test_malformed_trigger_statements(kiln):
    c = setup(kiln)
    for sql in [
        "CREATE TRIGGER",
        "CREATE TRIGGER x BEFORE INSERT ON t",
        "CREATE TRIGGER x DURING INSERT ON t FOR EACH ROW SET @a = 1",
        "CREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW BEGIN SET @a = 1",
        "CREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW IF 1 THEN SET @a = 1; END",
        "CREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW WHILE 1 DO END WHILE",
        "CREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW SET NEW.a = ?",
        "DROP TRIGGER",
        "SHOW CREATE TRIGGER",
    ]:
        assert err(c, sql)[0] == 1064, sql
    # A runaway loop is bounded; the statement fails and leaves nothing.
    run(c, "CREATE TRIGGER spin BEFORE INSERT ON t FOR EACH ROW BEGIN "
           "DECLARE i INT DEFAULT 0; WHILE 1 DO SET i = i + 1; END WHILE; END")
    assert err(c, "INSERT INTO t VALUES (1, 1, NULL)")[0] == 1235
    assert run(c, "SELECT COUNT(*) FROM t") == ((0,),)
    assert kiln.alive()


# -- mysqldump ------------------------------------------------------------------------------

DUMP = shutil.which("mariadb-dump") or shutil.which("mysqldump")


@pytest.mark.skipif(DUMP is None or shutil.which("mariadb") is None,
                    reason="mariadb client tools not installed")
def test_dump_with_triggers_restores_identically(kiln_factory):
    a = kiln_factory()
    for sql in [
        "CREATE DATABASE dumpdb",
        "CREATE TABLE dumpdb.items (id INT PRIMARY KEY, name VARCHAR(20), qty INT)",
        "CREATE TABLE dumpdb.hist (n INT AUTO_INCREMENT PRIMARY KEY, what VARCHAR(50))",
        "INSERT INTO dumpdb.items VALUES (1, 'pen', 3)",
        "CREATE TRIGGER dumpdb.items_bi BEFORE INSERT ON dumpdb.items FOR EACH ROW "
        "SET NEW.name = LOWER(NEW.name)",
        "CREATE TRIGGER dumpdb.items_bi2 BEFORE INSERT ON dumpdb.items FOR EACH ROW "
        "SET NEW.qty = IFNULL(NEW.qty, 0)",
        "CREATE TRIGGER dumpdb.items_au AFTER UPDATE ON dumpdb.items FOR EACH ROW BEGIN\n"
        "  DECLARE msg VARCHAR(50) DEFAULT 'qty';\n"
        "  IF NEW.qty <> OLD.qty THEN\n"
        "    INSERT INTO hist (what) VALUES (CONCAT(msg, ' ', OLD.qty, '->', NEW.qty));\n"
        "  END IF;\n"
        "END",
    ]:
        a.query(sql)

    def dump(server):
        p = subprocess.run([DUMP, "-uroot", "--skip-dump-date", f"--socket={server.socket}",
                            "--databases", "dumpdb"], capture_output=True, timeout=60)
        assert p.returncode == 0, p.stderr.decode(errors="replace")
        return p.stdout

    first = dump(a)
    text = first.decode()
    assert "DELIMITER ;;" in text
    assert "/*!50003 CREATE*/ /*!50017 DEFINER=`root`@`localhost`*/ /*!50003 TRIGGER " \
           "`items_bi` BEFORE INSERT ON `items` FOR EACH ROW" in text
    b = kiln_factory()
    p = subprocess.run(["mariadb", "-uroot", f"--socket={b.socket}"], input=first,
                       capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    second = dump(b)
    assert first == second, "\n".join(
        f"- {x!r}\n+ {y!r}" for x, y in zip(first.splitlines(), second.splitlines()) if x != y
    )
    # The restored triggers work, in their order.
    b.query("INSERT INTO dumpdb.items (id, name) VALUES (2, 'INK')")
    b.query("UPDATE dumpdb.items SET qty = 5 WHERE id = 1")
    assert b.query("SELECT * FROM dumpdb.items ORDER BY id") == ((1, "pen", 5), (2, "ink", 0))
    assert b.query("SELECT what FROM dumpdb.hist") == (("qty 3->5",),)
