#!/usr/bin/env bash
# The embedded default demo (`make demo`). For now it walks through `trimtab eval` examples:
# each example is one scaling decision, printed with the reasons of every stage.
set -euo pipefail
trimtab="${1:?usage: demo.sh PATH_TO_TRIMTAB}"
root="$(cd "$(dirname "$0")/.." && pwd)"

shopt -s nullglob
examples=("$root"/examples/eval/hpa-*.json)
if [ ${#examples[@]} -eq 0 ]; then
  echo "demo: no examples found under examples/eval" >&2
  exit 1
fi

for f in "${examples[@]}"; do
  name="$(basename "$f" .json)"
  echo "=================================================================="
  echo "  $name"
  if command -v python3 >/dev/null; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("  " + d.get("description",""))' "$f" || true
  fi
  echo "=================================================================="
  "$trimtab" eval hpa --summary "$f"
  echo
done
