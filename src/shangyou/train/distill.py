"""Distillation of the search level: positions labelled with the search's value of each of its
candidates, and a network trained to re-rank the heuristic's candidates by them.

Expert iteration's first step (Anthony et al., 2017), cut to what one CPU affords. Hands are
played by the ``heuristic`` level; at each play decision the search level weighs its candidates
on sampled worlds (Sheng ji: :func:`shangyou.bots.sheng_ji_search.candidates`, the heuristic's
move first, then one representative per kind of play; the climbing games but pagat (Zheng Fen,
Owen, "winner"): :class:`shangyou.bots.climbing_search.Search`'s, the heuristic's move first;
``--game`` names the preset, ``zheng-shangyou/owen``). Each
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
"""

from __future__ import annotations

import argparse
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


def label_hand(game: str, players: int, seed: int, iterations: int | None) -> list[tuple]:
    """Play one hand with heuristic bots; label each play decision of every seat (the
    search's candidates: the heuristic's move first, in Sheng ji and in the climbing games but
    pagat, where the search puts its playout policy's move first)."""
    g = deal(game, players, seed)
    rng = random.Random(seed ^ 0x5EA5C4)
    bots = [make_bot("heuristic", seed=rng.getrandbits(32)) for _ in range(players)]
    out = []
    while not g.over:
        seat = g.to_act
        view = g.view(seat)
        if decides(view):
            info: dict = {}
            search_move(view, random.Random(rng.getrandbits(32)), iterations=iterations,
                        info=info)
            cands = list(info.get("values") or ())      # the heuristic's move first
            if len(cands) >= 2:
                gain, count = gains(info["values"], cands)
                state, rows = features(whole_plays(view), cands)
                out.append((state, rows, np.array(gain, np.float32),
                            np.array(count, np.int16)))
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
    each position's first row."""
    states = np.stack([s for s, _, _, _ in samples]) if samples else np.zeros((0, 1), np.float32)
    rows = np.concatenate([r for _, r, _, _ in samples]) if samples else np.zeros((0, 1))
    gain = np.concatenate([x for _, _, x, _ in samples]) if samples else np.zeros(0)
    count = np.concatenate([c for _, _, _, c in samples]) if samples else np.zeros(0)
    start = np.cumsum([0] + [len(r) for _, r, _, _ in samples]).astype(np.int32)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, states=states.astype(np.float16), rows=rows.astype(np.float16),
                        gain=gain.astype(np.float32), worlds=count.astype(np.int16),
                        start=start, meta=np.array(repr(meta)))
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
                                  args.iterations)
        write_shard(path, samples, {"game": args.game, "players": args.players, "seed": s,
                                    "hands": args.hands, "iterations": args.iterations})
        print(f"shard {s}: {len(samples)} positions, {time.process_time() - t0:.0f} s CPU",
              flush=True)


def load(folder: Path):
    """Every shard of a folder: positions, rows, gains, worlds, and each row's position."""
    S, R, G, W, P = [], [], [], [], []
    base = 0
    for path in sorted(Path(folder).glob("shard-*.npz"),
                       key=lambda p: int(p.stem.split("-")[1])):
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
    return (np.concatenate(S), np.concatenate(R), np.concatenate(G), np.concatenate(W),
            np.concatenate(P))


def fit(args) -> list[float]:
    """Train the re-ranker on the shards of ``args.data``, write ``args.out``; returns the
    training loss of each epoch."""
    import torch
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    states, rows, gain, worlds, pos = load(Path(args.data))
    n_pos = len(states)
    rng = np.random.default_rng(args.seed)
    order = rng.permutation(n_pos)
    n_val = max(1, int(n_pos * args.val))
    val = np.zeros(n_pos, bool)
    val[order[:n_val]] = True
    family = family_of(args.game)
    sd, md = dims(family)
    md *= 2                     # each row and its difference from the heuristic's move
    hidden = args.hidden
    net = torch.nn.ModuleDict({
        "ws": torch.nn.Linear(sd, hidden, bias=False), "wm": torch.nn.Linear(md, hidden),
        "l2": torch.nn.Linear(hidden, hidden // 2), "l3": torch.nn.Linear(hidden // 2, hidden // 2),
        "l4": torch.nn.Linear(hidden // 2, 1)})
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

    challengers = torch.tensor(~first)
    train_rows = torch.nonzero(~is_val & challengers).squeeze(-1)
    val_rows = torch.nonzero(is_val & challengers).squeeze(-1)
    val_all = torch.nonzero(is_val).squeeze(-1)
    print(f"{n_pos} positions, {len(rows)} candidates ({n_val} positions held out)", flush=True)
    history: list[float] = []
    best, best_state = -np.inf, None
    for epoch in range(args.epochs):
        perm = train_rows[torch.randperm(len(train_rows))]
        tot = 0.0
        for i in range(0, len(perm), args.batch):
            idx = perm[i:i + args.batch]
            loss = err(idx).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += float(loss.detach()) * len(idx)
        history.append(tot / len(train_rows))
        with torch.no_grad():
            vl = float(err(val_rows).mean())
            vq = q(val_all).numpy()
        got = reranked(vq, val_all.numpy(), pos, gain, args.margin)
        print(f"epoch {epoch + 1}: train {history[-1]:.4f}, held out {vl:.4f}; held-out gain "
              f"{got[0]:+.4f} a decision (switches {got[1]:.1%}; best candidate {got[2]:+.4f})"
              + "".join(f"; margin {m}: {reranked(vq, val_all.numpy(), pos, gain, m)[0]:+.4f}"
                        for m in (0.0, 0.1, 0.2)), flush=True)
        if got[0] > best:
            best = got[0]
            best_state = {k: v.clone() for k, v in net.state_dict().items()}
    if args.keep_best and best_state is not None:
        net.load_state_dict(best_state)
        print(f"kept the epoch of best held-out gain: {best:+.4f}")
    export(net, args, family)
    return history


def reranked(vq, idx, pos, gain, margin) -> tuple[float, float, float]:
    """On held-out positions (rows ``idx``, their values ``vq``): the mean search gain of the
    move the re-ranker plays (0 for the heuristic's move), the share of decisions where it
    leaves the heuristic's move, and the mean gain of the best candidate."""
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
        best.append(gain[sel].max())
    return float(np.mean(got)), switch / len(got), float(np.mean(best))


def export(net, args, family: str) -> None:
    from ..bots.learned import Network
    t = {k: v.detach().numpy().astype(np.float32) for k, v in net.state_dict().items()}
    weights = {"ws": t["ws.weight"].T, "wm": t["wm.weight"].T, "b1": t["wm.bias"],
               "w2": t["l2.weight"].T, "b2": t["l2.bias"], "w3": t["l3.weight"].T,
               "b3": t["l3.bias"], "w4": t["l4.weight"][0], "b4": t["l4.bias"][0]}
    meta = {"features": "env-1", "family": family, "games": args.games.split(","),
            "phases": ["play"], "mode": "rerank", "margin": args.margin,
            "players": [int(n) for n in args.players.split(",")],
            "trained": f"search distillation, {args.data}"}
    Network(weights, meta).save(args.out)
    print(f"wrote {args.out}")


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
    f = sub.add_parser("fit", help="train the re-ranker on labelled shards")
    f.add_argument("--data", required=True)
    f.add_argument("--out", required=True)
    f.add_argument("--game", default="sheng-ji")
    f.add_argument("--games", default="sheng-ji", help="presets the model plays")
    f.add_argument("--players", default="4", help="table sizes the model plays")
    f.add_argument("--hidden", type=int, default=128)
    f.add_argument("--epochs", type=int, default=20)
    f.add_argument("--batch", type=int, default=256)
    f.add_argument("--lr", type=float, default=1e-3)
    f.add_argument("--wd", type=float, default=1e-5)
    f.add_argument("--clip", type=float, default=3.0, help="labels clipped to this (scaled)")
    f.add_argument("--scale", type=float, default=None,
                   help="labels multiplied by this (default: 1, Zheng Fen 1/20, winner 1/5)")
    f.add_argument("--margin", type=float, default=0.05)
    f.add_argument("--val", type=float, default=0.15)
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--keep-best", action="store_true",
                   help="export the epoch of best held-out gain, not the last")
    return ap


def main(argv=None) -> None:
    args = parser().parse_args(argv)
    {"label": label, "fit": fit}[args.cmd](args)


if __name__ == "__main__":
    main(sys.argv[1:])
