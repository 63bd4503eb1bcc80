/* new.c - `luamech new NAME [--template T]` (T one of new_templates[]):
 * writes a working scenario folder NAME/ in the current directory from the
 * templates embedded in the binary (templates/, lua/types/luamech.lua):
 * scenario.lua, vu.lua, README.md (how to run it), types/luamech.lua and
 * .luarc.json (the editor's Lua language server reads the types).  The
 * README's run-local.sh command names the script that comes with this
 * binary (PREFIX/share/luamech/run-local.sh when installed as
 * PREFIX/bin/luamech, scripts/run-local.sh of the checkout when run from a
 * build folder in it) by its absolute path, or explains both places when
 * neither is found.  The luamech command it prints (and writes in the
 * README) is the one the user typed: argv[0] as given when it holds a '/'
 * (build/luamech, ./luamech, an absolute path), else the bare name found on
 * PATH.  It refuses a bad name, an unknown template and an existing
 * non-empty folder (exit 2).  The files are written into a temporary
 * sibling (.NAME.new-XXXXXX) renamed to NAME at the end: a failed write (a
 * full disk) removes it and leaves nothing behind, so a retry is not
 * refused.  It does not run anything nor touch the network. */
#include "cmd/new.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "common/exit_codes.h"
#include "common/embedded_files.h"
#include "common/text.h"

#define NEW_NAME_MAX 64
#define NEW_PATH_MAX 4096

/* What {{RUN_LOCAL}} and {{RUN_LOCAL_WHERE}} become. */
typedef struct new_run_local {
    char cmd[NEW_PATH_MAX + 3];        /* "scripts/run-local.sh" or a (quoted) absolute path */
    char where[2 * NEW_PATH_MAX];
} new_run_local;

typedef struct new_template {
    const char *name;
    const char *param;   /* the -e NAME=VALUE it needs */
    const char *about;   /* one sentence for the README */
} new_template;

static const new_template new_templates[] = {
    {"memcached", "MEMCACHED=127.0.0.1:11211",
     "10 VUs doing 90% get / 10% set on memcached over 10,000 keys with a zipf popularity."},
    {"redis", "REDIS=127.0.0.1:6379",
     "10 VUs doing 80% GET / 20% SET on redis over 10,000 keys drawn from a gaussian."},
    {"redis-cluster", "REDIS_CLUSTER=127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002",
     "10 VUs doing 80% GET / 20% SET on a redis Cluster (cluster = true: keys routed to their masters), "
     "with a multi-key command under one hash tag and a pipeline across the nodes every tenth transaction."},
    {"http", "HTTP_BASE=http://127.0.0.1:7379",
     "10 VUs doing HTTP GETs with exponential think time (50 ms on average)."},
    {"http2", "H2_BASE=http://127.0.0.1:8080",
     "20 VUs doing HTTP/2 GETs as concurrent streams of one shared connection (h2c, or h2 by ALPN on https)."},
    {"api", "API_BASE=https://host:port -e API_CA=ca.pem",
     "5 VUs each running a JSON API session over https (login, token, GET, PATCH, logout through a redirect), "
     "with checks and thresholds."},
    {"webdis", "HTTP_BASE=http://127.0.0.1:7379",
     "5 VUs running a key-value flow over HTTP on webdis (create with PUT, read back with GET, delete with POST), "
     "each step timed."},
    {"rate", "MEMCACHED=127.0.0.1:11211",
     "an open workload: 200 transactions/s started on schedule whatever the response times (up to 50 VUs)."},
    {"ws", "WS_URL=ws://127.0.0.1:8080/",
     "5 VUs each keeping a WebSocket open and timing echo round trips (a message out, its echo back), with a check."},
    {"grpc", "GRPC=127.0.0.1:50051",
     "10 VUs each calling a unary gRPC method and a bidirectional stream (service.proto: replace it with your "
     "service's) over a shared HTTP/2 connection, with checks and thresholds."},
    {NULL, NULL, NULL},
};

/* output file -> embedded source; %s is the template's name; optional:
 * written only when the template has it (grpc's service.proto) */
static const struct { const char *out, *src; int optional; } new_files[] = {
    {"scenario.lua", "templates/%s/scenario.lua", 0},
    {"vu.lua", "templates/%s/vu.lua", 0},
    {"service.proto", "templates/%s/service.proto", 1},
    {"README.md", "templates/README.md", 0},
    {".luarc.json", "templates/luarc.json", 0},
    {"types/luamech.lua", "lua/types/luamech.lua", 0},
};

const char *new_template_list(char *buf, size_t len, const char *sep, const char *last) {
    size_t used = 0;
    if (len) buf[0] = 0;
    for (const new_template *t = new_templates; t->name && used < len; t++) {
        const char *join = t == new_templates ? "" : (t + 1)->name || !last ? sep : last;
        int n = snprintf(buf + used, len - used, "%s%s", join, t->name);
        used += n > 0 ? (size_t)n : 0;
    }
    return buf;
}

static void new_print_usage(void) {
    char list[256];
    printf("usage: luamech new NAME [--template %s]\n"
           "writes a scenario folder NAME/ (scenario.lua, vu.lua, README.md, editor types);\n"
           "the default template is %s.\n", new_template_list(list, sizeof list, "|", NULL), new_templates[0].name);
}

/* The message with arg escaped (control bytes as \xHH: a NAME is echoed,
 * never written raw to the terminal). */
static int new_bad(const char *fmt, const char *arg) {
    char clean[1024];
    fprintf(stderr, "luamech new: ");
    fprintf(stderr, fmt, text_clean(arg, clean, sizeof clean));
    fprintf(stderr, "\nTry 'luamech new --help'.\n");
    return EXIT_USAGE;
}

/* letters, digits, '_', '-', '.'; not starting with '.' or '-' */
static int new_name_ok(const char *name) {
    size_t n = strlen(name);
    if (n == 0 || n > NEW_NAME_MAX || name[0] == '.' || name[0] == '-') return 0;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '-' || c == '.';
        if (!ok) return 0;
    }
    return 1;
}

/* 0: missing or an empty directory; -1: anything else there (a file, a
 * non-empty directory, a symlink, even a dangling one: lstat) */
static int new_dir_free(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode)) return -1;
    DIR *d = opendir(path);
    if (!d) return -1;
    int empty = 1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) { empty = 0; break; }
    closedir(d);
    return empty ? 0 : -1;
}

/* The run-local.sh that comes with this binary (see the header), or 0. */
static int new_find_run_local(char *out, size_t out_len) {
    static const char *const rel[] = {"../share/luamech/run-local.sh", "../scripts/run-local.sh"};
    char exe[NEW_PATH_MAX], cand[NEW_PATH_MAX + 64];
    size_t n = sizeof exe;
    if (uv_exepath(exe, &n) != 0) return 0;
    char *slash = strrchr(exe, '/');
    if (slash == NULL) return 0;
    *slash = 0;
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        snprintf(cand, sizeof cand, "%s/%s", exe, rel[i]);
        char *r = realpath(cand, NULL);
        int ok = r && strlen(r) < out_len && access(r, R_OK) == 0;
        if (ok) snprintf(out, out_len, "%s", r);
        free(r);
        if (ok) return 1;
    }
    return 0;
}

/* A path as one shell word: as is, or in single quotes; 0 if it holds a quote. */
static int new_shell_word(const char *path, char *out, size_t out_len) {
    if (strchr(path, '\'') || strlen(path) + 3 > out_len) return 0;
    int plain = path[strspn(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+-")] == 0;
    snprintf(out, out_len, plain ? "%s" : "'%s'", path);
    return 1;
}

static void new_run_local_init(new_run_local *rl, const char *name) {
    char path[NEW_PATH_MAX];
    if (new_find_run_local(path, sizeof path) && new_shell_word(path, rl->cmd, sizeof rl->cmd)) {
        snprintf(rl->where, sizeof rl->where,
                 "That is the run-local.sh of the luamech that wrote this folder: in a\n"
                 "luamech checkout it is `scripts/run-local.sh`, where luamech is installed\n"
                 "`PREFIX/share/luamech/run-local.sh`.");
        return;
    }
    snprintf(rl->cmd, sizeof rl->cmd, "scripts/run-local.sh");
    snprintf(rl->where, sizeof rl->where,
             "Run that from the top of a luamech checkout; where luamech is installed the\n"
             "script is `PREFIX/share/luamech/run-local.sh` (`/usr/share/luamech/run-local.sh`\n"
             "from the .deb): `bash /usr/share/luamech/run-local.sh %s/scenario.lua`.", name);
}

typedef struct new_ctx {
    const char *name;
    const char *luamech;       /* the command that runs luamech where the user stands */
    const new_template *t;
    const new_run_local *rl;
} new_ctx;

static const char *new_subst_value(const char *key, size_t klen, const new_ctx *c) {
    const char *name = c->name;
    const new_template *t = c->t;
    if (klen == 9 && memcmp(key, "RUN_LOCAL", 9) == 0) return c->rl->cmd;
    if (klen == 15 && memcmp(key, "RUN_LOCAL_WHERE", 15) == 0) return c->rl->where;
    if (klen == 4 && memcmp(key, "NAME", 4) == 0) return name;
    if (klen == 7 && memcmp(key, "LUAMECH", 7) == 0) return c->luamech;
    if (klen == 8 && memcmp(key, "TEMPLATE", 8) == 0) return t->name;
    if (klen == 5 && memcmp(key, "PARAM", 5) == 0) return t->param;
    if (klen == 5 && memcmp(key, "ABOUT", 5) == 0) return t->about;
    return NULL;
}

/* writes src with {{NAME}}, {{LUAMECH}}, {{TEMPLATE}}, {{PARAM}}, {{ABOUT}}, {{RUN_LOCAL}},
 * {{RUN_LOCAL_WHERE}} replaced */
static int new_write(FILE *f, const char *src, size_t len, const new_ctx *c) {
    size_t i = 0;
    while (i < len) {
        const char *open = strstr(src + i, "{{");
        const char *close = open ? strstr(open + 2, "}}") : NULL;
        const char *v = close ? new_subst_value(open + 2, (size_t)(close - open - 2), c) : NULL;
        if (!v) {
            size_t upto = open ? (size_t)(open - src) + 2 : len;
            if (fwrite(src + i, 1, upto - i, f) != upto - i) return -1;
            i = upto;
            continue;
        }
        size_t upto = (size_t)(open - src);
        if (fwrite(src + i, 1, upto - i, f) != upto - i || fputs(v, f) == EOF) return -1;
        i = (size_t)(close - src) + 2;
    }
    return 0;
}

static int new_write_file(const char *dir, const char *out, const char *src_path,
                          const new_ctx *c) {
    char path[4096];
    size_t len = 0;
    const char *src = embedded_file_find(src_path, &len);
    if (!src) {
        fprintf(stderr, "luamech new: internal error: %s is not embedded\n", src_path);
        return EXIT_RUNTIME;
    }
    snprintf(path, sizeof path, "%s/%s", dir, out);
    FILE *f = fopen(path, "w");
    int rc = f ? new_write(f, src, len, c) : -1;
    if (f && fclose(f) != 0) rc = -1;
    if (rc != 0) {
        fprintf(stderr, "luamech new: cannot write %s: %s\n", path, strerror(errno));
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}

static int new_make_dir(const char *path) {
    if (mkdir(path, 0777) == 0 || errno == EEXIST) return EXIT_OK;
    fprintf(stderr, "luamech new: cannot create %s/: %s\n", path, strerror(errno));
    return EXIT_RUNTIME;
}

/* Removes the temporary folder: the files new_files names, types/, itself. */
static void new_remove_tmp(const char *tmp) {
    char path[4096];
    for (size_t i = 0; i < sizeof new_files / sizeof new_files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", tmp, new_files[i].out);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/types", tmp);
    rmdir(path);
    if (rmdir(tmp) != 0 && errno != ENOENT)
        fprintf(stderr, "luamech new: cannot remove the temporary folder %s/: %s\n", tmp, strerror(errno));
}

/* Writes the folder's files into tmp (made by mkdtemp). */
static int new_fill(const char *tmp, const new_template *t, const new_ctx *ctx) {
    char sub[4096], src[256];
    snprintf(sub, sizeof sub, "%s/types", tmp);
    mode_t mask = umask(0);
    umask(mask);
    if (chmod(tmp, 0777 & ~mask) != 0) {                /* mkdtemp made it 0700: as mkdir would */
        fprintf(stderr, "luamech new: cannot set the mode of %s/: %s\n", tmp, strerror(errno));
        return EXIT_RUNTIME;
    }
    int rc = new_make_dir(sub);
    for (size_t i = 0; rc == EXIT_OK && i < sizeof new_files / sizeof new_files[0]; i++) {
        size_t len;
        snprintf(src, sizeof src, new_files[i].src, t->name);
        if (new_files[i].optional && !embedded_file_find(src, &len)) continue;
        rc = new_write_file(tmp, new_files[i].out, src, ctx);
    }
    return rc;
}

/* The luamech command as the user typed it (see the header): prog when it
 * holds a '/' and is one shell word, else "luamech". */
static void new_luamech_word(const char *prog, char *out, size_t out_len) {
    if (!prog || !strchr(prog, '/') || !new_shell_word(prog, out, out_len)) snprintf(out, out_len, "luamech");
}

static int new_create(const char *name, const new_template *t, const char *prog) {
    char tmp[NEW_NAME_MAX + 32], lm[NEW_PATH_MAX + 3];
    new_run_local rl;
    new_run_local_init(&rl, name);
    new_luamech_word(prog, lm, sizeof lm);
    new_ctx ctx = {name, lm, t, &rl};
    if (new_dir_free(name) != 0)
        return new_bad("'%s' already exists and is not an empty folder: choose another NAME", name);
    snprintf(tmp, sizeof tmp, ".%s.new-XXXXXX", name);
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "luamech new: cannot create a temporary folder %s/ next to %s/: %s\n", tmp, name,
                strerror(errno));
        return EXIT_RUNTIME;
    }
    int rc = new_fill(tmp, t, &ctx);
    if (rc == EXIT_OK && rename(tmp, name) != 0) {     /* replaces NAME when it is an empty folder */
        fprintf(stderr, "luamech new: cannot rename %s/ to %s/: %s\n", tmp, name, strerror(errno));
        rc = EXIT_RUNTIME;
    }
    if (rc != EXIT_OK) {
        new_remove_tmp(tmp);
        fprintf(stderr, "luamech new: nothing was written (%s/ was not created)\n", name);
        return rc;
    }
    int grpc = strcmp(t->name, "grpc") == 0;
    printf("created %s/ (template %s): scenario.lua, vu.lua, %sREADME.md, types/luamech.lua, .luarc.json\n"
           "run it:  %s run %s/scenario.lua -e %s\n"
           "    or:  bash %s %s/scenario.lua   (private local servers; see README.md)\n",
           name, t->name, grpc ? "service.proto, " : "", lm, name, t->param, rl.cmd, name);
    return EXIT_OK;
}

int new_cmd_main(int argc, char **argv, const char *prog) {
    const char *name = NULL, *tname = new_templates[0].name;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) { new_print_usage(); return EXIT_OK; }
        if (strcmp(a, "--template") == 0 || strcmp(a, "-t") == 0) {
            if (++i >= argc) return new_bad("%s needs a value", a);
            tname = argv[i];
        } else if (strncmp(a, "--template=", 11) == 0) {
            tname = a + 11;
        } else if (a[0] == '-' && a[1] != '\0') {
            return new_bad("unknown option '%s'", a);
        } else if (name) {
            return new_bad("unexpected argument '%s' (one NAME only)", a);
        } else {
            name = a;
        }
    }
    if (!name) return new_bad("missing the NAME of the scenario folder%s", "");
    if (!new_name_ok(name))
        return new_bad("bad NAME '%s': 1..64 letters, digits, '_', '-' or '.', not starting with '.' or '-'", name);
    for (const new_template *t = new_templates; t->name; t++)
        if (strcmp(t->name, tname) == 0) return new_create(name, t, prog);
    char list[256], fmt[400];
    snprintf(fmt, sizeof fmt, "unknown template '%%s' (%s)", new_template_list(list, sizeof list, ", ", " or "));
    return new_bad(fmt, tname);
}
