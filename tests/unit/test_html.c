/* test_html.c - report.html rendered from a results directory that the test
 * writes by hand (summary.json only: the report must not need the run's
 * memory): timer names and tables present, every text from the file
 * HTML-escaped (a timer named <script>...), no network references, the
 * embedded JSON valid and equal to the file, chart placeholders per timer,
 * clear failures for a missing or invalid summary.json, the index of a
 * phased run; thresholds, generator health (banner, table, engine timers),
 * the stages table, "(uncorrected)" twins and checks kept out of counters;
 * the headline's verdict and its colour class. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "html/html.h"

#define EVIL_TIMER "<script>alert(1)</script>"
#define EVIL_ERROR "./x.lua:3: <img onerror=alert(2)> & \"quoted\""
#define NOTES_URL "https://example.com/docs?a=1&b=<2>"

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = 0;
    fclose(f);
    return s;
}

static int count(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle)) n++;
    return n;
}

static void write_file(const char *dir, const char *name, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *tmpdir(void) {
    char *d = strdup("/tmp/luamech-test-html.XXXXXX");
    assert_non_null(mkdtemp(d));
    return d;
}

static void rmdir_all(char *d) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    assert_int_equal(system(cmd), 0);
    free(d);
}

/* A row as results.c writes it: count, errors, period, rate, latency in ms. */
static json_t *row(long long count, long long errors, double period, double base_ms) {
    return json_pack("{s:I,s:I,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "count", (json_int_t)count,
        "errors", (json_int_t)errors, "period_s", period, "rate", period > 0 ? (double)count / period : 0.0,
        "min_ms", base_ms * 0.2, "avg_ms", base_ms, "p50_ms", base_ms * 0.9, "p80_ms", base_ms * 1.2,
        "p90_ms", base_ms * 1.5, "p95_ms", base_ms * 2, "p99_ms", 2.553, "p99_9_ms", 4.719, "max_ms", 5.464,
        "stdev_ms", 0.409);
}

/* What results.c writes beside a timer's name (docs/results.md): its group
 * and stage, and whose "(uncorrected)" or "(all)" twin it is.  The report reads these,
 * never the names; this fixture derives them from its names. */
static void timer_tags(json_t *t, const char *name, const char *kind) {
    static const char twin[] = " (uncorrected)", all[] = " (all)";
    size_t n = strlen(name), k = sizeof twin - 1, ka = sizeof all - 1;
    char base[256];
    snprintf(base, sizeof base, "%.*s", (int)(n > k && strcmp(name + n - k, twin) == 0 ? n - k : n), name);
    if (strcmp(base, name) != 0) json_object_set_new(t, "uncorrected_of", json_string(base));
    else if (n > ka && strcmp(name + n - ka, all) == 0) {
        snprintf(base, sizeof base, "%.*s", (int)(n - ka), name);
        json_object_set_new(t, "all_of", json_string(base));
    }
    int stage = 0, off = 0;
    if (strcmp(kind, "group") == 0 && strncmp(base, "group ", 6) == 0)
        json_object_set_new(t, "group", json_string(base + 6));
    else if (strcmp(kind, "stage") == 0 && sscanf(base, "stage %d %n", &stage, &off) == 1 && off > 0) {
        json_object_set_new(t, "group", json_string(base + off));
        json_object_set_new(t, "stage", json_integer(stage));
    }
}

static json_t *timer(const char *name, const char *kind, int nintervals) {
    json_t *iv = json_array();
    for (int k = 0; k < nintervals; k++) json_array_append_new(iv, row(100 + k, k, k == nintervals - 1 ? 0.5 : 2, 0.25));
    json_t *t = json_pack("{s:s,s:s,s:o,s:o}", "name", name, "kind", kind, "summary", row(303 + 3 * nintervals, 3, 4.5, 0.25),
                          "intervals", iv);
    timer_tags(t, name, kind);
    return t;
}

/* A completed run of 3 intervals with every section filled. */
static void write_run(const char *dir) {
    json_t *timers = json_pack("[o,o,o,o]", timer("All Transactions", "all", 3), timer("group g1", "group", 3),
                               timer(EVIL_TIMER, "custom", 3), timer("memcached.get", "primitive", 3));
    json_t *root = json_pack(
        "{s:i,s:s,s:s,s:s,s:s,s:i,s:s,s:s,s:f,s:I,"
        "s:{s:f,s:f,s:f,s:f,s:I,s:i},s:[{s:s,s:i,s:s}],s:o,s:[{s:s,s:I}],s:s,"
        "s:[{s:s,s:I}],s:[{s:s,s:I,s:f,s:[I,I,I]}],s:[{s:s,s:I,s:I}],s:s}",
        "schema_version", 1, "tool", "luamech", "version", "0.1.0", "scenario", "shop", "scenario_file",
        "shop.lua", "exit_code", 0, "status", "completed", "start", "2026-11-29T20:31:36Z", "run_time_s", 4.5,
        "seed", (json_int_t)42,
        "settings", "run_time_s", 4.5, "rampup_s", 1.0, "interval_s", 2.0, "graceful_stop_s", 5.0, "requests",
        (json_int_t)0, "workers", 2,
        "groups", "name", "g1", "vus", 4, "script", "reader.lua",
        "timers", timers,
        "errors", "message", EVIL_ERROR, "count", (json_int_t)7,
        "finish", "2026-11-29T20:31:41Z",
        "request_errors", "message", "memcached.get 127.0.0.1:1: timeout", "count", (json_int_t)5,
        "counters", "name", "http.bytes_sent", "total", (json_int_t)3000, "rate", 666.6666667, "intervals",
        (json_int_t)1000, (json_int_t)1000, (json_int_t)1000,
        "checks", "name", "value matches", "passes", (json_int_t)200, "fails", (json_int_t)100,
        "notes", "see " NOTES_URL " for\nthe setup");
    assert_non_null(root);
    char path[512];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    assert_int_equal(json_dump_file(root, path, JSON_INDENT(2)), 0);
    json_decref(root);
}

static char *render(const char *dir) {
    char err[1024] = "";
    int rc = report_write_html_err(dir, err, sizeof err);
    if (rc != 0) fprintf(stderr, "report_write_html: %s\n", err);
    assert_int_equal(rc, 0);
    char path[512];
    snprintf(path, sizeof path, "%s/.report.html.tmp", dir);
    assert_int_not_equal(access(path, F_OK), 0);            /* renamed, not left behind */
    snprintf(path, sizeof path, "%s/report.html", dir);
    char *html = slurp(path);
    assert_non_null(html);
    return html;
}

/* The embedded copy of summary.json, parsed. */
static json_t *embedded(const char *html) {
    const char *open = "<script type=\"application/json\" id=\"summary-data\">";
    const char *a = strstr(html, open);
    assert_non_null(a);
    a += strlen(open);
    const char *b = strstr(a, "</script>");
    assert_non_null(b);
    json_error_t je;
    json_t *j = json_loadb(a, (size_t)(b - a), 0, &je);
    if (!j) fprintf(stderr, "embedded JSON: %s\n", je.text);
    assert_non_null(j);
    return j;
}

static void test_run_report(void **state) {
    (void)state;
    char *dir = tmpdir();
    write_run(dir);
    assert_int_equal(report_write_html(dir), 0);
    char *html = render(dir);

    assert_true(strncmp(html, "<!DOCTYPE html>", 15) == 0);
    assert_non_null(strstr(html, "<meta name=\"viewport\""));
    /* timer names and sections */
    assert_non_null(strstr(html, ">All Transactions</h2>"));
    assert_non_null(strstr(html, ">g1</h3>"));
    assert_non_null(strstr(html, ">memcached.get</h3>"));
    assert_non_null(strstr(html, "<h2>Custom timers</h2>"));
    assert_non_null(strstr(html, "<h2>Primitives</h2>"));
    assert_non_null(strstr(html, "reader.lua"));
    /* escaped text: the <script> timer, the error message, the notes */
    assert_non_null(strstr(html, ">&lt;script&gt;alert(1)&lt;/script&gt;</h3>"));
    assert_null(strstr(html, "<script>alert"));
    assert_null(strstr(html, "<img"));
    assert_non_null(strstr(html, "./x.lua:3: &lt;img onerror=alert(2)&gt; &amp; &quot;quoted&quot;"));
    assert_non_null(strstr(html, "example.com/docs?a=1&amp;b=&lt;2&gt;"));
    assert_int_equal(count(html, "<script"), 2);            /* the JSON and the chart code, nothing else */
    assert_int_equal(count(html, "</script"), 2);
    /* tables: summary and interval rows, checks, counters, errors */
    assert_int_equal(count(html, "<table class=\"summary\">"), 4);
    assert_int_equal(count(html, "<tr class=\"ivrow\">"), 12);
    assert_non_null(strstr(html, "<td>2.553</td><td>4.719</td><td>5.464</td><td>0.409</td>"));
    assert_non_null(strstr(html, "<td>2</td><td>2.000</td><td>4.000</td><td>101</td><td>50.50</td>"));
    assert_non_null(strstr(html, "<td>4.000</td><td>4.500</td><td>102</td><td>204.00</td>"));
    assert_non_null(strstr(html, "value matches</td><td>200</td><td class=\"err\">100</td><td>66.67%</td>"));
    assert_non_null(strstr(html, "http.bytes_sent</td><td>3000</td><td>666.67</td>"));
    assert_non_null(strstr(html, "memcached.get 127.0.0.1:1: timeout"));
    /* one chart of each kind per timer (and All Transactions' on the first screen), and the code that draws them */
    assert_int_equal(count(html, "data-kind=\"rt\""), 5);
    assert_int_equal(count(html, "data-kind=\"tput\""), 5);
    assert_int_equal(count(html, "data-kind=\"dist\""), 4);
    assert_non_null(strstr(html, "data-points"));
    assert_non_null(strstr(html, "render-ok"));
    assert_non_null(strstr(html, "render-errors"));
    /* no thresholds, generator, stages or twins in this file: none of their sections */
    assert_null(strstr(html, "suspect-warning"));
    assert_null(strstr(html, "id=\"thresholds\""));
    assert_null(strstr(html, "id=\"generator\""));
    assert_null(strstr(html, "id=\"stages\""));
    assert_null(strstr(html, "class=\"lf "));
    assert_null(strstr(html, "data-twin="));

    /* the embedded JSON is the file's content */
    json_t *j = embedded(html);
    assert_int_equal(json_array_size(json_object_get(j, "timers")), 4);
    assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(j, "timers"), 2), "name")),
                        EVIL_TIMER);
    assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(j, "errors"), 0), "message")),
                        EVIL_ERROR);
    assert_string_equal(json_string_value(json_object_get(j, "notes")), "see " NOTES_URL " for\nthe setup");
    assert_int_equal(json_array_size(json_object_get(json_array_get(json_object_get(j, "timers"), 0), "intervals")), 3);
    json_decref(j);

    /* no network: no URL outside the notes' text and the embedded data */
    char *copy = strdup(html);
    char *a = strstr(copy, "<script type=\"application/json\"");
    char *b = strstr(a, "</script>");
    memset(a, ' ', (size_t)(b - a));
    char *n0 = strstr(copy, "<pre class=\"notes\">"), *n1 = n0 ? strstr(n0, "</pre>") : NULL;
    assert_non_null(n1);
    assert_non_null(strstr(n0, "https://example.com"));
    assert_true(strstr(n0, "https://example.com") < n1);
    memset(n0, ' ', (size_t)(n1 - n0));
    assert_null(strstr(copy, "http://"));
    assert_null(strstr(copy, "https://"));
    assert_null(strstr(copy, "//cdn"));
    assert_null(strstr(copy, "<link"));
    assert_null(strstr(copy, " src="));
    assert_null(strstr(copy, "url("));
    assert_null(strstr(copy, "@import"));
    assert_null(strstr(copy, "fetch("));
    assert_null(strstr(copy, "XMLHttpRequest"));
    assert_non_null(strstr(copy, "Content-Security-Policy\" content=\"default-src 'none'"));
    for (const char *h = copy; (h = strstr(h, "href=\"")) != NULL; h += 6) {
        const char *end = strchr(h + 6, '"');
        assert_non_null(end);
        for (const char *c = h + 6; c < end; c++) assert_true(*c != ':');   /* relative or #anchor */
    }
    free(copy);
    free(html);

    /* rendering again replaces the page (reads the file again) */
    write_file(dir, "summary.json", "{\"schema_version\":1,\"scenario\":\"renamed\",\"timers\":[]}");
    html = render(dir);
    assert_non_null(strstr(html, "luamech report: renamed"));
    assert_null(strstr(html, "memcached.get"));
    free(html);
    rmdir_all(dir);
}

static void test_aborted_run(void **state) {
    (void)state;
    char *dir = tmpdir();
    write_file(dir, "summary.json",
               "{\"schema_version\":1,\"scenario\":\"a&b\",\"status\":\"aborted\",\"exit_code\":4,\"timers\":[],"
               "\"errors\":[],\"groups\":[],\"error\":\"./r.lua:1: connect <refused>\"}");
    char *html = render(dir);
    assert_non_null(strstr(html, "luamech report: a&amp;b"));
    assert_non_null(strstr(html, "No transactions."));
    assert_non_null(strstr(html, "connect &lt;refused&gt;"));
    assert_non_null(strstr(html, "No errors."));
    assert_null(strstr(html, "data-kind=\"rt\""));
    json_decref(embedded(html));
    free(html);
    rmdir_all(dir);
}

static void test_missing_or_invalid(void **state) {
    (void)state;
    char err[1024];
    char *dir = tmpdir();
    char sub[512];
    snprintf(sub, sizeof sub, "%s/nope", dir);
    assert_int_equal(report_write_html_err(sub, err, sizeof err), -1);
    assert_non_null(strstr(err, sub));
    assert_int_equal(report_write_html_err(dir, err, sizeof err), -1);          /* no summary.json */
    assert_non_null(strstr(err, "summary.json"));
    write_file(dir, "summary.json", "{\"timers\": [");
    assert_int_equal(report_write_html_err(dir, err, sizeof err), -1);
    assert_non_null(strstr(err, "summary.json"));
    assert_non_null(strstr(err, "invalid JSON"));
    write_file(dir, "summary.json", "{\"scenario\": \"x\"}");
    assert_int_equal(report_write_html(dir), -1);
    assert_int_equal(report_write_html_err(dir, err, sizeof err), -1);
    assert_non_null(strstr(err, "summary.json"));
    char path[600];
    snprintf(path, sizeof path, "%s/report.html", dir);
    assert_int_not_equal(access(path, F_OK), 0);
    rmdir_all(dir);
}

static void test_phases_index(void **state) {
    (void)state;
    char *dir = tmpdir();
    char sub[512];
    snprintf(sub, sizeof sub, "%s/1-write", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    write_run(sub);
    write_file(dir, "summary.json",
               "{\"schema_version\":1,\"scenario\":\"seq\",\"status\":\"completed\",\"exit_code\":0,"
               "\"phases_planned\":3,\"phases_run\":3,\"phases\":["
               "{\"name\":\"write\",\"dir\":\"1-write\",\"status\":\"completed\",\"transactions\":500,\"errors\":0,"
               "\"run_time_s\":2.0,\"rate\":250.0,\"p50_ms\":0.1,\"p95_ms\":0.2,\"p99_ms\":0.3,\"max_ms\":1.5},"
               "{\"name\":\"read\",\"dir\":\"2-read\",\"status\":\"interrupted\",\"transactions\":10,\"errors\":1,"
               "\"run_time_s\":1.0,\"rate\":10.0,\"p50_ms\":0.1,\"p95_ms\":0.25,\"p99_ms\":0.3,\"max_ms\":0.5},"
               "{\"name\":\"<evil>\",\"dir\":\"../evil\",\"status\":\"completed\",\"transactions\":1,\"errors\":0,"
               "\"run_time_s\":1.0,\"rate\":1.0,\"p50_ms\":0.1,\"p95_ms\":0.1,\"p99_ms\":0.1,\"max_ms\":0.1}]}");
    char *html = render(dir);
    assert_non_null(strstr(html, "<a href=\"1-write/report.html\">write</a>"));
    assert_null(strstr(html, "2-read/report.html"));                       /* no summary.json there */
    assert_non_null(strstr(html, "read (no report"));
    assert_null(strstr(html, "evil/report.html"));                          /* never outside the directory */
    assert_non_null(strstr(html, "&lt;evil&gt;"));
    assert_non_null(strstr(html, "all phases</td><td></td><td>511</td><td>1</td><td>4.000</td><td>127.75</td>"));
    assert_non_null(strstr(html, "data-kind=\"phases-rate\""));
    assert_non_null(strstr(html, "data-kind=\"phases-p95\""));
    json_t *j = embedded(html);
    assert_int_equal(json_array_size(json_object_get(j, "phases")), 3);
    json_decref(j);
    free(html);
    /* the phase's own report was rendered too, with a way back */
    char path[600];
    snprintf(path, sizeof path, "%s/report.html", sub);
    html = slurp(path);
    assert_non_null(html);
    assert_non_null(strstr(html, "href=\"../report.html\""));
    assert_non_null(strstr(html, ">memcached.get</h3>"));
    free(html);
    rmdir_all(dir);
}

/* A paced run's summary.json: thresholds (one failed), a suspect generator,
 * engine and stage timers, and "(uncorrected)" and "(all)" twins listed out of order. */
#define REASONS "interval 2: generator CPU above 90%; interval 3: event loop lag p99 above 20 ms"

static json_t *timer_lf(const char *name, const char *kind, const char *from) {
    json_t *t = timer(name, kind, 3);
    json_object_set_new(t, "latency_from", json_string(from));
    if (strncmp(name, "stage 1 ", 8) == 0) {          /* stage 1's span: [0.5, 2.5] s */
        json_object_set_new(t, "start_s", json_real(0.5));
        json_object_set_new(t, "end_s", json_real(2.5));
    }
    return t;
}

static json_t *gen_row(double cpu, double lag, int late) {
    return json_pack("{s:f,s:f,s:f,s:f,s:i,s:i,s:f,s:f,s:f}", "cpu_percent", cpu, "loop_lag_p99_ms", lag,
                     "loop_lag_max_ms", lag * 1.5, "schedule_lag_p99_ms", 1.25, "late_starts", late, "skipped_starts",
                     0, "dispatch_delay_p99_ms", lag / 2, "inflation_ms", lag / 4, "inflation_percent", lag * 4);
}

static void write_paced_run(const char *dir) {
    json_t *timers = json_pack("[o,o,o,o,o,o,o,o,o,o,o,o,o]",
        timer_lf("All Transactions", "all", "intended start"),                 /* 0 */
        timer_lf("engine.loop_lag", "engine", "actual start"),                 /* 1 */
        timer_lf("engine.schedule_lag", "engine", "actual start"),             /* 2 */
        timer_lf("group g1", "group", "intended start"),                       /* 3 */
        timer_lf("memcached.get", "primitive", "intended start"),              /* 4 */
        timer_lf("stage 2 g1", "stage", "actual start"),                       /* 5: no twin */
        timer_lf("stage 1 g1", "stage", "intended start"),                     /* 6 */
        timer_lf("memcached.get (uncorrected)", "primitive", "actual start"),  /* 7 */
        timer_lf("stage 1 g1 (uncorrected)", "stage", "actual start"),         /* 8 */
        timer_lf("All Transactions (uncorrected)", "all", "actual start"),     /* 9 */
        timer_lf("group g1 (uncorrected)", "group", "actual start"),           /* 10 */
        timer_lf("memcached.set", "primitive", "actual start"),                /* 11: closed, no twin */
        timer_lf("memcached.get (all)", "primitive", "intended start"));       /* 12 */
    json_t *root = json_pack(
        "{s:i,s:s,s:s,s:i,s:s,s:f,s:{s:f,s:f,s:i},s:[{s:s,s:i,s:s}],s:o,s:[],"
        "s:[{s:s,s:s,s:b,s:f,s:s},{s:s,s:s,s:b,s:f,s:s},{s:s,s:s,s:b,s:n,s:s},{s:s,s:s,s:b,s:i,s:s}],"
        "s:{s:b,s:s,s:[o,o,o]},s:[],"
        "s:[{s:s,s:I,s:f,s:s},{s:s,s:I,s:f,s:s},{s:s,s:I,s:f,s:s},{s:s,s:I,s:f,s:s},{s:s,s:I,s:f,s:s}],"
        "s:[{s:s,s:I,s:I}]}",
        "schema_version", 1, "scenario", "paced", "status", "completed", "exit_code", 6, "start",
        "2026-11-29T20:31:36Z", "run_time_s", 4.5, "settings", "run_time_s", 4.5, "interval_s", 2.0, "workers", 2,
        "groups", "name", "g1", "vus", 10, "script", "vu.lua",
        "timers", timers, "errors",
        "thresholds",
        "criterion", "GET p95 < 5ms", "timer", "GET", "passed", 0, "measured", 7.5, "unit", "ms",
        "criterion", "checks rate > 99%", "timer", "checks", "passed", 1, "measured", 100.0, "unit", "%",
        "criterion", "nosuch p50 < 1s", "timer", "nosuch", "passed", 0, "measured", "unit", "ms",
        "criterion", "<b>count</b> >= 1000", "timer", "<b>count</b>", "passed", 0, "measured", 100, "unit", "",
        "generator", "suspect", 1, "reasons", REASONS, "intervals", gen_row(12.5, 0.75, 0),
        gen_row(95.5, 3.0, 4), gen_row(40.0, 25.125, 0),
        "request_errors",
        "counters", "name", "engine.cpu_us", "total", (json_int_t)1000, "rate", 222.2, "kind", "engine",
        "name", "check.pass value ok", "total", (json_int_t)99, "rate", 22.0, "kind", "check_pass",
        "name", "check.fail value ok", "total", (json_int_t)1, "rate", 0.2, "kind", "check_fail",
        "name", "http.bytes_sent", "total", (json_int_t)3000, "rate", 666.6666667, "kind", "plain",
        /* a script's counter named like a check's: a counter all the same (its kind, not its name) */
        "name", "check.pass lookalike", "total", (json_int_t)7, "rate", 1.5, "kind", "plain",
        "checks", "name", "value ok", "passes", (json_int_t)99, "fails", (json_int_t)1);
    assert_non_null(root);
    char path[512];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    assert_int_equal(json_dump_file(root, path, JSON_INDENT(2)), 0);
    json_decref(root);
}

/* The text of html from the first a to the next b (both must exist), as a new string. */
static char *between(const char *html, const char *a, const char *b) {
    const char *p = strstr(html, a);
    assert_non_null(p);
    const char *q = strstr(p + strlen(a), b);
    assert_non_null(q);
    return strndup(p, (size_t)(q - p));
}

static void test_health_thresholds_twins(void **state) {
    (void)state;
    char *dir = tmpdir();
    write_paced_run(dir);
    char *html = render(dir);
    /* cut off the embedded JSON: everything below is the page's own text */
    char *page = between(html, "<!DOCTYPE html>", "<script type=\"application/json\"");

    /* the suspect banner, at the top: before the thresholds and the summary */
    const char *banner = strstr(page, "<div class=\"warn banner\" id=\"suspect-warning\" role=\"alert\">");
    assert_non_null(banner);
    /* one sentence, the reasons (one per interval) folded */
    assert_non_null(strstr(banner, "generator may have been the bottleneck, and its own delays count in the latencies "
                                   "(<a href=\"#generator\">Generator health</a>).</strong><details><summary>why"
                                   "</summary>" REASONS ".</details></div>"));
    const char *ths = strstr(page, "<section id=\"thresholds\">"), *sum = strstr(page, "<section id=\"summary\">");
    assert_non_null(ths);
    assert_true(banner < ths && ths < sum);
    /* the first screen: verdict, thresholds, then the charts of All Transactions (with its twin) and the load
     * (when summary.json has it: the cli test's), then the contents */
    const char *ov = strstr(page, "<section id=\"overview\">"), *nav = strstr(page, "<nav class=\"toc\">");
    assert_non_null(ov);
    assert_true(ths < ov && ov < nav && nav < sum);
    assert_non_null(strstr(ov, "data-view=\"overview\" data-kind=\"tput\" data-timer=\"0\""));
    assert_non_null(strstr(ov, "data-view=\"overview\" data-kind=\"rt\" data-timer=\"0\" data-twin-view=\"uncorrected\""));
    assert_null(strstr(page, "data-view=\"overview\" data-kind=\"load-vus\""));   /* no load figures in this file */
    assert_int_equal(count(page, "data-view=\"overview\""), 2);

    /* thresholds: rows with pass/FAIL badges, measured with units, no data, escaped text, the exit code */
    assert_non_null(strstr(ths, "<span class=\"badge fail\">FAIL</span> 1 of 4 passed &middot; exit code 6 "
                                "(a threshold failed)</p>"));
    assert_non_null(strstr(ths, "<tr class=\"fail\"><td class=\"l\">GET p95 &lt; 5ms</td><td class=\"l\">GET</td>"
                                "<td>7.500 ms</td><td class=\"l\"><span class=\"badge fail\">FAIL</span></td></tr>"));
    assert_non_null(strstr(ths, "<tr class=\"pass\"><td class=\"l\">checks rate &gt; 99%</td><td class=\"l\">checks"
                                "</td><td>100.000%</td><td class=\"l\"><span class=\"badge pass\">pass</span></td>"));
    assert_non_null(strstr(ths, "nosuch p50 &lt; 1s</td><td class=\"l\">nosuch</td><td>no data</td><td class=\"l\">"
                                "<span class=\"badge fail\">FAIL</span>"));
    assert_non_null(strstr(ths, "&lt;b&gt;count&lt;/b&gt; &gt;= 1000</td><td class=\"l\">&lt;b&gt;count&lt;/b&gt;"
                                "</td><td>100</td>"));
    assert_null(strstr(page, "<b>"));
    assert_int_equal(count(page, "<span class=\"badge fail\">FAIL</span></td></tr>"), 3);
    assert_non_null(strstr(sum, "(exit code 6 (a threshold failed))"));

    /* generator health: charts, one row per interval, the engine timers there and not under Primitives */
    char *gen = between(page, "<section id=\"generator\">", "<section id=\"checks\">");
    assert_non_null(strstr(gen, "<span class=\"badge fail\">suspect</span> " REASONS));
    assert_int_equal(count(gen, "data-kind=\"health-cpu\""), 1);
    assert_int_equal(count(gen, "data-kind=\"health-lag\""), 1);
    assert_int_equal(count(gen, "<tr class=\"hrow\">"), 3);
    assert_non_null(strstr(gen, "<tr class=\"hrow\"><td>2</td><td class=\"err\">95.5</td><td>0.0</td><td>3.000</td><td>4.500</td>"
                                "<td>1.500</td><td class=\"err\">0.750 (12%)</td><td>1.250</td><td>4</td><td>0</td></tr>"));
    assert_non_null(strstr(gen, "<td>3</td><td>40.0</td><td>0.0</td><td class=\"err\">25.125</td>"));
    assert_non_null(strstr(gen, ">engine.loop_lag</h3>"));
    assert_non_null(strstr(gen, ">engine.schedule_lag</h3>"));
    assert_non_null(strstr(gen, "data-kind=\"rt\" data-timer=\"1\""));
    assert_int_equal(count(page, "engine.loop_lag</h"), 1);
    char *prim = between(page, "<h2>Primitives</h2>", "<section id=\"generator\">");
    assert_null(strstr(prim, "engine."));
    assert_null(strstr(prim, "stage "));
    char *toc = between(page, "<nav class=\"toc\">", "</nav>");
    assert_null(strstr(toc, "engine."));
    assert_non_null(strstr(toc, "<a href=\"#thresholds\">Thresholds</a>"));
    assert_non_null(strstr(toc, "<a href=\"#stages\">Stages</a>"));
    assert_non_null(strstr(toc, "<a href=\"#generator\">Generator health</a>"));

    /* stages: one table between Groups and Custom timers/Primitives, ordered by stage, twin after its
     * timer; no timer section per stage */
    char *stages = between(page, "<section id=\"stages\">", "</section>");
    assert_true(strstr(page, "<h2>Groups</h2>") < strstr(page, "<section id=\"stages\">"));
    assert_true(strstr(page, "<section id=\"stages\">") < strstr(page, "<h2>Primitives</h2>"));
    const char *s1 = strstr(stages, "<tr class=\"stage\"><td class=\"l\">g1</td><td>1</td><td class=\"l\">latency "
                                    "from the intended start</td><td>0.500&ndash;2.500</td><td>312</td><td class=\"err\">3</td>");
    const char *s1u = strstr(stages, "<tr class=\"stage twin\"><td class=\"l\">g1</td><td>1</td><td class=\"l\">"
                                     "uncorrected: from the actual start</td>");
    const char *s2 = strstr(stages, "<tr class=\"stage\"><td class=\"l\">g1</td><td>2</td><td class=\"l\"></td>");
    assert_non_null(s1);
    assert_non_null(s1u);
    assert_non_null(s2);
    assert_true(s1 < s1u && s1u < s2);
    assert_non_null(strstr(s1, "<td>1&ndash;3</td></tr>"));
    assert_int_equal(count(stages, "<tr class=\"stage"), 3);
    assert_null(strstr(page, "id=\"t5\""));
    assert_null(strstr(page, "id=\"t6\""));
    assert_null(strstr(page, "id=\"t8\""));

    /* views: one section per timer, its twins views in it behind a switch (hidden until the script shows
     * it: without JavaScript every view is shown); the corrected view's rt chart names its uncorrected view.
     * The file is schema 1: its twins are folded into their timers' views (summary_normalise), so the
     * timers are 0 All Transactions, 1-2 engine, 3 group g1, 4 memcached.get, 5-6 stages, 7 memcached.set,
     * and a view is its timer's index and the view's name (data-timer-view) */
    assert_non_null(strstr(page, "<section class=\"timer\" id=\"t0\" data-views=\"2\">\n<h2>All Transactions</h2>"));
    char *at = between(page, "<section class=\"timer\" id=\"t0\"", "</section>");
    assert_non_null(strstr(at, "<div class=\"view-switch\" role=\"group\" aria-label=\"latency view\" hidden>"
                               "<span>view:</span><button type=\"button\" data-view=\"corrected\" aria-pressed=\"true\">"
                               "corrected</button><button type=\"button\" data-view=\"uncorrected\" "
                               "aria-pressed=\"false\">uncorrected</button></div>"));
    const char *v0 = strstr(at, "<div class=\"view\" data-view=\"corrected\" data-timer=\"0\">\n<p class=\"sub\">"
                                "<span class=\"lf intended\">latency from the intended start</span>");
    const char *v9 = strstr(at, "<div class=\"view\" data-view=\"uncorrected\" data-timer=\"0\" "
                                "data-timer-view=\"uncorrected\" id=\"t0-uncorrected\">\n"
                                "<p class=\"sub\"><span class=\"lf actual\">uncorrected: from the actual start</span>: "
                                "timer &ldquo;All Transactions (uncorrected)&rdquo;");
    assert_true(v0 && v9 && v0 < v9);
    /* each view its own summary table, charts and interval rows */
    assert_int_equal(count(at, "<table class=\"summary\">"), 2);
    assert_int_equal(count(at, "<table class=\"intervals\">"), 2);
    assert_non_null(strstr(v0, "data-kind=\"rt\" data-timer=\"0\" data-twin-view=\"uncorrected\""));
    assert_non_null(strstr(v9, "data-kind=\"rt\" data-timer=\"0\" data-timer-view=\"uncorrected\"></div>"));
    assert_non_null(strstr(v9, "data-kind=\"tput\" data-timer=\"0\" data-timer-view=\"uncorrected\""));
    free(at);
    assert_non_null(strstr(page, "data-kind=\"rt\" data-timer=\"3\" data-twin-view=\"uncorrected\""));
    assert_non_null(strstr(page, "data-kind=\"rt\" data-timer=\"4\" data-twin-view=\"uncorrected\""));
    assert_int_equal(count(page, "data-twin-view="), 4);                     /* and the first screen's */
    assert_int_equal(count(page, "data-twin="), 0);
    /* memcached.get: three views, corrected, uncorrected and all, in that order */
    char *mg = between(page, "<section class=\"timer\" id=\"t4\" data-views=\"3\">\n<h3>memcached.get</h3>", "</section>");
    assert_non_null(strstr(mg, "data-view=\"corrected\" aria-pressed=\"true\">corrected</button><button type=\"button\" "
                               "data-view=\"uncorrected\" aria-pressed=\"false\">uncorrected</button><button "
                               "type=\"button\" data-view=\"all\" aria-pressed=\"false\">all</button></div>"));
    const char *m4 = strstr(mg, "<div class=\"view\" data-view=\"corrected\" data-timer=\"4\">");
    const char *m7 = strstr(mg, "<div class=\"view\" data-view=\"uncorrected\" data-timer=\"4\" "
                                "data-timer-view=\"uncorrected\" id=\"t4-uncorrected\">");
    const char *m12 = strstr(mg, "<div class=\"view\" data-view=\"all\" data-timer=\"4\" data-timer-view=\"all\" "
                                 "id=\"t4-all\">\n<p class=\"sub\">"
                                 "<span class=\"lf all\">all samples: failures, cancelled and skipped ones included</span>: "
                                 "timer &ldquo;memcached.get (all)&rdquo;");
    assert_true(m4 && m7 && m12 && m4 < m7 && m7 < m12);
    assert_non_null(strstr(m12, "data-kind=\"rt\" data-timer=\"4\" data-timer-view=\"all\"></div>"));
    free(mg);
    /* no views: no switch, no view label */
    char *ms = between(page, "<section class=\"timer\" id=\"t7\" data-views=\"1\">\n<h3>memcached.set</h3>", "</section>");
    assert_null(strstr(ms, "view-switch"));
    assert_null(strstr(ms, "class=\"lf"));
    free(ms);
    assert_int_equal(count(page, "<div class=\"view-switch\""), 3);         /* All Transactions, g1, memcached.get */
    assert_int_equal(count(page, "class=\"lf intended\""), 3);                /* the 3 timers with a twin */
    assert_int_equal(count(page, "class=\"lf actual\""), 3);
    assert_int_equal(count(page, "class=\"lf all\""), 1);
    assert_int_equal(count(page, "<section class=\"timer"), 6);             /* every timer but the stages and views */
    assert_int_equal(count(page, "data-kind=\"rt\""), 11);                  /* one per view, and the first screen's */
    assert_null(strstr(page, "id=\"t0-uncorrected\" hidden"));
    /* the script shows the switch and hides the other views */
    assert_non_null(strstr(html, "function showView(sec, v)"));
    assert_null(strstr(toc, "stage "));
    /* each timer once: its views are in its section, not links of their own */
    assert_non_null(strstr(toc, "<a href=\"#t0\">All Transactions</a><span>Groups:"));
    assert_null(strstr(toc, "(uncorrected)"));
    assert_null(strstr(toc, "href=\"#t0-"));
    assert_null(strstr(toc, "href=\"#t4-"));
    assert_null(strstr(toc, "(all)"));

    /* checks are not counters: the kind says so, not the name */
    char *ctr = between(page, "<section id=\"counters\">", "</section>");
    assert_null(strstr(ctr, "check.pass value ok"));
    assert_null(strstr(ctr, "check.fail"));
    assert_non_null(strstr(ctr, "check.pass lookalike</td><td>7</td>"));
    assert_non_null(strstr(ctr, "http.bytes_sent</td><td>3000</td>"));
    assert_non_null(strstr(ctr, "engine.cpu_us</td><td>1000</td>"));
    assert_non_null(strstr(page, "value ok</td><td>99</td><td class=\"err\">1</td>"));
    json_decref(embedded(html));
    free(ctr);
    free(stages);
    free(toc);
    free(prim);
    free(gen);
    free(page);
    free(html);

    /* a file without the kind field: every counter is listed; a healthy generator has no banner */
    write_file(dir, "summary.json",
               "{\"schema_version\":1,\"scenario\":\"x\",\"timers\":[],\"thresholds\":[],"
               "\"generator\":{\"suspect\":false,\"reasons\":\"\",\"intervals\":[]},"
               "\"counters\":[{\"name\":\"check.pass a\",\"total\":5,\"rate\":1.0}]}");
    html = render(dir);
    assert_non_null(strstr(html, "check.pass a</td><td>5</td>"));
    assert_null(strstr(html, "suspect-warning"));
    assert_null(strstr(html, "<section id=\"thresholds\">"));
    assert_non_null(strstr(html, "<span class=\"badge pass\">not suspect</span>"));
    assert_null(strstr(html, "data-kind=\"health-cpu\""));                 /* no intervals: no chart */
    free(html);
    rmdir_all(dir);
}

/* The headline for one summary.json (a minimal run with All Transactions
 * count/errors, status, exit code, thresholds passed/failed, suspect): the
 * text of <div id="verdict">, its class checked against want_class. */
static void verdict_case(const char *status, int exit_code, long long tx, long long errors, int th_passed,
                         int th_failed, int suspect, const char *want_class, const char *want_text) {
    char *dir = tmpdir();
    json_t *ths = json_array();
    for (int i = 0; i < th_passed + th_failed; i++)
        json_array_append_new(ths, json_pack("{s:s,s:s,s:b,s:f,s:s}", "criterion", "x p95 < 1ms", "timer", "x",
                                             "passed", i < th_passed, "measured", 0.5, "unit", "ms"));
    json_t *root = json_pack("{s:i,s:s,s:s,s:i,s:[{s:s,s:s,s:o,s:[]}],s:o,s:{s:b,s:s,s:[]}}", "schema_version", 1,
        "scenario", "v", "status", status, "exit_code", exit_code, "timers", "name", "All Transactions", "kind", "all",
        "summary", row(tx, errors, 1, 1), "intervals", "thresholds", ths, "generator", "suspect", suspect,
        "reasons", suspect ? "interval 1: generator CPU above 90%" : "", "intervals");
    assert_non_null(root);
    char path[512];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    assert_int_equal(json_dump_file(root, path, 0), 0);
    json_decref(root);
    char *html = render(dir);
    char want[600];
    snprintf(want, sizeof want, "<div class=\"verdict %s\" id=\"verdict\" data-verdict=\"%s\" role=\"status\"><strong>%s",
             want_class, want_class, want_text);
    if (!strstr(html, want)) fprintf(stderr, "want %s\n got %.300s\n", want, strstr(html, "<div class=\"verdict"));
    assert_non_null(strstr(html, want));
    assert_int_equal(count(html, "id=\"verdict\""), 1);
    free(html);
    rmdir_all(dir);
}

/* The headline states the verdict in its colour: red for failed thresholds,
 * every transaction failed, aborted; amber for some errors, suspect,
 * interrupted; green only for a clean run. */
/* One run written as schema 1 (the twins "X (uncorrected)" and "X (all)" as
 * timers of their own, paired by uncorrected_of / all_of, listed after the
 * timers as results.c writes them) and as schema 2 (the same figures under
 * each timer's "views"), each view with figures of its own (base latency). */
typedef struct vt_spec {
    const char *name, *kind, *group;
    int stage;
    double unc_ms, all_ms;    /* the views' base latency; 0: no such view */
} vt_spec;

static const vt_spec vt_specs[] = {
    {"All Transactions", "all", NULL, 0, 0.125, 0},
    {"memcached.get", "primitive", NULL, 0, 0.5, 0.75},
    {"stage 1 g1", "stage", "g1", 1, 0.375, 0.625},
    {"memcached.set", "primitive", NULL, 0, 0, 0},
};
#define VT_N (sizeof vt_specs / sizeof vt_specs[0])

static json_t *vt_view(const char *from, const char *over, double ms) {
    json_t *iv = json_pack("[o,o,o]", row(100, 0, 2, ms), row(101, 1, 2, ms), row(102, 2, 0.5, ms));
    return json_pack("{s:s,s:s,s:o,s:o}", "latency_from", from, "latency_over", over, "summary",
                     row(303, 3, 4.5, ms), "intervals", iv);
}

/* Timer (or schema-1 twin) called name of spec v: a view's fields, its name, kind, group and stage. */
static json_t *vt_timer(const vt_spec *v, const char *name, json_t *fields) {
    json_object_set_new(fields, "name", json_string(name));
    json_object_set_new(fields, "kind", json_string(v->kind));
    if (v->group) {
        json_object_set_new(fields, "group", json_string(v->group));
        json_object_set_new(fields, "stage", json_integer(v->stage));
    }
    return fields;
}

static void write_views_run(const char *dir, int schema) {
    json_t *timers = json_array();
    char name[128];
    for (size_t i = 0; i < VT_N; i++) {
        const vt_spec *v = &vt_specs[i];
        const char *from = v->unc_ms > 0 ? "intended start" : "actual start";
        json_t *t = vt_timer(v, v->name, vt_view(from, "successes", 0.25)), *views = json_object();
        if (schema == 2 && v->unc_ms > 0)
            json_object_set_new(views, "uncorrected", vt_view("actual start", "successes", v->unc_ms));
        if (schema == 2 && v->all_ms > 0) json_object_set_new(views, "all", vt_view(from, "all samples", v->all_ms));
        if (json_object_size(views)) json_object_set(t, "views", views);
        json_decref(views);
        json_array_append_new(timers, t);
    }
    for (size_t i = 0; schema == 1 && i < VT_N; i++) {     /* the twins, after the timers */
        const vt_spec *v = &vt_specs[i];
        if (v->all_ms > 0) {
            snprintf(name, sizeof name, "%s (all)", v->name);
            json_t *t = vt_timer(v, name, vt_view("intended start", "all samples", v->all_ms));
            json_object_set_new(t, "all_of", json_string(v->name));
            json_array_append_new(timers, t);
        }
        if (v->unc_ms > 0) {
            snprintf(name, sizeof name, "%s (uncorrected)", v->name);
            json_t *t = vt_timer(v, name, vt_view("actual start", "successes", v->unc_ms));
            json_object_set_new(t, "uncorrected_of", json_string(v->name));
            json_array_append_new(timers, t);
        }
    }
    json_t *root = json_pack("{s:i,s:s,s:s,s:i,s:f,s:{s:f,s:f,s:i},s:[{s:s,s:i,s:s}],s:o}", "schema_version", schema,
                             "scenario", "views", "status", "completed", "exit_code", 0, "run_time_s", 4.5, "settings",
                             "run_time_s", 4.5, "interval_s", 2.0, "workers", 1, "groups", "name", "g1", "vus", 2,
                             "script", "vu.lua", "timers", timers);
    assert_non_null(root);
    char path[512];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    assert_int_equal(json_dump_file(root, path, JSON_INDENT(2)), 0);
    json_decref(root);
}

/* Schema 2's views (nested) make the same page as schema 1's twins: the same sections, views, cells,
 * stage rows and chart references; each view's cells are its own figures. */
static void test_schema2_views(void **state) {
    (void)state;
    char *d1 = tmpdir(), *d2 = tmpdir();
    write_views_run(d1, 1);
    write_views_run(d2, 2);
    char *h1 = render(d1), *h2 = render(d2);
    char *p1 = between(h1, "<section id=\"overview\">", "<footer>"), *p2 = between(h2, "<section id=\"overview\">", "<footer>");
    assert_string_equal(p1, p2);
    assert_null(strstr(h2, "has schema version"));                          /* schema 2 is known here */
    /* the timers are the families (0 All Transactions, 1 memcached.get, 2 stage 1 g1, 3 memcached.set) in both */
    char *mg = between(p2, "<section class=\"timer\" id=\"t1\" data-views=\"3\">\n<h3>memcached.get</h3>", "</section>");
    const char *vc = strstr(mg, "<div class=\"view\" data-view=\"corrected\" data-timer=\"1\">");
    const char *vu = strstr(mg, "<div class=\"view\" data-view=\"uncorrected\" data-timer=\"1\" data-timer-view=\"uncorrected\"");
    const char *va = strstr(mg, "<div class=\"view\" data-view=\"all\" data-timer=\"1\" data-timer-view=\"all\"");
    assert_true(vc && vu && va && vc < vu && vu < va);
    /* summary rows: min, avg, p50 of each view's base latency (0.25, 0.5, 0.75 ms) */
    const char *cc = strstr(vc, "<td>303</td><td>67.33</td><td class=\"err\">3</td><td>0.050</td><td>0.250</td><td>0.225</td>");
    const char *cu = strstr(vc, "<td>303</td><td>67.33</td><td class=\"err\">3</td><td>0.100</td><td>0.500</td><td>0.450</td>");
    const char *ca = strstr(vc, "<td>303</td><td>67.33</td><td class=\"err\">3</td><td>0.150</td><td>0.750</td><td>0.675</td>");
    assert_true(cc && cu && ca && cc < vu && vu < cu && cu < va && va < ca);
    /* the charts name the timer and the view; the corrected rt chart the uncorrected view too */
    assert_non_null(strstr(vc, "data-kind=\"rt\" data-timer=\"1\" data-twin-view=\"uncorrected\""));
    assert_non_null(strstr(va, "data-kind=\"dist\" data-timer=\"1\" data-timer-view=\"all\""));
    free(mg);
    assert_int_equal(count(p2, "<section class=\"timer"), 3);
    /* stages: the timer, its all view, then its uncorrected view, each with its own p95 (2 x base) */
    char *st = between(p2, "<section id=\"stages\">", "</section>");
    assert_int_equal(count(st, "<tr class=\"stage"), 3);
    const char *r0 = strstr(st, "<tr class=\"stage\"><td class=\"l\">g1</td><td>1</td><td class=\"l\">latency from the "
                                "intended start</td>");
    const char *r1 = strstr(st, "<tr class=\"stage\"><td class=\"l\">g1</td><td>1</td><td class=\"l\"></td>");
    const char *r2 = strstr(st, "<tr class=\"stage twin\"><td class=\"l\">g1</td><td>1</td><td class=\"l\">uncorrected");
    assert_true(r0 && r1 && r2 && r0 < r1 && r1 < r2);
    assert_non_null(strstr(r1, "<td>1.250</td><td>2.553</td>"));
    assert_non_null(strstr(r2, "<td>0.750</td><td>2.553</td>"));
    free(st);
    /* the embedded data is schema 2's shape for both: the script reads D.timers[i].views[v] */
    json_t *j1 = embedded(h1), *t1 = json_object_get(j1, "timers");
    assert_int_equal(json_array_size(t1), VT_N);
    assert_non_null(json_object_get(json_object_get(json_array_get(t1, 1), "views"), "all"));
    assert_null(json_object_get(json_array_get(t1, 1), "all_of"));
    json_decref(j1);
    assert_non_null(strstr(h1, "viewOf(tm, el.getAttribute('data-timer-view'))"));
    free(p1);
    free(p2);
    free(h1);
    free(h2);
    rmdir_all(d1);
    rmdir_all(d2);
}

static void test_verdict(void **state) {
    (void)state;
    verdict_case("completed", 0, 100, 0, 0, 0, 0, "ok", "completed: no error</strong>");
    verdict_case("completed", 0, 100, 0, 2, 0, 0, "ok", "passed: every threshold held, no error</strong>");
    verdict_case("completed", 0, 100, 100, 0, 0, 0, "bad", "every transaction failed (100 of 100)</strong>");
    verdict_case("completed", 6, 100, 100, 1, 1, 0, "bad",
                 "thresholds failed (1 of 2 passed)</strong> &middot; every transaction failed (100 of 100)");
    verdict_case("completed", 0, 100, 5, 0, 0, 0, "warn", "errors: 5 of 100 transactions failed (5.00%)</strong>");
    verdict_case("completed", 0, 100, 0, 0, 0, 1, "warn", "suspect: the load generator may have been the bottleneck");
    verdict_case("interrupted", 5, 100, 0, 0, 0, 0, "warn", "interrupted: the figures cover the run up to the signal");
    verdict_case("aborted", 4, 0, 0, 0, 0, 0, "bad", "aborted: no load was generated");
    verdict_case("completed", 0, 0, 0, 0, 0, 0, "warn", "no transactions");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verdict),
        cmocka_unit_test(test_run_report),
        cmocka_unit_test(test_aborted_run),
        cmocka_unit_test(test_missing_or_invalid),
        cmocka_unit_test(test_phases_index),
        cmocka_unit_test(test_health_thresholds_twins),
        cmocka_unit_test(test_schema2_views),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
