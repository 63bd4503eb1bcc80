/* lm_http_tags.c - the `tags` of a luamech.http request (its own over the
 * client's defaults): each distinct tag set of a call is timed under a
 * tagged timer of its own, named "<timer>{k=v,...}" (tags sorted by name;
 * <timer> is "http <name>" for a named call, else "http.<method>"), whose
 * data fields (`tagged_of`: <timer>; `tags`: an object) are carried into
 * summary.json, so readers never parse names.  Timer ids are cached per worker by that name: once a
 * tag set has been seen, a request allocates nothing for it.  It only
 * reads tables checked by lm_http_opts.c; it records no sample itself
 * (lm_http_done.c does). */
#include <jansson.h>
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/vu_api.h"
#include "lua/lm_core.h"
#include "lua/lm_http_int.h"

typedef struct lm_http_tag {
    char k[LM_HTTP_TAG_LEN + 1], v[LM_HTTP_TAG_LEN + 1];
} lm_http_tag;

typedef struct lm_http_tagset {
    lm_http_tag t[2 * LM_HTTP_MAX_TAGS];
    int n;
} lm_http_tagset;

/* The tag of table entry (key at -2, value at -1) into ts unless one of
 * that name is there or it is `name` (the timer's name, not a tag). */
static void lm_http_tag_add(lua_State *L, lm_http_tagset *ts) {
    size_t kl;
    const char *k = lua_tolstring(L, -2, &kl);
    if (kl == 4 && memcmp(k, "name", 4) == 0) return;
    for (int i = 0; i < ts->n; i++)
        if (strcmp(ts->t[i].k, k) == 0) return;
    lm_http_tag *t = &ts->t[ts->n++];
    snprintf(t->k, sizeof t->k, "%s", k);
    if (lua_type(L, -1) == LUA_TBOOLEAN) snprintf(t->v, sizeof t->v, "%s", lua_toboolean(L, -1) ? "true" : "false");
    else if (lua_type(L, -1) == LUA_TNUMBER) snprintf(t->v, sizeof t->v, "%.14g", lua_tonumber(L, -1));
    else snprintf(t->v, sizeof t->v, "%s", lua_tostring(L, -1));
}

/* Every tag of the table at idx into ts (the first of a name wins). */
static void lm_http_tags_from(lua_State *L, int idx, lm_http_tagset *ts) {
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lm_http_tag_add(L, ts);
        lua_pop(L, 1);
    }
}

static void lm_http_tags_sort(lm_http_tagset *ts) {
    for (int i = 1; i < ts->n; i++)
        for (int j = i; j > 0 && strcmp(ts->t[j - 1].k, ts->t[j].k) > 0; j--) {
            lm_http_tag x = ts->t[j];
            ts->t[j] = ts->t[j - 1];
            ts->t[j - 1] = x;
        }
}

/* The tagged timer's name "<base>{k=v,...}". */
static void lm_http_tags_name(const lm_http_tagset *ts, const char *base, char *name, size_t nlen) {
    size_t n = (size_t)snprintf(name, nlen, "%s{", base);
    for (int i = 0; i < ts->n && n < nlen; i++)
        n += (size_t)snprintf(name + n, nlen - n, "%s%s=%s", i ? "," : "", ts->t[i].k, ts->t[i].v);
    if (n < nlen) snprintf(name + n, nlen - n, "}");
}

/* A new tagged timer: its data fields {"tagged_of": base, "tags": {...}}
 * as JSON text (jansson escapes base), then its id.  Once per tag set. */
static int lm_http_tags_new(worker *w, const lm_http_tagset *ts, const char *base, const char *name) {
    json_t *tags = json_object(), *o = json_object();
    for (int i = 0; tags && i < ts->n; i++) json_object_set_new(tags, ts->t[i].k, json_string(ts->t[i].v));
    char *text = NULL;
    if (o && tags && json_object_set_new(o, "tagged_of", json_string(base)) == 0 &&
        json_object_set(o, "tags", tags) == 0)
        text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(tags);
    json_decref(o);
    int id = lm_tagged_timer_id(w, name, text);   /* text NULL (memory, bad UTF-8): untagged data */
    free(text);
    return id;
}

/* The tagged timer of a call (its tags over h's defaults; method: the
 * call's), or -1 when it has no tags. */
int lm_http_tag_tid(lua_State *L, lm_http *h, const lm_http_call *c, int method) {
    if (!c->tags_idx && h->tags_ref == LUA_NOREF) return -1;
    lm_http_tagset ts;
    ts.n = 0;
    int top = lua_gettop(L);
    if (c->tags_idx) lm_http_tags_from(L, c->tags_idx, &ts);
    if (h->tags_ref != LUA_NOREF) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->tags_ref);
        lm_http_tags_from(L, lua_gettop(L), &ts);
    }
    lua_settop(L, top);
    if (ts.n == 0) return -1;                 /* only tags.name: the named timer */
    lm_http_tags_sort(&ts);
    char base[256], name[4096];
    if (c->name_idx) snprintf(base, sizeof base, "http %s", lua_tostring(L, c->name_idx));
    else snprintf(base, sizeof base, "http.%s", lm_http_lower[method]);
    lm_http_tags_name(&ts, base, name, sizeof name);
    lua_pushstring(L, name);
    int id = lm_http_tid_cached(L, h->mod->tagged_ref, top + 1);
    if (id < 0) {
        id = lm_http_tags_new(h->mod->w, &ts, base, name);
        lm_http_tid_cache(L, h->mod->tagged_ref, top + 1, id);
    }
    lua_settop(L, top);
    return id;
}
