#include "core/hpa/observation_json.h"

#include <nlohmann/json.hpp>

namespace trimtab::core::hpa {
namespace {

Status TypeError(const std::string& path, std::string_view want, const Json& got) {
  return InvalidArgumentError(path + ": expected " + std::string(want) + ", got " +
                              std::string(JsonTypeName(got)));
}

Status ReadOptionalTime(JsonReader& r, std::string_view field, std::optional<TimePoint>* out) {
  std::string text;
  const bool present = r.Has(field);
  TRIMTAB_RETURN_IF_ERROR(r.OptionalString(field, &text));
  if (!present) return Status::Ok();
  auto t = ParseRfc3339(text);
  if (!t.ok()) return t.status().WithContext(r.FieldPath(field));
  *out = *t;
  return Status::Ok();
}

StatusOr<std::map<std::string, Quantity>> QuantityMap(const Json& json, const std::string& path) {
  if (!json.is_object()) return TypeError(path, "object", json);
  std::map<std::string, Quantity> out;
  for (auto it = json.begin(); it != json.end(); ++it) {
    TRIMTAB_ASSIGN_OR_RETURN(Quantity q, QuantityFromJson(*it, JoinPath(path, it.key())));
    out[it.key()] = q;
  }
  return out;
}

StatusOr<std::map<std::string, std::string>> StringMap(const Json& json, const std::string& path) {
  if (!json.is_object()) return TypeError(path, "object", json);
  std::map<std::string, std::string> out;
  for (auto it = json.begin(); it != json.end(); ++it) {
    if (!it->is_string()) return TypeError(JoinPath(path, it.key()), "string", *it);
    out[it.key()] = it->get<std::string>();
  }
  return out;
}

StatusOr<PodInfo> DecodePod(const Json& json, const std::string& path) {
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  PodInfo pod;
  TRIMTAB_RETURN_IF_ERROR(r.RequiredString("name", &pod.name));
  std::string phase = "Running";
  TRIMTAB_RETURN_IF_ERROR(
      r.OptionalEnum("phase", {"Pending", "Running", "Succeeded", "Failed", "Unknown"}, &phase));
  pod.phase = phase == "Pending"     ? PodPhase::kPending
              : phase == "Running"   ? PodPhase::kRunning
              : phase == "Succeeded" ? PodPhase::kSucceeded
              : phase == "Failed"    ? PodPhase::kFailed
                                     : PodPhase::kUnknown;
  if (r.Has("ready")) {
    bool ready = false;
    TRIMTAB_RETURN_IF_ERROR(r.OptionalBool("ready", &ready));
    pod.ready = ready;
  } else {
    r.Ignore("ready");
  }
  TRIMTAB_RETURN_IF_ERROR(ReadOptionalTime(r, "readyTransitionTime", &pod.ready_transition_time));
  TRIMTAB_RETURN_IF_ERROR(ReadOptionalTime(r, "startTime", &pod.start_time));
  TRIMTAB_RETURN_IF_ERROR(r.OptionalBool("deleted", &pod.deleted));
  if (const Json* req = r.Get("requests")) {
    TRIMTAB_ASSIGN_OR_RETURN(pod.pod_requests, QuantityMap(*req, r.FieldPath("requests")));
  }
  if (const Json* containers = r.Get("containers")) {
    const std::string cp = r.FieldPath("containers");
    if (!containers->is_array()) return TypeError(cp, "array", *containers);
    for (size_t i = 0; i < containers->size(); ++i) {
      JsonReader c((*containers)[i], JoinPath(cp, i));
      TRIMTAB_RETURN_IF_ERROR(c.ExpectObject());
      ContainerInfo info;
      TRIMTAB_RETURN_IF_ERROR(c.RequiredString("name", &info.name));
      if (const Json* req = c.Get("requests")) {
        TRIMTAB_ASSIGN_OR_RETURN(info.requests, QuantityMap(*req, c.FieldPath("requests")));
      }
      TRIMTAB_RETURN_IF_ERROR(c.OptionalBool("restartableInit", &info.restartable_init));
      TRIMTAB_RETURN_IF_ERROR(c.NoUnknownFields());
      pod.containers.push_back(std::move(info));
    }
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return pod;
}

StatusOr<PodSamples> DecodePodSamples(const Json& json, const std::string& path, TimePoint now,
                                      bool allow_containers) {
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  PodSamples samples;
  std::optional<TimePoint> ts;
  TRIMTAB_RETURN_IF_ERROR(ReadOptionalTime(r, "timestamp", &ts));
  samples.timestamp = ts.value_or(now);
  std::optional<int64_t> window;
  TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("windowSeconds", &window));
  if (window) {
    if (*window <= 0) {
      return InvalidArgumentError(r.FieldPath("windowSeconds") + ": Invalid value: " +
                                  std::to_string(*window) + ": must be greater than zero");
    }
    samples.window = std::chrono::seconds(*window);
  }
  const Json* pods = r.Get("pods");
  if (!pods) return InvalidArgumentError(r.FieldPath("pods") + ": required field is missing");
  const std::string pp = r.FieldPath("pods");
  if (!pods->is_object()) return TypeError(pp, "object", *pods);
  for (auto it = pods->begin(); it != pods->end(); ++it) {
    PodSample s;
    s.pod = it.key();
    if (it->is_object() && allow_containers) {
      TRIMTAB_ASSIGN_OR_RETURN(s.containers, QuantityMap(*it, JoinPath(pp, it.key())));
    } else {
      TRIMTAB_ASSIGN_OR_RETURN(Quantity q, QuantityFromJson(*it, JoinPath(pp, it.key())));
      s.value = q;
    }
    samples.samples.push_back(std::move(s));
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return samples;
}

}  // namespace

StatusOr<std::vector<PodInfo>> PodsFromJson(const Json& json, const std::string& path) {
  if (!json.is_array()) return TypeError(path, "array", json);
  std::vector<PodInfo> pods;
  for (size_t i = 0; i < json.size(); ++i) {
    TRIMTAB_ASSIGN_OR_RETURN(PodInfo pod, DecodePod(json[i], JoinPath(path, i)));
    for (const PodInfo& p : pods) {
      if (p.name == pod.name) {
        return InvalidArgumentError(JoinPath(JoinPath(path, i), "name") + ": Duplicate value: \"" +
                                    pod.name + "\"");
      }
    }
    pods.push_back(std::move(pod));
  }
  return pods;
}

Status MetricValuesFromJson(const Json& json, const std::string& path, TimePoint now,
                            Observations* out) {
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  auto samples_map = [&](std::string_view field, bool containers,
                         std::map<std::string, PodSamples>* dst) -> Status {
    const Json* m = r.Get(field);
    if (!m) return Status::Ok();
    const std::string mp = r.FieldPath(field);
    if (!m->is_object()) return TypeError(mp, "object", *m);
    for (auto it = m->begin(); it != m->end(); ++it) {
      TRIMTAB_ASSIGN_OR_RETURN((*dst)[it.key()],
                               DecodePodSamples(*it, JoinPath(mp, it.key()), now, containers));
    }
    return Status::Ok();
  };
  TRIMTAB_RETURN_IF_ERROR(samples_map("resource", true, &out->resource));
  TRIMTAB_RETURN_IF_ERROR(samples_map("pods", false, &out->pods_metrics));
  if (const Json* objects = r.Get("object")) {
    const std::string op = r.FieldPath("object");
    if (!objects->is_object()) return TypeError(op, "object", *objects);
    for (auto it = objects->begin(); it != objects->end(); ++it) {
      JsonReader o(*it, JoinPath(op, it.key()));
      TRIMTAB_RETURN_IF_ERROR(o.ExpectObject());
      const Json* value = o.Get("value");
      if (!value) return InvalidArgumentError(o.FieldPath("value") + ": required field is missing");
      ObjectValue v;
      TRIMTAB_ASSIGN_OR_RETURN(v.value, QuantityFromJson(*value, o.FieldPath("value")));
      std::optional<TimePoint> ts;
      TRIMTAB_RETURN_IF_ERROR(ReadOptionalTime(o, "timestamp", &ts));
      v.timestamp = ts.value_or(now);
      TRIMTAB_RETURN_IF_ERROR(o.NoUnknownFields());
      out->objects[it.key()] = v;
    }
  }
  if (const Json* external = r.Get("external")) {
    const std::string ep = r.FieldPath("external");
    if (!external->is_object()) return TypeError(ep, "object", *external);
    for (auto it = external->begin(); it != external->end(); ++it) {
      const std::string sp = JoinPath(ep, it.key());
      if (!it->is_array()) return TypeError(sp, "array", *it);
      std::vector<ExternalSample> series;
      for (size_t i = 0; i < it->size(); ++i) {
        JsonReader s((*it)[i], JoinPath(sp, i));
        TRIMTAB_RETURN_IF_ERROR(s.ExpectObject());
        const Json* value = s.Get("value");
        if (!value) {
          return InvalidArgumentError(s.FieldPath("value") + ": required field is missing");
        }
        ExternalSample e;
        TRIMTAB_ASSIGN_OR_RETURN(e.value, QuantityFromJson(*value, s.FieldPath("value")));
        std::optional<TimePoint> ts;
        TRIMTAB_RETURN_IF_ERROR(ReadOptionalTime(s, "timestamp", &ts));
        e.timestamp = ts.value_or(now);
        if (const Json* labels = s.Get("labels")) {
          TRIMTAB_ASSIGN_OR_RETURN(e.labels, StringMap(*labels, s.FieldPath("labels")));
        }
        TRIMTAB_RETURN_IF_ERROR(s.NoUnknownFields());
        series.push_back(std::move(e));
      }
      out->external[it.key()] = std::move(series);
    }
  }
  return r.NoUnknownFields();
}

}  // namespace trimtab::core::hpa
