"""Checking a preset's options: shared by every game's presets.

Each game's ``presets.py`` declares its presets as ``{"defaults": {...}, "players": (...),
"build": fn}``; these helpers merge the user's options over the defaults and refuse unknown
names and bad values with :class:`~shangyou.errors.UnknownOption`, naming the option.
"""

from __future__ import annotations

from ..errors import UnknownOption


def check_options(presets: dict, name: str, options: dict) -> dict:
    """The preset's defaults updated with the user's options; unknown names are refused."""
    spec = presets[name]
    unknown = sorted(set(options) - set(spec["defaults"]))
    if unknown:
        raise UnknownOption(f"unknown option {unknown[0]!r} for {name}; options are: "
                            + ", ".join(sorted(spec["defaults"])))
    merged = dict(spec["defaults"])
    merged.update({k: v for k, v in options.items() if v is not None})
    return merged


def require(cond: bool, message: str) -> None:
    if not cond:
        raise UnknownOption(message)


def check_bool(name: str, value) -> bool:
    require(isinstance(value, bool) or value in (0, 1), f"option {name} must be true or false")
    return bool(value)


def check_int(name: str, value, lo: int | None = None, hi: int | None = None) -> int:
    require(isinstance(value, int) and not isinstance(value, bool),
            f"option {name} must be a whole number, not {value!r}")
    require((lo is None or value >= lo) and (hi is None or value <= hi),
            f"option {name}={value} is out of range {lo}..{hi}")
    return value


def check_players(name: str, players, allowed: tuple) -> int:
    p = check_int("players", players)
    require(p in allowed, f"{name} is played by {', '.join(map(str, allowed))} players, not {p}")
    return p


def memo_build(memo: dict, build, name: str, options: dict):
    """``build(name, options)``, remembered per name and options (for games that deal many
    hands, such as simulations): a preset's rulebook is a pure function of its name and
    options and is never changed, so games with equal options can share one. Options that
    cannot be a dict key (or bad ones, which raise) are simply not remembered."""
    try:
        # the type too: 1 == True, but the rulebook keeps the option as given (for the log)
        key = (name, frozenset((k, type(v), v) for k, v in options.items()))
        found = memo.get(key)
    except TypeError:
        return build(name, options)
    if found is None:
        found = build(name, options)
        if len(memo) >= 256:
            memo.clear()
        memo[key] = found
    return found
