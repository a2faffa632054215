"""The learned bot's inputs are the env's observation: the position vector holds the env
encoder's head (padded per seat, scaled), the move rows start with the env's candidate rows, and
the Sheng ji additions read trump and points right."""

from __future__ import annotations

import numpy as np
import pytest

from shangyou.bots import make_bot
from shangyou.env import features as F
from shangyou.env.encoding import CAND_WIDTH, TextPager
from shangyou.train.league import deal

CASES = [("zheng-shangyou/pagat", 5), ("zheng-shangyou/winner", 6), ("zheng-shangyou/owen", 2),
         ("zheng-fen", 4), ("sheng-ji", 4), ("sheng-ji/zhao-pengyou", 7)]


@pytest.mark.parametrize("game, n", CASES)
def test_features_are_the_envs_observation_and_candidate_rows(game, n):
    family = F.family_of(game)
    m = F._map(family, n)
    g = deal(game, n, 21)
    bots = [make_bot("greedy", seed=s) for s in range(n)]
    checked = 0
    while not g.over:
        view = F.whole_plays(g.view(g.to_act))
        moves = view["legal_moves"]
        state, rows = F.features(view)
        assert state.shape == (F.state_dim(family),) and rows.shape == (len(moves),
                                                                           F.move_dim(family))
        # the position: every byte of the env's observation head, in its padded place
        enc = type(m.enc)(n, len(moves) + 1)
        pager = TextPager(list(moves), len(moves) + 1)
        obs = enc.encode(view, pager)
        head = obs[:enc.slices["page"].start]
        assert np.allclose(state[m.dst], head * m.scale)
        # the moves: the env's candidate rows (its sorted order) for the same texts
        base = enc.slices["candidates"].start
        env_rows = obs[base:base + len(pager.texts) * CAND_WIDTH].reshape(-1, CAND_WIDTH)
        ours = F.candidate_rows(pager.texts)
        assert np.array_equal(ours, env_rows)
        assert np.array_equal(rows[:, :CAND_WIDTH], F.candidate_rows(moves).astype(np.float32))
        checked += 1
        g.apply(bots[g.to_act].choose(view))
        if checked >= 40:
            break
    assert checked > 5


def test_sheng_ji_additions_read_trump_points_and_the_suit_led():
    view = {"level": "2", "trump": "2H", "hand": ["5H", "KS", "2C", "BJ"], "seat": 1,
            "teams": [[0, 2], [1, 3]], "trick": [[0, "10S"]]}
    cards = np.zeros((3, F.N_CARDS), np.float32)
    for i, text in enumerate(("5H", "KS", "2C")):
        cards[i, F.CODE[text]] = 1.0
    hand = np.zeros(F.N_CARDS, np.float32)
    for t in view["hand"]:
        hand[F.CODE[t]] += 1
    st, mv = F._sheng_ji_extras(view, cards, hand[None, :] - cards)
    assert st[3] == 1.0                           # spades led
    assert st[10] == pytest.approx(10 / 30)       # the 10 on the table
    assert st[11] == 0.0                          # the other side wins the trick so far
    assert list(mv[:, 1] * 20) == [5.0, 10.0, 0.0]   # points of 5H, KS, 2C
    assert list(mv[:, 2] * 4) == [1.0, 0.0, 1.0]     # 5H (trump suit) and 2C (level) are trump
    assert list(mv[:, 4]) == [0.0, 1.0, 0.0]         # only KS follows spades
    assert list(mv[:, 7]) == [1.0, 1.0, 1.0]         # each beats the 10S (trump, or a higher spade)
