"""The CI adoption files parse and hang together: the shard matrix and N
agree, the Indexed Job shards by its completion index, and every shell
script they hold is valid POSIX sh (dash -n)."""
import re
import subprocess
import sys

import yaml

src = sys.argv[1]
failures = []


def check(what, ok):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def sh_syntax(what, script):
    # GitHub expressions are not shell: stand a word in for each.
    script = re.sub(r"\$\{\{[^}]*\}\}", "X", script)
    r = subprocess.run(["sh", "-n"], input=script, text=True, capture_output=True)
    check(what + " is valid sh" + (": " + r.stderr.strip() if r.returncode else ""), r.returncode == 0)


with open(src + "/ci/github/nightly.yml") as f:
    wf = yaml.safe_load(f)
on = wf.get(True, wf.get("on"))  # YAML 1.1 reads the key `on` as true
check("the workflow runs on a schedule", "schedule" in on)
jobs = wf["jobs"]
shards = int(wf["env"]["SHARDS"])
for name in ("shard", "cuda-shard"):
    check(f"{name} has SHARDS = {shards} shards",
          jobs[name]["strategy"]["matrix"]["shard"] == list(range(shards)))
check("the shard matrix is backend x shard",
      set(jobs["shard"]["strategy"]["matrix"]) == {"backend", "shard"})
gate = jobs["merge-and-report"]
check("merge-and-report waits for every shard job",
      {"shard", "cuda-shard"} <= set(gate["needs"]))
check("merge-and-report covers every backend",
      set(jobs["shard"]["strategy"]["matrix"]["backend"]) | {"cuda"}
      == set(gate["strategy"]["matrix"]["backend"]))
for jname, job in jobs.items():
    for i, step in enumerate(job["steps"]):
        if "run" in step:
            sh_syntax(f"{jname} step {i + 1}", step["run"])
runs = "\n".join(s.get("run", "") for s in jobs["shard"]["steps"])
check("a shard step passes --shard K/SHARDS", "--shard \"${{ matrix.shard }}/$SHARDS\"" in runs)
check("the gate merges", "--merge" in "\n".join(s.get("run", "") for s in gate["steps"]))

check("a shard publishes its results file", "--publish published" in runs)
gate_run = "\n".join(s.get("run", "") for s in gate["steps"])
check("the gate bootstraps: --baseline and --promote name one file",
      '--baseline "baseline/$b.db" --promote "baseline/$b.db"' in gate_run)

with open(src + "/ci/k8s/nightly-job.yaml") as f:
    docs = [d for d in yaml.safe_load_all(f) if d]
check("the k8s file holds two Jobs", [d["kind"] for d in docs] == ["Job", "Job"])
byname = {d["metadata"]["labels"]["vyre-conform/step"]: d for d in docs}
sj = byname["shards"]
c = sj["spec"]["template"]["spec"]["containers"][0]
env = {e["name"]: e["value"] for e in c["env"]}
check("the shards Job is Indexed", sj["spec"]["completionMode"] == "Indexed")
check("completions equal SHARDS", sj["spec"]["completions"] == int(env["SHARDS"]))
check("each shard pod takes one GPU", c["resources"]["limits"]["nvidia.com/gpu"] == 1)
check("the shard runs ci/nightly in exec form under tini",
      c["command"] == ["/usr/bin/tini", "--", "ci/nightly"])
a = c["args"]
check("the shard is the completion index",
      a[a.index("--shard") + 1] == "$(JOB_COMPLETION_INDEX)/$(SHARDS)")
check("the shard writes to the emptyDir and publishes to the night's folder",
      a[a.index("--out") + 1].startswith("/work/")
      and a[a.index("--publish") + 1] == "/results/nights/@NIGHT@/shards")
vols = {v["name"]: v for v in sj["spec"]["template"]["spec"]["volumes"]}
check("/work is an emptyDir", "emptyDir" in vols["work"])
rules = sj["spec"]["podFailurePolicy"]["rules"]
check("exit 3 fails the index", any(r["action"] == "FailIndex" and r["onExitCodes"]["values"] == [3] for r in rules))
check("a shard's failing verdict is not retried",
      any(r["action"] == "FailIndex" and r["onExitCodes"]["values"] == [1, 4, 6, 9, 10] for r in rules))
check("every shard runs whatever the others' verdicts",
      sj["spec"]["maxFailedIndexes"] == sj["spec"]["completions"])
check("disruptions are ignored", any(r["action"] == "Ignore" and r["onPodConditions"][0]["type"] == "DisruptionTarget" for r in rules))
g = byname["gate"]["spec"]["template"]["spec"]["containers"][0]
check("the gate Job runs ci/k8s/gate", g["command"][-1] == "ci/k8s/gate")
with open(src + "/ci/k8s/gate") as f:
    check("ci/k8s/gate merges", "--merge" in f.read())
claims = {d["metadata"]["name"]: [v["persistentVolumeClaim"]["claimName"] for v in d["spec"]["template"]["spec"]["volumes"] if "persistentVolumeClaim" in v] for d in docs}
check("both Jobs share one volume claim", len({c for v in claims.values() for c in v}) == 1)
with open(src + "/ci/k8s/results-pvc.yaml") as f:
    pvc = yaml.safe_load(f)
check("the claim the Jobs mount is defined", [pvc["metadata"]["name"]] == list({c for v in claims.values() for c in v}))
check("the claim is ReadWriteMany", pvc["spec"]["accessModes"] == ["ReadWriteMany"])

print("all passed" if not failures else f"{len(failures)} failed")
sys.exit(1 if failures else 0)
