/* The game's legal moves as a lazy sequence: ``Plays``.

   ClimbingGame.legal_moves answers with a sequence of Move objects. When the compiled core
   lists a state's plays (moves, or a family's *_plays with family and token), it gives
   a Plays: the plays stay in C as they were generated (a Sink: each play's integer code and
   its cards), and a play's Combo and Move are made only when that item is asked for
   (indexing, iterating), once: the same item gives the same Move object again. ``len`` and
   ``random.choice`` (a length and one index) make one Move, whatever the number of plays.
   When the state has a play to beat, item 0 is PASS_MOVE, as in the Python listing.

   The items, their order and their contents are exactly those of the list the Python code
   makes (ClimbingGame._play_moves from the family's leads / follows); the sequence cannot be
   changed. It compares equal to a list of the same moves, concatenates with a list (giving a
   list), pickles and copies as a list, and is registered as a collections.abc.Sequence
   (core.py). ``codes()`` gives the plays' codes (without the pass), for tests and tools.

   Those list-like methods are shared (core_seq_*, ../_lazy_seq.h, defined here) with the
   other lazy sequences of moves, the steps of a choice (Steps, Subset in _core_groups.c) and
   Sheng ji's Moves: each begins with a LazySeq. */

#include "_core.h"
#define LAZY_SEQ_DEFINE
#include "../_lazy_seq.h"

static Py_ssize_t
plays_len(LazySeq *s)
{
    Plays *p = (Plays *)s;
    return p->sink.n + p->pass_first;
}

static PyObject *plays_item_of(LazySeq *s, Py_ssize_t i);

PyObject *
core_plays_new(Gen *g, int following)
{
    Plays *p = PyObject_New(Plays, &core_plays_type);
    if (p == NULL)
        return NULL;
    p->seq.len = plays_len;
    p->seq.item = plays_item_of;
    memset(&p->sink, 0, sizeof p->sink);
    p->sink.plays = p->small_plays;
    p->sink.cap = SMALL_PLAYS;
    p->sink.pool = p->small_pool;
    p->sink.pool_cap = SMALL_POOL;
    p->sink.fixed = 1;
    p->sink.limit = core_listing_limit;
    p->pass_first = following ? 1 : 0;
    p->meta = g->meta;
    p->meta_cache = g->meta_cache;
    p->singles = g->singles;
    p->family = g->family;
    p->token = g->token;
    Py_XINCREF(p->meta);
    Py_XINCREF(p->meta_cache);
    Py_XINCREF(p->singles);
    Py_XINCREF(p->family);
    Py_XINCREF(p->token);
    p->items = NULL;
    g->out = NULL;
    g->sink = &p->sink;
    g->mask_ok = 1;
    return (PyObject *)p;
}

static void
plays_dealloc(Plays *p)
{
    lazy_seq_items_free(p->items, p->small_items, p->sink.n);
    if (!p->sink.fixed) {
        PyMem_Free(p->sink.plays);
        PyMem_Free(p->sink.pool);
    }
    Py_XDECREF(p->meta);
    Py_XDECREF(p->meta_cache);
    Py_XDECREF(p->singles);
    Py_XDECREF(p->family);
    Py_XDECREF(p->token);
    PyObject_Free(p);
}

int
core_plays_cards(const Plays *p, Py_ssize_t j, const int **cards, int *buf)
{
    const Play *pl = &p->sink.plays[j];
    const int *got = p->sink.pool + pl->off;
    int ncards = pl->n;
    if (ncards < 0) {                  /* a set of cards of one pack */
        const unsigned int *half = (const unsigned int *)got;
        ncards = core_mask_cards((unsigned long long)half[0] |
                                 (unsigned long long)half[1] << 32, buf);
        got = buf;
    }
    *cards = got;
    return ncards;
}

/* the Combo of play j, made (a new reference): from the code's meta, or the family's shared
   single combo of the card (pagat, as core_emit) */
static PyObject *
make_combo(Plays *p, Py_ssize_t j)
{
    const Play *pl = &p->sink.plays[j];
    const int *cards;
    int set_cards[64];
    int ncards = core_plays_cards(p, j, &cards, set_cards);
    PyObject *combo;
    if (p->singles != NULL && CODE_KIND(pl->code) == K_SINGLE && ncards == 1) {
        combo = PyList_GetItem(p->singles, cards[0]);
        Py_XINCREF(combo);
        return combo;
    }
    PyObject *code = PyLong_FromLong(pl->code);
    if (code == NULL)
        return NULL;
    PyObject *meta = core_meta(p->meta, p->meta_cache, code);
    Py_DECREF(code);
    if (meta == NULL)
        return NULL;
    PyObject *t = PyTuple_New(ncards);
    if (t == NULL) {
        Py_DECREF(meta);
        return NULL;
    }
    for (int i = 0; i < ncards; i++) {
        PyObject *c = PyLong_FromLong(cards[i]);      /* 0..53: the shared small ints */
        if (c == NULL) {
            Py_DECREF(t);
            Py_DECREF(meta);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, c);
    }
    PyObject_GC_UnTrack(t);           /* ints only: as the collector would do */
    combo = core_combo(meta, t);
    Py_DECREF(t);
    Py_DECREF(meta);
    return combo;
}

PyObject *
core_plays_combo(Plays *p, Py_ssize_t j)
{
    if (p->items != NULL && p->items[j] != NULL) {
        PyObject *combo = SLOT(p->items[j], core_move_off[MOVE_COMBO]);
        Py_INCREF(combo);
        return combo;
    }
    return make_combo(p, j);
}

/* item i, 0 <= i < len (a new reference) */
static PyObject *
plays_item_of(LazySeq *s, Py_ssize_t i)
{
    Plays *p = (Plays *)s;
    if (i < p->pass_first) {
        Py_INCREF(core_move_pass);
        return core_move_pass;
    }
    Py_ssize_t j = i - p->pass_first;
    if (lazy_seq_items(&p->items, p->small_items, SMALL_PLAYS, p->sink.n) == NULL)
        return NULL;
    PyObject *m = p->items[j];
    if (m == NULL) {
        PyObject *combo = make_combo(p, j);
        if (combo == NULL)
            return NULL;
        m = core_move_of(combo, p->family, p->token);
        if (m == NULL)
            return NULL;
        p->items[j] = m;
    }
    Py_INCREF(m);
    return m;
}

/* ------------------------------------------------------------------------ Plays */
static PyObject *
plays_codes(Plays *p, PyObject *unused)
{
    PyObject *out = PyList_New(p->sink.n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t j = 0; j < p->sink.n; j++) {
        PyObject *c = PyLong_FromLong(p->sink.plays[j].code);
        if (c == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, j, c);
    }
    return out;
}

/* Move(CHOOSE, (), None, text, None, token) */
PyObject *
core_choose_move(PyObject *choose, PyObject *text, PyObject *token)
{
    PyObject *o = core_move_type->tp_alloc(core_move_type, 0);
    if (o == NULL)
        return NULL;
    PyObject *empty = PyTuple_New(0);
    if (empty == NULL) {
        Py_DECREF(o);
        return NULL;
    }
    PyObject *v[6] = {choose, empty, Py_None, text, Py_None, token};
    for (int i = 0; i < 6; i++) {
        if (i != MOVE_CARDS)
            Py_INCREF(v[i]);
        SLOT(o, core_move_off[i]) = v[i];
    }
    return o;
}

/* ------------------------------------------------- the environments' candidates (env/) */
/* env_sort() -> list | None: the items' indices in the environments' candidate order (the
   pass first, then the plays by number of cards, then by their cards as Move.cards holds
   them: env/encoding.py's sort_moves), without making a Move; None when two plays hold the
   same cards (readings of wild cards: sort_moves orders those by reading, from the Move).
   env_rows(buf, at, order, start, stop, width, pass_at, play_at): add the candidate rows of
   items order[start:stop] at buf[at:] (rows of ``width`` bytes, zeros before: each card's
   count, 1 at the kind's column; the reading ordinal stays 0, as no two plays share cards),
   as env/encoding.py's _rows_py writes them from the Moves. The env's Python path (Pager of
   Move objects) is the reference; tests/test_env_plays.py compares the two. */
typedef struct {
    const int *cards;
    int n;
} EnvKey;

static int
env_less(const EnvKey *a, const EnvKey *b)      /* a < b; -1 if equal */
{
    if (a->n != b->n)
        return a->n < b->n;
    for (int i = 0; i < a->n; i++)
        if (a->cards[i] != b->cards[i])
            return a->cards[i] < b->cards[i];
    return -1;
}

static PyObject *
plays_env_sort(Plays *p, PyObject *unused)
{
    Py_ssize_t n = p->sink.n, pf = p->pass_first;
    EnvKey *keys = PyMem_Malloc(sizeof(EnvKey) * (size_t)(n + 1));
    Py_ssize_t *idx = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(2 * n + 1));
    int *sets = NULL;
    PyObject *out = NULL;
    if (keys == NULL || idx == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t nsets = 0;
    for (Py_ssize_t j = 0; j < n; j++)
        if (p->sink.plays[j].n < 0)
            nsets++;
    if (nsets > 0 && (sets = PyMem_Malloc(sizeof(int) * 64 * (size_t)nsets)) == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int *set_at = sets;
    for (Py_ssize_t j = 0; j < n; j++) {
        const int *cards;
        int ncards;
        if (p->sink.plays[j].n < 0) {
            ncards = core_plays_cards(p, j, &cards, set_at);
            set_at += 64;
        } else {
            ncards = core_plays_cards(p, j, &cards, NULL);
        }
        keys[j].cards = cards;
        keys[j].n = ncards;
        idx[j] = j;
    }
    /* stable merge sort of idx[0..n) by keys, bottom up, through idx[n..2n) */
    Py_ssize_t *a = idx, *b = idx + n;
    for (Py_ssize_t w = 1; w < n; w *= 2) {
        for (Py_ssize_t lo = 0; lo < n; lo += 2 * w) {
            Py_ssize_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            Py_ssize_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                b[k++] = env_less(&keys[a[j]], &keys[a[i]]) == 1 ? a[j++] : a[i++];
            while (i < mid)
                b[k++] = a[i++];
            while (j < hi)
                b[k++] = a[j++];
        }
        Py_ssize_t *t = a;
        a = b;
        b = t;
    }
    for (Py_ssize_t i = 1; i < n; i++)
        if (env_less(&keys[a[i - 1]], &keys[a[i]]) == -1) {     /* two plays, same cards */
            out = Py_None;
            Py_INCREF(out);
            goto done;
        }
    if ((out = PyList_New(n + pf)) == NULL)
        goto done;
    if (pf)
        PyList_SET_ITEM(out, 0, PyLong_FromLong(0));
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyLong_FromSsize_t(a[i] + pf);
        if (v == NULL) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, i + pf, v);
    }
done:
    PyMem_Free(keys);
    PyMem_Free(idx);
    PyMem_Free(sets);
    return out;
}

static PyObject *
plays_env_rows(Plays *p, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError,
                        "env_rows(buf, at, order, start, stop, width, pass_at, play_at)");
        return NULL;
    }
    PyObject *order = args[2];
    if (!PyList_Check(order)) {
        PyErr_SetString(PyExc_TypeError, "order must be a list");
        return NULL;
    }
    Py_ssize_t v[6];
    for (int i = 0; i < 6; i++) {
        v[i] = PyLong_AsSsize_t(args[i < 1 ? 1 : i + 2]);
        if (v[i] == -1 && PyErr_Occurred())
            return NULL;
    }
    Py_ssize_t at = v[0], start = v[1], stop = v[2], width = v[3], pass_at = v[4],
        play_at = v[5], len = p->sink.n + p->pass_first;
    if (start < 0 || stop < start || stop > PyList_GET_SIZE(order) || width < 54
            || pass_at < 54 || pass_at >= width || play_at < 54 || play_at >= width) {
        PyErr_SetString(PyExc_ValueError, "bad rows");
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_WRITABLE) < 0)
        return NULL;
    if (at < 0 || at + (stop - start) * width > view.len) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "the rows do not fit the buffer");
        return NULL;
    }
    unsigned char *row = (unsigned char *)view.buf + at;
    for (Py_ssize_t i = start; i < stop; i++, row += width) {
        Py_ssize_t item = PyLong_AsSsize_t(PyList_GET_ITEM(order, i));
        if (item < 0 || item >= len) {
            PyBuffer_Release(&view);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "an item out of range in order");
            return NULL;
        }
        if (item < p->pass_first) {
            row[pass_at] = 1;
            continue;
        }
        const int *cards;
        int set_cards[64];
        int ncards = core_plays_cards(p, item - p->pass_first, &cards, set_cards);
        for (int c = 0; c < ncards; c++)
            row[cards[c]]++;
        row[play_at] = 1;
    }
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

static PyMethodDef plays_methods[] = {
    LAZY_SEQ_METHODS,
    {"codes", (PyCFunction)plays_codes, METH_NOARGS,
     "codes(): each play's integer code, in order (the pass, if any, left out)."},
    {"env_sort", (PyCFunction)plays_env_sort, METH_NOARGS,
     "env_sort(): the items' indices in the environments' candidate order, or None when two "
     "plays hold the same cards."},
    {"env_rows", (PyCFunction)(void (*)(void))plays_env_rows, METH_FASTCALL,
     "env_rows(buf, at, order, start, stop, width, pass_at, play_at): add the candidate rows "
     "of items order[start:stop] at buf[at:]."},
    {"groups", (PyCFunction)(void (*)(void))core_plays_groups, METH_FASTCALL,
     "groups(texts, text_of, choose): the plays grouped for the choice in steps, the first "
     "step's moves (a Steps sequence; _core_groups.c)."},
    {NULL, NULL, 0, NULL}
};

PyTypeObject core_plays_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "shangyou.games.climbing._core.Plays",
    .tp_doc = "The legal moves of one state, made into Move objects when asked for.",
    .tp_basicsize = sizeof(Plays),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)plays_dealloc,
    LAZY_SEQ_TYPE_SLOTS,
    .tp_methods = plays_methods,
};

/* ------------------------------------------------------------------ moves(...) */
/* moves(spec, family, hand, last, token): the legal moves of ClimbingGame._play_moves in one
   call, for any family the core covers: the leads when ``last`` is None, else PASS_MOVE and
   the follows of ``last`` (read here, as core.py's _*_prev functions read it); None when the
   core does not describe ``last``. ``spec`` = (family kind, o1, o2, o3, meta, meta_cache,
   singles or None), made once per family by core.py: kind 0 pagat (o1 seq_top), 1 Owen,
   2 Zheng Fen, 3 "winner" (o1..o3: min_straight, rank_only, quad). */
#define FAM_PAGAT 0
#define FAM_OWEN 1
#define FAM_ZF 2
#define FAM_WINNER 3

Py_ssize_t core_listing_limit = 0;

static PyObject *family_moves(PyObject *const *args);

/* moves(spec, family, hand, last, token[, limit]): as above; with ``limit`` > 0, False
   (nothing listed) where there are more than ``limit`` plays: the game then counts them in
   steps (steps.play_phase_moves), so a decision never lists millions of plays */
PyObject *
core_family_moves(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5 && nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "moves(spec, family, hand, last, token[, limit])");
        return NULL;
    }
    Py_ssize_t limit = 0;
    if (nargs == 6) {
        limit = PyLong_AsSsize_t(args[5]);
        if (limit == -1 && PyErr_Occurred())
            return NULL;
        if (limit < 0) {
            PyErr_SetString(PyExc_ValueError, "the limit must not be negative");
            return NULL;
        }
    }
    core_listing_limit = limit;
    PyObject *out = family_moves(args);
    core_listing_limit = 0;
    if (out != NULL && limit > 0 && Py_IS_TYPE(out, &core_plays_type) &&
        ((Plays *)out)->sink.over) {
        Py_DECREF(out);
        Py_RETURN_FALSE;
    }
    return out;
}

static PyObject *
family_moves(PyObject *const *args)
{
    PyObject *spec = args[0], *last = args[3];
    long o[4];
    if (!PyTuple_CheckExact(spec) || PyTuple_GET_SIZE(spec) != 7) {
        PyErr_SetString(PyExc_TypeError, "spec must be a tuple of 7");
        return NULL;
    }
    for (int i = 0; i < 4; i++) {
        o[i] = PyLong_AsLong(PyTuple_GET_ITEM(spec, i));
        if (o[i] == -1 && PyErr_Occurred())
            return NULL;
    }
    PyObject *singles = PyTuple_GET_ITEM(spec, 6);
    if (o[0] < FAM_PAGAT || o[0] > FAM_WINNER) {
        PyErr_SetString(PyExc_ValueError, "unknown family kind");
        return NULL;
    }
    /* the output: as core_gen_output with (meta, meta_cache[, singles], family, token) */
    PyObject *out_args[5] = {PyTuple_GET_ITEM(spec, 4), PyTuple_GET_ITEM(spec, 5), singles,
                             args[1], args[4]};
    Gen gen, *g = &gen;
    int with_singles = singles != Py_None;
    if (with_singles && o[0] != FAM_PAGAT) {
        PyErr_SetString(PyExc_TypeError, "only the pagat family shares its singles");
        return NULL;
    }
    if (with_singles) {
        if (core_gen_output(g, out_args, 5, 0, 1) < 0)
            return NULL;
    } else {
        out_args[2] = args[1];
        out_args[3] = args[4];
        if (core_gen_output(g, out_args, 4, 0, 0) < 0)
            return NULL;
    }
    long desc[7];
    int known = 1;
    switch (o[0]) {
    case FAM_PAGAT: {
        Prev prev = {-1, 0, 0, 0, 0};
        if (last != Py_None)
            known = core_prev(last, &prev);
        if (known != 1)
            break;
        return core_pagat_run(args[2], o[1], &prev, g);
    }
    case FAM_OWEN:
        desc[0] = -1;
        desc[1] = desc[2] = desc[3] = 0;
        if (last != Py_None)
            known = core_owen_prev(last, desc);
        if (known != 1)
            break;
        return core_owen_run(args[2], desc, g);
    case FAM_ZF:
        desc[0] = -1;
        desc[1] = desc[2] = 0;
        if (last != Py_None)
            known = core_zf_prev(last, desc);
        if (known != 1)
            break;
        return core_zf_run(args[2], desc, g);
    default:                               /* FAM_WINNER */
        desc[0] = o[1];
        desc[1] = o[2];
        desc[2] = o[3];
        desc[3] = -1;
        desc[4] = desc[5] = desc[6] = 0;
        if (last != Py_None)
            known = core_winner_prev(last, o[2] != 0, desc + 3);
        if (known != 1)
            break;
        return core_winner_run(args[2], desc, g);
    }
    if (PyErr_Occurred())
        return NULL;
    Py_RETURN_NONE;
}
