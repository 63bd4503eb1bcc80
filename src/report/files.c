/* files.c - the results' scenario/ copy: the scenario file and its scripts
 * (report_copy_scenario, before the run) and the files the scripts read
 * (modules, data; report_copy_read, after it), each at its path relative
 * to the scenario's folder, so that `luamech run DIR/scenario/NAME.lua`
 * runs the same test.  Files outside the folder, and files past the size
 * limits, are listed in summary.json's "scenario_files" but not copied.
 * It does not know how the files were read (lua/lm_share.c records them). */
#include "report/report.h"

#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* mkdir -p of the folder part of path (not the last component). */
static int files_mkdirs_parent(const char *path) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return 0;
}

static int files_copy(const char *from, const char *to) {
    if (files_mkdirs_parent(to) != 0) return -1;
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    char buf[65536];
    size_t n;
    int rc = in && out ? 0 : -1;
    while (rc == 0 && (n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n) rc = -1;
    if (in && ferror(in)) rc = -1;
    if (in) fclose(in);
    if (out && fclose(out) != 0) rc = -1;
    return rc;
}

/* A relative path that stays inside its folder: no "..", not absolute. */
static int files_rel_inside(const char *rel) {
    if (!*rel || rel[0] == '/') return 0;
    for (const char *p = rel; *p; ) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        if (len == 2 && p[0] == '.' && p[1] == '.') return 0;
        p += len + (slash ? 1 : 0);
    }
    return 1;
}

/* Where `written` (a path as the scenario names it) goes under sub: at the
 * same relative path, or by its base name when it leaves the folder. */
static void files_target(char *to, size_t len, const char *sub, const char *written) {
    if (files_rel_inside(written)) {
        snprintf(to, len, "%s/%s", sub, written);
        return;
    }
    char *tmp = strdup(written);
    snprintf(to, len, "%s/%s", sub, tmp ? basename(tmp) : "script.lua");
    free(tmp);
}

int report_copy_scenario(const char *sub, const scenario *sc) {
    char to[4096];
    char *tmp = strdup(sc->path);
    if (!tmp) return -1;
    snprintf(to, sizeof to, "%s/%s", sub, basename(tmp));
    free(tmp);
    int rc = files_copy(sc->path, to);
    for (int g = 0; rc == 0 && g < sc->ngroups; g++) {
        files_target(to, sizeof to, sub, sc->groups[g].script_name ? sc->groups[g].script_name
                                                                   : sc->groups[g].script_path);
        rc = files_copy(sc->groups[g].script_path, to);
    }
    return rc;
}

/* One read file: copied when inside root and within the limits. */
static json_t *files_copy_one(const char *sub, const char *root, const char *path, int64_t *total) {
    size_t rl = strlen(root);
    int inside = strncmp(path, root, rl) == 0 && path[rl] == '/';
    const char *rel = inside ? path + rl + 1 : path;
    struct stat st;
    int64_t bytes = stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
    const char *why = NULL;
    if (!inside) why = "outside the scenario's folder";
    else if (bytes < 0) why = "no longer readable";
    else if (bytes > REPORT_COPY_FILE_MAX) why = "larger than the per-file limit";
    else if (*total + bytes > REPORT_COPY_TOTAL_MAX) why = "past the total limit";
    if (!why) {
        char to[8200];
        snprintf(to, sizeof to, "%s/%s", sub, rel);
        if (files_copy(path, to) != 0) why = strerror(errno);
        else *total += bytes;
    }
    json_t *j = json_pack("{s:s,s:I,s:b}", "path", rel, "bytes", (json_int_t)bytes, "copied", why == NULL);
    if (j && why) json_object_set_new(j, "not_copied", json_string(why));
    return j;
}

int report_copy_read(const char *dir, const char *root, const char *const *paths, int n) {
    char sub[4096], sum[4200], tmp[4200];
    snprintf(sub, sizeof sub, "%s/scenario", dir);
    json_t *list = json_array();
    int64_t total = 0;
    for (int i = 0; list && i < n; i++) {
        json_t *j = files_copy_one(sub, root, paths[i], &total);
        if (j) json_array_append_new(list, j);
    }
    snprintf(sum, sizeof sum, "%s/summary.json", dir);
    snprintf(tmp, sizeof tmp, "%s/.summary.json.files.tmp", dir);
    json_t *root_j = json_load_file(sum, 0, NULL);
    if (!root_j || !list) {
        json_decref(root_j);
        json_decref(list);
        return -1;
    }
    json_object_set_new(root_j, "scenario_files", list);
    int rc = json_dump_file(root_j, tmp, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_decref(root_j);
    if (rc == 0) rc = rename(tmp, sum);
    return rc;
}
