"""Dependencies point one way: ``cards`` and ``engine/`` know nothing of the games.

The check reads the sources (``ast``), so an import inside a function or under
``TYPE_CHECKING`` counts too, and it follows every shangyou module they import, so a detour
(``engine`` → ``registry`` → ``games``) is caught as well. Importing the package to look at
``sys.modules`` would not do: ``shangyou/__init__.py`` imports the games itself.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"


def module_path(name: str) -> Path | None:
    """The source file of a shangyou module (a package's ``__init__.py``), or None."""
    base = SRC.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """The shangyou modules this file imports, anywhere in it, as absolute names."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                up = package.split(".")
                base = ".".join(up[:len(up) - node.level + 1])
                mod = f"{base}.{node.module}" if node.module else base
            else:
                mod = node.module or ""
            found.add(mod)
            # ``from pkg import name``: name may be a module of its own
            found.update(f"{mod}.{a.name}" for a in node.names
                         if module_path(f"{mod}.{a.name}") is not None)
    return {m for m in found if m == "shangyou" or m.startswith("shangyou.")}


def reachable(start: list[Path]) -> dict[str, str]:
    """Every shangyou module the files import, directly or through others: name -> importer."""
    seen: dict[str, str] = {}
    todo = list(start)
    while todo:
        path = todo.pop()
        for mod in imports_of(path):
            if mod in seen:
                continue
            seen[mod] = module_name(path)
            target = module_path(mod)
            if target is not None:
                todo.append(target)
    return seen


def test_the_walk_sees_imports_of_every_form():
    """The checker itself: relative, absolute, ``from pkg import module`` and nested imports,
    and the modules they lead to (games reach the engine)."""
    reached = reachable([SRC / "shangyou" / "games" / "climbing" / "family.py"])
    assert {"shangyou.engine.moves", "shangyou.engine.memo", "shangyou.games.climbing.core",
            "shangyou.games.climbing.combo", "shangyou.cards"} <= set(reached)
    reached = reachable([SRC / "shangyou" / "registry.py"])
    assert any(m.startswith("shangyou.games.") for m in reached)


@pytest.mark.parametrize("start", ["engine", "cards.py", "errors.py"])
def test_cards_and_engine_import_nothing_from_the_games(start):
    root = SRC / "shangyou" / start
    files = sorted(root.rglob("*.py")) if root.is_dir() else [root]
    assert files
    reached = reachable(files)
    upward = {m: by for m, by in reached.items()
              if m == "shangyou" or m.split(".")[1] not in ("cards", "errors", "engine")}
    assert not upward, f"imported against the layering (module: importer): {upward}"
