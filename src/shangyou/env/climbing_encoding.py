"""The observation encoder of the climbing games (Zheng Shangyou, every preset, and Zheng Fen).

Two ways write the same bytes (``tests/test_env.py`` compares them with each other and with the
view path, :meth:`~shangyou.env.encoding.Encoder.encode`, over thousands of random positions):

* ``_fastobs.observe`` (C): the whole observation, head and candidate rows, from the seat's
  ``compact_view`` and the pager's ``Move`` objects, in one call; it declines (writing
  nothing) a position with card points or an exchange, which :meth:`ClimbingEncoder._write_general`
  writes.
* :meth:`ClimbingEncoder._observe_py`: the Python reference and the fallback (no C compiler, or
  ``SHANGYOU_NO_C=1``), built from :meth:`ClimbingEncoder._head_py` and ``_rows_py``.
"""

from __future__ import annotations

from . import encoding as _enc
from .plays_pager import PASS_AT, PLAY_AT, PlaysPager
from .encoding import (_EXTRA, _KIND_AT, _NO_CARDS, CAND_WIDTH, CODE, N_CARDS, Encoder,
                       _card_counts, parse_move)

_NO_MOVES: list = []                    # no candidate rows for ``_fastobs.observe_game``


class ClimbingEncoder(Encoder):
    """Zheng Shangyou (every preset) and Zheng Fen."""

    phases = ("exchange", "play", "over")
    steps = ("show", "take", "discard", "give", "offer")
    by_text = False
    # set by :meth:`reset`
    _played: dict[int, tuple]
    _hand_bytes: list[tuple]
    _last_bytes: tuple

    def __init__(self, players: int, k: int):
        super().__init__(players, k)
        o = self.offsets
        self._at = (o["hand"], o["played"], o["last"], o["last_seat"], o["leading"],
                    o["counts"], o["finished"], o["passed"], o["partners"], o["phase"],
                    o["page"], o["candidates"])
        self._phase_at = {p: o["phase"] + i for i, p in enumerate(self.phases)}
        self._partners: dict = {}
        # pieces of the head for :meth:`write`: n zeros, one-hot rows of n, and everything
        # from ``won_points`` to ``exchange_role`` per phase when there are no points and no
        # exchange (zeros, then ``leading``, the phase one-hot, zeros)
        n = self.n
        self._zero_n = bytes(n)
        self._one_hot = [bytes(1 if j == i else 0 for j in range(n)) for i in range(n)]
        ph = len(self.phases)

        def tail(leading: int, i: int) -> bytes:
            return (bytes(n + 1) + bytes((leading,)) + bytes(1 if j == i else 0 for j in range(ph))
                    + bytes(len(self.steps) + 2))
        self._tail_leading = {p: tail(1, i) for i, p in enumerate(self.phases)}
        self._tail_following = {p: tail(0, i) for i, p in enumerate(self.phases)}
        assert [name for name, _ in self.parts()][-6:] == [
            "won_points", "table_points", "leading", "phase", "exchange_step", "exchange_role"]
        assert self.slices["candidates"].stop == self.size     # the head comes first
        assert o["hand"] == 0 and o["page"] + 2 == o["candidates"]
        # what ``_fastobs.observe`` needs to know of the layout (see its comment)
        self._consts = (n, k, CAND_WIDTH, _EXTRA, _KIND_AT,
                        {p: i for i, p in enumerate(self.phases)},
                        o["played"], o["last"], o["counts"], o["finished"], o["passed"],
                        o["last_seat"], o["partners"], o["leading"], o["phase"], o["page"],
                        o["candidates"], _KIND_AT["more"])

    def _partners_of(self, teams: tuple, seat: int) -> bytes:
        rel = self.rel_table[seat]
        b = bytearray(self.n)
        for t in teams:
            if seat in t:
                for i in t:
                    b[rel[i]] = 1
        part = self._partners[(teams, seat)] = bytes(b)
        return part

    def _write_rare(self, obs: bytearray, seat: int, won, table: int, ex, rel: list) -> None:
        """Zheng Fen's points and the exchange between hands, for :meth:`write`."""
        o = self.offsets
        if won is not None:
            for i, p in enumerate(won):
                obs[o["won_points"] + rel[i]] = min(127, max(0, p // 5))
            obs[o["table_points"]] = min(127, max(0, table // 5))
        if ex is not None:
            obs[o["exchange_step"] + self.steps.index(ex["step"])] = 1
            b = o["exchange_cards"]
            for c in ex["shown"]:
                obs[b + c] += 1
            if seat in ex["givers"]:
                obs[o["exchange_role"]] = 1
            if seat in ex["takers"]:
                obs[o["exchange_role"] + 1] = 1

    def write(self, buf, at, game, seat, pager):
        """The fast path: from the game as ``game.compact_view(seat)`` reads it and the pager's
        ``Move`` objects; the same bytes as :meth:`encode` (tested). ``_fastobs.observe_game``
        (C) writes it in one call, else :meth:`_observe_py` from ``compact_view``; Zheng Fen's
        points and the exchange between hands take :meth:`_write_general`."""
        fast = _enc._fastobs
        if fast is None:
            self._observe_py(buf, at, game.compact_view(seat), seat, pager)
            return
        if pager is None:
            done = fast.observe_game(buf, at, game, seat, None, 0, 0, 0, 0, self._consts,
                                     self._played_cache)
        elif type(pager) is PlaysPager:     # the head here, the rows from the core's listing
            done = fast.observe_game(buf, at, game, seat, _NO_MOVES, 0, 0, pager.page,
                                     pager.pages, self._consts, self._played_cache)
            if done:
                if pager.pages == 1:        # PlaysPager.fill_rows, inline
                    pager.plays.env_rows(buf, at + self._at[-1], pager.order, 0, pager.n,
                                         CAND_WIDTH, PASS_AT, PLAY_AT)
                else:
                    pager.fill_rows(buf, at + self._at[-1])
        elif pager.pages == 1:
            done = fast.observe_game(buf, at, game, seat, pager.moves, 0, len(pager.moves), 0,
                                     1, self._consts, self._played_cache)
        else:
            start = pager.page * pager.per_page
            stop = min(start + pager.per_page, len(pager.moves))
            done = fast.observe_game(buf, at, game, seat, pager.moves, start, stop, pager.page,
                                     pager.pages, self._consts, self._played_cache)
        if not done:
            self._write_general(buf, at, game.compact_view(seat), seat, pager)

    def _observe_py(self, buf, at, cv, seat, pager):
        """:meth:`write` in Python: the reference for ``_fastobs.observe`` (head by
        :meth:`_head_py`, candidate rows by ``_rows_py``)."""
        (_, phase, hand, counts, played, last, last_seat, passed, finished, teams, won, table,
         ex) = cv
        if won is not None or ex is not None:
            self._write_general(buf, at, cv, seat, pager)
            return
        tail = (self._tail_leading if last is None else self._tail_following)[phase]
        if teams:
            part = self._partners.get((teams, seat)) or self._partners_of(teams, seat)
        else:
            part = self._one_hot[0]
        if pager is None:
            page = b"\0\0"
        elif pager.pages == 1:
            page = b"\0\1"
        else:
            p, q = pager.page, pager.pages
            page = bytes((p if p < 127 else 127, q if q < 127 else 127))
        self._head_py(buf, at, seat, hand, played, last, last_seat, passed, finished, counts,
                      part, tail, page)
        if pager is not None:
            pager.fill_rows(buf, at + self._at[-1])

    def _head_py(self, buf, at, seat, hand, played, last, last_seat, passed, finished, counts,
                 part, tail, page) -> None:
        """The head of :meth:`write`, joined from whole pieces (most of them made once per
        seat or per table size) and copied once: the reference for ``_fastobs.head``."""
        hand_b = self._hand_counts(seat, hand)
        zero = self._zero_n
        if last is None:
            last_b = _NO_CARDS
            last_seat_b = passed_b = zero
        else:
            lc = self._last_bytes           # the play to beat is the same through passes
            if lc[0] is last:
                last_b = lc[1]
            else:
                last_b = _card_counts(last)
                self._last_bytes = (last, last_b)
            rel = self.rel_table[seat]
            last_seat_b = self._one_hot[rel[last_seat]]
            if passed:
                b = bytearray(self.n)
                for i in passed:
                    b[rel[i]] = 1
                passed_b = bytes(b)
            else:
                passed_b = zero
        if finished:
            rel = self.rel_table[seat]
            b = bytearray(self.n)
            place = 0
            for i in finished:
                place += 1
                b[rel[i]] = place
            finished_b = bytes(b)
        else:
            finished_b = zero
        cb = bytes(counts)                  # at most 108 cards a hand: no clipping needed
        head = b"".join((hand_b, played, last_b, _NO_CARDS, cb[seat:], cb[:seat], finished_b,
                         passed_b, last_seat_b, part, tail, page))
        buf[at:at + len(head)] = head

    def _hand_counts(self, seat: int, hand: tuple) -> bytes:
        """The 54 card counts of ``seat``'s hand, kept while the hand is unchanged (a seat that
        passed since it last acted holds the same cards)."""
        kept = self._hand_bytes[seat]
        if kept[0] != hand:
            kept = self._hand_bytes[seat] = (hand, _card_counts(hand))
        return kept[1]

    def _write_general(self, buf, at, cv, seat, pager):
        """:meth:`write` for any position (used with points or an exchange)."""
        (_, phase, hand, counts, played, last, last_seat, passed, finished, teams, won, table,
         ex) = cv
        (o_hand, o_played, o_last, o_last_seat, o_leading, o_counts, o_finished, o_passed,
         o_partners, o_phase, o_page, o_cand) = self._at
        obs = bytearray(o_cand)
        rel = self.rel_table[seat]
        obs[o_hand:o_hand + N_CARDS] = self._hand_counts(seat, hand)
        obs[o_played:o_played + N_CARDS] = played
        if last is not None:
            for c in last:
                obs[o_last + c] += 1
            obs[o_last_seat + rel[last_seat]] = 1
            for i in passed:
                obs[o_passed + rel[i]] = 1
        else:
            obs[o_leading] = 1
        # at most 108 cards a hand: no clipping needed
        obs[o_counts:o_counts + self.n] = bytes(counts[seat:] + counts[:seat])
        place = 0
        for i in finished:
            place += 1
            obs[o_finished + rel[i]] = place
        if teams:
            part = self._partners.get((teams, seat)) or self._partners_of(teams, seat)
            obs[o_partners:o_partners + self.n] = part
        else:
            obs[o_partners] = 1
        obs[self._phase_at[phase]] = 1
        if won is not None or ex is not None:
            self._write_rare(obs, seat, won, table, ex, rel)
        if pager is not None:
            p = pager.page
            obs[o_page] = p if p < 127 else 127
            p = pager.pages
            obs[o_page + 1] = p if p < 127 else 127
            buf[at:at + o_cand] = obs
            pager.fill_rows(buf, at + o_cand)
        else:
            buf[at:at + o_cand] = obs

    def parts(self):
        n = self.n
        return [("hand", N_CARDS), ("played", N_CARDS), ("last", N_CARDS),
                ("exchange_cards", N_CARDS), ("counts", n), ("finished", n), ("passed", n),
                ("last_seat", n), ("partners", n), ("won_points", n), ("table_points", 1),
                ("leading", 1), ("phase", len(self.phases)),
                ("exchange_step", len(self.steps)), ("exchange_role", 2)]

    def reset(self) -> None:
        # per seat: (hand number, tricks already counted, counts of those tricks' cards)
        self._played = {}
        # per seat: (the hand last written, its card counts), for :meth:`write`; and the
        # cards of the last play to beat written, with their counts
        self._hand_bytes = [(None, b"")] * self.n
        self._last_bytes = (None, b"")
        # for ``_fastobs.observe_game``: the list of finished tricks last counted, how many,
        # and the counts of their cards (compact_view's cache, kept here)
        self._played_cache = [None, 0, _NO_CARDS]

    def fill(self, obs, view):
        seat = view["seat"]
        o = self.offsets
        rel = self.rel_table[seat]          # rel[i]: seat i as seen from ``seat``
        code = CODE
        base = o["hand"]
        for t in view["hand"]:
            obs[base + code[t]] += 1
        # cards of finished tricks (counted once per seat and hand) and of the current trick
        played = view["played"]
        hn, done, acc = self._played.get(seat, (None, 0, None))
        if hn != view["hand_number"] or done > len(played):
            done, acc = 0, bytes(N_CARDS)
        if done < len(played):
            acc = bytearray(acc)
            for trick in played[done:]:
                for _, text in trick:
                    if text != "pass":
                        for c in parse_move(text)[1]:
                            acc[c] += 1
            acc = bytes(acc)
            done = len(played)
            self._played[seat] = (view["hand_number"], done, acc)
        base = o["played"]
        obs[base:base + N_CARDS] = acc
        for _, text in view["trick"]:
            if text != "pass":
                for c in parse_move(text)[1]:
                    obs[base + c] += 1
        last = view["last"]
        if last is not None:
            base = o["last"]
            for c in parse_move(last["cards"])[1]:
                obs[base + c] += 1
            obs[o["last_seat"] + rel[last["seat"]]] = 1
        else:
            obs[o["leading"]] = 1
        base = o["counts"]
        for i, c in enumerate(view["counts"]):
            obs[base + rel[i]] = c if c < 127 else 127
        base = o["finished"]
        for place, i in enumerate(view["finished"]):
            obs[base + rel[i]] = place + 1
        base = o["passed"]
        for i in view["passed"]:
            obs[base + rel[i]] = 1
        base = o["partners"]
        teams = view.get("teams")
        if teams:
            for t in teams:
                if seat in t:
                    for i in t:
                        obs[base + rel[i]] = 1
        else:
            obs[base] = 1
        won = view.get("won_points")
        if won is not None:
            base = o["won_points"]
            for i, p in enumerate(won):
                obs[base + rel[i]] = min(127, max(0, p // 5))
            obs[o["table_points"]] = min(127, max(0, view["table_points"] // 5))
        obs[o["phase"] + self.phases.index(view["phase"])] = 1
        ex = view.get("exchange")
        if ex is not None:
            obs[o["exchange_step"] + self.steps.index(ex["step"])] = 1
            base = o["exchange_cards"]
            for key in ("shown", "discards", "offered"):
                for t in ex.get(key, ()):
                    obs[base + code[t]] += 1
            if seat in ex.get("givers", [ex.get("giver")]):
                obs[o["exchange_role"]] = 1
            if seat in ex.get("takers", [ex.get("taker")]):
                obs[o["exchange_role"] + 1] = 1
