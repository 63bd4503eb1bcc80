/* params.c - the -e NAME=VALUE store; see params.h. */
#include "common/params.h"

#include <stdlib.h>
#include <string.h>

void params_init(params *p) { memset(p, 0, sizeof *p); }

int params_add(params *p, const char *assignment) {
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment) return -1;
    char **names = realloc(p->names, (p->n + 1) * sizeof *names);
    if (!names) return -1;
    p->names = names;
    char **values = realloc(p->values, (p->n + 1) * sizeof *values);
    if (!values) return -1;
    p->values = values;
    p->names[p->n] = strndup(assignment, (size_t)(eq - assignment));
    p->values[p->n] = strdup(eq + 1);
    p->n++;
    return 0;
}

const char *params_get(const params *p, const char *name) {
    for (size_t i = p->n; i-- > 0;)        /* the last -e wins */
        if (strcmp(p->names[i], name) == 0) return p->values[i];
    return getenv(name);
}

void params_free(params *p) {
    for (size_t i = 0; i < p->n; i++) {
        free(p->names[i]);
        free(p->values[i]);
    }
    free(p->names);
    free(p->values);
    memset(p, 0, sizeof *p);
}
