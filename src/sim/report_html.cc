#include "sim/report_html.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

namespace trimtab::sim {

namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
constexpr size_t kMaxPoints = 1200;

const char* Color(size_t i) { return kPalette[i % (sizeof(kPalette) / sizeof(kPalette[0]))]; }

struct Series {
  std::string name;
  std::string color;
  std::vector<std::pair<double, double>> points;  // (seconds, value)
  bool step = false;                              // hold each value until the next point
  bool dashed = false;
};

struct ChartSpec {
  std::string title;
  std::string unit;
  double duration = 0;
  std::vector<Series> series;
  std::vector<double> markers;       // rescale instants
  std::optional<double> threshold;   // horizontal line (the SLO)
  std::string threshold_label;
};

// 1, 2, 5 x 10^k at or above raw.
double NiceStep(double raw) {
  if (!(raw > 0)) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * p >= raw) return m * p;
  }
  return 10 * p;
}

std::string Num(double v) {
  const double a = std::fabs(v);
  if (a >= 1e9) return fmt::format("{:.3g}G", v / 1e9);
  if (a >= 1e6) return fmt::format("{:.3g}M", v / 1e6);
  if (a >= 1e4) return fmt::format("{:.3g}k", v / 1e3);
  if (a == std::floor(a)) return fmt::format("{:.0f}", v);
  return fmt::format("{:.3g}", v);
}

std::string TimeLabel(double seconds, double duration) {
  if (duration > 3 * 86400) return fmt::format("{:.1f} d", seconds / 86400);
  if (duration > 3 * 3600) return fmt::format("{:.1f} h", seconds / 3600);
  return fmt::format("{:.0f} min", seconds / 60);
}

// Keeps at most kMaxPoints: the largest value of each bucket (peaks survive), its first time.
std::vector<std::pair<double, double>> Thin(const std::vector<std::pair<double, double>>& in) {
  if (in.size() <= kMaxPoints) return in;
  std::vector<std::pair<double, double>> out;
  const size_t bucket = (in.size() + kMaxPoints - 1) / kMaxPoints;
  for (size_t i = 0; i < in.size(); i += bucket) {
    std::pair<double, double> p = in[i];
    for (size_t j = i; j < std::min(in.size(), i + bucket); ++j) p.second = std::max(p.second, in[j].second);
    out.push_back(p);
  }
  return out;
}

std::string RenderChart(const ChartSpec& c) {
  constexpr double W = 900, H = 220, L = 64, R = 12, T = 26, B = 28;
  const double pw = W - L - R, ph = H - T - B;
  double ymax = c.threshold.value_or(0);
  for (const Series& s : c.series) {
    for (const auto& [t, v] : s.points) {
      if (std::isfinite(v)) ymax = std::max(ymax, v);
    }
  }
  if (!(ymax > 0)) ymax = 1;
  const double ystep = NiceStep(ymax * 1.05 / 5);
  const double ytop = ystep * std::ceil(ymax * 1.05 / ystep);
  const double dur = c.duration > 0 ? c.duration : 1;
  const auto X = [&](double t) { return L + pw * std::clamp(t / dur, 0.0, 1.0); };
  const auto Y = [&](double v) { return T + ph * (1 - std::clamp(v / ytop, 0.0, 1.0)); };

  std::string svg = fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" "
      "xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"{2}\">\n",
      W, H, HtmlEscape(c.title));
  svg += fmt::format("<text x=\"{}\" y=\"16\" class=\"ct\">{}</text>\n", L, HtmlEscape(c.title));
  // Grid and axes.
  for (double v = 0; v <= ytop + ystep / 2; v += ystep) {
    svg += fmt::format("<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" class=\"grid\"/>"
                       "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"yl\">{}{}</text>\n",
                       L, W - R, Y(v), Y(v), L - 6, Y(v) + 4, Num(v), c.unit);
  }
  const double xstep = NiceStep(dur / 8 / (dur > 3 * 86400 ? 86400 : dur > 3 * 3600 ? 3600 : 60)) *
                       (dur > 3 * 86400 ? 86400 : dur > 3 * 3600 ? 3600 : 60);
  for (double t = 0; t <= dur + 1e-6; t += xstep) {
    svg += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" class=\"grid\"/>"
                       "<text x=\"{0:.1f}\" y=\"{3:.1f}\" class=\"xl\">{4}</text>\n",
                       X(t), T, T + ph, H - 8, TimeLabel(t, dur));
  }
  for (double m : c.markers) {
    svg += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" class=\"mk\">"
                       "<title>rescale at {3}</title></line>\n",
                       X(m), T, T + ph, TimeLabel(m, dur));
  }
  if (c.threshold) {
    svg += fmt::format("<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" class=\"th\"/>"
                       "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tl\">{}</text>\n",
                       L, W - R, Y(*c.threshold), Y(*c.threshold), W - R - 4, Y(*c.threshold) - 4,
                       HtmlEscape(c.threshold_label));
  }
  double legend_x = L + 8 + 7.2 * static_cast<double>(c.title.size()) + 16;
  for (const Series& s : c.series) {
    std::string pts;
    const std::vector<std::pair<double, double>> points = Thin(s.points);
    for (size_t i = 0; i < points.size(); ++i) {
      const double v = std::isfinite(points[i].second) ? points[i].second : 0;
      if (s.step && i > 0) pts += fmt::format("{:.1f},{:.1f} ", X(points[i].first), Y(points[i - 1].second));
      pts += fmt::format("{:.1f},{:.1f} ", X(points[i].first), Y(v));
    }
    if (s.step && !points.empty()) pts += fmt::format("{:.1f},{:.1f}", X(dur), Y(points.back().second));
    svg += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"{} points=\"{}\">"
                       "<title>{}</title></polyline>\n",
                       s.color, s.dashed ? " stroke-dasharray=\"5 3\"" : "", pts, HtmlEscape(s.name));
    svg += fmt::format("<rect x=\"{:.1f}\" y=\"8\" width=\"10\" height=\"10\" fill=\"{}\"/>"
                       "<text x=\"{:.1f}\" y=\"17\" class=\"lg\">{}</text>\n",
                       legend_x, s.color, legend_x + 14, HtmlEscape(s.name));
    legend_x += 24 + 6.5 * static_cast<double>(s.name.size());
  }
  svg += "</svg>\n";
  return svg;
}

std::string Duration(double s) {
  if (s < 120) return fmt::format("{:.0f} s", s);
  if (s < 7200) return fmt::format("{:.1f} min", s / 60);
  if (s < 172800) return fmt::format("{:.1f} h", s / 3600);
  return fmt::format("{:.1f} d", s / 86400);
}

std::string ParallelismText(const std::map<VertexId, int>& p) {
  std::string s;
  for (const auto& [id, n] : p) s += (s.empty() ? "" : ", ") + id + " " + std::to_string(n);
  return s;
}

std::string ComparisonHtml(const SimulationReport& r) {
  std::string h =
      "<table><tr><th>policy</th><th>slot-hours</th><th>&times; oracle</th><th>SLO violation</th>"
      "<th>outside restarts</th><th>max lag</th><th>rescales</th><th>per day</th>"
      "<th>scale-downs undone</th><th>downtime</th><th>steps to converge (max)</th>"
      "<th>longest convergence</th><th>never converged</th></tr>\n";
  for (const PolicyReport& p : r.policies) {
    int steps = 0, never = 0;
    double longest = 0;
    for (const ChangeConvergence& c : p.changes) {
      steps = std::max(steps, c.rescales);
      if (c.seconds_to_converge) longest = std::max(longest, *c.seconds_to_converge); else ++never;
    }
    const bool changes = !p.changes.empty();
    const double days = r.duration_seconds / 86400;
    h += fmt::format(
        "<tr><td>{}</td><td>{:.2f}</td><td>{}</td><td>{} ({:.2f} %)</td><td>{} ({:.2f} %)</td>"
        "<td>{}</td><td>{}</td><td>{:.1f}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        HtmlEscape(p.policy), p.slot_hours,
        p.ratio_to_oracle ? fmt::format("{:.3f}", *p.ratio_to_oracle) : "-",
        Duration(p.slo_violation_seconds),
        r.duration_seconds > 0 ? 100 * p.slo_violation_seconds / r.duration_seconds : 0.0,
        Duration(p.slo_violation_outside_restarts_seconds),
        r.duration_seconds > 0 ? 100 * p.slo_violation_outside_restarts_seconds / r.duration_seconds
                               : 0.0,
        Duration(p.max_lag_seconds), p.rescales, days > 0 ? p.rescales / days : 0.0,
        p.scale_downs > 0 ? fmt::format("{} of {}", p.scale_downs_undone, p.scale_downs) : "-",
        Duration(p.downtime_seconds),
        changes ? std::to_string(steps) : "-", changes ? Duration(longest) : "-",
        changes ? std::to_string(never) : "-");
  }
  return h + "</table>\n";
}

std::string DecisionsHtml(const PolicyReport& p) {
  if (p.decisions.empty()) {
    return p.rescales > 0 ? "<p>Rescales are free for this bound and not listed.</p>\n"
                          : "<p>No rescales.</p>\n";
  }
  std::string h = "<table class=\"dec\"><tr><th>time</th><th>from</th><th>to</th><th>downtime</th>"
                  "<th>reasons (decision log)</th></tr>\n";
  for (const DecisionRecord& d : p.decisions) {
    std::string reasons;
    for (const std::string& line : d.reasons) reasons += HtmlEscape(line) + "<br>";
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"why\">{}</td></tr>\n",
                     Duration(d.time_seconds), HtmlEscape(ParallelismText(d.from)),
                     HtmlEscape(ParallelismText(d.to)), Duration(d.downtime_seconds), reasons);
  }
  h += "</table>\n";
  if (p.decisions_omitted > 0) {
    h += fmt::format("<p>{} later decisions omitted (the report keeps the first 200).</p>\n",
                     p.decisions_omitted);
  }
  return h;
}

// The changes the autoscaler wanted but did not make (HeldChange), the first 50 runs of them.
std::string HeldHtml(const PolicyTrace& t) {
  if (t.held.empty()) return "";
  constexpr size_t kMaxRows = 50;
  std::string h = "<p>Changes the autoscaler wanted but its plugin chain vetoed or a rule "
                  "blocked (consecutive cycles wanting to scale the same way from the same "
                  "parallelism are one row, with the last cycle's proposal and reason):</p>\n"
                  "<table class=\"dec\"><tr><th>from</th><th>until</th><th>cycles</th><th>at</th>"
                  "<th>wanted</th><th>why</th></tr>\n";
  for (size_t i = 0; i < t.held.size() && i < kMaxRows; ++i) {
    const HeldChange& c = t.held[i];
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
                     "<td class=\"why\">{}</td></tr>\n",
                     Duration(c.first_seconds), Duration(c.last_seconds), c.cycles,
                     HtmlEscape(ParallelismText(c.from)), HtmlEscape(ParallelismText(c.wanted)),
                     HtmlEscape(c.why));
  }
  h += "</table>\n";
  if (t.held.size() > kMaxRows) {
    h += fmt::format("<p>{} later runs omitted.</p>\n", t.held.size() - kMaxRows);
  }
  return h;
}

constexpr const char kStyle[] = R"(<style>
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:960px;color:#222}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}
th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}
table.dec td{text-align:left;vertical-align:top}td.why{font-size:12px;font-family:ui-monospace,monospace}
.chart{display:block;margin:6px 0;max-width:100%;height:auto}.ct{font-weight:600;font-size:13px}
.grid{stroke:#eee}.yl{font-size:11px;text-anchor:end;fill:#555}.xl{font-size:11px;text-anchor:middle;fill:#555}
.mk{stroke:#d62728;stroke-opacity:.35;stroke-dasharray:2 2}.th{stroke:#d62728;stroke-dasharray:6 3}
.tl{font-size:11px;fill:#d62728;text-anchor:end}.lg{font-size:12px}dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px}dt{font-weight:600}
</style>
)";

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string RenderHtmlReport(const HtmlReportInput& in) {
  const SimulationReport& r = *in.report;
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>trimtab simulate: " +
                  HtmlEscape(r.scenario) + "</title>\n" + kStyle + "</head><body>\n";
  h += "<h1>trimtab simulate: " + HtmlEscape(r.scenario) + "</h1>\n";
  if (!in.description.empty()) h += "<p>" + HtmlEscape(in.description) + "</p>\n";
  h += fmt::format("<dl><dt>simulated</dt><dd>{} in steps of {:g} s</dd><dt>seed</dt><dd>{}</dd>"
                   "<dt>lag SLO</dt><dd>{:g} s</dd><dt>oracle slot-hours</dt><dd>{:.2f}</dd></dl>\n",
                   Duration(r.duration_seconds), r.step_seconds, r.seed, r.slo_lag_seconds,
                   r.oracle_slot_hours);
  h += "<h2>Comparison</h2>\n" + ComparisonHtml(r);
  h += "<p>Slot-hours: slots in use (the largest vertex parallelism, slot sharing) over time. "
       "&times; oracle: against the lower bound that knows the true demand and rescales for free. "
       "SLO violation: time with lag (the age of the oldest record not yet processed) above the "
       "SLO, restarts included; outside restarts: the part of it outside restart windows (from a "
       "rescale until lag is back under the SLO, at most 5 minutes after the restart ended). "
       "Scale-downs undone: those a scale-up of a vertex they lowered followed within 15 minutes. "
       "Converge: after "
       "each workload change, the rescales until the next change and the time until the last "
       "restart was over and lag stayed under the SLO.</p>\n";

  if (!in.traces.empty()) {
    ChartSpec slots{"Slots in use, every policy", "", r.duration_seconds, {}, {}, std::nullopt, ""};
    for (size_t i = 0; i < in.traces.size(); ++i) {
      Series s{in.traces[i].policy, Color(i), {}, true, in.traces[i].policy == "oracle"};
      for (const TracePoint& p : in.traces[i].points) s.points.emplace_back(p.time_seconds, p.slots);
      slots.series.push_back(std::move(s));
    }
    h += RenderChart(slots);
  }
  for (const PolicyReport& p : r.policies) {
    h += "<h2>" + HtmlEscape(p.policy) + "</h2>\n";
    h += fmt::format("<p>{} rescales, {} downtime, final parallelism: {}.</p>\n", p.rescales,
                     Duration(p.downtime_seconds), HtmlEscape(ParallelismText(p.final_parallelism)));
    const PolicyTrace* trace = nullptr;
    for (const PolicyTrace& t : in.traces) {
      if (t.policy == p.policy) trace = &t;
    }
    if (trace && !trace->points.empty()) {
      std::vector<double> markers;
      for (const DecisionRecord& d : p.decisions) markers.push_back(d.time_seconds);
      ChartSpec rate{"Input rate vs capacity (records/s)", "", r.duration_seconds, {}, markers,
                     std::nullopt, ""};
      Series in_rate{"input", Color(0), {}, false, false};
      Series cap{"capacity at current parallelism", Color(2), {}, true, false};
      for (const TracePoint& tp : trace->points) {
        in_rate.points.emplace_back(tp.time_seconds, tp.input_rate);
        cap.points.emplace_back(tp.time_seconds, tp.capacity);
      }
      rate.series = {std::move(cap), std::move(in_rate)};
      h += RenderChart(rate);
      ChartSpec par{"Parallelism per vertex", "", r.duration_seconds, {}, markers, std::nullopt, ""};
      size_t k = 0;
      for (const auto& [id, n] : trace->points.front().parallelism) {
        Series s{id, Color(k++), {}, true, false};
        for (const TracePoint& tp : trace->points) {
          auto it = tp.parallelism.find(id);
          s.points.emplace_back(tp.time_seconds, it == tp.parallelism.end() ? 0 : it->second);
        }
        par.series.push_back(std::move(s));
      }
      h += RenderChart(par);
      ChartSpec lag{"Lag (age of the oldest unprocessed record)", " s", r.duration_seconds, {}, markers,
                    r.slo_lag_seconds, "SLO"};
      Series ls{"lag", Color(3), {}, false, false};
      for (const TracePoint& tp : trace->points) ls.points.emplace_back(tp.time_seconds, tp.lag_seconds);
      lag.series.push_back(std::move(ls));
      h += RenderChart(lag);
    }
    h += DecisionsHtml(p);
    if (trace) h += HeldHtml(*trace);
  }
  h += "<p>Generated by <code>trimtab simulate</code>. Series are sampled once per decision "
       "interval from the simulated job's ground truth; dashed red lines mark rescales.</p>\n";
  h += "</body></html>\n";
  return h;
}

}  // namespace trimtab::sim
