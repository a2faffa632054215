import os

import pytest


def pytest_addoption(parser):
    parser.addoption("--playouts", type=int, default=None,
                     help="random games per preset x player count in the playout test "
                          "(default: SHANGYOU_PLAYOUTS or a modest count)")


@pytest.fixture(scope="session")
def playouts(request) -> int:
    n = request.config.getoption("--playouts")
    if n is None:
        n = int(os.environ.get("SHANGYOU_PLAYOUTS", "0") or 0)
    return n
