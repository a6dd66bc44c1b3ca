#include "common/flink_option_reader.h"

#include <limits>
#include <utility>

#include "common/flink_values.h"

namespace trimtab {
namespace {

// Reads `name` with `parse` into `*out` when present; leaves `*out` alone otherwise.
template <typename T, typename Parse>
Status ReadInto(const FlinkOptionReader& reader, std::string_view name,
                FlinkOptionReader::Aliases aliases, T* out, Parse parse) {
  std::optional<FlinkOptionReader::Entry> entry = reader.Find(name, aliases);
  if (!entry) return Status::Ok();
  auto parsed = parse(entry->key, entry->value);
  if (!parsed.ok()) return parsed.status();
  *out = *std::move(parsed);
  return Status::Ok();
}

}  // namespace

FlinkOptionReader::FlinkOptionReader(const std::map<std::string, std::string>& conf,
                                     std::vector<std::string> prefixes)
    : conf_(conf), prefixes_(std::move(prefixes)) {
  if (prefixes_.empty()) prefixes_.emplace_back();
}

std::optional<FlinkOptionReader::Entry> FlinkOptionReader::Find(std::string_view name,
                                                                Aliases aliases) const {
  std::vector<std::string_view> names{name};
  names.insert(names.end(), aliases.begin(), aliases.end());
  std::optional<Entry> hit;
  for (std::string_view n : names) {
    for (const std::string& prefix : prefixes_) {
      std::string key = prefix + std::string(n);
      auto it = conf_.find(key);
      if (it != conf_.end() && !hit) hit = Entry{key, it->second};
      consumed_.insert(std::move(key));
    }
  }
  return hit;
}

std::string FlinkOptionReader::KeyOf(std::string_view name, Aliases aliases) const {
  if (std::optional<Entry> entry = Find(name, aliases)) return entry->key;
  return prefixes_.front() + std::string(name);
}

Status FlinkOptionReader::Duration(std::string_view name, std::chrono::milliseconds* out,
                                   Aliases aliases) const {
  return ReadInto(*this, name, aliases, out, ParseFlinkDurationMillis);
}

Status FlinkOptionReader::OptionalDuration(std::string_view name,
                                           std::optional<std::chrono::milliseconds>* out,
                                           Aliases aliases) const {
  return ReadInto(*this, name, aliases, out, ParseFlinkDurationMillis);
}

Status FlinkOptionReader::Bool(std::string_view name, bool* out, Aliases aliases) const {
  return ReadInto(*this, name, aliases, out, ParseFlinkBool);
}

Status FlinkOptionReader::Int(std::string_view name, int* out, Aliases aliases) const {
  return ReadInto(*this, name, aliases, out,
                  [](std::string_view key, std::string_view value) -> StatusOr<int> {
                    TRIMTAB_ASSIGN_OR_RETURN(int64_t v, ParseFlinkInt(key, value));
                    if (v < std::numeric_limits<int>::min() ||
                        v > std::numeric_limits<int>::max()) {
                      return InvalidArgumentError(std::string(key) + ": value out of range");
                    }
                    return static_cast<int>(v);
                  });
}

Status FlinkOptionReader::Int(std::string_view name, int64_t* out, Aliases aliases) const {
  return ReadInto(*this, name, aliases, out, ParseFlinkInt);
}

Status FlinkOptionReader::OptionalInt(std::string_view name, std::optional<int64_t>* out,
                                      Aliases aliases) const {
  return ReadInto(*this, name, aliases, out, ParseFlinkInt);
}

Status FlinkOptionReader::Double(std::string_view name, double* out, Aliases aliases) const {
  return ReadInto(*this, name, aliases, out, ParseFlinkDouble);
}

Status FlinkOptionReader::OptionalDouble(std::string_view name, std::optional<double>* out,
                                         Aliases aliases) const {
  return ReadInto(*this, name, aliases, out, ParseFlinkDouble);
}

Status FlinkOptionReader::MemorySize(std::string_view name, int64_t* out, Aliases aliases) const {
  return ReadInto(*this, name, aliases, out, ParseFlinkMemorySize);
}

std::vector<std::string> FlinkOptionReader::Unconsumed() const {
  std::vector<std::string> out;
  for (const auto& [key, value] : conf_) {
    for (const std::string& prefix : prefixes_) {
      if (!prefix.empty() && key.starts_with(prefix) && !consumed_.contains(key)) {
        out.push_back(key);
        break;
      }
    }
  }
  return out;
}

}  // namespace trimtab
