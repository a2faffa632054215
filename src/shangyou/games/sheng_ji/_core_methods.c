/* ShengJiGame.legal_moves and ShengJiGame.apply as C methods (../_methods.h): the listing of
   sj_list_moves in the play and bury phases and the fast path of sj_apply_listed, as the
   Python methods call them; in the play phase the listing of the hand held in C
   (_core_hand.c). */
#include "_core.h"

/* the listing of the play phase and the bury (sj_list_moves checks the phase: None in the
   others, which the Python code lists) */
static PyObject *
FM_LIST(PyObject *game, PyObject *token, int *accepted)
{
    PyObject *call[2] = {game, token};
    PyObject *listed = sj_list_moves(NULL, call, 2);
    if (listed != NULL && listed != Py_None)
        *accepted = 1;
    return listed;
}

#define FM_APPLY_LISTED sj_apply_listed
#define FM_LEGAL_HELD sj_held_legal
#include "../_methods.h"

/* methods(cls) -> (legal_moves, apply); the class's ``_st`` slot is bound (_core_hand.c) */
PyObject *
sj_methods(PyObject *self, PyObject *cls)
{
    if (sj_names() < 0 || sj_held_bind(cls) < 0)
        return NULL;
    return fm_methods(self, cls);
}

PyObject *
sj_set_active(PyObject *self, PyObject *flag)
{
    return fm_set_active(self, flag);
}
