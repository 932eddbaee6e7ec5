#!/bin/sh
# compile_and_validate.sh VYRE_CONFORM BACKEND TOOL [TOOL ARGS...]
# Compiles every kernel of the corpus without a device (cuda: PTX through
# NVRTC; vulkan: SPIR-V through glslang) and runs TOOL on each file: ptxas
# or spirv-val. Fails on any compile error or any complaint of the tool.
set -eu
vc=$1 backend=$2
shift 2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$vc" compile --backend "$backend" --out-dir "$out" corpus/ > "$out/compile.log" ||
  { cat "$out/compile.log"; exit 1; }
tail -1 "$out/compile.log"
n=0
for f in "$out"/*.ptx "$out"/*.spv; do
  [ -e "$f" ] || continue
  case $f in
  *.ptx) "$@" "$f" -o "$out/last.cubin" ;;
  *) "$@" "$f" ;;
  esac || { echo "FAIL: $* $f"; exit 1; }
  n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "no kernels were written"; exit 1; }
echo "$n modules checked by $1"
