/* The legal moves of a state as a lazy sequence: ``Moves``.

   ShengJiGame.legal_moves answers with a sequence of Move objects. When the core lists a
   state (moves(game, token), _core_moves.c) the moves stay in C, each a kind and its cards,
   and an item's Move is made when it is first asked for (indexing, iterating), once: the
   same item gives the same Move again. ``len`` and ``random.choice`` make one Move however
   many moves there are. The items, their order and their contents are those of the list
   the Python code makes (ShengJiGame._list_moves); the sequence cannot be changed. It
   compares equal to a list of the same moves, concatenates with a list (a list), slices to
   lists, pickles and copies as a list, and is registered as a collections.abc.Sequence
   (core.py). */

#include "_core.h"

#define SMALL 96                /* most listings (a lead's units and throws too): in the */
#define SMALL_POOL 640          /* object itself, no other allocation */

typedef struct {
    PyObject_HEAD
    Sink sink;
    PyObject *token;
    PyObject **items;           /* the Move of each item, NULL until made (or no array yet) */
    unsigned char small_kind[SMALL];
    int small_len[SMALL];
    Py_ssize_t small_off[SMALL];
    unsigned char small_pool[SMALL_POOL];
    PyObject *small_items[SMALL];
} Moves;

/* the memory of the last Moves freed, kept for the next (a game lists one state at a time:
   this saves a large allocation and its release a move); the GIL guards it */
static Moves *spare;

/* a new, empty Moves of the listing ``token``; *sink: its sink, which the caller fills */
PyObject *
sj_moves_new(PyObject *token, Sink **sink)
{
    Moves *p = spare;
    if (p != NULL) {
        spare = NULL;
        (void)PyObject_Init((PyObject *)p, &sj_moves_type);
    } else if ((p = PyObject_New(Moves, &sj_moves_type)) == NULL) {
        return NULL;
    }
    memset(&p->sink, 0, sizeof p->sink);
    p->sink.fixed = 1;
    p->sink.kind = p->small_kind;
    p->sink.len = p->small_len;
    p->sink.off = p->small_off;
    p->sink.pool = p->small_pool;
    p->sink.cap = SMALL;
    p->sink.pool_cap = SMALL_POOL;
    p->token = token;
    Py_INCREF(token);
    p->items = NULL;
    *sink = &p->sink;
    return (PyObject *)p;
}

static void
moves_dealloc(Moves *p)
{
    if (p->items != NULL) {
        for (Py_ssize_t i = 0; i < p->sink.n; i++)
            Py_XDECREF(p->items[i]);
        if (p->items != p->small_items)
            PyMem_Free(p->items);
    }
    sj_sink_free(&p->sink);
    Py_XDECREF(p->token);
    if (spare == NULL && Py_IS_TYPE(p, &sj_moves_type))
        spare = p;
    else
        PyObject_Free(p);
}

static Py_ssize_t
moves_len(Moves *p)
{
    return p->sink.n;
}

/* Move(kind, cards, None, text, None, token) for item j (a new reference) */
static PyObject *
make_move(Moves *p, Py_ssize_t j)
{
    int kind = p->sink.kind[j];
    PyObject *cards = sj_cards_tuple(p->sink.pool + p->sink.off[j], p->sink.len[j]);
    if (cards == NULL)
        return NULL;
    PyObject *o = sj_move_type->tp_alloc(sj_move_type, 0);
    if (o == NULL) {
        Py_DECREF(cards);
        return NULL;
    }
    PyObject *v[6] = {sj_kind[kind], cards, Py_None,
                      kind == K_COMMIT ? sj_commit_text : kind == K_PASS ? sj_kind[K_PASS]
                                                                          : Py_None,
                      Py_None, p->token};
    for (int i = 0; i < 6; i++) {
        if (i != M_CARDS)
            Py_INCREF(v[i]);
        SLOT(o, sj_move_off[i]) = v[i];
    }
    return o;
}

static PyObject *
item(Moves *p, Py_ssize_t i)
{
    if (p->items == NULL) {
        if (p->sink.n <= SMALL) {
            memset(p->small_items, 0, sizeof(PyObject *) * (size_t)p->sink.n);   /* (n <= SMALL) */
            p->items = p->small_items;
        } else if ((p->items = PyMem_Calloc((size_t)p->sink.n, sizeof(PyObject *))) == NULL) {
            return PyErr_NoMemory();
        }
    }
    PyObject *m = p->items[i];
    if (m == NULL) {
        m = make_move(p, i);
        if (m == NULL)
            return NULL;
        p->items[i] = m;
    }
    Py_INCREF(m);
    return m;
}

static PyObject *
moves_item(Moves *p, Py_ssize_t i)
{
    if (i < 0 || i >= p->sink.n) {
        PyErr_SetString(PyExc_IndexError, "legal move index out of range");
        return NULL;
    }
    return item(p, i);
}

static PyObject *
items_list(Moves *p, Py_ssize_t start, Py_ssize_t n, Py_ssize_t step)
{
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t k = 0, i = start; k < n; k++, i += step) {
        PyObject *m = item(p, i);
        if (m == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, k, m);
    }
    return out;
}

static PyObject *
as_list(Moves *p)
{
    return items_list(p, 0, p->sink.n, 1);
}

static PyObject *
moves_subscript(Moves *p, PyObject *key)
{
    if (PyIndex_Check(key)) {
        Py_ssize_t i = PyNumber_AsSsize_t(key, PyExc_IndexError);
        if (i == -1 && PyErr_Occurred())
            return NULL;
        if (i < 0)
            i += p->sink.n;
        return moves_item(p, i);
    }
    if (PySlice_Check(key)) {
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(key, &start, &stop, &step) < 0)
            return NULL;
        Py_ssize_t n = PySlice_AdjustIndices(p->sink.n, &start, &stop, step);
        return items_list(p, start, n, step);
    }
    PyErr_Format(PyExc_TypeError, "legal move indices must be integers or slices, not %.200s",
                 Py_TYPE(key)->tp_name);
    return NULL;
}

static PyObject *
moves_concat(Moves *p, PyObject *other)
{
    PyObject *l = as_list(p);
    if (l == NULL)
        return NULL;
    PyObject *out = PySequence_Concat(l, other);
    Py_DECREF(l);
    return out;
}

static PyObject *
moves_richcompare(PyObject *a, PyObject *b, int op)
{
    if ((op != Py_EQ && op != Py_NE) ||
        !(PyList_Check(b) || Py_IS_TYPE(b, &sj_moves_type)) ||
        !(PyList_Check(a) || Py_IS_TYPE(a, &sj_moves_type)))
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *la = PyList_Check(a) ? (Py_INCREF(a), a) : as_list((Moves *)a);
    if (la == NULL)
        return NULL;
    PyObject *lb = PyList_Check(b) ? (Py_INCREF(b), b) : as_list((Moves *)b);
    if (lb == NULL) {
        Py_DECREF(la);
        return NULL;
    }
    PyObject *out = PyObject_RichCompare(la, lb, op);
    Py_DECREF(la);
    Py_DECREF(lb);
    return out;
}

static PyObject *
moves_repr(Moves *p)
{
    PyObject *l = as_list(p);
    if (l == NULL)
        return NULL;
    PyObject *out = PyObject_Repr(l);
    Py_DECREF(l);
    return out;
}

/* index(x) / count(x) as a list's; -2 on an error, -1 when not found (index) */
static Py_ssize_t
scan(Moves *p, PyObject *x, int first)
{
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < p->sink.n; i++) {
        PyObject *m = item(p, i);
        if (m == NULL)
            return -2;
        int eq = PyObject_RichCompareBool(m, x, Py_EQ);
        Py_DECREF(m);
        if (eq < 0)
            return -2;
        if (eq && first)
            return i;
        k += eq;
    }
    return first ? -1 : k;
}

static PyObject *
moves_index(Moves *p, PyObject *x)
{
    Py_ssize_t i = scan(p, x, 1);
    if (i == -2)
        return NULL;
    if (i == -1) {
        PyErr_SetString(PyExc_ValueError, "the move is not a legal move");
        return NULL;
    }
    return PyLong_FromSsize_t(i);
}

static PyObject *
moves_count(Moves *p, PyObject *x)
{
    Py_ssize_t k = scan(p, x, 0);
    return k == -2 ? NULL : PyLong_FromSsize_t(k);
}

static int
moves_contains(Moves *p, PyObject *x)
{
    Py_ssize_t i = scan(p, x, 1);
    return i == -2 ? -1 : i >= 0;
}

static PyObject *
moves_reduce(Moves *p, PyObject *unused)
{
    PyObject *l = as_list(p);
    if (l == NULL)
        return NULL;
    return Py_BuildValue("(O(N))", (PyObject *)&PyList_Type, l);
}

static PyObject *
moves_reversed(Moves *p, PyObject *unused)
{
    PyObject *l = p->sink.n ? items_list(p, p->sink.n - 1, p->sink.n, -1) : PyList_New(0);
    if (l == NULL)
        return NULL;
    PyObject *it = PyObject_GetIter(l);
    Py_DECREF(l);
    return it;
}

static PyMethodDef moves_methods[] = {
    {"index", (PyCFunction)moves_index, METH_O, "The index of the first equal move."},
    {"count", (PyCFunction)moves_count, METH_O, "How many moves are equal to x."},
    {"__reduce__", (PyCFunction)moves_reduce, METH_NOARGS, "Pickled and copied as a list."},
    {"__reversed__", (PyCFunction)moves_reversed, METH_NOARGS, "The moves, last first."},
    {NULL, NULL, 0, NULL}
};

static PySequenceMethods moves_as_sequence = {
    .sq_length = (lenfunc)moves_len,
    .sq_concat = (binaryfunc)moves_concat,
    .sq_item = (ssizeargfunc)moves_item,
    .sq_contains = (objobjproc)moves_contains,
};

static PyMappingMethods moves_as_mapping = {
    .mp_length = (lenfunc)moves_len,
    .mp_subscript = (binaryfunc)moves_subscript,
};

PyTypeObject sj_moves_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "shangyou.games.sheng_ji._core.Moves",
    .tp_doc = "The legal moves of one state, made into Move objects when asked for.",
    .tp_basicsize = sizeof(Moves),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)moves_dealloc,
    .tp_repr = (reprfunc)moves_repr,
    .tp_as_sequence = &moves_as_sequence,
    .tp_as_mapping = &moves_as_mapping,
    .tp_hash = PyObject_HashNotImplemented,
    .tp_richcompare = moves_richcompare,
    .tp_methods = moves_methods,
};
