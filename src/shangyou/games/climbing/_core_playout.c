/* The search's playouts of pagat hands in C: the game (tricks, passes, going out) and the
   plan-aware playout policy of bots/climbing_playout.py (PlanPolicy with its default
   settings, pagat's plan shape), which stays the reference: the same moves in the same worlds
   (tests/test_core_differential.py plays both and compares every move). Each function names
   the Python function it follows.

   pagat_playout(hands, to_act, last, last_seat, passes, order, teams, seq_top, trace)
       -> (order, moves)
       Plays the hand out from this state (the play phase of a single hand: the world of a
       search) and returns the finishing order; ``moves`` is the list of (seat, code, cards)
       played (code None: a pass) when ``trace`` is true, else None. ``last``: None or
       (code, cards) of the play to beat; ``teams``: the team of each seat, or None.

   The plans of the hands come from _core_plan.c. */

#include "_core.h"
#include "_core_plan.h"

#define CONTROL 0.5
#define LEAD_VALUE 0.5
#define FOLLOW_THRESHOLD 0.0
#define PRECIOUS_COST 0.6
#define CLOSE 2

/* ------------------------------------------------------------------------ the game */
typedef struct {
    int n, seq_top;
    unsigned char count[MAX_SEATS][N_CARDS];
    int size[MAX_SEATS];
    int team[MAX_SEATS];
    int has_teams;
    int to_act, last_seat, passes;
    int has_last;
    long last_code;
    int last_n;
    int last_cards[MAX_HAND];
    int order[MAX_SEATS], norder;
    int over;
    Gen gen;
    Sink moves, probe;
    PyObject *trace;
} Game;

/* the move chosen: a pass (n == -1) or a play */
typedef struct {
    long code;
    int n;
    int cards[MAX_HAND];
} Choice;

static inline int
rank_of_card(int c)
{
    return c < BJ_CODE ? c >> 2 : (c == BJ_CODE ? BJ : RJ);
}

static int
list_plays(Game *G, int seat, Sink *sink, int leading, int first)
{
    Prev prev;
    if (leading)
        prev.kind = -1;
    else
        prev_of_code(G->last_code, &prev);
    sink->n = 0;
    sink->pool_n = 0;
    sink->first = first;
    G->gen.out = NULL;
    G->gen.sink = sink;
    gen_from_counts(&G->gen, G->count[seat], G->seq_top);
    int rc = pagat_generate(&G->gen, &prev);
    return rc < 0 ? -1 : 0;
}

static void
choose_play(Game *G, const Sink *s, Py_ssize_t i, Choice *ch)
{
    const Play *p = &s->plays[i];
    ch->code = p->code;
    ch->n = p->n;
    memcpy(ch->cards, s->pool + p->off, (size_t)p->n * sizeof(int));
}

static int
hand_first(const Game *G, int seat)
{
    for (int c = 0; c < N_CARDS; c++)
        if (G->count[seat][c])
            return c;
    return -1;
}

static int
hand_last(const Game *G, int seat)
{
    for (int c = N_CARDS - 1; c >= 0; c--)
        if (G->count[seat][c])
            return c;
    return -1;
}

/* climbing_playout.group_cards (suited) and _play: the play of a plan's group */
static void
group_play(const Game *G, int seat, const Group *g, Choice *ch)
{
    const unsigned char *cnt = G->count[seat];
    int n = 0;
    if (g->kind == 's') {
        int r = g->lo;
        int lo = r < BJ ? 4 * r : (r == BJ ? BJ_CODE : RJ_CODE);
        int hi = r < BJ ? 4 * r + 3 : lo;
        for (int c = lo; c <= hi; c++)
            for (int i = 0; i < cnt[c]; i++)
                ch->cards[n++] = c;
        ch->code = n == 1 ? CODE(K_SINGLE, r, 0, 0, 0) : CODE(K_SET, r, 0, n, 1);
        ch->n = n;
        return;
    }
    if (g->kind == 'q') {
        for (int s = 0; s < 4; s++) {
            int all = 1;
            for (int r = g->lo; r <= g->hi && all; r++)
                all = cnt[4 * r + s] > 0;
            if (all) {
                for (int r = g->lo; r <= g->hi; r++)
                    ch->cards[n++] = 4 * r + s;
                ch->code = CODE(K_SEQ, g->lo, g->hi, s, 1);
                ch->n = n;
                return;
            }
        }
    }
    for (int r = g->lo; r <= g->hi; r++) {
        int taken = 0;
        for (int c = 4 * r; c < 4 * r + 4 && taken < g->k; c++)
            for (int i = 0; i < cnt[c] && taken < g->k; i++, taken++)
                ch->cards[n++] = c;
    }
    ch->n = n;
    if (g->kind == 'q') {
        int one = 1;
        for (int i = 1; i < n; i++)
            if ((ch->cards[i] & 3) != (ch->cards[0] & 3))
                one = 0;
        if (one) {       /* one suit by chance: swap in another card of some rank */
            for (int i = 0; i < n; i++) {
                int c = ch->cards[i], r = c >> 2;
                for (int o = 4 * r; o < 4 * r + 4; o++) {
                    if (o != c && cnt[o]) {
                        ch->cards[i] = o;
                        ch->code = CODE(K_SEQ, g->lo, g->hi, 4, 1);
                        return;
                    }
                }
            }
        }
        ch->code = CODE(K_SEQ, g->lo, g->hi, one ? (ch->cards[0] & 3) : 4, 1);
        return;
    }
    ch->code = CODE(K_MSEQ, g->lo, g->hi, g->k, 1);
}

/* the ranks of a play's cards equal a group's ranks (both sorted) */
static int
ranks_match(const int *cards, int n, const Group *g)
{
    if (n != group_len(g))
        return 0;
    int i = 0;
    if (g->kind == 's') {
        for (; i < n; i++)
            if (rank_of_card(cards[i]) != g->lo)
                return 0;
        return 1;
    }
    for (int r = g->lo; r <= g->hi; r++)
        for (int j = 0; j < g->k; j++, i++)
            if (rank_of_card(cards[i]) != r)
                return 0;
    return 1;
}

/* PlanPolicy.partner_on_one */
static int
partner_on_one(const Game *G, int seat, int mine, int close)
{
    if (G->has_teams && close > CLOSE)
        for (int s = 0; s < G->n; s++)
            if (s != seat && G->team[s] == mine && G->size[s] == 1)
                return 1;
    return 0;
}

/* PlanPolicy.lead_order (no point game): the groups in the order worth leading */
static int
lead_order(const Group *groups, int ng, unsigned danger, Group *out)
{
    int nplain = 0, m = 0;
    for (int i = 0; i < ng; i++)
        if (group_cost(&groups[i]) > CONTROL)
            nplain++;
    if (nplain <= 1 && ng > 1) {
        for (int i = 0; i < ng; i++)
            if (group_cost(&groups[i]) <= CONTROL)
                out[m++] = groups[i];
        for (int i = 0; i < ng; i++)
            if (group_cost(&groups[i]) > CONTROL)
                out[m++] = groups[i];
        return m;
    }
    for (int i = 0; i < ng; i++) {     /* stable insertion by (in danger, lo, -len) */
        if (group_cost(&groups[i]) <= CONTROL)
            continue;
        Group x = groups[i];
        int xl = group_len(&x);
        int xd = xl < 32 && (danger >> xl & 1);
        int j = m;
        while (j > 0) {
            const Group *y = &out[j - 1];
            int yl = group_len(y);
            int yd = yl < 32 && (danger >> yl & 1);
            int greater = yd != xd ? yd > xd : (y->lo != x.lo ? y->lo > x.lo : -yl > -xl);
            if (!greater)
                break;
            out[j] = out[j - 1];
            j--;
        }
        out[j] = x;
        m++;
    }
    for (int i = 0; i < ng; i++)
        if (group_cost(&groups[i]) <= CONTROL)
            out[m++] = groups[i];
    return m;
}

/* climbing_fast.fast_policy when leading (PlanPolicy.lead's last resort) */
static void
fast_lead(const Game *G, const Sink *moves, int seat, int close, Choice *ch)
{
    Py_ssize_t best = -1;
    int bc[5] = {0, 0, 0, 0, 0};
    for (Py_ssize_t i = 0; i < moves->n; i++) {
        const Play *p = &moves->plays[i];
        const int *cards = moves->pool + p->off;
        if (p->n == G->size[seat]) {
            best = i;
            break;
        }
        int spent = 0;
        for (int j = 0; j < p->n; j++)
            spent += cards[j] >= 48;
        int cost[5] = {p->n == close, spent, 0, cards[0], -p->n};
        int less = best < 0;
        for (int j = 0; j < 5 && !less; j++) {
            if (cost[j] != bc[j]) {
                less = cost[j] < bc[j];
                break;
            }
        }
        if (less) {
            best = i;
            memcpy(bc, cost, sizeof bc);
        }
    }
    choose_play((Game *)G, moves, best, ch);
}

static void
rank_counts(const Game *G, int seat, int *counts)
{
    memset(counts, 0, N_RANKS * sizeof(int));
    for (int c = 0; c < N_CARDS; c++)
        counts[rank_of_card(c)] += G->count[seat][c];
}

/* can seat s beat the play ch? (fam.follows(hands[s], combo) is not empty) */
static int
can_beat(Game *G, int s, const Choice *ch)
{
    long saved_code = G->last_code;
    G->last_code = ch->code;
    int rc = list_plays(G, s, &G->probe, 0, 1);
    G->last_code = saved_code;
    if (rc < 0)
        return -1;
    return G->probe.n > 0;
}

/* PlanPolicy.__call__ for pagat with its default settings: 0 and ch->n = -1 for a pass */
static int
policy(Game *G, Choice *ch)
{
    int seat = G->to_act, leading = !G->has_last;
    Sink *moves = &G->moves;
    ch->n = -1;
    if (!leading) {
        if (list_plays(G, seat, moves, 0, 0) < 0)
            return -1;
        if (moves->n == 0)
            return 0;                          /* nothing but a pass */
    }
    int mine = G->team[seat];
    int close = 99;
    for (int s = 0; s < G->n; s++)
        if (s != seat && G->size[s] && G->team[s] != mine && G->size[s] < close)
            close = G->size[s];
    int counts[N_RANKS];
    rank_counts(G, seat, counts);
    double base;
    Group groups[MAX_HAND], order[MAX_HAND];
    int ng = plan_groups(counts, &base, groups);
    int size = G->size[seat];
    unsigned danger = 0;
    for (int s = 0; s < G->n; s++)
        if (s != seat && G->size[s] && G->team[s] != mine && G->size[s] <= CLOSE)
            danger |= 1u << G->size[s];
    if (leading) {
        if (ng == 1 || !(hand_last(G, seat) >= 48 && size <= 6)) {    /* direct_lead */
            if (partner_on_one(G, seat, mine, close)) {
                int c = hand_first(G, seat);
                ch->cards[0] = c;
                ch->n = 1;
                ch->code = CODE(K_SINGLE, rank_of_card(c), 0, 0, 0);
                return 0;
            }
            int m = lead_order(groups, ng, danger, order);
            const Group *pick = &order[0];
            if (danger) {
                for (int i = 0; i < m; i++) {
                    int l = group_len(&order[i]);
                    if (!(l < 32 && (danger >> l & 1))) {
                        pick = &order[i];
                        break;
                    }
                }
            }
            group_play(G, seat, pick, ch);
            return 0;
        }
        if (list_plays(G, seat, moves, 1, 0) < 0)
            return -1;
        if (moves->n == 1) {
            choose_play(G, moves, 0, ch);
            return 0;
        }
    }
    for (Py_ssize_t i = 0; i < moves->n; i++) {
        if (moves->plays[i].n == size) {       /* out in one play */
            choose_play(G, moves, i, ch);
            return 0;
        }
    }
    if (leading) {                             /* PlanPolicy.lead */
        if (partner_on_one(G, seat, mine, close)) {
            choose_play(G, moves, 0, ch);
            return 0;
        }
        int m = lead_order(groups, ng, danger, order);
        Py_ssize_t first = -1;
        for (int x = 0; x < m; x++) {
            int k = group_len(&order[x]);
            for (Py_ssize_t i = 0; i < moves->n; i++) {
                const Play *p = &moves->plays[i];
                if (p->n == k && ranks_match(moves->pool + p->off, p->n, &order[x])) {
                    if (!danger || !(k < 32 && (danger >> k & 1))) {
                        choose_play(G, moves, i, ch);
                        return 0;
                    }
                    if (first < 0)
                        first = i;
                    break;
                }
            }
        }
        if (first >= 0) {
            choose_play(G, moves, first, ch);
            return 0;
        }
        fast_lead(G, moves, seat, close, ch);
        return 0;
    }
    /* PlanPolicy.follow */
    int last = G->last_seat;
    if (G->has_teams && last >= 0 && G->team[last] == mine)
        return 0;                              /* never beat the partner */
    int last_threat = last >= 0 && last != seat && G->size[last] && G->team[last] != mine &&
                      G->size[last] <= CLOSE + 1;
    if (close <= CLOSE || last_threat) {       /* the highest play */
        Py_ssize_t best = 0;
        for (Py_ssize_t i = 1; i < moves->n; i++) {
            const Play *p = &moves->plays[i], *b = &moves->plays[best];
            const int *pc = moves->pool + p->off, *bc = moves->pool + b->off;
            if (pc[p->n - 1] > bc[b->n - 1] ||
                (pc[p->n - 1] == bc[b->n - 1] && pc[0] > bc[0]))
                best = i;
        }
        choose_play(G, moves, best, ch);
        return 0;
    }
    double pcost = ng > 2 ? PRECIOUS_COST : 0.0;
    Py_ssize_t best = -1;
    double best_gain = 0.0;
    int best_last = 0;
    for (Py_ssize_t i = 0; i < moves->n; i++) {
        const Play *p = &moves->plays[i];
        const int *cards = moves->pool + p->off;
        int d[N_RANKS], prec = 0;
        memcpy(d, counts, sizeof d);
        for (int j = 0; j < p->n; j++) {
            int r = rank_of_card(cards[j]);
            d[r] -= 1;
            if (r >= 12)
                prec++;
        }
        PlanResult rest;
        plan_of(d, &rest);
        double gain = base - rest.cost - pcost * prec;
        int neg_last = -cards[p->n - 1];
        if (best < 0 || gain > best_gain || (gain == best_gain && neg_last > best_last)) {
            best = i;
            best_gain = gain;
            best_last = neg_last;
        }
    }
    if (best_gain + LEAD_VALUE < FOLLOW_THRESHOLD)
        return 0;
    choose_play(G, moves, best, ch);
    if (best_gain < FOLLOW_THRESHOLD) {        /* worth it only if nobody can beat it */
        for (int s = 0; s < G->n; s++) {
            if (s == seat || !G->size[s] || G->team[s] == mine || G->size[s] < ch->n)
                continue;
            int rc = can_beat(G, s, ch);
            if (rc < 0)
                return -1;
            if (rc) {
                ch->n = -1;
                return 0;
            }
        }
    }
    return 0;
}

/* ClimbingGame._next_with_cards */
static inline int
next_with_cards(const Game *G, int seat, int include_self)
{
    return core_next_with_cards(G->size, G->n, seat, include_self);
}

static int
record(Game *G, int seat, const Choice *ch)
{
    PyObject *item;
    if (ch->n < 0) {
        item = Py_BuildValue("(iOO)", seat, Py_None, Py_None);
    } else {
        PyObject *cards = PyTuple_New(ch->n);
        if (cards == NULL)
            return -1;
        for (int i = 0; i < ch->n; i++)
            PyTuple_SET_ITEM(cards, i, PyLong_FromLong(ch->cards[i]));
        item = Py_BuildValue("(ilN)", seat, ch->code, cards);
    }
    if (item == NULL)
        return -1;
    int rc = PyList_Append(G->trace, item);
    Py_DECREF(item);
    return rc;
}

/* ClimbingGame._do_play for a single hand without finish_trick */
static int
apply(Game *G, const Choice *ch)
{
    int seat = G->to_act;
    if (G->trace != NULL && record(G, seat, ch) < 0)
        return -1;
    if (ch->n < 0) {
        G->passes++;
        if (core_passes_end_trick(G->passes, G->n, G->norder, G->size[G->last_seat])) {
            /* _end_trick */
            int winner = G->last_seat;
            G->has_last = 0;
            G->passes = 0;
            G->last_seat = -1;
            G->to_act = next_with_cards(G, winner, 1);
        } else {
            G->to_act = next_with_cards(G, seat, 0);
        }
        return 0;
    }
    for (int i = 0; i < ch->n; i++) {
        int c = ch->cards[i];
        if (c < 0 || c >= N_CARDS || G->count[seat][c] == 0) {
            PyErr_SetString(PyExc_RuntimeError, "a playout played a card not held");
            return -1;
        }
        G->count[seat][c]--;
    }
    G->size[seat] -= ch->n;
    G->has_last = 1;
    G->last_code = ch->code;
    G->last_n = ch->n;
    memcpy(G->last_cards, ch->cards, (size_t)ch->n * sizeof(int));
    G->last_seat = seat;
    G->passes = 0;
    if (!G->size[seat]) {
        G->order[G->norder++] = seat;
        int holder, holding = core_holding(G->size, G->n, &holder);
        if (holding <= 1) {
            if (holding == 1)
                G->order[G->norder++] = holder;
            G->over = 1;
            return 0;
        }
    }
    G->to_act = next_with_cards(G, seat, 0);
    return 0;
}

/* ------------------------------------------------------------------------ Python */
/* the card counts of a hand (core_read_hand) and its size */
static int
read_cards(PyObject *obj, unsigned char *count, int *size)
{
    if (core_read_hand(obj, count, MAX_COPIES) < 0)
        return -1;
    int n = 0;
    for (int c = 0; c < N_CARDS; c++)
        n += count[c];
    *size = n;
    return 0;
}

static int
seat_of(PyObject *obj, int n, int none_ok, int *out)
{
    if (obj == Py_None && none_ok) {
        *out = -1;
        return 0;
    }
    long s = PyLong_AsLong(obj);
    if (s == -1 && PyErr_Occurred())
        return -1;
    if (s < 0 || s >= n) {
        PyErr_Format(PyExc_ValueError, "no seat %ld at a table of %d", s, n);
        return -1;
    }
    *out = (int)s;
    return 0;
}

static int
check_code(long code)
{
    int kind = CODE_KIND(code), f1 = CODE_F1(code), f2 = CODE_F2(code), f3 = CODE_F3(code);
    if (code < 0 || code >= (1L << 19) || f1 >= N_RANKS || f2 >= N_RANKS ||
        (kind >= K_SEQ && (f2 < f1 || f2 > TWO))) {
        PyErr_SetString(PyExc_ValueError, "bad play code");
        return -1;
    }
    (void)f3;
    return 0;
}

static void
game_free(Game *G)
{
    PyMem_Free(G->moves.plays);
    PyMem_Free(G->moves.pool);
    PyMem_Free(G->probe.plays);
    PyMem_Free(G->probe.pool);
    Py_XDECREF(G->gen.code_obj);
    Py_XDECREF(G->trace);
    PyMem_Free(G);
}

PyObject *
core_pagat_playout(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "pagat_playout() takes 9 arguments");
        return NULL;
    }
    if (plan_ready() < 0)
        return NULL;
    PyObject *hands = args[0], *last = args[2], *order = args[5], *teams = args[6];
    if (!PyList_Check(hands) || !PyList_Check(order)) {
        PyErr_SetString(PyExc_TypeError, "hands and order must be lists");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(hands);
    if (n < 2 || n > MAX_SEATS) {
        PyErr_Format(PyExc_ValueError, "a table of 2 to %d seats, not %zd", MAX_SEATS, n);
        return NULL;
    }
    Game *G = PyMem_Calloc(1, sizeof(Game));
    if (G == NULL)
        return PyErr_NoMemory();
    G->n = (int)n;
    long seq_top = PyLong_AsLong(args[7]);
    if (seq_top == -1 && PyErr_Occurred())
        goto fail;
    if (seq_top != ACE && seq_top != TWO) {
        PyErr_SetString(PyExc_ValueError, "seq_top must be 11 or 12");
        goto fail;
    }
    G->seq_top = (int)seq_top;
    int total = 0;
    for (int s = 0; s < G->n; s++) {
        if (read_cards(PyList_GET_ITEM(hands, s), G->count[s], &G->size[s]) < 0)
            goto fail;
        int counts[N_RANKS];
        rank_counts(G, s, counts);
        for (int r = 0; r < N_RANKS; r++) {
            if (counts[r] > MAX_PLAN_COUNT) {
                PyErr_SetString(PyExc_ValueError, "more cards of one rank than a playout "
                                "plans for");
                goto fail;
            }
        }
        total += G->size[s];
    }
    if (seat_of(args[1], G->n, 0, &G->to_act) < 0 || seat_of(args[3], G->n, 1, &G->last_seat) < 0)
        goto fail;
    long passes = PyLong_AsLong(args[4]);
    if (passes == -1 && PyErr_Occurred())
        goto fail;
    if (passes < 0 || passes >= G->n) {
        PyErr_SetString(PyExc_ValueError, "passes out of range");
        goto fail;
    }
    G->passes = (int)passes;
    Py_ssize_t no = PyList_GET_SIZE(order);
    if (no >= G->n) {
        PyErr_SetString(PyExc_ValueError, "the hand is over");
        goto fail;
    }
    for (Py_ssize_t i = 0; i < no; i++) {
        int s;
        if (seat_of(PyList_GET_ITEM(order, i), G->n, 0, &s) < 0)
            goto fail;
        if (G->size[s]) {
            PyErr_SetString(PyExc_ValueError, "a seat in the order holds cards");
            goto fail;
        }
        G->order[G->norder++] = s;
    }
    if (teams == Py_None) {
        for (int s = 0; s < G->n; s++)
            G->team[s] = s;
    } else {
        if (!PyList_Check(teams) || PyList_GET_SIZE(teams) != n) {
            PyErr_SetString(PyExc_ValueError, "teams must be None or a list of one team a seat");
            goto fail;
        }
        G->has_teams = 1;
        for (int s = 0; s < G->n; s++)
            if (seat_of(PyList_GET_ITEM(teams, s), G->n, 0, &G->team[s]) < 0)
                goto fail;
    }
    if (last != Py_None) {
        PyObject *code_obj, *cards_obj;
        if (!PyTuple_Check(last) || PyTuple_GET_SIZE(last) != 2) {
            PyErr_SetString(PyExc_TypeError, "last must be None or (code, cards)");
            goto fail;
        }
        code_obj = PyTuple_GET_ITEM(last, 0);
        cards_obj = PyTuple_GET_ITEM(last, 1);
        G->last_code = PyLong_AsLong(code_obj);
        if ((G->last_code == -1 && PyErr_Occurred()) || check_code(G->last_code) < 0)
            goto fail;
        unsigned char lc[N_CARDS];
        if (read_cards(cards_obj, lc, &G->last_n) < 0)
            goto fail;
        int k = 0;
        for (int c = 0; c < N_CARDS; c++)
            for (int i = 0; i < lc[c]; i++)
                G->last_cards[k++] = c;
        if (G->last_seat < 0) {
            PyErr_SetString(PyExc_ValueError, "a play to beat needs its seat");
            goto fail;
        }
        G->has_last = 1;
    }
    if (!G->size[G->to_act] || total == 0) {
        PyErr_SetString(PyExc_ValueError, "the seat to act holds no cards");
        goto fail;
    }
    if (PyObject_IsTrue(args[8])) {
        G->trace = PyList_New(0);
        if (G->trace == NULL)
            goto fail;
    }
    Choice *ch = PyMem_Malloc(sizeof(Choice));
    if (ch == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    /* every move plays a card or passes, and a trick ends after n passes at most */
    long limit = (long)(total + 1) * (G->n + 1) + 1;
    while (!G->over) {
        if (--limit < 0) {
            PyErr_SetString(PyExc_RuntimeError, "a playout did not end");
            PyMem_Free(ch);
            goto fail;
        }
        if (policy(G, ch) < 0 || apply(G, ch) < 0) {
            PyMem_Free(ch);
            goto fail;
        }
    }
    PyMem_Free(ch);
    PyObject *out = PyList_New(G->norder);
    if (out == NULL)
        goto fail;
    for (int i = 0; i < G->norder; i++)
        PyList_SET_ITEM(out, i, PyLong_FromLong(G->order[i]));
    PyObject *res = Py_BuildValue("(NO)", out, G->trace ? G->trace : Py_None);
    game_free(G);
    return res;
fail:
    game_free(G);
    return NULL;
}

