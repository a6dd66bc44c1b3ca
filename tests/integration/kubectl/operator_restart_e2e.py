#!/usr/bin/env python3
"""The Flink operator killed (SIGKILL) in the middle of a savepoint upgrade and started again:
`trimtab local --no-operator` runs the cluster, `trimtab operator` runs as a process of its own.
The upgrade must complete, the new job must restore from the upgrade savepoint (not start
stateless) and the offset ledger (GET /trimtab/topics) must show nothing lost or repeated.

Usage: operator_restart_e2e.py --trimtab BIN   (exit 77 = skipped: no kubectl)
"""

import os
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from local_cluster import (SKIP, e2e_args, read_log, Checks, LocalCluster, expect,  # noqa: E402
                           write_operator_config)
from kubectl_e2e import Kubectl, wait_until  # noqa: E402
from operator_e2e import OPERATOR_CONFIG, RANGES, Flink, stateful  # noqa: E402

NS = "restart"


class OperatorProcess:
    """`trimtab operator` against the local cluster; its log accumulates over restarts."""

    def __init__(self, trimtab, cluster, config):
        self.cmd = [trimtab, "operator", "--kubeconfig", cluster.kubeconfig, "--health-port",
                    "-1", "--config", config]
        self.log_path = os.path.join(cluster.tmp, "operator.log")
        self.proc = None
        self.starts = 0

    def start(self):
        log = open(self.log_path, "ab")
        self.starts += 1
        log.write(b"==== operator start %d ====\n" % self.starts)
        log.flush()
        self.proc = subprocess.Popen(self.cmd, stdout=log, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    def kill(self):
        """SIGKILL: no shutdown, no status written on the way out."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def log(self):
        return read_log(self.log_path)


class KillOn:
    """Runs `kubectl ... -w` and SIGKILLs the operator on the first output line with `word`."""

    def __init__(self, k, args, word, op):
        cmd = [k.binary, "--cache-dir", k.cache] + args
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, env=k.cluster.env())
        self.word = word
        self.op = op
        self.lines = []
        self.killed = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line.strip())
            if self.word in line.split() and not self.killed.is_set():
                self.op.kill()
                self.killed.set()

    def stop(self):
        self.proc.kill()
        self.proc.wait()


def main():
    args = e2e_args(reference="")  # --reference accepted like the other e2e scripts, unused
    if args is None:
        return SKIP

    started = time.monotonic()
    # Wall-clock speed: the operator process has a clock of its own.
    cluster = LocalCluster(args.trimtab, extra_args=RANGES + ["--no-operator"])
    config = write_operator_config(cluster, OPERATOR_CONFIG)
    with cluster:
        k = Kubectl(args.kubectl, cluster)
        fl = Flink(k, cluster)
        op = OperatorProcess(args.trimtab, cluster, config)
        op.start()
        c = Checks()
        k.out("create", "namespace", NS)

        def killed_upgrade(name, watch_args, word, what):
            if op.proc.poll() is not None:  # a previous check failed before the restart
                op.start()
            k.out("apply", "-n", NS, "-f", "-", stdin=stateful(name, "savepoint"))
            old = fl.wait_running(NS, name, timeout=90)["jobStatus"]["jobId"]
            fl.wait_ledger(NS, name, 1)
            kill = KillOn(k, watch_args, word, op)
            try:
                k.out("patch", "flinkdeployment", name, "-n", NS, "--type", "merge",
                      "-p", '{"spec":{"job":{"parallelism":4}}}')
                wait_until(kill.killed.is_set, timeout=60, what=what)
            finally:
                kill.stop()
            at_kill = fl.status(NS, name)
            print("    killed the operator; status then: lifecycle %s, reconciliation %s, job %s"
                  " %s, upgradeSavepointPath %s" % (
                      at_kill.get("lifecycleState"), at_kill["reconciliationStatus"]["state"],
                      at_kill["jobStatus"].get("jobId"), at_kill["jobStatus"].get("state"),
                      at_kill["jobStatus"].get("upgradeSavepointPath")), flush=True)
            try:
                jobs = fl.rest(NS, name, "/jobs/overview")["jobs"]
                counts = fl.rest(NS, name, "/jobs/%s/checkpoints" % jobs[0]["jid"])["counts"]
                print("    the old job in the JobManager then: %s, snapshots in progress: %s" % (
                    [(j["jid"][:6], j["state"]) for j in jobs], counts.get("in_progress")),
                    flush=True)
            except (AssertionError, OSError, ValueError) as e:
                print("    no JobManager REST then: %s" % str(e).splitlines()[-1], flush=True)
            time.sleep(2)  # nothing moves without the operator
            expect(fl.status(NS, name)["reconciliationStatus"] == at_kill["reconciliationStatus"],
                   "the status changed while the operator was down")
            op.start()
            st = fl.wait_running(NS, name, timeout=90, job_id_not=old)
            new = st["jobStatus"]["jobId"]
            spec = st["reconciliationStatus"]
            expect(spec["state"] == "DEPLOYED" and '"parallelism":4' in spec["lastReconciledSpec"],
                   spec)
            # The upgrade savepoint reached the history (issue 28) and the restore path was
            # consumed once the new job ran.
            last = st["jobStatus"].get("savepointInfo", {}).get("lastSavepoint") or {}
            location = last.get("location") or ""
            expect(last.get("triggerType") == "UPGRADE", st["jobStatus"])
            expect(not st["jobStatus"].get("upgradeSavepointPath"), st["jobStatus"])
            expect(location.startswith("file:///flink-data/%s/savepoints/savepoint-" % name),
                   st["jobStatus"])
            expect(os.path.isfile(os.path.join(fl.fs_path(location), "_metadata")), location)
            restored = fl.restored_from(NS, name, new)
            expect(restored and restored["is_savepoint"] and
                   restored["external_path"] == location,
                   "new job restored from %s, not from %s" % (restored, location))
            sp_dir = fl.fs_path("file:///flink-data/%s/savepoints" % name)
            print("    savepoints written: %s; restored from %s" % (
                sorted(os.listdir(sp_dir)) if os.path.isdir(sp_dir) else [], location),
                flush=True)
            vertices = fl.rest(NS, name, "/jobs/" + new)["vertices"]
            expect(all(v["parallelism"] == 4 for v in vertices),
                   [v["parallelism"] for v in vertices])
            jobs = fl.rest(NS, name, "/jobs/overview")["jobs"]
            expect([j["jid"] for j in jobs if j["state"] == "RUNNING"] == [new], jobs)
            t = fl.wait_ledger(NS, name, 2)
            expect(t["jobs"] == [old, new], (t["jobs"], old, new))
            expect(t["savepointCommits"] > 0, t)
            k.out("delete", "flinkdeployment", name, "-n", NS)

        def kill_when_upgrading():
            name = "killed-upgrading"
            killed_upgrade(name, ["get", "flinkdeployment", name, "-n", NS, "-w", "-o",
                                  'jsonpath={.status.reconciliationStatus.state}{"\\n"}'],
                           "UPGRADING", "reconciliationStatus.state UPGRADING")
        c.run("operator SIGKILLed when the upgrade is recorded UPGRADING: after a restart "
              "the upgrade completes from the savepoint, ledger clean", kill_when_upgrading)

        def kill_during_savepoint():
            # The Suspended event is emitted right before stop-with-savepoint is requested: the
            # operator dies before or while it waits for the savepoint (the output says which).
            name = "killed-savepoint"
            killed_upgrade(name, ["get", "events", "-n", NS, "-w", "--field-selector",
                                  "involvedObject.name=%s,reason=Suspended" % name,
                                  "-o", 'jsonpath={.reason}{"\\n"}'],
                           "Suspended", "the Suspended event")
        c.run("operator SIGKILLed as the upgrade starts (Suspended event, before the savepoint "
              "completes): after a restart the upgrade completes from a savepoint, ledger clean",
              kill_during_savepoint)

        op.stop()
        code = c.exit_code()
        print("operator restart e2e took %.1f s" % (time.monotonic() - started))
        if code != 0:
            print("---- trimtab operator log (tail) ----")
            print("\n".join(op.log().splitlines()[-60:]))
            print("---- trimtab local log (tail) ----")
            print("\n".join(cluster.log().splitlines()[-40:]))
        return code


if __name__ == "__main__":
    sys.exit(main())
