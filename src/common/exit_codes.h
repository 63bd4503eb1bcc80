/* exit_codes.h - luamech's process exit codes, documented in README.md and
 * `luamech --help`.  Here, at the bottom, so that every layer (the command
 * line, sub-commands, reports) can name them without including the command
 * line itself. */
#ifndef LUAMECH_EXIT_CODES_H
#define LUAMECH_EXIT_CODES_H

enum {
    EXIT_OK = 0,
    EXIT_RUNTIME = 1,      /* could not write results, internal error */
    EXIT_USAGE = 2,        /* unknown flag, bad flag value, missing argument */
    EXIT_SCENARIO = 3,     /* scenario or script: missing file, syntax error, bad field */
    EXIT_PREFLIGHT = 4,    /* a script's init failed before load started (e.g. unreachable server) */
    EXIT_INTERRUPTED = 5,  /* stopped by SIGINT/SIGTERM; results were written */
    EXIT_THRESHOLDS = 6,   /* the run completed but a threshold failed */
    EXIT_STUCK = 7,        /* a VU did not yield: the watchdog stopped it; results were written */
    EXIT_SCRIPT_ABORT = 8  /* a script called luamech.abort(reason); results were written */
};

#endif
