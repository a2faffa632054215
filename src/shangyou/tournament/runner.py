"""Duplicate-deal tournaments: play deals in every rotation, in parallel, resumably.

A *deal* ``d`` is one shuffle, fixed by a seed derived from the tournament seed and ``d``. Each
deal is played ``P`` times (``P`` = players), once per *rotation* ``r``: in rotation ``r`` seat
``s`` is taken by line-up entry ``(s - r) mod P``. So over one deal every entry sits in every seat
once and meets the same cards there as every other entry. Team presets seat partners on seats
that are congruent modulo the number of teams (``0+2 / 1+3``, ``0+2+4 / 1+3+5``), and a cyclic
shift keeps such seats together: entries ``i`` and ``i + teams`` are partners in every rotation,
and each team plays both (all) sides of every deal. With ``rotations="distinct"`` a deal is
played only in the rotations that seat the levels differently (:meth:`Config.rotation_list`).

Each finished deal is one JSON line in ``deals.jsonl`` (after a header line holding the
configuration), written as soon as it is done, so an interrupted run loses at most the deals in
progress and the same command picks up where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import shangyou

from ..bots import BotProtocol, make_bot
from ..bots.base import level_spec

FORMAT = 1
RECORDS = "deals.jsonl"


class ConfigMismatch(ValueError):
    """The output folder holds deals of a different tournament."""


@dataclass(frozen=True)
class Config:
    """What defines a tournament (and so which finished deals may be reused)."""

    game: str                      # canonical preset name
    players: int
    bots: tuple[str, ...]          # the line-up, one level name per seat in rotation 0
    seed: int
    options: dict = field(default_factory=dict)
    rotations: str = "all"         # "all" or "distinct" (see rotation_list)

    def key(self) -> dict:
        key = {"format": FORMAT, "game": self.game, "players": self.players,
               "bots": list(self.bots), "seed": self.seed,
               "options": {k: self.options[k] for k in sorted(self.options)}}
        if self.rotations != "all":
            key["rotations"] = self.rotations     # older runs (all rotations) keep their key
        return key

    def rotation_list(self) -> list[int]:
        """The rotations each deal is played in: every one, or with ``"distinct"`` only the
        first of those that seat the same levels in the same seats (a team line-up such as
        ``search,heuristic,search,heuristic`` repeats itself after two turns: rotations 0 and
        1 already give each team both sides of the deal)."""
        if self.rotations == "all":
            return list(range(self.players))
        out, seen = [], set()
        for r in range(self.players):
            names = tuple(self.bots[e] for e in seating(self.players, r))
            if names not in seen:
                seen.add(names)
                out.append(r)
        return out

    @property
    def names(self) -> list[str]:
        """Distinct bot names in line-up order."""
        return list(dict.fromkeys(self.bots))

    @property
    def entries(self) -> list[str]:
        """A label per line-up entry: the name, with ``#k`` when a name appears more than once."""
        out: list[str] = []
        seen: dict[str, int] = {}
        for b in self.bots:
            seen[b] = seen.get(b, 0) + 1
            out.append(b if self.bots.count(b) == 1 else f"{b}#{seen[b]}")
        return out


ROTATIONS = ("all", "distinct")


class _PolicyBot:
    """A bot from a policy callable ``policy(view) -> move text``."""

    def __init__(self, policy):
        self.policy = policy

    def choose(self, view: dict) -> str:
        return self.policy(view)


def entrant(spec, seed: int | None):
    """One seat's bot from an entry of ``extra_bots``: a bot object (used as it is), a class
    or factory called as ``factory(seed)``, or a policy callable ``policy(view) -> move``."""
    if isinstance(spec, type):
        return spec(seed)
    if isinstance(spec, BotProtocol):
        return spec
    if callable(spec):
        return _PolicyBot(spec)
    raise ValueError(f"{spec!r} is not a bot (choose(view)), a bot class or a policy callable")


def _bot(name: str, seed: int, extra_bots: dict | None):
    if extra_bots and name in extra_bots:
        return entrant(extra_bots[name], seed)
    return make_bot(name, seed=seed)


def make_config(game: str, bots, seed: int, players: int | None = None,
                options: dict | None = None, rotations: str = "all",
                extra_bots: dict | None = None) -> Config:
    """Check everything up front and answer a :class:`Config`; ValueError on bad input.

    ``bots`` is a list or a comma-separated text, one level per seat. Without ``players`` the
    table has one seat per bot. ``rotations``: ``"all"`` (each deal once per seat turn) or
    ``"distinct"`` (:meth:`Config.rotation_list`). ``extra_bots`` names more entrants than
    the levels: ``{"mine": bot object, class or policy callable}`` (see :func:`entrant`;
    give the same mapping to :func:`run`).
    """
    if rotations not in ROTATIONS:
        raise ValueError(f"rotations must be 'all' or 'distinct', not {rotations!r}")
    from ..registry import resolve
    name, _ = resolve(game)
    info = shangyou.preset_info(name)
    if isinstance(bots, str):
        bots = bots.split(",")
    extra = {str(k).strip().lower(): v for k, v in (extra_bots or {}).items()}
    line_up = tuple(level_spec(b) for b in bots if b.strip())
    if not line_up:
        raise ValueError("no bots given: list one level per seat, e.g. greedy,random,random,random")
    options = dict(options or {})
    if "players" in options:
        if players is not None and players != options["players"]:
            raise ValueError("players given twice with different values")
        players = options.pop("players")
    if players is None:
        players = len(line_up)
    if players not in info["players"]:
        raise ValueError(f"{name} is played by {', '.join(map(str, info['players']))} players, "
                         f"not {players}")
    if len(line_up) != players:
        raise ValueError(f"{len(line_up)} bots for {players} seats: list one bot per seat")
    for b in set(line_up):
        if b in extra:
            entrant(extra[b], 0)       # not a bot: fails here
        else:
            make_bot(b, seed=0)        # an unknown level or a bad budget fails here
    shangyou.new_game(name, players=players, seed=0, **options)   # bad options fail here
    return Config(name, int(players), line_up, int(seed), options, rotations)


def _derive(*parts) -> int:
    digest = hashlib.sha256(":".join(map(str, ("shangyou-tournament",) + parts)).encode()).digest()
    return int.from_bytes(digest[:6], "big")


def deal_seed(seed: int, deal: int) -> int:
    """The game seed of deal ``deal`` of a tournament with seed ``seed`` (48 bits)."""
    return _derive(seed, "deal", deal)


def bot_seed(seed: int, deal: int, rotation: int, seat: int) -> int:
    return _derive(seed, "bot", deal, rotation, seat)


def seating(players: int, rotation: int) -> list[int]:
    """The line-up entry in each seat in ``rotation``."""
    return [(s - rotation) % players for s in range(players)]


# ----------------------------------------------------------------------------- one hand
def outcome(result: dict, n: int) -> dict:
    """Per seat: score, place (climbing games, else None) and win; the teams and their ranks.

    - individual climbing games: score = the hand's points, place = order of going out,
      win = first out; ranking by place.
    - Zheng Fen: score = card points taken, place = order of going out, win = most points
      (ties: every tied player wins); ranking by points.
    - team climbing (pagat-teams): score = the team's points for the hand, win = the team with
      strictly the most points; teams ranked by points.
    - Sheng ji: score = levels gained by the seat's side, minus levels gained by the other side
      (so +L / -L), win = the side the engine names as winning the hand (``winners``: the
      declarers if they kept the opponents under the threshold, otherwise the opponents, who
      may gain no level yet take over the declaring); two teams ranked by that.
    """
    if "last" in result:                                    # Sheng ji and Zhao Pengyou
        last = result["last"]
        winners = set(result["winners"])
        change = last["change"]
        side = set(last["declarers"] if change["side"] == "declarers" else last["opponents"])
        teams = [sorted(last["declarers"]), sorted(last["opponents"])]
        teams = [t for t in teams if t]
        return {"score": [change["levels"] if s in side else -change["levels"] for s in range(n)],
                "place": [None] * n,
                "win": [1 if s in winners else 0 for s in range(n)],
                "teams": teams,
                "ranks": [1 if set(t) & winners else 2 for t in teams]}
    order = result["order"]
    place = [order.index(s) + 1 for s in range(n)]
    if "team_points" in result:                             # team climbing
        teams = [list(t) for t in result["teams"]]
        tp = result["team_points"]
        team_of = {s: i for i, t in enumerate(teams) for s in t}
        best = max(tp)
        sole = tp.count(best) == 1
        return {"score": [tp[team_of[s]] for s in range(n)], "place": place,
                "win": [1 if sole and tp[team_of[s]] == best else 0 for s in range(n)],
                "teams": teams, "ranks": [1 + sum(x > p for x in tp) for p in tp]}
    pts = result["points"]
    teams = [[s] for s in range(n)]
    if "winners" in result:                                 # Zheng Fen: most card points
        winners = set(result["winners"])
        return {"score": list(pts), "place": place,
                "win": [1 if s in winners else 0 for s in range(n)],
                "teams": teams, "ranks": [1 + sum(x > p for x in pts) for p in pts]}
    return {"score": list(pts), "place": place,                # individual climbing
            "win": [1 if p == 1 else 0 for p in place], "teams": teams, "ranks": place}


def _hand_digest(cards) -> str:
    return hashlib.sha1(" ".join(sorted(map(str, cards))).encode()).hexdigest()[:12]


def play_hand(cfg: Config, deal: int, rotation: int, extra_bots: dict | None = None) -> dict:
    """Play one hand of ``deal`` in ``rotation``; answer its record (JSON-ready)."""
    n = cfg.players
    seats = seating(n, rotation)
    game = shangyou.new_game(cfg.game, players=n, seed=deal_seed(cfg.seed, deal), **cfg.options)
    bots = [_bot(cfg.bots[seats[s]], bot_seed(cfg.seed, deal, rotation, s), extra_bots)
            for s in range(n)]
    think = [0.0] * n
    cpu = [0.0] * n            # process time: what the move cost on one core, whatever the load
    cpu_max = [0.0] * n        # the dearest single decision
    moves = [0] * n
    dealt = None
    while not game.over:
        seat = game.to_act
        view = game.view(seat)
        if dealt is None and view.get("phase") != "deal":
            # the cards each seat was dealt (Sheng ji: once the deal is over; the declarer's
            # hand then holds the kitty as well)
            dealt = [_hand_digest(game.view(s)["hand"]) for s in range(n)]
        c0 = time.process_time()
        t0 = time.perf_counter()
        move = bots[seat].choose(view)
        think[seat] += time.perf_counter() - t0
        spent = time.process_time() - c0
        cpu[seat] += spent
        cpu_max[seat] = max(cpu_max[seat], spent)
        moves[seat] += 1
        try:
            game.apply(move)
        except ValueError as e:
            raise RuntimeError(f"bot {cfg.bots[seats[seat]]!r} in seat {seat} made an illegal "
                               f"move {move!r} (deal {deal}, rotation {rotation}): {e}") from e
    out = outcome(game.result, n)
    rec = {"rotation": rotation, "seats": seats, **out, "dealt": dealt,
           "moves": moves, "think": [round(t, 6) for t in think],
           "cpu": [round(t, 6) for t in cpu], "cpu_max": [round(t, 6) for t in cpu_max]}
    if "last" in game.result:
        rec["declarer"] = game.result["last"]["declarer"]
    return rec


def play_deal(cfg: Config, deal: int, extra_bots: dict | None = None) -> dict:
    """Every rotation of one deal (:meth:`Config.rotation_list`)."""
    return {"deal": deal, "seed": deal_seed(cfg.seed, deal),
            "hands": [play_hand(cfg, deal, r, extra_bots) for r in cfg.rotation_list()]}


def _play_deal_from_key(key: dict, deal: int, extra_bots: dict | None = None) -> dict:
    # picklable entry point for worker processes and Ray tasks
    return play_deal(_config_from_key(key), deal, extra_bots)


def _config_from_key(key: dict) -> Config:
    return Config(key["game"], key["players"], tuple(key["bots"]), key["seed"],
                  dict(key["options"]), key.get("rotations", "all"))


# ----------------------------------------------------------------------------- storage
def load_records(path: Path, cfg: Config | None, repair: bool = True) -> dict[int, dict]:
    """Finished deals in ``path`` by deal number; ConfigMismatch if they belong elsewhere.

    A last line cut short (the run was killed while writing) is dropped from the file; with
    ``repair=False`` the file is only read (a run may still be writing it) and such a line is
    skipped. ``cfg=None`` takes any tournament's deals.
    """
    if not path.exists() or path.stat().st_size == 0:
        return {}
    lines = path.read_bytes().split(b"\n")
    keep_bytes = 0
    records: dict[int, dict] = {}
    header = None
    for i, raw in enumerate(lines):
        if not raw.strip():
            keep_bytes += len(raw) + 1
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError:
            if i >= len(lines) - 2:      # an unfinished last line
                break
            raise ValueError(f"{path}: line {i + 1} is not JSON; remove the file to start "
                             "again") from None
        keep_bytes += len(raw) + 1
        if header is None:
            if "config" not in obj:
                raise ValueError(f"{path} does not start with a tournament header")
            header = obj["config"]
            if cfg is not None:
                _check_same(header, cfg.key(), path)
            continue
        records[obj["deal"]] = obj
    if not repair:
        return records
    size = path.stat().st_size
    with open(path, "r+b") as f:
        if keep_bytes < size:
            f.truncate(keep_bytes)
        elif size and lines[-1] != b"":      # a whole last line without its newline
            f.seek(0, os.SEEK_END)
            f.write(b"\n")
    return records


def read_folder(folder: Path) -> tuple[Config, list[dict]]:
    """The configuration and the finished deals (in deal order) of a tournament folder,
    without writing to it (a run may still be going on there)."""
    path = Path(folder) / RECORDS
    try:
        with open(path, "rb") as f:
            header = json.loads(f.readline())["config"]
    except (OSError, ValueError, KeyError, TypeError):
        raise ValueError(f"{folder}: no tournament there (no {RECORDS} with a header)") from None
    if header.get("format") != FORMAT:
        raise ValueError(f"{path}: format {header.get('format')!r}, this version reads {FORMAT}")
    records = load_records(path, None, repair=False)
    return _config_from_key(header), [records[d] for d in sorted(records)]


def _check_same(old: dict, new: dict, path: Path) -> None:
    diffs = [f"{k}: {old.get(k)!r} there, {new.get(k)!r} now"
             for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
    if diffs:
        raise ConfigMismatch(f"{path.parent} holds a different tournament ("
                             + "; ".join(diffs) + "); use another --out folder or remove it")


class _Writer:
    def __init__(self, path: Path, cfg: Config):
        fresh = not path.exists() or path.stat().st_size == 0
        self.f = open(path, "a", encoding="utf-8")
        if fresh:
            self.write({"config": cfg.key()})

    def write(self, obj: dict) -> None:
        self.f.write(json.dumps(obj, separators=(",", ":")) + "\n")
        self.f.flush()

    def close(self) -> None:
        self.f.close()


# ----------------------------------------------------------------------------- running
def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:                                   # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def run(cfg: Config, deals: int, out: Path, workers: int | None = None,
        ray_address: str | None = None, progress: bool = True, console=None,
        on_deal=None, extra_bots: dict | None = None) -> list[dict]:
    """Play the deals ``0..deals-1`` not yet in ``out``; answer all their records, in order.

    ``workers``: local processes (default: the usable cores; 1 plays in this process).
    ``ray_address``: spread the deals over a Ray cluster instead (``"local"`` starts one here).
    ``on_deal(record)`` is called after each new deal is saved (tests use it to interrupt).
    ``extra_bots``: the entrants of :func:`make_config` that are not levels; they travel to
    worker processes pickled (a bot defined at module level does; a lambda does not: play it
    with ``workers=1``).
    """
    if deals < 1:
        raise ValueError("a tournament needs at least one deal")
    extra = {str(k).strip().lower(): v for k, v in (extra_bots or {}).items()} or None
    if ray_address:
        require_ray()                 # before anything is written
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / RECORDS
    done = load_records(path, cfg)
    todo = [d for d in range(deals) if d not in done]
    workers = default_workers() if workers is None else workers
    if workers < 1:
        raise ValueError("workers must be at least 1")
    if extra and (ray_address or (workers > 1 and len(todo) > 1)):
        import pickle
        try:
            pickle.dumps(extra)
        except Exception as e:
            raise ValueError(f"extra_bots must be picklable to play in worker processes "
                             f"({e}); use workers=1") from None
    writer = _Writer(path, cfg)
    bar = _Progress(progress, console, deals, deals - len(todo), len(cfg.rotation_list()))
    try:
        with bar:
            def finished(rec: dict) -> None:
                done[rec["deal"]] = rec
                writer.write(rec)
                bar.advance()
                if on_deal is not None:
                    on_deal(rec)
            if todo:
                if ray_address:
                    _run_ray(cfg, todo, ray_address, workers, finished, extra)
                elif workers == 1 or len(todo) == 1:
                    for d in todo:
                        finished(play_deal(cfg, d, extra))
                else:
                    _run_pool(cfg, todo, workers, finished, extra)
    finally:
        writer.close()
    return [done[d] for d in range(deals)]


def _run_pool(cfg: Config, todo: list[int], workers: int, finished,
              extra: dict | None = None) -> None:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    key = cfg.key()
    pending = iter(todo)
    ctx = multiprocessing.get_context("spawn")      # no inherited threads or locks
    with ProcessPoolExecutor(max_workers=min(workers, len(todo)), mp_context=ctx) as pool:
        running = set()
        try:
            for d in pending:
                running.add(pool.submit(_play_deal_from_key, key, d, extra))
                if len(running) >= 2 * workers:
                    break
            while running:
                ready, running = wait(running, return_when=FIRST_COMPLETED)
                for fut in sorted(ready, key=lambda f: f.result()["deal"]):
                    finished(fut.result())
                for d in pending:
                    running.add(pool.submit(_play_deal_from_key, key, d, extra))
                    if len(running) >= 2 * workers:
                        break
        except BaseException:
            for fut in running:
                fut.cancel()
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def require_ray():
    """The ``ray`` module; ValueError (one line) where Ray cannot be imported."""
    try:
        import ray
    except ImportError:
        raise ValueError("--ray needs Ray: pip install 'shangyou[cluster]'") from None
    return ray


def _run_ray(cfg: Config, todo: list[int], address: str, workers: int, finished,
             extra: dict | None = None) -> None:
    ray = require_ray()
    started = False
    if not ray.is_initialized():
        try:
            if address == "local":
                # address="local": always a new instance here, never a leftover one found
                # through /tmp/ray's "current cluster" file
                ray.init(address="local", num_cpus=workers, include_dashboard=False,
                         log_to_driver=False,
                         configure_logging=False)
            else:
                # ship this package to the cluster so its workers run the same code
                pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
                ray.init(address=address, runtime_env={"py_modules": [pkg]},
                         log_to_driver=False, configure_logging=False)
        except (ConnectionError, RuntimeError, ValueError) as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise ValueError(f"could not start or reach Ray at {address!r}: {first}") from e
        started = True
    try:
        task = ray.remote(_play_deal_from_key)
        key = cfg.key()
        width = max(2, 2 * int(ray.cluster_resources().get("CPU", workers)))
        pending = iter(todo)
        running = [task.remote(key, d, extra) for _, d in zip(range(width), pending)]
        while running:
            ready, running = ray.wait(running, num_returns=1)
            for ref in ready:
                finished(ray.get(ref))
            for _, d in zip(range(len(ready)), pending):
                running.append(task.remote(key, d, extra))
    finally:
        if started:
            ray.shutdown()


class _Progress:
    """A rich progress bar over deals (hands per second shown), or nothing."""

    def __init__(self, enabled: bool, console, total: int, completed: int, per_deal: int):
        self.enabled = enabled
        self.per_deal = per_deal
        if not enabled:
            return
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)
        self.p = Progress(TextColumn("deals"), BarColumn(), MofNCompleteColumn(),
                          TextColumn("{task.fields[rate]}"), TimeElapsedColumn(),
                          TextColumn("left"), TimeRemainingColumn(), console=console)
        self.task = self.p.add_task("deals", total=total, completed=completed, rate="")
        self.t0 = time.perf_counter()
        self.new = 0

    def __enter__(self):
        if self.enabled:
            self.p.start()
        return self

    def __exit__(self, *exc):
        if self.enabled:
            self.p.stop()

    def advance(self) -> None:
        if not self.enabled:
            return
        self.new += 1
        secs = max(1e-9, time.perf_counter() - self.t0)
        self.p.update(self.task, advance=1,
                      rate=f"{self.new * self.per_deal / secs:.1f} hands/s")
