/* Python's Mersenne Twister (random.Random(int): init_by_array, getrandbits, _randbelow),
   written out so that a row of a batch engine (or any C code of a core) deals and draws as
   the Python games and environments do, without the GIL. Shared by the batch engines
   (_batch_pool.h includes it) and the row rules they step (sheng_ji/_core_row.c).

   Everything here is static: each file that includes it has its own copy (the functions are
   inline, so a file that uses only some of them gets no warning). */
#ifndef SHANGYOU_MT_H
#define SHANGYOU_MT_H

#include <pthread.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    uint32_t mt[624];
    int mti;                    /* the next word to draw (624: twist first) */
    int tw;                     /* words 0 .. tw - 1 of this twist are twisted (mt_next) */
} MT;

static inline void
mt_init_genrand(MT *s, uint32_t seed)
{
    s->mt[0] = seed;
    for (int i = 1; i < 624; i++)
        s->mt[i] = 1812433253U * (s->mt[i - 1] ^ (s->mt[i - 1] >> 30)) + (uint32_t)i;
    s->mti = 624;
    s->tw = 624;
}

/* init_by_array's starting state, init_genrand(19650218), the same for every seed: made once
   (by the first mt_seed of the process's copy of this file, whichever thread runs it) and
   copied */
static MT mt_base;
static pthread_once_t mt_base_once = PTHREAD_ONCE_INIT;

static void
mt_make_base(void)
{
    mt_init_genrand(&mt_base, 19650218U);
}

/* random.Random(seed) for a whole number 0 <= seed < 2**64 (random_seed: the words of
   abs(seed), least significant first, then init_by_array) */
static inline void
mt_seed(MT *s, uint64_t seed)
{
    /* init_by_array with a key of one or two words, its index wrap-arounds unrolled: the
       first pass runs over words 1..623 then word 1 again (key word t % len at step t), the
       second over words 2..623 then word 1 again, each carrying the word just made */
    uint32_t add[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    unsigned int odd = add[1] ? 1u : 0u;        /* len - 1: the key's second word is used */
    add[1] = odd ? add[1] + 1u : add[0];        /* key[j] + j */
    pthread_once(&mt_base_once, mt_make_base);
    *s = mt_base;
    uint32_t *mt = s->mt, prev = mt[0];
    for (int i = 1; i < 624; i++)
        mt[i] = prev = (mt[i] ^ ((prev ^ (prev >> 30)) * 1664525U)) + add[(i - 1) & odd];
    mt[0] = prev;
    mt[1] = prev = (mt[1] ^ ((prev ^ (prev >> 30)) * 1664525U)) + add[623 & odd];
    for (int i = 2; i < 624; i++)
        mt[i] = prev = (mt[i] ^ ((prev ^ (prev >> 30)) * 1566083941U)) - (uint32_t)i;
    mt[0] = prev;
    mt[1] = (mt[1] ^ ((prev ^ (prev >> 30)) * 1566083941U)) - 1u;
    mt[0] = 0x80000000U;
}

/* words from .. to - 1 of a twist made new (word kk from words kk + 1 and kk + 397 of the old
   state, or the new word kk - 227): the twist in order, in three straight runs */
static inline void
mt_twist_range(uint32_t *mt, int from, int to)
{
    uint32_t y;
    int kk = from, end = to < 624 - 397 ? to : 624 - 397;
    for (; kk < end; kk++) {
        y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
        mt[kk] = mt[kk + 397] ^ (y >> 1) ^ (-(y & 1U) & 0x9908b0dfU);
    }
    end = to < 623 ? to : 623;
    for (; kk < end; kk++) {
        y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
        mt[kk] = mt[kk + (397 - 624)] ^ (y >> 1) ^ (-(y & 1U) & 0x9908b0dfU);
    }
    if (kk < to) {
        y = (mt[623] & 0x80000000U) | (mt[0] & 0x7fffffffU);
        mt[623] = mt[396] ^ (y >> 1) ^ (-(y & 1U) & 0x9908b0dfU);
    }
}

/* the twist a draw is about to begin, made whole at once (for a generator that will draw
   many of its words, such as a deal's: cheaper than word by word) */
static inline void
mt_twist_now(MT *s)
{
    if (s->mti >= 624) {
        mt_twist_range(s->mt, 0, 624);
        s->mti = 0;
        s->tw = 624;
    }
}

/* the next word of genrand_uint32. The state is twisted one word at a time as the words are
   drawn (word kk's new value needs words kk + 1 and kk + 397 of the old state, or the new
   word kk - 227: in order, each is there when needed), which gives the words of the whole
   twist while a generator that draws a few dozen words (a deal, an opponent's hand) does not
   pay for the other six hundred */
static inline uint32_t
mt_next(MT *s)
{
    if (s->mti >= 624)
        s->mti = s->tw = 0;             /* a new twist begins */
    uint32_t *mt = s->mt;
    int kk = s->mti++;
    uint32_t y;
    if (kk >= s->tw) {            /* (below tw: twisted already, a state set from getstate) */
        mt_twist_range(mt, kk, kk + 1);
        s->tw = kk + 1;
    }
    y = mt[kk];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

/* the state Python's random.Random.getstate() gives for this generator: its 624 words, each
   twist finished (the words this twist has not drawn yet are twisted here, in a copy, as
   mt_next would twist them), then the index of the next word */
static inline void
mt_state_words(const MT *s, uint32_t out[625])
{
    memcpy(out, s->mt, 624 * sizeof(uint32_t));
    if (s->mti < 624)
        mt_twist_range(out, s->tw, 624);
    out[624] = (uint32_t)s->mti;
}

/* Random._randbelow_with_getrandbits(n), 1 <= n <= 2**31 (getrandbits(k), k <= 32) */
static inline uint32_t
mt_below(MT *s, uint32_t n)
{
    int k = 32 - __builtin_clz(n);          /* the bit length of n (n >= 1) */
    uint32_t r;
    do {
        r = mt_next(s) >> (32 - k);
    } while (r >= n);
    return r;
}

#endif
