#include "cluster/runtime/service_proxy.h"

#include <array>
#include <atomic>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <boost/asio.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "cluster/runtime/object_util.h"
#include "cluster/runtime/resources.h"

namespace trimtab::cluster::runtime {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

// One proxied connection: bytes copied both ways; a side that ends half-closes the other.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket client, asio::io_context& io) : client_(std::move(client)), upstream_(io) {}

  void Start(const tcp::endpoint& backend) {
    auto self = shared_from_this();
    upstream_.async_connect(backend, [self](const boost::system::error_code& ec) {
      if (ec) {
        self->CloseBoth();
        return;
      }
      self->Pump(self->client_, self->upstream_, self->to_upstream_);
      self->Pump(self->upstream_, self->client_, self->to_client_);
    });
  }

 private:
  using Buffer = std::array<char, 16384>;

  void Pump(tcp::socket& from, tcp::socket& to, Buffer& buf) {
    auto self = shared_from_this();
    from.async_read_some(asio::buffer(buf), [self, &from, &to, &buf](
                                                const boost::system::error_code& ec, size_t n) {
      if (ec) {
        boost::system::error_code ignored;
        if (ec == asio::error::eof) {
          to.shutdown(tcp::socket::shutdown_send, ignored);
        } else {
          self->CloseBoth();
        }
        return;
      }
      asio::async_write(to, asio::buffer(buf.data(), n),
                        [self, &from, &to, &buf](const boost::system::error_code& wec, size_t) {
                          if (wec) {
                            self->CloseBoth();
                            return;
                          }
                          self->Pump(from, to, buf);
                        });
    });
  }

  void CloseBoth() {
    boost::system::error_code ignored;
    client_.close(ignored);
    upstream_.close(ignored);
  }

  tcp::socket client_;
  tcp::socket upstream_;
  Buffer to_upstream_;
  Buffer to_client_;
};

struct Target {
  std::string service;    // "ns/name"
  std::string port_name;  // the Service port's name ("" when unnamed)
  bool operator==(const Target&) const = default;
};

}  // namespace

class ServiceProxy::Impl : public std::enable_shared_from_this<Impl> {
 public:
  Impl(InformerSet* informers, ServiceProxyOptions options)
      : informers_(informers),
        options_(options),
        work_(asio::make_work_guard(io_)),
        strand_(asio::make_strand(io_)),
        timer_(strand_) {}

  void Start() {
    for (int i = 0; i < std::max(1, options_.threads); ++i) {
      threads_.emplace_back([this] { io_.run(); });
    }
    ScheduleReconcile();
    ArmTimer();
  }

  void Stop() {
    std::promise<void> closed;
    auto done = closed.get_future();
    asio::post(strand_, [this, &closed] {
      stopping_ = true;
      timer_.cancel();
      for (auto& [key, listener] : listeners_) {
        boost::system::error_code ignored;
        listener->acceptor.close(ignored);
      }
      listeners_.clear();
      closed.set_value();
    });
    if (!threads_.empty()) done.wait_for(std::chrono::seconds(2));
    work_.reset();
    io_.stop();
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
    threads_.clear();
  }

  void ScheduleReconcile() {
    if (pending_.exchange(true)) return;
    auto self = shared_from_this();
    asio::post(strand_, [self] {
      self->pending_ = false;
      self->Reconcile();
    });
  }

  std::map<std::string, std::string> BindErrors() const {
    std::lock_guard<std::mutex> lock(mu_);
    return bind_errors_;
  }
  std::vector<std::string> Listeners() const {
    std::lock_guard<std::mutex> lock(mu_);
    return std::vector<std::string>(open_.begin(), open_.end());
  }

 private:
  struct Listener {
    explicit Listener(asio::strand<asio::io_context::executor_type>& strand) : acceptor(strand) {}
    tcp::acceptor acceptor;
    std::string key;  // "ip:port"
  };

  void ArmTimer() {
    auto self = shared_from_this();
    asio::post(strand_, [self] {
      if (self->stopping_) return;
      self->timer_.expires_after(self->options_.retry_interval);
      self->timer_.async_wait([self](const boost::system::error_code& ec) {
        if (ec || self->stopping_) return;
        self->Reconcile();
        self->ArmTimer();
      });
    });
  }

  // On the strand.
  void Reconcile() {
    if (stopping_) return;
    auto services = informers_->Store(ServicesGvr()).List(ServicesGvr(), "", {});
    auto endpoints = informers_->Store(EndpointsGvr()).List(EndpointsGvr(), "", {});
    if (!services.ok() || !endpoints.ok()) return;
    std::map<std::string, Target> wanted;  // "ip:port" -> target
    for (const Json& svc : *services) {
      const std::string ip = Str(svc, {"spec", "clusterIP"});
      if (ip.empty() || ip == "None" || Str(svc, {"spec", "type"}) == "ExternalName") continue;
      const Json& ports = At(svc, {"spec", "ports"});
      if (!ports.is_array()) continue;
      for (const Json& p : ports) {
        if (Str(p, {"protocol"}, "TCP") != "TCP") continue;
        wanted[ip + ":" + std::to_string(Int(p, {"port"}))] =
            Target{kube::ObjectKey(svc), Str(p, {"name"})};
      }
    }
    std::map<std::string, std::vector<tcp::endpoint>> backends;
    for (const Json& ep : *endpoints) {
      const std::string svc = kube::ObjectKey(ep);
      const Json& subsets = At(ep, {"subsets"});
      if (!subsets.is_array()) continue;
      for (const Json& subset : subsets) {
        const Json& addrs = At(subset, {"addresses"});
        const Json& ports = At(subset, {"ports"});
        if (!addrs.is_array() || !ports.is_array()) continue;
        for (const Json& port : ports) {
          if (Str(port, {"protocol"}, "TCP") != "TCP") continue;
          auto& list = backends[svc + "|" + Str(port, {"name"})];
          for (const Json& a : addrs) {
            boost::system::error_code ec;
            auto address = asio::ip::make_address_v4(Str(a, {"ip"}), ec);
            if (!ec) list.emplace_back(address, static_cast<uint16_t>(Int(port, {"port"})));
          }
        }
      }
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      backends_ = std::move(backends);
      targets_.clear();
      for (const auto& [key, target] : wanted) targets_[key] = target;
    }
    // Close listeners no Service wants any more.
    for (auto it = listeners_.begin(); it != listeners_.end();) {
      if (wanted.count(it->first)) {
        ++it;
        continue;
      }
      boost::system::error_code ignored;
      it->second->acceptor.close(ignored);
      {
        std::lock_guard<std::mutex> lock(mu_);
        open_.erase(it->first);
      }
      it = listeners_.erase(it);
    }
    // Open the missing ones.
    for (const auto& [key, target] : wanted) {
      if (listeners_.count(key)) continue;
      auto listener = std::make_shared<Listener>(strand_);
      listener->key = key;
      const std::string ip = key.substr(0, key.rfind(':'));
      const auto port = static_cast<uint16_t>(std::stoi(key.substr(key.rfind(':') + 1)));
      boost::system::error_code ec;
      tcp::endpoint endpoint(asio::ip::make_address_v4(ip, ec), port);
      if (!ec) listener->acceptor.open(endpoint.protocol(), ec);
      if (!ec) listener->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
      if (!ec) listener->acceptor.bind(endpoint, ec);
      if (!ec) listener->acceptor.listen(asio::socket_base::max_listen_connections, ec);
      if (ec) {
        // An error, not a warning (issue 27): whoever holds the address answers the Service's
        // clients instead of its endpoints, so the operator would talk to a stranger's Flink.
        const std::string why = ec == asio::error::address_in_use
                                    ? ec.message() + " (held by another process)"
                                    : ec.message();
        std::lock_guard<std::mutex> lock(mu_);
        if (bind_errors_[key] != why) {
          spdlog::error("service proxy: cannot serve service {} on {}: {}; its clients reach "
                        "whatever holds the address until it is free (retrying)",
                        target.service, key, why);
          bind_errors_[key] = why;
        }
        continue;
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        bind_errors_.erase(key);
      }
      listeners_[key] = listener;
      {
        std::lock_guard<std::mutex> lock(mu_);
        open_.insert(key);
      }
      Accept(listener);
    }
  }

  void Accept(std::shared_ptr<Listener> listener) {
    auto self = shared_from_this();
    listener->acceptor.async_accept(
        io_, [self, listener](const boost::system::error_code& ec, tcp::socket socket) {
          if (ec) {
            if (ec == asio::error::operation_aborted || !listener->acceptor.is_open()) return;
            self->Accept(listener);
            return;
          }
          auto backend = self->PickBackend(listener->key);
          if (backend) {
            std::make_shared<Session>(std::move(socket), self->io_)->Start(*backend);
          } else {
            boost::system::error_code ignored;
            socket.close(ignored);  // no ready endpoint
          }
          self->Accept(listener);
        });
  }

  std::optional<tcp::endpoint> PickBackend(const std::string& listener_key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto target = targets_.find(listener_key);
    if (target == targets_.end()) return std::nullopt;
    const std::string key = target->second.service + "|" + target->second.port_name;
    auto it = backends_.find(key);
    if (it == backends_.end() || it->second.empty()) return std::nullopt;
    size_t& next = round_robin_[key];
    const tcp::endpoint& chosen = it->second[next % it->second.size()];
    next = (next + 1) % it->second.size();
    return chosen;
  }

  InformerSet* informers_;
  const ServiceProxyOptions options_;
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  asio::strand<asio::io_context::executor_type> strand_;
  asio::steady_timer timer_;
  std::vector<std::thread> threads_;
  std::atomic<bool> pending_{false};

  // Strand only.
  bool stopping_ = false;
  std::map<std::string, std::shared_ptr<Listener>> listeners_;
  std::map<std::string, std::string> bind_errors_;  // "ip:port" -> why; guarded by mu_

  mutable std::mutex mu_;
  std::map<std::string, std::vector<tcp::endpoint>> backends_;  // guarded by mu_
  std::map<std::string, Target> targets_;                       // guarded by mu_
  std::map<std::string, size_t> round_robin_;                   // guarded by mu_
  std::set<std::string> open_;                                  // guarded by mu_
};

ServiceProxy::ServiceProxy(InformerSet* informers, ServiceProxyOptions options)
    : impl_(std::make_shared<Impl>(informers, options)) {
  auto impl = impl_;
  auto changed = [impl](const Json&) { impl->ScheduleReconcile(); };
  kube::EventHandler handler{
      .on_add = changed,
      .on_update = [impl](const Json&, const Json&) { impl->ScheduleReconcile(); },
      .on_delete = changed};
  informers->Get(ServicesGvr())->AddEventHandler(handler);
  informers->Get(EndpointsGvr())->AddEventHandler(handler);
}

ServiceProxy::~ServiceProxy() { Stop(); }

Status ServiceProxy::Start() {
  impl_->Start();
  return Status::Ok();
}

void ServiceProxy::Stop() { impl_->Stop(); }

std::vector<std::string> ServiceProxy::ListenersForTest() const { return impl_->Listeners(); }
std::map<std::string, std::string> ServiceProxy::BindErrors() const { return impl_->BindErrors(); }

}  // namespace trimtab::cluster::runtime
