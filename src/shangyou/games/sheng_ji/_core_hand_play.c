/* A move on the hand held in C (_core_hand.h): ShengJiGame.apply's fast path while the core
   holds the hand, made as _core_apply.c's apply_listed makes it on the attributes. The hand's
   last trick is made too: the hand's attributes are made again for the scoring (_end_hand, in
   Python), the events, the log and the tricks stay held. */

#include "_core_hand.h"
#include "_core_ends.h"
#include "../_dict_helpers.h"

/* ---------------------------------------------------------------------- a move */
static int
points_of(const unsigned char *cards, int n)
{
    int p = 0;
    for (int i = 0; i < n; i++) {
        int r = cards[i] < BJ ? cards[i] >> 2 : -1;
        p += r == 2 ? 5 : (r == 7 || r == 10) ? 10 : 0;
    }
    return p;
}

/* each seat's card points won (the cards in ``won`` and those of the tricks held since), a
   tuple; NULL with an exception */
static PyObject *
won_points(Held *h)
{
    long pts[MAXSEATS] = {0};
    for (int s = 0; s < h->n; s++) {
        PyObject *w = PyList_GET_ITEM(h->won, s);
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(w); i++) {
            int c = sj_card_of(PyList_GET_ITEM(w, i));
            if (c < 0) {
                PyErr_SetString(PyExc_TypeError, "won: not a card");
                return NULL;
            }
            unsigned char one = (unsigned char)c;
            pts[s] += points_of(&one, 1);
        }
    }
    for (int i = h->won_from; i < h->ntricks; i++) {
        TrickRec *r = &h->tricks[i];
        for (int k = r->first; k < r->first + r->n; k++)
            pts[r->winner] += points_of(h->pool + h->plays[k].off, h->plays[k].n);
    }
    PyObject *t = PyTuple_New(h->n);
    for (int s = 0; t != NULL && s < h->n; s++) {
        PyObject *v = PyLong_FromLong(pts[s]);
        if (v == NULL)
            Py_CLEAR(t);
        else
            PyTuple_SET_ITEM(t, s, v);
    }
    return t;
}

/* the hand's last trick made: the scoring (``core.end_hand``, _core_ends.c) on the hand held,
   given the points won; where the game is over the hand stays held (``ended``: its
   attributes made again when asked for); where the next hand of a match is to be dealt
   (``_start_hand``) or the core cannot score (the Python ``_end_hand``), the hand's attributes
   are made again first; then the move logged (held, or in ``moves`` where the scoring made
   the records again: a match's next hand); ``units`` and ``winning`` stolen; 1 or -1 */
static int
last_trick(PyObject *game, Held *h, int seat, PyObject *move, int winner, PyObject *units,
           PyObject *winning)
{
    Py_CLEAR(h->legal);
    Py_CLEAR(h->token);
    Py_INCREF(h);
    PyObject *w = PyLong_FromLong(winner);
    PyObject *pts = w == NULL ? NULL : won_points(h);
    PyObject *res = NULL;
    if (pts != NULL) {
        PyObject *call[5] = {game, w, units, winning, pts};
        res = sj_end_hand(NULL, call, 5);
    }
    if (res == Py_False) {
        h->ended = 1;
    } else if (res != NULL) {                   /* True: the next hand; None: Python scores */
        int scored = res == Py_True;
        Py_CLEAR(res);
        if (sj_held_flush_part(game, 0) >= 0) {
            PyObject *call[4] = {game, w, units, winning};
            res = scored ? PyObject_VectorcallMethod(sj_S_start_hand, call, 1, NULL)
                         : PyObject_VectorcallMethod(sj_S_end_hand, call, 4, NULL);
        }
    }
    Py_XDECREF(w);
    Py_XDECREF(pts);
    Py_DECREF(units);
    Py_DECREF(winning);
    int rc = res == NULL ? -1 : 1;
    Py_XDECREF(res);
    if (rc > 0 && h->rec) {
        if (!GROW(h->log, h->nlog, h->cap_log, 1))
            rc = -1;
        else
            h->log[h->nlog++] = (LogRec){seat, Py_NewRef(move)};
    } else if (rc > 0) {
        PyObject *log = PyObject_GetAttr(game, S_moves);
        rc = log == NULL || append_pair(log, seat, move) < 0 ? -1 : 1;
        Py_XDECREF(log);
    }
    Py_DECREF(h);
    return rc;
}

/* the kitty's last card buried (no theft): the kitty (sorted), the "buried" event (held),
   then _after_kitty: the play begins (the declarer leads), or in Zhao Pengyou the declarer's
   calls (held_call); the hand stays held; 1 or -1 */
static int
buried_all(PyObject *game, Held *h, int seat)
{
    PyObject *kitty = PyList_GetSlice(h->buried_o, 0, PY_SSIZE_T_MAX);
    PyObject *ev = PyDict_New(), *who = PyLong_FromLong(seat);
    PyObject *decl = PyLong_FromLong(h->declarer);
    int rc = kitty == NULL || ev == NULL || who == NULL || decl == NULL ||
             PyList_Sort(kitty) < 0 || PyObject_SetAttr(game, sj_S_kitty, kitty) < 0 ||
             PyDict_SetItem(ev, S_event, S_buried) < 0 || PyDict_SetItem(ev, S_seat, who) < 0
             ? -1 : 0;
    if (rc == 0)
        h->evs[h->nevs++] = (EvRec){EV_OBJ, 0, 0, 0, 0, 0, Py_NewRef(ev)};
    PyObject *d = rc < 0 ? NULL : PyObject_GenericGetDict(game, NULL);
    if (d == NULL)
        rc = -1;
    else if (h->friends > 0) {                  /* the calls, the hand still held */
        h->bury = 0;
        h->calling = 1;
        h->to_act = h->declarer;
        rc = PyDict_SetItem(d, S_phase, sj_S_call) < 0 || sj_set_to_act(game, decl) < 0
             ? -1 : 1;
    } else {                                    /* _begin_play */
        h->bury = 0;
        h->to_act = h->declarer;
        rc = PyDict_SetItem(d, S_phase, S_play) < 0 || sj_set_to_act(game, decl) < 0 ||
             PyObject_SetAttr(game, sj_S_leader, decl) < 0 ? -1 : 1;
    }
    Py_XDECREF(d);
    Py_XDECREF(kitty);
    Py_XDECREF(ev);
    Py_XDECREF(who);
    Py_XDECREF(decl);
    return rc;
}

/* a friend call made (ShengJiGame._do's call phase and _moved): ``calls`` replaced by a
   list one call longer (clones share the old), the "call" event and the log held, and after
   the last call _begin_play; 1 made, 0 not made (nothing changed), -1 error */
static int
held_call(PyObject *game, Held *h, int seat, PyObject *move, PyObject *mcards, int c)
{
    /* the ordinal: the listed Move's text is "call ORDINAL CARD" */
    PyObject *text = SLOT(move, sj_move_off[M_TEXT]);
    Py_ssize_t tl = 0;
    const char *ts = text != NULL && PyUnicode_CheckExact(text) ?
        PyUnicode_AsUTF8AndSize(text, &tl) : NULL;
    if (ts == NULL) {
        PyErr_Clear();
        return 0;
    }
    int o = 0, i = 5;
    if (tl < 8 || memcmp(ts, "call ", 5) != 0)
        return 0;
    while (i < tl && i < 8 && ts[i] >= '0' && ts[i] <= '9')
        o = o * 10 + (ts[i++] - '0');
    if (i == 5 || i >= tl || ts[i] != ' ' || o < 1 || o > h->decks || c >= BJ ||
        h->ctx.eff[c] == TRUMP || h->ncalls >= MAXCALLS)
        return 0;
    PyObject *d = PyObject_GenericGetDict(game, NULL);
    if (d == NULL)
        return -1;
    PyObject *calls = GET(d, S_calls);
    if (calls == NULL || !PyList_CheckExact(calls)) {
        Py_DECREF(d);
        return PyErr_Occurred() ? -1 : 0;
    }
    if (!GROW(h->log, h->nlog, h->cap_log, 1) || !GROW(h->evs, h->nevs, h->cap_evs, 1)) {
        Py_DECREF(d);
        return -1;
    }
    PyObject *more = PyList_GetSlice(calls, 0, PY_SSIZE_T_MAX);
    PyObject *ord = PyLong_FromLong(o), *who = PyLong_FromLong(seat);
    PyObject *pair = ord == NULL ? NULL : PyTuple_Pack(2, ord, PyTuple_GET_ITEM(mcards, 0));
    PyObject *ev = PyDict_New(), *what = PyUnicode_Substring(text, 5, PY_SSIZE_T_MAX);
    int rc = more == NULL || pair == NULL || who == NULL || ev == NULL || what == NULL ||
             PyList_Append(more, pair) < 0 ||
             PyDict_SetItem(ev, S_event, sj_S_call) < 0 || PyDict_SetItem(ev, S_seat, who) < 0 ||
             PyDict_SetItem(ev, sj_S_call, what) < 0 ||
             PyDict_SetItem(d, S_calls, more) < 0 ? -1 : 1;
    if (rc > 0) {
        h->evs[h->nevs++] = (EvRec){EV_OBJ, 0, 0, 0, 0, 0, Py_NewRef(ev)};
        h->log[h->nlog++] = (LogRec){seat, Py_NewRef(move)};
        h->call_o[h->ncalls] = o;
        h->call_c[h->ncalls] = c;
        h->call_done[h->ncalls++] = 0;
        Py_CLEAR(h->legal);
        Py_CLEAR(h->token);
        if (h->ncalls >= h->friends) {          /* _begin_play: the declarer leads */
            PyObject *decl = PyLong_FromLong(h->declarer);
            h->calling = 0;
            h->to_act = h->declarer;
            rc = decl == NULL || PyDict_SetItem(d, S_phase, S_play) < 0 ||
                 sj_set_to_act(game, decl) < 0 ||
                 PyObject_SetAttr(game, sj_S_leader, decl) < 0 ? -1 : 1;
            Py_XDECREF(decl);
        }
    }
    Py_XDECREF(more);
    Py_XDECREF(ord);
    Py_XDECREF(who);
    Py_XDECREF(pair);
    Py_XDECREF(ev);
    Py_XDECREF(what);
    Py_DECREF(d);
    return rc;
}

/* the move listed last, made on the held state as _core_apply.c's apply_listed makes it on
   the attributes: 1 made, 0 not made (nothing changed), -1 error */
static int
held_apply(PyObject *game, Held *h, PyObject *move, PyObject *seat_arg)
{
    int seat = h->to_act, n = h->n;
    if (seat_arg != Py_None && !(PyLong_CheckExact(seat_arg) &&
                                 PyLong_AsLong(seat_arg) == seat)) {
        PyErr_Clear();
        return 0;
    }
    if (h->token == NULL || h->legal == NULL)
        return 0;
    PyObject *mcards;
    int kind = sj_listed_kind(move, h->token, &mcards);
    if (kind < 0)
        return 0;
    unsigned char mlist[MAXH];
    int nm = sj_moves_codes(h->legal, move, kind, mcards, mlist);
    if (nm < 0 && (nm = sj_read_cards(mcards, NULL, mlist, MAXH)) < 0)
        return 0;
    const Ctx *t = &h->ctx;
    int *hcnt = h->hcnt[seat];
    if (h->calling)
        return kind == K_CALL && nm == 1 ? held_call(game, h, seat, move, mcards, mlist[0]) : 0;
    if (h->bury) {                              /* a card buried (_do_bury) */
        int lastcard = PyList_GET_SIZE(h->buried_o) + 1 >= h->to_bury;
        if (kind != K_BURY || nm != 1 || !hcnt[mlist[0]] || (lastcard && h->theft))
            return 0;
        if (!GROW(h->log, h->nlog, h->cap_log, 1) || !GROW(h->evs, h->nevs, h->cap_evs, 1) ||
            PyList_Append(h->buried_o, PyTuple_GET_ITEM(mcards, 0)) < 0)
            return -1;
        unsigned char *hand = h->hand[seat];
        int k = 0;
        while (hand[k] != mlist[0])
            k++;
        memmove(hand + k, hand + k + 1, (size_t)(h->nhand[seat] - k - 1));
        h->nhand[seat]--;
        hcnt[mlist[0]]--;
        h->log[h->nlog++] = (LogRec){seat, Py_NewRef(move)};
        Py_CLEAR(h->legal);
        Py_CLEAR(h->token);
        return lastcard ? buried_all(game, h, seat) : 1;
    }
    int nt = h->nplays - h->trick_start;
    PlayRec *lead = nt ? &h->plays[h->trick_start] : NULL;
    int leadn = lead ? lead->n : 0;
    unsigned char cards[MAXH], tried[MAXH];
    int ncards = 0, ntried = 0;
    if (kind == K_THROW || kind == K_PICK) {
        if (nm != 1 || (kind == K_THROW) != (nt == 0))
            return 0;
        int pending = 0;                        /* the card's copies picked already */
        for (int i = 0; i < h->np; i++)
            pending += h->pend[i] == mlist[0];
        if (hcnt[mlist[0]] <= pending)
            return 0;
        int done = kind == K_THROW;
        if (kind == K_PICK) {
            int suit = t->eff[h->pool[lead->off]], mine = 0;
            for (int c = 0; c < NCARD; c++)
                if (t->eff[c] == suit)
                    mine += hcnt[c];
            if (h->np + 1 + (mine > leadn ? 0 : mine) < leadn)
                done = 1;
            else {                              /* the last card: the follow is made */
                if (mine <= leadn)
                    for (int c = 0; c < NCARD; c++)
                        if (t->eff[c] == suit)
                            for (int k = 0; k < hcnt[c]; k++)
                                cards[ncards++] = (unsigned char)c;
                memcpy(cards + ncards, h->pend, (size_t)h->np);
                ncards += h->np;
                cards[ncards++] = mlist[0];
            }
        }
        if (done) {
            if (h->np >= MAXH || !GROW(h->log, h->nlog, h->cap_log, 1))
                return h->np >= MAXH ? 0 : -1;
            h->pend[h->np++] = mlist[0];
            goto logged;
        }
    } else if (kind == K_COMMIT || kind == K_PLAY) {
        if ((kind == K_COMMIT) != (nt == 0 && h->np > 0) || h->np + nm > MAXH)
            return 0;
        memcpy(cards, h->pend, (size_t)h->np);
        memcpy(cards + h->np, mlist, (size_t)nm);
        ncards = h->np + nm;
    } else {
        return 0;
    }
    if (ncards == 0 || ncards > MAXH || (nt > 0 && ncards != leadn))
        return 0;
    if (ncards > 1)
        sj_sort_codes(cards, ncards);
    /* the play's counts: where it follows only its own cards' entries are read, so only those
       are zeroed (a lead's decomposition reads them all) */
    int pc[NCARD];
    if (nt == 0)
        memset(pc, 0, sizeof pc);
    else
        for (int i = 0; i < ncards; i++)
            pc[cards[i]] = 0;
    for (int i = 0; i < ncards; i++)
        pc[cards[i]]++;
    if (nt == 0) {                              /* _lead: the throw checked */
        int suit = t->eff[cards[0]];
        for (int i = 1; i < ncards; i++)
            if (t->eff[cards[i]] != suit)
                return 0;
        SUnit units[MAXU];
        int nu = sj_decompose(t, pc, units);
        if (nu <= 0)
            return 0;
        if (nu > 1) {
            int others[MAXSEATS][NCARD], no = 0;
            for (int s = 0; s < n; s++)
                if (s != seat)
                    memcpy(others[no++], h->hcnt[s], sizeof others[0]);
            int f = sj_throw_check(t, units, nu, suit, (const int (*)[NCARD])others, no);
            if (f >= 0) {                       /* failed: the forced unit is played */
                PyObject *rules = PyObject_GetAttr(game, S_rules);
                PyObject *tp = rules == NULL ? NULL : PyObject_GetAttr(rules, S_throw_penalty);
                long pen = tp != NULL && PyLong_CheckExact(tp) ? PyLong_AsLong(tp) : -1;
                Py_XDECREF(tp);
                Py_XDECREF(rules);
                PyErr_Clear();
                if (pen != 0)                   /* a penalty: the attributes' path */
                    return 0;
                memcpy(tried, cards, (size_t)ncards);
                ntried = ncards;
                memcpy(cards, units[f].cards, (size_t)units[f].n);     /* sorted */
                ncards = units[f].n;
                memset(pc, 0, sizeof pc);
                for (int i = 0; i < ncards; i++)
                    pc[cards[i]]++;
            }
        }
    }
    for (int i = 0; i < ncards; i++)
        if (pc[cards[i]] > hcnt[cards[i]])
            return 0;                           /* not held: the Python code says so */
    int nrev = 0, rev[MAXCALLS];                /* the calls fulfilled, in order */
    if (h->friends > 0) {                       /* (_note_friends) */
        /* an open call is met by its copy (the o-th seen) if this play holds it: the cards
           are sorted, so a card's copies lie together and the calls met go in the order of
           the place of the meeting copy, then of the call, as a walk over the cards finds
           them */
        int at[MAXCALLS];
        for (int j = 0; j < h->ncalls; j++) {
            if (h->call_done[j])
                continue;
            int c = h->call_c[j], first = -1, m = 0;
            for (int i = 0; i < ncards; i++)
                if (cards[i] == c) {
                    first = first < 0 ? i : first;
                    m++;
                }
            int o = h->call_o[j] - h->seen[c];  /* its number among this play's copies */
            if (o < 1 || o > m)
                continue;
            int k = nrev++, place = first + o - 1;
            for (; k > 0 && at[k - 1] > place; k--) {
                at[k] = at[k - 1];
                rev[k] = rev[k - 1];
            }
            at[k] = place;
            rev[k] = j;
        }
    }
    PyObject *last_units = NULL, *winning = NULL;
    int end = nt + 1 == n, winner = -1, pts = 0, last = 0;
    if (end) {
        int left = -ncards;
        for (int s = 0; s < n; s++)
            left += h->nhand[s];
        last = left == 0;                       /* the hand's last trick: then its scoring */
    }
    /* room for the records first: nothing changes unless all of it is made (the last trick's
       arguments are made after this) */
    if (!GROW(h->plays, h->nplays, h->cap_plays, 1) ||
        !GROW(h->pool, h->npool, h->cap_pool, ncards + ntried) ||
        !GROW(h->evs, h->nevs, h->cap_evs, 3 + nrev) || !GROW(h->tricks, h->ntricks, h->cap_tricks, 1) ||
        !GROW(h->log, h->nlog, h->cap_log, 1))
        return -1;
    if (end) {
        int tcnt[MAXSEATS][NCARD], tn[MAXSEATS];
        unsigned char tcards[MAXSEATS][MAXH];
        /* the plays' counts are read only where the lead is not one card's copies (a single,
           a pair, ...: sj_trick_winner compares the plays' cards) or for the last trick */
        int counted = last;
        for (int i = 1; !counted && i < leadn; i++)
            counted = h->pool[lead->off + i] != h->pool[lead->off];
        for (int i = 0; i <= nt; i++) {
            const unsigned char *src = i < nt ? h->pool + h->plays[h->trick_start + i].off
                                              : cards;
            tn[i] = i < nt ? h->plays[h->trick_start + i].n : ncards;
            memcpy(tcards[i], src, (size_t)tn[i]);
            if (counted) {
                memset(tcnt[i], 0, sizeof tcnt[i]);
                for (int k = 0; k < tn[i]; k++)
                    tcnt[i][src[k]]++;
            }
            pts += points_of(src, tn[i]);
        }
        int w = sj_trick_winner(t, n, (const int (*)[NCARD])tcnt,
                                (const unsigned char (*)[MAXH])tcards, tn);
        if (w < 0)
            return 0;
        winner = w == nt ? seat : h->plays[h->trick_start + w].seat;
        if (last) {         /* _end_hand's arguments: the lead's units, the winning play */
            SUnit su[MAXU];
            int nu = sj_decompose(t, tcnt[0], su);
            winning = sj_cards_tuple(tcards[w], tn[w]);
            if (nu <= 0 || winning == NULL || sj_unit_list(su, nu, &last_units) < 0) {
                Py_XDECREF(winning);
                return PyErr_Occurred() ? -1 : 0;
            }
        }
    }
    /* made from here on */
    if (ntried) {
        memcpy(h->pool + h->npool, tried, (size_t)ntried);
        h->evs[h->nevs++] = (EvRec){EV_FAILED, seat, 0, h->nplays, h->npool, ntried};
        h->npool += ntried;
    }
    unsigned char *hand = h->hand[seat];
    for (int i = 0; i < ncards; i++) {          /* list.remove of each card */
        int k = 0;
        while (hand[k] != cards[i])
            k++;
        memmove(hand + k, hand + k + 1, (size_t)(h->nhand[seat] - k - 1));
        h->nhand[seat]--;
        hcnt[cards[i]]--;
        if (h->friends > 0)
            h->seen[cards[i]]++;
    }
    for (int k = 0; k < nrev; k++) {            /* a friend revealed: call_results, friends */
        int j = rev[k];
        h->call_done[j] = 1;
        PyObject *key = PyLong_FromLong(j), *who = PyLong_FromLong(seat);
        int in = key == NULL || who == NULL || PyDict_SetItem(h->results_o, key, who) < 0 ? -1
                 : seat == h->declarer ? 1 : PySequence_Contains(h->friends_o, who);
        if (in == 0 && PyList_Append(h->friends_o, who) < 0)
            in = -1;
        Py_XDECREF(key);
        Py_XDECREF(who);
        if (in < 0)
            return -1;
        if (in == 0)
            h->evs[h->nevs++] = (EvRec){EV_FRIEND, seat, h->call_o[j], h->call_c[j], 0, 0};
    }
    h->np = 0;
    memcpy(h->pool + h->npool, cards, (size_t)ncards);
    h->plays[h->nplays] = (PlayRec){seat, h->npool, ncards};
    h->npool += ncards;
    h->evs[h->nevs++] = (EvRec){EV_PLAY, seat, 0, h->nplays, 0, 0};
    h->nplays++;
    if (end) {
        h->tricks[h->ntricks++] = (TrickRec){winner, h->trick_start, n};
        h->evs[h->nevs++] = (EvRec){EV_TRICK, winner, pts, 0, 0, 0};
        h->trick_start = h->nplays;
        h->to_act = winner;
    } else {
        h->to_act = (seat + 1) % n;
    }
    if (last)
        return last_trick(game, h, seat, move, winner, last_units, winning);
logged:
    h->log[h->nlog++] = (LogRec){seat, Py_NewRef(move)};
    Py_CLEAR(h->legal);
    Py_CLEAR(h->token);
    if (h->to_act != seat) {                    /* ``to_act`` stays an attribute */
        if (sj_set_to_act_long(game, h->to_act) < 0)
            return -1;
    }
    return 1;
}

/* the game's ``to_act`` slot (declared in _core.h) */
long
sj_to_act(PyObject *game, long below)
{
    if (sj_to_act_off < 0 || !PyObject_TypeCheck(game, sj_game_type))
        return -1;
    return small_value(SLOT(game, sj_to_act_off), below);
}

int
sj_set_to_act(PyObject *game, PyObject *v)
{
    if (sj_to_act_off < 0 || !PyObject_TypeCheck(game, sj_game_type))
        return PyObject_SetAttr(game, sj_S_to_act_name, v);
    Py_XSETREF(SLOT(game, sj_to_act_off), Py_NewRef(v));
    return 0;
}

int
sj_set_to_act_long(PyObject *game, long seat)
{
    PyObject *v = PyLong_FromLong(seat);
    if (v == NULL)
        return -1;
    int rc = sj_set_to_act(game, v);
    Py_DECREF(v);
    return rc;
}

int
sj_held_apply(PyObject *game, PyObject *move, PyObject *seat)
{
    Held *h = sj_held_of(game);
    if (h == NULL || !h->valid)
        return 0;
    int rc = sj_held_still(game, h);
    if (rc <= 0)
        return rc;
    rc = held_apply(game, h, move, seat);
    if (rc == 0 && sj_held_flush(game) < 0)     /* not made here: the attributes' path */
        return -1;
    return rc;
}
