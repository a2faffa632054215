"""Packaging: the library works without its extras and says what to install when one is
missing; one server command line; ``--version``; ranges in pyproject, exact pins in the lock."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"

# an import hook that hides the extras' packages, as a library-only install would lack them
HIDE = textwrap.dedent("""
    import sys
    HIDDEN = {hidden!r}

    class Hide:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in HIDDEN:
                raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)

    for name in list(sys.modules):
        if name.partition(".")[0] in HIDDEN:
            del sys.modules[name]
    sys.meta_path.insert(0, Hide())
""")
# (pydantic stays: typer, a dependency of the library, needs it)
WEB = ["fastapi", "uvicorn", "starlette", "sqlalchemy", "orjson", "psycopg", "alembic"]
EXTRAS = WEB + ["numpy", "gymnasium", "pettingzoo", "openskill", "matplotlib", "ray"]


def run_python(code: str, hidden: list[str], *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(SRC))
    return subprocess.run([sys.executable, "-c", HIDE.format(hidden=set(hidden)) + code, *args],
                          capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)


def test_the_library_works_without_its_extras():
    code = textwrap.dedent("""
        import shangyou
        from shangyou.bots import make_bot, play_out
        import shangyou.cli.main
        import shangyou.tournament
        g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=3)
        bots = [make_bot("greedy", s) for s in range(4)]
        while not g.over:
            g.apply(bots[g.to_act].choose(g.view(g.to_act)))
        assert "numpy" not in sys.modules and "fastapi" not in sys.modules
        print("ok")
    """)
    out = run_python(code, EXTRAS)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


@pytest.mark.parametrize("module, hidden, extra", [
    ("shangyou.env", ["numpy"], "env"), ("shangyou.env.aec", ["pettingzoo"], "env"),
    ("shangyou.env.single", ["gymnasium"], "env"),
    ("shangyou.server", ["fastapi"], "web"), ("shangyou.server.app", ["sqlalchemy"], "web"),
    ("shangyou.server.store", ["alembic"], "web")])
def test_a_missing_extra_names_the_install_command(module, hidden, extra):
    code = textwrap.dedent(f"""
        try:
            import {module}
        except ModuleNotFoundError as e:
            print(type(e).__name__, e.name, "|", e)
        else:
            print("imported")
    """)
    out = run_python(code, hidden)
    line = out.stdout.strip()
    assert out.returncode == 0 and "\n" not in line, out.stderr
    assert line.startswith(f"ModuleNotFoundError {hidden[0]} |"), line
    assert line.endswith(f"pip install 'shangyou[{extra}]'") and f"{hidden[0]} is missing" in line


def test_serve_without_the_web_stack_fails_in_one_line():
    code = "from shangyou.cli.main import main\nsys.argv = ['shangyou', 'serve']\nmain()"
    out = run_python(code, WEB)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "Error: shangyou.server needs the web stack (fastapi is missing): "
        "pip install 'shangyou[web]'"]


def cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(SRC), COLUMNS="100")
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True,
                          env=env, timeout=120, cwd=ROOT)


def test_version():
    out = cli("shangyou", "--version")
    assert out.returncode == 0 and re.fullmatch(r"shangyou \d+\.\d+\.\d+\S*\n", out.stdout)


def test_one_server_command_line():
    """``shangyou serve`` and ``python -m shangyou.server`` take the same options from one
    definition: the same help (but the program name) and the same refusals."""
    serve = cli("shangyou", "serve", "--help")
    module = cli("shangyou.server", "--help")
    assert serve.returncode == module.returncode == 0
    assert "usage: shangyou serve" in serve.stdout
    # the same options, help texts and defaults (the usage lines wrap by the program name)
    assert serve.stdout.partition("\n\n")[2] == module.stdout.partition("\n\n")[2]
    assert "The shangyou web server" in serve.stdout
    for opt in ("--host", "--port", "--data", "--db", "--bot-delay", "--ws", "--allow-origin",
                "--allow-address", "--limit", "--ws-ping-interval", "--ws-ping-timeout",
                "--drain-seconds", "--log-level"):
        assert opt in serve.stdout
    bad = cli("shangyou", "serve", "--limit", "no_such_limit=3")
    assert bad.returncode == 2 and "--limit 'no_such_limit=3'" in bad.stderr
    bad = cli("shangyou", "serve", "--ws-ping-timeout", "0")
    assert bad.returncode == 2 and "--ws-ping-timeout" in bad.stderr
    bad = cli("shangyou", "serve", "--drain-seconds", "-1")
    assert bad.returncode == 2 and "--drain-seconds" in bad.stderr


def requirement_name(req: str) -> str:
    return re.split(r"[\[<>=!~; ]", req, maxsplit=1)[0].lower().replace("_", "-")


def test_ranges_in_pyproject_and_pins_in_the_lock():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    library = project["dependencies"] + [r for name in ("web", "test", "env", "tournament",
                                                        "cluster", "train", "research")
                                         for r in extras[name]]
    for req in library:
        assert "==" not in req and "<" in req and ">=" in req, f"{req}: give a range"
    web = {requirement_name(r) for r in extras["web"]}
    assert {"fastapi", "uvicorn", "pydantic", "sqlalchemy", "orjson", "psycopg"} <= web
    assert not web & {requirement_name(r) for r in project["dependencies"]}
    lock = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, sep, version = line.partition("==")
            assert sep and re.fullmatch(r"[\w.+!-]+", version), f"not an exact pin: {line}"
            lock[name.lower().replace("_", "-")] = version
    assert "shangyou" not in lock
    missing = {requirement_name(r) for r in library} - set(lock)
    assert not missing, f"not in requirements.lock: {sorted(missing)}"


def test_typed_package():
    assert (SRC / "shangyou" / "py.typed").is_file()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "py.typed" in data["package-data"]["shangyou"]
