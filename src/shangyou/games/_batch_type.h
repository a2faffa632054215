/* The Python Batch type's plumbing, written once for both batch engines
   (climbing/_core_batch.c, sheng_ji/_core_batch.c): the arrays checked and held, the rows and
   their generators allocated, reset, step (the ids checked, the GIL released, the rows run
   on the pool), a row's step in either mode (BatchSim's, the vector env's: rewards, flags,
   the next hand, the opponents, the observation),
   the methods every Batch has (BATCH_COMMON_DEFS), dealloc and the type object (BATCH_TYPE).

   An engine includes this file after it has defined:

   - ``Row``: a row, with the fields ``m`` (its generators: m[0] the seed stream), ``to_act``
     and ``over`` (the seat to act, the hand over), ``ncand``, ``page``, ``pages``,
     ``per_page`` (the decision's candidates and pages), ``listed`` (they are made),
     ``autoreset`` (single mode: a new episode at the next step), ``steps`` (of the episode)
     and ``error``;
   - ``Batch``: PyObject_HEAD, BATCH_FIELDS (_batch_pool.h), then the engine's own fields;
   - ``Scratch``: a thread's scratch space;
   - BATCH_MAX_PLAYERS, BATCH_ERROR_TEXT (the MemoryError of a row that failed: "%d" its
     index);

   and declares (static, or in another file of the engine) its parts of a step:

       int scratch_open(Scratch *sc);  void scratch_close(Scratch *sc);
           a thread's scratch space's buffers (PyMem_Raw: no GIL) made: 0, or -1 without
           memory; freed (those made: the space was zeroed)
       void row_release(Row *r);                     the row's own buffers freed
       int make_decision(const Batch *b, Row *r, Scratch *sc);
           the candidates of the decision now, in the env's order, and page 0: -1 where the
           engine does not list it (or has no memory)
       void observe(const Batch *b, Row *r, int i, int seat, int decision);
           the observation of ``seat`` (its decision when ``decision``) into row i, its mask
       void aec_next_hand(const Batch *b, Row *r);   BatchSim's next hand
       void single_restart(const Batch *b, Row *r);  SingleAgentEnv._restart
       int play_bots(const Batch *b, Row *r, Scratch *sc);
           the random opponents of the single-agent mode, until the learner acts or the
           hand ends
       int take_id(const Batch *b, Row *r, int64_t a);
           the id ``a`` (legal) for the decision now, counted (r->steps): MORE turns the
           page (0), a candidate is played (1); < 0 where that fails (row_failed)
       void hand_rewards(const Batch *b, const Row *r, double *out);
           the seats' rewards of the hand over (env/aec.py's rewards_of)
       int row_escaped(const Row *r);  void row_unescape(Row *r);
           a row played in Python (the climbing engine hands there a decision it does not
           list): none of step's checks; row_unescape brings it back at its reset
       int row_failed(Row *r, int rc);
           a row's step or reset returned rc < 0: the row marked; 1 where that is an error
           (reset raises it, step raises the first)

   Every function here is static: each engine has its own copy, with its parts inlined. */
#ifndef SHANGYOU_BATCH_TYPE_H
#define SHANGYOU_BATCH_TYPE_H

#include "_batch_pool.h"

/* --------------------------------------------------------------- the rows' generic steps */
/* is id ``a`` legal for the row's decision (MORE, the last id, where it has pages)? */
static inline int
legal(const Row *r, int k, int64_t a)
{
    if (r->pages > 1) {
        if (a == k - 1)
            return 1;
        int start = r->page * r->per_page;
        int len = r->ncand - start < r->per_page ? r->ncand - start : r->per_page;
        return a >= 0 && a < len;
    }
    return a >= 0 && a < r->ncand;
}

/* an observation's parts that both engines write alike (each engine's ``observe`` writes the
   rest between them, inlined): row i of the observations, its head zeroed and the candidate
   rows the last write used zeroed */
static inline unsigned char *
observe_begin(const Batch *b, Row *r, int i)
{
    unsigned char *o = (unsigned char *)b->obs.buf + (size_t)i * b->obs_size;
    memset(o, 0, (size_t)b->o_cand);
    if (r->used)
        memset(o + b->o_cand, 0, (size_t)r->used * b->width);
    return o;
}

/* row i's mask cleared; with a decision, the page's number and count at o_page, and its
   candidates start .. *stop - 1 (start returned); without one, -1 */
static inline int
observe_page(const Batch *b, Row *r, int i, unsigned char *o, int decision, int *stop)
{
    memset((unsigned char *)b->mask.buf + (size_t)i * b->k, 0, (size_t)b->k);
    r->used = 0;
    if (!decision)
        return -1;
    o[b->o_page] = (unsigned char)(r->page < 127 ? r->page : 127);
    o[b->o_page + 1] = (unsigned char)(r->pages < 127 ? r->pages : 127);
    int start = r->page * r->per_page;
    *stop = start + r->per_page < r->ncand ? start + r->per_page : r->ncand;
    return start;
}

/* the page's candidates start .. stop - 1 written: their mask, and MORE (its kind entry at
   ``more_at`` of the last row) where there are pages */
static inline void
observe_mask(const Batch *b, Row *r, int i, unsigned char *o, int start, int stop, int more_at)
{
    unsigned char *mask = (unsigned char *)b->mask.buf + (size_t)i * b->k;
    memset(mask, 1, (size_t)(stop - start));
    r->used = stop - start;
    if (r->pages > 1) {
        o[b->o_cand + (b->k - 1) * b->width + more_at] = 1;
        mask[b->k - 1] = 1;
        r->used = b->k;
    }
}

/* row i shows the decision of the seat to act (aec), listed first where it is not yet */
static int
show_decision(Batch *b, Row *r, int i, Scratch *sc)
{
    if (!r->listed && make_decision(b, r, sc) < 0)
        return -1;
    ((int64_t *)b->seat_buf.buf)[i] = r->to_act;
    observe(b, r, i, r->to_act, 1);
    return 0;
}

/* the learner's observation (single-agent mode) */
static int
observe_single(Batch *b, Row *r, int i, Scratch *sc)
{
    int deciding = !r->over && r->to_act == b->seat;
    if (deciding && !r->listed && make_decision(b, r, sc) < 0)
        return -1;
    observe(b, r, i, b->seat, deciding);
    return 0;
}

/* a new episode of row i (single-agent mode): dealt, the opponents before the learner
   played, the learner's observation */
static int
single_begin(Batch *b, Row *r, int i, Scratch *sc)
{
    single_restart(b, r);
    if (play_bots(b, r, sc) < 0)
        return -1;
    return observe_single(b, r, i, sc);
}

/* BatchSim.step for row i (every seat: the seat to act observes) */
static int
step_aec(Batch *b, int i, int64_t a, Scratch *sc)
{
    Row *r = &b->rows[i];
    if (row_escaped(r))
        return 0;                   /* played in Python until its hand ends */
    double *rew = (double *)b->reward.buf + (size_t)i * b->players;
    char *term = (char *)b->term.buf + i, *trunc = (char *)b->trunc.buf + i;
    for (int s = 0; s < b->players; s++)
        rew[s] = 0;
    *term = *trunc = 0;
    int rc = take_id(b, r, a);
    if (rc < 0)
        return rc;
    if (rc == 1 && r->over) {
        hand_rewards(b, r, rew);
        *term = 1;
        aec_next_hand(b, r);
    }
    if (b->max_steps > 0 && r->steps >= b->max_steps) {
        *term = *trunc = 1;
        aec_next_hand(b, r);
    }
    return show_decision(b, r, i, sc);
}

/* the vector env's step for row i: SingleAgentEnv._advance, or the next-step autoreset */
static int
step_single(Batch *b, int i, int64_t a, Scratch *sc)
{
    Row *r = &b->rows[i];
    double *rew = (double *)b->reward.buf + i;
    char *term = (char *)b->term.buf + i, *trunc = (char *)b->trunc.buf + i;
    char *ill = (char *)b->illegal.buf + i;
    if (row_escaped(r))
        return 0;                   /* played in Python until its episode ends */
    *rew = 0;
    *term = *trunc = *ill = 0;
    if (r->autoreset)
        return single_begin(b, r, i, sc);
    if (!legal(r, b->k, a)) {                /* strict mode checked every id beforehand */
        *rew = b->illegal_reward;
        *term = *ill = 1;
        r->autoreset = 1;
        return observe_single(b, r, i, sc);
    }
    int rc = take_id(b, r, a);
    if (rc < 0)
        return rc;
    if (rc == 1 && play_bots(b, r, sc) < 0)
        return -1;
    if (r->over) {
        double pts[BATCH_MAX_PLAYERS];
        hand_rewards(b, r, pts);
        *rew = pts[b->seat];
        *term = 1;
        r->autoreset = 1;
    } else if (b->max_steps > 0 && r->steps >= b->max_steps) {
        *trunc = 1;
        r->autoreset = 1;
    }
    return observe_single(b, r, i, sc);
}

/* the pool's ``run`` (_batch_pool.h): rows lo .. hi - 1 with a thread's scratch */
static void
run_rows(void *owner, int lo, int hi, void *scratch)
{
    Batch *b = owner;
    Scratch *sc = scratch;
    for (int i = lo; i < hi; i++) {
        int rc = b->single ? step_single(b, i, b->actions[i], sc)
                           : step_aec(b, i, b->actions[i], sc);
        if (rc < 0)
            row_failed(&b->rows[i], rc);
    }
}

/* a thread's scratch space (the pool's make_scratch and free_scratch): zeroed, then its
   buffers opened by the engine's scratch_open; NULL without memory */
static void *
scratch_new(void)
{
    Scratch *sc = PyMem_RawCalloc(1, sizeof(Scratch));
    if (sc != NULL && scratch_open(sc) < 0) {
        scratch_close(sc);
        PyMem_RawFree(sc);
        return NULL;
    }
    return sc;
}

static void
scratch_free(void *scratch)
{
    if (scratch == NULL)
        return;
    scratch_close(scratch);
    PyMem_RawFree(scratch);
}

/* -------------------------------------------------------------------- construction */
/* the table's arguments checked: 0, or -1 with a ValueError */
static int
batch_check_table(const Batch *b)
{
    if (b->n_envs < 1 || b->players < 2 || b->players > BATCH_MAX_PLAYERS || b->k < 2
            || (b->single && (b->seat < 0 || b->seat >= b->players)) || b->max_steps < 0) {
        PyErr_SetString(PyExc_ValueError, "Batch: bad arguments");
        return -1;
    }
    return 0;
}

/* a tuple of exactly n whole numbers 0 <= v <= max into *fields[0 .. n - 1]: 0, or -1 (an
   exception set where one of them is not a number) */
static int
batch_read_ints(PyObject *tuple, int *const *fields, int n, long max)
{
    if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) != n)
        return -1;
    for (int j = 0; j < n; j++) {
        long v = PyLong_AsLong(PyTuple_GET_ITEM(tuple, j));
        if (v < 0 || v > max)
            return -1;
        *fields[j] = (int)v;
    }
    return 0;
}

/* the arrays a Batch writes, in the order Batch() takes them */
#define BATCH_ARRAYS 7
static void
batch_arrays(Batch *b, Py_buffer **out)
{
    Py_buffer *bufs[BATCH_ARRAYS] = {&b->obs, &b->mask, &b->reward, &b->term, &b->trunc,
                                     &b->seat_buf, &b->illegal};
    memcpy(out, bufs, sizeof bufs);
}

/* the rest of Batch(), once the engine has read its arguments into the fields: the arrays
   (obs, mask, rewards, terminated, truncated, seats, illegal) checked and held, the rows
   and their generators (2 a row, and one per seat in single mode) allocated, the pool
   started with ``threads``: 0, or -1 (an exception set, or not where ``arrays`` is not a
   tuple of 7) */
static int
batch_init(Batch *b, PyObject *arrays, int threads)
{
    if (!PyTuple_Check(arrays) || PyTuple_GET_SIZE(arrays) != BATCH_ARRAYS)
        return -1;
    Py_ssize_t n = b->n_envs;
    Py_ssize_t sizes[BATCH_ARRAYS] = {n * b->obs_size, n * b->k,
                                      n * (b->single ? 1 : b->players) * 8, n, n, n * 8, n};
    const char *names[BATCH_ARRAYS] = {"obs", "mask", "rewards", "terminated", "truncated",
                                       "seats", "illegal"};
    Py_buffer *bufs[BATCH_ARRAYS];
    batch_arrays(b, bufs);
    b->have_bufs = 1;
    for (int j = 0; j < BATCH_ARRAYS; j++)
        if (batch_get_buf(PyTuple_GET_ITEM(arrays, j), bufs[j], sizes[j], names[j]) < 0)
            return -1;
    b->rows = PyMem_RawCalloc((size_t)n, sizeof(Row));
    int per_row = 2 + (b->single ? b->players : 0);
    b->mts = PyMem_RawCalloc((size_t)n * per_row, sizeof(MT));
    if (b->rows == NULL || b->mts == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        b->rows[i].m = b->mts + (size_t)i * per_row;
    b->pool.owner = b;
    b->pool.run = run_rows;
    b->pool.make_scratch = scratch_new;
    b->pool.free_scratch = scratch_free;
    return batch_pool_init(&b->pool, (int)n, threads);
}

/* the end of Batch(): where the engine's arguments passed its checks (``ok``), batch_init;
   the object, or NULL with an exception (a ValueError ``bad`` where none is set) and the
   object freed */
static PyObject *
batch_finish(Batch *b, int ok, PyObject *arrays, int threads, const char *bad)
{
    if (ok && batch_init(b, arrays, threads) == 0)
        return (PyObject *)b;
    if (!PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, bad);
    Py_DECREF(b);
    return NULL;
}

static void
batch_dealloc(Batch *b)
{
    batch_pool_free(&b->pool);
    if (b->rows != NULL) {
        for (int i = 0; i < b->n_envs; i++)
            row_release(&b->rows[i]);
        PyMem_RawFree(b->rows);
    }
    PyMem_RawFree(b->mts);
    if (b->have_bufs) {
        Py_buffer *bufs[BATCH_ARRAYS];
        batch_arrays(b, bufs);
        for (int j = 0; j < BATCH_ARRAYS; j++)
            if (bufs[j]->obj != NULL)
                PyBuffer_Release(bufs[j]);
    }
    Py_TYPE(b)->tp_free((PyObject *)b);
}

/* ------------------------------------------------------------------- the methods */
/* a call while a step of another Python thread runs without the GIL is refused */
static int
refuse_busy(const Batch *b)
{
    if (b->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the batch engine is stepping in another thread");
        return 1;
    }
    return 0;
}

/* the row of an index 0 <= i < n_envs, else NULL with an exception (refused while a step
   runs) */
static Row *
row_arg(Batch *b, PyObject *arg)
{
    if (refuse_busy(b))
        return NULL;
    long i = PyLong_AsLong(arg);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    if (i < 0 || i >= b->n_envs) {
        PyErr_SetString(PyExc_IndexError, "no such row");
        return NULL;
    }
    return &b->rows[i];
}

/* the first row that failed: its error raised (and cleared) */
static PyObject *
batch_error(Batch *b)
{
    for (int i = 0; i < b->n_envs; i++)
        if (b->rows[i].error) {
            b->rows[i].error = 0;
            PyErr_Format(PyExc_MemoryError, BATCH_ERROR_TEXT, i);
            return NULL;
        }
    return NULL;
}

static int
any_error(Batch *b)
{
    for (int i = 0; i < b->n_envs; i++)
        if (b->rows[i].error)
            return 1;
    return 0;
}

/* reset(seeds, rows): row rows[j] restarted from seeds[j] (0 <= seed < 2**64): the seed of
   the aec env's reset (aec) or SingleAgentEnv.reset (single); a seed None: the next hand of
   the row's seed stream (reset() without a seed) */
static PyObject *
batch_reset(Batch *b, PyObject *const *args, Py_ssize_t nargs)
{
    if (refuse_busy(b))
        return NULL;
    if (nargs != 2 || !PyList_Check(args[0]) || !PyList_Check(args[1])
            || PyList_GET_SIZE(args[0]) != PyList_GET_SIZE(args[1])) {
        PyErr_SetString(PyExc_TypeError, "reset(seeds: list, rows: list)");
        return NULL;
    }
    Scratch *sc = b->pool.scratch[0];
    Py_ssize_t m = PyList_GET_SIZE(args[0]);
    for (Py_ssize_t j = 0; j < m; j++) {
        long i = PyLong_AsLong(PyList_GET_ITEM(args[1], j));
        if (i == -1 && PyErr_Occurred())
            return NULL;
        PyObject *so = PyList_GET_ITEM(args[0], j);
        unsigned long long seed = 0;
        if (so != Py_None) {
            seed = PyLong_AsUnsignedLongLong(so);
            if (seed == (unsigned long long)-1 && PyErr_Occurred())
                return NULL;
        }
        if (i < 0 || i >= b->n_envs) {
            PyErr_SetString(PyExc_IndexError, "reset: no such row");
            return NULL;
        }
        Row *r = &b->rows[i];
        if (so != Py_None)          /* None: the row's seed stream goes on */
            mt_seed(&r->m[0], seed);
        int rc;
        row_unescape(r);
        if (b->single) {
            rc = single_begin(b, r, (int)i, sc);
            ((double *)b->reward.buf)[i] = 0;
            ((char *)b->illegal.buf)[i] = 0;
        } else {
            aec_next_hand(b, r);
            rc = show_decision(b, r, (int)i, sc);
            for (int s = 0; s < b->players; s++)
                ((double *)b->reward.buf)[i * b->players + s] = 0;
        }
        ((char *)b->term.buf)[i] = ((char *)b->trunc.buf)[i] = 0;
        if (rc < 0 && row_failed(r, rc))
            return batch_error(b);
    }
    Py_RETURN_NONE;
}

/* step(actions): one id per row (int64, C-contiguous); the GIL released while the rows are
   stepped. An id the mask forbids raises ValueError before any row moves (aec, and single
   with strict); in single mode without strict it ends that row's episode (illegal). */
static PyObject *
batch_step(Batch *b, PyObject *arg)
{
    Py_buffer v;
    if (refuse_busy(b) || batch_get_actions(arg, &v, b->n_envs) < 0)
        return NULL;
    const int64_t *a = v.buf;
    if (!b->single || b->strict) {
        for (int i = 0; i < b->n_envs; i++) {
            const Row *r = &b->rows[i];
            if (row_escaped(r) || (b->single && r->autoreset))
                continue;              /* Python checks a row it plays */
            if (!legal(r, b->k, a[i])) {
                PyBuffer_Release(&v);
                PyErr_Format(PyExc_ValueError, "illegal action %lld in game %d",
                             (long long)a[i], i);
                return NULL;
            }
        }
    }
    b->actions = a;
    b->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    batch_pool_run(&b->pool);
    Py_END_ALLOW_THREADS
    b->busy = 0;
    b->actions = NULL;
    PyBuffer_Release(&v);
    if (any_error(b))
        return batch_error(b);
    Py_RETURN_NONE;
}

/* random_actions(out): one uniformly random id per row among those its mask allows (0 for a
   row with no decision), from the engine's own generator (seed_actions) */
static PyObject *
batch_random_actions(Batch *b, PyObject *arg)
{
    if (refuse_busy(b))
        return NULL;
    if (batch_random_ids(arg, b->mask.buf, b->n_envs, b->k, &b->rand_state) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *
batch_seed_actions(Batch *b, PyObject *arg)
{
    if (refuse_busy(b))
        return NULL;
    unsigned long long s = PyLong_AsUnsignedLongLongMask(arg);
    if (s == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    b->rand_state = s;
    Py_RETURN_NONE;
}

static PyObject *
batch_set_threads(Batch *b, PyObject *arg)
{
    if (refuse_busy(b))
        return NULL;
    long t = PyLong_AsLong(arg);
    if (t == -1 && PyErr_Occurred())
        return NULL;
    if (batch_pool_set_threads(&b->pool, t) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* the entries of the methods above in an engine's PyMethodDef array */
#define BATCH_COMMON_DEFS                                                                   \
    {"reset", (PyCFunction)(void (*)(void))batch_reset, METH_FASTCALL,                      \
     "reset(seeds, rows): the rows restarted from their seeds."},                           \
    {"step", (PyCFunction)batch_step, METH_O, "step(actions): one id per row (int64)."},    \
    {"random_actions", (PyCFunction)batch_random_actions, METH_O,                           \
     "random_actions(out): a uniformly random legal id per row into ``out`` (int64)."},     \
    {"seed_actions", (PyCFunction)batch_seed_actions, METH_O,                               \
     "seed_actions(seed): seed random_actions' generator."},                                \
    {"set_threads", (PyCFunction)batch_set_threads, METH_O,                                 \
     "set_threads(n): step the rows on n threads (the caller's and n - 1 workers)."}

/* the type object ``var`` of an engine whose constructor is ``new`` and methods ``methods``
   (BATCH_COMMON_DEFS and its own) */
#define BATCH_TYPE(var, name, doc, new, methods)                                                     \
    PyTypeObject var = {                                                                    \
        PyVarObject_HEAD_INIT(NULL, 0)                                                      \
        .tp_name = name,                                                                    \
        .tp_basicsize = sizeof(Batch),                                                      \
        .tp_flags = Py_TPFLAGS_DEFAULT,                                                     \
        .tp_doc = doc,                                                                      \
        .tp_new = new,                                                                      \
        .tp_dealloc = (destructor)batch_dealloc,                                            \
        .tp_methods = methods,                                                              \
    }

#endif
