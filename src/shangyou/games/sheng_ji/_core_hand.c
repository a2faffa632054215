/* The hand's play state held in C behind the game (ShengJiGame's ``_st`` slot; the Held
   object is declared in _core_hand.h, its moves are made in _core_hand_play.c).

   In the play phase a move read and wrote about a dozen of the game's attributes (the hands,
   the trick, the pending cards, the cards won, the tricks, the events, the log, the listing
   and its token) as Python lists and dict items. While the hand is *held*, a ``Held``
   object keeps them as card arrays and compact records, and those attributes are gone from
   the game's dict; the class's descriptors for them (clone.py, ``_Packed``) make them again
   (``sj_held_flush_part``) as soon as anything asks for one, so callers cannot tell, but for
   the clock:

   - taken (``take``) when the C ``legal_moves`` lists in the play phase: the hands, the
     trick and the pending cards are read once; the cards won, the events, the log and the
     finished tricks only gain items, so their lists are kept and only what is added is
     recorded;
   - made again: each hand list gets its cards back in place (the same list objects), the
     cards won appended, the trick, the pending cards, the lead's units, the listing and its
     token set, in Zhao Pengyou the cards seen; and (all, or one of them asked for) the
     tricks, the events and the log appended. The hand's attributes alone are made again
     for the scoring of the last trick: the records stay held through it (the game's Python
     events are recorded after them, ``add_event``) until one is read;
   - a name set in the dict while the hand is held (the dict's size shows it) keeps its
     value: the held state is let go, the other names made again;
   - a move the held state does not make (a failed throw with a penalty, a move not from its
     listing) first makes the attributes again, then goes the way it went before
     (_core_apply.c, or Python).

   Each game has its own Held (no state shared between games or across a call back into
   Python); its records grow with PyMem_Realloc. A Held holds no reference to its game (so no
   cycle through it, and no garbage-collector support). */

#include "_core_hand.h"
#include "../_dict_helpers.h"
#include "../_slots.h"

static Py_ssize_t st_off = -1;          /* the ``_st`` slot's offset (the class's layout) */
Py_ssize_t sj_to_act_off = -1;          /* ``to_act``'s (_core_hand_play.c reads it) */
PyObject *sj_S_to_act_name;
PyTypeObject *sj_game_type;             /* the class bound */
static PyObject *S_st_dict_names[11];
PyObject *sj_S_end_hand, *sj_S_friend, *sj_S_call, *sj_S_kitty, *sj_S_leader, *S_kitty_theft,
    *sj_S_start_hand;
static int n_names;

int
sj_held_grow(void **arr, int *cap, int need, size_t size)
{
    int c = *cap ? *cap : 32;
    while (c < need)
        c *= 2;
    void *p = PyMem_Realloc(*arr, (size_t)c * size);
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *arr = p;
    *cap = c;
    return 0;
}

static void
release_hand(Held *h)
{
    Py_CLEAR(h->hands);
    Py_CLEAR(h->won);
    Py_CLEAR(h->seen_o);
    Py_CLEAR(h->friends_o);
    Py_CLEAR(h->results_o);
    Py_CLEAR(h->buried_o);
    Py_CLEAR(h->legal);
    Py_CLEAR(h->token);
    h->np = 0;
    h->valid = h->calling = h->ended = 0;
}

/* (the hand let go first: its trick's plays are in the records' arrays) */
static void
release_records(Held *h)
{
    for (int i = 0; i < h->nlog; i++)
        Py_DECREF(h->log[i].move);
    for (int i = 0; i < h->nevs; i++)
        Py_XDECREF(h->evs[i].obj);
    h->nlog = h->nplays = h->npool = h->nevs = h->ntricks = h->trick_start = h->won_from = 0;
    Py_CLEAR(h->events);
    Py_CLEAR(h->moves);
    Py_CLEAR(h->tricks_o);
    h->rec = 0;
}

/* the record arrays of the last Held freed, kept for the next game's (grown to a whole hand
   already, and warm: a game's arrays would otherwise grow by doubling from nothing each
   hand): only their fields of ``spare`` are used; the GIL guards it, and nothing calls back
   into Python between taking and filling */
static Held spare;
static int spare_full;

/* the record arrays (and their capacities) handed from one Held to another */
static void
move_records(Held *to, Held *from)
{
    to->plays = from->plays;
    to->pool = from->pool;
    to->evs = from->evs;
    to->tricks = from->tricks;
    to->log = from->log;
    to->cap_plays = from->cap_plays;
    to->cap_pool = from->cap_pool;
    to->cap_evs = from->cap_evs;
    to->cap_tricks = from->cap_tricks;
    to->cap_log = from->cap_log;
}

static void
held_dealloc(PyObject *o)
{
    Held *h = (Held *)o;
    release_hand(h);
    release_records(h);
    if (!spare_full) {
        move_records(&spare, h);
        spare_full = 1;
    } else {
        PyMem_Free(h->plays);
        PyMem_Free(h->pool);
        PyMem_Free(h->evs);
        PyMem_Free(h->tricks);
        PyMem_Free(h->log);
    }
    Py_TYPE(o)->tp_free(o);
}

/* a new Held, with the spare arrays where there are some (a new reference, or NULL) */
static PyObject *
held_new(void)
{
    Held *h = (Held *)PyType_GenericAlloc(&sj_held_type, 0);
    if (h != NULL && spare_full) {
        move_records(h, &spare);
        spare_full = 0;
    }
    return (PyObject *)h;
}

PyTypeObject sj_held_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "shangyou.games.sheng_ji._core.Held",
    .tp_basicsize = sizeof(Held),
    .tp_dealloc = held_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A Sheng ji hand's play state held in C behind its game (_core_hand.c).",
};

int
sj_held_bind(PyObject *cls)
{
    const char *names[2] = {"_st", "to_act"};
    Py_ssize_t off[2];
    if (slot_offsets(cls, names, 2, 1, 0, off) < 0)
        return -1;
    if (sj_S_to_act_name == NULL &&
        (sj_S_to_act_name = PyUnicode_InternFromString("to_act")) == NULL)
        return -1;
    st_off = off[0];
    sj_to_act_off = off[1];
    sj_game_type = (PyTypeObject *)cls;
    const char *dn[11] = {"hands", "won", "trick", "pending", "lead_units", "events", "moves",
                          "tricks", "_legal", "_token", "seen_counts"};
    for (int i = 0; i < 11; i++)
        if (S_st_dict_names[i] == NULL &&
            (S_st_dict_names[i] = PyUnicode_InternFromString(dn[i])) == NULL)
            return -1;
    n_names = 11;
    if (sj_S_end_hand == NULL &&
        ((sj_S_end_hand = PyUnicode_InternFromString("_end_hand")) == NULL ||
         (sj_S_friend = PyUnicode_InternFromString("friend")) == NULL ||
         (sj_S_call = PyUnicode_InternFromString("call")) == NULL ||
         (sj_S_kitty = PyUnicode_InternFromString("kitty")) == NULL ||
         (sj_S_leader = PyUnicode_InternFromString("leader")) == NULL ||
         (S_kitty_theft = PyUnicode_InternFromString("kitty_theft")) == NULL ||
         (sj_S_start_hand = PyUnicode_InternFromString("_start_hand")) == NULL))
        return -1;
    return 0;
}

Held *
sj_held_of(PyObject *game)
{
    if (st_off < 0 || !PyObject_TypeCheck(game, sj_game_type))
        return NULL;
    PyObject *h = SLOT(game, st_off);
    return h != NULL && Py_IS_TYPE(h, &sj_held_type) ? (Held *)h : NULL;
}

/* ---------------------------------------------------------------------- taking the hand */
static int
read_plain(PyObject *list, unsigned char *out, int *cnt)
{
    return PyList_CheckExact(list) ? sj_read_cards(list, cnt, out, MAXH) : -1;
}

/* the game's attributes read into h (the records too unless held already); 1 taken, 0 cannot
   (nothing changed), -1 error */
static int
take(PyObject *game, PyObject *d, Held *h)
{
    long n = small(d, S_n, MAXSEATS + 1);
    long seat = n > 0 ? sj_to_act(game, n) : -1;
    PyObject *phase = GET(d, S_phase);
    if (seat < 0 || phase == NULL || !PyUnicode_CheckExact(phase))
        return 0;
    int bury = phase == S_bury || (phase != S_play && PyUnicode_Compare(phase, S_bury) == 0);
    if (!bury && phase != S_play && PyUnicode_Compare(phase, S_play) != 0)
        return 0;
    if (bury) {              /* the kitty buried, no theft: ``buried`` and ``to_bury`` (slots) */
        PyObject *theft = PyObject_GetAttr(game, S_theft_round);
        PyObject *buried = PyObject_GetAttr(game, S_buried);
        PyObject *tb = PyObject_GetAttr(game, S_to_bury);
        long to_bury = tb != NULL && PyLong_CheckExact(tb) ? PyLong_AsLong(tb) : -1;
        int ok = theft == Py_None && buried != NULL && PyList_CheckExact(buried) &&
                 to_bury > 0 && to_bury <= MAXH;
        Py_XDECREF(theft);
        Py_XDECREF(tb);
        PyErr_Clear();
        if (!ok) {
            Py_XDECREF(buried);
            return 0;
        }
        Py_XSETREF(h->buried_o, buried);
        h->to_bury = (int)to_bury;
        h->declarer = (int)small(d, S_declarer, n);
        if (h->declarer < 0)
            return 0;
    }
    PyObject *hands = GET(d, S_hands), *won = GET(d, S_won), *trick = GET(d, S_trick);
    PyObject *pending = GET(d, S_pending), *events = GET(d, S_events);
    PyObject *moves = GET(d, S_moves), *tricks = GET(d, S_tricks), *rules = GET(d, S_rules);
    const Ctx *t;
    if (hands == NULL || !PyList_CheckExact(hands) || PyList_GET_SIZE(hands) != n ||
        won == NULL || !PyList_CheckExact(won) || PyList_GET_SIZE(won) != n ||
        trick == NULL || !PyList_CheckExact(trick) || PyList_GET_SIZE(trick) >= n ||
        pending == NULL || !PyList_CheckExact(pending) || (!h->rec &&
        (events == NULL || !PyList_CheckExact(events) || moves == NULL ||
         !PyList_CheckExact(moves) || tricks == NULL || !PyList_CheckExact(tricks))) ||
        rules == NULL ||
        (t = sj_ctx_read(GET(d, S_trump))) == NULL)
        return 0;
    h->ctx = *t;
    PyObject *dk = PyObject_GetAttr(rules, S_decks), *fr = PyObject_GetAttr(rules, S_friends);
    PyObject *th = PyObject_GetAttr(rules, S_kitty_theft);
    long decks = dk != NULL && PyLong_CheckExact(dk) ? PyLong_AsLong(dk) : -1;
    long friends = fr != NULL && PyLong_CheckExact(fr) ? PyLong_AsLong(fr) : -1;
    int theft = th == NULL ? -1 : PyObject_IsTrue(th);
    Py_XDECREF(dk);
    Py_XDECREF(fr);
    Py_XDECREF(th);
    PyErr_Clear();
    if (decks < 1 || decks > 8 || friends < 0 || theft < 0)
        return 0;
    h->theft = theft;
    for (long s = 0; s < n; s++) {
        memset(h->hcnt[s], 0, sizeof h->hcnt[s]);
        if ((h->nhand[s] = read_plain(PyList_GET_ITEM(hands, s), h->hand[s], h->hcnt[s])) < 0 ||
            !PyList_CheckExact(PyList_GET_ITEM(won, s)))
            return 0;
    }
    int pcnt[NCARD] = {0};
    if ((h->np = read_plain(pending, h->pend, pcnt)) < 0)
        return 0;
    if (!h->rec)
        h->nplays = h->npool = h->nevs = h->ntricks = h->nlog = h->won_from = 0;
    int plays0 = h->nplays, pool0 = h->npool;       /* (kept: the records' plays) */
    h->trick_start = h->nplays;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(trick); i++) {
        PyObject *it = PyList_GET_ITEM(trick, i);
        int cnt[NCARD] = {0};
        long s;
        if (!PyTuple_CheckExact(it) || PyTuple_GET_SIZE(it) != 2 ||
            !PyLong_CheckExact(PyTuple_GET_ITEM(it, 0)) ||
            (s = PyLong_AsLong(PyTuple_GET_ITEM(it, 0))) < 0 || s >= n ||
            !GROW(h->plays, h->nplays, h->cap_plays, 1) ||
            !GROW(h->pool, h->npool, h->cap_pool, MAXH)) {
            PyErr_Clear();
            h->nplays = plays0;
            h->npool = pool0;
            return 0;
        }
        int k = sj_read_cards(PyTuple_GET_ITEM(it, 1), cnt, h->pool + h->npool, MAXH);
        if (k <= 0) {
            h->nplays = plays0;
            h->npool = pool0;
            return 0;
        }
        sj_sort_codes(h->pool + h->npool, k);
        h->plays[h->nplays++] = (PlayRec){(int)s, h->npool, k};
        h->npool += k;
    }
    h->ncalls = 0;
    PyObject *seen = NULL;
    if (friends > 0) {                   /* the cards seen and the calls still open */
        seen = GET(d, S_seen_counts);
        PyObject *calls = GET(d, S_calls), *results = GET(d, S_call_results);
        PyObject *friends_l = GET(d, S_friends);
        long declarer = small(d, S_declarer, n);
        if (seen == NULL || !PyDict_Check(seen) || calls == NULL || !PyList_CheckExact(calls) ||
            PyList_GET_SIZE(calls) > MAXCALLS || results == NULL || !PyDict_CheckExact(results) ||
            friends_l == NULL || !PyList_CheckExact(friends_l) || declarer < 0)
            return 0;
        h->declarer = (int)declarer;
        Py_XSETREF(h->friends_o, Py_NewRef(friends_l));
        Py_XSETREF(h->results_o, Py_NewRef(results));
        memset(h->seen, 0, sizeof h->seen);
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        while (PyDict_Next(seen, &pos, &k, &v)) {
            int c = sj_card_of(k);
            long x = PyLong_CheckExact(v) ? PyLong_AsLong(v) : -1;
            if (c < 0 || x < 0 || x > 1000) {
                PyErr_Clear();
                return 0;
            }
            h->seen[c] = (int)x;
        }
        memcpy(h->seen0, h->seen, sizeof h->seen);
        for (Py_ssize_t j = 0; j < PyList_GET_SIZE(calls); j++) {
            PyObject *call = PyList_GET_ITEM(calls, j);
            if (!PyTuple_CheckExact(call) || PyTuple_GET_SIZE(call) != 2 ||
                !PyLong_CheckExact(PyTuple_GET_ITEM(call, 0)))
                return 0;
            long o = PyLong_AsLong(PyTuple_GET_ITEM(call, 0));
            int fc = sj_card_of(PyTuple_GET_ITEM(call, 1));
            PyObject *key = PyLong_FromSsize_t(j);
            int in = key == NULL ? -1 : PyDict_Contains(results, key);
            Py_XDECREF(key);
            if (in < 0 || fc < 0 || o < 0) {
                PyErr_Clear();
                return 0;
            }
            h->call_o[h->ncalls] = (int)o;
            h->call_c[h->ncalls] = fc;
            h->call_done[h->ncalls++] = in;
        }
    }
    PyObject *legal = GET(d, S_legal), *token = GET(d, S_token);
    h->n = (int)n;
    h->decks = (int)decks;
    h->friends = (int)friends;
    h->to_act = (int)seat;
    h->bury = bury;
    h->calling = h->ended = 0;
    h->hands = Py_NewRef(hands);
    h->won = Py_NewRef(won);
    if (!h->rec) {
        h->events = Py_NewRef(events);
        h->moves = Py_NewRef(moves);
        h->tricks_o = Py_NewRef(tricks);
    }
    h->seen_o = Py_XNewRef(seen);
    h->legal = legal == Py_None ? NULL : Py_XNewRef(legal);
    h->token = token == Py_None ? NULL : Py_XNewRef(token);
    /* the attributes leave the dict: the class's descriptors make them again when asked */
    for (int i = 0; i < n_names; i++) {
        if ((i == 10 && seen == NULL) || (h->rec && i >= 5 && i <= 7))
            continue;
        if (PyDict_DelItem(d, S_st_dict_names[i]) < 0) {
            if (!PyErr_ExceptionMatches(PyExc_KeyError))
                return -1;
            PyErr_Clear();
        }
    }
    h->dsize = PyDict_GET_SIZE(d);
    h->valid = h->rec = 1;
    return 1;
}

/* ---------------------------------------------------------------------- making it again */
static PyObject *
card_list(const unsigned char *cards, int n)
{
    PyObject *l = PyList_New(n);
    if (l == NULL)
        return NULL;
    for (int i = 0; i < n; i++)
        PyList_SET_ITEM(l, i, Py_NewRef(PyTuple_GET_ITEM(sj_cards, cards[i])));
    return l;
}

/* the cards of the tricks won since ``won_from`` added to each winner's list, in the order
   played: one resize a winner */
static int
add_won(Held *h)
{
    Py_ssize_t more[MAXSEATS] = {0};
    for (int i = h->won_from; i < h->ntricks; i++) {
        TrickRec *r = &h->tricks[i];
        for (int k = r->first; k < r->first + r->n; k++)
            more[r->winner] += h->plays[k].n;
    }
    Py_ssize_t at[MAXSEATS];
    for (int s = 0; s < h->n; s++) {
        PyObject *w = PyList_GET_ITEM(h->won, s);
        Py_ssize_t end = PyList_GET_SIZE(w);
        at[s] = end;
        if (more[s] == 0)
            continue;
        /* grown with None placeholders, then each filled (a list's items are never NULL) */
        PyObject *pad = PyList_New(more[s]);
        if (pad == NULL)
            return -1;
        for (Py_ssize_t i = 0; i < more[s]; i++)
            PyList_SET_ITEM(pad, i, Py_NewRef(Py_None));
        int rc = PyList_SetSlice(w, end, end, pad);
        Py_DECREF(pad);
        if (rc < 0)
            return -1;
    }
    for (int i = h->won_from; i < h->ntricks; i++) {
        TrickRec *r = &h->tricks[i];
        PyObject *w = PyList_GET_ITEM(h->won, r->winner);
        for (int k = r->first; k < r->first + r->n; k++) {
            const unsigned char *c = h->pool + h->plays[k].off;
            for (int j = 0; j < h->plays[k].n; j++) {
                PyObject **slot = &((PyListObject *)w)->ob_item[at[r->winner]++];
                Py_SETREF(*slot, Py_NewRef(PyTuple_GET_ITEM(sj_cards, c[j])));
            }
        }
    }
    return 0;
}

static PyObject *
play_pair(Held *h, int i)
{
    PyObject *s = PyLong_FromLong(h->plays[i].seat);
    PyObject *c = sj_cards_tuple(h->pool + h->plays[i].off, h->plays[i].n);
    PyObject *p = s != NULL && c != NULL ? PyTuple_Pack(2, s, c) : NULL;
    Py_XDECREF(s);
    Py_XDECREF(c);
    return p;
}

static PyObject *
plays_list(Held *h, int first, int n)
{
    PyObject *l = PyList_New(n);
    for (int i = 0; l != NULL && i < n; i++) {
        PyObject *p = play_pair(h, first + i);
        if (p == NULL)
            Py_CLEAR(l);
        else
            PyList_SET_ITEM(l, i, p);
    }
    return l;
}

static int
append_dict(PyObject *list, int n, PyObject **keys, PyObject **values)
{
    PyObject *e = PyDict_New();
    int ok = e != NULL;
    for (int i = 0; i < n; i++) {
        if (ok && (values[i] == NULL || PyDict_SetItem(e, keys[i], values[i]) < 0))
            ok = 0;
        Py_XDECREF(values[i]);
    }
    ok = ok && PyList_Append(list, e) == 0;
    Py_XDECREF(e);
    return ok ? 0 : -1;
}

/* d[name] = v (stolen) unless the name was set since the hand was taken (that value stays) */
static int
put(PyObject *d, PyObject *name, PyObject *v)
{
    if (v == NULL)
        return -1;
    PyObject *r = PyDict_SetDefault(d, name, v);
    Py_DECREF(v);
    return r == NULL ? -1 : 0;
}

/* the attributes made in d from h, the hand's (``hand``) and the records' (``records``); a
   name set since the hand was taken keeps its value */
static int
give_back(Held *h, PyObject *d, int hand, int records)
{
    PyObject **N = S_st_dict_names;
    int set[11];
    for (int i = 0; i < 11; i++) {
        set[i] = PyDict_Contains(d, N[i]);
        if (set[i] < 0)
            return -1;
    }
    for (int i = 0; i < 11; i++)           /* (what is not made counts as set) */
        if (!(i >= 5 && i <= 7 ? records : hand))
            set[i] = 1;
    for (int s = 0; s < h->n && !set[0]; s++) {
        PyObject *cards = card_list(h->hand[s], h->nhand[s]);
        int rc = cards == NULL ? -1 :
            PyList_SetSlice(PyList_GET_ITEM(h->hands, s), 0, PY_SSIZE_T_MAX, cards);
        Py_XDECREF(cards);
        if (rc < 0)
            return -1;
    }
    if (!set[1] && add_won(h) < 0)                                   /* the cards won */
        return -1;
    if (hand)
        h->won_from = h->ntricks;
    for (int i = 0; i < h->ntricks && !set[7]; i++) {                /* the tricks */
        TrickRec *r = &h->tricks[i];
        PyObject *keys[2] = {S_plays, S_winner};
        PyObject *vals[2] = {plays_list(h, r->first, r->n), PyLong_FromLong(r->winner)};
        if (append_dict(h->tricks_o, 2, keys, vals) < 0)
            return -1;
    }
    for (int i = 0; i < h->nevs && !set[5]; i++) {
        EvRec *e = &h->evs[i];
        if (e->kind == EV_OBJ) {
            if (PyList_Append(h->events, e->obj) < 0)
                return -1;
            continue;
        }
        if (e->kind == EV_FRIEND) {          /* seat, the call's ordinal (pts) and card */
            PyObject *fk[3] = {S_event, S_seat, sj_S_call};
            PyObject *fv[3] = {Py_NewRef(sj_S_friend), PyLong_FromLong(e->seat),
                               PyUnicode_FromFormat("%d %U", e->pts,
                                                    PyList_GET_ITEM(sj_card_text, e->play))};
            if (append_dict(h->events, 3, fk, fv) < 0)
                return -1;
            continue;
        }
        PyObject *keys[4] = {S_event, S_seat, S_cards_key, NULL};
        PyObject *vals[4];
        int k = 3;
        if (e->kind == EV_PLAY) {
            vals[0] = Py_NewRef(S_ev_play);
            vals[1] = PyLong_FromLong(e->seat);
            vals[2] = sj_cards_text(h->pool + h->plays[e->play].off, h->plays[e->play].n);
        } else if (e->kind == EV_TRICK) {
            keys[1] = S_winner;
            keys[2] = S_points;
            vals[0] = Py_NewRef(S_ev_trick);
            vals[1] = PyLong_FromLong(e->seat);
            vals[2] = PyLong_FromLong(e->pts);
        } else {
            keys[2] = S_tried;
            keys[3] = S_forced;
            vals[0] = Py_NewRef(S_ev_failed);
            vals[1] = PyLong_FromLong(e->seat);
            vals[2] = sj_cards_text(h->pool + e->off, e->n);
            vals[3] = sj_cards_text(h->pool + h->plays[e->play].off, h->plays[e->play].n);
            k = 4;
        }
        if (append_dict(h->events, k, keys, vals) < 0)
            return -1;
    }
    for (int i = 0; i < h->nlog && !set[6]; i++)
        if (append_pair(h->moves, h->log[i].seat, h->log[i].move) < 0)
            return -1;
    if (h->seen_o != NULL && !set[10])
        for (int c = 0; c < NCARD; c++)
            if (h->seen[c] != h->seen0[c] &&
                set_long(h->seen_o, PyTuple_GET_ITEM(sj_cards, c), h->seen[c]) < 0)
                return -1;
    PyObject *units = Py_NewRef(Py_None);
    if (hand && h->nplays > h->trick_start) {                  /* the lead's units */
        PlayRec *p = &h->plays[h->trick_start];
        int cnt[NCARD] = {0};
        SUnit su[MAXU];
        for (int i = 0; i < p->n; i++)
            cnt[h->pool[p->off + i]]++;
        int nu = sj_decompose(&h->ctx, cnt, su);
        Py_DECREF(units);
        if (nu <= 0 || sj_unit_list(su, nu, &units) < 0) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_RuntimeError, "the lead's units");
            return -1;
        }
    }
    if (records && (put(d, N[5], Py_NewRef(h->events)) < 0 ||
                    put(d, N[6], Py_NewRef(h->moves)) < 0 ||
                    put(d, N[7], Py_NewRef(h->tricks_o)) < 0)) {
        Py_DECREF(units);
        return -1;
    }
    if (!hand) {
        Py_DECREF(units);
        return 0;
    }
    if (put(d, N[0], Py_NewRef(h->hands)) < 0 || put(d, N[1], Py_NewRef(h->won)) < 0 ||
        put(d, N[2], plays_list(h, h->trick_start, h->nplays - h->trick_start)) < 0 ||
        put(d, N[3], card_list(h->pend, h->np)) < 0 || put(d, N[4], units) < 0 ||
        put(d, N[8], Py_NewRef(h->legal ? h->legal : Py_None)) < 0 ||
        put(d, N[9], Py_NewRef(h->token ? h->token : Py_None)) < 0 ||
        (h->seen_o != NULL && put(d, N[10], Py_NewRef(h->seen_o)) < 0))
        return -1;
    return 0;
}

int
sj_held_flush_part(PyObject *game, int all)
{
    Held *h = sj_held_of(game);
    if (h == NULL || !(h->valid || (all && h->rec)))
        return 0;
    PyObject *d = PyObject_GenericGetDict(game, NULL);
    if (d == NULL)
        return -1;
    Py_INCREF(h);
    int rc = give_back(h, d, h->valid, all && h->rec);
    release_hand(h);
    if (all)
        release_records(h);
    Py_DECREF(h);
    Py_DECREF(d);
    return rc < 0 ? -1 : 1;
}

int
sj_held_flush(PyObject *game)
{
    return sj_held_flush_part(game, 1);
}

/* flush(game, all=True) -> bool: the attributes of a hand held in C made again (True), or
   none held; ``all`` False: the hand's only (the events, the log and the tricks stay held) */
PyObject *
sj_flush(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "flush(game, all=True)");
        return NULL;
    }
    int all = nargs < 2 ? 1 : PyObject_IsTrue(args[1]);
    if (all < 0 || sj_names() < 0)
        return NULL;
    int rc = sj_held_flush_part(args[0], all);
    if (rc < 0)
        return NULL;
    return PyBool_FromLong(rc);
}

/* add_event(game, event) -> bool: the event recorded after the held ones (True), or no
   records held (False: the caller appends it to ``events``) */
PyObject *
sj_add_event(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "add_event(game, event)");
        return NULL;
    }
    Held *h = sj_held_of(args[0]);
    if (h == NULL || !h->rec)
        Py_RETURN_FALSE;
    if (!GROW(h->evs, h->nevs, h->cap_evs, 1))
        return NULL;
    h->evs[h->nevs++] = (EvRec){EV_OBJ, 0, 0, 0, 0, 0, Py_NewRef(args[1])};
    Py_RETURN_TRUE;
}

/* (a name set since: one of those made again by a caller; its value is kept) */
int
sj_held_still(PyObject *game, Held *h)
{
    PyObject *d = PyObject_GenericGetDict(game, NULL);
    if (d == NULL)
        return -1;
    Py_ssize_t size = PyDict_GET_SIZE(d);
    Py_DECREF(d);
    if (size == h->dsize)
        return 1;
    return sj_held_flush(game) < 0 ? -1 : 0;
}

/* ---------------------------------------------------------------------- listing */
/* the listing's token: a plain object() (what object.__new__ makes), from a pool of them: a
   token the pool alone holds (no Move, listing or game refers to it any more) is as good as
   a new one, and nothing can tell them apart; the GIL guards the pool (no Python code runs
   while it is used); a new reference, or NULL with MemoryError */
#define TOKENS 512
static PyObject *tokens[TOKENS];
static int ntokens, token_at;

static PyObject *
new_token(void)
{
    PyObject *t = sj_pool_take(tokens, ntokens, &token_at, &PyBaseObject_Type);
    if (t != NULL)
        return t;
    if ((t = PyObject_Malloc(sizeof(PyObject))) == NULL)
        return PyErr_NoMemory();
    PyObject_Init(t, &PyBaseObject_Type);
    sj_pool_add(tokens, &ntokens, TOKENS, t);
    return t;
}

PyObject *
sj_held_legal(PyObject *game)
{
    if (st_off < 0 || sj_move_type == NULL || !PyObject_TypeCheck(game, sj_game_type))
        return NULL;
    Held *h = sj_held_of(game);
    if (h != NULL && h->valid && sj_held_still(game, h) < 0)
        return NULL;
    if (h != NULL && h->valid && h->ended)             /* the game over: the dict's path */
        return sj_held_flush(game) < 0 ? NULL : NULL;
    if (h == NULL || !h->valid) {                      /* take the hand if it is played */
        if (sj_names() < 0)
            return NULL;
        PyObject *d = PyObject_GenericGetDict(game, NULL);
        if (d == NULL)
            return NULL;
        int rc = 0;
        /* (the phase first: the deal's listings ask too) */
        PyObject *phase = PyDict_CheckExact(d) ? GET(d, S_phase) : NULL;
        if (phase != NULL && (phase == S_play || phase == S_bury ||
                              (PyUnicode_CheckExact(phase) &&
                               (PyUnicode_Compare(phase, S_play) == 0 ||
                                PyUnicode_Compare(phase, S_bury) == 0))) &&
            sj_unpacked(game, d) == 0) {
            if (h == NULL) {
                PyObject *o = held_new();
                if (o == NULL) {
                    Py_DECREF(d);
                    return NULL;
                }
                Py_XSETREF(SLOT(game, st_off), o);
                h = (Held *)o;
            }
            rc = take(game, d, h);
        }
        Py_DECREF(d);
        if (rc <= 0)
            return NULL;
    }
    if (h->legal != NULL)
        return PyList_CheckExact(h->legal) ? PyList_GetSlice(h->legal, 0, PY_SSIZE_T_MAX)
                                           : Py_NewRef(h->legal);
    int seat = h->to_act;
    /* the pending cards' counts: all zero (shared, read only) unless a throw or a follow is
       being picked, which is rare (an array zeroed each listing costs more than the rest) */
    static const int none[NCARD];
    int pcnt[NCARD];
    const int *pend = none;
    if (h->np > 0) {
        memset(pcnt, 0, sizeof pcnt);
        for (int i = 0; i < h->np; i++)
            pcnt[h->pend[i]]++;
        pend = pcnt;
    }
    PyObject *tok = new_token();
    if (tok == NULL)
        return NULL;
    PyObject *out;
    if (h->calling) {          /* each card that is not a trump, its copies' ordinals 1..decks
                                  (listing.call_items' order) */
        Sink *sink;
        out = sj_moves_new(tok, &sink);
        for (int c = 0; out != NULL && c < BJ; c++)
            for (int o = 1; out != NULL && o <= h->decks && h->ctx.eff[c] != TRUMP; o++) {
                unsigned char item[2] = {(unsigned char)c, (unsigned char)o};
                if (sj_sink_push(sink, K_CALL, item, 2) < 0)
                    Py_CLEAR(out);
                else
                    sink->len[sink->n - 1] = 1;
            }
    } else if (h->bury) {              /* a card of the hand to bury, each once, in key order */
        Sink *sink;
        out = sj_moves_new(tok, &sink);
        for (int i = 0; out != NULL && i < NCARD; i++)
            if (h->hcnt[seat][h->ctx.by_key[i]] &&
                sj_sink_push(sink, K_BURY, &h->ctx.by_key[i], 1) < 0)
                Py_CLEAR(out);
    } else if (h->nplays == h->trick_start) {
        out = sj_list_play(&h->ctx, h->hcnt[seat], pend, h->pend, h->np, NULL, 0, -1, h->decks,
                           tok);
    } else {
        PlayRec *p = &h->plays[h->trick_start];
        int lead[NCARD] = {0};
        for (int i = 0; i < p->n; i++)
            lead[h->pool[p->off + i]]++;
        out = sj_list_play(&h->ctx, h->hcnt[seat], pend, h->pend, h->np, lead, p->n,
                           h->pool[p->off], 0, tok);
    }
    if (out == Py_None) {                              /* the dict's path lists */
        Py_DECREF(out);
        Py_DECREF(tok);
        return sj_held_flush(game) < 0 ? NULL : NULL;
    }
    if (out == NULL) {
        Py_DECREF(tok);
        return NULL;
    }
    h->legal = Py_NewRef(out);
    h->token = tok;
    return out;
}

