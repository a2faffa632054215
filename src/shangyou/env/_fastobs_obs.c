/* The climbing observation written whole by one call (part of the module _fastobs; see
   _fastobs.c for the other helpers and _fastobs.h for what they share). */

#include "_fastobs.h"

static PyObject *s_hands, *s_trick, *s_tricks, *s_last, *s_last_seat, *s_order, *s_phase,
                *s_exchange, *s_rules, *s_teams, *s_scoring, *s_trick_points;

/* The whole observation in one call, for ClimbingEncoder.write: the head, then the candidate
   rows of moves[start:stop] and the MORE row when pages > 1 (``moves`` None: no decision,
   page bytes 0). The candidate rows must be zeros; the head is written whole. Both answer
   False, having written nothing, for a position with card points or an exchange, which the
   caller writes in Python. ``consts``: (n, k, width, extra_at, kind_at, phase_index, and the
   offsets of played, last, counts, finished, passed, last_seat, partners, leading, phase,
   page, candidates, and the MORE column; the hand is at 0), from ClimbingEncoder.

   observe(buf, at, cv, moves, start, stop, page, pages, consts) -> bool
       from the compact view ``cv`` (compact_view's 13 fields): ClimbingEncoder._observe_py.
   observe_game(buf, at, game, seat, moves, start, stop, page, pages, consts, cache) -> bool
       the same bytes read from the game's attributes as compact_view reads them (hands,
       trick, tricks, last, last_seat, order, phase, exchange, rules.teams, rules.scoring);
       ``cache`` is a list [tricks, number counted, bytes of their card counts] that keeps
       the cards of finished tricks, as compact_view's cache does. */
enum { C_N, C_K, C_WIDTH, C_EXTRA, C_KIND_AT, C_PHASES, C_PLAYED, C_LAST, C_COUNTS,
       C_FINISHED, C_PASSED, C_LAST_SEAT, C_PARTNERS, C_LEADING, C_PHASE, C_PAGE, C_CAND,
       C_MORE, C_SIZE };

typedef struct {
    Py_ssize_t v[C_SIZE];
    PyObject *kind_at, *phases;
    Py_buffer view;
    unsigned char *p;                 /* the observation: view.buf + at */
    PyObject *moves;
    Py_ssize_t start, stop, page, pages;
} Obs;

/* read the arguments common to both (args: buf, at, ..., then at ``m``: moves, start, stop,
   page, pages, consts) and take the buffer; -1 with an exception, else 0 */
static int
obs_begin(Obs *o, PyObject *const *args, Py_ssize_t m, long seat)
{
    PyObject *consts = args[m + 5];
    if (!PyTuple_Check(consts) || PyTuple_GET_SIZE(consts) != C_SIZE) {
        PyErr_SetString(PyExc_TypeError, "bad consts");
        return -1;
    }
    Py_ssize_t *c = o->v;
    for (int i = 0; i < C_SIZE; i++)
        c[i] = (i == C_KIND_AT || i == C_PHASES) ? 0 :
            PyLong_AsSsize_t(PyTuple_GET_ITEM(consts, i));
    o->kind_at = PyTuple_GET_ITEM(consts, C_KIND_AT);
    o->phases = PyTuple_GET_ITEM(consts, C_PHASES);
    Py_ssize_t at = PyLong_AsSsize_t(args[1]);
    o->moves = args[m];
    o->start = o->stop = o->page = o->pages = 0;
    if (o->moves != Py_None) {
        o->start = PyLong_AsSsize_t(args[m + 1]);
        o->stop = PyLong_AsSsize_t(args[m + 2]);
        o->page = PyLong_AsSsize_t(args[m + 3]);
        o->pages = PyLong_AsSsize_t(args[m + 4]);
    }
    if (PyErr_Occurred())
        return -1;
    if (!PyDict_Check(o->kind_at) || !PyDict_Check(o->phases)) {
        PyErr_SetString(PyExc_TypeError, "bad consts");
        return -1;
    }
    Py_ssize_t n = c[C_N], width = c[C_WIDTH], o_cand = c[C_CAND];
    if (n < 1 || seat < 0 || seat >= n) {
        PyErr_SetString(PyExc_ValueError, "seat out of range");
        return -1;
    }
    if (o->moves != Py_None) {
        if (!PyList_Check(o->moves)) {
            PyErr_SetString(PyExc_TypeError, "moves must be a list or None");
            return -1;
        }
        if (o->start < 0 || o->stop < o->start || o->stop > PyList_GET_SIZE(o->moves)
                || o->stop - o->start > c[C_K] || o->page < 0 || o->pages < 1) {
            PyErr_SetString(PyExc_ValueError, "bad page of moves");
            return -1;
        }
    }
    if (width < N_CARDS || c[C_EXTRA] < 0 || c[C_EXTRA] >= width || c[C_MORE] < 0
            || c[C_MORE] >= width || c[C_K] < 1) {
        PyErr_SetString(PyExc_ValueError, "bad row width");
        return -1;
    }
    for (int i = C_PLAYED; i <= C_PAGE; i++) {
        Py_ssize_t len = i == C_PLAYED || i == C_LAST ? N_CARDS : i == C_PAGE ? 2 :
            i == C_LEADING ? 1 : i == C_PHASE ? PyDict_GET_SIZE(o->phases) : n;
        if (c[i] < N_CARDS || c[i] + len > o_cand) {
            PyErr_SetString(PyExc_ValueError, "bad offsets");
            return -1;
        }
    }
    if (fo_writable(args[0], &o->view) < 0)
        return -1;
    if (at < 0 || at + o_cand + c[C_K] * width > o->view.len) {
        PyBuffer_Release(&o->view);
        PyErr_SetString(PyExc_ValueError, "the observation does not fit in the buffer");
        return -1;
    }
    o->p = (unsigned char *)o->view.buf + at;
    memset(o->p, 0, (size_t)o_cand);
    return 0;
}

/* the slices both write alike: hand, finished, last, last_seat (or leading), partners, phase;
   ``last`` None or the cards of the play to beat */
static int
obs_common(Obs *o, long seat, PyObject *hand, PyObject *finished, PyObject *last,
           PyObject *last_seat, PyObject *teams, PyObject *phase)
{
    unsigned char *p = o->p;
    Py_ssize_t *c = o->v, n = c[C_N], r;
    if (fo_add_cards(p, hand) < 0)
        return -1;
    PyObject *fin = PySequence_Fast(finished, "finished must be a sequence");
    if (fin == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fin); i++) {
        if (fo_rel_of(PySequence_Fast_GET_ITEM(fin, i), seat, n, &r) < 0) {
            Py_DECREF(fin);
            return -1;
        }
        p[c[C_FINISHED] + r] = (unsigned char)(i + 1 > 127 ? 127 : i + 1);
    }
    Py_DECREF(fin);
    if (last != Py_None) {
        if (fo_add_cards(p + c[C_LAST], last) < 0 || fo_rel_of(last_seat, seat, n, &r) < 0)
            return -1;
        p[c[C_LAST_SEAT] + r] = 1;
    } else {
        p[c[C_LEADING]] = 1;
    }
    int has_teams = PyObject_IsTrue(teams);
    if (has_teams < 0)
        return -1;
    if (!has_teams) {
        p[c[C_PARTNERS]] = 1;
    } else {
        PyObject *ts = PySequence_Fast(teams, "teams must be a sequence of seat sequences");
        if (ts == NULL)
            return -1;
        for (Py_ssize_t t = 0; t < PySequence_Fast_GET_SIZE(ts); t++) {
            PyObject *team = PySequence_Fast(PySequence_Fast_GET_ITEM(ts, t),
                                             "a team must be a sequence of seats");
            if (team == NULL) {
                Py_DECREF(ts);
                return -1;
            }
            Py_ssize_t m = PySequence_Fast_GET_SIZE(team);
            int mine = 0;
            for (Py_ssize_t j = 0; j < m; j++) {
                long s = PyLong_AsLong(PySequence_Fast_GET_ITEM(team, j));
                if (s == -1 && PyErr_Occurred()) {
                    Py_DECREF(team);
                    Py_DECREF(ts);
                    return -1;
                }
                mine |= s == seat;
            }
            for (Py_ssize_t j = 0; mine && j < m; j++) {
                if (fo_rel_of(PySequence_Fast_GET_ITEM(team, j), seat, n, &r) < 0) {
                    Py_DECREF(team);
                    Py_DECREF(ts);
                    return -1;
                }
                p[c[C_PARTNERS] + r] = 1;
            }
            Py_DECREF(team);
        }
        Py_DECREF(ts);
    }
    PyObject *ph = PyDict_GetItemWithError(o->phases, phase);
    Py_ssize_t phi = ph == NULL ? -1 : PyLong_AsSsize_t(ph);
    if (phi < 0 || phi >= PyDict_GET_SIZE(o->phases)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "an unknown phase");
        return -1;
    }
    p[c[C_PHASE] + phi] = 1;
    return 0;
}

/* the page bytes and the candidate rows; releases the buffer; True, or NULL on ``failed`` */
static PyObject *
obs_end(Obs *o, int failed)
{
    Py_ssize_t *c = o->v;
    unsigned char *p = o->p;
    if (!failed && o->moves != Py_None) {
        p[c[C_PAGE]] = (unsigned char)(o->page > 127 ? 127 : o->page);
        p[c[C_PAGE] + 1] = (unsigned char)(o->pages > 127 ? 127 : o->pages);
        if (fo_write_rows(p + c[C_CAND], o->moves, o->start, o->stop, c[C_WIDTH], o->kind_at,
                       c[C_EXTRA]) < 0)
            failed = 1;
        else if (o->pages > 1)
            p[c[C_CAND] + (c[C_K] - 1) * c[C_WIDTH] + c[C_MORE]] = 1;
    }
    PyBuffer_Release(&o->view);
    if (failed)
        return NULL;
    Py_RETURN_TRUE;
}

PyObject *
fo_observe(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "observe() takes 9 arguments");
        return NULL;
    }
    PyObject *cv = args[2];
    if (!PyTuple_Check(cv) || PyTuple_GET_SIZE(cv) != 13) {
        PyErr_SetString(PyExc_TypeError, "cv must be a compact view (a tuple of 13)");
        return NULL;
    }
    if (PyTuple_GET_ITEM(cv, 10) != Py_None || PyTuple_GET_ITEM(cv, 12) != Py_None)
        Py_RETURN_FALSE;                      /* points or an exchange: the Python path */
    long seat = PyLong_AsLong(PyTuple_GET_ITEM(cv, 0));
    if (seat == -1 && PyErr_Occurred())
        return NULL;
    Obs o;
    if (obs_begin(&o, args, 3, seat) < 0)
        return NULL;
    Py_ssize_t *c = o.v, n = c[C_N], r;
    unsigned char *p = o.p;
    PyObject *counts = PyTuple_GET_ITEM(cv, 3), *last = PyTuple_GET_ITEM(cv, 5);
    if (!PyList_Check(counts) || PyList_GET_SIZE(counts) != n) {
        PyErr_SetString(PyExc_ValueError, "counts must be a list of one count per seat");
        return obs_end(&o, 1);
    }
    if (fo_put_bytes(p + c[C_PLAYED], PyTuple_GET_ITEM(cv, 4), N_CARDS, "played") < 0)
        return obs_end(&o, 1);
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PyList_GET_ITEM(counts, i));
        if (v == -1 && PyErr_Occurred())
            return obs_end(&o, 1);
        p[c[C_COUNTS] + (i - seat + n) % n] = (unsigned char)(v < 0 ? 0 : v > 127 ? 127 : v);
    }
    if (last != Py_None) {
        PyObject *ps = PySequence_Fast(PyTuple_GET_ITEM(cv, 7), "passed must be a sequence");
        if (ps == NULL)
            return obs_end(&o, 1);
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(ps); i++) {
            if (fo_rel_of(PySequence_Fast_GET_ITEM(ps, i), seat, n, &r) < 0) {
                Py_DECREF(ps);
                return obs_end(&o, 1);
            }
            p[c[C_PASSED] + r] = 1;
        }
        Py_DECREF(ps);
    }
    int bad = obs_common(&o, seat, PyTuple_GET_ITEM(cv, 2), PyTuple_GET_ITEM(cv, 8), last,
                         PyTuple_GET_ITEM(cv, 6), PyTuple_GET_ITEM(cv, 9),
                         PyTuple_GET_ITEM(cv, 1));
    return obs_end(&o, bad);
}

/* add the cards of every play of ``trick`` (a list of (seat, combo or None)) to ``dst`` */
static int
add_trick(unsigned char *dst, PyObject *trick)
{
    if (!PyList_Check(trick)) {
        PyErr_SetString(PyExc_TypeError, "a trick must be a list");
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(trick); i++) {
        PyObject *pair = PyList_GET_ITEM(trick, i);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "a trick's plays must be (seat, combo) pairs");
            return -1;
        }
        PyObject *combo = PyTuple_GET_ITEM(pair, 1);
        if (combo == Py_None)
            continue;
        PyObject *cards = PyObject_GetAttr(combo, s_cards);
        if (cards == NULL)
            return -1;
        int r = fo_add_cards(dst, cards);
        Py_DECREF(cards);
        if (r < 0)
            return -1;
    }
    return 0;
}


PyObject *
fo_observe_game(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 11) {
        PyErr_SetString(PyExc_TypeError, "observe_game() takes 11 arguments");
        return NULL;
    }
    PyObject *game = args[2], *cache = args[10];
    long seat = PyLong_AsLong(args[3]);
    if (seat == -1 && PyErr_Occurred())
        return NULL;
    if (!PyList_Check(cache) || PyList_GET_SIZE(cache) != 3) {
        PyErr_SetString(PyExc_TypeError, "cache must be a list of 3");
        return NULL;
    }
    PyObject *got[9] = {NULL};       /* exchange, rules, scoring, hands, trick, tricks, last,
                                        last_seat, order; then teams, phase */
    PyObject *teams = NULL, *phase = NULL, *last_cards = NULL, *res = NULL;
    PyObject *names[9] = {s_exchange, s_rules, s_scoring, s_hands, s_trick, s_tricks, s_last,
                          s_last_seat, s_order};
    for (int i = 0; i < 9; i++) {
        got[i] = PyObject_GetAttr(i == 2 ? got[1] : game, names[i]);
        if (got[i] == NULL)
            goto done;
        if (i == 0 && got[0] != Py_None) {
            res = Py_NewRef(Py_False);       /* an exchange: the Python path */
            goto done;
        }
        if (i == 2) {
            int eq = PyObject_RichCompareBool(got[2], s_trick_points, Py_EQ);
            if (eq < 0)
                goto done;
            if (eq) {
                res = Py_NewRef(Py_False);   /* card points: the Python path */
                goto done;
            }
        }
    }
    PyObject *hands = got[3], *trick = got[4], *tricks = got[5], *last = got[6];
    teams = PyObject_GetAttr(got[1], s_teams);
    phase = teams == NULL ? NULL : PyObject_GetAttr(game, s_phase);
    if (phase == NULL)
        goto done;
    if (!PyList_Check(hands) || !PyList_Check(trick) || !PyList_Check(tricks)) {
        PyErr_SetString(PyExc_TypeError, "hands, trick and tricks must be lists");
        goto done;
    }
    if (last != Py_None && (last_cards = PyObject_GetAttr(last, s_cards)) == NULL)
        goto done;
    Obs o;
    if (obs_begin(&o, args, 4, seat) < 0)
        goto done;
    Py_ssize_t *c = o.v, n = c[C_N];
    unsigned char *p = o.p;
    int bad = 1;
    if (PyList_GET_SIZE(hands) != n) {
        PyErr_SetString(PyExc_ValueError, "a hand per seat");
        goto end;
    }
    for (Py_ssize_t i = 0; i < n; i++) {                         /* counts */
        PyObject *h = PyList_GET_ITEM(hands, i);
        if (!PyList_Check(h)) {
            PyErr_SetString(PyExc_TypeError, "a hand must be a list");
            goto end;
        }
        Py_ssize_t v = PyList_GET_SIZE(h);
        p[c[C_COUNTS] + (i - seat + n) % n] = (unsigned char)(v > 127 ? 127 : v);
    }
    /* played: finished tricks (counted once, kept in ``cache``), then the trick now */
    Py_ssize_t done_n = PyList_GET_ITEM(cache, 0) == tricks ?
        PyLong_AsSsize_t(PyList_GET_ITEM(cache, 1)) : 0;
    PyObject *acc = PyList_GET_ITEM(cache, 2);
    if (done_n == -1 && PyErr_Occurred())
        goto end;
    if (done_n < 0 || !PyBytes_Check(acc) || PyBytes_GET_SIZE(acc) != N_CARDS) {
        PyErr_SetString(PyExc_ValueError, "a bad cache of played cards");
        goto end;
    }
    if (done_n > PyList_GET_SIZE(tricks))      /* not the tricks it counted: count again */
        done_n = 0;
    unsigned char *pl = p + c[C_PLAYED];
    if (done_n > 0)
        memcpy(pl, PyBytes_AS_STRING(acc), N_CARDS);
    if (done_n < PyList_GET_SIZE(tricks)) {
        for (Py_ssize_t t = done_n; t < PyList_GET_SIZE(tricks); t++)
            if (add_trick(pl, PyList_GET_ITEM(tricks, t)) < 0)
                goto end;
        PyObject *b = PyBytes_FromStringAndSize((const char *)pl, N_CARDS);
        PyObject *num = b == NULL ? NULL : PyLong_FromSsize_t(PyList_GET_SIZE(tricks));
        if (num == NULL) {
            Py_XDECREF(b);
            goto end;
        }
        PyList_SetItem(cache, 0, Py_NewRef(tricks));
        PyList_SetItem(cache, 1, num);
        PyList_SetItem(cache, 2, b);
    }
    if (add_trick(pl, trick) < 0)
        goto end;
    Py_ssize_t nt = PyList_GET_SIZE(trick);                      /* passed */
    if (last != Py_None && nt > 0 && PyTuple_GET_ITEM(PyList_GET_ITEM(trick, nt - 1), 1) == Py_None) {
        for (Py_ssize_t i = nt - 1; i >= 0; i--) {
            PyObject *pair = PyList_GET_ITEM(trick, i);
            if (PyTuple_GET_ITEM(pair, 1) != Py_None)
                break;
            Py_ssize_t r;
            if (fo_rel_of(PyTuple_GET_ITEM(pair, 0), seat, n, &r) < 0)
                goto end;
            p[c[C_PASSED] + r] = 1;
        }
    }
    bad = obs_common(&o, seat, PyList_GET_ITEM(hands, seat), got[8],
                     last_cards == NULL ? Py_None : last_cards, got[7], teams, phase);
end:
    res = obs_end(&o, bad);
done:
    for (int i = 0; i < 9; i++)
        Py_XDECREF(got[i]);
    Py_XDECREF(teams);
    Py_XDECREF(phase);
    Py_XDECREF(last_cards);
    return res;
}

int
fo_obs_init(void)
{
    PyObject **names[] = {&s_hands, &s_trick, &s_tricks, &s_last, &s_last_seat, &s_order,
                          &s_phase, &s_exchange, &s_rules, &s_teams, &s_scoring,
                          &s_trick_points};
    const char *texts[] = {"hands", "trick", "tricks", "last", "last_seat", "order", "phase",
                           "exchange", "rules", "teams", "scoring", "trick-points"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if ((*names[i] = PyUnicode_InternFromString(texts[i])) == NULL)
            return -1;
    return 0;
}
