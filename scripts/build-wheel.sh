#!/usr/bin/env bash
# Builds the Python package's wheel for shipping: the release build of the native library
# without debug info and stripped (the workspace's `[profile.wheel]`), for CPython 3.9 and
# later on one wheel (abi3), tagged manylinux for the glibc it needs (maturin checks the
# library's symbols against the manylinux policies and names the oldest glibc that runs it).
#
#   scripts/build-wheel.sh            # into target/wheels/
#   MATURIN=/venv/bin/maturin scripts/build-wheel.sh
#
# Prints the wheel's path, size and tag; fails if it is larger than WHEEL_MAX_MB (8).
# maturin comes from PATH (or $MATURIN): `pip install maturin`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
maturin=${MATURIN:-maturin}
max_mb=${WHEEL_MAX_MB:-8}
if ! command -v "$maturin" >/dev/null 2>&1; then
  echo "build-wheel: maturin not found (pip install maturin, or set MATURIN)" >&2
  exit 2
fi
out=target/wheels
mkdir -p "$out"
rm -f "$out"/irinorm-*.whl
echo "== maturin build (profile wheel: release, no debug info, stripped; several minutes)"
"$maturin" build -m python/Cargo.toml --profile wheel --locked --out "$out"
wheel=$(ls "$out"/irinorm-*.whl)
bytes=$(stat -c %s "$wheel")
echo "wheel: $wheel"
echo "size: $bytes bytes ($(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }') MiB)"
# The platform tag says which glibc the wheel needs (manylinux_2_N: glibc 2.N or later).
echo "tag: $(basename "$wheel" .whl | cut -d- -f3-)"
if [ "$bytes" -gt $((max_mb * 1048576)) ]; then
  echo "build-wheel: the wheel is larger than $max_mb MiB" >&2
  exit 1
fi
