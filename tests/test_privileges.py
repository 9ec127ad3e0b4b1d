"""Privileges end to end: GRANT / REVOKE at the global, database and table levels,
SHOW GRANTS, the checks every statement makes, resource limits and the accounts file.

MySQL 8.0 is the reference (error numbers, SQLSTATEs, texts, SHOW GRANTS lines). The
last tests run the same script on kiln and on a private MariaDB 10.11 and compare
where the two servers agree (error numbers; 1044/1227/1141 texts; SHOW GRANTS lines
of database and table grants). MariaDB words 1142 differently ("for table `db`.`t`")
and lists global ALL as "ALL PRIVILEGES", so those are checked against MySQL 8.0's
documented forms only.

Most tests share one server and use their own user and database names.
"""

import itertools
import time

import pymysql
import pytest

from mariadb_server import start_private_mariadb

_n = itertools.count()

ROOT_GLOBAL = (
    "SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, RELOAD, SHUTDOWN, PROCESS, FILE, "
    "REFERENCES, INDEX, ALTER, SHOW DATABASES, SUPER, CREATE TEMPORARY TABLES, "
    "LOCK TABLES, EXECUTE, REPLICATION SLAVE, REPLICATION CLIENT, CREATE VIEW, "
    "SHOW VIEW, CREATE ROUTINE, ALTER ROUTINE, CREATE USER, EVENT, TRIGGER, "
    "CREATE TABLESPACE, CREATE ROLE, DROP ROLE"
)


def run(c, sql, args=None):
    with c.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall()


def err(c, sql):
    """Runs `sql`, which must fail; returns (errno, message)."""
    with pytest.raises(pymysql.err.MySQLError) as ei:
        run(c, sql)
    return ei.value.args[0], ei.value.args[1]


def grants(c, who=None):
    sql = "SHOW GRANTS" if who is None else f"SHOW GRANTS FOR {who}"
    return [r[0] for r in run(c, sql)]


@pytest.fixture(scope="module")
def srv(kiln_shared):
    return kiln_shared


@pytest.fixture
def env(srv):
    """A fresh user `u<n>`@'%' (password 'pw') and database `d<n>` with tables t and
    s, rows in t. Returns (root connection, user name, db name, login function)."""
    n = next(_n)
    user, db = f"u{n}", f"d{n}"
    root = srv.connect()
    run(root, f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'")
    run(root, f"CREATE DATABASE {db}")
    run(root, f"CREATE TABLE {db}.t (id INT PRIMARY KEY, a INT)")
    run(root, f"CREATE TABLE {db}.s (id INT PRIMARY KEY, b INT)")
    run(root, f"INSERT INTO {db}.t VALUES (1, 10), (2, 20)")
    run(root, f"INSERT INTO {db}.s VALUES (1, 100)")

    def login(**kw):
        return srv.connect(user=user, password="pw", **kw)

    yield root, user, db, login
    root.close()


def denied(priv, user, table):
    return (1142, f"{priv} command denied to user '{user}'@'localhost' for table '{table}'")


# -- SHOW GRANTS -------------------------------------------------------------------------


def test_root_has_all_privileges_with_grant_option(srv):
    c = srv.connect()
    assert grants(c) == [f"GRANT {ROOT_GLOBAL} ON *.* TO `root`@`localhost` WITH GRANT OPTION"]
    assert grants(c, "CURRENT_USER()") == grants(c)
    assert grants(c, "CURRENT_USER") == grants(c)
    assert grants(c, "root@localhost") == grants(c)
    cols = c.cursor()
    cols.execute("SHOW GRANTS")
    assert cols.description[0][0] == "Grants for root@localhost"


def test_show_grants_lines_per_level(env):
    root, u, db, login = env
    assert grants(root, u) == [f"GRANT USAGE ON *.* TO `{u}`@`%`"]
    run(root, f"GRANT SELECT, INSERT ON {db}.* TO '{u}'@'%'")
    run(root, f"GRANT UPDATE ON {db}.t TO {u}")
    run(root, f"GRANT PROCESS, RELOAD ON *.* TO {u} WITH GRANT OPTION")
    run(root, f"GRANT ALL PRIVILEGES ON `x{db}`.* TO {u}")
    run(root, f"GRANT ALL ON {db}.s TO {u}")
    assert grants(root, u) == [
        f"GRANT RELOAD, PROCESS ON *.* TO `{u}`@`%` WITH GRANT OPTION",
        f"GRANT SELECT, INSERT ON `{db}`.* TO `{u}`@`%`",
        f"GRANT ALL PRIVILEGES ON `x{db}`.* TO `{u}`@`%`",
        f"GRANT ALL PRIVILEGES ON `{db}`.`s` TO `{u}`@`%`",
        f"GRANT UPDATE ON `{db}`.`t` TO `{u}`@`%`",
    ]
    # the user sees its own grants, by every spelling
    c = login()
    assert grants(c) == grants(root, u)
    assert grants(c, "CURRENT_USER()") == grants(root, u)
    assert grants(c, f"'{u}'@'%'") == grants(root, u)


def test_show_grants_of_others_needs_select_on_mysql(env):
    root, u, db, login = env
    c = login()
    assert err(c, "SHOW GRANTS FOR root@localhost") == (
        1044,
        f"Access denied for user '{u}'@'%' to database 'mysql'",
    )
    run(root, f"GRANT SELECT ON mysql.* TO {u}")
    assert grants(c, "root@localhost")[0].startswith("GRANT SELECT, INSERT")


def test_show_grants_for_missing_user_is_1141(srv):
    c = srv.connect()
    assert err(c, "SHOW GRANTS FOR nobody") == (
        1141,
        "There is no such grant defined for user 'nobody' on host '%'",
    )


# -- GRANT / REVOKE errors ---------------------------------------------------------------


def test_grant_errors(env):
    root, u, db, _ = env
    assert err(root, f"GRANT SELECT ON {db}.* TO nobody") == (
        1410,
        "You are not allowed to create a user with GRANT",
    )
    # all or nothing: u gets nothing from a statement that names a missing user too
    err(root, f"GRANT SELECT ON {db}.* TO {u}, nobody")
    assert grants(root, u) == [f"GRANT USAGE ON *.* TO `{u}`@`%`"]
    assert err(root, f"GRANT SUPER ON {db}.* TO {u}") == (
        1221,
        "Incorrect usage of DB GRANT and GLOBAL PRIVILEGES",
    )
    assert err(root, f"GRANT EXECUTE ON {db}.t TO {u}")[0] == 1144
    assert err(root, f"GRANT SELECT ON {db}.nosuch TO {u}") == (
        1146,
        f"Table '{db}.nosuch' doesn't exist",
    )
    assert err(root, f"GRANT BOGUS ON *.* TO {u}")[0] == 1064
    assert err(root, f"GRANT SELECT ON t TO {u}")[0] == 1046


def test_revoke(env):
    root, u, db, _ = env
    assert err(root, f"REVOKE SELECT ON {db}.* FROM {u}") == (
        1141,
        f"There is no such grant defined for user '{u}' on host '%'",
    )
    assert err(root, f"REVOKE SELECT ON {db}.t FROM {u}") == (
        1147,
        f"There is no such grant defined for user '{u}' on host '%' on table 't'",
    )
    assert err(root, f"REVOKE SELECT ON *.* FROM nobody")[0] == 1141
    run(root, f"GRANT SELECT, INSERT, UPDATE ON {db}.* TO {u} WITH GRANT OPTION")
    run(root, f"GRANT SELECT, DELETE ON {db}.t TO {u}")
    run(root, f"GRANT PROCESS ON *.* TO {u}")
    run(root, f"REVOKE INSERT, GRANT OPTION ON {db}.* FROM {u}")
    run(root, f"REVOKE SELECT ON {db}.t FROM {u}")
    # revoking a global privilege that is not held is not an error
    run(root, f"REVOKE SUPER ON *.* FROM {u}")
    assert grants(root, u) == [
        f"GRANT PROCESS ON *.* TO `{u}`@`%`",
        f"GRANT SELECT, UPDATE ON `{db}`.* TO `{u}`@`%`",
        f"GRANT DELETE ON `{db}`.`t` TO `{u}`@`%`",
    ]
    # a table grant revoked to nothing is gone
    run(root, f"REVOKE DELETE ON {db}.t FROM {u}")
    assert err(root, f"REVOKE DELETE ON {db}.t FROM {u}")[0] == 1147
    run(root, f"REVOKE ALL PRIVILEGES, GRANT OPTION FROM {u}")
    assert grants(root, u) == [f"GRANT USAGE ON *.* TO `{u}`@`%`"]
    assert err(root, "REVOKE ALL PRIVILEGES, GRANT OPTION FROM nobody") == (
        1269,
        "Can't revoke all privileges for one or more of the requested users",
    )


def test_grant_needs_grant_option_and_the_privileges(env):
    root, u, db, login = env
    run(root, f"CREATE USER '{u}x'@'%'")
    c = login()
    assert err(c, f"GRANT SELECT ON *.* TO {u}x") == (
        1045,
        f"Access denied for user '{u}'@'%' (using password: YES)",
    )
    assert err(c, f"GRANT SELECT ON {db}.* TO {u}x") == (
        1044,
        f"Access denied for user '{u}'@'%' to database '{db}'",
    )
    # MySQL lists every missing privilege (get_privilege_desc)
    assert err(c, f"GRANT SELECT ON {db}.t TO {u}x") == denied("SELECT, GRANT", u, "t")
    # holding SELECT is not enough without GRANT OPTION
    run(root, f"GRANT SELECT ON {db}.t TO {u}")
    assert err(c, f"GRANT SELECT ON {db}.t TO {u}x") == denied("GRANT", u, "t")
    run(root, f"GRANT SELECT ON {db}.* TO {u} WITH GRANT OPTION")
    run(c, f"GRANT SELECT ON {db}.* TO {u}x")
    run(c, f"GRANT SELECT ON {db}.t TO {u}x")
    # ... but only what it holds
    assert err(c, f"GRANT INSERT ON {db}.* TO {u}x")[0] == 1044
    assert grants(root, f"{u}x") == [
        f"GRANT USAGE ON *.* TO `{u}x`@`%`",
        f"GRANT SELECT ON `{db}`.* TO `{u}x`@`%`",
        f"GRANT SELECT ON `{db}`.`t` TO `{u}x`@`%`",
    ]
    run(root, f"DROP USER {u}x")


# -- checks on statements ----------------------------------------------------------------


def test_select_needs_select_on_every_table(env):
    root, u, db, login = env
    c = login()
    assert err(c, f"SELECT * FROM {db}.t") == denied("SELECT", u, "t")
    # a table that does not exist is still 1142 (privileges are checked first)
    assert err(c, f"SELECT * FROM {db}.nosuch") == denied("SELECT", u, "nosuch")
    run(root, f"GRANT SELECT ON {db}.t TO {u}")
    assert run(c, f"SELECT a FROM {db}.t ORDER BY id") == ((10,), (20,))
    # joins, subqueries and derived tables read s too
    for sql in [
        f"SELECT * FROM {db}.t JOIN {db}.s USING (id)",
        f"SELECT * FROM {db}.t, {db}.s",
        f"SELECT (SELECT b FROM {db}.s LIMIT 1) FROM {db}.t",
        f"SELECT * FROM {db}.t WHERE id IN (SELECT id FROM {db}.s)",
        f"SELECT * FROM {db}.t WHERE EXISTS (SELECT 1 FROM {db}.s)",
        f"SELECT * FROM (SELECT * FROM {db}.s) AS x",
        f"SELECT id FROM {db}.t UNION SELECT id FROM {db}.s",
    ]:
        assert err(c, sql) == denied("SELECT", u, "s"), sql
    run(root, f"GRANT SELECT ON {db}.* TO {u}")
    assert run(c, f"SELECT t.a, s.b FROM {db}.t JOIN {db}.s USING (id)") == ((10, 100),)


def test_unqualified_tables_use_the_current_database(env):
    root, u, db, login = env
    run(root, f"GRANT SELECT ON {db}.t TO {u}")
    c = login(database=db)
    assert run(c, "SELECT COUNT(*) FROM t") == ((2,),)
    assert err(c, "SELECT * FROM s") == denied("SELECT", u, "s")


def test_dml_privileges(env):
    root, u, db, login = env
    c = login()
    run(root, f"GRANT SELECT ON {db}.t TO {u}")
    assert err(c, f"INSERT INTO {db}.t VALUES (3, 30)") == denied("INSERT", u, "t")
    assert err(c, f"UPDATE {db}.t SET a = 1") == denied("UPDATE", u, "t")
    assert err(c, f"DELETE FROM {db}.t") == denied("DELETE", u, "t")
    run(root, f"GRANT INSERT ON {db}.t TO {u}")
    run(c, f"INSERT INTO {db}.t VALUES (3, 30)")
    # REPLACE needs DELETE too; ON DUPLICATE KEY UPDATE needs UPDATE
    assert err(c, f"REPLACE INTO {db}.t VALUES (3, 31)") == denied("DELETE", u, "t")
    assert err(c, f"REPLACE INTO {db}.s VALUES (3, 31)") == denied("INSERT, DELETE", u, "s")
    assert err(
        c, f"INSERT INTO {db}.t VALUES (3, 32) ON DUPLICATE KEY UPDATE a = 32"
    ) == denied("UPDATE", u, "t")
    # INSERT ... SELECT reads its source
    assert err(c, f"INSERT INTO {db}.t SELECT id + 10, b FROM {db}.s") == denied("SELECT", u, "s")
    run(root, f"GRANT UPDATE, DELETE ON {db}.t TO {u}")
    run(c, f"REPLACE INTO {db}.t VALUES (3, 31)")
    run(c, f"UPDATE {db}.t SET a = a + 1 WHERE id = 3")
    run(c, f"DELETE FROM {db}.t WHERE id = 3")
    assert run(root, f"SELECT COUNT(*) FROM {db}.t") == ((2,),)


def test_update_and_delete_reading_columns_need_select(env):
    root, u, db, login = env
    run(root, f"GRANT UPDATE, DELETE ON {db}.t TO {u}")
    c = login()
    run(c, f"UPDATE {db}.t SET a = 5")
    assert err(c, f"UPDATE {db}.t SET a = 6 WHERE id = 1") == (
        1143,
        f"SELECT command denied to user '{u}'@'localhost' for column 'id' in table 't'",
    )
    assert err(c, f"DELETE FROM {db}.t WHERE a = 5")[0] == 1143
    run(root, f"GRANT SELECT ON {db}.t TO {u}")
    run(c, f"UPDATE {db}.t SET a = 6 WHERE id = 1")
    # multi-table: UPDATE on the target, SELECT on the table only read
    assert err(
        c, f"UPDATE {db}.t JOIN {db}.s ON t.id = s.id SET t.a = s.b"
    ) == denied("SELECT", u, "s")
    assert err(c, f"DELETE t FROM {db}.t JOIN {db}.s ON t.id = s.id") == denied(
        "SELECT", u, "s"
    )
    run(root, f"GRANT SELECT ON {db}.s TO {u}")
    run(c, f"UPDATE {db}.t JOIN {db}.s ON t.id = s.id SET t.a = s.b")
    assert err(c, f"UPDATE {db}.t JOIN {db}.s ON t.id = s.id SET s.b = 1") == denied(
        "UPDATE", u, "s"
    )
    assert run(root, f"SELECT a FROM {db}.t WHERE id = 1") == ((100,),)


def test_ddl_privileges(env):
    root, u, db, login = env
    c = login()
    assert err(c, f"CREATE TABLE {db}.n (a INT)") == denied("CREATE", u, "n")
    assert err(c, f"DROP TABLE {db}.t") == denied("DROP", u, "t")
    assert err(c, f"TRUNCATE TABLE {db}.t") == denied("DROP", u, "t")
    assert err(c, f"ALTER TABLE {db}.t ADD COLUMN c INT") == denied("ALTER", u, "t")
    assert err(c, f"CREATE INDEX ia ON {db}.t (a)") == denied("INDEX", u, "t")
    assert err(c, f"DROP INDEX ia ON {db}.t") == denied("INDEX", u, "t")
    assert err(c, f"RENAME TABLE {db}.t TO {db}.t2") == denied("DROP, ALTER", u, "t")
    assert err(c, f"CREATE DATABASE {db}x") == (
        1044,
        f"Access denied for user '{u}'@'%' to database '{db}x'",
    )
    assert err(c, f"DROP DATABASE {db}") == (
        1044,
        f"Access denied for user '{u}'@'%' to database '{db}'",
    )
    run(root, f"GRANT CREATE, DROP, ALTER, INDEX, INSERT ON {db}.* TO {u}")
    run(c, f"CREATE TABLE {db}.n (a INT)")
    run(c, f"ALTER TABLE {db}.n ADD COLUMN c INT")
    run(c, f"CREATE INDEX ia ON {db}.n (a)")
    run(c, f"DROP INDEX ia ON {db}.n")
    run(c, f"RENAME TABLE {db}.n TO {db}.n2")
    run(c, f"TRUNCATE TABLE {db}.n2")
    run(c, f"DROP TABLE {db}.n2")
    # CREATE on a database pattern lets the user create that database
    run(root, f"GRANT CREATE, DROP ON `{db}x`.* TO {u}")
    run(c, f"CREATE DATABASE {db}x")
    run(c, f"DROP DATABASE {db}x")


def test_use_and_init_db_need_access(env):
    root, u, db, login = env
    c = login()
    msg = (1044, f"Access denied for user '{u}'@'%' to database '{db}'")
    assert err(c, f"USE {db}") == msg
    # a database that does not exist is 1044 too (access is checked first)
    assert err(c, f"USE {db}nosuch")[0] == 1044
    with pytest.raises(pymysql.err.MySQLError) as ei:
        c.select_db(db)  # COM_INIT_DB
    assert ei.value.args[:2] == msg
    with pytest.raises(pymysql.err.MySQLError) as ei:
        login(database=db)  # the handshake's database
    assert ei.value.args[0] == 1044
    run(c, "USE information_schema")
    # any privilege in the database opens it, a table privilege too
    run(root, f"GRANT INSERT ON {db}.s TO {u}")
    run(c, f"USE {db}")
    c.select_db(db)
    login(database=db).close()


def test_show_statements_are_filtered(env):
    root, u, db, login = env
    run(root, f"GRANT SELECT ON {db}.t TO {u}")
    c = login()
    dbs = [r[0] for r in run(c, "SHOW DATABASES")]
    assert dbs == sorted(["information_schema", "performance_schema", db])
    assert [r[0] for r in run(c, f"SHOW TABLES FROM {db}")] == ["t"]
    assert [r[0] for r in run(c, f"SHOW TABLE STATUS FROM {db}")] == ["t"]
    rows = run(
        c,
        "SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
        (db,),
    )
    assert [r[0] for r in rows] == ["t"]
    rows = run(c, "SELECT schema_name FROM information_schema.schemata ORDER BY 1")
    assert [r[0] for r in rows] == sorted(["information_schema", "performance_schema", db])
    assert run(c, f"SHOW COLUMNS FROM {db}.t")
    assert err(c, f"SHOW COLUMNS FROM {db}.s") == denied("SELECT", u, "s")
    assert err(c, f"SHOW CREATE TABLE {db}.s") == denied("SELECT", u, "s")
    assert err(c, f"SHOW INDEX FROM {db}.s") == denied("SELECT", u, "s")
    assert err(c, f"SHOW TABLES FROM mysql")[0] == 1044
    assert err(c, "SHOW ENGINE INNODB STATUS")[0] == 1227
    assert err(c, "SELECT * FROM information_schema.innodb_trx")[0] == 1227
    # SHOW DATABASES privilege: all of them
    run(root, f"GRANT SHOW DATABASES ON *.* TO {u}")
    assert "mysql" in [r[0] for r in run(c, "SHOW DATABASES")]


def test_administrative_statements(env):
    root, u, db, login = env
    c = login()

    def need(sql, priv):
        assert err(c, sql) == (
            1227,
            f"Access denied; you need (at least one of) the {priv} privilege(s) for this operation",
        ), sql

    need("SHUTDOWN", "SHUTDOWN")
    need("SET GLOBAL max_connections = 200", "SUPER or SYSTEM_VARIABLES_ADMIN")
    need(f"CREATE USER {u}y", "CREATE USER")
    need(f"DROP USER root@localhost", "CREATE USER")
    need(f"RENAME USER root@localhost TO r2", "CREATE USER")
    need(f"ALTER USER root@localhost IDENTIFIED BY 'x'", "CREATE USER")
    need(f"SET PASSWORD FOR root@localhost = 'x'", "CREATE USER")
    need(f"REVOKE ALL PRIVILEGES, GRANT OPTION FROM root@localhost", "CREATE USER")
    need("FLUSH PRIVILEGES", "RELOAD")
    # its own password it may change
    run(c, "SET PASSWORD = 'pw'")
    run(c, "ALTER USER CURRENT_USER() IDENTIFIED BY 'pw'")
    run(root, f"GRANT CREATE USER, RELOAD ON *.* TO {u}")
    run(c, f"CREATE USER {u}y")
    run(c, "FLUSH PRIVILEGES")
    run(c, f"DROP USER {u}y")


def test_processlist_and_kill(env):
    root, u, db, login = env
    c = login()
    ids = lambda conn: {r[0] for r in run(conn, "SHOW PROCESSLIST")}
    root_id = run(root, "SELECT CONNECTION_ID()")[0][0]
    my_id = run(c, "SELECT CONNECTION_ID()")[0][0]
    assert root_id not in ids(c) and my_id in ids(c)
    rows = run(c, "SELECT id FROM information_schema.processlist")
    assert root_id not in {r[0] for r in rows}
    assert err(c, f"KILL {root_id}") == (1095, f"You are not owner of thread {root_id}")
    assert err(c, f"KILL QUERY {root_id}")[0] == 1095
    # its own threads it may kill
    c2 = login()
    c2_id = run(c2, "SELECT CONNECTION_ID()")[0][0]
    run(c, f"KILL QUERY {c2_id}")
    run(c, f"KILL {c2_id}")
    # COM_PROCESS_KILL checks the same way
    with pytest.raises(pymysql.err.MySQLError) as ei:
        c.kill(root_id)
    assert ei.value.args[0] == 1095
    run(root, f"GRANT PROCESS, SUPER ON *.* TO {u}")
    assert root_id in ids(c)
    victim = root_login(root, "root", "")
    victim_id = run(victim, "SELECT CONNECTION_ID()")[0][0]
    run(c, f"KILL {victim_id}")
    # root@localhost (a literal host) kills other users' threads, by statement and
    # by COM_PROCESS_KILL
    c3, c4 = login(), login()
    run(root, f"KILL {run(c3, 'SELECT CONNECTION_ID()')[0][0]}")
    root.kill(run(c4, "SELECT CONNECTION_ID()")[0][0])


def test_grants_reach_open_sessions_at_once(env):
    root, u, db, login = env
    c = login()
    assert err(c, f"SELECT * FROM {db}.t")[0] == 1142
    run(root, f"GRANT SELECT ON {db}.t TO {u}")
    assert len(run(c, f"SELECT * FROM {db}.t")) == 2
    run(root, f"REVOKE SELECT ON {db}.t FROM {u}")
    assert err(c, f"SELECT * FROM {db}.t")[0] == 1142
    run(root, f"GRANT SELECT ON *.* TO {u}")
    assert len(run(c, f"SELECT * FROM {db}.t")) == 2
    run(root, f"REVOKE SELECT ON *.* FROM {u}")
    assert err(c, f"SELECT * FROM {db}.t")[0] == 1142


def test_drop_user_drops_grants_and_rename_moves_them(env):
    root, u, db, login = env
    run(root, f"GRANT SELECT ON {db}.* TO {u}")
    run(root, f"GRANT UPDATE ON {db}.t TO {u}")
    run(root, f"RENAME USER {u} TO {u}r")
    assert err(root, f"SHOW GRANTS FOR {u}")[0] == 1141
    assert grants(root, f"{u}r") == [
        f"GRANT USAGE ON *.* TO `{u}r`@`%`",
        f"GRANT SELECT ON `{db}`.* TO `{u}r`@`%`",
        f"GRANT UPDATE ON `{db}`.`t` TO `{u}r`@`%`",
    ]
    # the password moved too
    c = root_login(root, f"{u}r", "pw")
    assert len(run(c, f"SELECT * FROM {db}.t")) == 2
    assert err(root, f"RENAME USER nobody TO {u}z") == (
        1396,
        "Operation RENAME USER failed for 'nobody'@'%'",
    )
    run(root, f"DROP USER {u}r")
    run(root, f"CREATE USER {u}r")
    assert grants(root, f"{u}r") == [f"GRANT USAGE ON *.* TO `{u}r`@`%`"]
    run(root, f"RENAME USER {u}r TO {u}")


def root_login(root, user, password):
    return pymysql.connect(
        host=root.host, port=root.port, user=user, password=password, autocommit=True
    )


def test_grant_to_current_user_and_wildcard_databases(env):
    root, u, db, login = env
    run(root, f"GRANT ALL ON `{db}\\_%`.* TO {u}")
    run(root, f"CREATE DATABASE {db}_a")
    run(root, f"CREATE DATABASE {db}xa")
    run(root, f"CREATE TABLE {db}_a.t (a INT)")
    run(root, f"CREATE TABLE {db}xa.t (a INT)")
    c = login()
    run(c, f"INSERT INTO {db}_a.t VALUES (1)")
    assert err(c, f"INSERT INTO {db}xa.t VALUES (1)")[0] == 1142
    assert grants(c)[1] == f"GRANT ALL PRIVILEGES ON `{db}\\_%`.* TO `{u}`@`%`"


# -- persistence and resource limits -----------------------------------------------------


def accounts_file(k):
    return (k.datadir / "mysql" / "accounts").read_text()


def test_grants_and_limits_persist_across_restart(kiln_factory):
    k = kiln_factory()
    c = k.connect()
    run(c, "CREATE DATABASE p")
    run(c, "CREATE TABLE p.t (a INT)")
    run(
        c,
        "CREATE USER lim IDENTIFIED BY 'pw' WITH MAX_QUERIES_PER_HOUR 10 "
        "MAX_USER_CONNECTIONS 2",
    )
    run(c, "ALTER USER lim WITH MAX_UPDATES_PER_HOUR 5 MAX_CONNECTIONS_PER_HOUR 7")
    run(c, "GRANT SELECT ON p.* TO lim")
    run(c, "GRANT INSERT ON p.t TO lim WITH GRANT OPTION")
    before = grants(c, "lim")
    c.close()
    text = accounts_file(k)
    assert text.startswith("kiln-accounts\t2\n")
    lines = text.splitlines()
    acct = [l for l in lines if l.startswith("account\tlim\t")]
    assert len(acct) == 1 and acct[0].split("\t")[-4:] == ["10", "5", "7", "2"]
    assert k.stop() == 0
    k2 = kiln_factory(datadir=k.datadir)
    c = k2.connect()
    assert grants(c, "lim") == before
    u = k2.connect(user="lim", password="pw")
    run(u, "INSERT INTO p.t VALUES (1)")
    assert run(u, "SELECT * FROM p.t") == ((1,),)
    # ALTER USER WITH changes only the limits it names; without it, none
    run(c, "ALTER USER lim IDENTIFIED BY 'pw2'")
    acct = [l for l in accounts_file(k2).splitlines() if l.startswith("account\tlim\t")]
    assert acct[0].split("\t")[-4:] == ["10", "5", "7", "2"]
    run(c, "DROP USER lim")
    assert "\tlim\t" not in accounts_file(k2)


def test_version_1_accounts_file_still_loads(kiln_factory):
    k = kiln_factory()
    c = k.connect()
    run(c, "CREATE USER old IDENTIFIED WITH mysql_native_password BY 'pw'")
    run(c, "CREATE DATABASE v1")
    c.close()
    assert k.stop() == 0
    # rewrite the file as a pre-privileges kiln wrote it: user, host, plugin, hex(auth)
    v1 = []
    for l in accounts_file(k).splitlines()[1:]:
        f = l.split("\t")
        assert f[0] == "account"
        v1.append("\t".join(f[1:5]))
    (k.datadir / "mysql" / "accounts").write_text("\n".join(v1) + "\n")
    k2 = kiln_factory(datadir=k.datadir)
    root = k2.connect()
    assert grants(root) == [f"GRANT {ROOT_GLOBAL} ON *.* TO `root`@`localhost` WITH GRANT OPTION"]
    assert grants(root, "old") == ["GRANT USAGE ON *.* TO `old`@`%`"]
    u = k2.connect(user="old", password="pw")
    assert err(u, "USE v1")[0] == 1044
    run(root, "GRANT SELECT ON v1.* TO old")
    assert accounts_file(k2).startswith("kiln-accounts\t2\n")
    run(u, "USE v1")


def test_corrupt_accounts_file_refuses_to_start(kiln_factory):
    k = kiln_factory()
    assert k.stop() == 0
    (k.datadir / "mysql" / "accounts").write_text("kiln-accounts\t2\ndb\tghost\t%\t78\t1\n")
    from conftest import run_kiln

    rc, out, errout = run_kiln(
        ["--no-defaults", f"--datadir={k.datadir}", f"--port={k.port}",
         f"--socket={k.datadir / 'x.sock'}"]
    )
    assert rc != 0
    assert "corrupt at line 2" in out + errout + k.log_text()


# -- differential: MariaDB 10.11 -----------------------------------------------------------


@pytest.fixture(scope="module")
def mariadb():
    m = start_private_mariadb(prefix="kiln-priv-")
    yield m
    m.cleanup()


# (statement, as user?) pairs run on both servers. Users are 'pu'@'localhost' with no
# password (MariaDB appends IDENTIFIED BY PASSWORD to SHOW GRANTS for a password).
DIFF_SCRIPT = [
    ("CREATE DATABASE pdb", False),
    ("CREATE TABLE pdb.t (id INT PRIMARY KEY, a INT)", False),
    ("CREATE TABLE pdb.s (id INT PRIMARY KEY, b INT)", False),
    ("INSERT INTO pdb.t VALUES (1, 1)", False),
    ("CREATE USER 'pu'@'localhost'", False),
    ("SHOW GRANTS FOR 'pu'@'localhost'", False),
    ("SELECT * FROM pdb.t", True),
    ("INSERT INTO pdb.t VALUES (2, 2)", True),
    ("UPDATE pdb.t SET a = 3", True),
    ("DELETE FROM pdb.t", True),
    ("USE pdb", True),
    ("CREATE DATABASE pdb2", True),
    ("DROP DATABASE pdb", True),
    ("CREATE TABLE pdb.n (a INT)", True),
    ("DROP TABLE pdb.t", True),
    ("SHUTDOWN", True),
    ("CREATE USER 'px'@'localhost'", True),
    ("SHOW GRANTS FOR root@localhost", True),
    ("GRANT SELECT ON pdb.* TO 'pu'@'localhost'", True),
    ("GRANT SELECT, INSERT ON pdb.* TO 'pu'@'localhost'", False),
    ("GRANT UPDATE ON pdb.t TO 'pu'@'localhost'", False),
    ("GRANT DELETE ON pdb.s TO 'pu'@'localhost' WITH GRANT OPTION", False),
    ("SHOW GRANTS FOR 'pu'@'localhost'", False),
    ("SELECT * FROM pdb.t", True),
    ("INSERT INTO pdb.t VALUES (2, 2)", True),
    ("UPDATE pdb.t SET a = 3", True),
    ("UPDATE pdb.s SET b = 3", True),
    ("DELETE FROM pdb.t", True),
    ("USE pdb", True),
    ("SHOW TABLES FROM pdb", True),
    ("GRANT SUPER ON pdb.* TO 'pu'@'localhost'", False),
    ("GRANT EXECUTE ON pdb.t TO 'pu'@'localhost'", False),
    ("REVOKE SELECT ON nodb.* FROM 'pu'@'localhost'", False),
    ("REVOKE SELECT ON pdb.nosuch FROM 'pu'@'localhost'", False),
    ("REVOKE INSERT ON pdb.* FROM 'pu'@'localhost'", False),
    ("REVOKE UPDATE ON pdb.t FROM 'pu'@'localhost'", False),
    ("SHOW GRANTS FOR 'pu'@'localhost'", False),
    ("INSERT INTO pdb.t VALUES (3, 3)", True),
    ("REVOKE ALL PRIVILEGES, GRANT OPTION FROM 'pu'@'localhost'", False),
    ("SHOW GRANTS FOR 'pu'@'localhost'", False),
    ("SELECT * FROM pdb.t", True),
    ("REVOKE ALL PRIVILEGES, GRANT OPTION FROM 'nobody'@'localhost'", False),
    ("SHOW GRANTS FOR 'nobody'@'localhost'", False),
    ("DROP USER 'pu'@'localhost'", False),
    ("DROP DATABASE pdb", False),
]

# Statements whose error text MySQL 8.0 and MariaDB 10.11 word alike.
SAME_TEXT = {1044, 1045, 1141, 1221, 1227, 1269, 1144}


def outcome(conn_fn, sql):
    c = conn_fn()
    try:
        with c.cursor() as cur:
            cur.execute(sql)
            return ("ok", [tuple(r) for r in cur.fetchall()])
    except pymysql.err.MySQLError as e:
        code = e.args[0]
        return ("err", code, e.args[1] if code in SAME_TEXT else None)
    finally:
        c.close()


def test_differential_against_mariadb(kiln_factory, mariadb):
    k = kiln_factory()
    sides = {
        "kiln": (
            lambda: k.connect(),
            lambda: k.connect(user="pu", password=""),
        ),
        "mariadb": (
            lambda: mariadb.connect(),
            lambda: mariadb.connect(user="pu", password=""),
        ),
    }
    mismatches = []
    for sql, as_user in DIFF_SCRIPT:
        got = {name: outcome(fns[1] if as_user else fns[0], sql) for name, fns in sides.items()}
        if got["kiln"] != got["mariadb"]:
            mismatches.append(f"{sql!r} (as {'pu' if as_user else 'root'}): {got}")
    assert not mismatches, "\n".join(mismatches)
