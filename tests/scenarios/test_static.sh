# The -DLUAMECH_STATIC=ON build (cmake/static.cmake) as the container recipe
# makes it: deploy/container/build.sh (the Containerfile's build stage) run
# on a clean copy of the sources (the files git knows, as `COPY . .` with
# .dockerignore; its build tree is kept in BUILD/static-check), then
#  - the Containerfile: both stages are Debian 12; BUILD_PKGS holds every
#    library -dev package of .ci/setup and is installed here (this machine
#    is the build stage);
#  - no LuaJIT, libuv, hiredis, jansson, http-parser, libunistring or zlib
#    shared library is loaded (ldd), and the binary itself needs only glibc,
#    libgcc_s, libmemcached (readelf NEEDED; Debian 12 ships no
#    libmemcached.a) and libstdc++ (libsnappy.a is C++; libmemcached needs
#    it too, so the runtime packages are the same); the same check fails on the normal (shared) build;
#  - the runtime stage, simulated: a scratch root holding only the staged
#    /usr and the shared libraries of the Containerfile's RUNTIME_PKGS, libc6
#    and libgcc-s1 and what they depend on (chroot, as root; without root the
#    binary is copied alone to a scratch directory): there `luamech new`
#    writes a scenario folder and the shipped membase scenario runs against
#    a real memcached, which counts what the run reports.
source "$(dirname "$0")/lib.sh" "$@"
source "$(dirname "$0")/lib_package.sh"

cf=$SRC/deploy/container/Containerfile
arg() { sed -n "s/^ARG $1=\"\(.*\)\"$/\1/p" "$cf"; }
BUILD_PKGS=$(arg BUILD_PKGS); RUNTIME_PKGS=$(arg RUNTIME_PKGS)
check "Containerfile: FROM debian:12 AS build, FROM debian:12-slim" \
    [ "$(grep '^FROM' "$cf" | tr '\n' ' ')" = "FROM debian:12 AS build FROM debian:12-slim " ]
check "Containerfile: the build stage runs deploy/container/build.sh" grep -qx 'RUN sh deploy/container/build.sh /stage' "$cf"
setup_libs=$(sed -n '/^PKGS=(/,/)/p; /^PKGS+=(/p' "$SRC/.ci/setup" | grep -oE '(lib[a-z0-9.+-]*-dev|zlib1g-dev)' | grep -v cmocka)
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
(cd "$copy" && BUILD_DIR=$build/static-check/build timeout 900 sh deploy/container/build.sh "$TMP/stage" > "$TMP/build.log" 2>&1); rc=$?
check "deploy/container/build.sh exits 0 ($(grep -m3 -E 'error|Error' "$TMP/build.log"))" [ $rc -eq 0 ]
check "the static build has no compiler warning" bash -c "! grep -q 'warning:' '$TMP/build.log'"
bin=$TMP/stage/usr/bin/luamech
check "staged: usr/bin/luamech, the man page, the scenarios" \
    [ -x "$bin" -a -s "$TMP/stage/usr/share/man/man1/luamech.1.gz" -a -s "$TMP/stage/usr/share/luamech/scenarios/membase.lua" ]
[ -x "$bin" ] || finish

BANNED='lib(uv|luajit|hiredis|jansson|http_parser|unistring|z|csv|snappy|protobuf-c)[-.0-9]*\.so'
ALLOWED='^(libc|libm|libdl|libpthread|librt|libgcc_s|ld-linux-x86-64|libmemcached|libstdc\+\+)\.so'
# static_ok BIN: prints what is wrong, returns non-zero if anything is
static_ok() {
    local bad=0 lib
    if ldd "$1" | grep -E "$BANNED"; then bad=1; fi
    for lib in $(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        [[ $lib =~ $ALLOWED ]] || { echo "needs $lib"; bad=1; }
    done
    return $bad
}
static_ok "$bin" > "$TMP/why"; rc=$?
check "ldd and readelf: only glibc, libgcc_s, libmemcached, libstdc++ ($(tr '\n' ' ' < "$TMP/why"))" [ $rc -eq 0 ]
echo "ldd of the static build:"; ldd "$bin"
static_ok "$LUAMECH" > "$TMP/why-shared"; rc=$?
check "the same check flags the shared build ($(head -2 "$TMP/why-shared" | tr '\n' ' '))" [ $rc -ne 0 ]

# pkg_closure PKG...: the installed packages PKG... need, recursively
pkg_closure() {
    local -A seen=()
    local queue=("$@") p g a name
    while [ ${#queue[@]} -gt 0 ]; do
        p=${queue[0]}; queue=("${queue[@]:1}")
        [ -n "${seen[$p]:-}" ] && continue
        seen[$p]=1; echo "$p"
        IFS=',' read -ra groups <<< "$(dpkg-query -W -f '${Depends},${Pre-Depends}' "$p" 2>/dev/null)"
        for g in "${groups[@]}"; do
            IFS='|' read -ra alts <<< "$g"
            for a in "${alts[@]}"; do
                name=$(awk '{ sub(/:.*/, "", $1); print $1 }' <<< "$a")
                [ -n "$name" ] || continue
                if dpkg-query -W -f '${Status}' "$name" 2>/dev/null | grep -q "install ok installed"; then
                    queue+=("$name"); break
                fi
            done
        done
    done
}

if [ "$(id -u)" -eq 0 ]; then
    root=$TMP/root
    mkdir -p "$root/tmp" "$root/usr"
    cp -a "$TMP/stage/usr/." "$root/usr/"
    pkgs=$(pkg_closure libc6 libgcc-s1 $RUNTIME_PKGS)
    for p in $pkgs; do
        dpkg -L "$p" | grep -E '\.so(\.[0-9.]+)?$' | while read -r f; do
            [ -e "$f" ] && { mkdir -p "$root$(dirname "$f")"; cp -L "$f" "$root$f"; }
        done
    done
    echo "runtime root: $(echo $pkgs)"
    check "the runtime root has no LuaJIT, libuv or hiredis" bash -c "! find '$root' -name 'lib*' | grep -E 'luajit|libuv|hiredis'"
    chroot "$root" /usr/bin/luamech new made --template memcached > "$TMP/new.log" 2>&1; rc=$?
    check "luamech new in the runtime root (exit $rc; $(head -c 200 "$TMP/new.log"))" [ $rc -eq 0 -a -s "$root/made/scenario.lua" ]
    membase_run "static binary in the runtime root (chroot)" "$TMP" "$root/tmp/out" /tmp/out \
        /usr/share/luamech/scenarios/membase.lua chroot "$root" /usr/bin/luamech
else
    mkdir -p "$TMP/alone"; cp "$bin" "$TMP/alone/luamech"
    membase_run "static binary copied alone" "$TMP/wd" "$TMP/wd/out" out "$SRC/scenarios/membase.lua" "$TMP/alone/luamech"
fi
finish
