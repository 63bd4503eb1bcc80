/* bench/mallinfo.c - a preload for bench/soak.sh (MALLINFO=1): a thread
 * that writes glibc's mallinfo2() every MALLINFO_S seconds (default 5) to
 * the CSV file MALLINFO_OUT: seconds since start, bytes malloc holds from
 * the system (arena + mmapped), bytes in use (allocated and not freed), and
 * bytes free inside the arenas.  It tells a leak (in use grows) from
 * fragmentation (in use flat, RSS rising towards what malloc holds).  Not
 * part of luamech; LuaJIT's own GC heap is not in these figures.
 * Diagnostics: MALLINFO_XML=FILE appends glibc's malloc_info() (per arena:
 * free chunks by size, what each arena holds) every minute; MALLINFO_TRIM=1
 * calls malloc_trim(0) after each sample (what RSS would be if the free
 * pages inside the arenas went back to the system).
 *   cc -O2 -shared -fPIC -o mallinfo.so bench/mallinfo.c -lpthread */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void *mallinfo_loop(void *arg) {
    FILE *f = arg;
    const char *every = getenv("MALLINFO_S");
    unsigned s = every && atoi(every) > 0 ? (unsigned)atoi(every) : 5;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    fprintf(f, "t_s,held_kb,in_use_kb,free_kb\n");
    const char *xml = getenv("MALLINFO_XML");
    int trim = getenv("MALLINFO_TRIM") && atoi(getenv("MALLINFO_TRIM")) > 0;
    long last_xml = -60;
    for (;;) {
        struct mallinfo2 m = mallinfo2();
        clock_gettime(CLOCK_MONOTONIC, &t);
        fprintf(f, "%ld,%zu,%zu,%zu\n", (long)(t.tv_sec - t0.tv_sec), (m.arena + m.hblkhd) / 1024,
                (m.uordblks + m.hblkhd) / 1024, m.fordblks / 1024);
        fflush(f);
        if (xml && t.tv_sec - t0.tv_sec - last_xml >= 60) {
            FILE *x = fopen(xml, "a");
            last_xml = (long)(t.tv_sec - t0.tv_sec);
            if (x) {
                fprintf(x, "<!-- t_s %ld -->\n", last_xml);
                malloc_info(0, x);
                fclose(x);
            }
        }
        if (trim) malloc_trim(0);
        sleep(s);
    }
    return NULL;
}

__attribute__((constructor)) static void mallinfo_start(void) {
    const char *path = getenv("MALLINFO_OUT");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (!f) return;
    pthread_t t;
    pthread_attr_t a;
    if (pthread_attr_init(&a) != 0) return;
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &a, mallinfo_loop, f) != 0) fclose(f);
    pthread_attr_destroy(&a);
}
