/* A game's ``legal_moves`` and ``apply`` as C methods (climbing/_core_methods.c and
   sheng_ji/_core_methods.c include it).

   A random or searching player calls ``legal_moves()`` and ``apply()`` once each a move; as
   Python methods their frames and attribute reads cost more than a tenth of a move. These
   make the same calls without a Python frame: the class's ``legal_moves`` and ``apply``
   become method descriptors (``PyDescr_NewMethod``) whose C function does what the Python
   method does when the core is on, and hands everything else to Python:

   - ``legal_moves()``: the moves listed for this state (``_legal``; a list is copied), or a
     new token and the family's listing in C (``FM_LIST``); where the core lists nothing the
     game's ``_legal_rest(token, listed)`` lists in Python; the result is kept in ``_legal``.
   - ``apply(move[, seat])``: the family's fast path (``FM_APPLY``); where it makes nothing
     the game's ``_apply_rest(move, seat)``; keywords go to the Python method whole.
   - with the core off (``core.use(False)``, :func:`set_active`) both call the Python
     methods they replace, which stay the reference (kept as ``_legal_moves_py`` and
     ``_apply_py`` on the class).

   The including file defines, before including this header:
     static PyObject *FM_LIST(PyObject *game, PyObject *token, int *accepted);
        a new reference: the moves listed in C (*accepted = 1), or what the Python rest is
        given as ``listed`` (*accepted = 0); NULL with an exception on error;
     #define FM_APPLY_LISTED f
        f(NULL, {game, move, seat}, 3), the core's ``apply_listed``: True made, False not
        made (nothing changed), NULL an exception;
   and may define
     #define FM_LEGAL_HELD g
        g(game): the listing of a family that holds the state in C (no ``_legal`` nor
        ``_token`` in the dict while it does), a new reference; NULL without an exception
        where the dict's path lists (sheng_ji/_core_hand.c). */
#ifndef SHANGYOU_METHODS_H
#define SHANGYOU_METHODS_H

#include <Python.h>

/* the family's fast path: 1 made, 0 not made (nothing changed), -1 an exception */
static int
FM_APPLY(PyObject *game, PyObject *move, PyObject *seat)
{
    PyObject *call[3] = {game, move, seat};
    PyObject *r = FM_APPLY_LISTED(NULL, call, 3);
    if (r == NULL)
        return -1;
    int made = r == Py_True;
    Py_DECREF(r);
    return made;
}

static int fm_active = 1;
static PyObject *fm_legal_py, *fm_apply_py, *fm_legal_rest, *fm_apply_rest;
static PyObject *fm_S_legal, *fm_S_token;

static PyObject *
fm_legal_moves(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 0) {
        PyErr_SetString(PyExc_TypeError, "legal_moves() takes no arguments");
        return NULL;
    }
    if (!fm_active)
        return PyObject_CallOneArg(fm_legal_py, self);
#ifdef FM_LEGAL_HELD
    {
        PyObject *held = FM_LEGAL_HELD(self);
        if (held != NULL || PyErr_Occurred())
            return held;
    }
#endif
    PyObject *d = PyObject_GenericGetDict(self, NULL);
    if (d == NULL)
        return NULL;
    PyObject *out = NULL, *tok = NULL, *listed = NULL;
    PyObject *legal = PyDict_GetItemWithError(d, fm_S_legal);
    if (legal == NULL && PyErr_Occurred())
        goto done;
    if (legal != NULL && legal != Py_None) {
        out = PyList_CheckExact(legal) ? PyList_GetSlice(legal, 0, PyList_GET_SIZE(legal))
                                       : Py_NewRef(legal);
        goto done;
    }
    /* a new object(): what object.__new__ makes, without the call's argument checks */
    tok = PyBaseObject_Type.tp_alloc(&PyBaseObject_Type, 0);
    if (tok == NULL || PyDict_SetItem(d, fm_S_token, tok) < 0)
        goto done;
    int accepted = 0;
    listed = FM_LIST(self, tok, &accepted);
    if (listed == NULL)
        goto done;
    if (accepted) {
        if (PyDict_SetItem(d, fm_S_legal, listed) == 0)
            out = Py_NewRef(listed);
        goto done;
    }
    PyObject *call[3] = {self, tok, listed};
    PyObject *rest = PyObject_Vectorcall(fm_legal_rest, call, 3, NULL);
    if (rest == NULL)
        goto done;
    if (PyDict_SetItem(d, fm_S_legal, rest) == 0)
        out = PyList_CheckExact(rest) ? PyList_GetSlice(rest, 0, PyList_GET_SIZE(rest))
                                      : Py_NewRef(rest);
    Py_DECREF(rest);
done:
    Py_XDECREF(listed);
    Py_XDECREF(tok);
    Py_DECREF(d);
    return out;
}

static PyObject *
fm_apply(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (!fm_active || kwnames != NULL || nargs < 1 || nargs > 2) {
        /* the Python method, with self first (it checks the arguments) */
        Py_ssize_t n = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
        PyObject *small[4];
        PyObject **call = n + 1 <= 4 ? small : PyMem_Malloc(sizeof(PyObject *) * (size_t)(n + 1));
        if (call == NULL)
            return PyErr_NoMemory();
        call[0] = self;
        for (Py_ssize_t i = 0; i < n; i++)
            call[i + 1] = args[i];
        PyObject *r = PyObject_Vectorcall(fm_apply_py, call, nargs + 1, kwnames);
        if (call != small)
            PyMem_Free(call);
        return r;
    }
    PyObject *seat = nargs == 2 ? args[1] : Py_None;
    int rc = FM_APPLY(self, args[0], seat);
    if (rc < 0)
        return NULL;
    if (rc > 0)
        Py_RETURN_NONE;
    PyObject *call[3] = {self, args[0], seat};
    return PyObject_Vectorcall(fm_apply_rest, call, 3, NULL);
}

static PyMethodDef fm_defs[2] = {
    {"legal_moves", (PyCFunction)(void (*)(void))fm_legal_moves, METH_FASTCALL,
     "The moves offered now (the compiled core's method; ``_legal_moves_py`` is the "
     "Python reference)."},
    {"apply", (PyCFunction)(void (*)(void))fm_apply, METH_FASTCALL | METH_KEYWORDS,
     "apply(move, seat=None): make a move for the seat to act (the compiled core's method; "
     "``_apply_py`` is the Python reference)."},
};

/* methods(cls): (legal_moves, apply) as method descriptors of cls, whose Python methods
   (_legal_moves_py, _apply_py, _legal_rest, _apply_rest) they call where C does not act */
static PyObject *
fm_methods(PyObject *module, PyObject *cls)
{
    if (!PyType_Check(cls)) {
        PyErr_SetString(PyExc_TypeError, "methods(cls): a class");
        return NULL;
    }
    const char *names[4] = {"_legal_moves_py", "_apply_py", "_legal_rest", "_apply_rest"};
    PyObject **slots[4] = {&fm_legal_py, &fm_apply_py, &fm_legal_rest, &fm_apply_rest};
    for (int i = 0; i < 4; i++) {
        PyObject *f = PyObject_GetAttrString(cls, names[i]);
        if (f == NULL)
            return NULL;
        if (!PyCallable_Check(f)) {
            Py_DECREF(f);
            PyErr_Format(PyExc_TypeError, "%s is not callable", names[i]);
            return NULL;
        }
        Py_XSETREF(*slots[i], f);
    }
    if (fm_S_legal == NULL && (fm_S_legal = PyUnicode_InternFromString("_legal")) == NULL)
        return NULL;
    if (fm_S_token == NULL && (fm_S_token = PyUnicode_InternFromString("_token")) == NULL)
        return NULL;
    PyObject *a = PyDescr_NewMethod((PyTypeObject *)cls, &fm_defs[0]);
    PyObject *b = a == NULL ? NULL : PyDescr_NewMethod((PyTypeObject *)cls, &fm_defs[1]);
    if (b == NULL) {
        Py_XDECREF(a);
        return NULL;
    }
    PyObject *out = PyTuple_Pack(2, a, b);
    Py_DECREF(a);
    Py_DECREF(b);
    return out;
}

/* set_active(flag): the methods act in C (True) or call the Python methods (False) */
static PyObject *
fm_set_active(PyObject *module, PyObject *flag)
{
    int on = PyObject_IsTrue(flag);
    if (on < 0)
        return NULL;
    fm_active = on;
    Py_RETURN_NONE;
}

#endif
