/* What the two files of the module _fastobs share (_fastobs.c: the module, the helpers,
   head, rows, sort_moves; _fastobs_obs.c: observe, observe_game). */

#ifndef SHANGYOU_FASTOBS_H
#define SHANGYOU_FASTOBS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define N_CARDS 54

extern PyObject *s_kind, *s_cards, *s_play;      /* interned attribute names and "play" */

int fo_writable(PyObject *obj, Py_buffer *view);
int fo_card_of(PyObject *item, long *out);
int fo_add_cards(unsigned char *dst, PyObject *cards);
int fo_rel_of(PyObject *item, long me, Py_ssize_t n, Py_ssize_t *out);
int fo_put_bytes(unsigned char *dst, PyObject *b, Py_ssize_t want, const char *what);
int fo_write_rows(unsigned char *row, PyObject *moves, Py_ssize_t start, Py_ssize_t stop,
                  Py_ssize_t width, PyObject *kind_at, Py_ssize_t extra_at);

int fo_obs_init(void);
PyObject *fo_observe(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *fo_observe_game(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

#endif
