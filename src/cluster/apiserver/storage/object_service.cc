#include "cluster/apiserver/storage/object_service.h"

#include <string.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "cluster/apiserver/auth/rbac_validation.h"
#include "cluster/apiserver/admission/builtin_defaults.h"
#include "cluster/apiserver/surface/crd.h"
#include "cluster/apiserver/admission/hpa_rules.h"
#include "cluster/apiserver/storage/managed_fields.h"
#include "cluster/apiserver/storage/object_meta.h"
#include "cluster/apiserver/admission/pod_priority_admission.h"
#include "cluster/apiserver/admission/service_ips.h"
#include "cluster/apiserver/admission/version_conversion.h"

namespace trimtab::cluster {
namespace {

constexpr int kMaxRetries = 16;

// The Priority admission plugin (pod_priority_admission.h) for pods being created and for
// PriorityClasses being created or updated; other kinds pass.
std::optional<ApiError> AdmitPriority(const ObjectService& objects, const ResourceType& type,
                                      Json* object, std::string_view name, bool create) {
  const bool pod = create && type.group.empty() && type.plural == "pods";
  const bool priority_class = type.group == "scheduling.k8s.io" && type.plural == "priorityclasses";
  if (!pod && !priority_class) return std::nullopt;
  std::shared_ptr<const ResourceType> classes_type =
      objects.registry()->FindShared("scheduling.k8s.io", "v1", "priorityclasses");
  if (!classes_type) return std::nullopt;
  auto classes = objects.List(*classes_type, "", ListOptions{});
  if (!classes.ok()) return classes.error();
  std::optional<std::string> refused = pod ? AdmitPodPriority(classes->items, object)
                                           : AdmitPriorityClass(classes->items, object);
  if (refused) return Forbidden(type, name, *refused);
  return std::nullopt;
}

bool IsCoreKind(const ResourceType& t, std::string_view plural) {
  return t.group.empty() && t.plural == plural;
}
bool IsCrdType(const ResourceType& t) {
  return t.group == "apiextensions.k8s.io" && t.plural == "customresourcedefinitions";
}

// base64url without padding, as the apiserver encodes continue tokens.
std::string Base64UrlEncode(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  uint32_t buf = 0;
  int bits = 0;
  for (unsigned char c : in) {
    buf = (buf << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(kAlphabet[(buf >> bits) & 63]);
    }
  }
  if (bits > 0) out.push_back(kAlphabet[(buf << (6 - bits)) & 63]);
  return out;
}

std::optional<std::string> Base64UrlDecode(std::string_view in) {
  std::string out;
  uint32_t buf = 0;
  int bits = 0;
  for (char c : in) {
    int v;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    else if (c >= '0' && c <= '9') v = c - '0' + 52;
    else if (c == '-' || c == '+') v = 62;
    else if (c == '_' || c == '/') v = 63;
    else if (c == '=') break;
    else return std::nullopt;
    buf = (buf << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buf >> bits) & 0xff));
    }
  }
  return out;
}

std::string MakeContinue(int64_t revision, const std::string& start_key) {
  Json token = {{"v", "meta.k8s.io/v1"}, {"rv", revision}, {"start", start_key}};
  return Base64UrlEncode(token.dump());
}

ApiError ContinueExpired() {
  return Gone(
      "The provided continue parameter is too old to display a consistent list result. You can "
      "start a new list without the continue parameter.");
}

std::optional<int64_t> ParseRevision(std::string_view text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

// A copy of the value at `path`, or null.
Json Lookup(const Json& object, std::initializer_list<const char*> path) {
  const Json* cur = &object;
  for (const char* p : path) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(p);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return *cur;
}

bool NonEmptyArray(const Json& v) { return v.is_array() && !v.empty(); }

Json& Meta(Json& object) {
  Json& m = object["metadata"];
  if (!m.is_object()) m = Json::object();
  return m;
}

// Object equality for no-op detection, ignoring resourceVersion.
bool SameStored(const Json& a, const Json& b) {
  Json x = a, y = b;
  if (x.contains("metadata") && x["metadata"].is_object()) x["metadata"].erase("resourceVersion");
  if (y.contains("metadata") && y["metadata"].is_object()) y["metadata"].erase("resourceVersion");
  return x == y;
}

// CRD status the apiextensions controllers would set once names are accepted.
void SetCrdStatus(Json* crd, const TimePoint now) {
  Json& spec = (*crd)["spec"];
  Json status = Json::object();
  status["acceptedNames"] = spec.value("names", Json::object());
  Json stored = Json::array();
  if (spec.contains("versions") && spec["versions"].is_array()) {
    for (const auto& v : spec["versions"]) {
      if (v.value("storage", false)) stored.push_back(v.value("name", ""));
    }
  }
  status["storedVersions"] = stored;
  std::string ts = FormatRfc3339(now);
  status["conditions"] = Json::array(
      {{{"type", "NamesAccepted"}, {"status", "True"}, {"lastTransitionTime", ts},
        {"reason", "NoConflicts"}, {"message", "no conflicts found"}},
       {{"type", "Established"}, {"status", "True"}, {"lastTransitionTime", ts},
        {"reason", "InitialNamesAccepted"}, {"message", "the initial names have been accepted"}}});
  (*crd)["status"] = std::move(status);
}

}  // namespace

std::string EncodeForStorage(const Json& object) {
  Json copy = object;
  if (copy.contains("metadata") && copy["metadata"].is_object()) {
    copy["metadata"].erase("resourceVersion");
  }
  return copy.dump();
}

std::optional<Json> ObjectService::Decode(const KeyValue& kv, const ResourceType& type) const {
  std::shared_ptr<const Json> object = DecodeShared(kv, type);
  if (!object) return std::nullopt;
  return *object;
}

std::shared_ptr<const Json> ObjectService::DecodeShared(const KeyValue& kv,
                                                        const ResourceType& type) const {
  const std::string api_version = type.GroupVersion();
  if (auto cached = decoded_.Find(kv.key, kv.mod_revision, api_version)) return cached;
  Json object = Json::parse(kv.value, nullptr, /*allow_exceptions=*/false);
  if (!object.is_object()) return nullptr;
  if (const VersionConversion* conversion = BuiltinConversion(type)) {
    object = conversion->from_storage(object);
  }
  object["apiVersion"] = api_version;
  object["kind"] = type.kind;
  Meta(object)["resourceVersion"] = std::to_string(kv.mod_revision);
  auto shared = std::make_shared<const Json>(std::move(object));
  decoded_.Put(kv.key, kv.mod_revision, api_version, shared);
  return shared;
}

std::optional<ResourceType> ObjectService::TypeForKey(std::string_view key) const {
  auto parsed = ParseObjectKey(key);
  if (!parsed) return std::nullopt;
  std::optional<ResourceType> found;
  for (auto& t : registry_->List()) {
    if (t.group != parsed->group || t.plural != parsed->plural) continue;
    if (!found || (t.storage_version && !found->storage_version)) found = t;
  }
  return found;
}

bool ObjectService::Matches(const ResourceType& type, const Json& object,
                            const LabelSelector& labels, const FieldSelector& fields) const {
  if (!labels.Empty() && !labels.Matches(Labels(object))) return false;
  if (!fields.Empty() && !fields.Matches(ObjectFields(type, object))) return false;
  return true;
}

ApiResult<Json> ObjectService::Get(const ResourceType& type, std::string_view ns,
                                   std::string_view name) const {
  auto kv = store_->Get(ObjectKey(type, ns, name));
  if (!kv.ok()) return FromStatus(kv.status(), type, name);
  auto object = Decode(*kv, type);
  if (!object) return InternalServerError("stored object " + kv->key + " is not valid JSON");
  return std::move(*object);
}

ApiResult<ListOutput> ObjectService::List(const ResourceType& type, std::string_view ns,
                                          const ListOptions& options) const {
  std::string prefix = CollectionPrefix(type, ns);
  int64_t revision = 0;
  std::string start;
  if (!options.continue_token.empty()) {
    auto raw = Base64UrlDecode(options.continue_token);
    Json token = raw ? Json::parse(*raw, nullptr, false) : Json();
    if (!token.is_object() || !token.contains("rv") || !token["rv"].is_number_integer() ||
        !token.contains("start") || !token["start"].is_string()) {
      return BadRequest("continue key is not valid: incorrect encoded start resourceVersion");
    }
    revision = token["rv"].get<int64_t>();
    start = token["start"].get<std::string>();
    if (start.rfind(prefix, 0) != 0) return BadRequest("continue key is not valid: wrong prefix");
    if (revision < store_->CompactRevision()) return ContinueExpired();
  } else if (!options.resource_version.empty() && options.resource_version != "0") {
    auto rv = ParseRevision(options.resource_version);
    if (!rv) {
      return BadRequest("resourceVersion: Invalid value: \"" + options.resource_version +
                        "\": must be a non-negative integer");
    }
    if (options.resource_version_match == "Exact") revision = *rv;
    if (*rv > store_->Revision()) {
      return ApiError{504, "Timeout",
                      "Too large resource version: " + options.resource_version +
                          ", current: " + std::to_string(store_->Revision()),
                      Json{{"causes", Json::array({{{"reason", "ResourceVersionTooLarge"},
                                                    {"message", "Too large resource version"}}})},
                           {"retryAfterSeconds", 1}}};
    }
  }
  bool filtered = !options.labels.Empty() || !options.fields.Empty() ||
                  static_cast<bool>(options.stored_text_filter);
  // A label an equality requirement asks for appears in the stored text (EncodeForStorage's
  // compact dump) as "key":"value": objects whose text lacks one are skipped undecoded (a
  // selected list of a large namespace decoded every object of it). The rest are decoded and
  // matched as before, so the result is the same.
  std::vector<std::string> label_needles;
  for (const LabelRequirement& r : options.labels.requirements()) {
    if ((r.op == SelectorOp::kEquals || r.op == SelectorOp::kDoubleEquals) &&
        r.values.size() == 1) {
      label_needles.push_back(Json(r.key).dump() + ":" + Json(r.values.front()).dump());
    }
  }
  ListOutput out;
  const int64_t batch = options.limit > 0 ? std::max<int64_t>(options.limit, 64) : 0;
  while (true) {
    auto page = store_->List(prefix, start, batch, revision);
    if (!page.ok()) {
      if (IsCompacted(page.status())) {
        return options.continue_token.empty() ? Gone(page.status().message()) : ContinueExpired();
      }
      return FromStatus(page.status(), type, "");
    }
    revision = page->revision;
    out.revision = revision;
    for (size_t i = 0; i < page->items.size(); ++i) {
      const KeyValue& kv = page->items[i];
      start = kv.key;
      if (options.stored_text_filter && !options.stored_text_filter(kv.value)) continue;
      // memmem, not std::string::find: every needle starts with '"', which find looks for and
      // then compares at almost every other byte of a JSON text (20 % of trimtab local's CPU
      // with 300 Flink jobs running, in the operator's label-selected pod LISTs).
      if (!std::all_of(label_needles.begin(), label_needles.end(), [&](const std::string& n) {
            return ::memmem(kv.value.data(), kv.value.size(), n.data(), n.size()) != nullptr;
          })) {
        continue;
      }
      std::shared_ptr<const Json> object = DecodeShared(kv, type);
      if (!object || !Matches(type, *object, options.labels, options.fields)) continue;
      out.items.push_back(*object);
      if (options.limit > 0 && static_cast<int64_t>(out.items.size()) == options.limit) {
        bool more = i + 1 < page->items.size() || page->more;
        if (more) {
          out.continue_token = MakeContinue(revision, kv.key);
          if (!filtered) {
            int64_t rest = static_cast<int64_t>(page->items.size() - i - 1);
            if (page->remaining >= 0) out.remaining = rest + page->remaining;
          }
        }
        return out;
      }
    }
    if (!page->more) return out;
  }
}

ApiResult<bool> ObjectService::CheckNamespace(const ResourceType& type, std::string_view ns,
                                              std::string_view name) const {
  if (!type.namespaced) return true;
  auto kv = store_->Get(std::string(kRegistryPrefix) + "core/namespaces/" + std::string(ns));
  if (!kv.ok()) return NotFound("", "namespaces", ns);
  Json nsobj = Json::parse(kv->value, nullptr, false);
  if (IsDeleting(nsobj)) {
    return Forbidden(type, name,
                     "unable to create new content in namespace " + std::string(ns) +
                         " because it is being terminated");
  }
  return true;
}

ApiResult<Json> ObjectService::Validate(const ResourceType& type, Json object,
                                        const WriteOptions& options, const Json* old,
                                        bool spec_rules) {
  std::vector<Json> causes;
  std::vector<std::string> unknown;
  Json checked = object;
  Status s = ValidateAndDefault(type, &checked, &causes, &unknown);
  std::string name = MetaString(object, "name");
  if (!s.ok()) return Invalid(type, name, s.message(), std::move(causes));
  if (spec_rules && type.group == "autoscaling" && type.plural == "horizontalpodautoscalers") {
    HpaValidation hpa = ValidateHorizontalPodAutoscaler(&checked, old, gates_);
    if (!hpa.causes.empty()) return Invalid(type, name, std::move(hpa.causes));
    unknown.insert(unknown.end(), hpa.unknown_fields.begin(), hpa.unknown_fields.end());
  }
  if (spec_rules && type.group == "rbac.authorization.k8s.io") {
    std::vector<Json> rbac = auth::ValidateRbacObject(type.kind, object, old);
    if (!rbac.empty()) return Invalid(type, name, std::move(rbac));
  }
  if (!unknown.empty()) {
    // In path order, as kube-apiserver sorts what pruning found (and as the JSON kubectl sends,
    // keys sorted at every level, puts the built-in decoder's findings).
    std::sort(unknown.begin(), unknown.end());
    if (options.field_validation == "Strict") return BadRequest(StrictDecodingMessage(unknown));
    if (options.field_validation != "Ignore" && options.warnings) {
      for (const auto& f : unknown) options.warnings->push_back("unknown field \"" + f + "\"");
    }
  }
  // The pruned (and, for custom resources, defaulted) object is stored: unknown fields are
  // dropped as the real server drops them, built-in kinds included (their schemas type the
  // commonly used structs and keep every field of the others, so only fields the schema knows
  // to be unknown go). Built-in schemas carry no defaults; builtin_defaults.h applies those.
  return checked;
}

namespace {

// Requests always name a manager (ApiHandler: fieldManager or the User-Agent); writers inside the
// API server process (garbage collector, namespace and pod lifecycle) are controllers.
FieldManager WhoWrites(const WriteOptions& options, std::string_view subresource, Clock* clock) {
  return FieldManager{
      .manager = options.field_manager.empty() ? "kube-controller-manager" : options.field_manager,
      .subresource = options.manager_subresource.empty() ? std::string(subresource)
                                                         : options.manager_subresource,
      .time = FormatRfc3339(clock->Now())};
}

}  // namespace

ApiResult<Json> ObjectService::PrepareCreate(const ResourceType& type, std::string_view url_ns,
                                             Json object, const WriteOptions& options) {
  if (!object.is_object()) return BadRequest("the body of the request must be a JSON object");
  Json& meta = Meta(object);
  std::string ns = MetaString(object, "namespace");
  if (type.namespaced) {
    if (!url_ns.empty() && !ns.empty() && ns != url_ns) {
      return BadRequest(
          "the namespace of the provided object does not match the namespace sent on the request");
    }
    if (ns.empty()) ns = std::string(url_ns);
    if (ns.empty()) return BadRequest("the namespace of the object is required");
    meta["namespace"] = ns;
  } else {
    meta.erase("namespace");
  }
  std::string name = MetaString(object, "name");
  if (name.empty() && !MetaString(object, "generateName").empty()) {
    name = MetaString(object, "generateName") + RandomNameSuffix();
    meta["name"] = name;
  }
  if (std::string why = ValidateObjectName(type, name); !why.empty()) {
    return Invalid(type, name,
                   {Cause(name.empty() ? "FieldValueRequired" : "FieldValueInvalid",
                          "metadata.name", name.empty() ? "Required value: " + why
                                                        : "Invalid value: \"" + name + "\": " + why)});
  }
  auto ns_ok = CheckNamespace(type, ns, name);
  if (!ns_ok.ok()) return ns_ok.error();

  object["apiVersion"] = type.GroupVersion();
  object["kind"] = type.kind;
  TimePoint now = clock_->Now();
  meta["uid"] = NewUid();
  meta["creationTimestamp"] = FormatRfc3339(now);
  meta.erase("resourceVersion");
  meta.erase("deletionTimestamp");
  meta.erase("deletionGracePeriodSeconds");
  if (HasGeneration(type)) {
    meta["generation"] = 1;
  } else {
    meta.erase("generation");
  }
  if (type.status_subresource && !IsCoreKind(type, "nodes")) object.erase("status");

  if (IsCoreKind(type, "namespaces")) {
    meta["labels"]["kubernetes.io/metadata.name"] = name;
    if (!object.contains("spec") || !object["spec"].is_object()) object["spec"] = Json::object();
    if (!object["spec"].contains("finalizers")) {
      object["spec"]["finalizers"] = Json::array({std::string(kNamespaceFinalizer)});
    }
    object["status"] = {{"phase", "Active"}};
  } else if (IsCoreKind(type, "pods")) {
    object["status"] = {{"phase", "Pending"}};
  } else if (IsCrdType(type)) {
    DefaultCrd(&object);
    std::vector<Json> causes;
    auto types = ResourceTypesFromCrd(object, &causes);
    if (!types.ok()) return Invalid(type, name, types.status().message(), std::move(causes));
    SetCrdStatus(&object, now);
    AddFinalizer(&object, kCrdCleanupFinalizer);
  }
  if (auto refused = AdmitPriority(*this, type, &object, name, /*create=*/true)) return *refused;
  ApplyBuiltinDefaults(type, &object, /*create=*/true);
  return Validate(type, std::move(object), options);
}

ApiResult<ResourceType> ObjectService::StorageTypeOf(const ResourceType& type,
                                                     const VersionConversion& conversion) const {
  auto storage = registry_->Find(
      conversion.storage_group ? std::string(conversion.storage_group) : type.group,
      conversion.storage_version, type.plural);
  if (!storage) return InternalServerError("the storage version of " + type.plural + " is not served");
  return std::move(*storage);
}

ApiResult<Json> ObjectService::ToStorageVersion(const ResourceType& type,
                                                const VersionConversion& conversion,
                                                const Json& object, const WriteOptions& options) {
  auto checked = Validate(type, object, options, nullptr, /*spec_rules=*/false);
  if (!checked.ok()) return checked;
  auto converted = conversion.to_storage(*checked);
  if (!converted.ok()) return BadRequest(std::string(converted.status().message()));
  return std::move(*converted);
}

ApiResult<Json> ObjectService::Create(const ResourceType& type, std::string_view ns, Json object,
                                      const WriteOptions& options) {
  if (const VersionConversion* conversion = BuiltinConversion(type)) {
    auto storage = StorageTypeOf(type, *conversion);
    if (!storage.ok()) return storage.error();
    auto converted = ToStorageVersion(type, *conversion, object, options);
    if (!converted.ok()) return converted;
    auto created = Create(*storage, ns, std::move(*converted), options);
    if (!created.ok()) return created;
    return conversion->from_storage(*created);
  }
  const Json requested_fields = Lookup(object, {"metadata", "managedFields"});
  auto prepared = PrepareCreate(type, ns, std::move(object), options);
  if (!prepared.ok()) return prepared;
  Json& obj = *prepared;
  if (!options.apply) {
    TrackUpdate(type, nullptr, &obj, WhoWrites(options, "", clock_), requested_fields);
  }
  std::string name = MetaString(obj, "name");
  std::string allocated_ip;
  if (cluster_ips_ && IsCoreKind(type, "services")) {
    auto allocated = cluster_ips_->AllocateOnCreate(type, &obj, options.dry_run, &allocated_ip);
    if (!allocated.ok()) return allocated.error();
  }
  if (options.dry_run) {
    if (store_->Get(ObjectKey(type, MetaString(obj, "namespace"), name)).ok()) {
      return AlreadyExists(type, name);
    }
    return std::move(obj);
  }
  auto kv = store_->Create(ObjectKey(type, MetaString(obj, "namespace"), name),
                           EncodeForStorage(obj));
  if (!kv.ok()) {
    if (!allocated_ip.empty()) cluster_ips_->Release(allocated_ip);
    return FromStatus(kv.status(), type, name);
  }
  Meta(obj)["resourceVersion"] = std::to_string(kv->mod_revision);
  if (IsCrdType(type)) {
    auto types = ResourceTypesFromCrd(obj);
    if (types.ok()) {
      for (auto& t : *types) registry_->Put(std::move(t));
    }
  }
  return std::move(obj);
}

ApiResult<Json> ObjectService::Update(const ResourceType& type, std::string_view ns,
                                      std::string_view name, Json object,
                                      std::string_view subresource, const WriteOptions& options) {
  if (!object.is_object()) return BadRequest("the body of the request must be a JSON object");
  return Modify(
      type, ns, name, [&](const Json&) -> ApiResult<Json> { return object; }, subresource,
      options);
}

ApiResult<Json> ObjectService::Modify(const ResourceType& type, std::string_view ns,
                                      std::string_view name, const Mutator& mutate,
                                      std::string_view subresource, const WriteOptions& options) {
  if (const VersionConversion* conversion = BuiltinConversion(type)) {
    auto storage = StorageTypeOf(type, *conversion);
    if (!storage.ok()) return storage.error();
    auto written = Modify(
        *storage, ns, name,
        [&](const Json& current) -> ApiResult<Json> {
          auto desired = mutate(conversion->from_storage(current));
          if (!desired.ok()) return desired;
          return ToStorageVersion(type, *conversion, *desired, options);
        },
        subresource, options);
    if (!written.ok()) return written;
    return conversion->from_storage(*written);
  }
  for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
    auto current = Get(type, ns, name);
    if (!current.ok()) return current;
    auto desired = mutate(*current);
    if (!desired.ok()) return desired;
    if (!desired->is_object()) return BadRequest("the result of the update must be an object");
    bool retry = false;
    auto result = WriteUpdate(type, ns, name, *current, std::move(*desired), subresource,
                              options, &retry);
    if (!retry) return result;
  }
  return Conflict(type, name);
}

ApiResult<Json> ObjectService::WriteUpdate(const ResourceType& type, std::string_view ns,
                                           std::string_view name, const Json& current,
                                           Json desired, std::string_view subresource,
                                           const WriteOptions& options, bool* retry) {
  const Json cur_meta = Lookup(current, {"metadata"});
  std::string current_rv = cur_meta.value("resourceVersion", "");
  std::string desired_rv = MetaString(desired, "resourceVersion");
  const bool conflicts = !desired_rv.empty() && desired_rv != current_rv;
  if (conflicts && options.field_validation == "Strict" && subresource.empty()) {
    // kube-apiserver decodes the body strictly before its storage compares resourceVersions, so
    // an unknown field is a 400 even when the update would also conflict. (Schema errors, 422,
    // come after the conflict check, below.)
    auto strict = Validate(type, desired, options);
    if (!strict.ok() && strict.error().code == 400) return strict.error();
  }
  if (conflicts) return Conflict(type, name);
  std::string desired_name = MetaString(desired, "name");
  if (!desired_name.empty() && desired_name != name) {
    return BadRequest("the name of the object (" + desired_name +
                      ") does not match the name on the URL (" + std::string(name) + ")");
  }
  std::string desired_ns = MetaString(desired, "namespace");
  if (type.namespaced && !desired_ns.empty() && desired_ns != ns) {
    return BadRequest(
        "the namespace of the provided object does not match the namespace sent on the request");
  }

  const Json requested_fields = Lookup(desired, {"metadata", "managedFields"});
  Json result;
  if (subresource == kSubresourceBinding) {
    result = std::move(desired);
  } else if (subresource == "status") {
    result = current;
    if (desired.contains("status")) {
      result["status"] = desired["status"];
    } else {
      result.erase("status");
    }
    if (options.apply && requested_fields.is_array()) {
      // A server-side apply to the status computed the managedFields (managed_fields.h).
      Meta(result)["managedFields"] = requested_fields;
    }
  } else if (subresource == "finalize") {
    result = current;
    Json finalizers = Lookup(desired, {"spec", "finalizers"});
    if (!result["spec"].is_object()) result["spec"] = Json::object();
    result["spec"]["finalizers"] = finalizers.is_array() ? finalizers : Json::array();
  } else {
    result = std::move(desired);
    if (type.status_subresource) {
      if (current.contains("status")) {
        result["status"] = current["status"];
      } else {
        result.erase("status");
      }
    }
    if (IsCoreKind(type, "namespaces")) {
      Json finalizers = Lookup(current, {"spec", "finalizers"});
      if (!result["spec"].is_object()) result["spec"] = Json::object();
      result["spec"]["finalizers"] = finalizers.is_array() ? finalizers : Json::array();
    }
    if (auto refused = AdmitPriority(*this, type, &result, name, /*create=*/false)) {
      return *refused;
    }
    ApplyBuiltinDefaults(type, &result, /*create=*/false);
    if (cluster_ips_ && IsCoreKind(type, "services")) {
      auto kept = cluster_ips_->KeepOnUpdate(type, current, &result);
      if (!kept.ok()) return kept.error();
    }
  }
  result["apiVersion"] = type.GroupVersion();
  result["kind"] = type.kind;
  Json& meta = Meta(result);
  meta["name"] = std::string(name);
  if (type.namespaced) {
    meta["namespace"] = std::string(ns);
  } else {
    meta.erase("namespace");
  }
  for (const char* f : {"uid", "creationTimestamp", "deletionTimestamp",
                        "deletionGracePeriodSeconds", "generation"}) {
    if (cur_meta.contains(f)) {
      meta[f] = cur_meta[f];
    } else {
      meta.erase(f);
    }
  }
  meta["resourceVersion"] = current_rv;
  if (IsDeleting(current)) {
    // A deleting object may lose finalizers but not gain new ones.
    Json kept = Json::array();
    if (meta.contains("finalizers") && meta["finalizers"].is_array()) {
      for (const auto& f : meta["finalizers"]) {
        if (f.is_string() && HasFinalizer(current, f.get<std::string>())) kept.push_back(f);
      }
    }
    if (kept.empty()) {
      meta.erase("finalizers");
    } else {
      meta["finalizers"] = kept;
    }
  }
  if (IsCrdType(type) && subresource.empty()) {
    std::vector<Json> causes;
    auto types = ResourceTypesFromCrd(result, &causes);
    if (!types.ok()) return Invalid(type, name, types.status().message(), std::move(causes));
  }
  auto validated = Validate(type, std::move(result), options, &current, subresource.empty());
  if (!validated.ok()) return validated;
  result = std::move(*validated);
  if (HasGeneration(type) && SpecChanged(current, result)) {
    Meta(result)["generation"] = cur_meta.value("generation", int64_t{0}) + 1;
  }
  if (!options.apply) {
    // The request's own managedFields only matter as a reset ([{}]); a subresource write
    // carries the stored ones.
    const Json requested = subresource.empty() ? requested_fields : Json();
    TrackUpdate(type, &current, &result, WhoWrites(options, subresource, clock_), requested);
  }
  if (SameStored(current, result)) return current;  // no-op: nothing is written

  std::string key = ObjectKey(type, ns, name);
  int64_t expected = std::stoll(current_rv);
  bool finalize_delete = IsDeleting(result) && !HasFinalizers(result);
  if (finalize_delete && IsCoreKind(type, "namespaces")) {
    finalize_delete = !NonEmptyArray(Lookup(result, {"spec", "finalizers"}));
  }
  if (options.dry_run) return result;
  auto kv = finalize_delete ? store_->Delete(key, expected)
                            : store_->Update(key, EncodeForStorage(result), expected);
  if (!kv.ok()) {
    if (kv.status().code() == StatusCode::kConflict) {
      // Someone wrote in between: a pinned resourceVersion is a user-visible conflict,
      // otherwise the caller re-reads and re-applies.
      if (!desired_rv.empty()) return Conflict(type, name);
      *retry = true;
      return Conflict(type, name);
    }
    return FromStatus(kv.status(), type, name);
  }
  Meta(result)["resourceVersion"] = std::to_string(kv->mod_revision);
  if (finalize_delete) OnRemoved(type, key, result);
  if (IsCrdType(type)) {
    Json group = Lookup(result, {"spec", "group"});
    Json plural = Lookup(result, {"spec", "names", "plural"});
    if (finalize_delete) {
      if (group.is_string() && plural.is_string()) {
        registry_->RemoveGroupResource(group.get<std::string>(), plural.get<std::string>());
      }
    } else if (auto types = ResourceTypesFromCrd(result); types.ok()) {
      for (auto& t : *types) registry_->Put(std::move(t));
    }
  }
  return result;
}

ApiResult<DeleteOutcome> ObjectService::Delete(const ResourceType& type, std::string_view ns,
                                               std::string_view name,
                                               const DeleteOptions& options) {
  if (const VersionConversion* conversion = BuiltinConversion(type)) {
    auto storage = StorageTypeOf(type, *conversion);
    if (!storage.ok()) return storage.error();
    auto deleted = Delete(*storage, ns, name, options);
    if (deleted.ok()) deleted->object = conversion->from_storage(deleted->object);
    return deleted;
  }
  for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
    auto current = Get(type, ns, name);
    if (!current.ok()) return current.error();
    const Json& cur = *current;
    std::string uid = MetaString(cur, "uid");
    std::string rv = MetaString(cur, "resourceVersion");
    if (!options.precondition_uid.empty() && options.precondition_uid != uid) {
      return Conflict(type, name,
                      "Precondition failed: UID in precondition: " + options.precondition_uid +
                          ", UID in object meta: " + uid);
    }
    if (!options.precondition_resource_version.empty() &&
        options.precondition_resource_version != rv) {
      return Conflict(type, name,
                      "Precondition failed: ResourceVersion in precondition: " +
                          options.precondition_resource_version +
                          ", ResourceVersion in object meta: " + rv);
    }
    Json next = cur;
    bool changed = false;
    if (options.propagation == "Foreground") {
      changed |= RemoveFinalizer(&next, kOrphanFinalizer);
      changed |= AddFinalizer(&next, kForegroundFinalizer);
    } else if (options.propagation == "Orphan") {
      changed |= RemoveFinalizer(&next, kForegroundFinalizer);
      changed |= AddFinalizer(&next, kOrphanFinalizer);
    }
    bool graceful = false;
    int64_t grace = 0;
    if (IsCoreKind(type, "pods")) {
      Json node = Lookup(cur, {"spec", "nodeName"});
      Json phase = Lookup(cur, {"status", "phase"});
      Json spec_grace = Lookup(cur, {"spec", "terminationGracePeriodSeconds"});
      grace = options.grace_period_seconds.value_or(
          spec_grace.is_number_integer() ? spec_grace.get<int64_t>() : 30);
      bool finished = phase == "Succeeded" || phase == "Failed";
      graceful = node.is_string() && !node.get<std::string>().empty() && grace > 0 && !finished;
    }
    bool is_namespace = IsCoreKind(type, "namespaces");
    bool keep = HasFinalizers(next) || graceful ||
                (is_namespace && NonEmptyArray(Lookup(cur, {"spec", "finalizers"})));
    if (!keep) {
      if (options.dry_run) return DeleteOutcome{cur, true};
      auto kv = store_->Delete(ObjectKey(type, ns, name), std::stoll(rv));
      if (!kv.ok()) {
        if (kv.status().code() == StatusCode::kConflict) continue;
        return FromStatus(kv.status(), type, name);
      }
      Json last = cur;
      Meta(last)["resourceVersion"] = std::to_string(kv->mod_revision);
      OnRemoved(type, ObjectKey(type, ns, name), last);
      if (IsCrdType(type)) {
        Json group = Lookup(cur, {"spec", "group"});
        Json plural = Lookup(cur, {"spec", "names", "plural"});
        if (group.is_string() && plural.is_string()) {
          registry_->RemoveGroupResource(group.get<std::string>(), plural.get<std::string>());
        }
      }
      return DeleteOutcome{std::move(last), true};
    }
    if (IsDeleting(cur) && !changed) return DeleteOutcome{cur, false};
    Json& meta = Meta(next);
    if (!IsDeleting(cur)) {
      TimePoint now = clock_->Now();
      meta["deletionTimestamp"] = FormatRfc3339(graceful ? now + std::chrono::seconds(grace) : now);
      meta["deletionGracePeriodSeconds"] = graceful ? grace : 0;
      if (meta.contains("generation") && meta["generation"].is_number_integer() &&
          meta["generation"].get<int64_t>() > 0) {
        meta["generation"] = meta["generation"].get<int64_t>() + 1;
      }
      if (is_namespace) next["status"]["phase"] = "Terminating";
    }
    if (options.dry_run) return DeleteOutcome{next, false};
    auto kv = store_->Update(ObjectKey(type, ns, name), EncodeForStorage(next), std::stoll(rv));
    if (!kv.ok()) {
      if (kv.status().code() == StatusCode::kConflict) continue;
      return FromStatus(kv.status(), type, name);
    }
    meta["resourceVersion"] = std::to_string(kv->mod_revision);
    return DeleteOutcome{std::move(next), false};
  }
  return Conflict(type, name);
}

void ObjectService::OnRemoved(const ResourceType& type, const std::string& key,
                              const Json& object) {
  decoded_.Erase(key);
  if (cluster_ips_ && IsCoreKind(type, "services")) cluster_ips_->Release(object);
}

}  // namespace trimtab::cluster
