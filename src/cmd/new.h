/* new.h - `luamech new NAME [--template T]`: writes a scenario folder. */
#ifndef LUAMECH_CMD_NEW_H
#define LUAMECH_CMD_NEW_H
/* argv[0] is "new", prog the program's argv[0] (the command it prints);
 * returns an exit code of common/exit_codes.h. */
int new_cmd_main(int argc, char **argv, const char *prog);
#endif
