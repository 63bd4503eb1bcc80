# Compressed response bodies against nginx: luamech sends Accept-Encoding:
# gzip, deflate and decodes what comes back (zlib); every decoded body is
# compared with the original (differential against nginx's gzip filter, the
# gzip CLI and Python's zlib for deflate); corrupt, truncated and bomb bodies
# fail with a counted error; raw and decoded body bytes are both counted.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_http.sh"
F=$SRC/tests/scenarios/fixtures
start_nginx PORT "$TMP/ng"
W=$TMP/ng/www
mkdir -p "$W/gz"
seq 1 150000 | sed 's/$/ luamech gzip test line/' > "$W/gz/text.txt"
gzip -c -6 "$W/gz/text.txt" > "$W/cli.gzbody"
python3 - "$W" <<'PY'
import sys, zlib
w = sys.argv[1]
t = open(w + "/gz/text.txt", "rb").read()
open(w + "/z.zbody", "wb").write(zlib.compress(t, 9))
c = zlib.compressobj(6, zlib.DEFLATED, -15)
open(w + "/raw.zbody", "wb").write(c.compress(t) + c.flush())
g = open(w + "/cli.gzbody", "rb").read()
open(w + "/trunc.gzbody", "wb").write(g[: len(g) // 2])
PY
printf 'this is not gzip at all' > "$W/bad.gzbody"
head -c 70000000 /dev/zero | gzip -1 > "$W/bomb.gzbody"
chmod -R a+rX "$W"
size=$(stat -c %s "$W/gz/text.txt")

"$LUAMECH" run "$F/http_gzip.lua" -q -e PORT=$PORT -e WWW="$W" -o "$TMP/g" > "$TMP/g.out" 2>&1
rc=$?
s=$TMP/g/summary.json
e=$TMP/g/errors.csv
check "gzip run exits 0 (exit $rc)" [ $rc -eq 0 ]
check "the script's checks passed ($(grep -v '^request,' "$e" | grep transaction | head -3))" \
    [ "$(timer_errors "$s" "All Transactions")" -eq 0 -a "$(timer_count "$s" "All Transactions")" -eq 1 ]
check "4 errors: corrupt, truncated, bomb, over max_body ($(timer_errors "$s" http.get))" \
    [ "$(timer_errors "$s" http.get)" -eq 4 ]
check "the bomb tallied as over max_body" grep -q "response body larger than max_body (67108864 bytes)" "$e"
# decoded: 6 bodies of the original size (nginx, identity, CLI, zlib, raw, CLI again)
dec=$(counter "$s" http.body_bytes_decoded)
raw=$(counter "$s" http.body_bytes_raw)
check "decoded body bytes == 6 x $size ($dec)" [ "$dec" -eq $((6 * size)) ]
check "raw body bytes counted, less than decoded ($raw)" [ "$raw" -gt 0 -a "$raw" -lt "$dec" ]
check "bytes received cover the raw bodies" [ "$(counter "$s" http.bytes_received)" -gt "$raw" ]
nginx_settle "$TMP/ng/access.log"
check "nginx saw luamech ask for gzip (its filter compressed /gz/text.txt)" \
    [ "$(grep -c 'GET /gz/text.txt HTTP/1.1 200' "$TMP/ng/access.log")" -eq 2 ]
finish
