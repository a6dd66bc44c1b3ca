#include "core/chain/cycle_state.h"

namespace trimtab::core {

void CycleState::Write(const std::string& key, std::unique_ptr<CycleStateData> data) {
  data_[key] = std::move(data);
}

const CycleStateData* CycleState::ReadRaw(const std::string& key) const {
  auto it = data_.find(key);
  return it == data_.end() ? nullptr : it->second.get();
}

bool CycleState::Delete(const std::string& key) { return data_.erase(key) > 0; }

std::vector<std::string> CycleState::Keys() const {
  std::vector<std::string> keys;
  keys.reserve(data_.size());
  for (const auto& [key, value] : data_) keys.push_back(key);
  return keys;
}

CycleState CycleState::Clone() const {
  CycleState copy;
  for (const auto& [key, value] : data_) {
    copy.data_[key] = value ? value->Clone() : nullptr;
  }
  return copy;
}

}  // namespace trimtab::core
