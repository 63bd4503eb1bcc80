# `luamech report DIR --distribution TIMER` on crafted logs (docs/results.md,
# "histograms.hlog"): bucket counts past 9.2e14 make the percentages in 128
# bits (cum * 10000 overflowed 64 bits: "0.00% <= 0 milliseconds"), and a
# timer whose lines add up past INT64_MAX is refused (exit 3, one message)
# rather than wrapped to a negative count.  No server, no run.
. "$(dirname "$0")/lib.sh"
# two lines of "All Transactions": 2^62 samples at 0 ms (one line), 11 at 1 ms (the other)
HUGE='Tag=All%20Transactions,0.000,1.000,4409.000,HISTBAAAACJ4nJNpmSzMwMDAyQABzFCaEURcm7yEwf4DRKABBgCRkwkQ'
SMALL='Tag=All%20Transactions,1.000,1.001,533.000,HISTFAAAADR4nJNpmSzMwMAgwgABzFCaEURcm7yEwf4DRGAmC5M4EzeLIlMsE5MvEy9TPVMtEwDKKAdE'
log() { # DIR LINE...: a log of those lines
    local d=$1
    shift
    mkdir -p "$d"
    { printf '#[Histogram log format version 1.3]\n"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"\n'
      printf '%s\n' "$@"; } > "$d/histograms.hlog"
}
log "$TMP/big" "$HUGE" "$SMALL"
"$LUAMECH" report "$TMP/big" --distribution "All Transactions" > "$TMP/big.out" 2> "$TMP/big.err"
check "2^62 + 11 samples: exit 0 ($?)" [ $? -eq 0 ]
check "... all counted ($(sed -n 2p "$TMP/big.out"))" grep -q '^  4611686018427387915 requests completed' "$TMP/big.out"
check "... 99.99% <= 0 ms, then 100.00% <= 1 ms ($(tail -n +4 "$TMP/big.out" | tr '\n' ' '))" \
    [ "$(tail -n +4 "$TMP/big.out")" = "$(printf '99.99%% <= 0 milliseconds\n100.00%% <= 1 milliseconds')" ]
check "... nothing on stderr" [ ! -s "$TMP/big.err" ]
# the 2^62 line twice (two intervals): 2^63 samples, past INT64_MAX
log "$TMP/over" "$HUGE" "$(printf '%s' "$HUGE" | sed 's/,0.000,1.000,/,1.000,1.000,/')" "$SMALL"
for style in redis ab; do
    "$LUAMECH" report "$TMP/over" --distribution "All Transactions" --style $style > "$TMP/over.out" 2> "$TMP/over.err"
    rc=$?
    check "$style: 2^63 samples in one timer: exit 3 ($rc), nothing printed" [ $rc -eq 3 -a ! -s "$TMP/over.out" ]
    check "... one message saying so ($(cat "$TMP/over.err"))" \
        [ "$(wc -l < "$TMP/over.err")" -eq 1 -a -n "$(grep "histograms.hlog: the samples of 'All Transactions' add up past 9223372036854775807" "$TMP/over.err")" ]
done
finish
