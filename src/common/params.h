/* params.h - named run parameters (-e NAME=VALUE), with the process
 * environment as the fallback. Filled once by the command line, then read-only
 * and shared by all workers. */
#ifndef LUAMECH_PARAMS_H
#define LUAMECH_PARAMS_H

#include <stddef.h>

typedef struct params {
    size_t n;
    char **names;
    char **values;
} params;

void params_init(params *p);
/* "NAME=VALUE"; returns 0, or -1 when there is no '=' or the name is empty. */
int params_add(params *p, const char *assignment);
/* The -e value, else getenv(name), else NULL. */
const char *params_get(const params *p, const char *name);
void params_free(params *p);

#endif
