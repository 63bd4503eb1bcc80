#!/usr/bin/env bash
# tests/fuzz/run.sh - builds the libFuzzer harnesses with clang (ASan + UBSan,
# float-cast-overflow included) into build-fuzz and runs each for RUNS
# executions (default 10 million), starting from the committed corpus in
# tests/fuzz/corpus/NAME.  New inputs go to build-fuzz/corpus/NAME; with
# MERGE=1 libFuzzer's files in the committed corpus are replaced by a
# minimised merge of both (hand-named seeds such as regress-* are kept).
# Not part of CI (the corpus replay is: ctest -R fuzz).  Prints one line per
# harness: executions, seconds, coverage, features, corpus size, verdict.
# TIMEOUT_S (default 60) is libFuzzer's per-input limit in wall-clock
# seconds: generous, because on a loaded machine a niced harness can be
# descheduled for over 10 s (a slow input still replays in well under 1 s).
# MAX_S=N stops each harness after N seconds if RUNS is not reached first
# (libFuzzer's -max_total_time; the line then shows how far it got).
# MAX_LEN=N caps an input at N bytes (libFuzzer's -max_len; without it the
# cap is the largest committed input).  The merge harness's seeds are whole
# segment results of 16-34 kB, and a campaign over inputs that size costs
# about 4 ms an execution once the corpus has grown (every histogram of every
# interval is merged and written); MAX_LEN=4096 or 8192 keeps its inputs to
# one or two timers over a few intervals, 0.3-0.7 ms an execution.
# BUILD=0 skips the build (the fuzz_NAME binaries in build-fuzz are used as
# they are: build them with cmake --build build-fuzz --target fuzz_NAME).
#   bash tests/fuzz/run.sh [NAME...]          RUNS=1000000 bash tests/fuzz/run.sh hlog
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-10000000}
B=${BUILD_DIR:-build-fuzz}
command -v clang > /dev/null || { echo "fuzz: clang is needed (apt-get install clang)"; exit 2; }
if [ "${BUILD:-1}" != 0 ]; then
    CC=clang cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Debug -DLUAMECH_FUZZ=ON \
        -DCMAKE_C_FLAGS="-O1 -fsanitize=float-cast-overflow" > /dev/null
    cmake --build "$B" -j"$(nproc)" > "$B/build.log" 2>&1 || { tail -30 "$B/build.log"; exit 1; }
fi
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(mc_proto http_proto redis_proto redis_scan ws_proto hlog scenario suite report compare merge pb)
# quarantine_size_mb: ASan keeps freed blocks poisoned (use after free is
# caught) until 16 MB more have been freed, not 256 MB: an input frees far
# less than that, and the default's fresh pages cost a harness up to half its
# time in page faults and memset.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:quarantine_size_mb=16}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for n in "${names[@]}"; do
    work="$B/corpus/$n" art="$B/crashes/$n/"
    mkdir -p "$work" "$art"
    log="$B/fuzz-$n.log"
    start=$(date +%s)
    rc=0
    (cd "$B" && "./tests/fuzz/fuzz_$n" -runs="$RUNS" -max_total_time="${MAX_S:-0}" -timeout="${TIMEOUT_S:-60}" -rss_limit_mb=2048 \
        ${MAX_LEN:+-max_len="$MAX_LEN"} \
        -print_final_stats=1 \
        -artifact_prefix="$PWD/crashes/$n/" "$PWD/corpus/$n" "$OLDPWD/tests/fuzz/corpus/$n") \
        > "$log" 2>&1 || rc=$?
    secs=$(( $(date +%s) - start ))
    last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
    # libFuzzer's final count (also printed when interrupted: kill -INT), else the last status line's
    execs=$(sed -nE 's/^stat::number_of_executed_units: ([0-9]+)/\1/p' "$log" | tail -1)
    [ -n "$execs" ] || execs=$(echo "$last" | sed -E 's/^#([0-9]+).*/\1/')
    cov=$(echo "$last" | grep -oE 'cov: [0-9]+' | cut -d' ' -f2 || true)
    ft=$(echo "$last" | grep -oE 'ft: [0-9]+' | cut -d' ' -f2 || true)
    verdict=clean
    if [ "$rc" -eq 72 ]; then verdict="interrupted (clean so far)"      # libFuzzer's code after SIGINT/SIGTERM
    elif [ "$rc" -ne 0 ]; then verdict="FINDING (see $log, $art)"; status=1; fi
    printf '%-11s execs %-10s %6ss  cov %-6s ft %-6s corpus %-5s %s\n' "$n" "${execs:-?}" "$secs" \
        "${cov:-?}" "${ft:-?}" "$(ls "$work" | wc -l)" "$verdict"
    if [ "${MERGE:-0}" = 1 ] && [ "$rc" -eq 0 ]; then
        mkdir -p "$B/merged/$n"
        (cd "$B" && "./tests/fuzz/fuzz_$n" -merge=1 "$PWD/merged/$n" "$OLDPWD/tests/fuzz/corpus/$n" \
            "$PWD/corpus/$n") > "$B/merge-$n.log" 2>&1
        # hand-named seeds (regress-*, the starting inputs) stay as they are;
        # only libFuzzer's own (40 hex digits) are replaced by the merge
        find tests/fuzz/corpus/"$n" -maxdepth 1 -type f -regextype posix-extended \
            -regex '.*/[0-9a-f]{40}' -delete
        named=$(for g in tests/fuzz/corpus/"$n"/*; do
            if [ -f "$g" ]; then sha1sum < "$g" | cut -c1-40; fi; done)
        for f in "$B/merged/$n"/*; do       # merged files are named by their SHA-1
            grep -qxF "$(basename "$f")" <<< "$named" || cp "$f" tests/fuzz/corpus/"$n"/
        done
        rm -rf "$B/merged/$n"
    fi
done
exit $status
