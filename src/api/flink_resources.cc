#include "api/flink_resources.h"

#include <nlohmann/json.hpp>

#include "api/reconciled_spec.h"

namespace trimtab::api {
namespace {

Status CheckHeader(const Json& object, std::string_view kind) {
  if (!object.is_object()) {
    return InvalidArgumentError(std::string(kind) + ": expected an object, got " +
                                std::string(JsonTypeName(object)));
  }
  auto k = object.find("kind");
  if (k != object.end() && k->is_string() && k->get<std::string>() != kind) {
    return InvalidArgumentError("kind: expected \"" + std::string(kind) + "\", got \"" +
                                k->get<std::string>() + "\"");
  }
  auto meta = object.find("metadata");
  if (meta != object.end() && !meta->is_object()) {
    return InvalidArgumentError("metadata: expected an object, got " +
                                std::string(JsonTypeName(*meta)));
  }
  return Status::Ok();
}

ObjectMeta MetaOf(const Json& object) {
  auto meta = object.find("metadata");
  return meta == object.end() ? ObjectMeta() : ObjectMeta(*meta);
}

const Json& Member(const Json& object, std::string_view field) {
  static const Json kNull;
  auto it = object.find(field);
  return it == object.end() ? kNull : *it;
}

}  // namespace

int64_t ObjectMeta::generation() const {
  auto it = raw_.find("generation");
  if (it == raw_.end() || !it->is_number()) return 0;
  return it->is_number_integer() ? it->get<int64_t>() : static_cast<int64_t>(it->get<double>());
}

bool ObjectMeta::HasFinalizer(std::string_view finalizer) const {
  auto it = raw_.find("finalizers");
  if (it == raw_.end() || !it->is_array()) return false;
  for (const Json& f : *it) {
    if (f.is_string() && f.get<std::string>() == finalizer) return true;
  }
  return false;
}

std::string ObjectMeta::Text(std::string_view field) const {
  auto it = raw_.find(field);
  return it != raw_.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::map<std::string, std::string> ObjectMeta::StringMap(std::string_view field) const {
  std::map<std::string, std::string> out;
  auto it = raw_.find(field);
  if (it == raw_.end() || !it->is_object()) return out;
  for (auto e = it->begin(); e != it->end(); ++e) {
    if (e->is_string()) out[e.key()] = e->get<std::string>();
  }
  return out;
}

StatusOr<FlinkDeployment> DecodeFlinkDeployment(const Json& object) {
  TRIMTAB_RETURN_IF_ERROR(CheckHeader(object, kFlinkDeploymentKind));
  FlinkDeployment out;
  out.metadata = MetaOf(object);
  TRIMTAB_ASSIGN_OR_RETURN(out.spec, DecodeFlinkDeploymentSpec(Member(object, "spec"), "spec"));
  TRIMTAB_ASSIGN_OR_RETURN(out.status,
                           DecodeFlinkDeploymentStatus(Member(object, "status"), "status"));
  return out;
}

StatusOr<FlinkSessionJob> DecodeFlinkSessionJob(const Json& object) {
  TRIMTAB_RETURN_IF_ERROR(CheckHeader(object, kFlinkSessionJobKind));
  FlinkSessionJob out;
  out.metadata = MetaOf(object);
  TRIMTAB_ASSIGN_OR_RETURN(out.spec, DecodeFlinkSessionJobSpec(Member(object, "spec"), "spec"));
  TRIMTAB_ASSIGN_OR_RETURN(out.status,
                           DecodeFlinkSessionJobStatus(Member(object, "status"), "status"));
  return out;
}

Json EncodeFlinkDeployment(const FlinkDeployment& r) {
  return Json{{"apiVersion", std::string(kFlinkApiVersion)},
              {"kind", std::string(kFlinkDeploymentKind)},
              {"metadata", r.metadata.raw()},
              {"spec", EncodeFlinkDeploymentSpec(r.spec)},
              {"status", EncodeFlinkDeploymentStatus(r.status)}};
}

Json EncodeFlinkSessionJob(const FlinkSessionJob& r) {
  return Json{{"apiVersion", std::string(kFlinkApiVersion)},
              {"kind", std::string(kFlinkSessionJobKind)},
              {"metadata", r.metadata.raw()},
              {"spec", EncodeFlinkSessionJobSpec(r.spec)},
              {"status", EncodeFlinkSessionJobStatus(r.status)}};
}

}  // namespace trimtab::api
