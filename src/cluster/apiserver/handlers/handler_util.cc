#include "cluster/apiserver/handlers/handler_util.h"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "cluster/apiserver/surface/builtin_validation.h"
#include "cluster/apiserver/handlers/protobuf_decode.h"

namespace trimtab::cluster {

using http::HttpResponse;

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// The media type of a Content-Type value, lower case, without parameters.
std::string MediaType(const std::string& content_type) {
  std::string t = Lower(content_type.substr(0, content_type.find(';')));
  while (!t.empty() && t.back() == ' ') t.pop_back();
  while (!t.empty() && t.front() == ' ') t.erase(t.begin());
  return t;
}

std::string EscapeWarning(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

// Where Go's base64.StdEncoding would fail on `text` (-1: valid). Line breaks are skipped.
int64_t IllegalBase64Byte(const std::string& text) {
  size_t n = 0;        // significant characters so far
  size_t padding = 0;  // '=' seen
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\r' || c == '\n') continue;
    const bool alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                       c == '+' || c == '/';
    if (c == '=') {
      if (n % 4 < 2 || padding >= 2) return static_cast<int64_t>(i);
      ++padding;
    } else if (!alpha || padding > 0) {
      return static_cast<int64_t>(i);
    }
    ++n;
  }
  if (n % 4 != 0) return static_cast<int64_t>(text.size());
  return -1;
}

std::vector<std::string> SplitDots(std::string_view path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t dot = path.find('.', start);
    if (dot == std::string_view::npos) dot = path.size();
    if (dot > start) parts.emplace_back(path.substr(start, dot - start));
    start = dot + 1;
  }
  return parts;
}

}  // namespace

HttpResponse JsonResponse(int code, const Json& body, const std::vector<std::string>& warnings) {
  // Replace rather than throw on invalid UTF-8: no answer may turn into a 500.
  HttpResponse res =
      HttpResponse::Json(code, body.dump(-1, ' ', false, Json::error_handler_t::replace));
  for (const auto& w : warnings) res.headers.emplace_back("Warning", "299 - \"" + EscapeWarning(w) + "\"");
  return res;
}

HttpResponse ErrorResponse(const ApiError& error) {
  return HttpResponse::Json(error.code,
                            error.ToStatus().dump(-1, ' ', false, Json::error_handler_t::replace));
}

Json VersionInfo() {
  return Json{{"major", "1"},
              {"minor", "32"},
              {"gitVersion", "v1.32.0"},
              {"gitCommit", "trimtab-local"},
              {"gitTreeState", "clean"},
              {"buildDate", "2024-12-11T00:00:00Z"},
              {"goVersion", "go1.23.3"},
              {"compiler", "gc"},
              {"platform", "linux/amd64"}};
}

bool WantsTable(const std::string& accept) {
  // The first acceptable media type decides; kubectl lists the Table forms first.
  std::string first = Lower(accept.substr(0, accept.find(',')));
  return first.find("as=table") != std::string::npos &&
         first.find("g=meta.k8s.io") != std::string::npos;
}

TableRowObject TableRowsFor(const std::string& include_object) {
  if (include_object == "None") return TableRowObject::kNone;
  if (include_object == "Object") return TableRowObject::kObject;
  return TableRowObject::kMetadata;
}

bool IsTrue(const std::string& value) {
  std::string v = Lower(value);
  return !v.empty() && v != "0" && v != "false";
}

bool IsWatch(const ApiHandler::Call& call) {
  if (call.info.legacy_watch) return true;
  const std::string* w = call.req.Query("watch");
  if (!w) return false;
  std::string v = Lower(*w);
  return v != "0" && v != "false";
}

std::optional<int64_t> ParseInt(const std::string& text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  size_t i = text[0] == '-' ? 1 : 0;
  if (i == text.size()) return std::nullopt;
  for (size_t j = i; j < text.size(); ++j) {
    if (!std::isdigit(static_cast<unsigned char>(text[j]))) return std::nullopt;
  }
  return std::stoll(text);
}

ApiResult<Json> DecodeBody(const http::HttpRequest& request,
                           std::vector<std::string>* duplicate_fields) {
  std::string type = MediaType(request.Header("Content-Type"));
  if (IsKubernetesProtobufMediaType(type)) {
    if (request.body.empty()) return BadRequest("the request body is empty");
    return DecodeProtobufBody(request.body);
  }
  if (type.find("protobuf") != std::string::npos || type.find("cbor") != std::string::npos) {
    return UnsupportedMediaType(
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json, application/yaml");
  }
  bool yaml = type == "application/yaml" || type == "application/apply-patch+yaml" ||
              type == "text/yaml" || type == "application/x-yaml";
  if (request.body.empty()) return BadRequest("the request body is empty");
  auto parsed = yaml ? ParseYaml(request.body, "request body")
                     : ParseJson(request.body, "request body",
                                 {.duplicate_fields = duplicate_fields});
  if (!parsed.ok()) return BadRequest(parsed.status().message());
  return std::move(*parsed);
}

ApiResult<Json> DecodeObjectBody(ApiHandler::Call& call) {
  std::vector<std::string> duplicates;
  auto body = DecodeBody(call.req, &duplicates);
  if (!body.ok()) return body;
  const ResourceType& type = call.type;
  if (!body->is_object()) {
    return BadRequest("the object provided is unrecognized (must be of type " + type.kind +
                      "): expected a JSON object, got " + std::string(JsonTypeName(*body)));
  }
  const auto text = [&](const char* key) -> std::optional<std::string> {
    auto it = body->find(key);
    if (it == body->end() || it->is_null()) return std::nullopt;
    return it->is_string() ? it->get<std::string>() : it->dump();
  };
  const std::optional<std::string> api_version = text("apiVersion");
  const std::optional<std::string> kind = text("kind");
  if (api_version && !api_version->empty() && *api_version != type.GroupVersion()) {
    return BadRequest("the API version in the data (" + *api_version +
                      ") does not match the expected API version (" + type.GroupVersion() + ")");
  }
  if (kind && !kind->empty() && *kind != type.kind) {
    return BadRequest(*kind + " in version \"" + type.version + "\" cannot be handled as a " +
                      type.kind + ": the kind in the body does not match the resource " +
                      type.plural + " in the URL");
  }
  if (type.group.empty() && type.kind == "Secret") {
    if (const auto data = body->find("data"); data != body->end() && data->is_object()) {
      for (auto it = data->begin(); it != data->end(); ++it) {
        if (!it->is_string()) continue;
        if (int64_t at = IllegalBase64Byte(it->get_ref<const std::string&>()); at >= 0) {
          return BadRequest("Secret in version \"v1\" cannot be handled as a Secret: illegal "
                            "base64 data at input byte " + std::to_string(at));
        }
      }
    }
    SecretStringDataToData(&*body);
  }
  if (auto too_large = CheckStoredSize(*body)) return *too_large;
  if (!duplicates.empty()) {
    const std::string& mode = call.write.field_validation;
    if (mode == "Strict") {
      std::string message = "strict decoding error: ";
      for (size_t i = 0; i < duplicates.size(); ++i) {
        if (i > 0) message += ", ";
        message += "duplicate field \"" + duplicates[i] + "\"";
      }
      return BadRequest(std::move(message));
    }
    if (mode != "Ignore") {
      for (const auto& d : duplicates) call.warnings.push_back("duplicate field \"" + d + "\"");
    }
  }
  return body;
}

std::optional<ApiError> CheckStoredSize(const Json& object) {
  const size_t bytes = object.dump().size();
  if (bytes <= kMaxStoredObjectBytes) return std::nullopt;
  return ApiError{413, "RequestEntityTooLarge",
                  "Request entity too large: the object is " + std::to_string(bytes) +
                      " bytes, limit is " + std::to_string(kMaxStoredObjectBytes),
                  nullptr};
}

ApiResult<DeleteOptions> ParseDeleteOptions(const ApiHandler::Call& call) {
  DeleteOptions out;
  Json body = Json::object();
  if (!call.req.body.empty()) {
    auto parsed = DecodeBody(call.req);
    if (!parsed.ok()) return parsed.error();
    if (!parsed->is_object()) return BadRequest("DeleteOptions must be a JSON object");
    body = std::move(*parsed);
  }
  if (body.contains("propagationPolicy") && body["propagationPolicy"].is_string()) {
    out.propagation = body["propagationPolicy"].get<std::string>();
  }
  if (body.contains("orphanDependents") && body["orphanDependents"].is_boolean()) {
    out.propagation = body["orphanDependents"].get<bool>() ? "Orphan" : "Background";
  }
  if (body.contains("gracePeriodSeconds") && body["gracePeriodSeconds"].is_number_integer()) {
    out.grace_period_seconds = body["gracePeriodSeconds"].get<int64_t>();
  }
  if (body.contains("preconditions") && body["preconditions"].is_object()) {
    const Json& p = body["preconditions"];
    if (p.contains("uid") && p["uid"].is_string()) out.precondition_uid = p["uid"];
    if (p.contains("resourceVersion") && p["resourceVersion"].is_string()) {
      out.precondition_resource_version = p["resourceVersion"];
    }
  }
  if (body.contains("dryRun") && body["dryRun"].is_array() && !body["dryRun"].empty()) {
    out.dry_run = true;
  }
  if (std::string p = call.Q("propagationPolicy"); !p.empty()) out.propagation = p;
  if (std::string o = call.Q("orphanDependents"); !o.empty()) {
    out.propagation = IsTrue(o) ? "Orphan" : "Background";
  }
  if (auto g = ParseInt(call.Q("gracePeriodSeconds"))) out.grace_period_seconds = *g;
  if (!call.Q("dryRun").empty()) out.dry_run = true;
  if (!out.propagation.empty() && out.propagation != "Background" &&
      out.propagation != "Foreground" && out.propagation != "Orphan") {
    return BadRequest("propagationPolicy: Unsupported value: \"" + out.propagation +
                      "\": supported values: \"Background\", \"Foreground\", \"Orphan\"");
  }
  return out;
}

bool ReturnsDeletedObject(const ResourceType& type) {
  if (type.is_crd) return true;
  if (type.group.empty()) {
    return type.plural == "pods" || type.plural == "services" || type.plural == "namespaces" ||
           type.plural == "nodes";
  }
  return type.group == "apiextensions.k8s.io";
}

std::string TailLines(const std::string& text, int64_t n) {
  if (n <= 0) return "";
  size_t end = text.size();
  if (end > 0 && text[end - 1] == '\n') --end;
  size_t pos = end;
  for (int64_t lines = 0; lines < n; ++lines) {
    size_t nl = pos == 0 ? std::string::npos : text.rfind('\n', pos - 1);
    if (nl == std::string::npos) return text;
    pos = nl;
  }
  return text.substr(pos + 1);
}

const Json* GetDotPath(const Json& object, std::string_view path) {
  const Json* cur = &object;
  for (const auto& part : SplitDots(path)) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(part);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur;
}

void SetDotPath(Json* object, std::string_view path, Json value) {
  Json* cur = object;
  for (const auto& part : SplitDots(path)) {
    if (!cur->is_object()) *cur = Json::object();
    cur = &(*cur)[part];
  }
  *cur = std::move(value);
}

}  // namespace trimtab::cluster
