/* fuzz_suite.c - fuzz harness for the suite loader (suite_load_state: a
 * data-only chunk that may name DIR/sc.lua, lua/suite.lua's checks, every
 * run's scenario and overrides), through fuzz_loaders.c.  Property: no
 * crash, no leak, no undefined behaviour; either a loaded suite or a
 * message. */
#include "fuzz_loaders.h"
#include "scenario/suite.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return fz_loader_one(data, size, "suite.lua", suite_load_state, suite_free);
}
