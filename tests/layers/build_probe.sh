#!/usr/bin/env bash
# build_probe.sh BUILD_DIR - the per-layer libraries of CMakeLists.txt make
# an upward include fail to compile: layers_probe_up (tests/layers/up.c,
# compiled with the stats layer's include rules) must fail on the missing
# engine header, and its control layers_probe_down must build.
set -u
b=$1
out=$(cmake --build "$b" --target layers_probe_down 2>&1) || { echo "the control did not build:"; echo "$out"; exit 1; }
if out=$(cmake --build "$b" --target layers_probe_up 2>&1); then
    echo "stats including engine/engine.h compiled: the layers are not enforced"; exit 1
fi
grep -q 'engine/engine.h' <<< "$out" || { echo "failed for another reason:"; echo "$out"; exit 1; }
echo "ok: stats cannot include engine/engine.h; stats/hist.h and common/text.h compile"
