#!/usr/bin/env python3
"""The operator at scale (issue 28): N FlinkDeployments (default 1,000) on `trimtab local`, with
the operator as a process of its own (`trimtab operator`) so that its CPU and memory are its own.

Phases, each measured on its own:
  create   N FlinkDeployments created (POST through the API server, 8 at a time); time until
           every one is reconciled (status.reconciliationStatus.state DEPLOYED) and until every
           job runs (lifecycle STABLE; at most `--settle` seconds)
  steady   `--steady` seconds with nothing changing: operator CPU (/proc utime+stime), RSS (peak
           of samples), reconcile passes and their latency (the operator's
           flink_k8soperator_JOSDK_Reconciliation_TimeSeconds histogram), the API server's
           mutating request rate and latency (apiserver_request_duration_seconds)
  load     the same steady state plus an open-loop writer that PATCHes ConfigMaps at
           `--write-rate` requests/s: the API server's mutating latency at that rate, with the
           operator's own writes going on

Percentiles come from the histograms' buckets (linear inside a bucket), so they are as fine as
the buckets: 1, 5, 10, 25, 50 ms for reconciles; 5, 10, 25 ms for the API server (a p99 below
5 ms reads "<= 5 ms"). The open-loop writer also times its own PATCHes (client side, exact).

Usage: operator_scale_bench.py --trimtab BIN [--deployments 1000] [--steady 60]
                               [--write-rate 500] [--json FILE]
Run it with `nice -n 10` on a shared machine; it prints the machine's load average.
"""

import argparse
import http.client
import json
import os
import re
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "integration", "kubectl"))
from local_cluster import LocalCluster  # noqa: E402

OPERATOR_CONFIG = """
kubernetes.operator.reconcile.interval: 60 s
kubernetes.operator.observer.progress-check.interval: 10 s
"""

DEPLOYMENT = {
    "apiVersion": "flink.apache.org/v1beta1",
    "kind": "FlinkDeployment",
    "metadata": {"name": None},
    "spec": {
        "image": "flink:2.2",
        "flinkVersion": "v2_2",
        "flinkConfiguration": {"taskmanager.numberOfTaskSlots": "2"},
        "serviceAccount": "flink",
        "jobManager": {"resources": {"requests": {"memory": "512m", "cpu": "0.1"}}},
        # 1024m: Flink's TaskManager memory model (metaspace 256m, overhead at least 192m,
        # framework heap and off-heap 128m each, network, managed) leaves no task heap in 512m,
        # and the simulated TaskManager refuses to start then, as Flink does: with 512m no job
        # of this bench ever ran (lifecycle stayed DEPLOYED).
        "taskManager": {"resources": {"requests": {"memory": "1024m", "cpu": "0.1"}}},
        "job": {"jarURI": "local:///opt/flink/examples/streaming/StateMachineExample.jar",
                "parallelism": 2, "upgradeMode": "stateless"},
    },
}


class Api:
    """Keep-alive connections to the local API server, one per thread: HTTPS with the cluster's
    CA and the administrator's bearer token from the kubeconfig (trimtab local requires both),
    plain HTTP for an http:// server."""

    def __init__(self, server, ca=None, token=None):
        self.https = server.startswith("https://")
        self.host, self.port = server.split("//", 1)[1].rsplit(":", 1)
        self.ctx = ssl.create_default_context(cadata=ca) if (self.https and ca) else None
        self.token = token
        self.local = threading.local()

    def conn(self):
        c = getattr(self.local, "c", None)
        if c is None:
            if self.https:
                c = http.client.HTTPSConnection(self.host, int(self.port), timeout=60,
                                                context=self.ctx)
            else:
                c = http.client.HTTPConnection(self.host, int(self.port), timeout=60)
            self.local.c = c
        return c

    def headers(self, ctype=None):
        h = {"Authorization": "Bearer " + self.token} if self.token else {}
        if ctype:
            h["Content-Type"] = ctype
        return h

    def call(self, method, path, body=None, ctype="application/json"):
        for attempt in range(3):
            try:
                c = self.conn()
                c.request(method, path, body=json.dumps(body) if body is not None else None,
                          headers=self.headers(ctype if body is not None else None))
                r = c.getresponse()
                data = r.read()
                return r.status, data
            except (OSError, http.client.HTTPException):
                self.local.c = None
                if attempt == 2:
                    raise
        return 0, b""


def metrics(url, api=None):
    """The text at `url`; through `api` (its TLS context and token) for the API server's."""
    if api is None:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.read().decode()
    req = urllib.request.Request(url, headers=api.headers())
    with urllib.request.urlopen(req, timeout=30, context=api.ctx) as r:
        return r.read().decode()


def histogram(text, name, match):
    """Summed buckets {le: count} and count of histogram `name` over series whose labels
    satisfy `match(labels)`."""
    buckets, count, total = {}, 0.0, 0.0
    for line in text.splitlines():
        if not line.startswith(name):
            continue
        m = re.match(r'([a-zA-Z0-9_:]+)\{(.*)\} ([0-9.eE+-]+|NaN|\+Inf)$', line)
        if not m:
            continue
        series, labels, value = m.group(1), m.group(2), float(m.group(3))
        lab = dict(re.findall(r'(\w+)="([^"]*)"', labels))
        if not match(lab):
            continue
        if series == name + "_bucket":
            le = float("inf") if lab["le"] == "+Inf" else float(lab["le"])
            buckets[le] = buckets.get(le, 0) + value
        elif series == name + "_count":
            count += value
        elif series == name + "_sum":
            total += value
    return buckets, count, total


def delta(after, before):
    b1, c1, s1 = after
    b0, c0, s0 = before
    return {le: v - b0.get(le, 0) for le, v in b1.items()}, c1 - c0, s1 - s0


def quantile(buckets, count, q):
    if count <= 0:
        return None
    target = q * count
    prev_le, prev = 0.0, 0.0
    for le in sorted(buckets):
        n = buckets[le]
        if n >= target:
            if le == float("inf"):
                return prev_le
            frac = (target - prev) / (n - prev) if n > prev else 1
            return prev_le + (le - prev_le) * frac
        prev_le, prev = le, n
    return prev_le


def proc_cpu(pid):
    with open("/proc/%d/stat" % pid) as f:
        parts = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(parts[11]) + int(parts[12])) / ticks


def proc_rss_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def mutating(lab):
    return lab.get("verb") in ("POST", "PUT", "PATCH", "DELETE", "APPLY", "CREATE", "UPDATE")


class Sampler:
    def __init__(self, pid):
        self.pid = pid
        self.peak = 0.0
        self.stop = threading.Event()
        threading.Thread(target=self.run, daemon=True).start()

    def run(self):
        while not self.stop.is_set():
            try:
                self.peak = max(self.peak, proc_rss_mb(self.pid))
            except OSError:
                return
            self.stop.wait(0.5)


def window(api, api_metrics_url, op_metrics_url, op_pid, seconds, writer=None):
    a0, o0, cpu0 = metrics(api_metrics_url, api), metrics(op_metrics_url), proc_cpu(op_pid)
    rss = Sampler(op_pid)
    t0 = time.monotonic()
    if writer:
        writer.start()
    time.sleep(seconds)
    if writer:
        writer.halt()
    elapsed = time.monotonic() - t0
    a1, o1, cpu1 = metrics(api_metrics_url, api), metrics(op_metrics_url), proc_cpu(op_pid)
    rss.stop.set()
    rec = delta(histogram(o1, "flink_k8soperator_JOSDK_Reconciliation_TimeSeconds",
                          lambda l: True),
                histogram(o0, "flink_k8soperator_JOSDK_Reconciliation_TimeSeconds",
                          lambda l: True))
    mut = delta(histogram(a1, "apiserver_request_duration_seconds", mutating),
                histogram(a0, "apiserver_request_duration_seconds", mutating))
    out = {
        "seconds": round(elapsed, 1),
        "operator_cpu_cores": round((cpu1 - cpu0) / elapsed, 3),
        "operator_rss_peak_mb": round(rss.peak, 1),
        "operator_rss_end_mb": round(proc_rss_mb(op_pid), 1),
        "reconciles": int(rec[1]),
        "reconciles_per_s": round(rec[1] / elapsed, 1),
        "reconcile_p50_ms": ms(quantile(rec[0], rec[1], 0.5)),
        "reconcile_p99_ms": ms(quantile(rec[0], rec[1], 0.99)),
        "reconcile_mean_ms": ms(rec[2] / rec[1]) if rec[1] else None,
        "api_mutating": int(mut[1]),
        "api_mutating_per_s": round(mut[1] / elapsed, 1),
        "api_mutating_p50_ms": ms(quantile(mut[0], mut[1], 0.5)),
        "api_mutating_p99_ms": ms(quantile(mut[0], mut[1], 0.99)),
        "api_mutating_mean_ms": ms(mut[2] / mut[1]) if mut[1] else None,
    }
    if writer:
        out.update(writer.report())
    return out


def ms(seconds):
    return None if seconds is None else round(seconds * 1000, 2)


class Writer:
    """Open loop: PATCHes spread over `threads` clients on a fixed schedule; latency counted
    from the scheduled send time."""

    def __init__(self, api, rate, names, threads=4):
        self.api = api
        self.rate = rate
        self.names = names
        self.threads = threads
        self.lat = []
        self.errors = 0
        self.lock = threading.Lock()
        self.running = threading.Event()
        self.workers = []

    def start(self):
        self.running.set()
        self.t0 = time.monotonic()
        for i in range(self.threads):
            t = threading.Thread(target=self.run, args=(i,), daemon=True)
            t.start()
            self.workers.append(t)

    def run(self, i):
        period = self.threads / float(self.rate)
        n = 0
        while self.running.is_set():
            due = self.t0 + (n * self.threads + i) / float(self.rate)
            now = time.monotonic()
            if due > now:
                time.sleep(due - now)
            name = self.names[(n * self.threads + i) % len(self.names)]
            status, _ = self.api.call(
                "PATCH", "/api/v1/namespaces/bench/configmaps/" + name,
                {"data": {"v": str(n)}}, "application/merge-patch+json")
            done = time.monotonic()
            with self.lock:
                self.lat.append(done - due)
                if status != 200:
                    self.errors += 1
            n += 1
        del period

    def halt(self):
        self.running.clear()
        for t in self.workers:
            t.join()
        self.elapsed = time.monotonic() - self.t0

    def report(self):
        lat = sorted(self.lat)
        pick = (lambda q: round(lat[min(len(lat) - 1, int(q * len(lat)))] * 1000, 2)) \
            if lat else (lambda q: None)
        return {"writer_requests_per_s": round(len(lat) / self.elapsed, 1),
                "writer_p50_ms": pick(0.5), "writer_p99_ms": pick(0.99),
                "writer_errors": self.errors}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trimtab", required=True)
    ap.add_argument("--deployments", type=int, default=1000)
    ap.add_argument("--steady", type=float, default=60)
    ap.add_argument("--write-rate", type=float, default=500)
    ap.add_argument("--json", default="")
    ap.add_argument("--settle", type=float, default=600,
                    help="wait at most this long for every job to be STABLE")
    args = ap.parse_args()

    print("load average at start: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
    nodes = max(4, args.deployments // 20)
    cluster = LocalCluster(args.trimtab, startup_timeout=120, extra_args=[
        "--no-operator", "--nodes", str(nodes), "--node-cpu", "64", "--node-memory", "256Gi",
        "--node-pods", "200", "--service-cidr", "127.11.0.0/16", "--pod-cidr", "127.21.0.0/16"])
    result = {"deployments": args.deployments, "nodes": nodes}
    with cluster:
        api = Api(cluster.server, cluster.ca, cluster.token)
        config = os.path.join(cluster.tmp, "operator.yaml")
        with open(config, "w") as f:
            f.write(OPERATOR_CONFIG)
        # A free port: with a fixed one, an operator left over from an earlier run kept it, the
        # new operator exited at once and the bench read the old one's metrics.
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        log = open(os.path.join(cluster.tmp, "operator.log"), "wb")
        op = subprocess.Popen([args.trimtab, "operator", "--kubeconfig", cluster.kubeconfig,
                               "--health-port", str(port), "--config", config],
                              stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        op_metrics = "http://127.0.0.1:%d/metrics" % port
        api_metrics = cluster.server + "/metrics"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    metrics(op_metrics)
                    break
                except OSError:
                    if time.monotonic() > deadline or op.poll() is not None:
                        raise RuntimeError("the operator did not start")
                    time.sleep(0.5)
            for ns in ("scale", "bench"):
                api.call("POST", "/api/v1/namespaces",
                         {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
            names = ["cm-%d" % i for i in range(200)]
            for n in names:
                api.call("POST", "/api/v1/namespaces/bench/configmaps",
                         {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": n},
                          "data": {"v": "0"}})

            # create
            t0 = time.monotonic()
            cpu0 = proc_cpu(op.pid)
            rss = Sampler(op.pid)
            todo = list(range(args.deployments))
            lock = threading.Lock()

            def create():
                while True:
                    with lock:
                        if not todo:
                            return
                        i = todo.pop()
                    d = json.loads(json.dumps(DEPLOYMENT))
                    d["metadata"]["name"] = "job-%04d" % i
                    status, data = api.call(
                        "POST", "/apis/flink.apache.org/v1beta1/namespaces/scale/flinkdeployments",
                        d)
                    if status != 201:
                        raise RuntimeError("create job-%04d: %d %s" % (i, status, data[:200]))
            workers = [threading.Thread(target=create) for _ in range(8)]
            for w in workers:
                w.start()
            for w in workers:
                w.join()
            created = time.monotonic() - t0
            print("created %d FlinkDeployments in %.1f s" % (args.deployments, created),
                  flush=True)

            def deployed():
                _, data = api.call("GET", "/apis/flink.apache.org/v1beta1/namespaces/scale/"
                                          "flinkdeployments")
                items = json.loads(data)["items"]
                states = {}
                for it in items:
                    st = ((it.get("status") or {}).get("lifecycleState")) or "(none)"
                    states[st] = states.get(st, 0) + 1
                done = sum(1 for it in items
                           if ((it.get("status") or {}).get("reconciliationStatus") or {})
                           .get("state") == "DEPLOYED")
                return done, states
            all_deployed = None
            while True:
                done, states = deployed()
                if done >= args.deployments and all_deployed is None:
                    all_deployed = time.monotonic() - t0
                if states.get("STABLE", 0) >= args.deployments or \
                        time.monotonic() - t0 > args.settle:
                    break
                time.sleep(5)
            if op.poll() is not None:
                raise RuntimeError("the operator exited (%s); see its log" % op.returncode)
            result["create"] = {
                "post_seconds": round(created, 1),
                "all_deployed_seconds": round(all_deployed, 1) if all_deployed else None,
                "settled_seconds": round(time.monotonic() - t0, 1),
                "deployed": done, "lifecycle": states,
                "operator_cpu_cores": round((proc_cpu(op.pid) - cpu0) / (time.monotonic() - t0),
                                            3),
                "operator_rss_peak_mb": round(rss.peak, 1)}
            rss.stop.set()
            print("create: %s" % json.dumps(result["create"]), flush=True)
            time.sleep(10)  # let the first wave of observations settle

            result["steady"] = window(api, api_metrics, op_metrics, op.pid, args.steady)
            print("steady: %s" % json.dumps(result["steady"]), flush=True)
            result["load"] = window(api, api_metrics, op_metrics, op.pid, args.steady,
                                    Writer(api, args.write_rate, names))
            print("load: %s" % json.dumps(result["load"]), flush=True)
            if op.poll() is not None:
                raise RuntimeError("the operator exited (%s); see its log" % op.returncode)
        finally:
            op.terminate()
            try:
                op.wait(timeout=20)
            except subprocess.TimeoutExpired:
                op.kill()
    result["load_average_end"] = open("/proc/loadavg").read().split()[:3]
    print("load average at end: %s" % " ".join(result["load_average_end"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
