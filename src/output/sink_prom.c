/* sink_prom.c - `--stream prometheus=URL`: Prometheus remote write. */
#include "output/output_priv.h"

#include <stdio.h>
#include <string.h>

int output_prom_check_url(const char *url, char *err, size_t err_len) {
    (void)url;
    snprintf(err, err_len, "--stream prometheus: not available yet");
    return -1;
}

int output_prom_open(output_sink *s, const output_stream_cfg *c, char *err, size_t err_len) {
    (void)s, (void)c;
    snprintf(err, err_len, "--stream prometheus: not available yet");
    return -1;
}
