// Status and StatusOr: the error vocabulary of trimtab.
//
// Fallible functions return Status (or StatusOr<T> when they also produce a value). No exceptions
// cross a component boundary in src/core, src/plugins or the plugin ABI. Codes are few and are
// chosen by what the caller should do next:
//
//   kInvalidArgument     bad input (spec, file, request): report it, do not retry unchanged
//   kNotFound            the object does not exist
//   kAlreadyExists       create of an existing object
//   kConflict            optimistic-concurrency failure: re-read and retry
//   kFailedPrecondition  the system is not in a state that allows the operation: wait / requeue
//   kUnavailable         transient I/O failure (5xx, connection refused): back off and retry
//   kDeadlineExceeded    timed out: back off and retry, never assume success
//   kPermissionDenied    forbidden by policy (including a plugin veto)
//   kInternal            a bug or a corrupt state: log loudly
//
// Usage:
//   StatusOr<Quantity> q = Quantity::Parse(text);
//   if (!q.ok()) return q.status();
//   TRIMTAB_ASSIGN_OR_RETURN(Quantity q, Quantity::Parse(text));
//
// Thread-safety: values; safe to copy across threads.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace trimtab {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,
  kNotFound,
  kAlreadyExists,
  kConflict,
  kFailedPrecondition,
  kUnavailable,
  kDeadlineExceeded,
  kPermissionDenied,
  kInternal,
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "INVALID_ARGUMENT: spec.metrics[0].type: unknown value \"Foo\"" (or "OK").
  std::string ToString() const;

  // Returns a copy whose message is "<context>: <message>"; OK stays OK.
  Status WithContext(std::string_view context) const;

  // Explicitly drops the status: the call is visible in the code on purpose.
  void IgnoreError() const {}

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

Status InvalidArgumentError(std::string message);
Status NotFoundError(std::string message);
Status AlreadyExistsError(std::string message);
Status ConflictError(std::string message);
Status FailedPreconditionError(std::string message);
Status UnavailableError(std::string message);
Status DeadlineExceededError(std::string message);
Status PermissionDeniedError(std::string message);
Status InternalError(std::string message);

// StatusOr<T> holds either a value or a non-OK Status.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(const T& value) : rep_(value) {}                 // NOLINT(google-explicit-constructor)
  StatusOr(T&& value) : rep_(std::move(value)) {}           // NOLINT(google-explicit-constructor)
  StatusOr(Status status) : rep_(std::move(status)) {       // NOLINT(google-explicit-constructor)
    assert(!std::get<Status>(rep_).ok() && "StatusOr constructed from an OK status");
    if (std::get<Status>(rep_).ok()) rep_ = InternalError("StatusOr constructed from OK status");
  }
  template <typename U>
    requires(std::is_constructible_v<T, U &&> && !std::is_same_v<std::decay_t<U>, T> &&
             !std::is_same_v<std::decay_t<U>, Status> &&
             !std::is_same_v<std::decay_t<U>, StatusOr<T>>)
  StatusOr(U&& value) : rep_(T(std::forward<U>(value))) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(rep_); }

  // The status: OK when a value is held.
  Status status() const { return ok() ? Status() : std::get<Status>(rep_); }

  // REQUIRES: ok().
  const T& value() const& { return std::get<T>(rep_); }
  T& value() & { return std::get<T>(rep_); }
  T&& value() && { return std::get<T>(std::move(rep_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  T value_or(T fallback) const { return ok() ? value() : std::move(fallback); }

 private:
  std::variant<Status, T> rep_;
};

}  // namespace trimtab

#define TRIMTAB_STATUS_CONCAT_INNER_(a, b) a##b
#define TRIMTAB_STATUS_CONCAT_(a, b) TRIMTAB_STATUS_CONCAT_INNER_(a, b)

// Returns from the current function when `expr` (a Status) is not OK.
#define TRIMTAB_RETURN_IF_ERROR(expr)                       \
  do {                                                      \
    ::trimtab::Status trimtab_status_ = (expr);             \
    if (!trimtab_status_.ok()) return trimtab_status_;      \
  } while (0)

// TRIMTAB_ASSIGN_OR_RETURN(T lhs, StatusOr<T> expr): declares/assigns lhs or returns the error.
#define TRIMTAB_ASSIGN_OR_RETURN(lhs, expr) \
  TRIMTAB_ASSIGN_OR_RETURN_IMPL_(TRIMTAB_STATUS_CONCAT_(trimtab_statusor_, __LINE__), lhs, expr)
#define TRIMTAB_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.ok()) return tmp.status();                  \
  lhs = std::move(tmp).value()
