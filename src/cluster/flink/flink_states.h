// Flink's job and task state enums with their wire names (notes flink-rest-and-sim.md §2.6),
// in the declaration order Flink's maps (timestamps, status-counts, tasks) are written in.
//
// Thread-safety: constants and pure functions.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace trimtab::sim::flink {

enum class JobStatus {
  kInitializing,
  kCreated,
  kRunning,
  kFailing,
  kFailed,
  kCancelling,
  kCanceled,
  kFinished,
  kRestarting,
  kSuspended,
  kReconciling,
};
inline constexpr std::array<JobStatus, 11> kAllJobStatuses = {
    JobStatus::kInitializing, JobStatus::kCreated,  JobStatus::kRunning,   JobStatus::kFailing,
    JobStatus::kFailed,       JobStatus::kCancelling, JobStatus::kCanceled, JobStatus::kFinished,
    JobStatus::kRestarting,   JobStatus::kSuspended, JobStatus::kReconciling};

std::string_view JobStatusName(JobStatus s);  // "RUNNING"
// FAILED, CANCELED, FINISHED.
bool IsGloballyTerminal(JobStatus s);
// Globally terminal or SUSPENDED.
bool IsTerminal(JobStatus s);

enum class ExecutionState {
  kCreated,
  kScheduled,
  kDeploying,
  kRunning,
  kFinished,
  kCanceling,
  kCanceled,
  kFailed,
  kReconciling,
  kInitializing,
};
inline constexpr std::array<ExecutionState, 10> kAllExecutionStates = {
    ExecutionState::kCreated,  ExecutionState::kScheduled, ExecutionState::kDeploying,   ExecutionState::kRunning,
    ExecutionState::kFinished, ExecutionState::kCanceling, ExecutionState::kCanceled,    ExecutionState::kFailed,
    ExecutionState::kReconciling, ExecutionState::kInitializing};

std::string_view ExecutionStateName(ExecutionState s);  // "RUNNING"
std::string ExecutionStateLowerName(ExecutionState s);  // "running" (jobs/overview tasks keys)

}  // namespace trimtab::sim::flink
