#!/usr/bin/env bash
# The embedded default demo (`make demo`): first a walk through `trimtab eval hpa` examples (each
# one scaling decision, printed with the reasons of every stage), then `trimtab simulate`
# comparing the scaling policies on a Nexmark-q5-shaped job whose load steps up, then the whole
# loop on `trimtab local`: the operator deploys a FlinkDeployment and its autoscaler scales it up
# and down as the load rises and falls (scripts/demo_operator.py).
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
echo "=================================================================="
echo "  The operator loop on trimtab local"
echo "  trimtab local runs an API server, nodes, a simulated Flink cluster behind each JobManager"
echo "  pod and the operator with its autoscaler, on a clock 20x faster than wall time. The"
echo "  upstream autoscaling example (examples/demo/autoscaling.yaml) gets a load that rises from"
echo "  20k to 90k records/s and falls to 15k/s; every decision is printed with its reasons."
echo "=================================================================="
# The system Python: scripts/install-deps.sh installs python3-yaml for it (a python3 earlier on
# PATH, from pyenv or a virtualenv, may lack PyYAML).
python=/usr/bin/python3
[ -x "$python" ] || python=python3
"$python" "$root/scripts/demo_operator.py" "$trimtab"
echo
echo "Next: 'trimtab local' and 'kubectl apply -f' any FlinkDeployment (docs/operator.md);"
echo "'trimtab simulate --report out.html SCENARIO' for charts and every decision's reasons;"
echo "'trimtab eval flink examples/eval/flink-scale-up.json' for one autoscaler decision."
