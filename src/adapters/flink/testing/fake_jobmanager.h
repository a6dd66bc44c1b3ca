// FakeJobManager (test only): a scripted Flink JobManager REST API on loopback for the job
// operations the operator performs, with Flink's wire shapes (notes flink-rest-and-sim.md §1):
//
//   GET  /jobs/overview                    every job, tasks all RUNNING for a RUNNING job
//   GET  /jobs/:id/exceptions, /execution-result, /checkpoints, /checkpoints/:trigger,
//        /savepoints/:trigger, /resource-requirements
//   POST /jobs/:id/stop, /savepoints, /checkpoints; PATCH /jobs/:id?mode=cancel
//   PUT  /jobs/:id/resource-requirements   (adaptive scheduler only, every vertex required)
//   GET  /config; POST /savepoint-disposal (+ GET /savepoint-disposal/:trigger)
//   POST /jars/upload (multipart), POST /jars/:id/run, DELETE /jars/:id
//
// Asynchronous operations complete on the first status poll unless HoldOperations(true) keeps
// them IN_PROGRESS until CompleteOperations(). A stop-with-savepoint finishes the job and records
// the savepoint in the checkpoint history, as Flink does. Unknown jobs answer 404
// {"errors":["Job <id> not found"]}; FailNext scripts error answers.
//
// Thread-safety: all methods are safe for concurrent use.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adapters/flink/rest_client.h"
#include "common/status.h"

namespace trimtab::flink::testing {

struct FakeJob {
  std::string id;  // 32 hex
  std::string name = "job";
  std::string state = "RUNNING";
  int64_t start_time = 1000;
  std::string scheduler = "default";  // "adaptive" enables resource requirements
  ResourceRequirements requirements;  // vertex -> bounds
  std::vector<CheckpointRecord> checkpoints;  // oldest first
  std::vector<ExceptionEntry> exceptions;
  std::string failure;  // execution-result failure stack trace for FAILED jobs
  // false: GET /jobs/:id/checkpoints answers 404 "Checkpointing has not been enabled." (no
  // periodic checkpoints; savepoints still work).
  bool checkpointing = true;
  // Set by the fake from the last stop/savepoint request.
  std::string last_savepoint_dir;
  bool last_stop_drain = false;
};

struct UploadedJar {
  std::string id;
  std::string file_name;
  std::string bytes;
  std::vector<RunJarRequest> runs;
};

class FakeJobManager {
 public:
  struct Options {
    std::string flink_version = "1.20.0";
    std::string default_savepoint_dir;  // used when a request names none ("" -> 400)
  };
  static StatusOr<std::unique_ptr<FakeJobManager>> Create(Options options);
  static StatusOr<std::unique_ptr<FakeJobManager>> Create() { return Create(Options{}); }
  ~FakeJobManager();

  std::string base_url() const;
  int port() const;

  void AddJob(FakeJob job);
  void RemoveJobs();
  // Forgets every asynchronous operation, as a restarted JobManager does (polls answer 404).
  void ForgetOperations();
  std::optional<FakeJob> Job(const std::string& id) const;
  std::vector<FakeJob> Jobs() const;
  void SetJobState(const std::string& id, const std::string& state);
  void AddCheckpoint(const std::string& job_id, const std::string& path, bool is_savepoint);

  void HoldOperations(bool hold);
  void CompleteOperations();
  // The next `count` requests whose path starts with `prefix` (and method equals `method`, ""
  // = any) answer `status` with {"errors":[message]}.
  void FailNext(const std::string& method, const std::string& prefix, int status,
                const std::string& message, int count = 1);
  // Every request sleeps this long before answering (client timeout tests).
  void SetDelay(std::chrono::milliseconds delay);
  // Called with "METHOD /path?query" before each request is answered, on the server thread and
  // outside the fake's lock (a test can act "while" the client waits for the answer).
  void SetRequestHook(std::function<void(const std::string& request)> hook);

  std::vector<std::string> Requests() const;  // "METHOD /path?query"
  int Count(const std::string& method, const std::string& prefix) const;
  std::vector<std::string> DisposedSavepoints() const;
  std::vector<UploadedJar> Jars() const;

  class Impl;

 private:
  explicit FakeJobManager(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace trimtab::flink::testing
