#!/bin/sh
# ci/qualify --package on PoCL, from a throwaway checkout that holds the
# script, its expectations and a small corpus: the package of the run is
# written beside the records with the run's output as its log, the listing
# and the expectations file, and verifies (exit 0, "package: exit 0"). A
# checkout with an uncommitted file is refused (exit 2, nothing packaged);
# with --allow-dirty the package is made, NOT FOR SUBMISSION, and the exit
# status is 12 (valid with warnings).
# usage: qualify_package_test.sh SOURCE_DIR BUILD_DIR
set -u
src=$1 build=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
repo=$tmp/repo
mkdir -p "$repo/ci/expectations" "$repo/corpus"
cp "$src/ci/qualify" "$repo/ci/qualify"
cp "$src/ci/expectations/opencl.txt" "$repo/ci/expectations/opencl.txt"
cat >"$repo/corpus/b.vyre" <<'P'
(program b_plain (workgroup 4) (grid 2)
  (buffer o u32 8 write)
  (entry (store o (global_id x) (mul (global_id x) 3u))))
P
git init -q "$repo" &&
  git -C "$repo" add -A &&
  git -C "$repo" -c user.email=test@example.org -c user.name=test commit -qm qualify ||
  { echo "FAIL: git"; exit 1; }
export POCL_KERNEL_CACHE=0 XDG_CACHE_HOME="$tmp/xdg" POCL_CACHE_DIR="$tmp/pocl"
cd "$repo" || exit 1

sh ci/qualify --package --product "PoCL test" --crossover-args "--barriers 1 --live 4K --runs 1 --budget 0.1" --litmus-args "--launches 1 --workgroup 16 --testing-groups 4 --stress-groups 1 --stress-iters 4 --scratch 64 --progress-trials 2 --over-trials 1 --progress-groups 64" "$build" "$tmp/out" opencl >"$tmp/clean.txt" 2>&1
rc=$?
[ "$rc" = 0 ] || { fail "ci/qualify --package exited $rc, not 0"; cat "$tmp/clean.txt"; }
grep -qx "package: exit 0" "$tmp/clean.txt" || { fail "no 'package: exit 0'"; cat "$tmp/clean.txt"; }
grep -q "^verify: .*package.tar.gz: valid$" "$tmp/clean.txt" || fail "the tarball was not verified"
for f in logs/run-opencl.txt logs/crossover-opencl.txt backends.txt expectations/opencl.txt \
         records/qualification.md; do
  [ -s "$tmp/out/package/$f" ] || fail "the package holds no $f"
done
grep -q '"product": "PoCL test"' "$tmp/out/package/manifest.json" || fail "--product not passed on"
"$build/vyre-conform" verify "$tmp/out/package" >/dev/null || fail "the package folder does not verify"

echo change >dirty.txt
sh ci/qualify --package --no-litmus --no-crossover "$build" "$tmp/out2" opencl >"$tmp/dirty.txt" 2>&1
rc=$?
[ "$rc" = 2 ] || { fail "a dirty checkout: exit $rc, not 2"; cat "$tmp/dirty.txt"; }
grep -q "uncommitted changes.*dirty.txt" "$tmp/dirty.txt" || fail "the dirty file is not named"
[ -e "$tmp/out2/package" ] && fail "a package of a dirty checkout was written"

sh ci/qualify --package --allow-dirty --no-litmus --no-crossover "$build" "$tmp/out3" opencl >"$tmp/nfs.txt" 2>&1
rc=$?
[ "$rc" = 12 ] || { fail "--allow-dirty: exit $rc, not 12"; cat "$tmp/nfs.txt"; }
grep -q '"for_submission": false' "$tmp/out3/package/manifest.json" || fail "--allow-dirty not passed on"

[ "$failures" = 0 ] || exit 1
echo "ci/qualify --package: packaged, verified, dirty refused"
