"""What the subcommands of ``shangyou`` share: one-line errors and ``--option key=value``.

Every subcommand module imports these from here (not from :mod:`shangyou.cli.main`, which
imports the subcommands), so the modules import in one direction only.
"""

from __future__ import annotations

import sys

import typer


def parse_option(text: str) -> tuple[str, object]:
    """``key=value`` from ``--option``: true/false, none, whole numbers, else the text."""
    if "=" not in text:
        raise ValueError(f"bad --option {text!r}: expected key=value, e.g. target=5")
    key, value = text.split("=", 1)
    key = key.strip().replace("-", "_")
    if not key:
        raise ValueError(f"bad --option {text!r}: the name is missing")
    v = value.strip()
    low = v.lower()
    if low in ("true", "yes", "on"):
        return key, True
    if low in ("false", "no", "off"):
        return key, False
    if low in ("none", "null"):
        return key, None
    try:
        return key, int(v)
    except ValueError:
        return key, v


def fail(message: str, code: int = 2):
    """One line on stderr and the exit code; no traceback."""
    print(f"Error: {message}", file=sys.stderr)
    raise typer.Exit(code)
