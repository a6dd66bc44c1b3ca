#include "cluster/apiserver/auth/auth_layer.h"

#include <filesystem>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "cluster/apiserver/auth/host_check.h"
#include "cluster/apiserver/auth/rbac_types.h"
#include "cluster/apiserver/handlers/handler_util.h"
#include "cluster/apiserver/storage/object_meta.h"
#include "cluster/apiserver/handlers/request_info.h"

namespace trimtab::cluster::auth {

using http::HttpRequest;
using http::HttpResponse;

struct AuthLayer::Request {
  const HttpRequest& http;
  UserInfo user;
  Attributes attributes;
  std::optional<RequestInfo> info;
};

namespace {

constexpr char kRbacPrefix[] = "/registry/rbac.authorization.k8s.io/";
// The kubelet asks for this lifetime; the kube-apiserver then issues a token valid for a year
// that carries warnafter (--service-account-extend-token-expiration, on by default).
constexpr int64_t kKubeletTokenSeconds = 3607;
constexpr int64_t kExtendedTokenSeconds = 365LL * 24 * 3600;

ApiError Unauthorized() { return ApiError{401, "Unauthorized", "Unauthorized", nullptr}; }

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Str(const Json& o, const char* field) {
  if (!o.is_object()) return "";
  auto it = o.find(field);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

const Json& Field(const Json& o, const char* field) {
  static const Json kNull;
  if (!o.is_object()) return kNull;
  auto it = o.find(field);
  return it == o.end() ? kNull : *it;
}

// Compares without an early exit, so the time taken does not tell how much of a guess matched.
bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

// The paths an unauthenticated client may reach when anonymous requests are otherwise refused
// (the kube-apiserver's AuthenticationConfiguration anonymous.conditions example).
bool AnonymousPath(const HttpRequest& r) {
  if (r.method != "GET" && r.method != "HEAD") return false;
  for (std::string_view p : {"/healthz", "/livez", "/readyz"}) {
    if (r.path == p || r.path.rfind(std::string(p) + "/", 0) == 0) return true;
  }
  return false;
}

UserInfo AnonymousUser() {
  UserInfo u;
  u.name = "system:anonymous";
  u.groups = {"system:unauthenticated"};
  return u;
}

UserInfo AdminUser() {
  UserInfo u;
  u.name = std::string(kAdminUser);
  u.groups = {std::string(kGroupMasters), std::string(kGroupAuthenticated)};
  return u;
}

Json UserInfoJson(const UserInfo& u) {
  Json out = {{"username", u.name}, {"groups", u.groups}};
  if (!u.uid.empty()) out["uid"] = u.uid;
  if (!u.extra.empty()) out["extra"] = u.extra;
  return out;
}

bool IsTrueQuery(const HttpRequest& r, const char* name) {
  const std::string* v = r.Query(name);
  return v && IsTrue(*v);
}

// What the request asks, as the kube-apiserver's RequestInfoFactory and authorizer see it.
Attributes AttributesOf(const HttpRequest& r, const std::optional<RequestInfo>& info,
                        const UserInfo& user) {
  Attributes a;
  a.user = user;
  if (!info) {
    a.resource_request = false;
    a.path = r.path;
    a.verb = Lower(r.method);
    return a;
  }
  a.api_group = info->group;
  a.api_version = info->version;
  a.resource = info->resource;
  a.subresource = info->subresource;
  a.name = info->name;
  a.ns = info->ns;
  if (info->group.empty() && info->resource == "namespaces" && !info->name.empty()) {
    a.ns = info->name;  // a Namespace object is "in" itself
  }
  const bool collection = info->name.empty();
  if (r.method == "GET" || r.method == "HEAD") {
    bool watch = info->legacy_watch || IsTrueQuery(r, "watch");
    a.verb = watch ? "watch" : collection ? "list" : "get";
  } else if (r.method == "POST") {
    a.verb = "create";
  } else if (r.method == "PUT") {
    a.verb = "update";
  } else if (r.method == "PATCH") {
    a.verb = "patch";
  } else if (r.method == "DELETE") {
    a.verb = collection ? "deletecollection" : "delete";
  } else {
    a.verb = Lower(r.method);
  }
  return a;
}

// Attributes from a SubjectAccessReview-style spec.
Attributes ReviewAttributes(const Json& spec, const UserInfo& user) {
  Attributes a;
  a.user = user;
  const Json& res = Field(spec, "resourceAttributes");
  if (res.is_object()) {
    a.ns = Str(res, "namespace");
    a.verb = Str(res, "verb");
    a.api_group = Str(res, "group");
    a.api_version = Str(res, "version");
    a.resource = Str(res, "resource");
    a.subresource = Str(res, "subresource");
    a.name = Str(res, "name");
  } else {
    const Json& non = Field(spec, "nonResourceAttributes");
    a.resource_request = false;
    a.path = Str(non, "path");
    a.verb = Str(non, "verb");
  }
  return a;
}

Json ReviewShell(const Json& body, const std::string& group, const std::string& kind) {
  Json out = body.is_object() ? body : Json::object();
  out["apiVersion"] = group + "/v1";
  out["kind"] = kind;
  if (!out.contains("metadata") || !out["metadata"].is_object()) out["metadata"] = Json::object();
  out["metadata"]["creationTimestamp"] = nullptr;
  return out;
}

}  // namespace

StatusOr<std::unique_ptr<AuthLayer>> AuthLayer::Create(AuthLayerOptions options) {
  if (!options.objects) return InvalidArgumentError("auth layer: objects is required");
  std::unique_ptr<AuthLayer> layer(new AuthLayer(std::move(options)));
  std::string key_file;
  if (!layer->options_.data_dir.empty()) {
    key_file = (std::filesystem::path(layer->options_.data_dir) / "service-account.key").string();
  }
  TRIMTAB_ASSIGN_OR_RETURN(layer->tokens_, TokenIssuer::Create(key_file));
  Store* store = layer->options_.objects->store();
  std::atomic<uint64_t>* generation = &layer->rbac_generation_;
  TRIMTAB_ASSIGN_OR_RETURN(
      layer->watch_id_,
      store->Watch(kRbacPrefix, store->Revision(),
                   [generation](std::shared_ptr<const StoreEvent>) { generation->fetch_add(1); }));
  layer->watching_ = true;
  return layer;
}

AuthLayer::~AuthLayer() {
  if (watching_) options_.objects->store()->Unwatch(watch_id_);
}

Status AuthLayer::Bootstrap() {
  ResourceRegistry* registry = options_.objects->registry();
  for (Json& object : BootstrapRbacObjects()) {
    const std::string kind = Str(object, "kind");
    auto type = registry->FindByKind("rbac.authorization.k8s.io", "v1", kind);
    if (!type) return InternalError("auth: " + kind + " is not registered");
    const std::string name = MetaString(object, "name");
    auto created = options_.objects->Create(*type, "", std::move(object), WriteOptions{});
    if (!created.ok() && created.error().code != 409) {
      return InternalError("auth: creating " + kind + " " + name + ": " + created.error().message);
    }
  }
  return Status::Ok();
}

std::shared_ptr<const RbacPolicy> AuthLayer::Policy() {
  const uint64_t generation = rbac_generation_.load();
  std::lock_guard<std::mutex> lock(mu_);
  if (policy_ && policy_generation_ == generation) return policy_;
  auto policy = std::make_shared<RbacPolicy>();
  ResourceRegistry* registry = options_.objects->registry();
  for (const char* plural : {"clusterroles", "roles", "clusterrolebindings", "rolebindings"}) {
    auto type = registry->Find("rbac.authorization.k8s.io", "v1", plural);
    if (!type) continue;
    auto list = options_.objects->List(*type, "", ListOptions{});
    if (!list.ok()) {
      spdlog::warn("auth: listing {}: {}", plural, list.error().message);
      continue;
    }
    for (const Json& o : list->items) policy->Add(o);
  }
  policy_ = std::move(policy);
  policy_generation_ = generation;
  return policy_;
}

Decision AuthLayer::Check(const Attributes& attributes) {
  if (attributes.user.InGroup(kGroupMasters)) return Decision{.allowed = true};
  return Authorize(*Policy(), attributes);
}

std::optional<ApiError> AuthLayer::Authenticate(const HttpRequest& request, UserInfo* user) {
  // An X.509 client certificate first, as kube-apiserver's authenticators run: one the cluster
  // CA issued for client authentication is the user in its CommonName with its Organizations as
  // groups; one that does not verify fails the request, whatever else it carries.
  if (request.client_certificate) {
    const http::ClientCertificate& cert = *request.client_certificate;
    if (!cert.verified) {
      spdlog::debug("auth: a client certificate that does not verify (CN \"{}\")",
                    cert.common_name);
      return Unauthorized();
    }
    if (!cert.common_name.empty()) {
      user->name = cert.common_name;
      user->groups = cert.organizations;
      user->groups.push_back(std::string(kGroupAuthenticated));
      return std::nullopt;
    }
  }
  const std::string header = request.Header("Authorization");
  if (header.empty()) {
    if (options_.anonymous == AuthLayerOptions::Anonymous::kAdmin) {
      *user = AdminUser();
      return std::nullopt;
    }
    if (AnonymousPath(request)) {
      *user = AnonymousUser();
      return std::nullopt;
    }
    return Unauthorized();
  }
  constexpr std::string_view kBearer = "Bearer ";
  if (header.size() <= kBearer.size() || Lower(header.substr(0, kBearer.size())) != "bearer ") {
    return Unauthorized();
  }
  std::string token = header.substr(kBearer.size());
  while (!token.empty() && token.front() == ' ') token.erase(token.begin());
  if (!options_.admin_token.empty() && ConstantTimeEquals(token, options_.admin_token)) {
    *user = AdminUser();
    return std::nullopt;
  }
  auto claims = tokens_->Verify(token, options_.objects->clock()->Now());
  if (!claims.ok()) {
    spdlog::debug("auth: {}", claims.status().message());
    return Unauthorized();
  }
  ResourceRegistry* registry = options_.objects->registry();
  auto sa_type = registry->Find("", "v1", "serviceaccounts");
  if (!sa_type) return Unauthorized();
  auto sa = options_.objects->Get(*sa_type, claims->ns, claims->service_account);
  if (!sa.ok() || MetaString(*sa, "uid") != claims->service_account_uid) {
    spdlog::debug("auth: token of {}/{}: the service account is gone", claims->ns,
                  claims->service_account);
    return Unauthorized();
  }
  auto bound_alive = [&](const char* plural, const std::string& name, const std::string& uid) {
    if (name.empty()) return true;
    auto type = registry->Find("", "v1", plural);
    if (!type) return false;
    auto object = options_.objects->Get(*type, claims->ns, name);
    return object.ok() && MetaString(*object, "uid") == uid &&
           !(*object)["metadata"].contains("deletionTimestamp");
  };
  if (!bound_alive("pods", claims->pod_name, claims->pod_uid) ||
      !bound_alive("secrets", claims->secret_name, claims->secret_uid)) {
    return Unauthorized();
  }
  *user = ServiceAccountUser(claims->ns, claims->service_account, claims->service_account_uid);
  if (!claims->pod_name.empty()) {
    user->extra["authentication.kubernetes.io/pod-name"] = {claims->pod_name};
    user->extra["authentication.kubernetes.io/pod-uid"] = {claims->pod_uid};
  }
  user->extra["authentication.kubernetes.io/credential-id"] = {"JTI=" + claims->id};
  return std::nullopt;
}

std::optional<ApiError> AuthLayer::Impersonate(const HttpRequest& request, UserInfo* user) {
  const std::string name = request.Header("Impersonate-User");
  const std::string group = request.Header("Impersonate-Group");
  const std::string uid = request.Header("Impersonate-Uid");
  if (name.empty()) {
    if (!group.empty() || !uid.empty()) {
      return BadRequest("requested " + std::string(group.empty() ? "uid" : "group") +
                        " impersonation without user impersonation");
    }
    return std::nullopt;
  }
  // May the requester impersonate that user (and group and uid)?
  auto check = [&](Attributes a) -> std::optional<ApiError> {
    a.user = *user;
    a.verb = "impersonate";
    Decision d = Check(a);
    if (d.allowed) return std::nullopt;
    return ForbiddenError(a, d.reason);
  };
  UserInfo target;
  target.name = name;
  target.uid = uid;
  std::string sa_ns, sa_name;
  const bool service_account = SplitServiceAccountUser(name, &sa_ns, &sa_name);
  Attributes a;
  if (service_account) {
    a.resource = "serviceaccounts";
    a.ns = sa_ns;
    a.name = sa_name;
  } else {
    a.resource = "users";
    a.name = name;
  }
  if (auto denied = check(a)) return denied;
  if (!group.empty()) {
    Attributes g;
    g.resource = "groups";
    g.name = group;
    if (auto denied = check(g)) return denied;
    target.groups.push_back(group);
  } else if (service_account) {
    target.groups = {std::string(kGroupServiceAccounts),
                     std::string(kGroupServiceAccounts) + ":" + sa_ns};
  }
  if (!uid.empty()) {
    Attributes u;
    u.api_group = "authentication.k8s.io";
    u.resource = "uids";
    u.name = uid;
    if (auto denied = check(u)) return denied;
  }
  if (name != "system:anonymous" && !target.InGroup(kGroupAuthenticated)) {
    target.groups.push_back(std::string(kGroupAuthenticated));
  }
  *user = std::move(target);
  return std::nullopt;
}

HttpResponse AuthLayer::Serve(const HttpRequest& http, const http::HttpHandler& next) {
  Request request{http, {}, {}, std::nullopt};
  if (options_.check_host) {
    if (auto error = CheckHostAndOrigin(http, options_.host_names)) {
      spdlog::info("auth: refused {} {} from {}: {}", http.method, http.path, http.remote_address,
                   error->message);
      return ErrorResponse(*error);
    }
  }
  if (auto error = Authenticate(http, &request.user)) return ErrorResponse(*error);
  if (auto error = Impersonate(http, &request.user)) return ErrorResponse(*error);
  request.info = ParseResourcePath(http.path, *options_.objects->registry());
  request.attributes = AttributesOf(http, request.info, request.user);
  Decision decision = Check(request.attributes);
  if (!decision.allowed) {
    // What the kube-apiserver logs at -v=2 ("RBAC: no rules authorize user ..."), so a missing
    // verb shows up in trimtab local's log too.
    spdlog::info("auth: RBAC denied {} {} to {}", http.method, http.path, request.user.name);
    return ErrorResponse(ForbiddenError(request.attributes, decision.reason));
  }
  if (auto served = ServeApi(request)) return std::move(*served);
  return next(http);
}

std::optional<HttpResponse> AuthLayer::ServeApi(Request& request) {
  if (!request.info || request.http.method != "POST") return std::nullopt;
  const RequestInfo& info = *request.info;
  if (info.group == "authorization.k8s.io" && info.version == "v1" && info.name.empty()) {
    if (info.resource == "selfsubjectaccessreviews") {
      return AccessReview(request, "SelfSubjectAccessReview");
    }
    if (info.resource == "subjectaccessreviews") return AccessReview(request, "SubjectAccessReview");
    if (info.resource == "localsubjectaccessreviews" && !info.ns.empty()) {
      return AccessReview(request, "LocalSubjectAccessReview");
    }
    if (info.resource == "selfsubjectrulesreviews") return RulesReview(request);
  }
  if (info.group == "authentication.k8s.io" && info.version == "v1" && info.name.empty()) {
    if (info.resource == "tokenreviews") return TokenReview(request);
    if (info.resource == "selfsubjectreviews") return SelfSubjectReview(request);
  }
  if (info.group.empty() && info.resource == "serviceaccounts" && info.subresource == "token" &&
      !info.ns.empty() && !info.name.empty()) {
    return CreateToken(request);
  }
  return std::nullopt;
}

HttpResponse AuthLayer::AccessReview(Request& request, const std::string& kind) {
  auto body = DecodeBody(request.http);
  if (!body.ok()) return ErrorResponse(body.error());
  Json out = ReviewShell(*body, "authorization.k8s.io", kind);
  const Json spec = Field(out, "spec");
  const bool has_resource = Field(spec, "resourceAttributes").is_object();
  const bool has_non_resource = Field(spec, "nonResourceAttributes").is_object();
  ResourceType type;
  type.group = "authorization.k8s.io";
  type.kind = kind;
  if (has_resource == has_non_resource) {
    return ErrorResponse(Invalid(
        type, "",
        {Cause("FieldValueRequired", "spec.resourceAttributes",
               "Required value: exactly one of nonResourceAttributes or resourceAttributes must "
               "be specified")}));
  }
  UserInfo subject = request.user;
  if (kind != "SelfSubjectAccessReview") {
    subject = UserInfo{};
    subject.name = Str(spec, "user");
    subject.uid = Str(spec, "uid");
    const Json& groups = Field(spec, "groups");
    if (groups.is_array()) {
      for (const Json& g : groups) {
        if (g.is_string()) subject.groups.push_back(g.get<std::string>());
      }
    }
    if (subject.name.empty() && subject.groups.empty()) {
      return ErrorResponse(Invalid(type, "",
                                   {Cause("FieldValueRequired", "spec.user",
                                          "Required value: at least one of user or group must be "
                                          "specified")}));
    }
  }
  Attributes a = ReviewAttributes(spec, subject);
  if (kind == "LocalSubjectAccessReview") {
    if (a.ns.empty()) {
      a.ns = request.info->ns;
      out["spec"]["resourceAttributes"]["namespace"] = a.ns;
    } else if (a.ns != request.info->ns) {
      return ErrorResponse(BadRequest("spec.resourceAttributes.namespace must match namespace: " +
                                      request.info->ns));
    }
  }
  Decision d = Check(a);
  out["status"] = {{"allowed", d.allowed}};
  if (!d.reason.empty()) out["status"]["reason"] = d.reason;
  return JsonResponse(201, out);
}

HttpResponse AuthLayer::RulesReview(Request& request) {
  auto body = DecodeBody(request.http);
  if (!body.ok()) return ErrorResponse(body.error());
  Json out = ReviewShell(*body, "authorization.k8s.io", "SelfSubjectRulesReview");
  const std::string ns = Str(Field(out, "spec"), "namespace");
  if (ns.empty()) return ErrorResponse(BadRequest("no namespace on request"));
  Json resource_rules = Json::array();
  Json non_resource_rules = Json::array();
  Json status = {{"incomplete", false}};
  if (request.user.InGroup(kGroupMasters)) {
    resource_rules.push_back({{"verbs", {"*"}}, {"apiGroups", {"*"}}, {"resources", {"*"}}});
    non_resource_rules.push_back({{"verbs", {"*"}}, {"nonResourceURLs", {"*"}}});
  } else {
    RulesResult rules = RulesFor(*Policy(), request.user, ns);
    for (const PolicyRule& r : rules.rules) {
      if (!r.non_resource_urls.empty()) {
        non_resource_rules.push_back({{"verbs", r.verbs}, {"nonResourceURLs", r.non_resource_urls}});
        continue;
      }
      Json rule = {{"verbs", r.verbs}, {"apiGroups", r.api_groups}, {"resources", r.resources}};
      if (!r.resource_names.empty()) rule["resourceNames"] = r.resource_names;
      resource_rules.push_back(std::move(rule));
    }
    if (!rules.errors.empty()) {
      std::string joined;
      for (size_t i = 0; i < rules.errors.size(); ++i) joined += (i ? ", " : "") + rules.errors[i];
      status["evaluationError"] = rules.errors.size() == 1 ? joined : "[" + joined + "]";
    }
  }
  status["resourceRules"] = std::move(resource_rules);
  status["nonResourceRules"] = std::move(non_resource_rules);
  out["status"] = std::move(status);
  return JsonResponse(201, out);
}

HttpResponse AuthLayer::TokenReview(Request& request) {
  auto body = DecodeBody(request.http);
  if (!body.ok()) return ErrorResponse(body.error());
  Json out = ReviewShell(*body, "authentication.k8s.io", "TokenReview");
  const std::string token = Str(Field(out, "spec"), "token");
  HttpRequest probe;
  probe.headers["Authorization"] = "Bearer " + token;
  UserInfo user;
  if (token.empty() || Authenticate(probe, &user)) {
    out["status"] = {{"user", Json::object()}, {"error", "invalid bearer token"}};
  } else {
    out["status"] = {{"authenticated", true},
                     {"user", UserInfoJson(user)},
                     {"audiences", Json::array({std::string(kTokenIssuer)})}};
  }
  return JsonResponse(201, out);
}

HttpResponse AuthLayer::SelfSubjectReview(Request& request) {
  auto body = DecodeBody(request.http);
  Json out = ReviewShell(body.ok() ? *body : Json::object(), "authentication.k8s.io",
                         "SelfSubjectReview");
  out["status"] = {{"userInfo", UserInfoJson(request.user)}};
  return JsonResponse(201, out);
}

HttpResponse AuthLayer::CreateToken(Request& request) {
  const RequestInfo& info = *request.info;
  ResourceRegistry* registry = options_.objects->registry();
  auto sa_type = registry->Find("", "v1", "serviceaccounts");
  if (!sa_type) return ErrorResponse(InternalServerError("serviceaccounts are not registered"));
  auto sa = options_.objects->Get(*sa_type, info.ns, info.name);
  if (!sa.ok()) return ErrorResponse(sa.error());
  auto body = DecodeBody(request.http);
  if (!body.ok()) return ErrorResponse(body.error());
  Json out = ReviewShell(*body, "authentication.k8s.io", "TokenRequest");
  out["metadata"]["name"] = info.name;
  out["metadata"]["namespace"] = info.ns;
  Json& spec = out["spec"];
  if (!spec.is_object()) spec = Json::object();
  ResourceType type;
  type.group = "authentication.k8s.io";
  type.kind = "TokenRequest";
  int64_t seconds = 3600;
  if (spec.contains("expirationSeconds") && spec["expirationSeconds"].is_number_integer()) {
    seconds = spec["expirationSeconds"].get<int64_t>();
  }
  if (seconds < 600) {
    return ErrorResponse(Invalid(type, info.name,
                                 {Cause("FieldValueInvalid", "spec.expirationSeconds",
                                        "Invalid value: " + std::to_string(seconds) +
                                            ": may not specify a duration less than 10 minutes")}));
  }
  if (seconds > (int64_t{1} << 32)) {
    return ErrorResponse(Invalid(type, info.name,
                                 {Cause("FieldValueInvalid", "spec.expirationSeconds",
                                        "Invalid value: " + std::to_string(seconds) +
                                            ": may not specify a duration larger than 2^32 "
                                            "seconds")}));
  }
  spec["expirationSeconds"] = seconds;
  TokenClaims claims;
  claims.ns = info.ns;
  claims.service_account = info.name;
  claims.service_account_uid = MetaString(*sa, "uid");
  if (spec.contains("audiences") && spec["audiences"].is_array()) {
    for (const Json& a : spec["audiences"]) {
      if (a.is_string()) claims.audiences.push_back(a.get<std::string>());
    }
  }
  if (claims.audiences.empty()) {
    claims.audiences = {std::string(kTokenIssuer)};
    spec["audiences"] = claims.audiences;
  }
  const Json& ref = Field(spec, "boundObjectRef");
  if (ref.is_object()) {
    const std::string kind = Str(ref, "kind");
    const char* plural = kind == "Pod" ? "pods" : kind == "Secret" ? "secrets" : nullptr;
    if (!plural || Str(ref, "apiVersion") != "v1") {
      return ErrorResponse(BadRequest("cannot bind token for object of type " + kind));
    }
    auto bound_type = registry->Find("", "v1", plural);
    auto bound = options_.objects->Get(*bound_type, info.ns, Str(ref, "name"));
    if (!bound.ok()) return ErrorResponse(bound.error());
    const std::string uid = MetaString(*bound, "uid");
    if (!Str(ref, "uid").empty() && Str(ref, "uid") != uid) {
      return ErrorResponse(Conflict(
          *bound_type, Str(ref, "name"),
          "the UID in the bound object reference (" + Str(ref, "uid") +
              ") does not match the UID in record. The object might have been deleted and then "
              "recreated"));
    }
    (kind == "Pod" ? claims.pod_name : claims.secret_name) = Str(ref, "name");
    (kind == "Pod" ? claims.pod_uid : claims.secret_uid) = uid;
  }
  const TimePoint now = options_.objects->clock()->Now();
  claims.issued_at = ToUnixMillis(now) / 1000;
  claims.expires_at = claims.issued_at + seconds;
  if (seconds == kKubeletTokenSeconds && !claims.pod_name.empty()) {
    claims.warn_after = claims.expires_at;
    claims.expires_at = claims.issued_at + kExtendedTokenSeconds;
  }
  out["status"] = {{"token", tokens_->Issue(claims)},
                   {"expirationTimestamp",
                    FormatRfc3339(FromUnixMillis((claims.issued_at + seconds) * 1000))}};
  return JsonResponse(201, out);
}

}  // namespace trimtab::cluster::auth
