/* Lazy sequences of moves, shared by both families' cores.

   A game's legal moves (climbing: Plays, and a choice's Steps and Subset; Sheng ji: Moves)
   are read-only sequences whose Move objects are made when an item is first asked for. Each
   such type begins with a LazySeq: its length and how item i is made. Everything else a
   list-like sequence of moves does is written here once: the sequence and mapping protocols
   (an index, a slice as a list, ``+`` with a list giving a list, ``in``), equality with a
   list or another lazy sequence of the same core, ``repr``, ``index``, ``count`` and
   pickling and copying as a list.

   Each extension compiles its own copy under its own names: it defines LAZY_SEQ(name) (the
   climbing core ``core_seq_##name``, Sheng ji's ``sj_seq_##name``) before including this
   header, and one of its files defines LAZY_SEQ_DEFINE before including it again, to define
   the functions and tables. */

#ifndef SHANGYOU_LAZY_SEQ_H
#define SHANGYOU_LAZY_SEQ_H

#ifndef LAZY_SEQ
#error "define LAZY_SEQ(name) before including _lazy_seq.h"
#endif

typedef struct LazySeq LazySeq;
struct LazySeq {
    PyObject_HEAD
    Py_ssize_t (*len)(LazySeq *);
    PyObject *(*item)(LazySeq *, Py_ssize_t);   /* item i, 0 <= i < len: a new reference */
};

PyObject *LAZY_SEQ(richcompare)(PyObject *a, PyObject *b, int op);
PyObject *LAZY_SEQ(repr)(PyObject *self);
PyObject *LAZY_SEQ(index)(PyObject *self, PyObject *x);
PyObject *LAZY_SEQ(count)(PyObject *self, PyObject *x);
PyObject *LAZY_SEQ(reduce)(PyObject *self, PyObject *unused);
extern PySequenceMethods LAZY_SEQ(as_sequence);
extern PyMappingMethods LAZY_SEQ(as_mapping);

/* the entries of a lazy sequence's method table that every one has */
#define LAZY_SEQ_METHODS \
    {"index", LAZY_SEQ(index), METH_O, "index(move): the first equal item's index."}, \
    {"count", LAZY_SEQ(count), METH_O, "count(move): how many items equal it."}, \
    {"__reduce__", LAZY_SEQ(reduce), METH_NOARGS, "Pickled and copied as a list."}

/* a type's slots for the shared parts (in its PyTypeObject's initialiser) */
#define LAZY_SEQ_TYPE_SLOTS \
    .tp_repr = LAZY_SEQ(repr), \
    .tp_as_sequence = &LAZY_SEQ(as_sequence), \
    .tp_as_mapping = &LAZY_SEQ(as_mapping), \
    .tp_hash = PyObject_HashNotImplemented, \
    .tp_richcompare = LAZY_SEQ(richcompare)

/* The array of made items of a sequence of n items: *items, or, the first time, ``small``
   (when n <= nsmall) or a new zeroed array; NULL with an exception when memory is short */
static inline PyObject **
lazy_seq_items(PyObject ***items, PyObject **small, Py_ssize_t nsmall, Py_ssize_t n)
{
    if (*items == NULL) {
        if (n <= nsmall) {
            memset(small, 0, sizeof(PyObject *) * (size_t)(n > 0 ? n : 1));
            *items = small;
        } else if ((*items = PyMem_Calloc((size_t)n, sizeof(PyObject *))) == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
    }
    return *items;
}

/* the made items released, and the array unless it is ``small`` */
static inline void
lazy_seq_items_free(PyObject **items, PyObject **small, Py_ssize_t n)
{
    if (items == NULL)
        return;
    for (Py_ssize_t i = 0; i < n; i++)
        Py_XDECREF(items[i]);
    if (items != small)
        PyMem_Free(items);
}

#endif /* SHANGYOU_LAZY_SEQ_H */

#if defined(LAZY_SEQ_DEFINE) && !defined(SHANGYOU_LAZY_SEQ_DEFINED)
#define SHANGYOU_LAZY_SEQ_DEFINED

#define SEQ(o) ((LazySeq *)(o))
#define SEQ_LEN(o) (SEQ(o)->len(SEQ(o)))

static Py_ssize_t
lazy_seq_len(PyObject *self)
{
    return SEQ_LEN(self);
}

static PyObject *
lazy_seq_item(PyObject *self, Py_ssize_t i)
{
    if (i < 0 || i >= SEQ_LEN(self)) {
        PyErr_SetString(PyExc_IndexError, "legal move index out of range");
        return NULL;
    }
    return SEQ(self)->item(SEQ(self), i);
}

/* n items from start, step apart, as a new list of Move objects */
static PyObject *
lazy_seq_list(PyObject *self, Py_ssize_t start, Py_ssize_t n, Py_ssize_t step)
{
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t k = 0, i = start; k < n; k++, i += step) {
        PyObject *m = SEQ(self)->item(SEQ(self), i);
        if (m == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, k, m);
    }
    return out;
}

static PyObject *
lazy_seq_as_list(PyObject *self)
{
    return lazy_seq_list(self, 0, SEQ_LEN(self), 1);
}

static PyObject *
lazy_seq_subscript(PyObject *self, PyObject *key)
{
    if (PyLong_CheckExact(key)) {        /* an int (random.choice's): no index protocol */
        Py_ssize_t i = PyLong_AsSsize_t(key);
        if (i != -1 || !PyErr_Occurred()) {
            if (i < 0)
                i += SEQ_LEN(self);
            return lazy_seq_item(self, i);
        }
        PyErr_Clear();                   /* too large: IndexError, as below */
    }
    if (PyIndex_Check(key)) {
        Py_ssize_t i = PyNumber_AsSsize_t(key, PyExc_IndexError);
        if (i == -1 && PyErr_Occurred())
            return NULL;
        if (i < 0)
            i += SEQ_LEN(self);
        return lazy_seq_item(self, i);
    }
    if (PySlice_Check(key)) {            /* a slice is a list, as a list's slice is */
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(key, &start, &stop, &step) < 0)
            return NULL;
        Py_ssize_t n = PySlice_AdjustIndices(SEQ_LEN(self), &start, &stop, step);
        return lazy_seq_list(self, start, n, step);
    }
    PyErr_Format(PyExc_TypeError, "legal move indices must be integers or slices, not %.200s",
                 Py_TYPE(key)->tp_name);
    return NULL;
}

static PyObject *
lazy_seq_concat(PyObject *self, PyObject *other)
{
    PyObject *l = lazy_seq_as_list(self);
    if (l == NULL)
        return NULL;
    PyObject *out = PySequence_Concat(l, other);
    Py_DECREF(l);
    return out;
}

/* a list, or a lazy sequence of this core (the types that share this comparison) */
static int
lazy_seq_comparable(PyObject *o)
{
    return PyList_Check(o) || Py_TYPE(o)->tp_richcompare == LAZY_SEQ(richcompare);
}

PyObject *
LAZY_SEQ(richcompare)(PyObject *a, PyObject *b, int op)
{
    if ((op != Py_EQ && op != Py_NE) || !lazy_seq_comparable(a) || !lazy_seq_comparable(b))
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *la = PyList_Check(a) ? (Py_INCREF(a), a) : lazy_seq_as_list(a);
    if (la == NULL)
        return NULL;
    PyObject *lb = PyList_Check(b) ? (Py_INCREF(b), b) : lazy_seq_as_list(b);
    if (lb == NULL) {
        Py_DECREF(la);
        return NULL;
    }
    PyObject *out = PyObject_RichCompare(la, lb, op);
    Py_DECREF(la);
    Py_DECREF(lb);
    return out;
}

PyObject *
LAZY_SEQ(repr)(PyObject *self)
{
    PyObject *l = lazy_seq_as_list(self);
    if (l == NULL)
        return NULL;
    PyObject *out = PyObject_Repr(l);
    Py_DECREF(l);
    return out;
}

/* index(x), count(x) and ``x in``, as a list's (equality of the items): the items equal to x
   from the first on, all of them counted (count) or the first one's index (first; -1 if
   none); -2 on an error */
static Py_ssize_t
lazy_seq_scan(PyObject *self, PyObject *x, int first)
{
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < SEQ_LEN(self); i++) {
        PyObject *m = SEQ(self)->item(SEQ(self), i);
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

PyObject *
LAZY_SEQ(index)(PyObject *self, PyObject *x)
{
    Py_ssize_t i = lazy_seq_scan(self, x, 1);
    if (i == -2)
        return NULL;
    if (i == -1) {
        PyErr_SetString(PyExc_ValueError, "the move is not a legal move");
        return NULL;
    }
    return PyLong_FromSsize_t(i);
}

PyObject *
LAZY_SEQ(count)(PyObject *self, PyObject *x)
{
    Py_ssize_t k = lazy_seq_scan(self, x, 0);
    return k == -2 ? NULL : PyLong_FromSsize_t(k);
}

static int
lazy_seq_contains(PyObject *self, PyObject *x)
{
    Py_ssize_t i = lazy_seq_scan(self, x, 1);
    return i == -2 ? -1 : i >= 0;
}

/* pickling and copying: the list of the moves */
PyObject *
LAZY_SEQ(reduce)(PyObject *self, PyObject *unused)
{
    PyObject *l = lazy_seq_as_list(self);
    if (l == NULL)
        return NULL;
    return Py_BuildValue("(O(N))", (PyObject *)&PyList_Type, l);
}

PySequenceMethods LAZY_SEQ(as_sequence) = {
    .sq_length = lazy_seq_len,
    .sq_concat = lazy_seq_concat,
    .sq_item = lazy_seq_item,
    .sq_contains = lazy_seq_contains,
};

PyMappingMethods LAZY_SEQ(as_mapping) = {
    .mp_length = lazy_seq_len,
    .mp_subscript = lazy_seq_subscript,
};

#undef SEQ
#undef SEQ_LEN

#endif /* LAZY_SEQ_DEFINE */
