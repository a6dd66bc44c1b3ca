// RealPrometheus: Debian's `prometheus` (installed by scripts/install-deps.sh) started on a free
// loopback port for a test, with the test's configuration and data directory; and Backfill, which
// writes a history into that directory with `promtool tsdb create-blocks-from openmetrics` so a
// test can query the past without waiting for it.
//
// Usage:
//   TRIMTAB_RETURN_IF_ERROR(Backfill(openmetrics_text, dir));   // optional
//   TRIMTAB_ASSIGN_OR_RETURN(auto prometheus, RealPrometheus::Start(config_yaml, dir));
//   ... GET prometheus->url() + "/api/v1/query?query=..." ...
//
// Thread-safety: one owner.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>

#include "common/status.h"

namespace trimtab::testing {

class RealPrometheus {
 public:
  // Starts prometheus with `config_yaml` as its configuration and `dir`/data as its storage
  // (retention long enough for any backfilled past), and waits until it is ready. The log is
  // `dir`/prometheus.log. Fails when the binary is missing or it does not get ready in 30 s.
  static StatusOr<std::unique_ptr<RealPrometheus>> Start(const std::string& config_yaml,
                                                         const std::filesystem::path& dir);
  ~RealPrometheus();  // SIGTERM, then waits for it

  const std::string& url() const { return url_; }  // "http://127.0.0.1:<port>"
  std::string log_path() const { return (dir_ / "prometheus.log").string(); }

 private:
  RealPrometheus(std::filesystem::path dir, std::string url, pid_t pid)
      : dir_(std::move(dir)), url_(std::move(url)), pid_(pid) {}

  std::filesystem::path dir_;
  std::string url_;
  pid_t pid_;
};

// Writes `openmetrics` (OpenMetrics text with timestamps, ending in "# EOF") into `dir`/data as
// TSDB blocks.
Status Backfill(const std::string& openmetrics, const std::filesystem::path& dir);

}  // namespace trimtab::testing
