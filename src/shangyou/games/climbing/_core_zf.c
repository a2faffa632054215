/* The legal plays of Zheng Fen (ZhengFenFamily in games/zheng_fen/family.py), in C: the same
   plays, with the same cards, in the same order as its Python code, which stays the reference
   (tests/test_core_differential.py). Each function names the Python function it follows.
   Zheng Fen is played with one pack: a hand holding a card twice is refused (ValueError; the
   Python code answers it).

   zf_plays(hand, kind, b0, b1[, meta, meta_cache]) -> list of (code, cards) or of Combos
       kind -1: the leads; else the follows of a play of that kind (ZK_* below) whose key is
       (b0,) or (b0, b1). A play's code: kind | f1 << 4 | f2 << 8 | f3 << 12, f1 the rank
       (single, set, full house), the top rank (sequences) or the level (special), f2 the
       lowest rank (sequences), f3 the suit (suit sequence); core.py reads it back. */

#include "_core.h"

#define TRY(x) do { int rc_ = (x); if (rc_) return rc_; } while (0)

#define ZK_SINGLE 0
#define ZK_PAIR 1          /* ZK_PAIR + k - 2: pair, triple, quartet */
#define ZK_SEQ2 4          /* ZK_SEQ2 + k - 2: sequences of pairs, triples, quartets */
#define ZK_FULL 7
#define ZK_SUIT_SEQ 8
#define ZK_SPECIAL 9
#define ZCODE(kind, f1, f2, f3) \
    ((long)(kind) | ((long)(f1) << 4) | ((long)(f2) << 8) | ((long)(f3) << 12))
#define FIVE 2
#define TEN 7
#define KING 10

typedef struct {
    Gen *g;
    int nat_n[13], nat[13][4];
    int suit_card[4][13];        /* -1: none */
    int jokers[2], nj;           /* the jokers held, in card order */
    int cards[N_CARDS], ncards;  /* the hand, in card order */
} Zf;

/* _joker_uses: the ways to use u of the jokers held, in order */
static int
joker_uses(const Zf *h, int u, int out[][2])
{
    if (u == 0)
        return 1;
    if (u == 1) {
        for (int i = 0; i < h->nj; i++)
            out[i][0] = h->jokers[i];
        return h->nj;
    }
    if (u == 2 && h->nj == 2) {
        out[0][0] = h->jokers[0];
        out[0][1] = h->jokers[1];
        return 1;
    }
    return 0;
}

static int
emit_with_jokers(Zf *h, long code, int n, int u)
{
    int uses[2][2];
    int nu = joker_uses(h, u, uses);
    for (int x = 0; x < nu; x++) {
        for (int i = 0; i < u; i++)
            h->g->buf[n + i] = uses[x][i];
        TRY(core_emit(h->g, code, n + u));
    }
    return 0;
}

static int
singles(Zf *h, int above)
{
    for (int r = above + 1; r < 13; r++) {
        if (r >= 0 && h->nat_n[r]) {
            h->g->buf[0] = h->nat[r][0];
            TRY(core_emit(h->g, ZCODE(ZK_SINGLE, r, 0, 0), 1));
        }
    }
    for (int i = 0; i < h->nj; i++) {
        int r = h->jokers[i] == BJ_CODE ? BJ : RJ;
        if (r > above) {
            h->g->buf[0] = h->jokers[i];
            TRY(core_emit(h->g, ZCODE(ZK_SINGLE, r, 0, 0), 1));
        }
    }
    return 0;
}

/* _sets: pairs, triples, quartets of rank >= lo */
static int
sets(Zf *h, int k, int lo)
{
    int nu = h->nj + 1;
    for (int r = lo > 0 ? lo : 0; r < 13; r++) {
        int have = h->nat_n[r];
        if (!have || have + nu - 1 < k)
            continue;
        for (int n = have < k ? have : k; n > 0; n--) {
            int j = k - n;
            if (j >= nu)
                break;
            for (int i = 0; i < n; i++)
                h->g->buf[i] = h->nat[r][i];
            TRY(emit_with_jokers(h, ZCODE(ZK_PAIR + k - 2, r, 0, 0), n, j));
        }
    }
    return 0;
}

static int
seq_emit(Zf *h, int lo, int hi, const int *caps, const int *drop, long code, int u)
{
    int n = 0;
    for (int r = lo; r <= hi; r++)
        for (int i = 0; i < caps[r - lo] - drop[r - lo]; i++)
            h->g->buf[n++] = h->nat[r][i];
    if (!n)
        return 0;
    return emit_with_jokers(h, code, n, u);
}

/* _set_sequences: 3+ pairs / triples / quartets; key (top rank, length) > (b0, b1) */
static int
set_sequences(Zf *h, int k, int has_beat, int b0, int b1)
{
    int nj = h->nj;
    for (int lo = 0; lo < 11; lo++) {
        int deficit = 0;
        for (int hi = lo; hi < 13; hi++) {
            deficit += h->nat_n[hi] < k ? k - h->nat_n[hi] : 0;
            if (deficit > nj)
                break;
            int m = hi - lo + 1;
            if (m < 3)
                continue;
            if (has_beat && (hi < b0 || (hi == b0 && m <= b1)))
                continue;
            int caps[13], drop[13];
            for (int r = lo; r <= hi; r++)
                caps[r - lo] = h->nat_n[r] < k ? h->nat_n[r] : k;
            long code = ZCODE(ZK_SEQ2 + k - 2, hi, lo, 0);
            for (int extra = 0; extra <= nj - deficit; extra++) {
                int u = deficit + extra;
                memset(drop, 0, sizeof drop);
                if (extra == 0) {
                    TRY(seq_emit(h, lo, hi, caps, drop, code, u));
                } else if (extra == 1) {
                    for (int i = 0; i < m; i++) {
                        if (caps[i]) {
                            drop[i] = 1;
                            TRY(seq_emit(h, lo, hi, caps, drop, code, u));
                            drop[i] = 0;
                        }
                    }
                } else {                       /* extra == 2: one pack has two jokers */
                    for (int i = 0; i < m; i++) {
                        if (caps[i] >= 2) {
                            drop[i] = 2;
                            TRY(seq_emit(h, lo, hi, caps, drop, code, u));
                            drop[i] = 0;
                        }
                        for (int i2 = i + 1; i2 < m; i2++) {
                            if (caps[i] && caps[i2]) {
                                drop[i] = drop[i2] = 1;
                                TRY(seq_emit(h, lo, hi, caps, drop, code, u));
                                drop[i] = drop[i2] = 0;
                            }
                        }
                    }
                }
            }
        }
    }
    return 0;
}

/* _suit_sequences: 5+ cards of one suit in a row; key (top rank, length) > (b0, b1) */
static int
suit_sequences(Zf *h, int has_beat, int b0, int b1)
{
    int nj = h->nj;
    for (int s = 0; s < 4; s++) {
        const int *row = h->suit_card[s];
        for (int lo = 0; lo < 9; lo++) {
            int missing = 0, np = 0, present[13];
            for (int hi = lo; hi < 13; hi++) {
                if (row[hi] < 0) {
                    if (++missing > nj)
                        break;
                } else {
                    present[np++] = hi;
                }
                int L = hi - lo + 1;
                if (L < 5 || !np)
                    continue;
                if (has_beat && (hi < b0 || (hi == b0 && L <= b1)))
                    continue;
                long code = ZCODE(ZK_SUIT_SEQ, hi, lo, s);
                for (int extra = 0; extra <= nj - missing; extra++) {
                    if (extra >= np)
                        break;
                    /* combinations(present, extra), extra <= 2 */
                    int a = -1, b = -1;
                    for (;;) {
                        if (extra == 1) {
                            if (++a >= np)
                                break;
                        } else if (extra == 2) {
                            if (a < 0) {
                                a = 0;
                                b = 1;
                            } else if (++b >= np) {
                                a++;
                                b = a + 1;
                            }
                            if (b >= np)
                                break;
                        }
                        int n = 0;
                        for (int i = 0; i < np; i++)
                            if (i != a && i != b)
                                h->g->buf[n++] = row[present[i]];
                        TRY(emit_with_jokers(h, code, n, missing + extra));
                        if (extra == 0)
                            break;
                    }
                }
            }
        }
    }
    return 0;
}

/* _kickers: every distinct pair of extra cards, marked in a 54 x 54 table (all clear on
   entry; both cards of a pair are cards of the hand, the lower first) */
static void
kickers(const Zf *h, int rest_n[13], int rest[13][4], const int *left, int nleft,
        unsigned char found[N_CARDS][N_CARDS])
{
    int ranks[13], nr = 0;
    for (int r = 0; r < 13; r++)
        if (rest_n[r])
            ranks[nr++] = r;
    for (int i = 0; i < nr; i++) {
        int ra = ranks[i];
        const int *ca = rest[ra];
        if (rest_n[ra] >= 2)
            found[ca[0]][ca[1]] = 1;                     /* a pair */
        for (int q = i + 1; q < nr; q++) {
            int rb = ranks[q];
            const int *cb = rest[rb];
            int ca_count = (ra == FIVE || ra == TEN || ra == KING);
            int cb_count = (rb == FIVE || rb == TEN || rb == KING);
            if (ra == 0 || (ca_count && cb_count)) {
                found[ca[0]][cb[0]] = 1;                 /* by rank alone */
            } else if (rb == ra + 1) {
                for (int x = 0; x < rest_n[ra]; x++)     /* neighbours of one suit */
                    for (int y = 0; y < rest_n[rb]; y++)
                        if ((ca[x] & 3) == (cb[y] & 3))
                            found[ca[x]][cb[y]] = 1;
            }
        }
    }
    for (int j = 0; j < nleft; j++)                      /* a joker and any card */
        for (int i = 0; i < nr; i++)
            found[rest[ranks[i]][0]][left[j]] = 1;
    if (nleft == 2)
        found[left[0]][left[1]] = 1;
}

/* a set of five-card plays, to skip repeats (the Python ``seen``) */
typedef struct {
    uint32_t *slot;
    size_t cap, n;
} Seen;

static int
seen_add(Seen *s, uint32_t key)      /* 1 when new, 0 when seen, -1 on no memory */
{
    if (2 * (s->n + 1) > s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        uint32_t *slot = PyMem_Calloc(cap, sizeof(uint32_t));
        if (slot == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        for (size_t i = 0; i < s->cap; i++) {
            uint32_t k = s->slot[i];
            if (k) {
                size_t j = (k * 2654435761u) & (cap - 1);
                while (slot[j])
                    j = (j + 1) & (cap - 1);
                slot[j] = k;
            }
        }
        PyMem_Free(s->slot);
        s->slot = slot;
        s->cap = cap;
    }
    size_t j = (key * 2654435761u) & (s->cap - 1);
    while (s->slot[j]) {
        if (s->slot[j] == key)
            return 0;
        j = (j + 1) & (s->cap - 1);
    }
    s->slot[j] = key;
    s->n++;
    return 1;
}

static void
sort5(int *c)
{
    for (int i = 1; i < 5; i++)
        for (int j = i; j > 0 && c[j - 1] > c[j]; j--) {
            int t = c[j];
            c[j] = c[j - 1];
            c[j - 1] = t;
        }
}

/* _full_houses: a triple (jokers allowed) and two more cards; triple rank >= lo */
static int
full_houses(Zf *h, int lo, unsigned char found[N_CARDS][N_CARDS])
{
    int nu = h->nj + 1;
    for (int t = lo > 0 ? lo : 0; t < 13; t++) {
        int have = h->nat_n[t];
        if (!have || have + nu - 1 < 3)
            continue;
        Seen seen = {NULL, 0, 0};
        for (int n = have < 3 ? have : 3; n > 0; n--) {
            int j = 3 - n;
            if (j >= nu)
                break;
            int rest_n[13], rest[13][4];
            memcpy(rest_n, h->nat_n, sizeof rest_n);
            memcpy(rest, h->nat, sizeof rest);
            rest_n[t] = have - n;
            for (int i = 0; i < rest_n[t]; i++)
                rest[t][i] = h->nat[t][n + i];
            int uses[2][2];
            int nuses = joker_uses(h, j, uses);
            for (int x = 0; x < nuses; x++) {
                int left[2], nleft = 0, triple[3];
                for (int i = 0; i < h->nj; i++) {
                    int used = 0;
                    for (int q = 0; q < j; q++)
                        used |= uses[x][q] == h->jokers[i];
                    if (!used)
                        left[nleft++] = h->jokers[i];
                }
                for (int i = 0; i < n; i++)
                    triple[i] = h->nat[t][i];
                for (int i = 0; i < j; i++)
                    triple[n + i] = uses[x][i];
                kickers(h, rest_n, rest, left, nleft, found);
                /* sorted(found): the hand's cards in order, each pair once */
                for (int ia = 0; ia < h->ncards; ia++) {
                    int a = h->cards[ia];
                    for (int ib = ia + 1; ib < h->ncards; ib++) {
                        int b = h->cards[ib];
                        if (!found[a][b])
                            continue;
                        found[a][b] = 0;
                        int c[5] = {triple[0], triple[1], triple[2], a, b};
                        sort5(c);
                        uint32_t key = 1;           /* never 0: 0 marks an empty slot */
                        for (int i = 0; i < 5; i++)
                            key = key * 54 + (uint32_t)c[i];
                        int fresh = seen_add(&seen, key);
                        if (fresh < 0) {
                            PyMem_Free(seen.slot);
                            return -1;
                        }
                        if (!fresh)
                            continue;
                        memcpy(h->g->buf, c, sizeof c);
                        int rc = core_emit(h->g, ZCODE(ZK_FULL, t, 0, 0), 5);
                        if (rc) {
                            PyMem_Free(seen.slot);
                            return rc;
                        }
                    }
                }
            }
        }
        PyMem_Free(seen.slot);
    }
    return 0;
}

/* _specials: 5-10-K mixed (0) < 5-10-K in one suit (1) < four 2s (2), above ``above`` */
static int
specials(Zf *h, int above)
{
    int *buf = h->g->buf;
    if (above < 1 && h->nat_n[FIVE] && h->nat_n[TEN] && h->nat_n[KING]) {
        if (above < 0) {                              /* _mixed_5_10_k */
            int done = 0;
            for (int a = 0; a < h->nat_n[FIVE] && !done; a++)
                for (int b = 0; b < h->nat_n[TEN] && !done; b++)
                    for (int c = 0; c < h->nat_n[KING] && !done; c++) {
                        int x = h->nat[FIVE][a], y = h->nat[TEN][b], z = h->nat[KING][c];
                        if (!((x & 3) == (y & 3) && (y & 3) == (z & 3))) {
                            buf[0] = x;
                            buf[1] = y;
                            buf[2] = z;
                            done = 1;
                        }
                    }
            if (done)
                TRY(core_emit(h->g, ZCODE(ZK_SPECIAL, 0, 0, 0), 3));
        }
        for (int s = 0; s < 4; s++) {
            if (h->suit_card[s][FIVE] >= 0 && h->suit_card[s][TEN] >= 0 &&
                h->suit_card[s][KING] >= 0) {
                buf[0] = h->suit_card[s][FIVE];
                buf[1] = h->suit_card[s][TEN];
                buf[2] = h->suit_card[s][KING];
                TRY(core_emit(h->g, ZCODE(ZK_SPECIAL, 1, 0, 0), 3));
            }
        }
    }
    if (above < 2 && h->nat_n[TWO] == 4) {
        for (int i = 0; i < 4; i++)
            buf[i] = h->nat[TWO][i];
        TRY(core_emit(h->g, ZCODE(ZK_SPECIAL, 2, 0, 0), 4));
    }
    return 0;
}

/* ZhengFenFamily.leads (kind -1) and .follows; ``found`` (only full_houses reads it) is
   zeroed where full houses are listed (2.9 KB: zeroing it for every listing cost more than
   most follows) */
#define FOUND_SIZE ((size_t)N_CARDS * N_CARDS)
static int
zf_generate(Zf *h, int kind, int b0, int b1, unsigned char found[N_CARDS][N_CARDS])
{
    if (kind < 0) {
        TRY(singles(h, -1));
        for (int k = 2; k <= 4; k++)
            TRY(sets(h, k, 0));
        for (int k = 2; k <= 4; k++)
            TRY(set_sequences(h, k, 0, 0, 0));
        memset(found, 0, FOUND_SIZE);
        TRY(full_houses(h, 0, found));
        TRY(suit_sequences(h, 0, 0, 0));
        return specials(h, -1);
    }
    if (kind == ZK_SPECIAL)
        return specials(h, b0);
    if (kind == ZK_SINGLE)
        TRY(singles(h, b0));
    else if (kind >= ZK_PAIR && kind < ZK_SEQ2)
        TRY(sets(h, kind - ZK_PAIR + 2, b0 + 1));
    else if (kind >= ZK_SEQ2 && kind < ZK_FULL)
        TRY(set_sequences(h, kind - ZK_SEQ2 + 2, 1, b0, b1));
    else if (kind == ZK_FULL) {
        memset(found, 0, FOUND_SIZE);
        TRY(full_houses(h, b0 + 1, found));
    }
    else if (kind == ZK_SUIT_SEQ)
        TRY(suit_sequences(h, 1, b0, b1));
    return specials(h, -1);
}

/* the play to beat as zf_plays describes it (kind, b0, b1), as core.py's _zf_prev reads it
   from a Combo: 1, or 0 for a play it does not describe */
static const char *ZF_CLS[] = {"single", "pair", "triple", "quartet", "pairs", "triples",
                               "quartets", "full house", "suit sequence", "special"};

int
core_zf_prev(PyObject *prev, long *d)
{
    PyObject *cls, *key, *tier;
    if (!core_combo_fields(prev, &cls, &key, &tier) || PyTuple_GET_SIZE(cls) != 1)
        return 0;
    int kind = core_name_index(PyTuple_GET_ITEM(cls, 0), ZF_CLS, 10);
    if (kind < 0)
        return 0;
    Py_ssize_t nk = PyTuple_GET_SIZE(key);
    int two = kind == 4 || kind == 5 || kind == 6 || kind == 8;
    if (nk != (two ? 2 : 1))
        return 0;
    long b0, b1 = 0;
    if (!core_small_int(PyTuple_GET_ITEM(key, 0), &b0) ||
        (two && !core_small_int(PyTuple_GET_ITEM(key, 1), &b1)) ||
        b0 < -1 || b0 > 14 || b1 < 0 || b1 > 13)
        return 0;
    d[0] = kind;
    d[1] = b0;
    d[2] = b1;
    return 1;
}

PyObject *
core_zf_plays(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 4) {
        PyErr_SetString(PyExc_TypeError, "zf_plays() takes 4, 6 or 8 arguments");
        return NULL;
    }
    long v[3];
    for (int i = 0; i < 3; i++) {
        v[i] = PyLong_AsLong(args[i + 1]);
        if (v[i] == -1 && PyErr_Occurred())
            return NULL;
    }
    Gen gen;
    if (core_gen_output(&gen, args, nargs, 4, 0) < 0)
        return NULL;
    return core_zf_run(args[0], v, &gen);
}

/* the plays of ``hand`` for the description d (kind, b0, b1) into g's output */
/* the Zheng Fen plays of a hand of one pack (counts) for the description (kind, b0, b1;
   kind -1: the leads) into g's output, the tables on the stack: 0, STOP or -1 (an exception
   only when the output is a Python object: a sink's output calls no Python, the batch engine
   uses it so) */
int
core_zf_generate(const unsigned char *count, int kind, int b0, int b1, Gen *g)
{
    Zf h;
    memset(&h, 0, sizeof h);
    memset(h.suit_card, -1, sizeof h.suit_card);
    for (int c = 0; c < BJ_CODE; c++) {
        if (count[c]) {
            h.nat[c >> 2][h.nat_n[c >> 2]++] = c;
            h.suit_card[c & 3][c >> 2] = c;
        }
    }
    for (int c = BJ_CODE; c <= RJ_CODE; c++)
        if (count[c])
            h.jokers[h.nj++] = c;
    for (int c = 0; c < N_CARDS; c++)
        if (count[c])
            h.cards[h.ncards++] = c;
    unsigned char found[N_CARDS][N_CARDS];      /* zeroed where used (zf_generate) */
    h.g = g;
    return zf_generate(&h, kind, b0, b1, found);
}

PyObject *
core_zf_run(PyObject *hand, const long *v, Gen *g)
{
    if (v[0] < -1 || v[0] > ZK_SPECIAL || v[1] < -1 || v[1] > 14 || v[2] < 0 || v[2] > 13) {
        PyErr_SetString(PyExc_ValueError, "play description out of range");
        return NULL;
    }
    unsigned char count[N_CARDS];
    if (core_read_hand(hand, count, 1) < 0)
        return NULL;
    PyObject *out = core_gen_start(g, v[0] >= 0);
    if (out != NULL && core_zf_generate(count, (int)v[0], (int)v[1], (int)v[2], g) < 0)
        Py_CLEAR(out);
    Py_XDECREF(g->code_obj);
    return out;
}
