/* The compiled core of the climbing games: the Python module.

   pagat_plays(hand, seq_top, kind, a, b, c, d) -> list of (code, cards)

       The plays of PagatFamily (games/zheng_shangyou/pagat.py) that a player holding ``hand``
       (card codes 0..53, sorted; identical cards of several packs repeated) may lead
       (``kind`` = -1) or that beat the play described by kind, a..d:

           kind 0  single:            a = its rank
           kind 1  set:               a = its size, b = its rank, c = 1 if pure
           kind 2  sequence:          a = its length, b = 1 if single-suited, c = its top rank,
                                      d = 1 if pure
           kind 3  multiple sequence: a = its ranks m, b = its cards per rank k, c = its top
                                      rank, d = 1 if pure

       Same plays, same cards, same order as PagatFamily.leads_py / follows_py, which stay the
       reference (tests/test_core_differential.py compares them). ``seq_top`` is the highest
       rank a single sequence may reach (11: the ace; 12: the 2, with twos_in_sequences).
       Each play is ``(code, cards)``: ``cards`` a sorted tuple of card codes, ``code`` an int
       packing what the play is read as (CODE in _core.h; core.py turns it into a Combo).
       With three more arguments (meta, meta_cache, singles) the list holds Combo objects
       instead, made here (see core_gen_output).

   moves(spec, family, hand, last, token): the game's legal moves for any family, a Plays
       sequence (_core_moves.c: Move objects made when asked for). pagat_plays, owen_plays,
       zf_plays and winner_plays give one too with ``family`` and ``token`` after their meta
       arguments.
   apply_listed(game, move, seat): ClimbingGame.apply's fast path (_core_apply.c).
   shuffle(getrandbits, cards): random.Random.shuffle, for dealing.
   owen_plays(hand, kind, arg, key, tier): the same for OwenFamily (_core_owen.c).
   zf_plays(hand, kind, b0, b1): the same for ZhengFenFamily (_core_zf.c).
   winner_plays(hand, options..., kind, a, b, c): the same for WinnerFamily (_core_winner.c).
   pagat_playout(...), plan(counts): the search's playouts (_core_playout.c).
   HeurPlan(hands, samples, seq_top, params): the heuristic bot's plan of a pagat hand
   (_core_hplan.c).
   steps_begin(want, picked, cap), steps_end(): the plays counted or filtered instead of
   listed, for the choice of a play in steps (_core_steps.c).

   A hand holds at most MAX_COPIES of each card (four packs): more raises ValueError, so that
   every per-rank array is large enough. The number of plays is not bounded: they go straight
   into the Python list. */

#include "_core.h"
#include "../_shuffle.h"
#include "../_slots.h"

/* ------------------------------------------------------------------ Combo objects */
/* The Combo class (combo.py) bound by core.py: its type and the offsets of its six slots,
   so that a combo is made here without running its __init__ (the same six fields). */
static const char *const COMBO_SLOTS[6] = {"kind", "cls", "key", "cards", "tier", "label"};
PyTypeObject *core_combo_type;
Py_ssize_t core_combo_off[6];

static PyObject *
bind(PyObject *self, PyObject *cls)
{
    Py_ssize_t off[6];
    if (slot_offsets(cls, COMBO_SLOTS, 6, 1, 1, off) < 0)
        return NULL;
    Py_INCREF(cls);
    Py_XSETREF(core_combo_type, (PyTypeObject *)cls);
    memcpy(core_combo_off, off, sizeof off);
    Py_RETURN_NONE;
}

/* a Combo of ``cards`` read as meta = (kind, cls, key, tier, label) */
PyObject *
core_combo(PyObject *meta, PyObject *cards)
{
    if (core_combo_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "the Combo class is not bound");
        return NULL;
    }
    if (!PyTuple_Check(meta) || PyTuple_GET_SIZE(meta) != 5) {
        PyErr_SetString(PyExc_TypeError, "a play's meta must be (kind, cls, key, tier, label)");
        return NULL;
    }
    PyObject *o = core_combo_type->tp_alloc(core_combo_type, 0);
    if (o == NULL)
        return NULL;
    PyObject *v[6] = {PyTuple_GET_ITEM(meta, 0), PyTuple_GET_ITEM(meta, 1),
                      PyTuple_GET_ITEM(meta, 2), cards, PyTuple_GET_ITEM(meta, 3),
                      PyTuple_GET_ITEM(meta, 4)};
    for (int i = 0; i < 6; i++) {
        Py_INCREF(v[i]);
        *(PyObject **)((char *)o + core_combo_off[i]) = v[i];
    }
    /* a combo holds strings, ints and tuples of them, and is never changed (combo.py): it
       cannot be part of a reference cycle, so the cycle collector need not visit it (listing
       100,000 plays otherwise costs several full collections) */
    if (PyObject_GC_IsTracked(o))
        PyObject_GC_UnTrack(o);
    return o;
}

/* The Move class (engine/moves.py), bound likewise: a listed play is Move(PLAY, combo.cards,
   combo, None, family, token). */
static const char *const MOVE_SLOTS[6] = {"kind", "cards", "combo", "_text", "family", "token"};
PyTypeObject *core_move_type;
Py_ssize_t core_move_off[6];
PyObject *core_move_play, *core_move_pass;      /* the PLAY kind, PASS_MOVE */

static PyObject *
bind_move(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t off[6];
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "bind_move(Move, PLAY, PASS_MOVE)");
        return NULL;
    }
    if (slot_offsets(args[0], MOVE_SLOTS, 6, 1, 1, off) < 0)
        return NULL;
    if (!PyUnicode_Check(args[1]) || !PyObject_TypeCheck(args[2], (PyTypeObject *)args[0])) {
        PyErr_SetString(PyExc_TypeError, "PLAY must be a str, PASS_MOVE a Move");
        return NULL;
    }
    Py_INCREF(args[0]);
    Py_XSETREF(core_move_type, (PyTypeObject *)args[0]);
    memcpy(core_move_off, off, sizeof off);
    Py_INCREF(args[1]);
    Py_XSETREF(core_move_play, args[1]);
    Py_INCREF(args[2]);
    Py_XSETREF(core_move_pass, args[2]);
    Py_RETURN_NONE;
}

PyObject *
core_move(Gen *g, PyObject *combo)
{
    return core_move_of(combo, g->family, g->token);
}

int
core_is_combo(PyObject *o)
{
    return core_combo_type != NULL && Py_IS_TYPE(o, core_combo_type);
}

PyObject *
core_pass_move(void)
{
    if (core_move_pass == NULL)
        PyErr_SetString(PyExc_RuntimeError, "the Move class is not bound");
    return core_move_pass;
}

/* Move(PLAY, combo.cards, combo, None, family, token); steals combo; a new Move or NULL */
PyObject *
core_move_of(PyObject *combo, PyObject *family, PyObject *token)
{
    if (core_move_type == NULL) {
        Py_DECREF(combo);
        PyErr_SetString(PyExc_RuntimeError, "the Move class is not bound");
        return NULL;
    }
    PyObject *o = core_move_type->tp_alloc(core_move_type, 0);
    if (o == NULL) {
        Py_DECREF(combo);
        return NULL;
    }
    PyObject *cards = SLOT(combo, core_combo_off[COMBO_CARDS]);
    PyObject *v[6] = {core_move_play, cards, combo, Py_None, family, token};
    for (int i = 0; i < 6; i++) {
        if (i != MOVE_COMBO)       /* the combo's reference is the one passed in */
            Py_INCREF(v[i]);
        SLOT(o, core_move_off[i]) = v[i];
    }
    return o;
}

PyObject *
core_meta(PyObject *meta, PyObject *meta_cache, PyObject *code)
{
    PyObject *m = PyDict_GetItemWithError(meta_cache, code);
    if (m != NULL) {
        Py_INCREF(m);
        return m;
    }
    if (PyErr_Occurred())
        return NULL;
    m = PyObject_CallOneArg(meta, code);
    if (m != NULL && PyDict_SetItem(meta_cache, code, m) < 0)
        Py_CLEAR(m);
    return m;
}

/* the play to beat, read from a Combo of the pagat family; 0 when it is not one */
static int
small_int(PyObject *t, Py_ssize_t i, int *out)
{
    PyObject *x = PyTuple_GET_ITEM(t, i);
    if (!PyLong_CheckExact(x))
        return 0;
    long v = PyLong_AsLong(x);
    if (v < -1 || v > 1000) {
        PyErr_Clear();
        return 0;
    }
    *out = (int)v;
    return 1;
}

int
core_small_int(PyObject *x, long *out)
{
    if (!PyLong_Check(x))
        return 0;
    long d = core_digit_int(x);
    if (d >= 0 && d <= (1L << 20)) {
        *out = d;
        return 1;
    }
    int overflow;
    long v = PyLong_AsLongAndOverflow(x, &overflow);
    if (overflow || v < -(1L << 20) || v > (1L << 20)) {
        PyErr_Clear();
        return 0;
    }
    *out = v;
    return 1;
}

int
core_name_index(PyObject *x, const char *const *names, int n)
{
    if (!PyUnicode_Check(x))
        return -1;
    for (int i = 0; i < n; i++)
        if (PyUnicode_CompareWithASCIIString(x, names[i]) == 0)
            return i;
    return -1;
}

int
core_combo_fields(PyObject *combo, PyObject **cls, PyObject **key, PyObject **tier)
{
    if (core_combo_type == NULL || !Py_IS_TYPE(combo, core_combo_type))
        return 0;
    *cls = SLOT(combo, core_combo_off[COMBO_CLS]);
    *key = SLOT(combo, core_combo_off[COMBO_KEY]);
    *tier = SLOT(combo, core_combo_off[COMBO_TIER]);
    return *cls != NULL && *key != NULL && *tier != NULL && PyTuple_Check(*cls) &&
           PyTuple_Check(*key);
}

int
core_prev(PyObject *prev, Prev *p)
{
    if (core_combo_type == NULL || !Py_IS_TYPE(prev, core_combo_type))
        return 0;
    PyObject *cls = *(PyObject **)((char *)prev + core_combo_off[1]);
    PyObject *key = *(PyObject **)((char *)prev + core_combo_off[2]);
    PyObject *tier = *(PyObject **)((char *)prev + core_combo_off[4]);
    if (cls == NULL || key == NULL || tier == NULL || !PyTuple_Check(cls) ||
        !PyTuple_Check(key) || PyTuple_GET_SIZE(cls) < 1 || !PyLong_CheckExact(tier) ||
        PyLong_AsLong(tier) != 0)
        return 0;
    PyObject *name = PyTuple_GET_ITEM(cls, 0);
    if (!PyUnicode_Check(name))
        return 0;
    Py_ssize_t nc = PyTuple_GET_SIZE(cls), nk = PyTuple_GET_SIZE(key);
    p->a = p->b = p->c = p->d = 0;
    if (PyUnicode_CompareWithASCIIString(name, "single") == 0 && nk == 1) {
        p->kind = K_SINGLE;
        return small_int(key, 0, &p->a);
    }
    if (PyUnicode_CompareWithASCIIString(name, "set") == 0 && nc == 2 && nk == 2) {
        p->kind = K_SET;
        return small_int(cls, 1, &p->a) && small_int(key, 0, &p->b) && small_int(key, 1, &p->c);
    }
    if (PyUnicode_CompareWithASCIIString(name, "seq") == 0 && nc == 2 && nk == 3) {
        p->kind = K_SEQ;
        return small_int(cls, 1, &p->a) && small_int(key, 0, &p->b) &&
               small_int(key, 1, &p->c) && small_int(key, 2, &p->d);
    }
    if (PyUnicode_CompareWithASCIIString(name, "mseq") == 0 && nc == 3 && nk == 2) {
        p->kind = K_MSEQ;
        return small_int(cls, 1, &p->a) && small_int(cls, 2, &p->b) &&
               small_int(key, 0, &p->c) && small_int(key, 1, &p->d);
    }
    return 0;
}

/* the optional last arguments of the *_plays functions: (meta, meta_cache[, singles]) make
   the output Combo objects, and (meta, meta_cache[, singles], family, token) the game's legal
   moves (a Plays sequence); none: (code, cards) pairs */
int
core_gen_output(Gen *g, PyObject *const *args, Py_ssize_t nargs, Py_ssize_t at,
                int with_singles)
{
    g->out = NULL;
    g->sink = NULL;
    g->code_obj = NULL;
    g->code = 0;
    g->meta = g->meta_cache = g->singles = g->last_meta = NULL;
    g->family = g->token = NULL;
    g->mask_ok = 0;
    g->window = 0;
    if (nargs == at)
        return 0;
    Py_ssize_t base = at + 2 + with_singles;
    if (nargs != base && nargs != base + 2) {
        PyErr_SetString(PyExc_TypeError, "wrong number of arguments");
        return -1;
    }
    if (!PyCallable_Check(args[at]) || !PyDict_Check(args[at + 1]) ||
        (with_singles && !PyList_Check(args[at + 2]))) {
        PyErr_SetString(PyExc_TypeError, "meta must be callable, meta_cache a dict, singles "
                        "a list");
        return -1;
    }
    g->meta = args[at];
    g->meta_cache = args[at + 1];
    if (with_singles)
        g->singles = args[at + 2];
    if (nargs == base + 2) {
        if (core_move_type == NULL) {
            PyErr_SetString(PyExc_RuntimeError, "the Move class is not bound");
            return -1;
        }
        g->family = args[base];
        g->token = args[base + 1];
    }
    return 0;
}

PyObject *
core_gen_start(Gen *g, int following)
{
    if (g->family != NULL && !core_steps_on)
        return core_plays_new(g, following);
    /* a list, borrowed by g (the caller owns the reference); the legal moves while the
       steps count the plays (_core_steps.c): Move objects, PASS_MOVE first when following */
    g->out = PyList_New(0);
    if (g->out != NULL && g->family != NULL && following &&
        PyList_Append(g->out, core_move_pass) < 0)
        Py_CLEAR(g->out);
    return g->out;
}

/* the card counts of a hand; ValueError for a code out of range or a card held more than
   ``max_copies`` times */
int
core_read_hand(PyObject *hand, unsigned char *count, int max_copies)
{
    PyObject *seq = PySequence_Fast(hand, "the hand must be a sequence of card codes");
    if (seq == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    memset(count, 0, N_CARDS);
    for (Py_ssize_t i = 0; i < n; i++) {
        long c = PyLong_Check(items[i]) ? core_digit_int(items[i]) : -1;
        if (c < 0)
            c = PyLong_AsLong(items[i]);
        if (c == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        if (c < 0 || c >= N_CARDS) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "card code %ld out of range", c);
            return -1;
        }
        if (count[c] >= max_copies) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "more than %d copies of card %ld", max_copies, c);
            return -1;
        }
        count[c]++;
    }
    Py_DECREF(seq);
    return 0;
}

static PyObject *
pagat_plays(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 7) {
        PyErr_SetString(PyExc_TypeError, "pagat_plays() takes 7, 10 or 12 arguments");
        return NULL;
    }
    long v[6];
    for (int i = 0; i < 6; i++) {
        v[i] = PyLong_AsLong(args[i + 1]);
        if (v[i] == -1 && PyErr_Occurred())
            return NULL;
    }
    long seq_top = v[0], kind = v[1];
    if (seq_top != ACE && seq_top != TWO) {
        PyErr_SetString(PyExc_ValueError, "seq_top must be 11 or 12");
        return NULL;
    }
    for (int i = 2; i < 6; i++) {
        if (v[i] < -1 || v[i] > 1000) {
            PyErr_SetString(PyExc_ValueError, "play description out of range");
            return NULL;
        }
    }
    if (kind < -1 || kind > 3) {
        PyErr_SetString(PyExc_ValueError, "kind must be -1..3");
        return NULL;
    }
    unsigned char count[N_CARDS];
    if (core_read_hand(args[0], count, MAX_COPIES) < 0)
        return NULL;
    Gen *g = PyMem_Malloc(sizeof(Gen));
    if (g == NULL)
        return PyErr_NoMemory();
    gen_from_counts(g, count, (int)seq_top);
    PyObject *out = NULL;
    Prev prev = {(int)kind, (int)v[2], (int)v[3], (int)v[4], (int)v[5]};
    if (core_gen_output(g, args, nargs, 7, 1) == 0 &&
        (out = core_gen_start(g, kind >= 0)) != NULL && pagat_generate(g, &prev) < 0)
        Py_CLEAR(out);
    Py_XDECREF(g->code_obj);
    PyMem_Free(g);
    return out;
}

/* the plays of ``hand`` that beat ``prev`` (kind -1: the leads) into g's output (set by
   core_gen_output) */
PyObject *
core_pagat_run(PyObject *hand, long seq_top, const Prev *prev, Gen *g)
{
    if (seq_top != ACE && seq_top != TWO) {
        PyErr_SetString(PyExc_ValueError, "seq_top must be 11 or 12");
        return NULL;
    }
    unsigned char count[N_CARDS];
    if (core_read_hand(hand, count, MAX_COPIES) < 0)
        return NULL;
    gen_from_counts(g, count, (int)seq_top);
    PyObject *out = core_gen_start(g, prev->kind >= 0);
    if (out != NULL && pagat_generate(g, prev) < 0)
        Py_CLEAR(out);
    Py_XDECREF(g->code_obj);
    return out;
}

/* can a hand of these counts beat ``prev``? (g, sink: scratch; the sink keeps one play) */
static int
beats(Gen *g, Sink *sink, const unsigned char *count, int seq_top, const Prev *prev)
{
    gen_from_counts(g, count, seq_top);
    if (pagat_generate_into(g, sink, prev, 1) < 0)
        return -1;
    return sink->n > 0;
}

/* pagat_beat_levels(hands, seq_top, prev, per) -> bytes: for each group of ``per`` hands
   (card codes), 2 when one beats the Combo ``prev`` without its 2s and jokers (codes 48 and
   up), 1 when one does only with them, 0 when none does (a hand of fewer cards than ``prev``
   cannot). The heuristic's question (climbing_heuristic.combo_cost) asked once for all its
   sampled deals; None when ``prev`` is not a pagat play the core reads (a lead, a bomb): ask
   Family.beat_levels. */
static PyObject *
pagat_beat_levels(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "pagat_beat_levels() takes 4 arguments");
        return NULL;
    }
    long per = PyLong_AsLong(args[3]);
    if (per == -1 && PyErr_Occurred())
        return NULL;
    if (per < 1) {
        PyErr_SetString(PyExc_ValueError, "per must be at least 1");
        return NULL;
    }
    long seq_top = PyLong_AsLong(args[1]);
    if (seq_top == -1 && PyErr_Occurred())
        return NULL;
    if (seq_top != ACE && seq_top != TWO) {
        PyErr_SetString(PyExc_ValueError, "seq_top must be 11 or 12");
        return NULL;
    }
    Prev prev;
    int read = core_prev(args[2], &prev);
    if (read < 0)
        return NULL;
    if (read == 0 || prev.kind < 0)
        Py_RETURN_NONE;
    PyObject *cards = SLOT(args[2], core_combo_off[COMBO_CARDS]);
    Py_ssize_t need = cards != NULL && PyTuple_Check(cards) ? PyTuple_GET_SIZE(cards) : 0;
    PyObject *seq = PySequence_Fast(args[0], "hands must be a sequence of hands");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyBytes_FromStringAndSize(NULL, n / per);
    Gen *g = PyMem_Calloc(1, sizeof(Gen));
    Sink sink;
    memset(&sink, 0, sizeof sink);
    sink.first = 1;
    if (out == NULL)
        goto fail;
    if (g == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    char *level = PyBytes_AS_STRING(out);
    memset(level, 0, (size_t)(n / per));
    for (Py_ssize_t i = 0; i < n / per * per; i++) {
        if (level[i / per] == 2)
            continue;                   /* this deal's best is known */
        unsigned char count[N_CARDS], plain[N_CARDS];
        if (core_read_hand(PySequence_Fast_GET_ITEM(seq, i), count, MAX_COPIES) < 0)
            goto fail;
        Py_ssize_t size = 0, top = 0;
        for (int c = 0; c < N_CARDS; c++) {
            size += count[c];
            plain[c] = c < 48 ? count[c] : 0;
            top += c < 48 ? 0 : count[c];
        }
        if (size < need)
            continue;
        int rc = beats(g, &sink, plain, (int)seq_top, &prev);
        if (rc > 0)
            level[i / per] = 2;
        else if (rc == 0 && top && level[i / per] == 0) {
            rc = beats(g, &sink, count, (int)seq_top, &prev);
            if (rc > 0)
                level[i / per] = 1;
        }
        if (rc < 0)
            goto fail;
    }
    PyMem_Free(sink.plays);
    PyMem_Free(sink.pool);
    PyMem_Free(g);
    Py_DECREF(seq);
    return out;
fail:
    PyMem_Free(sink.plays);
    PyMem_Free(sink.pool);
    PyMem_Free(g);
    Py_DECREF(seq);
    Py_XDECREF(out);
    return NULL;
}

static PyMethodDef methods[] = {
    {"seeded_shuffle", (PyCFunction)(void (*)(void))core_seeded_shuffle, METH_FASTCALL,
     "seeded_shuffle(seed, n, list): random.Random(seed)'s randrange(n), then its shuffle of "
     "the list, in C (../_shuffle.h): (the draw, the generator's state as bytes)."},
    {"shuffle", (PyCFunction)(void (*)(void))core_shuffle, METH_FASTCALL,
     "shuffle(getrandbits, list): random.Random.shuffle with that generator's getrandbits."},
    {"bind_move", (PyCFunction)(void (*)(void))bind_move, METH_FASTCALL,
     "bind_move(Move, PLAY, PASS_MOVE): the class of the legal moves (Plays items)."},
    {"bind", bind, METH_O, "bind(Combo): the class whose objects the plays become."},
    {"moves", (PyCFunction)(void (*)(void))core_family_moves, METH_FASTCALL,
     "moves(spec, family, hand, last, token): the game's legal moves, a Plays sequence "
     "(None: the core does not describe ``last``)."},
    {"listed_moves", (PyCFunction)(void (*)(void))core_listed_moves, METH_FASTCALL,
     "listed_moves(game, token): the legal moves of the play phase listed in one call "
     "(no choice in steps under way), or None: the Python code lists them."},
    {"apply_listed", (PyCFunction)(void (*)(void))core_apply_listed, METH_FASTCALL,
     "apply_listed(game, move, seat): ClimbingGame.apply's fast path; False: not made, "
     "the Python code makes it."},
    {"deal_hands", (PyCFunction)(void (*)(void))core_deal_hands, METH_FASTCALL,
     "deal_hands(cards, n, first, dealt): the deal's hands, each sorted (_core_apply.c)."},
    {"methods", (PyCFunction)(void (*)(void))core_methods, METH_FASTCALL,
     "methods(cls, listing_limit, step_limit): ClimbingGame's legal_moves and apply as C "
     "methods (_core_methods.c)."},
    {"set_active", core_set_active, METH_O,
     "set_active(flag): those methods act in C, or call the Python methods."},
    {"pagat_plays", (PyCFunction)(void (*)(void))pagat_plays, METH_FASTCALL,
     "pagat_plays(hand, seq_top, kind, a, b, c, d): the pagat plays as (code, cards)."},
    {"pagat_playout", (PyCFunction)(void (*)(void))core_pagat_playout, METH_FASTCALL,
     "pagat_playout(hands, to_act, last, last_seat, passes, order, teams, seq_top, trace): "
     "a pagat hand played out by the plan-aware playout policy -> (order, moves)."},
    {"owen_plays", (PyCFunction)(void (*)(void))core_owen_plays, METH_FASTCALL,
     "owen_plays(hand, kind, arg, key, tier): the Owen plays as (code, cards)."},
    {"zf_plays", (PyCFunction)(void (*)(void))core_zf_plays, METH_FASTCALL,
     "zf_plays(hand, kind, b0, b1): the Zheng Fen plays as (code, cards)."},
    {"winner_plays", (PyCFunction)(void (*)(void))core_winner_plays, METH_FASTCALL,
     "winner_plays(hand, min_straight, rank_only, quad, kind, a, b, c): the winner plays."},
    {"steps_begin", (PyCFunction)(void (*)(void))core_steps_begin, METH_FASTCALL,
     "steps_begin(want, picked, cap): count (want None) or filter the plays of the next "
     "generator call instead of listing them (_core_steps.c)."},
    {"steps_end", core_steps_end, METH_NOARGS,
     "steps_end(): what was counted since steps_begin (_core_steps.c)."},
    {"steps_list", (PyCFunction)(void (*)(void))core_steps_list, METH_FASTCALL,
     "steps_list(cap, family, hand, last, token): the legal moves of the play phase, or past "
     "cap plays their first plays and counts by code (_core_steps.c)."},
    {"pagat_beat_levels", (PyCFunction)(void (*)(void))pagat_beat_levels, METH_FASTCALL,
     "pagat_beat_levels(hands, seq_top, prev, per): per group of ``per`` hands 2 (one beats "
     "prev without 2s and jokers), 1 (only with them) or 0, as bytes; None: not a play the "
     "core reads."},
    {"plan", (PyCFunction)(void (*)(void))core_plan, METH_FASTCALL,
     "plan(counts): the playout policy's plan of 15 rank counts (pagat) -> (cost, groups)."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_core", "The compiled core of the climbing games.", -1, methods
};

PyMODINIT_FUNC
PyInit__core(void)
{
    PyTypeObject *types[5] = {&core_plays_type, &core_steps_type, &core_subset_type,
                              &core_batch_type, &core_heur_plan_type};
    const char *names[5] = {"Plays", "Steps", "Subset", "Batch", "HeurPlan"};
    for (int i = 0; i < 5; i++) {
        if (PyType_Ready(types[i]) < 0)
            return NULL;
    }
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    for (int i = 0; i < 5; i++) {
        Py_INCREF(types[i]);
        if (PyModule_AddObject(m, names[i], (PyObject *)types[i]) < 0) {
            Py_DECREF(types[i]);
            Py_DECREF(m);
            return NULL;
        }
    }
    return m;
}
