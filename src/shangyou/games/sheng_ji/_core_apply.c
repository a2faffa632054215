/* ShengJiGame.apply's fast path, in C: apply_listed(game, move, seat) -> bool.

   It makes a move the game has just listed (the token of its legal moves), on the game's own
   attributes, as ShengJiGame.apply / _do_play / _lead / _note_friends / _end_trick and the
   bury of _do_bury do: a card added to a throw being built or to a follow chosen card by
   card (``pending``), a lead (a throw checked against the other hands: a failed throw plays
   the forced unit, with its event and penalty; ``lead_units``) or a follow: the hand loses
   the cards (as list.remove would), the trick, the events, the seat to act; a full trick goes
   to its winner (``won``, ``tricks``, the trick's event); a card buried while more are to be
   buried. The move is logged (``moves``) and the listing forgotten (``_legal``, ``_token``).

   A play that fulfils a friend call (Zhao Pengyou) is made too, as _note_friends does it:
   ``call_results``, ``friends`` and the "friend" event, before the play's event; so is the
   hand's last trick, whose end then calls the game's ``_end_hand`` (the scoring, in Python)
   as _end_trick does.

   It answers False, having changed nothing, for everything else, which the Python code then
   does: a text, a move of an earlier listing, another seat, another phase, the last card of
   the bury, a state it cannot read. */

#include "_core.h"
#include "../_dict_helpers.h"
#include "_core_ends.h"


/* remove the first item equal to card c from the list (list.remove); -1 if none */
static int
remove_card(PyObject *list, int c)
{
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++)
        if (sj_card_of(PyList_GET_ITEM(list, i)) == c)
            return PyList_SetSlice(list, i, i + 1, NULL);
    PyErr_SetString(PyExc_RuntimeError, "card not in hand");
    return -1;
}

/* a dict of (key, value) pairs, values stolen; NULL on error */
static PyObject *
event(int n, PyObject **keys, PyObject **values)
{
    PyObject *e = PyDict_New();
    int ok = e != NULL;
    for (int i = 0; i < n; i++) {
        if (values[i] == NULL)
            ok = 0;
        if (ok && PyDict_SetItem(e, keys[i], values[i]) < 0)
            ok = 0;
        Py_XDECREF(values[i]);
    }
    if (!ok) {
        Py_XDECREF(e);
        return NULL;
    }
    return e;
}

static int
log_event(PyObject *events, int n, PyObject **keys, PyObject **values)
{
    PyObject *e = event(n, keys, values);
    if (e == NULL)
        return -1;
    int rc = PyList_Append(events, e);
    Py_DECREF(e);
    return rc;
}

static int
points_of(const unsigned char *cards, int n)
{
    int p = 0;
    for (int i = 0; i < n; i++) {
        int c = cards[i];
        if (c < BJ)
            p += (c >> 2) == 2 ? 5 : ((c >> 2) == 7 || (c >> 2) == 10) ? 10 : 0;
    }
    return p;
}

/* ShengJiGame.team_of(seat) == "declarers": 1, 0, or -1 (cannot read) */
static int
declarer_side(PyObject *d, PyObject *rules, long seat)
{
    long declarer = small(d, S_declarer, MAXSEATS);
    PyObject *teams = PyObject_GetAttr(rules, S_teams);
    if (declarer < 0 || teams == NULL) {
        Py_XDECREF(teams);
        PyErr_Clear();
        return -1;
    }
    int rc = -1;
    PyObject *sd = PyLong_FromLong(declarer), *ss = PyLong_FromLong(seat);
    if (sd == NULL || ss == NULL)
        goto done;
    if (PyObject_IsTrue(teams) == 1) {
        if (!PyTuple_Check(teams))
            goto done;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(teams); i++) {
            int in = PySequence_Contains(PyTuple_GET_ITEM(teams, i), sd);
            if (in < 0)
                goto done;
            if (in) {
                rc = PySequence_Contains(PyTuple_GET_ITEM(teams, i), ss);
                goto done;
            }
        }
        goto done;
    }
    if (seat == declarer) {
        rc = 1;
        goto done;
    }
    PyObject *friends = GET(d, S_friends);
    if (friends != NULL && PyList_CheckExact(friends))
        rc = PySequence_Contains(friends, ss);
done:
    Py_XDECREF(sd);
    Py_XDECREF(ss);
    Py_DECREF(teams);
    if (rc < 0)
        PyErr_Clear();
    return rc;
}

/* the play of ``seat`` after the checks; 0 or -1 */
#define MAXREV 8                /* friend calls a play may fulfil (a hand has at most 3) */

typedef struct {
    long seat, n, winner_seat, forced, penalty;
    int ncards, ntried, nu, end_trick, friends;
    int nrev, rev_card[MAXREV];                 /* the calls fulfilled, in _note_friends' order */
    long rev_call[MAXREV], rev_ordinal[MAXREV], declarer;
    int last, winner_idx;                       /* the hand's last trick; the winning play */
    unsigned char cards[MAXH], tried[MAXH];
    SUnit units[MAXU];
    int winner_pts;
} Play;

/* Unit(width, length, top, cards): order.Unit is a frozen dataclass whose __init__ sets
   these four attributes in the instance's dict and does nothing else; so made directly */
static PyObject *
sj_unit(const SUnit *u)
{
    PyTypeObject *type = (PyTypeObject *)sj_unit_type;
    PyObject *o = type->tp_alloc(type, 0);
    if (o == NULL)
        return NULL;
    PyObject *d = PyObject_GenericGetDict(o, NULL);
    PyObject *v[4] = {PyLong_FromLong(u->width), PyLong_FromLong(u->length),
                      PyLong_FromLong(u->top), sj_cards_tuple(u->cards, u->n)};
    PyObject *k[4] = {S_width, S_length, S_top, S_cards_key};
    int ok = d != NULL;
    for (int i = 0; i < 4; i++) {
        if (ok && (v[i] == NULL || PyDict_SetItem(d, k[i], v[i]) < 0))
            ok = 0;
        Py_XDECREF(v[i]);
    }
    Py_XDECREF(d);
    if (!ok) {
        Py_DECREF(o);
        return NULL;
    }
    return o;
}

int
sj_unit_list(const SUnit *units, int nu, PyObject **out)
{
    PyObject *l = PyList_New(nu);
    if (l == NULL)
        return -1;
    for (int i = 0; i < nu; i++) {
        const SUnit *u = &units[i];
        PyObject *u_obj = sj_unit(u);
        if (u_obj == NULL) {
            Py_DECREF(l);
            return -1;
        }
        PyList_SET_ITEM(l, i, u_obj);
    }
    *out = l;
    return 0;
}

static PyObject *S_ev_friend, *S_call_key, *S_end_hand;

/* call ``j`` (``ordinal`` copy of ``card``) fulfilled by ``seat``: call_results[j] = seat; a
   seat other than the declarer not yet a friend becomes one, with the "friend" event */
static int
reveal(PyObject *d, PyObject *events, long seat, long declarer, long j, long ordinal, int card)
{
    PyObject *results = GET(d, S_call_results), *friends = GET(d, S_friends);
    PyObject *key = PyLong_FromLong(j), *who = PyLong_FromLong(seat);
    int rc = -1;
    if (key == NULL || who == NULL || PyDict_SetItem(results, key, who) < 0)
        goto done;
    int in = seat == declarer ? 1 : PySequence_Contains(friends, who);
    if (in < 0)
        goto done;
    if (!in) {
        if (PyList_Append(friends, who) < 0)
            goto done;
        PyObject *keys[3] = {S_event, S_seat, S_call_key};
        PyObject *vals[3] = {(Py_INCREF(S_ev_friend), S_ev_friend), Py_NewRef(who),
                             PyUnicode_FromFormat("%ld %U", ordinal,
                                                  PyList_GET_ITEM(sj_card_text, card))};
        if (log_event(events, 3, keys, vals) < 0)
            goto done;
    }
    rc = 0;
done:
    Py_XDECREF(key);
    Py_XDECREF(who);
    return rc;
}

static int
make_play(PyObject *game, PyObject *d, PyObject *move, Play *P, PyObject *hands,
          PyObject *trick, PyObject *pending, PyObject *events, int leading)
{
    long seat = P->seat;
    PyObject *cards = sj_cards_tuple(P->cards, P->ncards);
    if (cards == NULL)
        return -1;
    int rc = -1;
    if (P->forced) {
        PyObject *keys[4] = {S_event, S_seat, S_tried, S_forced};
        PyObject *vals[4] = {(Py_INCREF(S_ev_failed), S_ev_failed), PyLong_FromLong(seat),
                             sj_cards_text(P->tried, P->ntried),
                             sj_cards_text(P->cards, P->ncards)};
        if (log_event(events, 4, keys, vals) < 0)
            goto done;
        if (P->penalty) {
            PyObject *pp = GET(d, S_penalty_points);
            long v = PyLong_AsLong(pp);
            if ((v == -1 && PyErr_Occurred()) || set_long(d, S_penalty_points, v + P->penalty) < 0)
                goto done;
        }
    }
    if (leading) {
        PyObject *units;
        if (sj_unit_list(P->units, P->nu, &units) < 0)
            goto done;
        int r = PyDict_SetItem(d, S_lead_units, units);
        Py_DECREF(units);
        if (r < 0)
            goto done;
    }
    /* ``self.pending = []``: an empty list stays (the Python code changes it in place too) */
    int r = 0;
    if (PyList_GET_SIZE(pending) != 0) {
        PyObject *fresh = PyList_New(0);
        if (fresh == NULL)
            goto done;
        r = PyDict_SetItem(d, S_pending, fresh);
        Py_DECREF(fresh);
        if (r < 0)
            goto done;
    }
    PyObject *hand = PyList_GET_ITEM(hands, seat);
    for (int i = 0; i < P->ncards; i++)
        if (remove_card(hand, P->cards[i]) < 0)
            goto done;
    if (append_pair(trick, seat, cards) < 0)
        goto done;
    if (P->friends) {                         /* _note_friends */
        PyObject *seen = GET(d, S_seen_counts);
        for (int i = 0; i < P->ncards; i++) {
            PyObject *c = PyTuple_GET_ITEM(cards, i);
            PyObject *v = PyDict_GetItemWithError(seen, c);
            long k = v == NULL ? 0 : PyLong_AsLong(v);
            if (PyErr_Occurred() || set_long(seen, c, k + 1) < 0)
                goto done;
        }
        for (int k = 0; k < P->nrev; k++)     /* the calls fulfilled, in order */
            if (reveal(d, events, seat, P->declarer, P->rev_call[k], P->rev_ordinal[k],
                       P->rev_card[k]) < 0)
                goto done;
    }
    PyObject *keys[3] = {S_event, S_seat, S_cards_key};
    PyObject *vals[3] = {(Py_INCREF(S_ev_play), S_ev_play), PyLong_FromLong(seat),
                         sj_cards_text(P->cards, P->ncards)};
    if (log_event(events, 3, keys, vals) < 0)
        goto done;
    if (!P->end_trick) {
        if (sj_set_to_act_long(game, (seat + 1) % P->n) < 0)
            goto done;
    } else {                                  /* _end_trick */
        PyObject *won = PyList_GET_ITEM(GET(d, S_won), P->winner_seat);
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(trick); i++) {
            PyObject *cs = PyTuple_GET_ITEM(PyList_GET_ITEM(trick, i), 1);
            Py_ssize_t end = PyList_GET_SIZE(won);
            if (PyList_SetSlice(won, end, end, cs) < 0)
                goto done;
        }
        PyObject *plays = PyList_GetSlice(trick, 0, PyList_GET_SIZE(trick));
        PyObject *tkeys[2] = {S_plays, S_winner};
        PyObject *tvals[2] = {plays, PyLong_FromLong(P->winner_seat)};
        if (log_event(GET(d, S_tricks), 2, tkeys, tvals) < 0)
            goto done;
        PyObject *ekeys[3] = {S_event, S_winner, S_points};
        PyObject *evals[3] = {(Py_INCREF(S_ev_trick), S_ev_trick),
                              PyLong_FromLong(P->winner_seat), PyLong_FromLong(P->winner_pts)};
        if (log_event(events, 3, ekeys, evals) < 0)
            goto done;
        /* the hand's last trick: _end_hand(winner, the lead's units, the winning play) */
        PyObject *last_units = P->last ? Py_XNewRef(GET(d, S_lead_units)) : NULL;
        PyObject *winning = P->last ? Py_NewRef(PyTuple_GET_ITEM(
            PyList_GET_ITEM(trick, P->winner_idx), 1)) : NULL;
        PyObject *nt = PyList_New(0);
        r = nt == NULL ? -1 : PyDict_SetItem(d, S_trick, nt);
        Py_XDECREF(nt);
        if (r == 0)
            r = PyDict_SetItem(d, S_lead_units, Py_None);
        if (r == 0 && !P->last)
            r = sj_set_to_act_long(game, P->winner_seat);
        if (r == 0 && P->last) {
            PyObject *w = PyLong_FromLong(P->winner_seat);
            PyObject *call[4] = {game, w, last_units ? last_units : Py_None, winning};
            PyObject *res = w == NULL ? NULL :
                PyObject_VectorcallMethod(S_end_hand, call, 4, NULL);
            Py_XDECREF(w);
            r = res == NULL ? -1 : 0;
            Py_XDECREF(res);
        }
        Py_XDECREF(last_units);
        Py_XDECREF(winning);
        if (r < 0)
            goto done;
    }
    rc = 0;
done:
    Py_DECREF(cards);
    return rc;
}

static int
log_move(PyObject *d, PyObject *log, long seat, PyObject *move)
{
    if (log == NULL)            /* (read again: the scoring, in Python, ran since) */
        log = GET(d, S_moves);
    if (log == NULL || !PyList_Check(log)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_RuntimeError, "the game's log is gone");
        return -1;
    }
    if (append_pair(log, seat, move) < 0 || PyDict_SetItem(d, S_legal, Py_None) < 0 ||
        PyDict_SetItem(d, S_token, Py_None) < 0)
        return -1;
    return 1;
}

/* a pass or a bid of the deal, as _do / _do_bid make it: the bid (a slot), its record
   (``bid_log``) and event, then the game's _advance_deal (Python: the draws, in C, up to the
   next seat with a bid; the deal's end); 1 made, 0 not made (nothing changed), -1 error */
/* str(move) of a listed bid: its text, or where none is written yet (a listed bid has none)
   "bid " and its cards' texts, written into the move as Move.__str__ writes it (no Python
   frame); a new reference */
static PyObject *
bid_text(PyObject *move, const unsigned char *mlist, int nm)
{
    if (!Py_IS_TYPE(move, sj_move_type) || nm < 1)
        return PyObject_Str(move);
    PyObject **slot = &SLOT(move, sj_move_off[3]);
    if (*slot != Py_None && *slot != NULL)
        return PyObject_Str(move);
    PyObject *cards = sj_cards_text(mlist, nm);
    if (cards == NULL)
        return NULL;
    PyObject *text = PyUnicode_FromFormat("%U %U", sj_kind[K_BID], cards);
    Py_DECREF(cards);
    if (text == NULL)
        return NULL;
    PyObject *old = *slot;
    *slot = Py_NewRef(text);
    Py_XDECREF(old);
    return text;
}

static int
apply_deal(PyObject *game, PyObject *d, PyObject *move, long seat, int kind,
           PyObject *mcards, const unsigned char *mlist, int nm)
{
    PyObject *events = GET(d, S_events);
    if (events == NULL || !PyList_CheckExact(events))
        return 0;
    if (kind == K_BID) {
        PyObject *bl = nm > 0 ? PyObject_GetAttr(game, S_bid_log) : NULL;   /* a slot */
        if (bl == NULL || !PyList_CheckExact(bl)) {
            Py_XDECREF(bl);
            PyErr_Clear();
            return 0;
        }
        PyObject *text = bid_text(move, mlist, nm), *b = PyDict_New();
        int rc = text == NULL || b == NULL || set_long(b, S_seat, seat) < 0 ||
                 PyDict_SetItem(b, S_card, PyTuple_GET_ITEM(mcards, 0)) < 0 ||
                 set_long(b, S_count, nm) < 0 || PyObject_SetAttr(game, S_bid, b) < 0 ||
                 append_pair(bl, seat, text) < 0 ? -1 : 0;
        if (rc == 0) {
            PyObject *keys[3] = {S_event, S_seat, sj_kind[K_BID]};
            PyObject *vals[3] = {Py_NewRef(sj_kind[K_BID]), PyLong_FromLong(seat),
                                 sj_cards_text(mlist, nm)};
            rc = log_event(events, 3, keys, vals);
        }
        Py_XDECREF(text);
        Py_XDECREF(b);
        Py_DECREF(bl);
        if (rc < 0)
            return -1;
    }
    /* ShengJiGame._advance_deal without its Python frame: the draws (core.advance_deal), then
       the deal's end (_end_deal) where they end it, or the Python draws where the core
       cannot read the state */
    PyObject *r = sj_advance_deal(NULL, &game, 1);
    if (r == Py_False || r == Py_None) {
        PyObject *rest = r == Py_False ? S_end_deal : S_advance_deal_py;
        Py_DECREF(r);
        r = PyObject_CallMethodNoArgs(game, rest);
    }
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return log_move(d, NULL, seat, move);
}

/* 1 made, 0 left to Python (nothing changed), -1 error */
static int
apply_listed(PyObject *game, PyObject *d, PyObject *move, PyObject *seat_arg)
{
    long n = small(d, S_n, MAXSEATS + 1);
    long seat = n > 0 ? sj_to_act(game, n) : -1;
    if (seat < 0)
        return 0;
    if (seat_arg != Py_None && !(PyLong_CheckExact(seat_arg) &&
                                 PyLong_AsLong(seat_arg) == seat))
        return 0;
    PyObject *tok = GET(d, S_token), *legal = GET(d, S_legal);
    if (tok == NULL || tok == Py_None || legal == NULL || legal == Py_None)
        return 0;
    PyObject *mcards;
    int kind = sj_listed_kind(move, tok, &mcards);
    if (kind < 0)
        return 0;
    PyObject *phase = GET(d, S_phase), *hands = GET(d, S_hands), *log = GET(d, S_moves);
    if (phase == NULL || !PyUnicode_CheckExact(phase) || hands == NULL ||
        !PyList_CheckExact(hands) || PyList_GET_SIZE(hands) != n || log == NULL ||
        !PyList_CheckExact(log))
        return 0;
    for (long s = 0; s < n; s++)
        if (!PyList_CheckExact(PyList_GET_ITEM(hands, s)))
            return 0;
    PyObject *hand = PyList_GET_ITEM(hands, seat);
    int hcnt[NCARD] = {0}, mcnt[NCARD] = {0};
    unsigned char mlist[MAXH];
    int nh = sj_read_cards(hand, hcnt, NULL, MAXH);
    int nm = sj_read_cards(mcards, mcnt, mlist, MAXH);
    if (nh < 0 || nm < 0)
        return 0;
    int playing = phase == S_play;
    if (!playing && (phase == S_bury || PyUnicode_Compare(phase, S_bury) == 0)) {
        /* theft_round, buried and to_bury are slots (ShengJiGame.__slots__) */
        PyObject *theft = PyObject_GetAttr(game, S_theft_round);
        int stealing = theft == NULL || theft != Py_None;
        Py_XDECREF(theft);
        PyErr_Clear();
        if (kind != K_BURY || nm != 1 || stealing || !hcnt[mlist[0]])
            return 0;
        PyObject *buried = PyObject_GetAttr(game, S_buried);
        PyObject *tb = buried == NULL ? NULL : PyObject_GetAttr(game, S_to_bury);
        long to_bury = tb != NULL && PyLong_CheckExact(tb) ? PyLong_AsLong(tb) : -1;
        int fits = tb != NULL && PyList_CheckExact(buried) && to_bury >= 0 &&
                   PyList_GET_SIZE(buried) + 1 < to_bury;
        Py_XDECREF(tb);
        if (!fits) {
            Py_XDECREF(buried);
            PyErr_Clear();
            return 0;
        }
        int rc = remove_card(hand, mlist[0]) < 0 ||
                 PyList_Append(buried, PyTuple_GET_ITEM(mcards, 0)) < 0 ? -1 : 0;
        Py_DECREF(buried);
        return rc < 0 ? -1 : log_move(d, log, seat, move);
    }
    if (!playing && (kind == K_PASS || kind == K_BID))
        return (phase == S_deal || PyUnicode_Compare(phase, S_deal) == 0) ?
            apply_deal(game, d, move, seat, kind, mcards, mlist, nm) : 0;
    if (!playing && PyUnicode_Compare(phase, S_play) != 0)
        return 0;
    PyObject *trick = GET(d, S_trick), *pending = GET(d, S_pending);
    PyObject *events = GET(d, S_events), *rules = GET(d, S_rules);
    const Ctx *t;
    if (trick == NULL || !PyList_CheckExact(trick) || pending == NULL ||
        !PyList_CheckExact(pending) || events == NULL || !PyList_CheckExact(events) ||
        rules == NULL || (t = sj_ctx_read(GET(d, S_trump))) == NULL)
        return 0;
    int pcnt[NCARD] = {0};
    unsigned char plist[MAXH];
    int np = sj_read_cards(pending, pcnt, plist, MAXH);
    Py_ssize_t nt = PyList_GET_SIZE(trick);
    if (np < 0 || nt >= n)
        return 0;
    /* on the stack: make_play calls Python (the scoring), which may let another thread
       make a move of its own game */
    Play play;
    Play *P = &play;
    P->forced = P->penalty = 0;
    P->ncards = P->ntried = P->nu = P->end_trick = P->friends = P->nrev = P->last = 0;
    int rc = 0;
    P->seat = seat;
    P->n = n;
    /* the trick so far (its plays' cards), for a follow and the trick's end */
    int tcnt[MAXSEATS][NCARD];
    unsigned char tcards[MAXSEATS][MAXH];
    int tn[MAXSEATS];
    int leadn = 0;
    for (Py_ssize_t i = 0; i < nt; i++) {
        PyObject *it = PyList_GET_ITEM(trick, i);
        memset(tcnt[i], 0, sizeof tcnt[i]);
        if (!PyTuple_CheckExact(it) || PyTuple_GET_SIZE(it) != 2 ||
            (tn[i] = sj_read_cards(PyTuple_GET_ITEM(it, 1), tcnt[i], tcards[i], MAXH)) <= 0 ||
            !PyLong_CheckExact(PyTuple_GET_ITEM(it, 0)))
            goto out;
        sj_sort_codes(tcards[i], tn[i]);      /* (sorted already: the game keeps them so) */
    }
    if (nt)
        leadn = tn[0];
    if (kind == K_THROW || kind == K_PICK) {
        if (nm != 1 || (kind == K_THROW) != (nt == 0) || hcnt[mlist[0]] <= pcnt[mlist[0]])
            goto out;
        int done = kind == K_THROW;
        if (kind == K_PICK) {
            int suit = t->eff[tcards[0][0]], mine = 0;
            for (int c = 0; c < NCARD; c++)
                if (t->eff[c] == suit)
                    mine += hcnt[c];
            if (np + 1 + (mine > leadn ? 0 : mine) < leadn)
                done = 1;
            else {                            /* the last card: the follow is made */
                P->ncards = 0;
                if (mine <= leadn)
                    for (int c = 0; c < NCARD; c++)
                        if (t->eff[c] == suit)
                            for (int k = 0; k < hcnt[c]; k++)
                                P->cards[P->ncards++] = (unsigned char)c;
                for (int i = 0; i < np; i++)
                    P->cards[P->ncards++] = plist[i];
                P->cards[P->ncards++] = mlist[0];
            }
        }
        if (done) {
            if (PyList_Append(pending, PyTuple_GET_ITEM(mcards, 0)) < 0)
                rc = -1;
            else
                rc = log_move(d, log, seat, move);
            goto out;
        }
    } else if (kind == K_COMMIT || kind == K_PLAY) {
        if ((kind == K_COMMIT) != (nt == 0 && np > 0) || np + nm > MAXH)
            goto out;
        memcpy(P->cards, plist, (size_t)np);
        memcpy(P->cards + np, mlist, (size_t)nm);
        P->ncards = np + nm;
    } else {
        goto out;
    }
    if (P->ncards == 0 || P->ncards > MAXH || (nt > 0 && P->ncards != leadn))
        goto out;
    sj_sort_codes(P->cards, P->ncards);
    int pc[NCARD] = {0};
    for (int i = 0; i < P->ncards; i++)
        pc[P->cards[i]]++;
    int leading = nt == 0;
    if (leading) {                            /* _lead: the throw checked */
        int suit = t->eff[P->cards[0]];
        for (int i = 1; i < P->ncards; i++)
            if (t->eff[P->cards[i]] != suit)
                goto out;
        P->nu = sj_decompose(t, pc, P->units);
        if (P->nu <= 0)
            goto out;
        if (P->nu > 1) {
            int others[MAXSEATS][NCARD];
            int no = 0;
            for (long s = 0; s < n; s++) {
                if (s == seat)
                    continue;
                memset(others[no], 0, sizeof others[no]);
                if (sj_read_cards(PyList_GET_ITEM(hands, s), others[no], NULL, 1 << 20) < 0)
                    goto out;
                no++;
            }
            int f = sj_throw_check(t, P->units, P->nu, suit, (const int (*)[NCARD])others, no);
            if (f >= 0) {
                PyObject *tp = PyObject_GetAttr(rules, S_throw_penalty);
                long pen = tp != NULL && PyLong_CheckExact(tp) ? PyLong_AsLong(tp) : -1;
                Py_XDECREF(tp);
                if (pen < 0) {
                    PyErr_Clear();
                    goto out;
                }
                if (pen) {
                    int side = declarer_side(d, rules, seat);
                    PyObject *pp = GET(d, S_penalty_points);
                    if (side < 0 || pp == NULL || !PyLong_CheckExact(pp))
                        goto out;
                    P->penalty = side ? pen : -pen;
                }
                P->forced = 1;
                memcpy(P->tried, P->cards, (size_t)P->ncards);
                P->ntried = P->ncards;
                SUnit fu = P->units[f];
                memcpy(P->cards, fu.cards, (size_t)fu.n);    /* sorted */
                P->ncards = fu.n;
                memset(pc, 0, sizeof pc);
                for (int i = 0; i < P->ncards; i++)
                    pc[P->cards[i]]++;
                P->nu = sj_decompose(t, pc, P->units);
                if (P->nu <= 0)
                    goto out;
            }
        }
    }
    for (int i = 0; i < P->ncards; i++)
        if (pc[P->cards[i]] > hcnt[P->cards[i]])
            goto out;                         /* not held: the Python code says so */
    /* _note_friends: a friend revealed is left to the Python code */
    PyObject *fr = PyObject_GetAttr(rules, S_friends);
    long nfriends = fr != NULL && PyLong_CheckExact(fr) ? PyLong_AsLong(fr) : -1;
    Py_XDECREF(fr);
    if (nfriends < 0) {
        PyErr_Clear();
        goto out;
    }
    if (nfriends > 0) {
        PyObject *seen = GET(d, S_seen_counts), *calls = GET(d, S_calls);
        PyObject *results = GET(d, S_call_results);
        if (seen == NULL || !PyDict_Check(seen) || calls == NULL || !PyList_CheckExact(calls) ||
            results == NULL || !PyDict_CheckExact(results))
            goto out;
        int sofar[NCARD] = {0};
        for (int i = 0; i < P->ncards; i++) {
            int c = P->cards[i];
            if (!sofar[c]) {
                PyObject *v = PyDict_GetItemWithError(seen, PyTuple_GET_ITEM(sj_cards, c));
                if (v == NULL && PyErr_Occurred())
                    goto out;
                if (v != NULL && !PyLong_CheckExact(v))
                    goto out;
                sofar[c] = v == NULL ? 0 : (int)PyLong_AsLong(v);
            }
            sofar[c]++;
            for (Py_ssize_t j = 0; j < PyList_GET_SIZE(calls); j++) {
                PyObject *call = PyList_GET_ITEM(calls, j);
                if (!PyTuple_CheckExact(call) || PyTuple_GET_SIZE(call) != 2)
                    goto out;
                long o = PyLong_AsLong(PyTuple_GET_ITEM(call, 0));
                int fc = sj_card_of(PyTuple_GET_ITEM(call, 1));
                if ((o == -1 && PyErr_Occurred()) || fc < 0)
                    goto out;
                if (fc != c || sofar[c] != o)
                    continue;
                PyObject *key = PyLong_FromSsize_t(j);
                int in = key == NULL ? -1 : PyDict_Contains(results, key);
                Py_XDECREF(key);
                if (in < 0)
                    goto out;
                if (in == 0) {                /* a call fulfilled: made by reveal() */
                    if (P->nrev >= MAXREV)
                        goto out;
                    P->rev_call[P->nrev] = (long)j;
                    P->rev_ordinal[P->nrev] = o;
                    P->rev_card[P->nrev++] = fc;
                }
            }
        }
        if (P->nrev) {
            PyObject *friends = GET(d, S_friends);
            P->declarer = small(d, S_declarer, n);
            if (P->declarer < 0 || friends == NULL || !PyList_CheckExact(friends))
                goto out;
            if (S_ev_friend == NULL &&
                ((S_ev_friend = PyUnicode_InternFromString("friend")) == NULL ||
                 (S_call_key = PyUnicode_InternFromString("call")) == NULL)) {
                rc = -1;
                goto out;
            }
        }
        P->friends = 1;
    }
    if (nt + 1 == n) {                        /* the trick ends */
        PyObject *won = GET(d, S_won), *tricks = GET(d, S_tricks);
        if (won == NULL || !PyList_CheckExact(won) || PyList_GET_SIZE(won) != n ||
            tricks == NULL || !PyList_CheckExact(tricks))
            goto out;
        long left = nh - P->ncards;
        for (long s = 0; s < n; s++)
            if (s != seat)
                left += PyList_GET_SIZE(PyList_GET_ITEM(hands, s));
        P->last = left == 0;                  /* the last trick: then _end_hand */
        if (P->last && S_end_hand == NULL &&
            (S_end_hand = PyUnicode_InternFromString("_end_hand")) == NULL) {
            rc = -1;
            goto out;
        }
        memcpy(tcnt[nt], pc, sizeof pc);
        memcpy(tcards[nt], P->cards, (size_t)P->ncards);
        tn[nt] = P->ncards;
        int w = sj_trick_winner(t, (int)n, (const int (*)[NCARD])tcnt,
                                (const unsigned char (*)[MAXH])tcards, tn);
        if (w < 0)
            goto out;
        P->winner_idx = w;
        if (w == nt)
            P->winner_seat = seat;
        else {
            P->winner_seat = PyLong_AsLong(PyTuple_GET_ITEM(PyList_GET_ITEM(trick, w), 0));
            if (P->winner_seat < 0 || P->winner_seat >= n) {
                PyErr_Clear();
                goto out;
            }
        }
        if (!PyList_CheckExact(PyList_GET_ITEM(won, P->winner_seat)))
            goto out;
        int pts = 0;
        for (long i = 0; i <= nt; i++)
            pts += points_of(tcards[i], tn[i]);
        P->winner_pts = pts;
        P->end_trick = 1;
    }
    if (make_play(game, d, move, P, hands, trick, pending, events, leading) < 0)
        rc = -1;
    else
        rc = log_move(d, P->last ? NULL : log, seat, move);
out:
    return rc;
}

PyObject *
sj_apply_listed(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "apply_listed(game, move, seat)");
        return NULL;
    }
    if (sj_names() < 0)
        return NULL;
    int held = sj_held_apply(args[0], args[1], args[2]);      /* the hand held in C */
    if (held != 0)
        return held < 0 ? NULL : Py_NewRef(Py_True);
    PyObject *d = PyObject_GenericGetDict(args[0], NULL);
    if (d == NULL) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    int rc = !PyDict_CheckExact(d) ? 0 : sj_unpacked(args[0], d) < 0 ? -1 :
             apply_listed(args[0], d, args[1], args[2]);
    Py_DECREF(d);
    if (rc < 0)
        return NULL;
    if (rc == 0 && PyErr_Occurred())
        PyErr_Clear();
    return PyBool_FromLong(rc);
}
