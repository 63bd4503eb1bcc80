/* lm_share.h - what the Lua side of a run shares across worker threads:
 * the socket I/O backend of the workers' loops (the run plan's, a value the
 * runner sets; lm_open_all hands it to each worker's loop, net_io_use),
 * the scenario's folder (relative paths resolve against it), the list of
 * files scripts read (for the results' scenario/ copy) and the data sets of
 * luamech.data (parsed once per process, read-only afterwards).  Created by
 * the runner (src/run/runner.c) before a run, handed to the workers through the engine
 * as an opaque pointer; every change is under its mutex (a script's file
 * reads and data loads: normally in the init, never on a primitive's path). */
#ifndef LUAMECH_LM_SHARE_H
#define LUAMECH_LM_SHARE_H

#include <lua.h>
#include <uv.h>

struct lm_dataset;

typedef struct lm_share {
    uv_mutex_t mu;
    char *root;                 /* the scenario's folder, absolute */
    char **files;               /* absolute paths read by scripts, each once */
    int nfiles, cap_files;
    struct lm_dataset *sets;    /* luamech.data's data sets (lm_data.c) */
    char *setup_json;           /* setup()'s result as JSON, or NULL (lm_lifecycle.c) */
    int io;                     /* every worker loop's backend, a net_io_mode (net/uring.h);
                                   auto until lm_share_set_io */
} lm_share;

/* A share for the scenario in folder dir (made absolute); NULL when out of
 * memory or dir does not exist. */
lm_share *lm_share_new(const char *dir);
void lm_share_free(lm_share *s);
/* The workers' socket I/O backend, by name ("uring", "epoll", "auto"; NULL:
 * auto), before the run starts; 0, or -1 for an unknown name. */
int lm_share_set_io(lm_share *s, const char *io);
/* Note a file read by a script (its real path; duplicates ignored). */
void lm_share_record(lm_share *s, const char *path);
/* script_install_paths (scenario/script.h) against s's folder, recording
 * the files read in s: 0 with the undo function on top of L, or -1. */
int lm_share_install_paths(lua_State *L, lm_share *s, char *err, size_t err_len);
/* Frees the data sets (lm_data.c). */
void lm_data_free_all(lm_share *s);

#endif
