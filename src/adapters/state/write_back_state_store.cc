#include "adapters/state/write_back_state_store.h"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

namespace trimtab::adapters {

StatusOr<WriteBackStateStore::View*> WriteBackStateStore::ViewOf(const std::string& job_key) {
  auto it = views_.find(job_key);
  if (it != views_.end()) return &it->second;
  TRIMTAB_ASSIGN_OR_RETURN(std::vector<Row> rows, LoadRows(job_key));
  View view;
  for (Row& row : rows) {
    std::optional<core::StateType> type = core::ParseStateType(row.state_type);
    if (!type || !Json::accept(row.state_value)) {
      spdlog::warn("{}: discarding undecodable state {}/{}", Describe(), job_key, row.state_type);
      view.dirty = true;  // the next flush rewrites the job without it
      continue;
    }
    view.documents[*type] = std::move(row.state_value);
  }
  return &views_.emplace(job_key, std::move(view)).first->second;
}

Status WriteBackStateStore::Put(const std::string& job_key, core::StateType type,
                                const Json& value) {
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::lock_guard<std::mutex> lock(mu_);
  TRIMTAB_ASSIGN_OR_RETURN(View * view, ViewOf(job_key));
  view->documents[type] = std::move(text);
  view->dirty = true;
  return Status::Ok();
}

Status WriteBackStateStore::Get(const std::string& job_key, core::StateType type, Json* out) {
  std::lock_guard<std::mutex> lock(mu_);
  TRIMTAB_ASSIGN_OR_RETURN(View * view, ViewOf(job_key));
  auto it = view->documents.find(type);
  if (it == view->documents.end()) {
    return NotFoundError("state " + job_key + "/" + std::string(core::StateTypeName(type)) +
                         ": not found");
  }
  *out = Json::parse(it->second);
  return Status::Ok();
}

Status WriteBackStateStore::Remove(const std::string& job_key, core::StateType type) {
  std::lock_guard<std::mutex> lock(mu_);
  TRIMTAB_ASSIGN_OR_RETURN(View * view, ViewOf(job_key));
  if (view->documents.erase(type) > 0) view->dirty = true;
  return Status::Ok();
}

Status WriteBackStateStore::ClearAll(const std::string& job_key) {
  std::lock_guard<std::mutex> lock(mu_);
  TRIMTAB_ASSIGN_OR_RETURN(View * view, ViewOf(job_key));
  view->documents.clear();
  view->dirty = true;
  return Status::Ok();
}

Status WriteBackStateStore::Flush(const std::string& job_key) {
  std::lock_guard<std::mutex> lock(mu_);
  TRIMTAB_ASSIGN_OR_RETURN(View * view, ViewOf(job_key));
  if (!view->dirty) return Status::Ok();
  TRIMTAB_RETURN_IF_ERROR(ReplaceRows(job_key, view->documents));
  view->dirty = false;
  return Status::Ok();
}

StatusOr<std::vector<std::string>> WriteBackStateStore::ListJobKeys() {
  std::lock_guard<std::mutex> lock(mu_);
  return LoadJobKeys();
}

}  // namespace trimtab::adapters
