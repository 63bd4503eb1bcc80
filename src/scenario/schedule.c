/* schedule.c - piecewise-linear targets and their integrals; see
 * schedule.h.  Pure arithmetic on nanoseconds and doubles. */
#include "scenario/schedule.h"

#include <math.h>
#include <string.h>

void sched_constant(schedule *s, double target) {
    memset(s, 0, sizeof *s);
    s->start = target;
}

/* Segment i runs from (from, a) to (from + dur, b). */
typedef struct seg { int64_t from, dur; double a, b; } seg;

static int sched_seg(const schedule *s, int i, seg *g) {
    if (i > s->n) return 0;
    int64_t from = 0;
    double a = s->start;
    for (int k = 0; k < i; k++) {
        from += s->st[k].dur_ns;
        a = s->st[k].target;
    }
    g->from = from;
    g->a = a;
    g->dur = i < s->n ? s->st[i].dur_ns : SCHED_NEVER;   /* the tail holds forever */
    g->b = i < s->n ? s->st[i].target : a;
    return 1;
}

double sched_target(const schedule *s, int64_t t) {
    seg g;
    for (int i = 0; sched_seg(s, i, &g); i++) {
        if (g.dur != SCHED_NEVER && t >= g.from + g.dur) continue;
        if (g.dur == SCHED_NEVER || g.dur == 0) return g.b;
        return g.a + (g.b - g.a) * (double)(t - g.from) / (double)g.dur;
    }
    return s->start;
}

int64_t sched_first_above(const schedule *s, double level, int64_t from_ns) {
    if (sched_target(s, from_ns) > level) return from_ns;
    seg g;
    for (int i = 0; sched_seg(s, i, &g); i++) {
        if (g.dur != SCHED_NEVER && g.from + g.dur <= from_ns) continue;
        if (g.dur == SCHED_NEVER) return g.b > level ? (g.from > from_ns ? g.from : from_ns) : SCHED_NEVER;
        if (g.b <= level) continue;                     /* never above within this segment */
        if (g.a > level) return g.from > from_ns ? g.from : from_ns;
        int64_t t = g.from + (int64_t)ceil((level - g.a) / (g.b - g.a) * (double)g.dur);
        if (sched_target(s, t) <= level) t++;           /* strictly above */
        return t > from_ns ? t : from_ns;
    }
    return SCHED_NEVER;
}

static double sched_seg_integral(const seg *g, int64_t upto) {
    double x = (double)(upto - g->from) / 1e9;           /* seconds into the segment */
    if (g->dur == SCHED_NEVER || g->dur == 0) return g->b * x;
    double d = (double)g->dur / 1e9;
    return g->a * x + (g->b - g->a) * x * x / (2 * d);
}

double sched_integral(const schedule *s, int64_t t) {
    double sum = 0;
    seg g;
    for (int i = 0; sched_seg(s, i, &g); i++) {
        int64_t end = g.dur == SCHED_NEVER ? SCHED_NEVER : g.from + g.dur;
        if (t <= end) return sum + sched_seg_integral(&g, t);
        sum += sched_seg_integral(&g, end);
    }
    return sum;
}

/* Within a segment: seconds x with a x + (b - a) x^2 / 2d = need. */
static double sched_seg_solve(const seg *g, double need) {
    if (g->dur == SCHED_NEVER || g->dur == 0 || g->b == g->a) return g->b > 0 ? need / g->b : INFINITY;
    double d = (double)g->dur / 1e9, k = (g->b - g->a) / (2 * d);
    double disc = g->a * g->a + 4 * k * need;
    if (disc < 0) return INFINITY;
    return (-g->a + sqrt(disc)) / (2 * k);
}

int64_t sched_arrival_ns(const schedule *s, double k) {
    double sum = 0;
    seg g;
    for (int i = 0; sched_seg(s, i, &g); i++) {
        double in_seg = g.dur == SCHED_NEVER ? INFINITY : sched_seg_integral(&g, g.from + g.dur);
        if (sum + in_seg >= k) {
            double x = sched_seg_solve(&g, k - sum);
            if (!isfinite(x)) return SCHED_NEVER;
            int64_t t = g.from + (int64_t)ceil(x * 1e9 - 1e-3);
            return t < g.from ? g.from : t;
        }
        sum += in_seg;
    }
    return SCHED_NEVER;
}

double sched_max(const schedule *s) {
    double m = s->start;
    for (int i = 0; i < s->n; i++) if (s->st[i].target > m) m = s->st[i].target;
    return m;
}

int64_t sched_total_ns(const schedule *s) {
    int64_t t = 0;
    for (int i = 0; i < s->n; i++) t += s->st[i].dur_ns;
    return t;
}
