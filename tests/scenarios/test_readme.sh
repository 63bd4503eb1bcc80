# The README's Quick start has two commands and shows `luamech new`; its examples run as written: every ```lua block of README.md must
# open with "-- NAME.lua" and is saved under that name; every block that is
# a scenario (a file returning a table, "return {") is run against a private
# memcached and must pass (exit 0, every threshold passed).  A scenario with a
# run_time is shortened with --duration 3s --rampup 1s --interval 1s (its
# minutes would make a slow test); everything else is as written.  memcached's
# own counters must match the runs' memcached timers.
. "$(dirname "$0")/lib.sh"
LUAMECH=$(readlink -f "$LUAMECH")           # the scenarios run from their own directory

# The Quick start keeps exactly two copy-paste commands (a project rule): two
# code blocks of one line each; `luamech new` is shown there as inline code,
# which runs as written (from a checkout: build/luamech is this binary).
qs=$(awk '/^## Quick start/ { on = 1; next } /^## / { on = 0 } on' "$SRC/README.md")
check "Quick start: exactly two code blocks" [ "$(grep -c '^```' <<< "$qs")" -eq 4 ]
check "Quick start: one command line in each" [ "$(awk '/^```/ { inb = !inb; next } inb' <<< "$qs" | wc -l)" -eq 2 ]
newcmd=$(grep -o '`build/luamech new [^`]*`' <<< "$qs" | head -1 | tr -d '`')
check "Quick start shows \`luamech new\` ($newcmd)" [ -n "$newcmd" ]
newdir=$(awk '{ print $3 }' <<< "$newcmd")
mkdir -p "$TMP/qs"
(cd "$TMP/qs" && eval "\"\$LUAMECH\" ${newcmd#build/luamech }") > "$TMP/qs.out" 2>&1
check "Quick start's $newcmd writes $newdir/ ($(head -c 200 "$TMP/qs.out"))" \
    [ -n "$newdir" -a -s "$TMP/qs/$newdir/scenario.lua" -a -s "$TMP/qs/$newdir/README.md" ]

D=$TMP/readme
mkdir -p "$D"
awk -v dir="$D" '
    /^```lua[ \t]*$/ { inblock = 1; first = 1; next }
    inblock && /^```[ \t]*$/ { inblock = 0; if (file != "") close(file); file = ""; next }
    inblock && first {
        first = 0
        if (match($0, /^-- [A-Za-z0-9_.-]+\.lua/)) {
            file = dir "/" substr($0, 4, RLENGTH - 3)
        } else {
            print "unnamed block at line " NR ": " $0 > (dir "/.unnamed")
            file = ""
        }
    }
    inblock && file != "" { print > file }
' "$SRC/README.md"
check "every lua block of README.md names its file ($(cat "$D/.unnamed" 2>/dev/null))" [ ! -e "$D/.unnamed" ]
nblocks=$(grep -c '^```lua' "$SRC/README.md")
check "README.md has lua blocks ($nblocks), each saved" [ "$nblocks" -gt 0 -a "$(ls "$D" | wc -l)" -eq "$nblocks" ]

start_memcached PORT
scenarios=0
for f in "$D"/*.lua; do
    grep -q '^return {' "$f" || continue        # a VU script, run by the scenarios that name it
    scenarios=$((scenarios + 1))
    name=$(basename "$f" .lua)
    flags=()
    grep -q 'run_time *=' "$f" && flags=(--duration 3s --rampup 1s --interval 1s)
    sets0=$(mc_stat "$PORT" cmd_set) gets0=$(mc_stat "$PORT" cmd_get)
    (cd "$D" && "$LUAMECH" run "$name.lua" -q "${flags[@]}" -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/out-$name") \
        > "$TMP/$name.out" 2>&1
    rc=$?
    check "README scenario $name.lua ${flags[*]}: exit 0 (got $rc: $(grep -m3 'luamech:\|FAIL' "$TMP/$name.out" | tr '\n' ' '))" [ $rc -eq 0 ]
    # every summary.json of the run: the run's, or the top one and each phase's
    sums=$(find "$TMP/out-$name" -name summary.json 2>/dev/null)
    [ -n "$sums" ] || sums=/dev/null
    failed=$(cat $sums | jq -s '[.[] | .thresholds // [] | .[] | select(.passed | not)] | length')
    check "$name.lua: no threshold failed ($failed)" [ "$failed" -eq 0 ]
    tx=$(cat $sums | jq -s '[.[] | .timers // [] | .[] | select(.name == "All Transactions") | .summary.count] | add // 0')
    check "$name.lua: it ran transactions ($tx)" [ "$tx" -gt 0 ]
    mset=$(cat $sums | jq -s '[.[] | .timers // [] | .[] | select(.name == "memcached.set") | .summary.count] | add // 0')
    mget=$(cat $sums | jq -s '[.[] | .timers // [] | .[] | select(.name == "memcached.get") | .summary.count] | add // 0')
    check "$name.lua: memcached saw the sets and gets the run counted ($mset/$mget)" \
        [ "$(( $(mc_stat "$PORT" cmd_set) - sets0 ))/$(( $(mc_stat "$PORT" cmd_get) - gets0 ))" = "$mset/$mget" ]
done
check "README.md has scenarios to run ($scenarios)" [ "$scenarios" -ge 2 ]
finish
