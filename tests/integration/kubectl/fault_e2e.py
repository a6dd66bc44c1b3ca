#!/usr/bin/env python3
"""Faults from outside (issue 28): `trimtab operator` reaches the API server of
`trimtab local --no-operator` and every Flink cluster's REST API through a fault-injecting proxy
(fault_proxy.py). An autoscaled FlinkDeployment runs while the proxy answers, in turn:

  Flink REST   5xx, a body that is not JSON, slow answers, connection resets, and metrics with
               impossible values (busy 10^12 ms/s)
  API server   409 on every write, 5xx, watches dropped every second, requests held past the
               client's timeout

and the test checks from the outside that the operator and its autoscaler never act unsafely:
the job is never rescaled or restarted by a fault (its job id and vertex parallelism stay), the
decision taken on impossible metrics is vetoed with the reason in the decision log, requests
are retried with backoff (the rate of failing requests stays bounded), and once the fault ends
the operator recovers: a spec change made during an API server fault is carried out after it,
and the autoscaler evaluates again.

Usage: fault_e2e.py --trimtab BIN   (exit 77 = skipped: no kubectl)
"""

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from local_cluster import (SKIP, e2e_args, Checks, LocalCluster, checkpointed_deployment,  # noqa: E402
                           expect, read_log, write_operator_config)
from kubectl_e2e import Kubectl, wait_until  # noqa: E402
from operator_e2e import Flink  # noqa: E402
from fault_proxy import FaultProxy, FlinkRestProxies  # noqa: E402

NS = "faults"
NAME = "steady"
RANGES = ["--service-cidr", "127.18.0.0/16", "--pod-cidr", "127.28.0.0/16"]
FAULT_SECONDS = 6

OPERATOR_CONFIG = """
kubernetes.operator.reconcile.interval: 1 s
kubernetes.operator.observer.progress-check.interval: 1 s
kubernetes.operator.observer.rest-ready.delay: 1 s
kubernetes.operator.flink.client.timeout: 2 s
"""

# The job the faults are injected under: autoscaled, with short windows.
AUTOSCALER = {
    "job.autoscaler.enabled": "true",
    "job.autoscaler.stabilization.interval": "2 s",
    "job.autoscaler.metrics.window": "4 s",
    "job.autoscaler.flink.rest-client.timeout": "1 s",
}


def deployment(generation):
    return checkpointed_deployment(
        NAME, "2 s", dict(AUTOSCALER, **{"trimtab.test/generation": str(generation)}),
        {"parallelism": 2, "upgradeMode": "last-state"})


DECISION = "trimtab.dev/last-scaling-decision"


def retry_intervals(requests):
    """Per call (method and path without the query), the seconds between its successive
    faulted requests, in order."""
    times = {}
    for t, method, path, _mode in requests:
        times.setdefault("%s %s" % (method, path.split("?", 1)[0]), []).append(t)
    return {call: [round(b - a, 2) for a, b in zip(ts, ts[1:])]
            for call, ts in sorted(times.items()) if len(ts) > 1}


def bursts(gaps, apart=0.25):
    """Sizes of the runs of requests that came within `apart` seconds of each other."""
    sizes = [1]
    for g in gaps:
        if g < apart:
            sizes[-1] += 1
        else:
            sizes.append(1)
    return sizes


def expect_backoff(mode, intervals):
    """No hot loop: a failing call is repeated at most three times at once (a status write
    re-reads and retries a conflict three times about 100 ms apart; the HTTP client retries a
    reused connection that was reset once), and then only after a pause (the reconcile interval
    or the work queue's backoff). A POST creates a new object each time (events of different
    reasons come together), so it is not a retry of one call and is left out."""
    for call, gaps in intervals.items():
        if call.startswith("POST "):
            continue
        expect(max(bursts(gaps)) <= 4, "%s: %s retried in a burst: %s s" % (mode, call, gaps))


def report_intervals(mode, requests):
    """Prints the retry intervals of every call that met the fault more than once (the
    figures of docs/operator.md "Crash and fault guarantees") and returns them."""
    intervals = retry_intervals(requests)
    for call, gaps in intervals.items():
        print("      %s retries %s after %s s" % (mode, call[:90], gaps), flush=True)
    return intervals


def main():
    args = e2e_args(reference="")
    if args is None:
        return SKIP
    started = time.monotonic()
    cluster = LocalCluster(args.trimtab, extra_args=RANGES + ["--no-operator"])
    with cluster:
        flink = FlinkRestProxies()
        # trimtab local serves HTTPS only: the proxy listens on plain HTTP and reaches the API
        # server over TLS with the cluster's CA (the operator sends the same bearer token).
        api = FaultProxy(cluster.server.split("//", 1)[1], ca=cluster.ca)
        api.rewrite = flink.rewrite_service
        kubeconfig = os.path.join(cluster.tmp, "proxied-kubeconfig")
        with open(cluster.kubeconfig) as f:
            text = f.read()
        with open(kubeconfig, "w") as f:
            f.write(text.replace(cluster.server, "http://" + api.address))
        config = write_operator_config(cluster, OPERATOR_CONFIG)
        log_path = os.path.join(cluster.tmp, "operator.log")
        log = open(log_path, "ab")
        op = subprocess.Popen([args.trimtab, "operator", "--kubeconfig", kubeconfig,
                               "--health-port", "-1", "--config", config],
                              stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        k = Kubectl(args.kubectl, cluster)  # the test itself talks to the API server directly
        fl = Flink(k, cluster)
        c = Checks()
        try:
            k.out("create", "namespace", NS)
            k.out("apply", "-n", NS, "-f", "-", stdin=deployment(0))
            st = fl.wait_running(NS, NAME, timeout=90)
            job_id = st["jobStatus"]["jobId"]

            def decision():
                d = k.json("get", "flinkdeployment", NAME, "-n", NS)
                text = (d["metadata"].get("annotations") or {}).get(DECISION)
                return json.loads(text) if text else {}

            def wait_evaluating(what):
                """The autoscaler runs full cycles again (not Skipped)."""
                def ok():
                    d = decision()
                    expect(d and d.get("outcome") not in (None, "Skipped"),
                           "decision log: %s" % json.dumps(d)[:300])
                    return True
                wait_until(ok, timeout=40, what="the autoscaler to evaluate again after " + what)

            def parallelism():
                return [v["parallelism"] for v in fl.rest(NS, NAME, "/jobs/" + job_id)["vertices"]]

            wait_evaluating("start")
            expect(flink.count("pass") > 0, "the operator does not reach Flink through the proxy")
            baseline = parallelism()

            def unchanged(what):
                # The same job keeps running in the JobManager (read directly, not through the
                # proxy) at the same parallelism, and nothing was redeployed. The status may say
                # RECONCILING while the REST API is unreachable, as upstream's does.
                st = fl.status(NS, NAME)
                expect(st["jobStatus"]["jobId"] == job_id,
                       "%s: the job changed: %s" % (what, st["jobStatus"]))
                jobs = fl.rest(NS, NAME, "/jobs/overview")["jobs"]
                expect([j["jid"] for j in jobs if j["state"] == "RUNNING"] == [job_id],
                       "%s: jobs in the JobManager: %s" % (what, jobs))
                expect(parallelism() == baseline, "%s: rescaled to %s" % (what, parallelism()))
                expect(st["reconciliationStatus"]["state"] == "DEPLOYED", st["reconciliationStatus"])

            def recovered(what):
                def ok():
                    st = fl.status(NS, NAME)
                    expect(st["jobStatus"]["state"] == "RUNNING" and
                           st.get("lifecycleState") == "STABLE",
                           "%s: job %s, lifecycle %s" % (what, st["jobStatus"]["state"],
                                                         st.get("lifecycleState")))
                    return True
                wait_until(ok, timeout=30, what="the status to recover after " + what)
                wait_evaluating(what)

            def flink_fault(mode, **params):
                def run():
                    t0 = time.monotonic()
                    flink.set(mode, **params)
                    time.sleep(FAULT_SECONDS)
                    during = flink.requests_since(t0, mode)
                    d = decision()
                    flink.set("pass")
                    expect(during, "no request met the fault")
                    rate = len(during) / FAULT_SECONDS
                    print("    %s: %d faulted requests (%.1f/s); decision log then: %s %s" % (
                        mode, len(during), rate, d.get("outcome"),
                        (d.get("skippedReason") or "")[:120]), flush=True)
                    expect(rate < 40, "%s: %.1f requests/s, no backoff" % (mode, rate))
                    expect_backoff(mode, report_intervals(mode, during))
                    unchanged(mode)
                    recovered(mode)
                    unchanged(mode + ", after it ended")
                return run

            c.run("Flink REST 5xx: no rescale, no restart; recovers", flink_fault("error"))
            c.run("Flink REST garbage bodies: no rescale; recovers", flink_fault("garbage"))
            c.run("Flink REST slow (beyond the client timeout): no rescale; recovers",
                  flink_fault("slow", delay=3))
            c.run("Flink REST connection resets: no rescale; recovers", flink_fault("reset"))

            def wrong_metrics():
                t0 = time.monotonic()
                flink.set("wrong-metrics", value=1e12)
                vetoed = {}

                def veto_seen():
                    d = decision()
                    chain = json.dumps(d.get("chain") or {})
                    expect("implausible metrics" in chain, "decision log: %s" % json.dumps(d)[:400])
                    vetoed["d"] = d
                    return True
                try:
                    wait_until(veto_seen, timeout=30, what="a decision vetoed on the metrics")
                finally:
                    flink.set("pass")
                d = vetoed["d"]
                reason = [s for s in (d.get("chain") or {}).get("steps", [])
                          if s.get("verdict") == "veto"]
                print("    wrong metrics after %.1f s: outcome %s, veto %s" % (
                    time.monotonic() - t0, d.get("outcome"),
                    json.dumps(reason)[:200] if reason else json.dumps(d.get("chain"))[:200]),
                    flush=True)
                unchanged("wrong metrics")
                recovered("wrong metrics")
                unchanged("wrong metrics, after they ended")
            c.run("Flink REST metrics with impossible values: the decision is vetoed with the "
                  "reason in the decision log, nothing rescaled", wrong_metrics)

            def api_fault(mode, change, **params):
                def run():
                    t0 = time.monotonic()
                    api.set(mode, **params)
                    generation = None
                    if change:
                        generation = int(time.time())
                        k.out("apply", "-n", NS, "-f", "-",
                              stdin=deployment(generation))
                    time.sleep(FAULT_SECONDS)
                    during = api.requests_since(t0, mode)
                    api.set("pass")
                    rate = len(during) / FAULT_SECONDS
                    print("    %s: %d faulted requests (%.1f/s)" % (mode, len(during), rate),
                          flush=True)
                    expect(during, "no request met the fault")
                    expect(rate < 60, "%s: %.1f requests/s, no backoff" % (mode, rate))
                    expect_backoff(mode, report_intervals(mode, during))
                    expect(op.poll() is None, "the operator exited")
                    if generation is None:
                        unchanged(mode)
                        return
                    # The change made during the fault is carried out after it.

                    def done():
                        st = fl.status(NS, NAME)
                        spec = json.loads(st["reconciliationStatus"]["lastReconciledSpec"])
                        spec = spec.get("spec", spec)
                        gen = spec["flinkConfiguration"].get("trimtab.test/generation")
                        expect(str(gen) == str(generation), "reconciled generation %s" % gen)
                        expect(st.get("lifecycleState") == "STABLE" and
                               st["jobStatus"]["state"] == "RUNNING", st.get("lifecycleState"))
                        return True
                    wait_until(done, timeout=90, what="the upgrade asked for during " + mode)
                    st = fl.status(NS, NAME)
                    new = st["jobStatus"]["jobId"]
                    restored = fl.restored_from(NS, NAME, new)
                    expect(restored is not None, "the upgraded job started without state")
                    t = fl.topic(NS, NAME)
                    expect(t["issues"] == [], t["issues"])
                return run

            c.run("API server 409 on every write: nothing unsafe, a spec change made meanwhile "
                  "is carried out after it", api_fault("conflict", True,
                                                       methods={"PUT", "PATCH", "POST"}))

            def rebase():
                nonlocal job_id, baseline
                job_id = fl.status(NS, NAME)["jobStatus"]["jobId"]
                baseline = parallelism()
            c.run("(the upgraded job is the new baseline)", rebase)
            c.run("API server 5xx: nothing unsafe; recovers", api_fault("error", False))
            c.run("API server watches dropped every second: nothing unsafe; recovers",
                  api_fault("watch-drop", False, after=1))
            c.run("API server requests held past the client timeout: nothing unsafe, a spec "
                  "change made meanwhile is carried out after it",
                  api_fault("timeout", True, delay=FAULT_SECONDS + 4,
                            methods={"GET", "PUT", "PATCH"}))
        except Exception:
            # A failure before the checks (the first deployment never running) still shows why.
            print("---- trimtab operator log (tail) ----")
            print("\n".join(read_log(log_path).splitlines()[-60:]))
            raise
        finally:
            op.terminate()
            try:
                op.wait(timeout=10)
            except subprocess.TimeoutExpired:
                op.kill()
            api.close()
            flink.close()
        code = c.exit_code()
        print("fault e2e took %.1f s" % (time.monotonic() - started))
        if code:
            print("---- trimtab operator log (tail) ----")
            print("\n".join(read_log(log_path).splitlines()[-60:]))
        return code


if __name__ == "__main__":
    sys.exit(main())
