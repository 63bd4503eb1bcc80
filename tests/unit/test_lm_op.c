/* test_lm_op.c - the bindings' operation pattern and registry of pooled
 * clients (src/lua/lm_op.c) on a fake engine: this file defines the
 * engine/vu_api.h functions lm_op.c uses (a VU is a coroutine and flags; a
 * "client" is the test calling lm_op_request_done), and the executable is
 * built from lm_op.c alone (tests/CMakeLists.txt), so the pattern needs
 * nothing of the engine but the narrow API.  Checked: completion inside
 * the call (results returned, no wait, no resume), completion from the loop
 * (one wait, results pushed on the VU's stack, one resume with their
 * count), a stopped VU (results dropped, no resume), several requests (the
 * last completes), timing from the start's clock read (less a binding's
 * own set-up time, under several timers at once), op reuse and teardown, a
 * dropped op (its call raised after sending: completions only give it
 * back), the anchor that keeps values alive while an op is in flight; the
 * registry's key equality field by field, reuse, copies of the key's
 * strings and teardown. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <lauxlib.h>
#include <lualib.h>

#include "lua/lm_op.h"

/* ---- the fake engine ---- */

struct vu {
    lua_State *L;
    int done;          /* stopped: takes no results */
    int waits, resumes, resume_nargs, records;
    int last_tid, last_ok;
    int64_t last_dur_ns;
};
static uint64_t fake_now_ns;     /* the clock; tests set it (test-local, one thread) */

uint64_t worker_now_ns(void) { return fake_now_ns; }
lua_State *vu_lua(const vu *v) { return v->L; }
int vu_wants_resume(const vu *v) { return !v->done; }
int vu_wait(vu *v, lua_State *L) {
    assert_ptr_equal(L, v->L);
    v->waits++;
    return -1;                   /* what the binding returns: a marker here */
}
void vu_resume(vu *v, int nargs) {
    assert_true(lua_gettop(v->L) >= nargs);
    v->resumes++;
    v->resume_nargs = nargs;
}
void vu_record(vu *v, int tid, int64_t dur_ns, uint64_t now_ns, int ok) {
    (void)now_ns;
    v->records++;
    v->last_tid = tid;
    v->last_dur_ns = dur_ns;
    v->last_ok = ok;
}
void vu_record_count(vu *v, int tid, int64_t dur_ns, uint64_t now_ns, int ok, int64_t count) {
    for (int64_t i = 0; i < count; i++) vu_record(v, tid, dur_ns, now_ns, ok);
}

/* ---- a fake binding: its op pushes "done" and the number of requests ---- */

typedef struct fake_op {
    lm_op core;
    int nreq;
    char *buffer;      /* kept across uses, freed by fini */
} fake_op;
static int fake_fini_calls;

static int fake_push(lm_op *op, lua_State *L) {
    lua_pushstring(L, "done");
    lua_pushinteger(L, ((fake_op *)op)->nreq);
    return 2;
}
static void fake_fini(lm_op *op) {
    free(((fake_op *)op)->buffer);
    fake_fini_calls++;
}

typedef struct fixture { lua_State *L; vu v; lm_op_pool pool; } fixture;

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    f->L = luaL_newstate();
    f->v.L = f->L;
    lm_op_pool_init(&f->pool, sizeof(fake_op), fake_push, fake_fini);
    fake_fini_calls = 0;
    *state = f;
    return 0;
}
static int teardown(void **state) {
    fixture *f = *state;
    lm_op_pool_free(&f->pool);
    lua_close(f->L);
    free(f);
    return 0;
}

static fake_op *start(fixture *f, int nreq) {
    fake_op *op = (fake_op *)lm_op_get(&f->pool);
    assert_non_null(op);
    op->nreq = nreq;
    lm_op_start(&op->core, &f->v, f->L, nreq);
    return op;
}

/* A client that fails at once completes inside the call: the call returns. */
static void test_completed_inside_call(void **state) {
    fixture *f = *state;
    lua_pushstring(f->L, "arg");           /* the call's argument stays below */
    fake_op *op = start(f, 1);
    assert_int_equal(op->core.base, 1);
    assert_int_equal(lm_op_request_done(&op->core), 1);
    assert_int_equal(f->pool.out, 1);      /* still the call's until finish */
    assert_int_equal(lm_op_finish_call(&op->core, f->L), 2);
    assert_string_equal(lua_tostring(f->L, -2), "done");
    assert_int_equal(f->v.waits, 0);
    assert_int_equal(f->v.resumes, 0);
    assert_int_equal(f->pool.out, 0);
    assert_ptr_equal(f->pool.free, &op->core);
}

/* The usual path: wait, then the loop completes, pushes and resumes once. */
static void test_completed_from_loop(void **state) {
    fixture *f = *state;
    fake_now_ns = 1000;
    fake_op *op = start(f, 1);
    assert_int_equal(lm_op_finish_call(&op->core, f->L), -1);   /* vu_wait's value */
    assert_int_equal(f->v.waits, 1);
    lua_settop(f->L, 0);                   /* the yielded coroutine's stack */
    fake_now_ns = 1750;
    lm_op_record(&op->core, 7, 1);
    assert_int_equal(f->v.last_dur_ns, 750);
    assert_int_equal(f->v.last_tid, 7);
    assert_ptr_equal(lm_op_stack(&op->core), f->L);
    assert_int_equal(lm_op_request_done(&op->core), 1);
    assert_int_equal(f->v.resumes, 1);
    assert_int_equal(f->v.resume_nargs, 2);
    assert_string_equal(lua_tostring(f->L, 1), "done");
    assert_int_equal(f->pool.out, 0);
}

/* A VU stopped while its op was pending takes no results and is not resumed. */
static void test_stopped_vu(void **state) {
    fixture *f = *state;
    fake_op *op = start(f, 1);
    lm_op_finish_call(&op->core, f->L);
    lua_settop(f->L, 0);
    f->v.done = 1;
    assert_null(lm_op_stack(&op->core));
    assert_int_equal(lm_op_request_done(&op->core), 1);
    assert_int_equal(f->v.resumes, 0);
    assert_int_equal(lua_gettop(f->L), 0);
    assert_int_equal(f->pool.out, 0);
}

/* Several requests: only the last completes the op; ops are reused. */
static void test_several_requests_and_reuse(void **state) {
    fixture *f = *state;
    fake_op *op = start(f, 3);
    op->buffer = malloc(16);
    lm_op_finish_call(&op->core, f->L);
    lua_settop(f->L, 0);
    assert_int_equal(lm_op_request_done(&op->core), 0);
    assert_int_equal(lm_op_request_done(&op->core), 0);
    assert_int_equal(f->v.resumes, 0);
    assert_int_equal(lm_op_request_done(&op->core), 1);
    assert_int_equal(f->v.resumes, 1);
    assert_int_equal(lua_tointeger(f->L, 2), 3);
    fake_op *again = (fake_op *)lm_op_get(&f->pool);
    assert_ptr_equal(again, op);           /* from the free list, not malloc */
    assert_int_equal(again->core.pending, 0);   /* the pattern's part is reset */
    assert_int_equal(again->core.in_call, 0);
    assert_non_null(again->buffer);        /* the binding's buffer survives */
    fake_op *other = (fake_op *)lm_op_get(&f->pool);
    assert_ptr_not_equal(other, again);
    assert_null(other->buffer);            /* a new op is zeroed */
    assert_int_equal(f->pool.out, 2);
    lm_op_put(&other->core);
    lm_op_put(&again->core);
    lm_op_pool_free(&f->pool);
    assert_int_equal(fake_fini_calls, 2);  /* each pooled op's buffer freed */
    assert_null(f->pool.free);
}

/* The call raised after sending 1 of 3 requests: the 2 unsent never
 * complete, the sent one's completion resumes nobody and gives the op back;
 * with nothing in flight a dropped op is back at once. */
static void test_dropped(void **state) {
    fixture *f = *state;
    fake_op *op = start(f, 3);
    lm_op_drop(&op->core, 2);
    assert_null(lm_op_stack(&op->core));
    assert_int_equal(f->pool.out, 1);
    lua_settop(f->L, 0);
    assert_int_equal(lm_op_request_done(&op->core), 1);
    assert_int_equal(f->v.resumes, 0);
    assert_int_equal(lua_gettop(f->L), 0);
    assert_int_equal(f->pool.out, 0);
    op = start(f, 2);
    assert_int_equal(lm_op_request_done(&op->core), 0);   /* completed inside the call */
    lm_op_drop(&op->core, 1);
    assert_int_equal(f->pool.out, 0);
    assert_int_equal(f->v.waits, 0);
}

/* Several timers, one clock read, less the binding's own time (never below
 * 0); negative ids are none. */
static void test_record_less(void **state) {
    fixture *f = *state;
    fake_now_ns = 1000;
    fake_op *op = start(f, 1);
    fake_now_ns = 5000;
    const int tids[3] = {4, -1, 9};
    lm_op_record_less(&op->core, tids, 3, 1500, 1);
    assert_int_equal(f->v.records, 2);
    assert_int_equal(f->v.last_tid, 9);
    assert_int_equal(f->v.last_dur_ns, 2500);
    lm_op_record_less(&op->core, tids, 1, 99999, 0);
    assert_int_equal(f->v.last_tid, 4);
    assert_int_equal(f->v.last_dur_ns, 0);
    assert_int_equal(f->v.last_ok, 0);
    lm_op_request_done(&op->core);
    lm_op_finish_call(&op->core, f->L);
}

/* count samples in one call: each counted, the duration from the op's
 * start to the given time (the clock when 0). */
static void test_record_count(void **state) {
    fixture *f = *state;
    fake_now_ns = 1000;
    fake_op *op = start(f, 1);
    lm_op_record_count(&op->core, 7, 1, 4000, 3);
    assert_int_equal(f->v.records, 3);
    assert_int_equal(f->v.last_tid, 7);
    assert_int_equal(f->v.last_dur_ns, 3000);
    fake_now_ns = 1500;
    lm_op_record_count(&op->core, 8, 0, 0, 2);
    assert_int_equal(f->v.records, 5);
    assert_int_equal(f->v.last_dur_ns, 500);
    assert_int_equal(f->v.last_ok, 0);
    lm_op_request_done(&op->core);
    lm_op_finish_call(&op->core, f->L);
}

/* 1 when the table in the weak registry slot `probe` was collected. */
static int collected(lua_State *L, int probe) {
    lua_gc(L, LUA_GCCOLLECT, 0);
    lua_gc(L, LUA_GCCOLLECT, 0);
    lua_rawgeti(L, LUA_REGISTRYINDEX, probe);
    lua_pushinteger(L, 1);
    lua_rawget(L, -2);
    int gone = lua_isnil(L, -1);
    lua_pop(L, 2);
    return gone;
}

/* The anchor keeps a value alive while the op is in flight (its stack may
 * be gone), lets it go when released, and keeps its registry slot across
 * reuse (no reference made per request). */
static void test_anchor(void **state) {
    fixture *f = *state;
    lua_State *L = f->L;
    lua_newtable(L);                        /* the probe: a table of weak values */
    lua_newtable(L);
    lua_pushliteral(L, "v");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    int probe = luaL_ref(L, LUA_REGISTRYINDEX);
    fake_op *op = start(f, 1);
    lua_newtable(L);                        /* the object in flight */
    lua_rawgeti(L, LUA_REGISTRYINDEX, probe);
    lua_pushinteger(L, 1);
    lua_pushvalue(L, -3);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    lm_op_anchor(&op->core, L, -1, 0);     /* relative index: the object on top */
    int slot = op->core.anchor;
    assert_true(slot > 0);
    lua_settop(L, 0);                       /* the coroutine's stack is gone */
    assert_false(collected(L, probe));
    lm_op_anchor(&op->core, L, 0, 0);
    assert_true(collected(L, probe));
    lm_op_request_done(&op->core);
    lm_op_finish_call(&op->core, L);
    fake_op *again = (fake_op *)lm_op_get(&f->pool);
    assert_ptr_equal(again, op);
    assert_int_equal(again->core.anchor, slot);
    lm_op_put(&again->core);
}

/* ---- registry ---- */

static lm_pool_key base_key(void) {
    lm_pool_key k = {.address = "127.0.0.1:6379", .timeout_ns = 5000000000ULL,
                     .connect_timeout_ns = 1000000000ULL, .opt = {3, 64, 0, 7},
                     .secret = "pw", .tls = "", .str = {"a/greeter.proto", "x-user\x1f" "ann\x1e"}};
    return k;
}

static void test_key_equality(void **state) {
    (void)state;
    lm_pool_key a = base_key(), b = base_key();
    char addr[] = "127.0.0.1:6379";
    b.address = addr;                       /* equal by content, not pointer */
    assert_true(lm_pool_key_equal(&a, &b));
    b = base_key(); b.address = "127.0.0.1:6380";     assert_false(lm_pool_key_equal(&a, &b));
    b = base_key(); b.timeout_ns++;                   assert_false(lm_pool_key_equal(&a, &b));
    b = base_key(); b.connect_timeout_ns++;           assert_false(lm_pool_key_equal(&a, &b));
    for (int i = 0; i < 6; i++) {
        b = base_key(); b.opt[i]++;                   assert_false(lm_pool_key_equal(&a, &b));
    }
    b = base_key(); b.secret = NULL;                  assert_false(lm_pool_key_equal(&a, &b));
    b = base_key(); b.secret = "";                    assert_false(lm_pool_key_equal(&a, &b));
    b = base_key(); b.tls = "ca=/x";                  assert_false(lm_pool_key_equal(&a, &b));
    b = base_key(); b.tls = NULL;                     assert_true(lm_pool_key_equal(&a, &b));
    for (int i = 0; i < LM_POOL_KEY_STRS; i++) {     /* string options: by content, NULL apart from "" */
        b = base_key(); b.str[i] = "b/greeter.proto"; assert_false(lm_pool_key_equal(&a, &b));
        b = base_key(); b.str[i] = NULL;              assert_int_equal(lm_pool_key_equal(&a, &b), a.str[i] == NULL);
        b = base_key(); b.str[i] = "";                assert_false(lm_pool_key_equal(&a, &b));
    }
    char proto[] = "a/greeter.proto";
    b = base_key(); b.str[0] = proto;                 assert_true(lm_pool_key_equal(&a, &b));
    a.secret = b.secret = NULL;                       assert_true(lm_pool_key_equal(&a, &b));
}

/* The hash the registry compares first: equal keys hash alike, whatever
 * their pointers; a key differing in a string option (only) hashes apart. */
static void test_key_hash(void **state) {
    (void)state;
    lm_pool_key a = base_key(), b = base_key();
    char proto[] = "a/greeter.proto";
    b.str[0] = proto;
    assert_true(lm_pool_key_hash(&a) == lm_pool_key_hash(&b));
    b.str[0] = "a/greeter2.proto";
    assert_true(lm_pool_key_hash(&a) != lm_pool_key_hash(&b));
    b = base_key(); b.str[2] = "";
    assert_true(lm_pool_key_hash(&a) != lm_pool_key_hash(&b));
    b = base_key(); b.str[0] = NULL; b.str[1] = "a/greeter.proto";   /* moved to another slot */
    assert_true(lm_pool_key_hash(&a) != lm_pool_key_hash(&b));
}

static int cleared;
static void count_clear(void *client) { (void)client; cleared++; }

static void test_registry(void **state) {
    (void)state;
    lm_registry r = {NULL};
    int c1, c2;
    char addr[32] = "127.0.0.1:6379";
    lm_pool_key k = base_key();
    k.address = addr;
    assert_null(lm_registry_find(&r, &k));
    assert_int_equal(lm_registry_add(&r, &k, &c1, 11), 0);
    strcpy(addr, "changed");                /* the registry keeps its own copy */
    lm_pool_key again = base_key();
    lm_pooled *e = lm_registry_find(&r, &again);
    assert_non_null(e);
    assert_ptr_equal(e->client, &c1);
    assert_int_equal(e->ref, 11);
    lm_pool_key other = base_key();
    other.opt[0] = 4;                       /* another db: another client */
    assert_null(lm_registry_find(&r, &other));
    assert_int_equal(lm_registry_add(&r, &other, &c2, 12), 0);
    assert_ptr_equal(lm_registry_find(&r, &other)->client, &c2);
    assert_ptr_equal(lm_registry_find(&r, &again)->client, &c1);
    int c3;
    char proto[] = "b/greeter.proto";       /* another proto file: another client */
    lm_pool_key third = base_key();
    third.str[0] = proto;
    assert_null(lm_registry_find(&r, &third));
    assert_int_equal(lm_registry_add(&r, &third, &c3, 13), 0);
    strcpy(proto, "a/greeter.proto");       /* its copy stays "b/...": the first key still finds c1 */
    assert_ptr_equal(lm_registry_find(&r, &again)->client, &c1);
    third.str[0] = "b/greeter.proto";
    assert_ptr_equal(lm_registry_find(&r, &third)->client, &c3);
    cleared = 0;
    lm_registry_clear(&r, count_clear);
    assert_int_equal(cleared, 3);
    assert_null(r.head);
    assert_null(lm_registry_find(&r, &again));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_completed_inside_call, setup, teardown),
        cmocka_unit_test_setup_teardown(test_completed_from_loop, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stopped_vu, setup, teardown),
        cmocka_unit_test_setup_teardown(test_several_requests_and_reuse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dropped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_record_less, setup, teardown),
        cmocka_unit_test_setup_teardown(test_record_count, setup, teardown),
        cmocka_unit_test_setup_teardown(test_anchor, setup, teardown),
        cmocka_unit_test(test_key_equality),
        cmocka_unit_test(test_key_hash),
        cmocka_unit_test(test_registry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
