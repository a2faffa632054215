"""A policy distilled from the search: a network that scores every legal move, trained on the
labelled positions of :mod:`shangyou.train.distill`, and played without the heuristic.

The re-ranker (``distill fit``) needs the heuristic's move and the search's candidate list at
every decision, which costs about one and a half heuristic decisions of CPU. This network reads the
position and every legal move (the env's features, :func:`shangyou.env.features.features`) and
is trained to pick, among all of them, the move the search's labels choose: the candidate of
best labelled gain over the heuristic's move (points, plus ``--place-weight`` a hand for an
earlier place, as the re-ranker's fit weighs them) when that gain passes ``--margin``, else the
heuristic's move. Cross-entropy over each position's legal moves; with ``--value-weight``, the
value of each labelled candidate over the heuristic's move is also fitted (squared error, as
the re-ranker's), which keeps a scale on the moves the search weighed.

The exported model is of the plain kind (``mode: policy``): the ``learned`` level scores every
legal move and plays the best, one forward pass a decision
(``python -m shangyou.train.distill policy --data DIR --out model.npz``). Each shard's
features are computed once and kept beside it (``DIR/policy/shard-<seed>.npz``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..env.features import dims, family_of, features
from .distill import shard_paths


def shard_features(path: Path) -> dict:
    """The features of one labelled shard's positions over every legal move: positions,
    moves' rows, each position's first row (``mstart``), and each candidate's row index within
    its position (``cand``, in the shard's candidate order: the heuristic's move first)."""
    cache = path.parent / "policy" / path.name
    if cache.exists() and cache.stat().st_mtime >= path.stat().st_mtime:
        with np.load(cache, allow_pickle=False) as d:
            return {k: d[k] for k in d.files}
    with np.load(path, allow_pickle=False) as d:
        views = list(d["views"])
    S: list[np.ndarray] = []
    R: list[np.ndarray] = []
    mstart: list[int] = [0]
    cand: list[int] = []
    for text in views:
        x = json.loads(str(text))
        view, cands = x["view"], x["cands"]
        state, rows = features(view)
        index = {m: i for i, m in enumerate(view["legal_moves"])}
        missing = [c for c in cands if c not in index]
        if missing:
            raise ValueError(f"{path}: candidates {missing} are not legal moves of the view")
        S.append(state)
        R.append(rows)
        mstart.append(mstart[-1] + len(rows))
        cand.extend(index[c] for c in cands)
    out: dict[str, np.ndarray] = {"states": np.stack(S).astype(np.float16) if S else np.zeros((0, 1), np.float16),
           "rows": np.concatenate(R).astype(np.float16) if R else np.zeros((0, 1), np.float16),
           "mstart": np.array(mstart, np.int64), "cand": np.array(cand, np.int32)}
    cache.parent.mkdir(exist_ok=True)
    tmp = cache.with_suffix(".tmp.npz")
    np.savez(tmp, states=out["states"], rows=out["rows"], mstart=out["mstart"],
             cand=out["cand"])
    tmp.replace(cache)
    return out


def load_policy(folder: Path | list[Path], upto: int | None = None):
    """The shards of ``folder`` (those of seeds up to ``upto`` when given) with their features
    over every legal move: positions (P, s), rows (N, m), each position's first row (P + 1),
    and per candidate: its gain, place gain, worlds, position and row (over the folder)."""
    S, R, M, C, G, PL, W, POS = [], [], [], [], [], [], [], []
    row_base = pos_base = 0
    for path in shard_paths(folder, upto):
        with np.load(path, allow_pickle=False) as d:
            if len(d["gain"]) == 0:
                continue
            cstart = d["start"]
            G.append(d["gain"])
            W.append(d["worlds"].astype(np.float32))
            PL.append(d["place"] if "place" in d else np.zeros(len(d["gain"]), np.float32))
        f = shard_features(path)
        n = len(cstart) - 1
        S.append(f["states"])
        R.append(f["rows"])
        M.append(f["mstart"][:-1] + row_base)
        POS.append(np.repeat(np.arange(n), np.diff(cstart)) + pos_base)
        # each candidate's row, counted over the whole folder
        C.append(f["cand"] + np.repeat(f["mstart"][:-1], np.diff(cstart)) + row_base)
        row_base += len(f["rows"])
        pos_base += n
    mstart = np.r_[np.concatenate(M), row_base]
    return (np.concatenate(S), np.concatenate(R), mstart, np.concatenate(G),
            np.concatenate(PL), np.concatenate(W), np.concatenate(POS), np.concatenate(C))


def targets(adj: np.ndarray, worlds: np.ndarray, pos: np.ndarray, crow: np.ndarray,
            margin: float, min_worlds: int) -> np.ndarray:
    """Each position's target row: its candidate of best ``adj`` (gain over the heuristic's
    move) among those weighed on at least ``min_worlds`` worlds, when that passes ``margin``;
    else the heuristic's move (each position's first candidate)."""
    n_pos = int(pos[-1]) + 1
    first = np.r_[True, pos[1:] != pos[:-1]]
    out = crow[first].copy()
    score = np.where(worlds >= min_worlds, adj, -np.inf)
    best = np.full(n_pos, margin)
    for i in np.flatnonzero(score > margin):
        p = pos[i]
        if score[i] > best[p]:
            best[p], out[p] = score[i], crow[i]
    return out


def teacher_targets(path: str, states, rows, pos, crow) -> np.ndarray:
    """Each position's target row: the choice of a re-ranker (``distill fit``'s model) among
    the position's candidates, at its own margin: a target that is a function of the
    position, where the labels' best candidate is noisy."""
    from ..bots.learned import load_model, rerank_rows
    net = load_model(path)
    if net.meta.get("mode") != "rerank" or net.meta.get("inputs"):
        raise SystemExit(f"--teacher {path}: not a re-ranker of the env's features")
    margin = float(net.meta.get("margin", 0.0))
    starts = np.flatnonzero(np.r_[True, pos[1:] != pos[:-1], True])
    out = np.empty(len(starts) - 1, np.int64)
    for p, (a, b) in enumerate(zip(starts[:-1], starts[1:])):
        q = net.q(states[p].astype(np.float32), rerank_rows(rows[crow[a:b]].astype(np.float32)))
        j = int(q.argmax())
        out[p] = crow[a + j] if q[j] - q[0] > margin else crow[a]
    return out


def fit_policy(args) -> list[float]:
    """Train the policy on the shards of ``args.data``, write ``args.out``; returns the
    training loss of each epoch."""
    import torch
    from .distill import label_scale, torch_network
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    shards = [p for d in str(args.data).split(",") for p in shard_paths(Path(d), args.upto)]
    states, rows, mstart, gain, place, worlds, pos, crow = load_policy(shards)
    scale = label_scale(args.game) if args.scale is None else args.scale
    adj = np.clip(gain * scale + args.place_weight * place, -args.clip, args.clip)
    target = (teacher_targets(args.teacher, states, rows, pos, crow) if args.teacher
              else targets(adj, worlds, pos, crow, args.margin, args.min_worlds))
    n_pos, n_rows = len(states), len(rows)
    first = np.r_[True, pos[1:] != pos[:-1]]
    heur = crow[first]                                  # each position's heuristic row
    rng = np.random.default_rng(args.seed)
    val = np.zeros(n_pos, bool)
    val[rng.permutation(n_pos)[:max(1, int(n_pos * args.val))]] = True
    sd, md = dims(family_of(args.game))
    net = torch_network(sd, md, args.hidden)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr, weight_decay=args.wd)
    S, R = torch.tensor(states), torch.tensor(rows)
    sizes = np.diff(mstart)
    # each candidate that is not the heuristic's move: its row, its heuristic's row, its label
    ch = np.flatnonzero(~first)
    c_pos, c_row, c_base = pos[ch], crow[ch], heur[pos[ch]]
    c_gain = torch.tensor(adj[ch], dtype=torch.float32)
    c_w = torch.tensor(np.minimum(worlds[ch], 32.0) / 32.0, dtype=torch.float32)
    # the candidates of each position, for the value loss of a batch
    c_start = np.searchsorted(c_pos, np.arange(n_pos + 1))

    def batch_q(ps: np.ndarray):
        """The value of every legal move of positions ``ps``: values, each row's place in the
        batch, and each position's first row within the batch."""
        n = sizes[ps]
        local = np.repeat(np.arange(len(ps)), n)
        offs = np.r_[0, np.cumsum(n)]
        idx = np.repeat(mstart[ps] - offs[:-1], n) + np.arange(offs[-1])
        h = torch.relu(net["wm"](R[idx].float()) + net["ws"](S[ps].float())[local])
        h = torch.relu(net["l2"](h))
        h = torch.relu(net["l3"](h))
        return net["l4"](h).squeeze(-1), torch.tensor(local), offs, idx

    def losses(ps: np.ndarray):
        q, local, offs, _ = batch_q(ps)
        k = len(ps)
        top = torch.full((k,), -1e9).scatter_reduce(0, local, q.detach(), "amax")
        lse = torch.zeros(k).index_add(0, local, torch.exp(q - top[local])).log() + top
        at = torch.tensor(offs[:-1] + target[ps] - mstart[ps])
        xent = lse - q[at]
        # the value of each labelled candidate over the heuristic's move
        cs = np.concatenate([np.arange(c_start[p], c_start[p + 1]) for p in ps])
        if len(cs) and args.value_weight:
            where = np.searchsorted(ps, c_pos[cs])     # batches and held-out ps are sorted
            qc = q[torch.tensor(offs[where] + c_row[cs] - mstart[c_pos[cs]])]
            qb = q[torch.tensor(offs[where] + c_base[cs] - mstart[c_pos[cs]])]
            value = (c_w[cs] * (qc - qb - c_gain[cs]) ** 2).mean()
        else:
            value = torch.zeros(())
        return xent.mean(), value, q, offs

    def held_out(ps: np.ndarray) -> dict:
        """Agreement with the target and with the heuristic; the labelled gain of the moves
        played where they are candidates; the share of moves off the candidate list."""
        agree = heur_agree = off = 0
        got = []
        with torch.no_grad():
            for i in range(0, len(ps), 2048):
                part = ps[i:i + 2048]
                _, _, q, offs = losses(part)
                q = q.numpy()
                for j, p in enumerate(part):
                    pick = mstart[p] + int(np.argmax(q[offs[j]:offs[j + 1]]))
                    agree += pick == target[p]
                    heur_agree += pick == heur[p]
                    k = np.flatnonzero(crow[cand_start[p]:cand_start[p + 1]] == pick)
                    if len(k):
                        got.append(adj[cand_start[p] + k[0]])
                    else:
                        off += 1
        n = len(ps)
        return {"target": agree / n, "heuristic": heur_agree / n, "off": off / n,
                "gain": float(np.mean(got)) if got else 0.0}

    cand_start = np.searchsorted(pos, np.arange(n_pos + 1))
    train_pos = np.flatnonzero(~val)
    val_pos = np.flatnonzero(val)
    print(f"{n_pos} positions, {n_rows} legal moves ({len(val_pos)} positions held out); "
          f"the target leaves the heuristic's move in {np.mean(target != heur):.1%}", flush=True)
    history: list[float] = []
    best, best_state = -np.inf, None
    for epoch in range(args.epochs):
        perm = rng.permutation(train_pos)
        tot = 0.0
        for i in range(0, len(perm), args.batch):
            ps = np.sort(perm[i:i + args.batch])
            xent, value, _, _ = losses(ps)
            loss = xent + args.value_weight * value
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += float(loss.detach()) * len(ps)
        history.append(tot / len(perm))
        h = held_out(val_pos)
        print(f"epoch {epoch + 1}: train {history[-1]:.4f}; held out: target {h['target']:.1%}, "
              f"heuristic's move {h['heuristic']:.1%}, off the candidates {h['off']:.1%}, "
              f"gain where labelled {h['gain']:+.4f}", flush=True)
        if h["target"] > best:
            best = h["target"]
            best_state = {k: v.clone() for k, v in net.state_dict().items()}
    if args.keep_best and best_state is not None:
        net.load_state_dict(best_state)
        print(f"kept the epoch of best held-out agreement with the target: {best:.1%}")
    export_policy(net, args)
    return history


def export_policy(net, args) -> None:
    from ..bots.learned import Network
    from .distill import numpy_weights
    weights = numpy_weights(net)
    meta = {"features": "env-1", "family": family_of(args.game),
            "games": args.games.split(","), "phases": ["play"], "mode": "policy",
            "players": [int(n) for n in args.players.split(",")],
            "margin": args.margin, "place_weight": args.place_weight,
            "trained": f"search distillation (policy over every legal move), {args.data}"}
    Network(weights, meta).save(args.out)
    print(f"wrote {args.out}")


def add_parser(sub) -> None:
    from .distill import network_args
    p = sub.add_parser("policy", help="train a policy over every legal move on labelled shards")
    network_args(p, game="zheng-shangyou/pagat", hidden=256, epochs=10, batch=256, wd=1e-5)
    p.add_argument("--margin", type=float, default=0.1,
                   help="a candidate is the target when its gain passes this")
    p.add_argument("--min-worlds", type=int, default=8,
                   help="a candidate weighed on fewer worlds is never the target")
    p.add_argument("--place-weight", type=float, default=0.25)
    p.add_argument("--value-weight", type=float, default=0.5,
                   help="weight of the candidates' value loss beside the cross-entropy")
    p.add_argument("--teacher", default=None,
                   help="a re-ranker whose choices are the targets (instead of the labels')")
