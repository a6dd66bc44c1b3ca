#include "operator/controller_shared/reconciliation_utils.h"

#include <nlohmann/json.hpp>

namespace trimtab::op {
namespace {

constexpr const char* kNonces[] = {"savepointTriggerNonce", "checkpointTriggerNonce"};

}  // namespace

Json LastReconciledSpec(const api::CommonStatus& status) {
  StatusOr<api::SpecWithMeta> parsed =
      api::ParseSpecWithMeta(status.reconciliation_status.last_reconciled_spec);
  return parsed.ok() ? parsed->spec : Json();
}

Json RecordedSpec(const api::CommonStatus& status) {
  const api::ReconciliationStatus& r = status.reconciliation_status;
  const std::string& text =
      r.state == api::ReconciliationState::kRolledBack && !r.last_stable_spec.empty()
          ? r.last_stable_spec
          : r.last_reconciled_spec;
  StatusOr<api::SpecWithMeta> parsed = api::ParseSpecWithMeta(text);
  return parsed.ok() ? parsed->spec : Json();
}

bool IsFirstDeployment(const api::CommonStatus& status) {
  StatusOr<api::SpecWithMeta> parsed =
      api::ParseSpecWithMeta(status.reconciliation_status.last_reconciled_spec);
  if (!parsed.ok()) return true;
  return parsed->meta && parsed->meta->first_deployment;
}

void RecordSpec(api::CommonStatus* status, Json spec, int64_t generation, TimePoint now,
                const RecordOptions& options) {
  api::ReconciliationStatus& r = status->reconciliation_status;
  const Json previous = LastReconciledSpec(*status);
  bool first = r.last_reconciled_spec.empty();
  if (!first) {
    StatusOr<api::SpecWithMeta> prev = api::ParseSpecWithMeta(r.last_reconciled_spec);
    first = prev.ok() && prev->meta && prev->meta->first_deployment &&
            r.state == api::ReconciliationState::kUpgrading;
  }
  // The snapshot nonces are recorded when their snapshot is handled; the first deployment keeps
  // the spec's own (as upstream: an untouched savepointTriggerNonce triggers nothing).
  const bool has_previous = previous.is_object() && previous.contains("job");
  if (spec.is_object() && spec.contains("job") && spec["job"].is_object()) {
    Json& job = spec["job"];
    for (const char* nonce : kNonces) {
      if (!has_previous) break;
      const Json prev = previous.is_object() && previous.contains("job")
                            ? previous["job"].value(nonce, Json())
                            : Json();
      if (prev.is_null()) {
        job.erase(nonce);
      } else {
        job[nonce] = prev;
      }
    }
    if (options.job_state) job["state"] = std::string(api::Name(*options.job_state));
    if (options.upgrade_mode) job["upgradeMode"] = std::string(api::Name(*options.upgrade_mode));
  }
  r.last_reconciled_spec = api::SerializeSpecWithMeta(spec, {.first_deployment = first});
  r.state = options.state;
  r.reconciliation_timestamp = ToUnixMillis(now);
  status->observed_generation = generation;
}

void RecordGeneration(api::CommonStatus* status, int64_t generation) {
  status->observed_generation = generation;
}

void MarkStable(api::CommonStatus* status) {
  status->reconciliation_status.last_stable_spec =
      status->reconciliation_status.last_reconciled_spec;
}

bool IsStable(const api::CommonStatus& status) {
  const api::ReconciliationStatus& r = status.reconciliation_status;
  return !r.last_reconciled_spec.empty() && r.last_reconciled_spec == r.last_stable_spec;
}

void MarkSuspended(api::CommonStatus* status) {
  StatusOr<api::SpecWithMeta> parsed =
      api::ParseSpecWithMeta(status->reconciliation_status.last_reconciled_spec);
  if (!parsed.ok() || !parsed->spec.contains("job")) return;
  parsed->spec["job"]["state"] = "suspended";
  status->reconciliation_status.last_reconciled_spec =
      api::SerializeSpecWithMeta(parsed->spec, {.first_deployment = false});
}

void ClearRecordedSpec(api::CommonStatus* status) {
  status->reconciliation_status.last_reconciled_spec.clear();
  status->reconciliation_status.state = api::ReconciliationState::kUpgrading;
}

std::optional<int64_t> JobNonce(const Json& spec, const char* field) {
  if (!spec.is_object() || !spec.contains("job")) return std::nullopt;
  const Json& v = spec["job"].value(field, Json());
  if (!v.is_number_integer()) return std::nullopt;
  return v.get<int64_t>();
}

void SetRecordedJobField(api::CommonStatus* status, const char* field, const Json& value) {
  StatusOr<api::SpecWithMeta> parsed =
      api::ParseSpecWithMeta(status->reconciliation_status.last_reconciled_spec);
  if (!parsed.ok() || !parsed->spec.contains("job")) return;
  if (value.is_null()) {
    parsed->spec["job"].erase(field);
  } else {
    parsed->spec["job"][field] = value;
  }
  const bool first = parsed->meta && parsed->meta->first_deployment;
  const bool was_stable = IsStable(*status);
  status->reconciliation_status.last_reconciled_spec =
      api::SerializeSpecWithMeta(parsed->spec, {.first_deployment = first});
  if (was_stable) MarkStable(status);
}

}  // namespace trimtab::op
