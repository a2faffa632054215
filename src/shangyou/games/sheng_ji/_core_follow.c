/* Follows of Sheng ji in C. Python references: follow.legal_follows (with _multisets and
   _suit_follows: the same follows in the same order, None past the limit), follow.next_cards
   and follow.completable (the cards of a follow chosen one at a time). */

#include "_core.h"

/* follow.requirement, pairs_of, longest_run */
static void
requirement(const SUnit *units, int nu, int *pairs, int *run)
{
    *pairs = 0;
    *run = 0;
    for (int i = 0; i < nu; i++) {
        *pairs += units[i].length * (units[i].width / 2);
        if (units[i].length >= 2 && units[i].width >= 2 && units[i].length > *run)
            *run = units[i].length;
    }
}

static int
pairs_of(const int *cnt)
{
    int p = 0;
    for (int c = 0; c < NCARD; c++)
        p += cnt[c] / 2;
    return p;
}

static int
longest_run(const Ctx *t, const int *cnt)
{
    char at[18] = {0};
    for (int c = 0; c < NCARD; c++)
        if (cnt[c] >= 2)
            at[t->pos[c]] = 1;
    int best = 0, run = 0;
    for (int p = 0; p < 18; p++) {
        run = at[p] ? run + 1 : 0;
        if (run > best)
            best = run;
    }
    return best >= 2 ? best : 0;
}

/* follow.follow_needs: the hand's cards of the suit (counts), how many; pairs and run owed */
static int
needs(const Ctx *t, const int *hand, const int *lead, int nlead, const SUnit *units, int nu,
      int *mine, int *suit, int *need_pairs, int *need_run)
{
    int s = -1, m = 0;
    for (int c = 0; c < NCARD && s < 0; c++)
        if (lead[c])
            s = t->eff[c];
    *suit = s;
    for (int c = 0; c < NCARD; c++) {
        mine[c] = t->eff[c] == s ? hand[c] : 0;
        m += mine[c];
    }
    *need_pairs = *need_run = 0;
    if (m <= nlead)
        return m;
    int want_pairs, want_run;
    requirement(units, nu, &want_pairs, &want_run);
    *need_run = want_run && longest_run(t, mine) >= want_run ? want_run : 0;
    int p = pairs_of(mine);
    *need_pairs = want_pairs < p ? want_pairs : p;
    return m;
}

/* --------------------------------------------------------------- short of the suit */
typedef struct {
    int ntypes;
    int card[NCARD], count[NCARD], rest[NCARD + 1];
    int take[NCARD];
    unsigned char base[MAXH];  /* the suit's cards (all played) */
    int nbase;
    int limit, found;
    Sink *out;
} Multi;

static int
emit_short(Multi *M)
{
    /* the play sorted by card: the suit's cards (sorted) merged with the cards taken (in
       card order, none of the suit) */
    unsigned char play[MAXH];
    int n = 0, b = 0;
    for (int i = 0; i < M->ntypes; i++) {
        int k = M->take[i], c = M->card[i];
        if (!k)
            continue;
        while (b < M->nbase && M->base[b] < c)
            play[n++] = M->base[b++];
        while (k--)
            play[n++] = (unsigned char)c;
    }
    while (b < M->nbase)
        play[n++] = M->base[b++];
    if (sj_sink_push(M->out, K_PLAY, play, n) < 0)
        return -1;
    return ++M->found > M->limit ? 1 : 0;
}

/* follow._multisets in its order; 1 past the limit, -1 error */
static int
multisets(Multi *M, int k, int i)
{
    if (k == 0) {
        for (int j = i; j < M->ntypes; j++)
            M->take[j] = 0;
        return emit_short(M);
    }
    if (i >= M->ntypes || M->rest[i] < k)
        return 0;
    int hi = M->count[i] < k ? M->count[i] : k;
    for (int t = hi; t >= 0; t--) {
        M->take[i] = t;
        int r = multisets(M, k - t, i + 1);
        if (r)
            return r;
    }
    M->take[i] = 0;
    return 0;
}

/* ----------------------------------------------------------------- _suit_follows */
typedef struct {
    int T, P, L, limit;
    int types[NCARD], pos[NCARD], hi[NCARD];
    int tot[NCARD + 1], psuf[NCARD + 1], caprun[NCARD + 1];
    char ends[NCARD], fresh[NCARD + 1];
    int take[NCARD];
    int order[NCARD];           /* type indices in card order */
    int *found;                 /* T counts per follow, in card order */
    Py_ssize_t nfound, cap;
} Walk;

static int
emit_walk(Walk *W)
{
    if (W->nfound == W->cap) {
        Py_ssize_t cap = W->cap ? W->cap * 2 : 64;
        int *f = PyMem_RawRealloc(W->found, sizeof(int) * (size_t)cap * (size_t)W->T);
        if (f == NULL) {
            sj_no_memory();
            return -1;
        }
        W->found = f;
        W->cap = cap;
    }
    int *row = W->found + W->nfound * W->T;
    for (int i = 0; i < W->T; i++)
        row[i] = W->take[W->order[i]];
    W->nfound++;
    return W->limit >= 0 && W->nfound > W->limit ? 1 : 0;
}

static int
walk(Walk *W, int i, int k, int pairs, int run, int last, int paired, int done)
{
    int hmax = W->hi[i] < k ? W->hi[i] : k;
    int nxt = i + 1, end = W->ends[i], L = W->L;
    for (int t = hmax; t >= 0; t--) {
        int k2 = k - t, p2 = pairs + (t >> 1);
        int ps = W->psuf[nxt] < (k2 >> 1) ? W->psuf[nxt] : (k2 >> 1);
        if (W->tot[nxt] < k2 || p2 + ps < W->P)
            continue;
        W->take[i] = t;
        int r;
        if (!end) {
            r = walk(W, nxt, k2, p2, run, last, paired || t >= 2, done);
            if (r)
                return r;
            continue;
        }
        int rr = run, d = done;
        if (L && !d) {
            if (paired || t >= 2) {
                rr = run && last == W->pos[i] - 1 ? run + 1 : 1;
                d = rr >= L;
            } else {
                rr = 0;
            }
            if (!d) {
                int ok = W->fresh[nxt] && k2 >= 2 * L;
                if (!ok && rr && nxt < W->T && W->pos[nxt] == W->pos[i] + 1)
                    ok = W->caprun[nxt] >= L - rr && k2 >= 2 * (L - rr);
                if (!ok)
                    continue;
            }
        }
        if (k2 == 0) {
            for (int j = nxt; j < W->T; j++)
                W->take[j] = 0;
            r = emit_walk(W);
            if (r)
                return r;
            continue;
        }
        r = walk(W, nxt, k2, p2, rr, W->pos[i], 0, d);
        if (r)
            return r;
    }
    W->take[i] = 0;
    return 0;
}

static _Thread_local int walk_T;      /* per thread: the batch engine lists on several */

static int
row_cmp(const void *a, const void *b)
{
    const int *x = a, *y = b;
    for (int i = 0; i < walk_T; i++)
        if (x[i] != y[i])
            return x[i] > y[i] ? -1 : 1;      /* -take ascending: more of a card first */
    return 0;
}

/* 1 listed, 0 more than the limit, -1 error */
static int
suit_follows(const Ctx *t, const int *mine, int n, int need_pairs, int need_run, int limit,
             Sink *out)
{
    Walk walk_state, *W = &walk_state;          /* on the stack; found on the heap */
    memset(W, 0, sizeof *W);
    int T = 0;
    for (int c = 0; c < NCARD; c++)
        if (mine[c])
            W->types[T++] = c;
    for (int i = 0; i < T; i++)
        W->order[i] = i;                        /* card order, before the sort below */
    for (int i = 1; i < T; i++) {               /* (position, card) */
        int x = W->types[i], j = i - 1;
        while (j >= 0 && (t->pos[W->types[j]] > t->pos[x] ||
                          (t->pos[W->types[j]] == t->pos[x] && W->types[j] > x))) {
            W->types[j + 1] = W->types[j];
            j--;
        }
        W->types[j + 1] = x;
    }
    for (int i = 0; i < T; i++) {
        W->pos[i] = t->pos[W->types[i]];
        W->hi[i] = mine[W->types[i]];
    }
    /* order: type indices sorted by card */
    for (int i = 0; i < T; i++)
        W->order[i] = i;
    for (int i = 1; i < T; i++) {
        int x = W->order[i], j = i - 1;
        while (j >= 0 && W->types[W->order[j]] > W->types[x]) {
            W->order[j + 1] = W->order[j];
            j--;
        }
        W->order[j + 1] = x;
    }
    for (int i = T - 1; i >= 0; i--) {
        W->tot[i] = W->tot[i + 1] + W->hi[i];
        W->psuf[i] = W->psuf[i + 1] + W->hi[i] / 2;
    }
    for (int i = 0; i < T; i++)
        W->ends[i] = i + 1 == T || W->pos[i + 1] != W->pos[i];
    W->T = T;
    W->L = need_run;
    W->P = need_pairs;
    W->limit = limit;
    if (need_run) {
        int able[19] = {0}, run_from[20] = {0};
        for (int i = 0; i < T; i++)
            if (W->hi[i] >= 2)
                able[W->pos[i]] = 1;
        for (int p = 18; p >= 0; p--)
            run_from[p] = able[p] ? run_from[p + 1] + 1 : 0;
        for (int i = T - 1; i >= 0; i--) {
            W->caprun[i] = run_from[W->pos[i]];
            W->fresh[i] = W->caprun[i] >= need_run || W->fresh[i + 1];
        }
    }
    int r = walk(W, 0, n, 0, 0, -2, 0, !need_run);
    int rc = r < 0 ? -1 : r > 0 ? 0 : 1;
    if (rc == 1) {
        walk_T = T;
        /* the walk finds the follows in (position, card) order, more of a type first: in
           card order too where the two orders agree (a plain suit), then already sorted */
        int sorted = 1;
        for (Py_ssize_t f = 1; f < W->nfound && sorted; f++)
            sorted = row_cmp(W->found + (f - 1) * T, W->found + f * T) < 0;
        if (!sorted)
            qsort(W->found, (size_t)W->nfound, sizeof(int) * (size_t)T, row_cmp);
        unsigned char play[MAXH];
        for (Py_ssize_t f = 0; f < W->nfound && rc == 1; f++) {
            const int *row = W->found + f * T;
            int m = 0;
            for (int i = 0; i < T; i++)
                for (int k = 0; k < row[i]; k++)
                    play[m++] = (unsigned char)W->types[W->order[i]];
            if (sj_sink_push(out, K_PLAY, play, m) < 0)
                rc = -1;
        }
    }
    PyMem_RawFree(W->found);
    return rc;
}

/* follow.legal_follows of a single led (``lc``, the card led): what the general paths below
   list for it, without their set-up: each distinct card of the led card's effective suit
   held, ascending by code (_suit_follows, or the one card of the suit: _multisets with
   nothing to add), or where the hand holds none, each distinct card of the hand ascending
   by code (_multisets of one card); never past a limit (54 at most); 1, or -1 error */
int
sj_follow_single(const Ctx *t, const int *hand, int lc, Sink *out)
{
    int s = t->eff[lc];
    unsigned char one[1];
    int any = 0;
    if (s == TRUMP) {
        /* the trumps are the last run of by_key (the keys begin with the effective suit):
           those held, then by code */
        unsigned char held[NCARD];
        int nh = 0;
        for (int i = t->run[TRUMP]; i < NCARD; i++)
            if (hand[t->by_key[i]])
                held[nh++] = t->by_key[i];
        sj_sort_codes(held, nh);
        for (int k = 0; k < nh; k++)
            if (sj_sink_push(out, K_PLAY, &held[k], 1) < 0)
                return -1;
        any = nh > 0;
    } else {
        /* a plain suit's cards are its suit's codes (rank * 4 + suit) less the trumps
           among them: 13 to look at */
        for (int c = s; c < NCARD; c += 4)
            if (hand[c] && t->eff[c] == s) {
                one[0] = (unsigned char)c;
                if (sj_sink_push(out, K_PLAY, one, 1) < 0)
                    return -1;
                any = 1;
            }
    }
    if (!any)
        for (int c = 0; c < NCARD; c++)
            if (hand[c]) {
                one[0] = (unsigned char)c;
                if (sj_sink_push(out, K_PLAY, one, 1) < 0)
                    return -1;
            }
    return 1;
}

/* follow.legal_follows: the follows added to ``out`` (K_PLAY) and 1; 0 when there are more
   than ``limit`` (then ``out`` holds some: the caller drops them); -1 error */
int
sj_follows(const Ctx *t, const int *hand, const int *lead, int nlead, const SUnit *units,
           int nu, int limit, Sink *out)
{
    if (nlead == 1) {
        int lc = 0;                             /* the card led (two counts a step) */
        while (lc + 2 < NCARD && !(lead[lc] | lead[lc + 1]))
            lc += 2;
        return sj_follow_single(t, hand, lead[lc] ? lc : lc + 1, out);
    }
    int mine[NCARD], suit, need_pairs, need_run;
    int m = needs(t, hand, lead, nlead, units, nu, mine, &suit, &need_pairs, &need_run);
    if (m <= nlead) {
        Multi multi, *M = &multi;       /* on the stack: its arrays are filled as used */
        M->ntypes = M->nbase = M->found = 0;
        for (int c = 0; c < NCARD; c++) {
            for (int k = 0; k < mine[c]; k++)
                M->base[M->nbase++] = (unsigned char)c;
            if (hand[c] && t->eff[c] != suit) {
                M->card[M->ntypes] = c;
                M->count[M->ntypes++] = hand[c];
            }
        }
        M->rest[M->ntypes] = 0;
        for (int i = M->ntypes - 1; i >= 0; i--)
            M->rest[i] = M->rest[i + 1] + M->count[i];
        M->limit = limit;
        M->out = out;
        int r = multisets(M, nlead - m, 0);
        return r < 0 ? -1 : r > 0 ? 0 : 1;
    }
    return suit_follows(t, mine, nlead, need_pairs, need_run, limit, out);
}

/* ------------------------------------------------------------------ card by card */
static int
most_pairs(int extra, int odd, int pairs0, int cap2, int f1, int f0)
{
    int e = extra - f1 - 2 * f0;
    if (e < 0)
        return -1;
    int a = odd - f1 < e ? odd - f1 : e;
    int b = (e - a) >> 1, c = cap2 - f0;
    return pairs0 + f1 + f0 + a + (b < c ? b : c);
}

/* follow.completable */
static int
completable(const Ctx *t, const int *hi, const int *lo, int n, int need_pairs, int need_run)
{
    int base = 0;
    for (int c = 0; c < NCARD; c++)
        base += lo[c];
    if (base > n)
        return 0;
    int extra = n - base, pairs0 = 0, odd = 0, cap2 = 0;
    int cost_at[18];
    for (int p = 0; p < 18; p++)
        cost_at[p] = 3;                   /* 3: no paired identity at p */
    for (int c = 0; c < NCARD; c++) {
        int h = hi[c];
        if (!h)
            continue;
        int low = lo[c];
        if (low > h)
            return 0;
        pairs0 += low >> 1;
        int o = (low & 1) && low < h ? 1 : 0;
        odd += o;
        cap2 += (h - low - o) >> 1;
        if (need_run && h >= 2) {
            int cost = low >= 2 ? 0 : 2 - low;
            if (cost < cost_at[t->pos[c]])
                cost_at[t->pos[c]] = cost;
        }
    }
    if (!need_run)
        return most_pairs(extra, odd, pairs0, cap2, 0, 0) >= need_pairs;
    int L = need_run;
    for (int start = 0; start < 18; start++) {
        if (cost_at[start] == 3 || (start > 0 && cost_at[start - 1] != 3))
            continue;
        int run[18], len = 0;
        for (int p = start; p < 18 && cost_at[p] != 3; p++)
            run[len++] = cost_at[p];
        if (len < L)
            continue;
        int f1 = 0, f0 = 0;
        for (int j = 0; j < L; j++) {
            f1 += run[j] == 1;
            f0 += run[j] == 2;
        }
        for (int j = L; j <= len; j++) {
            if (most_pairs(extra, odd, pairs0, cap2, f1, f0) >= need_pairs)
                return 1;
            if (j == len)
                break;
            f1 += (run[j] == 1) - (run[j - L] == 1);
            f0 += (run[j] == 2) - (run[j - L] == 2);
        }
    }
    return 0;
}

/* follow.next_cards: the cards (each once, unordered) written to ``out``; their number */
int
sj_next_cards(const Ctx *t, const int *hand, const int *lead, int nlead, const SUnit *units,
              int nu, const int *chosen, unsigned char *out)
{
    int mine[NCARD], suit, need_pairs, need_run, k = 0;
    int m = needs(t, hand, lead, nlead, units, nu, mine, &suit, &need_pairs, &need_run);
    if (m <= nlead) {
        for (int c = 0; c < NCARD; c++)
            if (hand[c] - chosen[c] > 0 && t->eff[c] != suit)
                out[k++] = (unsigned char)c;
        return k;
    }
    int lo[NCARD];
    memcpy(lo, chosen, sizeof lo);
    for (int c = 0; c < NCARD; c++) {
        if (!mine[c] || lo[c] >= mine[c])
            continue;
        lo[c]++;
        if (completable(t, mine, lo, nlead, need_pairs, need_run))
            out[k++] = (unsigned char)c;
        lo[c]--;
    }
    return k;
}
