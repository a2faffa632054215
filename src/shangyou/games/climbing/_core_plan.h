/* The playout policy's plans (_core_plan.c), for the playouts (_core_playout.c). */

#ifndef SHANGYOU_CORE_PLAN_H
#define SHANGYOU_CORE_PLAN_H

#include <stdint.h>

#define MAX_PLAN_COUNT 15          /* cards of one rank a plan's key can hold */

static const double RANK_COST[N_RANKS] = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
                                          0.85, 0.7, 0.45, 0.3, 0.25};

/* a plan's first group and the key of what it leaves */
typedef struct {
    double cost;
    uint64_t rest;
    unsigned char kind, lo, hi, k;
} PlanResult;

/* one group of a plan: 's' k cards of rank lo, 'q' a sequence lo..hi, 'm' k cards of each
   rank lo..hi */
typedef struct {
    unsigned char kind, lo, hi, k;
} Group;

int plan_ready(void);                                   /* 0, or -1 with MemoryError */
void plan_of(const int *counts, PlanResult *out);
int plan_groups(const int *counts, double *cost, Group *groups);
double group_cost(const Group *g);
int group_len(const Group *g);

#endif
