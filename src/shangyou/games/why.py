"""Why a play is illegal, in words a learner understands (English and 中文).

The engines refuse an illegal play with :class:`~shangyou.errors.IllegalMove`; where the rules
of the game refuse it (not a combination, does not beat, must follow the suit…) the error also
carries a :class:`Why`: a code of :data:`TEXTS` naming the rule and the parameters of this
case. The error's message is the English text, so every caller that shows ``str(error)`` shows
the explanation; the server also sends the code and both texts (``docs/protocol.md``).

The explanations are worked out only on the refusal path (``apply`` of a move that is not
legal), never for legal moves, so the hot path of the engines is unchanged.

>>> w = Why("seq_gap", {"cards": "8H 10S JD", "seq": "sequence", "a": "8", "b": "10"})
>>> w.text("en").split(": ")[1]
'a sequence needs consecutive ranks, and 8 and 10 are not consecutive'
>>> refuse("lower", cards="7S", last="9S (single)", kind="single").why.code
'lower'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import IllegalMove

LANGUAGES = ("en", "zh")

_NOT = ("{cards} is not a combination: ", "{cards}不是合法牌型：")
_BEAT = ("{cards} does not beat {last}: ", "{cards}管不上{last}：")


def _nc(en: str, zh: str) -> tuple[str, str]:
    return _NOT[0] + en, _NOT[1] + zh


def _nb(en: str, zh: str) -> tuple[str, str]:
    return _BEAT[0] + en, _BEAT[1] + zh


TEXTS: dict[str, tuple[str, str]] = {
    # ---------------------------------------------------- climbing: not a combination
    "one_rank": _nc("a {set} must be cards of one rank, and these are of {count} ranks ({ranks})",
                    "{set_zh}须是同一点数的牌，这些牌有{count}种点数（{ranks}）"),
    "seq_short": _nc("a {seq} needs at least {min} cards of consecutive ranks",
                     "{seq_zh}至少要{min}张点数相连的牌"),
    "seq_gap": _nc("a {seq} needs consecutive ranks, and {a} and {b} are not consecutive",
                   "{seq_zh}的点数必须相连，{a}和{b}不相连"),
    "seq_gap_wild": _nc("a {seq} needs consecutive ranks: between {a} and {b} there are "
                        "{missing} missing, and you have only {wilds|wild card|wild cards} to "
                        "fill them",
                        "{seq_zh}的点数必须相连：{a}和{b}之间缺{missing}张，你只有{wilds}张百搭"),
    "seq_twos": _nc("twos may not be in a {seq} in this game",
                    "本游戏中2不能放进{seq_zh}"),
    "seq_wilds": _nc("wild cards ({wild}) may not be used in a {seq}",
                     "{seq_zh}里不能用百搭牌（{wild}）"),
    "seq_wrap": _nc("a straight may not turn the corner: after the A comes no 2 (K-A-2 is no "
                    "straight; A-2-3 is)",
                    "顺子不能绕圈：A之后不能接2（K-A-2不是顺子，A-2-3是）"),
    "seq_one_each": _nc("a {seq} has one card of each rank, and you have {count} cards of "
                        "rank {rank}",
                        "{seq_zh}每个点数只能一张；你有{count}张{rank}"),
    "run_uneven": _nc("{a_run} needs the same number of cards of each rank",
                      "{run_zh}每个点数的张数必须相同"),
    "run_short": _nc("{a_run} needs at least {min} consecutive ranks; these are {count}",
                     "{run_zh}至少要{min}个相连的点数；这里只有{count}个"),
    "run_gap": _nc("{a_run} needs consecutive ranks, and {a} and {b} are not consecutive",
                   "{run_zh}的点数必须相连，{a}和{b}不相连"),
    "run_twos": _nc("twos may not be in {a_run} in this game (ranks 3 to A only)",
                    "本游戏中2不能放进{run_zh}（只能用3到A）"),
    "run_past_two": _nc("nothing follows the 2 in this game: a sequence may end at 2 but not "
                        "go past it",
                        "本游戏中2后面不能再接：连牌可以到2为止，不能越过2"),
    "run_width": _nc("{a_run} is made of groups of consecutive ranks, not of {width} of each",
                     "{run_zh}由相连点数的对子或三张组成，不能每个点数{width}张"),
    "needs_natural": _nc("a {set} needs at least one natural card of its rank: wild cards "
                         "cannot make it alone",
                         "{set_zh}至少要有一张本点数的真牌：不能全用百搭"),
    "rank_natural": _nc("every rank of {a_run} needs a natural card{or_joker}: here the {rank}s "
                        "are all stood for by wild cards",
                        "{run_zh}的每个点数都要有真牌{or_joker_zh}：这里的{rank}全是百搭代替的"),
    "bomb_kicker": _nc("four of a kind is a bomb only with one more card in this game",
                       "本游戏中四张同点要再带一张牌才是炸弹"),
    "jokers_limited": _nc("jokers play only as singles, a pair of identical jokers or a bomb's "
                          "extra card in this game",
                          "本游戏中王只能单出、成对出或作炸弹的带牌"),
    "bomb_quad": _nc("a bomb is four of a kind alone in this game, with no extra card",
                     "本游戏中炸弹就是四张同点，不带牌"),
    "wild_top": _nc("wild cards stand only for ranks 3 to A, never for a 2 or a joker",
                    "百搭只能代替3到A，不能代替2或王"),
    "seq_suit": _nc("single cards in a row are a suit sequence only when all of one suit "
                    "(jokers take its suit)", "单张连牌必须同一花色才是同花顺子（王可当该花色）"),
    "set_size": _nc("there is no set of {count} cards of one rank in this game (largest: {max})",
                    "本游戏没有{count}张同点的牌型（最多{max}张）"),
    "full_house_extra": _nc("the two extra cards of a full house must be a pair, two neighbours "
                            "of one suit, a 3 and any card, or two counting cards (5, 10, K)",
                            "三带二的两张带牌必须是：一对、同花相邻的两张、一张3带任意一张、"
                            "或两张分牌（5、10、K）"),
    "full_house_pair": _nc("a full house is a triple and a pair of another rank",
                           "三带二是三张加另一点数的一对"),
    "rocket_only": _nc("the two jokers together are the rocket only, never part of a bigger "
                       "play", "两张王只能作火箭，不能放进更大的牌型"),
    "generic": _nc("it matches none of this game's combinations ({kinds})",
                   "它不符合本游戏的任何牌型（{kinds_zh}）"),
    # ------------------------------------------------------------ climbing: does not beat
    "wrong_count": _nb("this trick needs {need|card|cards} ({kind}); you played {got}",
                       "这一轮要出{need}张（{kind_zh}）；你出了{got}张"),
    "wrong_kind": _nb("this trick needs a {kind}; you played a {got_kind}",
                      "这一轮要出{kind_zh}；你出的是{got_kind_zh}"),
    "wrong_length": _nb("a {kind} only beats a {kind} of the same length ({need} cards); "
                        "yours has {got}",
                        "{kind_zh}只能管同样长度的{kind_zh}（{need}张）；你的有{got}张"),
    "lower": _nb("it is lower: play a higher {kind}", "它更小：要出更大的{kind_zh}"),
    "equal": _nb("it is only equal, and an equal play cannot beat: play higher",
                 "两手一样大，一样大的牌管不上：要出更大的"),
    "impure": _nb("at equal rank a play without wild cards beats one with them, and yours "
                  "has wild cards", "同样大小时，不带百搭的牌大于带百搭的，你的带了百搭"),
    "impure_equal": _nb("both have wild cards at equal rank, so neither beats the other",
                        "同样大小且都带百搭，谁也管不了谁"),
    "suit_tie": _nb("at equal rank the suit of the highest card decides (♦ < ♣ < ♥ < ♠), "
                    "and yours is lower", "点数相同时比最大那张的花色（♦ < ♣ < ♥ < ♠），你的更小"),
    "mixed_sequence": _nb("a single-suited sequence beats any mixed one of the same length",
                          "同花的顺子大于任何同样长度的杂花顺子"),
    "shorter_sequence": _nb("with the same top the longer sequence wins, and yours is not "
                            "longer", "最大点数相同时更长的连牌大，你的不更长"),
    "bomb_on_table": _nb("a {last_kind} can only be beaten by {beaters}",
                         "桌上的{last_kind_zh}只有{beaters_zh}才能管"),
    "lead_must_play": ("you have the lead: you must play, not pass",
                       "你是首家：必须出牌，不能不要"),
    # ------------------------------------------------------------------------- Sheng ji
    "sj_count": ("play {need|card|cards}, as many as were led; you played {got}",
                 "要出{need}张，和首家一样多；你出了{got}张"),
    "sj_lead_suits": ("a lead must be all of one suit (all trumps count as one suit); "
                      "you mixed {suits}",
                      "首出必须是同一门花色（所有主牌算一门）；你混了{suits_zh}"),
    "sj_play_all": ("play every card you hold of the suit led ({suit}): you hold "
                    "{held|card|cards} of it, no more than were led, and played {played}",
                    "首家出的花色（{suit_zh}）你只有{held}张，不超过首家的张数，必须全部出；你出了{played}张"),
    "sj_follow_suit": ("you must follow the suit led ({suit}) while you have {suit}: you hold "
                       "{held}, so all {need|card|cards} you play must be {suit}",
                       "首家出的是{suit_zh}，你还有{held}张{suit_zh}，出的{need}张都必须是{suit_zh}"),
    "sj_tractor": ("the lead holds a tractor of {length} pairs and you hold one in {suit}: "
                   "play a tractor (consecutive pairs) of {length} pairs",
                   "首家出了{length}对的拖拉机，你的{suit_zh}里有拖拉机：必须出{length}对的拖拉机"
                   "（相连的对子）"),
    "sj_pairs": ("the lead holds {want|pair|pairs} and you hold pairs of {suit}: play "
                 "{need|pair|pairs} of {suit}; you played {played}",
                 "首家出了{want}对，你的{suit_zh}里有对子：必须出{need}对{suit_zh}；你出了{played}对"),
    "sj_finish_throw": ("finish the throw you started: add cards or 'play'",
                        "先把开始的甩牌完成：再加牌或者出牌"),
    "sj_no_pass": ("there is no passing in Sheng ji: play cards", "升级不能不出：必须出牌"),
    "sj_bury_held": ("you can bury only cards you hold, and you hold no {card}",
                     "只能扣手里的牌，你没有{card}"),
    "sj_bury_count": ("bury {need|card|cards}, as many as the kitty had; you chose {got}",
                      "要扣{need}张，和底牌一样多；你选了{got}张"),
}
"""Code -> (English, Chinese) text with ``{param}`` fields; a parameter ``x`` may have a
Chinese twin ``x_zh`` (the Chinese text names it), used where the value is words;
``{n|card|cards}`` is the count ``n`` and the word that agrees with it."""

#: the codes of the refusals the climbing games explain (any preset), and Sheng ji's
CLIMBING_CODES = frozenset(c for c in TEXTS if not c.startswith("sj_"))
SHENG_JI_CODES = frozenset(c for c in TEXTS if c.startswith("sj_"))

#: the Chinese names of the kinds of play of every family (combo.kind, Sheng ji units)
KIND_ZH = {
    "single": "单张", "set": "同点牌", "pair": "对子", "triple": "三张", "trip": "三张",
    "quartet": "四张", "sequence": "顺子", "multiple sequence": "连对（多重顺子）",
    "consecutive pairs": "连对", "consecutive triples": "连三张", "full house": "三带二",
    "straight": "顺子", "bomb": "炸弹", "straight flush": "同花顺", "stair": "连对",
    "plate": "连三张", "quad": "炸弹（四张）", "rocket": "火箭", "suit sequence": "同花顺子",
    "special": "特殊牌型", "sequence of pairs": "连对", "sequence of triples": "连三张",
    "sequence of quartets": "连四张", "tractor": "拖拉机", "a higher bomb": "更大的炸弹",
    "a higher bomb or a straight flush": "更大的炸弹或同花顺",
    "a longer or higher straight flush": "同样长度更大的同花顺",
    "the rocket": "火箭", "a higher special": "更大的特殊牌型",
    "a higher straight flush of the same length": "同样长度更大的同花顺",
}
SUIT_WORDS = ("diamonds", "clubs", "hearts", "spades", "trumps")
SUIT_ZH = ("方块", "梅花", "红桃", "黑桃", "主牌")


def kind_zh(kind: str) -> str:
    return KIND_ZH.get(kind, kind)


_PLURAL = re.compile(r"\{(\w+)\|([^|{}]*)\|([^|{}]*)\}")


def a_kind(kind: str) -> str:
    """``kind`` with its article: "a stair", but "consecutive pairs" (a plural name)."""
    return kind if kind.startswith("consecutive") else "a " + kind


class _Params(dict):
    def __missing__(self, key):
        if key.endswith("_zh"):              # no Chinese twin given: the value itself
            return self[key[:-3]]
        return "?"


@dataclass(frozen=True)
class Why:
    """Why a play is illegal: a code of :data:`TEXTS` and its parameters (strings)."""

    code: str
    params: dict = field(default_factory=dict, compare=True, hash=False)

    def __post_init__(self):
        if self.code not in TEXTS:
            raise ValueError(f"unknown explanation code {self.code!r}")
        object.__setattr__(self, "params", {k: str(v) for k, v in self.params.items()})

    def text(self, lang: str = "en") -> str:
        try:
            i = LANGUAGES.index(lang)
        except ValueError:
            raise ValueError(f"unknown language {lang!r}; known: {', '.join(LANGUAGES)}") \
                from None
        params = self.params

        def plural(m: re.Match) -> str:
            n = params.get(m.group(1), "?")
            return f"{n} {m.group(2) if n == '1' else m.group(3)}"
        return _PLURAL.sub(plural, TEXTS[self.code][i]).format_map(_Params(params))

    def as_dict(self) -> dict:
        return {"code": self.code, "params": dict(self.params),
                "text": {lang: self.text(lang) for lang in LANGUAGES}}

    def __str__(self) -> str:
        return self.text("en")


def refuse(code: str, **params) -> IllegalMove:
    """The :class:`IllegalMove` of a play refused for the rule ``code`` (raise it)."""
    why = Why(code, params)
    return IllegalMove(why.text("en"), why=why)
