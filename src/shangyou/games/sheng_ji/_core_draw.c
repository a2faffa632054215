/* The deal's draws in C (ShengJiGame._advance_deal's draws, _draw, _bids_for's question
   "has this seat a bid?"): ``draw`` in the module, ``sj_has_bid`` for the deal's last round
   (_core_ends.c) too. */

#include "_core.h"
#include "_core_ends.h"
#include "../_slots.h"

/* ------------------------------------------------------------------------ the deal */
/* does ``seat`` (its level cards and jokers counted in cnt) have a legal bid
   (ShengJiGame._bids_for non-empty)? cur_card < 0: no bid yet. The bids are (card, count):
   a level card 1 or more times, a joker 2 or more times; stronger is more cards, then at
   equal counts a joker over a level card and the red joker over the black; the winning
   bidder may only add copies of its card. So: the most copies of one level card, and of
   each joker, against the bid. */
int
sj_has_bid(const int *cnt, int level, int seat, int cur_seat, int cur_card, int cur_count)
{
    const int l4 = level * 4;
    int lv = cnt[l4];
    for (int s = 1; s < 4; s++)
        if (cnt[l4 + s] > lv)
            lv = cnt[l4 + s];
    int bj = cnt[BJ], rj = cnt[RJ];
    if (cur_card < 0)
        return lv >= 1 || bj >= 2 || rj >= 2;
    if (cur_seat == seat) {
        int plain = cur_card >= l4 && cur_card < l4 + 4;
        if (!plain && cur_card != BJ && cur_card != RJ)
            return 0;
        int k = cnt[cur_card];
        return k >= (plain ? 1 : 2) && k > cur_count;
    }
    int cur_tier = cur_card == RJ ? 2 : cur_card == BJ ? 1 : 0;
    if (lv >= 1 && lv > cur_count)
        return 1;
    if (bj >= 2 && (bj > cur_count || (cur_tier < 1 && cur_count >= 2 && cur_count <= bj)))
        return 1;
    return rj >= 2 && (rj > cur_count || (cur_tier < 2 && cur_count >= 2 && cur_count <= rj));
}

/* an int value (an int, or a cards.Card), or *ok cleared (missing, or not an int) */
static long
slot_long(PyObject *v, int *ok)
{
    if (v == NULL || !PyLong_Check(v) ||
        Py_TYPE(v)->tp_richcompare != PyLong_Type.tp_richcompare) {
        *ok = 0;
        return 0;
    }
    long x = PyLong_AsLong(v);
    if (x == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        *ok = 0;
    }
    return x;
}

long
sj_dict_long(PyObject *d, PyObject *key, int *ok)
{
    return slot_long(PyDict_GetItemWithError(d, key), ok);
}

/* the attribute ``key`` of the game (a slot: ShengJiGame.__slots__) as sj_dict_long reads one */
static long
attr_long(PyObject *game, PyObject *key, int *ok)
{
    PyObject *v = PyObject_GetAttr(game, key);
    long x = 0;
    if (v == NULL || !PyLong_Check(v) ||
        Py_TYPE(v)->tp_richcompare != PyLong_Type.tp_richcompare) {
        PyErr_Clear();
        *ok = 0;
    } else {
        x = PyLong_AsLong(v);
        if (x == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            *ok = 0;
        }
    }
    Py_XDECREF(v);
    return x;
}

/* the game's slots the draws read and write (ShengJiGame.__slots__), at their offsets in
   the game's class, found once per class: no Python code runs between the check of the
   class and the copy of the offsets (so no thread sees them half made) */
static const char *const DRAW_SLOTS[4] = {"level_rank", "next_draw", "bid", "_drawn_by"};
static PyTypeObject *draw_cls;          /* (a reference kept: never freed, never reused) */
static Py_ssize_t draw_off[4];

static int
draw_slots(PyObject *game, Py_ssize_t *off)
{
    PyTypeObject *tp = Py_TYPE(game);
    if (tp != draw_cls) {
        Py_ssize_t o[4];
        if (slot_offsets((PyObject *)tp, DRAW_SLOTS, 4, 0, 0, o) < 0) {
            PyErr_Clear();
            return 0;                       /* not slots here: read as attributes */
        }
        Py_INCREF(tp);
        draw_cls = tp;
        memcpy(draw_off, o, sizeof o);
    }
    memcpy(off, draw_off, sizeof draw_off);
    return 1;
}


/* sj_card_of with its common case (an exact int or a cards.Card of one digit) inline */
static inline int
card_at(PyObject *x)
{
#if PY_VERSION_HEX < 0x030C0000
    if ((Py_TYPE(x) == sj_card_type || PyLong_CheckExact(x)) && Py_SIZE(x) == 1) {
        digit v = ((PyLongObject *)x)->ob_digit[0];
        return v < NCARD ? (int)v : -1;
    }
#endif
    return sj_card_of(x);
}

/* has ``hand`` (a list) a bid to make (sj_has_bid on its level cards and jokers)? 1 or 0;
   -1 where a card cannot be read (nothing raised) */
int
sj_hand_has_bid(PyObject *hand, int level, int seat, int cur_seat, int cur_card, int cur_count)
{
    int cnt[NCARD];
    memset(cnt, 0, sizeof cnt);
    Py_ssize_t m = PyList_GET_SIZE(hand);
    PyObject **items = ((PyListObject *)hand)->ob_item;
    for (Py_ssize_t i = 0; i < m; i++) {
        int c = card_at(items[i]);
        if (c < 0) {
            PyErr_Clear();
            return -1;
        }
        if (c >= BJ || (c >> 2) == level)
            cnt[c]++;
    }
    return sj_has_bid(cnt, level, seat, cur_seat, cur_card, cur_count);
}

/* list.append(card) for the deal's draws: a hand's list grown once to hold ``room`` more
   (the cards its seat still draws) rather than step by step as list.append grows it */
static int
draw_append(PyObject *list, PyObject *card, Py_ssize_t room)
{
#if !defined(Py_GIL_DISABLED) && PY_VERSION_HEX < 0x030F0000
    PyListObject *l = (PyListObject *)list;
    Py_ssize_t n = Py_SIZE(l);
    if (n >= l->allocated && room > 0 && room < (1 << 20)) {
        PyObject **items = PyMem_Realloc(l->ob_item, (size_t)(n + room) * sizeof(PyObject *));
        if (items != NULL) {
            l->ob_item = items;
            l->allocated = n + room;
        }
    }
    if (n < l->allocated) {
        l->ob_item[n] = Py_NewRef(card);
        Py_SET_SIZE(l, n + 1);
        return 0;
    }
#endif
    return PyList_Append(list, card);
}

/* draw(game): the draws of ShengJiGame._advance_deal while the stock lasts: each card to
   the next seat (_draw), stopping at a seat that has a bid to make (then ``to_act``); True
   when it stopped there, False when the stock ran out (or the state could not be read:
   nothing drawn then), the Python code going on from there. */
PyObject *
sj_draw(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 1) {
        PyErr_SetString(PyExc_TypeError, "draw(game)");
        return NULL;
    }
    if (sj_names() < 0)
        return NULL;
    PyObject *game = args[0];
    PyObject *d = PyObject_GenericGetDict(game, NULL);
    if (d == NULL) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    if (PyDict_CheckExact(d) && sj_unpacked(game, d) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    PyObject *res = NULL;
    int ok = PyDict_CheckExact(d);
    long n = ok ? sj_dict_long(d, S_n, &ok) : 0;
    /* next_draw, level_rank and bid are slots (ShengJiGame.__slots__), read at their
       offsets where the class has them so; the stock, in the dict once unpacked */
    Py_ssize_t off[4] = {0, 0, 0, 0};
    int slots = ok && draw_slots(game, off);
    long level, next;
    PyObject *bid, *stock;
    if (slots) {
        level = slot_long(SLOT(game, off[0]), &ok);
        next = slot_long(SLOT(game, off[1]), &ok);
        bid = Py_XNewRef(SLOT(game, off[2]));
    } else {
        level = ok ? attr_long(game, S_level_rank, &ok) : 0;
        next = ok ? attr_long(game, S_next_draw, &ok) : 0;
        bid = ok ? PyObject_GetAttr(game, S_bid) : NULL;
    }
    PyObject *hands = ok ? PyDict_GetItemWithError(d, S_hands) : NULL;
    stock = ok && bid != NULL ? PyDict_GetItemWithError(d, S_stock) : NULL;
    if (stock != NULL)
        Py_INCREF(stock);
    else if (ok && bid != NULL)
        stock = PyObject_GetAttr(game, S_stock);
    ok = ok && n >= 1 && n <= MAXSEATS && level >= 0 && level <= 12 && next >= 0 &&
         next < n && hands != NULL && PyList_CheckExact(hands) &&
         PyList_GET_SIZE(hands) == n && stock != NULL && PyList_CheckExact(stock) &&
         bid != NULL;
    for (long s = 0; ok && s < n; s++)
        ok = PyList_CheckExact(PyList_GET_ITEM(hands, s));
    int cur_seat = -1, cur_card = -1, cur_count = 0;
    if (ok && bid != Py_None) {
        ok = PyDict_CheckExact(bid);
        if (ok) {
            cur_seat = (int)sj_dict_long(bid, S_seat, &ok);
            cur_card = ok ? (int)sj_dict_long(bid, S_card, &ok) : -1;
            cur_count = ok ? (int)sj_dict_long(bid, S_count, &ok) : 0;
            ok = ok && cur_card >= 0 && cur_card < NCARD;
        }
    }
    /* first the draws worked out without changing anything (each hand counted when its
       seat first draws, each card read when drawn: a card that cannot be read leaves the
       Python code to draw, nothing drawn), then made. Only the level cards and the jokers
       are counted: the bids are made of them (sj_has_bid reads no other count). */
    int cnt[MAXSEATS][NCARD];
    char counted[MAXSEATS] = {0};
    int stopped = 0, failed = 0;
    long seat = next, first = next;
    Py_ssize_t top = ok ? PyList_GET_SIZE(stock) : 0, ndrawn = 0;
    PyObject **sitems = ok ? ((PyListObject *)stock)->ob_item : NULL;
    const int l4 = (int)level * 4;
    while (ok && ndrawn < top) {
        seat = next;
        int *cs = cnt[seat];
        int fresh = !counted[seat];
        if (fresh) {
            cs[l4] = cs[l4 + 1] = cs[l4 + 2] = cs[l4 + 3] = cs[BJ] = cs[RJ] = 0;
            PyObject *hand = PyList_GET_ITEM(hands, seat);
            Py_ssize_t m = PyList_GET_SIZE(hand);
            PyObject **items = ((PyListObject *)hand)->ob_item;
            ok = m < (1 << 20);
            for (Py_ssize_t i = 0; ok && i < m; i++) {
                int c = card_at(items[i]);
                ok = c >= 0;
                if (c >= BJ || (c >> 2) == level)
                    cs[c]++;
            }
            counted[seat] = 1;              /* (its first draw of this call: bids looked for) */
        }
        int c = ok ? card_at(sitems[top - 1 - ndrawn]) : -1;
        ok = ok && c >= 0;
        if (!ok)
            break;
        ndrawn++;
        next = seat + 1 == n ? 0 : seat + 1;
        /* past a seat's first draw of the call it had no bid (the draws went on), and the
           bid does not change while drawing: only a level card or a joker can give one */
        if (c >= BJ || (c >> 2) == level) {
            cs[c]++;
        } else if (!fresh) {
            continue;
        }
        if (sj_has_bid(cs, (int)level, (int)seat, cur_seat, cur_card, cur_count)) {
            stopped = 1;
            break;
        }
    }
    if (!ok) {
        PyErr_Clear();
        Py_XDECREF(stock);
        Py_XDECREF(bid);
        Py_DECREF(d);
        Py_RETURN_FALSE;
    }
    int drawn = ndrawn > 0;
    long to = first;
    for (Py_ssize_t k = 0; k < ndrawn; k++) {
        /* the cards this seat draws from here to the stock's end, this one included */
        Py_ssize_t room = (top - k + n - 1) / n;
        if (draw_append(PyList_GET_ITEM(hands, to), sitems[top - 1 - k], room) < 0) {
            failed = 1;
            ndrawn = k;
            break;
        }
        to = to + 1 == n ? 0 : to + 1;
    }
    if (ndrawn && PyList_SetSlice(stock, top - ndrawn, top, NULL) < 0)
        goto done;
    if (failed)
        goto done;
    if (drawn) {
        PyObject *a = PyLong_FromLong(next), *b = PyLong_FromLong(seat);
        int rc = a == NULL || b == NULL;
        if (!rc && slots) {                 /* (the old values freed last) */
            PyObject *old_a = SLOT(game, off[1]), *old_b = SLOT(game, off[3]);
            SLOT(game, off[1]) = Py_NewRef(a);
            SLOT(game, off[3]) = Py_NewRef(b);
            rc = stopped && sj_set_to_act(game, b) < 0;
            Py_XDECREF(old_a);
            Py_XDECREF(old_b);
        } else if (!rc) {
            rc = PyObject_SetAttr(game, S_next_draw, a) < 0 ||
                 PyObject_SetAttr(game, S_drawn_by, b) < 0 ||
                 (stopped && sj_set_to_act(game, b) < 0);
        }
        Py_XDECREF(a);
        Py_XDECREF(b);
        if (rc)
            goto done;
    }
    res = PyBool_FromLong(stopped);
done:
    Py_DECREF(stock);
    Py_DECREF(bid);
    Py_DECREF(d);
    return res;
}

