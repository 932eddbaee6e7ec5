#!/bin/sh
# The reports of a real run on PoCL with a planted flip: the title says the
# run had planted faults, the failure's section shows the program's source
# and doc (read from its recorded path, the digest matching), the flipped
# element as typed f32 values, the reproduction command; the JUnit file
# validates against the xUnit schema.
# usage: report_pocl_test.sh VYRE_CONFORM SOURCE_DIR
set -u
vc=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$vc" --backend opencl --db "$tmp/r.db" --expectations none --mode host-split \
  --inject-flip host-split:add_ab:3 --filter f32_signed_zero "$src/corpus/" >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || { cat "$tmp/out"; fail "the run with a planted flip exited $rc, not 1"; }
"$vc" report "$tmp/r.db" --html "$tmp/r.html" --md "$tmp/r.md" --junit "$tmp/r.xml" \
  || fail "report failed"
has() { grep -qF -- "$2" "$1" || fail "$(basename "$1") lacks: $2"; }
has "$tmp/r.html" '<title>[PLANTED FAULTS: NOT A QUALIFICATION] FAIL: opencl on'
has "$tmp/r.html" '--inject-flip host-split:add_ab:3'
has "$tmp/r.html" '<details><summary>source</summary><pre>; Sixteen invocations'
has "$tmp/r.html" '<p>Signed zeros: the sign of a zero result'
has "$tmp/r.html" 'Buffer <b>add_ab</b> (f32): 1 element differs, first at 3'
# -0 + -0 = -0, its low bit flipped: the smallest negative denormal
has "$tmp/r.html" '<tr class="bad"><td>3 &#x2260;</td><td>-0</td><td>-1.40129846e-45 (denormal)</td><td>0x80000000</td><td>0x80000001</td></tr>'
has "$tmp/r.html" "vyre-conform --backend opencl --mode host-split --expectations none --db repro.db $src/corpus/semantics/f32_signed_zero.vyre"
has "$tmp/r.md" '# [PLANTED FAULTS: NOT A QUALIFICATION] FAIL'
# shellcheck disable=SC2016 # backticks of Markdown, not a command
has "$tmp/r.md" '### `f32_signed_zero` host-split opencl: NEW FAILURE, diverge'
xmllint --noout --nonet --schema "$src/tests/results/data/junit-10.xsd" "$tmp/r.xml" \
  || fail "the JUnit file does not validate"
has "$tmp/r.xml" '<failure type="diverge"'
echo "ok: the planted flip reported as such, with source, typed values and valid JUnit"
