#include "cluster/apiserver/surface/builtin_validation.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "cluster/apiserver/surface/structural_schema.h"
#include "common/k8s_validation.h"
#include "common/label_selector.h"
#include "common/quantity.h"

namespace trimtab::cluster {
namespace {

using Causes = std::vector<Json>;

// Go's %v/%q rendering of a value after "Invalid value: ".
std::string Shown(const Json& v) {
  if (v.is_string() || v.is_number() || v.is_boolean() || v.is_null()) return v.dump();
  if (v.is_object()) {  // a map[string]string, as %#v prints it
    std::string out = "map[string]string{";
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (!first) out += ", ";
      first = false;
      out += Json(it.key()).dump() + ":" + (it->is_string() ? it->dump() : Json(it->dump()).dump());
    }
    return out + "}";
  }
  return Json(v.dump()).dump();
}

void Invalid(const std::string& field, const Json& value, const std::string& msg, Causes* causes) {
  causes->push_back(FieldCause("FieldValueInvalid", field, "Invalid value: " + Shown(value) + ": " + msg));
}
void Required(const std::string& field, Causes* causes, const std::string& detail = "") {
  causes->push_back(FieldCause("FieldValueRequired", field,
                               detail.empty() ? "Required value" : "Required value: " + detail));
}
void Duplicate(const std::string& field, const Json& value, Causes* causes) {
  causes->push_back(FieldCause("FieldValueDuplicate", field, "Duplicate value: " + Shown(value)));
}
void NotSupported(const std::string& field, const Json& value,
                  const std::vector<std::string>& supported, Causes* causes) {
  std::string list;
  for (const auto& s : supported) list += (list.empty() ? "" : ", ") + Json(s).dump();
  causes->push_back(FieldCause("FieldValueNotSupported", field,
                               "Unsupported value: " + Shown(value) + ": supported values: " + list));
}
void TooLong(const std::string& field, size_t max, Causes* causes) {
  causes->push_back(FieldCause("FieldValueTooLong", field,
                               "Too long: may not be more than " + std::to_string(max) + " bytes"));
}
void TypeInvalid(const std::string& field, const Json& value, const std::string& want, Causes* causes) {
  const std::string got(JsonTypeName(value));
  causes->push_back(FieldCause("FieldValueTypeInvalid", field,
                               "Invalid value: \"" + got + "\": " + field + " in body must be of type " +
                                   want + ": \"" + got + "\""));
}

std::string Key(const std::string& path, const std::string& key) { return path + "[" + key + "]"; }

const Json* Child(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

// An integer field; int32 range unless `int64`. Returns the value when it is one.
std::optional<int64_t> IntField(const Json& parent, const char* key, const std::string& path,
                                Causes* causes, bool int64 = false) {
  const Json* v = Child(parent, key);
  if (v == nullptr) return std::nullopt;
  const std::string field = JoinPath(path, key);
  if (!v->is_number_integer() && !v->is_number_unsigned()) {
    TypeInvalid(field, *v, "integer", causes);
    return std::nullopt;
  }
  if (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    Invalid(field, *v, "must be no more than 9223372036854775807", causes);
    return std::nullopt;
  }
  const int64_t n = v->get<int64_t>();
  if (!int64 && (n > std::numeric_limits<int32_t>::max() || n < std::numeric_limits<int32_t>::min())) {
    Invalid(field, *v, "must be no more than 2147483647 and no less than -2147483648 (int32)", causes);
    return std::nullopt;
  }
  return n;
}

void NonNegative(const Json& parent, const char* key, const std::string& path, Causes* causes) {
  if (auto n = IntField(parent, key, path, causes); n && *n < 0) {
    Invalid(JoinPath(path, key), *n, "must be greater than or equal to 0", causes);
  }
}

// ---- metadata ------------------------------------------------------------------------------

void ValidateLabels(const Json& labels, const std::string& path, Causes* causes) {
  if (!labels.is_object()) return;
  for (auto it = labels.begin(); it != labels.end(); ++it) {
    for (const std::string& m : k8s::IsQualifiedName(it.key())) Invalid(path, it.key(), m, causes);
    if (!it->is_string()) {
      TypeInvalid(Key(path, it.key()), *it, "string", causes);
      continue;
    }
    for (const std::string& m : k8s::IsValidLabelValue(it->get_ref<const std::string&>())) {
      Invalid(path, *it, m, causes);
    }
  }
}

void ValidateAnnotations(const Json& annotations, const std::string& path, Causes* causes) {
  if (!annotations.is_object()) return;
  size_t total = 0;
  for (auto it = annotations.begin(); it != annotations.end(); ++it) {
    std::string lower = it.key();
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const std::string& m : k8s::IsQualifiedName(lower)) Invalid(path, it.key(), m, causes);
    total += it.key().size() + (it->is_string() ? it->get_ref<const std::string&>().size() : 0);
  }
  if (total > k8s::kTotalAnnotationSizeLimit) TooLong(path, k8s::kTotalAnnotationSizeLimit, causes);
}

void ValidateFinalizers(const Json& finalizers, const std::string& path, bool core, Causes* causes) {
  if (!finalizers.is_array()) return;
  std::set<std::string> seen;
  for (const Json& f : finalizers) {
    if (!f.is_string()) continue;
    const std::string& name = f.get_ref<const std::string&>();
    const auto errs = k8s::IsQualifiedName(name);
    for (const std::string& m : errs) Invalid(path, f, m, causes);
    if (errs.empty() && core && name.find('/') == std::string::npos && name != "kubernetes" &&
        name != "orphan" && name != "foregroundDeletion") {
      Invalid(path, f, "name is neither a standard finalizer name nor is it fully qualified", causes);
    }
  }
}

void ValidateTemplateMeta(const Json& meta, const std::string& path, Causes* causes) {
  if (const Json* labels = Child(meta, "labels")) ValidateLabels(*labels, path + ".labels", causes);
  if (const Json* ann = Child(meta, "annotations")) ValidateAnnotations(*ann, path + ".annotations", causes);
}

// ---- pods ----------------------------------------------------------------------------------

void ValidateResources(const Json& resources, const std::string& path, Causes* causes) {
  std::map<std::string, Quantity> limits;
  for (const char* bag : {"limits", "requests"}) {
    const Json* m = Child(resources, bag);
    if (m == nullptr || !m->is_object()) continue;
    for (auto it = m->begin(); it != m->end(); ++it) {
      const std::string field = Key(JoinPath(path, bag), it.key());
      StatusOr<Quantity> q = it->is_string() ? Quantity::Parse(it->get_ref<const std::string&>())
                         : it->is_number()   ? Quantity::Parse(it->dump())
                                             : StatusOr<Quantity>(InvalidArgumentError("not a quantity"));
      if (!q.ok()) {
        Invalid(field, *it,
                "quantities must match the regular expression "
                "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
                causes);
        continue;
      }
      if (q->Sign() < 0) {
        Invalid(field, *it, "must be greater than or equal to 0", causes);
        continue;
      }
      if (std::string(bag) == "limits") {
        limits.emplace(it.key(), *q);
      } else if (auto l = limits.find(it.key()); l != limits.end() && l->second.Compare(*q) < 0) {
        Invalid(field, *it,
                "must be less than or equal to " + it.key() + " limit of " + l->second.String(),
                causes);
      }
    }
  }
}

void ValidateContainers(const Json& spec, const char* key, const std::string& path,
                        std::set<std::string>* names, Causes* causes) {
  const Json* list = Child(spec, key);
  if (list == nullptr || !list->is_array()) return;
  for (size_t i = 0; i < list->size(); ++i) {
    const Json& c = (*list)[i];
    const std::string cp = JoinPath(JoinPath(path, key), i);
    if (!c.is_object()) continue;
    const Json* name = Child(c, "name");
    if (name == nullptr || !name->is_string() || name->get_ref<const std::string&>().empty()) {
      Required(cp + ".name", causes);
    } else {
      const std::string& n = name->get_ref<const std::string&>();
      const auto errs = k8s::IsDns1123Label(n);
      for (const std::string& m : errs) Invalid(cp + ".name", *name, m, causes);
      if (errs.empty() && !names->insert(n).second) Duplicate(cp + ".name", *name, causes);
    }
    const Json* image = Child(c, "image");
    if (image == nullptr || !image->is_string() || image->get_ref<const std::string&>().empty()) {
      Required(cp + ".image", causes);
    }
    if (const Json* ports = Child(c, "ports"); ports != nullptr && ports->is_array()) {
      std::set<std::string> port_names;
      for (size_t j = 0; j < ports->size(); ++j) {
        const Json& p = (*ports)[j];
        const std::string pp = JoinPath(cp + ".ports", j);
        if (!p.is_object()) continue;
        auto container_port = IntField(p, "containerPort", pp, causes);
        if (!Child(p, "containerPort") || (container_port && *container_port == 0)) {
          Required(pp + ".containerPort", causes);
        } else if (container_port) {
          for (const std::string& m : k8s::IsValidPortNum(*container_port)) {
            Invalid(pp + ".containerPort", *container_port, m, causes);
          }
        }
        if (auto host_port = IntField(p, "hostPort", pp, causes); host_port && *host_port != 0) {
          for (const std::string& m : k8s::IsValidPortNum(*host_port)) {
            Invalid(pp + ".hostPort", *host_port, m, causes);
          }
        }
        if (const Json* pn = Child(p, "name"); pn != nullptr && pn->is_string() && !pn->get_ref<const std::string&>().empty()) {
          const auto errs = k8s::IsValidPortName(pn->get_ref<const std::string&>());
          for (const std::string& m : errs) Invalid(pp + ".name", *pn, m, causes);
          if (errs.empty() && !port_names.insert(pn->get<std::string>()).second) {
            Duplicate(pp + ".name", *pn, causes);
          }
        }
        if (const Json* proto = Child(p, "protocol"); proto != nullptr &&
            (!proto->is_string() || (*proto != "TCP" && *proto != "UDP" && *proto != "SCTP"))) {
          NotSupported(pp + ".protocol", *proto, {"SCTP", "TCP", "UDP"}, causes);
        }
      }
    }
    if (const Json* res = Child(c, "resources"); res != nullptr && res->is_object()) {
      ValidateResources(*res, cp + ".resources", causes);
    }
  }
}

void ValidatePodSpec(const Json& spec, const std::string& path, Causes* causes) {
  if (!spec.is_object()) return;
  const Json* containers = Child(spec, "containers");
  if (containers == nullptr || !containers->is_array() || containers->empty()) {
    Required(path + ".containers", causes);
  }
  std::set<std::string> names;
  ValidateContainers(spec, "initContainers", path, &names, causes);
  ValidateContainers(spec, "containers", path, &names, causes);
  NonNegative(spec, "terminationGracePeriodSeconds", path, causes);
  if (auto d = IntField(spec, "activeDeadlineSeconds", path, causes, /*int64=*/true); d && *d <= 0) {
    Invalid(path + ".activeDeadlineSeconds", *d, "must be between 1 and 2147483647, inclusive", causes);
  }
}

// ---- workloads -----------------------------------------------------------------------------

// Selector and template of Deployments, ReplicaSets, StatefulSets and DaemonSets.
void ValidateSelectorAndTemplate(const Json& spec, const std::string& what, bool always_restart,
                                 Causes* causes) {
  const Json* selector = Child(spec, "selector");
  std::optional<LabelSelector> parsed;
  if (selector == nullptr) {
    Required("spec.selector", causes);
  } else if (!selector->is_object()) {
    TypeInvalid("spec.selector", *selector, "object", causes);
  } else {
    const Json* ml = Child(*selector, "matchLabels");
    const Json* me = Child(*selector, "matchExpressions");
    if ((ml == nullptr || ml->empty()) && (me == nullptr || me->empty())) {
      // The empty LabelSelector as its generated String() prints it.
      causes->push_back(FieldCause(
          "FieldValueInvalid", "spec.selector",
          "Invalid value: &LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]"
          "LabelSelectorRequirement{},}: empty selector is invalid for " + what));
    } else {
      if (ml != nullptr) ValidateLabels(*ml, "spec.selector.matchLabels", causes);
      StatusOr<LabelSelector> s = LabelSelector::FromJson(*selector);
      if (!s.ok()) {
        Invalid("spec.selector", *selector, "invalid label selector", causes);
      } else {
        parsed = std::move(*s);
      }
    }
  }
  const Json* tmpl = Child(spec, "template");
  if (tmpl == nullptr || !tmpl->is_object()) {
    if (what != "daemonset" || tmpl != nullptr) Required("spec.template", causes);
    return;
  }
  const Json* meta = Child(*tmpl, "metadata");
  if (meta != nullptr) ValidateTemplateMeta(*meta, "spec.template.metadata", causes);
  if (parsed && !parsed->Empty()) {
    LabelMap labels;
    const Json* tl = meta ? Child(*meta, "labels") : nullptr;
    if (tl != nullptr && tl->is_object()) {
      for (auto it = tl->begin(); it != tl->end(); ++it) {
        if (it->is_string()) labels.emplace(it.key(), it->get<std::string>());
      }
    }
    if (!parsed->Matches(labels)) {
      Invalid("spec.template.metadata.labels", tl ? *tl : Json::object(),
              "`selector` does not match template `labels`", causes);
    }
  }
  const Json* pod_spec = Child(*tmpl, "spec");
  if (pod_spec == nullptr) {
    Required("spec.template.spec.containers", causes);
    return;
  }
  ValidatePodSpec(*pod_spec, "spec.template.spec", causes);
  if (const Json* rp = Child(*pod_spec, "restartPolicy"); always_restart && rp != nullptr && *rp != "Always") {
    NotSupported("spec.template.spec.restartPolicy", *rp, {"Always"}, causes);
  }
}

void ValidateReplicated(const Json& object, const std::string& what, Causes* causes) {
  const Json* spec = Child(object, "spec");
  if (spec == nullptr || !spec->is_object()) {
    Required("spec.selector", causes);
    return;
  }
  NonNegative(*spec, "replicas", "spec", causes);
  NonNegative(*spec, "minReadySeconds", "spec", causes);
  NonNegative(*spec, "revisionHistoryLimit", "spec", causes);
  ValidateSelectorAndTemplate(*spec, what, /*always_restart=*/true, causes);
}

void ValidateJobSpec(const Json& spec, const std::string& path, Causes* causes) {
  for (const char* key : {"parallelism", "completions", "backoffLimit"}) NonNegative(spec, key, path, causes);
  const Json* tmpl = Child(spec, "template");
  if (tmpl == nullptr || !tmpl->is_object()) {
    Required(path + ".template", causes);
    return;
  }
  if (const Json* meta = Child(*tmpl, "metadata")) ValidateTemplateMeta(*meta, path + ".template.metadata", causes);
  const Json* pod_spec = Child(*tmpl, "spec");
  if (pod_spec == nullptr) {
    Required(path + ".template.spec.containers", causes);
    return;
  }
  ValidatePodSpec(*pod_spec, path + ".template.spec", causes);
  if (const Json* rp = Child(*pod_spec, "restartPolicy"); rp != nullptr && *rp != "OnFailure" && *rp != "Never") {
    NotSupported(path + ".template.spec.restartPolicy", *rp, {"OnFailure", "Never"}, causes);
  }
}

// ---- services, config ------------------------------------------------------------------------

void ValidateService(const Json& object, Causes* causes) {
  const Json* spec = Child(object, "spec");
  if (spec == nullptr || !spec->is_object()) return;
  const std::string type = spec->value("type", "ClusterIP");
  const bool headless = spec->value("clusterIP", "") == "None";
  const Json* ports = Child(*spec, "ports");
  if ((ports == nullptr || !ports->is_array() || ports->empty())) {
    if (type != "ExternalName" && !headless) Required("spec.ports", causes);
    return;
  }
  const bool require_name = ports->size() > 1;
  std::set<std::string> names;
  for (size_t i = 0; i < ports->size(); ++i) {
    const Json& p = (*ports)[i];
    const std::string pp = JoinPath("spec.ports", i);
    if (!p.is_object()) continue;
    const Json* name = Child(p, "name");
    const std::string n = name && name->is_string() ? name->get<std::string>() : "";
    if (n.empty()) {
      if (require_name) Required(pp + ".name", causes);
    } else {
      const auto errs = k8s::IsDns1123Label(n);
      for (const std::string& m : errs) Invalid(pp + ".name", n, m, causes);
      if (errs.empty() && !names.insert(n).second) Duplicate(pp + ".name", n, causes);
    }
    auto port = IntField(p, "port", pp, causes);
    if (!Child(p, "port")) {
      Invalid(pp + ".port", 0, "must be between 1 and 65535, inclusive", causes);
    } else if (port) {
      for (const std::string& m : k8s::IsValidPortNum(*port)) Invalid(pp + ".port", *port, m, causes);
    }
    if (const Json* proto = Child(p, "protocol"); proto != nullptr &&
        (!proto->is_string() || (*proto != "TCP" && *proto != "UDP" && *proto != "SCTP"))) {
      NotSupported(pp + ".protocol", *proto, {"SCTP", "TCP", "UDP"}, causes);
    }
    if (const Json* target = Child(p, "targetPort")) {
      if (target->is_number_integer()) {
        const int64_t t = target->get<int64_t>();
        if (t != 0) {
          for (const std::string& m : k8s::IsValidPortNum(t)) Invalid(pp + ".targetPort", t, m, causes);
        }
      } else if (target->is_string()) {
        for (const std::string& m : k8s::IsValidPortName(target->get_ref<const std::string&>())) {
          Invalid(pp + ".targetPort", *target, m, causes);
        }
      } else {
        TypeInvalid(pp + ".targetPort", *target, "integer,string", causes);
      }
    }
    if (auto node_port = IntField(p, "nodePort", pp, causes); node_port && *node_port != 0) {
      for (const std::string& m : k8s::IsValidPortNum(*node_port)) {
        Invalid(pp + ".nodePort", *node_port, m, causes);
      }
    }
  }
}

constexpr size_t kMaxConfigSize = 1024 * 1024;  // core.MaxSecretSize, also for ConfigMaps

void ValidateConfigData(const Json& object, bool secret, Causes* causes) {
  const Json* data = Child(object, "data");
  const Json* binary = secret ? nullptr : Child(object, "binaryData");
  size_t total = 0;
  const auto check = [&](const Json* bag, const char* name, const Json* other, const char* other_name) {
    if (bag == nullptr || !bag->is_object()) return;
    for (auto it = bag->begin(); it != bag->end(); ++it) {
      const std::string field = Key(name, it.key());
      for (const std::string& m : k8s::IsConfigMapKey(it.key())) Invalid(field, it.key(), m, causes);
      if (other != nullptr && other->is_object() && other->contains(it.key())) {
        Invalid(field, it.key(), std::string("duplicate of key present in ") + other_name, causes);
      }
      if (it->is_string()) total += it->get_ref<const std::string&>().size();
    }
  };
  check(data, "data", binary, "binaryData");
  check(binary, "binaryData", data, "data");
  if (total > kMaxConfigSize) {
    // Secrets count decoded bytes; base64 text is 4/3 of them.
    if (!secret || total * 3 / 4 > kMaxConfigSize) TooLong(secret ? "data" : "<root>", kMaxConfigSize, causes);
  }
}

}  // namespace

void ValidateObjectMetaRules(const Json& object, std::vector<Json>* causes) {
  const Json* meta = Child(object, "metadata");
  if (meta == nullptr || !meta->is_object()) return;
  if (const Json* labels = Child(*meta, "labels")) ValidateLabels(*labels, "metadata.labels", causes);
  if (const Json* ann = Child(*meta, "annotations")) ValidateAnnotations(*ann, "metadata.annotations", causes);
  const std::string api_version = object.value("apiVersion", "");
  if (const Json* fin = Child(*meta, "finalizers")) {
    ValidateFinalizers(*fin, "metadata.finalizers", api_version == "v1", causes);
  }
}

void ValidateBuiltinObject(const ResourceType& type, const Json& object, std::vector<Json>* causes) {
  if (type.is_crd || !object.is_object()) return;
  const std::string& kind = type.kind;
  if (type.group.empty()) {
    if (kind == "Pod") {
      if (const Json* spec = Child(object, "spec")) ValidatePodSpec(*spec, "spec", causes);
    } else if (kind == "Service") {
      ValidateService(object, causes);
    } else if (kind == "ConfigMap") {
      ValidateConfigData(object, /*secret=*/false, causes);
    } else if (kind == "Secret") {
      ValidateConfigData(object, /*secret=*/true, causes);
    } else if (kind == "ReplicationController") {
      const Json* spec = Child(object, "spec");
      if (spec != nullptr) NonNegative(*spec, "replicas", "spec", causes);
    }
    return;
  }
  if (type.group == "apps") {
    if (kind == "Deployment") ValidateReplicated(object, "deployment", causes);
    if (kind == "ReplicaSet") ValidateReplicated(object, "deployment", causes);  // sic, upstream
    if (kind == "StatefulSet") ValidateReplicated(object, "statefulset", causes);
    if (kind == "DaemonSet") {
      const Json* spec = Child(object, "spec");
      if (spec != nullptr && spec->is_object()) {
        ValidateSelectorAndTemplate(*spec, "daemonset", /*always_restart=*/true, causes);
      }
    }
    return;
  }
  if (type.group == "batch") {
    const Json* spec = Child(object, "spec");
    if (spec == nullptr || !spec->is_object()) return;
    if (kind == "Job") ValidateJobSpec(*spec, "spec", causes);
    if (kind == "CronJob") {
      const Json* jt = Child(*spec, "jobTemplate");
      const Json* js = jt ? Child(*jt, "spec") : nullptr;
      if (js != nullptr && js->is_object()) ValidateJobSpec(*js, "spec.jobTemplate.spec", causes);
    }
  }
}

void SecretStringDataToData(Json* object) {
  auto it = object->find("stringData");
  if (it == object->end()) return;
  if (it->is_object()) {
    Json& data = (*object)["data"];
    if (!data.is_object()) data = Json::object();
    static constexpr char kAlphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (auto kv = it->begin(); kv != it->end(); ++kv) {
      if (!kv->is_string()) continue;
      const std::string& in = kv->get_ref<const std::string&>();
      std::string out;
      out.reserve((in.size() + 2) / 3 * 4);
      size_t i = 0;
      for (; i + 2 < in.size(); i += 3) {
        const uint32_t n = (static_cast<uint8_t>(in[i]) << 16) | (static_cast<uint8_t>(in[i + 1]) << 8) |
                           static_cast<uint8_t>(in[i + 2]);
        for (int s = 18; s >= 0; s -= 6) out.push_back(kAlphabet[(n >> s) & 63]);
      }
      if (i + 1 == in.size()) {
        const uint32_t n = static_cast<uint8_t>(in[i]) << 16;
        out += {kAlphabet[(n >> 18) & 63], kAlphabet[(n >> 12) & 63], '=', '='};
      } else if (i + 2 == in.size()) {
        const uint32_t n = (static_cast<uint8_t>(in[i]) << 16) | (static_cast<uint8_t>(in[i + 1]) << 8);
        out += {kAlphabet[(n >> 18) & 63], kAlphabet[(n >> 12) & 63], kAlphabet[(n >> 6) & 63], '='};
      }
      data[kv.key()] = std::move(out);
    }
  }
  object->erase("stringData");
}

}  // namespace trimtab::cluster
