/* The heuristic bot's plan of a hand in C: bots/climbing_heuristic.Heuristic.plan and
   combo_cost for pagat of one pack (the Python methods stay the reference;
   tests/test_core_differential.py compares the plans and the moves over random games).

   HeurPlan(hands, samples, seq_top, params) holds one decision's caches: ``hands`` the
   sampled opponent hands (card sets as ints, sample after sample, as many each; none when no
   opponent holds cards), ``samples`` how many samples, ``params`` the
   heuristic's constants (control cost, wild cost, top beat, branch, node budget, plan leads,
   small hand; bots/climbing_heuristic.py names them).

   plan(hand) -> (cost, ((code, cards), ...)): the cheapest split of ``hand`` (a card set)
   found by the bounded search, each part a pagat play's code (core.py reads it) and cards.
   cost(code, hand) -> float: what a play costs a plan. leads(hand) -> [(code, cards)]: the
   leads the plan weighs (steps.bounded_leads). nodes: the plan nodes searched so far. */

#include "_core.h"

#define LOW48 ((1ull << 48) - 1)          /* every card below the 2s and jokers */
#define MAX_KEEP 64                       /* the most plays a node weighs (2 x branch) */
#define CODE_SPACE (1l << 19)             /* a pagat play's code is below this (_core.h) */

typedef struct {
    uint64_t key;        /* a hand (memo) or a play's cards (costs); 0: an empty slot */
    long code;           /* costs: the play's code (the memo's: 0) */
    double value;        /* the cost */
    long first;          /* memo: the code of the plan's first part (-1: none) */
    uint64_t part;       /* memo: the first part's cards (the lowest card when first is -1) */
} Slot;

typedef struct {
    Slot *slot;
    size_t cap, n;       /* cap: a power of two */
} Table;

typedef struct {
    PyObject_HEAD
    int seq_top, samples, per;
    uint64_t *hands;
    double control, wild, top_beat;
    long branch, budget, plan_leads, small_hand;
    long nodes;
    Table memo, costs;
    unsigned char *seen;  /* the codes met while bounding a node's leads (a bit set) */
    Gen *gen;
    Sink probe, leads;
} HeurPlan;

static size_t
slot_of(uint64_t key, long code, size_t cap)
{
    uint64_t h = key ^ ((uint64_t)code * 0xD6E8FEB86659FD93ull);
    h ^= h >> 31;
    h *= 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 17) & (cap - 1);
}

/* the slot of (key, code): found, or the empty one where it goes */
static Slot *
table_find(Table *t, uint64_t key, long code)
{
    size_t i = slot_of(key, code, t->cap);
    while (t->slot[i].key && (t->slot[i].key != key || t->slot[i].code != code))
        i = (i + 1) & (t->cap - 1);
    return &t->slot[i];
}

static int
table_init(Table *t)
{
    t->cap = 1024;
    t->n = 0;
    t->slot = PyMem_Calloc(t->cap, sizeof(Slot));
    return t->slot == NULL ? -1 : 0;
}

/* room for one more entry (the table stays at most half full); -1 out of memory */
static int
table_room(Table *t)
{
    if (2 * (t->n + 1) <= t->cap)
        return 0;
    Table bigger = {PyMem_Calloc(2 * t->cap, sizeof(Slot)), 2 * t->cap, t->n};
    if (bigger.slot == NULL)
        return -1;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slot[i].key)
            *table_find(&bigger, t->slot[i].key, t->slot[i].code) = t->slot[i];
    PyMem_Free(t->slot);
    *t = bigger;
    return 0;
}

/* the plays of the card set ``hand`` that beat ``prev`` (kind -1: the leads) into ``sink`` */
static int
generate(HeurPlan *p, Sink *sink, uint64_t hand, const Prev *prev, int first)
{
    gen_from_set(p->gen, hand, p->seq_top);
    return pagat_generate_into(p->gen, sink, prev, first) < 0 ? -1 : 0;
}

static uint64_t
play_set(const Sink *s, Py_ssize_t j)
{
    const Play *pl = &s->plays[j];
    uint64_t m = 0;
    for (int i = 0; i < pl->n; i++)
        m |= 1ull << s->pool[pl->off + i];
    return m;
}

/* Heuristic.combo_cost: 1 for a play the sampled hands probably beat, down to the control
   cost for one none can; wild/top cards propping up a beatable play cost more; -1 error */
static int
cost_of(HeurPlan *p, long code, uint64_t cards, double *out)
{
    Slot *s = table_find(&p->costs, cards, code);
    if (s->key) {
        *out = s->value;
        return 0;
    }
    Prev prev;
    prev_of_code(code, &prev);
    int n = __builtin_popcountll(cards);
    double beaten = 0.0;
    for (int i = 0; i < p->samples; i++) {
        int worst = 0;
        for (int j = 0; j < p->per && worst < 2; j++) {
            uint64_t h = p->hands[i * p->per + j];
            if (__builtin_popcountll(h) < n)
                continue;
            if (generate(p, &p->probe, h & LOW48, &prev, 1) < 0)
                return -1;
            if (p->probe.n) {
                worst = 2;
                break;
            }
            if ((h & ~LOW48) && worst == 0) {
                if (generate(p, &p->probe, h, &prev, 1) < 0)
                    return -1;
                if (p->probe.n)
                    worst = 1;
            }
        }
        beaten += worst == 2 ? 1.0 : worst == 1 ? p->top_beat : 0.0;
    }
    double q = beaten / p->samples;
    double cost = p->control + (1 - p->control) * q;
    int prec = __builtin_popcountll(cards & ~LOW48);
    if (q > 0 && prec && prec < n)
        cost += p->wild * prec;
    if (table_room(&p->costs) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    s = table_find(&p->costs, cards, code);
    s->key = cards;
    s->code = code;
    s->value = cost;
    p->costs.n++;
    *out = cost;
    return 0;
}

/* steps.bounded_leads: every lead, or past ``plan_leads`` of them (for a hand of more than
   ``small_hand`` cards) the first play of each code, in order, ``plan_leads`` at most: listed
   as steps_list lists them past its cap (a code met again inside a window, once that many
   plays were generated, cuts the window short) */
static int
bounded_leads(HeurPlan *p, uint64_t hand)
{
    Prev lead = {-1, 0, 0, 0, 0};
    Sink *s = &p->leads;
    int big = __builtin_popcountll(hand) > p->small_hand;
    s->limit = big ? p->plan_leads : 0;
    s->over = 0;
    if (generate(p, s, hand, &lead, 0) < 0)
        return -1;
    if (!s->over)
        return 0;
    if (p->seen == NULL && (p->seen = PyMem_Calloc(CODE_SPACE / 8, 1)) == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    s->seen = p->seen;
    s->total = 0;
    s->skip_after = p->plan_leads;
    s->over = 0;
    int rc = generate(p, s, hand, &lead, 0);
    s->seen = NULL;
    if (rc < 0)                                 /* the set is empty again for the next node */
        memset(p->seen, 0, CODE_SPACE / 8);
    for (Py_ssize_t k = 0; rc == 0 && k < s->n; k++)
        p->seen[s->plays[k].code >> 3] = 0;
    return rc;
}

typedef struct {
    long code;
    uint64_t cards;
    int n, prec;
    double cost;
} Cand;

/* a stable insertion of c into the kept list (at most ``cap`` long), by ``before`` */
static void
keep(Cand *kept, int *nk, int cap, const Cand *c, int (*before)(const Cand *, const Cand *))
{
    int i = *nk;
    while (i > 0 && before(c, &kept[i - 1]))
        i--;
    if (i >= cap)
        return;
    int last = *nk < cap ? *nk : cap - 1;
    for (int k = last; k > i; k--)
        kept[k] = kept[k - 1];
    kept[i] = *c;
    if (*nk < cap)
        (*nk)++;
}

static int
by_size_spent(const Cand *a, const Cand *b)
{
    return a->n != b->n ? a->n > b->n : a->prec < b->prec;
}

static int
by_size_cost(const Cand *a, const Cand *b)
{
    return a->n != b->n ? a->n > b->n : a->cost < b->cost;
}

/* Heuristic.plan: the memo's entry for ``hand`` (made when missing); NULL with an error */
static const Slot *
plan(HeurPlan *p, uint64_t hand, double *cost)
{
    if (hand == 0) {
        *cost = 0.0;
        return NULL;
    }
    Slot *s = table_find(&p->memo, hand, 0);
    if (s->key) {
        *cost = s->value;
        return s;
    }
    p->nodes++;
    uint64_t low = hand & -hand;
    if (bounded_leads(p, hand) < 0)
        return NULL;
    long width = p->nodes < p->budget ? p->branch : 1;
    int cap = (int)(2 * width), nk = 0;
    Cand kept[MAX_KEEP];
    for (Py_ssize_t j = 0; j < p->leads.n; j++) {
        uint64_t m = play_set(&p->leads, j);
        if (!(m & low))
            continue;
        Cand c = {p->leads.plays[j].code, m, __builtin_popcountll(m),
                  __builtin_popcountll(m & ~LOW48), 0.0};
        keep(kept, &nk, cap, &c, by_size_spent);
    }
    Cand opts[MAX_KEEP];
    int no = 0;
    for (int i = 0; i < nk; i++) {
        if (cost_of(p, kept[i].code, kept[i].cards, &kept[i].cost) < 0)
            return NULL;
        keep(opts, &no, (int)width, &kept[i], by_size_cost);
    }
    double best = 0.0;
    long best_code = -1;
    uint64_t best_part = low;
    int found = 0;
    for (int i = 0; i < no; i++) {
        double sub;
        if (plan(p, hand & ~opts[i].cards, &sub) == NULL && PyErr_Occurred())
            return NULL;
        double total = opts[i].cost + sub;
        if (!found || total < best) {
            found = 1;
            best = total;
            best_code = opts[i].code;
            best_part = opts[i].cards;
        }
    }
    if (!found) {                   /* the lowest card starts no listed play */
        double rest;
        if (plan(p, hand & ~low, &rest) == NULL && PyErr_Occurred())
            return NULL;
        best = 1.0 + rest;
    }
    if (table_room(&p->memo) < 0) {
        PyErr_NoMemory();
        return NULL;
    }
    s = table_find(&p->memo, hand, 0);
    s->key = hand;
    s->code = 0;
    s->first = best_code;
    s->value = best;
    s->part = best_part;
    p->memo.n++;
    *cost = best;
    return s;
}

static int
read_set(PyObject *o, uint64_t *out)
{
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    if (v >> N_CARDS) {
        PyErr_SetString(PyExc_ValueError, "a card set holds codes 0..53 only");
        return -1;
    }
    *out = v;
    return 0;
}

static PyObject *
cards_tuple(uint64_t m)
{
    PyObject *t = PyTuple_New(__builtin_popcountll(m));
    for (Py_ssize_t i = 0; t != NULL && m; i++) {
        PyObject *c = PyLong_FromLong(__builtin_ctzll(m));
        if (c == NULL) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, c);
        m &= m - 1;
    }
    return t;
}

static PyObject *
hp_plan(HeurPlan *p, PyObject *arg)
{
    uint64_t hand;
    double cost;
    if (read_set(arg, &hand) < 0)
        return NULL;
    if (plan(p, hand, &cost) == NULL && PyErr_Occurred())
        return NULL;
    PyObject *parts = PyList_New(0);
    for (uint64_t h = hand; parts != NULL && h;) {
        const Slot *s = table_find(&p->memo, h, 0);
        if (!s->key || !(h & s->part)) {        /* not planned: cannot happen */
            PyErr_SetString(PyExc_RuntimeError, "a part of the plan is missing");
            Py_CLEAR(parts);
            break;
        }
        h &= ~s->part;
        if (s->first < 0)
            continue;
        PyObject *cards = cards_tuple(s->part);
        PyObject *one = cards == NULL ? NULL : Py_BuildValue("(lN)", s->first, cards);
        if (one == NULL || PyList_Append(parts, one) < 0)
            Py_CLEAR(parts);
        Py_XDECREF(one);
    }
    if (parts == NULL)
        return NULL;
    return Py_BuildValue("(dN)", cost, parts);
}

static PyObject *
hp_cost(HeurPlan *p, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "cost(code, cards) takes 2 arguments");
        return NULL;
    }
    long code = PyLong_AsLong(args[0]);
    uint64_t cards;
    double cost;
    if ((code == -1 && PyErr_Occurred()) || read_set(args[1], &cards) < 0)
        return NULL;
    if (code < 0 || CODE_KIND(code) > K_MSEQ || code >> 19 || cards == 0) {
        PyErr_SetString(PyExc_ValueError, "not a pagat play");
        return NULL;
    }
    if (cost_of(p, code, cards, &cost) < 0)
        return NULL;
    return PyFloat_FromDouble(cost);
}

static PyObject *
hp_leads(HeurPlan *p, PyObject *arg)
{
    uint64_t hand;
    if (read_set(arg, &hand) < 0 || bounded_leads(p, hand) < 0)
        return NULL;
    PyObject *out = PyList_New(p->leads.n);
    for (Py_ssize_t j = 0; out != NULL && j < p->leads.n; j++) {
        PyObject *cards = cards_tuple(play_set(&p->leads, j));
        PyObject *one = cards == NULL ? NULL :
            Py_BuildValue("(lN)", p->leads.plays[j].code, cards);
        if (one == NULL)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, j, one);
    }
    return out;
}

static PyObject *
hp_nodes(HeurPlan *p, void *closure)
{
    return PyLong_FromLong(p->nodes);
}

static void
hp_dealloc(HeurPlan *p)
{
    PyMem_Free(p->hands);
    PyMem_Free(p->seen);
    PyMem_Free(p->memo.slot);
    PyMem_Free(p->costs.slot);
    PyMem_Free(p->gen);
    PyMem_Free(p->probe.plays);
    PyMem_Free(p->probe.pool);
    PyMem_Free(p->leads.plays);
    PyMem_Free(p->leads.pool);
    Py_TYPE(p)->tp_free((PyObject *)p);
}

static PyObject *
hp_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *hands, *params;
    int samples, seq_top;
    if (!PyArg_ParseTuple(args, "OiiO", &hands, &samples, &seq_top, &params))
        return NULL;
    if (seq_top != ACE && seq_top != TWO) {
        PyErr_SetString(PyExc_ValueError, "seq_top must be 11 or 12");
        return NULL;
    }
    HeurPlan *p = (HeurPlan *)type->tp_alloc(type, 0);
    if (p == NULL)
        return NULL;
    p->seq_top = seq_top;
    if (!PyArg_ParseTuple(params, "dddllll", &p->control, &p->wild, &p->top_beat,
                          &p->branch, &p->budget, &p->plan_leads, &p->small_hand))
        goto fail;
    if (p->branch < 1 || 2 * p->branch > MAX_KEEP || p->plan_leads < 1) {
        PyErr_SetString(PyExc_ValueError, "branch must be 1..32 and plan leads positive");
        goto fail;
    }
    PyObject *seq = PySequence_Fast(hands, "hands must be a sequence of card sets");
    if (seq == NULL)
        goto fail;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (samples < 1 || samples > 1024 || n > 1 << 16 || n % samples) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "1..1024 samples of as many hands each");
        goto fail;
    }
    p->samples = samples;
    p->per = (int)(n / samples);
    p->hands = PyMem_Calloc(n ? (size_t)n : 1, sizeof(uint64_t));
    p->gen = PyMem_Calloc(1, sizeof(Gen));
    if (p->hands == NULL || p->gen == NULL || table_init(&p->memo) < 0 ||
        table_init(&p->costs) < 0) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (read_set(PySequence_Fast_GET_ITEM(seq, i), &p->hands[i]) < 0) {
            Py_DECREF(seq);
            goto fail;
        }
    Py_DECREF(seq);
    return (PyObject *)p;
fail:
    Py_DECREF(p);
    return NULL;
}

static PyMethodDef hp_methods[] = {
    {"plan", (PyCFunction)hp_plan, METH_O,
     "plan(hand): (cost, [(code, cards), ...]) of a card set, as Heuristic.plan."},
    {"cost", (PyCFunction)(void (*)(void))hp_cost, METH_FASTCALL,
     "cost(code, cards): Heuristic.combo_cost of a pagat play."},
    {"leads", (PyCFunction)hp_leads, METH_O,
     "leads(hand): the leads the plan weighs, as steps.bounded_leads lists them."},
    {NULL, NULL, 0, NULL}
};

static PyGetSetDef hp_getset[] = {
    {"nodes", (getter)hp_nodes, NULL, "plan nodes searched so far", NULL},
    {NULL, NULL, NULL, NULL, NULL}
};

PyTypeObject core_heur_plan_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "shangyou.games.climbing._core.HeurPlan",
    .tp_basicsize = sizeof(HeurPlan),
    .tp_dealloc = (destructor)hp_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The heuristic's plan of a pagat hand of one pack, with one decision's caches.",
    .tp_methods = hp_methods,
    .tp_getset = hp_getset,
    .tp_new = hp_new,
};
