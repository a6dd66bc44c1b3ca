// Integration tests of the local API server over HTTP: CRUD, errors, lists, watches, restart.
#include "cluster/apiserver/apiserver.h"

#include <atomic>
#include <map>
#include <string_view>
#include <thread>

#include "cluster/apiserver/apiserver_test_util.h"
#include "cluster/apiserver/handlers/protobuf_decode.h"
#include "cluster/apiserver/storage/watch.h"

namespace trimtab::cluster::testing {
namespace {

using std::chrono::milliseconds;

constexpr char kCms[] = "/api/v1/namespaces/default/configmaps";

TEST_F(ApiServerTest, ServesVersionHealthAndDiscovery) {
  Reply v = Get("/version?timeout=5s");
  EXPECT_EQ(v.status, 200);
  EXPECT_EQ(v.body["major"], "1");
  EXPECT_EQ(v.body["minor"], "32");
  EXPECT_EQ(v.body["gitVersion"], "v1.32.0");
  EXPECT_EQ(Get("/version/").status, 200);
  for (const char* p : {"/healthz", "/readyz", "/livez", "/readyz/ping"}) {
    Reply h = Get(p);
    EXPECT_EQ(h.status, 200) << p;
    EXPECT_EQ(h.raw, "ok");
  }
  Reply api = Get("/api");
  EXPECT_EQ(api.status, 200);
  Reply v1 = Get("/api/v1");
  EXPECT_EQ(v1.status, 200);
  EXPECT_EQ(v1.body["kind"], "APIResourceList");
  EXPECT_EQ(Get("/openapi/v3").status, 200);
  Reply v2 = Get("/openapi/v2");  // JSON unless protobuf is asked for (OpenApiV2Test)
  EXPECT_EQ(v2.status, 200);
  EXPECT_EQ(v2.body["swagger"], "2.0");
  Reply unknown = Get("/api/v1/nosuchthings");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.body["kind"], "Status");
  EXPECT_EQ(unknown.body["reason"], "NotFound");
}

// Fields of a protobuf message by number (the length-delimited ones this document uses).
std::multimap<uint32_t, std::string_view> ProtoFieldsOf(std::string_view bytes) {
  std::multimap<uint32_t, std::string_view> out;
  ProtoReader r(bytes);
  while (!r.done()) {
    auto f = r.Next();
    EXPECT_TRUE(f.ok()) << f.status().ToString();
    if (!f.ok()) break;
    EXPECT_EQ(f->type, WireType::kLengthDelimited) << "field " << f->number;
    out.emplace(f->number, f->bytes);
  }
  return out;
}

TEST_F(ApiServerTest, ServesOpenApiV2AsKubectlAsksForIt) {
  Reply r = Call("GET", "/openapi/v2", nullptr, "application/json",
                 {"Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf"});
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["Content-Type"], "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
  // openapi.v2.Document: swagger (1), info (2: title 1, version 2), paths (8), definitions (9).
  auto doc = ProtoFieldsOf(r.raw);
  ASSERT_EQ(doc.count(1), 1u);
  EXPECT_EQ(doc.find(1)->second, "2.0");
  ASSERT_EQ(doc.count(2), 1u);
  auto info = ProtoFieldsOf(doc.find(2)->second);
  EXPECT_EQ(info.find(1)->second, "Kubernetes (trimtab local)");
  EXPECT_EQ(info.find(2)->second, "v1.32.0");
  ASSERT_EQ(doc.count(8), 1u);
  EXPECT_TRUE(doc.find(8)->second.empty());  // no paths
  ASSERT_EQ(doc.count(9), 1u);
  EXPECT_TRUE(doc.find(9)->second.empty());  // no definitions: kubectl skips client validation
}

TEST_F(ApiServerTest, DefaultNamespacesExist) {
  Reply list = Get("/api/v1/namespaces");
  ASSERT_EQ(list.status, 200);
  EXPECT_EQ(list.body["kind"], "NamespaceList");
  std::set<std::string> names;
  for (const auto& ns : list.body["items"]) {
    names.insert(ns["metadata"]["name"]);
    EXPECT_EQ(ns["status"]["phase"], "Active");
    EXPECT_EQ(ns["spec"]["finalizers"], Json::array({"kubernetes"}));
    EXPECT_EQ(ns["metadata"]["labels"]["kubernetes.io/metadata.name"], ns["metadata"]["name"]);
  }
  EXPECT_EQ(names, (std::set<std::string>{"default", "kube-system", "kube-public",
                                          "kube-node-lease"}));
}

TEST_F(ApiServerTest, CreateGetUpdateDeleteWithKubernetesErrors) {
  Reply created = Post(kCms, ConfigMap("cm1"));
  ASSERT_EQ(created.status, 201) << created.raw;
  const Json& meta = created.body["metadata"];
  EXPECT_EQ(created.body["kind"], "ConfigMap");
  EXPECT_EQ(created.body["apiVersion"], "v1");
  EXPECT_EQ(meta["namespace"], "default");
  EXPECT_EQ(meta["uid"].get<std::string>().size(), 36u);
  EXPECT_FALSE(meta.contains("generation"));
  EXPECT_TRUE(ParseRfc3339(meta["creationTimestamp"].get<std::string>()).ok());
  std::string rv = meta["resourceVersion"];
  EXPECT_EQ(rv, std::to_string(server_->store()->Revision()));

  Reply got = Get(std::string(kCms) + "/cm1");
  EXPECT_EQ(got.status, 200);
  EXPECT_EQ(got.body, created.body);

  Reply dup = Post(kCms, ConfigMap("cm1"));
  EXPECT_EQ(dup.status, 409);
  EXPECT_EQ(dup.body["reason"], "AlreadyExists");
  EXPECT_EQ(dup.body["message"], "configmaps \"cm1\" already exists");
  EXPECT_EQ(dup.body["details"], (Json{{"name", "cm1"}, {"kind", "configmaps"}}));
  EXPECT_EQ(dup.body["code"], 409);
  EXPECT_EQ(dup.body["status"], "Failure");

  Reply missing = Get(std::string(kCms) + "/nope");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body["message"], "configmaps \"nope\" not found");

  Json update = got.body;
  update["data"]["k"] = "v2";
  Reply updated = Put(std::string(kCms) + "/cm1", update);
  ASSERT_EQ(updated.status, 200) << updated.raw;
  EXPECT_EQ(updated.body["data"]["k"], "v2");
  EXPECT_NE(updated.body["metadata"]["resourceVersion"], rv);
  EXPECT_EQ(updated.body["metadata"]["uid"], meta["uid"]);

  // The same body again carries the old resourceVersion: a conflict.
  Reply stale = Put(std::string(kCms) + "/cm1", update);
  EXPECT_EQ(stale.status, 409);
  EXPECT_EQ(stale.body["reason"], "Conflict");
  EXPECT_EQ(stale.body["message"],
            "Operation cannot be fulfilled on configmaps \"cm1\": the object has been modified; "
            "please apply your changes to the latest version and try again");
  // With strict field validation an unknown field is reported first, as kube-apiserver decodes
  // the body before its storage compares resourceVersions; without it, the conflict.
  Json unknown_field = update;
  unknown_field["colour"] = "blue";
  Reply strict = Put(std::string(kCms) + "/cm1?fieldValidation=Strict", unknown_field);
  EXPECT_EQ(strict.status, 400) << strict.raw;
  EXPECT_EQ(strict.body["message"],
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: "
            "unknown field \"colour\"");
  EXPECT_EQ(Put(std::string(kCms) + "/cm1?fieldValidation=Warn", unknown_field).status, 409);

  // A no-op update writes nothing.
  Reply noop = Put(std::string(kCms) + "/cm1", updated.body);
  EXPECT_EQ(noop.status, 200);
  EXPECT_EQ(noop.body["metadata"]["resourceVersion"], updated.body["metadata"]["resourceVersion"]);

  // Without a resourceVersion the update is unconditional.
  Json unconditional = updated.body;
  unconditional["metadata"].erase("resourceVersion");
  unconditional["data"]["k"] = "v3";
  EXPECT_EQ(Put(std::string(kCms) + "/cm1", unconditional).status, 200);

  Json renamed = unconditional;
  renamed["metadata"]["name"] = "other";
  Reply mismatch = Put(std::string(kCms) + "/cm1", renamed);
  EXPECT_EQ(mismatch.status, 400);
  EXPECT_EQ(mismatch.body["reason"], "BadRequest");

  Reply deleted = Delete(std::string(kCms) + "/cm1", Json{{"propagationPolicy", "Background"}});
  EXPECT_EQ(deleted.status, 200);
  EXPECT_EQ(deleted.body["kind"], "Status");
  EXPECT_EQ(deleted.body["status"], "Success");
  EXPECT_EQ(deleted.body["details"]["uid"], meta["uid"]);
  EXPECT_EQ(Get(std::string(kCms) + "/cm1").status, 404);
  EXPECT_EQ(Delete(std::string(kCms) + "/cm1").status, 404);
}

TEST_F(ApiServerTest, RejectsBadRequests) {
  Reply no_ns = Post("/api/v1/namespaces/nope/configmaps", ConfigMap("x"));
  EXPECT_EQ(no_ns.status, 404);
  EXPECT_EQ(no_ns.body["message"], "namespaces \"nope\" not found");

  Reply proto = Call("POST", kCms, Json("k8s\x00garbage"), "application/vnd.kubernetes.protobuf");
  EXPECT_EQ(proto.status, 415);
  EXPECT_EQ(proto.body["reason"], "UnsupportedMediaType");

  Reply bad_json = Call("POST", kCms, Json("{not json"), "application/json");
  EXPECT_EQ(bad_json.status, 400);

  Json unnamed = ConfigMap("");
  Reply invalid = Post(kCms, unnamed);
  EXPECT_EQ(invalid.status, 422);
  EXPECT_EQ(invalid.body["reason"], "Invalid");
  EXPECT_EQ(invalid.body["details"]["kind"], "ConfigMap");
  EXPECT_EQ(invalid.body["details"]["causes"][0]["field"], "metadata.name");

  Reply bad_name = Post(kCms, ConfigMap("Bad_Name"));
  EXPECT_EQ(bad_name.status, 422);

  Json other_ns = ConfigMap("x");
  other_ns["metadata"]["namespace"] = "kube-system";
  EXPECT_EQ(Post(kCms, other_ns).status, 400);

  EXPECT_EQ(Call("POST", std::string(kCms) + "/x", ConfigMap("x")).status, 405);
  EXPECT_EQ(Patch(std::string(kCms) + "/x", Json::object(), "text/plain").status, 415);

  Reply field = Get(std::string(kCms) + "?fieldSelector=spec.nodeName%3Dx");
  EXPECT_EQ(field.status, 400);
  EXPECT_EQ(field.body["message"], "field label not supported: spec.nodeName");
}

TEST_F(ApiServerTest, GenerateNameAndDryRun) {
  Json cm = ConfigMap("");
  cm["metadata"].erase("name");
  cm["metadata"]["generateName"] = "gen-";
  Reply created = Post(kCms, cm);
  ASSERT_EQ(created.status, 201);
  std::string name = created.body["metadata"]["name"];
  EXPECT_EQ(name.size(), 9u);
  EXPECT_EQ(name.rfind("gen-", 0), 0u);

  int64_t before = server_->store()->Revision();
  Reply dry = Post(std::string(kCms) + "?dryRun=All", ConfigMap("dry"));
  EXPECT_EQ(dry.status, 201);
  EXPECT_EQ(Get(std::string(kCms) + "/dry").status, 404);
  EXPECT_EQ(server_->store()->Revision(), before);
}

TEST_F(ApiServerTest, ListsWithSelectorsAndPages) {
  for (int i = 0; i < 5; ++i) {
    Json labels = {{"app", i % 2 ? "web" : "db"}, {"idx", std::to_string(i)}};
    ASSERT_EQ(Post(kCms, ConfigMap("cm" + std::to_string(i), labels)).status, 201);
  }
  Reply web = Get(std::string(kCms) + "?labelSelector=app%3Dweb");
  ASSERT_EQ(web.status, 200);
  ASSERT_EQ(web.body["items"].size(), 2u);
  EXPECT_EQ(web.body["items"][0]["metadata"]["name"], "cm1");
  Reply set = Get(std::string(kCms) + "?labelSelector=idx+in+(0,4),app!=web");
  EXPECT_EQ(set.body["items"].size(), 2u);
  // The list skips objects whose stored text lacks a required "key":"value"; text that has it
  // outside the labels is still matched on the decoded labels, and prefixed keys work.
  Json decoy = ConfigMap("decoy", {{"app", "db"}, {"example.com/tier", "front"}});
  decoy["data"] = {{"note", "\"app\":\"web\""}, {"app", "web"}};
  ASSERT_EQ(Post(kCms, decoy).status, 201);
  EXPECT_EQ(Get(std::string(kCms) + "?labelSelector=app%3Dweb").body["items"].size(), 2u);
  Reply tier = Get(std::string(kCms) + "?labelSelector=example.com%2Ftier%3Dfront,app%3D%3Ddb");
  ASSERT_EQ(tier.body["items"].size(), 1u);
  EXPECT_EQ(tier.body["items"][0]["metadata"]["name"], "decoy");
  ASSERT_EQ(Delete(std::string(kCms) + "/decoy").status, 200);
  Reply by_name = Get(std::string(kCms) + "?fieldSelector=metadata.name%3Dcm3");
  ASSERT_EQ(by_name.body["items"].size(), 1u);
  EXPECT_EQ(by_name.body["items"][0]["metadata"]["name"], "cm3");
  EXPECT_EQ(Get("/api/v1/configmaps?fieldSelector=metadata.namespace%3Ddefault")
                .body["items"].size(), 5u);

  // Pages of 2 at one consistent revision, even with writes in between.
  Reply page1 = Get(std::string(kCms) + "?limit=2");
  ASSERT_EQ(page1.body["items"].size(), 2u);
  EXPECT_EQ(page1.body["metadata"]["remainingItemCount"], 3);
  std::string token = page1.body["metadata"]["continue"];
  ASSERT_EQ(Post(kCms, ConfigMap("cm9")).status, 201);
  Reply page2 = Get(std::string(kCms) + "?limit=2&continue=" + token);
  ASSERT_EQ(page2.status, 200) << page2.raw;
  EXPECT_EQ(page2.body["items"][0]["metadata"]["name"], "cm2");
  EXPECT_EQ(page2.body["metadata"]["resourceVersion"], page1.body["metadata"]["resourceVersion"]);
  Reply page3 = Get(std::string(kCms) + "?limit=2&continue=" +
                    page2.body["metadata"]["continue"].get<std::string>());
  ASSERT_EQ(page3.body["items"].size(), 1u);
  EXPECT_EQ(page3.body["items"][0]["metadata"]["name"], "cm4");
  EXPECT_FALSE(page3.body["metadata"].contains("continue"));

  // Selector + limit returns `limit` matching items.
  Reply sel = Get(std::string(kCms) + "?labelSelector=app%3Ddb&limit=2");
  ASSERT_EQ(sel.body["items"].size(), 2u);
  EXPECT_EQ(sel.body["items"][1]["metadata"]["name"], "cm2");
  EXPECT_TRUE(sel.body["metadata"].contains("continue"));

  ASSERT_TRUE(server_->store()->Compact(server_->store()->Revision()).ok());
  Reply expired = Get(std::string(kCms) + "?limit=2&continue=" + token);
  EXPECT_EQ(expired.status, 410);
  EXPECT_EQ(expired.body["reason"], "Expired");
  EXPECT_EQ(Get(std::string(kCms) + "?limit=2&continue=garbage").status, 400);
}

TEST_F(ApiServerTest, ServesTables) {
  ASSERT_EQ(Post(kCms, ConfigMap("cm1")).status, 201);
  Reply table = Call("GET", std::string(kCms), nullptr, "",
                     {"Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json"});
  ASSERT_EQ(table.status, 200);
  EXPECT_EQ(table.body["kind"], "Table");
  ASSERT_EQ(table.body["rows"].size(), 1u);
  EXPECT_EQ(table.body["rows"][0]["cells"][0], "cm1");
  EXPECT_EQ(table.body["rows"][0]["object"]["metadata"]["name"], "cm1");
  EXPECT_TRUE(table.body["metadata"].contains("resourceVersion"));
}

TEST_F(ApiServerTest, WatchStreamsEventsInOrder) {
  Reply list = Get(kCms);
  std::string rv = list.body["metadata"]["resourceVersion"];
  http::TestHttpStream watch(server_->url() + kCms + "?watch=1&resourceVersion=" + rv);
  ASSERT_EQ(watch.status(), 200);
  EXPECT_EQ(watch.header("Transfer-Encoding"), "chunked");
  Reply created = Post(kCms, ConfigMap("w1"));
  Json update = created.body;
  update["data"]["k"] = "changed";
  Reply updated = Put(std::string(kCms) + "/w1", update);
  Reply deleted = Delete(std::string(kCms) + "/w1");
  ASSERT_EQ(deleted.status, 200);

  std::vector<Json> events;
  for (int i = 0; i < 3; ++i) {
    auto line = watch.NextLine(milliseconds(5000));
    ASSERT_TRUE(line.has_value()) << "event " << i;
    events.push_back(Parse(*line));
  }
  EXPECT_EQ(events[0]["type"], "ADDED");
  EXPECT_EQ(events[0]["object"], created.body);
  EXPECT_EQ(events[1]["type"], "MODIFIED");
  EXPECT_EQ(events[1]["object"]["data"]["k"], "changed");
  EXPECT_EQ(events[1]["object"]["metadata"]["resourceVersion"],
            updated.body["metadata"]["resourceVersion"]);
  EXPECT_EQ(events[2]["type"], "DELETED");
  EXPECT_EQ(events[2]["object"]["data"]["k"], "changed");
  EXPECT_GT(std::stoll(events[2]["object"]["metadata"]["resourceVersion"].get<std::string>()),
            std::stoll(updated.body["metadata"]["resourceVersion"].get<std::string>()));
}

TEST_F(ApiServerTest, WatchWithoutResourceVersionStartsWithAddedAndFiltersSelectors) {
  ASSERT_EQ(Post(kCms, ConfigMap("a", {{"app", "web"}})).status, 201);
  ASSERT_EQ(Post(kCms, ConfigMap("b", {{"app", "db"}})).status, 201);
  http::TestHttpStream watch(server_->url() + kCms + "?watch=true&labelSelector=app%3Dweb");
  auto first = watch.NextLine(milliseconds(5000));
  ASSERT_TRUE(first);
  EXPECT_EQ(Parse(*first)["type"], "ADDED");
  EXPECT_EQ(Parse(*first)["object"]["metadata"]["name"], "a");
  // b enters the selection (ADDED), a leaves it (DELETED).
  ASSERT_EQ(Patch(std::string(kCms) + "/b", Json{{"metadata", {{"labels", {{"app", "web"}}}}}},
                  "application/merge-patch+json").status, 200);
  ASSERT_EQ(Patch(std::string(kCms) + "/a", Json{{"metadata", {{"labels", {{"app", "db"}}}}}},
                  "application/merge-patch+json").status, 200);
  auto e1 = watch.NextLine(milliseconds(5000));
  auto e2 = watch.NextLine(milliseconds(5000));
  ASSERT_TRUE(e1 && e2);
  EXPECT_EQ(Parse(*e1)["type"], "ADDED");
  EXPECT_EQ(Parse(*e1)["object"]["metadata"]["name"], "b");
  EXPECT_EQ(Parse(*e2)["type"], "DELETED");
  EXPECT_EQ(Parse(*e2)["object"]["metadata"]["name"], "a");
}

TEST_F(ApiServerTest, WatchFromOldRevisionReplaysOrFailsWith410) {
  Reply a = Post(kCms, ConfigMap("a"));
  std::string rv_a = a.body["metadata"]["resourceVersion"];
  ASSERT_EQ(Post(kCms, ConfigMap("b")).status, 201);
  ASSERT_EQ(Post(kCms, ConfigMap("c")).status, 201);
  {
    // Missed events are replayed from the log.
    http::TestHttpStream watch(server_->url() + kCms + "?watch=1&resourceVersion=" + rv_a);
    auto b = watch.NextLine(milliseconds(5000));
    auto c = watch.NextLine(milliseconds(5000));
    ASSERT_TRUE(b && c);
    EXPECT_EQ(Parse(*b)["object"]["metadata"]["name"], "b");
    EXPECT_EQ(Parse(*c)["object"]["metadata"]["name"], "c");
  }
  int64_t head = server_->store()->Revision();
  ASSERT_TRUE(server_->store()->Compact(head).ok());
  http::TestHttpStream old(server_->url() + kCms + "?watch=1&resourceVersion=" + rv_a);
  EXPECT_EQ(old.status(), 200);
  auto error = old.NextLine(milliseconds(5000));
  ASSERT_TRUE(error);
  Json e = Parse(*error);
  EXPECT_EQ(e["type"], "ERROR");
  EXPECT_EQ(e["object"]["code"], 410);
  EXPECT_EQ(e["object"]["reason"], "Expired");
  EXPECT_EQ(e["object"]["message"],
            "too old resource version: " + rv_a + " (" + std::to_string(head) + ")");
  EXPECT_TRUE(old.WaitForEnd(milliseconds(5000)));
}

TEST_F(ApiServerTest, WatchTimesOutAndSendsBookmarks) {
  TearDown();
  StartServer("", ApiServerOptions{.bookmark_interval = milliseconds(100)});
  std::string rv = Get(kCms).body["metadata"]["resourceVersion"];
  http::TestHttpStream watch(server_->url() + kCms + "?watch=1&allowWatchBookmarks=true" +
                             "&timeoutSeconds=2&resourceVersion=" + rv);
  auto line = watch.NextLine(milliseconds(5000));
  ASSERT_TRUE(line);
  Json bookmark = Parse(*line);
  EXPECT_EQ(bookmark["type"], "BOOKMARK");
  EXPECT_EQ(bookmark["object"]["kind"], "ConfigMap");
  EXPECT_EQ(bookmark["object"]["metadata"]["resourceVersion"],
            std::to_string(server_->store()->Revision()));
  EXPECT_TRUE(watch.WaitForEnd(milliseconds(6000)));
}

TEST_F(ApiServerTest, HundredConcurrentWatchersSeeEveryEvent) {
  constexpr int kWatchers = 100;
  constexpr int kEvents = 20;
  std::string rv = Get(kCms).body["metadata"]["resourceVersion"];
  std::vector<std::unique_ptr<http::TestHttpStream>> watchers;
  for (int i = 0; i < kWatchers; ++i) {
    watchers.push_back(std::make_unique<http::TestHttpStream>(
        server_->url() + kCms + "?watch=1&resourceVersion=" + rv));
  }
  ASSERT_TRUE(Eventually([&] { return server_->watches()->ActiveForTest() == kWatchers; }));
  for (int i = 0; i < kEvents; ++i) {
    ASSERT_EQ(Post(kCms, ConfigMap("e" + std::to_string(i))).status, 201);
  }
  std::atomic<int> complete{0};
  std::vector<std::thread> readers;
  for (auto& w : watchers) {
    readers.emplace_back([&, stream = w.get()] {
      for (int i = 0; i < kEvents; ++i) {
        auto line = stream->NextLine(milliseconds(10000));
        if (!line) return;
        Json e = Json::parse(*line, nullptr, false);
        if (e["type"] != "ADDED" || e["object"]["metadata"]["name"] != "e" + std::to_string(i)) {
          return;
        }
      }
      ++complete;
    });
  }
  for (auto& t : readers) t.join();
  EXPECT_EQ(complete, kWatchers);
  for (auto& w : watchers) w->Abort();
}

TEST(ApiServerRestartTest, RestartKeepsObjectsAndResourceVersions) {
  TempDataDir dir;
  Json before;
  int64_t revision = 0;
  {
    auto server = ApiServer::Create({.data_dir = dir.path()});
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    http::TestHttpClient client((*server)->url());
    auto r = client.Request("POST", kCms, ApiServerTest::ConfigMap("keep").dump());
    ASSERT_EQ(r.status, 201);
    r = client.Request("PATCH", std::string(kCms) + "/keep", R"({"data":{"x":"1"}})",
                       {"Content-Type: application/merge-patch+json"});
    ASSERT_EQ(r.status, 200);
    before = Parse(r.body);
    revision = (*server)->store()->Revision();
    // A second server on the same data directory is refused.
    auto second = ApiServer::Create({.data_dir = dir.path()});
    EXPECT_FALSE(second.ok());
  }
  auto server = ApiServer::Create({.data_dir = dir.path()});
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  EXPECT_EQ((*server)->store()->Revision(), revision);
  http::TestHttpClient client((*server)->url());
  auto r = client.Request("GET", std::string(kCms) + "/keep");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(Parse(r.body), before);
  // Default namespaces are not re-created (no new revisions on restart).
  EXPECT_EQ((*server)->store()->Revision(), revision);
  // Watching from before the restart replays the log.
  http::TestHttpStream watch((*server)->url() + kCms + "?watch=1&resourceVersion=" +
                             std::to_string(revision - 1));
  auto line = watch.NextLine(milliseconds(5000));
  ASSERT_TRUE(line);
  EXPECT_EQ(Parse(*line)["type"], "MODIFIED");
  EXPECT_EQ(Parse(*line)["object"], before);
}

}  // namespace
}  // namespace trimtab::cluster::testing
