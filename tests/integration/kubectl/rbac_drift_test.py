#!/usr/bin/env python3
"""deploy/'s RBAC stays one set of rules (issue 26): each overlay, rendered with
`kubectl kustomize`, grants the operator exactly what the base ClusterRole grants, split into the
cluster-scoped rules of the ClusterRole and one Role per watched namespace; the optional
node_headroom.yaml grants pods list and nothing else. What the base grants is what the code calls
(audited; docs/deploy.md lists each rule's caller), and deploy_e2e runs the operator under these
objects with RBAC enforced, so a missing verb fails there as a 403.

Usage: rbac_drift_test.py --source DIR   (exit 77 = skipped: no kubectl)
"""

import argparse
import os
import shutil
import subprocess
import sys

import yaml

CLUSTER_SCOPED = {("", "nodes"), ("scheduling.volcano.sh", "queues"),
                  ("scheduling.k8s.io", "priorityclasses")}


def render(kubectl, folder):
    out = subprocess.run([kubectl, "kustomize", folder], check=True, capture_output=True,
                         text=True).stdout
    return [d for d in yaml.safe_load_all(out) if d]


def grants(rules):
    """(group, resource, verb) triples of `rules`."""
    out = set()
    for r in rules or []:
        for g in r.get("apiGroups", []):
            for res in r.get("resources", []):
                for v in r.get("verbs", []):
                    out.add((g, res, v))
    return out


def find(docs, kind, name, ns=None):
    return [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name and
            (ns is None or d["metadata"].get("namespace") == ns)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--kubectl", default=shutil.which("kubectl") or "/usr/bin/kubectl")
    args = ap.parse_args()
    if not os.path.exists(args.kubectl):
        print("kubectl not found: skipping")
        return 77
    deploy = os.path.join(args.source, "deploy")
    failures = []

    base = render(args.kubectl, deploy)
    [cluster_role] = find(base, "ClusterRole", "trimtab-operator")
    want = grants(cluster_role["rules"])
    print("base ClusterRole: %d grants" % len(want))
    if not want:
        failures.append("the base ClusterRole grants nothing")

    for overlay, namespaces in (("single-namespace", ["flink-jobs"]),
                                ("multi-namespace", ["team-a", "team-b"])):
        docs = render(args.kubectl, os.path.join(deploy, "overlays", overlay))
        [cr] = find(docs, "ClusterRole", "trimtab-operator")
        cluster = grants(cr["rules"])
        bad = {g for g in cluster if (g[0], g[1]) not in CLUSTER_SCOPED}
        if bad:
            failures.append("%s: namespaced grants in the ClusterRole: %s" % (overlay, sorted(bad)))
        for ns in namespaces:
            roles = find(docs, "Role", "trimtab-operator", ns)
            bindings = find(docs, "RoleBinding", "trimtab-operator", ns)
            if len(roles) != 1 or len(bindings) != 1:
                failures.append("%s: no Role and RoleBinding trimtab-operator in %s" % (overlay, ns))
                continue
            got = cluster | grants(roles[0]["rules"])
            if got != want:
                failures.append("%s/%s differs from the base: missing %s, extra %s" % (
                    overlay, ns, sorted(want - got), sorted(got - want)))
            subjects = bindings[0]["subjects"]
            if subjects != [{"kind": "ServiceAccount", "name": "trimtab-operator",
                             "namespace": "trimtab-system"}]:
                failures.append("%s/%s: RoleBinding subjects %s" % (overlay, ns, subjects))
        with open(os.path.join(deploy, "overlays", overlay, "node_headroom.yaml")) as f:
            extra = [d for d in yaml.safe_load_all(f) if d]
        [headroom] = [d for d in extra if d["kind"] == "ClusterRole"]
        if grants(headroom["rules"]) != {("", "pods", "list")}:
            failures.append("%s: node_headroom.yaml grants %s" % (
                overlay, sorted(grants(headroom["rules"]))))
        print("%s: %d namespaces checked" % (overlay, len(namespaces)))

    for f in failures:
        print("FAIL: " + f)
    print("OK" if not failures else "%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
