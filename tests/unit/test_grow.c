/* test_grow.c - unit tests for the growable byte buffer rule
 * (src/common/grow.c): growth from nothing, an exact fit, doubling, the
 * caller's ceiling, and refusals (a size that wraps, one above the ceiling,
 * realloc failing) that leave the buffer as it was.  realloc is wrapped
 * (tests/CMakeLists.txt links this test with -Wl,--wrap=realloc): each call
 * is counted with its size, and it fails when told to or when asked for
 * more than 1 GiB, so no test allocates a huge block. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/grow.h"

void *__real_realloc(void *p, size_t n);
void *__wrap_realloc(void *p, size_t n);

static int realloc_calls;
static size_t realloc_last;
static int realloc_fail;

void *__wrap_realloc(void *p, size_t n) {
    realloc_calls++;
    realloc_last = n;
    if (realloc_fail || n > ((size_t)1 << 30)) return NULL;
    return __real_realloc(p, n);
}

static int setup(void **state) {
    (void)state;
    realloc_calls = 0;
    realloc_last = 0;
    realloc_fail = 0;
    return 0;
}

static void test_from_zero(void **state) {
    (void)state;
    char *b = NULL;
    size_t cap = 0;
    assert_int_equal(grow_reserve(&b, &cap, 0, 256, SIZE_MAX), 0);   /* nothing asked: nothing made */
    assert_null(b);
    assert_int_equal(realloc_calls, 0);
    assert_int_equal(grow_reserve(&b, &cap, 1, 256, SIZE_MAX), 0);
    assert_non_null(b);
    assert_int_equal(cap, 256);
    assert_int_equal(realloc_calls, 1);
    free(b);
    b = NULL, cap = 0;
    assert_int_equal(grow_reserve(&b, &cap, 1000, 256, SIZE_MAX), 0);   /* 256, 512, 1024 */
    assert_int_equal(cap, 1024);
    assert_int_equal(realloc_calls, 2);                                 /* in one realloc */
    free(b);
    b = NULL, cap = 0;
    assert_int_equal(grow_reserve(&b, &cap, 300, 0, SIZE_MAX), 0);      /* no first size: need */
    assert_int_equal(cap, 300);
    free(b);
    b = NULL, cap = 0;
    assert_int_equal(grow_room(&b, &cap, 16, 4, 8, SIZE_MAX), 0);          /* room after a len past cap */
    assert_int_equal(cap, 32);
    free(b);
}

static void test_exact_fit(void **state) {
    (void)state;
    char *b = NULL;
    size_t cap = 0;
    assert_int_equal(grow_reserve(&b, &cap, 1024, 1024, SIZE_MAX), 0);
    assert_int_equal(cap, 1024);
    char *was = b;
    int calls = realloc_calls;
    for (size_t need = 0; need <= 1024; need++) assert_int_equal(grow_reserve(&b, &cap, need, 1024, SIZE_MAX), 0);
    assert_int_equal(grow_room(&b, &cap, 1000, 24, 1024, SIZE_MAX), 0);
    assert_int_equal(grow_room(&b, &cap, 1024, 0, 1024, SIZE_MAX), 0);
    assert_ptr_equal(b, was);
    assert_int_equal(cap, 1024);
    assert_int_equal(realloc_calls, calls);                             /* fits: never allocates */
    free(b);
}

static void test_doubling(void **state) {
    (void)state;
    char *b = NULL;
    size_t cap = 0;
    assert_int_equal(grow_reserve(&b, &cap, 256, 256, SIZE_MAX), 0);
    for (int i = 0; i < 256; i++) b[i] = (char)i;
    assert_int_equal(grow_reserve(&b, &cap, 257, 256, SIZE_MAX), 0);
    assert_int_equal(cap, 512);
    assert_int_equal(grow_room(&b, &cap, 512, 1, 256, SIZE_MAX), 0);
    assert_int_equal(cap, 1024);
    assert_int_equal(grow_reserve(&b, &cap, 5000, 256, SIZE_MAX), 0);   /* 2048, 4096, 8192 */
    assert_int_equal(cap, 8192);
    assert_int_equal(realloc_calls, 4);
    for (int i = 0; i < 256; i++) assert_int_equal((unsigned char)b[i], i);   /* kept */
    free(b);
}

static void test_overflow_refused(void **state) {
    (void)state;
    char *b = NULL;
    size_t cap = 0;
    assert_int_equal(grow_reserve(&b, &cap, 100, 256, SIZE_MAX), 0);
    memcpy(b, "kept", 5);
    char *was = b;
    int calls = realloc_calls;
    assert_int_equal(grow_reserve(&b, &cap, SIZE_MAX, 256, SIZE_MAX), -1);
    assert_int_equal(grow_reserve(&b, &cap, (size_t)PTRDIFF_MAX + 1, 256, SIZE_MAX), -1);
    assert_int_equal(grow_room(&b, &cap, 10, SIZE_MAX - 5, 256, SIZE_MAX), -1);    /* 10 + more wraps */
    assert_int_equal(grow_room(&b, &cap, 256, SIZE_MAX, 256, SIZE_MAX), -1);
    assert_int_equal(realloc_calls, calls);                              /* refused before realloc */
    assert_ptr_equal(b, was);
    assert_int_equal(cap, 256);
    assert_string_equal(b, "kept");
    /* the largest allowed: doubling stops at PTRDIFF_MAX, never wraps to a
     * small size (the wrapped realloc refuses it) */
    assert_int_equal(grow_reserve(&b, &cap, (size_t)PTRDIFF_MAX, 256, SIZE_MAX), -1);
    assert_int_equal(realloc_calls, calls + 1);
    assert_true(realloc_last == (size_t)PTRDIFF_MAX);
    assert_int_equal(grow_reserve(&b, &cap, ((size_t)1 << 40) + 1, 256, SIZE_MAX), -1);
    assert_true(realloc_last == (size_t)1 << 41);
    assert_ptr_equal(b, was);
    assert_int_equal(cap, 256);
    assert_string_equal(b, "kept");
    free(b);
}

static void test_max_cap(void **state) {
    (void)state;
    char *b = NULL;
    size_t cap = 0;
    assert_int_equal(grow_reserve(&b, &cap, 10, 4096, 1000), 0);        /* first size above the ceiling */
    assert_int_equal(cap, 1000);
    free(b);
    b = NULL, cap = 0;
    assert_int_equal(grow_reserve(&b, &cap, 600, 600, 1000), 0);
    assert_int_equal(grow_reserve(&b, &cap, 700, 600, 1000), 0);         /* 1200 would pass it */
    assert_int_equal(cap, 1000);
    assert_int_equal(grow_reserve(&b, &cap, 1000, 600, 1000), 0);        /* the ceiling itself fits */
    char *was = b;
    int calls = realloc_calls;
    assert_int_equal(grow_reserve(&b, &cap, 1001, 600, 1000), -1);
    assert_int_equal(grow_room(&b, &cap, 1000, 1, 600, 1000), -1);
    assert_int_equal(realloc_calls, calls);
    assert_ptr_equal(b, was);
    assert_int_equal(cap, 1000);
    free(b);
}

static void test_out_of_memory(void **state) {
    (void)state;
    char *b = NULL;
    size_t cap = 0;
    realloc_fail = 1;
    assert_int_equal(grow_reserve(&b, &cap, 1, 256, SIZE_MAX), -1);
    assert_null(b);
    assert_int_equal(cap, 0);
    realloc_fail = 0;
    assert_int_equal(grow_reserve(&b, &cap, 256, 256, SIZE_MAX), 0);
    char *was = b;
    realloc_fail = 1;
    assert_int_equal(grow_room(&b, &cap, 256, 1, 256, SIZE_MAX), -1);
    assert_ptr_equal(b, was);
    assert_int_equal(cap, 256);
    realloc_fail = 0;
    free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_from_zero, setup),
        cmocka_unit_test_setup(test_exact_fit, setup),
        cmocka_unit_test_setup(test_doubling, setup),
        cmocka_unit_test_setup(test_overflow_refused, setup),
        cmocka_unit_test_setup(test_max_cap, setup),
        cmocka_unit_test_setup(test_out_of_memory, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
