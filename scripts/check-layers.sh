#!/usr/bin/env bash
# check-layers.sh - checks from the sources that every #include "dir/x.h"
# of src/ points down the layer order of docs/architecture.md ("Layers"):
# a file of layer A may include a header of layer B only if B is A or one of
# A's allowed layers below.  The same table is CMakeLists.txt's (one library
# per layer), where an upward include does not compile; this script says
# which line is wrong.  Also fails on a folder of src/ that is in no layer.
#   scripts/check-layers.sh [SRC_DIR]     (default: src/ of this checkout)
#   scripts/check-layers.sh --self-test   (a doctored copy must fail)
# Exit 0 when every include points down, 1 otherwise.
set -euo pipefail

# layer -> the layers it may include (besides itself).  "top" is src/*.c.
declare -A ALLOWED=(
    [common]=""
    [proto]="common"
    [net]="common"
    [client]="net proto common"
    [stats]="common"
    [scenario]="stats common"
    [engine]="scenario stats common"
    [lua]="engine client net proto scenario stats common"
    [report]="scenario stats common"
    [output]="report scenario stats common"
    [cmd]="report lua engine scenario stats common"
    [run]="output report lua engine scenario stats common"
    [top]="run cmd output report lua engine client net proto scenario stats common"
)
# The only engine header the bindings may include (the narrow API), when it
# exists; lua -> engine/<anything else> is refused then.
LUA_ENGINE_API="engine/vu_api.h"

layers_check() {
    local src=$1 bad=0 d table=""
    for d in "$src"/*/; do
        d=$(basename "$d")
        if [ -z "${ALLOWED[$d]+x}" ]; then
            echo "src/$d: a folder in no layer (add it to scripts/check-layers.sh and CMakeLists.txt)"
            bad=1
        fi
    done
    for d in "${!ALLOWED[@]}"; do table+="$d=${ALLOWED[$d]};"; done
    # one awk over every file: FILENAME's layer, each #include "dir/x.h"
    find "$src" -name '*.[ch]' | sort | xargs awk -v src="$src/" -v table="$table" \
        -v api="$LUA_ENGINE_API" -v has_api="$([ -f "$src/$LUA_ENGINE_API" ] && echo 1)" '
        BEGIN {
            n = split(table, rows, ";")
            for (i = 1; i <= n; i++) {
                if (rows[i] == "") continue
                split(rows[i], kv, "="); known[kv[1]] = 1
                m = split(kv[2], below, " ")
                for (j = 1; j <= m; j++) ok[kv[1] SUBSEP below[j]] = 1
            }
        }
        FNR == 1 {
            rel = substr(FILENAME, length(src) + 1)
            layer = index(rel, "/") ? substr(rel, 1, index(rel, "/") - 1) : "top"
        }
        /^[ \t]*#[ \t]*include[ \t]*"/ {
            t = $0; sub(/^[^"]*"/, "", t); sub(/".*/, "", t)
            if (!index(t, "/")) next                      # same folder
            tl = substr(t, 1, index(t, "/") - 1)
            if (!(tl in known) || tl == layer || !(layer in known)) next
            if (!((layer SUBSEP tl) in ok)) {
                printf "src/%s:%d: %s includes %s: %s is not below %s\n", rel, FNR, layer, t, tl, layer; bad = 1
            } else if (layer == "lua" && tl == "engine" && has_api && t != api) {
                printf "src/%s:%d: bindings include %s: only %s of the engine\n", rel, FNR, t, api; bad = 1
            }
        }
        END { exit bad }' || bad=1
    return $bad
}

layers_self_test() {
    local here tmp
    here=$(cd "$(dirname "$0")/.." && pwd)
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    cp -r "$here/src" "$tmp/src"
    layers_check "$tmp/src" > /dev/null || { echo "self-test: the clean tree fails"; return 1; }
    printf '#include "engine/engine.h"\n' >> "$tmp/src/stats/hist.c"
    if layers_check "$tmp/src" > "$tmp/out"; then
        echo "self-test: stats including engine/engine.h passed"; return 1
    fi
    grep -q 'src/stats/hist.c:[0-9]*: stats includes engine/engine.h' "$tmp/out" ||
        { echo "self-test: unexpected message:"; cat "$tmp/out"; return 1; }
    echo "self-test: ok (an upward include is found: $(cat "$tmp/out"))"
}

if [ "${1:-}" = --self-test ]; then
    layers_self_test
else
    src=${1:-$(cd "$(dirname "$0")/.." && pwd)/src}
    if layers_check "$src"; then echo "layers: every include of $src points down"; else exit 1; fi
fi
