#!/bin/sh
# mutants_usage.sh SRC BUILD: ci/mutants refuses what --named cannot do
# (status 2, a message naming it), and `vyre-conform mutants --killers`
# gives each fault of the catalogue its killers. No device runs.
set -u
src=$1 build=$2
fail=0
expect_usage() { # WHAT-THE-MESSAGE-SAYS ARGS...
  want=$1
  shift
  out=$(sh "$src/ci/mutants" "$@" 2>&1)
  rc=$?
  if [ "$rc" != 2 ] || ! echo "$out" | grep -q -- "$want"; then
    echo "FAIL: ci/mutants $*: status $rc, output: $out"
    fail=1
  fi
}
expect_usage "does not apply" "$build" --named --filter 'semantics/*'
expect_usage "does not apply" "$build" --named --first
expect_usage "unknown option '--bogus'" "$build" --named --bogus
expect_usage "usage:" "$build" --named --device-options
expect_usage "usage:" "$build" --named --only
expect_usage "does not apply" "$build" --named --corpus "$src/corpus"
expect_usage "is not a folder" "$build" --corpus "$src/corpus/no-such-folder"
expect_usage "usage:" "$build" --corpus

list=$("$build/vyre-conform" mutants --killers) || { echo "FAIL: mutants --killers exits $?"; fail=1; }
n=$("$build/vyre-conform" mutants | wc -l)
k=$(echo "$list" | awk -F '\t' 'NF == 2 && $2 != ""' | wc -l)
if [ "$n" = 0 ] || [ "$n" != "$k" ]; then echo "FAIL: $n faults, $k with killers"; fail=1; fi
"$build/vyre-conform" mutants --bogus >/dev/null 2>&1
rc=$?
[ "$rc" = 2 ] || { echo "FAIL: mutants --bogus exits $rc, not 2"; fail=1; }
[ "$fail" = 0 ] && echo "ci/mutants usage and mutants --killers: ok"
exit "$fail"
