// PortForwarder: the pods/portforward subresource of the local API server, doing what the API
// server and the kubelet's streaming server do together on a real cluster for
// `kubectl port-forward`.
//
// The protocol is Kubernetes' "portforward.k8s.io" over SPDY/3.1 (adapters/http/spdy.h), reached
// in one of the two ways kubectl 1.32 tries, in this order:
//   1. a WebSocket (GET, Sec-WebSocket-Protocol "SPDY/3.1+portforward.k8s.io") whose binary
//      messages carry the SPDY bytes (the PortForwardWebsockets tunnelling);
//   2. a raw upgrade (POST, Upgrade: SPDY/3.1, X-Stream-Protocol-Version: portforward.k8s.io),
//      answered 101 with the same headers.
// Over the SPDY connection the client opens, for every local connection it accepts, two streams
// with the headers streamType (error | data), port and requestID. Each stream gets a SYN_REPLY;
// once both streams of a requestID exist the server connects to <podIP>:<port> (pod IPs of
// `trimtab local` are loopback addresses, so the listener of a simulated Flink REST API or of a
// process pod is reached directly) and copies bytes between the data stream and that connection.
// The pod closing its side ends both streams (FIN); the client closing the data stream half-closes
// the pod connection. A port nobody listens on gets the kubelet's message on the error stream
// ("error forwarding port 8081 to pod <ns>/<name>, uid <uid>: ..."), which kubectl prints before
// giving up the connection, as on a real cluster.
//
// Not modelled: the older WebSocket protocols (v4.channel.k8s.io with a ports query), SPDY flow
// control (the Go peer ignores it too), the kubelet's 30-s stream-pair creation timeout.
//
// Threading: one I/O thread of its own for the pod connections; the SPDY side runs on the HTTP
// server's threads under a per-connection lock. Thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "adapters/http/server.h"

namespace trimtab::cluster {

struct PortForwardTarget {
  std::string ns;
  std::string name;
  std::string uid;
  std::string ip;  // the pod's IP: where its ports are reached
};

class PortForwarder {
 public:
  PortForwarder();   // starts the I/O thread
  ~PortForwarder();  // closes every forwarded connection and joins the thread
  PortForwarder(const PortForwarder&) = delete;
  PortForwarder& operator=(const PortForwarder&) = delete;

  // The upgrade response serving `request` (a WebSocket or SPDY upgrade asking for
  // portforward.k8s.io) for `target`; nullopt when the request asks for neither.
  std::optional<http::HttpResponse> Upgrade(const http::HttpRequest& request,
                                            PortForwardTarget target);

  class Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace trimtab::cluster
