// RenderSeriesCsv (declared in sim/report_html.h, beside the traces it writes).
#include <string>
#include <string_view>
#include <vector>

#include "common/number_format.h"
#include "sim/report_html.h"

namespace trimtab::sim {

namespace {

// One CSV field: as it is, or quoted (with quotes doubled) when it holds a comma, a quote or a
// line break.
void AppendField(std::string& out, std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += text;
    return;
  }
  out += '"';
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

void AppendNumber(std::string& out, double v) { out += FormatGeneral(v, 6); }

}  // namespace

std::string RenderSeriesCsv(const std::vector<PolicyTrace>& traces,
                            const std::vector<VertexId>& vertices) {
  std::string out =
      "policy,seconds,inputRate,capacity,lagSeconds,slots,downSeconds,inRestartWindow,"
      "sloViolationOutsideRestartsSeconds";
  for (const VertexId& id : vertices) {
    out += ',';
    AppendField(out, "parallelism:" + id);
  }
  out += '\n';
  for (const PolicyTrace& trace : traces) {
    for (const TracePoint& p : trace.points) {
      AppendField(out, trace.policy);
      out += ',';
      AppendNumber(out, p.time_seconds);
      out += ',';
      AppendNumber(out, p.input_rate);
      out += ',';
      if (p.capacity > 0) AppendNumber(out, p.capacity);
      out += ',';
      AppendNumber(out, p.lag_seconds);
      out += ',';
      out += std::to_string(p.slots);
      out += ',';
      AppendNumber(out, p.down_seconds);
      out += p.in_restart_window ? ",1," : ",0,";
      AppendNumber(out, p.violation_outside_restarts_seconds);
      for (const VertexId& id : vertices) {
        out += ',';
        if (auto it = p.parallelism.find(id); it != p.parallelism.end()) {
          out += std::to_string(it->second);
        }
      }
      out += '\n';
    }
  }
  return out;
}

}  // namespace trimtab::sim
