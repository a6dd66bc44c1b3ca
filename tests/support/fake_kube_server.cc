#include "tests/support/fake_kube_server.h"

#include <algorithm>
#include <deque>
#include <map>

#include <nlohmann/json.hpp>

#include "adapters/http/server.h"
#include "adapters/kube/object.h"
#include "common/label_selector.h"

namespace trimtab::testing {
namespace {

using http::HttpRequest;
using http::HttpResponse;

struct Route {
  std::string collection;  // "api/v1/pods", "apis/coordination.k8s.io/v1/leases"
  std::string ns;
  std::string name;
  std::string sub;
};

bool ParseRoute(const std::string& path, Route* r) {
  std::vector<std::string> seg;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t slash = path.find('/', start);
    const std::string part =
        path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (!part.empty()) seg.push_back(part);
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  size_t i = 0;
  std::string gv;
  if (seg.size() >= 2 && seg[0] == "api") {
    gv = "api/" + seg[1];
    i = 2;
  } else if (seg.size() >= 3 && seg[0] == "apis") {
    gv = "apis/" + seg[1] + "/" + seg[2];
    i = 3;
  } else {
    return false;
  }
  std::vector<std::string> rest(seg.begin() + static_cast<long>(i), seg.end());
  if (rest.size() >= 3 && rest[0] == "namespaces") {
    r->ns = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.empty() || rest.size() > 3) return false;
  r->collection = gv + "/" + rest[0];
  if (rest.size() >= 2) r->name = rest[1];
  if (rest.size() == 3) r->sub = rest[2];
  return true;
}

std::string ResourceOf(const std::string& collection) {
  return collection.substr(collection.rfind('/') + 1);
}

HttpResponse StatusResponse(int code, const std::string& reason, const std::string& message) {
  Json body = {{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", Json::object()},
               {"status", "Failure"}, {"message", message}, {"reason", reason},
               {"code", code}};
  return HttpResponse::Json(code, body.dump());
}

struct Event {
  int64_t rv;
  std::string type;
  std::string collection;
  Json object;
};

struct Watcher {
  std::string collection;
  std::string ns;
  LabelSelector labels;
  FieldSelector fields;
  bool bookmarks = false;
  std::shared_ptr<http::ResponseStream> stream;
};

struct Fault {
  std::string method;
  std::string prefix;
  int status;
  std::string reason;
  int remaining;
};

}  // namespace

class FakeKubeServer::Impl {
 public:
  StatusOr<std::unique_ptr<http::HttpServer>> Start() {
    return http::HttpServer::Create({.address = "127.0.0.1", .port = 0, .stop_grace = std::chrono::milliseconds(200)},
                                    [this](const HttpRequest& req) { return Handle(req); });
  }

  HttpResponse Handle(const HttpRequest& req) {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(req.method + " " + req.target);
    last_authorization_ = req.Header("Authorization");
    for (Fault& f : faults_) {
      if (f.remaining > 0 && (f.method.empty() || f.method == req.method) &&
          req.path.starts_with(f.prefix)) {
        --f.remaining;
        return StatusResponse(f.status, f.reason, "injected failure");
      }
    }
    Route route;
    if (!ParseRoute(req.path, &route)) {
      return StatusResponse(404, "NotFound", "the server could not find the requested resource");
    }
    const std::string* watch = req.Query("watch");
    if (req.method == "GET" && route.name.empty() && watch != nullptr && *watch != "false" &&
        *watch != "0") {
      return Watch(req, route);
    }
    if (req.method == "GET" && route.name.empty()) return List(req, route);
    if (req.method == "GET") return Get(route);
    if (req.method == "POST" && route.name.empty()) return Create(req, route);
    if (req.method == "PUT") return Update(req, route);
    if (req.method == "PATCH") return Patch(req, route);
    if (req.method == "DELETE") return Delete(req, route);
    return StatusResponse(405, "MethodNotAllowed", "method not allowed");
  }

  // ---- store ----
  Json StoreCreate(const std::string& collection, const std::string& ns, Json object) {
    object["metadata"]["namespace"] = ns;
    if (ns.empty()) object["metadata"].erase("namespace");
    object["metadata"]["uid"] = "uid-" + std::to_string(++uid_);
    object["metadata"]["creationTimestamp"] = "2024-01-01T00:00:00Z";
    object["metadata"]["generation"] = 1;
    object["metadata"]["resourceVersion"] = std::to_string(++rv_);
    objects_[collection][kube::ObjectKey(ns, kube::ObjectName(object))] = object;
    Record("ADDED", collection, object);
    return object;
  }

  void Record(const std::string& type, const std::string& collection, const Json& object) {
    history_.push_back({rv_, type, collection, object});
    for (Watcher& w : watchers_) Deliver(w, type, collection, object);
    std::erase_if(watchers_, [](const Watcher& w) { return !w.stream->IsOpen(); });
  }

  static bool Matches(const Watcher& w, const std::string& collection, const Json& object) {
    if (w.collection != collection) return false;
    if (!w.ns.empty() && kube::ObjectNamespace(object) != w.ns) return false;
    if (!w.labels.Matches(kube::ObjectLabels(object))) return false;
    return w.fields.Empty() || w.fields.Matches(kube::SelectableFields(object, w.fields));
  }

  static void Deliver(Watcher& w, const std::string& type, const std::string& collection,
                      const Json& object) {
    if (!Matches(w, collection, object)) return;
    w.stream->Write(Json({{"type", type}, {"object", object}}).dump() + "\n");
  }

  Json* Find(const Route& r) {
    auto coll = objects_.find(r.collection);
    if (coll == objects_.end()) return nullptr;
    auto it = coll->second.find(kube::ObjectKey(r.ns, r.name));
    return it == coll->second.end() ? nullptr : &it->second;
  }

  HttpResponse NotFound(const Route& r) {
    return StatusResponse(404, "NotFound", ResourceOf(r.collection) + " \"" + r.name + "\" not found");
  }

  // ---- verbs ----
  HttpResponse Get(const Route& r) {
    Json* obj = Find(r);
    if (obj == nullptr) return NotFound(r);
    return HttpResponse::Json(200, obj->dump());
  }

  StatusOr<std::pair<LabelSelector, FieldSelector>> Selectors(const HttpRequest& req) {
    LabelSelector ls;
    FieldSelector fs;
    if (const std::string* l = req.Query("labelSelector")) {
      TRIMTAB_ASSIGN_OR_RETURN(ls, LabelSelector::Parse(*l));
    }
    if (const std::string* f = req.Query("fieldSelector")) {
      TRIMTAB_ASSIGN_OR_RETURN(fs, FieldSelector::Parse(*f));
    }
    return std::make_pair(ls, fs);
  }

  HttpResponse List(const HttpRequest& req, const Route& r) {
    auto sel = Selectors(req);
    if (!sel.ok()) return StatusResponse(400, "BadRequest", sel.status().message());
    int64_t list_rv = rv_;
    std::string after;
    if (const std::string* c = req.Query("continue"); c != nullptr && !c->empty()) {
      const size_t bar = c->find('|');
      list_rv = std::stoll(c->substr(0, bar));
      after = c->substr(bar + 1);
      if (list_rv < compacted_rv_) {
        return StatusResponse(410, "Expired",
                              "The provided continue parameter is too old to display a consistent "
                              "list result.");
      }
    }
    int64_t limit = 0;
    if (const std::string* l = req.Query("limit")) limit = std::stoll(*l);
    Watcher filter{.collection = r.collection, .ns = r.ns, .labels = sel->first, .fields = sel->second};
    Json items = Json::array();
    std::string next;
    for (const auto& [key, obj] : objects_[r.collection]) {
      if (!after.empty() && key <= after) continue;
      if (!Matches(filter, r.collection, obj)) continue;
      if (limit > 0 && static_cast<int64_t>(items.size()) == limit) {
        next = std::to_string(list_rv) + "|" + kube::ObjectKey(items.back());
        break;
      }
      items.push_back(obj);
    }
    Json list = {{"kind", "List"},
                 {"apiVersion", "v1"},
                 {"metadata", {{"resourceVersion", std::to_string(list_rv)}}},
                 {"items", items}};
    if (!next.empty()) list["metadata"]["continue"] = next;
    return HttpResponse::Json(200, list.dump());
  }

  HttpResponse Watch(const HttpRequest& req, const Route& r) {
    auto sel = Selectors(req);
    if (!sel.ok()) return StatusResponse(400, "BadRequest", sel.status().message());
    const std::string* rv_param = req.Query("resourceVersion");
    const std::string* bm = req.Query("allowWatchBookmarks");
    Watcher w{.collection = r.collection,
              .ns = r.ns,
              .labels = sel->first,
              .fields = sel->second,
              .bookmarks = bm != nullptr && *bm == "true"};
    const std::string rv = rv_param == nullptr ? "" : *rv_param;
    HttpResponse response;
    response.headers.emplace_back("Content-Type", "application/json");
    response.on_stream = [this, w, rv](std::shared_ptr<http::ResponseStream> stream) mutable {
      std::lock_guard<std::mutex> lock(mu_);
      w.stream = stream;
      if (rv.empty() || rv == "0") {
        for (const auto& [key, obj] : objects_[w.collection]) Deliver(w, "ADDED", w.collection, obj);
      } else {
        const int64_t from = std::stoll(rv);
        if (from < compacted_rv_) {
          const Json status = {{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Failure"},
                               {"message", "too old resource version: " + rv + " (" +
                                               std::to_string(compacted_rv_) + ")"},
                               {"reason", "Expired"}, {"code", 410}};
          stream->Write(Json({{"type", "ERROR"}, {"object", status}}).dump() + "\n");
          stream->Close();
          return;
        }
        for (const Event& e : history_) {
          if (e.rv > from) Deliver(w, e.type, e.collection, e.object);
        }
      }
      watchers_.push_back(std::move(w));
    };
    return response;
  }

  HttpResponse Create(const HttpRequest& req, const Route& r) {
    Json obj = Json::parse(req.body, nullptr, false);
    if (!obj.is_object()) return StatusResponse(400, "BadRequest", "body is not a JSON object");
    if (!obj["metadata"].is_object()) obj["metadata"] = Json::object();
    std::string name = kube::ObjectName(obj);
    if (name.empty() && obj["metadata"].contains("generateName")) {
      name = obj["metadata"]["generateName"].get<std::string>() + std::to_string(uid_ + 1);
      obj["metadata"]["name"] = name;
    }
    if (name.empty()) {
      return StatusResponse(422, "Invalid", ResourceOf(r.collection) +
                                                " is invalid: metadata.name: Required value: name "
                                                "or generateName is required");
    }
    Route item = r;
    item.name = name;
    if (Find(item) != nullptr) {
      return StatusResponse(409, "AlreadyExists",
                            ResourceOf(r.collection) + " \"" + name + "\" already exists");
    }
    return HttpResponse::Json(201, StoreCreate(r.collection, r.ns, std::move(obj)).dump());
  }

  HttpResponse Replace(const Route& r, Json* stored, Json updated) {
    const std::string want_rv = kube::ObjectResourceVersion(updated);
    if (!want_rv.empty() && want_rv != kube::ObjectResourceVersion(*stored)) {
      return StatusResponse(409, "Conflict",
                            "Operation cannot be fulfilled on " + ResourceOf(r.collection) + " \"" +
                                r.name +
                                "\": the object has been modified; please apply your changes to "
                                "the latest version and try again");
    }
    if (r.sub == "status") {
      Json next = *stored;
      next["status"] = updated.contains("status") ? updated["status"] : Json();
      updated = std::move(next);
    } else if (stored->contains("status")) {
      updated["status"] = (*stored)["status"];
    }
    updated["metadata"]["uid"] = (*stored)["metadata"]["uid"];
    updated["metadata"]["creationTimestamp"] = (*stored)["metadata"]["creationTimestamp"];
    updated["metadata"]["name"] = r.name;
    if (!r.ns.empty()) updated["metadata"]["namespace"] = r.ns;
    int64_t generation = (*stored)["metadata"].value("generation", int64_t{1});
    if (updated.value("spec", Json()) != stored->value("spec", Json())) ++generation;
    updated["metadata"]["generation"] = generation;
    updated["metadata"]["resourceVersion"] = std::to_string(++rv_);
    *stored = updated;
    Record("MODIFIED", r.collection, updated);
    return HttpResponse::Json(200, updated.dump());
  }

  HttpResponse Update(const HttpRequest& req, const Route& r) {
    Json* stored = Find(r);
    if (stored == nullptr) return NotFound(r);
    Json obj = Json::parse(req.body, nullptr, false);
    if (!obj.is_object()) return StatusResponse(400, "BadRequest", "body is not a JSON object");
    return Replace(r, stored, std::move(obj));
  }

  HttpResponse Patch(const HttpRequest& req, const Route& r) {
    Json* stored = Find(r);
    if (stored == nullptr) return NotFound(r);
    const std::string type = req.Header("Content-Type");
    Json patch = Json::parse(req.body, nullptr, false);
    if (patch.is_discarded()) return StatusResponse(400, "BadRequest", "patch is not JSON");
    Json updated = *stored;
    if (type == "application/merge-patch+json" || type == "application/strategic-merge-patch+json") {
      updated.merge_patch(patch);
      // A patch without a resourceVersion is unconditional.
      if (!patch.contains("metadata") || !patch["metadata"].contains("resourceVersion")) {
        updated["metadata"]["resourceVersion"] = (*stored)["metadata"]["resourceVersion"];
      }
    } else if (type == "application/json-patch+json") {
      try {
        updated = stored->patch(patch);
      } catch (const Json::exception& e) {
        return StatusResponse(422, "Invalid", std::string("json patch: ") + e.what());
      }
    } else {
      return StatusResponse(415, "UnsupportedMediaType",
                            "the body of the request was in an unknown format - accepted media "
                            "types include: application/json-patch+json, "
                            "application/merge-patch+json");
    }
    if (r.sub == "status") {
      Json next = *stored;
      next["status"] = updated.value("status", Json());
      next["metadata"]["resourceVersion"] = updated["metadata"]["resourceVersion"];
      return Replace(r, stored, std::move(next));
    }
    return Replace(r, stored, std::move(updated));
  }

  HttpResponse Delete(const HttpRequest& req, const Route& r) {
    Json* stored = Find(r);
    if (stored == nullptr) return NotFound(r);
    const Json options = req.body.empty() ? Json::object() : Json::parse(req.body, nullptr, false);
    if (options.is_object() && options.contains("preconditions")) {
      const Json& pre = options["preconditions"];
      if ((pre.contains("uid") && pre["uid"] != (*stored)["metadata"]["uid"]) ||
          (pre.contains("resourceVersion") &&
           pre["resourceVersion"] != (*stored)["metadata"]["resourceVersion"])) {
        return StatusResponse(409, "Conflict",
                              "Operation cannot be fulfilled on " + ResourceOf(r.collection) +
                                  " \"" + r.name + "\": precondition failed");
      }
    }
    Json gone = *stored;
    objects_[r.collection].erase(kube::ObjectKey(r.ns, r.name));
    gone["metadata"]["resourceVersion"] = std::to_string(++rv_);
    Record("DELETED", r.collection, gone);
    const Json status = {{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Success"},
                         {"details", {{"name", r.name}, {"kind", ResourceOf(r.collection)}}}};
    return HttpResponse::Json(200, status.dump());
  }

  mutable std::mutex mu_;
  std::map<std::string, std::map<std::string, Json>> objects_;  // collection -> key -> object
  std::deque<Event> history_;
  std::vector<Watcher> watchers_;
  std::vector<Fault> faults_;
  std::vector<std::string> requests_;
  std::string last_authorization_;
  int64_t rv_ = 100;
  int64_t compacted_rv_ = 0;
  int64_t uid_ = 0;
  std::unique_ptr<http::HttpServer> server_;
};

FakeKubeServer::FakeKubeServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

FakeKubeServer::~FakeKubeServer() {
  CloseWatches();
  if (impl_->server_) impl_->server_->Stop();
}

StatusOr<std::unique_ptr<FakeKubeServer>> FakeKubeServer::Create() {
  auto impl = std::make_unique<Impl>();
  StatusOr<std::unique_ptr<http::HttpServer>> server = impl->Start();
  if (!server.ok()) return server.status();
  impl->server_ = std::move(server).value();
  return std::unique_ptr<FakeKubeServer>(new FakeKubeServer(std::move(impl)));
}

std::string FakeKubeServer::base_url() const { return impl_->server_->base_url(); }

Json FakeKubeServer::Seed(const std::string& collection_path, Json object) {
  Route r;
  if (!ParseRoute(collection_path, &r)) return Json();
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return impl_->StoreCreate(r.collection, r.ns, std::move(object));
}

Json FakeKubeServer::Lookup(const std::string& item_path) const {
  Route r;
  if (!ParseRoute(item_path, &r)) return Json();
  std::lock_guard<std::mutex> lock(impl_->mu_);
  const Json* obj = impl_->Find(r);
  return obj == nullptr ? Json() : *obj;
}

int64_t FakeKubeServer::CurrentResourceVersion() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return impl_->rv_;
}

void FakeKubeServer::FailNext(const std::string& method, const std::string& path_prefix,
                              int http_status, const std::string& reason, int count) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->faults_.push_back({method, path_prefix, http_status, reason, count});
}

void FakeKubeServer::CloseWatches() {
  std::vector<Watcher> watchers;
  {
    std::lock_guard<std::mutex> lock(impl_->mu_);
    watchers.swap(impl_->watchers_);
  }
  for (Watcher& w : watchers) w.stream->Close();
}

void FakeKubeServer::CompactHistory() {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->history_.clear();
  impl_->compacted_rv_ = impl_->rv_;
}

void FakeKubeServer::SendBookmarks() {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  for (Watcher& w : impl_->watchers_) {
    if (!w.bookmarks) continue;
    const Json event = {{"type", "BOOKMARK"},
                        {"object",
                         {{"kind", "Bookmark"},
                          {"metadata", {{"resourceVersion", std::to_string(impl_->rv_)}}}}}};
    w.stream->Write(event.dump() + "\n");
  }
}

std::vector<std::string> FakeKubeServer::Requests() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return impl_->requests_;
}

std::string FakeKubeServer::LastAuthorization() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return impl_->last_authorization_;
}

size_t FakeKubeServer::OpenWatchCount() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return static_cast<size_t>(std::count_if(impl_->watchers_.begin(), impl_->watchers_.end(),
                                           [](const Watcher& w) { return w.stream->IsOpen(); }));
}

}  // namespace trimtab::testing
