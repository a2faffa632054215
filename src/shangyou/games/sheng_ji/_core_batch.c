/* The batch engine of Sheng ji: N hands stepped in one call, the observations, masks, rewards
   and flags written into arrays the caller gave, the GIL released and the rows split over the
   thread pool of ../_batch_pool.h (the climbing games' engine, climbing/_core_batch.c, uses
   the same pool and generator; env/batch_engine.py is the Python face of both, docs/env.md
   their description).

   A row plays the whole hand in C, every phase the presets it takes have (batch_engine.config
   answers None for matches):

   - the deal of ShengJiGame.__init__ / _start_hand from the seed ShangyouAEC.reset draws
     (the starter drawn, the packs shuffled as random.Random.shuffle does), the cards drawn one
     at a time and each drawer with a legal bid asked (pass or a bid: _advance_deal, _bids_for,
     _do_bid), the last round of bids, then _end_deal: the trump of the bid, or without one
     the first plain card of the kitty as _kitty_order shuffles it ("kitty-card"), no trump
     ("no-trump") or a new deal from the game's generator ("redeal");
   - the bury, one card at a time (_give_kitty, _do_bury), with kitty theft the round of
     overcalls after it (_next_thief: an overcall takes the buried cards and buries again),
     and in Zhao Pengyou the friends
     called (_callable, "call N CARD") and shown when the called copy is played
     (_note_friends: the sides follow them);
   - the play (_play_moves, _do_play, _lead, _end_trick): leads, throws built card by card and
     committed (checked against the other hands: a failed one plays the forced unit and costs
     the penalty), follows, and past 400 follows the cards picked one at a time, with the
     listing, follow, decomposition, throw check and trick winner of this core (_core_units.c,
     _core_follow.c: the code the game itself uses);
   - the end of the hand (_end_hand): the opponents' points, the kitty bonus, the penalty, the
     level change (scoring.level_change), the levels after it (next_level, must-play ranks,
     jack hook) and the rewards of env/features.py's rewards_of;
   - the observation of ShengJiEncoder (env/sheng_ji_encoding.py) and its candidates as
     env/encoding.py's Pager orders and pages them (move_key: kind, number of cards, cards),
     byte for byte;
   - single-agent mode: the learner's seat against random opponents, each drawing
     random.Random(seed).choice(game.legal_moves()) from the listing in the game's order.

   tests/test_batch_engine_sheng_ji.py compares it with the Python environments row by row. */

#include "_core.h"
#include "../_batch_pool.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FOLLOW_LIMIT 400        /* game.FOLLOW_LIMIT */
#define MAXP 8                  /* seats of the presets taken (4 to 7) */
#define MAXDECK (4 * NCARD)

/* the kinds of env/encoding.py's KINDS (their index is the candidate row's kind entry) */
enum { E_PASS = 0, E_PLAY = 1, E_BID = 6, E_BURY = 7, E_CALL = 8, E_THROW = 9, E_COMMIT = 10,
       E_PICK = 11, E_MORE = 12, E_NKINDS = 13 };
#define MAXCALLS 4              /* Zhao Pengyou: friends called (at most players // 2) */
enum { PH_DEAL, PH_BURY, PH_CALL, PH_PLAY, PH_OVER };

/* a candidate: its kind and cards (sorted by code, in the row's pool; a friend's call holds
   its card and its ordinal: "call 2 AS" is E_CALL, {AS, 2}) */
typedef struct {
    unsigned char kind, n;
    int off;
} Cand;

typedef struct {
    /* m[0] the seed stream, m[1] the game's generator (a redeal draws from it), m[2 + s] the
       random opponent of seat s (single mode) */
    MT *m;
    uint32_t game_seed;
    /* card counts as bytes (a row is touched once a step and rarely still in the caches: the
       smaller, the faster; the core's functions get int copies) */
    unsigned char hand[MAXP][NCARD];
    int nhand[MAXP];
    int won[MAXP];              /* card points of the tricks each seat won */
    unsigned char played[NCARD];        /* the cards of this hand's finished tricks */
    unsigned char stock[MAXDECK];
    int nstock;
    unsigned char kitty[MAXH];  /* as dealt; after the bury, the cards buried */
    int nkitty;
    int phase, to_act, starter, declarer, level, has_trump, trump_suit;
    int bid_seat, bid_card, bid_count;          /* bid_card -1: no bid */
    int next_draw, final_at;                    /* final_at -1: the last round not begun */
    int theft_base, theft_at;   /* kitty theft: the seats after theft_base asked in turn from
                                   theft_at (1 .. players - 1); theft_at -1: no round */
    int kitty_owner, nburied;
    unsigned char buried[MAXH];
    Ctx ctx;
    /* the trick: its plays in order (seats, cards sorted by code) */
    int ntrick, trick_seat[MAXP], trick_n[MAXP];
    unsigned char trick_cards[MAXP][MAXH];
    unsigned char pending[MAXH];
    int npending, pend_cnt[NCARD];
    int penalty;
    /* Zhao Pengyou: the calls (card, ordinal), those answered, the friends in the order they
       showed, the copies of each card played so far */
    int ncalls, call_card[MAXCALLS], call_ord[MAXCALLS], call_done;
    int friends[MAXP], nfriends;
    unsigned friend_mask;
    unsigned char seen[NCARD];
    /* the end of the hand: reward side and levels, totals (hand(i)) */
    int over, side_decl, change_levels, total, won_opp, kitty_pts, mult, hook;
    int levels_after[MAXP];
    unsigned char last_win[MAXH];
    int nlast_win, last_winner;
    long steps;
    /* the decision: candidates in the env's order, and the page */
    Cand *cand;
    unsigned char *pool;
    int ncand, cap, pool_n, pool_cap, page, pages, per_page, listed, used;
    int autoreset, error;
} Row;

#define SEEDER(r) (&(r)->m[0])
#define GAME(r) (&(r)->m[1])
#define BOT(r, s) (&(r)->m[2 + (s)])

typedef struct {
    Sink sink;                  /* a listing in the game's order (PyMem_Raw buffers) */
} Scratch;

typedef struct {
    PyObject_HEAD
    int n_envs, players, k, obs_size, single, seat, strict;
    int decks, kitty, start_level, red5, throw_penalty, no_bid, linear, jack_hook;
    int must_play;              /* bit r: rank index r must be played */
    int friends;                /* Zhao Pengyou: friends to call (0: fixed teams by parity) */
    int kitty_theft;            /* 炒地皮: after a bury the others may overcall and bury again */
    long max_steps;
    double illegal_reward;
    /* offsets into an observation (ShengJiEncoder's slices) */
    int o_hand, o_played, o_trick, o_lead, o_pending, o_buried, o_bid_cards, o_counts,
        o_trick_order, o_declarer, o_bidder, o_friends, o_partners, o_points_won, o_levels, o_level,
        o_trump_suit, o_phase, o_opp_points, o_penalty, o_page, o_cand, width;
    Row *rows;
    MT *mts;
    Py_buffer obs, mask, reward, term, trunc, seat_buf, illegal;
    int have_bufs;
    const int64_t *actions;
    int busy;
    uint64_t rand_state;
    BatchPool pool;
} Batch;

#define NO_BID_KITTY 0
#define NO_BID_NONE 1
#define NO_BID_REDEAL 2

/* ------------------------------------------------------------------------ the deal */
static inline void
widen(const unsigned char *bytes, int *cnt)         /* byte counts as the core's ints */
{
    for (int c = 0; c < NCARD; c++)
        cnt[c] = bytes[c];
}

static inline void
counts_of(const unsigned char *cards, int n, int *cnt)
{
    memset(cnt, 0, NCARD * sizeof(int));
    for (int i = 0; i < n; i++)
        cnt[cards[i]]++;
}

static inline int
card_points(int c)
{
    int r = c >> 2;
    return c >= BJ ? 0 : r == 2 ? 5 : (r == 7 || r == 10) ? 10 : 0;
}

static inline int
sj_index(int rank)              /* order.SJ_RANK: 2 -> 0 .. A -> 12 */
{
    return (rank + 1) % 13;
}

static inline int
declarers_side(const Batch *b, const Row *r, int seat)    /* team_of(seat) == "declarers" */
{
    if (b->friends)             /* Zhao Pengyou: the declarer and the friends shown so far */
        return seat == r->declarer || (r->friend_mask >> seat & 1);
    return (seat & 1) == (r->declarer & 1);               /* teams (0, 2, ..), (1, 3, ..) */
}

static int
has_bid(const Row *r, int seat)
{
    const unsigned char *cnt = r->hand[seat];
    int lv = r->level;
    int cands[6] = {lv * 4, lv * 4 + 1, lv * 4 + 2, lv * 4 + 3, BJ, RJ};
    int cur_tier = r->bid_card == RJ ? 2 : r->bid_card == BJ ? 1 : 0;
    for (int i = 0; i < 6; i++) {
        int c = cands[i], tier = c == RJ ? 2 : c == BJ ? 1 : 0;
        for (int k = i < 4 ? 1 : 2; k <= cnt[c]; k++) {
            if (r->bid_card < 0)
                return 1;
            if (r->bid_seat == seat) {
                if (c == r->bid_card && k > r->bid_count)
                    return 1;
            } else if (k > r->bid_count || (k == r->bid_count && tier > cur_tier)) {
                return 1;
            }
        }
    }
    return 0;
}

static void begin_deal(const Batch *b, Row *r);

/* _kitty_order()[0]: the kitty's plain cards sorted, shuffled by
   random.Random(seed * 7 + hand_number) (hand 1) */
static int
first_kitty_card(const Row *r)
{
    unsigned char plain[MAXH];
    int np = 0;
    for (int i = 0; i < r->nkitty; i++)
        if (r->kitty[i] < BJ)
            plain[np++] = r->kitty[i];
    if (np == 0)
        return -1;
    for (int i = 1; i < np; i++) {                /* sorted */
        unsigned char x = plain[i];
        int j = i - 1;
        while (j >= 0 && plain[j] > x) {
            plain[j + 1] = plain[j];
            j--;
        }
        plain[j + 1] = x;
    }
    MT g;
    mt_seed(&g, (uint64_t)r->game_seed * 7 + 1);
    for (int i = np - 1; i >= 1; i--) {
        int j = (int)mt_below(&g, (uint32_t)i + 1);
        unsigned char t = plain[i];
        plain[i] = plain[j];
        plain[j] = t;
    }
    return plain[0];
}

/* _give_kitty: the kitty into the seat's hand, to be buried */
static void
give_kitty(Row *r, int seat)
{
    for (int i = 0; i < r->nkitty; i++)
        r->hand[seat][r->kitty[i]]++;
    r->nhand[seat] += r->nkitty;
    r->kitty_owner = seat;
    r->nburied = 0;
    r->phase = PH_BURY;
    r->to_act = seat;
}

/* _end_deal and _give_kitty; 1 when a redeal began instead */
static int
end_deal(const Batch *b, Row *r)
{
    int suit = -1;
    if (r->bid_card < 0) {
        if (b->no_bid == NO_BID_REDEAL) {
            begin_deal(b, r);
            return 1;
        }
        if (b->no_bid == NO_BID_KITTY) {
            int first = first_kitty_card(r);
            suit = first < 0 ? -1 : first & 3;
        }
        r->declarer = r->starter;
    } else {
        suit = r->bid_card >= BJ ? -1 : r->bid_card & 3;
        r->declarer = r->bid_seat;
    }
    r->has_trump = 1;
    r->trump_suit = suit;
    sj_ctx_make(&r->ctx, r->level, suit, b->red5);
    give_kitty(r, r->declarer);
    return 0;
}

/* _advance_deal: draw up to a drawer with a bid to make, then the last round, then the end */
static void
advance_deal(const Batch *b, Row *r)
{
    int n = b->players;
    for (;;) {
        while (r->nstock > 0) {
            int seat = r->next_draw;
            r->hand[seat][r->stock[--r->nstock]]++;
            r->nhand[seat]++;
            r->next_draw = (seat + 1) % n;
            if (has_bid(r, seat)) {
                r->to_act = seat;
                return;
            }
        }
        if (r->final_at < 0)
            r->final_at = 0;
        while (r->final_at < n) {
            int seat = (r->starter + r->final_at++) % n;
            if (has_bid(r, seat)) {
                r->to_act = seat;
                return;
            }
        }
        if (!end_deal(b, r))
            return;
        /* a redeal: its draws */
    }
}

/* _start_hand from the game's generator (hand 1, or its redeal) */
static void
begin_deal(const Batch *b, Row *r)
{
    int total = NCARD * b->decks;
    unsigned char cards[MAXDECK];
    for (int i = 0; i < total; i++)
        cards[i] = (unsigned char)(i % NCARD);
    for (int i = total - 1; i >= 1; i--) {                  /* random.shuffle */
        int j = (int)mt_below(GAME(r), (uint32_t)i + 1);
        unsigned char t = cards[i];
        cards[i] = cards[j];
        cards[j] = t;
    }
    r->nkitty = b->kitty;
    memcpy(r->kitty, cards, (size_t)b->kitty);
    r->nstock = total - b->kitty;
    memcpy(r->stock, cards + b->kitty, (size_t)r->nstock);
    memset(r->hand, 0, sizeof r->hand);
    memset(r->nhand, 0, sizeof r->nhand);
    r->level = b->start_level;
    r->has_trump = 0;
    r->trump_suit = -1;
    r->bid_card = -1;
    r->bid_seat = -1;
    r->bid_count = 0;
    r->next_draw = r->starter;
    r->final_at = -1;
    r->nburied = 0;
    r->kitty_owner = -1;
    r->theft_at = -1;
    r->phase = PH_DEAL;
    r->to_act = -1;
    advance_deal(b, r);
}

/* ShengJiGame(rules, seed, match=False) */
static void
deal(const Batch *b, Row *r, uint32_t game_seed)
{
    r->game_seed = game_seed;
    mt_seed(GAME(r), game_seed);
    r->starter = (int)mt_below(GAME(r), (uint32_t)b->players);
    r->declarer = -1;
    memset(r->won, 0, sizeof r->won);
    memset(r->played, 0, sizeof r->played);
    r->ntrick = r->npending = 0;
    memset(r->pend_cnt, 0, sizeof r->pend_cnt);
    r->penalty = 0;
    r->ncalls = r->call_done = r->nfriends = 0;
    r->friend_mask = 0;
    memset(r->seen, 0, sizeof r->seen);
    r->over = 0;
    r->steps = 0;
    r->listed = 0;
    begin_deal(b, r);
}

static void
aec_next_hand(const Batch *b, Row *r)
{
    deal(b, r, mt_below(SEEDER(r), 0x80000000U));
}

/* SingleAgentEnv._restart */
static void
single_restart(const Batch *b, Row *r)
{
    MT seeder;
    mt_seed(&seeder, mt_below(SEEDER(r), 0x80000000U));
    deal(b, r, mt_below(&seeder, 0x80000000U));
    for (int s = 0; s < b->players; s++)
        if (s != b->seat)
            mt_seed(BOT(r, s), mt_below(SEEDER(r), 0x80000000U));
    r->autoreset = 0;
}

/* ------------------------------------------------------------------------ the play */
static int
sort_codes(unsigned char *a, int n)
{
    for (int i = 1; i < n; i++) {
        unsigned char x = a[i];
        int j = i - 1;
        while (j >= 0 && a[j] > x) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = x;
    }
    return n;
}

/* kitty_multiplier of the last trick's lead */
static int
kitty_mult(const Batch *b, const Ctx *t, const int *lead_cnt)
{
    SUnit units[MAXU];
    int nu = sj_decompose(t, lead_cnt, units);
    int best = 0, singles = 1;
    for (int i = 0; i < nu; i++) {
        int m = 2;
        if (units[i].width >= 2) {
            singles = 0;
            m = b->linear ? 2 * (units[i].length + 1) : 1 << (units[i].length + 1);
        }
        if (m > best)
            best = m;
    }
    if (b->linear && nu >= 2 && singles)
        return 3;
    return best;
}

/* scoring.next_level along 2..A (SJ index), stopping on a must-play rank */
static int
next_level(const Batch *b, int rank, int steps)
{
    int i = sj_index(rank);
    for (int k = 0; k < steps; k++) {
        if (i == 12)
            break;
        i++;
        if (b->must_play >> ((i + 12) % 13) & 1)
            break;
    }
    return (i + 12) % 13;
}

/* _end_hand of one hand (no match): the scoring, the levels, the rewards' side */
static void
end_hand(const Batch *b, Row *r, int last_winner, const int *lead_cnt, const unsigned char *win,
         int nwin)
{
    int n = b->players, opp_won = 0, kitty_pts = 0;
    for (int s = 0; s < n; s++)
        if (!declarers_side(b, r, s))
            opp_won += r->won[s];
    for (int i = 0; i < r->nkitty; i++)
        kitty_pts += card_points(r->kitty[i]);
    int mult = 0, bonus = 0;
    if (!declarers_side(b, r, last_winner) && kitty_pts) {
        mult = kitty_mult(b, &r->ctx, lead_cnt);
        bonus = kitty_pts * mult;
    }
    int total = opp_won + bonus + r->penalty, u = 20 * b->decks;
    int side_decl, lv;
    if (total < 0)
        side_decl = 1, lv = 4 + (-total) / u;
    else if (total == 0)
        side_decl = 1, lv = 3;
    else if (total < u)
        side_decl = 1, lv = 2;
    else if (total < 2 * u)
        side_decl = 1, lv = 1;
    else if (total < 3 * u)
        side_decl = 0, lv = 0;
    else if (total < 4 * u)
        side_decl = 0, lv = 1;
    else if (total < 5 * u)
        side_decl = 0, lv = 2;
    else
        side_decl = 0, lv = 3 + (total - 5 * u) / u;
    int hook = 0;
    if (b->jack_hook && !declarers_side(b, r, last_winner) && (r->level == 8 || r->level == 11)
            && nwin == 1 && (win[0] >> 2) == r->level)
        hook = 1;
    for (int s = 0; s < n; s++) {
        int mine = declarers_side(b, r, s) == side_decl;
        r->levels_after[s] = mine ? next_level(b, b->start_level, lv) : b->start_level;
    }
    if (hook)
        for (int s = 0; s < n; s++)
            if (declarers_side(b, r, s))
                r->levels_after[s] = r->level == 8 ? 12 : 8;
    r->side_decl = side_decl;
    r->change_levels = lv;
    r->total = total;
    r->won_opp = opp_won;
    r->kitty_pts = kitty_pts;
    r->mult = mult;
    r->hook = hook;
    r->last_winner = last_winner;
    memcpy(r->last_win, win, (size_t)nwin);
    r->nlast_win = nwin;
    r->over = 1;
    r->phase = PH_OVER;
    r->to_act = -1;
}

/* rewards_of: the levels the seat's side goes up, or minus those the other side goes up */
static void
hand_rewards(const Batch *b, const Row *r, double *out)
{
    double lv = (double)r->change_levels;
    for (int s = 0; s < b->players; s++)
        out[s] = (declarers_side(b, r, s) == r->side_decl) ? lv : -lv;
}

/* _end_trick; 0, or -1 where the core gave up on the trick's winner */
static int
end_trick(const Batch *b, Row *r)
{
    int n = b->players;
    int tc[MAXP][NCARD];
    for (int p = 0; p < n; p++)
        counts_of(r->trick_cards[p], r->trick_n[p], tc[p]);
    int w = sj_trick_winner(&r->ctx, n, (const int (*)[NCARD])tc,
                            (const unsigned char (*)[MAXH])r->trick_cards, r->trick_n);
    if (w < 0)
        return -1;
    int winner = r->trick_seat[w], pts = 0;
    for (int p = 0; p < n; p++)
        for (int i = 0; i < r->trick_n[p]; i++) {
            pts += card_points(r->trick_cards[p][i]);
            r->played[r->trick_cards[p][i]]++;
        }
    r->won[winner] += pts;
    r->ntrick = 0;
    int left = 0;
    for (int s = 0; s < n; s++)
        left += r->nhand[s];
    if (left) {
        r->to_act = winner;
        return 0;
    }
    end_hand(b, r, winner, tc[0], r->trick_cards[w], r->trick_n[w]);
    return 0;
}

/* _after_kitty, _begin_play */
static void
after_kitty(const Batch *b, Row *r)
{
    r->phase = b->friends ? PH_CALL : PH_PLAY;
    r->to_act = r->declarer;
}

/* _next_thief: the next seat of the theft round with a bid to make, else the play */
static void
next_thief(const Batch *b, Row *r)
{
    while (r->theft_at > 0 && r->theft_at < b->players) {
        int s = (r->theft_base + r->theft_at++) % b->players;
        if (has_bid(r, s)) {
            r->to_act = s;
            return;
        }
    }
    r->theft_at = -1;
    after_kitty(b, r);
}

/* ShengJiGame._do for a move of ``kind`` and its cards; 0, or -1 (the trick's winner) */
static int
apply_move(const Batch *b, Row *r, int kind, const unsigned char *mc, int nm)
{
    int seat = r->to_act, n = b->players;
    r->listed = 0;
    if (r->phase == PH_DEAL) {
        if (kind == E_BID) {
            r->bid_seat = seat;
            r->bid_card = mc[0];
            r->bid_count = nm;
        }
        advance_deal(b, r);
        return 0;
    }
    if (r->phase == PH_BURY && r->theft_at >= 0) {     /* kitty theft: pass or overcall */
        if (kind == E_BID) {
            r->bid_seat = seat;
            r->bid_card = mc[0];
            r->bid_count = nm;
            r->trump_suit = mc[0] >= BJ ? -1 : mc[0] & 3;
            sj_ctx_make(&r->ctx, r->level, r->trump_suit, b->red5);
            memcpy(r->kitty, r->buried, (size_t)r->nburied);   /* the cards buried */
            r->nkitty = r->nburied;
            r->theft_at = -1;
            give_kitty(r, seat);
            return 0;
        }
        next_thief(b, r);
        return 0;
    }
    if (r->phase == PH_BURY) {
        int c = mc[0];
        r->hand[seat][c]--;
        r->nhand[seat]--;
        r->buried[r->nburied++] = (unsigned char)c;
        if (r->nburied < b->kitty)
            return 0;
        memcpy(r->kitty, r->buried, (size_t)r->nburied);    /* sorted where it matters */
        r->nkitty = r->nburied;
        if (b->kitty_theft) {               /* the others, in turn from the burier's left */
            r->theft_base = seat;
            r->theft_at = 1;
            next_thief(b, r);
            return 0;
        }
        after_kitty(b, r);
        return 0;
    }
    if (r->phase == PH_CALL) {
        r->call_card[r->ncalls] = mc[0];
        r->call_ord[r->ncalls++] = mc[1];
        if (r->ncalls >= b->friends)
            r->phase = PH_PLAY;
        return 0;
    }
    const Ctx *t = &r->ctx;
    unsigned char cards[MAXH];
    int nc = 0;
    if (kind == E_THROW) {
        r->pending[r->npending++] = mc[0];
        r->pend_cnt[mc[0]]++;
        return 0;
    }
    if (kind == E_PICK) {
        r->pending[r->npending++] = mc[0];
        r->pend_cnt[mc[0]]++;
        int nl = r->trick_n[0], suit = t->eff[r->trick_cards[0][0]], mine = 0;
        for (int c = 0; c < NCARD; c++)
            if (t->eff[c] == suit)
                mine += r->hand[seat][c];
        if (mine > nl) {
            if (r->npending < nl)
                return 0;
            memcpy(cards, r->pending, (size_t)r->npending);
            nc = r->npending;
        } else {
            if (r->npending + mine < nl)
                return 0;
            for (int c = 0; c < NCARD; c++)
                if (t->eff[c] == suit)
                    for (int k = 0; k < r->hand[seat][c]; k++)
                        cards[nc++] = (unsigned char)c;
            memcpy(cards + nc, r->pending, (size_t)r->npending);
            nc += r->npending;
        }
    } else {                                /* commit, or a whole play */
        memcpy(cards, r->pending, (size_t)r->npending);
        nc = r->npending;
        if (kind == E_PLAY) {
            memcpy(cards + nc, mc, (size_t)nm);
            nc += nm;
        }
    }
    r->npending = 0;
    memset(r->pend_cnt, 0, sizeof r->pend_cnt);
    sort_codes(cards, nc);
    int cnt[NCARD] = {0};
    for (int i = 0; i < nc; i++)
        cnt[cards[i]]++;
    if (r->ntrick == 0) {                   /* _lead: a throw checked */
        SUnit units[MAXU];
        int nu = sj_decompose(t, cnt, units);
        if (nu > 1) {
            int others[MAXP][NCARD], no = 0;
            for (int s = 0; s < n; s++)
                if (s != seat)
                    widen(r->hand[s], others[no++]);
            int f = sj_throw_check(t, units, nu, t->eff[cards[0]],
                                   (const int (*)[NCARD])others, no);
            if (f >= 0) {
                if (b->throw_penalty)
                    r->penalty += declarers_side(b, r, seat) ? b->throw_penalty
                                                               : -b->throw_penalty;
                nc = units[f].n;
                memcpy(cards, units[f].cards, (size_t)nc);
                memset(cnt, 0, sizeof cnt);
                for (int i = 0; i < nc; i++)
                    cnt[cards[i]]++;
            }
        }
    }
    for (int c = 0; c < NCARD; c++)
        r->hand[seat][c] -= cnt[c];
    r->nhand[seat] -= nc;
    int p = r->ntrick++;
    r->trick_seat[p] = seat;
    r->trick_n[p] = nc;
    memcpy(r->trick_cards[p], cards, (size_t)nc);
    if (b->friends)                         /* _note_friends */
        for (int i = 0; i < nc; i++) {
            int c = cards[i];
            r->seen[c]++;
            for (int j = 0; j < r->ncalls; j++)
                if (r->call_card[j] == c && r->call_ord[j] == r->seen[c]
                        && !(r->call_done >> j & 1)) {
                    r->call_done |= 1 << j;
                    if (seat != r->declarer && !(r->friend_mask >> seat & 1)) {
                        r->friend_mask |= 1u << seat;
                        r->friends[r->nfriends++] = seat;
                    }
                }
        }
    if (r->ntrick < n) {
        r->to_act = (seat + 1) % n;
        return 0;
    }
    return end_trick(b, r);
}

/* ------------------------------------------------------------------------ the listing */
static int
add(Sink *s, int kind, const unsigned char *cards, int n)
{
    return sj_sink_add(s, kind, cards, n);
}

/* ShengJiGame._list_moves into the scratch sink, in the game's order; the kinds are the env's
   (E_*). 0, or -1 without memory */
static int
list_moves(const Batch *b, const Row *r, Sink *s)
{
    s->n = 0;
    s->pool_n = 0;
    int seat = r->to_act;
    int hand[NCARD];
    widen(r->hand[seat], hand);
    if (r->phase == PH_DEAL || (r->phase == PH_BURY && r->theft_at >= 0)) {
        if (add(s, E_PASS, NULL, 0) < 0)
            return -1;
        int lv = r->level;
        int cands[6] = {lv * 4, lv * 4 + 1, lv * 4 + 2, lv * 4 + 3, BJ, RJ};
        int cur_tier = r->bid_card == RJ ? 2 : r->bid_card == BJ ? 1 : 0;
        unsigned char same[MAXH];
        for (int i = 0; i < 6; i++) {
            int c = cands[i], tier = c == RJ ? 2 : c == BJ ? 1 : 0;
            for (int k = i < 4 ? 1 : 2; k <= hand[c]; k++) {
                int legal = r->bid_card < 0 ? 1
                            : r->bid_seat == seat ? c == r->bid_card && k > r->bid_count
                            : k > r->bid_count || (k == r->bid_count && tier > cur_tier);
                if (!legal)
                    continue;
                memset(same, c, (size_t)k);
                if (add(s, E_BID, same, k) < 0)
                    return -1;
            }
        }
        return 0;
    }
    const Ctx *t = &r->ctx;
    unsigned char buf[NCARD];
    int nb = 0;
    if (r->phase == PH_CALL) {                          /* _callable */
        for (int c = 0; c < BJ; c++)
            if (t->eff[c] != TRUMP)
                for (int o = 1; o <= b->decks; o++) {
                    unsigned char item[2] = {(unsigned char)c, (unsigned char)o};
                    if (add(s, E_CALL, item, 2) < 0)
                        return -1;
                }
        return 0;
    }
    if (r->phase == PH_BURY) {
        for (int c = 0; c < NCARD; c++)
            if (hand[c])
                buf[nb++] = (unsigned char)c;
        sj_sort_by_key(t, buf, nb);
        for (int i = 0; i < nb; i++)
            if (add(s, E_BURY, &buf[i], 1) < 0)
                return -1;
        return 0;
    }
    if (r->ntrick == 0) {                               /* leading */
        if (r->npending) {                              /* a throw being built */
            if (add(s, E_COMMIT, NULL, 0) < 0)
                return -1;
            int suit = t->eff[r->pending[0]];
            for (int c = 0; c < NCARD; c++)
                if (hand[c] - r->pend_cnt[c] > 0 && t->eff[c] == suit)
                    buf[nb++] = (unsigned char)c;
        } else {
            if (sj_lead_units(t, hand, b->decks, s) < 0)
                return -1;
            for (Py_ssize_t i = 0; i < s->n; i++)
                s->kind[i] = E_PLAY;
            for (int c = 0; c < NCARD; c++)
                if (hand[c])
                    buf[nb++] = (unsigned char)c;
        }
        sj_sort_by_key(t, buf, nb);
        for (int i = 0; i < nb; i++)
            if (add(s, E_THROW, &buf[i], 1) < 0)
                return -1;
        return 0;
    }
    SUnit units[MAXU];
    int nl = r->trick_n[0];
    int lead[NCARD];
    counts_of(r->trick_cards[0], nl, lead);
    int nu = sj_decompose(t, lead, units);
    if (nu <= 0)
        return -1;
    if (!r->npending) {
        int rc = sj_follows(t, hand, lead, nl, units, nu, FOLLOW_LIMIT, s);
        if (rc < 0)
            return -1;
        if (rc == 1) {
            for (Py_ssize_t i = 0; i < s->n; i++)
                s->kind[i] = E_PLAY;
            return 0;
        }
        s->n = 0;                                       /* too many: card by card */
        s->pool_n = 0;
    }
    nb = sj_next_cards(t, hand, lead, nl, units, nu, r->pend_cnt, buf);
    sj_sort_by_key(t, buf, nb);
    for (int i = 0; i < nb; i++)
        if (add(s, E_PICK, &buf[i], 1) < 0)
            return -1;
    return 0;
}

/* move_key's order: kind, number of cards, the cards (sorted codes) */
static _Thread_local const Row *cmp_row;

static int
cand_cmp(const void *pa, const void *pb)
{
    const Cand *a = pa, *b = pb;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    return memcmp(cmp_row->pool + a->off, cmp_row->pool + b->off, a->n);
}

/* the candidates of the decision now, in the env's order, and page 0 (aec._new_pager) */
static int
make_decision(const Batch *b, Row *r, Scratch *sc)
{
    Sink *s = &sc->sink;
    if (list_moves(b, r, s) < 0)
        return -1;
    int n = (int)s->n;
    if (n > r->cap) {
        int cap = r->cap ? r->cap : 64;
        while (cap < n)
            cap *= 2;
        Cand *c = realloc(r->cand, (size_t)cap * sizeof(Cand));
        if (c == NULL)
            return -1;
        r->cand = c;
        r->cap = cap;
    }
    if (s->pool_n > r->pool_cap) {
        int cap = r->pool_cap ? r->pool_cap : 1024;
        while (cap < s->pool_n)
            cap *= 2;
        unsigned char *p = realloc(r->pool, (size_t)cap);
        if (p == NULL)
            return -1;
        r->pool = p;
        r->pool_cap = cap;
    }
    memcpy(r->pool, s->pool, (size_t)s->pool_n);
    for (int j = 0; j < n; j++) {
        r->cand[j].kind = s->kind[j];
        r->cand[j].n = (unsigned char)s->len[j];
        r->cand[j].off = (int)s->off[j];
        if (s->kind[j] != E_CALL)                       /* a call: its card, its ordinal */
            sort_codes(r->pool + s->off[j], s->len[j]);
    }
    cmp_row = r;
    if (n <= 24) {                                      /* insertion sort */
        for (int i = 1; i < n; i++) {
            Cand k = r->cand[i];
            int j = i - 1;
            while (j >= 0 && cand_cmp(&r->cand[j], &k) > 0) {
                r->cand[j + 1] = r->cand[j];
                j--;
            }
            r->cand[j + 1] = k;
        }
    } else {
        qsort(r->cand, (size_t)n, sizeof(Cand), cand_cmp);
    }
    r->ncand = n;
    r->page = 0;
    if (n <= b->k) {
        r->per_page = b->k;
        r->pages = 1;
    } else {
        r->per_page = b->k - 1;
        r->pages = (n + b->k - 2) / (b->k - 1);
    }
    r->listed = 1;
    return 0;
}

/* ------------------------------------------------------------------- the observation */
static inline void
put(unsigned char *o, int at, int v)
{
    o[at] = (unsigned char)(v < 0 ? 0 : v > 127 ? 127 : v);
}

/* ShengJiEncoder.encode_bytes of ``seat``'s view (with its decision when ``decision``) into
   row i of the observations, and its mask */
static void
observe(const Batch *b, Row *r, int i, int seat, int decision)
{
    unsigned char *o = (unsigned char *)b->obs.buf + (size_t)i * b->obs_size;
    int n = b->players;
    memset(o, 0, (size_t)b->o_cand);
    if (r->used)
        memset(o + b->o_cand, 0, (size_t)r->used * b->width);
    for (int c = 0; c < NCARD; c++) {
        o[b->o_hand + c] = (unsigned char)r->hand[seat][c];
        o[b->o_played + c] = (unsigned char)r->played[c];
    }
    for (int p = 0; p < r->ntrick; p++) {
        for (int j = 0; j < r->trick_n[p]; j++) {
            int c = r->trick_cards[p][j];
            o[b->o_played + c]++;
            o[b->o_trick + c]++;
            if (p == 0)
                o[b->o_lead + c]++;
        }
        put(o, b->o_trick_order + (r->trick_seat[p] - seat + n) % n, p + 1);
    }
    if (seat == r->to_act)
        for (int j = 0; j < r->npending; j++)
            o[b->o_pending + r->pending[j]]++;
    if (seat == r->kitty_owner && (r->phase == PH_BURY || r->phase == PH_CALL
                                   || r->phase == PH_PLAY))
        for (int j = 0; j < r->nburied; j++)
            o[b->o_buried + r->buried[j]]++;
    if (r->bid_card >= 0) {
        o[b->o_bid_cards + r->bid_card] = (unsigned char)r->bid_count;
        o[b->o_bidder + (r->bid_seat - seat + n) % n] = 1;
    }
    for (int s = 0; s < n; s++)
        put(o, b->o_counts + (s - seat + n) % n, r->nhand[s]);
    int opp = 0;
    if (r->declarer >= 0) {
        o[b->o_declarer + (r->declarer - seat + n) % n] = 1;
        for (int s = 0; s < n; s++)
            if (!declarers_side(b, r, s))
                opp += r->won[s];
    }
    for (int j = 0; j < r->nfriends; j++)
        o[b->o_friends + (r->friends[j] - seat + n) % n] = 1;
    if (b->friends)                         /* no fixed teams: the seat itself */
        o[b->o_partners] = 1;
    for (int s = 0; s < n; s++) {
        if (!b->friends && (s & 1) == (seat & 1))
            o[b->o_partners + (s - seat + n) % n] = 1;
        put(o, b->o_points_won + (s - seat + n) % n, r->won[s] / 5);
        put(o, b->o_levels + (s - seat + n) % n,
            sj_index(r->over ? r->levels_after[s] : b->start_level));
    }
    o[b->o_level + sj_index(r->level)] = 1;
    if (r->has_trump)                       /* the suit, or 4: no trump */
        o[b->o_trump_suit + (r->trump_suit < 0 ? 4 : r->trump_suit)] = 1;
    o[b->o_phase + r->phase] = 1;
    put(o, b->o_opp_points, opp / 5);
    put(o, b->o_penalty, r->penalty < 0 ? 0 : r->penalty / 5);
    unsigned char *mask = (unsigned char *)b->mask.buf + (size_t)i * b->k;
    memset(mask, 0, (size_t)b->k);
    r->used = 0;
    if (!decision)
        return;
    o[b->o_page] = (unsigned char)(r->page < 127 ? r->page : 127);
    o[b->o_page + 1] = (unsigned char)(r->pages < 127 ? r->pages : 127);
    int start = r->page * r->per_page;
    int stop = start + r->per_page < r->ncand ? start + r->per_page : r->ncand;
    unsigned char *row = o + b->o_cand;
    for (int j = start; j < stop; j++, row += b->width) {
        const Cand *c = &r->cand[j];
        const unsigned char *cc = r->pool + c->off;
        row[NCARD + c->kind] = 1;
        if (c->kind == E_CALL) {            /* the card, and the ordinal in "extra" */
            row[cc[0]] = 1;
            row[NCARD + E_NKINDS] = cc[1];
            continue;
        }
        for (int x = 0; x < c->n; x++)
            row[cc[x]]++;
    }
    memset(mask, 1, (size_t)(stop - start));
    r->used = stop - start;
    if (r->pages > 1) {
        o[b->o_cand + (b->k - 1) * b->width + NCARD + E_MORE] = 1;
        mask[b->k - 1] = 1;
        r->used = b->k;
    }
}

/* ------------------------------------------------------------------------- stepping */
static inline int
legal(const Row *r, int k, int64_t a)
{
    if (r->pages > 1) {
        if (a == k - 1)
            return 1;
        int start = r->page * r->per_page;
        int len = r->ncand - start < r->per_page ? r->ncand - start : r->per_page;
        return a >= 0 && a < len;
    }
    return a >= 0 && a < r->ncand;
}

/* the random opponents of the single-agent mode, until the learner acts or the hand ends */
static int
play_bots(const Batch *b, Row *r, Scratch *sc)
{
    Sink *s = &sc->sink;
    while (!r->over && r->to_act != b->seat) {
        if (list_moves(b, r, s) < 0)
            return -1;
        if (s->n == 0)
            return -1;
        Py_ssize_t j = mt_below(BOT(r, r->to_act), (uint32_t)s->n);
        unsigned char mc[MAXH];
        int nm = s->len[j];
        memcpy(mc, s->pool + s->off[j], (size_t)nm);
        if (apply_move(b, r, s->kind[j], mc, nm) < 0)
            return -1;
    }
    return 0;
}

static int
play_id(const Batch *b, Row *r, int64_t a)
{
    if (r->pages > 1 && a == b->k - 1) {
        r->page = (r->page + 1) % r->pages;
        return 0;
    }
    const Cand *c = &r->cand[r->page * r->per_page + a];
    unsigned char mc[MAXH];
    memcpy(mc, r->pool + c->off, c->n);
    return apply_move(b, r, c->kind, mc, c->n);
}

/* BatchSim.step for row i (every seat: the seat to act observes) */
static int
step_aec(Batch *b, int i, int64_t a, Scratch *sc)
{
    Row *r = &b->rows[i];
    double *rew = (double *)b->reward.buf + (size_t)i * b->players;
    char *term = (char *)b->term.buf + i, *trunc = (char *)b->trunc.buf + i;
    for (int s = 0; s < b->players; s++)
        rew[s] = 0;
    *term = *trunc = 0;
    r->steps++;
    if (play_id(b, r, a) < 0)
        return -1;
    if (r->over) {
        hand_rewards(b, r, rew);
        *term = 1;
        aec_next_hand(b, r);
    }
    if (b->max_steps > 0 && r->steps >= b->max_steps) {
        *term = *trunc = 1;
        aec_next_hand(b, r);
    }
    if (!r->listed && make_decision(b, r, sc) < 0)
        return -1;
    ((int64_t *)b->seat_buf.buf)[i] = r->to_act;
    observe(b, r, i, r->to_act, 1);
    return 0;
}

static int
observe_single(Batch *b, Row *r, int i, Scratch *sc)
{
    int deciding = !r->over && r->to_act == b->seat;
    if (deciding && !r->listed && make_decision(b, r, sc) < 0)
        return -1;
    observe(b, r, i, b->seat, deciding);
    return 0;
}

/* ShengJiVectorEnv.step for row i: SingleAgentEnv._advance, or the next-step autoreset */
static int
step_single(Batch *b, int i, int64_t a, Scratch *sc)
{
    Row *r = &b->rows[i];
    double *rew = (double *)b->reward.buf + i;
    char *term = (char *)b->term.buf + i, *trunc = (char *)b->trunc.buf + i;
    char *ill = (char *)b->illegal.buf + i;
    *rew = 0;
    *term = *trunc = *ill = 0;
    if (r->autoreset) {
        single_restart(b, r);
        if (play_bots(b, r, sc) < 0)
            return -1;
        return observe_single(b, r, i, sc);
    }
    if (!legal(r, b->k, a)) {
        *rew = b->illegal_reward;
        *term = *ill = 1;
        r->autoreset = 1;
        return observe_single(b, r, i, sc);
    }
    r->steps++;
    if (play_id(b, r, a) < 0 || play_bots(b, r, sc) < 0)
        return -1;
    if (r->over) {
        double pts[MAXP];
        hand_rewards(b, r, pts);
        *rew = pts[b->seat];
        *term = 1;
        r->autoreset = 1;
    } else if (b->max_steps > 0 && r->steps >= b->max_steps) {
        *trunc = 1;
        r->autoreset = 1;
    }
    return observe_single(b, r, i, sc);
}

static void
run_rows(void *owner, int lo, int hi, void *scratch)
{
    Batch *b = owner;
    for (int i = lo; i < hi; i++) {
        Row *r = &b->rows[i];
        int rc = b->single ? step_single(b, i, b->actions[i], scratch)
                           : step_aec(b, i, b->actions[i], scratch);
        if (rc < 0)
            r->error = 1;
    }
}

/* ------------------------------------------------------------------------ Python */
static void *
scratch_new(void)
{
    Scratch *sc = PyMem_RawCalloc(1, sizeof(Scratch));
    if (sc == NULL)
        return NULL;
    /* its own buffers (PyMem_Raw: they grow without the GIL where a listing needs it) */
    sc->sink.cap = 1024;
    sc->sink.pool_cap = 1 << 16;
    sc->sink.kind = PyMem_RawMalloc((size_t)sc->sink.cap);
    sc->sink.off = PyMem_RawMalloc((size_t)sc->sink.cap * sizeof(Py_ssize_t));
    sc->sink.len = PyMem_RawMalloc((size_t)sc->sink.cap * sizeof(int));
    sc->sink.pool = PyMem_RawMalloc((size_t)sc->sink.pool_cap);
    if (sc->sink.kind == NULL || sc->sink.off == NULL || sc->sink.len == NULL
            || sc->sink.pool == NULL) {
        sj_sink_free(&sc->sink);
        PyMem_RawFree(sc);
        return NULL;
    }
    return sc;
}

static void
scratch_free(void *scratch)
{
    Scratch *sc = scratch;
    sj_sink_free(&sc->sink);
    PyMem_RawFree(sc);
}

static void
batch_dealloc(Batch *b)
{
    batch_pool_free(&b->pool);
    if (b->rows != NULL) {
        for (int i = 0; i < b->n_envs; i++) {
            free(b->rows[i].cand);
            free(b->rows[i].pool);
        }
        PyMem_RawFree(b->rows);
    }
    PyMem_RawFree(b->mts);
    if (b->have_bufs) {
        Py_buffer *bufs[7] = {&b->obs, &b->mask, &b->reward, &b->term, &b->trunc,
                              &b->seat_buf, &b->illegal};
        for (int j = 0; j < 7; j++)
            if (bufs[j]->obj != NULL)
                PyBuffer_Release(bufs[j]);
    }
    Py_TYPE(b)->tp_free((PyObject *)b);
}

/* Batch(n_envs, players, k, layout, arrays, single, seat, max_steps, strict, illegal_reward,
         threads, rules): ``layout`` the observation's offsets (env/batch_engine.py),
   ``rules`` (decks, kitty, start_level, red_five, throw_penalty, no_bid, linear, jack_hook,
   must_play, friends, kitty_theft) as numbers */
static PyObject *
batch_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    int n_envs, players, k, single, seat, strict, threads;
    long max_steps;
    double illegal_reward;
    PyObject *layout, *arrays, *rules;
    if (!PyArg_ParseTuple(args, "iiiOOiilpdiO", &n_envs, &players, &k, &layout, &arrays,
                          &single, &seat, &max_steps, &strict, &illegal_reward, &threads,
                          &rules))
        return NULL;
    if (n_envs < 1 || players < 2 || players > MAXP || k < 2
            || (single && (seat < 0 || seat >= players)) || max_steps < 0) {
        PyErr_SetString(PyExc_ValueError, "Batch: bad arguments");
        return NULL;
    }
    mt_prepare();
    Batch *b = (Batch *)type->tp_alloc(type, 0);
    if (b == NULL)
        return NULL;
    b->n_envs = n_envs;
    b->players = players;
    b->k = k;
    b->single = single;
    b->seat = seat;
    b->max_steps = max_steps;
    b->strict = strict;
    b->illegal_reward = illegal_reward;
    int *rf[11] = {&b->decks, &b->kitty, &b->start_level, &b->red5, &b->throw_penalty,
                   &b->no_bid, &b->linear, &b->jack_hook, &b->must_play, &b->friends,
                   &b->kitty_theft};
    if (!PyTuple_Check(rules) || PyTuple_GET_SIZE(rules) != 11)
        goto bad;
    for (int j = 0; j < 11; j++) {
        long v = PyLong_AsLong(PyTuple_GET_ITEM(rules, j));
        if (v < 0 || v > (1L << 20))
            goto bad;
        *rf[j] = (int)v;
    }
    if (b->decks < 1 || b->decks > 4 || b->kitty > MAXH || b->start_level > 12 || b->red5 > 2
            || b->no_bid > 2 || b->friends >= MAXCALLS || (!b->friends && players % 2)
            || (NCARD * b->decks - b->kitty) % players
            || (NCARD * b->decks - b->kitty) / players + b->kitty > MAXH)
        goto bad;
    int *fields[23] = {&b->o_hand, &b->o_played, &b->o_trick, &b->o_lead, &b->o_pending,
                       &b->o_buried, &b->o_bid_cards, &b->o_counts, &b->o_trick_order,
                       &b->o_declarer, &b->o_bidder, &b->o_friends, &b->o_partners,
                       &b->o_points_won, &b->o_levels, &b->o_level, &b->o_trump_suit,
                       &b->o_phase, &b->o_opp_points, &b->o_penalty, &b->o_page, &b->o_cand,
                       &b->width};
    if (!PyTuple_Check(layout) || PyTuple_GET_SIZE(layout) != 24)
        goto bad;
    for (int j = 0; j < 23; j++) {
        long v = PyLong_AsLong(PyTuple_GET_ITEM(layout, j));
        if (v < 0 || v > (1L << 30))
            goto bad;
        *fields[j] = (int)v;
    }
    long size = PyLong_AsLong(PyTuple_GET_ITEM(layout, 23));
    if (size < 1 || size > (1L << 30) || b->width < NCARD + E_NKINDS
            || b->o_cand + (long)k * b->width != size)
        goto bad;
    b->obs_size = (int)size;
    {
        if (!PyTuple_Check(arrays) || PyTuple_GET_SIZE(arrays) != 7)
            goto bad;
        Py_ssize_t nr = single ? 1 : players;
        Py_ssize_t sizes[7] = {(Py_ssize_t)n_envs * size, (Py_ssize_t)n_envs * k,
                               (Py_ssize_t)n_envs * nr * 8, n_envs, n_envs, n_envs * 8,
                               n_envs};
        const char *names[7] = {"obs", "mask", "rewards", "terminated", "truncated", "seats",
                                "illegal"};
        Py_buffer *bufs[7] = {&b->obs, &b->mask, &b->reward, &b->term, &b->trunc,
                              &b->seat_buf, &b->illegal};
        b->have_bufs = 1;
        for (int j = 0; j < 7; j++)
            if (batch_get_buf(PyTuple_GET_ITEM(arrays, j), bufs[j], sizes[j], names[j]) < 0)
                goto fail;
    }
    b->rows = PyMem_RawCalloc((size_t)n_envs, sizeof(Row));
    int per_row = 2 + (single ? players : 0);
    b->mts = PyMem_RawCalloc((size_t)n_envs * per_row, sizeof(MT));
    if (b->rows == NULL || b->mts == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (int i = 0; i < n_envs; i++)
        b->rows[i].m = b->mts + (size_t)i * per_row;
    b->pool.owner = b;
    b->pool.run = run_rows;
    b->pool.make_scratch = scratch_new;
    b->pool.free_scratch = scratch_free;
    if (batch_pool_init(&b->pool, n_envs, threads) < 0)
        goto fail;
    return (PyObject *)b;
bad:
    if (!PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "Batch: bad rules or layout");
fail:
    Py_DECREF(b);
    return NULL;
}

BATCH_COMMON_METHODS(Batch)

/* a row that failed (no memory, or a trick whose winner the core gave up on): an error */
static PyObject *
batch_error(Batch *b)
{
    for (int i = 0; i < b->n_envs; i++)
        if (b->rows[i].error) {
            b->rows[i].error = 0;
            PyErr_Format(PyExc_MemoryError, "game %d: no memory for its candidates (or a "
                         "trick whose winner the core gave up on)", i);
            return NULL;
        }
    return NULL;
}

static int
any_error(Batch *b)
{
    for (int i = 0; i < b->n_envs; i++)
        if (b->rows[i].error)
            return 1;
    return 0;
}

/* reset(seeds, rows): as the climbing engine's */
static PyObject *
batch_reset(Batch *b, PyObject *const *args, Py_ssize_t nargs)
{
    if (refuse_busy(b))
        return NULL;
    if (nargs != 2 || !PyList_Check(args[0]) || !PyList_Check(args[1])
            || PyList_GET_SIZE(args[0]) != PyList_GET_SIZE(args[1])) {
        PyErr_SetString(PyExc_TypeError, "reset(seeds: list, rows: list)");
        return NULL;
    }
    Scratch *sc = b->pool.scratch[0];
    Py_ssize_t m = PyList_GET_SIZE(args[0]);
    for (Py_ssize_t j = 0; j < m; j++) {
        long i = PyLong_AsLong(PyList_GET_ITEM(args[1], j));
        if (i == -1 && PyErr_Occurred())
            return NULL;
        PyObject *so = PyList_GET_ITEM(args[0], j);
        unsigned long long seed = 0;
        if (so != Py_None) {
            seed = PyLong_AsUnsignedLongLong(so);
            if (seed == (unsigned long long)-1 && PyErr_Occurred())
                return NULL;
        }
        if (i < 0 || i >= b->n_envs) {
            PyErr_SetString(PyExc_IndexError, "reset: no such row");
            return NULL;
        }
        Row *r = &b->rows[i];
        if (so != Py_None)
            mt_seed(SEEDER(r), seed);
        int rc;
        if (b->single) {
            single_restart(b, r);
            rc = play_bots(b, r, sc);
            if (rc == 0)
                rc = observe_single(b, r, (int)i, sc);
            ((double *)b->reward.buf)[i] = 0;
            ((char *)b->illegal.buf)[i] = 0;
        } else {
            aec_next_hand(b, r);
            rc = make_decision(b, r, sc);
            if (rc == 0) {
                ((int64_t *)b->seat_buf.buf)[i] = r->to_act;
                observe(b, r, (int)i, r->to_act, 1);
            }
            for (int s = 0; s < b->players; s++)
                ((double *)b->reward.buf)[i * b->players + s] = 0;
        }
        ((char *)b->term.buf)[i] = ((char *)b->trunc.buf)[i] = 0;
        if (rc < 0) {
            r->error = 1;
            return batch_error(b);
        }
    }
    Py_RETURN_NONE;
}

static PyObject *
batch_step(Batch *b, PyObject *arg)
{
    if (refuse_busy(b))
        return NULL;
    Py_buffer v;
    if (batch_get_actions(arg, &v, b->n_envs) < 0)
        return NULL;
    const int64_t *a = v.buf;
    if (!b->single || b->strict) {
        for (int i = 0; i < b->n_envs; i++) {
            const Row *r = &b->rows[i];
            if (b->single && r->autoreset)
                continue;
            if (!legal(r, b->k, a[i])) {
                PyBuffer_Release(&v);
                PyErr_Format(PyExc_ValueError, "illegal action %lld in game %d",
                             (long long)a[i], i);
                return NULL;
            }
        }
    }
    b->actions = a;
    b->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    batch_pool_run(&b->pool);
    Py_END_ALLOW_THREADS
    b->busy = 0;
    b->actions = NULL;
    PyBuffer_Release(&v);
    if (any_error(b))
        return batch_error(b);
    Py_RETURN_NONE;
}

/* hand(i) -> None while the hand goes on, else (declarer, trump suit or -1, opponents'
   points, kitty points, multiplier, penalty, total, side_declarers, levels, level, levels
   after, hook, kitty cards, steps, friends): what _end_hand's summary is made of
   (env/sheng_ji_batch.py) */
static PyObject *
batch_hand(Batch *b, PyObject *arg)
{
    if (refuse_busy(b))
        return NULL;
    long i = PyLong_AsLong(arg);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    if (i < 0 || i >= b->n_envs) {
        PyErr_SetString(PyExc_IndexError, "no such row");
        return NULL;
    }
    const Row *r = &b->rows[i];
    if (!r->over)
        Py_RETURN_NONE;
    PyObject *after = PyList_New(b->players), *kitty = PyList_New(r->nkitty);
    PyObject *friends = PyList_New(r->nfriends);
    if (after == NULL || kitty == NULL || friends == NULL) {
        Py_XDECREF(after);
        Py_XDECREF(kitty);
        Py_XDECREF(friends);
        return NULL;
    }
    for (int j = 0; j < r->nfriends; j++)
        PyList_SET_ITEM(friends, j, PyLong_FromLong(r->friends[j]));
    for (int s = 0; s < b->players; s++)
        PyList_SET_ITEM(after, s, PyLong_FromLong(r->levels_after[s]));
    for (int j = 0; j < r->nkitty; j++)
        PyList_SET_ITEM(kitty, j, PyLong_FromLong(r->kitty[j]));
    return Py_BuildValue("(iiiiiiiiiiNiNlN)", r->declarer, r->trump_suit, r->won_opp,
                         r->kitty_pts, r->mult, r->penalty, r->total, r->side_decl,
                         r->change_levels, r->level, after, r->hook, kitty, r->steps,
                         friends);
}

static PyObject *
batch_take_escaped(Batch *b, PyObject *unused)
{
    return PyList_New(0);           /* every decision is played in C */
}

static PyMethodDef batch_methods[] = {
    {"reset", (PyCFunction)(void (*)(void))batch_reset, METH_FASTCALL,
     "reset(seeds, rows): the rows restarted from their seeds."},
    {"step", (PyCFunction)batch_step, METH_O, "step(actions): one id per row (int64)."},
    {"random_actions", (PyCFunction)batch_random_actions, METH_O,
     "random_actions(out): a uniformly random legal id per row into ``out`` (int64)."},
    {"seed_actions", (PyCFunction)batch_seed_actions, METH_O,
     "seed_actions(seed): seed random_actions' generator."},
    {"set_threads", (PyCFunction)batch_set_threads, METH_O,
     "set_threads(n): step the rows on n threads (the caller's and n - 1 workers)."},
    {"hand", (PyCFunction)batch_hand, METH_O,
     "hand(i): the scoring of row i's finished hand, or None."},
    {"take_escaped", (PyCFunction)batch_take_escaped, METH_NOARGS,
     "take_escaped(): always [] (no row is handed to Python)."},
    {NULL, NULL, 0, NULL}
};

PyTypeObject sj_batch_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "shangyou.games.sheng_ji._core.Batch",
    .tp_basicsize = sizeof(Batch),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "N hands of a Sheng ji preset stepped in one call (env/batch_engine.py).",
    .tp_new = batch_new,
    .tp_dealloc = (destructor)batch_dealloc,
    .tp_methods = batch_methods,
};
