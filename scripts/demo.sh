#!/usr/bin/env bash
# The embedded default demo (`make demo`): first a walk through `trimtab eval hpa` examples (each
# one scaling decision, printed with the reasons of every stage), then `trimtab simulate`
# comparing the scaling policies on a Nexmark-q5-shaped job whose load steps up.
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

echo "=================================================================="
echo "  trimtab simulate examples/simulate/q5-step-up.yaml"
echo "  A windowed-aggregation job (Nexmark q5 shape) whose input steps up; every policy runs"
echo "  the same job and load in virtual time. slot-h = cost in slot-hours (x oracle = ratio to"
echo "  the best possible); SLO viol = time with lag above the SLO; converge = rescale steps"
echo "  after each load change. The 'trimtab' row is the default policy."
echo "=================================================================="
"$trimtab" simulate -q "$root/examples/simulate/q5-step-up.yaml"
echo
echo "Next: 'trimtab simulate --report out.html SCENARIO' for charts and every decision's reasons,"
echo "'trimtab eval flink -f examples/eval/flink-scale-up.json' for one Flink autoscaler decision,"
echo "'trimtab local' for a Kubernetes-compatible API server that kubectl talks to."
