/* ClimbingGame.apply's fast path, in C: apply_listed(game, move, seat) -> bool.

   It makes a move the game has just listed (the token of its legal moves) or a pass when
   there is a play to beat, in the play phase, as ClimbingGame.apply / _do_play / _end_trick /
   _next_with_cards (games/climbing/game.py) do, on the same attributes of the game: the
   hand loses the play's cards, the trick, the last play, the passes and the seat to act move
   on, a trick that every other player passed goes to its winner (``tricks``, ``won``), and
   the move is logged (``_log``, the game's own part of ``moves``) and the listing forgotten
   (``_legal``, ``_token``). A hand or a seat's cards won that a clone shares (the clone
   copies only the outer lists) is replaced by a changed copy, never changed in place:
   own_list.

   A play that empties the hand is made here too while the hand goes on (the finishing
   order, and the counts of the hands at the first player out in the record ``_rare``).
   It answers False, having changed nothing, for everything else, which the Python code then
   does: a move that is not one of those, another phase, a player out that ends the hand (its
   scoring), the end of a trick with nobody left to lead, a trick that the rules finish early
   (``finish_trick``), a state it cannot read. The
   Python code stays the reference (the move that ends a choice made in steps, steps.py, is
   made here too: ``_grouping``, ``choice`` and ``picked`` are cleared first, as _do_play
   does): tests/test_core_differential.py plays games with and
   without the core and compares every state. */

#include "_core.h"
#include "../_slots.h"           /* the slots' offsets */
#include "../_dict_helpers.h"     /* GET: an attribute of the game from its dict (borrowed) */

static PyObject *S_token, *S_legal, *S_finish_trick, *S_play, *S_empty, *S_family,
    *S_core_spec;

/* The game's attributes a move reads and changes are slots of ClimbingGame (game.py,
   ``__slots__``), read and written here at their offsets, bound once by core_bind_game when
   core.install_methods makes the class's C methods; ``_legal`` and ``_token`` stay in the
   instance dict (games/_methods.h reads them there). A slot not set reads as NULL: the
   state cannot be read, and the Python code acts (``_grouping``, ``choice`` and ``picked``:
   NULL reads as unset, as None). The offsets never change once bound (no state in use
   across a call back into Python). */
enum { G_RULES, G_N, G_TO_ACT, G_PHASE, G_LAST, G_LAST_SEAT, G_PASSES, G_HANDS, G_TRICK,
       G_TRICKS, G_WON, G_ORDER, G_LOG, G_GROUPING, G_CHOICE, G_PICKED, G_FAMILY, G_FINISH,
       G_COUNT };
static const char *const GAME_SLOTS[G_COUNT] = {
    "rules", "n", "to_act", "phase", "last", "last_seat", "passes", "hands", "trick",
    "tricks", "won", "order", "_log", "_grouping", "choice", "picked",
    "_family", "_finish_trick"};     /* the last two: rules.family, rules.finish_trick */
static PyTypeObject *game_type;          /* ClimbingGame, once bound */
static Py_ssize_t game_off[G_COUNT];
/* the game's record of rare attributes (``_rare``, rare.py, in the dict): its length and the
   index of ``counts_at_first_out``, from the class's ``_core_rare`` (bound with the slots) */
static Py_ssize_t rare_len = -1, rare_first_out = -1;
static PyObject *S_rare;

#define G(game, i) SLOT(game, game_off[i])  /* borrowed; NULL where not set */

/* game.<slot i> = v (a new reference taken) */
static inline void
gset(PyObject *game, int i, PyObject *v)
{
    PyObject *old = G(game, i);
    G(game, i) = Py_NewRef(v);
    Py_XDECREF(old);
}

/* game.<slot i> = the int v; 0, or -1 with an exception */
static inline int
gset_long(PyObject *game, int i, long v)
{
    PyObject *o = PyLong_FromLong(v);
    if (o == NULL)
        return -1;
    PyObject *old = G(game, i);
    G(game, i) = o;
    Py_XDECREF(old);
    return 0;
}

/* the slot when it is a plain int in [0, below); -1 otherwise */
static inline long
gsmall(PyObject *game, int i, long below)
{
    PyObject *v = G(game, i);
    if (v == NULL || !PyLong_CheckExact(v))
        return -1;
    long x = core_digit_int(v);
    if (x < 0)
        x = PyLong_AsLong(v);
    if (x < 0 || x >= below) {
        PyErr_Clear();
        return -1;
    }
    return x;
}

/* bind_game(cls): the offsets of ClimbingGame's slots; 0, or -1 with an exception */
int
core_bind_game(PyObject *cls)
{
    Py_ssize_t off[G_COUNT];
    if (slot_offsets(cls, GAME_SLOTS, G_COUNT, 0, 0, off) < 0)    /* (some in its base) */
        return -1;
    PyObject *shape = PyObject_GetAttrString(cls, "_core_rare");
    if (shape == NULL)
        return -1;
    Py_ssize_t len = -1, first = -1;
    if (PyTuple_CheckExact(shape) && PyTuple_GET_SIZE(shape) == 2) {
        len = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, 0));
        first = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, 1));
    }
    Py_DECREF(shape);
    if (len <= 0 || first < 0 || first >= len) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "_core_rare: (record length, index)");
        return -1;
    }
    if (S_rare == NULL && (S_rare = PyUnicode_InternFromString("_rare")) == NULL)
        return -1;
    rare_len = len;
    rare_first_out = first;
    memcpy(game_off, off, sizeof off);
    Py_INCREF(cls);
    Py_XSETREF(game_type, (PyTypeObject *)cls);
    return 0;
}

/* is ``game`` a bound ClimbingGame (so its slots may be read at their offsets)? */
static inline int
is_game(PyObject *game)
{
    return game_type != NULL && PyObject_TypeCheck(game, game_type);
}

static int
intern_names(void)
{
    if (S_empty != NULL)
        return 0;
#define NAME(var, text) if ((var = PyUnicode_InternFromString(text)) == NULL) return -1
    NAME(S_token, "_token");
    NAME(S_legal, "_legal");
    NAME(S_finish_trick, "finish_trick");
    NAME(S_play, "play");                 /* PHASE_PLAY */
    NAME(S_family, "family");
    NAME(S_core_spec, "_core_spec");      /* CompiledFamily's spec of family_moves */
    if ((S_empty = PyTuple_New(0)) == NULL)
        return -1;
#undef NAME
    return 0;
}

/* ClimbingGame._next_with_cards */
static long
next_with_cards(PyObject *hands, long n, long seat, int include_self)
{
    long s = include_self ? seat : (seat + 1) % n;
    for (long k = 0; k < n; k++) {
        if (PyList_GET_SIZE(PyList_GET_ITEM(hands, s)))
            return s;
        s = (s + 1) % n;
    }
    return seat;
}

/* lists[i] as a list this game alone holds, to change in place: the list itself where its
   only reference is ``lists``'s, else (a clone shares it: ClimbingGame.clone copies only the
   outer lists of ``hands`` and ``won``) a copy put in its place.
   Borrowed; NULL with an exception. */
static PyObject *
own_list(PyObject *lists, Py_ssize_t i)
{
    PyObject *x = PyList_GET_ITEM(lists, i);
    if (Py_REFCNT(x) == 1)
        return x;
    PyObject *copy = PyList_GetSlice(x, 0, PyList_GET_SIZE(x));
    if (copy == NULL)
        return NULL;
    PyList_SetItem(lists, i, copy);                       /* steals ``copy`` */
    return copy;
}

/* an int, or an int subclass that compares as one (cards.Card): what list.remove compares */
static int
plain_int(PyObject *x)
{
    return PyLong_Check(x) && Py_TYPE(x)->tp_richcompare == PyLong_Type.tp_richcompare;
}


/* ``seat`` has gone out (its hand is empty now): order = order + [seat]; where the record's
   counts at the first player out are None, the counts of the hands now. 0, or -1 */
static int
go_out(PyObject *g, PyObject *d, PyObject *hands, long seat)
{
    PyObject *order = G(g, G_ORDER);
    Py_ssize_t done = PyList_GET_SIZE(order);
    PyObject *longer = PyList_New(done + 1), *s = PyLong_FromLong(seat);
    if (longer == NULL || s == NULL) {
        Py_XDECREF(longer);
        Py_XDECREF(s);
        return -1;
    }
    for (Py_ssize_t i = 0; i < done; i++)
        PyList_SET_ITEM(longer, i, Py_NewRef(PyList_GET_ITEM(order, i)));
    PyList_SET_ITEM(longer, done, s);
    G(g, G_ORDER) = longer;
    Py_DECREF(order);
    PyObject *rare = GET(d, S_rare);          /* checked by apply_listed */
    if (PyTuple_GET_ITEM(rare, rare_first_out) != Py_None)
        return 0;
    Py_ssize_t n = PyList_GET_SIZE(hands);
    PyObject *counts = PyList_New(n);
    if (counts == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *c = PyLong_FromSsize_t(PyList_GET_SIZE(PyList_GET_ITEM(hands, i)));
        if (c == NULL) {
            Py_DECREF(counts);
            return -1;
        }
        PyList_SET_ITEM(counts, i, c);
    }
    PyObject *record = PyTuple_New(rare_len);
    if (record == NULL) {
        Py_DECREF(counts);
        return -1;
    }
    for (Py_ssize_t i = 0; i < rare_len; i++)
        PyTuple_SET_ITEM(record, i, i == rare_first_out ? counts
                                                        : Py_NewRef(PyTuple_GET_ITEM(rare, i)));
    int rc = PyDict_SetItem(d, S_rare, record);
    Py_DECREF(record);
    return rc;
}

/* do the move (known to be one apply_listed makes; for a play, ``taken`` marks the
   positions of its cards in the hand); 0, or -1 with an exception */
static int
make(PyObject *g, PyObject *d, PyObject *move, int is_pass, long seat, PyObject *hands,
     PyObject *trick, long end_trick_for, long next, const unsigned char *taken, int out)
{
    if (is_pass) {
        if (append_pair(trick, seat, Py_None) < 0)
            return -1;
        if (end_trick_for < 0) {
            long passes = gsmall(g, G_PASSES, 1L << 30);
            if (gset_long(g, G_PASSES, passes + 1) < 0)
                return -1;
        } else {                                   /* _end_trick */
            PyObject *tricks = G(g, G_TRICKS);
            PyObject *won_all = G(g, G_WON);
            if (PyList_Append(tricks, trick) < 0)
                return -1;
            /* won[winner] += the cards of the trick's plays: in place where no other game
               holds the list (see own_list), else in a new list */
            PyObject *mine = own_list(won_all, end_trick_for);
            if (mine == NULL)
                return -1;
            for (Py_ssize_t i = 0; i < PyList_GET_SIZE(trick); i++) {
                PyObject *combo = PyTuple_GET_ITEM(PyList_GET_ITEM(trick, i), 1);
                if (combo == Py_None)
                    continue;
                Py_ssize_t end = PyList_GET_SIZE(mine);
                if (PyList_SetSlice(mine, end, end, SLOT(combo, core_combo_off[COMBO_CARDS])) < 0)
                    return -1;
            }
            PyObject *fresh = PyList_New(0);
            if (fresh == NULL || gset_long(g, G_PASSES, 0) < 0) {
                Py_XDECREF(fresh);
                return -1;
            }
            PyObject *old = G(g, G_TRICK);     /* ``tricks`` holds it too */
            G(g, G_TRICK) = fresh;
            Py_DECREF(old);
            gset(g, G_LAST, Py_None);
            gset(g, G_LAST_SEAT, Py_None);
        }
    } else {
        PyObject *combo = SLOT(move, core_move_off[MOVE_COMBO]);
        if (out) {
            /* the player goes out (_do_play): an empty hand (a new list), the seat at the end
               of the finishing order (a new list: clones share the old one), and the counts
               of the hands at the first player out kept in the record ``_rare`` */
            PyObject *empty = PyList_New(0);
            if (empty == NULL)
                return -1;
            PyList_SetItem(hands, seat, empty);               /* steals ``empty`` */
            if (go_out(g, d, hands, seat) < 0)
                return -1;
        } else {
            /* hand.remove(c) for each card (the first occurrences not taken by an earlier
               card), in place where no other game holds the hand (see own_list) */
            PyObject *hand = own_list(hands, seat);
            if (hand == NULL)
                return -1;
            for (Py_ssize_t i = PyList_GET_SIZE(hand) - 1; i >= 0; i--)
                if (taken[i] && PyList_SetSlice(hand, i, i + 1, NULL) < 0)
                    return -1;
        }
        if (append_pair(trick, seat, combo) < 0 || gset_long(g, G_LAST_SEAT, seat) < 0 ||
            gset_long(g, G_PASSES, 0) < 0)
            return -1;
        gset(g, G_LAST, combo);
    }
    if (gset_long(g, G_TO_ACT, next) < 0)
        return -1;
    if (append_pair(G(g, G_LOG), seat, move) < 0 || PyDict_SetItem(d, S_legal, Py_None) < 0 ||
        PyDict_SetItem(d, S_token, Py_None) < 0)
        return -1;
    return 0;
}

/* the checks: 1 when the core makes the move (then made), 0 when it leaves it to Python */
static int
apply_listed(PyObject *g, PyObject *d, PyObject *move, PyObject *seat_arg)
{
    long n = gsmall(g, G_N, MAX_SEATS * 1000);
    long seat = n > 0 ? gsmall(g, G_TO_ACT, n) : -1;
    if (seat < 0)
        return 0;
    if (seat_arg != Py_None && !(PyLong_CheckExact(seat_arg) &&
                                 PyLong_AsLong(seat_arg) == seat))
        return PyErr_Occurred() ? (PyErr_Clear(), 0) : 0;
    PyObject *phase = G(g, G_PHASE);
    if (phase == NULL || !PyUnicode_CheckExact(phase) ||
        (phase != S_play && PyUnicode_Compare(phase, S_play) != 0))
        return 0;
    PyObject *grouping = G(g, G_GROUPING);
    int ending = grouping != NULL && grouping != Py_None;    /* ends a choice in steps */
    PyObject *last = G(g, G_LAST);
    PyObject *hands = G(g, G_HANDS);
    PyObject *trick = G(g, G_TRICK);
    PyObject *order = G(g, G_ORDER);
    PyObject *log = G(g, G_LOG);
    if (last == NULL || hands == NULL || trick == NULL || order == NULL || log == NULL ||
        !PyList_CheckExact(hands) || PyList_GET_SIZE(hands) != n || !PyList_CheckExact(trick) ||
        !PyList_CheckExact(order) || !PyList_CheckExact(log))
        return 0;
    for (long s = 0; s < n; s++)
        if (!PyList_CheckExact(PyList_GET_ITEM(hands, s)))
            return 0;
    long done = PyList_GET_SIZE(order);
    unsigned char taken[MAX_HAND * 2];
    int is_pass = move == core_move_pass, out = 0;
    long end_trick_for = -1, next;
    if (is_pass) {
        if (last == Py_None)
            return 0;                          /* nothing to beat: the Python code refuses */
        long last_seat = gsmall(g, G_LAST_SEAT, n);
        long passes = gsmall(g, G_PASSES, 1L << 30);
        if (last_seat < 0 || passes < 0)
            return 0;
        long others = n - done - (PyList_GET_SIZE(PyList_GET_ITEM(hands, last_seat)) ? 1 : 0);
        if (passes + 1 >= others) {            /* the trick ends: _end_trick */
            PyObject *tricks = G(g, G_TRICKS);
            PyObject *won = G(g, G_WON);
            if (n - done <= 1 || tricks == NULL || won == NULL || !PyList_CheckExact(tricks) ||
                !PyList_CheckExact(won) || PyList_GET_SIZE(won) != n ||
                !PyList_CheckExact(PyList_GET_ITEM(won, last_seat)))
                return 0;
            for (Py_ssize_t i = 0; i < PyList_GET_SIZE(trick); i++) {
                PyObject *t = PyList_GET_ITEM(trick, i);
                if (!PyTuple_CheckExact(t) || PyTuple_GET_SIZE(t) != 2)
                    return 0;
                PyObject *c = PyTuple_GET_ITEM(t, 1);
                if (c != Py_None && !(Py_IS_TYPE(c, core_combo_type) &&
                                      PyTuple_CheckExact(SLOT(c, core_combo_off[COMBO_CARDS]))))
                    return 0;
            }
            end_trick_for = last_seat;
            next = next_with_cards(hands, n, last_seat, 1);
        } else {
            next = next_with_cards(hands, n, seat, 0);
        }
    } else {
        PyObject *tok = GET(d, S_token);
        if (tok == NULL || tok == Py_None || core_move_type == NULL ||
            !Py_IS_TYPE(move, core_move_type) || SLOT(move, core_move_off[MOVE_TOKEN]) != tok)
            return 0;
        PyObject *kind = SLOT(move, core_move_off[MOVE_KIND]);
        PyObject *cards = SLOT(move, core_move_off[MOVE_CARDS]);
        PyObject *combo = SLOT(move, core_move_off[MOVE_COMBO]);
        if (kind == NULL || cards == NULL || combo == NULL || !PyTuple_CheckExact(cards) ||
            combo == Py_None ||
            (kind != core_move_play && (!PyUnicode_Check(kind) ||
                                        PyUnicode_Compare(kind, core_move_play) != 0)))
            return 0;
        PyObject *hand = PyList_GET_ITEM(hands, seat);
        Py_ssize_t k = PyTuple_GET_SIZE(cards), size = PyList_GET_SIZE(hand);
        if (k == 0 || k > size || size > (Py_ssize_t)sizeof taken)
            return 0;
        out = k == size;                       /* the player goes out */
        /* every card is held (as many times as played): mark the positions list.remove
           takes, the first occurrence not taken by an earlier card */
        long held[sizeof taken];
        for (Py_ssize_t i = 0; i < size; i++) {
            PyObject *x = PyList_GET_ITEM(hand, i);
            if (!plain_int(x))
                return 0;
            if ((held[i] = core_digit_int(x)) < 0 &&
                (held[i] = PyLong_AsLong(x)) == -1 && PyErr_Occurred()) {
                PyErr_Clear();
                return 0;
            }
        }
        memset(taken, 0, (size_t)size);
        for (Py_ssize_t j = 0; j < k; j++) {
            PyObject *c = PyTuple_GET_ITEM(cards, j);
            if (!plain_int(c))
                return 0;
            long v = core_digit_int(c);
            if (v < 0)
                v = PyLong_AsLong(c);
            if (v == -1 && PyErr_Occurred()) {
                PyErr_Clear();
                return 0;
            }
            Py_ssize_t i = 0;
            while (i < size && (taken[i] || held[i] != v))
                i++;
            if (i == size)
                return 0;                      /* not held: the Python code says so */
            taken[i] = 1;
        }
        PyObject *rules = G(g, G_RULES), *ft = G(g, G_FINISH);
        if (rules == NULL)
            return 0;
        if (ft != NULL)
            Py_INCREF(ft);
        else if ((ft = PyObject_GetAttr(rules, S_finish_trick)) == NULL) {
            PyErr_Clear();
            return 0;
        }
        int finish = PyObject_IsTrue(ft);
        Py_DECREF(ft);
        if (finish < 0) {
            PyErr_Clear();
            return 0;
        }
        long holding = 0;                      /* the other seats holding cards */
        for (long s = 0; s < n; s++)
            if (s != seat && PyList_GET_SIZE(PyList_GET_ITEM(hands, s)))
                holding++;
        if (out) {
            /* the hand ends (one holder left, or, where the rules finish the trick, none):
               the Python code ends it and scores it */
            if (holding <= 1 && (!finish || holding == 0))
                return 0;
            PyObject *rare = GET(d, S_rare);
            if (rare == NULL || !PyTuple_CheckExact(rare) || PyTuple_GET_SIZE(rare) != rare_len)
                return 0;
        } else if (finish && holding == 0) {
            return 0;                          /* nobody is left to answer: _end_trick */
        }
        next = next_with_cards(hands, n, seat, 0);
    }
    if (ending) {
        gset(g, G_GROUPING, Py_None);
        gset(g, G_CHOICE, Py_None);
        gset(g, G_PICKED, S_empty);
    }
    return make(g, d, move, is_pass, seat, hands, trick, end_trick_for, next, taken, out) < 0 ?
           -1 : 1;
}

PyObject *
core_apply_listed(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "apply_listed(game, move, seat)");
        return NULL;
    }
    if (intern_names() < 0)
        return NULL;
    if (core_move_pass == NULL || core_combo_type == NULL || !is_game(args[0]))
        Py_RETURN_FALSE;
    PyObject *d = PyObject_GenericGetDict(args[0], NULL);
    if (d == NULL) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    int rc = PyDict_CheckExact(d) ? apply_listed(args[0], d, args[1], args[2]) : 0;
    Py_DECREF(d);
    if (rc < 0)
        return NULL;
    if (rc == 0 && PyErr_Occurred())
        PyErr_Clear();                     /* a state it could not read: nothing changed */
    return PyBool_FromLong(rc);
}

/* listed_moves(game, token[, limit]): the legal moves of ``game``'s play phase listed by the
   core in one call, as CompiledFamily.play_moves lists them for steps.play_phase_moves (every
   legal move up to ``limit``, False past it: the caller offers steps past STEP_LIMIT, counting
   the plays where they are more than ``limit``), when no choice in steps is
   under way: family_moves(game.rules.family._core_spec, family, hand of the seat to act,
   game.last, token). None, having listed nothing, for anything else (another phase, a
   choice under way, a family without its spec yet, a hand the core refuses, a play to beat
   it does not describe, a state it cannot read): the Python code then lists as before. */
PyObject *
core_listed_moves(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 && nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "listed_moves(game, token[, limit])");
        return NULL;
    }
    if (intern_names() < 0)
        return NULL;
    PyObject *g = args[0], *fd = NULL, *family = NULL;
    PyObject *out = NULL;
    if (!is_game(g))
        goto none;
    PyObject *phase = G(g, G_PHASE);
    if (phase == NULL || !PyUnicode_CheckExact(phase) ||
        (phase != S_play && PyUnicode_Compare(phase, S_play) != 0))
        goto none;
    PyObject *grouping = G(g, G_GROUPING);
    long n = gsmall(g, G_N, MAX_SEATS * 1000);
    long seat = n > 0 ? gsmall(g, G_TO_ACT, n) : -1;
    PyObject *hands = G(g, G_HANDS), *last = G(g, G_LAST), *rules = G(g, G_RULES);
    if ((grouping != NULL && grouping != Py_None) || seat < 0 || hands == NULL ||
        last == NULL || rules == NULL || !PyList_CheckExact(hands) ||
        PyList_GET_SIZE(hands) != n)
        goto none;
    family = G(g, G_FAMILY);
    family = family != NULL ? Py_NewRef(family) : PyObject_GetAttr(rules, S_family);
    fd = family == NULL ? NULL : PyObject_GenericGetDict(family, NULL);
    PyObject *spec = fd == NULL || !PyDict_CheckExact(fd) ? NULL : GET(fd, S_core_spec);
    if (spec == NULL)
        goto none;
    PyObject *call[6] = {spec, family, PyList_GET_ITEM(hands, seat), last, args[1],
                         nargs == 3 ? args[2] : NULL};
    out = core_family_moves(NULL, call, nargs == 3 ? 6 : 5);
    if (out == NULL && PyErr_ExceptionMatches(PyExc_ValueError))
        goto none;                         /* a hand the core refuses: the Python code */
    Py_XDECREF(fd);
    Py_XDECREF(family);
    return out;
none:
    Py_XDECREF(fd);
    Py_XDECREF(family);
    PyErr_Clear();
    Py_RETURN_NONE;
}

/* deal_hands(cards, n, first, dealt) -> [hand, ...]: the hands of a deal, one card at a time
   round the table, as ClimbingGame._start_hand deals them: seat s gets every n-th of the first
   ``dealt`` cards from position (s - first) % n, each hand a new list sorted by card code (a
   counting sort over the 54 codes; of equal cards, each hand holds the first object dealt of
   that code: the deck's one object per card). TypeError for anything but a list of ints in
   0..53; the Python code (``sorted``) is the reference. */
PyObject *
core_deal_hands(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    long n, first, dealt;
    if (nargs != 4 || !PyList_CheckExact(args[0]) ||
        (n = PyLong_AsLong(args[1])) == -1 || (first = PyLong_AsLong(args[2])) == -1 ||
        (dealt = PyLong_AsLong(args[3])) == -1) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "deal_hands(cards, n, first, dealt)");
        return NULL;
    }
    PyObject *cards = args[0];
    if (n < 1 || n > MAX_SEATS || first < 0 || first >= n || dealt < 0 ||
        dealt > PyList_GET_SIZE(cards)) {
        PyErr_SetString(PyExc_ValueError, "deal_hands: a seat, or a count, out of range");
        return NULL;
    }
    unsigned short count[MAX_SEATS][54];
    PyObject *rep[54] = {NULL};
    memset(count, 0, sizeof count);
    for (long k = 0; k < dealt; k++) {
        PyObject *c = PyList_GET_ITEM(cards, k);
        long v = PyLong_Check(c) ? PyLong_AsLong(c) : -1;
        if (v < 0 || v >= 54) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "deal_hands: a card is an int in 0..53");
            return NULL;
        }
        if (rep[v] == NULL)
            rep[v] = c;
        count[(first + k) % n][v]++;
    }
    PyObject *hands = PyList_New(n);
    if (hands == NULL)
        return NULL;
    for (long s = 0; s < n; s++) {
        Py_ssize_t size = 0;
        for (int v = 0; v < 54; v++)
            size += count[s][v];
        PyObject *hand = PyList_New(size);
        if (hand == NULL) {
            Py_DECREF(hands);
            return NULL;
        }
        Py_ssize_t i = 0;
        for (int v = 0; v < 54; v++)
            for (int j = 0; j < count[s][v]; j++)
                PyList_SET_ITEM(hand, i++, Py_NewRef(rep[v]));
        PyList_SET_ITEM(hands, s, hand);
    }
    return hands;
}
