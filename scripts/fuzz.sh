#!/usr/bin/env bash
# Runs libFuzzer targets of a `fuzz` preset build tree one after the other and prints one line of
# figures per target (docs/security.md, "Fuzzing"). Used by `make sanitize-test` for the short
# run of every target in CI and by hand for the long runs.
#
#   scripts/fuzz.sh BUILD_DIR (-runs=N | -max_total_time=S) [TARGET...]
#
# TARGET is a name under tests/fuzz/corpus (json, yaml, ...); none = every target. Seeds come
# from tests/fuzz/corpus/<name>; new inputs go to a scratch directory (FUZZ_WORK_DIR, default a
# temporary one) that is left for inspection, never to the repository. A crash, leak, timeout or
# broken property stops the script with exit status 1 after printing the reproducer's path.
# FUZZ_FLAGS adds libFuzzer options; the long runs use "-entropic=0" with
# ASAN_OPTIONS=malloc_context_size=0, about 1.5 times as many executions per second on the
# YAML-reading targets (rerun a reproducer without them for full allocation stacks).
set -euo pipefail
build="${1:?usage: fuzz.sh BUILD_DIR (-runs=N | -max_total_time=S) [TARGET...]}"
budget="${2:?usage: fuzz.sh BUILD_DIR (-runs=N | -max_total_time=S) [TARGET...]}"
shift 2
root="$(cd "$(dirname "$0")/.." && pwd)"
corpora="$root/tests/fuzz/corpus"
if [ $# = 0 ]; then
  set -- $(cd "$corpora" && ls)
fi
work="${FUZZ_WORK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/trimtab-fuzz.XXXXXX")}"
mkdir -p "$work"

printf '%-20s %12s %8s %8s %6s\n' target executions seconds exec/s units
for name in "$@"; do
  bin="$build/tests/fuzz/fuzz_$name"
  [ -x "$bin" ] || { echo "fuzz: $bin is not built (cmake --preset fuzz)" >&2; exit 1; }
  mkdir -p "$work/$name/new" "$work/$name/artifacts"
  log="$work/$name/log"
  start=$(date +%s)
  # shellcheck disable=SC2086 # FUZZ_FLAGS is a list of options
  if ! "$bin" -max_len=65536 -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 ${FUZZ_FLAGS:-} \
      -artifact_prefix="$work/$name/artifacts/" "$budget" \
      "$work/$name/new" "$corpora/$name" >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "fuzz: fuzz_$name failed; reproducer(s): $(ls "$work/$name/artifacts/")" \
         "in $work/$name/artifacts (log: $log)" >&2
    exit 1
  fi
  seconds=$(( $(date +%s) - start ))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  units=$(sed -n 's/^stat::new_units_added: *//p' "$log" | tail -1)
  printf '%-20s %12s %8s %8s %6s\n' "fuzz_$name" "$runs" "$seconds" \
    "$(( runs / (seconds > 0 ? seconds : 1) ))" "$units"
done
echo "fuzz: logs and new inputs in $work"
