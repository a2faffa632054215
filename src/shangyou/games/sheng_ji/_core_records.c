/* The game's records made in C: the deal's record (dealt) and a clone's packing (pack_clone,
   card_lists).

   dealt(stock, n, first): the record of a hand's deal (ShengJiGame._start_hand, the hands of
   engine.base.Deal): the cards seat s draws from the stock, each seat's sorted by card code.

   The stock is drawn from its end, one card a seat in turn from ``first``: the k-th card
   drawn, stock[-1 - k], goes to seat (first + k) % n. The Python code slices the reversed
   stock and sorts each hand (``sorted`` of cards.Card objects compares them through int's
   slower path for subclasses); here each seat's cards are counted and written in order. A
   tuple of n tuples of cards.CARDS items, or None where the stock is not a list of cards (the
   Python code then records it). */

#include "_core.h"

PyObject *
sj_dealt(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyLong_CheckExact(args[1]) || !PyLong_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "dealt(stock, n, first)");
        return NULL;
    }
    long n = PyLong_AsLong(args[1]), first = PyLong_AsLong(args[2]);
    if (PyErr_Occurred())
        return NULL;
    PyObject *stock = args[0];
    if (sj_cards == NULL || !PyList_CheckExact(stock) || n < 1 || n > MAXSEATS || first < 0 ||
        first >= n)
        Py_RETURN_NONE;
    int cnt[MAXSEATS][NCARD];
    int total[MAXSEATS] = {0};
    memset(cnt, 0, sizeof cnt);
    Py_ssize_t m = PyList_GET_SIZE(stock);
    for (Py_ssize_t k = 0; k < m; k++) {
        int c = sj_card_of(PyList_GET_ITEM(stock, m - 1 - k));
        if (c < 0)
            Py_RETURN_NONE;
        long s = (first + k) % n;
        cnt[s][c]++;
        total[s]++;
    }
    PyObject *out = PyTuple_New(n);
    if (out == NULL)
        return NULL;
    for (long s = 0; s < n; s++) {
        PyObject *h = PyTuple_New(total[s]);
        if (h == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        Py_ssize_t i = 0;
        for (int c = 0; c < NCARD; c++)
            for (int j = 0; j < cnt[s][c]; j++)
                PyTuple_SET_ITEM(h, i++, Py_NewRef(PyTuple_GET_ITEM(sj_cards, c)));
        PyTuple_SET_ITEM(out, s, h);
    }
    return out;
}

/* card_lists(packed, start, lengths): the lists of cards (cards.CARDS items) a clone packed
   (clone.py, ShengJiClone._unpack): lengths[i] cards each, from packed[start:] on */
PyObject *
sj_card_lists(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyBytes_Check(args[0]) || !PyLong_Check(args[1]) ||
        !PyBytes_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "card_lists(packed, start, lengths)");
        return NULL;
    }
    if (sj_cards == NULL || !PyTuple_Check(sj_cards) || PyTuple_GET_SIZE(sj_cards) != NCARD) {
        PyErr_SetString(PyExc_RuntimeError, "the core is not bound");
        return NULL;
    }
    const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    const unsigned char *len = (const unsigned char *)PyBytes_AS_STRING(args[2]);
    Py_ssize_t size = PyBytes_GET_SIZE(args[0]), nl = PyBytes_GET_SIZE(args[2]);
    Py_ssize_t at = PyLong_AsSsize_t(args[1]);
    if (at < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "card_lists: a negative start");
        return NULL;
    }
    PyObject *out = PyList_New(nl);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < nl; i++) {
        Py_ssize_t m = len[i];
        PyObject *l = at + m <= size ? PyList_New(m) : NULL;
        if (l == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "card_lists: past the end");
            Py_DECREF(out);
            return NULL;
        }
        for (Py_ssize_t j = 0; j < m; j++) {
            int c = p[at + j];
            if (c >= NCARD) {
                Py_DECREF(l);
                Py_DECREF(out);
                PyErr_SetString(PyExc_ValueError, "card_lists: not a card");
                return NULL;
            }
            PyObject *card = PyTuple_GET_ITEM(sj_cards, c);
            Py_INCREF(card);
            PyList_SET_ITEM(l, j, card);
        }
        PyList_SET_ITEM(out, i, l);
        at += m;
    }
    return out;
}

/* pack_clone(hands, won, stock, seen): the bytes a clone packs (clone.py, ShengJiClone.clone):
   each hand's length, each seat's cards won's, the stock's, the hands' cards, the cards won,
   the stock, then (card, count) of each card seen; None where a list or the dict holds
   something else or a length passes 255 (the Python code packs it then) */
PyObject *
sj_pack_clone(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "pack_clone(hands, won, stock, seen)");
        return NULL;
    }
    PyObject *hands = args[0], *won = args[1], *stock = args[2], *seen = args[3];
    if (!PyList_CheckExact(hands) || !PyList_CheckExact(won) || !PyList_CheckExact(stock) ||
        !PyDict_Check(seen) || PyList_GET_SIZE(hands) > 255 || PyList_GET_SIZE(won) > 255)
        Py_RETURN_NONE;
    PyObject *lists[2] = {hands, won};
    Py_ssize_t total = 1, nseen = PyDict_GET_SIZE(seen);
    for (int k = 0; k < 2; k++)
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(lists[k]); i++) {
            PyObject *l = PyList_GET_ITEM(lists[k], i);
            if (!PyList_CheckExact(l) || PyList_GET_SIZE(l) > 255)
                Py_RETURN_NONE;
            total += 1 + PyList_GET_SIZE(l);
        }
    if (PyList_GET_SIZE(stock) > 255)
        Py_RETURN_NONE;
    total += PyList_GET_SIZE(stock) + 2 * nseen;
    PyObject *out = PyBytes_FromStringAndSize(NULL, total);
    if (out == NULL)
        return NULL;
    unsigned char *p = (unsigned char *)PyBytes_AS_STRING(out);
    for (int k = 0; k < 2; k++)
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(lists[k]); i++)
            *p++ = (unsigned char)PyList_GET_SIZE(PyList_GET_ITEM(lists[k], i));
    *p++ = (unsigned char)PyList_GET_SIZE(stock);
    for (int k = 0; k < 3; k++) {
        Py_ssize_t nl = k < 2 ? PyList_GET_SIZE(lists[k]) : 1;
        for (Py_ssize_t i = 0; i < nl; i++) {
            PyObject *l = k < 2 ? PyList_GET_ITEM(lists[k], i) : stock;
            for (Py_ssize_t j = 0; j < PyList_GET_SIZE(l); j++) {
                int c = sj_card_of(PyList_GET_ITEM(l, j));
                if (c < 0)
                    goto other;
                *p++ = (unsigned char)c;
            }
        }
    }
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(seen, &pos, &key, &value)) {
        int c = sj_card_of(key);
        long v = PyLong_CheckExact(value) ? PyLong_AsLong(value) : -1;
        if (c < 0 || v < 0 || v > 255) {
            PyErr_Clear();
            goto other;
        }
        *p++ = (unsigned char)c;
        *p++ = (unsigned char)v;
    }
    return out;
other:
    Py_DECREF(out);
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------------- the module */
