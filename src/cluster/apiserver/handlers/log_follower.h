// LogFollower: streams `kubectl logs -f`. Each followed log is polled on one shared thread: the
// text appended since the last poll is written to the response stream, and the stream ends when
// the fetch says the log is finished (the pod is gone or its container has terminated) or the
// client goes away. A log that shrank (the container restarted) is followed from its start again.
//
// Thread-safety: Follow from any thread; the destructor stops the thread and closes the streams.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "adapters/http/server.h"

namespace trimtab::cluster {

class LogFollower {
 public:
  // The log's whole current text and whether it is finished; nullopt: it is gone (ends the
  // stream after what was sent).
  struct Snapshot {
    std::string text;
    bool finished = false;
  };
  using Fetch = std::function<std::optional<Snapshot>()>;

  explicit LogFollower(std::chrono::milliseconds period = std::chrono::milliseconds(250))
      : period_(period) {}
  ~LogFollower();
  LogFollower(const LogFollower&) = delete;
  LogFollower& operator=(const LogFollower&) = delete;

  // Follows a log whose first `sent` bytes the stream already carries.
  void Follow(std::shared_ptr<http::ResponseStream> stream, Fetch fetch, size_t sent);

 private:
  struct Followed {
    std::shared_ptr<http::ResponseStream> stream;
    Fetch fetch;
    size_t sent = 0;
  };
  void Loop();

  const std::chrono::milliseconds period_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Followed> followed_;  // guarded by mu_
  bool stopping_ = false;           // guarded by mu_
  std::thread thread_;              // started by the first Follow
};

}  // namespace trimtab::cluster
