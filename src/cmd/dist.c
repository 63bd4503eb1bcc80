/* dist.c - latency distributions in redis-benchmark and ab styles (see
 * dist.h), and `luamech report DIR --distribution TIMER`. */
#include "cmd/dist.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/exit_codes.h"
#include "common/text.h"
#include "report/hlog.h"

/* ceil(us / 1000), us >= 0 */
static int64_t ceil_ms(int64_t us) {
    return (us + 999) / 1000;
}

/* cum/total as a percentage truncated to 2 decimals, in hundredths
 * (0 <= cum, 0 < total; in 128 bits: cum * 10000 overflows 64 bits for
 * counts past 9.2e14, which a crafted log holds). */
static int64_t pct100(int64_t cum, int64_t total) {
    if (cum >= total) return 10000;
    return (int64_t)((__int128)cum * 10000 / total);
}

void dist_print_redis(FILE *out, const char *title, const hist *h, double seconds) {
    fprintf(out, "====== %s ======\n", title ? title : "");
    if (seconds > 0)
        fprintf(out, "  %lld requests completed in %.2f seconds\n\n", (long long)h->total, seconds);
    else
        fprintf(out, "  %lld requests completed\n\n", (long long)h->total);
    if (h->total == 0) return;
    int64_t cum = 0, cur = -1;
    for (int32_t i = h->lo_idx; i <= h->hi_idx; i++) {
        int64_t count = hist_count_at(h, i);
        if (count == 0) continue;
        int64_t ms = i == h->hi_idx ? ceil_ms(h->max_us) : ceil_ms(hist_value_at_index(i));
        if (cur >= 0 && ms != cur) {
            int64_t p = pct100(cum, h->total);
            fprintf(out, "%lld.%02lld%% <= %lld milliseconds\n", (long long)(p / 100),
                    (long long)(p % 100), (long long)cur);
        }
        cur = ms;
        cum += count;
    }
    int64_t p = pct100(cum, h->total);
    fprintf(out, "%lld.%02lld%% <= %lld milliseconds\n", (long long)(p / 100), (long long)(p % 100),
            (long long)cur);
}

void dist_print_ab(FILE *out, const hist *h) {
    static const int percs[] = {50, 66, 75, 80, 90, 95, 98, 99, 100};
    fputs("Percentage of the requests served within a certain time (ms)\n", out);
    if (h->total == 0) {
        fputs("  (no successful samples)\n", out);
        return;
    }
    for (size_t i = 0; i < sizeof percs / sizeof percs[0]; i++) {
        double ms = (double)hist_percentile_us(h, percs[i]) / 1000.0;
        if (percs[i] >= 100)
            fprintf(out, " 100%%  %9.3f (longest request)\n", ms);
        else
            fprintf(out, "  %d%%  %9.3f\n", percs[i], ms);
    }
}

typedef struct dist_ctx {
    const char *want;       /* escaped timer name */
    const char *raw;        /* as given, for a name already escaped */
    hist *h;
    double seconds;
    int lines;
    char **tags;            /* every tag seen, for the error message */
    int ntags;
    int overflow;           /* the timer's lines hold more than INT64_MAX samples */
} dist_ctx;

static int dist_line(void *ctx, const char *tag, double start_s, double len_s, double max_us,
                     const hist *h) {
    (void)start_s;
    (void)max_us;
    dist_ctx *d = ctx;
    if (strcmp(tag, d->want) == 0 || strcmp(tag, d->raw) == 0) {
        if (h->total > INT64_MAX - d->h->total) {   /* each line's total is checked (hlog.c), not their sum */
            d->overflow = 1;
            return 1;
        }
        hist_merge(d->h, h);
        d->seconds += len_s;
        d->lines++;
        return 0;
    }
    char *name = strdup(tag);
    if (!name) return 0;
    hlog_tag_unescape(name);
    for (int i = 0; i < d->ntags; i++)
        if (strcmp(d->tags[i], name) == 0) {
            free(name);
            return 0;
        }
    char **t = realloc(d->tags, (size_t)(d->ntags + 1) * sizeof *t);
    if (!t) {
        free(name);
        return 0;
    }
    d->tags = t;
    t[d->ntags++] = name;
    return 0;
}

int dist_cmd_print(const char *dir, const char *timer, const char *style, FILE *out) {
    if (!style) style = "redis";
    if (strcmp(style, "redis") != 0 && strcmp(style, "ab") != 0) {
        fprintf(stderr, "luamech: report: --style: expected redis or ab, got '%s'\n", style);
        return EXIT_USAGE;
    }
    size_t dlen = strlen(dir);
    while (dlen > 1 && dir[dlen - 1] == '/') dlen--;
    size_t plen = dlen + sizeof "/" HLOG_FILE;
    size_t elen = hlog_tag_escape(timer, NULL, 0) + 1;
    char *path = malloc(plen), *want = malloc(elen), err[4400];
    dist_ctx d = {.want = want, .raw = timer, .h = malloc(sizeof(hist))};
    int code = EXIT_OK;
    if (d.h) hist_init(d.h);            /* before any exit: done frees its chunks */
    if (!path || !want || !d.h) {
        fprintf(stderr, "luamech: report: out of memory\n");
        code = EXIT_RUNTIME;
        goto done;
    }
    snprintf(path, plen, "%.*s/%s", (int)dlen, dir, HLOG_FILE);
    hlog_tag_escape(timer, want, elen);
    hist_init(d.h);
    int rc = hlog_read(path, dist_line, &d, err, sizeof err);
    if (rc != 0 && d.overflow) {
        fprintf(stderr, "luamech: report: %s: the samples of '%s' add up past %lld after %d line(s): not a log a run "
                "writes\n", path, timer, (long long)INT64_MAX, d.lines);
        code = EXIT_SCENARIO;
        goto done;
    }
    if (rc != 0) {
        fprintf(stderr, "luamech: report: %s\n", err);
        code = EXIT_SCENARIO;
        goto done;
    }
    if (d.lines == 0) {
        fprintf(stderr, "luamech: report: no timer '%s' in %s; it has:", timer, path);
        for (int i = 0; i < d.ntags; i++) {    /* names as written: escaped for the terminal */
            char buf[1024];
            fprintf(stderr, "%s \"%s\"", i ? "," : "", text_clean(d.tags[i], buf, sizeof buf));
        }
        fprintf(stderr, "%s\n", d.ntags ? "" : " no timers");
        code = EXIT_SCENARIO;
        goto done;
    }
    if (strcmp(style, "ab") == 0)
        dist_print_ab(out, d.h);
    else
        dist_print_redis(out, timer, d.h, d.seconds);
done:
    for (int i = 0; i < d.ntags; i++) free(d.tags[i]);
    free(d.tags);
    if (d.h) hist_free(d.h);
    free(d.h);
    free(want);
    free(path);
    return code;
}
