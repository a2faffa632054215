// Rules help for each preset, in English and Chinese, condensed from docs/rules/*.md (our own
// words; those pages hold every decision). RULES[lang][preset] is a list of paragraphs;
// OPTIONS[lang][option] says what a table option does.

const ZSY_EN = [
  "A climbing game: be the first to get rid of your cards. The leader plays any combination; each next player plays a higher combination of the same kind, or passes (and may still play later in the same trick). When all others still holding cards have passed in a row, the last player to play leads a new trick.",
  "The hand ends when only one player still holds cards.",
];
const ZSY_ZH = [
  "爬坡类游戏：先出完手牌的人赢。首家出任意牌型；后面的人要出同一牌型里更大的牌，或者不要（不要之后本墩还可以再出）。其余还有牌的人连续都不要时，最后出牌的人开始新的一墩。",
  "只剩一个人手里有牌时，这一局结束。",
];

const SJ_EN = [
  "A trick-taking game for two sides. While the cards are dealt one by one, players may show level cards of a suit to name trumps; the declarer takes the kitty and buries as many cards.",
  "Trumps are both jokers, every card of the level rank, and the trump suit; they all count as one suit. Leads: a single, a pair, a tractor (neighbouring pairs of one suit), or several of these at once (a throw, which fails if anybody can beat one of its parts).",
  "Follow with as many cards, of the led suit while you have it, and pairs or tractors when you hold them. There is no passing. The highest play of the led suit wins the trick unless it is trumped.",
  "5s count 5, 10s and kings 10. The opponents count the points they take (and the kitty, multiplied, if they win the last trick); their total decides how many levels the declarers rise, or whether the opponents take over. The match ends when a side playing at A wins a hand as declarers.",
];
const SJ_ZH = [
  "两方对抗的吃墩游戏。一张张摸牌时，可以亮出本级的牌来叫主；庄家拿底牌，再扣下同样多张。",
  "大小王、所有本级牌和主花色都是主牌，算作同一门。首出可以是单张、对子、拖拉机（同门相邻的对子），或几组一起甩；只要有人能压过其中一组，甩牌就失败。",
  "跟牌张数要相同；有首出那门的牌就要跟那门，有对子或拖拉机时要跟对子或拖拉机。不能不出。首出那门最大的牌赢这一墩，除非被主牌毙掉。",
  "5 算 5 分，10 和 K 算 10 分。闲家数自己赢到的分（如果最后一墩由闲家赢，底牌分数要翻倍加上）；闲家总分决定庄家升几级，或者闲家上台。打 A 的一方坐庄赢下一局时，整场结束。",
];

export const RULES = {
  en: {
    "zheng-shangyou/pagat": [...ZSY_EN,
      "Order 3 … A, 2, black joker, red joker. Plays: singles, sets of one rank (2s and jokers may stand in for lower ranks), sequences of 3+ ranks (jokers wild), and multiple sequences (pairs or triples of 3+ neighbouring ranks). A single-suited sequence beats a mixed one of the same length; at equal rank a play without stand-ins beats one with them.",
      "From the second hand the last players give their highest cards to the first ones, who give back cards they do not want; all face up. First out scores 2, second 1; the first to reach the target wins."],
    "zheng-shangyou/pagat-teams": [...ZSY_EN,
      "The pagat combinations, played in teams: partners sit opposite with 4 players, on alternate seats with 6. Team scores add up the places of both (or all three) partners; the first team to reach the target wins."],
    "zheng-shangyou/winner": [...ZSY_EN,
      "Order 3 … A, 2; suits break ties (diamonds < clubs < hearts < spades). Plays: single, pair, triple, consecutive pairs or triples, full house, straight (at least the minimum length). A bomb (four of a kind, with a kicker unless the option says otherwise) beats any ordinary play, and a straight flush beats everything.",
      "When the first player goes out, every other player pays points for each card left (more with many cards, most if they never played). The loser gives their highest card to the winner, who gives two cards back to choose from. A match lasts a fixed number of hands."],
    "zheng-shangyou/owen": [...ZSY_EN,
      "Order 3 … A, 2, black joker, red joker; suits never matter. 2s and jokers are wild in sets, full houses, stairs (consecutive pairs), plates (consecutive triples) and quads. Straights need 5+ natural cards. Four of a kind is a bomb; both jokers together are a rocket and beat everything. At equal rank a natural play beats one with wild cards.",
      "First out scores 2, second 1; the first to reach the target wins. There is no card exchange."],
    "zheng-fen": [...ZSY_EN,
      "The winner of each trick keeps its cards. 5s are worth 5, 10s and kings 10 (100 per hand); the last player's tricks and remaining cards go to the first player out. Points add up over the hands until someone reaches the target.",
      "Combinations: singles, pairs, triples, quartets, runs of 3+ pairs/triples/quartets, full houses, suit sequences of 5+ cards; jokers are wild except as singles. Specials (5-10-K mixed, 5-10-K of one suit, four 2s) beat everything else."],
    "sheng-ji": [...SJ_EN, "Two packs and four players by default; partners sit opposite."],
    "sheng-ji/single-deck": [...SJ_EN, "One pack, four players, partners opposite; a kitty of 6 cards."],
    "sheng-ji/zhao-pengyou": [...SJ_EN,
      "Finding friends: after burying, the declarer calls cards (\"the second ace of spades\"); whoever plays a called copy first joins the declarer's side. The sides are secret until then."],
  },
  zh: {
    "zheng-shangyou/pagat": [...ZSY_ZH,
      "大小顺序 3 … A、2、小王、大王。牌型：单张、同点数的几张（2 和王可以当作更小的点数）、3 张以上的顺子（王可以当任意牌）、连对或连三张（3 个以上相邻点数）。同长度时同花顺子大于杂色顺子；点数相同时不用替代牌的大。",
      "从第二局起，末游把最大的牌交给上游，上游再还回不要的牌，全部明着进行。上游得 2 分，二游得 1 分；先到目标分的人获胜。"],
    "zheng-shangyou/pagat-teams": [...ZSY_ZH,
      "牌型同 pagat 规则，组队进行：4 人时对家一队，6 人时隔位一队。队伍按队员的名次计分，先到目标分的队伍获胜。"],
    "zheng-shangyou/winner": [...ZSY_ZH,
      "大小顺序 3 … A、2；点数相同时比花色（方块 < 梅花 < 红桃 < 黑桃）。牌型：单张、对子、三张、连对、连三张、三带二、顺子（至少达到最短长度）。炸弹（四张同点，默认要带一张）压任何普通牌型，同花顺压一切。",
      "有人出完时，其他人按手里剩的张数扣分（剩得多扣得多，一张没出扣最多）。输家把最大的牌交给赢家，赢家再拿出两张让他挑一张。一场打固定的局数。"],
    "zheng-shangyou/owen": [...ZSY_ZH,
      "大小顺序 3 … A、2、小王、大王；花色不分大小。2 和王在对子、三张、三带二、连对、连三张和炸弹里可以当任意牌。顺子要 5 张以上的真牌。四张同点是炸弹；大小王一起是火箭，压一切。点数相同时不用替代牌的大。",
      "上游得 2 分，二游得 1 分；先到目标分的人获胜。不换牌。"],
    "zheng-fen": [...ZSY_ZH,
      "每一墩的赢家收下这一墩的牌。5 算 5 分，10 和 K 算 10 分（每局共 100 分）；末游赢的牌和手里剩的牌都归上游。各局累计，有人到目标分时结束。",
      "牌型：单张、对子、三张、四张、3 组以上相连的对子／三张／四张、三带二、5 张以上的同花顺；王除了当单张外都可以当任意牌。特殊牌型（杂色 5-10-K、同花 5-10-K、四个 2）压所有其他牌型。"],
    "sheng-ji": [...SJ_ZH, "默认两副牌、四个人；对家一队。"],
    "sheng-ji/single-deck": [...SJ_ZH, "一副牌、四个人，对家一队；底牌 6 张。"],
    "sheng-ji/zhao-pengyou": [...SJ_ZH,
      "找朋友：扣底之后，庄家叫牌（例如“第二张黑桃 A”）；先打出被叫那张牌的人加入庄家一方。在那之前谁是朋友是保密的。"],
  },
};

export const OPTIONS = {
  en: {
    players: "number of players",
    decks: "number of packs",
    target: "score that ends the match (empty: the preset's rule)",
    twos_in_sequences: "2s may sit above the ace in single sequences",
    jokers: "play with the two jokers",
    min_straight: "shortest straight",
    straight_needs_higher_rank: "a straight beats only a straight with a higher top rank",
    bomb: "what a bomb is: four of a kind with a kicker, or four alone",
    hands: "number of hands in a match",
    kitty: "number of cards in the kitty",
    kitty_multiplier: "how the kitty's points are multiplied on the last trick",
    throw_penalty: "points for a failed throw",
    no_bid: "what happens when nobody bids",
    kitty_theft: "others may overcall after the burial and take the kitty",
    jack_hook: "winning the last trick with a single J (or A) sends the declarers back",
    red_five: "the 5 of hearts is the highest trump",
    must_play_ranks: "levels that cannot be skipped",
    start_level: "the level everybody starts at",
    friends: "number of friends the declarer calls",
    turn_timer: "seconds for each move (0: no limit); at zero the player passes or a bot moves",
    grace: "seconds an absent player's seat waits before a bot plays it",
    listed: "shown in the lobby's list (no: only people with the link find the table)",
  },
  zh: {
    players: "人数",
    decks: "几副牌",
    target: "结束一场的分数（留空按预设）",
    twos_in_sequences: "单顺子里 2 可以接在 A 后面",
    jokers: "加入大小王",
    min_straight: "顺子最短张数",
    straight_needs_higher_rank: "顺子只能被最高点更大的顺子压",
    bomb: "炸弹的形式：四张带一张，或只有四张",
    hands: "一场打几局",
    kitty: "底牌张数",
    kitty_multiplier: "最后一墩底牌分数的翻倍方式",
    throw_penalty: "甩牌失败的罚分",
    no_bid: "没人叫主时怎么办",
    kitty_theft: "扣底后其他人可以反主拿底（炒地皮）",
    jack_hook: "用单张 J（或 A）赢最后一墩，庄家方退级（勾底）",
    red_five: "红桃 5 是最大的主",
    must_play_ranks: "必打的级（不能跳过）",
    start_level: "大家开始打的级",
    friends: "庄家要叫几个朋友",
    turn_timer: "每步的秒数（0 为不限）；时间到了自动不要或由机器人出牌",
    grace: "玩家离开后等多少秒由机器人代打",
    listed: "在大厅的列表里显示（否：只有拿到链接的人才能找到这张牌桌）",
  },
};
