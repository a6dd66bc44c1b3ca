// apiserver_bench: latency of the local API server at fixed request rates, and durable write
// throughput, each compared with a baseline measured in the same run (raw SQLite inserts into a
// table of the same shape with the same pragmas).
//
//   apiserver_bench [--seconds N]
//
// Latency is measured open-loop: each client thread sends on a fixed schedule and a request's
// latency runs from its scheduled send time, so a stalled server is not hidden by clients that
// wait (no coordinated omission).
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "adapters/http/test_client.h"
#include "cluster/apiserver/apiserver.h"
#include "common/logging.h"

namespace {

using Clock = std::chrono::steady_clock;
using trimtab::Json;
namespace fs = std::filesystem;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

struct Percentiles {
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
  size_t count = 0;
  size_t errors = 0;
};

Percentiles Summarise(std::vector<double> ms, size_t errors) {
  Percentiles p;
  p.count = ms.size();
  p.errors = errors;
  if (ms.empty()) return p;
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) { return ms[std::min(ms.size() - 1, static_cast<size_t>(q * ms.size()))]; };
  p.p50_ms = at(0.50);
  p.p99_ms = at(0.99);
  p.max_ms = ms.back();
  return p;
}

class TempDir {
 public:
  explicit TempDir(const std::string& name) {
    path_ = fs::temp_directory_path() / ("trimtab-bench-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

// Baseline: single-threaded autocommit inserts of `value_bytes` into a kine-shaped table.
double RawSqliteInsertsPerSecond(bool full_sync, double seconds, size_t value_bytes) {
  TempDir dir(full_sync ? "sqlite-full" : "sqlite");
  sqlite3* db = nullptr;
  sqlite3_open((dir.path() + "/raw.db").c_str(), &db);
  sqlite3_exec(db, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
  sqlite3_exec(db, full_sync ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL", nullptr,
               nullptr, nullptr);
  sqlite3_exec(db,
               "CREATE TABLE kv (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, created INT,"
               " deleted INT, create_revision INT, prev_revision INT, value BLOB);"
               "CREATE INDEX kv_name_id ON kv(name, id); CREATE INDEX kv_prev ON kv(prev_revision);",
               nullptr, nullptr, nullptr);
  sqlite3_stmt* insert = nullptr;
  sqlite3_prepare_v2(db,
                     "INSERT INTO kv(name, created, deleted, create_revision, prev_revision, value)"
                     " VALUES(?1, 0, 0, 1, ?2, ?3)",
                     -1, &insert, nullptr);
  std::string value(value_bytes, 'x');
  int64_t n = 0;
  auto start = Clock::now();
  auto end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  while (Clock::now() < end) {
    std::string key = "/registry/core/configmaps/default/cm" + std::to_string(n % 100);
    sqlite3_bind_text(insert, 1, key.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(insert, 2, n);
    sqlite3_bind_blob(insert, 3, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
    sqlite3_step(insert);
    sqlite3_reset(insert);
    ++n;
  }
  double rate = n / Seconds(Clock::now() - start);
  sqlite3_finalize(insert);
  sqlite3_close(db);
  return rate;
}

Json ConfigMap(const std::string& name, int64_t i) {
  return Json{{"apiVersion", "v1"},
              {"kind", "ConfigMap"},
              {"metadata", {{"name", name}, {"labels", {{"app", "bench"}}}}},
              {"data", {{"value", std::string(200, 'v')}, {"i", std::to_string(i)}}}};
}

// Open-loop load: `qps` requests per second spread over `threads` clients for `seconds`.
// `make` builds request i for client t: {method, target, body, content type}.
struct Request {
  std::string method, target, body, content_type;
};
Percentiles RunAtRate(const std::string& url, double qps, int threads, double seconds,
                      const std::function<Request(int, int64_t)>& make) {
  std::mutex mu;
  std::vector<double> all;
  std::atomic<size_t> errors{0};
  std::vector<std::thread> workers;
  auto start = Clock::now() + std::chrono::milliseconds(50);
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      trimtab::http::TestHttpClient client(url);
      client.Get("/version");  // open the connection before the clock starts
      double per_thread = qps / threads;
      auto interval = std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(1.0 / per_thread));
      int64_t total = static_cast<int64_t>(per_thread * seconds);
      std::vector<double> local;
      local.reserve(total);
      auto offset = std::chrono::duration_cast<Clock::duration>(interval * t / threads);
      for (int64_t i = 0; i < total; ++i) {
        auto scheduled = start + offset + interval * i;
        std::this_thread::sleep_until(scheduled);
        Request r = make(t, i);
        std::vector<std::string> headers;
        if (!r.content_type.empty()) headers.push_back("Content-Type: " + r.content_type);
        auto res = client.Request(r.method, r.target, r.body, headers);
        local.push_back(Seconds(Clock::now() - scheduled) * 1000.0);
        if (res.status < 200 || res.status >= 300) ++errors;
      }
      std::lock_guard<std::mutex> lock(mu);
      all.insert(all.end(), local.begin(), local.end());
    });
  }
  for (auto& w : workers) w.join();
  return Summarise(std::move(all), errors);
}

// Closed loop: as many mutations as `threads` clients can push in `seconds`.
double MaxMutationsPerSecond(const std::string& url, int threads, double seconds) {
  std::atomic<int64_t> done{0};
  std::vector<std::thread> workers;
  auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                std::chrono::duration<double>(seconds));
  auto start = Clock::now();
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      trimtab::http::TestHttpClient client(url);
      std::string target = "/api/v1/namespaces/default/configmaps/max" + std::to_string(t);
      client.Request("POST", "/api/v1/namespaces/default/configmaps",
                     ConfigMap("max" + std::to_string(t), 0).dump());
      for (int64_t i = 1; Clock::now() < end; ++i) {
        auto r = client.Request("PATCH", target,
                                R"({"data":{"i":")" + std::to_string(i) + R"("}})",
                                {"Content-Type: application/merge-patch+json"});
        if (r.status == 200) ++done;
      }
    });
  }
  for (auto& w : workers) w.join();
  return done / Seconds(Clock::now() - start);
}

void PrintRow(const char* what, double qps, const Percentiles& p) {
  std::printf("  %-34s %6.0f qps  p50 %7.3f ms  p99 %7.3f ms  max %8.3f ms  n=%zu errors=%zu\n",
              what, qps, p.p50_ms, p.p99_ms, p.max_ms, p.count, p.errors);
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 3.0;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--seconds") == 0) seconds = std::atof(argv[i + 1]);
  }
  trimtab::InitLogging("warn").IgnoreError();
  std::printf("apiserver_bench (%.1f s per point, %u hardware threads)\n", seconds,
              std::thread::hardware_concurrency());

  double raw = RawSqliteInsertsPerSecond(false, seconds, 400);
  double raw_full = RawSqliteInsertsPerSecond(true, seconds, 400);
  std::printf("baseline: raw SQLite inserts (WAL, synchronous=NORMAL): %.0f/s; FULL: %.0f/s\n",
              raw, raw_full);

  // Store-level durable writes (the same disk, the server's store without HTTP).
  for (bool full : {false, true}) {
    TempDir dir(full ? "store-full" : "store");
    auto store = trimtab::cluster::Store::Open(
        {.path = dir.path() + "/state.db", .sync_full = full,
         .compact_interval = std::chrono::milliseconds(0)});
    if (!store.ok()) return 1;
    std::string value(400, 's');
    (*store)->Create("/registry/core/configmaps/default/s", value).status().IgnoreError();
    int64_t n = 0;
    auto start = Clock::now();
    while (Seconds(Clock::now() - start) < seconds) {
      if ((*store)->Update("/registry/core/configmaps/default/s", value, 0).ok()) ++n;
    }
    double rate = n / Seconds(Clock::now() - start);
    std::printf("store updates (synchronous=%s): %.0f/s = %.2fx raw SQLite\n",
                full ? "FULL" : "NORMAL", rate, rate / (full ? raw_full : raw));
  }

  TempDir dir("server");
  auto server = trimtab::cluster::ApiServer::Create({.data_dir = dir.path(), .threads = 4});
  if (!server.ok()) {
    std::fprintf(stderr, "cannot start server: %s\n", server.status().ToString().c_str());
    return 1;
  }
  std::string url = (*server)->url();
  const int kClients = 8;
  {
    trimtab::http::TestHttpClient setup(url);
    for (int t = 0; t < kClients; ++t) {
      for (int k = 0; k < 10; ++k) {
        setup.Request("POST", "/api/v1/namespaces/default/configmaps",
                      ConfigMap("cm-" + std::to_string(t) + "-" + std::to_string(k), 0).dump());
      }
    }
  }
  std::printf("API server over HTTP (%d open-loop clients, keep-alive, durable data dir):\n",
              kClients);
  auto patch = [](int t, int64_t i) {
    return Request{"PATCH",
                   "/api/v1/namespaces/default/configmaps/cm-" + std::to_string(t) + "-" +
                       std::to_string(i % 10),
                   R"({"data":{"i":")" + std::to_string(i) + R"("}})",
                   "application/merge-patch+json"};
  };
  auto create_delete = [](int t, int64_t i) {
    std::string name = "cd-" + std::to_string(t) + "-" + std::to_string(i / 2);
    if (i % 2 == 0) {
      return Request{"POST", "/api/v1/namespaces/default/configmaps", ConfigMap(name, i).dump(),
                     "application/json"};
    }
    return Request{"DELETE", "/api/v1/namespaces/default/configmaps/" + name, "", ""};
  };
  auto get = [](int t, int64_t i) {
    return Request{"GET",
                   "/api/v1/namespaces/default/configmaps/cm-" + std::to_string(t) + "-" +
                       std::to_string(i % 10),
                   "", ""};
  };
  auto list = [](int, int64_t) {
    return Request{"GET", "/api/v1/namespaces/default/configmaps?labelSelector=app%3Dbench", "",
                   ""};
  };
  Percentiles p500;
  for (double qps : {100.0, 500.0, 1000.0}) {
    Percentiles p = RunAtRate(url, qps, kClients, seconds, patch);
    if (qps == 500.0) p500 = p;
    PrintRow("PATCH configmap (mutating)", qps, p);
  }
  PrintRow("POST+DELETE configmap (mutating)", 500, RunAtRate(url, 500, kClients, seconds, create_delete));
  PrintRow("GET configmap", 500, RunAtRate(url, 500, kClients, seconds, get));
  PrintRow("LIST 80 configmaps (label selector)", 200, RunAtRate(url, 200, kClients, seconds, list));

  double max_rate = MaxMutationsPerSecond(url, kClients, seconds);
  std::printf("closed-loop mutations (%d clients): %.0f/s = %.2fx raw SQLite inserts\n", kClients,
              max_rate, max_rate / raw);
  std::printf("500 qps mutating: p99 %.3f ms = %.4fx the Kubernetes SLO (1 s), %.2fx the 5 ms "
              "target\n",
              p500.p99_ms, p500.p99_ms / 1000.0, p500.p99_ms / 5.0);
  (*server)->Stop();
  return 0;
}
