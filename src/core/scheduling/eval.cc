#include "core/scheduling/eval.h"

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "core/scheduling/session_result_json.h"

namespace trimtab::core::scheduling {
namespace {

Status ObjectList(JsonReader& r, std::string_view field, std::vector<Json>* out) {
  const Json* list = r.Get(field);
  if (!list || list->is_null()) return Status::Ok();
  const std::string path = r.FieldPath(field);
  if (!list->is_array()) {
    return InvalidArgumentError(path + ": expected a list of objects, got " +
                                std::string(JsonTypeName(*list)));
  }
  for (size_t i = 0; i < list->size(); ++i) {
    if (!(*list)[i].is_object()) {
      return InvalidArgumentError(JoinPath(path, i) + ": expected an object, got " +
                                  std::string(JsonTypeName((*list)[i])));
    }
    out->push_back((*list)[i]);
  }
  return Status::Ok();
}

}  // namespace

StatusOr<EvalDocument> EvalDocumentFromJson(const Json& doc) {
  JsonReader r(doc, "");
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  EvalDocument out;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("description", &out.description));
  const Json* config = r.Get("config");
  if (!config || config->is_null()) {
    out.config = DefaultSchedulerConfig();
  } else if (config->is_string()) {
    TRIMTAB_ASSIGN_OR_RETURN(out.config, ParseSchedulerConfig(config->get<std::string>(), "config"));
  } else {
    TRIMTAB_ASSIGN_OR_RETURN(out.config, SchedulerConfigFromJson(*config, "config"));
  }
  if (const Json* names = r.Get("schedulerNames"); names && !names->is_null()) {
    if (!names->is_array() || names->empty()) {
      return InvalidArgumentError("schedulerNames: expected a non-empty list of strings");
    }
    out.options.scheduler_names.clear();
    for (size_t i = 0; i < names->size(); ++i) {
      if (!(*names)[i].is_string()) {
        return InvalidArgumentError(JoinPath("schedulerNames", i) + ": expected a string");
      }
      out.options.scheduler_names.push_back((*names)[i].get<std::string>());
    }
  }
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("defaultQueue", &out.options.default_queue));
  std::string now;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString("now", &now));
  if (!now.empty()) {
    auto t = ParseRfc3339(now);
    if (!t.ok()) return InvalidArgumentError("now: " + t.status().message());
    out.options.now_unix_seconds = ToUnixMillis(*t) / 1000;
  }
  TRIMTAB_RETURN_IF_ERROR(ObjectList(r, "nodes", &out.objects.nodes));
  TRIMTAB_RETURN_IF_ERROR(ObjectList(r, "pods", &out.objects.pods));
  TRIMTAB_RETURN_IF_ERROR(ObjectList(r, "podGroups", &out.objects.pod_groups));
  TRIMTAB_RETURN_IF_ERROR(ObjectList(r, "queues", &out.objects.queues));
  TRIMTAB_RETURN_IF_ERROR(ObjectList(r, "priorityClasses", &out.objects.priority_classes));
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return out;
}

StatusOr<SessionResult> RunEval(const EvalDocument& doc) {
  return RunSession(doc.config, doc.objects, doc.options);
}

StatusOr<std::string> EvalSchedule(std::string_view text, std::string_view source, bool summary) {
  TRIMTAB_ASSIGN_OR_RETURN(Json doc, ParseYaml(text, source));
  auto decoded = EvalDocumentFromJson(doc);
  if (!decoded.ok()) return decoded.status().WithContext(source);
  auto result = RunEval(*decoded);
  if (!result.ok()) return result.status().WithContext(source);
  if (summary) return SessionResultSummary(*result);
  return SessionResultToJson(*result).dump(2) + "\n";
}

}  // namespace trimtab::core::scheduling
