/* sink_dash.c - `--dashboard [ADDR:]PORT`: the live web dashboard. */
#include "output/output_priv.h"

#include <stdio.h>
#include <string.h>

int output_dash_is_loopback(const char *spec) {
    (void)spec;
    return 1;
}

int output_dash_open(output_sink *s, const output_cfg *c, char *err, size_t err_len) {
    (void)s, (void)c;
    snprintf(err, err_len, "--dashboard: not available yet");
    return -1;
}
