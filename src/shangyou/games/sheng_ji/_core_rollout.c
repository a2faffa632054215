/* The Sheng ji search's playout in C: Sim.run (bots/sheng_ji_search.py) with the rollout policy
 * of bots/sheng_ji_rollout.py (fast_play, _fast_lead, simple_winner, _can_beat, _take), played
 * on bare hands to the hand's end. The Python code stays the reference: the same choices in
 * the same order, the tie-break numbers drawn from the caller's rng.random in the same order
 * (tests/test_sheng_ji_rollout_core.py compares values and rng states). Where Python's choice
 * depends on the iteration order of a set of cards (sorted(set(...)) with equal keys), the set
 * is built by Python itself, so the order is the interpreter's.
 *
 * rollout(suit_of, pos, is_trump, hands, trick, to_act, declarers, won, calls, seen, declarer,
 *         random) -> (hands, won, declarers, open_calls, last_lead, last_winner, to_act, seen), or
 * None for a state it does not cover (the Python code plays it). */

#include "_core.h"

#define RMAXH 64                /* the most cards of one hand here */
#define RMAXC 16                /* the most open calls */

static const int PTS[NCARD] = {
    0, 0, 0, 0, 0, 0, 0, 0, 5, 5, 5, 5, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 10, 10, 10, 10, 0, 0, 0, 0, 0, 0, 0, 0,
    10, 10, 10, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

typedef struct {
    int n, to_act, declarer;
    int suit[NCARD], pos[NCARD], istr[NCARD];
    int hl[MAXSEATS];
    unsigned char h[MAXSEATS][RMAXH];
    int decl[MAXSEATS], won[MAXSEATS];
    int tn, tseat[MAXSEATS], tlen[MAXSEATS];
    unsigned char tc[MAXSEATS][2];
    int ncalls, nopen, cord[RMAXC], ccard[RMAXC], copen[RMAXC], seen[NCARD];
    int last_len, last_winner;
    unsigned char last_lead[2];
    PyObject *random;
} R;

/* the (is trump, position) key of a card, as one int */
#define KEY(r, c) (((r)->suit[c] == TRUMP) * 100 + (r)->pos[c])

/* stable insertion sort of cards by int keys (Python's sorted on these keys) */
static void ssort(unsigned char *cs, int *keys, int n)
{
    for (int i = 1; i < n; i++) {
        unsigned char c = cs[i];
        int k = keys[i], j = i;
        while (j > 0 && keys[j - 1] > k) {
            cs[j] = cs[j - 1];
            keys[j] = keys[j - 1];
            j--;
        }
        cs[j] = c;
        keys[j] = k;
    }
}

/* the key of cheap(c) in fast_play: (is trump and suit != TRUMP, PTS, pos) */
static int cheap(const R *r, int c, int suit)
{
    return ((r->istr[c] && suit != TRUMP) * 10000) + PTS[c] * 100 + r->pos[c];
}

/* sorted(set(cs), key): ``keys`` of the n cards (list order); out: the distinct cards sorted.
 * Returns their number, -1 on a Python error. Where two distinct cards tie on their key, the
 * set's own iteration order decides, so Python builds the set. */
static int sorted_set(const unsigned char *cs, const int *keys, int n, unsigned char *out,
                      int *okeys)
{
    int m = 0, have[NCARD], kc[NCARD], tie = 0;
    memset(have, 0, sizeof have);
    for (int i = 0; i < n; i++)
        if (!have[cs[i]]) {
            have[cs[i]] = 1;
            kc[cs[i]] = keys[i];
            for (int j = 0; j < m; j++)
                if (okeys[j] == keys[i])
                    tie = 1;
            out[m] = cs[i];
            okeys[m++] = keys[i];
        }
    if (tie) {
        PyObject *lst = PyList_New(n);
        if (lst == NULL)
            return -1;
        for (int i = 0; i < n; i++) {
            PyObject *v = PyLong_FromLong(cs[i]);
            if (v == NULL) {
                Py_DECREF(lst);
                return -1;
            }
            PyList_SET_ITEM(lst, i, v);
        }
        PyObject *set = PySet_New(lst);
        Py_DECREF(lst);
        if (set == NULL)
            return -1;
        PyObject *it = PyObject_GetIter(set), *v;
        Py_DECREF(set);
        if (it == NULL)
            return -1;
        m = 0;
        while ((v = PyIter_Next(it)) != NULL) {
            long c = PyLong_AsLong(v);
            Py_DECREF(v);
            out[m] = (unsigned char)c;
            okeys[m++] = kc[c];
        }
        Py_DECREF(it);
        if (PyErr_Occurred())
            return -1;
    }
    ssort(out, okeys, m);
    return m;
}

/* the cards that occur at least twice in cs, in order of first occurrence (Counter order) */
static int pairs_of(const unsigned char *cs, int n, unsigned char *out)
{
    int cnt[NCARD], m = 0;
    memset(cnt, 0, sizeof cnt);
    for (int i = 0; i < n; i++)
        cnt[cs[i]]++;
    for (int i = 0; i < n; i++)
        if (cnt[cs[i]] >= 2) {
            out[m++] = cs[i];
            cnt[cs[i]] = 0;
        }
    return m;
}

/* simple_winner: the index of the trick's winning play (a lead of a single or a pair) */
static int winner_of(const R *r)
{
    int pair = r->tlen[0] == 2, suit = r->suit[r->tc[0][0]];
    int best = 0, key = KEY(r, r->tc[0][0]);
    for (int i = 1; i < r->tn; i++) {
        int c = r->tc[i][0];
        if (pair && r->tc[i][1] != c)
            continue;
        int sc = r->suit[c];
        if (sc != suit && sc != TRUMP)
            continue;
        int k = KEY(r, c);
        if (k > key) {
            best = i;
            key = k;
        }
    }
    return best;
}

/* _can_beat: can a foe still to play after seat beat best_key with n cards of suit? */
static int can_beat(const R *r, int seat, int played, int suit, int n, int best_key)
{
    for (int i = 1; i < r->n - played; i++) {
        int s = (seat + i) % r->n;
        if (r->decl[s] == r->decl[seat])
            continue;
        const unsigned char *h = r->h[s];
        int hl = r->hl[s], m = 0, want;
        for (int j = 0; j < hl; j++)
            m += r->suit[h[j]] == suit;
        if (m >= n)
            want = suit;
        else if (!m)
            want = TRUMP;
        else
            continue;
        int cnt[NCARD];
        if (n != 1)
            memset(cnt, 0, sizeof cnt);
        for (int j = 0; j < hl; j++) {
            int c = h[j];
            if (r->suit[c] != want)
                continue;
            if (n == 1) {
                if (KEY(r, c) > best_key)
                    return 1;
            } else if (++cnt[c] >= 2 && KEY(r, c) > best_key)
                return 1;
        }
    }
    return 0;
}

#define BEATS(r, c) ((r->suit[c] == suit || r->suit[c] == TRUMP) && KEY(r, c) > best_key)

/* _take: the card (of a single or a pair) with which to take the trick, or -1 */
static int take(const R *r, int seat, int suit, int n, const unsigned char *opts, int nopts,
                int best_key, int last, int table, int ruff)
{
    unsigned char win[RMAXH], safe[RMAXH];
    int nw = 0, ns = 0;
    for (int i = 0; i < nopts; i++)
        if (BEATS(r, opts[i]))
            win[nw++] = opts[i];
    if (!nw)
        return -1;
    for (int i = 0; i < nw; i++)
        if (last || !can_beat(r, seat, r->tn, suit, n, KEY(r, win[i])))
            safe[ns++] = win[i];
    if (ns) {
        if (ruff)
            return safe[0];
        int best = -1, bk = 0;
        for (int i = 0; i < ns; i++) {
            int c = safe[i];
            int k = ((r->suit[c] == TRUMP && suit != TRUMP) * 10000) + (50 - PTS[c]) * 100
                + r->pos[c];
            if (best < 0 || k < bk) {
                best = c;
                bk = k;
            }
        }
        return best;
    }
    if (!ruff && table >= 10 && !(r->suit[win[0]] == TRUMP && suit != TRUMP))
        return win[0];
    return -1;
}

/* the first card of opts with the highest (PTS, -pos): a card fed to a winning partner */
static int feed(const R *r, const unsigned char *opts, int n)
{
    int best = opts[0], bk = PTS[best] * 100 + (99 - r->pos[best]);
    for (int i = 1; i < n; i++) {
        int k = PTS[opts[i]] * 100 + (99 - r->pos[opts[i]]);
        if (k > bk) {
            best = opts[i];
            bk = k;
        }
    }
    return best;
}

/* fast_play's follow to a single or a pair; the number of cards in out, -1 on error */
static int follow(R *r, unsigned char *out)
{
    int seat = r->to_act, n = r->tlen[0], suit = r->suit[r->tc[0][0]];
    const unsigned char *hand = r->h[seat];
    int hl = r->hl[seat];
    unsigned char mine[RMAXH], rest[RMAXH], opts[RMAXH];
    int keys[RMAXH], okeys[RMAXH], nm = 0, nr = 0, no;
    for (int i = 0; i < hl; i++) {
        if (r->suit[hand[i]] == suit)
            mine[nm++] = hand[i];
        else
            rest[nr++] = hand[i];
    }
    int w = winner_of(r), b = r->tc[w][0];
    int best_key = (r->tlen[w] == 1 || r->tc[w][1] == b) ? KEY(r, b) : 199;
    int last = r->tn == r->n - 1;
    int mate_wins = r->decl[r->tseat[w]] == r->decl[seat]
        && (last || !can_beat(r, seat, r->tn, suit, n, best_key));
    int table = 0;
    for (int i = 0; i < r->tn; i++)
        for (int j = 0; j < r->tlen[i]; j++)
            table += PTS[r->tc[i][j]];
    if (nm > n) {                       /* must follow in the suit */
        if (n == 1) {
            for (int i = 0; i < nm; i++)
                keys[i] = cheap(r, mine[i], suit);
            if ((no = sorted_set(mine, keys, nm, opts, okeys)) < 0)
                return -1;
            if (mate_wins) {
                out[0] = (unsigned char)feed(r, opts, no);
                return 1;
            }
            int c = take(r, seat, suit, 1, opts, no, best_key, last, table, 0);
            out[0] = (unsigned char)(c >= 0 ? c : opts[0]);
            return 1;
        }
        no = pairs_of(mine, nm, opts);
        if (no) {
            for (int i = 0; i < no; i++)
                okeys[i] = cheap(r, opts[i], suit);
            ssort(opts, okeys, no);
            int c;
            if (mate_wins)
                c = feed(r, opts, no);
            else if ((c = take(r, seat, suit, 2, opts, no, best_key, last, table, 0)) < 0)
                c = opts[0];
            out[0] = out[1] = (unsigned char)c;
            return 2;
        }
        for (int i = 0; i < nm; i++)
            keys[i] = mate_wins ? (50 - PTS[mine[i]]) * 100 + r->pos[mine[i]]
                                : cheap(r, mine[i], suit);
        ssort(mine, keys, nm);
        out[0] = mine[0];
        out[1] = mine[1];
        return 2;
    }
    /* short of the suit: all of it, and free cards */
    int need = n - nm;
    memcpy(out, mine, nm);
    if (!need)
        return nm;
    if (!nm && suit != TRUMP && !mate_wins && table >= 5) {
        unsigned char tr[RMAXH];
        int nt = 0;
        for (int i = 0; i < nr; i++)
            if (r->istr[rest[i]]) {
                keys[nt] = r->pos[rest[i]];
                tr[nt++] = rest[i];
            }
        if (n == 1) {
            if ((no = sorted_set(tr, keys, nt, opts, okeys)) < 0)
                return -1;
        } else {
            no = pairs_of(tr, nt, opts);
            for (int i = 0; i < no; i++)
                okeys[i] = r->pos[opts[i]];
            ssort(opts, okeys, no);
        }
        int c = take(r, seat, suit, n, opts, no, best_key, last, table, 1);
        if (c >= 0) {
            for (int i = 0; i < n; i++)
                out[i] = (unsigned char)c;
            return n;
        }
    }
    for (int i = 0; i < nr; i++) {
        int c = rest[i];
        keys[i] = r->istr[c] * 10000 + (mate_wins ? 50 - PTS[c] : 50 + PTS[c]) * 100 + r->pos[c];
    }
    ssort(rest, keys, nr);
    for (int i = 0; i < need; i++)
        out[nm + i] = rest[i];
    return n;
}

/* _fast_lead; the number of cards in out, -1 on error */
static int lead(R *r, unsigned char *out)
{
    int seat = r->to_act, n = r->n;
    int ftop1[5], ftop2[5], mtop1[5], ruff1[5], ruff2[5], mruff[5];
    int foe_trumps = 0, side_trumps = 0;
    for (int i = 0; i < 5; i++) {
        ftop1[i] = ftop2[i] = mtop1[i] = -1;
        ruff1[i] = ruff2[i] = mruff[i] = 0;
    }
    for (int s = 0; s < n; s++) {
        if (s == seat)
            continue;
        int lens[5] = {0, 0, 0, 0, 0}, foe = r->decl[s] != r->decl[seat], tpair = 0;
        int seen[NCARD];
        memset(seen, 0, sizeof seen);
        for (int j = 0; j < r->hl[s]; j++) {
            int c = r->h[s][j], su = r->suit[c], p = r->pos[c];
            lens[su]++;
            if (foe) {
                if (p > ftop1[su])
                    ftop1[su] = p;
                if (seen[c]) {
                    if (p > ftop2[su])
                        ftop2[su] = p;
                    if (su == TRUMP)
                        tpair = 1;
                } else
                    seen[c] = 1;
            } else if (p > mtop1[su])
                mtop1[su] = p;
        }
        if (lens[TRUMP])
            for (int su = 0; su < 4; su++)
                if (!lens[su]) {
                    if (foe) {
                        ruff1[su] = 1;
                        ruff2[su] = ruff2[su] || tpair;
                    } else
                        mruff[su] = 1;
                }
        if (foe) {
            if (lens[TRUMP] > foe_trumps)
                foe_trumps = lens[TRUMP];
        } else
            side_trumps += lens[TRUMP];
    }
    const unsigned char *hand = r->h[seat];
    int hl = r->hl[seat], cnt[NCARD], mine[5] = {0, 0, 0, 0, 0};
    memset(cnt, 0, sizeof cnt);
    for (int j = 0; j < hl; j++) {
        cnt[hand[j]]++;
        mine[r->suit[hand[j]]]++;
    }
    side_trumps += mine[TRUMP];
    int draw = foe_trumps && side_trumps > 2 * foe_trumps;
    int have = 0, done[NCARD];
    double best = 0.0;
    memset(done, 0, sizeof done);
    for (int j = 0; j < hl; j++) {
        int c = hand[j];
        if (done[c])
            continue;
        done[c] = 1;
        int k = cnt[c], suit = r->suit[c], p = r->pos[c], pts = PTS[c], size = 1;
        double score;
        if (suit != TRUMP) {
            if (k >= 2 && p >= ftop2[suit] && !ruff2[suit]) {
                score = 70 + p + 2 * pts;
                size = 2;
            } else if (p >= ftop1[suit] && !ruff1[suit])
                score = 60 + p + pts;
            else if (!ruff1[suit] && mruff[suit])
                score = 45 + 2 * pts - p;
            else if (!ruff1[suit] && mtop1[suit] > ftop1[suit])
                score = 40 - p - 2 * pts;
            else if (k >= 2 && !ruff2[suit]) {
                score = 30 + p - 2 * pts;
                size = 2;
            } else {
                volatile double half = 1.5 * mine[suit];
                score = (double)(20 - p - 2 * pts) - half;
                if (ruff1[suit])
                    score -= (double)(15 + pts);
            }
        } else {
            if (k >= 2 && p >= ftop2[TRUMP]) {
                score = 45 + p;
                size = 2;
            } else if (p >= ftop1[TRUMP])
                score = (draw ? 55 : 35) - pts;
            else if (k >= 2) {
                score = 10 + p;
                size = 2;
            } else
                score = -p - 2 * pts;
        }
        PyObject *v = PyObject_CallNoArgs(r->random);
        if (v == NULL)
            return -1;
        double x = PyFloat_AsDouble(v);
        Py_DECREF(v);
        if (x == -1.0 && PyErr_Occurred())
            return -1;
        volatile double add = x * 3;
        score = score + add;
        if (!have || score > best) {
            have = 1;
            best = score;
            out[0] = out[1] = (unsigned char)c;
            out[2] = (unsigned char)size;
        }
    }
    if (!have) {
        PyErr_SetString(PyExc_RuntimeError, "rollout: a lead from an empty hand");
        return -1;
    }
    return out[2];
}

/* Sim.play of the seat to act (cards sorted); 1 when that ended the hand */
static int play(R *r, const unsigned char *cs, int k)
{
    int seat = r->to_act;
    unsigned char *h = r->h[seat];
    for (int i = 0; i < k; i++)
        for (int j = 0; j < r->hl[seat]; j++)
            if (h[j] == cs[i]) {
                memmove(h + j, h + j + 1, r->hl[seat] - j - 1);
                r->hl[seat]--;
                break;
            }
    r->tseat[r->tn] = seat;
    r->tlen[r->tn] = k;
    memcpy(r->tc[r->tn], cs, k);
    r->tn++;
    if (r->nopen)                       /* Sim._note_friends */
        for (int i = 0; i < k; i++) {
            int c = cs[i];
            r->seen[c]++;
            for (int j = 0; j < r->ncalls; j++)
                if (r->copen[j] && r->ccard[j] == c && r->seen[c] == r->cord[j]) {
                    r->copen[j] = 0;
                    r->nopen--;
                    if (seat != r->declarer)
                        r->decl[seat] = 1;
                }
        }
    if (r->tn < r->n) {
        r->to_act = (seat + 1) % r->n;
        return 0;
    }
    int w = winner_of(r), winner = r->tseat[w], pts = 0;
    for (int i = 0; i < r->tn; i++)
        for (int j = 0; j < r->tlen[i]; j++)
            pts += PTS[r->tc[i][j]];
    r->won[winner] += pts;
    r->last_len = r->tlen[0];
    memcpy(r->last_lead, r->tc[0], 2);
    r->tn = 0;
    r->to_act = winner;
    if (r->hl[winner])
        return 0;
    r->last_winner = winner;
    return 1;
}

/* ints from a list of n (0 <= v < lim); 0: not covered (or a Python error set) */
static int ints(PyObject *seq, int *out, int n, int lim)
{
    if (!PyList_Check(seq) || PyList_GET_SIZE(seq) != n)
        return 0;
    for (int i = 0; i < n; i++) {
        long v = PyLong_AsLong(PyList_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred())
            return 0;
        if (v < 0 || v >= lim)
            return 0;
        out[i] = (int)v;
    }
    return 1;
}

static int cards_in(PyObject *seq, unsigned char *out, int max)
{
    PyObject *f = PySequence_Fast(seq, "cards");
    if (f == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(f);
    if (n > max) {
        Py_DECREF(f);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(f, i));
        if (v < 0 || v >= NCARD) {
            Py_DECREF(f);
            return -1;
        }
        out[i] = (unsigned char)v;
    }
    Py_DECREF(f);
    return (int)n;
}

static int load(R *r, PyObject *const *a)
{
    if (!ints(a[0], r->suit, NCARD, 5) || !ints(a[1], r->pos, NCARD, 100)
        || !ints(a[2], r->istr, NCARD, 2))
        return 0;
    PyObject *hands = a[3], *trick = a[4];
    if (!PyList_Check(hands) || PyList_GET_SIZE(hands) < 2
        || PyList_GET_SIZE(hands) > MAXSEATS || !PyList_Check(trick))
        return 0;
    r->n = (int)PyList_GET_SIZE(hands);
    for (int s = 0; s < r->n; s++)
        if ((r->hl[s] = cards_in(PyList_GET_ITEM(hands, s), r->h[s], RMAXH)) < 0)
            return 0;
    r->tn = (int)PyList_GET_SIZE(trick);
    if (r->tn >= r->n)
        return 0;
    for (int i = 0; i < r->tn; i++) {
        PyObject *e = PyList_GET_ITEM(trick, i);
        if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) != 2)
            return 0;
        long s = PyLong_AsLong(PyTuple_GET_ITEM(e, 0));
        if (s < 0 || s >= r->n)
            return 0;
        r->tseat[i] = (int)s;
        r->tlen[i] = cards_in(PyTuple_GET_ITEM(e, 1), r->tc[i], 2);
        if (r->tlen[i] < 1 || r->tlen[i] != r->tlen[0])
            return 0;
    }
    if (r->tn && r->tlen[0] == 2 && r->tc[0][0] != r->tc[0][1])
        return 0;                       /* not a single or a pair: fast_play does not cover it */
    r->to_act = (int)PyLong_AsLong(a[5]);
    r->declarer = (int)PyLong_AsLong(a[10]);
    if (PyErr_Occurred() || r->to_act < 0 || r->to_act >= r->n || !r->hl[r->to_act])
        return 0;
    if (!ints(a[6], r->decl, r->n, 2) || !ints(a[7], r->won, r->n, 1 << 20))
        return 0;
    PyObject *calls = a[8];
    if (!PyList_Check(calls) || PyList_GET_SIZE(calls) > RMAXC)
        return 0;
    r->ncalls = r->nopen = (int)PyList_GET_SIZE(calls);
    memset(r->seen, 0, sizeof r->seen);
    for (int i = 0; i < r->ncalls; i++) {
        PyObject *e = PyList_GET_ITEM(calls, i);
        if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) != 2)
            return 0;
        r->cord[i] = (int)PyLong_AsLong(PyTuple_GET_ITEM(e, 0));
        r->ccard[i] = (int)PyLong_AsLong(PyTuple_GET_ITEM(e, 1));
        r->copen[i] = 1;
        if (PyErr_Occurred())
            return 0;
    }
    if (r->ncalls) {
        if (!PyDict_Check(a[9]))
            return 0;
        for (int c = 0; c < NCARD; c++) {
            PyObject *k = PyLong_FromLong(c);
            if (k == NULL)
                return 0;
            PyObject *v = PyDict_GetItemWithError(a[9], k);
            Py_DECREF(k);
            if (v == NULL) {
                if (PyErr_Occurred())
                    return 0;
                continue;
            }
            r->seen[c] = (int)PyLong_AsLong(v);
            if (PyErr_Occurred())
                return 0;
        }
    }
    r->random = a[11];
    r->last_len = 0;
    r->last_winner = -1;
    return 1;
}

static PyObject *int_list(const int *v, int n)
{
    PyObject *l = PyList_New(n);
    if (l == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *x = PyLong_FromLong(v[i]);
        if (x == NULL) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, i, x);
    }
    return l;
}

PyObject *sj_rollout(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 12) {
        PyErr_SetString(PyExc_TypeError, "rollout takes 12 arguments");
        return NULL;
    }
    R r;
    if (!load(&r, args)) {
        if (PyErr_Occurred())
            PyErr_Clear();
        Py_RETURN_NONE;
    }
    unsigned char cs[3];
    for (;;) {
        int k = r.tn ? follow(&r, cs) : lead(&r, cs);
        if (k < 0)
            return NULL;
        if (k == 2 && cs[0] > cs[1]) {
            unsigned char t = cs[0];
            cs[0] = cs[1];
            cs[1] = t;
        }
        if (play(&r, cs, k))
            break;
    }
    PyObject *hands = PyList_New(r.n), *open;
    if (hands == NULL)
        return NULL;
    for (int s = 0; s < r.n; s++) {
        PyObject *h = PyList_New(r.hl[s]);
        if (h == NULL) {
            Py_DECREF(hands);
            return NULL;
        }
        for (int j = 0; j < r.hl[s]; j++)
            PyList_SET_ITEM(h, j, PyLong_FromLong(r.h[s][j]));
        PyList_SET_ITEM(hands, s, h);
    }
    int idx[RMAXC], no = 0;
    for (int i = 0; i < r.ncalls; i++)
        if (r.copen[i])
            idx[no++] = i;
    open = int_list(idx, no);
    int lead_v[2] = {r.last_lead[0], r.last_lead[1]};
    PyObject *lead_t = int_list(lead_v, r.last_len);
    if (lead_t != NULL)
        Py_SETREF(lead_t, PyList_AsTuple(lead_t));
    PyObject *seen;
    if (r.ncalls)
        seen = int_list(r.seen, NCARD);
    else {
        seen = Py_None;
        Py_INCREF(seen);
    }
    return Py_BuildValue("(NNNNNiiN)", hands, int_list(r.won, r.n), int_list(r.decl, r.n),
                         open, lead_t, r.last_winner, r.to_act, seen);
}
