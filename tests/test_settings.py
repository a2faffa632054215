"""The server's settings from the environment as well as flags (server/settings.py): every
option has its ``SHANGYOU_*`` variable, the flags win, a bad value stops the server with a
message naming the variable and not the value. (Real nodes configured this way, passwords
included: tests/test_metrics.py.)"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from test_cluster import WAIT, free_port

from shangyou.server.__main__ import build_parser, main, parse_limits
from shangyou.server.settings import ServerSettings, env_limits, load


@pytest.fixture
def clean_env(monkeypatch):
    for key in list(os.environ):
        if key.startswith("SHANGYOU_"):
            monkeypatch.delenv(key)
    return monkeypatch


def test_every_option_of_the_command_line_has_its_variable():
    dests = {a.dest for a in build_parser()._actions if a.dest not in ("help", "limit")}
    assert dests == set(ServerSettings.model_fields)


def test_the_environment_sets_what_no_flag_gives_and_flags_win(clean_env):
    clean_env.setenv("SHANGYOU_PORT", "9001")
    clean_env.setenv("SHANGYOU_HOST", "0.0.0.0")
    clean_env.setenv("SHANGYOU_ALLOW_ADDRESS", "10.0.0.0/8, 192.168.0.0/16")
    clean_env.setenv("SHANGYOU_LOG_FORMAT", "json")
    clean_env.setenv("SHANGYOU_DB", "postgresql+psycopg://app:Pw-from-env@db/shangyou")
    clean_env.setenv("SHANGYOU_LIMIT_TABLES_PER_MINUTE", "30")
    clean_env.setenv("SHANGYOU_LIMIT_SOCKETS_PER_TABLE", "8")
    given = vars(build_parser().parse_args(["--port", "9002", "--allow-address",
                                            "127.0.0.1/32", "--limit", "sockets_per_table=9"]))
    flag_limits = given.pop("limit")
    s = load(given)
    assert (s.port, s.host, s.log_format) == (9002, "0.0.0.0", "json")
    assert s.allow_address == ("127.0.0.1/32",)
    assert s.url("db") == "postgresql+psycopg://app:Pw-from-env@db/shangyou"
    assert "Pw-from-env" not in repr(s) and "Pw-from-env" not in str(s.model_dump())
    assert s.metrics_from == ("127.0.0.1/32", "::1/128")          # the default
    chosen = {**parse_limits(env_limits(), "SHANGYOU_LIMIT_"), **parse_limits(flag_limits)}
    assert chosen == {"tables_per_minute": 30, "sockets_per_table": 9}
    assert load({}).allow_address == ("10.0.0.0/8", "192.168.0.0/16")


@pytest.mark.parametrize("name, value, said", [
    ("SHANGYOU_LEASE_SECONDS", "soon-S3cret", "SHANGYOU_LEASE_SECONDS: Input should be a "
                                              "valid number"),
    ("SHANGYOU_PORT", "S3cret", "SHANGYOU_PORT: Input should be a valid integer"),
    ("SHANGYOU_LOG_LEVEL", "loud-S3cret", "SHANGYOU_LOG_LEVEL: Input should be"),
    ("SHANGYOU_LIMIT_TABLES_PER_MINUTE", "many", "SHANGYOU_LIMIT_TABLES_PER_MINUTE: 'many' "
                                                 "is not a number"),
    ("SHANGYOU_LIMIT_NO_SUCH_THING", "3", "SHANGYOU_LIMIT_NO_SUCH_THING: no such limit"),
    ("SHANGYOU_METRICS_TOKEN", "S3cret", "SHANGYOU_METRICS_TOKEN: at least 16 characters"),
    ("SHANGYOU_METRICS_FROM", "everyone", "(SHANGYOU_METRICS_FROM): 'everyone' does not"),
])
def test_a_bad_value_stops_the_server_naming_the_variable(clean_env, capsys, tmp_path, name,
                                                          value, said):
    clean_env.setenv(name, value)
    with pytest.raises(SystemExit) as stop:        # before anything starts
        main(["--data", str(tmp_path)])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert said in err, err
    assert "S3cret" not in err


def test_the_server_starts_from_the_environment_alone(tmp_path):
    """A real process: its port, data folder and limits from the environment only."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHANGYOU_")}
    env.update(SHANGYOU_PORT=str(port), SHANGYOU_DATA=str(tmp_path),
               SHANGYOU_LIMIT_PAGE_MAX="3")
    proc = subprocess.Popen([sys.executable, "-m", "shangyou.server"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        first = proc.stdout.readline()
        assert first.strip() == f"shangyou server: http://127.0.0.1:{port}/", first
        deadline = time.monotonic() + WAIT
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables?limit=4",
                                       timeout=10)
            except urllib.error.HTTPError as e:
                assert e.code == 422           # the page limit of the environment: 3
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
                continue
            raise AssertionError("a page of 4 was served past the limit of 3")
        assert (tmp_path / "shangyou.db").exists()
    finally:
        proc.terminate()
        proc.wait(60)


def test_the_db_commands_read_the_servers_variables_too(tmp_path, clean_env):
    """``shangyou db`` takes its database as the server does: ``SHANGYOU_DATA``, or
    ``SHANGYOU_DB`` (the flags win)."""
    from typer.testing import CliRunner

    from shangyou.cli.main import app as cli
    from shangyou.server.migrations import head
    run = CliRunner().invoke
    data = tmp_path / "data"
    data.mkdir()
    out = run(cli, ["db", "upgrade"], env={"SHANGYOU_DATA": str(data)})
    assert out.exit_code == 0 and out.stdout.strip().endswith(f"-> {head()}"), out.output
    url = f"sqlite:///{data / 'shangyou.db'}"
    out = run(cli, ["db", "current"], env={"SHANGYOU_DB": url})
    assert out.exit_code == 0 and out.stdout.strip() == f"{head()} (head)", out.output
    out = run(cli, ["db", "current", "--data", str(tmp_path / "nowhere")],
              env={"SHANGYOU_DATA": str(data)})
    assert out.exit_code == 2 and "no store" in out.stderr
