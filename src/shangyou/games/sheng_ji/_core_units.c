/* Units, tricks and throws of Sheng ji in C. Python references: order.decompose,
   tricks.match_format / primary_top / trick_winner / throw_check, game.lead_units and
   ShengJiGame._lead_units' order. Plays are card counts (the Python code sorts them). */

#include "_core.h"

/* ------------------------------------------------------------------ decompose */
/* order.decompose: the units of cards of one effective suit, largest first; their number */
int
sj_decompose(const Ctx *t, const int *cnt, SUnit *units)
{
    int gc[NCARD], G = 0;
    for (int b = 0; b < NCARD; b += 6) {    /* six at a time: a play's counts are mostly 0 */
        if (!(cnt[b] | cnt[b + 1] | cnt[b + 2] | cnt[b + 3] | cnt[b + 4] | cnt[b + 5]))
            continue;
        for (int c = b; c < b + 6; c++)
            if (cnt[c])
                gc[G++] = c;
    }
    /* groups: (position, card) descending */
    for (int i = 1; i < G; i++) {
        int x = gc[i], j = i - 1;
        while (j >= 0 && (t->pos[gc[j]] < t->pos[x] ||
                          (t->pos[gc[j]] == t->pos[x] && gc[j] < x))) {
            gc[j + 1] = gc[j];
            j--;
        }
        gc[j + 1] = x;
    }
    char used[NCARD] = {0};
    SUnit tmp[MAXU];
    int nu = 0;
    for (int i = 0; i < G; i++) {
        int n = cnt[gc[i]];
        if (used[i] || n < 2)
            continue;
        int run[NCARD], rl = 1, p = t->pos[gc[i]] - 1;
        run[0] = i;
        for (;;) {
            int found = -1;
            for (int j = 0; j < G; j++)
                if (t->pos[gc[j]] == p && cnt[gc[j]] == n && !used[j]) {
                    found = j;
                    break;
                }
            if (found < 0)
                break;
            run[rl++] = found;
            p--;
        }
        if (rl < 2)
            continue;
        if (nu == MAXU)
            return -1;
        SUnit *u = &tmp[nu++];
        u->width = n;
        u->length = rl;
        u->top = t->pos[gc[i]];
        int sel[NCARD] = {0};
        for (int k = 0; k < rl; k++) {
            used[run[k]] = 1;
            sel[gc[run[k]]] = 1;
        }
        u->n = 0;
        for (int c = 0; c < NCARD; c++)
            if (sel[c])
                for (int k = 0; k < n; k++)
                    u->cards[u->n++] = (unsigned char)c;
    }
    for (int i = 0; i < G; i++) {
        if (used[i])
            continue;
        if (nu == MAXU)
            return -1;
        SUnit *u = &tmp[nu++];
        u->width = cnt[gc[i]];
        u->length = 1;
        u->top = t->pos[gc[i]];
        u->n = u->width;
        for (int k = 0; k < u->n; k++)
            u->cards[k] = (unsigned char)gc[i];
    }
    /* stable, by (size, width, top) descending */
    int idx[MAXU];
    for (int i = 0; i < nu; i++) {
        int j = i - 1;
        while (j >= 0) {
            const SUnit *a = &tmp[idx[j]], *b = &tmp[i];
            int sa = a->width * a->length, sb = b->width * b->length;
            if (sa > sb || (sa == sb && (a->width > b->width ||
                                         (a->width == b->width && a->top >= b->top))))
                break;
            idx[j + 1] = idx[j];
            j--;
        }
        idx[j + 1] = i;
    }
    for (int i = 0; i < nu; i++)
        units[i] = tmp[idx[i]];
    return nu;
}

/* --------------------------------------------------------------- match_format */
typedef struct {
    int top, suit;
    unsigned char ids[20];
} Cand;

typedef struct {
    const Ctx *t;
    const SUnit *units;
    const int *multi;
    int nm;
    int counts[NCARD];
    const int *full;
    Cand *cands[MAXU];         /* per multi unit kind (index of the first multi of the kind) */
    int ncands[MAXU];
    int *tops;
    long steps;
} Match;

static int
cand_cmp(const Cand *a, const Cand *b, int l)
{
    if (a->top != b->top)
        return a->top > b->top ? -1 : 1;
    if (a->suit != b->suit)
        return a->suit > b->suit ? -1 : 1;
    for (int i = 0; i < l; i++)
        if (a->ids[i] != b->ids[i])
            return a->ids[i] > b->ids[i] ? -1 : 1;
    return 0;
}

/* tricks._candidates(full, w, l), highest first: a new array (its size in *out_n) */
static Cand *
candidates(const Ctx *t, const int *full, int w, int l, int *out_n)
{
    /* at[suit][pos]: identities with >= w copies, descending */
    unsigned char at[5][17][NCARD];
    int nat[5][17];
    memset(nat, 0, sizeof nat);
    for (int c = NCARD - 1; c >= 0; c--)
        if (full[c] >= w) {
            int s = t->eff[c], p = t->pos[c];
            at[s][p][nat[s][p]++] = (unsigned char)c;
        }
    int cap = 64, n = 0;
    Cand *out = PyMem_RawMalloc(sizeof(Cand) * (size_t)cap);
    if (out == NULL || l > 17)
        goto fail;
    for (int s = 0; s < 5; s++)
        for (int top = 0; top < 17; top++) {
            if (!nat[s][top] || top - l + 1 < 0)
                continue;
            int ok = 1;
            long total = 1;
            for (int p = top; p > top - l; p--) {
                if (!nat[s][p]) {
                    ok = 0;
                    break;
                }
                total *= nat[s][p];
            }
            if (!ok)
                continue;
            if (total > 100000)
                goto fail;
            int idx[17] = {0};
            for (long k = 0; k < total; k++) {
                if (n == cap) {
                    cap *= 2;
                    Cand *o = PyMem_RawRealloc(out, sizeof(Cand) * (size_t)cap);
                    if (o == NULL)
                        goto fail;
                    out = o;
                }
                Cand *cd = &out[n++];
                cd->top = top;
                cd->suit = s;
                for (int i = 0; i < l; i++)
                    cd->ids[i] = at[s][top - i][idx[i]];
                for (int i = l - 1; i >= 0; i--) {     /* odometer */
                    if (++idx[i] < nat[s][top - i])
                        break;
                    idx[i] = 0;
                }
            }
        }
    /* insertion sort, highest first */
    for (int i = 1; i < n; i++) {
        Cand x = out[i];
        int j = i - 1;
        while (j >= 0 && cand_cmp(&out[j], &x, l) > 0) {
            out[j + 1] = out[j];
            j--;
        }
        out[j + 1] = x;
    }
    *out_n = n;
    return out;
fail:
    PyMem_RawFree(out);
    return NULL;
}

/* 1 found, 0 not, -1 gave up */
static int
search(Match *m, int k, int start)
{
    if (k == m->nm)
        return 1;
    if (++m->steps > 200000)
        return -1;
    const SUnit *u = &m->units[m->multi[k]];
    int w = u->width, l = u->length;
    int kind = k;
    for (int i = 0; i < k; i++)
        if (m->units[m->multi[i]].width == w && m->units[m->multi[i]].length == l) {
            kind = i;
            break;
        }
    if (m->cands[kind] == NULL) {
        m->cands[kind] = candidates(m->t, m->full, w, l, &m->ncands[kind]);
        if (m->cands[kind] == NULL)
            return -1;
    }
    const Cand *lst = m->cands[kind];
    int same = k + 1 < m->nm && m->units[m->multi[k + 1]].width == w &&
               m->units[m->multi[k + 1]].length == l;
    for (int j = start; j < m->ncands[kind]; j++) {
        const Cand *cd = &lst[j];
        int ok = 1;
        for (int i = 0; i < l; i++)
            if (m->counts[cd->ids[i]] < w)
                ok = 0;
        if (!ok)
            continue;
        for (int i = 0; i < l; i++)
            m->counts[cd->ids[i]] -= w;
        int r = search(m, k + 1, same ? j : 0);
        if (r < 0)
            return -1;
        if (r) {
            m->tops[m->multi[k]] = cd->top;
            return 1;
        }
        for (int i = 0; i < l; i++)
            m->counts[cd->ids[i]] += w;
    }
    return 0;
}

/* tricks.match_format: the tops of the matched units (one per lead unit) in ``tops``;
   1 matched, 0 no match, -1 gave up (the Python code decides) */
int
sj_match_tops(const Ctx *t, const SUnit *units, int nu, const int *cnt, int *tops)
{
    int total = 0, size = 0;
    for (int c = 0; c < NCARD; c++)
        total += cnt[c];
    for (int i = 0; i < nu; i++)
        size += units[i].width * units[i].length;
    if (size != total)
        return 0;
    int order[MAXU], multi[MAXU], singles[MAXU], nm = 0, ns = 0;
    for (int i = 0; i < nu; i++) {         /* stable, (size, width, length) descending */
        int j = i - 1;
        const SUnit *b = &units[i];
        while (j >= 0) {
            const SUnit *a = &units[order[j]];
            int sa = a->width * a->length, sb = b->width * b->length;
            if (sa > sb || (sa == sb && (a->width > b->width ||
                                         (a->width == b->width && a->length >= b->length))))
                break;
            order[j + 1] = order[j];
            j--;
        }
        order[j + 1] = i;
    }
    for (int i = 0; i < nu; i++) {
        if (units[order[i]].width >= 2)
            multi[nm++] = order[i];
        else
            singles[ns++] = order[i];
    }
    Match m;
    memset(&m, 0, sizeof m);
    m.t = t;
    m.units = units;
    m.multi = multi;
    m.nm = nm;
    memcpy(m.counts, cnt, sizeof m.counts);
    m.full = cnt;
    m.tops = tops;
    int r = search(&m, 0, 0);
    for (int i = 0; i < MAXU; i++)
        PyMem_RawFree(m.cands[i]);
    if (r != 1)
        return r;
    /* the singles take the rest, highest (position, suit, card) first */
    int rest[MAXH], nr = 0;
    for (int c = 0; c < NCARD; c++)
        for (int k = 0; k < m.counts[c] && nr < MAXH; k++)
            rest[nr++] = c;
    for (int i = 1; i < nr; i++) {
        int x = rest[i], j = i - 1;
        while (j >= 0) {
            int y = rest[j];
            int gt = t->pos[x] != t->pos[y] ? t->pos[x] > t->pos[y] :
                     t->eff[x] != t->eff[y] ? t->eff[x] > t->eff[y] : x > y;
            if (!gt)
                break;
            rest[j + 1] = y;
            j--;
        }
        rest[j + 1] = x;
    }
    for (int i = 0; i < ns && i < nr; i++)
        tops[singles[i]] = t->pos[rest[i]];
    return 1;
}

/* --------------------------------------------------------------- trick_winner */
static int
suit_of_play(const Ctx *t, const unsigned char *cards, int n)
{
    if (n == 0)
        return -1;
    int s = t->eff[cards[0]];
    for (int i = 1; i < n; i++)
        if (t->eff[cards[i]] != s)
            return -1;
    return s;
}

static int
primary(const SUnit *units, int nu, const int *tops)
{
    int w = units[0].width, l = units[0].length, best = -1;
    for (int i = 0; i < nu; i++)
        if (units[i].width == w && units[i].length == l && tops[i] > best)
            best = tops[i];
    return best;
}

/* tricks.trick_winner: the index of the play that takes the trick, or -1 (gave up) */
int
sj_trick_winner(const Ctx *t, int nplays, const int (*cnt)[NCARD],
                const unsigned char (*cards)[MAXH], const int *ncards)
{
    const unsigned char *lead = cards[0];
    int nl = ncards[0];
    int suit = suit_of_play(t, lead, nl);
    if (suit < 0)
        return -1;
    int tuple = 1;
    for (int i = 1; i < nl; i++)
        if (lead[i] != lead[0])
            tuple = 0;
    int best = 0;
    if (tuple) {
        int bt = suit == TRUMP, bp = t->pos[lead[0]];
        for (int i = 1; i < nplays; i++) {
            int c = cards[i][0], same = ncards[i] == nl;
            for (int j = 1; same && j < ncards[i]; j++)
                same = cards[i][j] == c;
            if (!same)
                continue;
            int s = t->eff[c];
            if (s != suit && s != TRUMP)
                continue;
            int kt = s == TRUMP, kp = t->pos[c];
            if (kt > bt || (kt == bt && kp > bp)) {
                best = i;
                bt = kt;
                bp = kp;
            }
        }
        return best;
    }
    SUnit units[MAXU];
    int nu = sj_decompose(t, cnt[0], units);
    if (nu <= 0)
        return -1;
    int tops[MAXU];
    int r = sj_match_tops(t, units, nu, cnt[0], tops);
    if (r < 0)
        return -1;
    if (r == 0)
        for (int i = 0; i < nu; i++)
            tops[i] = units[i].top;
    int bt = suit == TRUMP, bp = primary(units, nu, tops);
    for (int i = 1; i < nplays; i++) {
        int s = suit_of_play(t, cards[i], ncards[i]);
        if (s < 0 || (s != suit && s != TRUMP))
            continue;
        r = sj_match_tops(t, units, nu, cnt[i], tops);
        if (r < 0)
            return -1;
        if (r == 0)
            continue;
        int kt = s == TRUMP, kp = primary(units, nu, tops);
        if (kt > bt || (kt == bt && kp > bp)) {
            best = i;
            bt = kt;
            bp = kp;
        }
    }
    return best;
}

/* ---------------------------------------------------------------- throw_check */
static int
beats_unit(const Ctx *t, const SUnit *u, int suit, const int *h)
{
    int most[17] = {0};
    for (int i = t->run[suit], end = t->run[suit + 1]; i < end; i++) {   /* the suit's cards */
        int c = t->by_key[i];
        if (h[c] > most[t->pos[c]])
            most[t->pos[c]] = h[c];
    }
    for (int p = u->top + 1; p < 17; p++) {
        if (p - u->length + 1 < 0)
            continue;
        int ok = 1;
        for (int q = p; q > p - u->length; q--)
            if (most[q] < u->width) {
                ok = 0;
                break;
            }
        if (ok)
            return 1;
    }
    return 0;
}

/* tricks.throw_check for a lead of nu >= 2 units: the index of the unit the thrower must
   play instead, or -1 when the throw stands */
int
sj_throw_check(const Ctx *t, const SUnit *units, int nu, int suit,
               const int (*others)[NCARD], int nothers)
{
    int best = -1;
    for (int i = 0; i < nu; i++) {
        int beaten = 0;
        for (int h = 0; h < nothers && !beaten; h++)
            beaten = beats_unit(t, &units[i], suit, others[h]);
        if (!beaten)
            continue;
        if (best >= 0) {
            const SUnit *a = &units[i], *b = &units[best];
            int sa = a->width * a->length, sb = b->width * b->length, less;
            if (sa != sb)
                less = sa < sb;
            else if (a->top != b->top)
                less = a->top < b->top;
            else if (a->width != b->width)
                less = a->width < b->width;
            else {
                int j = 0;
                while (j < a->n && j < b->n && a->cards[j] == b->cards[j])
                    j++;
                less = j < a->n && j < b->n ? a->cards[j] < b->cards[j] : a->n < b->n;
            }
            if (!less)
                continue;
        }
        best = i;
    }
    return best;
}

/* ----------------------------------------------------------------- lead units */
typedef struct {
    const Ctx *t;
    const int *cnt;
    unsigned char ids[5][17][NCARD];
    int nids[5][17];
    Sink *tmp;
} Leads;

static int
extend(Leads *L, int suit, int pos, int w, unsigned char *chain, int len)
{
    if (pos >= 17)
        return 0;
    for (int i = 0; i < L->nids[suit][pos]; i++) {
        int c = L->ids[suit][pos][i];
        if (L->cnt[c] < w)
            continue;
        chain[len] = (unsigned char)c;
        if (len + 1 >= 2) {
            unsigned char sorted[NCARD], out[MAXH];
            memcpy(sorted, chain, (size_t)(len + 1));
            sj_sort_codes(sorted, len + 1);
            int n = 0;
            for (int a = 0; a <= len; a++)
                for (int k = 0; k < w; k++)
                    out[n++] = sorted[a];
            if (sj_sink_push(L->tmp, K_PLAY, out, n) < 0)
                return -1;
        }
        if (extend(L, suit, pos + 1, w, chain, len + 1) < 0)
            return -1;
    }
    return 0;
}

/* a < b in the order of ShengJiGame._lead_units for units of the same size: the first card
   (each unit's cards sorted by code) whose keys differ decides */
static int
cards_less(const Ctx *t, const unsigned char *x, const unsigned char *y, int n)
{
    for (int i = 0; i < n; i++)
        if (x[i] != y[i])
            return t->key[x[i]] < t->key[y[i]];
    return 0;
}

/* game.lead_units in the order of ShengJiGame._lead_units (size, then the cards' keys):
   added to ``out`` as K_PLAY items; 0, or -1 with an exception */
int
sj_lead_units(const Ctx *t, const int *cnt, int decks, Sink *out)
{
    /* The units of one card (a single, a pair, ...: the card w times) come, for each size,
       in the cards' key order (t->by_key); the tractors (some cards' pairs or more in a
       run, at least 4 cards) are found first, into a sink on the stack (copied to the heap
       only past TMP_N), sorted among themselves (they are few) and merged in by size, then
       by their cards' keys. */
    enum { TMP_N = 256, TMP_POOL = 2048 };
    unsigned char tmp_kind[TMP_N], tmp_pool[TMP_POOL];
    Py_ssize_t tmp_off[TMP_N], idx_small[TMP_N];
    int tmp_len[TMP_N];
    Sink tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.fixed = 1;
    tmp.kind = tmp_kind;
    tmp.off = tmp_off;
    tmp.len = tmp_len;
    tmp.pool = tmp_pool;
    tmp.cap = TMP_N;
    tmp.pool_cap = TMP_POOL;
    Leads leads, *L = &leads;
    Py_ssize_t *idx = NULL;
    int rc = -1, most = 0;
    L->t = t;
    L->cnt = cnt;
    L->tmp = &tmp;
    memset(L->nids, 0, sizeof L->nids);
    /* one pass over the cards in the order of their keys: the singles go out at once (no
       tractor is as short); the cards held twice or more (multi, in key order) are noted by
       position. Keys end with the card's code, so the cards of one suit and position come
       in code order, as the tractors' search expects */
    unsigned int paired[5] = {0};               /* per suit, the positions of a pair */
    unsigned char same[8], multi[NCARD];
    int nmulti = 0;
    for (int i = 0; i < NCARD; i++) {
        int c = t->by_key[i], n = cnt[c];
        if (!n)
            continue;
        if (sj_sink_push(out, K_PLAY, &t->by_key[i], 1) < 0)
            goto done;
        most |= 1;
        if (n >= 2) {
            int w = n < 8 ? n : 8, s = t->eff[c], p = t->pos[c];
            if (w > most)
                most = w;
            L->ids[s][p][L->nids[s][p]++] = (unsigned char)c;
            paired[s] |= 1u << p;
            multi[nmulti++] = (unsigned char)c;
        }
    }
    unsigned char chain[NCARD];
    for (int s = 0; s < 5; s++)
        for (unsigned int m = paired[s]; m; m &= m - 1) {     /* positions ascending */
            int p = __builtin_ctz(m);
            for (int w = 2; w <= decks; w++)
                if (extend(L, s, p, w, chain, 0) < 0)
                    goto done;
        }
    idx = tmp.n <= TMP_N ? idx_small : PyMem_RawMalloc(sizeof *idx * (size_t)tmp.n);
    if (idx == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < tmp.n; i++) {      /* the tractors by size, then cards */
        Py_ssize_t j = i;
        int li = tmp.len[i];
        const unsigned char *xi = tmp.pool + tmp.off[i];
        while (j > 0) {
            Py_ssize_t k = idx[j - 1];
            if (tmp.len[k] < li || (tmp.len[k] == li &&
                                    !cards_less(t, xi, tmp.pool + tmp.off[k], li)))
                break;
            idx[j] = k;
            j--;
        }
        idx[j] = i;
        if (li > most)
            most = li;
    }
    Py_ssize_t next = 0;                             /* the next tractor */
    for (int n = 2; n <= most; n++) {
        for (int i = 0; i < nmulti; i++) {           /* in the order of their keys */
            int c = multi[i];
            if (n > 8 || cnt[c] < n)
                continue;
            memset(same, c, (size_t)n);
            while (next < tmp.n && tmp.len[idx[next]] == n &&
                   cards_less(t, tmp.pool + tmp.off[idx[next]], same, n)) {
                if (sj_sink_push(out, K_PLAY, tmp.pool + tmp.off[idx[next]], n) < 0)
                    goto done;
                next++;
            }
            if (sj_sink_push(out, K_PLAY, same, n) < 0)
                goto done;
        }
        for (; next < tmp.n && tmp.len[idx[next]] == n; next++)
            if (sj_sink_push(out, K_PLAY, tmp.pool + tmp.off[idx[next]], n) < 0)
                goto done;
    }
    rc = 0;
done:
    if (rc < 0)
        sj_no_memory();
    if (idx != idx_small)
        PyMem_RawFree(idx);
    sj_sink_free(&tmp);
    return rc;
}
