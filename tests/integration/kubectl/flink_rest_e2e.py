#!/usr/bin/env python3
"""A simulated Flink cluster of `trimtab local`, driven only over kubectl and the Flink REST API.

No operator: the JobManager is created by hand with the objects Flink's native Kubernetes
integration creates (docs/design/flink-pods.md): the flink-config ConfigMap, a Deployment whose
container runs `kubernetes-jobmanager.sh kubernetes-application` from the upstream image, and the
`-rest` Service. Then, through the Service's clusterIP only:

  - the job runs and its metrics respond to load: input above capacity makes the bottleneck busy,
    backpressures the source and grows pendingRecords;
  - `trimtab scenario from-flink` captures the overloaded job: the arrival rate it reports is the
    workload's (read rate plus backlog growth, per second of the cluster's 10x clock), the
    bottleneck's capacity is what it processes, and `trimtab simulate` runs the scenario;
  - in-place rescale with the adaptive scheduler (PUT /jobs/:id/resource-requirements) raises
    the parallelism, the JobManager creates TaskManager pods for it, and the backlog shrinks;
  - stop-with-savepoint completes with a savepoint location, and a new JobManager started from
    that savepoint continues exactly where the old job stopped: the offset ledger
    (GET /trimtab/topics) has commits from both jobs and neither gaps nor overlaps;
  - a finished application cluster shuts itself down: cancelling the restored job makes its
    JobManager delete its own Deployment, as Flink's native mode does.

The first cluster runs with execution.shutdown-on-application-finish: false, as the Flink
operator sets it: with the default (true) the cluster goes away as soon as the savepoint is
taken, and a client polling for the savepoint's location can find nothing left to ask (a race
real Flink has too).

Usage: flink_rest_e2e.py --trimtab BIN   (exit 77 = skipped: no kubectl)
"""

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from local_cluster import SKIP, e2e_args, Checks, LocalCluster, expect, expect_in  # noqa: E402
from kubectl_e2e import Kubectl, wait_until  # noqa: E402

NS = "fl"
SPEED = 10  # the cluster clock runs 10x wall time: 60-s metric averages fill in 6 s
RANGES = ["--service-cidr", "127.17.0.0/16", "--pod-cidr", "127.27.0.0/16"]
JOB_ID = "00000000000000000000000000c0ffee"
RESTORED_JOB_ID = "00000000000000000000000000decade"

# A windowed aggregation (Nexmark q5 shape) at parallelism 1 under 60k records/s: well above
# what one subtask of its window vertex carries.
JOB = "{library: q5, parallelism: 1, partitions: 8, maxParallelism: 8}"
WORKLOAD = "{type: constant, rate: 60000}"


def cluster_objects(name, job_id, savepoint_path=None, shutdown_on_finish=True):
    config = {
        "kubernetes.cluster-id": name,
        "kubernetes.namespace": NS,
        "execution.target": "kubernetes-application",
        "$internal.pipeline.job-id": job_id,
        "pipeline.jars": "local:///opt/flink/usrlib/q5.jar",
        "parallelism.default": "1",
        "taskmanager.numberOfTaskSlots": "2",
        "taskmanager.memory.process.size": "1g",
        "kubernetes.taskmanager.cpu": "0.5",
        "jobmanager.scheduler": "adaptive",
        "execution.checkpointing.interval": "10 s",
        "execution.checkpointing.dir": "file:///flink-data/checkpoints",
        "execution.checkpointing.savepoint-dir": "file:///flink-data/savepoints",
    }
    if savepoint_path:
        config["execution.savepoint.path"] = savepoint_path
    if not shutdown_on_finish:
        config["execution.shutdown-on-application-finish"] = "false"
    config_yaml = "".join("%s: '%s'\n" % kv for kv in sorted(config.items()))
    labels = {"app": name, "component": "jobmanager", "type": "flink-native-kubernetes"}
    return [
        {"apiVersion": "v1", "kind": "ConfigMap",
         "metadata": {"name": "flink-config-" + name, "namespace": NS},
         "data": {"config.yaml": config_yaml}},
        {"apiVersion": "apps/v1", "kind": "Deployment",
         "metadata": {"name": name, "namespace": NS, "labels": labels,
                      "annotations": {"trimtab.dev/job": JOB, "trimtab.dev/workload": WORKLOAD}},
         "spec": {"replicas": 1, "strategy": {"type": "Recreate"},
                  "selector": {"matchLabels": labels},
                  "template": {"metadata": {"labels": labels}, "spec": {
                      "containers": [{
                          "name": "flink-main-container", "image": "flink:1.20",
                          "args": ["bash", "-c",
                                   "kubernetes-jobmanager.sh kubernetes-application"],
                          "ports": [{"name": "rest", "containerPort": 8081}],
                          "resources": {"requests": {"cpu": "0.5", "memory": "1Gi"}},
                          "volumeMounts": [{"name": "flink-config-volume",
                                            "mountPath": "/opt/flink/conf"}]}],
                      "volumes": [{"name": "flink-config-volume",
                                   "configMap": {"name": "flink-config-" + name}}]}}}},
        {"apiVersion": "v1", "kind": "Service",
         "metadata": {"name": name + "-rest", "namespace": NS},
         "spec": {"selector": labels, "ports": [{"name": "rest", "port": 8081}]}},
    ]


def as_stream(objects):
    # Concatenated JSON documents, which kubectl decodes one by one (a `kind: List` works too;
    # kubectl_e2e covers it).
    return "\n".join(json.dumps(o) for o in objects)


class Rest:
    """The Flink REST API of one cluster, reached through its Service's clusterIP."""

    def __init__(self, k, service):
        ip = k.json("get", "svc", service, "-n", NS)["spec"]["clusterIP"]
        self.base = "http://%s:8081" % ip

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=5) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def get(self, path):
        status, body = self.call("GET", path)
        expect(status == 200, "GET %s: HTTP %d %s" % (path, status, body))
        return body

    def answers(self):
        try:
            return self.call("GET", "/overview")[0] == 200
        except OSError:
            return False


def job_state(rest, jid):
    status, body = rest.call("GET", "/jobs/%s/status" % jid)
    return body.get("status") if status == 200 else None


def vertices(rest, jid):
    return rest.get("/jobs/%s" % jid)["vertices"]


def aggregated(rest, jid, vid, metric, agg):
    body = rest.get("/jobs/%s/vertices/%s/subtasks/metrics?get=%s&agg=%s" % (jid, vid, metric, agg))
    return body[0][agg] if body else None


def pending_records(rest, jid, source_vid):
    names = [m["id"] for m in rest.get("/jobs/%s/vertices/%s/subtasks/metrics" % (jid, source_vid))]
    pending = [n for n in names if n.endswith("pendingRecords")]
    expect(pending, "the source reports no pendingRecords metric: %s" % names)
    return sum(aggregated(rest, jid, source_vid, n, "sum") or 0 for n in pending)


def main():
    args = e2e_args()
    if args is None:
        return SKIP
    kubectl = args.kubectl

    started = time.monotonic()
    cluster = LocalCluster(args.trimtab,
                           extra_args=RANGES + ["--no-operator", "--speed", str(SPEED)])
    cluster.start()
    try:
        k = Kubectl(kubectl, cluster)
        k.out("create", "namespace", NS)
        c = Checks()
        state = {}

        def deploy():
            k.out("apply", "-f", "-", stdin=as_stream(cluster_objects("wc", JOB_ID, shutdown_on_finish=False)))
            k.out("rollout", "status", "deployment/wc", "-n", NS, "--timeout=60s", timeout=90)
            rest = Rest(k, "wc-rest")
            wait_until(rest.answers, timeout=30, what="the JobManager REST API on the clusterIP")
            wait_until(lambda: job_state(rest, JOB_ID) == "RUNNING", timeout=60,
                       what="job RUNNING")
            config = rest.get("/config")
            expect(config["flink-version"].startswith("1.20"), config)
            tms = k.json("get", "pods", "-n", NS, "-l", "app=wc,component=taskmanager")["items"]
            expect(len(tms) == 1 and tms[0]["status"]["phase"] == "Running",
                   "one Running TaskManager pod for one slot: %s" %
                   [(p["metadata"]["name"], p["status"].get("phase")) for p in tms])
            state["rest"] = rest
        c.run("a JobManager from the upstream image/args runs its job, served on the Service "
              "address", deploy)

        def port_forward_and_proxy():
            jm = k.json("get", "pods", "-n", NS, "-l",
                        "app=wc,component=jobmanager")["items"][0]["metadata"]["name"]
            # kubectl 1.32 tunnels SPDY through a WebSocket first; without PortForwardWebsockets
            # it upgrades to SPDY directly. A Service is resolved by kubectl to one of its pods,
            # its port name to the container port.
            for target, port, env_extra in (
                    ("pod/" + jm, "18081:8081", None),
                    ("svc/wc-rest", "18082:rest", {"KUBECTL_PORT_FORWARD_WEBSOCKETS": "false"})):
                with k.port_forward(target, "-n", NS, port, env_extra=env_extra):
                    local = "http://127.0.0.1:%s" % port.split(":")[0]
                    for _ in range(2):  # two connections over one tunnel
                        with urllib.request.urlopen(local + "/overview", timeout=10) as r:
                            overview = json.loads(r.read())
                        expect(overview.get("jobs-running") == 1 and
                               overview.get("flink-version", "").startswith("1.20"),
                               "%s: %s" % (target, overview))
            # A port without a listener: the kubelet's error, then kubectl gives up.
            with k.port_forward("pod/" + jm, "-n", NS, "18083:9999") as p:
                try:
                    urllib.request.urlopen("http://127.0.0.1:18083/", timeout=10)
                except (OSError, urllib.error.URLError):
                    pass
                p.wait(timeout=20)
                err = p.stderr.read()
            expect_in("error forwarding port 9999 to pod %s/%s" % (NS, jm), err)
            expect_in("lost connection to pod", err)
            # The proxy subresources (kubectl get --raw, dashboards).
            status = json.loads(k.out("get", "--raw", "/api/v1/namespaces/%s/services/"
                                      "wc-rest:rest/proxy/jobs/%s/status" % (NS, JOB_ID)))
            expect(status.get("status") == "RUNNING", status)
            overview = json.loads(k.out("get", "--raw", "/api/v1/namespaces/%s/pods/%s:8081/"
                                        "proxy/overview" % (NS, jm)))
            expect(overview.get("jobs-running") == 1, overview)
            p = k.run("get", "--raw", "/api/v1/namespaces/%s/pods/%s:9999/proxy/" % (NS, jm),
                      ok=False)
            expect_in("error trying to reach service", p.stderr)
        c.run("kubectl port-forward to the JobManager pod (WebSocket) and its Service (SPDY); "
              "the pods and services proxy", port_forward_and_proxy)

        def metrics_follow_load():
            rest = state["rest"]
            vs = vertices(rest, JOB_ID)
            expect(all(v["parallelism"] == 1 for v in vs), [v["parallelism"] for v in vs])
            source = vs[0]["id"]
            # 60-s averages at 10x: wait until they reflect a full minute of overload.
            time.sleep(8)
            busiest = max(aggregated(rest, JOB_ID, v["id"], "busyTimeMsPerSecond", "max") or 0
                          for v in vs[1:])
            expect(busiest > 900, "a saturated vertex is busy almost all the time: %s" % busiest)
            backpressured = aggregated(rest, JOB_ID, source, "backPressuredTimeMsPerSecond", "avg")
            expect(backpressured > 300, "the source is backpressured: %s" % backpressured)
            first = pending_records(rest, JOB_ID, source)
            time.sleep(2)
            second = pending_records(rest, JOB_ID, source)
            expect(second > first > 0, "pendingRecords grows under overload: %s -> %s"
                   % (first, second))
            state["source"] = source
            state["backlog_before_rescale"] = second
        c.run("metrics respond to load: busy bottleneck, backpressured source, growing "
              "pendingRecords", metrics_follow_load)

        def capture():
            rest = state["rest"]
            out = os.path.join(cluster.tmp, "wc.yaml")
            r = subprocess.run([args.trimtab, "scenario", "from-flink", rest.base, "--job", JOB_ID,
                                "--samples", "2", "--interval", "3 s", "-o", out],
                               capture_output=True, text=True, timeout=120)
            expect(r.returncode == 0, "scenario from-flink: exit %d: %s" % (r.returncode, r.stderr))
            with open(out) as f:
                scenario = yaml.safe_load(f)
            vs = scenario["job"]["vertices"]
            expect(len(vs) == 4 and all(v["parallelism"] == 1 for v in vs), vs)
            expect(vs[0]["partitions"] == 8, vs[0])
            expect(vs[0].get("initialBacklog", 0) > 0, "the backlog is captured: %s" % vs[0])
            # 60k/s offered: the sources read less and the rest piles up; both count.
            rate = scenario["workload"]["rate"]
            expect(abs(rate - 60000) < 0.05 * 60000, "arrival rate %s, offered 60000" % rate)
            # The saturated window vertex processes what it can: its capacity is below the load.
            window = min(vs[1:], key=lambda v: v["capacityPerSubtask"])
            expect(window["capacityPerSubtask"] < 60000, window)
            sim = subprocess.run([args.trimtab, "simulate", "-q", out, "-p", "static,oracle",
                                  "--json", "-"], capture_output=True, text=True, timeout=300)
            expect(sim.returncode == 0, "simulate: exit %d: %s" % (sim.returncode, sim.stderr))
            figures = {p["policy"]: p for p in json.loads(sim.stdout)["policies"]}
            expect(figures["oracle"]["maxSlots"] > 1 and figures["static"]["sloViolationSeconds"] > 0,
                   "the captured overload needs more than one slot: %s" %
                   {k: (v["maxSlots"], v["sloViolationSeconds"]) for k, v in figures.items()})
        c.run("scenario from-flink captures the overloaded job and simulate runs it", capture)

        def in_place_rescale():
            rest = state["rest"]
            req = rest.get("/jobs/%s/resource-requirements" % JOB_ID)
            expect(len(req) == len(vertices(rest, JOB_ID)), req)
            wanted = {vid: {"parallelism": {"lowerBound": 1, "upperBound": 8}} for vid in req}
            status, body = rest.call("PUT", "/jobs/%s/resource-requirements" % JOB_ID, wanted)
            expect(status == 200, "PUT resource-requirements: HTTP %d %s" % (status, body))
            wait_until(lambda: all(v["parallelism"] == 8 for v in vertices(rest, JOB_ID)) and
                       job_state(rest, JOB_ID) == "RUNNING", timeout=90,
                       what="every vertex at parallelism 8, RUNNING")
            tms = k.json("get", "pods", "-n", NS, "-l", "app=wc,component=taskmanager")["items"]
            expect(len(tms) == 4, "8 slots need 4 TaskManager pods: %d" % len(tms))
            # With 8x the capacity the backlog of the overload is worked off.
            wait_until(lambda: pending_records(rest, JOB_ID, state["source"]) <
                       state["backlog_before_rescale"] / 2, timeout=60,
                       what="the backlog to shrink after the rescale")
        c.run("in-place rescale over PUT resource-requirements adds TaskManager pods and "
              "works off the backlog", in_place_rescale)

        def stop_with_savepoint():
            rest = state["rest"]
            status, body = rest.call("POST", "/jobs/%s/stop" % JOB_ID,
                                     {"drain": False,
                                      "targetDirectory": "file:///flink-data/savepoints"})
            expect(status == 202 and "request-id" in body, "stop: HTTP %d %s" % (status, body))
            trigger = body["request-id"]

            def completed():
                result = rest.get("/jobs/%s/savepoints/%s" % (JOB_ID, trigger))
                if result["status"]["id"] != "COMPLETED":
                    return False
                state["savepoint"] = result["operation"]["location"]
                return True
            wait_until(completed, timeout=60, what="stop-with-savepoint to complete")
            expect_in("file:///flink-data/savepoints/savepoint-", state["savepoint"], "location")
            wait_until(lambda: job_state(rest, JOB_ID) == "FINISHED", timeout=30,
                       what="job FINISHED after stop-with-savepoint")
        c.run("stop-with-savepoint completes with a savepoint location", stop_with_savepoint)

        def restore():
            # The finished cluster stays (shutdown-on-application-finish: false) until we remove
            # it, as the operator does before it redeploys.
            expect(k.json("get", "deployment", "wc", "-n", NS)["metadata"]["name"] == "wc",
                   "the finished cluster is kept")
            k.out("delete", "deployment", "wc", "-n", NS)
            wait_until(lambda: not k.json("get", "pods", "-n", NS, "-l", "app=wc")["items"],
                       timeout=60, what="the old cluster's pods to go")
            k.out("apply", "-f", "-",
                  stdin=as_stream(cluster_objects("wc", RESTORED_JOB_ID, state["savepoint"])))
            rest = Rest(k, "wc-rest")
            wait_until(rest.answers, timeout=60, what="the new JobManager's REST API")
            wait_until(lambda: job_state(rest, RESTORED_JOB_ID) == "RUNNING", timeout=60,
                       what="restored job RUNNING")
            checkpoints = rest.get("/jobs/%s/checkpoints" % RESTORED_JOB_ID)
            restored = checkpoints["latest"]["restored"]
            expect(restored and restored["external_path"] == state["savepoint"] and
                   restored["is_savepoint"], "restored from the savepoint: %s" % restored)

            # The restored job commits its first checkpoint (interval 10 s = 1 s of wall time).
            def ledger_continues():
                topics = rest.get("/trimtab/topics")["topics"]
                expect(len(topics) == 1, topics)
                return len(topics[0]["jobs"]) == 2
            wait_until(ledger_continues, timeout=30, what="commits from the restored job")
            topic = rest.get("/trimtab/topics")["topics"][0]
            expect(topic["jobs"] == [JOB_ID, RESTORED_JOB_ID], topic["jobs"])
            expect(topic["issues"] == [], "records lost or repeated: %s" % topic["issues"])
            expect(topic["savepointCommits"] > 0, topic)
        c.run("a new JobManager restores from the savepoint: nothing skipped, nothing repeated",
              restore)

        def self_shutdown():
            # The restored cluster runs with the default shutdown-on-application-finish (true):
            # once its job is globally terminal, its JobManager deletes its own Deployment and
            # the pods go with it.
            rest = Rest(k, "wc-rest")
            status, body = rest.call("PATCH", "/jobs/%s?mode=cancel" % RESTORED_JOB_ID)
            expect(status == 202, "cancel: HTTP %d %s" % (status, body))
            wait_until(lambda: not k.json("get", "deployments", "-n", NS)["items"], timeout=60,
                       what="the finished cluster to delete its JobManager Deployment")
            wait_until(lambda: not k.json("get", "pods", "-n", NS, "-l", "app=wc")["items"],
                       timeout=60, what="the cluster's pods to go")
        c.run("a cancelled application cluster deletes its own JobManager Deployment",
              self_shutdown)

        code = c.exit_code()
        print("flink rest e2e took %.1f s" % (time.monotonic() - started))
        if code != 0:
            print("---- trimtab local log (tail) ----")
            print("\n".join(cluster.log().splitlines()[-60:]))
        return code
    finally:
        cluster.stop()


if __name__ == "__main__":
    sys.exit(main())
