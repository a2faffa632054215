/* The rules of one Sheng ji hand on a row: its state (SjRow: the deal, the bids, the bury,
   the calls, the tricks, the end of the hand), the rules it is played by (SjRules) and the
   steps: the deal from a game seed, the legal moves in the game's order, a move applied, the
   rewards. The batch engine (_core_batch.c) steps N rows with them; any C code of this core
   can play a hand with them alone:

       SjRules g = {...};  SjRow r = {0};  MT m[2];  r.m = m;
       sj_row_deal(&g, &r, seed);                   (r.to_act decides, r.over at the end)
       sj_row_list(&g, &r, sink);                   (the moves of r.to_act: kinds E_*, cards)
       sj_row_apply(&g, &r, sink->kind[j], cards, n);   (cards: a copy, not the sink's)

   The rules follow ShengJiGame (games/sheng_ji/game.py) for a single hand; _core_batch.c's
   docstring lists what is played. A row needs no Python object and no GIL: its generators
   (_mt.h) and the Sink's PyMem_Raw buffers are its only memory. */
#ifndef SHANGYOU_SHENG_JI_CORE_ROW_H
#define SHANGYOU_SHENG_JI_CORE_ROW_H

#include "_core.h"
#include "../_mt.h"
#include <stdint.h>

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
} SjRow;

#define SJ_SEEDER(r) (&(r)->m[0])
#define SJ_GAME(r) (&(r)->m[1])
#define SJ_BOT(r, s) (&(r)->m[2 + (s)])

/* the rules a row is played by (the preset's options, as numbers) */
typedef struct {
    int players;
    int decks, kitty, start_level, red5, throw_penalty, no_bid, linear, jack_hook;
    int must_play;              /* bit r: rank index r must be played */
    int friends;                /* Zhao Pengyou: friends to call (0: fixed teams by parity) */
    int kitty_theft;            /* 炒地皮: after a bury the others may overcall and bury again */
} SjRules;

#define NO_BID_KITTY 0
#define NO_BID_NONE 1
#define NO_BID_REDEAL 2

static inline int
sj_index(int rank)              /* order.SJ_RANK: 2 -> 0 .. A -> 12 */
{
    return (rank + 1) % 13;
}

static inline int
declarers_side(const SjRules *g, const SjRow *r, int seat)    /* team_of(seat) == "declarers" */
{
    if (g->friends)             /* Zhao Pengyou: the declarer and the friends shown so far */
        return seat == r->declarer || (r->friend_mask >> seat & 1);
    return (seat & 1) == (r->declarer & 1);               /* teams (0, 2, ..), (1, 3, ..) */
}

/* ShengJiGame(rules, seed, match=False): a new hand from ``game_seed`` (the row's m[1], the
   game's generator, seeded with it), up to the first decision */
void sj_row_deal(const SjRules *g, SjRow *r, uint32_t game_seed);
/* ShengJiGame._list_moves of the seat to act into ``s``, in the game's order; the kinds are
   the env's (E_*). 0, or -1 without memory */
int sj_row_list(const SjRules *g, const SjRow *r, Sink *s);
/* ShengJiGame._do for a move of ``kind`` and its cards (not in a sink the row lists into);
   0, or -1 where the core gave up on a trick's winner */
int sj_row_apply(const SjRules *g, SjRow *r, int kind, const unsigned char *mc, int nm);
/* rewards_of at the end of the hand: each seat's side's levels, plus or minus */
void sj_row_rewards(const SjRules *g, const SjRow *r, double *out);
/* sj_sort_codes (the n codes sorted in place) is declared in _core.h */

#endif
