"""Option files as MySQL users write them: `--defaults-file=my.cnf` (first argument),
[mysqld]/[server]/[kiln] sections read, [client] ignored, dashes = underscores,
K/M/G suffixes, last value wins, comments, quotes, !include and !includedir, and the
command line over the file."""

import textwrap

import pytest

from conftest import free_port, run_kiln


def write(path, text):
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def start_with_cnf(kiln_factory, tmp_path, body, extra_args=()):
    """Starts kiln with `--defaults-file` = a my.cnf whose [mysqld] section sets the
    port, followed by `body`. The port comes only from the file."""
    port = free_port()
    cnf = write(
        tmp_path / "my.cnf",
        f"[mysqld]\nport = {port}\n" + textwrap.dedent(body),
    )
    return kiln_factory(
        extra_args, defaults_file=cnf, port=port, omit=("port",)
    )


def var(server, name):
    rows = server.query(f"SELECT @@global.{name}")
    return rows[0][0]


def test_port_from_mysqld_section(kiln_factory, tmp_path):
    k = start_with_cnf(kiln_factory, tmp_path, "")
    assert var(k, "port") == k.port


def test_server_and_kiln_sections_are_read(kiln_factory, tmp_path):
    k = start_with_cnf(
        kiln_factory,
        tmp_path,
        """
        [server]
        max_connections = 123
        [kiln]
        max_allowed_packet = 2M
        """,
    )
    assert var(k, "max_connections") == 123
    assert var(k, "max_allowed_packet") == 2097152


def test_client_section_is_ignored(kiln_factory, tmp_path):
    k = start_with_cnf(
        kiln_factory,
        tmp_path,
        """
        max_connections = 77
        [client]
        port = 1
        user = nobody
        max_connections = 5
        no-such-client-option = 1
        """,
    )
    assert var(k, "max_connections") == 77


def test_size_suffixes(kiln_factory, tmp_path):
    k = start_with_cnf(
        kiln_factory,
        tmp_path,
        """
        max_allowed_packet = 2M
        """,
    )
    assert var(k, "max_allowed_packet") == 2097152


def test_dash_and_underscore_names_are_the_same(kiln_factory, tmp_path):
    k = start_with_cnf(
        kiln_factory,
        tmp_path,
        """
        wait-timeout = 111
        net_write_timeout = 77
        connect-timeout = 7
        """,
    )
    assert var(k, "wait_timeout") == 111
    assert var(k, "net_write_timeout") == 77
    assert var(k, "connect_timeout") == 7


def test_repeated_key_last_one_wins(kiln_factory, tmp_path):
    k = start_with_cnf(
        kiln_factory,
        tmp_path,
        """
        max_connections = 50
        max-connections = 60
        [kiln]
        max_connections = 70
        """,
    )
    assert var(k, "max_connections") == 70


def test_flag_and_loose_lines(kiln_factory, tmp_path):
    k = start_with_cnf(
        kiln_factory,
        tmp_path,
        """
        skip-name-resolve
        loose-foo-bar = 1
        loose_other_unknown
        """,
    )
    assert var(k, "skip_name_resolve") == 1


def test_comments_and_blank_lines(kiln_factory, tmp_path):
    k = start_with_cnf(
        kiln_factory,
        tmp_path,
        """
        # a comment
        ; another comment

           # indented comment
        max_connections = 42   # trailing comment
        wait_timeout=99
        """,
    )
    assert var(k, "max_connections") == 42
    assert var(k, "wait_timeout") == 99


def test_quoted_values(kiln_factory, tmp_path):
    k = start_with_cnf(
        kiln_factory,
        tmp_path,
        """
        character_set_server = "latin1"
        default_authentication_plugin = 'mysql_native_password'
        """,
    )
    assert var(k, "character_set_server") == "latin1"
    assert var(k, "default_authentication_plugin") == "mysql_native_password"


def test_character_set_server(kiln_factory, tmp_path):
    k = start_with_cnf(kiln_factory, tmp_path, "character_set_server=latin1\n")
    assert var(k, "character_set_server") == "latin1"
    assert k.query("SELECT @@session.character_set_server") == (("latin1",),)


def test_include_file(kiln_factory, tmp_path):
    other = write(
        tmp_path / "other.cnf",
        """
        [mysqld]
        max_connections = 33
        """,
    )
    k = start_with_cnf(kiln_factory, tmp_path, f"!include {other}\n")
    assert var(k, "max_connections") == 33


def test_includedir_reads_only_cnf_files(kiln_factory, tmp_path):
    confd = tmp_path / "conf.d"
    confd.mkdir()
    write(confd / "a.cnf", "[mysqld]\nmax_connections = 44\n")
    write(confd / "b.cnf", "[kiln]\nwait_timeout = 4444\n")
    # not *.cnf: must not be read (it would abort the start)
    write(confd / "notes.txt", "[mysqld]\nno-such-option-in-txt = 1\n")
    write(confd / "c.cnf.disabled", "[mysqld]\nno-such-option-disabled = 1\n")
    k = start_with_cnf(kiln_factory, tmp_path, f"!includedir {confd}/\n")
    assert var(k, "max_connections") == 44
    assert var(k, "wait_timeout") == 4444


def test_command_line_overrides_the_file(kiln_factory, tmp_path):
    k = start_with_cnf(
        kiln_factory,
        tmp_path,
        """
        max_connections = 10
        wait_timeout = 100
        """,
        extra_args=["--max-connections=20"],
    )
    assert var(k, "max_connections") == 20
    assert var(k, "wait_timeout") == 100


def cnf_run(tmp_path, body, extra=()):
    cnf = write(tmp_path / "bad.cnf", body)
    d = tmp_path / "data"
    d.mkdir(exist_ok=True)
    args = [
        f"--defaults-file={cnf}",
        f"--datadir={d}",
        f"--port={free_port()}",
        f"--socket={d}/kiln.sock",
        *extra,
    ]
    return run_kiln(args, timeout=8)


def test_unknown_option_in_file_exits_1_naming_it(tmp_path):
    rc, out, err = cnf_run(tmp_path, "[mysqld]\nno-such-file-option = 1\n")
    assert rc == 1
    assert "no-such-file-option" in out + err


def test_missing_defaults_file_exits_1(tmp_path):
    rc, out, err = run_kiln(
        [f"--defaults-file={tmp_path}/missing.cnf", f"--datadir={tmp_path}/d"],
        timeout=8,
    )
    assert rc == 1
    assert "missing.cnf" in out + err


def test_non_numeric_port_exits_1(tmp_path):
    d = tmp_path / "d"
    rc, out, err = run_kiln(
        ["--no-defaults", f"--datadir={d}", f"--socket={tmp_path}/s.sock", "--port=abc"],
        timeout=8,
    )
    assert rc == 1
    assert "port" in (out + err).lower()


def test_non_numeric_value_in_file_exits_1(tmp_path):
    rc, out, err = cnf_run(tmp_path, "[mysqld]\nmax_connections = lots\n")
    assert rc == 1
    assert "max_connections" in (out + err).replace("-", "_")


def pool_mapping_flags(server, pool_bytes):
    """VmFlags of the server's buffer pool mapping: the one anonymous mapping of
    exactly `pool_bytes` (buf/region.rs)."""
    smaps = open(f"/proc/{server.proc.pid}/smaps").read().split("\n")
    for i, line in enumerate(smaps):
        head = line.split()
        if len(head) == 5 and "-" in head[0]:
            lo, hi = (int(x, 16) for x in head[0].split("-"))
            if hi - lo == pool_bytes:
                for rest in smaps[i + 1 :]:
                    if rest.startswith("VmFlags:"):
                        return rest.split()[1:]
    raise AssertionError(f"no mapping of {pool_bytes} bytes")


@pytest.mark.parametrize("setting,advised", [(None, False), ("ON", True)])
def test_large_pages_asks_for_huge_pages_only_when_on(
    kiln_factory, tmp_path, setting, advised
):
    # MySQL's large_pages is OFF by default; kiln's ON means MADV_HUGEPAGE on the
    # pool's mapping (the "hg" flag), which the kernel honours in THP's madvise mode.
    body = "innodb_buffer_pool_size = 64M\n"
    if setting:
        body += f"large-pages = {setting}\n"
    k = start_with_cnf(kiln_factory, tmp_path, body)
    assert var(k, "large_pages") == (1 if advised else 0)
    assert ("hg" in pool_mapping_flags(k, 64 << 20)) == advised
    k.query("CREATE DATABASE lp")
    k.query("CREATE TABLE lp.t (id INT PRIMARY KEY, v VARCHAR(100))")
    k.query(
        "INSERT INTO lp.t VALUES "
        + ",".join(f"({i}, REPEAT('x', 90))" for i in range(2000))
    )
    assert k.query("SELECT COUNT(*), SUM(id) FROM lp.t") == ((2000, 1999000),)
