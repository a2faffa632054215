"""First lessons: short courses for someone who has never played, written as data.

Each game's course is a JSON file beside this module (``<name>.json``, see ``docs/learn.md``):
a title and steps, each step a sentence or two in English and 中文 and a small position to
play — the preset, the learner's hand, the trick on the table (and for Sheng ji the level and
the trump) — with what passes the step. The position is built into a real game state (the
hidden cards dealt to the other seats with a fixed seed) and the learner's play is applied to
it by the engine: an illegal play is refused with the engine's own explanation
(:mod:`shangyou.games.why`), a legal play that is not what the step asks is answered with the
step's hint.

>>> course = load("zheng-shangyou")
>>> step = course["steps"][0]
>>> check(step, step["pass"]["examples"][0])["ok"]
True
"""

from __future__ import annotations

import json
import random
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..cards import parse
from ..errors import IllegalMove, NotationError
from ..games.why import refuse
from ..registry import build, resolve

HERE = Path(__file__).parent
#: the courses, in the order the page lists them
COURSES = ("zheng-shangyou", "sheng-ji", "zheng-fen", "owen", "winner")
#: what may pass a step: any legal play of cards, a pass, a play of one of these kinds, one of
#: these plays (cards as a multiset), a play that takes the trick so far (Sheng ji), a whole
#: bury of the kitty (Sheng ji: the cards buried one move each, none of the ``avoid`` kinds,
#: ``points`` or ``trumps``)
GOALS = ("any", "pass", "kind", "cards", "wins", "bury")


class LessonError(ValueError):
    """A lesson file that does not describe a playable step."""


@lru_cache(maxsize=None)
def load(name: str) -> dict:
    """The course ``name`` (one of :data:`COURSES`) as parsed from its JSON file."""
    if name not in COURSES:
        raise KeyError(name)
    with open(HERE / f"{name}.json", encoding="utf-8") as f:
        return json.load(f)


def courses() -> list[dict]:
    """A summary of every course: name, titles, the steps' titles."""
    out = []
    for name in COURSES:
        c = load(name)
        out.append({"name": name, "title_en": c["title_en"], "title_zh": c["title_zh"],
                    "steps": [{"id": s["id"], "title_en": s["title_en"],
                               "title_zh": s["title_zh"]} for s in c["steps"]]})
    return out


def find_step(name: str, step_id: str) -> dict:
    for s in load(name)["steps"]:
        if s["id"] == step_id:
            return s
    raise KeyError(step_id)


def _cards(text: str) -> list[int]:
    return sorted(parse(text)) if text.strip() else []


def _template(preset: str, options: dict, seat: int) -> dict:
    """A fresh view of the preset at the play phase: the keys every view of it has."""
    from .. import new_game
    g = new_game(preset, seed=1, **options)
    while g.phase != "play":          # Sheng ji: the deal, the bids and the kitty
        g.apply(g.legal_moves()[0])
    return g.view(seat)


def _spread(total: int, seats: list[int]) -> dict[int, int]:
    """``total`` cards shared among ``seats`` as evenly as possible (the first get more)."""
    k, extra = divmod(total, len(seats))
    return {s: k + (1 if i < extra else 0) for i, s in enumerate(seats)}


def _bury_game(step: dict):
    """A bury position (``"phase": "bury"``): a real Sheng ji deal with the position's seed,
    every bid the first legal move, so that seat 0 takes the kitty; its hand must be the
    position's ``hand`` (the kitty's cards included)."""
    from .. import new_game
    pos = step["position"]
    preset, _ = resolve(pos["preset"])
    g = new_game(preset, seed=int(pos["seed"]), **dict(pos.get("options") or {}))
    while g.phase == "deal":
        g.apply(g.legal_moves()[0])
    if g.phase != "bury" or g.to_act != 0 or sorted(g.hands[0]) != _cards(pos["hand"]):
        raise LessonError(f"{step['id']}: seed {pos['seed']} does not give seat 0 this bury")
    return g


def position_view(step: dict) -> dict:
    """The learner's view of the step's position (seat 0 to play), as the table shows it."""
    pos = step["position"]
    if pos.get("phase") == "bury":
        return _bury_game(step).view(0)
    preset, _ = resolve(pos["preset"])
    options = dict(pos.get("options") or {})
    rules = build(preset, options)
    seat = 0
    v = _template(preset, options, seat)
    hand = _cards(pos["hand"])
    trick: list[tuple[int, str]] = [(int(s), str(c)) for s, c in pos.get("trick") or []]
    n = v["players"]
    others = [s for s in range(n) if s != seat]
    v.update(seat=seat, phase="play", to_act=seat, hand=pos["hand"].split(),
             trick=[[s, c] for s, c in trick], history=[])
    # the template's seat may have been the one to act (its legal moves: not this position's)
    v.pop("legal_moves", None)
    if "levels" in v:                                     # Sheng ji
        played = sum(len(_cards(c)) for _, c in trick)
        total = 54 * rules.decks - rules.kitty - len(hand) - played
        v.update(level=pos["level"], levels=[pos["level"]] * n, trump=pos["trump"],
                 tricks=[], points_won=[0] * n, opponents_points=0, bid=None,
                 declarer=pos.get("declarer", seat), pending=[], penalty_points=0,
                 calls=list(pos.get("calls") or []),
                 call_results=[None] * len(pos.get("calls") or []), friends=[])
        v.pop("buried", None)
        v.pop("legal_moves", None)
        v.pop("kitty_taken", None)
        counts = _spread(total, others)
        v["counts"] = [len(hand) if s == seat else counts[s] for s in range(n)]
    else:                                                 # the climbing games
        played = sum(len(_cards(c)) for _, c in trick if c != "pass")
        # the cards dealt (all of the pack, or fewer where some stay hidden: Owen's rules)
        pack = sum(v["counts"])
        counts = _spread(pack - len(hand) - played, others)
        v["counts"] = [len(hand) if s == seat else counts[s] for s in range(n)]
        last = None
        for s, c in trick:
            if c != "pass":
                combos = rules.family.combos(tuple(_cards(c)))
                if not combos:
                    raise LessonError(f"{step['id']}: {c} on the table is no combination")
                last = {"seat": s, "cards": c, "kind": combos[0].kind,
                        "reading": combos[0].label}
        v.update(last=last, passed=[], played=[], finished=[], exchanged=[],
                 previous_order=None)
        v.pop("exchange", None)
    return v


def position_game(step: dict):
    """The step's position as a game state (the other hands dealt with a fixed seed)."""
    if step["position"].get("phase") == "bury":
        return _bury_game(step)
    v = position_view(step)
    if "levels" in v:
        from ..games.sheng_ji.worlds import WorldSampler as SJ
        return SJ(v).sample(random.Random(7))
    from ..games.climbing.worlds import WorldSampler as Climb
    return Climb(v).sample(random.Random(7))


def public_step(name: str, step: dict) -> dict:
    """What the page gets of a step: its texts and the learner's view (not the answer)."""
    return {"course": name, "id": step["id"], "title_en": step["title_en"],
            "title_zh": step["title_zh"], "text_en": step["text_en"],
            "text_zh": step["text_zh"], "task_en": step["task_en"], "task_zh": step["task_zh"],
            "view": learner_view(step)}


def learner_view(step: dict) -> dict:
    """The view the table would show the learner: the position's game seen from seat 0 (the
    hand in the table's order), without the list of legal plays (the page must not hint)."""
    v = position_game(step).view(0)
    v.pop("legal_moves", None)
    return v


def _key(cards) -> Counter:
    return Counter(int(c) for c in cards)


def check(step: dict, play: str) -> dict:
    """Apply ``play`` (cards as text, or ``pass``) to the step's position.

    ``{"legal": False, "ok": False, "why": {...}}`` with the engine's explanation (``why`` is
    None where the engine gives only a message, ``message`` has it); ``{"legal": True,
    "ok": bool, ...}`` with the step's hint when the play is legal but not what it asks, or
    what the step says when passed and the learner's view after the play (``view``)."""
    text = " ".join(str(play).split())
    g = position_game(step)
    seat = g.to_act
    moves = [text]
    if step["pass"]["goal"] == "bury":          # the whole bury at once, one move a card
        moves = [f"bury {c}" for c in text.split()] or [text]
        if len(moves) != g.to_bury:
            e = refuse("sj_bury_count", need=g.to_bury, got=len(text.split()))
            return {"legal": False, "ok": False, "message": str(e), "why": e.why.as_dict()}
    try:
        for mv in moves:
            g.apply(mv)
    except (IllegalMove, NotationError) as e:
        why = getattr(e, "why", None)
        return {"legal": False, "ok": False, "message": str(e),
                "why": why.as_dict() if why is not None else None}
    goal = step["pass"]
    ok = _passes(goal, g, seat)
    out: dict[str, Any] = {"legal": True, "ok": ok}
    if not ok:
        out["hint"] = {"en": step["hint_en"], "zh": step["hint_zh"]}
    else:
        out["well"] = {"en": step.get("well_en", ""), "zh": step.get("well_zh", "")}
        out["view"] = g.view(seat)      # the learner's own view with the play made
    return out


def _last_move(g, seat: int):
    for s, mv in reversed(g.moves):
        if s == seat:
            return mv
    return None


def _passes(goal: dict, g, seat: int) -> bool:
    what = goal["goal"]
    if what == "bury":
        if g.phase == "bury" or g.kitty_owner != seat:      # not all of the kitty buried
            return False
        from ..games.sheng_ji.scoring import points
        avoid = goal.get("avoid") or []
        return not (("points" in avoid and points(g.kitty)) or
                    ("trumps" in avoid and any(g.trump.is_trump(c) for c in g.kitty)))
    mv = _last_move(g, seat)
    passed = mv is not None and str(mv) == "pass"
    if what == "pass":
        return passed
    if passed or mv is None:
        return False
    if what == "any":
        return True
    if what == "kind":
        combo = getattr(mv, "combo", None)
        return combo is not None and combo.kind in goal["kinds"]
    if what == "cards":
        return any(_key(mv.cards) == _key(_cards(c)) for c in goal["plays"])
    if what == "wins":
        if any(e.get("event") == "failed throw" for e in g.events):
            return False
        from ..games.sheng_ji.tricks import trick_winner
        plays = [cs for _, cs in g.trick] if g.trick else \
            [cs for _, cs in g.tricks[-1]["plays"]]
        seats = [s for s, _ in g.trick] if g.trick else \
            [s for s, _ in g.tricks[-1]["plays"]]
        return seats[trick_winner(g.trump, plays)] == seat
    raise LessonError(f"unknown goal {what!r}")
