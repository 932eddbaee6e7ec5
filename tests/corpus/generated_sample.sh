#!/bin/sh
# generated_sample.sh VYRE_CONFORM BACKEND SEED COUNT DB [SIZE]
# A fixed sample of generated programs (generate --seed SEED --count COUNT
# --size SIZE, small by default: the same bytes every time) run on BACKEND
# in every mode, the device's known failures excused by
# ci/expectations/BACKEND.txt; any other failure fails the test. BACKEND
# `check` runs `vyre-conform check` on the sample instead (no device; DB
# unused): the oracle's checks and split-on-oracle, which generate runs
# before it writes a program unless told --no-check. Generated programs
# reach shapes the corpus does not: with seed 7, gen_7_55 is the program
# from which the corpus's control/barrier_then_* were reduced
# (docs/detection.md, "The generated sample"). Run from the checkout's root.
set -eu
bin=$1 backend=$2 seed=$3 count=$4 db=$5 size=${6:-small}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# --no-check: the same bytes; the check is BACKEND check's (corpus_generated_check)
"$bin" generate --seed "$seed" --count "$count" --size "$size" --out "$dir" --no-check >/dev/null
st=0
if [ "$backend" = check ]; then
  "$bin" check --quiet "$dir" || st=$?
else
  "$bin" --backend "$backend" --db "$db" --expectations "ci/expectations/$backend.txt" \
    --progress plain "$dir" || st=$?
fi
if [ "$st" -ne 0 ]; then
  echo "generated sample (seed $seed, $count $size programs) failed on $backend: exit $st" >&2
  echo "reproduce: $bin generate --seed $seed --count $count --size $size --out DIR, then run DIR" >&2
fi
exit "$st"
