/* Optional C helpers for the climbing games' observation (shangyou.env.encoding).

   Two functions, each the same bytes as a Python function beside it in encoding.py, which stays
   the reference and the fallback when this module is not built:

   head(buf, at, seat, hand, played, last, last_seat, passed, finished, counts, partners, tail,
        page) -> int
       ClimbingEncoder._head_py: writes the observation's head (every slice before the
       candidates) at buf[at:], returns the number of bytes written.
   rows(buf, base, moves, kind_at, extra_at) -> None
       Pager._rows_py: adds the candidate rows of ``moves`` (Move objects) at buf[base:],
       one row of ``width`` bytes each (the buffer holds zeros there).

   sort_moves(moves, kind_index) -> list of (start, stop)
       sort_moves' order without readings (encoding._sort_moves_py): sorts the list of Move
       objects in place by kind, number of cards and card codes (stable), and returns the
       runs of plays of the same cards, which the caller puts in the order of readings.

   Card codes are 0..53. Every index is checked against the buffer; bad input raises
   ValueError or TypeError and may have written part of the buffer (the callers write into
   fresh rows only). */

#include "_fastobs.h"

PyObject *s_kind, *s_cards, *s_play;

int
fo_writable(PyObject *obj, Py_buffer *view)
{
    return PyObject_GetBuffer(obj, view, PyBUF_WRITABLE);
}

int
fo_card_of(PyObject *item, long *out)
{
    long c = PyLong_AsLong(item);
    if (c == -1 && PyErr_Occurred())
        return -1;
    if (c < 0 || c >= N_CARDS) {
        PyErr_Format(PyExc_ValueError, "card code %ld out of range", c);
        return -1;
    }
    *out = c;
    return 0;
}

/* add one to dst[c] for every card code c of the tuple or list ``cards`` */
int
fo_add_cards(unsigned char *dst, PyObject *cards)
{
    PyObject *seq = PySequence_Fast(cards, "cards must be a sequence of card codes");
    if (seq == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        long c;
        if (fo_card_of(items[i], &c) < 0) {
            Py_DECREF(seq);
            return -1;
        }
        dst[c]++;
    }
    Py_DECREF(seq);
    return 0;
}

/* ``seat`` as seen from ``me`` at a table of n */
int
fo_rel_of(PyObject *item, long me, Py_ssize_t n, Py_ssize_t *out)
{
    long s = PyLong_AsLong(item);
    if (s == -1 && PyErr_Occurred())
        return -1;
    if (s < 0 || s >= n) {
        PyErr_Format(PyExc_ValueError, "no seat %ld at a table of %zd", s, n);
        return -1;
    }
    *out = (Py_ssize_t)((s - me + n) % n);
    return 0;
}

int
fo_put_bytes(unsigned char *dst, PyObject *b, Py_ssize_t want, const char *what)
{
    if (!PyBytes_Check(b)) {
        PyErr_Format(PyExc_TypeError, "%s must be bytes", what);
        return -1;
    }
    Py_ssize_t n = PyBytes_GET_SIZE(b);
    if (want >= 0 && n != want) {
        PyErr_Format(PyExc_ValueError, "%s must be %zd bytes, not %zd", what, want, n);
        return -1;
    }
    memcpy(dst, PyBytes_AS_STRING(b), (size_t)n);
    return 0;
}

static PyObject *
head(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 13) {
        PyErr_SetString(PyExc_TypeError, "head() takes 13 arguments");
        return NULL;
    }
    PyObject *hand = args[3], *played = args[4], *last = args[5], *passed = args[7],
             *finished = args[8], *counts = args[9], *partners = args[10], *tail = args[11],
             *page = args[12];
    Py_ssize_t at = PyLong_AsSsize_t(args[1]);
    long seat = PyLong_AsLong(args[2]);
    if (PyErr_Occurred())
        return NULL;
    if (!PyList_Check(counts) || !PyBytes_Check(tail) || !PyBytes_Check(page)) {
        PyErr_SetString(PyExc_TypeError, "counts must be a list, tail and page bytes");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(counts);
    if (n < 1 || seat < 0 || seat >= n) {
        PyErr_SetString(PyExc_ValueError, "seat out of range");
        return NULL;
    }
    Py_ssize_t size = 4 * N_CARDS + 5 * n + PyBytes_GET_SIZE(tail) + PyBytes_GET_SIZE(page);
    Py_buffer view;
    if (fo_writable(args[0], &view) < 0)
        return NULL;
    if (at < 0 || at + size > view.len) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "the head does not fit in the buffer");
        return NULL;
    }
    unsigned char *p = (unsigned char *)view.buf + at;
    memset(p, 0, (size_t)(4 * N_CARDS + 5 * n));
    Py_ssize_t r;
    if (fo_add_cards(p, hand) < 0)                                    /* hand */
        goto fail;
    if (fo_put_bytes(p + N_CARDS, played, N_CARDS, "played") < 0)       /* played */
        goto fail;
    unsigned char *q = p + 4 * N_CARDS;                              /* counts */
    for (Py_ssize_t i = 0; i < n; i++) {
        long c = PyLong_AsLong(PyList_GET_ITEM(counts, i));
        if (c == -1 && PyErr_Occurred())
            goto fail;
        q[(i - seat + n) % n] = (unsigned char)(c < 0 ? 0 : c > 127 ? 127 : c);
    }
    q += n;                                                          /* finished: places */
    PyObject *fin = PySequence_Fast(finished, "finished must be a sequence of seats");
    if (fin == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fin); i++) {
        if (fo_rel_of(PySequence_Fast_GET_ITEM(fin, i), seat, n, &r) < 0) {
            Py_DECREF(fin);
            goto fail;
        }
        q[r] = (unsigned char)(i + 1 > 127 ? 127 : i + 1);
    }
    Py_DECREF(fin);
    q += n;
    if (last != Py_None) {
        if (fo_add_cards(p + 2 * N_CARDS, last) < 0)                    /* last */
            goto fail;
        PyObject *ps = PySequence_Fast(passed, "passed must be a sequence of seats");
        if (ps == NULL)
            goto fail;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(ps); i++) {   /* passed */
            if (fo_rel_of(PySequence_Fast_GET_ITEM(ps, i), seat, n, &r) < 0) {
                Py_DECREF(ps);
                goto fail;
            }
            q[r] = 1;
        }
        Py_DECREF(ps);
        if (fo_rel_of(args[6], seat, n, &r) < 0)                        /* last_seat */
            goto fail;
        q[n + r] = 1;
    }
    q += 2 * n;
    if (fo_put_bytes(q, partners, n, "partners") < 0)                   /* partners */
        goto fail;
    q += n;
    memcpy(q, PyBytes_AS_STRING(tail), (size_t)PyBytes_GET_SIZE(tail));
    q += PyBytes_GET_SIZE(tail);
    memcpy(q, PyBytes_AS_STRING(page), (size_t)PyBytes_GET_SIZE(page));
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(size);
fail:
    PyBuffer_Release(&view);
    return NULL;
}

/* add the candidate rows of moves[start:stop] (a list of Move objects) at ``row``, one row
   of ``width`` bytes each (the caller checked they fit) */
int
fo_write_rows(unsigned char *row, PyObject *moves, Py_ssize_t start, Py_ssize_t stop,
           Py_ssize_t width, PyObject *kind_at, Py_ssize_t extra_at)
{
    PyObject *prev = NULL;           /* cards of the last play (a new reference) */
    long ordinal = 0;
    for (Py_ssize_t i = start; i < stop; i++, row += width) {
        PyObject *m = PyList_GET_ITEM(moves, i);
        PyObject *kind = PyObject_GetAttr(m, s_kind);
        if (kind == NULL)
            goto fail;
        PyObject *cards = PyObject_GetAttr(m, s_cards);
        if (cards == NULL) {
            Py_DECREF(kind);
            goto fail;
        }
        PyObject *col = PyDict_GetItemWithError(kind_at, kind);
        Py_ssize_t k = col == NULL ? -1 : PyLong_AsSsize_t(col);
        if (k < 0 || k >= width) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "a move of an unknown kind");
            Py_DECREF(kind);
            Py_DECREF(cards);
            goto fail;
        }
        if (fo_add_cards(row, cards) < 0) {
            Py_DECREF(kind);
            Py_DECREF(cards);
            goto fail;
        }
        row[k] = 1;
        int is_play = kind == s_play || PyUnicode_Compare(kind, s_play) == 0;
        Py_DECREF(kind);
        if (is_play) {               /* several readings of the same cards: 0, 1, 2 ... */
            int same = prev != NULL && PyObject_RichCompareBool(cards, prev, Py_EQ);
            if (same < 0) {
                Py_DECREF(cards);
                goto fail;
            }
            if (same) {
                ordinal++;
                row[extra_at] = (unsigned char)(ordinal > 255 ? 255 : ordinal);
                Py_DECREF(cards);
            } else {
                ordinal = 0;
                Py_XSETREF(prev, cards);
            }
        } else {
            Py_DECREF(cards);
        }
    }
    Py_XDECREF(prev);
    return 0;
fail:
    Py_XDECREF(prev);
    return -1;
}

static PyObject *
rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "rows() takes 6 arguments");
        return NULL;
    }
    Py_ssize_t base = PyLong_AsSsize_t(args[1]);
    Py_ssize_t width = PyLong_AsSsize_t(args[3]);
    Py_ssize_t extra_at = PyLong_AsSsize_t(args[5]);
    PyObject *moves = args[2], *kind_at = args[4];
    if (PyErr_Occurred())
        return NULL;
    if (!PyList_Check(moves) || !PyDict_Check(kind_at)) {
        PyErr_SetString(PyExc_TypeError, "moves must be a list and kind_at a dict");
        return NULL;
    }
    if (width < N_CARDS || extra_at < 0 || extra_at >= width) {
        PyErr_SetString(PyExc_ValueError, "bad row width");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(moves);
    Py_buffer view;
    if (fo_writable(args[0], &view) < 0)
        return NULL;
    if (base < 0 || base + n * width > view.len) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "the rows do not fit in the buffer");
        return NULL;
    }
    int r = fo_write_rows((unsigned char *)view.buf + base, moves, 0, n, width, kind_at, extra_at);
    PyBuffer_Release(&view);
    if (r < 0)
        return NULL;
    Py_RETURN_NONE;
}

typedef struct {
    PyObject *move;
    long kind;
    Py_ssize_t len, index;
    unsigned char *cards;
} entry;

static int
entry_cmp(const void *pa, const void *pb)
{
    const entry *a = pa, *b = pb;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    int c = memcmp(a->cards, b->cards, (size_t)a->len);
    if (c != 0)
        return c;
    return a->index < b->index ? -1 : a->index > b->index;
}

static PyObject *
sort_moves(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyList_Check(args[0]) || !PyDict_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "sort_moves(list of moves, dict of kinds)");
        return NULL;
    }
    PyObject *moves = args[0], *kind_index = args[1];
    Py_ssize_t n = PyList_GET_SIZE(moves);
    entry *es = PyMem_Malloc(sizeof(entry) * (size_t)(n ? n : 1));
    PyObject **cards_of = PyMem_Calloc((size_t)(n ? n : 1), sizeof(PyObject *));
    unsigned char *codes = NULL;
    PyObject *runs = NULL;
    if (es == NULL || cards_of == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *m = PyList_GET_ITEM(moves, i);
        PyObject *kind = PyObject_GetAttr(m, s_kind);
        if (kind == NULL)
            goto done;
        PyObject *k = PyDict_GetItemWithError(kind_index, kind);
        Py_DECREF(kind);
        if (k == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "a move of an unknown kind");
            goto done;
        }
        es[i].move = m;
        es[i].kind = PyLong_AsLong(k);
        es[i].index = i;
        PyObject *cards = PyObject_GetAttr(m, s_cards);
        if (cards == NULL)
            goto done;
        if (!PyTuple_Check(cards)) {
            Py_DECREF(cards);
            PyErr_SetString(PyExc_TypeError, "a move's cards must be a tuple");
            goto done;
        }
        cards_of[i] = cards;
        es[i].len = PyTuple_GET_SIZE(cards);
        total += es[i].len;
    }
    codes = PyMem_Malloc((size_t)(total ? total : 1));
    if (codes == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    unsigned char *at = codes;
    for (Py_ssize_t i = 0; i < n; i++) {
        es[i].cards = at;
        for (Py_ssize_t j = 0; j < es[i].len; j++) {
            long c;
            if (fo_card_of(PyTuple_GET_ITEM(cards_of[i], j), &c) < 0)
                goto done;
            *at++ = (unsigned char)c;
        }
    }
    qsort(es, (size_t)n, sizeof(entry), entry_cmp);
    for (Py_ssize_t i = 0; i < n; i++)        /* the list keeps its references */
        PyList_SET_ITEM(moves, i, es[i].move);
    runs = PyList_New(0);
    if (runs == NULL)
        goto done;
    Py_ssize_t start = 0;
    for (Py_ssize_t i = 1; i <= n; i++) {
        if (i < n && es[i].kind == es[start].kind && es[i].len == es[start].len
                && memcmp(es[i].cards, es[start].cards, (size_t)es[i].len) == 0)
            continue;
        if (i - start > 1) {
            PyObject *run = Py_BuildValue("(nn)", start, i);
            if (run == NULL || PyList_Append(runs, run) < 0) {
                Py_XDECREF(run);
                Py_CLEAR(runs);
                goto done;
            }
            Py_DECREF(run);
        }
        start = i;
    }
done:
    if (cards_of != NULL)
        for (Py_ssize_t i = 0; i < n; i++)
            Py_XDECREF(cards_of[i]);
    PyMem_Free(cards_of);
    PyMem_Free(codes);
    PyMem_Free(es);
    return runs;
}

static PyMethodDef methods[] = {
    {"sort_moves", (PyCFunction)(void (*)(void))sort_moves, METH_FASTCALL,
     "Sort climbing moves by kind, size and cards; return the runs of equal cards."},
    {"head", (PyCFunction)(void (*)(void))head, METH_FASTCALL,
     "Write a climbing observation's head; see ClimbingEncoder._head_py."},
    {"rows", (PyCFunction)(void (*)(void))rows, METH_FASTCALL,
     "Add candidate rows of climbing moves; see Pager._rows_py."},
    {"observe", (PyCFunction)(void (*)(void))fo_observe, METH_FASTCALL,
     "Write a climbing observation from a compact view and a page of moves; see "
     "ClimbingEncoder._observe_py."},
    {"observe_game", (PyCFunction)(void (*)(void))fo_observe_game, METH_FASTCALL,
     "Write a climbing observation from a game and a page of moves; see "
     "ClimbingEncoder._observe_py and compact_view."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fastobs", "C helpers for the climbing observation.", -1, methods
};

PyMODINIT_FUNC
PyInit__fastobs(void)
{
    s_kind = PyUnicode_InternFromString("kind");
    s_cards = PyUnicode_InternFromString("cards");
    s_play = PyUnicode_InternFromString("play");
    if (s_kind == NULL || s_cards == NULL || s_play == NULL)
        return NULL;
    if (fo_obs_init() < 0)
        return NULL;
    return PyModule_Create(&module);
}
