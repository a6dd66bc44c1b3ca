#include "sim/rate_profile.h"

#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trimtab::sim {
namespace {

std::unique_ptr<RateProfile> P(const std::string& yaml, uint64_t seed = 1) {
  StatusOr<Json> json = ParseYaml(yaml, "test");
  EXPECT_TRUE(json.ok()) << json.status().ToString();
  StatusOr<std::unique_ptr<RateProfile>> p = ParseRateProfile(*json, "workload.src", {.seed = seed});
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return p.ok() ? std::move(p).value() : ConstantProfile(-1);
}

std::string Error(const std::string& yaml) {
  StatusOr<Json> json = ParseYaml(yaml, "test");
  EXPECT_TRUE(json.ok());
  StatusOr<std::unique_ptr<RateProfile>> p = ParseRateProfile(*json, "workload.src");
  EXPECT_FALSE(p.ok());
  return p.ok() ? "" : p.status().message();
}

TEST(RateProfile, ConstantAndBareNumber) {
  EXPECT_EQ(P("{type: constant, rate: 5000}")->Rate(123), 5000);
  EXPECT_EQ(P("7000")->Rate(0), 7000);
}

TEST(RateProfile, StepAtTheGivenTimes) {
  auto p = P("{type: step, rate: 100, steps: [{at: 10 s, rate: 300}, {at: 1 min, rate: 50}]}");
  EXPECT_EQ(p->Rate(0), 100);
  EXPECT_EQ(p->Rate(9.999), 100);
  EXPECT_EQ(p->Rate(10), 300);
  EXPECT_EQ(p->Rate(59), 300);
  EXPECT_EQ(p->Rate(60), 50);
  EXPECT_EQ(SortedChangePoints(*p, 1000), (std::vector<double>{10, 60}));
  EXPECT_EQ(SortedChangePoints(*p, 30), (std::vector<double>{10}));
}

TEST(RateProfile, RampIsLinear) {
  auto p = P("{type: ramp, from: 1000, to: 3000, start: 100, duration: 200}");
  EXPECT_EQ(p->Rate(50), 1000);
  EXPECT_EQ(p->Rate(200), 2000);
  EXPECT_EQ(p->Rate(300), 3000);
  EXPECT_EQ(p->Rate(1e6), 3000);
  // Gradual: no abrupt change to converge after. A ramp that takes no time is a jump.
  EXPECT_TRUE(SortedChangePoints(*p, 1000).empty());
  auto jump = P("{type: ramp, from: 1000, to: 3000, start: 100, duration: 0}");
  EXPECT_EQ(jump->Rate(100), 1000);
  EXPECT_EQ(jump->Rate(100.5), 3000);
  EXPECT_EQ(SortedChangePoints(*jump, 1000), (std::vector<double>{100}));
}

TEST(RateProfile, DailyCurvePeaksAndTroughs) {
  auto p = P("{type: daily, trough: 2000, peak: 10000, period: 1 d, peakAt: 14h}");
  EXPECT_NEAR(p->Rate(14 * 3600), 10000, 1e-9);
  EXPECT_NEAR(p->Rate(2 * 3600), 2000, 1e-9);              // 12 h away from the peak
  EXPECT_NEAR(p->Rate(8 * 3600), 6000, 1e-6);              // quarter period: midway
  EXPECT_NEAR(p->Rate(14 * 3600 + 86400), 10000, 1e-9);    // periodic
  EXPECT_TRUE(SortedChangePoints(*p, 86400).empty());
}

TEST(RateProfile, SpikeOnOffPiecewise) {
  auto spike = P("{type: spike, base: 10, peak: 100, at: 60, duration: 30}");
  EXPECT_EQ(spike->Rate(59), 10);
  EXPECT_EQ(spike->Rate(60), 100);
  EXPECT_EQ(spike->Rate(90), 10);
  EXPECT_EQ(SortedChangePoints(*spike, 1000), (std::vector<double>{60, 90}));

  auto onoff = P("{type: onoff, rate: 50, offRate: 5, on: 10, off: 20}");
  EXPECT_EQ(onoff->Rate(0), 50);
  EXPECT_EQ(onoff->Rate(10), 5);
  EXPECT_EQ(onoff->Rate(29.9), 5);
  EXPECT_EQ(onoff->Rate(30), 50);
  EXPECT_EQ(SortedChangePoints(*onoff, 60), (std::vector<double>{10, 30, 40, 60}));

  auto pw = P("{type: piecewise, points: [[0, 100], [100, 300], [200, 300], [300, 0]]}");
  EXPECT_EQ(pw->Rate(50), 200);
  EXPECT_EQ(pw->Rate(150), 300);
  EXPECT_EQ(pw->Rate(250), 150);
  EXPECT_EQ(pw->Rate(400), 0);
}

TEST(RateProfile, CsvReplayInlineAndFile) {
  auto linear = P("{type: csv, data: \"time,rate\\n0,10\\n10,30\\n\"}");
  EXPECT_EQ(linear->Rate(5), 20);
  auto step = P("{type: csv, data: \"0,10\\n10,30\\n20,0\\n\", interpolate: step, loop: true}");
  EXPECT_EQ(step->Rate(5), 10);
  EXPECT_EQ(step->Rate(15), 30);
  EXPECT_EQ(step->Rate(25), 10);  // looped with period 20
  EXPECT_EQ(step->Rate(35), 30);

  const std::string dir = ::testing::TempDir();
  std::ofstream(dir + "/trace.csv") << "# recorded\n0,100\n60,700\n";
  StatusOr<Json> json = ParseYaml("{type: csv, file: trace.csv}", "t");
  ASSERT_TRUE(json.ok());
  auto p = ParseRateProfile(*json, "w", {.base_dir = dir});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ((*p)->Rate(30), 400);
}

TEST(RateProfile, ComposeSumProductMax) {
  auto sum = P("{type: sum, of: [100, {type: spike, base: 0, peak: 50, at: 10, duration: 10}]}");
  EXPECT_EQ(sum->Rate(0), 100);
  EXPECT_EQ(sum->Rate(15), 150);
  EXPECT_EQ(SortedChangePoints(*sum, 100), (std::vector<double>{10, 20}));
  auto product = P("{type: product, of: [{type: ramp, from: 0, to: 1, duration: 100}, 1000]}");
  EXPECT_EQ(product->Rate(25), 250);
  auto max = P("{type: max, of: [300, {type: ramp, from: 0, to: 1000, duration: 100}]}");
  EXPECT_EQ(max->Rate(10), 300);
  EXPECT_EQ(max->Rate(50), 500);
}

TEST(RateProfile, NoiseIsSeededAndOrderIndependent) {
  const std::string yaml = "{type: noise, stddev: 0.1, interval: 10, of: 1000}";
  auto a = P(yaml, 42);
  auto b = P(yaml, 42);
  auto c = P(yaml, 43);
  std::vector<double> forward, backward;
  for (int t = 0; t < 1000; t += 7) forward.push_back(a->Rate(t));
  for (int t = 0; t < 1000; t += 7) backward.push_back(b->Rate(t));
  EXPECT_EQ(forward, backward);
  EXPECT_EQ(a->Rate(3), a->Rate(9));   // same 10-s bucket
  EXPECT_NE(a->Rate(3), c->Rate(3));   // another seed
  double sum = 0, sq = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const double r = a->Rate(10.0 * i);
    sum += r;
    sq += r * r;
  }
  const double mean = sum / n;
  EXPECT_NEAR(mean, 1000, 3);
  EXPECT_NEAR(std::sqrt(sq / n - mean * mean), 100, 3);
  EXPECT_EQ(P("{type: noise, seed: 5, of: 1000}")->Rate(1), P("{type: noise, seed: 5, of: 1000}", 99)->Rate(1));
}

// The simulator reads the workload through Rates(); it must give Rate()'s values exactly, for
// ascending step times (longer than Combined's 64-time chunks) and for times in any order.
TEST(RateProfile, BatchRatesEqualRateBitForBit) {
  std::vector<double> times;
  for (int k = 0; k < 1000; ++k) times.push_back(5.0 * k);
  for (double t : {7.5, 3.0, 86400.0, 0.0, 1e-3, 29.999, 30.0, 12345.6}) times.push_back(t);
  for (const char* yaml : {
           "7000",
           "{type: step, rate: 100, steps: [{at: 10 s, rate: 300}, {at: 1 h, rate: 50}]}",
           "{type: ramp, from: 1000, to: 3000, start: 100, duration: 2000}",
           "{type: daily, trough: 2000, peak: 10000, period: 1 h, peakAt: 10 min}",
           "{type: spike, base: 10, peak: 100, at: 60, duration: 30}",
           "{type: onoff, rate: 50, offRate: 5, on: 10, off: 20}",
           "{type: csv, data: \"0,10\\n10,30\\n20,0\\n\", interpolate: step, loop: true}",
           "{type: noise, stddev: 0.3, interval: 30 s, of: {type: daily, trough: 1, peak: 9, "
           "period: 2 h}}",
           "{type: noise, stddev: 2, interval: 7, of: 1000}",  // clipped at zero
           "{type: sum, of: [100, {type: noise, interval: 1 min, of: 50}, {type: spike, base: 0, "
           "peak: 50, at: 10, duration: 10}]}",
           "{type: product, of: [{type: ramp, from: 0, to: 1, duration: 100}, {type: daily, "
           "trough: 0, peak: 1000, period: 10 min}]}",
           "{type: max, of: [300, {type: noise, stddev: 0.5, of: 300}]}",
       }) {
    SCOPED_TRACE(yaml);
    auto p = P(yaml, 7);
    std::vector<double> batch(times.size());
    p->Rates(times.data(), times.size(), batch.data());
    for (size_t i = 0; i < times.size(); ++i) {
      ASSERT_EQ(batch[i], p->Rate(times[i])) << "t=" << times[i];
    }
    // A batch that starts mid-interval.
    p->Rates(times.data() + 3, 10, batch.data());
    for (size_t i = 0; i < 10; ++i) ASSERT_EQ(batch[i], p->Rate(times[i + 3]));
  }
}

TEST(RateProfile, ErrorsNameTheField) {
  EXPECT_EQ(Error("{rate: 5}"), "workload.src.type: required field is missing");
  EXPECT_EQ(Error("{type: constant}"), "workload.src.rate: required field is missing");
  EXPECT_EQ(Error("{type: constant, rate: -1}"), "workload.src.rate: must not be negative");
  EXPECT_EQ(Error("{type: constant, rate: 1, burst: 2}"), "workload.src.burst: unknown field");
  EXPECT_EQ(Error("{type: step, rate: 1, steps: [{at: 5, rate: 2}, {rate: 3}]}"),
            "workload.src.steps[1].at: required field is missing");
  EXPECT_EQ(Error("{type: ramp, from: 1, to: 2, duration: soon}"),
            "workload.src.duration: invalid duration \"soon\" (use seconds or \"30 s\", \"5 min\", "
            "\"2 d\", \"1h30m\")");
  EXPECT_EQ(Error("{type: sum, of: [1, {type: daily, trough: 5, peak: 1}]}"),
            "workload.src.of[1].peak: must not be below trough");
  EXPECT_EQ(Error("{type: noise, of: {type: wave}}"),
            "workload.src.of.type: Unsupported value: \"wave\": supported values: constant, step, "
            "ramp, daily, spike, onoff, piecewise, csv, noise, sum, product, max");
  EXPECT_EQ(Error("{type: csv, data: \"0,1\\n5,x\\n\"}"),
            "workload.src.data: line 2: expected two numbers, got \"5,x\"");
  EXPECT_EQ(Error("{type: piecewise, points: [[10, 1], [5, 2]]}"),
            "workload.src.points[1]: times must be ascending");
  EXPECT_EQ(Error("{type: step, rate: 1, steps: [{at: 5, rate: -2}]}"),
            "workload.src.steps[0].rate: must not be negative");
  EXPECT_EQ(Error("{type: piecewise, points: [[0, 1], [5, -2]]}"),
            "workload.src.points[1][1]: must not be negative");
}

}  // namespace
}  // namespace trimtab::sim
