#include "cluster/runtime/container_script.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trimtab::cluster::runtime {
namespace {

using ::testing::ElementsAre;
using std::chrono::seconds;

Json Pod(Json annotations = Json::object()) {
  return {{"metadata", {{"name", "p"}, {"annotations", annotations}}}};
}

Json Container(Json command, Json args = Json()) {
  Json c = {{"name", "main"}, {"image", "busybox"}};
  if (!command.is_null()) c["command"] = command;
  if (!args.is_null()) c["args"] = args;
  return c;
}

TEST(ContainerScriptTest, ShortCommandsExit) {
  auto s = ReadContainerScript(Pod(), Container({"true"}));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->exit_after, Duration{0});
  EXPECT_EQ(s->exit_code, 0);
  s = ReadContainerScript(Pod(), Container({"sh", "-c", "echo hello world; sleep 2 && exit 3"}));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->exit_after, std::chrono::duration_cast<Duration>(seconds(2)));
  EXPECT_EQ(s->exit_code, 3);
  EXPECT_THAT(s->output_lines, ElementsAre("hello world"));
  s = ReadContainerScript(Pod(), Container({"/bin/false"}));
  EXPECT_EQ(s->exit_code, 1);
}

TEST(ContainerScriptTest, ServersAndSleepInfinityRunUntilStopped) {
  for (Json cmd : {Json(), Json::array({"nginx", "-g", "daemon off;"}),
                   Json::array({"sleep", "infinity"})}) {
    auto s = ReadContainerScript(Pod(), Container(cmd));
    ASSERT_TRUE(s.ok());
    EXPECT_FALSE(s->exit_after.has_value()) << cmd.dump();
  }
  auto s = ReadContainerScript(Pod(), Container({"sleep"}, {"1m"}));
  EXPECT_EQ(s->exit_after, std::chrono::duration_cast<Duration>(seconds(60)));
}

TEST(ContainerScriptTest, AnnotationsOverrideAndScopeToContainers) {
  auto s = ReadContainerScript(Pod({{"trimtab.dev/exit-after", "30s"},
                                    {"trimtab.dev/exit-code", "1"},
                                    {"trimtab.dev/start-delay", "2"},
                                    {"trimtab.dev/fail-readiness", "true"},
                                    {"trimtab.dev/serve", "http-echo"}}),
                               Container(Json()));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->exit_after, std::chrono::duration_cast<Duration>(seconds(30)));
  EXPECT_EQ(s->exit_code, 1);
  EXPECT_EQ(s->start_delay, std::chrono::duration_cast<Duration>(seconds(2)));
  EXPECT_TRUE(s->never_ready);
  EXPECT_TRUE(s->serve_http_echo);
  // A container-scoped annotation wins over the pod-wide one.
  s = ReadContainerScript(Pod({{"trimtab.dev/exit-code", "1"}, {"trimtab.dev/exit-code.main", "7"}}),
                          Container(Json()));
  EXPECT_EQ(s->exit_code, 7);
  EXPECT_EQ(s->exit_after, Duration{0});
}

TEST(ContainerScriptTest, BadAnnotationsNameTheProblem) {
  auto s = ReadContainerScript(Pod({{"trimtab.dev/exit-after", "soon"}}), Container(Json()));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "annotation trimtab.dev/exit-after: invalid duration \"soon\"");
  s = ReadContainerScript(Pod({{"trimtab.dev/exit-code", "300"}}), Container(Json()));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("0-255"), std::string::npos);
  s = ReadContainerScript(Pod({{"trimtab.dev/serve", "grpc"}}), Container(Json()));
  EXPECT_FALSE(s.ok());
}

}  // namespace
}  // namespace trimtab::cluster::runtime
