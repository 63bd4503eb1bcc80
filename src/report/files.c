/* files.c - the results' scenario/ copy: the scenario file and its scripts
 * (report_copy_scenario, before the run) and the files the scripts read
 * (modules, data; report_copy_read, after it), each at its path relative
 * to the scenario's folder, so that `luamech run DIR/scenario/NAME.lua`
 * runs the same test.  Files outside the folder, and files past the size
 * limits, are listed in summary.json's "scenario_files" but not copied.
 * The list is added to summary.json by streaming the file through, never
 * by loading it (it holds every interval's rows).
 * It does not know how the files were read (lua/lm_share.c records them). */
#include "report/results.h"

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

/* list as jansson writes it at depth 1 of an object with JSON_INDENT(2):
 * every line break followed by two spaces. */
static int files_put_depth1(FILE *out, const json_t *list) {
    char *text = json_dumps(list, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    if (!text) return -1;
    int rc = 0;
    for (const char *p = text; *p && rc == 0; p++)
        if (fputc(*p, out) == EOF || (*p == '\n' && fputs("  ", out) == EOF)) rc = -1;
    free(text);
    return rc;
}

/* summary.json as report_write_json left it (ending "\n}\n") copied to tmp
 * with "scenario_files" added as its last member, streamed: the same bytes
 * as loading it, adding the member and dumping it again (jansson's output
 * is canonical), without holding the file's tree (every interval's rows) in
 * memory.  1 when the file does not end that way (the caller then does the
 * load and dump), 0 done, -1 error. */
static int files_append_member(const char *sum, const char *tmp, const json_t *list) {
    FILE *in = fopen(sum, "rb");
    if (!in) return -1;
    char tail[3], buf[65536];
    long size = fseek(in, 0, SEEK_END) == 0 ? ftell(in) : -1;
    if (size < 3 || fseek(in, size - 3, SEEK_SET) != 0 || fread(tail, 1, 3, in) != 3 ||
        memcmp(tail, "\n}\n", 3) != 0 || fseek(in, 0, SEEK_SET) != 0) {
        fclose(in);
        return 1;
    }
    FILE *out = fopen(tmp, "wb");
    int rc = out ? 0 : -1;
    for (long left = size - 3; rc == 0 && left > 0; ) {     /* all but "\n}\n" */
        size_t want = left < (long)sizeof buf ? (size_t)left : sizeof buf;
        size_t got = fread(buf, 1, want, in);
        if (got == 0 || fwrite(buf, 1, got, out) != got) rc = -1;
        left -= (long)got;
    }
    fclose(in);
    if (rc == 0 && out) {
        if (fputs(",\n  \"scenario_files\": ", out) == EOF) rc = -1;
        if (rc == 0) rc = files_put_depth1(out, list);
        if (rc == 0 && fputs("\n}", out) == EOF) rc = -1;
    }
    if (out && fclose(out) != 0) rc = -1;
    if (rc != 0) remove(tmp);
    return rc;
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
    int streamed = list ? files_append_member(sum, tmp, list) : -1;
    if (streamed != 1) {
        json_decref(list);
        return streamed == 0 ? rename(tmp, sum) : -1;
    }
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
