/* ClimbingGame.legal_moves and ClimbingGame.apply as C methods (../_methods.h): the listing
   of core_listed_moves (up to LISTING_LIMIT plays, accepted up to STEP_LIMIT) and the fast
   path of core_apply_listed, as the Python methods call them. */
#include "_core.h"

static PyObject *listing_limit;
static Py_ssize_t step_limit;

static PyObject *
FM_LIST(PyObject *game, PyObject *token, int *accepted)
{
    PyObject *call[3] = {game, token, listing_limit};
    PyObject *listed = core_listed_moves(NULL, call, 3);
    if (listed == NULL)
        return NULL;
    int yes = PyObject_IsTrue(listed);
    if (yes < 0) {
        Py_DECREF(listed);
        return NULL;
    }
    if (yes) {
        Py_ssize_t n = PyObject_Length(listed);
        if (n < 0) {
            Py_DECREF(listed);
            return NULL;
        }
        *accepted = n <= step_limit;
    }
    return listed;
}

#define FM_APPLY_LISTED core_apply_listed
#include "../_methods.h"

/* methods(cls, listing_limit, step_limit) -> (legal_moves, apply); binds cls's slots */
PyObject *
core_methods(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyLong_CheckExact(args[1]) || !PyLong_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "methods(cls, listing_limit, step_limit)");
        return NULL;
    }
    Py_ssize_t s = PyLong_AsSsize_t(args[2]);
    if (s == -1 && PyErr_Occurred())
        return NULL;
    if (core_bind_game(args[0]) < 0)      /* the slots the fast paths read (_core_apply.c) */
        return NULL;
    Py_XSETREF(listing_limit, Py_NewRef(args[1]));
    step_limit = s;
    return fm_methods(self, args[0]);
}

PyObject *
core_set_active(PyObject *self, PyObject *flag)
{
    return fm_set_active(self, flag);
}
