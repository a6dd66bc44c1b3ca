#include "core/scheduling/plugin_args.h"

#include <nlohmann/json.hpp>

namespace trimtab::core::scheduling {

const Json* PluginArgs::Find(std::string_view key) {
  seen_.insert(std::string(key));
  if (!args_.is_object()) return nullptr;
  auto it = args_.find(std::string(key));
  if (it == args_.end() || it->is_null()) return nullptr;
  return &*it;
}

bool PluginArgs::Has(std::string_view key) const {
  return args_.is_object() && args_.contains(std::string(key));
}

Status PluginArgs::Int(std::string_view key, int* out) {
  const Json* v = Find(key);
  if (!v) return Status::Ok();
  if (!v->is_number_integer()) {
    return InvalidArgumentError(FieldPath(key) + ": expected an integer, got " +
                                std::string(JsonTypeName(*v)));
  }
  *out = v->get<int>();
  return Status::Ok();
}

Status PluginArgs::Float(std::string_view key, double* out) {
  const Json* v = Find(key);
  if (!v) return Status::Ok();
  if (!v->is_number()) {
    return InvalidArgumentError(FieldPath(key) + ": expected a number, got " +
                                std::string(JsonTypeName(*v)));
  }
  *out = v->get<double>();
  return Status::Ok();
}

Status PluginArgs::Bool(std::string_view key, bool* out) {
  const Json* v = Find(key);
  if (!v) return Status::Ok();
  if (v->is_boolean()) {
    *out = v->get<bool>();
    return Status::Ok();
  }
  if (v->is_string()) {
    const std::string& s = v->get_ref<const std::string&>();
    if (s == "1" || s == "t" || s == "T" || s == "true" || s == "TRUE" || s == "True") {
      *out = true;
      return Status::Ok();
    }
    if (s == "0" || s == "f" || s == "F" || s == "false" || s == "FALSE" || s == "False") {
      *out = false;
      return Status::Ok();
    }
  }
  return InvalidArgumentError(FieldPath(key) + ": expected a boolean, got " +
                              (v->is_string() ? "\"" + v->get<std::string>() + "\""
                                              : std::string(JsonTypeName(*v))));
}

Status PluginArgs::String(std::string_view key, std::string* out) {
  const Json* v = Find(key);
  if (!v) return Status::Ok();
  if (!v->is_string()) {
    return InvalidArgumentError(FieldPath(key) + ": expected a string, got " +
                                std::string(JsonTypeName(*v)));
  }
  *out = v->get<std::string>();
  return Status::Ok();
}

void PluginArgs::Accept(std::initializer_list<std::string_view> keys) {
  for (std::string_view k : keys) seen_.insert(std::string(k));
}

void PluginArgs::AcceptPrefix(std::string_view prefix) { prefixes_.insert(std::string(prefix)); }

Status PluginArgs::NoUnknownKeys() const {
  if (!args_.is_object()) return Status::Ok();
  for (auto it = args_.begin(); it != args_.end(); ++it) {
    if (seen_.count(it.key())) continue;
    bool prefixed = false;
    for (const auto& p : prefixes_) {
      if (std::string_view(it.key()).starts_with(p)) prefixed = true;
    }
    if (!prefixed) return InvalidArgumentError(FieldPath(it.key()) + ": unknown argument");
  }
  return Status::Ok();
}

}  // namespace trimtab::core::scheduling
