/* script.h - the parts of a Lua state common to every state luamech
 * creates, and the compiling of VU scripts (script.c). */
#ifndef LUAMECH_SCRIPT_H
#define LUAMECH_SCRIPT_H

#include <lua.h>
#include <stddef.h>
#include <stdint.h>
#include "common/params.h"

/* The global `luamech` with luamech.param (reading p, which must outlive
 * L) and luamech.version; replaces os.exit by an error. */
void script_register_static(lua_State *L, const params *p);
/* Pushes a fresh global environment for a chunk (lua_setfenv): its own
 * globals, reads fall through to L's, and its own `luamech` (param reading
 * p, version), so what the chunk sets dies with it. */
void script_push_env(lua_State *L, const params *p);
/* A fresh state for a scenario or suite file (`what`: "scenario" or
 * "suite", for the messages): standard libraries, script_register_static,
 * the embedded lua/checks.lua as require("luamech.checks"), and the file
 * run, its value on top.  NULL with the message in err. */
/* A state ready to run a scenario or suite file (libraries, luamech.param and
 * friends, require("luamech.checks")), without running it; NULL after a
 * message in err. */
lua_State *script_state_open(const char *path, const params *p, const char *what, char *err, size_t err_len);
lua_State *script_state_load(const char *path, const params *p, const char *what, int64_t limit_ns, char *err,
                             size_t err_len);
/* The text of the error value at idx: a string or number as it is, else
 * "(error object is a nil value)" and the like (never NULL; as lua.c). */
const char *script_error_text(lua_State *L, int idx);
/* The time limit of a scenario or suite file's evaluation (its top level
 * and the checker): 60 s, or LUAMECH_LOAD_TIMEOUT (a duration; the command
 * line reads it into scenario_overrides.load_limit_ns). */
#define SCRIPT_LIMIT_DEFAULT_NS (60LL * 1000000000LL)
#define SCRIPT_LIMIT_ENV "LUAMECH_LOAD_TIMEOUT"
/* lua_pcall of the function on top (nargs arguments) with a time limit
 * (limit_ns, 0: the default): a count hook reads the clock every 10,000
 * instructions (the JIT is off meanwhile: compiled code sees no hook), and
 * past the deadline raises at every instruction, so no pcall in the file
 * can hold it.  0 with the results on top, or -1 with the message in err
 * (the stack as before the function). */
int script_pcall_limited(lua_State *L, int nargs, int nresults, const char *path, int64_t limit_ns, char *err,
                         size_t err_len);
/* Compile a VU script; pushes a factory that returns a fresh closure of the
 * script each time it is called (so every VU gets its own environment).
 * Returns 0, or -1 with "file:line: message" in err. */
int script_load(lua_State *L, const char *path, char *err, size_t err_len);
/* Installs lua/paths.lua in L: relative paths of io.open, io.lines,
 * dofile, loadfile and require resolve against root (absolute); each file
 * read is passed to record(ctx, path) (record may be NULL).  Returns 0 with
 * a function on top of L that undoes it, or -1 with the message in err. */
typedef void (*script_record_fn)(void *ctx, const char *path);
int script_install_paths(lua_State *L, const char *root, script_record_fn record, void *ctx, char *err,
                         size_t err_len);

#endif
