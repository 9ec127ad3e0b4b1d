"""System variables with MySQL 8.0's semantics: SET/SELECT @@, scopes, read-only and
global-only variables, type checks, clamping, sql_mode, isolation, character sets,
SHOW VARIABLES."""

import pymysql
import pytest

DEFAULT_SQL_MODE = (
    "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,"
    "ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"
)


@pytest.fixture
def conn(kiln_shared):
    """A session on the shared server; only session variables may be changed."""
    c = kiln_shared.connect(ssl_disabled=True)
    yield c
    c.close()


def run(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def val(conn, sql):
    return run(conn, sql)[0][0]


def error_of(conn, sql):
    with pytest.raises(pymysql.err.MySQLError) as ei:
        run(conn, sql)
    return ei.value.args[0], ei.value.args[1]


# -- autocommit -----------------------------------------------------------------------


def test_autocommit_defaults_to_1(kiln_shared):
    c = kiln_shared.connect(autocommit=None)  # leave the server's default alone
    assert val(c, "SELECT @@autocommit") == 1
    c.close()


def test_set_autocommit_0_and_on(conn):
    run(conn, "SET autocommit=0")
    assert val(conn, "SELECT @@autocommit") == 0
    run(conn, "SET autocommit=ON")
    assert val(conn, "SELECT @@autocommit") == 1


def test_set_autocommit_to_a_word_is_1231(conn):
    assert error_of(conn, "SET autocommit='foo'") == (
        1231,
        "Variable 'autocommit' can't be set to the value of 'foo'",
    )
    assert val(conn, "SELECT @@autocommit") == 1


# -- unknown, scope and read-only errors ------------------------------------------------


def test_unknown_variable_is_1193(conn):
    assert error_of(conn, "SET @@nosuch=1") == (1193, "Unknown system variable 'nosuch'")


def test_select_unknown_variable_is_1193(conn):
    assert error_of(conn, "SELECT @@nosuch") == (1193, "Unknown system variable 'nosuch'")


def test_set_session_of_global_only_variable_is_1229(kiln):
    # (a private server: a wrongly accepted SET must not leak into other tests)
    conn = kiln.connect()
    assert error_of(conn, "SET SESSION max_connections=10") == (
        1229,
        "Variable 'max_connections' is a GLOBAL variable and should be set with SET GLOBAL",
    )


def test_select_session_of_global_only_variable_is_1238(conn):
    assert error_of(conn, "SELECT @@session.max_connections") == (
        1238,
        "Variable 'max_connections' is a GLOBAL variable",
    )


def test_set_read_only_variable_is_1238(kiln):
    conn = kiln.connect()
    assert error_of(conn, "SET GLOBAL port=1") == (
        1238,
        "Variable 'port' is a read only variable",
    )


def test_set_integer_variable_to_a_string_is_1232(conn):
    assert error_of(conn, "SET wait_timeout='abc'") == (
        1232,
        "Incorrect argument type to variable 'wait_timeout'",
    )


def test_set_global_max_connections_0_is_clamped_with_warning_1292(kiln):
    c = kiln.connect()
    with c.cursor() as cur:
        cur.execute("SET GLOBAL max_connections=0")
        cur.execute("SHOW WARNINGS")
        warnings = cur.fetchall()
    assert warnings == (
        ("Warning", 1292, "Truncated incorrect max_connections value: '0'"),
    )
    assert val(c, "SELECT @@global.max_connections") == 1
    c.close()


def test_set_session_wait_timeout_and_read_it_back(conn):
    run(conn, "SET SESSION wait_timeout = 1234")
    assert val(conn, "SELECT @@wait_timeout") == 1234
    assert val(conn, "SELECT @@session.wait_timeout") == 1234
    assert val(conn, "SELECT @@global.wait_timeout") == 28800


# -- sql_mode -------------------------------------------------------------------------


def test_sql_mode_default(conn):
    assert val(conn, "SELECT @@sql_mode") == DEFAULT_SQL_MODE


def test_sql_mode_is_upper_case_in_definition_order(conn):
    run(conn, "SET sql_mode='no_zero_date,ansi_quotes'")
    assert val(conn, "SELECT @@sql_mode") == "ANSI_QUOTES,NO_ZERO_DATE"
    run(conn, "SET sql_mode='ansi_quotes,no_zero_date'")
    assert val(conn, "SELECT @@sql_mode") == "ANSI_QUOTES,NO_ZERO_DATE"


def test_sql_mode_nonsense_is_1231(conn):
    assert error_of(conn, "SET sql_mode='nonsense'") == (
        1231,
        "Variable 'sql_mode' can't be set to the value of 'nonsense'",
    )


def test_sql_mode_empty(conn):
    run(conn, "SET sql_mode=''")
    assert val(conn, "SELECT @@sql_mode") == ""


def test_sql_mode_default_keyword(conn):
    run(conn, "SET sql_mode=''")
    run(conn, "SET sql_mode=DEFAULT")
    assert val(conn, "SELECT @@sql_mode") == DEFAULT_SQL_MODE


# -- transaction isolation ------------------------------------------------------------


def test_transaction_isolation(conn):
    assert val(conn, "SELECT @@transaction_isolation") == "REPEATABLE-READ"
    run(conn, "SET transaction_isolation='READ-COMMITTED'")
    assert val(conn, "SELECT @@transaction_isolation") == "READ-COMMITTED"


def test_transaction_isolation_bogus_is_1231(conn):
    assert error_of(conn, "SET transaction_isolation='bogus'") == (
        1231,
        "Variable 'transaction_isolation' can't be set to the value of 'bogus'",
    )


# -- character sets -------------------------------------------------------------------


def test_set_names_latin1(conn):
    run(conn, "SET NAMES latin1")
    assert run(
        conn,
        "SELECT @@character_set_client, @@character_set_connection, "
        "@@character_set_results",
    ) == (("latin1", "latin1", "latin1"),)


def test_unknown_character_set_is_1115(conn):
    assert error_of(conn, "SET character_set_client='nope'") == (
        1115,
        "Unknown character set: 'nope'",
    )


def test_unknown_collation_is_1273(conn):
    assert error_of(conn, "SET collation_connection='nope'") == (
        1273,
        "Unknown collation: 'nope'",
    )


def test_collation_connection_sets_character_set_connection(conn):
    run(conn, "SET collation_connection='latin1_swedish_ci'")
    assert run(conn, "SELECT @@collation_connection, @@character_set_connection") == (
        ("latin1_swedish_ci", "latin1"),
    )


# -- global vs session ----------------------------------------------------------------


def test_set_global_is_seen_by_new_sessions_only(kiln):
    a = kiln.connect()
    before = val(a, "SELECT @@session.wait_timeout")
    run(a, "SET GLOBAL wait_timeout = 1111")
    assert val(a, "SELECT @@global.wait_timeout") == 1111
    assert val(a, "SELECT @@session.wait_timeout") == before
    assert val(a, "SELECT @@wait_timeout") == before
    b = kiln.connect()
    assert val(b, "SELECT @@session.wait_timeout") == 1111
    a.close()
    b.close()


def test_set_global_sql_mode_is_seen_by_new_sessions_only(kiln):
    a = kiln.connect()
    run(a, "SET GLOBAL sql_mode = 'ANSI_QUOTES'")
    assert val(a, "SELECT @@sql_mode") == DEFAULT_SQL_MODE
    b = kiln.connect()
    assert val(b, "SELECT @@sql_mode") == "ANSI_QUOTES"
    a.close()
    b.close()


# -- SHOW VARIABLES ---------------------------------------------------------------------


def test_show_variables_like_max_allowed_packet(conn):
    with conn.cursor() as cur:
        cur.execute("SHOW VARIABLES LIKE 'max_allowed_packet'")
        assert [d[0] for d in cur.description] == ["Variable_name", "Value"]
        assert cur.fetchall() == (("max_allowed_packet", "67108864"),)


def test_show_global_variables_where(kiln_shared, conn):
    assert run(conn, "SHOW GLOBAL VARIABLES WHERE Variable_name='port'") == (
        ("port", str(kiln_shared.port)),
    )


def test_show_variables_has_many_rows(conn):
    rows = run(conn, "SHOW VARIABLES")
    assert len(rows) > 50, len(rows)
    names = [r[0] for r in rows]
    assert names == sorted(names)
    for n in ("autocommit", "max_allowed_packet", "port", "sql_mode", "version"):
        assert n in names


def test_show_variables_booleans_are_on_off(conn):
    assert run(conn, "SHOW VARIABLES LIKE 'autocommit'") == (("autocommit", "ON"),)
    run(conn, "SET autocommit=0")
    assert run(conn, "SHOW SESSION VARIABLES LIKE 'autocommit'") == (("autocommit", "OFF"),)
