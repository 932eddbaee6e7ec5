#!/bin/sh
# `vyre-conform verdict` read back from a results file gives the exit
# status of the real PoCL run that wrote it: a pass, a failure (a program
# past its own timeout), an expected failure, nothing run, an invalid
# program, an expired expectation; an unfinished run and a run with planted
# faults are no pass.
# usage: verdict_pocl_test.sh VYRE_CONFORM
set -u
vc=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
failures=0
cat >plain.vyre <<'P'
(program plain (workgroup 4) (grid 2)
  (buffer o u32 8 write)
  (entry (store o (global_id x) (mul (global_id x) 3u))))
P
# 256 invocations of 16M steps each: far past its one-second timeout
cat >spins.vyre <<'P'
(program spins (workgroup 64) (grid 4)
  (buffer params u32 1 read (init (values 16000000)))
  (buffer o u32 256 write)
  (expect (timeout 1))
  (entry
    (var x 1u)
    (loop i 0u (load params 0u) (set x (add (mul x 1664525u) 1013904223u)))
    (store o (global_id x) x)))
P
printf '(program broken (grid 1)\n' >broken.vyre
printf 'fail spins * reason="spins past its timeout"\n' >expected.txt
printf 'skip plain * reason="not here"\n' >skip.txt
printf 'fail spins * expires=2020-01-01 reason="old"\n' >expired.txt

same() { # same WHAT DB EXPECTED-RUN-STATUS: the run's status, and the file's verdict
  "$vc" verdict "$2" >verdict.log 2>&1
  v=$?
  if [ "$v" = "$3" ]; then echo "ok: $1: the run and its file's verdict both exit $v"; else
    echo "FAIL: $1: the run exited $3, its verdict $v"; sed 's/^/    /' verdict.log
    failures=$((failures + 1))
  fi
}
run() { # run DB ARGS...: the run's exit status in $rs
  db=$1; shift
  "$vc" --backend opencl --mode native --db "$db" "$@" >run.log 2>&1
  rs=$?
}
run pass.db --expectations none plain.vyre
[ "$rs" = 0 ] || { echo "FAIL: the plain run exited $rs"; cat run.log; failures=$((failures + 1)); }
same "a pass" pass.db "$rs"
run fail.db --expectations none plain.vyre spins.vyre
[ "$rs" = 1 ] || { echo "FAIL: the timed-out run exited $rs"; cat run.log; failures=$((failures + 1)); }
same "a failure" fail.db "$rs"
run known.db --expectations expected.txt plain.vyre spins.vyre
[ "$rs" = 0 ] || { echo "FAIL: the expected failure exited $rs"; cat run.log; failures=$((failures + 1)); }
same "an expected failure" known.db "$rs"
run none.db --expectations skip.txt plain.vyre
[ "$rs" = 9 ] || { echo "FAIL: the skipped run exited $rs"; cat run.log; failures=$((failures + 1)); }
same "nothing ran" none.db "$rs"
run invalid.db --expectations none plain.vyre broken.vyre
[ "$rs" = 4 ] || { echo "FAIL: the invalid run exited $rs"; cat run.log; failures=$((failures + 1)); }
same "an invalid program" invalid.db "$rs"
run expired.db --expectations expired.txt plain.vyre spins.vyre
[ "$rs" = 6 ] || { echo "FAIL: the expired run exited $rs"; cat run.log; failures=$((failures + 1)); }
same "an expired expectation" expired.db "$rs"

# --expectations judges by another file, as report and compare do
"$vc" verdict fail.db --expectations expected.txt >verdict.log 2>&1
v=$?
if [ "$v" = 0 ]; then echo "ok: --expectations excuses the failure"; else
  echo "FAIL: --expectations: $v"; cat verdict.log; failures=$((failures + 1)); fi
# an unfinished run is no pass
sqlite3 pass.db "UPDATE runs SET status = 'interrupted'"
"$vc" verdict pass.db:1 >verdict.log 2>&1
v=$?
if [ "$v" = 1 ] && grep -q "the run is interrupted: not every program ran" verdict.log; then
  echo "ok: an interrupted run fails its verdict"
else echo "FAIL: an interrupted run: $v"; cat verdict.log; failures=$((failures + 1)); fi
# planted faults: the run fails (1); its file qualifies nothing (10, as compare)
run flip.db --expectations none --inject-flip native:o:1 plain.vyre
"$vc" verdict flip.db >verdict.log 2>&1
v=$?
if [ "$rs" = 1 ] && [ "$v" = 10 ] && grep -q "planted faults (--inject-flip native:o:1" verdict.log; then
  echo "ok: a planted flip: the run exits 1, its verdict 10"
else echo "FAIL: a planted flip: run $rs, verdict $v"; cat verdict.log; failures=$((failures + 1)); fi
"$vc" verdict nowhere.db >verdict.log 2>&1
v=$?
if [ "$v" = 5 ] && grep -q "nowhere.db" verdict.log; then echo "ok: a missing file exits 5, named"; else
  echo "FAIL: a missing file: $v"; cat verdict.log; failures=$((failures + 1)); fi

[ "$failures" = 0 ] && echo "all passed" || echo "$failures failed"
[ "$failures" = 0 ]
