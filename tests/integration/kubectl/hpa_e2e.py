#!/usr/bin/env python3
"""HorizontalPodAutoscalers on `trimtab local` with the real kubectl and the Python client: a
Deployment whose load rises is scaled out and back within its behavior policies and windows,
`kubectl get/describe hpa`, `kubectl top`, the upstream Flink operator's
hpa-basic-hpa.yaml, validation errors, the metrics APIs through `kubectl get --raw`,
`kubectl autoscale` (an autoscaling/v1 object), HPAs on the consumer lag of simulated topics
(AverageValue and Value targets) with the per-pod lag on custom.metrics.k8s.io, and a restart of
`trimtab local` in the middle of a scale-down that keeps the behavior limits.

The cluster runs at --speed 10 with a 5 s HPA sync period (cluster time), so a minute of
policy period is 6 s of wall time.

Usage: hpa_e2e.py --trimtab BIN   (exit 77 = skipped: no kubectl)
"""

import datetime
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from local_cluster import SKIP, e2e_args, Checks, LocalCluster, expect, expect_in  # noqa: E402
from kubectl_e2e import Kubectl, header, table_rows, wait_until  # noqa: E402

NS = "hpa"
SPEED = 10
ARGS = ["--service-cidr", "127.13.0.0/16", "--pod-cidr", "127.23.0.0/16", "--no-operator",
        "--speed", str(SPEED), "--hpa-sync-period", "5s"]
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")

WEB = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations: {trimtab.dev/cpu-load: "1200m"}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: registry.local/web:1.0
        resources:
          requests: {cpu: 200m, memory: 64Mi}
"""

# Up: at most 2 pods a minute; down: after a 30 s window, one pod per 20 s.
WEB_HPA = """
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 6
  metrics:
  - type: Resource
    resource:
      name: cpu
      target: {type: Utilization, averageUtilization: 50}
  behavior:
    scaleUp:
      stabilizationWindowSeconds: 0
      policies: [{type: Pods, value: 2, periodSeconds: 60}]
    scaleDown:
      stabilizationWindowSeconds: 30
      policies: [{type: Pods, value: 1, periodSeconds: 20}]
"""


BATCH = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: batch
  annotations: {trimtab.dev/memory-load: "64Mi"}
spec:
  replicas: 4
  selector:
    matchLabels: {app: batch}
  template:
    metadata:
      labels: {app: batch}
    spec:
      containers:
      - name: app
        image: registry.local/batch:1.0
        resources:
          requests: {cpu: 100m, memory: 64Mi}
"""

# 4 pods sharing 64Mi against 32Mi each: down to 2, one pod per 20 s.
BATCH_HPA = """
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: batch
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: batch}
  minReplicas: 1
  maxReplicas: 4
  metrics:
  - type: Resource
    resource:
      name: memory
      target: {type: AverageValue, averageValue: 32Mi}
  behavior:
    scaleDown:
      stabilizationWindowSeconds: 0
      policies: [{type: Pods, value: 1, periodSeconds: 20}]
"""


# Consumers of a simulated topic (docs/hpa-local.md "Simulated topics"): 900 records/s into 6
# partitions, 200 records/s per pod. One pod falls behind by 700/s.
CONSUMERS = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: NAME
  annotations:
    trimtab.dev/topic: TOPIC
    trimtab.dev/topic-partitions: "6"
    trimtab.dev/topic-produce-rate: "900"
    trimtab.dev/consume-rate-per-pod: "200"
spec:
  replicas: 1
  selector:
    matchLabels: {app: NAME}
  template:
    metadata:
      labels: {app: NAME}
    spec:
      containers:
      - name: consumer
        image: registry.local/consumer:1.0
"""

# AverageValue: the group's total lag over the pods; Value: the total lag itself.
LAG_HPA = """
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: NAME
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: NAME}
  minReplicas: 1
  maxReplicas: 5
  metrics:
  - type: External
    external:
      metric:
        name: kafka_consumergroup_lag
        selector: {matchLabels: {topic: TOPIC, consumergroup: NAME}}
      target: TARGET
"""


def consumers(name, topic):
    return CONSUMERS.replace("NAME", name).replace("TOPIC", topic)


def lag_hpa(name, topic, target):
    return LAG_HPA.replace("NAME", name).replace("TOPIC", topic).replace("TARGET", target)


def ts(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def rescales(k, name):
    """(cluster time, new size) of the SuccessfulRescale events of HPA `name`, oldest first."""
    events = k.json("get", "events", "-n", NS, "--field-selector",
                    "involvedObject.name=%s,reason=SuccessfulRescale" % name)["items"]
    out = []
    for e in events:
        size = int(e["message"].split(";")[0].split(":")[1])
        out.append((ts(e.get("firstTimestamp") or e["eventTime"]), size, e["message"]))
    return sorted(out)


def replicas(k, name):
    return k.json("get", "deployment", name, "-n", NS)["spec"]["replicas"]


def main():
    args = e2e_args()
    if args is None:
        return SKIP
    started = time.monotonic()
    cluster = LocalCluster(args.trimtab, extra_args=ARGS)
    cluster.start()
    try:
        k = Kubectl(args.kubectl, cluster)
        c = Checks()
        k.out("create", "namespace", NS)
        ups_end = [0.0]

        def scale_out_within_policy():
            k.out("apply", "-n", NS, "-f", "-", stdin=WEB)
            k.out("rollout", "status", "deployment/web", "-n", NS, "--timeout=60s", timeout=90)
            out = k.out("apply", "-n", NS, "-f", "-", stdin=WEB_HPA)
            expect_in("horizontalpodautoscaler.autoscaling/web created", out)
            # 2 pods sharing 1.2 cores: 300 % against 50 % -> 6 (max); 2 pods a minute.
            wait_until(lambda: replicas(k, "web") == 6, timeout=60, what="web at 6 replicas")
            ups = rescales(k, "web")
            expect([s for _, s, _ in ups] == [4, 6], ups)
            expect(ups[1][0] - ups[0][0] >= 60, "second scale-up within the 60 s period: %s" % ups)
            expect_in("New size: 4; reason: cpu resource utilization (percentage of request) "
                      "above target", ups[0][2])
            ups_end[0] = ups[-1][0]
        c.run("a Deployment under load is scaled out, 2 pods a minute", scale_out_within_policy)

        def get_and_describe():
            out = k.out("get", "hpa", "-n", NS)
            expect(header(out) == "NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE", out)
            # TARGETS is "cpu: 150%/50%": two words for table_rows.
            row = table_rows(out)[1]
            expect(row[1] == "Deployment/web" and row[2] == "cpu:", row)
            expect(row[3].endswith("%/50%") and row[4] == "2" and row[5] == "6", row)
            wait_until(lambda: table_rows(k.out("get", "hpa", "-n", NS))[1][6] == "6",
                       what="REPLICAS 6")
            out = k.out("describe", "hpa", "web", "-n", NS)
            for needle in ["Reference:", "Deployment/web", "Metrics:",
                           "resource cpu on pods  (as a percentage of request):", "Min replicas:",
                           "Conditions:", "AbleToScale", "ScalingActive", "ValidMetricFound",
                           "Events:", "SuccessfulRescale", "New size: 6"]:
                expect_in(needle, out)
        c.run("kubectl get hpa columns and describe", get_and_describe)

        def top():
            out = k.out("top", "pods", "-n", NS)
            expect(header(out) == "NAME CPU(cores) MEMORY(bytes)", out)
            expect(len(table_rows(out)) == 7, out)
            expect(all(r[1] == "200m" for r in table_rows(out)[1:]), out)  # 1.2 cores / 6
            out = k.out("top", "nodes")
            expect(header(out).startswith("NAME CPU(cores) CPU"), out)
            raw = json.loads(k.out("get", "--raw",
                                   "/apis/metrics.k8s.io/v1beta1/namespaces/%s/pods" % NS))
            expect(raw["kind"] == "PodMetricsList" and len(raw["items"]) == 6, raw)
        c.run("kubectl top pods/nodes and the metrics.k8s.io API", top)

        def scale_down_within_window_and_policy():
            k.out("annotate", "deployment", "web", "-n", NS, "--overwrite",
                  "trimtab.dev/cpu-load=200m")
            # 6 pods at 200m/6 each: down to 2, after the 30 s window, one pod per 20 s.
            wait_until(lambda: replicas(k, "web") == 2, timeout=60, what="web back at 2")
            downs = [e for e in rescales(k, "web") if "All metrics below target" in e[2]]
            expect([s for _, s, _ in downs] == [5, 4, 3, 2], downs)
            for a, b in zip(downs, downs[1:]):
                expect(b[0] - a[0] >= 20, "scale-downs closer than the 20 s period: %s" % downs)
            # Cluster time runs SPEED times faster than wall time.
            expect(downs[0][0] - ups_end[0] >= 30, "scaled down within the 30 s window")
        c.run("scale-down after the window, one pod per 20 s", scale_down_within_window_and_policy)

        def upstream_example():
            out = k.out("apply", "-n", "default", "-f", os.path.join(DATA, "hpa-basic-hpa.yaml"))
            expect_in("horizontalpodautoscaler.autoscaling/basic-hpa created", out)
            hpa = k.json("get", "hpa", "basic-hpa", "-n", "default")
            target = hpa["spec"]["metrics"][0]["resource"]["target"]
            expect(target == {"type": "Utilization", "averageValue": "10Mi"}, target)
            # No FlinkDeployment "basic" (the operator is off): as on a real cluster.
            def failed():
                ev = k.json("get", "events", "-n", "default", "--field-selector",
                            "involvedObject.name=basic-hpa,reason=FailedGetScale")["items"]
                return ev and ev[0]["message"] == \
                    'flinkdeployments.flink.apache.org "basic" not found'
            wait_until(failed, what="FailedGetScale for the missing FlinkDeployment")
        c.run("the upstream hpa-basic-hpa.yaml is accepted and acted on", upstream_example)

        def validation():
            bad = WEB_HPA.replace("name: web\nspec:", "name: bad\nspec:").replace(
                "minReplicas: 2", "minReplicas: 0")
            p = k.run("apply", "-n", NS, "-f", "-", stdin=bad, ok=False)
            expect_in('The HorizontalPodAutoscaler "bad" is invalid: spec.minReplicas: Invalid '
                      'value: 0: must be greater than or equal to 1', p.stderr)
            bad = WEB_HPA.replace("name: web\nspec:", "name: bad\nspec:").replace(
                "periodSeconds: 60", "periodSeconds: 1801")
            p = k.run("apply", "-n", NS, "-f", "-", stdin=bad, ok=False)
            expect_in("spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 1801: "
                      "must be less than or equal to 1800", p.stderr)
        c.run("invalid HPAs get the API server's field errors", validation)

        def external_api():
            out = k.out("get", "--raw", "/apis/external.metrics.k8s.io/v1beta1")
            expect(json.loads(out)["groupVersion"] == "external.metrics.k8s.io/v1beta1", out)
            p = k.run("get", "--raw",
                      "/apis/external.metrics.k8s.io/v1beta1/namespaces/%s/nope" % NS, ok=False)
            expect_in("NotFound", p.stderr)
        c.run("external.metrics.k8s.io is discoverable; unknown metrics are 404", external_api)

        def kubectl_autoscale():
            k.out("apply", "-n", NS, "-f", "-",
                  stdin=WEB.replace("web", "api").replace("replicas: 2", "replicas: 1")
                  .replace('"1200m"', '"100m"'))
            out = k.out("autoscale", "deployment", "api", "-n", NS, "--min=2", "--max=5",
                        "--cpu-percent=50")
            expect_in("horizontalpodautoscaler.autoscaling/api autoscaled", out)
            v1 = k.json("get", "horizontalpodautoscalers.v1.autoscaling", "api", "-n", NS)
            expect(v1["apiVersion"] == "autoscaling/v1", v1)
            expect(v1["spec"]["targetCPUUtilizationPercentage"] == 50, v1["spec"])
            v2 = k.json("get", "hpa", "api", "-n", NS)
            expect(v2["apiVersion"] == "autoscaling/v2", v2)
            expect(v2["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"] == 50, v2)
            row = [r for r in table_rows(k.out("get", "hpa", "-n", NS)) if r[0] == "api"][0]
            expect(row[1] == "Deployment/api" and row[3].endswith("/50%") and row[4] == "2", row)
            # The HPA acts on it: 1 replica is below minReplicas.
            wait_until(lambda: replicas(k, "api") == 2, timeout=30, what="api raised to 2")
            k.out("delete", "hpa", "api", "-n", NS)
            k.out("delete", "deployment", "api", "-n", NS)
        c.run("kubectl autoscale (autoscaling/v1) works and kubectl get hpa shows it",
              kubectl_autoscale)

        def lag_scales_consumers():
            k.out("apply", "-n", NS, "-f", "-", stdin=consumers("orders", "orders"))
            k.out("apply", "-n", NS, "-f", "-", stdin=consumers("clicks", "clicks"))
            # Lag grows by 700/s at one pod. AverageValue 2k per pod and Value 6k in total both
            # want more pods; 5 pods consume 1000/s > 900/s, so the lag drains.
            k.out("apply", "-n", NS, "-f", "-",
                  stdin=lag_hpa("orders", "orders", "{type: AverageValue, averageValue: 2k}"))
            k.out("apply", "-n", NS, "-f", "-",
                  stdin=lag_hpa("clicks", "clicks", "{type: Value, value: 6k}"))
            raw = json.loads(k.out(
                "get", "--raw", "/apis/external.metrics.k8s.io/v1beta1/namespaces/%s/"
                "kafka_consumergroup_lag?labelSelector=topic%%3Dorders" % NS))
            expect(len(raw["items"]) == 6, raw)
            expect(sorted(raw["items"][0]["metricLabels"]) ==
                   ["consumergroup", "deployment", "namespace", "partition", "topic"], raw)
            wait_until(lambda: replicas(k, "orders") > 1 and replicas(k, "clicks") > 1,
                       timeout=60, what="both consumer Deployments scaled out on lag")
            for name in ["orders", "clicks"]:
                ups = rescales(k, name)
                expect_in("external metric kafka_consumergroup_lag", ups[0][2])
            # The per-pod lag on custom.metrics.k8s.io follows the partition assignment.
            raw = json.loads(k.out(
                "get", "--raw", "/apis/custom.metrics.k8s.io/v1beta2/namespaces/%s/pods/*/"
                "kafka_consumergroup_lag?labelSelector=app%%3Dorders" % NS))
            expect(raw["kind"] == "MetricValueList" and raw["items"], raw)
            expect(raw["items"][0]["describedObject"]["apiVersion"] == "/v1", raw)
        c.run("HPAs on a simulated topic's consumer lag scale consumers (AverageValue, Value)",
              lag_scales_consumers)

        def python_client():
            try:
                from kubernetes import client, config, dynamic
            except ImportError:
                print("python3-kubernetes not installed: skipped")
                return
            api_client = config.new_client_from_config(config_file=cluster.kubeconfig)
            # call_api sends the kubeconfig's token only when asked to (auth_settings).
            # Debian's client (22.6) predates autoscaling/v2 typed APIs: the dynamic client
            # finds it through legacy discovery.
            hpas = dynamic.DynamicClient(api_client).resources.get(
                api_version="autoscaling/v2", kind="HorizontalPodAutoscaler")
            items = hpas.get(namespace=NS).items
            names = [h.metadata.name for h in items]
            expect(names == ["clicks", "orders", "web"], names)
            expect(items[2].status.currentReplicas == 2, items[2].status)
            raw = api_client.call_api(
                "/apis/external.metrics.k8s.io/v1beta1", "GET", response_type="object",
                _return_http_data_only=True, auth_settings=["BearerToken"])
            expect(raw["groupVersion"] == "external.metrics.k8s.io/v1beta1", raw)
            raw = api_client.call_api(
                "/apis/metrics.k8s.io/v1beta1/namespaces/%s/pods" % NS, "GET",
                response_type="object", _return_http_data_only=True,
                auth_settings=["BearerToken"])
            expect(raw["kind"] == "PodMetricsList" and
                   len([i for i in raw["items"] if i["metadata"]["name"].startswith("web")]) == 2,
                   raw)
            raw = api_client.call_api(
                "/apis/custom.metrics.k8s.io/v1beta2/namespaces/%s/deployments.apps/orders/"
                "kafka_consumergroup_lag" % NS, "GET", response_type="object",
                _return_http_data_only=True, auth_settings=["BearerToken"])
            expect(raw["kind"] == "MetricValueList" and len(raw["items"]) == 1, raw)
            expect(raw["items"][0]["describedObject"]["kind"] == "Deployment", raw)
        c.run("the Python client lists HPAs and reads the metrics APIs", python_client)

    finally:
        cluster.stop()

    # A restart in the middle of a scale-down, at wall-clock speed (a faster clock starts again
    # from the wall time after a restart). Memory usage, whose readiness rules do not hold the
    # HPA back while the restarted pods become ready again.
    restart_cluster = LocalCluster(args.trimtab, extra_args=ARGS[:5] + ["--hpa-sync-period", "3s"])
    restart_cluster.start()
    try:
        k = Kubectl(args.kubectl, restart_cluster)
        k.out("create", "namespace", NS)

        def restart_keeps_limits():
            k.out("apply", "-n", NS, "-f", "-", stdin=BATCH)
            k.out("rollout", "status", "deployment/batch", "-n", NS, "--timeout=60s", timeout=90)
            k.out("apply", "-n", NS, "-f", "-", stdin=BATCH_HPA)
            wait_until(lambda: replicas(k, "batch") == 3, timeout=60, what="the first scale-down")
            first = time.time()
            restart_cluster.proc.terminate()
            restart_cluster.proc.wait(timeout=20)
            restart_cluster.start()
            wait_until(lambda: replicas(k, "batch") == 2, timeout=60, what="the second scale-down")
            downs = rescales(k, "batch")
            expect([s for _, s, _ in downs] == [3, 2], downs)
            # Without the stored history the restarted controller would scale down at its first
            # sync, a few seconds after the first step.
            expect(downs[1][0] - downs[0][0] >= 20, "the 20 s policy did not hold: %s" % downs)
            expect(time.time() - first < 60, "too slow")
        c.run("a restart of trimtab local mid scale-down keeps the policy", restart_keeps_limits)
        code = c.exit_code()
    finally:
        restart_cluster.stop()
    print("wall time: %.1f s" % (time.monotonic() - started))
    return code


if __name__ == "__main__":
    sys.exit(main())
