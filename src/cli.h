/* cli.h - the command line: sub-commands and their flags. */
#ifndef LUAMECH_CLI_H
#define LUAMECH_CLI_H

#include "common/exit_codes.h"

int cli_main(int argc, char **argv);

#endif
