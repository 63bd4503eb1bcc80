/* run_result.c - frees what a run_result holds (its merged statistics).
 * Filling it is the engine's work; reading it the reports'. */
#include "stats/run_result.h"

#include <stdlib.h>

void run_result_free(run_result *r) {
    agg_free(&r->agg);
    free(r->workers_at);
    r->workers_at = NULL;
    r->nworkers_at = 0;
}
