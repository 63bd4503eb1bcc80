/* fuzz_scenario.c - fuzz harness for the scenario loader (scenario_load:
 * Lua evaluation of a data-only chunk, lua/scenario.lua's checks, the copy
 * into the C struct and the overrides).  Property: no crash, no leak, no
 * undefined behaviour; either a loaded scenario or a message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_loaders.h"
#include "scenario/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!fz_loader_input_ok(data, size)) return 0;
    const char *path = fz_loader_write("f.lua", data, size);
    if (!path) return 0;
    params p;
    params_init(&p);
    scenario_overrides o;
    scenario_overrides_init(&o);
    scenario s;
    memset(&s, 0, sizeof s);
    char err[1024];
    err[0] = 0;
    if (scenario_load(&s, path, &p, &o, err, sizeof err) != 0 && !err[0]) abort();  /* a refusal says why */
    scenario_free(&s);                                   /* also after a refusal */
    params_free(&p);
    return 0;
}
