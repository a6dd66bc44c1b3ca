#!/usr/bin/env python3
"""Gang scheduling of Flink jobs on `trimtab local`, end to end with the real kubectl: the story
of FLIP-250 (custom Kubernetes schedulers for Flink, Volcano as the reference), played with the
operator's PodGroups and the local cluster's Volcano-compatible scheduler.

1. priority order: a queue with room for one job at a time; a pod occupying it; three bounded
   FlinkDeployments with priority classes low, medium and high submitted in that order. All
   three wait (PodGroup Pending, the queue's reason on the group). The occupying pod is
   deleted: the jobs run and finish in priority order high, medium, low, each admitted whole --
   never a JobManager running while its TaskManagers wait, never two jobs at once;
2. no deadlock: two jobs that together do not fit are submitted at the same moment; one runs
   whole, the other waits with its reason and never holds a pod;
3. whole-job preemption: a low-priority streaming job with checkpoints and HA runs; a
   high-priority job arrives for which the queue has no room; the scheduler evicts every pod of
   the low job at once (gangpreempt), the high job runs and finishes, and the low job comes back
   on its own, restored from its last checkpoint, with a clean offset ledger (nothing lost,
   nothing read twice).

The cluster clock runs at --speed 10. Usage: gang_e2e.py --trimtab BIN  (77 = skipped: no kubectl)
"""

import json
import os
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from local_cluster import SKIP, e2e_args, Checks, LocalCluster, expect, expect_in  # noqa: E402
from kubectl_e2e import Kubectl, wait_until  # noqa: E402

SPEED = 10
# Ranges of their own, so other e2e tests and a default `trimtab local` do not collide.
RANGES = ["--service-cidr", "127.17.0.0/16", "--pod-cidr", "127.27.0.0/16"]
# Four nodes of 4 cpu: 16 cpu in all. Every job below asks for 1 (JobManager) + 2 x 2
# (TaskManagers) = 5 cpu; the queues hold one job (story 1 and 3) or 1.6 jobs (story 2).
NODES = ["--nodes", "4", "--node-cpu", "4", "--node-memory", "32Gi"]

OPERATOR_CONFIG = """
kubernetes.operator.reconcile.interval: 5 s
kubernetes.operator.observer.progress-check.interval: 5 s
kubernetes.operator.observer.rest-ready.delay: 2 s
kubernetes.operator.jm-deployment.shutdown-ttl: 20 s
"""

# Volcano's chart configuration plus gangpreempt (whole-job preemption within a queue) and sla,
# which the chart leaves off. Volcano admits a job only when its queue has room for it, so a
# job waiting behind a full queue could never preempt; sla admits a PodGroup past that check
# once it has waited its volcano.sh/sla-waiting-time (the operator's slaWaitingTime option).
SCHEDULER_CONF = """
actions: "enqueue, allocate, gangpreempt, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
  - name: sla
- plugins:
  - name: overcommit
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
"""

SERVICE_ACCOUNT = """
apiVersion: v1
kind: ServiceAccount
metadata: {name: flink, namespace: %s}
"""

PRIORITY_CLASSES = """
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: flink-low}
value: 100
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: flink-medium}
value: 500
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: flink-high}
value: 1000
"""

QUEUE = """
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: %(name)s}
spec:
  weight: 1
  reclaimable: false
  capability: {cpu: "%(cpu)s", memory: 40Gi}
"""

OCCUPIER = """
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: occupier, namespace: %(ns)s}
spec:
  queue: %(queue)s
  minMember: 1
  minResources: {cpu: "4", memory: 1Gi}
---
apiVersion: v1
kind: Pod
metadata:
  name: occupier
  namespace: %(ns)s
  annotations: {scheduling.k8s.io/group-name: occupier}
spec:
  schedulerName: volcano
  containers:
  - name: busy
    image: busybox
    command: [sleep, infinity]
    resources: {requests: {cpu: "4", memory: 1Gi}}
"""

# A bounded job: a stateless q1 whose source stops at offset `records` of each of its 4
# partitions (a Kafka source with stopping offsets), then FINISHED.
BOUNDED_JOB = "{library: q1, parallelism: 4, partitions: 4, stoppingOffsets: %(records)d}"
# An unbounded keyed job with state (q5) for the preemption story.
STREAMING_JOB = "{library: q5, parallelism: 4, partitions: 4, maxParallelism: 16}"

FLINK_DEPLOYMENT = """
apiVersion: flink.apache.org/v1beta1
kind: FlinkDeployment
metadata:
  name: %(name)s
  namespace: %(ns)s
  annotations:
    trimtab.dev/job: "%(job)s"
    trimtab.dev/workload: "{type: constant, rate: %(rate)d}"
spec:
  image: flink:1.20
  flinkVersion: v1_20
  flinkConfiguration:
    taskmanager.numberOfTaskSlots: "2"
    kubernetes.scheduler-name: volcano
    kubernetes.scheduler.volcano.config: "queue:%(queue)s,priorityClassName:%(priority)s%(extra)s"
    high-availability.type: kubernetes
    high-availability.storageDir: file:///flink-data/%(name)s/ha
    execution.checkpointing.interval: 10 s
    state.checkpoints.dir: file:///flink-data/%(name)s/checkpoints
    state.savepoints.dir: file:///flink-data/%(name)s/savepoints
  serviceAccount: flink
  jobManager:
    resource: {cpu: 1, memory: "2048m"}
  taskManager:
    resource: {cpu: 2, memory: "4096m"}
  job:
    jarURI: local:///opt/flink/usrlib/job.jar
    parallelism: 4
    upgradeMode: last-state
"""


def pod_owner_job(pod):
    return pod["metadata"].get("labels", {}).get("app")


class PodRecorder(threading.Thread):
    """Samples the pods of a namespace every 0.3 s: (time, {job: {"jm": phase, "tm": [phases]}}),
    so the checks can see whether a job ever ran partly."""

    def __init__(self, k, ns):
        super().__init__(daemon=True)
        self.k, self.ns = k, ns
        self.samples = []
        self.stop_event = threading.Event()

    def run(self):
        while not self.stop_event.is_set():
            try:
                pods = self.k.json("get", "pods", "-n", self.ns)["items"]
            except Exception:  # noqa: BLE001 - a failed sample is skipped
                time.sleep(0.3)
                continue
            jobs = {}
            for p in pods:
                job = pod_owner_job(p)
                comp = p["metadata"].get("labels", {}).get("component")
                if not job or comp not in ("jobmanager", "taskmanager"):
                    continue
                if p["metadata"].get("deletionTimestamp"):
                    continue
                entry = jobs.setdefault(job, {"jm": None, "tm": []})
                phase = p["status"].get("phase", "Pending")
                if comp == "jobmanager":
                    entry["jm"] = phase
                else:
                    entry["tm"].append(phase)
            self.samples.append((time.monotonic(), jobs))
            time.sleep(0.3)

    def stop(self):
        self.stop_event.set()
        self.join(5)

    def running_since(self, job):
        """First sample time at which `job`'s JobManager was Running (None: never)."""
        for t, jobs in self.samples:
            if jobs.get(job, {}).get("jm") == "Running":
                return t
        return None

    def partial_runs(self, job, grace_s):
        """Stretches longer than `grace_s` during which the JobManager ran while a TaskManager
        pod of the same job was Pending (a job admitted in part)."""
        bad, since = [], None
        for t, jobs in self.samples:
            e = jobs.get(job)
            partial = e is not None and e["jm"] == "Running" and "Pending" in e["tm"]
            if partial and since is None:
                since = t
            if not partial and since is not None:
                if t - since > grace_s:
                    bad.append(round(t - since, 1))
                since = None
        return bad

    def overlaps(self, a, b):
        """Samples in which pods of both jobs were Running."""
        n = 0
        for _, jobs in self.samples:
            ra = any(p == "Running" for p in [jobs.get(a, {}).get("jm")] + jobs.get(a, {}).get("tm", []))
            rb = any(p == "Running" for p in [jobs.get(b, {}).get("jm")] + jobs.get(b, {}).get("tm", []))
            n += ra and rb
        return n


def http_json(ip, path, port=8081):
    """GET on a simulated Flink REST API; an unreachable or garbled answer is an AssertionError,
    which wait_until retries."""
    try:
        with urllib.request.urlopen("http://%s:%d%s" % (ip, port, path), timeout=5) as r:
            return json.loads(r.read())
    except (OSError, ValueError) as e:
        raise AssertionError("GET %s on %s: %s" % (path, ip, e))


def main():
    args = e2e_args()
    if args is None:
        return SKIP
    cluster = LocalCluster(args.trimtab, extra_args=RANGES + NODES)
    op_config = os.path.join(cluster.tmp, "operator.yaml")
    with open(op_config, "w") as f:
        f.write(OPERATOR_CONFIG)
    sched_conf = os.path.join(cluster.tmp, "volcano-scheduler.conf")
    with open(sched_conf, "w") as f:
        f.write(SCHEDULER_CONF)
    cluster.extra_args += ["--operator-config", op_config, "--scheduler-conf", sched_conf,
                           "--speed", str(SPEED)]
    with cluster:
        k = Kubectl(args.kubectl, cluster)
        c = Checks()
        k.run("apply", "-f", "-", stdin=PRIORITY_CLASSES)

        def apply(text):
            return k.out("apply", "-f", "-", stdin=text)

        def fd(name, ns, queue, priority, job, rate=20000, extra=""):
            return FLINK_DEPLOYMENT % {"name": name, "ns": ns, "queue": queue,
                                       "priority": priority, "job": job, "rate": rate,
                                       "extra": extra}

        def podgroup(ns, name):
            return k.json("get", "podgroup", "podgroup-" + name, "-n", ns)

        def job_state(ns, name):
            st = k.json("get", "flinkdeployment", name, "-n", ns).get("status", {})
            return st.get("jobStatus", {}).get("state")

        def priority_order():
            ns, queue = "story", "one-job"
            k.out("create", "namespace", ns)
            apply(SERVICE_ACCOUNT % ns)
            apply(QUEUE % {"name": queue, "cpu": 6})
            apply(OCCUPIER % {"ns": ns, "queue": queue})
            wait_until(lambda: k.json("get", "pod", "occupier", "-n", ns)["status"].get("phase")
                       == "Running", timeout=30, what="the occupying pod running")
            rec = PodRecorder(k, ns)
            rec.start()
            jobs = [("job-low", "flink-low"), ("job-medium", "flink-medium"),
                    ("job-high", "flink-high")]
            bounded = BOUNDED_JOB % {"records": 400000}  # 20 s of input at 20k/s
            for name, prio in jobs:
                apply(fd(name, ns, queue, prio, bounded))
            # All three wait for the queue: their groups exist and none is admitted.
            for name, _ in jobs:
                wait_until(lambda n=name: podgroup(ns, n), timeout=60,
                           what="the PodGroup of " + name)
            time.sleep(3)
            for name, prio in jobs:
                pg = podgroup(ns, name)
                expect(pg["spec"]["queue"] == queue and pg["spec"]["priorityClassName"] == prio, pg)
                expect(pg.get("status", {}).get("phase") in (None, "Pending"), pg.get("status"))
            out = k.out("describe", "podgroup", "podgroup-job-high", "-n", ns)
            expect_in("Pending", out)
            k.out("delete", "pod", "occupier", "-n", ns, "--wait=false")
            k.out("delete", "podgroup", "occupier", "-n", ns)
            # The jobs run and finish one by one, highest priority first.
            finished = {}
            deadline = time.monotonic() + 240
            while len(finished) < 3 and time.monotonic() < deadline:
                for name, _ in jobs:
                    if name not in finished and job_state(ns, name) == "FINISHED":
                        finished[name] = time.monotonic()
                time.sleep(0.5)
            rec.stop()
            expect(len(finished) == 3, "finished: %s; pods:\n%s" %
                   (finished, k.out("get", "pods,podgroups", "-n", ns, "-o", "wide")))
            starts = {name: rec.running_since(name) for name, _ in jobs}
            expect(starts["job-high"] < starts["job-medium"] < starts["job-low"],
                   "JobManager start order: %s" % starts)
            expect(finished["job-high"] < finished["job-medium"] < finished["job-low"],
                   "finish order: %s" % finished)
            for name, _ in jobs:
                # TaskManagers are requested by the running JobManager, so they trail it by a
                # moment; waiting for room is what must never happen.
                bad = rec.partial_runs(name, grace_s=5)
                expect(not bad, "%s ran with TaskManagers pending for %s s" % (name, bad))
            for a, b in (("job-high", "job-medium"), ("job-medium", "job-low"),
                         ("job-high", "job-low")):
                expect(rec.overlaps(a, b) == 0, "%s and %s ran at the same time" % (a, b))

        def no_deadlock():
            ns, queue = "pair", "one-and-a-half"
            k.out("create", "namespace", ns)
            apply(SERVICE_ACCOUNT % ns)
            apply(QUEUE % {"name": queue, "cpu": 8})
            rec = PodRecorder(k, ns)
            rec.start()
            job = STREAMING_JOB
            apply(fd("left", ns, queue, "flink-medium", job) + "---\n" +
                  fd("right", ns, queue, "flink-medium", job))

            def one_running():
                return any(job_state(ns, n) == "RUNNING" for n in ("left", "right"))
            wait_until(one_running, timeout=90, what="one of the two jobs RUNNING")
            time.sleep(5)
            rec.stop()
            states = {n: job_state(ns, n) for n in ("left", "right")}
            runner = "left" if states["left"] == "RUNNING" else "right"
            waiter = "right" if runner == "left" else "left"
            expect(states[waiter] != "RUNNING", states)
            pg = podgroup(ns, waiter)
            expect(pg.get("status", {}).get("phase") in (None, "Pending"), pg.get("status"))
            waiting_pods = k.json("get", "pods", "-n", ns, "-l", "app=" + waiter)["items"]
            expect(all(not p["spec"].get("nodeName") for p in waiting_pods),
                   "the waiting job holds a node: %s" %
                   [(p["metadata"]["name"], p["spec"].get("nodeName")) for p in waiting_pods])
            events = k.out("get", "events", "-n", ns,
                           "--field-selector", "involvedObject.name=podgroup-" + waiter)
            expect("queue" in events.lower() or "resource" in events.lower(), events)
            expect(not rec.partial_runs(runner, grace_s=5), "runner ran in part")

        def whole_job_preemption():
            ns, queue = "preempt", "preempt-one"
            k.out("create", "namespace", ns)
            apply(SERVICE_ACCOUNT % ns)
            apply(QUEUE % {"name": queue, "cpu": 6})
            apply(fd("victim", ns, queue, "flink-low", STREAMING_JOB))
            wait_until(lambda: job_state(ns, "victim") == "RUNNING", timeout=90,
                       what="the low-priority job RUNNING")
            ip = k.json("get", "svc", "victim-rest", "-n", ns)["spec"]["clusterIP"]
            first_job = http_json(ip, "/jobs/overview")["jobs"][0]["jid"]
            # Let it complete a checkpoint or two.
            wait_until(lambda: (http_json(ip, "/jobs/%s/checkpoints" % first_job)["counts"]
                                ["completed"]) >= 2, timeout=60, what="two checkpoints")
            rec = PodRecorder(k, ns)
            rec.start()
            # It may wait 20 s for room before it is admitted past the queue's limit.
            apply(fd("urgent", ns, queue, "flink-high", BOUNDED_JOB % {"records": 200000},
                     extra=",slaWaitingTime:20s"))
            try:
                wait_until(lambda: job_state(ns, "urgent") in ("RUNNING", "FINISHED"),
                           timeout=120, what="the high-priority job running")
            except AssertionError as e:
                raise AssertionError("%s\n%s\n%s" % (
                    e, k.out("get", "pods,podgroups", "-n", ns, "-o", "wide"),
                    k.out("get", "events", "-n", ns)))
            # The victim was evicted whole: in no sample did it run in part after the eviction.
            expect(not rec.partial_runs("victim", grace_s=5), "victim ran in part")
            expect(rec.overlaps("victim", "urgent") == 0, "both jobs ran at once")
            events = k.out("get", "events", "-n", ns)
            expect_in("Evict", events)
            # The urgent job finishes, is cleaned up, and the victim comes back by itself.
            wait_until(lambda: job_state(ns, "urgent") == "FINISHED", timeout=120,
                       what="the high-priority job FINISHED")

            def victim_back():
                if job_state(ns, "victim") != "RUNNING":
                    return False
                ip2 = k.json("get", "svc", "victim-rest", "-n", ns)["spec"]["clusterIP"]
                jobs = http_json(ip2, "/jobs/overview")["jobs"]
                return jobs and jobs[0]["state"] == "RUNNING"
            wait_until(victim_back, timeout=180, what="the victim RUNNING again")
            rec.stop()
            ip2 = k.json("get", "svc", "victim-rest", "-n", ns)["spec"]["clusterIP"]
            jid = http_json(ip2, "/jobs/overview")["jobs"][0]["jid"]
            restored = (http_json(ip2, "/jobs/%s/checkpoints" % jid).get("latest") or {}).get(
                "restored")
            expect(restored is not None and not restored.get("is_savepoint", False),
                   "the victim restarted without its checkpoint: %s" % restored)

            def ledger_clean():
                topics = http_json(ip2, "/trimtab/topics")["topics"]
                expect(topics and topics[0]["issues"] == [], topics)
                return len(topics[0]["jobs"]) >= 1
            wait_until(ledger_clean, timeout=60, what="a clean offset ledger")

        only = os.environ.get("GANG_E2E_ONLY", "")  # run one story while debugging: 1, 2 or 3
        for key, name, fn in (("1", "priority order, each job admitted whole", priority_order),
                              ("2", "two jobs that do not fit together never deadlock",
                               no_deadlock),
                              ("3", "a high-priority job preempts a whole low-priority job",
                               whole_job_preemption)):
            if not only or only == key:
                c.run(name, fn)
        rc = c.exit_code()
        if rc:
            print(cluster.log()[-6000:])
        return rc


if __name__ == "__main__":
    sys.exit(main())
