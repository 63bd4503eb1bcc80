# docs/lua-api.md's option lists against each binding's options as data:
# the lm_opt_spec tables of src/lua/lm_{memcached,redis,ws,grpc,http_opts}.c
# (src/lua/lm_client.h), the constructors' and the calls' (grpc's
# c:invoke/stream/open_stream, http's requests), name the options the
# binding accepts and the defaults it states (numbers, words, quoted
# strings); the doc's table (memcached, redis, ws), its `name` (...)
# paragraph (http.new, grpc.connect, c:invoke) or its example table (http
# requests) must list exactly those names, and say those defaults
# (fixtures/option_docs.py).  The checker is shown to catch a removed doc
# line, a removed row, an option documented with no row, and another
# default (a number, a quoted string, a call's), on doctored copies.
. "$(dirname "$0")/lib.sh"
CHK=$SRC/tests/scenarios/fixtures/option_docs.py
DOC=$SRC/docs/lua-api.md
python3 "$CHK" "$SRC/src/lua" "$DOC" > "$TMP/real" 2>&1
rc=$?
cat "$TMP/real"
check "lua-api.md lists exactly each binding's option rows, and their defaults (exit $rc)" [ "$rc" -eq 0 ]
check "seven option tables were compared (five constructors, two calls)" [ "$(grep -c ': [0-9]* options, ' "$TMP/real")" -eq 7 ]

# doctored docs: quoted-string defaults and the calls' options
sed -e 's/^\(| `distribution` | `"ketama"` or `"modula"` | \)`"ketama"`/\1`"modula"`/' \
    -e 's/^\(replies; \)default `"none"`/\1default `"gzip"`/' \
    -e 's/^\(  the `https:\/\/` origins the client reaches), `http` (default \)`"auto"`/\1`"2"`/' \
    -e 's/^\(  | `redirects` (hops to follow; default \)10,/\15,/' \
    -e '/^  | `tags` (also timed under a tagged timer/d' \
    -e 's/^Options: `timeout` (seconds; default: the client.s), `metadata` (added to$/Options: `timeout` (seconds), `metadata` (added to/' "$DOC" > "$TMP/doc_q.md"
check "the second doctored doc has its six changes" [ "$(diff "$DOC" "$TMP/doc_q.md" | grep -c '^<')" -eq 6 ]
python3 "$CHK" "$SRC/src/lua" "$TMP/doc_q.md" > "$TMP/cmp_q" 2>&1
sed 's/^/  | /' "$TMP/cmp_q"
check "another quoted default in a table is reported (memcached distribution \"ketama\")" \
    grep -q "^lm_memcached.c: option distribution: the docs do not say default '\"ketama\"'" "$TMP/cmp_q"
check "another quoted default in a paragraph is reported (grpc compression \"none\")" \
    grep -q "^lm_grpc.c: option compression: the docs do not say default '\"none\"'" "$TMP/cmp_q"
check "another quoted default in a paragraph is reported (http.new http \"auto\")" \
    grep -q "^lm_http_opts.c: option http: the docs do not say default '\"auto\"'" "$TMP/cmp_q"
check "another default of a request option is reported (redirects 10)" \
    grep -q "^lm_http_opts.c request: option redirects: the docs do not say default '10'" "$TMP/cmp_q"
check "a request option missing from the example table is reported (tags)" \
    grep -q "^lm_http_opts.c request: option tags not in the docs" "$TMP/cmp_q"
check "a call option's default not said is reported (grpc c:invoke timeout)" \
    grep -q "^lm_grpc.c call: option timeout: the docs do not say default 'the client's'" "$TMP/cmp_q"

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

# doctored source: a row of a call's table removed (http requests' allow_downgrade)
sed -i '/^    LM_OPT_OWN("allow_downgrade", NULL),$/d' "$TMP/lua/lm_http_opts.c"
python3 "$CHK" "$TMP/lua" "$DOC" > "$TMP/cmp_src2" 2>&1
sed 's/^/  | /' "$TMP/cmp_src2"
check "a removed row of a call's table is reported (http request allow_downgrade)" \
    grep -q "^lm_http_opts.c request: the docs list option allow_downgrade, which has no row" "$TMP/cmp_src2"
finish
