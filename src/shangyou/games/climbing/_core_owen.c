/* The legal plays of the Owen family (OwenFamily in games/zheng_shangyou/owen.py), in C: the
   same plays, with the same cards, in the same order as its Python code, which stays the
   reference (tests/test_core_differential.py). Each function names the Python function it
   follows. Owen is played with one pack: a hand holding a card twice is refused (ValueError;
   the Python code answers it).

   owen_plays(hand, kind, cls_arg, key, tier) -> list of (code, cards)
       kind -1: the leads; else the follows of a play of that kind (OK_* below) with its
       class argument (the length of a straight, stair or plate), its key (OKEY) and tier.
   With two more arguments (meta, meta_cache) the list holds Combo objects (see _core.c).
   A play's code: kind | f1 << 4 | f2 << 8 | f3 << 12 | natural << 16, f1 the (top) rank,
   f2 the pair's rank (full house) or the first rank (straight, stair, plate), f3 the number
   of ranks (straight, stair, plate); core.py reads it back. */

#include "_core.h"

#define TRY(x) do { int rc_ = (x); if (rc_) return rc_; } while (0)

#define OK_SINGLE 0
#define OK_PAIR 1
#define OK_TRIP 2
#define OK_QUAD 3
#define OK_FULL 4
#define OK_STRAIGHT 5
#define OK_STAIR 6
#define OK_PLATE 7
#define OK_ROCKET 8
#define OCODE(kind, f1, f2, f3, nat) \
    ((long)(kind) | ((long)(f1) << 4) | ((long)(f2) << 8) | ((long)(f3) << 12) | \
     ((long)(nat) << 16))
/* a key as one int, compared like the Python tuples of one class: (r, natural) or (e,) */
#define OKEY(r, nat) ((r) * 2 + (nat))

/* _Hand._options: a list of wild supplies: (2s taken, jokers: 0 none, 1 BJ, 2 RJ, 3 both) */
typedef struct {
    int k2, j;
    unsigned long long m;    /* those cards as a set (bit c: card code c), and how many */
    int cnt;
} Wild;

#define WL_USED 5            /* 2s already used: 0..4 */
#define WL_W 7               /* substitutes: 0..6 (four 2s and two jokers) */
#define WL_MAX 20            /* supplies of one count: (2s 0..4) x (4 joker choices) */

typedef struct {
    Gen *g;                  /* where the plays go (its buf holds the cards being built) */
    int nat_n[12], nat[12][4];
    int twos[4], nt;
    int bj, rj;              /* 1 when held */
    int nwild;
    int filter, beat;        /* when filter: only keys > beat (OwenFamily.follows' filter) */
    /* the lists of wild supplies by (2s used, substitutes), made when first needed */
    signed char wl_n[WL_USED][WL_W];
    Wild (*wl)[WL_W][WL_MAX];
    /* the first c naturals of rank r, and the first c 2s, as sets of cards (one pack: a play
       is a set of cards, its cards in ascending order as they are written to buf) */
    unsigned long long natm[12][5], twom[5];
} Owen;

#define BIT(c) (1ULL << (c))

static int
put(Owen *h, long code, int key, int n)
{
    if (h->filter && key <= h->beat)
        return 0;
    return core_emit(h->g, code, n);
}

/* a play of the set ``m`` of ``n`` cards */
static int
put_set(Owen *h, long code, int key, unsigned long long m, int n)
{
    if (h->filter && key <= h->beat)
        return 0;
    return core_emit_mask(h->g, code, m, n);
}

/* _Hand._options: the w-th list of wild supplies after ``used`` natural 2s, in order */
static int
wild_list(const Owen *h, int used, int w, Wild *out)
{
    int js[4], nj = 0, jl[4] = {0, 1, 1, 2};
    js[nj++] = 0;
    if (h->bj)
        js[nj++] = 1;
    if (h->rj) {
        js[nj++] = 2;
        if (h->bj)
            js[nj++] = 3;
    }
    int n = 0;
    for (int k2 = 0; k2 <= h->nt - used; k2++)
        for (int i = 0; i < nj; i++)
            if (k2 + jl[js[i]] == w) {
                int j = js[i];
                out[n].k2 = used + k2;
                out[n].j = j;
                out[n].m = h->twom[used + k2] | (j & 1 ? BIT(BJ_CODE) : 0) |
                           (j & 2 ? BIT(RJ_CODE) : 0);
                out[n].cnt = used + k2 + jl[j];
                n++;
            }
    return n;
}

/* the list of wild_list(h, used, w), made once per hand (h->wl), or in ``spare`` */
static int
wilds(Owen *h, int used, int w, Wild *spare, const Wild **out)
{
    if (used < 0 || used >= WL_USED || w < 0 || w >= WL_W || h->wl == NULL) {
        *out = spare;
        return wild_list(h, used, w, spare);
    }
    if (h->wl_n[used][w] < 0)
        h->wl_n[used][w] = (signed char)wild_list(h, used, w, h->wl[used][w]);
    *out = h->wl[used][w];
    return h->wl_n[used][w];
}

/* _Hand.parts(k)[r]: the naturals n to use, from the most down (substitutes k - n) */
static int
parts(const Owen *h, int k, int r, int *ns)
{
    int c = h->nat_n[r];
    int lo = k - h->nwild > 1 ? k - h->nwild : 1;
    int hi = c < k ? c : k;
    int m = 0;
    for (int n = hi; n >= lo; n--)
        ns[m++] = n;
    return m;
}

static int
singles(Owen *h, int above)
{
    int *buf = h->g->buf;
    for (int r = above + 1; r < 12; r++) {
        if (r >= 0 && h->nat_n[r]) {
            buf[0] = h->nat[r][0];
            TRY(core_emit(h->g, OCODE(OK_SINGLE, r, 0, 0, 0), 1));
        }
    }
    if (above < TWO && h->nt) {
        buf[0] = h->twos[0];
        TRY(core_emit(h->g, OCODE(OK_SINGLE, TWO, 0, 0, 0), 1));
    }
    if (above < 13 && h->bj) {
        buf[0] = BJ_CODE;
        TRY(core_emit(h->g, OCODE(OK_SINGLE, 13, 0, 0, 0), 1));
    }
    if (above < 14 && h->rj) {
        buf[0] = RJ_CODE;
        TRY(core_emit(h->g, OCODE(OK_SINGLE, 14, 0, 0, 0), 1));
    }
    return 0;
}

/* _sets: pairs, trips or quads of rank >= lo */
static int
sets(Owen *h, int size, int lo)
{
    int kind = size == 2 ? OK_PAIR : size == 3 ? OK_TRIP : OK_QUAD;
    int ns[4];
    Wild ws[32];
    for (int r = lo > 0 ? lo : 0; r < 12; r++) {
        int np = parts(h, size, r, ns);
        for (int i = 0; i < np; i++) {
            int n = ns[i], w = size - n;
            unsigned long long base = h->natm[r][n];
            if (w == 0) {
                TRY(put_set(h, OCODE(kind, r, 0, 0, 1), OKEY(r, 1), base, n));
                continue;
            }
            const Wild *wl;
            int nw = wilds(h, 0, w, ws, &wl);
            for (int x = 0; x < nw; x++)
                TRY(put_set(h, OCODE(kind, r, 0, 0, 0), OKEY(r, 0), base | wl[x].m,
                            n + wl[x].cnt));
        }
    }
    if (lo <= TWO && h->nt >= size)
        TRY(put_set(h, OCODE(kind, TWO, 0, 0, 1), OKEY(TWO, 1), h->twom[size], size));
    return 0;
}

typedef struct {
    int r, n, w;             /* rank, naturals used (all 2s for rank TWO), substitutes */
} Group;

/* _full_houses: full houses whose trip has rank >= lo */
static int
full_houses(Owen *h, int lo)
{
    Group trips[40], pairs[40];
    int ntr = 0, npa = 0, ns[4];
    for (int r = lo > 0 ? lo : 0; r < 12; r++) {
        int np = parts(h, 3, r, ns);
        for (int i = 0; i < np; i++)
            trips[ntr++] = (Group){r, ns[i], 3 - ns[i]};
    }
    for (int r = 0; r < 12; r++) {
        int np = parts(h, 2, r, ns);
        for (int i = 0; i < np; i++)
            pairs[npa++] = (Group){r, ns[i], 2 - ns[i]};
    }
    if (h->nt >= 2) {
        pairs[npa++] = (Group){TWO, 0, 0};
        if (h->nt >= 3 && lo <= TWO)
            trips[ntr++] = (Group){TWO, 0, 0};
    }
    if (!ntr || !npa)
        return 0;
    Wild ws[32];
    for (int t = 0; t < ntr; t++) {
        const Group *a = &trips[t];
        for (int p = 0; p < npa; p++) {
            const Group *b = &pairs[p];
            if (b->r == a->r)
                continue;
            int w, used, k = 0;
            if (a->r == TWO) {
                w = b->w;
                used = 3;
            } else {
                w = a->w + b->w;
                used = b->r == TWO ? 2 : 0;
            }
            const Wild *wl;
            int nw = wilds(h, used, w, ws, &wl);
            if (!nw)
                continue;
            unsigned long long base = 0;      /* the naturals of both (2s: in the supply) */
            if (a->r != TWO) {
                base |= h->natm[a->r][a->n];
                k += a->n;
            }
            if (b->r != TWO) {
                base |= h->natm[b->r][b->n];
                k += b->n;
            }
            int nat = w == 0;
            long code = OCODE(OK_FULL, a->r, b->r, 0, nat);
            for (int x = 0; x < nw; x++)
                TRY(put_set(h, code, OKEY(a->r, nat), base | wl[x].m, k + wl[x].cnt));
        }
    }
    return 0;
}

/* _straights: all lengths (length 0) or one, top rank >= lo */
static int
straights(Owen *h, int length, int lo)
{
    int *buf = h->g->buf;
    if (length) {
        int start = lo - length + 1 > 0 ? lo - length + 1 : 0;
        for (int s = start; s <= 12 - length; s++) {
            int e = s + length - 1, all = 1;
            for (int r = s; r <= e && all; r++)
                all = h->nat_n[r] > 0;
            if (!all)
                continue;
            for (int r = s; r <= e; r++)
                buf[r - s] = h->nat[r][0];
            TRY(put(h, OCODE(OK_STRAIGHT, e, s, length, 0), OKEY(e, 0), length));
        }
        return 0;
    }
    for (int s = 0; s < 8; s++) {
        if (!h->nat_n[s])
            continue;
        buf[0] = h->nat[s][0];
        for (int e = s + 1; e < 12 && h->nat_n[e]; e++) {
            buf[e - s] = h->nat[e][0];
            int m = e - s + 1;
            if (m >= 5 && e >= lo)
                TRY(put(h, OCODE(OK_STRAIGHT, e, s, m, 0), OKEY(e, 0), m));
        }
    }
    return 0;
}

/* the states of _chains over ranks s..e, in the Python list's order (a depth-first walk) */
typedef struct {
    Owen *h;
    int k, s, e, kind;
    int opts[12][4], nopts[12];
} Chain;

static int
chain_walk(Chain *c, int r, int w, unsigned long long set, int n)
{
    Owen *h = c->h;                    /* set: the n naturals chosen for ranks s..r-1 */
    if (r > c->e) {
        int m = c->e - c->s + 1;
        if (w == 0)
            return put_set(h, OCODE(c->kind, c->e, c->s, m, 1), OKEY(c->e, 1), set, n);
        Wild ws[32];
        const Wild *wl;
        int nw = wilds(h, 0, w, ws, &wl);
        for (int x = 0; x < nw; x++)
            TRY(put_set(h, OCODE(c->kind, c->e, c->s, m, 0), OKEY(c->e, 0), set | wl[x].m,
                        n + wl[x].cnt));
        return 0;
    }
    for (int i = 0; i < c->nopts[r]; i++) {
        int take = c->opts[r][i], dw = c->k - take;
        if (w + dw > h->nwild)
            continue;
        TRY(chain_walk(c, r + 1, w + dw, set | h->natm[r][take], n + take));
    }
    return 0;
}

/* _chains: stairs (k 2) or plates (k 3) of ``length`` ranks (any, 2 or more, if 0), top
   rank >= lo */
static int
chains(Owen *h, int k, int length, int lo)
{
    Chain c;
    c.h = h;
    c.k = k;
    c.kind = k == 2 ? OK_STAIR : OK_PLATE;
    for (int r = 0; r < 12; r++)
        c.nopts[r] = parts(h, k, r, c.opts[r]);
    int start = length ? (lo - length + 1 > 0 ? lo - length + 1 : 0) : 0;
    for (int s = start; s < 11; s++) {
        if (!h->nat_n[s])
            continue;
        int least = 0;           /* the fewest substitutes over s..e */
        for (int e = s; e < 12; e++) {
            if (!c.nopts[e])
                break;
            least += k - c.opts[e][0];
            if (least > h->nwild)
                break;           /* no state left */
            int m = e - s + 1;
            if (m >= 2 && (!length || m == length) && e >= lo) {
                c.s = s;
                c.e = e;
                /* natural first (most naturals first), then substituted: the steps may
                   cut it short */
                h->g->window = 1;
                int rc = chain_walk(&c, s, 0, 0, 0);
                h->g->window = 0;
                if (rc != SKIP)
                    TRY(rc);
            }
            if (length && m >= length)
                break;
        }
    }
    return 0;
}

static int
rocket(Owen *h)
{
    if (h->bj && h->rj) {
        h->g->buf[0] = BJ_CODE;
        h->g->buf[1] = RJ_CODE;
        return core_emit(h->g, OCODE(OK_ROCKET, 0, 0, 0, 0), 2);
    }
    return 0;
}

/* OwenFamily.leads (kind -1) and .follows */
static int
owen_generate(Owen *h, int kind, int arg, int key, int tier)
{
    if (kind < 0) {
        TRY(singles(h, -1));
        TRY(sets(h, 2, 0));
        TRY(sets(h, 3, 0));
        TRY(full_houses(h, 0));
        TRY(straights(h, 0, 0));
        TRY(chains(h, 2, 0, 0));
        TRY(chains(h, 3, 0, 0));
        TRY(sets(h, 4, 0));
        return rocket(h);
    }
    if (tier >= 2)
        return 0;
    if (tier == 1) {
        if (kind == OK_QUAD) {
            h->filter = 1;
            h->beat = key;
            TRY(sets(h, 4, key / 2));
            h->filter = 0;
        }
        return rocket(h);
    }
    if (kind == OK_SINGLE) {
        TRY(singles(h, key));
    } else {
        h->filter = 1;
        h->beat = key;
        int top = key / 2;
        switch (kind) {
        case OK_PAIR:
            TRY(sets(h, 2, top));
            break;
        case OK_TRIP:
            TRY(sets(h, 3, top));
            break;
        case OK_FULL:
            TRY(full_houses(h, top));
            break;
        case OK_STRAIGHT:
            TRY(straights(h, arg, top));
            break;
        case OK_STAIR:
            TRY(chains(h, 2, arg, top));
            break;
        case OK_PLATE:
            TRY(chains(h, 3, arg, top));
            break;
        }
        h->filter = 0;
    }
    TRY(sets(h, 4, 0));
    return rocket(h);
}

/* the play to beat as owen_plays describes it (kind, arg, key, tier), as core.py's _owen_prev
   reads it from a Combo: 1, or 0 for a play it does not describe */
static const char *OWEN_CLS[] = {"single", "pair", "trip", "bomb", "full house"};
static const char *OWEN_RUNS[] = {"straight", "stair", "plate"};

int
core_owen_prev(PyObject *prev, long *d)
{
    PyObject *cls, *key, *tier_obj;
    long tier, a0 = 0, a1 = 0, arg = 0, k;
    if (!core_combo_fields(prev, &cls, &key, &tier_obj) ||
        !core_small_int(tier_obj, &tier))
        return 0;
    Py_ssize_t nc = PyTuple_GET_SIZE(cls), nk = PyTuple_GET_SIZE(key);
    int kind = -1;
    if (nc == 1) {
        kind = core_name_index(PyTuple_GET_ITEM(cls, 0), OWEN_CLS, 5);
        if (kind < 0 && core_name_index(PyTuple_GET_ITEM(cls, 0), (const char *[]){"rocket"},
                                        1) == 0)
            kind = OK_ROCKET;
    } else if (nc == 2) {
        int run = core_name_index(PyTuple_GET_ITEM(cls, 0), OWEN_RUNS, 3);
        if (run < 0 || !core_small_int(PyTuple_GET_ITEM(cls, 1), &arg) ||
            arg < (run == 0 ? 5 : 2) || arg > 12)
            return 0;
        kind = OK_STRAIGHT + run;
    }
    if (kind < 0)
        return 0;
    if (kind != OK_ROCKET && (nk < 1 || !core_small_int(PyTuple_GET_ITEM(key, 0), &a0)))
        return 0;
    if (kind == OK_SINGLE)
        k = a0;
    else if (kind == OK_STRAIGHT)
        k = 2 * a0;
    else if (kind == OK_ROCKET)
        k = 0;
    else if (nk < 2 || !core_small_int(PyTuple_GET_ITEM(key, 1), &a1))
        return 0;
    else
        k = 2 * a0 + a1;
    if (tier != (kind == OK_QUAD ? 1 : kind == OK_ROCKET ? 2 : 0) || k < 0 || k > 30)
        return 0;
    d[0] = kind;
    d[1] = arg;
    d[2] = k;
    d[3] = tier;
    return 1;
}

PyObject *
core_owen_plays(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 5) {
        PyErr_SetString(PyExc_TypeError, "owen_plays() takes 5, 7 or 9 arguments");
        return NULL;
    }
    long v[4];
    for (int i = 0; i < 4; i++) {
        v[i] = PyLong_AsLong(args[i + 1]);
        if (v[i] == -1 && PyErr_Occurred())
            return NULL;
    }
    Gen gen;
    if (core_gen_output(&gen, args, nargs, 5, 0) < 0)
        return NULL;
    return core_owen_run(args[0], v, &gen);
}

/* the plays of a hand of one pack (``count``: 0 or 1 of each card) for the description
   (kind, arg, key, tier) into g's output: 0, STOP or -1 (an exception when the output is a
   Python object; a sink's output calls no Python: the batch engine uses it so) */
int
core_owen_generate(const unsigned char *count, int kind, int arg, int key, int tier, Gen *g)
{
    Owen h;
    Wild wl[WL_USED][WL_W][WL_MAX];          /* not cleared: wl_n says what is made */
    memset(&h, 0, sizeof h);
    memset(h.wl_n, -1, sizeof h.wl_n);
    h.wl = wl;
    for (int c = 0; c < 48; c++)
        if (count[c])
            h.nat[c >> 2][h.nat_n[c >> 2]++] = c;
    for (int c = 48; c < 52; c++)
        if (count[c])
            h.twos[h.nt++] = c;
    for (int r = 0; r < 12; r++)
        for (int c = 0; c < h.nat_n[r]; c++)
            h.natm[r][c + 1] = h.natm[r][c] | BIT(h.nat[r][c]);
    for (int c = 0; c < h.nt; c++)
        h.twom[c + 1] = h.twom[c] | BIT(h.twos[c]);
    h.bj = count[BJ_CODE];
    h.rj = count[RJ_CODE];
    h.nwild = h.nt + h.bj + h.rj;
    h.g = g;
    return owen_generate(&h, kind, arg, key, tier);
}

/* the plays of ``hand`` for the description v (kind, arg, key, tier) into g's output */
PyObject *
core_owen_run(PyObject *hand, const long *v, Gen *g)
{
    long kind = v[0], arg = v[1], key = v[2], tier = v[3];
    if (kind < -1 || kind > OK_ROCKET || arg < 0 || arg > 12 || key < 0 || key > 30 ||
        tier < 0 || tier > 2) {
        PyErr_SetString(PyExc_ValueError, "play description out of range");
        return NULL;
    }
    unsigned char count[N_CARDS];
    if (core_read_hand(hand, count, 1) < 0)
        return NULL;
    PyObject *out = core_gen_start(g, kind >= 0);
    if (out != NULL && core_owen_generate(count, (int)kind, (int)arg, (int)key, (int)tier,
                                          g) < 0)
        Py_CLEAR(out);
    Py_XDECREF(g->code_obj);
    return out;
}
