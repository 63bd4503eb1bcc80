/* fuzz_suite.c - fuzz harness for the suite loader (suite_load: a data-only
 * chunk that may name DIR/sc.lua, lua/suite.lua's checks, every run's scenario
 * and overrides).  Property: no crash, no leak, no
 * undefined behaviour; either a loaded scenario or a message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_loaders.h"
#include "scenario/suite.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!fz_loader_input_ok(data, size)) return 0;
    const char *path = fz_loader_write("suite.lua", data, size);
    if (!path) return 0;
    params p;
    params_init(&p);
    scenario_overrides o;
    scenario_overrides_init(&o);
    scenario s;
    memset(&s, 0, sizeof s);
    char err[1024];
    err[0] = 0;
    if (suite_load(&s, path, &p, &o, err, sizeof err) != 0 && !err[0]) abort();  /* a refusal says why */
    suite_free(&s);                                   /* also after a refusal */
    params_free(&p);
    return 0;
}
