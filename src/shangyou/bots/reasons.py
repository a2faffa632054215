"""Why a bot plays a move: :class:`Reason` (a code and its parameters) and :class:`Advice`.

The heuristic bots record a reason at the branch of their rules that decides the move, so a
reason is true of the position it was given for; :func:`text` renders it in English or Chinese
from one table (:data:`TEXTS`).

>>> r = Reason("beat_lowest", {"cards": "7H 7S"})
>>> r.text("en")
'beat with the lowest play that wins: 7H 7S'
>>> Reason("stop_opponent", {"cards": "2S", "count": 1}).text("en")
'beat with 2S to stop an opponent with 1 card left'
>>> Advice("7H 7S", r).as_dict()["reason"]["code"]
'beat_lowest'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

LANGUAGES = ("en", "zh")

TEXTS: dict[str, tuple[str, str]] = {
    # ------------------------------------------------------------------ any game
    "only_move": ("the only legal move", "唯一合法的一手"),
    "fallback": ("a safe legal move (no rule applied)", "稳妥的合法一手（无规则适用）"),
    "no_reason": ("the {bot} bot's move (it gives no reasons)", "{bot}机器人的选择（不给理由）"),
    "search_better":
        ("over {worlds} sampled deals {cards} scores {gain} {unit} more on average than {other}",
         "在{worlds}次抽样牌局中，{cards}平均比{other}多得{gain}{unit_zh}"),
    "search_close":
        ("the search keeps {cards}: over {worlds} sampled deals {other} was not clearly better",
         "搜索保留{cards}：在{worlds}次抽样牌局中{other}并不明显更好"),
    "search_prefers":
        ("the search prefers {cards} over {other} on the sampled deals",
         "搜索在抽样牌局中认为{cards}好于{other}"),
    # ------------------------------------------------------------------ climbing games
    "go_out": ("go out with {cards}", "用{cards}出完手牌"),
    "cash_control":
        ("play {cards}, which nobody can beat, before your last combination",
         "先出没人能管的{cards}，最后再出剩下的一组"),
    "last_combo":
        ("lead your last combination that can be beaten, keeping your winners for after",
         "先出会被管的最后一组，赢牌留到后面"),
    "help_partner":
        ("lead a low single for your partner, who has one card left",
         "出一张小单牌，让只剩一张牌的队友走"),
    "avoid_follow":
        ("lead {cards}, not a play of {count|card|cards}: an opponent with "
         "{count|card|cards} left could follow it and go out",
         "出{cards}，不出{count}张的牌型：只剩{count}张牌的对手可能跟出走完"),
    "shed_lowest":
        ("lead your lowest combination, {cards}, as your plan of the hand says",
         "按手牌的组合计划，先出最小的一组{cards}"),
    "let_partner": ("pass: your partner is winning the trick", "不要：队友正在赢这一轮"),
    "save_team":
        ("beat your partner with {cards}: an opponent is about to go out",
         "用{cards}压过队友：对手快要出完了"),
    "stop_opponent":
        ("beat with {cards} to stop an opponent with {count|card|cards} left",
         "用{cards}管上，阻止只剩{count}张牌的对手"),
    "take_points":
        ("take the {points} points on the table with {cards}",
         "用{cards}拿下桌上的{points}分"),
    "beat_lowest": ("beat with the lowest play that wins: {cards}", "用能赢的最小一手管上：{cards}"),
    "pass_keep":
        ("pass: beating would spend {cards} that your plan needs later",
         "不要：管上会用掉后面要用的{cards}"),
    "pass_cannot": ("pass: no play of your plan beats this one", "不要：手牌计划里没有能管上的"),
    "give_forced":
        ("give {cards}, the card the rules ask for that breaks no combination",
         "按规则进贡{cards}，不拆组合"),
    "take_best": ("take {cards}, the card that helps your hand most", "拿{cards}，最能改善手牌"),
    "discard_least": ("give back {cards}, the card your hand misses least", "还{cards}，手牌最不需要的一张"),
    "offer_least": ("offer {cards}, the cards your hand misses least", "拿出{cards}，手牌最不需要的"),
    # ------------------------------------------------------------------ sheng ji
    "bid_reinforce": ("reinforce your own bid", "加固自己的亮主"),
    "pass_partner_bid": ("pass: your partner's bid stands", "不叫：队友的主已经亮了"),
    "bid_strong":
        ("bid {cards}: trumps would be {share}% of your hand",
         "亮{cards}：主牌将占手牌的{share}%"),
    "pass_weak": ("pass: no suit would give you enough trumps", "不叫：没有哪门花色能有足够的主牌"),
    "bury_void": ("bury {cards} to empty a short suit", "扣{cards}，做出缺门"),
    "bury_cheap": ("bury {cards}, your cheapest card to lose", "扣{cards}，最不值钱的牌"),
    "call_ace":
        ("call {cards}, an ace you do not hold, towards your low cards of the suit",
         "叫{cards}：自己没有的A，好用小牌找朋友"),
    "throw_boss":
        ("throw {cards}: nothing left outside can beat any part of it",
         "甩{cards}：外面没有牌能管住其中任何一部分"),
    "throw_on": ("go on with the throw you planned", "继续计划好的甩牌"),
    "lead_boss": ("lead {cards}, which nobody can beat or ruff", "出{cards}：没人能管也没人能毙"),
    "draw_trumps": ("draw trumps with {cards} while you hold the top ones", "用{cards}调主：大主在你手里"),
    "cash_trumps": ("play {cards}: nobody else holds trumps", "出{cards}：外面已经没有主牌"),
    "lead_for_ruff": ("lead {cards} for your partner to ruff", "出{cards}让队友毙"),
    "lead_pair": ("lead the pair {cards} to draw the opponents' pairs", "出对子{cards}，逼出对手的对子"),
    "lead_short": ("lead {cards} from a short suit to make a void", "出短门的{cards}，做缺门"),
    "lead_low_trump": ("lead a low trump, {cards}", "出一张小主{cards}"),
    "feed_partner":
        ("feed {points} points to your partner, who is winning the trick",
         "给正在赢这一轮的队友送{points}分"),
    "feed_low": ("play {cards} under your partner, who is winning the trick", "队友正在赢这一轮，垫{cards}"),
    "win_points":
        ("win the trick, and the {points} points in it, with {cards}",
         "用{cards}赢下这一轮和{points}分"),
    "win_cheap":
        ("win the trick with the cheapest play that holds it: {cards}",
         "用能保住这一轮的最小一手赢下：{cards}"),
    "win_try": ("try for the trick's {points} points with {cards}", "用{cards}争这一轮的{points}分"),
    "dump_cheap":
        ("you cannot win this trick, or it is not worth it: play your cheapest cards, {cards}",
         "这一轮不值得或赢不了：垫最小的{cards}"),
    "ruff_points": ("ruff to take the trick's points", "毙牌拿分"),
    "pick_cheap": ("add {cards}, your cheapest card", "补{cards}，最不值钱的一张"),
    "pick_points": ("add {cards}: points for your partner's trick", "补{cards}：给队友送分"),
    # ------------------------------------------------------------------ analysis board
    "analysis_behind":
        ("over {worlds} sampled deals {cards} scores {loss} {unit} less on average than {other}",
         "在{worlds}次抽样牌局中，{cards} 平均比 {other} 少得{loss}{unit_zh}"),
}
"""Reason code -> (English, Chinese) text with ``{param}`` fields, written to the player who
asked ("your plan"); ``{count|card|cards}`` is the count and the word that agrees with it
("1 card", "2 cards")."""

_PLURAL = re.compile(r"\{(\w+)\|([^|{}]*)\|([^|{}]*)\}")


@dataclass(frozen=True)
class Reason:
    """Why a move is played: a code of :data:`TEXTS` and its parameters (all strings)."""

    code: str
    params: dict = field(default_factory=dict, compare=True, hash=False)

    def __post_init__(self):
        if self.code not in TEXTS:
            raise ValueError(f"unknown reason code {self.code!r}")
        object.__setattr__(self, "params", {k: str(v) for k, v in self.params.items()})

    def text(self, lang: str = "en") -> str:
        return text(self, lang)

    def as_dict(self) -> dict:
        return {"code": self.code, "params": dict(self.params),
                "text": {lang: text(self, lang) for lang in LANGUAGES}}

    def __str__(self) -> str:
        return text(self, "en")


def text(reason: Reason, lang: str = "en") -> str:
    """The reason in words (``lang``: ``"en"`` or ``"zh"``)."""
    try:
        i = LANGUAGES.index(lang)
    except ValueError:
        raise ValueError(f"unknown language {lang!r}; known: {', '.join(LANGUAGES)}") from None
    params = reason.params

    def plural(m: re.Match) -> str:
        n = params.get(m.group(1), "?")
        return f"{n} {m.group(2) if n == '1' else m.group(3)}"
    return _PLURAL.sub(plural, TEXTS[reason.code][i]).format_map(_Params(params))


class _Params(dict):
    def __missing__(self, key):          # a missing parameter reads as "?" rather than failing
        return "?"


@dataclass(frozen=True)
class Advice:
    """A bot's move for a view and why (``by``: the bot level that gave it)."""

    move: str
    reason: Reason
    by: str = "heuristic"

    def as_dict(self) -> dict:
        return {"move": self.move, "reason": self.reason.as_dict(), "by": self.by}

    def __str__(self) -> str:
        return f"{self.move} ({self.reason})"


class Why:
    """Where a heuristic notes the reason of its decision (``choose()`` passes none)."""

    __slots__ = ("move", "reason")

    def __init__(self) -> None:
        self.reason: Reason | None = None
        self.move: str | None = None        # the move the reason was noted for, when known

    def note(self, code: str, **params) -> None:
        self.reason = Reason(code, params)


def paired_gain(a: list, b: list) -> tuple[float | None, int]:
    """(mean of ``a[w] - b[w]``, worlds) over the worlds ``w`` both were scored on (None in
    either list, or past its end: not scored)."""
    diffs = [x - y for x, y in zip(a, b) if x is not None and y is not None]
    if not diffs:
        return None, 0
    return sum(diffs) / len(diffs), len(diffs)
