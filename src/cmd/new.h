/* new.h - `luamech new NAME [--template T]`: writes a scenario folder. */
#ifndef LUAMECH_CMD_NEW_H
#define LUAMECH_CMD_NEW_H
#include <stddef.h>
/* argv[0] is "new", prog the program's argv[0] (the command it prints);
 * returns an exit code of common/exit_codes.h. */
int new_cmd_main(int argc, char **argv, const char *prog);
/* The template names into buf, joined by sep ("|" for a usage line; with
 * last, e.g. " or ", before the final one), from new.c's one table: the
 * usage texts and messages name exactly the templates there are. */
const char *new_template_list(char *buf, size_t len, const char *sep, const char *last);
#endif
