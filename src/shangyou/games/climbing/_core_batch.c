/* The batch engine: N hands of a climbing preset stepped in one call, the observations,
   masks, rewards and flags written into arrays the caller gave, the GIL released and the rows
   split over a small pool of threads (env/batch_engine.py is its Python face, docs/env.md its
   description).

   It plays exactly what the Python environments play, which stay the reference
   (tests/test_batch_engine.py compares them row by row):

   - the deal of ClimbingGame._start_hand from the seeds of ShangyouAEC.reset (and, in the
     single-agent mode, of SingleAgentEnv._restart), with Python's Mersenne Twister
     (random.Random(int): init_by_array, getrandbits, _randbelow) of ../_batch_pool.h;
   - the legal plays from the core's own generators (pagat_generate, _core_pagat.c;
     core_owen_generate, _core_owen.c; core_winner_generate, _core_winner.c;
     core_zf_generate, _core_zf.c: the same code the game lists with), sorted into the
     environments' candidate order (env/encoding.py's sort_moves: the pass, then by number
     of cards and cards, plays of the same cards by reading, highest first) and cut into
     pages of K - 1 with MORE;
   - the play, the pass, the end of a trick and of the hand of ClimbingGame._do_play for a
     single hand (no exchange; Zheng Fen's finish_trick and card points), the dealer, a
     drawn card's holder or a named card's holder leading, the places scoring (2, 1), the
     cards-left and trick-points scorings and the team points of pagat-teams (score_hand's
     "teams6" with 6 players; env/aec.py's rewards_of);
   - the observation of ClimbingEncoder (env/climbing_encoding.py) byte for byte;
   - single-agent mode: the learner's seat against random opponents, each drawing
     random.Random(seed).choice(game.legal_moves()) from the listing in the generator's order
     (the pass first when following), as SingleAgentEnv plays RandomBot.

   A hand, a play and the cards played are held as a Bag: two 64-bit sets, the cards there
   at least once and those there twice (two packs: pagat and "winner"). With one pack the
   second set stays empty, gen_from_set gives the pagat generator its tables from the first
   and the candidates compare as sets. */

#include "_core.h"
#include "../_batch_pool.h"     /* the Mersenne Twister, the thread pool, the arrays */
#include <stdint.h>
#include <string.h>
#include <stdlib.h>

#define BATCH_LIMIT 4096        /* steps.LISTING_LIMIT: past it the env lists one per code;
                                   a scratch sink holds that many plays of N_CARDS cards each,
                                   and a play has at most 36 (two packs, three players) */
#define STEP_LIMIT 400          /* steps.STEP_LIMIT: past it legal_moves offers steps */
#define FAM_PAGAT 0
#define FAM_OWEN 1
#define FAM_WINNER 2
#define FAM_ZF 3

/* ------------------------------------------------------------------ cards as sets */
/* the cards of a hand, a play or a pile of one or two packs: ``one`` the cards there at least
   once, ``two`` those there twice (two packs; a subset of ``one``) */
typedef struct {
    uint64_t one, two;
} Bag;

static inline int
bag_eq(Bag x, Bag y)
{
    return x.one == y.one && x.two == y.two;
}

/* one more copy of card c */
static inline void
bag_put(Bag *x, int c)
{
    uint64_t m = 1ULL << c;
    x->two |= x->one & m;
    x->one |= m;
}

/* y's cards added to x (at most two copies of a card in all) */
static inline void
bag_add(Bag *x, Bag y)
{
    x->two |= y.two | (x->one & y.one);
    x->one |= y.one;
}

/* y's cards taken from x (x holds them) */
static inline void
bag_take(Bag *x, Bag y)
{
    uint64_t once = y.one & ~y.two;
    x->one &= ~(y.two | (once & ~x->two));
    x->two &= ~(y.two | once);
}

/* sorted tuples of as many cards compare at their first difference: the pile holding more
   copies of the lowest card whose copies differ is the lesser (one pack: the set holding the
   lowest card of the two sets' difference) */
static inline int
bag_less(Bag x, Bag y)
{
    uint64_t d = (x.one ^ y.one) | (x.two ^ y.two), low = d & -d;
    return ((x.one & low) != 0) + ((x.two & low) != 0)
           > ((y.one & low) != 0) + ((y.two & low) != 0);
}

/* the 54 counts of a pile, for the generators that take counts */
static inline void
bag_counts(Bag x, unsigned char *count)
{
    memset(count, 0, N_CARDS);
    for (uint64_t m = x.one; m; m &= m - 1)
        count[__builtin_ctzll(m)] = 1;
    for (uint64_t m = x.two; m; m &= m - 1)
        count[__builtin_ctzll(m)] = 2;
}

/* the counts of a pile into an observation's 54 entries (zeros); ``two``: of two packs */
static inline void
bag_bytes(unsigned char *at, Bag x, int two)
{
    for (uint64_t m = x.one; m; m &= m - 1)
        at[__builtin_ctzll(m)] = 1;
    if (two)
        for (uint64_t m = x.two; m; m &= m - 1)
            at[__builtin_ctzll(m)] = 2;
}

/* ------------------------------------------------------------------------ the rows */
typedef struct {
    Bag cards;                  /* the play's cards (none for the pass) */
    int32_t code;               /* the play's code (every family's is below 2**20); -1: the
                                   pass */
    int32_t n;                  /* its number of cards */
} Cand;

typedef struct {
    /* the row's generators, kept apart from the game (2.5 KB each: the rows stay small):
       m[0] the seed stream (aec: ShangyouAEC._seeder; single: SingleAgentEnv._seeds),
       m[1] its state at the episode's start (see ``start`` below), m[2 + s] the random
       opponent of seat s (single) */
    MT *m;
    Bag hand[MAX_SEATS];
    int size[MAX_SEATS];
    int dealt_size[MAX_SEATS], first_out_size[MAX_SEATS];   /* cards-left scoring */
    int won[MAX_SEATS], table;  /* Zheng Fen: card points of the tricks won, of this trick */
    int to_act, last_seat, passes, has_last, over;
    long last_code;
    Bag last_cards, played;
    unsigned passed;            /* seats that passed since the play to beat */
    int order[MAX_SEATS], norder;
    long steps;                 /* steps of this episode, MORE included */
    /* the decision of the seat to act: its candidates in order, and the page */
    Cand *cand;
    int ncand, cap, page, pages, per_page, listed;
    int used;                   /* candidate rows the last observation wrote */
    int autoreset;              /* single: reset at the next step */
    int error;                  /* 1: out of memory (see batch_error) */
    /* single mode: a decision the engine does not list (past the limits) hands the row's
       episode to Python (``escaped``), which replays it from the seed stream's state at its
       start (``start``) and the learner's ids (``log``), then hands the stream back */
    int64_t *log;
    int nlog, logcap, escaped, escaped_now;
} Row;

#define SEEDER(r) (&(r)->m[0])
#define START(r) (&(r)->m[1])
#define BOT(r, s) (&(r)->m[2 + (s)])

typedef struct Batch Batch;

typedef struct {
    Gen gen;
    Sink sink;
} Scratch;

struct Batch {
    PyObject_HEAD
    int n_envs, players, seq_top, k, width, obs_size, single, seat, strict;
    int limit;                  /* the most plays a decision lists here (tests lower it) */
    long max_steps;
    double illegal_reward;
    int team[MAX_SEATS], teams;          /* teams: team of each seat (pagat-teams) */
    int teams6;                 /* score_hand's "teams6" (pagat-teams 6p), else "places" */
    int random_card;            /* first_leader "random-card" (pagat-teams 6p), else dealer */
    int family;                 /* FAM_*: which generator lists the plays */
    long wopts[3];              /* winner: min_straight, rank_only (straight_needs_higher_rank),
                                   quad (bomb "quad") */
    int deck;                   /* cards in a pack: 54, or 52 without jokers */
    int packs;                  /* 1 or 2 */
    int cards_left;             /* score_hand's "cards-left" (winner) */
    int points;                 /* Zheng Fen: "trick-points" scoring, finish_trick, the card
                                   points in the observation */
    int dealt;                  /* cards dealt (deal_count * players, or every card) */
    int leader_card;            /* first_leader "holder:<card>": that card's code; -1: none */
    /* layout: offsets into a row of the observation */
    int o_played, o_last, o_counts, o_finished, o_passed, o_last_seat, o_partners,
        o_leading, o_phase, o_page, o_cand, pass_at, play_at, more_at, extra_at, o_won,
        o_table;
    Row *rows;
    MT *mts;                    /* every row's generators (Row.m) */
    Py_buffer obs, mask, reward, term, trunc, seat_buf, illegal;
    int have_bufs;
    const int64_t *actions;     /* the step's actions (its buffer held by step) */
    int busy;                   /* a step runs (the GIL released): every other call refuses */
    uint64_t rand_state;        /* random_actions' own generator (splitmix64) */
    BatchPool pool;             /* _batch_pool.h */
};

/* the arrays a Batch writes, in the order Batch() takes them */
#define N_ARRAYS 7
static void
arrays_of(Batch *b, Py_buffer **out)
{
    Py_buffer *bufs[N_ARRAYS] = {&b->obs, &b->mask, &b->reward, &b->term, &b->trunc,
                                 &b->seat_buf, &b->illegal};
    memcpy(out, bufs, sizeof bufs);
}

/* ------------------------------------------------------------------------ the game */
static inline int
next_with_cards(const Batch *b, const Row *r, int seat, int include_self)
{
    return core_next_with_cards(r->size, b->players, seat, include_self);
}

/* ClimbingGame.__init__ and _start_hand for one hand dealt from ``game_seed``: the dealer
   drawn, the packs (cards.deck: one pack's cards, then the next pack's) shuffled and dealt
   one card at a time from the dealer */
static void
deal(const Batch *b, Row *r, uint32_t game_seed)
{
    MT g;
    mt_seed(&g, game_seed);
    int n = b->players, total = b->deck * b->packs;
    int dealer = (int)mt_below(&g, (uint32_t)n);
    int cards[2 * N_CARDS];
    for (int i = 0; i < total; i++)
        cards[i] = i % b->deck;
    for (int i = total - 1; i >= 1; i--) {            /* random.shuffle */
        int j = (int)mt_below(&g, (uint32_t)i + 1);
        int t = cards[i];
        cards[i] = cards[j];
        cards[j] = t;
    }
    memset(r->hand, 0, sizeof r->hand);
    memset(r->size, 0, sizeof r->size);
    for (int k = 0, s = dealer; k < b->dealt; k++) {
        bag_put(&r->hand[s], cards[k]);
        r->size[s]++;
        if (++s == n)
            s = 0;
    }
    for (int s = 0; s < n; s++)
        r->dealt_size[s] = r->size[s];
    r->has_last = r->over = r->passes = r->norder = 0;
    memset(r->won, 0, sizeof r->won);
    r->table = 0;
    r->last_seat = -1;
    r->last_cards = r->played = (Bag){0, 0};
    r->passed = 0;
    r->steps = 0;
    r->listed = 0;
    int leader = dealer;                               /* first_leader "dealer" */
    if (b->leader_card >= 0) {
        /* "holder:<card>": the holder of its first copy dealt leads; a card not dealt: the
           lowest card dealt */
        int wanted = b->leader_card, at = -1, low = N_CARDS, low_at = 0;
        for (int k = 0; k < b->dealt; k++) {
            if (cards[k] == wanted && at < 0)
                at = k;
            if (cards[k] < low) {
                low = cards[k];
                low_at = k;
            }
        }
        leader = (dealer + (at >= 0 ? at : low_at)) % n;
    }
    if (b->random_card) {
        /* _choose_leader: a card drawn from the packs (rng.choice(deck)); the holder of its
           first copy dealt leads */
        int drawn = (int)mt_below(&g, (uint32_t)total) % b->deck;
        for (int k = 0; k < b->dealt; k++)
            if (cards[k] == drawn) {
                leader = (dealer + k) % n;
                break;
            }
    }
    r->to_act = next_with_cards(b, r, leader, 1);
}

/* ShangyouAEC.reset(): the next hand of the row's seed stream */
static void
aec_next_hand(const Batch *b, Row *r)
{
    *START(r) = *SEEDER(r);
    r->nlog = 0;
    deal(b, r, mt_below(SEEDER(r), 0x80000000U));
}

/* an id kept for a replay in Python (see Row.start); -2 without memory */
static int
log_id(Row *r, int64_t a)
{
    if (r->nlog == r->logcap) {
        int cap = r->logcap ? 2 * r->logcap : 64;
        int64_t *l = realloc(r->log, (size_t)cap * sizeof(int64_t));
        if (l == NULL)
            return -2;
        r->log = l;
        r->logcap = cap;
    }
    r->log[r->nlog++] = a;
    return 0;
}

/* SingleAgentEnv._restart: the AEC env reset with the next seed of the row's stream, then one
   seed per opponent (seats in order) */
static void
single_restart(const Batch *b, Row *r)
{
    MT seeder;
    *START(r) = *SEEDER(r);
    r->nlog = 0;
    mt_seed(&seeder, mt_below(SEEDER(r), 0x80000000U));
    deal(b, r, mt_below(&seeder, 0x80000000U));
    for (int s = 0; s < b->players; s++)
        if (s != b->seat)
            mt_seed(BOT(r, s), mt_below(SEEDER(r), 0x80000000U));
    r->autoreset = 0;
}

/* Zheng Fen's card points (zheng_fen/family.py's points_of): each 5 scores 5, each 10 and
   K 10 */
static inline int
card_points(Bag cards)
{
    const uint64_t fives = 0xFULL << (4 * 2), tens = 0xFULL << (4 * 7), kings = 0xFULL << (4 * 10);
    return 5 * (__builtin_popcountll(cards.one & fives) + __builtin_popcountll(cards.two & fives))
           + 10 * (__builtin_popcountll(cards.one & (tens | kings))
                   + __builtin_popcountll(cards.two & (tens | kings)));
}

/* ClimbingGame._end_trick: the trick to its winner (its card points, Zheng Fen); the hand
   ends when at most one seat still holds cards (reached only with finish_trick) */
static void
end_trick(const Batch *b, Row *r)
{
    int winner = r->last_seat;
    r->won[winner] += r->table;
    r->table = 0;
    r->has_last = 0;
    r->passes = 0;
    r->passed = 0;
    r->last_seat = -1;
    if (b->players - r->norder <= 1) {
        for (int s = 0; s < b->players; s++)
            if (r->size[s]) {
                int in = 0;
                for (int p = 0; p < r->norder; p++)
                    in |= r->order[p] == s;
                if (!in)
                    r->order[r->norder++] = s;
            }
        r->over = 1;
        return;
    }
    r->to_act = next_with_cards(b, r, winner, 1);
}

/* ClimbingGame._do_play for a single hand: ``code`` -1 for the pass */
static void
apply_play(const Batch *b, Row *r, long code, Bag cards, int ncards)
{
    int seat = r->to_act;
    if (code < 0) {
        r->passes++;
        r->passed |= 1u << seat;
        if (core_passes_end_trick(r->passes, b->players, r->norder, r->size[r->last_seat])) {
            end_trick(b, r);
        } else {
            r->to_act = next_with_cards(b, r, seat, 0);
        }
        r->listed = 0;
        return;
    }
    bag_take(&r->hand[seat], cards);
    r->size[seat] -= ncards;
    bag_add(&r->played, cards);
    r->has_last = 1;
    r->last_code = code;
    r->last_cards = cards;
    r->last_seat = seat;
    r->passes = 0;
    r->passed = 0;
    r->listed = 0;
    if (b->points)
        r->table += card_points(cards);
    if (!r->size[seat]) {
        if (r->norder == 0)                         /* counts_at_first_out */
            memcpy(r->first_out_size, r->size, sizeof r->size);
        r->order[r->norder++] = seat;
        int holder, holding = core_holding(r->size, b->players, &holder);
        if (holding <= 1) {
            if (!b->points) {                       /* the hand ends now */
                if (holding == 1)
                    r->order[r->norder++] = holder;
                r->over = 1;
                return;
            }
            if (!holding) {   /* finish_trick: the last holder beat it with their last cards */
                end_trick(b, r);
                return;
            }
        }
    } else if (b->points) {
        int others = 0;
        for (int s = 0; s < b->players; s++)
            if (s != seat && r->size[s])
                others = 1;
        if (!others) {        /* finish_trick: nobody is left to answer */
            end_trick(b, r);
            return;
        }
    }
    r->to_act = next_with_cards(b, r, seat, 0);
}

/* game.py's score_hand: the points of each seat and of each team (teams only) */
static void
hand_points(const Batch *b, const Row *r, int *pts, int *tp)
{
    for (int s = 0; s < MAX_SEATS; s++)
        pts[s] = tp[s] = 0;
    if (b->points) {       /* trick-points: the last out's tricks and hand go to the first */
        int first = r->order[0], last = r->order[r->norder - 1];
        for (int s = 0; s < b->players; s++)
            pts[s] = r->won[s];
        pts[first] += pts[last] + card_points(r->hand[last]);
        if (last != first)
            pts[last] = 0;
        return;
    }
    if (b->cards_left) {                   /* the first out takes what the others lose */
        int n = b->players, winner = r->order[0], total = 0;
        for (int s = 0; s < n; s++) {
            if (s == winner)
                continue;
            int left = r->first_out_size[s], mult;
            if (left == r->dealt_size[s])
                mult = 3;
            else if (n == 3)
                mult = left >= 17 ? 3 : left >= 12 ? 2 : 1;
            else
                mult = left >= 10 ? 2 : 1;
            pts[s] = -left * mult;
            total += left * mult;
        }
        pts[winner] = total;
        return;
    }
    if (b->teams6) {                       /* only the team points count */
        const int *o = r->order, *team = b->team;
        int t1 = team[o[0]], t2 = team[o[1]];
        if (t1 == t2) {
            int pos3 = 2;
            while (pos3 < 5 && team[o[pos3]] != t1)
                pos3++;
            if (pos3 == 2) {
                tp[t1] = 10;
            } else if (pos3 == 3 || pos3 == 4) {
                tp[t1] = 5;
            } else {
                tp[t1] = 5;
                tp[1 - t1] = 2;
            }
        } else {
            tp[t1] += 3;
            tp[t2] += 2;
            tp[1 - team[o[r->norder - 1]]] += 2;
        }
        return;
    }
    if (r->norder > 0)
        pts[r->order[0]] = 2;
    if (r->norder > 1)
        pts[r->order[1]] = 1;
    if (b->teams)
        for (int s = 0; s < b->players; s++)
            tp[b->team[s]] += pts[s];
}

/* env/aec.py's rewards_of: the seat's points, or its team's */
static void
hand_rewards(const Batch *b, const Row *r, double *out)
{
    int pts[MAX_SEATS], tp[MAX_SEATS];
    hand_points(b, r, pts, tp);
    for (int s = 0; s < b->players; s++)
        out[s] = b->teams ? tp[b->team[s]] : pts[s];
}

/* core.py's _owen_prev from an Owen play's code (_core_owen.c's layout, core.py's
   _owen_meta): the description (kind, arg, key, tier) owen_plays follows */
static void
owen_desc(long code, int *d)
{
    int kind = (int)(code & 15), f1 = (int)(code >> 4 & 15), f3 = (int)(code >> 12 & 15);
    int nat = (int)(code >> 16 & 1);
    d[0] = kind;
    d[1] = (kind >= 5 && kind <= 7) ? f3 : 0;           /* straight, stair, plate: ranks */
    d[2] = kind == 0 ? f1 : kind == 5 ? 2 * f1 : kind == 8 ? 0 : 2 * f1 + nat;
    d[3] = kind == 3 ? 1 : kind == 8 ? 2 : 0;           /* quad: a bomb; the rocket */
}

/* the plays of the seat to act into the thread's sink, in the generator's order; -1 past
   the listing limit */
static int
list_plays(const Batch *b, Row *r, Scratch *sc)
{
    Prev prev;
    if (r->has_last)
        prev_of_code(r->last_code, &prev);
    else
        prev.kind = -1;
    Sink *s = &sc->sink;
    s->n = 0;
    s->pool_n = 0;
    s->over = 0;
    sc->gen.out = NULL;
    sc->gen.sink = s;
    int rc;
    Bag hand = r->hand[r->to_act];
    unsigned char count[N_CARDS];
    if (b->family != FAM_PAGAT || hand.two)
        bag_counts(hand, count);
    if (b->family == FAM_OWEN) {
        int d[4] = {-1, 0, 0, 0};
        if (r->has_last)
            owen_desc(r->last_code, d);
        rc = core_owen_generate(count, d[0], d[1], d[2], d[3], &sc->gen);
    } else if (b->family == FAM_ZF) {
        int kind = -1, b0 = 0, b1 = 0;
        if (r->has_last) {                  /* core.py's _zf_prev, from the code */
            long code = r->last_code;
            int f1 = (int)(code >> 4 & 15), f2 = (int)(code >> 8 & 15);
            kind = (int)(code & 15);
            b0 = f1;
            b1 = (kind >= 4 && kind <= 6) || kind == 8 ? f1 - f2 + 1 : 0;
        }
        rc = core_zf_generate(count, kind, b0, b1, &sc->gen);
    } else if (b->family == FAM_WINNER) {
        long v[7] = {b->wopts[0], b->wopts[1], b->wopts[2], -1, 0, 0, 0};
        if (r->has_last) {                  /* core.py's _winner_prev, from the code */
            long code = r->last_code, k = code & 15;
            v[3] = k;
            v[4] = code >> 4 & 63;
            v[5] = (k == 3 || k == 4 || k == 6 || k == 8) ? (code >> 10 & 15) : 0;
            v[6] = (k == 6 || k == 8) ? (code >> 14 & 7) : 0;
        }
        rc = core_winner_generate(count, v, &sc->gen);
    } else {
        if (hand.two)
            gen_from_counts(&sc->gen, count, b->seq_top);
        else
            gen_from_set(&sc->gen, hand.one, b->seq_top);
        rc = pagat_generate(&sc->gen, &prev);
    }
    if (rc < 0 || s->over || s->n > b->limit)
        return -1;
    return 0;
}

/* the cards of the sink's play j (``two``: of two packs, a card may come twice) */
static inline Bag
play_set(const Sink *s, Py_ssize_t j, int two)
{
    const Play *p = &s->plays[j];
    const int *c = s->pool + p->off;
    Bag m = {0, 0};
    if (two)
        for (int i = 0; i < p->n; i++)
            bag_put(&m, c[i]);
    else
        for (int i = 0; i < p->n; i++)
            m.one |= 1ULL << c[i];
    return m;
}

/* family.reading_order(combo) = (tier, cls, key) of a pagat code as one comparable number:
   the class names compare as strings ("mseq" < "seq" < "set" < "single"), then the ints */
/* the same for an Owen code: (tier, cls, key) with cls ("bomb",), ("full house",),
   ("pair",), (run name, ranks) ... compared as the strings compare */
static uint64_t
owen_reading_key(long code)
{
    /* O_KINDS' names in string order: bomb (quad), full house, pair, plate, rocket, single,
       stair, straight, trip */
    static const int name_rank[9] = {5, 2, 8, 0, 1, 7, 6, 3, 4};
    int kind = (int)(code & 15), f1 = (int)(code >> 4 & 15), f3 = (int)(code >> 12 & 15);
    int nat = (int)(code >> 16 & 1);
    uint64_t tier = kind == 3 ? 1 : kind == 8 ? 2 : 0;
    uint64_t arg = (kind >= 5 && kind <= 7) ? (uint64_t)f3 : 0;
    uint64_t k1 = kind == 8 ? 0 : (uint64_t)f1;
    uint64_t k2 = (kind == 0 || kind == 5 || kind == 8) ? 0 : (uint64_t)nat;
    return tier << 48 | (uint64_t)name_rank[kind] << 40 | arg << 32 | k1 << 24 | k2 << 16;
}

/* the same for a Zheng Fen code (core.py's _zf_meta) */
static uint64_t
zf_reading_key(long code)
{
    /* the class names in string order: full house, pair, pairs, quartet, quartets, single,
       special, suit sequence, triple, triples */
    static const int name_rank[10] = {5, 1, 8, 3, 2, 9, 4, 0, 7, 6};
    int kind = (int)(code & 15), f1 = (int)(code >> 4 & 15), f2 = (int)(code >> 8 & 15);
    uint64_t tier = kind == 9 ? 1 : 0;
    uint64_t k2 = (kind >= 4 && kind <= 6) || kind == 8 ? (uint64_t)(f1 - f2 + 1) : 0;
    return tier << 48 | (uint64_t)name_rank[kind] << 40 | (uint64_t)f1 << 24 | k2 << 16;
}

/* the same for a "winner" code (core.py's _winner_meta) */
static uint64_t
winner_reading_key(long code)
{
    /* W_KINDS' class names in string order: bomb, full house, pair, pairs, single, straight,
       straight flush, triple, triples */
    static const int name_rank[9] = {4, 2, 7, 3, 8, 1, 5, 0, 6};
    int k = (int)(code & 15), a = (int)(code >> 4 & 63), bb = (int)(code >> 10 & 15);
    int c = (int)(code >> 14 & 7);
    uint64_t tier = k == 7 ? 1 : k == 8 ? 2 : 0;
    uint64_t arg = (k == 3 || k == 4 || k == 6 || k == 8) ? (uint64_t)bb : 0;
    uint64_t k2 = (k == 6 || k == 8) ? (uint64_t)c : 0;
    return tier << 48 | (uint64_t)name_rank[k] << 40 | arg << 32 | (uint64_t)a << 16 | k2;
}

static uint64_t
reading_key(long code)
{
    int f1 = CODE_F1(code), f2 = CODE_F2(code), f3 = CODE_F3(code), pure = CODE_PURE(code);
    uint64_t kind, c1 = 0, c2 = 0, k1 = 0, k2 = 0, k3 = 0;
    switch (CODE_KIND(code)) {
    case K_SINGLE:
        kind = 3;
        k1 = (uint64_t)f1;
        break;
    case K_SET:
        kind = 2;
        c1 = (uint64_t)f3;
        k1 = (uint64_t)f1;
        k2 = (uint64_t)pure;
        break;
    case K_SEQ:
        kind = 1;
        c1 = (uint64_t)(f2 - f1 + 1);
        k1 = f3 != 4;
        k2 = (uint64_t)f2;
        k3 = (uint64_t)pure;
        break;
    default:
        kind = 0;
        c1 = (uint64_t)(f2 - f1 + 1);
        c2 = (uint64_t)f3;
        k1 = (uint64_t)f2;
        k2 = (uint64_t)pure;
    }
    return kind << 40 | c1 << 32 | c2 << 24 | k1 << 16 | k2 << 8 | k3;
}

typedef struct {
    Bag cards;
    uint64_t reading;
    int n, idx;
} SortKey;

/* sort_moves' order: by number of cards, then the cards (sorted tuples compare at their first
   difference: bag_less), then the reading, highest first, then the listing's order (a stable
   sort); key_cmp_one for piles of one pack (the set holding the lowest card of the two sets'
   difference is less), key_cmp for two */
static inline int
key_rest(const SortKey *a, const SortKey *b)
{
    if (a->reading != b->reading)
        return a->reading > b->reading ? -1 : 1;
    return a->idx < b->idx ? -1 : 1;
}

static int
key_cmp_one(const void *pa, const void *pb)
{
    const SortKey *a = pa, *b = pb;
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    if (a->cards.one != b->cards.one) {
        uint64_t d = a->cards.one ^ b->cards.one;
        return (a->cards.one & d & -d) ? -1 : 1;
    }
    return key_rest(a, b);
}

static int
key_cmp(const void *pa, const void *pb)
{
    const SortKey *a = pa, *b = pb;
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    if (!bag_eq(a->cards, b->cards))
        return bag_less(a->cards, b->cards) ? -1 : 1;
    return key_rest(a, b);
}

/* the keys sorted: insertion sort for a few (most decisions), else qsort */
static inline void
sort_keys(SortKey *keys, int n, int (*cmp)(const void *, const void *))
{
    if (n > 16) {
        qsort(keys, (size_t)n, sizeof(SortKey), cmp);
        return;
    }
    for (int i = 1; i < n; i++) {
        SortKey k = keys[i];
        int j = i - 1;
        while (j >= 0 && cmp(&keys[j], &k) > 0) {
            keys[j + 1] = keys[j];
            j--;
        }
        keys[j + 1] = k;
    }
}

static int
ensure_cap(Row *r, int n)
{
    if (n <= r->cap)
        return 0;
    int cap = r->cap ? r->cap : 64;
    while (cap < n)
        cap *= 2;
    Cand *c = realloc(r->cand, (size_t)cap * sizeof(Cand));   /* no GIL: the C allocator */
    if (c == NULL)
        return -1;
    r->cand = c;
    r->cap = cap;
    return 0;
}

/* the candidates of the decision now, in order, and page 0 (env/aec.py's _new_pager) */
static int
make_decision(const Batch *b, Row *r, Scratch *sc)
{
    if (list_plays(b, r, sc) < 0)
        return -1;
    const Sink *s = &sc->sink;
    int pf = r->has_last ? 1 : 0, n = (int)s->n;
    if (ensure_cap(r, n + pf) < 0)
        return -1;
    Cand *out = r->cand;
    if (pf) {
        out[0].cards = (Bag){0, 0};
        out[0].code = -1;
        out[0].n = 0;
    }
    int two = b->packs == 2;
    if (n == 1) {
        out[pf].cards = play_set(s, 0, two);
        out[pf].code = s->plays[0].code;
        out[pf].n = s->plays[0].n;
    } else if (n > 1) {
        SortKey stack_keys[128];
        SortKey *keys = n <= 128 ? stack_keys : malloc((size_t)n * sizeof(SortKey));
        if (keys == NULL)
            return -1;
        for (int j = 0; j < n; j++) {
            keys[j].cards = play_set(s, j, two);
            keys[j].n = s->plays[j].n;
            long code = s->plays[j].code;
            keys[j].reading = b->family == FAM_OWEN ? owen_reading_key(code)
                              : b->family == FAM_WINNER ? winner_reading_key(code)
                              : b->family == FAM_ZF ? zf_reading_key(code)
                              : reading_key(code);
            keys[j].idx = j;
        }
        if (two)
            sort_keys(keys, n, key_cmp);
        else
            sort_keys(keys, n, key_cmp_one);
        for (int j = 0; j < n; j++) {
            out[pf + j].cards = keys[j].cards;
            out[pf + j].code = s->plays[keys[j].idx].code;
            out[pf + j].n = keys[j].n;
        }
        if (keys != stack_keys)
            free(keys);
    }
    r->ncand = n + pf;
    r->page = 0;
    if (r->ncand <= b->k) {
        r->per_page = b->k;
        r->pages = 1;
    } else {
        r->per_page = b->k - 1;
        r->pages = (r->ncand + b->k - 2) / (b->k - 1);
    }
    r->listed = 1;
    return 0;
}

/* ------------------------------------------------------------------- the observation */

/* ClimbingEncoder.write for ``seat`` (with its decision when ``decision``) into row i of the
   observations, and its mask; ``two``: two packs (a constant where it is inlined, so that
   the one-pack engine does not test for cards held twice) */
static inline __attribute__((always_inline)) void
observe_packs(const Batch *b, Row *r, int i, int seat, int decision, const int two)
{
    unsigned char *o = (unsigned char *)b->obs.buf + (size_t)i * b->obs_size;
    int n = b->players;
    /* the head, zeroed and written whole; the candidate rows the last write used, zeroed */
    memset(o, 0, (size_t)b->o_cand);
    if (r->used)
        memset(o + b->o_cand, 0, (size_t)r->used * b->width);
    bag_bytes(o, r->hand[seat], two);
    bag_bytes(o + b->o_played, r->played, two);
    if (r->has_last) {
        bag_bytes(o + b->o_last, r->last_cards, two);
        o[b->o_last_seat + (r->last_seat - seat + n) % n] = 1;
        unsigned p = r->passed;
        while (p) {
            int s = __builtin_ctz(p);
            o[b->o_passed + (s - seat + n) % n] = 1;
            p &= p - 1;
        }
    } else {
        o[b->o_leading] = 1;
    }
    for (int j = 0; j < n; j++)
        o[b->o_counts + j] = (unsigned char)r->size[(seat + j) % n];
    for (int p = 0; p < r->norder; p++)
        o[b->o_finished + (r->order[p] - seat + n) % n] = (unsigned char)(p + 1);
    if (b->teams) {
        for (int s = 0; s < n; s++)
            if (b->team[s] == b->team[seat])
                o[b->o_partners + (s - seat + n) % n] = 1;
    } else {
        o[b->o_partners] = 1;
    }
    o[b->o_phase + (r->over ? 2 : 1)] = 1;
    if (b->points) {       /* _write_rare: points taken per seat and on the table, / 5 */
        for (int s = 0; s < n; s++) {
            int p = r->won[s] / 5;
            o[b->o_won + (s - seat + n) % n] = (unsigned char)(p < 127 ? p : 127);
        }
        int t = r->table / 5;
        o[b->o_table] = (unsigned char)(t < 127 ? t : 127);
    }
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
    Bag prev = {0, 0};
    int ordinal = 0, have_prev = 0;
    for (int j = start; j < stop; j++, row += b->width) {
        const Cand *c = &r->cand[j];
        if (c->code < 0) {
            row[b->pass_at] = 1;
            continue;
        }
        bag_bytes(row, c->cards, two);
        row[b->play_at] = 1;
        if (have_prev && c->cards.one == prev.one && (!two || c->cards.two == prev.two)) {     /* readings of the same cards: 0, 1, 2 ... */
            ordinal++;
            row[b->extra_at] = (unsigned char)ordinal;
        } else {
            ordinal = 0;
            prev = c->cards;
            have_prev = 1;
        }
    }
    memset(mask, 1, (size_t)(stop - start));
    r->used = stop - start;
    if (r->pages > 1) {
        o[b->o_cand + (b->k - 1) * b->width + b->more_at] = 1;
        mask[b->k - 1] = 1;
        r->used = b->k;
    }
}

static void
observe(const Batch *b, Row *r, int i, int seat, int decision)
{
    if (b->packs == 2)
        observe_packs(b, r, i, seat, decision, 1);
    else
        observe_packs(b, r, i, seat, decision, 0);
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
    while (!r->over && r->to_act != b->seat) {
        if (list_plays(b, r, sc) < 0)
            return -1;
        int pf = r->has_last ? 1 : 0;
        Py_ssize_t n = sc->sink.n + pf;
        if (n > STEP_LIMIT || n > b->limit)
            return -1;                 /* legal_moves would offer the steps of a choice */
        Py_ssize_t j = mt_below(BOT(r, r->to_act), (uint32_t)n);
        if (j < pf)
            apply_play(b, r, -1, (Bag){0, 0}, 0);
        else
            apply_play(b, r, sc->sink.plays[j - pf].code,
                       play_set(&sc->sink, j - pf, b->packs == 2), sc->sink.plays[j - pf].n);
    }
    return 0;
}

/* the id ``a`` (legal) for the decision now, counted and logged: MORE turns the page (0),
   a candidate is played (1); -2 without memory for the log */
static inline int
take_id(const Batch *b, Row *r, int64_t a)
{
    r->steps++;
    if (log_id(r, a) < 0)
        return -2;
    if (r->pages > 1 && a == b->k - 1) {
        r->page = (r->page + 1) % r->pages;
        return 0;
    }
    const Cand *c = &r->cand[r->page * r->per_page + a];
    apply_play(b, r, c->code, c->cards, c->n);
    return 1;
}

/* row i shows the decision of the seat to act (aec), listed first where it is not yet: -1
   where the engine does not list it */
static int
show_decision(Batch *b, Row *r, int i, Scratch *sc)
{
    if (!r->listed && make_decision(b, r, sc) < 0)
        return -1;
    ((int64_t *)b->seat_buf.buf)[i] = r->to_act;
    observe(b, r, i, r->to_act, 1);
    return 0;
}

/* BatchSim.step for row i (every seat: the seat to act observes) */
static int
step_aec(Batch *b, int i, int64_t a, Scratch *sc)
{
    Row *r = &b->rows[i];
    if (r->escaped)
        return 0;                   /* played in Python until its hand ends */
    double *rew = (double *)b->reward.buf + (size_t)i * b->players;
    char *term = (char *)b->term.buf + i, *trunc = (char *)b->trunc.buf + i;
    for (int s = 0; s < b->players; s++)
        rew[s] = 0;
    *term = *trunc = 0;
    int rc = take_id(b, r, a);
    if (rc < 0)
        return rc;
    if (rc == 1 && r->over) {
        hand_rewards(b, r, rew);
        *term = 1;
        aec_next_hand(b, r);
    }
    if (b->max_steps > 0 && r->steps >= b->max_steps) {
        *term = *trunc = 1;
        aec_next_hand(b, r);
    }
    return show_decision(b, r, i, sc);
}

/* the learner's observation (single-agent mode) */
static int
observe_single(Batch *b, Row *r, int i, Scratch *sc)
{
    int deciding = !r->over && r->to_act == b->seat;
    if (deciding && !r->listed && make_decision(b, r, sc) < 0)
        return -1;
    observe(b, r, i, b->seat, deciding);
    return 0;
}

/* a new episode of row i (single-agent mode): dealt, the opponents before the learner
   played, the learner's observation */
static int
single_begin(Batch *b, Row *r, int i, Scratch *sc)
{
    single_restart(b, r);
    if (play_bots(b, r, sc) < 0)
        return -1;
    return observe_single(b, r, i, sc);
}

/* ShangyouVectorEnv.step for row i: SingleAgentEnv._advance, or the next-step autoreset */
static int
step_single(Batch *b, int i, int64_t a, Scratch *sc)
{
    Row *r = &b->rows[i];
    double *rew = (double *)b->reward.buf + i;
    char *term = (char *)b->term.buf + i, *trunc = (char *)b->trunc.buf + i;
    char *ill = (char *)b->illegal.buf + i;
    if (r->escaped)
        return 0;                   /* played in Python until its episode ends */
    *rew = 0;
    *term = *trunc = *ill = 0;
    if (r->autoreset)
        return single_begin(b, r, i, sc);
    if (!legal(r, b->k, a)) {                /* strict mode checked every id beforehand */
        *rew = b->illegal_reward;
        *term = *ill = 1;
        r->autoreset = 1;
        return observe_single(b, r, i, sc);
    }
    int rc = take_id(b, r, a);
    if (rc < 0)
        return rc;
    if (rc == 1 && play_bots(b, r, sc) < 0)
        return -1;
    if (r->over) {
        double pts[MAX_SEATS];
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

/* the pool's ``run`` (_batch_pool.h): rows lo .. hi - 1 with a thread's scratch */
static void
run_rows(void *owner, int lo, int hi, void *scratch)
{
    Batch *b = owner;
    Scratch *sc = scratch;
    for (int i = lo; i < hi; i++) {
        Row *r = &b->rows[i];
        int rc = b->single ? step_single(b, i, b->actions[i], sc)
                           : step_aec(b, i, b->actions[i], sc);
        if (rc == -1)
            r->escaped = r->escaped_now = 1;
        else if (rc < 0)
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
    /* fixed arrays large enough for every listing up to the limit: the sink never grows
       (growing would call the Python allocator, without the GIL) */
    sc->sink.cap = BATCH_LIMIT;
    sc->sink.pool_cap = (Py_ssize_t)BATCH_LIMIT * N_CARDS;
    sc->sink.plays = PyMem_RawMalloc((size_t)sc->sink.cap * sizeof(Play));
    sc->sink.pool = PyMem_RawMalloc((size_t)sc->sink.pool_cap * sizeof(int));
    sc->sink.fixed = 1;
    sc->sink.limit = BATCH_LIMIT;
    if (sc->sink.plays == NULL || sc->sink.pool == NULL) {
        PyMem_RawFree(sc->sink.plays);
        PyMem_RawFree(sc->sink.pool);
        PyMem_RawFree(sc);
        return NULL;
    }
    return sc;
}

static void
scratch_free(void *scratch)
{
    Scratch *sc = scratch;
    if (sc == NULL)
        return;
    PyMem_RawFree(sc->sink.plays);
    PyMem_RawFree(sc->sink.pool);
    PyMem_RawFree(sc);
}

static void
batch_dealloc(Batch *b)
{
    batch_pool_free(&b->pool);
    if (b->rows != NULL) {
        for (int i = 0; i < b->n_envs; i++) {
            free(b->rows[i].cand);
            free(b->rows[i].log);
        }
        PyMem_RawFree(b->rows);
    }
    PyMem_RawFree(b->mts);
    if (b->have_bufs) {
        Py_buffer *bufs[N_ARRAYS];
        arrays_of(b, bufs);
        for (int j = 0; j < N_ARRAYS; j++)
            if (bufs[j]->obj != NULL)
                PyBuffer_Release(bufs[j]);
    }
    Py_TYPE(b)->tp_free((PyObject *)b);
}

/* Batch(n_envs, players, seq_top, teams, k, layout, arrays, single, seat, max_steps, strict,
         illegal_reward, threads[, limit, teams6, random_card, family, dealt, leader_card,
         deck, cards_left, min_straight, rank_only, quad, packs]): ``limit`` (at most 4,096)
   lowers the most plays a decision lists in C; past it the row goes to Python (the tests use
   it to play that path); ``teams6``: score_hand's "teams6"; ``random_card``: the first
   leader holds a card drawn from the pack; ``family``: FAM_*; ``dealt``: the cards dealt;
   ``leader_card``: first_leader "holder:<card>" (-1: none); ``deck``: 54 or 52 cards a pack;
   ``cards_left``: that scoring; the three "winner" options; ``packs``: 1, or 2 (pagat and
   "winner") */
static PyObject *
batch_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    mt_prepare();
    Batch *b = (Batch *)type->tp_alloc(type, 0);
    if (b == NULL)
        return NULL;
    /* the arguments go straight into the engine's fields, the optional ones' defaults first */
    b->limit = BATCH_LIMIT;
    b->family = FAM_PAGAT;
    b->dealt = b->deck = N_CARDS;
    b->leader_card = -1;
    b->wopts[0] = 5;
    b->packs = 1;
    int threads;
    PyObject *teams, *layout, *arrays;
    if (!PyArg_ParseTuple(args, "iiiOiOOiilpdi|ippiiiiplppi", &b->n_envs, &b->players,
                          &b->seq_top, &teams, &b->k, &layout, &arrays, &b->single, &b->seat,
                          &b->max_steps, &b->strict, &b->illegal_reward, &threads, &b->limit,
                          &b->teams6, &b->random_card, &b->family, &b->dealt, &b->leader_card,
                          &b->deck, &b->cards_left, &b->wopts[0], &b->wopts[1], &b->wopts[2],
                          &b->packs))
        goto fail;
    int n_envs = b->n_envs, players = b->players, k = b->k, single = b->single;
    int family = b->family, deck = b->deck, packs = b->packs, seat = b->seat;
    if (family < FAM_PAGAT || family > FAM_ZF || (deck != N_CARDS && deck != 52)
            || packs < 1 || packs > 2 || (packs == 2 && family != FAM_PAGAT
                                          && family != FAM_WINNER)
            || b->dealt < players || b->dealt > deck * packs || b->leader_card < -1
            || b->leader_card >= deck || b->wopts[0] < 3 || b->wopts[0] > 13) {
        PyErr_SetString(PyExc_ValueError, "Batch: bad family, deal or leader");
        goto fail;
    }
    if (b->limit < 1 || b->limit > BATCH_LIMIT) {
        PyErr_SetString(PyExc_ValueError, "Batch: bad listing limit");
        goto fail;
    }
    if (n_envs < 1 || players < 2 || players > MAX_SEATS
            || (b->seq_top != ACE && b->seq_top != TWO) || k < 2
            || (single && (seat < 0 || seat >= players)) || b->max_steps < 0) {
        PyErr_SetString(PyExc_ValueError, "Batch: bad arguments");
        goto fail;
    }
    b->points = family == FAM_ZF;
    if (teams != Py_None) {
        if (!PyTuple_Check(teams) || PyTuple_GET_SIZE(teams) != players)
            goto bad;
        for (int s = 0; s < players; s++) {
            long t = PyLong_AsLong(PyTuple_GET_ITEM(teams, s));
            if (t < 0 || t >= players)
                goto bad;
            b->team[s] = (int)t;
        }
        b->teams = 1;
    }
    if (b->teams6) {                /* two teams of three */
        int count[2] = {0, 0};
        for (int s = 0; s < players && b->teams; s++)
            if (b->team[s] < 2)
                count[b->team[s]]++;
        if (!b->teams || players != 6 || count[0] != 3 || count[1] != 3)
            goto bad;
    }
    int *fields[19] = {&b->o_played, &b->o_last, &b->o_counts, &b->o_finished, &b->o_passed,
                       &b->o_last_seat, &b->o_partners, &b->o_leading, &b->o_phase,
                       &b->o_page, &b->o_cand, &b->width, &b->pass_at, &b->play_at,
                       &b->more_at, &b->extra_at, &b->obs_size, &b->o_won, &b->o_table};
    if (!PyTuple_Check(layout) || PyTuple_GET_SIZE(layout) != 19)
        goto bad;
    for (int j = 0; j < 19; j++) {
        long v = PyLong_AsLong(PyTuple_GET_ITEM(layout, j));
        if (v < 0 || v > (1L << 30))
            goto bad;
        *fields[j] = (int)v;
    }
    if (b->width < N_CARDS + 1 || b->pass_at >= b->width || b->play_at >= b->width
            || b->more_at >= b->width || b->extra_at >= b->width
            || b->o_cand + (long)k * b->width != b->obs_size || b->o_played + N_CARDS > b->o_cand
            || b->o_last + N_CARDS > b->o_cand || b->o_counts + players > b->o_cand
            || b->o_finished + players > b->o_cand || b->o_passed + players > b->o_cand
            || b->o_last_seat + players > b->o_cand || b->o_partners + players > b->o_cand
            || b->o_leading >= b->o_cand || b->o_phase + 3 > b->o_cand
            || b->o_page + 2 > b->o_cand || b->o_won + players > b->o_cand
            || b->o_table >= b->o_cand)
        goto bad;
    if (!PyTuple_Check(arrays) || PyTuple_GET_SIZE(arrays) != N_ARRAYS)
        goto bad;
    {
        Py_ssize_t n = n_envs;
        Py_ssize_t sizes[N_ARRAYS] = {n * b->obs_size, n * k, n * (single ? 1 : players) * 8,
                                      n, n, n * 8, n};
        const char *names[N_ARRAYS] = {"obs", "mask", "rewards", "terminated", "truncated",
                                       "seat", "illegal"};
        Py_buffer *bufs[N_ARRAYS];
        arrays_of(b, bufs);
        b->have_bufs = 1;
        for (int j = 0; j < N_ARRAYS; j++)
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
        PyErr_SetString(PyExc_ValueError, "Batch: bad teams or layout");
fail:
    Py_DECREF(b);
    return NULL;
}

BATCH_COMMON_METHODS(Batch)

/* the row of an index 0 <= i < n_envs, else NULL with an exception (refused while a step
   runs) */
static Row *
row_arg(Batch *b, PyObject *arg)
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
    return &b->rows[i];
}

static PyObject *
batch_error(Batch *b)
{
    for (int i = 0; i < b->n_envs; i++)
        if (b->rows[i].error) {
            b->rows[i].error = 0;
            PyErr_Format(PyExc_MemoryError, "game %d: no memory for its candidates", i);
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

/* reset(seeds, rows): row rows[j] restarted from seeds[j] (0 <= seed < 2**64): the seed of
   ShangyouAEC.reset (aec) or SingleAgentEnv.reset (single); a seed None: the next hand of
   the row's seed stream (reset() without a seed) */
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
        if (so != Py_None)          /* None: the row's seed stream goes on */
            mt_seed(SEEDER(r), seed);
        int rc;
        r->escaped = r->escaped_now = 0;
        if (b->single) {
            rc = single_begin(b, r, (int)i, b->pool.scratch[0]);
            ((double *)b->reward.buf)[i] = 0;
            ((char *)b->illegal.buf)[i] = 0;
        } else {
            aec_next_hand(b, r);
            rc = show_decision(b, r, (int)i, b->pool.scratch[0]);
            for (int s = 0; s < b->players; s++)
                ((double *)b->reward.buf)[i * b->players + s] = 0;
        }
        ((char *)b->term.buf)[i] = ((char *)b->trunc.buf)[i] = 0;
        if (rc < 0)
            r->escaped = r->escaped_now = 1;
    }
    Py_RETURN_NONE;
}

/* step(actions): one id per row (int64, C-contiguous); the GIL released while the rows are
   stepped. An id the mask forbids raises ValueError before any row moves (aec, and single
   with strict); in single mode without strict it ends that row's episode (illegal). */
static PyObject *
batch_step(Batch *b, PyObject *arg)
{
    Py_buffer v;
    if (refuse_busy(b) || batch_get_actions(arg, &v, b->n_envs) < 0)
        return NULL;
    const int64_t *a = v.buf;
    if (!b->single || b->strict) {
        for (int i = 0; i < b->n_envs; i++) {
            const Row *r = &b->rows[i];
            if (r->escaped || (b->single && r->autoreset))
                continue;              /* Python checks a row it plays */
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

/* hand(i) -> (order, points, to_act, steps, team points or None): a row's hand as it stands
   (the finishing order and the points of a hand that is over) */
static PyObject *
batch_hand(Batch *b, PyObject *arg)
{
    const Row *r = row_arg(b, arg);
    if (r == NULL)
        return NULL;
    int pts[MAX_SEATS], tp[MAX_SEATS];
    if (r->norder > 0)
        hand_points(b, r, pts, tp);
    else
        memset(pts, 0, sizeof pts), memset(tp, 0, sizeof tp);
    PyObject *order = PyList_New(r->norder), *points = PyList_New(b->players);
    PyObject *teams = b->teams ? PyList_New(2) : Py_NewRef(Py_None);
    if (order == NULL || points == NULL || teams == NULL) {
        Py_XDECREF(order);
        Py_XDECREF(points);
        Py_XDECREF(teams);
        return NULL;
    }
    for (int p = 0; p < r->norder; p++)
        PyList_SET_ITEM(order, p, PyLong_FromLong(r->order[p]));
    for (int s = 0; s < b->players; s++)
        PyList_SET_ITEM(points, s, PyLong_FromLong(pts[s]));
    if (b->teams)
        for (int t = 0; t < 2; t++)
            PyList_SET_ITEM(teams, t, PyLong_FromLong(tp[t]));
    return Py_BuildValue("(NNilN)", order, points, r->over ? -1 : r->to_act, r->steps, teams);
}

/* take_escaped() -> rows whose episode went to Python since the last call */
static PyObject *
batch_take_escaped(Batch *b, PyObject *unused)
{
    if (refuse_busy(b))
        return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    for (int i = 0; i < b->n_envs; i++)
        if (b->rows[i].escaped_now) {
            PyObject *v = PyLong_FromLong(i);
            if (v == NULL || PyList_Append(out, v) < 0) {
                Py_XDECREF(v);
                Py_DECREF(out);
                return NULL;
            }
            Py_DECREF(v);
            b->rows[i].escaped_now = 0;
        }
    return out;
}

/* escape_state(i) -> (state, ids): the row's seed stream at its episode's start as
   random.Random.getstate() gives it, and the learner's ids since */
static PyObject *
batch_escape_state(Batch *b, PyObject *arg)
{
    const Row *r = row_arg(b, arg);
    if (r == NULL)
        return NULL;
    /* Python's state holds the whole twist: the words not twisted yet are twisted on a copy
       (drawing them in order does it), its next word kept */
    MT st = *START(r);
    if (st.mti < 624) {
        MT full = st;
        while (full.tw < 624)
            mt_next(&full);
        memcpy(st.mt, full.mt, sizeof st.mt);
        st.tw = 624;
    }
    PyObject *words = PyTuple_New(625), *ids = PyList_New(r->nlog);
    if (words == NULL || ids == NULL) {
        Py_XDECREF(words);
        Py_XDECREF(ids);
        return NULL;
    }
    for (int j = 0; j < 624; j++)
        PyTuple_SET_ITEM(words, j, PyLong_FromUnsignedLong(st.mt[j]));
    PyTuple_SET_ITEM(words, 624, PyLong_FromLong(st.mti));
    for (int j = 0; j < r->nlog; j++)
        PyList_SET_ITEM(ids, j, PyLong_FromLongLong(r->log[j]));
    return Py_BuildValue("((iNO)N)", 3, words, Py_None, ids);
}

/* resume(i, state): the row back in C, its seed stream at ``state`` (getstate()), the
   episode having ended in Python: single mode, its next step deals the next hand; aec, the
   next hand is dealt now (and may go to Python again: take_escaped) */
static PyObject *
batch_resume(Batch *b, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "resume(i, state)");
        return NULL;
    }
    Row *r = row_arg(b, args[0]);
    if (r == NULL)
        return NULL;
    int i = (int)(r - b->rows);
    PyObject *st = args[1], *words;
    if (!PyTuple_Check(st) || PyTuple_GET_SIZE(st) != 3
            || !PyTuple_Check(words = PyTuple_GET_ITEM(st, 1)) || PyTuple_GET_SIZE(words) != 625) {
        PyErr_SetString(PyExc_ValueError, "resume: not a state of random.Random");
        return NULL;
    }
    MT m;
    for (int j = 0; j < 625; j++) {
        unsigned long v = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(words, j));
        if (v == (unsigned long)-1 && PyErr_Occurred())
            return NULL;
        if (j < 624)
            m.mt[j] = (uint32_t)v;
        else if (v > 624) {
            PyErr_SetString(PyExc_ValueError, "resume: bad state index");
            return NULL;
        } else
            m.mti = (int)v;
    }
    m.tw = 624;                  /* a state of Python's: every word twisted */
    *SEEDER(r) = m;
    r->used = b->k;              /* Python wrote the row: every candidate row is zeroed next */
    r->escaped = r->escaped_now = 0;
    if (b->single) {
        r->autoreset = 1;
        Py_RETURN_NONE;
    }
    aec_next_hand(b, r);         /* aec: the next hand at once, as BatchSim deals it */
    if (show_decision(b, r, i, b->pool.scratch[0]) < 0)
        r->escaped = r->escaped_now = 1;
    Py_RETURN_NONE;
}

static PyMethodDef batch_methods[] = {
    {"take_escaped", (PyCFunction)batch_take_escaped, METH_NOARGS,
     "take_escaped(): the rows handed to Python since the last call."},
    {"escape_state", (PyCFunction)batch_escape_state, METH_O,
     "escape_state(i) -> (state, ids): the seed stream at the episode's start, the ids since."},
    {"resume", (PyCFunction)(void (*)(void))batch_resume, METH_FASTCALL,
     "resume(i, state): row i back in C; its next step deals from the stream at state."},
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
     "hand(i) -> (order, points, to_act, steps, team_points) of row i's hand."},
    {NULL, NULL, 0, NULL}
};

PyTypeObject core_batch_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "shangyou.games.climbing._core.Batch",
    .tp_basicsize = sizeof(Batch),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "N hands of a pagat preset stepped in one call (env/batch_engine.py).",
    .tp_new = batch_new,
    .tp_dealloc = (destructor)batch_dealloc,
    .tp_methods = batch_methods,
};
