/* vu_api.c - the accessors of engine/vu_api.h (the running VU, its identity,
 * the worker's loop, state and statistics) and vu_wait, the one way a
 * binding suspends a VU on an operation.  The operations themselves (record,
 * resume, sleep) are vu.c's and worker.c's; this file holds no state. */
#include "engine/vu_api.h"

#include <assert.h>

#include "engine/vu.h"
#include "engine/worker.h"

vu *vu_current(worker *w) { return w ? w->current : NULL; }
lua_State *vu_lua(const vu *v) { return v->L; }
worker *vu_worker(const vu *v) { return v->w; }
int vu_id(const vu *v) { return v->id; }
int vu_group(const vu *v) { return v->group; }
int vu_index(const vu *v) { return v->index; }
uint64_t vu_iterations(const vu *v) { return v->iterations; }
uint64_t vu_slept_ns(const vu *v) { return v->slept_ns; }
int *vu_binding_ref(vu *v) { return &v->timers_ref; }

/* The running VU yields; a completion's vu_resume wakes it. */
int vu_wait(vu *v, lua_State *L) {
    assert(v->w->current == v && v->L == L);
    vu_set_state(v, VU_WAITING);
    return lua_yield(L, 0);
}

stats_local *worker_stats(worker *w) { return &w->stats; }
uv_loop_t *worker_loop(worker *w) { return &w->loop; }
lua_State *worker_lua(worker *w) { return w->L; }
int worker_id(const worker *w) { return w->id; }
const scenario *worker_scenario(const worker *w) { return w->shared->sc; }
const params *worker_params(const worker *w) { return w->shared->params; }
void *worker_script_ctx(const worker *w) { return w->shared->script_ctx; }
