/* The hand's play state held in C behind the game: the Held object shared by _core_hand.c
   (taking the hand, making its attributes again, the listing) and _core_hand_play.c (a
   move). See _core_hand.c. */
#ifndef SJ_CORE_HAND_H
#define SJ_CORE_HAND_H

#include "_core.h"

enum { EV_PLAY, EV_TRICK, EV_FAILED, EV_OBJ, EV_FRIEND };
#define MAXCALLS 8

typedef struct { int seat, off, n; } PlayRec;                  /* cards in the pool */
typedef struct { int kind, seat, pts, play, off, n; PyObject *obj; } EvRec;  /* EV_OBJ: obj */
typedef struct { int winner, first, n; } TrickRec;            /* plays[first .. first + n) */
typedef struct { int seat; PyObject *move; } LogRec;

typedef struct {
    PyObject_HEAD
    int valid;                          /* the hand's attributes are held */
    int rec;                            /* the records (events, log, tricks) are held */
    int won_from;                       /* the tricks whose cards are in ``won`` already */
    int n, decks, friends, to_act;
    int bury, to_bury, theft;           /* the kitty being buried (no theft): how many; the
                                           rules' kitty_theft */
    int calling;                        /* Zhao Pengyou's calls being made (the declarer's) */
    int ended;                          /* the game over on the last trick (nothing to list:
                                           the attributes are made again first) */
    PyObject *buried_o;                 /* then the game's ``buried`` (a slot) */
    Py_ssize_t dsize;                   /* the dict's size once taken: a name set since shows */
    Ctx ctx;
    unsigned char hand[MAXSEATS][MAXH];                 /* in the game's order */
    int nhand[MAXSEATS], hcnt[MAXSEATS][NCARD];
    unsigned char pend[MAXH];
    int np;
    PlayRec *plays;                     /* the trick's plays when taken, then every play */
    int nplays, cap_plays, trick_start;
    unsigned char *pool;
    int npool, cap_pool;
    EvRec *evs;
    int nevs, cap_evs;
    TrickRec *tricks;
    int ntricks, cap_tricks;
    LogRec *log;
    int nlog, cap_log;
    int seen[NCARD], seen0[NCARD];      /* Zhao Pengyou: the cards seen (now, when taken) */
    int ncalls, call_o[MAXCALLS], call_c[MAXCALLS], call_done[MAXCALLS], declarer;
    PyObject *friends_o, *results_o;    /* Zhao Pengyou: ``friends``, ``call_results`` */
    PyObject *hands, *won, *events, *moves, *tricks_o, *seen_o, *legal, *token;
} Held;

extern PyObject *sj_S_end_hand, *sj_S_friend, *sj_S_call;   /* "_end_hand", "friend", "call" */
extern PyObject *sj_S_kitty, *sj_S_leader, *sj_S_start_hand;  /* "kitty", "leader", "_start_hand" */

/* the game's Held (borrowed), or NULL (none: another class, or not made yet) */
extern Py_ssize_t sj_to_act_off;         /* the bound class's ``to_act`` slot, -1 unbound */
extern PyObject *sj_S_to_act_name;       /* "to_act" */
extern PyTypeObject *sj_game_type;       /* the bound class (ShengJiGame) */
Held *sj_held_of(PyObject *game);
/* the attributes made again: the hand's, and with ``all`` the records' too; 1 made, 0 none
   held, -1 error */
int sj_held_flush_part(PyObject *game, int all);
/* 1: still held; 0: a name was set in the game's dict since (the held state let go); -1 */
int sj_held_still(PyObject *game, Held *h);
/* *arr grown to hold ``need`` items of ``size`` bytes; 0, or -1 with MemoryError */
int sj_held_grow(void **arr, int *cap, int need, size_t size);

#define GROW(arr, n, cap, need) \
    ((n) + (need) <= (cap) || \
     sj_held_grow((void **)&(arr), &(cap), (n) + (need), sizeof *(arr)) == 0)

#endif
