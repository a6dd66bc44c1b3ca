#include "cluster/runtime/object_util.h"

#include <random>

#include <nlohmann/json.hpp>

#include "adapters/kube/api_errors.h"

namespace trimtab::cluster::runtime {

const Json& At(const Json& object, std::initializer_list<std::string_view> path) {
  static const Json* const kNull = new Json();
  const Json* cur = &object;
  for (std::string_view key : path) {
    if (!cur->is_object()) return *kNull;
    auto it = cur->find(key);
    if (it == cur->end()) return *kNull;
    cur = &*it;
  }
  return *cur;
}

std::string Str(const Json& object, std::initializer_list<std::string_view> path,
                std::string fallback) {
  const Json& v = At(object, path);
  return v.is_string() ? v.get<std::string>() : fallback;
}

int64_t Int(const Json& object, std::initializer_list<std::string_view> path, int64_t fallback) {
  const Json& v = At(object, path);
  return v.is_number_integer() ? v.get<int64_t>() : fallback;
}

bool Bool(const Json& object, std::initializer_list<std::string_view> path, bool fallback) {
  const Json& v = At(object, path);
  return v.is_boolean() ? v.get<bool>() : fallback;
}

std::string NowString(Clock* clock) { return FormatRfc3339(clock->Now()); }

std::optional<TimePoint> ParseTime(const Json& value) {
  if (!value.is_string()) return std::nullopt;
  auto t = ParseRfc3339(value.get<std::string>());
  if (!t.ok()) return std::nullopt;
  return *t;
}

std::optional<Json> ControllerRef(const Json& object) {
  const Json& refs = At(object, {"metadata", "ownerReferences"});
  if (!refs.is_array()) return std::nullopt;
  for (const Json& r : refs) {
    if (r.is_object() && r.value("controller", false)) return r;
  }
  return std::nullopt;
}

Json ControllerRefTo(const Json& owner) {
  return {{"apiVersion", Str(owner, {"apiVersion"})},
          {"kind", Str(owner, {"kind"})},
          {"name", Str(owner, {"metadata", "name"})},
          {"uid", Str(owner, {"metadata", "uid"})},
          {"controller", true},
          {"blockOwnerDeletion", true}};
}

bool IsControlledBy(const Json& object, const Json& owner) {
  auto ref = ControllerRef(object);
  return ref && ref->value("uid", "") == Str(owner, {"metadata", "uid"});
}

std::string AdoptPatch(const Json& object, const Json& owner) {
  Json ops = Json::array({{{"op", "test"}, {"path", "/metadata/uid"},
                           {"value", Str(object, {"metadata", "uid"})}}});
  if (At(object, {"metadata", "ownerReferences"}).is_array()) {
    ops.push_back({{"op", "add"}, {"path", "/metadata/ownerReferences/-"},
                   {"value", ControllerRefTo(owner)}});
  } else {
    ops.push_back({{"op", "add"}, {"path", "/metadata/ownerReferences"},
                   {"value", Json::array({ControllerRefTo(owner)})}});
  }
  return ops.dump();
}

std::string ReleasePatch(const Json& object, const std::string& owner_uid) {
  Json ops = Json::array({{{"op", "test"}, {"path", "/metadata/uid"},
                           {"value", Str(object, {"metadata", "uid"})}}});
  const Json& refs = At(object, {"metadata", "ownerReferences"});
  if (refs.is_array()) {
    for (size_t i = 0; i < refs.size(); ++i) {
      if (refs[i].value("uid", "") != owner_uid) continue;
      const std::string path = "/metadata/ownerReferences/" + std::to_string(i);
      ops.push_back({{"op", "test"}, {"path", path + "/uid"}, {"value", owner_uid}});
      ops.push_back({{"op", "remove"}, {"path", path}});
      break;
    }
  }
  return ops.dump();
}

const Json* FindCondition(const Json& object, std::string_view type) {
  const Json& conditions = At(object, {"status", "conditions"});
  if (!conditions.is_array()) return nullptr;
  for (const Json& c : conditions) {
    if (c.is_object() && c.value("type", "") == type) return &c;
  }
  return nullptr;
}

bool SetCondition(Json* conditions, const Json& condition, const std::string& now) {
  if (!conditions->is_array()) *conditions = Json::array();
  const std::string type = condition.value("type", "");
  for (Json& c : *conditions) {
    if (!c.is_object() || c.value("type", "") != type) continue;
    Json next = condition;
    if (c.value("status", "") == condition.value("status", "")) {
      if (c.contains("lastTransitionTime")) next["lastTransitionTime"] = c["lastTransitionTime"];
    } else {
      next["lastTransitionTime"] = now;
    }
    if (next == c) return false;
    c = std::move(next);
    return true;
  }
  Json next = condition;
  next["lastTransitionTime"] = now;
  conditions->push_back(std::move(next));
  return true;
}

bool IsDeleting(const Json& object) {
  return At(object, {"metadata", "deletionTimestamp"}).is_string();
}

bool IsPodTerminal(const Json& pod) {
  std::string phase = Str(pod, {"status", "phase"});
  return phase == "Succeeded" || phase == "Failed";
}

bool IsPodActive(const Json& pod) { return !IsPodTerminal(pod) && !IsDeleting(pod); }

bool IsPodReady(const Json& pod) {
  const Json* ready = FindCondition(pod, "Ready");
  return ready && ready->value("status", "") == "True";
}

std::optional<TimePoint> PodReadySince(const Json& pod) {
  const Json* ready = FindCondition(pod, "Ready");
  if (!ready || ready->value("status", "") != "True") return std::nullopt;
  auto t = ParseTime(ready->contains("lastTransitionTime") ? (*ready)["lastTransitionTime"] : Json());
  return t ? t : std::optional<TimePoint>(TimePoint{});
}

bool IsPodAvailable(const Json& pod, int64_t min_ready_seconds, TimePoint now) {
  auto since = PodReadySince(pod);
  if (!since) return false;
  if (min_ready_seconds <= 0) return true;
  return *since + std::chrono::seconds(min_ready_seconds) <= now;
}

Status PostSubresource(const kube::KubeClient& client, const kube::GroupVersionResource& gvr,
                       std::string_view ns, std::string_view name, std::string_view subresource,
                       const Json& body) {
  const std::string path = kube::ItemPath(gvr, ns, name, subresource);
  http::ClientRequest request{.method = "POST", .url = path};
  request.headers.emplace_back("Content-Type", "application/json");
  request.headers.emplace_back("Accept", "application/json");
  request.body = body.dump();
  auto response = client.Raw(request);
  if (!response.ok()) return response.status();
  if (response->status < 200 || response->status >= 300) {
    return kube::StatusFromResponse(response->status, response->body, "POST " + path);
  }
  return Status::Ok();
}

std::string RandomSuffix(int n) {
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_int_distribution<int> pick(0, static_cast<int>(sizeof(kAlphabet)) - 2);
  std::string out;
  for (int i = 0; i < n; ++i) out.push_back(kAlphabet[pick(rng)]);
  return out;
}

}  // namespace trimtab::cluster::runtime
