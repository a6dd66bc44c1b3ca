#!/usr/bin/env python3
"""The autoscaler of `trimtab local`'s operator, end to end with the real kubectl: a
FlinkDeployment with `job.autoscaler.enabled` whose simulated input rises from 20k to 90k
records/s and falls back to 15k/s. Checked from the outside:

- it scales up under load (the job's vertex parallelism over REST `GET /jobs/<id>` on the
  `<name>-rest` clusterIP, the recorded pipeline.jobvertex-parallelism-overrides, the state
  ConfigMap's parallelismOverrides),
- every scale-up stays within `job.autoscaler.behavior.scale-up.policies` (Pods:4/3 min), and the
  limit really bound at least once,
- it scales down only after `job.autoscaler.scale-down.interval` (4 min) from the first wish to
  scale down, and not while the load is still high,
- every scaling is explained: a decision log with reasons in the ConfigMap `autoscaler-<name>`
  (each revision is watched with `kubectl get -w`) and a ScalingReport Event on the
  FlinkDeployment.

The job sets `job.autoscaler.defaults: flink`: these are upstream's rules (the operator's
default, trimtab's tuned defaults, would hold the scale-down for its 15-minute window).

The cluster clock runs at --speed 30 and the operator reconciles every 10 s (simulated), so the
~20 simulated minutes take about 40 s of wall time.

Usage: autoscaler_e2e.py --trimtab BIN   (exit 77 = skipped: no kubectl)
"""

import base64
import datetime
import gzip
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from local_cluster import SKIP, e2e_args, Checks, LocalCluster, expect, expect_in  # noqa: E402
from kubectl_e2e import Kubectl, wait_until  # noqa: E402

NS = "as"
NAME = "surge"
# Ranges of their own, so other e2e tests and a default `trimtab local` do not collide.
RANGES = ["--service-cidr", "127.16.0.0/16", "--pod-cidr", "127.26.0.0/16"]
SPEED = 30  # simulated seconds per wall second

OPERATOR_CONFIG = """
kubernetes.operator.reconcile.interval: 10 s
kubernetes.operator.observer.progress-check.interval: 5 s
kubernetes.operator.observer.rest-ready.delay: 2 s
"""

MINUTE_MS = 60_000
# The load: 20k/s, a ramp to 90k/s between minutes 1 and 2, held until minute 12, down to 15k/s
# by minute 13. Minute 0 is the topic's creation (at the first job start, after the
# FlinkDeployment was created).
LOAD_FALLS_AT_MS = 12 * MINUTE_MS
SCALE_UP_PODS = 4                   # behavior.scale-up.policies: Pods:4/3 min
SCALE_UP_PERIOD_MS = 3 * MINUTE_MS
SCALE_DOWN_INTERVAL_MS = 4 * MINUTE_MS

FLINK_DEPLOYMENT = """
apiVersion: flink.apache.org/v1beta1
kind: FlinkDeployment
metadata:
  name: surge
  annotations:
    trimtab.dev/job: |
      {library: q5, parallelism: 1, partitions: 24, maxParallelism: 24}
    trimtab.dev/workload: |
      type: piecewise
      points: [[0, 20000], [1m, 20000], [2m, 90000], [12m, 90000], [13m, 15000], [90m, 15000]]
spec:
  image: flink:1.20
  flinkVersion: v1_20
  flinkConfiguration:
    job.autoscaler.enabled: "true"
    job.autoscaler.defaults: flink
    job.autoscaler.stabilization.interval: 1 min
    job.autoscaler.metrics.window: 2 min
    job.autoscaler.target.utilization.boundary: "0.1"
    job.autoscaler.scale-down.interval: 4 min
    job.autoscaler.history.max.count: "100"
    job.autoscaler.behavior.scale-up.policies: "Pods:4/3 min"
    pipeline.max-parallelism: "24"
    taskmanager.numberOfTaskSlots: "4"
    high-availability.type: kubernetes
    high-availability.storageDir: file:///flink-data/surge/ha
    execution.checkpointing.interval: 30 s
    state.checkpoints.dir: file:///flink-data/surge/checkpoints
    state.savepoints.dir: file:///flink-data/surge/savepoints
    jobmanager.scheduler: adaptive
  serviceAccount: flink
  jobManager:
    resources: {requests: {memory: "2048m", cpu: "0.5"}}
  taskManager:
    resources: {requests: {memory: "2048m", cpu: "1"}}
  job:
    jarURI: local:///opt/flink/usrlib/surge.jar
    parallelism: 1
    upgradeMode: last-state
"""

HOP_COUNT = "GroupWindowAggregate(HOP"  # the q5 bottleneck vertex (name prefix)


def parse_time_ms(text):
    """RFC 3339 (the API server's and the autoscaler's timestamps) -> Unix ms."""
    t = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return int(round(t.timestamp() * 1000))


def fmt_min(ms, origin):
    return "%.1f min" % ((ms - origin) / MINUTE_MS)


def decode_state(value):
    """A state ConfigMap value: JSON -> gzip -> base64."""
    return json.loads(gzip.decompress(base64.b64decode(value)))


class RestRecorder(threading.Thread):
    """Polls GET /jobs/<id> on the rest Service's clusterIP and keeps (now, state, {vertex name:
    parallelism}) samples: what an outside observer sees of the rescales."""

    def __init__(self, base):
        super().__init__(daemon=True)
        self.base = base
        self.samples = []  # (now_ms, state, {name: parallelism}, {name: id})
        self.errors = 0
        self.stopped = threading.Event()
        self.lock = threading.Lock()

    def get(self, path):
        with urllib.request.urlopen(self.base + path, timeout=3) as r:
            return json.loads(r.read())

    def run(self):
        while not self.stopped.is_set():
            try:
                jobs = self.get("/jobs")["jobs"]
                if jobs:
                    d = self.get("/jobs/" + jobs[0]["id"])
                    par = {v["name"]: v["parallelism"] for v in d["vertices"]}
                    ids = {v["name"]: v["id"] for v in d["vertices"]}
                    with self.lock:
                        self.samples.append((d["now"], d["state"], par, ids))
            except (OSError, ValueError, KeyError, IndexError):
                self.errors += 1
            self.stopped.wait(0.3)

    def snapshot(self):
        with self.lock:
            return list(self.samples)

    def parallelism(self, prefix):
        """[(now_ms, parallelism)] of the vertex whose name starts with prefix, RUNNING only."""
        out = []
        for now, state, par, _ in self.snapshot():
            if state != "RUNNING":
                continue
            for name, p in par.items():
                if name.startswith(prefix):
                    out.append((now, p))
        return out


class ConfigMapWatch(threading.Thread):
    """`kubectl get configmap -w -o json` on the autoscaler's state ConfigMap: every revision,
    so the decision log of every pass (the ConfigMap keeps only the latest) is seen."""

    def __init__(self, kubectl, namespace, name):
        super().__init__(daemon=True)
        cmd = [kubectl.binary, "--cache-dir", kubectl.cache, "get", "configmap", "-n", namespace,
               "--field-selector", "metadata.name=" + name, "-w", "-o", "json"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=kubectl.cluster.env())
        self.revisions = []
        self.lock = threading.Lock()
        self.parse_error = None

    def run(self):
        decoder = json.JSONDecoder()
        buf = ""
        while True:
            chunk = self.proc.stdout.read1(65536) if hasattr(self.proc.stdout, "read1") \
                else self.proc.stdout.read(65536)
            if not chunk:
                return
            buf += chunk.decode("utf-8", "replace")
            while True:
                stripped = buf.lstrip()
                if not stripped:
                    buf = ""
                    break
                try:
                    obj, end = decoder.raw_decode(stripped)
                except ValueError:
                    break  # incomplete: wait for more
                buf = stripped[end:]
                with self.lock:
                    self.revisions.append(obj)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()

    def decision_logs(self):
        """Distinct decision logs in the order they were written."""
        out, seen = [], set()
        with self.lock:
            revisions = list(self.revisions)
        for obj in revisions:
            text = obj.get("data", {}).get("decisionLog")
            if text and text not in seen:
                seen.add(text)
                out.append(json.loads(text))
        return out

    def delayed_scale_downs(self):
        """[(resourceVersion order, {vertex: firstTriggerTime ms})] of every revision."""
        out = []
        with self.lock:
            revisions = list(self.revisions)
        for obj in revisions:
            text = obj.get("data", {}).get("delayedScaleDown")
            if text:
                out.append({v: parse_time_ms(x["firstTriggerTime"]) for v, x in json.loads(text).items()})
        return out


def scalings(history):
    """scalingHistory -> [(time_ms, time text, {vertex: (current, new)})], oldest first."""
    by_time = {}
    for vertex, entries in history.items():
        for e in entries:
            by_time.setdefault(e["time"], {})[vertex] = (e["currentParallelism"], e["newParallelism"])
    return [(parse_time_ms(t), t, v) for t, v in sorted(by_time.items(), key=lambda x: parse_time_ms(x[0]))]


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
        watch = ConfigMapWatch(k, NS, "autoscaler-" + NAME)
        watch.start()
        ctx = {}  # what one check hands to the next
        recorder = None

        def fd():
            return k.json("get", "flinkdeployment", NAME, "-n", NS)

        def state_configmap():
            return k.json("get", "configmap", "autoscaler-" + NAME, "-n", NS)["data"]

        def history():
            return decode_state(state_configmap()["scalingHistory"])

        def starts():
            nonlocal recorder
            out = k.out("apply", "-n", NS, "-f", "-", stdin=FLINK_DEPLOYMENT)
            expect_in("flinkdeployment.flink.apache.org/surge created", out)
            ctx["created"] = parse_time_ms(fd()["metadata"]["creationTimestamp"])
            wait_until(lambda: fd().get("status", {}).get("jobStatus", {}).get("state") == "RUNNING",
                       timeout=60, what="the job to be RUNNING")
            ip = k.json("get", "svc", NAME + "-rest", "-n", NS)["spec"]["clusterIP"]
            expect(ip.startswith("127.16."), ip)
            recorder = RestRecorder("http://%s:8081" % ip)
            recorder.start()
            wait_until(lambda: any(s[1] == "RUNNING" for s in recorder.snapshot()), timeout=30,
                       what="GET /jobs/<id> to answer RUNNING")
            first = [s for s in recorder.snapshot() if s[1] == "RUNNING"][0]
            expect(set(first[2].values()) == {1}, "initial parallelism: %s" % first[2])
            ctx["ids"] = first[3]
            ctx["hop"] = [i for n, i in first[3].items() if n.startswith(HOP_COUNT)][0]
        c.run("the FlinkDeployment runs at parallelism 1, REST answers on the rest clusterIP", starts)

        def scales_up():
            expect(recorder is not None, "no job")
            # The first scale-up wants more than Pods:4 allows, so it lands on 1 + 4 = 5. Whether a
            # second one follows depends on the capacity the autoscaler measures at 5 (the
            # simulator settles this job at 4 to 8 subtasks across seeds), so only the first is
            # required here; the policy's limit binding is checked below.
            wait_until(lambda: max([p for _, p in recorder.parallelism(HOP_COUNT)] or [0]) >= 5,
                       timeout=150, what="the hop-count vertex to reach parallelism >= 5 over REST")
            seen = sorted({p for _, p in recorder.parallelism(HOP_COUNT)})
            expect(len(seen) >= 2, "expected a scale-up, saw parallelism %s" % seen)
            # The parallelism the job runs at is the autoscaler's: in the ConfigMap and in the
            # configuration the operator last deployed.
            current = recorder.parallelism(HOP_COUNT)[-1][1]

            def overrides_agree():
                cm = dict(x.split(":") for x in state_configmap()["parallelismOverrides"].split(","))
                last = json.loads(fd()["status"]["reconciliationStatus"]["lastReconciledSpec"])
                spec = last["spec"]["flinkConfiguration"]["pipeline.jobvertex-parallelism-overrides"]
                deployed = dict(x.split(":") for x in spec.split(","))
                rest = recorder.parallelism(HOP_COUNT)[-1][1]
                expect(int(cm[ctx["hop"]]) == rest and int(deployed[ctx["hop"]]) == rest,
                       "ConfigMap %s, lastReconciledSpec %s, REST %d" % (cm, deployed, rest))
                return True
            wait_until(overrides_agree, timeout=20, what="overrides to match the running job")
            expect(current > 1, current)
        c.run("under load the autoscaler scales up (REST parallelism, overrides)", scales_up)

        def within_behavior():
            hist = scalings(history())
            ups = [(t, v, cur, new) for t, _, changes in hist for v, (cur, new) in changes.items()
                   if new > cur]
            expect(ups, "no scale-up in the scaling history: %s" % hist)
            for t, v, cur, new in ups:
                added = sum(n - c0 for t2, v2, c0, n in ups if v2 == v and t - SCALE_UP_PERIOD_MS < t2 <= t)
                expect(added <= SCALE_UP_PODS,
                       "vertex %s grew by %d within 3 min up to %s (policy Pods:4/3 min): %s" %
                       (v, added, fmt_min(t, ctx["created"]), ups))
            # The outside view agrees: over REST, no vertex grows by more than 4 within the period
            # (less 30 s for the restarts between a decision and the new parallelism).
            for name in ctx["ids"]:
                series = recorder.parallelism(name)
                for now, p in series:
                    low = min(q for t2, q in series if now - SCALE_UP_PERIOD_MS + 30_000 <= t2 <= now)
                    expect(p - low <= SCALE_UP_PODS, "%s went %d -> %d within 2.5 min (at %s)" %
                           (name, low, p, fmt_min(now, ctx["created"])))
            # The limit really bound: some pass wanted more than the policy let it take.
            limited = [(log["time"], v, x.get("proposedParallelism"), x.get("finalParallelism"))
                       for log in watch.decision_logs() if log.get("outcome") == "Scale"
                       for v, x in log.get("vertices", {}).items()
                       if any("ScaleUpLimit" in r for r in x.get("reasons", []))]
            expect(limited, "no decision was limited by behavior.scale-up.policies")
            for when, v, proposed, final in limited:
                expect(proposed is not None and final is not None and proposed > final,
                       "limited decision %s %s: proposed %s final %s" % (when, v, proposed, final))
        c.run("every scale-up stays within behavior.scale-up.policies (Pods:4/3 min)", within_behavior)

        def scales_down():
            expect(recorder is not None, "no job")

            def went_down():
                series = recorder.parallelism(HOP_COUNT)
                peak = max(p for _, p in series)
                return series[-1][1] < peak
            wait_until(went_down, timeout=150, what="the hop-count vertex to scale down over REST")
            hist = scalings(history())
            downs = [(t, text, v, cur, new) for t, text, changes in hist
                     for v, (cur, new) in changes.items() if new < cur]
            expect(downs, "REST saw a scale-down the scaling history lacks: %s" % hist)
            triggers = watch.delayed_scale_downs()
            logs = {log["time"]: log for log in watch.decision_logs()}
            for t, text, v, cur, new in downs:
                # The first wish to scale this vertex down since the previous scaling.
                previous = max([t2 for t2, _, _ in hist if t2 < t] or [0])
                firsts = [d[v] for d in triggers if v in d and previous <= d[v] <= t]
                expect(firsts, "no delayed scale-down was recorded for %s before %s" % (v, text))
                waited = t - min(firsts)
                expect(waited >= SCALE_DOWN_INTERVAL_MS,
                       "%s scaled down %d -> %d only %.1f s after the first wish (interval 4 min)" %
                       (v, cur, new, waited / 1000))
                log = logs.get(text)
                expect(log is not None, "no decision log for the scale-down at %s" % text)
                expect(any("scale-down.interval" in r for r in log["vertices"][v]["reasons"]),
                       log["vertices"][v])
            # Independently of the autoscaler's own records: the bottleneck vertex needs its
            # parallelism while the load is high, so it may go down only after the load started
            # falling plus the scale-down interval (minute 0 of the load is at or after creation).
            earliest = ctx["created"] + LOAD_FALLS_AT_MS + SCALE_DOWN_INTERVAL_MS
            for t, text, v, cur, new in downs:
                if v == ctx["hop"]:
                    expect(t >= earliest, "hop-count scaled down at %s, before %s" %
                           (fmt_min(t, ctx["created"]), fmt_min(earliest, ctx["created"])))
            series = recorder.parallelism(HOP_COUNT)
            for (t1, p1), (t2, p2) in zip(series, series[1:]):
                if p2 < p1:
                    expect(t2 >= earliest, "REST: hop-count %d -> %d at %s, before %s" %
                           (p1, p2, fmt_min(t2, ctx["created"]), fmt_min(earliest, ctx["created"])))
            ctx["downs"] = downs
        c.run("it scales down only after scale-down.interval (4 min) once the load fell",
              scales_down)

        def explained():
            data = state_configmap()
            expect("decisionLog" in data, sorted(data))
            latest = json.loads(data["decisionLog"])
            expect(latest.get("jobKey") == NS + "/" + NAME, latest)
            expect("outcome" in latest and "time" in latest, latest)
            hist = scalings(history())
            logs = {log["time"]: log for log in watch.decision_logs()}
            for t, text, changes in hist:
                log = logs.get(text)
                expect(log is not None and log["outcome"] == "Scale",
                       "scaling at %s has no Scale decision log (have %s)" %
                       (text, sorted(x for x in logs if logs[x]["outcome"] == "Scale")))
                for v, (cur, new) in changes.items():
                    entry = log["vertices"][v]
                    expect(entry["currentParallelism"] == cur and entry["finalParallelism"] == new,
                           "decision log %s vertex %s: %s" % (text, v, entry))
                    direction = "scale up" if new > cur else "scale down"
                    expect(any(r.startswith(direction) for r in entry["reasons"]),
                           "decision log %s vertex %s has no reason: %s" % (text, v, entry))
            events = k.json("get", "events", "-n", NS, "--field-selector",
                            "involvedObject.kind=FlinkDeployment,involvedObject.name=%s,"
                            "reason=ScalingReport" % NAME)["items"]
            executed = sorted((e for e in events if "Scaling execution enabled" in e["message"]),
                              key=lambda e: e["firstTimestamp"])
            expect(len(executed) == len(hist), "%d ScalingReport Events for %d scalings:\n%s" %
                   (len(executed), len(hist), "\n".join(e["message"] for e in executed)))
            # Events name vertices by name (issue 26), as the Flink REST API reports them.
            names = {}
            for _, _, _, ids in recorder.snapshot():
                names.update({i: n for n, i in ids.items()})
            for event, (t, text, changes) in zip(executed, hist):
                for v, (cur, new) in changes.items():
                    expect_in("Vertex ID %s | Parallelism %d -> %d" % (names.get(v, v), cur, new),
                              event["message"],
                              "ScalingReport of %s" % text)
                expect(event["type"] == "Normal" and event["source"]["component"] == "Operator",
                       event)
            out = k.out("describe", "flinkdeployment", NAME, "-n", NS)
            expect_in("ScalingReport", out, "kubectl describe")
            names = {i: n.split("(")[0].split(":")[0] for n, i in ctx["ids"].items()}
            for t, _, changes in hist:
                print("    %s: %s" % (fmt_min(t, ctx["created"]), ", ".join(
                    "%s %d -> %d" % (names.get(v, v), c0, n) for v, (c0, n) in sorted(changes.items()))))
            ups = sum(1 for _, _, ch in hist if any(n > c0 for c0, n in ch.values()))
            print("    %d scalings (%d up, %d down), all with a decision log and a ScalingReport" %
                  (len(hist), ups, len(hist) - ups))
        c.run("every scaling has a decision log with reasons and a ScalingReport Event", explained)

        if recorder is not None:
            recorder.stopped.set()
        watch.stop()
        code = c.exit_code()
        print("autoscaler e2e took %.1f s" % (time.monotonic() - started))
        if code != 0:
            if recorder is not None:
                print("---- REST samples (simulated minute: parallelism by vertex) ----")
                last = None
                for now, state, par, _ in recorder.snapshot():
                    row = (state, tuple(par.values()))
                    if row != last:
                        print("  %s %s %s" % (fmt_min(now, ctx.get("created", now)), state, list(par.values())))
                        last = row
            print("---- decision logs (every pass the ConfigMap watch saw) ----")
            hop = ctx.get("hop")
            for log in watch.decision_logs():
                head = {k: v for k, v in log.items() if k not in ("vertices", "jobKey")}
                print("  " + json.dumps(head, sort_keys=True)[:400])
                entry = (log.get("vertices") or {}).get(hop) if hop else None
                if entry:
                    print("    hop-count: " + json.dumps(entry, sort_keys=True)[:600])
            print("---- trimtab local log (tail) ----")
            print("\n".join(cluster.log().splitlines()[-60:]))
        return code


if __name__ == "__main__":
    sys.exit(main())
