#!/bin/sh
# deploy/container/build.sh STAGE - the build stage of deploy/container/Containerfile:
# builds luamech with -DLUAMECH_STATIC=ON (LuaJIT, libuv, hiredis, ... linked
# from Debian's .a files; glibc and libmemcached shared) from the source tree
# this script is in, and installs it under STAGE/usr (bin/luamech, the man
# page, share/luamech/{scenarios,types,run-local.sh}, share/doc/luamech).
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
"$stage/usr/bin/luamech" --version
