#!/bin/sh
# ci/nightly promotes only a candidate that passed the gate, completed, and
# has at least the baseline's cells (program x mode). The runner is the
# stand-in of the results tests, wrapped to leave a run unfinished or short.
# usage: nightly_promote_test.sh SOURCE_DIR FAKE_VYRE_CONFORM
set -u
src=$1 fake=$2
command -v sqlite3 >/dev/null || { echo "FAIL: this test needs the sqlite3 shell"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
# The wrapper runs the stand-in, then spoils its results as WRAP asks.
cat >"$tmp/bin" <<WRAP
#!/bin/sh
"$fake" "\$@" || exit \$?
db=""
while [ \$# -gt 0 ]; do [ "\$1" = --db ] && db=\$2; shift; done
[ -n "\$db" ] || exit 0
case "\${WRAP:-}" in
  unfinished) sqlite3 "\$db" "UPDATE runs SET status = 'failed'" ;;
  fewer) sqlite3 "\$db" "DELETE FROM results WHERE program_id IN
    (SELECT id FROM programs WHERE name = 'p5')" ;;
esac
WRAP
chmod +x "$tmp/bin"
nightly() { sh "$src/ci/nightly" --bin "$tmp/bin" "$@" >"$tmp/log" 2>&1; }
check() { # check WHAT EXPECTED-STATUS ACTUAL-STATUS
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1: exit $3, expected $2"; sed 's/^/    /' "$tmp/log"; failures=$((failures + 1))
  else
    echo "ok: $1 (exit $3)"
  fi
}
absent() { # absent WHAT FILE
  if [ ! -e "$2" ]; then echo "ok: $1"; else echo "FAIL: $1: $2 exists"; failures=$((failures + 1)); fi
  rm -f "$2"
}
mkdir -p "$tmp/corpus"

nightly --backend vulkan --out "$tmp/base" "$tmp/corpus"
check "the baseline run" 0 $?
base="$tmp/base/vulkan.db"

# Cells the candidate lacks fail the gate itself (compare's MISSING) ...
WRAP=fewer nightly --backend vulkan --out "$tmp/c1" --baseline "$base" --promote "$tmp/next.db"
check "a candidate with fewer cells fails the gate" 1 $?
grep -q "summary: 3 missing" "$tmp/log" &&
  echo "ok: the gate names the missing cells" || { echo "FAIL: no missing cells"; cat "$tmp/log"; failures=$((failures + 1)); }
absent "nothing was promoted (fewer cells)" "$tmp/next.db"

# ... and where a skip entry lets the gate pass without them, the promotion
# still refuses a baseline that would check less.
printf 'skip p5 * reason="not run here"\n' >"$tmp/skip.txt"
WRAP=fewer nightly --backend vulkan --out "$tmp/c1s" --baseline "$base" --expectations "$tmp/skip.txt" \
  --promote "$tmp/next.db"
check "a candidate with fewer cells is not promoted" 1 $?
grep -q "the candidate has 15 cells (program x mode), the baseline 18" "$tmp/log" &&
  echo "ok: the refusal names both counts" || { echo "FAIL: no cell counts"; cat "$tmp/log"; failures=$((failures + 1)); }
absent "nothing was promoted (fewer cells, skipped)" "$tmp/next.db"

WRAP=unfinished nightly --backend vulkan --out "$tmp/c2" --baseline "$base" --promote "$tmp/next.db"
check "an unfinished candidate is not promoted" 1 $?
grep -q "candidate run 1 is failed, not complete" "$tmp/log" &&
  echo "ok: the refusal names the run's status" || { echo "FAIL: no status"; cat "$tmp/log"; failures=$((failures + 1)); }
absent "nothing was promoted (unfinished)" "$tmp/next.db"

FAKE_SCENARIO=regress nightly --backend vulkan --out "$tmp/c3" --baseline "$base" --promote "$tmp/next.db"
check "a failed gate" 1 $?
absent "nothing was promoted (failed gate)" "$tmp/next.db"

nightly --backend vulkan --out "$tmp/c4" --baseline "$base" --promote "$tmp/next.db"
check "a complete candidate with every cell" 0 $?
if [ -e "$tmp/next.db" ]; then echo "ok: it was promoted"; else
  echo "FAIL: a good candidate was not promoted"; failures=$((failures + 1)); fi

[ "$failures" = 0 ] && echo "all passed" || echo "$failures failed"
[ "$failures" = 0 ]
