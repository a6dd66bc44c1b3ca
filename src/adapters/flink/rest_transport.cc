#include "adapters/flink/rest_transport.h"

#include <string_view>

#include <nlohmann/json.hpp>

#include "common/json.h"

namespace trimtab::flink {
namespace {

constexpr size_t kMaxErrorText = 1000;

// The informative line of one Flink error entry: its first line, or for a server-side exception
// ("<Exception on server side:\n<exception>\n\tat ...") the exception line.
std::string ErrorLine(std::string_view entry) {
  constexpr std::string_view kServerSide = "<Exception on server side:";
  if (entry.starts_with(kServerSide)) {
    const size_t nl = entry.find('\n');
    if (nl != std::string_view::npos) return FlinkFirstLine(entry.substr(nl + 1));
  }
  return FlinkFirstLine(entry);
}

}  // namespace

std::string FlinkFirstLine(std::string_view text) {
  std::string line(text.substr(0, text.find('\n')));
  if (IsValidUtf8(line)) return line;
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string clean;
  for (unsigned char c : line) {
    if (c < 0x80) {
      clean.push_back(static_cast<char>(c));
    } else {
      clean += "\\x";
      clean.push_back(kHex[c >> 4]);
      clean.push_back(kHex[c & 15]);
    }
  }
  return clean;
}

FlinkRestTransport::FlinkRestTransport(const http::HttpClient* http, std::string base_url)
    : http_(http), base_url_(std::move(base_url)) {
  while (!base_url_.empty() && base_url_.back() == '/') base_url_.pop_back();
}

std::string FlinkRestCallName(const FlinkRestRequest& request) {
  if (request.method != "GET") return request.method + " " + request.path;
  return request.method + " " + request.path.substr(0, request.path.find('?'));
}

StatusOr<Json> FlinkRestTransport::Call(const FlinkRestRequest& request) const {
  const std::string call = FlinkRestCallName(request);
  http::ClientRequest req{.method = request.method, .url = base_url_ + request.path,
                          .body = request.body, .timeout = request.timeout};
  req.headers.push_back({"Accept", "application/json"});
  if (!request.body.empty() || request.method == "POST" || request.method == "PUT") {
    req.headers.push_back(
        {"Content-Type", request.content_type.empty() ? "application/json" : request.content_type});
  }
  StatusOr<http::ClientResponse> resp = http_->Do(req);
  if (!resp.ok()) {
    return Status(resp.status().code(),
                  "Flink REST " + call + " (" + base_url_ + "): " + resp.status().message());
  }
  if (resp->status < 200 || resp->status >= 300) {
    return FlinkRestError(call, base_url_, resp->status, resp->body);
  }
  if (resp->body.empty()) return Json::object();
  Json doc = Json::parse(resp->body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return UnavailableError("Flink REST " + call + " (" + base_url_ + "): response is not JSON: " +
                            FlinkFirstLine(resp->body).substr(0, 200));
  }
  if (doc.is_object() && doc.size() == 1 && doc.contains("errors")) {
    return FlinkRestError(call, base_url_, 500, resp->body);
  }
  return doc;
}

Status FlinkRestError(const std::string& call, const std::string& base_url, int http_status,
                      const std::string& body) {
  std::string text;
  Json doc = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_object() && doc.contains("errors") && doc["errors"].is_array()) {
    for (const Json& e : doc["errors"]) {
      if (!e.is_string()) continue;
      if (!text.empty()) text += "; ";
      text += ErrorLine(e.get<std::string>());
    }
  } else {
    text = FlinkFirstLine(body);
  }
  if (text.size() > kMaxErrorText) text = text.substr(0, kMaxErrorText) + "...";
  const std::string message = "Flink REST " + call + " (" + base_url + "): HTTP " +
                              std::to_string(http_status) + (text.empty() ? "" : ": " + text);
  switch (http_status) {
    case 400: return InvalidArgumentError(message);
    case 404: return NotFoundError(message);
    case 409: return ConflictError(message);
    case 408:
    case 504: return DeadlineExceededError(message);
    default: return UnavailableError(message);
  }
}

}  // namespace trimtab::flink
