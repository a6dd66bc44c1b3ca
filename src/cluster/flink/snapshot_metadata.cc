#include "cluster/flink/snapshot_metadata.h"

#include <nlohmann/json.hpp>

namespace trimtab::sim::flink {

namespace {
constexpr char kFormat[] = "trimtab-flink-snapshot/v1";
}  // namespace

Json SnapshotMetadataToJson(const SnapshotMetadata& m) {
  Json vertices = Json::array();
  for (const SnapshotVertex& v : m.vertices) {
    vertices.push_back({{"id", v.id}, {"name", v.name}, {"parallelism", v.parallelism},
                        {"maxParallelism", v.max_parallelism}});
  }
  Json sources = Json::array();
  for (const SnapshotSource& s : m.sources) {
    sources.push_back({{"vertexId", s.vertex_id}, {"topic", s.topic}, {"readOffsets", s.read_offsets}});
  }
  return Json{{"format", kFormat},          {"jobId", m.job_id},
              {"jobName", m.job_name},      {"checkpointId", m.checkpoint_id},
              {"savepoint", m.savepoint},   {"formatType", m.format_type},
              {"timestamp", m.timestamp_ms}, {"stateBytes", m.state_bytes},
              {"vertices", vertices},       {"sources", sources}};
}

StatusOr<SnapshotMetadata> SnapshotMetadataFromJson(const Json& json, const std::string& what) {
  JsonReader r(json, what);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  std::string format;
  TRIMTAB_RETURN_IF_ERROR(r.RequiredString("format", &format));
  if (format != kFormat) {
    return InvalidArgumentError(r.FieldPath("format") + ": unsupported format \"" + format + "\" (want " +
                                kFormat + ")");
  }
  SnapshotMetadata m;
  TRIMTAB_RETURN_IF_ERROR(r.RequiredString("jobId", &m.job_id));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("jobName", &m.job_name));
  TRIMTAB_RETURN_IF_ERROR(r.RequiredInt("checkpointId", &m.checkpoint_id));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalBool("savepoint", &m.savepoint));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("formatType", &m.format_type));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("timestamp", &m.timestamp_ms));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("stateBytes", &m.state_bytes));
  if (const Json* vs = r.Get("vertices")) {
    if (!vs->is_array()) return InvalidArgumentError(r.FieldPath("vertices") + ": expected a list");
    for (size_t i = 0; i < vs->size(); ++i) {
      JsonReader vr((*vs)[i], JoinPath(r.FieldPath("vertices"), i));
      TRIMTAB_RETURN_IF_ERROR(vr.ExpectObject());
      SnapshotVertex v;
      int64_t p = 1, maxp = 128;
      TRIMTAB_RETURN_IF_ERROR(vr.RequiredString("id", &v.id));
      TRIMTAB_RETURN_IF_ERROR(vr.OptionalString("name", &v.name));
      TRIMTAB_RETURN_IF_ERROR(vr.OptionalInt("parallelism", &p));
      TRIMTAB_RETURN_IF_ERROR(vr.OptionalInt("maxParallelism", &maxp));
      TRIMTAB_RETURN_IF_ERROR(vr.NoUnknownFields());
      v.parallelism = static_cast<int>(p);
      v.max_parallelism = static_cast<int>(maxp);
      m.vertices.push_back(std::move(v));
    }
  }
  if (const Json* ss = r.Get("sources")) {
    if (!ss->is_array()) return InvalidArgumentError(r.FieldPath("sources") + ": expected a list");
    for (size_t i = 0; i < ss->size(); ++i) {
      JsonReader sr((*ss)[i], JoinPath(r.FieldPath("sources"), i));
      TRIMTAB_RETURN_IF_ERROR(sr.ExpectObject());
      SnapshotSource s;
      TRIMTAB_RETURN_IF_ERROR(sr.RequiredString("vertexId", &s.vertex_id));
      TRIMTAB_RETURN_IF_ERROR(sr.OptionalString("topic", &s.topic));
      const Json* offsets = sr.Get("readOffsets");
      if (!offsets || !offsets->is_array()) {
        return InvalidArgumentError(sr.FieldPath("readOffsets") + ": expected a list of numbers");
      }
      for (const Json& o : *offsets) {
        if (!o.is_number() || o.get<double>() < 0) {
          return InvalidArgumentError(sr.FieldPath("readOffsets") + ": expected non-negative numbers");
        }
        s.read_offsets.push_back(o.get<double>());
      }
      TRIMTAB_RETURN_IF_ERROR(sr.NoUnknownFields());
      m.sources.push_back(std::move(s));
    }
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return m;
}

}  // namespace trimtab::sim::flink
