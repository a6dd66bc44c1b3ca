#include "cluster/apiserver/surface/crd.h"

#include <filesystem>
#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cluster/apiserver/surface/builtin_types.h"

namespace trimtab::cluster {
namespace {

using ::testing::ElementsAre;
namespace fs = std::filesystem;

const std::string kReference = std::string(TRIMTAB_SOURCE_DIR) + "/../shared/reference";

std::vector<fs::path> YamlFiles(const std::string& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string ext = e.path().extension().string();
    if (ext == ".yaml" || ext == ".yml") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Json LoadOne(const fs::path& path) {
  StatusOr<std::string> text = ReadFile(path.string());
  EXPECT_TRUE(text.ok()) << path;
  StatusOr<Json> doc = ParseYaml(text.value_or(""), path.string());
  EXPECT_TRUE(doc.ok()) << doc.status().ToString();
  return doc.value_or(Json());
}

std::vector<std::string> Names(const std::vector<PrinterColumn>& cols) {
  std::vector<std::string> out;
  for (const PrinterColumn& c : cols) out.push_back(c.name);
  return out;
}

// Every served type of every reference CRD, by "apiVersion/kind".
std::map<std::string, ResourceType> ReferenceTypes() {
  std::map<std::string, ResourceType> out;
  for (const char* dir : {"/flink-operator/crds", "/volcano/crds"}) {
    for (const fs::path& p : YamlFiles(kReference + dir)) {
      if (p.filename().string().starts_with("v1beta1-legacy")) continue;
      auto types = ResourceTypesFromCrd(LoadOne(p));
      if (!types.ok()) continue;
      for (ResourceType& t : *types) out[t.GroupVersion() + "/" + t.kind] = std::move(t);
    }
  }
  for (ResourceType& t : BuiltinTypes()) out[t.GroupVersion() + "/" + t.kind] = std::move(t);
  return out;
}

TEST(ResourceTypesFromCrd, EveryReferenceCrdConverts) {
  int files = 0;
  for (const char* dir : {"/flink-operator/crds", "/volcano/crds"}) {
    for (const fs::path& p : YamlFiles(kReference + dir)) {
      ++files;
      std::vector<Json> causes;
      auto types = ResourceTypesFromCrd(LoadOne(p), &causes);
      ASSERT_TRUE(types.ok()) << p << ": " << types.status().ToString();
      EXPECT_FALSE(types->empty()) << p;
      EXPECT_TRUE(causes.empty());
      for (const ResourceType& t : *types) {
        EXPECT_TRUE(t.is_crd);
        EXPECT_TRUE(t.schema.is_object()) << p;
        EXPECT_FALSE(t.printer_columns.empty());
      }
    }
  }
  EXPECT_EQ(files, 8);
}

TEST(ResourceTypesFromCrd, FlinkDeploymentType) {
  auto types = ResourceTypesFromCrd(
      LoadOne(kReference + "/flink-operator/crds/flinkdeployments.flink.apache.org-v1.yml"));
  ASSERT_TRUE(types.ok()) << types.status().ToString();
  ASSERT_EQ(types->size(), 1u);
  const ResourceType& t = (*types)[0];
  EXPECT_EQ(t.group, "flink.apache.org");
  EXPECT_EQ(t.version, "v1beta1");
  EXPECT_EQ(t.kind, "FlinkDeployment");
  EXPECT_EQ(t.list_kind, "FlinkDeploymentList");
  EXPECT_EQ(t.plural, "flinkdeployments");
  EXPECT_EQ(t.singular, "flinkdeployment");
  EXPECT_THAT(t.short_names, ElementsAre("flinkdep"));
  EXPECT_TRUE(t.namespaced);
  EXPECT_TRUE(t.status_subresource);
  ASSERT_TRUE(t.scale_subresource.has_value());
  EXPECT_EQ(t.scale_subresource->spec_replicas_path, ".spec.taskManager.replicas");
  EXPECT_EQ(t.scale_subresource->label_selector_path, ".status.taskManager.labelSelector");
  EXPECT_THAT(Names(t.printer_columns), ElementsAre("Job Status", "Lifecycle State"));
  EXPECT_EQ(t.printer_columns[0].json_path, ".status.jobStatus.state");
  // Server-side apply keys: ObjectMeta's lists only (upstream's schema has no list types).
  EXPECT_EQ(t.merge_keys, (std::map<std::string, std::string>{
                              {"metadata.finalizers", ""}, {"metadata.ownerReferences", "uid"}}));
}

TEST(ResourceTypesFromCrd, LegacyV1Beta1ShapeIsConverted) {
  auto types = ResourceTypesFromCrd(
      LoadOne(kReference + "/volcano/crds/v1beta1-legacy-scheduling.volcano.sh_podgroups.yaml"));
  ASSERT_TRUE(types.ok()) << types.status().ToString();
  ASSERT_EQ(types->size(), 1u);
  const ResourceType& t = (*types)[0];
  EXPECT_EQ(t.version, "v1beta1");
  EXPECT_THAT(t.short_names, ElementsAre("pg", "podgroup-v1beta1"));
  EXPECT_THAT(Names(t.printer_columns), ElementsAre("STATUS", "minMember", "RUNNINGS", "AGE", "QUEUE"));
  EXPECT_EQ(t.printer_columns[1].json_path, ".spec.minMember");
  EXPECT_EQ(t.printer_columns[4].priority, 1);
  EXPECT_TRUE(t.schema.value("x-kubernetes-preserve-unknown-fields", false));
}

TEST(ValidateAndDefault, EveryExampleManifestValidates) {
  std::map<std::string, ResourceType> types = ReferenceTypes();
  int objects = 0;
  for (const char* dir : {"/flink-operator/examples", "/volcano/examples"}) {
    for (const fs::path& p : YamlFiles(kReference + dir)) {
      StatusOr<std::string> text = ReadFile(p.string());
      ASSERT_TRUE(text.ok());
      StatusOr<std::vector<Json>> docs = ParseYamlStream(*text, p.string());
      ASSERT_TRUE(docs.ok()) << docs.status().ToString();
      for (Json& doc : *docs) {
        const std::string key = doc.value("apiVersion", "") + "/" + doc.value("kind", "");
        auto it = types.find(key);
        ASSERT_NE(it, types.end()) << p << ": no type " << key;
        std::vector<Json> causes;
        std::vector<std::string> unknown;
        Status s = ValidateAndDefault(it->second, &doc, &causes, &unknown);
        EXPECT_TRUE(s.ok()) << p << ": " << s.ToString();
        EXPECT_TRUE(unknown.empty()) << p << ": " << Json(unknown).dump();
        ++objects;
      }
    }
  }
  EXPECT_GE(objects, 20);
}

TEST(ValidateAndDefault, FlinkDeploymentErrorsReadLikeTheApiserver) {
  std::map<std::string, ResourceType> types = ReferenceTypes();
  const ResourceType& fd = types.at("flink.apache.org/v1beta1/FlinkDeployment");
  Json obj = Json::parse(R"({"apiVersion":"flink.apache.org/v1beta1","kind":"FlinkDeployment",
    "metadata":{"name":"basic","namespace":"default","labels":{"a":"b"},"bogus":1},
    "spec":{"image":"flink:2.2","flinkVersion":"v9_9","job":{"jarURI":"local:///x.jar",
      "parallelism":"two","upgradeMode":"stateless"},"imagePullPolicy":"Always",
      "flinkConfiguration":{"taskmanager.numberOfTaskSlots":"2"},"mystery":{"x":1}}})");
  std::vector<Json> causes;
  std::vector<std::string> unknown;
  Status s = ValidateAndDefault(fd, &obj, &causes, &unknown);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(unknown, ElementsAre("metadata.bogus", "spec.mystery"));
  EXPECT_FALSE(obj["spec"].contains("mystery"));
  EXPECT_EQ(obj["spec"]["flinkConfiguration"]["taskmanager.numberOfTaskSlots"], "2");
  ASSERT_EQ(causes.size(), 2u) << Json(causes).dump();
  EXPECT_EQ(causes[0]["reason"], "FieldValueNotSupported");
  EXPECT_EQ(causes[0]["field"], "spec.flinkVersion");
  EXPECT_THAT(causes[0]["message"].get<std::string>(),
              ::testing::StartsWith("Unsupported value: \"v9_9\": supported values: \"v1_13\""));
  EXPECT_EQ(causes[1], Json({{"reason", "FieldValueTypeInvalid"},
                             {"field", "spec.job.parallelism"},
                             {"message", "Invalid value: \"string\": spec.job.parallelism in body "
                                         "must be of type integer: \"string\""}}));
  EXPECT_THAT(s.message(), ::testing::StartsWith(
                               "FlinkDeployment.flink.apache.org \"basic\" is invalid: [spec."));
}

Json WidgetCrd() {
  return Json::parse(R"({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
      "names": {"plural": "widgets", "kind": "Widget", "shortNames": ["wd"]},
      "versions": [{"name": "v1", "served": true, "storage": true,
        "subresources": {"status": {}},
        "schema": {"openAPIV3Schema": {"type": "object", "properties": {
          "spec": {"type": "object", "required": ["size"], "properties": {
            "size": {"type": "integer", "minimum": 1, "maximum": 10},
            "color": {"type": "string", "enum": ["red", "blue"], "default": "red"},
            "name": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 5},
            "quantity": {"x-kubernetes-int-or-string": true},
            "note": {"type": "string", "nullable": true},
            "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "items": {"type": "array", "maxItems": 2, "items": {"type": "object",
              "properties": {"id": {"type": "integer", "default": 7}}}},
            "template": {"type": "object", "x-kubernetes-embedded-resource": true,
              "x-kubernetes-preserve-unknown-fields": true},
            "opaque": {"type": "object"}}}}}}},
        {"name": "v1beta1", "served": false, "storage": false,
         "schema": {"openAPIV3Schema": {"type": "object"}}}]}})");
}

TEST(ValidateAndDefault, DefaultsPrunesAndValidates) {
  auto types = ResourceTypesFromCrd(WidgetCrd());
  ASSERT_TRUE(types.ok()) << types.status().ToString();
  ASSERT_EQ(types->size(), 1u);  // v1beta1 is not served
  const ResourceType& t = (*types)[0];
  EXPECT_THAT(Names(t.printer_columns), ElementsAre("Age"));
  EXPECT_EQ(t.list_kind, "WidgetList");
  EXPECT_EQ(t.singular, "widget");

  Json ok = Json::parse(R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},
    "spec":{"size":3,"quantity":"10Mi","note":null,"extra":{"any":{"thing":1}},
      "labels":{"a":"b"},"items":[{},{"id":1}],"template":{"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":"p","junk":1},"spec":{}},"opaque":{"dropped":true}},
    "status":{"whatever":1}})");
  std::vector<Json> causes;
  std::vector<std::string> unknown;
  ASSERT_TRUE(ValidateAndDefault(t, &ok, &causes, &unknown).ok()) << Json(causes).dump();
  EXPECT_EQ(ok["spec"]["color"], "red");
  EXPECT_EQ(ok["spec"]["items"], Json::parse(R"([{"id":7},{"id":1}])"));
  EXPECT_TRUE(ok["spec"]["note"].is_null());
  EXPECT_EQ(ok["spec"]["extra"]["any"]["thing"], 1);
  EXPECT_EQ(ok["spec"]["opaque"], Json::object());
  EXPECT_FALSE(ok.contains("status"));
  EXPECT_FALSE(ok["spec"]["template"]["metadata"].contains("junk"));
  EXPECT_THAT(unknown, ElementsAre("spec.opaque.dropped", "spec.template.metadata.junk", "status"));

  Json bad = Json::parse(R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},
    "spec":{"size":0,"color":"green","name":"ABCDEFG","quantity":true,"items":[{},{},{}],
      "labels":{"a":1}}})");
  causes.clear();
  Status s = ValidateAndDefault(t, &bad, &causes);
  ASSERT_FALSE(s.ok());
  std::vector<std::string> lines;
  for (const Json& c : causes) {
    lines.push_back(c["reason"].get<std::string>() + " " + c["field"].get<std::string>() + ": " +
                    c["message"].get<std::string>());
  }
  EXPECT_THAT(lines,
              ElementsAre("FieldValueNotSupported spec.color: Unsupported value: \"green\": "
                          "supported values: \"red\", \"blue\"",
                          "FieldValueTooMany spec.items: Too many: 3: must have at most 2 items",
                          "FieldValueTypeInvalid spec.labels.a: Invalid value: \"number\": "
                          "spec.labels.a in body must be of type string: \"number\"",
                          "FieldValueTooLong spec.name: Too long: may not be more than 5 bytes",
                          "FieldValueInvalid spec.name: Invalid value: \"ABCDEFG\": spec.name in "
                          "body should match '^[a-z]+$'",
                          "FieldValueTypeInvalid spec.quantity: Invalid value: \"boolean\": "
                          "spec.quantity in body must be of type integer,string: \"boolean\"",
                          "FieldValueInvalid spec.size: Invalid value: 0: spec.size in body "
                          "should be greater than or equal to 1"));

  Json missing = Json::parse(R"({"apiVersion":"example.com/v1","kind":"Widget",
    "metadata":{"name":"w"},"spec":{"template":{"metadata":{}}}})");
  causes.clear();
  s = ValidateAndDefault(t, &missing, &causes);
  EXPECT_EQ(s.message(),
            "Widget.example.com \"w\" is invalid: [spec.size: Required value, "
            "spec.template.apiVersion: Required value: must not be empty, spec.template.kind: "
            "Required value: must not be empty]");
}

TEST(ResourceTypesFromCrd, RejectsInvalidDefinitions) {
  Json crd = WidgetCrd();
  crd["metadata"]["name"] = "gadgets.example.com";
  crd["spec"]["scope"] = "Global";
  crd["spec"]["versions"][1]["storage"] = true;
  crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
     ["size"].erase("type");
  crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
     ["labels"]["properties"] = {{"x", {{"type", "string"}}}};
  std::vector<Json> causes;
  auto types = ResourceTypesFromCrd(crd, &causes);
  ASSERT_FALSE(types.ok());
  std::vector<std::string> fields;
  for (const Json& c : causes) fields.push_back(c["field"]);
  EXPECT_THAT(fields,
              ElementsAre("metadata.name", "spec.scope",
                          "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties["
                          "labels].additionalProperties",
                          "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties["
                          "size].type",
                          "spec.versions"));
  EXPECT_THAT(types.status().message(),
              ::testing::StartsWith("CustomResourceDefinition.apiextensions.k8s.io "
                                    "\"gadgets.example.com\" is invalid: [metadata.name: Invalid "
                                    "value: \"gadgets.example.com\": must be "
                                    "spec.names.plural+\".\"+spec.group, spec.scope: Unsupported "
                                    "value: \"Global\""));

  Json no_group = WidgetCrd();
  no_group["spec"].erase("group");
  no_group["spec"]["versions"][0].erase("schema");
  causes.clear();
  EXPECT_FALSE(ResourceTypesFromCrd(no_group, &causes).ok());
  ASSERT_EQ(causes.size(), 2u);
  EXPECT_EQ(causes[0], Json({{"reason", "FieldValueRequired"}, {"field", "spec.group"},
                             {"message", "Required value"}}));
  EXPECT_EQ(causes[1]["message"], "Required value: schemas are required");
}

TEST(DefaultCrd, FillsNamesAndConversion) {
  Json crd = WidgetCrd();
  DefaultCrd(&crd);
  EXPECT_EQ(crd["spec"]["names"]["singular"], "widget");
  EXPECT_EQ(crd["spec"]["names"]["listKind"], "WidgetList");
  EXPECT_EQ(crd["spec"]["conversion"]["strategy"], "None");
  EXPECT_EQ(StrictDecodingMessage({"spec.foo", "spec.bar"}),
            "strict decoding error: unknown field \"spec.foo\", unknown field \"spec.bar\"");
}

}  // namespace
}  // namespace trimtab::cluster
