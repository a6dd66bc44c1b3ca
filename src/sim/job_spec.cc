#include "sim/job_spec.h"

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "sim/key_groups.h"
#include "sim/parse_util.h"

namespace trimtab::sim {

std::string_view ShipStrategyName(ShipStrategy s) {
  switch (s) {
    case ShipStrategy::kForward: return "FORWARD";
    case ShipStrategy::kRebalance: return "REBALANCE";
    case ShipStrategy::kHash: return "HASH";
  }
  return "REBALANCE";
}

namespace {

Status ReadInt(JsonReader& r, std::string_view field, int* out) {
  int64_t v = *out;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt(field, &v));
  if (v < INT32_MIN || v > INT32_MAX) return InvalidArgumentError(r.FieldPath(field) + ": out of range");
  *out = static_cast<int>(v);
  return Status::Ok();
}

// stoppingOffsets: a number (every partition) or a list of numbers (one per partition).
Status ReadStoppingOffsets(JsonReader& r, std::vector<double>* out) {
  const Json* value = r.Get("stoppingOffsets");
  if (!value) return Status::Ok();
  const std::string path = r.FieldPath("stoppingOffsets");
  if (value->is_number()) {
    out->assign(1, value->get<double>());
    return Status::Ok();
  }
  if (!value->is_array() || value->empty()) {
    return InvalidArgumentError(path + ": expected a number or a non-empty list of numbers");
  }
  out->clear();
  for (size_t i = 0; i < value->size(); ++i) {
    if (!(*value)[i].is_number()) return InvalidArgumentError(JoinPath(path, i) + ": expected a number");
    out->push_back((*value)[i].get<double>());
  }
  return Status::Ok();
}

StatusOr<VertexSpec> ParseVertex(const Json& json, const std::string& path) {
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  VertexSpec v;
  TRIMTAB_RETURN_IF_ERROR(r.RequiredString("id", &v.id));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("name", &v.name));
  TRIMTAB_RETURN_IF_ERROR(ReadInt(r, "parallelism", &v.parallelism));
  TRIMTAB_RETURN_IF_ERROR(ReadInt(r, "maxParallelism", &v.max_parallelism));
  TRIMTAB_RETURN_IF_ERROR(r.RequiredDouble("capacityPerSubtask", &v.capacity_per_subtask));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("selectivity", &v.selectivity));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("keySkew", &v.key_skew));
  TRIMTAB_RETURN_IF_ERROR(ReadInt(r, "partitions", &v.partitions));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("rateFactor", &v.rate_factor));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("initialBacklog", &v.initial_backlog));
  TRIMTAB_RETURN_IF_ERROR(ReadStoppingOffsets(r, &v.stopping_offsets));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("stateBytes", &v.state_bytes));
  TRIMTAB_RETURN_IF_ERROR(OptionalSeconds(r, "stateRetention", &v.state_retention_seconds));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("stateBytesPerRecord", &v.state_bytes_per_record));
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return v;
}

StatusOr<EdgeSpec> ParseEdge(const Json& json, const std::string& path) {
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  EdgeSpec e;
  TRIMTAB_RETURN_IF_ERROR(r.RequiredString("from", &e.from));
  TRIMTAB_RETURN_IF_ERROR(r.RequiredString("to", &e.to));
  std::string ship = "rebalance";
  TRIMTAB_RETURN_IF_ERROR(r.OptionalEnum("ship", {"forward", "rebalance", "hash"}, &ship));
  e.ship = ship == "forward" ? ShipStrategy::kForward
           : ship == "hash"  ? ShipStrategy::kHash
                             : ShipStrategy::kRebalance;
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return e;
}

Status ParseCheckpoint(JsonReader& parent, CheckpointSpec* c) {
  const Json* json = parent.Get("checkpoint");
  if (!json) return Status::Ok();
  JsonReader r(*json, parent.FieldPath("checkpoint"));
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  TRIMTAB_RETURN_IF_ERROR(OptionalSeconds(r, "interval", &c->interval_seconds));
  TRIMTAB_RETURN_IF_ERROR(OptionalSeconds(r, "baseDuration", &c->base_duration_seconds));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("bandwidthBytesPerSecond", &c->bandwidth_bytes_per_second));
  return r.NoUnknownFields();
}

Status ParseRestart(JsonReader& parent, RestartSpec* s) {
  const Json* json = parent.Get("restart");
  if (!json) return Status::Ok();
  JsonReader r(*json, parent.FieldPath("restart"));
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  TRIMTAB_RETURN_IF_ERROR(OptionalSeconds(r, "baseDowntime", &s->base_downtime_seconds));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("restoreBandwidthBytesPerSecond",
                                           &s->restore_bandwidth_bytes_per_second));
  std::string from = "checkpoint";
  TRIMTAB_RETURN_IF_ERROR(r.OptionalEnum("rescaleFrom", {"checkpoint", "savepoint"}, &from));
  s->rescale_from = from == "savepoint" ? RestoreSource::kSavepoint : RestoreSource::kCheckpoint;
  TRIMTAB_RETURN_IF_ERROR(OptionalSeconds(r, "failureBackoff", &s->failure_backoff_seconds));
  return r.NoUnknownFields();
}

Status ParseTaskManager(JsonReader& parent, TaskManagerSpec* t) {
  const Json* json = parent.Get("taskManager");
  if (!json) return Status::Ok();
  JsonReader r(*json, parent.FieldPath("taskManager"));
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  TRIMTAB_RETURN_IF_ERROR(ReadInt(r, "slots", &t->slots));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("cpuCores", &t->cpu_cores));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("heapBytes", &t->heap_bytes));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("baseHeapBytes", &t->base_heap_bytes));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("heapPerBusySlotBytes", &t->heap_per_busy_slot_bytes));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalBool("stateOnHeap", &t->state_on_heap));
  return r.NoUnknownFields();
}

}  // namespace

StatusOr<JobSpec> ParseJobSpec(const Json& json, const std::string& path) {
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  JobSpec spec;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("name", &spec.name));
  const Json* vertices = r.Get("vertices");
  if (!vertices || !vertices->is_array() || vertices->empty()) {
    return InvalidArgumentError(r.FieldPath("vertices") + ": expected a non-empty list");
  }
  for (size_t i = 0; i < vertices->size(); ++i) {
    TRIMTAB_ASSIGN_OR_RETURN(VertexSpec v,
                             ParseVertex((*vertices)[i], JoinPath(r.FieldPath("vertices"), i)));
    spec.vertices.push_back(std::move(v));
  }
  if (const Json* edges = r.Get("edges")) {
    if (!edges->is_array()) return InvalidArgumentError(r.FieldPath("edges") + ": expected a list");
    for (size_t i = 0; i < edges->size(); ++i) {
      TRIMTAB_ASSIGN_OR_RETURN(EdgeSpec e, ParseEdge((*edges)[i], JoinPath(r.FieldPath("edges"), i)));
      spec.edges.push_back(std::move(e));
    }
  }
  TRIMTAB_RETURN_IF_ERROR(ParseCheckpoint(r, &spec.checkpoint));
  TRIMTAB_RETURN_IF_ERROR(ParseRestart(r, &spec.restart));
  TRIMTAB_RETURN_IF_ERROR(ParseTaskManager(r, &spec.task_manager));
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  TRIMTAB_RETURN_IF_ERROR(ValidateJobSpec(spec).WithContext(path.empty() ? "job" : path));
  return spec;
}

Status ValidateJobSpec(JobSpec& spec) {
  if (spec.vertices.empty()) return InvalidArgumentError("vertices: expected a non-empty list");
  std::map<VertexId, size_t> index;
  for (size_t i = 0; i < spec.vertices.size(); ++i) {
    VertexSpec& v = spec.vertices[i];
    const std::string path = JoinPath("vertices", i);
    if (v.id.empty()) return InvalidArgumentError(path + ".id: must not be empty");
    if (!index.emplace(v.id, i).second) {
      return InvalidArgumentError(path + ".id: duplicate vertex id \"" + v.id + "\"");
    }
    if (v.name.empty()) v.name = v.id;
    if (v.parallelism < 1) return InvalidArgumentError(path + ".parallelism: must be at least 1");
    if (v.max_parallelism == 0) v.max_parallelism = DefaultMaxParallelism(v.parallelism);
    if (v.max_parallelism < v.parallelism || v.max_parallelism > 32768) {
      return InvalidArgumentError(path + ".maxParallelism: must be between parallelism and 32768");
    }
    TRIMTAB_RETURN_IF_ERROR(CheckPositive(path + ".capacityPerSubtask", v.capacity_per_subtask));
    TRIMTAB_RETURN_IF_ERROR(CheckNonNegative(path + ".selectivity", v.selectivity));
    TRIMTAB_RETURN_IF_ERROR(CheckRange(path + ".keySkew", v.key_skew, 0, 5));
    TRIMTAB_RETURN_IF_ERROR(CheckNonNegative(path + ".rateFactor", v.rate_factor));
    TRIMTAB_RETURN_IF_ERROR(CheckNonNegative(path + ".initialBacklog", v.initial_backlog));
    TRIMTAB_RETURN_IF_ERROR(CheckNonNegative(path + ".stateBytes", v.state_bytes));
    TRIMTAB_RETURN_IF_ERROR(CheckNonNegative(path + ".stateRetention", v.state_retention_seconds));
    TRIMTAB_RETURN_IF_ERROR(CheckNonNegative(path + ".stateBytesPerRecord", v.state_bytes_per_record));
  }
  std::vector<int> indegree(spec.vertices.size(), 0);
  std::vector<std::vector<size_t>> outs(spec.vertices.size());
  std::set<std::pair<VertexId, VertexId>> seen_edges;
  for (size_t i = 0; i < spec.edges.size(); ++i) {
    const EdgeSpec& e = spec.edges[i];
    const std::string path = JoinPath("edges", i);
    auto from = index.find(e.from);
    auto to = index.find(e.to);
    if (from == index.end()) return InvalidArgumentError(path + ".from: unknown vertex \"" + e.from + "\"");
    if (to == index.end()) return InvalidArgumentError(path + ".to: unknown vertex \"" + e.to + "\"");
    if (from->second == to->second) return InvalidArgumentError(path + ": self loop");
    if (!seen_edges.emplace(e.from, e.to).second) return InvalidArgumentError(path + ": duplicate edge");
    ++indegree[to->second];
    outs[from->second].push_back(to->second);
  }
  for (size_t i = 0; i < spec.vertices.size(); ++i) {
    const VertexSpec& v = spec.vertices[i];
    const std::string path = JoinPath("vertices", i);
    if (indegree[i] == 0 && v.partitions < 1) {
      return InvalidArgumentError(path + ".partitions: a source vertex needs at least 1 partition");
    }
    if (indegree[i] > 0 && v.partitions != 0) {
      return InvalidArgumentError(path + ".partitions: only source vertices (no inputs) read partitions");
    }
    if (v.stopping_offsets.empty()) continue;
    if (indegree[i] > 0) {
      return InvalidArgumentError(path + ".stoppingOffsets: only source vertices (no inputs) can be bounded");
    }
    if (v.stopping_offsets.size() > 1 && static_cast<int>(v.stopping_offsets.size()) != v.partitions) {
      return InvalidArgumentError(path + ".stoppingOffsets: " + std::to_string(v.stopping_offsets.size()) +
                                  " offsets for " + std::to_string(v.partitions) +
                                  " partitions (give one number for every partition, or one per partition)");
    }
    for (size_t k = 0; k < v.stopping_offsets.size(); ++k) {
      TRIMTAB_RETURN_IF_ERROR(CheckNonNegative(
          v.stopping_offsets.size() == 1 ? path + ".stoppingOffsets" : JoinPath(path + ".stoppingOffsets", k),
          v.stopping_offsets[k]));
    }
  }
  // Kahn's algorithm, always taking the lowest remaining file index: stable and deterministic.
  std::vector<VertexSpec> ordered;
  std::set<size_t> ready;
  for (size_t i = 0; i < indegree.size(); ++i) {
    if (indegree[i] == 0) ready.insert(i);
  }
  while (!ready.empty()) {
    const size_t i = *ready.begin();
    ready.erase(ready.begin());
    ordered.push_back(spec.vertices[i]);
    for (size_t o : outs[i]) {
      if (--indegree[o] == 0) ready.insert(o);
    }
  }
  if (ordered.size() != spec.vertices.size()) return InvalidArgumentError("edges: the job graph has a cycle");
  spec.vertices = std::move(ordered);

  TRIMTAB_RETURN_IF_ERROR(CheckPositive("checkpoint.interval", spec.checkpoint.interval_seconds));
  TRIMTAB_RETURN_IF_ERROR(CheckNonNegative("checkpoint.baseDuration", spec.checkpoint.base_duration_seconds));
  TRIMTAB_RETURN_IF_ERROR(CheckPositive("checkpoint.bandwidthBytesPerSecond", spec.checkpoint.bandwidth_bytes_per_second));
  TRIMTAB_RETURN_IF_ERROR(CheckNonNegative("restart.baseDowntime", spec.restart.base_downtime_seconds));
  TRIMTAB_RETURN_IF_ERROR(CheckPositive("restart.restoreBandwidthBytesPerSecond",
                                        spec.restart.restore_bandwidth_bytes_per_second));
  TRIMTAB_RETURN_IF_ERROR(CheckNonNegative("restart.failureBackoff", spec.restart.failure_backoff_seconds));
  if (spec.task_manager.slots < 1) return InvalidArgumentError("taskManager.slots: must be at least 1");
  TRIMTAB_RETURN_IF_ERROR(CheckPositive("taskManager.cpuCores", spec.task_manager.cpu_cores));
  TRIMTAB_RETURN_IF_ERROR(CheckPositive("taskManager.heapBytes", spec.task_manager.heap_bytes));
  TRIMTAB_RETURN_IF_ERROR(CheckNonNegative("taskManager.baseHeapBytes", spec.task_manager.base_heap_bytes));
  TRIMTAB_RETURN_IF_ERROR(CheckNonNegative("taskManager.heapPerBusySlotBytes",
                                           spec.task_manager.heap_per_busy_slot_bytes));
  return Status::Ok();
}

}  // namespace trimtab::sim
