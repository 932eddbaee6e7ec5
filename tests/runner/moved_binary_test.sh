#!/bin/sh
# A binary that moved still knows its expectations: the build's binary and
# plugins copied to another folder (as onto a GPU machine: ci/qualify) find
# ci/expectations/BACKEND.txt of the checkout they are run from, name it at
# the top of the run and record it for report; run from elsewhere they say
# plainly that none was found and where they looked, and the report says the
# run recorded none.
# usage: moved_binary_test.sh SOURCE_DIR BUILD_DIR
set -u
src=$1 build=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
export MESA_VK_IGNORE_CONFORMANCE_WARNING=1 XDG_CACHE_HOME="$tmp/xdg"
mkdir -p "$tmp/moved" "$tmp/checkout/ci/expectations" "$tmp/checkout/corpus" "$tmp/elsewhere"
cp "$build/vyre-conform" "$build/vc-backend-vulkan.so" "$tmp/moved/"
cp "$src/ci/expectations/vulkan.txt" "$tmp/checkout/ci/expectations/"
cp "$src/corpus/semantics/f32_signed_zero.vyre" "$tmp/checkout/corpus/"
bin=$tmp/moved/vyre-conform

cd "$tmp/checkout" || exit 1
"$bin" --backend vulkan --mode host-split --progress plain --db "$tmp/a.db" corpus/ >"$tmp/a.txt" 2>&1
rc=$?
[ "$rc" = 0 ] || { fail "from the checkout: exit $rc, expected 0 (the fold excused)"; sed 's/^/    /' "$tmp/a.txt"; }
sed -n 2p "$tmp/a.txt" | grep -q "^expectations: $tmp/checkout/ci/expectations/vulkan.txt (the project's for this backend, from the checkout in the working directory" ||
  fail "from the checkout, line 2: $(sed -n 2p "$tmp/a.txt")"

cd "$tmp/elsewhere" || exit 1
"$bin" --backend vulkan --mode host-split --progress plain --db "$tmp/b.db" "$tmp/checkout/corpus/" \
  >"$tmp/b.txt" 2>&1
rc=$?
[ "$rc" = 1 ] || { fail "from elsewhere: exit $rc, expected 1 (nothing excuses the fold)"; sed 's/^/    /' "$tmp/b.txt"; }
sed -n 2p "$tmp/b.txt" | grep -q "^expectations: none found for vulkan (looked for ci/expectations/vulkan.txt, $tmp/moved/../share/vyre-conform/expectations/vulkan.txt, .*): every failure is new" ||
  fail "from elsewhere, line 2: $(sed -n 2p "$tmp/b.txt")"

# report judges by what each run recorded, wherever it is run
"$bin" report "$tmp/a.db" --md "$tmp/a.md" && "$bin" report "$tmp/b.db" --md "$tmp/b.md" ||
  fail "report failed"
grep -q "$tmp/checkout/ci/expectations/vulkan.txt ([0-9]* entries, as the run recorded it)" "$tmp/a.md" ||
  fail "the report of the checkout's run does not name its file"
head -1 "$tmp/a.md" | grep -q "^# PASS WITH KNOWN ISSUES" || fail "a.md: $(head -1 "$tmp/a.md")"
grep -q "none, as the run recorded it: every failure is new" "$tmp/b.md" ||
  fail "the report of the run from elsewhere does not say it recorded none"
head -1 "$tmp/b.md" | grep -q "^# FAIL" || fail "b.md: $(head -1 "$tmp/b.md")"
[ "$failures" = 0 ] && echo "moved binary: all checks passed"
[ "$failures" = 0 ]
