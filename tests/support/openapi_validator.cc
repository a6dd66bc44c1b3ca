#include "tests/support/openapi_validator.h"

#include <limits>
#include <regex>

namespace trimtab::testing {

namespace {

constexpr char kRefPrefix[] = "#/components/schemas/";

std::string TypeOf(const Json& v) { return std::string(JsonTypeName(v)); }

class Validator {
 public:
  Validator(const OpenApiSpec& spec, const ValidationOptions& options) : spec_(spec), o_(options) {}

  void Check(const Json& schema, const Json& value, const std::string& path, const std::string& owner, int depth) {
    if (depth > 64) {
      Problem(path, "schema nesting too deep (recursive $ref?)");
      return;
    }
    if (schema.contains("$ref")) {
      const std::string ref = schema["$ref"].get<std::string>();
      if (!ref.starts_with(kRefPrefix)) return Problem(path, "unsupported $ref " + ref);
      const std::string name = ref.substr(sizeof(kRefPrefix) - 1);
      const Json* target = spec_.Schema(name);
      if (!target) return Problem(path, "unknown schema " + name);
      return Check(*target, value, path, name, depth + 1);
    }
    if (value.is_null()) {
      if (schema.value("nullable", false)) return;
      return Problem(path, "is null (schema " + (owner.empty() ? std::string("inline") : owner) + " is not nullable)");
    }
    if (schema.contains("discriminator") && value.is_object()) {
      const Json& d = schema["discriminator"];
      const std::string prop = d.value("propertyName", "");
      if (value.contains(prop) && value[prop].is_string() && d.contains("mapping")) {
        const std::string key = value[prop].get<std::string>();
        if (!d["mapping"].contains(key)) return Problem(path + "." + prop, "unknown discriminator value \"" + key + "\"");
        return Check(Json{{"$ref", d["mapping"][key]}}, value, path, owner, depth + 1);
      }
    }
    for (const char* alt : {"oneOf", "anyOf"}) {
      if (!schema.contains(alt)) continue;
      std::string first_problems;
      for (const Json& option : schema[alt]) {
        Validator sub(spec_, o_);
        sub.Check(option, value, path, owner, depth + 1);
        if (sub.problems_.empty()) return;
        if (first_problems.empty()) first_problems = sub.problems_.front();
      }
      return Problem(path, std::string("matches none of the ") + alt + " alternatives (first: " + first_problems + ")");
    }
    if (schema.contains("enum")) {
      for (const Json& e : schema["enum"]) {
        if (e == value) return;
      }
      return Problem(path, "value " + value.dump() + " is not one of " + schema["enum"].dump());
    }
    if (schema.contains("allOf")) return CheckAllOf(schema, value, path, owner, depth);
    const std::string type = schema.value("type", "");
    if (type == "object" || schema.contains("properties") || schema.contains("additionalProperties")) {
      if (!value.is_object()) return Problem(path, "expected object, got " + TypeOf(value));
      std::vector<Property> props;
      if (schema.contains("properties")) {
        for (const auto& [name, s] : schema["properties"].items()) props.push_back({name, &s, owner});
      }
      std::set<std::string> required;
      if (schema.contains("required")) {
        for (const Json& r : schema["required"]) required.insert(r.get<std::string>());
      }
      const Json* additional = schema.contains("additionalProperties") ? &schema["additionalProperties"] : nullptr;
      return CheckObject(props, required, additional, value, path, depth);
    }
    if (type == "array") {
      if (!value.is_array()) return Problem(path, "expected array, got " + TypeOf(value));
      if (!schema.contains("items")) return;
      for (size_t i = 0; i < value.size(); ++i) Check(schema["items"], value[i], path + "[" + std::to_string(i) + "]", owner, depth + 1);
      return;
    }
    if (type == "string") {
      if (!value.is_string()) return Problem(path, "expected string, got " + TypeOf(value));
      if (schema.contains("pattern")) {
        const std::regex re(schema["pattern"].get<std::string>());
        if (!std::regex_match(value.get<std::string>(), re)) {
          Problem(path, "\"" + value.get<std::string>() + "\" does not match " + schema["pattern"].get<std::string>());
        }
      }
      return;
    }
    if (type == "integer") {
      if (!value.is_number_integer()) return Problem(path, "expected integer, got " + TypeOf(value) + " " + value.dump());
      if (schema.value("format", "") == "int32") {
        const double v = value.get<double>();
        if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
          Problem(path, value.dump() + " is out of int32 range");
        }
      }
      return;
    }
    if (type == "number") {
      if (!value.is_number()) Problem(path, "expected number, got " + TypeOf(value));
      return;
    }
    if (type == "boolean") {
      if (!value.is_boolean()) Problem(path, "expected boolean, got " + TypeOf(value));
      return;
    }
    // No constraint (e.g. a bare schema): anything goes.
  }

  std::vector<std::string> problems_;

 private:
  struct Property {
    std::string name;
    const Json* schema;
    std::string owner;
  };

  void Problem(const std::string& path, const std::string& what) { problems_.push_back(path + ": " + what); }

  // The parts of an allOf merged into one object schema (properties keep the component that
  // declares them as owner).
  void CheckAllOf(const Json& schema, const Json& value, const std::string& path, const std::string& owner, int depth) {
    if (!value.is_object()) return Problem(path, "expected object, got " + TypeOf(value));
    std::vector<Property> props;
    std::set<std::string> required;
    const Json* additional = nullptr;
    std::vector<std::pair<const Json*, std::string>> parts;
    for (const Json& part : schema["allOf"]) parts.push_back({&part, owner});
    if (schema.contains("properties")) parts.push_back({&schema, owner});
    for (size_t i = 0; i < parts.size(); ++i) {
      const Json* part = parts[i].first;
      std::string part_owner = parts[i].second;
      if (part->contains("$ref")) {
        const std::string ref = (*part)["$ref"].get<std::string>();
        part_owner = ref.substr(sizeof(kRefPrefix) - 1);
        part = spec_.Schema(part_owner);
        if (!part) return Problem(path, "unknown schema " + part_owner);
      }
      if (part->contains("allOf") && part != &schema) {
        for (const Json& nested : (*part)["allOf"]) parts.push_back({&nested, part_owner});
      }
      if (part->contains("properties")) {
        for (const auto& [name, s] : (*part)["properties"].items()) props.push_back({name, &s, part_owner});
      }
      if (part->contains("required")) {
        for (const Json& r : (*part)["required"]) required.insert(r.get<std::string>());
      }
      if (part->contains("additionalProperties")) additional = &(*part)["additionalProperties"];
    }
    CheckObject(props, required, additional, value, path, depth);
  }

  void CheckObject(const std::vector<Property>& props, const std::set<std::string>& required, const Json* additional,
                   const Json& value, const std::string& path, int depth) {
    std::set<std::string> known;
    for (const Property& p : props) {
      known.insert(p.name);
      const std::string key = p.owner + "." + p.name;
      if (!value.contains(p.name)) {
        if (required.count(p.name)) {
          Problem(path, "required property \"" + p.name + "\" is missing");
        } else if (o_.require_all_properties && !o_.optional.count(key)) {
          Problem(path, "documented property \"" + p.name + "\" (" + key + ") is missing");
        }
        continue;
      }
      const Json& v = value[p.name];
      if (v.is_null() && o_.nullable.count(key)) continue;
      Check(*p.schema, v, path + "." + p.name, p.owner, depth + 1);
    }
    for (const std::string& r : required) {
      if (!known.count(r) && !value.contains(r)) Problem(path, "required property \"" + r + "\" is missing");
    }
    for (const auto& [name, v] : value.items()) {
      if (known.count(name)) continue;
      if (additional && additional->is_object()) {
        Check(*additional, v, path + "." + name, "", depth + 1);
      } else if (additional && additional->is_boolean() && additional->get<bool>()) {
        continue;
      } else if (o_.closed_objects && !props.empty()) {
        Problem(path, "property \"" + name + "\" is not in the schema");
      }
    }
  }

  const OpenApiSpec& spec_;
  const ValidationOptions& o_;
};

}  // namespace

StatusOr<OpenApiSpec> OpenApiSpec::Load(const std::string& path) {
  TRIMTAB_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return Parse(text, path);
}

StatusOr<OpenApiSpec> OpenApiSpec::Parse(std::string_view yaml, std::string_view what) {
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, ParseYaml(yaml, what));
  if (!doc.is_object() || !doc.contains("paths") || !doc["paths"].is_object()) {
    return InvalidArgumentError(std::string(what) + ": not an OpenAPI document (no paths)");
  }
  OpenApiSpec spec;
  if (doc.contains("info") && doc["info"].contains("version")) spec.version_ = doc["info"]["version"].get<std::string>();
  if (doc.contains("components") && doc["components"].contains("schemas")) {
    for (const auto& [name, s] : doc["components"]["schemas"].items()) spec.schemas_[name] = s;
  }
  for (const auto& [path, item] : doc["paths"].items()) {
    for (const auto& [method, op] : item.items()) {
      if (method != "get" && method != "post" && method != "put" && method != "patch" && method != "delete") continue;
      Operation o;
      o.path = path;
      for (char c : method) o.method += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (op.contains("responses")) {
        for (const char* code : {"200", "201", "202"}) {
          if (!op["responses"].contains(code)) continue;
          o.status = code;
          const Json& r = op["responses"][code];
          if (r.contains("content") && r["content"].contains("application/json") &&
              r["content"]["application/json"].contains("schema")) {
            o.schema = r["content"]["application/json"]["schema"];
          }
          break;
        }
      }
      spec.operations_.push_back(std::move(o));
    }
  }
  return spec;
}

const Json* OpenApiSpec::Schema(const std::string& name) const {
  auto it = schemas_.find(name);
  return it == schemas_.end() ? nullptr : &it->second;
}

std::vector<std::string> ValidateJson(const OpenApiSpec& spec, const Json& schema, const Json& value,
                                      const ValidationOptions& options) {
  Validator v(spec, options);
  v.Check(schema, value, "$", "", 0);
  return v.problems_;
}

}  // namespace trimtab::testing
