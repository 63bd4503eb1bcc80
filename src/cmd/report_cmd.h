/* report_cmd.h - `luamech report RESULTS_DIR [--distribution TIMER]`. */
#ifndef LUAMECH_CMD_REPORT_H
#define LUAMECH_CMD_REPORT_H
/* argv[0] is "report": re-renders RESULTS_DIR/report.html and prints its
 * path, or prints a timer's latency distribution (dist.h).  Exit 0; 2
 * usage error; 3 directory or summary.json missing or invalid; 1
 * report.html not written. */
int report_cmd_main(int argc, char **argv);
#endif
