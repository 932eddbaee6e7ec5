#!/bin/sh
# A configuration that cannot find the CUDA toolkit (made so with
# CMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit, as on a machine without one)
# leaves vc-backend-cuda.not-built beside the plugins with the reason, and
# not-built.txt naming the plugin and every CUDA test it did not register;
# this build's binary, put in that build tree, lists cuda as not built and
# why, and --backend cuda fails with the reason. Configures only (a few
# seconds): nothing of that tree is compiled.
# usage: not_built_test.sh SOURCE_DIR BUILD_DIR
set -u
src=$1 build=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
has() { grep -qF -- "$2" "$1" || fail "$1 lacks '$2':$(printf '\n'; cat "$1")"; }

nb=$tmp/b
cmake -S "$src" -B "$nb" -DCMAKE_BUILD_TYPE=Release -DVC_TESTS=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON >"$tmp/configure.log" 2>&1 ||
  { cat "$tmp/configure.log"; echo "FAIL: configure without the CUDA toolkit"; exit 1; }
reason="the CUDA toolkit was not found at configure time"
has "$tmp/configure.log" "not built: the cuda backend: $reason"
[ -f "$nb/vc-backend-cuda.not-built" ] || fail "no vc-backend-cuda.not-built beside the plugins"
[ -f "$nb/vc-backend-cuda.not-built" ] && has "$nb/vc-backend-cuda.not-built" "$reason"
has "$nb/not-built.txt" "the cuda backend: $reason"
for t in test_cuda_units test_cuda_plugin test_cuda_fake corpus_nvrtc_ptxas test_native_cuda; do
  has "$nb/not-built.txt" "$t"
done
# every line of not-built.txt that names tests is counted right
total=$(sed -n 's/^\([0-9][0-9]*\) tests\{0,1\} not registered.*/\1/p' "$nb/not-built.txt" |
  awk '{n += $1} END {print n + 0}')
named=$(sed -n 's/^[0-9][0-9]* tests\{0,1\} not registered[^:]*: //p' "$nb/not-built.txt" |
  tr ',' '\n' | grep -c .)
if [ "$total" -ne "$named" ] || [ "$total" -lt 11 ]; then
  fail "not-built.txt counts $total tests and names $named (11 or more expected)"
fi

# The binary of this build, in the tree that has no CUDA plugin.
cp "$build/vyre-conform" "$nb/vyre-conform"
unset VYRE_CONFORM_BACKEND_PATH
"$nb/vyre-conform" backends >"$tmp/backends.out" 2>&1
rc=$?
[ "$rc" -eq 3 ] || fail "backends with no plugin exits $rc, not 3"
has "$tmp/backends.out" "cuda: not built: $reason"
"$nb/vyre-conform" backends --help >"$tmp/help.out" 2>&1
has "$tmp/help.out" "Not built: cuda."
"$nb/vyre-conform" emit --backend cuda --mode native \
  "$src/corpus/algorithms/prefix_scan_two_level.vyre" >"$tmp/emit.out" 2>&1
rc=$?
[ "$rc" -eq 3 ] || fail "emit --backend cuda without the plugin exits $rc, not 3"
has "$tmp/emit.out" "no usable plugin for backend 'cuda': not built: $reason"

# Where the plugin is built there is no record, and backends says nothing of one.
if [ -f "$build/vc-backend-cuda.so" ]; then
  [ ! -e "$build/vc-backend-cuda.not-built" ] || fail "a record of not building beside a built plugin"
  "$build/vyre-conform" backends 2>&1 | grep -q "not built" && fail "backends says not built with every plugin built"
fi
[ "$failures" -eq 0 ] && echo "ok: a build without the CUDA toolkit says so"
exit $((failures != 0))
