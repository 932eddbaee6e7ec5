#!/bin/sh
# planted_violations.sh CHECK SRC: ci/check-layers passes a copy of SRC's
# source folders, and fails (exit 1, naming the file, the line and the
# header) on each violation planted into a fresh copy: a base
# file including a header of the command line, a plugin (of a known name or
# a new one) including the harness or another plugin's header, the harness
# including a plugin's header, and a source file directly in harness/.
set -u
check=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

# a copy of SRC's sources (the check also wants every layer's main header)
fresh() {
  rm -rf "$work/tree" && mkdir "$work/tree" &&
    cp -R "$src/harness" "$src/results" "$src/oracles" "$src/backends" "$work/tree/"
}

# expect STATUS TEXT: runs the check on the tree; its status and output.
expect() {
  "$check" "$work/tree" >"$work/out" 2>&1
  rc=$?
  if [ "$rc" -ne "$1" ] || ! grep -qF "$2" "$work/out"; then
    echo "planted_violations: expected exit $1 and \"$2\", got exit $rc:" >&2
    cat "$work/out" >&2
    status=1
  fi
}

fresh
expect 0 " 0 violations"

fresh
printf '#include "harness/base/error.h"\n#include "harness/cli/args.h"\n' >"$work/tree/harness/base/planted.c"
expect 1 "harness/base/planted.c:2: includes harness/cli/args.h (harness/cli is above harness/base)"

fresh
printf '#include "backends/backend.h"\n#include "harness/exec/plugin.h"\n' >"$work/tree/backends/opencl/planted.c"
expect 1 "backends/opencl/planted.c:2: includes harness/exec/plugin.h (a plugin reaches outside"

# a plugin of a new name obeys the same rule: neither the harness nor
# another plugin's folder
fresh
mkdir "$work/tree/backends/metal"
printf '#include "harness/base/error.h"\n#include "backends/metal/mtl_internal.h"\n' >"$work/tree/backends/metal/ok.c"
expect 0 " 0 violations"
printf '#include "harness/run/runner.h"\n' >"$work/tree/backends/metal/planted.c"
expect 1 "backends/metal/planted.c:1: includes harness/run/runner.h (a plugin reaches outside"
printf '#include "backends/opencl/ocl_internal.h"\n' >"$work/tree/backends/metal/planted.c"
expect 1 "backends/metal/planted.c:1: includes backends/opencl/ocl_internal.h (a plugin reaches outside"

fresh
printf '#include "backends/opencl/ocl_internal.h"\n' >"$work/tree/harness/cli/planted.c"
expect 1 "harness/cli/planted.c:1: includes backends/opencl/ocl_internal.h (the harness never includes a plugin's file)"

fresh
printf '#include "harness/base/error.h"\n' >"$work/tree/harness/planted.c"
expect 1 "harness/planted.c: a source file directly in harness/"

[ "$status" -eq 0 ] && echo "planted_violations: every planted violation fails the check"
exit "$status"
