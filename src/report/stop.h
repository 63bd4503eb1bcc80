/* stop.h - the files through which `luamech merge --follow` and the
 * segments it follows talk (stop.c): a request to stop and the follower's
 * mark, in a segment's results directory. */
#ifndef LUAMECH_REPORT_STOP_H
#define LUAMECH_REPORT_STOP_H

#include <stddef.h>

/* A request to stop, from `luamech merge --follow` to the segments it
 * follows (docs/distributed.md "Central thresholds"): DIR/stop_request.json,
 * {"reason": ..., "requested": RFC 3339}, written through a rename.  A
 * segment (--segment i/N, N > 1) looks for it at every interval boundary
 * and stops gracefully when it is there, with exit code 6. */
#define REPORT_STOP_FILE "stop_request.json"
int report_stop_request(const char *dir, const char *reason);
/* 1 and the reason in buf when DIR/stop_request.json is there, else 0. */
int report_stop_requested(const char *dir, char *buf, size_t len);
/* Removes a stale request (a directory used again): 0, or -1 with errno. */
int report_stop_clear(const char *dir);
/* The follower's mark, DIR/followed: while it is there, a running
 * segment's summary.json is written at every interval (for its first
 * REPORT_FOLLOWED_EVERY intervals; then on report_summary_due's schedule),
 * so the live merge and its verdict lag the segments by one interval, not
 * by an eighth of the run. */
#define REPORT_FOLLOW_FILE "followed"
#define REPORT_FOLLOWED_EVERY 1000
int report_follow_mark(const char *dir);
int report_followed(const char *dir);

#endif
