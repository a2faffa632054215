/* The plays of a hand counted and filtered instead of listed: the choice of a play in steps
   (games/climbing/steps.py, docs/rules/zheng-shangyou.md, *Choosing a play in steps*).

   steps_begin(want, picked, cap) switches every play generator of the module (pagat, Owen,
   Zheng Fen, winner) to this mode until steps_end(); one generator call is made in between (a
   family's leads or follows, or pagat_moves), and steps_end() answers

     want None (the groups):  None when the call's own list holds every play (at most ``cap``
                              of them, made as usual; or none made here: the family listed
                              them in Python); for more, (firsts, codes, counts): per distinct
                              code in the order of its first play, that play, the code and how
                              many plays have it, and the call's list is left empty. Past
                              ``cap`` plays only whether a code has one play or more matters:
                              the rest of a window whose code has two is skipped (SKIP), so
                              the counts are then lower bounds (still 2 or more);
     want a list of codes:    (total, kept, maxima): the ``total`` plays whose code is one of
                              ``want`` and that hold every card of ``picked`` (as often as it
                              is there); the first ``cap`` of them (``kept``); ``maxima``:
                              bytes, per card code the most copies of it in any of those
                              plays. A window of plays of another code is skipped after its
                              first play; the call's list gets none of the plays.

   A *window* (``Gen.window`` set) is a run of plays of one group whose first play carries
   every code the run has (pagat sequences and multiple sequences, Owen stairs and plates:
   the pure or natural play first, when there is one). Other plays are never skipped.

   Past ``cap`` nothing but counters is made per play, so a hand of 100,000 plays is grouped
   without 100,000 objects; below it the plays are listed as without the steps, in one pass.
   (The pass that pagat_moves puts first when following is not a play: it stays, or goes
   with the plays when they are too many.) */

#include "_core.h"

#define STEP_SLOTS 16384          /* hash slots for the distinct codes (a power of two) */
#define STEP_CODES 8192           /* the most distinct codes of one hand */
#define STEP_CAP 4096             /* the largest ``cap`` */

_Thread_local int core_steps_on;

/* the counting's state, one per thread (see core_steps_on in _core.h) */
static _Thread_local struct {
    int used, filter, cap;
    long *want;
    Py_ssize_t nwant;
    unsigned char need[N_CARDS];  /* the picked cards, counted */
    int needed[N_CARDS];          /* the distinct picked cards */
    int nneeded;
    Py_ssize_t total;
    int over;                     /* group mode: more than ``cap`` plays, counted only */
    long pcode[STEP_CAP];         /* group mode: the code of each play listed, up to ``cap`` */
    PyObject *kept;               /* the first play of each code, or the plays filtered */
    long last_code;               /* plays of one code come in runs */
    int last_idx;                 /* its index, -1 for none */
    long slot_code[STEP_SLOTS];
    int slot_idx[STEP_SLOTS];     /* index + 1 into code/count, when slot_gen is ``gen`` */
    unsigned slot_gen[STEP_SLOTS];
    unsigned gen;                 /* one per count: the slots of earlier counts are free */
    long code[STEP_CODES];
    Py_ssize_t count[STEP_CODES];
    int ncodes;
    unsigned char maxc[N_CARDS];
    unsigned char cnt[N_CARDS];   /* scratch: the cards of one play, counted */
} S;

static int
cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

int core_steps_wants(long code);

/* the index of a code among those counted (a new one: *fresh set, count 0), or -1 with an
   exception when there are too many */
static int
code_index(long code, int *fresh)
{
    *fresh = 0;
    if (S.last_idx >= 0 && code == S.last_code)
        return S.last_idx;
    unsigned long h = (unsigned long)code * 0x9E3779B97F4A7C15UL;
    size_t i = (size_t)(h >> 40) & (STEP_SLOTS - 1);
    int k = -1;
    while (S.slot_gen[i] == S.gen) {
        if (S.slot_code[i] == code) {
            k = S.slot_idx[i] - 1;
            break;
        }
        i = (i + 1) & (STEP_SLOTS - 1);
    }
    if (k < 0) {
        if (S.ncodes == STEP_CODES) {
            PyErr_SetString(PyExc_OverflowError, "too many kinds of plays to count");
            return -1;
        }
        k = S.ncodes++;
        S.slot_code[i] = code;
        S.slot_idx[i] = k + 1;
        S.slot_gen[i] = S.gen;
        S.code[k] = code;
        S.count[k] = 0;
        *fresh = 1;
    }
    S.last_code = code;
    S.last_idx = k;
    return k;
}

/* more than ``cap`` plays: the ones listed so far in ``g->out`` are counted by code (their
   codes are in ``pcode``), the first of each code kept, and the list emptied */
static int
steps_over(Gen *g)
{
    S.over = 1;
    if (++S.gen == 0) {                     /* once in 2**32 counts: free every slot */
        memset(S.slot_gen, 0, sizeof S.slot_gen);
        S.gen = 1;
    }
    S.ncodes = 0;
    S.last_idx = -1;
    Py_ssize_t n = PyList_GET_SIZE(g->out), off = n - S.total;   /* a pass comes first */
    for (Py_ssize_t i = 0; i < S.total; i++) {
        int fresh, k = code_index(S.pcode[i], &fresh);
        if (k < 0)
            return -1;
        S.count[k]++;
        if (fresh && PyList_Append(S.kept, PyList_GET_ITEM(g->out, off + i)) < 0)
            return -1;
    }
    return PyList_SetSlice(g->out, 0, n, NULL);
}

int
core_steps_emit(Gen *g, long code, int ncards)
{
    S.used = 1;
    if (!S.filter) {
        if (!S.over) {
            if (S.total < S.cap) {          /* listed as without the steps */
                S.pcode[S.total++] = code;
                return core_emit_object(g, code, ncards, g->out);
            }
            if (steps_over(g) < 0)
                return -1;
        }
        S.total++;
        int fresh, k = code_index(code, &fresh);
        if (k < 0)
            return -1;
        S.count[k]++;
        if (fresh)                          /* its first play is kept */
            return core_emit_object(g, code, ncards, S.kept);
        /* past ``cap`` plays only whether a code has one play or more matters */
        return S.count[k] >= 2 && g->window ? SKIP : 0;
    }
    if (S.last_idx < 0 || code != S.last_code) {
        S.last_code = code;
        S.last_idx = core_steps_wants(code);
    }
    if (!S.last_idx)
        return g->window ? SKIP : 0;       /* a window's plays are of one group */
    const int *buf = g->buf;
    for (int j = 0; j < S.nneeded; j++) {
        int c = S.needed[j], have = 0;
        for (int i = 0; i < ncards; i++)
            have += buf[i] == c;
        if (have < S.need[c])
            return 0;
    }
    S.total++;
    if (S.total <= S.cap && core_emit_object(g, code, ncards, S.kept) < 0)
        return -1;
    for (int i = 0; i < ncards; i++) {
        int c = buf[i];
        if (++S.cnt[c] > S.maxc[c])
            S.maxc[c] = S.cnt[c];
    }
    for (int i = 0; i < ncards; i++)
        S.cnt[buf[i]] = 0;
    return 0;
}

int
core_steps_filtering(void)
{
    return core_steps_on && S.filter;
}

int
core_steps_wants(long code)
{
    return bsearch(&code, S.want, (size_t)S.nwant, sizeof(long), cmp_long) != NULL;
}

const unsigned char *
core_steps_need(void)
{
    return S.need;
}

Py_ssize_t
core_steps_room(void)
{
    return S.total < S.cap ? S.cap - S.total : 0;
}

/* ``n`` plays of the chosen group counted without being made (too many to keep);
   ``most``: per card code the most copies of it in any of them */
void
core_steps_add(Py_ssize_t n, const unsigned char *most)
{
    S.used = 1;
    S.total += n;
    for (int c = 0; c < N_CARDS; c++)
        if (most[c] > S.maxc[c])
            S.maxc[c] = most[c];
}

static void
steps_reset(void)
{
    core_steps_on = 0;
    PyMem_Free(S.want);
    S.want = NULL;
    if (S.kept != NULL && PyList_GET_SIZE(S.kept) &&
            PyList_SetSlice(S.kept, 0, PyList_GET_SIZE(S.kept), NULL) < 0)
        PyErr_Clear();              /* cannot fail: deleting a slice allocates nothing */
}

/* steps_begin(want, picked, cap): see the top of this file */
PyObject *
core_steps_begin(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "steps_begin(want, picked, cap)");
        return NULL;
    }
    if (core_steps_on) {
        PyErr_SetString(PyExc_RuntimeError, "steps_begin: already counting");
        return NULL;
    }
    long cap = PyLong_AsLong(args[2]);
    if (cap == -1 && PyErr_Occurred())
        return NULL;
    if (cap < 0 || cap > STEP_CAP) {
        PyErr_SetString(PyExc_ValueError, "cap out of range");
        return NULL;
    }
    if (S.kept == NULL && (S.kept = PyList_New(0)) == NULL)     /* kept for good */
        return NULL;
    S.used = 0;
    S.cap = (int)cap;
    S.total = 0;
    S.over = 0;
    S.last_idx = -1;
    S.last_code = 0;
    if (args[0] == Py_None) {               /* the groups: nothing more to set */
        S.filter = 0;
        core_steps_on = 1;
        Py_RETURN_NONE;
    }
    unsigned char need[N_CARDS];
    if (core_read_hand(args[1], need, 255) < 0)
        return NULL;
    PyObject *seq = PySequence_Fast(args[0], "want must be None or a sequence of codes");
    if (seq == NULL)
        return NULL;
    Py_ssize_t nwant = PySequence_Fast_GET_SIZE(seq);
    long *want = PyMem_Malloc((size_t)(nwant ? nwant : 1) * sizeof(long));
    if (want == NULL) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < nwant; i++) {
        want[i] = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (want[i] == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            PyMem_Free(want);
            return NULL;
        }
    }
    Py_DECREF(seq);
    qsort(want, (size_t)nwant, sizeof(long), cmp_long);
    S.filter = 1;
    S.want = want;
    S.nwant = nwant;
    memcpy(S.need, need, sizeof need);
    S.nneeded = 0;
    for (int c = 0; c < N_CARDS; c++)
        if (need[c])
            S.needed[S.nneeded++] = c;
    memset(S.maxc, 0, sizeof S.maxc);
    memset(S.cnt, 0, sizeof S.cnt);
    core_steps_on = 1;
    Py_RETURN_NONE;
}

/* steps_end(): what was counted (see the top of this file); the module lists plays again */
PyObject *
core_steps_end(PyObject *self, PyObject *unused)
{
    if (!core_steps_on) {
        PyErr_SetString(PyExc_RuntimeError, "steps_end: not counting");
        return NULL;
    }
    PyObject *res = NULL, *kept = NULL;
    if (S.filter) {
        kept = PyList_GetSlice(S.kept, 0, PyList_GET_SIZE(S.kept));
        if (kept != NULL)
            res = Py_BuildValue("(nNy#)", S.total, kept, (const char *)S.maxc,
                                (Py_ssize_t)N_CARDS);
    } else if (!S.used || !S.over) {
        res = Py_None;
        Py_INCREF(res);
    } else {
        PyObject *codes = PyList_New(S.ncodes), *counts = PyList_New(S.ncodes);
        kept = PyList_GetSlice(S.kept, 0, PyList_GET_SIZE(S.kept));
        if (codes != NULL && counts != NULL && kept != NULL) {
            for (int i = 0; i < S.ncodes; i++) {
                PyObject *a = PyLong_FromLong(S.code[i]);
                PyObject *b = PyLong_FromSsize_t(S.count[i]);
                if (a == NULL || b == NULL) {
                    Py_XDECREF(a);
                    Py_XDECREF(b);
                    Py_CLEAR(codes);
                    break;
                }
                PyList_SET_ITEM(codes, i, a);
                PyList_SET_ITEM(counts, i, b);
            }
            if (codes != NULL)
                res = Py_BuildValue("(OOO)", kept, codes, counts);
        }
        Py_XDECREF(kept);
        Py_XDECREF(codes);
        Py_XDECREF(counts);
    }
    steps_reset();
    return res;
}

/* steps_list(cap, family, hand, last, token): ``family.play_moves(hand, last, token)`` (or,
   where that is None, Move objects of ``family.leads(hand)`` / ``family.follows(hand,
   last)``, after the pass when following) while counting as steps_begin(None, (), cap) does:
   that list of every legal move when there are at most ``cap`` plays or the family listed
   them in Python; else steps_end's (firsts, codes, counts). What steps.first_step asks on
   every listing, in one call. */
PyObject *
core_steps_list(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static PyObject *s_play_moves, *s_leads, *s_follows;
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "steps_list(cap, family, hand, last, token)");
        return NULL;
    }
    if (s_play_moves == NULL && ((s_play_moves = PyUnicode_InternFromString("play_moves")) ==
                                 NULL || (s_leads = PyUnicode_InternFromString("leads")) ==
                                 NULL || (s_follows = PyUnicode_InternFromString("follows")) ==
                                 NULL))
        return NULL;
    PyObject *begin[3] = {Py_None, Py_None, args[0]};
    PyObject *r = core_steps_begin(self, begin, 3);
    if (r == NULL)
        return NULL;
    Py_DECREF(r);
    PyObject *fam = args[1], *hand = args[2], *last = args[3], *token = args[4];
    PyObject *moves = PyObject_CallMethodObjArgs(fam, s_play_moves, hand, last, token, NULL);
    PyObject *combos = NULL;
    if (moves == Py_None) {
        Py_CLEAR(moves);
        combos = last == Py_None ?
            PyObject_CallMethodObjArgs(fam, s_leads, hand, NULL) :
            PyObject_CallMethodObjArgs(fam, s_follows, hand, last, NULL);
    }
    PyObject *counted = core_steps_end(self, NULL);
    if (counted == NULL || (moves == NULL && combos == NULL)) {
        Py_XDECREF(counted);
        Py_XDECREF(moves);
        Py_XDECREF(combos);
        return NULL;
    }
    if (counted != Py_None) {
        Py_XDECREF(moves);
        Py_XDECREF(combos);
        return counted;
    }
    Py_DECREF(counted);
    if (moves != NULL)
        return moves;
    PyObject *seq = PySequence_Fast(combos, "leads and follows must give a list");
    Py_DECREF(combos);
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), at = last != Py_None;
    PyObject *out = PyList_New(n + at);
    if (out == NULL) {
        Py_DECREF(seq);
        return NULL;
    }
    if (at) {
        PyObject *pass = core_pass_move();
        if (pass == NULL) {
            Py_DECREF(seq);
            Py_DECREF(out);
            return NULL;
        }
        Py_INCREF(pass);
        PyList_SET_ITEM(out, 0, pass);
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *c = PySequence_Fast_GET_ITEM(seq, i);
        if (!core_is_combo(c)) {
            PyErr_SetString(PyExc_TypeError, "a listed play is not a Combo");
            Py_DECREF(seq);
            Py_DECREF(out);
            return NULL;
        }
        Py_INCREF(c);
        PyObject *m = core_move_of(c, fam, token);
        if (m == NULL) {
            Py_DECREF(seq);
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i + at, m);
    }
    Py_DECREF(seq);
    return out;
}
