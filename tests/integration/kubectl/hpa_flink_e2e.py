#!/usr/bin/env python3
"""An HPA on a reactive-mode FlinkDeployment in `trimtab local`, with the real kubectl (issue 21):

- a standalone FlinkDeployment with `scheduler-mode: REACTIVE` runs a TaskManager Deployment
  `<name>-taskmanager` and its job on all the slots there are (Flink REST `GET /jobs/<id>` on the
  `<name>-rest` clusterIP);
- its scale subresource (`spec.taskManager.replicas`, `status.taskManager`) gives the HPA the
  replicas and the TaskManager pods' selector;
- the upstream operator's hpa-basic-hpa.yaml (memory, averageValue 10Mi) aimed at it scales it
  to maxReplicas; the operator scales the TaskManager Deployment without an upgrade (same
  JobManager pod, same job id), and the job's parallelism follows to 3 TaskManagers x 2 slots;
- the same HPA on a native FlinkDeployment without `taskManager.replicas` (upstream basic.yaml's
  shape) finds a scale of 0 replicas and, as kube-controller-manager, disables scaling;
- `trimtab local --prometheus-url --external-metrics-rules` with a real Prometheus (Debian's,
  scraping a small exporter this script serves): `kubectl get --raw` on external.metrics.k8s.io
  answers from the rule's query, `in` values match literally, a selector that matches nothing
  is an empty list, and a label value that tries to inject PromQL is refused (400). Skipped
  when there is no `prometheus` binary.

The cluster runs at --speed 10 with a 5 s HPA sync period and a 10 s operator reconcile interval
(cluster time).

Usage: hpa_flink_e2e.py --trimtab BIN   (exit 77 = skipped: no kubectl)
"""

import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from local_cluster import SKIP, e2e_args, Checks, LocalCluster, expect, expect_in  # noqa: E402
from kubectl_e2e import Kubectl, wait_until  # noqa: E402

NS = "default"  # hpa-basic-hpa.yaml names it
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
ARGS = ["--service-cidr", "127.41.0.0/16", "--pod-cidr", "127.42.0.0/16", "--speed", "10",
        "--hpa-sync-period", "5s"]
OPERATOR_CONFIG = """
kubernetes.operator.reconcile.interval: 10 s
kubernetes.operator.observer.progress-check.interval: 5 s
kubernetes.operator.observer.rest-ready.delay: 2 s
"""

# upstream basic-reactive.yaml without its hostPath volume, named "basic" so that the upstream
# HPA example targets it.
REACTIVE = """
apiVersion: flink.apache.org/v1beta1
kind: FlinkDeployment
metadata:
  name: basic
spec:
  image: flink:1.20
  flinkVersion: v1_20
  flinkConfiguration:
    scheduler-mode: REACTIVE
    taskmanager.numberOfTaskSlots: "2"
    execution.checkpointing.interval: 10 s
    state.savepoints.dir: file:///flink-data/savepoints
    state.checkpoints.dir: file:///flink-data/checkpoints
  serviceAccount: flink
  jobManager:
    resources: {requests: {memory: "2048m", cpu: "1"}}
  taskManager:
    replicas: 1
    resources: {requests: {memory: "2048m", cpu: "1"}}
  job:
    jarURI: local:///opt/flink/examples/streaming/StateMachineExample.jar
    parallelism: 2
    upgradeMode: savepoint
    state: running
  mode: standalone
"""

# upstream basic.yaml's shape: native mode, no taskManager.replicas.
NATIVE = """
apiVersion: flink.apache.org/v1beta1
kind: FlinkDeployment
metadata:
  name: native
spec:
  image: flink:1.20
  flinkVersion: v1_20
  flinkConfiguration:
    taskmanager.numberOfTaskSlots: "2"
  serviceAccount: flink
  jobManager:
    resources: {requests: {memory: "2048m", cpu: "1"}}
  taskManager:
    resources: {requests: {memory: "2048m", cpu: "1"}}
  job:
    jarURI: local:///opt/flink/examples/streaming/StateMachineExample.jar
    parallelism: 2
    upgradeMode: stateless
"""


EXPOSITION = b"""# TYPE kafka_consumergroup_lag gauge
kafka_consumergroup_lag{namespace="team-a",topic="a.b",partition="0"} 100
kafka_consumergroup_lag{namespace="team-a",topic="a.b",partition="1"} 20
kafka_consumergroup_lag{namespace="team-a",topic="axb",partition="0"} 7
kafka_consumergroup_lag{namespace="team-b",topic="a.b",partition="0"} 5000
"""

RULES = """
rules:
- name: lag
  series: kafka_consumergroup_lag
  labels: [topic, partition]
  namespaceLabel: namespace
- name: lag_by_topic
  series: kafka_consumergroup_lag
  labels: [topic]
  namespaceLabel: namespace
  aggregation: sum
"""


class Exporter(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(EXPOSITION)))
        self.end_headers()
        self.wfile.write(EXPOSITION)

    def log_message(self, *args):
        pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Prometheus:
    """Debian's prometheus scraping an exporter served from this process, every second."""

    def __init__(self, tmp):
        self.exporter = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Exporter)
        threading.Thread(target=self.exporter.serve_forever, daemon=True).start()
        self.port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        config = os.path.join(tmp, "prometheus.yml")
        with open(config, "w") as f:
            f.write("global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
                    "scrape_configs:\n"
                    "  - job_name: exporter\n"
                    "    honor_labels: true\n"
                    "    static_configs: [{targets: ['127.0.0.1:%d']}]\n"
                    % self.exporter.server_address[1])
        self.log = open(os.path.join(tmp, "prometheus.log"), "w")
        self.proc = subprocess.Popen(
            ["prometheus", "--config.file=" + config,
             "--storage.tsdb.path=" + os.path.join(tmp, "prometheus-data"),
             "--web.listen-address=127.0.0.1:%d" % self.port],
            stdout=self.log, stderr=subprocess.STDOUT)

    def wait_scraped(self):
        def scraped():
            try:
                q = urllib.parse.quote("count(kafka_consumergroup_lag)")
                with urllib.request.urlopen(self.url + "/api/v1/query?query=" + q,
                                            timeout=2) as r:
                    return json.loads(r.read().decode())["data"]["result"]
            except (OSError, ValueError, KeyError):
                return False
        wait_until(scraped, timeout=30, what="Prometheus to scrape the exporter")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.exporter.shutdown()
        self.log.close()


def http_json(ip, path):
    with urllib.request.urlopen("http://%s:8081%s" % (ip, path), timeout=5) as r:
        return json.loads(r.read().decode())


def main():
    args = e2e_args()
    if args is None:
        return SKIP
    started = time.monotonic()
    cluster = LocalCluster(args.trimtab, extra_args=ARGS)
    config_path = os.path.join(cluster.tmp, "operator-config.yaml")
    with open(config_path, "w") as f:
        f.write(OPERATOR_CONFIG)
    cluster.extra_args += ["--operator-config", config_path]
    prometheus = None
    if shutil.which("prometheus"):
        prometheus = Prometheus(cluster.tmp)
        rules_path = os.path.join(cluster.tmp, "rules.yaml")
        with open(rules_path, "w") as f:
            f.write(RULES)
        cluster.extra_args += ["--prometheus-url", prometheus.url,
                               "--external-metrics-rules", rules_path]
    else:
        print("prometheus not installed: the external metrics checks are skipped")

    try:
        with cluster:
            code = run_checks(args, cluster, prometheus)
    finally:
        if prometheus:
            prometheus.stop()
    print("wall time: %.1f s" % (time.monotonic() - started))
    return code


def run_checks(args, cluster, prometheus):
    k = Kubectl(args.kubectl, cluster)
    c = Checks()
    ctx = {}

    def fd(name="basic"):
        return k.json("get", "flinkdeployment", name, "-n", NS)

    def job_parallelism():
        """{vertex name: parallelism} of the running job over REST (None when not RUNNING)."""
        try:
            job = http_json(ctx["ip"], "/jobs/" + ctx["job"])
        except OSError:
            return None
        if job.get("state") != "RUNNING":
            return None
        return {v["name"]: v["parallelism"] for v in job["vertices"]}

    def tm_deployment():
        return k.json("get", "deployment", "basic-taskmanager", "-n", NS)

    def runs_on_all_slots():
        k.out("apply", "-n", NS, "-f", "-", stdin=REACTIVE)
        wait_until(lambda: fd().get("status", {}).get("jobStatus", {}).get("state") ==
                   "RUNNING", timeout=60, what="the reactive job to be RUNNING")
        dep = tm_deployment()
        expect(dep["spec"]["replicas"] == 1, dep["spec"])
        expect(dep["spec"]["selector"]["matchLabels"] ==
               {"app": "basic", "component": "taskmanager",
                "type": "flink-standalone-kubernetes"}, dep["spec"]["selector"])
        ctx["ip"] = k.json("get", "svc", "basic-rest", "-n", NS)["spec"]["clusterIP"]
        ctx["job"] = fd()["status"]["jobStatus"]["jobId"]
        ctx["jm"] = k.json("get", "pods", "-n", NS, "-l",
                           "app=basic,component=jobmanager")["items"][0]["metadata"]["uid"]
        # One TaskManager of 2 slots: every vertex at 2 (job.parallelism says 2 as well).
        wait_until(lambda: job_parallelism() and set(job_parallelism().values()) == {2},
                   timeout=30, what="the job at parallelism 2 over REST")
        scale = json.loads(k.out("get", "--raw", "/apis/flink.apache.org/v1beta1/namespaces/"
                                 "%s/flinkdeployments/basic/scale" % NS))
        expect(scale["spec"]["replicas"] == 1 and scale["status"]["replicas"] == 1, scale)
        expect(scale["status"]["selector"] == "component=taskmanager,app=basic", scale)
    c.run("a reactive FlinkDeployment runs its TaskManager Deployment; the job uses all "
          "slots; /scale has replicas and selector", runs_on_all_slots)

    def hpa_scales_taskmanagers():
        out = k.out("apply", "-n", NS, "-f", os.path.join(DATA, "hpa-basic-hpa.yaml"))
        expect_in("horizontalpodautoscaler.autoscaling/basic-hpa created", out)
        # Each TaskManager uses far more than 10Mi: the HPA goes to maxReplicas (3).
        wait_until(lambda: fd()["spec"]["taskManager"]["replicas"] == 3, timeout=60,
                   what="the HPA to set spec.taskManager.replicas to 3")
        wait_until(lambda: tm_deployment()["spec"]["replicas"] == 3, timeout=40,
                   what="the operator to scale the TaskManager Deployment")
        wait_until(lambda: job_parallelism() and set(job_parallelism().values()) == {6},
                   timeout=60, what="the job's parallelism to follow to 6 over REST")
        # No upgrade: the same JobManager pod runs the same job.
        jm = k.json("get", "pods", "-n", NS, "-l", "app=basic,component=jobmanager")["items"]
        expect(len(jm) == 1 and jm[0]["metadata"]["uid"] == ctx["jm"], "JobManager replaced")
        expect(fd()["status"]["jobStatus"]["jobId"] == ctx["job"], "new job id")
        reasons = [e["reason"] for e in k.json("get", "events", "-n", NS, "--field-selector",
                                               "involvedObject.name=basic")["items"]]
        expect("Suspended" not in reasons, "the scale became an upgrade: %s" % reasons)
        expect("SpecChanged" in reasons, reasons)
        hpa = k.json("get", "hpa", "basic-hpa", "-n", NS)
        expect(hpa["status"]["currentReplicas"] == 3, hpa["status"])
        metrics = hpa["status"]["currentMetrics"][0]["resource"]["current"]
        expect("averageValue" in metrics, metrics)
        ev = k.json("get", "events", "-n", NS, "--field-selector",
                    "involvedObject.name=basic-hpa,reason=SuccessfulRescale")["items"]
        expect_in("New size: 3; reason: memory resource above target", ev[-1]["message"])
    c.run("hpa-basic-hpa.yaml scales the TaskManagers; the job's parallelism follows without "
          "an upgrade", hpa_scales_taskmanagers)

    def native_without_replicas():
        k.out("apply", "-n", NS, "-f", "-", stdin=NATIVE)
        k.out("apply", "-n", NS, "-f", "-",
              stdin=open(os.path.join(DATA, "hpa-basic-hpa.yaml")).read()
              .replace("name: basic-hpa", "name: native-hpa").replace("name: basic", "name: native"))
        wait_until(lambda: fd("native").get("status", {}).get("jobStatus", {}).get("state") ==
                   "RUNNING", timeout=60, what="the native job to be RUNNING")

        def disabled():
            conds = {c["type"]: c for c in
                     k.json("get", "hpa", "native-hpa", "-n", NS).get("status", {})
                     .get("conditions", [])}
            a = conds.get("ScalingActive", {})
            return a.get("reason") == "ScalingDisabled" and a.get("message") == \
                "scaling is disabled since the replica count of the target is zero"
        wait_until(disabled, timeout=30, what="ScalingActive=False ScalingDisabled")
        expect("replicas" not in fd("native")["spec"]["taskManager"], "the HPA scaled it")
    c.run("on a native FlinkDeployment without taskManager.replicas the HPA sees 0 replicas "
          "and disables scaling", native_without_replicas)

    def raw(metric, selector=None, ns="team-a", ok=True):
        path = "/apis/external.metrics.k8s.io/v1beta1/namespaces/%s/%s" % (ns, metric)
        if selector is not None:
            path += "?labelSelector=" + urllib.parse.quote(selector, safe="")
        p = k.run("get", "--raw", path, ok=ok)
        return json.loads(p.stdout) if ok else p

    def prometheus_external_metrics():
        prometheus.wait_scraped()
        disc = json.loads(k.out("get", "--raw", "/apis/external.metrics.k8s.io/v1beta1"))
        names = sorted(r["name"] for r in disc["resources"])
        expect("lag" in names and "lag_by_topic" in names, names)
        by_topic = raw("lag_by_topic", "topic in (a.b)")
        expect(by_topic["kind"] == "ExternalMetricValueList", by_topic)
        items = by_topic["items"]
        # `in` is literal: a.b, not axb; team-a only.
        expect(len(items) == 1 and items[0]["metricLabels"] == {"topic": "a.b"} and
               items[0]["value"] == "120", items)
        one = raw("lag", "topic=a.b,partition=1")["items"]
        expect(len(one) == 1 and one[0]["value"] == "20", one)
        expect(len(raw("lag", "", ns="team-b")["items"]) == 1, "team-b")
        # A selector that matches nothing: no value, not zero.
        expect(raw("lag", "topic=nope")["items"] == [], "no-match")
        # PromQL in a label value: refused before any query.
        p = raw("lag", 'topic=x"} or vector(1) #', ok=False)
        expect(p.returncode != 0, p.stdout)
        expect_in("BadRequest", p.stderr)
    if prometheus:
        c.run("trimtab local --prometheus-url --external-metrics-rules: kubectl get --raw "
              "on external.metrics.k8s.io, literal selectors, no-match, PromQL injection "
              "refused", prometheus_external_metrics)
    return c.exit_code()


if __name__ == "__main__":
    sys.exit(main())
