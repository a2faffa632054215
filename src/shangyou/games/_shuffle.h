/* The shuffle both compiled cores deal with (climbing/_core.c, sheng_ji/_core.c include it).

   core_shuffle(getrandbits, cards) is random.Random.shuffle(cards) of Python 3.11-3.13 (for i
   from len - 1 down to 1: j = _randbelow(i + 1), that is getrandbits(k), k the bit length of
   i + 1, drawn again while >= i + 1; then swap), without a Python call per draw.
   getrandbits(k) for k <= 32 is the generator's next 32-bit word shifted right by 32 - k, one
   word a draw; getrandbits(32 * m) is its next m words, the first drawn the least significant.
   So the words are taken m at a time, m never more than the draws left (each draw takes one
   word at least): the generator ends in the state the Python shuffle leaves it in, and the
   same cards lie in the same places. It is given only a plain random.Random's getrandbits
   (shangyou.native.shuffle), and each core's core.py checks once
   (shangyou.native.shuffles_alike) that it deals as the running Python does. */
#ifndef SHANGYOU_SHUFFLE_H
#define SHANGYOU_SHUFFLE_H

#include <Python.h>
#include <stdint.h>

#include "_mt.h"

/* the next m words of the generator, in the order drawn; 0, or -1 with an exception */
static int
take_words(PyObject *getrandbits, uint32_t *out, Py_ssize_t m)
{
    PyObject *k = PyLong_FromSsize_t(32 * m);
    if (k == NULL)
        return -1;
    PyObject *v = PyObject_CallOneArg(getrandbits, k);
    Py_DECREF(k);
    if (v == NULL)
        return -1;
    if (!PyLong_Check(v)) {
        Py_DECREF(v);
        PyErr_SetString(PyExc_TypeError, "getrandbits gave no int");
        return -1;
    }
#if PY_VERSION_HEX < 0x030C0000 && PYLONG_BITS_IN_DIGIT == 30
    /* the int's 30-bit digits, least significant first, regrouped into 32-bit words */
    Py_ssize_t nd = Py_SIZE(v), di = 0;
    if (nd < 0) {
        Py_DECREF(v);
        PyErr_SetString(PyExc_ValueError, "getrandbits gave a negative int");
        return -1;
    }
    const digit *dg = ((PyLongObject *)v)->ob_digit;
    uint64_t acc = 0;
    int bits = 0;
    for (Py_ssize_t i = 0; i < m; i++) {
        while (bits < 32) {
            acc |= (uint64_t)(di < nd ? dg[di++] : 0) << bits;
            bits += 30;
        }
        out[i] = (uint32_t)acc;
        acc >>= 32;
        bits -= 32;
    }
    Py_DECREF(v);
    return 0;
#else
    unsigned char *bytes = (unsigned char *)out;
#if PY_VERSION_HEX >= 0x030D0000      /* (3.13 made the byte copy public, with flags) */
    Py_ssize_t rc = PyLong_AsNativeBytes(v, bytes, m * 4, Py_ASNATIVEBYTES_LITTLE_ENDIAN |
                                                          Py_ASNATIVEBYTES_UNSIGNED_BUFFER);
#else
    int rc = _PyLong_AsByteArray((PyLongObject *)v, bytes, (size_t)m * 4, 1, 0);
#endif
    Py_DECREF(v);
    if (rc < 0)
        return -1;
    for (Py_ssize_t i = 0; i < m; i++) {     /* little-endian bytes to words */
        const unsigned char *b = bytes + 4 * i;
        out[i] = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                 (uint32_t)b[3] << 24;
    }
    return 0;
#endif
}

static PyObject *
core_shuffle(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyCallable_Check(args[0]) || !PyList_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "shuffle(getrandbits, list)");
        return NULL;
    }
    PyObject *getrandbits = args[0], *x = args[1];
    Py_ssize_t len = PyList_GET_SIZE(x);
    if (len < 2)
        Py_RETURN_NONE;
    if (len > ((Py_ssize_t)1 << 24)) {
        PyErr_SetString(PyExc_ValueError, "list too long");
        return NULL;
    }
    uint32_t small[256], *words = small;
    if (len - 1 > 256 && (words = PyMem_Malloc(sizeof(uint32_t) * (size_t)(len - 1))) == NULL)
        return PyErr_NoMemory();
    PyObject *res = NULL;
    Py_ssize_t have = 0, used = 0;
    for (Py_ssize_t i = len - 1; i >= 1; i--) {
        uint32_t n = (uint32_t)i + 1;
        int k = 32 - __builtin_clz(n);          /* the bit length of n (n >= 2) */
        uint32_t r;
        do {
            if (used == have) {               /* i draws are left: i words at most */
                if (take_words(getrandbits, words, i) < 0)
                    goto done;
                have = i;
                used = 0;
            }
            r = words[used++] >> (32 - k);
        } while (r >= n);
        if (PyList_GET_SIZE(x) != len) {      /* (getrandbits changed the list) */
            PyErr_SetString(PyExc_RuntimeError, "the list changed while shuffling");
            goto done;
        }
        if (i != (Py_ssize_t)r) {
            PyObject *a = PyList_GET_ITEM(x, i);
            PyList_SET_ITEM(x, i, PyList_GET_ITEM(x, r));
            PyList_SET_ITEM(x, r, a);
        }
    }
    res = Py_None;
    Py_INCREF(res);
done:
    if (words != small)
        PyMem_Free(words);
    return res;
}

/* core_seeded_shuffle(seed, n, cards): what random.Random(seed), then its randrange(n), then
   its shuffle(cards) do, with the generator in C (_mt.h: no Python generator made, no words
   passed through Python ints): cards shuffled in place, and (the randrange's draw, the
   generator's state after as bytes: the 625 native 32-bit words of Python's getstate(), see
   shangyou.engine.deal.mt_random). 0 <= seed < 2**64, 1 <= n <= 2**31. A game dealt from an
   int seed makes its Python generator from those bytes only when it draws again. */
static PyObject *
core_seeded_shuffle(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyLong_Check(args[0]) || !PyLong_Check(args[1]) || !PyList_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "seeded_shuffle(seed, n, list)");
        return NULL;
    }
    unsigned long long seed = PyLong_AsUnsignedLongLong(args[0]);
    if (seed == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    long n = PyLong_AsLong(args[1]);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    if (n < 1 || n > (1L << 31)) {
        PyErr_SetString(PyExc_ValueError, "seeded_shuffle: n is 1 to 2**31");
        return NULL;
    }
    PyObject *x = args[2];
    Py_ssize_t len = PyList_GET_SIZE(x);
    if (len > ((Py_ssize_t)1 << 24)) {
        PyErr_SetString(PyExc_ValueError, "list too long");
        return NULL;
    }
    MT g;
    mt_seed(&g, (uint64_t)seed);
    mt_twist_now(&g);
    uint32_t first = mt_below(&g, (uint32_t)n);
    PyObject **it = ((PyListObject *)x)->ob_item;
    for (Py_ssize_t i = len - 1; i >= 1; i--) {
        Py_ssize_t j = (Py_ssize_t)mt_below(&g, (uint32_t)i + 1);
        PyObject *a = it[i];
        it[i] = it[j];
        it[j] = a;
    }
    uint32_t words[625];
    mt_state_words(&g, words);
    return Py_BuildValue("(ky#)", (unsigned long)first, (const char *)words,
                         (Py_ssize_t)sizeof words);
}

#endif
