/* The deal's last round (ShengJiGame._advance_deal past the draws) and the end of a hand
   in C.

   The end of a hand: ShengJiGame._end_hand (ends.end_hand, the Python reference): the
   points of the opponents, the kitty and its multiplier, the penalty, the level change, the
   levels, the summary (``history``, the "hand over" event), the next declarer, and at the
   end of a single hand or a match the result. What it leaves to the Python code (``end_hand``
   answers None, having changed nothing): ``jack_hook``, and any state it cannot read (an
   attribute missing or of another type, a level or a card out of range, no units). */

#include "_core.h"
#include "_core_ends.h"

/* a dict made for n items (no resizing while they are set) */
#if PY_VERSION_HEX < 0x030D0000
#define NEW_DICT(n) _PyDict_NewPresized(n)
#else
#define NEW_DICT(n) PyDict_New()
#endif

static PyObject *level_text[13];      /* LEVELS[SJ_RANK[r]] by rank index r; made once */
static PyObject *E_names[48];

enum {
    N_rules, N_trump, N_declarer, N_friends, N_teams, N_won, N_kitty, N_penalty, N_levels,
    N_decks, N_kitty_multiplier, N_jack_hook, N_must_play, N_level_rank, N_hand_number,
    N_history, N_match, N_phase, N_over, N_to_act, N_result, N_events, N_width, N_length,
    N_n, N_power, N_linear,
    /* the summary's keys */
    N_hand, N_points, N_kitty_points, N_kitty_bonus, N_total, N_change, N_levels_before,
    N_declarers, N_opponents, N_side, N_swap, N_event, N_hand_over, N_penalty_key, NN
};
static PyObject *N_winners, *N_match_winners, *N_last, *N_hands, *N_over_text;

static const char *const E_TEXT[NN] = {
    "rules", "trump", "declarer", "friends", "teams", "won", "kitty", "penalty_points",
    "levels", "decks", "kitty_multiplier", "jack_hook", "must_play", "level_rank",
    "hand_number", "history", "match", "phase", "over", "to_act", "result", "events", "width",
    "length", "n", "power", "linear",
    "hand", "points", "kitty_points", "kitty_bonus", "total", "change", "levels_before",
    "declarers", "opponents", "side", "swap", "event", "hand over", "penalty"};

static int
names(void)
{
    if (N_over_text != NULL)
        return 0;
    static const char *const LV[13] = {"2", "3", "4", "5", "6", "7", "8", "9", "10", "J",
                                       "Q", "K", "A"};
    for (int r = 0; r < 13; r++)
        if (level_text[r] == NULL &&
            (level_text[r] = PyUnicode_InternFromString(LV[(r + 1) % 13])) == NULL)
            return -1;
    for (int i = 0; i < NN; i++)
        if (E_names[i] == NULL && (E_names[i] = PyUnicode_InternFromString(E_TEXT[i])) == NULL)
            return -1;
    if ((N_winners = PyUnicode_InternFromString("winners")) == NULL ||
        (N_match_winners = PyUnicode_InternFromString("match_winners")) == NULL ||
        (N_last = PyUnicode_InternFromString("last")) == NULL ||
        (N_hands = PyUnicode_InternFromString("hands")) == NULL)
        return -1;
    N_over_text = PyUnicode_InternFromString("over");
    return N_over_text == NULL ? -1 : 0;
}

#define NM(x) E_names[N_##x]

/* an int attribute in [lo, hi], or *ok cleared */
static long
int_attr(PyObject *o, PyObject *name, long lo, long hi, int *ok)
{
    if (!*ok)
        return 0;
    PyObject *v = PyObject_GetAttr(o, name);
    long x = 0;
    if (v == NULL || !PyLong_CheckExact(v)) {
        *ok = 0;
    } else {
        x = PyLong_AsLong(v);
        if ((x == -1 && PyErr_Occurred()) || x < lo || x > hi)
            *ok = 0;
    }
    Py_XDECREF(v);
    if (!*ok && PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_MemoryError))
        PyErr_Clear();
    return x;
}

/* the points of a list of cards, or -1 (not a list of cards) */
static long
list_points(PyObject *list)
{
    if (!PyList_CheckExact(list))
        return -1;
    long p = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
        int c = sj_card_of(PyList_GET_ITEM(list, i));
        if (c < 0)
            return -1;
        int r = c < BJ ? c >> 2 : -1;
        p += r == 2 ? 5 : (r == 7 || r == 10) ? 10 : 0;
    }
    return p;
}

static PyObject *
int_list(const long *v, int n, int texts)
{
    PyObject *l = PyList_New(n);
    for (int i = 0; l != NULL && i < n; i++) {
        PyObject *x = texts ? Py_NewRef(level_text[v[i]]) : PyLong_FromLong(v[i]);
        if (x == NULL)
            Py_CLEAR(l);
        else
            PyList_SET_ITEM(l, i, x);
    }
    return l;
}

/* scoring.next_level */
static long
next_level(long level, long steps, const long *stops, int nstops)
{
    int i = (int)((level + 1) % 13);               /* _LEVEL_INDEX: SJ_RANK */
    for (long k = 0; k < steps; k++) {
        if (i == 12)
            break;
        i++;
        int stop = 0;
        for (int j = 0; j < nstops; j++)
            stop |= stops[j] == (i + 12) % 13;     /* LEVEL_ORDER[i] */
        if (stop)
            break;
    }
    return (i + 12) % 13;
}

/* end_hand(game, last_winner, last_units, winning_play): ends.end_hand made in C; None when
   not made (nothing changed), False when the game is over, True when the next hand is to be
   dealt (``declarer`` set: the caller calls ``_start_hand``) */
PyObject *
sj_end_hand(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 && nargs != 5) {
        PyErr_SetString(PyExc_TypeError,
                        "end_hand(game, last_winner, last_units, winning[, points_won])");
        return NULL;
    }
    /* points_won: each seat's card points won, as a tuple (the hand held in C gives them,
       _core_hand_play.c, so ``won`` is not made again for the scoring); else read from won */
    PyObject *given = nargs == 5 ? args[4] : NULL;
    if (names() < 0 || sj_names() < 0)
        return NULL;
    PyObject *game = args[0], *units = args[2];
    int ok = PyLong_CheckExact(args[1]) && PyList_Check(units) && PyList_GET_SIZE(units) > 0;
    long last_winner = ok ? PyLong_AsLong(args[1]) : -1;
    PyObject *rules = NULL, *trump = NULL, *friends = NULL, *teams = NULL, *won = NULL,
             *kitty = NULL, *mode = NULL, *hook = NULL, *must = NULL, *history = NULL,
             *match = NULL, *res = NULL;
    PyObject *decl_l = NULL, *opp_l = NULL, *summary = NULL, *change = NULL, *ev = NULL,
             *lv_before = NULL, *lv_after = NULL, *tmp = NULL;
    long levels[MAXSEATS], old[MAXSEATS], stops[16];
    int nstops = 0;
    ok = ok && (rules = PyObject_GetAttr(game, NM(rules))) != NULL;
    long n = int_attr(game, NM(n), 1, MAXSEATS, &ok);
    long declarer = int_attr(game, NM(declarer), 0, n - 1, &ok);
    long decks = ok ? int_attr(rules, NM(decks), 1, 1000, &ok) : 0;
    long penalty = int_attr(game, NM(penalty), -1000000, 1000000, &ok);
    long level_rank = int_attr(game, NM(level_rank), 0, 12, &ok);
    long hand_number = int_attr(game, NM(hand_number), 0, 1000000000, &ok);
    ok = ok && last_winner >= 0 && last_winner < n;
    ok = ok && (hook = PyObject_GetAttr(rules, NM(jack_hook))) != NULL && hook == Py_False;
    ok = ok && (mode = PyObject_GetAttr(rules, NM(kitty_multiplier))) != NULL &&
         PyUnicode_CheckExact(mode);
    int power = ok && PyUnicode_Compare(mode, NM(power)) == 0;
    ok = ok && (power || PyUnicode_Compare(mode, NM(linear)) == 0);
    ok = ok && (must = PyObject_GetAttr(rules, NM(must_play))) != NULL &&
         PyTuple_CheckExact(must) && PyTuple_GET_SIZE(must) <= 16;
    for (Py_ssize_t i = 0; ok && i < PyTuple_GET_SIZE(must); i++) {
        PyObject *v = PyTuple_GET_ITEM(must, i);
        ok = PyLong_CheckExact(v);
        stops[nstops++] = ok ? PyLong_AsLong(v) : 0;
    }
    ok = ok && (teams = PyObject_GetAttr(rules, NM(teams))) != NULL &&
         (teams == Py_None || PyTuple_CheckExact(teams));
    ok = ok && (trump = PyObject_GetAttr(game, NM(trump))) != NULL && trump != Py_None;
    ok = ok && (friends = PyObject_GetAttr(game, NM(friends))) != NULL &&
         PyList_CheckExact(friends);
    if (given != NULL)
        ok = ok && PyTuple_CheckExact(given) && PyTuple_GET_SIZE(given) == n;
    else
        ok = ok && (won = PyObject_GetAttr(game, NM(won))) != NULL && PyList_CheckExact(won) &&
             PyList_GET_SIZE(won) == n;
    ok = ok && (kitty = PyObject_GetAttr(game, NM(kitty))) != NULL;
    ok = ok && (match = PyObject_GetAttr(game, NM(match))) != NULL;
    ok = ok && (history = PyObject_GetAttr(game, NM(history))) != NULL &&
         PyList_CheckExact(history);
    PyObject *lv = ok ? PyObject_GetAttr(game, NM(levels)) : NULL;
    ok = ok && lv != NULL && PyList_CheckExact(lv) && PyList_GET_SIZE(lv) == n;
    for (long s = 0; ok && s < n; s++) {
        PyObject *v = PyList_GET_ITEM(lv, s);
        ok = PyLong_CheckExact(v);
        levels[s] = ok ? PyLong_AsLong(v) : -1;
        ok = ok && levels[s] >= 0 && levels[s] <= 12;
        old[s] = levels[s];
    }
    /* the sides (ShengJiGame._sides) */
    char inside[MAXSEATS] = {0};
    if (ok && teams != Py_None) {
        int found = 0;
        for (Py_ssize_t i = 0; ok && !found && i < PyTuple_GET_SIZE(teams); i++) {
            PyObject *t = PyTuple_GET_ITEM(teams, i);
            ok = PyTuple_CheckExact(t);
            char mark[MAXSEATS] = {0};
            for (Py_ssize_t j = 0; ok && j < PyTuple_GET_SIZE(t); j++) {
                PyObject *v = PyTuple_GET_ITEM(t, j);
                long s = PyLong_CheckExact(v) ? PyLong_AsLong(v) : -1;
                ok = s >= 0 && s < n;
                if (ok)
                    mark[s] = 1;
            }
            if (ok && mark[declarer]) {
                found = 1;
                memcpy(inside, mark, sizeof inside);
            }
        }
        ok = ok && found;
    } else if (ok) {
        inside[declarer] = 1;
        for (Py_ssize_t i = 0; ok && i < PyList_GET_SIZE(friends); i++) {
            PyObject *v = PyList_GET_ITEM(friends, i);
            long s = PyLong_CheckExact(v) ? PyLong_AsLong(v) : -1;
            ok = s >= 0 && s < n;
            if (ok)
                inside[s] = 1;
        }
    }
    long won_pts = 0, kitty_pts = ok ? list_points(kitty) : 0;
    ok = ok && kitty_pts >= 0;
    for (long s = 0; ok && s < n; s++) {
        if (inside[s])
            continue;
        long p = given == NULL ? list_points(PyList_GET_ITEM(won, s)) :
                 PyLong_CheckExact(PyTuple_GET_ITEM(given, s)) ?
                 PyLong_AsLong(PyTuple_GET_ITEM(given, s)) : -1;
        ok = p >= 0;
        won_pts += p;
    }
    long mult = 0, bonus = 0;
    if (ok && !inside[last_winner] && kitty_pts) {     /* tricks.kitty_multiplier */
        long best = 0;
        int all_narrow = 1;
        for (Py_ssize_t i = 0; ok && i < PyList_GET_SIZE(units); i++) {
            PyObject *u = PyList_GET_ITEM(units, i);
            long w = int_attr(u, NM(width), 0, 1000, &ok);
            long len = int_attr(u, NM(length), 0, 60, &ok);
            long m = w < 2 ? 2 : power ? (1L << (len + 1)) : 2 * (len + 1);
            best = m > best ? m : best;
            all_narrow &= w < 2;
        }
        mult = !power && PyList_GET_SIZE(units) >= 2 && all_narrow ? 3 : best;
        bonus = kitty_pts * mult;
    }
    if (!ok) {
        res = PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
        goto done;
    }
    long total = won_pts + bonus + penalty;
    /* scoring.level_change */
    int declarers_win, swap;
    long steps = sj_level_change(total, 20 * decks, &declarers_win);
    swap = !declarers_win;
    for (long s = 0; s < n; s++)
        if ((inside[s] != 0) == declarers_win)
            levels[s] = next_level(levels[s], steps, stops, nstops);
    int won_game = declarers_win && level_rank == 11;
    long decl[MAXSEATS], opp[MAXSEATS];
    int nd = 0, no = 0;
    for (long s = 0; s < n; s++) {
        if (inside[s])
            decl[nd++] = s;
        else
            opp[no++] = s;
    }
    /* the levels (the same list, as the Python code changes it) */
    for (long s = 0; s < n; s++) {
        if (levels[s] == old[s])
            continue;
        PyObject *v = PyLong_FromLong(levels[s]);
        if (v == NULL || PyList_SetItem(lv, s, v) < 0)
            goto done;
    }
    unsigned char kc[256];
    Py_ssize_t nk = PyList_Check(kitty) ? PyList_GET_SIZE(kitty) : -1;
    if (nk < 0 || nk > 256) {
        PyErr_SetString(PyExc_RuntimeError, "end_hand: the kitty changed");
        goto done;
    }
    for (Py_ssize_t i = 0; i < nk; i++)
        kc[i] = (unsigned char)sj_card_of(PyList_GET_ITEM(kitty, i));
    PyObject *trump_text = PyObject_Str(trump);
    if (trump_text == NULL)
        goto done;
    change = PyDict_New();
    PyObject *steps_o = PyLong_FromLong(steps);
    if (change == NULL || steps_o == NULL ||
        PyDict_SetItem(change, NM(side), declarers_win ? NM(declarers) : NM(opponents)) < 0 ||
        PyDict_SetItem(change, NM(levels), steps_o) < 0 ||
        PyDict_SetItem(change, NM(swap), swap ? Py_True : Py_False) < 0)
        Py_CLEAR(change);
    Py_XDECREF(steps_o);
    decl_l = int_list(decl, nd, 0);
    opp_l = int_list(opp, no, 0);
    lv_before = int_list(old, (int)n, 1);
    lv_after = int_list(levels, (int)n, 1);
    PyObject *kitty_text = sj_cards_text(kc, (int)nk);
    PyObject *friends_copy = PyList_GetSlice(friends, 0, PyList_GET_SIZE(friends));
    summary = NEW_DICT(16);
    PyObject *vals[16] = {
        PyLong_FromLong(hand_number), PyLong_FromLong(declarer), trump_text,
        Py_XNewRef(decl_l), Py_XNewRef(opp_l), PyLong_FromLong(won_pts),
        PyLong_FromLong(kitty_pts), PyLong_FromLong(mult), PyLong_FromLong(bonus),
        PyLong_FromLong(penalty), PyLong_FromLong(total), Py_XNewRef(change),
        Py_XNewRef(lv_before), Py_XNewRef(lv_after), kitty_text, friends_copy};
    PyObject *keys[16] = {NM(hand), NM(declarer), NM(trump), NM(declarers), NM(opponents),
                          NM(points), NM(kitty_points), NM(kitty_multiplier), NM(kitty_bonus),
                          NM(penalty_key), NM(total), NM(change), NM(levels_before), NM(levels),
                          NM(kitty), NM(friends)};
    int bad = summary == NULL;
    for (int i = 0; i < 16; i++) {
        if (vals[i] == NULL)
            bad = 1;
        else if (!bad && PyDict_SetItem(summary, keys[i], vals[i]) < 0)
            bad = 1;
        Py_XDECREF(vals[i]);
    }
    if (bad)
        goto done;
    /* history: replaced (clones share the list) */
    tmp = PyList_GetSlice(history, 0, PyList_GET_SIZE(history));
    if (tmp == NULL || PyList_Append(tmp, summary) < 0 ||
        PyObject_SetAttr(game, NM(history), tmp) < 0)
        goto done;
    Py_CLEAR(tmp);
    /* the "hand over" event ({"event": "hand over", **summary}), as ShengJiGame._event */
    ev = NEW_DICT(17);
    if (ev == NULL || PyDict_SetItem(ev, NM(event), NM(hand_over)) < 0 ||
        PyDict_Update(ev, summary) < 0)
        goto done;
    PyObject *eargs[2] = {game, ev};
    tmp = sj_add_event(NULL, eargs, 2);
    if (tmp == NULL)
        goto done;
    if (tmp == Py_False) {
        PyObject *events = PyObject_GetAttr(game, NM(events));
        int rc = events == NULL || !PyList_Check(events) ? -1 : PyList_Append(events, ev);
        if (events != NULL && !PyList_Check(events))
            PyErr_SetString(PyExc_TypeError, "events is not a list");
        Py_XDECREF(events);
        if (rc < 0)
            goto done;
    }
    Py_CLEAR(tmp);
    /* the next declarer: the next seat after the declarer on the winning side */
    long nxt = declarer;
    for (long i = 1; i <= n; i++) {
        long s = (declarer + i) % n;
        if ((inside[s] != 0) == declarers_win) {
            nxt = s;
            break;
        }
    }
    int is_match = PyObject_IsTrue(match);
    if (is_match < 0)
        goto done;
    if (!is_match || won_game) {
        PyObject *result = PyDict_New();
        PyObject *hn = PyLong_FromLong(hand_number);
        PyObject *winners = won_game || declarers_win ? int_list(decl, nd, 0)
                                                      : int_list(opp, no, 0);
        PyObject *mw = won_game ? int_list(decl, nd, 0) : NULL;
        int rc = result == NULL || hn == NULL || winners == NULL || (won_game && mw == NULL) ||
                 PyDict_SetItem(result, N_hands, hn) < 0 ||
                 PyDict_SetItem(result, NM(levels), lv_after) < 0 ||
                 PyDict_SetItem(result, N_last, summary) < 0 ||
                 PyDict_SetItem(result, N_winners, winners) < 0 ||
                 (won_game && PyDict_SetItem(result, N_match_winners, mw) < 0) ||
                 PyObject_SetAttr(game, NM(phase), N_over_text) < 0 ||
                 PyObject_SetAttr(game, NM(over), Py_True) < 0 ||
                 PyObject_SetAttr(game, NM(to_act), Py_None) < 0 ||
                 PyObject_SetAttr(game, NM(result), result) < 0;
        Py_XDECREF(result);
        Py_XDECREF(hn);
        Py_XDECREF(winners);
        Py_XDECREF(mw);
        if (rc)
            goto done;
        res = Py_NewRef(Py_False);
        goto done;
    }
    tmp = PyLong_FromLong(nxt);
    if (tmp == NULL || PyObject_SetAttr(game, NM(declarer), tmp) < 0)
        goto done;
    res = Py_NewRef(Py_True);
done:
    Py_XDECREF(rules);
    Py_XDECREF(trump);
    Py_XDECREF(friends);
    Py_XDECREF(teams);
    Py_XDECREF(won);
    Py_XDECREF(kitty);
    Py_XDECREF(mode);
    Py_XDECREF(hook);
    Py_XDECREF(must);
    Py_XDECREF(history);
    Py_XDECREF(match);
    Py_XDECREF(lv);
    Py_XDECREF(decl_l);
    Py_XDECREF(opp_l);
    Py_XDECREF(summary);
    Py_XDECREF(change);
    Py_XDECREF(ev);
    Py_XDECREF(lv_before);
    Py_XDECREF(lv_after);
    Py_XDECREF(tmp);
    return res;
}

/* ------------------------------------------------------------------ the deal's last round */
static PyObject *D_final_round, *D_starter, *D_declarer, *D_hands, *D_level_rank, *D_bid,
                *D_stock, *D_to_act, *D_seat, *D_card, *D_count;

static int
deal_names(void)
{
    if (D_count != NULL)
        return 0;
#define DN(v, t) if ((v = PyUnicode_InternFromString(t)) == NULL) return -1
    DN(D_final_round, "final_round");
    DN(D_starter, "starter");
    DN(D_declarer, "declarer");
    DN(D_hands, "hands");
    DN(D_level_rank, "level_rank");
    DN(D_bid, "bid");
    DN(D_stock, "stock");
    DN(D_to_act, "to_act");
    DN(D_seat, "seat");
    DN(D_card, "card");
    DN(D_count, "count");
#undef DN
    return 0;
}

/* an int item of a dict (a plain int), or *ok cleared */
static long
item_long(PyObject *d, PyObject *key, int *ok)
{
    PyObject *v = *ok ? PyDict_GetItemWithError(d, key) : NULL;
    if (v == NULL || !PyLong_Check(v) ||                 /* an int, or a cards.Card */
        Py_TYPE(v)->tp_richcompare != PyLong_Type.tp_richcompare) {
        *ok = 0;
        return 0;
    }
    long x = PyLong_AsLong(v);
    if (x == -1 && PyErr_Occurred())
        *ok = 0;
    return x;
}

/* advance_deal(game): ShengJiGame._advance_deal up to its _end_deal: the draws (``draw``),
   then once the stock is out the last round (``final_round``, made if None: each seat from
   the starter, or the declarer, in turn), each seat taken from it in turn until one has a
   bid to make (``to_act``: True). False: the deal is over (the caller calls _end_deal).
   None: a state it cannot read, the Python code going on from there (the draws made so far
   are those it would have made). */
PyObject *
sj_advance_deal(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 1) {
        PyErr_SetString(PyExc_TypeError, "advance_deal(game)");
        return NULL;
    }
    if (deal_names() < 0 || names() < 0 || sj_names() < 0)
        return NULL;
    PyObject *game = args[0];
    PyObject *r = sj_draw(self, args, 1);
    if (r == NULL || r == Py_True)
        return r;
    Py_DECREF(r);
    PyObject *stock = PyObject_GetAttr(game, D_stock);
    if (stock == NULL || !PyList_CheckExact(stock) || PyList_GET_SIZE(stock) != 0) {
        Py_XDECREF(stock);
        PyErr_Clear();
        Py_RETURN_NONE;                     /* (draw could not read the state) */
    }
    Py_DECREF(stock);
    PyObject *fr = NULL, *hands = NULL, *bid = NULL, *res = NULL;
    int ok = 1;
    long n = int_attr(game, E_names[N_n], 1, MAXSEATS, &ok);
    long level = int_attr(game, D_level_rank, 0, 12, &ok);
    ok = ok && (hands = PyObject_GetAttr(game, D_hands)) != NULL &&
         PyList_CheckExact(hands) && PyList_GET_SIZE(hands) == n;
    ok = ok && (bid = PyObject_GetAttr(game, D_bid)) != NULL &&
         (bid == Py_None || PyDict_CheckExact(bid));
    int cur_seat = -1, cur_card = -1, cur_count = 0;
    if (ok && bid != Py_None) {
        cur_seat = (int)item_long(bid, D_seat, &ok);
        cur_card = (int)item_long(bid, D_card, &ok);
        cur_count = (int)item_long(bid, D_count, &ok);
        ok = ok && cur_card >= 0 && cur_card < NCARD;
    }
    ok = ok && (fr = PyObject_GetAttr(game, D_final_round)) != NULL &&
         (fr == Py_None || PyList_CheckExact(fr));
    if (ok && fr == Py_None) {
        PyObject *who = PyObject_GetAttr(game, D_declarer);
        ok = who != NULL;
        int none = ok && who == Py_None;
        Py_XDECREF(who);
        long first = ok ? int_attr(game, none ? D_starter : D_declarer, 0, n - 1, &ok) : 0;
        Py_CLEAR(fr);
        if (ok) {
            fr = PyList_New(n);
            for (long i = 0; fr != NULL && i < n; i++) {
                PyObject *v = PyLong_FromLong((first + i) % n);
                if (v == NULL)
                    Py_CLEAR(fr);
                else
                    PyList_SET_ITEM(fr, i, v);
            }
            if (fr == NULL || PyObject_SetAttr(game, D_final_round, fr) < 0)
                goto done;
        }
    }
    if (!ok) {
        if (PyErr_Occurred() && PyErr_ExceptionMatches(PyExc_MemoryError))
            goto done;
        PyErr_Clear();
        res = Py_NewRef(Py_None);
        goto done;
    }
    while (PyList_GET_SIZE(fr) > 0) {
        PyObject *v = PyList_GET_ITEM(fr, 0);
        long seat = PyLong_CheckExact(v) ? PyLong_AsLong(v) : -1;
        PyObject *hand = seat >= 0 && seat < n ? PyList_GET_ITEM(hands, seat) : NULL;
        int has = hand != NULL && PyList_CheckExact(hand) ?
                  sj_hand_has_bid(hand, (int)level, (int)seat, cur_seat, cur_card, cur_count) : -1;
        if (has < 0) {                        /* the Python code takes this seat */
            PyErr_Clear();
            res = Py_NewRef(Py_None);
            goto done;
        }
        PyObject *seat_o = Py_NewRef(v);
        if (PySequence_DelItem(fr, 0) < 0) {  /* final_round.pop(0) */
            Py_DECREF(seat_o);
            goto done;
        }
        if (has) {
            int rc = PyObject_SetAttr(game, D_to_act, seat_o);
            Py_DECREF(seat_o);
            if (rc == 0)
                res = Py_NewRef(Py_True);
            goto done;
        }
        Py_DECREF(seat_o);
    }
    res = Py_NewRef(Py_False);
done:
    Py_XDECREF(fr);
    Py_XDECREF(hands);
    Py_XDECREF(bid);
    return res;
}
