// A joinable thread whose stack holds a recursive walk of the deepest document trimtab accepts.
//
// Every reader stops at 10,000 levels of nesting (common/json.h), and the code that decodes,
// validates, copies or serialises a document recurses once per level. A std::thread gets the
// environment's default stack (glibc takes RLIMIT_STACK, only 2 MiB when that is unlimited), and
// sanitizers need several times more per frame, so a 10,000-level document overflowed it under
// ASan. Threads that walk documents received from clients or stored by them (the HTTP server's
// I/O threads, the API server's watch fan-out) run on a DeepStackThread instead: 64 MiB of
// stack, of which only the touched pages are committed.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <functional>

#include "common/status.h"

namespace trimtab {

// The stack of a DeepStackThread.
inline constexpr size_t kDeepStackBytes = size_t{64} << 20;

class DeepStackThread {
 public:
  // Not started; joinable() is false.
  DeepStackThread() = default;
  // Joins the thread if it is still joinable (as std::jthread does).
  ~DeepStackThread();
  DeepStackThread(DeepStackThread&& other) noexcept;
  DeepStackThread& operator=(DeepStackThread&& other) noexcept;
  DeepStackThread(const DeepStackThread&) = delete;
  DeepStackThread& operator=(const DeepStackThread&) = delete;

  // Runs `body` on a new thread with kDeepStackBytes of stack. If the system refuses a stack
  // that large, the thread gets the default stack instead (and a warning is logged); if it
  // refuses a thread at all, the error says why.
  static StatusOr<DeepStackThread> Start(std::function<void()> body);

  bool joinable() const { return started_; }
  // Waits for the thread to finish; afterwards joinable() is false.
  void join();

 private:
  pthread_t thread_{};
  bool started_ = false;
};

}  // namespace trimtab
