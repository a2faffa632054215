/* The plays of a hand counted and filtered instead of listed: the choice of a play in steps
   (games/climbing/steps.py, docs/rules/zheng-shangyou.md, *Choosing a play in steps*).

   steps_begin(want, picked, cap) switches every play generator of the module (pagat, Owen,
   Zheng Fen, winner) to this mode until steps_end(); the generator called in between (a
   family's leads or follows) then returns an empty list, and steps_end() answers

     want None (the groups):  (used, total, plays, None, None) for ``total`` plays, at most
                              ``cap``: every play, made as the generator makes it; for more,
                              (used, total, firsts, codes, counts): per distinct code in the
                              order of its first play, that play, the code and how many
                              plays have it. Past ``cap`` plays only whether a code has one
                              play or more matters: the rest of a window whose code has two
                              is skipped (SKIP), so ``total`` and the counts are lower
                              bounds (still above ``cap``, still 2 or more);
     want a list of codes:    (used, total, kept, maxima): the ``total`` plays whose code is
                              one of ``want`` and that hold every card of ``picked`` (as
                              often as it is there); the first ``cap`` of them (``kept``);
                              ``maxima``: bytes, per card code the most copies of it in any
                              of those plays. A window of plays of another code is skipped
                              after its first play.

   A *window* (``Gen.window`` set) is a run of plays of one group whose first play carries
   every code the run has (pagat sequences and multiple sequences, Owen stairs and plates:
   the pure or natural play first, when there is one). Other plays are never skipped.

   ``used`` is 0 when no generator of this module ran (the family listed the plays in Python:
   the caller does it the Python way). Nothing but counters is made per play, so a hand of
   100,000 plays is counted without 100,000 objects. */

#include "_core.h"

#define STEP_SLOTS 16384          /* hash slots for the distinct codes (a power of two) */
#define STEP_CODES 8192           /* the most distinct codes of one hand */

int core_steps_on;

static struct {
    int used, filter, cap;
    long *want;
    Py_ssize_t nwant;
    unsigned char need[N_CARDS];  /* the picked cards, counted */
    int needed[N_CARDS];          /* the distinct picked cards */
    int nneeded;
    Py_ssize_t total;
    PyObject *kept;               /* group mode: the first play of each code */
    PyObject *plays;              /* group mode: every play, while at most ``cap``; or NULL */
    long last_code;               /* plays of one code come in runs */
    int last_idx;                 /* its index, -1 for none */
    long slot_code[STEP_SLOTS];
    int slot_idx[STEP_SLOTS];     /* index + 1 into code/count; 0: a free slot */
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

int
core_steps_emit(Gen *g, long code, int ncards)
{
    S.used = 1;
    if (!S.filter) {
        if (++S.total > S.cap && S.plays != NULL)
            Py_CLEAR(S.plays);              /* too many to list: counted only */
        int k = -1;
        if (S.last_idx >= 0 && code == S.last_code) {
            k = S.last_idx;
        } else {
            unsigned long h = (unsigned long)code * 0x9E3779B97F4A7C15UL;
            size_t i = (size_t)(h >> 40) & (STEP_SLOTS - 1);
            while (S.slot_idx[i]) {
                if (S.slot_code[i] == code) {
                    k = S.slot_idx[i] - 1;
                    break;
                }
                i = (i + 1) & (STEP_SLOTS - 1);
            }
            if (k < 0) {                    /* a new code: its first play is kept */
                if (S.ncodes == STEP_CODES) {
                    PyErr_SetString(PyExc_OverflowError, "too many kinds of plays to count");
                    return -1;
                }
                k = S.ncodes++;
                S.slot_code[i] = code;
                S.slot_idx[i] = k + 1;
                S.code[k] = code;
                S.count[k] = 1;
                S.last_code = code;
                S.last_idx = k;
                if (S.plays == NULL)
                    return core_emit_object(g, code, ncards, S.kept);
                if (core_emit_object(g, code, ncards, S.plays) < 0)
                    return -1;
                return PyList_Append(S.kept, PyList_GET_ITEM(S.plays,
                                                             PyList_GET_SIZE(S.plays) - 1));
            }
            S.last_code = code;
            S.last_idx = k;
        }
        S.count[k]++;
        if (S.plays != NULL)
            return core_emit_object(g, code, ncards, S.plays);
        /* past ``cap`` plays only whether a code has one play or more matters */
        return g->window ? SKIP : 0;
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
    Py_CLEAR(S.kept);
    Py_CLEAR(S.plays);
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
    if (cap < 0 || cap > 1000000) {
        PyErr_SetString(PyExc_ValueError, "cap out of range");
        return NULL;
    }
    unsigned char need[N_CARDS];
    if (core_read_hand(args[1], need, 255) < 0)
        return NULL;
    long *want = NULL;
    Py_ssize_t nwant = 0;
    if (args[0] != Py_None) {
        PyObject *seq = PySequence_Fast(args[0], "want must be None or a sequence of codes");
        if (seq == NULL)
            return NULL;
        nwant = PySequence_Fast_GET_SIZE(seq);
        want = PyMem_Malloc((size_t)(nwant ? nwant : 1) * sizeof(long));
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
    }
    PyObject *kept = PyList_New(0);
    if (kept == NULL) {
        PyMem_Free(want);
        return NULL;
    }
    S.used = 0;
    S.filter = want != NULL;
    S.cap = (int)cap;
    S.want = want;
    S.nwant = nwant;
    memcpy(S.need, need, sizeof need);
    S.nneeded = 0;
    for (int c = 0; c < N_CARDS; c++)
        if (need[c])
            S.needed[S.nneeded++] = c;
    S.total = 0;
    S.kept = kept;
    S.plays = NULL;
    if (!S.filter && (S.plays = PyList_New(0)) == NULL) {
        PyMem_Free(want);
        Py_CLEAR(S.kept);
        return NULL;
    }
    S.last_idx = -1;
    S.last_code = 0;
    if (!S.filter)
        memset(S.slot_idx, 0, sizeof S.slot_idx);
    S.ncodes = 0;
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
    PyObject *res = NULL;
    if (S.filter) {
        res = Py_BuildValue("(inOy#)", S.used, S.total, S.kept, (const char *)S.maxc,
                            (Py_ssize_t)N_CARDS);
    } else if (S.plays != NULL) {
        res = Py_BuildValue("(inOOO)", S.used, S.total, S.plays, Py_None, Py_None);
    } else {
        PyObject *codes = PyList_New(S.ncodes), *counts = PyList_New(S.ncodes);
        if (codes != NULL && counts != NULL) {
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
                res = Py_BuildValue("(inOOO)", S.used, S.total, S.kept, codes, counts);
        }
        Py_XDECREF(codes);
        Py_XDECREF(counts);
    }
    steps_reset();
    return res;
}
