# luamech.random's distributions and luamech.keys through the binary: the
# API shape (luamech.random(m, n) still works, generators), rough figures
# (the exact goodness of fit is tests/unit/test_randdist.c's chi-square),
# key patterns, per-VU reproducibility and the bad-input errors.
. "$(dirname "$0")/lib.sh"
F=$SRC/tests/scenarios/fixtures
"$LUAMECH" run "$F/random_api.lua" -q -s 7 -e OUT="$TMP/a" -o "$TMP/ra" > "$TMP/stdout" 2>&1
check "run exits 0" [ $? -eq 0 ]
v() { awk -v k="$1" '$1 == k { print $2 }' "$TMP/a"; }
near() { awk -v x="$(v "$1")" -v e="$2" -v t="$3" 'BEGIN { exit !(x != "" && x >= e - t && x <= e + t) }'; }
check "luamech.random is a callable table" [ "$(v random_type)" = table ]
check "luamech.random(m, n) and luamech.random() still work" [ "$(v random_m_n_ok)$(v random_01_ok)" = truetrue ]
check "zipf(100, 1): P(1) = 1/H(100) = 0.1928 ($(v zipf_p1))" near zipf_p1 0.1928 0.012
check "zipf draws stay in 1..100 ($(v zipf_min)..$(v zipf_max))" [ "$(v zipf_min)" = 1 -a "$(v zipf_max)" -le 100 ]
check "gaussian(10, 2): mean ($(v gaussian_mean)) and sd ($(v gaussian_sd))" near gaussian_mean 10 0.1
check "gaussian(10, 2): sd ($(v gaussian_sd))" near gaussian_sd 2 0.1
check "exponential(0.5): mean ($(v exponential_mean)), never negative" near exponential_mean 0.5 0.03
check "exponential draws >= 0" [ "$(v exponential_min_ok)" = true ]
check "pareto(1, 3): draws >= scale, P(X > 2) = 0.125 ($(v pareto_over2))" near pareto_over2 0.125 0.012
check "pareto draws >= scale" [ "$(v pareto_min_ok)" = true ]
check "weighted{get = 90, set = 10}: 90% get ($(v weighted_get)), only its keys" near weighted_get 0.9 0.012
check "weighted returns only its keys" [ "$(v weighted_other)" = 0 ]
check "weighted{0, 1, 0} (a list) returns index 2 only" [ "$(v weighted_list_only2)" = true ]
check "keys sequential n=3 wraps around" [ "$(v keys_sequential)" = "k:1,k:2,k:3,k:1,k:2,k:3,k:1" ]
check "keys uniform: key:1..key:10, all seen" [ "$(v keys_uniform_bad)" = 0 -a "$(v keys_uniform_seen)" = 10 ]
check "keys gaussian: within 1..1000, centred ($(v keys_gaussian_mean))" near keys_gaussian_mean 500.5 6
check "keys gaussian: none out of range" [ "$(v keys_gaussian_bad)" = 0 ]
check "keys zipf(1000, 0.99): hottest key share 1/H = 0.1337 ($(v keys_zipf_z1))" near keys_zipf_z1 0.1337 0.01
err() { grep "^error $1 => " "$TMP/a" | grep -F "$2" > /dev/null; }
check "zipf(0, 1) names the function and n" err zipf0 "luamech.random.zipf(n, s): n must be a whole number"
check "zipf(10, -1) names s" err zipf_s "luamech.random.zipf(n, s): s must be > 0"
check "zipf('x', 1) names n" err zipf_str "luamech.random.zipf(n, s): n must be a number, got string"
check "gaussian(0, -1) names sd" err gaussian_sd "luamech.random.gaussian(mean, sd): sd must be >= 0, got -1"
check "exponential(0) names mean" err exponential0 "luamech.random.exponential(mean): mean must be > 0"
check "pareto(1, 0) names shape" err pareto_shape "luamech.random.pareto(scale, shape): shape must be > 0"
check "weighted{} is refused" err weighted_empty "luamech.random.weighted{...}: weights must not be empty"
check "weighted{a = 0, b = 0} is refused" err weighted_zero "luamech.random.weighted{...}: the weights must not all be 0"
check "weighted{b = -1} names b" err weighted_neg "luamech.random.weighted{...}: the weight of 'b' must be a number >= 0"
check "weighted mixing names and a list is refused" err weighted_mixed "weights must be all named or a list, not both"
check "keys{pattern = 'latest'} is refused" err keys_pattern "unknown pattern 'latest'"
check "keys{n = 0} is refused" err keys_n "n must be a whole number between 1"
check "keys{prefx = ...} typo is refused" err keys_typo "luamech.keys: unknown option 'prefx'"
check "random(5, 1) still refused" err random_m_n "luamech.random(m, n): integers with m <= n expected"
check "drawing from a coroutine of the script's own is a Lua error" err coroutine "a luamech zipf generator must be called from a virtual user's script"
check "a generator made in a coroutine is drawn by the VU" [ "$(v made_in_coroutine_ok)" = true ]
# same seed, same draws; another seed, other draws
"$LUAMECH" run "$F/random_api.lua" -q -s 7 -e OUT="$TMP/b" -o "$TMP/rb" > /dev/null 2>&1
"$LUAMECH" run "$F/random_api.lua" -q -s 8 -e OUT="$TMP/c" -o "$TMP/rc" > /dev/null 2>&1
check "20 zipf draws written" [ "$(wc -l < "$TMP/a.draws")" -eq 20 ]
check "the same seed gives the same zipf draws" cmp -s "$TMP/a.draws" "$TMP/b.draws"
differ() { ! cmp -s "$1" "$2"; }
check "another seed gives other zipf draws" differ "$TMP/a.draws" "$TMP/c.draws"
finish
