#!/usr/bin/env bash
# bench/https_cpu_ab.sh - generator CPU per HTTPS keep-alive request: two or
# three luamech builds (A, B, C: e.g. before and after a change to src/net/tls.c)
# and wrk, alternated, against one nginx serving TLS, run from the repo root:
#
#   A=/tmp/base/luamech B=build/luamech bash bench/https_cpu_ab.sh
#
# Server: nginx as in bench/http_vs_wrk_ab.sh with TLS=1 (1 worker,
# `return 200 "hello\n"`, TLS 1.2/1.3, a CA and certificate for 127.0.0.1
# made here with the openssl CLI), started once, pinned to SERVER_CPU.
# Each run: CONNS keep-alive connections, closed loop, generator pinned to
# GEN_CPU.  luamech: bench/http_get.lua with -n N (a fixed request count,
# -d 0), verifying against the CA.  wrk: -d WRK_S seconds (it has no request
# count), no verification.  Figure per run: /usr/bin/time user+sys of the
# whole process / the requests it made (luamech: http.get count in
# summary.json; wrk: its "requests in"), in microseconds; the machine's
# other load is not subtracted (say "under load" when it was busy).
# Rounds alternate A, B, C, wrk; the medians and the paired median ratios
# (B/A, C/A, C/B, and each against wrk) are printed.
# Settings: A B C (luamech binaries; B alone is fine) ROUNDS=7 N=200000 CONNS=50
# WRK_S=4 SERVER_CPU=0 GEN_CPU=1 TOOLS="A B wrk" OUT=DIR
set -u -o pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROUNDS=${ROUNDS:-7}
N=${N:-200000}
CONNS=${CONNS:-50}
WRK_S=${WRK_S:-4}
SERVER_CPU=${SERVER_CPU:-0}
GEN_CPU=${GEN_CPU:-1}
A=${A:-}
B=${B:-$LUAMECH}
C=${C:-}
TOOLS=${TOOLS:-}
[ -n "$TOOLS" ] || { TOOLS="B"; [ -n "$A" ] && TOOLS="A B"; [ -n "$C" ] && TOOLS="$TOOLS C"; TOOLS="$TOOLS wrk"; }
OUT=${OUT:-/tmp/luamech-bench/https-ab-$(date +%Y%m%d-%H%M%S)}
[ "$ROUNDS" -ge 1 ] && [ "$ROUNDS" -le 100 ] || die "ROUNDS must be 1..100"
[ "$N" -ge 1000 ] && [ "$N" -le 100000000 ] || die "N must be 1000..100000000"
for t in $TOOLS; do
  case $t in
    A) [ -x "$A" ] || die "A=$A is not an executable" ;;
    B) [ -x "$B" ] || die "B=$B is not an executable" ;;
    C) [ -x "$C" ] || die "C=$C is not an executable" ;;
    wrk) need wrk wrk ;;
    *) die "unknown tool $t (A, B, C, wrk)" ;;
  esac
done
need nginx nginx-light
need openssl openssl
need jq jq
need /usr/bin/time time
need taskset util-linux
bench_pki "$OUT/pki"

PORT=$(free_port)
NG=$OUT/ng
bench_nginx_conf "$NG" "$PORT" 1 "$OUT/pki"
taskset -c "$SERVER_CPU" nginx -p "$NG" -c "$NG/nginx.conf" -e "$NG/error.log" >/dev/null 2>&1 &
NG_PID=$!
trap 'kill -QUIT $NG_PID 2>/dev/null; wait $NG_PID 2>/dev/null' EXIT
for i in $(seq 1 100); do
  (exec 9<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  kill -0 "$NG_PID" 2>/dev/null || die "nginx exited at start (see $NG/error.log)"
  sleep 0.05
done

TSV=$OUT/runs.tsv
printf 'round\ttool\trequests\tuser_s\tsys_s\twall_s\tcpu_us_req\n' >"$TSV"
run_one() {   # TOOL ROUND
  local tool=$1 r=$2 d=$OUT/$2-$1 bin reqs=0 cmd=()
  mkdir -p "$d"
  case $tool in
    A|B|C) case $tool in A) bin=$A ;; B) bin=$B ;; *) bin=$C ;; esac
         cmd=("$bin" run "$BENCH_DIR/http_get.lua" -u "$CONNS" -w 1 -i 1s -q -d 0 -n "$N" -o "$d/results"
              -e "URL=https://127.0.0.1:$PORT" -e URL_PATH=/ -e KEEPALIVE=1 -e "CA=$OUT/pki/ca.pem") ;;
    wrk) cmd=(wrk -t1 -c"$CONNS" -d"${WRK_S}s" "https://127.0.0.1:$PORT/") ;;
  esac
  timeout 300 /usr/bin/time -o "$d/time" -f '%e %U %S' taskset -c "$GEN_CPU" "${cmd[@]}" >"$d/stdout" 2>"$d/stderr"
  local rc=$?
  [ "$rc" = 0 ] || note "round $r $tool: exit code $rc (see $d/stderr)"
  case $tool in
    A|B|C) reqs=$(jq -r '[.timers[] | select(.name == "http.get") | .summary.count] | add // 0' "$d/results/summary.json" 2>/dev/null) ;;
    wrk) reqs=$(sed -n 's/^ *\([0-9]*\) requests in .*/\1/p' "$d/stdout" | tail -1) ;;
  esac
  local wall user sys
  read -r wall user sys < <(grep -E '^[0-9.]+ [0-9.]+ [0-9.]+$' "$d/time" | tail -1)
  local per
  per=$(awk -v u="${user:-0}" -v s="${sys:-0}" -v n="${reqs:-0}" 'BEGIN{ if (n > 0) printf "%.3f", (u+s)*1e6/n; else print "n/a" }')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$tool" "${reqs:-0}" "${user:-0}" "${sys:-0}" "${wall:-0}" "$per" >>"$TSV"
  printf '%-5s %-4s %10s %8s %8s %7s %10s\n' "$r" "$tool" "${reqs:-0}" "${user:-0}" "${sys:-0}" "${wall:-0}" "$per"
}
echo "# HTTPS keep-alive CPU per request: $(machine_line); $CONNS connections, luamech -n $N, wrk ${WRK_S}s; results in $OUT"
echo "# A=${A:-none} B=$B C=${C:-none}"
printf '%-5s %-4s %10s %8s %8s %7s %10s\n' round tool requests user_s sys_s wall_s cpu_us/req
for r in $(seq 1 "$ROUNDS"); do
  for t in $TOOLS; do run_one "$t" "$r"; done
done
med() { awk -F'\t' -v t="$1" 'NR > 1 && $2 == t && $7 != "n/a" { print $7 }' "$TSV" | median; }
paired() {   # X Y: median over rounds of X/Y
  awk -F'\t' -v x="$1" -v y="$2" 'NR > 1 { v[$1 "," $2] = $7; r[$1] = 1 }
    END { for (k in r) { a = v[k "," x]; b = v[k "," y]
          if (a != "" && b != "" && a != "n/a" && b != "n/a" && b + 0 > 0) print a / b } }' "$TSV" | median
}
echo
for t in $TOOLS; do echo "median cpu_us/req $t: $(med "$t")"; done
for pair in "B A" "C A" "C B" "A wrk" "B wrk" "C wrk"; do
  set -- $pair
  case " $TOOLS " in *" $1 "*) case " $TOOLS " in *" $2 "*) echo "paired median $1/$2: $(paired "$1" "$2")" ;; esac ;; esac
done
