#include "cluster/flink/flink_states.h"

#include <cctype>

namespace trimtab::sim::flink {

std::string_view JobStatusName(JobStatus s) {
  switch (s) {
    case JobStatus::kInitializing: return "INITIALIZING";
    case JobStatus::kCreated: return "CREATED";
    case JobStatus::kRunning: return "RUNNING";
    case JobStatus::kFailing: return "FAILING";
    case JobStatus::kFailed: return "FAILED";
    case JobStatus::kCancelling: return "CANCELLING";
    case JobStatus::kCanceled: return "CANCELED";
    case JobStatus::kFinished: return "FINISHED";
    case JobStatus::kRestarting: return "RESTARTING";
    case JobStatus::kSuspended: return "SUSPENDED";
    case JobStatus::kReconciling: return "RECONCILING";
  }
  return "UNKNOWN";
}

bool IsGloballyTerminal(JobStatus s) {
  return s == JobStatus::kFailed || s == JobStatus::kCanceled || s == JobStatus::kFinished;
}

bool IsTerminal(JobStatus s) { return IsGloballyTerminal(s) || s == JobStatus::kSuspended; }

std::string_view ExecutionStateName(ExecutionState s) {
  switch (s) {
    case ExecutionState::kCreated: return "CREATED";
    case ExecutionState::kScheduled: return "SCHEDULED";
    case ExecutionState::kDeploying: return "DEPLOYING";
    case ExecutionState::kRunning: return "RUNNING";
    case ExecutionState::kFinished: return "FINISHED";
    case ExecutionState::kCanceling: return "CANCELING";
    case ExecutionState::kCanceled: return "CANCELED";
    case ExecutionState::kFailed: return "FAILED";
    case ExecutionState::kReconciling: return "RECONCILING";
    case ExecutionState::kInitializing: return "INITIALIZING";
  }
  return "UNKNOWN";
}

std::string ExecutionStateLowerName(ExecutionState s) {
  std::string out(ExecutionStateName(s));
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace trimtab::sim::flink
