/* The choice of a play in steps (games/climbing/steps.py) from the game's listing: its plays
   grouped in C, the first step's moves and a chosen group's plays, as lazy sequences.

   Plays.groups(texts, text_of, choose) groups the plays of a Plays listing by what they are
   read as, in one pass over the plays' codes (the reference is steps.groups over the same
   moves): ``texts`` is a dict code -> the group's ``choose`` text, kept by the family and
   filled here by calling ``text_of(move)`` with the first play of a code not in it yet;
   groups are told apart by their text (the plays of several codes may share one). It
   answers a Steps: the moves of the first step, a read-only sequence like Plays (PASS_MOVE
   first when following, then per group in the order of its first play, the listing's own
   item where the group has one play, else Move(choose, (), None, text, None, token)), each
   made when it is asked for. It keeps per play its group, so that a chosen group's plays
   holding the picked cards are found by a pass over the listing (Steps.select), without
   generating the plays again: they come as a Subset, the moves of that step (PASS_MOVE
   first when following), each a Move of the play's Combo with the step's token, made when
   it is asked for. */

#include "_core.h"

#define GROUP_SLOTS 16384       /* hash slots for the distinct codes (a power of two) */
#define GROUP_CODES 8192        /* the most distinct codes: OverflowError past them */

/* per call of groups: code -> group, and group text -> group, by open addressing; a slot is
   in use when its gen is the call's (so nothing is cleared between calls). One set is kept
   for every call; a call made while another is under way (text_of is Python code: another
   thread, or text_of itself, may list and group meanwhile) takes a zeroed set of its own. */
typedef struct {
    struct {
        long code;
        int group;
        unsigned gen;
    } c[GROUP_SLOTS];                       /* by code (one slot: one cache line) */
    struct {
        PyObject *text;                     /* borrowed: the Steps holds them */
        Py_hash_t hash;
        int group;
        unsigned gen;
    } t[GROUP_SLOTS];                       /* by text */
    unsigned cur;
} GroupTables;

static GroupTables G;
static int G_busy;              /* a call is using G (the GIL guards the flag) */

/* one group: the index of its first play (in plays->sink), how many plays it has, its
   choose text and its choose move (NULL until made) */
typedef struct {
    Py_ssize_t first, count;
    PyObject *text, *item;
} Group;

typedef struct {
    LazySeq seq;
    Plays *plays;               /* the listing grouped */
    PyObject *choose, *token;   /* the CHOOSE kind, the listing's token (or None) */
    Py_ssize_t ngroups, cap;
    Group *grp;                 /* the groups, in the order of their first play */
    int *group_of;              /* per play: its group */
} Steps;

typedef struct {
    LazySeq seq;
    Plays *plays;               /* the listing */
    PyObject *token;            /* the token of the step's moves */
    Py_ssize_t n;               /* how many plays */
    Py_ssize_t *index;          /* their indices in plays->sink */
    PyObject **items;           /* their Moves, NULL until made */
} Subset;

static Py_ssize_t
steps_len(LazySeq *s)
{
    Steps *st = (Steps *)s;
    return st->plays->pass_first + st->ngroups;
}

static PyObject *
steps_item_of(LazySeq *s, Py_ssize_t i)
{
    Steps *st = (Steps *)s;
    Py_ssize_t pf = st->plays->pass_first;
    if (i < pf) {
        Py_INCREF(core_move_pass);
        return core_move_pass;
    }
    Group *gr = &st->grp[i - pf];
    if (gr->count == 1)                     /* the listing's own item */
        return st->plays->seq.item(&st->plays->seq, gr->first + pf);
    PyObject *m = gr->item;
    if (m == NULL) {
        m = core_choose_move(st->choose, gr->text, st->token);
        if (m == NULL)
            return NULL;
        gr->item = m;
    }
    Py_INCREF(m);
    return m;
}

static void
steps_dealloc(Steps *st)
{
    for (Py_ssize_t g = 0; g < st->ngroups; g++) {
        Py_XDECREF(st->grp[g].text);
        Py_XDECREF(st->grp[g].item);
    }
    PyMem_Free(st->grp);
    PyMem_Free(st->group_of);
    Py_XDECREF(st->plays);
    Py_XDECREF(st->choose);
    Py_XDECREF(st->token);
    PyObject_Free(st);
}

/* the group of a code not seen yet in this call: its text from ``texts`` (or text_of, with
   the play's Move), then the group of that text (a new one, appended, when new); -1 with an
   exception */
/* The texts of the codes met so far, kept in C for the ``texts`` dict last passed (``owner``,
   the family's, held): a code's text and its hash without making an int and looking it up.
   What it holds was read from that dict or put into it; a call with another dict, or a full
   cache, starts it again. */
#define TEXT_SLOTS 16384
#define TEXT_MOST 8192

static struct {
    PyObject *owner;
    struct {
        long code;
        PyObject *text;                     /* held; NULL: a free slot */
        Py_hash_t hash;
    } s[TEXT_SLOTS];
    Py_ssize_t used;
} T;

static void
texts_reset(PyObject *owner)
{
    for (size_t i = 0; i < TEXT_SLOTS && T.used; i++) {
        if (T.s[i].text != NULL) {
            Py_CLEAR(T.s[i].text);
            T.used--;
        }
    }
    T.used = 0;
    Py_XINCREF(owner);
    Py_XSETREF(T.owner, owner);
}

static size_t
text_slot(long code)
{
    size_t i = (size_t)((unsigned long)code * 0x9E3779B97F4A7C15UL >> 40) & (TEXT_SLOTS - 1);
    while (T.s[i].text != NULL && T.s[i].code != code)
        i = (i + 1) & (TEXT_SLOTS - 1);
    return i;
}

/* the text of a code (a new reference) and its hash: from the cache, else ``texts``, else
   text_of(the Move of play j), put into both; NULL with an exception */
static PyObject *
text_of_code(Steps *st, long code, Py_ssize_t j, PyObject *texts, PyObject *text_of,
             Py_hash_t *hash)
{
    if (T.owner != texts || T.used >= TEXT_MOST)
        texts_reset(texts);
    size_t slot = text_slot(code);
    if (T.s[slot].text != NULL) {
        *hash = T.s[slot].hash;
        Py_INCREF(T.s[slot].text);
        return T.s[slot].text;
    }
    PyObject *key = PyLong_FromLong(code);
    if (key == NULL)
        return NULL;
    PyObject *text = PyDict_GetItemWithError(texts, key);
    if (text != NULL) {
        Py_INCREF(text);
    } else if (!PyErr_Occurred()) {
        Plays *p = st->plays;
        PyObject *m = p->seq.item(&p->seq, j + p->pass_first);
        text = m == NULL ? NULL : PyObject_CallOneArg(text_of, m);
        Py_XDECREF(m);
        if (text != NULL && (!PyUnicode_Check(text) || PyDict_SetItem(texts, key, text) < 0)) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "text_of must give a str");
            Py_CLEAR(text);
        }
    }
    Py_DECREF(key);
    if (text == NULL)
        return NULL;
    if (!PyUnicode_CheckExact(text)) {      /* a str subclass may hash as it likes */
        PyErr_SetString(PyExc_TypeError, "a group's text must be a str");
        Py_DECREF(text);
        return NULL;
    }
    if ((*hash = PyObject_Hash(text)) == -1) {
        Py_DECREF(text);
        return NULL;
    }
    /* text_of may have run groups meanwhile (in this thread or another): with another dict,
       or putting this code in already */
    if (T.owner == texts && T.used < TEXT_MOST && T.s[slot = text_slot(code)].text == NULL) {
        Py_INCREF(text);
        T.s[slot].code = code;
        T.s[slot].text = text;
        T.s[slot].hash = *hash;
        T.used++;
    }
    return text;
}

static int
group_of_code(GroupTables *gt, Steps *st, long code, Py_ssize_t j, PyObject *texts,
              PyObject *text_of)
{
    Py_hash_t h;
    PyObject *text = text_of_code(st, code, j, texts, text_of, &h);
    if (text == NULL)
        return -1;
    size_t i = (size_t)((unsigned long)h * 0x9E3779B97F4A7C15UL >> 40) & (GROUP_SLOTS - 1);
    while (gt->t[i].gen == gt->cur) {
        if (gt->t[i].hash == h) {
            int eq = gt->t[i].text == text ? 1 : PyUnicode_Compare(gt->t[i].text, text) == 0;
            if (eq) {
                Py_DECREF(text);
                return gt->t[i].group;
            }
            if (PyErr_Occurred()) {
                Py_DECREF(text);
                return -1;
            }
        }
        i = (i + 1) & (GROUP_SLOTS - 1);
    }
    Py_ssize_t g = st->ngroups;
    if (g == st->cap) {
        Py_ssize_t cap = st->cap ? 2 * st->cap : 64;
        Group *grp = PyMem_Realloc(st->grp, (size_t)cap * sizeof(Group));
        if (grp == NULL) {
            Py_DECREF(text);
            PyErr_NoMemory();
            return -1;
        }
        st->grp = grp;
        st->cap = cap;
    }
    st->grp[g].text = text;               /* the reference taken above */
    st->grp[g].item = NULL;
    st->grp[g].first = j;
    st->grp[g].count = 0;
    st->ngroups = g + 1;
    gt->t[i].text = text;
    gt->t[i].hash = h;
    gt->t[i].group = (int)g;
    gt->t[i].gen = gt->cur;
    return (int)g;
}

static PyObject *groups_fill(GroupTables *gt, Steps *st, Plays *p, PyObject *texts,
                             PyObject *text_of);

PyObject *
core_plays_groups(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Plays *p = (Plays *)self;
    if (nargs != 3 || !PyDict_CheckExact(args[0]) || !PyUnicode_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "groups(texts: dict, text_of, choose: str)");
        return NULL;
    }
    if (core_move_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "the Move class is not bound");
        return NULL;
    }
    PyObject *texts = args[0], *text_of = args[1];
    Py_ssize_t n = p->sink.n;
    Steps *st = PyObject_New(Steps, &core_steps_type);
    if (st == NULL)
        return NULL;
    st->seq.len = steps_len;
    st->seq.item = steps_item_of;
    st->ngroups = st->cap = 0;
    st->grp = NULL;
    st->group_of = NULL;
    Py_INCREF(p);
    st->plays = p;
    Py_INCREF(args[2]);
    st->choose = args[2];
    st->token = p->token != NULL ? p->token : Py_None;
    Py_INCREF(st->token);
    if ((st->group_of = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(int))) == NULL) {
        Py_DECREF(st);
        return PyErr_NoMemory();
    }
    GroupTables *gt = &G;
    if (G_busy) {                          /* G is another call's: a set of our own */
        if ((gt = PyMem_Calloc(1, sizeof(GroupTables))) == NULL) {
            Py_DECREF(st);
            return PyErr_NoMemory();
        }
    } else {
        G_busy = 1;
    }
    PyObject *out = groups_fill(gt, st, p, texts, text_of);
    if (gt == &G)
        G_busy = 0;
    else
        PyMem_Free(gt);
    return out;
}

/* groups' pass over the plays with the tables ``gt``: the Steps, or NULL (it is released)
   with an exception */
static PyObject *
groups_fill(GroupTables *gt, Steps *st, Plays *p, PyObject *texts, PyObject *text_of)
{
    Py_ssize_t n = p->sink.n;
    if (++gt->cur == 0) {                    /* once in 2**32 calls: free every slot */
        for (size_t i = 0; i < GROUP_SLOTS; i++)
            gt->c[i].gen = gt->t[i].gen = 0;
        gt->cur = 1;
    }
    long last_code = 0;
    int last_group = -1;
    Py_ssize_t ncodes = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        long code = p->sink.plays[j].code;
        if (last_group < 0 || code != last_code) {
            unsigned long h = (unsigned long)code * 0x9E3779B97F4A7C15UL;
            size_t i = (size_t)(h >> 40) & (GROUP_SLOTS - 1);
            int g = -1;
            while (gt->c[i].gen == gt->cur) {
                if (gt->c[i].code == code) {
                    g = gt->c[i].group;
                    break;
                }
                i = (i + 1) & (GROUP_SLOTS - 1);
            }
            if (g < 0) {                   /* a code not seen yet: its group by its text */
                if (ncodes == GROUP_CODES) {
                    PyErr_SetString(PyExc_OverflowError, "too many kinds of plays to group");
                    Py_DECREF(st);
                    return NULL;
                }
                g = group_of_code(gt, st, code, j, texts, text_of);
                if (g < 0) {
                    Py_DECREF(st);
                    return NULL;
                }
                gt->c[i].code = code;
                gt->c[i].group = g;
                gt->c[i].gen = gt->cur;
                ncodes++;
            }
            last_code = code;
            last_group = g;
        }
        st->group_of[j] = last_group;
        st->grp[last_group].count++;
    }
    return (PyObject *)st;
}

/* ------------------------------------------------------------------- Steps' methods */
static int
group_arg(Steps *st, PyObject *arg, Py_ssize_t *g)
{
    *g = PyNumber_AsSsize_t(arg, PyExc_IndexError);
    if (*g == -1 && PyErr_Occurred())
        return -1;
    if (*g < 0 || *g >= st->ngroups) {
        PyErr_SetString(PyExc_IndexError, "group index out of range");
        return -1;
    }
    return 0;
}

/* info(): (texts, firsts, counts) per group: its text, its first play's item index in the
   listing, how many plays it has */
static PyObject *
steps_info(Steps *st, PyObject *unused)
{
    PyObject *t = PyList_New(st->ngroups), *f = PyList_New(st->ngroups);
    PyObject *c = PyList_New(st->ngroups);
    if (t == NULL || f == NULL || c == NULL)
        goto fail;
    for (Py_ssize_t g = 0; g < st->ngroups; g++) {
        PyObject *a = PyLong_FromSsize_t(st->grp[g].first + st->plays->pass_first);
        PyObject *b = PyLong_FromSsize_t(st->grp[g].count);
        if (a == NULL || b == NULL) {
            Py_XDECREF(a);
            Py_XDECREF(b);
            goto fail;
        }
        Py_INCREF(st->grp[g].text);
        PyList_SET_ITEM(t, g, st->grp[g].text);
        PyList_SET_ITEM(f, g, a);
        PyList_SET_ITEM(c, g, b);
    }
    return Py_BuildValue("(NNN)", t, f, c);
fail:
    Py_XDECREF(t);
    Py_XDECREF(f);
    Py_XDECREF(c);
    return NULL;
}

/* find(text): (the group of this text, how many plays it has), or None */
static PyObject *
steps_find(Steps *st, PyObject *text)
{
    if (!PyUnicode_Check(text))
        Py_RETURN_NONE;
    for (Py_ssize_t g = 0; g < st->ngroups; g++) {
        if (st->grp[g].text == text)
            return Py_BuildValue("(nn)", g, st->grp[g].count);
    }
    for (Py_ssize_t g = 0; g < st->ngroups; g++) {
        int eq = PyUnicode_Compare(st->grp[g].text, text);
        if (eq == -1 && PyErr_Occurred())
            return NULL;
        if (eq == 0)
            return Py_BuildValue("(nn)", g, st->grp[g].count);
    }
    Py_RETURN_NONE;
}

/* codes(g): the codes of group g's plays, in the order of their first play */
static PyObject *
steps_codes(Steps *st, PyObject *arg)
{
    Py_ssize_t g;
    if (group_arg(st, arg, &g) < 0)
        return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    const Play *plays = st->plays->sink.plays;
    for (Py_ssize_t j = st->grp[g].first; j < st->plays->sink.n; j++) {
        if (st->group_of[j] != g)
            continue;
        int seen = 0;
        for (Py_ssize_t k = 0; k < PyList_GET_SIZE(out) && !seen; k++)
            seen = PyLong_AsLong(PyList_GET_ITEM(out, k)) == plays[j].code;
        if (seen)
            continue;
        PyObject *c = PyLong_FromLong(plays[j].code);
        if (c == NULL || PyList_Append(out, c) < 0) {
            Py_XDECREF(c);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(c);
    }
    return out;
}

static PyObject *subset_new(Plays *p, PyObject *token, Py_ssize_t n, Py_ssize_t *index);

/* select(g, picked, cap, token): the plays of group g holding every picked card (a tuple of
   card codes, with their multiplicity), as steps.Grouping.candidates needs them: (how many;
   when at most ``cap``, the moves of that step as a Subset (PASS_MOVE first when
   following), the plays' Moves with ``token``, else None; when more, per card code the most
   copies of it in any of them, else None) */
static PyObject *
steps_select(Steps *st, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t g;
    if (nargs != 4 || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "select(group, picked: tuple, cap, token)");
        return NULL;
    }
    if (group_arg(st, args[0], &g) < 0)
        return NULL;
    Py_ssize_t cap = PyNumber_AsSsize_t(args[2], PyExc_OverflowError);
    if (cap == -1 && PyErr_Occurred())
        return NULL;
    unsigned char need[N_CARDS] = {0}, most[N_CARDS] = {0};
    int picks[MAX_HAND], npicks = 0;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(args[1]); k++) {
        long c = PyLong_AsLong(PyTuple_GET_ITEM(args[1], k));
        if (c == -1 && PyErr_Occurred())
            return NULL;
        if (c < 0 || c >= N_CARDS || need[c] == 255) {
            PyErr_SetString(PyExc_ValueError, "a picked card must be a card code 0..53");
            return NULL;
        }
        if (need[c]++ == 0)
            picks[npicks++] = (int)c;
    }
    Plays *p = st->plays;
    Py_ssize_t total = 0, room = cap < st->grp[g].count ? cap : st->grp[g].count;
    Py_ssize_t *index = PyMem_Malloc((size_t)(room > 0 ? room : 1) * sizeof(Py_ssize_t));
    if (index == NULL)
        return PyErr_NoMemory();
    int buf[64];
    unsigned char have[N_CARDS];
    for (Py_ssize_t j = st->grp[g].first; j < p->sink.n; j++) {
        if (st->group_of[j] != g)
            continue;
        const int *cards;
        int nc = core_plays_cards(p, j, &cards, buf);
        for (int k = 0; k < npicks; k++)
            have[picks[k]] = 0;
        for (int k = 0; k < nc; k++)
            have[cards[k]] = 0;
        for (int k = 0; k < nc; k++)
            have[cards[k]]++;
        int ok = 1;
        for (int k = 0; k < npicks && ok; k++)
            ok = have[picks[k]] >= need[picks[k]];
        if (!ok)
            continue;
        if (total < room)
            index[total] = j;
        total++;
        for (int k = 0; k < nc; k++) {
            if (have[cards[k]] > most[cards[k]])
                most[cards[k]] = have[cards[k]];
        }
    }
    if (total <= cap) {
        PyObject *sub = subset_new(p, args[3], total, index);    /* takes index */
        if (sub == NULL)
            return NULL;
        return Py_BuildValue("(nNO)", total, sub, Py_None);
    }
    PyMem_Free(index);
    PyObject *maxima = PyList_New(N_CARDS);
    if (maxima == NULL)
        return NULL;
    for (int c = 0; c < N_CARDS; c++)
        PyList_SET_ITEM(maxima, c, PyLong_FromLong(most[c]));    /* small ints: no failure */
    return Py_BuildValue("(nON)", total, Py_None, maxima);
}

static PyMethodDef steps_methods[] = {
    LAZY_SEQ_METHODS,
    {"info", (PyCFunction)steps_info, METH_NOARGS,
     "info(): (texts, firsts, counts): per group its text, its first play's index in the "
     "listing and how many plays it has."},
    {"find", (PyCFunction)steps_find, METH_O,
     "find(text): (the group of this choose text, how many plays it has), or None."},
    {"codes", (PyCFunction)steps_codes, METH_O,
     "codes(group): the codes of the group's plays, in the order of their first play."},
    {"select", (PyCFunction)(void (*)(void))steps_select, METH_FASTCALL,
     "select(group, picked, cap, token): (how many plays of the group hold the picked cards, "
     "their moves when at most cap (a Subset), else None, the most copies of each card in "
     "them when more, else None)."},
    {NULL, NULL, 0, NULL}
};

PyTypeObject core_steps_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "shangyou.games.climbing._core.Steps",
    .tp_doc = "The first step's moves of a choice in steps, made into Moves when asked for.",
    .tp_basicsize = sizeof(Steps),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)steps_dealloc,
    LAZY_SEQ_TYPE_SLOTS,
    .tp_methods = steps_methods,
};

/* ------------------------------------------------------------------------- Subset */
static Py_ssize_t
subset_len(LazySeq *s)
{
    Subset *sub = (Subset *)s;
    return sub->plays->pass_first + sub->n;
}

static PyObject *
subset_item_of(LazySeq *s, Py_ssize_t i)
{
    Subset *sub = (Subset *)s;
    Py_ssize_t pf = sub->plays->pass_first;
    if (i < pf) {
        Py_INCREF(core_move_pass);
        return core_move_pass;
    }
    Py_ssize_t k = i - pf;
    PyObject *m = sub->items[k];
    if (m == NULL) {
        PyObject *combo = core_plays_combo(sub->plays, sub->index[k]);
        if (combo == NULL)
            return NULL;
        m = core_move_of(combo, sub->plays->family, sub->token);
        if (m == NULL)
            return NULL;
        sub->items[k] = m;
    }
    Py_INCREF(m);
    return m;
}

/* a Subset of the n plays at ``index`` (taken: freed with it, or here on failure) */
static PyObject *
subset_new(Plays *p, PyObject *token, Py_ssize_t n, Py_ssize_t *index)
{
    Subset *sub = PyObject_New(Subset, &core_subset_type);
    PyObject **items = PyMem_Calloc((size_t)(n ? n : 1), sizeof(PyObject *));
    if (sub == NULL || items == NULL) {
        PyMem_Free(index);
        PyMem_Free(items);
        if (sub != NULL) {
            sub->n = 0;
            sub->items = NULL;
            sub->index = NULL;
            sub->plays = NULL;
            sub->token = NULL;
            Py_DECREF(sub);
        }
        return items == NULL ? PyErr_NoMemory() : NULL;
    }
    sub->seq.len = subset_len;
    sub->seq.item = subset_item_of;
    Py_INCREF(p);
    sub->plays = p;
    Py_INCREF(token);
    sub->token = token;
    sub->n = n;
    sub->index = index;
    sub->items = items;
    return (PyObject *)sub;
}

static void
subset_dealloc(Subset *sub)
{
    if (sub->items != NULL) {
        for (Py_ssize_t k = 0; k < sub->n; k++)
            Py_XDECREF(sub->items[k]);
        PyMem_Free(sub->items);
    }
    PyMem_Free(sub->index);
    Py_XDECREF(sub->plays);
    Py_XDECREF(sub->token);
    PyObject_Free(sub);
}

static PyMethodDef subset_methods[] = {
    LAZY_SEQ_METHODS,
    {NULL, NULL, 0, NULL}
};

PyTypeObject core_subset_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "shangyou.games.climbing._core.Subset",
    .tp_doc = "The moves of a chosen group's plays, made into Moves when asked for.",
    .tp_basicsize = sizeof(Subset),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)subset_dealloc,
    LAZY_SEQ_TYPE_SLOTS,
    .tp_methods = subset_methods,
};
