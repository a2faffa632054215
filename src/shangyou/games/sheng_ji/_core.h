/* The compiled core of Sheng ji: shared declarations.

   Cards are the ints of shangyou.cards (rank * 4 + suit, 52 BJ, 53 RJ). A Ctx is a trump
   context (order.Trump): per card its effective suit (0..3, TRUMP), its position in that suit
   (Trump.position) and the game's sort key (ShengJiGame.sort_key: suit, position, card) as
   one int. Hands and plays are card counts (int[NCARD]) wherever the order of the cards does
   not matter to the Python code (it sorts them). */

#ifndef SJ_CORE_H
#define SJ_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <string.h>

#define NCARD 54
_Static_assert(NCARD % 6 == 0, "the card scans go six at a time");
#define BJ 52
#define RJ 53
#define TRUMP 4
#define RED_FIVE 10             /* 5H: rank index 2, suit H */
#define MAXH 160                /* the most cards a hand, a play or a trick's play may hold */
#define MAXU 64                 /* the most units of one play */
#define MAXSEATS 16

typedef struct {
    int level, suit, red5;      /* suit -1: no trump */
    int eff[NCARD], pos[NCARD], key[NCARD];
    unsigned char by_key[NCARD];    /* the cards in the order of their keys (which begin
                                       with the effective suit: a suit is one run of it) */
    unsigned char run[TRUMP + 2];   /* effective suit s is by_key[run[s] .. run[s + 1] - 1] */
} Ctx;

/* a unit (order.Unit): width, length, top, its cards (sorted by card) */
typedef struct {
    int width, length, top, n;
    unsigned char cards[MAXH];
} SUnit;

/* the kinds of the listed moves (game.py: PLAY_K, THROW, COMMIT, PICK, BURY_K, PASS, BID,
   CALL_K). A K_CALL item of a sink holds its card, then the call's ordinal in the pool's next
   byte (its length says 1: the Move's cards are the card alone) */
enum { K_PLAY, K_THROW, K_COMMIT, K_PICK, K_BURY, K_PASS, K_BID, K_CALL, NKINDS };

/* the items of a listing, in order: each a kind and its cards */
typedef struct {
    Py_ssize_t n, cap, pool_n, pool_cap;
    int fixed;                  /* the buffers are not the sink's (they are copied to grow) */
    unsigned char *kind;
    Py_ssize_t *off;
    int *len;
    unsigned char *pool;
} Sink;

/* _core.c */
extern PyObject *sj_kind[NKINDS];       /* the kind strings of game.py */
extern PyObject *sj_commit_text;        /* "play" */
extern PyObject *sj_cards;              /* cards.CARDS: the 54 Card objects */
extern PyTypeObject *sj_card_type;      /* their class when read as an int (cards.Card) */
extern PyObject *sj_card_text;          /* cards.CARD_TEXT */
extern PyObject *sj_unit_type;          /* order.Unit */
extern PyTypeObject *sj_move_type;      /* engine.moves.Move */
extern Py_ssize_t sj_move_off[6];       /* its slots: kind, cards, combo, _text, family, token */
#define SLOT(obj, off) (*(PyObject **)((char *)(obj) + (off)))
#define M_KIND 0
#define M_CARDS 1
#define M_TEXT 3
#define M_TOKEN 5

/* _core_hand.c: the game class's ``to_act`` slot (ShengJiGame.__slots__), read and written at
   its offset: a move writes it, so a dict's key lookup each move is saved */
long sj_to_act(PyObject *game, long below);     /* the seat in [0, below), else -1 */
int sj_set_to_act(PyObject *game, PyObject *v); /* game.to_act = v: 0, or -1 (exception) */
int sj_set_to_act_long(PyObject *game, long seat);

/* a move of the listing ``token`` (its Move type and token): its kind (K_*), its cards tuple
   in *cards; -1 for any other object (the caller lets the Python code make it) */
static inline int
sj_listed_kind(PyObject *move, PyObject *token, PyObject **cards)
{
    if (sj_move_type == NULL || !Py_IS_TYPE(move, sj_move_type) ||
        SLOT(move, sj_move_off[M_TOKEN]) != token)
        return -1;
    PyObject *kind_o = SLOT(move, sj_move_off[M_KIND]);
    PyObject *mc = SLOT(move, sj_move_off[M_CARDS]);
    if (mc == NULL || !PyTuple_CheckExact(mc))
        return -1;
    for (int k = 0; k < NKINDS; k++)
        if (kind_o == sj_kind[k]) {
            *cards = mc;
            return k;
        }
    return -1;
}

/* out of memory: the exception where the caller holds the GIL; the batch engine's rows run
   without it (their memory is PyMem_Raw*, and a failure is reported by the row) */
static inline void
sj_no_memory(void)
{
    if (PyGILState_Check())
        PyErr_NoMemory();
}

void sj_ctx_make(Ctx *t, int level, int suit, int red5);
const Ctx *sj_ctx_read(PyObject *trump);          /* NULL: cannot (no exception) */
int sj_card_of(PyObject *x);                       /* 0..53, or -1 (no exception) */
int sj_read_cards(PyObject *seq, int *cnt, unsigned char *list, int cap);
PyObject *sj_cards_tuple(const unsigned char *cards, int n);
PyObject *sj_cards_text(const unsigned char *cards, int n);
int sj_sink_add(Sink *s, int kind, const unsigned char *cards, int n);
void sj_sink_free(Sink *s);
/* sj_sink_add inlined where the item fits the sink's room (the common case). The counts
   and the pool's address are read once into locals: a store through an unsigned char
   pointer may alias any of the sink's fields, so the compiler would read them again after
   every byte written */
static inline int
sj_sink_push(Sink *s, int kind, const unsigned char *cards, int n)
{
    Py_ssize_t i = s->n, at = s->pool_n;
    if (i == s->cap || at + n > s->pool_cap)
        return sj_sink_add(s, kind, cards, n);
    unsigned char *pool = s->pool + at;
    s->n = i + 1;
    s->pool_n = at + n;
    s->off[i] = at;
    s->len[i] = n;
    s->kind[i] = (unsigned char)kind;
    for (int k = 0; k < n; k++)
        pool[k] = cards[k];
    return 0;
}
/* objects kept for reuse (the core's Move objects, the listings' tokens; _core_seq.c,
   _core_hand.c): one the pool alone holds (no other reference is left, so nothing can tell
   it from a new one) is handed out again, looked for in a few places from *at on; a new
   reference, or NULL (none found: the caller makes one and adds it, sj_pool_add). The GIL
   guards a pool: no Python code runs between the look and the reuse */
static inline PyObject *
sj_pool_take(PyObject **pool, int n, int *at, PyTypeObject *type)
{
    for (int k = 0; k < 4 && n > 0; k++) {
        PyObject *o = pool[*at];
        *at = *at + 1 < n ? *at + 1 : 0;
        if (Py_REFCNT(o) == 1 && Py_IS_TYPE(o, type))
            return Py_NewRef(o);
    }
    return NULL;
}

static inline void
sj_pool_add(PyObject **pool, int *n, int cap, PyObject *o)
{
    if (*n < cap)
        pool[(*n)++] = Py_NewRef(o);
}

void sj_sort_by_key(const Ctx *t, unsigned char *cards, int n);
/* the n codes sorted in place, ascending (_core_row.c); n */
int sj_sort_codes(unsigned char *a, int n);

/* _core_seq.c */
/* the lazy sequence's shared methods (../_lazy_seq.h, shared with the climbing core; here
   named sj_seq_*, defined in _core_seq.c) */
#define LAZY_SEQ(name) sj_seq_##name
#include "../_lazy_seq.h"
extern PyTypeObject sj_moves_type;
PyObject *sj_moves_new(PyObject *token, Sink **sink);  /* its sink, to be filled */

/* _core_units.c */
int sj_decompose(const Ctx *t, const int *cnt, SUnit *units);
int sj_match_tops(const Ctx *t, const SUnit *units, int nu, const int *cnt, int *tops);
int sj_trick_winner(const Ctx *t, int nplays, const int (*cnt)[NCARD],
                    const unsigned char (*cards)[MAXH], const int *ncards);
int sj_throw_check(const Ctx *t, const SUnit *units, int nu, int suit,
                   const int (*others)[NCARD], int nothers);
int sj_lead_units(const Ctx *t, const int *cnt, int decks, Sink *out);

/* _core_follow.c */
int sj_follows(const Ctx *t, const int *hand, const int *lead, int nlead,
               const SUnit *units, int nu, int limit, Sink *out);
int sj_follow_single(const Ctx *t, const int *hand, int lc, Sink *out);
int sj_next_cards(const Ctx *t, const int *hand, const int *lead, int nlead,
                  const SUnit *units, int nu, const int *chosen, unsigned char *out);

/* _core_moves.c, _core_apply.c */
PyObject *sj_list_moves(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *sj_apply_listed(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *sj_methods(PyObject *self, PyObject *cls);
PyObject *sj_set_active(PyObject *self, PyObject *flag);
PyObject *sj_draw(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
/* _core_records.c: the deal's record, a clone's packing */
PyObject *sj_dealt(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *sj_pack_clone(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *sj_card_lists(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
int sj_names(void);
int sj_unpacked(PyObject *game, PyObject *d);

/* _core_seq.c: the codes of the listing's item random.choice made (-1: read the tuple) */
int sj_moves_codes(PyObject *legal, PyObject *move, int kind, PyObject *mcards,
                   unsigned char *out);
/* _core_moves.c: the play phase's listing from card counts (lead NULL: leading; lc, the card
   led where it is one card) */
PyObject *sj_list_play(const Ctx *t, const int *hand, const int *pend,
                       const unsigned char *plist, int np, const int *lead, int nl, int lc,
                       int decks, PyObject *token);
/* _core_apply.c: a list of order.Unit objects */
int sj_unit_list(const SUnit *units, int nu, PyObject **out);

/* _core_hand.c: the hand's play state held in C behind the game (docs/core-sheng-ji.md) */
extern PyTypeObject sj_held_type;
int sj_held_bind(PyObject *cls);                  /* the class's ``_st`` slot; 0 or -1 */
/* the attributes made from the held state, and the state let go: 1 made, 0 none held, -1 */
int sj_held_flush(PyObject *game);
/* ShengJiGame.legal_moves while the hand is held (or can be): a new reference, or NULL
   (with an exception, or none: the dict's path lists) */
PyObject *sj_held_legal(PyObject *game);
/* apply_listed while the hand is held: 1 made, 0 not made (nothing changed), -1 error */
int sj_held_apply(PyObject *game, PyObject *move, PyObject *seat);
PyObject *sj_flush(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *sj_add_event(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

/* _core_rollout.c: the search's playout (bots/sheng_ji_search.py, Sim.run) */
PyObject *sj_rollout(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
extern PyObject *S_phase, *S_to_act, *S_hands, *S_trick, *S_pending, *S_trump, *S_rules,
    *S_token, *S_legal, *S_moves, *S_events, *S_won, *S_tricks, *S_lead_units, *S_n,
    *S_theft_round, *S_lazy, *S_unpack, *S_declarer, *S_friends, *S_seen_counts, *S_calls, *S_call_results,
    *S_penalty_points, *S_decks, *S_teams, *S_throw_penalty, *S_play, *S_bury, *S_buried,
    *S_to_bury, *S_stock, *S_next_draw, *S_drawn_by, *S_bid, *S_level_rank, *S_seat,
    *S_card, *S_count, *S_event, *S_cards_key, *S_winner, *S_points, *S_plays, *S_tried,
    *S_forced, *S_ev_play, *S_ev_trick, *S_ev_failed, *S_space, *S_level, *S_suit,
    *S_red_five, *S_kitty_owner, *S_width, *S_length, *S_top, *S_deal, *S_bid_log,
    *S_advance_deal, *S_advance_deal_py, *S_end_deal;

/* scoring.level_change: the opponents' points ``p`` with ``u`` = 20 a pack; returns the
   levels the winning side goes up and sets *declarers_win (_core_ends.c, _core_row.c) */
static inline long
sj_level_change(long p, long u, int *declarers_win)
{
    *declarers_win = p < 2 * u;
    if (p < 0)
        return 4 + (-p) / u;
    if (p == 0)
        return 3;
    if (p < u)
        return 2;
    if (p < 2 * u)
        return 1;
    if (p < 3 * u)
        return 0;
    if (p < 4 * u)
        return 1;
    if (p < 5 * u)
        return 2;
    return 3 + (p - 5 * u) / u;
}

/* _core_batch.c (and _core_row.c, a row's rules): the batch engine (env/batch_engine.py) */
extern PyTypeObject sj_batch_type;

#endif
