#!/usr/bin/env python3
"""The operator demo: `trimtab local` runs a Kubernetes-compatible cluster, a simulated Flink
cluster and the operator with its autoscaler in one process; this script creates the
FlinkDeployment of examples/demo/autoscaling.yaml and narrates what the autoscaler does while the
job's input rises and falls, on a clock running --speed times faster than wall time. It talks to
the API server of trimtab local (the `server:` of <data-dir>/kubeconfig: plain HTTP, no
authentication) directly, so kubectl is not needed.

Every --every simulated seconds it prints one line: simulated time since the FlinkDeployment was
created, the topic's input rate (GET /trimtab/topics, produced records per second), what the job
reads and its backlog (source metrics numRecordsInPerSecond and pendingRecords), the
parallelism of every job vertex (GET /jobs/<id>) and the job state. Each new scaling decision is
printed with its reasons (the decision log in the ConfigMap autoscaler-<name>, watched through
the API server) and the ScalingReport Event; a scale-down the autoscaler wants but delays
(scale-down.interval) is announced when it is first wanted.

At the end: a summary (rescales, max and final parallelism, simulated time at each parallelism),
trimtab local is stopped, and the exit status is 0 only if the job was scaled up and back down.

Usage: demo_operator.py PATH_TO_TRIMTAB [--speed 20] [--minutes 50] [--every 30]
Python 3 standard library plus PyYAML (Debian python3-yaml, installed by
scripts/install-deps.sh) to read the manifest.
"""

import argparse
import base64
import datetime
import http.client
import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

try:
    import yaml
except ImportError:  # reported by main()
    yaml = None

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Short operator intervals, so the autoscaler runs every 15 simulated seconds.
OPERATOR_CONFIG = """
kubernetes.operator.reconcile.interval: 15 s
kubernetes.operator.observer.progress-check.interval: 5 s
kubernetes.operator.observer.rest-ready.delay: 2 s
"""

NAMESPACE = "default"

# Every address the script talks to is local (the API server, the rest Service clusterIP):
# never through an http_proxy from the environment.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def api_opener(kubeconfig):
    """(server URL, opener) for the API server of trimtab local's kubeconfig: HTTPS verified
    with the kubeconfig's CA and the administrator's bearer token on every request."""
    with open(kubeconfig) as f:
        config = yaml.safe_load(f)
    cluster = config["clusters"][0]["cluster"]
    user = config["users"][0].get("user") or {}
    handlers = [urllib.request.ProxyHandler({})]
    if cluster.get("certificate-authority-data"):
        ctx = ssl.create_default_context(
            cadata=base64.b64decode(cluster["certificate-authority-data"]).decode())
        handlers.append(urllib.request.HTTPSHandler(context=ctx))
    opener = urllib.request.build_opener(*handlers)
    if user.get("token"):
        opener.addheaders = [("Authorization", "Bearer " + user["token"])]
    return cluster["server"], opener


class DemoError(Exception):
    pass


def parse_time_ms(text):
    t = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return int(round(t.timestamp() * 1000))


def clock(ms):
    """Simulated milliseconds since the start as m:ss."""
    s = max(0, int(ms // 1000))
    return "%3d:%02d" % (s // 60, s % 60)


def rate(x):
    if x is None:
        return "   -  "
    if x >= 1e6:
        return "%5.2fM" % (x / 1e6)
    if x >= 1e3:
        return "%5.1fk" % (x / 1e3)
    return "%6.0f" % x


def flatten(conf, prefix=""):
    """Nested flinkConfiguration YAML ({job.autoscaler: {enabled: true}}) -> flat keys."""
    out = {}
    for key, value in conf.items():
        if isinstance(value, dict):
            out.update(flatten(value, prefix + key + "."))
        else:
            out[prefix + key] = value if isinstance(value, str) else json.dumps(value)
    return out


class Cluster:
    """`trimtab local` in a temporary directory, stopped by stop() (and on any exit path)."""

    def __init__(self, trimtab, speed, extra):
        self.tmp = tempfile.mkdtemp(prefix="trimtab-demo-")
        self.data_dir = os.path.join(self.tmp, "data")
        self.log_path = os.path.join(self.tmp, "trimtab-local.log")
        config = os.path.join(self.tmp, "operator-config.yaml")
        with open(config, "w") as f:
            f.write(OPERATOR_CONFIG)
        self.cmd = [trimtab, "local", "--data-dir", self.data_dir, "--port", "0",
                    "--speed", str(speed), "--operator-config", config] + extra
        self.proc = None
        self.kubeconfig = os.path.join(self.data_dir, "kubeconfig")
        self.server = None  # the API server's URL, once it answers

    def start(self, timeout=60):
        log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(self.cmd, stdout=log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise DemoError("trimtab local exited with %d:\n%s" % (self.proc.returncode,
                                                                      self.log_tail()))
            if os.path.isfile(self.kubeconfig) and self._answers():
                self.server = self._server()
                return
            time.sleep(0.2)
        raise DemoError("trimtab local did not become ready in %d s:\n%s" % (timeout, self.log_tail()))

    def _server(self):
        """The `server:` URL of the kubeconfig trimtab local writes, or None."""
        with open(self.kubeconfig) as f:
            for line in f:
                if line.strip().startswith("server:"):
                    return line.split(":", 1)[1].strip().strip('"') or None
        return None

    def _answers(self):
        try:
            server = self._server()
            if not server:
                return False
            url, opener = api_opener(self.kubeconfig)
            with opener.open(url + "/version", timeout=2) as r:
                return r.status == 200
        except (OSError, ValueError, http.client.HTTPException):
            return False

    def log_tail(self, lines=30):
        try:
            with open(self.log_path, "rb") as f:
                return "\n".join(f.read().decode("utf-8", "replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)


class Api:
    """The few calls the demo makes to the API server of trimtab local (HTTPS with the
    kubeconfig's CA and token), in the namespace default."""

    FLINK_DEPLOYMENTS = "/apis/flink.apache.org/v1beta1/namespaces/%s/flinkdeployments" % NAMESPACE
    CORE = "/api/v1/namespaces/" + NAMESPACE

    def __init__(self, kubeconfig):
        server, self.opener = api_opener(kubeconfig)
        self.server = server.rstrip("/")

    def request(self, method, path, body=None, timeout=30):
        """The decoded JSON answer; DemoError with the server's message when the call fails."""
        data = None if body is None else json.dumps(body, default=str).encode()
        req = urllib.request.Request(self.server + path, data=data, method=method,
                                     headers={"Content-Type": "application/json",
                                              "Accept": "application/json"})
        try:
            with self.opener.open(req, timeout=timeout) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as e:
            try:
                message = json.loads(e.read()).get("message") or e.reason
            except (OSError, ValueError, AttributeError, http.client.HTTPException):
                message = e.reason
            raise DemoError("%s %s failed: %d %s" % (method, path, e.code, message)) from None
        except (OSError, http.client.HTTPException) as e:
            raise DemoError("%s %s failed: %s" % (method, path, e)) from None

    def create_flink_deployment(self, manifest):
        """Creates the FlinkDeployment of a YAML manifest (as `kubectl create -f` would);
        returns the created object."""
        try:
            with open(manifest) as f:
                docs = [d for d in yaml.safe_load_all(f) if d]
        except (OSError, yaml.YAMLError) as e:
            raise DemoError("cannot read %s: %s" % (manifest, e)) from None
        fds = [d for d in docs if isinstance(d, dict) and d.get("kind") == "FlinkDeployment"]
        if len(fds) != 1:
            raise DemoError("%s: expected one FlinkDeployment, found %d" % (manifest, len(fds)))
        return self.request("POST", self.FLINK_DEPLOYMENTS, fds[0])

    def flink_deployment(self, name):
        return self.request("GET", "%s/%s" % (self.FLINK_DEPLOYMENTS, name))

    def service(self, name):
        return self.request("GET", "%s/services/%s" % (self.CORE, name))

    def events(self, kind, name):
        """The Events about one object."""
        selector = "involvedObject.kind=%s,involvedObject.name=%s" % (kind, name)
        return self.request("GET", "%s/events?%s" % (
            self.CORE, urllib.parse.urlencode({"fieldSelector": selector})))["items"]


class StateWatch(threading.Thread):
    """Every revision of the autoscaler's state ConfigMap (a watch of the API server, one JSON
    event a line, reconnected whenever the stream ends): the decision log of each pass and the
    delayed scale-downs."""

    def __init__(self, api, name):
        super().__init__(daemon=True)
        self.api = api
        self.configmap = name
        self.lock = threading.Lock()
        self.revisions = []
        self.stopped = threading.Event()

    def run(self):
        resource_version = ""  # resume from the last revision seen; "" = start with a list
        while not self.stopped.is_set():
            query = {"watch": "1", "fieldSelector": "metadata.name=" + self.configmap}
            if resource_version:
                query["resourceVersion"] = resource_version
            url = "%s%s/configmaps?%s" % (self.api.server, Api.CORE, urllib.parse.urlencode(query))
            try:
                # The timeout only bounds a silent connection: the loop reconnects after it.
                with self.api.opener.open(url, timeout=10) as stream:
                    for line in stream:
                        if self.stopped.is_set():
                            return
                        if not line.strip():
                            continue
                        event = json.loads(line)
                        obj = event.get("object") or {}
                        if event.get("type") == "ERROR":
                            resource_version = ""  # e.g. 410 Gone: list again
                            break
                        resource_version = obj.get("metadata", {}).get("resourceVersion", "")
                        if event.get("type") in ("ADDED", "MODIFIED", "DELETED"):
                            with self.lock:
                                self.revisions.append(obj.get("data", {}))
            except (OSError, ValueError, http.client.HTTPException):
                pass
            self.stopped.wait(0.2)

    def take(self):
        with self.lock:
            out, self.revisions = self.revisions, []
        return out

    def stop(self):
        """Ends the watch at its next event, or when trimtab local stops and closes the stream
        (the thread is a daemon: it never holds up the exit)."""
        self.stopped.set()


class Rest:
    """The simulated Flink cluster's REST API through the <name>-rest Service clusterIP."""

    def __init__(self, base):
        self.base = base
        self.metric_names = {}  # source vertex id -> (rate names, pending names)

    def get(self, path):
        with OPENER.open(self.base + path, timeout=3) as r:
            return json.loads(r.read())

    def job(self):
        jobs = self.get("/jobs").get("jobs", [])
        if not jobs:
            return None
        return self.get("/jobs/" + jobs[0]["id"])

    def source_metrics(self, job):
        """(records read per second, pending records, records read + pending) summed over the
        sources, each None when not reported. Records read since the (re)start plus what is still
        pending grows at the input rate (both come from the same metric update)."""
        sources = [n["id"] for n in job.get("plan", {}).get("nodes", []) if not n.get("inputs")]
        read = pending = count = None
        for vid in sources:
            path = "/jobs/%s/vertices/%s/subtasks/metrics" % (job["jid"], vid)
            names = self.metric_names.get(vid)
            if not names or not names[0]:
                ids = [m["id"] for m in self.get(path)]
                names = ([i for i in ids if i.startswith("Source__") and i.endswith(".numRecordsInPerSecond")],
                         [i for i in ids if i.endswith(".pendingRecords")],
                         [i for i in ids if i.startswith("Source__") and i.endswith(".numRecordsIn")])
                self.metric_names[vid] = names
            wanted = names[0] + names[1] + names[2]
            if not wanted:
                continue
            values = {m["id"]: m.get("sum") for m in self.get(path + "?get=" + ",".join(wanted))}

            def total(keys):
                got = [values[n] for n in keys if values.get(n) is not None]
                return sum(got) if got else None
            r, p, pos = total(names[0]), total(names[1]), total(names[2])
            if r is not None:
                read = (read or 0) + r
            if p is not None:
                pending = (pending or 0) + p
            if pos is not None:
                count = (count or 0) + pos
        produced = count + (pending or 0) if count is not None else None
        return read, pending, produced


class Demo:
    def __init__(self, args):
        self.args = args
        self.origin = None          # simulated Unix ms of the FlinkDeployment's creation
        self.wall_origin = None
        self.vertices = []          # [(id, name)] in plan order
        self.labels = {}            # vertex id -> "v1", ...
        self.timeline = []          # (sim ms, state, {vid: parallelism})
        self.scalings = []          # (sim ms, {vid: (from, to)}) from the decision logs
        self.seen_logs = set()
        self.seen_events = {}
        self.delayed = {}           # vid -> firstTriggerTime announced
        self.produced = []          # (sim ms, records produced so far) of the last minute
        self.scale_down_interval = None

    def now(self):
        """The simulated time: the wall time elapsed since creation times the speed."""
        return self.origin + (time.monotonic() - self.wall_origin) * 1000 * self.args.speed

    def label(self, vid):
        return self.labels.get(vid, vid[:8])

    def say(self, text):
        print(text, flush=True)

    def run(self):
        a = self.args
        manifest = a.manifest
        self.say("trimtab operator demo: %s at %gx speed, %d simulated minutes (about %d s)" %
                 (os.path.relpath(manifest, ROOT), a.speed, a.minutes, a.minutes * 60 / a.speed))
        cluster = Cluster(a.trimtab, a.speed, ["--service-cidr", a.service_cidr,
                                                "--pod-cidr", a.pod_cidr])
        watch = None
        try:
            cluster.start()
            api = Api(cluster.kubeconfig)
            name = api.create_flink_deployment(manifest)["metadata"]["name"]
            self.wall_origin = time.monotonic()
            fd = api.flink_deployment(name)
            self.origin = parse_time_ms(fd["metadata"]["creationTimestamp"])
            conf = flatten(fd["spec"].get("flinkConfiguration", {}))
            self.describe_config(name, conf)
            watch = StateWatch(api, "autoscaler-" + name)
            watch.start()
            rest = self.wait_for_rest(api, name)
            self.loop(api, name, rest, watch)
            return self.summary()
        finally:
            if watch is not None:
                watch.stop()
            cluster.stop()
            self.say("trimtab local stopped.")

    def describe_config(self, name, conf):
        self.say("FlinkDeployment %s, autoscaler options:" % name)
        for key in sorted(conf):
            if key.startswith("job.autoscaler."):
                self.say("  %s: %s" % (key, conf[key]))
                if key == "job.autoscaler.scale-down.interval":
                    self.scale_down_interval = conf[key]

    def wait_for_rest(self, api, name):
        deadline = time.monotonic() + 60
        ip = None
        while time.monotonic() < deadline:
            try:
                ip = ip or api.service(name + "-rest")["spec"]["clusterIP"]
                rest = Rest("http://%s:8081" % ip)
                job = rest.job()
                if job and job.get("state") == "RUNNING":
                    self.vertices = [(v["id"], v["name"]) for v in job["vertices"]]
                    self.labels = {vid: "v%d" % (i + 1) for i, (vid, _) in enumerate(self.vertices)}
                    self.say("job %s RUNNING at %s on the rest Service %s:8081; vertices:" %
                             (job["jid"], clock(self.now() - self.origin).strip(), ip))
                    for vid, vname in self.vertices:
                        self.say("  %s %s (%s)" % (self.labels[vid], vname, vid))
                    self.say("")
                    self.say("   time   input    read     lag  parallelism%s  state" %
                             "".join("  " for _ in self.vertices[1:]))
                    return rest
            except DemoError:
                pass
            except (OSError, ValueError, KeyError):
                pass
            time.sleep(0.3)
        raise DemoError("the job did not start within 60 s")

    def loop(self, api, name, rest, watch):
        a = self.args
        end = self.origin + a.minutes * 60_000
        wall_deadline = time.monotonic() + a.max_wall
        next_tick = self.now()
        while True:
            self.report_decisions(watch)
            self.report_events(api, name)
            now = self.now()
            if now >= next_tick:
                self.tick(rest)
                next_tick += a.every * 1000
            if now >= end:
                break
            if time.monotonic() > wall_deadline:
                self.say("(stopping: --max-wall %d s reached)" % a.max_wall)
                break
            time.sleep(min(0.25, max(0.02, (next_tick - self.now()) / 1000 / a.speed)))
        self.report_decisions(watch)
        self.report_events(api, name)

    def tick(self, rest):
        try:
            job = rest.job()
        except (OSError, ValueError):
            job = None
        if job is None:
            self.say("%s  (no answer from the JobManager)" % clock(self.now() - self.origin))
            return
        now = job.get("now", self.now())
        par = {v["id"]: v["parallelism"] for v in job["vertices"]}
        self.timeline.append((now, job["state"], par))
        read = pending = produced = None
        if job["state"] == "RUNNING":
            try:
                read, pending, produced = rest.source_metrics(job)
            except (OSError, ValueError, KeyError):
                pass
        input_rate = None
        if produced is not None and read is not None:
            # Over about a minute: the offset and backlog gauges move in 5-s steps.
            if self.produced and produced < self.produced[-1][1]:
                self.produced = []  # the job restarted between two lines: counters reset
            self.produced.append((now, produced))
            self.produced = [(t, p) for t, p in self.produced if now - t <= 65_000]
            t0, p0 = self.produced[0]
            if now - t0 >= 10_000:
                input_rate = (produced - p0) * 1000 / (now - t0)
        else:
            self.produced = []  # restarting: no rate across the gap
        cells = " ".join("%s=%-2d" % (self.label(vid), par.get(vid, 0)) for vid, _ in self.vertices)
        self.say("%s %s %s %s  %s  %s" % (clock(now - self.origin), rate(input_rate), rate(read),
                                          rate(pending), cells, job["state"]))

    def report_decisions(self, watch):
        for data in watch.take():
            text = data.get("decisionLog")
            if text and text not in self.seen_logs:
                self.seen_logs.add(text)
                log = json.loads(text)
                if log.get("outcome") in ("Scale", "Blocked"):
                    self.print_decision(log)
            delayed = data.get("delayedScaleDown")
            pending = json.loads(delayed) if delayed else {}
            for vid, d in pending.items():
                first = parse_time_ms(d["firstTriggerTime"])
                if self.delayed.get(vid) != first:
                    self.delayed[vid] = first
                    recs = [r["parallelism"] for r in d.get("recommendations", [])]
                    self.say("%s   .. %s: scale-down to %s wanted; held for scale-down.interval%s" %
                             (clock(first - self.origin), self.label(vid),
                              max(recs) if recs else "?",
                              " (%s)" % self.scale_down_interval if self.scale_down_interval else ""))
            for vid in list(self.delayed):
                if vid not in pending:
                    del self.delayed[vid]

    def print_decision(self, log):
        t = parse_time_ms(log["time"])
        changes = {}
        lines = []
        for vid, v in sorted(log.get("vertices", {}).items(), key=lambda x: self.label(x[0])):
            cur, final = v.get("currentParallelism"), v.get("finalParallelism")
            if cur is not None and final is not None and cur != final:
                changes[vid] = (cur, final)
            if v.get("reasons") and (cur != final or v.get("proposedParallelism") is not None):
                lines.append("%s: %s" % (self.label(vid), "; ".join(v["reasons"])))
        if log.get("outcome") == "Scale" and changes:
            self.scalings.append((t, changes))
            head = "DECISION: rescale " + ", ".join(
                "%s %d -> %d" % (self.label(vid), c, f) for vid, (c, f) in sorted(changes.items(), key=lambda x: self.label(x[0])))
        else:
            head = "DECISION (%s): no rescale" % log.get("outcome")
        self.say("%s   >> %s" % (clock(t - self.origin), head))
        for line in lines:
            self.say("          %s" % line)

    def report_events(self, api, name):
        try:
            events = api.events("FlinkDeployment", name)
        except (DemoError, ValueError, KeyError):
            return
        for e in sorted(events, key=lambda e: e.get("lastTimestamp") or ""):
            if e["reason"] not in ("ScalingReport", "IneffectiveScaling", "ScalingLimited",
                                   "MemoryPressure", "ResourceQuotaReached", "ScalingVetoed",
                                   "AutoscalerError"):
                continue
            key = e["metadata"]["uid"]
            if self.seen_events.get(key) == e.get("count"):
                continue
            when = parse_time_ms(e.get("lastTimestamp") or e["metadata"]["creationTimestamp"])
            if self.now() - when < 5000:
                continue  # a moment later, so the decision log (watched) is printed first
            self.seen_events[key] = e.get("count")
            message = e["message"].replace("Scaling execution enabled, begin scaling vertices:", "").strip()
            for vid, label in self.labels.items():
                message = message.replace("Vertex ID " + vid, label)
            message = " ".join(message.split())
            self.say("%s   event %s %s: %s" % (clock(when - self.origin), e["type"], e["reason"], message))

    def summary(self):
        self.say("")
        self.say("summary")
        running = [(t, p) for t, s, p in self.timeline if s == "RUNNING"]
        if not running:
            self.say("  the job never ran")
            return 1
        ups = [s for s in self.scalings if any(b > a for a, b in s[1].values())]
        downs = [s for s in self.scalings if any(b < a for a, b in s[1].values())]
        self.say("  rescales decided by the autoscaler: %d (%d with a scale-up, %d with a scale-down)" %
                 (len(self.scalings), len(ups), len(downs)))
        final = running[-1][1]
        for vid, vname in self.vertices:
            series = [(t, p.get(vid)) for t, p in running if p.get(vid) is not None]
            seen_max = max(p for _, p in series)
            durations = {}
            for (t1, p1), (t2, _) in zip(series, series[1:]):
                durations[p1] = durations.get(p1, 0) + (t2 - t1)
            spent = ", ".join("p%d %s" % (p, clock(ms).strip()) for p, ms in sorted(durations.items()))
            self.say("  %s %-24s max %2d, final %2d; time at each parallelism: %s" %
                     (self.label(vid), vname[:24], seen_max, final.get(vid), spent))
        slots = [(t, max(p.values())) for t, p in running]
        slot_minutes = sum((t2 - t1) / 60_000 * s for (t1, s), (t2, _) in zip(slots, slots[1:]))
        self.say("  slots (max parallelism over vertices): max %d, final %d, %.0f slot-minutes" %
                 (max(s for _, s in slots), slots[-1][1], slot_minutes))
        went_up = any(max(p.values()) > max(running[0][1].values()) for _, p in running)
        peak = max(s for _, s in slots)
        came_down = any(s < peak for t, s in slots if t > [t2 for t2, s2 in slots if s2 == peak][0])
        if ups and downs and went_up and came_down:
            self.say("OK: the autoscaler scaled the job up under load and back down after it fell.")
            return 0
        problems = []
        if not ups or not went_up:
            problems.append("no scale-up")
        if not downs or not came_down:
            problems.append("no scale-down")
        self.say("FAILED: %s within %d simulated minutes (try a larger --minutes)" %
                 (" and ".join(problems), self.args.minutes))
        return 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trimtab", help="path to the trimtab binary")
    ap.add_argument("--manifest", default=os.path.join(ROOT, "examples/demo/autoscaling.yaml"))
    ap.add_argument("--speed", type=float, default=20, help="cluster clock speed-up (default 20)")
    ap.add_argument("--minutes", type=int, default=50, help="simulated minutes to run (default 50)")
    ap.add_argument("--every", type=float, default=30, help="simulated seconds between lines (30)")
    ap.add_argument("--max-wall", type=int, default=300, help="stop after this many wall seconds")
    ap.add_argument("--service-cidr", default="127.19.0.0/16")
    ap.add_argument("--pod-cidr", default="127.29.0.0/16")
    args = ap.parse_args()
    if not os.access(args.trimtab, os.X_OK):
        print("demo_operator: %s is not an executable trimtab binary" % args.trimtab, file=sys.stderr)
        return 2
    if yaml is None:
        print("demo_operator: PyYAML not found (install python3-yaml: scripts/install-deps.sh)",
              file=sys.stderr)
        return 2
    try:
        return Demo(args).run()
    except DemoError as e:
        print("demo_operator: %s" % e, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("demo_operator: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
