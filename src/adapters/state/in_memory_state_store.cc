#include "adapters/state/in_memory_state_store.h"

#include <nlohmann/json.hpp>

namespace trimtab::adapters {

std::map<core::StateType, std::string>& InMemoryStateStore::View(const std::string& job_key) {
  auto it = views_.find(job_key);
  if (it != views_.end()) return it->second;
  std::lock_guard<std::mutex> lock(backing_->mu);
  auto durable = backing_->durable.find(job_key);
  return views_[job_key] = durable == backing_->durable.end()
                               ? std::map<core::StateType, std::string>{}
                               : durable->second;
}

Status InMemoryStateStore::Put(const std::string& job_key, core::StateType type,
                               const Json& value) {
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::lock_guard<std::mutex> lock(mu_);
  View(job_key)[type] = std::move(text);
  return Status::Ok();
}

Status InMemoryStateStore::Get(const std::string& job_key, core::StateType type, Json* out) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& view = View(job_key);
  auto it = view.find(type);
  if (it == view.end()) {
    return NotFoundError("state " + job_key + "/" + std::string(core::StateTypeName(type)) +
                         ": not found");
  }
  *out = Json::parse(it->second);
  return Status::Ok();
}

Status InMemoryStateStore::Remove(const std::string& job_key, core::StateType type) {
  std::lock_guard<std::mutex> lock(mu_);
  View(job_key).erase(type);
  return Status::Ok();
}

Status InMemoryStateStore::ClearAll(const std::string& job_key) {
  std::lock_guard<std::mutex> lock(mu_);
  View(job_key).clear();
  return Status::Ok();
}

Status InMemoryStateStore::Flush(const std::string& job_key) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto& view = View(job_key);
  std::lock_guard<std::mutex> backing_lock(backing_->mu);
  if (view.empty()) {
    backing_->durable.erase(job_key);
  } else {
    backing_->durable[job_key] = view;
  }
  return Status::Ok();
}

StatusOr<std::vector<std::string>> InMemoryStateStore::ListJobKeys() {
  std::lock_guard<std::mutex> lock(backing_->mu);
  std::vector<std::string> keys;
  for (const auto& [key, docs] : backing_->durable) keys.push_back(key);
  return keys;
}

}  // namespace trimtab::adapters
