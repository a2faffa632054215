/* What the batch engines of both compiled cores share (climbing/_core_batch.c,
   sheng_ji/_core_batch.c include it, through ../_batch_type.h; docs/env.md, "Batch engine
   (C)"):

   - Python's Mersenne Twister (_mt.h), so that a row deals and draws as the Python
     environments do without the GIL;
   - the thread pool: the rows of a step cut into blocks of BATCH_BLOCK, taken in turn by the
     calling thread and up to BATCH_MAX_THREADS - 1 workers, the owner's ``run`` called on
     each block with the taking thread's scratch space;
   - the buffers of the Python arrays (checked sizes), the step's int64 actions, and
     random_actions' draw from the mask (splitmix64);
   - BATCH_FIELDS, the fields every Batch type begins with (_batch_type.h writes the Python
     type's plumbing on them once for both engines).

   Everything here is static: each extension compiles its own copy of one source. */
#ifndef SHANGYOU_BATCH_POOL_H
#define SHANGYOU_BATCH_POOL_H

#include <Python.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

/* static, and no warning in a file that uses only some of it */
#define BATCH_STATIC static __attribute__((unused))

#define BATCH_MAX_THREADS 8
#define BATCH_BLOCK 16          /* rows a thread takes at a time */

#include "_mt.h"               /* Python's Mersenne Twister */

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
BATCH_STATIC void
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

BATCH_STATIC void *
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
BATCH_STATIC void
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
BATCH_STATIC int
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
BATCH_STATIC int
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
BATCH_STATIC void
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
BATCH_STATIC int
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
BATCH_STATIC int
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
BATCH_STATIC int
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

/* The fields every Batch type holds first (after PyObject_HEAD), for a row type ``Row`` the
   engine defines before: the table (n_envs rows of ``players`` seats, ``k`` ids a decision,
   observations of obs_size bytes: a head, then the page's k candidate rows of ``width``
   bytes from o_cand), the mode (``single``: the learner ``seat`` against random
   opponents; ``strict``: an illegal id raises there too; ``max_steps`` (0: none), the reward
   of an illegal id), the rows and their generators, the arrays written (in the order Batch()
   takes them), the step's actions (their buffer held by step), ``busy`` (a step runs without
   the GIL: every other call refuses), random_actions' own generator (splitmix64) and the
   pool. */
#define BATCH_FIELDS                                                                        \
    int n_envs, players, k, obs_size, single, seat, strict;                                 \
    int o_page, o_cand, width;  /* the observation's page, candidate rows and their width */ \
    long max_steps;                                                                         \
    double illegal_reward;                                                                  \
    Row *rows;                                                                              \
    MT *mts;                    /* every row's generators (Row.m) */                        \
    Py_buffer obs, mask, reward, term, trunc, seat_buf, illegal;                            \
    int have_bufs;                                                                          \
    const int64_t *actions;                                                                 \
    int busy;                                                                               \
    uint64_t rand_state;                                                                    \
    BatchPool pool

#endif
