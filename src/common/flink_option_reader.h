// FlinkOptionReader: typed reads of options from a Flink configuration map, with the value syntax
// of common/flink_values.h and errors that name the key the user wrote.
//
// An option is named without its prefix; the reader tries each of its prefixes in order (and,
// for each, the name and then its aliases), and the first key present wins:
//
//   FlinkOptionReader r(conf, {"job.autoscaler.", "kubernetes.operator.job.autoscaler."});
//   TRIMTAB_RETURN_IF_ERROR(r.Duration("metrics.window", &options.metrics_window));
//
// An absent option leaves `*out` as it was (the caller's default). The reader remembers every
// key it was asked about, so Unconsumed() lists keys under its prefixes that nobody reads
// (misspelled options).
//
// Thread-safety: not thread-safe; a reader is a short-lived local. `conf` must outlive it.
#pragma once

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace trimtab {

class FlinkOptionReader {
 public:
  using Aliases = std::initializer_list<std::string_view>;
  struct Entry {
    std::string key;  // the full key as found in the configuration
    std::string value;
  };

  FlinkOptionReader(const std::map<std::string, std::string>& conf,
                    std::vector<std::string> prefixes);

  // The first key present for `name` or an alias under any prefix; nullopt when none is.
  std::optional<Entry> Find(std::string_view name, Aliases aliases = {}) const;
  // The key Find would report, or the first prefix + `name` when the option is absent.
  std::string KeyOf(std::string_view name, Aliases aliases = {}) const;

  Status Duration(std::string_view name, std::chrono::milliseconds* out,
                  Aliases aliases = {}) const;
  Status OptionalDuration(std::string_view name, std::optional<std::chrono::milliseconds>* out,
                          Aliases aliases = {}) const;
  Status Bool(std::string_view name, bool* out, Aliases aliases = {}) const;
  // Fails when the value does not fit an int.
  Status Int(std::string_view name, int* out, Aliases aliases = {}) const;
  Status Int(std::string_view name, int64_t* out, Aliases aliases = {}) const;
  Status OptionalInt(std::string_view name, std::optional<int64_t>* out,
                     Aliases aliases = {}) const;
  Status Double(std::string_view name, double* out, Aliases aliases = {}) const;
  Status OptionalDouble(std::string_view name, std::optional<double>* out,
                        Aliases aliases = {}) const;
  // Bytes.
  Status MemorySize(std::string_view name, int64_t* out, Aliases aliases = {}) const;

  // Keys under the reader's prefixes that no call has asked about, in key order.
  std::vector<std::string> Unconsumed() const;

 private:
  const std::map<std::string, std::string>& conf_;
  std::vector<std::string> prefixes_;
  mutable std::set<std::string> consumed_;
};

}  // namespace trimtab
