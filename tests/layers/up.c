/* up.c - a probe that must NOT compile: a file of the stats layer including
 * an engine header (engine is above stats).  Built only by
 * tests/layers/build_probe.sh, never by the default build. */
#include "stats/hist.h"
#include "engine/engine.h"

int layers_probe_up(void) { return 0; }
