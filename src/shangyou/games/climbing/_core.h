/* Shared declarations of the compiled core of the climbing games (_core.c: the Python
   module; _core_pagat.c: the pagat family's plays; _core_moves.c: the legal moves as a lazy
   sequence; _core_groups.c: the steps of a choice from that listing; _core_apply.c: the
   game's play phase; _core_playout.c: the search's playouts). */

#ifndef SHANGYOU_CORE_H
#define SHANGYOU_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define N_CARDS 54
#define N_RANKS 15
#define MAX_COPIES 4                       /* four packs */
#define MAX_RANK_CARDS (4 * MAX_COPIES)    /* naturals of one rank 3..2 */
#define MAX_HAND (N_CARDS * MAX_COPIES)    /* every card of four packs */
#define MAX_SEATS 8
#define TWO 12
#define BJ 13
#define RJ 14
#define ACE 11
#define BJ_CODE 52
#define RJ_CODE 53

/* A play's code: kind | f1 << 2 | f2 << 6 | f3 << 10 | pure << 18
   single: f1 rank; set: f1 rank, f3 size; sequence: f1 lo, f2 hi, f3 suit (4: mixed);
   multiple sequence: f1 lo, f2 hi, f3 cards per rank (core.py reads it back) */
#define K_SINGLE 0
#define K_SET 1
#define K_SEQ 2
#define K_MSEQ 3
#define CODE(kind, f1, f2, f3, pure) \
    ((long)(kind) | ((long)(f1) << 2) | ((long)(f2) << 6) | ((long)(f3) << 10) | \
     ((long)(pure) << 18))
#define CODE_KIND(code) ((int)((code) & 3))
#define CODE_F1(code) ((int)((code) >> 2 & 15))
#define CODE_F2(code) ((int)((code) >> 6 & 15))
#define CODE_F3(code) ((int)((code) >> 10 & 255))
#define CODE_PURE(code) ((int)((code) >> 18 & 1))

/* One play in C: its code and its cards (``n`` of them at ``off`` in the sink's pool; a
   negative ``n``: -n cards of one pack, given as a 64-bit set of card codes, its low and high
   halves at pool[off], pool[off + 1], see core_emit_mask). */
typedef struct {
    long code;
    int n;
    int off;
} Play;

/* Where generated plays go when not into a Python list: growable arrays. ``first``: stop
   at the first play (only whether there is one matters). */
typedef struct {
    Play *plays;
    Py_ssize_t n, cap;
    int *pool;
    Py_ssize_t pool_n, pool_cap;
    int first;
    int fixed;          /* plays and pool are the owner's own small arrays: never freed or
                           reallocated (growing past them copies them to the heap) */
    Py_ssize_t limit;   /* > 0: stop generating once this many plays are in (``over`` set) */
    int over;
    /* ``seen`` set (a bit per play code): only the first play of each code goes in, as
       steps_list keeps them past its cap (_core_steps.c); ``total`` counts every play
       generated, and past ``skip_after`` of them a code met again inside a window cuts the
       window short (SKIP). The owner clears the bits of the plays kept. */
    unsigned char *seen;
    Py_ssize_t total, skip_after;
} Sink;

/* the limit core_plays_new gives a new Plays sequence's sink (0: none); set by moves(...)
   around one generation (_core_moves.c) */
extern Py_ssize_t core_listing_limit;

/* The play to beat, as PagatFamily.follows reads it: kind -1 for leading, else the kind and
   a..d as in pagat_plays (see _core.c) */
typedef struct {
    int kind, a, b, c, d;
} Prev;

typedef struct {
    int n[N_RANKS];                         /* cards held per rank */
    int card[N_RANKS][MAX_RANK_CARDS];      /* those cards, in hand order (suit, then copy) */
    int suit_card[N_RANKS][4];              /* the card of rank r in suit s, or -1 */
    int size;
    int seq_top;
    PyObject *out;                          /* the Python list of plays, or NULL: */
    Sink *sink;                             /* ... then this sink */
    PyObject *code_obj;                     /* the int of the last code put in ``out`` */
    long code;
    /* when ``meta`` is set, ``out`` gets Combo objects (core_bind) instead of (code, cards):
       meta(code) -> (kind, cls, key, tier, label), memoised in the dict ``meta_cache``;
       ``singles``: a list of the single combo of each card, shared (or NULL) */
    PyObject *meta, *meta_cache, *singles;
    PyObject *last_meta;                    /* borrowed: the meta of ``code`` */
    /* when ``family`` is set too, the plays are the game's legal moves: they go into the
       sink of a Plays sequence (_core_moves.c), which makes each Move (of this family and
       token) when it is asked for */
    PyObject *family, *token;
    int mask_ok;                            /* the sink takes plays as sets of cards */
    int window;        /* 1 while the plays of one window are made (see SKIP) */
    int buf[MAX_HAND];                      /* the cards of the play being built */
} Gen;

/* emit's answer when a sink with ``first`` has its play: stop generating */
#define STOP 1
/* emit's answer while counting in steps (_core_steps.c) inside a window (``Gen.window``):
   the rest of the window is not needed; the window's function returns 0 */
#define SKIP 2

/* beat: the play to beat as a tuple of up to three ints, compared like Python tuples */
typedef struct {
    int has;
    int v[3];
} Beat;

/* one window of multiple sequences (_core_pagat.c): ranks lo..hi (m of them), k cards each;
   the 2s, black and red jokers held and how many wilds and jokers in all; per rank the most
   naturals a play uses (caps) and the fewest (lower: 0, or what picked cards need) */
typedef struct {
    int lo, hi, k, m;
    int nt, nb, nr, wild, jokers;
    int caps[12], lower[12], rest_def[13], rest_zero[13], counts[12];
    const Beat *beat;
} Multi;

/* _core.c */
extern PyTypeObject *core_combo_type, *core_move_type;  /* the bound classes (or NULL) */
extern Py_ssize_t core_combo_off[6], core_move_off[6];  /* the offsets of their slots */
extern PyObject *core_move_play, *core_move_pass;       /* the PLAY kind, PASS_MOVE */
#define SLOT(obj, off) (*(PyObject **)((char *)(obj) + (off)))
/* a Combo's slots (combo.py) and a Move's (engine/moves.py), by their index in the class */
#define COMBO_CLS 1
#define COMBO_KEY 2
#define COMBO_CARDS 3
#define COMBO_TIER 4
#define MOVE_KIND 0
#define MOVE_CARDS 1
#define MOVE_COMBO 2
#define MOVE_TOKEN 5
int core_read_hand(PyObject *hand, unsigned char *count, int max_copies);

/* an int's value when it is 0 or a single digit (CPython 3.11's layout; an int subclass such
   as cards.Card keeps it): a card code read without PyLong_AsLong; -1 for any other int
   (then the caller reads it the long way) */
static inline long
core_digit_int(PyObject *x)
{
#if PY_VERSION_HEX < 0x030C0000
    Py_ssize_t size = Py_SIZE(x);
    if (size == 0)
        return 0;
    if (size == 1)
        return (long)((PyLongObject *)x)->ob_digit[0];
#endif
    return -1;
}
PyObject *core_combo(PyObject *meta, PyObject *cards);  /* a new Combo, or NULL */
PyObject *core_move(Gen *g, PyObject *combo);           /* steals combo; a new Move or NULL */
/* Move(PLAY, combo.cards, combo, None, family, token); steals combo; a new Move or NULL */
PyObject *core_move_of(PyObject *combo, PyObject *family, PyObject *token);
int core_is_combo(PyObject *o);                         /* an object of the bound Combo? */
PyObject *core_pass_move(void);                         /* PASS_MOVE (borrowed), or NULL */
/* the meta of a play code (a new reference): meta_cache[code], else meta(code), memoised */
PyObject *core_meta(PyObject *meta, PyObject *meta_cache, PyObject *code);
int core_prev(PyObject *prev, Prev *out);               /* 1: read, 0: not a pagat play */
/* reading a play to beat: an int (or bool) of at most 2**20 in size; the index of a str
   among ``names`` (-1: none); a Combo's cls and key (tuples) and tier (1, or 0: not one) */
int core_small_int(PyObject *x, long *out);
int core_name_index(PyObject *x, const char *const *names, int n);
int core_combo_fields(PyObject *combo, PyObject **cls, PyObject **key, PyObject **tier);
int core_gen_output(Gen *g, PyObject *const *args, Py_ssize_t nargs, Py_ssize_t at,
                    int with_singles);
/* where a generator's plays go (after core_gen_output): a new list, or, when the output is
   the game's legal moves, a new Plays sequence (``following``: a pass comes first); NULL
   with an exception */
PyObject *core_gen_start(Gen *g, int following);

/* _core_moves.c: the legal moves as read-only sequences whose Move objects are made when
   asked for. Each type begins with a LazySeq: its length and how item i is made; the
   sequence protocol, comparisons, repr, index, count, pickling are shared with Sheng ji's
   core (../_lazy_seq.h, here named core_seq_*; defined in _core_moves.c). */
#define LAZY_SEQ(name) core_seq_##name
#include "../_lazy_seq.h"

#define SMALL_PLAYS 8           /* most follows: in the object itself, no other allocation */
#define SMALL_POOL 24

/* the game's legal moves as the generator left them (Plays, _core_moves.c) */
typedef struct {
    LazySeq seq;
    Sink sink;                  /* the plays, in order */
    Py_ssize_t pass_first;      /* 1: item 0 is PASS_MOVE */
    PyObject *meta, *meta_cache, *singles, *family, *token;   /* as in Gen; singles or NULL */
    PyObject **items;           /* the Move of each play, NULL until made (or no array yet) */
    Play small_plays[SMALL_PLAYS];
    int small_pool[SMALL_POOL];
    PyObject *small_items[SMALL_PLAYS];
} Plays;

extern PyTypeObject core_plays_type;
PyObject *core_plays_new(Gen *g, int following);       /* an empty Plays fed by g's sink */
PyObject *core_family_moves(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
/* the Combo of play j of a Plays (its Move's when made; a new reference), or NULL */
PyObject *core_plays_combo(Plays *p, Py_ssize_t j);
/* the cards of play j (a set of one pack spelled out into ``buf``); their number */
int core_plays_cards(const Plays *p, Py_ssize_t j, const int **cards, int *buf);
/* Move(CHOOSE, (), None, text, None, token): a new reference, or NULL */
PyObject *core_choose_move(PyObject *choose, PyObject *text, PyObject *token);

/* _core_groups.c: a listing's plays grouped for the choice in steps (Plays.groups), the first
   step's moves (Steps) and a chosen group's plays (Subset) */
extern PyTypeObject core_steps_type, core_subset_type;
PyObject *core_plays_groups(PyObject *plays, PyObject *const *args, Py_ssize_t nargs);

/* _core_apply.c */
PyObject *core_apply_listed(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_listed_moves(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_methods(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_set_active(PyObject *self, PyObject *flag);
int core_bind_game(PyObject *cls);   /* the offsets of ClimbingGame's slots */
PyObject *core_deal_hands(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

/* the plays of a hand into g's output (set by core_gen_output): each family's generator
   behind its *_plays function, and the play to beat read from a Combo as core.py reads it
   (1; 0: a play the core does not describe) */
PyObject *core_pagat_run(PyObject *hand, long seq_top, const Prev *prev, Gen *g);
PyObject *core_owen_run(PyObject *hand, const long *desc, Gen *g);
PyObject *core_zf_run(PyObject *hand, const long *desc, Gen *g);
PyObject *core_winner_run(PyObject *hand, const long *opts_and_desc, Gen *g);
int core_owen_prev(PyObject *prev, long *desc);
/* the Owen plays of a hand of one pack (counts) for a description (kind -1: the leads) */
int core_owen_generate(const unsigned char *count, int kind, int arg, int key, int tier,
                       Gen *g);
int core_zf_prev(PyObject *prev, long *desc);
/* the Zheng Fen plays of a hand of one pack (counts) for (kind, b0, b1; kind -1: leads) */
int core_zf_generate(const unsigned char *count, int kind, int b0, int b1, Gen *g);
int core_winner_prev(PyObject *prev, int rank_only, long *desc);
/* the "winner" plays of a hand (counts) for (min_straight, rank_only, quad, kind, a, b, c) */
int core_winner_generate(const unsigned char *count, const long *v, Gen *g);

/* _core_pagat.c */
int core_emit(Gen *g, long code, int ncards);      /* 0, STOP, or -1 with an exception */
/* the same for a play of ``ncards`` distinct cards given as a set (bit c: card code c) */
int core_emit_mask(Gen *g, long code, unsigned long long mask, int ncards);
/* the cards of a set, ascending, into ``out``; their number */
int core_mask_cards(unsigned long long mask, int *out);
int core_emit_object(Gen *g, long code, int ncards, PyObject *out);   /* 0 or -1 */
void gen_from_counts(Gen *g, const unsigned char *count, int seq_top);
void gen_from_set(Gen *g, unsigned long long hand, int seq_top);   /* one pack, as a set */
int pagat_generate(Gen *g, const Prev *prev);      /* 0, STOP, or -1 with an exception */
int pagat_generate_into(Gen *g, Sink *sink, const Prev *prev, int first);   /* the same, into sink */
void prev_of_code(long code, Prev *prev);

/* _core_steps.c: while ``core_steps_on``, core_emit counts and filters the plays
   (the choice of a play in steps) instead of listing them. A counting calls back into Python
   (the family lists the plays), where another thread may run and list plays of its own: the
   flag and the counting's state are the thread's own. */
extern _Thread_local int core_steps_on;
int core_steps_emit(Gen *g, long code, int ncards);     /* 0 or -1 */
PyObject *core_steps_begin(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_steps_end(PyObject *self, PyObject *unused);
PyObject *core_steps_list(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
int core_steps_filtering(void);          /* filtering the plays of a chosen group now? */
int core_steps_wants(long code);         /* is the code one of that group's? */
const unsigned char *core_steps_need(void);      /* the picked cards, counted */
Py_ssize_t core_steps_room(void);        /* how many more plays the filter keeps */
void core_steps_add(Py_ssize_t n, const unsigned char *most);   /* n plays counted */

/* _core_pagat_steps.c */
int core_multi_counted(Gen *g, Multi *w, int pure_ok, int impure_ok);

/* _core_playout.c */
PyObject *core_pagat_playout(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_plan(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

/* _core_batch.c, _core_batch_rules.c: the batch engine (env/batch_engine.py) */
extern PyTypeObject core_batch_type;
extern PyTypeObject core_heur_plan_type;      /* _core_hplan.c */

/* A hand's seats as the C games hold them (the batch engine, the playouts): ``size[s]``, the
   cards seat s holds, of n seats. */

/* ClimbingGame._next_with_cards: the first seat holding cards from ``seat`` on (``seat``
   itself when ``include_self``, else the next one), ``seat`` when none does */
static inline int
core_next_with_cards(const int *size, int n, int seat, int include_self)
{
    int s = include_self ? seat : (seat + 1) % n;
    for (int i = 0; i <= n; i++) {
        if (size[s])
            return s;
        s = (s + 1) % n;
    }
    return seat;
}

/* how many seats hold cards; *holder: the last of them (-1: none) */
static inline int
core_holding(const int *size, int n, int *holder)
{
    int holding = 0;
    *holder = -1;
    for (int s = 0; s < n; s++)
        if (size[s]) {
            holding++;
            *holder = s;
        }
    return holding;
}

/* ClimbingGame._do_play's pass: does it end the trick? Every seat still in the hand (n less
   the ``out`` gone out) has passed but the one that played last, while that one holds cards */
static inline int
core_passes_end_trick(int passes, int n, int out, int last_holds)
{
    return passes >= n - out - (last_holds ? 1 : 0);
}

/* _core_owen.c, _core_zf.c, _core_winner.c */
PyObject *core_owen_plays(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_zf_plays(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_winner_plays(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

#endif
