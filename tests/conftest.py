import os

import pytest

import pg_server
import redis_server


def pytest_addoption(parser):
    parser.addoption("--playouts", type=int, default=None,
                     help="random games per preset x player count in the playout test "
                          "(default: SHANGYOU_PLAYOUTS or a modest count)")
    parser.addoption("--core-games", type=int, default=None,
                     help="random hands per configuration in the compiled core's differential "
                          "test (default: SHANGYOU_CORE_GAMES or a modest count)")


@pytest.fixture(scope="session")
def playouts(request) -> int:
    n = request.config.getoption("--playouts")
    if n is None:
        n = int(os.environ.get("SHANGYOU_PLAYOUTS", "0") or 0)
    return n


@pytest.fixture(scope="session")
def postgres():
    """A real PostgreSQL server of this test process (each xdist worker has its own),
    stopped and removed at the end (tests/pg_server.py)."""
    bindir = pg_server.find_bindir()
    if bindir is None:
        pytest.fail("PostgreSQL's server programs (initdb, postgres) were not found: not on the "
                    "PATH, not in `pg_config --bindir`, not in /usr/lib/postgresql/*/bin. "
                    "Install them (Debian: apt-get install postgresql; scripts/test.sh does).",
                    pytrace=False)
    server = pg_server.PostgresServer(bindir)
    try:
        server.start()
    except BaseException:
        server.stop()
        raise
    yield server
    server.stop()


@pytest.fixture
def pg_url(postgres) -> str:
    """The SQLAlchemy URL of a new empty PostgreSQL database of this test alone, named after
    the xdist worker (``gw0_3``; ``main_3`` without xdist)."""
    return postgres.new_database(os.environ.get("PYTEST_XDIST_WORKER", "main"))


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path) -> str:
    """A new empty store's URL: a SQLite file, then a PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'db.sqlite'}"
    return request.getfixturevalue("pg_url")


@pytest.fixture
def redis_url(tmp_path) -> str:
    """The URL of a real Redis server of this test alone (tests/redis_server.py), stopped and
    removed at its end."""
    binary = redis_server.find_redis_server()
    if binary is None:
        pytest.fail("redis-server was not found (not on the PATH, not in /usr/bin). Install "
                    "it (Debian: apt-get install redis-server; scripts/test.sh does).",
                    pytrace=False)
    server = redis_server.RedisServer(binary)
    try:
        server.start()
    except BaseException:
        server.stop()
        raise
    yield server.url
    server.stop()
