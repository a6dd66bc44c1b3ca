// Internal to the snapshot builder: JSON field helpers and the readers of each object kind.
// Not part of the engine's API.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/json.h"
#include "common/status.h"
#include "core/scheduling/snapshot.h"

namespace trimtab::core::scheduling::snapshot_internal {

struct PriorityClasses {
  std::unordered_map<std::string, int32_t> values;
  bool has_default = false;
  int32_t default_value = 0;
};

const Json& Field(const Json& obj, const char* name);
Status GetString(const Json& obj, const char* name, const std::string& path, std::string* out);
Status GetInt(const Json& obj, const char* name, const std::string& path, int64_t* out,
              bool* present = nullptr);
std::string StringOr(const Json& obj, const char* key, std::string fallback);
// Annotation first, then label (Volcano's lookup order for task-spec and preemptable).
const std::string* AnnotationOrLabel(const Json& meta, const char* key);
// Go's strconv.ParseBool.
bool ParseGoBool(std::string_view s, bool* out);
// Go's time.ParseDuration ("30s", "1h30m", "1.5m", "500ms"), rounded up to whole seconds;
// nullopt when `s` is not one.
std::optional<int64_t> ParseGoDurationSeconds(std::string_view s);
// The number after the last '-' of a pod name, -1 when none (Volcano's task name index).
int64_t NameIndex(std::string_view name);
PodGroupPhase PhaseFromName(const std::string& s);
// Volcano's GetPodResourceRequest (containers summed, init containers as max, restartable init
// containers added, overhead, pods 1) and kube-scheduler's non-zero cpu/memory.
Status PodRequests(const Json& spec, const std::string& path, ResourceNameTable* names,
                   Resources* req, double* nonzero_cpu, double* nonzero_mem);
TaskStatus StatusFromPod(const std::string& phase, bool has_node, bool deleting);
bool NodeIsReady(const Json& node);
// "pods[3] (ns/name)".
std::string ObjectLabel(const std::string& list, size_t i, const std::string& ns,
                        const std::string& name);

Status ReadPodGroups(const std::vector<const Json*>& list, const SessionOptions& options,
                     const PriorityClasses& classes, Snapshot* snap);
Status ReadPods(const std::vector<const Json*>& list, const SessionOptions& options,
                const PriorityClasses& classes, Snapshot* snap);

}  // namespace trimtab::core::scheduling::snapshot_internal
