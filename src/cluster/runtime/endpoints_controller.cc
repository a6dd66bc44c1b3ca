#include "cluster/runtime/endpoints_controller.h"

#include <algorithm>
#include <cctype>
#include <map>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "cluster/runtime/object_util.h"
#include "cluster/runtime/resources.h"
#include "common/label_selector.h"

namespace trimtab::cluster::runtime {
namespace {

std::optional<LabelSelector> ServiceSelector(const Json& svc) {
  const Json& sel = At(svc, {"spec", "selector"});
  if (!sel.is_object() || sel.empty()) return std::nullopt;
  LabelMap set;
  for (auto& [k, v] : sel.items()) set[k] = v.is_string() ? v.get<std::string>() : v.dump();
  auto parsed = LabelSelector::FromSet(set);
  if (!parsed.ok()) return std::nullopt;
  return *parsed;
}

// The pod's port for a service port's targetPort (int, or a containerPort name).
std::optional<int64_t> ResolvePort(const Json& pod, const Json& service_port) {
  const Json& target = At(service_port, {"targetPort"});
  if (target.is_number_integer()) return target.get<int64_t>();
  if (!target.is_string()) return Int(service_port, {"port"});
  const std::string name = target.get<std::string>();
  if (!name.empty() && std::all_of(name.begin(), name.end(), ::isdigit)) return std::stoll(name);
  const std::string protocol = Str(service_port, {"protocol"}, "TCP");
  const Json& containers = At(pod, {"spec", "containers"});
  if (containers.is_array()) {
    for (const Json& c : containers) {
      const Json& ports = At(c, {"ports"});
      if (!ports.is_array()) continue;
      for (const Json& p : ports) {
        if (Str(p, {"name"}) == name && Str(p, {"protocol"}, "TCP") == protocol) {
          return Int(p, {"containerPort"});
        }
      }
    }
  }
  return std::nullopt;
}

// Whether every key=value of the Service's spec.selector (non-empty) is a label of the pod, as
// ServiceSelector(svc)->Matches would say, without building the selector.
bool SelectsPod(const Json& svc, const Json& pod) {
  const Json& sel = At(svc, {"spec", "selector"});
  if (!sel.is_object() || sel.empty()) return false;
  const Json& labels = At(pod, {"metadata", "labels"});
  if (!labels.is_object()) return false;
  for (const auto& [k, v] : sel.items()) {
    const auto it = labels.find(k);
    if (it == labels.end() || !it->is_string()) return false;
    if (v.is_string() ? *it != v : it->get_ref<const std::string&>() != v.dump()) return false;
  }
  return true;
}

// The EndpointSlices this controller manages for Service `name` (labels service-name and
// managed-by), from the label index.
std::vector<kube::ObjectPtr> ManagedSlices(InformerSet* informers, const std::string& ns,
                                           const std::string& name) {
  auto selector = LabelSelector::FromSet({{std::string(kServiceNameLabel), name},
                                          {std::string(kManagedByLabel), std::string(kSliceControllerName)}});
  if (!selector.ok()) {  // a Service name is always a valid label value; scan if not
    std::vector<kube::ObjectPtr> out;
    for (kube::ObjectPtr& s : informers->Store(EndpointSlicesGvr()).ListShared(ns)) {
      if (Str(*s, {"metadata", "labels", std::string(kServiceNameLabel)}) == name &&
          Str(*s, {"metadata", "labels", std::string(kManagedByLabel)}) == kSliceControllerName) {
        out.push_back(std::move(s));
      }
    }
    return out;
  }
  return informers->Store(EndpointSlicesGvr()).ListShared(ns, {.labels = *selector});
}

struct PodEndpoint {
  Json pod;
  bool ready = false;
  bool terminating = false;
  Json ports = Json::array();  // [{name, port, protocol}] resolved for this pod
};

Json TargetRef(const Json& pod) {
  return {{"kind", "Pod"},
          {"namespace", Str(pod, {"metadata", "namespace"})},
          {"name", Str(pod, {"metadata", "name"})},
          {"uid", Str(pod, {"metadata", "uid"})}};
}

Json Address(const Json& pod) {
  Json a = {{"ip", Str(pod, {"status", "podIP"})}, {"targetRef", TargetRef(pod)}};
  if (std::string node = Str(pod, {"spec", "nodeName"}); !node.empty()) a["nodeName"] = node;
  return a;
}

bool ByIp(const Json& a, const Json& b) { return a.value("ip", "") < b.value("ip", ""); }

// EndpointSlice ports as the real controller writes them: `name` is always present (a pointer
// set to "" for an unnamed Service port; `kubectl describe svc` dereferences it), unlike the
// Endpoints ports, where an empty name is omitted.
Json SlicePorts(const Json& ports) {
  Json out = ports;
  for (Json& p : out) {
    if (!p.contains("name")) p["name"] = "";
  }
  return out;
}

}  // namespace

EndpointsController::EndpointsController(const kube::KubeClient* client, InformerSet* informers,
                                         Clock* clock, int workers)
    : client_(client),
      informers_(informers),
      clock_(clock),
      controller_("endpoints-controller", clock, workers,
                  [this](const std::string& key) { return Sync(key); }) {
  auto enqueue = [this](const Json& svc) { controller_.Enqueue(kube::ObjectKey(svc)); };
  informers_->Get(ServicesGvr())->AddEventHandler(
      {.on_add = enqueue,
       .on_update = [enqueue](const Json&, const Json& s) { enqueue(s); },
       .on_delete = enqueue});
  informers_->Get(PodsGvr())->AddEventHandler(
      {.on_add = [this](const Json& p) { EnqueueServicesOf(p); },
       .on_update = [this](const Json& o, const Json& n) {
         EnqueueServicesOf(n);
         if (kube::ObjectLabels(o) != kube::ObjectLabels(n)) EnqueueServicesOf(o);
       },
       .on_delete = [this](const Json& p) { EnqueueServicesOf(p); }});
  // Keep what we manage as it should be when someone edits or deletes it.
  auto owner = [this](const Json& obj) {
    std::string svc = Str(obj, {"metadata", "labels", std::string(kServiceNameLabel)});
    if (svc.empty()) svc = Str(obj, {"metadata", "name"});
    controller_.Enqueue(Str(obj, {"metadata", "namespace"}) + "/" + svc);
  };
  informers_->Get(EndpointsGvr())->AddEventHandler({.on_delete = owner});
  auto managed_slice = [owner](const Json& slice) {
    if (Str(slice, {"metadata", "labels", std::string(kManagedByLabel)}) == kSliceControllerName) {
      owner(slice);
    }
  };
  informers_->Get(EndpointSlicesGvr())->AddEventHandler(
      {.on_add = managed_slice,
       .on_update = [managed_slice](const Json&, const Json& s) { managed_slice(s); },
       .on_delete = owner});
}

std::vector<std::string> EndpointsController::UnseenSlices(const std::string& ns,
                                                           const std::string& service) {
  constexpr Duration kForgetAfter = std::chrono::minutes(1);
  std::lock_guard lock(created_mu_);
  auto it = created_.find(ns + "/" + service);
  if (it == created_.end()) return {};
  std::vector<std::string> unseen;
  const TimePoint now = clock_->Now();
  for (auto slice = it->second.begin(); slice != it->second.end();) {
    bool seen = informers_->Store(EndpointSlicesGvr()).GetByKey(ns + "/" + slice->first).has_value();
    if (seen || now - slice->second > kForgetAfter) {
      slice = it->second.erase(slice);
    } else {
      unseen.push_back(slice->first);
      ++slice;
    }
  }
  if (it->second.empty()) created_.erase(it);
  return unseen;
}

void EndpointsController::RememberCreated(const std::string& ns, const std::string& service,
                                          const std::string& slice) {
  std::lock_guard lock(created_mu_);
  created_[ns + "/" + service][slice] = clock_->Now();
}

void EndpointsController::EnqueueServicesOf(const Json& pod) {
  const std::string ns = Str(pod, {"metadata", "namespace"});
  for (const kube::ObjectPtr& svc : informers_->Store(ServicesGvr()).ListShared(ns)) {
    if (SelectsPod(*svc, pod)) controller_.Enqueue(kube::ObjectKey(*svc));
  }
}

Result EndpointsController::Sync(const std::string& key) {
  auto [ns, name] = kube::SplitObjectKey(key);
  auto svc = informers_->Store(ServicesGvr()).GetByKey(key);
  if (!svc) {
    Status s = DeleteAll(ns, name);
    return s.ok() ? Result::Done() : Result::Retry(s.ToString());
  }
  auto selector = ServiceSelector(*svc);
  if (!selector) return Result::Done();  // no selector: Endpoints are managed by the user
  const bool publish_not_ready = Bool(*svc, {"spec", "publishNotReadyAddresses"});
  const Json& svc_ports = At(*svc, {"spec", "ports"});

  std::vector<PodEndpoint> endpoints;
  for (const kube::ObjectPtr& selected :
       informers_->Store(PodsGvr()).ListShared(ns, {.labels = *selector})) {
    const Json& pod = *selected;
    if (Str(pod, {"status", "podIP"}).empty() || IsPodTerminal(pod)) continue;
    PodEndpoint e;
    e.pod = pod;
    e.terminating = IsDeleting(pod);
    e.ready = IsPodReady(pod) && !e.terminating;
    if (svc_ports.is_array()) {
      for (const Json& sp : svc_ports) {
        auto port = ResolvePort(pod, sp);
        if (!port) continue;
        Json p = {{"port", *port}, {"protocol", Str(sp, {"protocol"}, "TCP")}};
        if (std::string n = Str(sp, {"name"}); !n.empty()) p["name"] = n;
        e.ports.push_back(std::move(p));
      }
      if (e.ports.empty() && !svc_ports.empty()) continue;  // no port resolves on this pod
    }
    endpoints.push_back(std::move(e));
  }

  // Endpoints: subsets by port set, terminating pods left out.
  std::map<std::string, Json> subsets;  // ports dump -> subset
  for (const PodEndpoint& e : endpoints) {
    if (e.terminating && !publish_not_ready) continue;
    Json& subset = subsets[e.ports.dump()];
    if (subset.is_null()) {
      subset = {{"ports", e.ports}};
    }
    const char* list = (e.ready || publish_not_ready) ? "addresses" : "notReadyAddresses";
    subset[list].push_back(Address(e.pod));
  }
  Json subset_list = Json::array();
  for (auto& [ports, subset] : subsets) {
    for (const char* list : {"addresses", "notReadyAddresses"}) {
      if (subset.contains(list)) std::sort(subset[list].begin(), subset[list].end(), ByIp);
    }
    if (subset["ports"].empty()) subset.erase("ports");
    subset_list.push_back(std::move(subset));
  }
  Status s = SyncEndpoints(*svc, subset_list);
  if (!s.ok()) return Result::Retry(s.ToString());

  // EndpointSlices: one per port set.
  std::map<std::string, Json> slices;
  for (const PodEndpoint& e : endpoints) {
    Json& slice = slices[e.ports.dump()];
    if (slice.is_null()) slice = {{"ports", SlicePorts(e.ports)}, {"endpoints", Json::array()}};
    Json ep = {{"addresses", Json::array({Str(e.pod, {"status", "podIP"})})},
               {"conditions",
                {{"ready", e.ready || (publish_not_ready && !e.terminating)},
                 {"serving", IsPodReady(e.pod) || publish_not_ready},
                 {"terminating", e.terminating}}},
               {"targetRef", TargetRef(e.pod)}};
    if (std::string node = Str(e.pod, {"spec", "nodeName"}); !node.empty()) ep["nodeName"] = node;
    slice["endpoints"].push_back(std::move(ep));
  }
  Json desired = Json::array();
  for (auto& [ports, slice] : slices) {
    std::sort(slice["endpoints"].begin(), slice["endpoints"].end(), [](const Json& a, const Json& b) {
      return a["addresses"][0] < b["addresses"][0];
    });
    desired.push_back(std::move(slice));
  }
  if (desired.empty()) {
    Json ports = Json::array();
    if (svc_ports.is_array()) {
      for (const Json& sp : svc_ports) {
        Json p = {{"protocol", Str(sp, {"protocol"}, "TCP")}};
        p["name"] = Str(sp, {"name"});
        ports.push_back(std::move(p));
      }
    }
    desired.push_back({{"ports", ports}, {"endpoints", Json::array()}});
  }
  if (std::vector<std::string> unseen = UnseenSlices(ns, name); !unseen.empty()) {
    // The cache has not caught up with our own create; syncing now would duplicate the slice.
    return Result::After(std::chrono::milliseconds(100));
  }
  s = SyncSlices(*svc, desired);
  return s.ok() ? Result::Done() : Result::Retry(s.ToString());
}

Status EndpointsController::SyncEndpoints(const Json& svc, const Json& subsets) {
  const std::string ns = Str(svc, {"metadata", "namespace"});
  const std::string name = Str(svc, {"metadata", "name"});
  Json labels = At(svc, {"metadata", "labels"});
  if (!labels.is_object()) labels = Json::object();
  if (Str(svc, {"spec", "clusterIP"}) == "None") labels["service.kubernetes.io/headless"] = "";
  auto current = informers_->Store(EndpointsGvr()).GetByKey(ns + "/" + name);
  Json want_subsets = subsets;
  if (current) {
    Json have = At(*current, {"subsets"});
    if (!have.is_array()) have = Json::array();
    if (have == want_subsets && At(*current, {"metadata", "labels"}) == labels) return Status::Ok();
    Json patch = {{"metadata", {{"labels", labels}}}, {"subsets", want_subsets}};
    auto r = client_->Patch(EndpointsGvr(), ns, name, kube::PatchType::kMerge, patch.dump());
    if (r.ok() || r.status().code() != StatusCode::kNotFound) return r.status();
  }
  Json ep = {{"apiVersion", "v1"},
             {"kind", "Endpoints"},
             {"metadata", {{"name", name}, {"namespace", ns}, {"labels", labels}}},
             {"subsets", want_subsets}};
  auto created = client_->Create(EndpointsGvr(), ns, ep);
  if (created.ok() || created.status().code() == StatusCode::kAlreadyExists ||
      created.status().code() == StatusCode::kPermissionDenied) {
    return Status::Ok();  // exists (the next event syncs it) or the namespace is going away
  }
  return created.status();
}

Status EndpointsController::SyncSlices(const Json& svc, const Json& desired) {
  const std::string ns = Str(svc, {"metadata", "namespace"});
  const std::string name = Str(svc, {"metadata", "name"});
  std::vector<Json> mine;
  for (const kube::ObjectPtr& s : ManagedSlices(informers_, ns, name)) {
    if (!IsDeleting(*s)) mine.push_back(*s);
  }
  std::vector<bool> used(mine.size(), false);
  for (const Json& want : desired) {
    // Reuse a slice with the same ports, else any unused one, else create.
    int pick = -1;
    for (size_t i = 0; i < mine.size(); ++i) {
      if (!used[i] && At(mine[i], {"ports"}) == want["ports"]) pick = static_cast<int>(i);
    }
    for (size_t i = 0; pick < 0 && i < mine.size(); ++i) {
      if (!used[i]) pick = static_cast<int>(i);
    }
    if (pick >= 0) {
      used[static_cast<size_t>(pick)] = true;
      const Json& have = mine[static_cast<size_t>(pick)];
      if (At(have, {"ports"}) == want["ports"] && At(have, {"endpoints"}) == want["endpoints"]) {
        continue;
      }
      Json patch = {{"ports", want["ports"]}, {"endpoints", want["endpoints"]}};
      auto r = client_->Patch(EndpointSlicesGvr(), ns, Str(have, {"metadata", "name"}),
                              kube::PatchType::kMerge, patch.dump());
      if (!r.ok() && r.status().code() != StatusCode::kNotFound) return r.status();
      continue;
    }
    Json slice = {{"apiVersion", "discovery.k8s.io/v1"},
                  {"kind", "EndpointSlice"},
                  {"metadata",
                   {{"generateName", name + "-"},
                    {"namespace", ns},
                    {"labels", {{std::string(kServiceNameLabel), name},
                                {std::string(kManagedByLabel), std::string(kSliceControllerName)}}},
                    {"ownerReferences", Json::array({ControllerRefTo(svc)})}}},
                  {"addressType", "IPv4"},
                  {"ports", want["ports"]},
                  {"endpoints", want["endpoints"]}};
    auto created = client_->Create(EndpointSlicesGvr(), ns, slice);
    if (created.ok()) {
      RememberCreated(ns, name, Str(*created, {"metadata", "name"}));
    } else if (created.status().code() != StatusCode::kPermissionDenied) {
      return created.status();
    }
  }
  for (size_t i = 0; i < mine.size(); ++i) {
    if (used[i]) continue;
    Status s = client_->Delete(EndpointSlicesGvr(), ns, Str(mine[i], {"metadata", "name"}));
    if (!s.ok() && s.code() != StatusCode::kNotFound) return s;
  }
  return Status::Ok();
}

Status EndpointsController::DeleteAll(const std::string& ns, const std::string& name) {
  if (informers_->Store(EndpointsGvr()).GetByKey(ns + "/" + name)) {
    Status s = client_->Delete(EndpointsGvr(), ns, name);
    if (!s.ok() && s.code() != StatusCode::kNotFound) return s;
  }
  for (const kube::ObjectPtr& s : ManagedSlices(informers_, ns, name)) {
    Status d = client_->Delete(EndpointSlicesGvr(), ns, Str(*s, {"metadata", "name"}));
    if (!d.ok() && d.code() != StatusCode::kNotFound) return d;
  }
  return Status::Ok();
}

}  // namespace trimtab::cluster::runtime
