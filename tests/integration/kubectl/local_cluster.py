"""Starts `trimtab local` for an end-to-end test and stops it again.

`trimtab local --data-dir DIR --port 0` serves the Kubernetes API over HTTPS on a free loopback
port and writes a kubeconfig into DIR (its path is also printed) with the cluster's CA and the
administrator's token. LocalCluster waits for that file and for an authenticated /version to
answer, and gives the tests an environment in which kubectl and the Python client talk to the
local server only (KUBECONFIG, HOME and the kubectl cache inside the temporary directory).
`api()` makes raw requests with the kubeconfig's credentials (as `kubectl get --raw`).
"""

import argparse
import base64
import glob
import os
import shutil
import json
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import yaml

SKIP = 77  # ctest SKIP_RETURN_CODE


def read_log(path):
    """A process's log file as text ("" when it cannot be read)."""
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def kubeconfig_credentials(path):
    """(server, CA PEM or None, bearer token or None) of a kubeconfig's first cluster and user."""
    with open(path) as f:
        config = yaml.safe_load(f)
    cluster = config["clusters"][0]["cluster"]
    user = (config.get("users") or [{}])[0].get("user") or {}
    ca = cluster.get("certificate-authority-data")
    return (cluster["server"], base64.b64decode(ca).decode() if ca else None, user.get("token"))


def api_request(server, path, ca=None, token=None, method="GET", body=None, headers=None,
                timeout=10):
    """One request to the API server: (status, parsed JSON body or text). HTTPS is verified with
    `ca`; `token` goes into Authorization. HTTP errors are answers, not exceptions."""
    ctx = ssl.create_default_context(cadata=ca) if ca else ssl.create_default_context()
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    req = urllib.request.Request(server + path, data=data, method=method, headers=dict(headers or {}))
    if data is not None and "Content-Type" not in req.headers:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}),
                                         urllib.request.HTTPSHandler(context=ctx))
    try:
        with opener.open(req, timeout=timeout) as r:
            status, text = r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read().decode("utf-8", "replace")
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def e2e_args(reference=None):
    """The kubectl e2e scripts' command line: --trimtab BIN (required), --kubectl (default: the
    kubectl on PATH, else /usr/bin/kubectl) and, when `reference` is given, --reference DIR
    (`reference` is its default, or True to require it). Returns the parsed arguments, or None
    after saying so when there is no kubectl: the caller then exits with SKIP."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--trimtab", required=True)
    if reference is True:
        ap.add_argument("--reference", required=True)
    elif reference is not None:
        ap.add_argument("--reference", default=reference)
    ap.add_argument("--kubectl", default=shutil.which("kubectl") or "/usr/bin/kubectl")
    args = ap.parse_args()
    if not os.path.exists(args.kubectl):
        print("kubectl not found: skipping")
        return None
    return args


class LocalCluster:
    def __init__(self, trimtab, startup_timeout=60, extra_args=()):
        self.trimtab = trimtab
        self.startup_timeout = startup_timeout
        self.extra_args = list(extra_args)
        self.tmp = tempfile.mkdtemp(prefix="trimtab-e2e-")
        self.data_dir = os.path.join(self.tmp, "data")
        os.makedirs(self.data_dir)
        self.log_path = os.path.join(self.tmp, "trimtab-local.log")
        self.proc = None
        self.kubeconfig = None
        self.server = None
        self.ca = None  # the cluster CA (PEM) and the administrator's token, from the kubeconfig
        self.token = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self):
        log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [self.trimtab, "local", "--data-dir", self.data_dir, "--port", "0"] + self.extra_args,
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("trimtab local exited with %d:\n%s" %
                                   (self.proc.returncode, self.log()))
            self.kubeconfig = self._find_kubeconfig()
            if self.kubeconfig and self._server_answers():
                return
            time.sleep(0.2)
        raise RuntimeError("trimtab local did not become ready in %ds:\n%s" %
                           (self.startup_timeout, self.log()))

    def _find_kubeconfig(self):
        candidates = sorted(glob.glob(os.path.join(self.data_dir, "*kubeconfig*")))
        for line in self.log().splitlines():
            for word in line.split():
                if "kubeconfig" in word and os.path.isfile(word):
                    candidates.insert(0, word)
        for path in candidates:
            if os.path.isfile(path) and os.path.getsize(path) > 0:
                return path
        return None

    def _server_answers(self):
        try:
            self.server, self.ca, self.token = kubeconfig_credentials(self.kubeconfig)
            if not self.server:
                return False
            status, _ = self.api("/version", timeout=2)
            return status == 200
        except (OSError, ValueError, KeyError, IndexError, TypeError, yaml.YAMLError):
            return False

    def api(self, path, **kwargs):
        """A raw request with the kubeconfig's CA and token: (status, JSON or text)."""
        kwargs.setdefault("ca", self.ca)
        kwargs.setdefault("token", self.token)
        return api_request(self.server, path, **kwargs)

    def log(self):
        return read_log(self.log_path)

    def env(self):
        env = dict(os.environ)
        env["KUBECONFIG"] = self.kubeconfig
        env["HOME"] = self.tmp
        env.pop("KUBECTL_EXTERNAL_DIFF", None)
        return env

    def stop_process(self):
        """Stops trimtab local (SIGTERM, then SIGKILL after 15 s); the data directory stays."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def stop(self):
        self.stop_process()
        if os.environ.get("TRIMTAB_E2E_KEEP_TMP"):
            print("kept", self.tmp, file=sys.stderr)
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)


class Checks:
    """Collects named checks so that one failure does not hide the next ones."""

    def __init__(self):
        self.passed = []
        self.failed = []

    def run(self, name, fn):
        try:
            fn()
            self.passed.append(name)
            print("PASS", name, flush=True)
        except Exception as e:  # noqa: BLE001 - report every kind of failure by name
            self.failed.append((name, e))
            print("FAIL", name, "\n    " + str(e).replace("\n", "\n    "), flush=True)

    def exit_code(self):
        print("\n%d passed, %d failed" % (len(self.passed), len(self.failed)))
        for name, e in self.failed:
            print("  failed:", name)
        return 1 if self.failed else 0

    def finish(self, cluster, what, started, log_lines=60):
        """The exit code, after how long `what` took and, when a check failed, the tail of the
        cluster's log."""
        code = self.exit_code()
        print("%s took %.1f s" % (what, time.monotonic() - started))
        if code != 0:
            print("---- trimtab local log (tail) ----")
            print("\n".join(cluster.log().splitlines()[-log_lines:]))
        return code


def write_operator_config(cluster, text):
    """Writes the configuration of a `trimtab operator` process run next to `cluster`
    (`trimtab local --no-operator`) into its temporary directory; returns the path for
    `--config`."""
    path = os.path.join(cluster.tmp, "operator.yaml")
    with open(path, "w") as f:
        f.write(text)
    return path


# The simulated job of checkpointed_deployment: a 4-partition source and a keyed sink with 1 MB
# of state, 2000 records/s, restarts of about a second.
CHECKPOINTED_JOB = """vertices:
  - {id: source, partitions: 4, capacityPerSubtask: 5000}
  - {id: sink, capacityPerSubtask: 5000, stateBytes: 1000000}
edges: [{from: source, to: sink, ship: hash}]
restart: {baseDowntime: 1 s}
"""


def checkpointed_deployment(name, checkpoint_interval, configuration=None, job=None):
    """The manifest (YAML) of a FlinkDeployment `name` of CHECKPOINTED_JOB with checkpoints,
    savepoints and Kubernetes HA under file:///flink-data/<name>/ (the crash and fault tests).
    `configuration` is added to its flinkConfiguration, `job` to its spec.job (parallelism,
    upgradeMode, state, ...)."""
    conf = {
        "taskmanager.numberOfTaskSlots": "2",
        "execution.checkpointing.interval": checkpoint_interval,
        "state.checkpoints.dir": "file:///flink-data/%s/checkpoints" % name,
        "state.savepoints.dir": "file:///flink-data/%s/savepoints" % name,
        "high-availability.type": "kubernetes",
        "high-availability.storageDir": "file:///flink-data/%s/ha" % name,
    }
    conf.update(configuration or {})
    resources = {"requests": {"memory": "1024m", "cpu": "0.5"}}
    doc = {
        "apiVersion": "flink.apache.org/v1beta1",
        "kind": "FlinkDeployment",
        "metadata": {"name": name, "annotations": {"trimtab.dev/job": CHECKPOINTED_JOB,
                                                  "trimtab.dev/workload": "2000"}},
        "spec": {
            "image": "flink:2.2",
            "flinkVersion": "v2_2",
            "flinkConfiguration": conf,
            "serviceAccount": "flink",
            "jobManager": {"resources": resources},
            "taskManager": {"resources": resources},
            "job": dict({"jarURI": "local:///opt/flink/examples/streaming/StateMachineExample.jar"},
                        **(job or {})),
        },
    }
    return yaml.safe_dump(doc, sort_keys=False)


def expect(cond, message):
    if not cond:
        raise AssertionError(message)


def expect_in(needle, haystack, what="output"):
    if needle not in haystack:
        raise AssertionError("%r not in %s:\n%s" % (needle, what, haystack))
