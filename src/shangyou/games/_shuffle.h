/* The shuffle both compiled cores deal with (climbing/_core.c, sheng_ji/_core.c include it).

   core_shuffle(getrandbits, cards): random.Random.shuffle(cards) of Python 3.11-3.13, drawing
   from that generator's bound getrandbits: for i from len - 1 down to 1, j = _randbelow(i + 1)
   (getrandbits(k), k the bit length of i + 1, drawn again while >= i + 1), swap. Each core's
   core.py checks once (shangyou.native.shuffles_alike) that it deals as the running Python
   does before using it. */
#ifndef SHANGYOU_SHUFFLE_H
#define SHANGYOU_SHUFFLE_H

#include <Python.h>

static PyObject *
core_shuffle(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyCallable_Check(args[0]) || !PyList_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "shuffle(getrandbits, list)");
        return NULL;
    }
    PyObject *getrandbits = args[0], *x = args[1];
    PyObject *kobj[64] = {NULL};          /* the ints 0..63 passed as k */
    PyObject *res = NULL;
    for (Py_ssize_t i = PyList_GET_SIZE(x) - 1; i >= 1; i--) {
        size_t n = (size_t)i + 1;
        int k = 0;
        while ((n >> k) != 0)
            k++;
        if (k >= 64) {
            PyErr_SetString(PyExc_ValueError, "list too long");
            goto done;
        }
        if (kobj[k] == NULL && (kobj[k] = PyLong_FromLong(k)) == NULL)
            goto done;
        size_t r;
        do {
            PyObject *v = PyObject_CallOneArg(getrandbits, kobj[k]);
            if (v == NULL)
                goto done;
            r = PyLong_AsSize_t(v);
            Py_DECREF(v);
            if (r == (size_t)-1 && PyErr_Occurred())
                goto done;
        } while (r >= n);
        if (i != (Py_ssize_t)r) {
            if (PyList_GET_SIZE(x) <= i) {   /* the callback shortened the list */
                PyErr_SetString(PyExc_RuntimeError, "the list changed while shuffling");
                goto done;
            }
            PyObject *a = PyList_GET_ITEM(x, i);
            PyList_SET_ITEM(x, i, PyList_GET_ITEM(x, r));
            PyList_SET_ITEM(x, r, a);
        }
    }
    res = Py_None;
    Py_INCREF(res);
done:
    for (int k = 0; k < 64; k++)
        Py_XDECREF(kobj[k]);
    return res;
}

#endif
