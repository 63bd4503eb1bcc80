/* lm_share.c - the run's shared Lua-side context (lm_share.h): the
 * workers' socket I/O backend (a value; lm_core.c sets it on each loop), the
 * scenario's folder, the files scripts read, and the hook that makes
 * relative paths resolve against the folder (lua/paths.lua, installed by
 * scenario/script.c).  It does not
 * copy files (report/results.c does) nor parse data (lm_data.c). */
#include "lua/lm_share.h"

#include <lauxlib.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/uring.h"
#include "scenario/script.h"

lm_share *lm_share_new(const char *dir) {
    lm_share *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->root = realpath(dir, NULL);
    if (!s->root || uv_mutex_init(&s->mu) != 0) {
        free(s->root);
        free(s);
        return NULL;
    }
    return s;
}

void lm_share_free(lm_share *s) {
    if (!s) return;
    lm_data_free_all(s);
    for (int i = 0; i < s->nfiles; i++) free(s->files[i]);
    free(s->files);
    free(s->setup_json);
    free(s->root);
    uv_mutex_destroy(&s->mu);
    free(s);
}

int lm_share_set_io(lm_share *s, const char *io) {
    net_io_mode m;
    if (net_io_parse(io, &m) != 0) return -1;
    s->io = (int)m;
    return 0;
}

void lm_share_record(lm_share *s, const char *path) {
    char *real = realpath(path, NULL);
    if (!real) return;
    uv_mutex_lock(&s->mu);
    int seen = 0;
    for (int i = 0; i < s->nfiles && !seen; i++) seen = strcmp(s->files[i], real) == 0;
    if (!seen && s->nfiles == s->cap_files) {
        int cap = s->cap_files ? s->cap_files * 2 : 16;
        char **files = realloc(s->files, (size_t)cap * sizeof *files);
        if (files) s->files = files, s->cap_files = cap;
    }
    if (!seen && s->nfiles < s->cap_files) {
        s->files[s->nfiles++] = real;
        real = NULL;
    }
    uv_mutex_unlock(&s->mu);
    free(real);
}

static void lm_share_record_cb(void *ctx, const char *path) { lm_share_record(ctx, path); }

int lm_share_install_paths(lua_State *L, lm_share *s, char *err, size_t err_len) {
    return script_install_paths(L, s->root, lm_share_record_cb, s, err, err_len);
}
