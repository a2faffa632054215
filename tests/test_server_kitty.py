"""Which cards came from the kitty (``kitty_taken``) is told to the seat burying it, and to
nobody else: not the other seats, not a spectator, not after the bury; in the engine's views
and in what the server sends (docs/protocol.md, *Burying the kitty*)."""

from __future__ import annotations

import random

import pytest

import shangyou
from shangyou.bots.base import make_bot
from shangyou.cards import CARD_TEXT
from test_server import Player, app, client, new_table, send_move  # noqa: F401 (app, client: fixtures)

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("game,theft", [("sheng-ji", False), ("sheng-ji/zhao-pengyou", True)])
def test_engine_views_tell_the_kitty_to_the_seat_burying_only(game, theft):
    for seed in range(3):
        g = shangyou.new_game(game, seed=seed, kitty_theft=theft)
        rng = random.Random(seed)
        seen = 0
        taken = None
        while not g.over and g.hand_number == 1:
            if g.phase == "deal":
                dealt = sorted(CARD_TEXT[c] for c in g.kitty)   # the kitty as it lies
            burying = g.phase == "bury" and any(str(m).startswith("bury ")
                                                for m in g.legal_moves())
            for seat in range(g.n):
                v = g.view(seat)
                if burying and seat == g.to_act:
                    if taken is None or not g.buried:
                        # the first taker gets the dealt kitty; a thief what was buried
                        taken = v["kitty_taken"]
                    assert v["kitty_taken"] == taken
                    assert len(taken) == g.rules.kitty
                    if g.kitty_owner == g.declarer and not theft:
                        assert sorted(taken) == dealt
                    seen += 1
                else:
                    assert "kitty_taken" not in v, (g.phase, seat)
            assert "kitty_taken" not in g.public_view()
            g.apply(rng.choice(g.legal_moves()))
        assert seen >= g.rules.kitty


def test_server_sends_the_kitty_to_the_seat_burying_only(client):
    """Four people and a spectator at a Sheng ji table: while one buries, only that seat's
    states name the kitty's cards."""
    tid = new_table(client, game="sheng-ji", players=4, options={})
    people = []
    for seat in range(4):
        people.append(Player(client, tid, f"P{seat}"))
        people[-1].sit(seat)
    watcher = Player(client, tid, "Watcher")
    people[0].send({"type": "start"})
    for p in people + [watcher]:
        p.state_until(lambda s: s["table"]["status"] == "playing")
    bot = make_bot("greedy", 3)
    by_seat = {p.seat: p for p in people}
    buried = 0
    while True:
        s = people[0].state
        v = s["view"]
        if v["phase"] not in ("deal", "bury"):
            break
        p = by_seat[v["to_act"]]
        ps = p.at_version(s["version"])
        move = bot.choose(ps["view"])
        reply = send_move(p, move, ps["version"])
        assert reply["type"] == "state", (move, reply)
        buried += move.startswith("bury ")
        people[0].at_version(reply["version"])
    assert buried == 8
    for c in people + [watcher]:
        c.at_version(people[0].state["version"])
    told = {c.seat for c in people + [watcher] for msg in c.received
            if msg["type"] == "state" and msg["view"] and "kitty_taken" in msg["view"]}
    declarer = people[0].state["view"]["declarer"]
    assert told == {declarer}
    # and only while burying
    last = by_seat[declarer].state["view"]
    assert last["phase"] != "bury" and "kitty_taken" not in last and len(last["buried"]) == 8
    for c in people + [watcher]:
        for msg in c.received:
            assert "kitty_taken" not in str(msg.get("last_events", "")), msg
