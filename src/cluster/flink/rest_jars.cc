// REST: session-cluster job submission (/jars/upload multipart, /jars, /jars/:jarid/run,
// DELETE /jars/:jarid). An application cluster does not register these routes (404).
#include <cctype>

#include "cluster/flink/rest_util.h"

namespace trimtab::sim::flink::rest {

namespace {

struct UploadedFile {
  std::string field;
  std::string file_name;
  std::string content;
};

std::string HeaderParam(const std::string& header, const std::string& name) {
  const std::string key = name + "=";
  size_t pos = 0;
  while ((pos = header.find(key, pos)) != std::string::npos) {
    if (pos == 0 || header[pos - 1] == ' ' || header[pos - 1] == ';') break;
    pos += key.size();
  }
  if (pos == std::string::npos) return "";
  pos += key.size();
  if (pos < header.size() && header[pos] == '"') {
    const size_t end = header.find('"', pos + 1);
    return header.substr(pos + 1, end == std::string::npos ? std::string::npos : end - pos - 1);
  }
  const size_t end = header.find(';', pos);
  return header.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
}

// The parts of a multipart/form-data body; nullopt when the request is not multipart.
std::optional<std::vector<UploadedFile>> ParseMultipart(const http::HttpRequest& req) {
  const std::string type = req.Header("Content-Type");
  if (type.find("multipart/form-data") == std::string::npos) return std::nullopt;
  const std::string boundary = HeaderParam(type, "boundary");
  if (boundary.empty()) return std::nullopt;
  const std::string delimiter = "--" + boundary;
  std::vector<UploadedFile> parts;
  size_t pos = req.body.find(delimiter);
  while (pos != std::string::npos) {
    pos += delimiter.size();
    if (req.body.compare(pos, 2, "--") == 0) break;  // closing delimiter
    if (req.body.compare(pos, 2, "\r\n") == 0) pos += 2;
    const size_t headers_end = req.body.find("\r\n\r\n", pos);
    if (headers_end == std::string::npos) break;
    const std::string headers = req.body.substr(pos, headers_end - pos);
    const size_t next = req.body.find("\r\n" + delimiter, headers_end + 4);
    if (next == std::string::npos) break;
    UploadedFile f;
    size_t line_start = 0;
    while (line_start < headers.size()) {
      size_t line_end = headers.find("\r\n", line_start);
      if (line_end == std::string::npos) line_end = headers.size();
      std::string line = headers.substr(line_start, line_end - line_start);
      std::string lower = line;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower.starts_with("content-disposition:")) {
        f.field = HeaderParam(line, "name");
        f.file_name = HeaderParam(line, "filename");
      }
      line_start = line_end + 2;
    }
    f.content = req.body.substr(headers_end + 4, next - headers_end - 4);
    parts.push_back(std::move(f));
    pos = req.body.find(delimiter, next + 2);
  }
  return parts;
}

bool SessionCluster(const RestContext& ctx) { return ctx.state.settings().mode == DeploymentMode::kSession; }

http::HttpResponse NotFoundRoute(const RestContext& ctx) {
  return ErrorResponse(404, "Not found: " + ctx.request.target);
}

}  // namespace

void AddJarRoutes(RestRouter& router) {
  router.Add("POST", "jars/upload", [](RestContext& ctx) {
    if (!SessionCluster(ctx)) return NotFoundRoute(ctx);
    std::optional<std::vector<UploadedFile>> parts = ParseMultipart(ctx.request);
    if (!parts) {
      return ExceptionResponse(400, "org.apache.flink.runtime.rest.handler.RestHandlerException",
                               "Exactly 1 file must be sent, received 0.");
    }
    std::vector<const UploadedFile*> files;
    for (const UploadedFile& f : *parts) {
      if (!f.file_name.empty()) files.push_back(&f);
    }
    if (files.size() != 1) {
      return ExceptionResponse(400, "org.apache.flink.runtime.rest.handler.RestHandlerException",
                               "Exactly 1 file must be sent, received " + std::to_string(files.size()) + ".");
    }
    StatusOr<JarFile> jar = ctx.state.UploadJar(files.front()->file_name);
    if (!jar.ok()) return StatusResponse(jar.status());
    return JsonResponse(200, Json{{"filename", jar->path}, {"status", "success"}});
  });

  router.Add("GET", "jars", [](RestContext& ctx) {
    if (!SessionCluster(ctx)) return NotFoundRoute(ctx);
    Json files = Json::array();
    for (const auto& [id, jar] : ctx.state.jars()) {
      Json entries = Json::array();
      for (const std::string& c : jar.entry_classes) entries.push_back({{"name", c}, {"description", nullptr}});
      files.push_back({{"id", id}, {"name", jar.name}, {"uploaded", jar.uploaded_ms}, {"entry", entries}});
    }
    return JsonResponse(200, Json{{"address", "http://" + ctx.state.host() + ":" +
                                                  std::to_string(ctx.state.settings().rest_port)},
                                  {"files", files}});
  });

  router.Add("DELETE", "jars/:jarid", [](RestContext& ctx) {
    if (!SessionCluster(ctx)) return NotFoundRoute(ctx);
    const Status s = ctx.state.DeleteJar(ctx.params["jarid"]);
    if (!s.ok()) return ExceptionResponse(400, "org.apache.flink.runtime.rest.handler.RestHandlerException", s.message());
    return JsonResponse(200, Json::object());
  });

  router.Add("POST", "jars/:jarid/run", [](RestContext& ctx) {
    if (!SessionCluster(ctx)) return NotFoundRoute(ctx);
    const std::string& jar_id = ctx.params["jarid"];
    auto jar = ctx.state.jars().find(jar_id);
    if (jar == ctx.state.jars().end()) {
      return ExceptionResponse(400, "org.apache.flink.runtime.rest.handler.RestHandlerException",
                               "Jar file " + ctx.state.settings().upload_dir + "/" + jar_id + " does not exist");
    }
    std::optional<Json> body = ParseBody(ctx.request);
    if (!body || !body->is_object()) return BadRequestBody("JarRunRequestBody");
    const Json& b = *body;
    JobSubmission sub;
    sub.program.jar = jar->second.name;
    const auto str = [&](const char* field, const char* query) -> std::string {
      if (b.contains(field) && b[field].is_string()) return b[field].get<std::string>();
      if (query) {
        if (const std::string* q = ctx.Query(query)) return *q;
      }
      return "";
    };
    sub.program.entry_class = str("entryClass", "entry-class");
    if (sub.program.entry_class.empty() && !jar->second.entry_classes.empty()) {
      sub.program.entry_class = jar->second.entry_classes.front();
    }
    if (b.contains("programArgsList") && b["programArgsList"].is_array()) {
      for (const Json& a : b["programArgsList"]) {
        if (!a.is_string()) return BadRequestBody("JarRunRequestBody");
        sub.program.args.push_back(a.get<std::string>());
      }
    } else if (b.contains("programArgs") && b["programArgs"].is_string() && !ctx.state.version().AtLeast(2, 0)) {
      std::string args = b["programArgs"].get<std::string>(), token;
      for (char c : args + " ") {
        if (c == ' ') {
          if (!token.empty()) sub.program.args.push_back(token);
          token.clear();
        } else {
          token += c;
        }
      }
    }
    for (const auto& [k, v] : ctx.request.query) {
      if (k == "programArg") sub.program.args.push_back(v);
    }
    if (b.contains("parallelism") && !b["parallelism"].is_null()) {
      if (!b["parallelism"].is_number_integer()) return BadRequestBody("JarRunRequestBody");
      sub.program.parallelism = b["parallelism"].get<int>();
    } else if (const std::string* p = ctx.Query("parallelism")) {
      try {
        sub.program.parallelism = std::stoi(*p);
      } catch (...) {
        return BadParameters("Cannot resolve query parameter (parallelism) from value \"" + *p + "\".");
      }
    }
    sub.job_id = str("jobId", nullptr);
    if (!sub.job_id.empty() && !IsHexId(sub.job_id)) return BadRequestBody("JarRunRequestBody");
    for (char& c : sub.job_id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    sub.savepoint_path = str("savepointPath", "savepointPath");
    if (b.contains("allowNonRestoredState") && b["allowNonRestoredState"].is_boolean()) {
      sub.allow_non_restored_state = b["allowNonRestoredState"].get<bool>();
    } else if (const std::string* a = ctx.Query("allowNonRestoredState")) {
      sub.allow_non_restored_state = *a == "true";
    }
    if (b.contains("flinkConfiguration") && b["flinkConfiguration"].is_object()) {
      for (const auto& [k, v] : b["flinkConfiguration"].items()) {
        sub.overrides.Set(k, v.is_string() ? v.get<std::string>() : v.dump());
      }
    }
    StatusOr<std::string> job_id = ctx.state.SubmitJob(sub);
    if (!job_id.ok()) return StatusResponse(job_id.status());
    Json out = {{"jobid", *job_id}};
    if (ctx.state.version().AtLeast(2, 3)) out["applicationId"] = StableHexId(*job_id, "application");
    return JsonResponse(200, out);
  });
}

}  // namespace trimtab::sim::flink::rest
