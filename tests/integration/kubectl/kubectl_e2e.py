#!/usr/bin/env python3
"""kubectl against `trimtab local`: the commands a user runs against a real cluster, with the
output a real cluster gives. Never uses --validate=false: create/apply/edit must pass through
server-side field validation enabled by the OpenAPI v3 documents. Runs `trimtab local --api-only`
(the API server alone: no CRDs installed, no pods run); the runtime and the operator have suites
of their own (runtime_e2e.py, operator_e2e.py).

Usage: kubectl_e2e.py --trimtab BIN --reference DIR   (exit 77 = skipped: no kubectl)
"""

import contextlib
import glob
import json
import os
import stat
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from local_cluster import SKIP, e2e_args, Checks, LocalCluster, expect, expect_in  # noqa: E402

NS = "e2e"

DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
        ports:
        - containerPort: 80
        env:
        - {name: MODE, value: blue}
      - name: sidecar
        image: busybox:1.36
        args: ["sleep", "infinity"]
"""

BAD_FLINK = """
apiVersion: flink.apache.org/v1beta1
kind: FlinkDeployment
metadata:
  name: bad
spec:
  image: flink:2.2
  flinkVersion: v9_9
  serviceAccount: flink
  job:
    jarURI: local:///x.jar
    parallelism: 2
"""

TYPO_DEPLOYMENT = DEPLOYMENT.replace("name: web\n", "name: typo\n").replace(
    "  replicas: 2\n", "  replicas: 2\n  replicsa: 3\n")


class Kubectl:
    def __init__(self, binary, cluster):
        self.binary = binary
        self.cluster = cluster
        self.cache = os.path.join(cluster.tmp, "kube-cache")

    def run(self, *args, stdin=None, ok=True, timeout=60, env=None):
        """Runs kubectl; ok=True: must succeed, False: must fail, None: either."""
        cmd = [self.binary, "--cache-dir", self.cache] + list(args)
        p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=timeout,
                           env=env or self.cluster.env())
        if ok is None:  # the caller inspects the result
            return p
        if ok and p.returncode != 0:
            raise AssertionError("%s failed (%d):\nstdout: %s\nstderr: %s" %
                                 (" ".join(args), p.returncode, p.stdout, p.stderr))
        if not ok and p.returncode == 0:
            raise AssertionError("%s unexpectedly succeeded:\n%s" % (" ".join(args), p.stdout))
        return p

    def out(self, *args, **kw):
        return self.run(*args, **kw).stdout

    def json(self, *args):
        return json.loads(self.out(*args, "-o", "json"))

    @contextlib.contextmanager
    def port_forward(self, *args, env_extra=None, timeout=30):
        """Runs `kubectl port-forward ARGS` for the duration of the block, entered once kubectl
        says it is forwarding; yields the process (its stderr is read after the block)."""
        env = dict(self.cluster.env())
        env.update(env_extra or {})
        cmd = [self.binary, "--cache-dir", self.cache, "port-forward"] + list(args)
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env)
        try:
            deadline = time.monotonic() + timeout
            line = ""
            while time.monotonic() < deadline and not line.startswith("Forwarding from"):
                line = p.stdout.readline()
                if not line and p.poll() is not None:
                    raise AssertionError("kubectl port-forward %s exited: %s" %
                                         (" ".join(args), p.stderr.read()))
            expect(line.startswith("Forwarding from"), "port-forward never listened")
            yield p
        finally:
            if p.poll() is None:
                p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def table_rows(text):
    return [line.split() for line in text.strip().splitlines()]


def header(text):
    return " ".join(text.strip().splitlines()[0].split())


def wait_until(fn, timeout=30, what="condition"):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            if fn():
                return
        except AssertionError as e:
            last = e
        time.sleep(0.3)
    raise AssertionError("timed out waiting for %s (%s)" % (what, last))


def make_editor(tmp, name, old, new):
    """An EDITOR that replaces `old` by `new` in the file kubectl hands it."""
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write("#!%s\nimport sys\np = sys.argv[-1]\ns = open(p).read()\n"
                "assert %r in s, s\nopen(p, 'w').write(s.replace(%r, %r, 1))\n" %
                (sys.executable, old, old, new))
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
    return path


def main():
    args = e2e_args(reference=True)
    if args is None:
        return SKIP
    crds = sorted(glob.glob(os.path.join(args.reference, "flink-operator", "crds", "*.yml")))
    examples = sorted(glob.glob(os.path.join(args.reference, "flink-operator", "examples", "*.yaml")))
    if not crds or not examples:
        print("reference manifests missing under", args.reference)
        return 1

    with LocalCluster(args.trimtab, extra_args=["--api-only"]) as cluster:
        k = Kubectl(args.kubectl, cluster)
        c = Checks()

        def version():
            out = k.out("version")
            expect_in("Server Version: v1.32", out)
        c.run("version reports 1.32", version)

        def api_resources():
            out = k.out("api-resources")
            expect_in("NAME", out)
            rows = {r[0]: r for r in table_rows(out)[1:]}
            expect(rows["deployments"][1:] == ["deploy", "apps/v1", "true", "Deployment"],
                   "deployments row: %s" % rows.get("deployments"))
            expect(rows["pods"][1:] == ["po", "v1", "true", "Pod"], "pods row: %s" % rows.get("pods"))
            expect(rows["namespaces"][1:] == ["ns", "v1", "false", "Namespace"], str(rows.get("namespaces")))
        c.run("api-resources", api_resources)

        def create_namespace():
            # kubectl 1.32 generator commands send protobuf bodies.
            out = k.out("create", "namespace", NS)
            expect_in("namespace/%s created" % NS, out)
            rows = table_rows(k.out("get", "namespace", NS))
            expect(rows[0][:3] == ["NAME", "STATUS", "AGE"], str(rows))
            expect(rows[1][:2] == [NS, "Active"], str(rows))
            obj = k.json("get", "namespace", NS)
            expect(obj["kind"] == "Namespace" and obj["metadata"]["name"] == NS, str(obj))
        c.run("create namespace (protobuf body)", create_namespace)

        def create_from_literals():
            out = k.out("create", "configmap", "lit-cm", "-n", NS, "--from-literal=a=b",
                        "--from-literal=greeting=hello world")
            expect_in("configmap/lit-cm created", out)
            cm = k.json("get", "configmap", "lit-cm", "-n", NS)
            expect(cm["data"] == {"a": "b", "greeting": "hello world"}, str(cm))
            expect(cm["metadata"]["namespace"] == NS and cm["metadata"]["uid"], str(cm))
            out = k.out("create", "secret", "generic", "lit-secret", "-n", NS,
                        "--from-literal=user=admin", "--from-literal=password=s3cr3t!")
            expect_in("secret/lit-secret created", out)
            secret = k.json("get", "secret", "lit-secret", "-n", NS)
            expect(secret["data"] == {"user": "YWRtaW4=", "password": "czNjcjN0IQ=="}, str(secret))
            p = k.run("create", "configmap", "lit-cm", "-n", NS, "--from-literal=a=b", ok=False)
            expect_in('configmaps "lit-cm" already exists', p.stderr, "stderr")
            # Every built-in kind decodes from protobuf, pod templates included.
            out = k.out("create", "deployment", "pb-web", "-n", NS, "--image=nginx",
                        "--port=80", "--", "nginx", "-g", "daemon off;")
            expect_in("deployment.apps/pb-web created", out)
            d = k.json("get", "deployment", "pb-web", "-n", NS)
            ctr = d["spec"]["template"]["spec"]["containers"][0]
            expect(ctr["command"] == ["nginx", "-g", "daemon off;"], ctr)
            expect(ctr["ports"] == [{"containerPort": 80, "protocol": "TCP"}], ctr)
            k.out("delete", "deployment", "pb-web", "-n", NS)
        c.run("create configmap / secret generic --from-literal (protobuf bodies)",
              create_from_literals)

        def apply_crds():
            out = k.out("apply", *sum([["-f", f] for f in crds], []))
            expect_in("customresourcedefinition.apiextensions.k8s.io/"
                      "flinkdeployments.flink.apache.org created", out)
            k.out("wait", "--for=condition=Established", "--timeout=30s",
                  "crd/flinkdeployments.flink.apache.org")
            out = k.out("get", "crd")
            expect(header(out) == "NAME CREATED AT", header(out))
            for name in ("flinkdeployments", "flinksessionjobs", "flinkstatesnapshots",
                         "flinkbluegreendeployments"):
                expect_in(name + ".flink.apache.org", out)
        c.run("apply Flink CRDs and wait Established", apply_crds)

        def apply_examples():
            for path in examples:
                text = open(path).read()
                extra = [] if "namespace:" in text else ["-n", NS]
                out = k.out("apply", "-f", path, *extra)
                expect(" created" in out or " configured" in out or " unchanged" in out,
                       "%s: %s" % (path, out))
            basic = os.path.join(args.reference, "flink-operator", "examples", "basic.yaml")
            out = k.out("apply", "-f", basic, "-n", NS)
            expect_in("flinkdeployment.flink.apache.org/basic-example unchanged", out)
        c.run("apply every upstream example", apply_examples)

        def get_custom_resources():
            out = k.out("get", "flinkdeployments", "-n", NS)
            expect(header(out).startswith("NAME JOB STATUS LIFECYCLE STATE"), header(out))
            expect_in("basic-example", out)
            out = k.out("get", "flinkdep", "basic-example", "-n", NS, "-o", "yaml")
            expect_in("kind: FlinkDeployment", out)
            expect_in("jarURI: local:///opt/flink/examples/streaming/StateMachineExample.jar", out)
            obj = k.json("get", "flinkdep", "basic-example", "-n", NS)
            expect(obj["spec"]["job"]["parallelism"] == 2, obj["spec"]["job"])
            expect(obj["metadata"]["uid"] and obj["metadata"]["resourceVersion"], obj["metadata"])
            out = k.out("get", "flinkdep", "basic-example", "-n", NS,
                        "-o", "jsonpath={.spec.flinkVersion}")
            expect(out == "v2_2", out)
            out = k.out("get", "flinkdeployments", "-A")
            expect(header(out).startswith("NAMESPACE NAME"), header(out))
        c.run("get custom resources (table, yaml, json, jsonpath, -A)", get_custom_resources)

        def deployment_lifecycle():
            out = k.out("apply", "-n", NS, "-f", "-", stdin=DEPLOYMENT)
            expect_in("deployment.apps/web created", out)
            out = k.out("get", "deploy", "-n", NS)
            expect(header(out) == "NAME READY UP-TO-DATE AVAILABLE AGE", header(out))
            expect(table_rows(out)[1][0] == "web", out)
            out = k.out("get", "deploy", "web", "-n", NS, "-o", "wide")
            expect(header(out) == "NAME READY UP-TO-DATE AVAILABLE AGE CONTAINERS IMAGES SELECTOR",
                   header(out))
            expect_in("nginx,sidecar", out)
            # Re-apply with a changed image: a strategic merge patch with $setElementOrder.
            out = k.out("apply", "-n", NS, "-f", "-",
                        stdin=DEPLOYMENT.replace("nginx:1.25", "nginx:1.26"))
            expect_in("deployment.apps/web configured", out)
            obj = k.json("get", "deploy", "web", "-n", NS)
            names = [ct["name"] for ct in obj["spec"]["template"]["spec"]["containers"]]
            expect(names == ["nginx", "sidecar"], names)
            expect(obj["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.26", obj)
        c.run("deployment apply, get, re-apply", deployment_lifecycle)

        def list_round_trip():
            # `get -o yaml` of several objects prints a v1 List; applying that file back is a
            # common way to copy or restore objects. kubectl validates a List on the client
            # against /openapi/v2 (protobuf), then sends each item on its own.
            k.out("create", "configmap", "copy-a", "--from-literal=x=1", "-n", NS)
            k.out("create", "configmap", "copy-b", "--from-literal=y=2", "-n", NS)
            listed = k.out("get", "configmap", "copy-a", "copy-b", "-n", NS, "-o", "yaml")
            expect(listed.startswith("apiVersion: v1\nitems:"), listed[:80])
            k.out("delete", "configmap", "copy-a", "copy-b", "-n", NS)
            out = k.out("apply", "-f", "-", stdin=listed)
            expect_in("configmap/copy-a created", out)
            expect_in("configmap/copy-b created", out)
            expect(k.json("get", "configmap", "copy-b", "-n", NS)["data"] == {"y": "2"}, "copy-b data")
            # The items are still validated, by the server: an unknown field is refused.
            bad = listed.replace("  data:\n    x:", "  colour: blue\n  data:\n    x:", 1)
            expect(bad != listed, "could not insert the unknown field")
            p = k.run("apply", "-f", "-", stdin=bad, ok=False)
            expect(p.returncode != 0, "an unknown field in a List item was accepted")
            expect_in('unknown field "colour"', p.stderr, "stderr")
        c.run("a get -o yaml List applies back; its items are validated", list_round_trip)

        def scale():
            out = k.out("scale", "deploy", "web", "--replicas=3", "-n", NS)
            expect_in("deployment.apps/web scaled", out)
            out = k.out("get", "deploy", "web", "-n", NS, "-o", "jsonpath={.spec.replicas}")
            expect(out == "3", out)
            out = k.out("scale", "flinkdep", "basic-example", "--replicas=4", "-n", NS)
            expect_in("flinkdeployment.flink.apache.org/basic-example scaled", out)
            out = k.out("get", "flinkdep", "basic-example", "-n", NS,
                        "-o", "jsonpath={.spec.taskManager.replicas}")
            expect(out == "4", out)
        c.run("scale deployment and FlinkDeployment", scale)

        def patches():
            out = k.out("patch", "deploy", "web", "-n", NS, "-p",
                        '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}}}')
            expect_in("deployment.apps/web patched", out)
            obj = k.json("get", "deploy", "web", "-n", NS)
            cs = obj["spec"]["template"]["spec"]["containers"]
            expect([ct["name"] for ct in cs] == ["nginx", "sidecar"], cs)
            expect(cs[0]["image"] == "nginx:1.27" and cs[0]["env"] == [{"name": "MODE", "value": "blue"}], cs)
            out = k.out("patch", "deploy", "web", "-n", NS, "--type=json", "-p",
                        '[{"op":"replace","path":"/spec/replicas","value":1}]')
            expect_in("deployment.apps/web patched", out)
            expect(k.out("get", "deploy", "web", "-n", NS, "-o", "jsonpath={.spec.replicas}") == "1", "json patch")
            out = k.out("patch", "flinkdep", "basic-example", "-n", NS, "--type=merge", "-p",
                        '{"spec":{"job":{"parallelism":3}}}')
            expect_in("flinkdeployment.flink.apache.org/basic-example patched", out)
            p = k.run("patch", "flinkdep", "basic-example", "-n", NS, "-p",
                      '{"spec":{"job":{"parallelism":4}}}', ok=False)
            expect_in("application/strategic-merge-patch+json is not supported", p.stderr, "stderr")
        c.run("patch: strategic, json, merge; SMP refused for CRs", patches)

        def label_and_annotate():
            out = k.out("label", "deploy", "web", "tier=frontend", "-n", NS)
            expect_in("deployment.apps/web labeled", out)
            out = k.out("get", "deploy", "-l", "tier=frontend", "-n", NS, "-o", "name")
            expect(out.strip() == "deployment.apps/web", out)
            out = k.out("annotate", "flinkdep", "basic-example", "owner=team-a", "-n", NS)
            expect_in("flinkdeployment.flink.apache.org/basic-example annotated", out)
            out = k.out("get", "deploy", "web", "-n", NS, "--show-labels")
            expect_in("tier=frontend", out)
        c.run("label and annotate", label_and_annotate)

        def edit():
            env = cluster.env()
            env["EDITOR"] = make_editor(cluster.tmp, "edit-deploy", "replicas: 1", "replicas: 2")
            out = k.run("edit", "deploy", "web", "-n", NS, env=env).stdout
            expect_in("deployment.apps/web edited", out)
            expect(k.out("get", "deploy", "web", "-n", NS, "-o", "jsonpath={.spec.replicas}") == "2", "edit")
            env["EDITOR"] = make_editor(cluster.tmp, "edit-cr", "parallelism: 3", "parallelism: 6")
            out = k.run("edit", "flinkdep", "basic-example", "-n", NS, env=env).stdout
            expect_in("flinkdeployment.flink.apache.org/basic-example edited", out)
            out = k.out("get", "flinkdep", "basic-example", "-n", NS, "-o", "jsonpath={.spec.job.parallelism}")
            expect(out == "6", out)
        c.run("edit with a non-interactive EDITOR", edit)

        def describe():
            out = k.out("describe", "deploy", "web", "-n", NS)
            expect_in("Name:", out)
            expect_in("web", out)
            expect_in("Replicas:", out)
            out = k.out("describe", "flinkdep", "basic-example", "-n", NS)
            expect_in("basic-example", out)
            expect_in("Kind:         FlinkDeployment", out)
        c.run("describe", describe)

        def watch():
            k.out("create", "-n", NS, "-f", "-",
                  stdin="apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-before\ndata:\n  a: '1'\n")
            proc = subprocess.Popen([k.binary, "--cache-dir", k.cache, "get", "configmaps", "-n", NS,
                                     "-w", "--request-timeout=20s"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    env=cluster.env())
            try:
                lines = [proc.stdout.readline()]
                lines.append(proc.stdout.readline())
                k.out("create", "-n", NS, "-f", "-",
                      stdin="apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-during\n")
                deadline = time.monotonic() + 15
                while time.monotonic() < deadline and not any("cm-during" in l for l in lines):
                    lines.append(proc.stdout.readline())
                text = "".join(lines)
                expect(header(text) == "NAME DATA AGE", text)
                expect_in("cm-before", text)
                expect_in("cm-during", text)
            finally:
                proc.kill()
                proc.wait()
        c.run("get -w sees a new object", watch)

        def errors():
            p = k.run("get", "deploy", "nosuch", "-n", NS, ok=False)
            expect_in('Error from server (NotFound): deployments.apps "nosuch" not found', p.stderr, "stderr")
            p = k.run("get", "nosuchkind", ok=False)
            expect_in('the server doesn\'t have a resource type "nosuchkind"', p.stderr, "stderr")
            cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-before\n"
            p = k.run("create", "-n", NS, "-f", "-", stdin=cm, ok=False)
            expect_in('Error from server (AlreadyExists)', p.stderr, "stderr")
            expect_in('configmaps "cm-before" already exists', p.stderr, "stderr")
            p = k.run("apply", "-n", NS, "-f", "-", stdin=BAD_FLINK, ok=False)
            # kubectl rewrites an Invalid Status that carries details as "The <Kind> <name> is
            # invalid: <causes>" (it does so for a real cluster too).
            expect_in('The FlinkDeployment "bad" is invalid: spec.flinkVersion: '
                      'Unsupported value: "v9_9"', p.stderr, "stderr")
            p = k.run("create", "-n", NS, "-f", "-", stdin=TYPO_DEPLOYMENT, ok=False)
            expect_in("Error from server (BadRequest)", p.stderr, "stderr")
            expect_in('Deployment in version "v1" cannot be handled as a Deployment: strict '
                      'decoding error: unknown field "spec.replicsa"', p.stderr, "stderr")
            p = k.run("get", "pods", "-n", "no-such-namespace", ok=True)
            expect_in("No resources found in no-such-namespace namespace.", p.stderr, "stderr")
        c.run("errors print like a real cluster", errors)

        def get_all():
            out = k.out("get", "all", "-n", NS)
            expect_in("deployment.apps/web", out)
        c.run("get all (category expansion)", get_all)

        def delete_with_gc():
            uid = k.json("get", "deploy", "web", "-n", NS)["metadata"]["uid"]
            owned = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: owned-by-web\n"
                     "  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n"
                     "    name: web\n    uid: %s\n    controller: true\n" % uid)
            k.out("create", "-n", NS, "-f", "-", stdin=owned)
            out = k.out("delete", "deploy", "web", "-n", NS)
            expect_in('deployment.apps "web" deleted', out)
            p = k.run("get", "deploy", "web", "-n", NS, ok=False)
            expect_in("NotFound", p.stderr, "stderr")
            wait_until(lambda: k.run("get", "cm", "owned-by-web", "-n", NS, ok=False) is not None,
                       what="owned ConfigMap to be garbage-collected")
            basic = os.path.join(args.reference, "flink-operator", "examples", "basic.yaml")
            out = k.out("delete", "-f", basic, "-n", NS)
            expect_in('flinkdeployment.flink.apache.org "basic-example" deleted', out)
        c.run("delete with garbage collection of owned objects", delete_with_gc)

        def delete_namespace():
            out = k.out("delete", "namespace", NS, "--timeout=90s", timeout=120)
            expect_in('namespace "%s" deleted' % NS, out)
            p = k.run("get", "namespace", NS, ok=False)
            expect_in('namespaces "%s" not found' % NS, p.stderr, "stderr")
        c.run("delete namespace", delete_namespace)

        code = c.exit_code()
        if code != 0:
            print("---- trimtab local log (tail) ----")
            print("\n".join(cluster.log().splitlines()[-60:]))
        return code


if __name__ == "__main__":
    sys.exit(main())
