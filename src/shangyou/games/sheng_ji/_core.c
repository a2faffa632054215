/* shangyou.games.sheng_ji._core: the compiled core of Sheng ji (docs/core-sheng-ji.md).

   The Python code (game.py, follow.py, tricks.py, order.py) stays the reference; core.py binds
   this module and switches it on and off. This file: the bound classes and objects, the trump
   context (order.Trump), reading cards, the shuffle (random.Random.shuffle) and the legal bids
   (ShengJiGame._bids_for); the deal's draws are in _core_draw.c. */

#include "_core.h"
#include "_core_ends.h"
#include "../_slots.h"
#include "../_shuffle.h"

PyObject *sj_kind[NKINDS];
PyObject *sj_commit_text, *sj_cards, *sj_card_text, *sj_unit_type;
PyTypeObject *sj_card_type;
PyTypeObject *sj_move_type;
Py_ssize_t sj_move_off[6];

static const char *const MOVE_SLOTS[6] = {"kind", "cards", "combo", "_text", "family", "token"};

/* ---------------------------------------------------------------- the trump context */
void
sj_ctx_make(Ctx *t, int level, int suit, int red5)
{
    /* order.Trump.position: red5 1 closes the 5H's place (4H and 6H neighbours; at level 5
       with hearts trump the off-suit 5s and BJ neighbours), 2 leaves it open */
    t->level = level;
    t->suit = suit;
    t->red5 = red5;
    int lv = (level + 1) % 13, closed = red5 == 1;
    int top = suit >= 0 ? 15 : 14;                     /* RJ; BJ one below */
    if (closed && level == 2 && suit == 2)
        top -= 1;
    for (int c = 0; c < NCARD; c++) {
        int r = c >> 2, trump, pos;
        trump = c >= BJ || r == level || (suit >= 0 && (c & 3) == suit) ||
                (red5 && c == RED_FIVE);
        if (red5 && c == RED_FIVE)
            pos = top + 1;
        else if (c == RJ)
            pos = top;
        else if (c == BJ)
            pos = top - 1;
        else if (r == level)
            pos = (suit >= 0 && (c & 3) == suit) ? 13 : 12;
        else {
            int sj = (r + 1) % 13;
            pos = sj > lv ? sj - 1 : sj;
            if (closed && (c & 3) == 2 && level != 2 && sj > 3)
                pos -= 1;
        }
        t->eff[c] = trump ? TRUMP : (c & 3);
        t->pos[c] = pos;
        t->key[c] = (t->eff[c] * 32 + pos) * 64 + c;
    }
    for (int c = 0; c < NCARD; c++) {       /* by_key: an insertion sort (keys are unique) */
        int j = c;
        while (j > 0 && t->key[t->by_key[j - 1]] > t->key[c]) {
            t->by_key[j] = t->by_key[j - 1];
            j--;
        }
        t->by_key[j] = (unsigned char)c;
    }
    for (int s = 0, i = 0; s <= TRUMP + 1; s++) {
        while (i < NCARD && t->eff[t->by_key[i]] < s)
            i++;
        t->run[s] = (unsigned char)i;
    }
}

static int
small_attr(PyObject *o, PyObject *name, int lo, int hi, int none_as, int *out)
{
    PyObject *v = PyObject_GetAttr(o, name);
    if (v == NULL) {
        PyErr_Clear();
        return 0;
    }
    int ok = 1;
    if (v == Py_None && none_as != -2)
        *out = none_as;
    else if (PyBool_Check(v))
        *out = v == Py_True;
    else if (PyLong_CheckExact(v)) {
        long x = PyLong_AsLong(v);
        ok = x >= lo && x <= hi;
        *out = (int)x;
    } else
        ok = 0;
    Py_DECREF(v);
    PyErr_Clear();
    return ok;
}

const Ctx *
sj_ctx_read(PyObject *trump)
{
    static Ctx cache;
    static int cached = 0;
    /* the Trump last read (a frozen dataclass: its fields never change), held so that its
       address cannot be reused: the same object is the same context, without reading its
       three attributes again (about 850 instructions, twice a move) */
    static PyObject *cache_obj = NULL;
    int level, suit, red5;
    if (cached && trump == cache_obj && trump != NULL)
        return &cache;
    if (trump == NULL || trump == Py_None ||
        !small_attr(trump, S_level, 0, 12, -2, &level) ||
        !small_attr(trump, S_suit, 0, 3, -1, &suit) ||
        !small_attr(trump, S_red_five, 0, 2, -2, &red5))
        return NULL;
    if (!cached || cache.level != level || cache.suit != suit || cache.red5 != red5) {
        sj_ctx_make(&cache, level, suit, red5);
        cached = 1;
    }
    Py_INCREF(trump);
    Py_XSETREF(cache_obj, trump);
    return &cache;
}

/* ---------------------------------------------------------------------- cards */
int
sj_card_of(PyObject *x)
{
#if PY_VERSION_HEX < 0x030C0000
    /* CPython 3.11's int layout: a card is an exact int or a cards.Card (an int subclass
       with no slots of its own and int's comparisons, checked at bind) of at most one digit */
    if (PyLong_CheckExact(x) || Py_TYPE(x) == sj_card_type) {
        Py_ssize_t size = Py_SIZE(x);
        if (size == 0)
            return 0;
        if (size != 1)
            return -1;
        digit v = ((PyLongObject *)x)->ob_digit[0];
        return v < NCARD ? (int)v : -1;
    }
#endif
    if (!PyLong_Check(x) || Py_TYPE(x)->tp_richcompare != PyLong_Type.tp_richcompare)
        return -1;
    long v = PyLong_AsLong(x);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return -1;
    }
    return v >= 0 && v < NCARD ? (int)v : -1;
}

/* the cards of a list or tuple: counts added to cnt (when given), the cards written to list
   (when given); their number, or -1 when one is no card or there are more than cap */
int
sj_read_cards(PyObject *seq, int *cnt, unsigned char *list, int cap)
{
    if (!PyList_CheckExact(seq) && !PyTuple_CheckExact(seq))
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > cap)
        return -1;
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        int c = sj_card_of(items[i]);
        if (c < 0)
            return -1;
        if (cnt != NULL)
            cnt[c]++;
        if (list != NULL)
            list[i] = (unsigned char)c;
    }
    return (int)n;
}

PyObject *
sj_cards_tuple(const unsigned char *cards, int n)
{
    PyObject *t = PyTuple_New(n);
    if (t == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *c = PyTuple_GET_ITEM(sj_cards, cards[i]);
        Py_INCREF(c);
        PyTuple_SET_ITEM(t, i, c);
    }
    return t;
}

/* str(Cards(cards)) */
PyObject *
sj_cards_text(const unsigned char *cards, int n)
{
    if (n == 1)
        return Py_NewRef(PyList_GET_ITEM(sj_card_text, cards[0]));
    /* the texts are ASCII (as CARD_TEXT's are): written into one new string */
    Py_ssize_t len = n > 0 ? n - 1 : 0;
    int ascii = 1;
    for (int i = 0; i < n && ascii; i++) {
        PyObject *t = PyList_GET_ITEM(sj_card_text, cards[i]);
        ascii = PyUnicode_IS_ASCII(t);
        len += PyUnicode_GET_LENGTH(t);
    }
    if (ascii) {
        PyObject *out = PyUnicode_New(len, 127);
        if (out == NULL)
            return NULL;
        Py_UCS1 *w = PyUnicode_1BYTE_DATA(out);
        for (int i = 0; i < n; i++) {
            PyObject *t = PyList_GET_ITEM(sj_card_text, cards[i]);
            if (i)
                *w++ = ' ';
            memcpy(w, PyUnicode_1BYTE_DATA(t), (size_t)PyUnicode_GET_LENGTH(t));
            w += PyUnicode_GET_LENGTH(t);
        }
        return out;
    }
    PyObject *l = PyList_New(n);
    if (l == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *s = PyList_GET_ITEM(sj_card_text, cards[i]);
        Py_INCREF(s);
        PyList_SET_ITEM(l, i, s);
    }
    PyObject *out = PyUnicode_Join(S_space, l);
    Py_DECREF(l);
    return out;
}

static void
sort_u8(unsigned char *a, int n, const int *key)
{
    for (int i = 1; i < n; i++) {
        unsigned char x = a[i];
        int j = i - 1;
        while (j >= 0 && key[a[j]] > key[x]) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = x;
    }
}

void
sj_sort_by_key(const Ctx *t, unsigned char *cards, int n)
{
    sort_u8(cards, n, t->key);
}

/* ---------------------------------------------------------------------- the sink */
static void *
copy_of(const void *p, size_t n)
{
    void *q = PyMem_RawMalloc(n ? n : 1);
    if (q != NULL && n)
        memcpy(q, p, n);
    return q;
}

/* a sink on buffers it does not own (fixed): copies of them it owns; 0 or -1 */
static int
own(Sink *s)
{
    if (!s->fixed)
        return 0;
    unsigned char *k = copy_of(s->kind, (size_t)s->cap);
    Py_ssize_t *o = copy_of(s->off, (size_t)s->cap * sizeof *o);
    int *l = copy_of(s->len, (size_t)s->cap * sizeof *l);
    unsigned char *p = copy_of(s->pool, (size_t)s->pool_cap);
    if (k == NULL || o == NULL || l == NULL || p == NULL) {
        PyMem_RawFree(k);
        PyMem_RawFree(o);
        PyMem_RawFree(l);
        PyMem_RawFree(p);
        sj_no_memory();
        return -1;
    }
    s->kind = k;
    s->off = o;
    s->len = l;
    s->pool = p;
    s->fixed = 0;
    return 0;
}

int
sj_sink_add(Sink *s, int kind, const unsigned char *cards, int n)
{
    if (s->n == s->cap) {
        if (own(s) < 0)
            return -1;
        Py_ssize_t cap = s->cap ? s->cap * 2 : 64;
        unsigned char *k = PyMem_RawRealloc(s->kind, (size_t)cap);
        if (k == NULL)
            goto nomem;
        s->kind = k;
        Py_ssize_t *o = PyMem_RawRealloc(s->off, (size_t)cap * sizeof *o);
        if (o == NULL)
            goto nomem;
        s->off = o;
        int *l = PyMem_RawRealloc(s->len, (size_t)cap * sizeof *l);
        if (l == NULL)
            goto nomem;
        s->len = l;
        s->cap = cap;
    }
    if (s->pool_n + n > s->pool_cap) {
        if (own(s) < 0)
            return -1;
        Py_ssize_t cap = s->pool_cap ? s->pool_cap * 2 : 512;
        while (cap < s->pool_n + n)
            cap *= 2;
        unsigned char *p = PyMem_RawRealloc(s->pool, (size_t)cap);
        if (p == NULL)
            goto nomem;
        s->pool = p;
        s->pool_cap = cap;
    }
    s->kind[s->n] = (unsigned char)kind;
    s->off[s->n] = s->pool_n;
    s->len[s->n] = n;
    if (n)
        memcpy(s->pool + s->pool_n, cards, (size_t)n);
    s->pool_n += n;
    s->n++;
    return 0;
nomem:
    sj_no_memory();
    return -1;
}

void
sj_sink_free(Sink *s)
{
    if (!s->fixed) {
        PyMem_RawFree(s->kind);
        PyMem_RawFree(s->off);
        PyMem_RawFree(s->len);
        PyMem_RawFree(s->pool);
    }
    memset(s, 0, sizeof *s);
}

/* ---------------------------------------------------------------------- binding */
/* bind(Move, Unit, CARDS, CARD_TEXT, kinds, commit_text) */
static PyObject *
bind(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t off[6];
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError,
                        "bind(Move, Unit, CARDS, CARD_TEXT, kinds, commit_text)");
        return NULL;
    }
    if (slot_offsets(args[0], MOVE_SLOTS, 6, 1, 1, off) < 0)
        return NULL;
    if (!PyType_Check(args[1]) || !PyTuple_CheckExact(args[2]) ||
        PyTuple_GET_SIZE(args[2]) != NCARD || !PyList_CheckExact(args[3]) ||
        PyList_GET_SIZE(args[3]) != NCARD || !PyTuple_CheckExact(args[4]) ||
        PyTuple_GET_SIZE(args[4]) != NKINDS || !PyUnicode_Check(args[5])) {
        PyErr_SetString(PyExc_TypeError, "bind: bad arguments");
        return NULL;
    }
    for (int c = 0; c < NCARD; c++)
        if (sj_card_of(PyTuple_GET_ITEM(args[2], c)) != c ||
            !PyUnicode_Check(PyList_GET_ITEM(args[3], c))) {
            PyErr_SetString(PyExc_TypeError, "bind: CARDS / CARD_TEXT are not the 54 cards");
            return NULL;
        }
    if (sj_names() < 0)
        return NULL;
    Py_INCREF(args[0]);
    Py_XSETREF(sj_move_type, (PyTypeObject *)args[0]);
    memcpy(sj_move_off, off, sizeof off);
    Py_INCREF(args[1]);
    Py_XSETREF(sj_unit_type, args[1]);
    Py_INCREF(args[2]);
    Py_XSETREF(sj_cards, args[2]);
    {   /* the cards' class, read as an int by sj_card_of where it is one in layout and
           comparisons (cards.Card); none (NULL) otherwise */
        PyTypeObject *ct = Py_TYPE(PyTuple_GET_ITEM(args[2], 0));
        int fits = PyType_IsSubtype(ct, &PyLong_Type) && ct->tp_richcompare ==
                   PyLong_Type.tp_richcompare && ct->tp_basicsize == PyLong_Type.tp_basicsize &&
                   ct->tp_itemsize == PyLong_Type.tp_itemsize;
        for (int c = 0; fits && c < NCARD; c++)
            fits = Py_IS_TYPE(PyTuple_GET_ITEM(args[2], c), ct);
        Py_XDECREF(sj_card_type);
        sj_card_type = fits ? (PyTypeObject *)Py_NewRef(ct) : NULL;
    }
    Py_INCREF(args[3]);
    Py_XSETREF(sj_card_text, args[3]);
    for (int k = 0; k < NKINDS; k++) {
        PyObject *s = PyTuple_GET_ITEM(args[4], k);
        if (!PyUnicode_Check(s)) {
            PyErr_SetString(PyExc_TypeError, "bind: the kinds are strings");
            return NULL;
        }
        Py_INCREF(s);
        Py_XSETREF(sj_kind[k], s);
    }
    Py_INCREF(args[5]);
    Py_XSETREF(sj_commit_text, args[5]);
    Py_RETURN_NONE;
}

/* bids(hand, level_rank, bid, seat): ShengJiGame._bids_for, the legal bids of ``seat`` as
   (card, count) pairs in the same order; None when the hand or the bid cannot be read */
static PyObject *
bids(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "bids(hand, level_rank, bid, seat)");
        return NULL;
    }
    if (sj_names() < 0)
        return NULL;
    int cnt[NCARD] = {0}, ok = 1;
    long level = PyLong_CheckExact(args[1]) ? PyLong_AsLong(args[1]) : -1;
    long seat = PyLong_CheckExact(args[3]) ? PyLong_AsLong(args[3]) : -1;
    int cur_seat = -1, cur_card = -1, cur_count = 0;
    PyObject *bid = args[2];
    if (bid != Py_None) {
        ok = PyDict_CheckExact(bid);
        cur_seat = ok ? (int)sj_dict_long(bid, S_seat, &ok) : -1;
        cur_card = ok ? (int)sj_dict_long(bid, S_card, &ok) : -1;
        cur_count = ok ? (int)sj_dict_long(bid, S_count, &ok) : 0;
    }
    if (!ok || level < 0 || level > 12 || seat < 0 ||
        sj_read_cards(args[0], cnt, NULL, 1 << 20) < 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    int cands[6] = {(int)level * 4, (int)level * 4 + 1, (int)level * 4 + 2,
                    (int)level * 4 + 3, BJ, RJ};
    int cur_tier = cur_card == RJ ? 2 : cur_card == BJ ? 1 : 0;
    for (int i = 0; i < 6; i++) {
        int c = cands[i], tier = c == RJ ? 2 : c == BJ ? 1 : 0;
        for (int k = i < 4 ? 1 : 2; k <= cnt[c]; k++) {
            int legal = bid == Py_None ? 1 :
                        cur_seat == seat ? c == cur_card && k > cur_count :
                        k > cur_count || (k == cur_count && tier > cur_tier);
            if (!legal)
                continue;
            PyObject *t = Py_BuildValue("(ii)", c, k);
            if (t == NULL || PyList_Append(out, t) < 0) {
                Py_XDECREF(t);
                Py_DECREF(out);
                return NULL;
            }
            Py_DECREF(t);
        }
    }
    return out;
}

static PyMethodDef methods[] = {
    {"pack_clone", (PyCFunction)(void (*)(void))sj_pack_clone, METH_FASTCALL,
     "pack_clone(hands, won, stock, seen): the bytes a clone packs, or None."},
    {"card_lists", (PyCFunction)(void (*)(void))sj_card_lists, METH_FASTCALL,
     "card_lists(packed, start, lengths): the lists of cards a clone packed."},
    {"bind", (PyCFunction)(void (*)(void))bind, METH_FASTCALL,
     "bind(Move, Unit, CARDS, CARD_TEXT, kinds, commit_text): the classes and objects used."},
    {"seeded_shuffle", (PyCFunction)(void (*)(void))core_seeded_shuffle, METH_FASTCALL,
     "seeded_shuffle(seed, n, list): random.Random(seed)'s randrange(n), then its shuffle of "
     "the list, in C (../_shuffle.h): (the draw, the generator's state as bytes)."},
    {"shuffle", (PyCFunction)(void (*)(void))core_shuffle, METH_FASTCALL,
     "shuffle(getrandbits, list): random.Random.shuffle of the list (../_shuffle.h)."},
    {"advance_deal", (PyCFunction)(void (*)(void))sj_advance_deal, METH_FASTCALL,
     "advance_deal(game): ShengJiGame._advance_deal but its _end_deal: True when a seat has "
     "a bid to make, False when the deal is over, None: the Python code goes on."},
    {"end_hand", (PyCFunction)(void (*)(void))sj_end_hand, METH_FASTCALL,
     "end_hand(game, last_winner, last_units, winning_play): the hand's end (ends.end_hand); "
     "None: not made, False: the game is over, True: the next hand is to be dealt."},
    {"bids", (PyCFunction)(void (*)(void))bids, METH_FASTCALL,
     "bids(hand, level_rank, bid, seat): the legal bids as (card, count) pairs, or None."},
    {"dealt", (PyCFunction)(void (*)(void))sj_dealt, METH_FASTCALL,
     "dealt(stock, n, first): each seat's cards of the deal, sorted; or None."},
    {"draw", (PyCFunction)(void (*)(void))sj_draw, METH_FASTCALL,
     "draw(game): the deal's draws up to a seat with a bid (True) or the stock's end."},
    {"moves", (PyCFunction)(void (*)(void))sj_list_moves, METH_FASTCALL,
     "moves(game, token): the legal moves of the play or bury phase, a Moves sequence; "
     "None: the Python code lists them."},
    {"apply_listed", (PyCFunction)(void (*)(void))sj_apply_listed, METH_FASTCALL,
     "apply_listed(game, move, seat): ShengJiGame.apply's fast path; False: not made."},
    {"methods", sj_methods, METH_O,
     "methods(cls): ShengJiGame's legal_moves and apply as C methods (_core_methods.c)."},
    {"set_active", sj_set_active, METH_O,
     "set_active(flag): those methods act in C, or call the Python methods."},
    {"flush", (PyCFunction)(void (*)(void))sj_flush, METH_FASTCALL,
     "flush(game, all=True): the attributes of a hand held in C made again (True), or none "
     "held; all=False: the hand's, not the events, the log and the tricks."},
    {"add_event", (PyCFunction)(void (*)(void))sj_add_event, METH_FASTCALL,
     "add_event(game, event): the event recorded after those held in C (True), or none held."},
    {"rollout", (PyCFunction)(void (*)(void))sj_rollout, METH_FASTCALL,
     "rollout(suit_of, pos, is_trump, hands, trick, to_act, declarers, won, calls, seen, "
     "declarer, random): the search's playout (Sim.run) to the hand's end; None: not covered."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "shangyou.games.sheng_ji._core",
    "The compiled core of Sheng ji (docs/core-sheng-ji.md).", -1, methods
};

PyMODINIT_FUNC
PyInit__core(void)
{
    if (PyType_Ready(&sj_moves_type) < 0 || PyType_Ready(&sj_batch_type) < 0 ||
        PyType_Ready(&sj_held_type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&sj_moves_type);
    if (PyModule_AddObject(m, "Moves", (PyObject *)&sj_moves_type) < 0) {
        Py_DECREF(&sj_moves_type);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&sj_batch_type);
    if (PyModule_AddObject(m, "Batch", (PyObject *)&sj_batch_type) < 0) {
        Py_DECREF(&sj_batch_type);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
