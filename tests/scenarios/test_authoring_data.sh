# luamech.data.csv / jsonl: rows picked across VUs and workers as asked,
# counted by the server; bad files stop the run before any load with the
# file and line named.
. "$(dirname "$0")/lib.sh"
start_memcached PORT
cp -r "$SRC/tests/scenarios/fixtures/authoring" "$TMP/sc"
D=$TMP/sc/data
{ echo "id,name"; for i in $(seq 1 300); do echo "$i,\"name $i, the $i-th\""; done; } > "$D/users.csv"
for i in $(seq 1 120); do echo "{\"id\": $i, \"name\": \"j$i\"}"; done > "$D/users.jsonl"
run() { # run NAME args...: from /, into $TMP/NAME
    local name=$1; shift
    (cd / && "$LUAMECH" run "$TMP/sc/data.lua" -q -e MEMCACHED=127.0.0.1:$PORT -o "$TMP/$name" "$@") > "$TMP/$name.out" 2>&1
}
get() { # get KEY: the value memcached holds
    local line val
    exec 3<>"/dev/tcp/127.0.0.1/$PORT"; printf 'get %s\r\n' "$1" >&3
    IFS= read -r -t 2 line <&3
    case $line in VALUE*) IFS= read -r -t 2 val <&3; echo "${val%$'\r'}";; esac
    exec 3<&- 3>&-
}

# sequential over 5 VUs on 2 workers: each of the 300 rows exactly once,
# then on_end = "stop" ends the run
s0=$(mc_stat "$PORT" cmd_set); i0=$(mc_stat "$PORT" curr_items)
run seq; rc=$?
check "sequential run exits 0 (got $rc: $(tail -1 "$TMP/seq.out"))" [ $rc -eq 0 ]
check "the server saw 300 sets" [ $(( $(mc_stat "$PORT" cmd_set) - s0 )) -eq 300 ]
check "300 distinct keys: every row once" [ $(( $(mc_stat "$PORT" curr_items) - i0 )) -eq 300 ]
check "quoted field with a comma kept (row 77)" [ "$(get user:77)" = "name 77, the 77-th" ]
check "status stopped" [ "$(jq -r .status "$TMP/seq/summary.json")" = stopped ]
check "stop reason names the file" grep -q "data/users.csv: all 300 rows used" <(jq -r .stop_reason "$TMP/seq/summary.json")
check "stopped well before the 20 s run time" awk "BEGIN{exit !($(jq .run_time_s "$TMP/seq/summary.json") < 10)}"
check "the data file is in the results' copy" cmp -s "$TMP/seq/scenario/data/users.csv" "$D/users.csv"

# JSON lines, sequential: 120 rows, 120 sets
s0=$(mc_stat "$PORT" cmd_set)
run jsonl -e KIND=jsonl -e DATA=data/users.jsonl; rc=$?
check "jsonl run exits 0 (got $rc: $(tail -1 "$TMP/jsonl.out"))" [ $rc -eq 0 ]
check "jsonl: the server saw 120 sets" [ $(( $(mc_stat "$PORT" cmd_set) - s0 )) -eq 120 ]
check "jsonl: row 99 decoded" [ "$(get user:99)" = "j99" ]

# unique: VU k of 5 takes rows k, k+5, k+10, ...; a budget of 50
# transactions uses 50 rows, none twice, and each VU's rows are the start of
# its own class (how the 50 split between the VUs is the scheduler's: a VU
# may start 11 while another starts 9, so rows 1..50 exactly is not promised)
used_ids() { # "<row id> <vu id>" for each of user:1..user:300 memcached holds
    local keys="" i line
    for i in $(seq 1 300); do keys+=" user:$i"; done
    exec 3<>"/dev/tcp/127.0.0.1/$PORT"; printf 'get%s\r\n' "$keys" >&3
    while IFS= read -r -t 2 line <&3; do
        line=${line%$'\r'}
        case $line in
        END) break;;
        "VALUE user:"*) line=${line#VALUE user:}; printf '%s ' "${line%% *}"
                        IFS= read -r -t 2 line <&3; line=${line%$'\r'}; echo "${line%%:*}";;
        esac
    done
    exec 3<&- 3>&-
}
unique_prefixes() { # VU k wrote rows k, k+5, ... from the first, with no gap
    awk '{ used[$1] = 1; n++; if (($1 - $2) % 5 != 0) bad++ } END {
        if (bad) exit 1
        for (k = 1; k <= 5; k++) { m = 0; while (used[k + 5 * m]) m++; seen += m }
        exit !(seen == n) }'
}
s0=$(mc_stat "$PORT" cmd_set)
printf 'flush_all\r\n' > "/dev/tcp/127.0.0.1/$PORT"; sleep 1.1
run uniq -e PICK=unique -e ON_END=error -e TAG_VU=1 -n 50; rc=$?
check "unique run exits 0 (got $rc)" [ $rc -eq 0 ]
check "unique: 50 sets" [ $(( $(mc_stat "$PORT" cmd_set) - s0 )) -eq 50 ]
used_ids > "$TMP/uniq.ids"
check "unique: 50 distinct rows held (got $(wc -l < "$TMP/uniq.ids"))" [ "$(wc -l < "$TMP/uniq.ids")" -eq 50 ]
check "unique: each VU's rows are k, k+5, ... from its start, no gap" unique_prefixes < "$TMP/uniq.ids"

# on_end = "error": the 301st row is an error, counted, the message says so
run err -e ON_END=error -e PICK=sequential -n 310; rc=$?
check "sequential past the end fails transactions (errors = 10)" \
    [ "$(timer_errors "$TMP/err/summary.json" "All Transactions")" -eq 10 ]
check "the error says the rows are used up" grep -q "all 300 rows used" "$TMP/err/errors.csv"

# bad input: one message, before any load
s0=$(mc_stat "$PORT" cmd_set)
printf 'id,name\n1,a\n2,b\n3,c,extra\n' > "$D/bad.csv"
run bad1 -e DATA=data/bad.csv; rc=$?
check "a bad CSV row exits 4 (got $rc)" [ $rc -eq 4 ]
check "the message names the file and line 4" grep -q 'data/bad.csv.*line 4: 3 fields, expected 2' "$TMP/bad1.out"
printf 'id,name\n1,"a\n' > "$D/open.csv"
run bad2 -e DATA=data/open.csv; rc=$?
check "an unclosed quote exits 4 (got $rc)" [ $rc -eq 4 ]
check "its message names line 2" grep -q 'line 2' "$TMP/bad2.out"
run bad3 -e DATA=data/nope.csv; rc=$?
check "a missing file exits 4 (got $rc)" [ $rc -eq 4 ]
check "its message says cannot open" grep -q 'data/nope.csv.*cannot open' "$TMP/bad3.out"
printf '{"id": 1}\n{"id": 2,}\n' > "$D/bad.jsonl"
run bad4 -e KIND=jsonl -e DATA=data/bad.jsonl; rc=$?
check "bad JSON exits 4 (got $rc)" [ $rc -eq 4 ]
check "its message names line 2" grep -q 'line 2: bad JSON' "$TMP/bad4.out"
check "no load was sent for the bad files" [ "$(mc_stat "$PORT" cmd_set)" -eq "$s0" ]
finish
