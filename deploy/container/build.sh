#!/bin/sh
# deploy/container/build.sh STAGE - the build stage of deploy/container/Containerfile:
# builds luamech with -DLUAMECH_STATIC=ON (every library linked from Debian's
# .a files, the C++ runtime of snappy included; only glibc stays shared)
# from the source tree this script is in, installs it under STAGE/usr
# (bin/luamech, the man page, share/luamech/{scenarios,types,run-local.sh},
# share/doc/luamech) and copies in the glibc files the binary needs (what
# ldd lists: libc, libm, the dynamic loader) and an empty /tmp: STAGE is the
# whole file system of the FROM scratch image.
# tests/scenarios/test_static.sh runs this same script on a clean copy of the
# sources.  Needs the Debian packages of the Containerfile's BUILD_PKGS.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 STAGE_DIR" >&2; exit 2; }
stage=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$src/build-container}
# RelWithDebInfo as .ci/setup builds (-O2; the debug info is stripped on install)
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLUAMECH_STATIC=ON -DBUILD_TESTING=OFF
cmake --build "$build" -j"$(nproc)"
DESTDIR=$stage cmake --install "$build" --prefix /usr --strip
# the shared libraries (glibc's) at the paths the binary looks for them
for lib in $(ldd "$stage/usr/bin/luamech" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
    mkdir -p "$stage$(dirname "$lib")"
    cp -L "$lib" "$stage$lib"
done
mkdir -p "$stage/tmp"
chmod 1777 "$stage/tmp"
"$stage/usr/bin/luamech" --version
