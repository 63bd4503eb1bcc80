# Scenario-relative paths: require, io.open and scripts resolve against the
# scenario's folder whatever the current directory; the results' scenario/
# copy holds every file the run read (at the same relative paths, listed in
# summary.json) and re-runs from there.  Counted by the server.
. "$(dirname "$0")/lib.sh"
start_memcached PORT
cp -r "$SRC/tests/scenarios/fixtures/authoring" "$TMP/sc"
mkdir -p "$TMP/elsewhere"

s0=$(mc_stat "$PORT" cmd_set)
(cd / && "$LUAMECH" run "$TMP/sc/paths.lua" -q -n 40 -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/r1") > "$TMP/out1" 2>&1
rc=$?
check "run from / exits 0 (got $rc: $(tail -1 "$TMP/out1"))" [ $rc -eq 0 ]
check "the server saw 40 sets" [ $(( $(mc_stat "$PORT" cmd_set) - s0 )) -eq 40 ]
exec 3<>"/dev/tcp/127.0.0.1/$PORT"; printf 'get paths:1-1\r\n' >&3
IFS= read -r -t 2 _ <&3; IFS= read -r -t 2 val <&3; exec 3<&- 3>&-
check "the value came from data/note.txt (got '${val%$'\r'}')" [ "${val%$'\r'}" = "value-from-data-file" ]
check "the scenario's require found lib/keys.lua (notes)" [ "$(jq -r .notes "$TMP/r1/summary.json")" = "prefix paths:" ]

R=$TMP/r1/scenario
for f in paths.lua scripts/paths_vu.lua lib/keys.lua lib/notes.lua data/note.txt; do
    check "results copy has $f" cmp -s "$R/$f" "$TMP/sc/$f"
done
check "summary.json lists the files read" \
    [ "$(jq -r '[.scenario_files[] | select(.copied) | .path] | sort | join(",")' "$TMP/r1/summary.json")" = "data/note.txt,lib/keys.lua,lib/notes.lua" ]

# the copy re-runs on its own, from yet another directory, the original gone
mv "$TMP/sc" "$TMP/sc.moved"
s0=$(mc_stat "$PORT" cmd_set)
(cd "$TMP/elsewhere" && "$LUAMECH" run ../r1/scenario/paths.lua -q -n 10 -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/r2") > "$TMP/out2" 2>&1
rc=$?
check "re-run from the results' copy exits 0 (got $rc: $(tail -1 "$TMP/out2"))" [ $rc -eq 0 ]
check "the re-run's 10 sets reached the server" [ $(( $(mc_stat "$PORT" cmd_set) - s0 )) -eq 10 ]

# a module that is not there: the message names the folder searched
mv "$TMP/sc.moved" "$TMP/sc"
rm "$TMP/sc/lib/keys.lua"
(cd / && "$LUAMECH" run "$TMP/sc/paths.lua" -q -n 1 -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/r3") > "$TMP/out3" 2>&1
rc=$?
check "a missing module exits 3 (got $rc)" [ $rc -eq 3 ]
check "the message names the scenario's folder" grep -q "no file '$TMP/sc/lib/keys.lua'" "$TMP/out3"
finish
