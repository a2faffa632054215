/* The climbing batch engine's rows and Batch type, shared by its files: _core_batch_rules.c
   (a hand's deal and play, the listing of a decision in the env's order) and _core_batch.c
   (the observation, the steps, the Python type). _core_batch.c's docstring says what the
   engine plays. */
#ifndef SHANGYOU_CLIMBING_CORE_BATCH_H
#define SHANGYOU_CLIMBING_CORE_BATCH_H

#include "_core.h"
#include "../_batch_pool.h"     /* the Mersenne Twister (../_mt.h), the pool, the arrays */
#include <stdint.h>
#include <string.h>

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
    BATCH_FIELDS;               /* ../_batch_pool.h */
    int seq_top;
    int limit;                  /* the most plays a decision lists here (tests lower it) */
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
        o_leading, o_phase, pass_at, play_at, more_at, extra_at, o_won,
        o_table;
};

/* _core_batch_rules.c: a hand on a row */
/* ClimbingGame.__init__ and _start_hand for one hand dealt from ``game_seed`` */
void batch_deal(const Batch *b, Row *r, uint32_t game_seed);
/* ClimbingGame._do_play of the seat to act: the play of ``code`` (-1: the pass) */
void batch_apply_play(const Batch *b, Row *r, long code, Bag cards, int ncards);
/* the points of a hand (``pts`` each seat's, ``tp`` each team's) */
void batch_hand_points(const Batch *b, const Row *r, int *pts, int *tp);
/* env/aec.py's rewards_of */
void batch_hand_rewards(const Batch *b, const Row *r, double *out);
/* the plays of the seat to act into the thread's sink, in the generator's order; -1 past
   the listing limit */
int batch_list_plays(const Batch *b, Row *r, Scratch *sc);
/* the candidates of the decision now, in the env's order, and page 0: -1 where the engine
   does not list it */
int batch_make_decision(const Batch *b, Row *r, Scratch *sc);

#endif
