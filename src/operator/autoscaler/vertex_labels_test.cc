// VertexLabels: vertex ids become names in the text of decision logs (issue 26).
#include "operator/autoscaler/vertex_labels.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trimtab::op {
namespace {

constexpr char kSource[] = "bc764cd8ddf7a0cff126f51c16239658";
constexpr char kMap[] = "0a448493b4782967b150582570326227";
constexpr char kMap2[] = "ea632d67b7d595e5b851708ae9ad79d6";
constexpr char kUnnamed[] = "6d2677a0ecc3fd8df0b72ec675edf8f4";

core::JobTopology Topology() {
  core::JobTopology t;
  t.vertices = {{.id = kSource, .name = "Source: Kafka Source"},
                {.id = kMap, .name = "Map"},
                {.id = kMap2, .name = "Map"},
                {.id = kUnnamed, .name = ""}};
  return t;
}

TEST(VertexLabelsTest, NamesWhereUniqueIdsWhereNeeded) {
  const VertexLabels labels(Topology());
  EXPECT_EQ(labels.Of(kSource), "Source: Kafka Source");
  EXPECT_EQ(labels.Of(kMap), std::string("Map (") + kMap + ")");
  EXPECT_EQ(labels.Of(kMap2), std::string("Map (") + kMap2 + ")");
  EXPECT_EQ(labels.Of(kUnnamed), kUnnamed);
  EXPECT_EQ(labels.Of("ffffffffffffffffffffffffffffffff"), "ffffffffffffffffffffffffffffffff");
}

TEST(VertexLabelsTest, RelabelsWholeIdsInText) {
  const VertexLabels labels(Topology());
  EXPECT_EQ(labels.Relabel(std::string("implausible metrics, nothing is scaled: vertex ") + kSource +
                           " LOAD 1000000000.00"),
            "implausible metrics, nothing is scaled: vertex Source: Kafka Source LOAD 1000000000.00");
  EXPECT_EQ(labels.Relabel(std::string("{ Vertex ID ") + kSource + " | Parallelism 2 -> 4 }"),
            "{ Vertex ID Source: Kafka Source | Parallelism 2 -> 4 }");
  // The collector's "<id> (<name>)" is not named twice.
  EXPECT_EQ(labels.Relabel(std::string("missing metrics: vertex ") + kSource +
                           " (Source: Kafka Source): busyTimeMsPerSecond"),
            "missing metrics: vertex Source: Kafka Source: busyTimeMsPerSecond");
  EXPECT_EQ(labels.Relabel(std::string("vertex ") + kMap + " (Map)"),
            std::string("vertex Map (") + kMap + ")");
  // Part of a longer word: not an id.
  const std::string longer = std::string(kSource) + "00";
  EXPECT_EQ(labels.Relabel("x" + longer), "x" + longer);
  EXPECT_EQ(labels.Relabel(""), "");
}

TEST(VertexLabelsTest, RelabelsNotesAndReasonsButNotStructuredIds) {
  const VertexLabels labels(Topology());
  core::flink::DecisionLog log;
  log.Note("decide", std::string("vertex ") + kSource + " wants 4");
  log.vertices[kSource].reasons.push_back(std::string(kSource) + " is busy");
  log.events.push_back({.type = "Normal", .reason = "ScalingReport", .message = kSource});
  labels.Relabel(&log);
  EXPECT_EQ(log.stages["decide"][0], "vertex Source: Kafka Source wants 4");
  ASSERT_EQ(log.vertices.count(kSource), 1u);  // keyed by id still
  EXPECT_EQ(log.vertices[kSource].reasons[0], "Source: Kafka Source is busy");
  EXPECT_EQ(log.events[0].message, kSource);  // relabelled where it is emitted

  Json doc = {{"reason", std::string("vertex ") + kMap2},
              {"output", {{kSource, 4}}},
              {"list", Json::array({std::string(kSource) + " x"})}};
  labels.RelabelStrings(&doc);
  EXPECT_EQ(doc["reason"], std::string("vertex Map (") + kMap2 + ")");
  EXPECT_TRUE(doc["output"].contains(kSource));
  EXPECT_EQ(doc["list"][0], "Source: Kafka Source x");
}

TEST(VertexLabelsTest, NoNamesChangesNothing) {
  core::JobTopology t;
  t.vertices = {{.id = kSource, .name = ""}};
  const VertexLabels labels(t);
  EXPECT_EQ(labels.Relabel(std::string("vertex ") + kSource), std::string("vertex ") + kSource);
}

}  // namespace
}  // namespace trimtab::op
