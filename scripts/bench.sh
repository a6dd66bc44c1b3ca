#!/usr/bin/env bash
# Runs every benchmark binary under the build tree's bench/ folder; each prints its own figures.
set -euo pipefail
build="${1:?usage: bench.sh BUILD_DIR}"
shopt -s nullglob
ran=0
while IFS= read -r b; do
  echo "== $(basename "$b")"
  "$b"
  ran=1
done < <(find "$build/bench" -type f -name '*_bench' -perm -u+x | sort)
[ "$ran" = 1 ] || { echo "bench: no benchmarks built under $build/bench" >&2; exit 1; }
