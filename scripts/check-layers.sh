#!/usr/bin/env bash
# check-layers.sh - checks from the sources that every #include "dir/x.h"
# of src/ points down the layer order of docs/architecture.md ("Layers"):
# a file of layer A may include a header of layer B only if B is A or one of
# A's allowed layers below, and of a layer given by its API header only
# (src/lua sees engine/vu_api.h alone), only that header.  The table is read
# from CMakeLists.txt (one library per layer, where such an include does not
# compile); this script says which line is wrong.  Also fails on a folder of
# src/ that is in no layer.
#   scripts/check-layers.sh [SRC_DIR]     (default: src/ of this checkout)
#   scripts/check-layers.sh --self-test   (a doctored copy must fail)
# Exit 0 when every include points down, 1 otherwise.
set -euo pipefail

# layer -> the layers it may include (besides itself), read from the
# luamech_layer(NAME DEPS ... [API dir/x.h] [EXTRA ...]) lines of
# CMakeLists.txt: the build's table is the only one.  "top" (src/*.c) may
# include every layer.  API dir/x.h: of layer dir, NAME may include x.h only.
declare -A ALLOWED=()
declare -A API=()
layers_read() {
    local cm=$1 line w name mode
    [ -f "$cm" ] || { echo "check-layers: no $cm"; exit 1; }
    ALLOWED=(); API=()
    while read -r line; do
        line=${line#luamech_layer(}; line=${line%%)*}
        name=""; mode=""
        for w in $line; do
            if [ -z "$name" ]; then name=$w; ALLOWED[$name]=""; continue; fi
            case $w in
                DEPS|API|EXTRA) mode=$w ;;
                *) case $mode in
                       DEPS) ALLOWED[$name]+="${ALLOWED[$name]:+ }$w" ;;
                       API) API[$name]+="${API[$name]:+ }$w" ;;
                   esac ;;
            esac
        done
    done < <(grep -E '^[[:space:]]*luamech_layer\([a-z]' "$cm")
    [ ${#ALLOWED[@]} -gt 0 ] || { echo "check-layers: no luamech_layer(...) line in $cm"; exit 1; }
    ALLOWED[top]="${!ALLOWED[*]}"
}

layers_check() {
    local src=$1 cm=${2:-$1/../CMakeLists.txt} bad=0 d table="" apis=""
    layers_read "$cm"
    for d in "$src"/*/; do
        d=$(basename "$d")
        if [ -z "${ALLOWED[$d]+x}" ]; then
            echo "src/$d: a folder in no layer (add a luamech_layer line to CMakeLists.txt)"
            bad=1
        fi
    done
    for d in "${!ALLOWED[@]}"; do table+="$d=${ALLOWED[$d]};"; done
    for d in "${!API[@]}"; do apis+="$d=${API[$d]};"; done
    # one awk over every file: FILENAME's layer, each #include "dir/x.h"
    find "$src" -name '*.[ch]' | sort | xargs awk -v src="$src/" -v table="$table" \
        -v apis="$apis" '
        BEGIN {
            n = split(table, rows, ";")
            for (i = 1; i <= n; i++) {
                if (rows[i] == "") continue
                split(rows[i], kv, "="); known[kv[1]] = 1
                m = split(kv[2], below, " ")
                for (j = 1; j <= m; j++) ok[kv[1] SUBSEP below[j]] = 1
            }
            n = split(apis, rows, ";")
            for (i = 1; i <= n; i++) {
                if (rows[i] == "") continue
                split(rows[i], kv, "=")
                m = split(kv[2], hdr, " ")
                for (j = 1; j <= m; j++) {
                    d = substr(hdr[j], 1, index(hdr[j], "/") - 1)
                    narrow[kv[1] SUBSEP d] = 1; api_ok[kv[1] SUBSEP hdr[j]] = 1
                }
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
            } else if (((layer SUBSEP tl) in narrow) && !((layer SUBSEP t) in api_ok)) {
                printf "src/%s:%d: %s includes %s: only its API header of %s (CMakeLists.txt)\n", rel, FNR, layer, t, tl; bad = 1
            }
        }
        END { exit bad }' || bad=1
    return $bad
}

# layers_doctored TMP WHAT FILE LINE EXPECT: with LINE appended to
# TMP/src/FILE the check must fail with a message matching EXPECT (grep);
# FILE is restored after.
layers_doctored() {
    local tmp=$1 what=$2 file=$3 line=$4 expect=$5
    cp "$tmp/src/$file" "$tmp/saved"
    printf '%s\n' "$line" >> "$tmp/src/$file"
    if layers_check "$tmp/src" > "$tmp/out"; then
        echo "self-test: $what passed"; return 1
    fi
    grep -q "$expect" "$tmp/out" || { echo "self-test: unexpected message:"; cat "$tmp/out"; return 1; }
    echo "self-test: ok ($what is found: $(cat "$tmp/out"))"
    cp "$tmp/saved" "$tmp/src/$file"
}

layers_self_test() {
    local here tmp
    here=$(cd "$(dirname "$0")/.." && pwd)
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    cp -r "$here/src" "$tmp/src"
    cp "$here/CMakeLists.txt" "$tmp/CMakeLists.txt"
    layers_check "$tmp/src" > /dev/null || { echo "self-test: the clean tree fails"; return 1; }
    layers_doctored "$tmp" "an upward include (stats including engine/engine.h)" stats/hist.c \
        '#include "engine/engine.h"' 'src/stats/hist.c:[0-9]*: stats includes engine/engine.h' || return 1
    layers_doctored "$tmp" "a binding including engine/worker.h" lua/lm_op.c '#include "engine/worker.h"' \
        'src/lua/lm_op.c:[0-9]*: lua includes engine/worker.h: only its API header' || return 1
    # the table is CMakeLists.txt's: with stats -> engine allowed there, it passes
    printf '#include "engine/engine.h"\n' >> "$tmp/src/stats/hist.c"
    sed -i 's/^luamech_layer(stats *DEPS common)/luamech_layer(stats DEPS engine common)/' "$tmp/CMakeLists.txt"
    layers_check "$tmp/src" > "$tmp/out" ||
        { echo "self-test: the table is not read from CMakeLists.txt:"; cat "$tmp/out"; return 1; }
    echo "self-test: ok (the allowed layers are CMakeLists.txt's DEPS)"
}

if [ "${1:-}" = --self-test ]; then
    layers_self_test
else
    src=${1:-$(cd "$(dirname "$0")/.." && pwd)/src}
    if layers_check "$src"; then echo "layers: every include of $src points down"; else exit 1; fi
fi
