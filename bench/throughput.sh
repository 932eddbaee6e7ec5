#!/bin/sh
# bench/throughput.sh [options] [-- vyre-conform options...]
#
# Throughput of whole runs (docs/performance.md, "Throughput"): for each
# backend and jobs value, the corpus runs twice with one kernel cache folder
# that starts empty: cold (everything compiled), then warm (every kernel
# from the cache). Prints one line per run: programs per second, the wall
# time, the device time (the sum of the results' device_ns,
# docs/database.md) and their ratio, the compile time and the cache hits;
# then the wall times summed over the backends, and the ratios the goals
# are stated in: warm over cold per jobs value, and each jobs value over
# the first, cold and warm.
#
# Options:
#   --build DIR        the build folder (build)
#   --backend "NAMES"  opencl, vulkan, cuda, or several (opencl)
#   --jobs "1 2"       jobs values, each run cold then warm (1). `--jobs N`
#                      is passed to vyre-conform whenever the build has the
#                      option (its default is the number of CPUs, not 1),
#                      and only for N > 1 to a build without it.
#   --out DIR          where the databases and cache folders go (a new
#                      temporary folder); kept afterwards
#   --all              the whole corpus; default: as CI runs it (tag large
#                      left out, ci/expectations/BACKEND.txt)
#   PATHS after the options and before `--`: programs to run (corpus/)
#   -- OPTIONS...      passed to every vyre-conform run
#
# The drivers' own caches are off in every run, so that only the harness's
# cache counts: POCL_KERNEL_CACHE=0 with an empty POCL_CACHE_DIR per run
# (PoCL leaves compiled code in its cache folder even then),
# MESA_SHADER_CACHE_DISABLE=true, CUDA_CACHE_DISABLE=1.
#
# A run's exit status is in its line (rc). A run that exits non-zero (1:
# something failed that no expectation excuses; 3: no such backend or
# device) or records no program ends the benchmark: the script names the
# command, its status and its log, prints no ratio (a wall time of a run
# that did nothing is no measurement) and exits 1.
set -u
build=build backends=opencl jobs=1 out='' all=0
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --backend) backends=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --all) all=1; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "bench/throughput.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
done
paths=
while [ $# -gt 0 ] && [ "$1" != "--" ]; do paths="$paths $1"; shift; done
[ "${1:-}" = "--" ] && shift
[ -n "$paths" ] || paths=corpus/
exe=$build/vyre-conform
[ -x "$exe" ] || { echo "bench/throughput.sh: no $exe (--build DIR)" >&2; exit 2; }
# the databases are read with the sqlite3 program, else with Python's
# sqlite3 module (a GPU machine may have one and not the other)
if command -v sqlite3 >/dev/null; then
  q() { sqlite3 "$1" "$2"; }
elif command -v python3 >/dev/null && python3 -c 'import sqlite3' 2>/dev/null; then
  q() {
    python3 -c 'import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]): print("|".join(map(str, r)))' "$1" "$2"
  }
else
  echo "bench/throughput.sh: needs sqlite3 or python3 with its sqlite3 module" >&2; exit 2
fi
for n in $jobs; do
  case $n in ''|*[!0-9]*|0) echo "bench/throughput.sh: --jobs: '$n' is not a count" >&2; exit 2 ;; esac
done
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/vc-throughput.XXXXXX")
mkdir -p "$out"

export POCL_KERNEL_CACHE=0 MESA_SHADER_CACHE_DISABLE=true CUDA_CACHE_DISABLE=1
has_jobs=0
"$exe" run --help 2>&1 | grep -q -- '--jobs N' && has_jobs=1

now() { date +%s.%N; }

printf '%-8s %4s %-5s %8s %9s %11s %10s %11s %10s %6s %3s\n' backend jobs cache programs wall_s \
  programs/s device_s wall/device compile_s hits rc
results=
for backend in $backends; do
select=
if [ "$all" = 0 ]; then
  select="--exclude-tag large"
  [ -f "ci/expectations/$backend.txt" ] && select="$select --expectations ci/expectations/$backend.txt"
fi
for n in $jobs; do
  kc=$out/kc-$backend-j$n
  rm -rf "$kc"
  jopt=
  # vyre-conform's own default is the number of CPUs, not 1
  if [ "$has_jobs" = 1 ] || [ "$n" -gt 1 ]; then jopt="--jobs $n"; fi
  for c in cold warm; do
    db=$out/$backend-j$n-$c.db
    rm -f "$db"
    pc=$(mktemp -d "$out/pocl-cache.XXXXXX")
    t0=$(now)
    # shellcheck disable=SC2086 # the option lists are words
    POCL_CACHE_DIR=$pc "$exe" --backend "$backend" --db "$db" --cache "$kc" --progress plain \
      $jopt $select "$@" $paths >"$out/$backend-j$n-$c.log" 2>&1
    rc=$?
    t1=$(now)
    rm -rf "$pc"
    progs=$(q "$db" "SELECT count(*) FROM programs" 2>/dev/null || echo 0)
    dev=$(q "$db" "SELECT coalesce(sum(device_ns), 0) / 1e9 FROM results" 2>/dev/null || echo 0)
    comp=$(q "$db" "SELECT coalesce(sum(compile_ns), 0) / 1e9 FROM results" 2>/dev/null || echo 0)
    hits=$(q "$db" "SELECT coalesce(sum(cache_hits), 0) FROM results" 2>/dev/null || echo 0)
    line=$(awk -v b="$backend" -v n="$n" -v c="$c" -v p="$progs" -v t0="$t0" -v t1="$t1" \
      -v d="$dev" -v k="$comp" -v h="$hits" -v rc="$rc" 'BEGIN {
        w = t1 - t0
        printf "%-8s %4d %-5s %8d %9.1f %11.2f %10.3f %11s %10.1f %6d %3d", b, n, c, p, w,
          (w > 0 ? p / w : 0), d, (d > 0 ? sprintf("%.0f", w / d) : "-"), k, h, rc }')
    echo "$line"
    if [ "$rc" != 0 ] || [ "${progs:-0}" = 0 ]; then
      # shellcheck disable=SC2086 # as run above
      echo "bench/throughput.sh: run failed (exit status $rc, $progs programs recorded):" \
        "$exe --backend $backend --db $db --cache $kc --progress plain" $jopt $select "$@" $paths >&2
      echo "bench/throughput.sh: its output is in $out/$backend-j$n-$c.log; no ratios printed" >&2
      exit 1
    fi
    results="$results$n $c $t0 $t1
"
  done
done
done

# The wall times summed over the backends, and their ratios, side by side
# in this run.
echo
printf '%s' "$results" | awk -v nb="$(echo "$backends" | wc -w)" '
  { w[$1 " " $2] += $4 - $3; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
  END {
    for (i = 1; i <= k; i++) {
      n = order[i]
      if (nb > 1)
        printf "jobs %s, all %d backends: %.1f s cold, %.1f s warm\n", n, nb, w[n " cold"],
          w[n " warm"]
    }
    for (i = 1; i <= k; i++) {
      n = order[i]
      if (w[n " warm"] > 0)
        printf "jobs %s: warm is %.2fx faster than cold\n", n, w[n " cold"] / w[n " warm"]
    }
    for (i = 2; i <= k; i++)
      for (j = 0; j < 2; j++) {
        c = j ? "warm" : "cold"
        if (w[order[i] " " c] > 0)
          printf "%s: jobs %s is %.2fx faster than jobs %s\n", c, order[i],
            w[order[1] " " c] / w[order[i] " " c], order[1]
      }
  }'
echo "databases, logs and caches in $out"
