/* stop.c - what `luamech merge --follow` leaves in the segments' results
 * directories: the stop request, when a criterion failed on the merged data
 * (DIR/stop_request.json), and its mark (DIR/followed: snapshots at every
 * interval); and the segment's side: is there one, what does it say.  The results directories are what the segments and the
 * follower already share (a shared filesystem under Slurm or Kubernetes),
 * so no socket or server is needed.  It only reads and writes that file;
 * deciding to stop is the runner's, judging the criteria the merge's. */
#include "report/stop.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/text.h"

int report_stop_request(const char *dir, const char *reason) {
    char path[4200], tmp[4300], when[32];
    struct timespec now;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &tm);
    size_t n = strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(when + n, sizeof when - n, ".%03ldZ", now.tv_nsec / 1000000);
    json_t *root = json_pack("{s:s,s:s,s:s,s:I}", "reason", reason, "requested", when, "by", "luamech merge --follow",
                             "requested_unix_ns", (json_int_t)now.tv_sec * 1000000000 + now.tv_nsec);
    if (!root) return -1;
    snprintf(path, sizeof path, "%s/" REPORT_STOP_FILE, dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int rc = json_dump_file(root, tmp, JSON_INDENT(2));
    json_decref(root);
    if (rc == 0 && rename(tmp, path) != 0) rc = -1;
    if (rc != 0) unlink(tmp);
    return rc;
}

int report_stop_requested(const char *dir, char *buf, size_t len) {
    char path[4200];
    snprintf(path, sizeof path, "%s/" REPORT_STOP_FILE, dir);
    if (access(path, F_OK) != 0) return 0;
    json_t *root = json_load_file(path, 0, NULL);
    const char *reason = json_string_value(json_object_get(root, "reason"));
    char clean[512];
    snprintf(buf, len, "%s", reason ? text_clean(reason, clean, sizeof clean) : "(a stop request without a reason)");
    json_decref(root);
    return 1;
}

int report_stop_clear(const char *dir) {
    char path[4200];
    snprintf(path, sizeof path, "%s/" REPORT_STOP_FILE, dir);
    int rc = unlink(path) == 0 || errno == ENOENT ? 0 : -1;
    snprintf(path, sizeof path, "%s/" REPORT_FOLLOW_FILE, dir);
    return unlink(path) == 0 || errno == ENOENT ? rc : -1;
}

int report_follow_mark(const char *dir) {
    char path[4200];
    snprintf(path, sizeof path, "%s/" REPORT_FOLLOW_FILE, dir);
    if (access(path, F_OK) == 0) return 0;
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs("luamech merge --follow reads this directory: summary.json is written at every interval\n", f);
    return fclose(f);
}

int report_followed(const char *dir) {
    char path[4200];
    snprintf(path, sizeof path, "%s/" REPORT_FOLLOW_FILE, dir);
    return access(path, F_OK) == 0;
}
