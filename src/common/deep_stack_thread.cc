#include "common/deep_stack_thread.h"

#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include <spdlog/spdlog.h>

namespace trimtab {
namespace {

void* RunBody(void* arg) {
  std::unique_ptr<std::function<void()>> body(static_cast<std::function<void()>*>(arg));
  (*body)();
  return nullptr;
}

}  // namespace

DeepStackThread::~DeepStackThread() {
  if (started_) join();
}

DeepStackThread::DeepStackThread(DeepStackThread&& other) noexcept
    : thread_(other.thread_), started_(std::exchange(other.started_, false)) {}

DeepStackThread& DeepStackThread::operator=(DeepStackThread&& other) noexcept {
  if (this != &other) {
    if (started_) join();
    thread_ = other.thread_;
    started_ = std::exchange(other.started_, false);
  }
  return *this;
}

StatusOr<DeepStackThread> DeepStackThread::Start(std::function<void()> body) {
  auto owned = std::make_unique<std::function<void()>>(std::move(body));
  DeepStackThread thread;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  int rc = pthread_attr_setstacksize(&attr, kDeepStackBytes);
  if (rc == 0) rc = pthread_create(&thread.thread_, &attr, RunBody, owned.get());
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    spdlog::warn("thread: no {} MiB stack ({}); starting one with the default stack",
                 kDeepStackBytes >> 20, std::strerror(rc));
    rc = pthread_create(&thread.thread_, nullptr, RunBody, owned.get());
  }
  if (rc != 0) return UnavailableError(std::string("cannot start a thread: ") + std::strerror(rc));
  owned.release();  // RunBody owns it now
  thread.started_ = true;
  return thread;
}

void DeepStackThread::join() {
  if (!started_) return;
  pthread_join(thread_, nullptr);
  started_ = false;
}

}  // namespace trimtab
