"""MySQL 8.0 errors from the SQL layer: errno, SQLSTATE and message text exactly as
MySQL 8.0 sends them, seen through PyMySQL (errno, message) and mysql.connector
(errno, SQLSTATE, message); warnings instead of errors where MySQL downgrades them;
and statement atomicity: a failing statement leaves none of its rows behind, in
autocommit mode and inside an explicit transaction (which goes on).

The reference is MySQL 8.0: a failing assertion here is a difference from MySQL.
"""

import itertools
from types import SimpleNamespace

import mysql.connector
import pymysql
import pytest

_ids = itertools.count(1)

PARSE = (
    "You have an error in your SQL syntax; check the manual that corresponds to your "
    "MySQL server version for the right syntax to use near '{}' at line {}"
)


def run(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return [tuple(r) for r in cur.fetchall()]


def text(v):
    return v.decode() if isinstance(v, (bytes, bytearray)) else v


def warnings(conn):
    return [(text(a), b, text(c)) for a, b, c in run(conn, "SHOW WARNINGS")]


def pymysql_error(conn, sql):
    with pytest.raises(pymysql.MySQLError) as e:
        run(conn, sql)
    return e.value.args[0], e.value.args[1]


def connector_error(conn, sql):
    cur = conn.cursor()
    try:
        with pytest.raises(mysql.connector.Error) as e:
            cur.execute(sql)
            cur.fetchall()
    finally:
        try:
            cur.close()
        except Exception:
            pass
    return e.value.errno, e.value.sqlstate, e.value.msg


BASE_SCHEMA = [
    """CREATE TABLE t (
        id INT PRIMARY KEY,
        v VARCHAR(3) NOT NULL,
        n INT,
        ti TINYINT,
        u INT UNSIGNED,
        d DECIMAL(5,2),
        c CHAR(2),
        b BLOB,
        UNIQUE KEY uv (v))""",
    "INSERT INTO t (id, v) VALUES (1, 'a'), (2, 'b')",
    "CREATE TABLE t2 (id INT PRIMARY KEY, x INT)",
    "INSERT INTO t2 VALUES (1, 7), (2, 7)",
    "CREATE TABLE t3 (a INT, b VARCHAR(5), UNIQUE KEY ab (a, b))",
    "INSERT INTO t3 VALUES (1, 'x')",
]


class Db:
    """A database with BASE_SCHEMA on the module's server; .conn (PyMySQL) and .myconn
    (mysql.connector) both have it selected."""

    def __init__(self, server):
        self.server = server
        self.name = f"sqle{next(_ids)}"
        self.admin = server.connect()
        run(self.admin, f"CREATE DATABASE {self.name}")
        self.conn = server.connect(database=self.name)
        for q in BASE_SCHEMA:
            run(self.conn, q)
        self.myconn = mysql.connector.connect(
            host="127.0.0.1", port=server.port, user="root", password="",
            database=self.name, autocommit=True, connection_timeout=10, ssl_disabled=True,
        )
        self.extra = []

    def connect(self, **kw):
        c = self.server.connect(database=self.name, **kw)
        self.extra.append(c)
        return c

    def fingerprint(self):
        c = self.admin
        fp = [run(c, f"SHOW TABLES FROM {self.name}")]
        for t in ("t", "t2", "t3"):
            fp.append(run(c, f"SHOW CREATE TABLE {self.name}.{t}"))
            fp.append(run(c, f"SELECT * FROM {self.name}.{t} ORDER BY 1, 2"))
        return fp

    def close(self):
        for c in [self.conn, *self.extra]:
            try:
                c.close()
            except Exception:
                pass
        try:
            self.myconn.close()
        except Exception:
            pass
        try:
            run(self.admin, f"DROP DATABASE IF EXISTS {self.name}")
            run(self.admin, "DROP DATABASE IF EXISTS nodb_x_created")
        finally:
            self.admin.close()


@pytest.fixture
def db(kiln_shared):
    d = Db(kiln_shared)
    yield d
    d.close()


@pytest.fixture(scope="module")
def _catalog_db(kiln_shared):
    d = Db(kiln_shared)
    d.pristine = d.fingerprint()
    yield d
    d.close()


@pytest.fixture
def cdb(_catalog_db, kiln_shared):
    """The module's catalog database, for statements that must fail and so change
    nothing. Should one succeed against expectations (or leave something behind),
    the database is rebuilt for the next case."""
    d = _catalog_db
    run(d.conn, f"USE {d.name}")
    yield d
    try:
        ok = d.fingerprint() == d.pristine
    except Exception:
        ok = False
    if not ok:
        d.close()
        fresh = Db(kiln_shared)
        d.__dict__.update(fresh.__dict__)
        d.pristine = d.fingerprint()


# (id, statement, errno, SQLSTATE, message); {db} is the test's database.
LONG_NAME = "a" * 65
LONG_TAIL = "WHERE " + " AND ".join(f"col{i} = {i}" for i in range(30))

CASES = [
    # 1146 ER_NO_SUCH_TABLE
    ("1146_select", "SELECT * FROM nope", 1146, "42S02", "Table '{db}.nope' doesn't exist"),
    ("1146_insert", "INSERT INTO nope VALUES (1)", 1146, "42S02", "Table '{db}.nope' doesn't exist"),
    ("1146_update", "UPDATE nope SET a = 1", 1146, "42S02", "Table '{db}.nope' doesn't exist"),
    ("1146_delete", "DELETE FROM nope", 1146, "42S02", "Table '{db}.nope' doesn't exist"),
    ("1146_describe", "DESCRIBE nope", 1146, "42S02", "Table '{db}.nope' doesn't exist"),
    ("1146_show_create", "SHOW CREATE TABLE nope", 1146, "42S02", "Table '{db}.nope' doesn't exist"),
    ("1146_show_columns", "SHOW COLUMNS FROM nope", 1146, "42S02", "Table '{db}.nope' doesn't exist"),
    ("1146_show_index", "SHOW INDEX FROM nope", 1146, "42S02", "Table '{db}.nope' doesn't exist"),
    ("1146_alter", "ALTER TABLE nope ADD COLUMN z INT", 1146, "42S02", "Table '{db}.nope' doesn't exist"),
    ("1146_truncate", "TRUNCATE TABLE nope", 1146, "42S02", "Table '{db}.nope' doesn't exist"),
    ("1146_rename", "RENAME TABLE nope TO nope2", 1146, "42S02", "Table '{db}.nope' doesn't exist"),
    ("1146_join", "SELECT * FROM t JOIN nope ON t.id = nope.id", 1146, "42S02", "Table '{db}.nope' doesn't exist"),
    ("1146_qualified", "SELECT * FROM {db}.nope", 1146, "42S02", "Table '{db}.nope' doesn't exist"),
    ("1146_other_missing_db", "SELECT * FROM nodb_x.t", 1146, "42S02", "Table 'nodb_x.t' doesn't exist"),
    ("1146_insert_select", "INSERT INTO t2 SELECT * FROM nope", 1146, "42S02", "Table '{db}.nope' doesn't exist"),
    ("1146_subquery", "SELECT * FROM t WHERE id IN (SELECT id FROM nope)", 1146, "42S02",
     "Table '{db}.nope' doesn't exist"),
    # 1051 ER_BAD_TABLE_ERROR
    ("1051_drop", "DROP TABLE nope", 1051, "42S02", "Unknown table '{db}.nope'"),
    ("1051_drop_two", "DROP TABLE nope, nope2", 1051, "42S02", "Unknown table '{db}.nope,{db}.nope2'"),
    ("1051_star", "SELECT x.* FROM t", 1051, "42S02", "Unknown table 'x'"),
    # 1054 ER_BAD_FIELD_ERROR
    ("1054_select", "SELECT nope FROM t", 1054, "42S22", "Unknown column 'nope' in 'field list'"),
    ("1054_qualified", "SELECT t.nope FROM t", 1054, "42S22", "Unknown column 't.nope' in 'field list'"),
    ("1054_where", "SELECT * FROM t WHERE nope = 1", 1054, "42S22", "Unknown column 'nope' in 'where clause'"),
    ("1054_order", "SELECT * FROM t ORDER BY nope", 1054, "42S22", "Unknown column 'nope' in 'order clause'"),
    ("1054_group", "SELECT COUNT(*) FROM t GROUP BY nope", 1054, "42S22",
     "Unknown column 'nope' in 'group statement'"),
    ("1054_having", "SELECT id FROM t GROUP BY id HAVING nope > 1", 1054, "42S22",
     "Unknown column 'nope' in 'having clause'"),
    ("1054_on", "SELECT * FROM t JOIN t2 ON t.nope = t2.id", 1054, "42S22", "Unknown column 't.nope' in 'on clause'"),
    ("1054_insert", "INSERT INTO t (id, nope) VALUES (1, 2)", 1054, "42S22", "Unknown column 'nope' in 'field list'"),
    ("1054_update_set", "UPDATE t SET nope = 1", 1054, "42S22", "Unknown column 'nope' in 'field list'"),
    ("1054_update_where", "UPDATE t SET n = 1 WHERE nope = 1", 1054, "42S22",
     "Unknown column 'nope' in 'where clause'"),
    ("1054_delete_where", "DELETE FROM t WHERE nope = 1", 1054, "42S22", "Unknown column 'nope' in 'where clause'"),
    ("1054_alter_rename_column", "ALTER TABLE t RENAME COLUMN nope TO z", 1054, "42S22", "Unknown column 'nope' in 't'"),
    ("1054_alter_modify", "ALTER TABLE t MODIFY nope INT", 1054, "42S22", "Unknown column 'nope' in 't'"),
    ("1054_alter_change", "ALTER TABLE t CHANGE nope z INT", 1054, "42S22", "Unknown column 'nope' in 't'"),
    # 1052 ER_NON_UNIQ_ERROR, 1066 ER_NONUNIQ_TABLE
    ("1052_select", "SELECT id FROM t JOIN t2 ON t.id = t2.id", 1052, "23000", "Column 'id' in field list is ambiguous"),
    ("1052_where", "SELECT t.v FROM t JOIN t2 ON t.id = t2.id WHERE id = 1", 1052, "23000",
     "Column 'id' in where clause is ambiguous"),
    ("1066_alias", "SELECT * FROM t JOIN t", 1066, "42000", "Not unique table/alias: 't'"),
    # 1062 ER_DUP_ENTRY (MySQL 8.0.19+: key name qualified by the table)
    ("1062_pk", "INSERT INTO t (id, v) VALUES (1, 'z')", 1062, "23000", "Duplicate entry '1' for key 't.PRIMARY'"),
    ("1062_unique", "INSERT INTO t (id, v) VALUES (3, 'a')", 1062, "23000", "Duplicate entry 'a' for key 't.uv'"),
    ("1062_unique_ci", "INSERT INTO t (id, v) VALUES (3, 'A')", 1062, "23000", "Duplicate entry 'A' for key 't.uv'"),
    ("1062_update_pk", "UPDATE t SET id = 1 WHERE id = 2", 1062, "23000", "Duplicate entry '1' for key 't.PRIMARY'"),
    ("1062_update_unique", "UPDATE t SET v = 'a' WHERE id = 2", 1062, "23000", "Duplicate entry 'a' for key 't.uv'"),
    ("1062_same_statement", "INSERT INTO t2 VALUES (5, 1), (5, 2)", 1062, "23000",
     "Duplicate entry '5' for key 't2.PRIMARY'"),
    ("1062_composite", "INSERT INTO t3 VALUES (1, 'x')", 1062, "23000", "Duplicate entry '1-x' for key 't3.ab'"),
    ("1062_add_unique", "ALTER TABLE t2 ADD UNIQUE KEY ux (x)", 1062, "23000", "Duplicate entry '7' for key 't2.ux'"),
    ("1062_insert_select", "INSERT INTO t2 SELECT id, 0 FROM t", 1062, "23000",
     "Duplicate entry '1' for key 't2.PRIMARY'"),
    # 1136 ER_WRONG_VALUE_COUNT_ON_ROW
    ("1136_values", "INSERT INTO t2 VALUES (1)", 1136, "21S01", "Column count doesn't match value count at row 1"),
    ("1136_list", "INSERT INTO t2 (id, x) VALUES (1)", 1136, "21S01", "Column count doesn't match value count at row 1"),
    ("1136_row2", "INSERT INTO t2 VALUES (10, 1), (11)", 1136, "21S01", "Column count doesn't match value count at row 2"),
    ("1136_insert_select", "INSERT INTO t2 SELECT id FROM t", 1136, "21S01",
     "Column count doesn't match value count at row 1"),
    # 1048 ER_BAD_NULL_ERROR
    ("1048_insert", "INSERT INTO t (id, v) VALUES (3, NULL)", 1048, "23000", "Column 'v' cannot be null"),
    ("1048_multirow", "INSERT INTO t (id, v) VALUES (3, 'c'), (4, NULL)", 1048, "23000", "Column 'v' cannot be null"),
    ("1048_update", "UPDATE t SET v = NULL WHERE id = 1", 1048, "23000", "Column 'v' cannot be null"),
    ("1048_pk", "INSERT INTO t2 VALUES (NULL, 1)", 1048, "23000", "Column 'id' cannot be null"),
    # 1364 ER_NO_DEFAULT_FOR_FIELD (strict mode)
    ("1364_insert", "INSERT INTO t (id) VALUES (3)", 1364, "HY000", "Field 'v' doesn't have a default value"),
    ("1364_set_form", "INSERT INTO t SET id = 3", 1364, "HY000", "Field 'v' doesn't have a default value"),
    ("1364_pk", "INSERT INTO t2 (x) VALUES (3)", 1364, "HY000", "Field 'id' doesn't have a default value"),
    # 1406 ER_DATA_TOO_LONG
    ("1406_varchar", "INSERT INTO t (id, v) VALUES (3, 'abcd')", 1406, "22001", "Data too long for column 'v' at row 1"),
    ("1406_char", "INSERT INTO t (id, v, c) VALUES (3, 'c', 'abc')", 1406, "22001", "Data too long for column 'c' at row 1"),
    ("1406_row2", "INSERT INTO t (id, v) VALUES (3, 'c'), (4, 'dddd')", 1406, "22001",
     "Data too long for column 'v' at row 2"),
    ("1406_update", "UPDATE t SET v = 'abcd' WHERE id = 1", 1406, "22001", "Data too long for column 'v' at row 1"),
    # 1264 ER_WARN_DATA_OUT_OF_RANGE (strict mode)
    ("1264_tinyint", "INSERT INTO t (id, v, ti) VALUES (3, 'c', 300)", 1264, "22003",
     "Out of range value for column 'ti' at row 1"),
    ("1264_tinyint_neg", "INSERT INTO t (id, v, ti) VALUES (3, 'c', -129)", 1264, "22003",
     "Out of range value for column 'ti' at row 1"),
    ("1264_unsigned", "INSERT INTO t (id, v, u) VALUES (3, 'c', -1)", 1264, "22003",
     "Out of range value for column 'u' at row 1"),
    ("1264_int", "INSERT INTO t (id, v, n) VALUES (3, 'c', 2147483648)", 1264, "22003",
     "Out of range value for column 'n' at row 1"),
    ("1264_decimal", "INSERT INTO t (id, v, d) VALUES (3, 'c', 1000)", 1264, "22003",
     "Out of range value for column 'd' at row 1"),
    ("1264_row2", "INSERT INTO t (id, v, ti) VALUES (3, 'c', 1), (4, 'd', 128)", 1264, "22003",
     "Out of range value for column 'ti' at row 2"),
    ("1264_update", "UPDATE t SET ti = 128 WHERE id = 1", 1264, "22003", "Out of range value for column 'ti' at row 1"),
    # 1366 ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, 1365 ER_DIVISION_BY_ZERO (strict mode)
    ("1366_integer", "INSERT INTO t (id, v, n) VALUES (3, 'c', 'abc')", 1366, "HY000",
     "Incorrect integer value: 'abc' for column 'n' at row 1"),
    ("1365_insert", "INSERT INTO t (id, v, n) VALUES (3, 'c', 1/0)", 1365, "22012", "Division by 0"),
    # 1050 ER_TABLE_EXISTS_ERROR
    ("1050_create", "CREATE TABLE t (a INT)", 1050, "42S01", "Table 't' already exists"),
    ("1050_rename", "RENAME TABLE t TO t2", 1050, "42S01", "Table 't2' already exists"),
    ("1050_alter_rename", "ALTER TABLE t RENAME TO t2", 1050, "42S01", "Table 't2' already exists"),
    # 1007 / 1008 / 1049
    ("1007_create_db", "CREATE DATABASE {db}", 1007, "HY000", "Can't create database '{db}'; database exists"),
    ("1008_drop_db", "DROP DATABASE nodb_x", 1008, "HY000", "Can't drop database 'nodb_x'; database doesn't exist"),
    ("1049_use", "USE nodb_x", 1049, "42000", "Unknown database 'nodb_x'"),
    ("1049_create_table", "CREATE TABLE nodb_x.t (a INT)", 1049, "42000", "Unknown database 'nodb_x'"),
    # 1068 ER_MULTIPLE_PRI_KEY
    ("1068_create", "CREATE TABLE x (a INT PRIMARY KEY, b INT PRIMARY KEY)", 1068, "42000", "Multiple primary key defined"),
    ("1068_mixed", "CREATE TABLE x (a INT PRIMARY KEY, b INT, PRIMARY KEY (b))", 1068, "42000",
     "Multiple primary key defined"),
    ("1068_alter", "ALTER TABLE t ADD PRIMARY KEY (n)", 1068, "42000", "Multiple primary key defined"),
    # 1060 ER_DUP_FIELDNAME
    ("1060_create", "CREATE TABLE x (a INT, b INT, a INT)", 1060, "42S21", "Duplicate column name 'a'"),
    ("1060_case", "CREATE TABLE x (a INT, A INT)", 1060, "42S21", "Duplicate column name 'A'"),
    ("1060_alter", "ALTER TABLE t ADD COLUMN n INT", 1060, "42S21", "Duplicate column name 'n'"),
    ("1060_alter_rename", "ALTER TABLE t RENAME COLUMN n TO v", 1060, "42S21", "Duplicate column name 'v'"),
    # 1061 ER_DUP_KEYNAME
    ("1061_create", "CREATE TABLE x (a INT, b INT, KEY k (a), KEY k (b))", 1061, "42000", "Duplicate key name 'k'"),
    ("1061_alter", "ALTER TABLE t ADD INDEX uv (n)", 1061, "42000", "Duplicate key name 'uv'"),
    ("1061_create_index", "CREATE INDEX uv ON t (n)", 1061, "42000", "Duplicate key name 'uv'"),
    # 1072 ER_KEY_COLUMN_DOES_NOT_EXITS
    ("1072_create", "CREATE TABLE x (a INT, KEY (nope))", 1072, "42000", "Key column 'nope' doesn't exist in table"),
    ("1072_pk", "CREATE TABLE x (a INT, PRIMARY KEY (nope))", 1072, "42000", "Key column 'nope' doesn't exist in table"),
    ("1072_alter", "ALTER TABLE t ADD INDEX k (nope)", 1072, "42000", "Key column 'nope' doesn't exist in table"),
    # 1170 ER_BLOB_KEY_WITHOUT_LENGTH
    ("1170_blob", "CREATE TABLE x (b BLOB, KEY (b))", 1170, "42000",
     "BLOB/TEXT column 'b' used in key specification without a key length"),
    ("1170_text_pk", "CREATE TABLE x (b TEXT NOT NULL, PRIMARY KEY (b))", 1170, "42000",
     "BLOB/TEXT column 'b' used in key specification without a key length"),
    ("1170_alter", "ALTER TABLE t ADD INDEX kb (b)", 1170, "42000",
     "BLOB/TEXT column 'b' used in key specification without a key length"),
    # 1075 ER_WRONG_AUTO_KEY
    ("1075_not_key", "CREATE TABLE x (a INT AUTO_INCREMENT, b INT)", 1075, "42000",
     "Incorrect table definition; there can be only one auto column and it must be defined as a key"),
    ("1075_two_auto", "CREATE TABLE x (a INT AUTO_INCREMENT PRIMARY KEY, b INT AUTO_INCREMENT, KEY (b))", 1075, "42000",
     "Incorrect table definition; there can be only one auto column and it must be defined as a key"),
    # 1091 ER_CANT_DROP_FIELD_OR_KEY, 1090 ER_CANT_REMOVE_ALL_FIELDS
    ("1091_column", "ALTER TABLE t DROP COLUMN nope", 1091, "42000", "Can't DROP 'nope'; check that column/key exists"),
    ("1091_index", "ALTER TABLE t DROP INDEX nope", 1091, "42000", "Can't DROP 'nope'; check that column/key exists"),
    ("1091_drop_index", "DROP INDEX nope ON t", 1091, "42000", "Can't DROP 'nope'; check that column/key exists"),
    ("1090_all_columns", "ALTER TABLE t2 DROP COLUMN id, DROP COLUMN x", 1090, "42000",
     "You can't delete all columns with ALTER TABLE; use DROP TABLE instead"),
    # 1067 ER_INVALID_DEFAULT
    ("1067_int", "CREATE TABLE x (a INT DEFAULT 'abc')", 1067, "42000", "Invalid default value for 'a'"),
    ("1067_range", "CREATE TABLE x (a TINYINT DEFAULT 1000)", 1067, "42000", "Invalid default value for 'a'"),
    ("1067_length", "CREATE TABLE x (a VARCHAR(2) DEFAULT 'abc')", 1067, "42000", "Invalid default value for 'a'"),
    ("1067_not_null", "CREATE TABLE x (a INT NOT NULL DEFAULT NULL)", 1067, "42000", "Invalid default value for 'a'"),
    # 1171 ER_PRIMARY_CANT_HAVE_NULL, 1074 ER_TOO_BIG_FIELDLENGTH, 1059 ER_TOO_LONG_IDENT
    ("1171_null_pk", "CREATE TABLE x (a INT NULL, PRIMARY KEY (a))", 1171, "42000",
     "All parts of a PRIMARY KEY must be NOT NULL; if you need NULL in a key, use UNIQUE instead"),
    ("1074_varchar", "CREATE TABLE x (a VARCHAR(70000))", 1074, "42000",
     "Column length too big for column 'a' (max = 16383); use BLOB or TEXT instead"),
    ("1059_table", f"CREATE TABLE {LONG_NAME} (a INT)", 1059, "42000", f"Identifier name '{LONG_NAME}' is too long"),
    ("1059_column", f"CREATE TABLE x ({LONG_NAME} INT)", 1059, "42000", f"Identifier name '{LONG_NAME}' is too long"),
    # query-shape errors
    ("1242_subquery_rows", "SELECT * FROM t WHERE id = (SELECT id FROM t)", 1242, "21000", "Subquery returns more than 1 row"),
    ("1241_operand", "SELECT * FROM t WHERE id IN (SELECT id, v FROM t)", 1241, "21000", "Operand should contain 1 column(s)"),
    ("1248_derived_alias", "SELECT * FROM (SELECT id FROM t)", 1248, "42000", "Every derived table must have its own alias"),
    ("1222_union_columns", "SELECT id FROM t UNION SELECT id, v FROM t", 1222, "21000",
     "The used SELECT statements have a different number of columns"),
    ("1111_group_function", "SELECT * FROM t WHERE COUNT(*) > 1", 1111, "HY000", "Invalid use of group function"),
    ("1055_full_group_by", "SELECT v, COUNT(*) FROM t GROUP BY n", 1055, "42000",
     "Expression #1 of SELECT list is not in GROUP BY clause and contains nonaggregated column '{db}.t.v' "
     "which is not functionally dependent on columns in GROUP BY clause; this is incompatible with "
     "sql_mode=only_full_group_by"),
    ("1093_delete_self", "DELETE FROM t WHERE id IN (SELECT id FROM t)", 1093, "HY000",
     "You can't specify target table 't' for update in FROM clause"),
    ("1093_update_self", "UPDATE t SET n = 1 WHERE id IN (SELECT id FROM t)", 1093, "HY000",
     "You can't specify target table 't' for update in FROM clause"),
    # 1064 ER_PARSE_ERROR: the rest of the statement from the offending token,
    # at most 80 characters, and its line
    ("1064_typo", "SELEC 1", 1064, "42000", PARSE.format("SELEC 1", 1)),
    ("1064_form", "SELECT * FORM t", 1064, "42000", PARSE.format("FORM t", 1)),
    ("1064_eof", "SELECT * FROM t WHERE", 1064, "42000", PARSE.format("", 1)),
    ("1064_trailing_comma", "CREATE TABLE x (a INT,)", 1064, "42000", PARSE.format(")", 1)),
    ("1064_line2", "SELECT *\nFORM t", 1064, "42000", PARSE.format("FORM t", 2)),
    ("1064_values", "INSERT INTO t2 VALUES 1, 2", 1064, "42000", PARSE.format("1, 2", 1)),
    ("1064_reserved", "CREATE TABLE select (a INT)", 1064, "42000", PARSE.format("select (a INT)", 1)),
    ("1064_truncated", "SELECT * FORM t " + LONG_TAIL, 1064, "42000",
     PARSE.format(("FORM t " + LONG_TAIL)[:80], 1)),
]


@pytest.mark.parametrize("sql,errno,sqlstate,msg", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_error(cdb, sql, errno, sqlstate, msg):
    sql = sql.replace("{db}", cdb.name)
    msg = msg.replace("{db}", cdb.name)
    assert pymysql_error(cdb.conn, sql) == (errno, msg)
    assert connector_error(cdb.myconn, sql) == (errno, sqlstate, msg)


# -- errors that need a particular session -------------------------------------------


@pytest.mark.parametrize("sql", ["CREATE TABLE t (a INT)", "SELECT * FROM t", "INSERT INTO t VALUES (1)",
                                 "SHOW TABLES", "DROP TABLE t"])
def test_no_database_selected_1046(kiln_shared, sql):
    c = kiln_shared.connect()
    try:
        assert pymysql_error(c, sql) == (1046, "No database selected")
    finally:
        c.close()
    m = mysql.connector.connect(host="127.0.0.1", port=kiln_shared.port, user="root", password="",
                                ssl_disabled=True)
    try:
        assert connector_error(m, sql) == (1046, "3D000", "No database selected")
    finally:
        m.close()


def test_connect_to_unknown_database_1049(kiln_shared):
    with pytest.raises(pymysql.MySQLError) as e:
        kiln_shared.connect(database="nodb_x")
    assert e.value.args == (1049, "Unknown database 'nodb_x'")


def test_dropped_database_is_unknown_afterwards(db):
    c = db.conn
    run(c, "CREATE DATABASE nodb_x_created")
    run(c, "CREATE TABLE nodb_x_created.t (a INT)")
    run(c, "DROP DATABASE nodb_x_created")
    assert pymysql_error(c, "USE nodb_x_created") == (1049, "Unknown database 'nodb_x_created'")
    assert pymysql_error(c, "SELECT * FROM nodb_x_created.t") == (
        1146, "Table 'nodb_x_created.t' doesn't exist"
    )


def test_error_message_uses_the_current_database_for_unqualified_names(db):
    c = db.conn
    run(c, "CREATE DATABASE nodb_x_created")
    run(c, "USE nodb_x_created")
    assert pymysql_error(c, "SELECT * FROM nope") == (1146, "Table 'nodb_x_created.nope' doesn't exist")
    assert pymysql_error(c, f"SELECT * FROM {db.name}.nope") == (1146, f"Table '{db.name}.nope' doesn't exist")


# -- warnings instead of errors -------------------------------------------------------


def test_insert_ignore_turns_duplicate_into_warning(db):
    c = db.conn
    with c.cursor() as cur:
        assert cur.execute("INSERT IGNORE INTO t (id, v) VALUES (1, 'q')") == 0
        assert cur.warning_count == 1
    assert warnings(c) == [("Warning", 1062, "Duplicate entry '1' for key 't.PRIMARY'")]


def test_non_strict_mode_gives_warnings_and_adjusted_values(db):
    c = db.conn
    run(c, "SET SESSION sql_mode = ''")
    got = []
    with c.cursor() as cur:
        cur.execute("INSERT INTO t (id) VALUES (3)")
        assert cur.warning_count == 1
    got.append(warnings(c))
    run(c, "INSERT INTO t (id, v) VALUES (4, 'abcdef')")
    got.append(warnings(c))
    run(c, "INSERT INTO t (id, v, ti) VALUES (5, 'e', 300)")
    got.append(warnings(c))
    assert run(c, "SELECT id, v, ti FROM t WHERE id >= 3 ORDER BY id") == [
        (3, "", None), (4, "abc", None), (5, "e", 127)
    ]
    assert got == [
        [("Warning", 1364, "Field 'v' doesn't have a default value")],
        [("Warning", 1265, "Data truncated for column 'v' at row 1")],
        [("Warning", 1264, "Out of range value for column 'ti' at row 1")],
    ]


def test_division_by_zero_in_select_is_null_with_warning(db):
    c = db.conn
    assert run(c, "SELECT 1/0") == [(None,)]
    assert warnings(c) == [("Warning", 1365, "Division by 0")]


def test_show_warnings_after_error_lists_the_error(db):
    c = db.conn
    pymysql_error(c, "SELECT * FROM nope")
    assert warnings(c) == [("Error", 1146, f"Table '{db.name}.nope' doesn't exist")]


# -- statement atomicity ---------------------------------------------------------------


@pytest.fixture
def atom(db):
    c = db.conn
    run(c, "CREATE TABLE a (id INT PRIMARY KEY, u VARCHAR(5) NOT NULL, ti TINYINT, UNIQUE KEY uu (u), KEY kti (ti))")
    run(c, "INSERT INTO a VALUES (1, 'one', 1), (2, 'two', 2)")
    return db


def a_state(c):
    return {
        "rows": run(c, "SELECT * FROM a ORDER BY id"),
        "by_u": run(c, "SELECT id FROM a WHERE u IN ('x10', 'x11', 'x12', 'x13', 'one', 'two') ORDER BY id"),
        "by_ti": run(c, "SELECT id FROM a WHERE ti BETWEEN 0 AND 100 ORDER BY id"),
        "count": run(c, "SELECT COUNT(*) FROM a"),
    }


ORIGINAL = {
    "rows": [(1, "one", 1), (2, "two", 2)],
    "by_u": [(1,), (2,)],
    "by_ti": [(1,), (2,)],
    "count": [(2,)],
}

FAILING = [
    # (statement, errno): each fails on a row after the first.
    ("INSERT INTO a VALUES (10, 'x10', 10), (11, 'x11', 11), (1, 'x12', 12)", 1062),  # primary key
    ("INSERT INTO a VALUES (10, 'x10', 10), (11, 'x11', 11), (12, 'one', 12)", 1062),  # unique key
    ("INSERT INTO a VALUES (10, 'x10', 10), (11, NULL, 11)", 1048),
    ("INSERT INTO a VALUES (10, 'x10', 10), (11, 'x11', 11), (12, 'x12long', 12)", 1406),
    ("INSERT INTO a VALUES (10, 'x10', 10), (11, 'x11', 11), (12, 'x12', 500)", 1264),
    ("INSERT INTO a VALUES (10, 'x10', 10), (10, 'x11', 11)", 1062),  # within the statement
    ("INSERT INTO a SELECT id + 10, CONCAT('x', id + 10), 1 FROM a UNION ALL SELECT 1, 'x13', 1", 1062),
    ("UPDATE a SET ti = ti * 100", 1264),  # row 1 fine (100), row 2 overflows (200)
    ("UPDATE a SET u = CONCAT(u, REPEAT('z', id * 2))", 1406),  # row 1 fits (5), row 2 does not (7)
]


@pytest.mark.parametrize("sql,errno", FAILING, ids=[f"stmt{i}" for i in range(len(FAILING))])
def test_failed_statement_leaves_nothing_autocommit(atom, sql, errno):
    c = atom.conn
    assert pymysql_error(c, sql)[0] == errno
    assert a_state(c) == ORIGINAL
    other = atom.connect()
    assert a_state(other) == ORIGINAL


@pytest.mark.parametrize("sql,errno", FAILING, ids=[f"stmt{i}" for i in range(len(FAILING))])
def test_failed_statement_in_transaction_is_undone_and_transaction_goes_on(atom, sql, errno):
    c = atom.conn
    other = atom.connect()
    run(c, "BEGIN")
    run(c, "INSERT INTO a VALUES (50, 'keep', 50)")
    run(c, "UPDATE a SET u = 'ONE' WHERE id = 1")
    assert pymysql_error(c, sql)[0] == errno
    mine = {
        "rows": [(1, "ONE", 1), (2, "two", 2), (50, "keep", 50)],
        "by_u": [(1,), (2,)],
        "by_ti": [(1,), (2,), (50,)],
        "count": [(3,)],
    }
    assert a_state(c) == mine
    # Still inside the transaction: the other session sees none of it yet.
    assert a_state(other) == ORIGINAL
    run(c, "COMMIT")
    assert a_state(other) == mine


def test_failed_statement_in_transaction_then_rollback(atom):
    c = atom.conn
    run(c, "START TRANSACTION")
    run(c, "INSERT INTO a VALUES (50, 'keep', 50)")
    assert pymysql_error(c, FAILING[0][0])[0] == 1062
    run(c, "ROLLBACK")
    assert a_state(c) == ORIGINAL


def test_failed_statement_keeps_auto_increment_rows_out(db):
    c = db.conn
    run(c, "CREATE TABLE ai (id INT AUTO_INCREMENT PRIMARY KEY, u INT, UNIQUE KEY uu (u))")
    run(c, "INSERT INTO ai (u) VALUES (1)")
    assert pymysql_error(c, "INSERT INTO ai (u) VALUES (2), (3), (1)")[0] == 1062
    assert run(c, "SELECT u FROM ai ORDER BY u") == [(1,)]
    run(c, "SET autocommit = 0")
    assert pymysql_error(c, "INSERT INTO ai (u) VALUES (4), (1)")[0] == 1062
    run(c, "INSERT INTO ai (u) VALUES (5)")
    run(c, "COMMIT")
    assert run(c, "SELECT u FROM ai ORDER BY u") == [(1,), (5,)]
