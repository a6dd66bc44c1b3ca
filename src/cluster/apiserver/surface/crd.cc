#include "cluster/apiserver/surface/crd.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "cluster/apiserver/surface/builtin_validation.h"
#include "cluster/apiserver/surface/structural_schema.h"

namespace trimtab::cluster {
namespace {

constexpr std::string_view kCrdGroup = "apiextensions.k8s.io";

std::string Str(const Json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool IsDnsLabel(const std::string& s, bool must_start_alpha) {
  if (s.empty() || s.size() > 63) return false;
  for (char c : s) {
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-')) {
      return false;
    }
  }
  if (s.front() == '-' || s.back() == '-') return false;
  return !must_start_alpha || std::islower(static_cast<unsigned char>(s.front()));
}

// Converts the v1beta1 CRD shape to v1 in place.
// The lists of a structural schema that server-side apply merges by key: x-kubernetes-list-type
// "map" (its x-kubernetes-list-map-keys joined by ',') or "set" (""), keyed by the schema path
// managed_fields.h uses ("spec.ports", items as "[]": "spec.rules[].hosts"). Lists without a
// list type, or "atomic", are replaced whole. Maps of arbitrary keys (additionalProperties) are
// not descended into.
void ListTypesOf(const Json& schema, const std::string& path,
                 std::map<std::string, std::string>* out) {
  if (!schema.is_object()) return;
  if (schema.contains("properties") && schema["properties"].is_object()) {
    for (const auto& [name, child] : schema["properties"].items()) {
      ListTypesOf(child, path.empty() ? name : path + "." + name, out);
    }
  }
  if (schema.value("type", "") != "array" || path.empty()) return;
  const std::string list_type = schema.value("x-kubernetes-list-type", "");
  if (list_type == "set") {
    (*out)[path] = "";
  } else if (list_type == "map") {
    std::string keys;
    const Json map_keys = schema.value("x-kubernetes-list-map-keys", Json::array());
    for (const Json& k : map_keys) {
      if (k.is_string()) keys += (keys.empty() ? "" : ",") + k.get<std::string>();
    }
    if (!keys.empty()) (*out)[path] = keys;
  }
  if (schema.contains("items")) ListTypesOf(schema["items"], path + "[]", out);
}

void ConvertV1Beta1(Json* crd) {
  (*crd)["apiVersion"] = "apiextensions.k8s.io/v1";
  Json& spec = (*crd)["spec"];
  if (!spec.is_object()) return;
  if (!spec.contains("versions") && spec.contains("version")) {
    spec["versions"] = Json::array({{{"name", spec["version"]}, {"served", true}, {"storage", true}}});
  }
  spec.erase("version");
  Json schema;
  if (auto v = spec.find("validation"); v != spec.end() && v->is_object()) {
    schema = v->value("openAPIV3Schema", Json());
  }
  const bool preserve = spec.value("preserveUnknownFields", true);
  if (schema.is_object() && preserve) schema["x-kubernetes-preserve-unknown-fields"] = true;
  if (!schema.is_object() && preserve) {
    schema = {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
  }
  Json columns = Json::array();
  if (auto c = spec.find("additionalPrinterColumns"); c != spec.end() && c->is_array()) {
    for (Json col : *c) {
      if (col.contains("JSONPath")) {
        col["jsonPath"] = col["JSONPath"];
        col.erase("JSONPath");
      }
      columns.push_back(std::move(col));
    }
  }
  Json subresources = spec.value("subresources", Json::object());
  if (spec["versions"].is_array()) {
    for (Json& version : spec["versions"]) {
      if (!version.is_object()) continue;
      if (!version.contains("schema") && schema.is_object()) {
        version["schema"] = {{"openAPIV3Schema", schema}};
      }
      if (!version.contains("additionalPrinterColumns") && !columns.empty()) {
        version["additionalPrinterColumns"] = columns;
      }
      if (!version.contains("subresources") && !subresources.empty()) {
        version["subresources"] = subresources;
      }
    }
  }
  for (const char* key : {"validation", "additionalPrinterColumns", "subresources",
                          "preserveUnknownFields"}) {
    spec.erase(key);
  }
}

std::vector<PrinterColumn> ColumnsOf(const Json& version, const std::string& path,
                                     std::vector<Json>* causes) {
  std::vector<PrinterColumn> out;
  auto cols = version.find("additionalPrinterColumns");
  if (cols == version.end() || !cols->is_array() || cols->empty()) {
    PrinterColumn age;
    age.name = "Age";
    age.type = "date";
    age.json_path = ".metadata.creationTimestamp";
    age.description =
        "CreationTimestamp is a timestamp representing the server time when this object was "
        "created.";
    out.push_back(age);
    return out;
  }
  static const std::set<std::string> kTypes = {"integer", "number", "string", "boolean", "date"};
  for (size_t i = 0; i < cols->size(); ++i) {
    const Json& c = (*cols)[i];
    const std::string cp = path + ".additionalPrinterColumns[" + std::to_string(i) + "]";
    PrinterColumn col;
    col.name = Str(c, "name");
    col.type = Str(c, "type");
    col.format = Str(c, "format");
    col.description = Str(c, "description");
    col.json_path = Str(c, "jsonPath");
    if (c.is_object() && c.contains("priority") && c["priority"].is_number_integer()) {
      col.priority = c["priority"].get<int32_t>();
    }
    if (col.name.empty()) causes->push_back(FieldCause("FieldValueRequired", cp + ".name", "Required value"));
    if (col.type.empty()) {
      causes->push_back(FieldCause("FieldValueRequired", cp + ".type", "Required value"));
    } else if (!kTypes.count(col.type)) {
      causes->push_back(FieldCause("FieldValueNotSupported", cp + ".type",
                                   "Unsupported value: \"" + col.type +
                                       "\": supported values: \"boolean\", \"date\", \"integer\", "
                                       "\"number\", \"string\""));
    }
    if (col.json_path.empty()) {
      causes->push_back(FieldCause("FieldValueRequired", cp + ".jsonPath", "Required value"));
    }
    out.push_back(std::move(col));
  }
  return out;
}

std::vector<std::string> StringList(const Json& obj, const char* key) {
  std::vector<std::string> out;
  if (!obj.is_object()) return out;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_array()) return out;
  for (const Json& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

}  // namespace

void DefaultCrd(Json* crd) {
  if (Str(*crd, "apiVersion") == "apiextensions.k8s.io/v1beta1") ConvertV1Beta1(crd);
  Json& spec = (*crd)["spec"];
  if (!spec.is_object()) return;
  Json& names = spec["names"];
  if (names.is_object()) {
    const std::string kind = Str(names, "kind");
    if (Str(names, "singular").empty() && !kind.empty()) names["singular"] = Lower(kind);
    if (Str(names, "listKind").empty() && !kind.empty()) names["listKind"] = kind + "List";
  }
  if (!spec.contains("conversion")) spec["conversion"] = {{"strategy", "None"}};
}

StatusOr<std::vector<ResourceType>> ResourceTypesFromCrd(const Json& crd) {
  return ResourceTypesFromCrd(crd, nullptr);
}

StatusOr<std::vector<ResourceType>> ResourceTypesFromCrd(const Json& input,
                                                         std::vector<Json>* out_causes) {
  if (!input.is_object()) return InvalidArgumentError("CustomResourceDefinition must be an object");
  Json crd = input;
  const bool legacy = Str(crd, "apiVersion") == "apiextensions.k8s.io/v1beta1";
  DefaultCrd(&crd);
  std::vector<Json> causes;
  const std::string name = Str(crd.value("metadata", Json::object()), "name");
  const Json spec = crd.value("spec", Json::object());
  const std::string group = Str(spec, "group");
  const Json names = spec.value("names", Json::object());
  const std::string plural = Str(names, "plural");
  const std::string kind = Str(names, "kind");
  const std::string scope = Str(spec, "scope");

  if (group.empty()) {
    causes.push_back(FieldCause("FieldValueRequired", "spec.group", "Required value"));
  } else if (group.find('.') == std::string::npos) {
    causes.push_back(FieldCause("FieldValueInvalid", "spec.group",
                                "Invalid value: \"" + group +
                                    "\": should be a domain with at least one dot"));
  }
  if (plural.empty()) {
    causes.push_back(FieldCause("FieldValueRequired", "spec.names.plural", "Required value"));
  } else if (!IsDnsLabel(plural, false)) {
    causes.push_back(FieldCause("FieldValueInvalid", "spec.names.plural",
                                "Invalid value: \"" + plural +
                                    "\": a lowercase RFC 1123 label must consist of lower case "
                                    "alphanumeric characters or '-', and must start and end with "
                                    "an alphanumeric character"));
  }
  if (kind.empty()) {
    causes.push_back(FieldCause("FieldValueRequired", "spec.names.kind", "Required value"));
  }
  if (!plural.empty() && !group.empty() && name != plural + "." + group) {
    causes.push_back(FieldCause("FieldValueInvalid", "metadata.name",
                                "Invalid value: \"" + name +
                                    "\": must be spec.names.plural+\".\"+spec.group"));
  }
  if (scope.empty()) {
    causes.push_back(FieldCause("FieldValueRequired", "spec.scope", "Required value"));
  } else if (scope != "Namespaced" && scope != "Cluster") {
    causes.push_back(FieldCause("FieldValueNotSupported", "spec.scope",
                                "Unsupported value: \"" + scope +
                                    "\": supported values: \"Cluster\", \"Namespaced\""));
  }

  const Json versions = spec.value("versions", Json::array());
  int storage_count = 0;
  std::set<std::string> seen_versions;
  std::vector<ResourceType> out;
  if (!versions.is_array() || versions.empty()) {
    causes.push_back(FieldCause("FieldValueInvalid", "spec.versions",
                                "Invalid value: null: must have exactly one version marked as "
                                "storage version"));
  } else {
    for (size_t i = 0; i < versions.size(); ++i) {
      const Json& v = versions[i];
      const std::string vp = "spec.versions[" + std::to_string(i) + "]";
      const std::string vname = Str(v, "name");
      if (vname.empty()) {
        causes.push_back(FieldCause("FieldValueRequired", vp + ".name", "Required value"));
      } else if (!IsDnsLabel(vname, true)) {
        causes.push_back(FieldCause("FieldValueInvalid", vp + ".name",
                                    "Invalid value: \"" + vname +
                                        "\": a DNS-1035 label must consist of lower case "
                                        "alphanumeric characters or '-', start with an "
                                        "alphabetic character, and end with an alphanumeric "
                                        "character"));
      } else if (!seen_versions.insert(vname).second) {
        causes.push_back(FieldCause("FieldValueDuplicate", "spec.versions",
                                    "Duplicate value: \"" + vname + "\""));
      }
      const bool storage = v.is_object() && v.value("storage", false);
      const bool served = v.is_object() && v.value("served", false);
      if (storage) ++storage_count;
      Json schema = v.is_object() && v.contains("schema") && v["schema"].is_object()
                        ? v["schema"].value("openAPIV3Schema", Json())
                        : Json();
      if (!schema.is_object()) {
        if (!legacy) {
          causes.push_back(FieldCause("FieldValueRequired", vp + ".schema.openAPIV3Schema",
                                      "Required value: schemas are required"));
        }
      } else {
        CheckStructural(schema, vp + ".schema.openAPIV3Schema", &causes);
      }
      ResourceType t;
      t.group = group;
      t.version = vname;
      t.kind = kind;
      t.list_kind = Str(names, "listKind");
      t.plural = plural;
      t.singular = Str(names, "singular");
      t.short_names = StringList(names, "shortNames");
      t.categories = StringList(names, "categories");
      t.namespaced = scope != "Cluster";
      t.storage_version = storage;
      t.served = served;
      t.is_crd = true;
      t.schema = schema;
      t.merge_keys["metadata.ownerReferences"] = "uid";  // ObjectMeta, as for built-in kinds
      t.merge_keys["metadata.finalizers"] = "";
      ListTypesOf(schema, "", &t.merge_keys);
      t.printer_columns = ColumnsOf(v, vp, &causes);
      const Json sub = v.is_object() ? v.value("subresources", Json::object()) : Json::object();
      if (sub.is_object()) {
        t.status_subresource = sub.contains("status");
        if (auto scale = sub.find("scale"); scale != sub.end() && scale->is_object()) {
          ScaleSubresource s;
          s.spec_replicas_path = Str(*scale, "specReplicasPath");
          s.status_replicas_path = Str(*scale, "statusReplicasPath");
          s.label_selector_path = Str(*scale, "labelSelectorPath");
          if (s.spec_replicas_path.empty()) {
            causes.push_back(FieldCause("FieldValueRequired",
                                        vp + ".subresources.scale.specReplicasPath",
                                        "Required value"));
          }
          if (s.status_replicas_path.empty()) {
            causes.push_back(FieldCause("FieldValueRequired",
                                        vp + ".subresources.scale.statusReplicasPath",
                                        "Required value"));
          }
          t.scale_subresource = s;
        }
      }
      if (served) out.push_back(std::move(t));
    }
    if (storage_count != 1) {
      causes.push_back(FieldCause("FieldValueInvalid", "spec.versions",
                                  "Invalid value: " + versions.dump() +
                                      ": must have exactly one version marked as storage version"));
    }
  }
  if (!causes.empty()) {
    std::string message = InvalidMessage("CustomResourceDefinition", kCrdGroup, name, causes);
    if (out_causes != nullptr) out_causes->insert(out_causes->end(), causes.begin(), causes.end());
    return InvalidArgumentError(std::move(message));
  }
  return out;
}

Status ValidateAndDefault(const ResourceType& type, Json* object, std::vector<Json>* causes) {
  return ValidateAndDefault(type, object, causes, nullptr);
}

Status ValidateAndDefault(const ResourceType& type, Json* object, std::vector<Json>* causes,
                          std::vector<std::string>* unknown_fields) {
  // Upstream's own rules first, on the object as sent (builtin_validation.h): metadata for every
  // kind, the kind's rules for built-ins. Then the schema: prune, default, validate.
  std::vector<Json> own;
  ValidateObjectMetaRules(*object, &own);
  ValidateBuiltinObject(type, *object, &own);
  std::vector<Json> found;
  if (type.schema.is_object()) {
    PruneAndDefault(type.schema, object, "", /*root=*/true, unknown_fields);
    ValidateValue(type.schema, *object, "", &found);
  }
  for (Json& cause : own) {  // the schema may have said the same already
    if (std::find(found.begin(), found.end(), cause) == found.end()) found.push_back(std::move(cause));
  }
  if (found.empty()) return Status::Ok();
  std::string name;
  if (object->is_object() && object->contains("metadata") && (*object)["metadata"].is_object()) {
    name = Str((*object)["metadata"], "name");
  }
  std::string message = InvalidMessage(type.kind, type.group, name, found);
  if (causes != nullptr) causes->insert(causes->end(), found.begin(), found.end());
  return InvalidArgumentError(std::move(message));
}

std::string InvalidMessage(std::string_view kind, std::string_view group, std::string_view name,
                           const std::vector<Json>& causes) {
  std::string out(kind);
  if (!group.empty()) {
    out += '.';
    out += group;
  }
  out += " \"" + std::string(name) + "\" is invalid: ";
  std::string list;
  for (const Json& c : causes) {
    if (!list.empty()) list += ", ";
    list += c.value("field", "") + ": " + c.value("message", "");
  }
  return out + (causes.size() > 1 ? "[" + list + "]" : list);
}

std::string StrictDecodingMessage(const std::vector<std::string>& unknown_fields) {
  std::string out = "strict decoding error: ";
  for (size_t i = 0; i < unknown_fields.size(); ++i) {
    if (i > 0) out += ", ";
    out += "unknown field \"" + unknown_fields[i] + "\"";
  }
  return out;
}

}  // namespace trimtab::cluster
