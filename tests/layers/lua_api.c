/* lua_api.c - the control of lua_worker.c: a bindings-layer file including
 * the narrow engine API and a client header compiles. */
#include "engine/vu_api.h"
#include "client/mc_client.h"

int layers_probe_lua_api(void) { return 0; }
