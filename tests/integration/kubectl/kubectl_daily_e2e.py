#!/usr/bin/env python3
"""The commands a user types every day, with the real kubectl against `trimtab local` running its
runtime (pods run): the typed `kubectl create` generators (protobuf bodies) of every kind the
server serves, `kubectl run` and `expose`, `describe svc` of a Service with an unnamed port (which
makes kubectl panic without EndpointSlice port names), logs (-f, --previous), exec and cp in a
simulated container's sandbox, attach (a clear error, not NotFound),
port-forward to a port nothing listens on (the kubelet's error), server-side apply (managedFields, conflicts,
--force-conflicts), `auth can-i` for a service account before and after a RoleBinding, and deletion.

Usage: kubectl_daily_e2e.py --trimtab BIN   (exit 77 = skipped: no kubectl)
"""

import json
import os
import pty
import select
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from local_cluster import SKIP, e2e_args, Checks, LocalCluster, expect, expect_in  # noqa: E402
from kubectl_e2e import Kubectl, header, table_rows, wait_until  # noqa: E402

NS = "daily"
# Ranges of their own, so a `trimtab local` running on the defaults does not collide.
RANGES = ["--service-cidr", "127.13.0.0/16", "--pod-cidr", "127.23.0.0/16"]
SA = "system:serviceaccount:%s:builder" % NS

STATEFUL = """
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  replicas: 2
  serviceName: db
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
      - name: db
        image: registry.local/db:1.0
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests: {storage: 1Gi}
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers:
      - name: agent
        image: registry.local/agent:1.0
"""


def main():
    args = e2e_args()
    if args is None:
        return SKIP

    started = time.monotonic()
    with LocalCluster(args.trimtab, extra_args=RANGES) as cluster:
        k = Kubectl(args.kubectl, cluster)
        c = Checks()

        def create_generators():
            # Every one of these sends a protobuf body (kubectl 1.32's typed clients).
            for cmd, created in [
                (["namespace", NS], "namespace/%s created" % NS),
                (["deployment", "web", "-n", NS, "--image=registry.local/echo:1.0",
                  "--replicas=2", "--port=8080"], "deployment.apps/web created"),
                (["service", "clusterip", "named", "-n", NS, "--tcp=80:8080"],
                 "service/named created"),
                (["serviceaccount", "builder", "-n", NS], "serviceaccount/builder created"),
                (["role", "pod-reader", "-n", NS, "--verb=get,list,watch", "--resource=pods"],
                 "role.rbac.authorization.k8s.io/pod-reader created"),
                (["clusterrole", "node-reader", "--verb=get,list", "--resource=nodes"],
                 "clusterrole.rbac.authorization.k8s.io/node-reader created"),
                (["clusterrolebinding", "builder-nodes", "--clusterrole=node-reader",
                  "--serviceaccount=%s:builder" % NS],
                 "clusterrolebinding.rbac.authorization.k8s.io/builder-nodes created"),
                (["priorityclass", "batch-low", "--value=10", "--description=low"],
                 "priorityclass.scheduling.k8s.io/batch-low created"),
                (["configmap", "settings", "-n", NS, "--from-literal=mode=blue"],
                 "configmap/settings created"),
                (["secret", "generic", "creds", "-n", NS, "--from-literal=user=admin"],
                 "secret/creds created"),
            ]:
                out = k.out("create", *cmd)
                expect_in(created, out, " ".join(cmd))
            d = k.json("get", "deployment", "web", "-n", NS)
            ctr = d["spec"]["template"]["spec"]["containers"][0]
            expect(ctr["image"] == "registry.local/echo:1.0", ctr)
            expect(ctr["ports"] == [{"containerPort": 8080, "protocol": "TCP"}], ctr)
            expect(d["spec"]["replicas"] == 2 and d["spec"]["strategy"]["type"] == "RollingUpdate",
                   d["spec"])
            role = k.json("get", "role", "pod-reader", "-n", NS)
            expect(role["rules"] == [{"apiGroups": [""], "resources": ["pods"],
                                      "verbs": ["get", "list", "watch"]}], role)
            pc = k.json("get", "priorityclass", "batch-low")
            expect(pc["value"] == 10 and pc["description"] == "low", pc)
            svc = k.json("get", "svc", "named", "-n", NS)
            expect(svc["spec"]["ports"][0]["name"] == "80-8080", svc["spec"])
            expect(svc["spec"]["ports"][0]["targetPort"] == 8080, svc["spec"])
            out = k.out("rollout", "status", "deployment/web", "-n", NS, "--timeout=60s",
                        timeout=90)
            expect_in('deployment "web" successfully rolled out', out)
        c.run("kubectl create <kind> for every served built-in kind (protobuf bodies)",
              create_generators)

        def expose_and_describe():
            out = k.out("expose", "deployment", "web", "-n", NS, "--port=80",
                        "--target-port=8080")
            expect_in("service/web exposed", out)
            svc = k.json("get", "svc", "web", "-n", NS)
            expect("name" not in svc["spec"]["ports"][0], svc["spec"]["ports"])

            def sliced():
                slices = k.json("get", "endpointslices", "-n", NS,
                                "-l", "kubernetes.io/service-name=web")["items"]
                return slices and len(slices[0].get("endpoints") or []) == 2 and slices
            wait_until(sliced, what="an EndpointSlice with 2 endpoints")
            slices = sliced()
            # The real controller writes name "" for an unnamed port; kubectl needs it.
            expect(slices[0]["ports"] == [{"name": "", "port": 8080, "protocol": "TCP"}],
                   slices[0]["ports"])
            out = " ".join(k.out("describe", "svc", "web", "-n", NS).split())
            expect_in("Port: <unset> 80/TCP", out)
            expect_in("TargetPort: 8080/TCP", out)
            expect_in("Endpoints: 127.23.", out)
            out = " ".join(k.out("describe", "svc", "named", "-n", NS).split())
            expect_in("Port: 80-8080 80/TCP", out)
        c.run("kubectl expose; describe svc with an unnamed port and EndpointSlices",
              expose_and_describe)

        def run_and_logs():
            out = k.out("run", "once", "-n", NS, "--image=busybox:1.36", "--restart=Never",
                        "--command", "--", "sh", "-c", "echo first; sleep 1; echo second")
            expect_in("pod/once created", out)
            # -f streams until the container exits, so both lines arrive and kubectl returns.
            wait_until(lambda: k.json("get", "pod", "once", "-n", NS)["status"].get("phase")
                       in ("Running", "Succeeded"), what="pod once to start")
            p = k.run("logs", "-f", "once", "-n", NS, timeout=30)
            expect_in("first", p.stdout)
            expect_in("second", p.stdout)
            p = k.run("logs", "--previous", "once", "-n", NS, ok=False)
            expect_in('previous terminated container "once" in pod "once" not found', p.stderr)
            p = k.run("logs", "once", "-c", "nosuch", "-n", NS, ok=False)
            expect_in("container nosuch is not valid for pod once", p.stderr)
        c.run("kubectl run; logs -f ends when the container exits; logs --previous", run_and_logs)

        def previous_log():
            out = k.out("run", "crashy", "-n", NS, "--image=busybox:1.36", "--restart=Always",
                        "--command", "--", "sh", "-c", "echo crashed once; exit 1")
            expect_in("pod/crashy created", out)

            def restarted():
                pod = k.json("get", "pod", "crashy", "-n", NS)
                cs = pod["status"].get("containerStatuses") or [{}]
                return cs[0].get("restartCount", 0) >= 1
            wait_until(restarted, timeout=40, what="pod crashy to restart")
            out = k.out("logs", "--previous", "crashy", "-n", NS)
            expect_in("crashed once", out)
            k.out("delete", "pod", "crashy", "-n", NS, "--grace-period=0", "--force")
        c.run("kubectl logs --previous shows the log of the run before the restart",
              previous_log)

        def connect_commands():
            pod = k.json("get", "pods", "-n", NS, "-l", "app=web")["items"][0]
            name = pod["metadata"]["name"]
            p = k.run("attach", name, "-n", NS, ok=False, timeout=30)
            expect_in("attach is not supported for the simulated pods of trimtab local", p.stderr)
            expect("NotFound" not in p.stderr, p.stderr)
            # exec runs in the container's sandbox (the WebSocket v5.channel.k8s.io protocol):
            # stdout, stderr and the exit code as kubectl reports them.
            expect(k.out("exec", name, "-n", NS, "--", "hostname").strip() == name, "hostname")
            p = k.run("exec", name, "-n", NS, "--", "sh", "-c",
                      "echo out; echo err >&2; exit 3", ok=None, timeout=30)
            expect(p.returncode == 3, "exit code %d: %s" % (p.returncode, p.stderr))
            expect(p.stdout == "out\n", p.stdout)
            expect_in("err", p.stderr)
            expect_in("command terminated with exit code 3", p.stderr)
            p = k.run("exec", name, "-n", NS, "--", "nginx", "-s", "reload", ok=False, timeout=30)
            expect_in('exec: \"nginx\": executable file not found in $PATH', p.stderr)
            # stdin (-i) ends with the v5 close signal; the file stays for later execs.
            k.out("exec", "-i", name, "-n", NS, "--", "sh", "-c", "cat > /tmp/in.txt",
                  stdin="piped through stdin\n")
            expect(k.out("exec", name, "-n", NS, "--", "cat", "/tmp/in.txt") ==
                   "piped through stdin\n", "stdin reached the file")
            # -it on a terminal: an interactive shell, line by line, cd and variables kept.
            master, slave = pty.openpty()
            proc = subprocess.Popen([k.binary, "--cache-dir", k.cache, "exec", "-it", name, "-n",
                                     NS, "--", "sh"], stdin=slave, stdout=slave, stderr=slave,
                                    env=cluster.env(), close_fds=True)
            os.close(slave)
            seen = {"out": b""}

            def read_until(token, timeout=20):
                deadline = time.monotonic() + timeout
                while token not in seen["out"]:
                    left = deadline - time.monotonic()
                    expect(left > 0, "no %r from kubectl exec -it: %r" % (token, seen["out"]))
                    ready, _, _ = select.select([master], [], [], left)
                    if ready:
                        try:
                            seen["out"] += os.read(master, 4096)
                        except OSError:
                            break
            try:
                read_until(b"/ # ")
                os.write(master, b"cd /tmp; X=there; echo hello-$X-done\r")
                read_until(b"hello-there-done")
                os.write(master, b"pwd\r")
                read_until(b"/tmp\r\n/tmp # ")
                os.write(master, b"exit 4\r")
                proc.wait(timeout=20)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
                os.close(master)
            expect(proc.returncode == 4, "exit code %s: %r" % (proc.returncode, seen["out"]))
            # cp is exec of tar, both ways.
            local = os.path.join(cluster.tmp, "upload.txt")
            with open(local, "w") as f:
                f.write("uploaded by kubectl cp\n")
            k.out("cp", local, "%s/%s:/tmp/upload.txt" % (NS, name), timeout=30)
            expect(k.out("exec", name, "-n", NS, "--", "cat", "/tmp/upload.txt") ==
                   "uploaded by kubectl cp\n", "kubectl cp into the pod")
            k.out("cp", local, "%s/%s:/tmp" % (NS, name), timeout=30)  # into a directory
            expect_in("upload.txt", k.out("exec", name, "-n", NS, "--", "ls", "/tmp"))
            back = os.path.join(cluster.tmp, "hosts")
            k.run("cp", "%s/%s:/etc/hosts" % (NS, name), back, timeout=30)
            with open(back) as f:
                hosts = f.read()
            expect_in("%s\t%s" % (pod["status"]["podIP"], name), hosts)
            # port-forward is served; this image listens on nothing, so the connection gets the
            # kubelet's error and kubectl gives up, as on a real cluster (flink_rest_e2e forwards
            # to a listening JobManager).
            with k.port_forward("pod/" + name, "-n", NS, "18080:8080") as p:
                try:
                    urllib.request.urlopen("http://127.0.0.1:18080/", timeout=10)
                except OSError:
                    pass
                p.wait(timeout=20)
                err = p.stderr.read()
            expect_in("error forwarding port 8080 to pod %s/%s" % (NS, name), err)
            expect_in("failed to connect to %s:8080" % pod["status"]["podIP"], err)
        c.run("exec (stdout, stderr, exit code, stdin, -it) and cp both ways in the pod's sandbox; "
              "attach answers a clear 'not supported'; port-forward to a port without a "
              "listener reports the kubelet's error", connect_commands)

        def server_side_apply():
            cm = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\n"
                  "data:\n  color: blue\n")
            out = k.out("apply", "--server-side", "-n", NS, "-f", "-", stdin=cm)
            expect_in("configmap/ssa serverside-applied", out)
            got = k.json("get", "cm", "ssa", "-n", NS, "--show-managed-fields")
            entries = got["metadata"]["managedFields"]
            expect([(e["manager"], e["operation"]) for e in entries] == [("kubectl", "Apply")],
                   entries)
            expect(entries[0]["fieldsV1"] == {"f:data": {"f:color": {}}}, entries)
            expect("managedFields" not in k.json("get", "cm", "ssa", "-n", NS)["metadata"],
                   "kubectl hides managedFields without --show-managed-fields")
            # Another manager changing that field: upstream's conflict, then --force-conflicts.
            other = ["apply", "--server-side", "--field-manager=other", "-n", NS, "-f", "-"]
            p = k.run(*other, stdin=cm.replace("blue", "red"), ok=False)
            expect_in('Apply failed with 1 conflict: conflict with "kubectl": .data.color',
                      p.stderr)
            k.out(*other, "--force-conflicts", stdin=cm.replace("blue", "red"))
            got = k.json("get", "cm", "ssa", "-n", NS, "--show-managed-fields")
            expect(got["data"] == {"color": "red"}, got["data"])
            expect([e["manager"] for e in got["metadata"]["managedFields"]] == ["other"],
                   got["metadata"]["managedFields"])
            # An update is recorded under kubectl's manager for it, and conflicts with the next
            # apply; a field the applier drops from its configuration is removed.
            k.out("patch", "cm", "ssa", "-n", NS, "-p", '{"data":{"color":"green"}}')
            got = k.json("get", "cm", "ssa", "-n", NS, "--show-managed-fields")
            patch = [e for e in got["metadata"]["managedFields"] if e["manager"] == "kubectl-patch"]
            expect(patch and patch[0]["operation"] == "Update", got["metadata"]["managedFields"])
            p = k.run(*other, stdin=cm.replace("blue", "red"), ok=False)
            expect_in('conflict with "kubectl-patch" using v1: .data.color', p.stderr)
            two = cm.replace("blue", "green") + "  size: L\n"
            k.out(*other, stdin=two)
            k.out(*other, stdin=cm.replace("blue", "green"))
            expect(k.json("get", "cm", "ssa", "-n", NS)["data"] == {"color": "green"},
                   "size left the configuration and the object")
        c.run("kubectl apply --server-side: managedFields, conflicts, --force-conflicts, "
              "--show-managed-fields", server_side_apply)

        def controller_managers():
            # The local cluster's components write as a real cluster's do: the controllers as
            # kube-controller-manager, the kubelet (pod status, nodes) as kubelet.
            def managers(*what):
                obj = k.json("get", *what, "--show-managed-fields")
                return {(e["manager"], e["operation"], e.get("subresource", ""))
                        for e in obj["metadata"].get("managedFields", [])}
            pod = k.json("get", "pods", "-n", NS, "-l", "app=web")["items"][0]["metadata"]["name"]
            got = managers("pod", pod, "-n", NS)
            expect(("kube-controller-manager", "Update", "") in got, got)
            expect(("kubelet", "Update", "status") in got, got)
            rs = k.json("get", "rs", "-n", NS, "-l", "app=web")["items"][0]["metadata"]["name"]
            got = managers("rs", rs, "-n", NS)
            expect(("kube-controller-manager", "Update", "") in got, got)
            expect(("kube-controller-manager", "Update", "status") in got, got)
            got = managers("deployment", "web", "-n", NS)
            expect(("kubectl-create", "Update", "") in got, got)
            expect(("kube-controller-manager", "Update", "status") in got, got)
            slice_name = k.json("get", "endpointslices", "-n", NS, "-l",
                                "kubernetes.io/service-name=web")["items"][0]["metadata"]["name"]
            got = managers("endpointslice", slice_name, "-n", NS)
            expect({m for m, _, _ in got} == {"kube-controller-manager"}, got)
            node = k.json("get", "nodes")["items"][0]["metadata"]["name"]
            got = managers("node", node)
            expect(("kubelet", "Update", "") in got, got)
            for what in (["pod", pod, "-n", NS], ["rs", rs, "-n", NS], ["node", node]):
                text = json.dumps(k.json("get", *what, "--show-managed-fields"))
                expect("trimtab-local-runtime" not in text, "a generic manager in %s" % what)
        c.run("controllers, kubelet and scheduler write managedFields under their own names",
              controller_managers)

        def strict_custom_resource():
            # The CR handler's strict decoding error: prefixed by the decoder's "cannot be
            # handled" as for built-in kinds, unknown fields in path order; an open subtree
            # (x-kubernetes-preserve-unknown-fields: flinkConfiguration) keeps its unknown
            # fields. The pod templates are typed as upstream's CRD types them (a PodTemplateSpec),
            # so a misspelt container field is unknown there too.
            fd = ("apiVersion: flink.apache.org/v1beta1\nkind: FlinkDeployment\n"
                  "metadata: {name: strict}\n"
                  "spec:\n  image: flink:1.20\n  flinkVersion: v1_20\n  zzz: 1\n"
                  "  flinkConfiguration: {kept: {nested: 3}}\n"
                  "  jobManager: {resource: {memory: 1g, cpu: 1}, bogus: 2}\n"
                  "  taskManager: {resource: {memory: 1g, cpu: 1}}\n"
                  "  podTemplate: {spec: {nodeSelector: {a: b}, containers: "
                  "[{name: flink-main-container, imagePullPolice: Always}]}}\n")
            p = k.run("create", "--dry-run=server", "-n", NS, "-f", "-", stdin=fd, ok=False)
            expect_in('FlinkDeployment in version "v1beta1" cannot be handled as a '
                      'FlinkDeployment: strict decoding error: unknown field '
                      '"spec.jobManager.bogus", unknown field '
                      '"spec.podTemplate.spec.containers[0].imagePullPolice", unknown field '
                      '"spec.zzz"', p.stderr)
            out = json.loads(k.out("create", "--dry-run=server", "--validate=false", "-n", NS,
                                   "-f", "-", "-o", "json", stdin=fd))
            expect("zzz" not in out["spec"] and "bogus" not in out["spec"]["jobManager"],
                   out["spec"])
            expect(out["spec"]["flinkConfiguration"].get("kept") == {"nested": 3},
                   out["spec"]["flinkConfiguration"])
            expect(out["spec"]["podTemplate"]["spec"]["containers"] ==
                   [{"name": "flink-main-container"}], out["spec"]["podTemplate"])
            # A wrong type inside a pod template is a validation error naming the field.
            bad = fd.replace("nodeSelector: {a: b}", "nodeSelector: {a: b}, hostNetwork: maybe")
            p = k.run("create", "--dry-run=server", "--validate=false", "-n", NS, "-f", "-",
                      stdin=bad, ok=False)
            expect_in("spec.podTemplate.spec.hostNetwork", p.stderr)
        c.run("strict decoding of a custom resource; pruning keeps open subtrees",
              strict_custom_resource)

        def can_i():
            as_sa = ["--as=" + SA, "-n", NS]
            p = k.run("auth", "can-i", "list", "pods", *as_sa, ok=None)
            expect(p.stdout.strip() == "no", p.stdout + p.stderr)
            out = k.out("create", "rolebinding", "builder-reads", "-n", NS,
                        "--role=pod-reader", "--serviceaccount=%s:builder" % NS)
            expect_in("rolebinding.rbac.authorization.k8s.io/builder-reads created", out)
            wait_until(lambda: k.run("auth", "can-i", "list", "pods", *as_sa, ok=None)
                       .stdout.strip() == "yes", what="can-i list pods = yes")
            p = k.run("auth", "can-i", "delete", "pods", *as_sa, ok=None)
            expect(p.stdout.strip() == "no", p.stdout)
            p = k.run("auth", "can-i", "list", "nodes", "--as=" + SA, ok=None)
            expect(p.stdout.strip() == "yes", p.stdout + p.stderr)
        c.run("kubectl auth can-i for a service account, before and after a RoleBinding", can_i)

        def workload_kinds():
            # Generators of kinds beyond Deployments (protobuf bodies), and their controllers.
            out = k.out("create", "job", "hello", "-n", NS, "--image=busybox:1.36", "--",
                        "sh", "-c", "echo hello from a job")
            expect_in("job.batch/hello created", out)
            k.out("wait", "--for=condition=complete", "job/hello", "-n", NS, "--timeout=60s",
                  timeout=90)
            expect_in("hello from a job", k.out("logs", "job/hello", "-n", NS))
            rows = table_rows(k.out("get", "job", "hello", "-n", NS))
            expect(rows[0][:4] == ["NAME", "STATUS", "COMPLETIONS", "DURATION"], rows)
            expect(rows[1][1:3] == ["Complete", "1/1"], rows)
            out = k.out("create", "cronjob", "tick", "-n", NS, "--image=busybox:1.36",
                        "--schedule=*/5 * * * *", "--", "echo", "tick")
            expect_in("cronjob.batch/tick created", out)
            expect(table_rows(k.out("get", "cronjob", "tick", "-n", NS))[1][1] == "*/5", "schedule")
            out = k.out("create", "pdb", "web-pdb", "-n", NS, "--selector=app=web",
                        "--min-available=1")
            expect_in("poddisruptionbudget.policy/web-pdb created", out)
            wait_until(lambda: k.json("get", "pdb", "web-pdb", "-n", NS).get("status", {})
                       .get("disruptionsAllowed") == 1, what="the PDB to allow 1 disruption")
            out = k.out("create", "ingress", "web", "-n", NS, "--rule=web.example.com/*=web:80")
            expect_in("ingress.networking.k8s.io/web created", out)
            expect(table_rows(k.out("get", "ingress", "web", "-n", NS))[1][2] ==
                   "web.example.com", "ingress hosts")
            out = k.out("create", "quota", "small", "-n", NS, "--hard=pods=20")
            expect_in("resourcequota/small created", out)
            out = k.out("apply", "-n", NS, "-f", "-", stdin=STATEFUL)
            expect_in("statefulset.apps/db created", out)
            k.out("rollout", "status", "statefulset/db", "-n", NS, "--timeout=60s", timeout=90)
            k.out("rollout", "status", "daemonset/agent", "-n", NS, "--timeout=60s", timeout=90)
            pods = sorted(p["metadata"]["name"] for p in
                          k.json("get", "pods", "-n", NS, "-l", "app=db")["items"])
            expect(pods == ["db-0", "db-1"], pods)
            wait_until(lambda: k.json("get", "pvc", "data-db-0", "-n", NS)["status"]
                       .get("phase") == "Bound", what="claim data-db-0 Bound")
            pv = k.json("get", "pvc", "data-db-0", "-n", NS)["spec"]["volumeName"]
            expect(k.json("get", "pv", pv)["spec"]["storageClassName"] == "standard", pv)
            agents = k.json("get", "pods", "-n", NS, "-l", "app=agent")["items"]
            expect(len({p["spec"]["nodeName"] for p in agents}) == 4, len(agents))
        c.run("create job/cronjob/pdb/ingress/quota; StatefulSet with claims; DaemonSet",
              workload_kinds)

        def everyday_reads():
            out = k.out("get", "all", "-n", NS)
            expect_in("deployment.apps/web", out)
            expect_in("service/web", out)
            out = k.out("get", "events", "-n", NS)
            expect(header(out).startswith("LAST SEEN TYPE REASON OBJECT MESSAGE"), header(out))
            out = k.out("api-resources", "--namespaced=true", "-o", "name")
            expect_in("pods", out)
            out = k.out("explain", "deployment.spec.replicas")
            expect_in("replicas", out)
            out = k.out("get", "deploy", "web", "-n", NS, "-o", "jsonpath={.status.readyReplicas}")
            expect(out == "2", out)
            out = k.out("get", "pods", "-n", NS, "-l", "app=web", "-o", "name")
            expect(len(out.split()) == 2, out)
        c.run("get all / events / api-resources / explain / jsonpath", everyday_reads)

        def delete_foreground():
            out = k.out("delete", "deployment", "web", "-n", NS, "--cascade=foreground",
                        "--wait", "--timeout=60s", timeout=90)
            expect_in('deployment.apps "web" deleted', out)
            # --wait returned: with foreground deletion the dependents are gone first.
            pods = k.json("get", "pods", "-n", NS, "-l", "app=web")["items"]
            rs = k.json("get", "rs", "-n", NS)["items"]
            expect(not rs, [r["metadata"]["name"] for r in rs])
            expect(not pods, [p["metadata"]["name"] for p in pods])
        c.run("delete --cascade=foreground --wait returns after the dependents", delete_foreground)

        return c.finish(cluster, "kubectl daily e2e", started)


if __name__ == "__main__":
    sys.exit(main())
