// CycleState: scratch data that the executor plugins of one chain run share with each other
// (DESIGN.md §2 stage 5). One CycleState lives for one run of the chain for one job; a plugin
// writes under a key it owns and later plugins may read it (for example a gate records the CPU
// value it measured so a later plugin can explain its own decision with it).
//
// Clone() gives an independent deep copy, so a caller can evaluate a what-if run of the chain
// without disturbing the real one.
//
// Usage:
//   struct CpuSeen final : CycleStateData {
//     double value = 0;
//     std::unique_ptr<CycleStateData> Clone() const override {
//       return std::make_unique<CpuSeen>(*this);
//     }
//   };
//   cycle.Write("resource-gate/cpu", std::make_unique<CpuSeen>(...));
//   if (const auto* cpu = cycle.Read<CpuSeen>("resource-gate/cpu")) ...
//
// Thread-safety: not thread-safe; a chain run is single-threaded.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace trimtab::core {

// One value stored in a CycleState. Implementations must deep-copy in Clone().
class CycleStateData {
 public:
  virtual ~CycleStateData() = default;
  virtual std::unique_ptr<CycleStateData> Clone() const = 0;
};

class CycleState {
 public:
  CycleState() = default;
  CycleState(const CycleState&) = delete;
  CycleState& operator=(const CycleState&) = delete;
  CycleState(CycleState&&) = default;
  CycleState& operator=(CycleState&&) = default;

  // Stores `data` under `key`, replacing what was there.
  void Write(const std::string& key, std::unique_ptr<CycleStateData> data);
  // The value under `key`, or nullptr when absent.
  const CycleStateData* ReadRaw(const std::string& key) const;
  // The value under `key` if present and of type T, else nullptr.
  template <typename T>
  const T* Read(const std::string& key) const {
    return dynamic_cast<const T*>(ReadRaw(key));
  }
  // Removes `key`; returns whether it was present.
  bool Delete(const std::string& key);
  std::vector<std::string> Keys() const;

  // A deep copy for what-if evaluation.
  CycleState Clone() const;

 private:
  std::map<std::string, std::unique_ptr<CycleStateData>> data_;
};

}  // namespace trimtab::core
