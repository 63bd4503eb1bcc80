/* cli.h - the command line: sub-commands and their flags. */
#ifndef LUAMECH_CLI_H
#define LUAMECH_CLI_H

/* Exit codes; documented in README.md and `luamech --help`. */
enum {
    EXIT_OK = 0,
    EXIT_RUNTIME = 1,      /* could not write results, internal error */
    EXIT_USAGE = 2,        /* unknown flag, bad flag value, missing argument */
    EXIT_SCENARIO = 3,     /* scenario or script: missing file, syntax error, bad field */
    EXIT_PREFLIGHT = 4,    /* a script's init failed before load started (e.g. unreachable server) */
    EXIT_INTERRUPTED = 5,  /* stopped by SIGINT/SIGTERM; results were written */
    EXIT_THRESHOLDS = 6,   /* the run completed but a threshold failed */
    EXIT_STUCK = 7         /* a VU did not yield: the watchdog stopped it; results were written */
};

int cli_main(int argc, char **argv);

#endif
