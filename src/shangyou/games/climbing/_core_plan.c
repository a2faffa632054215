/* The playout policy's plans in C: climbing_playout.planner's plan_of for pagat's shape
   (bots/climbing_playout.py stays the reference; tests/test_core_differential.py compares
   them), memoised in one table (cleared when it is full: a memo only). A key packs 15 rank
   counts of at most MAX_PLAN_COUNT cards each (two packs give 8).

   plan(counts) -> (cost, groups): the plan of 15 rank counts, for the tests. */

#include "_core.h"
#include "_core_plan.h"

/* ------------------------------------------------------------------- the plan (memo) */
/* pagat's shape (climbing_playout.SHAPES): sequences of 3+ ranks, pair and triple sequences
   of 3+ ranks, up to the ace, no full houses */
#define Q_MIN 3
#define M2_MIN 3
#define M3_MIN 3
#define TOP 11

typedef struct {
    uint64_t key;          /* 0: an empty slot (the empty hand is never stored) */
    uint64_t rest;         /* the key of what the first group leaves */
    double cost;
    unsigned char kind, lo, hi, k;   /* the first group: 's', 'q' or 'm' */
} PlanEntry;

#define PLAN_BITS 17
#define PLAN_CAP (1u << PLAN_BITS)
static PlanEntry *plan_table;
static unsigned plan_used;


static uint64_t
pack(const int *counts)
{
    uint64_t key = 0;
    for (int r = 0; r < N_RANKS; r++)
        key |= (uint64_t)counts[r] << (4 * r);
    return key;
}

static void
unpack(uint64_t key, int *counts)
{
    for (int r = 0; r < N_RANKS; r++)
        counts[r] = (int)(key >> (4 * r) & 15);
}

static unsigned
slot_of(uint64_t key)
{
    key ^= key >> 31;
    key *= 0x9E3779B97F4A7C15ull;
    return (unsigned)(key >> (64 - PLAN_BITS));
}

int
plan_ready(void)
{
    if (plan_table == NULL) {
        plan_table = PyMem_Calloc(PLAN_CAP, sizeof(PlanEntry));
        if (plan_table == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    return 0;
}

/* climbing_playout.planner's plan_of for pagat's shape: the cost and first group */
void
plan_of(const int *counts, PlanResult *out)
{
    uint64_t key = pack(counts);
    if (key == 0) {
        out->cost = 0.0;
        out->rest = 0;
        out->kind = 0;
        return;
    }
    unsigned slot = slot_of(key);
    for (;;) {
        PlanEntry *e = &plan_table[slot];
        if (e->key == key) {
            out->cost = e->cost;
            out->rest = e->rest;
            out->kind = e->kind;
            out->lo = e->lo;
            out->hi = e->hi;
            out->k = e->k;
            return;
        }
        if (e->key == 0)
            break;
        slot = (slot + 1) & (PLAN_CAP - 1);
    }
    int r = 0;
    while (counts[r] == 0)
        r++;
    int c[N_RANKS], d[N_RANKS];
    memcpy(c, counts, sizeof c);
    int n = c[r];
    PlanResult sub, best;
    c[r] = 0;
    plan_of(c, &sub);
    best.cost = RANK_COST[r] + sub.cost;
    best.kind = 's';
    best.lo = best.hi = (unsigned char)r;
    best.k = (unsigned char)n;
    best.rest = pack(c);
    c[r] = n;
    if (r + Q_MIN - 1 <= TOP) {          /* single sequences r..hi */
        int hi = r;
        while (hi < TOP && c[hi + 1]) {
            hi++;
            if (hi - r + 1 >= Q_MIN) {
                memcpy(d, c, sizeof d);
                for (int x = r; x <= hi; x++)
                    d[x] -= 1;
                plan_of(d, &sub);
                double cost = (hi >= 11 ? 0.7 : 1.0) + sub.cost;
                if (cost < best.cost) {
                    best.cost = cost;
                    best.kind = 'q';
                    best.lo = (unsigned char)r;
                    best.hi = (unsigned char)hi;
                    best.k = 1;
                    best.rest = pack(d);
                }
            }
        }
    }
    for (int k = 2; k <= 3; k++) {       /* pair (triple) sequences */
        int k_min = k == 2 ? M2_MIN : M3_MIN;
        if (n < k || r >= TOP)
            break;
        int hi = r;
        while (hi < TOP && c[hi + 1] >= k) {
            hi++;
            if (hi - r + 1 >= k_min) {
                memcpy(d, c, sizeof d);
                for (int x = r; x <= hi; x++)
                    d[x] -= k;
                plan_of(d, &sub);
                double cost = 0.7 + sub.cost;
                if (cost < best.cost) {
                    best.cost = cost;
                    best.kind = 'm';
                    best.lo = (unsigned char)r;
                    best.hi = (unsigned char)hi;
                    best.k = (unsigned char)k;
                    best.rest = pack(d);
                }
            }
        }
    }
    *out = best;
    if (plan_used >= PLAN_CAP / 10 * 7) {   /* full: start again (the recursion above may have
                                               filled it, so the slot is found afresh) */
        memset(plan_table, 0, PLAN_CAP * sizeof(PlanEntry));
        plan_used = 0;
    }
    slot = slot_of(key);
    while (plan_table[slot].key != 0 && plan_table[slot].key != key)
        slot = (slot + 1) & (PLAN_CAP - 1);
    if (plan_table[slot].key == 0)
        plan_used++;
    PlanEntry *e = &plan_table[slot];
    e->key = key;
    e->rest = best.rest;
    e->cost = best.cost;
    e->kind = best.kind;
    e->lo = best.lo;
    e->hi = best.hi;
    e->k = best.k;
}


/* the cost and the groups of a plan, in the plan's order; returns the number of groups */
int
plan_groups(const int *counts, double *cost, Group *groups)
{
    PlanResult p;
    int rest[N_RANKS];
    plan_of(counts, &p);
    *cost = p.cost;
    int ng = 0;
    while (p.kind) {
        groups[ng].kind = p.kind;
        groups[ng].lo = p.lo;
        groups[ng].hi = p.hi;
        groups[ng].k = p.k;
        ng++;
        unpack(p.rest, rest);
        plan_of(rest, &p);
    }
    return ng;
}

double
group_cost(const Group *g)
{
    if (g->kind == 's')
        return RANK_COST[g->lo];
    if (g->kind == 'q')
        return g->hi >= 11 ? 0.7 : 1.0;
    return 0.7;
}

/* len(group_ranks(g)) */
int
group_len(const Group *g)
{
    if (g->kind == 's')
        return g->k;
    return (g->hi - g->lo + 1) * g->k;
}

PyObject *
core_plan(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 1) {
        PyErr_SetString(PyExc_TypeError, "plan() takes 1 argument");
        return NULL;
    }
    if (plan_ready() < 0)
        return NULL;
    PyObject *seq = PySequence_Fast(args[0], "counts must be a sequence of 15 ints");
    if (seq == NULL)
        return NULL;
    if (PySequence_Fast_GET_SIZE(seq) != N_RANKS) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "counts must be 15 ints");
        return NULL;
    }
    int counts[N_RANKS];
    for (int r = 0; r < N_RANKS; r++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, r));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
        if (v < 0 || v > MAX_PLAN_COUNT) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "a rank count out of range");
            return NULL;
        }
        counts[r] = (int)v;
    }
    Py_DECREF(seq);
    double cost;
    Group groups[N_RANKS * MAX_PLAN_COUNT];
    int ng = plan_groups(counts, &cost, groups);
    PyObject *gs = PyTuple_New(ng);
    if (gs == NULL)
        return NULL;
    for (int i = 0; i < ng; i++) {
        char kind[2] = {(char)groups[i].kind, 0};
        PyObject *g = Py_BuildValue("(siii)", kind, groups[i].lo, groups[i].hi, groups[i].k);
        if (g == NULL) {
            Py_DECREF(gs);
            return NULL;
        }
        PyTuple_SET_ITEM(gs, i, g);
    }
    return Py_BuildValue("(dN)", cost, gs);
}
