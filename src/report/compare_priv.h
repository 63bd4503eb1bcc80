/* compare_priv.h - what the files of `luamech compare` share (compare.c:
 * loading the runs, building and printing the comparison; compare_args.c:
 * the command line and the --fail-if limits).  Private to
 * src/report/compare*.c; the public part is compare.h. */
#ifndef LUAMECH_COMPARE_PRIV_H
#define LUAMECH_COMPARE_PRIV_H

#include "report/compare.h"

/* The command line, parsed. */
typedef struct cmp_opts {
    const char *a, *b;
    const char **timers;     /* --timer names (argv strings) */
    int ntimers;
    int *timer_seen;
    cmp_limit *limits;
    int nlimits;
    int all, json;
    int shown[CMP_NFIGS];
} cmp_opts;

/* cmp_parse_args: the command line is good, go on with the comparison. */
#define CMP_GO_ON (-1)

/* Empty options with the default figures shown, room for argc --timer and
 * --fail-if.  0, or -1 when out of memory; cmp_opts_free either way. */
int cmp_opts_init(cmp_opts *o, int argc);
void cmp_opts_free(cmp_opts *o);
/* argv (argv[0] is "compare") into o.  CMP_GO_ON, or the exit code when the
 * command ends here: 0 after --help, 2 after a usage error (printed). */
int cmp_parse_args(int argc, char **argv, cmp_opts *o);

/* snprintf into err (nothing when err is NULL or err_len 0). */
void cmp_errf(char *err, size_t len, const char *fmt, ...);

#endif
