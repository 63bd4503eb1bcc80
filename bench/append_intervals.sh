#!/usr/bin/env bash
# append_intervals.sh LUAMECH [N] - what keeping the result files current
# costs over a run of N closed intervals (default 2000, at the shortest
# interval, 100 ms: N/10 seconds): one VU records 12 custom timers and
# sleeps 20 ms per transaction, no server.  Prints the bytes the process
# wrote (/proc/PID/io wchar, last reading before it exits), its CPU time
# (user + sys from /proc/PID/stat) and the final sizes of the result files.
# Before report/append.c every closed interval rewrote every row of
# intervals.csv and counters.csv (quadratic in N); after it they grow by
# appends.  summary.json was still replaced at each interval with every
# row so far (quadratic: 870 of 878 MB at N = 500); now it is replaced on
# report_summary_due's schedule (about 9 times its final size in all).
#   bash bench/append_intervals.sh build/luamech 2000
set -u
bin=$1; n=${2:-2000}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/vu.lua" <<'LUA'
return function()
  for i = 1, 12 do luamech.record("t" .. i, 0.001 * i) end
  luamech.sleep(0.02)
end
LUA
printf 'return { groups = { { vus = 1, script = "vu.lua" } } }\n' > "$tmp/s.lua"
"$bin" run "$tmp/s.lua" -q -w 1 -d "$((n / 10))s" -i 100ms -o "$tmp/r" > "$tmp/out" 2>&1 &
pid=$!
wchar=0; cpu=0; tck=$(getconf CLK_TCK)
while kill -0 "$pid" 2>/dev/null; do
    w=$(awk '/^wchar/ {print $2}' "/proc/$pid/io" 2>/dev/null) && [ -n "$w" ] && wchar=$w
    c=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null) && [ -n "$c" ] && cpu=$c
    sleep 0.2
done
wait "$pid"; rc=$?
rows=$(($(wc -l < "$tmp/r/intervals.csv") - 1))
printf 'exit %d, %s intervals.csv rows, written %.1f MB, CPU %.1f s; files: %s\n' "$rc" "$rows" \
    "$(echo "$wchar / 1000000" | bc -l)" "$(echo "$cpu / $tck" | bc -l)" \
    "$(cd "$tmp/r" && stat -c '%n %s' intervals.csv counters.csv summary.json | tr '\n' ' ')"
