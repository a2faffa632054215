"""Distillation of the search level: positions labelled with the search's value of each of its
candidates, and a network trained to re-rank the heuristic's candidates by them.

Expert iteration's first step (Anthony et al., 2017), cut to what one CPU affords. Hands are
played by the ``heuristic`` level; at each play decision the search level weighs its candidates
on sampled worlds (Sheng ji: :func:`shangyou.bots.sheng_ji_search.candidates`, the heuristic's
move first, then one representative per kind of play; the climbing games: :class:`shangyou.bots.climbing_search.Search`'s, the heuristic's move
first, in pagat too, where the search itself puts its playout policy's move first
(``Search.heuristic_first``); ``--game`` names the preset, ``zheng-shangyou/owen``). Each
candidate's label is its mean gain over the heuristic's move, paired world by world, in the
search's own worth (a candidate the search's racing dropped early has fewer worlds, and its
label weighs less). The network (:class:`shangyou.bots.learned.Network`; each candidate's input
is its env row and that row less the heuristic's move's) learns ``Q(s, c) - Q(s, heuristic's
move)`` ≈ that gain; the learned bot plays a model of ``mode: rerank`` as the heuristic, unless
another candidate's value beats the heuristic's move's by more than the model's ``margin``.

Labels are written in shards (``shard-<seed>.npz``, one per seed and ``--hands`` hands), so a
run that stops loses at most the shard it was writing, and the same command resumes: shards
already there are skipped. ``python -m shangyou.train.distill label --out DIR --seeds 0-9``
makes them; ``... fit --data DIR --out model.npz`` trains the network. What was tried and what
it gave: ``docs/training.md``.

Sheng ji options: ``label --worlds W --top K`` weighs the heuristic's move and the search's K
best other candidates again on W fresh worlds (labels with less noise where it matters, and a
standard error for each); ``fit --target choice`` learns the candidate those worlds choose
(cross-entropy; ``--choice-z``: how clearly it must beat the heuristic's move) instead of the
gains; ``fit --inputs sj-search-1`` adds what the search weighs
(:mod:`shangyou.bots.sheng_ji_inputs`), computed from the views the shards keep by the bot's
own function. The climbing games: ``fit --inputs climb-heur-1`` adds the heuristic's plan
numbers (:mod:`shangyou.bots.climbing_inputs`) the same way; ``label --play learned`` has the
hands played by the learned level (positions the re-ranker meets itself, DAgger's step), the
labels still gains over the heuristic's move.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

from ..bots import make_bot
from ..bots.search import search_move
from ..env.features import dims, features, family_of, whole_plays
from .league import deal, reward_scale


def decides(view: dict) -> bool:
    """Whether the search would weigh candidates here: a play with a choice (not a throw's
    next step in Sheng ji, nor a climbing match's card exchange)."""
    moves = view["legal_moves"]
    return (view.get("phase") == "play" and not view.get("pending") and len(moves) > 1
            and not moves[0].startswith("pick ")
            and moves[0].split()[0] not in ("give", "take", "discard", "offer"))


def gains(values: dict, cands: list[str]) -> tuple[list[float], list[int]]:
    """Each candidate's mean gain over the first (the heuristic's move), paired over the
    worlds it was played in, and that number of worlds."""
    base = values[cands[0]]
    out, counts = [], []
    for m in cands:
        pairs = [(v, b) for v, b in zip(values[m], base) if v is not None and b is not None]
        out.append(sum(v - b for v, b in pairs) / len(pairs) if pairs else 0.0)
        counts.append(len(pairs))
    return out, counts


def refine(view: dict, info: dict, rng: random.Random, worlds: int, top: int) -> dict:
    """Sheng ji: the heuristic's move and the search's ``top`` best others weighed again on
    ``worlds`` fresh worlds (common random numbers), the other candidates keeping the search's
    values. Fresh worlds, not the search's: the candidates were picked on those, and their
    values there flatter them (the winner's curse)."""
    from ..bots.sheng_ji_search import playout
    from ..games.sheng_ji.worlds import WorldSampler
    values, plays = info["values"], info["plays"]
    cands = list(values)
    gain, _ = gains(values, cands)
    keep = [0] + sorted(range(1, len(cands)), key=lambda i: -gain[i])[:top]
    sampler = WorldSampler(view)
    seat = view["seat"]
    rows = []
    for _ in range(worlds):
        parts = sampler.deal(rng)
        seed = rng.randrange(2**31)
        rows.append([playout(sampler, parts, plays[cands[i]], seat, seed) for i in keep])
    fresh = {cands[i]: [r[j] for r in rows] for j, i in enumerate(keep)}
    return {"fresh": fresh, "search": values, "keep": [cands[i] for i in keep]}


def refined_labels(r: dict, cands: list[str]) -> tuple[list[float], list[int], list[float]]:
    """Each candidate's gain over the heuristic's move (the refined worlds for the kept
    candidates, the search's for the others), its worlds, and the standard error of the gain
    over the refined worlds (-1 for a candidate not weighed again, 0 for the heuristic's
    move): :func:`choices` makes classification targets of them."""
    fresh, keep = r["fresh"], r["keep"]
    gain, count = gains(r["search"], cands)
    se = [-1.0] * len(cands)
    se[0] = 0.0
    base = fresh[keep[0]]
    for m in keep[1:]:
        diffs = [v - b for v, b in zip(fresh[m], base)]
        n = len(diffs)
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / max(1, n - 1)
        i = cands.index(m)
        gain[i], count[i], se[i] = mean, n, (var / n) ** 0.5
    return gain, count, se


def choices(gain, se, pos, z: float) -> np.ndarray:
    """Each position's chosen candidate, as the search chooses
    (:func:`shangyou.bots.sheng_ji_search.pick_best`): of the candidates weighed again, the
    best whose gain over the heuristic's move passes ``z`` standard errors; else the
    heuristic's move (index 0 of the position)."""
    n_pos = int(pos[-1]) + 1 if len(pos) else 0
    out = np.zeros(n_pos, np.int64)
    best = np.zeros(n_pos)
    first = np.r_[True, pos[1:] != pos[:-1]]
    start = np.maximum.accumulate(np.where(first, np.arange(len(pos)), 0))
    for i in np.flatnonzero((se > 0) & (gain > z * se)):
        p = pos[i]
        if gain[i] > best[p]:
            best[p], out[p] = gain[i], i - start[i]
    return out


def best_others(gain, pos) -> np.ndarray:
    """Each position's best candidate other than the heuristic's move, by its labelled gain
    (the refined worlds' where it was weighed again), as an index within the position: the
    move a guided search should weigh (``fit --guide-weight``)."""
    n_pos = int(pos[-1]) + 1 if len(pos) else 0
    out = np.ones(n_pos, np.int64)
    best = np.full(n_pos, -np.inf)
    first = np.r_[True, pos[1:] != pos[:-1]]
    start = np.maximum.accumulate(np.where(first, np.arange(len(pos)), 0))
    for i in np.flatnonzero(~first):
        p = pos[i]
        if gain[i] > best[p]:
            best[p], out[p] = gain[i], i - start[i]
    return out


def guided(vq, idx, pos, gain) -> tuple[float, float, float]:
    """On held-out positions: what a guided search would find if it weighed only the
    network's best other candidate and kept the better of it and the heuristic's move (the
    mean of that candidate's gain where positive), the same for the labels' best other
    candidate (its ceiling), and how often the two are the same move."""
    p = pos[idx]
    got, best, same = [], [], 0
    for k in np.unique(p):
        sel = idx[p == k]
        if len(sel) < 2:
            continue
        j = 1 + int(np.argmax(vq[p == k][1:]))
        b = 1 + int(np.argmax(gain[sel][1:]))
        got.append(max(gain[sel[j]], 0.0))
        best.append(max(gain[sel[b]], 0.0))
        same += j == b
    return float(np.mean(got)), float(np.mean(best)), same / max(1, len(got))


class Placed(float):
    """A climbing playout's worth for the searching seat (a float the search adds and
    compares as before) that also carries the seat's place in that playout, as a value: 1 out
    first, 0 last (:func:`climbing_values`)."""

    place: float = 0.0


def climbing_values(view: dict, rng: random.Random, iterations: int | None,
                    place_bonus: float | None) -> dict:
    """The climbing search's ``info`` for ``view`` (as :func:`search_move` fills it), each
    playout's worth a :class:`Placed`: the seat's place is kept beside the points, so a fit
    can weigh the place as it likes (``fit --place-weight``). ``place_bonus``, when given,
    replaces the search's own bonus for an earlier place (``PLACE_BONUS``, 0.25 a hand from
    last to first) in the worth, which the search's racing reads too: a larger one keeps
    candidates that win places in the race."""
    from ..bots import climbing_search as cs
    from ..bots.climbing_heuristic import rules_for_view
    from ..games.climbing.steps import every_play, in_steps

    class PlaceSearch(cs.Search):
        heuristic_first = True          # pagat too: the labels are gains over its move

        def score(self, order, points, team_points) -> float:
            worth = super().score(order, points, team_points)
            place = (self.n - 1 - order.index(self.seat)) / (self.n - 1)
            if place_bonus is not None:
                worth += (place_bonus - cs.PLACE_BONUS) * place
            out = Placed(worth)
            out.place = place
            return out

    if in_steps(view["legal_moves"]):
        view = every_play(view, rules_for_view(view).family)
    info: dict = {}
    search = PlaceSearch(view, rng)
    search.info = info
    search.run(iterations, None)
    return info


def label_hand(game: str, players: int, seed: int, iterations: int | None,
               worlds: int = 0, top: int = 2, place_bonus: float | None = None,
               play: str = "heuristic") -> list[tuple]:
    """Play one hand with bots of the level ``play`` (the heuristic; ``learned``: positions
    from the re-ranker's own play, DAgger's step); label each play decision of every seat (the
    search's candidates: the heuristic's move first, in every game: in pagat, where the search
    itself puts its playout policy's move first, the labeller's search does not,
    ``Search.heuristic_first``). With ``worlds`` (Sheng ji),
    the heuristic's move and the search's ``top`` best others are weighed again on that many
    fresh worlds (:func:`refine`). Each sample: position, candidates' rows, gains, worlds, the
    standard errors of the refined gains (-1: not weighed again), the view and candidates as
    JSON (so that inputs added later are computed from the positions themselves) and, in the
    climbing games, each candidate's gain in place value over the heuristic's move (1 a hand
    from last to first; 0 in Sheng ji), from the same playouts."""
    g = deal(game, players, seed)
    rng = random.Random(seed ^ 0x5EA5C4)
    bots = [make_bot(play, seed=rng.getrandbits(32)) for _ in range(players)]
    out = []
    while not g.over:
        seat = g.to_act
        view = g.view(seat)
        if decides(view):
            info: dict = {}
            srng = random.Random(rng.getrandbits(32))
            if family_of(game) == "sheng-ji":
                search_move(view, srng, iterations=iterations, info=info)
            else:
                info = climbing_values(view, srng, iterations, place_bonus)
            cands = list(info.get("values") or ())      # the heuristic's move first
            if len(cands) >= 2:
                se = [-1.0] * len(cands)
                if worlds and "plays" in info:
                    r = refine(view, info, random.Random(rng.getrandbits(32)), worlds, top)
                    gain, count, se = refined_labels(r, cands)
                else:
                    gain, count = gains(info["values"], cands)
                places = {m: [getattr(v, "place", None) for v in vs]
                          for m, vs in info["values"].items()}
                place = (gains(places, cands)[0] if family_of(game) != "sheng-ji"
                         else [0.0] * len(cands))
                wv = whole_plays(view)
                state, rows = features(wv, cands)
                out.append((state, rows, np.array(gain, np.float32),
                            np.array(count, np.int16), np.array(se, np.float32),
                            json.dumps({"view": wv, "cands": cands}),
                            np.array(place, np.float32)))
        g.apply(bots[seat].choose(view))
    return out


def label_scale(game: str) -> float:
    """What labels are multiplied by for learning, to a few units: the search's worth is card
    points in Zheng Fen (gains of tens: 1/20) and cards left in "winner" (the winner takes
    every loser's count: gains of several, 1/5); Owen's places and Sheng ji's levels are small
    already (1)."""
    if game == "zheng-shangyou/winner":
        return 0.2
    return reward_scale(game)


def write_shard(path: Path, samples: list[tuple], meta: dict) -> None:
    """One shard: the positions, the candidates' rows (concatenated), their gains, worlds and
    each position's first row; the refined gains' standard errors and each view as JSON."""
    states = np.stack([x[0] for x in samples]) if samples else np.zeros((0, 1), np.float32)
    rows = np.concatenate([x[1] for x in samples]) if samples else np.zeros((0, 1))
    gain = np.concatenate([x[2] for x in samples]) if samples else np.zeros(0)
    count = np.concatenate([x[3] for x in samples]) if samples else np.zeros(0)
    start = np.cumsum([0] + [len(x[1]) for x in samples]).astype(np.int32)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, states=states.astype(np.float16), rows=rows.astype(np.float16),
                        gain=gain.astype(np.float32), worlds=count.astype(np.int16),
                        start=start, meta=np.array(repr(meta)),
                        se=(np.concatenate([x[4] for x in samples]) if samples
                            else np.zeros(0)).astype(np.float32),
                        views=np.array([x[5] for x in samples], dtype=np.str_),
                        place=(np.concatenate([x[6] for x in samples]) if samples
                               else np.zeros(0)).astype(np.float32))
    tmp.replace(path)


def label(args) -> None:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    lo, _, hi = args.seeds.partition("-")
    for s in range(int(lo), int(hi or lo) + 1):
        path = out / f"shard-{s}.npz"
        if path.exists():
            continue
        t0 = time.process_time()
        samples = []
        for h in range(args.hands):
            samples += label_hand(args.game, args.players, 1_000_003 * s + h + 7_777,
                                  args.iterations, args.worlds, args.top, args.place_bonus,
                                  args.play)
        write_shard(path, samples, {"game": args.game, "players": args.players, "seed": s,
                                    "play": args.play,
                                    "hands": args.hands, "iterations": args.iterations,
                                    "worlds": args.worlds, "top": args.top,
                                    "place_bonus": args.place_bonus})
        print(f"shard {s}: {len(samples)} positions, {time.process_time() - t0:.0f} s CPU",
              flush=True)


def shard_paths(folder: Path | list[Path], upto: int | None = None) -> list[Path]:
    """A folder's shards by seed (those of seeds up to ``upto`` when given): a labeller may
    still be adding shards, so a fit lists them once and may name the last seed it reads. A
    list of shards (that listing) is returned as it is."""
    if isinstance(folder, list):
        return folder
    paths = sorted((p for p in Path(folder).glob("shard-*.npz")
                    if p.stem.split("-")[1].isdigit()),      # not a stopped writer's .tmp
                   key=lambda p: int(p.stem.split("-")[1]))
    return [p for p in paths if upto is None or int(p.stem.split("-")[1]) <= upto]


def load(folder: Path | list[Path], extra: bool = False, upto: int | None = None):
    """Every shard of a folder: positions, rows, gains, worlds, and each row's position; with
    ``extra``, each row's refined standard error (-1 where it was not weighed again) and each
    position's view and candidates as JSON (None where the shard predates them)."""
    S, R, G, W, P, C, V = [], [], [], [], [], [], []
    base = 0
    for path in shard_paths(folder, upto):
        with np.load(path, allow_pickle=False) as d:
            if len(d["gain"]) == 0:
                continue
            start = d["start"]
            S.append(d["states"].astype(np.float32))
            R.append(d["rows"].astype(np.float32))
            G.append(d["gain"])
            W.append(d["worlds"].astype(np.float32))
            P.append(np.repeat(np.arange(len(start) - 1), np.diff(start)) + base)
            base += len(start) - 1
            n = len(start) - 1
            C.append(d["se"] if "se" in d else np.full(len(d["gain"]), -1.0, np.float32))
            V.append(list(d["views"]) if "views" in d else [None] * n)
    out = (np.concatenate(S), np.concatenate(R), np.concatenate(G), np.concatenate(W),
           np.concatenate(P))
    if extra:
        return out + (np.concatenate(C), [v for vs in V for v in vs])
    return out


def load_place(folder: Path | list[Path], upto: int | None = None) -> np.ndarray:
    """Each candidate's gain in place value over the heuristic's move, in :func:`load`'s order
    (0 where a shard predates it, and in Sheng ji)."""
    out = []
    for path in shard_paths(folder, upto):
        with np.load(path, allow_pickle=False) as d:
            if len(d["gain"]):
                out.append(d["place"] if "place" in d else np.zeros(len(d["gain"]), np.float32))
    return np.concatenate(out)


def with_inputs(views: list, inputs: str) -> tuple[np.ndarray, np.ndarray]:
    """Positions and candidates' rows made again from the labelled views by the bot's own
    function (:func:`shangyou.bots.learned.rerank_features`), with ``inputs`` added."""
    from ..bots.learned import rerank_features
    S, R = [], []
    for text in views:
        if text is None:
            raise SystemExit("--inputs needs shards that keep their views (label them again)")
        d = json.loads(str(text))
        state, rows = rerank_features(d["view"], d["cands"], inputs)
        S.append(state)
        R.append(rows)
    return np.stack(S), np.concatenate(R)


def fit(args) -> list[float]:
    """Train the re-ranker on the shards of ``args.data``, write ``args.out``; returns the
    training loss of each epoch."""
    import torch
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    # one listing for both reads; several folders (comma-separated) are read in turn
    shards = [p for d in str(args.data).split(",") for p in shard_paths(Path(d), args.upto)]
    states, rows, gain, worlds, pos, se, views = load(shards, extra=True)
    place = load_place(shards)
    if args.place_weight:
        # the target weighs the place more than the search's worth does: its labelled gain
        # (scaled below) plus place_weight / scale times the gain in place value
        gain = gain + args.place_weight / (label_scale(args.game) if args.scale is None
                                           else args.scale) * place
    choice = choices(gain, se, pos, args.choice_z)
    other = best_others(gain, pos)
    if args.inputs:
        states, rows = with_inputs(views, args.inputs)
    n_pos = len(states)
    rng = np.random.default_rng(args.seed)
    order = rng.permutation(n_pos)
    n_val = max(1, int(n_pos * args.val))
    val = np.zeros(n_pos, bool)
    val[order[:n_val]] = True
    family = family_of(args.game)
    sd, md = sd_md = dims(family)
    if args.inputs:
        from ..bots.learned import extra_dims
        sd, md = (a + b for a, b in zip(sd_md, extra_dims(args.inputs)))
    md *= 2                     # each row and its difference from the heuristic's move
    net = torch_network(sd, md, args.hidden)
    if args.init:
        start_from(net, args.init)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr, weight_decay=args.wd)
    S = torch.tensor(states)
    first = np.r_[True, pos[1:] != pos[:-1]]           # each position's heuristic row
    head_np = np.maximum.accumulate(np.where(first, np.arange(len(pos)), 0))
    Rw = torch.tensor(np.concatenate([rows, rows - rows[head_np]], axis=1))
    scale = label_scale(args.game) if args.scale is None else args.scale
    gain = gain * scale
    G = torch.tensor(np.clip(gain, -args.clip, args.clip))
    # a label from few worlds is noisy: weigh it by its worlds, up to 32
    Wt = torch.tensor(np.minimum(worlds, 32.0) / 32.0)
    Pt = torch.tensor(pos)
    head = torch.tensor(head_np)
    is_val = torch.tensor(val[pos])

    def q(idx):
        h = torch.relu(net["wm"](Rw[idx]) + net["ws"](S[Pt[idx]]))
        h = torch.relu(net["l2"](h))
        h = torch.relu(net["l3"](h))
        return net["l4"](h).squeeze(-1)

    def err(idx):
        """Weighted squared error of the predicted gain over the heuristic's move."""
        return Wt[idx] * (q(idx) - q(head[idx]) - G[idx]) ** 2

    # the refined choice as a classification target: a softmax over each position's
    # candidates (padded to the most any position has), cross-entropy on the chosen one
    starts = np.flatnonzero(first)
    sizes = np.diff(np.r_[starts, len(pos)])
    grid = np.full((n_pos, int(sizes.max())), -1, np.int64)
    for k, (a, m) in enumerate(zip(starts, sizes)):
        grid[k, :m] = np.arange(a, a + m)
    Grid = torch.tensor(grid)
    Choice = torch.tensor(choice)
    Other = torch.tensor(other)

    def guide_xent(ps):
        """Cross-entropy over the candidates other than the heuristic's move, towards the
        best of them by the labels: the order a guided search reads (``--guide-weight``)."""
        cells = Grid[ps]
        live = cells >= 0
        live[:, 0] = False
        qs = q(cells.clamp(min=0).reshape(-1)).reshape(cells.shape)
        qs = qs.masked_fill(~live, -1e9)
        return torch.nn.functional.cross_entropy(qs, Other[ps], reduction="none")

    def xent(ps):
        cells = Grid[ps]
        live = cells >= 0
        qs = q(cells.clamp(min=0).reshape(-1)).reshape(cells.shape)
        qs = qs.masked_fill(~live, -1e9)
        return torch.nn.functional.cross_entropy(qs, Choice[ps], reduction="none")

    challengers = torch.tensor(~first)
    train_rows = torch.nonzero(~is_val & challengers).squeeze(-1)
    val_rows = torch.nonzero(is_val & challengers).squeeze(-1)
    val_all = torch.nonzero(is_val).squeeze(-1)
    print(f"{n_pos} positions, {len(rows)} candidates ({n_val} positions held out)", flush=True)
    history: list[float] = []
    best, best_state = -np.inf, None
    choose = args.target == "choice"
    train_pos = torch.tensor(np.flatnonzero(~val))
    for epoch in range(args.epochs):
        units = train_pos if choose else train_rows
        perm = units[torch.randperm(len(units))]
        tot = 0.0
        for i in range(0, len(perm), args.batch):
            idx = perm[i:i + args.batch]
            loss = xent(idx).mean() if choose else err(idx).mean()
            if args.guide_weight:
                loss = loss + args.guide_weight * guide_xent(
                    idx if choose else torch.unique(Pt[idx])).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += float(loss.detach()) * len(idx)
        history.append(tot / len(units))
        with torch.no_grad():
            vl = float(xent(torch.tensor(np.flatnonzero(val))).mean() if choose
                       else err(val_rows).mean())
            vq = q(val_all).numpy()
        got = reranked(vq, val_all.numpy(), pos, gain, args.margin)
        pl = reranked(vq, val_all.numpy(), pos, place, args.margin, gain)
        gd = guided(vq, val_all.numpy(), pos, gain)
        print(f"epoch {epoch + 1}: train {history[-1]:.4f}, held out {vl:.4f}; held-out gain "
              f"{got[0]:+.4f} a decision (switches {got[1]:.1%}; best candidate {got[2]:+.4f}"
              + (f"; place value {pl[0]:+.4f}" if place.any() else "") + ")"
              + "".join(f"; margin {m}: {reranked(vq, val_all.numpy(), pos, gain, m)[0]:+.4f}"
                        for m in (0.0, 0.1, 0.2))
              + f"; guide {gd[0]:+.4f} of {gd[1]:+.4f} (its best other {gd[2]:.1%})", flush=True)
        score = gd[0] if args.best_by == "guide" else got[0]
        if score > best:
            best = score
            best_state = {k: v.clone() for k, v in net.state_dict().items()}
    if args.keep_best and best_state is not None:
        net.load_state_dict(best_state)
        print(f"kept the epoch of best held-out {'guide ' if args.best_by == 'guide' else ''}"
              f"gain: {best:+.4f}")
    export(net, args, family)
    return history


def start_from(net, path: str) -> None:
    """Load a re-ranker's weights (``fit --init``: another table size's model, of the same
    inputs and width) into ``net`` before training, the inverse of :func:`export`."""
    import torch
    from ..bots.learned import load_model
    w = load_model(path).w
    pairs = {"ws.weight": w["ws"].T, "wm.weight": w["wm"].T, "wm.bias": w["b1"],
             "l2.weight": w["w2"].T, "l2.bias": w["b2"], "l3.weight": w["w3"].T,
             "l3.bias": w["b3"], "l4.weight": w["w4"][None, :], "l4.bias": w["b4"][None]}
    state = net.state_dict()
    for k, v in pairs.items():
        if tuple(state[k].shape) != v.shape:
            raise SystemExit(f"--init {path}: {k} is {v.shape}, the network's "
                             f"{tuple(state[k].shape)}")
        state[k] = torch.tensor(v.copy())
    net.load_state_dict(state)


def reranked(vq, idx, pos, gain, margin, best_by=None) -> tuple[float, float, float]:
    """On held-out positions (rows ``idx``, their values ``vq``): the mean search gain of the
    move the re-ranker plays (0 for the heuristic's move), the share of decisions where it
    leaves the heuristic's move, and the mean gain of the best candidate (best by
    ``best_by`` when given: the place value of the candidates the target ranks first)."""
    p = pos[idx]
    got, best, switch = [], [], 0
    for k in np.unique(p):
        sel = idx[p == k]
        qs = vq[p == k]
        j = int(np.argmax(qs))
        if qs[j] - qs[0] <= margin:
            j = 0
        else:
            switch += 1
        got.append(gain[sel[j]])
        best.append(gain[sel].max() if best_by is None else gain[sel[np.argmax(best_by[sel])]])
    return float(np.mean(got)), switch / len(got), float(np.mean(best))


def torch_network(state_dim: int, move_dim: int, hidden: int):
    """The learned bot's network (:class:`shangyou.bots.learned.Network`) in PyTorch: the
    position's and each move's first layers summed, two more layers, one value a move."""
    import torch
    return torch.nn.ModuleDict({
        "ws": torch.nn.Linear(state_dim, hidden, bias=False),
        "wm": torch.nn.Linear(move_dim, hidden), "l2": torch.nn.Linear(hidden, hidden // 2),
        "l3": torch.nn.Linear(hidden // 2, hidden // 2), "l4": torch.nn.Linear(hidden // 2, 1)})


def numpy_weights(net) -> dict:
    """:func:`torch_network`'s weights as the numpy bot's arrays (:func:`start_from`'s
    inverse)."""
    t = {k: v.detach().numpy().astype(np.float32) for k, v in net.state_dict().items()}
    return {"ws": t["ws.weight"].T, "wm": t["wm.weight"].T, "b1": t["wm.bias"],
            "w2": t["l2.weight"].T, "b2": t["l2.bias"], "w3": t["l3.weight"].T,
            "b3": t["l3.bias"], "w4": t["l4.weight"][0], "b4": t["l4.bias"][0]}


def export(net, args, family: str) -> None:
    from ..bots.learned import Network
    weights = numpy_weights(net)
    meta = {"features": "env-1", "family": family, "games": args.games.split(","),
            "target": args.target,
            "phases": ["play"], "mode": "rerank", "margin": args.margin,
            "players": [int(n) for n in args.players.split(",")],
            "trained": f"search distillation, {args.data}"}
    if args.place_weight:
        meta["place_weight"] = args.place_weight
    if args.inputs:
        meta["inputs"] = args.inputs
    Network(weights, meta).save(args.out)
    print(f"wrote {args.out}")


def network_args(p, game: str, hidden: int, epochs: int, batch: int, wd: float) -> None:
    """The options every fit of a network on labelled shards takes (``fit``, ``policy``)."""
    p.add_argument("--data", required=True,
                   help="the labels' folder, or several separated by commas")
    p.add_argument("--out", required=True)
    p.add_argument("--game", default=game)
    p.add_argument("--games", default=game, help="presets the model plays")
    p.add_argument("--players", default="4", help="table sizes the model plays")
    p.add_argument("--hidden", type=int, default=hidden)
    p.add_argument("--epochs", type=int, default=epochs)
    p.add_argument("--batch", type=int, default=batch)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--wd", type=float, default=wd)
    p.add_argument("--clip", type=float, default=3.0, help="labels clipped to this (scaled)")
    p.add_argument("--scale", type=float, default=None,
                   help="labels multiplied by this (default: 1, Zheng Fen 1/20, winner 1/5)")
    p.add_argument("--val", type=float, default=0.15, help="share of positions held out")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--keep-best", action="store_true",
                   help="export the epoch of best held-out result, not the last")
    p.add_argument("--upto", type=int, default=None,
                   help="only the shards of seeds up to this one")


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m shangyou.train.distill",
                                 description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("label", help="label positions with the search's values")
    a.add_argument("--out", required=True)
    a.add_argument("--game", default="sheng-ji")
    a.add_argument("--players", type=int, default=4)
    a.add_argument("--seeds", default="0-9", help="shards to make: FIRST-LAST")
    a.add_argument("--hands", type=int, default=4, help="hands a shard")
    a.add_argument("--iterations", type=int, default=None,
                   help="the search's playouts a decision (default: its default budget)")
    a.add_argument("--worlds", type=int, default=0,
                   help="Sheng ji: weigh the heuristic's move and the search's --top best "
                        "others again on this many fresh worlds (0: the search's values)")
    a.add_argument("--top", type=int, default=2, help="candidates weighed again (--worlds)")
    a.add_argument("--play", default="heuristic",
                   help="the bot level that plays the hands (learned, learned:PATH: "
                        "positions from the re-ranker's own play)")
    a.add_argument("--place-bonus", type=float, default=None,
                   help="climbing games: the search's worth for going out first rather than "
                        "last, in points, in place of its own 0.25 (each candidate's gain in "
                        "place is stored beside its gain in worth, whatever this is)")
    f = sub.add_parser("fit", help="train the re-ranker on labelled shards")
    network_args(f, game="sheng-ji", hidden=128, epochs=20, batch=256, wd=1e-5)
    f.add_argument("--margin", type=float, default=0.05)
    f.add_argument("--target", choices=("value", "choice"), default="value",
                   help="value: each candidate's gain over the heuristic's move (squared "
                        "error); choice: the refined worlds' chosen candidate (cross-entropy)")
    f.add_argument("--choice-z", type=float, default=2.0,
                   help="--target choice: a candidate is the choice when its refined gain "
                        "passes this many standard errors (else the heuristic's move)")
    f.add_argument("--inputs", default=None, choices=("sj-search-1", "climb-heur-1"),
                   help="add what the search weighs (sj-search-1: Sheng ji) or the heuristic "
                        "plans (climb-heur-1: the climbing games), computed from the views")
    f.add_argument("--place-weight", type=float, default=0.0,
                   help="climbing games: add this many (scaled) units a hand from last place "
                        "to first to each label: a target that weighs the place more")
    f.add_argument("--guide-weight", type=float, default=0.0,
                   help="add this times a cross-entropy over the candidates other than the "
                        "heuristic's move, towards the labels' best of them (the move a "
                        "guided search weighs: model keys duel_*)")
    f.add_argument("--best-by", choices=("rerank", "guide"), default="rerank",
                   help="--keep-best: the epoch of best held-out gain as a re-ranker, or as "
                        "a guide (the gain of its best other candidate, where positive)")
    f.add_argument("--init", default=None,
                   help="start from this re-ranker's weights (same inputs and --hidden)")
    from .distill_policy import add_parser
    add_parser(sub)
    return ap


def main(argv=None) -> None:
    args = parser().parse_args(argv)
    if args.cmd == "policy":
        from .distill_policy import fit_policy
        fit_policy(args)
        return
    {"label": label, "fit": fit}[args.cmd](args)


if __name__ == "__main__":
    main(sys.argv[1:])
