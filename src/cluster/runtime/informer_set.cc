#include "cluster/runtime/informer_set.h"

#include <nlohmann/json.hpp>

namespace trimtab::cluster::runtime {

InformerSet::~InformerSet() { Stop(); }

kube::Informer* InformerSet::Get(const kube::GroupVersionResource& gvr) {
  auto it = informers_.find(gvr.String());
  if (it != informers_.end()) return it->second.get();
  auto informer = kube::Informer::Create(
      client_, kube::InformerOptions{.gvr = gvr,
                                     .initial_backoff = std::chrono::milliseconds(200),
                                     .max_backoff = std::chrono::seconds(5)});
  if (!informer.ok()) return nullptr;  // only invalid options fail; ours are fixed
  kube::Informer* out = informer->get();
  informers_.emplace(gvr.String(), std::move(informer).value());
  return out;
}

const kube::ObjectStore& InformerSet::Store(const kube::GroupVersionResource& gvr) {
  return Get(gvr)->store();
}

Status InformerSet::Start(std::chrono::milliseconds sync_timeout) {
  for (auto& [name, informer] : informers_) {
    kube::Informer* i = informer.get();
    threads_.emplace_back([i] { i->Run(); });
  }
  for (auto& [name, informer] : informers_) {
    if (!informer->WaitForSync(sync_timeout)) {
      return UnavailableError("runtime: the " + name + " informer did not sync within " +
                              std::to_string(sync_timeout.count()) + " ms");
    }
  }
  return Status::Ok();
}

void InformerSet::Stop() {
  for (auto& [name, informer] : informers_) informer->Stop();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

}  // namespace trimtab::cluster::runtime
