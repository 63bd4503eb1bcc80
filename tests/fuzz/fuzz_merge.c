/* fuzz_merge.c - fuzz harness for `luamech merge` on hostile segment
 * results.  The input is a small container of files: records separated by
 * NUL bytes, each "NAME\n" then the file's bytes, where NAME is
 * "1/summary.json", "2/histograms.hlog" or, for a phased run's phase,
 * "1/SUB/summary.json" (the segment number is 1 or 2; SUB is made a safe
 * path component here, as a run names a phase's directory; other names are
 * skipped).  The files are written into seg-1/ and seg-2/ of a temporary
 * directory made once per process (in /dev/shm when there is one), and merge_cmd_main, the entry point of
 * `luamech merge`, merges them into its out/ (both segments; only seg-1
 * with --allow-partial when the input has no "2/" file).  merge's output
 * goes to /dev/null.  Properties: no crash, leak or undefined behaviour; the exit
 * code is one of merge's documented codes (docs/distributed.md); a merge
 * that exits 0 wrote out/summary.json; nothing is written outside out/
 * (the temporary directory holds only seg-1, seg-2 and out afterwards) and
 * the segments' own files are left as they were written.  FZ_MERGE_SHOW=1
 * in the environment leaves merge's output visible and prints each input's
 * merge exit code (to check seeds and triage findings). */
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/merge.h"
#include "report/results.h"

#define FZ_MERGE_MAX_INPUT (256 * 1024)
#define FZ_MERGE_MAX_FILES 16

typedef struct fz_file {
    char path[320];             /* relative to the temporary directory */
    const uint8_t *data;
    size_t len;
} fz_file;

/* The temporary directory (made once, removed at exit) and /dev/null,
 * where merge's stdout and stderr go (the FILE pointers are swapped, not the
 * descriptors, so that libFuzzer's and the sanitizers' reports are seen). */
static char fz_root[64];
static FILE *fz_null;

static int fz_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    return remove(path) != 0 ? -1 : 0;
}

static void fz_rm_tree(const char *path) { nftw(path, fz_rm_one, 16, FTW_DEPTH | FTW_PHYS); }

static void fz_cleanup(void) {
    if (fz_root[0]) fz_rm_tree(fz_root);
}

static void fz_setup(void) {
    if (fz_root[0]) return;
    struct stat st;                                 /* tmpfs when there is one: files cost no disk */
    snprintf(fz_root, sizeof fz_root, "%s/fuzz_merge.XXXXXX", stat("/dev/shm", &st) == 0 ? "/dev/shm" : "/tmp");
    if (!mkdtemp(fz_root)) abort();
    atexit(fz_cleanup);
    if (!(fz_null = fopen("/dev/null", "w"))) abort();
}

/* NAME of a record into f->path ("seg-1/..."), or -1 to skip it. */
static int fz_name(fz_file *f, const char *name, size_t len) {
    char buf[300], sub[100];
    if (len < 3 || len >= sizeof buf || (name[0] != '1' && name[0] != '2') || name[1] != '/') return -1;
    memcpy(buf, name, len);
    buf[len] = 0;
    const char *rest = buf + 2, *base = strrchr(rest, '/');
    base = base ? base + 1 : rest;
    if (strcmp(base, "summary.json") != 0 && strcmp(base, "histograms.hlog") != 0) return -1;
    if (base == rest) {
        snprintf(f->path, sizeof f->path, "seg-%c/%s", name[0], base);
        return 0;
    }
    buf[base - buf - 1] = 0;                       /* the phase's directory, one safe component */
    report_path_name(sub, sizeof sub, rest);
    if (!sub[0]) return -1;
    snprintf(f->path, sizeof f->path, "seg-%c/%s/%s", name[0], sub, base);
    return 0;
}

static int fz_split(const uint8_t *data, size_t size, fz_file *files) {
    int n = 0;
    const uint8_t *p = data, *end = data + size;
    while (p < end && n < FZ_MERGE_MAX_FILES) {
        const uint8_t *rec_end = memchr(p, 0, (size_t)(end - p));
        if (!rec_end) rec_end = end;
        const uint8_t *nl = memchr(p, '\n', (size_t)(rec_end - p));
        if (nl && fz_name(&files[n], (const char *)p, (size_t)(nl - p)) == 0) {
            files[n].data = nl + 1;
            files[n].len = (size_t)(rec_end - nl - 1);
            n++;
        }
        p = rec_end + 1;
    }
    return n;
}

/* Writes one file of the input; -1 when the input names it where another
 * of its files is (a phase directory called summary.json): such an input
 * is not a set of segment folders and is skipped. */
static int fz_write(const fz_file *f) {
    char path[512], dir[512];
    snprintf(path, sizeof path, "%s/%.319s", fz_root, f->path);
    snprintf(dir, sizeof dir, "%s", path);
    for (char *s = dir + strlen(fz_root) + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        mkdir(dir, 0755);
        *s = '/';
    }
    FILE *out = fopen(path, "wb");
    if (!out) return -1;
    if (f->len && fwrite(f->data, 1, f->len, out) != f->len) abort();
    if (fclose(out) != 0) abort();
    return 0;
}

/* The files as written are still there, byte for byte. */
static void fz_check_inputs(const fz_file *files, int n) {
    for (int i = 0; i < n; i++) {
        int later = 0;                  /* a name given twice: the last record is the file */
        for (int j = i + 1; j < n; j++) later |= strcmp(files[i].path, files[j].path) == 0;
        if (later) continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%.319s", fz_root, files[i].path);
        FILE *f = fopen(path, "rb");
        if (!f) abort();
        uint8_t *buf = malloc(files[i].len + 1);
        if (!buf) abort();
        size_t got = fread(buf, 1, files[i].len + 1, f);
        fclose(f);
        if (got != files[i].len || (got && memcmp(buf, files[i].data, got) != 0)) abort();
        free(buf);
    }
}

/* Nothing but seg-1, seg-2 and out in the temporary directory. */
static void fz_check_root(void) {
    DIR *d = opendir(fz_root);
    if (!d) abort();
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *n = e->d_name;
        if (strcmp(n, ".") && strcmp(n, "..") && strcmp(n, "seg-1") && strcmp(n, "seg-2") && strcmp(n, "out"))
            abort();
    }
    closedir(d);
}

static int fz_merge(int both) {
    char s1[100], s2[100], out[100];
    snprintf(s1, sizeof s1, "%s/seg-1", fz_root);
    snprintf(s2, sizeof s2, "%s/seg-2", fz_root);
    snprintf(out, sizeof out, "%s/out", fz_root);
    char *argv[] = {"merge", s1, both ? s2 : "--allow-partial", "--out", out, NULL};
    FILE *out_f = stdout, *err_f = stderr;          /* merge's messages go to /dev/null; the file */
    if (!getenv("FZ_MERGE_SHOW")) stdout = stderr = fz_null;   /* descriptors stay: a sanitizer's report shows */
    int code = merge_cmd_main(5, argv);
    fflush(fz_null);
    stdout = out_f, stderr = err_f;
    return code;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_file files[FZ_MERGE_MAX_FILES];
    char path[200];
    if (size > FZ_MERGE_MAX_INPUT) return 0;
    fz_setup();
    int n = fz_split(data, size, files), both = 0;
    if (n == 0) return 0;
    static const char *const dirs[] = {"seg-1", "seg-2", "out"};
    for (int i = 0; i < 3; i++) {                  /* a fresh start: the last input's files go */
        snprintf(path, sizeof path, "%s/%s", fz_root, dirs[i]);
        fz_rm_tree(path);
        mkdir(path, 0755);
    }
    rmdir(path);                                   /* out/ does not exist before the merge */
    for (int i = 0; i < n; i++) {
        if (fz_write(&files[i]) != 0) return 0;
        both |= files[i].path[4] == '2';
    }
    int code = fz_merge(both);
    if (getenv("FZ_MERGE_SHOW")) fprintf(stderr, "fuzz_merge: %d file(s), merge exit %d\n", n, code);
    if (code != 0 && code != 1 && code != 2 && code != 4 && code != 5 && code != 6 && code != 7 && code != 8)
        abort();
    snprintf(path, sizeof path, "%s/out/summary.json", fz_root);
    if (code == 0 && access(path, R_OK) != 0) abort();
    fz_check_root();
    fz_check_inputs(files, n);
    return 0;
}
