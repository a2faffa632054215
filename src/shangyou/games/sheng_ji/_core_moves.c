/* moves(game, token): ShengJiGame._list_moves for the play phase and the bury (the kitty
   being buried, no kitty theft under way), read from the game's attributes; a Moves sequence
   (_core_seq.c), or None where the Python code lists the moves (another phase, a state it
   cannot read). Python references: ShengJiGame._play_moves, _lead_units, the bury listing of
   _list_moves; follow.legal_follows / next_cards; game.lead_units. */

#include "_core.h"
#include "../_dict_helpers.h"

#define FOLLOW_LIMIT 400

PyObject *S_phase, *S_to_act, *S_hands, *S_trick, *S_pending, *S_trump, *S_rules, *S_token,
    *S_legal, *S_moves, *S_events, *S_won, *S_tricks, *S_lead_units, *S_n, *S_theft_round, *S_lazy, *S_unpack,
    *S_declarer, *S_friends, *S_seen_counts, *S_calls, *S_call_results, *S_penalty_points,
    *S_decks, *S_teams, *S_throw_penalty, *S_play, *S_bury, *S_buried, *S_to_bury, *S_stock,
    *S_next_draw, *S_drawn_by, *S_bid, *S_level_rank, *S_seat, *S_card, *S_count, *S_event,
    *S_cards_key, *S_winner, *S_points, *S_plays, *S_tried, *S_forced, *S_ev_play,
    *S_ev_trick, *S_ev_failed, *S_space, *S_level, *S_suit, *S_red_five, *S_kitty_owner,
    *S_width, *S_length, *S_top, *S_deal, *S_bid_log, *S_advance_deal, *S_advance_deal_py,
    *S_end_deal;

int
sj_names(void)
{
    if (S_top != NULL)
        return 0;
#define NAME(var, text) if ((var = PyUnicode_InternFromString(text)) == NULL) return -1
    NAME(S_phase, "phase");
    NAME(S_to_act, "to_act");
    NAME(S_hands, "hands");
    NAME(S_trick, "trick");
    NAME(S_pending, "pending");
    NAME(S_trump, "trump");
    NAME(S_rules, "rules");
    NAME(S_token, "_token");
    NAME(S_legal, "_legal");
    NAME(S_moves, "moves");
    NAME(S_events, "events");
    NAME(S_won, "won");
    NAME(S_tricks, "tricks");
    NAME(S_lead_units, "lead_units");
    NAME(S_n, "n");
    NAME(S_theft_round, "theft_round");
    NAME(S_lazy, "_lazy");
    NAME(S_unpack, "_unpack");
    NAME(S_declarer, "declarer");
    NAME(S_friends, "friends");
    NAME(S_seen_counts, "seen_counts");
    NAME(S_calls, "calls");
    NAME(S_call_results, "call_results");
    NAME(S_penalty_points, "penalty_points");
    NAME(S_decks, "decks");
    NAME(S_teams, "teams");
    NAME(S_throw_penalty, "throw_penalty");
    NAME(S_play, "play");
    NAME(S_bury, "bury");
    NAME(S_buried, "buried");
    NAME(S_to_bury, "to_bury");
    NAME(S_stock, "stock");
    NAME(S_next_draw, "next_draw");
    NAME(S_drawn_by, "_drawn_by");
    NAME(S_bid, "bid");
    NAME(S_level_rank, "level_rank");
    NAME(S_seat, "seat");
    NAME(S_card, "card");
    NAME(S_count, "count");
    NAME(S_event, "event");
    NAME(S_cards_key, "cards");
    NAME(S_winner, "winner");
    NAME(S_points, "points");
    NAME(S_plays, "plays");
    NAME(S_tried, "tried");
    NAME(S_forced, "forced");
    NAME(S_ev_play, "play");
    NAME(S_ev_trick, "trick");
    NAME(S_ev_failed, "failed throw");
    NAME(S_space, " ");
    NAME(S_level, "level");
    NAME(S_suit, "suit");
    NAME(S_red_five, "red_five");
    NAME(S_kitty_owner, "kitty_owner");
    NAME(S_width, "width");
    NAME(S_length, "length");
    NAME(S_deal, "deal");
    NAME(S_bid_log, "bid_log");
    NAME(S_advance_deal, "_advance_deal");
    NAME(S_advance_deal_py, "_advance_deal_py");
    NAME(S_end_deal, "_end_deal");
    NAME(S_top, "top");
#undef NAME
    return 0;
}

static int
is_str(PyObject *o, PyObject *s)
{
    return o != NULL && PyUnicode_CheckExact(o) && (o == s || PyUnicode_Compare(o, s) == 0);
}

/* the listing of the play phase from the seat's hand, the pending cards and the trick's lead
   as card counts (``lead`` NULL: leading); a Moves sequence, None (a new reference: the
   Python code lists), or NULL with an exception. ``decks`` is read only for a lead. The game's
   attributes (list_play) and the hand held in C (_core_hand.c) both list through it. */
PyObject *
sj_list_play(const Ctx *t, const int *hand, const int *pend, const unsigned char *plist,
             int np, const int *lead, int nl, int lc, int decks, PyObject *token)
{
    Sink *sink;
    PyObject *out = sj_moves_new(token, &sink);
    if (out == NULL)
        return NULL;
    unsigned char buf[NCARD];
    int nb = 0;
    if (lead == NULL) {                                  /* leading */
        /* the throws: the cards (each once) in the order of their keys, t->by_key */
        if (np) {                                        /* a throw being built */
            if (sj_sink_push(sink, K_COMMIT, NULL, 0) < 0)
                goto fail;
            /* the keys begin with the effective suit: its cards are one run of by_key,
               found by halving */
            int s = t->eff[plist[0]], lo = 0, hi = NCARD;
            while (lo < hi) {
                int mid = (lo + hi) / 2;
                if (t->eff[t->by_key[mid]] < s)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (int i = lo; i < NCARD && t->eff[t->by_key[i]] == s; i++) {
                int c = t->by_key[i];
                if (hand[c] - pend[c] > 0 && sj_sink_push(sink, K_THROW, &t->by_key[i], 1) < 0)
                    goto fail;
            }
        } else {
            if (decks < 1 || decks > 8) {
                Py_DECREF(out);
                Py_RETURN_NONE;
            }
            Py_ssize_t first = sink->n;
            if (sj_lead_units(t, hand, decks, sink) < 0)
                goto fail;
            /* the units' singles come first, each card once in the order of the keys (no
               other unit is of one card): the throws are their cards again */
            Py_ssize_t units_end = sink->n;
            for (Py_ssize_t i = first; i < units_end && sink->len[i] == 1; i++) {
                unsigned char c = sink->pool[sink->off[i]];
                if (sj_sink_push(sink, K_THROW, &c, 1) < 0)
                    goto fail;
            }
        }
        return out;
    }
    if (nl == 1 && !np) {                                /* a single led */
        if (sj_follow_single(t, hand, lc, sink) < 0)
            goto fail;
        return out;
    }
    SUnit units[MAXU];
    int nu = sj_decompose(t, lead, units);
    if (nu <= 0) {
        Py_DECREF(out);
        Py_RETURN_NONE;
    }
    if (!np) {
        int r = sj_follows(t, hand, lead, nl, units, nu, FOLLOW_LIMIT, sink);
        if (r < 0)
            goto fail;
        if (r == 1)
            return out;
        Py_DECREF(out);                                  /* too many: card by card */
        if ((out = sj_moves_new(token, &sink)) == NULL)
            return NULL;
    }
    nb = sj_next_cards(t, hand, lead, nl, units, nu, pend, buf);
    sj_sort_by_key(t, buf, nb);
    for (int i = 0; i < nb; i++)
        if (sj_sink_push(sink, K_PICK, &buf[i], 1) < 0)
            goto fail;
    return out;
fail:
    Py_DECREF(out);
    if (!PyErr_Occurred())
        PyErr_NoMemory();
    return NULL;
}

/* the play phase's listing read from the game's attributes */
static PyObject *
list_play(PyObject *d, long seat, PyObject *token)
{
    PyObject *hands = GET(d, S_hands), *trick = GET(d, S_trick), *pending = GET(d, S_pending);
    PyObject *rules = GET(d, S_rules);
    const Ctx *t;
    if (hands == NULL || !PyList_CheckExact(hands) || seat >= PyList_GET_SIZE(hands) ||
        trick == NULL || !PyList_CheckExact(trick) || pending == NULL ||
        !PyList_CheckExact(pending) || rules == NULL ||
        (t = sj_ctx_read(GET(d, S_trump))) == NULL)
        Py_RETURN_NONE;
    int hand[NCARD] = {0}, pend[NCARD] = {0};
    unsigned char plist[MAXH];
    int nh = sj_read_cards(PyList_GET_ITEM(hands, seat), hand, NULL, MAXH);
    int np = sj_read_cards(pending, pend, plist, MAXH);
    if (nh < 0 || np < 0)
        Py_RETURN_NONE;
    if (PyList_GET_SIZE(trick) == 0) {
        long decks = 0;
        if (!np) {
            PyObject *dk = PyObject_GetAttr(rules, S_decks);
            decks = dk != NULL && PyLong_CheckExact(dk) ? PyLong_AsLong(dk) : -1;
            Py_XDECREF(dk);
            PyErr_Clear();
        }
        return sj_list_play(t, hand, pend, plist, np, NULL, 0, -1, (int)decks, token);
    }
    PyObject *first = PyList_GET_ITEM(trick, 0);
    int lead[NCARD] = {0}, nl;
    unsigned char llist[MAXH];
    if (!PyTuple_CheckExact(first) || PyTuple_GET_SIZE(first) != 2 ||
        (nl = sj_read_cards(PyTuple_GET_ITEM(first, 1), lead, llist, MAXH)) <= 0)
        Py_RETURN_NONE;
    return sj_list_play(t, hand, pend, plist, np, lead, nl, llist[0], 0, token);
}

static PyObject *
list_bury(PyObject *game, PyObject *d, long seat, PyObject *token)
{
    PyObject *theft = PyObject_GetAttr(game, S_theft_round);      /* a slot */
    int stealing = theft == NULL || theft != Py_None;
    Py_XDECREF(theft);
    PyErr_Clear();
    PyObject *hands = GET(d, S_hands);
    const Ctx *t;
    if (stealing || hands == NULL || !PyList_CheckExact(hands) ||
        seat >= PyList_GET_SIZE(hands) || (t = sj_ctx_read(GET(d, S_trump))) == NULL)
        Py_RETURN_NONE;
    int hand[NCARD] = {0};
    if (sj_read_cards(PyList_GET_ITEM(hands, seat), hand, NULL, 1 << 20) < 0)
        Py_RETURN_NONE;
    unsigned char buf[NCARD];
    int nb = 0;
    for (int c = 0; c < NCARD; c++)
        if (hand[c])
            buf[nb++] = (unsigned char)c;
    sj_sort_by_key(t, buf, nb);
    Sink *sink;
    PyObject *out = sj_moves_new(token, &sink);
    if (out == NULL)
        return NULL;
    for (int i = 0; i < nb; i++)
        if (sj_sink_push(sink, K_BURY, &buf[i], 1) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    return out;
}

/* the deal's listing (ShengJiGame._list_moves in the deal): ``pass``, then the seat's legal
   bids as _bids_for orders them (the level cards by suit, then the jokers; each by count) */
static PyObject *
list_deal(PyObject *game, PyObject *d, long seat, PyObject *token)
{
    PyObject *hands = GET(d, S_hands);
    PyObject *lr = PyObject_GetAttr(game, S_level_rank);          /* slots */
    PyObject *bid = lr == NULL ? NULL : PyObject_GetAttr(game, S_bid);
    long level = lr != NULL && PyLong_CheckExact(lr) ? PyLong_AsLong(lr) : -1;
    int cnt[NCARD] = {0}, cur_seat = -1, cur_card = -1, cur_count = 0;
    int ok = bid != NULL && level >= 0 && level <= 12 && hands != NULL &&
             PyList_CheckExact(hands) && seat < PyList_GET_SIZE(hands) &&
             sj_read_cards(PyList_GET_ITEM(hands, seat), cnt, NULL, 1 << 20) >= 0;
    if (ok && bid != Py_None) {
        PyObject *v[3] = {NULL, NULL, NULL};
        ok = PyDict_CheckExact(bid) && (v[0] = GET(bid, S_seat)) != NULL &&
             (v[1] = GET(bid, S_card)) != NULL && (v[2] = GET(bid, S_count)) != NULL &&
             PyLong_CheckExact(v[0]) && PyLong_CheckExact(v[2]) &&
             (cur_card = sj_card_of(v[1])) >= 0;
        cur_seat = ok ? (int)PyLong_AsLong(v[0]) : -1;
        cur_count = ok ? (int)PyLong_AsLong(v[2]) : 0;
    }
    Py_XDECREF(lr);
    Py_XDECREF(bid);
    if (!ok) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    Sink *sink;
    PyObject *out = sj_moves_new(token, &sink);
    if (out == NULL)
        return NULL;
    if (sj_sink_push(sink, K_PASS, NULL, 0) < 0)
        goto fail;
    int cands[6] = {(int)level * 4, (int)level * 4 + 1, (int)level * 4 + 2,
                    (int)level * 4 + 3, BJ, RJ};
    int cur_tier = cur_card == RJ ? 2 : cur_card == BJ ? 1 : 0;
    for (int i = 0; i < 6; i++) {
        int c = cands[i], tier = c == RJ ? 2 : c == BJ ? 1 : 0;
        for (int k = i < 4 ? 1 : 2; k <= cnt[c] && k <= MAXH; k++) {
            int legal = cur_card < 0 ? 1 :
                        cur_seat == seat ? c == cur_card && k > cur_count :
                        k > cur_count || (k == cur_count && tier > cur_tier);
            unsigned char same[MAXH];
            memset(same, c, (size_t)k);
            if (legal && sj_sink_push(sink, K_BID, same, k) < 0)
                goto fail;
        }
    }
    return out;
fail:
    Py_DECREF(out);
    if (!PyErr_Occurred())
        PyErr_NoMemory();
    return NULL;
}

/* a clone still holding its packed attributes (clone.py, ``_lazy``) has them made now (its
   ``_unpack``), and a game whose hand is held in C (_core_hand.c) has its attributes made,
   so that the core reads them as any game's; 0, or -1 with an exception */
int
sj_unpacked(PyObject *game, PyObject *d)
{
    if (sj_held_flush(game) < 0)                  /* the hand held in C made attributes */
        return -1;
    if (PyDict_GetItemWithError(d, S_lazy) == NULL)
        return PyErr_Occurred() ? -1 : 0;
    PyObject *r = PyObject_CallMethodNoArgs(game, S_unpack);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

PyObject *
sj_list_moves(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "moves(game, token)");
        return NULL;
    }
    if (sj_names() < 0)
        return NULL;
    if (sj_move_type == NULL)
        Py_RETURN_NONE;
    PyObject *d = PyObject_GenericGetDict(args[0], NULL);
    if (d == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (PyDict_CheckExact(d) && sj_unpacked(args[0], d) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    PyObject *out = Py_None;
    long seat = PyDict_CheckExact(d) ? sj_to_act(args[0], MAXSEATS) : -1;
    PyObject *phase = seat >= 0 ? GET(d, S_phase) : NULL;
    if (is_str(phase, S_play))
        out = list_play(d, seat, args[1]);
    else if (is_str(phase, S_bury))
        out = list_bury(args[0], d, seat, args[1]);
    else if (is_str(phase, S_deal))
        out = list_deal(args[0], d, seat, args[1]);
    else
        Py_INCREF(out);
    Py_DECREF(d);
    if (out == Py_None && PyErr_Occurred())
        PyErr_Clear();
    return out;
}
