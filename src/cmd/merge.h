/* merge.h - `luamech merge SEGMENT_DIR... --out DIR [--allow-partial]`:
 * one result from the results directories of a run's --segment parts
 * (docs/distributed.md). */
#ifndef LUAMECH_CMD_MERGE_H
#define LUAMECH_CMD_MERGE_H
/* argv[0] is "merge"; returns an exit code of common/exit_codes.h. */
int merge_cmd_main(int argc, char **argv);
#endif
