#!/usr/bin/env bash
# build_probe.sh BUILD_DIR - the per-layer libraries of CMakeLists.txt make
# an upward include fail to compile: layers_probe_up (tests/layers/up.c,
# compiled with the stats layer's include rules) must fail on the missing
# engine header, and its control layers_probe_down must build.  Then the
# bindings' narrow engine API: tests/layers/lua_worker.c, compiled with the
# include flags the build gives src/lua (luamech_lua's flags.make), must
# fail on engine/worker.h, and its control lua_api.c (engine/vu_api.h and a
# client header) must compile.  Then the layers above report: a report file
# (report_html.c, luamech_report's flags) must fail on html/html.h and on
# cmd/compare.h, and its control html_report.c (luamech_html's flags, with
# report/summary_read.h) must compile.
set -u
b=$1
here=$(cd "$(dirname "$0")" && pwd)
out=$(cmake --build "$b" --target layers_probe_down 2>&1) || { echo "the control did not build:"; echo "$out"; exit 1; }
if out=$(cmake --build "$b" --target layers_probe_up 2>&1); then
    echo "stats including engine/engine.h compiled: the layers are not enforced"; exit 1
fi
grep -q 'engine/engine.h' <<< "$out" || { echo "failed for another reason:"; echo "$out"; exit 1; }
echo "ok: stats cannot include engine/engine.h; stats/hist.h and common/text.h compile"

flags=$b/CMakeFiles/luamech_lua.dir/flags.make
[ -f "$flags" ] || { echo "no $flags (a Makefile build is needed)"; exit 1; }
inc=$(sed -n 's/^C_INCLUDES = //p' "$flags")
defs=$(sed -n 's/^C_DEFINES = //p' "$flags")
cc=${CC:-cc}
# shellcheck disable=SC2086
out=$($cc $defs $inc -fsyntax-only "$here/lua_api.c" 2>&1) ||
    { echo "the bindings' control (engine/vu_api.h) did not compile:"; echo "$out"; exit 1; }
# shellcheck disable=SC2086
if out=$($cc $defs $inc -fsyntax-only "$here/lua_worker.c" 2>&1); then
    echo "src/lua including engine/worker.h compiled: the narrow engine API is not enforced"; exit 1
fi
grep -q 'engine/worker.h' <<< "$out" || { echo "failed for another reason:"; echo "$out"; exit 1; }
echo "ok: src/lua cannot include engine/worker.h; engine/vu_api.h compiles"

# layer_flags LAYER: the compiler flags (defines, includes) of luamech_LAYER
layer_flags() {
    local f=$b/CMakeFiles/luamech_$1.dir/flags.make
    [ -f "$f" ] || { echo "no $f (a Makefile build is needed)" >&2; return 1; }
    sed -n 's/^C_DEFINES = //p; s/^C_INCLUDES = //p' "$f" | tr '\n' ' '
}
report_flags=$(layer_flags report) || exit 1
html_flags=$(layer_flags html) || exit 1
# shellcheck disable=SC2086
out=$($cc $html_flags -fsyntax-only "$here/html_report.c" 2>&1) ||
    { echo "the html layer's control (report/summary_read.h) did not compile:"; echo "$out"; exit 1; }
for probe in "html/html.h:" "cmd/compare.h:-DPROBE_CMD"; do
    hdr=${probe%%:*}; def=${probe#*:}
    # shellcheck disable=SC2086
    if out=$($cc $report_flags $def -fsyntax-only "$here/report_html.c" 2>&1); then
        echo "src/report including $hdr compiled: the layers above report are not enforced"; exit 1
    fi
    grep -q "$hdr" <<< "$out" || { echo "failed for another reason:"; echo "$out"; exit 1; }
done
echo "ok: src/report cannot include html/html.h or cmd/compare.h; html sees report/summary_read.h"
