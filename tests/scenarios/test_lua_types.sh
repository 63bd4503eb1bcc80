# lua/types/luamech.lua (the editor's type definitions) against the API a
# running VU really has: a VU walks `luamech`, its sub-tables and the
# metatables registered as "luamech.*" and writes every function's name
# (fixtures/api_names_vu.lua); the annotated names are read from the types
# file (conventions in its header).  Fails when a function exists without an
# annotation or an annotation names a function that does not exist.  The
# checker itself is shown to catch both on a doctored copy.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
TYPES=$SRC/lua/types/luamech.lua
"$LUAMECH" run "$F/api_names.lua" -q -s 1 -e OUT="$TMP/live" -e TYPES="$TYPES" -o "$TMP/r" > "$TMP/out" 2>&1
check "the walking VU ran (exit $?)" [ -s "$TMP/live" ]
check "the types file compiles as Lua" grep -qx "types_compile ok" "$TMP/live.meta"

# annotated FILE: the function names the types file declares, sorted
annotated() {
    awk '
    /^---@class / { cls = 1; ovl = 0; next }
    /^---@overload/ { if (cls) ovl = 1; next }
    /^local [A-Za-z_][A-Za-z0-9_]* = \{\} -- registry: / {
        map[$2] = $NF; if (ovl) print $NF "()"; cls = 0; ovl = 0; next }
    /^luamech[A-Za-z0-9_.]* = \{\}/ { if (ovl) print $1 "()"; cls = 0; ovl = 0; next }
    /^function / {
        cls = 0; ovl = 0
        name = $2; sub(/\(.*/, "", name)
        if (index(name, ":")) {
            split(name, p, ":")
            if (p[1] in map) print map[p[1]] ":" p[2]; else print "UNMAPPED " name
        } else print name
    }' "$1" | sort -u
}
# compare LIVE ANNOTATED: prints "missing: X" (live, not annotated) and
# "stale: X" (annotated, not live); 0 when they agree
compare() {
    local rc=0
    comm -23 "$1" "$2" | sed 's/^/missing annotation: /' | grep . && rc=1
    comm -13 "$1" "$2" | sed 's/^/annotation of a function that does not exist: /' | grep . && rc=1
    return $rc
}
sort -u "$TMP/live" > "$TMP/live.s"
annotated "$TYPES" > "$TMP/ann"
n=$(wc -l < "$TMP/live.s")
check "the VU found the API ($n functions, e.g. luamech.sleep, luamech.redis:pipeline, luamech.random.zipf)" \
    [ "$n" -ge 60 -a "$(grep -cxE 'luamech\.sleep|luamech\.redis:pipeline|luamech\.random\.zipf|luamech\.random\(\)' "$TMP/live.s")" -eq 4 ]
check "every function is annotated and every annotation exists" compare "$TMP/live.s" "$TMP/ann"

# option tables: the option names each binding accepts (its `known[]` lists,
# which lm_check_options enforces) against the @field names of the Options
# classes annotated for that binding
OPTS_MAP="lm_memcached.c:luamech.MemcachedOptions lm_redis.c:luamech.RedisOptions
lm_http_opts.c:luamech.HttpOptions,luamech.HttpRequestOptions,luamech.HttpDnsOptions lm_random.c:luamech.KeysOptions
lm_data.c:luamech.DataOptions lm_tls.c:luamech.TlsOptions lm_ws.c:luamech.WsOptions lm_grpc.c:luamech.GrpcOptions,luamech.GrpcCallOptions"
spec_rows() { # FILE[#TABLE]: name|kind|default of its lm_opt_spec rows (all tables', or TABLE's);
    # default empty: NULL; a quoted one ("\"text\"") unescaped ("text")
    local file=${1%%#*} table=
    [ "$file" = "$1" ] || table=${1#*#}
    tr '\n' ' ' < "$file" | tr -s ' ' |
        { if [ -n "$table" ]; then grep -oE "lm_opt_spec $table\[\] = \{.*" | sed -E 's/LM_OPT_OWN\(NULL, NULL\)\}.*//'; else cat; fi; } |
        grep -oE '\{"[a-z_]*", LM_OPT_[A-Z]*, [^"}]*"([^"\\]|\\.)*"|LM_OPT_OWN\("[a-z_]*", (NULL|"([^"\\]|\\.)*")\)' |
        sed -E -e 's/^\{"([a-z_]*)", LM_OPT_([A-Z]*), [^"]*"(.*)"$/\1|\2|\3/' \
            -e 's/^LM_OPT_OWN\("([a-z_]*)", NULL\)$/\1|OTHER|/' -e 's/^LM_OPT_OWN\("([a-z_]*)", "(.*)"\)$/\1|OTHER|\2/' \
            -e 's/\\(.)/\1/g'
}
c_options() { # FILE: option names of every known[] list in it and of its lm_opt_spec rows
    { tr '\n' ' ' < "$1" | grep -o 'known\[\] = {[^}]*}' | grep -o '"[a-z_]*"' | tr -d '"'
      spec_rows "$1" | cut -d'|' -f1; } | sort -u
}
class_fields() { # TYPES CLASS...: @field names of these classes
    local types=$1; shift
    for c in "$@"; do
        awk -v c="$c" '/^---@class / { on = ($2 == c) } on && /^---@field / { f = $2; sub(/\?$/, "", f); print f }' "$types"
    done | sort -u
}
compare_options() { # TYPES: 0 when every binding's options are annotated, and only those
    local rc=0 f classes
    for f in "$SRC"/src/lua/*.c; do
        [ -n "$(c_options "$f")" ] || continue
        classes=$(echo $OPTS_MAP | tr ' ' '\n' | sed -n "s/^$(basename "$f"):\(.*\)/\1/p" | tr ',' ' ')
        if [ -z "$classes" ]; then echo "$(basename "$f") has options but no Options class in OPTS_MAP"; rc=1; continue; fi
        c_options "$f" > "$TMP/c_opts"
        class_fields "$1" $classes > "$TMP/t_opts"
        comm -23 "$TMP/c_opts" "$TMP/t_opts" | sed "s/^/option of $(basename "$f") not annotated: /" | grep . && rc=1
        comm -13 "$TMP/c_opts" "$TMP/t_opts" | sed "s/^/annotated option $(basename "$f") does not accept: /" | grep . && rc=1
    done
    return $rc
}
check "the bindings accept options ($(cat "$SRC"/src/lua/*.c | tr '\n' ' ' | grep -o 'known\[\] = {[^}]*}' | wc -l) lists)" \
    [ "$(for f in "$SRC"/src/lua/*.c; do c_options "$f"; done | wc -l)" -ge 15 ]
check "every option table is annotated with exactly the options the bindings accept" compare_options "$TYPES"
sed -e '/^---@field connect_timeout? number seconds per connection attempt/d' \
    -e 's/^---@field keepalive? boolean default true/&\n---@field keep_alive? boolean/' "$TYPES" > "$TMP/doctored_opts.lua"
compare_options "$TMP/doctored_opts.lua" > "$TMP/cmp_opts"
check "a removed option annotation is reported (memcached connect_timeout)" \
    grep -qx "option of lm_memcached.c not annotated: connect_timeout" "$TMP/cmp_opts"
check "an annotated option no binding accepts is reported (keep_alive)" \
    grep -qx "annotated option lm_http_opts.c does not accept: keep_alive" "$TMP/cmp_opts"

# options as data (lm_opt_spec rows, src/lua/lm_client.h): each row's kind and default
# against its field in the options class (seconds: number, bytes and int: integer;
# "default N" when the row says its default; a row the binding reads itself
# (OTHER, LM_OPT_OWN) only its default)
compare_spec() { # TYPES FILE CLASS...: 0 when the classes' fields say each row's type and default
    local rc=0 name kind dflt line want types=$1 file=$2; shift 2
    while IFS='|' read -r name kind dflt; do
        case $kind in SECONDS) want=number ;; BYTES|INT) want=integer ;; *) want= ;; esac
        [ -n "$want$dflt" ] || continue
        line=$(for c in "$@"; do awk -v c="$c" -v f="$name" '/^---@class / { on = ($2 == c) } on && $1 == "---@field" && ($2 == f "?" || $2 == f) { print; exit }' "$types"; done | head -1)
        if [ -z "$line" ]; then echo "$1 has no field $name"; rc=1; continue; fi
        [ -z "$want" ] || [ "$(echo "$line" | awk '{ print $3 }')" = "$want" ] || { echo "$1.$name: type not $want: $line"; rc=1; }
        [ -z "$dflt" ] || echo "$line" | grep -qE "default:? $(printf '%s' "$dflt" | sed 's/[.[*^$()+?{|\\]/\\&/g')([;) ]|\$)" ||
            { echo "$1.$name: default not '$dflt': $line"; rc=1; }
    done < <(spec_rows "$file")
    return $rc
}
# FILE#TABLE:CLASS of every lm_opt_spec table (a constructor's or a call's options)
SPEC_MAP="lm_ws.c#lm_ws_spec:luamech.WsOptions lm_memcached.c#lm_mc_spec:luamech.MemcachedOptions
lm_redis.c#lm_rd_spec:luamech.RedisOptions lm_http_opts.c#lm_http_spec:luamech.HttpOptions
lm_http_opts.c#lm_http_call_spec:luamech.HttpRequestOptions lm_grpc.c#lm_gr_spec:luamech.GrpcOptions
lm_grpc.c#lm_gr_call_spec:luamech.GrpcCallOptions"
for pair in $SPEC_MAP; do
    c=$SRC/src/lua/${pair%%:*} table=${pair%%:*} && table=${table#*#}
    check "${pair%%:*}'s option rows match ${pair#*:}: kinds and defaults ($(spec_rows "$c" | wc -l) rows: $(spec_rows "$c" | tr '\n' ' '))" \
        compare_spec "$TYPES" "$c" "${pair#*:}"
    check "${pair%%:*}: the class has exactly the table's options" \
        eval '[ "$(spec_rows "$c" | cut -d"|" -f1 | sort | tr "\n" " ")" = "$(class_fields "$TYPES" "${pair#*:}" | tr "\n" " ")" ]'
    check "${pair%%:*} declares its options as rows (lm_opts_read, at least 3 rows)" \
        eval '[ "$(spec_rows "$c" | wc -l)" -ge 3 ] && grep -qE "lm_opts_read\(L, [a-z_]+, [a-z_\".]+, $table, " "${c%%#*}"'
done
check "every lm_opt_spec table is in SPEC_MAP" \
    eval '[ "$(cat "$SRC"/src/lua/*.c | grep -c "lm_opt_spec [a-z_]*\[\] = {")" -eq "$(echo $SPEC_MAP | wc -w)" ]'
check "a quoted default is read from its row (memcached protocol)" \
    eval 'spec_rows "$SRC/src/lua/lm_memcached.c#lm_mc_spec" | grep -qx "protocol|OTHER|\"text\""'
WS_C=$SRC/src/lua/lm_ws.c
sed -e 's/^\(---@field max_queue? integer .*\)(default 4 MiB)/\1(default 8 MiB)/' \
    -e 's/^---@field timeout? number \(seconds, 0..86400 (default 10; 0 = none): each receive\)/---@field timeout? integer \1/' \
    "$TYPES" > "$TMP/doctored_spec.lua"
compare_spec "$TMP/doctored_spec.lua" "$WS_C" luamech.WsOptions > "$TMP/cmp_spec"
check "a default the types say otherwise is reported (WsOptions max_queue 8 MiB)" \
    grep -q "luamech.WsOptions.max_queue: default not '4 MiB'" "$TMP/cmp_spec"
check "a kind the types say otherwise is reported (WsOptions timeout as integer)" \
    grep -q "luamech.WsOptions.timeout: type not number" "$TMP/cmp_spec"
sed -e 's/^\(---@field max_depth? integer .*\)(default 7)/\1(default 8)/' \
    -e 's/^\(---@field keepalive? boolean\) default true/\1 default false/' "$TYPES" > "$TMP/doctored_spec2.lua"
compare_spec "$TMP/doctored_spec2.lua" "$SRC/src/lua/lm_redis.c" luamech.RedisOptions > "$TMP/cmp_spec2"
compare_spec "$TMP/doctored_spec2.lua" "$SRC/src/lua/lm_http_opts.c" luamech.HttpOptions >> "$TMP/cmp_spec2"
check "a redis INT row's default the types say otherwise is reported (max_depth 8)" \
    grep -q "luamech.RedisOptions.max_depth: default not '7'" "$TMP/cmp_spec2"
check "an http row read by the binding itself, its default said otherwise, is reported (keepalive)" \
    grep -q "luamech.HttpOptions.keepalive: default not 'true'" "$TMP/cmp_spec2"
sed -e 's/^\(---@field protocol? "text"|"meta" .*\)(default "text")/\1(default "meta")/' \
    -e 's/^\(---@field redirects? integer .*\)(default 10)/\1(default 5)/' \
    -e 's/^---@field timeout? number seconds (default: the client.s)$/---@field timeout? integer seconds (default: the client'"'"'s)/' \
    "$TYPES" > "$TMP/doctored_spec3.lua"
check "the third doctored types file has its three changes" [ "$(diff "$TYPES" "$TMP/doctored_spec3.lua" | grep -c '^<')" -eq 3 ]
compare_spec "$TMP/doctored_spec3.lua" "$SRC/src/lua/lm_memcached.c#lm_mc_spec" luamech.MemcachedOptions > "$TMP/cmp_spec3"
compare_spec "$TMP/doctored_spec3.lua" "$SRC/src/lua/lm_http_opts.c#lm_http_call_spec" luamech.HttpRequestOptions >> "$TMP/cmp_spec3"
compare_spec "$TMP/doctored_spec3.lua" "$SRC/src/lua/lm_grpc.c#lm_gr_call_spec" luamech.GrpcCallOptions >> "$TMP/cmp_spec3"
sed 's/^/  | /' "$TMP/cmp_spec3"
check "a quoted default the types say otherwise is reported (MemcachedOptions protocol \"text\")" \
    grep -q "luamech.MemcachedOptions.protocol: default not '\"text\"'" "$TMP/cmp_spec3"
check "a request option's default the types say otherwise is reported (HttpRequestOptions redirects 10)" \
    grep -q "luamech.HttpRequestOptions.redirects: default not '10'" "$TMP/cmp_spec3"
check "a call option's kind the types say otherwise is reported (GrpcCallOptions timeout as integer)" \
    grep -q "luamech.GrpcCallOptions.timeout: type not number" "$TMP/cmp_spec3"

# scenario file fields: lua/scenario.lua's lists of known fields against the
# Scenario, Phase, Group and Stage classes
lua_fields() { # LIST-NAME: the keys of `local LIST-NAME = { ... }` in lua/scenario.lua
    awk -v l="$1" '$0 ~ "^local " l " = \\{" { on = 1; next } on && /^\}/ { on = 0 } on' "$SRC/lua/scenario.lua" |
        grep -o '[a-z_]* = true' | sed 's/ = true//' | sort -u
}
compare_fields() { # TYPES: 0 when the classes list exactly the fields scenario.lua knows
    local rc=0 pair
    for pair in fields:luamech.Scenario phase_fields:luamech.Phase group_fields:luamech.Group; do
        lua_fields "${pair%%:*}" > "$TMP/l_f"
        class_fields "$1" "${pair#*:}" > "$TMP/t_f"
        [ -s "$TMP/l_f" ] || { echo "no list ${pair%%:*} in lua/scenario.lua"; rc=1; }
        comm -23 "$TMP/l_f" "$TMP/t_f" | sed "s/^/scenario field not annotated in ${pair#*:}: /" | grep . && rc=1
        comm -13 "$TMP/l_f" "$TMP/t_f" | sed "s/^/annotated field scenario.lua does not know in ${pair#*:}: /" | grep . && rc=1
    done
    [ "$(class_fields "$1" luamech.Stage | tr '\n' ' ')" = "duration target " ] ||
        { echo "luamech.Stage must have duration and target"; rc=1; }
    return $rc
}
check "the scenario, phase, group and stage fields are annotated exactly" compare_fields "$TYPES"
sed -e '/^---@field pacing? luamech.Duration/d' "$TYPES" > "$TMP/doctored_fields.lua"
compare_fields "$TMP/doctored_fields.lua" > "$TMP/cmp_fields"
check "a removed field annotation is reported (group pacing)" \
    grep -qx "scenario field not annotated in luamech.Group: pacing" "$TMP/cmp_fields"

# Return shapes and errors: one rule for the three clients (docs/lua-api.md,
# "Conventions"): misuse (a bad URL or option, a TLS file that cannot be
# loaded, a bad argument) raises a message naming the function; a failure of
# the network returns nil, err.  What a VU really gets (fixtures/api_shapes_vu.lua)
# against the rule, and the types file's @return lines against what it got.
"$LUAMECH" run "$F/api_shapes.lua" -q -s 1 -e OUT="$TMP/shapes" -e CLOSED="$(free_port)" \
    -e MISSING="$TMP/missing.pem" -o "$TMP/rs" > "$TMP/shapes.out" 2>&1
check "the probing VU ran (exit $?)" [ -s "$TMP/shapes" ]
shape() { # NAME CASE: what the probe did
    sed -n "s/^$1 $2 -> //p" "$TMP/shapes"
}
raises() { # NAME CASE PATTERN: it raised a message naming the function
    local got; got=$(shape "$1" "$2")
    check "$1 ($2) raises /$3/ (got: ${got:0:200})" grep -qE -- "^raised .*$3" <<< "$got"
}
returns() { # NAME CASE SHAPE
    local got; got=$(shape "$1" "$2")
    check "$1 ($2) returns $3 (got: $got)" [ "$got" = "returned $3" ]
}
raises luamech.http.new bad-url "luamech.http.new: bad base_url"
raises luamech.http.new bad-option "luamech.http.new: unknown option 'bogus'"
raises luamech.http.new tls-file "luamech.http.new: tls: cannot load ca_file $TMP/missing.pem"
raises luamech.memcached.connect bad-option "memcached.connect: unknown option 'bogus'"
raises luamech.memcached.connect tls-file "memcached.connect: tls: cannot load ca_file $TMP/missing.pem"
raises luamech.redis.connect bad-option "redis.connect: unknown option 'bogus'"
raises luamech.redis.connect tls-file "redis.connect: tls: cannot load ca_file $TMP/missing.pem"
raises luamech.ws.connect bad-option "ws.connect: unknown option 'bogus'"
raises luamech.ws.connect tls-file "ws.connect: tls: cannot load ca_file $TMP/missing.pem"
raises luamech.counter:add negative "counter:add: expected a whole number >= 0 \\(a counter only grows; use a gauge\\), got -1"
raises luamech.counter:add not-a-number "counter:add: expected a whole number >= 0, got string"
returns luamech.http.new ok userdata
returns luamech.http:get refused nil,string
returns luamech.memcached.connect refused nil,string
returns luamech.redis.connect refused nil,string
returns luamech.ws.connect refused nil,string
CLOSED_PORT=$(sed -n 's/^luamech.ws.connect refused-err -> said ws.connect ws:\/\/127.0.0.1:\([0-9]*\): .*/\1/p' "$TMP/shapes")
check "ws.connect's returned error says its kind as its tally line does (got: $(shape luamech.ws.connect refused-err))" \
    [ "$(shape luamech.ws.connect refused-err)" = "said ws.connect ws://127.0.0.1:$CLOSED_PORT: server down: connection refused" ]
check "... and the tally line says the same" \
    grep -qF "ws.connect ws://127.0.0.1:$CLOSED_PORT: server down: connection refused" "$TMP/rs/errors.csv"

# @return lines of FUNC in TYPES, one per line ("T name")
returns_of() {
    awk -v f="$2" '/^---@return / { r = r substr($0, 12) "\n"; next } /^---/ { next }
        index($0, "function " f "(") == 1 { printf "%s", r; exit } { r = "" }' "$1"
}
compare_returns() { # TYPES: 0 when the annotations say what the probes got
    local rc=0 t
    # never nil: a client, no error return
    t=$(returns_of "$1" luamech.http.new)
    [ "$t" = "luamech.HttpClient client" ] || { echo "luamech.http.new: @return '$t', expected 'luamech.HttpClient client' (it raises or returns a client)"; rc=1; }
    for f in luamech.memcached.connect luamech.redis.connect luamech.ws.connect HttpClient:get; do
        t=$(returns_of "$1" "$f")
        grep -q '^luamech\.[A-Za-z]*|nil ' <<< "$t" && grep -q '^string? err' <<< "$t" ||
            { echo "$f: @return '$(tr '\n' ';' <<< "$t")', expected T|nil and string? err (nil, err when the network fails)"; rc=1; }
    done
    return $rc
}
check "the types file's @return lines match the shapes" compare_returns "$TYPES"
sed 's/^---@return luamech.HttpClient client$/---@return luamech.HttpClient|nil client\n---@return string? err/' "$TYPES" > "$TMP/doctored_ret.lua"
compare_returns "$TMP/doctored_ret.lua" > "$TMP/cmp_ret"
check "a stale 'client|nil, err' on http.new is reported" grep -q "^luamech.http.new: @return" "$TMP/cmp_ret"

# the checker catches a missing and a stale annotation
sed -e '/^function MemcachedClient:touch(/d' -e '$a function luamech.bogus() end' "$TYPES" > "$TMP/doctored.lua"
annotated "$TMP/doctored.lua" > "$TMP/ann2"
compare "$TMP/live.s" "$TMP/ann2" > "$TMP/cmp2"
check "a removed annotation is reported (luamech.memcached:touch)" grep -qx "missing annotation: luamech.memcached:touch" "$TMP/cmp2"
check "an annotation of no function is reported (luamech.bogus)" grep -qx "annotation of a function that does not exist: luamech.bogus" "$TMP/cmp2"
finish
