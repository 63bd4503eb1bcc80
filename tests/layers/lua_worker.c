/* lua_worker.c - a probe that must NOT compile: a file of the bindings layer
 * (src/lua) including an engine header other than engine/vu_api.h (the
 * narrow API is all the bindings see).  Built only by
 * tests/layers/build_probe.sh. */
#include "engine/vu_api.h"
#include "engine/worker.h"

int layers_probe_lua_worker(void) { return 0; }
