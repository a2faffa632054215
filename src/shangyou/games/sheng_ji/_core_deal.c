/* dealt(stock, n, first): the record of a hand's deal (ShengJiGame._start_hand, the hands of
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
