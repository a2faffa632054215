/* The climbing batch engine's rules (_core_batch.h): a hand dealt, a play, the end of a trick
   and of the hand, its points; the listing of a decision from the core's generators, sorted
   into the environments' candidate order and cut into pages. */

#include "_core_batch.h"
#include <stdlib.h>

/* ------------------------------------------------------------------------ the game */
static inline int
next_with_cards(const Batch *b, const Row *r, int seat, int include_self)
{
    return core_next_with_cards(r->size, b->players, seat, include_self);
}

/* ClimbingGame.__init__ and _start_hand for one hand dealt from ``game_seed``: the dealer
   drawn, the packs (cards.deck: one pack's cards, then the next pack's) shuffled and dealt
   one card at a time from the dealer */
void
batch_deal(const Batch *b, Row *r, uint32_t game_seed)
{
    MT g;
    mt_seed(&g, game_seed);
    int n = b->players, total = b->deck * b->packs;
    int dealer = (int)mt_below(&g, (uint32_t)n);
    int cards[2 * N_CARDS];
    for (int i = 0; i < total; i++)
        cards[i] = i % b->deck;
    for (int i = total - 1; i >= 1; i--) {            /* random.shuffle */
        int j = (int)mt_below(&g, (uint32_t)i + 1);
        int t = cards[i];
        cards[i] = cards[j];
        cards[j] = t;
    }
    memset(r->hand, 0, sizeof r->hand);
    memset(r->size, 0, sizeof r->size);
    for (int k = 0, s = dealer; k < b->dealt; k++) {
        bag_put(&r->hand[s], cards[k]);
        r->size[s]++;
        if (++s == n)
            s = 0;
    }
    for (int s = 0; s < n; s++)
        r->dealt_size[s] = r->size[s];
    r->has_last = r->over = r->passes = r->norder = 0;
    memset(r->won, 0, sizeof r->won);
    r->table = 0;
    r->last_seat = -1;
    r->last_cards = r->played = (Bag){0, 0};
    r->passed = 0;
    r->steps = 0;
    r->listed = 0;
    int leader = dealer;                               /* first_leader "dealer" */
    if (b->leader_card >= 0) {
        /* "holder:<card>": the holder of its first copy dealt leads; a card not dealt: the
           lowest card dealt */
        int wanted = b->leader_card, at = -1, low = N_CARDS, low_at = 0;
        for (int k = 0; k < b->dealt; k++) {
            if (cards[k] == wanted && at < 0)
                at = k;
            if (cards[k] < low) {
                low = cards[k];
                low_at = k;
            }
        }
        leader = (dealer + (at >= 0 ? at : low_at)) % n;
    }
    if (b->random_card) {
        /* _choose_leader: a card drawn from the packs (rng.choice(deck)); the holder of its
           first copy dealt leads */
        int drawn = (int)mt_below(&g, (uint32_t)total) % b->deck;
        for (int k = 0; k < b->dealt; k++)
            if (cards[k] == drawn) {
                leader = (dealer + k) % n;
                break;
            }
    }
    r->to_act = next_with_cards(b, r, leader, 1);
}

/* Zheng Fen's card points (zheng_fen/family.py's points_of): each 5 scores 5, each 10 and
   K 10 */
static inline int
card_points(Bag cards)
{
    const uint64_t fives = 0xFULL << (4 * 2), tens = 0xFULL << (4 * 7), kings = 0xFULL << (4 * 10);
    return 5 * (__builtin_popcountll(cards.one & fives) + __builtin_popcountll(cards.two & fives))
           + 10 * (__builtin_popcountll(cards.one & (tens | kings))
                   + __builtin_popcountll(cards.two & (tens | kings)));
}

/* ClimbingGame._end_trick: the trick to its winner (its card points, Zheng Fen); the hand
   ends when at most one seat still holds cards (reached only with finish_trick) */
static void
end_trick(const Batch *b, Row *r)
{
    int winner = r->last_seat;
    r->won[winner] += r->table;
    r->table = 0;
    r->has_last = 0;
    r->passes = 0;
    r->passed = 0;
    r->last_seat = -1;
    if (b->players - r->norder <= 1) {
        for (int s = 0; s < b->players; s++)
            if (r->size[s]) {
                int in = 0;
                for (int p = 0; p < r->norder; p++)
                    in |= r->order[p] == s;
                if (!in)
                    r->order[r->norder++] = s;
            }
        r->over = 1;
        return;
    }
    r->to_act = next_with_cards(b, r, winner, 1);
}

/* ClimbingGame._do_play for a single hand: ``code`` -1 for the pass */
void
batch_apply_play(const Batch *b, Row *r, long code, Bag cards, int ncards)
{
    int seat = r->to_act;
    if (code < 0) {
        r->passes++;
        r->passed |= 1u << seat;
        if (core_passes_end_trick(r->passes, b->players, r->norder, r->size[r->last_seat])) {
            end_trick(b, r);
        } else {
            r->to_act = next_with_cards(b, r, seat, 0);
        }
        r->listed = 0;
        return;
    }
    bag_take(&r->hand[seat], cards);
    r->size[seat] -= ncards;
    bag_add(&r->played, cards);
    r->has_last = 1;
    r->last_code = code;
    r->last_cards = cards;
    r->last_seat = seat;
    r->passes = 0;
    r->passed = 0;
    r->listed = 0;
    if (b->points)
        r->table += card_points(cards);
    if (!r->size[seat]) {
        if (r->norder == 0)                         /* counts_at_first_out */
            memcpy(r->first_out_size, r->size, sizeof r->size);
        r->order[r->norder++] = seat;
        int holder, holding = core_holding(r->size, b->players, &holder);
        if (holding <= 1) {
            if (!b->points) {                       /* the hand ends now */
                if (holding == 1)
                    r->order[r->norder++] = holder;
                r->over = 1;
                return;
            }
            if (!holding) {   /* finish_trick: the last holder beat it with their last cards */
                end_trick(b, r);
                return;
            }
        }
    } else if (b->points) {
        int others = 0;
        for (int s = 0; s < b->players; s++)
            if (s != seat && r->size[s])
                others = 1;
        if (!others) {        /* finish_trick: nobody is left to answer */
            end_trick(b, r);
            return;
        }
    }
    r->to_act = next_with_cards(b, r, seat, 0);
}

/* game.py's score_hand: the points of each seat and of each team (teams only) */
void
batch_hand_points(const Batch *b, const Row *r, int *pts, int *tp)
{
    for (int s = 0; s < MAX_SEATS; s++)
        pts[s] = tp[s] = 0;
    if (b->points) {       /* trick-points: the last out's tricks and hand go to the first */
        int first = r->order[0], last = r->order[r->norder - 1];
        for (int s = 0; s < b->players; s++)
            pts[s] = r->won[s];
        pts[first] += pts[last] + card_points(r->hand[last]);
        if (last != first)
            pts[last] = 0;
        return;
    }
    if (b->cards_left) {                   /* the first out takes what the others lose */
        int n = b->players, winner = r->order[0], total = 0;
        for (int s = 0; s < n; s++) {
            if (s == winner)
                continue;
            int left = r->first_out_size[s], mult;
            if (left == r->dealt_size[s])
                mult = 3;
            else if (n == 3)
                mult = left >= 17 ? 3 : left >= 12 ? 2 : 1;
            else
                mult = left >= 10 ? 2 : 1;
            pts[s] = -left * mult;
            total += left * mult;
        }
        pts[winner] = total;
        return;
    }
    if (b->teams6) {                       /* only the team points count */
        const int *o = r->order, *team = b->team;
        int t1 = team[o[0]], t2 = team[o[1]];
        if (t1 == t2) {
            int pos3 = 2;
            while (pos3 < 5 && team[o[pos3]] != t1)
                pos3++;
            if (pos3 == 2) {
                tp[t1] = 10;
            } else if (pos3 == 3 || pos3 == 4) {
                tp[t1] = 5;
            } else {
                tp[t1] = 5;
                tp[1 - t1] = 2;
            }
        } else {
            tp[t1] += 3;
            tp[t2] += 2;
            tp[1 - team[o[r->norder - 1]]] += 2;
        }
        return;
    }
    if (r->norder > 0)
        pts[r->order[0]] = 2;
    if (r->norder > 1)
        pts[r->order[1]] = 1;
    if (b->teams)
        for (int s = 0; s < b->players; s++)
            tp[b->team[s]] += pts[s];
}

/* env/aec.py's rewards_of: the seat's points, or its team's */
void
batch_hand_rewards(const Batch *b, const Row *r, double *out)
{
    int pts[MAX_SEATS], tp[MAX_SEATS];
    batch_hand_points(b, r, pts, tp);
    for (int s = 0; s < b->players; s++)
        out[s] = b->teams ? tp[b->team[s]] : pts[s];
}

/* core.py's _owen_prev from an Owen play's code (_core_owen.c's layout, core.py's
   _owen_meta): the description (kind, arg, key, tier) owen_plays follows */
static void
owen_desc(long code, int *d)
{
    int kind = (int)(code & 15), f1 = (int)(code >> 4 & 15), f3 = (int)(code >> 12 & 15);
    int nat = (int)(code >> 16 & 1);
    d[0] = kind;
    d[1] = (kind >= 5 && kind <= 7) ? f3 : 0;           /* straight, stair, plate: ranks */
    d[2] = kind == 0 ? f1 : kind == 5 ? 2 * f1 : kind == 8 ? 0 : 2 * f1 + nat;
    d[3] = kind == 3 ? 1 : kind == 8 ? 2 : 0;           /* quad: a bomb; the rocket */
}

/* the plays of the seat to act into the thread's sink, in the generator's order; -1 past
   the listing limit */
int
batch_list_plays(const Batch *b, Row *r, Scratch *sc)
{
    Prev prev;
    if (r->has_last)
        prev_of_code(r->last_code, &prev);
    else
        prev.kind = -1;
    Sink *s = &sc->sink;
    s->n = 0;
    s->pool_n = 0;
    s->over = 0;
    sc->gen.out = NULL;
    sc->gen.sink = s;
    int rc;
    Bag hand = r->hand[r->to_act];
    unsigned char count[N_CARDS];
    if (b->family != FAM_PAGAT || hand.two)
        bag_counts(hand, count);
    if (b->family == FAM_OWEN) {
        int d[4] = {-1, 0, 0, 0};
        if (r->has_last)
            owen_desc(r->last_code, d);
        rc = core_owen_generate(count, d[0], d[1], d[2], d[3], &sc->gen);
    } else if (b->family == FAM_ZF) {
        int kind = -1, b0 = 0, b1 = 0;
        if (r->has_last) {                  /* core.py's _zf_prev, from the code */
            long code = r->last_code;
            int f1 = (int)(code >> 4 & 15), f2 = (int)(code >> 8 & 15);
            kind = (int)(code & 15);
            b0 = f1;
            b1 = (kind >= 4 && kind <= 6) || kind == 8 ? f1 - f2 + 1 : 0;
        }
        rc = core_zf_generate(count, kind, b0, b1, &sc->gen);
    } else if (b->family == FAM_WINNER) {
        long v[7] = {b->wopts[0], b->wopts[1], b->wopts[2], -1, 0, 0, 0};
        if (r->has_last) {                  /* core.py's _winner_prev, from the code */
            long code = r->last_code, k = code & 15;
            v[3] = k;
            v[4] = code >> 4 & 63;
            v[5] = (k == 3 || k == 4 || k == 6 || k == 8) ? (code >> 10 & 15) : 0;
            v[6] = (k == 6 || k == 8) ? (code >> 14 & 7) : 0;
        }
        rc = core_winner_generate(count, v, &sc->gen);
    } else {
        if (hand.two)
            gen_from_counts(&sc->gen, count, b->seq_top);
        else
            gen_from_set(&sc->gen, hand.one, b->seq_top);
        rc = pagat_generate(&sc->gen, &prev);
    }
    if (rc < 0 || s->over || s->n > b->limit)
        return -1;
    return 0;
}


/* family.reading_order(combo) = (tier, cls, key) of a pagat code as one comparable number:
   the class names compare as strings ("mseq" < "seq" < "set" < "single"), then the ints */
/* the same for an Owen code: (tier, cls, key) with cls ("bomb",), ("full house",),
   ("pair",), (run name, ranks) ... compared as the strings compare */
static uint64_t
owen_reading_key(long code)
{
    /* O_KINDS' names in string order: bomb (quad), full house, pair, plate, rocket, single,
       stair, straight, trip */
    static const int name_rank[9] = {5, 2, 8, 0, 1, 7, 6, 3, 4};
    int kind = (int)(code & 15), f1 = (int)(code >> 4 & 15), f3 = (int)(code >> 12 & 15);
    int nat = (int)(code >> 16 & 1);
    uint64_t tier = kind == 3 ? 1 : kind == 8 ? 2 : 0;
    uint64_t arg = (kind >= 5 && kind <= 7) ? (uint64_t)f3 : 0;
    uint64_t k1 = kind == 8 ? 0 : (uint64_t)f1;
    uint64_t k2 = (kind == 0 || kind == 5 || kind == 8) ? 0 : (uint64_t)nat;
    return tier << 48 | (uint64_t)name_rank[kind] << 40 | arg << 32 | k1 << 24 | k2 << 16;
}

/* the same for a Zheng Fen code (core.py's _zf_meta) */
static uint64_t
zf_reading_key(long code)
{
    /* the class names in string order: full house, pair, pairs, quartet, quartets, single,
       special, suit sequence, triple, triples */
    static const int name_rank[10] = {5, 1, 8, 3, 2, 9, 4, 0, 7, 6};
    int kind = (int)(code & 15), f1 = (int)(code >> 4 & 15), f2 = (int)(code >> 8 & 15);
    uint64_t tier = kind == 9 ? 1 : 0;
    uint64_t k2 = (kind >= 4 && kind <= 6) || kind == 8 ? (uint64_t)(f1 - f2 + 1) : 0;
    return tier << 48 | (uint64_t)name_rank[kind] << 40 | (uint64_t)f1 << 24 | k2 << 16;
}

/* the same for a "winner" code (core.py's _winner_meta) */
static uint64_t
winner_reading_key(long code)
{
    /* W_KINDS' class names in string order: bomb, full house, pair, pairs, single, straight,
       straight flush, triple, triples */
    static const int name_rank[9] = {4, 2, 7, 3, 8, 1, 5, 0, 6};
    int k = (int)(code & 15), a = (int)(code >> 4 & 63), bb = (int)(code >> 10 & 15);
    int c = (int)(code >> 14 & 7);
    uint64_t tier = k == 7 ? 1 : k == 8 ? 2 : 0;
    uint64_t arg = (k == 3 || k == 4 || k == 6 || k == 8) ? (uint64_t)bb : 0;
    uint64_t k2 = (k == 6 || k == 8) ? (uint64_t)c : 0;
    return tier << 48 | (uint64_t)name_rank[k] << 40 | arg << 32 | (uint64_t)a << 16 | k2;
}

static uint64_t
reading_key(long code)
{
    int f1 = CODE_F1(code), f2 = CODE_F2(code), f3 = CODE_F3(code), pure = CODE_PURE(code);
    uint64_t kind, c1 = 0, c2 = 0, k1 = 0, k2 = 0, k3 = 0;
    switch (CODE_KIND(code)) {
    case K_SINGLE:
        kind = 3;
        k1 = (uint64_t)f1;
        break;
    case K_SET:
        kind = 2;
        c1 = (uint64_t)f3;
        k1 = (uint64_t)f1;
        k2 = (uint64_t)pure;
        break;
    case K_SEQ:
        kind = 1;
        c1 = (uint64_t)(f2 - f1 + 1);
        k1 = f3 != 4;
        k2 = (uint64_t)f2;
        k3 = (uint64_t)pure;
        break;
    default:
        kind = 0;
        c1 = (uint64_t)(f2 - f1 + 1);
        c2 = (uint64_t)f3;
        k1 = (uint64_t)f2;
        k2 = (uint64_t)pure;
    }
    return kind << 40 | c1 << 32 | c2 << 24 | k1 << 16 | k2 << 8 | k3;
}

typedef struct {
    Bag cards;
    uint64_t reading;
    int n, idx;
} SortKey;

/* sort_moves' order: by number of cards, then the cards (sorted tuples compare at their first
   difference: bag_less), then the reading, highest first, then the listing's order (a stable
   sort); key_cmp_one for piles of one pack (the set holding the lowest card of the two sets'
   difference is less), key_cmp for two */
static inline int
key_rest(const SortKey *a, const SortKey *b)
{
    if (a->reading != b->reading)
        return a->reading > b->reading ? -1 : 1;
    return a->idx < b->idx ? -1 : 1;
}

static int
key_cmp_one(const void *pa, const void *pb)
{
    const SortKey *a = pa, *b = pb;
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    if (a->cards.one != b->cards.one) {
        uint64_t d = a->cards.one ^ b->cards.one;
        return (a->cards.one & d & -d) ? -1 : 1;
    }
    return key_rest(a, b);
}

static int
key_cmp(const void *pa, const void *pb)
{
    const SortKey *a = pa, *b = pb;
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    if (!bag_eq(a->cards, b->cards))
        return bag_less(a->cards, b->cards) ? -1 : 1;
    return key_rest(a, b);
}

/* the keys sorted: insertion sort for a few (most decisions), else qsort */
static inline void
sort_keys(SortKey *keys, int n, int (*cmp)(const void *, const void *))
{
    if (n > 16) {
        qsort(keys, (size_t)n, sizeof(SortKey), cmp);
        return;
    }
    for (int i = 1; i < n; i++) {
        SortKey k = keys[i];
        int j = i - 1;
        while (j >= 0 && cmp(&keys[j], &k) > 0) {
            keys[j + 1] = keys[j];
            j--;
        }
        keys[j + 1] = k;
    }
}

static int
ensure_cap(Row *r, int n)
{
    if (n <= r->cap)
        return 0;
    int cap = r->cap ? r->cap : 64;
    while (cap < n)
        cap *= 2;
    Cand *c = realloc(r->cand, (size_t)cap * sizeof(Cand));   /* no GIL: the C allocator */
    if (c == NULL)
        return -1;
    r->cand = c;
    r->cap = cap;
    return 0;
}

/* the candidates of the decision now, in order, and page 0 (env/aec.py's _new_pager) */
int
batch_make_decision(const Batch *b, Row *r, Scratch *sc)
{
    if (batch_list_plays(b, r, sc) < 0)
        return -1;
    const Sink *s = &sc->sink;
    int pf = r->has_last ? 1 : 0, n = (int)s->n;
    if (ensure_cap(r, n + pf) < 0)
        return -1;
    Cand *out = r->cand;
    if (pf) {
        out[0].cards = (Bag){0, 0};
        out[0].code = -1;
        out[0].n = 0;
    }
    int two = b->packs == 2;
    if (n == 1) {
        out[pf].cards = play_set(s, 0, two);
        out[pf].code = s->plays[0].code;
        out[pf].n = s->plays[0].n;
    } else if (n > 1) {
        SortKey stack_keys[128];
        SortKey *keys = n <= 128 ? stack_keys : malloc((size_t)n * sizeof(SortKey));
        if (keys == NULL)
            return -1;
        for (int j = 0; j < n; j++) {
            keys[j].cards = play_set(s, j, two);
            keys[j].n = s->plays[j].n;
            long code = s->plays[j].code;
            keys[j].reading = b->family == FAM_OWEN ? owen_reading_key(code)
                              : b->family == FAM_WINNER ? winner_reading_key(code)
                              : b->family == FAM_ZF ? zf_reading_key(code)
                              : reading_key(code);
            keys[j].idx = j;
        }
        if (two)
            sort_keys(keys, n, key_cmp);
        else
            sort_keys(keys, n, key_cmp_one);
        for (int j = 0; j < n; j++) {
            out[pf + j].cards = keys[j].cards;
            out[pf + j].code = s->plays[keys[j].idx].code;
            out[pf + j].n = keys[j].n;
        }
        if (keys != stack_keys)
            free(keys);
    }
    r->ncand = n + pf;
    r->page = 0;
    if (r->ncand <= b->k) {
        r->per_page = b->k;
        r->pages = 1;
    } else {
        r->per_page = b->k - 1;
        r->pages = (r->ncand + b->k - 2) / (b->k - 1);
    }
    r->listed = 1;
    return 0;
}
