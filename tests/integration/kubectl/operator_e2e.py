#!/usr/bin/env python3
"""The Flink operator of `trimtab local` with the real kubectl: the upstream example manifests
applied unchanged, stateful upgrades (savepoint, last-state), suspend/resume, manual savepoints
and an invalid spec, each checked against the simulated Flink cluster's REST API and its offset
ledger (GET /trimtab/topics: nothing lost, nothing committed twice). The operator runs with
short intervals (--operator-config) and the cluster clock at --speed 5.

Usage: operator_e2e.py --trimtab BIN [--reference DIR]   (exit 77 = skipped: no kubectl)
"""

import glob
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from local_cluster import SKIP, e2e_args, Checks, LocalCluster, expect, expect_in  # noqa: E402
from kubectl_e2e import Kubectl, header, table_rows, wait_until  # noqa: E402

# Ranges of their own, so other e2e tests and a default `trimtab local` do not collide.
RANGES = ["--service-cidr", "127.15.0.0/16", "--pod-cidr", "127.25.0.0/16"]
# The cluster clock (pod start delays, checkpoint intervals, the operator's timers) runs 5x.
SPEED = "5"

OPERATOR_CONFIG = """
kubernetes.operator.reconcile.interval: 2 s
kubernetes.operator.observer.progress-check.interval: 1 s
kubernetes.operator.observer.rest-ready.delay: 1 s
# session jobs may also name a jar on the operator's file system (file://)
kubernetes.operator.user.artifacts.allowed-schemes: https;file
"""

# A small stateful job; {name}, {mode} and {extra} are filled in per scenario.
STATEFUL = """
apiVersion: flink.apache.org/v1beta1
kind: FlinkDeployment
metadata:
  name: {name}
spec:
  image: flink:2.2
  flinkVersion: v2_2
  flinkConfiguration:
    taskmanager.numberOfTaskSlots: "2"
    execution.checkpointing.interval: 5 s
    state.checkpoints.dir: file:///flink-data/{name}/checkpoints
    state.savepoints.dir: file:///flink-data/{name}/savepoints
{extra}
  serviceAccount: flink
  jobManager:
    resources: {{requests: {{memory: "1024m", cpu: "0.5"}}}}
  taskManager:
    resources: {{requests: {{memory: "1024m", cpu: "0.5"}}}}
  job:
    jarURI: local:///opt/flink/examples/streaming/StateMachineExample.jar
    parallelism: 2
    upgradeMode: {mode}
"""
HA = """    high-availability.type: kubernetes
    high-availability.storageDir: file:///flink-data/{name}/ha
"""


def stateful(name, mode, ha=False):
    return STATEFUL.format(name=name, mode=mode, extra=HA.format(name=name) if ha else "")


# status.error of a FlinkStateSnapshot whose jobReference names a FlinkDeployment that is not there.
MISSING_TARGET = ("spec.jobReference: FlinkDeployment example-deployment does not exist in "
                  "namespace {ns}")

# What each upstream example does on the local cluster (docs/operator.md "Upstream examples").
#   running     FlinkDeployment(s) reach JOB STATUS RUNNING / LIFECYCLE STATE STABLE
#   ingress     Ingress name -> host: the operator's Ingress from spec.ingress ({ns} = the namespace)
#   session     a session cluster: LIFECYCLE STATE STABLE, no job
#   sessionjobs the FlinkSessionJobs run when their https jar can be fetched, else they report
#               the fetch error (status.error, a Warning event) and stay RECONCILING
#   canary      the operator's canary: never reconciled (no status, no Deployment)
#   restore-missing  the job's initialSavepointPath does not exist: the job FAILS, as upstream
#   hpa         an autoscaling/v2 HPA whose target FlinkDeployment "basic" does not exist
#   snapshot_completed  FlinkStateSnapshot name -> its status.path: COMPLETED at once
#               (savepoint.alreadyExists: nothing is triggered)
#   snapshot_failed     FlinkStateSnapshot name -> its status.error: FAILED by validation, with
#               a ValidationError event ({ns} = the example's namespace). Every example is applied
#               in a namespace of its own, so `example-deployment` never exists next to the
#               snapshots that reference it (a snapshot of a running job: flinkstatesnapshot())
EXAMPLES = {
    "autoscaling-autoscaling-dynamic.yaml": {"running": ["autoscaling-dynamic"]},
    "autoscaling-autoscaling.yaml": {"running": ["autoscaling-example"]},
    "basic-checkpoint-ha.yaml": {"running": ["basic-checkpoint-ha-example"]},
    "basic-ingress.yaml": {"running": ["basic-ingress"],
                           "ingress": {"basic-ingress": "basic-ingress.{ns}.flink.k8s.io"}},
    "basic-reactive.yaml": {"running": ["basic-reactive-example"]},
    "basic-session-deployment-and-job.yaml": {
        "session": ["basic-session-deployment-example"],
        "sessionjobs": ["basic-session-job-example", "basic-session-job-example2"]},
    # applied together with basic-session-job-only.yaml, which needs this session cluster
    "basic-session-deployment-only.yaml": {
        "session": ["basic-session-deployment-only-example"],
        "with": "basic-session-job-only.yaml",
        "sessionjobs": ["basic-session-job-only-example"]},
    "basic-session-job-only.yaml": {"with_of": "basic-session-deployment-only.yaml"},
    "basic.yaml": {"running": ["basic-example"]},
    "canary.yaml": {"canary": ["canary"]},
    "hpa-basic-hpa.yaml": {"hpa": "basic-hpa"},
    "pod-template.yaml": {"running": ["pod-template-example"], "containers": "2/2"},
    "snapshot-checkpoint.yaml": {"snapshot_failed": {"example-checkpoint": MISSING_TARGET}},
    "snapshot-job-from-savepoint.yaml": {
        "restore_missing": ["example-deployment"],
        "snapshot_completed": {
            "example-savepoint": "file:///flink-data/savepoints/savepoint-45305c-d867504446e0"}},
    "snapshot-savepoint-already-exists.yaml": {
        "snapshot_completed": {
            "example-savepoint": "/flink-data/savepoints/savepoint-98682a-21931bf10c39"}},
    "snapshot-savepoint-job-defaults.yaml": {"snapshot_failed": {"example-savepoint": MISSING_TARGET}},
    "snapshot-savepoint-job-full-spec.yaml": {
        "snapshot_failed": {"example-savepoint": MISSING_TARGET}},
}


def online(host="repo1.maven.org"):
    """Whether `host` resolves (the session job examples fetch their jar from it)."""
    result = []

    def resolve():
        try:
            socket.getaddrinfo(host, 443)
            result.append(True)
        except OSError:
            pass
    t = threading.Thread(target=resolve, daemon=True)
    t.start()
    t.join(3)
    return bool(result)


def http_json(ip, path, port=8081):
    with urllib.request.urlopen("http://%s:%d%s" % (ip, port, path), timeout=5) as r:
        return json.loads(r.read().decode())


class Watch:
    """`kubectl get <kind> <name> -w`: every status a resource goes through, even briefly."""

    FIELDS = ('{.status.lifecycleState} {.status.reconciliationStatus.state} '
              '{.status.jobStatus.state} {.status.jobManagerDeploymentStatus}{"\\n"}')

    def __init__(self, k, ns, name, kind="flinkdeployment"):
        cmd = [k.binary, "--cache-dir", k.cache, "get", kind, name, "-n", ns, "-w",
               "-o", "jsonpath=" + self.FIELDS]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, env=k.cluster.env())
        self.lines = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line.split())

    def seen(self, word):
        return any(word in line for line in self.lines)

    def stop(self):
        self.proc.kill()
        self.proc.wait()


class Flink:
    """Reads FlinkDeployments and their simulated clusters."""

    def __init__(self, k, cluster):
        self.k = k
        self.cluster = cluster

    def get(self, ns, name, kind="flinkdeployment"):
        return self.k.json("get", kind, name, "-n", ns)

    def status(self, ns, name, kind="flinkdeployment"):
        return self.get(ns, name, kind).get("status") or {}

    def wait_running(self, ns, name, timeout=60, kind="flinkdeployment", job_id_not=None):
        def ok():
            st = self.status(ns, name, kind)
            job = st.get("jobStatus") or {}
            expect(st.get("lifecycleState") == "STABLE" and job.get("state") == "RUNNING",
                   "%s: lifecycle %s, job %s, error %s" % (
                       name, st.get("lifecycleState"), job.get("state"), st.get("error")))
            expect(job_id_not is None or job.get("jobId") != job_id_not, "still the old job")
            return True
        try:
            wait_until(ok, timeout=timeout, what="%s/%s RUNNING and STABLE" % (ns, name))
        except AssertionError as e:
            raise AssertionError("%s\n%s" % (e, self.diagnose(ns))) from None
        return self.status(ns, name, kind)

    def diagnose(self, ns):
        """Pods, Services and Endpoints of `ns`, for a failure message."""
        p = self.k.run("get", "pods,svc,endpoints", "-n", ns, "-o", "wide", ok=None)
        return p.stdout + p.stderr

    def rest_ip(self, ns, name):
        return self.k.json("get", "svc", name + "-rest", "-n", ns)["spec"]["clusterIP"]

    def rest(self, ns, name, path):
        return http_json(self.rest_ip(ns, name), path)

    def topic(self, ns, name):
        topics = self.rest(ns, name, "/trimtab/topics")["topics"]
        expect(len(topics) == 1, topics)
        return topics[0]

    def restored_from(self, ns, name, job_id):
        """The checkpoint or savepoint job `job_id` restored from (None: a fresh start)."""
        cps = self.rest(ns, name, "/jobs/%s/checkpoints" % job_id)
        return (cps.get("latest") or {}).get("restored")

    def fs_path(self, uri):
        """Where the simulated file system keeps `uri` (docs/design/flink-pods.md "Files")."""
        scheme, rest = uri.split("://", 1)
        return os.path.join(self.cluster.data_dir, "flink-fs", scheme, rest.lstrip("/"))

    def wait_ledger(self, ns, name, jobs, timeout=60):
        """Waits until `jobs` job ids committed; returns the topic. The ledger must be clean."""
        def ok():
            t = self.topic(ns, name)
            expect(t["issues"] == [], "ledger issues: %s" % t["issues"])
            expect(len(t["jobs"]) >= jobs, "jobs that committed: %s" % t["jobs"])
            return True
        wait_until(ok, timeout=timeout, what="%d job(s) committing to %s's topic" % (jobs, name))
        t = self.topic(ns, name)
        expect(t["issues"] == [], "ledger issues: %s" % t["issues"])
        return t


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    args = e2e_args(reference=os.path.join(here, "..", "..", "..", "..", "shared", "reference"))
    if args is None:
        return SKIP
    examples_dir = os.path.join(args.reference, "flink-operator", "examples")

    started = time.monotonic()
    cluster = LocalCluster(args.trimtab, extra_args=RANGES)
    config = os.path.join(cluster.tmp, "operator.yaml")
    with open(config, "w") as f:
        f.write(OPERATOR_CONFIG)
    cluster.extra_args += ["--operator-config", config, "--speed", SPEED]
    with cluster:
        k = Kubectl(args.kubectl, cluster)
        fl = Flink(k, cluster)
        c = Checks()

        def basic():
            ns = "basic"
            k.out("create", "namespace", ns)
            out = k.out("apply", "-n", ns, "-f", os.path.join(examples_dir, "basic.yaml"))
            expect_in("flinkdeployment.flink.apache.org/basic-example created", out)
            st = fl.wait_running(ns, "basic-example")
            out = k.out("get", "flinkdeployment", "-n", ns)
            expect(header(out) == "NAME JOB STATUS LIFECYCLE STATE", header(out))
            expect(table_rows(out)[1] == ["basic-example", "RUNNING", "STABLE"], out)
            expect(st["jobManagerDeploymentStatus"] == "READY", st)
            out = k.out("rollout", "status", "deployment/basic-example", "-n", ns,
                        "--timeout=30s", timeout=60)
            expect_in("successfully rolled out", out)
            jms = k.json("get", "pods", "-n", ns, "-l",
                         "app=basic-example,component=jobmanager")["items"]
            expect(len(jms) == 1 and jms[0]["status"]["phase"] == "Running",
                   [(p["metadata"]["name"], p["status"]["phase"]) for p in jms])
            tms = k.json("get", "pods", "-n", ns, "-l",
                         "app=basic-example,component=taskmanager")["items"]
            expect(len(tms) == 1, [p["metadata"]["name"] for p in tms])  # 2 slots, parallelism 2
            expect(tms[0]["metadata"]["name"] == "basic-example-taskmanager-1-1",
                   tms[0]["metadata"])
            expect(tms[0]["status"]["phase"] == "Running", tms[0]["status"])
            ip = fl.rest_ip(ns, "basic-example")
            expect(ip.startswith("127.15."), ip)
            ov = http_json(ip, "/overview")
            expect(ov["jobs-running"] == 1 and ov["taskmanagers"] == 1, ov)
            expect(ov["slots-total"] == 2 and ov["flink-version"].startswith("2.2"), ov)
            jobs = http_json(ip, "/jobs/overview")["jobs"]
            expect(len(jobs) == 1, jobs)
            expect(jobs[0]["jid"] == st["jobStatus"]["jobId"], (jobs, st["jobStatus"]))
            expect(jobs[0]["state"] == "RUNNING" and jobs[0]["name"] == "basic-example", jobs)
            k.out("delete", "namespace", ns, "--wait=false")
        c.run("examples/basic.yaml: RUNNING/STABLE, JobManager and TaskManager Running, "
              "REST /overview and /jobs/overview on the clusterIP", basic)

        def examples():
            files = sorted(os.path.basename(p) for p in glob.glob(os.path.join(examples_dir,
                                                                                "*.yaml")))
            expect(sorted(EXAMPLES) == files, "examples changed upstream: %s" % files)
            net = online()
            print("    session job jars from repo1.maven.org:",
                  "reachable" if net else "unreachable (offline: fetch errors expected)")
            applied = {}
            for name, exp in EXAMPLES.items():
                if "with_of" in exp:
                    continue
                ns = "ex-" + name[:-5]
                k.out("create", "namespace", ns)
                for f in [name] + ([exp["with"]] if "with" in exp else []):
                    path = os.path.join(examples_dir, f)
                    # hpa-basic-hpa.yaml names its namespace (default): apply it there.
                    where = [] if name.startswith("hpa-") else ["-n", ns]
                    out = k.out("apply", *where, "-f", path)
                    expect(" created" in out or " configured" in out, out)
                applied[name] = ns
            failures = []
            for name, ns in applied.items():
                try:
                    check_example(k, fl, ns, EXAMPLES[name], net)
                    print("    ok  ", name)
                except AssertionError as e:
                    failures.append("%s: %s" % (name, e))
                    print("    FAIL", name, e)
            for name, ns in applied.items():
                k.out("delete", "namespace", ns, "--wait=false")
            k.run("delete", "hpa", "basic-hpa", "-n", "default", ok=None)
            expect(not failures, "\n".join(failures))
        c.run("every upstream example applies unchanged and behaves as recorded in "
              "docs/operator.md", examples)

        def session_job_local_jar():
            # The session job example with its https jar replaced by a local copy: the operator
            # uploads it (POST /jars/upload) and runs it in the session cluster.
            ns = "sj"
            k.out("create", "namespace", ns)
            jar = os.path.join(cluster.tmp, "flink-examples-streaming-2.2.0-TopSpeedWindowing.jar")
            with open(jar, "wb") as f:
                f.write(b"PK\x05\x06" + b"\0" * 18)  # an empty zip
            with open(os.path.join(examples_dir, "basic-session-deployment-and-job.yaml")) as f:
                text = f.read()
            https = ("https://repo1.maven.org/maven2/org/apache/flink/flink-examples-streaming/"
                     "2.2.0/flink-examples-streaming-2.2.0-TopSpeedWindowing.jar")
            expect_in(https, text, "the example")
            text = text.replace(https, "file://" + jar)
            # the second job of the file keeps its https jar: leave it out
            text = text.split("---\napiVersion: flink.apache.org/v1beta1\nkind: FlinkSessionJob\n"
                              "metadata:\n  name: basic-session-job-example2")[0]
            k.out("apply", "-n", ns, "-f", "-", stdin=text)
            st = fl.wait_running(ns, "basic-session-job-example", kind="flinksessionjob")
            jid = st["jobStatus"]["jobId"]
            jobs = fl.rest(ns, "basic-session-deployment-example", "/jobs/overview")["jobs"]
            expect([j["jid"] for j in jobs if j["state"] == "RUNNING"] == [jid], jobs)
            out = k.out("get", "flinksessionjob", "-n", ns)
            expect(table_rows(out)[1] == ["basic-session-job-example", "RUNNING", "STABLE"], out)
            k.out("delete", "namespace", ns, "--wait=false")
        c.run("the session job example with a local jar runs in its session cluster",
              session_job_local_jar)

        ns = "stateful"
        k.out("create", "namespace", ns)

        def savepoint_upgrade():
            name = "sp-upgrade"
            k.out("apply", "-n", ns, "-f", "-", stdin=stateful(name, "savepoint"))
            old = fl.wait_running(ns, name)["jobStatus"]["jobId"]
            fl.wait_ledger(ns, name, 1)  # the old job checkpointed
            w = Watch(k, ns, name)
            try:
                k.out("patch", "flinkdeployment", name, "-n", ns, "--type", "merge",
                      "-p", '{"spec":{"job":{"parallelism":4}}}')
                st = fl.wait_running(ns, name, job_id_not=old)
            finally:
                w.stop()
            expect(w.seen("UPGRADING"), "never UPGRADING: %s" % w.lines)
            new = st["jobStatus"]["jobId"]
            sp = st["jobStatus"]["savepointInfo"]
            last = sp.get("lastSavepoint") or {}
            expect(last.get("triggerType") == "UPGRADE", sp)
            location = last["location"]
            expect(location.startswith("file:///flink-data/%s/savepoints/savepoint-" % name), sp)
            # Consumed once the restored job runs (issue 28: no stale path for a later restore).
            expect(not st["jobStatus"].get("upgradeSavepointPath"), st["jobStatus"])
            expect([s["location"] for s in sp.get("savepointHistory", [])] == [location], sp)
            expect(os.path.isfile(os.path.join(fl.fs_path(location), "_metadata")), location)
            restored = fl.restored_from(ns, name, new)
            expect(restored and restored["is_savepoint"] and restored["external_path"] == location,
                   "new job restored from %s, not %s" % (restored, location))
            vertices = fl.rest(ns, name, "/jobs/" + new)["vertices"]
            expect(all(v["parallelism"] == 4 for v in vertices),
                   [v["parallelism"] for v in vertices])
            t = fl.wait_ledger(ns, name, 2)
            expect(t["jobs"] == [old, new], (t["jobs"], old, new))
            expect(t["savepointCommits"] > 0, t)
            k.out("delete", "flinkdeployment", name, "-n", ns)
        c.run("upgradeMode savepoint: UPGRADING, savepoint taken, new job restores from it, "
              "ledger without gaps or overlaps", savepoint_upgrade)

        def early_savepoint_upgrade():
            # The upgrade savepoint is the old job's first commit: no checkpoint before it.
            name = "sp-early"
            text = stateful(name, "savepoint").replace("checkpointing.interval: 5 s",
                                                       "checkpointing.interval: 20 s")
            k.out("apply", "-n", ns, "-f", "-", stdin=text)

            def running():
                job = fl.status(ns, name).get("jobStatus") or {}
                return job.get("state") == "RUNNING" and job.get("jobId")
            wait_until(running, timeout=60, what="the job RUNNING")
            old = fl.status(ns, name)["jobStatus"]["jobId"]
            k.out("patch", "flinkdeployment", name, "-n", ns, "--type", "merge",
                  "-p", '{"spec":{"job":{"parallelism":3}}}')
            st = fl.wait_running(ns, name, job_id_not=old)
            new = st["jobStatus"]["jobId"]
            location = st["jobStatus"]["savepointInfo"]["lastSavepoint"]["location"]
            restored = fl.restored_from(ns, name, new)
            expect(restored and restored["external_path"] == location, (restored, location))
            t = fl.wait_ledger(ns, name, 2)
            expect(t["jobs"] == [old, new], (t["jobs"], old, new))
            expect(t["savepointCommits"] == t["partitions"],
                   "the upgrade savepoint must commit every partition once: %s" % t)
            k.out("delete", "flinkdeployment", name, "-n", ns)
        c.run("a savepoint upgrade right after the job starts (before any checkpoint) "
              "commits the savepoint's range, ledger without gaps or overlaps",
              early_savepoint_upgrade)

        def last_state_upgrade():
            name = "ls-upgrade"
            k.out("apply", "-n", ns, "-f", "-", stdin=stateful(name, "last-state", ha=True))
            old = fl.wait_running(ns, name)["jobStatus"]["jobId"]
            fl.wait_ledger(ns, name, 1)
            cms = k.json("get", "configmap", "-n", ns, "-l",
                         "app=%s,configmap-type=high-availability" % name)["items"]
            job_cm = [m for m in cms if m["metadata"]["name"] == "%s-%s-config-map" % (name, old)]
            expect(job_cm, [m["metadata"]["name"] for m in cms])
            expect(any(key.startswith("checkpointID-") for key in job_cm[0].get("data", {})),
                   job_cm[0].get("data"))
            w = Watch(k, ns, name)
            try:
                k.out("patch", "flinkdeployment", name, "-n", ns, "--type", "merge",
                      "-p", '{"spec":{"job":{"parallelism":3}}}')
                wait_until(lambda: fl.status(ns, name)["reconciliationStatus"]
                           ["lastReconciledSpec"].count('"parallelism":3') == 1,
                           what="the upgrade to be reconciled")
                st = fl.wait_running(ns, name)
            finally:
                w.stop()
            expect(w.seen("UPGRADING"), "never UPGRADING: %s" % w.lines)
            sp = st["jobStatus"]["savepointInfo"]
            expect(not sp.get("lastSavepoint"), "last-state took a savepoint: %s" % sp)
            new = st["jobStatus"]["jobId"]
            restored = fl.restored_from(ns, name, new)
            expect(restored and not restored["is_savepoint"] and
                   restored["external_path"].startswith(
                       "file:///flink-data/%s/checkpoints/" % name),
                   "new job restored from %s, not from a checkpoint" % restored)
            vertices = fl.rest(ns, name, "/jobs/" + new)["vertices"]
            expect(all(v["parallelism"] == 3 for v in vertices),
                   [v["parallelism"] for v in vertices])
            # the restored job commits after its restore point: wait for one commit past it
            before = fl.topic(ns, name)["commits"]
            wait_until(lambda: fl.topic(ns, name)["commits"] > before, what="a new commit")
            t = fl.wait_ledger(ns, name, 1)
            expect(t["jobs"][0] == old and new in t["jobs"], (t["jobs"], old, new))
            k.out("delete", "flinkdeployment", name, "-n", ns)
        c.run("upgradeMode last-state (Kubernetes HA): resumes from the latest checkpoint, "
              "no savepoint, ledger without gaps or overlaps", last_state_upgrade)

        def suspend_resume():
            name = "sp-suspend"
            k.out("apply", "-n", ns, "-f", "-", stdin=stateful(name, "savepoint"))
            old = fl.wait_running(ns, name)["jobStatus"]["jobId"]
            fl.wait_ledger(ns, name, 1)
            k.out("patch", "flinkdeployment", name, "-n", ns, "--type", "merge",
                  "-p", '{"spec":{"job":{"state":"suspended"}}}')

            def suspended():
                st = fl.status(ns, name)
                expect(st.get("lifecycleState") == "SUSPENDED", st.get("lifecycleState"))
                return True
            wait_until(suspended, timeout=60, what="SUSPENDED")
            # As upstream for Flink >= 1.15 (FLINK-30004): stop-with-savepoint leaves the
            # JobManager up with its job FINISHED; it goes after jm-deployment.shutdown-ttl.
            st = fl.status(ns, name)
            expect(k.run("get", "deployment", name, "-n", ns, ok=None).returncode == 0,
                   "the JobManager Deployment is kept while suspended")
            expect(st["jobStatus"]["state"] in ("FINISHED", "SUSPENDED"), st["jobStatus"])
            out = k.out("get", "flinkdeployment", name, "-n", ns)
            expect(table_rows(out)[1][-1] == "SUSPENDED", out)
            location = st["jobStatus"]["savepointInfo"]["lastSavepoint"]["location"]
            expect(st["jobStatus"].get("upgradeSavepointPath") == location, st["jobStatus"])
            time.sleep(1)  # downtime: the topic keeps producing into a backlog
            k.out("patch", "flinkdeployment", name, "-n", ns, "--type", "merge",
                  "-p", '{"spec":{"job":{"state":"running"}}}')
            st = fl.wait_running(ns, name, job_id_not=old)
            new = st["jobStatus"]["jobId"]
            restored = fl.restored_from(ns, name, new)
            expect(restored and restored["is_savepoint"] and restored["external_path"] == location,
                   "resumed job restored from %s, not %s" % (restored, location))
            t = fl.wait_ledger(ns, name, 2)
            expect(t["jobs"] == [old, new] and t["savepointCommits"] > 0, t)
            k.out("delete", "flinkdeployment", name, "-n", ns)
        c.run("suspend and resume (savepoint): job stopped with a savepoint, SUSPENDED, resumes "
              "from the savepoint, ledger without gaps or overlaps", suspend_resume)

        def manual_savepoint():
            name = "sp-manual"
            k.out("apply", "-n", ns, "-f", "-", stdin=stateful(name, "savepoint"))
            jid = fl.wait_running(ns, name)["jobStatus"]["jobId"]
            k.out("patch", "flinkdeployment", name, "-n", ns, "--type", "merge",
                  "-p", '{"spec":{"job":{"savepointTriggerNonce":7}}}')

            def done():
                sp = fl.status(ns, name)["jobStatus"]["savepointInfo"]
                manual = [s for s in sp.get("savepointHistory", []) if s["triggerType"] == "MANUAL"]
                expect(manual and not sp.get("triggerId"), sp)
                return True
            wait_until(done, timeout=60, what="a MANUAL savepoint in the history")
            st = fl.status(ns, name)
            sp = st["jobStatus"]["savepointInfo"]
            expect(sp["lastSavepoint"]["triggerType"] == "MANUAL", sp)
            location = sp["lastSavepoint"]["location"]
            expect(location.startswith("file:///flink-data/%s/savepoints/" % name), sp)
            expect(os.path.isfile(os.path.join(fl.fs_path(location), "_metadata")), location)
            spec = json.loads(st["reconciliationStatus"]["lastReconciledSpec"])["spec"]
            expect(spec["job"].get("savepointTriggerNonce") == 7, spec["job"])
            expect(st["jobStatus"]["jobId"] == jid and st["jobStatus"]["state"] == "RUNNING", st)
            cps = fl.rest(ns, name, "/jobs/%s/checkpoints" % jid)
            expect(cps["counts"].get("completed", 0) >= 1, cps["counts"])
            expect(fl.topic(ns, name)["issues"] == [], "ledger issues")
            k.out("delete", "flinkdeployment", name, "-n", ns)
        c.run("savepointTriggerNonce: a MANUAL savepoint is taken, recorded and written",
              manual_savepoint)

        def flinkstatesnapshot():
            name = "sp-snapshot"
            k.out("apply", "-n", ns, "-f", "-", stdin=stateful(name, "savepoint"))
            jid = fl.wait_running(ns, name)["jobStatus"]["jobId"]
            snapshots = """
apiVersion: flink.apache.org/v1beta1
kind: FlinkStateSnapshot
metadata: {name: %(name)s-savepoint}
spec:
  jobReference: {kind: FlinkDeployment, name: %(name)s}
  savepoint: {}
---
apiVersion: flink.apache.org/v1beta1
kind: FlinkStateSnapshot
metadata: {name: %(name)s-checkpoint}
spec:
  jobReference: {kind: FlinkDeployment, name: %(name)s}
  checkpoint: {}
""" % {"name": name}
            k.out("apply", "-n", ns, "-f", "-", stdin=snapshots)
            sp = wait_snapshot(fl, ns, name + "-savepoint", "COMPLETED")
            location = sp["path"]
            expect(location.startswith("file:///flink-data/%s/savepoints/savepoint-" % name), sp)
            expect(os.path.isfile(os.path.join(fl.fs_path(location), "_metadata")), location)
            expect(sp.get("triggerTimestamp") and sp.get("resultTimestamp"), sp)
            cp = wait_snapshot(fl, ns, name + "-checkpoint", "COMPLETED")
            # (retained checkpoints are subsumed by later ones, so only its name is checked)
            expect(cp["path"].startswith("file:///flink-data/%s/checkpoints/%s/chk-" % (name, jid)),
                   cp)
            labels = fl.get(ns, name + "-checkpoint", kind="flinkstatesnapshot")["metadata"]["labels"]
            expect(labels == {"snapshot.type": "CHECKPOINT", "snapshot.trigger-type": "MANUAL",
                              "snapshot.state": "COMPLETED", "job-reference.kind": "FlinkDeployment",
                              "job-reference.name": name}, labels)
            rows = table_rows(k.out("get", "flinksnp", name + "-savepoint", "-n", ns))
            expect(rows[0][0] == "NAME" and rows[1][0] == name + "-savepoint" and
                   rows[1][1] == location and rows[1][-1] == "COMPLETED", rows)
            # the job kept running, and its legacy savepoint status was not involved
            st = fl.status(ns, name)
            expect(st["jobStatus"]["jobId"] == jid and st["jobStatus"]["state"] == "RUNNING", st)
            expect(not st["jobStatus"].get("savepointInfo", {}).get("lastSavepoint"), st)
            # deleting the savepoint snapshot disposes of the savepoint (disposeOnDelete: true)
            k.out("delete", "flinkstatesnapshot", name + "-savepoint", "-n", ns, "--timeout=30s")
            expect(not os.path.exists(fl.fs_path(location)), "not disposed: " + location)
            k.out("delete", "flinkstatesnapshot", name + "-checkpoint", "-n", ns, "--timeout=30s")
            k.out("delete", "flinkdeployment", name, "-n", ns)
        c.run("FlinkStateSnapshot: a savepoint and a checkpoint of a running job are COMPLETED "
              "with their paths, deleting the savepoint disposes of it", flinkstatesnapshot)

        def invalid_spec():
            name = "invalid"
            k.out("apply", "-n", ns, "-f", "-", stdin=stateful(name, "savepoint"))
            before = fl.wait_running(ns, name)
            jid = before["jobStatus"]["jobId"]
            # The CRD schema accepts a negative parallelism; the operator's validator does not.
            k.out("patch", "flinkdeployment", name, "-n", ns, "--type", "merge",
                  "-p", '{"spec":{"job":{"parallelism":-1}}}')

            def rejected():
                st = fl.status(ns, name)
                expect_in("Job parallelism must be larger than 0", st.get("error") or "",
                          "status.error")
                return True
            wait_until(rejected, what="status.error")
            events = k.json("get", "events", "-n", ns, "--field-selector",
                            "involvedObject.name=%s,type=Warning" % name)["items"]
            expect(any(e["reason"] == "ValidationError" and
                       "Job parallelism must be larger than 0" in e["message"] for e in events),
                   [(e["reason"], e["message"]) for e in events])
            out = k.out("get", "events", "-n", ns, "--field-selector", "reason=ValidationError")
            expect_in("flinkdeployment/" + name, out)
            time.sleep(2)  # a few reconcile intervals: nothing may be redeployed
            st = fl.status(ns, name)
            expect(st["jobStatus"]["jobId"] == jid and st["jobStatus"]["state"] == "RUNNING",
                   st["jobStatus"])
            spec = json.loads(st["reconciliationStatus"]["lastReconciledSpec"])["spec"]
            expect(spec["job"]["parallelism"] == 2, spec["job"])
            jobs = fl.rest(ns, name, "/jobs/overview")["jobs"]
            expect([j["jid"] for j in jobs if j["state"] == "RUNNING"] == [jid], jobs)
            # fixing the spec clears the error and proceeds (an upgrade to parallelism 3)
            k.out("patch", "flinkdeployment", name, "-n", ns, "--type", "merge",
                  "-p", '{"spec":{"job":{"parallelism":3}}}')
            st = fl.wait_running(ns, name, job_id_not=jid)
            expect(not st.get("error"), st.get("error"))
            k.out("delete", "flinkdeployment", name, "-n", ns)
        c.run("an invalid spec is rejected: the job keeps running, status.error and a "
              "ValidationError event say why", invalid_spec)

        code = c.exit_code()
        print("operator e2e took %.1f s" % (time.monotonic() - started))
        if code != 0:
            print("---- trimtab local log (tail) ----")
            print("\n".join(cluster.log().splitlines()[-80:]))
        return code


def check_example(k, fl, ns, exp, net):
    for name in exp.get("running", []):
        fl.wait_running(ns, name)
        tms = k.json("get", "pods", "-n", ns, "-l", "app=%s,component=taskmanager" % name)
        expect(tms["items"] and all(p["status"]["phase"] == "Running" for p in tms["items"]),
               "TaskManagers of %s" % name)
        if "containers" in exp:
            rows = table_rows(k.out("get", "pods", "-n", ns, "-l", "app=%s,component=jobmanager"
                                    % name))
            expect(rows[1][1] == exp["containers"] and rows[1][2] == "Running", rows)
    for name in exp.get("session", []):
        def stable():
            st = fl.status(ns, name)
            expect(st.get("lifecycleState") == "STABLE" and
                   st.get("jobManagerDeploymentStatus") == "READY", st)
            return True
        wait_until(stable, timeout=60, what="session cluster %s STABLE" % name)
        expect(fl.rest(ns, name, "/overview")["jobs-running"] == 0 or exp.get("sessionjobs"),
               "jobs in an empty session cluster")
    for name in exp.get("sessionjobs", []):
        if net:
            fl.wait_running(ns, name, kind="flinksessionjob")
            continue

        def fetch_error():
            st = fl.status(ns, name, kind="flinksessionjob")
            expect_in("fetch the jar of %s/%s" % (ns, name), st.get("error") or "",
                      "status.error")
            expect(st["jobStatus"]["state"] == "RECONCILING", st["jobStatus"])
            return True
        wait_until(fetch_error, timeout=60, what="%s to report the jar fetch error" % name)
        events = k.json("get", "events", "-n", ns, "--field-selector",
                        "involvedObject.name=%s,type=Warning" % name)["items"]
        expect(any("fetch the jar" in e["message"] for e in events), "no Warning event")
    for name, host in exp.get("ingress", {}).items():
        # The operator's Ingress to the REST Service, owned by the JobManager Deployment.
        ing = k.json("get", "ingress", name, "-n", ns)
        rule = ing["spec"]["rules"][0]
        expect(rule.get("host") == host.format(ns=ns), rule)
        backend = rule["http"]["paths"][0]["backend"]["service"]
        expect(backend == {"name": name + "-rest", "port": {"number": 8081}}, backend)
        owner = ing["metadata"]["ownerReferences"][0]
        expect(owner["kind"] == "Deployment" and owner["name"] == name, owner)
    for name in exp.get("canary", []):
        time.sleep(2)  # a few reconcile intervals
        d = fl.get(ns, name)
        expect(not d.get("status"), "canary got a status: %s" % d.get("status"))
        expect(k.run("get", "deployment", name, "-n", ns, ok=None).returncode != 0,
               "canary got a Deployment")
    for name in exp.get("restore_missing", []):
        def failed():
            st = fl.status(ns, name)
            expect(st.get("lifecycleState") == "FAILED", st.get("lifecycleState"))
            expect_in("Cannot find checkpoint or savepoint", (st.get("error") or ""),
                      "status.error")
            return True
        wait_until(failed, timeout=60, what="%s FAILED (missing initialSavepointPath)" % name)
    if "hpa" in exp:
        hpa = k.json("get", "hpa", exp["hpa"], "-n", "default")
        expect(hpa["spec"]["scaleTargetRef"] == {"apiVersion": "flink.apache.org/v1beta1",
                                                 "kind": "FlinkDeployment", "name": "basic"},
               hpa["spec"])
    for name, path in exp.get("snapshot_completed", {}).items():
        st = wait_snapshot(fl, ns, name, "COMPLETED")
        expect(st.get("path") == path and st.get("resultTimestamp"), st)
        expect(not st.get("triggerId") and st.get("failures") == 0, st)
        labels = fl.get(ns, name, kind="flinkstatesnapshot")["metadata"]["labels"]
        expect(labels == {"snapshot.type": "SAVEPOINT", "snapshot.trigger-type": "MANUAL",
                          "snapshot.state": "COMPLETED"}, labels)
    for name, error in exp.get("snapshot_failed", {}).items():
        error = error.format(ns=ns)
        st = wait_snapshot(fl, ns, name, "FAILED")
        expect(st.get("error") == error and not st.get("path"), st)
        events = k.json("get", "events", "-n", ns, "--field-selector",
                        "involvedObject.name=%s,type=Warning" % name)["items"]
        expect(any(e["reason"] == "ValidationError" and e["message"] == error for e in events),
               [(e["reason"], e["message"]) for e in events])
        snap = fl.get(ns, name, kind="flinkstatesnapshot")
        expect(snap["metadata"]["labels"].get("snapshot.state") == "FAILED", snap["metadata"])
        expect(snap["metadata"]["finalizers"] == ["flinkstatesnapshots.flink.apache.org/finalizer"],
               snap["metadata"])


def wait_snapshot(fl, ns, name, state, timeout=60):
    """Waits until FlinkStateSnapshot `name` is in `state`; returns its status."""
    def reached():
        st = fl.status(ns, name, kind="flinkstatesnapshot")
        expect(st.get("state") == state, "%s: %s" % (name, st))
        return True
    wait_until(reached, timeout=timeout, what="FlinkStateSnapshot %s/%s %s" % (ns, name, state))
    return fl.status(ns, name, kind="flinkstatesnapshot")


if __name__ == "__main__":
    sys.exit(main())
