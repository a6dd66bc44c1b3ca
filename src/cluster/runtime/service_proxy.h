// ServiceProxy: kube-proxy for the local cluster in userspace. For every Service with a
// clusterIP and every TCP port it listens on clusterIP:port (all of 127.0.0.0/8 reaches
// loopback, so no setup is needed) and forwards each accepted connection to one of the
// Service's ready endpoints (from its Endpoints object), round robin, copying bytes both ways
// until either side closes. Listeners follow Service and Endpoints changes.
//
// Differences from kube-proxy: no UDP/SCTP, no NodePort/LoadBalancer/externalIPs, no session
// affinity; a connection to a Service without ready endpoints is accepted and closed at once
// (kube-proxy rejects it); ports below 1024 need the privilege to bind them. A listener that
// cannot bind (the address held by another process, no privilege) is an error: logged at error
// level, reported by BindErrors() and retried; meanwhile the Service's clients reach whatever
// holds the address.
//
// Threading: `threads` Asio I/O threads; informer handlers only schedule a reconcile.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cluster/runtime/informer_set.h"
#include "common/status.h"

namespace trimtab::cluster::runtime {

struct ServiceProxyOptions {
  int threads = 2;
  // How often listeners that failed to bind are retried (real time).
  std::chrono::milliseconds retry_interval{2000};
};

class ServiceProxy {
 public:
  ServiceProxy(InformerSet* informers, ServiceProxyOptions options = {});
  ~ServiceProxy();  // Stop()s

  Status Start();
  void Stop();

  // "127.10.0.1:80" for every listener currently open (tests).
  std::vector<std::string> ListenersForTest() const;
  // "127.10.0.1:80" -> why, for every Service address that cannot be served right now.
  std::map<std::string, std::string> BindErrors() const;

  class Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace trimtab::cluster::runtime
