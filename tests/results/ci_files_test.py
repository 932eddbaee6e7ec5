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
script = c["args"][0]
check("the shard is the completion index", "--shard \"$JOB_COMPLETION_INDEX/$SHARDS\"" in script)
sh_syntax("the shard pod's command", script)
g = byname["gate"]["spec"]["template"]["spec"]["containers"][0]
check("the gate Job merges", "--merge" in g["args"][0])
sh_syntax("the gate pod's command", g["args"][0])
vols = {d["metadata"]["name"]: d["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] for d in docs}
check("both Jobs share one volume claim", len(set(vols.values())) == 1)

print("all passed" if not failures else f"{len(failures)} failed")
sys.exit(1 if failures else 0)
