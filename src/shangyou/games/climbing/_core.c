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

   owen_plays(hand, kind, arg, key, tier): the same for OwenFamily (_core_owen.c).
   pagat_playout(...), plan(counts): the search's playouts (_core_playout.c).

   A hand holds at most MAX_COPIES of each card (four packs): more raises ValueError, so that
   every per-rank array is large enough. The number of plays is not bounded: they go straight
   into the Python list. */

#include "_core.h"

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
        long c = PyLong_AsLong(items[i]);
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
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "pagat_plays() takes 7 arguments");
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
    g->sink = NULL;
    g->code_obj = NULL;
    g->code = 0;
    g->out = PyList_New(0);
    if (g->out == NULL) {
        PyMem_Free(g);
        return NULL;
    }
    Prev prev = {(int)kind, (int)v[2], (int)v[3], (int)v[4], (int)v[5]};
    PyObject *out = g->out;
    if (pagat_generate(g, &prev) < 0)
        Py_CLEAR(out);
    Py_XDECREF(g->code_obj);
    PyMem_Free(g);
    return out;
}

static PyMethodDef methods[] = {
    {"pagat_plays", (PyCFunction)(void (*)(void))pagat_plays, METH_FASTCALL,
     "pagat_plays(hand, seq_top, kind, a, b, c, d): the pagat plays as (code, cards)."},
    {"pagat_playout", (PyCFunction)(void (*)(void))core_pagat_playout, METH_FASTCALL,
     "pagat_playout(hands, to_act, last, last_seat, passes, order, teams, seq_top, trace): "
     "a pagat hand played out by the plan-aware playout policy -> (order, moves)."},
    {"owen_plays", (PyCFunction)(void (*)(void))core_owen_plays, METH_FASTCALL,
     "owen_plays(hand, kind, arg, key, tier): the Owen plays as (code, cards)."},
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
    return PyModule_Create(&module);
}
