#!/usr/bin/env bash
# tests/fuzz/merge_seed.sh SEG1 SEG2 > FILE - the fuzz_merge container of two
# segment directories (tests/fuzz/fuzz_merge.c): records separated by NUL
# bytes, each "NAME\n" and the file's bytes, NAME "1/summary.json",
# "1/histograms.hlog", "2/..." and, for a phased run, "1/SUB/summary.json".
# Seeds of tests/fuzz/corpus/merge are made with it from real segments
# (summary.json compacted with jq).
set -euo pipefail
first=1
for i in 1 2; do
    dir=${!i}
    (cd "$dir" && find . -name summary.json -o -name histograms.hlog | sed 's|^\./||' | sort) | while read -r f; do
        [ $first = 1 ] || printf '\0'
        first=0
        printf '%s/%s\n' "$i" "$f"
        case $f in
            *.json) jq -cj . "$dir/$f";;          # compact: smaller inputs, faster runs
            *) cat "$dir/$f";;
        esac
    done
    first=0
done
