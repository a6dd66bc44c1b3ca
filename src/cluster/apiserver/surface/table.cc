#include "cluster/apiserver/surface/table.h"

#include <nlohmann/json.hpp>

#include "cluster/apiserver/surface/builtin_printers.h"
#include "cluster/apiserver/surface/jsonpath.h"

namespace trimtab::cluster {
namespace {

Json ColumnDefinition(const PrinterColumn& c) {
  return {{"name", c.name},
          {"type", c.type},
          {"format", c.format},
          {"description", c.description},
          {"priority", c.priority}};
}

bool HasNameColumn(const ResourceType& type) {
  for (const PrinterColumn& c : type.printer_columns) {
    if (c.name == "Name") return true;
  }
  return false;
}

// Prints a JSONPath result as kubectl's string columns do.
std::string PrintString(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump();
}

// The CRD cell typing of the apiextensions table convertor.
Json CrdCell(const PrinterColumn& c, const Json& v, TimePoint now) {
  if (v.is_null()) return Json();
  if (c.type == "string") return PrintString(v);
  if (c.type == "integer") {
    if (v.is_number_integer() || v.is_number_unsigned()) return v.get<int64_t>();
    if (v.is_number_float()) return static_cast<int64_t>(v.get<double>());
    return Json();
  }
  if (c.type == "number") return v.is_number() ? Json(v.get<double>()) : Json();
  if (c.type == "boolean") return v.is_boolean() ? v : Json();
  if (c.type == "date") return v.is_string() ? Json(HumanAge(v, now)) : Json();
  return Json();
}

// Cell of a plain JSONPath column of a built-in kind: missing numbers print as 0, like the
// zero values of Go structs.
Json BuiltinPathCell(const PrinterColumn& c, const Json& v) {
  if (v.is_null()) {
    if (c.type == "integer") return 0;
    if (c.type == "boolean") return false;
    return "";
  }
  if (c.type == "string") return PrintString(v);
  return v;
}

}  // namespace

std::string HumanDuration(Duration d) {
  const long long seconds = std::chrono::duration_cast<Seconds>(d).count();
  auto fmt = [](long long a, const char* ua, long long b, const char* ub) {
    std::string s = std::to_string(a) + ua;
    if (b != 0) s += std::to_string(b) + ub;
    return s;
  };
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return std::to_string(seconds) + "s";
  const long long minutes = seconds / 60;
  if (minutes < 10) return fmt(minutes, "m", seconds % 60, "s");
  if (minutes < 180) return std::to_string(minutes) + "m";
  const long long hours = minutes / 60;
  if (hours < 8) return fmt(hours, "h", minutes % 60, "m");
  if (hours < 48) return std::to_string(hours) + "h";
  if (hours < 24 * 8) return fmt(hours / 24, "d", hours % 24, "h");
  if (hours < 24 * 365 * 2) return std::to_string(hours / 24) + "d";
  if (hours < 24 * 365 * 8) return fmt(hours / 24 / 365, "y", (hours / 24) % 365, "d");
  return std::to_string(hours / 24 / 365) + "y";
}

std::string HumanAge(const Json& timestamp, TimePoint now) {
  if (!timestamp.is_string() || timestamp.get<std::string>().empty()) return "<unknown>";
  StatusOr<TimePoint> t = ParseRfc3339(timestamp.get<std::string>());
  if (!t.ok()) return "<invalid>";
  return HumanDuration(now - *t);
}

Json ToTable(const ResourceType& type, const std::vector<Json>& objects, bool include_object) {
  return ToTable(type, objects, include_object ? TableRowObject::kMetadata : TableRowObject::kNone,
                 std::chrono::system_clock::now());
}

Json ToTable(const ResourceType& type, const std::vector<Json>& objects, TableRowObject rows,
             TimePoint now) {
  const bool name_first = !HasNameColumn(type);
  Json columns = Json::array();
  if (name_first) {
    columns.push_back({{"name", "Name"},
                       {"type", "string"},
                       {"format", "name"},
                       {"description",
                        "Name must be unique within a namespace. Is required when creating "
                        "resources, although some resources may allow a client to request the "
                        "generation of an appropriate name automatically. Name is primarily "
                        "intended for creation idempotence and configuration definition. Cannot "
                        "be updated. More info: "
                        "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
                        "names#names"},
                       {"priority", 0}});
  }
  for (const PrinterColumn& c : type.printer_columns) columns.push_back(ColumnDefinition(c));

  Json out_rows = Json::array();
  for (const Json& obj : objects) {
    const Json meta = obj.is_object() ? obj.value("metadata", Json::object()) : Json::object();
    Json cells = Json::array();
    if (name_first) cells.push_back(meta.value("name", ""));
    for (const PrinterColumn& c : type.printer_columns) {
      if (!type.is_crd) {
        if (std::optional<Json> cell = BuiltinCell(type, c, obj, now)) {
          cells.push_back(std::move(*cell));
          continue;
        }
        cells.push_back(
            BuiltinPathCell(c, c.json_path.empty() ? Json() : JsonPathFirst(obj, c.json_path)));
      } else {
        cells.push_back(CrdCell(c, JsonPathFirst(obj, c.json_path), now));
      }
    }
    Json row = {{"cells", std::move(cells)}};
    if (rows == TableRowObject::kMetadata) {
      row["object"] = {{"kind", "PartialObjectMetadata"},
                       {"apiVersion", "meta.k8s.io/v1"},
                       {"metadata", meta}};
    } else if (rows == TableRowObject::kObject) {
      Json full = obj;
      if (full.is_object()) {
        if (!full.contains("kind")) full["kind"] = type.kind;
        if (!full.contains("apiVersion")) full["apiVersion"] = type.GroupVersion();
      }
      row["object"] = std::move(full);
    }
    out_rows.push_back(std::move(row));
  }
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", Json::object()},
          {"columnDefinitions", std::move(columns)},
          {"rows", std::move(out_rows)}};
}

}  // namespace trimtab::cluster
