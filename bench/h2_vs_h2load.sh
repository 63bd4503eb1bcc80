#!/usr/bin/env bash
# bench/h2_vs_h2load.sh - luamech's HTTP/2 client against h2load (Debian
# nghttp2-client) on the same nginx and workload, run from the repo root:
#
#   bash bench/h2_vs_h2load.sh
#
# Server: nginx (nginx-light), 1 worker, access_log off, h2c with prior
# knowledge (`listen ... http2`), `location = /` returning 200 "hello\n",
# http2_max_concurrent_streams 128, keepalive_requests 100000000; pinned to
# SERVER_CPU.
# Workload (both): CONNS connections carrying STREAMS concurrent streams
# each, N GET / requests in all, closed loop.
#   - h2load:  h2load -c CONNS -m STREAMS -n N -t 1 http://127.0.0.1:PORT/
#   - luamech: CONNS*STREAMS VUs sharing one pooled client (pool = true,
#              http = "2", max_streams = STREAMS: CONNS connections of
#              STREAMS streams), one GET and one Lua transaction per request,
#              requests = N, --workers 1.
# Generators pinned to GEN_CPU; runs alternate luamech, h2load for ROUNDS
# rounds.  Per run: the generator's user+sys CPU (/usr/bin/time) over N =
# us/req; the server's connections and requests are not logged (access_log
# off): both tools report their own successes, and a run with failures is
# marked bad and left out of the medians.  Printed: luamech's median us/req
# over h2load's, the median of the rounds' paired ratios, and each tool's
# median user and system time per request.
# Settings: ROUNDS=5 CONNS=4 STREAMS=25 N=400000 SERVER_CPU=0 GEN_CPU=1
# BUILD_DIR=./build OUT=DIR (default /tmp/luamech-bench/h2-<time>)
set -u -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ROUNDS=${ROUNDS:-5}
CONNS=${CONNS:-4}
STREAMS=${STREAMS:-25}
N=${N:-400000}
SERVER_CPU=${SERVER_CPU:-0}
GEN_CPU=${GEN_CPU:-1}
BUILD_DIR=${BUILD_DIR:-./build}
OUT=${OUT:-/tmp/luamech-bench/h2-$(date +%Y%m%d-%H%M%S)}
need nginx nginx-light
need h2load nghttp2-client
need_luamech
LM=$LUAMECH
mkdir -p "$OUT/ng/tmp"
PORT=$(free_port)
bench_nginx_conf "$OUT/ng" "$PORT" 0 "" 1
taskset -c "$SERVER_CPU" nginx -p "$OUT/ng" -c "$OUT/ng/nginx.conf" &
NGPID=$!
trap 'kill $NGPID 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 60); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.05; done
cat > "$OUT/s.lua" <<S
return { requests = $N, groups = { { name = "h2", vus = $((CONNS * STREAMS)), script = "vu.lua" } } }
S
cat > "$OUT/vu.lua" <<S
local c = luamech.http.new("http://127.0.0.1:$PORT", { http = "2", pool = true, max_streams = $STREAMS })
return function()
  local r = c:get("/")
  if not r or r.status ~= 200 then error("bad response") end
end
S
cpu_us() { awk '{ printf "%d", ($1 + $2) * 1e6 }' "$1"; }
echo "tool round us/req req/s bad"
for r in $(seq "$ROUNDS"); do
    /usr/bin/time -f '%U %S %e' -o "$OUT/lm$r.time" taskset -c "$GEN_CPU" "$LM" run "$OUT/s.lua" -q -w 1 \
        -o "$OUT/lm$r" > "$OUT/lm$r.out" 2>&1
    bad=$(jq -r '[.timers[] | select(.name == "All Transactions") | .summary.errors] | add // 0' "$OUT/lm$r/summary.json" 2>/dev/null || echo failed)
    el=$(awk '{print $3}' "$OUT/lm$r.time")
    echo "luamech $r $(awk -v c="$(cpu_us "$OUT/lm$r.time")" -v n="$N" 'BEGIN{printf "%.3f", c/n}') $(awk -v e="$el" -v n="$N" 'BEGIN{printf "%d", n/e}') $bad"
    /usr/bin/time -f '%U %S %e' -o "$OUT/h2$r.time" taskset -c "$GEN_CPU" h2load -c "$CONNS" -m "$STREAMS" -n "$N" -t 1 \
        "http://127.0.0.1:$PORT/" > "$OUT/h2$r.out" 2>&1
    bad=$(awk '/^requests:/ {print $2 - $8}' "$OUT/h2$r.out")
    el=$(awk '{print $3}' "$OUT/h2$r.time")
    echo "h2load $r $(awk -v c="$(cpu_us "$OUT/h2$r.time")" -v n="$N" 'BEGIN{printf "%.3f", c/n}') $(awk -v e="$el" -v n="$N" 'BEGIN{printf "%d", n/e}') $bad"
done | tee "$OUT/runs.txt"
lm=$(awk '$1 == "luamech" && $5 == "0" {print $3}' "$OUT/runs.txt" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
h2=$(awk '$1 == "h2load" && $5 == "0" {print $3}' "$OUT/runs.txt" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
echo "median us/req: luamech $lm  h2load $h2  ratio luamech/h2load $(awk -v a="$lm" -v b="$h2" 'BEGIN{printf "%.2f", a/b}')x  ($CONNS connections x $STREAMS streams, $N requests, results in $OUT)"
med() { sort -n | awk '{a[NR]=$1} END{if (NR) print a[int((NR+1)/2)]; else print "-"}'; }
# paired: each round's luamech over the same round's h2load (both without failures)
paired=$(awk '$5 == "0" {v[$1" "$2]=$3} END{for (k in v) if (k ~ /^luamech /) {split(k, p, " "); h=v["h2load "p[2]]; if (h) print v[k]/h}}' \
         "$OUT/runs.txt" | med)
split_us() { for f in "$OUT"/"$1"[0-9]*.time; do awk -v n="$N" -v i="$2" '{printf "%.3f\n", $i * 1e6 / n}' "$f"; done | med; }
echo "paired median ratio $(awk -v p="$paired" 'BEGIN{printf "%.2f", p}')x; user/sys us/req medians: luamech $(split_us lm 1)/$(split_us lm 2), h2load $(split_us h2 1)/$(split_us h2 2)"
