"""The learner's opponents: copies of itself, earlier snapshots of it and the bot levels.

Each seat but the learner's draws an opponent by the weights of ``TrainConfig.opponents``:
``self`` is one more learner seat (its moves are samples too), ``snapshot`` one of the latest
``league_size`` snapshots (``snapshots/snap-<hands>.npz``; before the first one, ``self``), any
other name a bot level (``make_bot``).
"""

from __future__ import annotations

import random
from pathlib import Path

from ..bots import BotProtocol, make_bot
from ..bots.learned import LearnedBot, Network


def hand_points(result: dict, n: int) -> list[float]:
    """Each seat's points from a climbing hand (its team's where the preset scores teams)."""
    teams = result.get("teams")
    if teams and "team_points" in result:
        tp = result["team_points"]
        return [float(tp[i]) for s in range(n) for i, t in enumerate(teams) if s in t]
    return [float(p) for p in result["points"]]


class League:
    def __init__(self, cfg, out: Path):
        self.cfg = cfg
        self.folder = Path(out) / "snapshots"
        self.names = list(cfg.opponents)
        self.weights = [cfg.opponents[k] for k in self.names]
        self.snapshots: list[Path] = []
        self.loaded: dict[Path, Network] = {}
        self.current: Network | None = None
        self._fallback: BotProtocol | None = None

    def add(self, net: Network, hands: int) -> Path:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"snap-{hands:010d}.npz"
        net.save(path)
        self.snapshots.append(path)
        self.loaded[path] = net
        return path

    def files(self) -> list[str]:
        return [p.name for p in self.snapshots]

    def restore(self, names: list[str]) -> None:
        self.snapshots = [self.folder / n for n in names if (self.folder / n).is_file()]

    def _snapshot(self, rng: random.Random) -> Network | None:
        pool = self.snapshots[-self.cfg.league_size:]
        if not pool:
            return None
        path = rng.choice(pool)
        net = self.loaded.get(path)
        if net is None:
            net = self.loaded[path] = Network.load(path)
            for old in [p for p in self.loaded if p not in pool]:
                del self.loaded[old]
        return net

    def seat(self, n: int, learner: int, rng: random.Random) -> list:
        """One hand's seats: None for a learner seat, else ``(name, bot)``."""
        seats: list = []
        for s in range(n):
            if s == learner:
                seats.append(None)
                continue
            name = rng.choices(self.names, self.weights)[0]
            if name == "snapshot":
                net = self._snapshot(rng)
                seats.append(None if net is None else
                             (name, LearnedBot(rng.getrandbits(32), network=net)))
            elif name == "self":
                seats.append(None)
            else:
                seats.append((name, make_bot(name, seed=rng.getrandbits(32))))
        return seats

    def fallback(self, rng: random.Random) -> BotProtocol:
        """The bot that makes the decisions the network does not (the heuristic level)."""
        if self._fallback is None:
            self._fallback = make_bot("heuristic", seed=rng.getrandbits(32))
        return self._fallback
