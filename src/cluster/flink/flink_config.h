// FlinkConfig: a Flink configuration as the simulated JobManager reads it (flat `key -> value`
// strings, like org.apache.flink.configuration.Configuration), with typed getters whose errors
// name the key, plus the Flink version the cluster mimics.
//
// Sources, in the order a JobManager applies them (later wins):
//   config.yaml     (Flink >= 1.19, standard YAML; nested maps flatten to dotted keys)
//   flink-conf.yaml (legacy: one `key: value` per line, `#` comments)
//   -Dkey=value     tokens of the container args
//   FLINK_PROPERTIES env (newline-separated `key: value`)
//
// Usage:
//   TRIMTAB_ASSIGN_OR_RETURN(FlinkConfig c, FlinkConfig::ParseConfigYaml(text, "config.yaml"));
//   c.ApplyDynamicProperties(args);
//   TRIMTAB_ASSIGN_OR_RETURN(int slots, c.GetInt("taskmanager.numberOfTaskSlots", 1));
//
// Thread-safety: values.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace trimtab::sim::flink {

class FlinkConfig {
 public:
  FlinkConfig() = default;

  // config.yaml (nested or flat YAML); lists become `a;b` (Flink's list separator).
  static StatusOr<FlinkConfig> ParseConfigYaml(std::string_view text, std::string_view what);
  // Legacy flink-conf.yaml: `key: value` lines; malformed lines are skipped as Flink does.
  static FlinkConfig ParseFlinkConfYaml(std::string_view text);

  // -Dkey=value tokens anywhere in `args` (also inside `bash -c "... -Dk=v ..."` strings).
  void ApplyDynamicProperties(const std::vector<std::string>& args);
  // FLINK_PROPERTIES: newline-separated `key: value` lines.
  void ApplyFlinkProperties(std::string_view text);
  // Every entry of `other` overrides this one's.
  void MergeFrom(const FlinkConfig& other);

  void Set(std::string key, std::string value) { entries_[std::move(key)] = std::move(value); }
  void Remove(const std::string& key) { entries_.erase(key); }
  bool Has(const std::string& key) const { return entries_.count(key) > 0; }
  std::optional<std::string> Get(const std::string& key) const;
  // The first of `keys` that is set (a key and its deprecated names).
  std::optional<std::string> GetFirst(const std::vector<std::string>& keys) const;
  std::string GetString(const std::string& key, std::string fallback) const;

  StatusOr<int64_t> GetInt(const std::string& key, int64_t fallback) const;
  StatusOr<double> GetDouble(const std::string& key, double fallback) const;
  StatusOr<bool> GetBool(const std::string& key, bool fallback) const;
  // Flink durations ("30 s", "5 min", plain number = ms). nullopt when unset.
  StatusOr<std::optional<std::chrono::milliseconds>> GetDuration(const std::string& key) const;
  StatusOr<std::chrono::milliseconds> GetDuration(const std::string& key, std::chrono::milliseconds fallback) const;
  // Flink memory sizes ("1728m", "2 gb", "4096"; binary units). nullopt when unset.
  StatusOr<std::optional<int64_t>> GetMemoryBytes(const std::string& key) const;

  const std::map<std::string, std::string>& entries() const { return entries_; }

 private:
  std::map<std::string, std::string> entries_;
};

// The Flink release the simulated cluster mimics; it decides the REST shapes that changed
// between releases (see docs/flink-sim.md "Versions").
struct FlinkVersion {
  int major = 1;
  int minor = 20;
  int patch = 0;

  bool AtLeast(int maj, int min) const { return major > maj || (major == maj && minor >= min); }
  std::string String() const;  // "1.20.0"
  // From an image reference: "flink:1.18", "apache/flink:1.20.1-scala_2.12-java11",
  // "flink:2.0" -> that version; anything else (no tag, "latest", a digest) -> nullopt.
  static std::optional<FlinkVersion> FromImage(std::string_view image);
  // "1.19", "1.20.1", "v1_20" (the operator's FlinkVersion enum) -> the version.
  static std::optional<FlinkVersion> Parse(std::string_view text);
};

}  // namespace trimtab::sim::flink
