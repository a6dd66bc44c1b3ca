// Issue 27 over HTTP: bad requests get 4xx answers with upstream's messages and never take the
// API server down (bodies nested too deep through every write path, numbers out of range,
// invalid UTF-8, kind and version mismatches, duplicate keys, oversized results), and the
// built-in kinds are validated as Kubernetes validates them (a table of upstream messages).
#include <chrono>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "cluster/apiserver/apiserver_test_util.h"

namespace trimtab::cluster::testing {
namespace {

constexpr char kConfigMaps[] = "/api/v1/namespaces/default/configmaps";
constexpr char kSecrets[] = "/api/v1/namespaces/default/secrets";
constexpr char kDeployments[] = "/apis/apps/v1/namespaces/default/deployments";

std::string Nested(int depth) {
  return std::string(static_cast<size_t>(depth), '[') + std::string(static_cast<size_t>(depth), ']');
}

std::string ConfigMapWithDeepField(const std::string& name, int depth) {
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
         R"("},"data":{"k":"v"},"x":)" + Nested(depth) + "}";
}

Json Container(const std::string& name = "c") { return {{"name", name}, {"image", "nginx:1.27"}}; }

Json Deployment(Json selector_labels, Json template_labels, Json containers = Json::array({Container()})) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", "web"}}},
          {"spec",
           {{"replicas", 1},
            {"selector", {{"matchLabels", selector_labels}}},
            {"template", {{"metadata", {{"labels", template_labels}}}, {"spec", {{"containers", containers}}}}}}}};
}

class HardeningTest : public ApiServerTest {
 protected:
  void ExpectAlive() {
    Reply r = Get(kConfigMaps);
    EXPECT_EQ(r.status, 200) << r.raw.substr(0, 300);
  }
};

TEST_F(HardeningTest, Issue27DeepBodiesAre400OnEveryWritePath) {
  const std::string deep = ConfigMapWithDeepField("d", 70000);
  ASSERT_EQ(Post(kConfigMaps, ConfigMap("d")).status, 201);
  const std::string one = std::string(kConfigMaps) + "/d";
  std::vector<Reply> replies = {
      Post(kConfigMaps, deep),
      Put(one, deep),
      Patch(one, R"({"x":)" + Nested(70000) + "}", "application/merge-patch+json"),
      Patch(one, R"({"x":)" + Nested(70000) + "}", "application/strategic-merge-patch+json"),
      Patch(one, R"([{"op":"add","path":"/x","value":)" + Nested(70000) + "}]",
            "application/json-patch+json"),
      Call("PATCH", one + "?fieldManager=t", "x: " + Nested(70000), "application/apply-patch+yaml"),
      Call("POST", kConfigMaps, "x: " + Nested(70000), "application/yaml"),
  };
  for (size_t i = 0; i < replies.size(); ++i) {
    EXPECT_EQ(replies[i].status, 400) << i << ": " << replies[i].raw.substr(0, 300);
  }
  EXPECT_NE(replies[0].body.value("message", "").find("nesting depth exceeds the limit of 10000"),
            std::string::npos)
      << replies[0].raw.substr(0, 300);
  ExpectAlive();
}

// A document just under the limit goes through create, read, list, patch and delete: everything
// recursive on the way copes with the depth decoders allow.
TEST_F(HardeningTest, Issue27DocumentNearTheLimitIsServed) {
  Reply created = Post(kConfigMaps, ConfigMapWithDeepField("near", 9990));
  ASSERT_EQ(created.status, 201) << created.raw.substr(0, 300);
  EXPECT_EQ(Get(std::string(kConfigMaps) + "/near").status, 200);
  EXPECT_EQ(Get(kConfigMaps).status, 200);
  EXPECT_EQ(Patch(std::string(kConfigMaps) + "/near", R"({"data":{"k":"w"}})",
                  "application/merge-patch+json").status,
            200);
  EXPECT_EQ(Delete(std::string(kConfigMaps) + "/near").status, 200);
  ExpectAlive();
}

// The watch fan-out encodes stored objects on its own thread: a document just under the limit
// (stored in a custom resource that keeps unknown fields; built-in kinds prune them) reaches a
// watcher. It overflowed that thread's default stack under ASan.
TEST_F(HardeningTest, Issue27DocumentNearTheLimitReachesAWatch) {
  Reply crd = Post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                   Json::parse(R"({"apiVersion":"apiextensions.k8s.io/v1",
    "kind":"CustomResourceDefinition","metadata":{"name":"blobs.example.com"},
    "spec":{"group":"example.com","scope":"Namespaced",
      "names":{"plural":"blobs","singular":"blob","kind":"Blob"},
      "versions":[{"name":"v1","served":true,"storage":true,
        "schema":{"openAPIV3Schema":{"type":"object","properties":{
          "spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}]}})"));
  ASSERT_EQ(crd.status, 201) << crd.raw.substr(0, 300);
  const std::string blobs = "/apis/example.com/v1/namespaces/default/blobs";
  http::TestHttpStream watch(server_->url() + blobs + "?watch=true");
  Reply created = Call("POST", blobs,
                       R"({"apiVersion":"example.com/v1","kind":"Blob","metadata":{"name":"deep"},)"
                       R"("spec":{"x":)" + Nested(9990) + "}}",
                       "application/json");
  ASSERT_EQ(created.status, 201) << created.raw.substr(0, 300);
  auto event = watch.NextLine(std::chrono::milliseconds(20000));
  ASSERT_TRUE(event);
  EXPECT_NE(event->find(R"("type":"ADDED")"), std::string::npos) << event->substr(0, 300);
  EXPECT_NE(event->find(R"("name":"deep")"), std::string::npos) << event->substr(0, 300);
  EXPECT_NE(event->find(std::string(9990, '[')), std::string::npos) << event->size();
  ExpectAlive();
}

TEST_F(HardeningTest, Issue27UndecodableBodiesAre400Not500) {
  for (const std::string& body :
       {std::string(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"n"},"x":1e400})"),
        std::string("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"\xff\xfe\"}}"),
        std::string("{\"metadata\":"), std::string("[1,2]"), std::string("\"text\"")}) {
    Reply r = Post(kConfigMaps, body);
    EXPECT_EQ(r.status, 400) << body << " -> " << r.raw.substr(0, 300);
  }
  Reply yaml = Call("POST", kConfigMaps, "metadata:\n  name: \"\xc3\x28\"\n", "application/yaml");
  EXPECT_EQ(yaml.status, 400) << yaml.raw;
  ExpectAlive();
}

TEST_F(HardeningTest, Issue27KindAndVersionMustMatchThePath) {
  Json secret = {{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"name", "s"}}}};
  Reply r = Post(kConfigMaps, secret);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body.value("message", ""),
            "Secret in version \"v1\" cannot be handled as a ConfigMap: the kind in the body does "
            "not match the resource configmaps in the URL");
  Json cm = ConfigMap("c");
  cm["apiVersion"] = "apps/v1";
  r = Post(kConfigMaps, cm);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body.value("message", ""),
            "the API version in the data (apps/v1) does not match the expected API version (v1)");
  EXPECT_EQ(Get(std::string(kConfigMaps) + "/s").status, 404);
}

TEST_F(HardeningTest, Issue27DuplicateKeysFollowFieldValidation) {
  const std::string body =
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","name":"dup"},"data":{"k":"1","k":"2"}})";
  Reply strict = Call("POST", std::string(kConfigMaps) + "?fieldValidation=Strict", body);
  EXPECT_EQ(strict.status, 400);
  EXPECT_EQ(strict.body.value("message", ""),
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: "
            "duplicate field \"metadata.name\", duplicate field \"data.k\"");
  Reply warn = Post(kConfigMaps, body);
  ASSERT_EQ(warn.status, 201) << warn.raw;
  EXPECT_EQ(warn.body["metadata"]["name"], "dup");  // the last one wins
  EXPECT_EQ(warn.body["data"]["k"], "2");
  EXPECT_NE(warn.headers["Warning"].find("duplicate field"), std::string::npos);
}

TEST_F(HardeningTest, Issue27SecretStringDataIsMergedIntoData) {
  Json secret = {{"apiVersion", "v1"},
                 {"kind", "Secret"},
                 {"metadata", {{"name", "s"}}},
                 {"data", {{"a", "eA=="}, {"b", "eQ=="}}},
                 {"stringData", {{"b", "hello"}, {"c", "ab"}}}};
  Reply r = Post(kSecrets, secret);
  ASSERT_EQ(r.status, 201) << r.raw;
  EXPECT_EQ(r.body["data"], (Json{{"a", "eA=="}, {"b", "aGVsbG8="}, {"c", "YWI="}}));
  EXPECT_FALSE(r.body.contains("stringData"));
  EXPECT_FALSE(Get(std::string(kSecrets) + "/s").body.contains("stringData"));
  secret["metadata"]["name"] = "bad";
  secret["data"] = {{"a", "not base64!"}};
  r = Post(kSecrets, secret);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body.value("message", ""),
            "Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data at input byte 3");
}

TEST_F(HardeningTest, Issue27PatchesCannotGrowObjectsWithoutBound) {
  ASSERT_EQ(Post(kConfigMaps, ConfigMap("p", Json::object(), {{"k", std::string(1000, 'x')}})).status, 201);
  const std::string one = std::string(kConfigMaps) + "/p";
  Json ops = Json::array();
  for (int i = 0; i < 10001; ++i) ops.push_back({{"op", "test"}, {"path", "/data/k"}, {"value", "x"}});
  Reply many = Patch(one, ops, "application/json-patch+json");
  EXPECT_EQ(many.status, 413) << many.raw.substr(0, 200);
  EXPECT_EQ(many.body.value("message", ""),
            "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001");
  // A 1.1 KB patch of copies once stored a 120 MB object.
  Json copies = Json::array({{{"op", "add"}, {"path", "/metadata/annotations"}, {"value", {{"a", std::string(1000, 'y')}}}}});
  copies.push_back({{"op", "add"}, {"path", "/x"}, {"value", Json::array({"z"})}});
  for (int i = 0; i < 30; ++i) copies.push_back({{"op", "copy"}, {"from", "/x"}, {"path", "/x/-"}});
  Reply amplified = Patch(one, copies, "application/json-patch+json");
  EXPECT_EQ(amplified.status, 422) << amplified.raw.substr(0, 300);
  // A merge patch that makes the object larger than the store keeps.
  Reply big = Patch(one, Json{{"data", {{"big", std::string(1600 * 1024, 'b')}}}}, "application/merge-patch+json");
  EXPECT_EQ(big.status, 413) << big.raw.substr(0, 300);
  EXPECT_EQ(Get(one).body["data"].size(), 1u);
  ExpectAlive();
}

struct Case {
  const char* name;
  std::string path;
  Json body;
  std::string field;
  std::string message;
};

// The real API server's field paths and messages (k8s.io/apimachinery/pkg/util/validation and
// pkg/apis/{core,apps}/validation).
TEST_F(HardeningTest, Issue27BuiltinKindsAreValidatedAsKubernetesDoes) {
  Json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "p"}}},
              {"spec", {{"containers", Json::array({Container()})}}}};
  auto with = [](Json base, const std::function<void(Json&)>& edit) {
    edit(base);
    return base;
  };
  std::vector<Case> cases = {
      {"selector does not match template", kDeployments, Deployment({{"app", "a"}}, {{"app", "b"}}),
       "spec.template.metadata.labels",
       "Invalid value: map[string]string{\"app\":\"b\"}: `selector` does not match template `labels`"},
      {"negative replicas", kDeployments,
       with(Deployment({{"app", "a"}}, {{"app", "a"}}), [](Json& d) { d["spec"]["replicas"] = -1; }),
       "spec.replicas", "Invalid value: -1: must be greater than or equal to 0"},
      {"replicas beyond int32", kDeployments,
       with(Deployment({{"app", "a"}}, {{"app", "a"}}), [](Json& d) { d["spec"]["replicas"] = 1099511627776LL; }),
       "spec.replicas", "Invalid value: 1099511627776: must be no more than 2147483647 and no less than -2147483648 (int32)"},
      {"empty selector", kDeployments, Deployment(Json::object(), {{"app", "a"}}), "spec.selector",
       "Invalid value: &LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]"
       "LabelSelectorRequirement{},}: empty selector is invalid for deployment"},
      {"duplicate container names", kDeployments,
       Deployment({{"app", "a"}}, {{"app", "a"}}, Json::array({Container("c"), Container("c")})),
       "spec.template.spec.containers[1].name", "Duplicate value: \"c\""},
      {"container name not a DNS label", "/api/v1/namespaces/default/pods",
       with(pod, [](Json& p) { p["spec"]["containers"][0]["name"] = "Bad_Name"; }),
       "spec.containers[0].name",
       "Invalid value: \"Bad_Name\": a lowercase RFC 1123 label must consist of lower case "
       "alphanumeric characters or '-', and must start and end with an alphanumeric character "
       "(e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"},
      {"containerPort 70000", "/api/v1/namespaces/default/pods",
       with(pod, [](Json& p) { p["spec"]["containers"][0]["ports"] = Json::array({{{"containerPort", 70000}}}); }),
       "spec.containers[0].ports[0].containerPort", "Invalid value: 70000: must be between 1 and 65535, inclusive"},
      {"cpu abc", "/api/v1/namespaces/default/pods",
       with(pod, [](Json& p) { p["spec"]["containers"][0]["resources"] = {{"requests", {{"cpu", "abc"}}}}; }),
       "spec.containers[0].resources.requests[cpu]",
       "Invalid value: \"abc\": quantities must match the regular expression "
       "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
      {"no image", "/api/v1/namespaces/default/pods",
       with(pod, [](Json& p) { p["spec"]["containers"][0].erase("image"); }),
       "spec.containers[0].image", "Required value"},
      {"service port 0", "/api/v1/namespaces/default/services",
       {{"apiVersion", "v1"}, {"kind", "Service"}, {"metadata", {{"name", "s"}}},
        {"spec", {{"ports", Json::array({{{"port", 0}}})}}}},
       "spec.ports[0].port", "Invalid value: 0: must be between 1 and 65535, inclusive"},
      {"bad label value", kConfigMaps, ConfigMap("l", {{"app", "-bad"}}), "metadata.labels",
       "Invalid value: \"-bad\": a valid label must be an empty string or consist of alphanumeric "
       "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
       "'MyValue',  or 'my_value',  or '12345', regex used for validation is "
       "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"},
      {"bad configmap key", kConfigMaps, ConfigMap("k", Json::object(), {{"a/b", "v"}}), "data[a/b]",
       "Invalid value: \"a/b\": a valid config key must consist of alphanumeric characters, '-', "
       "'_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
       "'[-._a-zA-Z0-9]+')"},
      {"finalizer not qualified", kConfigMaps,
       with(ConfigMap("f"), [](Json& c) { c["metadata"]["finalizers"] = Json::array({"my-finalizer"}); }),
       "metadata.finalizers",
       "Invalid value: \"my-finalizer\": name is neither a standard finalizer name nor is it fully qualified"},
  };
  for (const Case& c : cases) {
    Reply r = Post(c.path, c.body);
    EXPECT_EQ(r.status, 422) << c.name << ": " << r.raw.substr(0, 400);
    bool found = false;
    for (const Json& cause : r.body["details"].value("causes", Json::array())) {
      if (cause.value("field", "") == c.field && cause.value("message", "") == c.message) found = true;
    }
    EXPECT_TRUE(found) << c.name << ": want " << c.field << ": " << c.message << "\n got "
                       << r.body["details"].value("causes", Json::array()).dump();
  }
  // The valid forms are accepted.
  EXPECT_EQ(Post(kDeployments, Deployment({{"app", "a"}}, {{"app", "a"}, {"tier", "x"}})).status, 201);
  EXPECT_EQ(Post("/api/v1/namespaces/default/pods", pod).status, 201);
}

}  // namespace
}  // namespace trimtab::cluster::testing
