#!/usr/bin/env python3
"""A bounded Flink job on `trimtab local`, end to end with the real kubectl: a FlinkDeployment
whose source has stopping offsets (docs/simulate.md "Bounded sources") runs, reads to its end
and finishes. Checked from the outside:

- the FlinkDeployment shows `status.jobStatus.state: FINISHED` and lifecycle STABLE (upstream:
  a job that finished while its desired state was running keeps its stable spec);
- while the JobManager is up, its REST API (on the `<name>-rest` clusterIP) says FINISHED for
  the job, its vertices and `/jobs/overview`, with application status SUCCEEDED (the operator
  sets `execution.shutdown-on-application-finish: false`, so the JobManager stays), and the
  offset ledger (`/trimtab/topics`) shows every record up to the stopping offsets committed
  exactly once;
- the TaskManager pods are deleted after `resourcemanager.taskmanager-timeout`, before the
  JobManager goes;
- the operator removes the JobManager Deployment (and with it its pod and the rest Service)
  once `kubernetes.operator.jm-deployment.shutdown-ttl`, set in the FlinkDeployment's
  flinkConfiguration, has passed since the job finished, not before; the job status stays
  FINISHED and the JobManager is not recovered.

The cluster clock runs at --speed 10 and the operator reconciles every 5 s (simulated): the
job's ~2 simulated minutes take about 15 s of wall time.

Usage: bounded_job_e2e.py --trimtab BIN   (exit 77 = skipped: no kubectl)
"""

import json
import os
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from local_cluster import SKIP, e2e_args, Checks, LocalCluster, expect  # noqa: E402
from kubectl_e2e import Kubectl, wait_until  # noqa: E402

NS = "batch"
NAME = "bounded"
# Ranges of their own, so other e2e tests and a default `trimtab local` do not collide.
RANGES = ["--service-cidr", "127.17.0.0/16", "--pod-cidr", "127.27.0.0/16"]
SPEED = 10  # simulated seconds per wall second

OPERATOR_CONFIG = """
kubernetes.operator.reconcile.interval: 5 s
kubernetes.operator.observer.progress-check.interval: 5 s
kubernetes.operator.observer.rest-ready.delay: 2 s
"""

TTL_S = 60       # kubernetes.operator.jm-deployment.shutdown-ttl
TM_TIMEOUT_S = 20  # resourcemanager.taskmanager-timeout

# 4 partitions stopping at 15,000 each: 60,000 records at 1,000/s, read to the end about a
# minute after the topic's creation (the job's first start).
FLINK_DEPLOYMENT = """
apiVersion: flink.apache.org/v1beta1
kind: FlinkDeployment
metadata:
  name: bounded
  annotations:
    trimtab.dev/job: |
      name: bounded
      vertices:
        - {id: source, partitions: 4, parallelism: 2, capacityPerSubtask: 5000, stoppingOffsets: 15000}
        - {id: sink, parallelism: 2, capacityPerSubtask: 5000}
      edges: [{from: source, to: sink, ship: rebalance}]
      restart: {baseDowntime: 2 s}
    trimtab.dev/workload: "1000"
spec:
  image: flink:1.20
  flinkVersion: v1_20
  flinkConfiguration:
    taskmanager.numberOfTaskSlots: "2"
    execution.checkpointing.interval: 10 s
    state.checkpoints.dir: file:///flink-data/bounded/checkpoints
    state.savepoints.dir: file:///flink-data/bounded/savepoints
    resourcemanager.taskmanager-timeout: %d s
    kubernetes.operator.jm-deployment.shutdown-ttl: %d s
  serviceAccount: flink
  jobManager:
    resources: {requests: {memory: "1024m", cpu: "0.5"}}
  taskManager:
    resources: {requests: {memory: "1024m", cpu: "1"}}
  job:
    jarURI: local:///opt/flink/usrlib/bounded.jar
    parallelism: 2
    upgradeMode: stateless
""" % (TM_TIMEOUT_S, TTL_S)


def rest_get(ip, path):
    with urllib.request.urlopen("http://%s:8081%s" % (ip, path), timeout=3) as r:
        return json.loads(r.read())


def main():
    args = e2e_args()
    if args is None:
        return SKIP

    started = time.monotonic()
    cluster = LocalCluster(args.trimtab, extra_args=RANGES + ["--speed", str(SPEED)])
    config_path = os.path.join(cluster.tmp, "operator-config.yaml")
    with open(config_path, "w") as f:
        f.write(OPERATOR_CONFIG)
    cluster.extra_args += ["--operator-config", config_path]

    with cluster:
        k = Kubectl(args.kubectl, cluster)
        c = Checks()
        k.out("create", "namespace", NS)
        ctx = {}  # what one check hands to the next

        def fd():
            return k.json("get", "flinkdeployment", NAME, "-n", NS)

        def job_state():
            return fd().get("status", {}).get("jobStatus", {}).get("state")

        def pods(component):
            return k.json("get", "pods", "-n", NS, "-l",
                          "app=%s,component=%s" % (NAME, component))["items"]

        def deployment_exists():
            p = k.run("get", "deployment", NAME, "-n", NS, ok=None)
            if p.returncode == 0:
                return True
            expect("NotFound" in p.stderr, p.stderr)
            return False

        def runs():
            k.out("apply", "-n", NS, "-f", "-", stdin=FLINK_DEPLOYMENT)
            wait_until(lambda: job_state() == "RUNNING", timeout=60, what="the job to be RUNNING")
            ctx["ip"] = k.json("get", "svc", NAME + "-rest", "-n", NS)["spec"]["clusterIP"]
            expect(ctx["ip"].startswith("127.17."), ctx["ip"])
            wait_until(lambda: len(pods("taskmanager")) == 1, timeout=30,
                       what="one TaskManager pod (2 slots)")
        c.run("the bounded FlinkDeployment runs on one TaskManager", runs)

        def finishes():
            expect("ip" in ctx, "not running")
            seen = []

            def finished():
                # REST first: the JobManager may go soon after the FlinkDeployment says FINISHED.
                overview = rest_get(ctx["ip"], "/jobs/overview")["jobs"]
                seen.append(overview[0]["state"])
                if overview[0]["state"] != "FINISHED":
                    return False
                ctx["overview"] = overview[0]
                ctx["details"] = rest_get(ctx["ip"], "/jobs/" + overview[0]["jid"])
                ctx["result"] = rest_get(ctx["ip"], "/jobs/%s/execution-result" % overview[0]["jid"])
                return True
            # ~60 s of input plus the final checkpoint, at 10x.
            wait_until(finished, timeout=60, what="GET /jobs/overview to say FINISHED")
            expect("RUNNING" in seen or len(seen) == 1, "states seen over REST: %s" % seen)
            o = ctx["overview"]
            expect(o["tasks"]["finished"] == o["tasks"]["total"] == 4, "tasks: %s" % o["tasks"])
            d = ctx["details"]
            expect(all(v["status"] == "FINISHED" for v in d["vertices"]),
                   "vertices: %s" % [(v["name"], v["status"]) for v in d["vertices"]])
            r = ctx["result"]["job-execution-result"]
            expect(r["application-status"] == "SUCCEEDED", "execution result: %s" % r)
            # Every record up to the stopping offsets was committed once, the last ones by the
            # final checkpoint; the topic itself went on.
            topics = rest_get(ctx["ip"], "/trimtab/topics")["topics"]
            expect(len(topics) == 1, "topics: %s" % topics)
            t = topics[0]
            expect([round(x, 6) for x in t["committedOffsets"]] == [15000.0] * 4, "topic: %s" % t)
            expect(t["issues"] == [], "ledger issues: %s" % t["issues"])
            expect(min(t["endOffsets"]) > 15000, "topic: %s" % t)
            wait_until(lambda: job_state() == "FINISHED", timeout=20,
                       what="status.jobStatus.state FINISHED")
            st = fd()["status"]
            expect(st.get("lifecycleState") == "STABLE", "lifecycleState: %s" % st.get("lifecycleState"))
            expect(st.get("jobManagerDeploymentStatus") == "READY",
                   "jobManagerDeploymentStatus: %s" % st.get("jobManagerDeploymentStatus"))
            ctx["finished_wall"] = time.monotonic()
            expect(deployment_exists(), "the JobManager Deployment went before the TTL")
        c.run("the job FINISHES: REST (job, vertices, overview, SUCCEEDED) and the FlinkDeployment",
              finishes)

        def taskmanagers_go():
            expect("finished_wall" in ctx, "not finished")
            wait_until(lambda: not pods("taskmanager"), timeout=15,
                       what="the idle TaskManager pod to be deleted")
            expect(deployment_exists(), "the JobManager went before its TaskManagers")
            expect(len(pods("jobmanager")) == 1, "JobManager pods: %d" % len(pods("jobmanager")))
            expect(rest_get(ctx["ip"], "/taskmanagers")["taskmanagers"] == [], "TaskManagers left")
            expect(rest_get(ctx["ip"], "/jobs/overview")["jobs"][0]["state"] == "FINISHED",
                   "the JobManager no longer says FINISHED")
        c.run("idle TaskManager pods are deleted after resourcemanager.taskmanager-timeout; the "
              "JobManager stays (shutdown-on-application-finish false)", taskmanagers_go)

        def jobmanager_goes_after_ttl():
            expect("finished_wall" in ctx, "not finished")
            wait_until(lambda: not deployment_exists(), timeout=TTL_S / SPEED + 15,
                       what="the operator to delete the JobManager Deployment")
            gone_wall = time.monotonic()
            # Not before the TTL: measured in wall time at the clock's speed (the FINISHED state
            # was seen up to one status write after it was recorded, hence the slack).
            elapsed_sim = (gone_wall - ctx["finished_wall"]) * SPEED
            expect(elapsed_sim >= TTL_S - 15, "deleted %.0f simulated s after FINISHED" % elapsed_sim)
            wait_until(lambda: not pods("jobmanager"), timeout=20, what="the JobManager pod to go")
            wait_until(lambda: k.run("get", "svc", NAME + "-rest", "-n", NS, ok=None).returncode != 0,
                       timeout=20, what="the rest Service (owned by the Deployment) to go")
            wait_until(lambda: fd()["status"].get("jobManagerDeploymentStatus") == "MISSING",
                       timeout=20, what="jobManagerDeploymentStatus MISSING")
            st = fd()["status"]
            expect(st["jobStatus"]["state"] == "FINISHED", "job state after cleanup: %s" % st["jobStatus"])
            # Not recovered: a finished application stays down.
            time.sleep(30 / SPEED)
            expect(not deployment_exists(), "the JobManager Deployment came back")
            events = k.out("get", "events", "-n", NS, "--field-selector",
                           "involvedObject.name=" + NAME)
            expect("RecoverDeployment" not in events, events)
        c.run("the operator removes the JobManager Deployment after jm-deployment.shutdown-ttl "
              "and does not recover it", jobmanager_goes_after_ttl)

        code = c.exit_code()
        if code:
            print(cluster.log()[-6000:])
    print("wall time: %.1f s" % (time.monotonic() - started))
    return code


if __name__ == "__main__":
    sys.exit(main())
