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
    token from before still verify and authenticate;
  - X.509 client certificates: the kubeconfig's context trimtab-local-cert (the administrator's
    certificate) is kubernetes-admin in system:masters for kubectl and python3-kubernetes; a
    certificate openssl issues from the cluster CA for CN=jane, O=qa is jane in group qa, under
    RBAC (403, then a RoleBinding of the group grants it); another CA's certificate is 401.
"""

import os
import re
import ssl
import stat
import subprocess
import sys
import tempfile
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


QA_READS_CONFIGMAPS = """
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: configmap-reader
  namespace: default
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "list"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: qa-reads-configmaps
  namespace: default
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: configmap-reader
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: Group
  name: qa
"""


def openssl(*argv):
    subprocess.run(["openssl"] + list(argv), check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE)


def issue_client_certificate(out_dir, name, subject, ca_crt, ca_key):
    """A client certificate (EKU clientAuth) for `subject`, signed by ca_crt/ca_key with the
    openssl command line, as an administrator would make one: (certificate path, key path)."""
    key, csr, crt = (os.path.join(out_dir, name + ext) for ext in (".key", ".csr", ".crt"))
    ext = os.path.join(out_dir, name + ".ext")
    with open(ext, "w") as f:
        f.write("extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n")
    openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-subj", subject, "-out", csr)
    openssl("x509", "-req", "-in", csr, "-CA", ca_crt, "-CAkey", ca_key, "-CAcreateserial",
            "-days", "1", "-extfile", ext, "-out", crt)
    return crt, key


def user_kubeconfig(k, cluster, out_dir, user, crt, key):
    """A kubeconfig of its own for `user` with a client certificate, made with `kubectl config`
    as an administrator hands one out: the cluster's server and CA, the certificate and key."""
    path = os.path.join(out_dir, user + ".kubeconfig")
    ca = os.path.join(cluster.data_dir, "pki", "ca.crt")
    k.out("--kubeconfig=" + path, "config", "set-cluster", "local", "--server=" + cluster.server,
          "--certificate-authority=" + ca, "--embed-certs")
    k.out("--kubeconfig=" + path, "config", "set-credentials", user, "--client-certificate=" + crt,
          "--client-key=" + key, "--embed-certs")
    k.out("--kubeconfig=" + path, "config", "set-context", "local", "--cluster=local",
          "--user=" + user, "--namespace=default")
    k.out("--kubeconfig=" + path, "config", "use-context", "local")
    return path


def python_client_with_certificates(cluster, jane_crt, jane_key):
    """python3-kubernetes through the kubeconfig's certificate context, and with jane's files."""
    try:
        from kubernetes import client, config
        from kubernetes.client.rest import ApiException
    except ImportError:
        print("  (python3-kubernetes not installed: its client-certificate checks skipped)")
        return
    admin = config.new_client_from_config(config_file=cluster.kubeconfig,
                                          context="trimtab-local-cert")
    names = [ns.metadata.name for ns in client.CoreV1Api(admin).list_namespace().items]
    expect("kube-system" in names, names)
    review = client.AuthorizationV1Api(admin).create_self_subject_access_review(
        client.V1SelfSubjectAccessReview(spec=client.V1SelfSubjectAccessReviewSpec(
            resource_attributes=client.V1ResourceAttributes(
                namespace="kube-system", verb="delete", resource="secrets"))))
    expect(review.status.allowed, review.status)
    configuration = client.Configuration()
    configuration.host = cluster.server
    configuration.ssl_ca_cert = os.path.join(cluster.data_dir, "pki", "ca.crt")
    configuration.cert_file = jane_crt
    configuration.key_file = jane_key
    core = client.CoreV1Api(client.ApiClient(configuration))
    cms = [cm.metadata.name for cm in core.list_namespaced_config_map("default").items]
    expect("hello" in cms, cms)
    try:
        core.list_namespaced_secret("default")
    except ApiException as e:
        expect(e.status == 403 and "jane" in e.body, "%s %s" % (e.status, e.body))
    else:
        raise AssertionError("jane listed secrets")


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
            for name in ["pki/ca.key", "pki/apiserver.key", "pki/admin.key", "admin.token",
                         "kubeconfig"]:
                mode = stat.S_IMODE(os.stat(os.path.join(cluster.data_dir, name)).st_mode)
                expect(mode & 0o077 == 0, "%s has mode %o" % (name, mode))
            before = (cluster.ca, cluster.token)
            cluster.stop_process()
            cluster.start()
            expect((cluster.ca, cluster.token) == before, "the CA and token are reused")
            expect_in("hello", k.out("get", "configmaps"))
            status, _ = api_request(cluster.server, "/version", ca=before[0], token=before[1])
            expect(status == 200, "the old CA and token after the restart: %s" % status)

        def client_certificates():
            whoami = k.out("--context=trimtab-local-cert", "auth", "whoami", "-o", "json")
            expect_in('"username": "kubernetes-admin"', whoami)
            expect_in("system:masters", whoami)
            expect_in("hello", k.out("--context=trimtab-local-cert", "get", "configmaps"))
            with tempfile.TemporaryDirectory() as tmp:
                pki = os.path.join(cluster.data_dir, "pki")
                crt, key = issue_client_certificate(tmp, "jane", "/CN=jane/O=qa",
                                                    os.path.join(pki, "ca.crt"),
                                                    os.path.join(pki, "ca.key"))
                jane = ["--kubeconfig=" + user_kubeconfig(k, cluster, tmp, "jane", crt, key)]
                whoami = k.out(*jane, "auth", "whoami", "-o", "json")
                expect_in('"username": "jane"', whoami)
                expect_in('"qa"', whoami)
                p = k.run(*jane, "get", "configmaps", ok=False)
                expect_in('User "jane" cannot list resource "configmaps"', p.stderr, "stderr")
                k.out("apply", "-f", "-", stdin=QA_READS_CONFIGMAPS)
                expect_in("hello", k.out(*jane, "get", "configmaps"))
                p = k.run(*jane, "delete", "configmap", "hello", ok=False)
                expect_in("forbidden", p.stderr, "stderr")
                # A certificate of another CA authenticates nobody.
                openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-keyout", os.path.join(tmp, "other-ca.key"), "-subj",
                        "/CN=other-ca", "-days", "1", "-out", os.path.join(tmp, "other-ca.crt"))
                crt, key = issue_client_certificate(tmp, "mallory", "/CN=mallory/O=system:masters",
                                                    os.path.join(tmp, "other-ca.crt"),
                                                    os.path.join(tmp, "other-ca.key"))
                mallory = user_kubeconfig(k, cluster, tmp, "mallory", crt, key)
                p = k.run("--kubeconfig=" + mallory, "get", "ns", ok=False)
                expect_in("Unauthorized", p.stderr, "stderr")
                python_client_with_certificates(cluster, os.path.join(tmp, "jane.crt"),
                                                os.path.join(tmp, "jane.key"))

        c.run("kubectl through the generated kubeconfig (CA + admin token)",
              kubectl_through_kubeconfig)
        c.run("TLS: a client without the cluster CA is refused", tls_needs_the_ca)
        c.run("no, garbage or Basic credentials: 401 Status", unauthenticated_401)
        c.run("impersonation needs the impersonate verb", impersonation)
        c.run("foreign Host/Origin (DNS rebinding): 403", dns_rebinding_403)
        c.run("kubectl proxy reaches the API without client credentials", kubectl_proxy)
        c.run("X.509 client certificates: CN is the user, O the groups (kubectl, python)",
              client_certificates)
        c.run("credentials kept private in the data directory, reused after a restart",
              credentials_on_disk_survive_restart)
        rc = c.exit_code()
        if rc:
            print(cluster.log()[-4000:])
        return rc


if __name__ == "__main__":
    sys.exit(main())
