#include "adapters/state/configmap_state_store.h"

#include <spdlog/spdlog.h>
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <nlohmann/json.hpp>

#include "adapters/kube/object.h"
#include "adapters/kube/rest_config.h"
#include "common/flink_values.h"
#include "core/chain/scaling_realizer.h"

namespace trimtab::adapters {
namespace {

using core::StateType;

constexpr size_t kMaxInflatedBytes = 64u << 20;

bool IsCompressed(StateType type) {
  return type == StateType::kScalingHistory || type == StateType::kScalingTracking ||
         type == StateType::kCollectedMetrics || type == StateType::kDecisionHistory;
}

std::string Dump(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// True when `value` can be written as Flink's "vid:p,vid:p" and read back unchanged.
bool IsFlinkParallelismMap(const Json& value) {
  if (!value.is_object()) return false;
  for (auto it = value.begin(); it != value.end(); ++it) {
    const std::string& key = it.key();
    if (key.empty() || key.find_first_of(",: \t\r\n") != std::string::npos) return false;
    if (!it.value().is_number_integer()) return false;
    const int64_t p = it.value().get<int64_t>();
    if (p < 1 || p > INT_MAX) return false;
  }
  return true;
}

std::pair<std::string, std::string> SplitJobKey(const std::string& job_key) {
  size_t slash = job_key.find('/');
  if (slash == std::string::npos) return {};
  return {job_key.substr(0, slash), job_key.substr(slash + 1)};
}

std::string ConfigMapRef(const std::string& ns, const std::string& name) {
  return "state ConfigMap " + ns + "/" + ConfigMapStateStore::ConfigMapName(name);
}

}  // namespace

StatusOr<std::string> GzipBase64(std::string_view text) {
  z_stream zs{};
  // windowBits 15 + 16: a gzip wrapper (as java.util.zip.GZIPOutputStream writes).
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    return InternalError("gzip: cannot initialise zlib");
  }
  std::string out(deflateBound(&zs, static_cast<uLong>(text.size())) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  const size_t written = zs.total_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return InternalError("gzip: deflate failed (" + std::to_string(rc) + ")");
  out.resize(written);
  return kube::Base64Encode(out);
}

StatusOr<std::string> GunzipBase64(std::string_view text) {
  StatusOr<std::string> bytes = kube::Base64Decode(text);
  if (!bytes.ok()) return InvalidArgumentError("not base64: " + bytes.status().message());
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) return InternalError("gunzip: cannot initialise zlib");
  zs.next_in = reinterpret_cast<Bytef*>(bytes->data());
  zs.avail_in = static_cast<uInt>(bytes->size());
  std::string out;
  char buf[16384];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof(buf);
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      std::string why = zs.msg ? zs.msg : "truncated or corrupt data";
      inflateEnd(&zs);
      return InvalidArgumentError("not gzip data: " + why);
    }
    out.append(buf, sizeof(buf) - zs.avail_out);
    if (out.size() > kMaxInflatedBytes) {
      inflateEnd(&zs);
      return InvalidArgumentError("gzip data inflates beyond 64 MiB");
    }
    if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0) {
      inflateEnd(&zs);
      return InvalidArgumentError("not gzip data: truncated");
    }
  }
  inflateEnd(&zs);
  return out;
}

StatusOr<std::string> EncodeStateValue(StateType type, const Json& value) {
  if (IsCompressed(type)) return GzipBase64(Dump(value));
  if (type == StateType::kParallelismOverrides && IsFlinkParallelismMap(value)) {
    core::ParallelismOverrides overrides;
    for (auto it = value.begin(); it != value.end(); ++it) {
      overrides[it.key()] = static_cast<int>(it.value().get<int64_t>());
    }
    return FormatFlinkParallelismOverrides(overrides);
  }
  return Dump(value);
}

StatusOr<Json> DecodeStateValue(StateType type, std::string_view text) {
  const std::string key(core::StateTypeName(type));
  std::string json_text(text);
  if (IsCompressed(type)) {
    StatusOr<std::string> inflated = GunzipBase64(text);
    if (!inflated.ok()) return InvalidArgumentError(key + ": " + inflated.status().message());
    json_text = std::move(*inflated);
  } else if (type == StateType::kParallelismOverrides && !Json::accept(json_text)) {
    StatusOr<FlinkParallelismOverrides> overrides = ParseFlinkParallelismOverrides(key, json_text);
    if (!overrides.ok()) return overrides.status();
    Json out = Json::object();
    for (const auto& [vertex, p] : *overrides) out[vertex] = p;
    return out;
  }
  Json out = Json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (out.is_discarded()) return InvalidArgumentError(key + ": not valid JSON");
  return out;
}

namespace {

// The cached view of one job's ConfigMap.
struct View {
  bool loaded = false;
  bool exists = false;  // the ConfigMap exists on the server
  Json object;          // the ConfigMap as last read or written (when it exists)
  std::map<std::string, std::string> durable;  // its data as last read or written
  std::map<StateType, Json> documents;         // the job's view
};

}  // namespace

struct ConfigMapStateStore::Entry {
  std::mutex mu;
  View view;                          // guarded by mu
  std::unique_ptr<StateOwner> owner;  // guarded by mu
};

StatusOr<std::unique_ptr<ConfigMapStateStore>> ConfigMapStateStore::Create(
    ConfigMapStateStoreOptions options) {
  if (options.client == nullptr) return InvalidArgumentError("configmap state store: no client");
  if (options.max_state_chars == 0) {
    return InvalidArgumentError("configmap state store: max_state_chars must be > 0");
  }
  return std::unique_ptr<ConfigMapStateStore>(new ConfigMapStateStore(std::move(options)));
}

std::string ConfigMapStateStore::ConfigMapName(std::string_view resource_name) {
  return kAutoscalerConfigMapPrefix + std::string(resource_name);
}

StatusOr<std::shared_ptr<ConfigMapStateStore::Entry>> ConfigMapStateStore::EntryOf(
    const std::string& job_key) {
  auto [ns, name] = SplitJobKey(job_key);
  if (ns.empty() || name.empty() || name.find('/') != std::string::npos) {
    return InvalidArgumentError("configmap state store: job key \"" + job_key +
                                "\" is not <namespace>/<name>");
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::shared_ptr<Entry>& entry = entries_[job_key];
  if (!entry) entry = std::make_shared<Entry>();
  return entry;
}

Status ConfigMapStateStore::Load(const std::string& job_key, Entry* entry) {
  View& view = entry->view;
  if (view.loaded) return Status::Ok();
  auto [ns, name] = SplitJobKey(job_key);
  StatusOr<Json> cm = options_.client->Get(kube::ConfigMapsResource(), ns, ConfigMapName(name));
  View loaded;
  loaded.loaded = true;
  if (!cm.ok()) {
    if (cm.status().code() != StatusCode::kNotFound) {
      return cm.status().WithContext("read " + ConfigMapRef(ns, name));
    }
    view = std::move(loaded);
    return Status::Ok();
  }
  loaded.exists = true;
  loaded.object = std::move(*cm);
  if (auto data = loaded.object.find("data"); data != loaded.object.end() && data->is_object()) {
    for (auto it = data->begin(); it != data->end(); ++it) {
      if (!it.value().is_string()) continue;
      const std::string text = it.value().get<std::string>();
      loaded.durable[it.key()] = text;
      std::optional<StateType> type = core::ParseStateType(it.key());
      if (!type) continue;  // not ours: left as it is
      StatusOr<Json> doc = DecodeStateValue(*type, text);
      if (!doc.ok()) {
        spdlog::warn("{}: discarding undecodable state: {}", ConfigMapRef(ns, name),
                     doc.status().message());
        continue;
      }
      loaded.documents[*type] = std::move(*doc);
    }
  }
  view = std::move(loaded);
  return Status::Ok();
}

Status ConfigMapStateStore::Put(const std::string& job_key, StateType type, const Json& value) {
  TRIMTAB_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry, EntryOf(job_key));
  std::lock_guard<std::mutex> lock(entry->mu);
  TRIMTAB_RETURN_IF_ERROR(Load(job_key, entry.get()));
  entry->view.documents[type] = value;
  return Status::Ok();
}

Status ConfigMapStateStore::Get(const std::string& job_key, StateType type, Json* out) {
  TRIMTAB_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry, EntryOf(job_key));
  std::lock_guard<std::mutex> lock(entry->mu);
  TRIMTAB_RETURN_IF_ERROR(Load(job_key, entry.get()));
  auto it = entry->view.documents.find(type);
  if (it == entry->view.documents.end()) {
    return NotFoundError("state " + job_key + "/" + std::string(core::StateTypeName(type)) +
                         ": not found");
  }
  *out = it->second;
  return Status::Ok();
}

Status ConfigMapStateStore::Remove(const std::string& job_key, StateType type) {
  TRIMTAB_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry, EntryOf(job_key));
  std::lock_guard<std::mutex> lock(entry->mu);
  TRIMTAB_RETURN_IF_ERROR(Load(job_key, entry.get()));
  entry->view.documents.erase(type);
  return Status::Ok();
}

Status ConfigMapStateStore::ClearAll(const std::string& job_key) {
  TRIMTAB_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry, EntryOf(job_key));
  std::lock_guard<std::mutex> lock(entry->mu);
  TRIMTAB_RETURN_IF_ERROR(Load(job_key, entry.get()));
  entry->view.documents.clear();
  return Status::Ok();
}

void ConfigMapStateStore::SetOwner(const std::string& job_key, StateOwner owner) {
  StatusOr<std::shared_ptr<Entry>> entry = EntryOf(job_key);
  if (!entry.ok()) return;  // an invalid key fails on every other call
  std::lock_guard<std::mutex> lock((*entry)->mu);
  (*entry)->owner = std::make_unique<StateOwner>(std::move(owner));
}

void ConfigMapStateStore::Invalidate(const std::string& job_key) {
  StatusOr<std::shared_ptr<Entry>> entry = EntryOf(job_key);
  if (!entry.ok()) return;
  std::lock_guard<std::mutex> lock((*entry)->mu);
  (*entry)->view = View{};
}

StatusOr<std::map<std::string, std::string>> ConfigMapStateStore::EncodeView(
    const std::string& job_key, Entry* entry) const {
  std::map<std::string, std::string> data;
  // Keys that are not state types stay as they were.
  for (const auto& [key, value] : entry->view.durable) {
    if (!core::ParseStateType(key)) data[key] = value;
  }
  std::map<StateType, Json>& docs = entry->view.documents;
  for (const auto& [type, doc] : docs) {
    TRIMTAB_ASSIGN_OR_RETURN(data[std::string(core::StateTypeName(type))],
                             EncodeStateValue(type, doc));
  }
  auto size_of = [&data](StateType t) {
    auto it = data.find(std::string(core::StateTypeName(t)));
    return it == data.end() ? size_t{0} : it->second.size();
  };
  const size_t fixed = size_of(StateType::kScalingHistory) + size_of(StateType::kScalingTracking) +
                       size_of(StateType::kDecisionHistory);
  auto metrics = docs.find(StateType::kCollectedMetrics);
  if (metrics == docs.end() ||
      fixed + size_of(StateType::kCollectedMetrics) <= options_.max_state_chars) {
    return data;
  }
  // Rule 4: drop the fewest oldest samples that bring the total under the cap.
  const std::string key(core::StateTypeName(StateType::kCollectedMetrics));
  const Json& samples = metrics->second;
  size_t dropped = 0;
  if (samples.is_array()) {
    size_t lo = 1, hi = samples.size();
    std::string best;
    bool found = false;
    while (lo <= hi) {
      const size_t mid = lo + (hi - lo) / 2;
      Json kept(samples.begin() + static_cast<std::ptrdiff_t>(mid), samples.end());
      TRIMTAB_ASSIGN_OR_RETURN(std::string encoded,
                               EncodeStateValue(StateType::kCollectedMetrics, kept));
      if (fixed + encoded.size() <= options_.max_state_chars) {
        best = std::move(encoded);
        dropped = mid;
        found = true;
        hi = mid - 1;
      } else {
        lo = mid + 1;
      }
    }
    if (found) {
      data[key] = std::move(best);
      Json kept(samples.begin() + static_cast<std::ptrdiff_t>(dropped), samples.end());
      spdlog::warn("state {}: dropped the {} oldest metric sample(s) to stay under {} chars",
                   job_key, dropped, options_.max_state_chars);
      metrics->second = std::move(kept);
      return data;
    }
  }
  // Even without samples it does not fit (or the document is not a sample list): no metrics.
  spdlog::warn(
      "state {}: dropped every metric sample: scaling history and tracking alone "
      "exceed {} chars",
      job_key, options_.max_state_chars);
  data.erase(key);
  docs.erase(metrics);
  return data;
}

Json ConfigMapStateStore::NewConfigMap(const std::string& job_key, const Entry& entry) const {
  auto [ns, name] = SplitJobKey(job_key);
  Json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata",
              {{"name", ConfigMapName(name)},
               {"namespace", ns},
               {"labels", {{"component", "autoscaler"}, {"app", name}}}}}};
  if (entry.owner) {
    cm["metadata"]["ownerReferences"] = Json::array({{{"apiVersion", entry.owner->api_version},
                                                      {"kind", entry.owner->kind},
                                                      {"name", entry.owner->name},
                                                      {"uid", entry.owner->uid},
                                                      {"controller", false},
                                                      {"blockOwnerDeletion", false}}});
  }
  return cm;
}

Status ConfigMapStateStore::Flush(const std::string& job_key) {
  TRIMTAB_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry, EntryOf(job_key));
  std::lock_guard<std::mutex> lock(entry->mu);
  TRIMTAB_RETURN_IF_ERROR(Load(job_key, entry.get()));
  View& view = entry->view;
  auto [ns, name] = SplitJobKey(job_key);
  const std::string ref = ConfigMapRef(ns, name);
  StatusOr<std::map<std::string, std::string>> data = EncodeView(job_key, entry.get());
  if (!data.ok()) {
    view = View{};
    return data.status().WithContext("write " + ref);
  }
  const bool has_state = !view.documents.empty();
  bool owner_missing = false;
  if (view.exists && entry->owner) {
    const Json& meta = view.object["metadata"];
    owner_missing = !meta.contains("ownerReferences") || meta["ownerReferences"].empty();
  }
  if (view.exists ? (*data == view.durable && !owner_missing) : !has_state) {
    return Status::Ok();  // nothing changed
  }
  // Every failure below drops the view (rule 2): what the server holds is unknown or newer.
  auto fail = [&view, &ref](const Status& error, const std::string& operation) {
    view = View{};
    if (error.code() == StatusCode::kConflict || error.code() == StatusCode::kAlreadyExists ||
        error.code() == StatusCode::kNotFound) {
      return ConflictError(ref + " changed since it was read (" + operation + ": " +
                           error.message() + "); nothing written, state is re-read next time");
    }
    return error.WithContext(operation + " " + ref);
  };

  if (!view.exists) {
    Json cm = NewConfigMap(job_key, *entry);
    cm["data"] = *data;
    StatusOr<Json> created = options_.client->Create(kube::ConfigMapsResource(), ns, cm);
    if (!created.ok()) return fail(created.status(), "create");
    view.exists = true;
    view.object = std::move(*created);
    view.durable = std::move(*data);
    return Status::Ok();
  }
  if (!has_state && data->empty()) {
    kube::DeleteOptions options{.precondition_resource_version =
                                    kube::ObjectResourceVersion(view.object)};
    Status deleted =
        options_.client->Delete(kube::ConfigMapsResource(), ns, ConfigMapName(name), options);
    if (!deleted.ok() && deleted.code() != StatusCode::kNotFound) {
      return fail(deleted, "delete");
    }
    view.exists = false;
    view.object = Json();
    view.durable.clear();
    return Status::Ok();
  }
  Json cm = view.object;
  cm["data"] = *data;
  if (owner_missing) {
    cm["metadata"]["ownerReferences"] =
        NewConfigMap(job_key, *entry)["metadata"]["ownerReferences"];
  }
  StatusOr<Json> updated = options_.client->Update(kube::ConfigMapsResource(), cm);
  if (!updated.ok()) return fail(updated.status(), "update");
  view.object = std::move(*updated);
  view.durable = std::move(*data);
  return Status::Ok();
}

StatusOr<std::vector<std::string>> ConfigMapStateStore::ListJobKeys() {
  TRIMTAB_ASSIGN_OR_RETURN(LabelSelector selector, LabelSelector::Parse("component=autoscaler"));
  TRIMTAB_ASSIGN_OR_RETURN(std::vector<Json> items,
                           options_.client->List(kube::ConfigMapsResource(),
                                                 options_.list_namespace, {.labels = selector}));
  std::vector<std::string> keys;
  const std::string prefix = kAutoscalerConfigMapPrefix;
  for (const Json& cm : items) {
    const std::string name = kube::ObjectName(cm);
    if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size()) continue;
    bool has_state = false;
    if (auto data = cm.find("data"); data != cm.end() && data->is_object()) {
      for (auto it = data->begin(); it != data->end() && !has_state; ++it) {
        has_state = core::ParseStateType(it.key()).has_value();
      }
    }
    if (has_state) keys.push_back(kube::ObjectNamespace(cm) + "/" + name.substr(prefix.size()));
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace trimtab::adapters
