// VertexLabels: how the operator's autoscaler names a job vertex in the text people read (the
// decision log's notes and reasons, the executor chain's verdicts, Kubernetes Events, the
// dashboard). Flink identifies a vertex by a 32-digit hex JobVertexID; users know it by its name
// ("Source: Kafka Source"). The label of a vertex is its name; when two vertices of the job share
// a name, the name followed by the id in parentheses, so the label stays unique; a vertex without
// a name keeps its id. Structured fields (the decision log's "vertices" keys, parallelism
// overrides, metric labels) keep the ids: only free text is relabelled.
//
// Usage:
//   VertexLabels labels(topology);
//   labels.Relabel(&cycle.log);         // notes, per-vertex reasons
//   event.message = labels.Relabel(e.message);
//   labels.RelabelStrings(&log_json);   // every string value (e.g. the chain's reasons)
//
// Thread-safety: immutable after construction.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "common/json.h"
#include "core/flink/decision_log.h"
#include "core/scaling_types.h"

namespace trimtab::op {

class VertexLabels {
 public:
  explicit VertexLabels(const core::JobTopology& topology);

  // The label of `id`; an id the topology does not know is returned as it is.
  std::string Of(const core::VertexId& id) const;
  // `text` with every occurrence of a known vertex id (as a whole word: not inside a longer run
  // of letters and digits) replaced by its label; "<id> (<name>)" becomes the label alone.
  std::string Relabel(std::string_view text) const;
  // The free text of a decision log: stage notes and vertex reasons. Event messages are
  // relabelled where they are emitted (their deduplication keys come from the ids).
  void Relabel(core::flink::DecisionLog* log) const;
  // Every string value of `doc`, recursively (object keys are left alone: they are ids).
  void RelabelStrings(Json* doc) const;

 private:
  std::map<core::VertexId, std::string, std::less<>> labels_;  // only ids whose label differs
  std::map<core::VertexId, std::string> names_;                 // their names
};

}  // namespace trimtab::op
