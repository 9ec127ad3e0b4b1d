"""The SQL layer through real clients: DDL and DML round trips, result correctness,
result metadata, affected-row counts and OK-packet info strings, LAST_INSERT_ID(),
AUTO_INCREMENT (MySQL 8: persistent, never goes back), restart persistence after
SIGTERM and SIGKILL, and server-side prepared statements (mysql.connector).

The reference is MySQL 8.0: a failing assertion here is a difference from MySQL.
Most tests share one server (`kiln_shared`) and work in a database of their own;
restart tests start their own servers.
"""

import itertools
import signal
from decimal import Decimal
from types import SimpleNamespace

import mysql.connector
import pymysql
import pytest
from pymysql.constants import CLIENT, FIELD_TYPE

# -- helpers -----------------------------------------------------------------------

_ids = itertools.count(1)


def run(conn, sql, args=None):
    """Executes one statement; returns (rows as a list of tuples, affected rows)."""
    with conn.cursor() as cur:
        n = cur.execute(sql, args)
        return [tuple(r) for r in cur.fetchall()], n


def rows(conn, sql, args=None):
    return run(conn, sql, args)[0]


def val(conn, sql):
    r = rows(conn, sql)
    assert len(r) == 1 and len(r[0]) == 1, r
    return r[0][0]


def affected(conn, sql, args=None):
    return run(conn, sql, args)[1]


def info(conn):
    """The OK packet's info text ('Records: ...', 'Rows matched: ...') of the last
    statement. MySQL stores it as a length-encoded string (net_store_data); PyMySQL
    hands back the raw rest of the packet, so the length byte is stripped here when
    present. test_ok_packet_info_is_length_encoded checks the framing itself."""
    m = conn._result.message or b""
    if m and m[0] == len(m) - 1:
        m = m[1:]
    return m.decode()


def text(v):
    return v.decode() if isinstance(v, (bytes, bytearray)) else v


def norm(rs):
    return [tuple(text(v) for v in r) for r in rs]


def warnings(conn):
    return [(text(a), b, text(c)) for a, b, c in rows(conn, "SHOW WARNINGS")]


def status(conn, name):
    r = rows(conn, f"SHOW GLOBAL STATUS LIKE '{name}'")
    assert r, f"status variable {name} missing"
    return int(r[0][1])


@pytest.fixture
def db(kiln_shared):
    """A database of this test's own on the module's server: .name, .conn (PyMySQL,
    autocommit on, the database selected), .connect(**kw) for more connections."""
    name = f"sqlb{next(_ids)}"
    admin = kiln_shared.connect()
    run(admin, f"CREATE DATABASE {name}")
    conns = []

    def connect(**kw):
        c = kiln_shared.connect(database=name, **kw)
        conns.append(c)
        return c

    ns = SimpleNamespace(name=name, server=kiln_shared, connect=connect)
    ns.conn = connect()
    yield ns
    for c in conns:
        try:
            c.close()
        except Exception:
            pass
    try:
        run(admin, f"DROP DATABASE IF EXISTS {name}")
    finally:
        admin.close()


def restart(factory, server, how):
    """Stops `server` by SIGTERM (clean, must exit 0) or SIGKILL and starts a new
    server on the same datadir."""
    d = server.datadir
    if how == "sigterm":
        assert server.stop(signal.SIGTERM) == 0, server.diagnostics()
    else:
        server.kill()
        factory.servers.remove(server)  # killed on purpose: not a failed exit
    return factory(datadir=d)


# -- CREATE / DROP DATABASE, SHOW TABLES ----------------------------------------------


def test_create_use_and_drop_database(db):
    c = db.conn
    name = db.name + "x"
    assert affected(c, f"CREATE DATABASE {name}") == 1
    assert (name,) in norm(rows(c, "SHOW DATABASES"))
    run(c, f"USE {name}")
    assert val(c, "SELECT DATABASE()") == name
    run(c, "CREATE TABLE a (i INT)")
    run(c, "CREATE TABLE b (i INT)")
    run(c, "INSERT INTO a VALUES (1)")
    run(c, f"USE {db.name}")
    assert rows(c, f"SELECT i FROM {name}.a") == [(1,)]
    # DROP DATABASE reports the number of tables it removed.
    assert affected(c, f"DROP DATABASE {name}") == 2
    assert (name,) not in norm(rows(c, "SHOW DATABASES"))


def test_if_exists_and_if_not_exists_give_notes(db):
    c = db.conn
    n = db.name
    run(c, "CREATE TABLE t (i INT)")
    with c.cursor() as cur:
        cur.execute(f"CREATE DATABASE IF NOT EXISTS {n}")
        assert cur.warning_count == 1
    assert warnings(c) == [("Note", 1007, f"Can't create database '{n}'; database exists")]
    run(c, f"DROP DATABASE IF EXISTS {n}_nope")
    assert warnings(c) == [
        ("Note", 1008, f"Can't drop database '{n}_nope'; database doesn't exist")
    ]
    run(c, "CREATE TABLE IF NOT EXISTS t (j INT)")
    assert warnings(c) == [("Note", 1050, "Table 't' already exists")]
    assert [r[0] for r in norm(rows(c, "DESCRIBE t"))] == ["i"]  # untouched
    run(c, "DROP TABLE IF EXISTS nope")
    assert warnings(c) == [("Note", 1051, f"Unknown table '{n}.nope'")]


def test_show_tables_sorted_with_mysql_column_name(db):
    c = db.conn
    for t in ["zeta", "alpha", "mid"]:
        run(c, f"CREATE TABLE {t} (i INT)")
    with c.cursor() as cur:
        cur.execute("SHOW TABLES")
        assert cur.description[0][0] == f"Tables_in_{db.name}"
        assert norm(cur.fetchall()) == [("alpha",), ("mid",), ("zeta",)]


def test_show_tables_like_column_name(db):
    c = db.conn
    for t in ["zeta", "alpha", "mid"]:
        run(c, f"CREATE TABLE {t} (i INT)")
    with c.cursor() as cur:
        cur.execute("SHOW TABLES LIKE 'm%'")
        assert cur.description[0][0] == f"Tables_in_{db.name} (m%)"
        assert norm(cur.fetchall()) == [("mid",)]


# -- CREATE TABLE and the SHOW statements ------------------------------------------

SAMPLE_DDL = """CREATE TABLE t (
  id INT NOT NULL AUTO_INCREMENT,
  name VARCHAR(20) NOT NULL DEFAULT 'x',
  qty INT DEFAULT 5,
  price DECIMAL(10,2) DEFAULT NULL,
  ratio DOUBLE,
  code CHAR(3),
  big BIGINT UNSIGNED,
  note TEXT,
  PRIMARY KEY (id),
  UNIQUE KEY uname (name),
  KEY kqty (qty, code)
)"""

SAMPLE_SHOW_CREATE = """CREATE TABLE `t` (
  `id` int NOT NULL AUTO_INCREMENT,
  `name` varchar(20) NOT NULL DEFAULT 'x',
  `qty` int DEFAULT '5',
  `price` decimal(10,2) DEFAULT NULL,
  `ratio` double DEFAULT NULL,
  `code` char(3) DEFAULT NULL,
  `big` bigint unsigned DEFAULT NULL,
  `note` text,
  PRIMARY KEY (`id`),
  UNIQUE KEY `uname` (`name`),
  KEY `kqty` (`qty`,`code`)
) ENGINE=InnoDB{ai} DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci"""


def test_show_create_table_is_mysql_8_text(db):
    c = db.conn
    run(c, SAMPLE_DDL)
    assert norm(rows(c, "SHOW CREATE TABLE t")) == [
        ("t", SAMPLE_SHOW_CREATE.format(ai=""))
    ]
    run(c, "INSERT INTO t (name) VALUES ('a'), ('b')")
    assert norm(rows(c, "SHOW CREATE TABLE t")) == [
        ("t", SAMPLE_SHOW_CREATE.format(ai=" AUTO_INCREMENT=3"))
    ]


def test_describe_and_show_columns(db):
    c = db.conn
    run(c, SAMPLE_DDL)
    expected = [
        ("id", "int", "NO", "PRI", None, "auto_increment"),
        ("name", "varchar(20)", "NO", "UNI", "x", ""),
        ("qty", "int", "YES", "MUL", "5", ""),
        ("price", "decimal(10,2)", "YES", "", None, ""),
        ("ratio", "double", "YES", "", None, ""),
        ("code", "char(3)", "YES", "", None, ""),
        ("big", "bigint unsigned", "YES", "", None, ""),
        ("note", "text", "YES", "", None, ""),
    ]
    with c.cursor() as cur:
        cur.execute("DESCRIBE t")
        assert [d[0] for d in cur.description] == [
            "Field", "Type", "Null", "Key", "Default", "Extra"
        ]
        assert norm(cur.fetchall()) == expected
    assert norm(rows(c, "SHOW COLUMNS FROM t")) == expected
    assert norm(rows(c, f"SHOW COLUMNS FROM t FROM {db.name}")) == expected
    assert norm(rows(c, "DESC t")) == expected


def test_show_index(db):
    c = db.conn
    run(c, SAMPLE_DDL)
    with c.cursor() as cur:
        cur.execute("SHOW INDEX FROM t")
        assert [d[0] for d in cur.description] == [
            "Table", "Non_unique", "Key_name", "Seq_in_index", "Column_name",
            "Collation", "Cardinality", "Sub_part", "Packed", "Null",
            "Index_type", "Comment", "Index_comment", "Visible", "Expression",
        ]
        got = [
            (r[0], r[1], r[2], r[3], r[4], r[5], r[7], r[8], r[9], r[10], r[13], r[14])
            for r in norm(cur.fetchall())
        ]
    assert got == [
        ("t", 0, "PRIMARY", 1, "id", "A", None, None, "", "BTREE", "YES", None),
        ("t", 0, "uname", 1, "name", "A", None, None, "", "BTREE", "YES", None),
        ("t", 1, "kqty", 1, "qty", "A", None, None, "YES", "BTREE", "YES", None),
        ("t", 1, "kqty", 2, "code", "A", None, None, "YES", "BTREE", "YES", None),
    ]


def test_show_table_status(db):
    c = db.conn
    run(c, SAMPLE_DDL)
    run(c, "INSERT INTO t (name) VALUES ('a'), ('b')")
    with c.cursor() as cur:
        cur.execute("SHOW TABLE STATUS LIKE 't'")
        names = [d[0] for d in cur.description]
        r = norm(cur.fetchall())
    assert names == [
        "Name", "Engine", "Version", "Row_format", "Rows", "Avg_row_length",
        "Data_length", "Max_data_length", "Index_length", "Data_free",
        "Auto_increment", "Create_time", "Update_time", "Check_time", "Collation",
        "Checksum", "Create_options", "Comment",
    ]
    assert len(r) == 1
    st = dict(zip(names, r[0]))
    assert st["Name"] == "t"
    assert st["Engine"] == "InnoDB"
    assert st["Version"] == 10
    assert st["Row_format"] == "Dynamic"
    assert st["Auto_increment"] == 3
    assert st["Collation"] == "utf8mb4_0900_ai_ci"
    # InnoDB's sizes: one page per index of a small table, and Data_length / Rows.
    assert st["Data_length"] == 16384
    assert st["Index_length"] == 2 * 16384
    assert st["Avg_row_length"] == 8192


def test_table_sizes_follow_the_data(db):
    c = db.conn
    run(c, "CREATE TABLE big (id INT AUTO_INCREMENT PRIMARY KEY, k INT, pad CHAR(200), KEY (k))")
    for _ in range(10):
        values = ", ".join(f"({i}, REPEAT('x', 200))" for i in range(500))
        run(c, f"INSERT INTO big (k, pad) VALUES {values}")
    with c.cursor() as cur:
        cur.execute("SHOW TABLE STATUS LIKE 'big'")
        st = dict(zip([d[0] for d in cur.description], cur.fetchone()))
    # 5,000 rows of ~210 bytes: ~1 MB of rows in about 70-130 pages.
    assert 1_000_000 <= st["Data_length"] <= 3_000_000, st
    assert st["Data_length"] % 16384 == 0
    assert 16384 <= st["Index_length"] < st["Data_length"], st
    assert 200 <= st["Avg_row_length"] <= 600, st
    got = rows(c, "SELECT table_rows, avg_row_length, data_length, index_length "
                  "FROM information_schema.tables WHERE table_name = 'big'")
    assert got == [(st["Rows"], st["Avg_row_length"], st["Data_length"], st["Index_length"])]


def test_default_values(db):
    c = db.conn
    run(c, SAMPLE_DDL)
    run(c, "INSERT INTO t (name) VALUES ('a')")
    run(c, "INSERT INTO t (name, qty) VALUES ('n', DEFAULT)")
    run(c, "INSERT INTO t (id, name, qty, price) VALUES (DEFAULT, DEFAULT, 9, DEFAULT)")
    assert rows(c, "SELECT id, name, qty, price, ratio, code, big, note FROM t ORDER BY id") == [
        (1, "a", 5, None, None, None, None, None),
        (2, "n", 5, None, None, None, None, None),
        (3, "x", 9, None, None, None, None, None),
    ]


def test_insert_empty_values_list_uses_all_defaults(db):
    c = db.conn
    run(c, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(5) NOT NULL DEFAULT 'x', qty INT DEFAULT 5)")
    assert affected(c, "INSERT INTO t () VALUES ()") == 1
    assert affected(c, "INSERT INTO t VALUES ()") == 1
    assert affected(c, "INSERT INTO t () VALUES (), ()") == 2
    assert rows(c, "SELECT id, name, qty FROM t ORDER BY id") == [
        (1, "x", 5), (2, "x", 5), (3, "x", 5), (4, "x", 5)
    ]


def test_default_function(db):
    c = db.conn
    run(c, SAMPLE_DDL)
    run(c, "INSERT INTO t SET name = 'm', qty = DEFAULT(qty) + 1")
    assert rows(c, "SELECT name, qty FROM t") == [("m", 6)]


# -- ALTER / TRUNCATE / RENAME / DROP ----------------------------------------------


def test_alter_table_columns_keep_data(db):
    c = db.conn
    run(c, "CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(5))")
    run(c, "INSERT INTO t VALUES (1, 'x'), (2, 'y')")

    assert affected(c, "ALTER TABLE t ADD COLUMN b INT NOT NULL DEFAULT 7") == 0
    assert rows(c, "SELECT id, a, b FROM t ORDER BY id") == [(1, "x", 7), (2, "y", 7)]

    run(c, "ALTER TABLE t ADD COLUMN z INT AFTER id")
    assert [r[0] for r in norm(rows(c, "DESCRIBE t"))] == ["id", "z", "a", "b"]
    run(c, "ALTER TABLE t ADD COLUMN f INT FIRST")
    assert [r[0] for r in norm(rows(c, "DESCRIBE t"))] == ["f", "id", "z", "a", "b"]

    run(c, "ALTER TABLE t MODIFY COLUMN a VARCHAR(50) NOT NULL")
    assert norm(rows(c, "DESCRIBE t"))[3][:3] == ("a", "varchar(50)", "NO")
    run(c, "INSERT INTO t (id, a) VALUES (3, 'a-much-longer-value')")

    run(c, "ALTER TABLE t MODIFY b BIGINT")
    assert norm(rows(c, "DESCRIBE t"))[4][:2] == ("b", "bigint")
    assert rows(c, "SELECT id, b FROM t ORDER BY id") == [(1, 7), (2, 7), (3, 7)]

    run(c, "ALTER TABLE t CHANGE a label VARCHAR(50)")
    run(c, "ALTER TABLE t RENAME COLUMN b TO amount")
    run(c, "ALTER TABLE t DROP COLUMN z, DROP COLUMN f")
    assert [r[0] for r in norm(rows(c, "DESCRIBE t"))] == ["id", "label", "amount"]
    assert rows(c, "SELECT id, label, amount FROM t ORDER BY id") == [
        (1, "x", 7), (2, "y", 7), (3, "a-much-longer-value", 7)
    ]
    with pytest.raises(pymysql.MySQLError) as e:
        rows(c, "SELECT a FROM t")
    assert e.value.args[0] == 1054


def test_alter_table_indexes_and_rename(db):
    c = db.conn
    run(c, "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(10))")
    run(c, "INSERT INTO t VALUES (1, 10, 'p'), (2, 20, 'q'), (3, 20, 'r')")
    assert affected(c, "ALTER TABLE t ADD INDEX ka (a)") == 0
    run(c, "ALTER TABLE t ADD UNIQUE KEY ub (b)")
    keys = [(r[2], r[4]) for r in norm(rows(c, "SHOW INDEX FROM t"))]
    assert keys == [("PRIMARY", "id"), ("ub", "b"), ("ka", "a")]
    assert rows(c, "SELECT id FROM t WHERE a = 20 ORDER BY id") == [(2,), (3,)]
    with pytest.raises(pymysql.MySQLError) as e:
        run(c, "INSERT INTO t VALUES (4, 40, 'p')")
    assert e.value.args == (1062, "Duplicate entry 'p' for key 't.ub'")
    run(c, "ALTER TABLE t DROP INDEX ka")
    run(c, "DROP INDEX ub ON t")
    run(c, "CREATE INDEX kab ON t (a, b)")
    keys = [(r[2], r[3], r[4]) for r in norm(rows(c, "SHOW INDEX FROM t"))]
    assert keys == [("PRIMARY", 1, "id"), ("kab", 1, "a"), ("kab", 2, "b")]
    run(c, "INSERT INTO t VALUES (4, 40, 'p')")  # no longer unique
    run(c, "ALTER TABLE t RENAME TO t2")
    assert norm(rows(c, "SHOW TABLES")) == [("t2",)]
    assert rows(c, "SELECT COUNT(*) FROM t2 WHERE a = 20") == [(2,)]


def test_alter_table_without_primary_key(db):
    """A table without a PRIMARY KEY (InnoDB's hidden GEN_CLUST_INDEX) can be
    altered like any other."""
    c = db.conn
    run(c, "CREATE TABLE np (a INT, b VARCHAR(5))")
    run(c, "INSERT INTO np VALUES (1, 'x'), (2, 'y'), (2, 'y')")
    run(c, "ALTER TABLE np ADD COLUMN d INT DEFAULT 4")
    run(c, "ALTER TABLE np RENAME COLUMN b TO c")
    run(c, "ALTER TABLE np ADD INDEX ka (a)")
    run(c, "ALTER TABLE np RENAME TO np2")
    assert [r[0] for r in norm(rows(c, "DESCRIBE np2"))] == ["a", "c", "d"]
    assert rows(c, "SELECT a, c, d FROM np2 ORDER BY a") == [(1, "x", 4), (2, "y", 4), (2, "y", 4)]
    run(c, "ALTER TABLE np2 DROP COLUMN d")
    assert rows(c, "SELECT * FROM np2 WHERE a = 2") == [(2, "y"), (2, "y")]


def test_alter_table_info_string(db):
    """The mysql client prints it under 'Query OK': ALTER TABLE always reports
    Records/Duplicates/Warnings (0 records for in-place and instant changes)."""
    c = db.conn
    run(c, "CREATE TABLE t (id INT PRIMARY KEY, a INT)")
    run(c, "INSERT INTO t VALUES (1, 1), (2, 2)")
    assert affected(c, "ALTER TABLE t ADD COLUMN b INT") == 0
    assert info(c) == "Records: 0  Duplicates: 0  Warnings: 0"
    assert affected(c, "ALTER TABLE t ADD INDEX ka (a)") == 0
    assert info(c) == "Records: 0  Duplicates: 0  Warnings: 0"
    assert affected(c, "ALTER TABLE t DROP INDEX ka") == 0
    assert info(c) == "Records: 0  Duplicates: 0  Warnings: 0"


def test_truncate_empties_table_and_resets_auto_increment(db):
    c = db.conn
    run(c, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    run(c, "INSERT INTO t (v) VALUES (1), (2), (3)")
    assert affected(c, "TRUNCATE TABLE t") == 0
    assert rows(c, "SELECT COUNT(*) FROM t") == [(0,)]
    run(c, "INSERT INTO t (v) VALUES (9)")
    assert rows(c, "SELECT id, v FROM t") == [(1, 9)]
    run(c, "TRUNCATE t")
    assert rows(c, "SELECT * FROM t") == []


def test_rename_table_multiple_and_across_databases(db):
    c = db.conn
    other = db.name + "o"
    run(c, f"CREATE DATABASE {other}")
    try:
        run(c, "CREATE TABLE a (i INT)")
        run(c, "CREATE TABLE b (i INT)")
        run(c, "INSERT INTO a VALUES (1)")
        run(c, "INSERT INTO b VALUES (2)")
        # A swap in one statement: a -> tmp, b -> a, tmp -> b.
        run(c, "RENAME TABLE a TO tmp, b TO a, tmp TO b")
        assert rows(c, "SELECT i FROM a") == [(2,)]
        assert rows(c, "SELECT i FROM b") == [(1,)]
        run(c, f"RENAME TABLE b TO {other}.moved")
        assert norm(rows(c, "SHOW TABLES")) == [("a",)]
        assert rows(c, f"SELECT i FROM {other}.moved") == [(1,)]
    finally:
        run(c, f"DROP DATABASE IF EXISTS {other}")


def test_drop_table_several(db):
    c = db.conn
    for t in "abc":
        run(c, f"CREATE TABLE {t} (i INT)")
    assert affected(c, "DROP TABLE a, b") == 0
    assert norm(rows(c, "SHOW TABLES")) == [("c",)]


# -- INSERT and its variants ---------------------------------------------------------


def test_ok_packet_info_is_length_encoded(db):
    """MySQL's net_send_ok stores the info text with net_store_data, i.e. as a
    length-encoded string, also for clients without CLIENT_SESSION_TRACK (PyMySQL):
    libmysqlclient reads it with net_field_length()."""
    c = db.conn
    run(c, "CREATE TABLE t (i INT)")
    run(c, "INSERT INTO t VALUES (1), (2)")
    text_ = b"Records: 2  Duplicates: 0  Warnings: 0"
    assert c._result.message == bytes([len(text_)]) + text_
    run(c, "UPDATE t SET i = i + 1")
    text_ = b"Rows matched: 2  Changed: 2  Warnings: 0"
    assert c._result.message == bytes([len(text_)]) + text_


def test_insert_counts_and_info(db):
    c = db.conn
    run(c, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))")
    assert affected(c, "INSERT INTO t VALUES (1, 'a')") == 1
    assert info(c) == ""
    assert affected(c, "INSERT INTO t VALUES (2, 'b'), (3, 'c'), (4, NULL)") == 3
    assert info(c) == "Records: 3  Duplicates: 0  Warnings: 0"
    assert affected(c, "INSERT INTO t SET id = 5, v = 'e'") == 1
    assert info(c) == ""
    assert affected(c, "INSERT INTO t (v, id) VALUES ('f', 6)") == 1
    assert rows(c, "SELECT * FROM t ORDER BY id") == [
        (1, "a"), (2, "b"), (3, "c"), (4, None), (5, "e"), (6, "f")
    ]


def test_insert_ignore(db):
    c = db.conn
    run(c, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))")
    run(c, "INSERT INTO t VALUES (1, 'old')")
    with c.cursor() as cur:
        assert cur.execute("INSERT IGNORE INTO t VALUES (1, 'new'), (2, 'b'), (2, 'c')") == 1
        assert cur.warning_count == 2
    got_info = info(c)
    assert warnings(c) == [
        ("Warning", 1062, "Duplicate entry '1' for key 't.PRIMARY'"),
        ("Warning", 1062, "Duplicate entry '2' for key 't.PRIMARY'"),
    ]
    assert rows(c, "SELECT * FROM t ORDER BY id") == [(1, "old"), (2, "b")]
    # A single-row INSERT IGNORE that inserts nothing: 0 rows, no error.
    assert affected(c, "INSERT IGNORE INTO t VALUES (1, 'x')") == 0
    assert got_info == "Records: 3  Duplicates: 2  Warnings: 2"


def test_insert_on_duplicate_key_update_counts(db):
    c = db.conn
    run(c, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10), n INT)")
    run(c, "INSERT INTO t VALUES (1, 'a', 0)")
    # 1 per inserted row, 2 per updated row, 0 for a row set to its current values.
    assert affected(c, "INSERT INTO t VALUES (2, 'b', 0) ON DUPLICATE KEY UPDATE n = n + 1") == 1
    assert affected(c, "INSERT INTO t VALUES (1, 'z', 0) ON DUPLICATE KEY UPDATE n = n + 1") == 2
    assert affected(c, "INSERT INTO t VALUES (1, 'z', 0) ON DUPLICATE KEY UPDATE n = n") == 0
    assert affected(
        c, "INSERT INTO t VALUES (1, 'z', 0), (3, 'c', 0) ON DUPLICATE KEY UPDATE n = n + 10"
    ) == 3
    got_info = info(c)
    assert affected(c, "INSERT INTO t VALUES (3, 'new', 5) ON DUPLICATE KEY UPDATE v = VALUES(v)") == 2
    assert rows(c, "SELECT * FROM t ORDER BY id") == [(1, "a", 11), (2, "b", 0), (3, "new", 0)]
    assert got_info == "Records: 2  Duplicates: 1  Warnings: 0"


def test_insert_on_duplicate_key_update_with_found_rows(db):
    c = db.connect(client_flag=CLIENT.FOUND_ROWS)
    run(c, "CREATE TABLE t (id INT PRIMARY KEY, n INT)")
    run(c, "INSERT INTO t VALUES (1, 0)")
    # With CLIENT_FOUND_ROWS a row set to its current values counts 1, not 0.
    assert affected(c, "INSERT INTO t VALUES (1, 0) ON DUPLICATE KEY UPDATE n = n") == 1
    assert affected(c, "INSERT INTO t VALUES (1, 0) ON DUPLICATE KEY UPDATE n = n + 1") == 2


def test_replace_counts(db):
    c = db.conn
    run(c, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10), UNIQUE KEY uv (v))")
    assert affected(c, "REPLACE INTO t VALUES (1, 'a')") == 1
    assert affected(c, "REPLACE INTO t VALUES (1, 'aa')") == 2
    assert affected(c, "REPLACE INTO t VALUES (1, 'a1'), (2, 'b')") == 3
    got_info = info(c)
    # The new row collides with two rows (primary key and unique key): both go.
    assert affected(c, "REPLACE INTO t VALUES (1, 'b')") == 3
    assert rows(c, "SELECT * FROM t ORDER BY id") == [(1, "b")]
    assert affected(c, "REPLACE INTO t SET id = 7, v = 'q'") == 1
    assert rows(c, "SELECT * FROM t ORDER BY id") == [(1, "b"), (7, "q")]
    assert got_info == "Records: 2  Duplicates: 1  Warnings: 0"


def test_insert_select(db):
    c = db.conn
    run(c, "CREATE TABLE src (id INT PRIMARY KEY, v INT)")
    run(c, "CREATE TABLE dst (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    run(c, "INSERT INTO src VALUES (1, 10), (2, 20), (3, 30)")
    assert affected(c, "INSERT INTO dst (v) SELECT v FROM src WHERE v > 10 ORDER BY id") == 2
    assert info(c) == "Records: 2  Duplicates: 0  Warnings: 0"
    assert affected(c, "INSERT INTO dst (v) SELECT v FROM src WHERE id = 1") == 1
    assert info(c) == "Records: 1  Duplicates: 0  Warnings: 0"
    # The target table may be read by its own SELECT.
    assert affected(c, "INSERT INTO dst (v) SELECT v + 1 FROM dst ORDER BY id") == 3
    # (INSERT ... SELECT reserves AUTO_INCREMENT values in batches: ids may have gaps.)
    got = rows(c, "SELECT id, v FROM dst ORDER BY id")
    assert [v for _, v in got] == [20, 30, 10, 21, 31, 11]
    assert [i for i, _ in got][:2] == [1, 2]
    run(c, "DELETE FROM src")
    run(c, "INSERT INTO src VALUES (1, 0), (2, 0), (3, 0)")
    run(c, "INSERT INTO src SELECT id + 100, v FROM dst WHERE v > 20")
    assert affected(c, "INSERT IGNORE INTO src SELECT id + 100, v FROM dst") == 3
    assert info(c) == "Records: 6  Duplicates: 3  Warnings: 3"


# -- UPDATE / DELETE ---------------------------------------------------------------


def test_update_affected_rows_without_and_with_found_rows(db):
    c = db.conn
    run(c, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))")
    run(c, "INSERT INTO t VALUES (1, 'same'), (2, 'other'), (3, 'x')")
    # Without CLIENT_FOUND_ROWS: affected = changed rows.
    assert affected(c, "UPDATE t SET v = 'same' WHERE id IN (1, 2)") == 1
    assert info(c) == "Rows matched: 2  Changed: 1  Warnings: 0"
    assert affected(c, "UPDATE t SET v = 'same' WHERE id = 99") == 0
    assert info(c) == "Rows matched: 0  Changed: 0  Warnings: 0"
    # With CLIENT_FOUND_ROWS: affected = matched rows.
    f = db.connect(client_flag=CLIENT.FOUND_ROWS)
    assert affected(f, "UPDATE t SET v = 'same' WHERE id IN (1, 2, 3)") == 3
    assert info(f) == "Rows matched: 3  Changed: 1  Warnings: 0"
    assert affected(f, "UPDATE t SET v = 'same' WHERE id IN (1, 2, 3)") == 3
    assert info(f) == "Rows matched: 3  Changed: 0  Warnings: 0"
    assert affected(c, "UPDATE t SET v = 'same' WHERE id IN (1, 2, 3)") == 0


def test_update_and_delete_with_order_by_limit(db):
    c = db.conn
    run(c, "CREATE TABLE t (id INT PRIMARY KEY, n INT, KEY kn (n))")
    run(c, "INSERT INTO t VALUES " + ", ".join(f"({i}, {i % 3})" for i in range(1, 11)))
    assert affected(c, "UPDATE t SET n = 100 ORDER BY id DESC LIMIT 3") == 3
    assert rows(c, "SELECT id FROM t WHERE n = 100 ORDER BY id") == [(8,), (9,), (10,)]
    assert affected(c, "UPDATE t SET n = n + 1 WHERE n < 100 ORDER BY n, id LIMIT 2") == 2
    assert rows(c, "SELECT id, n FROM t WHERE id IN (3, 6) ORDER BY id") == [(3, 1), (6, 1)]
    assert affected(c, "DELETE FROM t WHERE n < 100 ORDER BY id LIMIT 2") == 2
    assert rows(c, "SELECT MIN(id) FROM t") == [(3,)]
    assert affected(c, "DELETE FROM t ORDER BY n DESC, id LIMIT 1") == 1
    assert rows(c, "SELECT id FROM t WHERE n = 100 ORDER BY id") == [(9,), (10,)]
    assert affected(c, "DELETE FROM t WHERE id > 1000") == 0
    n = val(c, "SELECT COUNT(*) FROM t")
    assert affected(c, "DELETE FROM t") == n
    assert info(c) == ""


def test_update_expressions_and_multiple_columns(db):
    c = db.conn
    run(c, "CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT, s VARCHAR(20))")
    run(c, "INSERT INTO t VALUES (1, 1, 10, 'x'), (2, 2, 20, 'y')")
    # Assignments are applied left to right: b sees the new a.
    run(c, "UPDATE t SET a = a + 1, b = a * 100, s = CONCAT(s, '-', a) WHERE id = 1")
    assert rows(c, "SELECT * FROM t ORDER BY id") == [(1, 2, 200, "x-2"), (2, 2, 20, "y")]
    # Updating the primary key moves the row.
    run(c, "UPDATE t SET id = 5 WHERE id = 2")
    assert rows(c, "SELECT id FROM t ORDER BY id") == [(1,), (5,)]
    assert rows(c, "SELECT a FROM t WHERE id = 5") == [(2,)]


def multi_tables(c):
    run(c, "CREATE TABLE a (id INT PRIMARY KEY, v INT, s VARCHAR(10))")
    run(c, "CREATE TABLE b (id INT PRIMARY KEY, a_id INT, w INT, UNIQUE KEY uw (w))")
    run(c, "INSERT INTO a VALUES (1, 10, 'x'), (2, 20, 'y'), (3, 30, 'z')")
    run(c, "INSERT INTO b VALUES (10, 1, 100), (11, 1, 110), (12, 2, 120), (13, 9, 130)")


def test_multi_table_update_counts_without_and_with_found_rows(db):
    c = db.conn
    multi_tables(c)
    # a 1 is matched by b 10 and b 11 but counts (and changes) once.
    assert affected(c, "UPDATE a JOIN b ON a.id = b.a_id SET a.v = a.v + 1") == 2
    assert info(c) == "Rows matched: 2  Changed: 2  Warnings: 0"
    assert rows(c, "SELECT id, v FROM a ORDER BY id") == [(1, 11), (2, 21), (3, 30)]
    # Two tables: matched counts the distinct rows of both; unchanged rows do not count.
    n = affected(c, "UPDATE a JOIN b ON a.id = b.a_id SET a.v = 11, b.w = b.w + 1")
    assert info(c) == "Rows matched: 5  Changed: 4  Warnings: 0"
    assert n == 4
    assert affected(c, "UPDATE a, b SET a.s = a.s WHERE a.id = b.a_id") == 0
    assert info(c) == "Rows matched: 2  Changed: 0  Warnings: 0"
    f = db.connect(client_flag=CLIENT.FOUND_ROWS)
    assert affected(f, "UPDATE a JOIN b ON a.id = b.a_id SET a.v = 11, b.w = b.w + 1") == 5
    assert info(f) == "Rows matched: 5  Changed: 3  Warnings: 0"
    assert affected(f, "UPDATE a JOIN b ON a.id = b.a_id SET a.s = a.s") == 2
    assert info(f) == "Rows matched: 2  Changed: 0  Warnings: 0"
    # A non-strict truncation is a warning and counts in the info string.
    run(c, "SET SESSION sql_mode = ''")
    assert affected(c, "UPDATE a JOIN b ON a.id = b.a_id SET a.s = 'much too long'") == 2
    assert info(c) == "Rows matched: 2  Changed: 2  Warnings: 2"
    assert [w[1] for w in warnings(c)] == [1265, 1265]


def test_multi_table_update_failing_midway_leaves_nothing(db):
    c = db.conn
    multi_tables(c)
    before_a = rows(c, "SELECT * FROM a ORDER BY id")
    before_b = rows(c, "SELECT * FROM b ORDER BY id")
    # b 10 gets w = 120 (b 12 has it): 1062 after a's rows and possibly b 11 changed.
    with pytest.raises(pymysql.err.IntegrityError) as e:
        run(c, "UPDATE a JOIN b ON a.id = b.a_id SET a.v = 0, b.w = 120 - b.id + 10")
    assert e.value.args[0] == 1062
    assert rows(c, "SELECT * FROM a ORDER BY id") == before_a
    assert rows(c, "SELECT * FROM b ORDER BY id") == before_b
    # Inside a transaction: the failed statement is undone, the one before it stays.
    run(c, "BEGIN")
    run(c, "UPDATE a SET s = 'kept' WHERE id = 3")
    with pytest.raises(pymysql.err.IntegrityError):
        run(c, "UPDATE b JOIN a ON a.id = b.a_id SET a.v = -1, b.w = 130")
    with pytest.raises(pymysql.err.MySQLError) as e:
        run(c, "DELETE x FROM a JOIN b ON a.id = b.a_id")
    assert e.value.args[0] == 1109
    run(c, "COMMIT")
    assert rows(c, "SELECT * FROM a ORDER BY id") == [
        (1, 10, "x"), (2, 20, "y"), (3, 30, "kept")]
    assert rows(c, "SELECT * FROM b ORDER BY id") == before_b


def test_multi_table_delete_counts_and_status(db):
    c = db.conn
    multi_tables(c)
    com_upd, com_del = status(c, "Com_update_multi"), status(c, "Com_delete_multi")
    deleted, updated = status(c, "Innodb_rows_deleted"), status(c, "Innodb_rows_updated")
    run(c, "UPDATE a JOIN b ON a.id = b.a_id SET b.w = b.w + 1 WHERE a.id = 2")
    assert status(c, "Innodb_rows_updated") >= updated + 1
    # Both targets, a 1 matched twice: deleted once; affected = all rows deleted.
    assert affected(c, "DELETE a, b FROM a JOIN b ON a.id = b.a_id WHERE a.id = 1") == 3
    assert info(c) == ""
    assert rows(c, "SELECT id FROM a ORDER BY id") == [(2,), (3,)]
    assert rows(c, "SELECT id FROM b ORDER BY id") == [(12,), (13,)]
    assert affected(c, "DELETE FROM b USING b LEFT JOIN a ON a.id = b.a_id WHERE a.id IS NULL") == 1
    assert rows(c, "SELECT id FROM b") == [(12,)]
    assert status(c, "Com_update_multi") == com_upd + 1
    assert status(c, "Com_delete_multi") == com_del + 2
    assert status(c, "Innodb_rows_deleted") >= deleted + 4
    with pytest.raises(pymysql.err.MySQLError) as e:
        run(c, "UPDATE a JOIN b ON a.id = b.a_id SET a.v = 1 LIMIT 1")
    assert e.value.args[0] == 1221
    assert "Incorrect usage of UPDATE and LIMIT" in e.value.args[1]


def test_multi_table_update_locks_the_rows_it_changes(db):
    c = db.conn
    multi_tables(c)
    other = db.connect()
    run(other, "SET SESSION innodb_lock_wait_timeout = 1")
    run(c, "BEGIN")
    run(c, "UPDATE a JOIN b ON a.id = b.a_id SET a.v = 0 WHERE b.id = 12")
    with pytest.raises(pymysql.err.MySQLError) as e:
        run(other, "UPDATE a SET v = 5 WHERE id = 2")
    assert e.value.args[0] == 1205
    run(c, "ROLLBACK")
    assert affected(other, "UPDATE a SET v = 5 WHERE id = 2") == 1


# -- SELECT ------------------------------------------------------------------------


@pytest.fixture
def shop(db):
    c = db.conn
    run(c, "CREATE TABLE cust (id INT PRIMARY KEY, name VARCHAR(20), city VARCHAR(20), KEY kcity (city))")
    run(c, "CREATE TABLE ord (id INT PRIMARY KEY, cust_id INT, amount DECIMAL(8,2), KEY kc (cust_id))")
    run(c, "INSERT INTO cust VALUES (1, 'ann', 'oslo'), (2, 'bob', 'rome'), (3, 'cid', 'oslo'), (4, 'dan', NULL)")
    run(c, "INSERT INTO ord VALUES (10, 1, 5.00), (11, 1, 7.50), (12, 2, 1.25), (13, 9, 100.00), (14, 3, NULL)")
    return db


def test_select_where_point_range_and_scan(shop):
    c = shop.conn
    assert rows(c, "SELECT name FROM cust WHERE id = 2") == [("bob",)]
    assert rows(c, "SELECT id FROM cust WHERE id BETWEEN 2 AND 3 ORDER BY id") == [(2,), (3,)]
    assert rows(c, "SELECT id FROM cust WHERE id > 2 ORDER BY id") == [(3,), (4,)]
    assert rows(c, "SELECT id FROM cust WHERE id IN (4, 1, 7) ORDER BY id") == [(1,), (4,)]
    assert rows(c, "SELECT id FROM cust WHERE city = 'oslo' ORDER BY id") == [(1,), (3,)]
    assert rows(c, "SELECT id FROM cust WHERE city IS NULL") == [(4,)]
    assert rows(c, "SELECT id FROM cust WHERE name LIKE '%n' ORDER BY id") == [(1,), (4,)]
    assert rows(c, "SELECT id FROM cust WHERE city <> 'oslo'") == [(2,)]  # NULL is not <>
    assert rows(c, "SELECT id FROM cust WHERE NOT (id < 3) AND city IS NOT NULL") == [(3,)]
    # utf8mb4_0900_ai_ci: comparisons ignore case.
    assert rows(c, "SELECT id FROM cust WHERE city = 'OSLO' ORDER BY id") == [(1,), (3,)]
    assert rows(c, "SELECT id FROM cust WHERE name = 'BOB'") == [(2,)]


def test_joins(shop):
    c = shop.conn
    assert rows(
        c,
        "SELECT c.name, o.id FROM cust c JOIN ord o ON o.cust_id = c.id ORDER BY o.id",
    ) == [("ann", 10), ("ann", 11), ("bob", 12), ("cid", 14)]
    assert rows(
        c,
        "SELECT c.name, o.id FROM cust c LEFT JOIN ord o ON o.cust_id = c.id ORDER BY c.id, o.id",
    ) == [("ann", 10), ("ann", 11), ("bob", 12), ("cid", 14), ("dan", None)]
    assert rows(
        c,
        "SELECT c.name, o.id FROM cust c RIGHT JOIN ord o ON o.cust_id = c.id ORDER BY o.id",
    ) == [("ann", 10), ("ann", 11), ("bob", 12), (None, 13), ("cid", 14)]
    assert rows(
        c,
        "SELECT c.id FROM cust c LEFT JOIN ord o ON o.cust_id = c.id WHERE o.id IS NULL",
    ) == [(4,)]
    assert rows(c, "SELECT COUNT(*) FROM cust, ord") == [(20,)]
    assert rows(
        c,
        "SELECT a.name, b.name FROM cust a JOIN cust b ON a.city = b.city AND a.id < b.id",
    ) == [("ann", "cid")]
    assert rows(
        c, "SELECT c.name FROM cust c JOIN ord o USING (id)"
    ) == []


def test_group_by_aggregates_having(shop):
    c = shop.conn
    assert rows(
        c,
        "SELECT cust_id, COUNT(*), COUNT(amount), SUM(amount), MIN(amount), MAX(amount) "
        "FROM ord GROUP BY cust_id ORDER BY cust_id",
    ) == [
        (1, 2, 2, Decimal("12.50"), Decimal("5.00"), Decimal("7.50")),
        (2, 1, 1, Decimal("1.25"), Decimal("1.25"), Decimal("1.25")),
        (3, 1, 0, None, None, None),
        (9, 1, 1, Decimal("100.00"), Decimal("100.00"), Decimal("100.00")),
    ]
    assert rows(
        c, "SELECT cust_id, SUM(amount) s FROM ord GROUP BY cust_id HAVING s > 5 ORDER BY s DESC"
    ) == [(9, Decimal("100.00")), (1, Decimal("12.50"))]
    assert rows(
        c, "SELECT city, COUNT(*) FROM cust GROUP BY city ORDER BY city"
    ) == [(None, 1), ("oslo", 2), ("rome", 1)]
    assert rows(c, "SELECT AVG(amount) FROM ord WHERE cust_id = 1") == [(Decimal("6.250000"),)]
    assert rows(c, "SELECT COUNT(DISTINCT city) FROM cust") == [(2,)]
    assert rows(
        c,
        "SELECT c.name, COUNT(o.id) FROM cust c LEFT JOIN ord o ON o.cust_id = c.id "
        "GROUP BY c.id, c.name ORDER BY c.id",
    ) == [("ann", 2), ("bob", 1), ("cid", 1), ("dan", 0)]


def test_aggregates_on_empty_input(shop):
    c = shop.conn
    assert rows(
        c, "SELECT COUNT(*), COUNT(amount), SUM(amount), MAX(amount), AVG(amount) FROM ord WHERE id < 0"
    ) == [(0, 0, None, None, None)]
    assert rows(c, "SELECT cust_id, COUNT(*) FROM ord WHERE id < 0 GROUP BY cust_id") == []


def test_order_by_limit_offset(shop):
    c = shop.conn
    # NULLs sort first ascending and last descending.
    assert rows(c, "SELECT id FROM ord ORDER BY amount, id") == [(14,), (12,), (10,), (11,), (13,)]
    assert rows(c, "SELECT id FROM ord ORDER BY amount DESC, id") == [(13,), (11,), (10,), (12,), (14,)]
    assert rows(c, "SELECT id FROM cust ORDER BY id LIMIT 2") == [(1,), (2,)]
    assert rows(c, "SELECT id FROM cust ORDER BY id LIMIT 2 OFFSET 1") == [(2,), (3,)]
    assert rows(c, "SELECT id FROM cust ORDER BY id LIMIT 1, 2") == [(2,), (3,)]
    assert rows(c, "SELECT id FROM cust ORDER BY id LIMIT 10 OFFSET 3") == [(4,)]
    assert rows(c, "SELECT id FROM cust ORDER BY id LIMIT 0") == []
    assert rows(c, "SELECT name FROM cust ORDER BY 1 DESC LIMIT 1") == [("dan",)]
    assert rows(c, "SELECT id, amount * 2 AS dbl FROM ord WHERE amount IS NOT NULL ORDER BY dbl LIMIT 1") == [
        (12, Decimal("2.50"))
    ]


def test_distinct(shop):
    c = shop.conn
    assert rows(c, "SELECT DISTINCT city FROM cust ORDER BY city") == [(None,), ("oslo",), ("rome",)]
    assert rows(c, "SELECT DISTINCT cust_id FROM ord WHERE cust_id < 5 ORDER BY cust_id") == [(1,), (2,), (3,)]
    assert rows(c, "SELECT COUNT(*) FROM (SELECT DISTINCT city FROM cust) d") == [(3,)]


def test_union_removes_duplicates_union_all_keeps_them(shop):
    c = shop.conn
    assert sorted(rows(c, "SELECT city FROM cust WHERE id < 3 UNION SELECT city FROM cust WHERE id >= 3"),
                  key=repr) == sorted([(None,), ("oslo",), ("rome",)], key=repr)
    assert sorted(rows(c, "SELECT city FROM cust WHERE city IS NOT NULL UNION ALL SELECT 'oslo'")) == [
        ("oslo",), ("oslo",), ("oslo",), ("rome",)
    ]
    assert sorted(rows(c, "SELECT id FROM cust UNION DISTINCT SELECT cust_id FROM ord")) == [
        (1,), (2,), (3,), (4,), (9,)
    ]


def test_union_order_by_and_limit_apply_to_the_whole_union(shop):
    """A trailing ORDER BY / LIMIT after the last SELECT of a UNION applies to the
    union's result (MySQL 8.0 manual, UNION clause)."""
    c = shop.conn
    assert rows(c, "SELECT city FROM cust WHERE id < 3 UNION SELECT city FROM cust WHERE id >= 3 ORDER BY city") == [
        (None,), ("oslo",), ("rome",)
    ]
    assert rows(c, "SELECT id FROM cust UNION SELECT cust_id FROM ord ORDER BY id DESC LIMIT 2") == [(9,), (4,)]


def test_union_of_parenthesized_selects_with_order_by(shop):
    c = shop.conn
    assert rows(c, "(SELECT id FROM cust) UNION (SELECT cust_id FROM ord) ORDER BY id DESC LIMIT 2") == [(9,), (4,)]
    assert rows(c, "(SELECT id FROM cust ORDER BY id LIMIT 1) UNION ALL (SELECT id FROM ord ORDER BY id DESC LIMIT 1)") == [
        (1,), (14,)
    ]


def test_in_subquery_is_a_semi_join(shop):
    """`x IN (SELECT ...)` yields each outer row once, however many inner rows match."""
    c = shop.conn
    assert rows(c, "SELECT name FROM cust WHERE id IN (SELECT cust_id FROM ord) ORDER BY id") == [
        ("ann",), ("bob",), ("cid",)
    ]
    assert rows(c, "SELECT COUNT(*) FROM cust WHERE id IN (SELECT cust_id FROM ord)") == [(3,)]


def test_scalar_subqueries_in_select_without_from(shop):
    c = shop.conn
    assert rows(c, "SELECT (SELECT COUNT(*) FROM ord) AS n, (SELECT name FROM cust WHERE id = 1)") == [(5, "ann")]


def test_subqueries_and_derived_tables(shop):
    c = shop.conn
    assert rows(c, "SELECT name FROM cust WHERE id NOT IN (SELECT cust_id FROM ord WHERE cust_id IS NOT NULL)") == [
        ("dan",)
    ]
    assert rows(c, "SELECT id FROM ord WHERE amount = (SELECT MAX(amount) FROM ord)") == [(13,)]
    assert rows(c, "SELECT id, (SELECT COUNT(*) FROM ord) FROM cust WHERE id = 1") == [(1, 5)]
    assert rows(c, "SELECT COUNT(*) FROM cust WHERE EXISTS (SELECT 1 FROM ord WHERE amount > 50)") == [(4,)]
    assert rows(c, "SELECT COUNT(*) FROM cust WHERE NOT EXISTS (SELECT 1 FROM ord WHERE amount > 500)") == [(4,)]
    assert rows(
        c,
        "SELECT d.cust_id, d.total FROM (SELECT cust_id, SUM(amount) AS total FROM ord GROUP BY cust_id) AS d "
        "WHERE d.total > 10 ORDER BY d.cust_id",
    ) == [(1, Decimal("12.50")), (9, Decimal("100.00"))]
    assert rows(
        c,
        "SELECT c.name, d.n FROM cust c JOIN (SELECT cust_id, COUNT(*) n FROM ord GROUP BY cust_id) d "
        "ON d.cust_id = c.id ORDER BY c.id",
    ) == [("ann", 2), ("bob", 1), ("cid", 1)]


# -- result metadata and value types ------------------------------------------------


def test_result_metadata_for_column_types(db):
    c = db.conn
    run(c, "CREATE TABLE t (i INT, bi BIGINT, vc VARCHAR(10), ch CHAR(3), dc DECIMAL(10,2), "
           "db DOUBLE, nn INT NOT NULL, ui INT UNSIGNED)")
    run(c, "INSERT INTO t VALUES (1, 9000000000, 'hello', 'abc', 1.5, 2.25, 7, 4000000000)")
    with c.cursor() as cur:
        cur.execute("SELECT i, bi, vc, ch, dc, db, nn, ui FROM t")
        # (name, type_code, display_size, internal_size, precision, scale, null_ok)
        assert cur.description == (
            ("i", FIELD_TYPE.LONG, None, 11, 11, 0, True),
            ("bi", FIELD_TYPE.LONGLONG, None, 20, 20, 0, True),
            ("vc", FIELD_TYPE.VAR_STRING, None, 40, 40, 0, True),  # 10 chars * 4 bytes
            ("ch", FIELD_TYPE.STRING, None, 12, 12, 0, True),
            ("dc", FIELD_TYPE.NEWDECIMAL, None, 12, 12, 2, True),
            ("db", FIELD_TYPE.DOUBLE, None, 22, 22, 31, True),
            ("nn", FIELD_TYPE.LONG, None, 11, 11, 0, False),
            ("ui", FIELD_TYPE.LONG, None, 10, 10, 0, True),
        )
        assert cur.fetchall() == (
            (1, 9000000000, "hello", "abc", Decimal("1.50"), 2.25, 7, 4000000000),
        )
        # Numeric columns carry the binary character set (63).
        assert [f.charsetnr for f in cur._result.fields if f.type_code != FIELD_TYPE.VAR_STRING
                and f.type_code != FIELD_TYPE.STRING] == [63] * 6


def test_result_metadata_flags_for_keys(db):
    c = db.conn
    run(c, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, u VARCHAR(5) NOT NULL, "
           "k INT UNSIGNED, UNIQUE KEY uu (u))")
    run(c, "INSERT INTO t (u, k) VALUES ('a', 1)")
    NOT_NULL, PRI_KEY, UNIQUE_KEY, UNSIGNED, AUTO_INCREMENT = 1, 2, 4, 32, 512
    with c.cursor() as cur:
        cur.execute("SELECT id, u, k FROM t")
        f = {x.name: x.flags for x in cur._result.fields}
    assert f["id"] & (NOT_NULL | PRI_KEY | AUTO_INCREMENT) == NOT_NULL | PRI_KEY | AUTO_INCREMENT, f
    assert f["u"] & (NOT_NULL | UNIQUE_KEY | PRI_KEY) == NOT_NULL | UNIQUE_KEY, f
    assert f["k"] & (NOT_NULL | UNSIGNED) == UNSIGNED, f


def test_expression_result_types(shop):
    c = shop.conn
    with c.cursor() as cur:
        cur.execute("SELECT COUNT(*), SUM(cust.id), AVG(cust.id), MAX(name), SUM(amount) "
                    "FROM cust JOIN ord ON ord.cust_id = cust.id")
        types = [d[1] for d in cur.description]
        vals = cur.fetchall()[0]
    # COUNT is BIGINT; SUM/AVG of integers are DECIMAL.
    assert types == [FIELD_TYPE.LONGLONG, FIELD_TYPE.NEWDECIMAL, FIELD_TYPE.NEWDECIMAL,
                     FIELD_TYPE.VAR_STRING, FIELD_TYPE.NEWDECIMAL]
    assert vals == (4, Decimal("7"), Decimal("1.7500"), "cid", Decimal("13.75"))
    assert rows(c, "SELECT 7 / 2, 7 DIV 2, 7 % 3, 1 + 1.5, 'a' = 'A'") == [
        (Decimal("3.5000"), 3, 1, Decimal("2.5"), 1)
    ]


# -- LAST_INSERT_ID() and the insert id of the OK packet -----------------------------


def test_last_insert_id_is_first_id_of_multi_row_insert(db):
    c = db.conn
    run(c, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    with c.cursor() as cur:
        cur.execute("INSERT INTO t (v) VALUES (1)")
        assert cur.lastrowid == 1
        cur.execute("INSERT INTO t (v) VALUES (2), (3), (4)")
        assert cur.lastrowid == 2
    assert val(c, "SELECT LAST_INSERT_ID()") == 2
    assert rows(c, "SELECT id FROM t ORDER BY id") == [(1,), (2,), (3,), (4,)]
    # A statement that generates no value leaves LAST_INSERT_ID() alone.
    run(c, "UPDATE t SET v = v + 1")
    run(c, "INSERT INTO t VALUES (50, 0)")
    assert val(c, "SELECT LAST_INSERT_ID()") == 2
    run(c, "INSERT INTO t (v) SELECT v FROM t WHERE id < 3 ORDER BY id")
    assert val(c, "SELECT LAST_INSERT_ID()") == 51


def test_ok_packet_insert_id_for_explicit_value(db):
    """mysql_insert_id() (the OK packet's insert id) is the value stored into the
    AUTO_INCREMENT column, also when it was given explicitly; LAST_INSERT_ID() only
    follows generated values."""
    c = db.conn
    run(c, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    run(c, "INSERT INTO t (v) VALUES (1)")
    with c.cursor() as cur:
        cur.execute("INSERT INTO t VALUES (100, 2)")
        assert cur.lastrowid == 100
    assert val(c, "SELECT LAST_INSERT_ID()") == 1


def test_last_insert_id_is_per_connection(db):
    c1 = db.conn
    c2 = db.connect()
    run(c1, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    run(c1, "INSERT INTO t (v) VALUES (1), (1)")
    run(c2, "INSERT INTO t (v) VALUES (2)")
    assert val(c1, "SELECT LAST_INSERT_ID()") == 1
    assert val(c2, "SELECT LAST_INSERT_ID()") == 3
    assert val(db.connect(), "SELECT LAST_INSERT_ID()") == 0


def test_last_insert_id_with_argument(db):
    c = db.conn
    assert val(c, "SELECT LAST_INSERT_ID(42)") == 42
    assert val(c, "SELECT LAST_INSERT_ID()") == 42
    run(c, "CREATE TABLE seq (id INT NOT NULL)")
    run(c, "INSERT INTO seq VALUES (0)")
    run(c, "UPDATE seq SET id = LAST_INSERT_ID(id + 1)")
    assert val(c, "SELECT LAST_INSERT_ID()") == 1
    assert rows(c, "SELECT id FROM seq") == [(1,)]


# -- AUTO_INCREMENT ----------------------------------------------------------------


def test_auto_increment_null_zero_and_explicit_values(db):
    c = db.conn
    run(c, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    run(c, "INSERT INTO t VALUES (NULL, 1)")
    run(c, "INSERT INTO t VALUES (0, 2)")  # 0 generates unless NO_AUTO_VALUE_ON_ZERO
    run(c, "INSERT INTO t VALUES (50, 3)")
    run(c, "INSERT INTO t (v) VALUES (4)")
    run(c, "INSERT INTO t VALUES (10, 5)")  # below the counter: counter unchanged
    run(c, "INSERT INTO t (v) VALUES (6)")
    assert rows(c, "SELECT id, v FROM t ORDER BY v") == [
        (1, 1), (2, 2), (50, 3), (51, 4), (10, 5), (52, 6)
    ]


def test_auto_increment_table_option(db):
    c = db.conn
    run(c, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT) AUTO_INCREMENT=100")
    assert "AUTO_INCREMENT=100 " in text(rows(c, "SHOW CREATE TABLE t")[0][1])
    run(c, "INSERT INTO t (v) VALUES (1), (2)")
    assert rows(c, "SELECT id FROM t ORDER BY id") == [(100,), (101,)]


def test_auto_increment_values_are_lost_on_rollback(db):
    c = db.conn
    run(c, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    run(c, "INSERT INTO t (v) VALUES (1)")
    run(c, "BEGIN")
    run(c, "INSERT INTO t (v) VALUES (2), (3)")
    run(c, "ROLLBACK")
    run(c, "INSERT INTO t (v) VALUES (4)")
    assert rows(c, "SELECT id, v FROM t ORDER BY id") == [(1, 1), (4, 4)]


def test_auto_increment_value_of_failed_insert_is_lost(db):
    c = db.conn
    run(c, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, u VARCHAR(5), UNIQUE KEY uu (u))")
    run(c, "INSERT INTO t (u) VALUES ('a')")
    with pytest.raises(pymysql.MySQLError) as e:
        run(c, "INSERT INTO t (u) VALUES ('a')")
    assert e.value.args[0] == 1062
    run(c, "INSERT INTO t (u) VALUES ('b')")
    assert rows(c, "SELECT id, u FROM t ORDER BY id") == [(1, "a"), (3, "b")]


def test_auto_increment_follows_update_to_a_larger_value(db):
    """MySQL 8.0: updating an AUTO_INCREMENT column to a value above the counter
    moves the counter (WL#6204)."""
    c = db.conn
    run(c, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    run(c, "INSERT INTO t (v) VALUES (1), (2)")
    run(c, "UPDATE t SET id = 100 WHERE id = 2")
    run(c, "INSERT INTO t (v) VALUES (3)")
    assert rows(c, "SELECT id, v FROM t ORDER BY id") == [(1, 1), (100, 2), (101, 3)]


@pytest.mark.parametrize("how", ["sigterm", "sigkill"])
def test_auto_increment_counter_survives_restart_after_deleting_max(kiln_factory, how):
    s = kiln_factory()
    c = s.connect()
    run(c, "CREATE DATABASE d")
    run(c, "CREATE TABLE d.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    run(c, "INSERT INTO d.t (v) VALUES (1), (2), (3), (4), (5)")
    run(c, "DELETE FROM d.t WHERE id >= 4")
    c.close()
    s2 = restart(kiln_factory, s, how)
    c = s2.connect(database="d")
    run(c, "INSERT INTO t (v) VALUES (6)")
    assert rows(c, "SELECT id, v FROM t ORDER BY id") == [(1, 1), (2, 2), (3, 3), (6, 6)]
    assert "AUTO_INCREMENT=7 " in text(rows(c, "SHOW CREATE TABLE t")[0][1])


@pytest.mark.parametrize("how", ["sigterm", "sigkill"])
def test_auto_increment_rolled_back_values_not_reused_after_restart(kiln_factory, how):
    s = kiln_factory()
    c = s.connect()
    run(c, "CREATE DATABASE d")
    run(c, "CREATE TABLE d.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    run(c, "INSERT INTO d.t (v) VALUES (1), (2)")
    run(c, "BEGIN")
    run(c, "INSERT INTO d.t (v) VALUES (3), (4)")
    run(c, "ROLLBACK")
    c.close()
    s2 = restart(kiln_factory, s, how)
    c = s2.connect(database="d")
    run(c, "INSERT INTO t (v) VALUES (5)")
    assert rows(c, "SELECT id, v FROM t ORDER BY id") == [(1, 1), (2, 2), (5, 5)]


# -- restart persistence -----------------------------------------------------------

PERSIST_SETUP = [
    "CREATE DATABASE p1",
    "CREATE DATABASE p2",
    """CREATE TABLE p1.items (
        id INT AUTO_INCREMENT PRIMARY KEY,
        sku VARCHAR(20) NOT NULL,
        qty INT DEFAULT 0,
        price DECIMAL(10,2),
        weight DOUBLE,
        tag CHAR(4),
        big BIGINT,
        UNIQUE KEY usku (sku),
        KEY kqty (qty))""",
    "CREATE TABLE p2.log (n INT PRIMARY KEY, msg VARCHAR(100))",
    "CREATE TABLE p2.gone (n INT)",
]


def _fill(c):
    vals = ", ".join(
        f"('sku{i}', {i % 7}, {i}.{i % 100:02d}, {i} * 0.5, 't{i % 10}', {i} * 100000000000)"
        for i in range(1, 301)
    )
    run(c, f"INSERT INTO p1.items (sku, qty, price, weight, tag, big) VALUES {vals}")
    run(c, "INSERT INTO p1.items (sku, qty, tag) VALUES ('ünï-😀', NULL, NULL)")
    run(c, "DELETE FROM p1.items WHERE id % 10 = 0")
    run(c, "UPDATE p1.items SET qty = qty + 100 WHERE id % 3 = 0")
    run(c, "INSERT INTO p2.log VALUES " + ", ".join(f"({i}, 'm{i}')" for i in range(1000)))
    run(c, "ALTER TABLE p2.log ADD COLUMN extra INT DEFAULT 3")
    run(c, "DROP TABLE p2.gone")


def _snapshot(c):
    return {
        "dbs": sorted(r[0] for r in norm(rows(c, "SHOW DATABASES")) if r[0] in ("p1", "p2")),
        "tables1": norm(rows(c, "SHOW TABLES FROM p1")),
        "tables2": norm(rows(c, "SHOW TABLES FROM p2")),
        "ddl1": norm(rows(c, "SHOW CREATE TABLE p1.items")),
        "ddl2": norm(rows(c, "SHOW CREATE TABLE p2.log")),
        "items": rows(c, "SELECT * FROM p1.items ORDER BY id"),
        "log": rows(c, "SELECT * FROM p2.log ORDER BY n"),
        "by_index": rows(c, "SELECT id FROM p1.items WHERE qty = 103 ORDER BY id"),
        "by_unique": rows(c, "SELECT id, qty FROM p1.items WHERE sku = 'sku33'"),
        "unicode": rows(c, "SELECT id FROM p1.items WHERE sku = 'ünï-😀'"),
    }


@pytest.mark.parametrize("how", ["sigterm", "sigkill"])
def test_committed_data_and_schema_survive_restart(kiln_factory, how):
    s = kiln_factory()
    c = s.connect()
    for q in PERSIST_SETUP:
        run(c, q)
    _fill(c)
    before = _snapshot(c)
    assert len(before["items"]) == 271 and len(before["log"]) == 1000
    assert before["unicode"] == [(301,)]
    c.close()
    s2 = restart(kiln_factory, s, how)
    c = s2.connect()
    after = _snapshot(c)
    for k in before:
        assert after[k] == before[k], k
    with pytest.raises(pymysql.MySQLError) as e:
        rows(c, "SELECT * FROM p2.gone")
    assert e.value.args[0] == 1146
    # Still writable, keys still enforced, counter above everything used.
    with pytest.raises(pymysql.MySQLError) as e:
        run(c, "INSERT INTO p1.items (sku) VALUES ('sku5')")
    assert e.value.args[0] == 1062
    run(c, "INSERT INTO p1.items (sku) VALUES ('new')")
    assert val(c, "SELECT id FROM p1.items WHERE sku = 'new'") > 301


def test_uncommitted_work_is_gone_after_kill(kiln_factory):
    s = kiln_factory()
    c = s.connect()
    run(c, "CREATE DATABASE d")
    run(c, "CREATE TABLE d.t (id INT PRIMARY KEY, v INT)")
    run(c, "INSERT INTO d.t VALUES (1, 10), (2, 20), (3, 30)")
    open_trx = s.connect()
    run(open_trx, "BEGIN")
    run(open_trx, "INSERT INTO d.t VALUES (4, 40)")
    run(open_trx, "UPDATE d.t SET v = 99 WHERE id = 1")
    run(open_trx, "DELETE FROM d.t WHERE id = 2")
    run(c, "INSERT INTO d.t VALUES (5, 50)")  # committed after the open trx began
    s2 = restart(kiln_factory, s, "sigkill")
    c = s2.connect(database="d")
    assert rows(c, "SELECT * FROM t ORDER BY id") == [(1, 10), (2, 20), (3, 30), (5, 50)]
    # The rolled-back transaction left no locks behind.
    c.autocommit(False)
    run(c, "SET SESSION innodb_lock_wait_timeout = 5")
    run(c, "UPDATE t SET v = v + 1")
    run(c, "INSERT INTO t VALUES (4, 41)")
    c.commit()
    assert rows(c, "SELECT * FROM t ORDER BY id") == [(1, 11), (2, 21), (3, 31), (4, 41), (5, 51)]


# -- server-side prepared statements (mysql.connector, prepared=True) ----------------


def myconn(db, **kw):
    args = dict(host="127.0.0.1", port=db.server.port, user="root", password="",
                database=db.name, autocommit=True, connection_timeout=10)
    args.update(kw)
    c = mysql.connector.connect(**args)
    return c


@pytest.fixture
def pdb(db):
    run(db.conn, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20), "
                 "price DECIMAL(8,2), ratio DOUBLE, big BIGINT, KEY kn (name))")
    run(db.conn, "INSERT INTO t (name, price, ratio, big) VALUES "
                 "('apple', 1.25, 0.5, 10000000000), ('pear', 2.50, 1.5, -1), ('fig', NULL, NULL, NULL)")
    c = myconn(db)
    yield db, c
    c.close()


def test_prepared_select_with_parameters(pdb):
    db, c = pdb
    cur = c.cursor(prepared=True)
    cur.execute("SELECT id, name, price, ratio, big FROM t WHERE id = %s", (1,))
    assert cur.fetchall() == [(1, "apple", Decimal("1.25"), 0.5, 10000000000)]
    assert [d[0] for d in cur.description] == ["id", "name", "price", "ratio", "big"]
    # The same statement text again with other parameters.
    cur.execute("SELECT id, name, price, ratio, big FROM t WHERE id = %s", (3,))
    assert cur.fetchall() == [(3, "fig", None, None, None)]
    cur.execute("SELECT id FROM t WHERE name = %s", ("pear",))
    assert cur.fetchall() == [(2,)]
    cur.execute("SELECT id FROM t WHERE price > %s AND ratio < %s ORDER BY id", (Decimal("1.00"), 2.0))
    assert cur.fetchall() == [(1,), (2,)]
    cur.execute("SELECT id FROM t WHERE name = %s", ("it's \"quoted\"",))
    assert cur.fetchall() == []
    cur.execute("SELECT id FROM t WHERE price <=> %s", (None,))
    assert cur.fetchall() == [(3,)]
    cur.execute("SELECT id FROM t ORDER BY id LIMIT ?", (2,))
    assert cur.fetchall() == [(1,), (2,)]
    cur.execute("SELECT COUNT(*), SUM(price) FROM t WHERE id IN (%s, %s)", (1, 2))
    assert cur.fetchall() == [(2, Decimal("3.75"))]
    cur.close()


def test_prepared_insert_update_delete(pdb):
    db, c = pdb
    cur = c.cursor(prepared=True)
    cur.execute("INSERT INTO t (name, price, ratio, big) VALUES (%s, %s, %s, %s)",
                ("kiwi", Decimal("3.10"), 2.75, 2 ** 40))
    assert cur.rowcount == 1
    assert cur.lastrowid == 4
    cur.execute("INSERT INTO t (name, price) VALUES (%s, %s)", ("lime", None))
    assert cur.lastrowid == 5
    cur.execute("UPDATE t SET price = price + %s WHERE price IS NOT NULL AND id < %s", (Decimal("1.00"), 10))
    assert cur.rowcount == 3
    cur.execute("UPDATE t SET name = %s WHERE id = %s", ("kiwi", 4))
    assert cur.rowcount == 0  # no change
    cur.execute("DELETE FROM t WHERE id = %s", (5,))
    assert cur.rowcount == 1
    cur.executemany("INSERT INTO t (name) VALUES (%s)", [("m1",), ("m2",), ("m3",)])
    cur.close()
    assert rows(db.conn, "SELECT id, name, price, ratio, big FROM t ORDER BY id") == [
        (1, "apple", Decimal("2.25"), 0.5, 10000000000),
        (2, "pear", Decimal("3.50"), 1.5, -1),
        (3, "fig", None, None, None),
        (4, "kiwi", Decimal("4.10"), 2.75, 2 ** 40),
        (6, "m1", None, None, None),
        (7, "m2", None, None, None),
        (8, "m3", None, None, None),
    ]


def test_prepared_statement_errors(pdb):
    db, c = pdb
    cur = c.cursor(prepared=True)
    with pytest.raises(mysql.connector.Error) as e:
        cur.execute("INSERT INTO t (id, name) VALUES (%s, %s)", (1, "dup"))
    assert (e.value.errno, e.value.sqlstate, e.value.msg) == (
        1062, "23000", "Duplicate entry '1' for key 't.PRIMARY'"
    )
    with pytest.raises(mysql.connector.Error) as e:
        cur.execute("SELECT nope FROM t WHERE id = %s", (1,))
    assert (e.value.errno, e.value.sqlstate, e.value.msg) == (
        1054, "42S22", "Unknown column 'nope' in 'field list'"
    )
    # The connection is fine afterwards.
    cur.execute("SELECT COUNT(*) FROM t WHERE id > %s", (0,))
    assert cur.fetchall() == [(3,)]
    cur.close()


def test_prepared_statements_are_server_side(pdb):
    db, c = pdb
    before_prep = status(db.conn, "Com_stmt_prepare")
    before_exec = status(db.conn, "Com_stmt_execute")
    cur = c.cursor(prepared=True)
    cur.execute("SELECT name FROM t WHERE id = %s", (2,))
    assert cur.fetchall() == [("pear",)]
    cur.execute("SELECT name FROM t WHERE id = %s", (1,))
    assert cur.fetchall() == [("apple",)]
    cur.close()
    assert status(db.conn, "Com_stmt_prepare") >= before_prep + 1
    assert status(db.conn, "Com_stmt_execute") >= before_exec + 2
