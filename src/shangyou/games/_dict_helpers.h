/* Small helpers both compiled cores use to read and change a game's own attributes (its
   __dict__) and lists in C: climbing/_core_apply.c, sheng_ji/_core_apply.c and
   sheng_ji/_core_moves.c include it. */
#ifndef SHANGYOU_DICT_HELPERS_H
#define SHANGYOU_DICT_HELPERS_H

#include <Python.h>

#define GET(d, name) PyDict_GetItemWithError(d, name)

/* ``v`` (NULL: none) when it is a plain int in [0, below); -1 otherwise */
static inline long
small_value(PyObject *v, long below)
{
    if (v == NULL || !PyLong_CheckExact(v))
        return -1;
    long x = PyLong_AsLong(v);
    if (x < 0 || x >= below) {
        PyErr_Clear();
        return -1;
    }
    return x;
}

/* the attribute ``name`` of the dict when it is a plain int in [0, below); -1 otherwise */
static inline long
small(PyObject *d, PyObject *name, long below)
{
    return small_value(GET(d, name), below);
}

/* d[name] = v; 0, or -1 with an exception */
static inline int
set_long(PyObject *d, PyObject *name, long v)
{
    PyObject *o = PyLong_FromLong(v);
    if (o == NULL)
        return -1;
    int rc = PyDict_SetItem(d, name, o);
    Py_DECREF(o);
    return rc;
}

/* list.append((seat, what)); 0, or -1 with an exception */
static inline int
append_pair(PyObject *list, long seat, PyObject *what)
{
    PyObject *s = PyLong_FromLong(seat);
    if (s == NULL)
        return -1;
    PyObject *t = PyTuple_Pack(2, s, what);
    Py_DECREF(s);
    if (t == NULL)
        return -1;
    int rc = PyList_Append(list, t);
    Py_DECREF(t);
    return rc;
}

#endif
