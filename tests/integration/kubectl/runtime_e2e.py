#!/usr/bin/env python3
"""The local cluster runtime of `trimtab local` with the real kubectl: nodes, scheduling, pods
that run (default runner), Deployments rolling out, Services answering on their clusterIP,
garbage collection, scheduling failures and logs. Finishes in well under a minute.

Usage: runtime_e2e.py --trimtab BIN   (exit 77 = skipped: no kubectl)
"""

import os
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from local_cluster import SKIP, e2e_args, Checks, LocalCluster, expect, expect_in  # noqa: E402
from kubectl_e2e import Kubectl, header, table_rows, wait_until  # noqa: E402

NS = "rt"
# Ranges of their own, so a `trimtab local` running on the defaults does not collide.
RANGES = ["--service-cidr", "127.12.0.0/16", "--pod-cidr", "127.22.0.0/16"]

DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: echo
spec:
  replicas: 3
  selector:
    matchLabels: {app: echo}
  template:
    metadata:
      labels: {app: echo}
      annotations: {trimtab.dev/serve: http-echo}
    spec:
      containers:
      - name: echo
        image: registry.local/echo:1.0
        ports:
        - {name: http, containerPort: 8080}
        readinessProbe:
          httpGet: {path: /, port: http}
          initialDelaySeconds: 1
---
apiVersion: v1
kind: Service
metadata:
  name: echo
spec:
  selector: {app: echo}
  ports:
  - {name: web, port: 8088, targetPort: http}
"""

HUNGRY = """
apiVersion: v1
kind: Pod
metadata:
  name: hungry
spec:
  containers:
  - name: main
    image: busybox:1.36
    resources:
      requests: {cpu: "64"}
"""

JOB_POD = """
apiVersion: v1
kind: Pod
metadata:
  name: hello
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: busybox:1.36
    command: ["sh", "-c", "echo hello from the local cluster; exit 0"]
"""


def main():
    args = e2e_args()
    if args is None:
        return SKIP

    started = time.monotonic()
    with LocalCluster(args.trimtab, extra_args=RANGES) as cluster:
        k = Kubectl(args.kubectl, cluster)
        c = Checks()
        k.out("create", "namespace", NS)

        def nodes():
            wait_until(lambda: len(table_rows(k.out("get", "nodes"))) == 5, what="4 nodes")
            out = k.out("get", "nodes")
            expect(header(out) == "NAME STATUS ROLES AGE VERSION", header(out))
            rows = table_rows(out)[1:]
            expect([r[0] for r in rows] == ["node-1", "node-2", "node-3", "node-4"], out)
            expect(all(r[1] == "Ready" for r in rows), out)
            node = k.json("get", "node", "node-1")
            expect(node["status"]["allocatable"]["cpu"] == "8", node["status"])
            expect(node["spec"]["podCIDR"].startswith("127.22."), node["spec"])
        c.run("nodes register Ready with capacity and podCIDR", nodes)

        def deployment_runs():
            out = k.out("apply", "-n", NS, "-f", "-", stdin=DEPLOYMENT)
            expect_in("deployment.apps/echo created", out)
            out = k.out("rollout", "status", "deployment/echo", "-n", NS, "--timeout=60s",
                        timeout=90)
            expect_in('deployment "echo" successfully rolled out', out)
            pods = k.json("get", "pods", "-n", NS, "-l", "app=echo")["items"]
            expect(len(pods) == 3, [p["metadata"]["name"] for p in pods])
            for p in pods:
                expect(p["status"]["phase"] == "Running", p["status"])
                ready = [x for x in p["status"]["conditions"] if x["type"] == "Ready"]
                expect(ready and ready[0]["status"] == "True", p["status"]["conditions"])
            out = k.out("get", "pods", "-n", NS, "-o", "wide")
            expect(header(out).startswith("NAME READY STATUS RESTARTS AGE IP NODE"), header(out))
            for row in table_rows(out)[1:]:
                expect(row[1] == "1/1" and row[2] == "Running", row)
                expect(row[5].startswith("127.22.") and row[6].startswith("node-"), row)
            out = k.out("get", "rs", "-n", NS)
            expect(header(out) == "NAME DESIRED CURRENT READY AGE", header(out))
            expect(table_rows(out)[1][1:4] == ["3", "3", "3"], out)
        c.run("apply a Deployment: pods Running and Ready, rollout status", deployment_runs)

        def service_answers():
            svc = k.json("get", "svc", "echo", "-n", NS)
            ip = svc["spec"]["clusterIP"]
            expect(ip.startswith("127.12."), ip)
            out = k.out("get", "endpoints", "echo", "-n", NS)
            expect(header(out) == "NAME ENDPOINTS AGE", header(out))
            wait_until(lambda: table_rows(k.out("get", "endpoints", "echo", "-n", NS))[1][1]
                       .count(":8080") == 3, what="3 endpoints")
            seen = set()

            def fetch():
                with urllib.request.urlopen("http://%s:8088/via-service" % ip, timeout=5) as r:
                    body = r.read().decode()
                expect_in("request: GET /via-service", body)
                seen.add([l for l in body.splitlines() if l.startswith("pod: ")][0])
                return len(seen) == 3
            wait_until(fetch, what="answers from all 3 pods through the clusterIP")
        c.run("a Service clusterIP answers over TCP from every ready pod", service_answers)

        def new_image():
            before = {r["metadata"]["name"] for r in k.json("get", "rs", "-n", NS)["items"]}
            k.out("set", "image", "deployment/echo", "echo=registry.local/echo:2.0", "-n", NS)
            out = k.out("rollout", "status", "deployment/echo", "-n", NS, "--timeout=60s",
                        timeout=90)
            expect_in("successfully rolled out", out)
            sets = k.json("get", "rs", "-n", NS)["items"]
            new = [r for r in sets if r["metadata"]["name"] not in before]
            expect(len(new) == 1, [r["metadata"]["name"] for r in sets])
            expect(new[0]["spec"]["replicas"] == 3, new[0]["spec"])
            expect(new[0]["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2",
                   new[0]["metadata"]["annotations"])
            for r in sets:
                if r["metadata"]["name"] in before:
                    expect(r["spec"]["replicas"] == 0, r["spec"])
            images = {p["spec"]["containers"][0]["image"]
                      for p in k.json("get", "pods", "-n", NS, "-l", "app=echo")["items"]
                      if "deletionTimestamp" not in p["metadata"]}
            expect(images == {"registry.local/echo:2.0"}, images)
            out = k.out("rollout", "history", "deployment/echo", "-n", NS)
            expect_in("2", out)
        c.run("changing the image rolls out a new ReplicaSet", new_image)

        def undo():
            before = {r["metadata"]["name"]: r for r in k.json("get", "rs", "-n", NS)["items"]}
            out = k.out("rollout", "undo", "deployment/echo", "-n", NS)
            expect_in("deployment.apps/echo rolled back", out)
            k.out("rollout", "status", "deployment/echo", "-n", NS, "--timeout=60s", timeout=90)
            after = {r["metadata"]["name"]: r for r in k.json("get", "rs", "-n", NS)["items"]}
            expect(set(after) == set(before), "undo created a ReplicaSet: %s" % sorted(after))
            first = [r for r in after.values()
                     if r["spec"]["template"]["spec"]["containers"][0]["image"].endswith(":1.0")][0]
            expect(first["spec"]["replicas"] == 3, first["spec"])
            expect(first["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "3",
                   first["metadata"]["annotations"])
        c.run("kubectl rollout undo goes back to the first ReplicaSet", undo)

        def scale():
            out = k.out("scale", "deployment/echo", "--replicas=5", "-n", NS)
            expect_in("deployment.apps/echo scaled", out)
            k.out("rollout", "status", "deployment/echo", "-n", NS, "--timeout=60s", timeout=90)
            out = k.out("get", "deploy", "echo", "-n", NS)
            expect(table_rows(out)[1][1:4] == ["5/5", "5", "5"], out)
        c.run("kubectl scale", scale)

        def unschedulable():
            k.out("apply", "-n", NS, "-f", "-", stdin=HUNGRY)

            def reported():
                out = k.out("describe", "pod", "hungry", "-n", NS)
                return "FailedScheduling" in out and \
                    "0/4 nodes are available: 4 Insufficient cpu." in out
            wait_until(reported, what="FailedScheduling in describe")
            pod = k.json("get", "pod", "hungry", "-n", NS)
            expect(pod["status"]["phase"] == "Pending", pod["status"])
            cond = [x for x in pod["status"]["conditions"] if x["type"] == "PodScheduled"][0]
            expect(cond["status"] == "False" and cond["reason"] == "Unschedulable", cond)
        c.run("a pod asking for more cpu than any node stays Pending with FailedScheduling",
              unschedulable)

        def logs():
            k.out("apply", "-n", NS, "-f", "-", stdin=JOB_POD)
            wait_until(lambda: k.json("get", "pod", "hello", "-n", NS)["status"]["phase"]
                       == "Succeeded", what="pod hello Succeeded")
            out = k.out("logs", "hello", "-n", NS)
            expect_in("hello from the local cluster", out)
            out = k.out("get", "pod", "hello", "-n", NS)
            expect(table_rows(out)[1][2] == "Completed", out)
            pod = k.json("get", "pods", "-n", NS, "-l", "app=echo")["items"][0]
            out = k.out("logs", pod["metadata"]["name"], "-n", NS)
            expect_in("http-echo: listening on " + pod["status"]["podIP"] + ":8080", out)
        c.run("kubectl logs returns the runner's log text", logs)

        def delete_deployment():
            out = k.out("delete", "deployment", "echo", "-n", NS)
            expect_in('deployment.apps "echo" deleted', out)
            wait_until(lambda: not k.json("get", "rs", "-n", NS)["items"] and
                       not k.json("get", "pods", "-n", NS, "-l", "app=echo")["items"],
                       what="ReplicaSets and pods to be garbage-collected")
            wait_until(lambda: "<none>" in k.out("get", "endpoints", "echo", "-n", NS),
                       what="the Service's endpoints to empty")
        c.run("kubectl delete deployment removes its ReplicaSets and pods", delete_deployment)

        return c.finish(cluster, "runtime e2e", started)


if __name__ == "__main__":
    sys.exit(main())
