#include "cluster/flink/flink_config.h"

#include <cctype>
#include <charconv>
#include <cmath>

#include <yaml-cpp/yaml.h>

#include "common/flink_values.h"

namespace trimtab::sim::flink {

namespace {

std::string Unquote(std::string_view s) {
  s = TrimSpaces(s);
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) {
    s = s.substr(1, s.size() - 2);
  }
  return std::string(s);
}

// Legacy `key: value` line (flink-conf.yaml, FLINK_PROPERTIES). False for blank, comment or
// malformed lines, which Flink skips with a warning.
bool ParseKeyValueLine(std::string_view line, std::string* key, std::string* value) {
  const size_t hash = line.find('#');
  if (hash != std::string_view::npos) line = line.substr(0, hash);
  const size_t colon = line.find(": ");
  std::string_view k, v;
  if (colon == std::string_view::npos) {
    if (line.empty() || line.back() != ':') return false;  // "key:" with an empty value
    k = line.substr(0, line.size() - 1);
  } else {
    k = line.substr(0, colon);
    v = line.substr(colon + 2);
  }
  k = TrimSpaces(k);
  if (k.empty()) return false;
  *key = std::string(k);
  *value = Unquote(v);
  return true;
}

Status Flatten(const YAML::Node& node, const std::string& prefix, std::map<std::string, std::string>* out,
               std::string_view what) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      for (const auto& kv : node) {
        const std::string key = kv.first.as<std::string>();
        TRIMTAB_RETURN_IF_ERROR(Flatten(kv.second, prefix.empty() ? key : prefix + "." + key, out, what));
      }
      return Status::Ok();
    case YAML::NodeType::Sequence: {
      std::string joined;
      for (size_t i = 0; i < node.size(); ++i) {
        if (!node[i].IsScalar()) {
          return InvalidArgumentError(std::string(what) + ": " + prefix + "[" + std::to_string(i) +
                                      "]: expected a scalar list item");
        }
        if (i > 0) joined += ";";
        joined += node[i].Scalar();
      }
      (*out)[prefix] = joined;
      return Status::Ok();
    }
    case YAML::NodeType::Scalar:
      (*out)[prefix] = node.Scalar();
      return Status::Ok();
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      (*out)[prefix] = "";
      return Status::Ok();
  }
  return Status::Ok();
}

}  // namespace

StatusOr<FlinkConfig> FlinkConfig::ParseConfigYaml(std::string_view text, std::string_view what) {
  FlinkConfig c;
  if (TrimSpaces(text).empty()) return c;
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(std::string(what) + ": invalid YAML: " + e.what());
  }
  if (root.IsNull()) return c;
  if (!root.IsMap()) return InvalidArgumentError(std::string(what) + ": expected a map of configuration keys");
  try {
    TRIMTAB_RETURN_IF_ERROR(Flatten(root, "", &c.entries_, what));
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(std::string(what) + ": " + e.what());
  }
  return c;
}

FlinkConfig FlinkConfig::ParseFlinkConfYaml(std::string_view text) {
  FlinkConfig c;
  c.ApplyFlinkProperties(text);
  return c;
}

void FlinkConfig::ApplyFlinkProperties(std::string_view text) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string key, value;
    if (ParseKeyValueLine(text.substr(start, end - start), &key, &value)) entries_[key] = value;
    start = end + 1;
  }
}

void FlinkConfig::ApplyDynamicProperties(const std::vector<std::string>& args) {
  std::vector<std::string> tokens;
  for (const std::string& arg : args) {
    size_t i = 0;
    while (i < arg.size()) {
      while (i < arg.size() && std::isspace(static_cast<unsigned char>(arg[i]))) ++i;
      if (i >= arg.size()) break;
      std::string token;
      char quote = 0;
      while (i < arg.size() && (quote || !std::isspace(static_cast<unsigned char>(arg[i])))) {
        const char ch = arg[i++];
        if (quote) {
          if (ch == quote) quote = 0; else token += ch;
        } else if (ch == '"' || ch == '\'') {
          quote = ch;
        } else {
          token += ch;
        }
      }
      tokens.push_back(std::move(token));
    }
  }
  for (size_t i = 0; i < tokens.size(); ++i) {
    std::string kv;
    if (tokens[i] == "-D" && i + 1 < tokens.size()) {
      kv = tokens[++i];
    } else if (tokens[i].size() > 2 && tokens[i].starts_with("-D")) {
      kv = tokens[i].substr(2);
    } else {
      continue;
    }
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    entries_[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
}

void FlinkConfig::MergeFrom(const FlinkConfig& other) {
  for (const auto& [k, v] : other.entries_) entries_[k] = v;
}

std::optional<std::string> FlinkConfig::Get(const std::string& key) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> FlinkConfig::GetFirst(const std::vector<std::string>& keys) const {
  for (const std::string& k : keys) {
    if (auto v = Get(k)) return v;
  }
  return std::nullopt;
}

std::string FlinkConfig::GetString(const std::string& key, std::string fallback) const {
  auto v = Get(key);
  return v ? *v : std::move(fallback);
}

StatusOr<int64_t> FlinkConfig::GetInt(const std::string& key, int64_t fallback) const {
  auto v = Get(key);
  if (!v) return fallback;
  StatusOr<int64_t> parsed = ParseFlinkInt(key, *v);
  if (!parsed.ok()) return InvalidArgumentError("Flink configuration " + parsed.status().message());
  return parsed;
}

StatusOr<double> FlinkConfig::GetDouble(const std::string& key, double fallback) const {
  auto v = Get(key);
  if (!v) return fallback;
  StatusOr<double> parsed = ParseFlinkDouble(key, *v);
  if (!parsed.ok()) return InvalidArgumentError("Flink configuration " + parsed.status().message());
  return parsed;
}

StatusOr<bool> FlinkConfig::GetBool(const std::string& key, bool fallback) const {
  auto v = Get(key);
  if (!v) return fallback;
  StatusOr<bool> parsed = ParseFlinkBool(key, *v);
  if (!parsed.ok()) return InvalidArgumentError("Flink configuration " + parsed.status().message());
  return parsed;
}

StatusOr<std::optional<std::chrono::milliseconds>> FlinkConfig::GetDuration(const std::string& key) const {
  auto v = Get(key);
  if (!v) return std::optional<std::chrono::milliseconds>();
  StatusOr<std::chrono::milliseconds> d = ParseFlinkDurationMillis(key, *v);
  if (!d.ok()) return InvalidArgumentError("Flink configuration " + d.status().message());
  return std::optional<std::chrono::milliseconds>(*d);
}

StatusOr<std::chrono::milliseconds> FlinkConfig::GetDuration(const std::string& key,
                                                            std::chrono::milliseconds fallback) const {
  TRIMTAB_ASSIGN_OR_RETURN(std::optional<std::chrono::milliseconds> d, GetDuration(key));
  return d.value_or(fallback);
}

StatusOr<std::optional<int64_t>> FlinkConfig::GetMemoryBytes(const std::string& key) const {
  auto v = Get(key);
  if (!v) return std::optional<int64_t>();
  StatusOr<int64_t> bytes = ParseFlinkMemorySize(key, *v);
  if (!bytes.ok()) return InvalidArgumentError("Flink configuration " + bytes.status().message());
  return std::optional<int64_t>(*bytes);
}

std::string FlinkVersion::String() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::optional<FlinkVersion> FlinkVersion::Parse(std::string_view text) {
  std::string t(TrimSpaces(text));
  if (!t.empty() && (t[0] == 'v' || t[0] == 'V')) t = t.substr(1);
  for (char& c : t) {
    if (c == '_') c = '.';
  }
  int parts[3] = {0, 0, 0};
  int n = 0;
  size_t i = 0;
  while (n < 3 && i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) {
    int value = 0;
    const size_t start = i;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) value = value * 10 + (t[i++] - '0');
    if (i - start > 4) return std::nullopt;
    parts[n++] = value;
    if (i < t.size() && t[i] == '.') ++i; else break;
  }
  if (n < 2 || parts[0] < 1 || parts[0] > 9) return std::nullopt;
  return FlinkVersion{parts[0], parts[1], parts[2]};
}

std::optional<FlinkVersion> FlinkVersion::FromImage(std::string_view image) {
  if (image.find('@') != std::string_view::npos) return std::nullopt;
  const size_t slash = image.rfind('/');
  const std::string_view last = slash == std::string_view::npos ? image : image.substr(slash + 1);
  const size_t colon = last.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  return Parse(last.substr(colon + 1));
}

}  // namespace trimtab::sim::flink
