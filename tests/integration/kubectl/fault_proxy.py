"""A fault-injecting HTTP proxy for end-to-end tests (issue 28): it sits between the Flink
operator and the Kubernetes API server, and between the operator and every Flink cluster's REST
API, and answers with faults on demand.

    api = FaultProxy(upstream="127.0.0.1:6443", ca=pem)  # the API server (TLS with its CA)
    flink = FlinkRestProxies()                           # one listener per Flink REST Service
    api.rewrite = flink.rewrite_service                  # Services of "<name>-rest" point at it
    api.set("conflict", methods={"PUT", "PATCH"})        # 409 on every status write
    flink.set("garbage")                                 # 200 with a body that is not JSON
    ...
    api.set("pass"); flink.set("pass")                   # the faults end

Faults (set(mode, **params); every mode counts the requests it answered):
    pass        forward unchanged
    slow        forward after `delay` seconds
    error       answer `status` (default 503) with a short JSON body, not forwarded
    conflict    API server: 409 Conflict (metav1.Status, reason Conflict) for `methods`
    garbage     200 with bytes that are not JSON
    reset       close the connection without an answer (TCP RST)
    timeout     hold the request `delay` seconds (longer than the client waits), then close
    watch-drop  API server: every open watch stream is cut every `after` seconds (other
                requests pass)
    wrong-metrics  Flink REST: the job vertices' metric answers forwarded with every value
                replaced by `value` (impossible numbers: 10^12 ms busy per second)
`methods` (a set of HTTP verbs) limits a fault to those verbs; other requests pass.

The proxy itself listens on plain HTTP; with `ca` (a PEM) it reaches its upstream over HTTPS,
verified against that CA (the API server of `trimtab local` serves TLS only), so the client in
front of it needs no certificate and the faults are written in plain HTTP.

The operator reaches a Flink cluster at the clusterIP of its "<name>-rest" Service (read from
the API server): the API server proxy rewrites that address to a loopback address of its own
where a FlinkRestProxies listener forwards to the real one.

Thread-safety: set() may be called from any thread while requests are served.
"""

import http.client
import http.server
import json
import socket
import socketserver
import ssl
import struct
import threading
import time


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class FaultProxy:
    """One listener forwarding to `upstream` ("host:port")."""

    def __init__(self, upstream, listen=("127.0.0.1", 0), kind="api", ca=None):
        self.upstream = upstream
        self.tls = ssl.create_default_context(cadata=ca) if ca else None
        self.kind = kind
        self.mode = "pass"
        self.params = {}
        self.rewrite = None  # fn(path, json) -> json, applied to JSON answers of GETs
        self.lock = threading.Lock()
        self.counts = {}  # mode -> requests answered with it
        self.streams = set()  # handlers streaming a watch now
        self.log = []  # (monotonic time, method, path, mode)
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _handle(self):
                proxy._serve(self)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle

        self.server = _Server(listen, Handler)
        self.address = "%s:%d" % self.server.server_address[:2]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def set(self, mode, **params):
        with self.lock:
            self.mode = mode
            self.params = params
            self.generation = getattr(self, "generation", 0) + 1
            generation = self.generation
        if mode == "watch-drop":
            threading.Thread(target=self._drop_watches, args=(generation, params.get("after", 1)),
                             daemon=True).start()

    def _drop_watches(self, generation, after):
        """While watch-drop is on: every `after` seconds, every open watch stream is cut."""
        while True:
            time.sleep(after)
            with self.lock:
                if self.generation != generation:
                    return
                streams = list(self.streams)
            for h in streams:
                try:
                    h.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def count(self, mode):
        with self.lock:
            return self.counts.get(mode, 0)

    def requests_since(self, t0, mode=None):
        with self.lock:
            return [e for e in self.log if e[0] >= t0 and (mode is None or e[3] == mode)]

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    # ---- serving -------------------------------------------------------------------------

    def _serve(self, h):
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else b""
        with self.lock:
            mode, params = self.mode, dict(self.params)
        methods = params.get("methods")
        if methods and h.command not in methods:
            mode = "pass"
        watch = "watch=" in h.path or "/watch/" in h.path
        if mode == "watch-drop" and not watch:
            mode = "pass"
        if mode == "wrong-metrics" and not ("/vertices/" in h.path and "metrics" in h.path):
            mode = "pass"
        with self.lock:
            self.counts[mode] = self.counts.get(mode, 0) + 1
            self.log.append((time.monotonic(), h.command, h.path, mode))
        if mode == "error":
            return self._answer(h, params.get("status", 503), {"errors": ["injected fault"]}
                                if self.kind == "flink" else _status(503, "ServiceUnavailable",
                                                                     "injected fault"))
        if mode == "conflict":
            return self._answer(h, 409, _status(409, "Conflict",
                                                "the object has been modified; please apply "
                                                "your changes to the latest version and try "
                                                "again (injected)"))
        if mode == "garbage":
            return self._answer_raw(h, 200, b"\x00\xff<html>not json{{{", "application/json")
        if mode == "reset":
            return self._reset(h)
        if mode == "timeout":
            time.sleep(params.get("delay", 30))
            return self._reset(h)
        if mode == "slow":
            time.sleep(params.get("delay", 2))
        self._forward(h, body, mode, params)

    def _forward(self, h, body, mode, params):
        host, port = self.upstream.rsplit(":", 1)
        if self.tls is not None:
            conn = http.client.HTTPSConnection(host, int(port), timeout=300, context=self.tls)
        else:
            conn = http.client.HTTPConnection(host, int(port), timeout=300)
        headers = {k: v for k, v in h.headers.items()
                   if k.lower() not in ("host", "connection", "accept-encoding")}
        try:
            conn.request(h.command, h.path, body=body or None, headers=headers)
            resp = conn.getresponse()
        except OSError:
            return self._reset(h)
        chunked = resp.getheader("Transfer-Encoding", "").lower() == "chunked"
        ctype = resp.getheader("Content-Type", "")
        if chunked and h.command == "GET" and ("watch=" in h.path or "/watch/" in h.path):
            return self._stream(h, resp, mode, params)
        data = resp.read()
        conn.close()
        if "json" in ctype and h.command == "GET":
            try:
                doc = json.loads(data)
                if mode == "wrong-metrics":
                    doc = _wrong_metrics(doc, params.get("value", 1e12))
                if self.rewrite:
                    doc = self.rewrite(h.path, doc)
                data = json.dumps(doc).encode()
            except ValueError:
                pass
        self._answer_raw(h, resp.status, data, ctype or "application/json")

    def _stream(self, h, resp, mode, params):
        h.send_response(resp.status)
        h.send_header("Content-Type", resp.getheader("Content-Type", "application/json"))
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        with self.lock:
            self.streams.add(h)
        try:
            while True:
                chunk = resp.read1(65536)
                if not chunk:
                    break
                h.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                h.wfile.flush()
            h.wfile.write(b"0\r\n\r\n")
            h.wfile.flush()
        except (OSError, ValueError):
            pass
        finally:
            with self.lock:
                self.streams.discard(h)
            resp.close()
        h.close_connection = True

    @staticmethod
    def _answer(h, status, doc):
        FaultProxy._answer_raw(h, status, json.dumps(doc).encode(), "application/json")

    @staticmethod
    def _answer_raw(h, status, data, ctype):
        try:
            h.send_response(status)
            h.send_header("Content-Type", ctype)
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.write(data)
        except OSError:
            h.close_connection = True

    @staticmethod
    def _reset(h):
        try:
            h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        h.close_connection = True


def _status(code, reason, message):
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": reason, "code": code}


def _wrong_metrics(doc, value):
    """Every metric value replaced by `value` (Flink's aggregated and plain metric shapes)."""
    if isinstance(doc, list):
        out = []
        for m in doc:
            if isinstance(m, dict):
                m = dict(m)
                for key in ("min", "max", "avg", "sum"):
                    if key in m:
                        m[key] = value
                if "value" in m:
                    m["value"] = str(value)
            out.append(m)
        return out
    return doc


class FlinkRestProxies:
    """A FaultProxy per Flink REST Service, on loopback addresses 127.77.0.N, port 8081."""

    def __init__(self, port=8081):
        self.port = port
        self.lock = threading.Lock()
        self.by_real = {}  # real clusterIP -> FaultProxy
        self.mode = ("pass", {})

    def rewrite_service(self, path, doc):
        """For the API server proxy: a "<name>-rest" Service's clusterIP -> our listener."""
        if not isinstance(doc, dict):
            return doc
        items = doc.get("items") if doc.get("kind", "").endswith("List") else [doc]
        for obj in items or []:
            if not isinstance(obj, dict) or obj.get("kind") not in (None, "Service"):
                continue
            name = (obj.get("metadata") or {}).get("name", "")
            spec = obj.get("spec") or {}
            ip = spec.get("clusterIP")
            if not name.endswith("-rest") or not ip or ip == "None":
                continue
            spec["clusterIP"] = self._listener(ip).address.split(":")[0]
            if "clusterIPs" in spec:
                spec["clusterIPs"] = [spec["clusterIP"]]
        return doc

    def _listener(self, real_ip):
        with self.lock:
            p = self.by_real.get(real_ip)
            if p is None:
                n = len(self.by_real) + 1
                p = FaultProxy("%s:%d" % (real_ip, self.port),
                               listen=("127.77.%d.%d" % (n // 250, n % 250 + 1), self.port),
                               kind="flink")
                p.set(self.mode[0], **self.mode[1])
                self.by_real[real_ip] = p
            return p

    def set(self, mode, **params):
        with self.lock:
            self.mode = (mode, params)
            proxies = list(self.by_real.values())
        for p in proxies:
            p.set(mode, **params)

    def count(self, mode):
        with self.lock:
            proxies = list(self.by_real.values())
        return sum(p.count(mode) for p in proxies)

    def requests_since(self, t0, mode=None):
        with self.lock:
            proxies = list(self.by_real.values())
        return [e for p in proxies for e in p.requests_since(t0, mode)]

    def close(self):
        with self.lock:
            proxies = list(self.by_real.values())
        for p in proxies:
            p.close()
