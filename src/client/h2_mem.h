/* h2_mem.h - the memory of one HTTP/2 session's libnghttp2 (its streams,
 * queued frames, header buffers): blocks of a few size classes kept on
 * free lists of the session, so that a stream opened after another closed
 * reuses its blocks instead of calling malloc and free a dozen times per
 * request.  Blocks larger than the biggest class go to malloc directly;
 * the free lists keep at most H2_MEM_KEEP_BYTES (past that a freed block
 * goes back to the C library), and everything is freed by h2_mem_free
 * after nghttp2_session_del.  One session, one loop thread: no locks. */
#ifndef LUAMECH_CLIENT_H2_MEM_H
#define LUAMECH_CLIENT_H2_MEM_H

#include <stddef.h>

#include <nghttp2/nghttp2.h>

#define H2_MEM_CLASSES 7                  /* 64, 128, ... 4096 bytes with the header */
#define H2_MEM_KEEP_BYTES (256u * 1024u)  /* kept on the free lists at most */

typedef struct h2_mem {
    void *free[H2_MEM_CLASSES];           /* a list per class (the next pointer in the block) */
    size_t kept;                          /* bytes on the lists */
} h2_mem;

/* The nghttp2_mem of pool m (mem_user_data = m); m must outlive the
 * nghttp2 session it is given to. */
nghttp2_mem h2_mem_nghttp2(h2_mem *m);

/* Free the blocks on the lists (after nghttp2_session_del). */
void h2_mem_free(h2_mem *m);

#endif
