#!/bin/sh
# bench/throughput.sh prints no ratio from a failed run: a run that exits
# non-zero (a backend that does not exist: status 3) or records no program
# ends it with the command and its status, exit 1. A fake vyre-conform
# (FAKE_RC, FAKE_PROGRAMS) shows each case alone, and that a good run still
# gets its ratios.
# usage: throughput_test.sh SOURCE_DIR VYRE_CONFORM
set -u
src=$1 exe=$2
t=$(mktemp -d "${TMPDIR:-/tmp}/vc-throughput-test.XXXXXX")
trap 'rm -rf "$t"' EXIT
cd "$src" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# bench/throughput.sh ARGS..., its output in $t/out, its status in $rc
bench() {
  sh bench/throughput.sh "$@" >"$t/out" 2>&1
  rc=$?
}
no_ratio() {
  if grep -q 'x faster' "$t/out"; then fail "$1: printed a ratio"; cat "$t/out"; fi
}

# 1. the real program, a backend that does not exist: status 3
bench --build "$(dirname "$exe")" --backend no_such_backend --jobs "1 2" --out "$t/r1" \
  corpus/control
[ "$rc" != 0 ] || fail "no such backend: exit status 0"
grep -q 'run failed (exit status 3, 0 programs recorded)' "$t/out" ||
  { fail "no such backend: the failed command is not named"; cat "$t/out"; }
grep -q -- '--backend no_such_backend' "$t/out" || fail "no such backend: no command line"
no_ratio "no such backend"

# a fake build folder: its vyre-conform writes a results file of
# FAKE_PROGRAMS programs and exits FAKE_RC
mkdir -p "$t/fake"
cat >"$t/fake/vyre-conform" <<'FAKE'
#!/bin/sh
[ "$1" = run ] && { echo '  --jobs N  fake'; exit 0; }
db=
while [ $# -gt 0 ]; do [ "$1" = --db ] && db=$2; shift; done
sql="CREATE TABLE programs (id INTEGER); CREATE TABLE results (device_ns, compile_ns, cache_hits);"
i=0
while [ "$i" -lt "${FAKE_PROGRAMS:-1}" ]; do
  sql="$sql INSERT INTO programs VALUES ($i); INSERT INTO results VALUES (1000, 1000, 0);"
  i=$((i + 1))
done
if command -v sqlite3 >/dev/null; then
  sqlite3 "$db" "$sql"
else
  python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()' "$db" "$sql"
fi
exit "${FAKE_RC:-0}"
FAKE
chmod +x "$t/fake/vyre-conform"

# 2. a run that records programs but exits 1
FAKE_RC=1 bench --build "$t/fake" --jobs "1 2" --out "$t/r2" corpus/control
[ "$rc" = 1 ] || fail "exit 1: the script exited $rc"
grep -q 'run failed (exit status 1, 1 programs recorded)' "$t/out" ||
  { fail "exit 1: not named"; cat "$t/out"; }
no_ratio "exit 1"

# 3. a run that exits 0 and records nothing
FAKE_PROGRAMS=0 bench --build "$t/fake" --jobs "1 2" --out "$t/r3" corpus/control
[ "$rc" = 1 ] || fail "0 programs: the script exited $rc"
grep -q 'run failed (exit status 0, 0 programs recorded)' "$t/out" ||
  { fail "0 programs: not named"; cat "$t/out"; }
no_ratio "0 programs"

# 4. runs that pass: every ratio, exit 0
bench --build "$t/fake" --jobs "1 2" --out "$t/r4" corpus/control
[ "$rc" = 0 ] || { fail "good runs: the script exited $rc"; cat "$t/out"; }
grep -q 'jobs 1: warm is .*x faster than cold' "$t/out" || { fail "good runs: no warm ratio"; cat "$t/out"; }
grep -q 'cold: jobs 2 is .*x faster than jobs 1' "$t/out" || { fail "good runs: no jobs ratio"; cat "$t/out"; }

[ "$fails" = 0 ] && echo "throughput_test: all passed"
[ "$fails" = 0 ]
