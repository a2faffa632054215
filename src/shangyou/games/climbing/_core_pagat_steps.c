/* The plays of one window of pagat multiple sequences that hold the picked cards, counted
   without making them (the choice of a play in steps: _core_steps.c, games/climbing/steps.py).

   A play of the window lo..hi with k cards a rank (multi_rec in _core_pagat.c) takes the first
   n_i naturals of each rank (0 <= n_i <= caps_i) and fills the deficit d = sum(k - n_i) with
   wilds: t 2s (the first t held), b black and j red jokers, t + b + j = d, with at least as
   many jokers as ranks without a natural (z). Holding the picked cards sets lower bounds: on
   n_i (the place of a picked natural in its rank), on t (of a picked 2), on b and j. So the
   plays are counted by a walk over the ranks keeping (d, z) (at most 25 x 9 states), and the
   most naturals of a rank any of them uses (which says the most copies of each card) by the
   states reachable before and after that rank. */

#include "_core.h"

#define MAXD 25                       /* 16 2s and 8 jokers of four packs, and none */
#define MAXZ 9
#define BIG ((Py_ssize_t)1 << 50)     /* counts saturate here: only "more than cap" matters */

typedef struct {
    const Multi *w;
    int lt, lb, lj;                   /* the fewest 2s, black and red jokers (picked) */
    int pure_ok, impure_ok;           /* which of the window's two codes are wanted */
} Need;

/* how many wild sets fill a deficit d with at least z jokers, holding the picked wilds (in
   multi_emit's order); the most 2s, black and red jokers of any of them into *mt, *mb, *mj
   when given */
static Py_ssize_t
wild_ways(const Need *q, int d, int z, int *mt, int *mb, int *mj)
{
    const Multi *w = q->w;
    if (!(d == 0 ? q->pure_ok : q->impure_ok))
        return 0;
    Py_ssize_t n = 0;
    int ulast = w->jokers < d ? w->jokers : d;
    for (int u = z; u <= ulast; u++) {
        int t = d - u;
        if (t > w->nt || t < q->lt)
            continue;
        int blo = u - w->nr > 0 ? u - w->nr : 0, bhi = u < w->nb ? u : w->nb;
        if (blo < q->lb)
            blo = q->lb;
        if (bhi > u - q->lj)
            bhi = u - q->lj;
        for (int b = blo; b <= bhi; b++) {
            n++;
            if (mt != NULL) {
                if (t > *mt)
                    *mt = t;
                if (b > *mb)
                    *mb = b;
                if (u - b > *mj)
                    *mj = u - b;
            }
        }
    }
    return n;
}

static Py_ssize_t
sat_add(Py_ssize_t a, Py_ssize_t b)
{
    return a + b > BIG ? BIG : a + b;
}

/* 1: the window's plays holding the picked cards are counted (core_steps_add), or there are
   none; 0: they are few enough to be made: the caller walks the window with ``w->lower`` set
   (every play it makes then holds the picked naturals; the filter checks the wilds) */
int
core_multi_counted(Gen *g, Multi *w, int pure_ok, int impure_ok)
{
    const unsigned char *need = core_steps_need();
    int m = w->m, k = w->k;
    Need q = {w, 0, need[BJ_CODE], need[RJ_CODE], pure_ok, impure_ok};
    if (q.lb > w->nb || q.lj > w->nr || w->wild >= MAXD || w->jokers >= MAXZ)
        return 1;
    for (int c = 0; c < BJ_CODE; c++) {
        if (!need[c])
            continue;
        int r = c >> 2, seen = 0, at = -1;
        for (int x = 0; x < g->n[r] && at < 0; x++)
            if (g->card[r][x] == c && ++seen == need[c])
                at = x;
        if (at < 0)
            return 1;                 /* not held that often */
        if (r == TWO) {
            if (at + 1 > q.lt)
                q.lt = at + 1;
        } else if (r >= w->lo && r <= w->hi) {
            if (at + 1 > w->lower[r - w->lo])
                w->lower[r - w->lo] = at + 1;
        } else {
            return 1;                 /* a natural of another rank: no play of this window */
        }
    }
    for (int i = 0; i < m; i++)
        if (w->lower[i] > w->caps[i])
            return 1;
    /* ways[i][d][z]: choices for the ranks before i; after[i][d][z]: reachable by those from i */
    static Py_ssize_t ways[13][MAXD][MAXZ];
    static unsigned char after[13][MAXD][MAXZ];
    memset(ways, 0, sizeof ways);
    memset(after, 0, sizeof after);
    ways[0][0][0] = 1;
    after[m][0][0] = 1;
    for (int i = 0; i < m; i++)
        for (int d = 0; d <= w->wild; d++)
            for (int z = 0; z <= w->jokers; z++) {
                if (!ways[i][d][z])
                    continue;
                for (int n = w->lower[i]; n <= w->caps[i]; n++) {
                    int d2 = d + k - n, z2 = z + (n == 0);
                    if (d2 <= w->wild && z2 <= w->jokers)
                        ways[i + 1][d2][z2] = sat_add(ways[i + 1][d2][z2], ways[i][d][z]);
                }
            }
    for (int i = m - 1; i >= 0; i--)
        for (int d = 0; d <= w->wild; d++)
            for (int z = 0; z <= w->jokers; z++) {
                if (!after[i + 1][d][z])
                    continue;
                for (int n = w->lower[i]; n <= w->caps[i]; n++) {
                    int d2 = d + k - n, z2 = z + (n == 0);
                    if (d2 <= w->wild && z2 <= w->jokers)
                        after[i][d2][z2] = 1;
                }
            }
    unsigned char fills[MAXD][MAXZ];  /* a total (d, z) some wild set completes */
    Py_ssize_t total = 0;
    int mt = 0, mb = 0, mj = 0;
    for (int d = 0; d <= w->wild; d++)
        for (int z = 0; z <= w->jokers; z++) {
            Py_ssize_t ww = wild_ways(&q, d, z, NULL, NULL, NULL);
            fills[d][z] = ww > 0;
            if (ww && ways[m][d][z]) {
                Py_ssize_t x = ways[m][d][z];
                total = sat_add(total, x > BIG / ww ? BIG : x * ww);
                wild_ways(&q, d, z, &mt, &mb, &mj);
            }
        }
    if (total == 0)
        return 1;
    if (total <= core_steps_room())
        return 0;
    unsigned char most[N_CARDS];
    memset(most, 0, sizeof most);
    for (int i = 0; i < m; i++) {
        /* the (d, z) of the other ranks together: before i with after i + 1 */
        unsigned char both[MAXD][MAXZ];
        memset(both, 0, sizeof both);
        for (int d1 = 0; d1 <= w->wild; d1++)
            for (int z1 = 0; z1 <= w->jokers; z1++) {
                if (!ways[i][d1][z1])
                    continue;
                for (int d2 = 0; d1 + d2 <= w->wild; d2++)
                    for (int z2 = 0; z1 + z2 <= w->jokers; z2++)
                        if (after[i + 1][d2][z2])
                            both[d1 + d2][z1 + z2] = 1;
            }
        int best = -1;
        for (int n = w->caps[i]; n >= w->lower[i] && best < 0; n--)
            for (int d = 0; d + k - n <= w->wild && best < 0; d++)
                for (int z = 0; z + (n == 0) <= w->jokers && best < 0; z++)
                    if (both[d][z] && fills[d + k - n][z + (n == 0)])
                        best = n;
        int r = w->lo + i;
        for (int x = 0; x < best; x++) {
            int c = g->card[r][x], copies = 0;
            for (int y = 0; y < best; y++)
                copies += g->card[r][y] == c;
            if (copies > most[c])
                most[c] = (unsigned char)copies;
        }
    }
    for (int x = 0; x < mt; x++) {
        int c = g->card[TWO][x], copies = 0;
        for (int y = 0; y < mt; y++)
            copies += g->card[TWO][y] == c;
        if (copies > most[c])
            most[c] = (unsigned char)copies;
    }
    most[BJ_CODE] = (unsigned char)mb;
    most[RJ_CODE] = (unsigned char)mj;
    core_steps_add(total, most);
    return 1;
}
