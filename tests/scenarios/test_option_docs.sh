# docs/lua-api.md's option lists against each binding's options as data:
# the lm_opt_spec rows of src/lua/lm_{memcached,redis,ws,grpc,http_opts}.c
# (src/lua/lm_client.h) name the options the binding accepts and the
# defaults it states; the doc's table (memcached, redis, ws) or its
# `name` (...) paragraph (http.new, grpc.connect) must list exactly those
# names, and say those defaults (fixtures/option_docs.py).  The checker is
# shown to catch a removed doc line, a removed row, an option documented
# with no row, and another default, on doctored copies.
. "$(dirname "$0")/lib.sh"
CHK=$SRC/tests/scenarios/fixtures/option_docs.py
DOC=$SRC/docs/lua-api.md
python3 "$CHK" "$SRC/src/lua" "$DOC" > "$TMP/real" 2>&1
rc=$?
cat "$TMP/real"
check "lua-api.md lists exactly each binding's option rows, and their defaults (exit $rc)" [ "$rc" -eq 0 ]
check "five bindings were compared" [ "$(grep -c ': [0-9]* options, ' "$TMP/real")" -eq 5 ]

# doctored docs: a table line removed (memcached protocol), a paragraph's
# option removed (grpc compression), an option with no row (ws bogus),
# another default (redis max_depth, http.new max_streams)
sed -e '/^| `protocol` | `"text"` or `"meta"` |/d' \
    -e 's/^\(RESOURCE_EXHAUSTED instead of growing memory), \)`compression` (/\1compression (/' \
    -e 's/^\(| `max_depth` | integer, 1..7 | \)`7`/\1`8`/' \
    -e 's/^\(| `max_queue` |.*\)$/\1\n| `bogus` | integer | `1` | nothing |/' \
    -e 's/default 100, also capped/default 64, also capped/' "$DOC" > "$TMP/doc.md"
grep -q '^| `bogus` |' "$TMP/doc.md" && ! grep -q '^| `protocol` | `"text"`' "$TMP/doc.md"
check "the doctored doc has its changes" [ $? -eq 0 ]
python3 "$CHK" "$SRC/src/lua" "$TMP/doc.md" > "$TMP/cmp_doc" 2>&1
sed 's/^/  | /' "$TMP/cmp_doc"
check "a removed table line is reported (memcached protocol)" grep -q "^lm_memcached.c: option protocol not in the docs" "$TMP/cmp_doc"
check "an option removed from a paragraph is reported (grpc compression)" grep -q "^lm_grpc.c: option compression not in the docs" "$TMP/cmp_doc"
check "a documented option with no row is reported (ws bogus)" grep -q "^lm_ws.c: the docs list option bogus, which has no row" "$TMP/cmp_doc"
check "another default in a table is reported (redis max_depth)" grep -q "^lm_redis.c: option max_depth: the docs do not say default '7'" "$TMP/cmp_doc"
check "another default in a paragraph is reported (http.new max_streams)" grep -q "^lm_http_opts.c: option max_streams: the docs do not say default '100'" "$TMP/cmp_doc"

# doctored source: a row removed (redis max_elements), which the docs still list
mkdir -p "$TMP/lua"
cp "$SRC"/src/lua/lm_*.c "$TMP/lua/"
sed -i '/^    {"max_elements", LM_OPT_INT,/,/"1048576", LM_RD_AT(max_elements)},$/d' "$TMP/lua/lm_redis.c"
python3 "$CHK" "$TMP/lua" "$DOC" > "$TMP/cmp_src" 2>&1
sed 's/^/  | /' "$TMP/cmp_src"
check "a removed row is reported (redis max_elements, documented with no row)" \
    grep -qx "lm_redis.c: the docs list option max_elements, which has no row ('### luamech.redis.connect(')" "$TMP/cmp_src"
finish
