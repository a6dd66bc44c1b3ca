#!/usr/bin/env python3
"""`trimtab simulate` as a user runs it: the table, --json, --decision-log and --series (and the
errors of `trimtab scenario from-flink`).

The decision log must hold every decision cycle of the controllers (also those that changed
nothing), agree with the JSON report on what was applied, be the same byte for byte on a second
run, and a path that cannot be written must fail before the run with the flag's name. The series
CSV must have a row per policy and decision interval that agrees with the JSON figures.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile


def run(trimtab, *args):
    return subprocess.run([trimtab, "simulate", "-q", *args], capture_output=True, text=True,
                          timeout=300)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trimtab", required=True)
    ap.add_argument("--scenario", required=True)
    a = ap.parse_args()
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)
            print("FAIL:", what, file=sys.stderr)

    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "cycles.jsonl")
        report = os.path.join(tmp, "report.json")
        series = os.path.join(tmp, "series.csv")
        r = run(a.trimtab, a.scenario, "-p", "trimtab,hpa-cpu,static", "--json", report,
                "--decision-log", log, "--series", series)
        check(r.returncode == 0, f"simulate exits 0 (got {r.returncode}: {r.stderr})")
        if r.returncode != 0:
            return 1
        check("trimtab" in r.stdout and "hpa-cpu" in r.stdout, "the table names the policies")
        with open(report) as f:
            figures = {p["policy"]: p for p in json.load(f)["policies"]}
        lines = open(log).read().splitlines()
        cycles = [json.loads(line) for line in lines]
        by_policy = {}
        for c in cycles:
            by_policy.setdefault(c["policy"], []).append(c)
        check(set(by_policy) == {"trimtab", "hpa-cpu"},
              f"trimtab and hpa-cpu log their cycles, static none (got {sorted(by_policy)})")
        trimtab = by_policy.get("trimtab", [])
        times = [c["simulatedSeconds"] for c in trimtab]
        check(times == sorted(set(times)) and len(times) > 100,
              f"one trimtab line per decision cycle, in time order ({len(times)} lines)")
        outcomes = {c["outcome"] for c in trimtab}
        check("NoChange" in outcomes, f"cycles that changed nothing are logged too ({outcomes})")
        applied = [c for c in trimtab if c["applied"]]
        check(len(applied) == figures["trimtab"]["rescales"],
              f"{len(applied)} applied cycles vs {figures['trimtab']['rescales']} rescales")
        for c in applied:
            check(all(s["verdict"] != "veto" for s in c.get("chain", [])),
                  f"an applied cycle at {c['simulatedSeconds']} s passed the chain")
            check(all(c["vertices"][v]["finalParallelism"] == p for v, p in c["applied"].items()),
                  f"applied parallelism at {c['simulatedSeconds']} s is the final one")
        with open(series, newline="") as f:
            rows = list(csv.DictReader(f))
        scenario_json = json.load(open(report))
        interval_rows = {p: [row for row in rows if row["policy"] == p] for p in figures}
        expected_rows = int(scenario_json["durationSeconds"] // 60) + 1  # q5-step-up decides each minute
        for p, prows in interval_rows.items():
            check(abs(len(prows) - expected_rows) <= 1,
                  f"{p}: a series row per decision interval ({len(prows)}, expected {expected_rows})")
            if not prows:
                continue
            vertex_columns = [c for c in prows[0] if c.startswith("parallelism:")]
            check(len(vertex_columns) == 4, f"a parallelism column per q5 vertex ({vertex_columns})")
            changes = sum(1 for x, y in zip(prows, prows[1:])
                          if any(x[c] != y[c] for c in vertex_columns))
            check(changes == figures[p]["rescales"],
                  f"{p}: parallelism changes in the series ({changes}) are the rescales "
                  f"({figures[p]['rescales']})")
            check(all(int(row["slots"]) == max(int(row[c]) for c in vertex_columns) for row in prows),
                  f"{p}: slots are the largest vertex parallelism in every row")
            down = sum(float(row["downSeconds"]) for row in prows)
            check(abs(down - figures[p]["downtimeSeconds"]) <= 5 * max(1, figures[p]["rescales"]),
                  f"{p}: down time in the series ({down}) is the downtime to within a step per "
                  f"rescale ({figures[p]['downtimeSeconds']})")
            last = float(prows[-1]["sloViolationOutsideRestartsSeconds"])
            check(last <= figures[p]["sloViolationOutsideRestartsSeconds"] + 1e-6,
                  f"{p}: the series' violation total stays within the report's")
        bad_series = os.path.join(tmp, "no-such-dir", "series.csv")
        r4 = run(a.trimtab, a.scenario, "-p", "trimtab", "--series", bad_series)
        check(r4.returncode == 1 and "--series: cannot open" in r4.stderr,
              f"an unwritable series fails with the flag's name (exit {r4.returncode}: {r4.stderr})")

        # `trimtab scenario from-flink`: what it needs is a running job (sim_scenario_capture_test
        # captures one); here, that its errors name the request or the flag.
        r5 = subprocess.run([a.trimtab, "scenario", "from-flink", "http://127.0.0.1:1",
                             "--samples", "1", "--timeout", "2 s"],
                            capture_output=True, text=True, timeout=60)
        check(r5.returncode == 1 and "REST GET /jobs/overview" in r5.stderr,
              f"an unreachable JobManager fails naming the request (exit {r5.returncode}: {r5.stderr})")
        for flag, value in (("--samples", "0"), ("--interval", "soon")):
            r6 = subprocess.run([a.trimtab, "scenario", "from-flink", "http://127.0.0.1:1", flag, value],
                                capture_output=True, text=True, timeout=60)
            check(r6.returncode == 2 and flag in r6.stderr,
                  f"{flag} {value} is a usage error naming the flag (exit {r6.returncode}: {r6.stderr})")

        again = os.path.join(tmp, "again.jsonl")
        r2 = run(a.trimtab, a.scenario, "-p", "trimtab,hpa-cpu,static", "--decision-log", again)
        check(r2.returncode == 0 and open(again).read() == "\n".join(lines) + "\n",
              "the same scenario and seed give the same decision log byte for byte")

        bad = os.path.join(tmp, "no-such-dir", "cycles.jsonl")
        r3 = run(a.trimtab, a.scenario, "-p", "trimtab", "--decision-log", bad)
        check(r3.returncode == 1 and "--decision-log: cannot open" in r3.stderr,
              f"an unwritable log fails with the flag's name (exit {r3.returncode}: {r3.stderr})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
