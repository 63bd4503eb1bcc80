/* report_html.c - a probe that must NOT compile: a file of the report layer
 * (src/report) including a header of a layer above it, html/ (report.html)
 * or cmd/ (the sub-commands).  Built only by tests/layers/build_probe.sh,
 * once per header (-DPROBE_CMD for cmd/compare.h). */
#include "report/summary_read.h"
#ifdef PROBE_CMD
#include "cmd/compare.h"
#else
#include "html/html.h"
#endif

int layers_probe_report_html(void) { return 0; }
