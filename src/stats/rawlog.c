/* rawlog.c - multi-mechanize compatible results.csv: lines
 * "N,elapsed,epoch,group,trans_time,error,{'TIMER': seconds, ...}" (the
 * format of multi-mechanize's ResultsWriter).  Workers write parts without N;
 * the merge sorts by elapsed and numbers them.  See rawlog.h. */
#include "stats/rawlog.h"

#include <stdlib.h>
#include <string.h>

#include "common/text.h"

#define RAWLOG_BUF (1 << 20)

int rawlog_open(rawlog *r, const char *dir, int worker) {
    char path[4200];
    snprintf(path, sizeof path, "%s/.mm-%d.part", dir, worker);
    memset(r, 0, sizeof *r);
    r->f = fopen(path, "w");
    if (!r->f) return -1;
    r->buf = malloc(RAWLOG_BUF);
    setvbuf(r->f, r->buf, _IOFBF, RAWLOG_BUF);
    return 0;
}

/* Escaped text (common/text.h: no line breaks, control bytes or invalid
 * UTF-8); `bad` (commas, or quotes) would break the line format: spaces. */
static void rawlog_text(FILE *f, const char *s, char bad) {
    char buf[1024];
    for (s = s ? text_clean(s, buf, sizeof buf) : ""; *s; s++) fputc(*s == bad ? ' ' : *s, f);
}

void rawlog_tx(rawlog *r, double start_s, int64_t epoch, const char *group, double tx_s,
               const char *error, const rawlog_timer *timers, int ntimers) {
    if (!r->f) return;
    fprintf(r->f, "%.3f,%lld,", start_s, (long long)epoch);
    rawlog_text(r->f, group, ',');
    fprintf(r->f, ",%f,", tx_s);
    rawlog_text(r->f, error, ',');
    fputc(',', r->f);
    fputc('{', r->f);
    for (int i = 0; i < ntimers; i++) {
        fputs(i ? ", '" : "'", r->f);
        rawlog_text(r->f, timers[i].name, '\'');
        fprintf(r->f, "': %f", timers[i].seconds);
    }
    fputs("}\n", r->f);
}

void rawlog_close(rawlog *r) {
    if (r->f) fclose(r->f);
    free(r->buf);
    memset(r, 0, sizeof *r);
}

typedef struct rawlog_line { double start; char *text; } rawlog_line;

static int rawlog_cmp(const void *a, const void *b) {
    double x = ((const rawlog_line *)a)->start, y = ((const rawlog_line *)b)->start;
    return x < y ? -1 : x > y;
}

static int rawlog_read(const char *path, rawlog_line **lines, size_t *n, size_t *cap) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char *line = NULL;
    size_t len = 0;
    while (getline(&line, &len, f) > 0) {
        if (*n == *cap) {
            *cap = *cap ? *cap * 2 : 4096;
            *lines = realloc(*lines, *cap * sizeof **lines);
        }
        (*lines)[*n].start = strtod(line, NULL);
        (*lines)[(*n)++].text = strdup(line);
    }
    free(line);
    fclose(f);
    return 0;
}

long rawlog_merge(const char *dir, int nworkers) {
    rawlog_line *lines = NULL;
    size_t n = 0, cap = 0;
    char path[4200];
    for (int w = 0; w < nworkers; w++) {
        snprintf(path, sizeof path, "%s/.mm-%d.part", dir, w);
        if (rawlog_read(path, &lines, &n, &cap) == 0) remove(path);
    }
    qsort(lines, n, sizeof *lines, rawlog_cmp);
    snprintf(path, sizeof path, "%s/results.csv", dir);
    FILE *f = fopen(path, "w");
    for (size_t i = 0; i < n; i++) {
        if (f) fprintf(f, "%zu,%s", i + 1, lines[i].text);
        free(lines[i].text);
    }
    free(lines);
    if (!f || fclose(f) != 0) return -1;
    return (long)n;
}
