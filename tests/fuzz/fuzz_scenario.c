/* fuzz_scenario.c - fuzz harness for the scenario loader (scenario_load_state:
 * Lua evaluation of a data-only chunk, lua/scenario.lua's checks, the copy
 * into the C struct and the overrides), through fuzz_loaders.c.  Property:
 * no crash, no leak, no undefined behaviour; either a loaded scenario or a
 * message. */
#include "fuzz_loaders.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return fz_loader_one(data, size, "f.lua", scenario_load_state, scenario_free);
}
