/* budget.h - a worker's share of the run's transaction budget (--requests,
 * engine_quotas): a count taken once per transaction start, on the worker's
 * own thread only, so it needs no lock.  The start that takes the last one
 * learns it from budget_take and its caller ends the starts at once
 * (worker_budget_spent); nothing else is kept here. */
#ifndef LUAMECH_BUDGET_H
#define LUAMECH_BUDGET_H

#include <stdint.h>

typedef struct budget {
    int64_t left;                  /* transactions this worker may still start; -1 = unbounded */
} budget;

static inline void budget_init(budget *b, int64_t n) { b->left = n; }
/* One transaction starts: 1 when it took the last one of the budget. */
static inline int budget_take(budget *b) { return b->left > 0 && --b->left == 0; }
/* No transaction may start any more. */
static inline int budget_spent(const budget *b) { return b->left == 0; }

#endif
