#include "dashboard/cluster_watch.h"

#include "operator/controller_shared/kube_resources.h"

namespace trimtab::dashboard {
namespace {

kube::GroupVersionResource PodGroups() {
  return {"scheduling.volcano.sh", "v1beta1", "podgroups", true};
}
kube::GroupVersionResource Queues() { return {"scheduling.volcano.sh", "v1beta1", "queues", false}; }
kube::GroupVersionResource Hpas() {
  return {"autoscaling", "v2", "horizontalpodautoscalers", true};
}

}  // namespace

StatusOr<std::unique_ptr<ClusterWatch>> ClusterWatch::Create(ClusterWatchOptions options) {
  if (options.client == nullptr) return InvalidArgumentError("dashboard: client is required");
  std::unique_ptr<ClusterWatch> w(new ClusterWatch(std::move(options)));
  TRIMTAB_RETURN_IF_ERROR(w->Add(op::FlinkDeploymentsResource(), "flinkdeployments",
                                 &ClusterView::flink_deployments, ""));
  TRIMTAB_RETURN_IF_ERROR(w->Add(op::FlinkSessionJobsResource(), "flinksessionjobs",
                                 &ClusterView::session_jobs, ""));
  TRIMTAB_RETURN_IF_ERROR(w->Add(kube::ConfigMapsResource(), "configmaps",
                                 &ClusterView::state_configmaps, "component=autoscaler"));
  TRIMTAB_RETURN_IF_ERROR(w->Add(PodGroups(), "podgroups", &ClusterView::pod_groups, ""));
  TRIMTAB_RETURN_IF_ERROR(w->Add(Queues(), "queues", &ClusterView::queues, ""));
  TRIMTAB_RETURN_IF_ERROR(
      w->Add(Hpas(), "horizontalpodautoscalers", &ClusterView::hpas, ""));
  return w;
}

Status ClusterWatch::Add(const kube::GroupVersionResource& gvr, const std::string& kind,
                         std::vector<Json> ClusterView::*list, const std::string& label_selector) {
  std::vector<std::string> namespaces = options_.namespaces;
  if (namespaces.empty() || !gvr.namespaced) namespaces = {""};
  for (const std::string& ns : namespaces) {
    TRIMTAB_ASSIGN_OR_RETURN(
        std::unique_ptr<kube::Informer> informer,
        kube::Informer::Create(options_.client, {.gvr = gvr,
                                                 .namespace_name = ns,
                                                 .label_selector = label_selector,
                                                 .max_backoff = std::chrono::seconds(60)}));
    informer->AddEventHandler({.on_add = [this](const Json&) { Bump(); },
                               .on_update = [this](const Json&, const Json&) { Bump(); },
                               .on_delete = [this](const Json&) { Bump(); }});
    watched_.push_back({kind, list, std::move(informer)});
  }
  return Status::Ok();
}

ClusterWatch::~ClusterWatch() { Stop(); }

void ClusterWatch::Start() {
  for (Watched& w : watched_) {
    kube::Informer* informer = w.informer.get();
    threads_.emplace_back([informer] { informer->Run(); });
  }
}

void ClusterWatch::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
  }
  changed_.notify_all();
  for (Watched& w : watched_) w.informer->Stop();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

void ClusterWatch::Bump() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++revision_;
  }
  changed_.notify_all();
}

uint64_t ClusterWatch::WaitForChange(uint64_t seen, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait_for(lock, timeout, [&] { return stopped_ || revision_.load() != seen; });
  return revision_.load();
}

ClusterView ClusterWatch::Snapshot() const {
  ClusterView view;
  for (const Watched& w : watched_) {
    const bool synced = w.informer->HasSynced();
    auto [it, inserted] = view.readable.try_emplace(w.kind, synced);
    if (!inserted) it->second = it->second && synced;
    const kube::ObjectStore& store = w.informer->store();
    StatusOr<std::vector<Json>> items = store.List(store.gvr(), "", {});
    if (!items.ok()) continue;
    std::vector<Json>& list = view.*(w.list);
    for (Json& item : *items) list.push_back(std::move(item));
  }
  return view;
}

}  // namespace trimtab::dashboard
