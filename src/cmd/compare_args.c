/* compare_args.c - the command line of `luamech compare A B` (and of sets,
 * `A1 A2 ... -- B1 B2 ...`): the options (--timer, --view, --fail-if,
 * --floor, --alpha, --all, --json, --help), the usage text and its errors (exit 2),
 * and the --fail-if limits: parsing 'STAT>PCT%', 'STAT>+AMOUNT' and
 * ',floor=AMOUNT', and checking a change against one (pure;
 * tests/unit/test_compare.c).  Reads
 * no file and prints no comparison: that is compare.c. */
#include "cmd/compare_priv.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/exit_codes.h"

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
        if (nlen == 0) text_errf(err, err_len, "'%s': expected a figure, e.g. 'p95>10%%' or 'rate<-5%%'", s);
        else {
            char names[256] = "";
            for (int k = 0; k < CMP_NFIGS; k++)
                if (cmp_fig_comparable(k))
                    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", *names ? ", " : "",
                             cmp_fig_name((cmp_fig)k));
            text_errf(err, err_len, "'%s': unknown figure '%.*s' (%s)", s, (int)nlen, name, names);
        }
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
        text_errf(err, err_len, "'%s': expected > or < after '%s'", s, cmp_fig_name(l->fig));
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

/* A number at *pp (moved past it), with an optional sign: the count of its
 * digits (0: no number, or more digits than a double holds), *v, and *sign
 * ('+', '-' or 0).  A number with an exponent (1e3) is none a limit takes:
 * CMP_NUM_RANGE when it is past CMP_AMOUNT_MAX (1e999), else CMP_NUM_EXP,
 * so that the message says that and not that a unit is wrong. */
#define CMP_NUM_RANGE (-1)
#define CMP_NUM_EXP (-2)
static int cmp_number_at(const char **pp, double *v, char *sign) {
    const char *p = *pp, *num = p;
    *sign = 0;
    if (*p == '+' || *p == '-') *sign = *p++;
    int digits = 0;
    while (isdigit((unsigned char)*p)) p++, digits++;
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) p++, digits++;
    }
    if (digits && (*p == 'e' || *p == 'E') &&
        (isdigit((unsigned char)p[1]) || ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])))) {
        double x = strtod(num, NULL);
        return !isfinite(x) || fabs(x) > CMP_AMOUNT_MAX ? CMP_NUM_RANGE : CMP_NUM_EXP;
    }
    if (!digits || digits > 15) return 0;     /* no number, or more digits than a double holds */
    char nbuf[64];
    snprintf(nbuf, sizeof nbuf, "%.*s", (int)(p - num) < 63 ? (int)(p - num) : 63, num);
    *v = strtod(nbuf, NULL);
    *pp = p;
    return digits;
}

/* The message of a number cmp_number_at refused (rc < 0). */
static int cmp_number_err(const char *s, int rc, char *err, size_t err_len) {
    if (rc == CMP_NUM_RANGE)
        return text_errf(err, err_len, "'%s': the number is out of range (at most 1000000000000)", s);
    return text_errf(err, err_len, "'%s': write the number without an exponent (e.g. 1000, not 1e3)", s);
}

/* The unit at *pp (moved past it) into *u, and the factor into the unit's
 * base (ms for times): ms, us, s, /s, or none (the end, ',' or a space: a
 * count).  0, or -1 when the text there is no unit. */
static int cmp_unit_at(const char **pp, cmp_unit *u, double *factor) {
    const char *p = *pp;
    int n = 0;
    *factor = 1;
    if (strncmp(p, "ms", 2) == 0) *u = CMP_UNIT_MS, n = 2;
    else if (strncmp(p, "us", 2) == 0) *u = CMP_UNIT_MS, *factor = 0.001, n = 2;
    else if (strncmp(p, "/s", 2) == 0) *u = CMP_UNIT_RATE, n = 2;
    else if (p[0] == 's') *u = CMP_UNIT_MS, *factor = 1000, n = 1;
    else if (*p == 0 || *p == ',' || isspace((unsigned char)*p)) *u = CMP_UNIT_COUNT;
    else return -1;
    if (isalnum((unsigned char)p[n])) return -1;
    *pp = p + n;
    return 0;
}

static const char *cmp_unit_suffix(cmp_unit u) { return u == CMP_UNIT_MS ? "ms" : u == CMP_UNIT_RATE ? "/s" : ""; }
static const char *cmp_unit_example(cmp_unit u) { return u == CMP_UNIT_MS ? "2ms" : u == CMP_UNIT_RATE ? "500/s" : "10"; }

int cmp_amount_parse(const char *s, cmp_unit *unit, double *v, char *err, size_t err_len) {
    const char *p = cmp_skip_space(s);
    char sign;
    double factor;
    int got = cmp_number_at(&p, v, &sign);
    if (got < 0) return cmp_number_err(s, got, err, err_len);
    if (!got || sign) {
        text_errf(err, err_len, "'%s': expected an unsigned amount with its unit: 1ms, 250us, 0.5s, 50/s, "
                 "or a bare number of samples", s);
        return -1;
    }
    p = cmp_skip_space(p);
    if (cmp_unit_at(&p, unit, &factor) != 0 || *cmp_skip_space(p)) {
        text_errf(err, err_len, "'%s': unknown unit (ms, us, s, /s, or none for samples)", s);
        return -1;
    }
    *v *= factor;
    if (!isfinite(*v) || *v <= 0) {
        text_errf(err, err_len, "'%s': the amount must be above 0", s);
        return -1;
    }
    if (*v > CMP_AMOUNT_MAX) {
        text_errf(err, err_len, "'%s': too large (at most 1000000000000%s)", s, cmp_unit_suffix(*unit));
        return -1;
    }
    return 0;
}

/* After the number of a limit (*pp at its unit): '%' (a change in percent)
 * or the figure's unit with a sign (an absolute change). */
static int cmp_limit_unit(const char *s, const char **pp, cmp_limit *l, double v, char sign, char *err,
                          size_t err_len) {
    const char *p = cmp_skip_space(*pp);
    cmp_unit u, want = cmp_fig_unit(l->fig);
    double factor;
    const char *name = cmp_fig_name(l->fig), *eq = l->or_equal ? "=" : "";
    if (*p == '%') {
        l->pct = v;
        *pp = p + 1;
        return 0;
    }
    if (cmp_unit_at(&p, &u, &factor) != 0 || u != want) {
        text_errf(err, err_len, "'%s': the limit is a change of B against A: in percent (put %% after the number, "
                 "e.g. '%s%c%s%g%%') or an amount in %s's unit with its sign (e.g. '%s%c%s%c%s')", s, name, l->op,
                 eq, v, name, name, l->op, eq, l->op == '>' ? '+' : '-', cmp_unit_example(want));
        return -1;
    }
    if (!sign) {
        text_errf(err, err_len, "'%s': an absolute limit is a change and takes its sign: '%s%c%s%c%g%s' (B's %s "
                 "more than %g%s %s A's)", s, name, l->op, eq, l->op == '>' ? '+' : '-', v, cmp_unit_suffix(u), name,
                 v, cmp_unit_suffix(u), l->op == '>' ? "above" : "below");
        return -1;
    }
    l->absolute = 1;
    l->amount = v * factor;
    if (fabs(l->amount) > CMP_AMOUNT_MAX) {
        text_errf(err, err_len, "'%s': too large (at most 1000000000000%s)", s, cmp_unit_suffix(u));
        return -1;
    }
    *pp = p;
    return 0;
}

/* The rest of the limit: a signed number, '%' or a unit, maybe ',floor=AMOUNT',
 * then nothing. */
static int cmp_limit_value(const char *s, const char *p, cmp_limit *l, char *err, size_t err_len) {
    p = cmp_skip_space(p);
    double v = 0;
    char sign;
    int got = cmp_number_at(&p, &v, &sign);
    if (got < 0) return cmp_number_err(s, got, err, err_len);
    if (!got) {
        text_errf(err, err_len, "'%s': expected a number of percent or an amount after '%c%s'", s, l->op,
                 l->or_equal ? "=" : "");
        return -1;
    }
    if (cmp_limit_unit(s, &p, l, v, sign, err, err_len) != 0) return -1;
    p = cmp_skip_space(p);
    if (strncmp(p, ",floor=", 7) == 0) {
        cmp_unit u;
        char ferr[256];
        if (cmp_amount_parse(p + 7, &u, &l->floor, ferr, sizeof ferr) != 0) {
            text_errf(err, err_len, "'%s': floor %s", s, ferr);
            return -1;
        }
        if (u != cmp_fig_unit(l->fig)) {
            text_errf(err, err_len, "'%s': the floor of %s is in its unit (e.g. floor=%s)", s, cmp_fig_name(l->fig),
                     cmp_unit_example(cmp_fig_unit(l->fig)));
            return -1;
        }
        l->has_floor = 1;
        p += strlen(p);
    }
    if (*p) {
        text_errf(err, err_len, "'%s': unexpected '%s' after the limit", s, p);
        return -1;
    }
    return 0;
}

/* A finite number, and the operator pointing the way the figure gets worse. */
static int cmp_limit_check(const char *s, const cmp_limit *l, char *err, size_t err_len) {
    if (!isfinite(l->pct) || !isfinite(l->amount)) {
        text_errf(err, err_len, "'%s': bad number", s);
        return -1;
    }
    if (cmp_fig_higher_is_worse(l->fig) && l->op != '>') {
        text_errf(err, err_len, "'%s': a higher %s is worse, so its limit is '%s>PCT%%' (B's %s more than PCT%% "
                 "above A's)", s, cmp_fig_name(l->fig), cmp_fig_name(l->fig), cmp_fig_name(l->fig));
        return -1;
    }
    if (!cmp_fig_higher_is_worse(l->fig) && l->op != '<') {
        text_errf(err, err_len, "'%s': a lower %s is worse, so its limit is '%s<-PCT%%' (B's %s more than PCT%% "
                 "below A's)", s, cmp_fig_name(l->fig), cmp_fig_name(l->fig), cmp_fig_name(l->fig));
        return -1;
    }
    return 0;
}

/* v as the parser reads numbers back: plain decimals, never an exponent
 * ("2500000", not "2.5e+06"), at most 15 digits (what the parser takes) of
 * which at most 6 decimals, no trailing zeros.  |v| is below 1e15 (an
 * amount at most CMP_AMOUNT_MAX, a percentage at most 15 digits). */
static void cmp_fmt_plain(char *buf, size_t len, double v, int with_sign) {
    char whole[64];
    int int_digits = snprintf(whole, sizeof whole, "%.0f", trunc(fabs(v)));
    int decimals = int_digits >= 15 ? 0 : 15 - int_digits < 6 ? 15 - int_digits : 6;
    int n = snprintf(buf, len, with_sign ? "%+.*f" : "%.*f", decimals, v);
    if (n <= 0 || (size_t)n >= len) return;
    while (n > 0 && buf[n - 1] == '0') buf[--n] = 0;
    if (n > 0 && buf[n - 1] == '.') buf[--n] = 0;
}

/* l's normalized text: "p95>10%", "p95>+2ms", "rate<-500/s,floor=50/s". */
static void cmp_limit_text(cmp_limit *l) {
    const char *eq = l->or_equal ? "=" : "", *name = cmp_fig_name(l->fig);
    const char *unit = cmp_unit_suffix(cmp_fig_unit(l->fig));
    char num[48], fl[48];
    int n;
    cmp_fmt_plain(num, sizeof num, l->absolute ? l->amount : l->pct, l->absolute);
    if (l->absolute) n = snprintf(l->text, sizeof l->text, "%s%c%s%s%s", name, l->op, eq, num, unit);
    else n = snprintf(l->text, sizeof l->text, "%s%c%s%s%%", name, l->op, eq, num);
    cmp_fmt_plain(fl, sizeof fl, l->floor, 0);
    if (l->has_floor && n > 0 && (size_t)n < sizeof l->text)
        snprintf(l->text + n, sizeof l->text - (size_t)n, ",floor=%s%s", fl, unit);
}

int cmp_limit_parse(const char *s, cmp_limit *l, char *err, size_t err_len) {
    memset(l, 0, sizeof *l);
    const char *p = s;
    if (cmp_limit_figure(s, &p, l, err, err_len) != 0 || cmp_limit_op(s, &p, l, err, err_len) != 0 ||
        cmp_limit_value(s, p, l, err, err_len) != 0 || cmp_limit_check(s, l, err, err_len) != 0)
        return -1;
    cmp_limit_text(l);
    return 0;
}

void cmp_limit_default_floor(cmp_limit *l, double floor) {
    if (l->has_floor) return;
    l->floor = floor;
    l->has_floor = 1;
    cmp_limit_text(l);
}

/* d rounded to 1e-9 of its unit, so that 1.2 - 0.2 is 1 (not 0.9999...). */
static double cmp_round9(double d) { return fabs(d) < 1e9 ? round(d * 1e9) / 1e9 : d; }

int cmp_limit_exceeded(const cmp_limit *l, double a, double b) {
    double c;
    if (l->has_floor && !(cmp_round9(cmp_fig_higher_is_worse(l->fig) ? b - a : a - b) >= l->floor)) return 0;
    if (l->absolute) {
        c = cmp_round9(b - a);
        if (l->op == '>') return l->or_equal ? c >= l->amount : c > l->amount;
        return l->or_equal ? c <= l->amount : c < l->amount;
    }
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
"usage: luamech compare A B [options]\n"
"       luamech compare A1 A2 A3 ... -- B1 B2 B3 ... [options]\n"
"\n"
"Compares two runs: A and B are results directories (or their summary.json,\n"
"schema 1 or 2).  For every timer present in both, prints the figures of the\n"
"whole run side by side (rate/s, count, errors, p50, p95, p99, max, avg; times\n"
"in ms) with the change of B against A in percent ((B - A) / A; n/a when A's\n"
"figure is 0).  By default only each timer's default view is compared\n"
"(successes; latency from the intended start where corrected): --view for the\n"
"others.  Timers present in one run only are listed as such.  For the top\n"
"directory of a phased run, compares phase by phase (phases matched by name).\n"
"\n"
"Sets of repeated runs (runs of A before --, of B after it; single runs, not\n"
"phased top directories): per figure, the median of each side's runs, their\n"
"range, the change of the medians and p, a one-sided Mann-Whitney U test that\n"
"B's runs are worse than A's; the difference is significant when p <= alpha.\n"
"With 3 runs a side the smallest possible p is 0.05: give at least 3 (better 5).\n"
"\n"
"options:\n"
"  --timer NAME       compare only this timer (repeatable; e.g. --timer GET);\n"
"                     'NAME (uncorrected)', 'NAME (all)': that view of it only\n"
"                     (unless a timer is called so)\n"
"  --view VIEW        the views compared (repeatable; without it: default):\n"
"                     default      successes; latency from the intended start\n"
"                     uncorrected  latency from the actual start (paced, rate)\n"
"                     all          every sample, failures included\n"
"                     every        every view either run lists\n"
"                     A run that lists no all view had only successes: its\n"
"                     default is compared; one without the uncorrected view:\n"
"                     that view is listed as in one run only.\n"
"  --fail-if LIMIT    exit 1 when a compared view's figure changes past LIMIT\n"
"                     (repeatable); for sets, only when also significant:\n"
"                     'p95>10%'      B's p95 more than 10% above A's\n"
"                     'rate<-5%'     B's rate more than 5% below A's\n"
"                     'p95>+2ms'     B's p95 more than 2 ms above A's (us, ms, s)\n"
"                     'rate<-500/s'  B's rate more than 500/s below A's\n"
"                     'errors>+10'   B has more than 10 errors more than A\n"
"                     'p50>10%,floor=1ms'  ... and ignore changes under 1 ms\n"
"                     A higher value is worse for errors and latencies (min avg\n"
"                     p50 p80 p90 p95 p99 p99.9 max stdev: use >), a lower one for\n"
"                     rate and count (use <).  An absolute amount takes its sign.\n"
"                     A zero base counts as +/-infinity in percent when B differs.\n"
"  --floor AMOUNT     ignore changes for the worse smaller than AMOUNT in every\n"
"                     limit of that unit without its own floor: 1ms (latencies),\n"
"                     50/s (rate), a bare number (count, errors); repeatable\n"
"  --alpha P          significance level of the sets' test (default 0.05)\n"
"  --all              also compare the engine's timers (engine.loop_lag, ...)\n"
"  --json             print the comparison as JSON\n"
"\n"
"exit codes:\n"
"  0  compared; no figure past a --fail-if limit (for sets: significantly)\n"
"  1  a figure regressed past a --fail-if limit (the timer and figure are printed)\n"
"  2  usage error (unknown option, bad limit or view, --timer naming no timer\n"
"     (or view) of A or B,\n"
"     --fail-if on sets too small for the test ever to be significant)\n"
"  3  a run, or a summary.json, is missing or invalid\n";

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

/* A --timer NAME: when it ends in " (VIEW)" of a view, the view and the
 * length of the name before it are noted too ('X (all)': view all of X,
 * unless a timer is called 'X (all)'; cmp_resolve_timers). */
static int cmp_opt_timer(cmp_opts *o, const char *val) {
    if (!val) return cmp_bad("option --timer needs a timer name%s", NULL);
    if (!*val) return cmp_bad("option --timer: empty timer name%s", NULL);
    size_t len = strlen(val);
    o->timer_view[o->ntimers] = -1;
    for (int v = 0; v < SUMMARY_VIEWS; v++) {
        char suffix[32];
        size_t n = (size_t)snprintf(suffix, sizeof suffix, " (%s)", summary_view_name(v));
        if (len > n && strcmp(val + len - n, suffix) == 0) {
            o->timer_view[o->ntimers] = v;
            o->timer_base[o->ntimers] = len - n;
        }
    }
    o->timers[o->ntimers++] = val;
    return CMP_GO_ON;
}

/* --view default|uncorrected|all|every (repeatable: the union; the first
 * replaces the default, the default view alone). */
static int cmp_opt_view(cmp_opts *o, const char *val) {
    if (!val) return cmp_bad("option --view needs a view: default, uncorrected, all or every%s", NULL);
    int v = summary_view_index(val);
    if (v < 0 && strcmp(val, "every") != 0)
        return cmp_bad("option --view: unknown view '%s' (default, uncorrected, all or every)", val);
    if (!o->views_given) o->views = 0;
    o->views_given = 1;
    o->views |= v < 0 ? CMP_VIEW_EVERY : CMP_VIEW_BIT(v);
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

static int cmp_opt_floor(cmp_opts *o, const char *val) {
    if (!val) return cmp_bad("option --floor needs an amount, e.g. 1ms%s", NULL);
    char err[512];
    cmp_unit u;
    double v;
    if (cmp_amount_parse(val, &u, &v, err, sizeof err) != 0) return cmp_bad("--floor %s", err);
    o->floors[u] = v;
    return CMP_GO_ON;
}

static int cmp_opt_alpha(cmp_opts *o, const char *val) {
    char *end = NULL;
    double v = val ? strtod(val, &end) : NAN;
    if (!val || end == val || *end || !(v > 0 && v < 1))
        return cmp_bad("option --alpha needs a significance level between 0 and 1 (e.g. 0.05), got '%s'", val);
    o->alpha = v;
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
    if (cmp_arg_value(argc, argv, i, "--view", &val)) return cmp_opt_view(o, val);
    if (cmp_arg_value(argc, argv, i, "--fail-if", &val)) return cmp_opt_fail_if(o, val);
    if (cmp_arg_value(argc, argv, i, "--floor", &val)) return cmp_opt_floor(o, val);
    if (cmp_arg_value(argc, argv, i, "--alpha", &val)) return cmp_opt_alpha(o, val);
    return cmp_bad("unknown option %s", a);
}

/* The runs: A B, or A1 ... -- B1 ...; none empty. */
static int cmp_check_runs(cmp_opts *o, int sep) {
    if (!sep) {
        if (o->na > 2) return cmp_bad("unexpected argument %s (compare takes two runs, A and B, or two sets of "
                                      "runs, A1 A2 ... -- B1 B2 ...)", o->runs_a[2]);
        if (o->na == 2) o->runs_b[o->nb++] = o->runs_a[--o->na];
    }
    if (o->na == 0 || o->nb == 0)
        return cmp_bad(sep ? "missing runs %s -- (A1 A2 ... -- B1 B2 ...)"
                           : "missing the A and B arguments (two results directories)%s",
                       sep ? (o->na == 0 ? "before" : "after") : NULL);
    for (int i = 0; i < o->na + o->nb; i++) {
        const char *r = i < o->na ? o->runs_a[i] : o->runs_b[i - o->na];
        if (!*r) return cmp_bad("an empty run argument%s", NULL);
    }
    o->a = o->runs_a[0];
    o->b = o->runs_b[0];
    o->sets = o->na > 1 || o->nb > 1;
    return CMP_GO_ON;
}

/* Options anywhere; "--" separates the runs of A from those of B (a run
 * named -x is written ./-x); "-" alone is an argument. */
int cmp_parse_args(int argc, char **argv, cmp_opts *o) {
    int sep = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            if (sep) return cmp_bad("a second -- (it separates A's runs from B's: A1 A2 ... -- B1 B2 ...)%s", NULL);
            sep = 1;
            continue;
        }
        if (a[0] == '-' && a[1] != 0) {
            int rc = cmp_option(argc, argv, &i, o);
            if (rc != CMP_GO_ON) return rc;
            continue;
        }
        if (sep) o->runs_b[o->nb++] = a;
        else o->runs_a[o->na++] = a;
    }
    int rc = cmp_check_runs(o, sep);
    if (rc != CMP_GO_ON) return rc;
    for (int l = 0; l < o->nlimits; l++) {
        cmp_unit u = cmp_fig_unit(o->limits[l].fig);
        if (o->floors[u] > 0) cmp_limit_default_floor(&o->limits[l], o->floors[u]);
    }
    return CMP_GO_ON;
}

int cmp_opts_init(cmp_opts *o, int argc) {
    memset(o, 0, sizeof *o);
    for (int k = 0; k < FIG_N; k++)       /* the figures printed by default */
        o->shown[k] = (figure_get((fig_id)k)->flags & FIG_COMPARE_DEFAULT) != 0;
    int n = argc > 0 ? argc : 1;
    o->timers = calloc((size_t)n, sizeof *o->timers);
    o->timer_seen = calloc((size_t)n, sizeof *o->timer_seen);
    o->timer_view = calloc((size_t)n, sizeof *o->timer_view);
    o->timer_base = calloc((size_t)n, sizeof *o->timer_base);
    o->timer_exact = calloc((size_t)n, sizeof *o->timer_exact);
    o->views = CMP_VIEW_BIT(0);
    o->limits = calloc((size_t)n, sizeof *o->limits);
    o->runs_a = calloc((size_t)n, sizeof *o->runs_a);
    o->runs_b = calloc((size_t)n, sizeof *o->runs_b);
    o->alpha = 0.05;
    return o->timers && o->timer_seen && o->timer_view && o->timer_base && o->timer_exact && o->limits &&
                   o->runs_a && o->runs_b
               ? 0
               : -1;
}

void cmp_opts_free(cmp_opts *o) {
    free(o->timers);
    free(o->timer_seen);
    free(o->timer_view);
    free(o->timer_base);
    free(o->timer_exact);
    free(o->limits);
    free(o->runs_a);
    free(o->runs_b);
}
