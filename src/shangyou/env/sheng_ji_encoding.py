"""The observation tensor of Sheng ji (Tractor, Zhao Pengyou): the view path of
:mod:`shangyou.env.encoding`, from the seat's view dict."""

from __future__ import annotations

from .encoding import CODE, N_CARDS, Encoder, parse_move


class ShengJiEncoder(Encoder):
    """Sheng ji, Tractor and Zhao Pengyou."""

    phases = ("deal", "bury", "call", "play", "over")
    ranks = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")

    def parts(self):
        n = self.n
        return [("hand", N_CARDS), ("played", N_CARDS), ("trick", N_CARDS), ("lead", N_CARDS),
                ("pending", N_CARDS), ("buried", N_CARDS), ("bid_cards", N_CARDS),
                ("counts", n), ("trick_order", n), ("declarer", n), ("bidder", n),
                ("friends", n), ("partners", n), ("points_won", n), ("levels", n),
                ("level", len(self.ranks)), ("trump_suit", 5), ("phase", len(self.phases)),
                ("opponents_points", 1), ("penalty_points", 1)]

    def reset(self) -> None:
        self._played: dict[int, tuple] = {}

    def fill(self, obs, view):
        seat = view["seat"]
        s = self.slices
        for t in view["hand"]:
            obs[s["hand"].start + CODE[t]] += 1
        tricks = view["tricks"]
        hn, done, acc = self._played.get(seat, (None, 0, None))
        if hn != view["hand_number"] or done > len(tricks):
            done, acc = 0, bytes(N_CARDS)
        if done < len(tricks):
            acc = bytearray(acc)
            for tr in tricks[done:]:
                for _, text in tr["plays"]:
                    for c in parse_move(text)[1]:
                        acc[c] += 1
            acc = bytes(acc)
            done = len(tricks)
        self._played[seat] = (view["hand_number"], done, acc)
        obs[s["played"]] = acc
        for pos, (who, text) in enumerate(view["trick"]):
            self.add_cards(obs, "played", text)
            self.add_cards(obs, "trick", text)
            if pos == 0:
                self.add_cards(obs, "lead", text)
            self.put(obs, "trick_order", self.rel(seat, who), pos + 1)
        for t in view.get("pending", ()):
            obs[s["pending"].start + CODE[t]] += 1
        for t in view.get("buried", ()):
            obs[s["buried"].start + CODE[t]] += 1
        bid = view["bid"]
        if bid is not None:
            self.add_cards(obs, "bid_cards", bid["cards"])
            self.one_hot(obs, "bidder", self.rel(seat, bid["seat"]))
        for i, c in enumerate(view["counts"]):
            self.put(obs, "counts", self.rel(seat, i), c)
        if view["declarer"] is not None:
            self.one_hot(obs, "declarer", self.rel(seat, view["declarer"]))
        for i in view["friends"]:
            self.one_hot(obs, "friends", self.rel(seat, i))
        teams = view["teams"]
        if teams:
            for t in teams:
                if seat in t:
                    for i in t:
                        self.one_hot(obs, "partners", self.rel(seat, i))
        else:
            self.one_hot(obs, "partners", 0)
        for i, p in enumerate(view["points_won"]):
            self.put(obs, "points_won", self.rel(seat, i), p // 5)
        for i, lv in enumerate(view["levels"]):
            self.put(obs, "levels", self.rel(seat, i), self.ranks.index(lv))
        self.one_hot(obs, "level", self.ranks.index(view["level"]))
        trump = view["trump"]
        if trump is not None:
            suit = trump[-1] if trump[-1] in "DCHS" and trump != view["level"] else None
            self.one_hot(obs, "trump_suit", "DCHS".index(suit) if suit else 4)
        self.one_hot(obs, "phase", self.phases.index(view["phase"]))
        self.put(obs, "opponents_points", 0, view["opponents_points"] // 5)
        self.put(obs, "penalty_points", 0, view["penalty_points"] // 5)
