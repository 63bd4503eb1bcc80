/* same_loaders.c - ctest's check that the in-memory loaders the scenario and
 * suite fuzz harnesses drive (scenario_load_state, suite_load_state, one Lua
 * state reused for every input) give what the file loaders give (a fresh
 * state per file): for every data-only input of the given corpus folders, in
 * order, the same verdict, message, and for a loaded one the same name,
 * runs, groups, run time and hash.  So the fuzzing covers the loaders luamech
 * uses, and one input leaves nothing behind that changes the next.  Exit 0
 * when every input agreed (and at least one was compared), else 1.
 *   same_loaders scenario DIR...    same_loaders suite DIR... */
#include <dirent.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_loaders.h"
#include "scenario/script.h"
#include "scenario/suite.h"

typedef int (*file_load_fn)(scenario *s, const char *path, const params *p, const scenario_overrides *o,
                            char *err, size_t err_len);

static int same_put(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static char *same_read(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = malloc(65536 + 1);
    *len = buf ? fread(buf, 1, 65536, f) : 0;
    fclose(f);
    return buf;
}

/* A message with Lua's addresses ("function: 0x7f...") blanked: they
 * differ between states and mean nothing to compare. */
static void same_blank_addresses(char *msg) {
    for (char *p = strstr(msg, ": 0x"); p; p = strstr(p + 1, ": 0x"))
        for (char *q = p + 4; (*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f'); q++) *q = '0';
}

/* 0 when both loads of one input agree; else prints the difference. */
static int same_one(const char *input, lua_State *L, const char *path, const char *src, size_t len, int suite) {
    file_load_fn by_file = suite ? suite_load : scenario_load;
    fz_load_fn by_state = suite ? suite_load_state : scenario_load_state;
    void (*release)(scenario *) = suite ? suite_free : scenario_free;
    params p;
    params_init(&p);
    scenario_overrides o;
    scenario_overrides_init(&o);
    scenario a, b;
    char ea[1024] = "", eb[1024] = "";
    int ra = by_file(&a, path, &p, &o, ea, sizeof ea);
    int rb = by_state(&b, L, path, src, len, &p, &o, eb, sizeof eb);
    same_blank_addresses(ea);
    same_blank_addresses(eb);
    int same = ra == rb && strcmp(ea, eb) == 0 && lua_gettop(L) == 0;
    if (same && ra == 0)
        same = strcmp(a.name ? a.name : "", b.name ? b.name : "") == 0 && a.nphases == b.nphases &&
               a.ngroups == b.ngroups && a.run_time_ns == b.run_time_ns && strcmp(a.hash, b.hash) == 0;
    if (!same)
        fprintf(stderr, "%s: file loader %d \"%s\" (%s), in-memory loader %d \"%s\" (%s)\n", input, ra, ea,
                a.hash, rb, eb, b.hash);
    release(&a);
    release(&b);
    params_free(&p);
    return same ? 0 : -1;
}

int main(int argc, char **argv) {
    if (argc < 3 || (strcmp(argv[1], "scenario") != 0 && strcmp(argv[1], "suite") != 0)) {
        fprintf(stderr, "usage: same_loaders scenario|suite DIR...\n");
        return 2;
    }
    int suite = strcmp(argv[1], "suite") == 0, compared = 0, bad = 0;
    char dir[] = "/tmp/luamech-same-XXXXXX", path[256], err[512];
    if (!mkdtemp(dir)) return 1;
    snprintf(path, sizeof path, "%s/s.lua", dir);
    same_put(path, "return function() end\n", 22);
    snprintf(path, sizeof path, "%s/sc.lua", dir);
    static const char scen[] = "return { run_time = '1s', groups = { { vus = 1, script = 's.lua' } } }\n";
    same_put(path, scen, sizeof scen - 1);
    params sp;
    params_init(&sp);
    lua_State *L = script_state_open(path, &sp, "scenario", err, sizeof err);
    if (!L) return 1;
    snprintf(path, sizeof path, "%s/%s", dir, suite ? "suite.lua" : "f.lua");
    for (int i = 2; i < argc; i++) {
        struct dirent **names;
        int n = scandir(argv[i], &names, NULL, alphasort);
        for (int k = 0; k < n; k++) {
            char input[4200];
            size_t len = 0;
            snprintf(input, sizeof input, "%s/%s", argv[i], names[k]->d_name);
            char *src = names[k]->d_name[0] != '.' ? same_read(input, &len) : NULL;
            if (src && fz_loader_input_ok((const uint8_t *)src, len) && same_put(path, src, len) == 0) {
                compared++;
                bad += same_one(input, L, path, src, len, suite) != 0;
            }
            free(src);
            free(names[k]);
        }
        free(n > 0 ? names : NULL);
    }
    lua_close(L);
    params_free(&sp);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    printf("same_loaders %s: %d inputs compared, %d differ\n", argv[1], compared, bad);
    return compared > 0 && bad == 0 ? 0 : 1;
}
