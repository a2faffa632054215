/* The batch engine: N hands of a climbing preset stepped in one call, the observations,
   masks, rewards and flags written into arrays the caller gave, the GIL released and the rows
   split over a small pool of threads (env/batch_engine.py is its Python face, docs/env.md its
   description).

   It plays exactly what the Python environments play, which stay the reference
   (tests/test_batch_engine.py compares them row by row):

   - the deal of ClimbingGame._start_hand from the seeds of ShangyouAEC.reset (and, in the
     single-agent mode, of SingleAgentEnv._restart), with Python's Mersenne Twister
     (random.Random(int): init_by_array, getrandbits, _randbelow) of ../_mt.h;
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
   and the candidates compare as sets.

   The files: _core_batch.h (the rows, the Batch type's fields), _core_batch_rules.c (a hand's
   deal and play, the listing of a decision in the env's order), this one (the observation,
   the steps of a row, the Python type: ../_batch_type.h writes what both batch engines have
   alike). */

#include "_core_batch.h"
#include <stdlib.h>

static int scratch_open(Scratch *sc);
static void scratch_close(Scratch *sc);
static void row_release(Row *r);
static void observe(const Batch *b, Row *r, int i, int seat, int decision);
static void aec_next_hand(const Batch *b, Row *r);
static void single_restart(const Batch *b, Row *r);
static int play_bots(const Batch *b, Row *r, Scratch *sc);
static inline int take_id(const Batch *b, Row *r, int64_t a);

static inline int
make_decision(const Batch *b, Row *r, Scratch *sc)
{
    return batch_make_decision(b, r, sc);
}

static inline void
hand_rewards(const Batch *b, const Row *r, double *out)
{
    batch_hand_rewards(b, r, out);
}

/* single mode: a decision the engine does not list hands the row's episode to Python (-1);
   any other failure is out of memory */
static inline int
row_escaped(const Row *r)
{
    return r->escaped;
}

static inline void
row_unescape(Row *r)
{
    r->escaped = r->escaped_now = 0;
}

static inline int
row_failed(Row *r, int rc)
{
    if (rc == -1) {
        r->escaped = r->escaped_now = 1;
        return 0;
    }
    r->error = 1;
    return 1;
}

#define BATCH_MAX_PLAYERS MAX_SEATS
#define BATCH_ERROR_TEXT "game %d: no memory for its candidates"
#include "../_batch_type.h"

/* ShangyouAEC.reset(): the next hand of the row's seed stream */
static void
aec_next_hand(const Batch *b, Row *r)
{
    *START(r) = *SEEDER(r);
    r->nlog = 0;
    batch_deal(b, r, mt_below(SEEDER(r), 0x80000000U));
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
    batch_deal(b, r, mt_below(&seeder, 0x80000000U));
    for (int s = 0; s < b->players; s++)
        if (s != b->seat)
            mt_seed(BOT(r, s), mt_below(SEEDER(r), 0x80000000U));
    r->autoreset = 0;
}

/* ------------------------------------------------------------------- the observation */

/* ClimbingEncoder.write for ``seat`` (with its decision when ``decision``) into row i of the
   observations, and its mask; ``two``: two packs (a constant where it is inlined, so that
   the one-pack engine does not test for cards held twice) */
static inline __attribute__((always_inline)) void
observe_packs(const Batch *b, Row *r, int i, int seat, int decision, const int two)
{
    unsigned char *o = observe_begin(b, r, i);
    int n = b->players;
    /* the head, zeroed and written whole; the candidate rows the last write used, zeroed */
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
    int stop, start = observe_page(b, r, i, o, decision, &stop);
    if (start < 0)
        return;
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
    observe_mask(b, r, i, o, start, stop, b->more_at);
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
/* the random opponents of the single-agent mode, until the learner acts or the hand ends */
static int
play_bots(const Batch *b, Row *r, Scratch *sc)
{
    while (!r->over && r->to_act != b->seat) {
        if (batch_list_plays(b, r, sc) < 0)
            return -1;
        int pf = r->has_last ? 1 : 0;
        Py_ssize_t n = sc->sink.n + pf;
        if (n > STEP_LIMIT || n > b->limit)
            return -1;                 /* legal_moves would offer the steps of a choice */
        Py_ssize_t j = mt_below(BOT(r, r->to_act), (uint32_t)n);
        if (j < pf)
            batch_apply_play(b, r, -1, (Bag){0, 0}, 0);
        else
            batch_apply_play(b, r, sc->sink.plays[j - pf].code,
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
    batch_apply_play(b, r, c->code, c->cards, c->n);
    return 1;
}

/* ------------------------------------------------------------------------ Python */
static int
scratch_open(Scratch *sc)
{
    /* fixed arrays large enough for every listing up to the limit: the sink never grows
       (growing would call the Python allocator, without the GIL) */
    sc->sink.cap = BATCH_LIMIT;
    sc->sink.pool_cap = (Py_ssize_t)BATCH_LIMIT * N_CARDS;
    sc->sink.plays = PyMem_RawMalloc((size_t)sc->sink.cap * sizeof(Play));
    sc->sink.pool = PyMem_RawMalloc((size_t)sc->sink.pool_cap * sizeof(int));
    sc->sink.fixed = 1;
    sc->sink.limit = BATCH_LIMIT;
    return sc->sink.plays == NULL || sc->sink.pool == NULL ? -1 : 0;
}

static void
scratch_close(Scratch *sc)
{
    PyMem_RawFree(sc->sink.plays);
    PyMem_RawFree(sc->sink.pool);
}

static void
row_release(Row *r)
{
    free(r->cand);
    free(r->log);
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
#define BAD "Batch: bad teams or layout"

static PyObject *
batch_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
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
    int threads = 1;
    PyObject *teams, *layout, *arrays = NULL;
    if (!PyArg_ParseTuple(args, "iiiOiOOiilpdi|ippiiiiplppi", &b->n_envs, &b->players,
                          &b->seq_top, &teams, &b->k, &layout, &arrays, &b->single, &b->seat,
                          &b->max_steps, &b->strict, &b->illegal_reward, &threads, &b->limit,
                          &b->teams6, &b->random_card, &b->family, &b->dealt, &b->leader_card,
                          &b->deck, &b->cards_left, &b->wopts[0], &b->wopts[1], &b->wopts[2],
                          &b->packs))
        goto bad;
    int players = b->players, k = b->k;
    int family = b->family, deck = b->deck, packs = b->packs;
    if (family < FAM_PAGAT || family > FAM_ZF || (deck != N_CARDS && deck != 52)
            || packs < 1 || packs > 2 || (packs == 2 && family != FAM_PAGAT
                                          && family != FAM_WINNER)
            || b->dealt < players || b->dealt > deck * packs || b->leader_card < -1
            || b->leader_card >= deck || b->wopts[0] < 3 || b->wopts[0] > 13) {
        PyErr_SetString(PyExc_ValueError, "Batch: bad family, deal or leader");
        goto bad;
    }
    if (b->limit < 1 || b->limit > BATCH_LIMIT) {
        PyErr_SetString(PyExc_ValueError, "Batch: bad listing limit");
        goto bad;
    }
    if (batch_check_table(b) < 0)
        goto bad;
    if (b->seq_top != ACE && b->seq_top != TWO) {
        PyErr_SetString(PyExc_ValueError, "Batch: bad arguments");
        goto bad;
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
    int *const fields[19] = {&b->o_played, &b->o_last, &b->o_counts, &b->o_finished,
                             &b->o_passed, &b->o_last_seat, &b->o_partners, &b->o_leading,
                             &b->o_phase, &b->o_page, &b->o_cand, &b->width, &b->pass_at,
                             &b->play_at, &b->more_at, &b->extra_at, &b->obs_size, &b->o_won,
                             &b->o_table};
    if (batch_read_ints(layout, fields, 19, 1L << 30) < 0)
        goto bad;
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
    return batch_finish(b, 1, arrays, threads, BAD);
bad:
    return batch_finish(b, 0, arrays, threads, BAD);
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
        batch_hand_points(b, r, pts, tp);
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
    BATCH_COMMON_DEFS,
    {"take_escaped", (PyCFunction)batch_take_escaped, METH_NOARGS,
     "take_escaped(): the rows handed to Python since the last call."},
    {"escape_state", (PyCFunction)batch_escape_state, METH_O,
     "escape_state(i) -> (state, ids): the seed stream at the episode's start, the ids since."},
    {"resume", (PyCFunction)(void (*)(void))batch_resume, METH_FASTCALL,
     "resume(i, state): row i back in C; its next step deals from the stream at state."},
    {"hand", (PyCFunction)batch_hand, METH_O,
     "hand(i) -> (order, points, to_act, steps, team_points) of row i's hand."},
    {NULL, NULL, 0, NULL}
};

BATCH_TYPE(core_batch_type, "shangyou.games.climbing._core.Batch",
           "N hands of a pagat preset stepped in one call (env/batch_engine.py).", batch_new,
           batch_methods);
