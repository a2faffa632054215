/* The legal plays of the "winner" family (WinnerFamily in games/zheng_shangyou/winner.py), in
   C: the same plays, with the same cards, in the same order as its Python code, which stays
   the reference (tests/test_core_differential.py). Each function names the Python function
   it follows.

   winner_plays(hand, min_straight, rank_only, quad, kind, a, b, c[, meta, meta_cache])
       -> list of (code, cards) or of Combos
       kind -1: the leads; else the follows of a play of that kind (WK_* below) described by
       a (its key's card, or its first straight position), b (its number of ranks or cards:
       runs, straights, straight flushes) and c (its top card's suit + 1; 0 when the key is
       the position alone).
   A play's code: kind | a << 4 | b << 10 | c << 14 (the same fields); core.py reads it back.

   A hand holds each card at most MAX_COPIES times; a rank's choices of 2 to 4 cards are then
   at most 35 (MAX_CHOICES). */

#include "_core.h"

#include <stddef.h>

#define TRY(x) do { int rc_ = (x); if (rc_) return rc_; } while (0)

#define WK_SINGLE 0
#define WK_PAIR 1
#define WK_TRIPLE 2
#define WK_PAIRS 3
#define WK_TRIPLES 4
#define WK_FULL 5
#define WK_STRAIGHT 6
#define WK_BOMB 7
#define WK_FLUSH 8
#define WCODE(kind, a, b, c) \
    ((long)(kind) | ((long)(a) << 4) | ((long)(b) << 10) | ((long)(c) << 14))
#define TOP_POSITION 13
#define MAX_CHOICES 64

/* rank index at each straight position: A(low)=0, 2=1, 3=2, ..., K=12, A(high)=13 */
static const int POSITION_RANK[14] = {ACE, TWO, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ACE};

typedef struct {
    int n;
    int cards[MAX_CHOICES][4];
} Choices;

typedef struct {
    Gen *g;
    unsigned char cnt[N_CARDS];
    int by_n[N_RANKS], by[N_RANKS][MAX_RANK_CARDS];   /* sorted cards of each rank */
    int held[N_CARDS], nheld;                         /* the distinct cards, sorted */
    int min_straight, rank_only, quad;
    Choices opts[12];                                 /* _runs' choices per rank */
    int pick[12];                                     /* the product being walked */
} Win;

static inline int
rank_of(int c)
{
    return c < BJ_CODE ? c >> 2 : (c == BJ_CODE ? BJ : RJ);
}

/* _choices: the distinct k-card sub-multisets of rank r's cards, lexicographic */
static void
choices_walk(const Win *h, const int *vals, const int *counts, int nv, int i, int left,
             int *cur, int used, Choices *out)
{
    if (left == 0) {
        if (out->n < MAX_CHOICES)
            memcpy(out->cards[out->n++], cur, sizeof(int) * 4);
        return;
    }
    if (i >= nv || i >= 4)
        return;
    int most = counts[i] < left ? counts[i] : left;
    if (used + most > 4)
        most = 4 - used;
    for (int c = most; c >= 0; c--) {
        for (int j = 0; j < c; j++)
            cur[used + j] = vals[i];
        choices_walk(h, vals, counts, nv, i + 1, left - c, cur, used + c, out);
    }
}

static void
choices(const Win *h, int r, int k, Choices *out)
{
    int vals[4], counts[4], nv = 0, cur[4] = {0, 0, 0, 0};
    for (int i = 0; i < h->by_n[r]; i++) {
        if (nv && vals[nv - 1] == h->by[r][i]) {
            counts[nv - 1]++;
        } else if (nv < 4) {
            vals[nv] = h->by[r][i];
            counts[nv++] = 1;
        }
    }
    out->n = 0;
    if (h->by_n[r] >= k)
        choices_walk(h, vals, counts, nv, 0, k, cur, 0, out);
}

static int
emit_cards(Win *h, long code, const int *cards, int n)
{
    memcpy(h->g->buf, cards, (size_t)n * sizeof(int));
    return core_emit(h->g, code, n);
}

/* _sets: pairs (jokers included) or triples whose top card is above ``above`` */
static int
sets(Win *h, int width, int above)
{
    int last = width == 2 ? 15 : 13;
    Choices ch;
    for (int r = 0; r < last; r++) {
        if (h->by_n[r] < width || h->by[r][h->by_n[r] - 1] <= above)
            continue;
        choices(h, r, width, &ch);
        for (int i = 0; i < ch.n; i++)
            if (ch.cards[i][width - 1] > above)
                TRY(emit_cards(h, WCODE(width == 2 ? WK_PAIR : WK_TRIPLE,
                                        ch.cards[i][width - 1], 0, 0), ch.cards[i], width));
    }
    return 0;
}

/* the products of _runs over ranks lo..hi (hi's choice ``top`` fixed when >= 0), in the order
   of the Python lists: the lowest rank's choice first */
static int
run_walk(Win *h, int width, int lo, int r, int hi, long code_kind, int fixed_top, int m)
{
    if (r > hi || (fixed_top >= 0 && r == hi)) {
        int *buf = h->g->buf, n = 0;
        for (int x = lo; x <= hi; x++) {
            const int *c = (fixed_top >= 0 && x == hi) ? h->opts[hi].cards[fixed_top]
                                                       : h->opts[x].cards[h->pick[x]];
            for (int j = 0; j < width; j++)
                buf[n++] = c[j];
        }
        return core_emit(h->g, WCODE(code_kind, buf[n - 1], m, 0), n);
    }
    for (int i = 0; i < h->opts[r].n; i++) {
        h->pick[r] = i;
        TRY(run_walk(h, width, lo, r + 1, hi, code_kind, fixed_top, m));
    }
    return 0;
}

/* _runs: consecutive pairs (width 2) or triples (width 3) within 3..A */
static int
runs(Win *h, int width, int length, int above)
{
    int kind = width == 2 ? WK_PAIRS : WK_TRIPLES;
    for (int r = 0; r <= ACE; r++)
        choices(h, r, width, &h->opts[r]);
    for (int a = 0; a < ACE; a++) {
        if (!h->opts[a].n || !h->opts[a + 1].n)
            continue;
        if (length) {
            int top = a + length - 1;
            if (top > ACE)
                break;
            if (h->by_n[top] && h->by[top][h->by_n[top] - 1] <= above)
                continue;
            int all = 1;
            for (int r = a + 2; r <= top && all; r++)
                all = h->opts[r].n > 0;
            if (!all)
                continue;
            for (int q = 0; q < h->opts[top].n; q++)
                if (h->opts[top].cards[q][width - 1] > above)
                    TRY(run_walk(h, width, a, a, top, kind, q, length));
        } else {
            int r = a;
            while (r < ACE && h->opts[r + 1].n) {
                r++;
                TRY(run_walk(h, width, a, a, r, kind, -1, r - a + 1));
            }
        }
    }
    return 0;
}

/* _full_houses: triples whose top card is above ``above`` with a pair of another rank */
static int
full_houses(Win *h, int above)
{
    int pair_ranks[13], np = 0;
    Choices *pairs = PyMem_Malloc(13 * sizeof(Choices));
    if (pairs == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (int r = 0; r <= TWO; r++)
        if (h->by_n[r] >= 2) {
            choices(h, r, 2, &pairs[np]);
            pair_ranks[np++] = r;
        }
    int rc = 0;
    Choices trips;
    for (int t = 0; t <= TWO && np >= 2 && !rc; t++) {
        if (h->by_n[t] < 3 || h->by[t][h->by_n[t] - 1] <= above)
            continue;
        choices(h, t, 3, &trips);
        for (int p = 0; p < np && !rc; p++) {
            if (pair_ranks[p] == t)
                continue;
            for (int x = 0; x < trips.n && !rc; x++) {
                const int *tr = trips.cards[x];
                if (tr[2] <= above)
                    continue;
                for (int y = 0; y < pairs[p].n && !rc; y++) {
                    const int *pc = pairs[p].cards[y];
                    int c[5];
                    if (pair_ranks[p] < t) {
                        c[0] = pc[0]; c[1] = pc[1]; c[2] = tr[0]; c[3] = tr[1]; c[4] = tr[2];
                    } else {
                        c[0] = tr[0]; c[1] = tr[1]; c[2] = tr[2]; c[3] = pc[0]; c[4] = pc[1];
                    }
                    rc = emit_cards(h, WCODE(WK_FULL, tr[2], 0, 0), c, 5);
                }
            }
        }
    }
    PyMem_Free(pairs);
    return rc;
}

static void
sort_cards(int *c, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && c[j - 1] > c[j]; j--) {
            int t = c[j];
            c[j] = c[j - 1];
            c[j - 1] = t;
        }
}

/* the distinct cards of the rank at straight position p, sorted */
static int
position_cards(const Win *h, int p, int *out)
{
    int r = POSITION_RANK[p], n = 0;
    for (int i = 0; i < h->by_n[r]; i++)
        if (!n || out[n - 1] != h->by[r][i])
            out[n++] = h->by[r][i];
    return n;
}

/* _straights: plain straights; with ``length`` only that length, key above (b0[, b1]) */
static int
straights(Win *h, int length, int has_above, int a0, int a1)
{
    int opts[14][4], nopt[14];
    for (int p = 0; p <= TOP_POSITION; p++)
        nopt[p] = position_cards(h, p, opts[p]);
    int mn = h->min_straight, need = length ? length : mn;
    int first = has_above ? a0 : 0;
    for (int s = first < 0 ? 0 : first; s < TOP_POSITION + 2 - need; s++) {
        if (!nopt[s])
            continue;
        int maxn = s == 0 ? 12 : TOP_POSITION + 1 - s;
        if (length) {
            if (length > maxn)
                continue;
            maxn = length;
        }
        int n = 1, p = s;
        while (n < maxn && nopt[p + 1]) {
            p++;
            n++;
            if (n < mn || (length && n != length))
                continue;
            int ntop = h->rank_only ? 1 : nopt[p];
            for (int ti = 0; ti < ntop; ti++) {
                int top = opts[p][ti], suit = top & 3;
                /* key (s,) or (s, suit) against the one to beat */
                if (has_above) {
                    if (h->rank_only ? s <= a0 : (s < a0 || (s == a0 && suit <= a1)))
                        continue;
                }
                /* _not_one_suit */
                int cards[14], k = 0, mixed = 0;
                for (int q = s; q < p; q++) {
                    cards[k++] = opts[q][0];
                    if ((opts[q][0] & 3) != suit)
                        mixed = 1;
                }
                cards[k++] = top;
                if (!mixed) {
                    for (int q = s; q < p && !mixed; q++)
                        for (int i = 0; i < nopt[q] && !mixed; i++)
                            if ((opts[q][i] & 3) != suit) {
                                cards[q - s] = opts[q][i];
                                mixed = 1;
                            }
                    if (!mixed && h->rank_only)
                        for (int i = 0; i < nopt[p] && !mixed; i++)
                            if ((opts[p][i] & 3) != suit) {
                                cards[k - 1] = opts[p][i];
                                mixed = 1;
                            }
                }
                if (!mixed)
                    continue;
                sort_cards(cards, k);
                TRY(emit_cards(h, WCODE(WK_STRAIGHT, s, n, h->rank_only ? 0 : suit + 1),
                               cards, k));
            }
        }
    }
    return 0;
}

/* _flushes: straight flushes; with ``length`` only that length, key above (a0[, a1]) */
static int
flushes(Win *h, int length, int has_above, int a0, int a1)
{
    int mn = h->min_straight, need = length ? length : mn;
    for (int suit = 0; suit < 4; suit++) {
        int has[14], held = 0;
        for (int p = 0; p <= TOP_POSITION; p++)
            held += has[p] = h->cnt[POSITION_RANK[p] * 4 + suit] > 0;
        if (held < need)
            continue;               /* fewer positions of the suit than a flush needs */
        for (int s = 0; s < TOP_POSITION + 2 - need; s++) {
            if (!has[s])
                continue;
            if (has_above && (h->rank_only ? s <= a0 : (s < a0 || (s == a0 && suit <= a1))))
                continue;
            int maxn = s == 0 ? 12 : TOP_POSITION + 1 - s;
            if (length) {
                if (length > maxn)
                    continue;
                maxn = length;
            }
            int n = 1, p = s;
            while (n < maxn && has[p + 1]) {
                p++;
                n++;
                if (n >= mn && (!length || n == length)) {
                    int cards[14];
                    for (int q = s; q <= p; q++)
                        cards[q - s] = POSITION_RANK[q] * 4 + suit;
                    sort_cards(cards, n);
                    TRY(emit_cards(h, WCODE(WK_FLUSH, s, n, h->rank_only ? 0 : suit + 1),
                                   cards, n));
                }
            }
        }
    }
    return 0;
}

/* the five-card bombs listed for one rank (the Python ``seen``): at most MAX_CHOICES quads
   times N_CARDS + 4 extra cards */
#define MAX_SEEN (MAX_CHOICES * (N_CARDS + 4))

/* _bombs: bombs whose quad's highest card is above ``above`` */
static int
bombs(Win *h, int above)
{
    Choices quads;
    int (*seen)[5] = NULL;
    for (int r = 0; r <= TWO; r++) {
        int nr = h->by_n[r];
        const int *rc = h->by[r];
        if (nr < 4 || rc[nr - 1] <= above)
            continue;
        choices(h, r, 4, &quads);
        if (h->quad) {              /* (seen is only used below: still NULL here) */
            for (int i = 0; i < quads.n; i++)
                if (quads.cards[i][3] > above)
                    TRY(emit_cards(h, WCODE(WK_BOMB, quads.cards[i][3], 0, 0),
                                   quads.cards[i], 4));
            continue;
        }
        int others[N_CARDS], no = 0;
        for (int i = 0; i < h->nheld; i++)
            if (rank_of(h->held[i]) != r)
                others[no++] = h->held[i];
        if (nr == 4) {
            if (rc[3] <= above)
                continue;
            for (int i = 0; i < no; i++) {
                int c[5], k = others[i];
                if (k > rc[3]) {
                    memcpy(c, rc, 4 * sizeof(int));
                    c[4] = k;
                } else {
                    c[0] = k;
                    memcpy(c + 1, rc, 4 * sizeof(int));
                }
                int rc5 = emit_cards(h, WCODE(WK_BOMB, rc[3], 0, 0), c, 5);
                if (rc5) {
                    PyMem_Free(seen);
                    return rc5;
                }
            }
            continue;
        }
        /* two packs or more: the extra card may share the quad's rank */
        if (seen == NULL) {
            seen = PyMem_Malloc(MAX_SEEN * sizeof *seen);
            if (seen == NULL) {
                PyErr_NoMemory();
                return -1;
            }
        }
        int nseen = 0;
        int values[4], nval = 0;
        for (int i = 0; i < nr; i++)
            if (!nval || values[nval - 1] != rc[i])
                values[nval++] = rc[i];
        for (int qi = 0; qi < quads.n; qi++) {
            const int *q = quads.cards[qi];
            int extra[N_CARDS + 4], ne = 0;
            for (int i = 0; i < no; i++)
                extra[ne++] = others[i];
            for (int v = 0; v < nval; v++) {
                int in_rank = 0, in_quad = 0;
                for (int i = 0; i < nr; i++)
                    in_rank += rc[i] == values[v];
                for (int i = 0; i < 4; i++)
                    in_quad += q[i] == values[v];
                if (in_rank > in_quad)
                    extra[ne++] = values[v];
            }
            for (int e = 0; e < ne; e++) {
                int k = extra[e], c[5] = {q[0], q[1], q[2], q[3], k};
                sort_cards(c, 5);
                int top = rank_of(k) == r ? (q[3] > k ? q[3] : k) : q[3];
                if (top <= above)
                    continue;
                int dup = 0;
                for (int i = 0; i < nseen && !dup; i++)
                    dup = !memcmp(seen[i], c, sizeof c);
                if (dup || nseen >= MAX_SEEN)
                    continue;
                memcpy(seen[nseen++], c, sizeof c);
                int rc = emit_cards(h, WCODE(WK_BOMB, top, 0, 0), c, 5);
                if (rc) {
                    PyMem_Free(seen);
                    return rc;
                }
            }
        }
    }
    PyMem_Free(seen);
    return 0;
}

/* WinnerFamily.leads (kind -1) and .follows */
static int
winner_generate(Win *h, int kind, int a, int b, int c)
{
    if (kind < 0) {
        for (int i = 0; i < h->nheld; i++)
            TRY(emit_cards(h, WCODE(WK_SINGLE, h->held[i], 0, 0), &h->held[i], 1));
        TRY(sets(h, 2, -1));
        TRY(sets(h, 3, -1));
        TRY(runs(h, 2, 0, -1));
        TRY(runs(h, 3, 0, -1));
        TRY(full_houses(h, -1));
        TRY(straights(h, 0, 0, 0, 0));
        TRY(bombs(h, -1));
        return flushes(h, 0, 0, 0, 0);
    }
    if (kind == WK_FLUSH)
        return flushes(h, b, 1, a, c - 1);
    if (kind == WK_BOMB) {
        TRY(bombs(h, a));
        return flushes(h, 0, 0, 0, 0);
    }
    switch (kind) {                    /* _same_class */
    case WK_SINGLE:
        for (int i = 0; i < h->nheld; i++)
            if (h->held[i] > a)
                TRY(emit_cards(h, WCODE(WK_SINGLE, h->held[i], 0, 0), &h->held[i], 1));
        break;
    case WK_PAIR:
    case WK_TRIPLE:
        TRY(sets(h, kind == WK_PAIR ? 2 : 3, a));
        break;
    case WK_FULL:
        TRY(full_houses(h, a));
        break;
    case WK_PAIRS:
    case WK_TRIPLES:
        TRY(runs(h, kind == WK_PAIRS ? 2 : 3, b, a));
        break;
    case WK_STRAIGHT:
        TRY(straights(h, b, 1, a, c - 1));
        break;
    }
    TRY(bombs(h, -1));
    return flushes(h, 0, 0, 0, 0);
}

/* the play to beat as winner_plays describes it (kind, a, b, c), as core.py's _winner_prev
   reads it from a Combo (``rank_only``: the option straight_needs_higher_rank): 1, or 0 for a
   play it does not describe */
static const char *WIN_CLS[] = {"single", "pair", "triple", "full house", "bomb"};
static const int WIN_CLS_KIND[] = {0, 1, 2, 5, 7}, WIN_CLS_TIER[] = {0, 0, 0, 0, 1};
static const char *WIN_RUNS[] = {"pairs", "triples", "straight", "straight flush"};
static const int WIN_RUNS_KIND[] = {3, 4, 6, 8}, WIN_RUNS_TIER[] = {0, 0, 0, 2};

int
core_winner_prev(PyObject *prev, int rank_only, long *d)
{
    PyObject *cls, *key, *tier_obj;
    long tier, b = 0, c = 0, a;
    if (!core_combo_fields(prev, &cls, &key, &tier_obj) || !core_small_int(tier_obj, &tier))
        return 0;
    Py_ssize_t nc = PyTuple_GET_SIZE(cls), nk = PyTuple_GET_SIZE(key);
    int kind, want_tier, i;
    if (nc == 1 && (i = core_name_index(PyTuple_GET_ITEM(cls, 0), WIN_CLS, 5)) >= 0) {
        kind = WIN_CLS_KIND[i];
        want_tier = WIN_CLS_TIER[i];
    } else if (nc == 2 && (i = core_name_index(PyTuple_GET_ITEM(cls, 0), WIN_RUNS, 4)) >= 0 &&
               core_small_int(PyTuple_GET_ITEM(cls, 1), &b) && b >= 2 && b <= 13) {
        kind = WIN_RUNS_KIND[i];
        want_tier = WIN_RUNS_TIER[i];
        if (kind == 6 || kind == 8) {
            if (nk != (rank_only ? 1 : 2))
                return 0;
            if (nk == 2) {
                if (!core_small_int(PyTuple_GET_ITEM(key, 1), &c))
                    return 0;
                c += 1;
            }
        }
    } else {
        return 0;
    }
    if (tier != want_tier || nk < 1 || !core_small_int(PyTuple_GET_ITEM(key, 0), &a) ||
        a < 0 || a > 53 || c < 0 || c > 4)
        return 0;
    d[0] = kind;
    d[1] = a;
    d[2] = b;
    d[3] = c;
    return 1;
}

PyObject *
core_winner_plays(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 8) {
        PyErr_SetString(PyExc_TypeError, "winner_plays() takes 8, 10 or 12 arguments");
        return NULL;
    }
    long v[7];
    for (int i = 0; i < 7; i++) {
        v[i] = PyLong_AsLong(args[i + 1]);
        if (v[i] == -1 && PyErr_Occurred())
            return NULL;
    }
    Gen gen;
    if (core_gen_output(&gen, args, nargs, 8, 0) < 0)
        return NULL;
    return core_winner_run(args[0], v, &gen);
}

/* the plays of ``hand`` for the options and description v (min_straight, rank_only, quad,
   kind, a, b, c) into g's output */
/* the tables of a hand whose counts are in h->cnt, and the options v[0..2] */
static void
win_setup(Win *h, const long *v, Gen *g)
{
    for (int c = 0; c < N_CARDS; c++) {
        int r = rank_of(c);
        for (int i = 0; i < h->cnt[c]; i++)
            h->by[r][h->by_n[r]++] = c;
        if (h->cnt[c])
            h->held[h->nheld++] = c;
    }
    h->min_straight = (int)v[0];
    h->rank_only = v[1] != 0;
    h->quad = v[2] != 0;
    h->g = g;
}

/* the "winner" plays of a hand (counts, at most MAX_COPIES each) for the options and the
   play described by v (min_straight, rank_only, quad, kind, a, b, c; kind -1: the leads)
   into g's output, the tables on the stack: 0, STOP or -1 (an exception only when the output
   is a Python object: a sink's output calls no Python, the batch engine uses it so) */
int
core_winner_generate(const unsigned char *count, const long *v, Gen *g)
{
    Win h;
    memset(&h, 0, sizeof h);
    memcpy(h.cnt, count, N_CARDS);
    win_setup(&h, v, g);
    return winner_generate(&h, (int)v[3], (int)v[4], (int)v[5], (int)v[6]);
}

PyObject *
core_winner_run(PyObject *hand, const long *v, Gen *g)
{
    if (v[0] < 3 || v[0] > 13 || v[3] < -1 || v[3] > WK_FLUSH || v[4] < -1 || v[4] > 53 ||
        v[5] < 0 || v[5] > 13 || v[6] < 0 || v[6] > 4) {
        PyErr_SetString(PyExc_ValueError, "options or play description out of range");
        return NULL;
    }
    /* only the tables before ``opts`` need zeroing: ``choices`` clears each Choices it fills
       and the walk sets ``pick`` before reading it (calloc of the whole 14 KB cost more than
       listing the plays) */
    Win *h = PyMem_Malloc(sizeof(Win));
    if (h == NULL)
        return PyErr_NoMemory();
    memset(h, 0, offsetof(Win, opts));
    PyObject *out = NULL;
    if (core_read_hand(hand, h->cnt, MAX_COPIES) < 0)
        goto done;
    win_setup(h, v, g);
    out = core_gen_start(g, v[3] >= 0);
    if (out != NULL && winner_generate(h, (int)v[3], (int)v[4], (int)v[5], (int)v[6]) < 0)
        Py_CLEAR(out);
done:
    Py_XDECREF(g->code_obj);
    PyMem_Free(h);
    return out;
}
