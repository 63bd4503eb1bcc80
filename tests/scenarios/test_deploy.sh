# deploy/k8s and deploy/slurm without a cluster: the Kubernetes manifests
# parse (python3-yaml) and say what docs/distributed.md says (an Indexed Job
# with completions = parallelism = LUAMECH_SEGMENTS, --segment auto, one
# shared volume, the merge Job over it); the pods' command lines, run here
# as 4 local processes with JOB_COMPLETION_INDEX set by hand against a real
# memcached, then the merge Job's command line: the merged count equals the
# budget and memcached's own counter.  The sbatch script is checked by
# bash -n (test_slurm.sh runs it on a real Slurm cluster).
. "$(dirname "$0")/lib.sh"
K8S=$SRC/deploy/k8s
if ! python3 -c 'import yaml' 2> /dev/null; then
    echo "SKIPPED: python3-yaml is not installed (apt-get install python3-yaml; .ci/setup installs it)"
    exit 0
fi
check "luamech.sbatch: bash -n" bash -n "$SRC/deploy/slurm/luamech.sbatch"
# the facts, as JSON: N, the command lines, env, volumes
python3 - "$K8S" > "$TMP/k8s.json" <<'PY' || fail "the manifests parse"
import json, sys, yaml
d = sys.argv[1]
seg = list(yaml.safe_load_all(open(d + "/luamech-segments.yaml")))
mrg = list(yaml.safe_load_all(open(d + "/luamech-merge.yaml")))
job = [x for x in seg if x["kind"] == "Job"][0]
pvc = [x for x in seg if x["kind"] == "PersistentVolumeClaim"][0]
c = job["spec"]["template"]["spec"]["containers"][0]
m = mrg[0]["spec"]["template"]["spec"]["containers"][0]
env = {e["name"]: e["value"] for e in c["env"]}
print(json.dumps({"mode": job["spec"]["completionMode"], "completions": job["spec"]["completions"],
  "parallelism": job["spec"]["parallelism"], "segments": int(env["LUAMECH_SEGMENTS"]), "env": env,
  "cmd": c["command"], "merge_cmd": m["command"], "image": c["image"], "merge_image": m["image"],
  "pvc": pvc["metadata"]["name"], "access": pvc["spec"]["accessModes"],
  "claims": [v["persistentVolumeClaim"]["claimName"] for x in (job, mrg[0])
             for v in x["spec"]["template"]["spec"]["volumes"] if "persistentVolumeClaim" in v]}))
PY
j() { jq -r "$1" "$TMP/k8s.json"; }
check "k8s: an Indexed Job" [ "$(j .mode)" = Indexed ]
check "k8s: completions = parallelism = LUAMECH_SEGMENTS" [ "$(j .completions)" = "$(j .segments)" -a "$(j .parallelism)" = "$(j .segments)" ]
check "k8s: --segment auto in the pod command" grep -q -- "--segment auto" <<< "$(j '.cmd[2]')"
check "k8s: both Jobs use the results claim, ReadWriteMany" [ "$(j '.claims | unique | .[]')" = "$(j .pvc)" -a "$(j '.access[0]')" = ReadWriteMany ]
check "k8s: both Jobs run the image of deploy/container" [ "$(j .image)" = "$(j .merge_image)" ]

# the pod command lines, here: luamech, the scenario and the volume mapped to local paths
start_memcached MC
N=$(j .segments)
at=$(date -u -d '+4 sec' +%Y-%m-%dT%H:%M:%SZ)
cmd=$(j '.cmd[2]' | sed -e "s|exec luamech |exec \"\$LUAMECH\" |" -e "s|/scenario/scenario.lua|$SRC/tests/scenarios/fixtures/segments_budget.lua|" -e "s|/results/|$TMP/results/|g")
before=$(mc_stat "$MC" cmd_set)
pids=()
for idx in $(seq 0 $((N - 1))); do
    LUAMECH=$LUAMECH JOB_COMPLETION_INDEX=$idx LUAMECH_SEGMENTS=$N LUAMECH_START_AT=$at MEMCACHED=127.0.0.1:$MC \
        sh -c "$cmd" > "$TMP/pod-$idx.log" 2>&1 &
    pids+=($!)
done
for idx in $(seq 0 $((N - 1))); do wait "${pids[$idx]}" || fail "pod $idx exited $?"; done
check "k8s: the pods wrote seg-1 .. seg-$N" [ "$(ls "$TMP/results/run42" | tr '\n' ' ')" = "$(for i in $(seq $N); do printf 'seg-%d ' $i; done)" ]
mcmd=$(j '.merge_cmd[2]' | sed -e "s|exec luamech |exec \"\$LUAMECH\" |" -e "s|/results/|$TMP/results/|g")
LUAMECH=$LUAMECH sh -c "$mcmd" > "$TMP/merge.log" 2>&1
check "k8s: the merge Job's command exits 0 ($?)" [ $? -eq 0 ]
m=$TMP/results/run42/merged/summary.json
check "k8s: merged 400 transactions" [ "$(timer_count "$m" "All Transactions")" -eq 400 ]
check "k8s: memcached counted $(( $(mc_stat "$MC" cmd_set) - before )) sets == merged" \
    [ $(( $(mc_stat "$MC" cmd_set) - before )) -eq "$(timer_count "$m" "memcached.set")" ]
check "k8s: every segment started at $at" [ "$(jq -r '[.segments[].start_at.requested] | unique | length' "$m")" -eq 1 ]
finish
