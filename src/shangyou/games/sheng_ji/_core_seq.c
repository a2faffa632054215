/* The legal moves of a state as a lazy sequence: ``Moves``.

   ShengJiGame.legal_moves answers with a sequence of Move objects. When the core lists a
   state (moves(game, token), _core_moves.c) the moves stay in C, each a kind and its cards,
   and an item's Move is made when it is first asked for (indexing, iterating), once: the
   same item gives the same Move again. ``len`` and ``random.choice`` make one Move however
   many moves there are. The items, their order and their contents are those of the list
   the Python code makes (ShengJiGame._list_moves); the sequence cannot be changed. It
   compares equal to a list of the same moves, concatenates with a list (a list), slices to
   lists, pickles and copies as a list, and is registered as a collections.abc.Sequence
   (core.py). Those list-like methods are the climbing core's too (../_lazy_seq.h, defined
   here under the names sj_seq_*). */

#include "_core.h"
#define LAZY_SEQ_DEFINE
#include "../_lazy_seq.h"

#define SMALL 96                /* most listings (a lead's units and throws too): in the */
#define SMALL_POOL 640          /* object itself, no other allocation */

typedef struct {
    LazySeq seq;
    Sink sink;
    PyObject *token;
    PyObject **items;           /* the Move of each item, NULL until made (or no array yet) */
    Py_ssize_t made;            /* the items from ``made`` on are not made (none to free) */
    PyObject *one;              /* before the array: the one item made (random.choice's), */
    Py_ssize_t one_i;           /* item one_i (an array is made for a second) */
    unsigned char small_kind[SMALL];
    int small_len[SMALL];
    Py_ssize_t small_off[SMALL];
    unsigned char small_pool[SMALL_POOL];
    PyObject *small_items[SMALL];
} Moves;

static Py_ssize_t moves_len(LazySeq *s);
static PyObject *moves_item_of(LazySeq *s, Py_ssize_t i);

/* the memory of the last Moves freed, kept for the next (a game lists one state at a time:
   this saves a large allocation and its release a move); the GIL guards it */
static Moves *spare;

/* a new, empty Moves of the listing ``token``; *sink: its sink, which the caller fills */
PyObject *
sj_moves_new(PyObject *token, Sink **sink)
{
    Moves *p = spare;
    if (p != NULL) {
        spare = NULL;
        (void)PyObject_Init((PyObject *)p, &sj_moves_type);
    } else if ((p = PyObject_New(Moves, &sj_moves_type)) == NULL) {
        return NULL;
    }
    p->seq.len = moves_len;
    p->seq.item = moves_item_of;
    memset(&p->sink, 0, sizeof p->sink);
    p->sink.fixed = 1;
    p->sink.kind = p->small_kind;
    p->sink.len = p->small_len;
    p->sink.off = p->small_off;
    p->sink.pool = p->small_pool;
    p->sink.cap = SMALL;
    p->sink.pool_cap = SMALL_POOL;
    p->token = token;
    Py_INCREF(token);
    p->items = NULL;
    p->made = 0;
    p->one = NULL;
    p->one_i = -1;
    *sink = &p->sink;
    return (PyObject *)p;
}

static void
moves_dealloc(Moves *p)
{
    lazy_seq_items_free(p->items, p->small_items, p->made);
    Py_XDECREF(p->one);
    sj_sink_free(&p->sink);
    Py_XDECREF(p->token);
    if (spare == NULL && Py_IS_TYPE(p, &sj_moves_type))
        spare = p;
    else
        PyObject_Free(p);
}

static Py_ssize_t
moves_len(LazySeq *s)
{
    return ((Moves *)s)->sink.n;
}

/* the tuple of one card, (CARDS[c],): made once and shared by the Moves of one card (most
   of them: a single, a throw's or a follow's card, a card buried); a tuple cannot change.
   Checked against CARDS (bound again, the table is made again); the GIL guards it */
static PyObject *one_card[NCARD];

static PyObject *
cards_of(const unsigned char *cards, int n)
{
    if (n != 1)
        return sj_cards_tuple(cards, n);
    PyObject *t = one_card[cards[0]];
    if (t == NULL || PyTuple_GET_ITEM(t, 0) != PyTuple_GET_ITEM(sj_cards, cards[0])) {
        PyObject *fresh = sj_cards_tuple(cards, 1);
        if (fresh == NULL)
            return NULL;
        Py_XSETREF(one_card[cards[0]], fresh);
        t = fresh;
    }
    return Py_NewRef(t);
}

/* the Move objects made here come from a pool (sj_pool_take): a Move the pool alone holds
   (its listing and the game's log let it go: in random play, at the end of the game that
   made it) is given its next item's slots instead of a new Move being allocated and an old
   one freed, a GC-tracked object each, twice a decision. No other reference to it is left
   (a Move has no weak references), so no one sees it change; the old slots' values (a kind,
   a cards tuple, a text, a token) run no Python code when freed */
#define POOL 512
static PyObject *pool[POOL];
static int pool_n, pool_at;

/* Move(kind, cards, None, text, None, token) for item j (a new reference) */
static PyObject *
make_move(Moves *p, Py_ssize_t j)
{
    int kind = p->sink.kind[j];
    PyObject *cards = cards_of(p->sink.pool + p->sink.off[j], p->sink.len[j]);
    if (cards == NULL)
        return NULL;
    /* a call's text, "call ORDINAL CARD" (listing.call_items; the ordinal follows the card) */
    PyObject *text = kind != K_CALL ? NULL :
        PyUnicode_FromFormat("%U %d %U", sj_kind[K_CALL],
                             (int)p->sink.pool[p->sink.off[j] + 1],
                             PyList_GET_ITEM(sj_card_text, p->sink.pool[p->sink.off[j]]));
    if (kind == K_CALL && text == NULL) {
        Py_DECREF(cards);
        return NULL;
    }
    PyObject *o = sj_pool_take(pool, pool_n, &pool_at, sj_move_type);
    int fresh = o == NULL;
    if (fresh && (o = sj_move_type->tp_alloc(sj_move_type, 0)) == NULL) {
        Py_DECREF(cards);
        Py_XDECREF(text);
        return NULL;
    }
    PyObject *v[6] = {sj_kind[kind], cards, Py_None,
                      text != NULL ? text : kind == K_COMMIT ? sj_commit_text :
                      kind == K_PASS ? sj_kind[K_PASS] : Py_None,
                      Py_None, p->token};
    PyObject *old[6];
    for (int i = 0; i < 6; i++) {
        if (i != M_CARDS && v[i] != text)
            Py_INCREF(v[i]);
        old[i] = SLOT(o, sj_move_off[i]);
        SLOT(o, sj_move_off[i]) = v[i];
    }
    for (int i = 0; i < 6; i++)             /* (a pooled Move's values, once all are set) */
        Py_XDECREF(old[i]);
    if (fresh)
        sj_pool_add(pool, &pool_n, POOL, o);
    return o;
}

/* the card codes of ``move`` (of kind ``kind``, its cards tuple ``mcards``) copied into
   ``out`` where it is the item of the listing ``legal`` made first (random.choice's) and
   its cards are still that item's, the table's card objects: their number; -1 otherwise
   (the caller reads the tuple). Saves reading the cards back from their objects */
int
sj_moves_codes(PyObject *legal, PyObject *move, int kind, PyObject *mcards,
               unsigned char *out)
{
    if (!Py_IS_TYPE(legal, &sj_moves_type))
        return -1;
    Moves *p = (Moves *)legal;
    Py_ssize_t j = p->one_i;
    if (p->one != move || j < 0 || j >= p->sink.n || p->sink.kind[j] != kind)
        return -1;
    int n = p->sink.len[j];
    const unsigned char *c = p->sink.pool + p->sink.off[j];
    if (PyTuple_GET_SIZE(mcards) != n)
        return -1;
    for (int i = 0; i < n; i++) {
        if (PyTuple_GET_ITEM(mcards, i) != PyTuple_GET_ITEM(sj_cards, c[i]))
            return -1;
        out[i] = c[i];
    }
    return n;
}

/* item i, 0 <= i < len (a new reference) */
static PyObject *
moves_item_of(LazySeq *s, Py_ssize_t i)
{
    Moves *p = (Moves *)s;
    if (p->items == NULL) {          /* the first item asked for needs no array */
        if (p->one == NULL) {
            if ((p->one = make_move(p, i)) == NULL)
                return NULL;
            p->one_i = i;
        }
        if (p->one_i == i)
            return Py_NewRef(p->one);
        if (lazy_seq_items(&p->items, p->small_items, SMALL, p->sink.n) == NULL)
            return NULL;
        p->items[p->one_i] = p->one;     /* (the array takes it over) */
        p->one = NULL;
        if (p->one_i >= p->made)
            p->made = p->one_i + 1;
    }
    PyObject *m = p->items[i];
    if (m == NULL) {
        m = make_move(p, i);
        if (m == NULL)
            return NULL;
        p->items[i] = m;
        if (i >= p->made)
            p->made = i + 1;
    }
    Py_INCREF(m);
    return m;
}

static PyMethodDef moves_methods[] = {
    LAZY_SEQ_METHODS,
    {NULL, NULL, 0, NULL}
};

PyTypeObject sj_moves_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "shangyou.games.sheng_ji._core.Moves",
    .tp_doc = "The legal moves of one state, made into Move objects when asked for.",
    .tp_basicsize = sizeof(Moves),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)moves_dealloc,
    LAZY_SEQ_TYPE_SLOTS,
    .tp_methods = moves_methods,
};
