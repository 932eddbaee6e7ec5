#!/bin/sh
# Installs the Debian 12 packages vyre-conform needs to build, test and run on
# the CI devices (Mesa lavapipe for Vulkan, PoCL for OpenCL). Installs only what
# is missing. Without root it prints the exact apt-get line and fails.
# --no-install-recommends keeps a machine lean, so what is only recommended
# is named here: libclang-rt-14-dev holds clang's sanitizer and libFuzzer
# runtimes (ci/fuzz), a Recommends of clang-14. nodejs and npm (Debian 12:
# Node 18) run ci/validate-manifests (its packages: ci/validate). git:
# `vyre-conform package` records the checkout's state with it.
set -eu
pkgs="build-essential cmake pkg-config git clang libclang-rt-14-dev \
libvulkan-dev mesa-vulkan-drivers glslang-dev glslang-tools spirv-tools \
ocl-icd-opencl-dev ocl-icd-libopencl1 opencl-headers pocl-opencl-icd clinfo \
libcmocka-dev libsqlite3-dev sqlite3 valgrind chromium \
libxml2-dev libxml2-utils zlib1g-dev python3-yaml shellcheck nodejs npm"
missing=""
for p in $pkgs; do
  # npm ships inside the nodejs of NodeSource, where Debian's npm conflicts
  [ "$p" = npm ] && command -v npm >/dev/null 2>&1 && continue
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && { echo "install-deps: all packages present"; exit 0; }
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages; run as root:" >&2
  echo "  apt-get install -y --no-install-recommends$missing" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing
