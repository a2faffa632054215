"""The miner: bot games played out, each decision screened for a clearly best play.

For each seed of a family, one hand of one of its presets (:data:`FAMILIES`, in turn by
seed) is dealt and played by the heuristic bot in every seat. At each decision of any seat
with between :data:`MIN_MOVES` and :data:`MAX_MOVES` legal plays (every whole play listed;
in Sheng ji, the play phase without throws), three steps, each on its own worlds sampled from
the seat's view as the search bot samples them (``review._climbing_judge``, ``review._sheng_ji_judge``), every
legal play played out in every world (common random numbers):

1. **screen**: :data:`SCREEN_WORLDS` worlds; the best mean must lead the next by the margin.
2. **deep**: :data:`DEEP_WORLDS` fresh worlds; the best play must lead every other by the
   margin after one standard error of their paired difference is taken off.
3. **verify**: :data:`VERIFY_WORLDS` more fresh worlds from another random seed, the same
   test: the solution must still be best by the margin.

The margin is the review's *mistake* threshold of the family (``review.THRESHOLDS``): a seat
that plays anything else loses at least that much on average. At most :data:`PER_HAND`
puzzles are kept per hand, the bot's own errors first (the play it made was not the
solution), then the widest margins. Everything is seeded from the family, the seed and the
move's index: a seed mines the same puzzles every time.

Sheng ji leads are mined in a pass of their own (``leads=True``; a seed's lead pass is
marked done as ``leads-SEED``): a lead lists every single, pair and tractor of the hand
(up to :data:`LEAD_MAX_PLAYS`; more and the lead is skipped, which bounds a decision's cost
at that many plays times the worlds of the three steps) and the first steps of throws. A
throw is made card by card and the puzzle page takes whole plays, so the throws are judged
through the one the heuristic calls safe (every unit of one plain suit boss, ``throw_plan``):
when it has one, that throw is played out beside the whole plays in every world and the
solution must beat it by the margin as well (it is kept in the record's ``throw``); a throw
the seat cannot know to be safe may fail and is not judged.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import shangyou

from ..bots import make_bot
from ..review import THRESHOLDS, _as_listed, _best_reason, _climbing_judge, _sheng_ji_judge
from ..review import family_of
from .position import DATA, FAMILIES, data_path, listed
from .themes import theme_of

VERSION = 2             # 2: Sheng ji leads (a pass of their own)
BOT = "heuristic"
MIN_MOVES = 3           # decisions with fewer legal plays are no puzzle (a coin toss)
MAX_MOVES = 20          # decisions with more legal plays are not screened
LEAD_MAX_PLAYS = 40     # Sheng ji leads with more whole plays than this are not screened
SCREEN_WORLDS = 8
DEEP_WORLDS = 64
VERIFY_WORLDS = 128
PER_HAND = 2
LOSS_Z = 1.0            # the margin must hold after this many standard errors


def margin_of(family: str) -> float:
    return THRESHOLDS[family][1]


def _judge(view: dict, played: str, rng):
    """The review's judge for this view (None: not a decision the miner takes), with every
    legal play playable."""
    moves = view["legal_moves"]
    if view["game"].startswith("sheng-ji"):
        if any(m == "play" or m.startswith(("throw ", "pick ")) for m in moves):
            return None
        j = _sheng_ji_judge(view, played, rng)
        if j is not None and j.play_of is not None:
            for m in moves:
                j.play_of.setdefault(m, m)
        return j
    if view.get("by_reading"):
        return None
    return _climbing_judge(view, played, rng, len(moves))


def _goes_out(view: dict) -> bool:
    """A play that empties the hand is legal: going out is no puzzle."""
    n = len(view["hand"])
    return any(m != "pass" and not m.startswith("throw ")
               and len(m.partition(" as ")[0].split()) == n for m in view["legal_moves"])


def is_sheng_ji_lead(view: dict) -> bool:
    """A Sheng ji lead of the play phase (the trick empty, no throw under way)."""
    return (view["game"].startswith("sheng-ji") and view.get("phase") == "play"
            and not view.get("trick") and not view.get("pending"))


def whole_plays(view: dict) -> list[str]:
    """A Sheng ji view's whole plays: its legal moves less the steps of a throw."""
    return [m for m in view["legal_moves"]
            if m != "play" and not m.startswith(("throw ", "pick "))]


def _lead_judge(view: dict, rng):
    """The review's Sheng ji judge for a lead, every whole play playable, and the safe throw
    the heuristic would make, as ``"throw CARDS"`` (None: it has none, or it is one unit,
    a whole play already)."""
    from ..bots import sheng_ji_heuristic as heur
    from ..cards import parse
    plays = whole_plays(view)
    judge = _sheng_ji_judge(dict(view, legal_moves=plays), plays[0], rng)
    if judge is None or judge.play_of is None:
        return None, None
    for m in plays:
        judge.play_of.setdefault(m, m)
    plan = heur.throw_plan(heur.Knowledge(view))
    throw = None
    if plan is not None:
        cards = str(parse(plan))
        if not any(sorted(m.split()) == sorted(cards.split()) for m in plays):
            throw = f"throw {cards}"
            judge.play_of[throw] = cards
    return judge, throw


def play_values(view: dict, worlds: int, rng) -> dict[str, list[float]] | None:
    """Every legal play of ``view`` played out in ``worlds`` worlds (the same for all); a
    Sheng ji lead: every whole play, and the heuristic's safe throw when it has one (under
    its ``"throw CARDS"`` key)."""
    if is_sheng_ji_lead(view):
        judge, throw = _lead_judge(view, rng)
        moves = whole_plays(view) + ([throw] if throw else [])
    else:
        moves = view["legal_moves"]
        judge = _judge(view, moves[0], rng)
    if judge is None:
        return None
    out: dict[str, list[float]] = {m: [] for m in moves}
    for _ in range(worlds):
        w = judge.world()
        for m in moves:
            out[m].append(judge.value(w, m))
    return out


def _mean(xs) -> float:
    return sum(xs) / len(xs)


def clear_best(values: dict[str, list[float]], margin: float, z: float) -> tuple[str, float] | None:
    """The play that leads every other by ``margin`` after ``z`` standard errors of the paired
    difference (None: no such play), with its smallest such lead."""
    best = max(values, key=lambda m: (_mean(values[m]), m))
    lead = float("inf")
    a = values[best]
    n = len(a)
    for m, b in values.items():
        if m == best:
            continue
        d = [x - y for x, y in zip(a, b)]
        mean = sum(d) / n
        se = 0.0 if n < 2 else (sum((x - mean) ** 2 for x in d) / (n - 1) / n) ** 0.5
        lead = min(lead, mean - z * se)
    return (best, lead) if lead >= margin else None


def _stats(values: dict[str, list[float]]) -> dict[str, list[float]]:
    out = {}
    for m, xs in values.items():
        mean = _mean(xs)
        sd = (sum((x - mean) ** 2 for x in xs) / max(1, len(xs) - 1)) ** 0.5
        out[m] = [round(mean, 4), round(sd, 4)]
    return out


def rating_seed(n_moves: int, blunder: bool, lead: float, margin: float) -> int:
    """A puzzle's first rating: more plays to choose from and a bot that erred make it harder,
    a wide lead easier (1500 for 6 plays, a bot error, a lead of twice the margin)."""
    r = 1200 + 50 * min(n_moves, 12) + (150 if blunder else 0) - 75 * min(4.0, lead / margin)
    return int(max(800, min(2400, round(r))))


def _rng(family: str, key: str, index: int, step: str) -> random.Random:
    return random.Random(f"puzzles/{family}/{key}/{index}/{step}")


def mine_seed(family: str, seed: int, leads: bool = False) -> list[dict]:
    """The puzzles of one seed's hand, played by the bots (deterministic for the seed);
    ``leads``: its Sheng ji leads instead (:func:`mine_log`)."""
    presets = FAMILIES[family]
    preset, players = presets[seed % len(presets)]
    g = shangyou.new_game(preset, players=players, seed=seed)
    bots = [make_bot(BOT, seed * 16 + s) for s in range(players)]
    while not g.over:
        seat = g.to_act
        g.apply(bots[seat].choose(g.view(seat)))
    return mine_log(g.log, family, str(seed), leads)


def _replay(log: dict):
    """A new game (or match) of a log's preset, options and seed, as ``review_log`` makes it."""
    options: dict = {k: tuple(v) if isinstance(v, list) else v
                     for k, v in (log.get("options") or {}).items()}
    options["players"] = log.get("players", options.get("players"))
    make = shangyou.new_match if log.get("match", False) else shangyou.new_game
    return make(log["game"], seed=log["seed"], **options)


def log_key(log: dict) -> str:
    """A finished game's key among the mined: its seed and a hash of its moves (the same deal
    may be played two ways)."""
    import hashlib
    moves = json.dumps(log["moves"], separators=(",", ":"))
    return f"log-{log['seed']}-{hashlib.sha256(moves.encode()).hexdigest()[:10]}"


def _screened(view: dict, move: str, leads: bool) -> str | None:
    """The move made as the view lists it, where this decision is one the miner screens
    (None: not one). ``leads``: the Sheng ji leads, else every other decision."""
    if leads:
        if not is_sheng_ji_lead(view) or move.startswith(("throw ", "pick ")) or move == "play":
            return None     # the bot threw: the move made is no whole play (skipped)
        plays = whole_plays(view)
        if not MIN_MOVES <= len(plays) <= LEAD_MAX_PLAYS:
            return None
        return _as_listed(dict(view, legal_moves=plays), move)
    if is_sheng_ji_lead(view) or not MIN_MOVES <= len(view["legal_moves"]) <= MAX_MOVES \
            or move.startswith(("choose ", "pick ")):
        return None
    return _as_listed(view, move)


def mine_log(log: dict, family: str, key: str | None = None,
             leads: bool = False) -> list[dict]:
    """The puzzles of a finished game's log (``game.log``: a bot game, a saved game, a site's
    match), at most :data:`PER_HAND` of them; ``key`` names the game in the puzzles' ids and
    seeds their random numbers (by default :func:`log_key`). Decisions of another family (a
    log of another game) are not taken. ``leads``: the Sheng ji leads (a pass of their own,
    at most :data:`PER_HAND` more), else every other decision."""
    key = key if key is not None else log_key(log)
    g = _replay(log)
    margin = margin_of(family)
    found = []          # (index, seat, view, played, screen lead, screen best)
    for index, (seat, move) in enumerate(log["moves"]):
        if g.to_act != seat:
            raise ValueError(f"log move {index} ({move!r}) is by seat {seat}, "
                             f"but seat {g.to_act} is to act")
        raw = g.view(seat)
        view = listed(raw) if raw.get("phase") == "play" else None
        played = _screened(view, move, leads) if view is not None else None
        if view is not None and played is not None:
            fam = family_of(view["game"], getattr(g, "rules", None))
            if fam == family and played in (whole_plays(view) if leads else
                                             view["legal_moves"]) and not _goes_out(view):
                vals = play_values(view, SCREEN_WORLDS, _rng(family, key, index, "screen"))
                if vals is not None:
                    hit = clear_best(vals, margin, 0.0)
                    if hit is not None:
                        found.append((index, seat, view, played, hit[1], hit[0]))
        g.apply(move)
    found.sort(key=lambda f: (f[3] == f[5], -f[4], f[0]))   # the bot's errors first
    out: list[dict] = []
    for index, seat, view, played, _, _ in found:
        if len(out) >= PER_HAND:
            break
        deep = play_values(view, DEEP_WORLDS, _rng(family, key, index, "deep"))
        hit = clear_best(deep, margin, LOSS_Z) if deep else None
        if hit is None:
            continue
        best = hit[0]
        if best.startswith("throw "):
            continue            # the safe throw is best: the page takes no throws
        ver = play_values(view, VERIFY_WORLDS, _rng(family, key, index, "verify"))
        check = clear_best(ver, margin, LOSS_Z) if ver else None
        if check is None or check[0] != best:
            continue
        out.append(_record(family, key, log, index, seat, view, played, best, deep, ver,
                           check[1], margin))
    out.sort(key=lambda p: p["index"])
    return out


def _kind_after(log: dict, index: int, move: str) -> str | None:
    g = _replay(log)
    for _, text in log["moves"][:index]:
        g.apply(text)
    seat = log["moves"][index][0]
    g.apply(move)
    last = g.view(seat).get("last")
    return last.get("kind") if last else None


def _record(family, key, log, index, seat, view, played, best, deep, ver, lead, margin):
    kind = None if family == "sheng-ji" else _kind_after(log, index, best)
    throw = next((m for m in ver if m.startswith("throw ")), None)
    throw_stats = None
    if throw is not None:      # the safe throw of a lead: beside the plays, not one of them
        throw_stats = {"cards": throw[6:], "value": _stats({throw: ver.pop(throw)})[throw],
                       "deep": _stats({throw: deep.pop(throw)})[throw]}
    seen = view                 # as the seat saw it (the heuristic's reason reads this)
    if is_sheng_ji_lead(view):
        view = dict(view, legal_moves=whole_plays(view))
    vals = _stats(ver)
    runner = played if played != best else max(
        (m for m in vals if m != best), key=lambda m: vals[m][0])
    gain = vals[best][0] - vals[runner][0]
    reason = _best_reason(seen, best, runner, gain, len(ver[best]), family)
    moves = view["legal_moves"]
    options = {k: list(v) if isinstance(v, tuple) else v
               for k, v in (log.get("options") or {}).items() if k != "players"}
    out = {
        "id": f"{family}:{key}:{index}",
        "family": family, "preset": log["game"], "players": log["players"],
        "options": options, "seed": log["seed"], "index": index, "seat": seat,
        "prefix": [list(m) for m in log["moves"][:index]],
        "hand": list(view["hand"]),
        "solution": best, "bot_move": played, "blunder": played != best,
        "moves": len(moves), "values": vals,
        "deep": {"worlds": DEEP_WORLDS, "values": _stats(deep)},
        "verify": {"worlds": VERIFY_WORLDS, "lead": round(lead, 4)},
        "margin": margin, "theme": theme_of(family, view, best, kind),
        "reason": reason.as_dict(),
        "rating": rating_seed(len(moves), played != best, lead, margin),
        "miner": {"version": VERSION, "bot": BOT},
    }
    if is_sheng_ji_lead(view):
        out["lead"] = True          # mined in the lead pass
        if throw_stats is not None:
            out["throw"] = throw_stats
    if log.get("match"):
        out["match"] = True         # rebuilt with new_match: the prefix spans its hands
    if key.startswith("log-"):
        out["source"] = "log"       # a finished game's log, not a bot game of the miner's
        out["miner"] = {"version": VERSION}
    return out


def done_seeds(family: str, directory: Path | None = None) -> dict[str, tuple[int, float]]:
    """Seeds mined already: ``seed -> (puzzles, CPU seconds)`` (the ``.seeds`` file)."""
    path = (directory or DATA) / f"{family}.seeds"
    out: dict[str, tuple[int, float]] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            parts = line.split()
            if len(parts) == 3:
                out[parts[0]] = (int(parts[1]), float(parts[2]))
    return out


LEADS = "leads-"        # the key of a game's lead pass in the .seeds file: leads-SEED


def mine(family: str, seeds=(), directory: Path | None = None, progress=None,
         logs=(), leads: bool = False) -> int:
    """Mine ``seeds`` of ``family`` (bot games) and finished games' ``logs`` into the
    family's JSON lines file, skipping those done already (a log is known by
    :func:`log_key`); each game's puzzles are appended, then the game is marked done with its
    CPU time. ``leads``: the Sheng ji lead pass (marked ``leads-KEY``). How many puzzles
    were added."""
    if family not in FAMILIES:
        raise ValueError(f"unknown puzzle family {family!r}; known: {', '.join(FAMILIES)}")
    if leads and family != "sheng-ji":
        raise ValueError("the lead pass is Sheng ji's (the climbing miner takes leads "
                         "with the rest)")
    directory = directory or DATA
    directory.mkdir(parents=True, exist_ok=True)
    done = done_seeds(family, directory)
    path = data_path(family, directory)
    # a run stopped between its two writes left a seed's puzzles without its mark
    have = {json.loads(line)["id"] for line in path.open(encoding="utf-8")
            if line.endswith("\n")} if path.exists() else set()
    pre = LEADS if leads else ""
    jobs = [(pre + str(s), lambda s=s: mine_seed(family, s, leads)) for s in seeds]
    jobs += [(pre + log_key(g), lambda g=g: mine_log(g, family, None, leads)) for g in logs]
    added = 0
    for key, job in jobs:
        if key in done:
            continue
        t = time.process_time()
        puzzles = job()
        cpu = time.process_time() - t
        with open(path, "a", encoding="utf-8") as f:
            for p in puzzles:
                if p["id"] in have:
                    continue
                f.write(json.dumps(p, separators=(",", ":"), sort_keys=True) + "\n")
        with open(directory / f"{family}.seeds", "a", encoding="utf-8") as f:
            f.write(f"{key} {len(puzzles)} {cpu:.3f}\n")
        done[key] = (len(puzzles), cpu)
        added += len(puzzles)
        if progress is not None:
            progress(key, len(puzzles), cpu)
    return added
