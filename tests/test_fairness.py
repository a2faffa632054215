"""Deals from a secret (``shangyou.engine.deal``) and the fairness check (``shangyou.fairness``).

The stream is pinned by known answers (the HMAC blocks and the commitment were also computed
with ``openssl dgst -sha256 -mac HMAC`` and ``sha256sum``), checked against a reference
written from the documented construction, and shown exact (no modulo bias). Every preset and
player count plays a match from a secret that replays and verifies; int seeds deal exactly as
before; a clone deals the next hand as its original; ``verify`` and ``shangyou verify`` accept
a genuine log and say precisely what is wrong with an altered one.
"""

from __future__ import annotations

import copy
import doctest
import hashlib
import hmac
import json
import pathlib
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import shangyou
from shangyou import fairness
from shangyou.bots import make_bot, play_out
from shangyou.cards import CARD_TEXT
from shangyou.cli.main import app
from shangyou.engine import deal as deal_mod
from shangyou.engine.base import _copy_rng
from shangyou.engine.deal import DealRandom, check_seed, commitment, is_secret, new_secret
from shangyou.fairness import deal_record, published_log, verify

KEY = bytes(range(32)).hex()      # 000102...1f
SECRET = hashlib.sha256(b"shangyou test secret").hexdigest()


def secret_of(i: int) -> str:
    return hashlib.sha256(f"secret {i}".encode()).hexdigest()


# ------------------------------------------------------------------------ the stream
def test_stream_known_answers():
    r = DealRandom(KEY)
    assert r._bytes(64).hex() == (
        "7580c4766cb571109d5cfc975c52dcf542031eb7404cfee729b02418c5701bc4"
        "113e914df9b851f1d5e3b31fcb19568daf340c869f93019c909b50dd8a456f35")
    assert commitment(KEY) == "371683cda2e748a3da8d0cd662338c88492ced889308f98db51499dbc3aad218"
    r = DealRandom(KEY)
    assert [r.randbelow(6) for _ in range(12)] == [3, 4, 3, 3, 5, 3, 0, 4, 2, 4, 2, 2]
    r = DealRandom(KEY)
    cards = list(range(10))
    r.shuffle(cards)
    assert cards == [1, 4, 2, 0, 5, 9, 3, 6, 8, 7]
    r = DealRandom(KEY)
    assert (r.getrandbits(12), r.random(), r.randrange(10, 20, 3), r.choice("abcdefg")) == \
        (1880, 0.7674320166561891, 13, "e")


def _reference_stream(secret: str):
    """The documented construction, written independently: the stream's bytes, one by one."""
    key, i = bytes.fromhex(secret), 0
    while True:
        yield from hmac.new(key, b"shangyou/deal/v1" + i.to_bytes(8, "big"),
                            hashlib.sha256).digest()
        i += 1


def _reference_randbelow(stream, n: int) -> int:
    k = (n - 1).bit_length()
    m = (k + 7) // 8
    while True:
        value = 0
        for _ in range(m):
            value = value * 256 + next(stream)
        value >>= 8 * m - k
        if value < n:
            return value


@settings(max_examples=60, deadline=None)
@given(st.binary(min_size=32, max_size=32),
       st.lists(st.integers(min_value=1, max_value=2**70), min_size=1, max_size=40))
def test_randbelow_follows_the_documented_construction(key, bounds):
    secret = key.hex()
    r, ref = DealRandom(secret), _reference_stream(secret)
    assert [r.randbelow(n) for n in bounds] == [_reference_randbelow(ref, n) for n in bounds]


@settings(max_examples=40, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.integers(min_value=0, max_value=120))
def test_shuffle_is_the_documented_fisher_yates(key, size):
    secret = key.hex()
    ref = _reference_stream(secret)
    expected = list(range(size))
    for i in range(size - 1, 0, -1):
        j = _reference_randbelow(ref, i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    got = list(range(size))
    DealRandom(secret).shuffle(got)
    assert got == expected
    again = list(range(size))
    DealRandom(secret).shuffle(again)
    assert again == got, "the same secret deals the same"


class _FixedStream(DealRandom):
    """A DealRandom whose stream is given bytes (to look at randbelow's arithmetic)."""

    __slots__ = ("_given",)

    def __init__(self, data: bytes):
        super().__init__(KEY)
        self._given = iter(data)

    def _bytes(self, m: int) -> bytes:
        return bytes(next(self._given) for _ in range(m))


def test_randbelow_is_exact_rejection():
    # every byte value maps to one value below n or is rejected: each value below n is hit by
    # the same number of byte values, so none is likelier than another (no modulo bias)
    for n in range(1, 257):
        hits = Counter()
        for b in range(256):
            r = _FixedStream(bytes([b]) + bytes(8))
            value = r.randbelow(n)
            if n == 1:
                assert value == 0
                break
            k = (n - 1).bit_length()
            if b >> (8 - k) < n:
                assert value == b >> (8 - k)
                hits[value] += 1
        if n > 1:
            assert set(hits) == set(range(n)) and len(set(hits.values())) == 1, n
    # a rejected draw is skipped, not folded: 6 and 7 are refused for n = 6, then 1 is taken
    assert _FixedStream(bytes([0xC0, 0xE0, 0x20])).randbelow(6) == 1


def test_shuffles_of_three_hit_every_order_evenly():
    # 60,000 secrets: each of the 6 orders is expected 10,000 times. By Hoeffding's bound a
    # count strays more than t = sqrt(11.6 N) = 834 from its mean with probability at most
    # 2 exp(-2 t^2 / N) < 1.7e-10, so all six together fail with probability < 1e-9.
    n = 60_000
    counts = Counter()
    for i in range(n):
        x = [0, 1, 2]
        DealRandom(secret_of(i)).shuffle(x)
        counts[tuple(x)] += 1
    assert len(counts) == 6
    assert all(abs(c - n / 6) < 834 for c in counts.values()), counts


def test_random_and_randrange_stay_in_range():
    r = DealRandom(SECRET)
    for _ in range(500):
        assert 0.0 <= r.random() < 1.0
        assert r.randrange(5, 50, 5) in range(5, 50, 5)
        assert r.randrange(-3, 4) in range(-3, 4)
    for bad in ((0,), (3, 3), (1, 5, 0), (5, 1)):
        with pytest.raises(ValueError):
            r.randrange(*bad)
    with pytest.raises(IndexError):
        r.choice([])


def test_state_copies_continue_the_stream():
    r = DealRandom(SECRET)
    r.getrandbits(13)
    copies = [r.copy(), _copy_rng(r), copy.deepcopy(r)]
    expected = [r.randbelow(1000) for _ in range(50)]
    for c in copies:
        assert type(c) is DealRandom and [c.randbelow(1000) for _ in range(50)] == expected
    a, b = r.copy(), r.copy()
    a.randbelow(7)
    assert b.getstate() == r.getstate() != a.getstate()
    assert SECRET not in repr(r)


def test_secrets_and_commitments():
    s = new_secret()
    assert is_secret(s) and s != new_secret()
    assert commitment(s) == hashlib.sha256(f"shangyou/commitment/v1:{s}".encode()).hexdigest()
    for bad in (s.upper(), s[:-1], s + "0", "x" * 64, 7, None, b"\0" * 32):
        assert not is_secret(bad)
        with pytest.raises(ValueError):
            commitment(bad)


def test_the_modules_examples_run():
    for module in (deal_mod, fairness):
        assert doctest.testmod(module).failed == 0


# ------------------------------------------------------------------------------ seeds
@pytest.mark.parametrize("bad", ["7", "abc", SECRET.upper(), SECRET[:-1], SECRET + "0",
                                 1.5, 2.0, True, False, b"\x00" * 32, [1]])
def test_a_seed_is_an_int_or_a_secret(bad):
    with pytest.raises(ValueError, match="seed"):
        shangyou.new_match("zheng-shangyou/pagat", players=4, seed=bad)
    with pytest.raises(ValueError):
        check_seed(bad)


def test_seed_kinds_and_their_sources():
    g = shangyou.new_match("zheng-fen", players=4, seed=SECRET)
    assert g.seed == SECRET and json.loads(json.dumps(g.log))["seed"] == SECRET
    assert isinstance(g._rng, DealRandom)
    g = shangyou.new_game("zheng-fen", players=4, seed=12)
    assert g.seed == 12 and type(g._rng) is random.Random
    assert isinstance(shangyou.new_game("zheng-fen", players=4).seed, int)


def _fingerprint(g) -> str:
    parts = {"hands": [sorted(h) for h in g.hands], "undealt": sorted(getattr(g, "undealt", [])),
             "stock": list(getattr(g, "stock", [])), "kitty": sorted(getattr(g, "kitty", []))}
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]


# what seed 12345 dealt before secrets existed (the same function on the earlier code)
INT_SEED_DEALS = {
    "zheng-shangyou/pagat": "c902698f66d47d9a",
    "zheng-shangyou/pagat-teams": "1621b71a3f5a48a1",
    "zheng-shangyou/winner": "58ba2157441bdcca",
    "zheng-shangyou/owen": "288ecb12e6254e41",
    "zheng-fen": "1621b71a3f5a48a1",
    "sheng-ji": "1db9b863b2d21669",
    "sheng-ji/single-deck": "82809200c8792ca4",
    "sheng-ji/zhao-pengyou": "eb525c62e4dc2c8c",
}


@pytest.mark.parametrize("name", sorted(INT_SEED_DEALS))
def test_int_seeds_deal_as_before(name):
    assert set(INT_SEED_DEALS) == set(shangyou.preset_names())
    n = shangyou.preset_info(name)["defaults"]["players"]
    g = shangyou.new_match(name, players=n, seed=12345)
    assert _fingerprint(g) == INT_SEED_DEALS[name]
    assert g.log["seed"] == 12345


# ------------------------------------------------------------- every preset from a secret
def _configs():
    out = []
    for name in shangyou.preset_names():
        for n in sorted(shangyou.preset_info(name)["players"]):
            for opts in ({}, {"decks": 2}):   # some table sizes need a second pack
                try:
                    shangyou.new_game(name, players=n, seed=0, **opts)
                except ValueError:
                    continue
                out.append((name, n, opts))
                break
    return out


CONFIGS = _configs()


def _check_deal_is_the_hands(g) -> None:
    """The last recorded deal is what the seats hold now (at the start of play or bury)."""
    d = g.deals[-1]
    assert d.hand == g.hand_number
    if hasattr(g, "undealt"):
        assert [list(h) for h in d.hands] == [sorted(h) for h in g.hands]
        assert list(d.undealt) == sorted(g.undealt)
        return
    for s in range(g.n):
        held = sorted(g.hands[s])
        assert held == sorted(d.hands[s] + (d.undealt if s == g.kitty_owner else ()))


@pytest.mark.parametrize("name,n,opts", CONFIGS,
                         ids=[f"{c[0]}-{c[1]}p{'-2decks' if c[2] else ''}" for c in CONFIGS])
def test_every_preset_plays_a_secret_match_that_replays_and_verifies(name, n, opts):
    assert {c[0] for c in CONFIGS} == set(shangyou.preset_names())
    secret = secret_of(n * 1000 + len(name))
    g = shangyou.new_match(name, players=n, seed=secret, **opts)
    rng = random.Random(name)
    checked_hands = set()
    while not g.over:
        if g.hand_number not in checked_hands and _at_deal_end(g):
            _check_deal_is_the_hands(g)
            checked_hands.add(g.hand_number)
        g.apply(rng.choice(g.legal_moves()))
    assert len(checked_hands) == g.hand_number
    log = json.loads(json.dumps(published_log(g)))
    again = shangyou.replay(log)
    assert again == g and again.deals == g.deals
    assert log["deals"] == deal_record(g) and len(log["deals"]) == len(g.deals) >= 1
    assert log["commitment"] == commitment(secret) and log["seed"] == secret
    report = verify(log)
    assert report.ok, report.problems
    assert len(report.hands) == len(g.deals) and all(h.ok for h in report.hands)


def _at_deal_end(g) -> bool:
    """True at the first moment of a hand when every card dealt is in its seat's hand."""
    if hasattr(g, "undealt"):            # climbing: the whole deal is made at once
        return True
    return g.phase == "bury" and len(g.buried) == 0 and g.kitty_owner is not None and \
        sum(map(len, g.hands)) == sum(map(len, g.deals[-1].hands)) + len(g.deals[-1].undealt)


def test_deal_records_are_sorted_card_texts():
    g = shangyou.new_match("sheng-ji", players=4, seed=SECRET)
    rec = deal_record(g)
    assert rec[0]["hand"] == 1 and len(rec[0]["hands"]) == 4
    assert all(len(h) == 25 for h in rec[0]["hands"]) and len(rec[0]["undealt"]) == 8
    codes = {t: c for c, t in enumerate(CARD_TEXT) if t}
    for cards in rec[0]["hands"] + [rec[0]["undealt"]]:
        assert [codes[t] for t in cards] == sorted(codes[t] for t in cards)
    assert json.loads(json.dumps(rec)) == rec


def _pass_first(g, rng, until_event: str) -> None:
    """Pass whenever passing is legal until ``until_event`` happened, then play at random."""
    while not g.over and len(g.deals) < 4:
        moves = g.legal_moves()
        passes = [m for m in moves if str(m) == "pass"]
        done = any(e.get("event") == until_event for e in g.events)
        g.apply(passes[0] if passes and not done else rng.choice(moves))


@pytest.mark.parametrize("no_bid,event", [("kitty-card", "no bid"), ("no-trump", "no bid"),
                                          ("redeal", "redeal")])
def test_sheng_ji_without_a_bid_replays_from_a_secret(no_bid, event):
    g = shangyou.new_match("sheng-ji", players=4, seed=SECRET, no_bid=no_bid)
    _pass_first(g, random.Random(1), event)
    assert any(e.get("event") == event for e in g.events)
    if no_bid == "redeal":
        assert [d.hand for d in g.deals[:2]] == [1, 1], "a redeal is a second shuffle of hand 1"
    log = published_log(g)
    log["commitment"] = commitment(SECRET)
    assert shangyou.replay(log) == g
    assert verify(log).ok


# -------------------------------------------------------------------------------- clone
@pytest.mark.parametrize("name", ["zheng-shangyou/pagat", "sheng-ji/zhao-pengyou"])
def test_a_clone_deals_the_next_hand_as_its_original(name):
    g = shangyou.new_match(name, seed=SECRET)
    rng = random.Random(3)
    while g.hand_number == 1:
        before = g.clone()
        deep = copy.deepcopy(g)
        move = rng.choice(g.legal_moves())
        g.apply(move)
    assert g.hand_number == 2
    assert before.hand_number == 1 and before.deals == g.deals[:1]
    before.apply(str(move))
    deep.apply(str(move))
    assert before.deals == deep.deals == g.deals and len(g.deals) >= 2
    assert before == g == deep
    fresh = shangyou.replay(g.log)
    assert fresh.deals == g.deals


def test_clones_share_the_deal_record_until_a_deal():
    g = shangyou.new_match("zheng-shangyou/owen", players=3, seed=SECRET)
    c = g.clone()
    assert c.deals is g.deals and isinstance(g.deals, tuple)


# ------------------------------------------------------------------------------- verify
@pytest.fixture(scope="module")
def genuine() -> dict:
    g = shangyou.new_match("zheng-shangyou/pagat-teams", players=4, seed=SECRET)
    play_out(g, [make_bot("random", seed=s) for s in range(4)])
    return json.loads(json.dumps(published_log(g)))


def test_verify_accepts_a_genuine_log(genuine):
    report = verify(genuine)
    assert report.ok and report.reason is None and report.over
    assert report.moves == len(genuine["moves"]) and report.commitment == commitment(SECRET)
    assert verify(genuine, commitment(SECRET)).ok
    assert verify(genuine, commitment(SECRET).upper()).ok
    assert verify(json.dumps(genuine)).ok
    lines = report.lines()
    assert lines[-1].startswith("verified")
    assert sum(line.startswith("hand ") for line in lines) == len(genuine["deals"])


def test_verify_without_published_deals_still_replays(genuine):
    log = {k: v for k, v in genuine.items() if k != "deals"}
    report = verify(log)
    assert report.ok and all(h.seats == (None,) * 4 for h in report.hands)
    assert "no published record" in report.hands[0].line()


def test_verify_rejects_a_wrong_commitment(genuine):
    other = commitment(secret_of(1))
    report = verify(genuine, other)
    assert not report.ok
    assert report.reason == f"the secret's commitment is {commitment(SECRET)}, not the " \
                            f"published {other}"
    assert any("log's own commitment" in p for p in report.problems)
    assert "not 64 hex" in verify(genuine, "abc").reason
    assert "no commitment" in verify({**genuine, "commitment": None}).reason


def test_verify_rejects_an_altered_secret(genuine):
    secret = genuine["seed"]
    altered = dict(genuine, seed=secret[:-1] + ("0" if secret[-1] != "0" else "1"))
    report = verify(altered)
    assert not report.ok and report.reason.startswith("the secret's commitment is")
    assert not verify(dict(genuine, seed=7)).ok
    assert "not a secret" in verify(dict(genuine, seed=7)).reason


def test_verify_rejects_altered_deals(genuine):
    log = copy.deepcopy(genuine)
    hand = log["deals"][1]["hands"][2]
    dealt = hand[0]
    spare = next(c for c in log["deals"][1]["hands"][3] if c not in hand)
    hand[0] = spare
    report = verify(log)
    assert not report.ok
    check = report.hands[1]
    assert check.seats == (True, True, False, True) and check.undealt
    assert report.reason == (f"hand {check.hand}: seat 2 differs from the secret's deal: "
                             f"{spare} published but not dealt, {dealt} dealt but not published")
    assert all(h.ok for i, h in enumerate(report.hands) if i != 1)
    log = copy.deepcopy(genuine)
    log["deals"].pop()
    assert "missing from the published deals" in verify(log).reason
    log = copy.deepcopy(genuine)
    log["deals"].append(log["deals"][0])
    assert "the replay deals no such hand" in verify(log).reason
    log = dict(genuine, deals="nope")
    assert verify(log).reason == "the log's 'deals' is not a list"


def test_verify_rejects_an_altered_move(genuine):
    log = copy.deepcopy(genuine)
    i = next(i for i, (_, text) in enumerate(log["moves"]) if text != "pass")
    seat, text = log["moves"][i]
    log["moves"][i] = [seat, "3C 3C 3C 3C 3C"]
    report = verify(log)
    assert not report.ok
    assert report.reason.startswith(f"move {i} ('3C 3C 3C 3C 3C') by seat {seat} is illegal")
    assert report.moves == i
    log = copy.deepcopy(genuine)
    log["moves"][0] = [(log["moves"][0][0] + 1) % 4, log["moves"][0][1]]
    assert "is by seat" in verify(log).reason
    assert not verify({"nothing": 1}).ok
    assert "not JSON" in verify("{").reason


# ---------------------------------------------------------------------------------- CLI
def test_cli_verify_exit_codes(genuine, tmp_path):
    runner = CliRunner()
    good = tmp_path / "good.json"
    good.write_text(json.dumps(genuine))
    res = runner.invoke(app, ["verify", str(good)])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[-1].startswith("verified")
    assert sum(line.startswith("hand ") for line in lines) == len(genuine["deals"])
    res = runner.invoke(app, ["verify", str(good), "--commitment", commitment(SECRET)])
    assert res.exit_code == 0
    res = runner.invoke(app, ["verify", str(good), "--commitment", commitment(secret_of(2))])
    assert res.exit_code == 1 and "NOT verified: the secret's commitment" in res.output
    bad = tmp_path / "bad.json"
    log = copy.deepcopy(genuine)
    log["deals"][0]["undealt"] = ["RJ"]
    bad.write_text(json.dumps(log))
    res = runner.invoke(app, ["verify", str(bad)])
    assert res.exit_code == 1 and "NOT verified: hand 1: undealt differs" in res.output
    res = runner.invoke(app, ["verify", str(tmp_path / "missing.json")])
    assert res.exit_code == 1


# --------------------------------------------------------------------------------- docs
def test_the_by_hand_recipe_in_the_docs_deals_as_the_game():
    text = (pathlib.Path(__file__).parent.parent / "docs" / "fairness.md").read_text()
    recipe = text.split("### By hand", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    space: dict = {}
    exec(compile(recipe, "docs/fairness.md", "exec"), space)
    for i in range(5):
        g = shangyou.new_match("zheng-shangyou/pagat", players=4, seed=secret_of(i))
        assert space["first_deal"](secret_of(i), 4) == deal_record(g)[0]["hands"]
