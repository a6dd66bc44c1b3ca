#include "operator/controller_shared/status_recorder.h"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

namespace trimtab::op {

void StatusRecorder::Seed(const Json& object) {
  const std::string uid = kube::ObjectUid(object);
  std::lock_guard<std::mutex> lock(mu_);
  if (!last_written_.count(uid)) last_written_[uid] = object.value("status", Json::object());
}

void StatusRecorder::Forget(const std::string& uid) {
  std::lock_guard<std::mutex> lock(mu_);
  last_written_.erase(uid);
}

int64_t StatusRecorder::WritesForTest() const {
  std::lock_guard<std::mutex> lock(mu_);
  return writes_;
}

Status StatusRecorder::Write(Json* object, const Json& status) {
  const std::string uid = kube::ObjectUid(*object);
  Json previous;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = last_written_.find(uid);
    if (it != last_written_.end()) {
      if (it->second == status) return Status::Ok();
      previous = it->second;
    } else {
      previous = object->value("status", Json::object());
    }
  }
  const std::string what = gvr_.resource + " " + kube::ObjectNamespace(*object) + "/" +
                           kube::ObjectName(*object);
  for (int attempt = 0; attempt < 4; ++attempt) {
    Json desired = *object;
    desired["status"] = status;
    StatusOr<Json> written = client_->UpdateStatus(gvr_, desired);
    if (written.ok()) {
      (*object)["metadata"]["resourceVersion"] = kube::ObjectResourceVersion(*written);
      (*object)["status"] = written->value("status", status);
      std::lock_guard<std::mutex> lock(mu_);
      last_written_[uid] = (*object)["status"];
      ++writes_;
      return Status::Ok();
    }
    if (written.status().code() != StatusCode::kConflict) {
      return written.status().WithContext("write status of " + what);
    }
    StatusOr<Json> current = client_->Get(gvr_, kube::ObjectNamespace(*object),
                                          kube::ObjectName(*object));
    if (!current.ok()) return current.status().WithContext("re-read " + what + " after a conflict");
    const Json stored = current->value("status", Json::object());
    if (stored != previous) {
      Forget(uid);
      return ConflictError("Status have been modified externally in version " +
                           kube::ObjectResourceVersion(*current) + " of " + what +
                           "; the next reconciliation starts over from the stored status");
    }
    spdlog::debug("{}: spec or metadata changed meanwhile, retrying the status write at {}", what,
                  kube::ObjectResourceVersion(*current));
    (*object)["metadata"]["resourceVersion"] = kube::ObjectResourceVersion(*current);
  }
  return ConflictError("write status of " + what + ": still conflicting after 3 retries");
}

}  // namespace trimtab::op
