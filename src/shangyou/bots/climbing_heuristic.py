"""The ``heuristic`` bot for the climbing games (every Zheng Shangyou preset, Zheng Fen).

It plays from one seat's view the way the pagat notes of seed 000 (``000_d95270a3ce94a823.txt``)
and seed 004 (Zheng Fen) describe good play:

* **Plan the hand as a few combinations.** :func:`plan` splits the hand into combinations with
  the least cost, where a combination nobody can beat any more (judged against every card not
  yet seen: a *control*) costs a quarter of a plain one, because it wins the lead back; one
  that only 2s and jokers can beat costs less than a plain one (high cards are for winning the
  lead), and a 2 or joker spent to fill out a play that can be beaten costs extra ("do not
  lead 4-4-2-2 as four fours"). Every decision compares what is left of the plan after each
  legal play.
* **Leading**: go out if one play empties the hand; with only controls and one plain
  combination left, cash the controls first; else shed the lowest plain combination of the
  plan, avoiding plays of the size that an opponent close to going out could follow with.
* **Following**: never beat a partner (team presets); play a combination of the plan that beats
  the last play, the lowest one, keeping 2s, jokers, bombs and controls for later, unless an
  opponent is close to going out or the trick holds points worth taking (Zheng Fen); otherwise
  pass. In "winner" (cards left at the end cost points) it sheds more eagerly.
* **Exchanges**: take the card that improves the plan most, discard or offer the cards whose
  loss hurts it least.

``choose(view, rng)`` never stops a game: should the rules above fail on an unforeseen view it
answers a legal move (``strict=True`` re-raises, for tests).
"""

from __future__ import annotations

from ..cards import deck_counts, from_counts, parse
from ..engine.memo import make_room
from ..games.climbing.core import shuffle
from ..games.climbing.steps import SMALL_HAND, bounded_leads, every_play, in_steps
from .base import GreedyBot
from .reasons import Advice, Reason, Why

CONTROL_COST = 0.25       # a combination that surely wins the lead back
NODE_BUDGET = 150         # plan search nodes per decision (the search is exact below it)
SAMPLES = 6               # random deals of the unseen cards for judging a play's chance
WILD_COST = 0.8           # extra cost of a wild/top card used inside a beatable play
TOP_BEAT = 0.5            # a deal where only wild/top cards beat a play: half a beating
LEAD_VALUE = 0.5          # a trick won: the next lead is free
MAX_MOVES = 12            # plays weighed per decision
BRANCH = 6                # combinations tried for the lowest card at each node
PLAN_LEADS = 256          # a part of the hand with more leads: one per reading (bounded_leads)
COMPILED_PLAN = True      # plan in the core where the family can (False: the Python reference)


def choose(view: dict, rng=None, strict: bool = False, why: Why | None = None) -> str:
    """The heuristic's move; ``why`` (a :class:`~shangyou.bots.reasons.Why`), when given,
    receives the reason noted at the rule that decided it."""
    return decide(view, strict, why)[0]


def decide(view: dict, strict: bool = False, why: Why | None = None) \
        -> tuple[str, Heuristic | None]:
    """:func:`choose`'s move and the :class:`Heuristic` that chose it (its plans and
    samples, for a caller that asks more of the same view: the learned level's inputs), or
    None where no plan was made (one legal move, a fallback)."""
    moves = view["legal_moves"]
    if len(moves) == 1:
        if why is not None:
            why.note("only_move")
        return moves[0], None
    try:
        if in_steps(moves):       # the play is chosen in steps: weigh every play instead
            view = every_play(view, rules_for_view(view).family)
            moves = view["legal_moves"]
        h = Heuristic(view)
        h.why = why
        move = h.choose()
        if move not in moves:  # pragma: no cover - a bug: say so in strict mode
            raise RuntimeError(f"heuristic chose {move!r}, not a legal move")
        return move, h
    except Exception:
        if strict:
            raise
        if why is not None:
            why.note("fallback")
        try:
            return GreedyBot(0).choose(view), None
        except Exception:      # pragma: no cover - last resort
            return moves[0], None


def advise(view: dict, rng=None) -> Advice:
    """The heuristic's move for ``view`` and the reason its rules gave for it."""
    why = Why()
    move = choose(view, rng, why=why)
    return Advice(move, why.reason or Reason("fallback"), "heuristic")


def move_cards(text: str) -> list[int]:
    """The cards of a move's text (``"5H 6D BJ as 4-6"``, ``"take 2S"``)."""
    return list(cards_of(text))


def cards_of(text: str) -> tuple:
    """:func:`move_cards` as a shared tuple (remembered: not to be changed)."""
    got = _MOVE_CARDS.get(text)
    if got is None:
        cards = text.partition(" as ")[0]
        head, _, tail = cards.partition(" ")
        if head in ("give", "take", "discard", "offer"):
            cards = tail
        got = tuple(parse(cards))
        make_room(_MOVE_CARDS, _MOVE_CARDS_MAX)     # a bounded memo (engine/memo.py)
        _MOVE_CARDS[text] = got
    return got


_MOVE_CARDS: dict[str, tuple] = {}
_MOVE_CARDS_MAX = 50_000


def _remove(hand: tuple, cards) -> tuple:
    rest = list(hand)
    for c in cards:
        rest.remove(c)
    return tuple(rest)


class Heuristic:
    """One decision: the view, parsed once, and the plan search's caches."""

    def __init__(self, view: dict):
        self.view = view
        self.fam = _family(view)
        self.seat = view["seat"]
        self.n = view["players"]
        self.hand = tuple(sorted(parse(" ".join(view["hand"])))) if view["hand"] else ()
        self.counts = view["counts"]
        self.scoring = _scoring(view)
        teams = view.get("teams")
        self.partners = set()
        if teams:
            for t in teams:
                if self.seat in t:
                    self.partners = set(t) - {self.seat}
        self.points = getattr(self.fam, "points", None) if self.scoring == "trick-points" \
            else None
        self._unseen: list[int] | None = None
        self._samples: list[list[tuple]] | None = None
        self._sample_hands: list[tuple] | None = None
        self._planner = None        # the plan in the core (False: in Python), when first asked
        self._beaten: dict = {}
        self._cost: dict = {}
        self._plans: dict = {}
        self._combo_of: dict = {}   # move text -> its Combo
        self._card: dict = {}       # card -> (precious, strength)
        self._nodes = 0
        self.why: Why | None = None

    def note(self, code: str, **params) -> None:
        """Record why the decision is made (only when advice was asked for)."""
        if self.why is not None:
            self.why.note(code, **params)

    # ------------------------------------------------------------------ knowledge
    @property
    def unseen(self) -> list[int]:
        """Every card this seat has not seen (in other hands or undealt), sorted."""
        if self._unseen is None:
            r = rules_for_view(self.view)
            pool = list(deck_counts(r.decks, r.jokers))       # copies of each card code
            for c in self.hand:
                pool[c] -= 1
            for trick in self.view["played"] + [self.view["trick"]]:
                for _, text in trick:
                    if text != "pass":
                        for c in cards_of(text):
                            pool[c] -= 1
            self._unseen = from_counts(pool)
        return self._unseen

    def opponents(self) -> list[int]:
        return [s for s in range(self.n) if s != self.seat and s not in self.partners
                and self.counts[s] > 0]

    def danger(self) -> int:
        """The fewest cards an opponent still holds (a large number when nobody is close)."""
        opp = [self.counts[s] for s in self.opponents()]
        return min(opp) if opp else 99

    # --------------------------------------------------------------------- planning
    def samples(self) -> list[list[tuple]]:
        """A few random deals of the unseen cards to the opponents (their card counts): a
        combination's chance to hold is judged on them."""
        if self._samples is None:
            import random
            rng = random.Random(len(self.unseen) * 7919 + sum(self.unseen))
            opps = self.opponents()
            out: list[list[tuple]] = []
            for _ in range(SAMPLES):
                pool = list(self.unseen)
                shuffle(rng, pool)          # rng.shuffle, in C where the core is on
                hands: list[tuple] = []
                i = 0
                for s in opps:
                    k = self.counts[s]
                    hands.append(tuple(sorted(pool[i:i + k])))
                    i += k
                out.append(hands)
            self._samples = out
        return self._samples

    def sample_hands(self) -> list[tuple]:
        """Every opponent hand of :meth:`samples`, sample after sample (as many each)."""
        if self._sample_hands is None:
            self._sample_hands = [h for hands in self.samples() for h in hands]
        return self._sample_hands

    def combo_cost(self, combo) -> float:
        """What a combination costs the plan: 1 for a play that will probably be beaten, down
        to CONTROL_COST for one no opponent can beat (it wins the lead back). A play that only
        2s and jokers can beat is counted beaten in a deal by TOP_BEAT only: players keep those
        for winning the lead too, so it is a likely way back into the lead (except in Zheng
        Fen, where a trick's points go to whoever wins it)."""
        key = (combo.cards, combo.label, combo.cls)
        cost = self._cost.get(key)
        if cost is None:
            top_beat = TOP_BEAT if self.points is None else 1.0
            beaten = 0.0
            # per sampled deal: 2 an opponent beats it without wild/top cards, 1 only with
            # them (asked of the core for every sample at once, not found among every
            # follow: a two-pack hand can follow a pair in hundreds of thousands of ways)
            hands = self.sample_hands()
            levels = self.fam.beat_levels(hands, combo, len(hands) // SAMPLES)
            for worst in levels:
                beaten += 1.0 if worst == 2 else top_beat if worst == 1 else 0.0
            p = beaten / SAMPLES
            self._beaten[key] = p
            cost = CONTROL_COST + (1 - CONTROL_COST) * p
            if combo.tier > 0:
                cost = min(cost, 0.5)
            if p > 0:
                # wild / top cards spent to prop up a play that can be beaten lose their power
                prec = sum(1 for c in combo.cards if self.fam.precious(c))
                if prec and prec < len(combo.cards):
                    cost += WILD_COST * prec
            self._cost[key] = cost
        return cost

    def beaten(self, combo) -> float:
        """The share of the sampled deals in which an opponent beats ``combo`` (a deal where
        only 2s and jokers do counts as :data:`TOP_BEAT`), as :meth:`combo_cost` judged it."""
        self.combo_cost(combo)
        return self._beaten[(combo.cards, combo.label, combo.cls)]

    def planner(self):
        """The family's plan in the core for this decision (pagat of one pack), or None."""
        if self._planner is None:
            self._planner = False
            core_planner = getattr(self.fam, "core_planner", None)
            if COMPILED_PLAN and core_planner is not None and self.points is None and \
                    rules_for_view(self.view).decks == 1:
                self._planner = core_planner(
                    self.sample_hands(), SAMPLES, (CONTROL_COST, WILD_COST, TOP_BEAT, BRANCH, NODE_BUDGET,
                                     PLAN_LEADS, SMALL_HAND)) or False
        return self._planner or None

    def plan(self, hand: tuple) -> tuple[float, tuple]:
        """(cost, combinations): a cheap split of ``hand`` (a sub-multiset of this seat's hand)
        into plays. Each node tries the combinations holding the hand's lowest card. Where the
        family plans in the core (:meth:`planner`), the same search in C."""
        if not hand:
            return 0.0, ()
        got = self._plans.get(hand)
        if got is not None:
            return got
        planner = self.planner()
        if planner is not None:
            got = self._plans[hand] = planner.plan(hand)
            return got
        self._nodes += 1
        low = hand[0]
        precious = self.fam.precious
        cands = [c for c in bounded_leads(self.fam, hand, PLAN_LEADS) if c.cards[0] == low]
        # the largest plays first, those spending fewer wild/top cards first among equals
        cands.sort(key=lambda c: (-len(c.cards), sum(1 for x in c.cards if precious(x))))
        width = BRANCH if self._nodes < NODE_BUDGET else 1
        cands = cands[:2 * width]
        cands.sort(key=lambda c: (-len(c.cards), self.combo_cost(c)))
        options = cands[:width]
        best = None
        for c in options:
            sub_cost, sub = self.plan(_remove(hand, c.cards))
            cost = self.combo_cost(c) + sub_cost
            if best is None or cost < best[0]:
                best = (cost, (c,) + sub)
        if best is None:          # the lowest card starts no listed play (should not happen)
            rest_cost, rest = self.plan(hand[1:])
            best = (1.0 + rest_cost, rest)
        self._plans[hand] = best
        return best

    def plain_plays(self, hand: tuple) -> int:
        """The plays of :meth:`plan`'s split of ``hand`` that are not controls (they cost more
        than CONTROL_COST); where the plan is in the core, costed there."""
        planner = self.planner()
        if planner is not None and hand:
            self.plan(hand)                 # the plan first, as Heuristic.plan would ask it
            return planner.plain(hand, CONTROL_COST)
        return sum(1 for c in self.plan(hand)[1] if self.combo_cost(c) > CONTROL_COST)

    # -------------------------------------------------------------------- decisions
    def choose(self) -> str:
        moves = self.view["legal_moves"]
        kind = moves[0].split()[0] if moves[0] != "pass" else "pass"
        if kind in ("give", "take", "discard", "offer"):
            return self.exchange(kind, moves)
        if "pass" in moves:
            return self.follow(moves)
        return self.lead(moves)

    def combo_of(self, text: str):
        got = self._combo_of.get(text)
        if got is None:
            cards = tuple(sorted(cards_of(text)))
            label = text.partition(" as ")[2]
            readings = self.fam.combos(cards)
            got = readings[0]
            for r in readings:
                if not label or r.label == label:
                    got = r
                    break
            self._combo_of[text] = got
        return got

    def card(self, c: int) -> tuple[int, float]:
        """(1 if precious else 0, strength) of a card, asked of the family once."""
        got = self._card.get(c)
        if got is None:
            got = self._card[c] = (1 if self.fam.precious(c) else 0, self.fam.card_strength(c))
        return got

    def _height(self, cards) -> float:
        card = self.card
        return sum(card(c)[1] for c in cards) / len(cards)

    def shortlist(self, moves: list[str], plan) -> list[str]:
        """The plays worth weighing (some hands allow thousands): those of the plan, then the
        cheapest by greedy measures (few wild/top cards, low cards, many cards)."""
        if len(moves) <= MAX_MOVES:
            return moves
        in_plan = {tuple(c.cards) for c in plan}
        card = self.card

        def rank(m):
            cards = cards_of(m)
            info = [card(c) for c in cards]
            return (tuple(sorted(cards)) not in in_plan, sum(p for p, _ in info),
                    min(s for _, s in info), -len(cards))
        return sorted(moves, key=rank)[:MAX_MOVES]

    def lead(self, moves: list[str]) -> str:
        hand = self.hand
        for m in moves:
            if len(cards_of(m)) == len(hand):
                self.note("go_out", cards=m)
                return m                      # out in one play
        total, combos = self.plan(hand)
        plain = [c for c in combos if self.combo_cost(c) > CONTROL_COST]
        moves = self.shortlist(moves, combos)
        danger = {s: self.counts[s] for s in self.opponents() if self.counts[s] <= 3}
        card = self.card
        # a partner with one card left: lead a low single for them to go out on
        helping = any(self.counts[p] == 1 for p in self.partners) and not danger
        best = None
        for m in moves:
            cards = cards_of(m)
            combo = self.combo_of(m)
            rest_cost, _ = self.plan(_remove(hand, cards))
            cost = self.combo_cost(combo)
            ctrl = cost <= CONTROL_COST
            # how far this play is from the best split of the hand (0: one of its plays)
            off_plan = max(0.0, rest_cost + min(cost, 1.0) - total)
            score = 3.0 * off_plan
            if len(plain) <= 1:
                score += 0.0 if ctrl else 0.5      # cash the controls, then the last play
            elif ctrl:
                score += 1.0                       # keep controls to win the lead back
            if danger and not ctrl and any(len(cards) == k for k in danger.values()):
                score += 1.5                       # an opponent could follow and go out
            if helping and len(cards) == 1:
                score -= 1.0 + 0.05 * (20 - min(card(c)[1] for c in cards))  # a low single
            if self.points:
                score += 0.02 * self.points(cards)   # do not lead points into others' tricks
            # shed the lowest combination, as many cards of it as possible
            score += 0.04 * min(card(c)[1] for c in cards) - 0.02 * len(cards)
            if best is None or score < best[0]:
                best = (score, m)
        assert best is not None    # a lead has plays, and the shortlist keeps some
        if self.why is not None:
            self._lead_reason(best[1], plain, danger, helping)
        return best[1]

    def _lead_reason(self, m: str, plain: list, danger: dict, helping: bool) -> None:
        """The term of :meth:`lead`'s score that set ``m`` apart."""
        cards = cards_of(m)
        ctrl = self.combo_cost(self.combo_of(m)) <= CONTROL_COST
        if helping and len(cards) == 1:
            self.note("help_partner", cards=m)
        elif len(plain) <= 1:
            self.note("cash_control" if ctrl else "last_combo", cards=m)
        elif danger and not ctrl and plain and len(plain[0].cards) in danger.values() \
                and len(cards) not in danger.values():
            # its lowest plain combination has the size an opponent could go out on
            self.note("avoid_follow", cards=m, count=len(plain[0].cards))
        else:
            self.note("shed_lowest", cards=m)

    def follow(self, moves: list[str]) -> str:
        view = self.view
        hand = self.hand
        plays = [m for m in moves if m != "pass"]
        if not plays:
            self.note("only_move")
            return "pass"
        for m in plays:
            if len(cards_of(m)) == len(hand):
                self.note("go_out", cards=m)
                return m
        last_seat = view["last"]["seat"] if view.get("last") else None
        partner_leads = last_seat in self.partners
        base, _ = self.plan(hand)
        danger = self.danger()
        last_threat = last_seat is not None and not partner_leads and \
            self.counts[last_seat] <= 3
        urgent = danger <= 2 or last_threat
        table_pts = view.get("table_points", 0) if self.points else 0
        eager = self.scoring == "cards-left"
        if partner_leads:
            # the partner wins this trick unless someone beats it: only save the team
            if not (danger <= 1 and self.counts[last_seat] > 2):
                self.note("let_partner")
                return "pass"
        best: tuple[float, str, float, bool, int] | None = None
        for m in self.shortlist(plays, self.plan(hand)[1]):
            cards = cards_of(m)
            combo = self.combo_of(m)
            rest = _remove(hand, cards)
            rest_cost, rest_plan = self.plan(rest)
            hold = 1.0 - self.beaten(combo)
            # turns saved by this play, and the lead it may win back
            gain = base - rest_cost + (LEAD_VALUE * hold if rest_plan else 0.0)
            precious = sum(self.card(c)[0] for c in cards)
            ctrl = self.combo_cost(combo) <= CONTROL_COST
            pts = self.points(cards) if self.points else 0
            score = -gain + 0.01 * self._height(cards)
            if precious and len(rest_plan) > 2:
                score += 0.3 * precious
            if combo.tier > 0 and len(rest_plan) > 1:
                score += 0.6                       # a bomb is worth keeping
            if urgent:
                score -= 1.0 * hold                # stop the opponent: play what holds
            if self.points:
                # points on the table are worth taking; points put down may feed others
                win_odds = 1.0 if ctrl else 0.4
                score -= 0.03 * (table_pts + pts) * win_odds
                score += 0.02 * pts * (1 - win_odds)
            if best is None or score < best[0]:
                best = (score, m, gain, ctrl, precious)
        assert best is not None    # plays is not empty, and the shortlist keeps some
        score, m, gain, ctrl, precious = best
        threshold = 0.55
        if eager:
            threshold = 0.35
        if urgent:
            threshold = -0.8
        if table_pts >= 15 and ctrl:
            threshold = min(threshold, -0.3)
        if gain >= threshold or (table_pts >= 15 and ctrl):
            if self.why is not None:
                if partner_leads:
                    self.note("save_team", cards=m)
                elif urgent and (danger <= 2 or self.counts[last_seat] > 0):
                    count = danger if danger <= 2 else self.counts[last_seat]
                    self.note("stop_opponent", cards=m, count=count)
                elif table_pts > 0:
                    self.note("take_points", cards=m, points=table_pts)
                else:
                    self.note("beat_lowest", cards=m)
            return m
        if self.why is not None:
            if precious or combo_tier(self, m) > 0 or ctrl:
                self.note("pass_keep", cards=m)
            else:
                self.note("pass_cannot")
        return "pass"

    def exchange(self, kind: str, moves: list[str]) -> str:
        hand = self.hand
        base, _ = self.plan(hand) if hand else (0.0, ())
        if kind == "give":                    # forced among equal highest: keep sequences
            m = min(moves, key=lambda m: (-self._loss(move_cards(m)), m))
            self.note("give_forced", cards=m.split(None, 1)[1])
            return m
        if kind == "take":
            best = None
            for m in moves:
                c = move_cards(m)[0]
                h = tuple(sorted(hand + (c,)))
                cost = self._fresh(h)
                if best is None or cost < best[0]:
                    best = (cost, m)
            assert best is not None    # a seat that takes has cards on offer to take
            self.note("take_best", cards=best[1].split(None, 1)[1])
            return best[1]
        if kind == "discard":
            m = min(moves, key=lambda m: (self._loss(move_cards(m)),
                                          self.fam.precious(move_cards(m)[0]),
                                          self.fam.card_strength(move_cards(m)[0])))
            self.note("discard_least", cards=m.split(None, 1)[1])
            return m
        # offer: two cards the loser may take one of; the pair that hurts the plan least
        singles = sorted(set(hand), key=lambda c: (self._loss([c]), self.fam.precious(c),
                                                   self.fam.card_strength(c)))
        pick = tuple(sorted(singles[:2])) if len(singles) >= 2 else tuple(hand[:2])
        for m in moves:
            if tuple(sorted(move_cards(m))) == pick:
                self.note("offer_least", cards=m.split(None, 1)[1])
                return m
        m = min(moves, key=lambda m: sum(self.fam.card_strength(c) for c in move_cards(m)))
        self.note("offer_least", cards=m.split(None, 1)[1])
        return m

    def _loss(self, cards) -> float:
        """How much the plan's cost rises when ``cards`` leave the hand (negative: it falls)."""
        base, _ = self.plan(self.hand)
        rest_cost, _ = self.plan(_remove(self.hand, cards))
        return rest_cost - base

    def _fresh(self, hand: tuple) -> float:
        """Plan cost of a hand that is not a sub-hand of this seat's (a card received)."""
        other = Heuristic.__new__(Heuristic)
        other.__dict__.update(self.__dict__)
        other.hand = hand
        other._plans, other._nodes = {}, 0
        return other.plan(hand)[0]


def combo_tier(h: Heuristic, move: str) -> int:
    """The tier of a move's combination (above 0: a bomb)."""
    return h.combo_of(move).tier


def _family(view: dict):
    return rules_for_view(view).family


def rules_for_view(view: dict):
    """The preset's rulebook for this view (cached by game name and options)."""
    return _rulebook(view["game"], tuple(sorted((view.get("options") or {}).items())))


_RULEBOOKS: dict = {}


def _rulebook(game: str, options: tuple):
    key = (game, options)
    rb = _RULEBOOKS.get(key)
    if rb is None:
        from ..registry import build
        rb = _RULEBOOKS[key] = build(game, dict(options))
    return rb


def _scoring(view: dict) -> str:
    return rules_for_view(view).scoring
