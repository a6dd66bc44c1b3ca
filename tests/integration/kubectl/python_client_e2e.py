#!/usr/bin/env python3
"""The Python Kubernetes client (python3-kubernetes) against `trimtab local`: typed APIs with
no discovery, the dynamic client with legacy discovery, list, watch, create, patch (strategic
merge for typed built-ins, merge patch for custom objects) and error mapping.

Usage: python_client_e2e.py --trimtab BIN --reference DIR   (exit 77 = skipped)
"""

import argparse
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from local_cluster import SKIP, Checks, LocalCluster, expect  # noqa: E402

try:
    import yaml
    from kubernetes import client, config, dynamic, watch
    from kubernetes.client.rest import ApiException
except ImportError as e:  # the Debian python3-kubernetes package is not installed
    print("python kubernetes client not available (%s): skipping" % e)
    sys.exit(SKIP)

NS = "py-e2e"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trimtab", required=True)
    ap.add_argument("--reference", required=True)
    args = ap.parse_args()
    crd_path = os.path.join(args.reference, "flink-operator", "crds",
                            "flinkdeployments.flink.apache.org-v1.yml")
    basic_path = os.path.join(args.reference, "flink-operator", "examples", "basic.yaml")

    with LocalCluster(args.trimtab, extra_args=["--api-only"]) as cluster:
        api_client = config.new_client_from_config(config_file=cluster.kubeconfig)
        core = client.CoreV1Api(api_client)
        apps = client.AppsV1Api(api_client)
        ext = client.ApiextensionsV1Api(api_client)
        custom = client.CustomObjectsApi(api_client)
        c = Checks()

        def version():
            info = client.VersionApi(api_client).get_code()
            expect(info.major == "1" and info.minor == "32", info)
        c.run("version", version)

        def create_namespace_and_configmap():
            core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=NS)))
            ns = core.read_namespace(NS)
            expect(ns.status.phase == "Active", ns.status)
            cm = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="settings", labels={"app": "py"}),
                                    data={"mode": "fast"})
            created = core.create_namespaced_config_map(NS, cm)
            expect(created.metadata.uid and created.metadata.resource_version, created.metadata)
        c.run("create namespace and configmap", create_namespace_and_configmap)

        def list_with_selectors():
            core.create_namespaced_config_map(NS, client.V1ConfigMap(
                metadata=client.V1ObjectMeta(name="other", labels={"app": "other"})))
            items = core.list_namespaced_config_map(NS).items
            names = sorted(i.metadata.name for i in items)
            expect("settings" in names and "other" in names, names)
            items = core.list_namespaced_config_map(NS, label_selector="app=py").items
            expect([i.metadata.name for i in items] == ["settings"], items)
            items = core.list_namespaced_config_map(NS, field_selector="metadata.name=other").items
            expect([i.metadata.name for i in items] == ["other"], items)
            page = core.list_namespaced_config_map(NS, limit=1)
            expect(len(page.items) == 1 and page.metadata._continue, page.metadata)
        c.run("list with label/field selectors and paging", list_with_selectors)

        def patch_configmap():
            core.patch_namespaced_config_map("settings", NS, {"data": {"extra": "1"}})
            cm = core.read_namespaced_config_map("settings", NS)
            expect(cm.data == {"mode": "fast", "extra": "1"}, cm.data)
        c.run("strategic merge patch of a configmap", patch_configmap)

        def deployment_patch():
            dep = client.V1Deployment(
                metadata=client.V1ObjectMeta(name="web"),
                spec=client.V1DeploymentSpec(
                    replicas=1,
                    selector=client.V1LabelSelector(match_labels={"app": "web"}),
                    template=client.V1PodTemplateSpec(
                        metadata=client.V1ObjectMeta(labels={"app": "web"}),
                        spec=client.V1PodSpec(containers=[
                            client.V1Container(name="a", image="nginx:1.25"),
                            client.V1Container(name="b", image="busybox")]))))
            apps.create_namespaced_deployment(NS, dep)
            apps.patch_namespaced_deployment("web", NS, {"spec": {"template": {"spec": {
                "containers": [{"name": "b", "image": "busybox:1.36"}]}}}})
            got = apps.read_namespaced_deployment("web", NS)
            images = [(ct.name, ct.image) for ct in got.spec.template.spec.containers]
            expect(images == [("a", "nginx:1.25"), ("b", "busybox:1.36")], images)
            scale = apps.patch_namespaced_deployment_scale("web", NS, {"spec": {"replicas": 3}})
            expect(scale.spec.replicas == 3, scale)
            expect(apps.read_namespaced_deployment("web", NS).spec.replicas == 3, "scale")
        c.run("deployment create, SMP by container name, scale", deployment_patch)

        def watch_configmaps():
            rv = core.list_namespaced_config_map(NS).metadata.resource_version
            seen = []

            def consume():
                w = watch.Watch()
                for event in w.stream(core.list_namespaced_config_map, NS, resource_version=rv,
                                      timeout_seconds=15):
                    seen.append((event["type"], event["object"].metadata.name))
                    if ("DELETED", "watched") in seen:
                        w.stop()
            t = threading.Thread(target=consume)
            t.start()
            time.sleep(0.5)
            core.create_namespaced_config_map(NS, client.V1ConfigMap(
                metadata=client.V1ObjectMeta(name="watched")))
            core.patch_namespaced_config_map("watched", NS, {"data": {"k": "v"}})
            core.delete_namespaced_config_map("watched", NS)
            t.join(timeout=20)
            expect(seen == [("ADDED", "watched"), ("MODIFIED", "watched"), ("DELETED", "watched")],
                   seen)
        c.run("watch from a resourceVersion", watch_configmaps)

        def errors():
            try:
                core.read_namespaced_config_map("missing", NS)
                raise AssertionError("no error for a missing configmap")
            except ApiException as e:
                expect(e.status == 404, e)
            try:
                core.create_namespaced_config_map(NS, client.V1ConfigMap(
                    metadata=client.V1ObjectMeta(name="settings")))
                raise AssertionError("no error for a duplicate configmap")
            except ApiException as e:
                expect(e.status == 409 and "AlreadyExists" in e.body, e.body)
        c.run("errors become ApiException with the HTTP status", errors)

        def custom_objects():
            with open(crd_path) as f:
                ext.create_custom_resource_definition(yaml.safe_load(f))
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                crd = ext.read_custom_resource_definition("flinkdeployments.flink.apache.org")
                conds = {cd.type: cd.status for cd in (crd.status.conditions or [])}
                if conds.get("Established") == "True":
                    break
                time.sleep(0.3)
            expect(conds.get("Established") == "True", conds)
            with open(basic_path) as f:
                body = yaml.safe_load(f)
            custom.create_namespaced_custom_object("flink.apache.org", "v1beta1", NS,
                                                   "flinkdeployments", body)
            custom.patch_namespaced_custom_object("flink.apache.org", "v1beta1", NS,
                                                  "flinkdeployments", "basic-example",
                                                  {"spec": {"job": {"parallelism": 5}}})
            obj = custom.get_namespaced_custom_object("flink.apache.org", "v1beta1", NS,
                                                      "flinkdeployments", "basic-example")
            expect(obj["spec"]["job"]["parallelism"] == 5, obj["spec"]["job"])
            try:
                bad = dict(body, metadata={"name": "bad"})
                bad["spec"] = dict(body["spec"], flinkVersion="v9_9")
                custom.create_namespaced_custom_object("flink.apache.org", "v1beta1", NS,
                                                       "flinkdeployments", bad)
                raise AssertionError("invalid FlinkDeployment accepted")
            except ApiException as e:
                expect(e.status == 422 and "spec.flinkVersion" in e.body, e.body)
        c.run("CRD create, custom object create/merge-patch/validation", custom_objects)

        def dynamic_client():
            dyn = dynamic.DynamicClient(api_client)
            res = dyn.resources.get(api_version="flink.apache.org/v1beta1", kind="FlinkDeployment")
            items = res.get(namespace=NS).items
            expect([i.metadata.name for i in items] == ["basic-example"], items)
            deploys = dyn.resources.get(api_version="apps/v1", kind="Deployment")
            expect(deploys.get(name="web", namespace=NS).spec.replicas == 3, "dynamic get")
        c.run("dynamic client (legacy discovery)", dynamic_client)

        code = c.exit_code()
        if code != 0:
            print("---- trimtab local log (tail) ----")
            print("\n".join(cluster.log().splitlines()[-60:]))
        return code


if __name__ == "__main__":
    sys.exit(main())
