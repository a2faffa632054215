/* The offsets of a class's named slots (__slots__ members holding objects), read once when a
   compiled core binds the class, so that the core reads and writes them at fixed offsets
   without a lookup: climbing/_core.c (Combo), climbing/_core_apply.c (ClimbingGame) and
   sheng_ji/_core.c (Move) include it. */
#ifndef SHANGYOU_SLOTS_H
#define SHANGYOU_SLOTS_H

#include <Python.h>
#include <structmember.h>        /* PyMemberDescrObject, T_OBJECT_EX */

/* off[i] = the offset of the slot names[i] of ``cls``, for i < n. ``own``: each is a slot the
   class declares itself (else one it inherits is accepted too); ``only``: the class has no
   __dict__ besides. 0, or -1 with TypeError. */
static inline int
slot_offsets(PyObject *cls, const char *const *names, int n, int own, int only,
             Py_ssize_t *off)
{
    if (!PyType_Check(cls)) {
        PyErr_SetString(PyExc_TypeError, "a class is needed");
        return -1;
    }
    PyTypeObject *type = (PyTypeObject *)cls;
    for (int i = 0; i < n; i++) {
        PyObject *d = PyObject_GetAttrString(cls, names[i]);
        if (d == NULL) {
            PyErr_Format(PyExc_TypeError, "the class has no slot %s", names[i]);
            return -1;
        }
        PyMemberDescrObject *md = (PyMemberDescrObject *)d;
        int ok = Py_IS_TYPE(d, &PyMemberDescr_Type) && md->d_member->type == T_OBJECT_EX &&
                 (own ? md->d_common.d_type == type
                      : PyType_IsSubtype(type, md->d_common.d_type));
        if (ok)
            off[i] = md->d_member->offset;
        Py_DECREF(d);
        if (!ok) {
            PyErr_Format(PyExc_TypeError, "%s is not a slot of the class", names[i]);
            return -1;
        }
    }
    if (only && type->tp_dictoffset != 0) {
        PyErr_SetString(PyExc_TypeError, "the class must have slots only");
        return -1;
    }
    return 0;
}

#endif
