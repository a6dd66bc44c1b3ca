#include "cluster/apiserver/storage/object_meta.h"

#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cluster/apiserver/surface/builtin_types.h"
#include "cluster/apiserver/handlers/request_info.h"

namespace trimtab::cluster {
namespace {

ResourceType TypeOf(const std::string& group, const std::string& plural) {
  for (auto& t : BuiltinTypes()) {
    if (t.group == group && t.plural == plural) return t;
  }
  ADD_FAILURE() << "no type " << group << "/" << plural;
  return {};
}

TEST(ObjectMetaTest, KeysRoundTrip) {
  ResourceType pods = TypeOf("", "pods");
  ResourceType deploys = TypeOf("apps", "deployments");
  ResourceType nodes = TypeOf("", "nodes");
  EXPECT_EQ(ObjectKey(pods, "default", "p1"), "/registry/core/pods/default/p1");
  EXPECT_EQ(ObjectKey(deploys, "ns", "web"), "/registry/apps/deployments/ns/web");
  EXPECT_EQ(ObjectKey(nodes, "", "n1"), "/registry/core/nodes/n1");
  EXPECT_EQ(CollectionPrefix(pods, ""), "/registry/core/pods/");
  EXPECT_EQ(CollectionPrefix(pods, "a"), "/registry/core/pods/a/");
  auto parsed = ParseObjectKey("/registry/apps/deployments/ns/web");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->group, "apps");
  EXPECT_EQ(parsed->ns, "ns");
  EXPECT_EQ(parsed->name, "web");
  auto node = ParseObjectKey("/registry/core/nodes/n1");
  ASSERT_TRUE(node);
  EXPECT_EQ(node->group, "");
  EXPECT_EQ(node->ns, "");
  EXPECT_FALSE(ParseObjectKey("/other/x"));
  EXPECT_FALSE(ParseObjectKey("/registry/core"));
}

TEST(ObjectMetaTest, UidsAndSuffixes) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    std::string uid = NewUid();
    ASSERT_EQ(uid.size(), 36u);
    EXPECT_EQ(uid[14], '4');
    EXPECT_NE(std::string("89ab").find(uid[19]), std::string::npos);
    seen.insert(uid);
  }
  EXPECT_EQ(seen.size(), 100u);
  std::string suffix = RandomNameSuffix();
  ASSERT_EQ(suffix.size(), 5u);
  for (char c : suffix) {
    EXPECT_NE(std::string("bcdfghjklmnpqrstvwxz2456789").find(c), std::string::npos);
  }
}

TEST(ObjectMetaTest, ValidatesNames) {
  ResourceType cms = TypeOf("", "configmaps");
  ResourceType ns = TypeOf("", "namespaces");
  EXPECT_EQ(ValidateObjectName(cms, "my.config-1"), "");
  EXPECT_NE(ValidateObjectName(cms, "Upper"), "");
  EXPECT_NE(ValidateObjectName(cms, "-lead"), "");
  EXPECT_NE(ValidateObjectName(cms, "a..b"), "");
  EXPECT_EQ(ValidateObjectName(cms, ""), "name or generateName is required");
  EXPECT_NE(ValidateObjectName(ns, "has.dot"), "");
  EXPECT_NE(ValidateObjectName(ns, std::string(64, 'a')), "");
  ResourceType cr = cms;
  cr.is_crd = true;
  EXPECT_EQ(ValidateObjectName(cr, "Any_Name"), "");
  EXPECT_NE(ValidateObjectName(cr, "a/b"), "");
}

TEST(ObjectMetaTest, GenerationRules) {
  EXPECT_TRUE(HasGeneration(TypeOf("apps", "deployments")));
  EXPECT_FALSE(HasGeneration(TypeOf("", "configmaps")));
  EXPECT_FALSE(HasGeneration(TypeOf("", "pods")));
  Json a = Json::parse(R"({"metadata":{"labels":{"a":"1"}},"spec":{"r":1},"status":{"x":1}})");
  Json b = a;
  b["metadata"]["labels"]["a"] = "2";
  b["status"]["x"] = 2;
  EXPECT_FALSE(SpecChanged(a, b));
  b["spec"]["r"] = 2;
  EXPECT_TRUE(SpecChanged(a, b));
  Json c = a;
  c["data"] = {{"k", "v"}};
  EXPECT_TRUE(SpecChanged(a, c));
}

TEST(ObjectMetaTest, Finalizers) {
  Json o = Json::parse(R"({"metadata":{}})");
  EXPECT_FALSE(HasFinalizers(o));
  EXPECT_TRUE(AddFinalizer(&o, "a"));
  EXPECT_FALSE(AddFinalizer(&o, "a"));
  EXPECT_TRUE(AddFinalizer(&o, "b"));
  EXPECT_EQ(o["metadata"]["finalizers"], Json::array({"a", "b"}));
  EXPECT_TRUE(RemoveFinalizer(&o, "a"));
  EXPECT_FALSE(RemoveFinalizer(&o, "a"));
  EXPECT_TRUE(RemoveFinalizer(&o, "b"));
  EXPECT_FALSE(o["metadata"].contains("finalizers"));
}

TEST(ObjectMetaTest, FieldSelectorsPerKind) {
  ResourceType pods = TypeOf("", "pods");
  ResourceType events = TypeOf("", "events");
  Json pod = Json::parse(R"({"metadata":{"name":"p","namespace":"ns"},
                             "spec":{"nodeName":"n1","hostNetwork":true},
                             "status":{"phase":"Running"}})");
  FieldMap fields = ObjectFields(pods, pod);
  EXPECT_EQ(fields["metadata.name"], "p");
  EXPECT_EQ(fields["metadata.namespace"], "ns");
  EXPECT_EQ(fields["spec.nodeName"], "n1");
  EXPECT_EQ(fields["spec.hostNetwork"], "true");
  EXPECT_EQ(fields["status.phase"], "Running");
  auto sel = ParseFieldSelectorFor(pods, "spec.nodeName=n1,status.phase!=Pending");
  ASSERT_TRUE(sel.ok());
  EXPECT_TRUE(sel->Matches(fields));
  auto bad = ParseFieldSelectorFor(pods, "involvedObject.name=x");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, 400);
  EXPECT_EQ(bad.error().message, "field label not supported: involvedObject.name");

  Json event = Json::parse(R"({"metadata":{"name":"e","namespace":"default"},
      "involvedObject":{"kind":"Pod","name":"p1","namespace":"default","uid":"u1"},
      "reason":"Started","type":"Normal","source":{"component":"kubelet"}})");
  auto ev = ParseFieldSelectorFor(
      events, "involvedObject.name=p1,involvedObject.namespace=default,involvedObject.uid=u1");
  ASSERT_TRUE(ev.ok());
  EXPECT_TRUE(ev->Matches(ObjectFields(events, event)));
  EXPECT_EQ(ObjectFields(events, event)["source"], "kubelet");
}

TEST(ObjectMetaTest, LabelSelectorStrings) {
  EXPECT_EQ(LabelSelectorString(Json::parse(R"({"matchLabels":{"app":"web","tier":"a"}})")),
            "app=web,tier=a");
  EXPECT_EQ(LabelSelectorString(Json::parse(
                R"({"matchExpressions":[{"key":"zone","operator":"In","values":["b","a"]}]})")),
            "zone in (a,b)");
  EXPECT_EQ(LabelSelectorString(Json("app=x")), "app=x");
  EXPECT_EQ(LabelSelectorString(Json()), "");
}

TEST(RequestInfoTest, SplitsPaths) {
  ResourceRegistry registry;
  RegisterBuiltinTypes(registry);
  auto pod = ParseResourcePath("/api/v1/namespaces/ns1/pods/p1/status", registry);
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->group, "");
  EXPECT_EQ(pod->version, "v1");
  EXPECT_EQ(pod->ns, "ns1");
  EXPECT_EQ(pod->resource, "pods");
  EXPECT_EQ(pod->name, "p1");
  EXPECT_EQ(pod->subresource, "status");
  auto all = ParseResourcePath("/apis/apps/v1/deployments", registry);
  ASSERT_TRUE(all);
  EXPECT_EQ(all->group, "apps");
  EXPECT_EQ(all->ns, "");
  EXPECT_EQ(all->resource, "deployments");
  auto ns = ParseResourcePath("/api/v1/namespaces/ns1", registry);
  ASSERT_TRUE(ns);
  EXPECT_EQ(ns->resource, "namespaces");
  EXPECT_EQ(ns->name, "ns1");
  auto fin = ParseResourcePath("/api/v1/namespaces/ns1/finalize", registry);
  ASSERT_TRUE(fin);
  EXPECT_EQ(fin->name, "ns1");
  EXPECT_EQ(fin->subresource, "finalize");
  auto watch = ParseResourcePath("/api/v1/watch/namespaces/ns1/pods", registry);
  ASSERT_TRUE(watch);
  EXPECT_TRUE(watch->legacy_watch);
  EXPECT_EQ(watch->ns, "ns1");
  EXPECT_FALSE(ParseResourcePath("/api/v1", registry));
  EXPECT_FALSE(ParseResourcePath("/apis/apps/v1", registry));
  EXPECT_FALSE(ParseResourcePath("/api/v1/namespaces/a/pods/b/c/d", registry));
}

}  // namespace
}  // namespace trimtab::cluster
