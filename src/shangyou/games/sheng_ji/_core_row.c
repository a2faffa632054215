/* The rules of one Sheng ji hand on a row (_core_row.h): the deal and its bids, the bury and
   kitty theft, the calls of Zhao Pengyou, the play of the tricks and the end of the hand, the
   listing of the legal moves. _core_batch.c says what each part follows in the Python game. */

#include "_core_row.h"
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ the deal */
static inline void
widen(const unsigned char *bytes, int *cnt)         /* byte counts as the core's ints */
{
    for (int c = 0; c < NCARD; c++)
        cnt[c] = bytes[c];
}

static inline void
counts_of(const unsigned char *cards, int n, int *cnt)
{
    memset(cnt, 0, NCARD * sizeof(int));
    for (int i = 0; i < n; i++)
        cnt[cards[i]]++;
}

static inline int
card_points(int c)
{
    int r = c >> 2;
    return c >= BJ ? 0 : r == 2 ? 5 : (r == 7 || r == 10) ? 10 : 0;
}


static int
has_bid(const SjRow *r, int seat)
{
    const unsigned char *cnt = r->hand[seat];
    int lv = r->level;
    int cands[6] = {lv * 4, lv * 4 + 1, lv * 4 + 2, lv * 4 + 3, BJ, RJ};
    int cur_tier = r->bid_card == RJ ? 2 : r->bid_card == BJ ? 1 : 0;
    for (int i = 0; i < 6; i++) {
        int c = cands[i], tier = c == RJ ? 2 : c == BJ ? 1 : 0;
        for (int k = i < 4 ? 1 : 2; k <= cnt[c]; k++) {
            if (r->bid_card < 0)
                return 1;
            if (r->bid_seat == seat) {
                if (c == r->bid_card && k > r->bid_count)
                    return 1;
            } else if (k > r->bid_count || (k == r->bid_count && tier > cur_tier)) {
                return 1;
            }
        }
    }
    return 0;
}

static void begin_deal(const SjRules *g, SjRow *r);

/* _kitty_order()[0]: the kitty's plain cards sorted, shuffled by
   random.Random(seed * 7 + hand_number) (hand 1) */
static int
first_kitty_card(const SjRow *r)
{
    unsigned char plain[MAXH];
    int np = 0;
    for (int i = 0; i < r->nkitty; i++)
        if (r->kitty[i] < BJ)
            plain[np++] = r->kitty[i];
    if (np == 0)
        return -1;
    sj_sort_codes(plain, np);
    MT g;
    mt_seed(&g, (uint64_t)r->game_seed * 7 + 1);
    for (int i = np - 1; i >= 1; i--) {
        int j = (int)mt_below(&g, (uint32_t)i + 1);
        unsigned char t = plain[i];
        plain[i] = plain[j];
        plain[j] = t;
    }
    return plain[0];
}

/* _give_kitty: the kitty into the seat's hand, to be buried */
static void
give_kitty(SjRow *r, int seat)
{
    for (int i = 0; i < r->nkitty; i++)
        r->hand[seat][r->kitty[i]]++;
    r->nhand[seat] += r->nkitty;
    r->kitty_owner = seat;
    r->nburied = 0;
    r->phase = PH_BURY;
    r->to_act = seat;
}

/* _end_deal and _give_kitty; 1 when a redeal began instead */
static int
end_deal(const SjRules *g, SjRow *r)
{
    int suit = -1;
    if (r->bid_card < 0) {
        if (g->no_bid == NO_BID_REDEAL) {
            begin_deal(g, r);
            return 1;
        }
        if (g->no_bid == NO_BID_KITTY) {
            int first = first_kitty_card(r);
            suit = first < 0 ? -1 : first & 3;
        }
        r->declarer = r->starter;
    } else {
        suit = r->bid_card >= BJ ? -1 : r->bid_card & 3;
        r->declarer = r->bid_seat;
    }
    r->has_trump = 1;
    r->trump_suit = suit;
    sj_ctx_make(&r->ctx, r->level, suit, g->red5);
    give_kitty(r, r->declarer);
    return 0;
}

/* _advance_deal: draw up to a drawer with a bid to make, then the last round, then the end */
static void
advance_deal(const SjRules *g, SjRow *r)
{
    int n = g->players;
    for (;;) {
        while (r->nstock > 0) {
            int seat = r->next_draw;
            r->hand[seat][r->stock[--r->nstock]]++;
            r->nhand[seat]++;
            r->next_draw = (seat + 1) % n;
            if (has_bid(r, seat)) {
                r->to_act = seat;
                return;
            }
        }
        if (r->final_at < 0)
            r->final_at = 0;
        while (r->final_at < n) {
            int seat = (r->starter + r->final_at++) % n;
            if (has_bid(r, seat)) {
                r->to_act = seat;
                return;
            }
        }
        if (!end_deal(g, r))
            return;
        /* a redeal: its draws */
    }
}

/* _start_hand from the game's generator (hand 1, or its redeal) */
static void
begin_deal(const SjRules *g, SjRow *r)
{
    int total = NCARD * g->decks;
    unsigned char cards[MAXDECK];
    for (int i = 0; i < total; i++)
        cards[i] = (unsigned char)(i % NCARD);
    for (int i = total - 1; i >= 1; i--) {                  /* random.shuffle */
        int j = (int)mt_below(SJ_GAME(r), (uint32_t)i + 1);
        unsigned char t = cards[i];
        cards[i] = cards[j];
        cards[j] = t;
    }
    r->nkitty = g->kitty;
    memcpy(r->kitty, cards, (size_t)g->kitty);
    r->nstock = total - g->kitty;
    memcpy(r->stock, cards + g->kitty, (size_t)r->nstock);
    memset(r->hand, 0, sizeof r->hand);
    memset(r->nhand, 0, sizeof r->nhand);
    r->level = g->start_level;
    r->has_trump = 0;
    r->trump_suit = -1;
    r->bid_card = -1;
    r->bid_seat = -1;
    r->bid_count = 0;
    r->next_draw = r->starter;
    r->final_at = -1;
    r->nburied = 0;
    r->kitty_owner = -1;
    r->theft_at = -1;
    r->phase = PH_DEAL;
    r->to_act = -1;
    advance_deal(g, r);
}

/* ShengJiGame(rules, seed, match=False) */
void
sj_row_deal(const SjRules *g, SjRow *r, uint32_t game_seed)
{
    r->game_seed = game_seed;
    mt_seed(SJ_GAME(r), game_seed);
    r->starter = (int)mt_below(SJ_GAME(r), (uint32_t)g->players);
    r->declarer = -1;
    memset(r->won, 0, sizeof r->won);
    memset(r->played, 0, sizeof r->played);
    r->ntrick = r->npending = 0;
    memset(r->pend_cnt, 0, sizeof r->pend_cnt);
    r->penalty = 0;
    r->ncalls = r->call_done = r->nfriends = 0;
    r->friend_mask = 0;
    memset(r->seen, 0, sizeof r->seen);
    r->over = 0;
    r->steps = 0;
    r->listed = 0;
    begin_deal(g, r);
}
/* ------------------------------------------------------------------------ the play */
int
sj_sort_codes(unsigned char *a, int n)
{
    for (int i = 1; i < n; i++) {
        unsigned char x = a[i];
        int j = i - 1;
        while (j >= 0 && a[j] > x) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = x;
    }
    return n;
}

/* kitty_multiplier of the last trick's lead */
static int
kitty_mult(const SjRules *g, const Ctx *t, const int *lead_cnt)
{
    SUnit units[MAXU];
    int nu = sj_decompose(t, lead_cnt, units);
    int best = 0, singles = 1;
    for (int i = 0; i < nu; i++) {
        int m = 2;
        if (units[i].width >= 2) {
            singles = 0;
            m = g->linear ? 2 * (units[i].length + 1) : 1 << (units[i].length + 1);
        }
        if (m > best)
            best = m;
    }
    if (g->linear && nu >= 2 && singles)
        return 3;
    return best;
}

/* scoring.next_level along 2..A (SJ index), stopping on a must-play rank */
static int
next_level(const SjRules *g, int rank, int steps)
{
    int i = sj_index(rank);
    for (int k = 0; k < steps; k++) {
        if (i == 12)
            break;
        i++;
        if (g->must_play >> ((i + 12) % 13) & 1)
            break;
    }
    return (i + 12) % 13;
}

/* _end_hand of one hand (no match): the scoring, the levels, the rewards' side */
static void
end_hand(const SjRules *g, SjRow *r, int last_winner, const int *lead_cnt, const unsigned char *win,
         int nwin)
{
    int n = g->players, opp_won = 0, kitty_pts = 0;
    for (int s = 0; s < n; s++)
        if (!declarers_side(g, r, s))
            opp_won += r->won[s];
    for (int i = 0; i < r->nkitty; i++)
        kitty_pts += card_points(r->kitty[i]);
    int mult = 0, bonus = 0;
    if (!declarers_side(g, r, last_winner) && kitty_pts) {
        mult = kitty_mult(g, &r->ctx, lead_cnt);
        bonus = kitty_pts * mult;
    }
    int total = opp_won + bonus + r->penalty, side_decl;
    int lv = (int)sj_level_change(total, 20 * g->decks, &side_decl);
    int hook = 0;
    if (g->jack_hook && !declarers_side(g, r, last_winner) && (r->level == 8 || r->level == 11)
            && nwin == 1 && (win[0] >> 2) == r->level)
        hook = 1;
    for (int s = 0; s < n; s++) {
        int mine = declarers_side(g, r, s) == side_decl;
        r->levels_after[s] = mine ? next_level(g, g->start_level, lv) : g->start_level;
    }
    if (hook)
        for (int s = 0; s < n; s++)
            if (declarers_side(g, r, s))
                r->levels_after[s] = r->level == 8 ? 12 : 8;
    r->side_decl = side_decl;
    r->change_levels = lv;
    r->total = total;
    r->won_opp = opp_won;
    r->kitty_pts = kitty_pts;
    r->mult = mult;
    r->hook = hook;
    r->last_winner = last_winner;
    memcpy(r->last_win, win, (size_t)nwin);
    r->nlast_win = nwin;
    r->over = 1;
    r->phase = PH_OVER;
    r->to_act = -1;
}

/* rewards_of: the levels the seat's side goes up, or minus those the other side goes up */
void
sj_row_rewards(const SjRules *g, const SjRow *r, double *out)
{
    double lv = (double)r->change_levels;
    for (int s = 0; s < g->players; s++)
        out[s] = (declarers_side(g, r, s) == r->side_decl) ? lv : -lv;
}

/* _end_trick; 0, or -1 where the core gave up on the trick's winner */
static int
end_trick(const SjRules *g, SjRow *r)
{
    int n = g->players;
    int tc[MAXP][NCARD];
    for (int p = 0; p < n; p++)
        counts_of(r->trick_cards[p], r->trick_n[p], tc[p]);
    int w = sj_trick_winner(&r->ctx, n, (const int (*)[NCARD])tc,
                            (const unsigned char (*)[MAXH])r->trick_cards, r->trick_n);
    if (w < 0)
        return -1;
    int winner = r->trick_seat[w], pts = 0;
    for (int p = 0; p < n; p++)
        for (int i = 0; i < r->trick_n[p]; i++) {
            pts += card_points(r->trick_cards[p][i]);
            r->played[r->trick_cards[p][i]]++;
        }
    r->won[winner] += pts;
    r->ntrick = 0;
    int left = 0;
    for (int s = 0; s < n; s++)
        left += r->nhand[s];
    if (left) {
        r->to_act = winner;
        return 0;
    }
    end_hand(g, r, winner, tc[0], r->trick_cards[w], r->trick_n[w]);
    return 0;
}

/* _after_kitty, _begin_play */
static void
after_kitty(const SjRules *g, SjRow *r)
{
    r->phase = g->friends ? PH_CALL : PH_PLAY;
    r->to_act = r->declarer;
}

/* _next_thief: the next seat of the theft round with a bid to make, else the play */
static void
next_thief(const SjRules *g, SjRow *r)
{
    while (r->theft_at > 0 && r->theft_at < g->players) {
        int s = (r->theft_base + r->theft_at++) % g->players;
        if (has_bid(r, s)) {
            r->to_act = s;
            return;
        }
    }
    r->theft_at = -1;
    after_kitty(g, r);
}

/* ShengJiGame._do for a move of ``kind`` and its cards; 0, or -1 (the trick's winner) */
int
sj_row_apply(const SjRules *g, SjRow *r, int kind, const unsigned char *mc, int nm)
{
    int seat = r->to_act, n = g->players;
    r->listed = 0;
    if (r->phase == PH_DEAL) {
        if (kind == E_BID) {
            r->bid_seat = seat;
            r->bid_card = mc[0];
            r->bid_count = nm;
        }
        advance_deal(g, r);
        return 0;
    }
    if (r->phase == PH_BURY && r->theft_at >= 0) {     /* kitty theft: pass or overcall */
        if (kind == E_BID) {
            r->bid_seat = seat;
            r->bid_card = mc[0];
            r->bid_count = nm;
            r->trump_suit = mc[0] >= BJ ? -1 : mc[0] & 3;
            sj_ctx_make(&r->ctx, r->level, r->trump_suit, g->red5);
            memcpy(r->kitty, r->buried, (size_t)r->nburied);   /* the cards buried */
            r->nkitty = r->nburied;
            r->theft_at = -1;
            give_kitty(r, seat);
            return 0;
        }
        next_thief(g, r);
        return 0;
    }
    if (r->phase == PH_BURY) {
        int c = mc[0];
        r->hand[seat][c]--;
        r->nhand[seat]--;
        r->buried[r->nburied++] = (unsigned char)c;
        if (r->nburied < g->kitty)
            return 0;
        memcpy(r->kitty, r->buried, (size_t)r->nburied);    /* sorted where it matters */
        r->nkitty = r->nburied;
        if (g->kitty_theft) {               /* the others, in turn from the burier's left */
            r->theft_base = seat;
            r->theft_at = 1;
            next_thief(g, r);
            return 0;
        }
        after_kitty(g, r);
        return 0;
    }
    if (r->phase == PH_CALL) {
        r->call_card[r->ncalls] = mc[0];
        r->call_ord[r->ncalls++] = mc[1];
        if (r->ncalls >= g->friends)
            r->phase = PH_PLAY;
        return 0;
    }
    const Ctx *t = &r->ctx;
    unsigned char cards[MAXH];
    int nc = 0;
    if (kind == E_THROW) {
        r->pending[r->npending++] = mc[0];
        r->pend_cnt[mc[0]]++;
        return 0;
    }
    if (kind == E_PICK) {
        r->pending[r->npending++] = mc[0];
        r->pend_cnt[mc[0]]++;
        int nl = r->trick_n[0], suit = t->eff[r->trick_cards[0][0]], mine = 0;
        for (int c = 0; c < NCARD; c++)
            if (t->eff[c] == suit)
                mine += r->hand[seat][c];
        if (mine > nl) {
            if (r->npending < nl)
                return 0;
            memcpy(cards, r->pending, (size_t)r->npending);
            nc = r->npending;
        } else {
            if (r->npending + mine < nl)
                return 0;
            for (int c = 0; c < NCARD; c++)
                if (t->eff[c] == suit)
                    for (int k = 0; k < r->hand[seat][c]; k++)
                        cards[nc++] = (unsigned char)c;
            memcpy(cards + nc, r->pending, (size_t)r->npending);
            nc += r->npending;
        }
    } else {                                /* commit, or a whole play */
        memcpy(cards, r->pending, (size_t)r->npending);
        nc = r->npending;
        if (kind == E_PLAY) {
            memcpy(cards + nc, mc, (size_t)nm);
            nc += nm;
        }
    }
    r->npending = 0;
    memset(r->pend_cnt, 0, sizeof r->pend_cnt);
    sj_sort_codes(cards, nc);
    int cnt[NCARD] = {0};
    for (int i = 0; i < nc; i++)
        cnt[cards[i]]++;
    if (r->ntrick == 0) {                   /* _lead: a throw checked */
        SUnit units[MAXU];
        int nu = sj_decompose(t, cnt, units);
        if (nu > 1) {
            int others[MAXP][NCARD], no = 0;
            for (int s = 0; s < n; s++)
                if (s != seat)
                    widen(r->hand[s], others[no++]);
            int f = sj_throw_check(t, units, nu, t->eff[cards[0]],
                                   (const int (*)[NCARD])others, no);
            if (f >= 0) {
                if (g->throw_penalty)
                    r->penalty += declarers_side(g, r, seat) ? g->throw_penalty
                                                               : -g->throw_penalty;
                nc = units[f].n;
                memcpy(cards, units[f].cards, (size_t)nc);
                memset(cnt, 0, sizeof cnt);
                for (int i = 0; i < nc; i++)
                    cnt[cards[i]]++;
            }
        }
    }
    for (int c = 0; c < NCARD; c++)
        r->hand[seat][c] -= cnt[c];
    r->nhand[seat] -= nc;
    int p = r->ntrick++;
    r->trick_seat[p] = seat;
    r->trick_n[p] = nc;
    memcpy(r->trick_cards[p], cards, (size_t)nc);
    if (g->friends)                         /* _note_friends */
        for (int i = 0; i < nc; i++) {
            int c = cards[i];
            r->seen[c]++;
            for (int j = 0; j < r->ncalls; j++)
                if (r->call_card[j] == c && r->call_ord[j] == r->seen[c]
                        && !(r->call_done >> j & 1)) {
                    r->call_done |= 1 << j;
                    if (seat != r->declarer && !(r->friend_mask >> seat & 1)) {
                        r->friend_mask |= 1u << seat;
                        r->friends[r->nfriends++] = seat;
                    }
                }
        }
    if (r->ntrick < n) {
        r->to_act = (seat + 1) % n;
        return 0;
    }
    return end_trick(g, r);
}

/* ------------------------------------------------------------------------ the listing */
static int
add(Sink *s, int kind, const unsigned char *cards, int n)
{
    return sj_sink_add(s, kind, cards, n);
}

/* ShengJiGame._list_moves into the scratch sink, in the game's order; the kinds are the env's
   (E_*). 0, or -1 without memory */
int
sj_row_list(const SjRules *g, const SjRow *r, Sink *s)
{
    s->n = 0;
    s->pool_n = 0;
    int seat = r->to_act;
    int hand[NCARD];
    widen(r->hand[seat], hand);
    if (r->phase == PH_DEAL || (r->phase == PH_BURY && r->theft_at >= 0)) {
        if (add(s, E_PASS, NULL, 0) < 0)
            return -1;
        int lv = r->level;
        int cands[6] = {lv * 4, lv * 4 + 1, lv * 4 + 2, lv * 4 + 3, BJ, RJ};
        int cur_tier = r->bid_card == RJ ? 2 : r->bid_card == BJ ? 1 : 0;
        unsigned char same[MAXH];
        for (int i = 0; i < 6; i++) {
            int c = cands[i], tier = c == RJ ? 2 : c == BJ ? 1 : 0;
            for (int k = i < 4 ? 1 : 2; k <= hand[c]; k++) {
                int legal = r->bid_card < 0 ? 1
                            : r->bid_seat == seat ? c == r->bid_card && k > r->bid_count
                            : k > r->bid_count || (k == r->bid_count && tier > cur_tier);
                if (!legal)
                    continue;
                memset(same, c, (size_t)k);
                if (add(s, E_BID, same, k) < 0)
                    return -1;
            }
        }
        return 0;
    }
    const Ctx *t = &r->ctx;
    unsigned char buf[NCARD];
    int nb = 0;
    if (r->phase == PH_CALL) {                          /* _callable */
        for (int c = 0; c < BJ; c++)
            if (t->eff[c] != TRUMP)
                for (int o = 1; o <= g->decks; o++) {
                    unsigned char item[2] = {(unsigned char)c, (unsigned char)o};
                    if (add(s, E_CALL, item, 2) < 0)
                        return -1;
                }
        return 0;
    }
    if (r->phase == PH_BURY) {
        for (int c = 0; c < NCARD; c++)
            if (hand[c])
                buf[nb++] = (unsigned char)c;
        sj_sort_by_key(t, buf, nb);
        for (int i = 0; i < nb; i++)
            if (add(s, E_BURY, &buf[i], 1) < 0)
                return -1;
        return 0;
    }
    if (r->ntrick == 0) {                               /* leading */
        if (r->npending) {                              /* a throw being built */
            if (add(s, E_COMMIT, NULL, 0) < 0)
                return -1;
            int suit = t->eff[r->pending[0]];
            for (int c = 0; c < NCARD; c++)
                if (hand[c] - r->pend_cnt[c] > 0 && t->eff[c] == suit)
                    buf[nb++] = (unsigned char)c;
        } else {
            if (sj_lead_units(t, hand, g->decks, s) < 0)
                return -1;
            for (Py_ssize_t i = 0; i < s->n; i++)
                s->kind[i] = E_PLAY;
            for (int c = 0; c < NCARD; c++)
                if (hand[c])
                    buf[nb++] = (unsigned char)c;
        }
        sj_sort_by_key(t, buf, nb);
        for (int i = 0; i < nb; i++)
            if (add(s, E_THROW, &buf[i], 1) < 0)
                return -1;
        return 0;
    }
    SUnit units[MAXU];
    int nl = r->trick_n[0];
    int lead[NCARD];
    counts_of(r->trick_cards[0], nl, lead);
    int nu = sj_decompose(t, lead, units);
    if (nu <= 0)
        return -1;
    if (!r->npending) {
        int rc = sj_follows(t, hand, lead, nl, units, nu, FOLLOW_LIMIT, s);
        if (rc < 0)
            return -1;
        if (rc == 1) {
            for (Py_ssize_t i = 0; i < s->n; i++)
                s->kind[i] = E_PLAY;
            return 0;
        }
        s->n = 0;                                       /* too many: card by card */
        s->pool_n = 0;
    }
    nb = sj_next_cards(t, hand, lead, nl, units, nu, r->pend_cnt, buf);
    sj_sort_by_key(t, buf, nb);
    for (int i = 0; i < nb; i++)
        if (add(s, E_PICK, &buf[i], 1) < 0)
            return -1;
    return 0;
}
