#include "cluster/apiserver/surface/structural_schema.h"

#include <cmath>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "cluster/apiserver/surface/schema_builder.h"
#include "common/regex.h"

namespace trimtab::cluster {
namespace {

bool Flag(const Json& schema, const char* key) {
  auto it = schema.find(key);
  return it != schema.end() && it->is_boolean() && it->get<bool>();
}

std::string TypeOf(const Json& schema) {
  auto it = schema.find("type");
  return it != schema.end() && it->is_string() ? it->get<std::string>() : "";
}

const Json& MetadataSchema() {
  static const Json* meta = new Json(schema::ObjectMeta());
  return *meta;
}

// Value as the apiserver prints it after "Invalid value: ".
std::string PrintValue(const Json& v) {
  if (v.is_string() || v.is_number() || v.is_boolean() || v.is_null()) return v.dump();
  return "\"" + std::string(JsonTypeName(v)) + "\"";
}

std::string Quote(const Json& v) {
  return v.is_string() ? v.dump() : "\"" + v.dump() + "\"";
}

// ---- structural check ----------------------------------------------------------------------

void CheckNode(const Json& s, const std::string& path, bool root, bool in_value_validation,
               std::vector<Json>* causes) {
  if (!s.is_object()) {
    causes->push_back(FieldCause("FieldValueInvalid", path, "Invalid value: must be a schema"));
    return;
  }
  if (s.contains("$ref")) {
    causes->push_back(FieldCause("FieldValueForbidden", path + ".$ref", "Forbidden: $ref is not supported"));
  }
  const std::string type = TypeOf(s);
  const bool int_or_string = Flag(s, "x-kubernetes-int-or-string");
  const bool preserve = Flag(s, "x-kubernetes-preserve-unknown-fields");
  if (!in_value_validation) {
    if (root && type != "object") {
      if (type.empty()) {
        causes->push_back(FieldCause("FieldValueRequired", path + ".type",
                                     "Required value: must not be empty at the root"));
      } else {
        causes->push_back(FieldCause("FieldValueInvalid", path + ".type",
                                     "Invalid value: \"" + type + "\": must be object at the root"));
      }
    } else if (type.empty() && !int_or_string && !preserve) {
      causes->push_back(FieldCause("FieldValueRequired", path + ".type",
                                   "Required value: must not be empty for specified object fields"));
    }
    if (int_or_string && !type.empty()) {
      causes->push_back(FieldCause("FieldValueForbidden", path + ".type",
                                   "Forbidden: must be empty if x-kubernetes-int-or-string is true"));
    }
  }
  auto props = s.find("properties");
  auto additional = s.find("additionalProperties");
  if (props != s.end() && additional != s.end() &&
      !(additional->is_boolean() && additional->get<bool>())) {
    causes->push_back(FieldCause("FieldValueForbidden", path + ".additionalProperties",
                                 "Forbidden: additionalProperties and properties are mutual exclusive"));
  }
  if (props != s.end() && props->is_object()) {
    for (auto it = props->begin(); it != props->end(); ++it) {
      const std::string child = path + ".properties[" + it.key() + "]";
      if (root && it.key() == "metadata" && it->is_object()) {
        for (auto m = it->begin(); m != it->end(); ++m) {
          if (m.key() != "type" && m.key() != "properties" && m.key() != "description") {
            causes->push_back(FieldCause(
                "FieldValueForbidden", child,
                "Forbidden: must not specify anything other than name and generateName, but "
                "metadata is implicitly specified"));
            break;
          }
        }
        if (auto mp = it->find("properties"); mp != it->end() && mp->is_object()) {
          for (auto f = mp->begin(); f != mp->end(); ++f) {
            if (f.key() != "name" && f.key() != "generateName") {
              causes->push_back(FieldCause(
                  "FieldValueForbidden", child + ".properties[" + f.key() + "]",
                  "Forbidden: must not specify anything other than name and generateName, but "
                  "metadata is implicitly specified"));
            }
          }
        }
      }
      CheckNode(*it, child, false, in_value_validation, causes);
    }
  }
  if (additional != s.end() && additional->is_object()) {
    CheckNode(*additional, path + ".additionalProperties", false, in_value_validation, causes);
  }
  if (auto items = s.find("items"); items != s.end()) {
    if (items->is_object()) {
      CheckNode(*items, path + ".items", false, in_value_validation, causes);
    } else {
      causes->push_back(FieldCause("FieldValueForbidden", path + ".items",
                                   "Forbidden: items must be a schema object and not an array"));
    }
  } else if (type == "array" && !in_value_validation) {
    causes->push_back(FieldCause("FieldValueRequired", path + ".items",
                                 "Required value: must be specified"));
  }
  if (auto p = s.find("pattern"); p != s.end() && p->is_string() && !p->get<std::string>().empty()) {
    if (StatusOr<Regex> re = CachedRegex(p->get<std::string>()); !re.ok()) {
      causes->push_back(FieldCause("FieldValueInvalid", path + ".pattern",
                                   "Invalid value: " + p->dump() +
                                       ": must be a valid regular expression, but isn't: " +
                                       std::string(re.status().message())));
    }
  }
  for (const char* key : {"anyOf", "allOf", "oneOf"}) {
    auto it = s.find(key);
    if (it == s.end() || !it->is_array()) continue;
    for (size_t i = 0; i < it->size(); ++i) {
      CheckNode((*it)[i], path + "." + key + "[" + std::to_string(i) + "]", false, true, causes);
    }
  }
}

// ---- prune and default ---------------------------------------------------------------------

void PruneObject(const Json& schema, Json* obj, const std::string& path, bool keep_type_meta,
                 std::vector<std::string>* unknown);

void PruneValue(const Json& schema, Json* value, const std::string& path,
                std::vector<std::string>* unknown) {
  if (!schema.is_object()) return;
  if (value->is_object()) {
    PruneObject(schema, value, path, Flag(schema, "x-kubernetes-embedded-resource"), unknown);
  } else if (value->is_array()) {
    auto items = schema.find("items");
    if (items == schema.end() || !items->is_object()) return;
    for (size_t i = 0; i < value->size(); ++i) {
      PruneValue(*items, &(*value)[i], JoinPath(path, i), unknown);
    }
  }
}

void PruneObject(const Json& schema, Json* obj, const std::string& path, bool keep_type_meta,
                 std::vector<std::string>* unknown) {
  const bool preserve = Flag(schema, "x-kubernetes-preserve-unknown-fields");
  auto props = schema.find("properties");
  auto additional = schema.find("additionalProperties");
  const bool has_props = props != schema.end() && props->is_object();
  std::vector<std::string> drop;
  for (auto it = obj->begin(); it != obj->end(); ++it) {
    const std::string& key = it.key();
    const std::string child = JoinPath(path, key);
    if (keep_type_meta && (key == "apiVersion" || key == "kind")) continue;
    if (keep_type_meta && key == "metadata") {
      if (it->is_object()) PruneObject(MetadataSchema(), &it.value(), child, false, unknown);
      continue;
    }
    const Json* sub = nullptr;
    if (has_props) {
      auto p = props->find(key);
      if (p != props->end()) sub = &*p;
    }
    if (sub == nullptr && additional != schema.end()) {
      if (additional->is_object()) {
        sub = &*additional;
      } else if (additional->is_boolean() && additional->get<bool>()) {
        continue;
      }
    }
    if (sub == nullptr) {
      if (!preserve) drop.push_back(key);
      continue;
    }
    if (it->is_null() && !Flag(*sub, "nullable")) {
      drop.push_back(key);  // a null of a non-nullable field is pruned, not reported
      continue;
    }
    PruneValue(*sub, &it.value(), child, unknown);
  }
  for (const std::string& key : drop) {
    if (!(*obj)[key].is_null() && unknown != nullptr) unknown->push_back(JoinPath(path, key));
    obj->erase(key);
  }
}

void DefaultValue(const Json& schema, Json* value) {
  if (!schema.is_object()) return;
  if (value->is_object()) {
    if (auto props = schema.find("properties"); props != schema.end() && props->is_object()) {
      for (auto p = props->begin(); p != props->end(); ++p) {
        if (!value->contains(p.key())) {
          auto d = p->find("default");
          if (d != p->end()) (*value)[p.key()] = *d;
        }
        if (value->contains(p.key())) DefaultValue(*p, &(*value)[p.key()]);
      }
    }
    if (auto add = schema.find("additionalProperties"); add != schema.end() && add->is_object()) {
      for (auto& [key, v] : value->items()) DefaultValue(*add, &v);
    }
  } else if (value->is_array()) {
    if (auto items = schema.find("items"); items != schema.end() && items->is_object()) {
      for (Json& v : *value) DefaultValue(*items, &v);
    }
  }
}

// ---- validation ----------------------------------------------------------------------------

bool IsIntegral(const Json& v) {
  if (v.is_number_integer() || v.is_number_unsigned()) return true;
  if (!v.is_number_float()) return false;
  double d = v.get<double>();
  return std::isfinite(d) && d == std::floor(d);
}

bool TypeMatches(const std::string& type, const Json& v) {
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "string") return v.is_string();
  if (type == "boolean") return v.is_boolean();
  if (type == "integer") return IsIntegral(v);
  if (type == "number") return v.is_number();
  return true;
}

std::string Field(const std::string& path) { return path.empty() ? "<root>" : path; }

void Invalid(const std::string& path, const Json& value, const std::string& detail,
             std::vector<Json>* causes) {
  causes->push_back(FieldCause("FieldValueInvalid", path,
                               "Invalid value: " + PrintValue(value) + ": " + detail));
}

void ValidateNumber(const Json& s, const Json& v, const std::string& path,
                    std::vector<Json>* causes) {
  const double d = v.get<double>();
  const std::string f = Field(path);
  if (auto m = s.find("minimum"); m != s.end() && m->is_number()) {
    bool exclusive = Flag(s, "exclusiveMinimum");
    double min = m->get<double>();
    if (exclusive ? d <= min : d < min) {
      Invalid(path, v, f + " in body should be greater than " + std::string(exclusive ? "" : "or equal to ") + m->dump(), causes);
    }
  }
  if (auto m = s.find("maximum"); m != s.end() && m->is_number()) {
    bool exclusive = Flag(s, "exclusiveMaximum");
    double max = m->get<double>();
    if (exclusive ? d >= max : d > max) {
      Invalid(path, v, f + " in body should be less than " + std::string(exclusive ? "" : "or equal to ") + m->dump(), causes);
    }
  }
}

void ValidateString(const Json& s, const Json& v, const std::string& path,
                    std::vector<Json>* causes) {
  const std::string& str = v.get_ref<const std::string&>();
  const std::string f = Field(path);
  if (auto m = s.find("maxLength"); m != s.end() && m->is_number_integer() &&
                                    static_cast<int64_t>(str.size()) > m->get<int64_t>()) {
    causes->push_back(FieldCause("FieldValueTooLong", path,
                                 "Too long: may not be more than " + m->dump() + " bytes"));
  }
  if (auto m = s.find("minLength"); m != s.end() && m->is_number_integer() &&
                                    static_cast<int64_t>(str.size()) < m->get<int64_t>()) {
    Invalid(path, v, f + " in body should be at least " + m->dump() + " chars long", causes);
  }
  if (auto p = s.find("pattern"); p != s.end() && p->is_string()) {
    // RE2 (linear time, as Go's regexp the apiserver uses). A CRD whose pattern does not
    // compile is refused at CheckStructural; a stored one is not enforced.
    StatusOr<Regex> re = CachedRegex(p->get<std::string>());
    if (re.ok() && !re->PartialMatch(str)) {
      Invalid(path, v, f + " in body should match '" + p->get<std::string>() + "'", causes);
    }
  }
}

}  // namespace

Json FieldCause(const std::string& reason, const std::string& field, const std::string& message) {
  return {{"reason", reason}, {"message", message}, {"field", field}};
}

void CheckStructural(const Json& schema, const std::string& path, std::vector<Json>* causes) {
  CheckNode(schema, path, /*root=*/true, /*in_value_validation=*/false, causes);
}

void PruneAndDefault(const Json& schema, Json* value, const std::string& path, bool root,
                     std::vector<std::string>* unknown_fields) {
  if (value->is_object()) {
    PruneObject(schema, value, path, root || Flag(schema, "x-kubernetes-embedded-resource"),
                unknown_fields);
  } else {
    PruneValue(schema, value, path, unknown_fields);
  }
  DefaultValue(schema, value);
}

void ValidateValue(const Json& s, const Json& v, const std::string& path,
                   std::vector<Json>* causes) {
  if (!s.is_object()) return;
  const std::string f = Field(path);
  if (v.is_null()) {
    if (Flag(s, "nullable")) return;
    const std::string type = TypeOf(s);
    if (!type.empty()) {
      causes->push_back(FieldCause("FieldValueTypeInvalid", path,
                                   "Invalid value: \"null\": " + f + " in body must be of type " +
                                       type + ": \"null\""));
    }
    return;
  }
  if (Flag(s, "x-kubernetes-int-or-string")) {
    if (!IsIntegral(v) && !v.is_string()) {
      causes->push_back(FieldCause("FieldValueTypeInvalid", path,
                                   "Invalid value: \"" + std::string(JsonTypeName(v)) + "\": " + f +
                                       " in body must be of type integer,string: \"" +
                                       std::string(JsonTypeName(v)) + "\""));
      return;
    }
  }
  const std::string type = TypeOf(s);
  if (!type.empty() && !TypeMatches(type, v)) {
    const std::string got(JsonTypeName(v));
    causes->push_back(FieldCause("FieldValueTypeInvalid", path,
                                 "Invalid value: \"" + got + "\": " + f +
                                     " in body must be of type " + type + ": \"" + got + "\""));
    return;
  }
  if (auto e = s.find("enum"); e != s.end() && e->is_array()) {
    bool found = false;
    for (const Json& allowed : *e) found = found || allowed == v;
    if (!found) {
      std::string supported;
      for (const Json& allowed : *e) {
        if (!supported.empty()) supported += ", ";
        supported += Quote(allowed);
      }
      causes->push_back(FieldCause("FieldValueNotSupported", path,
                                   "Unsupported value: " + PrintValue(v) +
                                       ": supported values: " + supported));
    }
  }
  if (v.is_number()) ValidateNumber(s, v, path, causes);
  if (v.is_string()) ValidateString(s, v, path, causes);
  if (v.is_array()) {
    if (auto m = s.find("maxItems"); m != s.end() && m->is_number_integer() &&
                                     static_cast<int64_t>(v.size()) > m->get<int64_t>()) {
      causes->push_back(FieldCause("FieldValueTooMany", path,
                                   "Too many: " + std::to_string(v.size()) +
                                       ": must have at most " + m->dump() + " items"));
    }
    if (auto m = s.find("minItems"); m != s.end() && m->is_number_integer() &&
                                     static_cast<int64_t>(v.size()) < m->get<int64_t>()) {
      Invalid(path, v, f + " in body should have at least " + m->dump() + " items", causes);
    }
    if (auto items = s.find("items"); items != s.end() && items->is_object()) {
      for (size_t i = 0; i < v.size(); ++i) ValidateValue(*items, v[i], JoinPath(path, i), causes);
    }
  }
  if (v.is_object()) {
    if (auto req = s.find("required"); req != s.end() && req->is_array()) {
      for (const Json& name : *req) {
        if (name.is_string() && !v.contains(name.get<std::string>())) {
          causes->push_back(FieldCause("FieldValueRequired", JoinPath(path, name.get<std::string>()),
                                       "Required value"));
        }
      }
    }
    auto props = s.find("properties");
    auto additional = s.find("additionalProperties");
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string child = JoinPath(path, it.key());
      if (props != s.end() && props->contains(it.key())) {
        ValidateValue((*props)[it.key()], *it, child, causes);
      } else if (additional != s.end() && additional->is_object()) {
        ValidateValue(*additional, *it, child, causes);
      }
    }
    if (Flag(s, "x-kubernetes-embedded-resource") && !v.empty()) {
      for (const char* key : {"apiVersion", "kind"}) {
        auto it = v.find(key);
        if (it == v.end() || !it->is_string() || it->get<std::string>().empty()) {
          causes->push_back(FieldCause("FieldValueRequired", JoinPath(path, key),
                                       "Required value: must not be empty"));
        }
      }
    }
  }
}

}  // namespace trimtab::cluster
