/* The per-hand parts of the compiled core of Sheng ji kept apart from the shared headers
   (_core_ends.c): the end of a hand, its scoring and levels; the deal's last round. */
#ifndef SJ_CORE_ENDS_H
#define SJ_CORE_ENDS_H

#include <Python.h>

PyObject *sj_advance_deal(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
/* _core_draw.c: the deal's draws; an int item of a dict (an int or a cards.Card) */
int sj_has_bid(const int *cnt, int level, int seat, int cur_seat, int cur_card, int cur_count);
long sj_dict_long(PyObject *d, PyObject *key, int *ok);
int sj_hand_has_bid(PyObject *hand, int level, int seat, int cur_seat, int cur_card,
                    int cur_count);
PyObject *sj_end_hand(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

#endif
