/* redis_uv.h - hiredis async event hooks on a libuv loop (our replacement for
 * hiredis's adapters/libuv.h).  Once connected, writes are not driven by
 * writability: commands queued during a loop turn are flushed by a
 * uv_prepare handle before the loop polls again, and the socket is watched for
 * writability only after a partial write.  Never touches Lua. */
#ifndef LUAMECH_REDIS_UV_H
#define LUAMECH_REDIS_UV_H

#include <hiredis/async.h>
#include <uv.h>

/* Attach ac to loop: 0, or -1 (already attached, out of memory, bad fd).
 * The hooks are freed by hiredis's cleanup when ac is freed; their libuv
 * handles close on the loop's next turn. */
int redis_uv_attach(redisAsyncContext *ac, uv_loop_t *loop);

#endif
