# A segment's progress in a job log (stderr not a terminal: Slurm,
# Kubernetes, ssh): one line per closed interval, printed by the interval
# bus's "progress" sink, each at its interval's end with that interval's
# rate (docs/distributed.md); the last interval's line too.  And the
# bus's "hlog" sink: histograms.hlog holds every interval's lines.  No
# server: stream_views.lua records its own samples.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
"$LUAMECH" run "$F/stream_views.lua" -w 1 --segment 1/2 -o "$TMP/r" > /dev/null 2> "$TMP/err.txt"
check "a segment of 2 exits 0" [ $? -eq 0 ]
grep '^\[' "$TMP/err.txt" > "$TMP/lines.txt"
cat "$TMP/lines.txt"
s=$TMP/r/summary.json
niv=$(jq '.timers[] | select(.name == "All Transactions") | .intervals | length' "$s")
check "one progress line per interval ($(wc -l < "$TMP/lines.txt") lines, $niv intervals)" [ "$niv" -ge 3 -a "$(wc -l < "$TMP/lines.txt")" -eq "$niv" ]
check "each line at its interval's end (1s, 2s, then the end of sampling)" \
    [ "$(awk '{ print $2 }' "$TMP/lines.txt" | head -2 | tr '\n' ' ')" = "1s 2s " ]
want=$(jq -r '.timers[] | select(.name == "All Transactions") | .intervals[] | (.rate * 10 | round / 10 | tostring)' "$s" | tr '\n' ' ')
got=$(sed -E 's/.* ([0-9.]+) tx\/s.*/\1/' "$TMP/lines.txt" | awk '{ printf "%s ", $1 + 0 }')
check "each line's rate is its interval's (lines: $got; summary.json: $want)" [ "$got" = "$want" ]
tx=$(jq '.timers[] | select(.name == "All Transactions") | .summary.count' "$s")
check "the last line counts every transaction ($tx)" [ "$(tail -1 "$TMP/lines.txt" | awk '{ for (i = 1; i < NF; i++) if ($i == "tx") print $(i + 1) }')" = "$tx" ]
nlines=$(grep -c '^Tag=All%20Transactions,' "$TMP/r/histograms.hlog")
check "histograms.hlog has All Transactions' line for every interval ($nlines)" [ "$nlines" -eq "$niv" ]
"$LUAMECH" run "$F/stream_views.lua" -q -w 1 --segment 1/2 -o "$TMP/q" > /dev/null 2> "$TMP/q.txt"
check "-q: no progress line" [ "$(grep -c '^\[' "$TMP/q.txt")" -eq 0 ]
finish
