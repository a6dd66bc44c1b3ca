#!/usr/bin/env python3
"""`trimtab autoscale`, the standalone autoscaler binary, against a simulated Flink cluster of
`trimtab local` that no operator manages (issue 23).

The JobManager is created by hand as flink_rest_e2e creates it (the objects of Flink's native
Kubernetes integration, the adaptive scheduler), running an overloaded job at parallelism 1.
Then the `trimtab autoscale` process, given only the cluster's REST URL (the Service's
clusterIP):

  - discovers the job (no job id given), decides a scale-up with the operator's autoscaler and
    applies it in place through PUT /jobs/:id/resource-requirements: the job keeps its id, its
    vertices run at the new parallelism, the JobManager creates TaskManager pods for it;
  - writes a decision log line per pass (the scaled pass with `scaled`, its vertices and the
    realizer's "in-place scaling triggered") and logs the Scaling event;
  - keeps its state in SQLite: a second process (`--once`) on the same file reads the stored
    overrides back and sends nothing, since the requirements already match;
  - exits 0 on SIGTERM.

Clocks: the cluster runs at wall speed (--speed 1), as the autoscaler's own clock does, so the
rates it computes from counters are the cluster's.

Usage: autoscale_e2e.py --trimtab BIN   (exit 77 = skipped: no kubectl)
"""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from local_cluster import SKIP, e2e_args, Checks, LocalCluster, expect, expect_in  # noqa: E402
from kubectl_e2e import Kubectl, wait_until  # noqa: E402
from flink_rest_e2e import NS, JOB_ID, Rest, as_stream, cluster_objects, job_state  # noqa: E402

RANGES = ["--service-cidr", "127.18.0.0/16", "--pod-cidr", "127.28.0.0/16"]

# Upstream's defaults with a short window, so that a decision comes within a minute of wall time.
SETTINGS = [
    "job.autoscaler.enabled=true",
    "job.autoscaler.stabilization.interval=0 s",
    "job.autoscaler.metrics.window=20 s",
    "job.autoscaler.catch-up.duration=1 min",
    "job.autoscaler.restart.time=10 s",
]


def read_lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    args = e2e_args()
    if args is None:
        return SKIP
    started = time.monotonic()
    cluster = LocalCluster(args.trimtab, extra_args=RANGES + ["--no-operator"])
    cluster.start()
    autoscaler = None
    try:
        k = Kubectl(args.kubectl, cluster)
        k.out("create", "namespace", NS)
        c = Checks()
        state = {}
        db = os.path.join(cluster.tmp, "autoscaler.db")
        decisions = os.path.join(cluster.tmp, "decisions.jsonl")
        log_path = os.path.join(cluster.tmp, "autoscale.log")

        def deploy():
            k.out("apply", "-f", "-", stdin=as_stream(
                cluster_objects("wc", JOB_ID, shutdown_on_finish=False)))
            k.out("rollout", "status", "deployment/wc", "-n", NS, "--timeout=60s", timeout=90)
            rest = Rest(k, "wc-rest")
            wait_until(rest.answers, timeout=30, what="the JobManager REST API")
            wait_until(lambda: job_state(rest, JOB_ID) == "RUNNING", timeout=60,
                       what="job RUNNING")
            vs = rest.get("/jobs/%s" % JOB_ID)["vertices"]
            expect(all(v["parallelism"] == 1 for v in vs), [v["parallelism"] for v in vs])
            state["rest"] = rest
        c.run("an overloaded job at parallelism 1 on a cluster no operator manages", deploy)

        def scales_in_place():
            rest = state["rest"]
            cmd = [args.trimtab, "autoscale", "--rest-url", rest.base,
                   "--state-store", "sqlite:" + db, "--interval", "2 s",
                   "--autoscaler-defaults", "flink", "--decision-log", decisions]
            for s in SETTINGS:
                cmd += ["--set", s]
            nonlocal autoscaler
            autoscaler = subprocess.Popen(cmd, stdout=open(log_path, "w"),
                                          stderr=subprocess.STDOUT, text=True)

            def scaled():
                expect(autoscaler.poll() is None, "trimtab autoscale exited: %s" %
                       open(log_path).read()[-2000:])
                return any(d.get("scaled") for d in read_lines(decisions))
            wait_until(scaled, timeout=90, what="a decision log line with scaled: true")
            line = next(d for d in read_lines(decisions) if d.get("scaled"))
            expect(line.get("jobKey", "").endswith("/" + JOB_ID), line.get("jobKey"))
            expect_in("in-place scaling triggered", line.get("realize", ""), "realize")
            expect(line.get("vertices"), "the scaled pass names its vertices: %s" % line)
            # Flink holds the new requirements and the job runs at them under the same id.
            reqs = rest.get("/jobs/%s/resource-requirements" % JOB_ID)
            uppers = {vid: r["parallelism"]["upperBound"] for vid, r in reqs.items()}
            expect(max(uppers.values()) > 1, "raised requirements: %s" % uppers)

            def runs_at_requirements():
                vs = {v["id"]: v["parallelism"] for v in rest.get("/jobs/%s" % JOB_ID)["vertices"]}
                return job_state(rest, JOB_ID) == "RUNNING" and all(
                    vs.get(vid) == p for vid, p in uppers.items())
            wait_until(runs_at_requirements, timeout=60,
                       what="the job RUNNING at its new requirements")
            tms = k.json("get", "pods", "-n", NS, "-l", "app=wc,component=taskmanager")["items"]
            expect(len(tms) > 1, "TaskManager pods for the new slots: %d" % len(tms))
            jobs = rest.get("/jobs/overview")["jobs"]
            expect([j["jid"] for j in jobs] == [JOB_ID], "the same job, in place: %s" % jobs)
            expect_in("In-place scaling triggered", open(log_path).read(), "autoscale log")
            state["uppers"] = uppers
        c.run("trimtab autoscale discovers the job and scales it in place; decision log and "
              "Scaling event", scales_in_place)

        def stops_on_sigterm():
            autoscaler.send_signal(signal.SIGTERM)
            code = autoscaler.wait(timeout=30)
            expect(code == 0, "exit code on SIGTERM: %s" % code)
        c.run("exits 0 on SIGTERM", stops_on_sigterm)

        def state_survives():
            with sqlite3.connect(db) as conn:
                tables = [r[0] for r in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type='table'")]
            expect(tables, "the SQLite state store has tables")
            rest = state["rest"]
            before = rest.get("/jobs/%s/resource-requirements" % JOB_ID)
            cmd = [args.trimtab, "autoscale", "--rest-url", rest.base, "--state-store",
                   "sqlite:" + db, "--autoscaler-defaults", "flink", "--once"]
            for s in SETTINGS:
                cmd += ["--set", s]
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
            expect(r.returncode == 0, "autoscale --once: %d %s %s" % (r.returncode, r.stdout,
                                                                   r.stderr))
            expect_in("requirements already match", r.stdout + r.stderr, "autoscale --once")
            after = rest.get("/jobs/%s/resource-requirements" % JOB_ID)
            expect(after == before, "nothing sent: %s -> %s" % (before, after))
        c.run("a second process reads the state from SQLite and sends nothing", state_survives)

        return c.finish(cluster, "autoscale_e2e", started)
    finally:
        if autoscaler and autoscaler.poll() is None:
            autoscaler.kill()
            autoscaler.wait()
        cluster.stop()


if __name__ == "__main__":
    sys.exit(main())
