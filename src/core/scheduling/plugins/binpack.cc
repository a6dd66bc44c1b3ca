// binpack: prefer nodes that are already full. Per requested resource with a weight (cpu and
// memory 1 by default, more via binpack.resources), (used + request) / allocatable x weight,
// averaged over the weights and scaled by 100 x binpack.weight; 0 when the request does not
// fit (Volcano's BinPackingScore, on Volcano's used = every task placed on the node).
#include <map>

#include "core/scheduling/plugin_args.h"
#include "core/scheduling/plugins/plugins.h"

namespace trimtab::core::scheduling {
namespace {

struct BinpackWeights {
  int weight = 1;
  int cpu = 1;
  int memory = 1;
  std::map<std::string, int> resources;  // extra resource name -> weight
};

class BinpackPlugin final : public Plugin {
 public:
  explicit BinpackPlugin(BinpackWeights w) : w_(std::move(w)) {}
  std::string_view name() const override { return "binpack"; }

  void OnSessionOpen(Session& ssn) override {
    dim_weight_.fill(-1);  // -1: the dimension has no weight (skipped)
    dim_weight_[kCpu] = w_.cpu;
    dim_weight_[kMemory] = w_.memory;
    for (const auto& [name, weight] : w_.resources) {
      const int d = ssn.names().Find(name);
      if (d >= 0 && d != kCpu && d != kMemory) dim_weight_[d] = weight;
    }
    if (w_.weight == 0) return;
    ssn.AddNodeOrderFn(name(), [this](const TaskInfo& task, const NodeInfo& node) {
      double score = 0;
      int weight_sum = 0;
      for (int d = 0; d < kMaxResourceDims; ++d) {
        const double request = task.resreq[d];
        if (request < kMinResource || dim_weight_[d] < 0) continue;
        const double capacity = node.allocatable[d];
        const int weight = dim_weight_[d];
        if (capacity != 0 && weight != 0) {
          const double used_finally = request + node.used[d];
          if (used_finally > capacity) return 0.0;
          score += used_finally * weight / capacity;
        }
        weight_sum += weight;
      }
      if (weight_sum > 0) score /= weight_sum;
      return score * 100.0 * w_.weight;
    });
  }

 private:
  BinpackWeights w_;
  std::array<int, kMaxResourceDims> dim_weight_{};
};

}  // namespace

PluginPtr NewBinpackPlugin(const Json& args, const std::string& path) {
  PluginArgs a(args, path);
  BinpackWeights w;
  TRIMTAB_RETURN_IF_ERROR(a.Int("binpack.weight", &w.weight));
  TRIMTAB_RETURN_IF_ERROR(a.Int("binpack.cpu", &w.cpu));
  if (w.cpu < 0) w.cpu = 1;
  TRIMTAB_RETURN_IF_ERROR(a.Int("binpack.memory", &w.memory));
  if (w.memory < 0) w.memory = 1;
  std::string resources;
  TRIMTAB_RETURN_IF_ERROR(a.String("binpack.resources", &resources));
  size_t start = 0;
  while (start <= resources.size()) {
    size_t comma = resources.find(',', start);
    std::string name = resources.substr(start, comma == std::string::npos ? std::string::npos
                                                                            : comma - start);
    while (!name.empty() && name.front() == ' ') name.erase(name.begin());
    while (!name.empty() && name.back() == ' ') name.pop_back();
    if (!name.empty()) {
      int weight = 1;
      TRIMTAB_RETURN_IF_ERROR(a.Int("binpack.resources." + name, &weight));
      if (weight < 0) weight = 1;
      w.resources[name] = weight;
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  TRIMTAB_RETURN_IF_ERROR(a.NoUnknownKeys());
  return std::unique_ptr<Plugin>(new BinpackPlugin(std::move(w)));
}

}  // namespace trimtab::core::scheduling
