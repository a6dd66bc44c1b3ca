#include "cluster/runtime/hpa_controller.h"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "adapters/http/client.h"
#include "adapters/kube/api_errors.h"
#include "cluster/runtime/object_util.h"
#include "cluster/runtime/resources.h"
#include "common/duration.h"
#include "common/label_selector.h"
#include "core/hpa/decision_json.h"
#include "core/hpa/spec_json.h"

namespace trimtab::cluster::runtime {
namespace {

constexpr char kComponent[] = "horizontal-pod-autoscaler";
constexpr char kUnableToCompute[] = "the HPA was unable to compute the replica count: ";
constexpr char kHistoryKey[] = "state.json";
constexpr auto kMappingTtl = std::chrono::seconds(30);

using core::hpa::Observations;

std::string Query(const std::string& name, const std::string& value) {
  return value.empty() ? "" : name + "=" + http::UrlEncode(value);
}

std::string WithQuery(std::string path, const std::vector<std::string>& params) {
  char sep = '?';
  for (const std::string& p : params) {
    if (p.empty()) continue;
    path += sep + p;
    sep = '&';
  }
  return path;
}

// GET of a JSON document over the client; non-2xx answers become errors carrying the Status
// message (what upstream's clients print).
StatusOr<Json> GetJson(const kube::KubeClient& client, const std::string& path) {
  http::ClientRequest request{.url = path};
  request.headers.emplace_back("Accept", "application/json");
  TRIMTAB_ASSIGN_OR_RETURN(http::ClientResponse response, client.Raw(request));
  Json body = Json::parse(response.body, nullptr, false);
  if (response.status / 100 != 2) {
    std::string message = body.is_object() ? body.value("message", response.body) : response.body;
    if (response.status == 404) return NotFoundError(message);
    return UnavailableError(message);
  }
  if (!body.is_object()) return UnavailableError("GET " + path + ": not a JSON object");
  return body;
}

std::optional<TimePoint> TimeOf(const Json& v) { return ParseTime(v); }

std::map<std::string, Quantity> Requests(const Json& container) {
  std::map<std::string, Quantity> out;
  const Json& requests = At(container, {"resources", "requests"});
  if (!requests.is_object()) return out;
  for (auto& [name, value] : requests.items()) {
    if (!value.is_string() && !value.is_number()) continue;
    auto q = Quantity::Parse(value.is_string() ? value.get<std::string>() : value.dump());
    if (q.ok()) out[name] = *q;
  }
  return out;
}

core::hpa::PodInfo PodInfoOf(const Json& pod) {
  core::hpa::PodInfo p;
  p.name = Str(pod, {"metadata", "name"});
  const std::string phase = Str(pod, {"status", "phase"});
  p.phase = phase == "Pending"     ? core::hpa::PodPhase::kPending
            : phase == "Running"   ? core::hpa::PodPhase::kRunning
            : phase == "Succeeded" ? core::hpa::PodPhase::kSucceeded
            : phase == "Failed"    ? core::hpa::PodPhase::kFailed
                                   : core::hpa::PodPhase::kUnknown;
  if (const Json* ready = FindCondition(pod, "Ready")) {
    p.ready = ready->value("status", "") == "True";
    p.ready_transition_time = TimeOf(ready->value("lastTransitionTime", Json()));
  }
  p.start_time = TimeOf(At(pod, {"status", "startTime"}));
  p.deleted = IsDeleting(pod);
  for (const Json& c : At(pod, {"spec", "containers"})) {
    p.containers.push_back({c.value("name", ""), Requests(c), false});
  }
  for (const Json& c : At(pod, {"spec", "initContainers"})) {
    if (c.value("restartPolicy", "") == "Always") {
      p.containers.push_back({c.value("name", ""), Requests(c), true});
    }
  }
  return p;
}

// metrics.k8s.io PodMetricsList -> per resource samples.
void AddPodMetrics(const Json& list, Observations* obs) {
  for (const Json& item : At(list, {"items"})) {
    const std::string pod = Str(item, {"metadata", "name"});
    auto ts = TimeOf(item.value("timestamp", Json()));
    std::chrono::seconds window(60);
    if (auto w = ParseGoDuration(item.value("window", "")); w.ok()) {
      window = std::chrono::duration_cast<std::chrono::seconds>(*w);
    }
    std::map<std::string, core::hpa::PodSample> by_resource;
    for (const Json& c : item.value("containers", Json::array())) {
      const Json& usage = c.value("usage", Json::object());
      if (!usage.is_object()) continue;
      for (auto& [resource, value] : usage.items()) {
        if (!value.is_string()) continue;
        auto q = Quantity::Parse(value.get<std::string>());
        if (!q.ok()) continue;
        core::hpa::PodSample& s = by_resource[resource];
        s.pod = pod;
        s.containers[c.value("name", "")] = *q;
      }
    }
    for (auto& [resource, sample] : by_resource) {
      core::hpa::PodSamples& samples = obs->resource[resource];
      if (samples.samples.empty()) {
        samples.timestamp = ts.value_or(TimePoint{});
        samples.window = window;
      }
      samples.samples.push_back(std::move(sample));
    }
  }
}

std::string SelectorString(const std::optional<core::hpa::MetricSelector>& selector) {
  if (!selector) return "";
  auto parsed = LabelSelector::FromJson(core::hpa::MetricSelectorToJson(*selector));
  return parsed.ok() ? parsed->String() : "";
}

// upstream setCondition: lastTransitionTime changes only when the status flips.
void MergeCondition(Json* conditions, const core::hpa::Condition& c, const std::string& now) {
  for (Json& existing : *conditions) {
    if (existing.value("type", "") != c.type) continue;
    if (existing.value("status", "") != c.status) existing["lastTransitionTime"] = now;
    existing["status"] = c.status;
    existing["reason"] = c.reason;
    existing["message"] = c.message;
    return;
  }
  conditions->push_back({{"type", c.type},
                         {"status", c.status},
                         {"lastTransitionTime", now},
                         {"reason", c.reason},
                         {"message", c.message}});
}

void RemoveCondition(Json* conditions, const std::string& type) {
  Json kept = Json::array();
  for (const Json& c : *conditions) {
    if (c.value("type", "") != type) kept.push_back(c);
  }
  *conditions = std::move(kept);
}

}  // namespace

kube::GroupVersionResource HorizontalPodAutoscalersGvr() {
  return {"autoscaling", "v2", "horizontalpodautoscalers", true};
}

std::string HpaHistoryConfigMapName(const std::string& hpa_name) {
  return hpa_name + "-hpa-history";
}

HpaController::HpaController(const kube::KubeClient* client, InformerSet* informers,
                             EventRecorder* events, Clock* clock, HpaControllerOptions options)
    : client_(client),
      informers_(informers),
      events_(events),
      clock_(clock),
      options_(std::move(options)),
      controller_("horizontal-pod-autoscaler", clock, options_.workers,
                  [this](const std::string& key) { return Sync(key); }) {
  informers_->Get(PodsGvr());
  informers_->Get(HorizontalPodAutoscalersGvr())
      ->AddEventHandler(
          {.on_add = [this](const Json& hpa) { controller_.Enqueue(kube::ObjectKey(hpa)); },
           // A spec change (generation bump) is looked at at once; status writes wait for
           // the period.
           .on_update =
               [this](const Json& old_hpa, const Json& hpa) {
                 if (Int(old_hpa, {"metadata", "generation"}) !=
                     Int(hpa, {"metadata", "generation"})) {
                   controller_.Enqueue(kube::ObjectKey(hpa));
                 }
               },
           .on_delete =
               [this](const Json& hpa) {
                 std::lock_guard<std::mutex> lock(mu_);
                 history_.erase(kube::ObjectKey(hpa));
               }});
}

void HpaController::Event(const Json& hpa, const std::string& type, const std::string& reason,
                          const std::string& message) {
  events_->Record(hpa, {.component = kComponent}, type, reason, message);
}

StatusOr<kube::GroupVersionResource> HpaController::Resolve(const std::string& api_version,
                                                            const std::string& kind) {
  size_t slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  const std::string version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
  const std::string cache_key = api_version + "|" + kind;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = mappings_.find(cache_key);
    if (it != mappings_.end() && clock_->Now() - it->second.second < kMappingTtl) {
      return it->second.first;
    }
  }
  const std::string no_match =
      "no matches for kind \"" + kind + "\" in group \"" + group + "\"";
  if (version.empty()) return NotFoundError(no_match);
  auto list = GetJson(*client_, group.empty() ? "/api/" + version : "/apis/" + group + "/" + version);
  if (!list.ok()) {
    if (list.status().code() == StatusCode::kNotFound) return NotFoundError(no_match);
    return list.status();
  }
  for (const Json& r : At(*list, {"resources"})) {
    const std::string name = r.value("name", "");
    if (r.value("kind", "") != kind || name.find('/') != std::string::npos) continue;
    kube::GroupVersionResource gvr{group, version, name, r.value("namespaced", true)};
    std::lock_guard<std::mutex> lock(mu_);
    mappings_[cache_key] = {gvr, clock_->Now()};
    return gvr;
  }
  return NotFoundError(no_match);
}

StatusOr<HpaController::Target> HpaController::GetScale(const Json& hpa) {
  const Json& ref = At(hpa, {"spec", "scaleTargetRef"});
  TRIMTAB_ASSIGN_OR_RETURN(kube::GroupVersionResource gvr,
                           Resolve(ref.value("apiVersion", ""), ref.value("kind", "")));
  TRIMTAB_ASSIGN_OR_RETURN(
      Json scale, GetJson(*client_, kube::ItemPath(gvr, Str(hpa, {"metadata", "namespace"}),
                                                   ref.value("name", ""), "scale")));
  return Target{gvr, std::move(scale)};
}

Observations HpaController::Observe(const Json& hpa, const core::hpa::HpaSpec& spec,
                                    const LabelSelector& selector) {
  Observations obs;
  const std::string ns = Str(hpa, {"metadata", "namespace"});
  obs.namespace_name = ns;
  auto pods = informers_->Store(PodsGvr()).List(PodsGvr(), ns, {.labels = selector});
  if (pods.ok()) {
    for (const Json& pod : *pods) obs.pods.push_back(PodInfoOf(pod));
  }
  const std::string pod_selector = selector.String();
  bool resource_fetched = false;
  for (const core::hpa::MetricSpec& m : spec.metrics) {
    using core::hpa::MetricSourceType;
    switch (m.type) {
      case MetricSourceType::kResource:
      case MetricSourceType::kContainerResource: {
        if (resource_fetched) break;
        resource_fetched = true;
        auto list = GetJson(*client_, WithQuery("/apis/metrics.k8s.io/v1beta1/namespaces/" + ns +
                                                    "/pods",
                                                {Query("labelSelector", pod_selector)}));
        if (list.ok()) AddPodMetrics(*list, &obs);
        break;
      }
      case MetricSourceType::kExternal: {
        auto list = GetJson(*client_, WithQuery("/apis/external.metrics.k8s.io/v1beta1/namespaces/" +
                                                    ns + "/" + http::UrlEncode(m.metric.name),
                                                {Query("labelSelector", SelectorString(m.metric.selector))}));
        if (!list.ok()) {
          obs.external_errors[m.metric.name] = list.status().message();
          break;
        }
        auto& series = obs.external[m.metric.name];
        for (const Json& item : At(*list, {"items"})) {
          auto value = Quantity::Parse(item.value("value", ""));
          if (!value.ok()) continue;
          core::hpa::ExternalSample s;
          s.value = *value;
          s.timestamp = TimeOf(item.value("timestamp", Json())).value_or(clock_->Now());
          const Json& labels = item.value("metricLabels", Json::object());
          if (labels.is_object()) {
            for (auto& [k, v] : labels.items()) {
              if (v.is_string()) s.labels[k] = v.get<std::string>();
            }
          }
          series.push_back(std::move(s));
        }
        if (series.empty()) obs.external.erase(m.metric.name);
        break;
      }
      case MetricSourceType::kPods: {
        auto list = GetJson(
            *client_, WithQuery("/apis/custom.metrics.k8s.io/v1beta2/namespaces/" + ns + "/pods/*/" +
                                    http::UrlEncode(m.metric.name),
                                {Query("labelSelector", pod_selector),
                                 Query("metricLabelSelector", SelectorString(m.metric.selector))}));
        if (!list.ok()) break;
        core::hpa::PodSamples samples;
        for (const Json& item : At(*list, {"items"})) {
          auto value = Quantity::Parse(item.value("value", ""));
          if (!value.ok()) continue;
          if (samples.samples.empty()) {
            samples.timestamp = TimeOf(item.value("timestamp", Json())).value_or(clock_->Now());
            if (item.contains("windowSeconds") && item["windowSeconds"].is_number_integer()) {
              samples.window = std::chrono::seconds(item["windowSeconds"].get<int64_t>());
            }
          }
          samples.samples.push_back({Str(item, {"describedObject", "name"}), *value, {}});
        }
        if (!samples.samples.empty()) obs.pods_metrics[m.metric.name] = std::move(samples);
        break;
      }
      case MetricSourceType::kObject: {
        std::string resource = m.described_object.kind;
        if (auto gvr = Resolve(m.described_object.api_version, m.described_object.kind); gvr.ok()) {
          resource = gvr->String();
        }
        const std::string path =
            m.described_object.kind == "Namespace"
                ? "/apis/custom.metrics.k8s.io/v1beta2/namespaces/" + ns + "/metrics/" +
                      http::UrlEncode(m.metric.name)
                : "/apis/custom.metrics.k8s.io/v1beta2/namespaces/" + ns + "/" + resource + "/" +
                      m.described_object.name + "/" + http::UrlEncode(m.metric.name);
        auto list = GetJson(*client_, WithQuery(path, {Query("metricLabelSelector",
                                                             SelectorString(m.metric.selector))}));
        if (!list.ok()) break;
        const Json& items = At(*list, {"items"});
        if (items.size() != 1) break;
        auto value = Quantity::Parse(items[0].value("value", ""));
        if (value.ok()) {
          obs.objects[m.metric.name] = {
              *value, TimeOf(items[0].value("timestamp", Json())).value_or(clock_->Now())};
        }
        break;
      }
    }
  }
  return obs;
}

HpaController::History HpaController::LoadHistory(const Json& hpa) {
  const std::string key = kube::ObjectKey(hpa);
  const std::string uid = Str(hpa, {"metadata", "uid"});
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = history_.find(key);
    if (it != history_.end() && it->second.uid == uid) return it->second;
  }
  History h{uid, {}};
  auto cm = client_->Get(kube::ConfigMapsResource(), Str(hpa, {"metadata", "namespace"}),
                         HpaHistoryConfigMapName(Str(hpa, {"metadata", "name"})));
  if (cm.ok()) {
    Json doc = Json::parse(Str(*cm, {"data", kHistoryKey}), nullptr, false);
    if (doc.is_object() && doc.value("uid", "") == uid && doc.contains("state")) {
      auto state = core::hpa::HpaStateFromJson(doc["state"], "state");
      if (state.ok()) {
        h.state = std::move(*state);
      } else {
        spdlog::warn("hpa {}: ignoring its stored history: {}", key, state.status().ToString());
      }
    }
  }
  return h;
}

void HpaController::SaveHistory(const Json& hpa, const History& history) {
  const std::string key = kube::ObjectKey(hpa);
  {
    std::lock_guard<std::mutex> lock(mu_);
    history_[key] = history;
  }
  const std::string ns = Str(hpa, {"metadata", "namespace"});
  const std::string name = HpaHistoryConfigMapName(Str(hpa, {"metadata", "name"}));
  const Json doc = {{"uid", history.uid}, {"state", core::hpa::HpaStateToJson(history.state)}};
  Json owner = {{"apiVersion", "autoscaling/v2"},
                {"kind", "HorizontalPodAutoscaler"},
                {"name", Str(hpa, {"metadata", "name"})},
                {"uid", history.uid}};
  Json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata",
              {{"name", name},
               {"namespace", ns},
               {"labels", {{"app.kubernetes.io/managed-by", "trimtab-hpa-controller"}}},
               {"ownerReferences", Json::array({owner})}}},
             {"data", {{kHistoryKey, doc.dump()}}}};
  auto existing = client_->Get(kube::ConfigMapsResource(), ns, name);
  Status st;
  if (existing.ok()) {
    if (Str(*existing, {"data", kHistoryKey}) == doc.dump()) return;
    cm["metadata"]["resourceVersion"] = Str(*existing, {"metadata", "resourceVersion"});
    st = client_->Update(kube::ConfigMapsResource(), cm).status();
  } else {
    st = client_->Create(kube::ConfigMapsResource(), ns, cm).status();
  }
  if (!st.ok()) spdlog::warn("hpa {}: writing its history: {}", key, st.ToString());
}

void HpaController::WriteStatus(const Json& hpa, Json status) {
  if (At(hpa, {"status"}) == status) return;
  Json next = hpa;
  next["status"] = std::move(status);
  auto written = client_->UpdateStatus(HorizontalPodAutoscalersGvr(), next);
  if (!written.ok()) {
    spdlog::warn("hpa {}: status update: {}", kube::ObjectKey(hpa), written.status().ToString());
  }
}

Result HpaController::Sync(const std::string& key) {
  auto cached = informers_->Store(HorizontalPodAutoscalersGvr()).GetByKey(key);
  if (!cached || IsDeleting(*cached)) return Result::Done();
  const Json& hpa = *cached;
  const TimePoint now = clock_->Now();
  const std::string now_text = FormatRfc3339(now);
  Json status = At(hpa, {"status"}).is_object() ? At(hpa, {"status"}) : Json::object();
  if (!status["conditions"].is_array()) status["conditions"] = Json::array();
  Json& conditions = status["conditions"];
  const std::string reference = Str(hpa, {"spec", "scaleTargetRef", "kind"}) + "/" +
                                Str(hpa, {"metadata", "namespace"}) + "/" +
                                Str(hpa, {"spec", "scaleTargetRef", "name"});

  core::hpa::HpaSpecOptions spec_options;
  spec_options.scale_to_zero = true;  // stored objects passed the API server's validation
  auto spec = core::hpa::HpaSpecFromJson(At(hpa, {"spec"}), "spec", spec_options);
  if (!spec.ok()) {
    spdlog::warn("hpa {}: {}", key, spec.status().ToString());
    return Result::After(options_.sync_period);
  }

  auto target = GetScale(hpa);
  if (!target.ok()) {
    const std::string err(target.status().message());
    Event(hpa, "Warning", "FailedGetScale", err);
    MergeCondition(&conditions,
                   {"AbleToScale", "False", "FailedGetScale",
                    "the HPA controller was unable to get the target's current scale: " + err},
                   now_text);
    WriteStatus(hpa, std::move(status));
    return Result::After(options_.sync_period);
  }
  const int32_t spec_replicas = static_cast<int32_t>(Int(target->scale, {"spec", "replicas"}));
  const int32_t status_replicas = static_cast<int32_t>(Int(target->scale, {"status", "replicas"}));

  // The selector is needed for any metric (computeReplicasForMetrics checks it first).
  const std::string selector_text = Str(target->scale, {"status", "selector"});
  std::optional<LabelSelector> selector;
  std::string selector_error;
  if (selector_text.empty()) {
    selector_error = "selector is required";
  } else if (auto parsed = LabelSelector::Parse(selector_text); parsed.ok()) {
    selector = *parsed;
  } else {
    selector_error = "couldn't convert selector into a corresponding internal selector object: " +
                     std::string(parsed.status().message());
  }

  History history = LoadHistory(hpa);
  core::hpa::HpaInput input;
  input.spec = *spec;
  input.spec_replicas = spec_replicas;
  input.status_replicas = status_replicas;
  if (const Json* z = FindCondition(hpa, "ScaledToZero")) {
    input.scaled_to_zero = z->value("status", "") == "True";
  }
  input.now = now;
  const bool in_range = spec_replicas != 0 && spec_replicas <= spec->max_replicas &&
                        spec_replicas >= spec->MinReplicasOrDefault();
  if (in_range && !selector) {
    // Upstream stops here: no metrics can be computed without the pods.
    const bool missing = selector_text.empty();
    Event(hpa, "Warning", missing ? "SelectorRequired" : "InvalidSelector", selector_error);
    MergeCondition(&conditions,
                   {"AbleToScale", "True", "SucceededGetScale",
                    "the HPA controller was able to get the target's current scale"},
                   now_text);
    MergeCondition(&conditions,
                   {"ScalingActive", "False", "InvalidSelector",
                    missing ? "the HPA target's scale is missing a selector"
                            : "the HPA target's scale has an invalid selector: " + selector_error},
                   now_text);
    status["currentReplicas"] = spec_replicas;
    Event(hpa, "Warning", "FailedComputeMetricsReplicas", selector_error);
    WriteStatus(hpa, std::move(status));
    return Result::After(options_.sync_period);
  }
  if (selector) input.observed = Observe(hpa, *spec, *selector);

  core::hpa::HpaDecision d = core::hpa::Reconcile(input, history.state, options_.engine);
  for (const core::hpa::MetricProposal& p : d.metrics) {
    if (p.ok) continue;
    std::string message = p.condition_message;
    if (message.starts_with(kUnableToCompute)) message = message.substr(sizeof(kUnableToCompute) - 1);
    Event(hpa, "Warning", p.condition_reason, message);
  }

  bool rescaled = false;
  if (d.rescale) {
    Json scale = target->scale;
    scale["spec"]["replicas"] = d.desired_replicas;
    auto updated = client_->Update(target->gvr, scale, {.subresource = "scale"});
    if (!updated.ok()) {
      const std::string err(updated.status().message());
      Event(hpa, "Warning", "FailedRescale",
            "New size: " + std::to_string(d.desired_replicas) + "; reason: " + d.rescale_reason +
                "; error: " + err);
      for (const core::hpa::Condition& c : d.conditions) {
        if (c.type != "AbleToScale" && c.type != "ScaledToZero") {
          MergeCondition(&conditions, c, now_text);
        }
      }
      MergeCondition(&conditions,
                     {"AbleToScale", "False", "FailedUpdateScale",
                      "the HPA controller was unable to update the target scale: " + err},
                     now_text);
      status["currentReplicas"] = spec_replicas;
      // The recommendation counts; the scale event did not happen.
      history.state.recommendations = d.state.recommendations;
      SaveHistory(hpa, history);
      WriteStatus(hpa, std::move(status));
      return Result::After(options_.sync_period);
    }
    rescaled = true;
    Event(hpa, "Normal", "SuccessfulRescale",
          "New size: " + std::to_string(d.desired_replicas) + "; reason: " + d.rescale_reason);
    spdlog::info("hpa {}: rescaled {} from {} to {}: {}", key, reference, spec_replicas,
                 d.desired_replicas, d.rescale_reason);
  }
  history.state = d.state;
  SaveHistory(hpa, history);

  for (const core::hpa::Condition& c : d.conditions) MergeCondition(&conditions, c, now_text);
  if (!options_.engine.scale_to_zero) RemoveCondition(&conditions, "ScaledToZero");
  status["currentReplicas"] = d.current_replicas;
  if (d.normalization.mode == "metricsFailed") {
    // setCurrentReplicasInStatus: desiredReplicas and currentMetrics keep their values.
    if (!status.contains("desiredReplicas")) status["desiredReplicas"] = 0;
    Event(hpa, "Warning", "FailedComputeMetricsReplicas", d.error);
  } else {
    status["desiredReplicas"] = d.desired_replicas;
    if (d.metrics.empty()) {
      status.erase("currentMetrics");  // out of range or paused: no metrics were computed
    } else {
      Json metrics = Json::array();
      for (const core::hpa::MetricProposal& p : d.metrics) {
        metrics.push_back(p.status ? core::hpa::MetricStatusToJson(*p.status)
                                   : Json{{"type", ""}});
      }
      status["currentMetrics"] = std::move(metrics);
    }
  }
  if (rescaled) status["lastScaleTime"] = now_text;
  WriteStatus(hpa, std::move(status));
  return Result::After(options_.sync_period);
}

}  // namespace trimtab::cluster::runtime
