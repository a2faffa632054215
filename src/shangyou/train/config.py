"""What a training run is: the game, the network, the league and the learning settings."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

#: Opponents of the learner and their weights: ``self`` seats are copies of the learner (they
#: learn too), ``snapshot`` seats play an earlier snapshot of it, any other name is a bot level.
DEFAULT_OPPONENTS = {"self": 4.0, "heuristic": 3.0, "snapshot": 2.0, "greedy": 1.0}


def parse_opponents(text: str) -> dict[str, float]:
    """``"self=3,heuristic=4,greedy"`` -> ``{"self": 3.0, "heuristic": 4.0, "greedy": 1.0}``
    (a level may carry its parameter: ``search:100=1``); ValueError on a bad weight or an
    unknown level."""
    from ..bots import make_bot
    out: dict[str, float] = {}
    for part in str(text).split(","):
        part = part.strip().lower()
        if not part:
            continue
        name, eq, weight = part.partition("=")
        name = name.strip()
        try:
            w = float(weight) if eq else 1.0
        except ValueError:
            w = -1.0
        if not 0 < w < 1e6:
            raise ValueError(f"bad opponent weight in {part!r}: give a positive number")
        if name not in ("self", "snapshot"):
            make_bot(name, seed=0)         # an unknown level fails here
        out[name] = out.get(name, 0.0) + w
    if not out:
        raise ValueError("no opponents given, e.g. self=3,heuristic=4,snapshot=2,greedy=1")
    return out


#: Settings a resumed run may change (the others define its network and its evaluations).
CHANGEABLE = ("lr", "batch", "replay", "reuse", "epsilon", "explore_hands", "opponents",
              "teachers", "hands_per_round", "snapshot_every", "league_size", "eval_every",
              "actors", "imitate", "margin")


@dataclass
class TrainConfig:
    """Everything that defines a run (stored in its checkpoints; a resumed run keeps it)."""

    game: str = "zheng-shangyou/pagat"         # presets of one family, comma-separated
    players: tuple[int, ...] = (4, 5)          # table sizes, one drawn per hand
    hidden: int = 256                          # width of the first hidden layer (then half)
    init: str = ""                             # a model file the network starts from
    lr: float = 3e-4
    batch: int = 256
    replay: int = 100_000                      # samples kept for learning
    reuse: float = 4.0                         # times each sample is learned from, on average
    epsilon: tuple[float, float] = (0.1, 0.02)  # exploration: from, to (linear)
    explore_hands: int = 20_000                # hands over which epsilon goes down
    opponents: dict = field(default_factory=lambda: dict(DEFAULT_OPPONENTS))
    teachers: tuple[str, ...] = ("heuristic",)  # levels whose moves are samples too
    hands_per_round: int = 32                  # hands played between learning rounds
    snapshot_every: int = 5_000                # hands between snapshots of the league
    league_size: int = 8                       # latest snapshots the league draws from
    eval_every: int = 5_000                    # hands between evaluations
    eval_deals: int = 200                      # fixed deals per table size in an evaluation
    eval_opponent: str = "heuristic"
    seed: int = 0
    actors: int = 1                            # processes playing hands (more than one: Ray)
    imitate: float = 0.0                       # weight of the teachers' margin loss (DQfD)
    margin: float = 0.1                        # by how much a teacher's move should lead

    @property
    def games(self) -> tuple[str, ...]:
        """The presets of the run (one drawn per hand)."""
        return tuple(g.strip() for g in self.game.split(",") if g.strip())

    @property
    def family(self) -> str:
        from ..env.features import family_of
        return family_of(self.games[0])

    def to_dict(self) -> dict:
        d = asdict(self)
        d["players"] = list(self.players)
        d["epsilon"] = list(self.epsilon)
        d["teachers"] = list(self.teachers)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> TrainConfig:
        d = dict(d)
        d["players"] = tuple(d["players"])
        d["epsilon"] = tuple(d["epsilon"])
        d["teachers"] = tuple(d.get("teachers", ()))
        return cls(**{k: v for k, v in d.items() if k in cls.__dataclass_fields__})

    def changed(self, changes: dict, log=None) -> TrainConfig:
        """A copy with ``changes`` applied, each change logged; ValueError for a change of a
        setting not in :data:`CHANGEABLE`."""
        d = self.to_dict()
        for name, value in changes.items():
            old = d[name]
            value = list(value) if isinstance(value, tuple) else value
            if value != old and name not in CHANGEABLE:
                raise ValueError(f"a resumed run keeps its {name.replace('_', ' ')} "
                                 f"({old}); start a new run (another --out) to change it")
            if value != old:
                d[name] = value
                if log is not None:
                    log(f"changed {name}: {old} -> {value}")
        return TrainConfig.from_dict(d)

    def check(self) -> TrainConfig:
        """ValueError on settings no run can use."""
        import shangyou
        from ..bots import make_bot
        from ..env.features import MAX_SEATS, MIN_SEATS, family_of
        from ..registry import resolve
        names = []
        for g in self.games or ("",):
            names.append(resolve(g)[0])
        if len({family_of(g) for g in names}) > 1:
            raise ValueError("one run trains one family: the climbing presets (Zheng Shangyou, "
                             "Zheng Fen) or the Sheng ji presets, not both")
        self.game = ",".join(names)
        if not self.players:
            raise ValueError("give at least one table size (--players 4,5)")
        for n in self.players:
            if not MIN_SEATS <= n <= MAX_SEATS:
                raise ValueError(f"the learned bot plays {MIN_SEATS} to {MAX_SEATS} seats, "
                                 f"not {n}")
        for name in names:
            allowed = shangyou.preset_info(name)["players"]
            if not any(n in allowed for n in self.players):
                raise ValueError(f"{name} is played by {', '.join(map(str, allowed))} players, "
                                 f"not {', '.join(map(str, self.players))}")
        for label, value, low in (("hidden", self.hidden, 4), ("batch", self.batch, 1),
                                  ("replay", self.replay, 1), ("hands per round",
                                                               self.hands_per_round, 1),
                                  ("snapshot every", self.snapshot_every, 1),
                                  ("league size", self.league_size, 1),
                                  ("eval every", self.eval_every, 1),
                                  ("eval deals", self.eval_deals, 1),
                                  ("actors", self.actors, 1)):
            if int(value) != value or value < low:
                raise ValueError(f"{label} must be a whole number of at least {low}")
        if not 0 < self.lr < 1:
            raise ValueError("the learning rate must be between 0 and 1")
        if not all(0 <= e <= 1 for e in self.epsilon):
            raise ValueError("epsilon must be between 0 and 1")
        if self.reuse <= 0:
            raise ValueError("reuse must be positive")
        if not (0 <= self.imitate < 1e6 and 0 <= self.margin < 1e6):
            raise ValueError("imitate and margin must be 0 or more")
        make_bot(self.eval_opponent, seed=0)
        if not any(k != "snapshot" for k in self.opponents):
            raise ValueError("the league needs more than snapshots (self or a bot level)")
        return self
