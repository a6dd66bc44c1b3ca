#include "cluster/flink/job_definition.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "sim/job_library.h"
#include "sim/job_model.h"
#include "sim/key_groups.h"

namespace trimtab::sim::flink {

namespace {

std::string BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

VertexSpec Vertex(std::string id, std::string name, int p, double cap) {
  VertexSpec v;
  v.id = std::move(id);
  v.name = std::move(name);
  v.parallelism = p;
  v.capacity_per_subtask = cap;
  return v;
}

}  // namespace

std::string ProgramDisplayName(const ProgramInfo& program) {
  if (!program.entry_class.empty()) {
    const size_t dot = program.entry_class.rfind('.');
    return dot == std::string::npos ? program.entry_class : program.entry_class.substr(dot + 1);
  }
  std::string name = BaseName(program.jar);
  if (name.ends_with(".jar")) name.resize(name.size() - 4);
  // Uploaded jars are "<uuid>_<name>.jar".
  if (name.size() > 37 && name[36] == '_') name = name.substr(37);
  return name.empty() ? "Flink Streaming Job" : name;
}

JobSpec DefaultJobForProgram(const ProgramInfo& program) {
  const std::string what = program.entry_class + " " + BaseName(program.jar);
  const int p = std::max(1, program.parallelism);
  const int maxp = program.max_parallelism > 0 ? program.max_parallelism : 0;
  JobSpec spec;
  spec.name = program.job_name.empty() ? ProgramDisplayName(program) : program.job_name;
  if (Contains(what, "StateMachineExample")) {
    VertexSpec src = Vertex("source", "Source: Custom Source", p, 200'000);
    src.partitions = 24;
    VertexSpec fsm = Vertex("state-machine", "Flat Map", p, 40'000);
    fsm.selectivity = 0.01;  // alerts are rare
    fsm.state_bytes = 50e6;
    VertexSpec sink = Vertex("sink", "Sink: Print to Std. Out", p, 200'000);
    spec.vertices = {src, fsm, sink};
    spec.edges = {{"source", "state-machine", ShipStrategy::kHash}, {"state-machine", "sink", ShipStrategy::kForward}};
  } else if (Contains(what, "TopSpeedWindowing")) {
    VertexSpec src = Vertex("source", "Source: Custom Source", p, 200'000);
    src.partitions = 24;
    VertexSpec wm = Vertex("watermarks", "Timestamps/Watermarks", p, 300'000);
    VertexSpec win = Vertex("window",
                            "Window(GlobalWindows(), DeltaTrigger, TimeEvictor, ComparableAggregator, "
                            "PassThroughWindowFunction)",
                            p, 30'000);
    win.selectivity = 0.1;
    win.state_retention_seconds = 10;
    win.state_bytes_per_record = 100;
    VertexSpec sink = Vertex("sink", "Sink: Print to Std. Out", p, 200'000);
    spec.vertices = {src, wm, win, sink};
    spec.edges = {{"source", "watermarks", ShipStrategy::kForward},
                  {"watermarks", "window", ShipStrategy::kHash},
                  {"window", "sink", ShipStrategy::kForward}};
  } else {
    VertexSpec src = Vertex("source", "Source: Kafka Source", p, 150'000);
    src.partitions = 24;
    VertexSpec map = Vertex("map", "Map", p, 30'000);
    VertexSpec sink = Vertex("sink", "Sink: Writer", p, 100'000);
    spec.vertices = {src, map, sink};
    spec.edges = {{"source", "map", ShipStrategy::kRebalance}, {"map", "sink", ShipStrategy::kForward}};
  }
  for (VertexSpec& v : spec.vertices) v.max_parallelism = maxp;
  Status s = ValidateJobSpec(spec);  // the built-in graphs are valid by construction
  if (!s.ok()) spec.vertices.clear();
  return spec;
}

Workload DefaultWorkload(const JobSpec& spec) {
  Workload w;
  StatusOr<std::unique_ptr<JobModel>> model = JobModel::Create(spec, 1);
  if (!model.ok()) return w;
  for (int s = 0; s < (*model)->num_sources(); ++s) (*model)->SetSourceRate(s, 1.0);
  // Demand is linear in the source rate: capacity = the smallest p * cap / demand per unit.
  const std::vector<VertexDemand> demand = (*model)->TrueDemand();
  double capacity = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < spec.vertices.size(); ++i) {
    const VertexSpec& v = spec.vertices[i];
    if (demand[i].total <= 0) continue;
    double vertex_cap = v.parallelism * v.capacity_per_subtask;
    if (v.partitions > 0) vertex_cap = std::min(v.parallelism, v.partitions) * v.capacity_per_subtask;
    capacity = std::min(capacity, vertex_cap / demand[i].total);
  }
  if (!std::isfinite(capacity)) capacity = 0;
  std::shared_ptr<const RateProfile> profile = ConstantProfile(capacity / 2);
  for (const VertexSpec& v : spec.vertices) {
    if (v.partitions > 0) w[v.id] = profile;
  }
  return w;
}

StatusOr<JobSpec> ParseJobJson(const Json& job, const std::string& path, const ProgramInfo& program) {
  Json doc = job;
  if (doc.is_string()) doc = Json{{"library", doc.get<std::string>()}};
  if (!doc.is_object()) return InvalidArgumentError(path + ": expected a job spec, a library object or a library name");
  JobSpec spec;
  if (doc.contains("library")) {
    if (!doc.contains("parallelism")) doc["parallelism"] = std::max(1, program.parallelism);
    if (!doc.contains("maxParallelism")) {
      const int p = doc["parallelism"].is_number_integer() ? doc["parallelism"].get<int>() : 1;
      if (program.max_parallelism > 0) doc["maxParallelism"] = program.max_parallelism;
      else if (p > 128) doc["maxParallelism"] = DefaultMaxParallelism(p);
    }
    TRIMTAB_ASSIGN_OR_RETURN(spec, ParseLibraryJob(doc, path));
  } else {
    if (Json* vertices = doc.contains("vertices") ? &doc["vertices"] : nullptr; vertices && vertices->is_array()) {
      for (Json& v : *vertices) {
        if (!v.is_object()) continue;
        if (!v.contains("parallelism")) v["parallelism"] = std::max(1, program.parallelism);
        if (!v.contains("maxParallelism") && program.max_parallelism > 0) v["maxParallelism"] = program.max_parallelism;
      }
    }
    TRIMTAB_ASSIGN_OR_RETURN(spec, ParseJobSpec(doc, path));
  }
  if (!program.job_name.empty()) spec.name = program.job_name;
  else if (!doc.contains("name")) spec.name = ProgramDisplayName(program);
  return spec;
}

StatusOr<JobSpec> ParseJobText(const SourcedText& job, const ProgramInfo& program) {
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, ParseYaml(job.text, job.origin));
  return ParseJobJson(doc, job.origin, program);
}

StatusOr<Workload> ParseWorkloadJson(const Json& json, const std::string& path, const JobSpec& spec) {
  std::vector<VertexId> sources;
  for (const VertexSpec& v : spec.vertices) {
    if (v.partitions > 0) sources.push_back(v.id);
  }
  Workload w;
  if (json.is_number() || (json.is_object() && json.contains("type"))) {
    TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<RateProfile> p, ParseRateProfile(json, path));
    std::shared_ptr<const RateProfile> shared = std::move(p);
    for (const VertexId& id : sources) w[id] = shared;
    return w;
  }
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  std::shared_ptr<const RateProfile> fallback;
  if (const Json* d = r.Get("default")) {
    TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<RateProfile> p, ParseRateProfile(*d, r.FieldPath("default")));
    fallback = std::move(p);
  }
  for (const VertexId& id : sources) {
    if (const Json* j = r.Get(id)) {
      TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<RateProfile> p, ParseRateProfile(*j, r.FieldPath(id)));
      w[id] = std::move(p);
    } else if (fallback) {
      w[id] = fallback;
    } else {
      return InvalidArgumentError(r.FieldPath(id) + ": no profile for source \"" + id + "\" (add it or a \"default\")");
    }
  }
  const Status unknown = r.NoUnknownFields();
  if (!unknown.ok()) return InvalidArgumentError(unknown.message() + " (not a source vertex of the job)");
  return w;
}

StatusOr<Workload> ParseWorkloadText(const SourcedText& workload, const JobSpec& spec) {
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, ParseYaml(workload.text, workload.origin));
  return ParseWorkloadJson(doc, workload.origin, spec);
}

StatusOr<JobDefinition> BuildJobDefinition(const std::optional<SourcedText>& job,
                                           const std::optional<SourcedText>& workload,
                                           const ProgramInfo& program) {
  JobDefinition d;
  if (job) {
    TRIMTAB_ASSIGN_OR_RETURN(d.spec, ParseJobText(*job, program));
    d.job_origin = job->origin;
  } else {
    d.spec = DefaultJobForProgram(program);
    if (d.spec.vertices.empty()) return InternalError("built-in job graph for " + program.jar + " is invalid");
    d.job_origin = "default job graph for \"" + ProgramDisplayName(program) + "\"";
  }
  if (workload) {
    TRIMTAB_ASSIGN_OR_RETURN(d.workload, ParseWorkloadText(*workload, d.spec));
    d.workload_origin = workload->origin;
  } else {
    d.workload = DefaultWorkload(d.spec);
    d.workload_origin = "default: half the initial capacity";
  }
  return d;
}

}  // namespace trimtab::sim::flink
