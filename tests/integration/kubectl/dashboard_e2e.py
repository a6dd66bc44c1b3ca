#!/usr/bin/env python3
"""The dashboard of `trimtab local` (docs/dashboard.md) in a real headless Chromium, driven by
Selenium through chromedriver (Debian's chromium, chromium-driver, python3-selenium).

A FlinkDeployment with the autoscaler on runs a two-vertex job whose vertex names and job name
hold HTML and script; its source is too slow for the input, so the autoscaler scales it up within
a few simulated minutes (--speed 30). Checked:

- a FlinkDeployment whose metadata.name holds HTML: kube-apiserver refuses it (names are DNS
  subdomains); trimtab local's API server stores it today, so the page must show it as text too;
  vertex names and job names are free text everywhere,
- the page loads from trimtab local's /dashboard/ (through `kubectl proxy`, as a browser reaches
  it: the API server wants credentials) with a strict Content-Security-Policy,
- its job list is what `kubectl get flinkdeployments -A` lists,
- the job's charts have points, and the parallelism chart a decision marker,
- clicking the marker opens the decision log (stages, vertices by name, executor chain),
- the injected markup is shown as text and never ran (window.__pwned stays unset, no <img> from
  the data in the DOM),
- screenshots of the overview and the opened decision log are kept (path printed).

Usage: dashboard_e2e.py --trimtab BIN [--artifacts DIR]   (exit 77 = skipped: no kubectl,
chromium, chromedriver or selenium)
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from local_cluster import SKIP, Checks, LocalCluster, expect, expect_in  # noqa: E402
from kubectl_e2e import Kubectl, wait_until  # noqa: E402

NS = "dash"
NAME = "xss-orders"
RANGES = ["--service-cidr", "127.17.0.0/16", "--pod-cidr", "127.27.0.0/16"]
SPEED = 30

SOURCE_NAME = 'Source: <img src=x onerror="window.__pwned=1">'
SINK_NAME = "<script>window.__pwned=2</script>Sink & </td>"
JOB_NAME = "<b onmouseover=window.__pwned=3>job</b>"
HTML_NAME = "<img src=x onerror=window.__pwned=4>"

OPERATOR_CONFIG = """
kubernetes.operator.reconcile.interval: 10 s
kubernetes.operator.observer.progress-check.interval: 5 s
kubernetes.operator.observer.rest-ready.delay: 2 s
"""


def flink_deployment():
    job = {"name": JOB_NAME,
           "vertices": [{"id": "source", "name": SOURCE_NAME, "partitions": 16, "parallelism": 1,
                         "capacityPerSubtask": 5000},
                        {"id": "sink", "name": SINK_NAME, "parallelism": 1,
                         "capacityPerSubtask": 50000}],
           "edges": [{"from": "source", "to": "sink"}]}
    manifest = {
        "apiVersion": "flink.apache.org/v1beta1", "kind": "FlinkDeployment",
        "metadata": {"name": NAME, "annotations": {"trimtab.dev/job": json.dumps(job),
                                                   "trimtab.dev/workload": "18000"}},
        "spec": {
            "image": "flink:1.20", "flinkVersion": "v1_20",
            "flinkConfiguration": {
                "job.autoscaler.enabled": "true",
                "job.autoscaler.stabilization.interval": "1 min",
                "job.autoscaler.metrics.window": "2 min",
                "pipeline.max-parallelism": "16",
                "taskmanager.numberOfTaskSlots": "4",
                "jobmanager.scheduler": "adaptive"},
            "serviceAccount": "flink",
            "jobManager": {"resource": {"memory": "1024m", "cpu": 0.5}},
            "taskManager": {"resource": {"memory": "1024m", "cpu": 1}},
            "job": {"jarURI": "local:///opt/flink/usrlib/x.jar", "parallelism": 1,
                    "upgradeMode": "stateless"}}}
    return json.dumps(manifest)


def selenium_or_skip():
    try:
        from selenium import webdriver  # noqa: F401
    except ImportError:
        return None
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver") or (
        "/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None)
    if not browser or not driver:
        return None
    return browser, driver


def start_browser(browser, driver):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,1600", "--no-first-run", "--disable-extensions"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver), options=opts)


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--trimtab", required=True)
    ap.add_argument("--kubectl", default=shutil.which("kubectl") or "/usr/bin/kubectl")
    ap.add_argument("--artifacts", default=os.path.join(os.getcwd(), "dashboard_e2e_artifacts"))
    args = ap.parse_args()
    if not os.path.exists(args.kubectl):
        print("kubectl not found: skipping")
        return SKIP
    tools = selenium_or_skip()
    if tools is None:
        print("chromium, chromedriver or python3-selenium missing (scripts/install-deps.sh): "
              "skipping")
        return SKIP
    os.makedirs(args.artifacts, exist_ok=True)
    from selenium.webdriver.common.by import By

    started = time.monotonic()
    cluster = LocalCluster(args.trimtab, extra_args=RANGES + ["--speed", str(SPEED)])
    config_path = os.path.join(cluster.tmp, "operator-config.yaml")
    with open(config_path, "w") as f:
        f.write(OPERATOR_CONFIG)
    cluster.extra_args += ["--operator-config", config_path]

    with cluster:
        k = Kubectl(args.kubectl, cluster)
        c = Checks()
        k.out("create", "namespace", NS)
        # The API server answers authenticated requests only; a browser reaches the pages it
        # mounts through `kubectl proxy`, which adds the kubeconfig's credentials.
        proxy = subprocess.Popen([args.kubectl, "proxy", "--port=0"], env=cluster.env(),
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        browser = None
        try:
            m = re.search(r"127\.0\.0\.1:(\d+)", proxy.stdout.readline())
            expect(m, "kubectl proxy did not say its port")
            url = "http://127.0.0.1:%s/dashboard/" % m.group(1)

            def html_name():
                # Kubernetes names are DNS subdomains: kube-apiserver refuses this one. trimtab
                # local's API server (today) stores it, which makes it one more string to inject.
                bad = json.loads(flink_deployment())
                bad["metadata"]["name"] = HTML_NAME
                bad["metadata"]["annotations"] = {"trimtab.dev/workload": "1"}
                p = k.run("apply", "-n", NS, "-f", "-", stdin=json.dumps(bad), ok=None)
                print("    a FlinkDeployment named %r: %s" %
                      (HTML_NAME, "stored" if p.returncode == 0 else "refused"))
            c.run("a FlinkDeployment whose name holds HTML (refused or shown as text)", html_name)

            def applies():
                out = k.out("apply", "-n", NS, "-f", "-", stdin=flink_deployment())
                expect_in("created", out)
                with urllib.request.urlopen(url, timeout=5) as r:
                    csp = r.headers.get("Content-Security-Policy", "")
                expect("script-src 'self'" in csp and "default-src 'none'" in csp, csp)
                # Straight to the API server without credentials: 401, as for the API itself.
                status, _ = cluster.api("/dashboard/api/overview", token=None)
                expect(status == 401, "without credentials: %s" % status)
            c.run("a FlinkDeployment with HTML in its vertex and job names; the page has a CSP and "
                  "needs credentials",
                  applies)

            browser = start_browser(*tools)
            browser.set_page_load_timeout(30)

            def page_loads():
                browser.get(url)
                wait_until(lambda: browser.find_elements(By.CSS_SELECTOR, "#jobs tbody tr"),
                           timeout=20, what="the job list")
                expect(browser.title == "trimtab dashboard", browser.title)
            c.run("the page loads", page_loads)

            def matches_kubectl():
                items = k.json("get", "flinkdeployments", "-A")["items"]
                want = sorted((i["metadata"]["namespace"], i["metadata"]["name"]) for i in items)

                def same():
                    # Read in one script: live updates re-render the table at any time.
                    rows = browser.execute_script(
                        "return Array.from(document.querySelectorAll('#jobs tbody tr'))"
                        ".map(r => Array.from(r.cells).map(c => c.textContent))")
                    got = sorted((r[1], r[2]) for r in rows if r[0] == "FlinkDeployment")
                    expect(got == want, "page %s, kubectl %s" % (got, want))
                    return True
                wait_until(same, timeout=15, what="the page's job list to match kubectl")
            c.run("the job list matches kubectl get flinkdeployments -A", matches_kubectl)

            def chart_has_points():
                wait_until(lambda: k.json("get", "flinkdeployment", NAME, "-n", NS)
                           .get("status", {}).get("jobStatus", {}).get("state") == "RUNNING",
                           timeout=60, what="the job to run")
                browser.execute_script(
                    "for (const r of document.querySelectorAll('#jobs tbody tr'))"
                    "  if (r.cells[2].textContent === arguments[0]) r.click()", NAME)

                # Live updates re-render the charts at any time, so each check reads the
                # page in one script instead of holding element references across renders.
                def points():
                    counts = browser.execute_script(
                        "return Array.from(document.querySelectorAll('#charts polyline.series'))"
                        ".map(l => parseInt(l.getAttribute('data-points') || '0', 10))")
                    expect(counts and max(counts) >= 2, "series points: %s" % counts)
                    return True
                wait_until(points, timeout=60, what="a chart with points")

                def legend_names_vertices():
                    legend = browser.execute_script(
                        "return document.getElementById('charts').innerText")
                    expect_in(SOURCE_NAME, legend, "the chart legends (vertex names, as text)")
                    return True
                wait_until(legend_names_vertices, timeout=15, what="the chart legends")
            c.run("a chart has points, its legend names the vertices", chart_has_points)

            def decision_opens_log():
                # Live updates bring the first scaling's marker without a reload.
                wait_until(lambda: browser.find_elements(By.CSS_SELECTOR, "#charts g.marker"),
                           timeout=90, what="a decision marker on the charts")
                browser.save_screenshot(os.path.join(args.artifacts, "dashboard-job.png"))
                browser.execute_script(
                    "const m = document.querySelectorAll('#charts g.marker');"
                    "m[m.length - 1].dispatchEvent(new MouseEvent('click', {bubbles: true}))")
                wait_until(lambda: browser.find_element(By.ID, "log").is_displayed(), timeout=10,
                           what="the decision log to open")
                log = browser.execute_script("return document.getElementById('log').innerText")
                # Scaled, or Vetoed / Blocked when a default safeguard (scale-guard) says no.
                expect(re.search(r"Decision log: (Scaled|Vetoed|Blocked)", log), log[:300])
                for needle in ("collect", "evaluate", "decide", "shape", "Executor plugins",
                               SOURCE_NAME):
                    expect_in(needle, log, "the decision log")
                browser.save_screenshot(os.path.join(args.artifacts, "dashboard-decision-log.png"))
            c.run("a decision marker opens its full decision log", decision_opens_log)

            def nothing_ran():
                flag = browser.execute_script("return window.__pwned === undefined ? null : "
                                              "window.__pwned")
                expect(flag is None, "injected script ran: window.__pwned = %r" % flag)
                imgs = browser.execute_script(
                    "return Array.from(document.querySelectorAll('img, script:not([src])')).length")
                expect(imgs == 0, "%d elements came from data" % imgs)
                page = browser.execute_script("return document.body.innerText")
                expect_in(SINK_NAME.strip(), page, "the page text")
                problems = [e for e in browser.get_log("browser")
                            if e.get("level") == "SEVERE" and "favicon" not in e.get("message", "")]
                expect(not problems, "browser errors: %s" % problems)
            c.run("the injected HTML is text and never ran", nothing_ran)
        finally:
            if browser is not None:
                try:
                    browser.save_screenshot(os.path.join(args.artifacts, "dashboard-final.png"))
                finally:
                    browser.quit()
            proxy.terminate()
            proxy.wait(timeout=10)
        print("screenshots:", args.artifacts)
        print("took %.0f s" % (time.monotonic() - started))
        code = c.exit_code()
        if code:
            print(cluster.log()[-4000:])
        return code


if __name__ == "__main__":
    sys.exit(main())
