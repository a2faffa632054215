/* The legal plays of the pagat family (PagatFamily in games/zheng_shangyou/pagat.py), in C:
   the same plays, with the same cards, in the same order as its Python code, which stays the
   reference (tests/test_core_differential.py). Each function below names the Python function
   it follows. Plays go to a Python list (``Gen.out``) or to a C sink (the playouts).

   Every array is sized for MAX_COPIES copies of each card (four packs): the callers refuse
   hands with more. A play uses cards of the hand only, so ``Gen.buf`` (MAX_HAND cards) holds
   any of them. */

#include "_core.h"

/* 0 goes on; STOP (a sink had its one play) and -1 (an exception) go back up */
#define TRY(x) do { int rc_ = (x); if (rc_) return rc_; } while (0)


/* a sink's own small arrays moved to the heap, so that they may grow */
static int
sink_unfix(Sink *s)
{
    Play *p = PyMem_Malloc((size_t)(s->cap ? s->cap : 1) * sizeof(Play));
    int *q = PyMem_Malloc((size_t)(s->pool_cap ? s->pool_cap : 1) * sizeof(int));
    if (p == NULL || q == NULL) {
        PyMem_Free(p);
        PyMem_Free(q);
        PyErr_NoMemory();
        return -1;
    }
    memcpy(p, s->plays, (size_t)s->n * sizeof(Play));
    memcpy(q, s->pool, (size_t)s->pool_n * sizeof(int));
    s->plays = p;
    s->pool = q;
    s->fixed = 0;
    return 0;
}

static int
sink_grow(Sink *s, Py_ssize_t ncards)
{
    if (s->fixed && sink_unfix(s) < 0)
        return -1;
    if (s->n == s->cap) {
        Py_ssize_t cap = s->cap ? 4 * s->cap : 16;   /* 256 bytes: the small allocator */
        Play *p = PyMem_Realloc(s->plays, (size_t)cap * sizeof(Play));
        if (p == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        s->plays = p;
        s->cap = cap;
    }
    if (s->pool_n + ncards > s->pool_cap) {
        Py_ssize_t cap = s->pool_cap ? 4 * s->pool_cap : 64;
        while (cap < s->pool_n + ncards)
            cap *= 2;
        int *p = PyMem_Realloc(s->pool, (size_t)cap * sizeof(int));
        if (p == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        s->pool = p;
        s->pool_cap = cap;
    }
    return 0;
}

/* one play: the code and the first ``ncards`` of g->buf; 0, STOP or -1 */
int
core_emit(Gen *g, long code, int ncards)
{
    if (g->out == NULL) {
        Sink *s = g->sink;
        if (s->seen != NULL && (s->seen[code >> 3] >> (code & 7) & 1))
            return ++s->total > s->skip_after && g->window ? SKIP : 0;
        if (s->limit > 0 && s->n >= s->limit) {       /* too many to list: stop */
            s->over = 1;
            return STOP;
        }
        if (s->seen != NULL) {
            s->total++;
            s->seen[code >> 3] |= (unsigned char)(1u << (code & 7));
        }
        if ((s->n == s->cap || s->pool_n + ncards > s->pool_cap) && sink_grow(s, ncards) < 0)
            return -1;
        Play *p = &s->plays[s->n++];
        p->code = code;
        p->n = ncards;
        p->off = (int)s->pool_n;
        int *to = s->pool + s->pool_n;
        for (int i = 0; i < ncards; i++)
            to[i] = g->buf[i];
        s->pool_n += ncards;
        return s->first ? STOP : 0;
    }
    if (core_steps_on)
        return core_steps_emit(g, code, ncards);
    return core_emit_object(g, code, ncards, g->out);
}

/* one play made a Python object (a Combo, a Move or a (code, cards) pair, see Gen) and
   appended to ``out``: 0 or -1 */
int
core_emit_object(Gen *g, long code, int ncards, PyObject *out)
{
    if (g->meta != NULL && g->singles != NULL && CODE_KIND(code) == K_SINGLE && ncards == 1) {
        /* the family's shared single combo of the card */
        PyObject *one = PyList_GetItem(g->singles, g->buf[0]);
        if (one == NULL)
            return -1;
        if (g->family == NULL)
            return PyList_Append(out, one);
        Py_INCREF(one);
        PyObject *mv = core_move(g, one);
        if (mv == NULL)
            return -1;
        int rc = PyList_Append(out, mv);
        Py_DECREF(mv);
        return rc;
    }
    PyObject *cards = PyTuple_New(ncards);
    if (cards == NULL)
        return -1;
    for (int i = 0; i < ncards; i++) {
        PyObject *c = PyLong_FromLong(g->buf[i]);
        if (c == NULL) {
            Py_DECREF(cards);
            return -1;
        }
        PyTuple_SET_ITEM(cards, i, c);
    }
    if (g->code_obj == NULL || g->code != code) {   /* plays of one shape come in runs */
        PyObject *pc = PyLong_FromLong(code);
        if (pc == NULL) {
            Py_DECREF(cards);
            return -1;
        }
        Py_XSETREF(g->code_obj, pc);
        g->code = code;
        g->last_meta = NULL;
    }
    PyObject *item;
    if (g->meta != NULL) {
        if (g->last_meta == NULL) {
            PyObject *m = PyDict_GetItemWithError(g->meta_cache, g->code_obj);
            if (m == NULL) {
                if (PyErr_Occurred()) {
                    Py_DECREF(cards);
                    return -1;
                }
                m = PyObject_CallOneArg(g->meta, g->code_obj);
                if (m == NULL || PyDict_SetItem(g->meta_cache, g->code_obj, m) < 0) {
                    Py_XDECREF(m);
                    Py_DECREF(cards);
                    return -1;
                }
                Py_DECREF(m);         /* the dict holds it */
            }
            g->last_meta = m;
        }
        PyObject_GC_UnTrack(cards);           /* ints only: as the collector would do */
        item = core_combo(g->last_meta, cards);
        Py_DECREF(cards);
        if (item != NULL && g->family != NULL)
            item = core_move(g, item);
    } else {
        item = PyTuple_New(2);
        if (item == NULL) {
            Py_DECREF(cards);
            return -1;
        }
        Py_INCREF(g->code_obj);
        PyTuple_SET_ITEM(item, 0, g->code_obj);
        PyTuple_SET_ITEM(item, 1, cards);
    }
    if (item == NULL)
        return -1;
    int rc = PyList_Append(out, item);
    Py_DECREF(item);
    return rc;
}

int
core_mask_cards(unsigned long long mask, int *out)
{
    int k = 0;
    while (mask) {
#if defined(__GNUC__) || defined(__clang__)
        out[k++] = __builtin_ctzll(mask);
#else
        int c = 0;
        while (!(mask >> c & 1))
            c++;
        out[k++] = c;
#endif
        mask &= mask - 1;
    }
    return k;
}

/* one play of ``ncards`` distinct cards given as a set: kept as the set in a sink that takes
   sets (a Plays sequence), else written out to g->buf, ascending, for core_emit */
int
core_emit_mask(Gen *g, long code, unsigned long long mask, int ncards)
{
    if (g->out == NULL && g->mask_ok) {
        Sink *s = g->sink;
        if (s->limit > 0 && s->n >= s->limit) {       /* too many to list: stop */
            s->over = 1;
            return STOP;
        }
        if ((s->n == s->cap || s->pool_n + 2 > s->pool_cap) && sink_grow(s, 2) < 0)
            return -1;
        Play *p = &s->plays[s->n++];
        p->code = code;
        p->n = -ncards;
        p->off = (int)s->pool_n;
        unsigned int *half = (unsigned int *)(s->pool + s->pool_n);
        half[0] = (unsigned int)(mask & 0xffffffffu);
        half[1] = (unsigned int)(mask >> 32);
        s->pool_n += 2;
        return s->first ? STOP : 0;
    }
    return core_emit(g, code, core_mask_cards(mask, g->buf));
}

/* Python's (x0, x1) <= (b0, b1) */
static int
le2(int x0, int x1, const int *b)
{
    return x0 < b[0] || (x0 == b[0] && x1 <= b[1]);
}

/* Python's (x0, x1, x2) <= (b0, b1, b2) */
static int
le3(int x0, int x1, int x2, const int *b)
{
    if (x0 != b[0])
        return x0 < b[0];
    if (x1 != b[1])
        return x1 < b[1];
    return x2 <= b[2];
}

/* ------------------------------------------------------------------------- singles */
static int
singles(Gen *g, int above)
{
    for (int r = above + 1; r < N_RANKS; r++) {
        if (r >= 0 && g->n[r]) {
            g->buf[0] = g->card[r][0];
            TRY(core_emit(g, CODE(K_SINGLE, r, 0, 0, 0), 1));
        }
    }
    return 0;
}

/* ---------------------------------------------------------------------------- sets */
/* PagatFamily._sets: size -1 = any size of two cards or more */
static int
sets(Gen *g, int size, const Beat *beat)
{
    int nt0 = g->n[TWO], nb0 = g->n[BJ], nr0 = g->n[RJ];
    int need = size < 0 ? 2 : size;
    int lo = beat->has ? beat->v[0] : 0;
    if (lo < 0)
        lo = 0;
    for (int r = lo; r < N_RANKS; r++) {
        int nn = g->n[r];
        if (!nn)
            continue;
        int nt, nb, nr;
        if (r < TWO) {
            nt = nt0; nb = nb0; nr = nr0;
        } else if (r == TWO) {
            nt = 0; nb = nb0; nr = nr0;
        } else if (r == BJ) {
            nt = 0; nb = 0; nr = nr0;
        } else {
            nt = nb = nr = 0;
        }
        if (nn + nt + nb + nr < need)
            continue;
        for (int n = 1; n <= nn; n++) {
            for (int t = 0; t <= nt; t++) {
                for (int b = 0; b <= nb; b++) {
                    for (int j = 0; j <= nr; j++) {
                        int total = n + t + b + j;
                        if (total < 2 || (size >= 0 && total != size))
                            continue;
                        int pure = (t + b + j == 0);
                        if (beat->has && le2(r, pure, beat->v))
                            continue;
                        int k = 0;
                        for (int i = 0; i < n; i++)
                            g->buf[k++] = g->card[r][i];
                        for (int i = 0; i < t; i++)
                            g->buf[k++] = g->card[TWO][i];
                        for (int i = 0; i < b; i++)
                            g->buf[k++] = BJ_CODE;
                        for (int i = 0; i < j; i++)
                            g->buf[k++] = RJ_CODE;
                        TRY(core_emit(g, CODE(K_SET, r, 0, total, pure), k));
                    }
                }
            }
        }
    }
    return 0;
}

/* ----------------------------------------------------------------------- sequences */
static int
popcount(unsigned x)
{
    int c = 0;
    while (x) {
        x &= x - 1;
        c++;
    }
    return c;
}

/* the naturals of a mixed sequence (PagatFamily._make_mixed): the first card of each used
   rank, rebound so that they are not all of one suit; 0 when that is impossible */
static int
make_mixed(const Gen *g, const int *used, int nu, int *nat)
{
    if (nu < 2)
        return 0;
    int s = g->card[used[0]][0] & 3, same = 1;
    for (int i = 0; i < nu; i++) {
        nat[i] = g->card[used[i]][0];
        if ((nat[i] & 3) != s)
            same = 0;
    }
    if (!same)
        return 1;
    for (int idx = nu - 1; idx >= 0; idx--) {
        int r = used[idx];
        for (int i = 0; i < g->n[r]; i++) {
            int c = g->card[r][i];
            if ((c & 3) != s) {
                nat[idx] = c;
                return 1;
            }
        }
    }
    return 0;
}

/* every play of the window lo..hi (PagatFamily._one_window and _seq_plan): suit -1 mixed */
static int
one_window_plays(Gen *g, int lo, int hi, int suit, unsigned mask, int nb, int nr,
                 const Beat *beat)
{
    int suited = suit >= 0;
    if (beat->has && le3(suited, hi, 1, beat->v))
        return 0;
    int present[N_RANKS], np = 0;
    for (int r = lo; r <= hi; r++)
        if (mask >> r & 1)
            present[np++] = r;
    int L = hi - lo + 1;
    int missing = L - np;
    int spare = nb + nr - missing;
    int max_extra = spare < np - 1 ? spare : np - 1;
    for (int extra = 0; extra <= max_extra; extra++) {
        int u = missing + extra;
        int pure = (u == 0);
        if (beat->has && le3(suited, hi, pure, beat->v))
            continue;
        /* the present ranks that get a joker instead of their natural: every subset of
           ``extra`` of them, in itertools.combinations order */
        int idx[N_RANKS];
        for (int i = 0; i < extra; i++)
            idx[i] = i;
        for (;;) {
            int used[N_RANKS], nu = 0, nat[N_RANKS];
            int q = 0;
            for (int i = 0; i < np; i++) {
                if (q < extra && idx[q] == i)
                    q++;
                else
                    used[nu++] = present[i];
            }
            int ok;
            if (suit < 0) {
                ok = make_mixed(g, used, nu, nat);
            } else {
                ok = 1;
                for (int i = 0; i < nu; i++)
                    nat[i] = g->suit_card[used[i]][suit];
            }
            if (ok) {
                int blo = u - nr > 0 ? u - nr : 0, bhi = u < nb ? u : nb;
                for (int b = blo; b <= bhi; b++) {
                    int k = 0;
                    for (int i = 0; i < nu; i++)
                        g->buf[k++] = nat[i];
                    for (int i = 0; i < b; i++)
                        g->buf[k++] = BJ_CODE;
                    for (int i = 0; i < u - b; i++)
                        g->buf[k++] = RJ_CODE;
                    TRY(core_emit(g, CODE(K_SEQ, lo, hi, suit < 0 ? 4 : suit, pure), k));
                }
            }
            /* next combination */
            int i = extra - 1;
            while (i >= 0 && idx[i] == i + np - extra)
                i--;
            if (i < 0)
                break;
            idx[i]++;
            for (int j = i + 1; j < extra; j++)
                idx[j] = idx[j - 1] + 1;
        }
    }
    return 0;
}

/* a window's plays have one code, or two (pure first, then impure): the steps may cut it
   short (SKIP, _core_steps.c) */
static int
one_window(Gen *g, int lo, int hi, int suit, unsigned mask, int nb, int nr, const Beat *beat)
{
    g->window = 1;
    int rc = one_window_plays(g, lo, hi, suit, mask, nb, nr, beat);
    g->window = 0;
    return rc == SKIP ? 0 : rc;
}

/* the windows lo..hi of _windows, each played out by one_window */
static int
windows(Gen *g, unsigned mask, int jokers, int need, int length, int suit, int nb, int nr,
        const Beat *beat)
{
    int top = g->seq_top;
    for (int lo = 0; lo < top - 1; lo++) {
        int hfirst, hlast;
        if (length < 0) {
            hfirst = lo + 2;
            hlast = top;
        } else {
            hfirst = hlast = lo + length - 1;
            if (hfirst > top)
                continue;
        }
        for (int hi = hfirst; hi <= hlast; hi++) {
            int L = hi - lo + 1;
            int have = popcount(mask & (((1u << (hi + 1)) - 1) & ~((1u << lo) - 1)));
            if (L - have > jokers)
                break;
            if (have < need)
                continue;
            TRY(one_window(g, lo, hi, suit, mask, nb, nr, beat));
        }
    }
    return 0;
}

/* PagatFamily._sequences; *held: the ranks 3..A held, as bits */
static int
sequences(Gen *g, int length, const Beat *beat, unsigned *held)
{
    int nb = g->n[BJ], nr = g->n[RJ];
    int jokers = nb + nr;
    int top = g->seq_top;
    unsigned any = 0, per_suit[4] = {0, 0, 0, 0};
    for (int r = 0; r <= top; r++) {
        if (g->n[r]) {
            any |= 1u << r;
            for (int s = 0; s < 4; s++)
                if (g->suit_card[r][s] >= 0)
                    per_suit[s] |= 1u << r;
        }
    }
    *held = any & 0xFFFu;
    if (!jokers && !(any & (any >> 1) & (any >> 2)))
        return 0;
    if (!beat->has || beat->v[0] == 0) {
        TRY(windows(g, any, jokers, 2, length, -1, nb, nr, beat));
    }
    for (int s = 0; s < 4; s++) {
        unsigned mask = per_suit[s];
        if (!mask || (jokers == 0 && !(mask & (mask >> 1) & (mask >> 2))) ||
            (jokers == 1 && !(mask & ((mask >> 1) | (mask >> 2)))))
            continue;
        TRY(windows(g, mask, jokers, 1, length, s, nb, nr, beat));
    }
    return 0;
}

/* ---------------------------------------------------------------- multiple sequences */

static int
multi_emit(Gen *g, Multi *w, int deficit, int zero)
{
    int pure = (deficit == 0);
    if (w->beat->has && le2(w->hi, pure, w->beat->v))
        return 0;
    int base = 0;
    for (int i = 0; i < w->m; i++)
        for (int c = 0; c < w->counts[i]; c++)
            g->buf[base++] = g->card[w->lo + i][c];
    long code = CODE(K_MSEQ, w->lo, w->hi, w->k, pure);
    if (pure)
        return core_emit(g, code, base);
    /* every way to supply the wilds with at least ``zero`` jokers (_wild_sets) */
    int ulast = w->jokers < deficit ? w->jokers : deficit;
    for (int u = zero; u <= ulast; u++) {
        int t = deficit - u;
        if (t > w->nt)
            continue;
        int blo = u - w->nr > 0 ? u - w->nr : 0, bhi = u < w->nb ? u : w->nb;
        for (int b = blo; b <= bhi; b++) {
            int k = base;
            for (int i = 0; i < t; i++)
                g->buf[k++] = g->card[TWO][i];
            for (int i = 0; i < b; i++)
                g->buf[k++] = BJ_CODE;
            for (int i = 0; i < u - b; i++)
                g->buf[k++] = RJ_CODE;
            TRY(core_emit(g, code, k));
        }
    }
    return 0;
}

static int
multi_rec(Gen *g, Multi *w, int i, int deficit, int zero)
{
    if (i == w->m)
        return multi_emit(g, w, deficit, zero);
    int nxt_def = w->rest_def[i + 1], nxt_zero = w->rest_zero[i + 1];
    for (int n = w->caps[i]; n >= w->lower[i]; n--) {
        int d = deficit + w->k - n;
        int z = zero + (n == 0);
        if (d + nxt_def > w->wild || z + nxt_zero > w->jokers)
            break;
        w->counts[i] = n;
        TRY(multi_rec(g, w, i + 1, d, z));
    }
    w->counts[i] = 0;
    return 0;
}

static int
multi_window(Gen *g, Multi *w)
{
    int m = w->m;
    for (int i = 0; i < m; i++) {
        int have = g->n[w->lo + i];
        w->caps[i] = have < w->k ? have : w->k;
        w->counts[i] = 0;
        w->lower[i] = 0;
    }
    w->rest_def[m] = 0;
    w->rest_zero[m] = 0;
    for (int i = m - 1; i >= 0; i--) {
        w->rest_def[i] = w->rest_def[i + 1] + w->k - w->caps[i];
        w->rest_zero[i] = w->rest_zero[i + 1] + (w->caps[i] == 0);
    }
    if (w->rest_def[0] > w->wild || w->rest_zero[0] > w->jokers)
        return 0;
    if (core_steps_filtering()) {
        /* the plays of a chosen group holding the picked cards: counted without making
           them, and made (only those) when they are few */
        int pure_ok = core_steps_wants(CODE(K_MSEQ, w->lo, w->hi, w->k, 1)) &&
                      !(w->beat->has && le2(w->hi, 1, w->beat->v));
        int impure_ok = core_steps_wants(CODE(K_MSEQ, w->lo, w->hi, w->k, 0)) &&
                        !(w->beat->has && le2(w->hi, 0, w->beat->v));
        if (!pure_ok && !impure_ok)
            return 0;
        if (core_multi_counted(g, w, pure_ok, impure_ok))
            return 0;                     /* too many to make: counted */
    }
    /* pure first (every count at its cap), then impure: the steps may cut it short */
    g->window = 1;
    int rc = multi_rec(g, w, 0, 0, 0);
    g->window = 0;
    return rc == SKIP ? 0 : rc;
}

/* PagatFamily._multi and _multi_windows: shape_m 0 = any shape (leading); held: the ranks
   3..A held as bits, or -1 when not known */
static int
multi(Gen *g, int shape_m, int shape_k, const Beat *beat, long held)
{
    Multi w;
    w.nt = g->n[TWO];
    w.nb = g->n[BJ];
    w.nr = g->n[RJ];
    w.wild = w.nt + w.nb + w.nr;
    w.jokers = w.nb + w.nr;
    w.beat = beat;
    if (held >= 0 && ((w.jokers == 0 && !(held & (held >> 1) & (held >> 2))) ||
                      (w.jokers == 1 && !(held & ((held >> 1) | (held >> 2))))))
        return 0;
    int zpre[13];
    zpre[0] = 0;
    int maxhave = 0;
    for (int r = 0; r < 12; r++) {
        zpre[r + 1] = zpre[r] + (g->n[r] == 0);
        if (g->n[r] > maxhave)
            maxhave = g->n[r];
    }
    int kfirst, klast;
    if (shape_m == 0) {
        kfirst = 2;
        klast = maxhave + w.wild;
    } else {
        kfirst = klast = shape_k;
    }
    for (int k = kfirst; k <= klast; k++) {
        int dpre[13];
        dpre[0] = 0;
        for (int r = 0; r < 12; r++)
            dpre[r + 1] = dpre[r] + (g->n[r] < k ? k - g->n[r] : 0);
        int feasible = 0;
        for (int lo = 0; lo < 10; lo++) {
            int mfirst = shape_m ? shape_m : 3, mlast = shape_m ? shape_m : 12 - lo;
            for (int m = mfirst; m <= mlast; m++) {
                int hi = lo + m - 1;
                if (hi > ACE)
                    break;
                if (zpre[hi + 1] - zpre[lo] > w.jokers)
                    break;
                if (dpre[hi + 1] - dpre[lo] > w.wild) {
                    if (shape_m == 0)
                        break;
                    continue;
                }
                feasible = 1;
                if (beat->has && le2(hi, 1, beat->v))
                    continue;
                w.lo = lo;
                w.hi = hi;
                w.k = k;
                w.m = m;
                TRY(multi_window(g, &w));
            }
        }
        if (!feasible && shape_m == 0)
            break;
    }
    return 0;
}

/* ------------------------------------------------------------------------- entry */
void
gen_from_counts(Gen *g, const unsigned char *count, int seq_top)
{
    int size = 0;
    g->seq_top = seq_top;
    g->window = 0;
    memset(g->n, 0, sizeof g->n);
    memset(g->suit_card, 0xff, sizeof g->suit_card);       /* every entry -1 */
    for (int c = 0; c < BJ_CODE; c++) {
        int k = count[c];
        if (!k)
            continue;
        int r = c >> 2;
        g->suit_card[r][c & 3] = c;
        for (int i = 0; i < k; i++)
            g->card[r][g->n[r]++] = c;
        size += k;
    }
    for (int i = 0; i < count[BJ_CODE]; i++)
        g->card[BJ][g->n[BJ]++] = BJ_CODE;
    for (int i = 0; i < count[RJ_CODE]; i++)
        g->card[RJ][g->n[RJ]++] = RJ_CODE;
    g->size = size + count[BJ_CODE] + count[RJ_CODE];
}

/* gen_from_counts for a hand of one pack given as a set (bit c: card code c held): the same
   tables, walking the cards held instead of the 54 counts (the batch engine's hands) */
void
gen_from_set(Gen *g, unsigned long long hand, int seq_top)
{
    g->seq_top = seq_top;
    g->window = 0;
    memset(g->n, 0, sizeof g->n);
    memset(g->suit_card, 0xff, sizeof g->suit_card);       /* every entry -1 */
    g->size = __builtin_popcountll(hand);
    while (hand) {
        int c = __builtin_ctzll(hand);
        hand &= hand - 1;
        int r = c < BJ_CODE ? c >> 2 : (c == BJ_CODE ? BJ : RJ);
        if (c < BJ_CODE)
            g->suit_card[r][c & 3] = c;
        g->card[r][g->n[r]++] = c;
    }
}

/* what following a play of this code needs to beat */
void
prev_of_code(long code, Prev *p)
{
    int f1 = CODE_F1(code), f2 = CODE_F2(code), f3 = CODE_F3(code), pure = CODE_PURE(code);
    p->kind = CODE_KIND(code);
    p->a = p->b = p->c = p->d = 0;
    switch (p->kind) {
    case K_SINGLE:
        p->a = f1;
        break;
    case K_SET:
        p->a = f3;
        p->b = f1;
        p->c = pure;
        break;
    case K_SEQ:
        p->a = f2 - f1 + 1;
        p->b = f3 != 4;
        p->c = f2;
        p->d = pure;
        break;
    default:
        p->a = f2 - f1 + 1;
        p->b = f3;
        p->c = f2;
        p->d = pure;
    }
}

/* the plays of the hand read into g (gen_from_counts, gen_from_set) that beat ``prev``
   (kind -1: the leads) into ``sink``, emptied first (``first``: see Sink) */
int
pagat_generate_into(Gen *g, Sink *sink, const Prev *prev, int first)
{
    sink->n = 0;
    sink->pool_n = 0;
    sink->first = first;
    g->out = NULL;
    g->sink = sink;
    return pagat_generate(g, prev);
}

/* PagatFamily.leads (prev->kind -1) or .follows */
int
pagat_generate(Gen *g, const Prev *prev)
{
    Beat none = {0, {0, 0, 0}};
    unsigned held = 0;
    int a = prev->a, b = prev->b, c = prev->c, d = prev->d;
    switch (prev->kind) {
    case -1:
        TRY(singles(g, -1));
        if (g->size >= 2)
            TRY(sets(g, -1, &none));
        if (g->size >= 3) {
            TRY(sequences(g, -1, &none, &held));
            if (g->size >= 6)
                TRY(multi(g, 0, 0, &none, (long)held));
        }
        break;
    case K_SINGLE:
        TRY(singles(g, a));
        break;
    case K_SET: {
        Beat beat = {1, {b, c, 0}};
        if (a >= 2)
            TRY(sets(g, a, &beat));
        break;
    }
    case K_SEQ: {
        Beat beat = {1, {b, c, d}};
        if (a >= 3)
            TRY(sequences(g, a, &beat, &held));
        break;
    }
    case K_MSEQ: {
        Beat beat = {1, {c, d, 0}};
        if (a >= 3 && b >= 2)
            TRY(multi(g, a, b, &beat, -1));
        break;
    }
    }
    return 0;
}
