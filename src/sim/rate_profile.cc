#include "sim/rate_profile.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/parse_util.h"
#include "sim/rng.h"

namespace trimtab::sim {

namespace {

constexpr double kTwoPi = 6.283185307179586;
constexpr double kPi = 3.141592653589793;

// cos(x) from arithmetic alone (range reduction plus a degree-14 Taylor polynomial on
// [0, pi/2], error below 1e-10): faster than libm and identical on every platform, so daily
// curves reproduce bit for bit everywhere.
double PortableCos(double x) {
  const double turns = x * (1.0 / kTwoPi);
  const double nearest = static_cast<double>(static_cast<int64_t>(turns + (turns >= 0 ? 0.5 : -0.5)));
  x = std::fabs(x - kTwoPi * nearest);  // [0, pi]
  double sign = 1.0;
  if (x > kPi / 2) {
    x = kPi - x;
    sign = -1.0;
  }
  const double x2 = x * x;
  double r = -1.0 / 87178291200.0;  // -1/14!
  r = r * x2 + 1.0 / 479001600.0;
  r = r * x2 - 1.0 / 3628800.0;
  r = r * x2 + 1.0 / 40320.0;
  r = r * x2 - 1.0 / 720.0;
  r = r * x2 + 1.0 / 24.0;
  r = r * x2 - 0.5;
  r = r * x2 + 1.0;
  return sign * r;
}

class Constant final : public RateProfile {
 public:
  explicit Constant(double rate) : rate_(rate) {}
  double Rate(double) const override { return rate_; }
  void Rates(const double*, size_t n, double* out) const override {
    std::fill(out, out + n, rate_);
  }

 private:
  double rate_;
};

class Steps final : public RateProfile {
 public:
  Steps(double initial, std::vector<std::pair<double, double>> steps)
      : initial_(initial), steps_(std::move(steps)) {}
  double Rate(double t) const override {
    double rate = initial_;
    for (const auto& [at, r] : steps_) {
      if (t < at) break;
      rate = r;
    }
    return rate;
  }
  void ChangePoints(double horizon, std::vector<double>* out) const override {
    for (const auto& s : steps_) {
      if (s.first <= horizon) out->push_back(s.first);
    }
  }

 private:
  double initial_;
  std::vector<std::pair<double, double>> steps_;  // ascending by time
};

class Ramp final : public RateProfile {
 public:
  Ramp(double from, double to, double start, double duration)
      : from_(from), to_(to), start_(start), duration_(duration) {}
  double Rate(double t) const override {
    if (t <= start_) return from_;
    if (duration_ <= 0 || t >= start_ + duration_) return to_;
    return from_ + (to_ - from_) * (t - start_) / duration_;
  }
  // A ramp changes the rate gradually, so it has no change point unless it takes no time (a
  // jump). Counting its start as one made a 12-hour ramp look like a step that took 4 rescales.
  void ChangePoints(double horizon, std::vector<double>* out) const override {
    if (duration_ <= 0 && from_ != to_ && start_ <= horizon) out->push_back(start_);
  }

 private:
  double from_, to_, start_, duration_;
};

class Daily final : public RateProfile {
 public:
  Daily(double trough, double peak, double period, double peak_at)
      : trough_(trough), half_swing_(0.5 * (peak - trough)), omega_(kTwoPi / period), peak_at_(peak_at) {}
  double Rate(double t) const override { return At(t); }
  void Rates(const double* t, size_t n, double* out) const override {
    for (size_t i = 0; i < n; ++i) out[i] = At(t[i]);
  }

 private:
  double At(double t) const {
    return trough_ + half_swing_ * (1.0 + PortableCos(omega_ * (t - peak_at_)));
  }

  double trough_, half_swing_, omega_, peak_at_;
};

class Spike final : public RateProfile {
 public:
  Spike(double base, double peak, double at, double duration)
      : base_(base), peak_(peak), at_(at), duration_(duration) {}
  double Rate(double t) const override { return t >= at_ && t < at_ + duration_ ? peak_ : base_; }
  void ChangePoints(double horizon, std::vector<double>* out) const override {
    if (at_ <= horizon) out->push_back(at_);
    if (at_ + duration_ <= horizon) out->push_back(at_ + duration_);
  }

 private:
  double base_, peak_, at_, duration_;
};

class OnOff final : public RateProfile {
 public:
  OnOff(double rate, double off_rate, double on, double off, double start)
      : rate_(rate), off_rate_(off_rate), on_(on), off_(off), start_(start) {}
  double Rate(double t) const override {
    if (t < start_) return off_rate_;
    const double phase = std::fmod(t - start_, on_ + off_);
    return phase < on_ ? rate_ : off_rate_;
  }
  void ChangePoints(double horizon, std::vector<double>* out) const override {
    for (double t = start_; t <= horizon; t += on_ + off_) {
      if (t > 0) out->push_back(t);
      if (t + on_ <= horizon) out->push_back(t + on_);
    }
  }

 private:
  double rate_, off_rate_, on_, off_, start_;
};

class Piecewise final : public RateProfile {
 public:
  Piecewise(std::vector<std::pair<double, double>> points, bool linear, double loop_period)
      : points_(std::move(points)), linear_(linear), loop_period_(loop_period) {}
  double Rate(double t) const override {
    if (loop_period_ > 0 && t > points_.front().first) {
      t = points_.front().first + std::fmod(t - points_.front().first, loop_period_);
    }
    if (t <= points_.front().first) return points_.front().second;
    if (t >= points_.back().first) return points_.back().second;
    auto it = std::upper_bound(points_.begin(), points_.end(), t,
                               [](double x, const std::pair<double, double>& p) { return x < p.first; });
    const auto& hi = *it;
    const auto& lo = *(it - 1);
    if (!linear_ || hi.first == lo.first) return lo.second;
    return lo.second + (hi.second - lo.second) * (t - lo.first) / (hi.first - lo.first);
  }
  void ChangePoints(double horizon, std::vector<double>* out) const override {
    if (linear_) return;  // linear traces have no abrupt changes
    const double period = loop_period_ > 0 ? loop_period_ : horizon + 1;
    for (double base = 0; base <= horizon; base += period) {
      for (size_t i = 1; i < points_.size(); ++i) {
        const double t = base + points_[i].first;
        if (t <= horizon && points_[i].second != points_[i - 1].second) out->push_back(t);
      }
      if (loop_period_ <= 0) break;
    }
  }

 private:
  std::vector<std::pair<double, double>> points_;  // ascending by time
  bool linear_;
  double loop_period_;  // > 0: repeat the trace with this period
};

class Noise final : public RateProfile {
 public:
  Noise(std::unique_ptr<RateProfile> of, double stddev, double interval, uint64_t seed)
      : of_(std::move(of)), stddev_(stddev), per_second_(1.0 / interval), seed_(seed) {}
  double Rate(double t) const override { return std::max(0.0, of_->Rate(t) * Factor(Bucket(t))); }
  // Times in a batch are usually ascending steps, several per interval: one draw per bucket.
  void Rates(const double* t, size_t n, double* out) const override {
    of_->Rates(t, n, out);
    uint64_t bucket = 0;
    double factor = 0;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t b = Bucket(t[i]);
      if (i == 0 || b != bucket) {
        bucket = b;
        factor = Factor(b);
      }
      out[i] = std::max(0.0, out[i] * factor);
    }
  }
  void ChangePoints(double horizon, std::vector<double>* out) const override {
    of_->ChangePoints(horizon, out);
  }

 private:
  uint64_t Bucket(double t) const {
    const double b = t * per_second_;
    return b > 0 ? static_cast<uint64_t>(b) : 0;
  }
  // What the bucket's draw multiplies the rate by.
  double Factor(uint64_t bucket) const {
    return 1.0 + stddev_ * ApproxGaussianFromBits(HashPair(seed_, bucket));
  }

  std::unique_ptr<RateProfile> of_;
  double stddev_;
  double per_second_;  // 1 / interval
  uint64_t seed_;
};

enum class Combine { kSum, kProduct, kMax };

class Combined final : public RateProfile {
 public:
  Combined(Combine op, std::vector<std::unique_ptr<RateProfile>> parts)
      : op_(op), parts_(std::move(parts)) {}
  double Rate(double t) const override {
    double acc = op_ == Combine::kProduct ? 1.0 : 0.0;
    for (const auto& p : parts_) acc = Apply(acc, p->Rate(t));
    return std::max(0.0, acc);
  }
  // Part by part over chunks of the batch, each time combined in the order Rate() uses.
  void Rates(const double* t, size_t n, double* out) const override {
    constexpr size_t kChunk = 64;
    double part[kChunk];
    for (size_t begin = 0; begin < n; begin += kChunk) {
      const size_t m = std::min(kChunk, n - begin);
      double* acc = out + begin;
      std::fill(acc, acc + m, op_ == Combine::kProduct ? 1.0 : 0.0);
      for (const auto& p : parts_) {
        p->Rates(t + begin, m, part);
        for (size_t i = 0; i < m; ++i) acc[i] = Apply(acc[i], part[i]);
      }
      for (size_t i = 0; i < m; ++i) acc[i] = std::max(0.0, acc[i]);
    }
  }
  void ChangePoints(double horizon, std::vector<double>* out) const override {
    for (const auto& p : parts_) p->ChangePoints(horizon, out);
  }

 private:
  double Apply(double acc, double r) const {
    return op_ == Combine::kSum ? acc + r : op_ == Combine::kProduct ? acc * r : std::max(acc, r);
  }

  Combine op_;
  std::vector<std::unique_ptr<RateProfile>> parts_;
};

}  // namespace

void RateProfile::Rates(const double* t, size_t n, double* out) const {
  for (size_t i = 0; i < n; ++i) out[i] = Rate(t[i]);
}

namespace {

// ---- Parsing -----------------------------------------------------------------------------------

struct ParseState {
  const ProfileParseOptions& options;
  uint64_t noise_counter = 0;  // distinct default seeds for several noise profiles
};

StatusOr<std::unique_ptr<RateProfile>> Parse(const Json& json, const std::string& path, ParseState& st);

Status ReadRate(JsonReader& r, std::string_view field, double* out, bool required) {
  if (required) {
    TRIMTAB_RETURN_IF_ERROR(r.RequiredDouble(field, out));
  } else {
    TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble(field, out));
  }
  return CheckNonNegative(r.FieldPath(field), *out);
}

StatusOr<std::vector<std::pair<double, double>>> ParsePoints(const Json& json, const std::string& path) {
  if (!json.is_array() || json.empty()) return InvalidArgumentError(path + ": expected a non-empty list");
  std::vector<std::pair<double, double>> points;
  for (size_t i = 0; i < json.size(); ++i) {
    const std::string p = JoinPath(path, i);
    const Json& item = json[i];
    double t = 0, rate = 0;
    std::string rate_path;  // where the rate was written, for its error
    if (item.is_array()) {
      if (item.size() != 2) return InvalidArgumentError(p + ": expected [time, rate]");
      TRIMTAB_ASSIGN_OR_RETURN(t, ParseSecondsValue(item[0], JoinPath(p, 0)));
      rate_path = JoinPath(p, 1);
      if (!item[1].is_number()) return InvalidArgumentError(rate_path + ": expected a number");
      rate = item[1].get<double>();
    } else {
      JsonReader r(item, p);
      TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
      TRIMTAB_RETURN_IF_ERROR(RequiredSeconds(r, "at", &t));
      TRIMTAB_RETURN_IF_ERROR(r.RequiredDouble("rate", &rate));
      TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
      rate_path = r.FieldPath("rate");
    }
    TRIMTAB_RETURN_IF_ERROR(CheckNonNegative(rate_path, rate));
    if (!points.empty() && t < points.back().first) {
      return InvalidArgumentError(p + ": times must be ascending");
    }
    points.emplace_back(t, rate);
  }
  return points;
}

StatusOr<std::vector<std::pair<double, double>>> ParseCsv(const std::string& text, const std::string& path) {
  std::vector<std::pair<double, double>> points;
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const size_t comma = line.find(',');
    const std::string where = path + ": line " + std::to_string(line_no);
    if (comma == std::string::npos) return InvalidArgumentError(where + ": expected \"time,rate\"");
    char* end = nullptr;
    const std::string a = line.substr(0, comma), b = line.substr(comma + 1);
    const double t = std::strtod(a.c_str(), &end);
    const bool t_ok = end != a.c_str() && *end == '\0';
    const double rate = std::strtod(b.c_str(), &end);
    const bool r_ok = end != b.c_str() && (*end == '\0' || *end == ',');
    if (!t_ok || !r_ok) {
      if (points.empty() && line_no == 1) continue;  // a header line
      return InvalidArgumentError(where + ": expected two numbers, got \"" + line + "\"");
    }
    if (rate < 0) return InvalidArgumentError(where + ": rate must not be negative");
    if (!points.empty() && t < points.back().first) return InvalidArgumentError(where + ": times must be ascending");
    points.emplace_back(t, rate);
  }
  if (points.empty()) return InvalidArgumentError(path + ": no data rows");
  return points;
}

StatusOr<std::vector<std::unique_ptr<RateProfile>>> ParseList(JsonReader& r, ParseState& st) {
  const Json* of = r.Get("of");
  const std::string path = r.FieldPath("of");
  if (!of || !of->is_array() || of->empty()) return InvalidArgumentError(path + ": expected a non-empty list of profiles");
  std::vector<std::unique_ptr<RateProfile>> parts;
  for (size_t i = 0; i < of->size(); ++i) {
    TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<RateProfile> p, Parse((*of)[i], JoinPath(path, i), st));
    parts.push_back(std::move(p));
  }
  return parts;
}

StatusOr<std::unique_ptr<RateProfile>> Parse(const Json& json, const std::string& path, ParseState& st) {
  if (json.is_number()) {
    const double rate = json.get<double>();
    TRIMTAB_RETURN_IF_ERROR(CheckNonNegative(path, rate));
    return std::unique_ptr<RateProfile>(new Constant(rate));
  }
  JsonReader r(json, path);
  TRIMTAB_RETURN_IF_ERROR(r.ExpectObject());
  std::string type;
  TRIMTAB_RETURN_IF_ERROR(r.RequiredString("type", &type));
  std::unique_ptr<RateProfile> out;
  if (type == "constant") {
    double rate = 0;
    TRIMTAB_RETURN_IF_ERROR(ReadRate(r, "rate", &rate, true));
    out = std::make_unique<Constant>(rate);
  } else if (type == "step") {
    double rate = 0;
    TRIMTAB_RETURN_IF_ERROR(ReadRate(r, "rate", &rate, true));
    const Json* steps = r.Get("steps");
    if (!steps) return InvalidArgumentError(r.FieldPath("steps") + ": required field is missing");
    TRIMTAB_ASSIGN_OR_RETURN(auto points, ParsePoints(*steps, r.FieldPath("steps")));
    out = std::make_unique<Steps>(rate, std::move(points));
  } else if (type == "ramp") {
    double from = 0, to = 0, start = 0, duration = 0;
    TRIMTAB_RETURN_IF_ERROR(ReadRate(r, "from", &from, true));
    TRIMTAB_RETURN_IF_ERROR(ReadRate(r, "to", &to, true));
    TRIMTAB_RETURN_IF_ERROR(OptionalSeconds(r, "start", &start));
    TRIMTAB_RETURN_IF_ERROR(RequiredSeconds(r, "duration", &duration));
    TRIMTAB_RETURN_IF_ERROR(CheckNonNegative(r.FieldPath("start"), start));
    TRIMTAB_RETURN_IF_ERROR(CheckNonNegative(r.FieldPath("duration"), duration));
    out = std::make_unique<Ramp>(from, to, start, duration);
  } else if (type == "daily") {
    double trough = 0, peak = 0, period = 86400;
    TRIMTAB_RETURN_IF_ERROR(ReadRate(r, "trough", &trough, true));
    TRIMTAB_RETURN_IF_ERROR(ReadRate(r, "peak", &peak, true));
    TRIMTAB_RETURN_IF_ERROR(OptionalSeconds(r, "period", &period));
    TRIMTAB_RETURN_IF_ERROR(CheckPositive(r.FieldPath("period"), period));
    double peak_at = period / 2;
    TRIMTAB_RETURN_IF_ERROR(OptionalSeconds(r, "peakAt", &peak_at));
    if (peak < trough) return InvalidArgumentError(r.FieldPath("peak") + ": must not be below trough");
    out = std::make_unique<Daily>(trough, peak, period, peak_at);
  } else if (type == "spike") {
    double base = 0, peak = 0, at = 0, duration = 0;
    TRIMTAB_RETURN_IF_ERROR(ReadRate(r, "base", &base, true));
    TRIMTAB_RETURN_IF_ERROR(ReadRate(r, "peak", &peak, true));
    TRIMTAB_RETURN_IF_ERROR(RequiredSeconds(r, "at", &at));
    TRIMTAB_RETURN_IF_ERROR(RequiredSeconds(r, "duration", &duration));
    TRIMTAB_RETURN_IF_ERROR(CheckNonNegative(r.FieldPath("at"), at));
    TRIMTAB_RETURN_IF_ERROR(CheckPositive(r.FieldPath("duration"), duration));
    out = std::make_unique<Spike>(base, peak, at, duration);
  } else if (type == "onoff") {
    double rate = 0, off_rate = 0, on = 0, off = 0, start = 0;
    TRIMTAB_RETURN_IF_ERROR(ReadRate(r, "rate", &rate, true));
    TRIMTAB_RETURN_IF_ERROR(ReadRate(r, "offRate", &off_rate, false));
    TRIMTAB_RETURN_IF_ERROR(RequiredSeconds(r, "on", &on));
    TRIMTAB_RETURN_IF_ERROR(RequiredSeconds(r, "off", &off));
    TRIMTAB_RETURN_IF_ERROR(OptionalSeconds(r, "start", &start));
    TRIMTAB_RETURN_IF_ERROR(CheckPositive(r.FieldPath("on"), on));
    TRIMTAB_RETURN_IF_ERROR(CheckPositive(r.FieldPath("off"), off));
    TRIMTAB_RETURN_IF_ERROR(CheckNonNegative(r.FieldPath("start"), start));
    out = std::make_unique<OnOff>(rate, off_rate, on, off, start);
  } else if (type == "piecewise") {
    const Json* points = r.Get("points");
    if (!points) return InvalidArgumentError(r.FieldPath("points") + ": required field is missing");
    TRIMTAB_ASSIGN_OR_RETURN(auto pts, ParsePoints(*points, r.FieldPath("points")));
    out = std::make_unique<Piecewise>(std::move(pts), true, 0.0);
  } else if (type == "csv") {
    std::string file, data, interpolate = "linear";
    bool loop = false;
    TRIMTAB_RETURN_IF_ERROR(r.OptionalString("file", &file));
    TRIMTAB_RETURN_IF_ERROR(r.OptionalString("data", &data));
    TRIMTAB_RETURN_IF_ERROR(r.OptionalEnum("interpolate", {"linear", "step"}, &interpolate));
    TRIMTAB_RETURN_IF_ERROR(r.OptionalBool("loop", &loop));
    if (file.empty() == data.empty()) {
      return InvalidArgumentError(path + ": exactly one of \"file\" and \"data\" is required");
    }
    std::string text = data;
    std::string where = r.FieldPath("data");
    if (!file.empty()) {
      const std::string full = file[0] == '/' ? file : st.options.base_dir + "/" + file;
      StatusOr<std::string> read = ReadFile(full);
      if (!read.ok()) return InvalidArgumentError(r.FieldPath("file") + ": " + read.status().message());
      text = std::move(read).value();
      where = r.FieldPath("file") + " (" + file + ")";
    }
    TRIMTAB_ASSIGN_OR_RETURN(auto pts, ParseCsv(text, where));
    const double period = loop ? pts.back().first - pts.front().first : 0.0;
    if (loop && period <= 0) return InvalidArgumentError(r.FieldPath("loop") + ": the trace spans no time");
    out = std::make_unique<Piecewise>(std::move(pts), interpolate == "linear", period);
  } else if (type == "noise") {
    double stddev = 0.1, interval = 1;
    TRIMTAB_RETURN_IF_ERROR(r.OptionalDouble("stddev", &stddev));
    TRIMTAB_RETURN_IF_ERROR(CheckRange(r.FieldPath("stddev"), stddev, 0, 10));
    TRIMTAB_RETURN_IF_ERROR(OptionalSeconds(r, "interval", &interval));
    TRIMTAB_RETURN_IF_ERROR(CheckPositive(r.FieldPath("interval"), interval));
    int64_t seed = 0;
    const bool has_seed = r.Has("seed");
    TRIMTAB_RETURN_IF_ERROR(r.OptionalInt("seed", &seed));
    const Json* of = r.Get("of");
    if (!of) return InvalidArgumentError(r.FieldPath("of") + ": required field is missing");
    const uint64_t s = has_seed ? static_cast<uint64_t>(seed) : HashPair(st.options.seed, st.noise_counter++);
    TRIMTAB_ASSIGN_OR_RETURN(std::unique_ptr<RateProfile> inner, Parse(*of, r.FieldPath("of"), st));
    out = std::make_unique<Noise>(std::move(inner), stddev, interval, s);
  } else if (type == "sum" || type == "product" || type == "max") {
    TRIMTAB_ASSIGN_OR_RETURN(auto parts, ParseList(r, st));
    const Combine op = type == "sum" ? Combine::kSum : type == "product" ? Combine::kProduct : Combine::kMax;
    out = std::make_unique<Combined>(op, std::move(parts));
  } else {
    return InvalidArgumentError(r.FieldPath("type") + ": Unsupported value: \"" + type +
                                "\": supported values: constant, step, ramp, daily, spike, onoff, "
                                "piecewise, csv, noise, sum, product, max");
  }
  TRIMTAB_RETURN_IF_ERROR(r.NoUnknownFields());
  return out;
}

}  // namespace

StatusOr<std::unique_ptr<RateProfile>> ParseRateProfile(const Json& json, const std::string& path,
                                                        const ProfileParseOptions& options) {
  ParseState st{options};
  return Parse(json, path, st);
}

std::vector<double> SortedChangePoints(const RateProfile& profile, double horizon) {
  std::vector<double> points;
  profile.ChangePoints(horizon, &points);
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  return points;
}

std::unique_ptr<RateProfile> ConstantProfile(double rate) { return std::make_unique<Constant>(rate); }

std::unique_ptr<RateProfile> PiecewiseLinearProfile(std::vector<std::pair<double, double>> points) {
  return std::make_unique<Piecewise>(std::move(points), true, 0.0);
}

}  // namespace trimtab::sim
