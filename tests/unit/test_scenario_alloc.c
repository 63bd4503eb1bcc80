/* test_scenario_alloc.c - a scenario whose strings cannot be copied (out of
 * memory) is refused with one clear message by scenario_load
 * (src/scenario/scenario.c), never loaded with a field silently missing nor
 * crashed on.  strdup is wrapped (tests/CMakeLists.txt links this test with
 * -Wl,--wrap=strdup): it fails for one chosen string, as malloc would. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/params.h"
#include "scenario/scenario.h"

char *__real_strdup(const char *s);
static const char *fail_on;        /* the string whose copy fails (test-local, one thread) */

char *__wrap_strdup(const char *s) {
    if (fail_on && strcmp(s, fail_on) == 0) return NULL;
    return __real_strdup(s);
}

typedef struct fixture { char dir[64], path[96]; } fixture;

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/lm_scen_alloc_XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    char vu[96];
    snprintf(vu, sizeof vu, "%s/vu.lua", f->dir);
    snprintf(f->path, sizeof f->path, "%s/s.lua", f->dir);
    FILE *fp = fopen(vu, "w");
    assert_non_null(fp);
    fputs("return function() end\n", fp);
    fclose(fp);
    fp = fopen(f->path, "w");
    assert_non_null(fp);
    fputs("return { name = \"alloc-name\", notes = \"alloc-notes\", requests = 1,\n"
          "  groups = { { name = \"alloc-group\", vus = 1, script = \"vu.lua\" } } }\n", fp);
    fclose(fp);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    char p[128];
    snprintf(p, sizeof p, "%s/vu.lua", f->dir);
    unlink(p);
    unlink(f->path);
    rmdir(f->dir);
    free(f);
    fail_on = NULL;
    return 0;
}

/* 0 or -1 of scenario_load on the fixture, copies failing for `what`. */
static int load_failing(fixture *f, const char *what, char *err, size_t err_len) {
    scenario s;
    params p;
    scenario_overrides o;
    params_init(&p);
    scenario_overrides_init(&o);
    err[0] = 0;
    fail_on = what;
    int rc = scenario_load(&s, f->path, &p, &o, err, err_len);
    fail_on = NULL;
    if (rc == 0 && !what) {
        assert_string_equal(s.notes, "alloc-notes");
        assert_string_equal(s.groups[0].name, "alloc-group");
    }
    scenario_free(&s);                     /* what a failed load left: freed as a whole */
    params_free(&p);
    return rc;
}

static void test_loads(void **state) {
    char err[256];
    assert_int_equal(load_failing(*state, NULL, err, sizeof err), 0);
}

/* Each string field of the scenario and of a group: -1 with the message. */
static void test_copy_fails(void **state) {
    static const char *const fields[] = {"alloc-name", "alloc-notes", "alloc-group", "vu.lua"};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        char err[256];
        assert_int_equal(load_failing(*state, fields[i], err, sizeof err), -1);
        assert_non_null(strstr(err, "out of memory"));
        assert_non_null(strstr(err, "s.lua"));
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_loads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copy_fails, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
