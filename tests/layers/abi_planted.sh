#!/bin/sh
# ci/check-abi on a copy of the ABI's files: a comment or a new function
# leaves it passing; a new field without a bump fails it; a bump without a
# new record fails it; the new record passes it.
set -eu
check=$1 root=$2
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/backends" "$t/harness/model" "$t/ci"
cp "$root/backends/backend.h" "$t/backends/"
cp "$root/harness/model/program.h" "$t/harness/model/"
cp "$root/ci/abi.txt" "$t/ci/"
expect() {
  want=$1 what=$2
  set +e
  out=$("$check" "$t" 2>&1)
  got=$?
  set -e
  [ "$got" = "$want" ] || { echo "FAIL: $what: exit $got, want $want: $out"; exit 1; }
  echo "ok: $what: $out"
}
expect 0 "as it is"
sed -i '1s|^|/* a comment */\n|' "$t/harness/model/program.h"
expect 0 "a comment"
printf 'int vc_new_function(const vc_program *p);\n' >> "$t/harness/model/program.h"
expect 0 "a function declared"
sed -i 's/^typedef struct vc_loc {/typedef struct vc_loc {\n  uint32_t planted;/' "$t/harness/model/program.h"
grep -q 'uint32_t planted;' "$t/harness/model/program.h"
expect 1 "a field without a bump"
"$check" "$t" | grep -q 'bump it'
sed -i 's/^#define VC_BACKEND_ABI_VERSION \([0-9]*\)u/#define VC_BACKEND_ABI_VERSION 99\1u/' "$t/backends/backend.h"
expect 1 "a bump without the record"
"$check" "$t" | grep -q 'record'
"$check" --print "$t" > "$t/ci/abi.txt"
expect 0 "the bump recorded"
