#!/bin/sh
# package and verify end to end on a real device (PoCL, or lavapipe): a
# corpus and its expectations committed in a throwaway git checkout, run,
# packaged (--source) and verified (exit 0, the .tar.gz too, sha256sum -c
# passes); then, each on a fresh copy of the package, one tampering that
# verify must call invalid (exit 11) with a line naming it: a byte of the
# database changed; a result row deleted, a program's rows deleted, a result
# row duplicated and an expectations file swapped (SHA256SUMS made to match,
# so that only the deeper checks can tell); a manifest hash edited (with and
# without matching sums); a run made with --inject-flip. A dirty checkout is
# refused (exit 2, the file named, nothing written); --allow-dirty makes a
# package whose statement and records say NOT FOR SUBMISSION and which
# verifies with warnings (exit 12).
# A merged run (two shards) packages and verifies as one run; one shard
# alone does not verify. A run's expectations file that changed since the
# run, or is gone, makes package fail (exit 4) naming it.
# usage: package_test.sh VYRE_CONFORM BACKEND
set -u
vc=$1 backend=$2
command -v sqlite3 >/dev/null || { echo "FAIL: this test needs the sqlite3 shell"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/xdg" POCL_CACHE_DIR="$tmp/pocl" MESA_VK_IGNORE_CONFORMANCE_WARNING=1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
git_() { git -C "$tmp/src" -c user.email=test@example.org -c user.name=test "$@"; }

mkdir -p "$tmp/src/corpus"
for i in 1 2 3; do
  cat >"$tmp/src/corpus/p$i.vyre" <<PROG
(program pkg_p$i
  (doc "out = in + $i across a grid barrier")
  (workgroup 32)
  (grid $i)
  (buffer input u32 $((32 * i)) read (init (random $i)))
  (buffer out u32 $((32 * i)) write)
  (entry
    (let gid (global_id x))
    (var v (add (load input gid) ${i}u))
    (barrier grid)
    (store out gid v)))
PROG
done
printf '# %s: no known failures\n' "$backend" >"$tmp/src/expectations.txt"
git init -q "$tmp/src" && git_ add -A && git_ commit -qm corpus || { echo "FAIL: git"; exit 1; }
cd "$tmp" || exit 1

# run DB [options]: one run of the corpus into DB, its output in DB.txt
run() {
  db=$1
  shift
  "$vc" --backend "$backend" --db "$db" --expectations src/expectations.txt "$@" src/corpus \
    >"$db.txt" 2>&1
}
run q.db || { cat q.db.txt; echo "FAIL: the run exited $?"; exit 1; }
# what the package takes from the run: the variables that change behaviour,
# the expectations file's digest; and the build's settings from --version
env=$(sqlite3 q.db "SELECT environment FROM runs")
echo "$env" | grep -qx "XDG_CACHE_HOME=$tmp/xdg" || fail "runs.environment lacks XDG_CACHE_HOME: $env"
[ "$(sqlite3 q.db "SELECT expectations_sha256 FROM runs")" = "$(sha256sum <src/expectations.txt | cut -c1-64)" ] ||
  fail "runs.expectations_sha256 is not the file's sha256"
"$vc" --version | grep -q "^build type: " || fail "--version names no build type"
"$vc" package -o pkg q.db --source src --log q.db.txt --product "test product" >pack.txt 2>&1 ||
  { cat pack.txt; echo "FAIL: package exited $?"; exit 1; }
for f in results.db manifest.json statement.txt SHA256SUMS logs/q.db.txt expectations/expectations.txt \
         tree/git-status.txt tree/git-log.txt records/qualification.md records/qualification.html \
         records/qualification.xml; do
  [ -f "pkg/$f" ] || fail "the package holds no $f"
done
[ -f pkg.tar.gz ] || fail "no pkg.tar.gz"
[ -e pkg/tree/diff.patch ] && fail "a diff.patch for a clean tree"
(cd pkg && sha256sum -c --quiet SHA256SUMS) || fail "sha256sum -c SHA256SUMS fails"
grep -q '"for_submission": true' pkg/manifest.json || fail "a clean package not for submission"
grep -q '"product": "test product"' pkg/manifest.json || fail "--product is not in the manifest"
grep -q '^Driver: FILL IN$' pkg/statement.txt || fail "the statement's driver is not FILL IN"
grep -q '"XDG_CACHE_HOME": "'"$tmp"'/xdg"' pkg/manifest.json ||
  fail "the run's XDG_CACHE_HOME is not in the manifest"
grep -q "NOT FOR SUBMISSION" pkg/records/qualification.md && fail "a clean package's record says NOT FOR SUBMISSION"
for p in pkg pkg.tar.gz; do
  "$vc" verify "$p" >verify.txt 2>&1
  rc=$?
  [ "$rc" = 0 ] || { fail "verify $p exited $rc, not 0"; cat verify.txt; }
done

# fractions: the corpus run as two shards, merged, packages and verifies as
# one run; the manifest lists the shards' hosts
run s0.db --shard 0/2 && run s1.db --shard 1/2 || { fail "a shard run exited $?"; cat s0.db.txt s1.db.txt; }
"$vc" merge -o merged.db s0.db s1.db >merge.txt 2>&1 || { fail "merge exited $?"; cat merge.txt; }
"$vc" package -o frac merged.db --source src >frac.txt 2>&1 || { fail "package of the merged run exited $?"; cat frac.txt; }
"$vc" verify frac >frac.verify 2>&1 || { fail "verify of the merged run exited $?"; cat frac.verify; }
grep -q '"hosts": \["'"$(sqlite3 s0.db "SELECT host FROM runs")"'"\]' frac/manifest.json ||
  fail "the merged run's hosts are not in the manifest"
grep -q 'merged-shards=2' frac/manifest.json || fail "the merged run is not in the manifest"

# tampered NAME SED-LINE: verify a tampered copy; exit 11 and a line matching SED-LINE
tampered() {
  "$vc" verify "$1" >"$1.verify" 2>&1
  rc=$?
  [ "$rc" = 11 ] || { fail "$1: verify exited $rc, not 11"; cat "$1.verify"; return; }
  grep -q "^invalid: $2" "$1.verify" || { fail "$1: no line 'invalid: $2'"; cat "$1.verify"; }
}
copy() { rm -rf "$1" && cp -r pkg "$1"; }
resum() { (cd "$1" && sha256sum $(awk '{print $2}' SHA256SUMS) >SHA256SUMS.new && mv SHA256SUMS.new SHA256SUMS); }

copy t-byte
size=$(wc -c <t-byte/results.db)
printf 'X' | dd of=t-byte/results.db bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
tampered t-byte "results.db: sha256 "

copy t-deleted
sqlite3 t-deleted/results.db "DELETE FROM results WHERE id = (SELECT r.id FROM results r JOIN programs p
  ON p.id = r.program_id WHERE p.name = 'pkg_p2' AND r.mode = 'host-split')" || fail "sqlite3"
resum t-deleted
tampered t-deleted "results.db: run 1 ($backend): program pkg_p2: mode host-split: repeat 0 has 0 results, not 1 (missing)"

copy t-program
sqlite3 t-program/results.db "DELETE FROM results WHERE program_id = (SELECT id FROM programs WHERE name = 'pkg_p3');
  DELETE FROM programs WHERE name = 'pkg_p3'" || fail "sqlite3"
resum t-program
tampered t-program "results.db: run 1 ($backend): program pkg_p3 of the corpus manifest has no result"

copy t-dup
sqlite3 t-dup/results.db "CREATE TEMP TABLE d AS SELECT * FROM results WHERE id = (SELECT min(id) FROM results);
  UPDATE d SET id = (SELECT max(id) + 1 FROM results), repeat = 1; INSERT INTO results SELECT * FROM d" ||
  fail "sqlite3"
resum t-dup
tampered t-dup "results.db: run 1 ($backend): program pkg_p1: mode native: a result of repeat 1, beyond the run's 1 repeat (duplicated)"

copy t-exps
printf '# another file\n' >t-exps/expectations/expectations.txt
resum t-exps
tampered t-exps "expectations/expectations.txt: sha256 [0-9a-f]*, manifest.json says"
grep -q "^invalid: expectations/expectations.txt: .*(swapped)$" t-exps.verify ||
  fail "the swapped file is not said to differ from the run's"

copy t-manifest
sed -i 's/\("name": "pkg_p1", "path": "[^"]*", "sha256": "\)./\1x/' t-manifest/manifest.json
cmp -s pkg/manifest.json t-manifest/manifest.json && fail "the manifest was not edited"
tampered t-manifest "manifest.json: sha256 "
resum t-manifest
tampered t-manifest "manifest.json: corpus: program pkg_p1: sha256 x"

run flip.db --inject-flip native:out:3
"$vc" package -o t-flip flip.db --source src >flip.pack.txt 2>&1 ||
  { fail "package of the planted run exited $?"; cat flip.pack.txt; }
grep -q "run 1 had planted faults" flip.pack.txt || fail "package does not warn of the planted run"
tampered t-flip "results.db: run 1 ($backend): planted faults (--inject-flip native:out:3"

# a run's expectations file must be there, as it was: changed, then gone
cp src/expectations.txt other.txt
"$vc" --backend "$backend" --db other.db --expectations other.txt src/corpus >other.db.txt 2>&1 ||
  { fail "the run with other.txt exited $?"; cat other.db.txt; }
echo "# edited" >>other.txt
"$vc" package -o t-other other.db --source src >other.txt.out 2>&1
rc=$?
[ "$rc" = 4 ] || fail "package with a changed expectations file exited $rc, not 4"
grep -q "run 1 was judged by other.txt with sha256 [0-9a-f]*; the file is [0-9a-f]* now: it changed since the run" other.txt.out ||
  { fail "the changed file is not named"; cat other.txt.out; }
rm other.txt
"$vc" package -o t-other other.db --source src >other.txt.out 2>&1
rc=$?
[ "$rc" = 4 ] || fail "package without the expectations file exited $rc, not 4"
grep -q "run 1 was judged by other.txt, which cannot be read here" other.txt.out ||
  { fail "the missing file is not named"; cat other.txt.out; }
[ -e t-other ] && fail "a refused package left its folder"

# a shard alone is no whole run
"$vc" package -o t-shard s0.db --source src >/dev/null 2>&1 || fail "package of a shard exited $?"
tampered t-shard "results.db: run 1 ($backend): shard 0/2, not a whole run"

echo change >src/untracked.txt
"$vc" package -o t-dirty q.db --source src >dirty.txt 2>&1
rc=$?
[ "$rc" = 2 ] || fail "package of a dirty tree exited $rc, not 2"
grep -q "uncommitted changes.*?? untracked.txt" dirty.txt || { fail "the dirty file is not named"; cat dirty.txt; }
[ -e t-dirty ] || [ -e t-dirty.tar.gz ] && fail "a refused package left files"

"$vc" package -o nfs q.db --source src --allow-dirty >nfs.txt 2>&1 || { fail "--allow-dirty exited $?"; cat nfs.txt; }
grep -q '"for_submission": false' nfs/manifest.json || fail "--allow-dirty: for_submission is not false"
grep -q "^NOT FOR SUBMISSION" nfs/statement.txt || fail "--allow-dirty: the statement does not say so"
head -1 nfs/records/qualification.md | grep -q "NOT FOR SUBMISSION" || fail "--allow-dirty: the record's headline"
grep -q "<h1>.*NOT FOR SUBMISSION" nfs/records/qualification.html || fail "--allow-dirty: the HTML headline"
grep -q '<testsuites name="\[NOT FOR SUBMISSION\]' nfs/records/qualification.xml || fail "--allow-dirty: the JUnit name"
grep -q "untracked.txt" nfs/tree/git-status.txt || fail "--allow-dirty: git-status.txt lacks the file"
[ -f nfs/tree/diff.patch ] || fail "--allow-dirty: no diff.patch"
"$vc" verify nfs >nfs.verify 2>&1
rc=$?
[ "$rc" = 12 ] || { fail "verify of an --allow-dirty package exited $rc, not 12"; cat nfs.verify; }
grep -q "^warning: manifest.json: NOT FOR SUBMISSION" nfs.verify || { fail "no NOT FOR SUBMISSION warning"; cat nfs.verify; }
grep -q "^invalid" nfs.verify && { fail "an --allow-dirty package has problems"; cat nfs.verify; }

[ "$failures" = 0 ] || exit 1
echo "package: clean, 8 tamperings refused, --allow-dirty marked"
