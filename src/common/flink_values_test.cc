#include "common/flink_values.h"

#include <gtest/gtest.h>

namespace trimtab {
namespace {

using namespace std::chrono_literals;
using std::chrono::nanoseconds;

TEST(FlinkDurationTest, Parse) {
  struct Case {
    const char* text;
    nanoseconds want;
  };
  const Case cases[] = {
      {"30 s", 30s},
      {"5 min", 5min},
      {"5min", 5min},
      {"5 m", 5min},
      {"1h", 1h},
      {"2 hours", 2h},
      {"500ms", 500ms},
      {"2 d", 48h},
      {"1 day", 24h},
      {"3 days", 72h},
      {"1234", 1234ms},
      {"  42  ", 42ms},
      {"10 seconds", 10s},
      {"10 secs", 10s},
      {"1 second", 1s},
      {"7 minutes", 7min},
      {"3 MIN", 3min},
      {"20 millis", 20ms},
      {"20 milliseconds", 20ms},
      {"5 \xC2\xB5s", 5us},
      {"5 micros", 5us},
      {"9 ns", 9ns},
      {"9 nanoseconds", 9ns},
      {"0", 0ns},
      {"0 s", 0ns},
  };
  for (const Case& c : cases) {
    StatusOr<nanoseconds> got = ParseFlinkDuration("k", c.text);
    ASSERT_TRUE(got.ok()) << c.text << ": " << got.status().ToString();
    EXPECT_EQ(got->count(), c.want.count()) << c.text;
  }
}

TEST(FlinkDurationTest, ParseErrors) {
  for (const char* text : {"", "   ", "s", "-1 s", "1.5 s", "5 weeks", "10 sx", "1h30m",
                           "99999999999999999999 ms", "200000 d"}) {
    EXPECT_FALSE(ParseFlinkDuration("k", text).ok()) << text;
  }
  EXPECT_EQ(ParseFlinkDuration("job.autoscaler.metrics.window", "min").status().message(),
            "job.autoscaler.metrics.window: invalid duration \"min\": expected a whole number and "
            "a unit (\"30 s\", \"5 min\", \"PT5M\")");
  EXPECT_NE(ParseFlinkDuration("k", "5 weeks").status().message().find("unknown unit 'weeks'"),
            std::string::npos);
}

TEST(FlinkDurationTest, Format) {
  EXPECT_EQ(FormatFlinkDuration(0ns), "0 ms");
  EXPECT_EQ(FormatFlinkDuration(5min), "5 min");
  EXPECT_EQ(FormatFlinkDuration(90s), "90 s");
  EXPECT_EQ(FormatFlinkDuration(48h), "2 d");
  EXPECT_EQ(FormatFlinkDuration(250ms), "250 ms");
  EXPECT_EQ(FormatFlinkDuration(1500us), "1500 \xC2\xB5s");
  EXPECT_EQ(FormatFlinkDuration(-3h), "-3 h");
  for (nanoseconds d : {nanoseconds(5min), nanoseconds(90s), nanoseconds(250ms), nanoseconds(7ns)}) {
    StatusOr<nanoseconds> back = ParseFlinkDuration("k", FormatFlinkDuration(d));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->count(), d.count());
  }
}

TEST(FlinkDurationTest, IsoDurationsAsJavaPrintsThem) {
  EXPECT_EQ(ParseFlinkDuration("k", "PT5M")->count(), nanoseconds(5min).count());
  EXPECT_EQ(ParseFlinkDuration("k", "PT1H30M")->count(), nanoseconds(90min).count());
  EXPECT_EQ(ParseFlinkDuration("k", "PT1.5S")->count(), nanoseconds(1500ms).count());
  EXPECT_EQ(ParseFlinkDuration("k", "P1DT2H")->count(), nanoseconds(26h).count());
  EXPECT_EQ(ParseFlinkDuration("k", "PT0.000000007S")->count(), 7);
  for (const char* bad : {"P", "PT", "PT5", "PT1.5M", "P1H", "PT1D", "PT1.0000000001S", "PTXS"}) {
    EXPECT_FALSE(ParseFlinkDuration("k", bad).ok()) << bad;
  }
  EXPECT_EQ(ParseFlinkDurationMillis("k", "1500 micros")->count(), 1);
}

TEST(FlinkMemorySizeTest, UnitsAreBinaryAndErrorsNameTheKey) {
  EXPECT_EQ(*ParseFlinkMemorySize("k", "1728m"), int64_t{1728} << 20);
  EXPECT_EQ(*ParseFlinkMemorySize("k", " 2 gb "), int64_t{2} << 30);
  EXPECT_EQ(*ParseFlinkMemorySize("k", "512 KiBiBytes"), int64_t{512} << 10);
  EXPECT_EQ(*ParseFlinkMemorySize("k", "1t"), int64_t{1} << 40);
  EXPECT_EQ(*ParseFlinkMemorySize("k", "4096"), 4096);
  for (const char* bad : {"", "m", "1.5g", "-1m", "3 parsecs", "99999999999 t"}) {
    EXPECT_FALSE(ParseFlinkMemorySize("taskmanager.memory.process.size", bad).ok()) << bad;
  }
  EXPECT_EQ(ParseFlinkMemorySize("taskmanager.memory.process.size", "3 parsecs").status().message(),
            "taskmanager.memory.process.size: invalid memory size \"3 parsecs\": expected a whole "
            "number and a unit b, k, m, g or t");
}

TEST(FlinkScalarTest, BooleansIntegersAndNumbers) {
  EXPECT_TRUE(*ParseFlinkBool("k", " TRUE "));
  EXPECT_FALSE(*ParseFlinkBool("k", "false"));
  EXPECT_FALSE(ParseFlinkBool("k", "yes").ok());
  EXPECT_EQ(*ParseFlinkInt("k", " 42 "), 42);
  EXPECT_FALSE(ParseFlinkInt("k", "4x").ok());
  EXPECT_DOUBLE_EQ(*ParseFlinkDouble("k", "0.7"), 0.7);
  EXPECT_FALSE(ParseFlinkDouble("k", "nan").ok());
  EXPECT_EQ(ParseFlinkList(" a; ;b ;c"), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(FlinkParallelismOverridesTest, ParsesAndFormatsEveryEntry) {
  auto parsed = ParseFlinkParallelismOverrides("o", " a:2, b : 10 ,");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, (FlinkParallelismOverrides{{"a", 2}, {"b", 10}}));
  EXPECT_EQ(FormatFlinkParallelismOverrides(*parsed), "a:2,b:10");
  EXPECT_TRUE(ParseFlinkParallelismOverrides("o", "")->empty());
  EXPECT_EQ(FormatFlinkParallelismOverrides({}), "");
}

TEST(FlinkParallelismOverridesTest, RejectsWhatFlinkCannotRun) {
  for (const char* bad : {"a2", "a:0", "a:-1", "a:x", ":3", "a:2,b:zero", "a:1.5", "a:"}) {
    EXPECT_FALSE(ParseFlinkParallelismOverrides("o", bad).ok()) << bad;
  }
  EXPECT_EQ(ParseFlinkParallelismOverrides("pipeline.jobvertex-parallelism-overrides", "a:2,bad")
                .status()
                .message(),
            "pipeline.jobvertex-parallelism-overrides: entry \"bad\" is not <vertex id>:"
            "<parallelism >= 1>");
  EXPECT_EQ(ParseFlinkParallelismOverrides("o", "a:2,a:3").status().message(),
            "o: vertex \"a\" is given twice");
}

TEST(FlinkMapTest, ParsesEntriesQuotesAndRejectsBadOnes) {
  auto m = ParseFlinkMap("k", " queue:q1 , priorityClassName: high,, 'a:b,c':x ,d:'1,2'");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(*m, (std::map<std::string, std::string>{
                    {"queue", "q1"}, {"priorityClassName", "high"}, {"a:b,c", "x"}, {"d", "1,2"}}));
  EXPECT_EQ(ParseFlinkMap("k", "").value().size(), 0u);
  EXPECT_EQ(ParseFlinkMap("k", "queue").status().message(),
            "k: map entry \"queue\" has no \":\" (expected key:value,key:value)");
  EXPECT_EQ(ParseFlinkMap("k", "a:1,a:2").status().message(),
            "k: map key \"a\" is given twice");
  EXPECT_EQ(ParseFlinkMap("k", ":1").status().message(),
            "k: map entry \":1\" has an empty key");
  EXPECT_FALSE(ParseFlinkMap("k", "a:'1").ok());
}

}  // namespace
}  // namespace trimtab
