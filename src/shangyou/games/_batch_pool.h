/* What the batch engines of both compiled cores share (climbing/_core_batch.c,
   sheng_ji/_core_batch.c include it; docs/env.md, "Batch engine (C)"):

   - Python's Mersenne Twister (random.Random(int): init_by_array, getrandbits,
     _randbelow), written out so that a row deals and draws as the Python environments do
     without the GIL;
   - the thread pool: the rows of a step cut into blocks of BATCH_BLOCK, taken in turn by the
     calling thread and up to BATCH_MAX_THREADS - 1 workers, the owner's ``run`` called on
     each block with the taking thread's scratch space;
   - the buffers of the Python arrays (checked sizes), the step's int64 actions, and
     random_actions' draw from the mask (splitmix64).

   Everything here is static: each extension compiles its own copy of one source. */
#ifndef SHANGYOU_BATCH_POOL_H
#define SHANGYOU_BATCH_POOL_H

#include <Python.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define BATCH_MAX_THREADS 8
#define BATCH_BLOCK 16          /* rows a thread takes at a time */

/* ------------------------------------------------------------ Python's Mersenne Twister */
typedef struct {
    uint32_t mt[624];
    int mti;                    /* the next word to draw (624: twist first) */
    int tw;                     /* words 0 .. tw - 1 of this twist are twisted (mt_next) */
} MT;

static void
mt_init_genrand(MT *s, uint32_t seed)
{
    s->mt[0] = seed;
    for (int i = 1; i < 624; i++)
        s->mt[i] = 1812433253U * (s->mt[i - 1] ^ (s->mt[i - 1] >> 30)) + (uint32_t)i;
    s->mti = 624;
    s->tw = 624;
}

/* init_by_array's starting state, init_genrand(19650218), the same for every seed: made once
   (mt_prepare, with the GIL held, before any row is seeded) and copied */
static MT mt_base;
static int mt_base_made;

static void
mt_prepare(void)
{
    if (!mt_base_made) {
        mt_init_genrand(&mt_base, 19650218U);
        mt_base_made = 1;
    }
}

/* random.Random(seed) for a whole number 0 <= seed < 2**64 (random_seed: the words of
   abs(seed), least significant first, then init_by_array) */
static void
mt_seed(MT *s, uint64_t seed)
{
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    int len = key[1] ? 2 : 1;
    *s = mt_base;
    uint32_t *mt = s->mt;
    int i = 1, j = 0;
    for (int k = 624 > len ? 624 : len; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= 624) {
            mt[0] = mt[623];
            i = 1;
        }
        if (j >= len)
            j = 0;
    }
    for (int k = 623; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= 624) {
            mt[0] = mt[623];
            i = 1;
        }
    }
    mt[0] = 0x80000000U;
}

/* the next word of genrand_uint32. The state is twisted one word at a time as the words are
   drawn (word kk's new value needs words kk + 1 and kk + 397 of the old state, or the new
   word kk - 227: in order, each is there when needed), which gives the words of the whole
   twist while a generator that draws a few dozen words (a deal, an opponent's hand) does not
   pay for the other six hundred */
static uint32_t
mt_next(MT *s)
{
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    if (s->mti >= 624)
        s->mti = s->tw = 0;             /* a new twist begins */
    uint32_t *mt = s->mt;
    int kk = s->mti++;
    uint32_t y;
    if (kk < s->tw) {
        /* twisted already (a state set from Python's getstate) */
    } else if (kk < 624 - 397) {
        y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
        mt[kk] = mt[kk + 397] ^ (y >> 1) ^ mag01[y & 1U];
    } else if (kk < 623) {
        y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
        mt[kk] = mt[kk + (397 - 624)] ^ (y >> 1) ^ mag01[y & 1U];
    } else {
        y = (mt[623] & 0x80000000U) | (mt[0] & 0x7fffffffU);
        mt[623] = mt[396] ^ (y >> 1) ^ mag01[y & 1U];
    }
    if (kk >= s->tw)
        s->tw = kk + 1;
    y = mt[kk];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

/* Random._randbelow_with_getrandbits(n), 1 <= n <= 2**31 (getrandbits(k), k <= 32) */
static uint32_t
mt_below(MT *s, uint32_t n)
{
    int k = 0;
    while (k < 32 && ((uint64_t)n >> k) != 0)
        k++;
    uint32_t r;
    do {
        r = mt_next(s) >> (32 - k);
    } while (r >= n);
    return r;
}

/* ------------------------------------------------------------------------ the pool */
typedef struct BatchPool BatchPool;

typedef struct {
    pthread_t th;
    BatchPool *pool;
    int index;
    long seen;                  /* the last generation of work it took */
} BatchWorker;

/* the owner (a batch object) sets ``owner``, ``run`` (rows lo .. hi - 1 with a thread's
   scratch), ``make_scratch`` (NULL: no memory) and ``free_scratch`` before batch_pool_init */
struct BatchPool {
    void *owner;
    void (*run)(void *owner, int lo, int hi, void *scratch);
    void *(*make_scratch)(void);
    void (*free_scratch)(void *scratch);
    int n_rows, threads;
    BatchWorker workers[BATCH_MAX_THREADS];
    void *scratch[BATCH_MAX_THREADS];       /* scratch[0]: the calling thread's */
    int nworkers;
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    long generation;
    int stop, ok;
    atomic_int next_block, done_blocks;     /* the step's blocks: handed out, finished */
    int nblocks;
};

/* blocks of rows until none is left: each thread (the caller's and the workers') takes the
   next block, so a thread the system does not run for a while holds up at most the block it
   has, and the others do the rest; a row's result does not depend on the thread */
static void
batch_pool_take(BatchPool *p, void *scratch)
{
    for (;;) {
        int blk = atomic_fetch_add(&p->next_block, 1);
        if (blk >= p->nblocks)
            return;
        int lo = blk * BATCH_BLOCK, hi = lo + BATCH_BLOCK < p->n_rows ? lo + BATCH_BLOCK
                                                                       : p->n_rows;
        p->run(p->owner, lo, hi, scratch);
        if (atomic_fetch_add(&p->done_blocks, 1) + 1 == p->nblocks) {
            pthread_mutex_lock(&p->mu);
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->mu);
        }
    }
}

static void *
batch_pool_worker(void *arg)
{
    BatchWorker *w = arg;
    BatchPool *p = w->pool;
    long seen = w->seen;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (!p->stop && p->generation == seen)
            pthread_cond_wait(&p->go, &p->mu);
        if (p->stop) {
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        seen = p->generation;
        int take = w->index < p->threads;
        pthread_mutex_unlock(&p->mu);
        if (take)
            batch_pool_take(p, p->scratch[w->index]);
    }
}

/* every row run (called without the GIL): the workers woken, the calling thread takes blocks
   too, then waits for the blocks others took */
static void
batch_pool_run(BatchPool *p)
{
    p->nblocks = (p->n_rows + BATCH_BLOCK - 1) / BATCH_BLOCK;
    if (p->threads == 1 || p->nworkers == 0) {
        /* no block is handed out (a worker still leaving the last step's loop finds none) */
        atomic_store(&p->next_block, p->nblocks);
        p->run(p->owner, 0, p->n_rows, p->scratch[0]);
        return;
    }
    atomic_store(&p->done_blocks, 0);
    atomic_store(&p->next_block, 0);
    pthread_mutex_lock(&p->mu);
    p->generation++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    batch_pool_take(p, p->scratch[0]);
    pthread_mutex_lock(&p->mu);
    while (atomic_load(&p->done_blocks) < p->nblocks)
        pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

/* threads (the caller's and threads - 1 workers, started once and kept): 0, or -1 with an
   exception (the GIL held) */
static int
batch_pool_set_threads(BatchPool *p, long threads)
{
    if (threads < 1 || threads > BATCH_MAX_THREADS) {
        PyErr_Format(PyExc_ValueError, "threads must be 1 to %d", BATCH_MAX_THREADS);
        return -1;
    }
    for (int t = 0; t < threads; t++)
        if (p->scratch[t] == NULL && (p->scratch[t] = p->make_scratch()) == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    while (p->nworkers < threads - 1) {
        BatchWorker *w = &p->workers[p->nworkers];
        w->pool = p;
        w->index = p->nworkers + 1;
        w->seen = p->generation;      /* a new worker takes only later work */
        if (pthread_create(&w->th, NULL, batch_pool_worker, w) != 0) {
            PyErr_SetString(PyExc_RuntimeError, "cannot start a thread");
            return -1;
        }
        p->nworkers++;
    }
    p->threads = (int)threads;
    return 0;
}

/* the lock and the first threads: 0, or -1 with an exception */
static int
batch_pool_init(BatchPool *p, int n_rows, long threads)
{
    p->n_rows = n_rows;
    if (pthread_mutex_init(&p->mu, NULL) != 0 || pthread_cond_init(&p->go, NULL) != 0
            || pthread_cond_init(&p->done, NULL) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "cannot make the thread pool's lock");
        return -1;
    }
    p->ok = 1;
    return batch_pool_set_threads(p, threads);
}

/* the workers stopped and joined, the lock and the scratch spaces freed (the GIL released
   around the joins) */
static void
batch_pool_free(BatchPool *p)
{
    if (p->ok) {
        Py_BEGIN_ALLOW_THREADS
        pthread_mutex_lock(&p->mu);
        p->stop = 1;
        pthread_cond_broadcast(&p->go);
        pthread_mutex_unlock(&p->mu);
        for (int w = 0; w < p->nworkers; w++)
            pthread_join(p->workers[w].th, NULL);
        Py_END_ALLOW_THREADS
        p->nworkers = 0;
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->go);
        pthread_cond_destroy(&p->done);
        p->ok = 0;
    }
    for (int t = 0; t < BATCH_MAX_THREADS; t++) {
        if (p->scratch[t] != NULL && p->free_scratch != NULL)
            p->free_scratch(p->scratch[t]);
        p->scratch[t] = NULL;
    }
}

/* ---------------------------------------------------------------- the Python arrays */
/* a writable C-contiguous buffer of exactly ``need`` bytes: 0, or -1 with an exception */
static int
batch_get_buf(PyObject *o, Py_buffer *v, Py_ssize_t need, const char *what)
{
    if (PyObject_GetBuffer(o, v, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (v->len != need) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes, not %zd", what, v->len, need);
        PyBuffer_Release(v);
        v->obj = NULL;
        return -1;
    }
    return 0;
}

/* the step's actions: ``n`` int64 ids, C-contiguous (the buffer held: release it) */
static int
batch_get_actions(PyObject *arg, Py_buffer *v, int n)
{
    if (PyObject_GetBuffer(arg, v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    if (v->len != (Py_ssize_t)n * 8 || v->itemsize != 8 || v->format == NULL
            || (strcmp(v->format, "l") != 0 && strcmp(v->format, "q") != 0
                && strcmp(v->format, "=q") != 0 && strcmp(v->format, "<q") != 0
                && strcmp(v->format, "=l") != 0 && strcmp(v->format, "<l") != 0)) {
        PyBuffer_Release(v);
        PyErr_Format(PyExc_ValueError, "step: need %d int64 actions", n);
        return -1;
    }
    return 0;
}

/* random_actions: into ``out`` (an int64 array of n_rows), one uniformly random id per row
   among those the row's mask (k bytes) allows, 0 for a row with none; the generator is
   splitmix64 on *state. 0, or -1 with an exception */
static int
batch_random_ids(PyObject *out, const unsigned char *masks, int n_rows, int k, uint64_t *state)
{
    Py_buffer v;
    if (PyObject_GetBuffer(out, &v, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (v.len != (Py_ssize_t)n_rows * 8) {
        PyBuffer_Release(&v);
        PyErr_SetString(PyExc_ValueError, "random_actions: need an int64 array of n_envs");
        return -1;
    }
    int64_t *ids = v.buf;
    for (int i = 0; i < n_rows; i++) {
        const unsigned char *m = masks + (size_t)i * k;
        int len = 0;
        for (int j = 0; j < k; j++)
            len += m[j] != 0;
        uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        int64_t id = 0;
        if (len > 0) {
            int pick = (int)((z >> 11) % (uint64_t)len);
            for (int j = 0; j < k; j++)
                if (m[j] && pick-- == 0) {
                    id = j;
                    break;
                }
        }
        ids[i] = id;
    }
    PyBuffer_Release(&v);
    return 0;
}

/* The methods every Batch type has alike, for a struct T with the fields ``busy``,
   ``rand_state``, ``pool``, ``mask`` (its Py_buffer), ``n_envs`` and ``k``:
   refuse_busy(b): a call while a step of another Python thread runs without the GIL is
   refused; random_actions(out): one uniformly random id per row among those its mask allows
   (0 for a row with no decision), from the engine's own generator (seed_actions);
   seed_actions(seed); set_threads(n). */
#define BATCH_COMMON_METHODS(T)                                                             \
    static int                                                                              \
    refuse_busy(const T *b)                                                                 \
    {                                                                                       \
        if (b->busy) {                                                                      \
            PyErr_SetString(PyExc_RuntimeError,                                             \
                            "the batch engine is stepping in another thread");              \
            return 1;                                                                       \
        }                                                                                   \
        return 0;                                                                           \
    }                                                                                       \
    static PyObject *                                                                       \
    batch_random_actions(T *b, PyObject *arg)                                               \
    {                                                                                       \
        if (refuse_busy(b))                                                                 \
            return NULL;                                                                    \
        if (batch_random_ids(arg, b->mask.buf, b->n_envs, b->k, &b->rand_state) < 0)       \
            return NULL;                                                                    \
        Py_RETURN_NONE;                                                                     \
    }                                                                                       \
    static PyObject *                                                                       \
    batch_seed_actions(T *b, PyObject *arg)                                                 \
    {                                                                                       \
        if (refuse_busy(b))                                                                 \
            return NULL;                                                                    \
        unsigned long long s = PyLong_AsUnsignedLongLongMask(arg);                          \
        if (s == (unsigned long long)-1 && PyErr_Occurred())                                \
            return NULL;                                                                    \
        b->rand_state = s;                                                                  \
        Py_RETURN_NONE;                                                                     \
    }                                                                                       \
    static PyObject *                                                                       \
    batch_set_threads(T *b, PyObject *arg)                                                  \
    {                                                                                       \
        if (refuse_busy(b))                                                                 \
            return NULL;                                                                    \
        long t = PyLong_AsLong(arg);                                                        \
        if (t == -1 && PyErr_Occurred())                                                    \
            return NULL;                                                                    \
        if (batch_pool_set_threads(&b->pool, t) < 0)                                        \
            return NULL;                                                                    \
        Py_RETURN_NONE;                                                                     \
    }

#endif
