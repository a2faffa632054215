/* ShengJiGame.legal_moves and ShengJiGame.apply as C methods (../_methods.h): the listing of
   sj_list_moves in the play and bury phases and the fast path of sj_apply_listed, as the
   Python methods call them. */
#include "_core.h"

static PyObject *S_phase_m, *S_play_m, *S_bury_m;

static PyObject *
FM_LIST(PyObject *game, PyObject *token, int *accepted)
{
    PyObject *d = PyObject_GenericGetDict(game, NULL);
    if (d == NULL)
        return NULL;
    PyObject *phase = PyDict_GetItemWithError(d, S_phase_m);
    Py_DECREF(d);               /* the game holds its dict and the phase */
    if (phase == NULL && PyErr_Occurred())
        return NULL;
    int listable = 0;
    if (phase != NULL && PyUnicode_CheckExact(phase))
        listable = PyUnicode_Compare(phase, S_play_m) == 0 ||
                   PyUnicode_Compare(phase, S_bury_m) == 0;
    if (!listable)
        Py_RETURN_NONE;
    PyObject *call[2] = {game, token};
    PyObject *listed = sj_list_moves(NULL, call, 2);
    if (listed != NULL && listed != Py_None)
        *accepted = 1;
    return listed;
}

#define FM_APPLY_LISTED sj_apply_listed
#include "../_methods.h"

/* methods(cls) -> (legal_moves, apply) */
PyObject *
sj_methods(PyObject *self, PyObject *cls)
{
    if ((S_phase_m == NULL && (S_phase_m = PyUnicode_InternFromString("phase")) == NULL) ||
        (S_play_m == NULL && (S_play_m = PyUnicode_InternFromString("play")) == NULL) ||
        (S_bury_m == NULL && (S_bury_m = PyUnicode_InternFromString("bury")) == NULL))
        return NULL;
    return fm_methods(self, cls);
}

PyObject *
sj_set_active(PyObject *self, PyObject *flag)
{
    return fm_set_active(self, flag);
}
