#include "sim/job_library.h"

#include <optional>

#include <nlohmann/json.hpp>

namespace trimtab::sim {

namespace {

struct Builder {
  const LibraryJobOptions& o;
  JobSpec spec;

  VertexSpec& Add(std::string id, double cost_units, double selectivity = 1.0) {
    VertexSpec v;
    v.id = std::move(id);
    v.parallelism = o.parallelism;
    v.max_parallelism = o.max_parallelism;
    v.capacity_per_subtask = o.records_per_core / cost_units;
    v.selectivity = selectivity;
    spec.vertices.push_back(std::move(v));
    return spec.vertices.back();
  }
  VertexSpec& AddSource(std::string id, double cost_units, double selectivity = 1.0) {
    VertexSpec& v = Add(std::move(id), cost_units, selectivity);
    v.partitions = o.partitions;
    return v;
  }
  void Connect(const std::string& from, const std::string& to, ShipStrategy ship) {
    spec.edges.push_back(EdgeSpec{from, to, ship});
  }
};

}  // namespace

std::vector<std::string> LibraryJobNames() { return {"q1", "q2", "q5", "q8", "q11"}; }

StatusOr<JobSpec> LibraryJob(std::string_view name, const LibraryJobOptions& options) {
  if (options.parallelism < 1 || options.partitions < 1 || options.max_parallelism < options.parallelism) {
    return InvalidArgumentError("library job " + std::string(name) +
                                ": need parallelism >= 1, partitions >= 1, maxParallelism >= parallelism");
  }
  Builder b{options, {}};
  b.spec.name = std::string(name);
  b.spec.task_manager.slots = 2;
  b.spec.task_manager.cpu_cores = 2;
  b.spec.task_manager.heap_bytes = 4e9;
  b.spec.checkpoint.interval_seconds = 60;
  if (name == "q1") {
    // Source -> Calc (price * 0.908) -> blackhole, chained: one vertex, cost 0.98.
    b.AddSource("bid-projection", 0.98).name = "Source: bid -> Calc -> Sink";
  } else if (name == "q2") {
    // Source -> Calc (auction % 123 = 0) -> Sink, chained: cost 0.88, 1/123 selectivity.
    b.AddSource("bid-filter", 0.88, 1.0 / 123).name = "Source: bid -> Calc(filter) -> Sink";
  } else if (name == "q5") {
    // Total cost 7.0: read 1.0, HOP window count per auction 5.5, max-count + join 0.5 per
    // input record (its input is the sparse window output).
    b.AddSource("source", 1.0).name = "Source: bid";
    VertexSpec& window = b.Add("hop-count", 5.5, 0.02);
    window.name = "GroupWindowAggregate(HOP 10 s/2 s, count per auction)";
    window.key_skew = 0.5;                // bids favour hot auctions (hot ratio 2)
    window.state_retention_seconds = 10;  // a HOP window of 10 s ...
    window.state_bytes_per_record = 500;  // ... holds each bid in 5 sliding panes
    VertexSpec& join = b.Add("max-join", 0.5 / 0.02, 0.5);  // 0.5 units per bid upstream
    join.name = "GroupWindowAggregate(max) -> Join";
    join.state_retention_seconds = 10;
    join.state_bytes_per_record = 100;
    b.Add("sink", 0.1).name = "Sink: blackhole";
    b.Connect("source", "hop-count", ShipStrategy::kHash);
    b.Connect("hop-count", "max-join", ShipStrategy::kHash);
    b.Connect("max-join", "sink", ShipStrategy::kForward);
  } else if (name == "q8") {
    // Persons (1 part) and auctions (3 parts) of the person+auction stream; a 10-s tumbling
    // window join on person id = seller. Total cost 1.06: reading dominates.
    VertexSpec& persons = b.AddSource("persons", 1.0);
    persons.name = "Source: person";
    persons.rate_factor = 0.25;
    VertexSpec& auctions = b.AddSource("auctions", 1.0);
    auctions.name = "Source: auction";
    auctions.rate_factor = 0.75;
    VertexSpec& join = b.Add("window-join", 1.2, 0.05);
    join.name = "WindowJoin(TUMBLE 10 s)";
    join.state_retention_seconds = 10;
    join.state_bytes_per_record = 350;  // person 200 B, auction 500 B
    b.Add("sink", 0.1).name = "Sink: blackhole";
    b.Connect("persons", "window-join", ShipStrategy::kHash);
    b.Connect("auctions", "window-join", ShipStrategy::kHash);
    b.Connect("window-join", "sink", ShipStrategy::kForward);
  } else if (name == "q11") {
    // Total cost 3.9: read 1.0, session window count per bidder 2.9.
    b.AddSource("source", 1.0).name = "Source: bid";
    VertexSpec& session = b.Add("session-count", 2.9, 0.1);
    session.name = "SessionWindowAggregate(10 s gap, count per bidder)";
    session.key_skew = 0.8;                // hot bidders (ratio 4)
    session.state_retention_seconds = 20;  // open sessions: gap plus typical session length
    session.state_bytes_per_record = 100;
    b.Add("sink", 0.1).name = "Sink: blackhole";
    b.Connect("source", "session-count", ShipStrategy::kHash);
    b.Connect("session-count", "sink", ShipStrategy::kForward);
  } else {
    return InvalidArgumentError("unknown library job \"" + std::string(name) +
                                "\": supported: q1, q2, q5, q8, q11");
  }
  TRIMTAB_RETURN_IF_ERROR(ValidateJobSpec(b.spec).WithContext("library job " + std::string(name)));
  return std::move(b.spec);
}

StatusOr<JobSpec> ParseLibraryJob(const Json& json, const std::string& path) {
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  std::string name;
  TRIMTAB_RETURN_IF_ERROR(r.RequiredString("library", &name));
  LibraryJobOptions o;
  int64_t parallelism = o.parallelism, partitions = o.partitions, max_p = o.max_parallelism;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("parallelism", &parallelism));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("partitions", &partitions));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("maxParallelism", &max_p));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("recordsPerCore", &o.records_per_core));
  std::optional<double> stopping_offsets;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("stoppingOffsets", &stopping_offsets));
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  if (stopping_offsets && !(*stopping_offsets >= 0)) {
    return InvalidArgumentError(r.FieldPath("stoppingOffsets") + ": must be at least 0");
  }
  if (parallelism < 1 || parallelism > 32768) return InvalidArgumentError(r.FieldPath("parallelism") + ": must be between 1 and 32768");
  if (partitions < 1 || partitions > 1'000'000) return InvalidArgumentError(r.FieldPath("partitions") + ": must be between 1 and 1000000");
  if (max_p < parallelism || max_p > 32768) return InvalidArgumentError(r.FieldPath("maxParallelism") + ": must be between parallelism and 32768");
  if (!(o.records_per_core > 0)) return InvalidArgumentError(r.FieldPath("recordsPerCore") + ": must be greater than 0");
  o.parallelism = static_cast<int>(parallelism);
  o.partitions = static_cast<int>(partitions);
  o.max_parallelism = static_cast<int>(max_p);
  StatusOr<JobSpec> spec = LibraryJob(name, o);
  if (!spec.ok()) return InvalidArgumentError(r.FieldPath("library") + ": " + spec.status().message());
  if (stopping_offsets) {  // a bounded run of the query: every source stops at this offset
    for (VertexSpec& v : spec->vertices) {
      if (v.partitions > 0) v.stopping_offsets = {*stopping_offsets};
    }
  }
  return spec;
}

}  // namespace trimtab::sim
