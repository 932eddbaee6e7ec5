#!/bin/sh
# One judge (docs/gating.md): run, report, compare, export and ci/nightly
# give the same verdict on the same facts, lavapipe's known signed-zero fold
# in f32_signed_zero (docs/device-facts.md), judged by an expectations file
# that excuses it, by one whose entry has expired, by none, and by the
# project's default. report, compare and export are given no
# --expectations: they judge by the file the run recorded, unless its bytes
# changed since the run. The exit
# statuses follow the one precedence (expired 6 before fail 1).
# usage: one_judge_test.sh SOURCE_DIR BUILD_DIR
set -u
src=$1 build=$2
bin=$build/vyre-conform
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
export MESA_VK_IGNORE_CONFORMANCE_WARNING=1 XDG_CACHE_HOME="$tmp/xdg"
cd "$tmp" || exit 1
mkdir corpus
cp "$src/corpus/semantics/f32_signed_zero.vyre" corpus/
printf 'program,mode,status,duration_ms\n' >empty.csv # a baseline where all passed
scope='f32_signed_zero * buffer=add_a_zero class=f32-signed-zero backend=vulkan'
printf 'fail %s expires=2999-12-31 reason="the fold"\n' "$scope" >known.txt
printf 'fail %s expires=2020-01-01 reason="the fold"\n' "$scope" >expired.txt

# judge NAME EXPECTATIONS VERDICT STATUS: every command on the same facts
judge() {
  name=$1 exps=$2 verdict=$3 want=$4
  set --
  [ "$exps" = default ] || set -- --expectations "$exps"
  "$bin" --backend vulkan --mode host-split --progress plain --db "$name.db" "$@" corpus/ \
    >"$name.run.txt" 2>&1
  rc=$?
  [ "$rc" = "$want" ] || { fail "$name: run exits $rc, expected $want"; sed 's/^/    /' "$name.run.txt"; }
  grep -q '^vyre-conform: run 1,' "$name.run.txt" || fail "$name: the run recorded nothing"
  "$bin" report "$name.db" --md "$name.md" 2>"$name.report.err" ||
    fail "$name: report failed: $(cat "$name.report.err")"
  head -1 "$name.md" | grep -q "^# $verdict &mdash;" ||
    fail "$name: report says '$(head -1 "$name.md")', expected $verdict"
  "$bin" compare empty.csv "$name.db" >"$name.compare.txt" 2>&1
  rc=$?
  [ "$rc" = "$want" ] || { fail "$name: compare exits $rc, expected $want"; sed 's/^/    /' "$name.compare.txt"; }
  "$bin" export "$name.db" --failures "$name.csv" 2>"$name.export.err" ||
    fail "$name: export failed: $(cat "$name.export.err")"
  grep -q ": $verdict (" "$name.export.err" ||
    fail "$name: export says '$(cat "$name.export.err")', expected $verdict"
  sh "$src/ci/nightly" --bin "$bin" --backend vulkan --mode host-split --baseline empty.csv \
    --out "$name.nightly" "$@" corpus/ >"$name.nightly.txt" 2>&1
  rc=$?
  [ "$rc" = "$want" ] || { fail "$name: ci/nightly exits $rc, expected $want"; sed 's/^/    /' "$name.nightly.txt"; }
  head -1 "$name.nightly/summary.md" 2>/dev/null | grep -q "^# $verdict &mdash;" ||
    fail "$name: ci/nightly's summary.md says '$(head -1 "$name.nightly/summary.md" 2>/dev/null)', expected $verdict"
  grep -q "name=\"verdict\" value=\"$verdict\"" "$name.nightly/junit.xml" 2>/dev/null ||
    fail "$name: ci/nightly's junit.xml has no verdict $verdict"
  echo "$name: $verdict, exit $want"
}

judge known known.txt "PASS WITH KNOWN ISSUES" 0
judge expired expired.txt FAIL 6
judge none none FAIL 1
# the project's file, found from the source tree (this folder is no checkout)
judge default default "PASS WITH KNOWN ISSUES" 0

# each command names the file it judges by
grep -q "^expectations: known.txt$" known.run.txt || fail "the run does not name known.txt first"
grep -q "^expectations: known.txt (1 entry, as the run recorded it)$" known.compare.txt ||
  fail "compare does not name the recorded file: $(sed -n 3p known.compare.txt)"
grep -q "known.txt (1 entry, as the run recorded it)" known.md || fail "report does not name known.txt"
grep -q "^expectations: $src/ci/expectations/vulkan.txt (the project's" default.run.txt ||
  fail "the default run does not name the project's file"
grep -q "^expectations: none (--expectations none)" none.run.txt || fail "the run does not say none"
# a file given to compare or report is used for both sides instead
"$bin" compare empty.csv none.db --expectations known.txt >given.txt 2>&1 ||
  fail "compare --expectations known.txt of the run judged without: exit $?"
grep -q "^expectations: known.txt (1 entry, given)$" given.txt || fail "compare does not say given"
"$bin" report known.db --expectations none --md given.md 2>/dev/null
head -1 given.md | grep -q "^# FAIL" || fail "report --expectations none does not fail"
# the recorded file changed since the run: not what it judged by, so no
# command excuses by it; given explicitly, it judges as it is now
printf '# edited after the run\n' >>known.txt
"$bin" report known.db --md changed.md 2>/dev/null
head -1 changed.md | grep -q "^# FAIL" || fail "report judges by a changed recorded file: $(head -1 changed.md)"
grep -q "known.txt, recorded by the run, has changed since (sha256 [0-9a-f]\{12\} then, [0-9a-f]\{12\} now)" changed.md ||
  fail "report does not say the recorded file changed"
"$bin" compare empty.csv known.db >changed.compare.txt 2>&1
rc=$?
[ "$rc" = 1 ] || { fail "compare by a changed recorded file: exit $rc, expected 1"; sed 's/^/    /' changed.compare.txt; }
"$bin" report known.db --expectations known.txt --md changed-given.md 2>/dev/null
head -1 changed-given.md | grep -q "^# PASS WITH KNOWN ISSUES" ||
  fail "report --expectations of the changed file: $(head -1 changed-given.md)"
[ "$failures" = 0 ] && echo "one judge: all checks passed"
[ "$failures" = 0 ]
