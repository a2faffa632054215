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

   The files: _core_row.c/.h (a row's rules: the deal, the bury, the calls, the play, the
   listing; usable without the Batch type), this one (the candidates in the env's order and
   pages, the observation, the steps of a row, the Python type: ../_batch_type.h writes what
   both batch engines have alike).

   tests/test_batch_engine_sheng_ji.py compares it with the Python environments row by row. */

#include "_core_row.h"
#include "../_batch_pool.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef SjRow Row;

typedef struct {
    Sink sink;                  /* a listing in the game's order (PyMem_Raw buffers) */
} Scratch;

typedef struct {
    PyObject_HEAD
    BATCH_FIELDS;
    SjRules rules;
    /* offsets into an observation (ShengJiEncoder's slices) */
    int o_hand, o_played, o_trick, o_lead, o_pending, o_buried, o_bid_cards, o_counts,
        o_trick_order, o_declarer, o_bidder, o_friends, o_partners, o_points_won, o_levels, o_level,
        o_trump_suit, o_phase, o_opp_points, o_penalty;
} Batch;

static int scratch_open(Scratch *sc);
static void scratch_close(Scratch *sc);
static void row_release(Row *r);
static int make_decision(const Batch *b, Row *r, Scratch *sc);
static void observe(const Batch *b, Row *r, int i, int seat, int decision);
static void aec_next_hand(const Batch *b, Row *r);
static void single_restart(const Batch *b, Row *r);
static int play_bots(const Batch *b, Row *r, Scratch *sc);
static inline int take_id(const Batch *b, Row *r, int64_t a);
static inline void hand_rewards(const Batch *b, const Row *r, double *out);
static inline int row_escaped(const Row *r);
static inline void row_unescape(Row *r);
static inline int row_failed(Row *r, int rc);

#define BATCH_MAX_PLAYERS MAXP
#define BATCH_ERROR_TEXT "game %d: no memory for its candidates (or a trick whose winner " \
                         "the core gave up on)"
#include "../_batch_type.h"

/* every decision is played in C */
static inline int
row_escaped(const Row *r)
{
    return 0;
}

static inline void
row_unescape(Row *r)
{
}

static inline int
row_failed(Row *r, int rc)
{
    r->error = 1;
    return 1;
}

static void
aec_next_hand(const Batch *b, Row *r)
{
    sj_row_deal(&b->rules, r, mt_below(SJ_SEEDER(r), 0x80000000U));
}

/* SingleAgentEnv._restart */
static void
single_restart(const Batch *b, Row *r)
{
    MT seeder;
    mt_seed(&seeder, mt_below(SJ_SEEDER(r), 0x80000000U));
    sj_row_deal(&b->rules, r, mt_below(&seeder, 0x80000000U));
    for (int s = 0; s < b->players; s++)
        if (s != b->seat)
            mt_seed(SJ_BOT(r, s), mt_below(SJ_SEEDER(r), 0x80000000U));
    r->autoreset = 0;
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
    if (sj_row_list(&b->rules, r, s) < 0)
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
            sj_sort_codes(r->pool + s->off[j], s->len[j]);
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
    unsigned char *o = observe_begin(b, r, i);
    int n = b->players;
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
            if (!declarers_side(&b->rules, r, s))
                opp += r->won[s];
    }
    for (int j = 0; j < r->nfriends; j++)
        o[b->o_friends + (r->friends[j] - seat + n) % n] = 1;
    if (b->rules.friends)                         /* no fixed teams: the seat itself */
        o[b->o_partners] = 1;
    for (int s = 0; s < n; s++) {
        if (!b->rules.friends && (s & 1) == (seat & 1))
            o[b->o_partners + (s - seat + n) % n] = 1;
        put(o, b->o_points_won + (s - seat + n) % n, r->won[s] / 5);
        put(o, b->o_levels + (s - seat + n) % n,
            sj_index(r->over ? r->levels_after[s] : b->rules.start_level));
    }
    o[b->o_level + sj_index(r->level)] = 1;
    if (r->has_trump)                       /* the suit, or 4: no trump */
        o[b->o_trump_suit + (r->trump_suit < 0 ? 4 : r->trump_suit)] = 1;
    o[b->o_phase + r->phase] = 1;
    put(o, b->o_opp_points, opp / 5);
    put(o, b->o_penalty, r->penalty < 0 ? 0 : r->penalty / 5);
    int stop, start = observe_page(b, r, i, o, decision, &stop);
    if (start < 0)
        return;
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
    observe_mask(b, r, i, o, start, stop, NCARD + E_MORE);
}

/* ------------------------------------------------------------------------- stepping */
/* the random opponents of the single-agent mode, until the learner acts or the hand ends */
static int
play_bots(const Batch *b, Row *r, Scratch *sc)
{
    Sink *s = &sc->sink;
    while (!r->over && r->to_act != b->seat) {
        if (sj_row_list(&b->rules, r, s) < 0)
            return -1;
        if (s->n == 0)
            return -1;
        Py_ssize_t j = mt_below(SJ_BOT(r, r->to_act), (uint32_t)s->n);
        unsigned char mc[MAXH];
        int nm = s->len[j];
        memcpy(mc, s->pool + s->off[j], (size_t)nm);
        if (sj_row_apply(&b->rules, r, s->kind[j], mc, nm) < 0)
            return -1;
    }
    return 0;
}

/* the id ``a`` (legal) for the decision now, counted: MORE turns the page (0), a candidate is
   played (1); -1 where the core gave up on the trick's winner */
static inline int
take_id(const Batch *b, Row *r, int64_t a)
{
    r->steps++;
    if (r->pages > 1 && a == b->k - 1) {
        r->page = (r->page + 1) % r->pages;
        return 0;
    }
    const Cand *c = &r->cand[r->page * r->per_page + a];
    unsigned char mc[MAXH];
    memcpy(mc, r->pool + c->off, c->n);
    return sj_row_apply(&b->rules, r, c->kind, mc, c->n) < 0 ? -1 : 1;
}

static inline void
hand_rewards(const Batch *b, const Row *r, double *out)
{
    sj_row_rewards(&b->rules, r, out);
}

/* ------------------------------------------------------------------------ Python */
static int
scratch_open(Scratch *sc)
{
    /* its own buffers (PyMem_Raw: they grow without the GIL where a listing needs it) */
    sc->sink.cap = 1024;
    sc->sink.pool_cap = 1 << 16;
    sc->sink.kind = PyMem_RawMalloc((size_t)sc->sink.cap);
    sc->sink.off = PyMem_RawMalloc((size_t)sc->sink.cap * sizeof(Py_ssize_t));
    sc->sink.len = PyMem_RawMalloc((size_t)sc->sink.cap * sizeof(int));
    sc->sink.pool = PyMem_RawMalloc((size_t)sc->sink.pool_cap);
    return sc->sink.kind == NULL || sc->sink.off == NULL || sc->sink.len == NULL
           || sc->sink.pool == NULL ? -1 : 0;
}

static void
scratch_close(Scratch *sc)
{
    sj_sink_free(&sc->sink);
}

static void
row_release(Row *r)
{
    free(r->cand);
    free(r->pool);
}

/* Batch(n_envs, players, k, layout, arrays, single, seat, max_steps, strict, illegal_reward,
         threads, rules): ``layout`` the observation's offsets (env/batch_engine.py),
   ``rules`` (decks, kitty, start_level, red_five, throw_penalty, no_bid, linear, jack_hook,
   must_play, friends, kitty_theft) as numbers */
#define BAD "Batch: bad rules or layout"

static PyObject *
batch_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    Batch *b = (Batch *)type->tp_alloc(type, 0);
    if (b == NULL)
        return NULL;
    int threads = 1;
    PyObject *layout, *arrays = NULL, *rules;
    if (!PyArg_ParseTuple(args, "iiiOOiilpdiO", &b->n_envs, &b->players, &b->k, &layout,
                          &arrays, &b->single, &b->seat, &b->max_steps, &b->strict,
                          &b->illegal_reward, &threads, &rules)
            || batch_check_table(b) < 0)
        goto bad;
    SjRules *g = &b->rules;
    g->players = b->players;
    int *const rf[11] = {&g->decks, &g->kitty, &g->start_level, &g->red5, &g->throw_penalty,
                         &g->no_bid, &g->linear, &g->jack_hook, &g->must_play, &g->friends,
                         &g->kitty_theft};
    if (batch_read_ints(rules, rf, 11, 1L << 20) < 0)
        goto bad;
    if (g->decks < 1 || g->decks > 4 || g->kitty > MAXH || g->start_level > 12 || g->red5 > 2
            || g->no_bid > 2 || g->friends >= MAXCALLS || (!g->friends && b->players % 2)
            || (NCARD * g->decks - g->kitty) % b->players
            || (NCARD * g->decks - g->kitty) / b->players + g->kitty > MAXH)
        goto bad;
    int *const fields[24] = {&b->o_hand, &b->o_played, &b->o_trick, &b->o_lead, &b->o_pending,
                             &b->o_buried, &b->o_bid_cards, &b->o_counts, &b->o_trick_order,
                             &b->o_declarer, &b->o_bidder, &b->o_friends, &b->o_partners,
                             &b->o_points_won, &b->o_levels, &b->o_level, &b->o_trump_suit,
                             &b->o_phase, &b->o_opp_points, &b->o_penalty, &b->o_page,
                             &b->o_cand, &b->width, &b->obs_size};
    if (batch_read_ints(layout, fields, 24, 1L << 30) < 0 || b->obs_size < 1
            || b->width < NCARD + E_NKINDS || b->o_cand + (long)b->k * b->width != b->obs_size)
        goto bad;
    return batch_finish(b, 1, arrays, threads, BAD);
bad:
    return batch_finish(b, 0, arrays, threads, BAD);
}

/* hand(i) -> None while the hand goes on, else (declarer, trump suit or -1, opponents'
   points, kitty points, multiplier, penalty, total, side_declarers, levels, level, levels
   after, hook, kitty cards, steps, friends): what _end_hand's summary is made of
   (env/sheng_ji_batch.py) */
static PyObject *
batch_hand(Batch *b, PyObject *arg)
{
    const Row *r = row_arg(b, arg);
    if (r == NULL)
        return NULL;
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
    BATCH_COMMON_DEFS,
    {"hand", (PyCFunction)batch_hand, METH_O,
     "hand(i): the scoring of row i's finished hand, or None."},
    {"take_escaped", (PyCFunction)batch_take_escaped, METH_NOARGS,
     "take_escaped(): always [] (no row is handed to Python)."},
    {NULL, NULL, 0, NULL}
};

BATCH_TYPE(sj_batch_type, "shangyou.games.sheng_ji._core.Batch",
           "N hands of a Sheng ji preset stepped in one call (env/batch_engine.py).", batch_new,
           batch_methods);
