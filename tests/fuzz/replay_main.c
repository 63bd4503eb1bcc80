/* replay_main.c - runs a fuzz harness over every file of a corpus folder, so
 * the committed corpora are replayed by ctest in every build (gcc, ASan)
 * without libFuzzer.  It does not mutate or search: tests/fuzz/run.sh does
 * that with clang's libFuzzer.  Exit 0 when every input ran (a harness that
 * finds a violation aborts), 1 when the folder cannot be read or is empty. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); return -1; }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    if (!buf) { fclose(f); return -1; }
    for (;;) {
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) { free(buf); fclose(f); return -1; }
            buf = nb, cap *= 2;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        if (n == 0) break;
        len += n;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]); return 1; }
    DIR *d = opendir(argv[1]);
    if (!d) { perror(argv[1]); return 1; }
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
        if (replay_file(path) != 0) { closedir(d); return 1; }
        n++;
    }
    closedir(d);
    printf("replayed %d inputs from %s\n", n, argv[1]);
    return n > 0 ? 0 : 1;
}
