/* compare_args.c - the command line of `luamech compare A B`: the options
 * (--timer, --fail-if, --all, --json, --help), the usage text and its
 * errors (exit 2), and the --fail-if limits: parsing 'STAT>PCT%' and
 * checking a change against one (pure; tests/unit/test_compare.c).  Reads
 * no file and prints no comparison: that is compare.c. */
#include "report/compare_priv.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ---- --fail-if limits ---- */

static const char *cmp_skip_space(const char *p) {
    while (isspace((unsigned char)*p)) p++;
    return p;
}

/* The figure named at *pp into l->fig, *pp moved past it.  0, or -1 with a
 * message (s: the whole limit, for the message). */
static int cmp_limit_figure(const char *s, const char **pp, cmp_limit *l, char *err, size_t err_len) {
    const char *p = cmp_skip_space(*pp), *name = p;
    while (isalnum((unsigned char)*p) || *p == '.' || *p == '_') p++;
    size_t nlen = (size_t)(p - name);
    int f = cmp_fig_parse(name, nlen);
    if (f < 0) {
        if (nlen == 0) cmp_errf(err, err_len, "'%s': expected a figure, e.g. 'p95>10%%' or 'rate<-5%%'", s);
        else cmp_errf(err, err_len, "'%s': unknown figure '%.*s' (rate, count, errors, min, avg, p50, p80, p90, "
                      "p95, p99, p99.9, max, stdev)", s, (int)nlen, name);
        return -1;
    }
    l->fig = (cmp_fig)f;
    *pp = p;
    return 0;
}

/* The operator at *pp: > or <, maybe followed by =. */
static int cmp_limit_op(const char *s, const char **pp, cmp_limit *l, char *err, size_t err_len) {
    const char *p = cmp_skip_space(*pp);
    if (*p != '>' && *p != '<') {
        cmp_errf(err, err_len, "'%s': expected > or < after '%s'", s, cmp_fig_name(l->fig));
        return -1;
    }
    l->op = *p++;
    if (*p == '=') {
        l->or_equal = 1;
        p++;
    }
    *pp = p;
    return 0;
}

/* The rest of the limit: a signed number, '%', then nothing. */
static int cmp_limit_pct(const char *s, const char *p, cmp_limit *l, char *err, size_t err_len) {
    p = cmp_skip_space(p);
    const char *num = p;
    if (*p == '+' || *p == '-') p++;
    int digits = 0;
    while (isdigit((unsigned char)*p)) p++, digits++;
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) p++, digits++;
    }
    if (!digits) {
        cmp_errf(err, err_len, "'%s': expected a number of percent after '%c%s'", s, l->op, l->or_equal ? "=" : "");
        return -1;
    }
    char nbuf[64];
    snprintf(nbuf, sizeof nbuf, "%.*s", (int)(p - num) < 63 ? (int)(p - num) : 63, num);
    l->pct = strtod(nbuf, NULL);
    p = cmp_skip_space(p);
    if (*p != '%') {
        cmp_errf(err, err_len, "'%s': the limit is a change in percent: put %% after the number (e.g. '%s%c%s%%')", s,
                 cmp_fig_name(l->fig), l->op, nbuf);
        return -1;
    }
    p = cmp_skip_space(p + 1);
    if (*p) {
        cmp_errf(err, err_len, "'%s': unexpected '%s' after the limit", s, p);
        return -1;
    }
    return 0;
}

/* A finite number, and the operator pointing the way the figure gets worse. */
static int cmp_limit_check(const char *s, const cmp_limit *l, char *err, size_t err_len) {
    if (!isfinite(l->pct)) {
        cmp_errf(err, err_len, "'%s': bad number", s);
        return -1;
    }
    if (cmp_fig_higher_is_worse(l->fig) && l->op != '>') {
        cmp_errf(err, err_len, "'%s': a higher %s is worse, so its limit is '%s>PCT%%' (B's %s more than PCT%% "
                 "above A's)", s, cmp_fig_name(l->fig), cmp_fig_name(l->fig), cmp_fig_name(l->fig));
        return -1;
    }
    if (!cmp_fig_higher_is_worse(l->fig) && l->op != '<') {
        cmp_errf(err, err_len, "'%s': a lower %s is worse, so its limit is '%s<-PCT%%' (B's %s more than PCT%% "
                 "below A's)", s, cmp_fig_name(l->fig), cmp_fig_name(l->fig), cmp_fig_name(l->fig));
        return -1;
    }
    return 0;
}

int cmp_limit_parse(const char *s, cmp_limit *l, char *err, size_t err_len) {
    memset(l, 0, sizeof *l);
    const char *p = s;
    if (cmp_limit_figure(s, &p, l, err, err_len) != 0 || cmp_limit_op(s, &p, l, err, err_len) != 0 ||
        cmp_limit_pct(s, p, l, err, err_len) != 0 || cmp_limit_check(s, l, err, err_len) != 0)
        return -1;
    snprintf(l->text, sizeof l->text, "%s%c%s%g%%", cmp_fig_name(l->fig), l->op, l->or_equal ? "=" : "", l->pct);
    return 0;
}

int cmp_limit_exceeded(const cmp_limit *l, double a, double b) {
    double c;
    if (cmp_pct_change(a, b, &c) != 0) {      /* zero base */
        if (b > a) return l->op == '>';         /* +infinity: past any '>' limit, never below a '<' one */
        if (b < a) return l->op == '<';
        c = 0;                                  /* 0 -> 0: no change */
    }
    if (l->op == '>') return l->or_equal ? c >= l->pct : c > l->pct;
    return l->or_equal ? c <= l->pct : c < l->pct;
}

/* ---- the command line ---- */

static const char cmp_usage[] =
"usage: luamech compare A B [--timer NAME ...] [--fail-if 'STAT>PCT%' ...] [--all] [--json]\n"
"\n"
"Compares two runs: A and B are results directories (or their summary.json).\n"
"For every timer present in both, prints the figures of the whole run side by\n"
"side (rate/s, count, errors, p50, p95, p99, max, avg; times in ms) with the\n"
"change of B against A in percent ((B - A) / A; n/a when A's figure is 0).\n"
"Timers present in one run only are listed as such.  For the top directory of\n"
"a phased run, compares phase by phase (phases matched by name).\n"
"\n"
"options:\n"
"  --timer NAME       compare only this timer (repeatable; e.g. --timer GET)\n"
"  --fail-if LIMIT    exit 1 when a compared timer's figure changes past LIMIT\n"
"                     (repeatable):  'p95>10%'  B's p95 more than 10% above A's;\n"
"                     'rate<-5%'  B's rate more than 5% below A's.  A higher value\n"
"                     is worse for errors and latencies (min avg p50 p80 p90 p95\n"
"                     p99 p99.9 max stdev: use >), a lower one for rate and count\n"
"                     (use <).  A zero base counts as +/-infinity when B differs.\n"
"  --all              also compare the engine's timers (engine.loop_lag, ...)\n"
"  --json             print the comparison as JSON\n"
"\n"
"exit codes:\n"
"  0  compared; no figure past a --fail-if limit\n"
"  1  a figure regressed past a --fail-if limit (the timer and figure are printed)\n"
"  2  usage error (unknown option, bad limit, --timer naming no timer of A or B)\n"
"  3  A or B, or a summary.json, is missing or invalid\n";

static int cmp_bad(const char *fmt, const char *arg) {
    fprintf(stderr, "luamech: compare: ");
    fprintf(stderr, fmt, arg ? arg : "");
    fprintf(stderr, "\nTry 'luamech compare --help'.\n");
    return EXIT_USAGE;
}

/* argv[*i] is opt, with its value as "opt=VALUE" or as the next argument
 * (*i moved past it): 1 with *val (NULL when missing); else 0. */
static int cmp_arg_value(int argc, char **argv, int *i, const char *opt, const char **val) {
    size_t n = strlen(opt);
    const char *a = argv[*i];
    if (strncmp(a, opt, n) != 0) return 0;
    if (a[n] == '=') {
        *val = a + n + 1;
        return 1;
    }
    if (a[n] != 0) return 0;
    if (*i + 1 >= argc) {
        *val = NULL;
        return 1;
    }
    *val = argv[++*i];
    return 1;
}

static int cmp_opt_timer(cmp_opts *o, const char *val) {
    if (!val) return cmp_bad("option --timer needs a timer name%s", NULL);
    if (!*val) return cmp_bad("option --timer: empty timer name%s", NULL);
    o->timers[o->ntimers++] = val;
    return CMP_GO_ON;
}

static int cmp_opt_fail_if(cmp_opts *o, const char *val) {
    if (!val) return cmp_bad("option --fail-if needs a limit, e.g. 'p95>10%%'%s", NULL);
    char err[512];
    if (cmp_limit_parse(val, &o->limits[o->nlimits], err, sizeof err) != 0) return cmp_bad("--fail-if %s", err);
    o->shown[o->limits[o->nlimits].fig] = 1;
    o->nlimits++;
    return CMP_GO_ON;
}

/* The option argv[*i] (*i moved past a separate value).  CMP_GO_ON, or the
 * exit code: 0 after --help, 2 after a usage error. */
static int cmp_option(int argc, char **argv, int *i, cmp_opts *o) {
    const char *a = argv[*i], *val;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
        fputs(cmp_usage, stdout);
        return EXIT_OK;
    }
    if (strcmp(a, "--json") == 0) {
        o->json = 1;
        return CMP_GO_ON;
    }
    if (strcmp(a, "--all") == 0) {
        o->all = 1;
        return CMP_GO_ON;
    }
    if (cmp_arg_value(argc, argv, i, "--timer", &val)) return cmp_opt_timer(o, val);
    if (cmp_arg_value(argc, argv, i, "--fail-if", &val)) return cmp_opt_fail_if(o, val);
    return cmp_bad("unknown option %s", a);
}

/* Options anywhere until "--"; "-" alone is an argument. */
int cmp_parse_args(int argc, char **argv, cmp_opts *o) {
    int opts = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts && strcmp(a, "--") == 0) {
            opts = 0;
            continue;
        }
        if (opts && a[0] == '-' && a[1] != 0) {
            int rc = cmp_option(argc, argv, &i, o);
            if (rc != CMP_GO_ON) return rc;
            continue;
        }
        if (!o->a) o->a = a;
        else if (!o->b) o->b = a;
        else return cmp_bad("unexpected argument %s (compare takes two runs, A and B)", a);
    }
    if (!o->a || !*o->a || !o->b || !*o->b)
        return cmp_bad("missing the A and B arguments (two results directories)%s", NULL);
    return CMP_GO_ON;
}

/* The figures printed by default. */
static const cmp_fig cmp_default_figs[] = {CMP_RATE, CMP_COUNT, CMP_ERRORS, CMP_P50,
                                           CMP_P95,  CMP_P99,   CMP_MAX,    CMP_AVG};

int cmp_opts_init(cmp_opts *o, int argc) {
    memset(o, 0, sizeof *o);
    for (size_t k = 0; k < sizeof cmp_default_figs / sizeof cmp_default_figs[0]; k++)
        o->shown[cmp_default_figs[k]] = 1;
    int n = argc > 0 ? argc : 1;
    o->timers = calloc((size_t)n, sizeof *o->timers);
    o->timer_seen = calloc((size_t)n, sizeof *o->timer_seen);
    o->limits = calloc((size_t)n, sizeof *o->limits);
    return o->timers && o->timer_seen && o->limits ? 0 : -1;
}

void cmp_opts_free(cmp_opts *o) {
    free(o->timers);
    free(o->timer_seen);
    free(o->limits);
}
