"""Authentication and TLS of `trimtab local` (docs/security.md) with real clients:

  - kubectl works through the kubeconfig `trimtab local` writes (CA + administrator's token) and
    is the administrator (`kubectl auth whoami`);
  - the certificate verifies only with the cluster's CA: a client without it fails the handshake;
  - no credentials, a garbage bearer token or Basic credentials get 401 with the upstream Status,
    from raw HTTPS and from kubectl (`--token`);
  - impersonation (`kubectl --as`) by a service account is 403 until RBAC grants `impersonate`,
    then works; the administrator may impersonate anyone;
  - a foreign Host header (DNS rebinding) gets 403;
  - `kubectl proxy` serves the API to clients without credentials on its own loopback port;
  - the credentials stay in the data directory (keys 0600) and survive a restart: the CA and
    token from before still verify and authenticate.
"""

import os
import re
import ssl
import stat
import subprocess
import sys
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from local_cluster import (SKIP, Checks, LocalCluster, api_request, e2e_args,  # noqa: E402
                           expect, expect_in)
from kubectl_e2e import Kubectl  # noqa: E402

IMPERSONATOR_ROLE = """
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: impersonate-alice
rules:
- apiGroups: [""]
  resources: ["users"]
  resourceNames: ["alice"]
  verbs: ["impersonate"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: robot-impersonates-alice
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: impersonate-alice
subjects:
- kind: ServiceAccount
  name: robot
  namespace: default
"""


def main():
    args = e2e_args()
    if args is None:
        return SKIP
    c = Checks()
    # --api-only: the API server alone starts in a second; authentication is the same.
    with LocalCluster(args.trimtab, extra_args=["--api-only"]) as cluster:
        k = Kubectl(args.kubectl, cluster)

        def kubectl_through_kubeconfig():
            expect(cluster.server.startswith("https://127.0.0.1:"), cluster.server)
            expect(cluster.ca and cluster.token, "the kubeconfig carries the CA and a token")
            expect_in("kube-system", k.out("get", "namespaces"))
            expect_in("system:admin", k.out("auth", "whoami"))
            k.out("create", "configmap", "hello", "--from-literal=a=b")
            expect_in("hello", k.out("get", "configmaps"))

        def tls_needs_the_ca():
            req = urllib.request.Request(cluster.server + "/version",
                                         headers={"Authorization": "Bearer " + cluster.token})
            try:
                urllib.request.build_opener(urllib.request.ProxyHandler({})).open(req, timeout=5)
            except urllib.error.URLError as e:
                expect(isinstance(e.reason, ssl.SSLCertVerificationError),
                       "expected a certificate verification error, got %r" % e.reason)
            else:
                raise AssertionError("a client without the CA was served")
            p = k.run("--certificate-authority=/dev/null", "get", "ns", ok=False)
            expect("certificate" in p.stderr or "x509" in p.stderr, p.stderr)

        def unauthenticated_401():
            for name, headers in [("no credentials", {}),
                                  ("garbage token", {"Authorization": "Bearer garbage"}),
                                  ("basic auth", {"Authorization": "Basic YWRtaW46YWRtaW4="})]:
                for method, path in [("GET", "/api/v1/namespaces/kube-system/secrets"),
                                     ("DELETE", "/api/v1/namespaces/kube-system"),
                                     ("GET", "/version")]:
                    status, body = cluster.api(path, method=method, token=None, headers=headers)
                    expect(status == 401, "%s %s with %s: %s %s" % (method, path, name, status,
                                                                     body))
                    expect(isinstance(body, dict) and body.get("kind") == "Status" and
                           body.get("reason") == "Unauthorized" and body.get("code") == 401,
                           "401 Status: %r" % body)
            p = k.run("--token=garbage", "get", "ns", ok=False)
            expect_in("Unauthorized", p.stderr, "stderr")
            status, _ = cluster.api("/api/v1/namespaces/kube-system")
            expect(status == 200, "kube-system is still there")
            status, _ = cluster.api("/readyz", token=None)
            expect(status == 200, "/readyz answers without credentials: %s" % status)

        def impersonation():
            k.out("apply", "-f", "-", stdin="apiVersion: v1\nkind: ServiceAccount\n"
                                           "metadata: {name: robot}\n")
            token = k.out("create", "token", "robot").strip()
            p = k.run("--token=" + token, "--as=alice", "get", "ns", ok=False)
            expect_in("cannot impersonate", p.stderr, "stderr")
            k.out("apply", "-f", "-", stdin=IMPERSONATOR_ROLE)
            whoami = k.out("--token=" + token, "--as=alice", "auth", "whoami")
            expect_in("alice", whoami)
            p = k.run("--token=" + token, "--as=bob", "get", "ns", ok=False)
            expect_in("cannot impersonate", p.stderr, "stderr")
            expect_in("bob", k.out("--as=bob", "auth", "whoami"))  # the administrator may

        def dns_rebinding_403():
            status, body = cluster.api("/api/v1/namespaces",
                                       headers={"Host": "rebind.attacker.example"})
            expect(status == 403, "foreign Host: %s %s" % (status, body))
            expect_in("rebind.attacker.example", str(body), "the Status")
            status, _ = cluster.api("/api/v1/namespaces",
                                    headers={"Origin": "https://attacker.example"})
            expect(status == 403, "foreign Origin: %s" % status)
            status, _ = cluster.api("/api/v1/namespaces", headers={"Host": "localhost"})
            expect(status == 200, "Host localhost: %s" % status)

        def kubectl_proxy():
            # A browser (or curl without credentials) reaches the API through `kubectl proxy`,
            # which adds the kubeconfig's credentials, as on a real cluster.
            proc = subprocess.Popen([args.kubectl, "proxy", "--port=0"], env=cluster.env(),
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            try:
                line = proc.stdout.readline()
                m = re.search(r"127\.0\.0\.1:(\d+)", line)
                expect(m, "kubectl proxy said: %r" % line)
                status, body = api_request("http://127.0.0.1:%s" % m.group(1),
                                           "/api/v1/namespaces")
                expect(status == 200 and body.get("kind") == "NamespaceList",
                       "through kubectl proxy: %s %s" % (status, body))
            finally:
                proc.terminate()
                proc.wait(timeout=10)

        def credentials_on_disk_survive_restart():
            for name in ["pki/ca.key", "pki/apiserver.key", "admin.token", "kubeconfig"]:
                mode = stat.S_IMODE(os.stat(os.path.join(cluster.data_dir, name)).st_mode)
                expect(mode & 0o077 == 0, "%s has mode %o" % (name, mode))
            before = (cluster.ca, cluster.token)
            cluster.stop_process()
            cluster.start()
            expect((cluster.ca, cluster.token) == before, "the CA and token are reused")
            expect_in("hello", k.out("get", "configmaps"))
            status, _ = api_request(cluster.server, "/version", ca=before[0], token=before[1])
            expect(status == 200, "the old CA and token after the restart: %s" % status)

        c.run("kubectl through the generated kubeconfig (CA + admin token)",
              kubectl_through_kubeconfig)
        c.run("TLS: a client without the cluster CA is refused", tls_needs_the_ca)
        c.run("no, garbage or Basic credentials: 401 Status", unauthenticated_401)
        c.run("impersonation needs the impersonate verb", impersonation)
        c.run("foreign Host/Origin (DNS rebinding): 403", dns_rebinding_403)
        c.run("kubectl proxy reaches the API without client credentials", kubectl_proxy)
        c.run("credentials kept private in the data directory, reused after a restart",
              credentials_on_disk_survive_restart)
        rc = c.exit_code()
        if rc:
            print(cluster.log()[-4000:])
        return rc


if __name__ == "__main__":
    sys.exit(main())
