# The -DLUAMECH_STATIC=ON build (cmake/static.cmake) and the container image
# of deploy/container/Containerfile, as the recipe makes them:
#  - the Containerfile: a Debian 12 build stage running
#    deploy/container/build.sh, whose BUILD_PKGS hold every library -dev
#    package of .ci/setup but the test-only ones (cmocka, libmemcached) and
#    are installed here (this machine is the build stage), and a FROM
#    scratch image;
#  - build.sh run on a clean copy of the sources (the files git knows, as
#    `COPY . .` with .dockerignore; its build tree is kept in
#    BUILD/static-check) stages the image's file system;
#  - the binary needs only glibc: ldd (everything loaded) and readelf
#    (NEEDED) show only libc, libm, libdl, libpthread, librt and the dynamic
#    loader - no libstdc++ or libgcc_s (snappy's C++ runtime is linked in),
#    no libmemcached (src/client/mc_ring.c) - and the same check fails on
#    the normal (shared) build;
#  - the image: with buildah installed and root, the Containerfile itself is
#    built (`buildah build --build-context build=STAGE_PARENT`, so that its
#    debian:12 stage, which needs a registry, is replaced by the stage made
#    above; storage private to the test), its file system is exactly the
#    stage (nothing else: no shell), and `buildah run` of its ENTRYPOINT
#    writes a scenario folder with `luamech new` and runs the shipped membase
#    scenario against a real memcached, which counts what the run reports.
#    Without buildah (or with LUAMECH_NO_BUILDAH=1; skipped, said so) the
#    final stage's COPY lines, read from the Containerfile, are applied to a
#    scratch root by hand and the same runs happen in it (unshare --root);
#    without root the binary is copied alone to a scratch directory.
source "$(dirname "$0")/lib.sh" "$@"
source "$(dirname "$0")/lib_package.sh"

cf=$SRC/deploy/container/Containerfile
arg() { sed -n "s/^ARG $1=\"\(.*\)\"$/\1/p" "$cf"; }
BUILD_PKGS=$(arg BUILD_PKGS)
check "Containerfile: FROM debian:12 AS build, FROM scratch" \
    [ "$(grep '^FROM' "$cf" | tr '\n' ' ')" = "FROM debian:12 AS build FROM scratch " ]
check "Containerfile: the build stage runs deploy/container/build.sh" grep -qx 'RUN sh deploy/container/build.sh /stage' "$cf"
# the library packages of .ci/setup, less the test-only ones (libmemcached: tests/CMakeLists.txt)
setup_libs=$(sed -n '/^PKGS=(/,/)/p; /^PKGS+=(/p' "$SRC/.ci/setup" | grep -oE '(lib[a-z0-9.+-]*-dev|zlib1g-dev)' | grep -v -E 'cmocka|libmemcached')
check "Containerfile BUILD_PKGS has no test-only library" bash -c "! grep -qE 'cmocka|libmemcached' <<< '$BUILD_PKGS'"
missing=""
for p in $setup_libs; do [[ " $BUILD_PKGS " == *" $p "* ]] || missing="$missing $p"; done
check "Containerfile BUILD_PKGS has every library of .ci/setup (missing:$missing)" [ -z "$missing" ]
missing=""
for p in $BUILD_PKGS; do dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"; done
check "BUILD_PKGS are installed here (missing:$missing)" [ -z "$missing" ]

# the build stage, on a clean copy of the sources (timestamps kept, and the
# build tree kept in BUILD/static-check between runs: only what changed is
# rebuilt; a first run builds everything, minutes on a loaded machine)
build=$(build_dir)
copy=$build/static-check/src
rm -rf "$copy"; mkdir -p "$copy"
if git -C "$SRC" rev-parse --git-dir > /dev/null 2>&1; then
    (cd "$SRC" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp -p --parents -t "$copy" 2>/dev/null)
else                                        # not a git checkout: all but build trees and results
    tar -C "$SRC" --exclude='./build*' --exclude=./results --exclude=./.git -cf - . | tar -C "$copy" -xf -
fi
check "a clean copy of the sources ($(find "$copy" -type f | wc -l) files, no build tree)" \
    [ -f "$copy/CMakeLists.txt" -a ! -e "$copy/build" ]
stage=$TMP/ctx/stage                         # the build stage's /stage
(cd "$copy" && BUILD_DIR=$build/static-check/build timeout 900 sh deploy/container/build.sh "$stage" > "$TMP/build.log" 2>&1); rc=$?
check "deploy/container/build.sh exits 0 ($(grep -m3 -E 'error|Error' "$TMP/build.log"))" [ $rc -eq 0 ]
check "the static build has no compiler warning" bash -c "! grep -q 'warning:' '$TMP/build.log'"
bin=$stage/usr/bin/luamech
check "staged: usr/bin/luamech, the man page, the scenarios, run-local.sh" \
    [ -x "$bin" -a -s "$stage/usr/share/man/man1/luamech.1.gz" -a -s "$stage/usr/share/luamech/scenarios/membase.lua" \
      -a -s "$stage/usr/share/luamech/run-local.sh" ]
check "staged: glibc's libc, libm and dynamic loader, /tmp" \
    [ -s "$stage/lib/x86_64-linux-gnu/libc.so.6" -a -s "$stage/lib/x86_64-linux-gnu/libm.so.6" \
      -a -s "$stage/lib64/ld-linux-x86-64.so.2" -a -d "$stage/tmp" ]
[ -x "$bin" ] || finish

ALLOWED='^(libc|libm|libdl|libpthread|librt|ld-linux-x86-64)\.so'
# static_ok BIN: prints what is wrong, returns non-zero if anything is
static_ok() {
    local bad=0 lib
    for lib in $(ldd "$1" | awk '$2 == "=>" { print $1 } $1 ~ /^\// { n = split($1, p, "/"); print p[n] }'); do
        [[ $lib =~ $ALLOWED ]] || { echo "loads $lib"; bad=1; }
    done
    for lib in $(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        [[ $lib =~ $ALLOWED ]] || { echo "needs $lib"; bad=1; }
    done
    return $bad
}
static_ok "$bin" > "$TMP/why"; rc=$?
check "ldd and readelf: only glibc (libc, libm, the loader) ($(tr '\n' ' ' < "$TMP/why"))" [ $rc -eq 0 ]
check "ldd: no libstdc++, libgcc_s, libmemcached" bash -c "! ldd '$bin' | grep -E 'stdc\+\+|gcc_s|memcached|hashkit'"
echo "ldd of the static build:"; ldd "$bin"
static_ok "$LUAMECH" > "$TMP/why-shared"; rc=$?
check "the same check flags the shared build ($(head -2 "$TMP/why-shared" | tr '\n' ' '))" [ $rc -ne 0 ]

# in_image LABEL CMD...: `luamech new` and the membase run with CMD as the
# image's luamech (its working directory /work is $work here)
in_image() {
    local label=$1; shift
    "$@" new made --template memcached > "$TMP/new.log" 2>&1; rc=$?
    check "$label: luamech new (exit $rc; $(head -c 200 "$TMP/new.log"))" [ $rc -eq 0 -a -s "$work/made/scenario.lua" ]
    membase_run "$label" "$TMP" "$work/out" out /usr/share/luamech/scenarios/membase.lua "$@"
}

if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP the image: not root (no buildah, no chroot); the binary runs copied alone"
    mkdir -p "$TMP/alone"; cp "$bin" "$TMP/alone/luamech"
    membase_run "static binary copied alone" "$TMP/wd" "$TMP/wd/out" out "$SRC/scenarios/membase.lua" "$TMP/alone/luamech"
    finish
fi
entry=$(sed -n 's/^ENTRYPOINT \["\(.*\)"\]$/\1/p' "$cf")
check "Containerfile: ENTRYPOINT [\"/usr/bin/luamech\"], WORKDIR /work" [ "$entry" = /usr/bin/luamech -a "$(grep -c '^WORKDIR /work$' "$cf")" -eq 1 ]
if [ -z "${LUAMECH_NO_BUILDAH:-}" ] && command -v buildah > /dev/null; then
    work=$TMP/work; mkdir -p "$work"
    BH=(buildah --root "$TMP/bh/storage" --runroot "$TMP/bh/run" --storage-driver vfs)
    img=localhost/luamech-static-test
    timeout 300 "${BH[@]}" build --isolation chroot --build-context build="$TMP/ctx" -f "$cf" -t "$img" "$copy" \
        > "$TMP/image.log" 2>&1; rc=$?
    check "buildah build of the Containerfile (exit $rc; $(tail -c 300 "$TMP/image.log"))" [ $rc -eq 0 ]
    check "... without the debian:12 stage (replaced by the staged build)" bash -c "! grep -q 'apt-get' '$TMP/image.log'"
    ctr=$("${BH[@]}" from --pull=never "$img" 2> "$TMP/from.log")
    check "buildah from the image ($(tail -c 200 "$TMP/from.log"))" [ -n "$ctr" ]
    echo "image: $("${BH[@]}" images --format '{{.Name}} {{.Size}}' "$img" 2>/dev/null)"
    cfg=$("${BH[@]}" inspect --type image --format '{{.OCIv1.Config.Entrypoint}} {{.OCIv1.Config.WorkingDir}}' "$img")
    check "image: entry point and working directory ($cfg)" [ "$cfg" = "[$entry] /work" ]
    mnt=$("${BH[@]}" mount "$ctr")
    diff <(cd "$stage" && find . -mindepth 1 ! -path ./work | sort) <(cd "$mnt" && find . -mindepth 1 ! -path ./work | sort) \
        > "$TMP/fs.diff"; rc=$?
    check "image: its files are exactly the staged ones ($(head -c 300 "$TMP/fs.diff"))" [ $rc -eq 0 ]
    check "image: no shell" [ ! -e "$mnt/bin/sh" ]
    "${BH[@]}" umount "$ctr" > /dev/null
    in_image "the image (buildah run)" timeout 120 "${BH[@]}" run --isolation chroot --network host \
        -v "$work:/work" "$ctr" -- "$entry"
    "${BH[@]}" rm --all > /dev/null 2>&1; "${BH[@]}" rmi --all --force > /dev/null 2>&1
    rm -rf "$TMP/bh"
else
    echo "SKIP the image build: buildah is not installed (apt-get install buildah) or LUAMECH_NO_BUILDAH is set; the final stage's COPY lines are applied by hand"
    root=$TMP/root
    mkdir -p "$root"
    # every COPY --from=build SRC DST of the final stage (after the last FROM)
    awk '/^FROM/ { n = NR } { line[NR] = $0 } END { for (i = n; i <= NR; i++) print line[i] }' "$cf" |
        sed -n 's/^COPY --from=build \([^ ]*\) \([^ ]*\)$/\1 \2/p' > "$TMP/copies"
    check "the final stage has COPY --from=build lines ($(wc -l < "$TMP/copies"))" [ -s "$TMP/copies" ]
    while read -r from to; do mkdir -p "$root$to"; cp -a "$TMP/ctx$from." "$root$to"; done < "$TMP/copies"
    check "the runtime root has no LuaJIT, libuv or hiredis" bash -c "! find '$root' -name 'lib*' | grep -E 'luajit|libuv|hiredis'"
    work=$root/work; mkdir -p "$work"
    in_image "the image's file system (chroot)" unshare --root="$root" --wd=/work "$entry"
fi
finish
