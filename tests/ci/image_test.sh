#!/bin/sh
# The image (Containerfile, ci/image) builds and its binary runs: --version
# names the commit and `backends` lists the plugins. Needs podman or buildah
# that can run here (with buildah, podman runs the image); exits 77 (skipped)
# where neither does. VC_IMAGE_BASE names another Debian 12 base image.
# usage: image_test.sh SOURCE_DIR
set -u
src=$1
runs() { command -v "$1" >/dev/null 2>&1 && "$1" info >/dev/null 2>&1; }
if ! runs podman && ! runs buildah; then
  echo "not run: no podman or buildah"
  exit 77
fi
runner=podman
runs podman || { echo "not run: buildah builds, but no podman to run the image"; exit 77; }
tool=podman
runs podman || tool=buildah
# Without a registry (an offline machine) the base cannot be had: that is
# not run, and says so, rather than a failure of the Containerfile.
base=${VC_IMAGE_BASE:-$(sed -n 's/^ARG BASE=//p' "$src/Containerfile")}
if ! $runner image exists "$base" 2>/dev/null && ! err=$($runner pull -q "$base" 2>&1); then
  echo "not run: the base image $base cannot be pulled: $(printf '%s\n' "$err" | tail -1)"
  exit 77
fi
set -- --tool "$tool" --name localhost/vyre-conform-test --tag "test-$$"
[ -n "${VC_IMAGE_BASE:-}" ] && set -- "$@" --base "$VC_IMAGE_BASE"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
"$src/ci/image" "$@" >"${TMPDIR:-/tmp}/vc-image-$$.log" 2>&1
rc=$?
img=$(tail -1 "${TMPDIR:-/tmp}/vc-image-$$.log")
if [ "$rc" != 0 ]; then
  echo "FAIL: ci/image exit $rc"; tail -30 "${TMPDIR:-/tmp}/vc-image-$$.log"
  rm -f "${TMPDIR:-/tmp}/vc-image-$$.log"
  exit 1
fi
rm -f "${TMPDIR:-/tmp}/vc-image-$$.log"
trap '$runner rmi "$img" >/dev/null 2>&1' EXIT
[ "$img" = "localhost/vyre-conform-test:test-$$" ] || fail "ci/image printed '$img', not the image"
v=$($runner run --rm "$img" vyre-conform --version 2>&1)
echo "$v"
echo "$v" | grep -q "vyre-conform" || fail "--version: $v"
echo "$v" | grep -q "unknown" && fail "--version does not name the commit: $v"
b=$($runner run --rm "$img" vyre-conform backends 2>&1)
echo "$b"
echo "$b" | grep -q "vulkan" || fail "backends does not list vulkan"
echo "$b" | grep -q "opencl" || fail "backends does not list opencl"
u=$($runner run --rm "$img" id -u)
[ "$u" = 10001 ] || fail "the image runs as uid $u, not 10001"
[ "$failures" = 0 ] && echo "image: all checks passed"
[ "$failures" = 0 ]
