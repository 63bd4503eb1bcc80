/* test_text.c - unit tests for the escaping of untrusted text
 * (src/common/text.c), for text_errf (the one error-message formatter of
 * every layer) and for the error tally that applies the escaping to every
 * message it counts (src/stats/tally.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/text.h"
#include "stats/tally.h"

static void expect_escape(const char *in, size_t len, const char *want) {
    char out[1024];
    size_t n = text_escape(in, len, out, sizeof out);
    if (strcmp(out, want) != 0) fprintf(stderr, "got  %s\nwant %s\n", out, want);
    assert_string_equal(out, want);
    assert_int_equal(n, strlen(want));
    assert_int_equal(text_is_clean(in, len), strcmp(in, want) == 0 && strlen(in) == len);
    /* escaping twice changes nothing */
    char again[1024];
    text_escape(out, n, again, sizeof again);
    assert_string_equal(again, out);
    assert_true(text_is_clean(out, n));
}

#define ESC(lit, want) expect_escape(lit, sizeof lit - 1, want)

static void test_kept(void **state) {
    (void)state;
    ESC("plain ASCII: ~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./", "plain ASCII: ~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./");
    ESC("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xe4\xb8\xad", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xe4\xb8\xad");
    ESC("\xc2\xa0 U+00A0 and \xef\xbf\xbd U+FFFD", "\xc2\xa0 U+00A0 and \xef\xbf\xbd U+FFFD");
    ESC("", "");
}

static void test_controls(void **state) {
    (void)state;
    ESC("a\x1b[31mred\x1b[0m", "a\\x1b[31mred\\x1b[0m");
    ESC("\x01\x02\x7f", "\\x01\\x02\\x7f");
    ESC("tab\there\nline\rcr", "tab\\there\\nline\\rcr");
    ESC("nul\0after", "nul\\x00after");
    /* C1 controls in UTF-8 (U+009B is a one-byte CSI on some terminals) */
    ESC("\xc2\x9b" "1m \xc2\x80 \xc2\x9f", "\\xc2\\x9b" "1m \\xc2\\x80 \\xc2\\x9f");
    /* bidirectional overrides and isolates (text that reads reversed) */
    ESC("a\xe2\x80\xae" "b \xe2\x81\xa6" "c", "a\\xe2\\x80\\xae" "b \\xe2\\x81\\xa6" "c");
}

static void test_invalid_utf8(void **state) {
    (void)state;
    ESC("\xff\xfe", "\\xff\\xfe");
    ESC("lone \x80 continuation", "lone \\x80 continuation");
    ESC("cut \xe2\x82", "cut \\xe2\\x82");
    ESC("cut \xe2\x82 then ok \xc3\xa9", "cut \\xe2\\x82 then ok \xc3\xa9");
    ESC("overlong \xc0\xaf \xe0\x80\xaf", "overlong \\xc0\\xaf \\xe0\\x80\\xaf");
    ESC("surrogate \xed\xa0\x80", "surrogate \\xed\\xa0\\x80");
    ESC("past U+10FFFF \xf4\x90\x80\x80", "past U+10FFFF \\xf4\\x90\\x80\\x80");
}

/* Truncation never splits a character or an escape. */
static void test_truncation(void **state) {
    (void)state;
    char out[8];
    assert_int_equal(text_escape("abc\xc3\xa9xyz", 9, out, 5), 3);     /* é would need 2 more + NUL */
    assert_string_equal(out, "abc");
    assert_int_equal(text_escape("abc\xc3\xa9xyz", 9, out, 6), 5);
    assert_string_equal(out, "abc\xc3\xa9");
    assert_int_equal(text_escape("ab\x1b", 3, out, 5), 2);              /* \x1b needs 4 + NUL */
    assert_string_equal(out, "ab");
    assert_int_equal(text_escape("ab\x1b", 3, out, 7), 6);
    assert_string_equal(out, "ab\\x1b");
    assert_int_equal(text_escape("abc", 3, out, 1), 0);
    assert_string_equal(out, "");
}

static void test_clean_and_dup(void **state) {
    (void)state;
    char buf[64];
    const char *ok = "fine \xc3\xa9";
    assert_ptr_equal(text_clean(ok, buf, sizeof buf), ok);
    assert_string_equal(text_clean("x\x1by", buf, sizeof buf), "x\\x1by");
    char *d = text_escape_dup("\xff\x01");
    assert_non_null(d);
    assert_string_equal(d, "\\xff\\x01");
    free(d);
}

/* The tally stores the escaped text: hostile messages come out clean and
 * valid, equal raw messages count together, long ones are cut on a
 * character boundary. */
static void test_tally_escapes(void **state) {
    (void)state;
    tally t;
    tally_init(&t, 10);
    const char raw[] = "SERVER_ERROR \xff\xfe \x01 \x1b[31mred";
    tally_add(&t, raw, sizeof raw - 1, 1);
    tally_add(&t, raw, sizeof raw - 1, 2);
    tally_add(&t, "nul\0inside", 10, 1);
    size_t *order, n = tally_sorted(&t, &order);
    assert_int_equal(n, 2);
    assert_string_equal(t.msgs[order[0]], "SERVER_ERROR \\xff\\xfe \\x01 \\x1b[31mred");
    assert_int_equal(t.counts[order[0]], 3);
    assert_string_equal(t.msgs[order[1]], "nul\\x00inside");
    free(order);
    /* merging clean text changes nothing */
    tally m;
    tally_init(&m, 10);
    tally_merge(&m, &t);
    assert_int_equal(tally_total(&m), 4);
    n = tally_sorted(&m, &order);
    assert_int_equal(n, 2);
    assert_string_equal(m.msgs[order[0]], "SERVER_ERROR \\xff\\xfe \\x01 \\x1b[31mred");
    free(order);
    tally_free(&m);
    tally_reset(&t);
    /* long: TALLY_MSG_MAX bytes at most, whole characters and escapes */
    char big[TALLY_MSG_MAX * 2];
    for (size_t i = 0; i + 1 < sizeof big; i += 2) memcpy(big + i, "\xc3\xa9", 2);
    tally_add(&t, big, sizeof big, 1);
    char esc[TALLY_MSG_MAX * 2];
    memset(esc, 0x1b, sizeof esc);
    tally_add(&t, esc, sizeof esc, 1);
    n = tally_sorted(&t, &order);
    assert_int_equal(n, 2);
    for (size_t i = 0; i < n; i++) {
        const char *msg = t.msgs[order[i]];
        assert_true(strlen(msg) <= TALLY_MSG_MAX);
        assert_true(strlen(msg) > TALLY_MSG_MAX - TEXT_ESC_MAX);
        assert_true(text_is_clean(msg, strlen(msg)));
    }
    free(order);
    tally_free(&t);
}

/* text_errf: formats into the buffer, truncates to fit (NUL-terminated),
 * writes nothing without a buffer, and always returns -1. */
static void test_errf(void **state) {
    (void)state;
    char err[16];
    memset(err, 'x', sizeof err);
    assert_int_equal(text_errf(err, sizeof err, "bad %s at %d", "key", 7), -1);
    assert_string_equal(err, "bad key at 7");
    assert_int_equal(text_errf(err, sizeof err, "%s", "a message longer than sixteen"), -1);
    assert_string_equal(err, "a message longe");
    char one[1] = {'x'};
    assert_int_equal(text_errf(one, 0, "nothing %d", 1), -1);
    assert_int_equal(one[0], 'x');              /* err_len 0: untouched */
    assert_int_equal(text_errf(NULL, 10, "nothing %d", 2), -1);
    assert_int_equal(text_errf(one, sizeof one, "%s", "cut"), -1);
    assert_int_equal(one[0], 0);
}

/* Levenshtein distance and the nearest candidate, for "did you mean". */
static void test_distance_near(void **state) {
    (void)state;
    assert_int_equal(text_distance("", ""), 0);
    assert_int_equal(text_distance("http.get", "http.get"), 0);
    assert_int_equal(text_distance("http.gett", "http.get"), 1);
    assert_int_equal(text_distance("kitten", "sitting"), 3);
    assert_int_equal(text_distance("", "abc"), 3);
    char longs[300];
    memset(longs, 'a', sizeof longs - 1);
    longs[sizeof longs - 1] = 0;
    assert_true(text_distance(longs, "a") == (size_t)-1);
    text_near n;
    text_near_init(&n, "group reader");
    text_near_try(&n, "group readers");
    text_near_try(&n, "group writers");
    text_near_try(&n, "group reader");      /* the same: no hint */
    assert_string_equal(n.best, "group readers");
    text_near_init(&n, "abc");
    text_near_try(&n, "xyz");               /* 3 edits of 3: too far */
    assert_string_equal(n.best, "");
    text_near_try(&n, "abd");
    assert_string_equal(n.best, "abd");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kept),
        cmocka_unit_test(test_controls),
        cmocka_unit_test(test_invalid_utf8),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_clean_and_dup),
        cmocka_unit_test(test_tally_escapes),
        cmocka_unit_test(test_errf),
        cmocka_unit_test(test_distance_near),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
